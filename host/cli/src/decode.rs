//! `collwire decode`: what the board's parser makes of a frame, field by field.

use anyhow::{Context, Result};
use collwire_proto::frame::{FrameKind, classify};
use collwire_proto::wire::ErrorRecord;
use collwire_proto::{MessageType, OffloadRepr};

#[derive(clap::Args)]
pub struct Args {
    /// Hex bytes of an Ethernet frame (without FCS), or of a UDP payload with --datagram.
    pub hex: Vec<String>,
    /// The bytes are an offload datagram (UDP payload), not a whole frame.
    #[arg(long)]
    pub datagram: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let text: String = args
        .hex
        .concat()
        .chars()
        .filter(|c| c.is_ascii_hexdigit())
        .collect();
    let bytes = hex::decode(&text).context("input is not an even number of hex digits")?;
    print!("{}", describe(&bytes, args.datagram));
    Ok(())
}

/// Human-readable description of a frame (or datagram).
pub fn describe(bytes: &[u8], datagram: bool) -> String {
    if datagram {
        return match OffloadRepr::from_datagram(bytes) {
            Ok((repr, payload)) => describe_repr(&repr, payload),
            Err(e) => format!("malformed offload datagram: {e}\n"),
        };
    }
    match classify(bytes) {
        FrameKind::PassThrough => format!(
            "pass-through frame ({} bytes): not addressed to the offload engine\n",
            bytes.len()
        ),
        FrameKind::Malformed(e) => format!(
            "malformed offload frame ({} bytes), dropped and counted: {e}\n",
            bytes.len()
        ),
        FrameKind::Offload {
            endpoints: ep,
            repr,
            payload,
        } => {
            let mac = |m: [u8; 6]| {
                m.iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<Vec<_>>()
                    .join(":")
            };
            let ip = |a: [u8; 4]| a.iter().map(u8::to_string).collect::<Vec<_>>().join(".");
            format!(
                "offload frame {} → {}  {}:{} → {}:{}\n{}",
                mac(ep.src_mac),
                mac(ep.dst_mac),
                ip(ep.src_ip),
                ep.src_port,
                ip(ep.dst_ip),
                ep.dst_port,
                describe_repr(&repr, payload)
            )
        }
    }
}

fn describe_repr(r: &OffloadRepr, payload: &[u8]) -> String {
    let mut s = format!(
        "  {} op_id={} {} {} {} {} comm={} size={} rank={} root={} rph={} attempt={} segment {}/{} elements={}\n",
        r.msg_type,
        r.op_id,
        r.collective,
        r.algorithm,
        r.datatype,
        r.op,
        r.comm_id,
        r.comm_size,
        r.rank,
        r.root,
        r.ranks_per_host,
        r.attempt,
        r.seg_index,
        r.seg_count,
        r.elem_count
    );
    if r.msg_type == MessageType::Error {
        match ErrorRecord::parse(payload) {
            Ok(rec) => s += &format!("  error: {} (detail {})\n", rec.code, rec.detail),
            Err(e) => s += &format!("  unreadable error record: {e}\n"),
        }
    } else if let Err(e) = r.check_supported() {
        s += &format!("  refused by the board: {e}\n");
    }
    s
}

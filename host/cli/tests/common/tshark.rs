//! `tshark` with the project's dissector, checked field by field against `collwire-proto`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use collwire_proto::wire::ErrorRecord;
use collwire_proto::{Datatype, MessageType, OffloadRepr};
use collwire_sim::capture::read_capture;
use collwire_sim::hosts::udp_datagram;

pub fn dissector() -> PathBuf {
    super::repo().join("wireshark/collwire.lua")
}

/// The header fields `tshark` prints, in this order, and how `OffloadRepr` reads each.
const FIELDS: &[&str] = &[
    "collwire.type",
    "collwire.op_id",
    "collwire.collective",
    "collwire.algorithm",
    "collwire.datatype",
    "collwire.op",
    "collwire.comm_id",
    "collwire.comm_size",
    "collwire.rank",
    "collwire.root",
    "collwire.ranks_per_host",
    "collwire.attempt",
    "collwire.seg_index",
    "collwire.seg_count",
    "collwire.elem_count",
];

fn repr_fields(r: &OffloadRepr) -> Vec<u64> {
    [
        u64::from(r.msg_type.code()),
        u64::from(r.op_id),
        u64::from(r.collective.code()),
        u64::from(r.algorithm.code()),
        u64::from(r.datatype.code()),
        u64::from(r.op.code()),
        u64::from(r.comm_id),
        u64::from(r.comm_size),
        u64::from(r.rank),
        u64::from(r.root),
        u64::from(r.ranks_per_host),
        u64::from(r.attempt),
        u64::from(r.seg_index),
        u64::from(r.seg_count),
        u64::from(r.elem_count),
    ]
    .to_vec()
}

/// Runs `tshark` with the project's dissector on `capture`: per frame, the interface name,
/// the header fields, the error code and the elements of every datatype.
fn tshark(capture: &Path) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.arg("-X")
        .arg(format!("lua_script:{}", dissector().display()))
        .arg("-r")
        .arg(capture)
        .args(["-T", "fields", "-E", "separator=/t", "-E", "occurrence=a"])
        .args(["-E", "aggregator=,"])
        .args(["-e", "frame.interface_name", "-e", "collwire.magic"]);
    for f in FIELDS {
        cmd.args(["-e", f]);
    }
    cmd.args(["-e", "collwire.error_code", "-e", "collwire.error_detail"]);
    for d in Datatype::supported() {
        cmd.args(["-e", &format!("collwire.element.{}", d.name())]);
    }
    let out = cmd
        .output()
        .expect("tshark runs (scripts/setup installs it: apt package tshark)");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("Lua") && !stderr.to_lowercase().contains("error"),
        "tshark complained about the dissector: {stderr}"
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Every frame of `capture` as `tshark` decodes it with the dissector, against
/// `OffloadRepr::parse` of the same bytes. Returns the message types seen.
pub fn check_capture(capture: &Path) -> BTreeSet<MessageType> {
    let frames = read_capture(capture).expect("the capture reads back");
    let rows = tshark(capture);
    assert_eq!(rows.len(), frames.len(), "one tshark line per frame");
    assert!(!frames.is_empty());
    let mut types = BTreeSet::new();
    for (i, (frame, row)) in frames.iter().zip(&rows).enumerate() {
        let at = format!("frame {} ({})", i + 1, frame.interface);
        assert_eq!(row[0], frame.interface, "{at}: interface name");
        let (_, datagram) = udp_datagram(&frame.data).unwrap_or_else(|| panic!("{at}: not UDP"));
        let (repr, payload) = OffloadRepr::from_datagram(datagram)
            .unwrap_or_else(|e| panic!("{at}: the protocol does not parse it: {e}"));
        types.insert(repr.msg_type);
        assert_eq!(row[1], "0xc7", "{at}: magic");
        let shown: Vec<u64> = row[2..2 + FIELDS.len()]
            .iter()
            .map(|v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("{at}: field {v:?} is not a number"))
            })
            .collect();
        assert_eq!(shown, repr_fields(&repr), "{at}: header fields {FIELDS:?}");
        let rest = &row[2 + FIELDS.len()..];
        if repr.msg_type == MessageType::Error {
            let record = ErrorRecord::parse(payload).unwrap();
            assert_eq!(rest[0], record.code.code().to_string(), "{at}: error code");
            assert_eq!(rest[1], record.detail.to_string(), "{at}: error detail");
        } else {
            assert!(
                rest[0].is_empty() && rest[1].is_empty(),
                "{at}: no error record"
            );
        }
        for (d, shown) in Datatype::supported().zip(&rest[2..]) {
            if d != repr.datatype || repr.elem_count == 0 {
                assert!(shown.is_empty(), "{at}: no {d} elements: {shown}");
                continue;
            }
            let values: Vec<&str> = shown.split(',').collect();
            assert_eq!(values.len(), usize::from(repr.elem_count), "{at}: elements");
            for (k, (text, bytes)) in values.iter().zip(payload.chunks(d.size())).enumerate() {
                let ok = match d {
                    Datatype::Int32 => {
                        text.parse::<i32>().ok()
                            == Some(i32::from_le_bytes(bytes.try_into().unwrap()))
                    }
                    Datatype::Uint32 => {
                        text.parse::<u32>().ok()
                            == Some(u32::from_le_bytes(bytes.try_into().unwrap()))
                    }
                    Datatype::Int64 => {
                        text.parse::<i64>().ok()
                            == Some(i64::from_le_bytes(bytes.try_into().unwrap()))
                    }
                    Datatype::Uint64 => {
                        text.parse::<u64>().ok()
                            == Some(u64::from_le_bytes(bytes.try_into().unwrap()))
                    }
                    // tshark prints floats rounded to a few significant digits: the value must
                    // agree to that precision (it would not if the offset or order were off).
                    Datatype::F32 => close(
                        text,
                        f64::from(f32::from_le_bytes(bytes.try_into().unwrap())),
                        1e-5,
                    ),
                    Datatype::F64 => {
                        close(text, f64::from_le_bytes(bytes.try_into().unwrap()), 1e-12)
                    }
                    _ => unreachable!("{d} is reserved"),
                };
                assert!(
                    ok,
                    "{at}: element {k} shown as {text}, the bytes say {bytes:02x?}"
                );
            }
        }
    }
    types
}

fn close(text: &str, want: f64, rel: f64) -> bool {
    match text.parse::<f64>() {
        Ok(got) if got == want => true,
        Ok(got) => (got - want).abs() <= rel * want.abs().max(f64::MIN_POSITIVE),
        Err(_) => false,
    }
}

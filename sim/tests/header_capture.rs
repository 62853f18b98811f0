//! Offload parser stage 1 through Verilator at both widths: the exact first 64 bytes and the
//! exact length of real frames (built with etherparse), streamed back to back with idle gaps
//! (garbage on the bus between beats), and whether each frame holds its IPv4 total length (offload frames truncated by a few bytes
//! fail, padded ones pass). On every clock, `ranks_per_host_next` is the header's ranks-per-host
//! byte after the edge.

use collwire_hdl::header_fields::RANKS_PER_HOST_BYTE;
use collwire_proto::frame::{Endpoints, build_frame};
use collwire_proto::*;
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::{HeaderCapture64, HeaderCapture256};
use etherparse::PacketBuilder;

/// What the tap reports, in order of events.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    Header(Vec<u8>),
    Done {
        len: usize,
        short: bool,
        len_ok: bool,
    },
}

trait Tap: Default {
    const BYTES: usize;
    fn drive(&mut self, beat: Option<(&[u8], bool)>);
    fn tick(&mut self);
    fn events(&self) -> Vec<Event>;
    /// `ranks_per_host_next`, settled for the inputs driven.
    fn rph_next(&mut self) -> u8;
    /// The header's ranks-per-host byte.
    fn rph(&self) -> u8;
}

macro_rules! tap {
    ($ty:ty, $bytes:expr, $set_data:expr) => {
        impl Tap for $ty {
            const BYTES: usize = $bytes;
            fn drive(&mut self, beat: Option<(&[u8], bool)>) {
                let mut word = [0u8; $bytes];
                let (n, last, valid) = match beat {
                    Some((bytes, last)) => {
                        word[..bytes.len()].copy_from_slice(bytes);
                        (bytes.len(), last, 1)
                    }
                    // Between beats the bus carries garbage: what a tap takes must not
                    // depend on `tdata` while `tvalid` is low.
                    None => {
                        word.fill(0xc3);
                        (0, false, 0)
                    }
                };
                $set_data(self, &word);
                self.set_s_axis_tkeep(if n == 64 { u64::MAX } else { (1u64 << n) - 1 });
                self.set_s_axis_tlast(u64::from(last));
                self.set_s_axis_tvalid(valid);
            }
            fn tick(&mut self) {
                <$ty>::tick(self)
            }
            fn rph_next(&mut self) -> u8 {
                self.eval();
                self.ranks_per_host_next() as u8
            }
            fn rph(&self) -> u8 {
                let h: Vec<u8> = self.header().iter().flat_map(|w| w.to_le_bytes()).collect();
                h[RANKS_PER_HOST_BYTE]
            }
            fn events(&self) -> Vec<Event> {
                let mut e = Vec::new();
                if self.header_valid() == 1 {
                    e.push(Event::Header(
                        self.header().iter().flat_map(|w| w.to_le_bytes()).collect(),
                    ));
                }
                if self.frame_done() == 1 {
                    e.push(Event::Done {
                        len: self.frame_len() as usize,
                        short: self.short_frame() == 1,
                        len_ok: self.len_ok() == 1,
                    });
                }
                e
            }
        }
    };
}

tap!(HeaderCapture64, 8, |m: &mut HeaderCapture64,
                          w: &[u8; 8]| m
    .set_s_axis_tdata(u64::from_le_bytes(*w)));
tap!(
    HeaderCapture256,
    32,
    |m: &mut HeaderCapture256, w: &[u8; 32]| {
        let words: [u32; 8] =
            std::array::from_fn(|i| u32::from_le_bytes(w[4 * i..4 * i + 4].try_into().unwrap()));
        m.set_s_axis_tdata(&words)
    }
);

fn frames() -> Vec<Vec<u8>> {
    let ep = Endpoints {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 0, 2],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 0, 2],
        src_port: 40000,
        dst_port: OFFLOAD_UDP_PORT,
    };
    let mut out = Vec::new();
    for n in [0usize, 1, 2, 3, 7, 8, 9, 180, 181, 360] {
        let repr = OffloadRepr {
            msg_type: MessageType::Request,
            op_id: n as u16,
            collective: Collective::Allreduce,
            algorithm: Algorithm::Ring,
            datatype: Datatype::F32,
            op: ReduceOp::Sum,
            comm_id: 7,
            comm_size: 4,
            rank: 1,
            root: 0,
            ranks_per_host: 1,
            attempt: 0,
            seg_index: 0,
            seg_count: 1,
            elem_count: n as u16,
        };
        let payload: Vec<u8> = (0..n * 4).map(|i| i as u8 ^ 0x5a).collect();
        let f = build_frame(&ep, &repr.to_datagram(&payload).unwrap()).unwrap();
        // Cut short (a frame that lost its tail), padded (Ethernet padding after the IPv4
        // packet), whole.
        if f.len() > 66 {
            out.push(f[..f.len() - 1 - n % 3].to_vec());
        }
        let mut padded = f.clone();
        padded.resize(f.len() + 1 + n % 40, 0xee);
        out.push(padded);
        out.push(f);
    }
    let mut tcp = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .ipv4(ep.src_ip, ep.dst_ip, 64)
        .tcp(1, 2, 3, 4)
        .write(&mut tcp, &[9; 100])
        .unwrap();
    out.push(tcp);
    let mut v6 = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .ipv6([1; 16], [2; 16], 64)
        .udp(5, 6)
        .write(&mut v6, &[1; 1400])
        .unwrap();
    out.push(v6);
    let mut vlan = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .single_vlan(etherparse::VlanId::try_new(9).unwrap())
        .ipv4(ep.src_ip, ep.dst_ip, 64)
        .udp(1, OFFLOAD_UDP_PORT)
        .write(&mut vlan, &[3; 22])
        .unwrap();
    out.push(vlan);
    // Runts and odd sizes: ARP (42 bytes), 60-byte minimum, 63, 64, 65, a jumbo frame.
    for len in [42usize, 60, 63, 64, 65, 9014] {
        out.push((0..len).map(|i| (i * 7 + len) as u8).collect());
    }
    out
}

/// One clock: drive `beat`, check that `ranks_per_host_next` is the header's byte after the
/// edge, collect the events.
fn step<T: Tap>(tap: &mut T, beat: Option<(&[u8], bool)>, seen: &mut Vec<Event>) {
    tap.drive(beat);
    let ahead = tap.rph_next();
    tap.tick();
    assert_eq!(
        tap.rph(),
        ahead,
        "ranks_per_host_next, {}-byte bus",
        T::BYTES
    );
    seen.extend(tap.events());
}

fn run<T: Tap>() {
    let frames = frames();
    let mut rng = SplitMix(0xcafe);
    let mut tap = T::default();
    let mut seen = Vec::new();
    for f in &frames {
        let beats: Vec<&[u8]> = f.chunks(T::BYTES).collect();
        for (i, b) in beats.iter().enumerate() {
            // Idle cycles between beats: the tap must follow tvalid, not the clock.
            while rng.next_u64().is_multiple_of(4) {
                step(&mut tap, None, &mut seen);
            }
            step(&mut tap, Some((b, i + 1 == beats.len())), &mut seen);
        }
    }
    for _ in 0..4 {
        step(&mut tap, None, &mut seen);
    }
    let mut want = Vec::new();
    for f in &frames {
        if f.len() >= 64 {
            want.push(Event::Header(f[..64].to_vec()));
        }
        let total = usize::from(u16::from_be_bytes([f[16], f[17]]));
        want.push(Event::Done {
            len: f.len(),
            short: f.len() < 64,
            len_ok: f.len() >= 64 && f.len() >= total + 14,
        });
    }
    assert_eq!(seen, want, "{}-byte bus", T::BYTES);
}

#[test]
fn header_capture64_exact_bytes_and_lengths() {
    run::<HeaderCapture64>();
}

#[test]
fn header_capture256_exact_bytes_and_lengths() {
    run::<HeaderCapture256>();
}

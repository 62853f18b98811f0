//! Frames for tests, built with etherparse: random valid offload frames (every code, reserved
//! ones included), mutations that make most of them malformed or not offload frames at all, and
//! the frame kinds a NIC must pass through untouched.

use collwire_proto::frame::{Endpoints, build_frame};
use collwire_proto::*;
use etherparse::{EtherType, Ethernet2Header, IpHeaders, IpNumber, Ipv4Header, PacketBuilder};

use collwire_hdl::header_fields::FrameFields;

use crate::fpu_check::SplitMix;

/// Random addresses, UDP destination = the offload port.
pub fn endpoints(rng: &mut SplitMix) -> Endpoints {
    Endpoints {
        src_mac: std::array::from_fn(|_| rng.next_u64() as u8),
        dst_mac: std::array::from_fn(|_| rng.next_u64() as u8),
        src_ip: std::array::from_fn(|_| rng.next_u64() as u8),
        dst_ip: std::array::from_fn(|_| rng.next_u64() as u8),
        src_port: rng.next_u64() as u16,
        dst_port: OFFLOAD_UDP_PORT,
    }
}

pub fn pick<T: Copy>(rng: &mut SplitMix, all: &[T]) -> T {
    all[(rng.next_u64() % all.len() as u64) as usize]
}

pub fn offload_frame(rng: &mut SplitMix) -> Vec<u8> {
    offload_frame_with(rng, |_| {})
}

/// A random valid offload frame whose IPv4 destination ends in `dst_host` (the byte a board
/// frame's destination board is read from): a board frame for that board, if it is one.
pub fn offload_frame_for(rng: &mut SplitMix, dst_host: u8) -> Vec<u8> {
    offload_frame_with(rng, |e| e.dst_ip[3] = dst_host)
}

fn offload_frame_with(rng: &mut SplitMix, addresses: impl FnOnce(&mut Endpoints)) -> Vec<u8> {
    let r = |rng: &mut SplitMix, n: u64| rng.next_u64() % n;
    let datatype = pick(rng, Datatype::ALL);
    let valid_ops: Vec<ReduceOp> = ReduceOp::ALL
        .iter()
        .copied()
        .filter(|o| o.is_valid_for(datatype))
        .collect();
    let msg_type = pick(rng, MessageType::ALL);
    let collective = pick(rng, Collective::ALL);
    let rph = 1 + r(rng, 4) as u8;
    // 1 to 64 boards (`limits::MAX_BOARDS`): the directory index's 6-bit boards − 1 wraps at 64.
    let comm_size = u16::from(rph) * (1 + r(rng, 64) as u16);
    let seg_count = 1 + r(rng, 5) as u16;
    let no_data = !msg_type.carries_data() || !collective.carries_data();
    let repr = OffloadRepr {
        msg_type,
        op_id: rng.next_u64() as u16,
        collective,
        algorithm: pick(rng, Algorithm::ALL),
        datatype,
        op: pick(rng, &valid_ops),
        comm_id: rng.next_u64() as u16,
        comm_size,
        rank: r(rng, u64::from(comm_size)) as u16,
        root: r(rng, u64::from(comm_size)) as u16,
        ranks_per_host: rph,
        attempt: rng.next_u64() as u8,
        seg_index: r(rng, u64::from(seg_count)) as u16,
        seg_count,
        elem_count: if no_data { 0 } else { r(rng, 200) as u16 },
    };
    let payload: Vec<u8> = (0..repr.payload_len())
        .map(|_| rng.next_u64() as u8)
        .collect();
    let mut e = endpoints(rng);
    addresses(&mut e);
    build_frame(&e, &repr.to_datagram(&payload).expect("valid repr")).unwrap()
}

pub fn set16(f: &mut [u8], at: usize, v: u16) {
    if f.len() >= at + 2 {
        f[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
}

/// One of several mutations, or none.
pub fn mutate(rng: &mut SplitMix, f: &mut Vec<u8>) {
    let r = |rng: &mut SplitMix, n: u64| rng.next_u64() % n;
    match r(rng, 10) {
        0 | 1 => {} // valid
        2 => {
            let at = r(rng, 64.min(f.len() as u64)) as usize;
            f[at] ^= 1 << r(rng, 8);
        }
        3 => {
            let at = 42 + r(rng, 22) as usize;
            if at < f.len() {
                f[at] = rng.next_u64() as u8;
            }
        }
        4 => {
            let total = u16::from_be_bytes([f[16], f[17]]);
            let v = match r(rng, 4) {
                0 => 0,
                1 => total.wrapping_add(1 + r(rng, 3) as u16),
                2 => total.wrapping_sub(1 + r(rng, 30) as u16),
                _ => rng.next_u64() as u16,
            };
            set16(f, 16, v);
        }
        5 => {
            let udp = u16::from_be_bytes([f[38], f[39]]);
            let v = match r(rng, 4) {
                0 => 0,
                1 => udp.wrapping_add(1 + r(rng, 3) as u16),
                2 => udp.wrapping_sub(1 + r(rng, 30) as u16),
                _ => r(rng, 8) as u16,
            };
            set16(f, 38, v);
        }
        6 => {
            let keep = r(rng, f.len() as u64 + 1) as usize;
            f.truncate(keep);
        }
        7 => {
            let extra = r(rng, 40) as usize;
            f.extend((0..extra).map(|_| rng.next_u64() as u8));
        }
        8 => {
            // Odd sizes and ranks per host: exercises the divisibility test.
            set16(f, 50, rng.next_u64() as u16 >> r(rng, 16));
            if f.len() > 56 {
                f[56] = rng.next_u64() as u8 >> r(rng, 8);
            }
            let size = u16::from_be_bytes([f[50], f[51]]);
            set16(f, 52, (rng.next_u64() % u64::from(size.max(1))) as u16);
            set16(f, 54, 0);
        }
        _ => {
            // Not a candidate in one way or another.
            match r(rng, 5) {
                0 => set16(f, 12, 0x86dd),
                1 => f[14] = 0x46,
                2 => set16(f, 20, 0x2000),
                3 => f[23] = 6,
                _ => set16(f, 36, OFFLOAD_UDP_PORT ^ 1),
            }
        }
    }
}

/// Frames that are not offload frames, by kind; several are addressed to the offload port but
/// must still pass through (IPv6, VLAN-tagged, IPv4 with options, fragments).
pub fn plain_frames(rng: &mut SplitMix) -> Vec<(&'static str, Vec<u8>)> {
    let ep = endpoints(rng);
    let bytes = |rng: &mut SplitMix, n: usize| -> Vec<u8> {
        (0..n).map(|_| rng.next_u64() as u8).collect()
    };
    let mut out = Vec::new();
    let mut arp = Vec::new();
    Ethernet2Header {
        source: ep.src_mac,
        destination: [0xff; 6],
        ether_type: EtherType::ARP,
    }
    .write(&mut arp)
    .unwrap();
    arp.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    arp.extend(bytes(rng, 20));
    arp.resize(60, 0); // padded to the Ethernet minimum
    out.push(("arp", arp));
    let mut tcp = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .ipv4(ep.src_ip, ep.dst_ip, 64)
        .tcp(40000, 22, 1, 4096)
        .write(&mut tcp, &bytes(rng, 300))
        .unwrap();
    out.push(("tcp", tcp));
    let mut udp = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .ipv4(ep.src_ip, ep.dst_ip, 64)
        .udp(40000, OFFLOAD_UDP_PORT + 1)
        .write(&mut udp, &bytes(rng, 100))
        .unwrap();
    out.push(("udp other port", udp));
    let mut v6 = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .ipv6([1; 16], [2; 16], 64)
        .udp(40000, OFFLOAD_UDP_PORT)
        .write(&mut v6, &bytes(rng, 200))
        .unwrap();
    out.push(("ipv6 udp to offload port", v6));
    let mut vlan = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .single_vlan(7.try_into().unwrap())
        .ipv4(ep.src_ip, ep.dst_ip, 64)
        .udp(40000, OFFLOAD_UDP_PORT)
        .write(&mut vlan, &bytes(rng, 64))
        .unwrap();
    out.push(("vlan-tagged udp to offload port", vlan));
    let mut with_options = Ipv4Header::new(0, 64, IpNumber::UDP, ep.src_ip, ep.dst_ip).unwrap();
    with_options.options = [1u8, 1, 1, 1][..].try_into().unwrap();
    let mut opt = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .ip(IpHeaders::Ipv4(with_options, Default::default()))
        .udp(40000, OFFLOAD_UDP_PORT)
        .write(&mut opt, &bytes(rng, 64))
        .unwrap();
    out.push(("ipv4 with options to offload port", opt));
    let mut fragment_header = Ipv4Header::new(0, 64, IpNumber::UDP, ep.src_ip, ep.dst_ip).unwrap();
    fragment_header.more_fragments = true;
    let mut frag = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .ip(IpHeaders::Ipv4(fragment_header, Default::default()))
        .udp(40000, OFFLOAD_UDP_PORT)
        .write(&mut frag, &bytes(rng, 64))
        .unwrap();
    out.push(("ipv4 first fragment to offload port", frag));
    let mut jumbo = Vec::new();
    PacketBuilder::ethernet2(ep.src_mac, ep.dst_mac)
        .ipv4(ep.src_ip, ep.dst_ip, 64)
        .udp(40000, 9)
        .write(&mut jumbo, &bytes(rng, 8972))
        .unwrap();
    out.push(("jumbo udp", jumbo));
    out.push(("runt", bytes(rng, 17)));
    out
}

/// Every offload-header field as a raw number — any 4-bit code, reserved ones included — for
/// tests that drive or read the hardware's header fields directly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RawFields {
    pub msg_type: u8,
    pub op_id: u16,
    pub collective: u8,
    pub algorithm: u8,
    pub datatype: u8,
    pub op: u8,
    pub comm_id: u16,
    pub comm_size: u16,
    pub rank: u16,
    pub root: u16,
    pub ranks_per_host: u8,
    pub attempt: u8,
    pub seg_index: u16,
    pub seg_count: u16,
    pub elem_count: u16,
}

impl RawFields {
    /// Every field random over its whole range.
    pub fn random(rng: &mut SplitMix) -> RawFields {
        let mut r = || rng.next_u64();
        RawFields {
            msg_type: (r() & 15) as u8,
            op_id: r() as u16,
            collective: (r() & 15) as u8,
            algorithm: (r() & 15) as u8,
            datatype: (r() & 15) as u8,
            op: (r() & 15) as u8,
            comm_id: r() as u16,
            comm_size: r() as u16,
            rank: r() as u16,
            root: r() as u16,
            ranks_per_host: r() as u8,
            attempt: r() as u8,
            seg_index: r() as u16,
            seg_count: r() as u16,
            elem_count: r() as u16,
        }
    }

    /// The datagram: the offload header with these fields (current magic and version), then
    /// `payload` zero bytes.
    pub fn datagram(&self, payload: usize) -> Vec<u8> {
        let mut datagram = vec![0u8; HEADER_LEN + payload];
        let mut p = OffloadPacket::new_unchecked(&mut datagram[..]);
        p.set_magic(MAGIC);
        p.set_version_and_type(VERSION, self.msg_type);
        p.set_op_id(self.op_id);
        p.set_collective_and_algorithm(self.collective, self.algorithm);
        p.set_datatype_and_op(self.datatype, self.op);
        p.set_comm_id(self.comm_id);
        p.set_comm_size(self.comm_size);
        p.set_rank(self.rank);
        p.set_root(self.root);
        p.set_ranks_per_host(self.ranks_per_host);
        p.set_attempt(self.attempt);
        p.set_seg_index(self.seg_index);
        p.set_seg_count(self.seg_count);
        p.set_elem_count(self.elem_count);
        datagram
    }
}

/// Wire-order bytes (an address) as the hardware holds them: byte `i` at bits `8i..8i+8`.
pub fn wire_value(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .enumerate()
        .fold(0, |acc, (i, b)| acc | u64::from(*b) << (8 * i))
}

impl RawFields {
    /// The offload-header fields of `datagram` as raw numbers, read with `collwire_proto`'s
    /// packet view (no validation).
    pub fn parse(datagram: &[u8]) -> RawFields {
        let p = OffloadPacket::new_unchecked(datagram);
        RawFields {
            msg_type: p.msg_type_code(),
            op_id: p.op_id(),
            collective: p.collective_code(),
            algorithm: p.algorithm_code(),
            datatype: p.datatype_code(),
            op: p.op_code(),
            comm_id: p.comm_id(),
            comm_size: p.comm_size(),
            rank: p.rank(),
            root: p.root(),
            ranks_per_host: p.ranks_per_host(),
            attempt: p.attempt(),
            seg_index: p.seg_index(),
            seg_count: p.seg_count(),
            elem_count: p.elem_count(),
        }
    }
}

/// The record the router hands the engine ([`FrameFields`]) for a frame with these endpoints
/// and offload-header fields: built from the protocol crate's values, not from header bytes,
/// so a test of the hardware's decoding compares it with an independent reading.
pub fn frame_fields(e: &Endpoints, f: &RawFields) -> FrameFields {
    FrameFields {
        dst_mac: wire_value(&e.dst_mac).into(),
        src_mac: wire_value(&e.src_mac).into(),
        src_ip: wire_value(&e.src_ip).into(),
        dst_ip: wire_value(&e.dst_ip).into(),
        dst_host: u64::from(e.dst_ip[3]).into(),
        src_port: u64::from(e.src_port).into(),
        dst_port: u64::from(e.dst_port).into(),
        msg_type: u64::from(f.msg_type).into(),
        op_id: u64::from(f.op_id).into(),
        collective: u64::from(f.collective).into(),
        algorithm: u64::from(f.algorithm).into(),
        datatype: u64::from(f.datatype).into(),
        reduce_op: u64::from(f.op).into(),
        comm_id: u64::from(f.comm_id).into(),
        comm_size: u64::from(f.comm_size).into(),
        rank: u64::from(f.rank).into(),
        root: u64::from(f.root).into(),
        ranks_per_host: u64::from(f.ranks_per_host).into(),
        attempt: u64::from(f.attempt).into(),
        seg_index: u64::from(f.seg_index).into(),
        seg_count: u64::from(f.seg_count).into(),
        elem_count: u64::from(f.elem_count).into(),
    }
}

/// The [`FrameFields`] of a frame `collwire_proto` classifies as an offload frame (`None` for
/// any other frame).
pub fn frame_fields_of(frame: &[u8]) -> Option<FrameFields> {
    match collwire_proto::frame::classify(frame) {
        collwire_proto::frame::FrameKind::Offload { endpoints, .. } => Some(frame_fields(
            &endpoints,
            &RawFields::parse(&frame[HEADER_FRAME_OFFSET..]),
        )),
        _ => None,
    }
}

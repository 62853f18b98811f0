//! The engine's header decoder through Verilator: on random frames built by `collwire_proto`
//! (etherparse framing, `OffloadPacket` fields), every named output equals the field the
//! protocol crate wrote — addresses in wire order, numbers as numbers.

use collwire_proto::frame::{Endpoints, build_frame};
use collwire_proto::wire::OffloadPacket;
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::HeaderFields;

fn wire(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .enumerate()
        .fold(0, |acc, (i, b)| acc | u64::from(*b) << (8 * i))
}

#[test]
fn every_field_matches_the_protocol_crate() {
    let mut rng = SplitMix(4242);
    let mut dut = HeaderFields::default();
    for case in 0..3000 {
        let mut r = || rng.next_u64();
        let e = Endpoints {
            src_mac: r().to_le_bytes()[..6].try_into().unwrap(),
            dst_mac: r().to_le_bytes()[..6].try_into().unwrap(),
            src_ip: (r() as u32).to_le_bytes(),
            dst_ip: (r() as u32).to_le_bytes(),
            src_port: r() as u16,
            dst_port: r() as u16,
        };
        let f: Vec<u64> = (0..16).map(|_| r()).collect();
        let mut datagram = vec![0u8; 22 + (f[15] % 64) as usize];
        let mut p = OffloadPacket::new_unchecked(&mut datagram[..]);
        p.set_magic(collwire_proto::MAGIC);
        p.set_version_and_type(collwire_proto::VERSION, (f[0] & 15) as u8);
        p.set_op_id(f[1] as u16);
        p.set_collective_and_algorithm((f[2] & 15) as u8, (f[3] & 15) as u8);
        p.set_datatype_and_op((f[4] & 15) as u8, (f[5] & 15) as u8);
        p.set_comm_id(f[6] as u16);
        p.set_comm_size(f[7] as u16);
        p.set_rank(f[8] as u16);
        p.set_root(f[9] as u16);
        p.set_ranks_per_host(f[10] as u8);
        p.set_attempt(f[11] as u8);
        p.set_seg_index(f[12] as u16);
        p.set_seg_count(f[13] as u16);
        p.set_elem_count(f[14] as u16);
        let frame = build_frame(&e, &datagram).unwrap();
        dut.set_header_bytes(&frame[..64]);
        dut.eval();
        let got = [
            ("dst_mac", dut.dst_mac(), wire(&e.dst_mac)),
            ("src_mac", dut.src_mac(), wire(&e.src_mac)),
            ("src_ip", dut.src_ip(), wire(&e.src_ip)),
            ("dst_ip", dut.dst_ip(), wire(&e.dst_ip)),
            ("dst_host", dut.dst_host(), u64::from(e.dst_ip[3])),
            ("src_port", dut.src_port(), u64::from(e.src_port)),
            ("dst_port", dut.dst_port(), u64::from(e.dst_port)),
            ("msg_type", dut.msg_type(), f[0] & 15),
            ("op_id", dut.op_id(), f[1] & 0xffff),
            ("collective", dut.collective(), f[2] & 15),
            ("algorithm", dut.algorithm(), f[3] & 15),
            ("datatype", dut.datatype(), f[4] & 15),
            ("reduce_op", dut.reduce_op(), f[5] & 15),
            ("comm_id", dut.comm_id(), f[6] & 0xffff),
            ("comm_size", dut.comm_size(), f[7] & 0xffff),
            ("rank", dut.rank(), f[8] & 0xffff),
            ("root", dut.root(), f[9] & 0xffff),
            ("ranks_per_host", dut.ranks_per_host(), f[10] & 0xff),
            ("attempt", dut.attempt(), f[11] & 0xff),
            ("seg_index", dut.seg_index(), f[12] & 0xffff),
            ("seg_count", dut.seg_count(), f[13] & 0xffff),
            ("elem_count", dut.elem_count(), f[14] & 0xffff),
        ];
        for (name, hw, want) in got {
            assert_eq!(hw, want, "case {case}: {name}");
        }
    }
}

/// The check can fail: a header with one byte changed changes exactly the field that owns it.
#[test]
fn a_changed_byte_shows_in_its_field_only() {
    let mut dut = HeaderFields::default();
    let mut header = [0u8; 64];
    dut.set_header_bytes(&header);
    dut.eval();
    assert_eq!(dut.rank(), 0);
    // Frame byte 53 is the rank's low byte (offload header byte 11).
    header[collwire_proto::HEADER_FRAME_OFFSET + collwire_proto::wire::field::RANK.start + 1] =
        0x5a;
    dut.set_header_bytes(&header);
    dut.eval();
    assert_eq!(dut.rank(), 0x5a);
    assert_eq!(dut.root(), 0);
    assert_eq!(dut.comm_size(), 0);
}

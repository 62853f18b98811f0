//! The engine's header decoder through Verilator: on random frames built by `collwire_proto`
//! (etherparse framing, `OffloadPacket` fields), every named output equals the field the
//! protocol crate wrote — addresses in wire order, numbers as numbers.

use collwire_proto::frame::build_frame;
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{RawFields, endpoints, wire_value as wire};
use collwire_sim::models::HeaderFields;

#[test]
fn every_field_matches_the_protocol_crate() {
    let mut rng = SplitMix(4242);
    let mut dut = HeaderFields::default();
    for case in 0..3000 {
        let mut e = endpoints(&mut rng);
        e.dst_port = rng.next_u64() as u16;
        let f = RawFields::random(&mut rng);
        let datagram = f.datagram((rng.next_u64() % 64) as usize);
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
            ("msg_type", dut.msg_type(), f.msg_type.into()),
            ("op_id", dut.op_id(), f.op_id.into()),
            ("collective", dut.collective(), f.collective.into()),
            ("algorithm", dut.algorithm(), f.algorithm.into()),
            ("datatype", dut.datatype(), f.datatype.into()),
            ("reduce_op", dut.reduce_op(), f.op.into()),
            ("comm_id", dut.comm_id(), f.comm_id.into()),
            ("comm_size", dut.comm_size(), f.comm_size.into()),
            ("rank", dut.rank(), f.rank.into()),
            ("root", dut.root(), f.root.into()),
            (
                "ranks_per_host",
                dut.ranks_per_host(),
                f.ranks_per_host.into(),
            ),
            ("attempt", dut.attempt(), f.attempt.into()),
            ("seg_index", dut.seg_index(), f.seg_index.into()),
            ("seg_count", dut.seg_count(), f.seg_count.into()),
            ("elem_count", dut.elem_count(), f.elem_count.into()),
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

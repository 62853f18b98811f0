//! The engine's header builder through Verilator: every byte of the 64-byte header, IPv4
//! checksum included, one clock after the fields go in, equals what etherparse builds (`frame::build_frame`) for random
//! addresses, ports, lengths and offload fields; the UDP checksum is 0.

use collwire_proto::frame::{Endpoints, build_frame};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{RawFields, wire_value as wire};
use collwire_sim::models::HeaderBuilder;

#[test]
fn header_matches_etherparse_on_random_fields() {
    let mut rng = SplitMix(77);
    let mut dut = HeaderBuilder::default();
    for case in 0..5000 {
        let mut r = || rng.next_u64();
        let e = Endpoints {
            src_mac: r().to_le_bytes()[..6].try_into().unwrap(),
            dst_mac: r().to_le_bytes()[..6].try_into().unwrap(),
            src_ip: (r() as u32).to_le_bytes(),
            dst_ip: (r() as u32).to_le_bytes(),
            src_port: r() as u16,
            dst_port: r() as u16,
        };
        let payload_len = (r() % 2049) as usize;
        let f = RawFields::random(&mut rng);
        let datagram = f.datagram(payload_len);
        let want = build_frame(&e, &datagram).unwrap();

        dut.set_dst_mac(wire(&e.dst_mac));
        dut.set_src_mac(wire(&e.src_mac));
        dut.set_src_ip(wire(&e.src_ip));
        dut.set_dst_ip(wire(&e.dst_ip));
        dut.set_src_port(u64::from(e.src_port));
        dut.set_dst_port(u64::from(e.dst_port));
        dut.set_payload_bytes(payload_len as u64);
        dut.set_msg_type(f.msg_type.into());
        dut.set_op_id(f.op_id.into());
        dut.set_collective(f.collective.into());
        dut.set_algorithm(f.algorithm.into());
        dut.set_datatype(f.datatype.into());
        dut.set_reduce_op(f.op.into());
        dut.set_comm_id(f.comm_id.into());
        dut.set_comm_size(f.comm_size.into());
        dut.set_rank(f.rank.into());
        dut.set_root(f.root.into());
        dut.set_ranks_per_host(f.ranks_per_host.into());
        dut.set_attempt(f.attempt.into());
        dut.set_seg_index(f.seg_index.into());
        dut.set_seg_count(f.seg_count.into());
        dut.set_elem_count(f.elem_count.into());
        // HEADER_LATENCY = 1: the placed header is registered, the checksum finished after it.
        dut.tick();
        let got = dut.header_bytes();
        assert_eq!(got.len(), 64);
        assert_eq!(&got[40..42], &[0, 0], "case {case}: UDP checksum must be 0");
        let mut expect = want[..64].to_vec();
        expect[40..42].copy_from_slice(&[0, 0]);
        assert_eq!(got, expect, "case {case}");
    }
}

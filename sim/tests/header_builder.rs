//! The engine's header builder through Verilator: every byte of the 64-byte header, IPv4
//! checksum included, equals what etherparse builds (`frame::build_frame`) for random
//! addresses, ports, lengths and offload fields; the UDP checksum is 0.

use collwire_proto::frame::{Endpoints, build_frame};
use collwire_proto::wire::OffloadPacket;
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::HeaderBuilder;

fn wire(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .enumerate()
        .fold(0, |acc, (i, b)| acc | u64::from(*b) << (8 * i))
}

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
        let mut datagram = vec![0u8; 22 + payload_len];
        let mut p = OffloadPacket::new_unchecked(&mut datagram[..]);
        let f: Vec<u64> = (0..16).map(|_| r()).collect();
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
        let want = build_frame(&e, &datagram).unwrap();

        dut.set_dst_mac(wire(&e.dst_mac));
        dut.set_src_mac(wire(&e.src_mac));
        dut.set_src_ip(wire(&e.src_ip));
        dut.set_dst_ip(wire(&e.dst_ip));
        dut.set_src_port(u64::from(e.src_port));
        dut.set_dst_port(u64::from(e.dst_port));
        dut.set_payload_bytes(payload_len as u64);
        dut.set_msg_type(f[0] & 15);
        dut.set_op_id(f[1] & 0xffff);
        dut.set_collective(f[2] & 15);
        dut.set_algorithm(f[3] & 15);
        dut.set_datatype(f[4] & 15);
        dut.set_reduce_op(f[5] & 15);
        dut.set_comm_id(f[6] & 0xffff);
        dut.set_comm_size(f[7] & 0xffff);
        dut.set_rank(f[8] & 0xffff);
        dut.set_root(f[9] & 0xffff);
        dut.set_ranks_per_host(f[10] & 0xff);
        dut.set_attempt(f[11] & 0xff);
        dut.set_seg_index(f[12] & 0xffff);
        dut.set_seg_count(f[13] & 0xffff);
        dut.set_elem_count(f[14] & 0xffff);
        dut.eval();
        let got = dut.header_bytes();
        assert_eq!(got.len(), 64);
        assert_eq!(&got[40..42], &[0, 0], "case {case}: UDP checksum must be 0");
        let mut expect = want[..64].to_vec();
        expect[40..42].copy_from_slice(&[0, 0]);
        assert_eq!(got, expect, "case {case}");
    }
}

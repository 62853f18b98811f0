//! The engine's header decoder through Verilator: on random frames built by `collwire_proto`
//! (etherparse framing, `OffloadPacket` fields), every named output equals the field the
//! protocol crate wrote — addresses in wire order, numbers as numbers — and so does the packed
//! `FrameFields` record the router hands the engine.

use collwire_proto::frame::build_frame;
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{RawFields, endpoints, frame_fields, wire_value as wire};
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
        // The record the router hands the engine holds the same fields.
        assert_eq!(
            dut.fields_bytes(),
            frame_fields(&e, &f).to_le_bytes(),
            "case {case}: fields"
        );
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

/// The fields the classifier checks before it trusts a frame (EtherType, IPv4 version/IHL,
/// total length, flags/fragment offset, protocol, UDP length, magic, version), on headers
/// that etherparse writes with random values in every one of them.
#[test]
fn the_checked_fields_match_etherparse() {
    use etherparse::{EtherType, Ethernet2Header, IpFragOffset, IpNumber, Ipv4Header, UdpHeader};
    let mut rng = SplitMix(77);
    let mut dut = HeaderFields::default();
    for case in 0..2000 {
        let r = |rng: &mut SplitMix| rng.next_u64();
        let eth = Ethernet2Header {
            source: std::array::from_fn(|_| r(&mut rng) as u8),
            destination: std::array::from_fn(|_| r(&mut rng) as u8),
            ether_type: EtherType(r(&mut rng) as u16),
        };
        let mut ip = Ipv4Header::new(
            0,
            64,
            IpNumber(r(&mut rng) as u8),
            std::array::from_fn(|_| r(&mut rng) as u8),
            std::array::from_fn(|_| r(&mut rng) as u8),
        )
        .unwrap();
        ip.total_len = r(&mut rng) as u16;
        ip.dont_fragment = r(&mut rng) % 2 == 0;
        ip.more_fragments = r(&mut rng) % 2 == 0;
        ip.fragment_offset = IpFragOffset::try_new(r(&mut rng) as u16 & 0x1fff).unwrap();
        let udp = UdpHeader {
            source_port: r(&mut rng) as u16,
            destination_port: r(&mut rng) as u16,
            length: r(&mut rng) as u16,
            checksum: r(&mut rng) as u16,
        };
        let mut header = Vec::new();
        header.extend_from_slice(&eth.to_bytes());
        header.extend_from_slice(&ip.to_bytes());
        header.extend_from_slice(&udp.to_bytes());
        header.extend((0..22).map(|_| r(&mut rng) as u8));
        // Sometimes an IPv4 version or header length other than 4 / 5.
        let ver_ihl = if r(&mut rng) % 4 == 0 {
            let b = r(&mut rng) as u8;
            header[collwire_proto::ETH_HEADER_LEN] = b;
            b
        } else {
            0x45
        };
        let magic = header[collwire_proto::HEADER_FRAME_OFFSET];
        let version = header[collwire_proto::HEADER_FRAME_OFFSET + 1] >> 4;
        dut.set_header_bytes(&header);
        dut.eval();
        let flags_frag = (u64::from(ip.dont_fragment) << 14)
            | (u64::from(ip.more_fragments) << 13)
            | u64::from(ip.fragment_offset.value());
        let got = [
            ("ethertype", dut.ethertype(), u64::from(eth.ether_type.0)),
            ("ip_version_ihl", dut.ip_version_ihl(), ver_ihl.into()),
            ("ip_total_len", dut.ip_total_len(), ip.total_len.into()),
            ("ip_flags_frag", dut.ip_flags_frag(), flags_frag),
            ("ip_protocol", dut.ip_protocol(), ip.protocol.0.into()),
            ("udp_len", dut.udp_len(), udp.length.into()),
            ("magic", dut.magic(), magic.into()),
            ("version", dut.version(), version.into()),
            ("src_port", dut.src_port(), udp.source_port.into()),
            ("dst_port", dut.dst_port(), udp.destination_port.into()),
        ];
        for (name, hw, want) in got {
            assert_eq!(hw, want, "case {case}: {name}");
        }
    }
}

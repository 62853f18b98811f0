//! Framing and the offload/pass-through classification.

use collwire_proto::frame::*;
use collwire_proto::*;
use etherparse::PacketBuilder;
use proptest::prelude::*;

fn endpoints() -> Endpoints {
    Endpoints {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 0, 0xfe],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 0, 254],
        src_port: 40001,
        dst_port: OFFLOAD_UDP_PORT,
    }
}

fn request() -> (OffloadRepr, Vec<u8>) {
    let repr = OffloadRepr {
        msg_type: MessageType::Request,
        op_id: 7,
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        comm_id: 1,
        comm_size: 4,
        rank: 1,
        root: 0,
        ranks_per_host: 1,
        attempt: 0,
        seg_index: 0,
        seg_count: 1,
        elem_count: 1,
    };
    (repr, 2.5f64.to_le_bytes().to_vec())
}

#[test]
fn offload_frame_layout_and_classification() {
    let (repr, payload) = request();
    let frame = build_frame(&endpoints(), &repr.to_datagram(&payload).unwrap()).unwrap();
    assert_eq!(frame.len(), 64 + 8);
    assert_eq!(frame[HEADER_FRAME_OFFSET], MAGIC);
    assert_eq!(&frame[PAYLOAD_FRAME_OFFSET..], &payload[..]);
    assert!(is_offload_candidate(&frame));
    match classify(&frame) {
        FrameKind::Offload {
            endpoints: ep,
            repr: r,
            payload: p,
        } => {
            assert_eq!(ep, endpoints());
            assert_eq!(r, repr);
            assert_eq!(p, &payload[..]);
        }
        other => panic!("{other:?}"),
    }
    // The IPv4 header checksum etherparse wrote is valid.
    let ip = etherparse::Ipv4HeaderSlice::from_slice(&frame[14..])
        .unwrap()
        .to_header();
    assert_eq!(ip.header_checksum, ip.calc_header_checksum());
}

#[test]
fn other_frames_pass_through() {
    let (repr, payload) = request();
    let datagram = repr.to_datagram(&payload).unwrap();
    let e = endpoints();
    let mut frames: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut push = |name, b: PacketBuilderStep, data: &[u8]| {
        let mut v = Vec::new();
        b.write(&mut v, data).unwrap();
        frames.push((name, v));
    };
    type PacketBuilderStep = etherparse::PacketBuilderStep<etherparse::UdpHeader>;
    push(
        "other udp port",
        PacketBuilder::ethernet2(e.src_mac, e.dst_mac)
            .ipv4(e.src_ip, e.dst_ip, 64)
            .udp(1, 53),
        &datagram,
    );
    push(
        "ipv6 udp to offload port",
        PacketBuilder::ethernet2(e.src_mac, e.dst_mac)
            .ipv6([1; 16], [2; 16], 64)
            .udp(1, OFFLOAD_UDP_PORT),
        &datagram,
    );
    push(
        "vlan tagged",
        PacketBuilder::ethernet2(e.src_mac, e.dst_mac)
            .single_vlan(etherparse::VlanId::try_new(5).unwrap())
            .ipv4(e.src_ip, e.dst_ip, 64)
            .udp(1, OFFLOAD_UDP_PORT),
        &datagram,
    );
    let mut tcp = Vec::new();
    PacketBuilder::ethernet2(e.src_mac, e.dst_mac)
        .ipv4(e.src_ip, e.dst_ip, 64)
        .tcp(1, OFFLOAD_UDP_PORT, 0, 100)
        .write(&mut tcp, &datagram)
        .unwrap();
    frames.push(("tcp", tcp));
    let mut arp = vec![0xff; 6];
    arp.extend_from_slice(&e.src_mac);
    arp.extend_from_slice(&[0x08, 0x06]);
    arp.extend_from_slice(&[0, 1, 8, 0, 6, 4, 0, 1]);
    arp.extend_from_slice(&[0; 20]);
    frames.push(("arp", arp));
    // A fragment of a datagram to the offload port.
    let mut frag = build_frame(&e, &datagram).unwrap();
    frag[14 + 6] |= 0x20; // MF
    frames.push(("fragment", frag));
    // IPv4 with options: IHL 6.
    let mut opts = build_frame(&e, &datagram).unwrap();
    opts[14] = 0x46;
    frames.push(("ipv4 options", opts));
    for (name, f) in &frames {
        assert_eq!(classify(f), FrameKind::PassThrough, "{name}");
    }
}

#[test]
fn malformed_offload_frames_are_flagged() {
    let (repr, payload) = request();
    let good = build_frame(&endpoints(), &repr.to_datagram(&payload).unwrap()).unwrap();
    let mut bad_magic = good.clone();
    bad_magic[HEADER_FRAME_OFFSET] = 0;
    assert_eq!(
        classify(&bad_magic),
        FrameKind::Malformed(Error::BadMagic { found: 0 })
    );
    // IPv4 total length claims more than the frame holds.
    let mut short = good.clone();
    short.truncate(good.len() - 4);
    assert!(matches!(
        classify(&short),
        FrameKind::Malformed(Error::Frame(_))
    ));
    // Offload header shorter than 22 bytes (UDP payload of 10 bytes).
    let tiny = build_frame(&endpoints(), &[MAGIC; 10]).unwrap();
    assert_eq!(
        classify(&tiny),
        FrameKind::Malformed(Error::Truncated { len: 10 })
    );
}

proptest! {
    #[test]
    fn arbitrary_frames_never_panic(mut bytes in prop::collection::vec(any::<u8>(), 0..200), candidate in any::<bool>()) {
        if candidate && bytes.len() >= 38 {
            bytes[12] = 0x08; bytes[13] = 0x00; bytes[14] = 0x45; bytes[20] = 0; bytes[21] = 0; bytes[23] = 17;
            bytes[36..38].copy_from_slice(&OFFLOAD_UDP_PORT.to_be_bytes());
        }
        let _ = classify(&bytes);
    }
}

//! The CFE's entry composer through Verilator: for random requests (built by
//! `collwire_proto`), every kind of frame the engine sends — a response with or without data,
//! an error answer, an ack, a partial or result to another board — comes out as the entry
//! `frame_builder::entry` makes of the frame etherparse builds (`frame::build_frame`) with the
//! fields the protocol prescribes (UDP checksum 0, as the hardware sends it), COMPOSE_LATENCY
//! clocks after `start`, whatever the inputs do meanwhile.

use collwire_hdl::entry_composer::COMPOSE_LATENCY;
use collwire_hdl::frame_builder::entry;
use collwire_proto::addressing::{BOARD_IP_PREFIX, BOARD_MAC_PREFIX};
use collwire_proto::frame::{Endpoints, build_frame};
use collwire_proto::{MessageType, OFFLOAD_UDP_PORT};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{RawFields, frame_fields};
use collwire_sim::models::EntryComposer;

/// The first 64 bytes of the frame, UDP checksum zeroed.
fn header(e: &Endpoints, f: &RawFields, payload: usize) -> [u8; 64] {
    let datagram = f.datagram(payload);
    let frame = build_frame(e, &datagram).unwrap();
    let mut h: [u8; 64] = frame[..64].try_into().unwrap();
    h[40..42].copy_from_slice(&[0, 0]);
    h
}

fn board_mac(board: u8) -> [u8; 6] {
    let mut m = [0u8; 6];
    m[..5].copy_from_slice(&BOARD_MAC_PREFIX);
    m[5] = board;
    m
}

fn board_ip(board: u8) -> [u8; 4] {
    [
        BOARD_IP_PREFIX[0],
        BOARD_IP_PREFIX[1],
        BOARD_IP_PREFIX[2],
        board,
    ]
}

#[test]
fn every_frame_kind_is_the_frame_the_protocol_prescribes() {
    let mut rng = SplitMix(8080);
    let mut dut = EntryComposer::default();
    let prefix = u64::from(BOARD_IP_PREFIX[0])
        | u64::from(BOARD_IP_PREFIX[1]) << 8
        | u64::from(BOARD_IP_PREFIX[2]) << 16;
    let mut kinds = [0usize; 4];
    let mut nacks = 0;
    for case in 0..4000 {
        let mut r = || rng.next_u64();
        let e = Endpoints {
            src_mac: r().to_le_bytes()[..6].try_into().unwrap(),
            dst_mac: board_mac(r() as u8),
            src_ip: (r() as u32).to_le_bytes(),
            dst_ip: board_ip(r() as u8),
            src_port: r() as u16,
            dst_port: OFFLOAD_UDP_PORT,
        };
        let req = RawFields {
            msg_type: MessageType::Request.code(),
            op_id: r() as u16,
            collective: (r() % 4) as u8,
            algorithm: (r() % 4) as u8,
            datatype: (r() % 10) as u8,
            op: (r() % 8) as u8,
            comm_id: r() as u16,
            comm_size: r() as u16,
            rank: r() as u16,
            root: r() as u16,
            ranks_per_host: (1 + r() % 2) as u8,
            attempt: r() as u8,
            seg_index: r() as u16,
            seg_count: r() as u16,
            elem_count: (r() % 512) as u16,
        };
        let (my_board, board, tag, ports) = (r() as u8, r() as u8, (r() % 16) as u8, r() as u8);
        let (result, data, code) = (r() % 2 == 0, r() % 3 != 0, (1 + r() % 254) as u8);
        let bytes = (r() % 2049) as u16;
        // A board frame may be a nack (no payload); only a board frame can be.
        let nack = r() % 3 == 0;
        dut.set_nack(u64::from(nack));
        // Or a pending (it takes precedence).
        let pending = r() % 4 == 0;
        dut.set_pending(u64::from(pending));
        let kind = (r() % 4) as usize;
        dut.set_request_bytes(&frame_fields(&e, &req).to_le_bytes());
        dut.set_err_answer(u64::from(kind == 1));
        dut.set_ack(u64::from(kind == 2));
        // An error answer and an ack take precedence over a board frame.
        let to_board = kind == 3 || (kind != 0 && r() % 2 == 0);
        dut.set_to_board(u64::from(to_board));
        dut.set_code(u64::from(code));
        dut.set_board(u64::from(board));
        dut.set_tag(u64::from(tag));
        dut.set_result(u64::from(result));
        dut.set_ports(u64::from(ports));
        dut.set_bytes(u64::from(bytes));
        dut.set_data(u64::from(data));
        dut.set_my_board(u64::from(my_board));
        dut.set_ip_prefix(prefix);
        // The fields the engine reads leave combinationally.
        dut.eval();
        assert_eq!(dut.datatype(), u64::from(req.datatype));
        assert_eq!(dut.reduce_op(), u64::from(req.op));
        // Started, then COMPOSE_LATENCY clocks until the entry is valid; what the inputs do
        // after `start` does not matter (the engine moves on).
        dut.set_start(1);
        dut.tick();
        dut.set_start(0);
        let mut junk = [0u8; 46];
        junk.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
        dut.set_request_bytes(&junk);
        for v in [
            EntryComposer::set_err_answer,
            EntryComposer::set_ack,
            EntryComposer::set_to_board,
            EntryComposer::set_result,
            EntryComposer::set_nack,
            EntryComposer::set_pending,
            EntryComposer::set_data,
        ] {
            v(&mut dut, rng.next_u64() & 1);
        }
        for v in [
            EntryComposer::set_code,
            EntryComposer::set_board,
            EntryComposer::set_tag,
            EntryComposer::set_ports,
            EntryComposer::set_bytes,
            EntryComposer::set_my_board,
            EntryComposer::set_ip_prefix,
        ] {
            v(&mut dut, rng.next_u64());
        }
        for clock in 1..COMPOSE_LATENCY {
            assert_eq!(
                dut.entry_valid(),
                0,
                "case {case}: valid after {clock} clocks"
            );
            assert_eq!(dut.busy(), 1);
            dut.tick();
        }
        assert_eq!(
            dut.entry_valid(),
            1,
            "case {case}: not valid after COMPOSE_LATENCY clocks"
        );
        let back = e.reversed();
        let want = match kind {
            // A response: data only when the step carries it.
            0 => {
                let payload = if data { bytes } else { 0 };
                let f = RawFields {
                    msg_type: MessageType::Response.code(),
                    elem_count: if data { req.elem_count } else { 0 },
                    ..req
                };
                entry(&header(&back, &f, payload.into()), 1, payload, data, None)
            }
            // An error answer: the code as a big-endian u16, detail 0.
            1 => {
                let f = RawFields {
                    msg_type: MessageType::Error.code(),
                    elem_count: 0,
                    ..req
                };
                entry(&header(&back, &f, 4), 1, 4, false, Some([0, code, 0, 0]))
            }
            2 => {
                let f = RawFields {
                    msg_type: MessageType::Ack.code(),
                    elem_count: 0,
                    ..req
                };
                entry(&header(&back, &f, 0), 1, 0, false, None)
            }
            _ => {
                let to = Endpoints {
                    src_mac: board_mac(my_board),
                    dst_mac: board_mac(board),
                    src_ip: board_ip(my_board),
                    dst_ip: board_ip(board),
                    src_port: OFFLOAD_UDP_PORT,
                    dst_port: OFFLOAD_UDP_PORT,
                };
                let control = nack || pending;
                let msg = if pending {
                    MessageType::Pending
                } else if nack {
                    MessageType::Nack
                } else if result {
                    MessageType::Result
                } else {
                    MessageType::Partial
                };
                let f = RawFields {
                    msg_type: msg.code(),
                    rank: u16::from(tag) << 8 | u16::from(my_board),
                    elem_count: if control { 0 } else { req.elem_count },
                    ..req
                };
                if control {
                    nacks += 1;
                    entry(&header(&to, &f, 0), ports, 0, false, None)
                } else {
                    entry(&header(&to, &f, bytes.into()), ports, bytes, data, None)
                }
            }
        };
        assert_eq!(dut.entry_bytes(), want, "case {case}, kind {kind}");
        kinds[kind] += 1;
    }
    assert!(kinds.iter().all(|&n| n > 500), "{kinds:?}");
    assert!(nacks > 200, "{nacks} nacks");
}

//! Offload header: round trips, every validation error, and parsing arbitrary bytes.

use collwire_proto::wire::{ERROR_PAYLOAD_LEN, ErrorRecord};
use collwire_proto::*;
use proptest::prelude::*;

fn base() -> OffloadRepr {
    OffloadRepr {
        msg_type: MessageType::Request,
        op_id: 0x1234,
        collective: Collective::Allreduce,
        algorithm: Algorithm::RecursiveDoubling,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        comm_id: 0xbeef,
        comm_size: 8,
        rank: 5,
        root: 0,
        ranks_per_host: 2,
        attempt: 0,
        seg_index: 1,
        seg_count: 3,
        elem_count: 2,
    }
}

#[test]
fn header_is_22_bytes_and_payload_starts_at_frame_byte_64() {
    assert_eq!(HEADER_LEN, 22);
    assert_eq!(PAYLOAD_FRAME_OFFSET, 64);
    let d = base().to_datagram(&[0u8; 16]).unwrap();
    assert_eq!(d.len(), 22 + 16);
}

#[test]
fn known_bytes() {
    // The byte-layout table of docs/protocol.md, checked field by field.
    let d = base().to_datagram(&[0xaa; 16]).unwrap();
    assert_eq!(
        &d[..22],
        &[
            0xc7, // magic
            0x10, // version 1, request
            0x12, 0x34, // op id
            0x01, // allreduce, recursive doubling
            0x50, // f64, sum
            0xbe, 0xef, // comm id
            0x00, 0x08, // comm size
            0x00, 0x05, // rank
            0x00, 0x00, // root
            0x02, // ranks per host
            0x00, // attempt
            0x00, 0x01, // seg index
            0x00, 0x03, // seg count
            0x00, 0x02, // elem count
        ]
    );
    assert_eq!(&d[22..], &[0xaa; 16]);
}

/// Every (message type, collective, algorithm, datatype, op) combination: valid ones round-trip
/// bit-exactly, invalid datatype/op pairs are refused by both `to_datagram` and `parse`.
#[test]
fn every_code_combination_round_trips() {
    let mut valid = 0;
    for &msg_type in MessageType::ALL {
        for &collective in Collective::ALL {
            for &algorithm in Algorithm::ALL {
                for &datatype in Datatype::ALL {
                    for &op in ReduceOp::ALL {
                        let carries = collective.carries_data()
                            && !matches!(
                                msg_type,
                                MessageType::Ack
                                    | MessageType::Nack
                                    | MessageType::Pending
                                    | MessageType::Error
                                    | MessageType::Abort
                            );
                        let elem_count = if carries { 3 } else { 0 };
                        let repr = OffloadRepr {
                            msg_type,
                            collective,
                            algorithm,
                            datatype,
                            op,
                            elem_count,
                            ..base()
                        };
                        let payload = vec![0x5a; repr.payload_len()];
                        let built = repr.to_datagram(&payload);
                        if !op.is_valid_for(datatype) {
                            assert_eq!(built, Err(Error::InvalidOp { datatype, op }));
                            // Forge the bytes anyway: parse must refuse them too.
                            let mut raw = vec![0u8; repr.buffer_len()];
                            repr.emit(&mut OffloadPacket::new_unchecked(&mut raw[..]));
                            assert_eq!(
                                OffloadRepr::from_datagram(&raw).unwrap_err(),
                                Error::InvalidOp { datatype, op }
                            );
                            continue;
                        }
                        let d = built.unwrap();
                        let (back, p) = OffloadRepr::from_datagram(&d).unwrap();
                        assert_eq!(back, repr);
                        assert_eq!(p, &payload[..]);
                        valid += 1;
                    }
                }
            }
        }
    }
    // 9 msg types × 9 collectives × 4 algorithms × (4 ints × 10 ops + 4 floats × 4 ops)
    assert_eq!(valid, 9 * 9 * 4 * (4 * 10 + 4 * 4));
}

fn set(d: &mut [u8], at: usize, v: u8) -> Vec<u8> {
    d[at] = v;
    d.to_vec()
}

#[test]
fn every_validation_error() {
    let good = base().to_datagram(&[0u8; 16]).unwrap();
    let parse = |d: &[u8]| OffloadRepr::from_datagram(d).map(|(r, _)| r);
    let with = |f: &dyn Fn(&mut OffloadRepr)| {
        let mut r = base();
        f(&mut r);
        let mut raw = vec![0u8; 22 + 16];
        r.emit(&mut OffloadPacket::new_unchecked(&mut raw[..]));
        parse(&raw)
    };
    for len in 0..22 {
        assert_eq!(parse(&good[..len]), Err(Error::Truncated { len }));
    }
    assert_eq!(
        parse(&set(&mut good.clone(), 0, 0x7c)),
        Err(Error::BadMagic { found: 0x7c })
    );
    assert_eq!(
        parse(&set(&mut good.clone(), 1, 0x20)),
        Err(Error::BadVersion { found: 2 })
    );
    assert_eq!(
        parse(&set(&mut good.clone(), 1, 0x1f)),
        Err(Error::UnknownCode {
            field: "message type",
            code: 15
        })
    );
    assert_eq!(
        parse(&set(&mut good.clone(), 4, 0x90)),
        Err(Error::UnknownCode {
            field: "collective",
            code: 9
        })
    );
    assert_eq!(
        parse(&set(&mut good.clone(), 4, 0x04)),
        Err(Error::UnknownCode {
            field: "algorithm",
            code: 4
        })
    );
    assert_eq!(
        parse(&set(&mut good.clone(), 5, 0x80)),
        Err(Error::UnknownCode {
            field: "datatype",
            code: 8
        })
    );
    assert_eq!(
        parse(&set(&mut good.clone(), 5, 0x5a)),
        Err(Error::UnknownCode {
            field: "reduction op",
            code: 10
        })
    );
    assert_eq!(
        parse(&set(&mut good.clone(), 5, 0x53)),
        Err(Error::InvalidOp {
            datatype: Datatype::F64,
            op: ReduceOp::Band
        })
    );
    assert_eq!(with(&|r| r.comm_size = 0), Err(Error::ZeroCommSize));
    assert_eq!(
        with(&|r| r.ranks_per_host = 0),
        Err(Error::BadRanksPerHost {
            ranks_per_host: 0,
            comm_size: 8
        })
    );
    assert_eq!(
        with(&|r| r.ranks_per_host = 3),
        Err(Error::BadRanksPerHost {
            ranks_per_host: 3,
            comm_size: 8
        })
    );
    assert_eq!(
        with(&|r| r.rank = 8),
        Err(Error::RankOutOfRange {
            rank: 8,
            comm_size: 8
        })
    );
    // Between boards, `rank` is `input register << 8 | sending board`: not range-checked.
    for msg_type in [MessageType::Partial, MessageType::Result] {
        let repr = with(&|r| {
            r.msg_type = msg_type;
            r.rank = 0x0503;
        });
        assert_eq!(repr.map(|r| r.rank), Ok(0x0503));
    }
    assert_eq!(
        with(&|r| r.root = 9),
        Err(Error::RootOutOfRange {
            root: 9,
            comm_size: 8
        })
    );
    assert_eq!(
        with(&|r| r.seg_index = 3),
        Err(Error::SegmentOutOfRange { index: 3, count: 3 })
    );
    assert_eq!(
        with(&|r| r.seg_count = 0),
        Err(Error::SegmentOutOfRange { index: 1, count: 0 })
    );
    assert_eq!(
        with(&|r| r.elem_count = 3),
        Err(Error::LengthMismatch {
            elem_count: 3,
            elem_size: 8,
            payload_len: 16
        })
    );
    assert_eq!(
        with(&|r| r.datatype = Datatype::F32),
        Err(Error::LengthMismatch {
            elem_count: 2,
            elem_size: 4,
            payload_len: 16
        })
    );
    assert_eq!(
        with(&|r| r.collective = Collective::Barrier),
        Err(Error::UnexpectedData {
            what: "barrier",
            elem_count: 2
        })
    );
    assert_eq!(
        with(&|r| r.msg_type = MessageType::Ack),
        Err(Error::UnexpectedData {
            what: "ack",
            elem_count: 2
        })
    );
    assert_eq!(
        with(&|r| {
            r.msg_type = MessageType::Error;
            r.elem_count = 0
        }),
        Err(Error::BadControlPayload {
            msg_type: MessageType::Error,
            expected: 4,
            len: 16
        })
    );
    // Trailing bytes beyond elem_count are a mismatch too, not silently ignored.
    let mut long = good.clone();
    long.push(0);
    assert_eq!(
        parse(&long),
        Err(Error::LengthMismatch {
            elem_count: 2,
            elem_size: 8,
            payload_len: 17
        })
    );
}

#[test]
fn reserved_codes_parse_but_are_unsupported() {
    for (f, field, name) in [
        (
            &(|r: &mut OffloadRepr| r.collective = Collective::Bcast) as &dyn Fn(&mut OffloadRepr),
            "collective",
            "bcast",
        ),
        (
            &|r: &mut OffloadRepr| r.datatype = Datatype::Bf16,
            "datatype",
            "bf16",
        ),
        (
            &|r: &mut OffloadRepr| r.op = ReduceOp::Prod,
            "reduction op",
            "prod",
        ),
    ] {
        let mut r = base();
        f(&mut r);
        let d = r.to_datagram(&vec![0; r.payload_len()]).unwrap();
        let (back, _) = OffloadRepr::from_datagram(&d).unwrap();
        assert_eq!(
            back.check_supported(),
            Err(Error::Unsupported { field, name })
        );
    }
    assert_eq!(base().check_supported(), Ok(()));
}

#[test]
fn error_datagram_round_trip() {
    let r = OffloadRepr {
        msg_type: MessageType::Error,
        elem_count: 0,
        ..base()
    };
    let rec = ErrorRecord {
        code: ErrorCode::BadTopology,
        detail: 7,
    };
    let d = r.to_datagram(&rec.emit()).unwrap();
    let (back, payload) = OffloadRepr::from_datagram(&d).unwrap();
    assert_eq!(back, r);
    assert_eq!(payload.len(), ERROR_PAYLOAD_LEN);
    assert_eq!(ErrorRecord::parse(payload), Ok(rec));
    assert!(ErrorRecord::parse(&[0, 99, 0, 0]).is_err());
    assert!(ErrorRecord::parse(&[1, 1, 0, 0]).is_err());
}

#[test]
fn names_round_trip() {
    for &a in Algorithm::ALL {
        assert_eq!(a.name().parse::<Algorithm>(), Ok(a));
    }
    for &d in Datatype::ALL {
        assert_eq!(d.to_string().parse::<Datatype>(), Ok(d));
    }
    assert_eq!(
        "quicksort".parse::<Algorithm>(),
        Err(Error::UnknownName {
            field: "algorithm",
            name: "quicksort".into()
        })
    );
}

fn valid_repr() -> impl Strategy<Value = OffloadRepr> {
    (
        prop::sample::select(MessageType::ALL),
        prop::sample::select(Collective::ALL),
        prop::sample::select(Algorithm::ALL),
        prop::sample::select(Datatype::ALL),
        prop::sample::select(ReduceOp::ALL),
        1u8..=255,
        1u16..=255,
        any::<(u16, u16, u8)>(),
        (
            any::<u32>(),
            any::<u32>(),
            1u16..=u16::MAX,
            any::<u16>(),
            0u16..=40,
        ),
    )
        .prop_filter("op valid for datatype", |(_, _, _, d, o, ..)| {
            o.is_valid_for(*d)
        })
        .prop_map(
            |(
                msg_type,
                collective,
                algorithm,
                datatype,
                op,
                rph,
                boards,
                (op_id, comm_id, attempt),
                r,
            )| {
                let comm_size =
                    u16::try_from(u32::from(rph) * u32::from(boards)).unwrap_or(u16::from(rph));
                let carries = collective.carries_data()
                    && !matches!(
                        msg_type,
                        MessageType::Ack
                            | MessageType::Nack
                            | MessageType::Pending
                            | MessageType::Error
                            | MessageType::Abort
                    );
                OffloadRepr {
                    msg_type,
                    op_id,
                    collective,
                    algorithm,
                    datatype,
                    op,
                    comm_id,
                    comm_size,
                    rank: (r.0 % u32::from(comm_size)) as u16,
                    root: (r.1 % u32::from(comm_size)) as u16,
                    ranks_per_host: rph,
                    attempt,
                    seg_index: r.3 % r.2,
                    seg_count: r.2,
                    elem_count: if carries { r.4 } else { 0 },
                }
            },
        )
}

proptest! {
    #[test]
    fn emit_then_parse_is_identity(repr in valid_repr(), fill in any::<u8>()) {
        let payload: Vec<u8> = (0..repr.payload_len()).map(|i| fill.wrapping_add(i as u8)).collect();
        let d = repr.to_datagram(&payload).unwrap();
        let (back, p) = OffloadRepr::from_datagram(&d).unwrap();
        prop_assert_eq!(back, repr);
        prop_assert_eq!(p, &payload[..]);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        let _ = OffloadRepr::from_datagram(&bytes);
        let _ = OffloadPacket::new_checked(&bytes[..]);
    }

    /// Corrupting any byte of a valid datagram either is refused or yields a header that emits
    /// back to exactly the corrupted bytes (no field is silently normalised).
    #[test]
    fn corrupted_datagram_is_refused_or_canonical(repr in valid_repr(), at in any::<prop::sample::Index>(), v in any::<u8>()) {
        let mut d = repr.to_datagram(&vec![0x11; repr.payload_len()]).unwrap();
        let i = at.index(d.len());
        d[i] = v;
        if let Ok((back, payload)) = OffloadRepr::from_datagram(&d) {
            prop_assert_eq!(back.to_datagram(payload).unwrap(), d);
        }
    }
}

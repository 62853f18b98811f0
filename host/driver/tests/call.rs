//! Request building and response collection.

use collwire_driver::element::{from_bytes, to_bytes};
use collwire_driver::*;
use collwire_proto::*;

fn comm(rank: usize) -> Communicator {
    Communicator::new(4, 1, rank, 9, 1500).unwrap()
}

fn call(elements: usize) -> Call {
    Call {
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        root: 0,
        elements,
        op_id: 3,
    }
}

#[test]
fn long_message_is_segmented_into_valid_requests() {
    let data: Vec<f64> = (0..400).map(|i| i as f64 * 0.5).collect();
    let reqs = call(400).requests(&comm(2), &to_bytes(&data)).unwrap();
    assert_eq!(reqs.len(), 3);
    let mut back = Vec::new();
    for (i, d) in reqs.iter().enumerate() {
        let (r, p) = OffloadRepr::from_datagram(d).unwrap();
        assert_eq!(
            (r.seg_index, r.seg_count, r.rank, r.comm_id, r.op_id),
            (i as u16, 3, 2, 9, 3)
        );
        assert_eq!(r.msg_type, MessageType::Request);
        back.extend(from_bytes::<f64>(p));
    }
    assert_eq!(back, data);
}

#[test]
fn bad_arguments_build_nothing() {
    let c = comm(0);
    assert_eq!(
        Call {
            op: ReduceOp::Band,
            ..call(1)
        }
        .requests(&c, &[0; 8]),
        Err(DriverError::Proto(Error::InvalidOp {
            datatype: Datatype::F64,
            op: ReduceOp::Band
        }))
    );
    assert_eq!(
        Call { root: 4, ..call(1) }.requests(&c, &[0; 8]),
        Err(DriverError::RootOutOfRange { root: 4, size: 4 })
    );
    assert_eq!(
        call(2).requests(&c, &[0; 8]),
        Err(DriverError::LengthMismatch { send: 1, recv: 2 })
    );
    assert_eq!(
        Call {
            collective: Collective::Barrier,
            ..call(1)
        }
        .requests(&c, &[0; 8]),
        Err(DriverError::BarrierWithData { elements: 1 })
    );
    assert!(matches!(
        Call {
            collective: Collective::Alltoall,
            ..call(1)
        }
        .requests(&c, &[0; 8]),
        Err(DriverError::Proto(Error::Unsupported { .. }))
    ));
    assert_eq!(
        Communicator::new(4, 1, 4, 0, 1500),
        Err(DriverError::RankOutOfRange { rank: 4, size: 4 })
    );
    assert_eq!(
        Communicator::new(6, 4, 0, 0, 1500),
        Err(DriverError::Proto(Error::BadRanksPerHost {
            ranks_per_host: 4,
            comm_size: 6
        }))
    );
    assert_eq!(
        Communicator::new(70000, 1, 0, 0, 1500),
        Err(DriverError::CommTooLarge { size: 70000 })
    );
    assert_eq!(
        Communicator::new(4, 1, 0, 0, 100),
        Err(DriverError::Proto(Error::BadMtu { mtu: 100 }))
    );
}

#[test]
fn barrier_is_one_empty_request() {
    let reqs = Call {
        collective: Collective::Barrier,
        ..call(0)
    }
    .requests(&comm(1), &[])
    .unwrap();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].len(), HEADER_LEN);
}

fn response(req: &[u8], payload: &[u8]) -> Vec<u8> {
    let (mut r, _) = OffloadRepr::from_datagram(req).unwrap();
    r.msg_type = MessageType::Response;
    r.to_datagram(payload).unwrap()
}

#[test]
fn responses_reassemble_out_of_order_and_foreign_ones_are_refused() {
    let c = comm(1);
    let call = call(200);
    let data = to_bytes(&(0..200).map(f64::from).collect::<Vec<_>>());
    let reqs = call.requests(&c, &data).unwrap();
    let mut col = call.collector(&c).unwrap();
    assert_eq!(
        col.accept(&response(&reqs[1], &data[1440..])),
        Ok(segment::Accepted::New)
    );
    assert_eq!(col.missing(), vec![0]);
    // A request echoed back is not a response; another op id is foreign.
    assert!(matches!(col.accept(&reqs[0]), Err(DriverError::Foreign(_))));
    let mut other = reqs[0].clone();
    other[3] ^= 1;
    assert!(matches!(
        col.accept(&response(&other, &data[..1440])),
        Err(DriverError::Foreign(_))
    ));
    assert_eq!(
        col.accept(&response(&reqs[1], &data[1440..])),
        Ok(segment::Accepted::Duplicate)
    );
    assert_eq!(
        col.accept(&response(&reqs[0], &data[..1440])),
        Ok(segment::Accepted::New)
    );
    assert!(col.is_complete());
    assert_eq!(col.finish().unwrap(), data);
}

#[test]
fn error_response_is_reported() {
    let c = comm(0);
    let reqs = call(1).requests(&c, &[0; 8]).unwrap();
    let (mut r, _) = OffloadRepr::from_datagram(&reqs[0]).unwrap();
    r.msg_type = MessageType::Error;
    r.elem_count = 0;
    let rec = collwire_proto::wire::ErrorRecord {
        code: ErrorCode::BadTopology,
        detail: 3,
    };
    let err = r.to_datagram(&rec.emit()).unwrap();
    let mut col = call(1).collector(&c).unwrap();
    assert_eq!(
        col.accept(&err),
        Err(DriverError::Refused {
            code: ErrorCode::BadTopology,
            detail: 3
        })
    );
    assert!(!col.is_complete());
}

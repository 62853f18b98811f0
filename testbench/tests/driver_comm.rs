//! The driver's communicator API (`OffloadComm`) on a simulated cluster through the in-process
//! transport: blocking calls from one thread per rank, non-blocking calls posted for every rank
//! from one thread, every result compared bit for bit with the golden model; bad arguments
//! send nothing; calls beyond the boards' limits are refused up front; a rank that arrives late
//! is waited for (its peers' retransmissions are acked); a lost request is recovered by
//! retransmission; a lost answer ends in a `stale` error and a silent board in `Unreachable`,
//! never in an endless wait; with the opt-in deadline a missing rank ends in a timeout naming
//! the missing segments, and lost requests time out and their aborts free the boards' contexts.

use std::time::{Duration, Instant};

use collwire_driver::element::to_bytes;
use collwire_driver::{
    Call, Communicator, DriverError, OffloadComm, Request, Retransmit, Transport, TransportError,
};
use collwire_proto::{Algorithm, Collective, Datatype, ErrorCode, Layout, MessageType, ReduceOp};
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::hosts::{ClusterTransport, SharedCluster};
use collwire_testbench::golden::{Spec, expected};

const MTU: usize = 1500;

fn shared(boards: usize) -> SharedCluster {
    SharedCluster::new(
        Cluster::new(ClusterConfig {
            boards,
            width: 64,
            link_latency: 4,
            topology: Topology::Ring,
        })
        .unwrap(),
    )
}

/// Every rank's communicator on `shared`, `rph` ranks per board.
fn comms(
    shared: &SharedCluster,
    size: usize,
    rph: u8,
    algorithm: Algorithm,
) -> Vec<OffloadComm<ClusterTransport>> {
    (0..size)
        .map(|r| {
            let spec = Communicator::new(size, rph, r, 7, MTU).unwrap();
            let transport = shared.transport(r / usize::from(rph), r % usize::from(rph));
            let mut c = OffloadComm::new(spec, transport);
            c.set_algorithm(algorithm).unwrap();
            c.set_timeout(Some(Duration::from_secs(60)));
            c
        })
        .collect()
}

/// Distinct values on every rank, spread over many binades so the order of the sums shows.
fn f64_input(rank: usize, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((rank * 1000 + i) as f64 * 0.731).sin() * 2f64.powi((i % 41) as i32 - 20))
        .collect()
}

fn golden(
    collective: Collective,
    algorithm: Algorithm,
    datatype: Datatype,
    op: ReduceOp,
    rph: u8,
    root: usize,
    inputs: &[Vec<u8>],
) -> Vec<Option<Vec<u8>>> {
    let spec = Spec {
        collective,
        algorithm,
        datatype,
        op,
        layout: Layout::new(inputs.len() as u16, rph).unwrap(),
        root,
    };
    expected(&spec, inputs).unwrap()
}

/// What every rank of a 1-rank-per-board ring f64 sum allreduce of `inputs` must get.
fn ring_f64_sum(inputs: &[Vec<f64>]) -> Vec<Option<Vec<u8>>> {
    golden(
        Collective::Allreduce,
        Algorithm::Ring,
        Datatype::F64,
        ReduceOp::Sum,
        1,
        0,
        &inputs.iter().map(|v| to_bytes(v)).collect::<Vec<_>>(),
    )
}

#[test]
fn blocking_calls_from_one_thread_per_rank_match_the_golden_model() {
    let size = 4;
    let shared = shared(2);
    let n = 500; // 3 segments of f64 at MTU 1500
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = comms(&shared, size, 2, Algorithm::Ring)
            .into_iter()
            .map(|mut c| {
                s.spawn(move || {
                    let r = c.rank();
                    let input = f64_input(r, n);
                    let mut sum = vec![0.0; n];
                    c.allreduce(&input, &mut sum, ReduceOp::Sum).unwrap();
                    let ints: Vec<i32> = (0..37).map(|i| (r as i32 - 2) * 1_000_003 + i).collect();
                    let mut red = vec![0; 37];
                    c.reduce(&ints, &mut red, ReduceOp::Max, 3).unwrap();
                    let words: Vec<u64> = (0..5).map(|i| (r as u64 + 1) << (i * 9)).collect();
                    let mut scan = vec![0; 5];
                    c.scan(&words, &mut scan, ReduceOp::Bxor).unwrap();
                    c.barrier().unwrap();
                    let mut in_place: Vec<f32> = (0..3).map(|i| (r * 3 + i) as f32 / 7.0).collect();
                    c.allreduce_in_place(&mut in_place, ReduceOp::Min).unwrap();
                    assert_eq!(c.stats().operations, 5);
                    (sum, red, scan, in_place)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let f64_inputs: Vec<Vec<u8>> = (0..size).map(|r| to_bytes(&f64_input(r, n))).collect();
    let want = golden(
        Collective::Allreduce,
        Algorithm::Ring,
        Datatype::F64,
        ReduceOp::Sum,
        2,
        0,
        &f64_inputs,
    );
    let int_inputs: Vec<Vec<u8>> = (0..size)
        .map(|r| {
            to_bytes(
                &(0..37)
                    .map(|i| (r as i32 - 2) * 1_000_003 + i)
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let want_red = golden(
        Collective::Reduce,
        Algorithm::Ring,
        Datatype::Int32,
        ReduceOp::Max,
        2,
        3,
        &int_inputs,
    );
    let word_inputs: Vec<Vec<u8>> = (0..size)
        .map(|r| {
            to_bytes(
                &(0..5)
                    .map(|i| (r as u64 + 1) << (i * 9))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let want_scan = golden(
        Collective::Scan,
        Algorithm::Ring,
        Datatype::Uint64,
        ReduceOp::Bxor,
        2,
        0,
        &word_inputs,
    );
    let f32_inputs: Vec<Vec<u8>> = (0..size)
        .map(|r| to_bytes(&(0..3).map(|i| (r * 3 + i) as f32 / 7.0).collect::<Vec<_>>()))
        .collect();
    let want_min = golden(
        Collective::Allreduce,
        Algorithm::Ring,
        Datatype::F32,
        ReduceOp::Min,
        2,
        0,
        &f32_inputs,
    );
    for (r, (sum, red, scan, in_place)) in results.iter().enumerate() {
        assert_eq!(Some(to_bytes(sum)), want[r], "allreduce rank {r}");
        if r == 3 {
            assert_eq!(Some(to_bytes(red)), want_red[r], "reduce root");
        } else {
            assert_eq!(
                red,
                &vec![0; 37],
                "a non-root's receive buffer is untouched"
            );
        }
        assert_eq!(Some(to_bytes(scan)), want_scan[r], "scan rank {r}");
        assert_eq!(Some(to_bytes(in_place)), want_min[r], "in-place rank {r}");
    }
}

#[test]
fn non_blocking_calls_overlap_and_complete_in_any_wait_order() {
    for algorithm in [Algorithm::RecursiveDoubling, Algorithm::Tree] {
        let size = 4;
        let shared = shared(4);
        let mut cs = comms(&shared, size, 1, algorithm);
        // Two operations in flight on every rank: a long f64 sum and a short i64 min.
        let a_in: Vec<Vec<f64>> = (0..size).map(|r| f64_input(r + 10, 400)).collect();
        let b_in: Vec<Vec<i64>> = (0..size)
            .map(|r| {
                (0..9)
                    .map(|i| (r as i64 * 7919 - i * 104_729) << 20)
                    .collect()
            })
            .collect();
        let mut posted: Vec<(Request, Request)> = cs
            .iter_mut()
            .enumerate()
            .map(|(r, c)| {
                (
                    c.iallreduce(&a_in[r], ReduceOp::Sum).unwrap(),
                    c.iallreduce(&b_in[r], ReduceOp::Min).unwrap(),
                )
            })
            .collect();
        // Poll every rank until everything is done (the host "computes" in between).
        let mut polls = 0u64;
        loop {
            let mut all = true;
            for (c, (a, b)) in cs.iter_mut().zip(posted.iter()) {
                all &= c.test(a).unwrap() & c.test(b).unwrap();
            }
            polls += 1;
            if all {
                break;
            }
            assert!(polls < 100_000, "never completed");
        }
        let want_a = golden(
            Collective::Allreduce,
            algorithm,
            Datatype::F64,
            ReduceOp::Sum,
            1,
            0,
            &a_in.iter().map(|v| to_bytes(v)).collect::<Vec<_>>(),
        );
        let want_b = golden(
            Collective::Allreduce,
            algorithm,
            Datatype::Int64,
            ReduceOp::Min,
            1,
            0,
            &b_in.iter().map(|v| to_bytes(v)).collect::<Vec<_>>(),
        );
        // Wait in reverse order of posting.
        for (r, (c, (a, b))) in cs.iter_mut().zip(posted.drain(..)).enumerate().rev() {
            let mut got_b = vec![0i64; 9];
            c.wait_into(b, &mut got_b).unwrap();
            let mut got_a = vec![0f64; 400];
            c.wait_into(a, &mut got_a).unwrap();
            assert_eq!(
                Some(to_bytes(&got_a)),
                want_a[r],
                "{algorithm} f64 rank {r}"
            );
            assert_eq!(
                Some(to_bytes(&got_b)),
                want_b[r],
                "{algorithm} i64 rank {r}"
            );
            assert_eq!(c.stats().malformed, 0);
        }
    }
}

#[test]
fn bad_arguments_return_typed_errors_and_send_nothing() {
    let shared = shared(2);
    let mut cs = comms(&shared, 2, 1, Algorithm::Ring);
    let c = &mut cs[0];
    let mut out = vec![0.0f64; 4];
    assert!(matches!(
        c.allreduce(&[1.0f64; 4], &mut out, ReduceOp::Band),
        Err(DriverError::Proto(collwire_proto::Error::InvalidOp { .. }))
    ));
    assert!(matches!(
        c.allreduce(&[1.0f64; 3], &mut out, ReduceOp::Sum),
        Err(DriverError::LengthMismatch { send: 3, recv: 4 })
    ));
    assert!(matches!(
        c.reduce(&[1i32; 4], &mut [0; 4], ReduceOp::Sum, 2),
        Err(DriverError::RootOutOfRange { root: 2, size: 2 })
    ));
    assert!(matches!(
        c.post_bytes(
            Collective::Allreduce,
            Datatype::F64,
            ReduceOp::Sum,
            0,
            &[0; 12]
        ),
        Err(DriverError::Unaligned {
            bytes: 12,
            elem_size: 8
        })
    ));
    assert!(matches!(
        c.post_bytes(Collective::Bcast, Datatype::F64, ReduceOp::Sum, 0, &[0; 8]),
        Err(DriverError::Proto(
            collwire_proto::Error::Unsupported { .. }
        ))
    ));
    assert!(c.set_algorithm(Algorithm::Ring).is_ok());
    assert_eq!(c.stats().datagrams_sent, 0, "refused calls sent nothing");
    assert_eq!(c.stats().operations, 0, "and took no operation id");
    shared.with(|cl| {
        for _ in 0..200 {
            cl.step();
        }
        assert_eq!(cl.counters(0).get("stored"), 0, "the board saw nothing");
    });
    // The communicator still works afterwards, with matching operation ids on both ranks.
    let (a, b) = cs.split_at_mut(1);
    let ra = a[0].iallreduce(&[1u32, 2], ReduceOp::Bor).unwrap();
    let rb = b[0].iallreduce(&[4u32, 8], ReduceOp::Bor).unwrap();
    let mut got = [0u32; 2];
    b[0].wait_into(rb, &mut got).unwrap();
    assert_eq!(got, [5, 10]);
    a[0].wait_into(ra, &mut got).unwrap();
    assert_eq!(got, [5, 10]);
}

#[test]
fn a_rank_that_never_calls_ends_in_a_timeout_naming_the_missing_segments() {
    let shared = shared(2);
    let mut cs = comms(&shared, 2, 1, Algorithm::Ring);
    let c = &mut cs[0];
    c.set_timeout(Some(Duration::from_millis(300)));
    let started = std::time::Instant::now();
    let err = c
        .allreduce(&[1.5f64; 200], &mut [0.0; 200], ReduceOp::Sum)
        .unwrap_err();
    let waited = started.elapsed();
    match &err {
        DriverError::Timeout {
            missing, unsent, ..
        } => {
            assert_eq!(missing, &vec![0, 1], "both segments unanswered");
            assert_eq!(*unsent, 0, "the window sent both");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    assert!(err.to_string().contains("timed out"), "{err}");
    assert!(waited >= Duration::from_millis(300) && waited < Duration::from_secs(30));
    // The failed request is gone; waiting on it again is a typed error, not a hang.
    let r = c.ibarrier().unwrap();
    c.set_timeout(Some(Duration::from_millis(50)));
    assert!(matches!(c.wait_bytes(r), Err(DriverError::Timeout { .. })));
}

/// A rank's transport with faults: it holds back the requests it sends while `dropping` is
/// set (for a late send), loses the next `lose_requests` requests and the next `lose_answers`
/// responses, holds back the next `delay_answers` responses until another datagram has
/// overtaken them (a reordering link), and loses everything while `silent`. With
/// `retransmit_as_first`, a retransmitted request goes out as a first transmission (attempt
/// 0): a board answers that from a completed segment's retained result no more than a replay,
/// so it refuses it `stale`, as it does once the result is gone (its context reused).
struct LossyTransport {
    inner: ClusterTransport,
    dropping: bool,
    held: Vec<Vec<u8>>,
    lose_requests: usize,
    lose_answers: usize,
    delay_answers: usize,
    delayed: Vec<Vec<u8>>,
    overtaken: bool,
    silent: bool,
    retransmit_as_first: bool,
}

impl LossyTransport {
    fn new(inner: ClusterTransport) -> LossyTransport {
        LossyTransport {
            inner,
            dropping: false,
            held: Vec::new(),
            lose_requests: 0,
            lose_answers: 0,
            delay_answers: 0,
            delayed: Vec::new(),
            overtaken: false,
            silent: false,
            retransmit_as_first: false,
        }
    }
}

fn msg_type(datagram: &[u8]) -> Option<MessageType> {
    collwire_proto::OffloadRepr::from_datagram(datagram)
        .ok()
        .map(|(r, _)| r.msg_type)
}

impl Transport for LossyTransport {
    fn send(&mut self, datagram: &[u8]) -> Result<(), TransportError> {
        let is_request = msg_type(datagram) == Some(MessageType::Request);
        if self.silent {
            return Ok(());
        }
        if self.dropping && is_request {
            self.held.push(datagram.to_vec());
            return Ok(());
        }
        if is_request && self.lose_requests > 0 {
            self.lose_requests -= 1;
            return Ok(());
        }
        if is_request && self.retransmit_as_first {
            let mut first = datagram.to_vec();
            collwire_proto::OffloadPacket::new_unchecked(&mut first[..]).set_attempt(0);
            return self.inner.send(&first);
        }
        self.inner.send(datagram)
    }
    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, TransportError> {
        if self.overtaken && !self.delayed.is_empty() {
            return Ok(Some(self.delayed.remove(0)));
        }
        let got = self.inner.recv(timeout)?;
        let is_response = got.as_deref().and_then(msg_type) == Some(MessageType::Response);
        if self.lose_answers > 0 && is_response {
            self.lose_answers -= 1;
            return Ok(None);
        }
        if self.delay_answers > 0 && is_response {
            self.delay_answers -= 1;
            self.delayed.extend(got);
            return Ok(None);
        }
        self.overtaken |= got.is_some() && !self.delayed.is_empty();
        Ok(got)
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
}

/// Two ranks on two boards with fault-injecting transports, no deadline (the default).
fn lossy_pair(shared: &SharedCluster, comm_id: u16) -> Vec<OffloadComm<LossyTransport>> {
    (0..2)
        .map(|r| {
            let spec = Communicator::new(2, 1, r, comm_id, MTU).unwrap();
            let mut c = OffloadComm::new(spec, LossyTransport::new(shared.transport(r, 0)));
            c.set_algorithm(Algorithm::Ring).unwrap();
            c
        })
        .collect()
}

/// Runs a 2-rank f64 sum allreduce with `delay` before rank 1 calls; returns each rank's
/// outcome and its communicator (for its statistics).
fn allreduce_pair(
    comms: &mut [OffloadComm<LossyTransport>],
    delay: Duration,
) -> Vec<Result<Vec<f64>, DriverError>> {
    let inputs: Vec<Vec<f64>> = (0..2).map(|r| f64_input(r + 3, 24)).collect();
    let outcomes: Vec<Result<Vec<f64>, DriverError>> = std::thread::scope(|s| {
        let handles: Vec<_> = comms
            .iter_mut()
            .enumerate()
            .map(|(r, c)| {
                let input = inputs[r].clone();
                s.spawn(move || {
                    if r == 1 {
                        std::thread::sleep(delay);
                    }
                    let mut out = vec![0.0; input.len()];
                    c.allreduce(&input, &mut out, ReduceOp::Sum).map(|_| out)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let want = ring_f64_sum(&inputs);
    for (r, got) in outcomes.iter().enumerate() {
        if let Ok(values) = got {
            assert_eq!(Some(to_bytes(values)), want[r], "rank {r}: wrong bits");
        }
    }
    outcomes
}

#[test]
fn a_late_rank_is_waited_for_and_its_peers_retransmissions_are_acked() {
    let shared = shared(2);
    let mut comms = lossy_pair(&shared, 21);
    assert_eq!(comms[0].timeout(), None, "no deadline by default");
    let outcomes = allreduce_pair(&mut comms, Duration::from_millis(1500));
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    let early = comms[0].stats();
    assert!(early.retransmitted >= 2, "{early:?}");
    assert!(
        early.acks >= 1,
        "the board acked the waiting rank: {early:?}"
    );
    // Board 0 stored its rank's request once (and board 1's frame), the copies were acked.
    let board = shared.with(|c| c.counters(0));
    assert_eq!(board.get("stored"), 2, "{board:?}");
    assert_eq!(board.get("duplicates"), early.retransmitted, "{board:?}");
}

#[test]
fn a_lost_request_is_recovered_by_retransmission() {
    let shared = shared(2);
    let mut comms = lossy_pair(&shared, 22);
    comms[1].transport_mut().lose_requests = 1;
    let outcomes = allreduce_pair(&mut comms, Duration::ZERO);
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert!(
        comms[1].stats().retransmitted >= 1,
        "{:?}",
        comms[1].stats()
    );
    // A second operation right after, with the round trip measured: still right.
    let again = allreduce_pair(&mut comms, Duration::ZERO);
    assert!(again.iter().all(Result::is_ok), "{again:?}");
}

/// Retained results (docs/recovery.md): the answer to rank 0 is lost; its retransmission
/// finds the board's context for the segment done but kept, and the board sends the answer
/// again. Bit-exact (`allreduce_pair` compares every rank that completes).
#[test]
fn a_lost_answer_is_sent_again_from_the_boards_retained_result() {
    let shared = shared(2);
    let mut comms = lossy_pair(&shared, 26);
    comms[0].transport_mut().lose_answers = 1;
    let outcomes = allreduce_pair(&mut comms, Duration::ZERO);
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    assert!(
        comms[0].stats().retransmitted >= 1,
        "{:?}",
        comms[0].stats()
    );
    let board = shared.with(|c| c.counters(0));
    assert!(board.get("resent") >= 1, "{board:?}");
    assert_eq!(board.get("retired"), 1, "nothing ran twice: {board:?}");
}

/// When the board cannot send the answer again (here: the retransmission looks like a first
/// transmission, which the board refuses as it does once the result is gone), the rank gets a
/// typed `stale` error, not an endless wait.
#[test]
fn a_lost_answer_the_board_cannot_send_again_ends_in_a_stale_error_not_an_endless_wait() {
    let shared = shared(2);
    let mut comms = lossy_pair(&shared, 23);
    comms[0].transport_mut().lose_answers = 1;
    comms[0].transport_mut().retransmit_as_first = true;
    let outcomes = allreduce_pair(&mut comms, Duration::ZERO);
    assert!(outcomes[1].is_ok(), "{:?}", outcomes[1]);
    match &outcomes[0] {
        Err(DriverError::Refused { code, .. }) => assert_eq!(*code, ErrorCode::Stale),
        other => panic!("expected a stale refusal, got {other:?}"),
    }
}

/// The answer held back on a reordering link until the board's refusal of the retransmission
/// (`stale`: the segment is finished) has overtaken it: the refusal does not end the operation,
/// the answer that follows does.
#[test]
fn a_stale_refusal_that_overtakes_its_answer_does_not_fail_the_operation() {
    let shared = shared(2);
    let mut comms = lossy_pair(&shared, 25);
    comms[0].transport_mut().delay_answers = 1;
    // Refused, not answered again from the retained result (see `LossyTransport`).
    comms[0].transport_mut().retransmit_as_first = true;
    let outcomes = allreduce_pair(&mut comms, Duration::ZERO);
    assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
    let t = comms[0].transport_mut();
    assert!(
        t.overtaken && t.delayed.is_empty(),
        "the answer was overtaken, then delivered"
    );
    assert!(
        comms[0].stats().retransmitted >= 1,
        "{:?}",
        comms[0].stats()
    );
}

#[test]
fn a_silent_board_is_reported_unreachable_by_name() {
    let shared = shared(2);
    let mut comms = lossy_pair(&shared, 24);
    comms[0].transport_mut().silent = true;
    comms[0].set_retransmit(Some(Retransmit {
        initial_rto: Duration::from_millis(10),
        min_rto: Duration::from_millis(5),
        max_rto: Duration::from_millis(40),
        dead_retries: 3,
        dead_after: Duration::from_millis(300),
    }));
    let started = Instant::now();
    let err = comms[0]
        .allreduce(&[1.0f64], &mut [0.0], ReduceOp::Sum)
        .unwrap_err();
    match &err {
        DriverError::Unreachable {
            board,
            retransmissions,
            silent_ms,
            ..
        } => {
            assert_eq!(board, "simulated board 0");
            assert!(*retransmissions >= 3 && *silent_ms >= 300, "{err}");
        }
        other => panic!("expected Unreachable, got {other:?}"),
    }
    assert!(
        err.to_string()
            .contains("simulated board 0 does not answer"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn calls_beyond_the_boards_limits_are_refused_up_front() {
    let unsupported = |r: Result<Communicator, DriverError>| match r {
        Err(e) => assert!(e.is_unsupported(), "{e}"),
        Ok(c) => panic!("accepted {c:?}"),
    };
    unsupported(Communicator::new(8, 4, 0, 1, MTU)); // 4 ranks per host
    unsupported(Communicator::new(4, 1, 0, 1, 9000)); // segments over a 2 KiB buffer
    unsupported(Communicator::new(130, 1, 0, 1, MTU)); // 130 boards
    assert!(Communicator::new(4, 1, 0, 1, collwire_proto::limits::MAX_MTU).is_ok());
    // More segments than the header counts: refused before a byte is built.
    let comm = Communicator::new(2, 1, 0, 1, MTU).unwrap();
    let call = Call {
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        root: 0,
        elements: 180 * 65536,
        op_id: 0,
    };
    assert!(call.check(&comm).unwrap_err().is_unsupported());
    // A reserved op is unsupported; a bad argument is not.
    let prod = Call {
        op: ReduceOp::Prod,
        elements: 4,
        ..call
    };
    assert!(prod.check(&comm).unwrap_err().is_unsupported());
    let bad_root = Call {
        collective: Collective::Reduce,
        root: 5,
        elements: 4,
        ..call
    };
    assert!(!bad_root.check(&comm).unwrap_err().is_unsupported());
}

#[test]
fn lost_requests_time_out_and_the_aborts_give_the_boards_their_contexts_back() {
    // Ten operations whose request from rank 1 is lost: more than the 8 contexts a board
    // has, so without the aborts the boards would be full and every later operation would
    // hang at the board's input until its deadline.
    let shared = shared(2);
    let mut comms: Vec<OffloadComm<LossyTransport>> = (0..2)
        .map(|r| {
            let spec = Communicator::new(2, 1, r, 9, MTU).unwrap();
            let transport = LossyTransport {
                dropping: r == 1,
                ..LossyTransport::new(shared.transport(r, 0))
            };
            let mut c = OffloadComm::new(spec, transport);
            c.set_algorithm(Algorithm::Ring).unwrap();
            // The fail-fast path: a deadline, no retransmission (which would recover the
            // requests this transport holds back).
            c.set_timeout(Some(Duration::from_millis(100)));
            c.set_retransmit(None);
            c
        })
        .collect();
    const LOST: usize = 10;
    for round in 0..LOST {
        let posted: Vec<Request> = (0..2)
            .map(|r| {
                comms[r]
                    .iallreduce(&[r as f64 + 0.5], ReduceOp::Sum)
                    .unwrap()
            })
            .collect();
        for (r, req) in posted.into_iter().enumerate() {
            match comms[r].wait_bytes(req) {
                Err(DriverError::Timeout { missing, .. }) => assert_eq!(missing, vec![0]),
                other => panic!("round {round} rank {r}: expected a timeout, got {other:?}"),
            }
        }
    }
    for (r, c) in comms.iter().enumerate() {
        assert_eq!(c.stats().aborts_sent, LOST as u64, "rank {r}");
    }
    // The last lost request arrives late, after its segment was aborted: the board drops it
    // as a late duplicate instead of opening a context for it. (The board remembers the last
    // 8 completed or aborted segments; a frame older than that would open a context.)
    let dups_before = shared.with(|c| c.counters(1).get("duplicates"));
    let late = comms[1].transport_mut().held[LOST - 1].clone();
    comms[1].transport_mut().dropping = false;
    comms[1].transport_mut().inner.send(&late).unwrap();
    // Now a real operation, distinct data on both ranks, checked against the golden model.
    let inputs: Vec<Vec<f64>> = (0..2).map(|r| f64_input(r, 40)).collect();
    for c in comms.iter_mut() {
        c.set_timeout(Some(Duration::from_secs(60)));
    }
    let posted: Vec<Request> = (0..2)
        .map(|r| comms[r].iallreduce(&inputs[r], ReduceOp::Sum).unwrap())
        .collect();
    let want = ring_f64_sum(&inputs);
    for (r, req) in posted.into_iter().enumerate() {
        let got = comms[r].wait_bytes(req).unwrap();
        assert_eq!(Some(got), want[r], "rank {r}");
    }
    for b in 0..2 {
        let counters = shared.with(|c| c.counters(b));
        assert_eq!(
            counters.get("aborted"),
            LOST as u64,
            "board {b}: {counters:?}"
        );
        assert_eq!(
            counters.get("retired"),
            1,
            "board {b}: only the last operation completed"
        );
    }
    assert_eq!(
        shared.with(|c| c.counters(1).get("duplicates")),
        dups_before + 1,
        "the late request was dropped"
    );
}

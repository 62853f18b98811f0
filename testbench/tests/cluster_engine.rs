//! Engine behaviour on simulated clusters beyond the matrix: two operations in flight at once,
//! refusals answered with error frames (and the board still works afterwards), duplicates of a
//! waiting request acked, a lost answer sent again from a completed segment's retained result
//! (and anything else for it answered `stale`), and a waveform
//! with the CFE state by name; the host engine's timers run on the simulated clock (a
//! deadline aborts on the board, which then serves the next operation) and a run is the same
//! cycle for cycle every time, skipping boards at rest changes nothing, and contexts of jobs
//! killed mid-collective are reclaimed by the boards themselves.

use std::collections::BTreeMap;
use std::time::Duration;

use collwire_driver::{Call, DriverError};
use collwire_proto::frame::build_frame;
use collwire_proto::wire::ErrorRecord;
use collwire_proto::{
    Algorithm, Collective, Datatype, ErrorCode, Layout, MessageType, OffloadRepr, ReduceOp,
};
use collwire_sim::cluster::{Cluster, ClusterConfig, ClusterError, Topology, rank_endpoints};
use collwire_sim::collective::{Job, run_jobs, run_jobs_with};
use collwire_sim::hosts::udp_datagram;
use collwire_sim::links::{Faults, LinkModel};
use collwire_testbench::golden::{Spec, expected};

fn cluster(boards: usize, width: usize) -> Cluster {
    Cluster::new(ClusterConfig {
        boards,
        width,
        link_latency: 4,
        topology: Topology::Ring,
    })
    .unwrap()
}

fn distinct(rank: usize, elements: usize, size: usize) -> Vec<u8> {
    (0..elements * size)
        .map(|i| (i * 31 + rank * 97 + 5) as u8)
        .collect()
}

/// A job of `ranks` ranks, `rph` per host, each with distinct data.
fn job(
    call: (Collective, Algorithm, Datatype, ReduceOp),
    elements: usize,
    op_id: u16,
    ranks: usize,
    rph: u8,
) -> Job {
    let (collective, algorithm, datatype, op) = call;
    Job {
        call: Call {
            collective,
            algorithm,
            datatype,
            op,
            root: 1,
            elements,
            op_id,
        },
        comm_id: 11,
        ranks_per_host: rph,
        inputs: (0..ranks)
            .map(|r| distinct(r, elements, datatype.size()))
            .collect(),
    }
}

fn golden(j: &Job) -> Vec<Vec<u8>> {
    let spec = Spec {
        collective: j.call.collective,
        algorithm: j.call.algorithm,
        datatype: j.call.datatype,
        op: j.call.op,
        layout: Layout::new(j.inputs.len() as u16, j.ranks_per_host).unwrap(),
        root: j.call.root,
    };
    expected(&spec, &j.inputs)
        .unwrap()
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect()
}

#[test]
fn two_operations_in_flight_do_not_mix() {
    let mut c = cluster(4, 64);
    let a = job(
        (
            Collective::Allreduce,
            Algorithm::Ring,
            Datatype::F64,
            ReduceOp::Sum,
        ),
        400,
        1,
        8,
        2,
    );
    let b = job(
        (
            Collective::Scan,
            Algorithm::Tree,
            Datatype::Int32,
            ReduceOp::Sum,
        ),
        700,
        2,
        8,
        2,
    );
    let results = run_jobs(&mut c, &[a.clone(), b.clone()], 1500, 1_000_000).unwrap();
    for (j, r) in [a, b].iter().zip(&results) {
        let want = golden(j);
        for (rank, got) in r.outcomes.iter().enumerate() {
            assert_eq!(
                got.as_ref().unwrap(),
                &want[rank],
                "op {} rank {rank}",
                j.call.op_id
            );
        }
    }
    // Both were in flight together: the second finished after the first began answering.
    assert!(results[0].last_response > 0 && results[1].last_response > 0);
}

fn request(rank: u16, size: u16, rph: u8, op: ReduceOp, op_id: u16) -> OffloadRepr {
    OffloadRepr {
        msg_type: MessageType::Request,
        op_id,
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::Int32,
        op,
        comm_id: 11,
        comm_size: size,
        rank,
        root: 0,
        ranks_per_host: rph,
        attempt: 0,
        seg_index: 0,
        seg_count: 1,
        elem_count: 2,
    }
}

/// Sends `repr` from local rank `local` of board `b`; returns what the host of `b` received
/// within `cycles`.
fn exchange(
    c: &mut Cluster,
    b: usize,
    local: usize,
    repr: &OffloadRepr,
    cycles: u64,
) -> Vec<(OffloadRepr, Vec<u8>)> {
    let frame = build_frame(
        &rank_endpoints(b, local),
        &repr.to_datagram(&[1, 0, 0, 0, 2, 0, 0, 0]).unwrap(),
    )
    .unwrap();
    c.host_send(b, &frame);
    for _ in 0..cycles {
        c.step();
    }
    c.host_take(b)
        .into_iter()
        .filter_map(|rx| {
            let (_, d) = udp_datagram(&rx.frame)?;
            let (repr, payload) = OffloadRepr::from_datagram(d).ok()?;
            Some((repr, payload.to_vec()))
        })
        .collect()
}

fn error_code(answers: &[(OffloadRepr, Vec<u8>)]) -> ErrorCode {
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0].0.msg_type, MessageType::Error);
    ErrorRecord::parse(&answers[0].1).unwrap().code
}

#[test]
fn refusals_get_error_frames_and_change_nothing() {
    let mut c = cluster(2, 64);
    // A reserved op.
    assert_eq!(
        error_code(&exchange(
            &mut c,
            0,
            0,
            &request(0, 2, 1, ReduceOp::Prod, 40),
            300
        )),
        ErrorCode::Unsupported
    );
    // A rank that board 0 does not host.
    assert_eq!(
        error_code(&exchange(
            &mut c,
            0,
            0,
            &request(1, 2, 1, ReduceOp::Sum, 41),
            300
        )),
        ErrorCode::BadTopology
    );
    // Two local ranks that disagree on the op.
    let mut c1 = cluster(1, 256);
    assert!(exchange(&mut c1, 0, 0, &request(0, 2, 2, ReduceOp::Sum, 42), 300).is_empty());
    assert_eq!(
        error_code(&exchange(
            &mut c1,
            0,
            1,
            &request(1, 2, 2, ReduceOp::Max, 42),
            300
        )),
        ErrorCode::Mismatch
    );
    // Nothing was stored by the refusals: a real allreduce still runs, bit-exact.
    let j = job(
        (
            Collective::Allreduce,
            Algorithm::RecursiveDoubling,
            Datatype::Int64,
            ReduceOp::Bxor,
        ),
        9,
        43,
        2,
        1,
    );
    let r = run_jobs(&mut c, std::slice::from_ref(&j), 1500, 100_000).unwrap();
    let want = golden(&j);
    for (rank, got) in r[0].outcomes.iter().enumerate() {
        assert_eq!(got.as_ref().unwrap(), &want[rank]);
    }
    assert_eq!(c.counters(0).get("errors"), 2);
    // Stored on board 0: its own request and board 1's partial only.
    assert_eq!(c.counters(0).get("stored"), 2);
}

/// Sends `repr` with `payload` from local rank `local` of board `b`, UDP source port `port`.
fn send_from(
    c: &mut Cluster,
    b: usize,
    local: usize,
    port: u16,
    repr: &OffloadRepr,
    payload: &[u8],
) {
    let endpoints = collwire_proto::frame::Endpoints {
        src_port: port,
        ..rank_endpoints(b, local)
    };
    c.host_send(
        b,
        &build_frame(&endpoints, &repr.to_datagram(payload).unwrap()).unwrap(),
    );
}

/// Clocks `c` for `cycles`; the datagrams every board sent its host, by (board, UDP port).
fn delivered(c: &mut Cluster, cycles: u64) -> BTreeMap<(usize, u16), Vec<Vec<u8>>> {
    for _ in 0..cycles {
        c.step();
    }
    let mut out = BTreeMap::<_, Vec<_>>::new();
    for b in 0..c.len() {
        for rx in c.host_take(b) {
            let (port, d) = udp_datagram(&rx.frame).expect("a UDP frame");
            out.entry((b, port)).or_default().push(d.to_vec());
        }
    }
    out
}

/// Retained results (docs/recovery.md): a rank whose answer was lost retransmits its request;
/// the board, its context done but kept, sends the same answer again, byte for byte, and runs
/// nothing again. On two boards with two ranks each, so both local ranks' steps (`sub` 0
/// and `sub` 1) of the program's last micro-op run again: a Scan on the ring (a `RespondPrefix` that
/// combines), an allreduce and a reduce by recursive doubling (a `PassRespond`: its answer
/// alone, a copy of `dst`, nothing combined or stored again; the reduce answers only its root
/// with data). A copy that is not a retransmission (attempt 0: a replay, or a later job reusing
/// the key) or that comes from another endpoint is refused `stale`, as before; so is a
/// retransmission once the context was reused.
#[test]
fn a_retransmission_for_a_completed_segment_is_answered_again_from_the_retained_result() {
    for (collective, algorithm) in [
        (Collective::Allreduce, Algorithm::RecursiveDoubling),
        (Collective::Reduce, Algorithm::RecursiveDoubling),
    ] {
        answered_again_from_the_retained_result(collective, algorithm);
    }
    let mut c = answered_again_from_the_retained_result(Collective::Scan, Algorithm::Ring);
    let req = |rank: u16| OffloadRepr {
        collective: Collective::Scan,
        root: 1,
        ..request(rank, 4, 2, ReduceOp::Sum, 50)
    };
    let payload = |rank: u16| distinct(usize::from(rank), 2, 4);
    let port = |local: usize| collwire_proto::addressing::rank_port(local);
    let before: Vec<_> = (0..2).map(|b| c.counters(b)).collect();
    // Not a retransmission, or from another socket: refused, nothing sent from the context.
    let stale = |answers: &BTreeMap<(usize, u16), Vec<Vec<u8>>>, key| {
        let d = answers
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?}: {answers:?}"));
        assert_eq!(d.len(), 1, "{answers:?}");
        let (repr, data) = OffloadRepr::from_datagram(&d[0]).unwrap();
        assert_eq!(repr.msg_type, MessageType::Error);
        assert_eq!(ErrorRecord::parse(data).unwrap().code, ErrorCode::Stale);
    };
    send_from(&mut c, 1, 1, port(1), &req(3), &payload(3));
    stale(&delivered(&mut c, 300), (1, port(1)));
    let retx = OffloadRepr {
        attempt: 1,
        ..req(3)
    };
    send_from(&mut c, 1, 1, port(1) + 256, &retx, &payload(3));
    stale(&delivered(&mut c, 300), (1, port(1) + 256));
    assert_eq!(c.counters(1).get("resent"), 2);

    // Eight later single-rank operations on board 0 take its seven free contexts, then the
    // done one: the result is gone, a retransmission is refused `stale`.
    for op_id in 100..108u16 {
        let one = OffloadRepr {
            comm_id: 12,
            ..request(0, 1, 1, ReduceOp::Sum, op_id)
        };
        send_from(&mut c, 0, 0, port(0), &one, &payload(0));
        assert_eq!(delivered(&mut c, 300)[&(0, port(0))].len(), 1, "op {op_id}");
    }
    let retx0 = OffloadRepr {
        attempt: 2,
        ..req(0)
    };
    send_from(&mut c, 0, 0, port(0), &retx0, &payload(0));
    stale(&delivered(&mut c, 300), (0, port(0)));
    assert_eq!(c.counters(0).get("resent"), 2);
    assert_eq!(c.counters(0).get("retired"), before[0].get("retired") + 8);
}

/// Runs one collective on two boards × two ranks (distinct data, root 1), checks every answer
/// against the golden model, then has every rank retransmit its request and checks that each
/// gets its answer again byte for byte and that nothing ran again. Returns the cluster.
fn answered_again_from_the_retained_result(
    collective: Collective,
    algorithm: Algorithm,
) -> Cluster {
    let mut c = cluster(2, 64);
    // The long history keeps keys once its RAMs are swept after reset (512 clocks).
    for _ in 0..600 {
        c.step();
    }
    let req = |rank: u16| OffloadRepr {
        collective,
        algorithm,
        root: 1,
        ..request(rank, 4, 2, ReduceOp::Sum, 50)
    };
    let payload = |rank: u16| distinct(usize::from(rank), 2, 4);
    let port = |local: usize| collwire_proto::addressing::rank_port(local);
    for rank in 0..4u16 {
        let (b, l) = (usize::from(rank / 2), usize::from(rank % 2));
        send_from(&mut c, b, l, port(l), &req(rank), &payload(rank));
    }
    let first = delivered(&mut c, 600);
    let inputs: Vec<Vec<u8>> = (0..4).map(payload).collect();
    let spec = Spec {
        collective,
        algorithm,
        datatype: Datatype::Int32,
        op: ReduceOp::Sum,
        layout: Layout::new(4, 2).unwrap(),
        root: 1,
    };
    let want = expected(&spec, &inputs).unwrap();
    for rank in 0..4u16 {
        let (b, l) = (usize::from(rank / 2), usize::from(rank % 2));
        let got = &first[&(b, port(l))];
        assert_eq!(got.len(), 1, "rank {rank}: {got:?}");
        let (repr, data) = OffloadRepr::from_datagram(&got[0]).unwrap();
        assert_eq!(repr.msg_type, MessageType::Response);
        let want = want[usize::from(rank)].clone().unwrap_or_default();
        assert_eq!(data.to_vec(), want, "{collective:?} rank {rank}");
    }
    let before: Vec<_> = (0..2).map(|b| c.counters(b)).collect();

    // Each rank retransmits (its answer lost): the same datagram again.
    for rank in [3u16, 0, 2, 1] {
        let (b, l) = (usize::from(rank / 2), usize::from(rank % 2));
        let again = OffloadRepr {
            attempt: 1 + (rank % 2) as u8,
            ..req(rank)
        };
        send_from(&mut c, b, l, port(l), &again, &payload(rank));
        let answers = delivered(&mut c, 300);
        assert_eq!(
            answers.get(&(b, port(l))),
            first.get(&(b, port(l))),
            "{collective:?} rank {rank}: the answer sent again, byte for byte"
        );
        assert_eq!(answers.len(), 1, "only rank {rank} answered: {answers:?}");
    }
    for (b, was) in before.iter().enumerate() {
        let now = c.counters(b);
        assert_eq!(
            now.get("resent"),
            was.get("resent") + 2,
            "{collective:?} board {b}"
        );
        for name in ["stored", "retired", "transits", "errors"] {
            assert_eq!(
                now.get(name),
                was.get(name),
                "{collective:?} board {b}: {name}, nothing ran again"
            );
        }
    }
    c
}

#[test]
fn a_duplicate_of_a_waiting_request_is_acked_and_stored_once() {
    // Two boards: board 1's rank never sends, so board 0 holds its rank's request.
    let mut c = cluster(2, 64);
    let first = exchange(&mut c, 0, 0, &request(0, 2, 1, ReduceOp::Sum, 60), 300);
    assert!(first.is_empty(), "{first:?}");
    for attempt in 1..=3u8 {
        let again = OffloadRepr {
            attempt,
            ..request(0, 2, 1, ReduceOp::Sum, 60)
        };
        let answers = exchange(&mut c, 0, 0, &again, 300);
        assert_eq!(answers.len(), 1, "{answers:?}");
        let (ack, payload) = &answers[0];
        assert_eq!(ack.msg_type, MessageType::Ack);
        assert!(payload.is_empty());
        assert_eq!(
            (ack.op_id, ack.comm_id, ack.rank, ack.seg_index, ack.attempt),
            (60, 11, 0, 0, attempt)
        );
    }
    let counters = c.counters(0);
    assert_eq!((counters.get("stored"), counters.get("duplicates")), (1, 3));
    assert_eq!(counters.get("retired"), 0, "still waiting for rank 1");
}

#[test]
fn waveform_shows_the_cfe_state_by_name() {
    let mut c = cluster(2, 64);
    let path = std::env::temp_dir().join(format!("collwire-wave-{}.vcd", std::process::id()));
    c.trace_vcd(&path, 0, 400).unwrap();
    let j = job(
        (
            Collective::Allreduce,
            Algorithm::Ring,
            Datatype::Uint32,
            ReduceOp::Max,
        ),
        4,
        60,
        2,
        1,
    );
    run_jobs(&mut c, &[j], 1500, 100_000).unwrap();
    for _ in 0..400 {
        c.step();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    assert!(
        text.contains("$var string 1"),
        "{}",
        &text[..400.min(text.len())]
    );
    for state in ["sidle", "sarrive", "sissue", "sretire"] {
        assert!(text.contains(state), "no {state} in the waveform");
    }
    assert!(text.contains("#399"));
}

/// 8 ranks on 4 boards; rank 5's input has the wrong length, so the driver refuses it and it
/// never sends. With a 20 µs deadline (2,500 cycles at the 64-bit board's 125 MHz, counted
/// on the simulated clock) every other rank ends in `Timeout` after 2,500 cycles and aborts
/// its segment on its board; the boards then run the next operation of the communicator
/// correctly, so the aborts freed every context.
#[test]
fn a_deadline_counts_simulated_cycles_and_its_aborts_free_the_boards() {
    let mut c = cluster(4, 64);
    let call = (
        Collective::Allreduce,
        Algorithm::Ring,
        Datatype::Int64,
        ReduceOp::Max,
    );
    let mut broken = job(call, 100, 3, 8, 2);
    broken.inputs[5].pop();
    let deadline = Duration::from_micros(20);
    let start = c.cycle;
    let r = run_jobs_with(&mut c, &[broken], 1500, 100_000, &|comm| {
        comm.set_timeout(Some(deadline))
    })
    .unwrap()
    .remove(0);
    let took = c.cycle - start;
    assert!((2500..2600).contains(&took), "deadline after {took} cycles");
    for (rank, outcome) in r.outcomes.iter().enumerate() {
        match (rank, outcome) {
            (5, Err(DriverError::LengthMismatch { .. })) => {}
            (_, Err(DriverError::Timeout { .. })) if rank != 5 => {}
            other => panic!("rank {rank}: {other:?}"),
        }
    }
    // The aborts left the hosts as the deadline passed; let the boards take them.
    for _ in 0..2000 {
        c.step();
    }
    let aborted: u64 = (0..4).map(|b| c.counters(b).get("aborted")).sum();
    assert_eq!(aborted, 7, "one abort per rank that posted");
    let next = job(call, 100, 4, 8, 2);
    let r = run_jobs(&mut c, std::slice::from_ref(&next), 1500, 100_000)
        .unwrap()
        .remove(0);
    let want = golden(&next);
    for (rank, got) in r.outcomes.iter().enumerate() {
        assert_eq!(
            got.as_ref().unwrap(),
            &want[rank],
            "rank {rank} after the aborts"
        );
    }
}

/// The engine is deterministic: the same jobs on a fresh cluster take the same cycles and give
/// the same bytes.
#[test]
fn the_host_engine_runs_the_same_cycle_for_cycle() {
    let jobs = [
        job(
            (
                Collective::Allreduce,
                Algorithm::RecursiveDoubling,
                Datatype::F32,
                ReduceOp::Sum,
            ),
            900,
            1,
            4,
            1,
        ),
        job(
            (
                Collective::Reduce,
                Algorithm::Tree,
                Datatype::Int32,
                ReduceOp::Min,
            ),
            50,
            2,
            4,
            1,
        ),
    ];
    let run = || {
        let mut c = cluster(4, 256);
        let r = run_jobs(&mut c, &jobs, 1500, 100_000).unwrap();
        let cycles: Vec<u64> = r.iter().map(|j| j.last_response).collect();
        let bytes: Vec<Vec<u8>> = r
            .into_iter()
            .flat_map(|j| j.outcomes.into_iter().map(Result::unwrap))
            .collect();
        (cycles, bytes, c.cycle)
    };
    assert_eq!(run(), run());
}

/// Everything a cluster run shows from outside, per board: frames to the host outside the
/// jobs (the jobs' own are checked against the golden model) with their cycle, the cycle every
/// frame entered and left every port, the statistics counters; and the final cycle.
type Observed = (
    Vec<Vec<(u64, Vec<u8>)>>,
    Vec<Vec<Vec<u64>>>,
    Vec<Vec<Vec<u64>>>,
    Vec<Vec<(&'static str, u64)>>,
    u64,
);

/// Offload jobs (multi-segment, several collectives at once), a plain frame, a transit
/// partial, a runt and idle stretches in between, on a cluster of `width` bits, its boards
/// stepped on `threads` threads.
fn mixed_traffic(width: usize, skip: bool, threads: usize) -> (Observed, u64) {
    let mut c = cluster(4, width);
    c.set_skip_resting(skip);
    c.set_threads(threads).unwrap();
    c.run_threaded(mixed_traffic_on)
}

fn mixed_traffic_on(c: &mut Cluster) -> (Observed, u64) {
    let mut host: Vec<Vec<(u64, Vec<u8>)>> = vec![Vec::new(); 4];
    let drain = |c: &mut Cluster, host: &mut Vec<Vec<(u64, Vec<u8>)>>| {
        for (b, frames) in host.iter_mut().enumerate() {
            frames.extend(c.host_take(b).into_iter().map(|r| (r.cycle, r.frame)));
        }
    };
    let jobs = [
        job(
            (
                Collective::Allreduce,
                Algorithm::Ring,
                Datatype::F64,
                ReduceOp::Sum,
            ),
            400,
            1,
            4,
            1,
        ),
        job(
            (
                Collective::Scan,
                Algorithm::Tree,
                Datatype::Int32,
                ReduceOp::Max,
            ),
            30,
            2,
            4,
            1,
        ),
    ];
    let r = run_jobs(c, &jobs, 1500, 1_000_000).unwrap();
    for (j, got) in jobs.iter().zip(&r) {
        for (rank, o) in got.outcomes.iter().enumerate() {
            assert_eq!(o.as_ref().unwrap(), &golden(j)[rank], "rank {rank}");
        }
    }
    drain(c, &mut host);
    for _ in 0..300 {
        c.step();
    }
    // A plain frame from the network to a host, a runt, and a partial for another board.
    let ends = rank_endpoints(3, 0);
    let plain = build_frame(
        &collwire_proto::frame::Endpoints {
            dst_port: 53,
            ..ends
        },
        &[7u8; 100],
    )
    .unwrap();
    c.inject(1, 2, &plain);
    c.inject(2, 1, &plain[..30]);
    let mut partial = request(0, 4, 1, ReduceOp::Sum, 40);
    partial.msg_type = MessageType::Partial;
    partial.rank = 3 << 8;
    let to_3 = build_frame(
        &collwire_proto::frame::Endpoints {
            src_mac: collwire_sim::cluster::board_mac(1),
            dst_mac: collwire_sim::cluster::board_mac(3),
            src_ip: collwire_sim::cluster::board_ip(1),
            dst_ip: collwire_sim::cluster::board_ip(3),
            src_port: collwire_proto::OFFLOAD_UDP_PORT,
            dst_port: collwire_proto::OFFLOAD_UDP_PORT,
        },
        &partial.to_datagram(&[1, 0, 0, 0, 2, 0, 0, 0]).unwrap(),
    )
    .unwrap();
    c.inject(1, 2, &to_3);
    for _ in 0..2_000 {
        c.step();
    }
    drain(c, &mut host);
    let again = job(
        (
            Collective::Allreduce,
            Algorithm::RecursiveDoubling,
            Datatype::F32,
            ReduceOp::Min,
        ),
        300,
        3,
        4,
        1,
    );
    let r = run_jobs(c, std::slice::from_ref(&again), 1500, 1_000_000).unwrap();
    for (rank, o) in r[0].outcomes.iter().enumerate() {
        assert_eq!(o.as_ref().unwrap(), &golden(&again)[rank], "rank {rank}");
    }
    drain(c, &mut host);
    assert_eq!(c.underruns, 0, "an output ran dry inside a frame");
    let counters = (0..4).map(|b| c.counters(b).iter().collect()).collect();
    (
        (
            host,
            c.first_in_log.clone(),
            c.first_out.clone(),
            counters,
            c.cycle,
        ),
        c.board_clocks_skipped,
    )
}

/// Skipping boards at rest is exact: every frame, every port's first-beat cycles and every
/// counter are the same as with every board evaluated on every clock, at both widths; and
/// the skip does happen.
#[test]
fn skipping_boards_at_rest_changes_nothing() {
    for width in [64, 256] {
        let (every_clock, none_skipped) = mixed_traffic(width, false, 1);
        let (skipping, skipped) = mixed_traffic(width, true, 1);
        assert_eq!(none_skipped, 0);
        assert!(
            skipped > every_clock.4,
            "{width}-bit: only {skipped} board-clocks skipped in {} cycles",
            every_clock.4
        );
        assert_same_run(&every_clock, &skipping, width);
    }
}

/// [`mixed_traffic`] on one thread with every evaluated board settled before its edge or not
/// (`Cluster::set_check_handshakes`; on in debug builds, off in release ones).
fn mixed_traffic_settled(width: usize, settle: bool) -> (Observed, u64) {
    let mut c = cluster(4, width);
    c.set_check_handshakes(settle);
    c.run_threaded(mixed_traffic_on)
}

/// A board's input logic is evaluated only when an input pin other than the clock changed
/// (`skip_unchanged_inputs` in `sim/build.rs`): exact. Settling every evaluated board before its
/// edge evaluates that logic on every clock with the clock's inputs; without it the edge's own
/// evaluation skips it whenever the inputs are as before. Every frame, every port's first-beat
/// cycles, every counter and the boards skipped at rest are the same, at both widths.
#[test]
fn evaluating_the_input_logic_only_on_changed_inputs_changes_nothing() {
    for width in [64, 256] {
        let plain = mixed_traffic_settled(width, false);
        let settled = mixed_traffic_settled(width, true);
        assert_same_run(&plain.0, &settled.0, width);
        assert_eq!(plain.1, settled.1, "{width}-bit: board-clocks skipped");
    }
}

/// Two runs of [`mixed_traffic`] observed the same from outside.
fn assert_same_run(a: &Observed, b: &Observed, width: usize) {
    assert!(!a.0[1].is_empty(), "{width}-bit: the plain frame");
    assert_eq!(a.0, b.0, "{width}-bit: host frames");
    assert_eq!(a.1, b.1, "{width}-bit: first beat in");
    assert_eq!(a.2, b.2, "{width}-bit: first beat out");
    assert_eq!(a.3, b.3, "{width}-bit: counters");
    assert_eq!(a.4, b.4, "{width}-bit: cycles");
}

/// Stepping each clock's boards on two threads is exact: every frame, every port's
/// first-beat cycles, every counter and the boards skipped at rest are the same as on one.
#[test]
fn stepping_boards_on_two_threads_changes_nothing() {
    for width in [64, 256] {
        let one = mixed_traffic(width, true, 1);
        let two = mixed_traffic(width, true, 2);
        assert_same_run(&one.0, &two.0, width);
        assert_eq!(one.1, two.1, "{width}-bit: board-clocks skipped");
    }
}

/// 20 jobs killed mid-collective: 3 of their 4 ranks posted, no abort ever comes. Their
/// contexts fill every board (later requests wait for a free context); with reclaim on, the
/// boards free them after `RECLAIM` ticks without progress and a new job runs; with reclaim
/// off (0), the same new job finds every board full and never completes.
fn after_twenty_killed_jobs(
    reclaim_ticks: u32,
) -> (
    Result<Vec<collwire_sim::collective::JobResult>, collwire_sim::cluster::ClusterError>,
    u64,
) {
    let mut c = cluster(4, 64);
    c.write_cfg_all(collwire_hdl::cfe::cfg::RECLAIM, reclaim_ticks);
    c.set_age_tick_every(1_000);
    for op_id in 100..120 {
        for rank in 0..3u16 {
            let repr = request(rank, 4, 1, ReduceOp::Sum, op_id);
            let frame = build_frame(
                &rank_endpoints(usize::from(rank), 0),
                &repr.to_datagram(&[1, 0, 0, 0, 2, 0, 0, 0]).unwrap(),
            )
            .unwrap();
            c.host_send(usize::from(rank), &frame);
        }
    }
    for _ in 0..40_000 {
        c.step();
    }
    let fresh = job(
        (
            Collective::Allreduce,
            Algorithm::Ring,
            Datatype::F64,
            ReduceOp::Sum,
        ),
        40,
        7,
        4,
        1,
    );
    let r = run_jobs(&mut c, std::slice::from_ref(&fresh), 1500, 200_000);
    if let Ok(r) = &r {
        for (rank, o) in r[0].outcomes.iter().enumerate() {
            assert_eq!(o.as_ref().unwrap(), &golden(&fresh)[rank], "rank {rank}");
        }
    }
    let reclaimed = (0..4).map(|b| c.counters(b).get("reclaimed")).sum();
    (r, reclaimed)
}

#[test]
fn contexts_of_killed_jobs_are_reclaimed_without_aborts() {
    let (r, reclaimed) = after_twenty_killed_jobs(3);
    assert!(r.is_ok(), "{r:?}");
    // Every board held contexts of the killed jobs (3 posted ranks; the partials reach the
    // 4th board too).
    assert!(reclaimed >= 4 * 8, "only {reclaimed} contexts reclaimed");
    let (r, reclaimed) = after_twenty_killed_jobs(0);
    assert!(r.is_err(), "with reclaim off the boards stay full");
    assert_eq!(reclaimed, 0);
}

/// A frame built from bytes that are not an offload request: UDP to another port.
fn plain_frame(len: usize) -> Vec<u8> {
    let mut endpoints = rank_endpoints(1, 0);
    endpoints.dst_port = collwire_proto::OFFLOAD_UDP_PORT + 1;
    build_frame(&endpoints, &vec![0x5a; len - 42]).unwrap()
}

/// Issue 16's frame hygiene on whole boards, both widths: a 64 KiB garbage frame from a cable,
/// a giant well-formed request from the host (a valid header over 2041 f64, 16,328 bytes: the
/// request that once stopped a board for good), a runt and a request its MAC received bad are
/// dropped and counted where they arrived, nothing else is, and the next collective runs with
/// the right bits.
#[test]
fn giants_runts_and_bad_frames_are_dropped_and_the_next_collective_works() {
    for width in [64, 256] {
        let mut c = cluster(4, width);
        let garbage: Vec<u8> = (0..65536u32).map(|i| (i * 7 + 3) as u8).collect();
        c.inject(1, 2, &garbage);
        let mut giant = request(0, 4, 1, ReduceOp::Sum, 9);
        giant.datatype = Datatype::F64;
        giant.elem_count = 2041;
        let payload: Vec<u8> = (0..2041 * 8).map(|i| i as u8).collect();
        let frame =
            build_frame(&rank_endpoints(0, 0), &giant.to_datagram(&payload).unwrap()).unwrap();
        assert!(frame.len() > collwire_proto::limits::MAX_FRAME);
        c.host_send(0, &frame);
        c.inject(2, 1, &plain_frame(100)[..40]);
        let good = build_frame(
            &rank_endpoints(3, 0),
            &request(3, 4, 1, ReduceOp::Sum, 9)
                .to_datagram(&[1, 0, 0, 0, 2, 0, 0, 0])
                .unwrap(),
        )
        .unwrap();
        c.inject_marked(3, 0, &good, true);
        for _ in 0..20_000 {
            c.step();
        }
        let count = |c: &mut Cluster, b: usize, name: &str| c.counters(b).get(name);
        assert_eq!(count(&mut c, 1, "giant_drops"), 1, "{width}-bit: garbage");
        assert_eq!(
            count(&mut c, 0, "giant_drops"),
            1,
            "{width}-bit: giant request"
        );
        assert_eq!(count(&mut c, 2, "runt_drops"), 1, "{width}-bit: runt");
        assert_eq!(
            count(&mut c, 3, "bad_frame_drops"),
            1,
            "{width}-bit: bad frame"
        );
        for b in 0..4 {
            for name in [
                "stored",
                "passed_frames",
                "offload_frames",
                "malformed_drops",
            ] {
                assert_eq!(count(&mut c, b, name), 0, "{width}-bit: board {b} {name}");
            }
            assert!(
                c.host_take(b).is_empty(),
                "{width}-bit: board {b} delivered a frame"
            );
        }
        let fresh = job(
            (
                Collective::Allreduce,
                Algorithm::Ring,
                Datatype::F64,
                ReduceOp::Sum,
            ),
            300,
            7,
            4,
            1,
        );
        let r = run_jobs(&mut c, std::slice::from_ref(&fresh), 1500, 200_000).unwrap();
        for (rank, o) in r[0].outcomes.iter().enumerate() {
            assert_eq!(o.as_ref().unwrap(), &golden(&fresh)[rank], "rank {rank}");
        }
    }
}

/// Issue 16's pass-through isolation on a whole board, both widths: rank 0 of board 0 opens 40
/// segments no peer will ever join, so every context is busy, the engine holds a new segment
/// it cannot take, and the rest of the requests fill its offload buffer and are dropped. Plain
/// frames from a cable to the host still flow, each as fast as through an idle board (the
/// delay, first beat in to first beat out, is printed and must be equal).
#[test]
fn a_stalled_engine_does_not_delay_plain_traffic() {
    let through = |c: &mut Cluster| -> u64 {
        let frame = plain_frame(600);
        let ins = c.first_in_log[0][1].len();
        let outs = c.first_out[0][0].len();
        c.inject(0, 1, &frame);
        for _ in 0..2_000 {
            c.step();
        }
        let got = c.host_take(0);
        assert_eq!(got.len(), 1, "the plain frame reached the host");
        assert_eq!(got[0].frame, frame);
        c.first_out[0][0][outs] - c.first_in_log[0][1][ins]
    };
    for width in [64, 256] {
        let mut c = cluster(4, width);
        let idle = through(&mut c);
        for op_id in 200..240 {
            let frame = build_frame(
                &rank_endpoints(0, 0),
                &request(0, 4, 1, ReduceOp::Sum, op_id)
                    .to_datagram(&[1, 0, 0, 0, 2, 0, 0, 0])
                    .unwrap(),
            )
            .unwrap();
            c.host_send(0, &frame);
        }
        for _ in 0..20_000 {
            c.step();
        }
        let busy = c.counters(0).get("engine_busy_drops");
        assert!(busy > 0, "{width}-bit: the offload buffer filled");
        let stalled = through(&mut c);
        println!(
            "{width}-bit: plain frame through board 0, first beat in -> out: idle {idle} clocks, \
             engine stalled ({busy} offload frames dropped) {stalled} clocks"
        );
        assert_eq!(stalled, idle, "{width}-bit");
        assert_eq!(c.underruns, 0);
    }
}

/// Cut-through offload frames (issue 15): the engine acts on a frame from its header, before
/// its tail is known. A partial from board 0 that board 1 combines with its local value as
/// it streams in and sends on — first a copy its MAC marked bad (with Ethernet padding after
/// it, so the splitter holds its last payload word for the tail), then a copy that lost its
/// last 21 bytes (the splitter makes up the missing words) — must change nothing: the frame
/// board 1 built from it leaves marked bad (board 2 drops it, counted), board 1 keeps no trace
/// of it (its program did not advance, its register is absent), and when rank 0 posts (a
/// padded request), every rank gets the right bits.
#[test]
fn an_arrival_bad_at_its_tail_is_undone_and_what_it_made_leaves_marked_bad() {
    use collwire_control::program::{self, Kind, Uop};
    use collwire_proto::frame::Endpoints;
    use collwire_sim::cluster::{board_ip, board_mac};
    // The register board 0's ring program sends its partial into at board 1.
    let programs = program::compile(Algorithm::Ring, Kind::Reduction, 3).unwrap();
    let tag = programs[0]
        .uops
        .iter()
        .find_map(|u| match u {
            Uop::Pass { send: Some(s), .. } if s.board == 1 => Some(s.tag),
            _ => None,
        })
        .expect("board 0 sends to board 1");
    const N: usize = 20;
    let values: Vec<[i32; N]> = (0..3i32)
        .map(|r| std::array::from_fn(|i| (i as i32 * 7919 - 40_000) * (r * 2 - 1) + r))
        .collect();
    let data = |r: usize| -> Vec<u8> { values[r].iter().flat_map(|v| v.to_le_bytes()).collect() };
    let repr_of = |r: usize| OffloadRepr {
        elem_count: N as u16,
        ..request(r as u16, 3, 1, ReduceOp::Sum, 21)
    };
    for width in [64, 256] {
        let mut c = cluster(3, width);
        let count = |c: &mut Cluster, b: usize, name: &str| c.counters(b).get(name);
        let send_request = |c: &mut Cluster, r: usize, padding: usize| {
            let mut frame = build_frame(
                &rank_endpoints(r, 0),
                &repr_of(r).to_datagram(&data(r)).unwrap(),
            )
            .unwrap();
            frame.resize(frame.len() + padding, 0xa5);
            c.host_send(r, &frame);
        };
        for r in [1, 2] {
            send_request(&mut c, r, 0);
        }
        c.run_until(20_000, |c| c.at_rest()).unwrap();
        let partial = OffloadRepr {
            msg_type: MessageType::Partial,
            rank: u16::from(tag) << 8,
            ..repr_of(0)
        };
        let frame = build_frame(
            &Endpoints {
                src_mac: board_mac(0),
                dst_mac: board_mac(1),
                src_ip: board_ip(0),
                dst_ip: board_ip(1),
                src_port: collwire_proto::OFFLOAD_UDP_PORT,
                dst_port: collwire_proto::OFFLOAD_UDP_PORT,
            },
            &partial.to_datagram(&data(0)).unwrap(),
        )
        .unwrap();
        let sent_before = c.first_out[1][1].len();
        // Its MAC marked it bad; padding follows the IPv4 packet.
        let mut padded = frame.clone();
        padded.resize(frame.len() + 11, 0);
        c.inject_marked(1, 2, &padded, true);
        c.run_until(20_000, |c| c.at_rest()).unwrap();
        // Shorter than its IPv4 length: it lost its last bytes (more than a bus word).
        c.inject(1, 2, &frame[..frame.len() - 21]);
        c.run_until(20_000, |c| c.at_rest()).unwrap();
        let sent = c.first_out[1][1].len() - sent_before;
        println!(
            "{width}-bit: board 1 sent {sent} frames from the bad arrivals; board 2 dropped {} \
             as bad",
            count(&mut c, 2, "bad_frame_drops")
        );
        assert_eq!(count(&mut c, 1, "bad_frame_drops"), 1, "{width}-bit");
        assert_eq!(count(&mut c, 1, "malformed_drops"), 1, "{width}-bit");
        assert_eq!(
            count(&mut c, 1, "stored"),
            1,
            "{width}-bit: only the request"
        );
        // Board 1 combined each arrival as it streamed in and sent the result on: both left
        // marked bad, and board 2 dropped them as its MAC's bad frames.
        assert_eq!(sent, 2, "{width}-bit: board 1 combined on arrival");
        assert_eq!(count(&mut c, 2, "bad_frame_drops"), 2, "{width}-bit");
        assert_eq!(count(&mut c, 2, "stored"), 1, "{width}-bit");
        for b in 0..3 {
            assert!(c.host_take(b).is_empty(), "{width}-bit: board {b} answered");
        }
        // Rank 0 posts: the collective runs as if the bad frames had never come.
        send_request(&mut c, 0, 13);
        c.run_until(50_000, |c| c.at_rest()).unwrap();
        let sum: Vec<u8> = (0..N)
            .flat_map(|i| {
                values
                    .iter()
                    .fold(0i32, |s, v| s.wrapping_add(v[i]))
                    .to_le_bytes()
            })
            .collect();
        for b in 0..3 {
            let answers: Vec<(OffloadRepr, Vec<u8>)> = c
                .host_take(b)
                .into_iter()
                .filter_map(|rx| {
                    let (_, d) = udp_datagram(&rx.frame)?;
                    let (repr, payload) = OffloadRepr::from_datagram(d).ok()?;
                    Some((repr, payload.to_vec()))
                })
                .collect();
            assert_eq!(answers.len(), 1, "{width}-bit: board {b}: {answers:?}");
            assert_eq!(answers[0].0.msg_type, MessageType::Response);
            assert_eq!(answers[0].1, sum, "{width}-bit: rank {b}'s answer");
        }
    }
}

/// Over the boards' own links (1 Gb/s at 64 bits, 10 Gb/s at 256: line rate with preamble,
/// FCS and gap, PHY and cable latency, 16 KiB receive FIFOs), collectives of a whole MTU
/// segment are exact, no output underruns its MAC, no FIFO overflows, and every operation
/// takes at least the wire time of a request in and a result out.
#[test]
fn collectives_over_the_boards_own_links_are_exact() {
    for width in [64, 256] {
        for algorithm in [
            Algorithm::Ring,
            Algorithm::Tree,
            Algorithm::RecursiveDoubling,
        ] {
            let mut c = cluster(4, width);
            c.set_links(LinkModel::target(width, Faults::NONE, Faults::NONE, 1));
            let j = job(
                (
                    Collective::Allreduce,
                    algorithm,
                    Datatype::F64,
                    ReduceOp::Sum,
                ),
                180,
                1,
                4,
                1,
            );
            let start = c.cycle;
            let r = run_jobs(&mut c, std::slice::from_ref(&j), 1500, 2_000_000).unwrap();
            for (rank, o) in r[0].outcomes.iter().enumerate() {
                assert_eq!(
                    o.as_ref().unwrap(),
                    &golden(&j)[rank],
                    "{width} {algorithm:?} rank {rank}"
                );
            }
            assert_eq!(c.underruns, 0);
            let s = c.link_stats();
            assert!(s.frames >= 8, "{s:?}");
            assert_eq!(s.rx_overflows, 0);
            // A 1440-byte payload frame is 1504 bytes, 1528 with preamble and FCS: a byte a
            // clock at 1G/125 MHz, 0.16 clocks at 10G/200 MHz.
            let wire = if width == 64 { 1528.0 } else { 1528.0 * 0.16 };
            let took = (r[0].last_response - start) as f64;
            assert!(took >= 2.0 * wire, "{width} {algorithm:?}: {took} cycles");
        }
    }
}

/// A corrupted frame never becomes a wrong answer: with cables that corrupt 5 % of frames
/// (the receiving MAC's FCS check marks them bad), each run either completes with the exact
/// result or, when a partial was lost, ends in a timeout (the ranks here do not retransmit
/// within the run, so nothing triggers a nack: the test above has them do so), with the bad
/// frames dropped and counted by the boards. Over the seeds both happen.
#[test]
fn corrupted_frames_are_dropped_and_never_a_wrong_answer() {
    let faults = Faults {
        corrupt: 0.05,
        ..Faults::NONE
    };
    let (mut exact, mut lost) = (0, 0);
    for seed in 0..10 {
        let mut c = cluster(4, 64);
        c.set_links(LinkModel::target(64, faults, Faults::NONE, seed));
        let j = job(
            (
                Collective::Allreduce,
                Algorithm::Ring,
                Datatype::F64,
                ReduceOp::Sum,
            ),
            180,
            1,
            4,
            1,
        );
        let corrupted = |c: &Cluster| c.link_stats().corrupted;
        match run_jobs(&mut c, std::slice::from_ref(&j), 1500, 200_000) {
            Ok(r) => {
                for (rank, o) in r[0].outcomes.iter().enumerate() {
                    assert_eq!(
                        o.as_ref().unwrap(),
                        &golden(&j)[rank],
                        "seed {seed} rank {rank}"
                    );
                }
                exact += 1;
            }
            Err(e) => {
                assert!(matches!(e, ClusterError::Timeout(_)), "seed {seed}: {e}");
                assert!(corrupted(&c) > 0, "seed {seed}: a timeout with no fault");
                lost += 1;
            }
        }
        // A board drops and counts a bad frame; a frame it built from a bad arrival leaves
        // marked bad too, and the next board drops and counts that one as well.
        let dropped: u64 = (0..4).map(|b| c.counters(b).get("bad_frame_drops")).sum();
        assert_eq!(
            dropped == 0,
            corrupted(&c) == 0,
            "seed {seed}: {dropped} dropped"
        );
    }
    assert!(exact > 0 && lost > 0, "{exact} exact, {lost} lost");
}

/// A partial or result lost between boards is recovered by the NACK (docs/recovery.md): a
/// rank whose segment is stuck retransmits after its RTO; its board acks it, finds the register
/// its next micro-op lacks, and nacks the board its input map names; that board sends the frame
/// again from its context (open or done). With 10 % of the frames on every cable lost (nacks
/// and resent frames too) and lossless host links, every run of every algorithm, reduction
/// and scan, ends exact on every rank, and the boards sent nacks and frames again.
#[test]
fn a_frame_lost_between_boards_is_nacked_and_sent_again() {
    let faults = Faults {
        drop: 0.1,
        ..Faults::NONE
    };
    let setup = |comm: &mut collwire_driver::OffloadComm<_>| {
        comm.set_retransmit(Some(collwire_driver::Retransmit {
            initial_rto: Duration::from_micros(10),
            min_rto: Duration::from_micros(5),
            max_rto: Duration::from_micros(40),
            dead_retries: 8,
            dead_after: Duration::from_millis(1),
        }));
    };
    let (mut lossy, mut nacks, mut resends) = (0, 0, 0);
    let mut runs = 0;
    for (i, algorithm) in [
        Algorithm::Ring,
        Algorithm::Tree,
        Algorithm::RecursiveDoubling,
        Algorithm::Torus2d,
    ]
    .into_iter()
    .enumerate()
    {
        for collective in [Collective::Allreduce, Collective::Scan] {
            for seed in 0..3u64 {
                let width = if seed == 2 { 256 } else { 64 };
                let mut c = cluster(4, width);
                c.set_links(LinkModel::target(
                    width,
                    faults,
                    Faults::NONE,
                    seed * 8 + i as u64,
                ));
                let j = job(
                    (collective, algorithm, Datatype::F64, ReduceOp::Sum),
                    180,
                    1,
                    8,
                    2,
                );
                let what = format!("{algorithm:?} {collective:?} seed {seed} width {width}");
                let r = run_jobs_with(&mut c, std::slice::from_ref(&j), 1500, 3_000_000, &setup)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                for (rank, o) in r[0].outcomes.iter().enumerate() {
                    assert_eq!(
                        o.as_ref()
                            .unwrap_or_else(|e| panic!("{what} rank {rank}: {e}")),
                        &golden(&j)[rank],
                        "{what} rank {rank}"
                    );
                }
                lossy += usize::from(c.link_stats().dropped > 0);
                nacks += (0..4).map(|b| c.counters(b).get("nacks")).sum::<u64>();
                resends += (0..4)
                    .map(|b| c.counters(b).get("nack_resends"))
                    .sum::<u64>();
                runs += 1;
            }
        }
    }
    eprintln!("{runs} runs, {lossy} lost frames, {nacks} nacks, {resends} frames sent again");
    assert!(lossy >= runs / 2, "{lossy} of {runs} runs lost a frame");
    assert!(
        nacks >= 5 && resends >= 5,
        "{nacks} nacks, {resends} frames sent again"
    );
}

/// A late rank is legal (MPI waits for it): the boards waiting for it nack its board, which
/// answers `pending` (its segment has not started there, or waits for its own rank), so they
/// never give up, however many nacks go out (here three times the nack limit); when the rank
/// comes, every rank gets the exact result.
#[test]
fn a_late_rank_keeps_its_partners_waiting_and_the_operation_completes() {
    let mut c = cluster(3, 64);
    for _ in 0..600 {
        c.step();
    }
    let req = |rank: u16, attempt: u8| OffloadRepr {
        attempt,
        ..request(rank, 3, 1, ReduceOp::Sum, 60)
    };
    let payload = |rank: u16| distinct(usize::from(rank), 2, 4);
    let port = collwire_proto::addressing::rank_port(0);
    for rank in 0..2u16 {
        send_from(
            &mut c,
            usize::from(rank),
            0,
            port,
            &req(rank, 0),
            &payload(rank),
        );
    }
    assert!(delivered(&mut c, 600).is_empty(), "nobody answered yet");
    let rounds = 3 * collwire_hdl::cfe::cfg::NACK_LIMIT_DEFAULT as u8;
    for attempt in 1..=rounds {
        for rank in 0..2u16 {
            send_from(
                &mut c,
                usize::from(rank),
                0,
                port,
                &req(rank, attempt),
                &payload(rank),
            );
        }
        let got = delivered(&mut c, 500);
        for b in 0..2 {
            let answers = &got[&(b, port)];
            assert_eq!(
                answers.len(),
                1,
                "attempt {attempt}, board {b}: {answers:?}"
            );
            let (repr, _) = OffloadRepr::from_datagram(&answers[0]).unwrap();
            assert_eq!(
                repr.msg_type,
                MessageType::Ack,
                "attempt {attempt}, board {b}"
            );
        }
    }
    let nacks: u64 = (0..3).map(|b| c.counters(b).get("nacks")).sum();
    let pendings: u64 = (0..3).map(|b| c.counters(b).get("pendings")).sum();
    assert!(nacks >= u64::from(rounds), "{nacks} nacks");
    assert!(pendings >= u64::from(rounds), "{pendings} pending answers");
    // The late rank comes: everyone gets the sum.
    send_from(&mut c, 2, 0, port, &req(2, 0), &payload(2));
    let got = delivered(&mut c, 2_000);
    let word =
        |bytes: &[u8], i: usize| i32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
    let sum: Vec<u8> = (0..2)
        .flat_map(|i| {
            (0..3u16)
                .map(|r| word(&payload(r), i))
                .fold(0i32, i32::wrapping_add)
                .to_le_bytes()
        })
        .collect();
    for b in 0..3 {
        let answers = &got[&(b, port)];
        assert_eq!(answers.len(), 1, "board {b}: {answers:?}");
        let (repr, data) = OffloadRepr::from_datagram(&answers[0]).unwrap();
        assert_eq!(repr.msg_type, MessageType::Response, "board {b}");
        assert_eq!(data, &sum[..], "board {b}");
    }
}

/// Runs a 4-board ring allreduce on 64-bit boards after `fault`, every rank with a 200 µs
/// deadline and fast retransmission; returns each rank's outcome and the cycles the run took.
fn allreduce_after(fault: impl Fn(&mut Cluster)) -> (Vec<Result<Vec<u8>, DriverError>>, u64) {
    allreduce_after_with(fault, Some(Duration::from_micros(200)))
}

/// [`allreduce_after`] with the driver's deadline `deadline` (`None`: none).
fn allreduce_after_with(
    fault: impl Fn(&mut Cluster),
    deadline: Option<Duration>,
) -> (Vec<Result<Vec<u8>, DriverError>>, u64) {
    let mut c = cluster(4, 64);
    fault(&mut c);
    let j = job(
        (
            Collective::Allreduce,
            Algorithm::Ring,
            Datatype::F64,
            ReduceOp::Sum,
        ),
        40,
        1,
        4,
        1,
    );
    let setup = |comm: &mut collwire_driver::OffloadComm<_>| {
        comm.set_timeout(deadline);
        comm.set_retransmit(Some(collwire_driver::Retransmit {
            initial_rto: Duration::from_micros(10),
            min_rto: Duration::from_micros(5),
            max_rto: Duration::from_micros(40),
            dead_retries: 3,
            dead_after: Duration::from_micros(100),
        }));
    };
    let start = c.cycle;
    let r = run_jobs_with(&mut c, std::slice::from_ref(&j), 1500, 1_000_000, &setup).unwrap();
    (r.into_iter().next().unwrap().outcomes, c.cycle - start)
}

/// When recovery is impossible, every rank gets a typed error within a bounded time (with the
/// driver's opt-in deadline): a cut cable ends the operation on every rank in a timeout (their
/// boards are alive and ack the retransmissions), a dead board in `unreachable` for its own
/// rank (it answers nothing) and a timeout for the others; all within the deadline and one
/// retransmission timeout (200 + 40 µs = 30,000 cycles at 125 MHz). Never a result.
#[test]
fn a_cut_cable_or_a_dead_board_ends_every_rank_in_a_typed_error_in_bounded_time() {
    let bound = 30_000 + 2_000;
    let (cut, cycles) = allreduce_after(|c| c.cut_cable(1, 1));
    assert!(cycles <= bound, "cable cut: {cycles} cycles");
    for (rank, o) in cut.iter().enumerate() {
        assert!(
            matches!(o, Err(DriverError::Timeout { .. })),
            "cable cut, rank {rank}: {o:?}"
        );
    }
    let (dead, cycles) = allreduce_after(|c| c.kill_board(2));
    assert!(cycles <= bound, "dead board: {cycles} cycles");
    for (rank, o) in dead.iter().enumerate() {
        if rank == 2 {
            assert!(
                matches!(o, Err(DriverError::Unreachable { .. })),
                "dead board, its rank: {o:?}"
            );
        } else {
            assert!(
                matches!(o, Err(DriverError::Timeout { .. })),
                "dead board, rank {rank}: {o:?}"
            );
        }
    }
    // The same run with nothing broken completes.
    let (fine, _) = allreduce_after(|_| {});
    assert!(fine.iter().all(Result::is_ok), "{fine:?}");
}

/// Without any deadline in the driver, a cut cable or a dead board still ends every rank in a
/// typed error in bounded time (issue 16 item 6): a board whose nacks go unanswered
/// `NACK_LIMIT` times (8) answers its ranks' next retransmission `timeout` and stops answering
/// nacks itself, so the boards waiting on it follow; a dead board's own rank hears nothing
/// (`unreachable`). Never a result, never a hang.
#[test]
fn without_a_deadline_a_dead_partner_still_ends_every_rank_in_a_typed_error() {
    let timed_out = |o: &Result<Vec<u8>, DriverError>| {
        matches!(
            o,
            Err(DriverError::Refused {
                code: ErrorCode::Timeout,
                ..
            })
        )
    };
    let (cut, cycles) = allreduce_after_with(|c| c.cut_cable(1, 1), None);
    eprintln!("cable cut, no deadline: every rank ended after {cycles} cycles");
    for (rank, o) in cut.iter().enumerate() {
        assert!(timed_out(o), "cable cut, rank {rank}: {o:?}");
    }
    let (dead, cycles) = allreduce_after_with(|c| c.kill_board(2), None);
    eprintln!("dead board, no deadline: every rank ended after {cycles} cycles");
    for (rank, o) in dead.iter().enumerate() {
        if rank == 2 {
            assert!(
                matches!(o, Err(DriverError::Unreachable { .. })),
                "dead board, its rank: {o:?}"
            );
        } else {
            assert!(timed_out(o), "dead board, rank {rank}: {o:?}");
        }
    }
}

/// A replay of an operation completed 1,000 operations earlier is recognised (the long
/// history, `hdl/src/key_history.rs`) and answered `stale`: it is not run again. (The eight
/// recent keys alone would have forgotten it and run it a second time.)
#[test]
fn a_replay_of_an_operation_completed_1000_operations_earlier_is_not_run_again() {
    let mut c = cluster(1, 64);
    // The long history sweeps its RAMs for 512 clocks after reset and keeps no key meanwhile
    // (the eight recent keys do): begin after it.
    for _ in 0..600 {
        c.step();
    }
    for op_id in 1..=1001u16 {
        let answers = exchange(&mut c, 0, 0, &request(0, 1, 1, ReduceOp::Sum, op_id), 60);
        assert_eq!(answers.len(), 1, "op {op_id}");
        assert_eq!(answers[0].0.msg_type, MessageType::Response, "op {op_id}");
    }
    let replay = OffloadRepr {
        attempt: 1,
        ..request(0, 1, 1, ReduceOp::Sum, 1)
    };
    let answers = exchange(&mut c, 0, 0, &replay, 300);
    assert_eq!(error_code(&answers), ErrorCode::Stale);
    let counters = c.counters(0);
    assert_eq!(counters.get("retired"), 1001, "nothing ran again");
    assert_eq!(counters.get("duplicates"), 1);
}

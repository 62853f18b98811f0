//! `collwire serve` under the load real MPI jobs put on it, every result compared bit for bit
//! with the golden model on distinct data per rank:
//!
//! * two 4-rank jobs (separate `collwire rank` processes) at once, and 8 communicators with a
//!   non-blocking collective outstanding on each at once: every answer reaches exactly the
//!   socket that asked;
//! * an oversize datagram is answered `too-large` by serve and never reaches a board; the next
//!   collective works;
//! * 10 incomplete operations (a missing rank, fail-fast deadline) abort their segments through
//!   serve, and a full job works afterwards (every board hosts a rank that aborts);
//! * the contexts of 10 jobs killed mid-collective (no abort) are reclaimed by the boards
//!   (`--reclaim-s`), and a full job works afterwards;
//! * with default settings a rank 15 s late completes, and so does a 20,000-element allreduce;
//! * a request lost on serve's host side (`--loss-in`) is recovered by retransmission;
//! * serve refuses to start with parameters the boards cannot run, naming the limit.

use std::net::UdpSocket;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use collwire_driver::element::to_bytes;
use collwire_driver::{BoardMap, DriverError, OffloadComm, Request, UdpTransport};
use collwire_proto::wire::ErrorRecord;
use collwire_proto::{
    Algorithm, Collective, Datatype, ErrorCode, Layout, MessageType, OffloadRepr, ReduceOp, limits,
};
use collwire_testbench::golden::{Spec, expected};

mod common;
use common::{Service, counter, counters_named, exe};

/// Distinct values on every rank of every job, over many binades (the order of sums shows).
fn input(job: usize, rank: usize, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            ((job * 7919 + rank * 131 + i) as f64 * 0.377).sin() * 2f64.powi((i % 29) as i32 - 14)
        })
        .collect()
}

/// What every rank of a `size`-rank ring f64 sum allreduce must get, as bytes.
fn golden(inputs: &[Vec<f64>], rph: u8) -> Vec<Vec<u8>> {
    let spec = Spec {
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        layout: Layout::new(inputs.len() as u16, rph).unwrap(),
        root: 0,
    };
    expected(
        &spec,
        &inputs.iter().map(|v| to_bytes(v)).collect::<Vec<_>>(),
    )
    .unwrap()
    .into_iter()
    .map(Option::unwrap)
    .collect()
}

fn open(map: &Path, rank: usize, size: usize, comm_id: u16) -> OffloadComm<UdpTransport> {
    BoardMap::from_file(map)
        .unwrap()
        .open(rank, size, comm_id)
        .unwrap()
}

/// Runs `f(rank, comm)` for every rank of a `size`-rank communicator in its own thread, with a
/// 120 s fail-fast deadline so a broken serve fails the test instead of hanging it (unless
/// `mpi_like`: then the defaults, no deadline).
fn ranks<R: Send>(
    map: &Path,
    size: usize,
    comm_id: u16,
    mpi_like: bool,
    f: impl Fn(usize, &mut OffloadComm<UdpTransport>) -> R + Sync,
) -> Vec<R> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..size)
            .map(|r| {
                let f = &f;
                s.spawn(move || {
                    let mut comm = open(map, r, size, comm_id);
                    if !mpi_like {
                        comm.set_timeout(Some(Duration::from_secs(120)));
                    }
                    f(r, &mut comm)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// A blocking allreduce of `inputs[rank]`; the result bytes.
fn allreduce(comm: &mut OffloadComm<UdpTransport>, send: &[f64]) -> Result<Vec<u8>, DriverError> {
    let mut out = vec![0.0; send.len()];
    comm.allreduce(send, &mut out, ReduceOp::Sum)?;
    Ok(to_bytes(&out))
}

fn rank_process(map: &Path, rank: usize, size: usize, comm_id: u16, values: &[f64]) -> Child {
    let values: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    Command::new(exe())
        .args(["rank", "--map"])
        .arg(map)
        .args(["--rank", &rank.to_string(), "--size", &size.to_string()])
        .args(["--comm-id", &comm_id.to_string(), "--repeat", "2"])
        .args(["--datatype", "f64", "--op", "sum"])
        .arg(format!("--values={}", values.join(",")))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn bits_of(out: &serde_json::Value) -> Vec<u8> {
    out["bits"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| {
            u64::from_str_radix(b.as_str().unwrap(), 16)
                .unwrap()
                .to_le_bytes()
        })
        .collect()
}

fn serve(dir: &Path, args: &[&str]) -> Service {
    Service::start(&dir.join("map.toml"), args)
}

#[test]
fn two_jobs_and_eight_communicators_share_one_serve() {
    let dir = tempfile::tempdir().unwrap();
    let service = serve(dir.path(), &["--boards", "4"]);
    // Two 4-rank jobs of separate processes at once, each on its own communicator id.
    let inputs: Vec<Vec<Vec<f64>>> = (0..2)
        .map(|job| (0..4).map(|r| input(job, r, 6)).collect())
        .collect();
    let children: Vec<(usize, Child)> = (0..2)
        .flat_map(|job| (0..4).map(move |r| (job, r)))
        .map(|(job, r)| {
            let child = rank_process(&service.map, r, 4, 100 + job as u16, &inputs[job][r]);
            (job, child)
        })
        .collect();
    for (job, child) in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "job {job}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let r = json["rank"].as_u64().unwrap() as usize;
        assert_eq!(
            bits_of(&json),
            golden(&inputs[job], 1)[r],
            "job {job} rank {r}"
        );
    }

    // Eight communicators per rank (each its own socket), a non-blocking allreduce
    // outstanding on every one at once, completed in reverse order.
    const COMMS: usize = 8;
    let data = |c: usize, r: usize| input(10 + c, r, 3 + c);
    let results = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|r| {
                let map = &service.map;
                s.spawn(move || {
                    let mut comms: Vec<OffloadComm<UdpTransport>> = (0..COMMS)
                        .map(|c| {
                            let mut comm = open(map, r, 4, 200 + c as u16);
                            comm.set_timeout(Some(Duration::from_secs(120)));
                            comm
                        })
                        .collect();
                    let posted: Vec<Request> = comms
                        .iter_mut()
                        .enumerate()
                        .map(|(c, comm)| comm.iallreduce(&data(c, r), ReduceOp::Sum).unwrap())
                        .collect();
                    let mut got: Vec<Vec<u8>> = vec![Vec::new(); COMMS];
                    for (c, req) in posted.into_iter().enumerate().rev() {
                        got[c] = comms[c].wait_bytes(req).unwrap();
                    }
                    got
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    for c in 0..COMMS {
        let want = golden(&(0..4).map(|r| data(c, r)).collect::<Vec<_>>(), 1);
        for (r, got) in results.iter().enumerate() {
            assert_eq!(got[c], want[r], "communicator {c} rank {r}");
        }
    }
    let (status, stdout, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
    assert_eq!(counter(&stdout, "undeliverable"), 0, "{stdout}\n{stderr}");
    // 8 job processes + 4 ranks × 8 communicators, each its own endpoint.
    assert!(stdout.contains("40 host endpoints"), "{stdout}");
}

#[test]
fn an_oversize_datagram_is_answered_too_large_and_the_next_collective_works() {
    let dir = tempfile::tempdir().unwrap();
    let service = serve(dir.path(), &["--boards", "2"]);
    let map = BoardMap::from_file(&service.map).unwrap();
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    // A well-formed request one element over a board's buffer (2,041 f64: 16,350 bytes).
    let elements: u16 = 2041;
    let giant = OffloadRepr {
        msg_type: MessageType::Request,
        op_id: 0,
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        comm_id: 300,
        comm_size: 2,
        rank: 0,
        root: 0,
        ranks_per_host: 1,
        attempt: 0,
        seg_index: 0,
        seg_count: 1,
        elem_count: elements,
    };
    let datagram = giant
        .to_datagram(&vec![0x5a; usize::from(elements) * 8])
        .unwrap();
    assert!(datagram.len() > limits::MAX_DATAGRAM);
    sock.send_to(&datagram, &map.boards[0]).unwrap();
    let mut buf = [0u8; 2048];
    let n = sock
        .recv(&mut buf)
        .expect("serve answers an oversize datagram");
    let (repr, payload) = OffloadRepr::from_datagram(&buf[..n]).unwrap();
    assert_eq!(repr.msg_type, MessageType::Error);
    assert_eq!((repr.comm_id, repr.op_id, repr.rank), (300, 0, 0));
    let record = ErrorRecord::parse(payload).unwrap();
    assert_eq!(record.code, ErrorCode::TooLarge);
    assert_eq!(usize::from(record.detail), limits::MAX_DATAGRAM);
    // 64 KiB of garbage too: dropped as malformed.
    sock.send_to(&vec![0xc7; 65000], &map.boards[1]).unwrap();

    // The boards saw none of it: a collective right after works.
    let inputs: Vec<Vec<f64>> = (0..2).map(|r| input(3, r, 40)).collect();
    let want = golden(&inputs, 1);
    let got = ranks(&service.map, 2, 301, false, |r, c| {
        allreduce(c, &inputs[r]).unwrap()
    });
    assert_eq!(got, want);
    let (status, stdout, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
    assert_eq!(
        counter(&stdout, "too-large answered by serve"),
        1,
        "{stdout}"
    );
    assert_eq!(counter(&stdout, "malformed"), 1, "{stdout}");
    assert_eq!(
        counters_named(&stdout, "errors"),
        [0, 0],
        "no board saw a refusal: {stdout}"
    );
}

#[test]
fn incomplete_operations_abort_through_serve_and_a_full_job_works_after() {
    let dir = tempfile::tempdir().unwrap();
    let service = serve(dir.path(), &["--boards", "4", "--ranks-per-host", "2"]);
    // 8 ranks, 2 per board; rank 7 never calls. 10 operations (more than a board's 8
    // contexts) time out on ranks 0..6 under an opt-in deadline, and each rank sends its
    // board an abort for the segment. Every board hosts a rank that aborts, so every board's
    // context is freed. (A board whose every rank is missing keeps the contexts that its
    // peers' partials opened: freeing those needs the board-side reclaim of issue 16.)
    const LOST: usize = 10;
    let outcomes = std::thread::scope(|s| {
        let handles: Vec<_> = (0..7)
            .map(|r| {
                let map = &service.map;
                s.spawn(move || {
                    let mut comm = open(map, r, 8, 400);
                    comm.set_timeout(Some(Duration::from_millis(300)));
                    let errors: Vec<DriverError> = (0..LOST)
                        .map(|_| allreduce(&mut comm, &[r as f64]).unwrap_err())
                        .collect();
                    (errors, comm.stats().aborts_sent)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    for (r, (errors, aborts)) in outcomes.iter().enumerate() {
        assert!(
            errors
                .iter()
                .all(|e| matches!(e, DriverError::Timeout { .. })),
            "rank {r}: {errors:?}"
        );
        assert_eq!(*aborts, LOST as u64, "rank {r}");
    }
    // A full job on the same boards (a new communicator id): every rank right.
    let inputs: Vec<Vec<f64>> = (0..8).map(|r| input(4, r, 300)).collect();
    let want = golden(&inputs, 2);
    let got = ranks(&service.map, 8, 401, false, |r, c| {
        allreduce(c, &inputs[r]).unwrap()
    });
    assert_eq!(got, want);
    let (status, stdout, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
    assert_eq!(counter(&stdout, "aborts in"), 7 * LOST as u64, "{stdout}");
}

#[test]
fn contexts_of_jobs_killed_mid_collective_are_reclaimed_and_a_full_job_works_after() {
    let dir = tempfile::tempdir().unwrap();
    let service = serve(dir.path(), &["--boards", "4", "--reclaim-s", "3"]);
    // 10 jobs of 4 ranks whose rank 3 never comes; ranks 0..2 (separate processes, MPI-like
    // waiting: no deadline, so no abort is ever sent) post and are killed. More jobs than a
    // board has contexts: without reclaim the boards would stay full for good.
    const KILLED: usize = 10;
    let mut children: Vec<Child> = (0..KILLED)
        .flat_map(|j| {
            let map = &service.map;
            (0..3).map(move |r| rank_process(map, r, 4, 600 + j as u16, &input(j, r, 8)))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    for c in &mut children {
        c.kill().unwrap();
        c.wait().unwrap();
    }
    // Past the reclaim time (3 s, counted in 100 ms ticks) with no retransmission refreshing
    // the segments, the boards free them by themselves.
    std::thread::sleep(Duration::from_millis(4500));
    let inputs: Vec<Vec<f64>> = (0..4).map(|r| input(7, r, 300)).collect();
    let want = golden(&inputs, 1);
    let got = ranks(&service.map, 4, 700, false, |r, c| {
        allreduce(c, &inputs[r]).unwrap()
    });
    assert_eq!(got, want);
    let (status, stdout, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
    assert_eq!(counter(&stdout, "aborts in"), 0, "{stdout}");
    let reclaimed: u64 = counters_named(&stdout, "reclaimed").iter().sum();
    assert!(reclaimed >= 8, "{stdout}");
}

#[test]
fn with_default_settings_a_rank_15_s_late_completes() {
    let dir = tempfile::tempdir().unwrap();
    let service = serve(dir.path(), &["--boards", "4"]);
    let inputs: Vec<Vec<f64>> = (0..4).map(|r| input(5, r, 9)).collect();
    let want = golden(&inputs, 1);
    let started = Instant::now();
    let got = ranks(&service.map, 4, 500, true, |r, c| {
        if r == 3 {
            std::thread::sleep(Duration::from_secs(15));
        }
        (allreduce(c, &inputs[r]).unwrap(), c.stats())
    });
    assert!(started.elapsed() >= Duration::from_secs(15));
    for (r, (bytes, stats)) in got.iter().enumerate() {
        assert_eq!(bytes, &want[r], "rank {r}");
        if r < 3 {
            // The early ranks' retransmissions were acked: the board held them, alive.
            assert!(stats.acks >= 1, "rank {r}: {stats:?}");
        }
    }
    let (status, _, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn with_default_settings_a_20000_element_allreduce_completes() {
    let dir = tempfile::tempdir().unwrap();
    let service = serve(dir.path(), &["--boards", "2"]);
    let inputs: Vec<Vec<f64>> = (0..2).map(|r| input(6, r, 20_000)).collect();
    let want = golden(&inputs, 1);
    let got = ranks(&service.map, 2, 600, true, |r, c| {
        assert_eq!(c.timeout(), None);
        allreduce(c, &inputs[r]).unwrap()
    });
    assert_eq!(got, want);
    let (status, _, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
}

#[test]
fn requests_lost_on_the_host_side_are_recovered_by_retransmission() {
    let dir = tempfile::tempdir().unwrap();
    let service = serve(
        dir.path(),
        &["--boards", "4", "--loss-in", "0.25", "--fault-seed", "7"],
    );
    let inputs: Vec<Vec<f64>> = (0..4).map(|r| input(7, r, 400)).collect();
    let want = golden(&inputs, 1);
    let got = ranks(&service.map, 4, 700, false, |r, c| {
        let results: Vec<Vec<u8>> = (0..5).map(|_| allreduce(c, &inputs[r]).unwrap()).collect();
        (results, c.stats().retransmitted)
    });
    let mut retransmitted = 0;
    for (r, (results, resent)) in got.iter().enumerate() {
        for bytes in results {
            assert_eq!(bytes, &want[r], "rank {r}");
        }
        retransmitted += resent;
    }
    let (status, stdout, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
    let lost = counter(&stdout, "injected loss in");
    assert!(lost >= 1, "{stdout}");
    assert!(retransmitted >= lost, "{retransmitted} resent, {lost} lost");
}

/// Frames on the simulated host links lost, duplicated, reordered and corrupted on their way
/// to the boards, duplicated and reordered on their way back: the boards drop the duplicates
/// and the corrupted frames, the ranks retransmit what was lost, and every result is exact.
#[test]
fn frames_lost_duplicated_reordered_and_corrupted_on_host_links_leave_every_result_exact() {
    let dir = tempfile::tempdir().unwrap();
    let service = serve(
        dir.path(),
        &[
            "--boards",
            "4",
            "--host-faults-in",
            "drop=0.05,duplicate=0.1,reorder=0.1,corrupt=0.05",
            "--host-faults-out",
            "duplicate=0.1,reorder=0.1",
            "--fault-seed",
            "3",
        ],
    );
    let inputs: Vec<Vec<f64>> = (0..4).map(|r| input(11, r, 400)).collect();
    let want = golden(&inputs, 1);
    let got = ranks(&service.map, 4, 700, false, |r, c| {
        (0..8)
            .map(|_| allreduce(c, &inputs[r]).unwrap())
            .collect::<Vec<_>>()
    });
    for (r, results) in got.iter().enumerate() {
        for bytes in results {
            assert_eq!(bytes, &want[r], "rank {r}");
        }
    }
    let (status, stdout, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
    for fault in ["dropped", "duplicated", "reordered", "corrupted"] {
        let n = counter(&stdout, &format!("link frames {fault}"));
        assert!(n >= 1, "no frame {fault}: {stdout}");
    }
}

#[test]
fn serve_refuses_what_the_boards_cannot_run_and_names_the_limit() {
    for (args, limit) in [
        (&["--ranks-per-host", "4"][..], "ranks per host 4"),
        (&["--mtu", "9000"][..], "MTU 9000"),
        (&["--boards", "65"][..], "boards"),
        (&["--reclaim-s", "1"][..], "retransmission interval"),
        (&["--reclaim-s", "7000"][..], "16 bits"),
    ] {
        let out = Command::new(exe())
            .arg("serve")
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} accepted");
        assert!(stderr.contains(limit), "{args:?}: {stderr}");
    }
}

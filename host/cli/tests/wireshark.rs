//! Packet captures and the Wireshark dissector, checked with `tshark` (installed by
//! `scripts/setup`):
//!
//! * the committed dissector `wireshark/collwire.lua` is exactly what `collwire-proto`
//!   generates (it cannot drift from the protocol);
//! * `tshark` with it decodes the committed sample capture `wireshark/sample.pcapng` and a
//!   capture this test takes of a simulated cluster (every message type the boards and hosts
//!   send), and every field it shows, every element included, equals what
//!   `OffloadRepr::parse` reads from the same bytes;
//! * `collwire cluster --pcap` writes a capture `tshark` reads.
//!
//! `COLLWIRE_WRITE_SAMPLE=1 cargo test -p collwire --test wireshark` rewrites the sample from
//! the same scenario.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use collwire_driver::Call;
use collwire_proto::wire::ErrorRecord;
use collwire_proto::{
    Algorithm, Collective, Datatype, ErrorCode, MessageType, OffloadRepr, ReduceOp,
};
use collwire_sim::capture::{CaptureClock, read_capture};
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::collective::{Job, run_jobs};
use collwire_sim::hosts::{rank_frame, udp_datagram};
use collwire_testbench::golden::{Spec, expected};

mod common;
use common::tshark::{check_capture, dissector};
use common::{collwire, repo};

fn sample() -> PathBuf {
    repo().join("wireshark/sample.pcapng")
}

#[test]
fn the_committed_dissector_is_the_generated_one() {
    let committed = std::fs::read_to_string(dissector()).expect("wireshark/collwire.lua");
    assert!(
        committed == collwire_proto::wireshark::lua_dissector(),
        "wireshark/collwire.lua differs from what collwire-proto generates; regenerate it: \
         cargo run -p collwire -- dissector --out wireshark/collwire.lua"
    );
}

/// Distinct data on every rank: `n` elements of `d` from `seed`.
fn data(d: Datatype, n: usize, seed: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| {
            let x = ((seed * 7919 + i * 131) as f64 * 0.377).sin();
            match d {
                Datatype::F64 => (x * 1000.0).to_le_bytes().to_vec(),
                Datatype::F32 => ((x * 1000.0) as f32).to_le_bytes().to_vec(),
                Datatype::Int32 => ((x * 1e6) as i32).to_le_bytes().to_vec(),
                Datatype::Uint32 => ((x.abs() * 1e6) as u32).to_le_bytes().to_vec(),
                Datatype::Int64 => ((x * 1e15) as i64).to_le_bytes().to_vec(),
                Datatype::Uint64 => ((x.abs() * 1e15) as u64).to_le_bytes().to_vec(),
                _ => unreachable!(),
            }
        })
        .collect()
}

/// A 4-board capture with every message type the boards and hosts send: three concurrent jobs
/// (a two-segment f64 allreduce, an int32 reduce, a uint64 scan), a request for a reserved
/// collective (answered `error`), a retransmitted request for an open segment (answered
/// `ack`) and its abort. The jobs' answers are checked against the golden model.
fn capture_scenario(path: &Path) {
    let config = ClusterConfig {
        boards: 4,
        width: 64,
        link_latency: 4,
        topology: Topology::Ring,
    };
    let mut cluster = Cluster::new(config).unwrap();
    cluster
        .capture_pcap(path, CaptureClock::simulated(64))
        .unwrap();
    let layout = collwire_proto::Layout::new(4, 1).unwrap();
    let jobs: Vec<Job> = [
        (
            Collective::Allreduce,
            Algorithm::Ring,
            Datatype::F64,
            ReduceOp::Sum,
            200,
            0,
        ),
        (
            Collective::Reduce,
            Algorithm::Tree,
            Datatype::Int32,
            ReduceOp::Max,
            12,
            2,
        ),
        (
            Collective::Scan,
            Algorithm::RecursiveDoubling,
            Datatype::Uint64,
            ReduceOp::Bxor,
            5,
            0,
        ),
    ]
    .iter()
    .enumerate()
    .map(
        |(j, &(collective, algorithm, datatype, op, elements, root))| Job {
            call: Call {
                collective,
                algorithm,
                datatype,
                op,
                root,
                elements,
                op_id: 1 + j as u16,
            },
            comm_id: 1 + j as u16,
            ranks_per_host: 1,
            inputs: (0..4)
                .map(|r| data(datatype, elements, 10 * j + r))
                .collect(),
        },
    )
    .collect();
    let results = run_jobs(&mut cluster, &jobs, 1500, 5_000_000).unwrap();
    for (job, result) in jobs.iter().zip(&results) {
        let spec = Spec {
            collective: job.call.collective,
            algorithm: job.call.algorithm,
            datatype: job.call.datatype,
            op: job.call.op,
            layout,
            root: job.call.root,
        };
        let golden = expected(&spec, &job.inputs).unwrap();
        for (got, want) in result.outcomes.iter().zip(&golden) {
            assert_eq!(got.as_ref().unwrap(), want.as_deref().unwrap_or(&[]));
        }
    }
    // Hand-made requests from board 1's rank.
    let request = |collective, attempt, msg_type| OffloadRepr {
        msg_type,
        op_id: 40,
        collective,
        algorithm: Algorithm::Ring,
        datatype: Datatype::Int64,
        op: ReduceOp::Sum,
        comm_id: 9,
        comm_size: 4,
        rank: 1,
        root: 0,
        ranks_per_host: 1,
        attempt,
        seg_index: 0,
        seg_count: 1,
        elem_count: if msg_type == MessageType::Request {
            2
        } else {
            0
        },
    };
    let send = |cluster: &mut Cluster, repr: OffloadRepr| {
        let payload = vec![0x5a; repr.payload_len()];
        let datagram = repr.to_datagram(&payload).unwrap();
        cluster.host_send(1, &rank_frame(1, 0, &datagram));
        cluster.run_until(20_000, |c| c.at_rest()).unwrap();
    };
    send(
        &mut cluster,
        request(Collective::Bcast, 0, MessageType::Request),
    );
    send(
        &mut cluster,
        request(Collective::Allreduce, 0, MessageType::Request),
    );
    send(
        &mut cluster,
        request(Collective::Allreduce, 1, MessageType::Request),
    );
    send(
        &mut cluster,
        request(Collective::Allreduce, 0, MessageType::Abort),
    );
    let answers: Vec<MessageType> = cluster
        .host_take(1)
        .iter()
        .filter_map(|r| {
            let (_, d) = udp_datagram(&r.frame)?;
            let (repr, payload) = OffloadRepr::from_datagram(d).ok()?;
            if repr.msg_type == MessageType::Error {
                assert_eq!(
                    ErrorRecord::parse(payload).unwrap().code,
                    ErrorCode::Unsupported
                );
            }
            (repr.comm_id == 9).then_some(repr.msg_type)
        })
        .collect();
    assert_eq!(answers, [MessageType::Error, MessageType::Ack]);
    let frames = cluster.finish_capture().unwrap();
    assert!(frames > 40, "{frames} frames captured");
}

#[test]
fn tshark_decodes_a_fresh_capture_field_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fresh.pcapng");
    capture_scenario(&path);
    let types = check_capture(&path);
    // The retransmission of rank 1's request makes its board nack the board it waits for,
    // which answers `pending` (its rank never came): every message type is on the wire.
    let want: BTreeSet<MessageType> = MessageType::ALL.iter().copied().collect();
    assert_eq!(types, want, "every message type");
    if std::env::var_os("COLLWIRE_WRITE_SAMPLE").is_some() {
        std::fs::copy(&path, sample()).unwrap();
    }
}

#[test]
fn tshark_decodes_the_committed_sample_capture() {
    let types = check_capture(&sample());
    assert!(
        types.len() == MessageType::ALL.len(),
        "the sample has every message type: {types:?}"
    );
}

#[test]
fn collwire_cluster_writes_a_capture_tshark_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cluster.pcapng");
    let stdout = collwire(&[
        "cluster".as_ref(),
        "--boards".as_ref(),
        "3".as_ref(),
        "--elements".as_ref(),
        "200".as_ref(),
        "--pcap".as_ref(),
        path.as_os_str(),
    ]);
    let frames = read_capture(&path).unwrap();
    // At least 3 ranks × 2 segments of requests and as many responses.
    assert!(frames.len() >= 12, "{} frames", frames.len());
    assert!(
        stdout.contains(&format!("capture: {} frames", frames.len())),
        "{stdout}"
    );
    // Simulated time: whole cycles of the 125 MHz clock.
    assert!(frames.iter().all(|f| f.timestamp.as_nanos() % 8 == 0));
    let types = check_capture(&path);
    assert!(types.contains(&MessageType::Partial) && types.contains(&MessageType::Response));
}

#[test]
fn a_frame_marked_bad_is_captured_with_the_crc_error_flag_and_dropped_by_the_board() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.pcapng");
    let mut cluster = Cluster::new(ClusterConfig {
        boards: 2,
        width: 64,
        link_latency: 4,
        topology: Topology::Ring,
    })
    .unwrap();
    cluster
        .capture_pcap(&path, CaptureClock::simulated(64))
        .unwrap();
    let datagram = OffloadRepr {
        msg_type: MessageType::Request,
        op_id: 5,
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::Int32,
        op: ReduceOp::Sum,
        comm_id: 3,
        comm_size: 2,
        rank: 0,
        root: 0,
        ranks_per_host: 1,
        attempt: 0,
        seg_index: 0,
        seg_count: 1,
        elem_count: 1,
    }
    .to_datagram(&7i32.to_le_bytes())
    .unwrap();
    cluster.inject_marked(0, 2, &rank_frame(0, 0, &datagram), true);
    cluster.run_until(10_000, |c| c.at_rest()).unwrap();
    assert_eq!(cluster.counters(0).get("bad_frame_drops"), 1);
    let written = cluster.finish_capture().unwrap();
    let frames = read_capture(&path).unwrap();
    assert_eq!(frames.len() as u64, written);
    assert_eq!(frames[0].interface, "b0p2-in");
    assert!(frames[0].bad, "the CRC-error flag");
    // The engine took the request as it streamed in (cut-through) and sent its partial on
    // before the tail was known: that frame leaves with its last beat marked bad, captured
    // with the flag too, and board 1 drops it.
    let rest: Vec<(&str, bool)> = frames[1..]
        .iter()
        .map(|f| (f.interface.as_str(), f.bad))
        .collect();
    assert_eq!(rest, [("b0p1", true)]);
    cluster.run_until(10_000, |c| c.at_rest()).unwrap();
    assert_eq!(cluster.counters(1).get("bad_frame_drops"), 1);
    // tshark still shows its fields (the flag is the capture's, not the frame's).
    check_capture(&path);
}

//! The second simulator on the whole board: a collective runs on a cluster of Verilated boards
//! (every rank's answer checked against the golden model), board 0's pins are recorded cycle
//! by cycle, the recording is replayed in Icarus Verilog on the same emitted Verilog, and the two
//! simulators must agree on every output of every cycle (`collwire_sim::icarus`): configuration,
//! reset, the requests, the partials between boards and the answers.
//!
//! Event-driven simulators re-run an always-block whenever a signal it reads changes; a pair of
//! blocks that assign each other's inputs with a default and then an override never leave time
//! 0 (issue 14). These tests are the proof they do not.

mod common;

use collwire_hdl::cfe::cfg;
use collwire_proto::{Algorithm, Collective, Datatype, ReduceOp};
use collwire_sim::board::stat_names;
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::icarus::{Cycle, IcarusError, Log, Recording, compare, replay};

use common::{Case, interrupt, run_checked};

struct Run {
    cycles: Vec<Cycle>,
    module: &'static str,
    verilog: &'static str,
    ports: usize,
    bytes: usize,
}

/// Runs `case` on `boards` boards of `width` bits, board 0 recorded; checks the answers. With
/// `reset_after`, an allreduce is first interrupted that many cycles in by a reset, and the
/// cluster reconfigured.
fn record(width: usize, boards: usize, case: &Case, reset_after: Option<u64>) -> Run {
    let log: Log = Default::default();
    let mut meta = None;
    let config = ClusterConfig {
        boards,
        width,
        link_latency: 4,
        topology: Topology::Ring,
    };
    let mut cluster = Cluster::new_wrapped(config, |b, model| {
        if b == 0 {
            meta = Some((model.verilog(), model.ports(), model.bytes()));
            Box::new(Recording::new(model, log.clone()))
        } else {
            model
        }
    })
    .unwrap();
    if let Some(cycles) = reset_after {
        interrupt(&mut cluster, case.rph, cycles);
        cluster.reset_boards(1);
        cluster.reconfigure();
    }
    run_checked(&mut cluster, case).unwrap();
    // A few idle cycles after the last answer: nothing may move in either simulator.
    for _ in 0..16 {
        cluster.step();
    }
    // Every statistics counter of board 0 read over the configuration port, a clock each, so
    // both simulators must agree on them too.
    let counters = cluster.counters(0);
    assert!(counters.get("stored") > 0, "{counters}");
    for i in 0..stat_names().len() {
        cluster.set_cfg(0, false, cfg::STATS + i as u16, 0);
        cluster.step();
    }
    drop(cluster);
    let ((module, verilog), ports, bytes) = meta.unwrap();
    let cycles = std::mem::take(&mut *log.lock().unwrap());
    let read: Vec<u64> = cycles[cycles.len() - stat_names().len()..]
        .iter()
        .map(|c| c.outputs.cfg_rdata)
        .collect();
    assert_eq!(
        read,
        counters.iter().map(|(_, v)| v).collect::<Vec<_>>(),
        "the counters read in clocked cycles are the ones read without a clock"
    );
    Run {
        cycles,
        module,
        verilog,
        ports,
        bytes,
    }
}

fn work_dir(what: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("collwire-icarus-{what}-{}", std::process::id()))
}

/// Replays `run` in Icarus; Verilator and Icarus must agree on every cycle.
fn agrees(what: &str, run: &Run) -> Vec<String> {
    let dir = work_dir(what);
    let lines = replay(
        &dir,
        run.module,
        run.verilog,
        run.ports,
        run.bytes,
        &run.cycles,
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    compare(&run.cycles, &lines, run.ports, run.bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    let beats: usize = run
        .cycles
        .iter()
        .map(|c| c.outputs.beats.iter().flatten().count())
        .sum();
    println!(
        "{what}: {} cycles, {beats} output beats, Verilator and Icarus agree on every one",
        run.cycles.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
    lines
}

#[test]
fn board64_allreduce_agrees_with_icarus() {
    let run = record(
        64,
        3,
        &Case {
            rph: 2,
            collective: Collective::Allreduce,
            algorithm: Algorithm::Ring,
            datatype: Datatype::F64,
            op: ReduceOp::Sum,
            elements: 40,
            op_id: 7,
        },
        None,
    );
    let lines = agrees("board64", &run);

    // The comparison can fail: one flipped output byte of one beat, or a beat that Icarus did
    // not send, is reported at its cycle.
    let (at, port) = run
        .cycles
        .iter()
        .enumerate()
        .rev()
        .find_map(|(n, c)| {
            c.outputs
                .beats
                .iter()
                .position(Option::is_some)
                .map(|p| (n, p))
        })
        .expect("board 0 sent beats");
    let mut wrong = run.cycles.clone();
    wrong[at].outputs.beats[port].as_mut().unwrap().0[3] ^= 0x10;
    match compare(&wrong, &lines, run.ports, run.bytes) {
        Err(IcarusError::Mismatch { cycle, .. }) => assert_eq!(cycle, at),
        other => panic!("a flipped byte was not reported: {other:?}"),
    }
    let mut wrong = run.cycles.clone();
    wrong[at].outputs.beats[port] = None;
    assert!(compare(&wrong, &lines, run.ports, run.bytes).is_err());
    assert!(matches!(
        compare(&run.cycles, &lines[..lines.len() - 1], run.ports, run.bytes),
        Err(IcarusError::Short { .. })
    ));
}

#[test]
fn board256_reduce_agrees_with_icarus() {
    let run = record(
        256,
        2,
        &Case {
            rph: 1,
            collective: Collective::Reduce,
            algorithm: Algorithm::Tree,
            datatype: Datatype::Int32,
            op: ReduceOp::Max,
            elements: 100,
            op_id: 7,
        },
        None,
    );
    agrees("board256", &run);
}

/// Reset in the middle of an allreduce, reconfiguration, a new collective: Icarus agrees
/// through all of it (no block keeps a value only one simulator knows).
#[test]
fn board64_reset_mid_traffic_agrees_with_icarus() {
    let run = record(
        64,
        2,
        &Case {
            rph: 1,
            collective: Collective::Scan,
            algorithm: Algorithm::Ring,
            datatype: Datatype::Int64,
            op: ReduceOp::Sum,
            elements: 20,
            op_id: 8,
        },
        Some(800),
    );
    agrees("board64-reset", &run);
}

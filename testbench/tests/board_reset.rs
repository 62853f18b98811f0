//! `reset` returns every block of a board to its power-on state, at any moment.
//!
//! A cluster is reset in the middle of a large allreduce (frames in every queue, contexts
//! open, the CIPE pipeline busy), reconfigured, and must then run a sample of the golden
//! matrix correctly. Stronger: board 0 of the reset cluster must then behave, cycle for cycle
//! and output for output, exactly as board 0 of a cluster fresh from power-on running the same
//! traffic (`collwire_sim::icarus::Recording` logs both).

mod common;

use collwire_proto::{Algorithm, Collective, Datatype, ReduceOp};
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::icarus::{Log, Recording};

use common::{Case, MTU, interrupt, run_checked};

fn config(width: usize, boards: usize) -> ClusterConfig {
    ClusterConfig {
        boards,
        width,
        link_latency: 4,
        topology: Topology::Ring,
    }
}

/// A cluster whose board 0 logs its pins.
fn recorded(width: usize, boards: usize) -> (Cluster, Log) {
    let log: Log = Default::default();
    let cluster = Cluster::new_wrapped(config(width, boards), |b, model| {
        if b == 0 {
            Box::new(Recording::new(model, log.clone()))
        } else {
            model
        }
    })
    .unwrap();
    (cluster, log)
}

/// The golden-matrix sample run after the reset: every collective, several algorithms,
/// datatypes and sizes.
fn sample(rph: u8) -> Vec<Case> {
    let full = collwire_proto::segment::max_elements_per_segment(Datatype::F32, MTU).unwrap();
    let case = |collective, algorithm, datatype, op, elements, op_id| Case {
        rph,
        collective,
        algorithm,
        datatype,
        op,
        elements,
        op_id,
    };
    vec![
        case(
            Collective::Allreduce,
            Algorithm::Ring,
            Datatype::F64,
            ReduceOp::Sum,
            300,
            1,
        ),
        case(
            Collective::Allreduce,
            Algorithm::Tree,
            Datatype::F32,
            ReduceOp::Sum,
            full + 7,
            2,
        ),
        case(
            Collective::Allreduce,
            Algorithm::RecursiveDoubling,
            Datatype::Int64,
            ReduceOp::Max,
            33,
            3,
        ),
        case(
            Collective::Reduce,
            Algorithm::Tree,
            Datatype::Uint32,
            ReduceOp::Bxor,
            1,
            4,
        ),
        case(
            Collective::Scan,
            Algorithm::Ring,
            Datatype::Int32,
            ReduceOp::Sum,
            64,
            5,
        ),
        case(
            Collective::Barrier,
            Algorithm::Tree,
            Datatype::Int32,
            ReduceOp::Sum,
            0,
            6,
        ),
    ]
}

#[test]
fn a_cluster_reset_mid_traffic_runs_the_golden_sample() {
    for (width, boards, rph, stop) in [(64, 4, 2, 1_500), (256, 3, 1, 450)] {
        let mut cluster = Cluster::new(config(width, boards)).unwrap();
        interrupt(&mut cluster, rph, stop);
        cluster.reset_boards(4);
        for b in 0..boards {
            let counters = cluster.counters(b);
            assert_eq!(
                counters.iter().count(),
                collwire_sim::board::stat_names().len()
            );
            assert!(
                counters.iter().all(|(_, v)| v == 0),
                "board {b}: counters after reset: {counters}"
            );
        }
        cluster.reconfigure();
        for case in sample(rph) {
            run_checked(&mut cluster, &case)
                .unwrap_or_else(|e| panic!("{width}-bit, after reset, {case:?}: {e}"));
        }
    }
}

/// Board 0 after a mid-traffic reset and reconfiguration is indistinguishable from board 0
/// after power-on: the same traffic gives the same outputs on every cycle.
#[test]
fn a_reset_board_behaves_as_one_fresh_from_power_on() {
    for (width, boards, rph, stop) in [(64, 3, 2, 700), (64, 3, 2, 2_500), (256, 2, 1, 350)] {
        let (mut fresh, fresh_log) = recorded(width, boards);
        let (mut reset, reset_log) = recorded(width, boards);
        interrupt(&mut reset, rph, stop);
        reset.reset_boards(1);
        reset.reconfigure();
        let from_fresh = fresh_log.lock().unwrap().len();
        let from_reset = reset_log.lock().unwrap().len();
        for case in sample(rph) {
            let a = run_checked(&mut fresh, &case).unwrap();
            let b = run_checked(&mut reset, &case).unwrap();
            assert_eq!(
                a.last_response - a.first_request,
                b.last_response - b.first_request,
                "{width}-bit, {case:?}: the reset cluster took a different number of cycles"
            );
        }
        let fresh_log = fresh_log.lock().unwrap();
        let reset_log = reset_log.lock().unwrap();
        let (a, b) = (&fresh_log[from_fresh..], &reset_log[from_reset..]);
        assert_eq!(a.len(), b.len());
        for (n, (a, b)) in a.iter().zip(b).enumerate() {
            assert_eq!(
                a.outputs, b.outputs,
                "{width}-bit, reset {stop} cycles into an allreduce: board 0 differs from a \
                 fresh board {n} cycles after configuration"
            );
        }
    }
}

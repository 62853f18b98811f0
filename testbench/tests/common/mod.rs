//! What several cluster tests share: one collective with distinct data on every rank, run on a
//! simulated cluster and checked bit for bit against the golden model.
// Each test crate that includes this module uses a part of it.
#![allow(dead_code)]

use collwire_driver::Call;
use collwire_proto::{Algorithm, Collective, Datatype, Layout, ReduceOp};
use collwire_sim::cluster::{Cluster, ClusterError};
use collwire_sim::collective::{Job, JobResult, run_jobs};
use collwire_testbench::golden::{Spec, expected};

pub const MTU: usize = 1500;

/// One collective on a cluster.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub rph: u8,
    pub collective: Collective,
    pub algorithm: Algorithm,
    pub datatype: Datatype,
    pub op: ReduceOp,
    pub elements: usize,
    pub op_id: u16,
}

pub use collwire_testbench::distinct_input;

/// Runs `call` with `inputs` (one send buffer per rank, `rph` ranks per board) on `cluster`;
/// every rank's answer must equal the golden model's bit for bit.
pub fn run_golden(
    cluster: &mut Cluster,
    call: Call,
    comm_id: u16,
    rph: u8,
    inputs: Vec<Vec<u8>>,
    max_cycles: u64,
) -> Result<JobResult, String> {
    let spec = Spec {
        collective: call.collective,
        algorithm: call.algorithm,
        datatype: call.datatype,
        op: call.op,
        layout: Layout::new(inputs.len() as u16, rph).unwrap(),
        root: call.root,
    };
    let golden = expected(&spec, &inputs).map_err(|e| e.to_string())?;
    let job = Job {
        call,
        comm_id,
        ranks_per_host: rph,
        inputs,
    };
    let result = run_jobs(cluster, &[job], MTU, max_cycles)
        .map_err(|e| format!("{e}\n{}", cluster.summary()))?
        .remove(0);
    compare(&golden, &result.outcomes)?;
    Ok(result)
}

/// Every rank's answer against the golden model: the first rank that differs, and how much.
pub fn compare(
    golden: &[Option<Vec<u8>>],
    got: &[Result<Vec<u8>, collwire_driver::DriverError>],
) -> Result<(), String> {
    for (rank, (want, got)) in golden.iter().zip(got).enumerate() {
        let got = got.as_ref().map_err(|e| format!("rank {rank}: {e}"))?;
        let want = want.as_deref().unwrap_or(&[]);
        if got != want {
            let at = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(0);
            return Err(format!(
                "rank {rank}: {} bytes differ from the golden model, first at byte {at}",
                got.iter().zip(want).filter(|(a, b)| a != b).count()
                    + got.len().abs_diff(want.len())
            ));
        }
    }
    Ok(())
}

/// Runs `case` on every board of `cluster` (`rph` ranks per board, root 0, distinct data on
/// every rank), checked against the golden model.
pub fn run_checked(cluster: &mut Cluster, case: &Case) -> Result<JobResult, String> {
    let ranks = cluster.len() * usize::from(case.rph);
    let inputs = (0..ranks)
        .map(|r| distinct_input(case.datatype, r, case.elements))
        .collect();
    let call = Call {
        collective: case.collective,
        algorithm: case.algorithm,
        datatype: case.datatype,
        op: case.op,
        root: 0,
        elements: case.elements,
        op_id: case.op_id,
    };
    run_golden(cluster, call, 3, case.rph, inputs, 400_000)
}

/// Starts a 3-segment f64 allreduce on every board and stops it `cycles` clocks in.
pub fn interrupt(cluster: &mut Cluster, rph: u8, cycles: u64) {
    let ranks = cluster.len() * usize::from(rph);
    let elements =
        3 * collwire_proto::segment::max_elements_per_segment(Datatype::F64, MTU).unwrap() - 5;
    let job = Job {
        call: Call {
            collective: Collective::Allreduce,
            algorithm: Algorithm::Ring,
            datatype: Datatype::F64,
            op: ReduceOp::Sum,
            root: 0,
            elements,
            op_id: 900,
        },
        comm_id: 9,
        ranks_per_host: rph,
        inputs: (0..ranks)
            .map(|r| distinct_input(Datatype::F64, r, elements))
            .collect(),
    };
    match run_jobs(cluster, &[job], MTU, cycles) {
        Err(ClusterError::Timeout(_)) => {}
        other => panic!("the allreduce was to be interrupted, got {other:?}"),
    }
    let busy = (0..cluster.len()).any(|b| cluster.counters(b).get("stored") > 0);
    assert!(busy, "no board had stored anything: not mid-traffic");
}

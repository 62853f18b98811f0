//! Smoke tests of whole boards in the cluster simulator: small allreduces whose answers are
//! easy to compute by hand (the golden matrix is in testbench/tests/cluster_matrix.rs).

use collwire_driver::Call;
use collwire_proto::{Algorithm, Collective, Datatype, ReduceOp};
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::collective::{Job, run_jobs};

fn i32s(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn allreduce_sum(boards: usize, rph: u8, width: usize, alg: Algorithm) {
    let mut cluster = Cluster::new(ClusterConfig {
        boards,
        width,
        link_latency: 3,
        topology: Topology::Ring,
    })
    .unwrap();
    let size = boards * usize::from(rph);
    let inputs: Vec<Vec<u8>> = (0..size)
        .map(|r| i32s(&[r as i32 + 1, 100 * r as i32, -7, 1 << r]))
        .collect();
    let job = Job {
        call: Call {
            collective: Collective::Allreduce,
            algorithm: alg,
            datatype: Datatype::Int32,
            op: ReduceOp::Sum,
            root: 0,
            elements: 4,
            op_id: 9,
        },
        comm_id: 3,
        ranks_per_host: rph,
        inputs,
    };
    let r = run_jobs(&mut cluster, &[job], 1500, 20_000)
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.summary()));
    let s = size as i32;
    let want = i32s(&[s * (s + 1) / 2, 100 * s * (s - 1) / 2, -7 * s, (1 << s) - 1]);
    for (rank, o) in r[0].outcomes.iter().enumerate() {
        assert_eq!(o.as_ref().unwrap(), &want, "rank {rank}");
    }
    eprintln!(
        "{boards} boards × {rph}: {} cycles",
        r[0].last_response - r[0].first_request
    );
}

#[test]
fn one_board_one_rank() {
    allreduce_sum(1, 1, 64, Algorithm::Ring);
}

#[test]
fn one_board_two_ranks() {
    allreduce_sum(1, 2, 64, Algorithm::Ring);
}

#[test]
fn two_boards_ring() {
    allreduce_sum(2, 1, 64, Algorithm::Ring);
}

#[test]
fn four_boards_two_ranks_256() {
    allreduce_sum(4, 2, 256, Algorithm::RecursiveDoubling);
}

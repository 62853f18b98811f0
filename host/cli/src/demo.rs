//! `collwire demo`: one allreduce, end to end on the host side, against the golden model.
//!
//! It shows the request frames the driver builds, what the board's reference parser reads from
//! them, the exact bits each algorithm's fixed combination order delivers, and then runs the
//! same allreduce on a simulated cluster of 4 Verilated boards for every algorithm.

use anyhow::Result;
use collwire_driver::element::{from_bytes, to_bytes};
use collwire_driver::{Call, Communicator};
use collwire_proto::addressing::rank_endpoints;
use collwire_proto::frame::build_frame;
use collwire_proto::{Algorithm, Collective, Datatype, Layout, OFFLOAD_UDP_PORT, ReduceOp};
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::collective::{Job, run_jobs};
use collwire_testbench::golden::{Spec, expected};

#[derive(clap::Args)]
pub struct Args {
    /// Show the full hex dump of every request frame.
    #[arg(long)]
    pub hex: bool,
}

const RANKS: usize = 4;
const TWO53: f64 = 9007199254740992.0;

/// Distinct data per rank, chosen so that association changes the f64 result (2^53 + 1 ties).
fn rank_data(rank: usize) -> Vec<f64> {
    let first = [TWO53, 1.0, 1.0, -TWO53][rank];
    vec![first, 0.1 * (rank as f64 + 1.0)]
}

pub fn run(args: &Args) -> Result<()> {
    println!(
        "collwire demo: MPI_Allreduce(MPI_DOUBLE, MPI_SUM) on {RANKS} ranks, 1 rank per board\n"
    );
    let inputs: Vec<Vec<u8>> = (0..RANKS).map(|r| to_bytes(&rank_data(r))).collect();
    for (r, _) in inputs.iter().enumerate() {
        println!("rank {r} sends {:?}", rank_data(r));
    }

    println!(
        "\n1. request frames built by the host driver (rank → its board, UDP port {OFFLOAD_UDP_PORT}):"
    );
    for (rank, input) in inputs.iter().enumerate() {
        let comm = Communicator::new(RANKS, 1, rank, 1, 1500)?;
        let call = Call {
            collective: Collective::Allreduce,
            algorithm: Algorithm::RecursiveDoubling,
            datatype: Datatype::F64,
            op: ReduceOp::Sum,
            root: 0,
            elements: 2,
            op_id: 1,
        };
        for datagram in call.requests(&comm, input)? {
            // Rank r is local rank 0 of board r (1 rank per board), addressed as on the cluster.
            let frame = build_frame(&rank_endpoints(rank, 0), &datagram)?;
            println!(
                "\nrank {rank}: {} bytes; the board's parser reads:",
                frame.len()
            );
            print!("{}", crate::decode::describe(&frame, false));
            if args.hex {
                for (i, line) in frame.chunks(16).enumerate() {
                    let h: Vec<String> = line.iter().map(|b| format!("{b:02x}")).collect();
                    println!("    {:04x}  {}", i * 16, h.join(" "));
                }
            }
        }
    }

    println!("\n2. what every rank must receive, per algorithm (golden model; bits, then value):");
    for &algorithm in Algorithm::ALL {
        let spec = Spec {
            collective: Collective::Allreduce,
            algorithm,
            datatype: Datatype::F64,
            op: ReduceOp::Sum,
            layout: Layout::new(RANKS as u16, 1)?,
            root: 0,
        };
        let out = expected(&spec, &inputs)?;
        let first = out[0].clone().unwrap_or_default();
        let identical = out.iter().all(|o| o.as_ref() == Some(&first));
        let vals = from_bytes::<f64>(&first);
        let bits: Vec<String> = vals
            .iter()
            .map(|v| format!("{:#018x}", v.to_bits()))
            .collect();
        println!(
            "  {:<19} {}  = {:?}  (identical on all {RANKS} ranks: {identical})",
            algorithm.name(),
            bits.join(" "),
            vals
        );
    }
    println!("\n  The first element differs by algorithm because 2^53 + 1 rounds to even: the");
    println!("  combination order is part of the specification (docs/protocol.md), so every");
    println!("  rank and every run gets the same bits.");
    println!("\n3. the same allreduce on 4 simulated boards (Verilator, 64-bit, ring cabling):");
    let mut cluster = Cluster::new(ClusterConfig {
        boards: RANKS,
        width: 64,
        link_latency: 4,
        topology: Topology::Ring,
    })?;
    for (i, &algorithm) in Algorithm::ALL.iter().enumerate() {
        let spec = Spec {
            collective: Collective::Allreduce,
            algorithm,
            datatype: Datatype::F64,
            op: ReduceOp::Sum,
            layout: Layout::new(RANKS as u16, 1)?,
            root: 0,
        };
        let want = expected(&spec, &inputs)?;
        let job = Job {
            call: Call {
                collective: Collective::Allreduce,
                algorithm,
                datatype: Datatype::F64,
                op: ReduceOp::Sum,
                root: 0,
                elements: 2,
                op_id: 10 + i as u16,
            },
            comm_id: 1,
            ranks_per_host: 1,
            inputs: inputs.clone(),
        };
        let r = run_jobs(&mut cluster, &[job], 1500, 1_000_000)?.remove(0);
        let same = r
            .outcomes
            .iter()
            .zip(&want)
            .all(|(got, want)| got.as_ref().ok() == want.as_ref());
        println!(
            "  {:<19} {} cycles, every rank bit-identical to the golden model: {same}",
            algorithm.name(),
            r.last_response - r.first_request
        );
        if !same {
            anyhow::bail!("the simulated boards disagree with the golden model");
        }
    }
    println!("\nMore: `collwire cluster --help` (any collective, P, width, cabling, --vcd).");
    Ok(())
}

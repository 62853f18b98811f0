//! Per-hop latency on a 3-board ring, first word in → first word out, in simulated cycles:
//! what `bench_cluster` prints for every width and payload, and what
//! `testbench/tests/hop_latency.rs` holds to the bounds. Cycle counts of a simulation
//! are deterministic (the same on any machine and any number of threads).

use collwire_driver::{Call, Communicator};
use collwire_proto::frame::{Endpoints, build_frame};
use collwire_proto::{Algorithm, Collective, Datatype, MessageType, OffloadRepr, ReduceOp};
use serde::Serialize;

use crate::cluster::{Cluster, ClusterConfig, Topology, board_ip, board_mac};
use crate::collective::{Job, run_jobs};
use crate::hosts::rank_frame;
use crate::links::{Faults, LinkModel};

#[derive(Serialize, Debug, Clone)]
pub struct Hop {
    pub width: usize,
    /// Bytes of payload in the frame (f64 elements × 8; the plain frame's UDP payload).
    pub payload_bytes: usize,
    /// The clock the target needs: 125 MHz (64-bit, ZedBoard) or 200 MHz (256-bit, SUME).
    pub clock_mhz: f64,
    /// A partial that board 1 of a 3-board ring combines and sends on, its own rank's request
    /// stored before (the engine idle when the partial comes).
    pub engine_hop_cycles: u64,
    /// The same partial when every rank posts at once: board 1's own request is still
    /// arriving, and the engine takes the partial only after that frame's last beat.
    pub engine_hop_behind_own_request_cycles: u64,
    /// A partial for another board, forwarded by the route table.
    pub transit_hop_cycles: u64,
    /// A plain (non-offload) frame from a network port to the host.
    pub pass_through_hop_cycles: u64,
    /// The three at `clock_mhz`.
    pub engine_hop_ns: f64,
    pub transit_hop_ns: f64,
    pub pass_through_hop_ns: f64,
}

/// A ring of `boards` boards of `width` bits, `link_latency` clocks a cable.
pub fn ring(boards: usize, width: usize, link_latency: u64) -> Cluster {
    Cluster::new(ClusterConfig {
        boards,
        width,
        link_latency,
        topology: Topology::Ring,
    })
    .expect("cluster")
}

/// An f64 SUM allreduce of `elements` elements on `ranks` ranks (one per board), distinct
/// inputs per rank.
pub fn allreduce_job(algorithm: Algorithm, ranks: usize, elements: usize, op_id: u16) -> Job {
    Job {
        call: Call {
            collective: Collective::Allreduce,
            algorithm,
            datatype: Datatype::F64,
            op: ReduceOp::Sum,
            root: 0,
            elements,
            op_id,
        },
        comm_id: 1,
        ranks_per_host: 1,
        inputs: (0..ranks)
            .map(|r| {
                (0..elements)
                    .flat_map(|e| (r as f64 + 0.25 + e as f64).to_le_bytes())
                    .collect()
            })
            .collect(),
    }
}

/// The three hops of a `width`-bit board for a `payload`-byte frame (a multiple of 8).
pub fn measure(width: usize, payload: usize, link_latency: u64) -> Hop {
    let elements = payload / 8;
    // Engine hop, as the partial finds it when every rank posts at once (`run_jobs`): ring
    // allreduce on 3 boards; board 1 gets board 0's partial on port 2 and sends its own on
    // port 1. Board 1's own request is still arriving from its host then, and the engine takes
    // the partial only after that request's last beat (its `tail`): with long frames the hop
    // includes that wait.
    let mut c = ring(3, width, link_latency);
    run_jobs(
        &mut c,
        &[allreduce_job(Algorithm::Ring, 3, elements, 1)],
        1500,
        100_000,
    )
    .expect("allreduce");
    let behind_request = c.first_out[1][1][0] - c.first_in_log[1][2][0];
    // Engine hop, engine idle: ranks 1 and 2 post first and their boards store the requests;
    // then rank 0 posts, and its board's partial reaches board 1 with nothing else in board
    // 1's engine: the hop itself.
    let mut c = ring(3, width, link_latency);
    let job = allreduce_job(Algorithm::Ring, 3, elements, 1);
    // Each rank's request as its driver builds it (one segment up to 1440 bytes at MTU 1500).
    let request = |rank: usize| {
        let comm = Communicator::new(3, 1, rank, job.comm_id, 1500).expect("communicator");
        let datagrams = job
            .call
            .requests(&comm, &job.inputs[rank])
            .expect("request");
        assert_eq!(datagrams.len(), 1, "one segment");
        rank_frame(rank, 0, &datagrams[0])
    };
    for rank in [1, 2] {
        c.host_send(rank, &request(rank));
    }
    c.run_until(10_000, |c| c.at_rest()).expect("rest");
    c.host_send(0, &request(0));
    c.run_until(100_000, |c| !c.first_out[1][1].is_empty())
        .expect("the partial combined and sent on");
    let engine = c.first_out[1][1][0] - c.first_in_log[1][2][0];
    c.run_until(100_000, |c| c.at_rest()).expect("rest");
    for b in 0..3 {
        assert_eq!(c.host_take(b).len(), 1, "board {b} answered its rank");
    }
    // Transit: a partial addressed to board 2 arriving at board 1 on port 2.
    let data: Vec<u8> = (0..elements)
        .flat_map(|e| (e as f64).to_le_bytes())
        .collect();
    let (ends, frame) = partial(2, 3, &data);
    let transit = through_board_1(&mut c, &frame, 1, "transit");
    // Pass-through: a plain UDP frame (not the offload port) from port 2 to the host, padded
    // to Ethernet's minimum as a NIC sends it (a shorter one is a runt, dropped).
    let mut plain = build_frame(
        &Endpoints {
            dst_port: 53,
            ..ends
        },
        &vec![0u8; payload],
    )
    .unwrap();
    plain.resize(plain.len().max(collwire_proto::limits::MIN_FRAME), 0);
    let pass = through_board_1(&mut c, &plain, 0, "pass-through");
    let (clock_mhz, _) = line_rate(width);
    let ns = |cycles: u64| cycles as f64 * 1000.0 / clock_mhz;
    Hop {
        width,
        payload_bytes: payload,
        clock_mhz,
        engine_hop_cycles: engine,
        engine_hop_behind_own_request_cycles: behind_request,
        transit_hop_cycles: transit,
        pass_through_hop_cycles: pass,
        engine_hop_ns: ns(engine),
        transit_hop_ns: ns(transit),
        pass_through_hop_ns: ns(pass),
    }
}

/// `frame` injected at board 1's port 2 on a cluster at rest (so no earlier frame shares the
/// path): cycles from its first word in to the first word of the next frame out of port `out`.
fn through_board_1(c: &mut Cluster, frame: &[u8], out: usize, what: &str) -> u64 {
    c.run_until(10_000, |c| c.at_rest()).expect("rest");
    let outs = c.first_out[1][out].len();
    c.inject(1, 2, frame);
    c.run_until(10_000, |c| c.first_out[1][out].len() > outs)
        .expect(what);
    c.first_out[1][out][outs] - *c.first_in_log[1][2].last().unwrap()
}

/// A ring-allreduce partial of f64 `data` from board 0 to board `to` of `boards`: its addresses
/// and the frame.
pub fn partial(to: usize, boards: u16, data: &[u8]) -> (Endpoints, Vec<u8>) {
    let repr = OffloadRepr {
        msg_type: MessageType::Partial,
        op_id: 99,
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        comm_id: 1,
        comm_size: boards,
        rank: (to as u16) << 8,
        root: 0,
        ranks_per_host: 1,
        attempt: 0,
        seg_index: 0,
        seg_count: 1,
        elem_count: (data.len() / 8) as u16,
    };
    let ends = Endpoints {
        src_mac: board_mac(0),
        dst_mac: board_mac(to),
        src_ip: board_ip(0),
        dst_ip: board_ip(to),
        src_port: collwire_proto::OFFLOAD_UDP_PORT,
        dst_port: collwire_proto::OFFLOAD_UDP_PORT,
    };
    let frame = build_frame(&ends, &repr.to_datagram(data).unwrap()).unwrap();
    (ends, frame)
}

/// (target clock MHz, line-rate bytes per clock) of a `width`-bit board's ports, from the
/// link model ([`LinkModel::target`]): 125 MHz and 1 byte (1G), 200 MHz and 6.25 bytes (10G).
pub fn line_rate(width: usize) -> (f64, f64) {
    let m = LinkModel::target(width, Faults::NONE, Faults::NONE, 0);
    let gbps = m.cable.gbps.expect("the target links have a line rate");
    (m.clock_mhz, gbps * 1000.0 / 8.0 / m.clock_mhz)
}

//! Smoke tests of whole boards in the cluster simulator: small allreduces whose answers are
//! easy to compute by hand (the golden matrix is in testbench/tests/cluster_matrix.rs).

use collwire_driver::Call;
use collwire_proto::{Algorithm, Collective, Datatype, ReduceOp};
use collwire_sim::cluster::{Cluster, ClusterConfig, ClusterError, Topology};
use collwire_sim::collective::{Job, run_jobs};
use collwire_sim::links::{Faults, LinkModel, RxStart};

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

/// 8 64-bit boards cabled as a cube: recursive doubling's step d goes straight to the partner
/// across dimension d on port d + 1, so every board takes exactly one partial on each of its
/// three network ports, and the answer is exact.
#[test]
fn hypercube_recursive_doubling_takes_one_partial_per_port() {
    let mut cluster = Cluster::new(ClusterConfig {
        boards: 8,
        width: 64,
        link_latency: 3,
        topology: Topology::Hypercube,
    })
    .unwrap();
    let inputs: Vec<Vec<u8>> = (0..8)
        .map(|r| i32s(&[r + 1, 100 * r, -7, 1 << r]))
        .collect();
    let job = Job {
        call: Call {
            collective: Collective::Allreduce,
            algorithm: Algorithm::RecursiveDoubling,
            datatype: Datatype::Int32,
            op: ReduceOp::Sum,
            root: 0,
            elements: 4,
            op_id: 5,
        },
        comm_id: 2,
        ranks_per_host: 1,
        inputs,
    };
    let r = run_jobs(&mut cluster, &[job], 1500, 20_000)
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.summary()));
    let want = i32s(&[36, 2800, -56, 255]);
    for (rank, o) in r[0].outcomes.iter().enumerate() {
        assert_eq!(o.as_ref().unwrap(), &want, "rank {rank}");
    }
    for b in 0..8 {
        let frames: Vec<usize> = (1..4).map(|p| cluster.first_in_log[b][p].len()).collect();
        assert_eq!(frames, [1, 1, 1], "board {b}: frames in on ports 1..3");
    }
}

#[test]
fn a_hypercube_needs_a_network_port_per_dimension() {
    let config = |boards, width| ClusterConfig {
        boards,
        width,
        link_latency: 3,
        topology: Topology::Hypercube,
    };
    match Cluster::new(config(16, 64)) {
        Err(ClusterError::Ports { needs, has, .. }) => assert_eq!((needs, has), (4, 3)),
        Err(e) => panic!("16 64-bit boards as a hypercube: {e}"),
        Ok(_) => panic!("16 64-bit boards as a hypercube: built"),
    }
    assert!(Cluster::new(config(8, 64)).is_ok());
    assert!(
        Cluster::new(config(5, 64)).is_ok(),
        "an incomplete cube of 5 needs 3"
    );
}

/// The first beat of a host's frame reaches the board after one beat's wire time through a
/// cut-through receive FIFO, only after the whole frame's through a frame FIFO, and through a
/// rate-matched one a frame's bus time (a beat per clock) before its end if it is IPv4, else
/// whole.
#[test]
fn a_frame_receive_fifo_hands_a_frame_on_whole() {
    let first_beat_taken = |rx_start: RxStart, ipv4: bool| {
        let mut cluster = Cluster::new(ClusterConfig {
            boards: 2,
            width: 64,
            link_latency: 3,
            topology: Topology::Ring,
        })
        .unwrap();
        cluster.set_links(LinkModel {
            rx_start,
            ..LinkModel::target(64, Faults::NONE, Faults::NONE, 1)
        });
        let start = cluster.cycle;
        // A plain 1000-byte frame for the host of board 1: UDP/IPv4, or of another EtherType.
        let builder = etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 9], [2, 0, 0, 0, 0, 1])
            .ipv4([10, 0, 0, 9], [10, 0, 0, 1], 64)
            .udp(5000, 5000);
        let mut frame = Vec::new();
        builder.write(&mut frame, &[7u8; 958]).unwrap();
        assert_eq!(frame.len(), 1000);
        if !ipv4 {
            frame[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
        }
        cluster.host_send(0, &frame);
        while cluster.first_in_log[0][0].is_empty() {
            assert!(
                cluster.cycle - start < 10_000,
                "the frame never reached the board"
            );
            cluster.step();
        }
        cluster.first_in_log[0][0][0] - start
    };
    let cut = first_beat_taken(RxStart::CutThrough, true);
    let whole = first_beat_taken(RxStart::Frame, true);
    let matched = first_beat_taken(RxStart::RateMatched, true);
    let matched_other = first_beat_taken(RxStart::RateMatched, false);
    // 1G at 125 MHz: a byte a clock; the frame's 8-byte preamble and 1000 bytes.
    assert!(
        cut < 100,
        "cut-through: first beat taken after {cut} clocks"
    );
    assert!(
        whole >= 1008,
        "frame FIFO: first beat taken after {whole} clocks"
    );
    // 125 beats: the board takes the frame in 125 clocks, the line brings it in 1004.
    assert!(
        (whole - 135..=whole - 115).contains(&matched),
        "rate-matched: first beat taken after {matched} clocks, whole frame after {whole}"
    );
    assert_eq!(matched_other, whole, "rate-matched, not IPv4");
}

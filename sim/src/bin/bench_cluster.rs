//! Cluster benchmark: prints (never asserts) per-hop latencies (first word in → first word
//! out) at 64 and 256 bits for payloads from 8 to 1440 bytes (the engine's both with the engine
//! idle and behind the board's own request arriving at the same time), in cycles and in ns at the
//! target's clock (125 / 200 MHz), MTU transit throughput on every network port, the engine's
//! load from its hosts, every port at line rate (`ports`: a hypercube of boards over their own
//! 1G/10G links taking an MTU partial on every network port per request, with cut-through and
//! with frame receive FIFOs), the cycles from the first request to the last response of an
//! f64 SUM allreduce of 8 and 1440 bytes at P = 2 … 64 for every algorithm, the same at P = 2
//! … 16 over the ideal links and over the boards' own 1G/10G links (`links`, in cycles and
//! µs), and the simulator's speed: board-cycles per CPU-second on 8 64-bit boards for every
//! algorithm and both sizes, skipping boards at rest (the default, on one and two threads)
//! and clocking every board every cycle.
//! `--json FILE` writes the numbers for plotting.

use std::time::Instant;

use clap::Parser;
use collwire_driver::{Call, Communicator};
use collwire_proto::{Algorithm, MessageType, OffloadRepr};
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::collective::run_jobs;
use collwire_sim::hop::{self, Hop, allreduce_job, line_rate, partial, ring};
use collwire_sim::hosts::{rank_frame, udp_datagram};
use collwire_sim::links::{FCS_BYTES, Faults, IFG_BYTES, LinkModel, PREAMBLE_BYTES, RxStart};
use serde::Serialize;

#[derive(Parser)]
#[command(
    about = "collwire cluster benchmark: per-hop latency, throughput, allreduce latency vs P, simulator speed"
)]
struct Args {
    /// Largest communicator (boards, one rank each).
    #[arg(long, default_value_t = 64)]
    max_boards: usize,
    /// Cycles a beat spends on a cable.
    #[arg(long, default_value_t = 4)]
    link_latency: u64,
    /// Write the results as JSON here.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
    /// Write SVG charts of the sections that ran into this directory: allreduce cycles versus
    /// P per algorithm (`allreduce_vs_p_8B.svg`, `allreduce_vs_p_1440B.svg`), per-hop latency
    /// versus payload (`hop_latency_vs_payload.svg`), engine latency versus offered load
    /// (`engine_load.svg`), the network ports' load against the offered load with every port
    /// busy (`ports_line_rate.svg`).
    #[arg(long)]
    plots: Option<std::path::PathBuf>,
    /// Run only these sections (comma-separated; default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Section>,
}

/// The bench's sections.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Section {
    Hops,
    Throughput,
    Engine,
    Ports,
    Allreduce,
    Links,
    Speed,
}

/// Payload sizes of the allreduce and speed measurements: one f64, and the largest multiple of
/// 8 bytes in a 1500-byte MTU frame with the 64-byte header (1440 B, 180 f64).
const HOP_PAYLOADS: [usize; 2] = [8, 1440];
/// Payload sizes of the per-hop measurement: those two and the sizes between, for the plot of
/// latency versus payload.
const HOP_SWEEP: [usize; 6] = [8, 64, 256, 512, 1024, 1440];

/// Board 1 of a 4-board ring takes MTU transit frames (1440 B payload, addressed to board 3) on
/// every network port at once, at `offered_load` beats per clock in all (1.0: one bus word per
/// clock, what the input arbiter moves; 3 × 1G on the 64-bit board at 125 MHz is 0.375).
#[derive(Serialize)]
struct Throughput {
    width: usize,
    offered_load: f64,
    frames_offered: u64,
    /// Frames board 1 forwarded, and per second at the target clock.
    frames_forwarded: u64,
    frames_per_second: f64,
    /// Offload frames the router dropped because the engine's buffer was full.
    engine_busy_drops: u64,
    /// The longest a frame's first beat waited at a port beyond when its cable delivered it
    /// (back-pressure at the input), in clocks.
    worst_input_wait: u64,
}

/// Engine load: every host of a 4-board ring posts MTU allreduces (recursive doubling, f64 SUM,
/// one 1440-byte segment each, distinct op ids and data) at `offered_load` of its host port's
/// line rate (1G on the 64-bit board at 125 MHz: one byte a clock; 10G on the 256-bit board at
/// 200 MHz: 6.25 bytes a clock; a frame occupies its length + 24 bytes of preamble, FCS and
/// gap), keeping at most the driver's window of unanswered operations. Every engine takes
/// the request and its two partners' partials: three MTU frames on three ports per operation.
/// The simulated cables between boards move a bus word per clock (faster than 1G/10G).
#[derive(Serialize)]
struct EngineLoad {
    width: usize,
    clock_mhz: f64,
    /// Requests offered per host, as a fraction of the host port's line rate.
    offered_load: f64,
    operations_per_host: usize,
    /// Operations completed per second per host at the target clock (offered: `offered_load`
    /// × line rate ÷ request frame size).
    offered_ops_per_second: f64,
    completed_ops_per_second: f64,
    /// Offload frames board 1's engine took, per second (`offload_frames`).
    engine_frames_per_second: f64,
    /// Clocks an offload frame's beats waited for board 1's engine, on average per frame
    /// (`engine_waits` / `offload_frames`).
    engine_wait_clocks_per_frame: f64,
    /// Request sent → response back, in clocks.
    mean_latency_cycles: f64,
    max_latency_cycles: u64,
    engine_busy_drops: u64,
}

#[derive(Serialize)]
struct Allreduce {
    algorithm: String,
    /// Bytes of f64 data per rank.
    payload_bytes: usize,
    boards: usize,
    cycles: u64,
    wall_seconds: f64,
    board_cycles_per_second: f64,
}

/// The simulator's speed on 8 64-bit boards: repeated allreduces of one algorithm and size,
/// configuration excluded, measured in process CPU time.
#[derive(Serialize)]
struct SimSpeed {
    algorithm: String,
    payload_bytes: usize,
    boards: usize,
    /// Whether boards at rest were skipped (the default) or every board clocked every cycle.
    skip_resting: bool,
    /// Threads the boards of a clock were stepped on (`Cluster::set_threads`).
    threads: usize,
    /// Simulated cycles × boards.
    board_cycles: u64,
    /// Of those, the fraction skipped at rest.
    skipped_fraction: f64,
    /// Process CPU time (every thread's).
    cpu_seconds: f64,
    board_cycles_per_cpu_second: f64,
    wall_seconds: f64,
    board_cycles_per_wall_second: f64,
}

/// One allreduce over the ideal links and over the boards' own ([`LinkModel::target`]).
#[derive(Serialize)]
struct LinkRun {
    width: usize,
    payload_bytes: usize,
    boards: usize,
    algorithm: String,
    /// Cycles from the first request posted to the last result, ideal links (a bus word per
    /// clock, 4-clock cables, no delay on host links).
    ideal_cycles: u64,
    /// The same over 1 Gb/s (64-bit, 125 MHz) or 10 Gb/s (256-bit, 200 MHz) links with
    /// preamble, FCS, gap, PHY and cable latency.
    target_cycles: u64,
    /// `target_cycles` in µs at the target clock.
    target_us: f64,
}

#[derive(Serialize)]
struct Report {
    link_latency: u64,
    cabling: &'static str,
    hops: Vec<Hop>,
    throughput: Vec<Throughput>,
    engine_load: Vec<EngineLoad>,
    /// The lowest offered load (of those measured, per width) at which the hosts' requests
    /// complete more slowly than they are offered (below 99 %).
    engine_saturates_at: Vec<(usize, Option<f64>)>,
    engine_ports: Vec<EnginePorts>,
    /// Per width, the lowest offered load of `engine_ports` at which the hosts' requests
    /// complete more slowly than offered (below 99 %), a frame is dropped or a beat waits
    /// more than a frame's wire time at an input; `None`: absorbed at every load.
    /// (width, receive FIFOs, load).
    engine_ports_back_pressure_at: Vec<(usize, RxStart, Option<f64>)>,
    allreduce_f64_sum: Vec<Allreduce>,
    allreduce_over_target_links: Vec<LinkRun>,
    simulator_speed: Vec<SimSpeed>,
}

/// The receive FIFOs `--only ports` measures.
const RX_FIFOS: [RxStart; 3] = [RxStart::CutThrough, RxStart::RateMatched, RxStart::Frame];

const ALGORITHMS: [Algorithm; 4] = [
    Algorithm::Ring,
    Algorithm::RecursiveDoubling,
    Algorithm::Tree,
    Algorithm::Torus2d,
];

/// Board-cycles per CPU-second and per wall-second of `ops` allreduces on 8 64-bit boards.
fn sim_speed(
    algorithm: Algorithm,
    payload: usize,
    (skip, threads): (bool, usize),
    ops: u16,
    link_latency: u64,
) -> anyhow::Result<SimSpeed> {
    const BOARDS: usize = 8;
    let mut c = ring(BOARDS, 64, link_latency);
    c.set_skip_resting(skip);
    c.set_threads(threads)?;
    let (c0, e0, s0) = (c.cycle, c.board_clocks_evaluated, c.board_clocks_skipped);
    let start = cpu_time::ProcessTime::now();
    let wall_start = std::time::Instant::now();
    c.run_threaded(|c| -> anyhow::Result<()> {
        for op in 1..=ops {
            run_jobs(
                c,
                &[allreduce_job(algorithm, BOARDS, payload / 8, op)],
                1500,
                10_000_000,
            )?;
        }
        Ok(())
    })?;
    let cpu = start.elapsed().as_secs_f64();
    let wall = wall_start.elapsed().as_secs_f64();
    let board_cycles = (c.cycle - c0) * BOARDS as u64;
    let evaluated = c.board_clocks_evaluated - e0;
    let skipped = c.board_clocks_skipped - s0;
    debug_assert_eq!(evaluated + skipped, board_cycles);
    Ok(SimSpeed {
        algorithm: algorithm.name().to_string(),
        payload_bytes: payload,
        boards: BOARDS,
        skip_resting: skip,
        threads,
        board_cycles,
        skipped_fraction: skipped as f64 / board_cycles as f64,
        cpu_seconds: cpu,
        board_cycles_per_cpu_second: board_cycles as f64 / cpu,
        wall_seconds: wall,
        board_cycles_per_wall_second: board_cycles as f64 / wall,
    })
}

fn throughput(width: usize, load: f64, link_latency: u64) -> Throughput {
    let mut c = ring(4, width, link_latency);
    let (_, frame) = partial(3, 4, &[0u8; 1440]);
    let beats = frame.len().div_ceil(width / 8) as f64;
    let ports: Vec<usize> = (1..c.ports()).collect();
    let per_port = 40;
    // Each port gets a frame every `interval` clocks.
    let interval = beats * ports.len() as f64 / load;
    let outs0: usize = (0..c.ports()).map(|p| c.first_out[1][p].len()).sum();
    let ins0: Vec<usize> = ports.iter().map(|&p| c.first_in_log[1][p].len()).collect();
    let start = c.cycle;
    // Port j's frames are offset by j / ports of an interval, so at an offered load up to 1.0
    // no two arrive at once.
    let mut schedule = Vec::new();
    for k in 0..per_port {
        for (j, &p) in ports.iter().enumerate() {
            let at = (k as f64 + j as f64 / ports.len() as f64) * interval;
            schedule.push((start + at as u64, p));
        }
    }
    schedule.sort();
    let mut due: Vec<Vec<u64>> = vec![Vec::new(); c.ports()];
    for (at, p) in schedule {
        while c.cycle < at {
            c.step();
        }
        due[p].push(at);
        c.inject(1, p, &frame);
    }
    c.run_until(10_000_000, |c| c.at_rest()).expect("rest");
    let forwarded = (0..c.ports())
        .map(|p| c.first_out[1][p].len())
        .sum::<usize>()
        - outs0;
    let last_out = (0..c.ports())
        .filter_map(|p| c.first_out[1][p].last().copied())
        .max()
        .unwrap_or(start);
    let worst_input_wait = ports
        .iter()
        .zip(&ins0)
        .flat_map(|(&p, &i0)| {
            c.first_in_log[1][p][i0..]
                .iter()
                .zip(&due[p])
                .map(|(t, d)| t - (d + link_latency).min(*t))
                .collect::<Vec<_>>()
        })
        .max()
        .unwrap_or(0);
    let (clock_mhz, _) = line_rate(width);
    Throughput {
        width,
        offered_load: load,
        frames_offered: (per_port * ports.len()) as u64,
        frames_forwarded: forwarded as u64,
        frames_per_second: forwarded as f64
            / ((last_out - start).max(1) as f64 / (clock_mhz * 1e6)),
        engine_busy_drops: c.counters(1).get("engine_busy_drops"),
        worst_input_wait,
    }
}

/// Bytes a frame of `len` bytes occupies on the wire: preamble and start delimiter (8), FCS
/// (4), inter-frame gap (12).
fn wire_bytes(len: usize) -> usize {
    PREAMBLE_BYTES + len + FCS_BYTES + IFG_BYTES
}

/// Every host's MTU recursive-doubling allreduce requests (f64 SUM, one 1440-byte segment,
/// distinct op ids and data), in order.
fn mtu_requests(boards: usize, ops: usize) -> Vec<Vec<Vec<u8>>> {
    (0..boards)
        .map(|b| {
            let comm = Communicator::new(boards, 1, b, 1, 1500).expect("communicator");
            (1..=ops as u16)
                .map(|op_id| {
                    let call = Call {
                        elements: MTU_ELEMENTS,
                        op_id,
                        ..allreduce_job(Algorithm::RecursiveDoubling, boards, 0, op_id).call
                    };
                    let data: Vec<u8> = (0..MTU_ELEMENTS)
                        .flat_map(|e| (b as f64 + 0.5 * f64::from(op_id) + e as f64).to_le_bytes())
                        .collect();
                    let datagrams = call.requests(&comm, &data).expect("requests");
                    assert_eq!(datagrams.len(), 1, "one segment");
                    rank_frame(b, 0, &datagrams[0])
                })
                .collect()
        })
        .collect()
}

/// Offered loads of the every-port section (a link cannot carry more than 1.0).
const PORT_LOADS: [f64; 4] = [0.5, 0.75, 0.9, 1.0];
/// Unanswered requests a host keeps in flight in the every-port section: enough to cover an
/// allreduce's latency at line rate (request, one partial per dimension and the answer each
/// take a frame's wire time), within the engine's contexts.
const PORT_WINDOW: usize = 8;

/// f64 elements of an MTU request.
const MTU_ELEMENTS: usize = 180;

/// What [`post_at_rate`] saw: request → response latencies, and the cycles it started and
/// saw the last response.
struct Posted {
    latencies: Vec<u64>,
    /// The steady state, from the first response to the last request posted: clocks board
    /// 1's CFE spent in each state ([`collwire_hdl::cfe::STATE_NAMES`]), and offload frames
    /// its engine took.
    cfe_states: [u64; 16],
    steady_frames: u64,
    /// Per host, the cycles its responses came.
    responses: Vec<Vec<u64>>,
    start: u64,
    last_response: u64,
}

/// Every host posts its `requests` one every `interval` clocks, at most `window` unanswered
/// (the driver's window), until every one is answered.
fn post_at_rate(
    c: &mut Cluster,
    requests: &[Vec<Vec<u8>>],
    interval: f64,
    window: usize,
) -> Posted {
    let boards = requests.len();
    let ops = requests[0].len();
    let start = c.cycle;
    let mut sent_at = vec![Vec::new(); boards];
    let mut latencies = Vec::new();
    let mut answered = vec![0usize; boards];
    let mut responses = vec![Vec::new(); boards];
    let mut last_response = start;
    let mut cfe_states = [0u64; 16];
    let offload_frames = |c: &mut Cluster| c.counters(1).get("offload_frames");
    // Board 1's offload frames when the steady state began, until it ends.
    let mut steady_from: Option<u64> = None;
    let mut steady_frames = 0;
    let mut posting = true;
    while answered.iter().sum::<usize>() < boards * ops {
        if posting {
            posting = sent_at.iter().map(Vec::len).sum::<usize>() < boards * ops;
            if steady_from.is_none() && answered.iter().any(|&n| n > 0) {
                steady_from = Some(offload_frames(c));
            }
            match steady_from {
                Some(f0) if !posting => steady_frames = offload_frames(c) - f0,
                Some(_) => cfe_states[usize::from(c.cfe_state(1) & 15)] += 1,
                None => {}
            }
        }
        assert!(c.cycle - start < 100_000_000, "engine load run stalled");
        for b in 0..boards {
            for r in c.host_take(b) {
                let Some((_, datagram)) = udp_datagram(&r.frame) else {
                    continue;
                };
                let Ok((repr, _)) = OffloadRepr::from_datagram(datagram) else {
                    continue;
                };
                assert_eq!(repr.msg_type, MessageType::Response, "board {b}: {repr:?}");
                let k = usize::from(repr.op_id) - 1;
                latencies.push(r.cycle - sent_at[b][k]);
                responses[b].push(r.cycle);
                answered[b] += 1;
                last_response = last_response.max(r.cycle);
            }
            let k = sent_at[b].len();
            if k < ops
                && k - answered[b] < window
                && c.cycle >= start + (k as f64 * interval) as u64
            {
                sent_at[b].push(c.cycle);
                c.host_send(b, &requests[b][k]);
            }
        }
        c.step();
    }
    assert_eq!(c.underruns, 0, "an output port ran dry inside a frame");
    Posted {
        latencies,
        cfe_states,
        steady_frames,
        responses,
        start,
        last_response,
    }
}

fn engine_load(width: usize, load: f64, ops: usize, link_latency: u64) -> EngineLoad {
    const BOARDS: usize = 4;
    let mut c = ring(BOARDS, width, link_latency);
    let (clock_mhz, line_bytes_per_clock) = line_rate(width);
    let requests = mtu_requests(BOARDS, ops);
    let interval = wire_bytes(requests[0][0].len()) as f64 / line_bytes_per_clock / load;
    let before = c.counters(1);
    let posted = post_at_rate(&mut c, &requests, interval, 4);
    let after = c.counters(1);
    let delta = |name: &str| after.get(name) - before.get(name);
    let seconds = (posted.last_response - posted.start) as f64 / (clock_mhz * 1e6);
    let latencies = &posted.latencies;
    EngineLoad {
        width,
        clock_mhz,
        offered_load: load,
        operations_per_host: ops,
        offered_ops_per_second: clock_mhz * 1e6 / interval,
        completed_ops_per_second: ops as f64 / seconds,
        engine_frames_per_second: delta("offload_frames") as f64 / seconds,
        engine_wait_clocks_per_frame: delta("engine_waits") as f64
            / delta("offload_frames").max(1) as f64,
        mean_latency_cycles: latencies.iter().sum::<u64>() as f64 / latencies.len() as f64,
        max_latency_cycles: latencies.iter().copied().max().unwrap_or(0),
        engine_busy_drops: delta("engine_busy_drops"),
    }
}

/// Every port at line rate: `2^N` boards cabled as a hypercube over the boards' own links
/// ([`LinkModel::target`]: 1G at 125 MHz for the 64-bit board, 10G at 200 MHz for the
/// 256-bit; N its network ports: 8 boards of 3 ports, 16 of 4). Every host posts MTU
/// recursive-doubling allreduces at `offered_load` of its port's line rate; step d of each
/// goes to the partner across dimension d, on network port d + 1, so every board takes one
/// MTU partial on every network port per request on its host port: at 1.0, back-to-back MTU
/// offload frames on every port at once.
#[derive(Serialize)]
struct EnginePorts {
    width: usize,
    boards: usize,
    /// When the boards' receive FIFOs hand a frame on ([`LinkModel::rx_start`]): cut-through,
    /// rate-matched cut-through or frame (store and forward).
    rx_fifo: RxStart,
    clock_mhz: f64,
    offered_load: f64,
    operations_per_host: usize,
    /// A port's line rate in request frames per second (a 1,504-byte frame takes 1,528 bytes
    /// on the wire: preamble, FCS and gap).
    line_rate_frames_per_second: f64,
    offered_ops_per_second: f64,
    /// Per host in the steady state (responses − 1 over the time from its first response to
    /// its last), the slowest host's.
    completed_ops_per_second: f64,
    /// Board 1's input ports (0: host), offload frames per second each took.
    port_frames_per_second: Vec<f64>,
    /// Board 1's engine, offload frames per second (`offload_frames`).
    engine_frames_per_second: f64,
    /// Clocks an offload frame's beats waited for board 1's engine, on average per frame.
    engine_wait_clocks_per_frame: f64,
    /// Board 1's engine in the steady state (from the first response to the last request
    /// posted), clocks per offload frame it took.
    engine_clocks_per_frame: f64,
    /// The share of the steady state's clocks board 1's CFE spent in each state it was in,
    /// most first.
    cfe_state_share: Vec<(String, f64)>,
    /// Requests a host keeps unanswered at most (the driver's window; the engine has
    /// `CONTEXTS` = 8 segments in flight).
    window: usize,
    /// What the window allows by Little's law: `window` ÷ mean latency, operations per second
    /// per host. Where completed is near this and below offered, the window (the engine's
    /// contexts) is the limit, not the engine's datapath.
    window_limit_ops_per_second: f64,
    /// Over every board and port: the most clocks a beat waited at a board's input after its
    /// link delivered it (0: every beat taken as it came).
    worst_input_wait_cycles: u64,
    /// Frames dropped: the router's engine buffer full (every board), and receive FIFOs full.
    engine_busy_drops: u64,
    rx_overflows: u64,
    mean_latency_cycles: f64,
    max_latency_cycles: u64,
}

fn engine_ports(
    width: usize,
    rx_fifo: RxStart,
    load: f64,
    ops: usize,
    window: usize,
) -> EnginePorts {
    let boards = 1 << (collwire_hdl::axis::ports_for_width(width) - 1);
    let mut c = Cluster::new(ClusterConfig {
        boards,
        width,
        link_latency: 1,
        topology: Topology::Hypercube,
    })
    .expect("hypercube");
    c.set_links(LinkModel {
        rx_start: rx_fifo,
        ..LinkModel::target(width, Faults::NONE, Faults::NONE, 1)
    });
    let (clock_mhz, line_bytes_per_clock) = line_rate(width);
    let requests = mtu_requests(boards, ops);
    let frame_clocks = wire_bytes(requests[0][0].len()) as f64 / line_bytes_per_clock;
    let interval = frame_clocks / load;
    let before: Vec<_> = (0..boards).map(|b| c.counters(b)).collect();
    let ins0: Vec<usize> = (0..c.ports()).map(|p| c.first_in_log[1][p].len()).collect();
    c.input_wait_peak.iter_mut().flatten().for_each(|w| *w = 0);
    let posted = post_at_rate(&mut c, &requests, interval, window);
    let seconds = (posted.last_response - posted.start) as f64 / (clock_mhz * 1e6);
    // In the steady state: from each host's first response to its last, the slowest host.
    let completed_ops_per_second = posted
        .responses
        .iter()
        .map(|r| (r.len() - 1) as f64 * clock_mhz * 1e6 / (r[r.len() - 1] - r[0]).max(1) as f64)
        .fold(f64::INFINITY, f64::min);
    let delta =
        |c: &mut Cluster, b: usize, name: &str| c.counters(b).get(name) - before[b].get(name);
    let engine_busy_drops = (0..boards)
        .map(|b| delta(&mut c, b, "engine_busy_drops"))
        .sum();
    let latencies = &posted.latencies;
    let mean_latency = latencies.iter().sum::<u64>() as f64 / latencies.len() as f64;
    EnginePorts {
        width,
        boards,
        rx_fifo,
        clock_mhz,
        offered_load: load,
        operations_per_host: ops,
        line_rate_frames_per_second: clock_mhz * 1e6 / frame_clocks,
        offered_ops_per_second: clock_mhz * 1e6 / interval,
        completed_ops_per_second,
        port_frames_per_second: (0..c.ports())
            .map(|p| (c.first_in_log[1][p].len() - ins0[p]) as f64 / seconds)
            .collect(),
        engine_frames_per_second: delta(&mut c, 1, "offload_frames") as f64 / seconds,
        engine_wait_clocks_per_frame: delta(&mut c, 1, "engine_waits") as f64
            / delta(&mut c, 1, "offload_frames").max(1) as f64,
        engine_clocks_per_frame: posted.cfe_states.iter().sum::<u64>() as f64
            / posted.steady_frames.max(1) as f64,
        cfe_state_share: {
            let total = posted.cfe_states.iter().sum::<u64>().max(1) as f64;
            let mut shares: Vec<(String, f64)> = posted
                .cfe_states
                .iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(|(i, n)| {
                    let name = collwire_hdl::cfe::STATE_NAMES
                        .get(i)
                        .copied()
                        .unwrap_or("?");
                    (name.to_string(), *n as f64 / total)
                })
                .collect();
            shares.sort_by(|a, b| b.1.total_cmp(&a.1));
            shares
        },
        window,
        window_limit_ops_per_second: window as f64 * clock_mhz * 1e6 / mean_latency,
        worst_input_wait_cycles: c
            .input_wait_peak
            .iter()
            .flatten()
            .copied()
            .max()
            .unwrap_or(0),
        engine_busy_drops,
        rx_overflows: c.link_stats().rx_overflows,
        mean_latency_cycles: mean_latency,
        max_latency_cycles: latencies.iter().copied().max().unwrap_or(0),
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let run = |s: Section| args.only.is_empty() || args.only.contains(&s);
    let sizes = (usize::BITS - args.max_boards.max(1).leading_zeros() - 1) as u64;
    // One bar over every measurement of the sections that run (an ETA on a terminal; nothing
    // in CI or a pipe), the results printed above it as they come.
    let steps = [
        (Section::Hops, 2 * HOP_SWEEP.len() as u64),
        (Section::Throughput, 2 * 7),
        (Section::Engine, 2 * 8),
        (Section::Ports, 4 * PORT_LOADS.len() as u64),
        (
            Section::Allreduce,
            HOP_PAYLOADS.len() as u64 * sizes * ALGORITHMS.len() as u64,
        ),
        (Section::Links, 2 * HOP_PAYLOADS.len() as u64 * 4 * 3),
        (
            Section::Speed,
            HOP_PAYLOADS.len() as u64 * ALGORITHMS.len() as u64 * 3,
        ),
    ];
    let bar = collwire_sim::progress::bar(
        steps.iter().filter(|(s, _)| run(*s)).map(|(_, n)| n).sum(),
        "bench_cluster",
    );
    macro_rules! say {
        ($($t:tt)*) => {{
            bar.inc(1);
            bar.suspend(|| println!($($t)*));
        }};
    }
    // A line that is not a measurement.
    macro_rules! note {
        ($($t:tt)*) => {
            bar.suspend(|| println!($($t)*))
        };
    }
    let hops: Vec<Hop> = [64, 256]
        .into_iter()
        .filter(|_| run(Section::Hops))
        .flat_map(|w| HOP_SWEEP.map(|p| (w, p)))
        .map(|(w, p)| hop::measure(w, p, args.link_latency))
        .collect();
    for h in &hops {
        say!(
            "{}-bit hop, {:>4} B payload: engine {} cycles ({:.0} ns at {} MHz; {} behind its own request), transit {} ({:.0} ns), pass-through {} ({:.0} ns)",
            h.width,
            h.payload_bytes,
            h.engine_hop_cycles,
            h.engine_hop_ns,
            h.clock_mhz,
            h.engine_hop_behind_own_request_cycles,
            h.transit_hop_cycles,
            h.transit_hop_ns,
            h.pass_through_hop_cycles,
            h.pass_through_hop_ns
        );
    }
    let mut throughputs = Vec::new();
    for width in [64, 256].into_iter().filter(|_| run(Section::Throughput)) {
        for load in [0.25, 0.5, 0.75, 0.9, 1.0, 1.5, 3.0] {
            let t = throughput(width, load, args.link_latency);
            say!(
                "{width}-bit throughput, MTU transit frames on every network port, offered {load:.2} beats/clock: \
                 {}/{} forwarded, {:.2} M frames/s at {} MHz, {} dropped (engine busy), input wait up to {} clocks",
                t.frames_forwarded,
                t.frames_offered,
                t.frames_per_second / 1e6,
                if width == 64 { 125 } else { 200 },
                t.engine_busy_drops,
                t.worst_input_wait
            );
            throughputs.push(t);
        }
    }
    let mut engine_loads = Vec::new();
    let mut saturates = Vec::new();
    for width in [64, 256].into_iter().filter(|_| run(Section::Engine)) {
        let mut knee = None;
        for load in [0.25, 0.5, 0.75, 0.9, 1.0, 1.5, 2.0, 4.0] {
            let e = engine_load(width, load, 32, args.link_latency);
            say!(
                "{width}-bit engine, MTU recursive-doubling allreduces on 4 boards, offered {load:.2} of the host line rate: \
                 {:.0}/{:.0} ops/s per host completed/offered, engine {:.0} frames/s, waits {:.1} clocks/frame, \
                 latency {:.0} mean / {} max cycles, {} dropped (engine busy)",
                e.completed_ops_per_second,
                e.offered_ops_per_second,
                e.engine_frames_per_second,
                e.engine_wait_clocks_per_frame,
                e.mean_latency_cycles,
                e.max_latency_cycles,
                e.engine_busy_drops
            );
            if knee.is_none() && e.completed_ops_per_second < 0.99 * e.offered_ops_per_second {
                knee = Some(load);
            }
            engine_loads.push(e);
        }
        match knee {
            Some(l) => note!(
                "{width}-bit engine: completes less than offered from {l:.2} of the line rate"
            ),
            None => note!("{width}-bit engine: keeps up at every offered load measured"),
        }
        saturates.push((width, knee));
    }
    let mut ports = Vec::new();
    let mut ports_knees = Vec::new();
    for (width, rx_fifo) in [64, 256]
        .into_iter()
        .flat_map(|w| RX_FIFOS.map(|f| (w, f)))
        .filter(|_| run(Section::Ports))
    {
        let mut knee = None;
        for load in PORT_LOADS {
            let e = engine_ports(width, rx_fifo, load, 64, PORT_WINDOW);
            // A request frame's wire time, clocks.
            let frame_clocks = (e.clock_mhz * 1e6 / e.line_rate_frames_per_second) as u64;
            let port_rates: Vec<String> = e
                .port_frames_per_second
                .iter()
                .map(|f| format!("{:.3}", f / e.line_rate_frames_per_second))
                .collect();
            say!(
                "{width}-bit, {} boards as a hypercube over {} links, {} receive FIFOs, MTU recursive-doubling allreduces offered at {load:.2} of line rate: \
                 {:.0}/{:.0} ops/s per host completed/offered (window of {} allows {:.0}); board 1 takes [{}] of line rate on ports 0..{}, \
                 engine {:.0} frames/s ({:.1} clocks a frame; its CFE {}), waits {:.1} clocks/frame; worst input wait {} clocks, {} dropped (engine busy), {} receive FIFO overflows, latency {:.0} mean / {} max cycles",
                e.boards,
                if width == 64 { "1G" } else { "10G" },
                rx_fifo,
                e.completed_ops_per_second,
                e.offered_ops_per_second,
                e.window,
                e.window_limit_ops_per_second,
                port_rates.join(", "),
                e.port_frames_per_second.len() - 1,
                e.engine_frames_per_second,
                e.engine_clocks_per_frame,
                e.cfe_state_share
                    .iter()
                    .take(3)
                    .map(|(name, share)| format!("{:.0} % {name}", 100.0 * share))
                    .collect::<Vec<_>>()
                    .join(", "),
                e.engine_wait_clocks_per_frame,
                e.worst_input_wait_cycles,
                e.engine_busy_drops,
                e.rx_overflows,
                e.mean_latency_cycles,
                e.max_latency_cycles
            );
            if knee.is_none()
                && (e.completed_ops_per_second < 0.99 * e.offered_ops_per_second
                    || e.engine_busy_drops + e.rx_overflows > 0
                    || e.worst_input_wait_cycles > frame_clocks)
            {
                knee = Some(load);
            }
            ports.push(e);
        }
        let fifo = rx_fifo;
        match knee {
            Some(l) => note!(
                "{width}-bit board, {fifo} receive FIFOs: back-pressures its ports from {l:.2} of line rate"
            ),
            None => {
                note!("{width}-bit board, {fifo} receive FIFOs: absorbs every port at line rate")
            }
        }
        ports_knees.push((width, rx_fifo, knee));
    }
    let mut runs = Vec::new();
    for payload in HOP_PAYLOADS.into_iter().filter(|_| run(Section::Allreduce)) {
        let mut p = 2;
        while p <= args.max_boards {
            let mut c = ring(p, 64, args.link_latency);
            for (i, alg) in ALGORITHMS.into_iter().enumerate() {
                let start = Instant::now();
                let c0 = c.cycle;
                let r = run_jobs(
                    &mut c,
                    &[allreduce_job(alg, p, payload / 8, i as u16 + 1)],
                    1500,
                    10_000_000,
                )?;
                let wall = start.elapsed().as_secs_f64();
                let cycles = r[0].last_response - r[0].first_request;
                let simulated = c.cycle - c0;
                bar.inc(1);
                bar.suspend(|| {
                    println!(
                        "{payload:>4} B  P={p:>2} {:<20} {cycles:>6} cycles  ({:.0} board-cycles/s)",
                        alg.name(),
                        (simulated * p as u64) as f64 / wall
                    )
                });
                runs.push(Allreduce {
                    algorithm: alg.name().to_string(),
                    payload_bytes: payload,
                    boards: p,
                    cycles,
                    wall_seconds: wall,
                    board_cycles_per_second: (simulated * p as u64) as f64 / wall,
                });
            }
            p *= 2;
        }
    }
    let mut link_runs = Vec::new();
    for width in [64, 256].into_iter().filter(|_| run(Section::Links)) {
        let target_links = LinkModel::target(width, Faults::NONE, Faults::NONE, 1);
        let clock_mhz = target_links.clock_mhz;
        for payload in HOP_PAYLOADS {
            for p in [2, 4, 8, 16] {
                for (i, alg) in [
                    Algorithm::Ring,
                    Algorithm::RecursiveDoubling,
                    Algorithm::Tree,
                ]
                .into_iter()
                .enumerate()
                {
                    let measure = |target: bool| -> anyhow::Result<u64> {
                        let mut c = ring(p, width, args.link_latency);
                        if target {
                            c.set_links(target_links.clone());
                        }
                        let start = c.cycle;
                        let r = run_jobs(
                            &mut c,
                            &[allreduce_job(alg, p, payload / 8, i as u16 + 1)],
                            1500,
                            10_000_000,
                        )?;
                        Ok(r[0].last_response - start)
                    };
                    let (ideal, target) = (measure(false)?, measure(true)?);
                    let us = target as f64 / clock_mhz;
                    say!(
                        "{width}-bit, {payload:>4} B, P={p:>2} {:<20} ideal links {ideal:>6} cycles, target links {target:>7} cycles ({us:.1} µs)",
                        alg.name()
                    );
                    link_runs.push(LinkRun {
                        width,
                        payload_bytes: payload,
                        boards: p,
                        algorithm: alg.name().to_string(),
                        ideal_cycles: ideal,
                        target_cycles: target,
                        target_us: us,
                    });
                }
            }
        }
    }
    let mut speeds = Vec::new();
    for payload in HOP_PAYLOADS.into_iter().filter(|_| run(Section::Speed)) {
        for alg in ALGORITHMS {
            for (skip, threads) in [(true, 1), (true, 2), (false, 1)] {
                let ops = if payload == 8 { 40 } else { 4 };
                let s = sim_speed(alg, payload, (skip, threads), ops, args.link_latency)?;
                say!(
                    "simulator, 8 64-bit boards, {payload:>4} B {:<20} {}, {threads} thread{}: {:>9.0} board-cycles per CPU-second, {:>9.0} per wall-second ({:.0} % skipped at rest)",
                    s.algorithm,
                    if skip {
                        "skipping boards at rest"
                    } else {
                        "every board every clock"
                    },
                    if threads == 1 { " " } else { "s" },
                    s.board_cycles_per_cpu_second,
                    s.board_cycles_per_wall_second,
                    100.0 * s.skipped_fraction
                );
                speeds.push(s);
            }
        }
    }
    bar.finish_and_clear();
    let report = Report {
        link_latency: args.link_latency,
        cabling: "ring (port 1 → next board), routes by shortest path",
        hops,
        throughput: throughputs,
        engine_load: engine_loads,
        engine_saturates_at: saturates,
        engine_ports: ports,
        engine_ports_back_pressure_at: ports_knees,
        allreduce_f64_sum: runs,
        allreduce_over_target_links: link_runs,
        simulator_speed: speeds,
    };
    if let Some(path) = args.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
    }
    if let Some(dir) = &args.plots {
        std::fs::create_dir_all(dir)?;
        for path in plots(&report, dir)? {
            println!("plot: {}", path.display());
        }
    }
    Ok(())
}

/// The charts of the sections in `report`, written to `dir`; returns their paths.
fn plots(report: &Report, dir: &std::path::Path) -> anyhow::Result<Vec<std::path::PathBuf>> {
    use collwire_report::plot::{LineChart, Series, line_chart};
    /// One chart: file, title, x label, y label, base-2 x axis, lines, dashed targets.
    struct Chart(
        String,
        String,
        &'static str,
        &'static str,
        bool,
        Vec<Series>,
        Vec<(String, f64)>,
    );
    let mut charts = Vec::new();
    for payload in HOP_PAYLOADS {
        let series = ALGORITHMS
            .iter()
            .map(|alg| Series {
                name: alg.name().to_string(),
                points: report
                    .allreduce_f64_sum
                    .iter()
                    .filter(|r| r.algorithm == alg.name() && r.payload_bytes == payload)
                    .map(|r| (r.boards as f64, r.cycles as f64))
                    .collect(),
            })
            .collect();
        charts.push(Chart(
            format!("allreduce_vs_p_{payload}B.svg"),
            format!(
                "Allreduce, f64 sum, {payload} B per rank, 64-bit boards on a ring (one rank each)"
            ),
            "P (boards)",
            "cycles, first request to last response",
            true,
            series,
            Vec::new(),
        ));
    }
    type Cycles = fn(&Hop) -> u64;
    let kinds: [(&str, Cycles); 4] = [
        ("engine", |h| h.engine_hop_cycles),
        ("engine behind its own request", |h| {
            h.engine_hop_behind_own_request_cycles
        }),
        ("transit", |h| h.transit_hop_cycles),
        ("pass-through", |h| h.pass_through_hop_cycles),
    ];
    let series = [64, 256]
        .iter()
        .flat_map(|&w| {
            kinds.iter().map(move |(kind, cycles)| Series {
                name: format!("{w}-bit {kind}"),
                points: report
                    .hops
                    .iter()
                    .filter(|h| h.width == w)
                    .map(|h| (h.payload_bytes as f64, cycles(h) as f64))
                    .collect(),
            })
        })
        .collect();
    charts.push(Chart(
        "hop_latency_vs_payload.svg".into(),
        "Per-hop latency, first word in to first word out".into(),
        "payload bytes",
        "cycles",
        false,
        series,
        vec![
            ("engine target, 64-bit (24)".to_string(), 24.0),
            ("engine target, 256-bit (20)".to_string(), 20.0),
        ],
    ));
    let series = [64, 256]
        .iter()
        .map(|&w| Series {
            name: format!("{w}-bit"),
            points: report
                .engine_load
                .iter()
                .filter(|e| e.width == w)
                .map(|e| (e.offered_load, e.mean_latency_cycles))
                .collect(),
        })
        .collect();
    charts.push(Chart(
        "engine_load.svg".into(),
        "Engine load: MTU allreduces from every host of 4 boards".into(),
        "offered load (fraction of the host port's line rate)",
        "cycles, mean request to response",
        true,
        series,
        Vec::new(),
    ));
    let series = [64, 256]
        .into_iter()
        .flat_map(|w| RX_FIFOS.map(|f| (w, f)))
        .map(|(w, fifo)| Series {
            name: format!("{w}-bit, {fifo} receive FIFOs"),
            points: report
                .engine_ports
                .iter()
                .filter(|e| e.width == w && e.rx_fifo == fifo)
                .map(|e| {
                    // Board 1's network ports (1..), the mean share of a port's line rate.
                    let net = &e.port_frames_per_second[1..];
                    let mean = net.iter().sum::<f64>() / net.len() as f64;
                    (e.offered_load, mean / e.line_rate_frames_per_second)
                })
                .collect(),
        })
        .collect();
    charts.push(Chart(
        "ports_line_rate.svg".into(),
        "Every port at once: MTU partials into board 1 of a hypercube, own 1G/10G links".into(),
        "offered load (fraction of line rate)",
        "network port load taken (fraction of line rate)",
        false,
        series,
        vec![("line rate".to_string(), 1.0)],
    ));
    let mut written = Vec::new();
    for Chart(file, title, x_label, y_label, log_x, series, targets) in charts {
        // Only the sections that ran.
        let series: Vec<Series> = series
            .into_iter()
            .filter(|s| !s.points.is_empty())
            .collect();
        if series.is_empty() {
            continue;
        }
        let path = dir.join(file);
        line_chart(
            &path,
            &LineChart {
                title: &title,
                x_label,
                y_label,
                log_x,
                log_y: false,
                series: &series,
                targets: &targets,
            },
        )?;
        written.push(path);
    }
    Ok(written)
}

//! `collwire serve`: hardware in the loop. Runs a simulated cluster of Verilated boards and
//! gives every board's host port a UDP socket, so separate, unmodified host processes (the
//! driver's UDP transport, the C ABI, the PMPI library under `mpirun`) talk to simulated
//! hardware exactly as they would to a board.
//!
//! `serve` is a faithful network interface in front of each board:
//!
//! * **Every sender is its own endpoint.** Each real UDP source (address, port) that talks to
//!   board `b` gets a synthetic UDP source port of its own on the frame it sends (NAT-like;
//!   [`Nat`]). The board answers a request with the request's addresses swapped, as the
//!   hardware does, so the answer's destination port names exactly the socket that asked. Any
//!   number of jobs and communicators share one `serve`.
//! * **Every host → board message reaches the board**: requests and aborts
//!   ([`MessageType::is_host_to_board`]). Anything else a host sends, or a datagram that does
//!   not parse, or a rank that does not belong to the board, is logged and counted by kind.
//! * **Nothing the board cannot take is forwarded**: a datagram longer than a board takes
//!   ([`limits::MAX_DATAGRAM`]) is answered with a `too-large` error datagram by `serve` itself.
//! * **Event-driven**: the boards are clocked while something is in flight (a board at rest
//!   is skipped, [`Cluster::at_rest`]); a cluster at rest sleeps in the sockets at no cost
//!   until a datagram arrives.
//! * **Faults on demand**: `--loss-in` / `--loss-out` drop host → board / board → host
//!   datagrams with a seeded probability, to test recovery; `--host-faults-in` /
//!   `--host-faults-out` drop, duplicate, reorder and corrupt frames on the simulated host
//!   links (`collwire_sim::links`).
//!
//! Ctrl-C (SIGINT) or SIGTERM stops it cleanly with a summary of counters by name. While it
//! runs, `collwire stats` (its control socket, named in the board map) or SIGUSR1 (printed on
//! its standard output) shows the same counters; `--pcap` captures every frame.

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use collwire_driver::BoardMap;
use collwire_hdl::cfe::cfg;
use collwire_hdl::time_base::{RECLAIM_DEFAULT_TICKS, TICK_MS};
use collwire_proto::wire::ErrorRecord;
use collwire_proto::{Algorithm, ErrorCode, Layout, MessageType, OffloadRepr, limits};
use collwire_sim::capture::CaptureClock;
use collwire_sim::cluster::Cluster;
use collwire_sim::hosts::{advance, rank_frame_from};
use collwire_sim::links::{Faults, LinkModel, LinkSpec};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::cluster::ShapeArgs;
use crate::stats::{self, Statistics};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub shape: ShapeArgs,
    /// Address the boards' sockets bind to.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Board b listens on BASE_PORT + b (0: the system picks free ports).
    #[arg(long, default_value_t = 0)]
    pub base_port: u16,
    /// Ranks per host (1 or 2), written to the board map.
    #[arg(long, default_value_t = 1)]
    pub ranks_per_host: u8,
    /// Algorithm written to the board map.
    #[arg(long, default_value = "ring")]
    pub algorithm: Algorithm,
    /// MTU written to the board map (576 ..= 2129: a segment fits one board buffer).
    #[arg(long, default_value_t = 1500)]
    pub mtu: usize,
    /// Opt-in fail-fast deadline written to the board map, in milliseconds (default: none,
    /// ranks wait like MPI and recover lost datagrams by retransmission).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Write the board map (TOML) that ranks read through `COLLWIRE_CONFIG`.
    #[arg(long)]
    pub write_config: Option<PathBuf>,
    /// Write every frame on every simulated link (host ports included) to a pcapng capture,
    /// with wall-clock timestamps (Wireshark; `wireshark/collwire.lua` decodes the offload
    /// header).
    #[arg(long)]
    pub pcap: Option<PathBuf>,
    /// Port of the control socket that answers `collwire stats` (0: the system picks one; its
    /// address goes into the board map as `control`).
    #[arg(long, default_value_t = 0)]
    pub control_port: u16,
    /// Log every datagram in and out (one line each, its header decoded by name).
    #[arg(long)]
    pub verbose: bool,
    /// Drop each host → board datagram with this probability (fault injection).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub loss_in: f64,
    /// Drop each board → host datagram with this probability (fault injection).
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    pub loss_out: f64,
    /// Frame faults on every simulated host link, host → board
    /// (`drop=0.01,duplicate=0.005,reorder=0.005,corrupt=0.001`, any subset): a frame lost,
    /// delivered twice, delivered after the next one, or corrupted (the board's MAC marks it
    /// bad: the board drops and counts it).
    #[arg(long, default_value = "none")]
    pub host_faults_in: Faults,
    /// The same, board → host (a corrupted frame is dropped by the host's MAC). A result lost
    /// this way is not sent again yet: the rank's retransmission is answered `stale`.
    #[arg(long, default_value = "none")]
    pub host_faults_out: Faults,
    /// Seed of the fault injection.
    #[arg(long, default_value_t = 1)]
    pub fault_seed: u64,
    /// Seconds a segment may go without progress before its board reclaims the context (a job
    /// killed mid-collective leaks none); 0: never. Waiting ranks retransmit at least every
    /// 2 s, which counts as progress, so at least 3.
    #[arg(long, default_value_t = RECLAIM_DEFAULT_S, value_parser = reclaim_seconds)]
    pub reclaim_s: u64,
}

/// The boards' default: [`RECLAIM_DEFAULT_TICKS`] ticks of [`TICK_MS`].
const RECLAIM_DEFAULT_S: u64 = RECLAIM_DEFAULT_TICKS as u64 * TICK_MS / 1000;

fn reclaim_seconds(s: &str) -> Result<u64, String> {
    let v: u64 = s.parse().map_err(|e| format!("{e}"))?;
    let max = u64::from(u16::MAX) * TICK_MS / 1000;
    if v == 0 || (3..=max).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "{v} s: 0 (never) or 3 ..= {max} s (above the driver's largest retransmission interval, 2 s; the boards count {TICK_MS} ms ticks in 16 bits)"
        ))
    }
}

fn probability(s: &str) -> Result<f64, String> {
    let p: f64 = s.parse().map_err(|e| format!("{e}"))?;
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{p} is not a probability (0 ..= 1)"))
    }
}

/// What the service saw, by kind.
#[derive(Debug, Default)]
struct Counts {
    /// Host → board datagrams received, forwarded to the board.
    requests_in: u64,
    aborts_in: u64,
    /// Board → host datagrams sent, by message type.
    responses_out: u64,
    acks_out: u64,
    errors_out: u64,
    other_out: u64,
    /// `too-large` errors `serve` answered itself (nothing reached the board).
    too_large: u64,
    /// Datagrams that do not parse as offload headers.
    malformed: u64,
    /// Board-to-host message types sent by a host.
    wrong_direction: u64,
    /// A rank that does not belong to the board whose socket it reached.
    misdirected: u64,
    /// Board answers to a port no host ever sent from, or that could not be sent.
    undeliverable: u64,
    /// Frames from a board that were not UDP.
    unroutable_frames: u64,
    /// Dropped by `--loss-in` / `--loss-out`.
    injected_loss_in: u64,
    injected_loss_out: u64,
}

impl Counts {
    fn lines(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("requests in", self.requests_in),
            ("aborts in", self.aborts_in),
            ("responses out", self.responses_out),
            ("acks out", self.acks_out),
            ("board errors out", self.errors_out),
            ("other out", self.other_out),
            ("too-large answered by serve", self.too_large),
            ("malformed", self.malformed),
            ("wrong direction", self.wrong_direction),
            ("misdirected", self.misdirected),
            ("undeliverable", self.undeliverable),
            ("unroutable frames", self.unroutable_frames),
            ("injected loss in", self.injected_loss_in),
            ("injected loss out", self.injected_loss_out),
        ]
    }
}

/// At most this many problems of each kind are logged one by one; the summary counts all.
const LOG_LIMIT: u64 = 20;

/// Logs a problem, the first [`LOG_LIMIT`] of each kind.
fn problem(counter: &mut u64, message: impl FnOnce() -> String) {
    *counter += 1;
    if *counter <= LOG_LIMIT {
        eprintln!("collwire serve: {}", message());
    }
}

/// Synthetic UDP source ports: one per (board, real source address), so the board's answer,
/// addressed to the port of the request it answers, maps back to exactly that socket.
#[derive(Default)]
struct Nat {
    /// (board, real address) → (synthetic port, last use).
    out: HashMap<(usize, SocketAddr), (u16, u64)>,
    /// (board, synthetic port) → real address.
    back: HashMap<(usize, u16), SocketAddr>,
    /// Next port to try, per board.
    next: HashMap<usize, u16>,
    uses: u64,
}

/// Synthetic ports are taken from this range (never the offload port).
const NAT_PORTS: std::ops::RangeInclusive<u16> = 1024..=65535;

impl Nat {
    /// The synthetic port of `addr` on `board`, allocated on first use. When a board's ports
    /// run out the least recently used mapping is recycled.
    fn port(&mut self, board: usize, addr: SocketAddr) -> (u16, bool) {
        self.uses += 1;
        if let Some((port, used)) = self.out.get_mut(&(board, addr)) {
            *used = self.uses;
            return (*port, false);
        }
        let capacity = NAT_PORTS.len() - 1;
        let in_use = self.back.keys().filter(|(b, _)| *b == board).count();
        let port = if in_use >= capacity {
            let (&(b, old), &(port, _)) = self
                .out
                .iter()
                .filter(|((b, _), _)| *b == board)
                .min_by_key(|(_, (_, used))| *used)
                .expect("a full table has entries");
            self.out.remove(&(b, old));
            port
        } else {
            let next = self.next.entry(board).or_insert(*NAT_PORTS.start());
            loop {
                let p = *next;
                *next = if p == *NAT_PORTS.end() {
                    *NAT_PORTS.start()
                } else {
                    p + 1
                };
                if p != collwire_proto::OFFLOAD_UDP_PORT && !self.back.contains_key(&(board, p)) {
                    break p;
                }
            }
        };
        self.out.insert((board, addr), (port, self.uses));
        self.back.insert((board, port), addr);
        (port, true)
    }

    fn peer(&self, board: usize, port: u16) -> Option<SocketAddr> {
        self.back.get(&(board, port)).copied()
    }
}

/// What the reader threads hand the simulation loop.
enum Event {
    /// A datagram from a host.
    Datagram(Incoming),
    /// A statistics request on the control socket, from this address.
    Stats(SocketAddr),
}

/// A datagram from a host, tagged with the board whose socket it reached.
struct Incoming {
    board: usize,
    from: SocketAddr,
    datagram: Vec<u8>,
}

/// How long the reader threads wait in their sockets before looking at the stop flag.
const READER_WAKE: Duration = Duration::from_millis(250);
/// Cycles clocked between looks at the sockets and the boards' host ports: a datagram waits at
/// most this long to enter, an answer at most this long to leave.
const SERVE_STEP: u64 = 8;

/// Refuses a service the boards cannot run, naming the limit.
fn check_limits(args: &Args, boards: usize) -> Result<()> {
    limits::check_ranks_per_host(args.ranks_per_host).context("--ranks-per-host")?;
    limits::check_mtu(args.mtu).context("--mtu")?;
    limits::check_boards(boards).context("--boards")?;
    if !args.algorithm.is_supported() {
        bail!(
            "--algorithm {} is not implemented by the boards",
            args.algorithm
        );
    }
    Ok(())
}

pub fn run(args: &Args) -> Result<()> {
    let config = args.shape.config()?;
    let boards = config.boards;
    let width = config.width;
    check_limits(args, boards).context("collwire serve: the boards cannot run this")?;
    let mut cluster = Cluster::new(config).context("building the simulated cluster")?;
    // The boards' time base follows wall time: one tick per TICK_MS, queued by the loop.
    cluster.set_age_tick_every(0);
    cluster.write_cfg_all(cfg::RECLAIM, (args.reclaim_s * 1000 / TICK_MS) as u32);
    if args.host_faults_in.any() || args.host_faults_out.any() {
        let ideal = LinkModel::ideal(cluster.config.link_latency);
        cluster.set_links(LinkModel {
            to_board: LinkSpec {
                faults: args.host_faults_in,
                ..ideal.to_board
            },
            to_host: LinkSpec {
                faults: args.host_faults_out,
                ..ideal.to_host
            },
            seed: args.fault_seed,
            ..ideal
        });
    }
    if let Some(path) = &args.pcap {
        cluster
            .capture_pcap(path, CaptureClock::Wall(Instant::now()))
            .with_context(|| format!("creating {}", path.display()))?;
        println!(
            "collwire serve: capturing every frame to {}",
            path.display()
        );
    }
    let mut sockets = Vec::with_capacity(boards);
    for b in 0..boards {
        let port = if args.base_port == 0 {
            0
        } else {
            args.base_port
                .checked_add(b as u16)
                .context("base port + board overflows")?
        };
        let socket = UdpSocket::bind((args.bind, port))
            .with_context(|| format!("binding board {b}'s socket to {}:{port}", args.bind))?;
        sockets.push(Arc::new(socket));
    }
    let addrs: Vec<SocketAddr> = sockets
        .iter()
        .map(|s| s.local_addr())
        .collect::<std::io::Result<_>>()?;
    for (b, a) in addrs.iter().enumerate() {
        println!("collwire serve: board {b} host port on udp {a}");
    }
    let control = Arc::new(
        UdpSocket::bind((args.bind, args.control_port)).with_context(|| {
            format!(
                "binding the control socket to {}:{}",
                args.bind, args.control_port
            )
        })?,
    );
    let control_addr = control.local_addr()?;
    println!(
        "collwire serve: statistics on udp {control_addr} (collwire stats; SIGUSR1 prints them here)"
    );
    println!(
        "collwire serve: {boards} boards, {width}-bit datapath; ranks r*{rph}..r*{rph}+{} use board r",
        usize::from(args.ranks_per_host) - 1,
        rph = args.ranks_per_host
    );
    if let Some(path) = &args.write_config {
        let mut map = BoardMap::new(
            addrs.iter().map(ToString::to_string).collect(),
            args.ranks_per_host,
        );
        map.algorithm = args.algorithm.name().to_string();
        map.mtu = args.mtu;
        map.timeout_ms = args.timeout_ms;
        map.control = Some(control_addr.to_string());
        map.validate()?;
        // Written whole, then renamed: a reader never sees half a map.
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, map.to_toml())
            .and_then(|_| std::fs::rename(&tmp, path))
            .with_context(|| format!("writing {}", path.display()))?;
        println!(
            "collwire serve: board map in {} (export COLLWIRE_CONFIG={})",
            path.display(),
            path.display()
        );
    }
    if args.loss_in > 0.0 || args.loss_out > 0.0 {
        println!(
            "collwire serve: injecting loss: {} in, {} out (seed {})",
            args.loss_in, args.loss_out, args.fault_seed
        );
    }
    if args.host_faults_in.any() || args.host_faults_out.any() {
        println!(
            "collwire serve: host-link faults: in {:?}, out {:?} (seed {})",
            args.host_faults_in, args.host_faults_out, args.fault_seed
        );
    }
    println!("collwire serve: ready (Ctrl-C stops)");

    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let status = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGUSR1, Arc::clone(&status))?;
    let (tx, rx) = mpsc::channel::<Event>();
    let mut readers: Vec<_> = sockets
        .iter()
        .enumerate()
        .map(|(board, socket)| {
            let (socket, tx, stop) = (Arc::clone(socket), tx.clone(), Arc::clone(&stop));
            socket.set_read_timeout(Some(READER_WAKE))?;
            Ok(std::thread::spawn(move || {
                // Larger than any UDP datagram, so a giant one is seen whole (and refused).
                let mut buf = vec![0u8; 65536];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok((n, from)) = socket.recv_from(&mut buf) {
                        let datagram = buf[..n].to_vec();
                        if tx
                            .send(Event::Datagram(Incoming {
                                board,
                                from,
                                datagram,
                            }))
                            .is_err()
                        {
                            break;
                        }
                    }
                }
            }))
        })
        .collect::<std::io::Result<_>>()?;
    {
        let (socket, tx, stop) = (Arc::clone(&control), tx.clone(), Arc::clone(&stop));
        socket.set_read_timeout(Some(READER_WAKE))?;
        readers.push(std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            while !stop.load(Ordering::Relaxed) {
                if let Ok((n, from)) = socket.recv_from(&mut buf)
                    && &buf[..n] == stats::REQUEST
                    && tx.send(Event::Stats(from)).is_err()
                {
                    break;
                }
            }
        }));
    }
    drop(tx);

    let mut service = Service {
        sockets,
        nat: Nat::default(),
        counts: Counts::default(),
        verbose: args.verbose,
        loss_in: args.loss_in,
        loss_out: args.loss_out,
        rng: SmallRng::seed_from_u64(args.fault_seed),
    };
    let started = Instant::now();
    let mut busy = Duration::ZERO;
    let tick = Duration::from_millis(TICK_MS);
    let mut next_tick = started + tick;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= next_tick {
            let due = 1 + (now - next_tick).as_millis() as u64 / TICK_MS;
            cluster.queue_age_ticks(due);
            next_tick += tick * due as u32;
        }
        // Event-driven: a cluster at rest (every board's last clock moved no beat and changed
        // no register or memory, and no beat waits at an input or on a cable) changes only
        // when a host sends, so it sleeps in the channel (the readers wake it) instead of
        // clocking idle boards. It wakes for the next time-base tick: the boards' only timers
        // (context ages) count ticks, queued above from wall time, so the boards' time follows
        // wall time without clocking idle boards at full rate.
        let first = if cluster.at_rest() {
            let wake = next_tick.saturating_duration_since(Instant::now());
            match rx.recv_timeout(wake.min(READER_WAKE)) {
                Ok(incoming) => Some(incoming),
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        } else {
            rx.try_recv().ok()
        };
        let t0 = Instant::now();
        for event in first.into_iter().chain(rx.try_iter()) {
            match event {
                Event::Datagram(incoming) => service.accept(&mut cluster, incoming),
                Event::Stats(from) => {
                    let snapshot = statistics(&mut cluster, &service, started, busy);
                    let json = serde_json::to_vec(&snapshot).expect("statistics serialize");
                    if let Err(e) = control.send_to(&json, from) {
                        eprintln!("collwire serve: answering statistics request from {from}: {e}");
                    }
                }
            }
        }
        if status.swap(false, Ordering::Relaxed) {
            let snapshot = statistics(&mut cluster, &service, started, busy);
            print!("{}", snapshot.lines("collwire serve: "));
        }
        if !cluster.at_rest() {
            let deliveries = advance(
                &mut cluster,
                SERVE_STEP,
                &mut service.counts.unroutable_frames,
            );
            for d in deliveries {
                service.deliver(d.board, d.port, d.cycle, &d.datagram);
            }
        }
        busy += t0.elapsed();
    }
    for r in readers {
        let _ = r.join();
    }
    let snapshot = statistics(&mut cluster, &service, started, busy);
    println!(
        "collwire serve: stopped after {:.1} s ({:.1} s simulating), {} cycles simulated, {} host endpoints",
        snapshot.seconds, snapshot.simulating_seconds, snapshot.cycles, snapshot.endpoints
    );
    print!("{}", snapshot.lines("collwire serve: "));
    if args.pcap.is_some() {
        let frames = cluster.finish_capture().context("writing the capture")?;
        println!("collwire serve: capture: {frames} frames");
    }
    Ok(())
}

/// A snapshot of everything `serve` counts, by name.
fn statistics(
    cluster: &mut Cluster,
    service: &Service,
    started: Instant,
    busy: Duration,
) -> Statistics {
    let named = |rows: Vec<(&str, u64)>| -> Vec<(String, u64)> {
        rows.into_iter().map(|(n, v)| (n.to_string(), v)).collect()
    };
    let links = cluster.link_stats();
    Statistics {
        seconds: started.elapsed().as_secs_f64(),
        simulating_seconds: busy.as_secs_f64(),
        cycles: cluster.cycle,
        endpoints: service.nat.out.len(),
        service: named(service.counts.lines()),
        links: named(vec![
            ("link frames", links.frames),
            ("link frames dropped", links.dropped),
            ("link frames duplicated", links.duplicated),
            ("link frames reordered", links.reordered),
            ("link frames corrupted", links.corrupted),
        ]),
        boards: (0..cluster.len())
            .map(|b| named(cluster.counters(b).iter().collect()))
            .collect(),
    }
}

/// The host side of every board: sockets, address translation, counters, fault injection.
struct Service {
    sockets: Vec<Arc<UdpSocket>>,
    nat: Nat,
    counts: Counts,
    verbose: bool,
    loss_in: f64,
    loss_out: f64,
    rng: SmallRng,
}

impl Service {
    /// Checks one datagram from a host and injects it at its board's host port.
    fn accept(&mut self, cluster: &mut Cluster, incoming: Incoming) {
        let Incoming {
            board,
            from,
            datagram,
        } = incoming;
        let counts = &mut self.counts;
        let repr = match OffloadRepr::from_datagram(&datagram) {
            Ok((repr, _)) => repr,
            Err(e) => {
                return problem(&mut counts.malformed, || {
                    format!(
                        "malformed datagram ({} bytes) from {from} to board {board}: {e}; dropped",
                        datagram.len()
                    )
                });
            }
        };
        if !repr.msg_type.is_host_to_board() {
            return problem(&mut counts.wrong_direction, || {
                format!(
                    "{from} sent a {} to board {board}; hosts send requests and aborts; dropped",
                    repr.msg_type
                )
            });
        }
        if let Err(e) = limits::check_datagram_len(datagram.len()) {
            counts.too_large += 1;
            if counts.too_large <= LOG_LIMIT {
                eprintln!("collwire serve: {from} to board {board}: {e}; answered too-large");
            }
            self.refuse(
                board,
                from,
                &repr,
                ErrorCode::TooLarge,
                limits::MAX_DATAGRAM,
            );
            return;
        }
        let home = Layout::new(repr.comm_size, repr.ranks_per_host)
            .ok()
            .map(|l| {
                (
                    l.board_of(usize::from(repr.rank)),
                    l.local_rank(usize::from(repr.rank)),
                )
            });
        let local = match home {
            Some((b, local)) if b == board => local,
            _ => {
                return problem(&mut counts.misdirected, || {
                    format!(
                        "rank {} of {} ({} per host) sent to board {board}, not its own; dropped",
                        repr.rank, repr.comm_size, repr.ranks_per_host
                    )
                });
            }
        };
        match repr.msg_type {
            MessageType::Abort => counts.aborts_in += 1,
            _ => counts.requests_in += 1,
        }
        let (port, new) = self.nat.port(board, from);
        if new && self.verbose {
            eprintln!("collwire serve: board {board}: host endpoint {from} is port {port}");
        }
        if self.loss_in > 0.0 && self.rng.gen_bool(self.loss_in) {
            counts.injected_loss_in += 1;
            if self.verbose {
                eprintln!(
                    "collwire serve: cycle {} {from} -> board {board}: dropped (loss injection): {}",
                    cluster.cycle,
                    describe(&datagram)
                );
            }
            return;
        }
        if self.verbose {
            eprintln!(
                "collwire serve: cycle {} {from} -> board {board}: {}",
                cluster.cycle,
                describe(&datagram)
            );
        }
        cluster.host_send(board, &rank_frame_from(board, local, port, &datagram));
    }

    /// Answers a host datagram with an error record, without involving the board.
    fn refuse(
        &mut self,
        board: usize,
        to: SocketAddr,
        repr: &OffloadRepr,
        code: ErrorCode,
        detail: usize,
    ) {
        let record = ErrorRecord {
            code,
            detail: u16::try_from(detail).unwrap_or(u16::MAX),
        };
        let answer = OffloadRepr {
            msg_type: MessageType::Error,
            elem_count: 0,
            ..*repr
        }
        .to_datagram(&record.emit());
        match answer {
            Ok(d) => self.send(board, to, &d),
            Err(e) => problem(&mut self.counts.undeliverable, || {
                format!("cannot build the {code} answer for {to}: {e}")
            }),
        }
    }

    /// Sends a board's datagram for UDP port `port` back to the socket that owns that port.
    fn deliver(&mut self, board: usize, port: u16, cycle: u64, datagram: &[u8]) {
        let Some(peer) = self.nat.peer(board, port) else {
            return problem(&mut self.counts.undeliverable, || {
                format!("board {board} answered port {port}, which no host sent from; dropped")
            });
        };
        let kind = OffloadRepr::from_datagram(datagram).map(|(r, _)| r.msg_type);
        if self.loss_out > 0.0 && self.rng.gen_bool(self.loss_out) {
            self.counts.injected_loss_out += 1;
            if self.verbose {
                eprintln!(
                    "collwire serve: cycle {cycle} board {board} -> {peer}: dropped (loss injection): {}",
                    describe(datagram)
                );
            }
            return;
        }
        match kind {
            Ok(MessageType::Response) => self.counts.responses_out += 1,
            Ok(MessageType::Ack) => self.counts.acks_out += 1,
            Ok(MessageType::Error) => self.counts.errors_out += 1,
            _ => self.counts.other_out += 1,
        }
        if self.verbose {
            eprintln!(
                "collwire serve: cycle {cycle} board {board} -> {peer}: {}",
                describe(datagram)
            );
        }
        self.send(board, peer, datagram);
    }

    fn send(&mut self, board: usize, to: SocketAddr, datagram: &[u8]) {
        if let Err(e) = self.sockets[board].send_to(datagram, to) {
            problem(&mut self.counts.undeliverable, || {
                format!("sending to {to}: {e}; dropped")
            });
        }
    }
}

/// One line per datagram for `--verbose`: every header field by name.
fn describe(datagram: &[u8]) -> String {
    match OffloadRepr::from_datagram(datagram) {
        Ok((r, payload)) => {
            let mut line = format!(
                "{} op {} comm {} {} {} {} {} rank {}/{} root {} rph {} attempt {} seg {}/{} {} elements ({} bytes)",
                r.msg_type,
                r.op_id,
                r.comm_id,
                r.collective,
                r.algorithm,
                r.datatype,
                r.op,
                r.rank,
                r.comm_size,
                r.root,
                r.ranks_per_host,
                r.attempt,
                r.seg_index,
                r.seg_count,
                r.elem_count,
                payload.len()
            );
            if r.msg_type == MessageType::Error {
                match ErrorRecord::parse(payload) {
                    Ok(rec) => line += &format!(": {} (detail {})", rec.code, rec.detail),
                    Err(e) => line += &format!(": bad error record ({e})"),
                }
            }
            line
        }
        Err(e) => format!("undecodable ({} bytes): {e}", datagram.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_gets_its_own_port_and_answers_map_back() {
        let mut nat = Nat::default();
        let a: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:5001".parse().unwrap();
        let (pa, new_a) = nat.port(0, a);
        let (pb, _) = nat.port(0, b);
        let (pa1, _) = nat.port(1, a);
        assert!(new_a);
        assert_ne!(pa, pb);
        assert_eq!(nat.port(0, a), (pa, false));
        assert_eq!(nat.peer(0, pa), Some(a));
        assert_eq!(nat.peer(0, pb), Some(b));
        assert_eq!(nat.peer(1, pa1), Some(a));
        assert_eq!(nat.peer(1, pb), None);
    }

    #[test]
    fn the_offload_port_is_never_handed_out() {
        let mut nat = Nat::default();
        nat.next.insert(0, collwire_proto::OFFLOAD_UDP_PORT - 1);
        let ports: Vec<u16> = (0..3)
            .map(|i| nat.port(0, SocketAddr::from(([127, 0, 0, 1], 6000 + i))).0)
            .collect();
        assert!(
            !ports.contains(&collwire_proto::OFFLOAD_UDP_PORT),
            "{ports:?}"
        );
        assert_eq!(ports.len(), 3);
    }
}

//! `collwire serve`: hardware in the loop. Runs a simulated cluster of Verilated boards and
//! gives every board's host port a UDP socket on the loopback interface, so separate,
//! unmodified host processes (the driver's UDP transport, the C ABI, the PMPI library under
//! `mpirun`) talk to simulated hardware exactly as they would to a board.
//!
//! A datagram arriving at board `b`'s socket is checked (offload header, and that its rank
//! belongs to board `b`), wrapped in the frame the rank's NIC would send and injected at the
//! board's host port. A frame the board sends to local rank `l` goes back, as a datagram, to
//! the address local rank `l` last sent from. Whatever cannot be delivered is logged and
//! counted. Ctrl-C (SIGINT) or SIGTERM stops it cleanly with a summary.

use std::collections::HashMap;
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use collwire_driver::BoardMap;
use collwire_proto::{Algorithm, Layout, MessageType, OffloadRepr};
use collwire_sim::cluster::Cluster;
use collwire_sim::hosts::{QUIET_CYCLES, STEP_CYCLES, advance, rank_frame};

use crate::cluster::ShapeArgs;

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
    /// Ranks per host, written to the board map.
    #[arg(long, default_value_t = 1)]
    pub ranks_per_host: u8,
    /// Algorithm written to the board map.
    #[arg(long, default_value = "ring")]
    pub algorithm: Algorithm,
    /// Operation deadline written to the board map, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Write the board map (TOML) that ranks read through `COLLWIRE_CONFIG`.
    #[arg(long)]
    pub write_config: Option<PathBuf>,
    /// Log every datagram in and out (a one-line decode of its header).
    #[arg(long)]
    pub verbose: bool,
}

/// What the service saw.
#[derive(Debug, Default)]
struct Counts {
    datagrams_in: u64,
    datagrams_out: u64,
    malformed: u64,
    misdirected: u64,
    undeliverable: u64,
    unroutable_frames: u64,
}

/// A datagram from a rank, tagged with the board whose socket it reached.
struct Incoming {
    board: usize,
    from: SocketAddr,
    datagram: Vec<u8>,
}

/// At most this many problems of each kind are logged one by one; the summary counts all.
const LOG_LIMIT: u64 = 20;

pub fn run(args: &Args) -> Result<()> {
    let config = args.shape.config()?;
    let boards = config.boards;
    let width = config.width;
    let mut cluster = Cluster::new(config).context("building the simulated cluster")?;
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
        map.timeout_ms = args.timeout_ms;
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
    println!("collwire serve: ready (Ctrl-C stops)");

    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let (tx, rx) = mpsc::channel::<Incoming>();
    let readers: Vec<_> = sockets
        .iter()
        .enumerate()
        .map(|(board, socket)| {
            let (socket, tx, stop) = (Arc::clone(socket), tx.clone(), Arc::clone(&stop));
            socket.set_read_timeout(Some(Duration::from_millis(100)))?;
            Ok(std::thread::spawn(move || {
                let mut buf = vec![0u8; 65536];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok((n, from)) = socket.recv_from(&mut buf) {
                        let datagram = buf[..n].to_vec();
                        if tx
                            .send(Incoming {
                                board,
                                from,
                                datagram,
                            })
                            .is_err()
                        {
                            break;
                        }
                    }
                }
            }))
        })
        .collect::<std::io::Result<_>>()?;
    drop(tx);

    let started = Instant::now();
    let mut counts = Counts::default();
    let mut peers: HashMap<(usize, usize), SocketAddr> = HashMap::new();
    while !stop.load(Ordering::Relaxed) {
        // A quiet cluster changes only when a rank sends: sleep in the channel until then,
        // clocking a few cycles now and then so a misjudged quiet cannot stall anything.
        let quiet = cluster.is_quiet(QUIET_CYCLES);
        let first = if quiet {
            rx.recv_timeout(Duration::from_millis(5)).ok()
        } else {
            rx.try_recv().ok()
        };
        for incoming in first.into_iter().chain(rx.try_iter()) {
            accept(
                &mut cluster,
                &mut peers,
                &mut counts,
                args.verbose,
                incoming,
            );
        }
        for d in advance(&mut cluster, STEP_CYCLES, &mut counts.unroutable_frames) {
            let Some(peer) = peers.get(&(d.board, d.local)) else {
                counts.undeliverable += 1;
                if counts.undeliverable <= LOG_LIMIT {
                    eprintln!(
                        "collwire serve: board {} answered local rank {}, which never sent; dropped",
                        d.board, d.local
                    );
                }
                continue;
            };
            if args.verbose {
                eprintln!(
                    "collwire serve: cycle {} board {} -> {peer}: {}",
                    d.cycle,
                    d.board,
                    describe(&d.datagram)
                );
            }
            match sockets[d.board].send_to(&d.datagram, peer) {
                Ok(_) => counts.datagrams_out += 1,
                Err(e) => {
                    counts.undeliverable += 1;
                    if counts.undeliverable <= LOG_LIMIT {
                        eprintln!("collwire serve: sending to {peer}: {e}; dropped");
                    }
                }
            }
        }
    }
    for r in readers {
        let _ = r.join();
    }
    println!(
        "collwire serve: stopped after {:.1} s, {} cycles simulated; {:?}",
        started.elapsed().as_secs_f64(),
        cluster.cycle,
        counts
    );
    for b in 0..cluster.len() {
        println!("collwire serve: board {b} {:?}", cluster.counters(b));
    }
    Ok(())
}

/// Checks one datagram from a rank and injects it at its board's host port.
fn accept(
    cluster: &mut Cluster,
    peers: &mut HashMap<(usize, usize), SocketAddr>,
    counts: &mut Counts,
    verbose: bool,
    incoming: Incoming,
) {
    counts.datagrams_in += 1;
    let Incoming {
        board,
        from,
        datagram,
    } = incoming;
    let repr = match OffloadRepr::from_datagram(&datagram) {
        Ok((repr, _)) if repr.msg_type == MessageType::Request => repr,
        Ok((repr, _)) => {
            counts.malformed += 1;
            if counts.malformed <= LOG_LIMIT {
                eprintln!(
                    "collwire serve: {from} sent a {} to board {board}; hosts send requests only; dropped",
                    repr.msg_type
                );
            }
            return;
        }
        Err(e) => {
            counts.malformed += 1;
            if counts.malformed <= LOG_LIMIT {
                eprintln!(
                    "collwire serve: malformed datagram ({} bytes) from {from} to board {board}: {e}; dropped",
                    datagram.len()
                );
            }
            return;
        }
    };
    let home = Layout::new(repr.comm_size, repr.ranks_per_host)
        .ok()
        .filter(|_| repr.rank < repr.comm_size)
        .map(|l| {
            (
                l.board_of(usize::from(repr.rank)),
                l.local_rank(usize::from(repr.rank)),
            )
        });
    let local = match home {
        Some((b, local)) if b == board => local,
        _ => {
            counts.misdirected += 1;
            if counts.misdirected <= LOG_LIMIT {
                eprintln!(
                    "collwire serve: rank {} of {} ({} per host) sent to board {board}, not its own; dropped",
                    repr.rank, repr.comm_size, repr.ranks_per_host
                );
            }
            return;
        }
    };
    if peers.insert((board, local), from) != Some(from) {
        eprintln!("collwire serve: board {board} local rank {local} is {from}");
    }
    if verbose {
        eprintln!(
            "collwire serve: cycle {} {from} -> board {board}: {}",
            cluster.cycle,
            describe(&datagram)
        );
    }
    cluster.host_send(board, &rank_frame(board, local, &datagram));
}

/// One line per datagram for `--verbose`.
fn describe(datagram: &[u8]) -> String {
    match OffloadRepr::from_datagram(datagram) {
        Ok((r, payload)) => format!(
            "{} op {} comm {} {} {} {} {} rank {}/{} seg {}/{} {} elements ({} bytes)",
            r.msg_type,
            r.op_id,
            r.comm_id,
            r.collective,
            r.algorithm,
            r.datatype,
            r.op,
            r.rank,
            r.comm_size,
            r.seg_index,
            r.seg_count,
            r.elem_count,
            payload.len()
        ),
        Err(e) => format!("undecodable: {e}"),
    }
}

//! `collwire stats`: every board's statistics counters by name, from a running `collwire serve`.
//!
//! `serve` answers a [`REQUEST`] datagram on its control socket (its address is in the board
//! map it writes, `control = "…"`) with a [`Statistics`] snapshot as JSON: the service's own
//! counters, the simulated links', and each board's statistics registers, read by name over
//! the board's configuration port (`hdl/src/statistics.rs` names them). SIGUSR1 makes `serve`
//! print the same table on its standard output; it prints it once more when it stops.

use std::net::UdpSocket;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use collwire_driver::BoardMap;
use serde::{Deserialize, Serialize};

/// What a statistics request datagram holds.
pub const REQUEST: &[u8] = b"collwire-stats";

/// One snapshot of a running `serve`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Statistics {
    /// Wall seconds since `serve` started, and of those, seconds spent simulating.
    pub seconds: f64,
    pub simulating_seconds: f64,
    /// Cycles simulated.
    pub cycles: u64,
    /// Host endpoints (UDP sockets) seen.
    pub endpoints: usize,
    /// The service's own counters (datagrams in and out, refused, injected loss), by name.
    pub service: Vec<(String, u64)>,
    /// The simulated links' counters, by name.
    pub links: Vec<(String, u64)>,
    /// Per board, its statistics registers by name, in register order.
    pub boards: Vec<Vec<(String, u64)>>,
}

impl Statistics {
    /// The table `serve` prints: one `name value` line per counter, per section.
    pub fn lines(&self, prefix: &str) -> String {
        let mut out = String::new();
        let mut section = |title: Option<String>, rows: &[(String, u64)]| {
            if let Some(t) = title {
                out.push_str(&format!("{prefix}{t}\n"));
            }
            for (name, value) in rows {
                out.push_str(&format!("{prefix}  {name:<28} {value}\n"));
            }
        };
        section(None, &self.service);
        section(None, &self.links);
        for (b, rows) in self.boards.iter().enumerate() {
            section(Some(format!("board {b}")), rows);
        }
        out
    }

    /// The boards' counters as one table: a row per counter, a column per board.
    pub fn board_table(&self) -> String {
        let names: Vec<&str> = self
            .boards
            .first()
            .map(|rows| rows.iter().map(|(n, _)| n.as_str()).collect())
            .unwrap_or_default();
        let width = names.iter().map(|n| n.len()).max().unwrap_or(0).max(7);
        let cols: Vec<String> = (0..self.boards.len())
            .map(|b| format!("board {b}"))
            .collect();
        let col = |b: usize| {
            self.boards[b]
                .iter()
                .map(|(_, v)| v.to_string().len())
                .chain([cols[b].len()])
                .max()
                .unwrap_or(0)
        };
        let mut out = format!("{:<width$}", "counter");
        for (b, c) in cols.iter().enumerate() {
            out.push_str(&format!("  {c:>w$}", w = col(b)));
        }
        out.push('\n');
        for (i, name) in names.iter().enumerate() {
            out.push_str(&format!("{name:<width$}"));
            for b in 0..self.boards.len() {
                let v = self.boards[b].get(i).map_or(0, |(_, v)| *v);
                out.push_str(&format!("  {v:>w$}", w = col(b)));
            }
            out.push('\n');
        }
        out
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Board map (TOML) `collwire serve --write-config` wrote (its `control` address); default:
    /// `$COLLWIRE_CONFIG`.
    #[arg(long, conflicts_with = "addr")]
    pub map: Option<PathBuf>,
    /// The control address itself (`host:port`, printed by `serve`).
    #[arg(long)]
    pub addr: Option<String>,
    /// Print the snapshot as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Seconds to wait for the answer.
    #[arg(long, default_value_t = 5.0)]
    pub wait_s: f64,
}

/// Asks the `serve` at `addr` for a snapshot.
pub fn fetch(addr: &str, wait: Duration) -> Result<Statistics> {
    let socket = UdpSocket::bind(("127.0.0.1", 0)).context("binding a UDP socket")?;
    socket
        .connect(addr)
        .with_context(|| format!("resolving {addr}"))?;
    socket.set_read_timeout(Some(wait))?;
    socket
        .send(REQUEST)
        .with_context(|| format!("asking {addr}"))?;
    let mut buf = vec![0u8; 65536];
    let n = socket.recv(&mut buf).with_context(|| {
        format!("no answer from collwire serve's control socket {addr} within {wait:?}")
    })?;
    serde_json::from_slice(&buf[..n]).context("the answer is not a statistics snapshot")
}

pub fn run(args: &Args) -> Result<()> {
    let config = args
        .map
        .clone()
        .or_else(|| std::env::var_os("COLLWIRE_CONFIG").map(PathBuf::from));
    let addr = match (&args.addr, &config) {
        (Some(a), _) => a.clone(),
        (None, Some(path)) => {
            let map = BoardMap::from_file(path)?;
            match map.control {
                Some(a) => a,
                None => bail!(
                    "{} has no `control` address: it was not written by a collwire serve that \
                     answers statistics requests",
                    path.display()
                ),
            }
        }
        (None, None) => bail!("say where: --map MAP (or COLLWIRE_CONFIG) or --addr HOST:PORT"),
    };
    let stats = fetch(&addr, Duration::from_secs_f64(args.wait_s))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&stats)?);
        return Ok(());
    }
    println!(
        "collwire serve at {addr}: up {:.1} s ({:.1} s simulating), {} cycles, {} host endpoints",
        stats.seconds, stats.simulating_seconds, stats.cycles, stats.endpoints
    );
    for (name, value) in stats.service.iter().chain(&stats.links) {
        println!("  {name:<28} {value}");
    }
    println!();
    print!("{}", stats.board_table());
    Ok(())
}

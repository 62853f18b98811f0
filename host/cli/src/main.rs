//! `collwire` — the command line.

mod cluster;
mod decode;
mod demo;
mod dissector;
mod emit;
mod rank;
mod serve;
mod stats;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "collwire",
    version,
    about = "Collective operations offloaded to programmable logic in the network path"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Follow one 4-rank f64 SUM allreduce from the driver's request frames to the golden
    /// model's result bits for every algorithm.
    Demo(demo::Args),
    /// Decode a frame or datagram given in hex (whitespace and colons ignored).
    Decode(decode::Args),
    /// Write the Wireshark Lua dissector for the offload header (generated from the protocol's
    /// definition; the committed copy is wireshark/collwire.lua).
    Dissector(dissector::Args),
    /// Write the Verilog of one target's datapath (optionally lint and synthesize it).
    Emit(emit::Args),
    /// Run one collective on a simulated cluster of Verilated boards against the golden model.
    Cluster(cluster::Args),
    /// Hardware in the loop: run a simulated cluster and expose every board's host port as a
    /// UDP socket on 127.0.0.1 for real host processes (driver, C ABI, PMPI under mpirun).
    Serve(serve::Args),
    /// Every board's statistics counters by name, from a running `collwire serve`.
    Stats(stats::Args),
    /// One rank as its own process: run a collective over UDP against the boards of a board
    /// map (from `collwire serve --write-config`) and print the result as JSON.
    Rank(rank::Args),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Demo(args) => demo::run(&args),
        Command::Decode(args) => decode::run(&args),
        Command::Dissector(args) => dissector::run(&args),
        Command::Emit(args) => emit::run(&args),
        Command::Cluster(args) => cluster::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Rank(args) => rank::run(&args),
        Command::Stats(args) => stats::run(&args),
    }
}

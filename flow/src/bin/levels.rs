//! Logic levels at every endpoint of a design mapped to the ECP5 proxy
//! ([`collwire_flow::levels`]): a histogram, and the deep endpoints grouped by source and end
//! register, deepest first. No place and route, so the same netlist always gives the same
//! figures (a few minutes of Yosys for a board).
//!
//!   cargo run --release -p collwire-flow --bin levels -- --width 64 --design collwire_board64
//!   cargo run --release -p collwire-flow --bin levels -- --netlist DIR/collwire_board64.json \
//!       --design collwire_board64
//!
//! `--netlist` reads a netlist `timing` already wrote (`--out DIR`: `DIR/<design>/ecp5/`).
//! `--paths N` prints the deepest path of the first `N` groups, cell by cell, with the name of
//! the net each drives (the design's signal names where Yosys kept them).
//!
//! `--merged` prints instead the registers Yosys merged into one ([`collwire_flow::merged`]):
//! a register meant as a copy of another that is listed there is not in the netlist.
//!
//!   cargo run --release -p collwire-flow --bin levels -- --design collwire_board64 --merged

use std::path::PathBuf;

use anyhow::{Context, anyhow};
use clap::Parser;
use collwire_flow::levels::{Levels, histogram, work_list};
use collwire_flow::merged::merged_registers;
use collwire_flow::pnr::{synth_ecp5, synth_ecp5_registers};
use collwire_flow::toolflow::emit_designs;
use collwire_hdl::emit::{BusWidth, Design};

#[derive(Parser)]
#[command(about = "Logic levels at every endpoint of a design's ECP5 netlist")]
struct Args {
    /// Datapath width: 64 or 256.
    #[arg(long, default_value_t = 64)]
    width: usize,
    /// The design (its top module), as `collwire emit` names it.
    #[arg(long)]
    design: String,
    /// Read this `synth_ecp5` JSON netlist instead of synthesizing the design.
    #[arg(long)]
    netlist: Option<PathBuf>,
    /// List the endpoints with at least this many levels.
    #[arg(long, default_value_t = 8)]
    min: usize,
    /// At most this many groups in the list.
    #[arg(long, default_value_t = 40)]
    top: usize,
    /// Print the deepest path of the first this many groups: each cell, its type and the net
    /// it drives.
    #[arg(long, default_value_t = 0)]
    paths: usize,
    /// Where Yosys works (default: a directory under the system temp dir).
    #[arg(long)]
    out: Option<PathBuf>,
    /// List the registers synthesis merged into one instead (Yosys up to its LUT mapping;
    /// `--netlist` is not read).
    #[arg(long)]
    merged: bool,
}

/// The design `args` names, emitted, and the directory Yosys works in.
fn design(args: &Args) -> anyhow::Result<(Design, PathBuf)> {
    let width =
        BusWidth::from_bits(args.width).ok_or_else(|| anyhow!("--width must be 64 or 256"))?;
    let out = args.out.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("collwire-levels-{}", std::process::id()))
    });
    let d = emit_designs(width)?
        .into_iter()
        .find(|d| d.name == args.design)
        .ok_or_else(|| anyhow!("no design {} at {} bits", args.design, args.width))?;
    Ok((d, out))
}

fn read_json(path: &std::path::Path) -> anyhow::Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    serde_json::from_str(&text).context("netlist JSON")
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.merged {
        let (d, out) = design(&args)?;
        let netlist = read_json(&synth_ecp5_registers(&out, &d)?)?;
        let merged = merged_registers(&netlist, &args.design)?;
        let bits: usize = merged.iter().map(|m| m.bits).sum();
        println!(
            "{}: {bits} flip-flops shared by registers Yosys merged ({} groups):",
            args.design,
            merged.len()
        );
        for m in &merged {
            println!("  {:>5}  {}", m.bits, m.registers.join(" = "));
        }
        return Ok(());
    }
    let path = match &args.netlist {
        Some(p) => p.clone(),
        None => {
            let (d, out) = design(&args)?;
            synth_ecp5(&out, &d)?;
            out.join(format!("{}.json", d.name))
        }
    };
    let netlist = read_json(&path)?;
    let mut lv = Levels::new(&netlist, &args.design)?;
    let eps = lv.endpoints();
    println!(
        "{}: {} endpoints; logic levels (LUT4, PFUMX, L6MUX21, CCU2C, LUTRAM read) in front of each:",
        args.design,
        eps.len()
    );
    for (levels, n) in histogram(&eps) {
        println!("  {levels:>3} levels: {n:>7}");
    }
    let list = work_list(&eps, args.min);
    let deep: usize = list.iter().map(|g| g.count).sum();
    println!(
        "{deep} endpoints with {} levels or more, by source → end register ({} groups):",
        args.min,
        list.len()
    );
    for g in list.iter().take(args.top) {
        println!("  {:>3} x{:<5} {} → {}", g.levels, g.count, g.from, g.to);
    }
    for g in list.iter().take(args.paths) {
        let e = &eps[g.deepest];
        println!("\n{} levels: {} → {}.{}", e.levels, e.from, e.to, e.port);
        for s in lv.path(e) {
            println!("    {:<8} {:<60} {}", s.cell_type, s.net, s.cell);
        }
    }
    Ok(())
}

//! The timing report: every block of a target (and the whole board) synthesized and placed and
//! routed with the open-source flow (`collwire_flow::pnr`: Yosys + nextpnr-ecp5, the ECP5
//! proxy), printing post-route Fmax and the critical path next to the Yosys 7-series resource
//! counts for the target part and the logic depth against its budget.
//!
//!   cargo run --release -p collwire-flow --bin timing -- --width 64
//!   cargo run --release -p collwire-flow --bin timing -- --width 256 --design collwire_cfe
//!
//! A whole board takes about ten minutes on two cores; `--blocks-only` skips it. `--json FILE`
//! also writes every row, `--plot FILE.svg` a bar chart of Fmax per design (`--replot FILE`
//! draws it again from an earlier run's JSON, running no tool); on a terminal a
//! progress bar with an ETA runs while it works. `--seed N` (repeatable) places and routes each design once per
//! placer seed, the seeds side by side, and prints a row per seed and the spread: one
//! netlist's Fmax moves by ±15 % from one placement to another, so a change is judged on
//! several. Under each row it counts the endpoints that miss `--late-mhz` (150) and lists
//! the registers they belong to, latest first (`--late N`): the critical path is one of
//! them, and the count says how far the rest of the design is from the clock.

use std::path::PathBuf;

use clap::Parser;
use collwire_flow::depth;
use collwire_flow::pnr::{
    Algorithm, DEVICE, Placer, PnrReport, TARGET_MHZ, late_groups, place_route_seed, synth_ecp5,
};
use collwire_flow::toolflow::{emit_designs, synth_xc7};
use collwire_hdl::emit::{BusWidth, is_board};

#[derive(Parser)]
#[command(about = "Post-route Fmax (ECP5 proxy) and 7-series resources of every block")]
struct Args {
    /// Datapath width: 64 (ZedBoard, xc7z020) or 256 (NetFPGA SUME, xc7vx690t).
    #[arg(long, default_value_t = 64)]
    width: usize,
    /// Only these designs (names as `collwire emit` writes them); repeatable.
    #[arg(long)]
    design: Vec<String>,
    /// Skip the whole board.
    #[arg(long)]
    blocks_only: bool,
    /// The clock nextpnr aims for, MHz (the router's rip-up works on the paths slower than
    /// this: aim just above the clock wanted).
    #[arg(long, default_value_t = TARGET_MHZ)]
    target_mhz: u32,
    /// Where the tools work (default: a directory under the system temp dir).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write the rows as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also draw post-route Fmax per design as an SVG bar chart here, with the 125, 150 and
    /// 200 MHz marks.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Run no tool: draw `--plot` from the rows of an earlier run's `--json` (a plot drawn
    /// again without hours of place and route).
    #[arg(long, requires = "plot", conflicts_with = "json")]
    replot: Option<PathBuf>,
    /// Place and route with these placer seeds (repeatable; they run side by side). Default:
    /// nextpnr's own seed, once.
    #[arg(long)]
    seed: Vec<u64>,
    /// nextpnr's placer: `static` (the flow's, see `collwire_flow::pnr::Placer`) or `heap`
    /// (nextpnr's default, the flow's until 2026-12-01).
    #[arg(long, value_enum, default_value_t = Placer::TIMING.algorithm)]
    placer: Algorithm,
    /// HeAP's timing weight (nextpnr `--placer-heap-timingweight`; nextpnr's own default is
    /// 10). Only with `--placer heap`.
    #[arg(long, default_value_t = Placer::HEAP_TIMING.timing_weight)]
    timing_weight: u32,
    /// HeAP's criticality exponent (nextpnr `--placer-heap-critexp`; nextpnr's own default is
    /// 2). Only with `--placer heap`.
    #[arg(long, default_value_t = Placer::HEAP_TIMING.crit_exp)]
    crit_exp: u32,
    /// nextpnr's timing-driven rip-up in the router (`--tmg-ripup`): the arcs of paths that
    /// miss `--target-mhz` are routed again. The flow's (`true`); `--tmg-ripup false` routes
    /// without it, as the figures before 2026-12-06 in docs/timing.md were. A bare
    /// `--tmg-ripup` (the commands of those sections) is `true`.
    #[arg(long, num_args = 0..=1, default_missing_value = "true",
          action = clap::ArgAction::Set, default_value_t = Placer::TIMING.timing_ripup)]
    tmg_ripup: bool,
    /// Under each row, the registers with endpoints that miss this clock (MHz), latest first:
    /// how much of the design, not only its critical path, stands between it and the clock.
    #[arg(long, default_value_t = 150.0)]
    late_mhz: f64,
    /// How many of those registers to list (0: only the count of late endpoints).
    #[arg(long, default_value_t = 12)]
    late: usize,
}

/// LUTs, flip-flops and 36 Kb block RAMs of a part.
fn capacity(width: BusWidth) -> (f64, f64, f64) {
    match width {
        BusWidth::W64 => (53_200.0, 106_400.0, 140.0),
        BusWidth::W256 => (433_200.0, 866_400.0, 1_470.0),
    }
}

/// Post-route Fmax per design (and seed) as an SVG bar chart at `path`.
fn plot(
    path: &std::path::Path,
    width: BusWidth,
    bars: &[(String, Option<f64>)],
) -> anyhow::Result<()> {
    let title = format!(
        "Post-route Fmax per design, {}-bit (ECP5 proxy for {})",
        width.bits(),
        width.part()
    );
    collwire_report::plot::bar_chart(
        path,
        &title,
        "MHz",
        bars,
        &[
            ("125 MHz (ZedBoard, 4 × 1G)".to_string(), 125.0),
            ("150 MHz (goal on the proxy)".to_string(), 150.0),
            ("200 MHz (NetFPGA SUME, 4 × 10G)".to_string(), 200.0),
        ],
    )?;
    println!("plot: {}", path.display());
    Ok(())
}

/// A bar's label: the design, and its seed when a design was placed with more than one.
fn bar_label(design: &str, seed: Option<u64>, seeds: usize) -> String {
    match seed {
        Some(s) if seeds > 1 => format!("{design} (seed {s})"),
        _ => design.to_string(),
    }
}

/// `--replot`: the bars of an earlier run's JSON rows, drawn at `path`.
fn replot(json: &std::path::Path, path: &std::path::Path) -> anyhow::Result<()> {
    let rows: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(json)?)?;
    let first = rows
        .first()
        .ok_or_else(|| anyhow::anyhow!("{}: no rows", json.display()))?;
    let width = first["width"]
        .as_u64()
        .and_then(|w| BusWidth::from_bits(w as usize))
        .ok_or_else(|| anyhow::anyhow!("{}: no width of 64 or 256", json.display()))?;
    let mut bars = Vec::new();
    for row in &rows {
        let design = row["design"]
            .as_str()
            .ok_or_else(|| anyhow::anyhow!("{}: a row without a design", json.display()))?;
        let seeds = rows.iter().filter(|r| r["design"] == row["design"]).count();
        bars.push((
            bar_label(design, row["seed"].as_u64(), seeds),
            row["ecp5_fmax_mhz"].as_f64(),
        ));
    }
    plot(path, width, &bars)
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if let (Some(json), Some(path)) = (&args.replot, &args.plot) {
        return replot(json, path);
    }
    let width = BusWidth::from_bits(args.width)
        .ok_or_else(|| anyhow::anyhow!("--width must be 64 or 256"))?;
    let out = args.out.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("collwire-timing-{}", std::process::id()))
    });
    let (luts, ffs, brams) = capacity(width);
    let designs = emit_designs(width)?;
    let designs: Vec<_> = designs
        .into_iter()
        .filter(|d| args.design.is_empty() || args.design.iter().any(|n| n == d.name))
        .filter(|d| !(args.blocks_only && is_board(d.name)))
        .collect();
    let placer_text = match args.placer {
        Algorithm::Heap => format!(
            "HeAP placer, timing weight {} / criticality exponent {}",
            args.timing_weight, args.crit_exp
        ),
        Algorithm::Static => "static placer".to_string(),
    } + if args.tmg_ripup {
        ", router with timing-driven rip-up"
    } else {
        ""
    };
    println!(
        "post-route on {DEVICE}, aiming at {} MHz, {placer_text}; resources from Yosys synth_xilinx for {}",
        args.target_mhz,
        width.part()
    );
    println!(
        "{:<30} {:>8} {:>6} {:>6} {:>7} {:>6} {:>7} {:>6} {:>6}  critical path (logic/route ns, steps)",
        "design", "Fmax MHz", "125?", "200?", "LUT", "LUT%", "FF", "BRAM%", "depth"
    );
    let mut rows = Vec::new();
    // Per design (and seed): its name and post-route Fmax, for the plot.
    let mut bars: Vec<(String, Option<f64>)> = Vec::new();
    // Place and route takes minutes per block: a bar with an ETA on a terminal (quiet in CI).
    let progress = collwire_report::progress::bar(designs.len() as u64, "place and route");
    for d in &designs {
        progress.set_message(d.name);
        let dir = out.join(d.name);
        let xc7 = synth_xc7(&dir.join("xc7"), d)?;
        let ecp5 = dir.join("ecp5");
        synth_ecp5(&ecp5, d)?;
        let seeds: Vec<Option<u64>> = if args.seed.is_empty() {
            vec![None]
        } else {
            args.seed.iter().copied().map(Some).collect()
        };
        let placer = Placer {
            algorithm: args.placer,
            timing_weight: args.timing_weight,
            crit_exp: args.crit_exp,
            timing_ripup: args.tmg_ripup,
        };
        let reports: Vec<(Option<u64>, PnrReport)> = std::thread::scope(|s| {
            let runs: Vec<_> = seeds
                .iter()
                .map(|&seed| {
                    let ecp5 = &ecp5;
                    s.spawn(move || {
                        place_route_seed(ecp5, d.name, args.target_mhz, seed, placer)
                            .map(|r| (seed, r))
                    })
                })
                .collect();
            runs.into_iter()
                .map(|h| h.join().expect("place and route thread"))
                .collect::<Result<_, _>>()
        })?;
        for (seed, pnr) in &reports {
            let ok = |mhz: f64| match pnr.fmax_mhz {
                Some(f) if f >= mhz => "yes",
                Some(_) => "no",
                None => "-",
            };
            let fmax = pnr
                .fmax_mhz
                .map_or("comb".to_string(), |f| format!("{f:.1}"));
            let budget = depth::budget(d.name).map_or("-".to_string(), |b| b.to_string());
            let path = if pnr.critical.from.is_empty() {
                "-".to_string()
            } else {
                format!(
                    "{} -> {} ({:.2}/{:.2}, {})",
                    pnr.critical.from,
                    pnr.critical.to,
                    pnr.critical.logic_ns,
                    pnr.critical.routing_ns,
                    pnr.critical.logic_steps
                )
            };
            let label = bar_label(d.name, *seed, seeds.len());
            bars.push((label.clone(), pnr.fmax_mhz));
            progress.suspend(|| {
                println!(
                    "{:<30} {:>8} {:>6} {:>6} {:>7} {:>5.1}% {:>7} {:>5.1}% {:>3}/{:<3} {path}",
                    label,
                    fmax,
                    ok(125.0),
                    ok(200.0),
                    xc7.luts(),
                    100.0 * xc7.luts() as f64 / luts,
                    xc7.flip_flops(),
                    100.0 * xc7.bram36() / brams,
                    xc7.depth,
                    budget,
                )
            });
            let rounds = &pnr.route.ripup_rounds;
            if let Some(route_text) = pnr.route.summary() {
                progress.suspend(|| println!("    {route_text}"));
            }
            let period = 1000.0 / args.late_mhz;
            let late = late_groups(&pnr.endpoints, period);
            let late_count: usize = late.iter().map(|g| g.endpoints).sum();
            progress.suspend(|| {
                if pnr.endpoints.is_empty() {
                    return;
                }
                println!(
                    "    {late_count} of {} endpoints arrive after {period:.3} ns ({} MHz), at {} registers{}",
                    pnr.endpoints.len(),
                    args.late_mhz,
                    late.len(),
                    if late.is_empty() || args.late == 0 { "" } else { "; the latest:" }
                );
                for g in late.iter().take(args.late) {
                    println!("      {:>6.3} ns {:>5}  {}", g.worst_ns, g.endpoints, g.register);
                }
            });
            rows.push(serde_json::json!({
                "design": d.name,
                "width": args.width,
                "seed": seed,
                "placer": args.placer.name(),
                "placer_timing_weight": (args.placer == Algorithm::Heap).then_some(args.timing_weight),
                "placer_crit_exp": (args.placer == Algorithm::Heap).then_some(args.crit_exp),
                "tmg_ripup": args.tmg_ripup,
                "target_mhz": args.target_mhz,
                "router_seconds": pnr.route.router_seconds,
                "ripup_rounds": rounds.len(),
                "ripup_arcs": rounds.iter().map(|r| r.arcs).collect::<Vec<_>>(),
                "ripup_wns_ns": rounds.iter().map(|r| r.wns_ns).collect::<Vec<_>>(),
                "ecp5_fmax_mhz": pnr.fmax_mhz,
                "ecp5_comb": pnr.comb_used,
                "ecp5_ff": pnr.ff_used,
                "ecp5_bram": pnr.bram_used,
                "critical_from": pnr.critical.from,
                "critical_to": pnr.critical.to,
                "critical_logic_ns": pnr.critical.logic_ns,
                "critical_routing_ns": pnr.critical.routing_ns,
                "critical_logic_steps": pnr.critical.logic_steps,
                "part": width.part(),
                "luts": xc7.luts(),
                "lut_percent": 100.0 * xc7.luts() as f64 / luts,
                "ffs": xc7.flip_flops(),
                "ff_percent": 100.0 * xc7.flip_flops() as f64 / ffs,
                "bram36": xc7.bram36(),
                "bram_percent": 100.0 * xc7.bram36() / brams,
                "depth": xc7.depth,
                "depth_budget": depth::budget(d.name),
                "late_mhz": args.late_mhz,
                "late_endpoints": late_count,
                "endpoints": pnr.endpoints.len(),
                "late_registers": late.iter().take(args.late.max(50)).map(|g| serde_json::json!({
                    "register": g.register,
                    "endpoints": g.endpoints,
                    "worst_ns": g.worst_ns,
                })).collect::<Vec<_>>(),
            }));
        }
        let mut fmaxes: Vec<f64> = reports.iter().filter_map(|(_, r)| r.fmax_mhz).collect();
        if fmaxes.len() > 1 {
            fmaxes.sort_by(f64::total_cmp);
            let median = if fmaxes.len() % 2 == 1 {
                fmaxes[fmaxes.len() / 2]
            } else {
                (fmaxes[fmaxes.len() / 2 - 1] + fmaxes[fmaxes.len() / 2]) / 2.0
            };
            progress.suspend(|| {
                println!(
                    "{:<30} over {} seeds: min {:.1}, median {:.1}, max {:.1} MHz",
                    d.name,
                    fmaxes.len(),
                    fmaxes[0],
                    median,
                    fmaxes[fmaxes.len() - 1]
                )
            });
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    println!(
        "(Fmax: ECP5 proxy, see collwire_flow::pnr for how it relates to 7-series; comb: no \
         register, timed inside the block that registers it; depth: cells on \
         the worst register-to-register path with every storage cell cut / its budget; targets \
         {} levels at 125 MHz, {} at 200 MHz)",
        depth::TARGET_125MHZ,
        depth::TARGET_200MHZ
    );
    if let Some(path) = args.json {
        std::fs::write(&path, serde_json::to_string_pretty(&rows)?)?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = args.plot {
        plot(&path, width, &bars)?;
    }
    Ok(())
}

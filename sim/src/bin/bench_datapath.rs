//! Datapath benchmark: prints (never asserts) FPU and ALU latency, the initiation interval
//! measured over back-to-back words, Verilator simulation speed, and Yosys 7-series resource
//! estimates for every design. `--json FILE` writes the numbers for plotting.

use std::time::Instant;

use clap::Parser;
use collwire_flow::toolflow::synth_xc7;
use collwire_hdl::emit::{BusWidth, designs};
use collwire_sim::cipe_check::{self, Cipe};
use collwire_sim::models::{Cipe64, Cipe256, CipeAlu64, CipeAlu256, FpAdd32, FpAdd64};
use collwire_sim::{alu_check, fpu_check};
use serde::Serialize;

#[derive(Parser)]
#[command(about = "collwire datapath benchmark: latency, II, Verilator speed, Yosys resources")]
struct Args {
    /// Random operand pairs per FPU format.
    #[arg(long, default_value_t = 1_000_000)]
    fpu_vectors: usize,
    /// Words per ALU width.
    #[arg(long, default_value_t = 1_000_000)]
    alu_vectors: usize,
    /// Back-to-back packets streamed through each CIPE per payload size.
    #[arg(long, default_value_t = 2000)]
    cipe_packets: usize,
    /// Skip Yosys synthesis (takes a few minutes).
    #[arg(long)]
    no_synth: bool,
    /// Write the results as JSON here.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

#[derive(Serialize)]
struct StreamResult {
    unit: String,
    vectors: usize,
    mismatches: usize,
    latency_cycles: usize,
    initiation_interval: f64,
    cycles: usize,
    cycles_per_second: f64,
}

#[derive(Serialize)]
struct SynthResult {
    design: String,
    part: String,
    luts: usize,
    luts_pct: f64,
    flip_flops: usize,
    ffs_pct: f64,
    carry4: usize,
    bram36: f64,
    lutram: usize,
    dsp: usize,
    depth_levels: usize,
}

#[derive(Serialize)]
struct Report {
    streams: Vec<StreamResult>,
    synthesis: Vec<SynthResult>,
}

/// What a streamed batch reports: vectors, mismatches, first and last result cycle, cycles.
type Counts = (usize, usize, Option<usize>, Option<usize>, usize);

/// Runs one streamed batch, timing only the streaming (vector generation is done by the caller).
fn measure(unit: &str, run: impl FnOnce() -> Counts) -> StreamResult {
    let t = Instant::now();
    let (vectors, mismatches, first, last, cycles) = run();
    let secs = t.elapsed().as_secs_f64();
    let (first, last) = (first.unwrap_or(0), last.unwrap_or(0));
    StreamResult {
        unit: unit.into(),
        vectors,
        mismatches,
        // The result of the operand driven in cycle 0 is sampled after cycle `first`'s edge.
        latency_cycles: first + 1,
        initiation_interval: (last - first + 1) as f64 / vectors as f64,
        cycles,
        cycles_per_second: cycles as f64 / secs,
    }
}

fn fpu(r: fpu_check::StreamReport) -> Counts {
    (
        r.vectors,
        r.mismatches.len(),
        r.first_result_cycle,
        r.last_result_cycle,
        r.cycles,
    )
}

/// Back-to-back full-size packets (f64 SUM into rotating buffer slots) through a CIPE.
fn cipe<C: Cipe>(packets: usize, payload_bytes: usize) -> impl FnOnce() -> Counts {
    let program = cipe_check::back_to_back_program::<C>(packets, payload_bytes, 6);
    let want = cipe_check::expect(&program, C::BYTES, C::SLOT_WORDS);
    move || {
        let run = cipe_check::drive::<C>(&program, 0, 100, 1);
        let mismatches = run
            .outputs
            .iter()
            .zip(&want)
            .filter(|(a, b)| a != b)
            .count()
            + want.len().abs_diff(run.outputs.len());
        // The first word is taken at the edge ending clock 1 (its instruction arrives on clock
        // 0); `drive` sees a result before that clock's edge, hence − 2 in `measure`'s terms.
        (
            want.len(),
            mismatches,
            run.first_out.map(|c| c - 2),
            run.last_out.map(|c| c - 2),
            run.cycles,
        )
    }
}

fn alu(r: alu_check::AluReport) -> Counts {
    (
        r.vectors,
        r.mismatches.len(),
        r.first_result_cycle,
        r.last_result_cycle,
        r.cycles,
    )
}

/// (part, LUTs, FFs) of the target a design belongs to.
fn part_of(design: &str) -> (&'static str, f64, f64) {
    let width = if design.ends_with("256") {
        BusWidth::W256
    } else {
        BusWidth::W64
    };
    match width {
        BusWidth::W64 => (width.part(), 53_200.0, 106_400.0),
        BusWidth::W256 => (width.part(), 433_200.0, 866_400.0),
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let mut streams = Vec::new();
    // Eight streams, then synthesis: a bar with an ETA on a terminal, nothing in CI or a pipe.
    let bar = collwire_sim::progress::bar(8 + u64::from(!args.no_synth), "bench_datapath");

    let p64 = fpu_check::random_pairs(args.fpu_vectors, 1, 11, 52);
    streams.push(measure("fp_add64", || {
        fpu(fpu_check::stream(&mut FpAdd64::new(), &p64))
    }));
    bar.inc(1);
    let p32 = fpu_check::random_pairs(args.fpu_vectors, 2, 8, 23);
    streams.push(measure("fp_add32", || {
        fpu(fpu_check::stream(&mut FpAdd32::new(), &p32))
    }));
    bar.inc(1);
    let v64 = alu_check::random_vectors(args.alu_vectors, 8, 3);
    streams.push(measure("cipe_alu64", || {
        alu(alu_check::stream(&mut CipeAlu64::new(), &v64))
    }));
    bar.inc(1);
    let v256 = alu_check::random_vectors(args.alu_vectors, 32, 4);
    streams.push(measure("cipe_alu256", || {
        alu(alu_check::stream(&mut CipeAlu256::new(), &v256))
    }));
    bar.inc(1);

    for bytes in [1440, collwire_hdl::cipe::SLOT_BYTES] {
        streams.push(measure(
            &format!("cipe64 {bytes}B packets"),
            cipe::<Cipe64>(args.cipe_packets, bytes),
        ));
        bar.inc(1);
        streams.push(measure(
            &format!("cipe256 {bytes}B packets"),
            cipe::<Cipe256>(args.cipe_packets, bytes),
        ));
        bar.inc(1);
    }

    if args.no_synth {
        bar.finish_and_clear();
    }
    bar.suspend(|| {
    println!(
        "{:<24} {:>9} {:>10} {:>8} {:>5} {:>14}",
        "unit", "vectors", "mismatches", "latency", "II", "Verilator c/s"
    );
    for s in &streams {
        println!(
            "{:<24} {:>9} {:>10} {:>8} {:>5.3} {:>14.0}",
            s.unit,
            s.vectors,
            s.mismatches,
            s.latency_cycles,
            s.initiation_interval,
            s.cycles_per_second
        );
    }
    println!(
        "(vectors = result words; stream time includes the Rust-side reference model and result checks;"
    );
    println!(
        " cipe latency counts from the first payload word in, II over all packets back to back)"
    );
    });

    let mut synthesis = Vec::new();
    if !args.no_synth {
        let dir = std::env::temp_dir().join("collwire-bench-synth");
        let designs = designs();
        let reports: Vec<_> = std::thread::scope(|s| {
            let hs: Vec<_> = designs
                .iter()
                .map(|d| s.spawn(|| synth_xc7(&dir, d)))
                .collect();
            hs.into_iter()
                .map(|h| h.join().expect("synthesis thread"))
                .collect()
        });
        bar.finish_and_clear();
        println!(
            "\n{:<22} {:<10} {:>7} {:>6} {:>7} {:>6} {:>6} {:>6} {:>4} {:>6}",
            "design", "part", "LUT", "LUT%", "FF", "FF%", "CARRY4", "BRAM", "DSP", "depth"
        );
        for (d, r) in designs.iter().zip(reports) {
            let r = r?;
            let (part, luts, ffs) = part_of(d.name);
            let s = SynthResult {
                design: d.name.into(),
                part: part.into(),
                luts: r.luts(),
                luts_pct: 100.0 * r.luts() as f64 / luts,
                flip_flops: r.flip_flops(),
                ffs_pct: 100.0 * r.flip_flops() as f64 / ffs,
                carry4: r.carry4(),
                bram36: r.bram36(),
                lutram: r.lutram(),
                dsp: r.dsp(),
                depth_levels: r.depth,
            };
            println!(
                "{:<22} {:<10} {:>7} {:>5.1}% {:>7} {:>5.1}% {:>6} {:>6.1} {:>4} {:>6}",
                s.design,
                s.part,
                s.luts,
                s.luts_pct,
                s.flip_flops,
                s.ffs_pct,
                s.carry4,
                s.bram36,
                s.dsp,
                s.depth_levels
            );
            synthesis.push(s);
        }
        println!(
            "(Yosys synth_xilinx -family xc7 estimates; depth in cells, each CARRY4 one level)"
        );
    }
    if let Some(path) = args.json {
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&Report { streams, synthesis })?,
        )?;
        println!("\nwrote {}", path.display());
    }
    Ok(())
}

//! The soak bench: random collectives over the boards' own links with faults on every link,
//! every result against the golden model. Prints (never asserts) the share of runs that
//! completed with no error visible to the application, the errors by kind, the wrong and hung
//! runs (the goal: none), and what the faults cost the runs that still came out exact.

use clap::Parser;
use collwire_testbench::soak::{SoakConfig, soak};

#[derive(Parser)]
#[command(about = "collwire soak: random collectives over lossy simulated links")]
struct Args {
    /// Collectives to run.
    #[arg(long, default_value_t = 10_000)]
    runs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Datapath width of the boards: 64 (1G links) or 256 (10G).
    #[arg(long, default_value_t = 64)]
    width: usize,
    /// Write the report as JSON here.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let config = SoakConfig::issue(args.runs, args.seed, args.width);
    println!(
        "soak: {} random collectives on {}-bit boards, P ≤ {}, faults on every cable and host link \
         {:?}, deadline {:?}",
        config.runs, config.width, config.max_ranks, config.cable_faults, config.deadline
    );
    let bar = collwire_sim::progress::bar(config.runs as u64, "soak");
    let report = soak(&config, |_, r| {
        bar.inc(1);
        bar.set_message(format!(
            "{} exact, {} wrong, {} hung",
            r.exact, r.wrong, r.hangs
        ));
    });
    bar.finish_and_clear();
    println!(
        "soak: {:.2} % of {} runs completed with no application-visible error (goal ≥ 99.9 %)",
        100.0 * report.exact_share(),
        report.runs
    );
    println!(
        "soak: wrong results {}, hangs {} (goal: 0, 0)",
        report.wrong, report.hangs
    );
    for (kind, n) in &report.errors {
        println!("soak: ended in an error: {kind:<24} {n}");
    }
    println!(
        "soak: {} runs met a link fault, {} of them still exact; exact runs took {:.0} cycles on \
         average without a fault, {:.0} with one",
        report.faulted, report.faulted_exact, report.clean_mean_cycles, report.faulted_mean_cycles
    );
    for (i, case, ending) in &report.failures {
        println!("soak: run {i} {case:?}: {ending:?}");
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
    }
    Ok(())
}

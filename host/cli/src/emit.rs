//! `collwire emit`: the Verilog of one target, with meaningful module names.

use anyhow::{Context, Result, bail};
use collwire_flow::toolflow::{icarus_elaborate, lint, synth_xc7};
use collwire_hdl::emit::{BusWidth, designs_for};

#[derive(clap::Args)]
pub struct Args {
    /// Datapath width: 64 (ZedBoard, xc7z020) or 256 (NetFPGA SUME, xc7vx690t).
    #[arg(long, value_parser = ["64", "256"])]
    pub width: String,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: std::path::PathBuf,
    /// Also run `verilator --lint-only`, elaborate in Icarus (`iverilog -g2012`) with the check
    /// that no signal crossing into another block is assigned twice per evaluation, and Yosys
    /// `synth_xilinx` (latch check, resources).
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let Some(width) = args.width.parse().ok().and_then(BusWidth::from_bits) else {
        bail!("--width must be 64 or 256");
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    for d in designs_for(width) {
        let path = args.out.join(format!("{}.v", d.name));
        std::fs::write(&path, &d.verilog).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {} (module {})", path.display(), d.name);
        if args.check {
            let work = args.out.join(".check");
            lint(&work, &d)?;
            icarus_elaborate(&work, &d)?;
            let r = synth_xc7(&work, &d)?;
            println!(
                "  lint clean; Icarus elaborates; {}: {} LUT, {} FF, {} CARRY4, {} DSP, {:.1} BRAM36, no latches, depth {} ({})",
                width.part(),
                r.luts(),
                r.flip_flops(),
                r.carry4(),
                r.dsp(),
                r.bram36(),
                r.depth,
                match collwire_flow::depth::budget(d.name) {
                    Some(b) if r.depth <= b => format!("budget {b}"),
                    Some(b) => format!("OVER its budget {b}"),
                    None => "no budget".to_string(),
                }
            );
        }
    }
    Ok(())
}

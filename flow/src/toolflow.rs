//! Runs the external Verilog tools on emitted designs: Verilator lint, Icarus Verilog
//! elaboration, and Yosys synthesis for Xilinx 7-series, with latch detection, resource counts
//! and combinational depth.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use collwire_hdl::emit::{BusWidth, Design, designs_for};

/// Why a tool run failed.
#[derive(Debug)]
pub enum ToolError {
    /// The tool could not be started (not installed: run `scripts/setup`).
    Missing(String, std::io::Error),
    /// The tool ran and reported a problem.
    Failed {
        tool: &'static str,
        design: String,
        log: String,
    },
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Missing(tool, e) => write!(f, "cannot run {tool}: {e} (run scripts/setup)"),
            ToolError::Failed { tool, design, log } => {
                write!(f, "{tool} rejected {design}:\n{log}")
            }
        }
    }
}

impl std::error::Error for ToolError {}

fn write_design(dir: &Path, design: &Design) -> PathBuf {
    std::fs::create_dir_all(dir).expect("work directory");
    let file = dir.join(format!("{}.v", design.name));
    std::fs::write(&file, &design.verilog).expect("write Verilog");
    file
}

pub(crate) fn run(
    tool: &'static str,
    design: &str,
    cmd: &mut Command,
) -> Result<String, ToolError> {
    let out = cmd
        .output()
        .map_err(|e| ToolError::Missing(tool.to_string(), e))?;
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(ToolError::Failed {
            tool,
            design: design.to_string(),
            log,
        });
    }
    Ok(log)
}

/// `verilator --lint-only` with WIDTH warnings waived (rust-hdl literals are 32 bits wide);
/// any other warning fails.
pub fn lint(dir: &Path, design: &Design) -> Result<(), ToolError> {
    let file = write_design(dir, design);
    run(
        "verilator",
        design.name,
        Command::new("verilator")
            // UNOPTFLAT is waived: Verilator judges loops per always block, and rust-hdl emits
            // one combinational always block per module, so a block that computes its
            // `m_axis_tvalid` and its `s_axis_tready` (or a FIFO's `empty` and the read address
            // that `read` moves) in one block reads as a loop through its neighbour (25
            // warnings on board64, all such handshake paths: router → splitter → CIPE and
            // back, FIFO → parent → FIFO). It costs Verilator evaluation speed, not
            // correctness. Real combinational loops are caught by `synth_xc7` (Yosys `scc` on
            // the generic netlist, before technology mapping), and `verilog_lint` keeps
            // event-driven simulators from re-triggering blocks.
            .args([
                "--lint-only",
                "-Wno-WIDTH",
                "-Wno-UNOPTFLAT",
                "--top-module",
                design.name,
            ])
            .arg(file),
    )
    .map(|_| ())
}

/// `iverilog -g2012` elaborates the design (a second front end: every construct rust-hdl emits
/// must be one an event-driven simulator accepts), and [`crate::verilog_lint`] finds no signal
/// crossing into another block assigned twice per evaluation. Running a whole board in Icarus is
/// `collwire_sim::icarus` (tested in `testbench/tests/icarus_board.rs`).
pub fn icarus_elaborate(dir: &Path, design: &Design) -> Result<(), ToolError> {
    let file = write_design(dir, design);
    run(
        "iverilog",
        design.name,
        Command::new("iverilog")
            .args(["-g2012", "-s", design.name, "-o"])
            .arg(dir.join(format!("{}.vvp", design.name)))
            .arg(file),
    )?;
    let crossings = crate::verilog_lint::reassigned_crossings(&design.verilog);
    if !crossings.is_empty() {
        return Err(ToolError::Failed {
            tool: "verilog_lint",
            design: design.name.to_string(),
            log: format!(
                "assigned twice in one evaluation although another block reads it:\n  {}",
                crossings.join("\n  ")
            ),
        });
    }
    Ok(())
}

/// Yosys `synth_xilinx` result for one design.
#[derive(Debug, Clone, Default)]
pub struct SynthReport {
    /// Cell type → count, e.g. `LUT6`, `FDRE`, `CARRY4`, `RAMB36E1`, `DSP48E1`.
    pub cells: BTreeMap<String, usize>,
    /// Longest combinational path in cells (CARRY4 counts as one level each).
    pub depth: usize,
}

impl SynthReport {
    fn sum(&self, prefix: &[&str]) -> usize {
        self.cells
            .iter()
            .filter(|(k, _)| prefix.iter().any(|p| k.starts_with(p)))
            .map(|(_, v)| v)
            .sum()
    }
    pub fn luts(&self) -> usize {
        self.sum(&["LUT"])
    }
    pub fn flip_flops(&self) -> usize {
        self.sum(&["FD"])
    }
    pub fn carry4(&self) -> usize {
        self.sum(&["CARRY4"])
    }
    pub fn dsp(&self) -> usize {
        self.sum(&["DSP48"])
    }
    /// In RAMB36 equivalents (a RAMB18 counts half).
    pub fn bram36(&self) -> f64 {
        self.sum(&["RAMB36"]) as f64 + self.sum(&["RAMB18"]) as f64 / 2.0
    }
    /// LUTs used as distributed RAM.
    pub fn lutram(&self) -> usize {
        self.sum(&["RAM32", "RAM64", "RAM128", "RAM256"])
    }
    pub fn latches(&self) -> usize {
        self.sum(&["LD"])
    }
}

/// `synth_xilinx -family xc7`, then the cell counts, then the combinational depth (every storage
/// cell deleted first — flip-flops, block and distributed RAM, shift registers — so paths end
/// at storage and do not run through an SRL or a LUTRAM; [`crate::depth`]). Fails on a combinational loop
/// (`scc` on the generic netlist) or when any latch is inferred.
pub fn synth_xc7(dir: &Path, design: &Design) -> Result<SynthReport, ToolError> {
    let file = write_design(dir, design);
    let script = format!(
        "read_verilog {file}; hierarchy -top {top}; proc; flatten; opt_clean; scc -expect 0; \
         synth_xilinx -family xc7 -top {top} -flatten -noiopad -noclkbuf; \
         tee -o {stat} stat -tech xilinx; delete t:FD* t:RAM* t:SRL*; tee -o {ltp} ltp -noff",
        file = file.display(),
        top = design.name,
        stat = dir.join(format!("{}.stat", design.name)).display(),
        ltp = dir.join(format!("{}.ltp", design.name)).display(),
    );
    let log = run(
        "yosys",
        design.name,
        Command::new("yosys").arg("-q").arg("-p").arg(script),
    )?;
    if log.contains("Latch inferred") {
        return Err(ToolError::Failed {
            tool: "yosys",
            design: design.name.into(),
            log,
        });
    }
    let stat =
        std::fs::read_to_string(dir.join(format!("{}.stat", design.name))).unwrap_or_default();
    let mut report = SynthReport::default();
    let mut in_cells = false;
    for line in stat.lines().map(str::trim) {
        if line.starts_with("Number of cells:") {
            in_cells = true;
            continue;
        }
        let mut parts = line.split_whitespace();
        match (
            in_cells,
            parts.next(),
            parts.next().and_then(|n| n.parse::<usize>().ok()),
        ) {
            (true, Some(cell), Some(n)) => {
                report.cells.insert(cell.to_string(), n);
            }
            (true, _, _) if !line.is_empty() => in_cells = false,
            _ => {}
        }
    }
    let ltp = std::fs::read_to_string(dir.join(format!("{}.ltp", design.name))).unwrap_or_default();
    report.depth = ltp
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Longest topological path in ")
                .and_then(|r| r.split("length=").nth(1))
        })
        .and_then(|r| {
            r.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .ok()
        })
        .unwrap_or(0);
    if report.latches() > 0 {
        return Err(ToolError::Failed {
            tool: "yosys",
            design: design.name.into(),
            log: stat,
        });
    }
    Ok(report)
}

/// The designs of one target (`collwire_hdl::emit::designs_for`), generated on a thread with a
/// large stack: rust-hdl's Verilog generation recurses through the whole board hierarchy.
pub fn emit_designs(width: BusWidth) -> anyhow::Result<Vec<Design>> {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || designs_for(width))?
        .join()
        .map_err(|_| anyhow::anyhow!("emitting the designs failed"))
}

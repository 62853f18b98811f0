//! The second simulator: a board's pins recorded cycle by cycle under Verilator, replayed in
//! Icarus Verilog (`iverilog -g2012` + `vvp`) on the same emitted Verilog, and every output
//! compared.
//!
//! [`Recording`] wraps any [`BoardModel`] (a board in a [`crate::cluster::Cluster`], see
//! [`crate::cluster::Cluster::new_wrapped`]) and logs, at every rising edge, the inputs the
//! board saw and the outputs it drove. [`replay`] writes the inputs to a file, generates a
//! testbench that drives them into the Verilog module with the clock low, samples the outputs,
//! raises the clock, and returns what Icarus computed; [`compare`] checks that the two
//! simulators agree on every output of every cycle: `s_axis_tready`, `m_axis_tvalid`, every
//! byte, `tkeep` and `tlast` of every beat that is valid, the CFE state and the configuration read port (`cfg_rdata`, where the statistics counters are read). An X
//! or Z anywhere in those outputs is a mismatch.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::axis::Beat;
use crate::board::BoardModel;

/// The input pins of one port for one cycle (`tdata`/`tkeep`/`tlast` keep their last value
/// while `tvalid` is low, as on real pins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortIn {
    pub tvalid: bool,
    pub tlast: bool,
    /// The MAC's `tuser`: the frame was received bad.
    pub tuser: bool,
    pub tkeep: u64,
    pub tdata: Vec<u8>,
    /// `m_axis_tready` of the same port.
    pub m_tready: bool,
}

/// Every input pin of a board for one cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs {
    pub reset: bool,
    pub cfg_we: bool,
    pub cfg_addr: u16,
    pub cfg_data: u32,
    pub age_tick: bool,
    pub ports: Vec<PortIn>,
}

/// An output beat on the pins: `tdata`, `tkeep`, `tlast`, `tuser` (the MAC's abort).
pub type PinBeat = (Vec<u8>, u64, bool, bool);

/// Every output of a board for one cycle, as the comparison sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs {
    /// `s_axis_tready` per port.
    pub s_tready: Vec<bool>,
    /// The beat each port drives, `None` while `m_axis_tvalid` is low.
    pub beats: Vec<Option<PinBeat>>,
    pub cfe_state: u8,
    /// The configuration read port (`cfg_rdata`: a statistics counter, or 0).
    pub cfg_rdata: u64,
}

/// One clock cycle: the inputs with the clock low, and the outputs they settled to.
#[derive(Debug, Clone)]
pub struct Cycle {
    pub inputs: Inputs,
    pub outputs: Outputs,
}

/// The cycles a [`Recording`] logged.
pub type Log = Arc<Mutex<Vec<Cycle>>>;

/// A board model that logs its pins at every rising edge.
pub struct Recording {
    inner: Box<dyn BoardModel>,
    now: Inputs,
    /// No input changed since the last settle.
    settled: bool,
    log: Log,
}

impl Recording {
    /// Wraps `inner`; the cycles go to `log`.
    pub fn new(inner: Box<dyn BoardModel>, log: Log) -> Recording {
        let ports = inner.ports();
        let bytes = inner.bytes();
        Recording {
            now: Inputs {
                ports: vec![
                    PortIn {
                        tdata: vec![0; bytes],
                        ..PortIn::default()
                    };
                    ports
                ],
                ..Inputs::default()
            },
            inner,
            settled: false,
            log,
        }
    }

    fn outputs(&self) -> Outputs {
        let ports = self.inner.ports();
        Outputs {
            s_tready: (0..ports).map(|p| self.inner.input_ready(p)).collect(),
            beats: (0..ports)
                .map(|p| {
                    self.inner
                        .output(p)
                        .map(|b| (b.data, b.keep, b.last, b.user & crate::axis::MAC_BAD != 0))
                })
                .collect(),
            cfe_state: self.inner.cfe_state(),
            cfg_rdata: self.inner.cfg_rdata().into(),
        }
    }
}

impl BoardModel for Recording {
    fn bytes(&self) -> usize {
        self.inner.bytes()
    }
    fn ports(&self) -> usize {
        self.inner.ports()
    }
    fn set_input(&mut self, port: usize, beat: Option<&Beat>) {
        self.settled = false;
        let pin = &mut self.now.ports[port];
        pin.tvalid = beat.is_some();
        if let Some(b) = beat {
            pin.tdata = b.data.clone();
            pin.tdata.resize(self.inner.bytes(), 0);
            pin.tkeep = b.keep;
            pin.tlast = b.last;
            pin.tuser = b.user & crate::axis::MAC_BAD != 0;
        }
        self.inner.set_input(port, beat);
    }
    fn set_output_ready(&mut self, port: usize, ready: bool) {
        self.settled = false;
        self.now.ports[port].m_tready = ready;
        self.inner.set_output_ready(port, ready);
    }
    fn settle(&mut self) {
        self.inner.settle();
        self.settled = true;
    }
    fn input_ready(&self, port: usize) -> bool {
        self.inner.input_ready(port)
    }
    fn took(&self, port: usize) -> bool {
        self.inner.took(port)
    }
    fn output(&self, port: usize) -> Option<Beat> {
        self.inner.output(port)
    }
    fn rise(&mut self) -> bool {
        // The outputs of exactly the inputs logged (settled again only if a caller changed an
        // input after its last settle).
        if !self.settled {
            self.inner.settle();
        }
        self.settled = false;
        let outputs = self.outputs();
        self.log.lock().unwrap().push(Cycle {
            inputs: self.now.clone(),
            outputs,
        });
        self.inner.rise();
        // Every cycle is logged for the replay: never let the cluster skip this board.
        true
    }
    fn set_reset(&mut self, on: bool) {
        self.settled = false;
        self.now.reset = on;
        self.inner.set_reset(on);
    }
    fn set_age_tick(&mut self, on: bool) {
        self.settled = false;
        self.now.age_tick = on;
        self.inner.set_age_tick(on);
    }
    fn set_cfg(&mut self, we: bool, addr: u16, data: u32) {
        self.settled = false;
        self.now.cfg_we = we;
        self.now.cfg_addr = addr;
        self.now.cfg_data = data;
        self.inner.set_cfg(we, addr, data);
    }
    fn cfe_state(&self) -> u8 {
        self.inner.cfe_state()
    }
    fn cfg_rdata(&self) -> u32 {
        self.inner.cfg_rdata()
    }
    /// Not logged: the inner model reads and puts its port back before the next clock.
    fn read_cfg(&mut self, addr: u16) -> u32 {
        self.inner.read_cfg(addr)
    }
    fn verilog(&self) -> (&'static str, &'static str) {
        self.inner.verilog()
    }
}

/// Why a replay could not run or did not agree.
#[derive(Debug, thiserror::Error)]
pub enum IcarusError {
    #[error("cannot run {0}: {1} (run scripts/setup)")]
    Missing(&'static str, std::io::Error),
    #[error("{tool} failed:\n{log}")]
    Failed { tool: &'static str, log: String },
    #[error(
        "{tool} did not finish within {limit:?} (always-blocks that re-trigger each other?)\n{log}"
    )]
    Timeout {
        tool: &'static str,
        limit: Duration,
        log: String,
    },
    #[error("Icarus stopped after {got} of {want} cycles")]
    Short { got: usize, want: usize },
    #[error("cycle {cycle}: Icarus printed `{line}`, which is not a valid output line ({why})")]
    Unreadable {
        cycle: usize,
        line: String,
        why: String,
    },
    #[error("cycle {cycle}: {what}: Verilator {verilator}, Icarus {icarus}")]
    Mismatch {
        cycle: usize,
        what: String,
        verilator: String,
        icarus: String,
    },
}

fn hex_bytes(le: &[u8]) -> String {
    le.iter().rev().map(|b| format!("{b:02x}")).collect()
}

fn from_hex_le(s: &str, bytes: usize) -> Result<Vec<u8>, String> {
    if s.len() != 2 * bytes {
        return Err(format!("{s:?} is not {bytes} bytes of hex"));
    }
    let mut v = (0..bytes)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| format!("{s:?}")))
        .collect::<Result<Vec<u8>, String>>()?;
    v.reverse();
    Ok(v)
}

fn hex_u64(s: &str) -> Result<u64, String> {
    u64::from_str_radix(s, 16).map_err(|_| format!("{s:?} is not a hex number"))
}

/// The testbench that plays `inputs` (a file of one line per cycle) into module `module` and
/// prints one line of outputs per cycle to `outputs`; with `vcd`, it also dumps every signal
/// of every block of the board there (`$dumpvars`), one clock a nanosecond apart.
pub fn testbench(
    module: &str,
    ports: usize,
    bytes: usize,
    inputs: &Path,
    outputs: &Path,
    vcd: Option<&Path>,
) -> String {
    let w = 8 * bytes;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "`timescale 1ns/1ps\n// Replays a board's recorded input pins, one line per clock.\nmodule collwire_replay;"
    );
    let _ = writeln!(
        t,
        "    reg clock = 0;\n    reg reset = 0;\n    reg cfg_we = 0;\n    reg [15:0] cfg_addr = 0;\n    reg [31:0] cfg_data = 0;\n    reg age_tick = 0;"
    );
    let _ = writeln!(t, "    wire [3:0] cfe_state;");
    let _ = writeln!(t, "    wire [31:0] cfg_rdata;");
    for p in 0..ports {
        let _ = writeln!(
            t,
            "    reg [{}:0] s_tdata_{p} = 0;\n    reg [{}:0] s_tkeep_{p} = 0;\n    reg s_tlast_{p} = 0;\n    reg s_tuser_{p} = 0;\n    reg s_tvalid_{p} = 0;\n    reg m_tready_{p} = 0;",
            w - 1,
            bytes - 1
        );
        let _ = writeln!(
            t,
            "    wire s_tready_{p};\n    wire [{}:0] m_tdata_{p};\n    wire [{}:0] m_tkeep_{p};\n    wire m_tlast_{p};\n    wire m_tuser_{p};\n    wire m_tvalid_{p};",
            w - 1,
            bytes - 1
        );
    }
    let mut conns = vec![
        ".clock(clock)".to_string(),
        ".reset(reset)".into(),
        ".cfg_we(cfg_we)".into(),
        ".cfg_addr(cfg_addr)".into(),
        ".cfg_data(cfg_data)".into(),
        ".age_tick(age_tick)".into(),
        ".cfe_state(cfe_state)".into(),
    ];
    conns.push(".cfg_rdata(cfg_rdata)".into());
    for p in 0..ports {
        for (pin, reg) in [
            ("s_axis_tdata", "s_tdata"),
            ("s_axis_tkeep", "s_tkeep"),
            ("s_axis_tlast", "s_tlast"),
            ("s_axis_tuser", "s_tuser"),
            ("s_axis_tvalid", "s_tvalid"),
            ("s_axis_tready", "s_tready"),
            ("m_axis_tdata", "m_tdata"),
            ("m_axis_tkeep", "m_tkeep"),
            ("m_axis_tlast", "m_tlast"),
            ("m_axis_tuser", "m_tuser"),
            ("m_axis_tvalid", "m_tvalid"),
            ("m_axis_tready", "m_tready"),
        ] {
            conns.push(format!(".{pin}_{p}({reg}_{p})"));
        }
    }
    let _ = writeln!(
        t,
        "    {module} dut(\n        {}\n    );",
        conns.join(",\n        ")
    );
    if let Some(vcd) = vcd {
        let _ = writeln!(
            t,
            "    initial begin\n        $dumpfile(\"{}\");\n        $dumpvars(0, dut);\n    end",
            vcd.display()
        );
    }
    let mut scan_fmt = String::from("%h %h %h %h %h");
    let mut scan_args = vec!["reset", "cfg_we", "cfg_addr", "cfg_data", "age_tick"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    let mut out_fmt = String::new();
    let mut out_args = Vec::new();
    for p in 0..ports {
        scan_fmt += " %h %h %h %h %h %h";
        for r in [
            "s_tvalid", "s_tlast", "s_tuser", "s_tkeep", "s_tdata", "m_tready",
        ] {
            scan_args.push(format!("{r}_{p}"));
        }
        out_fmt += "%h %h %h %h %h %h ";
        for r in [
            "s_tready", "m_tvalid", "m_tlast", "m_tuser", "m_tkeep", "m_tdata",
        ] {
            out_args.push(format!("{r}_{p}"));
        }
    }
    out_fmt += "%h";
    out_args.push("cfe_state".into());
    out_fmt += " %h";
    out_args.push("cfg_rdata".into());
    let _ = writeln!(
        t,
        "    integer fin, fout, n;\n    initial begin\n        fin = $fopen(\"{}\", \"r\");\n        fout = $fopen(\"{}\", \"w\");\n        n = $fscanf(fin, \"{scan_fmt}\\n\", {});\n        while (n == {}) begin\n            #1;\n            $fwrite(fout, \"{out_fmt}\\n\", {});\n            clock = 1;\n            #1;\n            clock = 0;\n            n = $fscanf(fin, \"{scan_fmt}\\n\", {});\n        end\n        $fclose(fout);\n        $finish;\n    end\nendmodule",
        inputs.display(),
        outputs.display(),
        scan_args.join(", "),
        scan_args.len(),
        out_args.join(", "),
        scan_args.join(", "),
    );
    t
}

fn input_line(i: &Inputs) -> String {
    let mut s = format!(
        "{:x} {:x} {:x} {:x} {:x}",
        u8::from(i.reset),
        u8::from(i.cfg_we),
        i.cfg_addr,
        i.cfg_data,
        u8::from(i.age_tick)
    );
    for p in &i.ports {
        let _ = write!(
            s,
            " {:x} {:x} {:x} {:x} {} {:x}",
            u8::from(p.tvalid),
            u8::from(p.tlast),
            u8::from(p.tuser),
            p.tkeep,
            hex_bytes(&p.tdata),
            u8::from(p.m_tready)
        );
    }
    s
}

/// Runs `cmd` to completion, killed after `limit` (a design whose always-blocks re-trigger
/// each other never leaves its time step).
fn run(tool: &'static str, cmd: &mut Command, limit: Duration) -> Result<(), IcarusError> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| IcarusError::Missing(tool, e))?;
    // Drain the pipes on threads so a chatty tool cannot block on a full pipe.
    let drain = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut r) = r {
                let _ = r.read_to_string(&mut text);
            }
            text
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as _));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as _));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() < limit => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let log = out.join().unwrap_or_default() + &err.join().unwrap_or_default();
    match status {
        None => Err(IcarusError::Timeout { tool, limit, log }),
        Some(s) if !s.success() => Err(IcarusError::Failed { tool, log }),
        Some(_) => Ok(()),
    }
}

/// Replays `cycles` (recorded from a board with `ports` ports of `bytes` bytes) in Icarus on
/// `verilog`, whose top module is `module`, in directory `dir`. Returns the raw output lines.
///
/// With `COLLWIRE_ICARUS_VCD=FILE` in the environment, the replay also writes every internal
/// signal of the board (every register and wire of every block, by its Verilog name) to FILE:
/// the waveform to read when a board misbehaves in the Verilated cluster, whose own VCD
/// (`collwire cluster --vcd`) has the board's pins and counters only.
pub fn replay(
    dir: &Path,
    module: &str,
    verilog: &str,
    ports: usize,
    bytes: usize,
    cycles: &[Cycle],
) -> Result<Vec<String>, IcarusError> {
    std::fs::create_dir_all(dir).map_err(|e| IcarusError::Missing("a work directory", e))?;
    let vfile = dir.join(format!("{module}.v"));
    let tb = dir.join("collwire_replay.v");
    let inputs = dir.join("inputs.hex");
    let outputs = dir.join("outputs.hex");
    let sim = dir.join("replay.vvp");
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).map_err(|e| IcarusError::Missing("the work directory", e))
    };
    write(&vfile, verilog)?;
    let vcd = std::env::var_os("COLLWIRE_ICARUS_VCD").map(std::path::PathBuf::from);
    write(
        &tb,
        &testbench(module, ports, bytes, &inputs, &outputs, vcd.as_deref()),
    )?;
    let mut lines = String::new();
    for c in cycles {
        lines += &input_line(&c.inputs);
        lines.push('\n');
    }
    write(&inputs, &lines)?;
    run(
        "iverilog",
        Command::new("iverilog")
            .args(["-g2012", "-s", "collwire_replay", "-o"])
            .arg(&sim)
            .arg(&tb)
            .arg(&vfile),
        Duration::from_secs(300),
    )?;
    // Icarus runs a board at about a thousand cycles a second on this machine; the limit is
    // ten times that, so only a simulation that stopped advancing reaches it.
    let limit = Duration::from_secs(60) + Duration::from_millis(10) * cycles.len() as u32;
    run("vvp", Command::new("vvp").arg("-n").arg(&sim), limit)?;
    let text = std::fs::read_to_string(&outputs).map_err(|e| IcarusError::Missing("vvp", e))?;
    Ok(text.lines().map(String::from).collect())
}

fn parse_line(line: &str, ports: usize, bytes: usize) -> Result<Outputs, String> {
    let f: Vec<&str> = line.split_whitespace().collect();
    let want = 6 * ports + 2;
    if f.len() != want {
        return Err(format!("{} fields, not {want}", f.len()));
    }
    let bit = |s: &str| match s {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(format!("{s:?} is not a bit")),
    };
    let mut o = Outputs::default();
    for p in 0..ports {
        let g = &f[6 * p..6 * p + 6];
        o.s_tready.push(bit(g[0])?);
        o.beats.push(if bit(g[1])? {
            Some((
                from_hex_le(g[5], bytes)?,
                hex_u64(g[4])?,
                bit(g[2])?,
                bit(g[3])?,
            ))
        } else {
            None
        });
    }
    o.cfe_state = hex_u64(f[6 * ports])? as u8;
    o.cfg_rdata = hex_u64(f[6 * ports + 1])?;
    Ok(o)
}

/// Checks that Icarus's `lines` agree with the Verilator `cycles` on every output of every
/// cycle; the first disagreement is the error.
pub fn compare(
    cycles: &[Cycle],
    lines: &[String],
    ports: usize,
    bytes: usize,
) -> Result<(), IcarusError> {
    if lines.len() < cycles.len() {
        return Err(IcarusError::Short {
            got: lines.len(),
            want: cycles.len(),
        });
    }
    for (n, (c, line)) in cycles.iter().zip(lines).enumerate() {
        let got = parse_line(line, ports, bytes).map_err(|why| IcarusError::Unreadable {
            cycle: n,
            line: line.clone(),
            why,
        })?;
        let want = &c.outputs;
        let mismatch = |what: String, v: String, i: String| IcarusError::Mismatch {
            cycle: n,
            what,
            verilator: v,
            icarus: i,
        };
        for p in 0..ports {
            if want.s_tready[p] != got.s_tready[p] {
                return Err(mismatch(
                    format!("s_axis_tready_{p}"),
                    want.s_tready[p].to_string(),
                    got.s_tready[p].to_string(),
                ));
            }
            let show = |b: &Option<PinBeat>| match b {
                None => "no beat".to_string(),
                Some((d, k, l, u)) => {
                    format!("data {} keep {k:x} last {l} user {u}", hex_bytes(d))
                }
            };
            if want.beats[p] != got.beats[p] {
                return Err(mismatch(
                    format!("m_axis port {p}"),
                    show(&want.beats[p]),
                    show(&got.beats[p]),
                ));
            }
        }
        if want.cfe_state != got.cfe_state {
            return Err(mismatch(
                "cfe_state".into(),
                want.cfe_state.to_string(),
                got.cfe_state.to_string(),
            ));
        }
        if want.cfg_rdata != got.cfg_rdata {
            return Err(mismatch(
                format!("cfg_rdata (address {:#x})", c.inputs.cfg_addr),
                want.cfg_rdata.to_string(),
                got.cfg_rdata.to_string(),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_lines_parse_and_reject_x() {
        let ok = "1 1 0 0 ff 0102030405060708 0 0 0 0 00 0000000000000000 0 0 0 0 00 0000000000000000 1 0 0 0 00 0000000000000000 3 00000002";
        let o = parse_line(ok, 4, 8).unwrap();
        assert!(o.s_tready[0] && !o.s_tready[1] && o.s_tready[3]);
        assert_eq!(
            o.beats[0],
            Some((vec![8, 7, 6, 5, 4, 3, 2, 1], 0xff, false, false))
        );
        assert_eq!(o.beats[1], None);
        assert_eq!(o.cfe_state, 3);
        assert_eq!(o.cfg_rdata, 2);
        let x = ok.replacen("0102030405060708", "01020304050607xx", 1);
        assert!(parse_line(&x, 4, 8).is_err());
        let x = ok.replacen("1 1 0 0 ff", "1 x 0 0 ff", 1);
        assert_ne!(x, ok);
        assert!(parse_line(&x, 4, 8).is_err());
    }

    /// Two always-blocks that assign each other's input with a default and then an override:
    /// Icarus never leaves time 0, and the run is stopped and reported, not waited on forever.
    #[test]
    fn a_simulation_stuck_at_one_time_step_is_stopped() {
        let dir = std::env::temp_dir().join(format!("collwire-icarus-loop-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let v = dir.join("loop.v");
        std::fs::write(
            &v,
            "module child(input wire a, output reg y);\n  always @(*) begin y = 1'b0; y = a; end\nendmodule\n\
             module top;\n  reg a, go; wire y;\n  child c(.a(a), .y(y));\n  always @(*) begin a = 1'b0; a = y | go; end\n\
             initial begin #0 go = 1'b1; #1 $display(\"left time 0\"); $finish; end\nendmodule\n",
        )
        .unwrap();
        let sim = dir.join("loop.vvp");
        run(
            "iverilog",
            Command::new("iverilog")
                .args(["-g2012", "-s", "top", "-o"])
                .arg(&sim)
                .arg(&v),
            Duration::from_secs(60),
        )
        .unwrap();
        let e = run(
            "vvp",
            Command::new("vvp").arg("-n").arg(&sim),
            Duration::from_secs(2),
        );
        assert!(matches!(e, Err(IcarusError::Timeout { .. })), "{e:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn input_lines_are_what_the_testbench_scans() {
        let i = Inputs {
            reset: true,
            cfg_we: false,
            cfg_addr: 0x1300,
            cfg_data: 0xdead_beef,
            age_tick: true,
            ports: vec![PortIn {
                tvalid: true,
                tlast: false,
                tuser: true,
                tkeep: 0xff,
                tdata: vec![1, 2, 3, 4, 5, 6, 7, 8],
                m_tready: true,
            }],
        };
        assert_eq!(
            input_line(&i),
            "1 0 1300 deadbeef 1 1 0 1 ff 0807060504030201 1"
        );
        let tb = testbench("m", 1, 8, Path::new("in"), Path::new("out"), None);
        assert!(tb.contains("%h %h %h %h %h %h %h %h %h %h %h"), "{tb}");
        assert!(tb.contains("while (n == 11)"), "{tb}");
        assert!(!tb.contains("$dumpvars"), "{tb}");
        let tb = testbench(
            "m",
            1,
            8,
            Path::new("in"),
            Path::new("out"),
            Some(Path::new("w.vcd")),
        );
        assert!(
            tb.contains("$dumpfile(\"w.vcd\");\n        $dumpvars(0, dut);"),
            "{tb}"
        );
    }
}

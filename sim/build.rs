//! Verilates every design of `collwire_hdl::emit::designs()` and generates, per design, a C++
//! shim (new/free/eval, one setter/getter per port) and a safe Rust wrapper around it.
//! See ../shared notes: the `verilated` crate does not build against Verilator 5.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Port {
    name: String,
    width: usize,
    input: bool,
}

/// Ports of the top module, from rust-hdl's `input wire [N:0] x;` / `output reg x;` lines.
fn ports(verilog: &str, module: &str) -> Vec<Port> {
    let body = verilog
        .split(&format!("module {module}("))
        .nth(1)
        .expect("top module");
    let body = body.split("endmodule").next().unwrap();
    let mut out = Vec::new();
    for line in body.lines().map(str::trim) {
        let input = line.starts_with("input ");
        if !input && !line.starts_with("output ") {
            continue;
        }
        let decl = line.trim_end_matches(';');
        let name = decl.split_whitespace().last().unwrap().to_string();
        let width = match (decl.find('['), decl.find(':')) {
            (Some(l), Some(c)) => decl[l + 1..c].trim().parse::<usize>().unwrap() + 1,
            _ => 1,
        };
        out.push(Port { name, width, input });
    }
    out
}

/// The simulation-only copy of a board's Verilog: every memory write reports itself through the
/// C++ flag `collwire_activity`. Together with a compare of the model's other state
/// ([`state_compare`]: registers, ports and settled signals, a few kilobytes), it tells whether
/// a clock edge changed anything. When an edge changes nothing, the board is at rest: the next
/// edges with the same inputs change nothing either, so the cluster simulator need not evaluate
/// it until an input changes (`BoardModel::rise`). The emitted design (`VERILOG`, Icarus,
/// synthesis) is never instrumented. Every `always @(posedge …)` block must be one of rust-hdl's
/// three storage forms or the LUT RAM's address register (those but the memory write are
/// registers, held in the compared state); anything else stops the build, so a new kind of
/// storage cannot go unnoticed.
///
/// Registers were flagged too until 2026-12-03 (`if (q != d) $c(…)` in each of board64's 1,200
/// clocked blocks): that kept every `d` as a stored signal and each block apart from
/// Verilator's optimizations, and made an evaluated clock 1.7 × slower than the compare
/// (docs/timing.md, "Rest detection by a compare of the model's state").
fn instrument_activity(verilog: &str) -> String {
    const FLAG: &str = "$c(\"collwire_activity = 1;\");";
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 16);
    let mut lines = verilog.lines();
    let (mut edges, mut known, mut writes) = (0, 0, 0);
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        if !line.trim_start().starts_with("always @(posedge") {
            continue;
        }
        edges += 1;
        let body = lines.next().expect("a clocked block has a body");
        out.push_str(body);
        out.push('\n');
        match body.trim() {
            // Registers: a flip-flop, a block RAM's read register, a LUT RAM's registered
            // read address. Their values are in the compared state.
            "q <= d;" | "read_data <= mem[read_address];" | "read_address_q <= read_address;" => {}
            "if (write_enable) begin" => {
                let indent = &body[..body.len() - body.trim_start().len()];
                out.push_str(&format!("{indent}   {FLAG}\n"));
                writes += 1;
            }
            other => panic!("unknown clocked block body `{other}`: teach instrument_activity"),
        }
        known += 1;
    }
    assert_eq!(edges, known);
    assert!(
        writes > 0,
        "a board without memories: check instrument_activity"
    );
    out
}

/// C++ for a board's rest detection beside its memory-write flag: `{name}_state_bytes` and
/// `{name}_state_changed`, which compares the model's state with a copy taken at its last call
/// and updates the copy (with `fresh` set it only takes the copy: the caller knows it is
/// stale). The state compared is the Verilated root's members from the first
/// port (`clock`) up to its first memory (Verilator lays the members out by kind, the unpacked
/// arrays last; `root_header` is checked to be so): every register, port and settled signal.
/// The memories are left out (a write sets `collwire_activity`), and so are the members that
/// change on every evaluation whatever the state: the clock pin (each evaluation is an edge in
/// the simulation copy) and Verilator's copies of it (every member whose name ends in `clock`).
fn state_compare(name: &str, root_header: &str) -> String {
    let class = format!("V{name}");
    let state = root_header
        .split("// DESIGN SPECIFIC STATE")
        .nth(1)
        .and_then(|s| s.split("// INTERNAL VARIABLES").next())
        .unwrap_or_else(|| panic!("{name}: no design state in the Verilated root header"));
    let members: Vec<(&str, bool)> = state
        .lines()
        .map(str::trim)
        .filter(|l| l.ends_with(';') && !l.starts_with('}') && !l.contains('('))
        .filter_map(|l| {
            let decl = l.trim_end_matches(';');
            let name = decl.split_whitespace().last()?;
            Some((name, decl.starts_with("VlUnpacked<")))
        })
        .collect();
    let first_memory = members
        .iter()
        .position(|&(_, memory)| memory)
        .expect("a board has memories");
    let mut volatile: Vec<&str> = vec!["clock"];
    for &(m, memory) in &members {
        if memory {
            assert!(
                m.ends_with("__DOT__mem"),
                "{name}: unpacked member `{m}` is not a RAM's `mem`: its changes would go unseen"
            );
        } else if m.ends_with("clock") {
            volatile.push(m);
        }
    }
    for &(m, memory) in &members[first_memory..] {
        assert!(
            memory || m.starts_with("__V"),
            "{name}: member `{m}` after the first memory: the state compare would miss it"
        );
    }
    let end = members[first_memory].0;
    let mut patch = String::new();
    for v in volatile {
        writeln!(
            patch,
            "    std::memcpy(snap + (reinterpret_cast<const unsigned char*>(&r->{v}) - b), &r->{v}, sizeof r->{v});"
        )
        .unwrap();
    }
    format!(
        "static const unsigned char* {name}_state_begin({class}___024root* r) {{ return reinterpret_cast<const unsigned char*>(&r->clock); }}\n\
         static const unsigned char* {name}_state_end({class}___024root* r) {{ return reinterpret_cast<const unsigned char*>(&r->{end}); }}\n\
         uint64_t {name}_state_bytes(void* p) {{ auto r = static_cast<{class}*>(p)->rootp; return {name}_state_end(r) - {name}_state_begin(r); }}\n\
         uint8_t {name}_state_changed(void* p, unsigned char* snap, uint8_t fresh) {{\n\
         \x20   auto r = static_cast<{class}*>(p)->rootp;\n\
         \x20   const unsigned char* b = {name}_state_begin(r);\n\
         \x20   const size_t n = {name}_state_end(r) - b;\n\
         {patch}\
         \x20   if (!fresh && std::memcmp(b, snap, n) == 0) return 0;\n\
         \x20   std::memcpy(snap, b, n);\n\
         \x20   return 1;\n\
         }}\n"
    )
}

/// A board's simulation copy, from [`instrument_activity`]'s, made to need one model evaluation
/// per clock cycle instead of two:
/// * every clocked block fires on both edges of its clock (`posedge c or negedge c`), so each
///   change of the clock pin is one clock edge (`BoardModel::rise` toggles it). Verilator needs
///   an evaluation to see a level before it can see an edge; with both edges clocked, the
///   evaluation with the clock low, which recomputed all the logic for nothing, goes away.
/// * `collwire_took` (readable from C++) registers each input port's handshake at the edge
///   (`s_axis_tvalid_p & s_axis_tready_p`). The input ready is the one board output that
///   depends on the inputs within the clock (the arbiter grants from the valids), so the
///   simulator learns after the edge whether each beat it offered was taken
///   (`BoardModel::took`). Every other output is a register's: read before the edge, it is
///   what it would be after settling the new inputs (checked, `Cluster::check_handshakes`).
fn board_sim_copy(verilog: &str, module: &str, inputs: usize) -> String {
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 8);
    let mut in_top = false;
    let mut inserted = false;
    for line in instrument_activity(verilog).lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("always @(posedge ") {
            let clock = rest
                .strip_suffix(") begin")
                .unwrap_or_else(|| panic!("unexpected clocked block `{line}`"));
            let indent = &line[..line.len() - trimmed.len()];
            out.push_str(&format!(
                "{indent}always @(posedge {clock} or negedge {clock}) begin\n"
            ));
            continue;
        }
        if trimmed.starts_with(&format!("module {module}(")) {
            in_top = true;
        }
        if in_top && trimmed.starts_with("endmodule") {
            let took: Vec<String> = (0..inputs)
                .rev()
                .map(|p| format!("s_axis_tvalid_{p} & s_axis_tready_{p}"))
                .collect();
            out.push_str(&format!(
                "    // simulation only: each input's handshake at the last edge\n\
                 \x20   reg [{}:0] collwire_took /*verilator public_flat_rd*/;\n\
                 \x20   always @(posedge clock or negedge clock) collwire_took <= {{{}}};\n\
                 \x20   // simulation only: set from C++ when an input pin other than the clock\n\
                 \x20   // changes (`skip_unchanged_inputs`)\n\
                 \x20   reg collwire_inputs_new /*verilator public_flat_rw*/;\n\
                 \x20   initial collwire_inputs_new = 1'b1;\n",
                inputs - 1,
                took.join(", ")
            ));
            in_top = false;
            inserted = true;
        }
        out.push_str(line);
        out.push('\n');
    }
    assert!(inserted, "no module {module} in the board's Verilog");
    out
}

/// Verilator 5.006 evaluates a model's input-dependent logic (its `ico` region) at the start
/// of every `eval`, whether or not an input changed. A board's simulation copy is evaluated once
/// per clock with only the clock toggled on most clocks, and everything that logic computes
/// was already settled by the previous evaluation (the logic after an edge is re-evaluated in
/// the `nba` region with the same inputs, and what runs only in `ico` depends on nothing but
/// the inputs). So the board's `_eval` is patched to enter that region only when
/// `collwire_inputs_new` is set (by the shim's setters when an input pin other than the clock
/// changes; 1 at power-on), and to clear it. The generated code must hold the loop's start
/// exactly once; otherwise the build stops.
fn skip_unchanged_inputs(name: &str, dir: &Path) {
    let (start, patched) = skip_patch(name);
    // The files this verilation made (its classes list): earlier verilations into the same
    // directory may have left others, under other names, that nothing compiles.
    let classes = fs::read_to_string(dir.join(format!("V{name}_classes.mk")))
        .expect("Verilator's classes list");
    let mut found = 0;
    for class in classes
        .lines()
        .map(|l| l.trim().trim_end_matches('\\').trim())
        .filter(|l| l.starts_with(&format!("V{name}")))
    {
        let path = dir.join(format!("{class}.cpp"));
        let code = fs::read_to_string(&path).unwrap();
        let n = code.matches(start).count();
        if n > 0 {
            found += n;
            fs::write(&path, code.replace(start, &patched)).unwrap();
        }
    }
    assert_eq!(
        found, 1,
        "{name}: Verilator's eval loop is not as skip_unchanged_inputs expects (Verilator 5.006)"
    );
}

/// The eval loop's start that [`skip_unchanged_inputs`] looks for, and what it puts there.
fn skip_patch(name: &str) -> (&'static str, String) {
    const START: &str = "    vlSelf->__VicoIterCount = 0U;\n    __VicoContinue = 1U;\n";
    let flag = format!("vlSelf->{name}__DOT__collwire_inputs_new");
    let patched = format!(
        "    vlSelf->__VicoIterCount = 0U;\n    __VicoContinue = {flag};\n    {flag} = 0U;\n"
    );
    (START, patched)
}

fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| {
        panic!("cannot run {cmd:?}: {e} (run scripts/setup to install Verilator)")
    });
    assert!(status.success(), "{cmd:?} failed");
}

fn camel(name: &str) -> String {
    name.trim_start_matches("collwire_")
        .split('_')
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn shim(name: &str, ports: &[Port], board: Option<&str>) -> String {
    let class = format!("V{name}");
    let mut s = format!(
        "#include \"{class}.h\"\n#include \"verilated.h\"\n#include <cstdint>\n#include <cstring>\nextern \"C\" {{\n\
         void* {name}_new() {{ return new {class}; }}\n\
         void {name}_free(void* p) {{ auto m = static_cast<{class}*>(p); m->final(); delete m; }}\n\
         void {name}_eval(void* p) {{ static_cast<{class}*>(p)->eval(); }}\n"
    );
    if let Some(root_header) = board {
        // The simulation copy's handshake register (`board_sim_copy`), public to C++.
        s = format!("#include \"{class}___024root.h\"\n{s}");
        writeln!(s, "uint64_t {name}_took(void* p) {{ return static_cast<{class}*>(p)->rootp->{name}__DOT__collwire_took; }}").unwrap();
        s += &state_compare(name, root_header);
    }
    // A board's setters flag a changed input pin (`skip_unchanged_inputs`); not the clock.
    let mark = |n: &str| {
        if board.is_some() && n != "clock" {
            format!(" m->rootp->{name}__DOT__collwire_inputs_new = 1;")
        } else {
            String::new()
        }
    };
    for p in ports {
        let n = &p.name;
        let mark = mark(n);
        if p.width <= 64 {
            if p.input {
                writeln!(s, "void {name}_set_{n}(void* p, uint64_t v) {{ auto m = static_cast<{class}*>(p); if (m->{n} != v) {{ m->{n} = v;{mark} }} }}").unwrap();
            }
            writeln!(
                s,
                "uint64_t {name}_get_{n}(void* p) {{ return static_cast<{class}*>(p)->{n}; }}"
            )
            .unwrap();
        } else {
            let words = p.width.div_ceil(32);
            if p.input {
                writeln!(s, "void {name}_set_{n}(void* p, const uint32_t* w) {{ auto m = static_cast<{class}*>(p); for (int i = 0; i < {words}; i++) if (m->{n}[i] != w[i]) {{ m->{n}[i] = w[i];{mark} }} }}").unwrap();
            }
            writeln!(s, "void {name}_get_{n}(void* p, uint32_t* w) {{ auto m = static_cast<{class}*>(p); for (int i = 0; i < {words}; i++) w[i] = m->{n}[i]; }}").unwrap();
        }
    }
    s + "}\n"
}

fn wrapper(name: &str, ports: &[Port], vfile: &std::path::Path, board: bool) -> String {
    let ty = camel(name);
    let mut ext = String::new();
    let mut methods = String::new();
    for p in ports {
        let n = &p.name;
        if p.width <= 64 {
            if p.input {
                writeln!(ext, "    fn {name}_set_{n}(p: *mut c_void, v: u64);").unwrap();
                writeln!(methods, "    /// Drives input `{n}` ({} bits).\n    pub fn set_{n}(&mut self, v: u64) {{ unsafe {{ {name}_set_{n}(self.ptr, v) }} }}", p.width).unwrap();
            }
            writeln!(ext, "    fn {name}_get_{n}(p: *mut c_void) -> u64;").unwrap();
            writeln!(methods, "    /// Reads port `{n}` ({} bits).\n    pub fn {n}(&self) -> u64 {{ unsafe {{ {name}_get_{n}(self.ptr) }} }}", p.width).unwrap();
        } else {
            let words = p.width.div_ceil(32);
            if p.input {
                writeln!(ext, "    fn {name}_set_{n}(p: *mut c_void, w: *const u32);").unwrap();
                writeln!(methods, "    /// Drives input `{n}` ({} bits) from {words} little-endian 32-bit words.\n    pub fn set_{n}(&mut self, w: &[u32; {words}]) {{ unsafe {{ {name}_set_{n}(self.ptr, w.as_ptr()) }} }}", p.width).unwrap();
            }
            writeln!(ext, "    fn {name}_get_{n}(p: *mut c_void, w: *mut u32);").unwrap();
            writeln!(methods, "    /// Reads port `{n}` ({} bits) as {words} little-endian 32-bit words.\n    pub fn {n}(&self) -> [u32; {words}] {{ let mut w = [0u32; {words}]; unsafe {{ {name}_get_{n}(self.ptr, w.as_mut_ptr()) }}; w }}", p.width).unwrap();
        }
    }
    // Byte views of every port (little-endian: byte i is bits 8i+7:8i), the same at any width,
    // so a test drives the 64- and 256-bit builds with the same code.
    for p in ports {
        let n = &p.name;
        let nbytes = p.width.div_ceil(8);
        if p.width <= 64 {
            if p.input {
                writeln!(methods, "    /// Drives input `{n}` from up to {nbytes} little-endian bytes (zero-extended).\n    pub fn set_{n}_bytes(&mut self, b: &[u8]) {{ let mut w = [0u8; 8]; w[..b.len()].copy_from_slice(b); self.set_{n}(u64::from_le_bytes(w)) }}").unwrap();
            }
            writeln!(methods, "    /// Port `{n}` as {nbytes} little-endian bytes.\n    pub fn {n}_bytes(&self) -> Vec<u8> {{ self.{n}().to_le_bytes()[..{nbytes}].to_vec() }}").unwrap();
        } else {
            let words = p.width.div_ceil(32);
            if p.input {
                writeln!(methods, "    /// Drives input `{n}` from up to {nbytes} little-endian bytes (zero-extended).\n    pub fn set_{n}_bytes(&mut self, b: &[u8]) {{ let mut w = [0u8; {words} * 4]; w[..b.len()].copy_from_slice(b); let v: [u32; {words}] = std::array::from_fn(|i| u32::from_le_bytes(w[4 * i..4 * i + 4].try_into().unwrap())); self.set_{n}(&v) }}").unwrap();
            }
            writeln!(methods, "    /// Port `{n}` as {nbytes} little-endian bytes.\n    pub fn {n}_bytes(&self) -> Vec<u8> {{ let mut b: Vec<u8> = self.{n}().iter().flat_map(|w| w.to_le_bytes()).collect(); b.truncate({nbytes}); b }}").unwrap();
        }
    }
    // Array ports (`s_axis_tvalid_0`, `_1`, ...) also get indexed accessors.
    let mut groups: std::collections::BTreeMap<String, Vec<&Port>> = Default::default();
    for p in ports {
        if let Some((base, idx)) = p.name.rsplit_once('_')
            && idx.parse::<usize>().is_ok()
        {
            groups.entry(base.to_string()).or_default().push(p);
        }
    }
    for (base, members) in groups.iter().filter(|(_, m)| m.len() > 1) {
        let arms = |call: &dyn Fn(&str) -> String| -> String {
            members
                .iter()
                .map(|p| {
                    let idx = p.name.rsplit_once('_').unwrap().1;
                    format!("{idx} => {}, ", call(&p.name))
                })
                .collect()
        };
        let n = members.len();
        let panic = format!("_ => panic!(\"{base}: no index {{i}} (0..{n})\")");
        if members[0].input {
            writeln!(methods, "    /// Drives `{base}_<i>` from little-endian bytes.\n    pub fn set_{base}_bytes_at(&mut self, i: usize, b: &[u8]) {{ match i {{ {}{panic} }} }}", arms(&|n| format!("self.set_{n}_bytes(b)"))).unwrap();
        }
        writeln!(methods, "    /// Port `{base}_<i>` as little-endian bytes.\n    pub fn {base}_bytes_at(&self, i: usize) -> Vec<u8> {{ match i {{ {}{panic} }} }}", arms(&|n| format!("self.{n}_bytes()"))).unwrap();
        if members[0].width <= 64 {
            if members[0].input {
                writeln!(methods, "    /// Drives `{base}_<i>`.\n    pub fn set_{base}_at(&mut self, i: usize, v: u64) {{ match i {{ {}{panic} }} }}", arms(&|n| format!("self.set_{n}(v)"))).unwrap();
            }
            writeln!(methods, "    /// Reads `{base}_<i>`.\n    pub fn {base}_at(&self, i: usize) -> u64 {{ match i {{ {}{panic} }} }}", arms(&|n| format!("self.{n}()"))).unwrap();
        }
    }
    let has_clock = ports.iter().any(|p| p.name == "clock" && p.input);
    let tick = if board {
        format!(
            "    /// One clock cycle: in a board's simulation copy every change of the clock is an edge.\n    \
         pub fn tick(&mut self) {{ let c = self.clock(); self.set_clock(c ^ 1); self.eval(); }}\n\
         \x20   /// Bit p: input port p's beat was taken at the last edge (valid and ready).\n    \
         pub fn took(&self) -> u64 {{ unsafe {{ {name}_took(self.ptr) }} }}\n"
        )
    } else if has_clock {
        "    /// One clock cycle: settle the inputs with the clock low, then a rising edge.\n    \
         pub fn tick(&mut self) { self.set_clock(0); self.eval(); self.set_clock(1); self.eval(); }\n"
            .to_string()
    } else {
        String::new()
    };
    let ext = if board {
        format!(
            "{ext}    fn {name}_took(p: *mut c_void) -> u64;\n    \
             fn {name}_state_bytes(p: *mut c_void) -> u64;\n    \
             fn {name}_state_changed(p: *mut c_void, snap: *mut u8, fresh: u8) -> u8;\n"
        )
    } else {
        ext
    };
    // A board keeps the copy of its state that `state_changed` compares with.
    let (fields, init, state) = if board {
        (
            "ptr: *mut c_void, snap: Vec<u8>, snap_stale: bool",
            format!("ptr: unsafe {{ {name}_new() }}, snap: Vec::new(), snap_stale: false"),
            format!(
                "\n    /// Whether the model's state (every register, port and settled signal; not its\n    \
                 /// memories, whose writes `take_activity` reports) differs from the copy taken at the\n    \
                 /// last call, which is then updated. True on the first call and after\n    \
                 /// `forget_state`.\n    \
                 pub fn state_changed(&mut self) -> bool {{\n        \
                 if self.snap.is_empty() || self.snap_stale {{\n            \
                 self.snap.resize(unsafe {{ {name}_state_bytes(self.ptr) }} as usize, 0);\n            \
                 unsafe {{ {name}_state_changed(self.ptr, self.snap.as_mut_ptr(), 1) }};\n            \
                 self.snap_stale = false;\n            \
                 return true;\n        }}\n        \
                 unsafe {{ {name}_state_changed(self.ptr, self.snap.as_mut_ptr(), 0) != 0 }}\n    }}\n\n    \
                 /// The state changed at this edge, known without a compare (a memory was\n    \
                 /// written): the copy is not updated now, and the next `state_changed` says true\n    \
                 /// and takes a new one.\n    \
                 pub fn forget_state(&mut self) {{ self.snap_stale = true; }}\n"
            ),
        )
    } else {
        (
            "ptr: *mut c_void",
            format!("ptr: unsafe {{ {name}_new() }}"),
            String::new(),
        )
    };
    format!(
        "unsafe extern \"C\" {{\n    fn {name}_new() -> *mut c_void;\n    fn {name}_free(p: *mut c_void);\n    fn {name}_eval(p: *mut c_void);\n{ext}}}\n\n\
         /// Verilator model of Verilog module `{name}`.\npub struct {ty} {{ {fields} }}\n\n\
         impl Default for {ty} {{ fn default() -> Self {{ Self::new() }} }}\n\n\
         impl {ty} {{\n    /// Verilog module name.\n    pub const MODULE: &'static str = \"{name}\";\n\
         \n    /// The Verilog this model was built from.\n    pub const VERILOG: &'static str = include_str!({vfile:?});\n\
         \n    pub fn new() -> Self {{ Self {{ {init} }} }}\n\
         \n    /// Evaluates the model after inputs changed.\n    pub fn eval(&mut self) {{ unsafe {{ {name}_eval(self.ptr) }} }}\n{tick}{state}{methods}}}\n\n\
         impl Drop for {ty} {{ fn drop(&mut self) {{ unsafe {{ {name}_free(self.ptr) }} }} }}\n\n\
         // SAFETY: the model is plain C++ state with no thread affinity.\nunsafe impl Send for {ty} {{}}\n\n"
    )
}

fn verilator_include() -> PathBuf {
    let out = Command::new("verilator")
        .arg("--getenv")
        .arg("VERILATOR_ROOT")
        .output();
    let root = out
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    PathBuf::from(root.unwrap_or_else(|| "/usr/share/verilator".into())).join("include")
}

/// The C++ compiler for the Verilated models: clang++ where it is installed (`scripts/setup`
/// installs it), else g++. With the same flags, clang 14's code ran 8 64-bit boards 1.11–1.13
/// × as fast as g++ 12's on every one of `bench_cluster --only speed`'s 16 one-thread runs
/// (the best of six runs of each build, alternating, 2026-12-07: single runs on this machine
/// vary up to 2 ×).
fn model_cxx() -> &'static str {
    let clang = Command::new("clang++")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if clang {
        "clang++"
    } else {
        println!(
            "cargo:warning=clang++ not found: the Verilated models are compiled with g++, \
             whose code simulates about 11 % slower (scripts/setup installs clang)"
        );
        "g++"
    }
}

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let cxx = model_cxx();
    let (cxx_var, link_var) = (format!("CXX={cxx}"), format!("LINK={cxx}"));
    let include = verilator_include();
    let mut rust = String::from("use std::ffi::c_void;\n\n");
    let mut shims = Vec::new();
    let mut archives = Vec::new();
    // The flag the instrumented boards set, thread-local: boards may be clocked on several
    // threads, each edge's flag read on the thread that evaluated it.
    let activity_h = out.join("collwire_activity.h");
    const ACTIVITY_H: &str = "#pragma once\nextern thread_local unsigned char collwire_activity;\n";
    fs::write(&activity_h, ACTIVITY_H).unwrap();
    let activity_cpp = out.join("collwire_activity.cpp");
    fs::write(
        &activity_cpp,
        "thread_local unsigned char collwire_activity = 0;\n\
         extern \"C\" unsigned char collwire_activity_take() {\n\
         \x20   unsigned char a = collwire_activity;\n    collwire_activity = 0;\n    return a;\n}\n",
    )
    .unwrap();
    shims.push((activity_cpp, out.clone()));
    rust += "unsafe extern \"C\" {\n    fn collwire_activity_take() -> u8;\n}\n\n\
             /// Whether an instrumented board (`collwire_board*`) wrote a memory at an edge\n\
             /// evaluated on this thread since the last call; clears the flag.\n\
             pub fn take_activity() -> bool {\n    unsafe { collwire_activity_take() != 0 }\n}\n\n";
    for design in collwire_hdl::emit::designs() {
        let name = design.name;
        let dir = out.join(name);
        fs::create_dir_all(&dir).unwrap();
        let vfile = dir.join(format!("{name}.v"));
        // Boards are verilated from their simulation copy (see `board_sim_copy`).
        let board = name.starts_with("collwire_board");
        let sim_verilog = if board {
            let inputs = ports(&design.verilog, name)
                .iter()
                .filter(|p| p.input && p.name.starts_with("s_axis_tvalid_"))
                .count();
            board_sim_copy(&design.verilog, name, inputs)
        } else {
            design.verilog.clone()
        };
        let sim_vfile = dir.join(format!("{name}_sim.v"));
        let changed = fs::read_to_string(&sim_vfile).ok().as_deref() != Some(sim_verilog.as_str())
            || fs::read_to_string(&vfile).ok().as_deref() != Some(design.verilog.as_str());
        if changed {
            fs::write(&vfile, &design.verilog).unwrap();
            fs::write(&sim_vfile, &sim_verilog).unwrap();
        }
        // The model's C++ is compiled at -O3: Verilator's makefile builds the per-cycle code
        // (`OPT_FAST`) at -Os by default, which halves the simulator's speed on this design
        // (bench_cluster --only speed); -O3 is 3-7 % faster than -O2 on 8 64-bit boards, and
        // -march=native was 4 % slower (2026-11-27).
        // A board is generated, patched (`skip_unchanged_inputs`) and then built with make;
        // another model is built by Verilator's `--build`, which passes `-MAKEFLAGS` on.
        const OPT_FAST: &str = "OPT_FAST=-O3";
        let build: Vec<&str> = if board {
            Vec::new()
        } else {
            vec![
                "--build",
                "-j",
                "2",
                "-MAKEFLAGS",
                OPT_FAST,
                "-MAKEFLAGS",
                &cxx_var,
                "-MAKEFLAGS",
                &link_var,
            ]
        };
        let args: Vec<String> = ["--cc"]
            .iter()
            .chain(&build)
            .chain(&[
                "-O3",
                "--x-assign",
                "fast",
                "--x-initial",
                "fast",
                "-Wno-WIDTH",
                "-Wno-fatal",
                "--top-module",
                name,
                "--prefix",
                &format!("V{name}"),
                "-CFLAGS",
                &format!("-fPIC -O3 -include {}", activity_h.display()),
            ])
            .map(|a| a.to_string())
            .collect();
        // What else makes the model besides its Verilog: Verilator's arguments, the header
        // every model includes and, for a board, the patch and the make call. A change to any
        // of them builds the model again.
        let mut key = format!("{}\n{ACTIVITY_H}", args.join(" "));
        if board {
            let (start, patched) = skip_patch(name);
            key += &format!("{start}{patched}make {OPT_FAST} {cxx_var} {link_var}\n");
        }
        let key_file = dir.join("build.key");
        let key_changed = fs::read_to_string(&key_file).ok().as_deref() != Some(key.as_str());
        let archive = dir.join(format!("V{name}__ALL.a"));
        if changed || key_changed || !archive.exists() {
            run(Command::new("verilator")
                .args(&args)
                .arg("-Mdir")
                .arg(&dir)
                .arg(&sim_vfile));
            if board {
                skip_unchanged_inputs(name, &dir);
                run(Command::new("make")
                    .arg("-C")
                    .arg(&dir)
                    .arg("-f")
                    .arg(format!("V{name}.mk"))
                    .args(["-j", "2", OPT_FAST, &cxx_var, &link_var]));
            }
            fs::write(&key_file, &key).unwrap();
        }
        let p = ports(&design.verilog, name);
        let shim_file = dir.join(format!("{name}_shim.cpp"));
        let root_header = board.then(|| {
            fs::read_to_string(dir.join(format!("V{name}___024root.h")))
                .expect("the board's Verilated root header")
        });
        fs::write(&shim_file, shim(name, &p, root_header.as_deref())).unwrap();
        shims.push((shim_file, dir.clone()));
        rust += &wrapper(name, &p, &vfile, board);
        archives.push((dir, format!("V{name}__ALL.a")));
    }
    fs::write(out.join("models.rs"), rust).unwrap();

    // Link order: shims, then the model archives they call, then the runtime both call.
    let mut b = cc::Build::new();
    b.cpp(true)
        .include(&include)
        .include(include.join("vltstd"))
        .flag("-std=gnu++17")
        .flag("-faligned-new");
    b.flag_if_supported("-Wno-unused-parameter").opt_level(2);
    for (file, dir) in &shims {
        b.file(file).include(dir);
    }
    b.compile("collwire_shims");
    for (dir, archive) in &archives {
        println!("cargo:rustc-link-search=native={}", dir.display());
        println!("cargo:rustc-link-lib=static:+verbatim={archive}");
    }
    let mut rt = cc::Build::new();
    rt.cpp(true)
        .include(&include)
        .include(include.join("vltstd"))
        .flag("-std=gnu++17")
        .flag("-faligned-new");
    rt.flag_if_supported("-Wno-unused-parameter").opt_level(2);
    for d in [
        "VM_COVERAGE=0",
        "VM_SC=0",
        "VM_TRACE=0",
        "VM_TRACE_FST=0",
        "VM_TRACE_VCD=0",
    ] {
        let (k, v) = d.split_once('=').unwrap();
        rt.define(k, v);
    }
    rt.file(include.join("verilated.cpp"))
        .file(include.join("verilated_threads.cpp"));
    rt.compile("collwire_verilated_rt");
    println!("cargo:rustc-link-lib=stdc++");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rerun-if-changed=build.rs");
}

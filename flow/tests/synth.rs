//! Every emitted design lints clean in Verilator, elaborates in Icarus Verilog with no signal
//! crossing into another block assigned twice per evaluation, and synthesizes for 7-series with
//! no latch and no register-to-register path deeper than its budget (`collwire_flow::depth`). (The whole board *runs* in Icarus in `testbench/tests/icarus_board.rs`.)

use collwire_flow::depth;
use collwire_flow::toolflow::{icarus_elaborate, lint, synth_xc7};
use collwire_hdl::emit::{designs, is_board, is_part_of_another};

fn work_dir(what: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("collwire-{what}-{}", std::process::id()))
}

/// The designs, generated on a thread with a large stack: rust-hdl's Verilog generation recurses
/// through the whole board hierarchy and overflows a test thread's default 2 MiB in debug builds.
fn all_designs() -> Vec<collwire_hdl::emit::Design> {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(designs)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn every_design_passes_verilator_lint() {
    for d in all_designs() {
        lint(&work_dir("lint"), &d).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_design_elaborates_in_icarus_and_assigns_crossings_once() {
    for d in all_designs() {
        icarus_elaborate(&work_dir("icarus"), &d).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Two at a time (the machine has two cores). Designs built into a larger one are covered by
/// it (`emit::is_part_of_another`).
#[test]
fn every_design_synthesizes_without_latches() {
    let designs: Vec<_> = all_designs()
        .into_iter()
        .filter(|d| !is_part_of_another(d.name) && !is_board(d.name))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(d) = designs.get(i) else { break };
                    let r = synth_xc7(&work_dir("synth"), d);
                    results.lock().unwrap().push((d.name, r));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    assert_eq!(results.len(), designs.len());
    let mut too_deep = Vec::new();
    for (name, r) in results {
        let r = r.unwrap_or_else(|e| panic!("{e}"));
        assert!(
            r.luts() > 0 && r.flip_flops() > 0 && r.depth > 0,
            "{name}: {:?}",
            r.cells
        );
        println!(
            "{name}: {} LUT, {} FF, {} CARRY4, {:.1} BRAM36, depth {} (budget {}; targets {} at \
             125 MHz, {} at 200 MHz)",
            r.luts(),
            r.flip_flops(),
            r.carry4(),
            r.bram36(),
            r.depth,
            depth::budget(name).map_or("none".to_string(), |b| b.to_string()),
            depth::TARGET_125MHZ,
            depth::TARGET_200MHZ,
        );
        if let Err(e) = depth::check(name, r.depth) {
            too_deep.push(e);
        }
    }
    // The timing guard: no block's worst register-to-register path grew past its budget.
    assert!(too_deep.is_empty(), "{}", too_deep.join("\n"));
}

/// The latch check itself can fail: a block that assigns an output only under a condition.
#[test]
fn a_latch_is_reported() {
    let verilog = "module collwire_latchy(input wire en, input wire d, output reg q);\n\
                   always @(*) begin if (en) q = d; end\nendmodule\n";
    let d = collwire_hdl::emit::Design {
        name: "collwire_latchy",
        verilog: verilog.into(),
    };
    let err = synth_xc7(&work_dir("latch"), &d).unwrap_err().to_string();
    assert!(err.contains("LDCE") || err.contains("Latch"), "{err}");
}

/// The loop check can fail: two gates feeding each other with no register.
#[test]
fn a_combinational_loop_is_reported() {
    let verilog = "module collwire_loopy(input wire a, output wire y);\n\
                   wire b; assign b = ~(a & y); assign y = ~(a & b);\nendmodule\n";
    let d = collwire_hdl::emit::Design {
        name: "collwire_loopy",
        verilog: verilog.into(),
    };
    let err = synth_xc7(&work_dir("loop"), &d).unwrap_err().to_string();
    assert!(err.contains("SCC"), "{err}");
}

/// Whether `bits` flip-flops drive a wire matching `copy` and no wire named in `original`
/// after `synth_xilinx`: a register kept as a second copy of another (to split its fan-out)
/// is still a register of its own.
fn copy_kept(
    what: &str,
    top: &str,
    verilog: &str,
    copy: &str,
    original: &str,
    bits: usize,
) -> bool {
    let dir = work_dir(what);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{top}.v"));
    std::fs::write(&file, verilog).unwrap();
    let script = format!(
        "read_verilog {file}; hierarchy -top {top}; proc; flatten; \
         synth_xilinx -family xc7 -top {top} -flatten -noiopad -noclkbuf; \
         select -assert-count {bits} {copy} %ci1 t:FD* %i {original} %ci1 %d",
        file = file.display(),
    );
    let out = std::process::Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .expect("yosys runs");
    out.status.success()
}

/// The CFE's `cur_n` (`cur` inverted, the table's present-mask select) is a register of its
/// own in the netlist. Yosys merges two flip-flops with the same input (`opt_merge`), and
/// rust-hdl's `DFFWithInit` stores `q` XOR its power-on value: a copy of `cur` inverted with a
/// power-on value of 7 stored exactly `cur`'s bits, and from 2728133 to ed039ed no `cur_n`
/// was left in any netlist (docs/timing.md, 2026-12-01). The check itself can fail: the
/// same copy written that way, in a small design, is merged.
#[test]
fn a_register_copy_for_fan_out_is_kept() {
    let cfe = all_designs()
        .into_iter()
        .find(|d| d.name == "collwire_cfe")
        .expect("the cfe is emitted");
    assert!(copy_kept(
        "copy-cfe",
        cfe.name,
        &cfe.verilog,
        "w:*cur_n*",
        "w:cur.q w:cur$q %u",
        3
    ));
    let merged = "module collwire_copy(input wire clk, input wire [2:0] d, output wire [2:0] a,\n\
                  output wire [2:0] b);\n\
                  reg [2:0] cur = 3'd0; reg [2:0] cur_n_s = 3'd0;\n\
                  always @(posedge clk) begin cur <= d; cur_n_s <= ~d ^ 3'd7; end\n\
                  assign a = cur; assign b = cur_n_s ^ 3'd7;\nendmodule\n";
    assert!(!copy_kept(
        "copy-merged",
        "collwire_copy",
        merged,
        "w:*cur_n*",
        "w:cur",
        3
    ));
}

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

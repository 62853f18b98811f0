//! Every emitted design lints clean in Verilator, compiles in Icarus, and synthesizes for
//! 7-series with no latch.

use collwire_hdl::emit::designs;
use collwire_hdl::toolflow::{lint, synth_xc7};

fn work_dir(what: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("collwire-{what}-{}", std::process::id()))
}

#[test]
fn every_design_passes_verilator_lint() {
    for d in designs() {
        lint(&work_dir("lint"), &d).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_design_synthesizes_without_latches() {
    for d in designs() {
        let r = synth_xc7(&work_dir("synth"), &d).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            r.luts() > 0 && r.flip_flops() > 0 && r.depth > 0,
            "{}: {:?}",
            d.name,
            r.cells
        );
        println!(
            "{}: {} LUT, {} FF, {} CARRY4, depth {}",
            d.name,
            r.luts(),
            r.flip_flops(),
            r.carry4(),
            r.depth
        );
    }
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
    assert!(err.contains("loop"), "{err}");
}

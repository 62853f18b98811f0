//! Verilog emission with meaningful module names.
//!
//! rust-hdl always names the top module `top` and its children `top$child`; two designs could
//! not share one compile, and `top` says nothing in a synthesis report. Every design leaves this
//! crate renamed to `collwire_<what>`.

use rust_hdl::prelude::*;

use crate::fp_add::{FpAdd32, FpAdd64};

/// Verilog of `block` with the top module (and its children's prefix) renamed to `name`.
pub fn verilog<B: Block>(mut block: B, name: &str) -> String {
    block.connect_all();
    generate_verilog(&block)
        .replace("module top(", &format!("module {name}("))
        .replace("endmodule // top\n", &format!("endmodule // {name}\n"))
        .replace("top$", &format!("{name}$"))
}

/// One emitted design: its module name and Verilog text.
pub struct Design {
    pub name: &'static str,
    pub verilog: String,
}

/// Every design the simulator bridge verilates and the synthesis checks cover.
pub fn designs() -> Vec<Design> {
    vec![
        Design {
            name: "collwire_fp_add64",
            verilog: verilog(FpAdd64::default(), "collwire_fp_add64"),
        },
        Design {
            name: "collwire_fp_add32",
            verilog: verilog(FpAdd32::default(), "collwire_fp_add32"),
        },
    ]
}

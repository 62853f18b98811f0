//! Verilog emission with meaningful module names.
//!
//! rust-hdl always names the top module `top` and its children `top$child`; two designs could
//! not share one compile, and `top` says nothing in a synthesis report. Every design leaves this
//! crate renamed to `collwire_<what>`.

use rust_hdl::prelude::*;

use crate::cipe_alu::{CipeAlu64, CipeAlu256};
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
    fn design<B: Block>(block: B, name: &'static str) -> Design {
        Design {
            name,
            verilog: verilog(block, name),
        }
    }
    vec![
        design(FpAdd64::default(), "collwire_fp_add64"),
        design(FpAdd32::default(), "collwire_fp_add32"),
        design(CipeAlu64::default(), "collwire_cipe_alu64"),
        design(CipeAlu256::default(), "collwire_cipe_alu256"),
    ]
}

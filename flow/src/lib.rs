//! # collwire-flow — the tools run on the emitted Verilog
//!
//! * [`toolflow`]: Verilator lint, Icarus elaboration and Yosys 7-series synthesis of the
//!   designs `collwire_hdl::emit` produces.
//! * [`pnr`]: post-route Fmax and critical path with Yosys + nextpnr-ecp5 (YoWASP), the
//!   open-source timing proxy.
//! * [`depth`]: the logic-depth budget per block (a timing guard without place and route).
//! * [`levels`]: logic levels at every endpoint of the mapped ECP5 netlist (`bin/levels`).
//! * [`merged`]: the registers synthesis merged into one (`bin/levels --merged`).
//! * [`verilog_lint`]: no signal crossing into another block is assigned twice per evaluation
//!   (what keeps event-driven simulators from re-triggering blocks forever).
//!
//! `tests/synth.rs` runs all of it on every design.

pub mod depth;
pub mod levels;
pub mod merged;
pub mod pnr;
pub mod toolflow;
pub mod verilog_lint;

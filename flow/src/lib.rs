//! # collwire-flow — the tools run on the emitted Verilog
//!
//! * [`toolflow`]: Verilator lint, Icarus elaboration and Yosys 7-series synthesis of the
//!   designs `collwire_hdl::emit` produces.
//! * [`verilog_lint`]: no signal crossing into another block is assigned twice per evaluation
//!   (what keeps event-driven simulators from re-triggering blocks forever).
//!
//! `tests/synth.rs` runs all of it on every design.

pub mod toolflow;
pub mod verilog_lint;

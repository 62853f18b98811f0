//! # collwire-hdl — the hardware, in rust-hdl
//!
//! * [`fp_add`]: pipelined IEEE 754 binary32/binary64 adders for the CIPE's floating-point SUM.
//! * [`emit`]: Verilog with meaningful module names, and the list of designs.
//! * [`toolflow`]: Verilator lint and Yosys 7-series synthesis of emitted designs.

pub mod emit;
pub mod fp_add;
pub mod toolflow;

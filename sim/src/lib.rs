//! # collwire-sim — the hardware, run by Verilator
//!
//! * [`models`]: one generated wrapper per design of `collwire_hdl::emit::designs()`: `new`,
//!   `eval`, `tick` (one clock cycle), `set_<input>` and `<port>()` accessors. Ports wider than
//!   64 bits are exchanged as little-endian arrays of 32-bit words.
//! * [`axis`]: AXI-Stream frame sources and sinks for tests.
//! * [`cipe_check`]: drives the CIPEs with instruction programs against a buffer model.
//! * [`alu_check`]: streams words through the Verilated CIPE ALUs against `reduce::combine`.
//! * [`collective`]: the one host engine for simulated clusters: every rank is the driver's
//!   `OffloadComm` over a [`collective::LockstepTransport`] (deterministic, simulated clock).
//! * [`hosts`]: the hosts' frames (rank ↔ frame), and [`hosts::ClusterTransport`], the
//!   driver's in-process transport for one thread per rank.
//! * [`frames`]: test frames: valid and mutated offload frames, plain NIC traffic.
//! * [`icarus`]: a board's pins recorded cycle by cycle and replayed in Icarus Verilog, every
//!   output compared with Verilator's.
//! * [`hop`]: per-hop latency (engine, transit, pass-through) on a 3-board ring, in cycles.
//! * [`fpu_check`]: streams operands through the Verilated adders and compares every result bit
//!   for bit with the protocol's reduction semantics.

pub mod alu_check;
pub mod axis;
pub mod board;
pub mod capture;
pub mod cipe_check;
pub mod cluster;
pub mod collective;
pub mod fpu_check;
pub mod frames;
pub mod hop;
pub mod hosts;
pub mod icarus;
pub mod links;
pub use collwire_report::progress;

/// Generated Verilator model wrappers.
#[allow(clippy::all, missing_docs)]
pub mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}

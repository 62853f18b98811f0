//! # collwire-testbench
//!
//! * [`golden`]: the golden reference model — the exact output bits every rank must receive for
//!   every collective and algorithm. The combination order it implements is the specification
//!   the hardware must meet (`docs/protocol.md`, "Combination order").
//!
//! Cluster-level scenarios that drive the simulated boards against this model land here with
//! the cluster simulator.

pub mod golden;

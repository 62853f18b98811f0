//! # collwire-control — the control plane
//!
//! What a board is configured with, computed on the host before any traffic flows (the way an
//! aggregation manager installs trees into switches):
//!
//! * [`program`]: the CFE's microcode — every board's program for every algorithm, compiled
//!   in Rust, and the program memory plus directory of one board ([`program::image`]).
//! * [`topology`]: how boards are cabled (ring, torus) and the route tables (shortest paths).
//! * [`image`]: one board's configuration writes — identity, address prefix, route table,
//!   program directory and microcode — over the configuration port.
//!
//! The word formats it writes are the hardware's own definitions in `collwire-hdl`
//! (`UopWord`, `DirectoryWord`, the `cfg` address map), so this crate depends on the hardware
//! crate and never the other way; the addressing scheme (board MAC/IPv4, rank ports) is
//! `collwire_proto::addressing`, shared with the driver.

pub mod image;
pub mod program;
pub mod topology;

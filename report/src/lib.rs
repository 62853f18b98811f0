//! # collwire-report — what the benches and reports show a person
//!
//! * [`progress`]: progress bars with an ETA for runs that take minutes, drawn only on a
//!   terminal (quiet in CI and pipes).
//! * [`plot`]: SVG charts of the results (allreduce latency versus P per algorithm, per-hop
//!   latency versus payload, post-route Fmax per block), written by the benches and the timing
//!   report; the committed ones are under `docs/plots/` (`scripts/plots` regenerates them).

pub mod plot;
pub mod progress;

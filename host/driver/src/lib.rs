//! # collwire-driver — what an MPI application links
//!
//! Builds the offload request datagrams for one collective call (validating every argument
//! first, so a bad call sends nothing) and collects the board's response datagrams back into
//! the result. Transports (UDP socket, in-process simulator), non-blocking requests, the C ABI
//! and the PMPI library build on this.
//!
//! * [`element`]: the Rust element types and their wire datatypes.
//! * [`call`]: a communicator, a call, its request datagrams and its response collector.

pub mod call;
pub mod element;

pub use call::{Call, Communicator, DriverError, ResponseCollector};
pub use element::Element;

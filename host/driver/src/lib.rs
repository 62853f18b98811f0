//! # collwire-driver — what an MPI application links
//!
//! Builds the offload request datagrams for one collective call (validating every argument
//! first, so a bad call sends nothing) and collects the board's response datagrams back into
//! the result.
//!
//! * [`element`]: the Rust element types and their wire datatypes.
//! * [`call`]: a communicator's description, one call, its request datagrams and its response
//!   collector.
//! * [`transport`]: how datagrams reach the board (a UDP socket; the simulator crate adds an
//!   in-process transport into a simulated cluster).
//! * [`comm`]: what an application calls — blocking and non-blocking allreduce, reduce, scan
//!   and barrier with a window, deadlines and statistics.
//! * [`config`]: the rank → board map a launcher or `collwire serve` writes (TOML).

pub mod call;
pub mod comm;
pub mod config;
pub mod element;
pub mod transport;

pub use call::{Call, Communicator, DriverError, ResponseCollector};
pub use comm::{OffloadComm, Request, Retransmit, Stats};
pub use config::{BoardMap, ConfigError};
pub use element::Element;
pub use transport::{Transport, TransportError, UdpTransport};

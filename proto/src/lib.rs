//! # collwire-proto — the offload wire format, defined once
//!
//! The host sends UDP datagrams to [`OFFLOAD_UDP_PORT`]; the programmable logic in the network
//! path intercepts them, runs the collective with its peers and answers every local rank with a
//! UDP datagram to that rank's own port. This crate is the single definition of that protocol,
//! used by the hardware (`hdl`), the host driver, the simulator and the golden model:
//!
//! * [`wire`]: the 22-byte offload header — [`OffloadPacket`] (zero-copy view) and
//!   [`OffloadRepr`] (validated `parse` / `emit`). Byte layout: `docs/protocol.md`.
//! * [`addressing`]: board and rank MAC/IPv4/UDP addresses.
//! * [`codes`]: message types, collectives, algorithms, datatypes, reduction ops, error codes.
//! * [`reduce`]: the bit-exact reduction of each (datatype, op) on raw little-endian lanes.
//! * [`segment`]: splitting long messages into element-aligned segments and reassembling them.
//! * [`frame`]: Ethernet/IPv4/UDP framing and the reference offload/pass-through classification.
//! * [`layout`]: rank → board placement and the 2-D torus shape.
//! * [`limits`]: what one board runs (ranks per host, segment payload, boards, contexts).
//! * [`wireshark`]: the Wireshark Lua dissector, generated from the definitions above.
//!
//! No I/O happens here.

pub mod addressing;
pub mod codes;
mod error;
pub mod frame;
pub mod layout;
pub mod limits;
pub mod reduce;
pub mod segment;
pub mod wire;
pub mod wireshark;

pub use codes::{Algorithm, Collective, Datatype, ErrorCode, MessageType, ReduceOp};
pub use error::Error;
pub use layout::Layout;
pub use wire::{OffloadPacket, OffloadRepr};

/// The well-known UDP destination port the boards intercept (0xC011, "coll").
pub const OFFLOAD_UDP_PORT: u16 = 0xC011;
/// First byte of every offload datagram.
pub const MAGIC: u8 = 0xC7;
/// Protocol version carried in the high nibble of byte 1.
pub const VERSION: u8 = 1;

/// Ethernet II header (no VLAN tag, no FCS).
pub const ETH_HEADER_LEN: usize = 14;
/// IPv4 header without options.
pub const IPV4_HEADER_LEN: usize = 20;
/// UDP header.
pub const UDP_HEADER_LEN: usize = 8;
/// Offload header.
pub const HEADER_LEN: usize = 22;
/// Frame offset of the offload header.
pub const HEADER_FRAME_OFFSET: usize = ETH_HEADER_LEN + IPV4_HEADER_LEN + UDP_HEADER_LEN;
/// Frame offset of the first payload element: a multiple of 8 and of 32, so payload elements
/// line up with 64-bit and 256-bit bus words.
pub const PAYLOAD_FRAME_OFFSET: usize = HEADER_FRAME_OFFSET + HEADER_LEN;

const _: () = assert!(PAYLOAD_FRAME_OFFSET == 64);
const _: () = assert!(PAYLOAD_FRAME_OFFSET.is_multiple_of(32));

//! The one error type of the wire-format crate.

use crate::HEADER_LEN;
use crate::codes::{Datatype, MessageType, ReduceOp};

/// Everything that can be wrong with a datagram, a reduction operand or a segmentation request.
/// Parsing never panics: every malformed input maps to one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("datagram too short: {len} bytes, the offload header needs {HEADER_LEN}")]
    Truncated { len: usize },
    #[error("bad magic 0x{found:02x} (expected 0x{:02x})", crate::MAGIC)]
    BadMagic { found: u8 },
    #[error(
        "unsupported protocol version {found} (this build speaks {})",
        crate::VERSION
    )]
    BadVersion { found: u8 },
    #[error("unknown {field} code {code}")]
    UnknownCode { field: &'static str, code: u8 },
    #[error("unknown {field} name {name:?}")]
    UnknownName { field: &'static str, name: String },
    #[error("reserved {field} {name:?} is not implemented")]
    Unsupported {
        field: &'static str,
        name: &'static str,
    },
    #[error("reduction op {op} is not defined on {datatype}")]
    InvalidOp { datatype: Datatype, op: ReduceOp },
    #[error("communicator size is 0")]
    ZeroCommSize,
    #[error("ranks per host {ranks_per_host} does not divide communicator size {comm_size}")]
    BadRanksPerHost { ranks_per_host: u8, comm_size: u16 },
    #[error("rank {rank} out of range for communicator size {comm_size}")]
    RankOutOfRange { rank: u16, comm_size: u16 },
    #[error("root {root} out of range for communicator size {comm_size}")]
    RootOutOfRange { root: u16, comm_size: u16 },
    #[error("segment index {index} out of range for segment count {count}")]
    SegmentOutOfRange { index: u16, count: u16 },
    #[error(
        "payload is {payload_len} bytes but {elem_count} elements of {elem_size} bytes need {}",
        *elem_count as usize * *elem_size
    )]
    LengthMismatch {
        elem_count: u16,
        elem_size: usize,
        payload_len: usize,
    },
    #[error("{what} carries no data but has {elem_count} elements")]
    UnexpectedData { what: &'static str, elem_count: u16 },
    #[error("{msg_type} payload must be {expected} bytes, got {len}")]
    BadControlPayload {
        msg_type: MessageType,
        expected: usize,
        len: usize,
    },
    #[error("operands have {lhs} and {rhs} bytes; both must be equal multiples of {elem_size}")]
    OperandLength {
        lhs: usize,
        rhs: usize,
        elem_size: usize,
    },
    #[error("MTU {mtu} outside {min}..={max}", min = crate::segment::MIN_MTU, max = crate::segment::MAX_MTU)]
    BadMtu { mtu: usize },
    #[error("{elements} elements need more than the maximum of {max_segments} segments")]
    MessageTooLarge {
        elements: usize,
        max_segments: usize,
    },
    #[error("segment {index} has {got} elements, expected {expected}")]
    SegmentSize {
        index: u16,
        got: usize,
        expected: usize,
    },
    #[error("segment count {got} differs from the expected {expected}")]
    SegmentCount { got: u16, expected: u16 },
    #[error("message incomplete: {missing} of {count} segments missing")]
    Incomplete { missing: usize, count: u16 },
    #[error("{what} {value} is beyond what the boards run ({min}..={max})")]
    BeyondBoard {
        what: &'static str,
        value: usize,
        min: usize,
        max: usize,
    },
    #[error("not an offload frame: {0}")]
    NotOffload(&'static str),
    #[error("frame does not parse: {0}")]
    Frame(String),
}

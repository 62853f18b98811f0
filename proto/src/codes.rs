//! The enumerated header fields and their on-wire codes.
//!
//! Every enum has a stable numeric code (what goes on the wire), a stable lower-case name (what
//! configs, the CLI and JSON use) and a flag saying whether collwire implements it yet. A code
//! that is *reserved* parses (it is part of the protocol) but is refused by
//! [`OffloadRepr::check_supported`](crate::OffloadRepr::check_supported); a code that is
//! *unknown* does not parse at all.

use crate::Error;

macro_rules! code_enum {
    (
        $(#[$meta:meta])*
        $name:ident, field = $field:literal {
            $( $(#[$vmeta:meta])* $var:ident = $code:literal, $text:literal, $supported:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[repr(u8)]
        pub enum $name {
            $( $(#[$vmeta])* #[cfg_attr(feature = "serde", serde(rename = $text))] $var = $code, )*
        }

        impl $name {
            /// Every variant, in code order.
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            /// Header field name used in error messages.
            pub const FIELD: &'static str = $field;

            /// The on-wire code.
            pub const fn code(self) -> u8 {
                self as u8
            }

            /// Decodes an on-wire code; unknown codes are an [`Error::UnknownCode`].
            pub const fn from_code(code: u8) -> Result<Self, Error> {
                match code {
                    $( $code => Ok($name::$var), )*
                    _ => Err(Error::UnknownCode { field: $field, code }),
                }
            }

            /// Stable lower-case name (CLI, configs, JSON).
            pub const fn name(self) -> &'static str {
                match self {
                    $( $name::$var => $text, )*
                }
            }

            /// Whether collwire implements this code (reserved codes parse but are refused).
            pub const fn is_supported(self) -> bool {
                match self {
                    $( $name::$var => $supported, )*
                }
            }

            /// Variants that are implemented.
            pub fn supported() -> impl Iterator<Item = $name> {
                Self::ALL.iter().copied().filter(|v| v.is_supported())
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl core::str::FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name().eq_ignore_ascii_case(s))
                    .ok_or_else(|| Error::UnknownName { field: $field, name: s.to_string() })
            }
        }
    };
}

code_enum! {
    /// Which kind of datagram this is (header byte 1, low nibble).
    MessageType, field = "message type" {
        /// Host → board: one rank's contribution to a collective (one segment of it).
        Request = 0, "request", true;
        /// Board → board: a partial result that the receiver combines with its own.
        Partial = 1, "partial", true;
        /// Board → board: a finished result that the receiver forwards/delivers without combining.
        Result = 2, "result", true;
        /// Board → host: the result for one local rank, sent to that rank's own UDP port.
        Response = 3, "response", true;
        /// Board → board: the sending board lacks the partial or result for its input register
        /// (`rank` = `register << 8 | sending board`) of segment `seg_index` of `op_id`; the
        /// receiver sends that frame again (docs/recovery.md, "NACK between boards").
        Nack = 4, "nack", true;
        /// Board → host: a retransmitted request (`attempt` > 0) for a segment the board holds
        /// open: it has this rank's contribution and waits for the others. The header is the
        /// request's, addresses swapped, without elements.
        Ack = 5, "ack", true;
        /// Board → host: the operation was refused; the payload is an [`ErrorCode`] record.
        Error = 6, "error", true;
        /// Host → board: the rank gave up on segment `seg_index` of `op_id` (its deadline
        /// passed); the board frees the segment's context and drops its late frames.
        Abort = 7, "abort", true;
        /// Board → board: the answer to a nack for a frame its sender has not sent yet (its
        /// segment is open, waiting for its own inputs: a late rank). The nacking board hears
        /// that its partner is alive and keeps waiting instead of giving up. `rank` as in the
        /// nack (`register << 8 | sending board`), no elements.
        Pending = 8, "pending", true;
    }
}

impl MessageType {
    /// Whether datagrams of this kind may carry elements (control messages never do).
    pub const fn carries_data(self) -> bool {
        !matches!(
            self,
            MessageType::Nack
                | MessageType::Ack
                | MessageType::Error
                | MessageType::Abort
                | MessageType::Pending
        )
    }
}

code_enum! {
    /// The MPI collective (header byte 4, high nibble).
    Collective, field = "collective" {
        Allreduce = 0, "allreduce", true;
        Reduce = 1, "reduce", true;
        Barrier = 2, "barrier", true;
        /// Inclusive prefix reduction.
        Scan = 3, "scan", true;
        Bcast = 4, "bcast", false;
        Exscan = 5, "exscan", false;
        ReduceScatter = 6, "reduce-scatter", false;
        Allgather = 7, "allgather", false;
        Alltoall = 8, "alltoall", false;
    }
}

code_enum! {
    /// The algorithm the boards run (header byte 4, low nibble). The combination order each one
    /// defines is specified in `docs/protocol.md` and implemented by the golden model.
    Algorithm, field = "algorithm" {
        Ring = 0, "ring", true;
        RecursiveDoubling = 1, "recursive-doubling", true;
        /// Binomial reduce tree rooted at board 0, then broadcast down the same tree.
        Tree = 2, "tree", true;
        /// Rows first (ring order within a row), then columns.
        Torus2d = 3, "torus2d", true;
    }
}

code_enum! {
    /// Element type of the payload (header byte 5, high nibble). Elements are little-endian.
    Datatype, field = "datatype" {
        Int32 = 0, "int32", true;
        Uint32 = 1, "uint32", true;
        Int64 = 2, "int64", true;
        Uint64 = 3, "uint64", true;
        F32 = 4, "f32", true;
        F64 = 5, "f64", true;
        F16 = 6, "f16", false;
        Bf16 = 7, "bf16", false;
    }
}

code_enum! {
    /// Reduction operator (header byte 5, low nibble).
    ReduceOp, field = "reduction op" {
        Sum = 0, "sum", true;
        Min = 1, "min", true;
        Max = 2, "max", true;
        Band = 3, "band", true;
        Land = 4, "land", true;
        Bor = 5, "bor", true;
        Lor = 6, "lor", true;
        Bxor = 7, "bxor", true;
        Lxor = 8, "lxor", true;
        Prod = 9, "prod", false;
    }
}

code_enum! {
    /// Why a board refused an operation; first two bytes (big-endian) of an `Error` payload.
    ErrorCode, field = "error code" {
        /// A reserved collective, algorithm, datatype or op.
        Unsupported = 1, "unsupported", true;
        /// The algorithm cannot run on this rank count / cabling.
        BadTopology = 2, "bad-topology", true;
        /// The request did not parse.
        Malformed = 3, "malformed", true;
        /// Ranks of one operation disagree on its parameters.
        Mismatch = 4, "mismatch", true;
        /// No free operation slot on the board.
        Busy = 5, "busy", true;
        /// A partner never answered within the retry budget.
        Timeout = 6, "timeout", true;
        /// A request for a segment the board already completed or aborted (its key is in the
        /// board's history): the response was sent once and cannot be sent again.
        Stale = 7, "stale", true;
        /// The datagram is longer than a board takes (`limits::MAX_DATAGRAM`); the detail is
        /// that limit in bytes. Sent by the host side (`collwire serve`), never forwarded.
        TooLarge = 8, "too-large", true;
    }
}

impl MessageType {
    /// What a host sends its board: requests and aborts. Everything else comes from a board.
    pub fn is_host_to_board(self) -> bool {
        matches!(self, MessageType::Request | MessageType::Abort)
    }

    /// Partial, result and nack frames travel between boards; their `rank` field is
    /// `input register << 8 | sending board` (docs/protocol.md), not a rank. (A nack names the
    /// register its sender lacks, and the board that lacks it.)
    pub fn is_board_to_board(self) -> bool {
        matches!(
            self,
            MessageType::Partial | MessageType::Result | MessageType::Nack | MessageType::Pending
        )
    }
}

impl Datatype {
    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            Datatype::Int32 | Datatype::Uint32 | Datatype::F32 => 4,
            Datatype::Int64 | Datatype::Uint64 | Datatype::F64 => 8,
            Datatype::F16 | Datatype::Bf16 => 2,
        }
    }

    /// IEEE 754 binary floating point.
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            Datatype::F32 | Datatype::F64 | Datatype::F16 | Datatype::Bf16
        )
    }
}

impl ReduceOp {
    /// Whether `self` is defined on `datatype`: arithmetic (SUM, MIN, MAX, PROD) on everything,
    /// bitwise and logical ops on integers only.
    pub const fn is_valid_for(self, datatype: Datatype) -> bool {
        match self {
            ReduceOp::Sum | ReduceOp::Min | ReduceOp::Max | ReduceOp::Prod => true,
            _ => !datatype.is_float(),
        }
    }

    /// Every (datatype, op) pair the boards run: supported datatypes × the supported ops
    /// defined on each.
    pub fn supported_pairs() -> Vec<(Datatype, ReduceOp)> {
        Datatype::supported()
            .flat_map(|d| {
                ReduceOp::supported()
                    .filter(move |o| o.is_valid_for(d))
                    .map(move |o| (d, o))
            })
            .collect()
    }
}

impl Collective {
    /// Whether the collective carries element data (Barrier does not).
    pub const fn carries_data(self) -> bool {
        !matches!(self, Collective::Barrier)
    }
}

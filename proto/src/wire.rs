//! The offload header: a zero-copy view over datagram bytes ([`OffloadPacket`]) and the owned,
//! validated representation ([`OffloadRepr`]) with `parse` and `emit`, in the style of
//! smoltcp's `wire` module.
//!
//! Byte ranges are offsets into the UDP payload; add [`crate::HEADER_FRAME_OFFSET`] (42) for the
//! offset in the Ethernet frame. Multi-byte header fields are big-endian (network order).

use crate::codes::{Algorithm, Collective, Datatype, ErrorCode, MessageType, ReduceOp};
use crate::{Error, HEADER_LEN, MAGIC, VERSION};

/// Byte positions of the header fields inside the UDP payload.
pub mod field {
    /// A multi-byte field, big-endian.
    pub type Field = core::ops::Range<usize>;
    /// `[0]` magic, always [`crate::MAGIC`].
    pub const MAGIC: usize = 0;
    /// `[1]` high nibble: version; low nibble: message type.
    pub const VERSION_TYPE: usize = 1;
    /// `[2..4]` operation id: which collective instance (wraps).
    pub const OP_ID: Field = 2..4;
    /// `[4]` high nibble: collective; low nibble: algorithm.
    pub const COLL_ALG: usize = 4;
    /// `[5]` high nibble: datatype; low nibble: reduction op.
    pub const DTYPE_OP: usize = 5;
    /// `[6..8]` communicator / job id.
    pub const COMM_ID: Field = 6..8;
    /// `[8..10]` communicator size (ranks).
    pub const COMM_SIZE: Field = 8..10;
    /// `[10..12]` rank of the sender (requests) or index of the sending board (board packets).
    pub const RANK: Field = 10..12;
    /// `[12..14]` root rank (Reduce; ignored otherwise but must be in range).
    pub const ROOT: Field = 12..14;
    /// `[14]` ranks per host (ranks are placed block-wise: board b hosts b·rph … b·rph+rph−1).
    pub const RANKS_PER_HOST: usize = 14;
    /// `[15]` transmission attempt, 0 for the first send, +1 per retransmission (wraps).
    pub const ATTEMPT: usize = 15;
    /// `[16..18]` index of this segment within the message.
    pub const SEG_INDEX: Field = 16..18;
    /// `[18..20]` number of segments of the message.
    pub const SEG_COUNT: Field = 18..20;
    /// `[20..22]` number of elements in this datagram's payload.
    pub const ELEM_COUNT: Field = 20..22;
    /// `[22..]` payload: `elem_count` little-endian elements.
    pub const PAYLOAD: usize = 22;
}

/// Length of the payload of an [`MessageType::Error`] datagram: code (u16 BE) + detail (u16 BE).
pub const ERROR_PAYLOAD_LEN: usize = 4;

/// A read/write view of an offload datagram (the UDP payload) over any byte buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffloadPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> OffloadPacket<T> {
    /// Wraps a buffer without checking its length; accessors may panic on a short buffer.
    pub const fn new_unchecked(buffer: T) -> Self {
        OffloadPacket { buffer }
    }

    /// Wraps a buffer after checking that the whole header is present.
    pub fn new_checked(buffer: T) -> Result<Self, Error> {
        let len = buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated { len });
        }
        Ok(OffloadPacket { buffer })
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn byte(&self, at: usize) -> u8 {
        self.buffer.as_ref()[at]
    }

    fn be16(&self, f: field::Field) -> u16 {
        let b = &self.buffer.as_ref()[f];
        u16::from_be_bytes([b[0], b[1]])
    }

    pub fn magic(&self) -> u8 {
        self.byte(field::MAGIC)
    }
    pub fn version(&self) -> u8 {
        self.byte(field::VERSION_TYPE) >> 4
    }
    pub fn msg_type_code(&self) -> u8 {
        self.byte(field::VERSION_TYPE) & 0xf
    }
    pub fn op_id(&self) -> u16 {
        self.be16(field::OP_ID)
    }
    pub fn collective_code(&self) -> u8 {
        self.byte(field::COLL_ALG) >> 4
    }
    pub fn algorithm_code(&self) -> u8 {
        self.byte(field::COLL_ALG) & 0xf
    }
    pub fn datatype_code(&self) -> u8 {
        self.byte(field::DTYPE_OP) >> 4
    }
    pub fn op_code(&self) -> u8 {
        self.byte(field::DTYPE_OP) & 0xf
    }
    pub fn comm_id(&self) -> u16 {
        self.be16(field::COMM_ID)
    }
    pub fn comm_size(&self) -> u16 {
        self.be16(field::COMM_SIZE)
    }
    pub fn rank(&self) -> u16 {
        self.be16(field::RANK)
    }
    pub fn root(&self) -> u16 {
        self.be16(field::ROOT)
    }
    pub fn ranks_per_host(&self) -> u8 {
        self.byte(field::RANKS_PER_HOST)
    }
    pub fn attempt(&self) -> u8 {
        self.byte(field::ATTEMPT)
    }
    pub fn seg_index(&self) -> u16 {
        self.be16(field::SEG_INDEX)
    }
    pub fn seg_count(&self) -> u16 {
        self.be16(field::SEG_COUNT)
    }
    pub fn elem_count(&self) -> u16 {
        self.be16(field::ELEM_COUNT)
    }
    /// Everything after the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[field::PAYLOAD..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> OffloadPacket<T> {
    fn set_be16(&mut self, f: field::Field, v: u16) {
        self.buffer.as_mut()[f].copy_from_slice(&v.to_be_bytes());
    }
    fn set_nibbles(&mut self, at: usize, hi: u8, lo: u8) {
        self.buffer.as_mut()[at] = (hi << 4) | (lo & 0xf);
    }

    pub fn set_magic(&mut self, v: u8) {
        self.buffer.as_mut()[field::MAGIC] = v;
    }
    pub fn set_version_and_type(&mut self, version: u8, msg_type: u8) {
        self.set_nibbles(field::VERSION_TYPE, version, msg_type);
    }
    pub fn set_op_id(&mut self, v: u16) {
        self.set_be16(field::OP_ID, v)
    }
    pub fn set_collective_and_algorithm(&mut self, collective: u8, algorithm: u8) {
        self.set_nibbles(field::COLL_ALG, collective, algorithm);
    }
    pub fn set_datatype_and_op(&mut self, datatype: u8, op: u8) {
        self.set_nibbles(field::DTYPE_OP, datatype, op);
    }
    pub fn set_comm_id(&mut self, v: u16) {
        self.set_be16(field::COMM_ID, v)
    }
    pub fn set_comm_size(&mut self, v: u16) {
        self.set_be16(field::COMM_SIZE, v)
    }
    pub fn set_rank(&mut self, v: u16) {
        self.set_be16(field::RANK, v)
    }
    pub fn set_root(&mut self, v: u16) {
        self.set_be16(field::ROOT, v)
    }
    pub fn set_ranks_per_host(&mut self, v: u8) {
        self.buffer.as_mut()[field::RANKS_PER_HOST] = v;
    }
    pub fn set_attempt(&mut self, v: u8) {
        self.buffer.as_mut()[field::ATTEMPT] = v;
    }
    pub fn set_seg_index(&mut self, v: u16) {
        self.set_be16(field::SEG_INDEX, v)
    }
    pub fn set_seg_count(&mut self, v: u16) {
        self.set_be16(field::SEG_COUNT, v)
    }
    pub fn set_elem_count(&mut self, v: u16) {
        self.set_be16(field::ELEM_COUNT, v)
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[field::PAYLOAD..]
    }
}

/// The decoded, validated offload header. The payload stays in the buffer
/// ([`OffloadPacket::payload`]); `elem_count` says how long it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OffloadRepr {
    pub msg_type: MessageType,
    pub op_id: u16,
    pub collective: Collective,
    pub algorithm: Algorithm,
    pub datatype: Datatype,
    pub op: ReduceOp,
    pub comm_id: u16,
    pub comm_size: u16,
    pub rank: u16,
    pub root: u16,
    pub ranks_per_host: u8,
    pub attempt: u8,
    pub seg_index: u16,
    pub seg_count: u16,
    pub elem_count: u16,
}

impl OffloadRepr {
    /// Decodes and validates a datagram. Every check of `docs/protocol.md` ("Validation") runs
    /// here, in that order; the first failure is returned.
    pub fn parse<T: AsRef<[u8]>>(packet: &OffloadPacket<T>) -> Result<OffloadRepr, Error> {
        let len = packet.buffer.as_ref().len();
        if len < HEADER_LEN {
            return Err(Error::Truncated { len });
        }
        if packet.magic() != MAGIC {
            return Err(Error::BadMagic {
                found: packet.magic(),
            });
        }
        if packet.version() != VERSION {
            return Err(Error::BadVersion {
                found: packet.version(),
            });
        }
        let repr = OffloadRepr {
            msg_type: MessageType::from_code(packet.msg_type_code())?,
            op_id: packet.op_id(),
            collective: Collective::from_code(packet.collective_code())?,
            algorithm: Algorithm::from_code(packet.algorithm_code())?,
            datatype: Datatype::from_code(packet.datatype_code())?,
            op: ReduceOp::from_code(packet.op_code())?,
            comm_id: packet.comm_id(),
            comm_size: packet.comm_size(),
            rank: packet.rank(),
            root: packet.root(),
            ranks_per_host: packet.ranks_per_host(),
            attempt: packet.attempt(),
            seg_index: packet.seg_index(),
            seg_count: packet.seg_count(),
            elem_count: packet.elem_count(),
        };
        repr.validate(packet.payload().len())?;
        Ok(repr)
    }

    /// Checks the header's internal consistency against a payload of `payload_len` bytes.
    pub fn validate(&self, payload_len: usize) -> Result<(), Error> {
        if !self.op.is_valid_for(self.datatype) {
            return Err(Error::InvalidOp {
                datatype: self.datatype,
                op: self.op,
            });
        }
        crate::Layout::new(self.comm_size, self.ranks_per_host)?;
        // Board-to-board frames carry `input register << 8 | sending board` in `rank`.
        if !self.msg_type.is_board_to_board() && self.rank >= self.comm_size {
            return Err(Error::RankOutOfRange {
                rank: self.rank,
                comm_size: self.comm_size,
            });
        }
        if self.root >= self.comm_size {
            return Err(Error::RootOutOfRange {
                root: self.root,
                comm_size: self.comm_size,
            });
        }
        if self.seg_count == 0 || self.seg_index >= self.seg_count {
            return Err(Error::SegmentOutOfRange {
                index: self.seg_index,
                count: self.seg_count,
            });
        }
        let no_data = match self.msg_type {
            m if !m.carries_data() => Some(m.name()),
            _ if !self.collective.carries_data() => Some(self.collective.name()),
            _ => None,
        };
        if let Some(what) = no_data
            && self.elem_count != 0
        {
            return Err(Error::UnexpectedData {
                what,
                elem_count: self.elem_count,
            });
        }
        if self.msg_type == MessageType::Error {
            if payload_len != ERROR_PAYLOAD_LEN {
                return Err(Error::BadControlPayload {
                    msg_type: self.msg_type,
                    expected: ERROR_PAYLOAD_LEN,
                    len: payload_len,
                });
            }
            return Ok(());
        }
        if self.payload_len() != payload_len {
            return Err(Error::LengthMismatch {
                elem_count: self.elem_count,
                elem_size: self.datatype.size(),
                payload_len,
            });
        }
        Ok(())
    }

    /// Refuses reserved codes: what a board answers with an [`ErrorCode::Unsupported`] error and
    /// what the driver checks before sending anything.
    pub fn check_supported(&self) -> Result<(), Error> {
        let reserved = |field, name, ok| {
            if ok {
                Ok(())
            } else {
                Err(Error::Unsupported { field, name })
            }
        };
        reserved(
            Collective::FIELD,
            self.collective.name(),
            self.collective.is_supported(),
        )?;
        reserved(
            Algorithm::FIELD,
            self.algorithm.name(),
            self.algorithm.is_supported(),
        )?;
        reserved(
            Datatype::FIELD,
            self.datatype.name(),
            self.datatype.is_supported(),
        )?;
        reserved(ReduceOp::FIELD, self.op.name(), self.op.is_supported())
    }

    /// Payload bytes this header announces.
    pub fn payload_len(&self) -> usize {
        match self.msg_type {
            MessageType::Error => ERROR_PAYLOAD_LEN,
            _ => usize::from(self.elem_count) * self.datatype.size(),
        }
    }

    /// Header plus payload.
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.payload_len()
    }

    /// Writes the header (not the payload) into `packet`. Does not validate; see
    /// [`OffloadRepr::to_datagram`] for the checked path.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut OffloadPacket<T>) {
        packet.set_magic(MAGIC);
        packet.set_version_and_type(VERSION, self.msg_type.code());
        packet.set_op_id(self.op_id);
        packet.set_collective_and_algorithm(self.collective.code(), self.algorithm.code());
        packet.set_datatype_and_op(self.datatype.code(), self.op.code());
        packet.set_comm_id(self.comm_id);
        packet.set_comm_size(self.comm_size);
        packet.set_rank(self.rank);
        packet.set_root(self.root);
        packet.set_ranks_per_host(self.ranks_per_host);
        packet.set_attempt(self.attempt);
        packet.set_seg_index(self.seg_index);
        packet.set_seg_count(self.seg_count);
        packet.set_elem_count(self.elem_count);
    }

    /// Validates, then builds a complete datagram (header + `payload`).
    pub fn to_datagram(&self, payload: &[u8]) -> Result<Vec<u8>, Error> {
        self.validate(payload.len())?;
        let mut buf = vec![0u8; HEADER_LEN + payload.len()];
        let mut packet = OffloadPacket::new_unchecked(&mut buf[..]);
        self.emit(&mut packet);
        packet.payload_mut().copy_from_slice(payload);
        Ok(buf)
    }

    /// Parses a whole datagram and returns the header and its payload.
    pub fn from_datagram(datagram: &[u8]) -> Result<(OffloadRepr, &[u8]), Error> {
        let packet = OffloadPacket::new_checked(datagram)?;
        let repr = OffloadRepr::parse(&packet)?;
        Ok((repr, &datagram[HEADER_LEN..]))
    }
}

/// The record carried by an [`MessageType::Error`] datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorRecord {
    pub code: ErrorCode,
    /// Code-specific detail (for `Unsupported`: the header byte offset of the offending field).
    pub detail: u16,
}

impl ErrorRecord {
    pub fn parse(payload: &[u8]) -> Result<ErrorRecord, Error> {
        if payload.len() != ERROR_PAYLOAD_LEN {
            return Err(Error::BadControlPayload {
                msg_type: MessageType::Error,
                expected: ERROR_PAYLOAD_LEN,
                len: payload.len(),
            });
        }
        let code = u16::from_be_bytes([payload[0], payload[1]]);
        let code = u8::try_from(code)
            .map_err(|_| Error::UnknownCode {
                field: ErrorCode::FIELD,
                code: u8::MAX,
            })
            .and_then(ErrorCode::from_code)?;
        Ok(ErrorRecord {
            code,
            detail: u16::from_be_bytes([payload[2], payload[3]]),
        })
    }

    pub fn emit(&self) -> [u8; ERROR_PAYLOAD_LEN] {
        let c = u16::from(self.code.code()).to_be_bytes();
        let d = self.detail.to_be_bytes();
        [c[0], c[1], d[0], d[1]]
    }
}

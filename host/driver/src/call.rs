//! One collective call: argument checks, request datagrams, response collection.

use collwire_proto::limits;
use collwire_proto::segment::{Accepted, Reassembler, Segmenter};
use collwire_proto::wire::ErrorRecord;
use collwire_proto::{
    Algorithm, Collective, Datatype, ErrorCode, Layout, MessageType, OffloadRepr, ReduceOp,
};

/// Why a call was refused or failed. A refused call has sent nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DriverError {
    #[error(transparent)]
    Proto(#[from] collwire_proto::Error),
    #[error("rank {rank} out of range for communicator size {size}")]
    RankOutOfRange { rank: usize, size: usize },
    #[error("communicator size {size} does not fit the 16-bit rank field")]
    CommTooLarge { size: usize },
    #[error("root {root} out of range for communicator size {size}")]
    RootOutOfRange { root: usize, size: usize },
    #[error("send buffer has {send} elements, receive buffer {recv}")]
    LengthMismatch { send: usize, recv: usize },
    #[error("barrier carries no data but {elements} elements were given")]
    BarrierWithData { elements: usize },
    #[error("response does not belong to this call: {0}")]
    Foreign(&'static str),
    #[error("board refused the operation: {code} (detail {detail})")]
    Refused { code: ErrorCode, detail: u16 },
    #[error("buffer of {bytes} bytes is not a whole number of {elem_size}-byte elements")]
    Unaligned { bytes: usize, elem_size: usize },
    #[error("posted as {posted}, waited for as {given}")]
    DatatypeMismatch { posted: Datatype, given: Datatype },
    #[error("65536 operations in flight on one communicator")]
    TooManyInFlight,
    #[error("no operation {0} in flight (already waited for?)")]
    UnknownRequest(u16),
    #[error(
        "operation {op_id} timed out after {waited_ms} ms: segments {missing:?} never answered \
         ({unsent} not yet sent); is every rank calling it, and is the board reachable?"
    )]
    Timeout {
        op_id: u16,
        waited_ms: u64,
        missing: Vec<u16>,
        unsent: usize,
    },
    #[error(
        "{board} does not answer: operation {op_id} segment {segment} was retransmitted \
         {retransmissions} times over {silent_ms} ms without an answer, an ack or an error; is \
         the board (or collwire serve) running? (a board whose 8 contexts are all held by \
         unfinished segments does not answer either)"
    )]
    Unreachable {
        board: String,
        op_id: u16,
        segment: u16,
        retransmissions: u32,
        silent_ms: u64,
    },
    #[error(transparent)]
    Transport(#[from] crate::transport::TransportError),
}

impl DriverError {
    /// The boards cannot run this call's shape: a reserved code, a message of more segments
    /// than the header counts, a configuration beyond a board's limits
    /// ([`collwire_proto::limits`]), or a board's `unsupported` / `bad-topology` / `too-large`
    /// answer. Every rank of the call gets the same answer, so a library above the driver can
    /// run the call another way (the PMPI library hands it to MPI).
    pub fn is_unsupported(&self) -> bool {
        use collwire_proto::Error as P;
        match self {
            DriverError::Proto(P::Unsupported { .. })
            | DriverError::Proto(P::MessageTooLarge { .. })
            | DriverError::Proto(P::BeyondBoard { .. }) => true,
            DriverError::Refused { code, .. } => matches!(
                code,
                ErrorCode::Unsupported | ErrorCode::BadTopology | ErrorCode::TooLarge
            ),
            _ => false,
        }
    }
}

/// A rank's view of its communicator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Communicator {
    layout: Layout,
    rank: u16,
    comm_id: u16,
    mtu: usize,
}

impl Communicator {
    pub fn new(
        size: usize,
        ranks_per_host: u8,
        rank: usize,
        comm_id: u16,
        mtu: usize,
    ) -> Result<Self, DriverError> {
        let size16 = u16::try_from(size).map_err(|_| DriverError::CommTooLarge { size })?;
        let layout = Layout::new(size16, ranks_per_host)?;
        if rank >= size {
            return Err(DriverError::RankOutOfRange { rank, size });
        }
        Segmenter::new(Datatype::Int32, mtu)?; // validates the MTU once
        // What the boards run: checked here, once, so no call on a communicator the boards
        // cannot serve ever sends a datagram.
        limits::check_ranks_per_host(ranks_per_host)?;
        limits::check_mtu(mtu)?;
        limits::check_boards(layout.boards())?;
        Ok(Communicator {
            layout,
            rank: rank as u16,
            comm_id,
            mtu,
        })
    }
    pub fn rank(&self) -> usize {
        usize::from(self.rank)
    }
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    pub fn layout(&self) -> Layout {
        self.layout
    }
    pub fn comm_id(&self) -> u16 {
        self.comm_id
    }
    pub fn mtu(&self) -> usize {
        self.mtu
    }
}

/// One collective call as this rank issues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    pub collective: Collective,
    pub algorithm: Algorithm,
    pub datatype: Datatype,
    pub op: ReduceOp,
    pub root: usize,
    /// Element count (0 for Barrier).
    pub elements: usize,
    pub op_id: u16,
}

impl Call {
    /// All argument checks; nothing is built or sent unless this passes.
    pub fn check(&self, comm: &Communicator) -> Result<Segmenter, DriverError> {
        if self.root >= comm.size() {
            return Err(DriverError::RootOutOfRange {
                root: self.root,
                size: comm.size(),
            });
        }
        if !self.collective.carries_data() && self.elements != 0 {
            return Err(DriverError::BarrierWithData {
                elements: self.elements,
            });
        }
        let segmenter = Segmenter::new(self.datatype, comm.mtu)?;
        segmenter.segment_count(self.elements)?;
        let header = self.header(comm, 0, 1, 0);
        header.check_supported()?;
        header.validate(0)?; // datatype/op pair, layout, rank, root
        Ok(segmenter)
    }

    fn header(
        &self,
        comm: &Communicator,
        seg_index: u16,
        seg_count: u16,
        elem_count: u16,
    ) -> OffloadRepr {
        OffloadRepr {
            msg_type: MessageType::Request,
            op_id: self.op_id,
            collective: self.collective,
            algorithm: self.algorithm,
            datatype: self.datatype,
            op: self.op,
            comm_id: comm.comm_id,
            comm_size: comm.layout.size() as u16,
            rank: comm.rank,
            root: self.root as u16,
            ranks_per_host: comm.layout.ranks_per_host() as u8,
            attempt: 0,
            seg_index,
            seg_count,
            elem_count,
        }
    }

    /// The request datagrams (UDP payloads), one per segment, for `send` (little-endian
    /// elements of `self.datatype`).
    pub fn requests(&self, comm: &Communicator, send: &[u8]) -> Result<Vec<Vec<u8>>, DriverError> {
        let segmenter = self.check(comm)?;
        let size = self.datatype.size();
        if send.len() != self.elements * size {
            return Err(DriverError::LengthMismatch {
                send: send.len() / size,
                recv: self.elements,
            });
        }
        let count = segmenter.segment_count(self.elements)?;
        segmenter
            .segments(self.elements)?
            .map(|(i, range)| {
                let header = self.header(comm, i, count, range.len() as u16);
                Ok(header.to_datagram(&send[range.start * size..range.end * size])?)
            })
            .collect()
    }

    /// A collector for this call's responses.
    pub fn collector(&self, comm: &Communicator) -> Result<ResponseCollector, DriverError> {
        let segmenter = self.check(comm)?;
        // A reduce answers non-root ranks with empty responses, one per segment.
        let empty = (self.collective == Collective::Reduce && comm.rank() != self.root)
            .then(|| vec![false; usize::from(segmenter.segment_count(self.elements).unwrap_or(1))]);
        Ok(ResponseCollector {
            call: *self,
            comm: *comm,
            reassembler: Reassembler::new(segmenter, self.elements)?,
            empty,
        })
    }
}

/// Gathers the response segments of one call, ignoring duplicates, refusing datagrams that
/// belong to another call.
#[derive(Debug, Clone)]
pub struct ResponseCollector {
    call: Call,
    comm: Communicator,
    reassembler: Reassembler,
    /// Reduce, not the root: which segments' empty responses arrived.
    empty: Option<Vec<bool>>,
}

impl ResponseCollector {
    /// Feeds one received datagram. Returns whether it was new; errors leave the state as is.
    pub fn accept(&mut self, datagram: &[u8]) -> Result<Accepted, DriverError> {
        let (repr, payload) = OffloadRepr::from_datagram(datagram)?;
        self.accept_parsed(&repr, payload)
    }

    /// [`ResponseCollector::accept`] for a datagram the caller has already parsed.
    pub fn accept_parsed(
        &mut self,
        repr: &OffloadRepr,
        payload: &[u8],
    ) -> Result<Accepted, DriverError> {
        if repr.op_id != self.call.op_id || repr.comm_id != self.comm.comm_id {
            return Err(DriverError::Foreign("operation or communicator id differs"));
        }
        if repr.msg_type == MessageType::Error {
            let rec = ErrorRecord::parse(payload)?;
            return Err(DriverError::Refused {
                code: rec.code,
                detail: rec.detail,
            });
        }
        if repr.msg_type != MessageType::Response {
            return Err(DriverError::Foreign("not a response"));
        }
        if repr.collective != self.call.collective
            || repr.datatype != self.call.datatype
            || repr.op != self.call.op
        {
            return Err(DriverError::Foreign("collective, datatype or op differs"));
        }
        if let Some(acks) = self.empty.as_mut() {
            if usize::from(repr.seg_count) != acks.len() || !payload.is_empty() {
                return Err(DriverError::Foreign(
                    "a reduce sends non-root ranks empty responses",
                ));
            }
            let Some(seen) = acks.get_mut(usize::from(repr.seg_index)) else {
                return Err(DriverError::Foreign("segment index out of range"));
            };
            let new = !*seen;
            *seen = true;
            return Ok(if new {
                Accepted::New
            } else {
                Accepted::Duplicate
            });
        }
        Ok(self
            .reassembler
            .accept(repr.seg_index, repr.seg_count, payload)?)
    }

    pub fn is_complete(&self) -> bool {
        match &self.empty {
            Some(acks) => acks.iter().all(|a| *a),
            None => self.reassembler.is_complete(),
        }
    }

    /// Segments still missing.
    pub fn missing(&self) -> Vec<u16> {
        match &self.empty {
            Some(acks) => (0..acks.len() as u16)
                .filter(|i| !acks[usize::from(*i)])
                .collect(),
            None => self.reassembler.missing().collect(),
        }
    }

    /// The result bytes, once complete (empty for a reduce's non-root ranks).
    pub fn finish(self) -> Result<Vec<u8>, DriverError> {
        match self.empty {
            Some(acks) if acks.iter().all(|a| *a) => Ok(Vec::new()),
            Some(_) => Err(DriverError::Foreign("responses missing")),
            None => Ok(self.reassembler.into_bytes()?),
        }
    }
}

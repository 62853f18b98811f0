//! The communicator an application calls: blocking and non-blocking collectives over a
//! [`Transport`].
//!
//! Every rank of a communicator must issue its collectives in the same order (as MPI
//! requires); each call takes the next operation id, so the boards match the ranks' segments
//! by (communicator id, operation id, segment).
//!
//! A call is checked completely before anything is sent. Its segments go out through a window
//! (at most [`OffloadComm::window`] unanswered segments of this rank at once, oldest operation
//! first), because a board holds only 8 segments in flight. Every operation has a deadline: it
//! ends in [`DriverError::Timeout`], naming the segments that never came back, `timeout` after
//! it was posted — a lost datagram never leaves a wait hanging — and sends the board an abort for
//! each unanswered segment, so the board frees the contexts they hold instead of filling up.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use collwire_proto::segment::Accepted;
use collwire_proto::{Algorithm, Collective, Datatype, MessageType, OffloadRepr, ReduceOp};

use crate::call::{Call, Communicator, DriverError, ResponseCollector};
use crate::element::{Element, from_bytes, to_bytes};
use crate::transport::Transport;

/// Default time an operation may take from post to completion.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest single sleep in the transport while waiting.
const WAIT_SLICE: Duration = Duration::from_millis(50);
/// Default number of unanswered segments a rank keeps in flight.
pub const DEFAULT_WINDOW: usize = 2;

/// A posted non-blocking operation. Complete it with [`OffloadComm::wait`] (or poll it with
/// [`OffloadComm::test`] until it reports completion, then `wait` returns at once).
#[derive(Debug, PartialEq, Eq)]
#[must_use = "a posted operation must be waited for"]
pub struct Request {
    op_id: u16,
    datatype: Datatype,
    elements: usize,
}

impl Request {
    pub fn op_id(&self) -> u16 {
        self.op_id
    }
    pub fn datatype(&self) -> Datatype {
        self.datatype
    }
    /// Elements of the result (0 for a barrier).
    pub fn elements(&self) -> usize {
        self.elements
    }
}

/// What the driver has seen, for debugging and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub operations: u64,
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    /// Responses to segments already answered.
    pub duplicates: u64,
    /// Datagrams for no operation in flight (late answers, other communicators).
    pub stray: u64,
    /// Datagrams that did not parse as offload responses.
    pub malformed: u64,
    pub retransmitted: u64,
    /// Abort datagrams sent for the unanswered segments of operations past their deadline.
    pub aborts_sent: u64,
}

struct InFlight {
    call: Call,
    datagrams: Vec<Vec<u8>>,
    sent: usize,
    answered: usize,
    collector: Option<ResponseCollector>,
    outcome: Option<Result<Vec<u8>, DriverError>>,
    posted: Instant,
    last_news: Instant,
}

impl InFlight {
    fn unanswered(&self) -> usize {
        self.sent - self.answered
    }
}

/// One rank's communicator with its transport.
pub struct OffloadComm<T: Transport> {
    spec: Communicator,
    transport: T,
    algorithm: Algorithm,
    timeout: Duration,
    retransmit_after: Option<Duration>,
    window: usize,
    next_op_id: u16,
    inflight: BTreeMap<u16, InFlight>,
    stats: Stats,
}

impl<T: Transport> OffloadComm<T> {
    pub fn new(spec: Communicator, transport: T) -> OffloadComm<T> {
        OffloadComm {
            spec,
            transport,
            algorithm: Algorithm::Ring,
            timeout: DEFAULT_TIMEOUT,
            retransmit_after: None,
            window: DEFAULT_WINDOW,
            next_op_id: 0,
            inflight: BTreeMap::new(),
            stats: Stats::default(),
        }
    }

    pub fn spec(&self) -> &Communicator {
        &self.spec
    }
    pub fn rank(&self) -> usize {
        self.spec.rank()
    }
    pub fn size(&self) -> usize {
        self.spec.size()
    }
    pub fn stats(&self) -> Stats {
        self.stats
    }
    pub fn transport(&self) -> &T {
        &self.transport
    }
    /// The transport, e.g. to inject faults in a test.
    pub fn transport_mut(&mut self) -> &mut T {
        &mut self.transport
    }
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
    pub fn window(&self) -> usize {
        self.window
    }
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The algorithm the boards run for this communicator's next calls (every rank must use
    /// the same one). Refused when the boards do not implement it.
    pub fn set_algorithm(&mut self, algorithm: Algorithm) -> Result<(), DriverError> {
        if !algorithm.is_supported() {
            return Err(collwire_proto::Error::Unsupported {
                field: "algorithm",
                name: algorithm.name(),
            }
            .into());
        }
        self.algorithm = algorithm;
        Ok(())
    }

    /// How long an operation may take from post to completion.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Unanswered segments this rank keeps in flight (at least 1).
    pub fn set_window(&mut self, window: usize) {
        self.window = window.max(1);
    }

    /// Resend a segment's request when nothing arrived for an operation for `after`. Off by
    /// default: it recovers lost requests, but the boards keep only the last 8 completed
    /// segments to recognise late duplicates, and have no way yet to reclaim a context that a
    /// very late duplicate opens.
    pub fn set_retransmit(&mut self, after: Option<Duration>) {
        self.retransmit_after = after;
    }

    // ----- non-blocking, byte level (what the C ABI calls) -----

    /// Posts one collective on little-endian element bytes. Everything is checked before the
    /// first datagram leaves; a refused call sends nothing and takes no operation id.
    pub fn post_bytes(
        &mut self,
        collective: Collective,
        datatype: Datatype,
        op: ReduceOp,
        root: usize,
        send: &[u8],
    ) -> Result<Request, DriverError> {
        let size = datatype.size();
        if !send.len().is_multiple_of(size) {
            return Err(DriverError::Unaligned {
                bytes: send.len(),
                elem_size: size,
            });
        }
        let elements = send.len() / size;
        let call = Call {
            collective,
            algorithm: self.algorithm,
            datatype,
            op,
            root,
            elements,
            op_id: self.next_op_id,
        };
        let datagrams = call.requests(&self.spec, send)?;
        let collector = call.collector(&self.spec)?;
        if self.inflight.contains_key(&call.op_id) {
            return Err(DriverError::TooManyInFlight);
        }
        self.next_op_id = self.next_op_id.wrapping_add(1);
        let now = Instant::now();
        self.inflight.insert(
            call.op_id,
            InFlight {
                call,
                datagrams,
                sent: 0,
                answered: 0,
                collector: Some(collector),
                outcome: None,
                posted: now,
                last_news: now,
            },
        );
        self.stats.operations += 1;
        self.pump()?;
        Ok(Request {
            op_id: call.op_id,
            datatype,
            elements: if collective.carries_data() {
                elements
            } else {
                0
            },
        })
    }

    /// Whether `request` has completed (successfully or not). Never blocks.
    pub fn test(&mut self, request: &Request) -> Result<bool, DriverError> {
        self.progress(Duration::ZERO)?;
        match self.inflight.get(&request.op_id) {
            Some(f) => Ok(f.outcome.is_some()),
            None => Err(DriverError::UnknownRequest(request.op_id)),
        }
    }

    /// Waits for `request` and returns its result bytes (empty for a barrier and for a
    /// reduce's non-root ranks).
    pub fn wait_bytes(&mut self, request: Request) -> Result<Vec<u8>, DriverError> {
        loop {
            let Some(f) = self.inflight.get(&request.op_id) else {
                return Err(DriverError::UnknownRequest(request.op_id));
            };
            if f.outcome.is_some() {
                let f = self.inflight.remove(&request.op_id).unwrap();
                return f.outcome.unwrap();
            }
            // Sleep in the socket until the next datagram or this operation's deadline, in
            // slices of a fixed length so the socket's timeout is set once, not every call.
            let left = (f.posted + self.timeout).saturating_duration_since(Instant::now());
            self.progress(left.clamp(Duration::from_micros(1), WAIT_SLICE))?;
        }
    }

    /// Sends what the window allows, then takes every datagram that has arrived, waiting at
    /// most `wait` for the first one. Once no operation awaits an answer it stops looking:
    /// the poll that would only confirm an empty socket is a system call per operation, and
    /// a late duplicate is dropped at the next call just the same.
    fn progress(&mut self, wait: Duration) -> Result<(), DriverError> {
        self.pump()?;
        let mut next = self.transport.recv(wait)?;
        while let Some(datagram) = next {
            self.stats.datagrams_received += 1;
            self.dispatch(&datagram);
            next = if self.awaiting() {
                self.transport.recv(Duration::ZERO)?
            } else {
                None
            };
        }
        self.expire();
        self.pump()
    }

    fn dispatch(&mut self, datagram: &[u8]) {
        let Ok((repr, payload)) = OffloadRepr::from_datagram(datagram) else {
            self.stats.malformed += 1;
            return;
        };
        let Some(f) = self
            .inflight
            .get_mut(&repr.op_id)
            .filter(|f| repr.comm_id == self.spec.comm_id() && f.outcome.is_none())
        else {
            self.stats.stray += 1;
            return;
        };
        let collector = f.collector.as_mut().expect("collector while in flight");
        match collector.accept_parsed(&repr, payload) {
            Ok(Accepted::New) => {
                f.answered += 1;
                f.last_news = Instant::now();
                if collector.is_complete() {
                    f.outcome = Some(f.collector.take().unwrap().finish());
                }
            }
            Ok(Accepted::Duplicate) => self.stats.duplicates += 1,
            Err(e @ DriverError::Refused { .. }) => f.outcome = Some(Err(e)),
            Err(_) => self.stats.malformed += 1,
        }
    }

    /// Ends operations past their deadline; resends stale segments when retransmission is on.
    fn expire(&mut self) {
        let now = Instant::now();
        for f in self.inflight.values_mut().filter(|f| f.outcome.is_none()) {
            if now.duration_since(f.posted) >= self.timeout {
                let collector = f.collector.take().unwrap();
                let missing = collector.missing();
                // Give the board the segments back: each unanswered one (sent or not — a
                // partial from another board may have opened it here) holds a context that
                // would otherwise never be freed.
                for &seg in &missing {
                    if let Some(abort) = abort_datagram(&f.datagrams[usize::from(seg)])
                        && self.transport.send(&abort).is_ok()
                    {
                        self.stats.aborts_sent += 1;
                    }
                }
                f.outcome = Some(Err(DriverError::Timeout {
                    op_id: f.call.op_id,
                    waited_ms: now.duration_since(f.posted).as_millis() as u64,
                    missing,
                    unsent: f.datagrams.len() - f.sent,
                }));
            } else if let Some(after) = self.retransmit_after
                && now.duration_since(f.last_news) >= after
            {
                let collector = f.collector.as_ref().unwrap();
                for seg in collector.missing() {
                    let seg = usize::from(seg);
                    if seg < f.sent && self.transport.send(&f.datagrams[seg]).is_ok() {
                        self.stats.retransmitted += 1;
                    }
                }
                f.last_news = now;
            }
        }
    }

    /// Whether some operation in flight still waits for answers.
    fn awaiting(&self) -> bool {
        self.inflight.values().any(|f| f.outcome.is_none())
    }

    /// Sends segments, oldest operation first, while fewer than `window` are unanswered.
    fn pump(&mut self) -> Result<(), DriverError> {
        let mut unanswered: usize = self
            .inflight
            .values()
            .filter(|f| f.outcome.is_none())
            .map(InFlight::unanswered)
            .sum();
        for f in self.inflight.values_mut().filter(|f| f.outcome.is_none()) {
            while f.sent < f.datagrams.len() && unanswered < self.window {
                self.transport.send(&f.datagrams[f.sent])?;
                self.stats.datagrams_sent += 1;
                f.sent += 1;
                unanswered += 1;
            }
        }
        Ok(())
    }

    // ----- typed, non-blocking -----

    pub fn iallreduce<E: Element>(
        &mut self,
        send: &[E],
        op: ReduceOp,
    ) -> Result<Request, DriverError> {
        self.post_bytes(Collective::Allreduce, E::DATATYPE, op, 0, &to_bytes(send))
    }
    pub fn ireduce<E: Element>(
        &mut self,
        send: &[E],
        op: ReduceOp,
        root: usize,
    ) -> Result<Request, DriverError> {
        self.post_bytes(Collective::Reduce, E::DATATYPE, op, root, &to_bytes(send))
    }
    pub fn iscan<E: Element>(&mut self, send: &[E], op: ReduceOp) -> Result<Request, DriverError> {
        self.post_bytes(Collective::Scan, E::DATATYPE, op, 0, &to_bytes(send))
    }
    pub fn ibarrier(&mut self) -> Result<Request, DriverError> {
        self.post_bytes(Collective::Barrier, Datatype::Int32, ReduceOp::Sum, 0, &[])
    }

    /// Waits for `request` and writes its result into `recv` (a reduce's non-root ranks and a
    /// barrier write nothing).
    pub fn wait_into<E: Element>(
        &mut self,
        request: Request,
        recv: &mut [E],
    ) -> Result<(), DriverError> {
        if E::DATATYPE != request.datatype {
            return Err(DriverError::DatatypeMismatch {
                posted: request.datatype,
                given: E::DATATYPE,
            });
        }
        let bytes = self.wait_bytes(request)?;
        if bytes.is_empty() {
            return Ok(());
        }
        let values: Vec<E> = from_bytes(&bytes);
        if values.len() != recv.len() {
            return Err(DriverError::LengthMismatch {
                send: values.len(),
                recv: recv.len(),
            });
        }
        recv.copy_from_slice(&values);
        Ok(())
    }

    // ----- typed, blocking -----

    pub fn allreduce<E: Element>(
        &mut self,
        send: &[E],
        recv: &mut [E],
        op: ReduceOp,
    ) -> Result<(), DriverError> {
        check_lengths(send.len(), recv.len())?;
        let request = self.iallreduce(send, op)?;
        self.wait_into(request, recv)
    }

    /// `MPI_IN_PLACE` form: `buf` is the input and receives the result.
    pub fn allreduce_in_place<E: Element>(
        &mut self,
        buf: &mut [E],
        op: ReduceOp,
    ) -> Result<(), DriverError> {
        let request = self.iallreduce(buf, op)?;
        self.wait_into(request, buf)
    }

    /// `recv` is written on the root only (its length is checked on every rank).
    pub fn reduce<E: Element>(
        &mut self,
        send: &[E],
        recv: &mut [E],
        op: ReduceOp,
        root: usize,
    ) -> Result<(), DriverError> {
        if self.rank() == root {
            check_lengths(send.len(), recv.len())?;
        }
        let request = self.ireduce(send, op, root)?;
        self.wait_into(request, recv)
    }

    /// Inclusive prefix reduction.
    pub fn scan<E: Element>(
        &mut self,
        send: &[E],
        recv: &mut [E],
        op: ReduceOp,
    ) -> Result<(), DriverError> {
        check_lengths(send.len(), recv.len())?;
        let request = self.iscan(send, op)?;
        self.wait_into(request, recv)
    }

    pub fn barrier(&mut self) -> Result<(), DriverError> {
        let request = self.ibarrier()?;
        self.wait_bytes(request).map(drop)
    }
}

fn check_lengths(send: usize, recv: usize) -> Result<(), DriverError> {
    if send != recv {
        return Err(DriverError::LengthMismatch { send, recv });
    }
    Ok(())
}

/// The abort datagram for the segment `request` carries: the same header (communicator,
/// operation, segment, rank) as message type abort, without elements.
fn abort_datagram(request: &[u8]) -> Option<Vec<u8>> {
    let (repr, _) = OffloadRepr::from_datagram(request).ok()?;
    OffloadRepr {
        msg_type: MessageType::Abort,
        elem_count: 0,
        ..repr
    }
    .to_datagram(&[])
    .ok()
}

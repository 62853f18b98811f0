//! The communicator an application calls: blocking and non-blocking collectives over a
//! [`Transport`].
//!
//! Every rank of a communicator must issue its collectives in the same order (as MPI
//! requires); each call takes the next operation id, so the boards match the ranks' segments
//! by (communicator id, operation id, segment).
//!
//! A call is checked completely before anything is sent, including the boards' limits
//! ([`collwire_proto::limits`]), so a call the boards cannot run is refused with an error that
//! [`DriverError::is_unsupported`] recognises and nothing leaves. Its segments go out through a
//! window (at most [`OffloadComm::window`] unanswered segments of this rank at once, oldest
//! operation first), because a board holds only 8 segments in flight.
//!
//! Waiting is MPI's: by default an operation waits as long as it takes (a rank may arrive late,
//! a long message takes long). Lost datagrams are recovered by retransmission
//! ([`Retransmit`]): a segment unanswered for one retransmission timeout (RTO, adapted to the
//! measured round trip as in RFC 6298, doubled per retransmission of that segment) is sent
//! again with its `attempt` field incremented. The board acknowledges a duplicate of a request
//! it holds (an `ack`: alive, waiting for the other ranks) and refuses a request for a segment
//! it already completed (`stale`: the answer was lost and cannot be sent again), so:
//!
//! * a late rank: its peers' retransmissions are acked and they keep waiting;
//! * a lost request: the retransmission delivers it;
//! * a lost answer: the retransmission gets `stale` and the operation fails with that error
//!   unless the answer itself still comes within one RTO (a reordering link can deliver the
//!   refusal of a retransmission before the answer to the first transmission);
//! * a dead board or `collwire serve`: nothing answers `dead_retries` retransmissions over
//!   `dead_after`, and the operation fails with [`DriverError::Unreachable`] naming the board.
//!
//! A fail-fast deadline is opt-in ([`OffloadComm::set_timeout`]): the operation then ends in
//! [`DriverError::Timeout`], naming the segments that never came back, and sends the board an
//! abort for each, so the board frees the contexts they hold instead of filling up.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use collwire_proto::segment::Accepted;
use collwire_proto::wire::ErrorRecord;
use collwire_proto::{
    Algorithm, Collective, Datatype, ErrorCode, MessageType, OffloadPacket, OffloadRepr, ReduceOp,
};

use crate::call::{Call, Communicator, DriverError, ResponseCollector};
use crate::element::{Element, from_bytes, to_bytes};
use crate::transport::Transport;

/// Longest single sleep in the transport while waiting (the granularity of the timers).
const WAIT_SLICE: Duration = Duration::from_millis(20);
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
    /// Acks from the board: it holds a retransmitted segment and waits for the other ranks.
    pub acks: u64,
    /// Abort datagrams sent for the unanswered segments of operations past their deadline.
    pub aborts_sent: u64,
    /// The current retransmission timeout, in microseconds.
    pub rto_us: u64,
}

/// Retransmission and board-liveness settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retransmit {
    /// RTO before the first round trip was measured.
    pub initial_rto: Duration,
    /// Bounds of the adapted RTO (and of its per-segment doubling).
    pub min_rto: Duration,
    pub max_rto: Duration,
    /// A segment whose board has said nothing about it (no answer, no ack, no error) through
    /// this many retransmissions ...
    pub dead_retries: u32,
    /// ... and for this long since it was sent or last heard of, fails the operation with
    /// [`DriverError::Unreachable`].
    pub dead_after: Duration,
}

impl Default for Retransmit {
    fn default() -> Retransmit {
        Retransmit {
            initial_rto: Duration::from_millis(200),
            min_rto: Duration::from_millis(20),
            max_rto: Duration::from_secs(2),
            dead_retries: 8,
            dead_after: Duration::from_secs(30),
        }
    }
}

/// RFC 6298's smoothed round-trip time and RTO. Samples come only from segments answered on
/// their first transmission (Karn's rule), and include the wait for the slowest rank.
#[derive(Debug, Clone, Copy)]
struct RttEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    rto: Duration,
}

impl RttEstimator {
    fn new(cfg: &Retransmit) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            rto: cfg.initial_rto,
        }
    }

    fn sample(&mut self, r: Duration, cfg: &Retransmit) {
        let (srtt, rttvar) = match self.srtt {
            None => (r, r / 2),
            Some(s) => {
                let err = s.abs_diff(r);
                (s * 7 / 8 + r / 8, self.rttvar * 3 / 4 + err / 4)
            }
        };
        self.srtt = Some(srtt);
        self.rttvar = rttvar;
        self.rto =
            (srtt + (rttvar * 4).max(Duration::from_millis(1))).clamp(cfg.min_rto, cfg.max_rto);
    }

    /// The timeout of a segment sent `attempts` times before (doubled per retransmission).
    fn backed_off(&self, attempts: u8, cfg: &Retransmit) -> Duration {
        self.rto
            .saturating_mul(1 << attempts.min(16))
            .min(cfg.max_rto)
    }
}

/// One segment of an operation in flight, as this rank sees it.
#[derive(Debug, Clone, Copy)]
struct Segment {
    /// Last transmission (None: not sent yet).
    last_tx: Option<Instant>,
    /// Transmissions so far minus one (the header's `attempt`).
    attempts: u8,
    /// Answered (the response arrived).
    done: bool,
    /// Last time the board said something about it (sent, acked).
    heard: Instant,
    /// Retransmissions since then.
    silent: u32,
    /// The board refused a transmission of it as `stale` (it finished the segment) at this
    /// time, while its answer had not come: the answer may still be on its way (a link that
    /// reorders can deliver the refusal of a retransmission first), so the refusal stands only
    /// if no answer comes within one retransmission timeout.
    stale_since: Option<(Instant, u16)>,
}

struct InFlight {
    call: Call,
    datagrams: Vec<Vec<u8>>,
    segments: Vec<Segment>,
    sent: usize,
    answered: usize,
    collector: Option<ResponseCollector>,
    outcome: Option<Result<Vec<u8>, DriverError>>,
    posted: Instant,
}

impl InFlight {
    fn unanswered(&self) -> usize {
        self.sent - self.answered
    }

    /// Sends the abort datagram for every unanswered segment (sent or not: a partial from
    /// another board may have opened it on this rank's board).
    fn abort_unanswered<T: Transport>(&self, transport: &mut T, stats: &mut Stats) {
        for (seg, _) in self.segments.iter().enumerate().filter(|(_, s)| !s.done) {
            if let Some(abort) = abort_datagram(&self.datagrams[seg])
                && transport.send(&abort).is_ok()
            {
                stats.aborts_sent += 1;
            }
        }
    }
}

/// One rank's communicator with its transport.
pub struct OffloadComm<T: Transport> {
    spec: Communicator,
    transport: T,
    algorithm: Algorithm,
    timeout: Option<Duration>,
    retransmit: Option<Retransmit>,
    rtt: RttEstimator,
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
            timeout: None,
            retransmit: Some(Retransmit::default()),
            rtt: RttEstimator::new(&Retransmit::default()),
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
        Stats {
            rto_us: self.rtt.rto.as_micros() as u64,
            ..self.stats
        }
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
    /// The fail-fast deadline, if one is set.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }
    pub fn retransmit(&self) -> Option<Retransmit> {
        self.retransmit
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

    /// A fail-fast deadline: an operation not complete `timeout` after its post ends in
    /// [`DriverError::Timeout`] and its unanswered segments are aborted on the board. `None`
    /// (the default) waits like MPI.
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    /// Unanswered segments this rank keeps in flight (at least 1).
    pub fn set_window(&mut self, window: usize) {
        self.window = window.max(1);
    }

    /// Retransmission and liveness settings; `None` turns both off (a lost datagram then
    /// waits for ever unless a deadline is set). On by default with [`Retransmit::default`].
    pub fn set_retransmit(&mut self, retransmit: Option<Retransmit>) {
        if let Some(cfg) = &retransmit {
            self.rtt = RttEstimator::new(cfg);
        }
        self.retransmit = retransmit;
    }

    /// The operation id the next call takes (every rank of the communicator must agree).
    /// Ids start at 0; a communicator re-created over boards that still remember its
    /// earlier operations (a process resuming a sequence, a test driving given ids) starts
    /// where the boards' history will not call its segments stale.
    pub fn set_next_op_id(&mut self, op_id: u16) {
        self.next_op_id = op_id;
    }

    /// Where this rank's board is, for messages.
    pub fn board(&self) -> String {
        self.transport.describe()
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
        let now = self.transport.now();
        let segment = Segment {
            last_tx: None,
            attempts: 0,
            done: false,
            heard: now,
            silent: 0,
            stale_since: None,
        };
        self.inflight.insert(
            call.op_id,
            InFlight {
                call,
                segments: vec![segment; datagrams.len()],
                datagrams,
                sent: 0,
                answered: 0,
                collector: Some(collector),
                outcome: None,
                posted: now,
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
            // Sleep in the socket until the next datagram, this operation's deadline or the
            // next timer, in slices of a fixed length so the socket's timeout is rarely reset.
            let left = self.timeout.map_or(WAIT_SLICE, |t| {
                (f.posted + t).saturating_duration_since(self.transport.now())
            });
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
        let now = self.transport.now();
        let seg = usize::from(repr.seg_index);
        let answered_before = f.segments.get(seg).is_some_and(|s| s.done);
        match repr.msg_type {
            MessageType::Ack => {
                // The board holds this segment and waits for the other ranks.
                if let Some(s) = f.segments.get_mut(seg) {
                    s.heard = now;
                    s.silent = 0;
                }
                self.stats.acks += 1;
                return;
            }
            // A retransmission that crossed its answer: the segment is done, nothing was lost.
            MessageType::Error if answered_before => {
                self.stats.duplicates += 1;
                return;
            }
            // The board finished the segment and refuses a transmission of it: the answer
            // was lost, or is still on its way. With retransmission, wait one RTO for it
            // (`expire` ends the operation with the refusal after that).
            MessageType::Error if self.retransmit.is_some() => {
                if let Ok(rec) = ErrorRecord::parse(payload)
                    && rec.code == ErrorCode::Stale
                    && let Some(s) = f.segments.get_mut(seg)
                {
                    s.stale_since.get_or_insert((now, rec.detail));
                    return;
                }
            }
            _ => {}
        }
        let collector = f.collector.as_mut().expect("collector while in flight");
        match collector.accept_parsed(&repr, payload) {
            Ok(Accepted::New) => {
                f.answered += 1;
                if let Some(s) = f.segments.get_mut(seg) {
                    s.done = true;
                    if let (Some(sent), 0, Some(cfg)) = (s.last_tx, s.attempts, &self.retransmit) {
                        self.rtt.sample(now.duration_since(sent), cfg);
                    }
                }
                if collector.is_complete() {
                    f.outcome = Some(f.collector.take().unwrap().finish());
                }
            }
            Ok(Accepted::Duplicate) => self.stats.duplicates += 1,
            Err(e @ DriverError::Refused { .. }) => f.outcome = Some(Err(e)),
            Err(_) => self.stats.malformed += 1,
        }
    }

    /// Ends operations past their deadline or whose board stopped answering; retransmits
    /// segments whose RTO passed.
    fn expire(&mut self) {
        let now = self.transport.now();
        for f in self.inflight.values_mut().filter(|f| f.outcome.is_none()) {
            if let Some(timeout) = self.timeout
                && now.duration_since(f.posted) >= timeout
            {
                f.abort_unanswered(&mut self.transport, &mut self.stats);
                let collector = f.collector.take().unwrap();
                f.outcome = Some(Err(DriverError::Timeout {
                    op_id: f.call.op_id,
                    waited_ms: now.duration_since(f.posted).as_millis() as u64,
                    missing: collector.missing(),
                    unsent: f.datagrams.len() - f.sent,
                }));
                continue;
            }
            let Some(cfg) = self.retransmit else {
                continue;
            };
            let mut dead = None;
            let mut stale = None;
            for (i, s) in f.segments.iter_mut().enumerate() {
                let Some(last) = s.last_tx.filter(|_| !s.done) else {
                    continue;
                };
                if let Some((since, detail)) = s.stale_since {
                    // Refused as stale: no retransmission (the board would refuse it again);
                    // the refusal stands once its answer has had one RTO to come.
                    if now.duration_since(since) >= self.rtt.backed_off(0, &cfg) {
                        stale = Some(detail);
                        break;
                    }
                    continue;
                }
                if now.duration_since(last) < self.rtt.backed_off(s.attempts, &cfg) {
                    continue;
                }
                if s.silent >= cfg.dead_retries && now.duration_since(s.heard) >= cfg.dead_after {
                    dead = Some((i, s.silent, now.duration_since(s.heard)));
                    break;
                }
                s.attempts = s.attempts.wrapping_add(1);
                OffloadPacket::new_unchecked(&mut f.datagrams[i][..]).set_attempt(s.attempts);
                if self.transport.send(&f.datagrams[i]).is_ok() {
                    self.stats.retransmitted += 1;
                }
                s.last_tx = Some(now);
                s.silent += 1;
            }
            if let Some(detail) = stale {
                f.collector = None;
                f.outcome = Some(Err(DriverError::Refused {
                    code: ErrorCode::Stale,
                    detail,
                }));
                continue;
            }
            if let Some((segment, retransmissions, silent)) = dead {
                f.abort_unanswered(&mut self.transport, &mut self.stats);
                f.collector = None;
                f.outcome = Some(Err(DriverError::Unreachable {
                    board: self.transport.describe(),
                    op_id: f.call.op_id,
                    segment: segment as u16,
                    retransmissions,
                    silent_ms: silent.as_millis() as u64,
                }));
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
                let now = self.transport.now();
                f.segments[f.sent].last_tx = Some(now);
                f.segments[f.sent].heard = now;
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

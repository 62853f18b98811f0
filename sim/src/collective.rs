//! The one host engine for simulated clusters: every rank of every job is the driver's own
//! [`OffloadComm`] — the communicator applications link, with its window, retransmission and
//! response collector — over a [`LockstepTransport`] into the simulated boards.
//!
//! The transport is single-threaded and deterministic: ranks post their operations, then
//! [`run_jobs`] alternates "every rank makes progress" ([`OffloadComm::test`]: dispatch what
//! arrived, send what the window allows, run the timers) with "the cluster moves one cycle".
//! The communicators' clock ([`Transport::now`]) is the simulated one — board cycles at the
//! target clock of the bus width (125 MHz at 64 bits, 200 MHz at 256) — so a retransmission
//! timeout means the same number of cycles however fast the simulator runs, and a run is
//! the same cycle for cycle every time.
//!
//! Every transport has its own UDP source port on its board (local rank `l` of job `j` sends
//! from `rank_port(l) + 256·j`): the board answers a request to the port it came from, so
//! jobs sharing a board's local rank each get their own answers, as sockets would.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::time::{Duration, Instant};

use collwire_driver::{
    Call, Communicator, DriverError, OffloadComm, Request, Transport, TransportError,
};
use collwire_hdl::emit::BusWidth;
use collwire_proto::Layout;
use collwire_proto::addressing::rank_port;

use crate::cluster::{Cluster, ClusterError};
use crate::hosts::{advance, rank_frame_from};

/// One collective as every rank of a communicator issues it.
#[derive(Debug, Clone)]
pub struct Job {
    /// What every rank calls. `algorithm` and `op_id` are set on each rank's communicator
    /// ([`OffloadComm::set_algorithm`], [`OffloadComm::set_next_op_id`]); `elements` must
    /// match every rank's input.
    pub call: Call,
    pub comm_id: u16,
    pub ranks_per_host: u8,
    /// Every rank's send buffer (little-endian elements; empty for a barrier).
    pub inputs: Vec<Vec<u8>>,
}

/// What every rank of a job got back, and when.
#[derive(Debug)]
pub struct JobResult {
    /// Per rank: the result bytes (empty for a reduce's non-root ranks and a barrier), or why
    /// the driver or the board refused.
    pub outcomes: Vec<Result<Vec<u8>, DriverError>>,
    /// Cycle of the first request injected and of the last response received.
    pub first_request: u64,
    pub last_response: u64,
}

/// The hosts' side of the wire, shared by the lockstep transports of one run.
struct Wire {
    /// The cluster's cycle (the simulated clock).
    cycle: u64,
    /// Simulated time of cycle 0.
    epoch: Instant,
    /// Nanoseconds per cycle.
    period_ns: u64,
    /// Frames the ranks sent since the cluster last moved: (board, frame).
    outbox: Vec<(usize, Vec<u8>)>,
    /// Datagrams the boards sent, per (board, UDP destination port).
    inbox: HashMap<(usize, u16), VecDeque<Vec<u8>>>,
    /// Cycle of the last datagram delivered, per (board, port).
    last_delivery: HashMap<(usize, u16), u64>,
    /// Frames from the boards that reached no transport.
    unroutable: u64,
}

impl Wire {
    fn new(cluster: &Cluster) -> Wire {
        let mhz = BusWidth::from_bits(cluster.beat_bytes() * 8)
            .expect("a cluster of a supported width")
            .target_mhz();
        Wire {
            cycle: cluster.cycle,
            epoch: Instant::now(),
            period_ns: 1000 / u64::from(mhz),
            outbox: Vec::new(),
            inbox: HashMap::new(),
            last_delivery: HashMap::new(),
            unroutable: 0,
        }
    }

    /// Hands the frames the ranks sent to their boards' host ports.
    fn flush(&mut self, cluster: &mut Cluster) {
        for (board, frame) in self.outbox.drain(..) {
            cluster.host_send(board, &frame);
        }
    }

    /// Clocks the cluster one cycle (the simulated clock moves) and puts what the boards sent
    /// their hosts into the transports' inboxes.
    fn advance(&mut self, cluster: &mut Cluster) {
        for d in advance(cluster, 1, &mut self.unroutable) {
            match self.inbox.get_mut(&(d.board, d.port)) {
                Some(queue) => {
                    queue.push_back(d.datagram);
                    self.last_delivery.insert((d.board, d.port), d.cycle);
                }
                None => self.unroutable += 1,
            }
        }
        self.cycle = cluster.cycle;
    }
}

/// One rank's transport into a cluster clocked by [`run_jobs`]: `send` queues the frame its
/// NIC would send for the board's host port, `recv` takes what the board has sent it so far.
/// It never clocks the cluster itself, so a blocking call on it cannot make progress; the
/// engine drives ranks through [`OffloadComm::test`].
pub struct LockstepTransport {
    wire: Rc<RefCell<Wire>>,
    board: usize,
    local: usize,
    port: u16,
}

impl LockstepTransport {
    fn new(wire: &Rc<RefCell<Wire>>, board: usize, local: usize, port: u16) -> LockstepTransport {
        wire.borrow_mut().inbox.entry((board, port)).or_default();
        LockstepTransport {
            wire: Rc::clone(wire),
            board,
            local,
            port,
        }
    }
}

impl Transport for LockstepTransport {
    fn describe(&self) -> String {
        format!(
            "simulated board {} (local rank {}, port {})",
            self.board, self.local, self.port
        )
    }

    fn send(&mut self, datagram: &[u8]) -> Result<(), TransportError> {
        let frame = rank_frame_from(self.board, self.local, self.port, datagram);
        self.wire.borrow_mut().outbox.push((self.board, frame));
        Ok(())
    }

    fn recv(&mut self, _timeout: Duration) -> Result<Option<Vec<u8>>, TransportError> {
        Ok(self
            .wire
            .borrow_mut()
            .inbox
            .get_mut(&(self.board, self.port))
            .and_then(VecDeque::pop_front))
    }

    fn now(&self) -> Instant {
        let wire = self.wire.borrow();
        wire.epoch + Duration::from_nanos(wire.cycle * wire.period_ns)
    }
}

/// One rank of a job: its communicator and the operation it posted, until it completes.
struct Rank {
    comm: Option<OffloadComm<LockstepTransport>>,
    request: Option<Request>,
    outcome: Option<Result<Vec<u8>, DriverError>>,
    key: (usize, u16),
}

impl Rank {
    /// Makes progress; records the outcome once the operation completed.
    fn progress(&mut self) {
        let (Some(comm), Some(request)) = (self.comm.as_mut(), self.request.as_ref()) else {
            return;
        };
        match comm.test(request) {
            Ok(false) => {}
            Ok(true) => {
                let request = self.request.take().unwrap();
                self.outcome = Some(comm.wait_bytes(request));
            }
            Err(e) => {
                self.request = None;
                self.outcome = Some(Err(e));
            }
        }
    }
}

/// What the caller may set on every rank's communicator before it posts (window, deadline,
/// retransmission: timers count simulated time).
pub type Setup<'a> = &'a dyn Fn(&mut OffloadComm<LockstepTransport>);

/// Posts `job`'s call on rank `r`'s communicator; an argument the driver refuses is that
/// rank's outcome and sends nothing.
fn post(
    job: &Job,
    r: usize,
    mtu: usize,
    wire: &Rc<RefCell<Wire>>,
    j: usize,
    setup: Setup<'_>,
) -> Rank {
    let size = job.inputs.len();
    let rph = job.ranks_per_host;
    let layout = Layout::new(size as u16, rph).expect("valid layout");
    let board = layout.board_of(r);
    let local = r % usize::from(rph);
    let port = u16::try_from(usize::from(rank_port(local)) + 256 * j)
        .expect("fewer than 100 jobs at once");
    let mut rank = Rank {
        comm: None,
        request: None,
        outcome: None,
        key: (board, port),
    };
    let input = &job.inputs[r];
    let call = job.call;
    let posted = Communicator::new(size, rph, r, job.comm_id, mtu).and_then(|spec| {
        let mut comm = OffloadComm::new(spec, LockstepTransport::new(wire, board, local, port));
        comm.set_algorithm(call.algorithm)?;
        comm.set_next_op_id(call.op_id);
        setup(&mut comm);
        let elem = call.datatype.size();
        if input.len() != call.elements * elem {
            return Err(DriverError::LengthMismatch {
                send: input.len() / elem,
                recv: call.elements,
            });
        }
        let request = comm.post_bytes(call.collective, call.datatype, call.op, call.root, input)?;
        Ok((comm, request))
    });
    match posted {
        Ok((comm, request)) => {
            rank.comm = Some(comm);
            rank.request = Some(request);
        }
        Err(e) => rank.outcome = Some(Err(e)),
    }
    rank
}

/// Runs `jobs` concurrently (all posted at once, each rank through its own [`OffloadComm`]
/// with the driver's defaults) until every rank of every job has its answer, or `max_cycles`
/// pass.
pub fn run_jobs(
    cluster: &mut Cluster,
    jobs: &[Job],
    mtu: usize,
    max_cycles: u64,
) -> Result<Vec<JobResult>, ClusterError> {
    run_jobs_with(cluster, jobs, mtu, max_cycles, &|_| {})
}

/// [`run_jobs`] with `setup` applied to every rank's communicator before it posts.
pub fn run_jobs_with(
    cluster: &mut Cluster,
    jobs: &[Job],
    mtu: usize,
    max_cycles: u64,
    setup: Setup<'_>,
) -> Result<Vec<JobResult>, ClusterError> {
    let start = cluster.cycle;
    let wire = Rc::new(RefCell::new(Wire::new(cluster)));
    let mut ranks: Vec<Vec<Rank>> = jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            (0..job.inputs.len())
                .map(|r| post(job, r, mtu, &wire, j, setup))
                .collect()
        })
        .collect();
    loop {
        ranks.iter_mut().flatten().for_each(Rank::progress);
        wire.borrow_mut().flush(cluster);
        if ranks.iter().flatten().all(|r| r.outcome.is_some()) {
            break;
        }
        if cluster.cycle - start >= max_cycles {
            return Err(ClusterError::Timeout(max_cycles));
        }
        wire.borrow_mut().advance(cluster);
    }
    if cluster.underruns > 0 {
        return Err(ClusterError::Underrun(cluster.underruns));
    }
    let wire = wire.borrow();
    Ok(ranks
        .into_iter()
        .map(|job| {
            let last_response = job
                .iter()
                .filter_map(|r| wire.last_delivery.get(&r.key).copied())
                .max()
                .unwrap_or(start);
            JobResult {
                outcomes: job.into_iter().map(|r| r.outcome.unwrap()).collect(),
                first_request: start,
                last_response,
            }
        })
        .collect())
}

//! The hosts' side of a simulated cluster: a rank's datagram goes in at its board's host port
//! wrapped in the Ethernet/IPv4/UDP frame its NIC would send, and every frame a board sends to
//! its host is unwrapped back into (local rank, datagram) by the UDP destination port.
//!
//! [`SharedCluster`] lets many ranks (threads, or one test posting for all of them) use one
//! cluster at once through [`ClusterTransport`], the driver's in-process transport: whoever
//! waits for an answer clocks the cluster.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use collwire_driver::{Transport, TransportError};
use collwire_proto::frame::{Endpoints, build_frame};

use crate::cluster::{Cluster, rank_endpoints, rank_port};

/// The frame local rank `local` of board `b` sends for `datagram`.
pub fn rank_frame(b: usize, local: usize, datagram: &[u8]) -> Vec<u8> {
    build_frame(&rank_endpoints(b, local), datagram).expect("a request datagram fits a frame")
}

/// The frame local rank `local` of board `b` sends for `datagram` from UDP source port
/// `src_port` (a host with several sockets: the board answers each to its own port).
pub fn rank_frame_from(b: usize, local: usize, src_port: u16, datagram: &[u8]) -> Vec<u8> {
    let endpoints = Endpoints {
        src_port,
        ..rank_endpoints(b, local)
    };
    build_frame(&endpoints, datagram).expect("a request datagram fits a frame")
}

/// The UDP destination port and payload of an Ethernet/IPv4/UDP frame.
pub fn udp_datagram(frame: &[u8]) -> Option<(u16, &[u8])> {
    let sliced = etherparse::SlicedPacket::from_ethernet(frame).ok()?;
    match (sliced.transport, sliced.net) {
        (Some(etherparse::TransportSlice::Udp(udp)), Some(_)) => {
            Some((udp.destination_port(), udp.payload()))
        }
        _ => None,
    }
}

/// Cycles one waiting rank clocks the cluster before it looks at its inbox again.
pub const STEP_CYCLES: u64 = 64;
/// How long a waiting rank sleeps when the cluster is at rest ([`Cluster::at_rest`]):
/// nothing can happen until some rank sends, so it lets the other ranks' threads take the
/// cluster.
pub const QUIET_NAP: Duration = Duration::from_micros(50);

/// A UDP datagram a board sent to its host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub board: usize,
    /// The UDP destination port: the source port of the request it answers.
    pub port: u16,
    pub cycle: u64,
    pub datagram: Vec<u8>,
}

impl Delivery {
    /// The local rank, for hosts that send from [`rank_port`] (`rank_frame`).
    pub fn local(&self) -> Option<usize> {
        let local = self.port.checked_sub(rank_port(0))?;
        (local < 256).then_some(usize::from(local))
    }
}

/// Clocks `cluster` for `cycles` and returns the UDP datagrams its boards sent to their
/// hosts; frames that are not UDP are counted in `unroutable`.
pub fn advance(cluster: &mut Cluster, cycles: u64, unroutable: &mut u64) -> Vec<Delivery> {
    for _ in 0..cycles {
        cluster.step();
    }
    let mut out = Vec::new();
    for b in 0..cluster.len() {
        for rx in cluster.host_take(b) {
            match udp_datagram(&rx.frame) {
                Some((port, datagram)) => out.push(Delivery {
                    board: b,
                    port,
                    cycle: rx.cycle,
                    datagram: datagram.to_vec(),
                }),
                None => *unroutable += 1,
            }
        }
    }
    out
}

struct Hosts {
    cluster: Cluster,
    inbox: HashMap<(usize, usize), VecDeque<Vec<u8>>>,
    unroutable: u64,
}

impl Hosts {
    fn advance(&mut self, cycles: u64) {
        for d in advance(&mut self.cluster, cycles, &mut self.unroutable) {
            match d.local() {
                Some(local) => self
                    .inbox
                    .entry((d.board, local))
                    .or_default()
                    .push_back(d.datagram),
                None => self.unroutable += 1,
            }
        }
    }
}

/// One simulated cluster shared by the ranks of an in-process test.
#[derive(Clone)]
pub struct SharedCluster(Arc<Mutex<Hosts>>);

impl SharedCluster {
    pub fn new(cluster: Cluster) -> SharedCluster {
        SharedCluster(Arc::new(Mutex::new(Hosts {
            cluster,
            inbox: HashMap::new(),
            unroutable: 0,
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Hosts> {
        // A rank thread that panicked leaves the cluster usable for the others' diagnostics.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The transport of local rank `local` on board `board`.
    pub fn transport(&self, board: usize, local: usize) -> ClusterTransport {
        ClusterTransport {
            shared: self.clone(),
            board,
            local,
        }
    }

    /// Runs `f` on the cluster (counters, summary, tracing, fault injection).
    pub fn with<R>(&self, f: impl FnOnce(&mut Cluster) -> R) -> R {
        f(&mut self.lock().cluster)
    }

    /// Frames from the boards that were not UDP to a rank port.
    pub fn unroutable(&self) -> u64 {
        self.lock().unroutable
    }
}

/// The driver's in-process transport: datagrams go straight into the simulated board's host
/// port; waiting for an answer clocks the simulation.
pub struct ClusterTransport {
    shared: SharedCluster,
    board: usize,
    local: usize,
}

impl Transport for ClusterTransport {
    fn describe(&self) -> String {
        format!("simulated board {}", self.board)
    }

    fn send(&mut self, datagram: &[u8]) -> Result<(), TransportError> {
        let frame = rank_frame(self.board, self.local, datagram);
        self.shared.lock().cluster.host_send(self.board, &frame);
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, TransportError> {
        let deadline = Instant::now() + timeout;
        loop {
            let mut hosts = self.shared.lock();
            let key = (self.board, self.local);
            if let Some(d) = hosts.inbox.get_mut(&key).and_then(VecDeque::pop_front) {
                return Ok(Some(d));
            }
            let quiet = hosts.cluster.at_rest();
            hosts.advance(STEP_CYCLES);
            if let Some(d) = hosts.inbox.get_mut(&key).and_then(VecDeque::pop_front) {
                return Ok(Some(d));
            }
            drop(hosts);
            if Instant::now() >= deadline {
                return Ok(None);
            }
            if quiet {
                // Still clocked (boards at rest cost next to nothing), so the simulated clock
                // keeps moving while every rank waits.
                std::thread::sleep(QUIET_NAP.min(deadline - Instant::now()));
            }
        }
    }
}

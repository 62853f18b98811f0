//! Runs collectives on a simulated cluster the way hosts would: every rank's driver
//! ([`collwire_driver::Call`]) builds its request datagrams, the host adapter wraps them in
//! frames (etherparse, via `collwire_proto::frame`) and injects them at its board's host port,
//! and the responses the boards send back are fed to each rank's response collector.
//!
//! Each rank keeps at most [`WINDOW`] segments of an operation in flight (a new one when a
//! response completes an earlier one), so the boards' 8 contexts never run out.

use collwire_driver::{Call, Communicator, DriverError, ResponseCollector};
use collwire_proto::segment::Accepted;
use collwire_proto::{Layout, OffloadRepr};

use crate::cluster::{Cluster, ClusterError};
use crate::hosts::{rank_frame, to_rank};

/// Segments a rank keeps in flight per operation.
pub const WINDOW: usize = 2;

/// One collective as every rank of a communicator issues it.
#[derive(Debug, Clone)]
pub struct Job {
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
    /// the board refused.
    pub outcomes: Vec<Result<Vec<u8>, DriverError>>,
    /// Cycle of the first request injected and of the last response received.
    pub first_request: u64,
    pub last_response: u64,
}

struct RankState {
    board: usize,
    local: usize,
    frames: Vec<Vec<u8>>,
    sent: usize,
    /// Segments answered (new responses accepted).
    answered: usize,
    collector: Option<ResponseCollector>,
    outcome: Option<Result<Vec<u8>, DriverError>>,
}

/// Runs `jobs` concurrently (all injected at once) until every rank of every job has its
/// answer, or `max_cycles` pass.
pub fn run_jobs(
    cluster: &mut Cluster,
    jobs: &[Job],
    mtu: usize,
    max_cycles: u64,
) -> Result<Vec<JobResult>, ClusterError> {
    let start = cluster.cycle;
    let mut ranks: Vec<Vec<RankState>> = Vec::new();
    for job in jobs {
        let size = job.inputs.len();
        let layout = Layout::new(size as u16, job.ranks_per_host).expect("valid layout");
        let mut states = Vec::with_capacity(size);
        for (r, input) in job.inputs.iter().enumerate() {
            let board = layout.board_of(r);
            let local = r % usize::from(job.ranks_per_host);
            let made =
                Communicator::new(size, job.ranks_per_host, r, job.comm_id, mtu).and_then(|comm| {
                    let datagrams = job.call.requests(&comm, input)?;
                    let collector = job.call.collector(&comm)?;
                    Ok((datagrams, collector))
                });
            let (frames, collector, outcome) = match made {
                Ok((datagrams, collector)) => (
                    datagrams
                        .iter()
                        .map(|d| rank_frame(board, local, d))
                        .collect(),
                    Some(collector),
                    None,
                ),
                Err(e) => (Vec::new(), None, Some(Err(e))),
            };
            states.push(RankState {
                board,
                local,
                frames,
                sent: 0,
                answered: 0,
                collector,
                outcome,
            });
        }
        ranks.push(states);
    }
    let mut last_response = vec![start; jobs.len()];
    loop {
        // Send what the windows allow.
        for states in ranks.iter_mut() {
            for s in states.iter_mut().filter(|s| s.outcome.is_none()) {
                while s.sent < s.frames.len() && s.sent < s.answered + WINDOW {
                    cluster.host_send(s.board, &s.frames[s.sent]);
                    s.sent += 1;
                }
            }
        }
        // Collect responses.
        for b in 0..cluster.len() {
            for rx in cluster.host_take(b) {
                // Responses go to the rank's own UDP port, so the host parses them as any
                // UDP datagram (etherparse), then as an offload datagram.
                let Some((local, datagram)) = to_rank(&rx.frame) else {
                    continue;
                };
                let Ok((repr, _)) = OffloadRepr::from_datagram(datagram) else {
                    continue;
                };
                let Some(j) = jobs
                    .iter()
                    .position(|j| j.comm_id == repr.comm_id && j.call.op_id == repr.op_id)
                else {
                    continue;
                };
                let Some(s) = ranks[j]
                    .iter_mut()
                    .find(|s| s.board == b && s.local == local && s.outcome.is_none())
                else {
                    continue;
                };
                let collector = s.collector.as_mut().expect("collector");
                match collector.accept(datagram) {
                    Ok(accepted) => {
                        if accepted == Accepted::New {
                            s.answered += 1;
                        }
                        if collector.is_complete() {
                            let c = s.collector.take().unwrap();
                            s.outcome = Some(c.finish());
                        }
                    }
                    Err(e) => s.outcome = Some(Err(e)),
                }
                last_response[j] = rx.cycle;
            }
        }
        if ranks
            .iter()
            .all(|st| st.iter().all(|s| s.outcome.is_some()))
        {
            break;
        }
        if cluster.cycle - start >= max_cycles {
            return Err(ClusterError::Timeout(max_cycles));
        }
        cluster.step();
    }
    Ok(ranks
        .into_iter()
        .zip(last_response)
        .map(|(states, last)| JobResult {
            outcomes: states.into_iter().map(|s| s.outcome.unwrap()).collect(),
            first_request: start,
            last_response: last,
        })
        .collect())
}

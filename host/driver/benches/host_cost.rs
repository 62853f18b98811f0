//! Host CPU cost of issuing and completing one 8-byte allreduce in the driver itself, with the
//! kernel left out: a loopback transport answers every request at once with the response a
//! board would send. (Through a real UDP socket add one send and one receive system call; see
//! the osu_overlap benchmark for that end-to-end number.)
//!
//! `cargo bench -p collwire-driver --bench host_cost`

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use collwire_driver::{Communicator, OffloadComm, Transport, TransportError};
use collwire_proto::{MessageType, OffloadRepr, ReduceOp};

/// Turns every request into the response a board would send to a communicator of one rank.
#[derive(Default)]
struct Reflect {
    queue: VecDeque<Vec<u8>>,
}

impl Transport for Reflect {
    fn send(&mut self, datagram: &[u8]) -> Result<(), TransportError> {
        let (mut repr, payload) = OffloadRepr::from_datagram(datagram).expect("a request");
        repr.msg_type = MessageType::Response;
        self.queue.push_back(repr.to_datagram(payload).unwrap());
        Ok(())
    }
    fn recv(&mut self, _timeout: Duration) -> Result<Option<Vec<u8>>, TransportError> {
        Ok(self.queue.pop_front())
    }
}

fn main() {
    let spec = Communicator::new(1, 1, 0, 1, 1500).unwrap();
    let mut comm = OffloadComm::new(spec, Reflect::default());
    let mut out = [0.0f64];
    let calls = 1_000_000u32;
    for _ in 0..10_000 {
        comm.allreduce(&[1.5f64], &mut out, ReduceOp::Sum).unwrap();
    }
    let t0 = Instant::now();
    for i in 0..calls {
        let request = comm.iallreduce(&[f64::from(i)], ReduceOp::Sum).unwrap();
        comm.wait_into(request, &mut out).unwrap();
    }
    let per_call = t0.elapsed().as_secs_f64() * 1e9 / f64::from(calls);
    assert_eq!(out[0], f64::from(calls - 1));
    println!(
        "host_cost: driver post + complete of one 8-byte allreduce (no system calls): {per_call:.0} ns"
    );
}

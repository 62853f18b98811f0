//! Output queues through Verilator at both widths: multicast to every port in the mask, byte
//! identical and in order; a full queue back-pressures (nothing lost); a port never shows a gap
//! inside a frame; frames with no destination are dropped and counted.

use collwire_sim::axis::{Sink, Source};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::{OutputQueues64, OutputQueues256};

trait Queues: Default {
    const BYTES: usize;
    const PORTS: usize;
    fn ports(&mut self) -> &mut dyn QueuePorts;
}

trait QueuePorts {
    fn drive(&mut self, beat: Option<&collwire_sim::axis::Beat>);
    fn set_ready(&mut self, port: usize, ready: bool);
    fn eval(&mut self);
    fn tick(&mut self);
    fn in_ready(&self) -> bool;
    fn out(&self, port: usize) -> Option<(Vec<u8>, u64, bool, u16)>;
    /// 1 on the clock a frame with no destination is dropped (the `queue_drops` event).
    fn dropped(&self) -> u64;
}

macro_rules! queues {
    ($ty:ty, $bytes:expr, $ports:expr) => {
        impl Queues for $ty {
            const BYTES: usize = $bytes;
            const PORTS: usize = $ports;
            fn ports(&mut self) -> &mut dyn QueuePorts {
                self
            }
        }
        impl QueuePorts for $ty {
            fn drive(&mut self, beat: Option<&collwire_sim::axis::Beat>) {
                match beat {
                    Some(b) => {
                        self.set_s_axis_tdata_bytes(&b.data);
                        self.set_s_axis_tkeep(b.keep);
                        self.set_s_axis_tlast(u64::from(b.last));
                        self.set_s_axis_tuser(u64::from(b.user));
                        self.set_s_axis_tvalid(1);
                    }
                    None => self.set_s_axis_tvalid(0),
                }
            }
            fn set_ready(&mut self, port: usize, ready: bool) {
                self.set_m_axis_tready_at(port, u64::from(ready));
            }
            fn eval(&mut self) {
                <$ty>::eval(self)
            }
            fn tick(&mut self) {
                <$ty>::tick(self)
            }
            fn in_ready(&self) -> bool {
                self.s_axis_tready() == 1
            }
            fn out(&self, port: usize) -> Option<(Vec<u8>, u64, bool, u16)> {
                (self.m_axis_tvalid_at(port) == 1).then(|| {
                    (
                        self.m_axis_tdata_bytes_at(port),
                        self.m_axis_tkeep_at(port),
                        self.m_axis_tlast_at(port) == 1,
                        self.m_axis_tuser_at(port) as u16,
                    )
                })
            }
            fn dropped(&self) -> u64 {
                let bit = collwire_hdl::statistics::stat_index("queue_drops").unwrap();
                self.events() >> bit & 1
            }
        }
    };
}

queues!(OutputQueues64, 8, 4);
queues!(OutputQueues256, 32, 5);

/// `frames` of (bytes, destination mask); `blocked_until`: port 2 is not ready before this clock.
fn run<Q: Queues>(frames: &[(Vec<u8>, u8)], ready: u64, blocked_until: usize) {
    let mut dut = Q::default();
    let m = dut.ports();
    let mut src = Source::new(17, 20);
    let mut want: Vec<Vec<(Vec<u8>, u16)>> = vec![Vec::new(); Q::PORTS];
    let mut dropped = 0;
    for (i, (f, mask)) in frames.iter().enumerate() {
        let user = u16::from(*mask) << 8 | (i as u16 & 0xff);
        src.push_frame(f, Q::BYTES, user);
        for (p, w) in want.iter_mut().enumerate() {
            if mask >> p & 1 == 1 {
                w.push((f.clone(), user));
            }
        }
        dropped += u64::from(*mask == 0);
    }
    let mut sinks: Vec<Sink> = (0..Q::PORTS)
        .map(|p| Sink::new(100 + p as u64, ready))
        .collect();
    let mut stalled_clocks = 0;
    let mut cycles = 0;
    let mut drops = 0;
    while sinks
        .iter()
        .zip(&want)
        .any(|(s, w)| s.frames.len() < w.len())
        || !src.is_empty()
    {
        assert!(cycles < 3_000_000, "queues stalled");
        let beat = src.offer().cloned();
        m.drive(beat.as_ref());
        let readies: Vec<bool> = sinks
            .iter_mut()
            .enumerate()
            .map(|(p, s)| s.ready() && !(p == 2 && cycles < blocked_until))
            .collect();
        for (p, r) in readies.iter().enumerate() {
            m.set_ready(p, *r);
        }
        m.eval();
        drops += m.dropped();
        if beat.is_some() {
            if m.in_ready() {
                src.taken();
            } else {
                stalled_clocks += 1;
            }
        }
        for (p, s) in sinks.iter_mut().enumerate() {
            let out = m.out(p);
            assert!(
                s.open_bytes() == 0 || out.is_some(),
                "port {p}: gap inside a frame at clock {cycles}"
            );
            if let Some((d, k, l, u)) = out
                && readies[p]
            {
                s.accept(&d, k, l, u);
            }
        }
        m.tick();
        cycles += 1;
    }
    for _ in 0..20 {
        m.eval();
        drops += m.dropped();
        for p in 0..Q::PORTS {
            assert!(m.out(p).is_none(), "port {p}: an extra frame");
        }
        m.tick();
    }
    for (p, (s, w)) in sinks.iter().zip(&want).enumerate() {
        assert_eq!(s.frames.len(), w.len(), "port {p} frame count");
        for (i, (got, exp)) in s.frames.iter().zip(w).enumerate() {
            assert!(
                got == exp,
                "port {p} frame {i}: got {} bytes user {:#x}, want {} bytes user {:#x}",
                got.0.len(),
                got.1,
                exp.0.len(),
                exp.1
            );
        }
    }
    assert_eq!(drops, dropped, "dropped frame events");
    if blocked_until > 0 {
        assert!(
            stalled_clocks > 0,
            "a blocked port must back-pressure the input"
        );
    }
}

fn traffic(ports: usize, n: usize, max_len: u64, seed: u64) -> Vec<(Vec<u8>, u8)> {
    let mut rng = SplitMix(seed);
    (0..n)
        .map(|_| {
            let len = 1 + (rng.next_u64() % max_len) as usize;
            let f: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let mask = (rng.next_u64() as u8) & ((1 << ports) - 1);
            (f, mask)
        })
        .collect()
}

#[test]
fn multicast_in_order_64() {
    run::<OutputQueues64>(&traffic(4, 400, 1600, 1), 60, 0);
}
#[test]
fn multicast_in_order_256() {
    run::<OutputQueues256>(&traffic(5, 400, 1600, 2), 60, 0);
}
/// Port 2 refuses everything for 60k clocks: its queue fills, the input stalls, and once the
/// port drains every frame still arrives everywhere, jumbo frames included.
#[test]
fn a_blocked_port_back_pressures_64() {
    run::<OutputQueues64>(&traffic(4, 120, 9000, 3), 90, 60_000);
}
#[test]
fn a_blocked_port_back_pressures_256() {
    run::<OutputQueues256>(&traffic(5, 120, 9000, 4), 90, 60_000);
}

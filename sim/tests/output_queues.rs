//! Output queues through Verilator at both widths: multicast to every port in the mask, byte
//! identical and in order; a full queue back-pressures (nothing lost); a port never shows a gap
//! inside a frame; frames with no destination are dropped and counted; frames marked bad (`tuser`
//! bit 7 on the last beat) are never delivered.
use collwire_hdl::axis::TUSER_BAD_AT;

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
    /// The `gapless` source mask (frames from these sources may be cut through).
    fn gapless_sources(&mut self, mask: u8);
    fn eval(&mut self);
    fn tick(&mut self);
    fn in_ready(&self) -> bool;
    fn out(&self, port: usize) -> Option<(Vec<u8>, u64, bool, u16)>;
    /// 1 on the clock after a frame with no destination is dropped (the `queue_drops` event,
    /// counted from the input stage).
    fn dropped(&self) -> u64;
    /// `dst_ready`: bit `i`, queue `i` takes a beat now.
    fn dst_ready(&self) -> u8;
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
            fn gapless_sources(&mut self, mask: u8) {
                self.set_gapless(u64::from(mask));
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
            fn dst_ready(&self) -> u8 {
                <$ty>::dst_ready(self) as u8
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
    // This source idles between beats: no frame may be cut through.
    m.gapless_sources(0);
    let mut src = Source::new(17, 20);
    let mut want: Vec<Vec<(Vec<u8>, u16)>> = vec![Vec::new(); Q::PORTS];
    let mut dropped = 0;
    let mut bad_frames = 0;
    for (i, (f, mask)) in frames.iter().enumerate() {
        // Every seventh frame is marked bad (as the router marks a runt or a cut-off giant):
        // no queue may deliver it.
        let bad = i % 7 == 3;
        let user = u16::from(*mask) << 8 | (i as u16 & 0x7f) | u16::from(bad) << TUSER_BAD_AT;
        src.push_frame(f, Q::BYTES, user);
        for (p, w) in want.iter_mut().enumerate() {
            if mask >> p & 1 == 1 && !bad {
                w.push((f.clone(), user));
            }
        }
        dropped += u64::from(*mask == 0);
        bad_frames += u64::from(bad && *mask != 0);
    }
    assert!(bad_frames > 10);
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
        // `dst_ready` is the queues' room per destination (what the board's merge checks
        // before it offers a beat); destination bits with no queue always read ready.
        let dst_ready = m.dst_ready();
        assert_eq!(
            dst_ready >> Q::PORTS,
            0xff >> Q::PORTS,
            "clock {cycles}: {dst_ready:#04x}"
        );
        if let Some(b) = &beat {
            let mask = (b.user >> 8) as u8;
            assert_eq!(
                m.in_ready(),
                mask & !dst_ready == 0,
                "clock {cycles}: ready against dst_ready {dst_ready:#04x}, mask {mask:#04x}"
            );
        }
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

/// Frames from a gapless source (bit 0 of `tuser`'s source mask) are cut through: each leaves
/// on every port of its mask a clock after its first beat came in, without a gap, a bad one
/// whole with its last beat marked bad (for the MAC to abort); frames from another source
/// (source bit 1) still wait until they are whole, and a bad one of those is dropped. Port 2 refuses
/// everything for a while, so its queue fills and frames for it fall back to frame mode.
/// With `ready` below 100 (per cent of clocks each port takes a beat), ports also refuse beats
/// at random: a beat an idle queue offers straight from its input stage and its port refuses
/// is stored and leaves next (the first-beat clock is then not checked).
fn cut_through<Q: Queues>(ready: u64) {
    let mut dut = Q::default();
    let m = dut.ports();
    m.gapless_sources(0b01);
    let mut src = Source::new(5, 0);
    let mut rng = SplitMix(9);
    let n = 120;
    let mut frames = Vec::new();
    for i in 0..n {
        let len = 1 + (rng.next_u64() % 2500) as usize;
        let f: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let mask = 1 + (rng.next_u64() as u8) % ((1 << Q::PORTS) - 1);
        let gapless = i % 3 != 2;
        let bad = i % 5 == 4;
        let user = u16::from(mask) << 8
            | if gapless { 0b01 } else { 0b10 }
            | u16::from(bad) << TUSER_BAD_AT;
        src.push_frame(&f, Q::BYTES, user);
        frames.push((f, mask, gapless, bad, user));
    }
    let mut sinks: Vec<Sink> = (0..Q::PORTS).map(|p| Sink::new(p as u64, ready)).collect();
    let mut firsts_in = Vec::new();
    let mut firsts_out: Vec<Vec<usize>> = vec![Vec::new(); Q::PORTS];
    // Per port: the clock the previous frame's last beat left.
    let mut prev_end: Vec<Vec<usize>> = vec![Vec::new(); Q::PORTS];
    let mut last_end = vec![0usize; Q::PORTS];
    let mut in_frame = false;
    let blocked = 2..30_000;
    for cycle in 0..200_000usize {
        let beat = src.offer().cloned();
        m.drive(beat.as_ref());
        let readies: Vec<bool> = sinks
            .iter_mut()
            .enumerate()
            .map(|(p, s)| s.ready() && !(p == 2 && blocked.contains(&cycle)))
            .collect();
        for (p, r) in readies.iter().enumerate() {
            m.set_ready(p, *r);
        }
        m.eval();
        if let Some(b) = &beat
            && m.in_ready()
        {
            if !in_frame {
                firsts_in.push(cycle);
            }
            in_frame = !b.last;
            src.taken();
        }
        for (p, s) in sinks.iter_mut().enumerate() {
            let out = m.out(p);
            assert!(
                s.open_bytes() == 0 || out.is_some(),
                "port {p}: gap inside a frame at clock {cycle}"
            );
            if let Some((d, k, l, u)) = out
                && readies[p]
            {
                if s.open_bytes() == 0 {
                    firsts_out[p].push(cycle);
                    prev_end[p].push(last_end[p]);
                }
                if l {
                    last_end[p] = cycle;
                }
                s.accept(&d, k, l, u);
            }
        }
        m.tick();
    }
    assert!(src.is_empty());
    let mut cut_seen = 0;
    for p in 0..Q::PORTS {
        let mut got = sinks[p]
            .frames
            .iter()
            .zip(firsts_out[p].iter().zip(&prev_end[p]));
        for (i, (f, mask, gapless, bad, user)) in frames.iter().enumerate() {
            if mask >> p & 1 == 0 {
                continue;
            }
            // A bad frame in frame mode is dropped: nothing to match.
            let next = got.clone().next();
            match next {
                Some(((g, u), (&out, &before))) if g == f && *u == *user => {
                    got.next();
                    assert!(
                        !*bad || *gapless,
                        "port {p}: bad frame {i} delivered in frame mode"
                    );
                    // Port 2's queue fills while it is blocked: its frames may fall back to
                    // frame mode. Every other queue always has room.
                    // A clock after it came in, or right after the port's previous frame.
                    if *gapless && mask & 0b100 == 0 && ready == 100 {
                        assert_eq!(
                            out,
                            (firsts_in[i] + 1).max(before + 1),
                            "port {p} frame {i}: first beat out"
                        );
                        cut_seen += 1;
                    }
                }
                _ => assert!(*bad, "port {p}: frame {i} missing"),
            }
        }
        assert!(got.next().is_none(), "port {p}: an extra frame");
    }
    if ready == 100 {
        assert!(cut_seen > 50, "{cut_seen} frames cut through");
    }
}

#[test]
fn cut_through_64() {
    cut_through::<OutputQueues64>(100);
    cut_through::<OutputQueues64>(70);
}
#[test]
fn cut_through_256() {
    cut_through::<OutputQueues256>(100);
    cut_through::<OutputQueues256>(70);
}

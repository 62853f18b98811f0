//! Input arbiter through Verilator at both widths: frames from every port leave whole, byte
//! identical, in per-port order, stamped with their source port; saturated ports are served
//! strictly round-robin with no idle clock between frames; a beat is offered only when every
//! destination of its frame has room (`dst_ready`). The board's input arbiter
//! (`AxisArbiter::ready_always`, no room check, `tvalid` from the requests outside a frame)
//! passes the same traffic and round robin.

use collwire_hdl::axis::TUSER_BAD_AT;
use collwire_sim::axis::{Sink, Source};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::{AxisArbiter64, AxisArbiter256, AxisArbiterIn64, AxisArbiterIn256};

trait Arbiter: Default {
    const BYTES: usize;
    const PORTS: usize;
    fn model(&mut self) -> &mut dyn ArbiterPorts;
}

trait ArbiterPorts {
    fn drive(&mut self, port: usize, beat: Option<&collwire_sim::axis::Beat>);
    fn set_ready(&mut self, ready: bool);
    fn set_dst_ready(&mut self, mask: u8);
    fn eval(&mut self);
    fn tick(&mut self);
    fn s_ready(&self, port: usize) -> bool;
    /// `m_flag`: the side-band bit of the port granted.
    fn flag(&self) -> bool;
    fn out(&self) -> Option<(Vec<u8>, u64, bool, u16)>;
}

macro_rules! arbiter {
    ($ty:ty, $bytes:expr, $ports:expr) => {
        impl Arbiter for $ty {
            const BYTES: usize = $bytes;
            const PORTS: usize = $ports;
            fn model(&mut self) -> &mut dyn ArbiterPorts {
                self
            }
        }
        impl ArbiterPorts for $ty {
            fn drive(&mut self, port: usize, beat: Option<&collwire_sim::axis::Beat>) {
                match beat {
                    Some(b) => {
                        self.set_s_axis_tdata_bytes_at(port, &b.data);
                        self.set_s_axis_tkeep_at(port, b.keep);
                        self.set_s_axis_tlast_at(port, u64::from(b.last));
                        self.set_s_axis_tuser_at(port, u64::from(b.user));
                        self.set_s_axis_tvalid_at(port, 1);
                        self.set_s_flag_at(port, u64::from(flag_of(b)));
                    }
                    None => {
                        self.set_s_axis_tvalid_at(port, 0);
                        self.set_s_flag_at(port, 0);
                    }
                }
            }
            fn set_ready(&mut self, ready: bool) {
                self.set_m_axis_tready(u64::from(ready));
            }
            fn set_dst_ready(&mut self, mask: u8) {
                self.set_dst_ready(u64::from(mask));
            }
            fn eval(&mut self) {
                <$ty>::eval(self)
            }
            fn tick(&mut self) {
                <$ty>::tick(self)
            }
            fn flag(&self) -> bool {
                self.m_flag() == 1
            }
            fn s_ready(&self, port: usize) -> bool {
                self.s_axis_tready_at(port) == 1
            }
            fn out(&self) -> Option<(Vec<u8>, u64, bool, u16)> {
                (self.m_axis_tvalid() == 1).then(|| {
                    (
                        self.m_axis_tdata_bytes(),
                        self.m_axis_tkeep(),
                        self.m_axis_tlast() == 1,
                        self.m_axis_tuser() as u16,
                    )
                })
            }
        }
    };
}

arbiter!(AxisArbiter64, 8, 4);
arbiter!(AxisArbiter256, 32, 5);
arbiter!(AxisArbiterIn64, 8, 4);
arbiter!(AxisArbiterIn256, 32, 5);

/// The side-band bit a test source sends with a beat (`s_flag`): its first byte's low bit
/// XOR its `tlast`, different from beat to beat and port to port.
fn flag_of(b: &collwire_sim::axis::Beat) -> bool {
    (b.data[0] & 1 == 1) ^ b.last
}

/// A frame that names its port and sequence number in its first bytes.
fn frame(port: usize, seq: usize, len: usize, rng: &mut SplitMix) -> Vec<u8> {
    let mut f: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
    f[0] = port as u8;
    f[1] = seq as u8;
    f
}

/// Runs the arbiter until every source is drained; returns the output frames in order and the
/// number of clocks. `dst_ready` gives the destinations' room each clock; no beat may be
/// offered for a frame (its mask: its first beat's `tuser` destination bits) with a destination
/// that has none.
fn run<A: Arbiter>(
    sources: &mut [Source],
    sink: &mut Sink,
    expected_frames: usize,
    mut dst_ready: impl FnMut() -> u8,
) -> (Vec<(Vec<u8>, u16)>, usize) {
    let mut dut = A::default();
    let m = dut.model();
    let mut cycles = 0;
    let mut frame_dst: Option<u8> = None;
    while sink.frames.len() < expected_frames {
        assert!(cycles < 1_000_000, "arbiter stalled");
        let ready = sink.ready();
        m.set_ready(ready);
        let room = dst_ready();
        m.set_dst_ready(room);
        let mut offered = Vec::with_capacity(sources.len());
        let mut beats = Vec::with_capacity(sources.len());
        for (p, s) in sources.iter_mut().enumerate() {
            let beat = s.offer().cloned();
            m.drive(p, beat.as_ref());
            offered.push(beat.is_some());
            beats.push(beat);
        }
        m.eval();
        let out = m.out();
        if let Some((_, _, _, user)) = &out {
            // The side-band bit leaves with the beat of the port it came from (`tuser`'s
            // source bit).
            let port = (user & 0x7f).trailing_zeros() as usize;
            let beat = beats[port]
                .as_ref()
                .expect("the granted port offers a beat");
            assert_eq!(
                m.flag(),
                flag_of(beat),
                "clock {cycles}: the flag of port {port}"
            );
        }
        let mut taken = 0;
        for (p, s) in sources.iter_mut().enumerate() {
            if m.s_ready(p) && offered[p] {
                s.taken();
                taken += 1;
            }
        }
        if let Some((_, _, last, user)) = &out {
            // A frame's destinations: its first beat's, once that beat was taken.
            let dst = frame_dst.unwrap_or((user >> 8) as u8);
            assert_eq!(
                dst & !room,
                0,
                "clock {cycles}: a beat for destinations {dst:#04x} offered with room {room:#04x}"
            );
            if ready {
                frame_dst = (!*last).then_some(dst);
            }
        }
        if let Some((data, keep, last, user)) = out
            && ready
        {
            sink.accept(&data, keep, last, user);
            assert_eq!(taken, 1, "one beat out, {taken} taken at the inputs");
        } else {
            assert_eq!(taken, 0, "an input beat was taken but none left");
        }
        m.tick();
        cycles += 1;
    }
    (std::mem::take(&mut sink.frames), cycles)
}

fn random_traffic<A: Arbiter>(room: impl FnMut() -> u8) {
    let mut rng = SplitMix(0xa4b);
    let mut expected: Vec<Vec<(Vec<u8>, u16)>> = vec![Vec::new(); A::PORTS];
    let mut sources: Vec<Source> = (0..A::PORTS)
        .map(|p| Source::new(p as u64 + 1, 30))
        .collect();
    for (p, s) in sources.iter_mut().enumerate() {
        for seq in 0..40 {
            let len = 2 + (rng.next_u64() % 300) as usize;
            let f = frame(p, seq, len, &mut rng);
            // The destination mask and the bad bit pass; the source bits are replaced.
            let dst = (rng.next_u64() as u16) & (0xff00 | 1 << TUSER_BAD_AT);
            s.push_frame(&f, A::BYTES, dst | 0x007f);
            expected[p].push((f, dst | (1 << p)));
        }
    }
    let total = 40 * A::PORTS;
    let mut sink = Sink::new(99, 70);
    let (frames, _) = run::<A>(&mut sources, &mut sink, total, room);
    let mut next = vec![0usize; A::PORTS];
    for (f, user) in frames {
        let p = f[0] as usize;
        assert!(p < A::PORTS, "frame from no port: {f:02x?}");
        assert_eq!(
            (&f, user),
            (&expected[p][next[p]].0, expected[p][next[p]].1),
            "port {p} frame {}",
            next[p]
        );
        next[p] += 1;
    }
    assert!(next.iter().all(|&n| n == 40), "{next:?}");
}

fn saturated_round_robin<A: Arbiter>() {
    let mut rng = SplitMix(7);
    let mut sources: Vec<Source> = (0..A::PORTS).map(|p| Source::new(p as u64, 0)).collect();
    let mut beats = 0;
    for (p, s) in sources.iter_mut().enumerate() {
        for seq in 0..12 {
            let len = 2 + (rng.next_u64() % (3 * A::BYTES as u64)) as usize;
            beats += len.div_ceil(A::BYTES);
            s.push_frame(&frame(p, seq, len, &mut rng), A::BYTES, 0);
        }
    }
    let mut sink = Sink::new(1, 100);
    let (frames, cycles) = run::<A>(&mut sources, &mut sink, 12 * A::PORTS, || 0xff);
    let order: Vec<usize> = frames.iter().map(|(f, _)| f[0] as usize).collect();
    // Out of reset the last grant reads as port 0, so the search starts at port 1.
    let rr: Vec<usize> = (1..=12 * A::PORTS).map(|i| i % A::PORTS).collect();
    assert_eq!(order, rr, "grant order");
    assert_eq!(
        cycles, beats,
        "a beat on every clock (no bubble between frames)"
    );
}

#[test]
fn random_traffic_64() {
    random_traffic::<AxisArbiter64>(|| 0xff);
}
#[test]
fn random_traffic_256() {
    random_traffic::<AxisArbiter256>(|| 0xff);
}

/// Each destination has room on a random three clocks in four: frames still leave whole and
/// in per-port order, and never a beat for a destination without room.
fn random_room<A: Arbiter>() {
    let mut rng = SplitMix(0x5eed);
    random_traffic::<A>(move || {
        let (a, b) = (rng.next_u64() as u8, rng.next_u64() as u8);
        a | b
    });
}
#[test]
fn beats_wait_for_room_at_their_destinations_64() {
    random_room::<AxisArbiter64>();
}
#[test]
fn beats_wait_for_room_at_their_destinations_256() {
    random_room::<AxisArbiter256>();
}
#[test]
fn saturated_ports_are_served_round_robin_64() {
    saturated_round_robin::<AxisArbiter64>();
}
#[test]
fn saturated_ports_are_served_round_robin_256() {
    saturated_round_robin::<AxisArbiter256>();
}
#[test]
fn input_arbiter_random_traffic_64() {
    random_traffic::<AxisArbiterIn64>(|| 0xff);
}
#[test]
fn input_arbiter_random_traffic_256() {
    random_traffic::<AxisArbiterIn256>(|| 0xff);
}
#[test]
fn input_arbiter_serves_saturated_ports_round_robin_64() {
    saturated_round_robin::<AxisArbiterIn64>();
}
#[test]
fn input_arbiter_serves_saturated_ports_round_robin_256() {
    saturated_round_robin::<AxisArbiterIn256>();
}

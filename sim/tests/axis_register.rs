//! AXI-Stream register slice through Verilator at both widths: every beat leaves unchanged
//! (data, keep, last, user) and in order under random valid and ready; with both always high a
//! beat leaves on every clock, one clock after it came in; `s_axis_tready` and every output
//! change only at a clock edge (no combinational path through the slice); `m_tvalid_next` is
//! `m_axis_tvalid` after the edge; `reset` empties it.

use collwire_sim::axis::{Beat, Source};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::{AxisRegister64, AxisRegister256};

trait Slice: Default {
    const BYTES: usize;
    fn ports(&mut self) -> &mut dyn SlicePorts;
}

trait SlicePorts {
    fn drive(&mut self, beat: Option<&Beat>);
    fn set_ready(&mut self, ready: bool);
    fn set_reset(&mut self, on: bool);
    fn eval(&mut self);
    fn tick(&mut self);
    fn in_ready(&self) -> bool;
    fn out(&self) -> Option<Beat>;
    /// `m_axis_tvalid` after the next edge (`m_tvalid_next`).
    fn valid_next(&self) -> bool;
}

macro_rules! slice {
    ($ty:ty, $bytes:expr) => {
        impl Slice for $ty {
            const BYTES: usize = $bytes;
            fn ports(&mut self) -> &mut dyn SlicePorts {
                self
            }
        }
        impl SlicePorts for $ty {
            fn drive(&mut self, beat: Option<&Beat>) {
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
            fn set_ready(&mut self, ready: bool) {
                self.set_m_axis_tready(u64::from(ready));
            }
            fn set_reset(&mut self, on: bool) {
                <$ty>::set_reset(self, u64::from(on));
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
            fn valid_next(&self) -> bool {
                self.m_tvalid_next() == 1
            }
            fn out(&self) -> Option<Beat> {
                (self.m_axis_tvalid() == 1).then(|| Beat {
                    data: self.m_axis_tdata_bytes(),
                    keep: self.m_axis_tkeep(),
                    last: self.m_axis_tlast() == 1,
                    user: self.m_axis_tuser() as u16,
                })
            }
        }
    };
}

slice!(AxisRegister64, 8);
slice!(AxisRegister256, 32);

/// Frames of random bytes, lengths and `tuser` on every beat.
fn source<S: Slice>(rng: &mut SplitMix, frames: usize, idle: u64) -> (Source, Vec<Beat>) {
    let mut src = Source::new(rng.next_u64(), idle);
    let mut beats = Vec::new();
    for _ in 0..frames {
        let len = 1 + (rng.next_u64() % 300) as usize;
        let f: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let user = rng.next_u64() as u16;
        src.push_frame(&f, S::BYTES, user);
        beats.extend(collwire_sim::axis::beats(&f, S::BYTES, user));
    }
    (src, beats)
}

/// Random valid and ready: the beats out are the beats in; the outputs and `tready` hold
/// still when only the inputs change between edges. Returns the beats and the clocks taken.
fn stream<S: Slice>(seed: u64, idle: u64, ready: u64) -> (usize, usize) {
    let mut rng = SplitMix(seed);
    let (mut src, want) = source::<S>(&mut rng, 200, idle);
    let mut dut = S::default();
    let m = dut.ports();
    let mut got = Vec::new();
    let mut clocks = 0;
    while got.len() < want.len() {
        assert!(clocks < 100_000, "the slice stalled");
        // The outputs as the last edge left them, whatever the inputs do now.
        m.drive(None);
        m.set_ready(false);
        m.eval();
        let (in_ready, out) = (m.in_ready(), m.out());
        let beat = src.offer().cloned();
        let r = rng.next_u64() % 100 < ready;
        m.drive(beat.as_ref());
        m.set_ready(r);
        m.eval();
        assert_eq!(
            m.in_ready(),
            in_ready,
            "s_axis_tready changed between edges"
        );
        assert_eq!(m.out(), out, "m_axis changed between edges");
        if beat.is_some() && in_ready {
            src.taken();
        }
        if let Some(b) = out
            && r
        {
            got.push(b);
        }
        let valid_next = m.valid_next();
        m.tick();
        m.eval();
        assert_eq!(
            m.out().is_some(),
            valid_next,
            "m_tvalid_next against m_axis_tvalid after the edge"
        );
        clocks += 1;
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "beat {i}");
    }
    (want.len(), clocks)
}

fn random<S: Slice>() {
    for (seed, idle, ready) in [(1, 0, 100), (2, 30, 70), (3, 0, 20), (4, 80, 90)] {
        stream::<S>(seed, idle, ready);
    }
}

/// Always valid, always ready: one beat per clock after the first clock.
fn full_rate<S: Slice>() {
    let (beats, clocks) = stream::<S>(9, 0, 100);
    println!("{}-bit: {beats} beats in {clocks} clocks", S::BYTES * 8);
    assert!(clocks <= beats + 2, "{beats} beats took {clocks} clocks");
}

/// A beat in the output register and one aside, then `reset`: nothing is left.
fn reset<S: Slice>() {
    let mut dut = S::default();
    let m = dut.ports();
    let beat = Beat {
        data: vec![0xa5; S::BYTES],
        keep: (1u64 << S::BYTES).wrapping_sub(1),
        last: false,
        user: 3,
    };
    m.set_ready(false);
    for _ in 0..4 {
        m.drive(Some(&beat));
        m.eval();
        m.tick();
    }
    m.drive(None);
    m.eval();
    assert!(
        m.out().is_some() && !m.in_ready(),
        "both registers hold a beat"
    );
    m.set_reset(true);
    m.tick();
    m.set_reset(false);
    m.eval();
    assert!(m.out().is_none(), "reset empties the slice");
    m.tick();
    m.eval();
    assert!(
        m.in_ready() && m.out().is_none(),
        "ready again, still empty"
    );
}

#[test]
fn beats_pass_unchanged_64() {
    random::<AxisRegister64>();
}
#[test]
fn beats_pass_unchanged_256() {
    random::<AxisRegister256>();
}
#[test]
fn full_rate_64() {
    full_rate::<AxisRegister64>();
}
#[test]
fn full_rate_256() {
    full_rate::<AxisRegister256>();
}
#[test]
fn reset_empties_it_64() {
    reset::<AxisRegister64>();
}
#[test]
fn reset_empties_it_256() {
    reset::<AxisRegister256>();
}

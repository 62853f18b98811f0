//! Ingress frame path through Verilator at both widths: every frame that is not an offload frame
//! (ARP, TCP, other UDP ports, IPv6, VLAN, IPv4 options, fragments, jumbo, runts) leaves byte
//! identical toward the port a NIC would use; valid offload frames reach the engine port whole,
//! with their decoded fields (as `collwire_proto` reads them) and verdict alongside; malformed
//! offload frames are dropped and counted. Verdicts come from `frame::classify`.

use collwire_hdl::axis::{HOST_PORT, UPLINK_PORT, tuser};
use collwire_proto::frame::{FrameKind, classify};
use collwire_sim::axis::{Sink, Source};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{frame_fields_of, mutate, offload_frame, plain_frames};
use collwire_sim::models::{FrameRouter64, FrameRouter256};

trait Router: Default {
    const BYTES: usize;
    fn ports(&mut self) -> &mut dyn RouterPorts;
}

/// Port access common to both widths.
trait RouterPorts {
    fn drive(&mut self, beat: Option<&collwire_sim::axis::Beat>);
    fn set_ready(&mut self, pass: bool, offload: bool);
    fn eval(&mut self);
    fn tick(&mut self);
    fn in_ready(&self) -> bool;
    fn pass_out(&self) -> Option<(Vec<u8>, u64, bool, u16)>;
    fn offload_out(&self) -> Option<(Vec<u8>, u64, bool, u16)>;
    /// (first 64 bytes, payload length, unsupported) of the offload frame at the head.
    fn offload_meta(&self) -> OffloadMeta;
    /// The statistics events of this clock (`collwire_hdl::statistics::StatEvents` bits).
    fn events(&self) -> u64;
}

/// Counts the router's events by name: passed, offloaded, malformed.
fn count_events(counters: &mut [u64; 3], events: u64) {
    for (c, name) in counters
        .iter_mut()
        .zip(["passed_frames", "offload_frames", "malformed_drops"])
    {
        let bit = collwire_hdl::statistics::stat_index(name).unwrap();
        *c += events >> bit & 1;
    }
}

macro_rules! router {
    ($ty:ty, $bytes:expr) => {
        impl Router for $ty {
            const BYTES: usize = $bytes;
            fn ports(&mut self) -> &mut dyn RouterPorts {
                self
            }
        }
        impl RouterPorts for $ty {
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
            fn set_ready(&mut self, pass: bool, offload: bool) {
                self.set_m_axis_tready(u64::from(pass));
                self.set_m_offload_axis_tready(u64::from(offload));
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
            fn pass_out(&self) -> Option<(Vec<u8>, u64, bool, u16)> {
                (self.m_axis_tvalid() == 1).then(|| {
                    (
                        self.m_axis_tdata_bytes(),
                        self.m_axis_tkeep(),
                        self.m_axis_tlast() == 1,
                        self.m_axis_tuser() as u16,
                    )
                })
            }
            fn offload_out(&self) -> Option<(Vec<u8>, u64, bool, u16)> {
                (self.m_offload_axis_tvalid() == 1).then(|| {
                    (
                        self.m_offload_axis_tdata_bytes(),
                        self.m_offload_axis_tkeep(),
                        self.m_offload_axis_tlast() == 1,
                        self.m_offload_axis_tuser() as u16,
                    )
                })
            }
            fn offload_meta(&self) -> OffloadMeta {
                (
                    self.offload_fields_bytes(),
                    self.offload_payload_len() as usize,
                    self.offload_unsupported() == 1,
                )
            }
            fn events(&self) -> u64 {
                <$ty>::events(self)
            }
        }
    };
}

router!(FrameRouter64, 8);
router!(FrameRouter256, 32);

/// What travels beside an offload frame: its decoded fields (packed), payload length,
/// unsupported.
type OffloadMeta = (Vec<u8>, usize, bool);

#[derive(Default)]
struct Expected {
    pass: Vec<(Vec<u8>, u16)>,
    offload: Vec<(Vec<u8>, OffloadMeta)>,
    malformed: u64,
}

/// Feeds `frames` (with their source ports) and returns what came out and the clocks taken.
fn run<R: Router>(
    frames: &[(Vec<u8>, usize)],
    idle: u64,
    ready: u64,
) -> (Sink, Sink, Vec<OffloadMeta>, [u64; 3], usize) {
    let mut dut = R::default();
    let m = dut.ports();
    let mut src = Source::new(3, idle);
    for (f, port) in frames {
        src.push_frame(f, R::BYTES, tuser(*port, 0));
    }
    let mut pass = Sink::new(5, ready);
    let mut off = Sink::new(6, ready);
    let mut metas = Vec::new();
    let mut cycles = 0;
    let mut extra = 0;
    let mut counters = [0u64; 3];
    // Until every frame has left (the counters count a frame at its last beat), then a few more
    // clocks in which nothing else may appear.
    while extra < 32 {
        if counters.iter().sum::<u64>() == frames.len() as u64 {
            extra += 1;
        }
        assert!(cycles < 2_000_000, "router stalled");
        let beat = src.offer().cloned();
        m.drive(beat.as_ref());
        let (pr, or) = (pass.ready(), off.ready());
        m.set_ready(pr, or);
        m.eval();
        count_events(&mut counters, m.events());
        if beat.is_some() && m.in_ready() {
            src.taken();
        }
        if let Some((d, k, l, u)) = m.pass_out()
            && pr
        {
            pass.accept(&d, k, l, u);
        }
        if let Some((d, k, l, u)) = m.offload_out()
            && or
        {
            if off.open_bytes() == 0 {
                metas.push(m.offload_meta());
            }
            off.accept(&d, k, l, u);
        }
        m.tick();
        cycles += 1;
    }
    (pass, off, metas, counters, cycles)
}

fn traffic(rng: &mut SplitMix, n: usize) -> (Vec<(Vec<u8>, usize)>, Expected) {
    let mut frames = Vec::new();
    let mut exp = Expected::default();
    let plain = plain_frames(rng);
    for i in 0..n {
        let port = (rng.next_u64() % 4) as usize;
        let f = match i % 3 {
            0 => plain[(rng.next_u64() % plain.len() as u64) as usize]
                .1
                .clone(),
            _ => {
                let mut f = offload_frame(rng);
                mutate(rng, &mut f);
                f
            }
        };
        match classify(&f) {
            FrameKind::PassThrough => {
                let dst = if port == HOST_PORT {
                    UPLINK_PORT
                } else {
                    HOST_PORT
                };
                exp.pass.push((f.clone(), tuser(port, 1 << dst)));
            }
            FrameKind::Offload { repr, payload, .. } => exp.offload.push((
                f.clone(),
                (
                    frame_fields_of(&f).unwrap().to_le_bytes(),
                    payload.len(),
                    repr.check_supported().is_err(),
                ),
            )),
            FrameKind::Malformed(_) => exp.malformed += 1,
        }
        frames.push((f, port));
    }
    (frames, exp)
}

fn check<R: Router>(seed: u64, idle: u64, ready: u64) {
    let mut rng = SplitMix(seed);
    let (frames, exp) = traffic(&mut rng, 600);
    let (pass, off, metas, counters, _) = run::<R>(&frames, idle, ready);
    for (i, (got, want)) in pass.frames.iter().zip(&exp.pass).enumerate() {
        assert!(
            got == want,
            "pass-through frame {i}: got {} bytes user {:#x}, want {} bytes user {:#x}",
            got.0.len(),
            got.1,
            want.0.len(),
            want.1
        );
    }
    assert_eq!(
        pass.frames.len(),
        exp.pass.len(),
        "pass-through frame count"
    );
    for (i, ((got, _), want)) in off.frames.iter().zip(&exp.offload).enumerate() {
        assert!(
            got == &want.0,
            "offload frame {i}: got {} bytes, want {}",
            got.len(),
            want.0.len()
        );
        assert_eq!(
            metas[i], want.1,
            "offload frame {i}: header, payload length, unsupported"
        );
    }
    assert_eq!(off.frames.len(), exp.offload.len(), "offload frame count");
    assert_eq!(
        counters,
        [
            exp.pass.len() as u64,
            exp.offload.len() as u64,
            exp.malformed
        ],
        "passed / offload / malformed counters"
    );
    assert!(exp.pass.len() > 100 && exp.offload.len() > 30 && exp.malformed > 100);
}

/// Every kind at full rate with nothing blocking: a beat in and a beat out on every clock.
fn back_to_back<R: Router>() {
    let mut rng = SplitMix(11);
    let mut frames = Vec::new();
    let mut beats = 0;
    let mut longest = 0;
    for _ in 0..50 {
        for (_, f) in plain_frames(&mut rng) {
            longest = longest.max(f.len().div_ceil(R::BYTES));
            beats += f.len().div_ceil(R::BYTES);
            frames.push((f, HOST_PORT));
        }
    }
    let (pass, _, _, counters, cycles) = run::<R>(&frames, 0, 100);
    assert_eq!(pass.frames.len(), frames.len());
    assert_eq!(counters[0], frames.len() as u64);
    // 32 clocks end the run. Store-and-forward puts the output at most one longest frame (plus
    // the verdict latency) behind the input; beyond that a beat leaves on every clock, with no
    // bubble between frames.
    let busy = cycles - 32;
    println!("{beats} beats in {busy} clocks");
    assert!(
        busy <= beats + longest + 12,
        "{beats} beats took {busy} clocks"
    );
}

#[test]
fn frames_route_and_drop_64() {
    check::<FrameRouter64>(1, 30, 70);
}
#[test]
fn frames_route_and_drop_256() {
    check::<FrameRouter256>(2, 30, 70);
}
#[test]
fn back_pressure_never_loses_a_frame_64() {
    check::<FrameRouter64>(3, 0, 20);
}
#[test]
fn back_pressure_never_loses_a_frame_256() {
    check::<FrameRouter256>(4, 0, 20);
}
#[test]
fn full_rate_64() {
    back_to_back::<FrameRouter64>();
}
#[test]
fn full_rate_256() {
    back_to_back::<FrameRouter256>();
}

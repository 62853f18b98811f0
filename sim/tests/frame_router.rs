//! Ingress frame path through Verilator at both widths: every frame that is not an offload frame
//! (ARP, TCP, other UDP ports, IPv6, VLAN, IPv4 options, fragments, jumbo) leaves byte
//! identical toward the port a NIC would use; valid offload frames reach the engine port whole,
//! with their decoded fields (as `collwire_proto` reads them) and verdict alongside; malformed
//! offload frames are dropped and counted. Offload frames are cut through: one judged good
//! from its header but bad at its tail (its MAC's mark, shorter than its IPv4 length, a
//! giant) reaches the engine port marked bad on its last beat, never as good. Board frames (partials, results) for another board
//! leave on the transit port toward the route table's ports, a frame that fails a check marked
//! bad. Verdicts come from `frame::classify`. Runts
//! (< `limits::MIN_FRAME`), giants (> `limits::MAX_FRAME`, up to 64 KiB of garbage) and frames
//! the MAC marked bad are counted and never delivered as good; with the engine stalled, offload
//! frames are dropped and counted while plain frames keep flowing (cut-through, delay printed).

use collwire_hdl::axis::{HOST_PORT, TUSER_BAD_AT, UPLINK_PORT, tuser};
use collwire_hdl::cfe_config::cfg;
use collwire_hdl::header_fields::{DST_HOST_BYTE, VERSION_TYPE_BYTE};
use collwire_proto::MessageType;
use collwire_proto::frame::is_offload_candidate;
use collwire_proto::frame::{FrameKind, classify};
use collwire_proto::limits::{MAX_FRAME, MAX_OFFLOAD_FRAME, MIN_FRAME};
use collwire_sim::axis::{Sink, Source};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{
    frame_fields_of, mutate, offload_frame, offload_frame_for, plain_frames,
};
use collwire_sim::models::{FrameRouter64, FrameRouter256};

trait Router: Default {
    const BYTES: usize;
    fn ports(&mut self) -> &mut dyn RouterPorts;
}

/// Port access common to both widths.
trait RouterPorts {
    fn drive(&mut self, beat: Option<&collwire_sim::axis::Beat>);
    fn set_ready(&mut self, pass: bool, offload: bool, transit: bool);
    /// Writes configuration word `addr` (one clock).
    fn configure(&mut self, addr: u16, data: u32);
    fn eval(&mut self);
    fn tick(&mut self);
    fn in_ready(&self) -> bool;
    fn pass_out(&self) -> Option<(Vec<u8>, u64, bool, u16)>;
    fn offload_out(&self) -> Option<(Vec<u8>, u64, bool, u16)>;
    fn transit_out(&self) -> Option<(Vec<u8>, u64, bool, u16)>;
    /// (first 64 bytes, payload length, unsupported) of the offload frame at the head.
    fn offload_meta(&self) -> OffloadMeta;
    /// The statistics events of this clock (`collwire_hdl::statistics::StatEvents` bits).
    fn events(&self) -> u64;
}

/// The router's counters, in this order.
const COUNTERS: [&str; 8] = [
    "passed_frames",
    "offload_frames",
    "malformed_drops",
    "runt_drops",
    "giant_drops",
    "bad_frame_drops",
    "engine_busy_drops",
    "transits",
];
type Counts = [u64; 8];

/// The board index the router is configured with.
const MY_BOARD: u8 = 5;

/// The route-table entry of board `b` the router is configured with (distinct masks).
fn route_mask(b: u8) -> u8 {
    (b & 63).wrapping_mul(37).wrapping_add(11)
}

/// Counts the router's events by name ([`COUNTERS`]).
fn count_events(counters: &mut Counts, events: u64) {
    for (c, name) in counters.iter_mut().zip(COUNTERS) {
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
            fn set_ready(&mut self, pass: bool, offload: bool, transit: bool) {
                self.set_m_axis_tready(u64::from(pass));
                self.set_m_offload_axis_tready(u64::from(offload));
                self.set_m_transit_axis_tready(u64::from(transit));
            }
            fn configure(&mut self, addr: u16, data: u32) {
                self.set_cfg_we(1);
                self.set_cfg_addr(u64::from(addr));
                self.set_cfg_data(u64::from(data));
                <$ty>::tick(self);
                self.set_cfg_we(0);
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
            fn transit_out(&self) -> Option<(Vec<u8>, u64, bool, u16)> {
                (self.m_transit_axis_tvalid() == 1).then(|| {
                    (
                        self.m_transit_axis_tdata_bytes(),
                        self.m_transit_axis_tkeep(),
                        self.m_transit_axis_tlast() == 1,
                        self.m_transit_axis_tuser() as u16,
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
    transit: Vec<(Vec<u8>, u16)>,
    malformed: u64,
    runts: u64,
    giants: u64,
    bad: u64,
}

/// A frame for the router: its bytes, its source port, and whether the MAC marked it bad.
type Input = (Vec<u8>, usize, bool);

/// What came out: pass-through and offload sinks, the metadata of each offload frame, the
/// counters, the clocks taken, the clock each input frame's first beat went in, and the clock
/// each pass-through frame's first beat came out.
struct Run {
    pass: Sink,
    off: Sink,
    transit: Sink,
    metas: Vec<OffloadMeta>,
    counters: Counts,
    cycles: usize,
    starts: Vec<usize>,
    pass_firsts: Vec<usize>,
    /// The clock each transit beat left, and whether it was a frame's last.
    transit_beats: Vec<(usize, bool)>,
    /// Clocks on which an offload beat waited for the engine: seen on the ports, and counted
    /// by the router (`engine_waits`).
    engine_waits: (u64, u64),
}

/// Feeds `frames` and returns what came out; the engine port is ready on `offload_ready` %
/// of the clocks (0: stalled).
fn run<R: Router>(
    frames: &[Input],
    idle: u64,
    ready: u64,
    offload_ready: u64,
    engine_stalled_until: usize,
) -> Run {
    let mut dut = R::default();
    let m = dut.ports();
    m.configure(cfg::BOARD, MY_BOARD.into());
    for b in 0..cfg::ROUTE_ENTRIES as u8 {
        m.configure(cfg::ROUTE + u16::from(b), route_mask(b).into());
    }
    let mut src = Source::new(3, idle);
    for (f, port, bad) in frames {
        let mark = if *bad { 1 << TUSER_BAD_AT } else { 0 };
        src.push_frame(f, R::BYTES, tuser(*port, 0) | mark);
    }
    let mut pass = Sink::new(5, ready);
    let mut off = Sink::new(6, offload_ready);
    let mut transit = Sink::new(7, ready);
    let mut metas = Vec::new();
    let mut cycles = 0;
    let mut extra = 0;
    let mut counters = [0u64; 8];
    let mut starts = Vec::new();
    let mut in_frame = false;
    let mut pass_firsts = Vec::new();
    let mut transit_beats = Vec::new();
    let mut engine_waits = (0, 0);
    let waits_bit = collwire_hdl::statistics::stat_index("engine_waits").unwrap();
    // Until every frame has left (the counters count a frame at its last beat), then a few more
    // clocks in which nothing else may appear.
    while extra < 32 {
        if counters.iter().sum::<u64>() == frames.len() as u64 {
            extra += 1;
        }
        if cycles == 2_000_000 {
            // Stalled, or a frame not counted: the caller's checks say which.
            break;
        }
        let beat = src.offer().cloned();
        m.drive(beat.as_ref());
        let (pr, or) = (pass.ready(), off.ready() && cycles >= engine_stalled_until);
        let tr = transit.ready();
        m.set_ready(pr, or, tr);
        m.eval();
        count_events(&mut counters, m.events());
        engine_waits.1 += m.events() >> waits_bit & 1;
        if m.offload_out().is_some() && !or {
            engine_waits.0 += 1;
        }
        if let Some(b) = &beat
            && m.in_ready()
        {
            src.taken();
            if !in_frame {
                starts.push(cycles);
            }
            in_frame = !b.last;
        }
        if let Some((d, k, l, u)) = m.pass_out()
            && pr
        {
            if pass.open_bytes() == 0 {
                pass_firsts.push(cycles);
            }
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
        if let Some((d, k, l, u)) = m.transit_out()
            && tr
        {
            transit_beats.push((cycles, l));
            transit.accept(&d, k, l, u);
        }
        m.tick();
        cycles += 1;
    }
    Run {
        pass,
        off,
        transit,
        metas,
        counters,
        cycles,
        starts,
        pass_firsts,
        transit_beats,
        engine_waits,
    }
}

/// A board frame for another board, by its header (valid or not).
fn is_transit(f: &[u8]) -> bool {
    let msg = f.get(VERSION_TYPE_BYTE).map(|b| b & 0xf);
    is_offload_candidate(f)
        && msg
            .and_then(|m| MessageType::from_code(m).ok())
            .is_some_and(|m| m.is_board_to_board())
        && f.get(DST_HOST_BYTE) != Some(&MY_BOARD)
}

/// What the router must do with a frame (of bytes `f`, marked bad by its MAC or not). A
/// candidate longer than the longest offload frame is a giant, and a giant is one before it is
/// marked bad (it is cut off before its last beat).
fn expect(exp: &mut Expected, f: &[u8], port: usize, bad: bool) {
    if f.len() > MAX_FRAME || (is_offload_candidate(f) && f.len() > MAX_OFFLOAD_FRAME) {
        exp.giants += 1;
    } else if bad {
        exp.bad += 1;
    } else if f.len() < MIN_FRAME {
        exp.runts += 1;
    } else {
        match classify(f) {
            FrameKind::PassThrough => {
                let dst = if port == HOST_PORT {
                    UPLINK_PORT
                } else {
                    HOST_PORT
                };
                exp.pass.push((f.to_vec(), tuser(port, 1 << dst)));
            }
            // A board frame for another board is forwarded unless it uses a reserved code.
            FrameKind::Offload { repr, .. }
                if repr.msg_type.is_board_to_board() && f[DST_HOST_BYTE] != MY_BOARD =>
            {
                if repr.check_supported().is_err() {
                    exp.malformed += 1;
                } else {
                    let ports = route_mask(f[DST_HOST_BYTE]);
                    exp.transit.push((f.to_vec(), tuser(port, ports)));
                }
            }
            FrameKind::Offload { repr, payload, .. } => exp.offload.push((
                f.to_vec(),
                (
                    frame_fields_of(f).unwrap().to_le_bytes(),
                    payload.len(),
                    repr.check_supported().is_err(),
                ),
            )),
            FrameKind::Malformed(_) => exp.malformed += 1,
        }
    }
}

/// Plain frames, mutated offload frames, and `hygiene`: runts of every length, giants (some
/// with a valid offload header, some of 64 KiB of garbage), frames of exactly the minimum and
/// maximum length, and frames the MAC marked bad.
fn traffic(rng: &mut SplitMix, n: usize, hygiene: bool) -> (Vec<Input>, Expected) {
    let mut frames = Vec::new();
    let mut exp = Expected::default();
    let plain = plain_frames(rng);
    for i in 0..n {
        let port = (rng.next_u64() % 4) as usize;
        let mut bad = false;
        let f = match (i % 3, hygiene) {
            (0, _) => plain[(rng.next_u64() % plain.len() as u64) as usize]
                .1
                .clone(),
            (1, true) => {
                let mut f = match rng.next_u64() % 6 {
                    0 => vec![0u8; 1 + (rng.next_u64() % (MIN_FRAME as u64 + 8)) as usize],
                    1 => offload_frame(rng),
                    2 => vec![0u8; MAX_FRAME + 1 + (rng.next_u64() % 300) as usize],
                    3 => vec![0u8; [MIN_FRAME, MAX_FRAME, MIN_FRAME - 1][i % 3]],
                    4 if i % 4 == 1 => vec![0u8; 65536],
                    _ => plain[(rng.next_u64() % plain.len() as u64) as usize]
                        .1
                        .clone(),
                };
                // Garbage after the first bytes of a valid header: an offload giant.
                if f.len() > MAX_FRAME && i % 2 == 0 {
                    let head = offload_frame(rng);
                    f[..head.len()].copy_from_slice(&head);
                } else if f.iter().all(|&b| b == 0) {
                    f.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
                }
                bad = rng.next_u64().is_multiple_of(4);
                f
            }
            _ => {
                // Every other one is for this board (a board frame for it is the engine's).
                let mut f = if i % 2 == 0 {
                    offload_frame_for(rng, MY_BOARD)
                } else {
                    offload_frame(rng)
                };
                mutate(rng, &mut f);
                f
            }
        };
        expect(&mut exp, &f, port, bad);
        frames.push((f, port, bad));
    }
    (frames, exp)
}

fn check<R: Router>(seed: u64, idle: u64, ready: u64, hygiene: bool) {
    let mut rng = SplitMix(seed);
    let (frames, exp) = traffic(&mut rng, 600, hygiene);
    let out = run::<R>(&frames, idle, ready, ready, 0);
    assert!(ready == 100 || out.engine_waits.0 > 0);
    let bad_off = compare(&frames, &exp, &out);
    println!("{bad_off} offload frames reached the engine marked bad at their tail");
    assert!(
        bad_off > 0,
        "no offload frame was cut through and found bad at its tail"
    );
    assert!(
        exp.pass.len() > 100
            && exp.offload.len() > 30
            && exp.transit.len() > 5
            && exp.malformed > 50,
        "{} pass, {} offload, {} transit, {} malformed",
        exp.pass.len(),
        exp.offload.len(),
        exp.transit.len(),
        exp.malformed
    );
    if hygiene {
        assert!(
            exp.runts > 20 && exp.giants > 10 && exp.bad > 20,
            "{:?}",
            [exp.runts, exp.giants, exp.bad]
        );
    }
}

/// What came out against what `expect` says, output by output, and every counter; returns how
/// many offload frames reached the engine marked bad at their tail.
fn compare(frames: &[Input], exp: &Expected, out: &Run) -> usize {
    assert_eq!(
        out.engine_waits.1, out.engine_waits.0,
        "engine_waits: counted vs clocks an offload beat waited for the engine"
    );
    // Frames that leave marked bad are dropped downstream: only the good ones count.
    let good: Vec<_> = out
        .pass
        .frames
        .iter()
        .filter(|(_, user)| user >> TUSER_BAD_AT & 1 == 0)
        .collect();
    for (i, (got, want)) in good.iter().zip(&exp.pass).enumerate() {
        assert!(
            *got == want,
            "pass-through frame {i}: got {} bytes user {:#x}, want {} bytes user {:#x}",
            got.0.len(),
            got.1,
            want.0.len(),
            want.1
        );
    }
    assert_eq!(good.len(), exp.pass.len(), "pass-through frame count");
    let good_transit: Vec<_> = out
        .transit
        .frames
        .iter()
        .filter(|(_, user)| user >> TUSER_BAD_AT & 1 == 0)
        .collect();
    for (i, (got, want)) in good_transit.iter().zip(&exp.transit).enumerate() {
        assert!(
            *got == want,
            "transit frame {i}: got {} bytes user {:#x}, want {} bytes user {:#x}",
            got.0.len(),
            got.1,
            want.0.len(),
            want.1
        );
    }
    assert_eq!(good_transit.len(), exp.transit.len(), "transit frame count");
    // Frames marked bad at their tail reach the engine (it undoes what it did): only the good
    // ones count, each with the fields that came with it.
    let (good_off, good_metas): (Vec<_>, Vec<_>) = out
        .off
        .frames
        .iter()
        .zip(&out.metas)
        .filter(|((_, user), _)| user >> TUSER_BAD_AT & 1 == 0)
        .unzip();
    assert_eq!(out.off.frames.len(), out.metas.len());
    for (i, ((got, _), want)) in good_off.iter().zip(&exp.offload).enumerate() {
        assert!(
            got == &want.0,
            "offload frame {i}: got {} bytes (input frame {:?}), want {} (input frame {:?})",
            got.len(),
            frames.iter().position(|(f, _, _)| f == got),
            want.0.len(),
            frames.iter().position(|(f, _, _)| f == &want.0),
        );
        assert_eq!(
            *good_metas[i], want.1,
            "offload frame {i}: header, payload length, unsupported"
        );
    }
    assert_eq!(good_off.len(), exp.offload.len(), "offload frame count");
    assert_eq!(
        out.counters,
        [
            exp.pass.len() as u64,
            exp.offload.len() as u64,
            exp.malformed,
            exp.runts,
            exp.giants,
            exp.bad,
            0,
            exp.transit.len() as u64,
        ],
        "counters {COUNTERS:?}"
    );
    // Some were judged good from their header and found bad at their tail (truncated,
    // marked bad by their MAC): cut through, they reached the engine marked bad.
    out.off.frames.len() - good_off.len()
}

/// Frames of 33 to 64 bytes back to back on one port, every output ready or stalled at
/// random: plain frames of the Ethernet minimum and up to 64 bytes, offload and transit frames
/// without payload (64 bytes), runts, a quarter of each marked bad by its MAC. At 256 bits
/// each is two beats and ends at the beat its class is decided on, and the class is set a
/// clock later, as the next frame's first beat comes in (`late_end` in `frame_router.rs`):
/// every frame still goes where it should, its tail checked, each counted once.
fn minimum_frames<R: Router>(ready: u64) {
    let mut rng = SplitMix(51);
    let mut frames = Vec::new();
    let mut exp = Expected::default();
    let small = |rng: &mut SplitMix, pick: fn(&mut SplitMix) -> Vec<u8>| {
        std::iter::repeat_with(|| pick(rng))
            .find(|f| f.len() <= 64)
            .unwrap()
    };
    for i in 0..2000 {
        let f = match i % 4 {
            0 => {
                let len = MIN_FRAME + (rng.next_u64() % 5) as usize;
                (0..len).map(|_| rng.next_u64() as u8).collect()
            }
            1 => small(&mut rng, |r| offload_frame_for(r, MY_BOARD)),
            2 => small(&mut rng, offload_frame),
            _ => {
                let len = 33 + (rng.next_u64() % (MIN_FRAME as u64 - 33)) as usize;
                let mut f = small(&mut rng, offload_frame);
                f.truncate(len);
                f
            }
        };
        let bad = rng.next_u64().is_multiple_of(4);
        expect(&mut exp, &f, 2, bad);
        frames.push((f, 2, bad));
    }
    let out = run::<R>(&frames, 0, ready, ready, 0);
    let bad_off = compare(&frames, &exp, &out);
    println!(
        "{}-bit: {} pass, {} offload ({bad_off} more marked bad), {} transit, {} runts, {} bad",
        R::BYTES * 8,
        exp.pass.len(),
        exp.offload.len(),
        exp.transit.len(),
        exp.runts,
        exp.bad
    );
    assert!(
        exp.pass.len() > 300
            && exp.offload.len() > 100
            && exp.transit.len() > 50
            && exp.runts > 300
            && exp.bad > 300
    );
    // At 64 bits an offload frame's class is set before its last beat, so one marked bad
    // there reaches the engine so marked; at 256 bits its last beat is the deciding one, and
    // it is dropped as its class is set.
    if R::BYTES == 8 {
        assert!(bad_off > 50);
    } else {
        assert_eq!(bad_off, 0);
    }
}

/// Every kind at full rate with nothing blocking: a beat in and a beat out on every clock.
fn back_to_back<R: Router>() {
    let mut rng = SplitMix(11);
    let mut frames = Vec::new();
    let mut beats = 0;
    for _ in 0..50 {
        for (name, f) in plain_frames(&mut rng) {
            if name == "runt" {
                continue;
            }
            beats += f.len().div_ceil(R::BYTES);
            frames.push((f, HOST_PORT, false));
        }
    }
    let out = run::<R>(&frames, 0, 100, 100, 0);
    assert_eq!(out.pass.frames.len(), frames.len());
    assert_eq!(out.counters[0], frames.len() as u64);
    // 32 clocks end the run. Cut-through puts the output a few clocks behind the input (the
    // candidate rule's beat); beyond that a beat leaves on every clock, with no bubble between
    // frames.
    let busy = out.cycles - 32;
    println!("{beats} beats in {busy} clocks");
    assert!(busy <= beats + 8, "{beats} beats took {busy} clocks");
}

/// The engine stalls (its port not ready) while plain and offload frames arrive back to back:
/// the offload buffer fills, further offload frames are dropped and counted, and every plain
/// frame still leaves, its first beat a few clocks after it came in (printed); once the engine
/// runs again, the offload frames it took reach it whole.
fn isolation<R: Router>() {
    let mut rng = SplitMix(21);
    let plain: Vec<Vec<u8>> = plain_frames(&mut rng)
        .into_iter()
        .filter(|(name, _)| *name != "runt" && *name != "jumbo udp")
        .map(|(_, f)| f)
        .collect();
    let mut frames = Vec::new();
    let mut exp = Expected::default();
    for i in 0..400 {
        // Engine frames only: a transit frame never reaches the engine.
        let f = if i % 2 == 0 {
            plain[i / 2 % plain.len()].clone()
        } else {
            std::iter::repeat_with(|| offload_frame(&mut rng))
                .find(|f| !is_transit(f))
                .unwrap()
        };
        expect(&mut exp, &f, 1, false);
        frames.push((f, 1, false));
    }
    let stall = 200_000;
    let out = run::<R>(&frames, 0, 100, 100, stall);
    assert_eq!(
        out.pass.frames, exp.pass,
        "plain frames, in order, unchanged"
    );
    let passing: Vec<usize> = (0..frames.len()).step_by(2).collect();
    let delays: Vec<usize> = out
        .pass_firsts
        .iter()
        .zip(&passing)
        .map(|(o, &i)| o - out.starts[i])
        .collect();
    let worst = *delays.iter().max().unwrap();
    let [_, offloaded, _, _, _, _, busy, _] = out.counters;
    println!(
        "{}-bit, engine stalled: plain frames' first beat in -> first beat out {}..={worst} clocks; \
         {offloaded} offload frames buffered, {busy} dropped (engine busy)",
        R::BYTES * 8,
        delays.iter().min().unwrap(),
    );
    assert!(busy > 0 && offloaded > 0, "the buffer fills and then drops");
    assert_eq!(offloaded + busy, exp.offload.len() as u64);
    // Every offload frame that reached the engine is one that was sent, in order.
    let mut want = exp.offload.iter();
    for (got, _) in &out.off.frames {
        assert!(
            want.any(|(w, _)| w == got),
            "an offload frame out of order or changed"
        );
    }
    // First beat out within a few clocks of first beat in (the candidate rule's beat plus the
    // buffer's two clocks): the stalled engine costs plain traffic nothing.
    assert!(worst <= 8, "a plain frame waited {worst} clocks");
    assert!(out.cycles > stall);
}

/// Short frames back to back while the pass-through output is mostly stalled: a runt that is
/// long enough to be classed (it leaves marked bad) waits at the head, one-beat runts (dropped
/// as they are classed) queue behind it, so the class FIFO fills. No class may be lost (at 64
/// bits a class is written a clock after its beat was taken: the input stops at three queued,
/// not four); every frame is counted once, every plain frame leaves whole.
fn short_frames<R: Router>() {
    let mut rng = SplitMix(41);
    let mut frames = Vec::new();
    let mut exp = Expected::default();
    let mut ones = 0;
    for _ in 0..3000 {
        let len = match rng.next_u64() % 8 {
            0..=3 => {
                ones += 1;
                1 + (rng.next_u64() % R::BYTES as u64) as usize
            }
            4..=6 => R::BYTES + 1 + (rng.next_u64() % (MIN_FRAME - R::BYTES - 1) as u64) as usize,
            _ => MIN_FRAME + (rng.next_u64() % 40) as usize,
        };
        let f: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let bad = rng.next_u64().is_multiple_of(8);
        expect(&mut exp, &f, 2, bad);
        frames.push((f, 2, bad));
    }
    let out = run::<R>(&frames, 0, 10, 100, 0);
    let good: Vec<_> = out
        .pass
        .frames
        .iter()
        .filter(|(_, user)| user >> TUSER_BAD_AT & 1 == 0)
        .cloned()
        .collect();
    assert_eq!(good.len(), exp.pass.len(), "plain frames out");
    assert!(good == exp.pass, "plain frames, in order, unchanged");
    assert_eq!(
        out.counters,
        [
            exp.pass.len() as u64,
            0,
            exp.malformed,
            exp.runts,
            exp.giants,
            exp.bad,
            0,
            0,
        ],
        "counters {COUNTERS:?}"
    );
    assert!(ones > 1000 && exp.pass.len() > 200 && exp.runts > 1500);
}

/// Valid board frames for other boards of every length, back to back with plain frames, the
/// input without gaps and every output ready: each transit frame leaves whole, toward its
/// route, its beats on consecutive clocks (the output queues may cut it through to a MAC), its
/// first beat a few clocks after it came in (printed).
fn transit_without_gaps<R: Router>() {
    let mut rng = SplitMix(31);
    let plain: Vec<Vec<u8>> = plain_frames(&mut rng)
        .into_iter()
        .filter(|(name, _)| *name != "runt")
        .map(|(_, f)| f)
        .collect();
    let mut frames = Vec::new();
    let mut exp = Expected::default();
    for i in 0..200 {
        let f = if i % 3 == 2 {
            plain[i % plain.len()].clone()
        } else {
            std::iter::repeat_with(|| offload_frame(&mut rng))
                .find(|f| {
                    is_transit(f)
                        && matches!(classify(f), FrameKind::Offload { repr, .. }
                            if repr.check_supported().is_ok())
                })
                .unwrap()
        };
        expect(&mut exp, &f, 2, false);
        frames.push((f, 2, false));
    }
    let out = run::<R>(&frames, 0, 100, 100, 0);
    assert_eq!(out.transit.frames, exp.transit, "transit frames, in order");
    assert_eq!(out.pass.frames, exp.pass, "plain frames, in order");
    let mut gaps = 0;
    for w in out.transit_beats.windows(2) {
        if !w[0].1 && w[1].0 != w[0].0 + 1 {
            gaps += 1;
        }
    }
    assert_eq!(gaps, 0, "a transit frame left with a gap");
    let firsts: Vec<usize> = std::iter::once(out.transit_beats[0].0)
        .chain(
            out.transit_beats
                .windows(2)
                .filter(|w| w[0].1)
                .map(|w| w[1].0),
        )
        .collect();
    let transit_in: Vec<usize> = (0..frames.len())
        .filter(|i| i % 3 != 2)
        .map(|i| out.starts[i])
        .collect();
    let delays: Vec<usize> = firsts.iter().zip(&transit_in).map(|(o, i)| o - i).collect();
    println!(
        "{}-bit transit frames ({} to {} bytes): first beat in -> first beat out {}..={} clocks, no gaps",
        R::BYTES * 8,
        exp.transit.iter().map(|f| f.0.len()).min().unwrap(),
        exp.transit.iter().map(|f| f.0.len()).max().unwrap(),
        delays.iter().min().unwrap(),
        delays.iter().max().unwrap()
    );
}

#[test]
fn minimum_frames_back_to_back_64() {
    minimum_frames::<FrameRouter64>(100);
    minimum_frames::<FrameRouter64>(40);
}
#[test]
fn minimum_frames_back_to_back_256() {
    minimum_frames::<FrameRouter256>(100);
    minimum_frames::<FrameRouter256>(40);
}
#[test]
fn transit_frames_leave_without_gaps_64() {
    transit_without_gaps::<FrameRouter64>();
}
#[test]
fn transit_frames_leave_without_gaps_256() {
    transit_without_gaps::<FrameRouter256>();
}
#[test]
fn frames_route_and_drop_64() {
    check::<FrameRouter64>(1, 30, 70, false);
}
#[test]
fn frames_route_and_drop_256() {
    check::<FrameRouter256>(2, 30, 70, false);
}
#[test]
fn runts_giants_and_bad_frames_are_dropped_and_counted_64() {
    check::<FrameRouter64>(5, 20, 80, true);
}
#[test]
fn runts_giants_and_bad_frames_are_dropped_and_counted_256() {
    check::<FrameRouter256>(6, 20, 80, true);
}
#[test]
fn back_pressure_never_loses_a_frame_64() {
    check::<FrameRouter64>(3, 0, 20, false);
}
#[test]
fn back_pressure_never_loses_a_frame_256() {
    check::<FrameRouter256>(4, 0, 20, false);
}
#[test]
fn short_frames_queue_behind_a_stalled_output_64() {
    short_frames::<FrameRouter64>();
}
#[test]
fn short_frames_queue_behind_a_stalled_output_256() {
    short_frames::<FrameRouter256>();
}
#[test]
fn full_rate_64() {
    back_to_back::<FrameRouter64>();
}
#[test]
fn full_rate_256() {
    back_to_back::<FrameRouter256>();
}
#[test]
fn a_stalled_engine_never_delays_plain_frames_64() {
    isolation::<FrameRouter64>();
}
#[test]
fn a_stalled_engine_never_delays_plain_frames_256() {
    isolation::<FrameRouter256>();
}

//! The frame builder through Verilator at both widths: random header entries — with a CIPE
//! payload of 1 to 2048 bytes, with a 4-byte inline record, or header only — and the CIPE's
//! result beats, under random gaps and back-pressure. Every frame must be exactly header +
//! payload bytes (the last beat's tkeep from the payload length), in entry order, with the
//! entry's destination mask in tuser[15:8]. And with the output always ready, every frame
//! leaves without a gap when its payload beats come a beat per clock once they start (the CIPE),
//! however late they start: the output queues cut engine frames through.

use std::collections::VecDeque;

use collwire_hdl::frame_builder::entry;
use collwire_sim::axis::{Sink, beats};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::{FrameBuilder64, FrameBuilder256};

trait Builder: Default {
    const BYTES: usize;
    fn drive(&mut self, entry: Option<&[u8]>, beat: Option<(&[u8], bool)>, ready: bool);
    fn eval(&mut self);
    fn tick(&mut self);
    fn entry_ready(&self) -> bool;
    fn in_ready(&self) -> bool;
    fn out(&self) -> Option<(Vec<u8>, u64, bool, u16)>;
    fn frames(&self) -> u64;
}

macro_rules! builder {
    ($ty:ty, $bytes:expr) => {
        impl Builder for $ty {
            const BYTES: usize = $bytes;
            fn drive(&mut self, entry: Option<&[u8]>, beat: Option<(&[u8], bool)>, ready: bool) {
                if let Some(e) = entry {
                    self.set_s_entry_tdata_bytes(e);
                }
                self.set_s_entry_tvalid(u64::from(entry.is_some()));
                if let Some((data, last)) = beat {
                    self.set_s_axis_tdata_bytes(data);
                    self.set_s_axis_tlast(u64::from(last));
                }
                self.set_s_axis_tvalid(u64::from(beat.is_some()));
                self.set_m_axis_tready(u64::from(ready));
            }
            fn eval(&mut self) {
                <$ty>::eval(self)
            }
            fn tick(&mut self) {
                <$ty>::tick(self)
            }
            fn entry_ready(&self) -> bool {
                self.s_entry_tready() == 1
            }
            fn in_ready(&self) -> bool {
                self.s_axis_tready() == 1
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
            fn frames(&self) -> u64 {
                <$ty>::frames(self)
            }
        }
    };
}
builder!(FrameBuilder64, 8);
builder!(FrameBuilder256, 32);

fn run<B: Builder>(seed: u64, idle: u64, ready: u64) {
    let mut rng = SplitMix(seed);
    let mut entries: VecDeque<Vec<u8>> = VecDeque::new();
    let mut payload_beats: VecDeque<(Vec<u8>, bool)> = VecDeque::new();
    let mut want: Vec<(Vec<u8>, u16)> = Vec::new();
    for _ in 0..300 {
        let header: [u8; 64] = std::array::from_fn(|_| rng.next_u64() as u8);
        let mask = rng.next_u64() as u8;
        let mut frame = header.to_vec();
        match rng.next_u64() % 4 {
            0 => {
                let record = (rng.next_u64() as u32).to_le_bytes();
                entries.push_back(entry(&header, mask, 4, false, Some(record)));
                frame.extend_from_slice(&record);
            }
            1 => entries.push_back(entry(&header, mask, 0, false, None)),
            _ => {
                let len = if rng.next_u64().is_multiple_of(3) {
                    1 + (rng.next_u64() % 2048) as usize
                } else {
                    1 + (rng.next_u64() % 64) as usize
                };
                let words = len.div_ceil(B::BYTES);
                // The CIPE computes whole words; bytes past the payload are don't-care.
                let data: Vec<u8> = (0..words * B::BYTES)
                    .map(|_| rng.next_u64() as u8)
                    .collect();
                for b in beats(&data, B::BYTES, 0) {
                    payload_beats.push_back((b.data, b.last));
                }
                entries.push_back(entry(&header, mask, len as u16, true, None));
                frame.extend_from_slice(&data[..len]);
            }
        }
        want.push((frame, u16::from(mask) << 8));
    }
    let mut dut = B::default();
    let mut sink = Sink::new(seed ^ 0x55, ready);
    let mut offer_beat = false;
    let mut cycles = 0;
    while sink.frames.len() < want.len() {
        cycles += 1;
        assert!(cycles < 2_000_000, "builder stalled");
        if !offer_beat {
            offer_beat = rng.next_u64() % 100 >= idle;
        }
        let beat = payload_beats.front().filter(|_| offer_beat).cloned();
        let r = sink.ready();
        dut.drive(
            entries.front().map(|e| e.as_slice()),
            beat.as_ref().map(|(d, l)| (d.as_slice(), *l)),
            r,
        );
        dut.eval();
        if !entries.is_empty() && dut.entry_ready() {
            entries.pop_front();
        }
        if beat.is_some() && dut.in_ready() {
            payload_beats.pop_front();
            offer_beat = false;
        }
        if r && let Some((data, keep, last, user)) = dut.out() {
            sink.accept(&data, keep, last, user);
        }
        dut.tick();
    }
    assert!(payload_beats.is_empty(), "payload beats left over");
    for (k, (got, exp)) in sink.frames.iter().zip(&want).enumerate() {
        assert!(
            got == exp,
            "frame {k}: {} bytes, want {}",
            got.0.len(),
            exp.0.len()
        );
    }
    dut.eval();
    assert_eq!(dut.frames(), want.len() as u64);
}

#[test]
fn frames_64() {
    run::<FrameBuilder64>(1, 30, 70);
    run::<FrameBuilder64>(2, 0, 100);
}

#[test]
fn frames_256() {
    run::<FrameBuilder256>(3, 30, 70);
    run::<FrameBuilder256>(4, 0, 100);
}

/// The CIPE produces each payload a beat per clock, after a random pause (0..60 clocks) between
/// payloads, into a queue the builder reads; the output is always ready. Every frame's beats
/// must leave on consecutive clocks.
/// A payload beat: data, last.
type Beat = (Vec<u8>, bool);

fn gapless<B: Builder>(seed: u64) {
    let mut rng = SplitMix(seed);
    let mut entries: VecDeque<Vec<u8>> = VecDeque::new();
    // Per CIPE payload: its beats, and the pause before the CIPE starts producing it.
    let mut payloads: VecDeque<(Vec<Beat>, u64)> = VecDeque::new();
    let frames = 200;
    for _ in 0..frames {
        let header: [u8; 64] = std::array::from_fn(|_| rng.next_u64() as u8);
        if rng.next_u64().is_multiple_of(4) {
            entries.push_back(entry(&header, 1, 0, false, None));
            continue;
        }
        let len = 1 + (rng.next_u64() % 1500) as usize;
        let data: Vec<u8> = (0..len.div_ceil(B::BYTES) * B::BYTES)
            .map(|_| rng.next_u64() as u8)
            .collect();
        let bs = beats(&data, B::BYTES, 0)
            .into_iter()
            .map(|b| (b.data, b.last))
            .collect();
        payloads.push_back((bs, rng.next_u64() % 60));
        entries.push_back(entry(&header, 1, len as u16, true, None));
    }
    let mut dut = B::default();
    let mut produced: VecDeque<(Vec<u8>, bool)> = VecDeque::new();
    let mut pause = payloads.front().map_or(0, |p| p.1);
    let mut out_clocks: Vec<Vec<u64>> = Vec::new();
    let mut in_frame = false;
    let mut seen = 0;
    for cycle in 0..400_000u64 {
        // The CIPE: a beat per clock of the current payload once its pause is over.
        if pause > 0 {
            pause -= 1;
        } else if let Some((bs, _)) = payloads.front_mut() {
            produced.push_back(bs.remove(0));
            if bs.is_empty() {
                payloads.pop_front();
                pause = payloads.front().map_or(0, |p| p.1);
            }
        }
        let head = produced.front().cloned();
        dut.drive(
            entries.front().map(|e| e.as_slice()),
            head.as_ref().map(|(d, l)| (d.as_slice(), *l)),
            true,
        );
        dut.eval();
        if !entries.is_empty() && dut.entry_ready() {
            entries.pop_front();
        }
        if head.is_some() && dut.in_ready() {
            produced.pop_front();
        }
        if let Some((_, _, last, _)) = dut.out() {
            if !in_frame {
                out_clocks.push(Vec::new());
            }
            out_clocks.last_mut().unwrap().push(cycle);
            in_frame = !last;
            seen += usize::from(last);
        }
        dut.tick();
        if seen == frames {
            break;
        }
    }
    assert_eq!(seen, frames, "every frame left");
    for (k, clocks) in out_clocks.iter().enumerate() {
        for pair in clocks.windows(2) {
            assert_eq!(
                pair[1],
                pair[0] + 1,
                "{}-bit frame {k}: a gap after the beat of clock {}",
                8 * B::BYTES,
                pair[0]
            );
        }
    }
}

#[test]
fn frames_leave_without_gaps_64() {
    gapless::<FrameBuilder64>(5);
}

#[test]
fn frames_leave_without_gaps_256() {
    gapless::<FrameBuilder256>(6);
}

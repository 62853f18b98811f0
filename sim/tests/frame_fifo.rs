//! The board's one FIFO (`hdl/src/frame_fifo.rs`, eight one-byte words here) through
//! Verilator against a model of what its doc promises, in each of its three modes, under random
//! writes, reads, frame ends, drops and resets on every clock, as built with its RAM's write
//! port direct and registered (which must not change what the read side sees, or when):
//!
//! * **frame mode**: a frame's words are seen from two clocks after its last word was written;
//!   a frame whose last word comes with `drop` is discarded whole;
//! * **cut-through**: a word is seen from two clocks after it was written (`early`: one), and
//!   `drop` discards nothing;
//! * in every mode: words leave in order, `full` refuses words once 2^N are stored or being
//!   written, `almost_full` is high one clock after `almost_level` or more were, `room` one
//!   clock after at most 2^N - 2 were (so a writer gated by `room` is never refused), `idle`
//!   high exactly while every word written has been read and no frame is open (one shorter
//!   than 2^(N+1) words), and `reset` empties it (the flags low a clock later).

use std::collections::VecDeque;

use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::{FrameFifo, FrameFifoRw};

const SIZE: usize = 8;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Frames,
    CutThrough,
    Early,
}

#[derive(Default)]
struct Model {
    /// Words the read side will see, each with the first clock it may see it.
    words: VecDeque<(u64, u64)>,
    /// The frame being written (frame mode): not seen until its last word.
    pending: Vec<u64>,
    /// Words stored or being written at the start of the last clock, or `None` after a reset.
    before: Option<usize>,
    /// Words written since the last `last` (the open frame's, in every mode).
    open: usize,
}

impl Model {
    fn stored(&self) -> usize {
        self.words.len() + self.pending.len()
    }
    fn full(&self) -> bool {
        self.stored() == SIZE
    }
    fn head(&self, now: u64) -> Option<u64> {
        self.words
            .front()
            .filter(|&&(_, from)| from <= now)
            .map(|&(w, _)| w)
    }
}

#[derive(Default, Debug, PartialEq)]
struct Seen {
    pops: usize,
    refused: usize,
    no_room: usize,
    almost: usize,
    dropped: usize,
    resets: usize,
    idle: usize,
}

/// The run against the model, for each build of the FIFO.
macro_rules! runner {
    ($name:ident, $dut:ty) => {
        fn $name(mode: Mode, seed: u64, level: usize) -> Seen {
            let mut rng = SplitMix(seed);
            let mut dut = <$dut>::default();
            let mut m = Model::default();
            let mut seen = Seen::default();
            dut.set_cut_through(u64::from(mode != Mode::Frames));
            dut.set_keep_bad(u64::from(mode != Mode::Frames));
            dut.set_early(u64::from(mode == Mode::Early));
            dut.set_almost_level(level as u64);
            for now in 0..60_000u64 {
                // Bursts: mostly writing, then mostly reading, so it fills and drains.
                let filling = (now / 41) % 2 == 0;
                let write = rng.next_u64() % 4 < if filling { 3 } else { 1 };
                let read = rng.next_u64() % 4 < if filling { 1 } else { 3 };
                // Frames of one to seven words (never longer than the FIFO: such a frame would wait
                // forever, as the doc says).
                let last = write && (m.pending.len() == 6 || rng.next_u64().is_multiple_of(3));
                let drop = last && rng.next_u64().is_multiple_of(4);
                let reset = rng.next_u64().is_multiple_of(3_000);
                let data = rng.next_u64() & 0xff;
                dut.set_write(u64::from(write));
                dut.set_read(u64::from(read));
                dut.set_last(u64::from(last));
                dut.set_drop(u64::from(drop));
                dut.set_reset(u64::from(reset));
                dut.set_data_in(data);
                dut.eval();
                let head = m.head(now);
                let at = format!("{mode:?}, clock {now}");
                assert_eq!(dut.empty() == 1, head.is_none(), "{at}: empty");
                if let Some(word) = head {
                    assert_eq!(dut.data_out(), word, "{at}: head");
                }
                assert_eq!(dut.full() == 1, m.full(), "{at}: full");
                let before = m.before.unwrap_or(0);
                let almost = m.before.is_some_and(|n| n >= level);
                let room = m.before.is_none_or(|n| n < SIZE - 1);
                assert_eq!(dut.almost_full() == 1, almost, "{at}: almost_full");
                assert_eq!(
                    dut.room() == 1,
                    room,
                    "{at}: room ({before} stored a clock ago)"
                );
                assert!(!(room && m.full()), "{at}: room while full");
                // `idle` compares pointers of N + 1 bits: it holds for open frames shorter
                // than 2^(N+1) words (the doc; only cut-through frames here may be longer).
                if m.open < 2 * SIZE {
                    let idle = m.words.is_empty() && m.open == 0;
                    assert_eq!(dut.idle() == 1, idle, "{at}: idle");
                    seen.idle += usize::from(idle);
                }
                seen.almost += usize::from(almost);
                seen.no_room += usize::from(!room);
                seen.refused += usize::from(write && m.full());
                dut.tick();
                m.before = Some(m.stored());
                let push = write && !m.full();
                if read && head.is_some() {
                    m.words.pop_front();
                    seen.pops += 1;
                }
                if push {
                    m.open = if last { 0 } else { m.open + 1 };
                    match mode {
                        Mode::Frames => {
                            m.pending.push(data);
                            if last && drop {
                                m.pending.clear();
                                seen.dropped += 1;
                            } else if last {
                                m.words.extend(m.pending.drain(..).map(|w| (w, now + 2)));
                            }
                        }
                        Mode::CutThrough => m.words.push_back((data, now + 2)),
                        Mode::Early => m.words.push_back((data, now + 1)),
                    }
                }
                if reset {
                    m = Model::default();
                    seen.resets += 1;
                }
            }
            seen
        }
    };
}

runner!(run_direct, FrameFifo);
runner!(run_registered, FrameFifoRw);

fn run(mode: Mode, seed: u64, level: usize) -> Seen {
    let direct = run_direct(mode, seed, level);
    let registered = run_registered(mode, seed, level);
    assert_eq!(
        direct, registered,
        "{mode:?}: the two builds saw different runs"
    );
    direct
}

#[test]
fn frame_mode_matches_its_model() {
    let seen = run(Mode::Frames, 51, 5);
    assert!(
        seen.pops > 10_000
            && seen.refused > 500
            && seen.no_room > 2_000
            && seen.almost > 5_000
            && seen.dropped > 1_000
            && seen.resets > 10
            && seen.idle > 1_000,
        "{seen:?}"
    );
}

#[test]
fn cut_through_matches_its_model() {
    for (mode, seed, level) in [(Mode::CutThrough, 52, 6), (Mode::Early, 53, 3)] {
        let seen = run(mode, seed, level);
        assert!(
            seen.pops > 10_000
                && seen.refused > 500
                && seen.no_room > 2_000
                && seen.almost > 5_000
                && seen.idle > 1_000,
            "{mode:?}: {seen:?}"
        );
    }
}

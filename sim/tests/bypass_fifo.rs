//! The bypass FIFO (`hdl/src/bypass_fifo.rs`, eight words of a byte here) through Verilator
//! against a queue: every word comes out once, in order, unchanged; `empty` low only with a
//! word to read; a word written while the FIFO is empty and nothing was written on the clock
//! before is the head on the next clock, any other word no later than two clocks after it was
//! written once every older word has gone; `full` only with at least six words held (the
//! block-RAM FIFO's room, from a flip-flop: seven words a clock ago, one popped since at most),
//! never with five or fewer; `reset` empties it; `empty_next` and `data_next` are `empty` and
//! `data_out` a clock later. Random writes,
//! reads and resets on every clock, in bursts so that it fills and drains; each read is given a
//! clock ahead, on `read_next`, which the FIFO registers.
//!
//! And clock for clock against [`Reference`], a model of the first design (a register in front
//! of a block-RAM FIFO whose words show two clocks after their write): the router's verdict
//! queue and the frame builder's entry queue sit on the engine hop, so when a word shows is
//! part of the board's timing, and a new design must keep it.

use std::collections::VecDeque;

use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::BypassFifo;

/// When each word shows, as the first design had it: a word goes into the register (`early`,
/// shown the next clock) if the RAM FIFO holds nothing, none went into it on the clock before,
/// and the register is empty or read this clock; any other word into the RAM FIFO, whose head
/// shows from two clocks after its write, behind the register.
#[derive(Default)]
struct Reference {
    early: Option<u64>,
    /// Words in the RAM FIFO, with the clock each was written.
    ram: VecDeque<(u64, u64)>,
}

impl Reference {
    /// The head shown on `cycle`, if any.
    fn head(&self, cycle: u64) -> Option<u64> {
        self.early.or(self
            .ram
            .front()
            .filter(|&&(_, at)| at + 2 <= cycle)
            .map(|&(w, _)| w))
    }

    fn tick(&mut self, cycle: u64, read: bool, push: Option<u64>, reset: bool) {
        let shown = self.head(cycle).is_some();
        let pop_early = read && self.early.is_some();
        let ram_empty = self.ram.is_empty();
        if read && shown && !pop_early {
            self.ram.pop_front();
        }
        if pop_early {
            self.early = None;
        }
        if let Some(w) = push {
            if ram_empty && self.early.is_none() {
                self.early = Some(w);
            } else {
                self.ram.push_back((w, cycle));
            }
        }
        if reset {
            *self = Self::default();
        }
    }
}

#[test]
fn bypass_fifo_matches_a_queue_and_shows_a_word_written_into_it_empty_a_clock_later() {
    let mut rng = SplitMix(45);
    let mut dut = BypassFifo::default();
    // (word, cycle written, written into an empty and quiet FIFO).
    let mut q: VecDeque<(u64, u64, bool)> = VecDeque::new();
    let mut wrote_last = false;
    // The clock from which the head may be read (the older words have gone).
    let mut front_since = 0u64;
    let mut reference = Reference::default();
    let (mut fast, mut reads, mut fulls) = (0, 0, 0);
    // `empty_next` / `data_next` of the clock before (what the head is now).
    let mut ahead: Option<(bool, u64)> = None;
    // `read` is chosen a clock ahead and given as `read_next`: the FIFO's read of the next clock.
    let mut read = false;
    for cycle in 0..60_000u64 {
        let phase = (cycle / 41) % 3;
        let write = rng.next_u64() % 4 < [3, 1, 2][phase as usize];
        let read_next = rng.next_u64() % 4 < [1, 3, 2][phase as usize];
        let reset = rng.next_u64().is_multiple_of(3_000);
        let data = rng.next_u64() & 0xff;
        dut.set_write(u64::from(write));
        dut.set_read_next(u64::from(read_next));
        dut.set_reset(u64::from(reset));
        dut.set_data_in(data);
        dut.eval();
        let empty = dut.empty() == 1;
        if let Some((e, d)) = ahead {
            assert_eq!(empty, e, "cycle {cycle}: empty against empty_next");
            if !empty {
                assert_eq!(dut.data_out(), d, "cycle {cycle}: head against data_next");
            }
        }
        ahead = Some((dut.empty_next() == 1, dut.data_next()));
        if let Some(&(word, at, quiet)) = q.front() {
            let due = if quiet {
                at + 1
            } else {
                (at + 2).max(front_since)
            };
            if cycle >= due {
                assert!(
                    !empty,
                    "cycle {cycle}: the word written at {at} is not out yet"
                );
            }
            if !empty {
                assert_eq!(dut.data_out(), word, "cycle {cycle}: head");
            }
        } else {
            assert!(empty, "cycle {cycle}: not empty with nothing held");
        }
        assert_eq!(
            reference.head(cycle),
            (!empty).then(|| dut.data_out()),
            "cycle {cycle}: the head against the first design's"
        );
        let full = dut.full() == 1;
        if full {
            assert!(q.len() >= 6, "cycle {cycle}: full with {} words", q.len());
            fulls += 1;
        }
        assert!(q.len() <= 9, "cycle {cycle}: {} words held", q.len());
        dut.tick();
        reference.tick(cycle, read, (write && !full).then_some(data), reset);
        let quiet = q.is_empty() && !wrote_last;
        if read && !empty {
            q.pop_front();
            reads += 1;
            front_since = cycle + 1;
        }
        if write && !full {
            fast += usize::from(quiet);
            q.push_back((data, cycle, quiet));
        }
        wrote_last = write && !full;
        read = read_next;
        if reset {
            q.clear();
            wrote_last = false;
        }
    }
    assert!(
        reads > 10_000 && fast > 1_000 && fulls > 500,
        "{reads} reads, {fast} fast, {fulls} full"
    );
}

//! The bypass FIFO (`hdl/src/bypass_fifo.rs`, eight words of a byte here) through Verilator
//! against a queue: every word comes out once, in order, unchanged; `empty` low only with a
//! word to read; a word written while the FIFO is empty and nothing was written on the clock
//! before is the head on the next clock, any other word no later than two clocks after it was
//! written once every older word has gone; `full` only with at least six words held (the
//! block-RAM FIFO's room, from a flip-flop: seven words a clock ago, one popped since at most),
//! never with five or fewer; `reset` empties it. Random writes,
//! reads and resets on every clock, in bursts so that it fills and drains.

use std::collections::VecDeque;

use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::BypassFifo;

#[test]
fn bypass_fifo_matches_a_queue_and_shows_a_word_written_into_it_empty_a_clock_later() {
    let mut rng = SplitMix(45);
    let mut dut = BypassFifo::default();
    // (word, cycle written, written into an empty and quiet FIFO).
    let mut q: VecDeque<(u64, u64, bool)> = VecDeque::new();
    let mut wrote_last = false;
    // The clock from which the head may be read (the older words have gone).
    let mut front_since = 0u64;
    let (mut fast, mut reads, mut fulls) = (0, 0, 0);
    for cycle in 0..60_000u64 {
        let phase = (cycle / 41) % 3;
        let write = rng.next_u64() % 4 < [3, 1, 2][phase as usize];
        let read = rng.next_u64() % 4 < [1, 3, 2][phase as usize];
        let reset = rng.next_u64().is_multiple_of(3_000);
        let data = rng.next_u64() & 0xff;
        dut.set_write(u64::from(write));
        dut.set_read(u64::from(read));
        dut.set_reset(u64::from(reset));
        dut.set_data_in(data);
        dut.eval();
        let empty = dut.empty() == 1;
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
        let full = dut.full() == 1;
        if full {
            assert!(q.len() >= 6, "cycle {cycle}: full with {} words", q.len());
            fulls += 1;
        }
        assert!(q.len() <= 9, "cycle {cycle}: {} words held", q.len());
        dut.tick();
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

//! The statistics register file through Verilator: random event patterns for thousands of
//! clocks, every counter read back by index equals the number of clocks its bit was high
//! (a Rust model of the counters; an event counts a clock after it came: the events are
//! registered), reads past the last counter give 0, and `reset` zeroes all, events on its
//! clock included.

use collwire_hdl::statistics::{STAT_INDEX_BITS, STATS, stat_index, stat_names};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::Statistics;

fn read(dut: &mut Statistics, index: usize) -> u64 {
    dut.set_read_index(index as u64);
    dut.eval();
    dut.read_data()
}

#[test]
fn every_counter_counts_its_own_events() {
    let mut rng = SplitMix(2026);
    let mut dut = Statistics::default();
    dut.set_reset(1);
    dut.tick();
    dut.set_reset(0);
    let mut model = [0u64; STATS];
    // The events of the last clock, registered: counted at the next edge.
    let mut pending = 0u64;
    for clock in 0..5000 {
        // Sparse and dense phases; each counter with its own rate.
        let events = if clock % 1000 < 500 {
            rng.next_u64() & rng.next_u64()
        } else {
            rng.next_u64()
        } & ((1 << STATS) - 1);
        dut.set_events(events);
        dut.tick();
        for (i, m) in model.iter_mut().enumerate() {
            *m += pending >> i & 1;
        }
        pending = events;
        if clock % 997 == 0 {
            let i = (rng.next_u64() as usize) % STATS;
            assert_eq!(read(&mut dut, i), model[i], "clock {clock}: counter {i}");
        }
    }
    dut.set_events(0);
    // Not counted yet: the last clock's events wait in their register.
    if pending != 0 {
        let i = pending.trailing_zeros() as usize;
        assert_eq!(read(&mut dut, i), model[i], "the last events counted early");
    }
    dut.tick();
    for (i, m) in model.iter_mut().enumerate() {
        *m += pending >> i & 1;
    }
    for (i, name) in stat_names().iter().enumerate() {
        assert_eq!(read(&mut dut, i), model[i], "{name}");
    }
    assert!(
        model.iter().all(|&m| m > 1000),
        "every counter moved: {model:?}"
    );
    for i in STATS..1 << STAT_INDEX_BITS {
        assert_eq!(read(&mut dut, i), 0, "slot {i} has no counter");
    }
    // One event on one line counts there only.
    let retired = stat_index("retired").unwrap();
    dut.set_events(1 << retired);
    dut.tick();
    dut.set_events(0);
    dut.tick();
    for (i, m) in model.iter().enumerate() {
        let want = m + u64::from(i == retired);
        assert_eq!(read(&mut dut, i), want, "counter {i}");
    }
    // Reset zeroes every counter, even with events present on the same clock.
    dut.set_events((1 << STATS) - 1);
    dut.set_reset(1);
    dut.tick();
    dut.set_reset(0);
    dut.set_events(0);
    dut.tick();
    for i in 0..STATS {
        assert_eq!(read(&mut dut, i), 0, "counter {i} after reset");
    }
}

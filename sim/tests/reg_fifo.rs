//! The four-entry flip-flop FIFO (`hdl/src/reg_fifo.rs`) through Verilator against a model of
//! what it promises: `data_out` the entry at the read pointer (the word written last into that
//! slot, even when empty), `empty` / `full` / `almost_full` (three words or four) from the
//! pointers, writes while full and reads
//! while empty ignored, `reset` empties it and zeroes every entry. Its head, `empty` and `full` come
//! out of registers kept equal to that; random writes, reads and resets on every clock.

use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::RegFifo4;

#[derive(Default)]
struct Model {
    entries: [u64; 4],
    read_at: usize,
    write_at: usize,
}

impl Model {
    fn empty(&self) -> bool {
        self.read_at == self.write_at
    }
    fn full(&self) -> bool {
        (self.read_at ^ self.write_at) == 4
    }
    fn words(&self) -> usize {
        (self.write_at + 8 - self.read_at) % 8
    }
    fn head(&self) -> u64 {
        self.entries[self.read_at % 4]
    }
}

#[test]
fn fifo_matches_its_model_under_random_traffic() {
    let mut rng = SplitMix(44);
    let mut dut = RegFifo4::default();
    let mut m = Model::default();
    let (mut pops, mut fulls, mut bypass, mut threes) = (0, 0, 0, 0);
    for cycle in 0..50_000 {
        // Bursts: mostly writing, then mostly reading, so it fills and drains.
        let phase = (cycle / 37) % 2 == 0;
        let write = rng.next_u64() % 4 < if phase { 3 } else { 1 };
        let read = rng.next_u64() % 4 < if phase { 1 } else { 3 };
        let reset = rng.next_u64().is_multiple_of(2_000);
        let data = rng.next_u64() & 0xff;
        dut.set_write(u64::from(write));
        dut.set_read(u64::from(read));
        dut.set_reset(u64::from(reset));
        dut.set_data_in(data);
        dut.eval();
        assert_eq!(dut.data_out(), m.head(), "cycle {cycle}: head");
        assert_eq!(dut.empty() == 1, m.empty(), "cycle {cycle}: empty");
        assert_eq!(dut.full() == 1, m.full(), "cycle {cycle}: full");
        assert_eq!(
            dut.almost_full() == 1,
            m.words() >= 3,
            "cycle {cycle}: almost_full"
        );
        threes += usize::from(m.words() == 3);
        dut.tick();
        let push = write && !m.full();
        let pop = read && !m.empty();
        if push {
            if m.empty() || (pop && (m.write_at + 8 - m.read_at) % 8 == 1) {
                bypass += 1;
            }
            m.entries[m.write_at % 4] = data;
            m.write_at = (m.write_at + 1) % 8;
        }
        if pop {
            m.read_at = (m.read_at + 1) % 8;
            pops += 1;
        }
        fulls += usize::from(m.full());
        if reset {
            m = Model::default();
        }
    }
    assert!(
        pops > 10_000 && fulls > 1_000 && bypass > 1_000 && threes > 1_000,
        "{pops} {fulls} {bypass} {threes}"
    );
}

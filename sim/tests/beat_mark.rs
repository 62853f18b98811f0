//! The router's beat flags through Verilator (`collwire_beat_mark`, emitted for a mark of 5):
//! from power-on and through random steps and restarts (frames of 0 to 12 beats, idle clocks,
//! restarts on the same clock as a step, counting past the mark), `at` is `beat == 5` and
//! `below` is `beat < 5` on every clock, for a counter kept here as the router keeps `w_beat`.

use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::BeatMark;

const MARK: u64 = 5;

#[test]
fn the_flags_follow_the_counter_on_every_clock() {
    let mut dut = BeatMark::default();
    let mut rng = SplitMix(0x6ea7);
    let mut beat = 0u64;
    let (mut at_seen, mut below_seen, mut above_seen) = (0, 0, 0);
    for clock in 0..20_000 {
        dut.set_beat(beat);
        dut.eval();
        assert_eq!(
            dut.at(),
            u64::from(beat == MARK),
            "clock {clock}: beat {beat}"
        );
        assert_eq!(
            dut.below(),
            u64::from(beat < MARK),
            "clock {clock}: beat {beat}"
        );
        at_seen += usize::from(beat == MARK);
        below_seen += usize::from(beat < MARK);
        above_seen += usize::from(beat > MARK);
        let r = rng.next_u64();
        let step = !r.is_multiple_of(4);
        // A frame's last beat: mostly after a few beats, sometimes at once.
        let restart = r >> 8 & 0xff < if beat < 12 { 24 } else { 255 };
        dut.set_step(u64::from(step));
        dut.set_restart(u64::from(restart));
        dut.tick();
        if restart {
            beat = 0;
        } else if step {
            beat += 1;
        }
    }
    assert!(at_seen > 500 && below_seen > 5000 && above_seen > 2000);
}

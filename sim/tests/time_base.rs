//! The time base through Verilator: the prescaler ticks once every `period` clocks, the pin
//! ticks whenever it is high, period 0 holds the count still, and reset restarts it.

use collwire_sim::models::TimeBase;

/// Clocks `n` times; returns the clocks (0-based) on which `age_tick` was high.
fn ticks(dut: &mut TimeBase, n: u64, pin: impl Fn(u64) -> bool) -> Vec<u64> {
    let mut out = Vec::new();
    for i in 0..n {
        dut.set_pin(u64::from(pin(i)));
        dut.tick();
        if dut.age_tick() == 1 {
            out.push(i);
        }
    }
    out
}

#[test]
fn the_prescaler_ticks_once_per_period_and_the_pin_whenever_high() {
    let mut dut = TimeBase::default();
    dut.set_period(0);
    assert!(ticks(&mut dut, 50, |_| false).is_empty());
    // The pin's ticks, a clock later (registered).
    assert_eq!(ticks(&mut dut, 10, |i| i == 3 || i == 4), vec![3, 4]);
    dut.set_period(7);
    let t = ticks(&mut dut, 40, |_| false);
    assert_eq!(t.len(), 40 / 7, "{t:?}");
    assert!(t.windows(2).all(|w| w[1] - w[0] == 7), "{t:?}");
    // Reset restarts the count: the first tick after it is a whole period later.
    dut.set_reset(1);
    dut.tick();
    dut.set_reset(0);
    assert_eq!(ticks(&mut dut, 10, |_| false), vec![6]);
}

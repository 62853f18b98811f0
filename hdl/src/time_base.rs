//! The board's time base: the tick (`age_tick`) that ages the CFE's open contexts
//! ([`crate::context_table`]).
//!
//! A tick comes from the `pin` (the board's `age_tick` pin) (the simulator and `collwire serve` drive it from
//! simulated or wall time; on hardware a PPS or a management core can) or from the prescaler:
//! with `period` = N > 0 (the `cfg::TICK_PERIOD` register) one clock in every N is a tick.
//! `period` = 0 turns the prescaler off (it then holds still). `reset` restarts the count.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct TimeBase {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Clocks per prescaler tick; 0: ticks come from `pin` only.
    pub period: Signal<In, Bits<32>>,
    pub pin: Signal<In, Bit>,
    /// One clock per tick, registered.
    pub age_tick: Signal<Out, Bit>,
    count: DFF<Bits<32>>,
    pulse: DFF<Bit>,
    /// The count's last clock of a period.
    wrap: Signal<Local, Bit>,
}

impl Logic for TimeBase {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, pulse);
        self.wrap.next = (self.count.q.val() + bits::<32>(1)) >= self.period.val();
        self.pulse.d.next = self.pin.val();
        if self.period.val() != bits::<32>(0) {
            self.count.d.next = self.count.q.val() + bits::<32>(1);
            if self.wrap.val() {
                self.count.d.next = bits::<32>(0);
                self.pulse.d.next = true;
            }
        }
        if self.reset.val() {
            self.count.d.next = bits::<32>(0);
            self.pulse.d.next = false;
        }
        self.age_tick.next = self.pulse.q.val();
    }
}

/// One time-base tick: 100 ms. Context ages count these.
pub const TICK_MS: u64 = 100;

/// A segment that made no progress for this many ticks (60 s) is reclaimed, unless the
/// configuration says otherwise ([`crate::cfe::cfg::RECLAIM`]). Waiting ranks retransmit
/// (at least every 2 s, the driver's largest retransmission timeout) and every retransmission
/// refreshes its context, so only a segment whose ranks are gone ages this far.
pub const RECLAIM_DEFAULT_TICKS: u32 = 600;

/// The prescaler period ([`crate::cfe::cfg::TICK_PERIOD`]) that makes one tick every
/// [`TICK_MS`] at a clock of `mhz`.
pub fn prescaler_period(mhz: u32) -> u32 {
    mhz * 1000 * TICK_MS as u32
}

//! Where a frame's beat counter stands against one beat index (`mark`), kept in two
//! flip-flops a clock ahead: `at` is `beat == mark`, `below` is `beat < mark`, valid on every
//! clock the counter is. The router's runt, giant, deciding and header-start tests compared
//! its 16-bit counter with their marks behind the counter's flip-flops, in front of the beat's
//! last flag, its class and the tail's statistics (`router.w_beat` → `router.tail_q`, 8
//! cells, board64's worst path at 4deefba, seed 2); now each is a flip-flop.
//!
//! The counter this follows goes to 0 on `restart` (a frame's last beat taken, a reset) and
//! one up on `step` (`restart` wins), and is 0 at power-on; so are the flags' own next values,
//! compared with the counter's present value against `mark - 1`.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BeatMark {
    pub clock: Signal<In, Clock>,
    /// The counter goes to 0 on this clock.
    pub restart: Signal<In, Bit>,
    /// The counter goes one up on this clock (unless `restart`).
    pub step: Signal<In, Bit>,
    /// The counter's present value.
    pub beat: Signal<In, Bits<16>>,
    /// `beat == mark`, `beat < mark`.
    pub at: Signal<Out, Bit>,
    pub below: Signal<Out, Bit>,
    /// `mark - 1` (the counter one up reaches `mark` from there; `before` is a Verilog
    /// keyword), and `mark == 0`.
    one_short: Constant<Bits<16>>,
    zero: Constant<Bit>,
    at_q: DFFWithInit<Bit>,
    below_q: DFFWithInit<Bit>,
    /// The flip-flops' next values, each assigned to its flip-flop once (a flip-flop with a
    /// power-on value has logic of its own: `collwire_flow::verilog_lint`).
    next_at: Signal<Local, Bit>,
    next_below: Signal<Local, Bit>,
}

impl BeatMark {
    /// Flags for the beat index `mark` (a counter at 0 at power-on: `at` is `mark == 0`).
    pub fn new(mark: u16) -> BeatMark {
        BeatMark {
            clock: Default::default(),
            restart: Default::default(),
            step: Default::default(),
            beat: Default::default(),
            at: Default::default(),
            below: Default::default(),
            one_short: Constant::new(bits::<16>(u64::from(mark.saturating_sub(1)))),
            zero: Constant::new(mark == 0),
            at_q: DFFWithInit::new(mark == 0),
            below_q: DFFWithInit::new(mark != 0),
            next_at: Default::default(),
            next_below: Default::default(),
        }
    }
}

impl Logic for BeatMark {
    #[hdl_gen]
    fn update(&mut self) {
        self.at_q.clock.next = self.clock.val();
        self.below_q.clock.next = self.clock.val();
        self.next_at.next = self.at_q.q.val();
        self.next_below.next = self.below_q.q.val();
        if self.step.val() {
            // The counter one up: at `mark` from `mark - 1`, below it from below that (a
            // mark of 0 is never reached counting up: the counter does not wrap).
            self.next_at.next = (self.beat.val() == self.one_short.val()) & !self.zero.val();
            self.next_below.next = (self.beat.val() < self.one_short.val()) & !self.zero.val();
        }
        if self.restart.val() {
            self.next_at.next = self.zero.val();
            self.next_below.next = !self.zero.val();
        }
        self.at_q.d.next = self.next_at.val();
        self.below_q.d.next = self.next_below.val();
        self.at.next = self.at_q.q.val();
        self.below.next = self.below_q.q.val();
    }
}

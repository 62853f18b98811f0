//! An AXI-Stream FIFO, as verilog-ethernet's `axis_fifo`: beats enter on `s_axis` while
//! `s_axis_tready` (not full), leave on `m_axis` in order while `m_axis_tvalid`, 2^`DL` beats of
//! RAM ([`FrameFifo`], its write port registered);
//! `reset` empties it.
//!
//! * `cut_through` high: a beat can leave two clocks after it entered, one with `early` (the
//!   router's ingress and offload buffers, both `early`, [`crate::frame_router`]; a frame found
//!   bad at its tail leaves with its last beat marked).
//! * `cut_through` low, **frame mode**: a frame is seen on `m_axis` only once its `tlast` beat is
//!   in, and a frame whose `tlast` beat carries the bad bit (`tuser` [`TUSER_BAD_AT`]) is
//!   discarded whole (every output queue, [`crate::output_queues`], which chooses per
//!   frame).
//!
//! A beat is stored as one `BB`-bit word: `tdata` in bits `W-1:0`, `tkeep` from bit `W`,
//! `tlast` at bit `LAST`, `tuser` from bit `USER` (`LAST = W + K`, `USER = LAST + 1`,
//! `BB = USER + 16`, `DL1 = DL + 1`) — the one place that layout is written.

use rust_hdl::prelude::*;

use crate::axis::{AxisSink, AxisSource, TUSER_BAD_AT, TUSER_BITS, check_widths};
use crate::frame_fifo::FrameFifo;

#[derive(LogicBlock)]
#[allow(non_snake_case)] // `W`, `LAST`, `USER`: localparams named as the parameters
pub struct AxisFifo<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous: the FIFO is empty after the clock edge.
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<W, K>,
    pub m_axis: AxisSource<W, K>,
    /// Beats are seen on `m_axis` as they are written (high), or whole frames only (low).
    pub cut_through: Signal<In, Bit>,
    /// With a bad frame's last beat: keep it ([`FrameFifo`]'s `keep_bad`; high at the last
    /// beat of a frame cut through).
    pub keep_bad: Signal<In, Bit>,
    /// With `cut_through`: a beat written on cycle `t` leaves from `t + 1`, not `t + 2`
    /// ([`FrameFifo`]'s `early`).
    pub early: Signal<In, Bit>,
    /// `almost_full` is high while this many beats or more are stored or being written.
    pub almost_level: Signal<In, Bits<DL1>>,
    pub almost_full: Signal<Out, Bit>,
    /// From a register, conservative: a beat can be written this clock ([`FrameFifo`]'s
    /// `room`); `s_axis_tready` is exact but starts at the pointers.
    pub room: Signal<Out, Bit>,
    /// [`FrameFifo`]'s `idle`: no beat stored, no frame open.
    pub idle: Signal<Out, Bit>,
    beats: FrameFifo<Bits<BB>, DL, DL1>,
    bad_at: Constant<Bits<16>>,
    W: Constant<Bits<16>>,
    LAST: Constant<Bits<16>>,
    USER: Constant<Bits<16>>,
}

impl<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
> Default for AxisFifo<W, K, BB, LAST, USER, DL, DL1>
{
    fn default() -> Self {
        check_widths(W, K);
        assert!(LAST == W + K && USER == LAST + 1 && BB == USER + TUSER_BITS && DL1 == DL + 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            cut_through: Default::default(),
            keep_bad: Default::default(),
            early: Default::default(),
            almost_level: Default::default(),
            almost_full: Default::default(),
            room: Default::default(),
            idle: Default::default(),
            beats: FrameFifo::registered_write(),
            bad_at: Constant::new(bits::<16>(TUSER_BAD_AT as u64)),
            W: Constant::new(bits::<16>(W as u64)),
            LAST: Constant::new(bits::<16>(LAST as u64)),
            USER: Constant::new(bits::<16>(USER as u64)),
        }
    }
}

impl<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
> AxisFifo<W, K, BB, LAST, USER, DL, DL1>
{
    /// The registered-write FIFO with `room` a beat sooner ([`FrameFifo::staged_writer`]):
    /// for a writer with a register between its room check and `s_axis`.
    pub fn staged() -> Self {
        Self {
            beats: FrameFifo::registered_write().staged_writer(),
            ..Default::default()
        }
    }
}

impl<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
> Logic for AxisFifo<W, K, BB, LAST, USER, DL, DL1>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.beats.clock.next = self.clock.val();
        self.beats.reset.next = self.reset.val();
        self.s_axis.tready.next = !self.beats.full.val();
        self.beats.write.next = self.s_axis.tvalid.val();
        self.beats.last.next = self.s_axis.tlast.val();
        self.beats.drop.next = self.s_axis.tuser.val().get_bit(self.bad_at.val().index());
        self.beats.cut_through.next = self.cut_through.val();
        self.beats.keep_bad.next = self.keep_bad.val();
        self.beats.early.next = self.early.val();
        self.beats.room_gate.next = false;
        self.beats.almost_level.next = self.almost_level.val();
        self.almost_full.next = self.beats.almost_full.val();
        self.room.next = self.beats.room.val();
        self.idle.next = self.beats.idle.val();
        self.beats.data_in.next = bit_cast::<BB, W>(self.s_axis.tdata.val())
            | (bit_cast::<BB, K>(self.s_axis.tkeep.val()) << self.W.val())
            | (bit_cast::<BB, 1>(self.s_axis.tlast.val().into()) << self.LAST.val())
            | (bit_cast::<BB, 16>(self.s_axis.tuser.val()) << self.USER.val());
        self.m_axis.tvalid.next = !self.beats.empty.val();
        self.beats.read.next = self.m_axis.tready.val();
        self.m_axis.tdata.next = self.beats.data_out.val().get_bits::<W>(0);
        self.m_axis.tkeep.next = self.beats.data_out.val().get_bits::<K>(W);
        self.m_axis.tlast.next = self.beats.data_out.val().get_bit(LAST);
        self.m_axis.tuser.next = self.beats.data_out.val().get_bits::<16>(USER);
    }
}

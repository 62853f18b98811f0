//! An AXI-Stream FIFO, as verilog-ethernet's `axis_fifo` without frame mode: beats enter on
//! `s_axis` while `s_axis_tready` (not full), leave on `m_axis` in order while `m_axis_tvalid`
//! (not empty), 2^`DL` beats of block RAM ([`crate::fifo`]); `reset` empties it.
//!
//! A beat is stored as one `BB`-bit word: `tdata` in bits `W-1:0`, `tkeep` from bit `W`,
//! `tlast` at bit `LAST`, `tuser` from bit `USER` (`LAST = W + K`, `USER = LAST + 1`,
//! `BB = USER + 16`, `DL1 = DL + 1`) — the one place that layout is written. The router's frame
//! buffer ([`crate::frame_router`]) and every output queue ([`crate::output_queues`]) are one.

use rust_hdl::prelude::*;

use crate::axis::{AxisSink, AxisSource, TUSER_BITS, check_widths};
use crate::fifo::Fifo;

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
    beats: Fifo<Bits<BB>, DL, DL1, 1>,
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
            beats: Default::default(),
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
> Logic for AxisFifo<W, K, BB, LAST, USER, DL, DL1>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.beats.clock.next = self.clock.val();
        self.beats.reset.next = self.reset.val();
        // In: the FIFO takes a beat only while not full.
        self.s_axis.tready.next = !self.beats.full.val();
        self.beats.write.next = self.s_axis.tvalid.val();
        self.beats.data_in.next = bit_cast::<BB, W>(self.s_axis.tdata.val())
            | (bit_cast::<BB, K>(self.s_axis.tkeep.val()) << self.W.val())
            | (bit_cast::<BB, 1>(self.s_axis.tlast.val().into()) << self.LAST.val())
            | (bit_cast::<BB, 16>(self.s_axis.tuser.val()) << self.USER.val());
        // Out: the head beat, popped by `tready` (ignored while empty).
        self.m_axis.tvalid.next = !self.beats.empty.val();
        self.beats.read.next = self.m_axis.tready.val();
        self.m_axis.tdata.next = self.beats.data_out.val().get_bits::<W>(0);
        self.m_axis.tkeep.next = self.beats.data_out.val().get_bits::<K>(W);
        self.m_axis.tlast.next = self.beats.data_out.val().get_bit(LAST);
        self.m_axis.tuser.next = self.beats.data_out.val().get_bits::<16>(USER);
    }
}

//! Output queues: one frame stream in, one queue per port out; a frame goes to every port in its
//! `tuser[15:8]` destination mask at once (multicast: the collective engine sends one result to
//! the host and to its partners in the same pass).
//!
//! * A full queue back-pressures the input (`s_axis_tready` low) — nothing is dropped silently.
//!   A frame whose destination mask is empty has nowhere to go: it is dropped and counted
//!   (`queue_drops`, [`crate::statistics`]).
//! * Frame mode: a port starts sending a frame only when the whole frame is in its queue, so a
//!   MAC never sees a gap inside a frame even when a multicast stalls on another port. Each queue
//!   therefore holds 16 KiB, more than one jumbo frame.
//! * The destination mask is taken from the first beat and held for the frame.
//!
//! One block for both builds: [`OutputQueues64`] (4 ports) and [`OutputQueues256`] (5 ports).

use rust_hdl::prelude::*;

use crate::axis::{AxisSink, AxisSource, TUSER_BITS, TUSER_DST_AT, check_widths};
use crate::fifo::Fifo;
use crate::statistics::StatEvents;

/// One queue per port: `N` ports of `W`-bit beats (`K` keep bits); a stored beat is `BB` bits
/// (`tdata`, `tkeep`, `tlast` at bit `LAST`, `tuser` from bit `USER`); 2^`DL` beats a queue
/// (`DL1 = DL + 1`).
#[allow(non_snake_case)] // `W`, `LAST`, `USER`: localparams named as the parameters
#[derive(LogicBlock)]
pub struct OutputQueues<
    const W: usize,
    const K: usize,
    const N: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every queue empty, no frame open, the drop counter 0.
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<W, K>,
    pub m_axis: [AxisSource<W, K>; N],
    /// `queue_drops` ([`crate::statistics`]) on the clock a dropped frame ends.
    pub events: Signal<Out, StatEvents>,
    no_events: Constant<StatEvents>,
    ev: Signal<Local, StatEvents>,
    queues: [Fifo<Bits<BB>, DL, DL1, 1>; N],
    /// Complete frames in each queue (counted two clocks after their last beat is
    /// written, when the queue shows it).
    complete: [DFF<Bits<16>>; N],
    written_last: [DFF<Bit>; N],
    visible_last: [DFF<Bit>; N],
    in_frame: DFF<Bit>,
    held_mask: DFF<Bits<8>>,
    mask: Signal<Local, Bits<8>>,
    room: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    read: [Signal<Local, Bit>; N],
    /// Where `tkeep`, `tlast` and `tuser` sit in a stored beat (`tdata` at 0).
    W: Constant<Bits<16>>,
    LAST: Constant<Bits<16>>,
    USER: Constant<Bits<16>>,
    /// Where the destination mask starts in `tuser` ([`TUSER_DST_AT`]).
    dst_at: Constant<Bits<16>>,
}

impl<
    const W: usize,
    const K: usize,
    const N: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
> Default for OutputQueues<W, K, N, BB, LAST, USER, DL, DL1>
{
    fn default() -> Self {
        check_widths(W, K);
        assert!(LAST == W + K && USER == LAST + 1 && BB == USER + TUSER_BITS && DL1 == DL + 1);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: std::array::from_fn(|_| Default::default()),
            events: Default::default(),
            no_events: Constant::new(StatEvents::default()),
            ev: Default::default(),
            queues: std::array::from_fn(|_| Default::default()),
            complete: std::array::from_fn(|_| Default::default()),
            written_last: std::array::from_fn(|_| Default::default()),
            visible_last: std::array::from_fn(|_| Default::default()),
            in_frame: Default::default(),
            held_mask: Default::default(),
            mask: Default::default(),
            room: Default::default(),
            accept: Default::default(),
            read: std::array::from_fn(|_| Default::default()),
            W: Constant::new(bits::<16>(W as u64)),
            LAST: Constant::new(bits::<16>(LAST as u64)),
            USER: Constant::new(bits::<16>(USER as u64)),
            dst_at: Constant::new(bits::<16>(TUSER_DST_AT as u64)),
        }
    }
}

impl<
    const W: usize,
    const K: usize,
    const N: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
> Logic for OutputQueues<W, K, N, BB, LAST, USER, DL, DL1>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_frame, held_mask);
        self.ev.next = self.no_events.val();
        self.mask.next = self
            .s_axis
            .tuser
            .val()
            .get_bits::<8>(self.dst_at.val().index());
        if self.in_frame.q.val() {
            self.mask.next = self.held_mask.q.val();
        }
        // Room in every destination queue.
        self.room.next = true;
        for i in 0..N {
            if self.mask.val().get_bit(i) & self.queues[i].full.val() {
                self.room.next = false;
            }
        }
        self.s_axis.tready.next = self.room.val();
        self.accept.next = self.s_axis.tvalid.val() & self.room.val();
        if self.accept.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
            self.held_mask.d.next = self.mask.val();
            if self.s_axis.tlast.val() & (self.mask.val() == bits::<8>(0)) {
                self.ev.next.queue_drops = true;
            }
        }
        self.events.next = self.ev.val();
        for i in 0..N {
            self.queues[i].clock.next = self.clock.val();
            self.complete[i].clock.next = self.clock.val();
            self.written_last[i].clock.next = self.clock.val();
            self.visible_last[i].clock.next = self.clock.val();
            self.queues[i].write.next = self.accept.val() & self.mask.val().get_bit(i);
            self.queues[i].data_in.next = bit_cast::<BB, W>(self.s_axis.tdata.val())
                | (bit_cast::<BB, K>(self.s_axis.tkeep.val()) << self.W.val())
                | (bit_cast::<BB, 1>(self.s_axis.tlast.val().into()) << self.LAST.val())
                | (bit_cast::<BB, 16>(self.s_axis.tuser.val()) << self.USER.val());
            self.written_last[i].d.next =
                self.accept.val() & self.mask.val().get_bit(i) & self.s_axis.tlast.val();
            self.visible_last[i].d.next = self.written_last[i].q.val();
            // Send only frames that are wholly in the queue.
            self.m_axis[i].tvalid.next =
                !self.queues[i].empty.val() & (self.complete[i].q.val() != bits::<16>(0));
            self.m_axis[i].tdata.next = self.queues[i].data_out.val().get_bits::<W>(0);
            self.m_axis[i].tkeep.next = self.queues[i].data_out.val().get_bits::<K>(W);
            self.m_axis[i].tlast.next = self.queues[i].data_out.val().get_bit(LAST);
            self.m_axis[i].tuser.next = self.queues[i].data_out.val().get_bits::<16>(USER);
            self.read[i].next = self.m_axis[i].tvalid.val() & self.m_axis[i].tready.val();
            self.queues[i].read.next = self.read[i].val();
            self.complete[i].d.next = self.complete[i].q.val();
            if self.visible_last[i].q.val()
                & !(self.read[i].val() & self.queues[i].data_out.val().get_bit(LAST))
            {
                self.complete[i].d.next = self.complete[i].q.val() + bits::<16>(1);
            }
            if !self.visible_last[i].q.val()
                & self.read[i].val()
                & self.queues[i].data_out.val().get_bit(LAST)
            {
                self.complete[i].d.next = self.complete[i].q.val() - bits::<16>(1);
            }
            self.queues[i].reset.next = self.reset.val();
            if self.reset.val() {
                self.complete[i].d.next = bits::<16>(0);
                self.written_last[i].d.next = false;
                self.visible_last[i].d.next = false;
            }
        }
        if self.reset.val() {
            self.in_frame.d.next = false;
            self.held_mask.d.next = bits::<8>(0);
        }
    }
}

/// ZedBoard: host + 3 ports, 2048-beat (16 KiB) queues.
pub type OutputQueues64 = OutputQueues<64, 8, 4, 89, 72, 73, 11, 12>;
/// NetFPGA SUME: host + 4 ports, 512-beat (16 KiB) queues.
pub type OutputQueues256 = OutputQueues<256, 32, 5, 305, 288, 289, 9, 10>;

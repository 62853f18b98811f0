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

use crate::axis::{AxisSink, AxisSource, TUSER_DST_AT};
use crate::axis_fifo::AxisFifo;
use crate::statistics::StatEvents;

/// One queue per port: `N` ports of `W`-bit beats (`K` keep bits); a stored beat is `BB` bits
/// ([`AxisFifo`]: `tdata`, `tkeep`, `tlast` at bit `LAST`, `tuser` from bit `USER`); 2^`DL`
/// beats a queue (`DL1 = DL + 1`).
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
    queues: [AxisFifo<W, K, BB, LAST, USER, DL, DL1>; N],
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
        // AxisFifo checks W, K, BB, LAST, USER, DL1.
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
            if self.mask.val().get_bit(i) & !self.queues[i].s_axis.tready.val() {
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
            self.queues[i].s_axis.tvalid.next = self.accept.val() & self.mask.val().get_bit(i);
            self.queues[i].s_axis.tdata.next = self.s_axis.tdata.val();
            self.queues[i].s_axis.tkeep.next = self.s_axis.tkeep.val();
            self.queues[i].s_axis.tlast.next = self.s_axis.tlast.val();
            self.queues[i].s_axis.tuser.next = self.s_axis.tuser.val();
            self.written_last[i].d.next =
                self.accept.val() & self.mask.val().get_bit(i) & self.s_axis.tlast.val();
            self.visible_last[i].d.next = self.written_last[i].q.val();
            // Send only frames that are wholly in the queue.
            self.m_axis[i].tvalid.next =
                self.queues[i].m_axis.tvalid.val() & (self.complete[i].q.val() != bits::<16>(0));
            self.m_axis[i].tdata.next = self.queues[i].m_axis.tdata.val();
            self.m_axis[i].tkeep.next = self.queues[i].m_axis.tkeep.val();
            self.m_axis[i].tlast.next = self.queues[i].m_axis.tlast.val();
            self.m_axis[i].tuser.next = self.queues[i].m_axis.tuser.val();
            self.read[i].next = self.m_axis[i].tvalid.val() & self.m_axis[i].tready.val();
            self.queues[i].m_axis.tready.next = self.read[i].val();
            self.complete[i].d.next = self.complete[i].q.val();
            if self.visible_last[i].q.val()
                & !(self.read[i].val() & self.queues[i].m_axis.tlast.val())
            {
                self.complete[i].d.next = self.complete[i].q.val() + bits::<16>(1);
            }
            if !self.visible_last[i].q.val()
                & self.read[i].val()
                & self.queues[i].m_axis.tlast.val()
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

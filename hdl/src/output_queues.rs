//! Output queues: one frame stream in, one queue per port out; a frame goes to every port in its
//! `tuser[15:8]` destination mask at once (multicast: the collective engine sends one result to
//! the host and to its partners in the same pass).
//!
//! * **Input stage**: every beat taken is registered with what was decided for it (its
//!   destination mask, cut-through, the bad-frame rule) before it is written to its queues,
//!   so the merge's grant in front ends at flip-flops beside the merge, not at the queues'
//!   pointers spread over the die. The stage costs no clock: an **idle** queue (nothing
//!   stored, no frame open: [`crate::frame_fifo`]'s `idle`) hands the staged beat of a frame
//!   cut through straight to its port (the bypass), and writes it only if the port does not
//!   take it. A queue that holds beats writes it, and it leaves behind them as before.
//! * A full queue (its registered `room` flag, low from 2^DL − 2 beats a clock ago, so the
//!   staged beat always fits: [`AxisFifo::staged`]) back-pressures the input
//!   (`s_axis_tready` low) — nothing is dropped silently.
//!   A frame whose destination mask is empty has nowhere to go: it is dropped and counted
//!   (`queue_drops`, [`crate::statistics`]).
//! * **Cut-through**: a port starts sending a frame a clock after its first beat came in (the
//!   queue forwards a beat past its block RAM, [`crate::frame_fifo`]'s `early`) —
//!   when the frame comes from a source that delivers a frame's beats on consecutive clocks
//!   (`gapless`, a mask of `tuser` source bits: the board's pass-through, transit and engine
//!   paths; the frame builder starts an engine frame only once its payload flows),
//!   every queue it goes to has room for a longest frame (`limits::MAX_FRAME` + one beat) as it
//!   starts, and it has more than one beat (a frame of one beat, a runt on either bus, goes in
//!   frame mode: whether a bad frame is kept is then read at its last beat from the register
//!   that holds the frame's mode, not from the queues' fill levels through the merge). The
//!   input then never waits inside the frame, so the queue never runs dry inside it: a MAC
//!   never sees a gap (underrun). A cut-through frame found bad at its last beat has
//!   already left in part: it leaves whole, its last beat marked bad, and the MAC aborts it
//!   (`tuser`, the board's `m_axis_*_tuser`).
//! * **Frame mode** ([`AxisFifo`]) for every other frame (a source not in `gapless`, or a
//!   queue short of room): a port starts sending a frame only when the whole frame is in its queue, so a MAC
//!   never sees a gap even when a multicast stalls on another port; a frame whose last beat is
//!   marked bad (a runt, a cut-off giant or a frame its MAC received bad, marked by the router,
//!   which counts it) is dropped by every queue it was written to, and never sent. Each queue
//!   holds 16 KiB, more than one jumbo frame (and the router's longest cut-off giant).
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
    /// Synchronous reset: every queue empty, no frame open.
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<W, K>,
    pub m_axis: [AxisSource<W, K>; N],
    /// The `tuser` source bits of the inputs whose frames arrive on consecutive clocks (may be
    /// cut through).
    pub gapless: Signal<In, Bits<8>>,
    /// `queue_drops` ([`crate::statistics`]) on the clock a dropped frame ends.
    pub events: Signal<Out, StatEvents>,
    /// The source offers a beat only when every queue of its destination mask has room (the
    /// board's merge, from `dst_ready`): a beat offered is taken without the queues' own room
    /// check on the write path (`s_axis_tready` still shows it). Low: the usual handshake.
    pub source_checks_room: Signal<In, Bit>,
    /// Bit `i`: queue `i` takes a beat now (the merge checks each source's own destinations
    /// against these and offers the granted beat only with room, so `s_axis_tready` is true
    /// for every beat it offers). From each queue's registered, conservative `room` (at most
    /// 2^DL − 3 beats a clock ago), not from its pointers' compare: the merge's grant and the
    /// queue's write enable then start at a flip-flop (the pointers → full → `dst_ready` →
    /// grant → write enable chain was board64's worst on both seeds at a7bede0 with the
    /// proxy's `no_rw_check`, 8.9–9.3 ns). The input stage's beat always fits.
    /// The bits above the last queue are set: a destination bit with no queue is ignored, as
    /// the queues' own room check does.
    pub dst_ready: Signal<Out, Bits<8>>,
    /// Bit `i`: queue `i` has room for a longest frame (its `almost_full` flip-flop low); the
    /// bits above the last queue are set. With `source_decides_cut`, the source decides a
    /// frame's cut-through from these at its first beat and hands the answer in with it
    /// (`s_axis_cut`): a frame is cut through when it comes from a `gapless` source, has more
    /// than one beat, and every queue of its destination mask has room for a longest frame.
    pub roomy: Signal<Out, Bits<8>>,
    /// The source's cut-through answer for the beat offered, read at a frame's first beat.
    /// (The board's merge computes it on each of its inputs' beats beside its grant and passes
    /// the granted one: the grant → the merged beat's mask → every queue's room → the choice
    /// was board64's worst path on seed 1 at b9cf617 + 1, 9 cells.)
    pub s_axis_cut: Signal<In, Bit>,
    /// Take `s_axis_cut` instead of deciding on the merged beat. Low: the queues decide.
    pub source_decides_cut: Signal<In, Bit>,
    /// Bit `i` of a destination mask.
    queue_bit: [Constant<Bits<8>>; N],
    /// The destination bits with no queue.
    no_queue: Constant<Bits<8>>,
    ready_bits: Signal<Local, Bits<8>>,
    roomy_bits: Signal<Local, Bits<8>>,
    no_events: Constant<StatEvents>,
    ev: Signal<Local, StatEvents>,
    queues: [AxisFifo<W, K, BB, LAST, USER, DL, DL1>; N],
    /// `almost_level` of a queue: room for a longest frame (plus the flag's delay and the
    /// input stage's beat) is left below it.
    room_level: Constant<Bits<DL1>>,
    in_frame: DFF<Bit>,
    held_mask: DFF<Bits<8>>,
    /// The input stage: the beat taken on the clock before, with what was decided for it
    /// (its destination mask, cut-through, keep a bad last beat). The queues are written
    /// from these flip-flops, so the merge's grant ends here and not at the queues' pointers
    /// spread over the die (board64's worst paths at f2f8eb6: the router → the merge's grant
    /// → a queue's write pointer, 11–14 cells, 6.4–7.5 ns of routing).
    b_valid: DFF<Bit>,
    b_mask: DFF<Bits<8>>,
    b_cut: DFF<Bit>,
    b_keep_bad: DFF<Bit>,
    b_data: DFF<Bits<W>>,
    b_keep: DFF<Bits<K>>,
    b_last: DFF<Bit>,
    b_user: DFF<Bits<16>>,
    /// Bit `i`: the staged beat goes straight to port `i` (queue `i` is idle and the frame is
    /// cut through), so the stage costs no clock: a beat still leaves the clock after the
    /// merge offered it.
    bypass: Signal<Local, Bits<8>>,
    /// Bit `i`: port `i` takes the bypassed beat now (it is not written to queue `i`).
    taken: Signal<Local, Bits<8>>,
    /// The frame being written is cut through.
    held_cut: DFF<Bit>,
    cut: Signal<Local, Bit>,
    /// Every destination queue has room for a longest frame.
    all_room: Signal<Local, Bit>,
    mask: Signal<Local, Bits<8>>,
    room: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
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
        // AxisFifo checks W, K, BB, LAST, USER, DL1. A queue holds the longest frame.
        assert!(collwire_proto::limits::MAX_FRAME / K < 1 << DL);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: std::array::from_fn(|_| Default::default()),
            events: Default::default(),
            dst_ready: Default::default(),
            roomy: Default::default(),
            s_axis_cut: Default::default(),
            source_decides_cut: Default::default(),
            source_checks_room: Default::default(),
            queue_bit: std::array::from_fn(|i| Constant::new(bits::<8>(1 << i))),
            no_queue: Constant::new(bits::<8>(0xff & !((1u64 << N) - 1))),
            ready_bits: Default::default(),
            roomy_bits: Default::default(),
            no_events: Constant::new(StatEvents::default()),
            ev: Default::default(),
            queues: std::array::from_fn(|_| AxisFifo::staged()),
            room_level: Constant::new(bits::<DL1>(
                ((1 << DL) - (collwire_proto::limits::MAX_FRAME / K + 1 + 3)) as u64,
            )),
            held_cut: Default::default(),
            cut: Default::default(),
            all_room: Default::default(),
            gapless: Default::default(),
            in_frame: Default::default(),
            held_mask: Default::default(),
            b_valid: Default::default(),
            b_mask: Default::default(),
            b_cut: Default::default(),
            b_keep_bad: Default::default(),
            b_data: Default::default(),
            b_keep: Default::default(),
            b_last: Default::default(),
            b_user: Default::default(),
            bypass: Default::default(),
            taken: Default::default(),
            mask: Default::default(),
            room: Default::default(),
            accept: Default::default(),
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
        dff_setup!(
            self, clock, in_frame, held_mask, held_cut, b_valid, b_mask, b_cut, b_keep_bad, b_data,
            b_keep, b_last, b_user
        );
        self.ev.next = self.no_events.val();
        self.mask.next = self
            .s_axis
            .tuser
            .val()
            .get_bits::<8>(self.dst_at.val().index());
        if self.in_frame.q.val() {
            self.mask.next = self.held_mask.q.val();
        }
        // Room in every destination queue: for this beat, and for a longest frame.
        self.room.next = true;
        self.all_room.next = true;
        for i in 0..N {
            if self.mask.val().get_bit(i) & !self.queues[i].room.val() {
                self.room.next = false;
            }
            if self.mask.val().get_bit(i) & self.queues[i].almost_full.val() {
                self.all_room.next = false;
            }
        }
        // Cut through: decided at the first beat, held for the frame.
        self.cut.next = self.all_room.val()
            & !self.s_axis.tlast.val()
            & ((self.s_axis.tuser.val().get_bits::<8>(0) & self.gapless.val()) != bits::<8>(0));
        if self.source_decides_cut.val() {
            self.cut.next = self.s_axis_cut.val();
        }
        if self.in_frame.q.val() {
            self.cut.next = self.held_cut.q.val();
        }
        self.s_axis.tready.next = self.room.val();
        self.accept.next =
            self.s_axis.tvalid.val() & (self.room.val() | self.source_checks_room.val());
        // `held_mask` and `held_cut` are read only inside a frame, and are loaded on every
        // clock outside one (a frame is entered only as its first beat is taken, which loads
        // them too): their load enable is `in_frame` alone, not the merge's handshake.
        if !self.in_frame.q.val() {
            self.held_mask.d.next = self.mask.val();
            self.held_cut.d.next = self.cut.val();
        }
        if self.accept.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
        }
        // A frame for no port, counted as its last beat leaves the input stage (a clock after
        // the merge offered it): from the stage's flip-flops, not from the merged beat (the
        // merge's grant → the beat's mask → the statistics register was board64's worst path
        // on seed 4 at b472d6b, 9 cells).
        if self.b_valid.q.val() & self.b_last.q.val() & (self.b_mask.q.val() == bits::<8>(0)) {
            self.ev.next.queue_drops = true;
        }
        self.events.next = self.ev.val();
        self.ready_bits.next = self.no_queue.val();
        for i in 0..N {
            if self.queues[i].room.val() {
                self.ready_bits.next = self.ready_bits.val() | self.queue_bit[i].val();
            }
        }
        self.dst_ready.next = self.ready_bits.val();
        self.roomy_bits.next = self.no_queue.val();
        for i in 0..N {
            if !self.queues[i].almost_full.val() {
                self.roomy_bits.next = self.roomy_bits.val() | self.queue_bit[i].val();
            }
        }
        self.roomy.next = self.roomy_bits.val();
        // The input stage.
        self.b_valid.d.next = self.accept.val();
        self.b_mask.d.next = self.mask.val();
        self.b_cut.d.next = self.cut.val();
        // A last beat cut through is never a first one.
        self.b_keep_bad.d.next = self.in_frame.q.val() & self.held_cut.q.val();
        self.b_data.d.next = self.s_axis.tdata.val();
        self.b_keep.d.next = self.s_axis.tkeep.val();
        self.b_last.d.next = self.s_axis.tlast.val();
        self.b_user.d.next = self.s_axis.tuser.val();
        self.bypass.next = bits::<8>(0);
        self.taken.next = bits::<8>(0);
        for i in 0..N {
            if self.b_valid.q.val()
                & self.b_mask.q.val().get_bit(i)
                & self.b_cut.q.val()
                & self.queues[i].idle.val()
            {
                self.bypass.next = self.bypass.val() | self.queue_bit[i].val();
            }
        }
        for i in 0..N {
            if self.bypass.val().get_bit(i)
                & self.m_axis[i].tready.val()
                & !self.queues[i].m_axis.tvalid.val()
            {
                self.taken.next = self.taken.val() | self.queue_bit[i].val();
            }
        }
        for i in 0..N {
            self.queues[i].clock.next = self.clock.val();
            self.queues[i].reset.next = self.reset.val();
            self.queues[i].almost_level.next = self.room_level.val();
            self.queues[i].cut_through.next = self.b_cut.q.val() & self.b_mask.q.val().get_bit(i);
            self.queues[i].keep_bad.next = self.b_keep_bad.q.val();
            // Cutting through, a beat leaves the clock after it came.
            self.queues[i].early.next = true;
            self.queues[i].s_axis.tvalid.next = self.b_valid.q.val()
                & self.b_mask.q.val().get_bit(i)
                & !self.taken.val().get_bit(i);
            self.queues[i].s_axis.tdata.next = self.b_data.q.val();
            self.queues[i].s_axis.tkeep.next = self.b_keep.q.val();
            self.queues[i].s_axis.tlast.next = self.b_last.q.val();
            self.queues[i].s_axis.tuser.next = self.b_user.q.val();
            // A queue shows whole frames, or a frame cut through from a gapless source: a
            // port never waits inside one. An idle queue shows the staged beat of a frame cut
            // through.
            self.m_axis[i].tvalid.next =
                self.queues[i].m_axis.tvalid.val() | self.bypass.val().get_bit(i);
            if self.queues[i].m_axis.tvalid.val() {
                self.m_axis[i].tdata.next = self.queues[i].m_axis.tdata.val();
                self.m_axis[i].tkeep.next = self.queues[i].m_axis.tkeep.val();
                self.m_axis[i].tlast.next = self.queues[i].m_axis.tlast.val();
                self.m_axis[i].tuser.next = self.queues[i].m_axis.tuser.val();
            } else {
                self.m_axis[i].tdata.next = self.b_data.q.val();
                self.m_axis[i].tkeep.next = self.b_keep.q.val();
                self.m_axis[i].tlast.next = self.b_last.q.val();
                self.m_axis[i].tuser.next = self.b_user.q.val();
            }
            self.queues[i].m_axis.tready.next = self.m_axis[i].tready.val();
        }
        if self.reset.val() {
            self.b_valid.d.next = false;
            self.in_frame.d.next = false;
            self.held_mask.d.next = bits::<8>(0);
            self.held_cut.d.next = false;
        }
    }
}

/// ZedBoard: host + 3 ports, 2048-beat (16 KiB) queues.
pub type OutputQueues64 = OutputQueues<64, 8, 4, 89, 72, 73, 11, 12>;
/// NetFPGA SUME: host + 4 ports, 512-beat (16 KiB) queues.
pub type OutputQueues256 = OutputQueues<256, 32, 5, 305, 288, 289, 9, 10>;

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
//! One template for both builds: [`OutputQueues64`] (4 ports) and [`OutputQueues256`] (5 ports).

use rust_hdl::prelude::*;

use crate::fifo::Fifo;
use crate::statistics::StatEvents;

macro_rules! output_queues {
    (
        $(#[$doc:meta])* $name:ident, width = $w:tt, keep = $k:tt, ports = $n:tt,
        beat_bits = $bb:tt, last_bit = $lb:tt, user_bit = $ub:tt, depth_log2 = $dl:tt, depth_log2_p1 = $dl1:tt
    ) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            /// Synchronous reset: every queue empty, no frame open, the drop counter 0.
            pub reset: Signal<In, Bit>,
            pub s_axis_tdata: Signal<In, Bits<$w>>,
            pub s_axis_tkeep: Signal<In, Bits<$k>>,
            pub s_axis_tlast: Signal<In, Bit>,
            pub s_axis_tuser: Signal<In, Bits<16>>,
            pub s_axis_tvalid: Signal<In, Bit>,
            pub s_axis_tready: Signal<Out, Bit>,
            pub m_axis_tdata: [Signal<Out, Bits<$w>>; $n],
            pub m_axis_tkeep: [Signal<Out, Bits<$k>>; $n],
            pub m_axis_tlast: [Signal<Out, Bit>; $n],
            pub m_axis_tuser: [Signal<Out, Bits<16>>; $n],
            pub m_axis_tvalid: [Signal<Out, Bit>; $n],
            pub m_axis_tready: [Signal<In, Bit>; $n],
            /// `queue_drops` ([`crate::statistics`]) on the clock a dropped frame ends.
            pub events: Signal<Out, StatEvents>,
            no_events: Constant<StatEvents>,
            ev: Signal<Local, StatEvents>,
            queues: [Fifo<Bits<$bb>, $dl, $dl1, 1>; $n],
            /// Complete frames in each queue (counted two clocks after their last beat is
            /// written, when the queue shows it).
            complete: [DFF<Bits<16>>; $n],
            written_last: [DFF<Bit>; $n],
            visible_last: [DFF<Bit>; $n],
            in_frame: DFF<Bit>,
            held_mask: DFF<Bits<8>>,
            mask: Signal<Local, Bits<8>>,
            room: Signal<Local, Bit>,
            accept: Signal<Local, Bit>,
            read: [Signal<Local, Bit>; $n],
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    s_axis_tdata: Default::default(),
                    s_axis_tkeep: Default::default(),
                    s_axis_tlast: Default::default(),
                    s_axis_tuser: Default::default(),
                    s_axis_tvalid: Default::default(),
                    s_axis_tready: Default::default(),
                    m_axis_tdata: Default::default(),
                    m_axis_tkeep: Default::default(),
                    m_axis_tlast: Default::default(),
                    m_axis_tuser: Default::default(),
                    m_axis_tvalid: Default::default(),
                    m_axis_tready: Default::default(),
                    events: Default::default(),
                    no_events: Constant::new(StatEvents::default()),
                    ev: Default::default(),
                    queues: Default::default(),
                    complete: Default::default(),
                    written_last: Default::default(),
                    visible_last: Default::default(),
                    in_frame: Default::default(),
                    held_mask: Default::default(),
                    mask: Default::default(),
                    room: Default::default(),
                    accept: Default::default(),
                    read: Default::default(),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, in_frame, held_mask);
                self.ev.next = self.no_events.val();
                self.mask.next = self.s_axis_tuser.val().get_bits::<8>(8);
                if self.in_frame.q.val() {
                    self.mask.next = self.held_mask.q.val();
                }
                // Room in every destination queue.
                self.room.next = true;
                for i in 0..$n {
                    if self.mask.val().get_bit(i) & self.queues[i].full.val() {
                        self.room.next = false;
                    }
                }
                self.s_axis_tready.next = self.room.val();
                self.accept.next = self.s_axis_tvalid.val() & self.room.val();
                if self.accept.val() {
                    self.in_frame.d.next = !self.s_axis_tlast.val();
                    self.held_mask.d.next = self.mask.val();
                    if self.s_axis_tlast.val() & (self.mask.val() == bits::<8>(0)) {
                        self.ev.next.queue_drops = true;
                    }
                }
                self.events.next = self.ev.val();
                for i in 0..$n {
                    self.queues[i].clock.next = self.clock.val();
                    self.complete[i].clock.next = self.clock.val();
                    self.written_last[i].clock.next = self.clock.val();
                    self.visible_last[i].clock.next = self.clock.val();
                    self.queues[i].write.next = self.accept.val() & self.mask.val().get_bit(i);
                    self.queues[i].data_in.next = bit_cast::<$bb, $w>(self.s_axis_tdata.val())
                        | (bit_cast::<$bb, $k>(self.s_axis_tkeep.val()) << $w)
                        | (bit_cast::<$bb, 1>(self.s_axis_tlast.val().into()) << $lb)
                        | (bit_cast::<$bb, 16>(self.s_axis_tuser.val()) << $ub);
                    self.written_last[i].d.next =
                        self.accept.val() & self.mask.val().get_bit(i) & self.s_axis_tlast.val();
                    self.visible_last[i].d.next = self.written_last[i].q.val();
                    // Send only frames that are wholly in the queue.
                    self.m_axis_tvalid[i].next =
                        !self.queues[i].empty.val() & (self.complete[i].q.val() != bits::<16>(0));
                    self.m_axis_tdata[i].next = self.queues[i].data_out.val().get_bits::<$w>(0);
                    self.m_axis_tkeep[i].next = self.queues[i].data_out.val().get_bits::<$k>($w);
                    self.m_axis_tlast[i].next = self.queues[i].data_out.val().get_bit($lb);
                    self.m_axis_tuser[i].next = self.queues[i].data_out.val().get_bits::<16>($ub);
                    self.read[i].next = self.m_axis_tvalid[i].val() & self.m_axis_tready[i].val();
                    self.queues[i].read.next = self.read[i].val();
                    self.complete[i].d.next = self.complete[i].q.val();
                    if self.visible_last[i].q.val() & !(self.read[i].val() & self.queues[i].data_out.val().get_bit($lb)) {
                        self.complete[i].d.next = self.complete[i].q.val() + bits::<16>(1);
                    }
                    if !self.visible_last[i].q.val() & self.read[i].val() & self.queues[i].data_out.val().get_bit($lb) {
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
    };
}

output_queues!(
    /// ZedBoard: host + 3 ports, 2048-beat (16 KiB) queues.
    OutputQueues64, width = 64, keep = 8, ports = 4, beat_bits = 89, last_bit = 72, user_bit = 73,
    depth_log2 = 11, depth_log2_p1 = 12
);
output_queues!(
    /// NetFPGA SUME: host + 4 ports, 512-beat (16 KiB) queues.
    OutputQueues256, width = 256, keep = 32, ports = 5, beat_bits = 305, last_bit = 288,
    user_bit = 289, depth_log2 = 9, depth_log2_p1 = 10
);

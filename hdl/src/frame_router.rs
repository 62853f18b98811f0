//! The ingress frame path after the arbiter: stores each frame while the offload parser
//! ([`crate::header_capture`] + [`crate::offload_classifier`]) classifies it, then
//!
//! * **passes through** every frame that is not an offload frame, unchanged byte for byte,
//!   toward the port a plain NIC would use: from the host to the uplink (port 1), from any
//!   network port to the host (port 0) — the `tuser` destination mask says which;
//! * hands every **offload** frame, whole, to the collective engine on `m_offload_axis_*`, with
//!   its header and verdict held on `offload_*` for the whole frame;
//! * **drops malformed** offload frames and counts them (`malformed_drops`, an event for
//!   [`crate::statistics`]); they never reach the engine.
//!
//! Store-and-forward is needed because "malformed" depends on the frame length, known only at
//! `tlast`. Frames may follow each other on every clock; `s_axis_tready` falls only when the
//! frame buffer or the verdict queue is full. The frame buffer holds 16 KiB, more than a
//! 9216-byte jumbo frame; larger frames (giants) must be dropped by the MAC before this point.
//!
//! One template for both widths: [`FrameRouter64`] and [`FrameRouter256`].

use rust_hdl::prelude::*;

use crate::fifo::Fifo;
use crate::header_capture::{HeaderCapture64, HeaderCapture256};
use crate::offload_classifier::OffloadClassifier;
use crate::statistics::StatEvents;

/// A verdict queue entry: what the classifier decided about one stored frame.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct RouterVerdict {
    /// A valid offload frame: to the engine.
    pub offload: Bit,
    /// An offload frame that fails a check: drop and count.
    pub malformed: Bit,
    /// Valid, but uses a reserved code.
    pub unsupported: Bit,
    /// Payload bytes after the offload header.
    pub payload_len: Bits<16>,
    /// The first 64 frame bytes.
    pub header: Bits<512>,
}

/// `tuser` destination mask of port `port` (bits 15:8).
fn to_port(port: usize) -> Constant<Bits<16>> {
    Constant::new(bits::<16>(u64::from(
        crate::axis::tuser(0, 1 << port) & 0xff00,
    )))
}

macro_rules! frame_router {
    (
        $(#[$doc:meta])* $name:ident, capture = $capture:ident, width = $w:tt, keep = $k:tt,
        beat_bits = $bb:tt, last_bit = $lb:tt, user_bit = $ub:tt, depth_log2 = $dl:tt, depth_log2_p1 = $dl1:tt
    ) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, Bit>,
            pub s_axis_tdata: Signal<In, Bits<$w>>,
            pub s_axis_tkeep: Signal<In, Bits<$k>>,
            pub s_axis_tlast: Signal<In, Bit>,
            pub s_axis_tuser: Signal<In, Bits<16>>,
            pub s_axis_tvalid: Signal<In, Bit>,
            pub s_axis_tready: Signal<Out, Bit>,
            /// Pass-through frames, `tuser[15:8]` = destination port mask.
            pub m_axis_tdata: Signal<Out, Bits<$w>>,
            pub m_axis_tkeep: Signal<Out, Bits<$k>>,
            pub m_axis_tlast: Signal<Out, Bit>,
            pub m_axis_tuser: Signal<Out, Bits<16>>,
            pub m_axis_tvalid: Signal<Out, Bit>,
            pub m_axis_tready: Signal<In, Bit>,
            /// Offload frames for the collective engine.
            pub m_offload_axis_tdata: Signal<Out, Bits<$w>>,
            pub m_offload_axis_tkeep: Signal<Out, Bits<$k>>,
            pub m_offload_axis_tlast: Signal<Out, Bit>,
            pub m_offload_axis_tuser: Signal<Out, Bits<16>>,
            pub m_offload_axis_tvalid: Signal<Out, Bit>,
            pub m_offload_axis_tready: Signal<In, Bit>,
            /// First 64 bytes of the offload frame on `m_offload_axis` (valid with its beats).
            pub offload_header: Signal<Out, Bits<512>>,
            pub offload_payload_len: Signal<Out, Bits<16>>,
            /// The offload frame uses a reserved code.
            pub offload_unsupported: Signal<Out, Bit>,
            /// `passed_frames`, `offload_frames`, `malformed_drops` ([`crate::statistics`]) on
            /// the clock a frame's last beat leaves.
            pub events: Signal<Out, StatEvents>,
            no_events: Constant<StatEvents>,
            ev: Signal<Local, StatEvents>,
            capture: $capture,
            classifier: OffloadClassifier,
            frames: Fifo<Bits<$bb>, $dl, $dl1, 1>,
            verdicts: Fifo<RouterVerdict, 5, 6, 8>,
            verdict_in: Signal<Local, RouterVerdict>,
            head: Signal<Local, RouterVerdict>,
            to_host: Constant<Bits<16>>,
            to_uplink: Constant<Bits<16>>,
            from_host: Constant<Bits<16>>,
            source_mask: Constant<Bits<16>>,
            accept: Signal<Local, Bit>,
            head_valid: Signal<Local, Bit>,
            head_ready: Signal<Local, Bit>,
            head_user: Signal<Local, Bits<16>>,
            pass_dst: Signal<Local, Bits<16>>,
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
                    m_offload_axis_tdata: Default::default(),
                    m_offload_axis_tkeep: Default::default(),
                    m_offload_axis_tlast: Default::default(),
                    m_offload_axis_tuser: Default::default(),
                    m_offload_axis_tvalid: Default::default(),
                    m_offload_axis_tready: Default::default(),
                    offload_header: Default::default(),
                    offload_payload_len: Default::default(),
                    offload_unsupported: Default::default(),
                    events: Default::default(),
                    no_events: Constant::new(StatEvents::default()),
                    ev: Default::default(),
                    capture: Default::default(),
                    classifier: Default::default(),
                    frames: Default::default(),
                    verdicts: Default::default(),
                    verdict_in: Default::default(),
                    head: Default::default(),
                    to_host: to_port(crate::axis::HOST_PORT),
                    to_uplink: to_port(crate::axis::UPLINK_PORT),
                    from_host: Constant::new(bits::<16>(crate::axis::tuser(crate::axis::HOST_PORT, 0).into())),
                    source_mask: Constant::new(bits::<16>(0xff)),
                    accept: Default::default(),
                    head_valid: Default::default(),
                    head_ready: Default::default(),
                    head_user: Default::default(),
                    pass_dst: Default::default(),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                self.ev.next = self.no_events.val();
                clock!(self, clock, capture, classifier, frames, verdicts);
                // Write side: store every accepted beat, tap it for the parser.
                self.s_axis_tready.next = !self.frames.full.val() & !self.verdicts.almost_full.val();
                self.accept.next = self.s_axis_tvalid.val() & !self.frames.full.val() & !self.verdicts.almost_full.val();
                self.frames.write.next = self.accept.val();
                self.frames.data_in.next = bit_cast::<$bb, $w>(self.s_axis_tdata.val())
                    | (bit_cast::<$bb, $k>(self.s_axis_tkeep.val()) << $w)
                    | (bit_cast::<$bb, 1>(self.s_axis_tlast.val().into()) << $lb)
                    | (bit_cast::<$bb, 16>(self.s_axis_tuser.val()) << $ub);
                self.capture.reset.next = self.reset.val();
                self.classifier.reset.next = self.reset.val();
                self.frames.reset.next = self.reset.val();
                self.verdicts.reset.next = self.reset.val();
                self.capture.s_axis_tdata.next = self.s_axis_tdata.val();
                self.capture.s_axis_tkeep.next = self.s_axis_tkeep.val();
                self.capture.s_axis_tlast.next = self.s_axis_tlast.val();
                self.capture.s_axis_tvalid.next = self.accept.val();
                self.classifier.header.next = self.capture.header.val();
                self.classifier.frame_len.next = self.capture.frame_len.val();
                self.classifier.frame_done.next = self.capture.frame_done.val();
                self.verdicts.write.next = self.classifier.verdict_valid.val();
                self.verdict_in.next.offload = self.classifier.offload.val();
                self.verdict_in.next.malformed = self.classifier.malformed.val();
                self.verdict_in.next.unsupported = self.classifier.unsupported.val();
                self.verdict_in.next.payload_len = self.classifier.payload_len.val();
                self.verdict_in.next.header = self.classifier.header_out.val();
                self.verdicts.data_in.next = self.verdict_in.val();

                // Read side: the head frame goes where its verdict says, a beat per clock.
                self.head.next = self.verdicts.data_out.val();
                self.head_valid.next = !self.verdicts.empty.val() & !self.frames.empty.val();
                self.head_user.next = self.frames.data_out.val().get_bits::<16>($ub);
                // Pass-through: host -> uplink, network -> host.
                self.pass_dst.next = self.to_host.val();
                if (self.head_user.val() & self.from_host.val()) != bits::<16>(0) {
                    self.pass_dst.next = self.to_uplink.val();
                }
                self.m_axis_tdata.next = self.frames.data_out.val().get_bits::<$w>(0);
                self.m_axis_tkeep.next = self.frames.data_out.val().get_bits::<$k>($w);
                self.m_axis_tlast.next = self.frames.data_out.val().get_bit($lb);
                self.m_axis_tuser.next = (self.head_user.val() & self.source_mask.val()) | self.pass_dst.val();
                self.m_offload_axis_tdata.next = self.frames.data_out.val().get_bits::<$w>(0);
                self.m_offload_axis_tkeep.next = self.frames.data_out.val().get_bits::<$k>($w);
                self.m_offload_axis_tlast.next = self.frames.data_out.val().get_bit($lb);
                self.m_offload_axis_tuser.next = self.head_user.val();
                self.offload_header.next = self.head.val().header;
                self.offload_payload_len.next = self.head.val().payload_len;
                self.offload_unsupported.next = self.head.val().unsupported;
                // Outputs and FIFO reads are assigned once each (no default-then-override
                // across a block boundary).
                self.m_offload_axis_tvalid.next = self.head.val().offload & self.head_valid.val();
                self.m_axis_tvalid.next =
                    !self.head.val().offload & !self.head.val().malformed & self.head_valid.val();
                self.head_ready.next = true; // malformed: drain
                if self.head.val().offload {
                    self.head_ready.next = self.m_offload_axis_tready.val();
                } else if !self.head.val().malformed {
                    self.head_ready.next = self.m_axis_tready.val();
                }
                self.frames.read.next = self.head_valid.val() & self.head_ready.val();
                self.verdicts.read.next =
                    self.head_valid.val() & self.head_ready.val() & self.frames.data_out.val().get_bit($lb);
                if self.head_valid.val() & self.head_ready.val() & self.frames.data_out.val().get_bit($lb) {
                    if self.head.val().offload {
                        self.ev.next.offload_frames = true;
                    } else if self.head.val().malformed {
                        self.ev.next.malformed_drops = true;
                    } else {
                        self.ev.next.passed_frames = true;
                    }
                }
                self.events.next = self.ev.val();
            }
        }
    };
}

frame_router!(
    /// 64-bit build: a 2048-beat (16 KiB) frame buffer.
    FrameRouter64, capture = HeaderCapture64, width = 64, keep = 8, beat_bits = 89, last_bit = 72,
    user_bit = 73, depth_log2 = 11, depth_log2_p1 = 12
);
frame_router!(
    /// 256-bit build: a 512-beat (16 KiB) frame buffer.
    FrameRouter256, capture = HeaderCapture256, width = 256, keep = 32, beat_bits = 305, last_bit = 288,
    user_bit = 289, depth_log2 = 9, depth_log2_p1 = 10
);

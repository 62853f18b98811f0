//! The ingress frame path after the arbiter: stores each frame while the offload parser
//! ([`crate::header_capture`] + [`crate::offload_classifier`]) classifies it, then
//!
//! * **passes through** every frame that is not an offload frame, unchanged byte for byte,
//!   toward the port a plain NIC would use: from the host to the uplink (port 1), from any
//!   network port to the host (port 0) — the `tuser` destination mask says which;
//! * hands every **offload** frame, whole, to the collective engine on `m_offload_axis_*`, with
//!   its header and verdict held on `offload_*` for the whole frame;
//! * **drops malformed** offload frames and counts them (`malformed_drops`); they never reach
//!   the engine.
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

/// Verdict queue entry: `[0]` offload, `[1]` malformed, `[2]` unsupported, `[18:3]` payload
/// length, `[530:19]` the first 64 frame bytes.
const META_BITS: usize = 531;

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
            pub passed_frames: Signal<Out, Bits<32>>,
            pub offload_frames: Signal<Out, Bits<32>>,
            pub malformed_drops: Signal<Out, Bits<32>>,
            capture: $capture,
            classifier: OffloadClassifier,
            frames: Fifo<Bits<$bb>, $dl, $dl1, 1>,
            verdicts: Fifo<Bits<META_BITS>, 5, 6, 8>,
            accept: Signal<Local, Bit>,
            head_valid: Signal<Local, Bit>,
            head_ready: Signal<Local, Bit>,
            head_user: Signal<Local, Bits<16>>,
            pass_dst: Signal<Local, Bits<16>>,
            passed: DFF<Bits<32>>,
            offloaded: DFF<Bits<32>>,
            dropped: DFF<Bits<32>>,
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
                    passed_frames: Default::default(),
                    offload_frames: Default::default(),
                    malformed_drops: Default::default(),
                    capture: Default::default(),
                    classifier: Default::default(),
                    frames: Default::default(),
                    verdicts: Default::default(),
                    accept: Default::default(),
                    head_valid: Default::default(),
                    head_ready: Default::default(),
                    head_user: Default::default(),
                    pass_dst: Default::default(),
                    passed: Default::default(),
                    offloaded: Default::default(),
                    dropped: Default::default(),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, passed, offloaded, dropped);
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
                self.verdicts.data_in.next = bit_cast::<META_BITS, 1>(self.classifier.offload.val().into())
                    | (bit_cast::<META_BITS, 1>(self.classifier.malformed.val().into()) << 1)
                    | (bit_cast::<META_BITS, 1>(self.classifier.unsupported.val().into()) << 2)
                    | (bit_cast::<META_BITS, 16>(self.classifier.payload_len.val()) << 3)
                    | (bit_cast::<META_BITS, 512>(self.classifier.header_out.val()) << 19);

                // Read side: the head frame goes where its verdict says, a beat per clock.
                self.head_valid.next = !self.verdicts.empty.val() & !self.frames.empty.val();
                self.head_user.next = self.frames.data_out.val().get_bits::<16>($ub);
                // Pass-through: host -> uplink, network -> host.
                self.pass_dst.next = bits::<16>(0x0100);
                if self.head_user.val().get_bit(0) {
                    self.pass_dst.next = bits::<16>(0x0200);
                }
                self.m_axis_tdata.next = self.frames.data_out.val().get_bits::<$w>(0);
                self.m_axis_tkeep.next = self.frames.data_out.val().get_bits::<$k>($w);
                self.m_axis_tlast.next = self.frames.data_out.val().get_bit($lb);
                self.m_axis_tuser.next = (self.head_user.val() & bits::<16>(0xff)) | self.pass_dst.val();
                self.m_offload_axis_tdata.next = self.frames.data_out.val().get_bits::<$w>(0);
                self.m_offload_axis_tkeep.next = self.frames.data_out.val().get_bits::<$k>($w);
                self.m_offload_axis_tlast.next = self.frames.data_out.val().get_bit($lb);
                self.m_offload_axis_tuser.next = self.head_user.val();
                self.offload_header.next = self.verdicts.data_out.val().get_bits::<512>(19);
                self.offload_payload_len.next = self.verdicts.data_out.val().get_bits::<16>(3);
                self.offload_unsupported.next = self.verdicts.data_out.val().get_bit(2);
                // Outputs and FIFO reads are assigned once each (no default-then-override
                // across a block boundary).
                self.m_offload_axis_tvalid.next = self.verdicts.data_out.val().get_bit(0) & self.head_valid.val();
                self.m_axis_tvalid.next =
                    !self.verdicts.data_out.val().get_bit(0) & !self.verdicts.data_out.val().get_bit(1) & self.head_valid.val();
                self.head_ready.next = true; // malformed: drain
                if self.verdicts.data_out.val().get_bit(0) {
                    self.head_ready.next = self.m_offload_axis_tready.val();
                } else if !self.verdicts.data_out.val().get_bit(1) {
                    self.head_ready.next = self.m_axis_tready.val();
                }
                self.frames.read.next = self.head_valid.val() & self.head_ready.val();
                self.verdicts.read.next =
                    self.head_valid.val() & self.head_ready.val() & self.frames.data_out.val().get_bit($lb);
                if self.head_valid.val() & self.head_ready.val() & self.frames.data_out.val().get_bit($lb) {
                    if self.verdicts.data_out.val().get_bit(0) {
                        self.offloaded.d.next = self.offloaded.q.val() + bits::<32>(1);
                    } else if self.verdicts.data_out.val().get_bit(1) {
                        self.dropped.d.next = self.dropped.q.val() + bits::<32>(1);
                    } else {
                        self.passed.d.next = self.passed.q.val() + bits::<32>(1);
                    }
                }
                self.passed_frames.next = self.passed.q.val();
                self.offload_frames.next = self.offloaded.q.val();
                self.malformed_drops.next = self.dropped.q.val();
                if self.reset.val() {
                    self.passed.d.next = bits::<32>(0);
                    self.offloaded.d.next = bits::<32>(0);
                    self.dropped.d.next = bits::<32>(0);
                }
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

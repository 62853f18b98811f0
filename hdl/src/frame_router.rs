//! The ingress frame path after the arbiter: stores each frame while the offload parser
//! ([`crate::header_capture`] + [`crate::offload_classifier`]) classifies it, then
//!
//! * **passes through** every frame that is not an offload frame, unchanged byte for byte,
//!   toward the port a plain NIC would use: from the host to the uplink (port 1), from any
//!   network port to the host (port 0) — the `tuser` destination mask says which;
//! * hands every **offload** frame, whole, to the collective engine on `m_offload_axis_*`, with
//!   its decoded fields ([`FrameFields`]) and verdict held on `offload_*` for the whole frame;
//! * **drops malformed** offload frames and counts them (`malformed_drops`, an event for
//!   [`crate::statistics`]); they never reach the engine.
//!
//! Store-and-forward is needed because "malformed" depends on the frame length, known only at
//! `tlast`. Frames may follow each other on every clock; `s_axis_tready` falls only when the
//! frame buffer or the verdict queue is full. The frame buffer holds 16 KiB, more than a
//! 9216-byte jumbo frame; larger frames (giants) must be dropped by the MAC before this point.
//!
//! One block for both widths: [`FrameRouter64`] and [`FrameRouter256`].

use rust_hdl::prelude::*;

use crate::axis::{AxisSink, AxisSource};
use crate::axis_fifo::AxisFifo;
use crate::fifo::Fifo;
use crate::header_capture::HeaderCapture;
use crate::header_fields::FrameFields;
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
    /// The frame's fields, decoded once by the classifier.
    pub fields: FrameFields,
}

/// `tuser` destination mask of port `port` (bits 15:8).
fn to_port(port: usize) -> Constant<Bits<16>> {
    Constant::new(bits::<16>(u64::from(
        crate::axis::tuser(0, 1 << port) & 0xff00,
    )))
}

/// Stores, classifies and routes frames: `W`-bit beats with `K` keep bits; a stored beat is
/// `BB` bits ([`AxisFifo`]: `tdata`, `tkeep`, `tlast` at bit `LAST`, `tuser` from bit `USER`); 2^`DL` beats of
/// frame buffer (`DL1 = DL + 1`); the 64-byte offload header is `HB` beats.
#[derive(LogicBlock)]
pub struct FrameRouter<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
    const HB: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<W, K>,
    /// Pass-through frames, `tuser[15:8]` = destination port mask.
    pub m_axis: AxisSource<W, K>,
    /// Offload frames for the collective engine.
    pub m_offload_axis: AxisSource<W, K>,
    /// The decoded fields of the offload frame on `m_offload_axis` (valid with its beats).
    pub offload_fields: Signal<Out, FrameFields>,
    pub offload_payload_len: Signal<Out, Bits<16>>,
    /// The offload frame uses a reserved code.
    pub offload_unsupported: Signal<Out, Bit>,
    /// `passed_frames`, `offload_frames`, `malformed_drops` ([`crate::statistics`]) on
    /// the clock a frame's last beat leaves.
    pub events: Signal<Out, StatEvents>,
    no_events: Constant<StatEvents>,
    ev: Signal<Local, StatEvents>,
    capture: HeaderCapture<W, K, HB>,
    classifier: OffloadClassifier,
    frames: AxisFifo<W, K, BB, LAST, USER, DL, DL1>,
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

impl<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
    const HB: usize,
> Default for FrameRouter<W, K, BB, LAST, USER, DL, DL1, HB>
{
    fn default() -> Self {
        // AxisFifo checks W, K, BB, LAST, USER, DL1.
        assert_eq!(HB * W, 512, "HB: beats of a 64-byte header");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            m_offload_axis: Default::default(),
            offload_fields: Default::default(),
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
            from_host: Constant::new(bits::<16>(
                crate::axis::tuser(crate::axis::HOST_PORT, 0).into(),
            )),
            source_mask: Constant::new(bits::<16>(0xff)),
            accept: Default::default(),
            head_valid: Default::default(),
            head_ready: Default::default(),
            head_user: Default::default(),
            pass_dst: Default::default(),
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
    const HB: usize,
> Logic for FrameRouter<W, K, BB, LAST, USER, DL, DL1, HB>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.ev.next = self.no_events.val();
        clock!(self, clock, capture, classifier, frames, verdicts);
        // Write side: store every accepted beat, tap it for the parser.
        self.s_axis.tready.next =
            self.frames.s_axis.tready.val() & !self.verdicts.almost_full.val();
        self.accept.next = self.s_axis.tvalid.val()
            & self.frames.s_axis.tready.val()
            & !self.verdicts.almost_full.val();
        self.frames.s_axis.tvalid.next = self.accept.val();
        self.frames.s_axis.tdata.next = self.s_axis.tdata.val();
        self.frames.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.frames.s_axis.tlast.next = self.s_axis.tlast.val();
        self.frames.s_axis.tuser.next = self.s_axis.tuser.val();
        self.capture.reset.next = self.reset.val();
        self.classifier.reset.next = self.reset.val();
        self.frames.reset.next = self.reset.val();
        self.verdicts.reset.next = self.reset.val();
        self.capture.s_axis_tdata.next = self.s_axis.tdata.val();
        self.capture.s_axis_tkeep.next = self.s_axis.tkeep.val();
        self.capture.s_axis_tlast.next = self.s_axis.tlast.val();
        self.capture.s_axis_tvalid.next = self.accept.val();
        self.classifier.header.next = self.capture.header.val();
        self.classifier.frame_len.next = self.capture.frame_len.val();
        self.classifier.frame_done.next = self.capture.frame_done.val();
        self.verdicts.write.next = self.classifier.verdict_valid.val();
        self.verdict_in.next.offload = self.classifier.offload.val();
        self.verdict_in.next.malformed = self.classifier.malformed.val();
        self.verdict_in.next.unsupported = self.classifier.unsupported.val();
        self.verdict_in.next.payload_len = self.classifier.payload_len.val();
        self.verdict_in.next.fields = self.classifier.fields.val();
        self.verdicts.data_in.next = self.verdict_in.val();

        // Read side: the head frame goes where its verdict says, a beat per clock.
        self.head.next = self.verdicts.data_out.val();
        self.head_valid.next = !self.verdicts.empty.val() & self.frames.m_axis.tvalid.val();
        self.head_user.next = self.frames.m_axis.tuser.val();
        // Pass-through: host -> uplink, network -> host.
        self.pass_dst.next = self.to_host.val();
        if (self.head_user.val() & self.from_host.val()) != bits::<16>(0) {
            self.pass_dst.next = self.to_uplink.val();
        }
        self.m_axis.tdata.next = self.frames.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.frames.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.frames.m_axis.tlast.val();
        self.m_axis.tuser.next =
            (self.head_user.val() & self.source_mask.val()) | self.pass_dst.val();
        self.m_offload_axis.tdata.next = self.frames.m_axis.tdata.val();
        self.m_offload_axis.tkeep.next = self.frames.m_axis.tkeep.val();
        self.m_offload_axis.tlast.next = self.frames.m_axis.tlast.val();
        self.m_offload_axis.tuser.next = self.head_user.val();
        self.offload_fields.next = self.head.val().fields;
        self.offload_payload_len.next = self.head.val().payload_len;
        self.offload_unsupported.next = self.head.val().unsupported;
        // Outputs and FIFO reads are assigned once each (no default-then-override
        // across a block boundary).
        self.m_offload_axis.tvalid.next = self.head.val().offload & self.head_valid.val();
        self.m_axis.tvalid.next =
            !self.head.val().offload & !self.head.val().malformed & self.head_valid.val();
        self.head_ready.next = true; // malformed: drain
        if self.head.val().offload {
            self.head_ready.next = self.m_offload_axis.tready.val();
        } else if !self.head.val().malformed {
            self.head_ready.next = self.m_axis.tready.val();
        }
        self.frames.m_axis.tready.next = self.head_valid.val() & self.head_ready.val();
        self.verdicts.read.next =
            self.head_valid.val() & self.head_ready.val() & self.frames.m_axis.tlast.val();
        if self.head_valid.val() & self.head_ready.val() & self.frames.m_axis.tlast.val() {
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

/// ZedBoard: 64-bit beats, 2048 beats (16 KiB) of frame buffer.
pub type FrameRouter64 = FrameRouter<64, 8, 89, 72, 73, 11, 12, 8>;
/// NetFPGA SUME: 256-bit beats, 512 beats (16 KiB) of frame buffer.
pub type FrameRouter256 = FrameRouter<256, 32, 305, 288, 289, 9, 10, 2>;

//! Offload splitter: does with each offload frame what the CFE ([`crate::cfe`]) commands, one
//! command per frame, taken while the frame waits at the router's offload port:
//!
//! * **stream** ([`SPLIT_STREAM`]): skip the 64-byte header beats, give the next `words` beats
//!   (the payload, from a beat boundary at both widths) to the CIPE, drop the rest (Ethernet
//!   padding) up to `tlast`;
//! * **drain** ([`SPLIT_DRAIN`]): drop the frame (stored nothing: duplicates, errors, barrier
//!   requests).
//!
//! (A frame between two other boards never comes here: the router forwards it,
//! [`crate::frame_router`].)
//!
//! The command word is a [`SplitCommand`].
//!
//! The header beats are skipped as soon as a frame is at the port, before its command (the
//! CFE decides from the decoded fields, not the header bytes), so the payload is at the port
//! when the command comes. A frame's last beat is never taken before its command.
//! `s_cmd_tready` is high from a frame's end until its successor's command is taken, so the
//! CFE knows no payload beat of the frame at the router's offload port has moved when it
//! decides, and gives each frame exactly one command.
//!
//! One block for both widths: [`OffloadSplitter64`] (8 header beats) and
//! [`OffloadSplitter256`] (2).

use rust_hdl::prelude::*;

use crate::axis::{AxisSink, StreamSource, check_widths};

/// Splitter actions, [`SplitCommand::action`].
pub const SPLIT_DRAIN: u32 = 0;
pub const SPLIT_STREAM: u32 = 1;

/// The command word (`s_cmd_tdata`), low bits first: the one definition of its format, used
/// by the CFE that builds it and this splitter that reads it.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct SplitCommand {
    /// [`SPLIT_DRAIN`] or [`SPLIT_STREAM`].
    pub action: Bits<2>,
    pub spare_action: Bits<2>,
    /// Stream: payload words for the CIPE.
    pub words: Bits<12>,
    pub spare: Bits<16>,
}

impl From<Bits<32>> for SplitCommand {
    fn from(w: Bits<32>) -> SplitCommand {
        let d = SplitCommand::default();
        SplitCommand {
            action: w.get_bits::<2>(d.get_my_offset_action()),
            spare_action: w.get_bits::<2>(d.get_my_offset_spare_action()),
            words: w.get_bits::<12>(d.get_my_offset_words()),
            spare: w.get_bits::<16>(d.get_my_offset_spare()),
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum SplitterState {
    /// Before the command: the header beats are skipped as soon as the frame is at the port.
    Head,
    Payload,
    Drain,
}

/// Splits offload frames as the CFE commands: `W`-bit beats, `K = W / 8` keep bits, a
/// 64-byte header of `HB` beats.
#[derive(LogicBlock)]
pub struct OffloadSplitter<const W: usize, const K: usize, const HB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<W, K>,
    pub s_cmd_tdata: Signal<In, Bits<32>>,
    pub s_cmd_tvalid: Signal<In, Bit>,
    pub s_cmd_tready: Signal<Out, Bit>,
    /// Payload words for the CIPE.
    pub m_axis: StreamSource<Bits<W>>,
    header_beats: Constant<Bits<12>>,
    state: DFF<SplitterState>,
    beat: DFF<Bits<12>>,
    words: DFF<Bits<12>>,
    /// The frame's command has been taken (in `Head`), and whether it streams.
    have_cmd: DFF<Bit>,
    stream: DFF<Bit>,
    /// The header beats have been skipped.
    header_done: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    /// The command offered on `s_cmd`.
    command: Signal<Local, SplitCommand>,
    action_stream: Constant<Bits<2>>,
    /// Drives `s_axis.tready`, assigned once at the end of `update`.
    out_s_tready: Signal<Local, Bit>,
    /// Drives `s_cmd_tready`, assigned once at the end of `update`.
    out_cmd_tready: Signal<Local, Bit>,
    /// Drives `m_axis.tvalid`, assigned once at the end of `update`.
    out_tvalid: Signal<Local, Bit>,
}

impl<const W: usize, const K: usize, const HB: usize> Default for OffloadSplitter<W, K, HB> {
    fn default() -> Self {
        check_widths(W, K);
        assert_eq!(HB * W, 512, "HB: beats of a 64-byte header");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            s_cmd_tdata: Default::default(),
            s_cmd_tvalid: Default::default(),
            s_cmd_tready: Default::default(),
            m_axis: Default::default(),
            header_beats: Constant::new(bits::<12>(HB as u64)),
            state: Default::default(),
            beat: Default::default(),
            words: Default::default(),
            have_cmd: Default::default(),
            stream: Default::default(),
            header_done: Default::default(),
            take: Default::default(),
            command: Default::default(),
            action_stream: Constant::new(bits::<2>(u64::from(SPLIT_STREAM))),
            out_s_tready: Default::default(),
            out_cmd_tready: Default::default(),
            out_tvalid: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize, const HB: usize> Logic for OffloadSplitter<W, K, HB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, beat, words, have_cmd, stream);
        self.command.next = self.s_cmd_tdata.val().into();
        self.out_s_tready.next = false;
        self.out_cmd_tready.next = false;
        self.m_axis.tdata.next = self.s_axis.tdata.val();
        self.out_tvalid.next = false;
        self.take.next = false;
        self.header_done.next = self.beat.q.val() == self.header_beats.val();
        match self.state.q.val() {
            SplitterState::Head => {
                // One command per frame, taken while no beat of the payload has moved.
                self.out_cmd_tready.next = !self.have_cmd.q.val();
                if self.s_cmd_tvalid.val() & !self.have_cmd.q.val() {
                    self.have_cmd.d.next = true;
                    self.words.d.next = self.command.val().words;
                    self.stream.d.next = self.command.val().action == self.action_stream.val();
                }
                // Skip the header meanwhile, but never a frame's last beat: the frame ends
                // only under its command.
                self.out_s_tready.next = !self.header_done.val() & !self.s_axis.tlast.val();
                self.take.next = self.s_axis.tvalid.val() & self.out_s_tready.val();
                if self.take.val() {
                    self.beat.d.next = self.beat.q.val() + bits::<12>(1);
                }
                if self.have_cmd.q.val()
                    & (self.header_done.val()
                        | (self.s_axis.tvalid.val() & self.s_axis.tlast.val()))
                {
                    self.beat.d.next = bits::<12>(0);
                    self.state.d.next = SplitterState::Drain;
                    if self.stream.q.val() & self.header_done.val() {
                        self.state.d.next = SplitterState::Payload;
                    }
                }
            }
            SplitterState::Payload => {
                self.out_tvalid.next = self.s_axis.tvalid.val();
                self.out_s_tready.next = self.m_axis.tready.val();
                self.take.next = self.s_axis.tvalid.val() & self.m_axis.tready.val();
                if self.take.val() {
                    self.beat.d.next = self.beat.q.val() + bits::<12>(1);
                    if self.beat.q.val() + bits::<12>(1) == self.words.q.val() {
                        self.state.d.next = SplitterState::Drain;
                    }
                }
            }
            SplitterState::Drain => {
                self.out_s_tready.next = true;
                self.take.next = self.s_axis.tvalid.val();
            }
            _ => {
                self.state.d.next = SplitterState::Head;
            }
        }
        // A frame ends at its tlast whatever the command said (a short frame never
        // leaves the splitter waiting for beats that do not come).
        if self.take.val() & self.s_axis.tlast.val() {
            self.state.d.next = SplitterState::Head;
            self.beat.d.next = bits::<12>(0);
            self.have_cmd.d.next = false;
        }
        if self.reset.val() {
            self.state.d.next = SplitterState::Head;
            self.beat.d.next = bits::<12>(0);
            self.words.d.next = bits::<12>(0);
            self.have_cmd.d.next = false;
            self.stream.d.next = false;
        }
        self.s_axis.tready.next = self.out_s_tready.val();
        self.s_cmd_tready.next = self.out_cmd_tready.val();
        self.m_axis.tvalid.next = self.out_tvalid.val();
    }
}

/// ZedBoard: 64-bit beats, 8 header beats.
pub type OffloadSplitter64 = OffloadSplitter<64, 8, 8>;
/// NetFPGA SUME: 256-bit beats, 2 header beats.
pub type OffloadSplitter256 = OffloadSplitter<256, 32, 2>;

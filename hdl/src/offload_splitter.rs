//! Offload splitter: does with each offload frame what the CFE ([`crate::cfe`]) commands, one
//! command per frame, taken while the frame waits at the router's offload port:
//!
//! * **stream** ([`SPLIT_STREAM`]): skip the 64-byte header beats, give the next `words` beats
//!   (the payload, from a beat boundary at both widths) to the CIPE, drop the rest (Ethernet
//!   padding) up to `tlast`;
//! * **drain** ([`SPLIT_DRAIN`]): drop the frame (stored nothing: duplicates, errors, barrier
//!   requests).
//!
//! Frames come cut through ([`crate::frame_router`]): a frame's last beat may be marked bad
//! (`tuser` bad bit: the MAC's mark, a giant cut off, a frame shorter than its IPv4 length).
//! The splitter reports every frame's tail to the CFE (`tail_valid`, `tail_bad`), which
//! commits or undoes what the frame did, and marks the last payload word of a bad frame
//! (`m_axis_tbad`), so a frame the engine builds from it leaves marked bad. The command's last
//! word waits for the tail when padding follows it (`Hold`, `Release`); a frame that ends
//! before its command's words were given is made up with zero words, the last marked bad
//! (`Fill`), so the CIPE instruction that takes them never waits for words that do not come.
//!
//! (A frame between two other boards never comes here: the router forwards it,
//! [`crate::frame_router`].)
//!
//! The command word is a [`SplitCommand`].
//!
//! The header beats are skipped as soon as a frame is at the port, before its command (the
//! CFE decides from the decoded fields, not the header bytes) and before the classifier's
//! verdict on it reaches the engine (`s_axis_peek` / `s_axis_skip`, beside the handshake; a
//! frame the router then drains as malformed is forgotten on `s_axis_gone`), so the payload is
//! at the port when the command comes. A command is acted on in the clock it is taken: the
//! first payload word leaves in that clock at 256 bits ([`early_first`]), on the next at 64.
//! A frame's last beat is never taken before its command.
//! `s_cmd_tready` is high from a frame's end until its successor's command is taken, so the
//! CFE knows no payload beat of the frame at the router's offload port has moved when it
//! decides, and gives each frame exactly one command.
//!
//! One block for both widths: [`OffloadSplitter64`] (8 header beats) and
//! [`OffloadSplitter256`] (2).

use rust_hdl::prelude::*;

use crate::axis::{AxisSink, StreamSource, TUSER_BAD_AT, check_widths};

/// Whether the `w`-bit splitter gives the first payload word on the clock its stream command
/// is taken (the header skipped by then), not the next: at 256 bits, where that clock is on
/// the engine hop (the header's 2 beats hide none of it; the CIPE, idle, issues the word on
/// its instruction's clock, [`crate::cipe::fast_first`]). The command carries its count's
/// derived values ([`SplitCommand::one`], `two`, `after2`), so nothing is decoded on that
/// clock. At 64 bits the header's 8 beats hide the clock, and the command stays out of the
/// paths to the router's offload slice.
pub const fn early_first(w: usize) -> bool {
    w >= 256
}

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
    /// `words` is 1, is 2, and `words` − 2: computed by the CFE from registers (the arrival's
    /// count, [`crate::arrival_verdict`]), so a 256-bit splitter gives the first payload word on
    /// the clock it takes the command without decoding the count ([`early_first`]).
    pub one: Bit,
    pub two: Bit,
    pub after2: Bits<12>,
    pub spare: Bits<2>,
}

impl From<Bits<32>> for SplitCommand {
    fn from(w: Bits<32>) -> SplitCommand {
        let d = SplitCommand::default();
        SplitCommand {
            action: w.get_bits::<2>(d.get_my_offset_action()),
            spare_action: w.get_bits::<2>(d.get_my_offset_spare_action()),
            words: w.get_bits::<12>(d.get_my_offset_words()),
            one: w.get_bit(d.get_my_offset_one()),
            two: w.get_bit(d.get_my_offset_two()),
            after2: w.get_bits::<12>(d.get_my_offset_after2()),
            spare: w.get_bits::<2>(d.get_my_offset_spare()),
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum SplitterState {
    /// Before the command: the header beats are skipped as soon as the frame is at the port.
    Head,
    Payload,
    /// The rest of the frame is dropped (a drain command; a stream command whose frame ended
    /// within its header: then `Fill`).
    Drain,
    /// The last payload word is held while the padding after it is dropped: it leaves with
    /// the frame's tail (`Release`).
    Hold,
    Release,
    /// The frame ended before the words its command asked for: zero words make up the count,
    /// the last marked bad (the CIPE's instruction always gets its words).
    Fill,
}

/// Splits offload frames as the CFE commands: `W`-bit beats, `K = W / 8` keep bits, a
/// 64-byte header of `HB` beats.
#[derive(LogicBlock)]
pub struct OffloadSplitter<const W: usize, const K: usize, const HB: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<W, K>,
    /// A beat is at `s_axis` whose frame the engine may not have seen yet (`tvalid` waits for
    /// the router's verdict): header beats are skipped on it ([`crate::frame_router`]'s
    /// `offload_peek`).
    pub s_axis_peek: Signal<In, Bit>,
    /// The frame at `s_axis` was drained by the router (refused by its header checks): the
    /// header beats skipped of it are forgotten.
    pub s_axis_gone: Signal<In, Bit>,
    /// The beat at `s_axis_peek` is taken (a header beat skipped).
    pub s_axis_skip: Signal<Out, Bit>,
    pub s_cmd_tdata: Signal<In, Bits<32>>,
    pub s_cmd_tvalid: Signal<In, Bit>,
    pub s_cmd_tready: Signal<Out, Bit>,
    /// Payload words for the CIPE.
    pub m_axis: StreamSource<Bits<W>>,
    /// With the last payload word of a command: its frame was bad (marked bad on its last
    /// beat, or shorter than the command's words).
    pub m_axis_tbad: Signal<Out, Bit>,
    /// A pulse a clock after a frame's last beat was taken, and whether the frame was bad
    /// (the CFE commits or undoes what the frame did, [`crate::cfe`]).
    pub tail_valid: Signal<Out, Bit>,
    pub tail_bad: Signal<Out, Bit>,
    header_last: Constant<Bits<12>>,
    bad_at: Constant<Bits<16>>,
    state: DFF<SplitterState>,
    beat: DFF<Bits<12>>,
    /// `beat` has reached the header's beats (a register, so the input's ready does not wait
    /// for the count's compare: board64's worst path ran count → compare → ready → the
    /// router's output slice).
    hdone: DFF<Bit>,
    /// Payload words still to give after the current one (a stream command).
    left: DFF<Bits<12>>,
    /// The frame's command has been taken (in `Head`), and whether it streams.
    have_cmd: DFF<Bit>,
    stream: DFF<Bit>,
    /// The last payload word, held (`Hold`), and its frame's verdict. `held` loads the input
    /// word on every clock in `Head` and `Payload` (the last of them takes the command's last word),
    /// so its enable is the state alone, not the input's handshake (`take` as the enable of
    /// its 64 flip-flops put 49 of them among board64's endpoints after 6.0 ns on six seeds
    /// at 358ac01).
    held: DFF<Bits<W>>,
    /// `held`'s load enable: the state is `Head` or `Payload`, from a flip-flop of its own
    /// loaded with the state's next value (high at power-on, in `Head`). Not a decode of
    /// `state` shared with the handshake: that LUT sat among `held`'s bits, and the
    /// splitter's `state` → it → the payload slice's `w_sel` went there and back (2.0 and 1.9
    /// ns, 6 cells; board64's worst path on seed 5 at d2ca9b9, 149.1 MHz).
    held_load: DFFWithInit<Bit>,
    held_bad: DFF<Bit>,
    tail_pulse: DFF<Bit>,
    tail_mark: DFF<Bit>,
    /// The header beats have been skipped.
    header_done: Signal<Local, Bit>,
    /// The word in `Payload` (or `Fill`) is the command's last: `left` = 0, kept in a
    /// register of its own (a compare on `left` in front of the ready was the board's worst
    /// path at 111.6 MHz).
    final_word: DFF<Bit>,
    take: Signal<Local, Bit>,
    /// A payload word may move this clock: in `Payload`, or (with [`early_first`]) in `Head`
    /// on the clock a stream command is taken with the header skipped.
    paying: Signal<Local, Bit>,
    /// The first payload word may leave on its command's clock ([`early_first`]).
    early: Constant<Bit>,
    /// For the word that may move now: whether it is the command's last (`final_word`, or the
    /// command's `one` on its clock), and what `left` and `final_word` become when it moves
    /// (`left` − 1 and `left` = 1, or the command's `after2` and `two`).
    fw: Signal<Local, Bit>,
    left_next: Signal<Local, Bits<12>>,
    fw_next: Signal<Local, Bit>,
    /// The frame has its command this clock (taken now or before), and whether it streams.
    cmd_now: Signal<Local, Bit>,
    stream_now: Signal<Local, Bit>,
    /// The beat offered carries the bad mark.
    beat_bad: Signal<Local, Bit>,
    /// The frame ended before its command's words were all given.
    short_end: Signal<Local, Bit>,
    /// The command offered on `s_cmd`.
    command: Signal<Local, SplitCommand>,
    action_stream: Constant<Bits<2>>,
    /// Drives `s_axis.tready`, assigned once at the end of `update`.
    out_s_tready: Signal<Local, Bit>,
    /// Drives `s_cmd_tready`, assigned once at the end of `update`.
    out_cmd_tready: Signal<Local, Bit>,
    /// Drives `s_axis_skip`.
    out_skip: Signal<Local, Bit>,
    /// Drives `m_axis.tvalid`, `m_axis.tdata` and `m_axis_tbad`, assigned once at the end of
    /// `update`.
    out_tvalid: Signal<Local, Bit>,
    out_tdata: Signal<Local, Bits<W>>,
    out_tbad: Signal<Local, Bit>,
}

impl<const W: usize, const K: usize, const HB: usize> Default for OffloadSplitter<W, K, HB> {
    fn default() -> Self {
        check_widths(W, K);
        assert_eq!(HB * W, 512, "HB: beats of a 64-byte header");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            s_axis_peek: Default::default(),
            s_axis_gone: Default::default(),
            s_axis_skip: Default::default(),
            s_cmd_tdata: Default::default(),
            s_cmd_tvalid: Default::default(),
            s_cmd_tready: Default::default(),
            m_axis: Default::default(),
            m_axis_tbad: Default::default(),
            tail_valid: Default::default(),
            tail_bad: Default::default(),
            header_last: Constant::new(bits::<12>(HB as u64 - 1)),
            bad_at: Constant::new(bits::<16>(TUSER_BAD_AT as u64)),
            state: Default::default(),
            beat: Default::default(),
            hdone: Default::default(),
            left: Default::default(),
            have_cmd: Default::default(),
            stream: Default::default(),
            held: Default::default(),
            held_load: DFFWithInit::new(true),
            held_bad: Default::default(),
            tail_pulse: Default::default(),
            tail_mark: Default::default(),
            header_done: Default::default(),
            final_word: Default::default(),
            take: Default::default(),
            paying: Default::default(),
            early: Constant::new(early_first(W)),
            fw: Default::default(),
            left_next: Default::default(),
            fw_next: Default::default(),
            cmd_now: Default::default(),
            stream_now: Default::default(),
            beat_bad: Default::default(),
            short_end: Default::default(),
            command: Default::default(),
            action_stream: Constant::new(bits::<2>(u64::from(SPLIT_STREAM))),
            out_s_tready: Default::default(),
            out_cmd_tready: Default::default(),
            out_skip: Default::default(),
            out_tvalid: Default::default(),
            out_tdata: Default::default(),
            out_tbad: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize, const HB: usize> Logic for OffloadSplitter<W, K, HB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, beat, hdone, left, have_cmd, stream, held, held_bad, tail_pulse,
            tail_mark, final_word
        );
        self.command.next = self.s_cmd_tdata.val().into();
        self.out_s_tready.next = false;
        self.out_cmd_tready.next = false;
        self.out_skip.next = false;
        self.out_tdata.next = self.s_axis.tdata.val();
        self.out_tvalid.next = false;
        self.out_tbad.next = false;
        self.take.next = false;
        self.paying.next = false;
        self.fw.next = self.final_word.q.val();
        self.left_next.next = self.left.q.val() - bits::<12>(1);
        self.fw_next.next = self.left.q.val() == bits::<12>(1);
        self.cmd_now.next = false;
        self.stream_now.next = false;
        self.short_end.next = false;
        self.header_done.next = self.hdone.q.val();
        self.beat_bad.next = self.s_axis.tuser.val().get_bit(self.bad_at.val().index());
        match self.state.q.val() {
            SplitterState::Head => {
                // `held` loads on every clock in `Head` too (nothing reads it there, below),
                // so its enable stays the state alone when the first word moves in `Head`.
                // One command per frame, taken while no beat of the payload has moved.
                self.out_cmd_tready.next = !self.have_cmd.q.val();
                self.cmd_now.next = self.have_cmd.q.val();
                self.stream_now.next = self.stream.q.val();
                if self.s_cmd_tvalid.val() & !self.have_cmd.q.val() {
                    self.have_cmd.d.next = true;
                    self.left.d.next = self.command.val().words - bits::<12>(1);
                    self.final_word.d.next = self.command.val().words == bits::<12>(1);
                    self.stream.d.next = self.command.val().action == self.action_stream.val();
                    // Acted on in the clock it is taken: with the header skipped, the first
                    // payload word leaves now at 256 bits (`paying`, below), on the next at 64.
                    self.cmd_now.next = true;
                    self.stream_now.next = self.command.val().action == self.action_stream.val();
                    self.fw.next = self.command.val().one;
                    self.left_next.next = self.command.val().after2;
                    self.fw_next.next = self.command.val().two;
                }
                // Skip the header meanwhile, but never a frame's last beat: the frame ends
                // only under its command.
                self.out_s_tready.next = !self.header_done.val() & !self.s_axis.tlast.val();
                self.out_skip.next = self.out_s_tready.val();
                self.take.next = self.s_axis_peek.val() & self.out_s_tready.val();
                if self.take.val() {
                    self.beat.d.next = self.beat.q.val() + bits::<12>(1);
                    self.hdone.d.next = self.beat.q.val() == self.header_last.val();
                }
                if self.cmd_now.val()
                    & (self.header_done.val()
                        | (self.s_axis.tvalid.val() & self.s_axis.tlast.val()))
                {
                    self.beat.d.next = bits::<12>(0);
                    self.hdone.d.next = false;
                    self.state.d.next = SplitterState::Drain;
                    if self.stream_now.val() & self.header_done.val() {
                        self.state.d.next = SplitterState::Payload;
                        self.paying.next = self.early.val();
                    }
                }
            }
            SplitterState::Payload => {
                self.paying.next = true;
            }
            SplitterState::Drain => {
                self.out_s_tready.next = true;
                self.take.next = self.s_axis.tvalid.val();
                if self.take.val() & self.s_axis.tlast.val() {
                    self.state.d.next = SplitterState::Head;
                    if self.stream.q.val() {
                        self.short_end.next = true;
                        self.state.d.next = SplitterState::Fill;
                    }
                }
            }
            SplitterState::Hold => {
                self.out_s_tready.next = true;
                self.take.next = self.s_axis.tvalid.val();
                if self.take.val() & self.s_axis.tlast.val() {
                    self.held_bad.d.next = self.beat_bad.val();
                    self.state.d.next = SplitterState::Release;
                }
            }
            SplitterState::Release => {
                self.out_tvalid.next = true;
                self.out_tdata.next = self.held.q.val();
                self.out_tbad.next = self.held_bad.q.val();
                if self.m_axis.tready.val() {
                    self.state.d.next = SplitterState::Head;
                }
            }
            SplitterState::Fill => {
                self.out_tvalid.next = true;
                self.out_tdata.next = bits::<W>(0);
                self.out_tbad.next = self.final_word.q.val();
                if self.m_axis.tready.val() {
                    self.left.d.next = self.left.q.val() - bits::<12>(1);
                    self.final_word.d.next = self.left.q.val() == bits::<12>(1);
                    if self.final_word.q.val() {
                        self.state.d.next = SplitterState::Head;
                    }
                }
            }
            _ => {
                self.state.d.next = SplitterState::Head;
            }
        }
        // The payload words (`Payload`, or the first on its command's clock in `Head`).
        if self.paying.val() {
            // The command's last word waits for the frame's tail unless it is the tail.
            self.out_tvalid.next =
                self.s_axis.tvalid.val() & !(self.fw.val() & !self.s_axis.tlast.val());
            self.out_tbad.next = self.fw.val() & self.beat_bad.val();
            self.out_s_tready.next = self.m_axis.tready.val();
            if self.fw.val() & !self.s_axis.tlast.val() {
                self.out_s_tready.next = true;
            }
            self.take.next = self.s_axis.tvalid.val() & self.out_s_tready.val();
            if self.take.val() {
                self.left.d.next = self.left_next.val();
                self.final_word.d.next = self.fw_next.val();
                if self.fw.val() {
                    self.state.d.next = SplitterState::Head;
                    if !self.s_axis.tlast.val() {
                        self.state.d.next = SplitterState::Hold;
                    }
                } else if self.s_axis.tlast.val() {
                    self.short_end.next = true;
                    self.state.d.next = SplitterState::Fill;
                }
            }
        }
        // A frame ends at its tlast whatever the command said (a short frame never leaves the
        // splitter waiting for beats that do not come): its tail is reported, and the next
        // frame's command may come once the splitter is back in `Head`.
        self.tail_pulse.d.next = self.take.val() & self.s_axis.tlast.val();
        self.tail_mark.d.next = self.beat_bad.val() | self.short_end.val();
        if self.take.val() & self.s_axis.tlast.val() {
            self.beat.d.next = bits::<12>(0);
            self.hdone.d.next = false;
            self.have_cmd.d.next = false;
        }
        if self.s_axis_gone.val() {
            self.beat.d.next = bits::<12>(0);
            self.hdone.d.next = false;
        }
        if self.reset.val() {
            self.state.d.next = SplitterState::Head;
            self.beat.d.next = bits::<12>(0);
            self.hdone.d.next = false;
            self.left.d.next = bits::<12>(0);
            self.final_word.d.next = false;
            self.have_cmd.d.next = false;
            self.stream.d.next = false;
            self.tail_pulse.d.next = false;
        }
        // `held` loads in `Head` and `Payload` (`held_load`: the state is one of them).
        if self.held_load.q.val() {
            self.held.d.next = self.s_axis.tdata.val();
        }
        self.held_load.clock.next = self.clock.val();
        self.held_load.d.next = (self.state.d.val() == SplitterState::Head)
            | (self.state.d.val() == SplitterState::Payload);
        self.s_axis.tready.next = self.out_s_tready.val();
        self.s_cmd_tready.next = self.out_cmd_tready.val();
        self.s_axis_skip.next = self.out_skip.val();
        self.m_axis.tvalid.next = self.out_tvalid.val();
        self.m_axis.tdata.next = self.out_tdata.val();
        self.m_axis_tbad.next = self.out_tbad.val();
        self.tail_valid.next = self.tail_pulse.q.val();
        self.tail_bad.next = self.tail_mark.q.val();
    }
}

/// ZedBoard: 64-bit beats, 8 header beats.
pub type OffloadSplitter64 = OffloadSplitter<64, 8, 8>;
/// NetFPGA SUME: 256-bit beats, 2 header beats.
pub type OffloadSplitter256 = OffloadSplitter<256, 32, 2>;

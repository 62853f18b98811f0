//! The micro-op: its word ([`UopWord`], the one definition of the format, which the control
//! plane's program compiler, `collwire_control::program::Uop::encode`, also builds from) and its decoder ([`UopDecode`]), the
//! combinational half of one step of the CFE's program (docs/cfe.md): are the operands there,
//! which CIPE pass does the step run (opcode, buffer slots, store, emit), does it send a frame,
//! to whom, with data or without.
//!
//! Inputs are the running context's state ([`crate::context_table`]) and the fields of the
//! stored request being answered ([`crate::header_fields`]). The CFE's state machine decides
//! when a step is taken; the header and entry composer uses the outputs.

use rust_hdl::prelude::*;

use crate::cipe::Opcode;

/// Operand code for "the board's local value": register `rph − 1` after a local-prefix
/// micro-op (the fold of all local contributions; the running rank's own register).
pub const H: u8 = 15;

/// Micro-op kind codes, [`UopWord::kind`].
pub mod uop_code {
    pub const LOCAL_PREFIX: u32 = 0;
    pub const PASS: u32 = 1;
    pub const RESPOND: u32 = 2;
    pub const RESPOND_PREFIX: u32 = 3;
}

/// A micro-op word, low bits first. Register numbers are 4 bits; 15 is [`H`]
/// (the local rank's own register: 1 if the running rank is the second of its host, else 0).
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct UopWord {
    /// [`uop_code`].
    pub kind: Bits<2>,
    /// Pass: an arrival for register `a` may be combined as it streams in (the compiler found
    /// that `a`'s own value is not read again, or the pass stores it where it arrived).
    pub fuse_a: Bit,
    /// Pass: the same for register `b`.
    pub fuse_b: Bit,
    /// `a` (Pass, Respond) or `x` (RespondPrefix).
    pub a: Bits<4>,
    pub b: Bits<4>,
    /// `b` present (Pass: combine `a · b`) / `x` present (RespondPrefix).
    pub combine: Bit,
    /// The result is stored into `dst`.
    pub store: Bit,
    pub dst: Bits<4>,
    /// The result is sent to board `board`, register `tag`.
    pub send: Bit,
    /// Sent as a `result` (else a `partial`). A pass without `send`: the pass answers the local
    /// ranks with what it stores (`collwire_control::program::Uop::PassRespond`): local rank
    /// 0's answer streams out of the pass itself, rank 1's (two per host) is a pass that reads
    /// `dst`.
    pub result: Bit,
    pub tag: Bits<4>,
    pub board: Bits<8>,
}

impl UopWord {
    /// The program-memory word.
    pub fn to_word(self) -> u32 {
        Bits::<32>::from(self).to_u64() as u32
    }
}

/// A program-memory word as its fields (what the hardware's `.into()` of a 32-bit word means).
impl From<Bits<32>> for UopWord {
    fn from(w: Bits<32>) -> UopWord {
        let d = UopWord::default();
        let field = |offset: usize, width: usize| (w.to_u64() >> offset) & ((1 << width) - 1);
        UopWord {
            kind: field(d.get_my_offset_kind(), d.get_my_width_kind()).into(),
            fuse_a: field(d.get_my_offset_fuse_a(), 1) != 0,
            fuse_b: field(d.get_my_offset_fuse_b(), 1) != 0,
            a: field(d.get_my_offset_a(), d.get_my_width_a()).into(),
            b: field(d.get_my_offset_b(), d.get_my_width_b()).into(),
            combine: field(d.get_my_offset_combine(), 1) != 0,
            store: field(d.get_my_offset_store(), 1) != 0,
            dst: field(d.get_my_offset_dst(), d.get_my_width_dst()).into(),
            send: field(d.get_my_offset_send(), 1) != 0,
            result: field(d.get_my_offset_result(), 1) != 0,
            tag: field(d.get_my_offset_tag(), d.get_my_width_tag()).into(),
            board: field(d.get_my_offset_board(), d.get_my_width_board()).into(),
        }
    }
}

/// What a step's CIPE pass is, as the decoder gives it (the CFE fills in the reduce op,
/// datatype and word count where it issues the pass): opcode, buffer slots (context · 8 +
/// register), store, emit, swap.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct PassFields {
    pub opcode: Bits<4>,
    pub slot_a: Bits<7>,
    pub slot_b: Bits<7>,
    pub slot_d: Bits<7>,
    pub store: Bit,
    pub emit: Bit,
    /// The CIPE pass swaps its operands (a fused arrival of `a`: incoming · `b`).
    pub swap: Bit,
}

#[derive(LogicBlock)]
pub struct UopDecode {
    /// The program-memory word.
    pub uop: Signal<In, Bits<32>>,
    // The running context.
    pub cur: Signal<In, Bits<3>>,
    pub present: Signal<In, Bits<8>>,
    pub rph2: Signal<In, Bit>,
    /// The segment has payload words (its word count is not zero: registered so by the CFE,
    /// which keeps no 12-bit compare in front of the decode).
    pub has_words: Signal<In, Bit>,
    /// Which local rank a Respond/RespondPrefix step answers (0, then 1 with two per host).
    pub sub: Signal<In, Bit>,
    /// The stored request's collective is a reduce.
    pub reduce: Signal<In, Bit>,
    /// The stored request's rank is the root.
    pub rank_is_root: Signal<In, Bit>,
    /// The register of the running context an arrival waiting to be combined as it streams
    /// in fills (docs/cfe.md, "Combining on arrival"): the pass, if it `fuses`, takes it
    /// (`fused`, `fused_instr`).
    pub arr_reg: Signal<In, Bits<3>>,
    /// Send the pass's frame again (another board nacked it, docs/recovery.md): a copy of the
    /// register that holds the value sent (`dst` if the pass stores, else `a`: the compiler's
    /// resend plan, `collwire_control::program::Program::resends`) to the pass's board and
    /// register; nothing is stored, nothing combined.
    pub resend: Signal<In, Bit>,
    /// A retained answer is sent again (docs/recovery.md): a pass that answers then runs only
    /// its answer to rank `sub`, a copy of `dst` (nothing combined, nothing stored).
    pub again: Signal<In, Bit>,
    /// The fields.
    pub word: Signal<Out, UopWord>,
    /// The micro-op is a pass whose operands are present and which may take the waiting
    /// arrival as it streams in: the arrival is its `a` (with `fuse_a`) or `b` (with `fuse_b`).
    pub fuses: Signal<Out, Bit>,
    /// The micro-op's operands are present.
    pub ready: Signal<Out, Bit>,
    /// This is the micro-op's last step (Respond and RespondPrefix take one per local rank).
    pub last_sub: Signal<Out, Bit>,
    /// The step answers a local rank (the request header of rank `sub` is read).
    pub answers: Signal<Out, Bit>,
    /// The register the micro-op waits for while not `ready`: `a` if absent, else `b` (a
    /// local rank's register for the local steps; the input map says whether a board sends
    /// it).
    pub missing: Signal<Out, Bits<3>>,
    /// The step stores its result into register `dst_reg` of the context.
    pub produce: Signal<Out, Bit>,
    pub dst_reg: Signal<Out, Bits<3>>,
    /// The step sends a frame to another board.
    pub sends: Signal<Out, Bit>,
    /// The step carries data (not an empty answer).
    pub data: Signal<Out, Bit>,
    /// The step's CIPE pass when it does not take an arrival (`fused` is the one when it
    /// does): neither this nor `has_instr` waits for `fuses`, whose operand-presence logic is
    /// the decode's deepest (the engine registers them in `Read`, where it uses them only for
    /// a step that did not take the arrival).
    pub pass: Signal<Out, PassFields>,
    /// The pass when it takes the waiting arrival (with `fuses`), decoded without `fuses`.
    pub fused: Signal<Out, PassFields>,
    /// The step runs a CIPE pass (when it does not take an arrival: `fused_instr` when it
    /// does) / emits a frame.
    pub has_instr: Signal<Out, Bit>,
    pub has_entry: Signal<Out, Bit>,
    /// The step has neither a CIPE pass nor a frame (`!has_instr & !has_entry`). Made from
    /// the word's fields, `has_words`, `rph2` and `resend` alone, so the engine's choice
    /// between running such a step and storing the arrival does not wait for the request's
    /// flags (`reduce`, `rank_is_root` → `data` → `has_instr`), which cannot change it.
    pub idle: Signal<Out, Bit>,
    /// When the step takes the arrival (`fuses`, with an arrival waiting): whether it runs a
    /// CIPE pass (`fused`). Such a step
    /// is a pass or a respond for no reduce, so the request's flags cannot change it.
    pub fused_instr: Signal<Out, Bit>,
    kind_local_prefix: Constant<Bits<2>>,
    kind_pass: Constant<Bits<2>>,
    kind_respond: Constant<Bits<2>>,
    kind_respond_prefix: Constant<Bits<2>>,
    reg_h: Constant<Bits<4>>,
    op_buffer: Constant<Bits<4>>,
    op_pair: Constant<Bits<4>>,
    op_input: Constant<Bits<4>>,
    op_combine: Constant<Bits<4>>,
    /// A pass that answers the local ranks (`send` clear, `result` set).
    answer_pass: Signal<Local, Bit>,
    /// Its step that only answers, from `dst`: the second local rank, or an answer sent again.
    as_answer: Signal<Local, Bit>,
    has_d: Signal<Local, Bit>,
    /// The arrival is the pass's `a` / `b` and may be combined (see `fuses`).
    via_a: Signal<Local, Bit>,
    via_b: Signal<Local, Bit>,
    /// Drives `fuses`, assigned once at the end of `update`.
    l_fuses: Signal<Local, Bit>,
    /// The pass by the micro-op's kind alone (before an arrival, an answer, a resend).
    base: Signal<Local, PassFields>,
    b_has_entry: Signal<Local, Bit>,
    b_has_instr: Signal<Local, Bit>,
    /// Drives `fused`, assigned once.
    l_fused: Signal<Local, PassFields>,
    /// Drives `pass`, assigned once at the end of `update`.
    l_pass: Signal<Local, PassFields>,
    w: Signal<Local, UopWord>,
    ra: Signal<Local, Bits<3>>,
    rb: Signal<Local, Bits<3>>,
    rd: Signal<Local, Bits<3>>,
    ctx_base: Signal<Local, Bits<7>>,
    has_a: Signal<Local, Bit>,
    has_b: Signal<Local, Bit>,
    /// `a`, `b`, `dst` name [`H`]; H's register as a number, and whether it is present. The
    /// operand checks select between H's answer and the plain register's (`present` at the
    /// field's low three bits): neither waits for the register number's own select (`ra`:
    /// `a` == H → `rph2`), which stood in front of the 8:1 select of `present` on the CFE's
    /// deepest paths (`uop_r` → `has_a` → `ready` / `fuses` → the state, 11 levels).
    a_h: Signal<Local, Bit>,
    b_h: Signal<Local, Bit>,
    d_h: Signal<Local, Bit>,
    h_reg: Signal<Local, Bits<3>>,
    p_h: Signal<Local, Bit>,
    /// Drives `ready`, assigned once at the end of `update`.
    l_ready: Signal<Local, Bit>,
    /// Drives `last_sub`, assigned once at the end of `update`.
    l_last_sub: Signal<Local, Bit>,
    /// Drives `idle`, assigned once.
    l_idle: Signal<Local, Bit>,
    /// Drives `has_instr`, assigned once at the end of `update`.
    l_has_instr: Signal<Local, Bit>,
    /// Drives `has_entry`, assigned once at the end of `update`.
    l_has_entry: Signal<Local, Bit>,
    /// Drives `data`, assigned once at the end of `update`.
    l_data: Signal<Local, Bit>,
    /// Drives `missing`, assigned once.
    l_missing: Signal<Local, Bits<3>>,
}

impl Default for UopDecode {
    fn default() -> Self {
        let code = |c: u32| Constant::new(bits::<4>(u64::from(c)));
        let kind = |c: u32| Constant::new(bits::<2>(u64::from(c)));
        Self {
            arr_reg: Default::default(),
            resend: Default::default(),
            again: Default::default(),
            answer_pass: Default::default(),
            as_answer: Default::default(),
            has_d: Default::default(),
            missing: Default::default(),
            l_missing: Default::default(),
            fuses: Default::default(),
            op_input: code(Opcode::Input as u32),
            op_combine: code(Opcode::Combine as u32),
            via_a: Default::default(),
            via_b: Default::default(),
            l_fuses: Default::default(),
            pass: Default::default(),
            fused: Default::default(),
            base: Default::default(),
            b_has_entry: Default::default(),
            b_has_instr: Default::default(),
            l_fused: Default::default(),
            l_pass: Default::default(),
            uop: Default::default(),
            cur: Default::default(),
            present: Default::default(),
            rph2: Default::default(),
            has_words: Default::default(),
            sub: Default::default(),
            reduce: Default::default(),
            rank_is_root: Default::default(),
            word: Default::default(),
            ready: Default::default(),
            l_ready: Default::default(),
            last_sub: Default::default(),
            l_last_sub: Default::default(),
            answers: Default::default(),
            produce: Default::default(),
            dst_reg: Default::default(),
            sends: Default::default(),
            data: Default::default(),
            l_data: Default::default(),
            has_instr: Default::default(),
            l_has_instr: Default::default(),
            has_entry: Default::default(),
            idle: Default::default(),
            l_idle: Default::default(),
            fused_instr: Default::default(),
            l_has_entry: Default::default(),
            kind_local_prefix: kind(uop_code::LOCAL_PREFIX),
            kind_pass: kind(uop_code::PASS),
            kind_respond: kind(uop_code::RESPOND),
            kind_respond_prefix: kind(uop_code::RESPOND_PREFIX),
            reg_h: code(u32::from(H)),
            op_buffer: code(Opcode::Buffer as u32),
            op_pair: code(Opcode::Pair as u32),
            w: Default::default(),
            ra: Default::default(),
            rb: Default::default(),
            rd: Default::default(),
            ctx_base: Default::default(),
            has_a: Default::default(),
            has_b: Default::default(),
            a_h: Default::default(),
            b_h: Default::default(),
            d_h: Default::default(),
            h_reg: Default::default(),
            p_h: Default::default(),
        }
    }
}

impl Logic for UopDecode {
    #[hdl_gen]
    fn update(&mut self) {
        self.w.next = self.uop.val().into();
        self.word.next = self.w.val();
        // Registers; H is the local rank's own: 1 with two ranks per host (the second's
        // contribution), else 0.
        self.a_h.next = self.w.val().a == self.reg_h.val();
        self.b_h.next = self.w.val().b == self.reg_h.val();
        self.d_h.next = self.w.val().dst == self.reg_h.val();
        self.h_reg.next = bit_cast::<3, 1>(self.rph2.val().into());
        self.ra.next = bit_cast::<3, 4>(self.w.val().a);
        if self.a_h.val() {
            self.ra.next = self.h_reg.val();
        }
        self.rb.next = bit_cast::<3, 4>(self.w.val().b);
        if self.b_h.val() {
            self.rb.next = self.h_reg.val();
        }
        self.rd.next = bit_cast::<3, 4>(self.w.val().dst);
        if self.d_h.val() {
            self.rd.next = self.h_reg.val();
        }
        self.dst_reg.next = self.rd.val();
        self.p_h.next = self.present.val().get_bit(0);
        if self.rph2.val() {
            self.p_h.next = self.present.val().get_bit(1);
        }
        self.has_a.next = self
            .present
            .val()
            .get_bit(bit_cast::<3, 4>(self.w.val().a).index());
        if self.a_h.val() {
            self.has_a.next = self.p_h.val();
        }
        self.has_b.next = self
            .present
            .val()
            .get_bit(bit_cast::<3, 4>(self.w.val().b).index());
        if self.b_h.val() {
            self.has_b.next = self.p_h.val();
        }
        self.has_d.next = self
            .present
            .val()
            .get_bit(bit_cast::<3, 4>(self.w.val().dst).index());
        if self.d_h.val() {
            self.has_d.next = self.p_h.val();
        }
        self.answer_pass.next =
            (self.w.val().kind == self.kind_pass.val()) & !self.w.val().send & self.w.val().result;
        self.as_answer.next = self.answer_pass.val() & (self.sub.val() | self.again.val());

        // Operands present? LocalPrefix and Respond* need the local registers: 0, and 1 with
        // two ranks per host.
        self.l_ready.next =
            self.present.val().get_bit(0) & (!self.rph2.val() | self.present.val().get_bit(1));
        if self.w.val().kind == self.kind_pass.val() {
            self.l_ready.next = self.has_a.val() & (!self.w.val().combine | self.has_b.val());
        }
        if self.w.val().kind == self.kind_respond.val() {
            self.l_ready.next = self.has_a.val();
        }
        if self.as_answer.val() {
            self.l_ready.next = self.has_d.val();
        }
        if (self.w.val().kind == self.kind_respond_prefix.val()) & self.w.val().combine {
            self.l_ready.next = self.l_ready.val() & self.has_a.val();
        }
        self.answers.next = (self.w.val().kind == self.kind_respond.val())
            | (self.w.val().kind == self.kind_respond_prefix.val())
            | self.answer_pass.val();
        self.l_last_sub.next = true;
        if self.answers.val() & self.rph2.val() {
            self.l_last_sub.next = self.sub.val();
        }
        self.produce.next = (self.w.val().kind == self.kind_pass.val())
            & self.w.val().store
            & !self.resend.val()
            & !self.as_answer.val();
        self.l_missing.next = self.ra.val();
        if self.has_a.val() {
            self.l_missing.next = self.rb.val();
        }
        self.missing.next = self.l_missing.val();

        // ---- The CIPE pass and the frame of the step.
        self.sends.next = (self.w.val().kind == self.kind_pass.val()) & self.w.val().send;
        self.l_data.next = self.has_words.val();
        // A reduce answers with data only to the root.
        if ((self.w.val().kind == self.kind_respond.val()) | self.answer_pass.val())
            & self.reduce.val()
            & !self.rank_is_root.val()
        {
            self.l_data.next = false;
        }
        self.ctx_base.next = bit_cast::<7, 3>(self.cur.val()) << 3;
        // The pass by the micro-op's kind.
        self.base.next.opcode = self.op_buffer.val();
        self.base.next.slot_a = self.ctx_base.val() | bit_cast::<7, 3>(self.ra.val());
        self.base.next.slot_b = self.ctx_base.val() | bit_cast::<7, 3>(self.rb.val());
        self.base.next.slot_d = self.ctx_base.val() | bit_cast::<7, 3>(self.rd.val());
        self.base.next.store = false;
        self.base.next.emit = true;
        self.base.next.swap = false;
        self.b_has_entry.next = true;
        self.b_has_instr.next = self.l_data.val();
        if self.w.val().kind == self.kind_local_prefix.val() {
            // LocalPrefix: r1 = r0 · r1.
            self.base.next.opcode = self.op_pair.val();
            self.base.next.slot_a = self.ctx_base.val();
            self.base.next.slot_b = self.ctx_base.val() | bits::<7>(1);
            self.base.next.slot_d = self.ctx_base.val() | bits::<7>(1);
            self.base.next.store = true;
            self.base.next.emit = false;
            self.b_has_entry.next = false;
            self.b_has_instr.next = self.l_data.val() & self.rph2.val();
        }
        if self.w.val().kind == self.kind_pass.val() {
            if self.w.val().combine {
                self.base.next.opcode = self.op_pair.val();
            }
            self.base.next.store = self.w.val().store;
            self.base.next.emit = self.sends.val();
            self.b_has_entry.next = self.sends.val();
            self.b_has_instr.next = self.has_words.val() & (self.w.val().store | self.sends.val());
            if self.answer_pass.val() {
                // Rank 0's answer leaves from the pass (empty for a reduce's non-root rank:
                // the pass then only stores).
                self.base.next.emit = self.l_data.val();
                self.b_has_entry.next = true;
            }
        }
        // Combining on arrival: the pass's operands are present (the arrival's register is
        // marked present when it arrives) and the arrival is one the compiler allows.
        self.via_a.next =
            self.w.val().fuse_a & (bit_cast::<3, 4>(self.w.val().a) == self.arr_reg.val());
        if self.a_h.val() {
            self.via_a.next = self.w.val().fuse_a & (self.h_reg.val() == self.arr_reg.val());
        }
        self.via_b.next = bit_cast::<3, 4>(self.w.val().b) == self.arr_reg.val();
        if self.b_h.val() {
            self.via_b.next = self.h_reg.val() == self.arr_reg.val();
        }
        self.via_b.next = self.via_b.val() & self.w.val().fuse_b & self.w.val().combine;
        // The pass when it takes the arrival.
        self.l_fused.next = self.base.val();
        if self.w.val().combine {
            // incoming · b (the arrival is a: swapped), or a · incoming.
            self.l_fused.next.opcode = self.op_combine.val();
            if self.via_a.val() {
                self.l_fused.next.slot_a = self.ctx_base.val() | bit_cast::<7, 3>(self.rb.val());
                self.l_fused.next.swap = true;
            }
        } else {
            // The arrival itself: stored where the pass stores it, else in its register.
            self.l_fused.next.opcode = self.op_input.val();
            self.l_fused.next.store = true;
            if !self.w.val().store {
                self.l_fused.next.slot_d = self.ctx_base.val() | bit_cast::<7, 3>(self.ra.val());
            }
        }
        // A pass that answers takes an arrival only in an allreduce: whether a reduce's rank 0
        // gets data depends on its stored request, which the engine reads only after the fused
        // pass's instruction has gone (the engine gives `reduce` from the arrival then).
        // So does a `Respond` whose register arrives (`fuse_a`): its first step stores the
        // arrival where it arrived and answers rank 0 with it as it streams in.
        self.l_fuses.next = (self.w.val().kind == self.kind_pass.val())
            & self.l_ready.val()
            & (self.via_a.val() | self.via_b.val())
            & !(self.answer_pass.val() & (self.as_answer.val() | self.reduce.val()));
        if self.w.val().kind == self.kind_respond.val() {
            self.l_fuses.next =
                self.l_ready.val() & self.via_a.val() & !self.sub.val() & !self.reduce.val();
        }
        self.l_pass.next = self.base.val();
        self.l_has_entry.next = self.b_has_entry.val();
        self.l_has_instr.next = self.b_has_instr.val();
        if self.as_answer.val() {
            // The answer alone, copied out of `dst`.
            self.l_pass.next.opcode = self.op_buffer.val();
            self.l_pass.next.slot_a = self.ctx_base.val() | bit_cast::<7, 3>(self.rd.val());
            self.l_pass.next.store = false;
            self.l_pass.next.emit = self.l_data.val();
            self.l_has_entry.next = true;
            self.l_has_instr.next = self.l_data.val();
        }
        if self.w.val().kind == self.kind_respond_prefix.val() {
            // RespondPrefix: rank `sub` gets x · r[sub], or r[sub].
            self.l_pass.next.slot_a = self.ctx_base.val() | bit_cast::<7, 1>(self.sub.val().into());
            if self.w.val().combine {
                self.l_pass.next.opcode = self.op_pair.val();
                self.l_pass.next.slot_a = self.ctx_base.val() | bit_cast::<7, 3>(self.ra.val());
                self.l_pass.next.slot_b =
                    self.ctx_base.val() | bit_cast::<7, 1>(self.sub.val().into());
            }
        }
        if self.resend.val() {
            // The value sent, copied out of the register that holds it.
            self.l_pass.next.opcode = self.op_buffer.val();
            self.l_pass.next.slot_a = self.ctx_base.val() | bit_cast::<7, 3>(self.ra.val());
            if self.w.val().store {
                self.l_pass.next.slot_a = self.ctx_base.val() | bit_cast::<7, 3>(self.rd.val());
            }
            self.l_pass.next.store = false;
            self.l_pass.next.emit = true;
            self.l_pass.next.swap = false;
            self.l_has_entry.next = true;
            self.l_has_instr.next = self.l_data.val();
            self.l_fuses.next = false;
        }
        self.fuses.next = self.l_fuses.val();
        self.pass.next = self.l_pass.val();
        self.fused.next = self.l_fused.val();
        self.ready.next = self.l_ready.val();
        self.last_sub.next = self.l_last_sub.val();
        self.has_instr.next = self.l_has_instr.val();
        self.has_entry.next = self.l_has_entry.val();
        self.data.next = self.l_data.val();
        // Without the arrival: a local prefix has a pass only with two ranks and words; a
        // pass that neither sends nor answers has one only if it stores words; every other
        // step (a respond, an answer, a resend) has a frame.
        self.l_idle.next = false;
        if self.w.val().kind == self.kind_local_prefix.val() {
            self.l_idle.next = !(self.has_words.val() & self.rph2.val());
        }
        if (self.w.val().kind == self.kind_pass.val()) & !self.w.val().send & !self.w.val().result {
            self.l_idle.next = !(self.has_words.val() & self.w.val().store);
        }
        if self.resend.val() {
            self.l_idle.next = false;
        }
        self.idle.next = self.l_idle.val();
        // Taking the arrival: a respond answers with it; a pass that only combines it has a
        // CIPE pass if it stores or sends the result.
        self.fused_instr.next = self.has_words.val()
            & ((self.w.val().kind == self.kind_respond.val())
                | !self.w.val().combine
                | self.w.val().store
                | self.w.val().send);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_round_trips() {
        let w = UopWord {
            kind: 1.into(),
            fuse_a: true,
            fuse_b: false,
            a: 15.into(),
            b: 3.into(),
            combine: true,
            store: false,
            dst: 9.into(),
            send: true,
            result: true,
            tag: 5.into(),
            board: 0xA7.into(),
        };
        assert_eq!(UopWord::BITS, 32);
        assert_eq!(UopWord::from(bits::<32>(u64::from(w.to_word()))), w);
        assert_eq!(
            w.to_word(),
            1 | 1 << 2 | 15 << 4 | 3 << 8 | 1 << 12 | 9 << 14 | 3 << 18 | 5 << 20 | 0xA7 << 24
        );
    }
}

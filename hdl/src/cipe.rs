//! CIPE — the collective instruction processing engine (paper: "Collective instruction
//! processing engine"): packet buffers in block RAM and the streaming lane ALU
//! ([`crate::cipe_alu`]), driven by a 64-bit instruction word per pass from the CFE.
//!
//! Each instruction streams `count` payload words, one per clock (II = 1): the incoming word
//! (`s_axis`), the word stored at the same index of buffer `slot_a`, or a combination —
//! `a ⊕ incoming` (combine), or `a ⊕ b` of two stored buffers (pair); `swap` exchanges the
//! operands so the left one is always the lower-ranked data. The result can be written into
//! buffer `slot_d` (`store`) and/or sent out on `m_axis` (`emit`) with the instruction word
//! beside every beat, for the frame builder.
//!
//! Two read ports (the pair opcode) come from two copies of the buffer RAM written together,
//! the usual way to get a second read port out of block RAM.
//!
//! Pipeline: issue (RAM read) → read (the RAM's word registered: the buffers fill most of the
//! part's block RAM, and the far ones are a long route from the ALU) → operand → ALU,
//! [`crate::cipe_alu::ALU_LATENCY`] clocks → write-back/out; [`CIPE_LATENCY`] clocks from a word in
//! to its result out. The write-back reaches the buffers a clock later, from registers
//! (`w_*`): the result's select straight into the write data of block RAMs spread over the
//! part was cipe64's worst path (seeds 1 and 3, all route). The pipeline never stalls: a
//! word issues only when the output queue has room
//! for everything in flight. The first word of an instruction waits while an earlier instruction
//! still in the pipeline stores into a buffer it reads (read after write), so consecutive
//! instructions on unrelated buffers stream with no gap; on the same buffer they wait at most
//! [`STORE_TO_READ`] clocks.
//!
//! The instruction word (docs/cipe.md) is built by [`Instruction::encode`].
//!
//! One block for both widths: [`Cipe64`] and [`Cipe256`], each [`SLOTS`] buffers of
//! [`SLOT_BYTES`] (256 × 64-bit or 64 × 256-bit words): a full segment at MTU 1500 (1440 bytes)
//! fits, and the CFE refuses segments larger than a buffer.

use collwire_proto::{Datatype, ReduceOp};
use rust_hdl::prelude::*;

use crate::axis::{PayloadSource, StreamSink};

use crate::cipe_alu::{ALU_LATENCY, CipeAlu, code};
use crate::fifo::Fifo;

/// Clocks from a word accepted on `s_axis` to its result on `m_axis` (queue empty, ready).
pub const CIPE_LATENCY: usize = ALU_LATENCY + 3;
/// Extra clocks the first read of a buffer waits after the last store into it issued: the
/// store reaches the RAM ALU_LATENCY + 3 clocks after its issue (the write-back registered),
/// and the check, registered, sees the store's word up to its last delay stage: a clock
/// after it leaves that stage the word is written, and the read issued then sees it.
pub const STORE_TO_READ: usize = ALU_LATENCY + 3;
/// Words of room the output queue keeps for what is still in the pipeline when it reports
/// almost full (a word issues only while it does not): every word between issue and the queue,
/// plus the queue's own one-clock view of its fill level, with margin.
const OUT_HEADROOM: u32 = (CIPE_LATENCY + 4) as u32;
/// Packet buffers.
pub const SLOTS: usize = 64;

/// Clocks within which `m_axis_soon` promises a result at a `w`-bit `m_axis`: the frame
/// header's beats, `512 / w` (8 at 64 bits, 2 at 256).
pub const fn soon_clocks(w: usize) -> usize {
    512 / w
}
/// Bytes per packet buffer.
pub const SLOT_BYTES: usize = 2048;

/// Whether the `w`-bit CIPE issues the first word of an instruction on the clock the
/// instruction arrives, when it is idle (nothing active, its pipeline empty) and the sender
/// gave the count's derived values beside it ([`InstrAhead`]): at 256 bits, where that clock is
/// on the engine hop (the frame's header is 2 beats, too few to hide the CIPE's latency). At
/// 64 bits the header's 8 beats hide it, and the instruction is always registered first.
pub const fn fast_first(w: usize) -> bool {
    w >= 256
}

/// Beside an instruction on `s_instr` (`s_instr_tuser`), low bits first: its word count's
/// derived values, computed by the sender from registers, so that an idle CIPE issues the
/// first word on the instruction's clock without decoding the count ([`fast_first`]). An
/// instruction without them (`valid` low) is registered first, as at 64 bits. The one
/// definition of the format, used by the CFE that sends it and the CIPE that reads it.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct InstrAhead {
    /// The values below hold for the instruction beside them, and its count is not 0.
    pub valid: Bit,
    /// The count is 1.
    pub one: Bit,
    /// The count is 2.
    pub two: Bit,
    /// The count − 2 (mod 2^12).
    pub after2: Bits<12>,
    pub spare: Bit,
}

impl From<Bits<16>> for InstrAhead {
    fn from(w: Bits<16>) -> InstrAhead {
        let d = InstrAhead::default();
        InstrAhead {
            valid: w.get_bit(d.get_my_offset_valid()),
            one: w.get_bit(d.get_my_offset_one()),
            two: w.get_bit(d.get_my_offset_two()),
            after2: w.get_bits::<12>(d.get_my_offset_after2()),
            spare: w.get_bit(d.get_my_offset_spare()),
        }
    }
}

impl InstrAhead {
    /// The word for an instruction of `count` words (0: none, `valid` low).
    pub fn of(count: u16) -> u16 {
        let a = InstrAhead {
            valid: count != 0,
            one: count == 1,
            two: count == 2,
            after2: u64::from(count.wrapping_sub(2) & 0xfff).into(),
            spare: false,
        };
        Bits::<16>::from(a).to_u64() as u16
    }
}

/// What an instruction streams through the ALU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// Result = the incoming word (store it: load a buffer; emit it: forward).
    Input = 0,
    /// Result = `a` ⊕ incoming (or incoming ⊕ `a` with `swap`).
    Combine = 1,
    /// Result = the word of buffer `a`; no input (send a buffered result).
    Buffer = 2,
    /// Result = `a` ⊕ `b`, two stored buffers (or `b` ⊕ `a` with `swap`); no input.
    Pair = 3,
}

impl Opcode {
    pub fn consumes_input(self) -> bool {
        matches!(self, Opcode::Input | Opcode::Combine)
    }
    pub fn reads_a(self) -> bool {
        self != Opcode::Input
    }
    pub fn reads_b(self) -> bool {
        self == Opcode::Pair
    }
}

/// A CIPE instruction word, low bits first: the one definition of its format, used by
/// [`Instruction::encode`], the CFE that builds instructions and the CIPE that reads them.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct InstrWord {
    /// Word count (bus words).
    pub count: Bits<12>,
    pub spare12: Bit,
    /// Emit the result on `m_axis`.
    pub emit: Bit,
    /// Store the result into `slot_d`.
    pub store: Bit,
    /// The right operand (incoming, or `b`) becomes the left one.
    pub swap: Bit,
    pub slot_a: Bits<7>,
    pub spare23: Bit,
    pub slot_b: Bits<7>,
    pub spare31: Bit,
    pub slot_d: Bits<7>,
    pub spare39: Bit,
    /// [`Opcode`].
    pub opcode: Bits<4>,
    /// Datatype code (collwire-proto).
    pub datatype: Bits<4>,
    /// Reduce op code (collwire-proto).
    pub op: Bits<4>,
    /// Opaque to the CIPE, beside every result beat.
    pub tag: Bits<12>,
}

impl From<Bits<64>> for InstrWord {
    fn from(w: Bits<64>) -> InstrWord {
        let d = InstrWord::default();
        InstrWord {
            count: w.get_bits::<12>(d.get_my_offset_count()),
            spare12: w.get_bit(d.get_my_offset_spare12()),
            emit: w.get_bit(d.get_my_offset_emit()),
            store: w.get_bit(d.get_my_offset_store()),
            swap: w.get_bit(d.get_my_offset_swap()),
            slot_a: w.get_bits::<7>(d.get_my_offset_slot_a()),
            spare23: w.get_bit(d.get_my_offset_spare23()),
            slot_b: w.get_bits::<7>(d.get_my_offset_slot_b()),
            spare31: w.get_bit(d.get_my_offset_spare31()),
            slot_d: w.get_bits::<7>(d.get_my_offset_slot_d()),
            spare39: w.get_bit(d.get_my_offset_spare39()),
            opcode: w.get_bits::<4>(d.get_my_offset_opcode()),
            datatype: w.get_bits::<4>(d.get_my_offset_datatype()),
            op: w.get_bits::<4>(d.get_my_offset_op()),
            tag: w.get_bits::<12>(d.get_my_offset_tag()),
        }
    }
}

/// A CIPE instruction.
///
/// | bits | field |
/// |---|---|
/// | 63:52 | tag: opaque to the CIPE, beside every result beat (the CFE's bookkeeping) |
/// | 51:48 | reduce op code (collwire-proto) |
/// | 47:44 | datatype code (collwire-proto) |
/// | 43:40 | opcode |
/// | 38:32 | `slot_d`: buffer the result is stored into |
/// | 30:24 | `slot_b`: second operand buffer (pair) |
/// | 22:16 | `slot_a`: operand buffer (combine, buffer, pair) |
/// | 15 | swap: the right operand (incoming, or `b`) becomes the left one |
/// | 14 | store the result into `slot_d` |
/// | 13 | emit the result on `m_axis` |
/// | 11:0 | word count (bus words) |
///
/// Bits 39, 31, 23 and 12 are reserved (0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instruction {
    pub tag: u16,
    pub opcode: Opcode,
    pub datatype: u8,
    pub op: u8,
    pub slot_a: u8,
    pub slot_b: u8,
    pub slot_d: u8,
    pub swap: bool,
    pub store: bool,
    pub emit: bool,
    pub count: u16,
}

impl Instruction {
    pub fn encode(&self) -> u64 {
        assert!(
            [self.slot_a, self.slot_b, self.slot_d]
                .iter()
                .all(|s| usize::from(*s) < SLOTS)
                && self.count < 4096
                && self.tag < 4096
        );
        let w = InstrWord {
            count: u64::from(self.count).into(),
            emit: self.emit,
            store: self.store,
            swap: self.swap,
            slot_a: u64::from(self.slot_a).into(),
            slot_b: u64::from(self.slot_b).into(),
            slot_d: u64::from(self.slot_d).into(),
            opcode: (self.opcode as u64).into(),
            datatype: u64::from(self.datatype & 0xf).into(),
            op: u64::from(self.op & 0xf).into(),
            tag: u64::from(self.tag).into(),
            ..Default::default()
        };
        Bits::<64>::from(w).to_u64()
    }
}

/// The CIPE of a `W`-bit datapath (`L64`/`L32` ALU lanes): 2^`WB` words a buffer, `AB`-bit
/// buffer addresses, `OB`-bit output FIFO entries (result, instruction, last, bad).
#[allow(non_snake_case)] // `W`, `WB`, `LAST_AT`, `BAD_AT`: localparams, the first two named as the parameters
#[derive(LogicBlock)]
pub struct Cipe<
    const W: usize,
    const L64: usize,
    const L32: usize,
    const WB: usize,
    const AB: usize,
    const OB: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no instruction active, nothing in the pipeline, the output
    /// FIFO empty. The packet buffers keep their words (every word is written before
    /// an instruction reads it).
    pub reset: Signal<In, Bit>,
    pub s_instr: StreamSink<Bits<64>>,
    /// With `s_instr_tdata`: its [`InstrAhead`] (the count's derived values; `valid` low if
    /// the sender has none).
    pub s_instr_tuser: Signal<In, Bits<16>>,
    pub s_axis: StreamSink<Bits<W>>,
    /// With an input word: it is the last payload word of an offload frame found bad at its
    /// tail ([`crate::offload_splitter`]); the result computed from it leaves with `tbad`.
    pub s_axis_tbad: Signal<In, Bit>,
    pub m_axis: PayloadSource<W>,
    /// The instruction that produced the beat on `m_axis`.
    pub m_axis_tinstr: Signal<Out, Bits<64>>,
    /// A result word is on its way to `m_axis` and arrives within [`soon_clocks`] clocks (it
    /// is in the pipeline's last stages, is being written into the output FIFO, or is in it):
    /// the frame builder sends the header of the frame it belongs to meanwhile, so the result
    /// arrives as the header ends. (The pipeline never stalls, so the arrival time is fixed.)
    pub m_axis_soon: Signal<Out, Bit>,
    pub busy: Signal<Out, Bit>,
    alu: CipeAlu<W, L64, L32>,
    buffer_a: RAM<Bits<W>, AB>,
    buffer_b: RAM<Bits<W>, AB>,
    out: Fifo<Bits<OB>, 5, 6, { OUT_HEADROOM }>,
    // Issue stage.
    active: DFF<Bit>,
    instr: DFF<InstrWord>,
    /// `instr` reads an input word (its opcode below `Buffer`), registered as it loads (so
    /// `issue`, and the instruction's own load behind it, start at flip-flops).
    instr_ni: DFF<Bit>,
    /// The instruction offered on `s_instr`.
    offered: Signal<Local, InstrWord>,
    /// `offered` reads an input word.
    offered_ni: Signal<Local, Bit>,
    /// With an instruction active, its word issues now: `issue` with `active` high, from
    /// flip-flops and the input's valid only (no fast-path or `cur` terms in front of the
    /// instruction's load and the counters' enables).
    issue_active: Signal<Local, Bit>,
    op_input: Constant<Bits<4>>,
    op_combine: Constant<Bits<4>>,
    op_buffer: Constant<Bits<4>>,
    op_pair: Constant<Bits<4>>,
    /// The active instruction's next word (with [`fast_first`], 0 whenever no instruction is
    /// active: it is cleared as an instruction's last word issues, so a first word read on the
    /// clock its instruction arrives needs no multiplexer on the buffers' read address).
    index: DFF<Bits<12>>,
    /// The offered instruction's [`InstrAhead`].
    ahead: Signal<Local, InstrAhead>,
    /// The instruction whose word issues: the active one, or, with none active (at 256 bits),
    /// the one offered.
    cur: Signal<Local, InstrWord>,
    /// No instruction active, one offered with its [`InstrAhead`], and the pipeline empty
    /// (`stirred` low): its first word issues on the clock it arrives, without the clock in
    /// `instr` (docs/cipe.md). Nothing in flight can store into a buffer it reads, so it needs
    /// no read-after-write check. Only where [`fast_first`] is set.
    fast: Signal<Local, Bit>,
    fast_first: Constant<Bit>,
    /// The pipeline may hold a word: one issued last clock or a stage held one then (a
    /// register, computed a clock ahead; low at power-on and after reset, when it is empty).
    stirred: DFF<Bit>,
    /// The word issuing is its instruction's last.
    cur_last: Signal<Local, Bit>,
    /// Words may issue: the active instruction's with no read-after-write wait, or `fast`.
    go: Signal<Local, Bit>,
    /// `index` ≠ 0: the active instruction's first word has issued (a register, so the read-
    /// after-write wait in front of `issue` is not a 12-bit zero test).
    past_first: DFF<Bit>,
    opcode: Signal<Local, Bits<4>>,
    slot_a: Signal<Local, Bits<7>>,
    slot_b: Signal<Local, Bits<7>>,
    needs_input: Signal<Local, Bit>,
    reads_a: Signal<Local, Bit>,
    reads_b: Signal<Local, Bit>,
    hazard: Signal<Local, Bit>,
    /// The read-after-write check, a clock ahead: for the active instruction (`h_cur`), for
    /// the one offered (`h_off`), each registered (`hz_cur`, `hz_off`) beside whether an
    /// instruction was loaded (`hz_load`). `hazard` picks between them: a multiplexer of three
    /// flip-flops, so neither `load` nor `issue` (their enables fan out across the block) is
    /// on the compare's path.
    off_opcode: Signal<Local, Bits<4>>,
    off_reads_a: Signal<Local, Bit>,
    off_reads_b: Signal<Local, Bit>,
    h_cur: Signal<Local, Bit>,
    h_off: Signal<Local, Bit>,
    hz_cur: DFF<Bit>,
    hz_off: DFF<Bit>,
    hz_load: DFF<Bit>,
    load: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    /// The word at `index` is the active instruction's last (registered: `remaining` is 0).
    last_word: DFF<Bit>,
    /// Words of the active instruction after the one at `index`.
    remaining: DFF<Bits<12>>,
    addr_d: Signal<Local, Bits<AB>>,
    // Operand stage.
    p_valid: DFF<Bit>,
    p_in: DFF<Bits<W>>,
    p_addr: DFF<Bits<AB>>,
    p_instr: DFF<InstrWord>,
    p_last: DFF<Bit>,
    /// The input word came marked bad (`s_axis_tbad`: the last payload word of a frame bad at
    /// its tail); the mark goes with it to the result.
    p_bad: DFF<Bit>,
    /// The read stage: the block RAMs' words registered where they come out (the buffers span
    /// most of the part's block RAM, so the far ones are a long route from the ALU: a clock of
    /// its own), the issue stage's registers beside them.
    q_valid: DFF<Bit>,
    q_in: DFF<Bits<W>>,
    q_addr: DFF<Bits<AB>>,
    q_instr: DFF<InstrWord>,
    q_last: DFF<Bit>,
    q_bad: DFF<Bit>,
    q_a: DFF<Bits<W>>,
    q_b: DFF<Bits<W>>,
    /// The operand selects, decoded from `p_instr` a clock ahead (so the instruction's opcode
    /// compare is not in front of the select's fan-out to every bit of both operands and of the
    /// bypass): operand a is the input word (`swap`, not `Pair`) or buffer b's word (`swap`,
    /// `Pair`), else buffer a's; operand b is buffer a's word (`swap`) or buffer b's (`Pair`),
    /// else the input word; the bypass is buffer a's word (`Buffer`), else the input word.
    q_a_is_in: DFF<Bit>,
    q_a_is_b: DFF<Bit>,
    q_b_is_a: DFF<Bit>,
    q_b_is_b: DFF<Bit>,
    q_bypass_a: DFF<Bit>,
    /// The word is an f64 / f32 sum, decoded from `p_instr` a clock ahead: the ALU's adder
    /// operand copies take it as their clock enable (`CipeAlu::sum_f64`), a flip-flop in
    /// front of a 512-way net at 256 bits.
    q_sum_f64: DFF<Bit>,
    q_sum_f32: DFF<Bit>,
    dt_f64: Constant<Bits<4>>,
    dt_f32: Constant<Bits<4>>,
    red_sum: Constant<Bits<4>>,
    // Delay lines beside the ALU.
    d_valid: [DFF<Bit>; ALU_LATENCY],
    d_bypass: [DFF<Bits<W>>; ALU_LATENCY],
    d_addr: [DFF<Bits<AB>>; ALU_LATENCY],
    d_instr: [DFF<Bits<64>>; ALU_LATENCY],
    /// Where `store` and `slot_d` lie in an [`InstrWord`] (the delay line holds words:
    /// rust-hdl cannot name a struct field of an array element inside a loop).
    at_store: Constant<Bits<6>>,
    at_emit: Constant<Bits<6>>,
    at_slot_d: Constant<Bits<6>>,
    d_last: [DFF<Bit>; ALU_LATENCY],
    d_bad: [DFF<Bit>; ALU_LATENCY],
    result: Signal<Local, Bits<W>>,
    /// The last delay stage: the word written back and/or sent.
    wb_instr: Signal<Local, InstrWord>,
    wb_valid: Signal<Local, Bit>,
    wb_addr: Signal<Local, Bits<AB>>,
    wb_bypass: Signal<Local, Bits<W>>,
    wb_last: Signal<Local, Bit>,
    wb_bad: Signal<Local, Bit>,
    in_flight: Signal<Local, Bit>,
    /// The write-back, registered: both buffer copies are written from these, a clock after
    /// the last delay stage. (A read issued in that clock is held back by the hazard check,
    /// which sees the word in the last delay stage a clock before; see [`STORE_TO_READ`].)
    w_en: DFF<Bit>,
    w_addr: DFF<Bits<AB>>,
    w_data: DFF<Bits<W>>,
    /// Delay stages from which an emitted word reaches `m_axis` within [`soon_clocks`].
    soon_stages: Constant<Bits<16>>,
    /// A word to emit is at a `soon_stages` stage, registered: loaded from the stages' `d`
    /// (what they hold the next clock), so `m_axis_soon` is a flip-flop and the FIFO's flag.
    soon_q: DFF<Bit>,
    l_soon: Signal<Local, Bit>,
    /// The ALU's operands, assigned to `alu.a`/`alu.b` once (a default-then-override of a
    /// child's input re-triggers it in event-driven simulators).
    operand_a: Signal<Local, Bits<W>>,
    operand_b: Signal<Local, Bits<W>>,
    /// The word's bits; the word-index bits of a buffer address.
    W: Constant<Bits<16>>,
    WB: Constant<Bits<16>>,
    /// Where `tlast` sits in an output FIFO entry.
    LAST_AT: Constant<Bits<16>>,
    BAD_AT: Constant<Bits<16>>,
}

impl<
    const W: usize,
    const L64: usize,
    const L32: usize,
    const WB: usize,
    const AB: usize,
    const OB: usize,
> Default for Cipe<W, L64, L32, WB, AB, OB>
{
    fn default() -> Self {
        assert!(1 << WB == SLOT_BYTES * 8 / W && 1 << (AB - WB) == SLOTS && OB == W + 64 + 2);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_instr: Default::default(),
            s_instr_tuser: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            m_axis_tinstr: Default::default(),
            m_axis_soon: Default::default(),
            s_axis_tbad: Default::default(),
            busy: Default::default(),
            alu: Default::default(),
            buffer_a: Default::default(),
            buffer_b: Default::default(),
            out: Default::default(),
            active: Default::default(),
            instr: Default::default(),
            offered: Default::default(),
            offered_ni: Default::default(),
            issue_active: Default::default(),
            instr_ni: Default::default(),
            op_input: Constant::new(bits::<4>(Opcode::Input as u64)),
            op_combine: Constant::new(bits::<4>(Opcode::Combine as u64)),
            op_buffer: Constant::new(bits::<4>(Opcode::Buffer as u64)),
            op_pair: Constant::new(bits::<4>(Opcode::Pair as u64)),
            index: Default::default(),
            ahead: Default::default(),
            cur: Default::default(),
            fast: Default::default(),
            fast_first: Constant::new(fast_first(W)),
            stirred: Default::default(),
            cur_last: Default::default(),
            go: Default::default(),
            past_first: Default::default(),
            opcode: Default::default(),
            slot_a: Default::default(),
            slot_b: Default::default(),
            needs_input: Default::default(),
            reads_a: Default::default(),
            reads_b: Default::default(),
            hazard: Default::default(),
            off_opcode: Default::default(),
            off_reads_a: Default::default(),
            off_reads_b: Default::default(),
            h_cur: Default::default(),
            h_off: Default::default(),
            hz_cur: Default::default(),
            hz_off: Default::default(),
            hz_load: Default::default(),
            load: Default::default(),
            issue: Default::default(),
            last_word: Default::default(),
            remaining: Default::default(),
            addr_d: Default::default(),
            p_valid: Default::default(),
            p_in: Default::default(),
            p_addr: Default::default(),
            p_instr: Default::default(),
            p_last: Default::default(),
            p_bad: Default::default(),
            q_valid: Default::default(),
            q_in: Default::default(),
            q_addr: Default::default(),
            q_instr: Default::default(),
            q_a_is_in: Default::default(),
            q_a_is_b: Default::default(),
            q_b_is_a: Default::default(),
            q_b_is_b: Default::default(),
            q_bypass_a: Default::default(),
            q_sum_f64: Default::default(),
            q_sum_f32: Default::default(),
            dt_f64: code(Datatype::F64.code()),
            dt_f32: code(Datatype::F32.code()),
            red_sum: code(ReduceOp::Sum.code()),
            q_last: Default::default(),
            q_bad: Default::default(),
            q_a: Default::default(),
            q_b: Default::default(),
            d_valid: std::array::from_fn(|_| Default::default()),
            d_bypass: std::array::from_fn(|_| Default::default()),
            d_addr: std::array::from_fn(|_| Default::default()),
            d_instr: std::array::from_fn(|_| Default::default()),
            at_store: Constant::new(bits::<6>(InstrWord::default().get_my_offset_store() as u64)),
            at_emit: Constant::new(bits::<6>(InstrWord::default().get_my_offset_emit() as u64)),
            at_slot_d: Constant::new(bits::<6>(InstrWord::default().get_my_offset_slot_d() as u64)),
            d_last: std::array::from_fn(|_| Default::default()),
            d_bad: std::array::from_fn(|_| Default::default()),
            result: Default::default(),
            wb_instr: Default::default(),
            wb_valid: Default::default(),
            wb_addr: Default::default(),
            wb_bypass: Default::default(),
            wb_last: Default::default(),
            wb_bad: Default::default(),
            in_flight: Default::default(),
            w_en: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            // Stage `i` is on `m_axis` ALU_LATENCY − 1 − i + 1 clocks later (write-back, then
            // the output FIFO forwards it): within `soon_clocks` when that is at most it.
            soon_stages: Constant::new(bits::<16>(
                (0..ALU_LATENCY)
                    .filter(|&i| ALU_LATENCY - 1 - i < soon_clocks(W))
                    .fold(0u64, |m, i| m | 1 << i),
            )),
            soon_q: Default::default(),
            l_soon: Default::default(),
            operand_a: Default::default(),
            operand_b: Default::default(),
            W: Constant::new(bits::<16>(W as u64)),
            WB: Constant::new(bits::<16>(WB as u64)),
            LAST_AT: Constant::new(bits::<16>((W + 64) as u64)),
            BAD_AT: Constant::new(bits::<16>((W + 65) as u64)),
        }
    }
}

impl<
    const W: usize,
    const L64: usize,
    const L32: usize,
    const WB: usize,
    const AB: usize,
    const OB: usize,
> Logic for Cipe<W, L64, L32, WB, AB, OB>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, active, instr, instr_ni, index, stirred, past_first, remaining, p_valid,
            p_in, p_addr, p_instr, p_last, p_bad, q_valid, q_in, q_addr, q_instr, q_a_is_in,
            q_a_is_b, q_b_is_a, q_b_is_b, q_bypass_a, q_sum_f64, q_sum_f32, q_last, q_bad, q_a,
            q_b, hz_cur, hz_off, hz_load, last_word, soon_q, w_en, w_addr, w_data
        );
        clock!(self, clock, alu, out);
        self.buffer_a.read_clock.next = self.clock.val();
        self.buffer_a.write_clock.next = self.clock.val();
        self.buffer_b.read_clock.next = self.clock.val();
        self.buffer_b.write_clock.next = self.clock.val();
        for i in 0..ALU_LATENCY {
            self.d_valid[i].clock.next = self.clock.val();
            self.d_bypass[i].clock.next = self.clock.val();
            self.d_addr[i].clock.next = self.clock.val();
            self.d_instr[i].clock.next = self.clock.val();
            self.d_last[i].clock.next = self.clock.val();
            self.d_bad[i].clock.next = self.clock.val();
        }

        // ---- Issue: one word per clock of the active instruction.
        self.offered.next = self.s_instr.tdata.val().into();
        self.opcode.next = self.instr.q.val().opcode;
        self.slot_a.next = self.instr.q.val().slot_a;
        self.slot_b.next = self.instr.q.val().slot_b;
        self.reads_a.next = self.opcode.val() != self.op_input.val();
        self.reads_b.next = self.opcode.val() == self.op_pair.val();
        // Read after write: before its first word (within one instruction every word has its
        // own address), an instruction waits while a store into a buffer it reads is still in
        // the pipeline. The check is registered (it compares against every stage, too deep to
        // sit in front of `issue`): computed a clock ahead, over everything in flight then,
        // both for the active instruction and for the one offered (plus the active one's own
        // stores, which may issue meanwhile); conservative by one clock.
        self.off_opcode.next = self.offered.val().opcode;
        self.off_reads_a.next = self.off_opcode.val() != self.op_input.val();
        self.off_reads_b.next = self.off_opcode.val() == self.op_pair.val();
        self.h_cur.next = false;
        self.h_off.next = false;
        if self.p_valid.q.val() & self.p_instr.q.val().store {
            if (self.reads_a.val() & (self.p_instr.q.val().slot_d == self.slot_a.val()))
                | (self.reads_b.val() & (self.p_instr.q.val().slot_d == self.slot_b.val()))
            {
                self.h_cur.next = true;
            }
            if (self.off_reads_a.val() & (self.p_instr.q.val().slot_d == self.offered.val().slot_a))
                | (self.off_reads_b.val()
                    & (self.p_instr.q.val().slot_d == self.offered.val().slot_b))
            {
                self.h_off.next = true;
            }
        }
        if self.q_valid.q.val() & self.q_instr.q.val().store {
            if (self.reads_a.val() & (self.q_instr.q.val().slot_d == self.slot_a.val()))
                | (self.reads_b.val() & (self.q_instr.q.val().slot_d == self.slot_b.val()))
            {
                self.h_cur.next = true;
            }
            if (self.off_reads_a.val() & (self.q_instr.q.val().slot_d == self.offered.val().slot_a))
                | (self.off_reads_b.val()
                    & (self.q_instr.q.val().slot_d == self.offered.val().slot_b))
            {
                self.h_off.next = true;
            }
        }
        for i in 0..ALU_LATENCY {
            if self.d_valid[i].q.val()
                & self.d_instr[i].q.val().get_bit(self.at_store.val().index())
            {
                if (self.reads_a.val()
                    & (self.d_instr[i]
                        .q
                        .val()
                        .get_bits::<7>(self.at_slot_d.val().index())
                        == self.slot_a.val()))
                    | (self.reads_b.val()
                        & (self.d_instr[i]
                            .q
                            .val()
                            .get_bits::<7>(self.at_slot_d.val().index())
                            == self.slot_b.val()))
                {
                    self.h_cur.next = true;
                }
                if (self.off_reads_a.val()
                    & (self.d_instr[i]
                        .q
                        .val()
                        .get_bits::<7>(self.at_slot_d.val().index())
                        == self.offered.val().slot_a))
                    | (self.off_reads_b.val()
                        & (self.d_instr[i]
                            .q
                            .val()
                            .get_bits::<7>(self.at_slot_d.val().index())
                            == self.offered.val().slot_b))
                {
                    self.h_off.next = true;
                }
            }
        }
        if self.active.q.val()
            & self.instr.q.val().store
            & ((self.off_reads_a.val() & (self.instr.q.val().slot_d == self.offered.val().slot_a))
                | (self.off_reads_b.val()
                    & (self.instr.q.val().slot_d == self.offered.val().slot_b)))
        {
            self.h_off.next = true;
        }
        self.hazard.next = self.hz_cur.q.val();
        if self.hz_load.q.val() {
            self.hazard.next = self.hz_off.q.val();
        }
        // The word that issues is the active instruction's; with none active, the offered
        // one's first (`fast`, only with the pipeline empty: then no store is in flight, and
        // the read-after-write check has nothing to wait for).
        self.ahead.next = self.s_instr_tuser.val().into();
        self.cur.next = self.instr.q.val();
        self.cur_last.next = self.last_word.q.val();
        if !self.active.q.val() & self.fast_first.val() {
            self.cur.next = self.offered.val();
            self.cur_last.next = self.ahead.val().one;
        }
        self.fast.next = self.fast_first.val()
            & !self.active.q.val()
            & !self.stirred.q.val()
            & self.s_instr.tvalid.val()
            & self.ahead.val().valid;
        self.go.next = (self.active.q.val() & !self.hazard.val()) | self.fast.val();
        self.offered_ni.next = self.offered.val().opcode < self.op_buffer.val();
        self.needs_input.next = self.instr_ni.q.val();
        if !self.active.q.val() & self.fast_first.val() {
            self.needs_input.next = self.offered_ni.val();
        }
        self.issue.next = self.go.val()
            & (self.s_axis.tvalid.val() | !self.needs_input.val())
            & !self.out.almost_full.val();
        self.s_axis.tready.next =
            self.go.val() & self.needs_input.val() & !self.out.almost_full.val();
        // `remaining` counts down beside `index` (words after this one), and whether it is 0
        // is registered beside it: the last word is a flip-flop in front of `issue`, not a
        // 12-bit zero test. (`index` is 0 with no instruction active at 256 bits, so the first
        // word's address is the offered instruction's buffers with no multiplexer on the index.)
        self.buffer_a.read_address.next = (bit_cast::<AB, 7>(self.cur.val().slot_a)
            << self.WB.val())
            | bit_cast::<AB, WB>(self.index.q.val().get_bits::<WB>(0));
        self.buffer_b.read_address.next = (bit_cast::<AB, 7>(self.cur.val().slot_b)
            << self.WB.val())
            | bit_cast::<AB, WB>(self.index.q.val().get_bits::<WB>(0));
        self.addr_d.next = (bit_cast::<AB, 7>(self.cur.val().slot_d) << self.WB.val())
            | bit_cast::<AB, WB>(self.index.q.val().get_bits::<WB>(0));
        self.issue_active.next = !self.hazard.val()
            & (self.s_axis.tvalid.val() | !self.instr_ni.q.val())
            & !self.out.almost_full.val();
        if self.issue_active.val() & self.active.q.val() {
            self.index.d.next = self.index.q.val() + bits::<12>(1);
            self.past_first.d.next = true;
            self.remaining.d.next = self.remaining.q.val() - bits::<12>(1);
            self.last_word.d.next = self.remaining.q.val() == bits::<12>(1);
            if self.last_word.q.val() {
                self.active.d.next = false;
                if self.fast_first.val() {
                    self.index.d.next = bits::<12>(0);
                }
            }
        }
        // A new instruction when idle or as the last word of the current one issues.
        self.s_instr.tready.next =
            !self.active.q.val() | (self.issue_active.val() & self.last_word.q.val());
        self.load.next = self.s_instr.tvalid.val()
            & (!self.active.q.val() | (self.issue_active.val() & self.last_word.q.val()));
        if self.load.val() {
            self.instr.d.next = self.offered.val();
            self.instr_ni.d.next = self.offered_ni.val();
            self.index.d.next = bits::<12>(0);
            self.past_first.d.next = false;
            self.remaining.d.next = self.offered.val().count - bits::<12>(1);
            self.last_word.d.next = self.offered.val().count == bits::<12>(1);
            self.active.d.next = self.offered.val().count != bits::<12>(0);
            if self.fast.val() & self.issue.val() {
                // Its first word issued now: on from the second (an instruction of one word
                // is done), from the sender's derived values (no count decoded here).
                self.index.d.next = bits::<12>(1);
                self.past_first.d.next = true;
                self.remaining.d.next = self.ahead.val().after2;
                self.last_word.d.next = self.ahead.val().two;
                self.active.d.next = !self.ahead.val().one;
                if self.ahead.val().one {
                    self.index.d.next = bits::<12>(0);
                }
            }
        }
        // Empty next clock unless a word issues now or a stage holds one now.
        self.stirred.d.next = self.issue.val() | self.p_valid.q.val() | self.q_valid.q.val();
        for i in 0..ALU_LATENCY {
            if self.d_valid[i].q.val() {
                self.stirred.d.next = true;
            }
        }
        self.p_valid.d.next = self.issue.val();
        self.p_in.d.next = self.s_axis.tdata.val();
        self.p_addr.d.next = self.addr_d.val();
        self.p_instr.d.next = self.cur.val();
        self.p_last.d.next = self.cur_last.val();
        self.p_bad.d.next = self.needs_input.val() & self.s_axis_tbad.val();

        // ---- Read: the stored words arrive from the block RAMs and are registered.
        self.q_valid.d.next = self.p_valid.q.val();
        self.q_in.d.next = self.p_in.q.val();
        self.q_addr.d.next = self.p_addr.q.val();
        self.q_instr.d.next = self.p_instr.q.val();
        self.q_a_is_in.d.next =
            self.p_instr.q.val().swap & (self.p_instr.q.val().opcode != self.op_pair.val());
        self.q_a_is_b.d.next =
            self.p_instr.q.val().swap & (self.p_instr.q.val().opcode == self.op_pair.val());
        self.q_b_is_a.d.next = self.p_instr.q.val().swap;
        self.q_b_is_b.d.next =
            !self.p_instr.q.val().swap & (self.p_instr.q.val().opcode == self.op_pair.val());
        self.q_bypass_a.d.next = self.p_instr.q.val().opcode == self.op_buffer.val();
        self.q_sum_f64.d.next = (self.p_instr.q.val().datatype == self.dt_f64.val())
            & (self.p_instr.q.val().op == self.red_sum.val());
        self.q_sum_f32.d.next = (self.p_instr.q.val().datatype == self.dt_f32.val())
            & (self.p_instr.q.val().op == self.red_sum.val());
        self.q_last.d.next = self.p_last.q.val();
        self.q_bad.d.next = self.p_bad.q.val();
        self.q_a.d.next = self.buffer_a.read_data.val();
        self.q_b.d.next = self.buffer_b.read_data.val();

        // ---- Operand: into the ALU (left = lower ranks).
        self.operand_a.next = self.q_a.q.val();
        if self.q_a_is_in.q.val() {
            self.operand_a.next = self.q_in.q.val();
        }
        if self.q_a_is_b.q.val() {
            self.operand_a.next = self.q_b.q.val();
        }
        self.operand_b.next = self.q_in.q.val();
        if self.q_b_is_a.q.val() {
            self.operand_b.next = self.q_a.q.val();
        }
        if self.q_b_is_b.q.val() {
            self.operand_b.next = self.q_b.q.val();
        }
        self.alu.a.next = self.operand_a.val();
        self.alu.b.next = self.operand_b.val();
        self.alu.datatype.next = self.q_instr.q.val().datatype;
        self.alu.op.next = self.q_instr.q.val().op;
        self.alu.sum_f64.next = self.q_sum_f64.q.val();
        self.alu.sum_f32.next = self.q_sum_f32.q.val();
        self.alu.valid_in.next = self.q_valid.q.val();
        self.d_valid[0].d.next = self.q_valid.q.val();
        self.d_bypass[0].d.next = self.q_in.q.val();
        if self.q_bypass_a.q.val() {
            self.d_bypass[0].d.next = self.q_a.q.val();
        }
        self.d_addr[0].d.next = self.q_addr.q.val();
        self.d_instr[0].d.next = self.q_instr.q.val().into();
        self.d_last[0].d.next = self.q_last.q.val();
        self.d_bad[0].d.next = self.q_bad.q.val();
        for i in 1..ALU_LATENCY {
            self.d_valid[i].d.next = self.d_valid[i - 1].q.val();
            self.d_bypass[i].d.next = self.d_bypass[i - 1].q.val();
            self.d_addr[i].d.next = self.d_addr[i - 1].q.val();
            self.d_instr[i].d.next = self.d_instr[i - 1].q.val();
            self.d_last[i].d.next = self.d_last[i - 1].q.val();
            self.d_bad[i].d.next = self.d_bad[i - 1].q.val();
        }

        // ---- Write-back (both RAM copies) and out, from the last delay stage (a one-pass
        // loop: rust-hdl evaluates an array index in Verilog, a loop bound in Rust).
        for i in (ALU_LATENCY - 1)..ALU_LATENCY {
            self.wb_instr.next = self.d_instr[i].q.val().into();
            self.wb_valid.next = self.d_valid[i].q.val();
            self.wb_addr.next = self.d_addr[i].q.val();
            self.wb_bypass.next = self.d_bypass[i].q.val();
            self.wb_last.next = self.d_last[i].q.val();
            self.wb_bad.next = self.d_bad[i].q.val();
        }
        self.result.next = self.wb_bypass.val();
        if (self.wb_instr.val().opcode == self.op_combine.val())
            | (self.wb_instr.val().opcode == self.op_pair.val())
        {
            self.result.next = self.alu.result.val();
        }
        self.w_en.d.next = self.wb_valid.val() & self.wb_instr.val().store;
        self.w_addr.d.next = self.wb_addr.val();
        self.w_data.d.next = self.result.val();
        self.buffer_a.write_address.next = self.w_addr.q.val();
        self.buffer_a.write_data.next = self.w_data.q.val();
        self.buffer_a.write_enable.next = self.w_en.q.val();
        self.buffer_b.write_address.next = self.w_addr.q.val();
        self.buffer_b.write_data.next = self.w_data.q.val();
        self.buffer_b.write_enable.next = self.w_en.q.val();
        self.out.write.next = self.wb_valid.val() & self.wb_instr.val().emit;
        self.out.data_in.next = bit_cast::<OB, W>(self.result.val())
            | (bit_cast::<OB, 64>(self.wb_instr.val().into()) << self.W.val())
            | (bit_cast::<OB, 1>(self.wb_last.val().into()) << self.LAST_AT.val())
            | (bit_cast::<OB, 1>(self.wb_bad.val().into()) << self.BAD_AT.val());
        self.m_axis.tvalid.next = !self.out.empty.val();
        self.m_axis.tdata.next = self.out.data_out.val().get_bits::<W>(0);
        self.m_axis_tinstr.next = self.out.data_out.val().get_bits::<64>(W);
        self.m_axis.tlast.next = self.out.data_out.val().get_bit(W + 64);
        self.m_axis.tbad.next = self.out.data_out.val().get_bit(W + 65);
        self.out.read.next = self.m_axis.tready.val() & !self.out.empty.val();
        self.m_axis_soon.next = self.soon_q.q.val() | !self.out.empty.val();
        self.in_flight.next = self.p_valid.q.val() | self.q_valid.q.val() | self.w_en.q.val();
        for i in 0..ALU_LATENCY {
            if self.d_valid[i].q.val() {
                self.in_flight.next = true;
            }
        }
        self.busy.next = self.active.q.val() | self.in_flight.val() | !self.out.empty.val();
        self.alu.reset.next = self.reset.val();
        self.out.reset.next = self.reset.val();
        self.out.early.next = true;
        if self.reset.val() {
            self.active.d.next = false;
            self.instr.d.next = bits::<64>(0).into();
            self.instr_ni.d.next = bits::<4>(0) < self.op_buffer.val();
            self.index.d.next = bits::<12>(0);
            self.past_first.d.next = false;
            self.remaining.d.next = bits::<12>(0);
            self.last_word.d.next = true;
            self.p_valid.d.next = false;
            self.q_valid.d.next = false;
            self.w_en.d.next = false;
            // Every stage is cleared: empty on the next clock.
            self.stirred.d.next = false;
            for i in 0..ALU_LATENCY {
                self.d_valid[i].d.next = false;
            }
        }
        // Next clock's hazard inputs (cleared by reset): the check of the instruction then
        // active, of the one offered, and whether that one is loaded now. None once the first
        // word has issued: `past_first`'s flip-flop masks `hz_cur`, not its next value, which
        // hangs on `issue` and `load`. On the clock the first word issues `h_cur` is low
        // anyway: every word in flight then was checked the clock before (the issue needed
        // that check clear), but the one issued then, which belongs to an instruction that
        // was done by then or, if this one was loaded on that clock, was in that clock's
        // `h_off` (the active instruction's own stores).
        self.hz_cur.d.next = !self.reset.val() & !self.past_first.q.val() & self.h_cur.val();
        self.hz_off.d.next = !self.reset.val() & self.h_off.val();
        self.hz_load.d.next = !self.reset.val() & self.load.val();
        // A word at delay stage `i` reaches `m_axis` ALU_LATENCY − 1 − i clocks later plus
        // the output FIFO's one (`early`: a word written is the head the next clock). Read
        // from the stages' `d` after every assignment above (reset included), `soon_q` holds
        // next clock what the stages' `q` then say.
        self.l_soon.next = false;
        for i in 0..ALU_LATENCY {
            if self.d_valid[i].d.val()
                & self.d_instr[i].d.val().get_bit(self.at_emit.val().index())
                & self.soon_stages.val().get_bit(i)
            {
                self.l_soon.next = true;
            }
        }
        self.soon_q.d.next = self.l_soon.val();
    }
}

/// ZedBoard: 64-bit words, 256 a buffer.
pub type Cipe64 = Cipe<64, 1, 2, 8, 14, 130>;
/// NetFPGA SUME: 256-bit words, 64 a buffer.
pub type Cipe256 = Cipe<256, 4, 8, 6, 12, 322>;

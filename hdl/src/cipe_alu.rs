//! The CIPE's streaming ALU: combines a stored operand word `a` with an incoming word `b`,
//! lane by lane, one bus word per clock (II = 1), for every valid (datatype, op) pair of
//! `collwire_proto::reduce` — bit-exact.
//!
//! A 64-bit word holds 1 × 64-bit or 2 × 32-bit lanes; a 256-bit word 4 or 8. Float SUM goes
//! through the pipelined IEEE adders ([`crate::fp_add`]); every other op is computed in short
//! pipelined stages and delayed to the same latency, so results never reorder. The operands are
//! registered on the way in.
//! Integer MIN/MAX compare keys (sign bit flipped for signed types); float MIN/MAX compare the
//! IEEE total-order key (`sign ? !x : x | sign_bit`), which orders −0 below +0; a NaN operand
//! gives the canonical NaN. An invalid pair (never emitted by the parser) returns `a`.
//!
//! One block for both widths, generic in the word (`W` bits, `L64 = W / 64` and `L32 = W / 32`
//! lanes): [`CipeAlu64`] and [`CipeAlu256`]. Each lane is a [`LaneOp`] (every op but float
//! SUM, [`LANE_LATENCY`] clocks after the key stage, [`KEY_LATENCY`]) beside an IEEE adder; [`crate::place::Place`] puts a lane's result at its bits of the word.

use collwire_proto::{Datatype, ReduceOp};
use rust_hdl::prelude::*;

use crate::fp_add::{FP_ADD_LATENCY, FpAdd32, FpAdd64};
use crate::place::Place;

/// Clocks from operands in to result out: the operand register, then the adders' pipeline.
pub const ALU_LATENCY: usize = FP_ADD_LATENCY + 1;
/// Clocks through a [`LaneOp`].
pub const LANE_LATENCY: usize = 2;
/// Clocks from the operand register to a [`LaneOp`]'s input: the key stage ([`LaneKey`] of
/// the registered operands, registered beside them).
pub const KEY_LATENCY: usize = 1;
/// Stages that delay a [`LaneOp`] result to the adders' latency.
const OTHER_DELAY: usize = FP_ADD_LATENCY - KEY_LATENCY - LANE_LATENCY;

/// A 4-bit header code as a hardware constant (the codes come from `collwire-proto`).
pub(crate) fn code(c: u8) -> Constant<Bits<4>> {
    Constant::new(bits::<4>(u64::from(c)))
}

/// A bitwise op as the truth table of one result bit over the operands' bits: bit `2·b + a`
/// of the table is the result for operand bits `a`, `b`.
const TT_A: u64 = 0b1010;
const TT_B: u64 = 0b1100;
const TT_AND: u64 = 0b1000;
const TT_OR: u64 = 0b1110;
const TT_XOR: u64 = 0b0110;
const TT_ONE: u64 = 0b1111;

/// One lane of `LW` bits (32 or 64): every (datatype, op) result but float SUM, in
/// [`LANE_LATENCY`] clocks. Stage 1 registers the compare, the integer sum, the NaN and
/// zero tests and the op decoded (a lane that is not `active` decodes as nothing). Stage 2
/// turns them into selects, registered: a truth table over the operands' bits (`a`, `b`,
/// and, or, xor; the logical ops' 0 or 1 in bit 0), the sum, the canonical NaN. After that
/// only the selects are applied, bit by bit, so nothing decodes the op or a compare on the
/// way out (the op register, decoded after its register and fanned out over every lane's
/// result, was cipe256's worst path; the compare and the decode in one stage were then
/// cipe_alu256's). The stages are free: the other ops wait for the IEEE adders anyway. The
/// lane's signed and float datatypes are the `LW`-bit ones. A lane whose width is not the
/// datatype's (`active` low) gives zero.
#[derive(LogicBlock)]
pub struct LaneOp<const LW: usize> {
    pub clock: Signal<In, Clock>,
    pub a: Signal<In, Bits<LW>>,
    pub b: Signal<In, Bits<LW>>,
    /// The compare keys of `a` and `b` ([`LaneKey`], computed and registered a stage ahead):
    /// the unsigned order of the keys is the datatype's order.
    pub ka: Signal<In, Bits<LW>>,
    pub kb: Signal<In, Bits<LW>>,
    /// `collwire_proto::ReduceOp` code.
    pub op: Signal<In, Bits<4>>,
    /// The datatype is a float (of either width).
    pub is_float: Signal<In, Bit>,
    /// The datatype's width is the lane's: when low, the lane's result is zero (so the ALU
    /// ORs its 32- and 64-bit lanes' words instead of selecting one).
    pub active: Signal<In, Bit>,
    pub r: Signal<Out, Bits<LW>>,
    op_sum: Constant<Bits<4>>,
    op_min: Constant<Bits<4>>,
    op_max: Constant<Bits<4>>,
    op_band: Constant<Bits<4>>,
    op_land: Constant<Bits<4>>,
    op_bor: Constant<Bits<4>>,
    op_lor: Constant<Bits<4>>,
    op_bxor: Constant<Bits<4>>,
    op_lxor: Constant<Bits<4>>,
    tt_a: Constant<Bits<4>>,
    tt_b: Constant<Bits<4>>,
    tt_and: Constant<Bits<4>>,
    tt_or: Constant<Bits<4>>,
    tt_xor: Constant<Bits<4>>,
    tt_one: Constant<Bits<4>>,
    tt_zero: Constant<Bits<4>>,
    nan: Constant<Bits<LW>>,
    exp_mask: Constant<Bits<LW>>,
    frac_mask: Constant<Bits<LW>>,
    zero: Constant<Bits<LW>>,
    nan_a: Signal<Local, Bit>,
    nan_b: Signal<Local, Bit>,
    /// The table of the ops that need no compare and no zero test, before its register.
    tt_op: Signal<Local, Bits<4>>,
    /// The result takes `b` (MIN or MAX), and a logical op's result is 1.
    take_b: Signal<Local, Bit>,
    one: Signal<Local, Bit>,
    // Stage 1, registered.
    r1_a: DFF<Bits<LW>>,
    r1_b: DFF<Bits<LW>>,
    r1_sum: DFF<Bits<LW>>,
    /// `b` orders before / after `a`.
    r1_b_less: DFF<Bit>,
    r1_b_greater: DFF<Bit>,
    r1_a_any: DFF<Bit>,
    r1_b_any: DFF<Bit>,
    r1_tt: DFF<Bits<4>>,
    r1_min: DFF<Bit>,
    r1_max: DFF<Bit>,
    r1_land: DFF<Bit>,
    r1_lor: DFF<Bit>,
    r1_lxor: DFF<Bit>,
    r1_sum_sel: DFF<Bit>,
    r1_nan: DFF<Bit>,
    // Stage 2, registered: the selects.
    r2_a: DFF<Bits<LW>>,
    r2_b: DFF<Bits<LW>>,
    r2_sum: DFF<Bits<LW>>,
    /// The truth tables of bits 1.. and of bit 0.
    r2_tt: DFF<Bits<4>>,
    r2_tt0: DFF<Bits<4>>,
    /// The result is the integer sum.
    r2_sum_sel: DFF<Bit>,
    /// A float operand is a NaN: the result is the canonical NaN.
    r2_nan: DFF<Bit>,
    /// Bit 0 of the result, from `r2_tt0`.
    lo: Signal<Local, Bit>,
    /// Drives `r`, assigned once at the end of `update`.
    result: Signal<Local, Bits<LW>>,
}

impl<const LW: usize> Default for LaneOp<LW> {
    fn default() -> Self {
        let (nan, frac_bits) = match LW {
            32 => (u64::from(collwire_proto::reduce::F32_CANONICAL_NAN), 23),
            64 => (collwire_proto::reduce::F64_CANONICAL_NAN, 52),
            _ => panic!("LaneOp: lanes are 32 or 64 bits"),
        };
        let all = u64::MAX >> (64 - LW);
        let sign = 1u64 << (LW - 1);
        let frac = (1u64 << frac_bits) - 1;
        let tt = |t: u64| Constant::new(bits::<4>(t));
        Self {
            clock: Default::default(),
            a: Default::default(),
            b: Default::default(),
            ka: Default::default(),
            kb: Default::default(),
            op: Default::default(),
            is_float: Default::default(),
            active: Default::default(),
            r: Default::default(),
            op_sum: code(ReduceOp::Sum.code()),
            op_min: code(ReduceOp::Min.code()),
            op_max: code(ReduceOp::Max.code()),
            op_band: code(ReduceOp::Band.code()),
            op_land: code(ReduceOp::Land.code()),
            op_bor: code(ReduceOp::Bor.code()),
            op_lor: code(ReduceOp::Lor.code()),
            op_bxor: code(ReduceOp::Bxor.code()),
            op_lxor: code(ReduceOp::Lxor.code()),
            tt_a: tt(TT_A),
            tt_b: tt(TT_B),
            tt_and: tt(TT_AND),
            tt_or: tt(TT_OR),
            tt_xor: tt(TT_XOR),
            tt_one: tt(TT_ONE),
            tt_zero: tt(0),
            nan: Constant::new(bits::<LW>(nan)),
            exp_mask: Constant::new(bits::<LW>(all & !sign & !frac)),
            frac_mask: Constant::new(bits::<LW>(frac)),
            zero: Constant::new(bits::<LW>(0)),
            nan_a: Default::default(),
            nan_b: Default::default(),
            tt_op: Default::default(),
            take_b: Default::default(),
            one: Default::default(),
            r1_a: Default::default(),
            r1_b: Default::default(),
            r1_sum: Default::default(),
            r1_b_less: Default::default(),
            r1_b_greater: Default::default(),
            r1_a_any: Default::default(),
            r1_b_any: Default::default(),
            r1_tt: Default::default(),
            r1_min: Default::default(),
            r1_max: Default::default(),
            r1_land: Default::default(),
            r1_lor: Default::default(),
            r1_lxor: Default::default(),
            r1_sum_sel: Default::default(),
            r1_nan: Default::default(),
            r2_a: Default::default(),
            r2_b: Default::default(),
            r2_sum: Default::default(),
            r2_tt: Default::default(),
            r2_tt0: Default::default(),
            r2_sum_sel: Default::default(),
            r2_nan: Default::default(),
            lo: Default::default(),
            result: Default::default(),
        }
    }
}

impl<const LW: usize> Logic for LaneOp<LW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r1_a,
            r1_b,
            r1_sum,
            r1_b_less,
            r1_b_greater,
            r1_a_any,
            r1_b_any,
            r1_tt,
            r1_min,
            r1_max,
            r1_land,
            r1_lor,
            r1_lxor,
            r1_sum_sel,
            r1_nan,
            r2_a,
            r2_b,
            r2_sum,
            r2_tt,
            r2_tt0,
            r2_sum_sel,
            r2_nan
        );
        // ---- Stage 1: compare, sum, NaN and zero tests; the op decoded.
        self.nan_a.next = ((self.a.val() & self.exp_mask.val()) == self.exp_mask.val())
            & (self.a.val() & self.frac_mask.val()).any();
        self.nan_b.next = ((self.b.val() & self.exp_mask.val()) == self.exp_mask.val())
            & (self.b.val() & self.frac_mask.val()).any();
        self.r1_a.d.next = self.a.val();
        self.r1_b.d.next = self.b.val();
        self.r1_sum.d.next = self.a.val() + self.b.val();
        self.r1_b_less.d.next = self.kb.val() < self.ka.val();
        self.r1_b_greater.d.next = self.kb.val() > self.ka.val();
        self.r1_a_any.d.next = self.a.val().any();
        self.r1_b_any.d.next = self.b.val().any();
        // One table for every bit of the bitwise ops; `a` for MIN and MAX (until their
        // compare says `b`) and for an invalid op; nothing for SUM and the logical ops.
        self.tt_op.next = self.tt_a.val();
        if self.op.val() == self.op_band.val() {
            self.tt_op.next = self.tt_and.val();
        }
        if self.op.val() == self.op_bor.val() {
            self.tt_op.next = self.tt_or.val();
        }
        if self.op.val() == self.op_bxor.val() {
            self.tt_op.next = self.tt_xor.val();
        }
        if (self.op.val() == self.op_sum.val())
            | (self.op.val() == self.op_land.val())
            | (self.op.val() == self.op_lor.val())
            | (self.op.val() == self.op_lxor.val())
        {
            self.tt_op.next = self.tt_zero.val();
        }
        self.r1_tt.d.next = self.tt_zero.val();
        if self.active.val() {
            self.r1_tt.d.next = self.tt_op.val();
        }
        self.r1_min.d.next = self.active.val() & (self.op.val() == self.op_min.val());
        self.r1_max.d.next = self.active.val() & (self.op.val() == self.op_max.val());
        self.r1_land.d.next = self.active.val() & (self.op.val() == self.op_land.val());
        self.r1_lor.d.next = self.active.val() & (self.op.val() == self.op_lor.val());
        self.r1_lxor.d.next = self.active.val() & (self.op.val() == self.op_lxor.val());
        self.r1_sum_sel.d.next = self.active.val() & (self.op.val() == self.op_sum.val());
        self.r1_nan.d.next =
            self.active.val() & self.is_float.val() & (self.nan_a.val() | self.nan_b.val());

        // ---- Stage 2: the selects.
        self.take_b.next = (self.r1_min.q.val() & self.r1_b_less.q.val())
            | (self.r1_max.q.val() & self.r1_b_greater.q.val());
        self.one.next = (self.r1_land.q.val() & self.r1_a_any.q.val() & self.r1_b_any.q.val())
            | (self.r1_lor.q.val() & (self.r1_a_any.q.val() | self.r1_b_any.q.val()))
            | (self.r1_lxor.q.val() & (self.r1_a_any.q.val() != self.r1_b_any.q.val()));
        self.r2_tt.d.next = self.r1_tt.q.val();
        if self.take_b.val() {
            self.r2_tt.d.next = self.tt_b.val();
        }
        self.r2_tt0.d.next = self.r2_tt.d.val();
        if self.one.val() {
            self.r2_tt0.d.next = self.tt_one.val();
        }
        self.r2_a.d.next = self.r1_a.q.val();
        self.r2_b.d.next = self.r1_b.q.val();
        self.r2_sum.d.next = self.r1_sum.q.val();
        self.r2_sum_sel.d.next = self.r1_sum_sel.q.val();
        self.r2_nan.d.next = self.r1_nan.q.val();

        // ---- Out: the selects applied bit by bit (the table is a 4-to-1 mux per bit).
        self.result.next = self.zero.val();
        if self.r2_tt.q.val().get_bit(0) {
            self.result.next = self.result.val() | (!self.r2_a.q.val() & !self.r2_b.q.val());
        }
        if self.r2_tt.q.val().get_bit(1) {
            self.result.next = self.result.val() | (self.r2_a.q.val() & !self.r2_b.q.val());
        }
        if self.r2_tt.q.val().get_bit(2) {
            self.result.next = self.result.val() | (!self.r2_a.q.val() & self.r2_b.q.val());
        }
        if self.r2_tt.q.val().get_bit(3) {
            self.result.next = self.result.val() | (self.r2_a.q.val() & self.r2_b.q.val());
        }
        self.lo.next = (self.r2_tt0.q.val().get_bit(0)
            & !self.r2_a.q.val().get_bit(0)
            & !self.r2_b.q.val().get_bit(0))
            | (self.r2_tt0.q.val().get_bit(1)
                & self.r2_a.q.val().get_bit(0)
                & !self.r2_b.q.val().get_bit(0))
            | (self.r2_tt0.q.val().get_bit(2)
                & !self.r2_a.q.val().get_bit(0)
                & self.r2_b.q.val().get_bit(0))
            | (self.r2_tt0.q.val().get_bit(3)
                & self.r2_a.q.val().get_bit(0)
                & self.r2_b.q.val().get_bit(0));
        self.result.next = self.result.val().replace_bit(0, self.lo.val());
        // SUM's table is zero: the sum is OR-ed in.
        if self.r2_sum_sel.q.val() {
            self.result.next = self.result.val() | self.r2_sum.q.val();
        }
        if self.r2_nan.q.val() {
            self.result.next = self.nan.val();
        }
        self.r.next = self.result.val();
    }
}

/// The compare keys of one lane's operands (combinational): keys whose unsigned order is the
/// order of the lane's datatype: the sign bit flipped for its signed integer type; for its
/// float type, a positive value with the sign bit set and a negative one inverted. The ALU
/// computes them from its registered operands, a stage ahead of [`LaneOp`], and registers
/// them, so the datatype's fan-out to every lane does not sit in front of the lanes' compare
/// carry chains.
#[derive(LogicBlock)]
pub struct LaneKey<const LW: usize> {
    pub a: Signal<In, Bits<LW>>,
    pub b: Signal<In, Bits<LW>>,
    /// `collwire_proto::Datatype` code.
    pub datatype: Signal<In, Bits<4>>,
    pub ka: Signal<Out, Bits<LW>>,
    pub kb: Signal<Out, Bits<LW>>,
    dt_signed: Constant<Bits<4>>,
    dt_float: Constant<Bits<4>>,
    sign: Constant<Bits<LW>>,
    key_a: Signal<Local, Bits<LW>>,
    key_b: Signal<Local, Bits<LW>>,
}

impl<const LW: usize> Default for LaneKey<LW> {
    fn default() -> Self {
        let (signed, float) = match LW {
            32 => (Datatype::Int32, Datatype::F32),
            64 => (Datatype::Int64, Datatype::F64),
            _ => panic!("LaneKey: lanes are 32 or 64 bits"),
        };
        Self {
            a: Default::default(),
            b: Default::default(),
            datatype: Default::default(),
            ka: Default::default(),
            kb: Default::default(),
            dt_signed: code(signed.code()),
            dt_float: code(float.code()),
            sign: Constant::new(bits::<LW>(1u64 << (LW - 1))),
            key_a: Default::default(),
            key_b: Default::default(),
        }
    }
}

impl<const LW: usize> Logic for LaneKey<LW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.key_a.next = self.a.val();
        self.key_b.next = self.b.val();
        if self.datatype.val() == self.dt_signed.val() {
            self.key_a.next = self.a.val() ^ self.sign.val();
            self.key_b.next = self.b.val() ^ self.sign.val();
        }
        if self.datatype.val() == self.dt_float.val() {
            self.key_a.next = self.a.val() | self.sign.val();
            if (self.a.val() & self.sign.val()).any() {
                self.key_a.next = !self.a.val();
            }
            self.key_b.next = self.b.val() | self.sign.val();
            if (self.b.val() & self.sign.val()).any() {
                self.key_b.next = !self.b.val();
            }
        }
        self.ka.next = self.key_a.val();
        self.kb.next = self.key_b.val();
    }
}

/// The lane ALU of a `W`-bit word: `L64` 64-bit or `L32` 32-bit lanes.
#[derive(LogicBlock)]
pub struct CipeAlu<const W: usize, const L64: usize, const L32: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no word in flight.
    pub reset: Signal<In, Bit>,
    /// Stored operand (left: lower-ranked data).
    pub a: Signal<In, Bits<W>>,
    /// Incoming operand (right).
    pub b: Signal<In, Bits<W>>,
    /// `collwire_proto::Datatype` code.
    pub datatype: Signal<In, Bits<4>>,
    /// `collwire_proto::ReduceOp` code.
    pub op: Signal<In, Bits<4>>,
    pub valid_in: Signal<In, Bit>,
    /// The word at the input is an f64 / f32 sum (`datatype` F64 / F32 and `op` Sum), decoded
    /// by the sender a clock ahead and given from a flip-flop: it is the clock enable of every
    /// adder operand copy (`f64_a`/`f64_b`, `f32_a`/`f32_b`: 128 flip-flops each at 64 bits,
    /// 512 each at 256), so nothing but that net's route is in front of them. Decoded here
    /// from `datatype` and `op`, that enable was a compare followed by a 512-way net, board256's
    /// largest group of late endpoints (172 at 150 MHz, up to 7.33 ns). Registered, they are
    /// also the word's tags that select the adders' sums at the output (`f64_sum`, `f32_sum`):
    /// the ALU does not decode datatype and op into them a second time.
    pub sum_f64: Signal<In, Bit>,
    pub sum_f32: Signal<In, Bit>,
    pub result: Signal<Out, Bits<W>>,
    pub valid_out: Signal<Out, Bit>,
    fp64: [FpAdd64; L64],
    fp32: [FpAdd32; L32],
    lane64: [LaneOp<64>; L64],
    lane32: [LaneOp<32>; L32],
    /// Each lane's compare keys, from the registered operands (`in_a`, `in_b`), registered
    /// (`in_k*`) beside the operands' second copy (`k_a`, `k_b`). Nothing before the operand
    /// register is on a key's path: the CIPE's operand select (which word is left, which
    /// right), fanned out over every bit of the word, was cipe256's worst path in front of the
    /// keys (`q_instr` → `alu.lane64[3].ka`, 144.6 MHz on two of three placements). The stage
    /// is free: the lanes' results wait for the IEEE adders anyway.
    key64: [LaneKey<64>; L64],
    key32: [LaneKey<32>; L32],
    in_ka64: [DFF<Bits<64>>; L64],
    in_kb64: [DFF<Bits<64>>; L64],
    in_ka32: [DFF<Bits<32>>; L32],
    in_kb32: [DFF<Bits<32>>; L32],
    place64: [Place<W, 64>; L64],
    place32: [Place<W, 32>; L32],
    place_sum64: [Place<W, 64>; L64],
    place_sum32: [Place<W, 32>; L32],
    dt_int64: Constant<Bits<4>>,
    dt_uint64: Constant<Bits<4>>,
    dt_f32: Constant<Bits<4>>,
    dt_f64: Constant<Bits<4>>,
    /// The operands registered first: whatever drives them (the CIPE's block-RAM outputs and
    /// operand swap) is timed apart from the lanes' compares and the adders' first stage.
    in_a: DFF<Bits<W>>,
    in_b: DFF<Bits<W>>,
    in_datatype: DFF<Bits<4>>,
    in_op: DFF<Bits<4>>,
    /// `sum_f64` / `sum_f32` registered beside `in_datatype` and `in_op`: the first of the
    /// word's tags (`f64_sum[0]`, `f32_sum[0]`) takes them, so "an f64 / f32 sum" is decoded
    /// once, by the sender, and not again here from `in_datatype` and `in_op`.
    in_sum_f64: DFF<Bit>,
    in_sum_f32: DFF<Bit>,
    in_valid: DFF<Bit>,
    /// The key stage: the operands, the op and the datatype's decode a clock after `in_*`,
    /// beside the keys, into the lanes.
    k_a: DFF<Bits<W>>,
    k_b: DFF<Bits<W>>,
    k_op: DFF<Bits<4>>,
    k_float: DFF<Bit>,
    k_wide: DFF<Bit>,
    /// The adders' own copies of the operands, loaded only for their sums (a clock enable, so
    /// synthesis neither merges them with `in_a`/`in_b` nor shares the adders' first-stage
    /// tests with the lanes': each adder's cone starts at registers of its own, placed beside
    /// it. With shared operand registers, board64's worst paths ran from a 32-bit lane's
    /// operand bits into the fp64 adder's first stage and from the fp32 adder's NaN test into
    /// the 64-bit lane's, across the die).
    f64_a: [DFF<Bits<64>>; L64],
    f64_b: [DFF<Bits<64>>; L64],
    f32_a: [DFF<Bits<32>>; L32],
    f32_b: [DFF<Bits<32>>; L32],
    /// Packing accumulators: lanes `0..=i` of the word.
    acc32: [Signal<Local, Bits<W>>; L32],
    sum32: [Signal<Local, Bits<W>>; L32],
    acc64: [Signal<Local, Bits<W>>; L64],
    sum64: [Signal<Local, Bits<W>>; L64],
    /// The packed words: non-adder results and adder sums, per lane width.
    word32: Signal<Local, Bits<W>>,
    word_sum32: Signal<Local, Bits<W>>,
    word64: Signal<Local, Bits<W>>,
    word_sum64: Signal<Local, Bits<W>>,
    is_float: Signal<Local, Bit>,
    wide_lanes: Signal<Local, Bit>,
    /// Drives `result`, assigned once at the end of `update`.
    result_mux: Signal<Local, Bits<W>>,
    // Non-adder results and tags, delayed to the adders' latency.
    other: [DFF<Bits<W>>; OTHER_DELAY],
    f64_sum: [DFF<Bit>; FP_ADD_LATENCY],
    f32_sum: [DFF<Bit>; FP_ADD_LATENCY],
    valid: [DFF<Bit>; FP_ADD_LATENCY],
}

impl<const W: usize, const L64: usize, const L32: usize> Default for CipeAlu<W, L64, L32> {
    fn default() -> Self {
        assert!(
            L64 * 64 == W && L32 * 32 == W,
            "CipeAlu: L64 = W / 64, L32 = W / 32"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            a: Default::default(),
            b: Default::default(),
            datatype: Default::default(),
            op: Default::default(),
            valid_in: Default::default(),
            sum_f64: Default::default(),
            sum_f32: Default::default(),
            result: Default::default(),
            valid_out: Default::default(),
            fp64: std::array::from_fn(|_| Default::default()),
            fp32: std::array::from_fn(|_| Default::default()),
            lane64: std::array::from_fn(|_| Default::default()),
            lane32: std::array::from_fn(|_| Default::default()),
            key64: std::array::from_fn(|_| Default::default()),
            key32: std::array::from_fn(|_| Default::default()),
            in_ka64: std::array::from_fn(|_| Default::default()),
            in_kb64: std::array::from_fn(|_| Default::default()),
            in_ka32: std::array::from_fn(|_| Default::default()),
            in_kb32: std::array::from_fn(|_| Default::default()),
            place64: std::array::from_fn(Place::lane),
            place32: std::array::from_fn(Place::lane),
            place_sum64: std::array::from_fn(Place::lane),
            place_sum32: std::array::from_fn(Place::lane),
            dt_int64: code(Datatype::Int64.code()),
            dt_uint64: code(Datatype::Uint64.code()),
            dt_f32: code(Datatype::F32.code()),
            dt_f64: code(Datatype::F64.code()),
            in_a: Default::default(),
            in_b: Default::default(),
            in_datatype: Default::default(),
            in_op: Default::default(),
            in_sum_f64: Default::default(),
            in_sum_f32: Default::default(),
            in_valid: Default::default(),
            k_a: Default::default(),
            k_b: Default::default(),
            k_op: Default::default(),
            k_float: Default::default(),
            k_wide: Default::default(),
            f64_a: std::array::from_fn(|_| Default::default()),
            f64_b: std::array::from_fn(|_| Default::default()),
            f32_a: std::array::from_fn(|_| Default::default()),
            f32_b: std::array::from_fn(|_| Default::default()),
            acc32: std::array::from_fn(|_| Default::default()),
            sum32: std::array::from_fn(|_| Default::default()),
            acc64: std::array::from_fn(|_| Default::default()),
            sum64: std::array::from_fn(|_| Default::default()),
            word32: Default::default(),
            word_sum32: Default::default(),
            word64: Default::default(),
            word_sum64: Default::default(),
            is_float: Default::default(),
            wide_lanes: Default::default(),
            result_mux: Default::default(),
            other: Default::default(),
            f64_sum: Default::default(),
            f32_sum: Default::default(),
            valid: Default::default(),
        }
    }
}

impl<const W: usize, const L64: usize, const L32: usize> Logic for CipeAlu<W, L64, L32> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_a,
            in_b,
            in_datatype,
            in_op,
            in_sum_f64,
            in_sum_f32,
            in_valid,
            k_a,
            k_b,
            k_op,
            k_float,
            k_wide
        );
        self.in_a.d.next = self.a.val();
        self.in_b.d.next = self.b.val();
        self.in_datatype.d.next = self.datatype.val();
        self.in_op.d.next = self.op.val();
        self.in_sum_f64.d.next = self.sum_f64.val();
        self.in_sum_f32.d.next = self.sum_f32.val();
        self.in_valid.d.next = self.valid_in.val();
        // Loaded exactly when the word's tags (`f64_sum`/`f32_sum`, the same strobes
        // registered) will select the adder's sum, so the adder sees `in_a`/`in_b` then.
        for i in 0..L64 {
            self.f64_a[i].clock.next = self.clock.val();
            self.f64_b[i].clock.next = self.clock.val();
            self.f64_a[i].d.next = self.f64_a[i].q.val();
            self.f64_b[i].d.next = self.f64_b[i].q.val();
            if self.sum_f64.val() {
                self.f64_a[i].d.next = self.a.val().get_bits::<64>(i * 64);
                self.f64_b[i].d.next = self.b.val().get_bits::<64>(i * 64);
            }
        }
        for i in 0..L32 {
            self.f32_a[i].clock.next = self.clock.val();
            self.f32_b[i].clock.next = self.clock.val();
            self.f32_a[i].d.next = self.f32_a[i].q.val();
            self.f32_b[i].d.next = self.f32_b[i].q.val();
            if self.sum_f32.val() {
                self.f32_a[i].d.next = self.a.val().get_bits::<32>(i * 32);
                self.f32_b[i].d.next = self.b.val().get_bits::<32>(i * 32);
            }
        }
        for i in 0..L32 {
            self.key32[i].a.next = self.in_a.q.val().get_bits::<32>(i * 32);
            self.key32[i].b.next = self.in_b.q.val().get_bits::<32>(i * 32);
            self.key32[i].datatype.next = self.in_datatype.q.val();
            self.in_ka32[i].clock.next = self.clock.val();
            self.in_kb32[i].clock.next = self.clock.val();
            self.in_ka32[i].d.next = self.key32[i].ka.val();
            self.in_kb32[i].d.next = self.key32[i].kb.val();
        }
        for i in 0..L64 {
            self.key64[i].a.next = self.in_a.q.val().get_bits::<64>(i * 64);
            self.key64[i].b.next = self.in_b.q.val().get_bits::<64>(i * 64);
            self.key64[i].datatype.next = self.in_datatype.q.val();
            self.in_ka64[i].clock.next = self.clock.val();
            self.in_kb64[i].clock.next = self.clock.val();
            self.in_ka64[i].d.next = self.key64[i].ka.val();
            self.in_kb64[i].d.next = self.key64[i].kb.val();
        }
        for i in 0..OTHER_DELAY {
            self.other[i].clock.next = self.clock.val();
        }
        for i in 0..FP_ADD_LATENCY {
            self.f64_sum[i].clock.next = self.clock.val();
            self.f32_sum[i].clock.next = self.clock.val();
            self.valid[i].clock.next = self.clock.val();
        }
        self.is_float.next = (self.in_datatype.q.val() == self.dt_f32.val())
            | (self.in_datatype.q.val() == self.dt_f64.val());
        self.wide_lanes.next = (self.in_datatype.q.val() == self.dt_int64.val())
            | (self.in_datatype.q.val() == self.dt_uint64.val())
            | (self.in_datatype.q.val() == self.dt_f64.val());
        self.k_a.d.next = self.in_a.q.val();
        self.k_b.d.next = self.in_b.q.val();
        self.k_op.d.next = self.in_op.q.val();
        self.k_float.d.next = self.is_float.val();
        self.k_wide.d.next = self.wide_lanes.val();

        // ---- Lanes: an op block and an adder per lane, results placed back into the word.
        for i in 0..L32 {
            self.lane32[i].clock.next = self.clock.val();
            self.lane32[i].a.next = self.k_a.q.val().get_bits::<32>(i * 32);
            self.lane32[i].b.next = self.k_b.q.val().get_bits::<32>(i * 32);
            self.lane32[i].ka.next = self.in_ka32[i].q.val();
            self.lane32[i].kb.next = self.in_kb32[i].q.val();
            self.lane32[i].op.next = self.k_op.q.val();
            self.lane32[i].is_float.next = self.k_float.q.val();
            self.lane32[i].active.next = !self.k_wide.q.val();
            self.fp32[i].clock.next = self.clock.val();
            self.fp32[i].reset.next = self.reset.val();
            self.fp32[i].a.next = self.f32_a[i].q.val();
            self.fp32[i].b.next = self.f32_b[i].q.val();
            self.fp32[i].valid_in.next = self.in_valid.q.val();
            self.place32[i].lane.next = self.lane32[i].r.val();
            self.place_sum32[i].lane.next = self.fp32[i].sum.val();
        }
        for i in 0..L64 {
            self.lane64[i].clock.next = self.clock.val();
            self.lane64[i].a.next = self.k_a.q.val().get_bits::<64>(i * 64);
            self.lane64[i].b.next = self.k_b.q.val().get_bits::<64>(i * 64);
            self.lane64[i].ka.next = self.in_ka64[i].q.val();
            self.lane64[i].kb.next = self.in_kb64[i].q.val();
            self.lane64[i].op.next = self.k_op.q.val();
            self.lane64[i].is_float.next = self.k_float.q.val();
            self.lane64[i].active.next = self.k_wide.q.val();
            self.fp64[i].clock.next = self.clock.val();
            self.fp64[i].reset.next = self.reset.val();
            self.fp64[i].a.next = self.f64_a[i].q.val();
            self.fp64[i].b.next = self.f64_b[i].q.val();
            self.fp64[i].valid_in.next = self.in_valid.q.val();
            self.place64[i].lane.next = self.lane64[i].r.val();
            self.place_sum64[i].lane.next = self.fp64[i].sum.val();
        }
        self.acc32[0].next = self.place32[0].word.val();
        self.sum32[0].next = self.place_sum32[0].word.val();
        for i in 1..L32 {
            self.acc32[i].next = self.acc32[i - 1].val() | self.place32[i].word.val();
            self.sum32[i].next = self.sum32[i - 1].val() | self.place_sum32[i].word.val();
        }
        self.acc64[0].next = self.place64[0].word.val();
        self.sum64[0].next = self.place_sum64[0].word.val();
        for i in 1..L64 {
            self.acc64[i].next = self.acc64[i - 1].val() | self.place64[i].word.val();
            self.sum64[i].next = self.sum64[i - 1].val() | self.place_sum64[i].word.val();
        }
        // The last partial sums are the words (one-pass loops: rust-hdl evaluates an array
        // index in Verilog, where `L32` does not exist, but a loop bound in Rust).
        for i in (L32 - 1usize)..L32 {
            self.word32.next = self.acc32[i].val();
            self.word_sum32.next = self.sum32[i].val();
        }
        for i in (L64 - 1usize)..L64 {
            self.word64.next = self.acc64[i].val();
            self.word_sum64.next = self.sum64[i].val();
        }

        // ---- Delay the non-adder result (a lane's result comes KEY_LATENCY + LANE_LATENCY
        // clocks after the operand register) and the tags to the adders' latency.
        // The lanes of the other width give zero.
        self.other[0].d.next = self.word32.val() | self.word64.val();
        for i in 1..OTHER_DELAY {
            self.other[i].d.next = self.other[i - 1].q.val();
        }
        self.f64_sum[0].d.next = self.in_sum_f64.q.val();
        self.f32_sum[0].d.next = self.in_sum_f32.q.val();
        self.valid[0].d.next = self.in_valid.q.val();
        for i in 1..FP_ADD_LATENCY {
            self.f64_sum[i].d.next = self.f64_sum[i - 1].q.val();
            self.f32_sum[i].d.next = self.f32_sum[i - 1].q.val();
            self.valid[i].d.next = self.valid[i - 1].q.val();
        }
        // The last stages (one-pass loops: rust-hdl evaluates an array index in Verilog).
        for i in (OTHER_DELAY - 1)..OTHER_DELAY {
            self.result_mux.next = self.other[i].q.val();
        }
        for i in (FP_ADD_LATENCY - 1)..FP_ADD_LATENCY {
            if self.f64_sum[i].q.val() {
                self.result_mux.next = self.word_sum64.val();
            }
            if self.f32_sum[i].q.val() {
                self.result_mux.next = self.word_sum32.val();
            }
            self.valid_out.next = self.valid[i].q.val();
        }
        self.result.next = self.result_mux.val();
        if self.reset.val() {
            self.in_valid.d.next = false;
            for i in 0..FP_ADD_LATENCY {
                self.valid[i].d.next = false;
            }
        }
    }
}

/// ZedBoard datapath: 64-bit words, 1 × 64-bit or 2 × 32-bit lanes.
pub type CipeAlu64 = CipeAlu<64, 1, 2>;
/// NetFPGA SUME datapath: 256-bit words, 4 × 64-bit or 8 × 32-bit lanes.
pub type CipeAlu256 = CipeAlu<256, 4, 8>;

//! Pipelined IEEE 754 adders, binary32 ([`FpAdd32`]) and binary64 ([`FpAdd64`]).
//!
//! Both come from one template (`fp_adder!`), the last `macro_rules!` template in `hdl`: its
//! parameters are a number format (exponent, fraction, significand and window widths, special
//! values), not the bus width. rust-hdl emits a const parameter used inside an expression as a
//! Verilog identifier; the bus-width blocks solve that with a `localparam` of the same name
//! (`FrameRouter`'s `W`, `LAST`, `USER`), which would work here too (about nine parameters,
//! each with its mirror). The re-pipelining for timing (issue 15) kept the template: it changed
//! the stages, not how the two formats share them.
//! Semantics are `collwire_proto::reduce::{f32,f64}::sum`: round-to-nearest-even, subnormal
//! inputs and results, ±0 (x + −x = +0, −0 + −0 = −0), ±inf, and the canonical quiet NaN for any
//! NaN operand or inf − inf. One operation enters per clock (II = 1); the result appears
//! [`FP_ADD_LATENCY`] clocks later with `valid_out`.
//!
//! Pipeline, [`FP_ADD_LATENCY`] = 6 stages, each at most one carry chain or a few levels of
//! multiplexers (so it routes at the boards' clocks; `docs/timing.md`), in two paths after
//! stage 1 (the classic dual-path adder). Widths for binary64: `X` = 64-bit extended
//! significand (53 significand bits, then 11 guard/sticky bits).
//! - The **near path** takes a subtraction of magnitudes whose scales (exponents) are equal or
//!   one apart: nothing falls out of the alignment, so the difference is exact, but it may
//!   cancel to any depth (a long left shift, no rounding beyond one bit).
//! - The **far path** takes every addition and every subtraction with the scales two or more
//!   apart: the alignment may leave sticky bits, but the sum moves at most one bit (a carry
//!   right, a lost leading bit left), so it needs no leading-zero count.
//!
//! The stages:
//! 1. each operand's exponent field all ones, its fraction not zero; significands with their
//!    hidden bits; order by magnitude (`|a| ≥ |b|`, one compare); both differences of the
//!    exponent fields, each clamped to `X` (7 bits), whether exactly one operand is subnormal
//!    (its field difference is then one too many); whether the scales' lowest bits differ;
//!    each operand's normalise budget as a sentinel bit (below);
//! 2. the specials from stage 1's flags. Far: swap into `x ≥ y`; align, coarse: `y` right by
//!    the multiple-of-8 part of the difference in a 2X-bit window (one bit higher in it when
//!    `y` alone is subnormal). Near (opposite signs, the field difference at most one, two
//!    with `y` alone subnormal): `a − b` and `b − a`, each with the other significand one bit
//!    right if the scales' lowest bits differ (two carry chains, no swap or compare in front of
//!    them), the larger magnitude's kept; beside it, the normalise budget as a sentinel bit: a
//!    one at `X − 1 − (e_x − 1)`, so that the leading-zero count never asks for more left
//!    shift than the exponent allows (that is a subnormal result);
//! 3. far: align, fine: right by the rest (0..7); every bit below the top `X` is sticky. Near:
//!    leading-zero count of (difference | sentinel) per 16-bit group ([`crate::leading_zeros`]:
//!    which groups hold a one, each one's count), a zero test;
//! 4. far: add or subtract (no negative result, since `|x| ≥ |y|`), one carry bit; the scale
//!    plus and less one. Near: the count from the first group holding a one (a 4-way priority
//!    select); normalise, coarse: left by its multiple-of-8 part; the exponent;
//! 5. far: a carry moves the sum right by one, a clear top bit left by one (or, with the scale
//!    at 1, makes it subnormal). Near: normalise, fine: left by the rest; a result whose top
//!    bit is clear is subnormal (exponent 0); an exact zero is +0. One of the two;
//! 6. round to nearest even on {exponent, fraction} as one integer, so a mantissa carry ripples
//!    into the exponent (subnormal → normal, max finite → inf); pack; specials override.
//!
//! The single-path pipeline before (2026-12-03) took 8 stages: align, add, count, normalise
//! one after the other. The two paths take the 256-bit engine hop from 22 to 20 cycles.

use rust_hdl::prelude::*;

use crate::leading_zeros::{LeadingZeroGroups64, LeadingZeroTotal64};

/// Clocks from operands in to sum out.
pub const FP_ADD_LATENCY: usize = 6;

/// What the operands make of the result whatever the arithmetic says, decided in stage 2 and
/// carried to the last: a NaN operand or inf − inf (the canonical NaN), an infinity and its sign.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct Special {
    pub nan: Bit,
    pub inf: Bit,
    pub inf_sign: Bit,
}

macro_rules! fp_adder {
    (
        $(#[$doc:meta])*
        $name:ident,
        width = $w:tt, sign = $sgn:tt, exp = $e:tt, frac = $f:tt,
        sig = $m:tt, ext = $x:tt, log2_ext = $xlog:tt, ext_high = $xh:tt, sum = $s:tt, window = $d2:tt,
        inf = $inf:tt, nan = $nan:tt
    ) => {
        // The parameters that follow from others, checked where the template is used: a wrong
        // pair would compile and clamp or normalise at the wrong bit.
        const _: () = assert!(
            $sgn + 1 == $w
                && 1 + $e + $f == $w
                && $m == $f + 1
                && (1usize << $xlog) == $x
                && $x >= $m
                && $xh + $xlog == $e
                && $s == $x + 1
                && $d2 == 2 * $x,
            "fp_adder!: inconsistent parameters"
        );

        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            /// Synchronous reset: no operation in flight (the data registers keep their value;
            /// only valid ones are used).
            pub reset: Signal<In, Bit>,
            pub a: Signal<In, Bits<$w>>,
            pub b: Signal<In, Bits<$w>>,
            pub valid_in: Signal<In, Bit>,
            pub sum: Signal<Out, Bits<$w>>,
            pub valid_out: Signal<Out, Bit>,
            inf_pos: Constant<Bits<$w>>,
            canonical_nan: Constant<Bits<$w>>,
            hidden_bit: Constant<Bits<$m>>,
            /// `X`: no alignment shift is longer.
            ext_limit: Constant<Bits<$e>>,
            /// A one at the top of the extended significand (the sentinel before its shift).
            top_bit: Constant<Bits<$x>>,
            /// Fills the leading-zero counter's bits below a narrow significand with ones.
            lzc_pad: Constant<Bits<64>>,
            /// The special cases, made in stage 2 from stage 1's flags.
            a_nan: Signal<Local, Bit>,
            b_nan: Signal<Local, Bit>,
            a_inf: Signal<Local, Bit>,
            b_inf: Signal<Local, Bit>,
            /// Exponent field 0: subnormal or zero.
            a_zero_exp: Signal<Local, Bit>,
            b_zero_exp: Signal<Local, Bit>,
            ea_eff: Signal<Local, Bits<$e>>,
            eb_eff: Signal<Local, Bits<$e>>,
            d_ab: Signal<Local, Bits<$e>>,
            d_ba: Signal<Local, Bits<$e>>,
            /// Significands (hidden bit set for normal numbers) and signs.
            s1_sig_a: DFF<Bits<$m>>,
            s1_sig_b: DFF<Bits<$m>>,
            s1_sa: DFF<Bit>,
            s1_sb: DFF<Bit>,
            s1_ea: DFF<Bits<$e>>,
            s1_eb: DFF<Bits<$e>>,
            s1_d_ab: DFF<Bits<7>>,
            s1_d_ba: DFF<Bits<7>>,
            s1_swap: DFF<Bit>,
            /// Exactly one operand is subnormal: it is `y`, its field difference one too many.
            s1_ysub: DFF<Bit>,
            /// Each operand's exponent field all ones, and its fraction not zero: the special
            /// cases are made of them in stage 2 (in stage 1, behind the 52-bit OR, they were
            /// fp64's deepest path on board64, seed 1 at 6cd7d27).
            s1_a_emax: DFF<Bit>,
            s1_a_frac: DFF<Bit>,
            s1_b_emax: DFF<Bit>,
            s1_b_frac: DFF<Bit>,
            /// The scales' (exponents') lowest bits differ: if the scales are at most one apart
            /// (the near path), the lower one's significand moves one bit right. From four
            /// bits, not from the exponent difference's carry chain (that and its compares in
            /// one stage were cipe256's worst path on seed 1, 140.0 MHz).
            s1_odd: DFF<Bit>,
            /// Each operand's normalise budget as a sentinel bit: a one at `X − 1 − (e − 1)`
            /// (`e` its scale), decoded here from its exponent field alone (from the scale less
            /// one, multiplexed and decoded in stage 2, it was fp_add64's worst path, 157.5 MHz).
            s1_sent_a: DFF<Bits<$x>>,
            s1_sent_b: DFF<Bits<$x>>,
            s1_valid: DFF<Bit>,
            // Stage 2: swap, coarse alignment.
            sig_x: Signal<Local, Bits<$m>>,
            sig_y: Signal<Local, Bits<$m>>,
            d: Signal<Local, Bits<7>>,
            window: Signal<Local, Bits<$d2>>,
            s2_coarse: DFF<Bits<$d2>>,
            s2_fine: DFF<Bits<3>>,
            s2_sigx: DFF<Bits<$m>>,
            s2_ex: DFF<Bits<$e>>,
            s2_sx: DFF<Bit>,
            s2_sy: DFF<Bit>,
            s2_special: DFF<Special>,
            s2_valid: DFF<Bit>,
            // Stage 2, near path: both differences, the larger one's kept; the normalise
            // budget as a sentinel bit.
            p_now: Signal<Local, Bits<$x>>,
            q_now: Signal<Local, Bits<$x>>,
            near_diff: Signal<Local, Bits<$x>>,
            sentinel: Signal<Local, Bits<$x>>,
            s2_nv: DFF<Bits<$x>>,
            s2_lz_in: DFF<Bits<$x>>,
            s2_near: DFF<Bit>,
            // Stage 3: fine alignment, sticky.
            fine: Signal<Local, Bits<$d2>>,
            s3_x: DFF<Bits<$x>>,
            s3_y: DFF<Bits<$x>>,
            s3_sticky: DFF<Bit>,
            s3_ex: DFF<Bits<$e>>,
            s3_sx: DFF<Bit>,
            s3_sy: DFF<Bit>,
            s3_special: DFF<Special>,
            s3_valid: DFF<Bit>,
            // Stage 3, near path: leading zeros per 16-bit group.
            lzc_groups: LeadingZeroGroups64,
            s3_nv: DFF<Bits<$x>>,
            s3_gany: DFF<Bits<4>>,
            s3_gcounts: DFF<Bits<16>>,
            s3_nzero: DFF<Bit>,
            s3_near: DFF<Bit>,
            // Stage 4: add / subtract (far); the scale plus and less one.
            y_sticky: Signal<Local, Bits<$x>>,
            sum_now: Signal<Local, Bits<$s>>,
            s4_sum: DFF<Bits<$s>>,
            s4_ex: DFF<Bits<$e>>,
            s4_ex_inc: DFF<Bits<$e>>,
            s4_ex_dec: DFF<Bits<$e>>,
            s4_ex_gt1: DFF<Bit>,
            s4_sx: DFF<Bit>,
            s4_special: DFF<Special>,
            s4_valid: DFF<Bit>,
            // Stage 4, near path: the count finished, coarse left shift, exponent.
            lzc_total: LeadingZeroTotal64,
            s4_nv: DFF<Bits<$x>>,
            s4_nfine: DFF<Bits<3>>,
            s4_nexp: DFF<Bits<$e>>,
            s4_nzero: DFF<Bit>,
            s4_near: DFF<Bit>,
            // Stage 5: far: a carry moves right by one, a clear top bit left by one; near:
            // fine left shift; one of the two.
            far_v: Signal<Local, Bits<$x>>,
            far_exp: Signal<Local, Bits<$e>>,
            near_v: Signal<Local, Bits<$x>>,
            s5_v: DFF<Bits<$x>>,
            s5_exp: DFF<Bits<$e>>,
            s5_sign: DFF<Bit>,
            s5_special: DFF<Special>,
            s5_valid: DFF<Bit>,
            // Stage 6: round and pack.
            round_up: Signal<Local, Bit>,
            packed_word: Signal<Local, Bits<$w>>,
            out: DFF<Bits<$w>>,
            out_valid: DFF<Bit>,
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    a: Default::default(),
                    b: Default::default(),
                    valid_in: Default::default(),
                    sum: Default::default(),
                    valid_out: Default::default(),
                    inf_pos: Constant::new(bits::<$w>($inf)),
                    canonical_nan: Constant::new(bits::<$w>($nan)),
                    hidden_bit: Constant::new(bits::<$m>(1 << $f)),
                    ext_limit: Constant::new(bits::<$e>($x)),
                    top_bit: Constant::new(bits::<$x>(1 << ($x - 1))),
                    lzc_pad: Constant::new(bits::<64>(((1u128 << (64 - $x)) - 1) as u64)),
                    a_nan: Default::default(),
                    b_nan: Default::default(),
                    a_inf: Default::default(),
                    b_inf: Default::default(),
                    a_zero_exp: Default::default(),
                    b_zero_exp: Default::default(),
                    ea_eff: Default::default(),
                    eb_eff: Default::default(),
                    d_ab: Default::default(),
                    d_ba: Default::default(),
                    s1_sig_a: Default::default(),
                    s1_sig_b: Default::default(),
                    s1_sa: Default::default(),
                    s1_sb: Default::default(),
                    s1_ea: Default::default(),
                    s1_eb: Default::default(),
                    s1_d_ab: Default::default(),
                    s1_d_ba: Default::default(),
                    s1_swap: Default::default(),
                    s1_ysub: Default::default(),
                    s1_a_emax: Default::default(),
                    s1_a_frac: Default::default(),
                    s1_b_emax: Default::default(),
                    s1_b_frac: Default::default(),
                    s1_odd: Default::default(),
                    s1_sent_a: Default::default(),
                    s1_sent_b: Default::default(),
                    s1_valid: Default::default(),
                    sig_x: Default::default(),
                    sig_y: Default::default(),
                    d: Default::default(),
                    window: Default::default(),
                    s2_coarse: Default::default(),
                    s2_fine: Default::default(),
                    s2_sigx: Default::default(),
                    s2_ex: Default::default(),
                    s2_sx: Default::default(),
                    s2_sy: Default::default(),
                    s2_special: Default::default(),
                    s2_valid: Default::default(),
                    p_now: Default::default(),
                    q_now: Default::default(),
                    near_diff: Default::default(),
                    sentinel: Default::default(),
                    s2_nv: Default::default(),
                    s2_lz_in: Default::default(),
                    s2_near: Default::default(),
                    fine: Default::default(),
                    s3_x: Default::default(),
                    s3_y: Default::default(),
                    s3_sticky: Default::default(),
                    s3_ex: Default::default(),
                    s3_sx: Default::default(),
                    s3_sy: Default::default(),
                    s3_special: Default::default(),
                    s3_valid: Default::default(),
                    lzc_groups: Default::default(),
                    s3_nv: Default::default(),
                    s3_gany: Default::default(),
                    s3_gcounts: Default::default(),
                    s3_nzero: Default::default(),
                    s3_near: Default::default(),
                    y_sticky: Default::default(),
                    sum_now: Default::default(),
                    s4_sum: Default::default(),
                    s4_ex: Default::default(),
                    s4_ex_inc: Default::default(),
                    s4_ex_dec: Default::default(),
                    s4_ex_gt1: Default::default(),
                    s4_sx: Default::default(),
                    s4_special: Default::default(),
                    s4_valid: Default::default(),
                    lzc_total: Default::default(),
                    s4_nv: Default::default(),
                    s4_nfine: Default::default(),
                    s4_nexp: Default::default(),
                    s4_nzero: Default::default(),
                    s4_near: Default::default(),
                    far_v: Default::default(),
                    far_exp: Default::default(),
                    near_v: Default::default(),
                    s5_v: Default::default(),
                    s5_exp: Default::default(),
                    s5_sign: Default::default(),
                    s5_special: Default::default(),
                    s5_valid: Default::default(),
                    round_up: Default::default(),
                    packed_word: Default::default(),
                    out: Default::default(),
                    out_valid: Default::default(),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(
                    self, clock, s1_sig_a, s1_sig_b, s1_sa, s1_sb, s1_ea, s1_eb, s1_d_ab,
                    s1_d_ba, s1_swap, s1_ysub, s1_a_emax, s1_a_frac, s1_b_emax, s1_b_frac,
                    s1_odd, s1_sent_a, s1_sent_b, s1_valid, s2_coarse,
                    s2_fine, s2_sigx, s2_ex, s2_sx, s2_sy, s2_special, s2_valid, s2_nv, s2_lz_in,
                    s2_near, s3_x, s3_y, s3_sticky, s3_ex, s3_sx, s3_sy, s3_special, s3_valid,
                    s3_nv, s3_gany, s3_gcounts, s3_nzero, s3_near, s4_sum, s4_ex, s4_ex_inc, s4_ex_dec,
                    s4_ex_gt1, s4_sx, s4_special, s4_valid, s4_nv, s4_nfine, s4_nexp, s4_nzero,
                    s4_near, s5_v, s5_exp, s5_sign, s5_special, s5_valid, out, out_valid
                );
                // ---- Stage 1: classify (flags), order by magnitude, exponent differences.
                self.s1_a_emax.d.next = self.a.val().get_bits::<$e>($f).all();
                self.s1_a_frac.d.next = self.a.val().get_bits::<$f>(0).any();
                self.s1_b_emax.d.next = self.b.val().get_bits::<$e>($f).all();
                self.s1_b_frac.d.next = self.b.val().get_bits::<$f>(0).any();
                // Subnormals have exponent field 0 but scale like exponent 1, and no hidden bit.
                // The exponent carried on (`ea_eff`, the scale) differs from the field only in
                // its lowest bit (the others are 0 when it is 0).
                self.a_zero_exp.next = !self.a.val().get_bits::<$e>($f).any();
                self.b_zero_exp.next = !self.b.val().get_bits::<$e>($f).any();
                self.ea_eff.next = self.a.val().get_bits::<$e>($f)
                    | bit_cast::<$e, 1>(self.a_zero_exp.val().into());
                self.eb_eff.next = self.b.val().get_bits::<$e>($f)
                    | bit_cast::<$e, 1>(self.b_zero_exp.val().into());
                // Both differences; only the larger operand's side is used (it is ≥ 0, so the
                // other one's wrap-around does not matter).
                // Each clamped to X (a longer shift leaves only sticky bits), in 7 bits. X is a
                // power of two, so "at least X" is any bit from log2 X up: an OR after the
                // subtraction, not a second carry chain (clamping X itself to X is no change).
                // The differences are of the exponent *fields*, so no zero test waits in front
                // of the carry chain (the tests ahead of the low bit were board64's worst path
                // on seeds 1 and 3 at 563c851). Against the scales a field difference is one too
                // many exactly when one operand is subnormal and the other is not: the
                // subnormal one is then the smaller (its magnitude field is less), the one
                // aligned, and stage 2 places it one bit higher in its window (`s1_ysub`; it
                // has no hidden bit, so nothing is lost). A field difference clamped to X is a
                // scale difference of at least X − 1 then, and with its top bit 0 that too
                // leaves only sticky bits. (Registering its significand one place left in
                // stage 1 instead, 84e9a2b, made every significand bit a multiplexer on both
                // zero tests: 249 LUTs on board64, and slower on two of three seeds.)
                self.d_ab.next = self.a.val().get_bits::<$e>($f) - self.b.val().get_bits::<$e>($f);
                self.d_ba.next = self.b.val().get_bits::<$e>($f) - self.a.val().get_bits::<$e>($f);
                self.s1_ysub.d.next = self.a_zero_exp.val() ^ self.b_zero_exp.val();
                self.s1_d_ab.d.next = self.d_ab.val().get_bits::<7>(0);
                if self.d_ab.val().get_bits::<$xh>($xlog).any() {
                    self.s1_d_ab.d.next = self.ext_limit.val().get_bits::<7>(0);
                }
                self.s1_d_ba.d.next = self.d_ba.val().get_bits::<7>(0);
                if self.d_ba.val().get_bits::<$xh>($xlog).any() {
                    self.s1_d_ba.d.next = self.ext_limit.val().get_bits::<7>(0);
                }
                // The scales' lowest bits (a subnormal's scale is 1).
                self.s1_odd.d.next = (self.a.val().get_bit($f) | self.a_zero_exp.val())
                    != (self.b.val().get_bit($f) | self.b_zero_exp.val());
                // The sentinels: a field f ≥ 1 puts the one at X − f (none past X); a
                // subnormal's (scale 1) at the top.
                self.s1_sent_a.d.next = (self.top_bit.val() >> self.a.val().get_bits::<$e>($f)) << 1;
                if self.a_zero_exp.val() {
                    self.s1_sent_a.d.next = self.top_bit.val();
                }
                self.s1_sent_b.d.next = (self.top_bit.val() >> self.b.val().get_bits::<$e>($f)) << 1;
                if self.b_zero_exp.val() {
                    self.s1_sent_b.d.next = self.top_bit.val();
                }
                self.s1_sig_a.d.next = bit_cast::<$m, $f>(self.a.val().get_bits::<$f>(0));
                if self.a.val().get_bits::<$e>($f).any() {
                    self.s1_sig_a.d.next = bit_cast::<$m, $f>(self.a.val().get_bits::<$f>(0)) | self.hidden_bit.val();
                }
                self.s1_sig_b.d.next = bit_cast::<$m, $f>(self.b.val().get_bits::<$f>(0));
                if self.b.val().get_bits::<$e>($f).any() {
                    self.s1_sig_b.d.next = bit_cast::<$m, $f>(self.b.val().get_bits::<$f>(0)) | self.hidden_bit.val();
                }
                self.s1_sa.d.next = self.a.val().get_bit($sgn);
                self.s1_sb.d.next = self.b.val().get_bit($sgn);
                self.s1_ea.d.next = self.ea_eff.val();
                self.s1_eb.d.next = self.eb_eff.val();
                self.s1_swap.d.next = self.b.val().get_bits::<$sgn>(0) > self.a.val().get_bits::<$sgn>(0);
                self.s1_valid.d.next = self.valid_in.val();

                // ---- Stage 2: x is the larger magnitude; coarse alignment of y.
                self.sig_x.next = self.s1_sig_a.q.val();
                self.sig_y.next = self.s1_sig_b.q.val();
                self.d.next = self.s1_d_ab.q.val();
                self.s2_ex.d.next = self.s1_ea.q.val();
                self.s2_sx.d.next = self.s1_sa.q.val();
                self.s2_sy.d.next = self.s1_sb.q.val();
                if self.s1_swap.q.val() {
                    self.sig_x.next = self.s1_sig_b.q.val();
                    self.sig_y.next = self.s1_sig_a.q.val();
                    self.d.next = self.s1_d_ba.q.val();
                    self.s2_ex.d.next = self.s1_eb.q.val();
                    self.s2_sx.d.next = self.s1_sb.q.val();
                    self.s2_sy.d.next = self.s1_sa.q.val();
                }
                self.window.next = bit_cast::<$d2, $m>(self.sig_y.val()) << ($d2 - $m);
                if self.s1_ysub.q.val() {
                    self.window.next = bit_cast::<$d2, $m>(self.sig_y.val()) << ($d2 - $m + 1);
                }
                self.s2_coarse.d.next = self.window.val() >> (self.d.val() & bits::<7>(0x78));
                self.s2_fine.d.next = self.d.val().get_bits::<3>(0);
                self.s2_sigx.d.next = self.sig_x.val();
                // The special cases, from stage 1's flags: NaN in, or ∞ − ∞, is NaN; else an
                // infinity's sign (a's if a is one).
                self.a_nan.next = self.s1_a_emax.q.val() & self.s1_a_frac.q.val();
                self.b_nan.next = self.s1_b_emax.q.val() & self.s1_b_frac.q.val();
                self.a_inf.next = self.s1_a_emax.q.val() & !self.s1_a_frac.q.val();
                self.b_inf.next = self.s1_b_emax.q.val() & !self.s1_b_frac.q.val();
                self.s2_special.d.next.nan = self.a_nan.val()
                    | self.b_nan.val()
                    | (self.a_inf.val() & self.b_inf.val() & (self.s1_sa.q.val() != self.s1_sb.q.val()));
                self.s2_special.d.next.inf = self.a_inf.val() | self.b_inf.val();
                self.s2_special.d.next.inf_sign = self.s1_sb.q.val();
                if self.a_inf.val() {
                    self.s2_special.d.next.inf_sign = self.s1_sa.q.val();
                }
                self.s2_valid.d.next = self.s1_valid.q.val();

                // ---- Stage 2, near path (opposite signs, scales at most one apart): nothing
                // is lost in the alignment, so the difference is exact and may cancel to any
                // depth. Both differences, each with the other significand one bit to the
                // right if the scales' lowest bits differ (then, near, the other's scale is
                // the lower), so no swap and no compare stands in front of the carry chains;
                // the larger magnitude's is kept. The normalise budget (the exponent may fall
                // to 1: a left shift of at most the scale less one) as a sentinel one.
                self.p_now.next = (bit_cast::<$x, $m>(self.s1_sig_a.q.val()) << ($x - $m))
                    - (bit_cast::<$x, $m>(self.s1_sig_b.q.val()) << ($x - $m));
                if self.s1_odd.q.val() {
                    self.p_now.next = (bit_cast::<$x, $m>(self.s1_sig_a.q.val()) << ($x - $m))
                        - (bit_cast::<$x, $m>(self.s1_sig_b.q.val()) << ($x - $m - 1));
                }
                self.q_now.next = (bit_cast::<$x, $m>(self.s1_sig_b.q.val()) << ($x - $m))
                    - (bit_cast::<$x, $m>(self.s1_sig_a.q.val()) << ($x - $m));
                if self.s1_odd.q.val() {
                    self.q_now.next = (bit_cast::<$x, $m>(self.s1_sig_b.q.val()) << ($x - $m))
                        - (bit_cast::<$x, $m>(self.s1_sig_a.q.val()) << ($x - $m - 1));
                }
                self.near_diff.next = self.p_now.val();
                self.sentinel.next = self.s1_sent_a.q.val();
                if self.s1_swap.q.val() {
                    self.near_diff.next = self.q_now.val();
                    self.sentinel.next = self.s1_sent_b.q.val();
                }
                self.s2_nv.d.next = self.near_diff.val();
                self.s2_lz_in.d.next = self.near_diff.val() | self.sentinel.val();
                // Near: opposite signs and the larger magnitude's scale at most one above the
                // other's, i.e. its field difference `d` at most one (two when `y` alone is
                // subnormal).
                self.s2_near.d.next = (self.s1_sa.q.val() != self.s1_sb.q.val())
                    & ((self.d.val() < bits::<7>(2))
                        | (self.s1_ysub.q.val() & (self.d.val() == bits::<7>(2))));

                // ---- Stage 3: fine alignment; every bit that falls below the top X is sticky
                // (the window is wide enough that none falls out of it).
                self.fine.next = self.s2_coarse.q.val() >> self.s2_fine.q.val();
                self.s3_y.d.next = self.fine.val().get_bits::<$x>($x);
                self.s3_sticky.d.next = self.s2_coarse.q.val().get_bits::<$x>(0).any()
                    | (self.s2_coarse.q.val().get_bits::<8>($x)
                        & !(bits::<8>(0xff) << self.s2_fine.q.val()))
                    .any();
                self.s3_x.d.next = bit_cast::<$x, $m>(self.s2_sigx.q.val()) << ($x - $m);
                self.s3_ex.d.next = self.s2_ex.q.val();
                self.s3_sx.d.next = self.s2_sx.q.val();
                self.s3_sy.d.next = self.s2_sy.q.val();
                self.s3_special.d.next = self.s2_special.q.val();
                self.s3_valid.d.next = self.s2_valid.q.val();
                // Near path: how far left (the sentinel caps it), per 16-bit group; an exact
                // zero.
                self.lzc_groups.value.next = (bit_cast::<64, $x>(self.s2_lz_in.q.val()) << (64 - $x)) | self.lzc_pad.val();
                self.s3_gany.d.next = self.lzc_groups.any.val();
                self.s3_gcounts.d.next = self.lzc_groups.counts.val();
                self.s3_nv.d.next = self.s2_nv.q.val();
                self.s3_nzero.d.next = !self.s2_nv.q.val().any();
                self.s3_near.d.next = self.s2_near.q.val();

                // ---- Stage 4 (far path): add or subtract magnitudes (with the scales at least
                // two apart a difference loses at most one leading bit); the scale plus and
                // less one.
                self.y_sticky.next = self.s3_y.q.val() | bit_cast::<$x, 1>(self.s3_sticky.q.val().into());
                self.sum_now.next = bit_cast::<$s, $x>(self.s3_x.q.val()) + bit_cast::<$s, $x>(self.y_sticky.val());
                if self.s3_sx.q.val() != self.s3_sy.q.val() {
                    self.sum_now.next = bit_cast::<$s, $x>(self.s3_x.q.val()) - bit_cast::<$s, $x>(self.y_sticky.val());
                }
                self.s4_sum.d.next = self.sum_now.val();
                self.s4_ex.d.next = self.s3_ex.q.val();
                self.s4_ex_inc.d.next = self.s3_ex.q.val() + bits::<$e>(1);
                self.s4_ex_dec.d.next = self.s3_ex.q.val() - bits::<$e>(1);
                self.s4_ex_gt1.d.next = self.s3_ex.q.val() > bits::<$e>(1);
                self.s4_sx.d.next = self.s3_sx.q.val();
                self.s4_special.d.next = self.s3_special.q.val();
                self.s4_valid.d.next = self.s3_valid.q.val();
                // Stage 4 (near path): the count from the first group with a one; normalise,
                // coarse; the exponent of a normal result.
                self.lzc_total.any.next = self.s3_gany.q.val();
                self.lzc_total.counts.next = self.s3_gcounts.q.val();
                self.s4_nv.d.next = self.s3_nv.q.val() << (self.lzc_total.count.val() & bits::<7>(0x78));
                self.s4_nfine.d.next = self.lzc_total.count.val().get_bits::<3>(0);
                self.s4_nexp.d.next = self.s3_ex.q.val() - bit_cast::<$e, 7>(self.lzc_total.count.val());
                self.s4_nzero.d.next = self.s3_nzero.q.val();
                self.s4_near.d.next = self.s3_near.q.val();

                // ---- Stage 5: far: a carry moves the sum right by one (its low bit sticky), a
                // clear top bit left by one while the exponent allows (else the result is
                // subnormal); near: normalise, fine, a clear top bit meaning subnormal; one of
                // the two. An exact zero is +0 (the near path's operands have opposite signs;
                // the far path's zero is of two zeros of the same sign).
                self.far_v.next = self.s4_sum.q.val().get_bits::<$x>(0);
                self.far_exp.next = self.s4_ex.q.val();
                if !self.s4_sum.q.val().get_bit($x - 1) {
                    self.far_exp.next = bits::<$e>(0);
                    if self.s4_ex_gt1.q.val() {
                        self.far_v.next = self.s4_sum.q.val().get_bits::<$x>(0) << 1;
                        self.far_exp.next = self.s4_ex_dec.q.val();
                    }
                }
                if self.s4_sum.q.val().get_bit($x) {
                    self.far_v.next = self.s4_sum.q.val().get_bits::<$x>(1).replace_bit(
                        0,
                        self.s4_sum.q.val().get_bit(1) | self.s4_sum.q.val().get_bit(0),
                    );
                    self.far_exp.next = self.s4_ex_inc.q.val();
                }
                self.near_v.next = self.s4_nv.q.val() << self.s4_nfine.q.val();
                self.s5_v.d.next = self.far_v.val();
                self.s5_exp.d.next = self.far_exp.val();
                self.s5_sign.d.next = self.s4_sx.q.val();
                if self.s4_near.q.val() {
                    self.s5_v.d.next = self.near_v.val();
                    self.s5_exp.d.next = bits::<$e>(0);
                    if self.near_v.val().get_bit($x - 1) {
                        self.s5_exp.d.next = self.s4_nexp.q.val();
                    }
                    if self.s4_nzero.q.val() {
                        self.s5_sign.d.next = false;
                    }
                }
                self.s5_special.d.next = self.s4_special.q.val();
                self.s5_valid.d.next = self.s4_valid.q.val();

                // ---- Stage 6: round to nearest even, pack, specials.
                self.round_up.next = self.s5_v.q.val().get_bit($x - $m - 1)
                    & (self.s5_v.q.val().get_bit($x - $m) | (self.s5_v.q.val() << ($m + 1)).any());
                self.packed_word.next = (bit_cast::<$w, $e>(self.s5_exp.q.val()) << $f)
                    | bit_cast::<$w, $f>(self.s5_v.q.val().get_bits::<$f>($x - $m));
                self.out.d.next = (self.packed_word.val() + self.round_up.val()).replace_bit($sgn, self.s5_sign.q.val());
                if self.s5_exp.q.val().all() {
                    self.out.d.next = self.inf_pos.val().replace_bit($sgn, self.s5_sign.q.val());
                }
                if self.s5_special.q.val().inf {
                    self.out.d.next = self.inf_pos.val().replace_bit($sgn, self.s5_special.q.val().inf_sign);
                }
                if self.s5_special.q.val().nan {
                    self.out.d.next = self.canonical_nan.val();
                }
                self.out_valid.d.next = self.s5_valid.q.val();
                self.sum.next = self.out.q.val();
                self.valid_out.next = self.out_valid.q.val();
                if self.reset.val() {
                    self.s1_valid.d.next = false;
                    self.s2_valid.d.next = false;
                    self.s3_valid.d.next = false;
                    self.s4_valid.d.next = false;
                    self.s5_valid.d.next = false;
                    self.out_valid.d.next = false;
                }
            }
        }
    };
}

fp_adder!(
    /// binary64 adder: 53-bit significand extended to 64 bits.
    FpAdd64,
    width = 64, sign = 63, exp = 11, frac = 52,
    sig = 53, ext = 64, log2_ext = 6, ext_high = 5, sum = 65, window = 128,
    inf = 0x7ff0_0000_0000_0000, nan = 0x7ff8_0000_0000_0000
);

fp_adder!(
    /// binary32 adder: 24-bit significand extended to 32 bits.
    FpAdd32,
    width = 32, sign = 31, exp = 8, frac = 23,
    sig = 24, ext = 32, log2_ext = 5, ext_high = 3, sum = 33, window = 64,
    inf = 0x7f80_0000, nan = 0x7fc0_0000
);

//! Pipelined IEEE 754 adders, binary32 ([`FpAdd32`]) and binary64 ([`FpAdd64`]).
//!
//! Both come from one template (`fp_adder!`), the last `macro_rules!` template in `hdl`: its
//! parameters are a number format (exponent and fraction widths, special values, shifter
//! stages), not the bus width. rust-hdl emits a const parameter used inside an expression as a
//! Verilog identifier; the bus-width blocks solve that with a `localparam` of the same name
//! (`FrameRouter`'s `W`, `LAST`, `USER`), which would work here too — left for the normalise
//! stage's rework for timing (issue 15), which rewrites this pipeline anyway.
//! Semantics are `collwire_proto::reduce::{f32,f64}::sum`: round-to-nearest-even, subnormal
//! inputs and results, ±0 (x + −x = +0, −0 + −0 = −0), ±inf, and the canonical quiet NaN for any
//! NaN operand or inf − inf. One operation enters per clock (II = 1); the result appears
//! [`FP_ADD_LATENCY`] clocks later with `valid_out`.
//!
//! Pipeline (widths for binary64; `X` = 64-bit extended significand: 53 significand bits, then
//! 11 guard/sticky bits):
//! 1. classify specials, order operands by magnitude (`|x| ≥ |y|`), exponent difference `d`;
//! 2. align: shift `y` right by `min(d, X)` in a 2X-bit window, OR the lost bits into bit 0;
//! 3. add or subtract (no negative result, since `|x| ≥ |y|`), one carry bit;
//! 4. normalise: a carry shifts right by one; otherwise a logarithmic left shifter moves the
//!    leading one up, never further than the exponent allows (that is a subnormal result);
//! 5. round to nearest even on {exponent, fraction} as one integer, so a mantissa carry ripples
//!    into the exponent (subnormal → normal, max finite → inf); pack; specials override.

use rust_hdl::prelude::*;

/// Clocks from operands in to sum out.
pub const FP_ADD_LATENCY: usize = 5;

macro_rules! fp_adder {
    (
        $(#[$doc:meta])*
        $name:ident,
        width = $w:tt, sign = $sgn:tt, exp = $e:tt, frac = $f:tt,
        sig = $m:tt, ext = $x:tt, sum = $s:tt, window = $d2:tt,
        exp_ones = $ones:tt, inf = $inf:tt, nan = $nan:tt,
        stages = [$(($i:tt, $j:tt, $sh:tt)),*]
    ) => {
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
            // Stage 1: classify and order.
            a_nan: Signal<Local, Bit>,
            b_nan: Signal<Local, Bit>,
            a_inf: Signal<Local, Bit>,
            b_inf: Signal<Local, Bit>,
            swap: Signal<Local, Bit>,
            x: Signal<Local, Bits<$w>>,
            y: Signal<Local, Bits<$w>>,
            ex_raw: Signal<Local, Bits<$e>>,
            ey_raw: Signal<Local, Bits<$e>>,
            ex_eff: Signal<Local, Bits<$e>>,
            ey_eff: Signal<Local, Bits<$e>>,
            s1_sx: DFF<Bit>,
            s1_sy: DFF<Bit>,
            s1_ex: DFF<Bits<$e>>,
            s1_d: DFF<Bits<$e>>,
            s1_sigx: DFF<Bits<$m>>,
            s1_sigy: DFF<Bits<$m>>,
            s1_nan: DFF<Bit>,
            s1_inf: DFF<Bit>,
            s1_inf_sign: DFF<Bit>,
            s1_valid: DFF<Bit>,
            // Stage 2: align.
            dcl: Signal<Local, Bits<$e>>,
            window: Signal<Local, Bits<$d2>>,
            shifted: Signal<Local, Bits<$d2>>,
            s2_x: DFF<Bits<$x>>,
            s2_y: DFF<Bits<$x>>,
            s2_sx: DFF<Bit>,
            s2_sy: DFF<Bit>,
            s2_ex: DFF<Bits<$e>>,
            s2_nan: DFF<Bit>,
            s2_inf: DFF<Bit>,
            s2_inf_sign: DFF<Bit>,
            s2_valid: DFF<Bit>,
            // Stage 3: add / subtract.
            s3_sum: DFF<Bits<$s>>,
            s3_sx: DFF<Bit>,
            s3_sy: DFF<Bit>,
            s3_ex: DFF<Bits<$e>>,
            s3_nan: DFF<Bit>,
            s3_inf: DFF<Bit>,
            s3_inf_sign: DFF<Bit>,
            s3_valid: DFF<Bit>,
            // Stage 4: normalise (nv/nb: value and exponent budget after each shifter stage).
            carry: Signal<Local, Bit>,
            nv: [Signal<Local, Bits<$x>>; 7],
            nb: [Signal<Local, Bits<$e>>; 7],
            s4_v: DFF<Bits<$x>>,
            s4_exp: DFF<Bits<$e>>,
            s4_sign: DFF<Bit>,
            s4_nan: DFF<Bit>,
            s4_inf: DFF<Bit>,
            s4_inf_sign: DFF<Bit>,
            s4_valid: DFF<Bit>,
            // Stage 5: round and pack.
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
                    a_nan: Default::default(),
                    b_nan: Default::default(),
                    a_inf: Default::default(),
                    b_inf: Default::default(),
                    swap: Default::default(),
                    x: Default::default(),
                    y: Default::default(),
                    ex_raw: Default::default(),
                    ey_raw: Default::default(),
                    ex_eff: Default::default(),
                    ey_eff: Default::default(),
                    s1_sx: Default::default(),
                    s1_sy: Default::default(),
                    s1_ex: Default::default(),
                    s1_d: Default::default(),
                    s1_sigx: Default::default(),
                    s1_sigy: Default::default(),
                    s1_nan: Default::default(),
                    s1_inf: Default::default(),
                    s1_inf_sign: Default::default(),
                    s1_valid: Default::default(),
                    dcl: Default::default(),
                    window: Default::default(),
                    shifted: Default::default(),
                    s2_x: Default::default(),
                    s2_y: Default::default(),
                    s2_sx: Default::default(),
                    s2_sy: Default::default(),
                    s2_ex: Default::default(),
                    s2_nan: Default::default(),
                    s2_inf: Default::default(),
                    s2_inf_sign: Default::default(),
                    s2_valid: Default::default(),
                    s3_sum: Default::default(),
                    s3_sx: Default::default(),
                    s3_sy: Default::default(),
                    s3_ex: Default::default(),
                    s3_nan: Default::default(),
                    s3_inf: Default::default(),
                    s3_inf_sign: Default::default(),
                    s3_valid: Default::default(),
                    carry: Default::default(),
                    nv: Default::default(),
                    nb: Default::default(),
                    s4_v: Default::default(),
                    s4_exp: Default::default(),
                    s4_sign: Default::default(),
                    s4_nan: Default::default(),
                    s4_inf: Default::default(),
                    s4_inf_sign: Default::default(),
                    s4_valid: Default::default(),
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
                    self, clock, s1_sx, s1_sy, s1_ex, s1_d, s1_sigx, s1_sigy, s1_nan, s1_inf, s1_inf_sign,
                    s1_valid, s2_x, s2_y, s2_sx, s2_sy, s2_ex, s2_nan, s2_inf, s2_inf_sign, s2_valid, s3_sum,
                    s3_sx, s3_sy, s3_ex, s3_nan, s3_inf, s3_inf_sign, s3_valid, s4_v, s4_exp, s4_sign, s4_nan,
                    s4_inf, s4_inf_sign, s4_valid, out, out_valid
                );
                // ---- Stage 1: classify, order by magnitude, exponent difference.
                self.a_nan.next = self.a.val().get_bits::<$e>($f).all() & self.a.val().get_bits::<$f>(0).any();
                self.b_nan.next = self.b.val().get_bits::<$e>($f).all() & self.b.val().get_bits::<$f>(0).any();
                self.a_inf.next = self.a.val().get_bits::<$e>($f).all() & !self.a.val().get_bits::<$f>(0).any();
                self.b_inf.next = self.b.val().get_bits::<$e>($f).all() & !self.b.val().get_bits::<$f>(0).any();
                self.swap.next = self.b.val().get_bits::<$sgn>(0) > self.a.val().get_bits::<$sgn>(0);
                self.x.next = self.a.val();
                self.y.next = self.b.val();
                if self.swap.val() {
                    self.x.next = self.b.val();
                    self.y.next = self.a.val();
                }
                self.ex_raw.next = self.x.val().get_bits::<$e>($f);
                self.ey_raw.next = self.y.val().get_bits::<$e>($f);
                // Subnormals have exponent field 0 but scale like exponent 1, and no hidden bit.
                self.ex_eff.next = self.ex_raw.val();
                if !self.ex_raw.val().any() {
                    self.ex_eff.next = bits::<$e>(1);
                }
                self.ey_eff.next = self.ey_raw.val();
                if !self.ey_raw.val().any() {
                    self.ey_eff.next = bits::<$e>(1);
                }
                self.s1_sigx.d.next = bit_cast::<$m, $f>(self.x.val().get_bits::<$f>(0));
                if self.ex_raw.val().any() {
                    self.s1_sigx.d.next = bit_cast::<$m, $f>(self.x.val().get_bits::<$f>(0)) | self.hidden_bit.val();
                }
                self.s1_sigy.d.next = bit_cast::<$m, $f>(self.y.val().get_bits::<$f>(0));
                if self.ey_raw.val().any() {
                    self.s1_sigy.d.next = bit_cast::<$m, $f>(self.y.val().get_bits::<$f>(0)) | self.hidden_bit.val();
                }
                self.s1_sx.d.next = self.x.val().get_bit($sgn);
                self.s1_sy.d.next = self.y.val().get_bit($sgn);
                self.s1_ex.d.next = self.ex_eff.val();
                self.s1_d.d.next = self.ex_eff.val() - self.ey_eff.val();
                self.s1_nan.d.next = self.a_nan.val()
                    | self.b_nan.val()
                    | (self.a_inf.val() & self.b_inf.val() & (self.a.val().get_bit($sgn) != self.b.val().get_bit($sgn)));
                self.s1_inf.d.next = self.a_inf.val() | self.b_inf.val();
                self.s1_inf_sign.d.next = self.b.val().get_bit($sgn);
                if self.a_inf.val() {
                    self.s1_inf_sign.d.next = self.a.val().get_bit($sgn);
                }
                self.s1_valid.d.next = self.valid_in.val();

                // ---- Stage 2: align y to x, keeping every lost bit as sticky.
                self.dcl.next = self.s1_d.q.val();
                if self.s1_d.q.val() > bits::<$e>($x) {
                    self.dcl.next = bits::<$e>($x);
                }
                self.window.next = bit_cast::<$d2, $m>(self.s1_sigy.q.val()) << ($d2 - $m);
                self.shifted.next = self.window.val() >> self.dcl.val();
                self.s2_y.d.next = self.shifted.val().get_bits::<$x>($x).replace_bit(
                    0,
                    self.shifted.val().get_bit($x) | self.shifted.val().get_bits::<$x>(0).any(),
                );
                self.s2_x.d.next = bit_cast::<$x, $m>(self.s1_sigx.q.val()) << ($x - $m);
                self.s2_sx.d.next = self.s1_sx.q.val();
                self.s2_sy.d.next = self.s1_sy.q.val();
                self.s2_ex.d.next = self.s1_ex.q.val();
                self.s2_nan.d.next = self.s1_nan.q.val();
                self.s2_inf.d.next = self.s1_inf.q.val();
                self.s2_inf_sign.d.next = self.s1_inf_sign.q.val();
                self.s2_valid.d.next = self.s1_valid.q.val();

                // ---- Stage 3: add or subtract magnitudes.
                self.s3_sum.d.next = bit_cast::<$s, $x>(self.s2_x.q.val()) + bit_cast::<$s, $x>(self.s2_y.q.val());
                if self.s2_sx.q.val() != self.s2_sy.q.val() {
                    self.s3_sum.d.next = bit_cast::<$s, $x>(self.s2_x.q.val()) - bit_cast::<$s, $x>(self.s2_y.q.val());
                }
                self.s3_sx.d.next = self.s2_sx.q.val();
                self.s3_sy.d.next = self.s2_sy.q.val();
                self.s3_ex.d.next = self.s2_ex.q.val();
                self.s3_nan.d.next = self.s2_nan.q.val();
                self.s3_inf.d.next = self.s2_inf.q.val();
                self.s3_inf_sign.d.next = self.s2_inf_sign.q.val();
                self.s3_valid.d.next = self.s2_valid.q.val();

                // ---- Stage 4: normalise.
                self.carry.next = self.s3_sum.q.val().get_bit($x);
                self.nv[0].next = self.s3_sum.q.val().get_bits::<$x>(0);
                if self.carry.val() {
                    self.nv[0].next = self.s3_sum.q.val().get_bits::<$x>(1).replace_bit(
                        0,
                        self.s3_sum.q.val().get_bit(1) | self.s3_sum.q.val().get_bit(0),
                    );
                }
                // Budget: how far left we may shift before the exponent reaches the subnormal 1.
                self.nb[0].next = self.s3_ex.q.val() - bits::<$e>(1);
                $(
                    self.nv[$j].next = self.nv[$i].val();
                    self.nb[$j].next = self.nb[$i].val();
                    if !(self.nv[$i].val() >> ($x - $sh)).any() & (self.nb[$i].val() >= bits::<$e>($sh)) {
                        self.nv[$j].next = self.nv[$i].val() << $sh;
                        self.nb[$j].next = self.nb[$i].val() - bits::<$e>($sh);
                    }
                )*
                self.s4_v.d.next = self.nv[6].val();
                self.s4_exp.d.next = bits::<$e>(0);
                if self.nv[6].val().get_bit($x - 1) {
                    self.s4_exp.d.next = self.nb[6].val() + bits::<$e>(1);
                }
                if self.carry.val() {
                    self.s4_exp.d.next = self.s3_ex.q.val() + bits::<$e>(1);
                }
                self.s4_sign.d.next = self.s3_sx.q.val();
                if !self.s3_sum.q.val().any() {
                    // Exact zero: +0 unless both operands were negative (RNE rule).
                    self.s4_sign.d.next = self.s3_sx.q.val() & self.s3_sy.q.val();
                }
                self.s4_nan.d.next = self.s3_nan.q.val();
                self.s4_inf.d.next = self.s3_inf.q.val();
                self.s4_inf_sign.d.next = self.s3_inf_sign.q.val();
                self.s4_valid.d.next = self.s3_valid.q.val();

                // ---- Stage 5: round to nearest even, pack, specials.
                self.round_up.next = self.s4_v.q.val().get_bit($x - $m - 1)
                    & (self.s4_v.q.val().get_bit($x - $m) | (self.s4_v.q.val() << ($m + 1)).any());
                self.packed_word.next = (bit_cast::<$w, $e>(self.s4_exp.q.val()) << $f)
                    | bit_cast::<$w, $f>(self.s4_v.q.val().get_bits::<$f>($x - $m));
                self.out.d.next = (self.packed_word.val() + self.round_up.val()).replace_bit($sgn, self.s4_sign.q.val());
                if self.s4_exp.q.val().all() {
                    self.out.d.next = self.inf_pos.val().replace_bit($sgn, self.s4_sign.q.val());
                }
                if self.s4_inf.q.val() {
                    self.out.d.next = self.inf_pos.val().replace_bit($sgn, self.s4_inf_sign.q.val());
                }
                if self.s4_nan.q.val() {
                    self.out.d.next = self.canonical_nan.val();
                }
                self.out_valid.d.next = self.s4_valid.q.val();
                self.sum.next = self.out.q.val();
                self.valid_out.next = self.out_valid.q.val();
                if self.reset.val() {
                    self.s1_valid.d.next = false;
                    self.s2_valid.d.next = false;
                    self.s3_valid.d.next = false;
                    self.s4_valid.d.next = false;
                    self.out_valid.d.next = false;
                }
            }
        }
    };
}

fp_adder!(
    /// binary64 adder: 53-bit significand extended to 64 bits, six shifter stages.
    FpAdd64,
    width = 64, sign = 63, exp = 11, frac = 52,
    sig = 53, ext = 64, sum = 65, window = 128,
    exp_ones = 0x7ff, inf = 0x7ff0_0000_0000_0000, nan = 0x7ff8_0000_0000_0000,
    stages = [(0, 1, 32), (1, 2, 16), (2, 3, 8), (3, 4, 4), (4, 5, 2), (5, 6, 1)]
);

fp_adder!(
    /// binary32 adder: 24-bit significand extended to 32 bits, five shifter stages (the
    /// sixth slot passes through).
    FpAdd32,
    width = 32, sign = 31, exp = 8, frac = 23,
    sig = 24, ext = 32, sum = 33, window = 64,
    exp_ones = 0xff, inf = 0x7f80_0000, nan = 0x7fc0_0000,
    stages = [(0, 1, 32), (1, 2, 16), (2, 3, 8), (3, 4, 4), (4, 5, 2), (5, 6, 1)]
);

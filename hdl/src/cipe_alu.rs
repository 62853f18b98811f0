//! The CIPE's streaming ALU: combines a stored operand word `a` with an incoming word `b`,
//! lane by lane, one bus word per clock (II = 1), for every valid (datatype, op) pair of
//! `collwire_proto::reduce` — bit-exact.
//!
//! A 64-bit word holds 1 × 64-bit or 2 × 32-bit lanes; a 256-bit word 4 or 8. Float SUM goes
//! through the pipelined IEEE adders ([`crate::fp_add`]); every other op is computed in one
//! combinational step and delayed to the same latency, so results never reorder.
//! Integer MIN/MAX compare keys (sign bit flipped for signed types); float MIN/MAX compare the
//! IEEE total-order key (`sign ? !x : x | sign_bit`), which orders −0 below +0; a NaN operand
//! gives the canonical NaN. An invalid pair (never emitted by the parser) returns `a`.
//!
//! One template (`cipe_alu!`) gives both widths: [`CipeAlu64`] and [`CipeAlu256`].

use collwire_proto::{Datatype, ReduceOp};
use rust_hdl::prelude::*;

use crate::fp_add::{FP_ADD_LATENCY, FpAdd32, FpAdd64};

/// Clocks from operands in to result out.
pub const ALU_LATENCY: usize = FP_ADD_LATENCY;

/// A 4-bit header code as a hardware constant (the codes come from `collwire-proto`).
fn code(c: u8) -> Constant<Bits<4>> {
    Constant::new(bits::<4>(u64::from(c)))
}

macro_rules! cipe_alu {
    (
        $(#[$doc:meta])* $name:ident, width = $w:tt,
        lanes64 = $l64:tt, more64 = [$($k64:tt)*], lanes32 = $l32:tt, more32 = [$($k32:tt)*]
    ) => {
        cipe_alu!(@body $(#[$doc])* $name, $w, $l64, [$($k64)*], $l32, [$($k32)*], [
            (a32, b32, ka32, kb32, nan_a32, nan_b32, r32, fp32, dt_int32, dt_f32, sign32, nan32, 32, 8, 23, $l32)
            (a64, b64, ka64, kb64, nan_a64, nan_b64, r64, fp64, dt_int64, dt_f64, sign64, nan64, 64, 11, 52, $l64)
        ]);
    };
    (
        @body $(#[$doc:meta])* $name:ident, $w:tt, $l64:tt, [$($k64:tt)*], $l32:tt, [$($k32:tt)*],
        [$(($a:ident, $b:ident, $ka:ident, $kb:ident, $na:ident, $nb:ident, $r:ident, $fp:ident, $dt_signed:ident,
            $dt_float:ident, $sign:ident, $nan:ident, $lw:tt, $ew:tt, $fw:tt, $lanes:tt))*]
    ) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            /// Synchronous reset: no word in flight.
            pub reset: Signal<In, Bit>,
            /// Stored operand (left: lower-ranked data).
            pub a: Signal<In, Bits<$w>>,
            /// Incoming operand (right).
            pub b: Signal<In, Bits<$w>>,
            /// `collwire_proto::Datatype` code.
            pub datatype: Signal<In, Bits<4>>,
            /// `collwire_proto::ReduceOp` code.
            pub op: Signal<In, Bits<4>>,
            pub valid_in: Signal<In, Bit>,
            pub result: Signal<Out, Bits<$w>>,
            pub valid_out: Signal<Out, Bit>,
            fp64: [FpAdd64; $l64],
            fp32: [FpAdd32; $l32],
            dt_int32: Constant<Bits<4>>,
            dt_uint32: Constant<Bits<4>>,
            dt_int64: Constant<Bits<4>>,
            dt_uint64: Constant<Bits<4>>,
            dt_f32: Constant<Bits<4>>,
            dt_f64: Constant<Bits<4>>,
            op_sum: Constant<Bits<4>>,
            op_min: Constant<Bits<4>>,
            op_max: Constant<Bits<4>>,
            op_band: Constant<Bits<4>>,
            op_land: Constant<Bits<4>>,
            op_bor: Constant<Bits<4>>,
            op_lor: Constant<Bits<4>>,
            op_bxor: Constant<Bits<4>>,
            op_lxor: Constant<Bits<4>>,
            nan32: Constant<Bits<32>>,
            nan64: Constant<Bits<64>>,
            sign32: Constant<Bits<32>>,
            sign64: Constant<Bits<64>>,
            // 32-bit lanes: operands, compare keys, NaN flags, result, packing accumulator.
            a32: [Signal<Local, Bits<32>>; $l32],
            b32: [Signal<Local, Bits<32>>; $l32],
            ka32: [Signal<Local, Bits<32>>; $l32],
            kb32: [Signal<Local, Bits<32>>; $l32],
            nan_a32: [Signal<Local, Bit>; $l32],
            nan_b32: [Signal<Local, Bit>; $l32],
            r32: [Signal<Local, Bits<32>>; $l32],
            acc32: [Signal<Local, Bits<$w>>; $l32],
            sum32: [Signal<Local, Bits<$w>>; $l32],
            // 64-bit lanes.
            a64: [Signal<Local, Bits<64>>; $l64],
            b64: [Signal<Local, Bits<64>>; $l64],
            ka64: [Signal<Local, Bits<64>>; $l64],
            kb64: [Signal<Local, Bits<64>>; $l64],
            nan_a64: [Signal<Local, Bit>; $l64],
            nan_b64: [Signal<Local, Bit>; $l64],
            r64: [Signal<Local, Bits<64>>; $l64],
            acc64: [Signal<Local, Bits<$w>>; $l64],
            sum64: [Signal<Local, Bits<$w>>; $l64],
            is_float: Signal<Local, Bit>,
            wide_lanes: Signal<Local, Bit>,
            /// Drives `result`, assigned once at the end of `update`.
            result_mux: Signal<Local, Bits<$w>>,
            // Non-adder results and tags, delayed to the adders' latency.
            other: [DFF<Bits<$w>>; 5],
            f64_sum: [DFF<Bit>; 5],
            f32_sum: [DFF<Bit>; 5],
            valid: [DFF<Bit>; 5],
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    a: Default::default(),
                    b: Default::default(),
                    datatype: Default::default(),
                    op: Default::default(),
                    valid_in: Default::default(),
                    result: Default::default(),
                    valid_out: Default::default(),
                    fp64: std::array::from_fn(|_| Default::default()),
                    fp32: std::array::from_fn(|_| Default::default()),
                    dt_int32: code(Datatype::Int32.code()),
                    dt_uint32: code(Datatype::Uint32.code()),
                    dt_int64: code(Datatype::Int64.code()),
                    dt_uint64: code(Datatype::Uint64.code()),
                    dt_f32: code(Datatype::F32.code()),
                    dt_f64: code(Datatype::F64.code()),
                    op_sum: code(ReduceOp::Sum.code()),
                    op_min: code(ReduceOp::Min.code()),
                    op_max: code(ReduceOp::Max.code()),
                    op_band: code(ReduceOp::Band.code()),
                    op_land: code(ReduceOp::Land.code()),
                    op_bor: code(ReduceOp::Bor.code()),
                    op_lor: code(ReduceOp::Lor.code()),
                    op_bxor: code(ReduceOp::Bxor.code()),
                    op_lxor: code(ReduceOp::Lxor.code()),
                    nan32: Constant::new(bits::<32>(u64::from(collwire_proto::reduce::F32_CANONICAL_NAN))),
                    nan64: Constant::new(bits::<64>(collwire_proto::reduce::F64_CANONICAL_NAN)),
                    sign32: Constant::new(bits::<32>(1 << 31)),
                    sign64: Constant::new(bits::<64>(1 << 63)),
                    a32: Default::default(),
                    b32: Default::default(),
                    ka32: Default::default(),
                    kb32: Default::default(),
                    nan_a32: Default::default(),
                    nan_b32: Default::default(),
                    r32: Default::default(),
                    acc32: Default::default(),
                    sum32: Default::default(),
                    a64: Default::default(),
                    b64: Default::default(),
                    ka64: Default::default(),
                    kb64: Default::default(),
                    nan_a64: Default::default(),
                    nan_b64: Default::default(),
                    r64: Default::default(),
                    acc64: Default::default(),
                    sum64: Default::default(),
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

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                for i in 0..5 {
                    self.other[i].clock.next = self.clock.val();
                    self.f64_sum[i].clock.next = self.clock.val();
                    self.f32_sum[i].clock.next = self.clock.val();
                    self.valid[i].clock.next = self.clock.val();
                }
                self.is_float.next = (self.datatype.val() == self.dt_f32.val()) | (self.datatype.val() == self.dt_f64.val());
                self.wide_lanes.next = (self.datatype.val() == self.dt_int64.val())
                    | (self.datatype.val() == self.dt_uint64.val())
                    | (self.datatype.val() == self.dt_f64.val());

                // ---- Lane ALUs, once per lane kind (32-bit: int32/uint32/f32; 64-bit:
                // int64/uint64/f64).
                $(
                for i in 0..$lanes {
                    self.$a[i].next = self.a.val().get_bits::<$lw>(i * $lw);
                    self.$b[i].next = self.b.val().get_bits::<$lw>(i * $lw);
                    self.$fp[i].clock.next = self.clock.val();
                    self.$fp[i].reset.next = self.reset.val();
                    self.$fp[i].a.next = self.$a[i].val();
                    self.$fp[i].b.next = self.$b[i].val();
                    self.$fp[i].valid_in.next = self.valid_in.val();
                    self.$na[i].next = self.$a[i].val().get_bits::<$ew>($fw).all() & self.$a[i].val().get_bits::<$fw>(0).any();
                    self.$nb[i].next = self.$b[i].val().get_bits::<$ew>($fw).all() & self.$b[i].val().get_bits::<$fw>(0).any();
                    // Compare keys: unsigned order of the key is the type's order.
                    self.$ka[i].next = self.$a[i].val();
                    self.$kb[i].next = self.$b[i].val();
                    if self.datatype.val() == self.$dt_signed.val() {
                        self.$ka[i].next = self.$a[i].val() ^ self.$sign.val();
                        self.$kb[i].next = self.$b[i].val() ^ self.$sign.val();
                    }
                    if self.datatype.val() == self.$dt_float.val() {
                        self.$ka[i].next = self.$a[i].val() | self.$sign.val();
                        if self.$a[i].val().get_bit($lw - 1) {
                            self.$ka[i].next = !self.$a[i].val();
                        }
                        self.$kb[i].next = self.$b[i].val() | self.$sign.val();
                        if self.$b[i].val().get_bit($lw - 1) {
                            self.$kb[i].next = !self.$b[i].val();
                        }
                    }
                    self.$r[i].next = self.$a[i].val();
                    if self.op.val() == self.op_sum.val() {
                        self.$r[i].next = self.$a[i].val() + self.$b[i].val();
                    }
                    if self.op.val() == self.op_min.val() {
                        self.$r[i].next = self.$a[i].val();
                        if self.$kb[i].val() < self.$ka[i].val() {
                            self.$r[i].next = self.$b[i].val();
                        }
                    }
                    if self.op.val() == self.op_max.val() {
                        self.$r[i].next = self.$a[i].val();
                        if self.$kb[i].val() > self.$ka[i].val() {
                            self.$r[i].next = self.$b[i].val();
                        }
                    }
                    if self.op.val() == self.op_band.val() {
                        self.$r[i].next = self.$a[i].val() & self.$b[i].val();
                    }
                    if self.op.val() == self.op_bor.val() {
                        self.$r[i].next = self.$a[i].val() | self.$b[i].val();
                    }
                    if self.op.val() == self.op_bxor.val() {
                        self.$r[i].next = self.$a[i].val() ^ self.$b[i].val();
                    }
                    if self.op.val() == self.op_land.val() {
                        self.$r[i].next = bits::<$lw>(0);
                        if self.$a[i].val().any() & self.$b[i].val().any() {
                            self.$r[i].next = bits::<$lw>(1);
                        }
                    }
                    if self.op.val() == self.op_lor.val() {
                        self.$r[i].next = bits::<$lw>(0);
                        if self.$a[i].val().any() | self.$b[i].val().any() {
                            self.$r[i].next = bits::<$lw>(1);
                        }
                    }
                    if self.op.val() == self.op_lxor.val() {
                        self.$r[i].next = bits::<$lw>(0);
                        if self.$a[i].val().any() != self.$b[i].val().any() {
                            self.$r[i].next = bits::<$lw>(1);
                        }
                    }
                    if self.is_float.val() & (self.$na[i].val() | self.$nb[i].val()) {
                        self.$r[i].next = self.$nan.val();
                    }
                }
                )*
                self.acc32[0].next = bit_cast::<$w, 32>(self.r32[0].val());
                self.sum32[0].next = bit_cast::<$w, 32>(self.fp32[0].sum.val());
                // Lane packing is unrolled: bit_cast cannot take a loop-indexed signal.
                $(
                    self.acc32[$k32].next = self.acc32[$k32 - 1].val() | (bit_cast::<$w, 32>(self.r32[$k32].val()) << ($k32 * 32));
                    self.sum32[$k32].next =
                        self.sum32[$k32 - 1].val() | (bit_cast::<$w, 32>(self.fp32[$k32].sum.val()) << ($k32 * 32));
                )*

                self.acc64[0].next = bit_cast::<$w, 64>(self.r64[0].val());
                self.sum64[0].next = bit_cast::<$w, 64>(self.fp64[0].sum.val());
                $(
                    self.acc64[$k64].next = self.acc64[$k64 - 1].val() | (bit_cast::<$w, 64>(self.r64[$k64].val()) << ($k64 * 64));
                    self.sum64[$k64].next =
                        self.sum64[$k64 - 1].val() | (bit_cast::<$w, 64>(self.fp64[$k64].sum.val()) << ($k64 * 64));
                )*

                // ---- Delay the non-adder result and the tags to the adders' latency.
                self.other[0].d.next = self.acc32[$l32 - 1].val();
                if self.wide_lanes.val() {
                    self.other[0].d.next = self.acc64[$l64 - 1].val();
                }
                self.f64_sum[0].d.next = (self.datatype.val() == self.dt_f64.val()) & (self.op.val() == self.op_sum.val());
                self.f32_sum[0].d.next = (self.datatype.val() == self.dt_f32.val()) & (self.op.val() == self.op_sum.val());
                self.valid[0].d.next = self.valid_in.val();
                for i in 1..5 {
                    self.other[i].d.next = self.other[i - 1].q.val();
                    self.f64_sum[i].d.next = self.f64_sum[i - 1].q.val();
                    self.f32_sum[i].d.next = self.f32_sum[i - 1].q.val();
                    self.valid[i].d.next = self.valid[i - 1].q.val();
                }
                self.result_mux.next = self.other[4].q.val();
                if self.f64_sum[4].q.val() {
                    self.result_mux.next = self.sum64[$l64 - 1].val();
                }
                if self.f32_sum[4].q.val() {
                    self.result_mux.next = self.sum32[$l32 - 1].val();
                }
                self.valid_out.next = self.valid[4].q.val();
                self.result.next = self.result_mux.val();
                if self.reset.val() {
                    for i in 0..5 {
                        self.valid[i].d.next = false;
                    }
                }
            }
        }
    };
}

cipe_alu!(
    /// ZedBoard datapath: 64-bit words, 1 × 64-bit or 2 × 32-bit lanes.
    CipeAlu64, width = 64, lanes64 = 1, more64 = [], lanes32 = 2, more32 = [1]
);

cipe_alu!(
    /// NetFPGA SUME datapath: 256-bit words, 4 × 64-bit or 8 × 32-bit lanes.
    CipeAlu256, width = 256, lanes64 = 4, more64 = [1 2 3], lanes32 = 8, more32 = [1 2 3 4 5 6 7]
);

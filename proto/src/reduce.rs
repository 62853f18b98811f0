//! Bit-exact reduction semantics: one function per (datatype, op) on raw lane bits.
//!
//! A *lane* is one element, held in the low bits of a `u64` (upper bits zero). The hardware ALU
//! computes exactly these functions on every lane of a bus word; the golden model and the host
//! driver use them too, so there is one definition of "the right answer".
//!
//! * Integers wrap (two's complement); MIN/MAX compare signed or unsigned as the type says.
//! * Logical ops (LAND, LOR, LXOR) treat non-zero as true and give 0 or 1 in the lane's width.
//! * f32/f64 SUM is IEEE 754 addition with round-to-nearest-even, subnormals kept (no
//!   flush-to-zero). NaN results are *canonical*: any NaN operand, and inf − inf, give the
//!   positive quiet NaN with an all-zero payload (`0x7fc00000` / `0x7ff8000000000000`), so
//!   results do not depend on which operand's NaN payload a CPU would propagate.
//! * f32/f64 MIN/MAX are IEEE 754-2019 `minimum`/`maximum`: a NaN operand gives the canonical
//!   NaN, and −0 < +0 (`min(−0, +0) = −0`, `max(−0, +0) = +0`). Both are commutative.
//! * Bitwise and logical ops on floats are invalid ([`Error::InvalidOp`]); PROD, f16 and bf16 are
//!   reserved ([`Error::Unsupported`]).

use crate::Error;
use crate::codes::{Datatype, ReduceOp};

/// One lane's reduction: `lhs op rhs` on lane bits.
pub type LaneFn = fn(u64, u64) -> u64;

/// Canonical quiet NaN for binary32.
pub const F32_CANONICAL_NAN: u32 = 0x7fc0_0000;
/// Canonical quiet NaN for binary64.
pub const F64_CANONICAL_NAN: u64 = 0x7ff8_0000_0000_0000;

macro_rules! int_lanes {
    ($(#[$doc:meta])* $module:ident, $signed:ty, $bits:ty) => {
        $(#[$doc])*
        pub mod $module {
            fn val(x: u64) -> $signed {
                x as $bits as $signed
            }
            fn lane(x: $signed) -> u64 {
                x as $bits as u64
            }
            fn truth(x: u64) -> bool {
                val(x) != 0
            }
            pub fn sum(a: u64, b: u64) -> u64 {
                lane(val(a).wrapping_add(val(b)))
            }
            pub fn min(a: u64, b: u64) -> u64 {
                lane(val(a).min(val(b)))
            }
            pub fn max(a: u64, b: u64) -> u64 {
                lane(val(a).max(val(b)))
            }
            pub fn band(a: u64, b: u64) -> u64 {
                lane(val(a) & val(b))
            }
            pub fn bor(a: u64, b: u64) -> u64 {
                lane(val(a) | val(b))
            }
            pub fn bxor(a: u64, b: u64) -> u64 {
                lane(val(a) ^ val(b))
            }
            pub fn land(a: u64, b: u64) -> u64 {
                u64::from(truth(a) && truth(b))
            }
            pub fn lor(a: u64, b: u64) -> u64 {
                u64::from(truth(a) || truth(b))
            }
            pub fn lxor(a: u64, b: u64) -> u64 {
                u64::from(truth(a) != truth(b))
            }
        }
    };
}

int_lanes!(/// `MPI_INT` lanes.
    int32, i32, u32);
int_lanes!(/// `MPI_UNSIGNED` lanes.
    uint32, u32, u32);
int_lanes!(/// `MPI_INT64_T` / `MPI_LONG` lanes.
    int64, i64, u64);
int_lanes!(/// `MPI_UINT64_T` / `MPI_UNSIGNED_LONG` lanes.
    uint64, u64, u64);

macro_rules! float_lanes {
    ($(#[$doc:meta])* $module:ident, $float:ty, $bits:ty, $nan:expr) => {
        $(#[$doc])*
        pub mod $module {
            fn val(x: u64) -> $float {
                <$float>::from_bits(x as $bits)
            }
            fn lane(x: $float) -> u64 {
                if x.is_nan() { $nan as u64 } else { x.to_bits() as u64 }
            }
            fn sign(x: u64) -> bool {
                val(x).is_sign_negative()
            }
            /// IEEE 754 addition, round-to-nearest-even, canonical NaN.
            pub fn sum(a: u64, b: u64) -> u64 {
                let (x, y) = (val(a), val(b));
                if x.is_nan() || y.is_nan() { $nan as u64 } else { lane(x + y) }
            }
            /// IEEE 754-2019 minimum: NaN wins (canonical), −0 < +0.
            pub fn min(a: u64, b: u64) -> u64 {
                let (x, y) = (val(a), val(b));
                if x.is_nan() || y.is_nan() {
                    $nan as u64
                } else if x < y || (x == y && sign(a)) {
                    lane(x)
                } else {
                    lane(y)
                }
            }
            /// IEEE 754-2019 maximum: NaN wins (canonical), +0 > −0.
            pub fn max(a: u64, b: u64) -> u64 {
                let (x, y) = (val(a), val(b));
                if x.is_nan() || y.is_nan() {
                    $nan as u64
                } else if x > y || (x == y && !sign(a)) {
                    lane(x)
                } else {
                    lane(y)
                }
            }
        }
    };
}

float_lanes!(/// `MPI_FLOAT` lanes (binary32).
    f32, f32, u32, super::F32_CANONICAL_NAN);
float_lanes!(/// `MPI_DOUBLE` lanes (binary64).
    f64, f64, u64, super::F64_CANONICAL_NAN);

/// The lane function for `(datatype, op)`, or why there is none.
pub fn lane_fn(datatype: Datatype, op: ReduceOp) -> Result<LaneFn, Error> {
    use ReduceOp::*;
    if !datatype.is_supported() {
        return Err(Error::Unsupported {
            field: Datatype::FIELD,
            name: datatype.name(),
        });
    }
    if !op.is_valid_for(datatype) {
        return Err(Error::InvalidOp { datatype, op });
    }
    macro_rules! pick {
        ($m:ident) => {
            match op {
                Sum => $m::sum as LaneFn,
                Min => $m::min,
                Max => $m::max,
                Band => $m::band,
                Bor => $m::bor,
                Bxor => $m::bxor,
                Land => $m::land,
                Lor => $m::lor,
                Lxor => $m::lxor,
                Prod => {
                    return Err(Error::Unsupported {
                        field: ReduceOp::FIELD,
                        name: op.name(),
                    })
                }
            }
        };
    }
    Ok(match datatype {
        Datatype::Int32 => pick!(int32),
        Datatype::Uint32 => pick!(uint32),
        Datatype::Int64 => pick!(int64),
        Datatype::Uint64 => pick!(uint64),
        Datatype::F32 | Datatype::F64 => {
            let (sum, min, max): (LaneFn, LaneFn, LaneFn) = if datatype == Datatype::F32 {
                (f32::sum, f32::min, f32::max)
            } else {
                (f64::sum, f64::min, f64::max)
            };
            match op {
                Sum => sum,
                Min => min,
                Max => max,
                _ => {
                    return Err(Error::Unsupported {
                        field: ReduceOp::FIELD,
                        name: op.name(),
                    });
                }
            }
        }
        Datatype::F16 | Datatype::Bf16 => unreachable!("refused above as unsupported"),
    })
}

/// Reads lane `i` of a little-endian element buffer.
pub fn read_lane(bytes: &[u8], size: usize, i: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..size].copy_from_slice(&bytes[i * size..(i + 1) * size]);
    u64::from_le_bytes(b)
}

/// Writes lane `i` of a little-endian element buffer.
pub fn write_lane(bytes: &mut [u8], size: usize, i: usize, v: u64) {
    bytes[i * size..(i + 1) * size].copy_from_slice(&v.to_le_bytes()[..size]);
}

/// Element-wise `lhs op rhs` over little-endian buffers of equal length.
pub fn combine(datatype: Datatype, op: ReduceOp, lhs: &[u8], rhs: &[u8]) -> Result<Vec<u8>, Error> {
    let f = lane_fn(datatype, op)?;
    let size = datatype.size();
    if lhs.len() != rhs.len() || !lhs.len().is_multiple_of(size) {
        return Err(Error::OperandLength {
            lhs: lhs.len(),
            rhs: rhs.len(),
            elem_size: size,
        });
    }
    let mut out = vec![0u8; lhs.len()];
    for i in 0..lhs.len() / size {
        write_lane(
            &mut out,
            size,
            i,
            f(read_lane(lhs, size, i), read_lane(rhs, size, i)),
        );
    }
    Ok(out)
}

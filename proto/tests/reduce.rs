//! Reduction semantics, worked by hand.

use collwire_proto::reduce::{self, F32_CANONICAL_NAN, F64_CANONICAL_NAN, combine, lane_fn};
use collwire_proto::*;
use proptest::prelude::*;

fn f64l(x: f64) -> u64 {
    x.to_bits()
}
fn f32l(x: f32) -> u64 {
    u64::from(x.to_bits())
}

#[test]
fn integers_wrap_and_compare_by_signedness() {
    assert_eq!(reduce::int32::sum(0x7fff_ffff, 1), 0x8000_0000);
    assert_eq!(reduce::uint32::sum(0xffff_ffff, 2), 1);
    assert_eq!(reduce::int64::sum(u64::MAX, u64::MAX), u64::MAX - 1); // -1 + -1 = -2
    // -1 (0xffffffff) is the smallest int32 here but the largest uint32.
    assert_eq!(reduce::int32::min(0xffff_ffff, 5), 0xffff_ffff);
    assert_eq!(reduce::uint32::min(0xffff_ffff, 5), 5);
    assert_eq!(reduce::int64::max(1 << 63, 0), 0);
    assert_eq!(reduce::uint64::max(1 << 63, 0), 1 << 63);
    assert_eq!(reduce::uint32::band(0b1100, 0b1010), 0b1000);
    assert_eq!(reduce::uint32::bor(0b1100, 0b1010), 0b1110);
    assert_eq!(reduce::uint32::bxor(0b1100, 0b1010), 0b0110);
    // Lanes never carry bits above their width.
    assert_eq!(reduce::int32::bxor(0xffff_ffff, 0), 0xffff_ffff);
}

#[test]
fn logical_ops_give_zero_or_one() {
    for (a, b, and, or, xor) in [
        (0, 0, 0, 0, 0),
        (7, 0, 0, 1, 1),
        (0, 0x8000_0000, 0, 1, 1),
        (3, 9, 1, 1, 0),
    ] {
        assert_eq!(reduce::int32::land(a, b), and);
        assert_eq!(reduce::int32::lor(a, b), or);
        assert_eq!(reduce::int32::lxor(a, b), xor);
    }
    // Only the lane's own bits count: 2^32 is zero as an int32 lane.
    assert_eq!(reduce::int64::lor(1 << 32, 0), 1);
}

#[test]
fn float_sum_is_ieee_round_to_nearest_even() {
    // 1 + 2^-53 is a tie between 1 and 1+2^-52: rounds to even (1).
    assert_eq!(reduce::f64::sum(f64l(1.0), f64l(2f64.powi(-53))), f64l(1.0));
    // 1+2^-52 + 2^-53 ties to 1+2^-51 (even mantissa).
    assert_eq!(
        reduce::f64::sum(f64l(1.0 + 2f64.powi(-52)), f64l(2f64.powi(-53))),
        f64l(1.0 + 2f64.powi(-51))
    );
    // Smallest subnormals add exactly (no flush to zero).
    assert_eq!(reduce::f64::sum(1, 1), 2);
    assert_eq!(reduce::f32::sum(1, 1), 2);
    // x + (-x) = +0 under round-to-nearest; -0 + -0 = -0.
    assert_eq!(reduce::f64::sum(f64l(3.5), f64l(-3.5)), 0);
    assert_eq!(reduce::f64::sum(f64l(-0.0), f64l(-0.0)), f64l(-0.0));
    // Overflow to infinity.
    assert_eq!(
        reduce::f32::sum(f32l(f32::MAX), f32l(f32::MAX)),
        f32l(f32::INFINITY)
    );
}

#[test]
fn nan_results_are_canonical() {
    let snan64 = 0x7ff0_0000_0000_0001u64;
    let neg_payload_nan = 0xfff8_0000_dead_beefu64;
    for f in [
        reduce::f64::sum as fn(u64, u64) -> u64,
        reduce::f64::min,
        reduce::f64::max,
    ] {
        assert_eq!(f(snan64, f64l(1.0)), F64_CANONICAL_NAN);
        assert_eq!(f(f64l(1.0), neg_payload_nan), F64_CANONICAL_NAN);
        assert_eq!(f(neg_payload_nan, snan64), F64_CANONICAL_NAN);
    }
    assert_eq!(
        reduce::f64::sum(f64l(f64::INFINITY), f64l(f64::NEG_INFINITY)),
        F64_CANONICAL_NAN
    );
    assert_eq!(
        reduce::f32::sum(f32l(f32::INFINITY), f32l(f32::NEG_INFINITY)),
        u64::from(F32_CANONICAL_NAN)
    );
    assert_eq!(
        reduce::f32::max(0xffc0_0001, f32l(2.0)),
        u64::from(F32_CANONICAL_NAN)
    );
}

#[test]
fn min_max_order_signed_zeros() {
    let (pz, nz) = (f64l(0.0), f64l(-0.0));
    assert_eq!(reduce::f64::min(pz, nz), nz);
    assert_eq!(reduce::f64::min(nz, pz), nz);
    assert_eq!(reduce::f64::max(pz, nz), pz);
    assert_eq!(reduce::f64::max(nz, pz), pz);
    assert_eq!(reduce::f32::min(f32l(0.0), f32l(-0.0)), f32l(-0.0));
    assert_eq!(
        reduce::f64::min(f64l(-1.0), f64l(f64::NEG_INFINITY)),
        f64l(f64::NEG_INFINITY)
    );
    assert_eq!(reduce::f64::max(f64l(2.0), f64l(1.0)), f64l(2.0));
}

#[test]
fn invalid_and_reserved_pairs_are_refused() {
    for &d in Datatype::ALL {
        for &o in ReduceOp::ALL {
            let r = lane_fn(d, o);
            if !d.is_supported() {
                assert_eq!(
                    r.err(),
                    Some(Error::Unsupported {
                        field: "datatype",
                        name: d.name()
                    })
                );
            } else if !o.is_valid_for(d) {
                assert_eq!(r.err(), Some(Error::InvalidOp { datatype: d, op: o }));
            } else if !o.is_supported() {
                assert_eq!(
                    r.err(),
                    Some(Error::Unsupported {
                        field: "reduction op",
                        name: "prod"
                    })
                );
            } else {
                assert!(r.is_ok(), "{d} {o}");
            }
        }
    }
    // Exactly the documented valid set: 4 integer types × 9 ops + 2 float types × 3 ops.
    let n = Datatype::ALL
        .iter()
        .flat_map(|&d| ReduceOp::ALL.iter().map(move |&o| (d, o)))
        .filter(|&(d, o)| lane_fn(d, o).is_ok())
        .count();
    assert_eq!(n, 4 * 9 + 2 * 3);
}

#[test]
fn combine_is_lane_wise_little_endian() {
    let a: Vec<u8> = [1i32, -2, i32::MAX]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let b: Vec<u8> = [10i32, -20, 1]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let c = combine(Datatype::Int32, ReduceOp::Sum, &a, &b).unwrap();
    let want: Vec<u8> = [11i32, -22, i32::MIN]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert_eq!(c, want);
    assert_eq!(
        combine(Datatype::F64, ReduceOp::Sum, &a[..8], &b[..4]),
        Err(Error::OperandLength {
            lhs: 8,
            rhs: 4,
            elem_size: 8
        })
    );
    assert_eq!(
        combine(Datatype::F64, ReduceOp::Sum, &a[..4], &b[..4]),
        Err(Error::OperandLength {
            lhs: 4,
            rhs: 4,
            elem_size: 8
        })
    );
}

proptest! {
    /// Away from NaN the float lanes are Rust's own IEEE arithmetic; every lane op is
    /// commutative bit for bit (the golden model's order only matters for association).
    #[test]
    fn float_lanes_match_rust_and_commute(a in any::<u64>(), b in any::<u64>()) {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        if !x.is_nan() && !y.is_nan() && !(x + y).is_nan() {
            prop_assert_eq!(reduce::f64::sum(a, b), (x + y).to_bits());
        }
        let (a32, b32) = (a & 0xffff_ffff, b & 0xffff_ffff);
        let (p, q) = (f32::from_bits(a32 as u32), f32::from_bits(b32 as u32));
        if !p.is_nan() && !q.is_nan() && !(p + q).is_nan() {
            prop_assert_eq!(reduce::f32::sum(a32, b32), u64::from((p + q).to_bits()));
        }
        for &d in Datatype::ALL {
            for &o in ReduceOp::ALL {
                if let Ok(f) = lane_fn(d, o) {
                    let mask = if d.size() == 8 { u64::MAX } else { 0xffff_ffff };
                    let (l, r) = (a & mask, b & mask);
                    prop_assert_eq!(f(l, r), f(r, l), "{} {}", d, o);
                    prop_assert_eq!(f(l, r) & !mask, 0);
                }
            }
        }
    }
}

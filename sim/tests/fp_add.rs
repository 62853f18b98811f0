//! The Verilated IEEE adders against Rust's own arithmetic (via `collwire_proto::reduce`),
//! bit for bit. `COLLWIRE_FPU_VECTORS` sets the random count per format (default 1,000,000).

use collwire_sim::fpu_check::{AdderModel, LATENCY, StreamReport, random_pairs, stream};
use collwire_sim::models::{FpAdd32, FpAdd64};

fn vectors() -> usize {
    std::env::var("COLLWIRE_FPU_VECTORS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

fn assert_exact(what: &str, r: &StreamReport) {
    assert!(
        r.mismatches.is_empty(),
        "{what}: {} of {} results differ; first: {:x?}",
        r.mismatches.len(),
        r.vectors,
        &r.mismatches[..r.mismatches.len().min(5)]
    );
}

fn d(x: f64) -> u64 {
    x.to_bits()
}
fn s(x: f32) -> u64 {
    u64::from(x.to_bits())
}

#[test]
fn f64_directed() {
    let min_sub = 1u64;
    let max_sub = 0x000f_ffff_ffff_ffffu64;
    let min_norm = 0x0010_0000_0000_0000u64;
    let pairs = vec![
        (d(1.0), d(2f64.powi(-53))), // tie, rounds to even (down)
        (d(1.0 + 2f64.powi(-52)), d(2f64.powi(-53))), // tie, rounds to even (up)
        (d(1.0), d(2f64.powi(-53) + 2f64.powi(-105))), // just above the tie: up
        (d(1.5), d(1.5)),            // carry into the exponent
        (d(f64::MAX), d(f64::MAX)),  // overflow to +inf
        (d(-f64::MAX), d(-f64::MAX)), // overflow to -inf
        (d(f64::MAX), d(f64::MAX / 2f64.powi(53))), // rounds up to inf
        (d(3.5), d(-3.5)),           // exact cancellation: +0
        (d(-0.0), d(-0.0)),          // -0
        (d(0.0), d(-0.0)),           // +0
        (d(-0.0), d(0.0)),
        (min_sub, min_sub),            // smallest subnormals
        (min_sub | 1 << 63, min_sub),  // subnormal cancellation: +0
        (max_sub, min_sub),            // subnormal carries into the normal range
        (min_norm, min_sub | 1 << 63), // normal minus subnormal gives a subnormal
        (min_norm, min_norm | 1 << 63),
        (d(1.0), d(-1.0 + 2f64.powi(-53))), // massive cancellation, long left shift
        (d(f64::INFINITY), d(f64::NEG_INFINITY)), // inf - inf: canonical NaN
        (d(f64::INFINITY), d(f64::INFINITY)),
        (d(f64::NEG_INFINITY), d(5.0)),
        (d(-7.0), d(f64::INFINITY)),
        (0x7ff0_0000_0000_0001, d(1.0)), // signalling NaN in: canonical NaN out
        (d(1.0), 0xfff8_0000_dead_beef), // negative NaN with payload
        (d(1e308), d(-1e-308)),
        (d(1.0), d(1e-300)), // far apart: sticky only
        (d(-2.5), d(1.25)),
    ];
    assert_exact_both_orders("f64 directed", &mut FpAdd64::new(), &pairs);
}

#[test]
fn f32_directed() {
    let pairs = vec![
        (s(1.0), s(2f32.powi(-24))),
        (s(1.0 + 2f32.powi(-23)), s(2f32.powi(-24))),
        (s(1.5), s(1.5)),
        (s(f32::MAX), s(f32::MAX)),
        (s(3.5), s(-3.5)),
        (s(-0.0), s(-0.0)),
        (s(0.0), s(-0.0)),
        (1, 1),
        (0x007f_ffff, 1),
        (0x0080_0000, 0x8000_0001),
        (s(f32::INFINITY), s(f32::NEG_INFINITY)),
        (0x7f80_0001, s(2.0)),
        (s(1.0), s(-1.0 + 2f32.powi(-24))),
        (s(1.0), s(1e-30)),
    ];
    assert_exact_both_orders("f32 directed", &mut FpAdd32::new(), &pairs);
}

#[test]
fn f64_random_bit_patterns() {
    let mut m = FpAdd64::new();
    let r = stream(&mut m, &random_pairs(vectors(), 0x00c0_11f6_4000, 11, 52));
    assert_exact("f64 random", &r);
}

#[test]
fn f32_random_bit_patterns() {
    let mut m = FpAdd32::new();
    let r = stream(&mut m, &random_pairs(vectors(), 0x00c0_11f3_2000, 8, 23));
    assert_exact("f32 random", &r);
}

/// A subnormal against a normal number at every exponent field where the alignment shift of
/// the subnormal crosses the adder's limits: a shift of 0..2, and around the clamp at the
/// extended significand's width (`x_bits`), where it ends as sticky bits only. The subnormal is
/// aligned by the exponent fields' difference, one too many, and placed one bit higher in the
/// alignment window for it (`hdl::fp_add`, stages 1 and 2), so these are the fields where a
/// wrong place shows.
fn subnormal_against_normal(exp_bits: u32, frac_bits: u32, x_bits: u64) -> Vec<(u64, u64)> {
    let sign = 1u64 << (exp_bits + frac_bits);
    let frac_max = (1u64 << frac_bits) - 1;
    let subnormals = [
        1,
        frac_max,
        1 << (frac_bits - 1),
        (1 << (frac_bits - 1)) | 1,
        frac_max >> 1,
    ];
    let normal_fracs = [0, 1, frac_max, 1 << (frac_bits - 1)];
    let mut pairs = Vec::new();
    for e in [
        1,
        2,
        3,
        x_bits - 1,
        x_bits,
        x_bits + 1,
        x_bits + 2,
        x_bits + 3,
    ] {
        for &nf in &normal_fracs {
            for &sub in &subnormals {
                let n = (e << frac_bits) | nf;
                for (sa, sb) in [(0, 0), (0, sign), (sign, 0), (sign, sign)] {
                    pairs.push((n | sa, sub | sb));
                }
            }
        }
    }
    pairs
}

/// Opposite signs with the exponent fields one apart and the larger operand's significand
/// close to 1, the smaller's close to 2: the difference cancels to every depth, down to a
/// subnormal result (`hdl::fp_add`'s near path, where the lower operand moves one bit right
/// before the subtraction and the normalise shift is capped by the exponent). The random
/// classes cancel this deep only with the exponents equal.
fn one_scale_apart_cancelling(exp_bits: u32, frac_bits: u32) -> Vec<(u64, u64)> {
    let sign = 1u64 << (exp_bits + frac_bits);
    let frac_max = (1u64 << frac_bits) - 1;
    let emax = (1u64 << exp_bits) - 1;
    let mut rng = collwire_sim::fpu_check::SplitMix(0x0ea5_cafe);
    let mut pairs = Vec::new();
    for e in [
        2,
        3,
        4,
        5,
        20,
        frac_bits as u64,
        frac_bits as u64 + 2,
        emax - 1,
    ] {
        for k in 0..=frac_bits {
            // a = 1.0…(k low bits random) · 2^e; b = 1.11…1(k low bits random) · 2^(e−1).
            let low = (1u64 << k) - 1;
            let fa = rng.next_u64() & low;
            let fb = frac_max & !low | (rng.next_u64() & low);
            let a = (e << frac_bits) | fa;
            let b = ((e - 1) << frac_bits) | fb;
            pairs.push((a, b | sign));
            pairs.push((a | sign, b));
        }
    }
    pairs
}

#[test]
fn f64_one_scale_apart_cancels_to_every_depth() {
    let pairs = one_scale_apart_cancelling(11, 52);
    assert_exact_both_orders("f64 one scale apart", &mut FpAdd64::new(), &pairs);
}

#[test]
fn f32_one_scale_apart_cancels_to_every_depth() {
    let pairs = one_scale_apart_cancelling(8, 23);
    assert_exact_both_orders("f32 one scale apart", &mut FpAdd32::new(), &pairs);
}

/// Both operand orders give the exact bits (commutativity, the swap logic).
fn assert_exact_both_orders<M: AdderModel>(what: &str, m: &mut M, pairs: &[(u64, u64)]) {
    assert_exact(what, &stream(m, pairs));
    let swapped: Vec<_> = pairs.iter().map(|&(a, b)| (b, a)).collect();
    assert_exact(&format!("{what}, swapped"), &stream(m, &swapped));
}

#[test]
fn f64_subnormal_against_normal_at_the_alignment_limits() {
    let pairs = subnormal_against_normal(11, 52, 64);
    assert_exact_both_orders("f64 subnormal + normal", &mut FpAdd64::new(), &pairs);
}

#[test]
fn f32_subnormal_against_normal_at_the_alignment_limits() {
    let pairs = subnormal_against_normal(8, 23, 32);
    assert_exact_both_orders("f32 subnormal + normal", &mut FpAdd32::new(), &pairs);
}

/// II = 1 and the latency, counted exactly: n back-to-back pairs come out on n consecutive
/// cycles, the first LATENCY - 1 cycles after it entered (cycle index is 0-based and the
/// result is sampled after the edge that registers it).
#[test]
fn one_result_per_clock_with_fixed_latency() {
    let pairs = random_pairs(1000, 7, 11, 52);
    let mut m = FpAdd64::new();
    let r = stream(&mut m, &pairs);
    assert_exact("latency run", &r);
    assert_eq!(r.first_result_cycle, Some(LATENCY - 1));
    assert_eq!(r.cycles, pairs.len() + LATENCY + 2);
}

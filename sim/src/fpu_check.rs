//! Streams operand pairs through a Verilated adder at one pair per clock and compares every
//! result bit for bit with `collwire_proto::reduce`. Shared by the tests and the bench.

use collwire_proto::reduce;

use crate::models::{FpAdd32, FpAdd64};

/// Clocks from operands in to sum out, as the hardware documents it (the tests check that the
/// Verilated adders keep it).
pub const LATENCY: usize = collwire_hdl::fp_add::FP_ADD_LATENCY;

/// A result that differs from the reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub a: u64,
    pub b: u64,
    pub got: u64,
    pub want: u64,
}

/// Outcome of one streamed batch.
#[derive(Debug, Clone, Default)]
pub struct StreamReport {
    pub vectors: usize,
    pub cycles: usize,
    pub mismatches: Vec<Mismatch>,
    /// Cycle (after the first operand entered) at which the first valid result appeared.
    pub first_result_cycle: Option<usize>,
    /// Cycle at which the last valid result appeared.
    pub last_result_cycle: Option<usize>,
}

/// The two adders behind one interface.
pub trait AdderModel {
    fn drive(&mut self, a: u64, b: u64, valid: bool);
    fn tick(&mut self);
    fn result(&self) -> (bool, u64);
    fn reference(a: u64, b: u64) -> u64;
    /// Mask of the operand bits.
    const MASK: u64;
}

impl AdderModel for FpAdd64 {
    fn drive(&mut self, a: u64, b: u64, valid: bool) {
        self.set_a(a);
        self.set_b(b);
        self.set_valid_in(u64::from(valid));
    }
    fn tick(&mut self) {
        FpAdd64::tick(self)
    }
    fn result(&self) -> (bool, u64) {
        (self.valid_out() == 1, self.sum())
    }
    fn reference(a: u64, b: u64) -> u64 {
        reduce::f64::sum(a, b)
    }
    const MASK: u64 = u64::MAX;
}

impl AdderModel for FpAdd32 {
    fn drive(&mut self, a: u64, b: u64, valid: bool) {
        self.set_a(a);
        self.set_b(b);
        self.set_valid_in(u64::from(valid));
    }
    fn tick(&mut self) {
        FpAdd32::tick(self)
    }
    fn result(&self) -> (bool, u64) {
        (self.valid_out() == 1, self.sum())
    }
    fn reference(a: u64, b: u64) -> u64 {
        reduce::f32::sum(a, b)
    }
    const MASK: u64 = 0xffff_ffff;
}

/// Streams `pairs` back to back (one per clock), then drains the pipeline.
pub fn stream<M: AdderModel>(model: &mut M, pairs: &[(u64, u64)]) -> StreamReport {
    let mut report = StreamReport {
        vectors: pairs.len(),
        ..Default::default()
    };
    // Flush whatever an earlier batch left in the pipeline.
    for _ in 0..LATENCY + 1 {
        model.drive(0, 0, false);
        model.tick();
    }
    let mut next_out = 0;
    for cycle in 0..pairs.len() + LATENCY + 2 {
        match pairs.get(cycle) {
            Some(&(a, b)) => model.drive(a & M::MASK, b & M::MASK, true),
            None => model.drive(0, 0, false),
        }
        model.tick();
        report.cycles += 1;
        let (valid, got) = model.result();
        if valid {
            report.first_result_cycle.get_or_insert(cycle);
            report.last_result_cycle = Some(cycle);
            if let Some(&(a, b)) = pairs.get(next_out) {
                let (a, b) = (a & M::MASK, b & M::MASK);
                let want = M::reference(a, b);
                if got != want {
                    report.mismatches.push(Mismatch { a, b, got, want });
                }
            }
            next_out += 1;
        }
    }
    assert_eq!(
        next_out,
        pairs.len(),
        "the pipeline must return exactly one result per operand pair"
    );
    report
}

/// SplitMix64: a tiny deterministic generator, so every run and CI see the same vectors.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Random operand pairs for a format with `exp_bits`/`frac_bits`, in eight classes by index:
/// a quarter uniform bit patterns; an eighth exact cancellations (same magnitude, opposite
/// sign); an eighth with the second exponent 0 to `width + 8` below the first (every alignment
/// distance, and past the last); an eighth near cancellations (opposite signs, the same bits but
/// the low 0..=`frac_bits` ones random, so every normalise distance); the rest with the second
/// exponent within ±3 of the first and random signs, so that carries and subnormal results are
/// common.
pub fn random_pairs(n: usize, seed: u64, exp_bits: u32, frac_bits: u32) -> Vec<(u64, u64)> {
    let mut rng = SplitMix(seed);
    let width = exp_bits + frac_bits + 1;
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let emax = (1u64 << exp_bits) - 1;
    let sign_bit = 1u64 << (width - 1);
    (0..n)
        .map(|i| {
            let a = rng.next_u64() & mask;
            let b = rng.next_u64() & mask;
            let ea = (a >> frac_bits) & emax;
            let with_exponent = |eb: u64| (b & !(emax << frac_bits)) | (eb << frac_bits);
            let b = match i % 8 {
                0 | 4 => b,
                1 => a ^ sign_bit,
                3 => {
                    let below = rng.next_u64() % u64::from(width + 9);
                    with_exponent(ea.saturating_sub(below))
                }
                5 => {
                    let k = rng.next_u64() % u64::from(frac_bits + 1);
                    let low = (1u64 << k) - 1;
                    ((a & !low) | (b & low)) ^ sign_bit
                }
                _ => {
                    let delta = rng.next_u64() % 7;
                    with_exponent((ea + delta).saturating_sub(3).min(emax))
                }
            };
            (a, b)
        })
        .collect()
}

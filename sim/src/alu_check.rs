//! Streams bus words through the Verilated CIPE ALUs, one per clock with a different
//! (datatype, op) every clock, and compares each result word with
//! `collwire_proto::reduce::combine` bit for bit.

use collwire_proto::{Datatype, ReduceOp, reduce};

use crate::fpu_check::SplitMix;
use crate::models::{CipeAlu64, CipeAlu256};

/// Clocks from operands in to result out, as the hardware documents it (the tests check that
/// the Verilated ALU keeps it).
pub const LATENCY: usize = collwire_hdl::cipe_alu::ALU_LATENCY;

/// One ALU input: operand words as little-endian bytes (payload order) and the op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AluVector {
    pub datatype: Datatype,
    pub op: ReduceOp,
    pub a: Vec<u8>,
    pub b: Vec<u8>,
}

/// A wrong result word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AluMismatch {
    pub vector: AluVector,
    pub got: Vec<u8>,
    pub want: Vec<u8>,
}

/// Both ALU widths behind one interface.
pub trait AluModel {
    /// Bus width in bytes.
    const BYTES: usize;
    fn drive(&mut self, v: Option<&AluVector>);
    fn tick(&mut self);
    fn output(&self) -> (bool, Vec<u8>);
}

fn words<const N: usize>(bytes: &[u8]) -> [u32; N] {
    std::array::from_fn(|i| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap()))
}

/// The ALU's pre-decoded adder strobes (`sum_f64`, `sum_f32`), as the CIPE registers them
/// beside the operands.
fn sum_strobes(v: Option<&AluVector>) -> (u64, u64) {
    match v {
        Some(v) if v.op == ReduceOp::Sum => (
            u64::from(v.datatype == Datatype::F64),
            u64::from(v.datatype == Datatype::F32),
        ),
        _ => (0, 0),
    }
}

impl AluModel for CipeAlu64 {
    const BYTES: usize = 8;
    fn drive(&mut self, v: Option<&AluVector>) {
        let (a, b, dt, op, valid) = match v {
            Some(v) => (
                reduce::read_lane(&v.a, 8, 0),
                reduce::read_lane(&v.b, 8, 0),
                v.datatype.code(),
                v.op.code(),
                1,
            ),
            None => (0, 0, 0, 0, 0),
        };
        self.set_a(a);
        self.set_b(b);
        self.set_datatype(u64::from(dt));
        self.set_op(u64::from(op));
        let (sum_f64, sum_f32) = sum_strobes(v);
        self.set_sum_f64(sum_f64);
        self.set_sum_f32(sum_f32);
        self.set_valid_in(valid);
    }
    fn tick(&mut self) {
        CipeAlu64::tick(self)
    }
    fn output(&self) -> (bool, Vec<u8>) {
        (self.valid_out() == 1, self.result().to_le_bytes().to_vec())
    }
}

impl AluModel for CipeAlu256 {
    const BYTES: usize = 32;
    fn drive(&mut self, v: Option<&AluVector>) {
        let zero = [0u8; 32];
        let (a, b, dt, op, valid) = match v {
            Some(v) => (&v.a[..], &v.b[..], v.datatype.code(), v.op.code(), 1),
            None => (&zero[..], &zero[..], 0, 0, 0),
        };
        self.set_a(&words::<8>(a));
        self.set_b(&words::<8>(b));
        self.set_datatype(u64::from(dt));
        self.set_op(u64::from(op));
        let (sum_f64, sum_f32) = sum_strobes(v);
        self.set_sum_f64(sum_f64);
        self.set_sum_f32(sum_f32);
        self.set_valid_in(valid);
    }
    fn tick(&mut self) {
        CipeAlu256::tick(self)
    }
    fn output(&self) -> (bool, Vec<u8>) {
        (
            self.valid_out() == 1,
            self.result().iter().flat_map(|w| w.to_le_bytes()).collect(),
        )
    }
}

/// Every valid (datatype, op) pair: 42.
pub fn valid_pairs() -> Vec<(Datatype, ReduceOp)> {
    Datatype::supported()
        .flat_map(|d| ReduceOp::supported().map(move |o| (d, o)))
        .filter(|&(d, o)| reduce::lane_fn(d, o).is_ok())
        .collect()
}

/// A lane value: random bits most of the time, otherwise a special value of the type
/// (zeros, ±inf, NaNs, subnormals, extremes) so that every rule gets exercised.
fn lane(rng: &mut SplitMix, datatype: Datatype) -> u64 {
    let r = rng.next_u64();
    let pick = rng.next_u64() % 16;
    let specials64: [u64; 10] = [
        0,
        1 << 63,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        1,
        0x800f_ffff_ffff_ffff,
        u64::MAX,
        0x7fff_ffff_ffff_ffff,
    ];
    let specials32: [u64; 10] = [
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xff80_0001,
        1,
        0x807f_ffff,
        0xffff_ffff,
        0x7fff_ffff,
    ];
    let small = [0u64, 1, 2, 0x10];
    let v = match pick {
        0..=3 => {
            if datatype.size() == 8 {
                specials64[(r % 10) as usize]
            } else {
                specials32[(r % 10) as usize]
            }
        }
        4..=5 => small[(r % 4) as usize],
        _ => r,
    };
    if datatype.size() == 8 {
        v
    } else {
        v & 0xffff_ffff
    }
}

/// `n` vectors of `bytes`-wide words, cycling through every valid pair in a shuffled order.
pub fn random_vectors(n: usize, bytes: usize, seed: u64) -> Vec<AluVector> {
    let pairs = valid_pairs();
    let mut rng = SplitMix(seed);
    (0..n)
        .map(|_| {
            let (datatype, op) = pairs[(rng.next_u64() % pairs.len() as u64) as usize];
            let size = datatype.size();
            let mut a = vec![0u8; bytes];
            let mut b = vec![0u8; bytes];
            for i in 0..bytes / size {
                reduce::write_lane(&mut a, size, i, lane(&mut rng, datatype));
                reduce::write_lane(&mut b, size, i, lane(&mut rng, datatype));
            }
            AluVector { datatype, op, a, b }
        })
        .collect()
}

/// Result of one streamed batch.
#[derive(Debug, Default)]
pub struct AluReport {
    pub vectors: usize,
    pub cycles: usize,
    pub first_result_cycle: Option<usize>,
    /// Cycle at which the last valid result appeared.
    pub last_result_cycle: Option<usize>,
    pub mismatches: Vec<AluMismatch>,
}

/// Streams `vectors` back to back and checks every result word.
pub fn stream<M: AluModel>(model: &mut M, vectors: &[AluVector]) -> AluReport {
    let mut report = AluReport {
        vectors: vectors.len(),
        ..Default::default()
    };
    for _ in 0..LATENCY + 1 {
        model.drive(None);
        model.tick();
    }
    let mut next = 0;
    for cycle in 0..vectors.len() + LATENCY + 2 {
        model.drive(vectors.get(cycle));
        model.tick();
        report.cycles += 1;
        let (valid, got) = model.output();
        if valid {
            report.first_result_cycle.get_or_insert(cycle);
            report.last_result_cycle = Some(cycle);
            if let Some(v) = vectors.get(next) {
                let want = reduce::combine(v.datatype, v.op, &v.a, &v.b).expect("valid pair");
                if got != want {
                    report.mismatches.push(AluMismatch {
                        vector: v.clone(),
                        got,
                        want,
                    });
                }
            }
            next += 1;
        }
    }
    assert_eq!(next, vectors.len(), "one result word per operand word");
    report
}

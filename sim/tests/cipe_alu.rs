//! The Verilated CIPE ALUs, 64 and 256 bits, against `collwire_proto::reduce`: every valid
//! (datatype, op) pair, a different pair on every clock, special values included.

use collwire_sim::alu_check::{AluModel, AluReport, LATENCY, random_vectors, stream, valid_pairs};
use collwire_sim::models::{CipeAlu64, CipeAlu256};

fn check(r: &AluReport, what: &str) {
    assert!(
        r.mismatches.is_empty(),
        "{what}: {} of {} words differ; first: {:x?}",
        r.mismatches.len(),
        r.vectors,
        r.mismatches.first()
    );
    assert_eq!(r.first_result_cycle, Some(LATENCY - 1), "{what}: latency");
    assert_eq!(
        r.cycles,
        r.vectors + LATENCY + 2,
        "{what}: one word per clock"
    );
}

fn run<M: AluModel + Default>(what: &str) {
    let vectors = random_vectors(200_000, M::BYTES, 0xa1u64 << 32 | M::BYTES as u64);
    // Every pair appears many times.
    for p in valid_pairs() {
        assert!(
            vectors.iter().filter(|v| (v.datatype, v.op) == p).count() > 1000,
            "{p:?}"
        );
    }
    let mut m = M::default();
    check(&stream(&mut m, &vectors), what);
}

#[test]
fn alu64_every_pair_bit_exact() {
    run::<CipeAlu64>("64-bit ALU");
}

#[test]
fn alu256_every_pair_bit_exact() {
    run::<CipeAlu256>("256-bit ALU");
}

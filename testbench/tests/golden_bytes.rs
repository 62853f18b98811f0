//! The golden model on real bytes: numeric cases worked by hand, refused inputs, and
//! properties that hold for any data.

use collwire_proto::{Algorithm, Collective, Datatype, Layout, ReduceOp};
use collwire_testbench::golden::{GoldenError, Spec, expected};
use proptest::prelude::*;

const ALGS: [Algorithm; 4] = [
    Algorithm::Ring,
    Algorithm::RecursiveDoubling,
    Algorithm::Tree,
    Algorithm::Torus2d,
];

fn spec(
    collective: Collective,
    algorithm: Algorithm,
    datatype: Datatype,
    op: ReduceOp,
    p: u16,
    rph: u8,
) -> Spec {
    Spec {
        collective,
        algorithm,
        datatype,
        op,
        layout: Layout::new(p, rph).unwrap(),
        root: 0,
    }
}

fn f64s(v: &[f64]) -> Vec<Vec<u8>> {
    v.iter().map(|x| x.to_le_bytes().to_vec()).collect()
}

fn as_f64(b: &[u8]) -> f64 {
    f64::from_le_bytes(b.try_into().unwrap())
}

const TWO53: f64 = 9007199254740992.0;

/// At 2^53 the f64 spacing is 2, so 2^53 + 1 ties and rounds to even (2^53): association
/// decides the answer, and the answer is what the order specification says.
#[test]
fn f64_sum_association_by_hand() {
    let inputs = f64s(&[TWO53, 1.0, 1.0, -TWO53]);
    // ring: ((2^53 + 1) + 1) − 2^53 = (2^53 + 1) − 2^53 = 0
    // rd / tree / torus 2×2: (2^53 + 1) + (1 − 2^53) = 2^53 + (1 − 2^53) = 1
    for (alg, want) in [
        (Algorithm::Ring, 0.0),
        (Algorithm::RecursiveDoubling, 1.0),
        (Algorithm::Tree, 1.0),
        (Algorithm::Torus2d, 1.0),
    ] {
        let out = expected(
            &spec(
                Collective::Allreduce,
                alg,
                Datatype::F64,
                ReduceOp::Sum,
                4,
                1,
            ),
            &inputs,
        )
        .unwrap();
        for o in &out {
            assert_eq!(
                as_f64(o.as_ref().unwrap()).to_bits(),
                f64::to_bits(want),
                "{alg}"
            );
        }
    }
    // Scan with the ring: 2^53, 2^53 (tie to even), 2^53, 0.
    let out = expected(
        &spec(
            Collective::Scan,
            Algorithm::Ring,
            Datatype::F64,
            ReduceOp::Sum,
            4,
            1,
        ),
        &inputs,
    )
    .unwrap();
    let got: Vec<f64> = out.iter().map(|o| as_f64(o.as_ref().unwrap())).collect();
    assert_eq!(got, [TWO53, TWO53, TWO53, 0.0]);
    // Two ranks per host: boards hold (2^53 + 1) = 2^53 and (1 − 2^53); ring gives 1.
    let out = expected(
        &spec(
            Collective::Allreduce,
            Algorithm::Ring,
            Datatype::F64,
            ReduceOp::Sum,
            4,
            2,
        ),
        &inputs,
    )
    .unwrap();
    assert_eq!(as_f64(out[3].as_ref().unwrap()), 1.0);
}

#[test]
fn int32_sum_wraps_and_scan_by_hand() {
    let inputs: Vec<Vec<u8>> = [i32::MAX, 1, -5, 10]
        .iter()
        .map(|x| x.to_le_bytes().to_vec())
        .collect();
    for alg in ALGS {
        let out = expected(
            &spec(Collective::Scan, alg, Datatype::Int32, ReduceOp::Sum, 4, 1),
            &inputs,
        )
        .unwrap();
        let got: Vec<i32> = out
            .iter()
            .map(|o| i32::from_le_bytes(o.as_deref().unwrap().try_into().unwrap()))
            .collect();
        assert_eq!(
            got,
            [i32::MAX, i32::MIN, i32::MIN.wrapping_sub(5), i32::MIN + 5],
            "{alg}"
        );
    }
}

#[test]
fn bxor_max_and_reduce_root_by_hand() {
    // MILC's g_xor32: BXOR of 32-bit unsigned.
    let inputs: Vec<Vec<u8>> = [0b0001u32, 0b0011, 0b0111, 0b1111, 0, 0, 0, 0x8000_0000]
        .iter()
        .map(|x| x.to_le_bytes().to_vec())
        .collect();
    let mut s = spec(
        Collective::Reduce,
        Algorithm::Tree,
        Datatype::Uint32,
        ReduceOp::Bxor,
        8,
        1,
    );
    s.root = 6;
    let out = expected(&s, &inputs).unwrap();
    for (r, o) in out.iter().enumerate() {
        if r == 6 {
            assert_eq!(o.as_deref(), Some(&0x8000_000au32.to_le_bytes()[..]));
        } else {
            assert_eq!(*o, None);
        }
    }
    let out = expected(
        &spec(
            Collective::Allreduce,
            Algorithm::Torus2d,
            Datatype::Int32,
            ReduceOp::Max,
            8,
            2,
        ),
        &inputs,
    )
    .unwrap();
    // As int32, 0x80000000 is the minimum; the max is 0b1111.
    assert!(
        out.iter()
            .all(|o| o.as_deref() == Some(&15u32.to_le_bytes()[..]))
    );
}

#[test]
fn barrier_returns_empty_everywhere() {
    let out = expected(
        &spec(
            Collective::Barrier,
            Algorithm::RecursiveDoubling,
            Datatype::Int32,
            ReduceOp::Sum,
            3,
            1,
        ),
        &[vec![], vec![], vec![]],
    )
    .unwrap();
    assert_eq!(out, vec![Some(vec![]); 3]);
}

#[test]
fn refused_inputs() {
    let s = spec(
        Collective::Allreduce,
        Algorithm::Ring,
        Datatype::F64,
        ReduceOp::Sum,
        2,
        1,
    );
    assert_eq!(
        expected(&s, &f64s(&[1.0])),
        Err(GoldenError::InputCount {
            expected: 2,
            got: 1
        })
    );
    assert_eq!(
        expected(&s, &[vec![0; 8], vec![0; 16]]),
        Err(GoldenError::InputLength {
            rank: 1,
            len: 16,
            expected: 8,
            elem_size: 8
        })
    );
    assert_eq!(
        expected(&s, &[vec![0; 4], vec![0; 4]]),
        Err(GoldenError::InputLength {
            rank: 0,
            len: 4,
            expected: 4,
            elem_size: 8
        })
    );
    let bad = Spec {
        op: ReduceOp::Band,
        ..s
    };
    assert_eq!(
        expected(&bad, &f64s(&[1.0, 2.0])),
        Err(GoldenError::Proto(collwire_proto::Error::InvalidOp {
            datatype: Datatype::F64,
            op: ReduceOp::Band
        }))
    );
    let reserved = Spec {
        collective: Collective::Bcast,
        ..s
    };
    assert!(matches!(
        expected(&reserved, &f64s(&[1.0, 2.0])),
        Err(GoldenError::Proto(
            collwire_proto::Error::Unsupported { .. }
        ))
    ));
    let root = Spec {
        collective: Collective::Reduce,
        root: 2,
        ..s
    };
    assert_eq!(
        expected(&root, &f64s(&[1.0, 2.0])),
        Err(GoldenError::RootOutOfRange { root: 2, size: 2 })
    );
    let barrier = Spec {
        collective: Collective::Barrier,
        ..s
    };
    assert!(matches!(
        expected(&barrier, &f64s(&[1.0, 2.0])),
        Err(GoldenError::InputLength { .. })
    ));
}

fn case() -> impl Strategy<Value = (Algorithm, u16, u8, usize)> {
    (
        prop::sample::select(&ALGS[..]),
        1u16..=24,
        prop::sample::select(&[1u8, 2, 4][..]),
        1usize..6,
    )
}

proptest! {
    /// Integer SUM is associative under wrapping, so every algorithm must agree with a plain
    /// sequential sum: an independent check of the schedules' plumbing.
    #[test]
    fn integer_results_match_sequential_reference((alg, boards, rph, n) in case(), seed in any::<u64>()) {
        let p = boards * u16::from(rph);
        let vals: Vec<Vec<u64>> = (0..u64::from(p)).map(|r| (0..n as u64).map(|i| seed.wrapping_mul(r * 31 + i + 1).rotate_left(r as u32)).collect()).collect();
        let inputs: Vec<Vec<u8>> = vals.iter().map(|v| v.iter().flat_map(|x| x.to_le_bytes()).collect()).collect();
        let scan = expected(&spec(Collective::Scan, alg, Datatype::Uint64, ReduceOp::Sum, p, rph), &inputs).unwrap();
        let all = expected(&spec(Collective::Allreduce, alg, Datatype::Uint64, ReduceOp::Sum, p, rph), &inputs).unwrap();
        let mut prefix = vec![0u64; n];
        for r in 0..usize::from(p) {
            for i in 0..n { prefix[i] = prefix[i].wrapping_add(vals[r][i]); }
            let want: Vec<u8> = prefix.iter().flat_map(|x| x.to_le_bytes()).collect();
            prop_assert_eq!(scan[r].as_ref().unwrap(), &want);
        }
        let total: Vec<u8> = prefix.iter().flat_map(|x| x.to_le_bytes()).collect();
        for o in all { prop_assert_eq!(o.unwrap(), total.clone()); }
    }

    /// Distinct f64 data on every rank: allreduce gives bit-identical results on every rank.
    #[test]
    fn f64_allreduce_identical_on_every_rank((alg, boards, rph, n) in case(), seed in any::<u64>()) {
        let p = boards * u16::from(rph);
        let inputs: Vec<Vec<u8>> = (0..u64::from(p)).map(|r| (0..n as u64).flat_map(|i| {
            let x = ((seed ^ (r << 20 | i)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11) as f64 * 1e-3 - 4e12;
            x.to_le_bytes()
        }).collect()).collect();
        let out = expected(&spec(Collective::Allreduce, alg, Datatype::F64, ReduceOp::Sum, p, rph), &inputs).unwrap();
        for o in &out { prop_assert_eq!(o, &out[0]); }
    }
}

//! The golden model's combination order, worked by hand for every collective and algorithm at
//! P = 1, 2, 3, 4, 8 (and with 2 ranks per host). Values are symbols: `(a+b)` is combine(a, b)
//! with `a` the left operand, so each string is the exact association the hardware must use.

use collwire_proto::{Algorithm, Collective, Layout};
use collwire_testbench::golden::schedule;

const ALGS: [Algorithm; 4] = [
    Algorithm::Ring,
    Algorithm::RecursiveDoubling,
    Algorithm::Tree,
    Algorithm::Torus2d,
];

fn sym(a: &String, b: &String) -> String {
    format!("({a}+{b})")
}

fn run(c: Collective, alg: Algorithm, p: u16, rph: u8, root: usize) -> Vec<Option<String>> {
    let ranks: Vec<String> = (0..p).map(|r| r.to_string()).collect();
    schedule::run(c, alg, Layout::new(p, rph).unwrap(), root, &ranks, &sym)
}

fn allreduce(alg: Algorithm, p: u16) -> String {
    let out = run(Collective::Allreduce, alg, p, 1, 0);
    let first = out[0].clone().unwrap();
    assert!(
        out.iter().all(|o| o.as_deref() == Some(first.as_str())),
        "allreduce differs between ranks"
    );
    first
}

fn scan(alg: Algorithm, p: u16, rph: u8) -> Vec<String> {
    run(Collective::Scan, alg, p, rph, 0)
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

#[test]
fn allreduce_ring() {
    let a = Algorithm::Ring;
    assert_eq!(allreduce(a, 1), "0");
    assert_eq!(allreduce(a, 2), "(0+1)");
    assert_eq!(allreduce(a, 3), "((0+1)+2)");
    assert_eq!(allreduce(a, 4), "(((0+1)+2)+3)");
    assert_eq!(allreduce(a, 8), "(((((((0+1)+2)+3)+4)+5)+6)+7)");
}

#[test]
fn allreduce_recursive_doubling() {
    let a = Algorithm::RecursiveDoubling;
    assert_eq!(allreduce(a, 1), "0");
    assert_eq!(allreduce(a, 2), "(0+1)");
    // P = 3: board 1 folds into board 0 first, then boards 0 and 2 exchange.
    assert_eq!(allreduce(a, 3), "((0+1)+2)");
    assert_eq!(allreduce(a, 4), "((0+1)+(2+3))");
    assert_eq!(allreduce(a, 8), "(((0+1)+(2+3))+((4+5)+(6+7)))");
    // P = 6: boards 1 and 3 fold into 0 and 2; then 0, 2, 4, 5 exchange.
    assert_eq!(allreduce(a, 6), "(((0+1)+(2+3))+(4+5))");
    // P = 7: 1, 3, 5 fold into 0, 2, 4; then 0, 2, 4, 6.
    assert_eq!(allreduce(a, 7), "(((0+1)+(2+3))+((4+5)+6))");
}

#[test]
fn allreduce_tree() {
    let a = Algorithm::Tree;
    assert_eq!(allreduce(a, 1), "0");
    assert_eq!(allreduce(a, 2), "(0+1)");
    assert_eq!(allreduce(a, 3), "((0+1)+2)");
    assert_eq!(allreduce(a, 4), "((0+1)+(2+3))");
    assert_eq!(allreduce(a, 8), "(((0+1)+(2+3))+((4+5)+(6+7)))");
    assert_eq!(allreduce(a, 6), "(((0+1)+(2+3))+(4+5))");
}

#[test]
fn allreduce_torus() {
    let a = Algorithm::Torus2d;
    assert_eq!(allreduce(a, 1), "0"); // 1×1
    assert_eq!(allreduce(a, 2), "(0+1)"); // 1×2
    assert_eq!(allreduce(a, 3), "((0+1)+2)"); // 1×3: a ring
    assert_eq!(allreduce(a, 4), "((0+1)+(2+3))"); // 2×2
    assert_eq!(allreduce(a, 8), "((((0+1)+2)+3)+(((4+5)+6)+7))"); // 2×4
    assert_eq!(allreduce(a, 6), "(((0+1)+2)+((3+4)+5))"); // 2×3
}

#[test]
fn reduce_delivers_the_allreduce_value_to_the_root_only() {
    for alg in ALGS {
        for p in [1u16, 2, 3, 4, 8] {
            for root in 0..usize::from(p) {
                let out = run(Collective::Reduce, alg, p, 1, root);
                for (r, o) in out.iter().enumerate() {
                    if r == root {
                        assert_eq!(o.as_deref(), Some(allreduce(alg, p).as_str()));
                    } else {
                        assert_eq!(*o, None);
                    }
                }
            }
        }
    }
}

#[test]
fn barrier_has_no_data() {
    for alg in ALGS {
        assert!(
            run(Collective::Barrier, alg, 4, 1, 0)
                .iter()
                .all(Option::is_none)
        );
    }
}

/// Ring, P = 1..3 and the first ranks: every algorithm agrees up to P = 3.
fn small_scans(alg: Algorithm) {
    assert_eq!(scan(alg, 1, 1), ["0"]);
    assert_eq!(scan(alg, 2, 1), ["0", "(0+1)"]);
    assert_eq!(scan(alg, 3, 1), ["0", "(0+1)", "((0+1)+2)"]);
    assert_eq!(
        scan(alg, 4, 1),
        ["0", "(0+1)", "((0+1)+2)", "(((0+1)+2)+3)"]
    );
}

#[test]
fn scan_ring() {
    small_scans(Algorithm::Ring);
    assert_eq!(
        scan(Algorithm::Ring, 8, 1),
        [
            "0",
            "(0+1)",
            "((0+1)+2)",
            "(((0+1)+2)+3)",
            "((((0+1)+2)+3)+4)",
            "(((((0+1)+2)+3)+4)+5)",
            "((((((0+1)+2)+3)+4)+5)+6)",
            "(((((((0+1)+2)+3)+4)+5)+6)+7)",
        ]
    );
}

#[test]
fn scan_recursive_doubling() {
    small_scans(Algorithm::RecursiveDoubling);
    assert_eq!(
        scan(Algorithm::RecursiveDoubling, 8, 1),
        [
            "0",
            "(0+1)",
            "((0+1)+2)",
            "(((0+1)+2)+3)",
            "(((0+1)+(2+3))+4)",
            "((((0+1)+(2+3))+4)+5)",
            "((((0+1)+(2+3))+(4+5))+6)",
            "((((0+1)+(2+3))+((4+5)+6))+7)",
        ]
    );
}

#[test]
fn scan_tree() {
    small_scans(Algorithm::Tree);
    assert_eq!(
        scan(Algorithm::Tree, 8, 1),
        [
            "0",
            "(0+1)",
            "((0+1)+2)",
            "(((0+1)+2)+3)",
            "(((0+1)+(2+3))+4)",
            "((((0+1)+(2+3))+4)+5)",
            "((((0+1)+(2+3))+(4+5))+6)",
            "(((((0+1)+(2+3))+(4+5))+6)+7)",
        ]
    );
}

#[test]
fn scan_torus() {
    small_scans(Algorithm::Torus2d);
    assert_eq!(
        scan(Algorithm::Torus2d, 8, 1),
        [
            "0",
            "(0+1)",
            "((0+1)+2)",
            "(((0+1)+2)+3)",
            "((((0+1)+2)+3)+4)",
            "(((((0+1)+2)+3)+4)+5)",
            "(((((0+1)+2)+3)+(4+5))+6)",
            "(((((0+1)+2)+3)+((4+5)+6))+7)",
        ]
    );
}

#[test]
fn two_ranks_per_host_combine_locally_first() {
    // 8 ranks on 4 boards: board b contributes (2b + 2b+1).
    let out = run(Collective::Allreduce, Algorithm::Ring, 8, 2, 0);
    assert_eq!(out[5].as_deref(), Some("((((0+1)+(2+3))+(4+5))+(6+7))"));
    let out = run(Collective::Allreduce, Algorithm::RecursiveDoubling, 6, 2, 0);
    assert_eq!(out[0].as_deref(), Some("(((0+1)+(2+3))+(4+5))"));
    // Scan: board prefix (over board totals) · local prefix.
    assert_eq!(
        scan(Algorithm::Ring, 4, 2),
        ["0", "(0+1)", "((0+1)+2)", "((0+1)+(2+3))"]
    );
    assert_eq!(
        scan(Algorithm::RecursiveDoubling, 8, 2),
        [
            "0",
            "(0+1)",
            "((0+1)+2)",
            "((0+1)+(2+3))",
            "(((0+1)+(2+3))+4)",
            "(((0+1)+(2+3))+(4+5))",
            "((((0+1)+(2+3))+(4+5))+6)",
            "((((0+1)+(2+3))+(4+5))+(6+7))"
        ]
    );
    // Four ranks on one board: purely local, local-rank order.
    assert_eq!(
        scan(Algorithm::Tree, 4, 4),
        ["0", "(0+1)", "((0+1)+2)", "(((0+1)+2)+3)"]
    );
}

/// Every rank's data appears exactly once (and only lower ranks' data in a scan), for every
/// board count 1..=64 and several ranks per host — non-powers of two included.
#[test]
fn every_contribution_counted_once() {
    let merge = |a: &Vec<usize>, b: &Vec<usize>| {
        assert!(
            a.last() < b.first(),
            "left operand must cover lower ranks: {a:?} · {b:?}"
        );
        [a.as_slice(), b.as_slice()].concat()
    };
    for alg in ALGS {
        for rph in [1u8, 2, 3] {
            for boards in 1u16..=64 {
                let p = boards * u16::from(rph);
                let ranks: Vec<Vec<usize>> = (0..usize::from(p)).map(|r| vec![r]).collect();
                let layout = Layout::new(p, rph).unwrap();
                let all: Vec<usize> = (0..usize::from(p)).collect();
                for o in schedule::run(Collective::Allreduce, alg, layout, 0, &ranks, &merge) {
                    assert_eq!(o.unwrap(), all, "{alg} P={p}");
                }
                for (r, o) in schedule::run(Collective::Scan, alg, layout, 0, &ranks, &merge)
                    .into_iter()
                    .enumerate()
                {
                    assert_eq!(
                        o.unwrap(),
                        (0..=r).collect::<Vec<_>>(),
                        "{alg} scan P={p} rank {r}"
                    );
                }
            }
        }
    }
}

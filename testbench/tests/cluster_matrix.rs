//! The golden test matrix: collectives run on simulated clusters of Verilated boards
//! (`collwire_sim::cluster`), every rank's result compared bit for bit with the golden model
//! (`collwire_testbench::golden::expected`), with distinct random data on every rank.
//!
//! The full matrix — every collective × algorithm × (datatype, valid op) × P ∈ {2, 4, 8}
//! (and 16 for the ring) × ranks per host {1, 2} × sizes {1 element, one full packet,
//! 3 segments} × widths {64, 256} — runs with `COLLWIRE_MATRIX=full cargo test --release -p
//! collwire-testbench --test cluster_matrix`. By default (CI) a seeded sample runs: for every
//! (width, collective, algorithm) [`PER_COMBINATION`] cases, the (datatype, op) pairs dealt
//! out in turn so all of them appear, the rank layout and size drawn at random.
//! `COLLWIRE_MATRIX_SEED` changes the sample.

mod common;

use std::collections::HashMap;

use collwire_driver::Call;
use collwire_proto::segment::max_elements_per_segment;
use collwire_proto::{Algorithm, Collective, Datatype, Layout, ReduceOp};
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::collective::{Job, run_jobs};
use collwire_testbench::golden::{Spec, expected};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use common::{MTU, compare, run_golden};

const PER_COMBINATION: usize = 10;
const MAX_CYCLES: u64 = 2_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Size {
    One,
    FullPacket,
    ThreeSegments,
}

#[derive(Debug, Clone, Copy)]
struct Case {
    width: usize,
    collective: Collective,
    algorithm: Algorithm,
    datatype: Datatype,
    op: ReduceOp,
    boards: usize,
    rph: u8,
    size: Size,
    root: usize,
}

impl Case {
    fn ranks(&self) -> usize {
        self.boards * usize::from(self.rph)
    }
    fn elements(&self) -> usize {
        if !self.collective.carries_data() {
            return 0;
        }
        let full = max_elements_per_segment(self.datatype, MTU).unwrap();
        match self.size {
            Size::One => 1,
            Size::FullPacket => full,
            Size::ThreeSegments => 2 * full + 3,
        }
    }
}

fn pairs() -> Vec<(Datatype, ReduceOp)> {
    ReduceOp::supported_pairs()
}

/// (boards, ranks per host) for P ∈ {2, 4, 8}, and P = 16 for the ring.
fn layouts(algorithm: Algorithm) -> Vec<(usize, u8)> {
    let mut l = vec![(2, 1), (1, 2), (4, 1), (2, 2), (8, 1), (4, 2)];
    if algorithm == Algorithm::Ring {
        l.extend([(16, 1), (8, 2)]);
    }
    l
}

const COLLECTIVES: [Collective; 4] = [
    Collective::Allreduce,
    Collective::Reduce,
    Collective::Barrier,
    Collective::Scan,
];
const ALGORITHMS: [Algorithm; 4] = [
    Algorithm::Ring,
    Algorithm::RecursiveDoubling,
    Algorithm::Tree,
    Algorithm::Torus2d,
];
const SIZES: [Size; 3] = [Size::One, Size::FullPacket, Size::ThreeSegments];

fn full_matrix() -> Vec<Case> {
    let mut all = Vec::new();
    for width in [64, 256] {
        for collective in COLLECTIVES {
            for algorithm in ALGORITHMS {
                for (datatype, op) in pairs() {
                    for (boards, rph) in layouts(algorithm) {
                        for size in SIZES {
                            let root = (boards * usize::from(rph)) / 2;
                            all.push(Case {
                                width,
                                collective,
                                algorithm,
                                datatype,
                                op,
                                boards,
                                rph,
                                size,
                                root,
                            });
                        }
                    }
                }
            }
        }
    }
    all
}

fn sample(seed: u64) -> Vec<Case> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let pairs = pairs();
    let mut deal = 0;
    let mut out = Vec::new();
    for width in [64, 256] {
        for collective in COLLECTIVES {
            for algorithm in ALGORITHMS {
                let layouts = layouts(algorithm);
                for _ in 0..PER_COMBINATION {
                    let (datatype, op) = pairs[deal % pairs.len()];
                    deal += 1;
                    let (boards, rph) = layouts[rng.gen_range(0..layouts.len())];
                    let size = SIZES[rng.gen_range(0..SIZES.len())];
                    let root = rng.gen_range(0..boards * usize::from(rph));
                    out.push(Case {
                        width,
                        collective,
                        algorithm,
                        datatype,
                        op,
                        boards,
                        rph,
                        size,
                        root,
                    });
                }
            }
        }
    }
    out
}

/// Distinct random elements, with floats finite and spread over many exponents (so the order
/// of a floating-point sum shows in the bits).
fn random_input(rng: &mut SmallRng, datatype: Datatype, op: ReduceOp, elements: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(elements * datatype.size());
    for _ in 0..elements {
        let logical = matches!(op, ReduceOp::Land | ReduceOp::Lor | ReduceOp::Lxor);
        let int: u64 = if logical && rng.gen_bool(0.5) {
            rng.gen_range(0..2)
        } else {
            rng.r#gen()
        };
        match datatype {
            Datatype::F32 => {
                let v = (rng.r#gen::<f32>() - 0.5) * 2f32.powi(rng.gen_range(-30..30));
                out.extend(v.to_le_bytes());
            }
            Datatype::F64 => {
                let v = (rng.r#gen::<f64>() - 0.5) * 2f64.powi(rng.gen_range(-60..60));
                out.extend(v.to_le_bytes());
            }
            d => out.extend(&int.to_le_bytes()[..d.size()]),
        }
    }
    out
}

/// Runs `case` on `cluster`; every rank's answer must equal `golden` bit for bit.
fn run_case(
    cluster: &mut Cluster,
    case: &Case,
    op_id: u16,
    rng: &mut SmallRng,
) -> Result<u64, String> {
    let ranks = case.ranks();
    let elements = case.elements();
    let inputs: Vec<Vec<u8>> = (0..ranks)
        .map(|_| random_input(rng, case.datatype, case.op, elements))
        .collect();
    let call = Call {
        collective: case.collective,
        algorithm: case.algorithm,
        datatype: case.datatype,
        op: case.op,
        root: case.root,
        elements,
        op_id,
    };
    let result = run_golden(cluster, call, 7, case.rph, inputs, MAX_CYCLES)?;
    Ok(result.last_response - result.first_request)
}

/// Runs `cases` on two threads, one cluster per (width, boards) and thread.
fn run_all(cases: Vec<Case>, seed: u64) {
    let bar = collwire_sim::progress::bar(cases.len() as u64, "golden matrix");
    let chunks: Vec<Vec<(usize, Case)>> = (0..2)
        .map(|t| {
            cases
                .iter()
                .copied()
                .enumerate()
                .filter(|(i, _)| i % 2 == t)
                .collect()
        })
        .collect();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let bar = bar.clone();
                s.spawn(move || {
                    let mut clusters: HashMap<(usize, usize), Cluster> = HashMap::new();
                    let mut failures = Vec::new();
                    for (i, case) in chunk {
                        let mut rng = SmallRng::seed_from_u64(seed ^ (i as u64 * 0x9E37_79B9));
                        let cluster =
                            clusters
                                .entry((case.width, case.boards))
                                .or_insert_with(|| {
                                    Cluster::new(ClusterConfig {
                                        boards: case.boards,
                                        width: case.width,
                                        link_latency: 4,
                                        topology: Topology::Ring,
                                    })
                                    .unwrap()
                                });
                        let outcome = run_case(cluster, &case, i as u16, &mut rng);
                        bar.inc(1);
                        match outcome {
                            Ok(cycles) => println!("ok {cycles:>7} cycles  {case:?}"),
                            Err(e) => {
                                println!("FAIL case {i} {case:?}: {e}");
                                failures.push(format!("case {i} {case:?}: {e}"));
                            }
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    bar.finish_and_clear();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn matrix_matches_the_golden_model() {
    let seed = std::env::var("COLLWIRE_MATRIX_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2026);
    let cases = if std::env::var("COLLWIRE_MATRIX").as_deref() == Ok("full") {
        full_matrix()
    } else {
        sample(seed)
    };
    println!("{} cases (seed {seed})", cases.len());
    run_all(cases, seed);
}

/// The comparison can fail: a golden model with the wrong combination order (the tree's order
/// for a ring allreduce of floats spread over many exponents) disagrees with the boards.
#[test]
fn a_wrong_golden_model_fails_the_matrix() {
    let case = Case {
        width: 64,
        collective: Collective::Allreduce,
        algorithm: Algorithm::Ring,
        datatype: Datatype::F64,
        op: ReduceOp::Sum,
        boards: 4,
        rph: 2,
        size: Size::FullPacket,
        root: 0,
    };
    let mut cluster = Cluster::new(ClusterConfig {
        boards: 4,
        width: 64,
        link_latency: 4,
        topology: Topology::Ring,
    })
    .unwrap();
    let mut rng = SmallRng::seed_from_u64(5);
    let elements = case.elements();
    let inputs: Vec<Vec<u8>> = (0..8)
        .map(|_| random_input(&mut rng, case.datatype, case.op, elements))
        .collect();
    let mut spec = Spec {
        collective: case.collective,
        algorithm: case.algorithm,
        datatype: case.datatype,
        op: case.op,
        layout: Layout::new(8, 2).unwrap(),
        root: 0,
    };
    let job = Job {
        call: Call {
            collective: case.collective,
            algorithm: case.algorithm,
            datatype: case.datatype,
            op: case.op,
            root: 0,
            elements,
            op_id: 1,
        },
        comm_id: 7,
        ranks_per_host: 2,
        inputs: inputs.clone(),
    };
    let got = run_jobs(&mut cluster, &[job], MTU, MAX_CYCLES)
        .unwrap()
        .remove(0)
        .outcomes;
    assert_eq!(compare(&expected(&spec, &inputs).unwrap(), &got), Ok(()));
    spec.algorithm = Algorithm::Tree;
    let wrong = expected(&spec, &inputs).unwrap();
    assert!(
        compare(&wrong, &got).is_err(),
        "a wrong golden model went unnoticed"
    );
}

//! Golden reference model.
//!
//! Given every rank's input, computes every rank's exact output by combining operands in the
//! fixed order each algorithm defines. The order is generic ([`schedule`]) so tests can check it
//! symbolically; [`expected`] runs it on raw little-endian bytes with the lane functions of
//! `collwire_proto::reduce`.
//!
//! In every formula `a·b` means `combine(a, b)` with `a` the left operand; left operands always
//! cover lower-ranked data than right operands, so even non-associative IEEE sums come out the
//! same on every rank and every run.

use collwire_proto::layout::torus_shape;
use collwire_proto::{Algorithm, Collective, Datatype, Layout, ReduceOp, reduce};

/// Why the golden model refuses a case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoldenError {
    #[error(transparent)]
    Proto(#[from] collwire_proto::Error),
    #[error("{got} inputs for a communicator of {expected} ranks")]
    InputCount { expected: usize, got: usize },
    #[error(
        "rank {rank} input is {len} bytes; every rank needs the same whole number of {elem_size}-byte elements ({expected} bytes)"
    )]
    InputLength {
        rank: usize,
        len: usize,
        expected: usize,
        elem_size: usize,
    },
    #[error("root {root} out of range for {size} ranks")]
    RootOutOfRange { root: usize, size: usize },
}

/// One collective call, as every rank issues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub collective: Collective,
    pub algorithm: Algorithm,
    pub datatype: Datatype,
    pub op: ReduceOp,
    pub layout: Layout,
    /// Root rank (Reduce only).
    pub root: usize,
}

/// The combination order of every algorithm, over any value type.
pub mod schedule {
    use super::*;

    /// `a·b` when `a` exists, else `b`.
    fn after<T: Clone>(a: &Option<T>, b: T, f: &impl Fn(&T, &T) -> T) -> T {
        match a {
            Some(a) => f(a, &b),
            None => b,
        }
    }

    /// Left fold `((v0·v1)·v2)…` — ring order, and the order of local ranks on one board.
    pub fn fold<T: Clone>(vals: &[T], f: &impl Fn(&T, &T) -> T) -> T {
        let (first, rest) = vals.split_first().expect("fold of no values");
        rest.iter().fold(first.clone(), |acc, v| f(&acc, v))
    }

    /// The value every board ends with after an allreduce of one value per board.
    pub fn allreduce<T: Clone>(algorithm: Algorithm, boards: &[T], f: &impl Fn(&T, &T) -> T) -> T {
        let b = boards.len();
        match algorithm {
            Algorithm::Ring => fold(boards, f),
            Algorithm::RecursiveDoubling => {
                // Non-power-of-two (MPICH's pairing): with p the largest power of two ≤ b and
                // rem = b − p, the first 2·rem boards pair up and board 2i+1 folds into board 2i
                // (as the right operand); the p remaining boards — 2i for i < rem, then
                // 2·rem … b−1 — run recursive doubling in that order, and the boards that sat
                // out receive the result. Every operand stays a contiguous range of boards.
                let p = 1usize << b.ilog2();
                let rem = b - p;
                let mut v: Vec<T> = (0..rem)
                    .map(|i| f(&boards[2 * i], &boards[2 * i + 1]))
                    .chain(boards[2 * rem..].iter().cloned())
                    .collect();
                let mut d = 1;
                while d < p {
                    v = (0..p)
                        .map(|i| {
                            let j = i ^ d;
                            if i < j {
                                f(&v[i], &v[j])
                            } else {
                                f(&v[j], &v[i])
                            }
                        })
                        .collect();
                    d *= 2;
                }
                v.swap_remove(0)
            }
            Algorithm::Tree => tree_up(boards, f).0,
            Algorithm::Torus2d => {
                let (_, cols) = torus_shape(b);
                let rows: Vec<T> = boards.chunks(cols).map(|row| fold(row, f)).collect();
                fold(&rows, f)
            }
        }
    }

    /// For one tree distance d: each parent's value covering boards [i, i + d), indexed by i.
    type RangesBefore<T> = (usize, Vec<Option<T>>);

    /// Binomial reduce tree rooted at board 0: at distance d = 1, 2, 4, … board i (a multiple
    /// of 2d) absorbs board i + d as the right operand. Returns the root's total and, per
    /// distance, each parent's value just *before* absorbing the child at that distance (the
    /// range [i, i + d)), which the scan's down-sweep needs.
    fn tree_up<T: Clone>(boards: &[T], f: &impl Fn(&T, &T) -> T) -> (T, Vec<RangesBefore<T>>) {
        let b = boards.len();
        let mut acc: Vec<T> = boards.to_vec();
        let mut before = Vec::new();
        let mut d = 1;
        while d < b {
            let mut snap = vec![None; b];
            for i in (0..b).step_by(2 * d) {
                if i + d < b {
                    snap[i] = Some(acc[i].clone());
                    acc[i] = f(&acc[i], &acc[i + d]);
                }
            }
            before.push((d, snap));
            d *= 2;
        }
        (acc.swap_remove(0), before)
    }

    /// Each board's exclusive prefix (`None` on board 0) of one value per board.
    pub fn exclusive_scan<T: Clone>(
        algorithm: Algorithm,
        boards: &[T],
        f: &impl Fn(&T, &T) -> T,
    ) -> Vec<Option<T>> {
        let b = boards.len();
        match algorithm {
            Algorithm::Ring => {
                let mut excl: Vec<Option<T>> = vec![None; b];
                for i in 1..b {
                    excl[i] = Some(after(&excl[i - 1], boards[i - 1].clone(), f));
                }
                excl
            }
            Algorithm::RecursiveDoubling => {
                // At distance d board i exchanges subcube totals with i XOR d (skipped when that
                // board does not exist). A total from a lower partner covers the ranks just below
                // the current prefix, so it goes on the left of both prefix and total.
                let mut total: Vec<T> = boards.to_vec();
                let mut excl: Vec<Option<T>> = vec![None; b];
                let mut d = 1;
                while d < b {
                    let prev = total.clone();
                    for i in 0..b {
                        let j = i ^ d;
                        if j >= b {
                            continue;
                        }
                        if j < i {
                            excl[i] = Some(match &excl[i] {
                                Some(e) => f(&prev[j], e),
                                None => prev[j].clone(),
                            });
                            total[i] = f(&prev[j], &prev[i]);
                        } else {
                            total[i] = f(&prev[i], &prev[j]);
                        }
                    }
                    d *= 2;
                }
                excl
            }
            Algorithm::Tree => {
                // Up-sweep as in the allreduce tree; down-sweep from the largest distance: the
                // child at i + d receives parent's prefix · (parent's range [i, i + d)).
                let (_, before) = tree_up(boards, f);
                let mut excl: Vec<Option<T>> = vec![None; b];
                for (d, snap) in before.iter().rev() {
                    for (i, range) in snap.iter().enumerate() {
                        if let Some(range) = range {
                            excl[i + d] = Some(after(&excl[i], range.clone(), f));
                        }
                    }
                }
                excl
            }
            Algorithm::Torus2d => {
                // Ring prefix along each row; the row totals' ring prefix down the column;
                // board (r, c) gets column-prefix(r) · row-prefix(r, c).
                let (_, cols) = torus_shape(b);
                let row_totals: Vec<T> = boards.chunks(cols).map(|row| fold(row, f)).collect();
                let col_excl = exclusive_scan(Algorithm::Ring, &row_totals, f);
                let mut excl = Vec::with_capacity(b);
                for (r, row) in boards.chunks(cols).enumerate() {
                    for in_row in exclusive_scan(Algorithm::Ring, row, f) {
                        excl.push(match (&col_excl[r], in_row) {
                            (Some(c), Some(x)) => Some(f(c, &x)),
                            (Some(c), None) => Some(c.clone()),
                            (None, x) => x,
                        });
                    }
                }
                excl
            }
        }
    }

    /// Per-rank outcome of a data collective: `Some(value)` where the rank receives a result
    /// (every rank for Allreduce and Scan, only the root for Reduce); all `None` for Barrier.
    /// Local ranks are combined in local-rank order first; the algorithm runs over boards.
    pub fn run<T: Clone>(
        collective: Collective,
        algorithm: Algorithm,
        layout: Layout,
        root: usize,
        ranks: &[T],
        f: &impl Fn(&T, &T) -> T,
    ) -> Vec<Option<T>> {
        assert_eq!(ranks.len(), layout.size());
        let rph = layout.ranks_per_host();
        let hosts: Vec<T> = ranks.chunks(rph).map(|local| fold(local, f)).collect();
        match collective {
            Collective::Allreduce => vec![Some(allreduce(algorithm, &hosts, f)); ranks.len()],
            Collective::Reduce => {
                let total = allreduce(algorithm, &hosts, f);
                (0..ranks.len())
                    .map(|r| (r == root).then(|| total.clone()))
                    .collect()
            }
            Collective::Scan => {
                let excl = exclusive_scan(algorithm, &hosts, f);
                (0..ranks.len())
                    .map(|r| {
                        let b = layout.board_of(r);
                        let local = fold(&ranks[b * rph..=r], f);
                        Some(after(&excl[b], local, f))
                    })
                    .collect()
            }
            _ => vec![None; ranks.len()],
        }
    }
}

/// The exact bytes each rank receives: `Some(bytes)` for a rank that gets a result (Barrier:
/// `Some(empty)` on every rank), `None` for Reduce's non-root ranks.
pub fn expected(spec: &Spec, inputs: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, GoldenError> {
    let size = spec.layout.size();
    if inputs.len() != size {
        return Err(GoldenError::InputCount {
            expected: size,
            got: inputs.len(),
        });
    }
    if spec.root >= size {
        return Err(GoldenError::RootOutOfRange {
            root: spec.root,
            size,
        });
    }
    for (field, name, ok) in [
        (
            Collective::FIELD,
            spec.collective.name(),
            spec.collective.is_supported(),
        ),
        (
            Algorithm::FIELD,
            spec.algorithm.name(),
            spec.algorithm.is_supported(),
        ),
    ] {
        if !ok {
            return Err(collwire_proto::Error::Unsupported { field, name }.into());
        }
    }
    reduce::lane_fn(spec.datatype, spec.op)?;
    let elem_size = spec.datatype.size();
    let expected_len = if spec.collective.carries_data() {
        inputs[0].len()
    } else {
        0
    };
    for (rank, input) in inputs.iter().enumerate() {
        if input.len() != expected_len || input.len() % elem_size != 0 {
            return Err(GoldenError::InputLength {
                rank,
                len: input.len(),
                expected: expected_len,
                elem_size,
            });
        }
    }
    if !spec.collective.carries_data() {
        return Ok(vec![Some(Vec::new()); size]);
    }
    let combine = |a: &Vec<u8>, b: &Vec<u8>| {
        reduce::combine(spec.datatype, spec.op, a, b).expect("operands validated above")
    };
    Ok(schedule::run(
        spec.collective,
        spec.algorithm,
        spec.layout,
        spec.root,
        inputs,
        &combine,
    ))
}

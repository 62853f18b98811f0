//! The schedules: for each algorithm, what board `p.board` of `boards` does, as micro-ops
//! ([`super::Uop`]) built with [`super::Builder`]. Every schedule is checked by the reference
//! interpreter (`testbench/tests/cfe_programs.rs`) in random arrival orders.

use super::*;

use MessageType::{Partial, Result as Final};

/// Ring: the partial travels 0 → 1 → … → B−1 (left fold in board order); board B−1 sends the
/// total on around the ring, B−1 → 0 → 1 → … → B−2, each board delivering and forwarding it.
pub(super) fn ring_reduction(p: &mut Builder, boards: usize) {
    let b = p.board;
    let last = boards - 1;
    if boards == 1 {
        p.uops.push(Uop::Respond { a: H });
        return;
    }
    let acc = if b == 0 {
        p.send(H, 1, Partial, Key::Up(0));
        None
    } else {
        let from_prev = p.recv(b - 1, Key::Up(0));
        let send = (b < last).then_some((b + 1, Partial, Key::Up(0)));
        if b == last {
            p.combine(from_prev, H, from_prev, Some((0, Final, Key::Down(0))));
        } else {
            p.pass(from_prev, Some(H), None, send);
        }
        Some(from_prev)
    };
    let result = if b == last {
        acc.expect("last board accumulates")
    } else {
        let prev = if b == 0 { last } else { b - 1 };
        let r = p.recv(prev, Key::Down(0));
        if b + 1 < last {
            p.send(r, b + 1, Final, Key::Down(0));
        }
        r
    };
    p.uops.push(Uop::Respond { a: result });
}

/// Ring scan: the partial arriving at board b is exactly its exclusive prefix.
pub(super) fn ring_scan(p: &mut Builder, boards: usize) {
    let b = p.board;
    if b == 0 {
        if boards > 1 {
            p.send(H, 1, Partial, Key::Up(0));
        }
        p.uops.push(Uop::RespondPrefix { x: None });
    } else {
        let x = p.recv(b - 1, Key::Up(0));
        if b + 1 < boards {
            p.pass(x, Some(H), None, Some((b + 1, Partial, Key::Up(0))));
        }
        p.uops.push(Uop::RespondPrefix { x: Some(x) });
    }
}

/// Recursive doubling with MPICH's pairing for board counts that are not a power of two.
pub(super) fn rd_reduction(p: &mut Builder, boards: usize) {
    let b = p.board;
    let pow = 1usize << boards.ilog2();
    let rem = boards - pow;
    if b < 2 * rem && !b.is_multiple_of(2) {
        // Folds into its even neighbour, then receives the result from it.
        p.send(H, b - 1, Partial, Key::Up(0));
        let r = p.recv(b - 1, Key::Down(0));
        p.uops.push(Uop::Respond { a: r });
        return;
    }
    let board_of = |q: usize| if q < rem { 2 * q } else { q + rem };
    let (q, mut acc) = if b < 2 * rem {
        let odd = p.recv(b + 1, Key::Up(0));
        p.combine(H, odd, odd, None);
        (b / 2, odd)
    } else {
        (b - rem, H)
    };
    let mut d = 1;
    let mut step = 1u8;
    while d < pow {
        let partner = board_of(q ^ d);
        let input = p.recv(partner, Key::Up(step));
        p.send(acc, partner, Partial, Key::Up(step));
        if partner < b {
            p.combine(input, acc, input, None);
        } else {
            p.combine(acc, input, input, None);
        }
        acc = input;
        d *= 2;
        step += 1;
    }
    if b < 2 * rem {
        p.send(acc, b + 1, Final, Key::Down(0));
    }
    p.uops.push(Uop::Respond { a: acc });
}

/// Recursive-doubling scan: subcube totals exchanged with `b XOR d` when that board exists.
pub(super) fn rd_scan(p: &mut Builder, boards: usize) {
    let b = p.board;
    let mut total = H;
    let mut prefix: Option<u8> = None;
    let mut d = 1;
    let mut step = 0u8;
    while d < boards {
        let partner = b ^ d;
        if partner < boards {
            let input = p.recv(partner, Key::Up(step));
            p.send(total, partner, Partial, Key::Up(step));
            total = if partner < b {
                // From below: prefix = T_j · prefix, total = T_j · total.
                if let Some(x) = prefix {
                    p.combine(input, x, x, None);
                    p.combine(input, total, input, None);
                    input
                } else {
                    // The input itself becomes the prefix; the new total needs its own register.
                    let t = if total == H || p.spare() {
                        p.fresh()
                    } else {
                        total
                    };
                    p.combine(input, total, t, None);
                    prefix = Some(input);
                    t
                }
            } else {
                p.combine(total, input, input, None);
                input
            };
        }
        d *= 2;
        step += 1;
    }
    p.uops.push(Uop::RespondPrefix { x: prefix });
}

/// Children of board `b` in a binomial tree over `boards` boards, smallest distance first.
pub(super) fn tree_children(b: usize, boards: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut d = 1;
    while d < boards && b.is_multiple_of(2 * d) {
        if b + d < boards {
            out.push(b + d);
        }
        d *= 2;
    }
    out
}

/// Parent of board `b > 0`: clear its lowest set bit.
pub(super) fn tree_parent(b: usize) -> usize {
    b & (b - 1)
}

/// Binomial tree: children absorbed in distance order (as right operands), the total sent up;
/// the result comes back down and goes to the children, farthest subtree first.
pub(super) fn tree_reduction(p: &mut Builder, boards: usize) {
    let b = p.board;
    let mut acc = H;
    for child in tree_children(b, boards) {
        let input = p.recv(child, Key::Up(0));
        p.combine(acc, input, input, None);
        acc = input;
    }
    let result = if b == 0 {
        acc
    } else {
        let parent = tree_parent(b);
        p.send(acc, parent, Partial, Key::Up(0));
        p.recv(parent, Key::Down(0))
    };
    for child in tree_children(b, boards).into_iter().rev() {
        p.send(result, child, Final, Key::Down(0));
    }
    p.uops.push(Uop::Respond { a: result });
}

/// Tree scan: on the way up, a parent sends each child the range it holds just before
/// absorbing it (`R`); on the way down it sends its own exclusive prefix `X` (board 0 has none),
/// and the child's prefix is `X · R` (just `R` under board 0).
pub(super) fn tree_scan(p: &mut Builder, boards: usize) {
    let b = p.board;
    let mut acc = H;
    for child in tree_children(b, boards) {
        let input = p.recv(child, Key::Up(0));
        p.send(acc, child, Partial, Key::Down(1));
        p.combine(acc, input, input, None);
        acc = input;
    }
    let prefix = if b == 0 {
        None
    } else {
        let parent = tree_parent(b);
        p.send(acc, parent, Partial, Key::Up(0));
        let range = p.recv(parent, Key::Down(1));
        if parent == 0 {
            Some(range)
        } else {
            let x = p.recv(parent, Key::Down(0));
            p.combine(x, range, range, None);
            Some(range)
        }
    };
    if let Some(x) = prefix {
        for child in tree_children(b, boards).into_iter().rev() {
            p.send(x, child, Final, Key::Down(0));
        }
    }
    p.uops.push(Uop::RespondPrefix { x: prefix });
}

/// 2-D torus: each row folds left to right into its last column; the row totals fold down the
/// last column into board B−1; the total goes back up the last column (around the column
/// ring) and along every row (around the row ring).
pub(super) fn torus_reduction(p: &mut Builder, boards: usize) {
    let b = p.board;
    let (rows, cols) = torus_shape(boards);
    let (r, c) = (b / cols, b % cols);
    let at = |r: usize, c: usize| r * cols + c;
    let mut acc = H;
    if c > 0 {
        let left = p.recv(at(r, c - 1), Key::Up(0));
        p.combine(left, acc, left, None);
        acc = left;
    }
    if c + 1 < cols {
        p.send(acc, at(r, c + 1), Partial, Key::Up(0));
    } else {
        if r > 0 {
            let above = p.recv(at(r - 1, c), Key::Up(1));
            p.combine(above, acc, above, None);
            acc = above;
        }
        if r + 1 < rows {
            p.send(acc, at(r + 1, c), Partial, Key::Up(1));
        }
    }
    let last = boards - 1;
    let result = if b == last {
        acc
    } else if c + 1 == cols {
        p.recv(at((r + rows - 1) % rows, c), Key::Down(0))
    } else {
        let from = if c == 0 { at(r, cols - 1) } else { b - 1 };
        p.recv(from, Key::Down(0))
    };
    if c + 1 == cols {
        let below = (r + 1) % rows;
        if at(below, c) != last && rows > 1 {
            p.send(result, at(below, c), Final, Key::Down(0));
        }
        if cols > 1 {
            p.send(result, at(r, 0), Final, Key::Down(0));
        }
    } else if c + 2 < cols {
        p.send(result, b + 1, Final, Key::Down(0));
    }
    p.uops.push(Uop::Respond { a: result });
}

/// Torus scan: ring prefix along each row; the row totals' ring prefix down the last column;
/// the column prefix `C` then travels along the row, and board (r, c) gets `C · rowprefix`.
pub(super) fn torus_scan(p: &mut Builder, boards: usize) {
    let b = p.board;
    let (rows, cols) = torus_shape(boards);
    let (r, c) = (b / cols, b % cols);
    let at = |r: usize, c: usize| r * cols + c;
    let row_prefix = (c > 0).then(|| p.recv(at(r, c - 1), Key::Up(0)));
    if c + 1 < cols {
        match row_prefix {
            Some(x) => p.pass(x, Some(H), None, Some((b + 1, Partial, Key::Up(0)))),
            None => p.send(H, b + 1, Partial, Key::Up(0)),
        }
    }
    let col_prefix = if r == 0 {
        None
    } else if c + 1 == cols {
        Some(p.recv(at(r - 1, c), Key::Up(1)))
    } else {
        let from = if c == 0 { at(r, cols - 1) } else { b - 1 };
        Some(p.recv(from, Key::Down(0)))
    };
    if c + 1 == cols {
        // Row total T = rowprefix · H; column partial down = C · T.
        if r + 1 < rows {
            let total = match row_prefix {
                Some(x) => {
                    let t = p.fresh();
                    p.combine(x, H, t, None);
                    Some(t)
                }
                None => None,
            };
            match (col_prefix, total) {
                (Some(cp), Some(t)) => {
                    p.pass(cp, Some(t), None, Some((at(r + 1, c), Partial, Key::Up(1))))
                }
                (Some(cp), None) => {
                    p.pass(cp, Some(H), None, Some((at(r + 1, c), Partial, Key::Up(1))))
                }
                (None, Some(t)) => p.send(t, at(r + 1, c), Partial, Key::Up(1)),
                (None, None) => p.send(H, at(r + 1, c), Partial, Key::Up(1)),
            }
        }
        if let Some(cp) = col_prefix
            && cols > 1
        {
            p.send(cp, at(r, 0), Final, Key::Down(0));
        }
    } else if let Some(cp) = col_prefix
        && c + 2 < cols
    {
        p.send(cp, b + 1, Final, Key::Down(0));
    }
    let prefix = match (col_prefix, row_prefix) {
        (Some(cp), Some(x)) => {
            p.combine(cp, x, x, None);
            Some(x)
        }
        (Some(cp), None) => Some(cp),
        (None, x) => x,
    };
    p.uops.push(Uop::RespondPrefix { x: prefix });
}

//! CFE microcode: what one board does for one segment of one collective.
//!
//! The CFE (`cfe.rs`) is one generic engine that runs a small program per operation segment.
//! The programs are compiled here, in Rust, by the control plane for every
//! `(algorithm, kind, boards)` and every board, and written into the board's program memory at
//! configuration time (the way an aggregation manager installs trees into switches). One engine
//! then runs every algorithm; a new algorithm is a new compiler function, not new hardware.
//!
//! ## Execution model
//!
//! A segment in flight owns a *context* with [`REGS`] registers, each a CIPE packet buffer.
//! Registers `0 .. rph` receive the local ranks' requests (local rank `l` → register `l`); the
//! other *input* registers receive packets from other boards: a board-to-board frame names the
//! register it is for (its `rank` field is `tag << 8 | sending board`, docs/protocol.md). Every
//! arrival is stored in its register the moment it arrives, whatever the program is doing, so
//! arrival order never matters; a second arrival for a register already present (a duplicate
//! or retransmission) is dropped.
//!
//! The program runs in order: each micro-op waits until the registers it reads are present,
//! then issues one or more CIPE passes (each streams the segment once at one word per clock).
//! Operands are combined with the left operand always covering lower-ranked data, in exactly the
//! association of the golden model (docs/protocol.md, "Combination order"); the tests run every
//! program on symbols in random arrival orders and compare with the golden model.
//!
//! Register use: an input register is never written before its input was consumed, so an early
//! arrival never meets a register still in use; a consumed input register is reused for results.

use std::collections::HashMap;

use collwire_proto::layout::torus_shape;
use collwire_proto::{Algorithm, MessageType};
use rust_hdl::prelude::Bits;

use crate::uop_decode::UopWord;

/// Registers (CIPE packet buffers) per context.
pub const REGS: usize = 8;
/// Most local ranks a board serves per communicator (local rank `l` arrives in register `l`).
pub const MAX_RANKS_PER_HOST: usize = 2;
/// Operand code for "the board's local value": register `rph − 1` after [`Uop::LocalPrefix`]
/// (the fold of all local contributions).
pub const H: u8 = 15;
/// Most boards a program is compiled for (the board index is one byte of the board IP).
pub const MAX_BOARDS: usize = 64;

/// Which program family: the reductions (allreduce, reduce, barrier share one program; barrier
/// streams no data, reduce delivers data only to the root) or the inclusive scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Reduction = 0,
    Scan = 1,
}

/// A board-to-board send: the result of a pass goes to `board` as a `partial` or `result`
/// frame, into its input register `tag`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Send {
    pub board: u8,
    pub msg: MessageType,
    pub tag: u8,
}

/// One micro-op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uop {
    /// For `l = 1 .. rph`: `r[l] = r[l−1] · r[l]` — the local inclusive prefixes in place
    /// (`rph − 1` passes); afterwards [`H`] is the fold of all local contributions.
    LocalPrefix,
    /// One pass: result = `a` (or `a · b`); store it into `dst` and/or send it to a board.
    Pass {
        a: u8,
        b: Option<u8>,
        dst: Option<u8>,
        send: Option<Send>,
    },
    /// One response per local rank carrying register `a` (reduce: data only to the root, an
    /// empty response to the other ranks; barrier: empty responses).
    Respond { a: u8 },
    /// Scan: local rank `l` gets `x · r[l]` (`r[l]` when `x` is `None`: board 0).
    RespondPrefix { x: Option<u8> },
}

/// One board's program, plus what it expects from other boards (for documentation and tests).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Program {
    pub uops: Vec<Uop>,
    /// Input registers in allocation order: `(register, from board)`.
    pub inputs: Vec<(u8, u8)>,
    /// Registers this program uses, local ones included (at `MAX_RANKS_PER_HOST` local ranks).
    pub registers: usize,
}

/// Why a schedule cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error("{0} boards: a program serves 1 to {MAX_BOARDS} boards")]
    Boards(usize),
    #[error("board {board} of {boards} needs {needed} registers, the CFE has {REGS}")]
    Registers {
        boards: usize,
        board: usize,
        needed: usize,
    },
}

/// What a message is for, so sender and receiver agree on the register without a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    /// Partial toward the total, by step.
    Up(u8),
    /// Final result (or, for scans, a prefix) travelling back.
    Down(u8),
}

struct Builder {
    board: usize,
    uops: Vec<Uop>,
    next: u8,
    inputs: Vec<(u8, u8)>,
    by_key: HashMap<(u8, Key), u8>,
    /// Sends waiting for the receiver's register: (uop index, key at the receiver).
    pending: Vec<(usize, Key)>,
}

impl Builder {
    fn new(board: usize) -> Builder {
        Builder {
            board,
            uops: vec![Uop::LocalPrefix],
            next: MAX_RANKS_PER_HOST as u8,
            inputs: Vec::new(),
            by_key: HashMap::new(),
            pending: Vec::new(),
        }
    }

    /// A register that receives no input (results only).
    fn fresh(&mut self) -> u8 {
        let reg = self.next;
        self.next += 1;
        reg
    }

    /// Register receiving `key` from board `from`.
    fn recv(&mut self, from: usize, key: Key) -> u8 {
        let reg = self.fresh();
        self.inputs.push((reg, from as u8));
        self.by_key.insert((from as u8, key), reg);
        reg
    }

    /// A pass; `send` names the receiver and the key under which it receives.
    fn pass(
        &mut self,
        a: u8,
        b: Option<u8>,
        dst: Option<u8>,
        send: Option<(usize, MessageType, Key)>,
    ) {
        let send = send.map(|(to, msg, key)| {
            self.pending.push((self.uops.len(), key));
            Send {
                board: to as u8,
                msg,
                tag: 0,
            }
        });
        self.uops.push(Uop::Pass { a, b, dst, send });
    }

    /// `a · b` stored into `into` (a consumed input register), optionally sent on.
    fn combine(&mut self, a: u8, b: u8, into: u8, send: Option<(usize, MessageType, Key)>) {
        self.pass(a, Some(b), Some(into), send);
    }

    /// Send register `a` unchanged.
    fn send(&mut self, a: u8, to: usize, msg: MessageType, key: Key) {
        self.pass(a, None, None, Some((to, msg, key)));
    }
}

/// Compile the programs of every board of a `boards`-board communicator.
pub fn compile(
    algorithm: Algorithm,
    kind: Kind,
    boards: usize,
) -> Result<Vec<Program>, CompileError> {
    if !(1..=MAX_BOARDS).contains(&boards) {
        return Err(CompileError::Boards(boards));
    }
    let mut builders: Vec<Builder> = (0..boards).map(Builder::new).collect();
    for b in builders.iter_mut() {
        match (algorithm, kind) {
            (Algorithm::Ring, Kind::Reduction) => ring_reduction(b, boards),
            (Algorithm::Ring, Kind::Scan) => ring_scan(b, boards),
            (Algorithm::RecursiveDoubling, Kind::Reduction) => rd_reduction(b, boards),
            (Algorithm::RecursiveDoubling, Kind::Scan) => rd_scan(b, boards),
            (Algorithm::Tree, Kind::Reduction) => tree_reduction(b, boards),
            (Algorithm::Tree, Kind::Scan) => tree_scan(b, boards),
            (Algorithm::Torus2d, Kind::Reduction) => torus_reduction(b, boards),
            (Algorithm::Torus2d, Kind::Scan) => torus_scan(b, boards),
        }
    }
    // Resolve every send to the receiver's register.
    let tags: Vec<HashMap<(u8, Key), u8>> = builders.iter().map(|b| b.by_key.clone()).collect();
    let mut programs = Vec::with_capacity(boards);
    for mut b in builders {
        for (index, key) in std::mem::take(&mut b.pending) {
            if let Uop::Pass {
                send: Some(send), ..
            } = &mut b.uops[index]
            {
                send.tag = *tags[usize::from(send.board)]
                    .get(&(b.board as u8, key))
                    .unwrap_or_else(|| {
                        panic!(
                            "{algorithm:?}/{kind:?}/{boards}: board {} sends {key:?} that board {} never receives",
                            b.board, send.board
                        )
                    });
            }
        }
        let registers = usize::from(b.next);
        if registers > REGS {
            return Err(CompileError::Registers {
                boards,
                board: b.board,
                needed: registers,
            });
        }
        programs.push(Program {
            uops: b.uops,
            inputs: b.inputs,
            registers,
        });
    }
    Ok(programs)
}

use MessageType::{Partial, Result as Final};

/// Ring: the partial travels 0 → 1 → … → B−1 (left fold in board order); board B−1 sends the
/// total on around the ring, B−1 → 0 → 1 → … → B−2, each board delivering and forwarding it.
fn ring_reduction(p: &mut Builder, boards: usize) {
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
fn ring_scan(p: &mut Builder, boards: usize) {
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
fn rd_reduction(p: &mut Builder, boards: usize) {
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
fn rd_scan(p: &mut Builder, boards: usize) {
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
                    let t = if total == H { p.fresh() } else { total };
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
fn tree_children(b: usize, boards: usize) -> Vec<usize> {
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
fn tree_parent(b: usize) -> usize {
    b & (b - 1)
}

/// Binomial tree: children absorbed in distance order (as right operands), the total sent up;
/// the result comes back down and goes to the children, farthest subtree first.
fn tree_reduction(p: &mut Builder, boards: usize) {
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
fn tree_scan(p: &mut Builder, boards: usize) {
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
fn torus_reduction(p: &mut Builder, boards: usize) {
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
fn torus_scan(p: &mut Builder, boards: usize) {
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

/// Micro-op kind codes, bits `[3:0]` of an encoded micro-op.
pub mod uop_code {
    pub const LOCAL_PREFIX: u32 = 0;
    pub const PASS: u32 = 1;
    pub const RESPOND: u32 = 2;
    pub const RESPOND_PREFIX: u32 = 3;
}

impl Uop {
    /// The 32-bit program-memory word ([`UopWord`], the format the hardware decodes;
    /// docs/cfe.md, "Micro-op encoding"):
    ///
    /// | bits | field |
    /// |---|---|
    /// | 3:0 | kind ([`uop_code`]) |
    /// | 7:4 | `a` (Pass, Respond) or `x` (RespondPrefix); 15 = [`H`] |
    /// | 11:8 | `b` |
    /// | 12 | `b` present (Pass) / `x` present (RespondPrefix) |
    /// | 13 | `dst` present |
    /// | 17:14 | `dst` |
    /// | 18 | send present |
    /// | 19 | send as `result` (else `partial`) |
    /// | 23:20 | receiver's register (`tag`) |
    /// | 31:24 | receiver board |
    pub fn encode(self) -> u32 {
        let kind = |code: u32| Bits::<4>::from(u64::from(code));
        let reg = |r: u8| Bits::<4>::from(u64::from(r));
        let w = match self {
            Uop::LocalPrefix => UopWord {
                kind: kind(uop_code::LOCAL_PREFIX),
                ..Default::default()
            },
            Uop::Pass { a, b, dst, send } => UopWord {
                kind: kind(uop_code::PASS),
                a: reg(a),
                b: reg(b.unwrap_or(0)),
                combine: b.is_some(),
                store: dst.is_some(),
                dst: reg(dst.unwrap_or(0)),
                send: send.is_some(),
                result: send.is_some_and(|s| s.msg == MessageType::Result),
                tag: reg(send.map_or(0, |s| s.tag)),
                board: Bits::<8>::from(u64::from(send.map_or(0, |s| s.board))),
            },
            Uop::Respond { a } => UopWord {
                kind: kind(uop_code::RESPOND),
                a: reg(a),
                ..Default::default()
            },
            Uop::RespondPrefix { x } => UopWord {
                kind: kind(uop_code::RESPOND_PREFIX),
                a: reg(x.unwrap_or(0)),
                combine: x.is_some(),
                ..Default::default()
            },
        };
        w.to_word()
    }
}

/// Program-directory index of `(algorithm, kind, boards)`: `alg << 7 | kind << 6 | boards − 1`.
pub fn directory_index(algorithm: Algorithm, kind: Kind, boards: usize) -> usize {
    usize::from(algorithm.code()) << 7 | (kind as usize) << 6 | (boards - 1)
}

/// Directory entries (`2^9`): every `(algorithm, kind, boards)` index.
pub const DIRECTORY_ENTRIES: usize = 512;
/// Program-memory words (board 0 of a 64-board cluster needs 3533).
pub const PROGRAM_WORDS: usize = 4096;

/// What one board's CFE is configured with: every program it runs, for every supported
/// algorithm, both kinds and every board count up to `max_boards` that includes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Program memory, from address 0.
    pub words: Vec<u32>,
    /// `(directory index, start, end)`; an absent index means "no program" (`bad-topology`).
    pub directory: Vec<(usize, u16, u16)>,
}

/// The configuration image of board `board` in a cluster of up to `max_boards` boards.
pub fn image(board: usize, max_boards: usize) -> Image {
    let mut words = Vec::new();
    let mut directory = Vec::new();
    for alg in Algorithm::supported() {
        for kind in [Kind::Reduction, Kind::Scan] {
            for boards in board + 1..=max_boards.min(MAX_BOARDS) {
                let Ok(programs) = compile(alg, kind, boards) else {
                    continue;
                };
                let start = words.len();
                words.extend(programs[board].uops.iter().map(|u| u.encode()));
                directory.push((
                    directory_index(alg, kind, boards),
                    start as u16,
                    words.len() as u16,
                ));
            }
        }
    }
    assert!(
        words.len() <= PROGRAM_WORDS,
        "{} program words",
        words.len()
    );
    Image { words, directory }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_program_fits_and_every_send_is_received() {
        for alg in Algorithm::ALL.iter().filter(|a| a.is_supported()).copied() {
            for kind in [Kind::Reduction, Kind::Scan] {
                for boards in 1..=MAX_BOARDS {
                    match compile(alg, kind, boards) {
                        Ok(programs) => {
                            assert_eq!(programs.len(), boards);
                            assert!(programs.iter().all(|p| p.registers <= REGS));
                        }
                        // The one refusal: an odd board's recursive-doubling scan keeps a
                        // prefix, a total and one register per partner (6 from 34 boards up).
                        Err(CompileError::Registers { .. })
                            if alg == Algorithm::RecursiveDoubling
                                && kind == Kind::Scan
                                && boards > 33 => {}
                        Err(e) => panic!("{alg:?} {kind:?} {boards}: {e}"),
                    }
                }
            }
        }
    }

    #[test]
    fn every_image_fits_program_memory() {
        let sizes: Vec<usize> = (0..MAX_BOARDS)
            .map(|b| image(b, MAX_BOARDS).words.len())
            .collect();
        // Board 0 takes part in every program: 3533 words at 64 boards.
        let most = sizes.iter().max().unwrap();
        assert!(*most <= PROGRAM_WORDS, "{sizes:?}");
    }

    #[test]
    fn encoding_keeps_every_field() {
        let u = Uop::Pass {
            a: 3,
            b: Some(H),
            dst: Some(7),
            send: Some(Send {
                board: 63,
                msg: MessageType::Result,
                tag: 5,
            }),
        };
        assert_eq!(
            u.encode(),
            1 | 3 << 4
                | 15 << 8
                | 1 << 12
                | 1 << 13
                | 7 << 14
                | 1 << 18
                | 1 << 19
                | 5 << 20
                | 63 << 24
        );
        assert_eq!(Uop::RespondPrefix { x: None }.encode(), 3);
    }
}

//! CFE microcode: what one board does for one segment of one collective.
//!
//! The CFE (`hdl/src/cfe.rs`) is one generic engine that runs a small program per operation segment.
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
//! arrival is taken the moment it arrives, whatever the program is doing, so arrival order
//! never matters: its register is marked present and the payload is stored there, or, when the
//! next micro-op is a pass that may take it ([`Fuse`], [`Program::fusible`]), combined as it
//! streams in. A second arrival for a register already present (a duplicate or
//! retransmission) is dropped.
//!
//! The program runs in order: each micro-op waits until the registers it reads are present,
//! then issues one or more CIPE passes (each streams the segment once at one word per clock).
//! Operands are combined with the left operand always covering lower-ranked data, in exactly the
//! association of the golden model (docs/protocol.md, "Combination order"); the tests run every
//! program on symbols in random arrival orders and compare with the golden model.
//!
//! Register use: an input register is never written before its input was consumed, so an early
//! arrival never meets a register still in use; a consumed input register is reused for results.
//!
//! ## Sending a frame again
//!
//! A frame lost between boards can only be recovered by its sender sending it again, from its
//! context after the send, open or done (docs/recovery.md, "NACK between boards"). Re-running
//! the pass that sent it would not do in general: its operand may have been combined as it
//! arrived and never stored, or overwritten by a later micro-op. So every send gets a
//! [`Resend`] ([`Program::resends`]): the register that holds exactly the value sent from that
//! pass to the end of the program. A pass that combines and sends without storing stores its
//! result into a register of its own where one is left ([`REGS`]), which the CIPE does in the
//! same pass (no clock is added and no fusing lost), and the recursive-doubling scan takes a
//! register of its own for a new total while one is left, so no later micro-op overwrites a
//! value sent: every send of every program has its register. The engine answers a nack from this
//! plan (`hdl/src/cfe.rs`): it finds the pass that sent the frame and sends a copy of that
//! register. The waiting board finds whom to nack in the program's input map
//! ([`Program::input_map`]), which the image places after the program's words.

use std::collections::HashMap;

use collwire_hdl::cfe_config::cfg::{self, PROGRAM_WORDS};
pub use collwire_hdl::cfe_config::{Kind, directory_index};
pub use collwire_hdl::context_table::REGS;
use collwire_hdl::uop_decode::UopWord;
pub use collwire_hdl::uop_decode::{H, uop_code};
use collwire_proto::layout::torus_shape;
use collwire_proto::{Algorithm, MessageType};
use rust_hdl::prelude::Bits;

mod schedules;
use schedules::*;

/// Most local ranks a board serves per communicator (local rank `l` arrives in register `l`).
pub const MAX_RANKS_PER_HOST: usize = collwire_proto::limits::MAX_RANKS_PER_HOST as usize;
/// Most boards a program is compiled for (one route-table entry per board).
pub const MAX_BOARDS: usize = collwire_proto::limits::MAX_BOARDS;

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
    /// A pass that answers: result = `a` (or `a · b`), stored into `dst`, then the local ranks
    /// answered with `dst` as [`Uop::Respond`] does. The first local rank's answer streams out
    /// of the pass itself (the CIPE stores and emits in one pass), so the answer costs no pass
    /// of its own; a second local rank's is a pass that reads `dst`. The compiler makes one of a
    /// pass that only stores followed by the `Respond` of what it stored ([`merge_answers`]).
    PassRespond { a: u8, b: Option<u8>, dst: u8 },
    /// Scan: local rank `l` gets `x · r[l]` (`r[l]` when `x` is `None`: board 0).
    RespondPrefix { x: Option<u8> },
}

/// How a board can send one of its frames again ([`Program::resends`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resend {
    /// The micro-op that sent it: once the context's program counter is past it, the frame was
    /// sent.
    pub pc: usize,
    pub send: Send,
    /// The register code ([`H`] allowed) holding exactly the value sent, from the send to the
    /// program's end (and in the done context after it); `None`: it cannot be sent again.
    pub holder: Option<u8>,
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

/// Which operands of a [`Uop::Pass`] an arriving frame may be combined into as it streams in
/// (docs/cfe.md, "Combining on arrival"): the engine then runs the pass on the arrival instead
/// of storing it first, and the arrival's own register never holds its value. So `a` (`b`)
/// may be fused only if no later micro-op reads that register before it is written again —
/// or, for a pass without `b`, if the pass stores its result where `a` arrived (or nowhere:
/// the engine then stores the arrival in its own register). A [`Uop::Respond`]'s `a` always
/// may: the arrival is stored where it arrived and answered as it streams in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Fuse {
    pub a: bool,
    pub b: bool,
}

/// The registers a register code may mean: [`H`] is register 0 or 1 (by ranks per host).
fn resolve(code: u8) -> Vec<u8> {
    if code == H { vec![0, 1] } else { vec![code] }
}

impl Uop {
    /// Registers this micro-op may read (at 1 or 2 ranks per host).
    fn reads(&self) -> Vec<u8> {
        match *self {
            Uop::LocalPrefix => vec![0, 1],
            Uop::Pass { a, b, .. } => {
                let mut r = resolve(a);
                r.extend(b.map(resolve).unwrap_or_default());
                r
            }
            Uop::Respond { a } => resolve(a),
            // The answer reads `dst` after the pass wrote it: no earlier value of `dst` is read.
            Uop::PassRespond { .. } => self.as_pass().reads(),
            Uop::RespondPrefix { x } => {
                let mut r = x.map(resolve).unwrap_or_default();
                r.extend([0, 1]);
                r
            }
        }
    }

    /// Every register this micro-op may write (at 1 or 2 ranks per host).
    fn writes(&self) -> Vec<u8> {
        match *self {
            Uop::LocalPrefix => vec![1],
            Uop::Pass { dst: Some(d), .. } | Uop::PassRespond { dst: d, .. } => resolve(d),
            _ => Vec::new(),
        }
    }

    /// A [`Uop::PassRespond`] as the pass it runs (for the liveness rules, which see its answer
    /// only as reading `dst` after writing it); any other micro-op as it is.
    fn as_pass(&self) -> Uop {
        match *self {
            Uop::PassRespond { a, b, dst } => Uop::Pass {
                a,
                b,
                dst: Some(dst),
                send: None,
            },
            u => u,
        }
    }

    /// The register this micro-op surely overwrites (whatever the ranks per host).
    fn overwrites(&self) -> Option<u8> {
        match *self {
            Uop::Pass { dst: Some(d), .. } | Uop::PassRespond { dst: d, .. } if d != H => Some(d),
            _ => None,
        }
    }
}

impl Program {
    /// Whether register `r` is read after micro-op `i` before it is overwritten.
    fn read_after(&self, i: usize, r: u8) -> bool {
        for u in &self.uops[i + 1..] {
            if u.reads().contains(&r) {
                return true;
            }
            if u.overwrites() == Some(r) {
                return false;
            }
        }
        false
    }

    /// Per micro-op, which operands an arrival may be combined into ([`Fuse`]).
    pub fn fusible(&self) -> Vec<Fuse> {
        // A register's own value is dead after micro-op `i` if `i` overwrites it with its
        // result or nothing later reads it before it is overwritten.
        let dead = |i: usize, code: u8| {
            resolve(code)
                .iter()
                .all(|&r| self.uops[i].overwrites() == Some(r) || !self.read_after(i, r))
        };
        self.uops
            .iter()
            .enumerate()
            .map(|(i, u)| match u.as_pass() {
                Uop::Pass {
                    a, b: None, dst, ..
                } => Fuse {
                    a: dst.is_none() || dst == Some(a) || dead(i, a),
                    b: false,
                },
                Uop::Pass {
                    a, b: Some(b), dst, ..
                } => {
                    // The same register twice is never fused: its value is needed twice.
                    let distinct = resolve(a).iter().all(|r| !resolve(b).contains(r));
                    // Nor into a pass that overwrites the stored operand: the engine combines
                    // an arrival before its frame's tail is known, and a bad tail must leave
                    // every stored register as it was (docs/cfe.md, "Combining on arrival").
                    let spares = |kept: u8| {
                        dst.is_none_or(|d| resolve(d).iter().all(|r| !resolve(kept).contains(r)))
                    };
                    Fuse {
                        a: distinct && dead(i, a) && spares(b),
                        b: distinct && dead(i, b) && spares(a),
                    }
                }
                // The answer of the register that arrives last: its first step stores the
                // arrival where it arrived (so the register holds it, as when it is stored
                // first) and answers local rank 0 with it as it streams in.
                Uop::Respond { .. } => Fuse { a: true, b: false },
                _ => Fuse::default(),
            })
            .collect()
    }

    /// For every pass that sends, in program order, where the value it sent stays
    /// ([`Resend`]): its `dst` when it stores one, else (a pass of `a` alone) `a`'s register —
    /// which holds the value even when the arrival was taken as it streamed in, since such a
    /// pass stores the arrival where it arrived — provided no later micro-op writes that
    /// register.
    pub fn resends(&self) -> Vec<Resend> {
        self.uops
            .iter()
            .enumerate()
            .filter_map(|(i, u)| match *u {
                Uop::Pass {
                    a,
                    b,
                    dst,
                    send: Some(send),
                } => {
                    let candidate = dst.or(b.is_none().then_some(a));
                    let kept = |code: u8| {
                        self.uops[i + 1..]
                            .iter()
                            .all(|later| resolve(code).iter().all(|r| !later.writes().contains(r)))
                    };
                    Some(Resend {
                        pc: i,
                        send,
                        holder: candidate.filter(|&c| kept(c)),
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// Which board sends each register: `map[r]` for input register `r`
    /// ([`cfg::NO_BOARD`] for the others). In program memory after the program's last word
    /// ([`Program::map_words`]): the engine nacks that board for a register it lacks.
    pub fn input_map(&self) -> [u8; REGS] {
        let mut map = [cfg::NO_BOARD; REGS];
        for &(reg, from) in &self.inputs {
            map[usize::from(reg)] = from;
        }
        map
    }

    /// The input map as [`cfg::INPUT_MAP_WORDS`] program-memory words, register `r` in byte
    /// `r % 4` (lowest first) of word `r / 4`.
    pub fn map_words(&self) -> Vec<u32> {
        self.input_map()
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// The program-memory words, with each pass's [`Fuse`] flags.
    pub fn words(&self) -> Vec<u32> {
        self.uops
            .iter()
            .zip(self.fusible())
            .map(|(u, f)| u.encode_fused(f))
            .collect()
    }
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

    /// A register is left for a result of its own.
    fn spare(&self) -> bool {
        usize::from(self.next) < REGS
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
        let mut uops = merge_answers(merge_sends(std::mem::take(&mut b.uops)));
        keep_sent_values(&mut uops, &mut b.next);
        let registers = usize::from(b.next);
        if registers > REGS {
            return Err(CompileError::Registers {
                boards,
                board: b.board,
                needed: registers,
            });
        }
        programs.push(Program {
            uops,
            inputs: b.inputs,
            registers,
        });
    }
    Ok(programs)
}

/// A pass that combines and sends without storing stores its result into a register of its own
/// while registers are left, so the value sent can be sent again ([`Program::resends`]). Nothing
/// reads that register, so no operand's fusing changes.
fn keep_sent_values(uops: &mut [Uop], next: &mut u8) {
    for u in uops.iter_mut() {
        if let Uop::Pass {
            b: Some(_),
            dst: dst @ None,
            send: Some(_),
            ..
        } = u
            && usize::from(*next) < REGS
        {
            *dst = Some(*next);
            *next += 1;
        }
    }
}

/// A pass that stores its result into `d` followed by a pass that only sends `d` on become one
/// pass that stores and sends (the CIPE stores and emits in the same pass): one pass over the
/// segment fewer, and an arrival can then be combined into it as it streams in ([`Fuse`]).
fn merge_sends(uops: Vec<Uop>) -> Vec<Uop> {
    let mut out: Vec<Uop> = Vec::with_capacity(uops.len());
    for u in uops {
        if let (
            Some(Uop::Pass {
                dst: Some(d),
                send: prev_send @ None,
                ..
            }),
            Uop::Pass {
                a,
                b: None,
                dst: None,
                send: Some(send),
            },
        ) = (out.last_mut(), u)
            && a == *d
        {
            *prev_send = Some(send);
            continue;
        }
        out.push(u);
    }
    out
}

/// A pass that stores its result into `d` and sends nothing, followed by the `Respond` of `d`,
/// become one [`Uop::PassRespond`]: the first local rank's answer leaves from the pass that
/// computes it, one pass over the segment fewer (the answer no longer waits for a pass of its
/// own behind the arrivals of later segments), and an arrival combined into that pass as it
/// streams in goes on to the host in the same trip through the CIPE.
fn merge_answers(uops: Vec<Uop>) -> Vec<Uop> {
    let mut out: Vec<Uop> = Vec::with_capacity(uops.len());
    for u in uops {
        if let (
            Some(&mut Uop::Pass {
                a,
                b,
                dst: Some(d),
                send: None,
            }),
            Uop::Respond { a: answered },
        ) = (out.last_mut(), u)
            && answered == d
        {
            *out.last_mut().unwrap() = Uop::PassRespond { a, b, dst: d };
            continue;
        }
        out.push(u);
    }
    out
}

impl Uop {
    /// The 32-bit program-memory word ([`UopWord`], the format the hardware decodes;
    /// docs/cfe.md, "Micro-op encoding"):
    ///
    /// | bits | field |
    /// |---|---|
    /// | 1:0 | kind ([`uop_code`]) |
    /// | 2, 3 | Pass: an arrival for `a` / `b` may be combined on arrival ([`Fuse`]); Respond (2): an arrival for `a` is answered as it streams in |
    /// | 7:4 | `a` (Pass, Respond) or `x` (RespondPrefix); 15 = [`H`] |
    /// | 11:8 | `b` |
    /// | 12 | `b` present (Pass) / `x` present (RespondPrefix) |
    /// | 13 | `dst` present |
    /// | 17:14 | `dst` |
    /// | 18 | send present |
    /// | 19 | send as `result` (else `partial`); Pass without send: answers the local ranks ([`Uop::PassRespond`]) |
    /// | 23:20 | receiver's register (`tag`) |
    /// | 31:24 | receiver board |
    pub fn encode(self) -> u32 {
        self.encode_fused(Fuse::default())
    }

    /// [`Uop::encode`] with a pass's [`Fuse`] flags (bits 2 and 3).
    pub fn encode_fused(self, fuse: Fuse) -> u32 {
        let kind = |code: u32| Bits::<2>::from(u64::from(code));
        let reg = |r: u8| Bits::<4>::from(u64::from(r));
        let w = match self {
            Uop::LocalPrefix => UopWord {
                kind: kind(uop_code::LOCAL_PREFIX),
                ..Default::default()
            },
            Uop::Pass { a, b, dst, send } => UopWord {
                kind: kind(uop_code::PASS),
                fuse_a: fuse.a,
                fuse_b: fuse.b,
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
            // The pass it runs (storing into `dst`, sending nothing), with `result`: it answers
            // the local ranks.
            Uop::PassRespond { .. } => UopWord {
                result: true,
                ..UopWord::from(Bits::<32>::from(u64::from(
                    self.as_pass().encode_fused(fuse),
                )))
            },
            Uop::Respond { a } => UopWord {
                kind: kind(uop_code::RESPOND),
                fuse_a: fuse.a,
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

/// What one board's CFE is configured with: every program it runs, for every supported
/// algorithm, both kinds and every board count up to `max_boards` that includes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Program memory, from address 0: each program's words, then its input map
    /// ([`Program::map_words`]).
    pub words: Vec<u32>,
    /// `(directory index, start, end)` (`end` exclusive: the input map's address); an absent
    /// index means "no program" (`bad-topology`).
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
                words.extend(programs[board].words());
                directory.push((
                    directory_index(alg, kind, boards),
                    start as u16,
                    words.len() as u16,
                ));
                words.extend(programs[board].map_words());
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

    /// Retained results (docs/recovery.md): the engine answers a lost answer again by moving a
    /// completed program's counter back one word and re-running that step's answer, so every
    /// program's last word must be the one micro-op that answers the local ranks: a `Respond`
    /// or `RespondPrefix`, which only reads, or a `PassRespond`, whose answer is sent again from
    /// `dst` (the engine then runs only its answer: a copy of `dst`, nothing stored), which
    /// nothing writes after it.
    #[test]
    fn every_program_ends_with_the_answer_to_its_ranks() {
        let answers = |u: &Uop| {
            matches!(
                u,
                Uop::Respond { .. } | Uop::RespondPrefix { .. } | Uop::PassRespond { .. }
            )
        };
        let mut checked = 0;
        let mut merged = 0;
        for_every_program(|what, p| {
            assert!(p.uops.last().is_some_and(answers), "{what}");
            assert_eq!(p.uops.iter().filter(|u| answers(u)).count(), 1, "{what}");
            let last = *p.uops.last().unwrap();
            let words = p.words();
            assert_eq!(words.len(), p.uops.len(), "{what}");
            let w = UopWord::from(Bits::<32>::from(u64::from(*words.last().unwrap())));
            let kind_code = w.kind.to_u64() as u32;
            if let Uop::PassRespond { .. } = last {
                merged += 1;
                assert!(
                    kind_code == uop_code::PASS && w.store && !w.send && w.result,
                    "{what}: last word {:#x}",
                    words.last().unwrap()
                );
            } else {
                assert_eq!(last.overwrites(), None, "{what}");
                assert!(
                    kind_code == uop_code::RESPOND || kind_code == uop_code::RESPOND_PREFIX,
                    "{what}: last word {:#x}",
                    words.last().unwrap()
                );
            }
            checked += 1;
        });
        assert!(checked > 1000, "{checked}");
        // Recursive doubling's last step stores the total on every board that does not hand it
        // to an odd neighbour (777 of its 2,080 reduction programs); the merge must find them.
        assert!(merged > 100, "{merged} programs end in a PassRespond");
    }

    /// `f(description, program)` for every board's program the compiler emits.
    fn for_every_program(mut f: impl FnMut(&str, &Program)) {
        for alg in Algorithm::ALL.iter().filter(|a| a.is_supported()).copied() {
            for kind in [Kind::Reduction, Kind::Scan] {
                for boards in 1..=MAX_BOARDS {
                    let Ok(programs) = compile(alg, kind, boards) else {
                        continue;
                    };
                    for (b, p) in programs.iter().enumerate() {
                        f(&format!("{alg:?} {kind:?} {boards} boards, board {b}"), p);
                    }
                }
            }
        }
    }

    /// A pass that takes an arrival as it streams in and stores its result makes that result's
    /// register present only once the arrival's tail is good (the engine's `Tail`,
    /// docs/cfe.md): needed when a later micro-op reads it and it is not the arrival's own
    /// register (which the arrival's store already made present). No program compiled today
    /// has such a pass, so no board test sees that `Tail` step (disabling it passes the
    /// testbench). This test says so: a compiler change that makes one must come with a
    /// board test of it.
    #[test]
    fn no_pass_that_takes_an_arrival_stores_it_elsewhere_for_a_later_step() {
        let mut in_place = 0;
        for_every_program(|what, p| {
            let fuse = p.fusible();
            let inputs: Vec<u8> = p.inputs.iter().map(|&(r, _)| r).collect();
            for (i, u) in p.uops.iter().enumerate() {
                let Uop::Pass {
                    a,
                    b,
                    dst: Some(dst),
                    ..
                } = u.as_pass()
                else {
                    continue;
                };
                // The operands an arrival may fill here: an input register no earlier
                // micro-op wrote, which the pass may take as it streams in.
                let arriving = [fuse[i].a.then_some(a), b.filter(|_| fuse[i].b)]
                    .into_iter()
                    .flatten()
                    .filter(|r| inputs.contains(r))
                    .filter(|r| !p.uops[..i].iter().any(|v| v.writes().contains(r)));
                for r in arriving {
                    if resolve(dst).contains(&r) {
                        in_place += 1;
                    } else {
                        assert!(
                            !p.read_after(i, dst) && !matches!(u, Uop::PassRespond { .. }),
                            "{what}: micro-op {i} ({u:?}) takes register {r} as it arrives and \
                             stores into {dst}, which is read later"
                        );
                    }
                }
            }
        });
        // The ring's last board combines the arrival into its own register and answers it.
        assert!(in_place > 0);
    }

    /// Every frame a board sends can be sent again from a register that keeps it
    /// ([`Program::resends`]).
    #[test]
    fn every_send_can_be_sent_again() {
        let mut sends = 0;
        for_every_program(|what, p| {
            let resends = p.resends();
            let passes_that_send = p
                .uops
                .iter()
                .filter(|u| matches!(u, Uop::Pass { send: Some(_), .. }))
                .count();
            assert_eq!(resends.len(), passes_that_send, "{what}");
            for r in resends {
                sends += 1;
                assert!(r.holder.is_some(), "{what}: {r:?}");
            }
        });
        assert_eq!(sends, 33_226);
    }

    /// The engine answers a nack by reading a program backwards from its counter until its
    /// first micro-op, which it knows by its kind: a `LocalPrefix` there and nowhere else.
    #[test]
    fn every_program_starts_with_its_only_local_prefix() {
        for_every_program(|what, p| {
            assert_eq!(p.uops.first(), Some(&Uop::LocalPrefix), "{what}");
            let words = p.words();
            let firsts = words
                .iter()
                .filter(|w| *w & 3 == uop_code::LOCAL_PREFIX)
                .count();
            assert_eq!(firsts, 1, "{what}");
        });
    }

    /// Every input register's board is in the program's input map, after its last word in
    /// the image, and no other register names a board.
    #[test]
    fn every_image_holds_each_programs_input_map_after_it() {
        for board in [0, 1, 5, MAX_BOARDS - 1] {
            let img = image(board, MAX_BOARDS);
            let mut checked = 0;
            for alg in Algorithm::supported() {
                for kind in [Kind::Reduction, Kind::Scan] {
                    for boards in board + 1..=MAX_BOARDS {
                        let Ok(programs) = compile(alg, kind, boards) else {
                            continue;
                        };
                        let p = &programs[board];
                        let index = directory_index(alg, kind, boards);
                        let &(_, start, end) = img.directory.iter().find(|d| d.0 == index).unwrap();
                        let (start, end) = (usize::from(start), usize::from(end));
                        assert_eq!(img.words[start..end], p.words()[..]);
                        let map = &img.words[end..end + cfg::INPUT_MAP_WORDS];
                        for r in 0..REGS {
                            let byte = (map[r / 4] >> (8 * (r % 4))) as u8;
                            let from = p.inputs.iter().find(|i| usize::from(i.0) == r);
                            match from {
                                Some(&(_, b)) => {
                                    assert!(usize::from(b) < boards && usize::from(b) != board);
                                    assert_eq!(byte, b, "{alg:?} {kind:?} {boards}: reg {r}");
                                }
                                None => assert_eq!(byte, cfg::NO_BOARD),
                            }
                        }
                        checked += 1;
                    }
                }
            }
            assert!(checked > 0);
        }
    }

    #[test]
    fn every_image_fits_program_memory() {
        let sizes: Vec<usize> = (0..MAX_BOARDS)
            .map(|b| image(b, MAX_BOARDS).words.len())
            .collect();
        // Board 0 takes part in every program: 3,750 words at 64 boards (2,788 of micro-ops,
        // 962 of input maps).
        let most = sizes.iter().max().unwrap();
        assert!(*most <= PROGRAM_WORDS, "{sizes:?}");
        assert_eq!(sizes[0], 3_750);
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

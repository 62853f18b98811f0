//! Every CFE program (control/src/program/) run on symbols by a reference interpreter of the
//! execution model — arrivals stored at once in any order, micro-ops in order when their
//! registers are present — in many random interleavings, against the golden model's exact
//! association for every rank. This checks the schedules before the hardware runs them.
//!
//! Combining on arrival is interpreted as the engine does it (docs/cfe.md): an arrival whose
//! board's next micro-op is a pass it may be fused into ([`Program::fusible`]; a rank-1
//! local prefix in between is a no-op) runs that pass on the arriving value, and the arrival's
//! register then holds a poison symbol instead of the value: a later read of it (a wrong
//! fuse flag) shows in the result.
//!
//! After every event, and at the end, every frame a board has sent is checked against the
//! register its [`Program::resends`] names: it must hold exactly the value sent (so a NACK can
//! be answered from an open or done context); a poisoned or overwritten register fails.

use collwire_control::program::{self, Fuse, H, Kind, MAX_BOARDS, Program, REGS, Resend, Uop};
use collwire_proto::{Algorithm, Collective, Layout};
use collwire_testbench::golden::schedule;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn sym(a: &String, b: &String) -> String {
    format!("({a}+{b})")
}

struct Board<'p> {
    program: &'p Program,
    fusible: Vec<Fuse>,
    regs: [Option<String>; 16],
    /// Input registers whose input has not arrived / been read yet.
    unread_inputs: Vec<u8>,
    pc: usize,
    responses: Vec<Option<String>>,
    resends: Vec<Resend>,
    /// The value each pass that sent has sent, by its micro-op index.
    sent: std::collections::HashMap<usize, String>,
}

/// Every frame board `b` has sent is still in the register its resend plan names.
fn check_resends(s: &Board, b: usize, rph: usize) {
    for r in &s.resends {
        if let (Some(holder), Some(v)) = (r.holder, s.sent.get(&r.pc)) {
            let h = usize::from(reg_at(holder, rph));
            assert_eq!(
                s.regs[h].as_ref(),
                Some(v),
                "board {b}: the frame of micro-op {} is not in r{h} any more",
                r.pc
            );
        }
    }
}

struct Message {
    to: usize,
    reg: u8,
    value: String,
}

/// Runs one communicator of `boards` boards × `rph` ranks per host in a random interleaving;
/// returns every rank's response.
fn run(programs: &[Program], rph: usize, rng: &mut SmallRng) -> Vec<String> {
    let boards = programs.len();
    let mut state: Vec<Board> = programs
        .iter()
        .map(|p| Board {
            program: p,
            fusible: p.fusible(),
            regs: Default::default(),
            unread_inputs: p.inputs.iter().map(|(r, _)| *r).collect(),
            pc: 0,
            responses: vec![None; rph],
            resends: p.resends(),
            sent: Default::default(),
        })
        .collect();
    // Local requests not yet arrived: (board, local rank).
    let mut requests: Vec<(usize, usize)> = (0..boards)
        .flat_map(|b| (0..rph).map(move |l| (b, l)))
        .collect();
    let mut in_flight: Vec<Message> = Vec::new();
    let reg = |code: u8| reg_at(code, rph);
    loop {
        // Everything that can happen now: an arrival, or a board's next micro-op.
        let ready: Vec<usize> = (0..boards)
            .filter(|&b| {
                let s = &state[b];
                match s.program.uops.get(s.pc) {
                    None => false,
                    Some(Uop::LocalPrefix) => (0..rph).all(|l| s.regs[l].is_some()),
                    Some(Uop::Pass { a, b, .. } | Uop::PassRespond { a, b, .. }) => {
                        s.regs[usize::from(reg(*a))].is_some()
                            && b.is_none_or(|b| s.regs[usize::from(reg(b))].is_some())
                    }
                    Some(Uop::Respond { a }) => s.regs[usize::from(reg(*a))].is_some(),
                    Some(Uop::RespondPrefix { x }) => {
                        x.is_none_or(|x| s.regs[usize::from(x)].is_some())
                            && (0..rph).all(|l| s.regs[l].is_some())
                    }
                }
            })
            .collect();
        let events = requests.len() + in_flight.len() + ready.len();
        if events == 0 {
            break;
        }
        let mut pick = rng.gen_range(0..events);
        if pick < requests.len() {
            let (b, l) = requests.swap_remove(pick);
            state[b].regs[l] = Some((b * rph + l).to_string());
            fuse_arrival(&mut state[b], b, l as u8, rph, &mut in_flight);
            check_resends(&state[b], b, rph);
            continue;
        }
        pick -= requests.len();
        if pick < in_flight.len() {
            let m = in_flight.swap_remove(pick);
            let s = &mut state[m.to];
            let r = usize::from(m.reg);
            assert!(
                s.regs[r].is_none(),
                "board {}: arrival overwrites r{r}",
                m.to
            );
            assert!(
                s.unread_inputs.contains(&m.reg),
                "board {}: r{r} is no input",
                m.to
            );
            s.regs[r] = Some(m.value);
            fuse_arrival(s, m.to, m.reg, rph, &mut in_flight);
            check_resends(s, m.to, rph);
            continue;
        }
        let b = ready[pick - in_flight.len()];
        let s = &mut state[b];
        let uop = s.program.uops[s.pc];
        s.pc += 1;
        let read = |s: &mut Board, code: u8| read_reg(s, code, rph);
        match uop {
            Uop::LocalPrefix => {
                for l in 1..rph {
                    let v = sym(&read(s, l as u8 - 1), &read(s, l as u8));
                    s.regs[l] = Some(v);
                }
            }
            Uop::Pass {
                a,
                b: rhs,
                dst,
                send,
            } => {
                let v = pass_value(s, a, rhs, rph);
                finish_pass(s, b, v, dst, send, rph, &mut in_flight);
            }
            Uop::PassRespond { a, b: rhs, dst } => {
                let v = pass_value(s, a, rhs, rph);
                finish_pass(s, b, v, Some(dst), None, rph, &mut in_flight);
                answer_from(s, dst, rph);
            }
            Uop::Respond { a } => {
                let v = read(s, a);
                s.responses.iter_mut().for_each(|r| *r = Some(v.clone()));
            }
            Uop::RespondPrefix { x } => {
                let x = x.map(|x| read(s, x));
                for l in 0..rph {
                    let local = read(s, l as u8);
                    s.responses[l] = Some(match &x {
                        Some(x) => sym(x, &local),
                        None => local,
                    });
                }
            }
        }
        check_resends(&state[b], b, rph);
    }
    for (b, s) in state.iter().enumerate() {
        check_resends(s, b, rph);
        assert_eq!(
            s.pc,
            s.program.uops.len(),
            "board {b} stuck at uop {}",
            s.pc
        );
        assert!(s.unread_inputs.is_empty(), "board {b}: inputs never read");
        // Retained results: a lost answer of a `PassRespond` is sent again from `dst`.
        if let Some(&Uop::PassRespond { dst, .. }) = s.program.uops.last() {
            let kept = s.regs[usize::from(reg_at(dst, rph))].as_ref();
            assert!(
                s.responses.iter().all(|r| r.as_ref() == kept),
                "board {b}: the answer is not in r{dst} at the end"
            );
        }
    }
    assert!(requests.is_empty() && in_flight.is_empty());
    state
        .into_iter()
        .flat_map(|s| {
            s.responses
                .into_iter()
                .map(|r| r.expect("every rank answered"))
        })
        .collect()
}

/// The answer of a [`Uop::PassRespond`]: every local rank gets what the pass stored into `dst`
/// (read back from the register, as the engine's second rank and a resent answer read it).
fn answer_from(s: &mut Board, dst: u8, rph: usize) {
    let v = read_reg(s, dst, rph);
    s.responses.iter_mut().for_each(|r| *r = Some(v.clone()));
}

/// Register `code` at `rph` ranks per host.
fn reg_at(code: u8, rph: usize) -> u8 {
    if code == H { rph as u8 - 1 } else { code }
}

/// Operand `code`'s value (present), its input now read.
/// What a pass computes: register `a`, combined with `rhs` when it has one.
fn pass_value(s: &mut Board, a: u8, rhs: Option<u8>, rph: usize) -> String {
    let v = read_reg(s, a, rph);
    match rhs {
        Some(rhs) => sym(&v, &read_reg(s, rhs, rph)),
        None => v,
    }
}

fn read_reg(s: &mut Board, code: u8, rph: usize) -> String {
    let r = reg_at(code, rph);
    s.unread_inputs.retain(|x| *x != r);
    s.regs[usize::from(r)].clone().expect("operand present")
}

/// A pass's result `v`: stored into `dst`, sent on.
fn finish_pass(
    s: &mut Board,
    b: usize,
    v: String,
    dst: Option<u8>,
    send: Option<program::Send>,
    rph: usize,
    in_flight: &mut Vec<Message>,
) {
    if let Some(dst) = dst {
        let d = usize::from(reg_at(dst, rph));
        assert!(d < REGS, "register r{d} out of range");
        assert!(
            !s.unread_inputs.contains(&(d as u8)),
            "board {b}: r{d} written before its input was read"
        );
        s.regs[d] = Some(v.clone());
    }
    if let Some(send) = send {
        s.sent.insert(s.pc - 1, v.clone());
        in_flight.push(Message {
            to: usize::from(send.board),
            reg: send.tag,
            value: v,
        });
    }
}

/// The engine's combining on arrival: register `r` of board `b` has just arrived (and is
/// present). A rank-1 local prefix (no pass) runs first; then, if the next micro-op is a pass
/// that may take `r` as it streams in, it runs on the arriving value and `r` is poisoned
/// unless the pass stores there.
fn fuse_arrival(s: &mut Board, b: usize, r: u8, rph: usize, in_flight: &mut Vec<Message>) {
    let has = |s: &Board, code: u8| s.regs[usize::from(reg_at(code, rph))].is_some();
    if rph == 1 && s.program.uops.get(s.pc) == Some(&Uop::LocalPrefix) && has(s, 0) {
        s.pc += 1;
    }
    let (a, rhs, dst, send, answers) = match s.program.uops.get(s.pc) {
        Some(&Uop::Pass { a, b, dst, send }) => (a, b, dst, send, false),
        Some(&Uop::PassRespond { a, b, dst }) => (a, b, Some(dst), None, true),
        Some(&Uop::Respond { a }) => {
            // The answer of the register that arrived: stored where it arrived, answered.
            if s.fusible[s.pc].a && reg_at(a, rph) == r {
                s.pc += 1;
                answer_from(s, a, rph);
            }
            return;
        }
        _ => return,
    };
    let fuse = s.fusible[s.pc];
    let via_a = fuse.a && reg_at(a, rph) == r;
    let via_b = fuse.b && rhs.is_some_and(|x| reg_at(x, rph) == r);
    if !(via_a || via_b) || !has(s, a) || rhs.is_some_and(|x| !has(s, x)) {
        return;
    }
    s.pc += 1;
    let incoming = s.regs[usize::from(r)].take().expect("arrived");
    s.unread_inputs.retain(|x| *x != r);
    let v = match rhs {
        None => incoming,
        Some(rhs) if via_a => sym(&incoming, &read_reg(s, rhs, rph)),
        Some(_) => sym(&read_reg(s, a, rph), &incoming),
    };
    // The arrival's register holds the value only if a pass without `b` stores it there.
    s.regs[usize::from(r)] = Some(format!("<r{r} not stored>"));
    if rhs.is_none() && dst.is_none() {
        s.regs[usize::from(r)] = Some(v.clone());
    }
    finish_pass(s, b, v, dst, send, rph, in_flight);
    if answers {
        answer_from(s, dst.expect("a PassRespond stores"), rph);
    }
}

const ALGS: [Algorithm; 4] = [
    Algorithm::Ring,
    Algorithm::RecursiveDoubling,
    Algorithm::Tree,
    Algorithm::Torus2d,
];

fn check(alg: Algorithm, kind: Kind, boards: usize, rph: usize, orders: usize) {
    let Ok(programs) = program::compile(alg, kind, boards) else {
        return; // refusals are checked in the compiler's own test
    };
    let size = boards * rph;
    let layout = Layout::new(size as u16, rph as u8).unwrap();
    let ranks: Vec<String> = (0..size).map(|r| r.to_string()).collect();
    let collective = match kind {
        Kind::Reduction => Collective::Allreduce,
        Kind::Scan => Collective::Scan,
    };
    let golden: Vec<String> = schedule::run(collective, alg, layout, 0, &ranks, &sym)
        .into_iter()
        .map(Option::unwrap)
        .collect();
    let mut rng = SmallRng::seed_from_u64((boards * 31 + rph) as u64 ^ (alg as u64 * 7919));
    for order in 0..orders {
        let got = run(&programs, rph, &mut rng);
        for (rank, (g, want)) in got.iter().zip(&golden).enumerate() {
            assert_eq!(
                g, want,
                "{alg:?} {kind:?} B={boards} rph={rph} order {order}: rank {rank}"
            );
        }
    }
}

#[test]
fn reductions_match_the_golden_model_in_any_arrival_order() {
    for alg in ALGS {
        for boards in 1..=MAX_BOARDS {
            for rph in [1, 2] {
                check(
                    alg,
                    Kind::Reduction,
                    boards,
                    rph,
                    if boards <= 16 { 20 } else { 2 },
                );
            }
        }
    }
}

#[test]
fn scans_match_the_golden_model_in_any_arrival_order() {
    for alg in ALGS {
        for boards in 1..=MAX_BOARDS {
            for rph in [1, 2] {
                check(
                    alg,
                    Kind::Scan,
                    boards,
                    rph,
                    if boards <= 16 { 20 } else { 2 },
                );
            }
        }
    }
}

//! The CFE's micro-op decoder through Verilator against the meaning of each micro-op
//! (`collwire_control::program::Uop`, docs/cfe.md): random micro-ops, encoded by `Uop::encode`, on random
//! context states. Compared: operands ready, last step, the register a result goes to, whether
//! a frame is sent, whether it carries data, and the CIPE pass (opcode, the slots it reads and
//! writes, store, emit) — the outputs that matter for each kind; and combining on arrival: with
//! random fuse flags and a waiting arrival for a random register, whether the pass takes it and
//! the pass it then runs (docs/cfe.md); a pass sent again for a nack (`resend`: a copy of the
//! register its resend plan names, `Program::resends`); and the register a step waits for.
//! Whenever the step takes the arrival, the decoder's `fused` (the pass as it is then,
//! decoded without the operand checks, which the CFE registers for the fused pass) is its
//! `pass`.

use collwire_control::program::{Fuse, Send, Uop};
use collwire_hdl::cipe::Opcode;
use collwire_hdl::uop_decode::{H, PassFields};
use collwire_proto::MessageType;
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::UopDecode;

struct Ctx {
    cur: u64,
    present: u64,
    rph2: bool,
    words: u64,
    sub: bool,
    reduce: bool,
    rank_is_root: bool,
    /// The pass's fuse flags, and the waiting arrival's register (`arrival`: one waits).
    fuse: Fuse,
    arr_reg: u64,
    arrival: bool,
    /// The pass is sent again (a nack).
    resend: bool,
    /// A retained answer is sent again (a `PassRespond` then only answers, from `dst`).
    again: bool,
}

/// A CIPE pass: opcode, slot a, slot b (pair only), slot d (store only), store, emit.
type Pass = (u64, u64, Option<u64>, Option<u64>, bool, bool);

/// What the step must do, from the micro-op's meaning.
#[derive(Debug, PartialEq)]
struct Step {
    ready: bool,
    last_sub: bool,
    produce: Option<u64>,
    sends: bool,
    has_instr: bool,
    has_entry: bool,
    /// The pass may take the waiting arrival, and swaps its operands.
    fuses: bool,
    swap: bool,
    /// The pass, when one runs.
    pass: Option<Pass>,
}

fn expected(u: Uop, c: &Ctx) -> Step {
    let reg = |r: u8| {
        if r == H {
            u64::from(c.rph2)
        } else {
            u64::from(r)
        }
    };
    let has = |r: u8| c.present >> reg(r) & 1 == 1;
    let locals = c.present & 1 == 1 && (!c.rph2 || c.present & 2 == 2);
    let slot = |r: u64| c.cur << 3 | r;
    let answers = matches!(
        u,
        Uop::Respond { .. } | Uop::RespondPrefix { .. } | Uop::PassRespond { .. }
    );
    let data = c.words != 0
        && !(matches!(u, Uop::Respond { .. } | Uop::PassRespond { .. })
            && c.reduce
            && !c.rank_is_root);
    let last_sub = !(answers && c.rph2) || c.sub;
    if let Uop::PassRespond { a, b, dst } = u {
        if c.sub || c.again {
            // The second local rank's answer, or an answer sent again: a copy of `dst`.
            return Step {
                ready: has(dst),
                last_sub,
                produce: None,
                sends: false,
                has_instr: data,
                has_entry: true,
                fuses: false,
                swap: false,
                pass: data.then_some((
                    Opcode::Buffer as u64,
                    slot(reg(dst)),
                    None,
                    None,
                    false,
                    true,
                )),
            };
        }
        // Rank 0's answer leaves from the pass that stores into `dst`; an arrival is taken
        // only in an allreduce.
        let pass = Uop::Pass {
            a,
            b,
            dst: Some(dst),
            send: None,
        };
        let c2 = Ctx {
            words: c.words,
            fuse: if c.reduce { Fuse::default() } else { c.fuse },
            resend: false,
            again: false,
            ..*c
        };
        let mut step = expected(pass, &c2);
        step.last_sub = last_sub;
        step.has_entry = true;
        if let Some(p) = step.pass.as_mut() {
            p.5 = data;
        }
        return step;
    }
    if let (true, Uop::Pass { a, dst, send, .. }) = (c.resend, u) {
        // The value sent, from the register that keeps it: `dst`, else `a`.
        let holder = slot(reg(dst.unwrap_or(a)));
        return Step {
            ready: has(a) && matches!(u, Uop::Pass { b, .. } if b.is_none_or(has)),
            last_sub: true,
            produce: None,
            sends: send.is_some(),
            has_instr: data,
            has_entry: true,
            fuses: false,
            swap: false,
            pass: data.then_some((Opcode::Buffer as u64, holder, None, None, false, true)),
        };
    }
    let (mut fuses, mut swap) = (false, false);
    let (ready, produce, sends, store, emit, has_entry, has_instr, opcode, a, b, d) = match u {
        Uop::LocalPrefix => {
            let (a, b) = (slot(0), slot(1));
            (
                locals,
                None,
                false,
                true,
                false,
                false,
                data && c.rph2,
                Opcode::Pair,
                a,
                Some(b),
                Some(b),
            )
        }
        Uop::Pass { a, b, dst, send } => {
            let ready = has(a) && b.is_none_or(has);
            let via_a = c.fuse.a && reg(a) == c.arr_reg;
            let via_b = c.fuse.b && b.is_some_and(|b| reg(b) == c.arr_reg);
            fuses = ready && (via_a || via_b);
            let mut store = dst.is_some();
            let mut d = dst.map(|d| slot(reg(d)));
            let mut slot_a = slot(reg(a));
            let op = match (b, c.arrival && fuses) {
                (Some(_), false) => Opcode::Pair,
                (None, false) => Opcode::Buffer,
                (Some(b), true) => {
                    // a · incoming, or incoming · b (swapped) when the arrival is a.
                    if via_a {
                        slot_a = slot(reg(b));
                        swap = true;
                    }
                    Opcode::Combine
                }
                (None, true) => {
                    // The arrival, stored where the pass stores, else in its own register.
                    store = true;
                    d = d.or(Some(slot(reg(a))));
                    Opcode::Input
                }
            };
            (
                ready,
                dst.map(reg),
                send.is_some(),
                store,
                send.is_some(),
                send.is_some(),
                data && (store || send.is_some()),
                op,
                slot_a,
                (op == Opcode::Pair)
                    .then(|| b.map(|b| slot(reg(b))))
                    .flatten(),
                d,
            )
        }
        Uop::Respond { a } => {
            // The register arriving (`fuse_a`), rank 0's step of an allreduce: stored where it
            // arrived and answered as it streams in.
            fuses = c.fuse.a && reg(a) == c.arr_reg && has(a) && !c.sub && !c.reduce;
            let fused = fuses && c.arrival;
            (
                has(a),
                None,
                false,
                fused,
                true,
                true,
                if fused { c.words != 0 } else { data },
                if fused { Opcode::Input } else { Opcode::Buffer },
                slot(reg(a)),
                None,
                fused.then(|| slot(reg(a))),
            )
        }
        Uop::PassRespond { .. } => unreachable!("handled above"),
        Uop::RespondPrefix { x } => {
            let own = slot(u64::from(c.sub));
            let (op, a, b) = match x {
                Some(x) => (Opcode::Pair, slot(reg(x)), Some(own)),
                None => (Opcode::Buffer, own, None),
            };
            (
                locals && x.is_none_or(has),
                None,
                false,
                false,
                true,
                true,
                data,
                op,
                a,
                b,
                None,
            )
        }
    };
    Step {
        ready,
        last_sub,
        produce,
        sends,
        has_instr,
        has_entry,
        fuses,
        swap,
        pass: has_instr.then_some((
            opcode as u64,
            a,
            b,
            if store { d } else { None },
            store,
            emit,
        )),
    }
}

/// The fields of a packed [`PassFields`] (its bit positions from the struct itself).
struct Fields {
    opcode: u64,
    slot_a: u64,
    slot_b: u64,
    slot_d: u64,
    store: bool,
    emit: bool,
    swap: bool,
}

fn unpack(w: u64) -> Fields {
    let f = PassFields::default();
    let field = |offset: usize, width: usize| (w >> offset) & ((1 << width) - 1);
    Fields {
        opcode: field(f.get_my_offset_opcode(), f.get_my_width_opcode()),
        slot_a: field(f.get_my_offset_slot_a(), f.get_my_width_slot_a()),
        slot_b: field(f.get_my_offset_slot_b(), f.get_my_width_slot_b()),
        slot_d: field(f.get_my_offset_slot_d(), f.get_my_width_slot_d()),
        store: field(f.get_my_offset_store(), 1) == 1,
        emit: field(f.get_my_offset_emit(), 1) == 1,
        swap: field(f.get_my_offset_swap(), 1) == 1,
    }
}

/// A packed pass as the model's [`Pass`] (`None` without `has`).
fn pass_of(w: u64, has: bool) -> Option<Pass> {
    let p = unpack(w);
    has.then(|| {
        (
            p.opcode,
            p.slot_a,
            (p.opcode == Opcode::Pair as u64).then_some(p.slot_b),
            p.store.then_some(p.slot_d),
            p.store,
            p.emit,
        )
    })
}

fn observe(dut: &UopDecode) -> Step {
    let p = unpack(dut.pass());
    Step {
        ready: dut.ready() == 1,
        last_sub: dut.last_sub() == 1,
        produce: (dut.produce() == 1).then(|| dut.dst_reg()),
        sends: dut.sends() == 1,
        has_instr: dut.has_instr() == 1,
        has_entry: dut.has_entry() == 1,
        fuses: dut.fuses() == 1,
        swap: p.swap,
        pass: pass_of(dut.pass(), dut.has_instr() == 1),
    }
}

fn random_uop(rng: &mut SplitMix) -> Uop {
    let mut r = || rng.next_u64();
    let reg = |v: u64| {
        if v.is_multiple_of(5) {
            H
        } else {
            (v % 8) as u8
        }
    };
    let maybe = |v: u64, w: u64| v.is_multiple_of(2).then(|| reg(w));
    match r() % 5 {
        0 => Uop::LocalPrefix,
        1 => {
            let (a, b0, b1, d0, d1, s) = (r(), r(), r(), r(), r(), r());
            Uop::Pass {
                a: reg(a),
                b: maybe(b0, b1),
                dst: maybe(d0, d1),
                send: (s % 2 == 0).then(|| Send {
                    board: (s >> 8) as u8,
                    msg: if s & 4 == 0 {
                        MessageType::Partial
                    } else {
                        MessageType::Result
                    },
                    tag: (2 + (s >> 16) % 6) as u8,
                }),
            }
        }
        2 => Uop::Respond { a: reg(r()) },
        3 => {
            let (a, b0, b1, d) = (r(), r(), r(), r());
            Uop::PassRespond {
                a: reg(a),
                b: maybe(b0, b1),
                dst: reg(d),
            }
        }
        _ => {
            let (x0, x1) = (r(), r());
            Uop::RespondPrefix { x: maybe(x0, x1) }
        }
    }
}

#[test]
fn every_step_does_what_its_micro_op_means() {
    let mut rng = SplitMix(31337);
    let mut dut = UopDecode::default();
    let mut kinds = [0usize; 4];
    let mut fused = 0;
    let (mut waited, mut resent, mut idles) = (0, 0, 0);
    for case in 0..20_000 {
        let u = random_uop(&mut rng);
        let c = Ctx {
            cur: rng.next_u64() % 8,
            present: rng.next_u64() & 0xff,
            rph2: rng.next_u64().is_multiple_of(2),
            words: if rng.next_u64().is_multiple_of(4) {
                0
            } else {
                rng.next_u64() & 0xfff
            },
            sub: rng.next_u64().is_multiple_of(2),
            reduce: rng.next_u64().is_multiple_of(2),
            rank_is_root: rng.next_u64().is_multiple_of(2),
            fuse: Fuse {
                a: rng.next_u64().is_multiple_of(2),
                b: rng.next_u64().is_multiple_of(2),
            },
            arr_reg: rng.next_u64() % 8,
            arrival: rng.next_u64().is_multiple_of(2),
            resend: matches!(u, Uop::Pass { send: Some(_), .. })
                && rng.next_u64().is_multiple_of(3),
            again: rng.next_u64().is_multiple_of(3),
        };
        let word = u.encode_fused(c.fuse);
        dut.set_arr_reg(c.arr_reg);
        dut.set_resend(u64::from(c.resend));
        dut.set_again(u64::from(c.again));
        dut.set_uop(u64::from(word));
        dut.set_cur(c.cur);
        dut.set_present(c.present);
        dut.set_rph2(u64::from(c.rph2));
        dut.set_has_words(u64::from(c.words != 0));
        dut.set_sub(u64::from(c.sub));
        dut.set_reduce(u64::from(c.reduce));
        dut.set_rank_is_root(u64::from(c.rank_is_root));
        dut.eval();
        assert_eq!(dut.word(), u64::from(word), "the word passes through");
        // The step's own pass; and with an arrival waiting, the pass that takes it.
        let want = expected(
            u,
            &Ctx {
                arrival: false,
                ..c
            },
        );
        assert_eq!(observe(&dut), want, "case {case}: {u:?} {}", c.resend);
        let idle = !want.has_instr && !want.has_entry;
        assert_eq!(dut.idle() == 1, idle, "case {case}: idle, {u:?}");
        idles += u64::from(idle);
        if c.arrival && want.fuses {
            let with = expected(u, &c);
            let f = unpack(dut.fused());
            assert_eq!(
                dut.fused_instr() == 1,
                with.has_instr,
                "case {case}: fused_instr, {u:?}"
            );
            assert_eq!(
                pass_of(dut.fused(), with.has_instr),
                with.pass,
                "case {case}: fused, {u:?}"
            );
            assert_eq!(f.swap, with.swap, "case {case}: fused swap, {u:?}");
            fused += 1;
        }
        // The register a pass or a respond waits for: `a` if absent, else `b`.
        let reg = |r: u8| {
            if r == H {
                u64::from(c.rph2)
            } else {
                u64::from(r)
            }
        };
        let waits = match u {
            Uop::PassRespond { .. } if c.sub || c.again => None,
            Uop::Pass { a, b, .. } | Uop::PassRespond { a, b, .. } if !want.ready => {
                Some(if c.present >> reg(a) & 1 == 0 {
                    reg(a)
                } else {
                    reg(b.unwrap())
                })
            }
            Uop::Respond { a } if !want.ready => Some(reg(a)),
            _ => None,
        };
        if let Some(r) = waits {
            assert_eq!(dut.missing(), r, "case {case}: {u:?} waits for");
            waited += 1;
        }
        resent += usize::from(c.resend);
        kinds[(word & 3) as usize] += 1;
    }
    assert!(kinds.iter().all(|&n| n > 1000), "{kinds:?}");
    assert!(fused > 50, "{fused} fused passes");
    assert!(idles > 200, "{idles} steps with nothing to issue");
    assert!(
        waited > 1000 && resent > 500,
        "{waited} waiting, {resent} resent"
    );
}

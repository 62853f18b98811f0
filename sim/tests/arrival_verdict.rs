//! The CFE's arrival classification through Verilator, against a Rust model written from the
//! precedence table in `hdl/src/arrival_verdict.rs`'s documentation and `collwire_proto`'s
//! codes and limits: on random classified frames (every message type, ranks per host 1–4,
//! requests of this board and others, board frames for this board and others, tags in and out
//! of range) with random context-table answers and program-directory entries, every verdict
//! bit and the error code (a clock after the fields, with the answers then), and the
//! table/CIPE requests (key, register, words, destination board)
//! equal the model's; and the two halves the CFE registers apart, the verdict without the
//! long history's row (`chain`) and whether that row applies (`hist_row`), equal the model's
//! without the history and the row's condition.

use collwire_hdl::arrival_verdict::Verdict as HwVerdict;
use collwire_hdl::cfe::cfg;
use collwire_hdl::context_table::REGS;
use collwire_proto::{ErrorCode, MessageType, limits};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{RawFields, endpoints, frame_fields};
use collwire_sim::models::ArrivalVerdict;

/// What the context table and the directory answer for the arrival.
#[derive(Debug, Clone, Copy)]
struct Lookup {
    hit: bool,
    /// The hit context is done (its result retained).
    done: bool,
    late: bool,
    /// The long history's answer (a clock later in the engine; the same row).
    hist_late: bool,
    sig_match: bool,
    present: bool,
    has_free: bool,
    installed: bool,
    silent: bool,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Verdict {
    cancel: bool,
    drop: bool,
    dup: bool,
    ack: bool,
    store: bool,
    alloc: bool,
    stall: bool,
    resend: bool,
    nack: bool,
    pend: bool,
    heard: bool,
    faulty: bool,
    answer_error: bool,
    code: u8,
}

/// The precedence table, top row first.
fn model(
    f: &RawFields,
    dst_host: u8,
    payload: usize,
    unsupported: bool,
    me: u8,
    t: Lookup,
) -> Verdict {
    let msg = MessageType::from_code(f.msg_type).ok();
    let is_req = msg == Some(MessageType::Request);
    let is_board = matches!(msg, Some(MessageType::Partial | MessageType::Result));
    let is_nack = msg == Some(MessageType::Nack);
    let is_pending = msg == Some(MessageType::Pending);
    let is_ctl = is_nack || is_pending;
    let rph = usize::from(f.ranks_per_host);
    let rph_ok = (1..=usize::from(limits::MAX_RANKS_PER_HOST)).contains(&rph);
    let of_this_board = rph_ok && usize::from(f.rank) / rph == usize::from(me);
    let tag = usize::from(f.rank >> 8);
    let reg_ok = if is_board || is_ctl {
        (usize::from(limits::MAX_RANKS_PER_HOST)..REGS).contains(&tag)
    } else {
        of_this_board
    };
    let boards = usize::from(f.comm_size) / rph.max(1);
    let mut v = Verdict::default();
    let mut fault = None;
    let mut answer = None;
    if unsupported {
        fault = Some(ErrorCode::Unsupported);
    } else if msg == Some(MessageType::Abort) && of_this_board {
        v.cancel = true;
    } else if !(is_req || is_board || is_ctl) {
        v.drop = true;
    } else if (is_board || is_ctl) && dst_host != me {
        // The router forwards these; one that reached the engine is dropped.
        v.drop = true;
    } else if is_ctl && !reg_ok {
        v.drop = true;
    } else if is_nack {
        // Sent again from the segment's context, open or done; finished here, it cannot be;
        // not started here, the answer is `pending`.
        if t.hit {
            v.nack = true;
        } else if t.late || t.hist_late {
            v.dup = true;
        } else {
            v.pend = true;
        }
    } else if is_pending {
        v.heard = t.hit && !t.done;
        v.drop = !v.heard;
    } else if t.hit && t.done {
        // A retransmission is answered again from the retained result; anything else is late.
        if is_req && reg_ok && t.sig_match && f.attempt != 0 {
            v.resend = true;
        } else {
            v.dup = true;
            if is_req {
                answer = Some(ErrorCode::Stale);
            }
        }
    } else if t.late || t.hist_late {
        v.dup = true;
        if is_req {
            answer = Some(ErrorCode::Stale);
        }
    } else if !rph_ok || payload > limits::MAX_SEGMENT_PAYLOAD {
        fault = Some(ErrorCode::Unsupported);
    } else if !reg_ok {
        fault = Some(ErrorCode::BadTopology);
    } else if t.hit {
        if !t.sig_match {
            fault = Some(ErrorCode::Mismatch);
        } else if t.present && t.silent && is_req {
            fault = Some(ErrorCode::Timeout);
        } else if t.present {
            v.dup = true;
            v.ack = is_req;
        } else {
            v.store = true;
        }
    } else if !(t.installed && (1..=limits::MAX_BOARDS).contains(&boards)) {
        fault = Some(ErrorCode::BadTopology);
    } else if !t.has_free {
        v.stall = true;
    } else {
        v.store = true;
        v.alloc = true;
    }
    v.faulty = fault.is_some();
    let code = fault.or(answer).map_or(0, ErrorCode::code);
    v.code = code;
    v.answer_error = code != 0 && is_req;
    v
}

fn verdict(dut: &ArrivalVerdict) -> Verdict {
    Verdict {
        cancel: dut.cancel() == 1,
        drop: dut.drop() == 1,
        dup: dut.dup() == 1,
        ack: dut.ack() == 1,
        store: dut.store() == 1,
        alloc: dut.alloc() == 1,
        stall: dut.stall() == 1,
        resend: dut.resend() == 1,
        nack: dut.nack() == 1,
        pend: dut.pend() == 1,
        heard: dut.heard() == 1,
        faulty: dut.faulty() == 1,
        answer_error: dut.answer_error() == 1,
        code: dut.code() as u8,
    }
}

/// The `chain` output, a [`collwire_hdl::arrival_verdict::Verdict`] (its field offsets from
/// the struct's one definition), and its `is_req`.
fn chain_of(bits: u64) -> (Verdict, bool) {
    let d = HwVerdict::default();
    let bit = |offset: usize| bits >> offset & 1 == 1;
    (
        Verdict {
            cancel: bit(d.get_my_offset_cancel()),
            drop: bit(d.get_my_offset_drop()),
            dup: bit(d.get_my_offset_dup()),
            ack: bit(d.get_my_offset_ack()),
            store: bit(d.get_my_offset_store()),
            alloc: bit(d.get_my_offset_alloc()),
            stall: bit(d.get_my_offset_stall()),
            resend: bit(d.get_my_offset_resend()),
            nack: bit(d.get_my_offset_nack()),
            pend: bit(d.get_my_offset_pend()),
            heard: bit(d.get_my_offset_heard()),
            faulty: bit(d.get_my_offset_faulty()),
            answer_error: bit(d.get_my_offset_answer_error()),
            code: (bits >> d.get_my_offset_code() & 0xff) as u8,
        },
        bit(d.get_my_offset_is_req()),
    )
}

#[test]
fn every_verdict_follows_the_precedence_table() {
    let mut rng = SplitMix(1414);
    let mut dut = ArrivalVerdict::default();
    let word_bytes = 8; // the design is emitted for the 64-bit datapath
    // How often each row of the table was the answer.
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for case in 0..60_000 {
        let mut r = |n: u64| rng.next_u64() % n;
        let me = r(8) as u8;
        let rph = 1 + r(4) as u8;
        let boards = 1 + r(70) as u16;
        let mut f = RawFields::random(&mut rng);
        let mut r = |n: u64| rng.next_u64() % n;
        f.msg_type = if r(4) == 0 {
            r(16) as u8
        } else {
            [0, 1, 2, 4, 7, 8][r(6) as usize]
        };
        f.ranks_per_host = rph;
        f.comm_size = boards.saturating_mul(u16::from(rph));
        f.algorithm = r(4) as u8;
        f.collective = r(6) as u8;
        // Mostly a rank of this board (or a board frame's tag in range), sometimes not.
        f.rank = match MessageType::from_code(f.msg_type) {
            Ok(
                MessageType::Partial
                | MessageType::Result
                | MessageType::Nack
                | MessageType::Pending,
            ) => (r(10) as u16) << 8 | r(64) as u16,
            _ if r(4) == 0 => r(u64::from(f.comm_size.max(1))) as u16,
            _ => u16::from(me) * u16::from(rph) + r(u64::from(rph)) as u16,
        };
        let dst_host = if r(3) == 0 { r(8) as u8 } else { me };
        let payload = if r(10) == 0 {
            2040 + r(20) as usize
        } else {
            r(2049) as usize
        };
        let unsupported = r(20) == 0;
        if r(2) == 0 {
            f.attempt = 0;
        }
        let t = Lookup {
            hit: r(2) == 0,
            done: r(3) == 0,
            late: r(8) == 0,
            hist_late: r(8) == 0,
            sig_match: r(8) != 0,
            present: r(3) == 0,
            has_free: r(6) != 0,
            installed: r(6) != 0,
            silent: r(2) == 0,
        };
        let mut e = endpoints(&mut rng);
        e.dst_ip[3] = dst_host;
        // The first stage registers what the fields tell; the table's and the directory's
        // answers come a clock later, with the fields held.
        dut.set_fields_bytes(&frame_fields(&e, &f).to_le_bytes());
        dut.set_payload_len(payload as u64);
        dut.set_unsupported(u64::from(unsupported));
        dut.set_my_board(u64::from(me));
        dut.eval();
        dut.tick();
        dut.set_dir_word(if t.installed {
            u64::from(cfg::directory_word(1, 2))
        } else {
            0
        });
        dut.set_hit(u64::from(t.hit));
        dut.set_done(u64::from(t.done));
        dut.set_late(u64::from(t.late));
        dut.set_hist_late(u64::from(t.hist_late));
        dut.set_sig_match(u64::from(t.sig_match));
        dut.set_present(u64::from(t.present));
        dut.set_has_free(u64::from(t.has_free));
        dut.set_silent(u64::from(t.silent));
        dut.eval();

        // The model for this frame, with the table's answers `t`.
        let model_for = |t: Lookup| model(&f, dst_host, payload, unsupported, me, t);
        let want = model_for(t);
        let got = verdict(&dut);
        assert_eq!(
            got, want,
            "case {case}: {f:?} dst {dst_host} me {me} payload {payload} unsupported {unsupported} {t:?}"
        );
        // The engine registers the verdict of every other row (`chain`) and whether the
        // history's row applies (`hist_row`) apart, and lays the row over them a clock later
        // with the `LateRow` that drives the outputs above: the chain is the table's answer
        // without the long history, and the row applies where the history's key decides.
        let (chain, chain_is_req) = chain_of(dut.chain());
        let without_history = model_for(Lookup {
            hist_late: false,
            ..t
        });
        assert_eq!(chain, without_history, "case {case}: chain {f:?} {t:?}");
        assert_eq!(
            chain_is_req,
            f.msg_type == MessageType::Request.code(),
            "case {case}: chain's is_req"
        );
        // The context table loads an opened context's key, signature and sizes on `alloc`
        // alone (hdl/src/context_table.rs): the verdict never allocates without storing.
        assert!(!got.alloc || got.store, "case {case}: alloc without store");
        // The frame reaches the history row exactly when a key in the history makes it a
        // `dup` (no row above it gives one; the done row is above it).
        let if_late = model_for(Lookup {
            late: true,
            done: false,
            ..t
        });
        assert_eq!(
            dut.late_applies() == 1,
            if_late.dup,
            "case {case}: late applies, {f:?} dst {dst_host} me {me} unsupported {unsupported}"
        );
        assert_eq!(
            dut.hist_row() == 1,
            t.hist_late && if_late.dup && !(t.hit && t.done),
            "case {case}: history row, {f:?} {t:?}"
        );
        for (row, hit) in [
            ("cancel", want.cancel),
            ("drop", want.drop),
            (
                "board frame for another board",
                want.drop && !unsupported && {
                    let m = MessageType::from_code(f.msg_type).ok();
                    m.is_some_and(|m| m.is_board_to_board()) && dst_host != me
                },
            ),
            ("dup", want.dup),
            ("ack", want.ack),
            ("store", want.store),
            ("alloc", want.alloc),
            ("stall", want.stall),
            ("resend", want.resend),
            ("nack", want.nack),
            ("pend", want.pend),
            ("heard", want.heard),
            (
                "nack for a finished segment",
                want.dup && f.msg_type == MessageType::Nack.code(),
            ),
            ("timeout", want.code == ErrorCode::Timeout.code()),
            ("unsupported", want.code == ErrorCode::Unsupported.code()),
            ("bad-topology", want.code == ErrorCode::BadTopology.code()),
            ("mismatch", want.code == ErrorCode::Mismatch.code()),
            ("stale", want.code == ErrorCode::Stale.code()),
        ] {
            *seen.entry(row).or_default() += usize::from(hit);
        }

        // What the engine asks the table, the directory and the CIPE.
        let key = u64::from(f.comm_id) << 32 | u64::from(f.op_id) << 16 | u64::from(f.seg_index);
        assert_eq!(dut.key(), key, "case {case}: key");
        assert_eq!(
            dut.words(),
            payload.div_ceil(word_bytes) as u64,
            "case {case}: words"
        );
        assert_eq!(
            dut.has_words(),
            u64::from(dut.words() != 0),
            "case {case}: has words"
        );
        let is_board = MessageType::from_code(f.msg_type).is_ok_and(|m| m.is_board_to_board());
        let reg = if is_board {
            f.rank >> 8 & 7
        } else if rph == 2 {
            f.rank & 1
        } else {
            0
        };
        assert_eq!(dut.arr_reg(), u64::from(reg), "case {case}: register");
    }
    // Every row of the table was reached many times.
    for (row, n) in &seen {
        assert!(*n >= 50, "row {row} reached {n} times: {seen:?}");
    }
    assert_eq!(seen.len(), 18);
}

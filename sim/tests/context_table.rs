//! The CFE's context table through Verilator against a plain Rust model of the same table:
//! random commands (one per cycle, as the engine issues them) on a small pool of keys so hits,
//! the history and a full table all happen; each arrival is looked up for a clock, then its
//! registered verdict and every other output is compared with the model as the command acts.
//! Time-base ticks come at random on both clocks, so contexts age, expire and are reclaimed
//! (or touched back to life) as the engine would. Retired contexts stay *done* (their results
//! retained) until a new segment finds no free context and takes the one that retired first.
//! Nacks sent (`nacked`) and partners heard (`heard`) make contexts silent and not.
//! Commands the engine never gives (a store into a done context, a retire of a free one) are
//! not given.

use std::collections::VecDeque;

use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::ContextTable;

#[derive(Clone, Copy, Default, Debug)]
struct Ctx {
    valid: bool,
    done: bool,
    dirty: bool,
    key: u64,
    sig: u64,
    pc: u64,
    end: u64,
    present: u64,
    rph2: bool,
    words: u64,
    bytes: u64,
    age: u64,
    /// Nacks sent since the last store or `heard`.
    silence: u64,
}

#[derive(Default)]
struct Model {
    c: [Ctx; 8],
    h: [Option<u64>; 8],
    h_ptr: usize,
    /// Done contexts in retirement order.
    done_queue: VecDeque<usize>,
    /// Expiry stage 1: which contexts had expired a clock ago, and no command then.
    exp_vec: [bool; 8],
    quiet: bool,
    /// Stage 2: the lowest of them (no command in either clock).
    expired: Option<usize>,
    /// Silent (registered from the silence and the limit on every clock).
    mute: [bool; 8],
    silence_limit: u64,
    /// The limit the clock before.
    silence_limit_before: u64,
}

#[derive(Debug, PartialEq)]
struct Lookup {
    hit: bool,
    done: bool,
    has_free: bool,
    late: bool,
    sig_match: bool,
    present: bool,
    ctx: u64,
    cur: (u64, u64, u64, bool, u64, u64),
    /// `cur`'s words are not zero (the table's own flag).
    cur_has_words: bool,
    /// `cur`'s program counter is at its end.
    at_end: bool,
    pick: Option<u64>,
    expired: Option<u64>,
    silent: bool,
    /// `ctx`'s present mask.
    ctx_present: u64,
    /// `ctx`'s program counter (from a flip-flop that follows `ctx` and the commands).
    ctx_pc: u64,
}

impl Model {
    fn hit_idx(&self, key: u64) -> Option<usize> {
        (0..8)
            .rev()
            .find(|&i| self.c[i].valid && self.c[i].key == key)
    }
    fn lookup(&self, key: u64, sig: u64, reg: u64, cur: usize) -> Lookup {
        let hit = self.hit_idx(key);
        let free = (0..8).find(|&i| !self.c[i].valid);
        let h = hit.map(|i| self.c[i]);
        let k = self.c[cur];
        let ctx = hit
            .or(free)
            .or(self.done_queue.front().copied())
            .unwrap_or(0);
        Lookup {
            hit: hit.is_some(),
            done: h.is_some_and(|h| h.done),
            has_free: free.is_some() || !self.done_queue.is_empty(),
            late: self.h.contains(&Some(key)),
            // Both false on a miss.
            sig_match: h.is_some_and(|h| h.sig == sig),
            present: h.is_some_and(|h| h.present >> reg & 1 == 1),
            ctx: ctx as u64,
            cur: (k.pc, k.end, k.present, k.rph2, k.words, k.bytes),
            cur_has_words: k.words != 0,
            at_end: k.pc == k.end,
            pick: (0..8)
                .find(|&i| self.c[i].valid && self.c[i].dirty)
                .map(|i| i as u64),
            expired: self.expired.map(|i| i as u64),
            silent: self.mute[ctx],
            ctx_present: self.c[ctx].present,
            ctx_pc: self.c[ctx].pc,
        }
    }
    /// The clock edge's ageing and expiry registers; `refreshed` contexts go back to 0.
    fn age(&mut self, tick: bool, limit: u64, command: bool, refreshed: Option<usize>) {
        // The table registers each context's mute from its silence and the limit a clock
        // ahead: a new limit counts from the clock after the one it was set on.
        let silence_limit = self.silence_limit_before;
        self.silence_limit_before = self.silence_limit;
        self.mute =
            std::array::from_fn(|i| silence_limit != 0 && self.c[i].silence >= silence_limit);
        let lowest = (0..8).find(|&i| self.exp_vec[i]);
        self.expired = lowest.filter(|_| self.quiet && !command);
        self.quiet = !command;
        self.exp_vec = std::array::from_fn(|i| {
            limit != 0 && self.c[i].valid && !self.c[i].done && self.c[i].age >= limit
        });
        for (i, c) in self.c.iter_mut().enumerate() {
            if refreshed == Some(i) {
                c.age = 0;
            } else if tick && c.valid && c.age != 0xffff {
                c.age += 1;
            }
        }
    }
    fn file(&mut self, key: u64) {
        self.h[self.h_ptr] = Some(key);
        self.h_ptr = (self.h_ptr + 1) % 8;
    }
}

fn observe(dut: &ContextTable) -> Lookup {
    Lookup {
        hit: dut.hit() == 1,
        done: dut.done() == 1,
        has_free: dut.has_free() == 1,
        late: dut.late() == 1,
        sig_match: dut.sig_match() == 1,
        present: dut.present() == 1,
        ctx: dut.ctx(),
        cur: (
            dut.pc(),
            dut.end_pc(),
            dut.present_mask(),
            dut.rph2() == 1,
            dut.words(),
            dut.bytes(),
        ),
        cur_has_words: dut.has_words() == 1,
        at_end: dut.at_end() == 1,
        pick: (dut.pick_found() == 1).then(|| dut.pick()),
        expired: (dut.expired() == 1).then(|| dut.expired_ctx()),
        silent: dut.silent() == 1,
        ctx_present: dut.ctx_present(),
        ctx_pc: dut.ctx_pc(),
    }
}

fn sig_words(sig: u64) -> [u32; 3] {
    [sig as u32, (sig >> 32) as u32, 0]
}

#[test]
fn table_matches_its_model_under_random_commands() {
    let mut rng = SplitMix(2026);
    let mut dut = ContextTable::default();
    let mut m = Model::default();
    let keys: Vec<u64> = (0..12).map(|_| rng.next_u64() & 0xffff_ffff_ffff).collect();
    let sigs: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
    let mut seen = [0usize; 15];
    let mut silent_seen = 0;
    let mut reclaimed = 0;
    let (mut evicted, mut done_hits, mut at_end_seen, mut opened_cur) = (0, 0, 0, 0);
    // The key looked up in the coming iteration; whether the last command wrote or filed a key.
    let mut key = keys[0];
    let mut sig = sigs[0];
    let mut wrote_key = false;
    // Lookups straight after a command's clock.
    let mut direct = 0;
    for cycle in 0..40_000 {
        // Mostly a short limit (contexts expire all the time), sometimes none.
        let limit = if cycle % 10_000 < 8_000 { 3 } else { 0 };
        // The silence limit 1, 2 or 3, changed every 40 cycles (a change counts a clock
        // late), sometimes none.
        m.silence_limit = if cycle % 7_000 < 6_000 {
            1 + (cycle / 40) % 3
        } else {
            0
        };
        let ticks = [
            rng.next_u64().is_multiple_of(3),
            rng.next_u64().is_multiple_of(3),
        ];
        let reg = rng.next_u64() % 8;
        let cur = (rng.next_u64() % 8) as usize;
        let command = if cycle % 5000 == 4999 {
            8
        } else {
            [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14][rng.next_u64() as usize % 14]
        };
        // Only what the engine does: a store into the open context the arrival hit, or into a
        // new one on a miss; an undo only of that; a retire of an open context (a retire of
        // a done one is given: the table ignores it).
        let before = m.lookup(key, sig, reg, cur);
        let open = |c: &Ctx| c.valid && !c.done;
        let target = m.c[before.ctx as usize];
        let legal = match command {
            1 => before.hit && !before.done,
            2 => !before.hit && before.has_free,
            11 | 12 => before.has_free && open(&target),
            7 => m.c[cur].valid,
            13 => open(&m.c[cur]),
            14 => before.hit && !before.done,
            _ => true,
        };
        let command = if legal { command } else { 0 };
        // A program of 0 to 3 micro-ops: `advance` and `retire` reach its end and pass it.
        let pc = rng.next_u64() & 0xfff;
        let (end, rph2, words, bytes, preg) = (
            (pc + rng.next_u64() % 4) & 0xfff,
            rng.next_u64() & 1 == 1,
            rng.next_u64() & 0xfff,
            rng.next_u64() & 0xffff,
            rng.next_u64() % 8,
        );
        // The arrival is looked up for a clock with no command (the engine's Lookup state),
        // then acted on with its registered verdict (Arrive). The table compares keys and
        // signatures a clock ahead, with `peek_key` and `peek_sig`, the key and signature
        // looked up the next clock: the last command's clock announces this lookup's, or,
        // half of the time and always after a key was written or filed there or a context
        // freed (the table would miss it, or take a context that is no longer the first
        // free one), a quiet clock between (the engine's `Idle`). On the lookup's own
        // clock the peeks are another key and signature (the next frame's), which must not
        // count. (The long history, which reads the peeked key two clocks ahead, is tested
        // in `key_history.rs` and through the engine in `testbench/tests/cluster_engine.rs`;
        // it stays out of this model.)
        dut.set_age_limit(limit);
        dut.set_silence_limit(m.silence_limit);
        for c in [
            ContextTable::set_store,
            ContextTable::set_alloc,
            ContextTable::set_cancel,
            ContextTable::set_park,
            ContextTable::set_produce,
            ContextTable::set_advance,
            ContextTable::set_retire,
            ContextTable::set_reset,
            ContextTable::set_touch,
            ContextTable::set_reclaim,
            ContextTable::set_unstore,
            ContextTable::set_unstore_free,
            ContextTable::set_nacked,
            ContextTable::set_heard,
        ] {
            c(&mut dut, 0);
        }
        dut.set_peek_key(key);
        dut.set_peek_sig(&sig_words(sig));
        if wrote_key || rng.next_u64() & 1 == 0 {
            dut.set_age_tick(0);
            dut.tick();
            m.age(false, limit, false, None);
        } else {
            direct += 1;
        }
        dut.set_lookup(1);
        dut.set_key(key);
        dut.set_peek_key(key ^ 1 << 47);
        dut.set_peek_sig(&sig_words(sig ^ 1 << 63));
        dut.set_sig(&sig_words(sig));
        dut.set_arr_reg(reg);
        dut.set_cur(cur as u64);
        dut.set_cur_is(1 << cur);
        dut.set_age_tick(u64::from(ticks[0]));
        dut.tick();
        m.age(ticks[0], limit, false, None);
        let next = keys[rng.next_u64() as usize % keys.len()];
        let next_sig = sigs[rng.next_u64() as usize % sigs.len()];
        dut.set_lookup(0);
        dut.set_peek_key(next);
        dut.set_peek_sig(&sig_words(next_sig));
        dut.set_store(u64::from(command == 1 || command == 2));
        dut.set_alloc(u64::from(command == 2));
        dut.set_alloc_pc(pc);
        dut.set_alloc_end(end);
        dut.set_alloc_at_end(u64::from(pc == end));
        dut.set_alloc_rph2(u64::from(rph2));
        dut.set_alloc_words(words);
        dut.set_alloc_len(bytes);
        dut.set_cancel(u64::from(command == 3));
        dut.set_park(u64::from(command == 4));
        dut.set_produce(u64::from(command == 5));
        dut.set_produce_reg(preg);
        dut.set_advance(u64::from(command == 6));
        dut.set_retire(u64::from(command == 7));
        dut.set_reset(u64::from(command == 8));
        dut.set_touch(u64::from(command == 9));
        dut.set_reclaim(u64::from(command == 10));
        // Undo a store (its frame bad at the tail): 11 keeps the context, 12 frees it.
        dut.set_unstore(u64::from(command == 11 || command == 12));
        dut.set_unstore_free(u64::from(command == 12));
        dut.set_nacked(u64::from(command == 13));
        dut.set_heard(u64::from(command == 14));
        dut.set_age_tick(u64::from(ticks[1]));
        dut.eval();
        let want = m.lookup(key, sig, reg, cur);
        assert_eq!(observe(&dut), want, "cycle {cycle}, command {command}");
        // The one-hot copies the engine loads its one-hot `cur` from.
        assert_eq!(dut.ctx_is(), 1 << want.ctx, "cycle {cycle}");
        assert_eq!(
            dut.pick_is(),
            want.pick.map_or(0, |p| 1 << p),
            "cycle {cycle}"
        );
        // `pick`'s counter as it is in the command's clock (0 without a pick).
        let pick_pc = want.pick.map_or(0, |p| m.c[p as usize].pc);
        done_hits += usize::from(want.done);
        at_end_seen += usize::from(want.at_end);
        silent_seen += usize::from(want.silent);
        seen[command as usize] += 1;
        dut.tick();
        // The lookup's answers hold until the next lookup, whatever the command changed.
        let held = |l: &Lookup| {
            (
                l.hit,
                l.done,
                l.late,
                l.sig_match,
                l.present,
                l.has_free,
                l.ctx,
            )
        };
        assert_eq!(
            held(&observe(&dut)),
            held(&want),
            "cycle {cycle}, command {command}"
        );

        let hit = m.hit_idx(key);
        let ctx = want.ctx as usize;
        wrote_key = matches!(command, 2 | 3 | 7 | 10 | 12);
        let refreshed = match command {
            1 | 2 => Some(ctx),
            9 => hit,
            _ => None,
        };
        let expired = m.expired;
        m.age(ticks[1], limit, command != 0, refreshed);
        match command {
            1 => {
                let c = &mut m.c[ctx];
                c.dirty = true;
                c.present |= 1 << reg;
                c.silence = 0;
            }
            13 => m.c[cur].silence = (m.c[cur].silence + 1).min(15),
            14 => m.c[ctx].silence = 0,
            2 => {
                if !(0..8).any(|i| !m.c[i].valid) {
                    assert_eq!(m.done_queue.pop_front(), Some(ctx));
                    evicted += 1;
                }
                m.c[ctx] = Ctx {
                    valid: true,
                    done: false,
                    dirty: true,
                    key,
                    sig,
                    pc,
                    end,
                    present: 1 << reg,
                    rph2,
                    words,
                    bytes,
                    age: 0,
                    silence: 0,
                };
            }
            3 => {
                if let Some(h) = hit.filter(|&h| !m.c[h].done) {
                    m.c[h].valid = false;
                    m.c[h].dirty = false;
                }
                if !want.late && !want.done {
                    m.file(key);
                }
            }
            4 => m.c[cur].dirty = false,
            5 => m.c[cur].present |= 1 << preg,
            6 => m.c[cur].pc = (m.c[cur].pc + 1) & 0xfff,
            7 if !m.c[cur].done => {
                let c = &mut m.c[cur];
                c.done = true;
                c.dirty = false;
                c.pc = c.pc.wrapping_sub(1) & 0xfff;
                let k = c.key;
                m.file(k);
                m.done_queue.push_back(cur);
            }
            8 => {
                m.done_queue.clear();
                for c in &mut m.c {
                    c.valid = false;
                    c.done = false;
                    c.dirty = false;
                    c.age = 0;
                    c.silence = 0;
                }
                m.mute = [false; 8];
                m.h = [None; 8];
                m.h_ptr = 0;
            }
            10 => {
                if let Some(e) = expired {
                    m.c[e].valid = false;
                    m.c[e].dirty = false;
                    let k = m.c[e].key;
                    m.file(k);
                    reclaimed += 1;
                }
            }
            11 | 12 => {
                let c = &mut m.c[ctx];
                c.present &= !(1 << reg);
                if command == 12 && !c.done {
                    c.valid = false;
                    c.dirty = false;
                }
            }
            _ => {}
        }
        // The program counters the engine addresses its program RAM with come from flip-flops
        // after the command: `cur`'s (it held; context 0's after a reset, which makes the
        // engine's `cur` 0) and `ctx`'s as the command left them, and the one `pick` named in
        // the command's clock as it was then.
        assert_eq!(
            dut.pc_r(),
            m.c[if command == 8 { 0 } else { cur }].pc,
            "cycle {cycle}, command {command}: pc_r"
        );
        assert_eq!(
            dut.pick_pc(),
            pick_pc,
            "cycle {cycle}, command {command}: pick_pc"
        );
        assert_eq!(
            dut.ctx_pc(),
            m.c[ctx].pc,
            "cycle {cycle}, command {command}: ctx_pc"
        );
        // `at_end` is a flip-flop per context: right after the command's clock it is on time
        // except after an `advance` or `retire` (the engine never reads it then), also for a
        // context just opened (compared from the values it is opened with).
        if !matches!(command, 6 | 7) {
            assert_eq!(
                dut.at_end() == 1,
                m.c[cur].pc == m.c[cur].end,
                "cycle {cycle}, command {command}: at_end after the command"
            );
            opened_cur += usize::from(command == 2 && ctx == cur);
        }
        key = next;
        sig = next_sig;
    }
    assert!(
        direct > 10_000,
        "lookups straight after a command: {direct}"
    );
    assert!(at_end_seen > 1_000, "programs at their end: {at_end_seen}");
    assert!(opened_cur > 100, "contexts opened as cur: {opened_cur}");
    assert!(
        seen.iter().all(|&n| n > 0),
        "every command was exercised: {seen:?}"
    );
    assert!(reclaimed > 100, "contexts were reclaimed: {reclaimed}");
    assert!(evicted > 100, "done contexts were reused: {evicted}");
    assert!(done_hits > 100, "done contexts were hit: {done_hits}");
    assert!(
        silent_seen > 100,
        "silent contexts were looked up: {silent_seen}"
    );
}

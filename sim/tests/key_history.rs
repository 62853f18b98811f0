//! The long history of finished segments (`hdl/src/key_history.rs`) through Verilator against
//! a model of its registers and RAMs: random lookups (asked two clocks ahead, sometimes not;
//! the key held for the two clocks after, sometimes not),
//! files (back to back into one set too) and resets, on a key pool that overfills the sets.

use collwire_hdl::key_history::{HISTORY_KEYS, SETS, WAYS, set_of};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::KeyHistory;

const VALID: u64 = 1 << 48;

/// The block's registers and RAMs, clock by clock.
struct Model {
    mem: Vec<[u64; WAYS]>,
    ptr: Vec<u64>,
    rd_ways: [u64; WAYS],
    rd_ptr: u64,
    peek_q: u64,
    /// The words read for `peek_q`, with `peek_q`, a clock later.
    word_q: [u64; WAYS],
    peek_q2: u64,
    /// `peek_q == key` at the last edge.
    same_q: bool,
    /// The RAMs were swept when `peek_q` / `peek_q2` was read.
    ok_q: bool,
    ok_q2: bool,
    swept: bool,
    sweep_set: usize,
    /// Filing, first clock: the key registered (`i_key` also when not filing: the pointer
    /// RAM reads its set anyway).
    i: Option<u64>,
    i_key: u64,
    /// Filing, second clock: the key and its set (its pointer read).
    f: Option<(u64, usize)>,
    /// The file before: its set and the pointer it left (written into the RAM now).
    l: Option<(usize, u64)>,
    /// The file before that: its set and the pointer it left.
    l2: Option<(usize, u64)>,
    /// Filing, fourth clock: the key, its set and its way.
    w: Option<(u64, usize, u64)>,
}

impl Model {
    fn new() -> Model {
        Model {
            mem: vec![[0; WAYS]; SETS],
            ptr: vec![0; SETS],
            rd_ways: [0; WAYS],
            rd_ptr: 0,
            peek_q: 0,
            word_q: [0; WAYS],
            peek_q2: 0,
            same_q: false,
            ok_q: false,
            ok_q2: false,
            swept: false,
            sweep_set: 0,
            i: None,
            i_key: 0,
            f: None,
            l: None,
            l2: None,
            w: None,
        }
    }
    /// Whether the words read two clocks ago hold the key peeked then, that key was `key` a
    /// clock ago, and the RAMs were swept when read. (Right for `key` when `key` has not
    /// changed since.)
    fn seen(&self) -> bool {
        self.ok_q2 && self.same_q && self.word_q.contains(&(self.peek_q2 | VALID))
    }
    fn f_way(&self) -> u64 {
        let Some((_, set)) = self.f else {
            return self.rd_ptr;
        };
        match (self.l, self.l2) {
            (Some((l_set, l_ptr)), _) if l_set == set => l_ptr,
            (_, Some((l2_set, l2_ptr))) if l2_set == set => l2_ptr,
            _ => self.rd_ptr,
        }
    }
    /// The clock edge with these inputs: every register and RAM word from the state before it.
    fn edge(&mut self, peek: u64, key: u64, file: Option<u64>, file_key: u64, reset: bool) {
        let way = self.f_way();
        let (swept, sweep_set) = (self.swept, self.sweep_set);
        self.word_q = self.rd_ways;
        self.same_q = self.peek_q == key;
        self.peek_q2 = self.peek_q;
        self.ok_q2 = self.ok_q;
        self.ok_q = swept;
        // Reads see the words before this edge's writes.
        self.rd_ways = self.mem[set_of(peek)];
        self.rd_ptr = self.ptr[set_of(self.i_key)];
        if swept {
            if let Some((key, set, w)) = self.w {
                self.mem[set][w as usize] = key | VALID;
            }
            if let Some((set, ptr)) = self.l {
                self.ptr[set] = ptr;
            }
        } else {
            self.mem[sweep_set] = [0; WAYS];
            self.ptr[sweep_set] = 0;
            self.sweep_set = (sweep_set + 1) % SETS;
            self.swept = sweep_set == SETS - 1;
        }
        self.w = self.f.map(|(key, set)| (key, set, way));
        self.l2 = self.l;
        self.l = self.f.map(|(_, set)| (set, (way + 1) % WAYS as u64));
        self.f = self.i.filter(|_| swept).map(|k| (k, set_of(k)));
        self.i = file;
        self.i_key = file_key;
        self.peek_q = peek;
        if reset {
            self.swept = false;
            self.ok_q = false;
            self.ok_q2 = false;
            self.sweep_set = 0;
            self.i = None;
            self.f = None;
            self.l = None;
            self.l2 = None;
            self.w = None;
        }
    }
}

fn key(comm: u64, op: u64, seg: u64) -> u64 {
    comm << 32 | op << 16 | seg
}

#[test]
fn the_history_matches_its_model_under_random_lookups_files_and_resets() {
    let mut rng = SplitMix(16);
    let mut dut = KeyHistory::default();
    let mut m = Model::new();
    // 2 communicators × 700 operations × 3 segments: far more keys than the 1,024 kept.
    let pool = |r: u64| key(1 + r % 2, (r >> 8) % 700, (r >> 20) % 3);
    // The keys peeked one and two clocks ago.
    let mut peeked = [pool(rng.next_u64()), pool(rng.next_u64())];
    let (mut seen, mut files) = (0, 0);
    let mut last_file = 0;
    for cycle in 0..60_000u64 {
        // Mostly the key asked for one or two clocks ago (the engine looks the key peeked a
        // clock ago up and judges it the clock after); sometimes another (then nothing is
        // seen).
        let key_now = match rng.next_u64() % 5 {
            0 => pool(rng.next_u64()),
            1 | 2 => peeked[0],
            _ => peeked[1],
        };
        // Sometimes the same key two clocks running (as the engine holds it).
        let next = if rng.next_u64().is_multiple_of(3) {
            peeked[0]
        } else {
            pool(rng.next_u64())
        };
        peeked = [next, peeked[0]];
        let file = match rng.next_u64() % 10 {
            0..=2 => Some(pool(rng.next_u64())),
            // Back to back into the set just filed.
            3 => Some(last_file ^ 1 << 16 ^ 1),
            _ => None,
        };
        let file_key = file.unwrap_or(rng.next_u64() & 0xffff_ffff_ffff);
        let reset = cycle % 20_000 == 19_999;
        dut.set_key(key_now);
        dut.set_peek(next);
        dut.set_file(u64::from(file.is_some()));
        dut.set_file_key(file_key);
        dut.set_reset(u64::from(reset));
        dut.eval();
        let want = m.seen();
        assert_eq!(dut.seen() == 1, want, "cycle {cycle}: key {key_now:#x}");
        assert_eq!(dut.sweeping() == 1, !m.swept, "cycle {cycle}");
        seen += usize::from(want);
        dut.tick();
        m.edge(next, key_now, file, file_key, reset);
        if let Some(k) = file {
            last_file = k;
            files += 1;
        }
    }
    assert!(seen > 1_000 && files > 10_000, "{seen} seen, {files} files");
}

/// One communicator's last 1,024 single-segment operations are all remembered; the 1,025th
/// back makes room for the newest.
#[test]
fn the_last_1024_operations_of_a_communicator_are_remembered() {
    let mut dut = KeyHistory::default();
    let clock = |dut: &mut KeyHistory, peek: u64, key_now: u64, file: Option<u64>| {
        dut.set_peek(peek);
        dut.set_key(key_now);
        dut.set_file(u64::from(file.is_some()));
        dut.set_file_key(file.unwrap_or(0));
        dut.eval();
        let seen = dut.seen() == 1;
        dut.tick();
        seen
    };
    for _ in 0..SETS + 2 {
        clock(&mut dut, 0, 0, None);
    }
    assert_eq!(dut.sweeping(), 0);
    let ops = HISTORY_KEYS as u64 + 1;
    for op in 0..ops {
        clock(&mut dut, 0, 0, Some(key(7, op, 0)));
        clock(&mut dut, 0, 0, None);
    }
    // The last file is written four clocks after it was given (a `peek` then sees it).
    clock(&mut dut, 0, 0, None);
    clock(&mut dut, 0, 0, None);
    let mut asked = |k: u64| {
        clock(&mut dut, k, 0, None);
        clock(&mut dut, 0, k, None);
        clock(&mut dut, 0, k, None)
    };
    assert!(!asked(key(7, 0, 0)), "the oldest made room");
    assert!(asked(key(7, 1, 0)), "1,024 operations back");
    assert!(asked(key(7, ops - 1, 0)), "the newest");
    assert!(!asked(key(8, 1, 0)), "another communicator's");
}

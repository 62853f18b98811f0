//! Drives the Verilated CIPEs: a program of instructions with their input words, random gaps
//! and back-pressure, and a Rust model of the packet buffers built on `reduce::combine`.

use std::collections::VecDeque;

use collwire_hdl::cipe::{
    CIPE_LATENCY, InstrAhead, Instruction, Opcode, SLOT_BYTES, SLOTS, soon_clocks,
};
use collwire_proto::{Datatype, ReduceOp, reduce};

use crate::fpu_check::SplitMix;
use crate::models::{Cipe64, Cipe256};

/// Instructions with their input words.
pub type Program = Vec<(Instruction, Vec<Vec<u8>>)>;

/// Both CIPE widths behind one interface.
pub trait Cipe: Default {
    const BYTES: usize;
    /// Words per slot.
    const SLOT_WORDS: usize;
    fn ports(&mut self) -> &mut dyn CipePorts;
}

/// Port access common to both widths.
pub trait CipePorts {
    /// `instr`: the instruction word and its `s_instr_tuser` ([`InstrAhead`]).
    fn drive(&mut self, instr: Option<(u64, u16)>, word: Option<&[u8]>, ready: bool);
    fn eval(&mut self);
    fn tick(&mut self);
    fn instr_ready(&self) -> bool;
    fn in_ready(&self) -> bool;
    fn out(&self) -> Option<(Vec<u8>, u64, bool)>;
    fn busy(&self) -> bool;
    /// `m_axis_soon`: a result beat is on `m_axis` within [`soon_clocks`] clocks.
    fn soon(&self) -> bool;
}

macro_rules! cipe {
    ($ty:ty, $bytes:expr, $words:expr) => {
        impl Cipe for $ty {
            const BYTES: usize = $bytes;
            const SLOT_WORDS: usize = $words;
            fn ports(&mut self) -> &mut dyn CipePorts {
                self
            }
        }
        impl CipePorts for $ty {
            fn drive(&mut self, instr: Option<(u64, u16)>, word: Option<&[u8]>, ready: bool) {
                self.set_s_instr_tdata(instr.map_or(0, |i| i.0));
                self.set_s_instr_tuser(u64::from(instr.map_or(0, |i| i.1)));
                self.set_s_instr_tvalid(u64::from(instr.is_some()));
                if let Some(w) = word {
                    self.set_s_axis_tdata_bytes(w);
                }
                self.set_s_axis_tvalid(u64::from(word.is_some()));
                self.set_m_axis_tready(u64::from(ready));
            }
            fn eval(&mut self) {
                <$ty>::eval(self)
            }
            fn tick(&mut self) {
                <$ty>::tick(self)
            }
            fn instr_ready(&self) -> bool {
                self.s_instr_tready() == 1
            }
            fn in_ready(&self) -> bool {
                self.s_axis_tready() == 1
            }
            fn out(&self) -> Option<(Vec<u8>, u64, bool)> {
                (self.m_axis_tvalid() == 1).then(|| {
                    (
                        self.m_axis_tdata_bytes(),
                        self.m_axis_tinstr(),
                        self.m_axis_tlast() == 1,
                    )
                })
            }
            fn busy(&self) -> bool {
                self.busy() == 1
            }
            fn soon(&self) -> bool {
                self.m_axis_soon() == 1
            }
        }
    };
}

cipe!(Cipe64, 8, SLOT_BYTES / 8);
cipe!(Cipe256, 32, SLOT_BYTES / 32);

/// The buffers, as the hardware should hold them.
pub struct Model {
    slots: Vec<Vec<Vec<u8>>>,
}

impl Model {
    pub fn new(bytes: usize, words: usize) -> Model {
        Model {
            slots: vec![vec![vec![0; bytes]; words]; SLOTS],
        }
    }
    /// Runs one instruction over `input`; returns the emitted (word, last) beats.
    pub fn run(&mut self, i: &Instruction, input: &[Vec<u8>]) -> Vec<(Vec<u8>, bool)> {
        let dt = Datatype::from_code(i.datatype).unwrap();
        let op = ReduceOp::from_code(i.op).unwrap();
        let mut out = Vec::new();
        let none = vec![0u8; self.slots[0][0].len()];
        let words = self.slots[0].len();
        for j in 0..usize::from(i.count) {
            // Word indices wrap inside a buffer (the hardware keeps the buffer bits).
            let w = j % words;
            let a = self.slots[usize::from(i.slot_a)][w].clone();
            let b = self.slots[usize::from(i.slot_b)][w].clone();
            let incoming = input.get(j).unwrap_or(&none);
            let f = |x: &[u8], y: &[u8]| reduce::combine(dt, op, x, y).unwrap();
            let result = match i.opcode {
                Opcode::Input => incoming.clone(),
                Opcode::Buffer => a,
                Opcode::Combine if i.swap => f(incoming, &a),
                Opcode::Combine => f(&a, incoming),
                Opcode::Pair if i.swap => f(&b, &a),
                Opcode::Pair => f(&a, &b),
            };
            if i.store {
                self.slots[usize::from(i.slot_d)][w] = result.clone();
            }
            if i.emit {
                out.push((result, j + 1 == usize::from(i.count)));
            }
        }
        out
    }
}

/// What a driven program did.
pub struct Run {
    pub cycles: usize,
    /// Clocks on which a word was waiting but not taken.
    pub input_stalls: usize,
    /// (word, instruction, last) of every result beat.
    pub outputs: Vec<(Vec<u8>, u64, bool)>,
    /// Clock of the first and last result beat.
    pub first_out: Option<usize>,
    pub last_out: Option<usize>,
    /// Clock on which each instruction was taken, and on which each result beat left.
    pub taken: Vec<usize>,
    pub out_clocks: Vec<usize>,
}

/// Whether instruction `n` of a program comes with its [`InstrAhead`] (every one but each
/// fourth, as the CFE's pass that takes an arrival does; the others without, as its other
/// instructions).
pub fn has_ahead(n: usize) -> bool {
    n % 4 != 3
}

/// Drives the instructions and their input words; `idle`/`ready` in percent.
pub fn drive<C: Cipe>(
    program: &[(Instruction, Vec<Vec<u8>>)],
    idle: u64,
    ready: u64,
    seed: u64,
) -> Run {
    drive_with::<C>(program, idle, ready, seed, false)
}

/// [`drive`], each instruction offered only once the CIPE is idle with its pipeline empty
/// (`busy` low), as an engine at rest offers a pass.
pub fn drive_settled<C: Cipe>(program: &[(Instruction, Vec<Vec<u8>>)], seed: u64) -> Run {
    drive_with::<C>(program, 0, 100, seed, true)
}

fn drive_with<C: Cipe>(
    program: &[(Instruction, Vec<Vec<u8>>)],
    idle: u64,
    ready: u64,
    seed: u64,
    settle: bool,
) -> Run {
    let mut dut = C::default();
    let m = dut.ports();
    let mut rng = SplitMix(seed);
    // The count's derived values beside the instruction ([`has_ahead`]): the 256-bit CIPE,
    // idle, issues its first word on the instruction's clock; the others are registered first.
    let mut instrs: VecDeque<(u64, u16)> = program
        .iter()
        .enumerate()
        .map(|(n, (i, _))| {
            let ahead = if has_ahead(n) {
                InstrAhead::of(i.count)
            } else {
                0
            };
            (i.encode(), ahead)
        })
        .collect();
    let mut words: VecDeque<Vec<u8>> = program.iter().flat_map(|(_, w)| w.clone()).collect();
    let expected_out: usize = program
        .iter()
        .filter(|(i, _)| i.emit)
        .map(|(i, _)| usize::from(i.count))
        .sum();
    let mut run = Run {
        cycles: 0,
        input_stalls: 0,
        outputs: Vec::new(),
        first_out: None,
        last_out: None,
        taken: Vec::new(),
        out_clocks: Vec::new(),
    };
    let mut word_offered = false;
    let total_words = words.len();
    // `m_axis_soon`'s promise (the frame builder sends a header on it): a result beat within
    // `soon_clocks` clocks of it.
    let soon = soon_clocks(C::BYTES * 8);
    let mut promised: Option<usize> = None;
    let mut promises = 0;
    // Far more clocks than any legal schedule needs, even at 15 % output readiness.
    let limit = 20 * (total_words + expected_out + 10 * program.len()) + 10_000;
    while run.outputs.len() < expected_out || !words.is_empty() || !instrs.is_empty() {
        assert!(run.cycles < limit, "CIPE stalled");
        if !word_offered && !words.is_empty() {
            word_offered = rng.next_u64() % 100 >= idle;
        }
        let ready_now = rng.next_u64() % 100 < ready;
        let word = words.front().filter(|_| word_offered).cloned();
        // `busy` comes from registers and the output FIFO: what the last clock left.
        let offer = !settle || {
            m.eval();
            !m.busy()
        };
        let instr = instrs.front().copied().filter(|_| offer);
        m.drive(instr, word.as_deref(), ready_now);
        m.eval();
        if instr.is_some() && m.instr_ready() {
            instrs.pop_front();
            run.taken.push(run.cycles);
        }
        if word.is_some() {
            if m.in_ready() {
                words.pop_front();
                word_offered = false;
            } else if words.len() < total_words {
                // (The first word waits one clock for its instruction.)
                run.input_stalls += 1;
            }
        }
        if m.out().is_some() {
            promised = None;
        } else if let Some(by) = promised {
            assert!(
                run.cycles < by,
                "m_axis_soon promised a result by clock {by}"
            );
        }
        if m.soon() && promised.is_none() && m.out().is_none() {
            // Announced on clock t, the result is on `m_axis` by clock t + soon: the clock the
            // builder's last header beat has left.
            promised = Some(run.cycles + soon);
            promises += 1;
        }
        if ready_now && let Some(o) = m.out() {
            run.outputs.push(o);
            run.first_out.get_or_insert(run.cycles);
            run.last_out = Some(run.cycles);
            run.out_clocks.push(run.cycles);
        }
        m.tick();
        run.cycles += 1;
    }
    assert!(
        expected_out == 0 || promises > 0,
        "m_axis_soon never announced a result"
    );
    // Instructions that emit nothing (stores) may still run after the last result: wait for
    // the engine to go idle (a word a clock, at most a buffer's worth per instruction),
    // checking that nothing more comes out.
    let mut tail = 0;
    loop {
        m.drive(None, None, true);
        m.eval();
        assert!(m.out().is_none(), "an extra result");
        if !m.busy() && tail >= CIPE_LATENCY + 4 {
            break;
        }
        assert!(tail < 4 * 1024 + CIPE_LATENCY, "busy after the last result");
        m.tick();
        tail += 1;
    }
    run
}

pub fn random_word(rng: &mut SplitMix, bytes: usize) -> Vec<u8> {
    (0..bytes).map(|_| rng.next_u64() as u8).collect()
}

/// The result beats `program` must produce.
pub fn expect(
    program: &[(Instruction, Vec<Vec<u8>>)],
    bytes: usize,
    words: usize,
) -> Vec<(Vec<u8>, u64, bool)> {
    let mut model = Model::new(bytes, words);
    program
        .iter()
        .flat_map(|(i, input)| {
            model
                .run(i, input)
                .into_iter()
                .map(|(w, last)| (w, i.encode(), last))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `packets` back-to-back payloads of `payload_bytes`, f64 SUM: the first [`SLOTS`] load the
/// buffers, the rest combine into them in turn (store and emit), every fourth as a pair of two
/// stored buffers.
pub fn back_to_back_program<C: Cipe>(packets: usize, payload_bytes: usize, seed: u64) -> Program {
    let mut rng = SplitMix(seed);
    let count = (payload_bytes / C::BYTES) as u16;
    (0..packets)
        .map(|k| {
            let opcode = if k < SLOTS {
                Opcode::Input
            } else if k % 4 == 3 {
                Opcode::Pair
            } else {
                Opcode::Combine
            };
            let slot = (k % SLOTS) as u8;
            let i = Instruction {
                tag: (k % 4096) as u16,
                opcode,
                datatype: Datatype::F64.code(),
                op: ReduceOp::Sum.code(),
                slot_a: slot,
                slot_b: (slot + 1) % SLOTS as u8,
                slot_d: slot,
                swap: false,
                store: true,
                emit: true,
                count,
            };
            let input = if opcode.consumes_input() {
                (0..count)
                    .map(|_| random_word(&mut rng, C::BYTES))
                    .collect()
            } else {
                Vec::new()
            };
            (i, input)
        })
        .collect()
}

//! The CIPE through Verilator at both widths: random instruction streams (load, combine either
//! way round, send a buffer; store and/or emit; any slot; every datatype and op) against a Rust
//! model of the buffers built on `reduce::combine`, with random gaps and back-pressure; and
//! II = 1 over back-to-back full-size packets, counted exactly.

use std::collections::VecDeque;

use collwire_hdl::cipe::{CIPE_LATENCY, Instruction, Opcode, SLOTS, STORE_TO_READ};
use collwire_proto::{Datatype, ReduceOp, reduce};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::{Cipe64, Cipe256};

trait Cipe: Default {
    const BYTES: usize;
    /// Words per slot.
    const SLOT_WORDS: usize;
    fn ports(&mut self) -> &mut dyn CipePorts;
}

trait CipePorts {
    fn drive(&mut self, instr: Option<u64>, word: Option<&[u8]>, ready: bool);
    fn eval(&mut self);
    fn tick(&mut self);
    fn instr_ready(&self) -> bool;
    fn in_ready(&self) -> bool;
    fn out(&self) -> Option<(Vec<u8>, u64, bool)>;
    fn busy(&self) -> bool;
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
            fn drive(&mut self, instr: Option<u64>, word: Option<&[u8]>, ready: bool) {
                self.set_s_instr_tdata(instr.unwrap_or(0));
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
        }
    };
}

cipe!(Cipe64, 8, 2048);
cipe!(Cipe256, 32, 512);

/// The buffers, as the hardware should hold them.
struct Model {
    slots: Vec<Vec<Vec<u8>>>,
}

impl Model {
    fn new(bytes: usize, words: usize) -> Model {
        Model {
            slots: vec![vec![vec![0; bytes]; words]; SLOTS],
        }
    }
    /// Runs one instruction over `input`; returns the emitted (word, last) beats.
    fn run(&mut self, i: &Instruction, input: &[Vec<u8>]) -> Vec<(Vec<u8>, bool)> {
        let dt = Datatype::from_code(i.datatype).unwrap();
        let op = ReduceOp::from_code(i.op).unwrap();
        let mut out = Vec::new();
        let none = vec![0u8; self.slots[0][0].len()];
        for j in 0..usize::from(i.count) {
            let stored = self.slots[usize::from(i.slot)][j].clone();
            let incoming = input.get(j).unwrap_or(&none);
            let result = match i.opcode {
                Opcode::Input => incoming.clone(),
                Opcode::Buffer => stored,
                Opcode::Combine if i.swap => reduce::combine(dt, op, incoming, &stored).unwrap(),
                Opcode::Combine => reduce::combine(dt, op, &stored, incoming).unwrap(),
            };
            if i.store {
                self.slots[usize::from(i.slot)][j] = result.clone();
            }
            if i.emit {
                out.push((result, j + 1 == usize::from(i.count)));
            }
        }
        out
    }
}

struct Run {
    cycles: usize,
    /// Clocks on which a word was waiting but not taken.
    input_stalls: usize,
    outputs: Vec<(Vec<u8>, u64, bool)>,
}

/// Drives the instructions and their input words; `idle`/`ready` in percent.
fn drive<C: Cipe>(
    program: &[(Instruction, Vec<Vec<u8>>)],
    idle: u64,
    ready: u64,
    seed: u64,
) -> Run {
    let mut dut = C::default();
    let m = dut.ports();
    let mut rng = SplitMix(seed);
    let mut instrs: VecDeque<u64> = program.iter().map(|(i, _)| i.encode()).collect();
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
    };
    let mut word_offered = false;
    let total_words = words.len();
    while run.outputs.len() < expected_out || !words.is_empty() || !instrs.is_empty() {
        assert!(run.cycles < 2_000_000, "CIPE stalled");
        if !word_offered && !words.is_empty() {
            word_offered = rng.next_u64() % 100 >= idle;
        }
        let ready_now = rng.next_u64() % 100 < ready;
        let word = words.front().filter(|_| word_offered).cloned();
        m.drive(instrs.front().copied(), word.as_deref(), ready_now);
        m.eval();
        if !instrs.is_empty() && m.instr_ready() {
            instrs.pop_front();
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
        if ready_now && let Some(o) = m.out() {
            run.outputs.push(o);
        }
        m.tick();
        run.cycles += 1;
    }
    for _ in 0..CIPE_LATENCY + 4 {
        m.drive(None, None, true);
        m.eval();
        assert!(m.out().is_none(), "an extra result");
        m.tick();
    }
    m.eval();
    assert!(!m.busy(), "busy after the last result");
    run
}

fn random_word(rng: &mut SplitMix, bytes: usize) -> Vec<u8> {
    (0..bytes).map(|_| rng.next_u64() as u8).collect()
}

fn expect(
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

fn random_program<C: Cipe>(rng: &mut SplitMix, n: usize) -> Vec<(Instruction, Vec<Vec<u8>>)> {
    let pairs: Vec<(Datatype, ReduceOp)> = Datatype::supported()
        .flat_map(|d| {
            ReduceOp::supported()
                .filter(move |o| o.is_valid_for(d))
                .map(move |o| (d, o))
        })
        .collect();
    let max = 200u64;
    // Fill every slot first, so nothing depends on the RAM's power-up contents.
    let mut program: Vec<(Instruction, Vec<Vec<u8>>)> = (0..SLOTS as u8)
        .map(|slot| {
            let i = Instruction {
                msg_type: 0,
                dst_mask: 0,
                udp_port: 0,
                opcode: Opcode::Input,
                datatype: Datatype::Int32.code(),
                op: ReduceOp::Sum.code(),
                slot,
                swap: false,
                store: true,
                emit: false,
                count: max as u16,
            };
            (i, (0..max).map(|_| random_word(rng, C::BYTES)).collect())
        })
        .collect();
    for _ in 0..n {
        let (dt, op) = pairs[(rng.next_u64() % pairs.len() as u64) as usize];
        let opcode = [
            Opcode::Input,
            Opcode::Combine,
            Opcode::Combine,
            Opcode::Buffer,
        ][(rng.next_u64() % 4) as usize];
        let count = 1 + (rng.next_u64() % max) as u16;
        let i = Instruction {
            msg_type: rng.next_u64() as u8,
            dst_mask: rng.next_u64() as u8,
            udp_port: rng.next_u64() as u16,
            opcode,
            datatype: dt.code(),
            op: op.code(),
            slot: (rng.next_u64() % SLOTS as u64) as u8,
            swap: rng.next_u64() & 1 == 1,
            store: !rng.next_u64().is_multiple_of(3),
            emit: !rng.next_u64().is_multiple_of(4),
            count,
        };
        let input = if opcode.consumes_input() {
            (0..count).map(|_| random_word(rng, C::BYTES)).collect()
        } else {
            Vec::new()
        };
        program.push((i, input));
    }
    program
}

fn random_streams<C: Cipe>(seed: u64, idle: u64, ready: u64) {
    let mut rng = SplitMix(seed);
    let program = random_program::<C>(&mut rng, 300);
    let want = expect(&program, C::BYTES, C::SLOT_WORDS);
    let run = drive::<C>(&program, idle, ready, seed);
    assert_eq!(run.outputs.len(), want.len());
    for (k, (got, exp)) in run.outputs.iter().zip(&want).enumerate() {
        assert!(
            got == exp,
            "result beat {k}: got {got:02x?}\nwant {exp:02x?}"
        );
    }
}

/// Back-to-back full-size packets (MTU 1500 and 9000 segments), every one combined into a
/// different slot: the input never waits and a result leaves on every clock.
fn back_to_back<C: Cipe>(payload_bytes: usize) {
    let mut rng = SplitMix(5);
    let count = (payload_bytes / C::BYTES) as u16;
    let mut program = Vec::new();
    for k in 0..16u8 {
        let i = Instruction {
            msg_type: 1,
            dst_mask: 1,
            udp_port: 7,
            opcode: if k < SLOTS as u8 {
                Opcode::Input
            } else {
                Opcode::Combine
            },
            datatype: Datatype::F64.code(),
            op: ReduceOp::Sum.code(),
            slot: k % SLOTS as u8,
            swap: false,
            store: true,
            emit: true,
            count,
        };
        program.push((
            i,
            (0..count)
                .map(|_| random_word(&mut rng, C::BYTES))
                .collect(),
        ));
    }
    let want = expect(&program, C::BYTES, C::SLOT_WORDS);
    let run = drive::<C>(&program, 0, 100, 1);
    assert_eq!(run.outputs, want);
    let words = 16 * usize::from(count);
    println!(
        "{} bytes/word, {words} words in {} clocks, {} input stalls",
        C::BYTES,
        run.cycles,
        run.input_stalls
    );
    assert_eq!(run.input_stalls, 0, "II = 1: the input never waits");
    // A word issues on every clock; the last result leaves CIPE_LATENCY clocks after the last
    // word went in (one more clock for the instruction to arrive at the start).
    assert_eq!(
        run.cycles,
        words + CIPE_LATENCY + 1,
        "clocks for {words} words"
    );
}

/// The same slot back to back (each packet combines into the previous result): a read waits
/// for the store in flight, at most STORE_TO_READ clocks per packet, and results stay exact.
fn same_slot<C: Cipe>() {
    let mut rng = SplitMix(9);
    let mut program = Vec::new();
    for k in 0..20u16 {
        let count = 1 + k % 4;
        let i = Instruction {
            msg_type: 0,
            dst_mask: 0,
            udp_port: 0,
            opcode: if k == 0 {
                Opcode::Input
            } else {
                Opcode::Combine
            },
            datatype: Datatype::Int64.code(),
            op: ReduceOp::Sum.code(),
            slot: 3,
            swap: false,
            store: true,
            emit: true,
            count: if k == 0 { 4 } else { count },
        };
        let n = usize::from(i.count);
        program.push((i, (0..n).map(|_| random_word(&mut rng, C::BYTES)).collect()));
    }
    let want = expect(&program, C::BYTES, C::SLOT_WORDS);
    let run = drive::<C>(&program, 0, 100, 2);
    assert_eq!(run.outputs, want);
    assert!(
        run.input_stalls <= 19 * STORE_TO_READ,
        "{} stalls",
        run.input_stalls
    );
}

#[test]
fn random_instruction_streams_64() {
    random_streams::<Cipe64>(1, 20, 70);
}
#[test]
fn random_instruction_streams_256() {
    random_streams::<Cipe256>(2, 20, 70);
}
#[test]
fn random_instruction_streams_under_back_pressure_64() {
    random_streams::<Cipe64>(3, 0, 15);
}
#[test]
fn random_instruction_streams_under_back_pressure_256() {
    random_streams::<Cipe256>(4, 0, 15);
}
#[test]
fn ii_1_over_back_to_back_full_packets_64() {
    back_to_back::<Cipe64>(1440);
    back_to_back::<Cipe64>(9152);
}
#[test]
fn ii_1_over_back_to_back_full_packets_256() {
    back_to_back::<Cipe256>(1440);
    back_to_back::<Cipe256>(9152);
}
#[test]
fn same_slot_read_after_write_64() {
    same_slot::<Cipe64>();
}
#[test]
fn same_slot_read_after_write_256() {
    same_slot::<Cipe256>();
}

//! The CIPE through Verilator at both widths: random instruction streams (load, combine either
//! way round, pairs of two stored buffers, send a buffer; store and/or emit; any buffers; every
//! datatype and op) against a Rust
//! model of the buffers built on `reduce::combine`, with random gaps and back-pressure; and
//! II = 1 over back-to-back full-size packets, counted exactly.

use collwire_hdl::cipe::{CIPE_LATENCY, Instruction, Opcode, SLOT_BYTES, SLOTS, STORE_TO_READ};
use collwire_proto::{Datatype, ReduceOp};
use collwire_sim::cipe_check::{Cipe, back_to_back_program, drive, expect, random_word};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::{Cipe64, Cipe256};

fn random_program<C: Cipe>(rng: &mut SplitMix, n: usize) -> Vec<(Instruction, Vec<Vec<u8>>)> {
    let pairs: Vec<(Datatype, ReduceOp)> = ReduceOp::supported_pairs();
    let max = C::SLOT_WORDS as u64;
    // Fill every buffer first, so nothing depends on the RAM's power-up contents.
    let mut program: Vec<(Instruction, Vec<Vec<u8>>)> = (0..SLOTS as u8)
        .map(|slot| {
            let i = Instruction {
                tag: 0,
                opcode: Opcode::Input,
                datatype: Datatype::Int32.code(),
                op: ReduceOp::Sum.code(),
                slot_a: 0,
                slot_b: 0,
                slot_d: slot,
                swap: false,
                store: true,
                emit: false,
                count: max as u16,
            };
            (i, (0..max).map(|_| random_word(rng, C::BYTES)).collect())
        })
        .collect();
    // Operands mostly from a few buffers, so reads often follow stores into the same buffer.
    let slot = |rng: &mut SplitMix| {
        if rng.next_u64().is_multiple_of(4) {
            (rng.next_u64() % SLOTS as u64) as u8
        } else {
            (rng.next_u64() % 4) as u8
        }
    };
    for _ in 0..n {
        let (dt, op) = pairs[(rng.next_u64() % pairs.len() as u64) as usize];
        let opcode = [
            Opcode::Input,
            Opcode::Combine,
            Opcode::Combine,
            Opcode::Buffer,
            Opcode::Pair,
            Opcode::Pair,
        ][(rng.next_u64() % 6) as usize];
        let count = 1 + (rng.next_u64() % max) as u16;
        let i = Instruction {
            tag: (rng.next_u64() % 4096) as u16,
            opcode,
            datatype: dt.code(),
            op: op.code(),
            slot_a: slot(rng),
            slot_b: slot(rng),
            slot_d: slot(rng),
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

/// Back-to-back full-size packets (an MTU 1500 segment, and a full buffer): loads of every
/// buffer, then combines and pairs into them: a word issues on every clock, so the input only
/// waits while a pair (which takes no input) streams.
fn back_to_back<C: Cipe>(payload_bytes: usize) {
    let packets = SLOTS + 16;
    let program = back_to_back_program::<C>(packets, payload_bytes, 5);
    let count = payload_bytes / C::BYTES;
    let want = expect(&program, C::BYTES, C::SLOT_WORDS);
    let run = drive::<C>(&program, 0, 100, 1);
    assert_eq!(run.outputs, want);
    let words = packets * count;
    let pair_words: usize = program
        .iter()
        .filter(|(i, _)| i.opcode == Opcode::Pair)
        .map(|(i, _)| usize::from(i.count))
        .sum();
    println!(
        "{} bytes/word, {words} words in {} clocks, {} input stalls",
        C::BYTES,
        run.cycles,
        run.input_stalls
    );
    assert!(pair_words > 0);
    assert!(
        run.input_stalls <= pair_words,
        "the input waited {} clocks, pairs took {pair_words}",
        run.input_stalls
    );
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
            tag: k,
            opcode: if k == 0 {
                Opcode::Input
            } else {
                Opcode::Combine
            },
            datatype: Datatype::Int64.code(),
            op: ReduceOp::Sum.code(),
            slot_a: 3,
            slot_b: 0,
            slot_d: 3,
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
    back_to_back::<Cipe64>(SLOT_BYTES);
}
#[test]
fn ii_1_over_back_to_back_full_packets_256() {
    back_to_back::<Cipe256>(1440);
    back_to_back::<Cipe256>(SLOT_BYTES);
}
#[test]
fn same_slot_read_after_write_64() {
    same_slot::<Cipe64>();
}
#[test]
fn same_slot_read_after_write_256() {
    same_slot::<Cipe256>();
}

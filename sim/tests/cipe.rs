//! The CIPE through Verilator at both widths: random instruction streams (load, combine either
//! way round, pairs of two stored buffers, send a buffer; store and/or emit; any buffers; every
//! datatype and op) against a Rust
//! model of the buffers built on `reduce::combine`, with random gaps and back-pressure; and
//! II = 1 over back-to-back full-size packets, counted exactly. Every fourth instruction comes
//! without its `InstrAhead`, so the 256-bit CIPE's first-word fast path and its registered path
//! both run.

use collwire_hdl::cipe::{
    CIPE_LATENCY, Instruction, Opcode, SLOT_BYTES, SLOTS, STORE_TO_READ, fast_first,
};
use collwire_proto::{Datatype, ReduceOp};
use collwire_sim::cipe_check::{
    Cipe, back_to_back_program, drive, drive_settled, expect, has_ahead, random_word,
};
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
    // word went in. The first word issues on the clock its instruction arrives (the CIPE is
    // idle then, and the first instruction comes with its `InstrAhead`) at 256 bits
    // (`fast_first`); at 64 a clock later, once the instruction is in.
    let first_wait = usize::from(!fast_first(C::BYTES * 8));
    assert_eq!(
        run.cycles,
        words + CIPE_LATENCY + first_wait,
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

/// Each instruction offered to an idle CIPE with its pipeline empty (an engine at rest), of 1
/// to 5 words and every opcode: the results are exact, and the first result of each leaves
/// `CIPE_LATENCY` clocks after the instruction was taken where the first word issues on the
/// instruction's clock (256 bits, with its `InstrAhead`: the count's derived values then set
/// what follows the first word), one clock later otherwise.
fn idle_first_word<C: Cipe>() {
    let mut rng = SplitMix(11);
    let mut program = Vec::new();
    let plain = |tag: u16, opcode, count| Instruction {
        tag,
        opcode,
        datatype: Datatype::F64.code(),
        op: ReduceOp::Sum.code(),
        slot_a: 5,
        slot_b: 6,
        slot_d: 5,
        swap: false,
        store: false,
        emit: true,
        count,
    };
    for (tag, slot) in [(0, 5), (1, 6)] {
        let i = Instruction {
            slot_d: slot,
            store: true,
            ..plain(tag, Opcode::Input, 5)
        };
        program.push(i);
    }
    for k in 2..26u16 {
        let count = 1 + k % 5;
        let i = match k % 4 {
            0 => Instruction {
                store: true,
                ..plain(k, Opcode::Combine, count)
            },
            1 => plain(k, Opcode::Buffer, count),
            2 => Instruction {
                slot_d: 7,
                store: true,
                swap: true,
                ..plain(k, Opcode::Pair, count)
            },
            _ => Instruction {
                datatype: Datatype::Int32.code(),
                op: ReduceOp::Max.code(),
                swap: true,
                ..plain(k, Opcode::Combine, count)
            },
        };
        program.push(i);
    }
    let program: Vec<_> = program
        .into_iter()
        .map(|i| {
            let n = if i.opcode.consumes_input() {
                usize::from(i.count)
            } else {
                0
            };
            (i, (0..n).map(|_| random_word(&mut rng, C::BYTES)).collect())
        })
        .collect();
    let want = expect(&program, C::BYTES, C::SLOT_WORDS);
    let run = drive_settled::<C>(&program, 3);
    assert_eq!(run.outputs, want);
    assert_eq!(run.taken.len(), program.len());
    let mut beat = 0;
    for (k, (i, _)) in program.iter().enumerate() {
        let fast = fast_first(C::BYTES * 8) && has_ahead(k);
        assert_eq!(
            run.out_clocks[beat],
            run.taken[k] + CIPE_LATENCY + usize::from(!fast),
            "instruction {k} ({} words): first result",
            i.count
        );
        beat += usize::from(i.count);
    }
}

#[test]
fn an_idle_cipe_issues_the_first_word_at_once_64() {
    idle_first_word::<Cipe64>();
}
#[test]
fn an_idle_cipe_issues_the_first_word_at_once_256() {
    idle_first_word::<Cipe256>();
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

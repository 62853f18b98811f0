//! Offload parser stage 2 through Verilator, differential against `frame::classify`: valid
//! offload frames with every code, then mutated ones (bit flips anywhere in the first 64 bytes,
//! wrong IP/UDP lengths, truncation, Ethernet padding, odd comm sizes and ranks per host). The
//! verdict (pass-through / offload / malformed), the `unsupported` flag and every decoded field
//! must match. The classifier judges a frame from its header, before its end: for a frame of
//! 64 bytes or more the model is `classify` of the frame padded to its IPv4 length (the check
//! that the frame holds that length is the capture's, `sim/tests/header_capture.rs`); a shorter
//! frame is classified at its end, with its length. Bytes the capture holds past a short frame
//! are stale in hardware, so they are random here.
//! A valid offload frame's program directory index (`dir_index`, which the engine reads its
//! directory at) must be `cfe_config::directory_index` of its algorithm, kind and boards, for
//! one and two ranks per host and 1 to 64 boards. The header's ranks-per-host byte is also
//! given a clock ahead (`ranks_per_host_next`, as the capture gives it): a wrong one gives a
//! wrong divisibility verdict.

use collwire_hdl::cfe_config::{Kind, directory_index};
use collwire_hdl::header_fields::RANKS_PER_HOST_BYTE;
use collwire_hdl::offload_classifier::{CLASSIFY_LATENCY, EARLY_LATENCY};
use collwire_proto::frame::{FrameKind, classify};
use collwire_proto::{Collective, limits};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{RawFields, frame_fields, mutate, offload_frame};
use collwire_sim::models::OffloadClassifier;

#[derive(Debug, PartialEq, Eq)]
struct Verdict {
    offload: bool,
    malformed: bool,
    unsupported: bool,
    /// The decoded record (packed as the hardware packs it) and the payload length.
    fields: Option<(Vec<u8>, u64)>,
}

/// The directory index of a valid offload frame whose ranks per host the engine supports (1
/// or 2; `unsupported` otherwise, and its index unused), with its boards.
fn expected_dir(frame: &[u8]) -> Option<(u64, usize)> {
    let mut frame = frame.to_vec();
    if frame.len() >= 64 {
        let total = usize::from(u16::from_be_bytes([frame[16], frame[17]]));
        frame.resize(frame.len().max(total + 14), 0);
    }
    let FrameKind::Offload { repr, .. } = classify(&frame) else {
        return None;
    };
    let rph = usize::from(repr.ranks_per_host);
    let boards = usize::from(repr.comm_size) / rph;
    ((1..=2).contains(&rph) && (1..=limits::MAX_BOARDS).contains(&boards)).then(|| {
        let kind = if repr.collective == Collective::Scan {
            Kind::Scan
        } else {
            Kind::Reduction
        };
        (directory_index(repr.algorithm, kind, boards) as u64, boards)
    })
}

fn expected(frame: &[u8]) -> Verdict {
    let mut frame = frame.to_vec();
    if frame.len() >= 64 {
        let total = usize::from(u16::from_be_bytes([frame[16], frame[17]]));
        frame.resize(frame.len().max(total + 14), 0);
    }
    match classify(&frame) {
        FrameKind::PassThrough => Verdict {
            offload: false,
            malformed: false,
            unsupported: false,
            fields: None,
        },
        FrameKind::Malformed(_) => Verdict {
            offload: false,
            malformed: true,
            unsupported: false,
            fields: None,
        },
        FrameKind::Offload {
            endpoints,
            repr,
            payload,
        } => {
            let raw = RawFields {
                msg_type: repr.msg_type.code(),
                op_id: repr.op_id,
                collective: repr.collective.code(),
                algorithm: repr.algorithm.code(),
                datatype: repr.datatype.code(),
                op: repr.op.code(),
                comm_id: repr.comm_id,
                comm_size: repr.comm_size,
                rank: repr.rank,
                root: repr.root,
                ranks_per_host: repr.ranks_per_host,
                attempt: repr.attempt,
                seg_index: repr.seg_index,
                seg_count: repr.seg_count,
                elem_count: repr.elem_count,
            };
            Verdict {
                offload: true,
                malformed: false,
                unsupported: repr.check_supported().is_err(),
                fields: Some((
                    frame_fields(&endpoints, &raw).to_le_bytes(),
                    payload.len() as u64,
                )),
            }
        }
    }
}

/// Everything the classifier says about a frame: (valid, offload, unsupported, fields,
/// payload length, directory index), as registered, or as the early outputs say it.
type Said = (u64, u64, u64, Vec<u8>, u64, u64);
fn registered(m: &OffloadClassifier) -> Said {
    (
        m.verdict_valid(),
        m.offload(),
        m.unsupported(),
        m.fields_bytes(),
        m.payload_len(),
        m.dir_index(),
    )
}
fn early(m: &OffloadClassifier) -> Said {
    (
        m.early_valid(),
        m.early_offload(),
        m.early_unsupported(),
        m.early_fields_bytes(),
        m.early_payload_len(),
        m.early_dir_index(),
    )
}

fn observed(m: &OffloadClassifier) -> Verdict {
    let offload = m.offload() == 1;
    Verdict {
        offload,
        malformed: m.malformed() == 1,
        unsupported: m.unsupported() == 1,
        fields: offload.then(|| (m.fields_bytes(), m.payload_len())),
    }
}

/// The captured view of `frame`: its first 64 bytes, stale (random) bytes past its end.
fn captured(frame: &[u8], rng: &mut SplitMix) -> Vec<u8> {
    (0..64)
        .map(|i| frame.get(i).copied().unwrap_or(rng.next_u64() as u8))
        .collect()
}

#[test]
fn verdicts_and_fields_match_classify() {
    let count: usize = std::env::var("COLLWIRE_CLASSIFIER_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let mut rng = SplitMix(0xc1a5);
    let mut m = OffloadClassifier::new();
    let mut pending = std::collections::VecDeque::new();
    let mut seen = [0usize; 4];
    let mut dir_checked = 0usize;
    let mut boards_seen = std::collections::BTreeSet::new();
    let mut early_before: Option<Said> = None;
    let frame = |rng: &mut SplitMix| {
        let mut f = offload_frame(rng);
        mutate(rng, &mut f);
        let c = captured(&f, rng);
        (f, c)
    };
    // The ranks-per-host byte goes in a clock ahead of the header, as the capture gives it
    // (`ranks_per_host_next`): the classifier reads its divisor table with it.
    let mut next = frame(&mut rng);
    m.set_ranks_per_host_next(u64::from(next.1[RANKS_PER_HOST_BYTE]));
    m.eval();
    m.tick();
    for i in 0..count + CLASSIFY_LATENCY {
        if i < count {
            let (f, c) = std::mem::replace(&mut next, frame(&mut rng));
            m.set_header_bytes(&c);
            m.set_ranks_per_host_next(u64::from(next.1[RANKS_PER_HOST_BYTE]));
            m.set_frame_len(f.len() as u64);
            m.set_short_frame(u64::from(f.len() < 64));
            m.set_start(1);
            pending.push_back(f);
        } else {
            m.set_start(0);
        }
        m.eval();
        // The early outputs (the 256-bit router's verdict queue reads them) say a clock ahead
        // exactly what the registered ones say.
        assert_eq!(
            m.early_valid(),
            u64::from((EARLY_LATENCY..count + EARLY_LATENCY).contains(&i))
        );
        if let Some(e) = early_before.replace(early(&m)) {
            assert_eq!(e, registered(&m), "the early verdict, a clock later");
        }
        if i >= CLASSIFY_LATENCY {
            assert_eq!(
                m.verdict_valid(),
                1,
                "verdict {CLASSIFY_LATENCY} clocks after start"
            );
            let f = pending.pop_front().unwrap();
            let want = expected(&f);
            seen[usize::from(want.offload) * 2
                + usize::from(want.malformed)
                + usize::from(want.unsupported)] += 1;
            assert_eq!(observed(&m), want, "frame {f:02x?}");
            if let Some((dir, boards)) = expected_dir(&f) {
                assert_eq!(m.dir_index(), dir, "directory index, frame {f:02x?}");
                dir_checked += 1;
                boards_seen.insert(boards);
            }
        } else {
            assert_eq!(m.verdict_valid(), 0);
        }
        m.tick();
    }
    println!(
        "pass-through {}, malformed {}, offload {}, unsupported {}",
        seen[0], seen[1], seen[2], seen[3]
    );
    // Every class is exercised, and the directory index at every board count.
    assert!(seen.iter().all(|&n| n > count / 50), "{seen:?}");
    println!("directory index checked on {dir_checked} frames");
    assert!(dir_checked > count / 20, "{dir_checked}");
    if count >= 10_000 {
        assert_eq!(boards_seen.len(), limits::MAX_BOARDS, "{boards_seen:?}");
    }
}

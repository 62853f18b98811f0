//! Offload parser stage 2 through Verilator, differential against `frame::classify`: valid
//! offload frames with every code, then mutated ones (bit flips anywhere in the first 64 bytes,
//! wrong IP/UDP lengths, truncation, Ethernet padding, odd comm sizes and ranks per host). The
//! verdict (pass-through / offload / malformed), the `unsupported` flag and every decoded field
//! must match. Bytes the capture holds past a short frame are stale in hardware, so they are
//! random here.

use collwire_hdl::offload_classifier::CLASSIFY_LATENCY;
use collwire_proto::frame::{FrameKind, classify};
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::frames::{mutate, offload_frame};
use collwire_sim::models::OffloadClassifier;

#[derive(Debug, PartialEq, Eq)]
struct Verdict {
    offload: bool,
    malformed: bool,
    unsupported: bool,
    fields: Option<Vec<u64>>,
}

fn expected(frame: &[u8]) -> Verdict {
    match classify(frame) {
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
            let le = |b: &[u8]| b.iter().rev().fold(0u64, |v, &x| v << 8 | u64::from(x));
            Verdict {
                offload: true,
                malformed: false,
                unsupported: repr.check_supported().is_err(),
                fields: Some(vec![
                    le(&endpoints.dst_mac),
                    le(&endpoints.src_mac),
                    le(&endpoints.src_ip),
                    le(&endpoints.dst_ip),
                    endpoints.src_port.into(),
                    repr.msg_type.code().into(),
                    repr.op_id.into(),
                    repr.collective.code().into(),
                    repr.algorithm.code().into(),
                    repr.datatype.code().into(),
                    repr.op.code().into(),
                    repr.comm_id.into(),
                    repr.comm_size.into(),
                    repr.rank.into(),
                    repr.root.into(),
                    repr.ranks_per_host.into(),
                    repr.attempt.into(),
                    repr.seg_index.into(),
                    repr.seg_count.into(),
                    repr.elem_count.into(),
                    payload.len() as u64,
                ]),
            }
        }
    }
}

fn observed(m: &OffloadClassifier) -> Verdict {
    let offload = m.offload() == 1;
    Verdict {
        offload,
        malformed: m.malformed() == 1,
        unsupported: m.unsupported() == 1,
        fields: offload.then(|| {
            vec![
                m.dst_mac(),
                m.src_mac(),
                m.src_ip(),
                m.dst_ip(),
                m.src_port(),
                m.msg_type(),
                m.op_id(),
                m.collective(),
                m.algorithm(),
                m.datatype(),
                m.op(),
                m.comm_id(),
                m.comm_size(),
                m.rank(),
                m.root(),
                m.ranks_per_host(),
                m.attempt(),
                m.seg_index(),
                m.seg_count(),
                m.elem_count(),
                m.payload_len(),
            ]
        }),
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
    for i in 0..count + CLASSIFY_LATENCY {
        if i < count {
            let mut f = offload_frame(&mut rng);
            mutate(&mut rng, &mut f);
            m.set_header_bytes(&captured(&f, &mut rng));
            m.set_frame_len(f.len() as u64);
            m.set_frame_done(1);
            pending.push_back(f);
        } else {
            m.set_frame_done(0);
        }
        m.eval();
        if i >= CLASSIFY_LATENCY {
            assert_eq!(
                m.verdict_valid(),
                1,
                "verdict {CLASSIFY_LATENCY} clocks after frame_done"
            );
            let f = pending.pop_front().unwrap();
            let want = expected(&f);
            seen[usize::from(want.offload) * 2
                + usize::from(want.malformed)
                + usize::from(want.unsupported)] += 1;
            assert_eq!(observed(&m), want, "frame {f:02x?}");
        } else {
            assert_eq!(m.verdict_valid(), 0);
        }
        m.tick();
    }
    println!(
        "pass-through {}, malformed {}, offload {}, unsupported {}",
        seen[0], seen[1], seen[2], seen[3]
    );
    // Every class is exercised.
    assert!(seen.iter().all(|&n| n > count / 50), "{seen:?}");
}

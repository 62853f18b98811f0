//! Offload parser stage 2 through Verilator, differential against `frame::classify`: valid
//! offload frames with every code, then mutated ones (bit flips anywhere in the first 64 bytes,
//! wrong IP/UDP lengths, truncation, Ethernet padding, odd comm sizes and ranks per host). The
//! verdict (pass-through / offload / malformed), the `unsupported` flag and every decoded field
//! must match. Bytes the capture holds past a short frame are stale in hardware, so they are
//! random here.

use collwire_hdl::offload_classifier::CLASSIFY_LATENCY;
use collwire_proto::frame::{Endpoints, FrameKind, build_frame, classify};
use collwire_proto::*;
use collwire_sim::fpu_check::SplitMix;
use collwire_sim::models::OffloadClassifier;

fn pick<T: Copy>(rng: &mut SplitMix, all: &[T]) -> T {
    all[(rng.next_u64() % all.len() as u64) as usize]
}

fn random_frame(rng: &mut SplitMix) -> Vec<u8> {
    let r = |rng: &mut SplitMix, n: u64| rng.next_u64() % n;
    let datatype = pick(rng, Datatype::ALL);
    let valid_ops: Vec<ReduceOp> = ReduceOp::ALL
        .iter()
        .copied()
        .filter(|o| o.is_valid_for(datatype))
        .collect();
    let msg_type = pick(rng, MessageType::ALL);
    let collective = pick(rng, Collective::ALL);
    let rph = 1 + r(rng, 4) as u8;
    let comm_size = u16::from(rph) * (1 + r(rng, 16) as u16);
    let seg_count = 1 + r(rng, 5) as u16;
    let no_data = matches!(
        msg_type,
        MessageType::Nack | MessageType::Ack | MessageType::Error
    ) || !collective.carries_data();
    let repr = OffloadRepr {
        msg_type,
        op_id: rng.next_u64() as u16,
        collective,
        algorithm: pick(rng, Algorithm::ALL),
        datatype,
        op: pick(rng, &valid_ops),
        comm_id: rng.next_u64() as u16,
        comm_size,
        rank: r(rng, u64::from(comm_size)) as u16,
        root: r(rng, u64::from(comm_size)) as u16,
        ranks_per_host: rph,
        attempt: rng.next_u64() as u8,
        seg_index: r(rng, u64::from(seg_count)) as u16,
        seg_count,
        elem_count: if no_data { 0 } else { r(rng, 200) as u16 },
    };
    let payload: Vec<u8> = (0..repr.payload_len())
        .map(|_| rng.next_u64() as u8)
        .collect();
    let ep = Endpoints {
        src_mac: std::array::from_fn(|_| rng.next_u64() as u8),
        dst_mac: std::array::from_fn(|_| rng.next_u64() as u8),
        src_ip: std::array::from_fn(|_| rng.next_u64() as u8),
        dst_ip: std::array::from_fn(|_| rng.next_u64() as u8),
        src_port: rng.next_u64() as u16,
        dst_port: OFFLOAD_UDP_PORT,
    };
    build_frame(&ep, &repr.to_datagram(&payload).expect("valid repr")).unwrap()
}

fn set16(f: &mut [u8], at: usize, v: u16) {
    if f.len() >= at + 2 {
        f[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
}

/// One of several mutations, or none.
fn mutate(rng: &mut SplitMix, f: &mut Vec<u8>) {
    let r = |rng: &mut SplitMix, n: u64| rng.next_u64() % n;
    match r(rng, 10) {
        0 | 1 => {} // valid
        2 => {
            let at = r(rng, 64.min(f.len() as u64)) as usize;
            f[at] ^= 1 << r(rng, 8);
        }
        3 => {
            let at = 42 + r(rng, 22) as usize;
            if at < f.len() {
                f[at] = rng.next_u64() as u8;
            }
        }
        4 => {
            let total = u16::from_be_bytes([f[16], f[17]]);
            let v = match r(rng, 4) {
                0 => 0,
                1 => total.wrapping_add(1 + r(rng, 3) as u16),
                2 => total.wrapping_sub(1 + r(rng, 30) as u16),
                _ => rng.next_u64() as u16,
            };
            set16(f, 16, v);
        }
        5 => {
            let udp = u16::from_be_bytes([f[38], f[39]]);
            let v = match r(rng, 4) {
                0 => 0,
                1 => udp.wrapping_add(1 + r(rng, 3) as u16),
                2 => udp.wrapping_sub(1 + r(rng, 30) as u16),
                _ => r(rng, 8) as u16,
            };
            set16(f, 38, v);
        }
        6 => {
            let keep = r(rng, f.len() as u64 + 1) as usize;
            f.truncate(keep);
        }
        7 => {
            let extra = r(rng, 40) as usize;
            f.extend((0..extra).map(|_| rng.next_u64() as u8));
        }
        8 => {
            // Odd sizes and ranks per host: exercises the division.
            set16(f, 50, rng.next_u64() as u16 >> r(rng, 16));
            if f.len() > 56 {
                f[56] = rng.next_u64() as u8 >> r(rng, 8);
            }
            let size = u16::from_be_bytes([f[50], f[51]]);
            set16(f, 52, (rng.next_u64() % u64::from(size.max(1))) as u16);
            set16(f, 54, 0);
        }
        _ => {
            // Not a candidate in one way or another.
            match r(rng, 5) {
                0 => set16(f, 12, 0x86dd),
                1 => f[14] = 0x46,
                2 => set16(f, 20, 0x2000),
                3 => f[23] = 6,
                _ => set16(f, 36, OFFLOAD_UDP_PORT ^ 1),
            }
        }
    }
}

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
            let mut f = random_frame(&mut rng);
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

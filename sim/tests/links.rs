//! The cluster's link model (`sim/src/links.rs`): wire time at the line rate, latency, faults,
//! receive FIFOs.

use collwire_sim::axis::{Beat, MAC_BAD, beats};
use collwire_sim::links::{Faults, LinkModel, RxFifo, TxLink, rate_matched_start};
use proptest::prelude::*;

/// Sends `frames` back to back (each as soon as the MAC is ready) and returns what arrived.
fn send_all(link: &mut TxLink, frames: &[Vec<u8>], bytes: usize) -> Vec<(u64, Beat)> {
    let mut out = Vec::new();
    let mut now = 0;
    for f in frames {
        for beat in beats(f, bytes, 0) {
            while !link.ready(now) {
                now += 1;
            }
            link.send(now, beat, &mut out);
            now += 1;
        }
    }
    link.poll(now + 1_000_000, &mut out);
    out
}

/// The arrived beats cut into frames (each ends with a `last` beat), with each frame's bad mark.
fn frames_of(arrived: &[(u64, Beat)]) -> Vec<(Vec<u8>, bool)> {
    let mut frames = Vec::new();
    let mut cur = Vec::new();
    for (_, b) in arrived {
        cur.extend_from_slice(&b.data[..b.keep.trailing_ones() as usize]);
        if b.last {
            frames.push((std::mem::take(&mut cur), b.user & MAC_BAD != 0));
        }
    }
    assert!(cur.is_empty(), "a frame without its last beat");
    frames
}

#[test]
fn a_1g_link_takes_a_clock_per_byte_with_preamble_fcs_and_gap() {
    let model = LinkModel::target(64, Faults::NONE, Faults::NONE, 1);
    // 400 ns of PHY and cable at 125 MHz.
    assert_eq!(model.cable.latency_cycles, 50);
    let mut link = TxLink::new(&model, model.cable, 0);
    let frame: Vec<u8> = (0..100u8).collect();
    let mut out = Vec::new();
    for beat in beats(&frame, 8, 0) {
        link.send(0, beat, &mut out);
    }
    // Preamble 8, then 8 bytes a beat; the last beat (4 bytes) carries the FCS too.
    let times: Vec<u64> = out.iter().map(|(t, _)| *t).collect();
    let want: Vec<u64> = (1..=12)
        .map(|k| 8 + 8 * k + 50)
        .chain([8 + 100 + 4 + 50])
        .collect();
    assert_eq!(times, want);
    // The wire is busy for the frame, its FCS and the inter-frame gap.
    assert!(!link.ready(123));
    assert!(link.ready(124));
}

#[test]
fn a_short_frame_is_padded_on_the_wire_and_10g_moves_a_256_bit_word_in_5_clocks() {
    let model = LinkModel::target(256, Faults::NONE, Faults::NONE, 1);
    // 10 Gb/s at 200 MHz: 0.16 clocks a byte; 150 ns of latency.
    assert_eq!(model.cable.latency_cycles, 30);
    let mut link = TxLink::new(&model, model.cable, 0);
    let mut out = Vec::new();
    for beat in beats(&[1u8; 20], 32, 0) {
        link.send(0, beat, &mut out);
    }
    // Preamble 8 + 60 padded + 4 FCS = 72 bytes = 11.52 clocks, then the gap (12 bytes).
    assert_eq!(out[0].0, 12 + 30);
    assert!(!link.ready(12));
    assert!(link.ready(13));
    let frames: Vec<Vec<u8>> = (0..4).map(|i| vec![i; 1000]).collect();
    let mut link = TxLink::new(&model, model.cable, 0);
    let arrived = send_all(&mut link, &frames, 32);
    // 4 frames of 1000 bytes with 24 bytes of overhead each, back to back: the last byte of
    // the last FCS at 4 × 1024 − 12 bytes = 653.44 clocks.
    assert_eq!(arrived.last().unwrap().0, 654 + 30);
}

#[test]
fn an_ideal_link_delivers_every_word_after_its_latency() {
    let model = LinkModel::ideal(4);
    let mut link = TxLink::new(&model, model.cable, 0);
    let mut out = Vec::new();
    for (i, beat) in beats(&[3u8; 40], 8, 0).into_iter().enumerate() {
        assert!(link.ready(i as u64));
        link.send(i as u64, beat, &mut out);
    }
    let times: Vec<u64> = out.iter().map(|(t, _)| *t).collect();
    assert_eq!(times, vec![4, 5, 6, 7, 8]);
}

/// Under every fault at once, over many frames: every frame arrives whole (never interleaved
/// with another), arrival times never go back, a frame arrives intact or marked bad, and the
/// counts add up: delivered = sent − dropped + duplicated, each fault seen.
#[test]
fn faults_lose_copy_reorder_and_mark_frames_but_never_mangle_the_framing() {
    let faults = Faults {
        drop: 0.1,
        duplicate: 0.1,
        reorder: 0.1,
        corrupt: 0.1,
    };
    for width in [64, 256] {
        let bytes = width / 8;
        for model in [
            LinkModel::target(width, faults, faults, 7),
            LinkModel {
                cable: collwire_sim::links::LinkSpec {
                    faults,
                    ..LinkModel::ideal(4).cable
                },
                seed: 7,
                ..LinkModel::ideal(4)
            },
        ] {
            let mut link = TxLink::new(&model, model.cable, 3);
            let frames: Vec<Vec<u8>> = (0..400u32)
                .map(|i| {
                    let len = 60 + (i as usize * 37) % 1400;
                    (0..len).map(|k| (k as u32 ^ i) as u8).collect()
                })
                .collect();
            let arrived = send_all(&mut link, &frames, bytes);
            assert!(
                arrived.windows(2).all(|w| w[0].0 <= w[1].0),
                "time went back"
            );
            let got = frames_of(&arrived);
            let s = link.stats;
            assert_eq!(s.frames, 400);
            assert!(s.dropped > 10 && s.duplicated > 10 && s.reordered > 10 && s.corrupted > 10);
            assert_eq!(got.len() as u64, 400 - s.dropped + s.duplicated);
            let bad = got.iter().filter(|(_, bad)| *bad).count() as u64;
            assert_eq!(bad, s.corrupted);
            let mut order = Vec::new();
            for (data, bad) in &got {
                let i = frames
                    .iter()
                    .position(|f| f.len() == data.len() && (bad | (f == data)));
                let i = i.expect("an arrived frame that was never sent");
                if !bad {
                    assert_eq!(&frames[i], data);
                } else {
                    assert_ne!(&frames[i], data, "a corrupted frame with no bit flipped");
                }
                order.push(i);
            }
            assert!(order.windows(2).any(|w| w[0] > w[1]), "nothing reordered");
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_faults_and_another_seed_others() {
    let faults = Faults {
        drop: 0.2,
        duplicate: 0.2,
        reorder: 0.2,
        corrupt: 0.2,
    };
    let run = |seed| {
        let model = LinkModel::target(64, faults, faults, seed);
        let mut link = TxLink::new(&model, model.cable, 5);
        let frames: Vec<Vec<u8>> = (0..100u8).map(|i| vec![i; 100]).collect();
        send_all(&mut link, &frames, 8)
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

#[test]
fn a_receive_fifo_takes_a_frame_only_with_room_for_a_longest_one() {
    let mut rx = RxFifo::default();
    let frame = beats(&[0u8; 100], 8, 0);
    // 16 KiB: with 15,000 bytes queued there is no room for 1518 more.
    let taken: Vec<bool> = frame
        .iter()
        .enumerate()
        .map(|(i, b)| rx.admit(b, 15_000 - 8 * i, Some(16 * 1024)))
        .collect();
    assert!(taken.iter().all(|t| !t), "a frame half dropped");
    assert_eq!(rx.overflows, 1);
    let taken: Vec<bool> = frame
        .iter()
        .map(|b| rx.admit(b, 14_000, Some(16 * 1024)))
        .collect();
    assert!(taken.iter().all(|t| *t));
    assert_eq!(rx.overflows, 1);
    assert!(frame.iter().all(|b| rx.admit(b, 1 << 30, None)));
}

#[test]
fn a_fault_list_parses_by_name_and_refuses_what_is_not_one() {
    let f: Faults = "drop=0.01, duplicate=0.005,reorder=0.005,corrupt=0.001"
        .parse()
        .unwrap();
    assert_eq!(
        f,
        Faults {
            drop: 0.01,
            duplicate: 0.005,
            reorder: 0.005,
            corrupt: 0.001
        }
    );
    assert_eq!("none".parse::<Faults>().unwrap(), Faults::NONE);
    assert!(!Faults::NONE.any() && f.any());
    for bad in [
        "drop",
        "lose=0.1",
        "drop=2",
        "drop=x",
        "drop=0.6,corrupt=0.6",
    ] {
        assert!(bad.parse::<Faults>().is_err(), "{bad}");
    }
}

/// A UDP/IPv4 frame with `payload` bytes of payload.
fn udp_frame(payload: usize) -> Vec<u8> {
    let builder = etherparse::PacketBuilder::ethernet2([2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2])
        .ipv4([10, 0, 0, 1], [10, 0, 0, 2], 64)
        .udp(4791, 4791);
    let data: Vec<u8> = (0..payload).map(|i| i as u8).collect();
    let mut frame = Vec::with_capacity(builder.size(payload));
    builder.write(&mut frame, &data).unwrap();
    frame
}

/// The beat at which a rate-matched receive FIFO hands the frame of `arrived` on (the
/// cluster's rule: the first beat after which [`rate_matched_start`] holds, else the last).
fn rate_matched_start_beat(arrived: &[(u64, Beat)], bytes: usize, cycles_per_byte: f64) -> usize {
    let staged: Vec<Beat> = arrived.iter().map(|(_, b)| b.clone()).collect();
    (0..staged.len())
        .find(|&k| staged[k].last || rate_matched_start(&staged[..=k], bytes, cycles_per_byte))
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Through a rate-matched receive FIFO, an IPv4 frame of any length reaches the board a
    /// beat per clock without a gap (every beat has arrived by the clock the board takes it),
    /// starting within a beat's wire time of the earliest clock that allows (when the
    /// frame's headers are in), at 1G on the 64-bit board and 10G on the 256-bit.
    #[test]
    fn a_rate_matched_fifo_starts_a_frame_as_early_as_the_line_allows(
        payload in 0usize..=1472,
        wide in any::<bool>(),
    ) {
        let (width, bytes) = if wide { (256, 32) } else { (64, 8) };
        let model = LinkModel::target(width, Faults::NONE, Faults::NONE, 1);
        let cpb = model.cycles_per_byte(&model.cable);
        let frame = udp_frame(payload);
        let arrived = send_all(
            &mut TxLink::new(&model, model.cable, 0),
            std::slice::from_ref(&frame),
            bytes,
        );
        let t: Vec<u64> = arrived.iter().map(|(t, _)| *t).collect();
        let k = rate_matched_start_beat(&arrived, bytes, cpb);
        let start = t[k];
        for (j, &tj) in t.iter().enumerate() {
            prop_assert!(tj <= start + j as u64, "beat {j} arrives at {tj}, taken at {}", start + j as u64);
        }
        // The earliest gap-free start, and no earlier than the headers (Ethernet + IPv4).
        let earliest = t
            .iter()
            .enumerate()
            .map(|(j, &tj)| tj.saturating_sub(j as u64))
            .max()
            .unwrap()
            .max(t[34usize.div_ceil(bytes) - 1]);
        // Decided at beat arrivals: at the first at or after it, or (the line's fractions of
        // a clock rounded up) the next.
        let first = t.iter().position(|&tj| tj >= earliest).unwrap();
        prop_assert!(k <= first + 1, "started at beat {k} (clock {start}), could at beat {first} ({earliest})");
        // So a long frame starts about its bus time (a beat per clock) before its last beat
        // arrives: what a frame FIFO would add.
        let beat_time = (bytes as f64 * cpb).ceil() as u64;
        prop_assert!(t[t.len() - 1] - start + 2 * beat_time + 2 >= t.len() as u64);
    }
}

#[test]
fn a_rate_matched_fifo_waits_for_the_end_of_a_frame_without_an_ipv4_length() {
    let model = LinkModel::target(64, Faults::NONE, Faults::NONE, 1);
    let cpb = model.cycles_per_byte(&model.cable);
    let mut frame = udp_frame(1000);
    frame[12..14].copy_from_slice(&0x88b5u16.to_be_bytes());
    let arrived = send_all(
        &mut TxLink::new(&model, model.cable, 0),
        &[frame.clone()],
        8,
    );
    assert_eq!(rate_matched_start_beat(&arrived, 8, cpb), arrived.len() - 1);
    // On an ideal link, at once.
    let ideal = LinkModel::ideal(3);
    let arrived = send_all(&mut TxLink::new(&ideal, ideal.cable, 0), &[frame], 8);
    assert_eq!(
        rate_matched_start_beat(&arrived, 8, ideal.cycles_per_byte(&ideal.cable)),
        0
    );
}

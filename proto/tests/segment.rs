//! Segmentation and reassembly.

use collwire_proto::segment::*;
use collwire_proto::*;
use proptest::prelude::*;

#[test]
fn elements_per_segment_table() {
    // MTU 1500: 1500 - 20 - 8 - 22 = 1450 bytes, rounded down to 32 → 1440.
    // MTU 9000: 8950 → 8928.
    for (d, at1500, at9000) in [
        (Datatype::Int32, 360, 2232),
        (Datatype::Uint32, 360, 2232),
        (Datatype::F32, 360, 2232),
        (Datatype::Int64, 180, 1116),
        (Datatype::Uint64, 180, 1116),
        (Datatype::F64, 180, 1116),
    ] {
        assert_eq!(max_elements_per_segment(d, DEFAULT_MTU), Ok(at1500));
        assert_eq!(max_elements_per_segment(d, 9000), Ok(at9000));
    }
    assert_eq!(
        max_elements_per_segment(Datatype::F64, 575),
        Err(Error::BadMtu { mtu: 575 })
    );
    assert_eq!(
        max_elements_per_segment(Datatype::F64, 9217),
        Err(Error::BadMtu { mtu: 9217 })
    );
}

#[test]
fn full_segments_fill_whole_frames() {
    let s = Segmenter::new(Datatype::F64, DEFAULT_MTU).unwrap();
    // Full segment frame: 64 + 1440 = 1504 bytes = 14 + 1490 (IP packet ≤ MTU 1500).
    assert!(PAYLOAD_FRAME_OFFSET - ETH_HEADER_LEN + s.elements_per_segment() * 8 <= DEFAULT_MTU);
    assert_eq!(s.elements_per_segment() * 8 % 32, 0);
}

#[test]
fn split_is_element_aligned() {
    let s = Segmenter::new(Datatype::F64, DEFAULT_MTU).unwrap();
    assert_eq!(s.segment_count(0), Ok(1));
    assert_eq!(s.segment_range(0, 0), 0..0);
    assert_eq!(s.segment_count(180), Ok(1));
    assert_eq!(s.segment_count(181), Ok(2));
    let segs: Vec<_> = s.segments(400).unwrap().collect();
    assert_eq!(segs, vec![(0, 0..180), (1, 180..360), (2, 360..400)]);
    assert_eq!(
        s.segment_count(180 * 65536),
        Err(Error::MessageTooLarge {
            elements: 180 * 65536,
            max_segments: 65535
        })
    );
}

#[test]
fn reassembly_rejects_what_does_not_fit_and_ignores_duplicates() {
    let s = Segmenter::new(Datatype::Int32, DEFAULT_MTU).unwrap();
    let mut r = Reassembler::new(s, 361).unwrap();
    assert_eq!(
        r.accept(0, 3, &[0; 1440]),
        Err(Error::SegmentCount {
            got: 3,
            expected: 2
        })
    );
    assert_eq!(
        r.accept(2, 2, &[0; 4]),
        Err(Error::SegmentOutOfRange { index: 2, count: 2 })
    );
    assert_eq!(
        r.accept(1, 2, &[0; 8]),
        Err(Error::SegmentSize {
            index: 1,
            got: 2,
            expected: 1
        })
    );
    assert_eq!(r.accept(1, 2, &[9, 0, 0, 0]), Ok(Accepted::New));
    assert_eq!(r.missing().collect::<Vec<_>>(), vec![0]);
    assert!(!r.is_complete());
    assert_eq!(
        r.clone().into_bytes(),
        Err(Error::Incomplete {
            missing: 1,
            count: 2
        })
    );
    assert_eq!(r.accept(1, 2, &[7, 0, 0, 0]), Ok(Accepted::Duplicate));
    assert_eq!(r.accept(0, 2, &[1; 1440]), Ok(Accepted::New));
    let bytes = r.into_bytes().unwrap();
    assert_eq!(bytes.len(), 361 * 4);
    assert_eq!(&bytes[1440..], &[9, 0, 0, 0]);
}

proptest! {
    #[test]
    fn split_then_reassemble_in_any_order(
        n in 0usize..2000,
        mtu in MIN_MTU..=MAX_MTU,
        d in prop::sample::select(&[Datatype::Int32, Datatype::F64, Datatype::Uint64][..]),
        seed in any::<u64>(),
    ) {
        let s = Segmenter::new(d, mtu).unwrap();
        let data: Vec<u8> = (0..n * d.size()).map(|i| (i as u64 ^ seed) as u8).collect();
        let mut segs: Vec<_> = s.segments(n).unwrap().collect();
        // Deterministic shuffle from the seed.
        let len = segs.len();
        for i in 0..len {
            segs.swap(i, (seed as usize).wrapping_mul(i + 7) % len);
        }
        let count = s.segment_count(n).unwrap();
        let mut r = Reassembler::new(s, n).unwrap();
        for (i, range) in segs {
            prop_assert!(range.len() <= s.elements_per_segment());
            let bytes = &data[range.start * d.size()..range.end * d.size()];
            prop_assert_eq!(r.accept(i, count, bytes), Ok(Accepted::New));
        }
        prop_assert_eq!(r.into_bytes().unwrap(), data);
    }
}

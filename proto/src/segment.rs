//! Splitting a message into element-aligned segments, and reassembling it.
//!
//! A full segment carries [`Segmenter::elements_per_segment`] elements: the largest multiple of
//! [`SEGMENT_ALIGN`] bytes that fits in `MTU − 20 (IPv4) − 8 (UDP) − 22 (offload header)`,
//! divided by the element size. Every full segment is therefore a whole number of 256-bit (and
//! 64-bit) bus words; only the last segment may be shorter. Segment `k` holds elements
//! `k·E .. min((k+1)·E, n)`. A message of `n = 0` elements is one segment of 0 elements. All
//! ranks of one operation must use the same MTU, since the boards combine segment `k` of every
//! rank.

use core::ops::Range;

use crate::codes::Datatype;
use crate::{Error, HEADER_LEN, IPV4_HEADER_LEN, UDP_HEADER_LEN};

/// Standard Ethernet MTU.
pub const DEFAULT_MTU: usize = 1500;
/// Smallest MTU accepted (the IPv4 minimum datagram size every host must accept).
pub const MIN_MTU: usize = 576;
/// Largest MTU accepted (common jumbo-frame limit).
pub const MAX_MTU: usize = 9216;
/// Full segments are a multiple of this many payload bytes: one 256-bit bus word.
pub const SEGMENT_ALIGN: usize = 32;
/// The segment fields are 16 bits wide.
pub const MAX_SEGMENTS: usize = u16::MAX as usize;

/// Largest number of `datatype` elements one datagram carries at `mtu`.
pub fn max_elements_per_segment(datatype: Datatype, mtu: usize) -> Result<usize, Error> {
    Ok(Segmenter::new(datatype, mtu)?.elements_per_segment())
}

/// How messages of one datatype are cut at one MTU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segmenter {
    datatype: Datatype,
    per_segment: usize,
}

impl Segmenter {
    pub fn new(datatype: Datatype, mtu: usize) -> Result<Segmenter, Error> {
        if !(MIN_MTU..=MAX_MTU).contains(&mtu) {
            return Err(Error::BadMtu { mtu });
        }
        let room = mtu - IPV4_HEADER_LEN - UDP_HEADER_LEN - HEADER_LEN;
        let bytes = room / SEGMENT_ALIGN * SEGMENT_ALIGN;
        Ok(Segmenter {
            datatype,
            per_segment: bytes / datatype.size(),
        })
    }

    pub fn datatype(&self) -> Datatype {
        self.datatype
    }

    /// Elements in every segment but the last.
    pub fn elements_per_segment(&self) -> usize {
        self.per_segment
    }

    /// Number of segments for `elements` elements (at least 1).
    pub fn segment_count(&self, elements: usize) -> Result<u16, Error> {
        let count = elements.div_ceil(self.per_segment).max(1);
        u16::try_from(count).map_err(|_| Error::MessageTooLarge {
            elements,
            max_segments: MAX_SEGMENTS,
        })
    }

    /// Element range of segment `index` of an `elements`-element message.
    pub fn segment_range(&self, elements: usize, index: u16) -> Range<usize> {
        let start = (usize::from(index) * self.per_segment).min(elements);
        start..(start + self.per_segment).min(elements)
    }

    /// `(index, element range)` of every segment.
    pub fn segments(
        &self,
        elements: usize,
    ) -> Result<impl Iterator<Item = (u16, Range<usize>)> + '_, Error> {
        let count = self.segment_count(elements)?;
        Ok((0..count).map(move |i| (i, self.segment_range(elements, i))))
    }
}

/// Whether a segment handed to [`Reassembler::accept`] was new.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepted {
    New,
    /// Already had it (a retransmission); ignored.
    Duplicate,
}

/// Collects the segments of one message, in any order, duplicates ignored.
#[derive(Debug, Clone)]
pub struct Reassembler {
    segmenter: Segmenter,
    elements: usize,
    count: u16,
    data: Vec<u8>,
    received: Vec<bool>,
    missing: usize,
}

impl Reassembler {
    pub fn new(segmenter: Segmenter, elements: usize) -> Result<Reassembler, Error> {
        let count = segmenter.segment_count(elements)?;
        Ok(Reassembler {
            segmenter,
            elements,
            count,
            data: vec![0; elements * segmenter.datatype.size()],
            received: vec![false; usize::from(count)],
            missing: usize::from(count),
        })
    }

    /// Stores one segment. Rejects (and changes nothing for) a segment whose count, index or
    /// size disagrees with the expected split.
    pub fn accept(
        &mut self,
        seg_index: u16,
        seg_count: u16,
        payload: &[u8],
    ) -> Result<Accepted, Error> {
        if seg_count != self.count {
            return Err(Error::SegmentCount {
                got: seg_count,
                expected: self.count,
            });
        }
        if seg_index >= self.count {
            return Err(Error::SegmentOutOfRange {
                index: seg_index,
                count: seg_count,
            });
        }
        let size = self.segmenter.datatype.size();
        let range = self.segmenter.segment_range(self.elements, seg_index);
        if payload.len() != range.len() * size {
            return Err(Error::SegmentSize {
                index: seg_index,
                got: payload.len() / size,
                expected: range.len(),
            });
        }
        let slot = &mut self.received[usize::from(seg_index)];
        if *slot {
            return Ok(Accepted::Duplicate);
        }
        *slot = true;
        self.missing -= 1;
        self.data[range.start * size..range.end * size].copy_from_slice(payload);
        Ok(Accepted::New)
    }

    pub fn is_complete(&self) -> bool {
        self.missing == 0
    }

    /// Indices still missing (what a NACK asks for).
    pub fn missing(&self) -> impl Iterator<Item = u16> + '_ {
        self.received
            .iter()
            .enumerate()
            .filter(|(_, got)| !**got)
            .map(|(i, _)| i as u16)
    }

    /// The whole message, once every segment arrived.
    pub fn into_bytes(self) -> Result<Vec<u8>, Error> {
        if self.missing != 0 {
            return Err(Error::Incomplete {
                missing: self.missing,
                count: self.count,
            });
        }
        Ok(self.data)
    }
}

//! Test-side AXI-Stream: cuts frames into beats (a source with random idle cycles that holds a
//! beat until it is taken, as AXI requires) and reassembles beats into frames (a sink with
//! random back-pressure), the same at 64 and 256 bits.

use std::collections::VecDeque;

use crate::fpu_check::SplitMix;

/// One bus beat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beat {
    /// `bytes_per_beat` bytes (lanes past `keep` are zero).
    pub data: Vec<u8>,
    /// Byte enables, bit `i` for lane `i`.
    pub keep: u64,
    pub last: bool,
    /// `tuser`: on a block's internal bus the port masks and the bad bit
    /// (`collwire_hdl::axis`); at a board's MAC ports the MAC's one bit, [`MAC_BAD`].
    pub user: u16,
}

/// A board MAC port's `tuser` in [`Beat::user`]: on a `tlast` beat, the frame is bad (received
/// with a bad FCS, or aborted by the board).
pub const MAC_BAD: u16 = 1;

/// `tkeep` with lanes `0..n` set.
pub fn keep_mask(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// The beats of `frame` on a bus of `bytes` lanes.
pub fn beats(frame: &[u8], bytes: usize, user: u16) -> Vec<Beat> {
    let n = frame.len().div_ceil(bytes).max(1);
    (0..n)
        .map(|b| {
            let chunk = &frame[(b * bytes).min(frame.len())..((b + 1) * bytes).min(frame.len())];
            let mut data = vec![0u8; bytes];
            data[..chunk.len()].copy_from_slice(chunk);
            Beat {
                data,
                keep: keep_mask(chunk.len()),
                last: b + 1 == n,
                user,
            }
        })
        .collect()
}

/// A frame source: queued beats, offered with `idle_percent` random idle cycles between beats.
pub struct Source {
    queue: VecDeque<Beat>,
    offering: bool,
    idle_percent: u64,
    rng: SplitMix,
}

impl Source {
    pub fn new(seed: u64, idle_percent: u64) -> Source {
        Source {
            queue: VecDeque::new(),
            offering: false,
            idle_percent,
            rng: SplitMix(seed),
        }
    }
    pub fn push_frame(&mut self, frame: &[u8], bytes: usize, user: u16) {
        self.queue.extend(beats(frame, bytes, user));
    }
    /// The beat to drive this cycle (`tvalid` high), if any. Once offered, a beat stays offered
    /// until [`Source::taken`].
    pub fn offer(&mut self) -> Option<&Beat> {
        if !self.offering && !self.queue.is_empty() {
            self.offering = self.rng.next_u64() % 100 >= self.idle_percent;
        }
        if self.offering {
            self.queue.front()
        } else {
            None
        }
    }
    /// The offered beat was accepted (`tvalid && tready` on this clock).
    pub fn taken(&mut self) {
        assert!(self.offering, "beat taken that was not offered");
        self.queue.pop_front();
        self.offering = false;
    }
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

/// A frame sink: `tready` high with probability `ready_percent`; collects whole frames.
pub struct Sink {
    partial: Vec<u8>,
    /// Completed frames with the `tuser` of their last beat.
    pub frames: Vec<(Vec<u8>, u16)>,
    ready_percent: u64,
    rng: SplitMix,
    ready: bool,
}

impl Sink {
    pub fn new(seed: u64, ready_percent: u64) -> Sink {
        Sink {
            partial: Vec::new(),
            frames: Vec::new(),
            ready_percent,
            rng: SplitMix(seed),
            ready: true,
        }
    }
    /// Decides `tready` for this cycle.
    pub fn ready(&mut self) -> bool {
        self.ready = self.rng.next_u64() % 100 < self.ready_percent;
        self.ready
    }
    /// Records a beat seen with `tvalid` while ready.
    pub fn accept(&mut self, data: &[u8], keep: u64, last: bool, user: u16) {
        let n = keep.trailing_ones() as usize;
        assert_eq!(
            keep,
            keep_mask(n),
            "tkeep {keep:#x} is not contiguous from lane 0"
        );
        assert!(
            last || n == data.len(),
            "partial beat (tkeep {keep:#x}) before tlast"
        );
        self.partial.extend_from_slice(&data[..n]);
        if last {
            self.frames.push((std::mem::take(&mut self.partial), user));
        }
    }
    /// Bytes of a frame still open (no `tlast` yet).
    pub fn open_bytes(&self) -> usize {
        self.partial.len()
    }
}

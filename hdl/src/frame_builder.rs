//! Frame builder: turns the CFE's header entries and the CIPE's result beats into frames for
//! the output queues.
//!
//! For every entry the CFE queues (in the order it issued the CIPE instructions that emit, so
//! entries and result streams pair up in order), the builder sends the 64-byte header
//! ([`crate::header_builder`]) as whole beats, then either the CIPE's result beats up to their
//! `tlast` (the payload), or a 4-byte inline record (an error answer), or nothing (barrier and
//! other empty messages). The last beat's `tkeep` comes from the payload length; `tuser[15:8]`
//! is the entry's destination port mask for the whole frame.
//!
//! **Gapless frames**: a frame whose payload comes from the CIPE starts once its first result
//! beat will be at the builder's input by the time the header has left: the CIPE announces it
//! (`s_axis_soon`, [`crate::cipe::soon_clocks`] = the header's beats ahead; its pipeline never
//! stalls, so the time is fixed), or it is there. So the header goes out while the first
//! result is still in the CIPE's pipeline (8 clocks earlier than waiting for it at 64 bits, 2
//! at 256). From there the CIPE produces a beat per clock as its input comes (II = 1; its
//! pipeline issues only while its result FIFO has room for everything in flight plus
//! [`crate::cipe`]'s headroom), and the builder sends a beat per clock while its output is
//! ready. So a frame has no gap unless the output back-pressures or the words a pass combines
//! arrive with gaps, and the output queues may cut engine frames through like pass-through and
//! transit frames ([`crate::output_queues`]; the simulator counts any underrun and
//! `run_jobs` fails on one).
//!
//! Entry layout ([`ENTRY_BITS`] bits): [`EntryWord`] — header (frame byte `n` at `8n`),
//! destination port mask, payload bytes after the header, payload from the CIPE, inline
//! record, the record's 4 bytes in wire order. [`entry`] builds one as bytes in Rust (tests);
//! a unit test checks it against [`EntryWord`].
//!
//! One block for both widths: [`FrameBuilder64`] (8 header beats) and [`FrameBuilder256`]
//! (2 header beats).

use rust_hdl::prelude::*;

use crate::axis::{AxisSource, PayloadSink, check_widths};

use crate::bypass_fifo::BypassFifo;

/// Bits of a header entry.
pub const ENTRY_BITS: usize = 570;

/// A header entry, low bits first: the one definition of its format, used by the CFE that
/// builds entries, this builder that reads them, and [`entry`].
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct EntryWord {
    /// The 64-byte header, frame byte `n` at `8n`.
    pub header: Bits<512>,
    /// Destination port mask.
    pub ports: Bits<8>,
    /// Payload bytes after the header.
    pub bytes: Bits<16>,
    /// The payload comes from the CIPE.
    pub from_cipe: Bit,
    /// The payload is the inline record.
    pub inline: Bit,
    /// The inline record's 4 bytes, wire order.
    pub record: Bits<32>,
}

impl From<Bits<570>> for EntryWord {
    fn from(w: Bits<570>) -> EntryWord {
        let d = EntryWord::default();
        EntryWord {
            header: w.get_bits::<512>(d.get_my_offset_header()),
            ports: w.get_bits::<8>(d.get_my_offset_ports()),
            bytes: w.get_bits::<16>(d.get_my_offset_bytes()),
            from_cipe: w.get_bit(d.get_my_offset_from_cipe()),
            inline: w.get_bit(d.get_my_offset_inline()),
            record: w.get_bits::<32>(d.get_my_offset_record()),
        }
    }
}

/// A header entry as bytes, little-endian bit order (bit `i` of the entry is bit `i % 8` of
/// byte `i / 8`), as the Verilator bridge takes wide values.
pub fn entry(
    header: &[u8; 64],
    dst_mask: u8,
    payload_bytes: u16,
    from_cipe: bool,
    inline: Option<[u8; 4]>,
) -> Vec<u8> {
    let mut e = vec![0u8; ENTRY_BITS.div_ceil(8)];
    e[..64].copy_from_slice(header);
    e[64] = dst_mask;
    e[65..67].copy_from_slice(&payload_bytes.to_le_bytes());
    let mut flags = u64::from(from_cipe) | u64::from(inline.is_some()) << 1;
    if let Some(record) = inline {
        flags |= u64::from(u32::from_le_bytes(record)) << 2;
    }
    for (i, byte) in e[67..72].iter_mut().enumerate() {
        *byte = (flags >> (8 * i)) as u8;
    }
    e
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum BuilderState {
    Idle,
    Header,
    Payload,
    Inline,
}

/// Builds frames from header entries and result words: `W`-bit beats (`K = W / 8` keep bits,
/// `W = 2^WL`, `K = 2^KL`), a 64-byte header of `HB` beats.
#[derive(LogicBlock)]
pub struct FrameBuilder<
    const W: usize,
    const K: usize,
    const HB: usize,
    const WL: usize,
    const KL: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no frame being sent, no entry queued, the frame counter 0.
    pub reset: Signal<In, Bit>,
    /// Header entries from the CFE.
    pub s_entry_tdata: Signal<In, Bits<570>>,
    pub s_entry_tvalid: Signal<In, Bit>,
    pub s_entry_tready: Signal<Out, Bit>,
    /// Result beats from the CIPE.
    pub s_axis: PayloadSink<W>,
    /// The CIPE's promise that a result beat is at `s_axis` within the header's beats
    /// ([`crate::cipe::soon_clocks`]): a frame with a CIPE payload starts on it.
    pub s_axis_soon: Signal<In, Bit>,
    pub m_axis: AxisSource<W, K>,
    pub frames: Signal<Out, Bits<32>>,
    entries: BypassFifo<Bits<570>, 4, 5, 1>,
    state: DFF<BuilderState>,
    beat: DFF<Bits<4>>,
    sent: DFF<Bits<32>>,
    all_keep: Constant<Bits<K>>,
    last_header_beat: Constant<Bits<4>>,
    head: Signal<Local, EntryWord>,
    header: Signal<Local, Bits<512>>,
    /// The header beat offered: beat 0 straight from the entry, the later ones from `rest`.
    header_beat: Signal<Local, Bits<W>>,
    /// Header beats 1 … `HB` − 1, loaded from the entry as beat 0 leaves and moved down a word
    /// as each later one leaves, so a beat is `rest[0]`: no mux over the header's beats by
    /// `beat` in front of the output (the last element stays zero).
    rest: [DFF<Bits<W>>; HB],
    /// A header beat after the first is offered (`Header` with `beat` ≠ 0), registered.
    later: DFF<Bit>,
    tail: Signal<Local, Bits<KL>>,
    /// `BYTES − tail`, modulo BYTES (a signal of its own so Verilog keeps its width).
    empty_lanes: Signal<Local, Bits<KL>>,
    /// The last payload beat's `tkeep`, registered from the head entry's byte count: the
    /// head is the frame's entry from its first header beat (at the latest) until after its
    /// last payload beat (it changes only after the pop), and the payload comes `HB` clocks
    /// after the first header beat at the earliest, so the register holds the frame's mask by
    /// then. Decoded in front of `m_axis.tkeep`, the count's shift was mapped as
    /// a chain of LUTs behind the CIPE's `tlast` (its result FIFO's LUT RAM read → `tlast` → 9
    /// levels → the engine slice's `keep`): board256's worst path at 9764b13 (61 endpoints,
    /// 9.2 ns, 108.4 MHz).
    last_keep: DFF<Bits<K>>,
    move_beat: Signal<Local, Bit>,
    /// A header beat is offered this clock (`Header`, or `Idle` starting a frame).
    in_header: Signal<Local, Bit>,
    /// Drives `m_axis.tdata`, assigned once at the end of `update`.
    out_tdata: Signal<Local, Bits<W>>,
    /// Drives `m_axis.tkeep`, assigned once at the end of `update`.
    out_tkeep: Signal<Local, Bits<K>>,
    /// Drives `m_axis.tlast`, assigned once at the end of `update`.
    out_tlast: Signal<Local, Bit>,
    /// Drives `m_axis.tuser`: the destination ports, and the bad bit on the last beat of a
    /// frame whose payload came marked bad (`s_axis.tbad`: computed from an offload frame bad
    /// at its tail).
    out_tuser: Signal<Local, Bits<16>>,
    bad_bit: Constant<Bits<16>>,
    /// Drives `m_axis.tvalid`, assigned once at the end of `update`.
    out_tvalid: Signal<Local, Bit>,
    /// Drives `s_axis.tready`, assigned once at the end of `update`.
    out_s_tready: Signal<Local, Bit>,
    /// Drives `entries.read_next`, assigned once at the end of `update`. The finished frame's
    /// entry is popped a clock after its last beat (the entry queue's `reading`, its
    /// `read_next` registered): the path from the head entry's fields through the state
    /// machine to the FIFO's read address and its 570-bit read register was board64's worst at
    /// 107 MHz. The next frame starts a clock later (the head is the next entry from the clock
    /// after the pop).
    pop_entry: Signal<Local, Bit>,
    /// Bit offset of header beat `i`: `i · W`.
    beat_at: [Constant<Bits<16>>; HB],
}

impl<const W: usize, const K: usize, const HB: usize, const WL: usize, const KL: usize> Default
    for FrameBuilder<W, K, HB, WL, KL>
{
    fn default() -> Self {
        check_widths(W, K);
        assert!(HB * W == 512 && 1 << WL == W && 1 << KL == K);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_entry_tdata: Default::default(),
            s_entry_tvalid: Default::default(),
            s_entry_tready: Default::default(),
            s_axis: Default::default(),
            s_axis_soon: Default::default(),
            m_axis: Default::default(),
            frames: Default::default(),
            entries: Default::default(),
            state: Default::default(),
            beat: Default::default(),
            sent: Default::default(),
            all_keep: Constant::new(Bits::<K>::mask()),
            last_header_beat: Constant::new(bits::<4>(HB as u64 - 1)),
            head: Default::default(),
            header: Default::default(),
            header_beat: Default::default(),
            rest: std::array::from_fn(|_| Default::default()),
            later: Default::default(),
            tail: Default::default(),
            empty_lanes: Default::default(),
            last_keep: Default::default(),
            move_beat: Default::default(),
            in_header: Default::default(),
            out_tdata: Default::default(),
            out_tkeep: Default::default(),
            out_tlast: Default::default(),
            out_tuser: Default::default(),
            bad_bit: Constant::new(bits::<16>(1 << crate::axis::TUSER_BAD_AT)),
            out_tvalid: Default::default(),
            out_s_tready: Default::default(),
            pop_entry: Default::default(),
            beat_at: std::array::from_fn(|i| Constant::new(bits::<16>((i * W) as u64))),
        }
    }
}

impl<const W: usize, const K: usize, const HB: usize, const WL: usize, const KL: usize> Logic
    for FrameBuilder<W, K, HB, WL, KL>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, beat, sent, later, last_keep);
        for i in 0..HB {
            self.rest[i].clock.next = self.clock.val();
            self.rest[i].d.next = self.rest[i].q.val();
        }
        clock!(self, clock, entries);
        self.entries.data_in.next = self.s_entry_tdata.val();
        self.entries.write.next = self.s_entry_tvalid.val() & !self.entries.full.val();
        self.s_entry_tready.next = !self.entries.full.val();
        self.head.next = self.entries.data_out.val().into();
        self.header.next = self.head.val().header;
        self.header_beat.next = self.header.val().get_bits::<W>(0);
        if self.later.q.val() {
            self.header_beat.next = self.rest[0].q.val();
        }
        // Bytes in the last payload beat (0 = a full beat).
        self.tail.next = bit_cast::<KL, 16>(self.head.val().bytes);
        self.empty_lanes.next = !self.tail.val() + bits::<KL>(1);
        self.last_keep.d.next = self.all_keep.val() >> bit_cast::<K, KL>(self.empty_lanes.val());
        self.out_tuser.next = bit_cast::<16, 8>(self.head.val().ports) << 8;
        self.out_tdata.next = self.header_beat.val();
        self.out_tkeep.next = self.all_keep.val();
        self.out_tlast.next = false;
        self.out_tvalid.next = false;
        self.out_s_tready.next = false;
        self.pop_entry.next = false;
        self.move_beat.next = false;
        self.in_header.next = self.state.q.val() == BuilderState::Header;
        match self.state.q.val() {
            BuilderState::Idle => {
                // A frame with a CIPE payload starts when its first result beat will be here
                // by the time the header has left (`s_axis_soon`, or it is here): the CIPE
                // then delivers the rest a beat per clock (docs/cipe.md), so the frame
                // leaves without a gap and the output queues may cut it through. Its first
                // header beat leaves on this clock.
                if !self.entries.empty.val()
                    & !self.entries.reading.val()
                    & (!self.head.val().from_cipe
                        | self.s_axis.tvalid.val()
                        | self.s_axis_soon.val())
                {
                    self.state.d.next = BuilderState::Header;
                    self.in_header.next = true;
                }
            }
            BuilderState::Header => {}
            BuilderState::Payload => {
                self.out_tdata.next = self.s_axis.tdata.val();
                self.out_tlast.next = self.s_axis.tlast.val();
                if self.s_axis.tlast.val() {
                    self.out_tkeep.next = self.last_keep.q.val();
                    if self.s_axis.tbad.val() {
                        self.out_tuser.next = self.out_tuser.val() | self.bad_bit.val();
                    }
                }
                self.out_tvalid.next = self.s_axis.tvalid.val();
                self.out_s_tready.next = self.m_axis.tready.val();
                self.move_beat.next = self.m_axis.tready.val() & self.s_axis.tvalid.val();
                if self.m_axis.tready.val() & self.s_axis.tvalid.val() & self.s_axis.tlast.val() {
                    self.state.d.next = BuilderState::Idle;
                    self.pop_entry.next = true;
                }
            }
            BuilderState::Inline => {
                self.out_tdata.next = bit_cast::<W, 32>(self.head.val().record);
                self.out_tkeep.next = bit_cast::<K, 4>(bits::<4>(0xF));
                self.out_tlast.next = true;
                self.out_tvalid.next = true;
                self.move_beat.next = self.m_axis.tready.val();
                if self.m_axis.tready.val() {
                    self.state.d.next = BuilderState::Idle;
                    self.pop_entry.next = true;
                }
            }
            _ => {
                self.state.d.next = BuilderState::Idle;
            }
        }
        // Header beat `beat` (0 in `Idle`): the last one goes on to the payload, the inline
        // record or the next entry.
        if self.in_header.val() {
            self.out_tvalid.next = true;
            if self.beat.q.val() == self.last_header_beat.val() {
                self.out_tlast.next = !self.head.val().from_cipe & !self.head.val().inline;
            }
            self.move_beat.next = self.m_axis.tready.val();
            if self.m_axis.tready.val() {
                self.beat.d.next = self.beat.q.val() + bits::<4>(1);
                self.later.d.next = true;
                if self.beat.q.val() == self.last_header_beat.val() {
                    self.beat.d.next = bits::<4>(0);
                    self.later.d.next = false;
                    if self.head.val().from_cipe {
                        self.state.d.next = BuilderState::Payload;
                    } else if self.head.val().inline {
                        self.state.d.next = BuilderState::Inline;
                    } else {
                        self.state.d.next = BuilderState::Idle;
                        self.pop_entry.next = true;
                    }
                }
            }
        }
        // Header beats 1 … `HB` − 1 into `rest`: from the entry on every clock before beat 0
        // has left (so also on the clock it leaves), then down a word as each later beat
        // leaves (`later` is high only in `Header`). Whether a frame starts (the CIPE's
        // `soon`, the entry queue) stays out of the enables of `rest`'s bits: the CIPE's
        // `soon_q` → the start → `rest[6]`'s enable, 2.9 ns of wire on its last net, was
        // board64's worst path on seed 1 at fb6736d.
        for i in 1..HB {
            if !self.later.q.val() {
                self.rest[i - 1].d.next = self
                    .header
                    .val()
                    .get_bits::<W>(self.beat_at[i].val().index());
            } else if self.m_axis.tready.val() {
                self.rest[i - 1].d.next = self.rest[i].q.val();
            }
        }
        if self.move_beat.val() & self.out_tlast.val() {
            self.sent.d.next = self.sent.q.val() + bits::<32>(1);
        }
        self.frames.next = self.sent.q.val();
        self.m_axis.tdata.next = self.out_tdata.val();
        self.m_axis.tkeep.next = self.out_tkeep.val();
        self.m_axis.tlast.next = self.out_tlast.val();
        self.m_axis.tuser.next = self.out_tuser.val();
        self.m_axis.tvalid.next = self.out_tvalid.val();
        self.s_axis.tready.next = self.out_s_tready.val();
        self.entries.read_next.next = self.pop_entry.val() & !self.reset.val();
        self.entries.reset.next = self.reset.val();
        if self.reset.val() {
            self.state.d.next = BuilderState::Idle;
            self.beat.d.next = bits::<4>(0);
            self.sent.d.next = bits::<32>(0);
            self.later.d.next = false;
            for i in 0..HB {
                self.rest[i].d.next = bits::<W>(0);
            }
        }
    }
}

/// ZedBoard: 64-bit beats, 8 header beats.
pub type FrameBuilder64 = FrameBuilder<64, 8, 8, 6, 3>;
/// NetFPGA SUME: 256-bit beats, 2 header beats.
pub type FrameBuilder256 = FrameBuilder<256, 32, 2, 8, 5>;

#[cfg(test)]
mod entry_tests {
    use super::*;

    /// [`entry`] lays out the bytes exactly as [`EntryWord`] defines the bits.
    #[test]
    fn entry_bytes_follow_the_entry_word() {
        let header: [u8; 64] = std::array::from_fn(|i| (i * 7 + 3) as u8);
        let bytes = entry(&header, 0x15, 0x1234, true, Some([0xde, 0xad, 0xbe, 0xef]));
        let mut h = Bits::<512>::default();
        for (i, b) in header.iter().enumerate() {
            h = h | (bit_cast::<512, 8>(bits::<8>(u64::from(*b))) << (8 * i as u64));
        }
        let w = EntryWord {
            header: h,
            ports: bits(0x15),
            bytes: bits(0x1234),
            from_cipe: true,
            inline: true,
            record: bits(u64::from(u32::from_le_bytes([0xde, 0xad, 0xbe, 0xef]))),
        };
        let word = Bits::<ENTRY_BITS>::from(w);
        for (i, b) in bytes.iter().enumerate() {
            let width = (ENTRY_BITS - 8 * i).min(8);
            let want = (0..width).fold(0u8, |acc, k| acc | u8::from(word.get_bit(8 * i + k)) << k);
            assert_eq!(*b, want, "byte {i}");
        }
        assert_eq!(EntryWord::from(word), w);
    }
}

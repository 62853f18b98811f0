//! First stage of the offload parser: taps an AXI-Stream frame and captures its first 64 bytes
//! (Ethernet + IPv4 + UDP + offload header: everything before the payload, see
//! `collwire_proto::PAYLOAD_FRAME_OFFSET`) and its length in bytes.
//!
//! Bus convention (as in verilog-ethernet / NetFPGA): byte `i` of a beat is `tdata[8i+7:8i]`, and
//! frame byte `n` travels in beat `n / BYTES`, lane `n % BYTES`; `tkeep` is contiguous from lane 0
//! and only the `tlast` beat may be partial. The tap only observes (no `tready`).
//!
//! * `header_valid` pulses for one clock once all 64 header bytes have been seen; `header` then
//!   holds frame bytes 0..64 little-endian (byte 0 in bits 7:0) until the clock after the
//!   frame's last beat (a header word follows the bus, taken beats or not, while the frame's
//!   beat count is at it).
//! * `frame_done` pulses after the `tlast` beat with `frame_len` (bytes), `short_frame` set when the
//!   frame ended before byte 64 (no offload header: never an offload frame), and `len_ok` set
//!   when it did not and holds its IPv4 total length (`frame_len` ≥ total length + 14; bytes
//!   beyond are Ethernet padding). That is the one check of an offload frame that needs its end
//!   ([`crate::offload_classifier`] makes the others from the header).
//!
//! One block for both widths (`W` data bits, `K = W / 8` keep bits, `HB` header beats):
//! [`HeaderCapture64`] (8 beats of header) and [`HeaderCapture256`] (2 beats).

use rust_hdl::prelude::*;

use crate::axis::check_widths;
use crate::header_fields::{IP_TOTAL_LEN_BYTE, RANKS_PER_HOST_BYTE};
use crate::place::Place;

/// Taps a frame stream and captures its header and length.
#[derive(LogicBlock)]
pub struct HeaderCapture<const W: usize, const K: usize, const HB: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: forget any partial frame.
    pub reset: Signal<In, Bit>,
    pub s_axis_tdata: Signal<In, Bits<W>>,
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    pub s_axis_tvalid: Signal<In, Bit>,
    pub s_axis_tlast: Signal<In, Bit>,
    pub header: Signal<Out, Bits<512>>,
    pub header_valid: Signal<Out, Bit>,
    pub frame_len: Signal<Out, Bits<16>>,
    pub frame_done: Signal<Out, Bit>,
    pub short_frame: Signal<Out, Bit>,
    pub len_ok: Signal<Out, Bit>,
    /// The ranks-per-host byte of `header` ([`RANKS_PER_HOST_BYTE`]) as it will be after the
    /// clock edge (the input of its flip-flops; it is in the last header beat at both widths):
    /// for the classifier, which looks it up in a synchronous table a clock ahead.
    pub ranks_per_host_next: Signal<Out, Bits<8>>,
    /// Byte count of a beat whose highest kept lane is `i`: `i + 1`.
    lane_bytes: [Constant<Bits<16>>; K],
    full_beat: Constant<Bits<16>>,
    last_header_beat: Constant<Bits<16>>,
    beat_bytes: Signal<Local, Bits<16>>,
    /// The length after a full beat (`len` + `K`, from the register alone), and after a last
    /// beat that is not full: `len` OR its byte count (`len` is a multiple of `K`, the count
    /// below `K`, so no carry). The frame's length is one of the two, chosen by the top lane's
    /// keep bit: no adder between the bus's `tkeep` and `done_len` (the input arbiter's grant
    /// → `tkeep` → the byte count → the adder's carry chain was 12 logic levels, board64's
    /// deepest with the CFE's decode, `levels` at the router's late class).
    len_next: Signal<Local, Bits<16>>,
    len_part: Signal<Local, Bits<16>>,
    /// Lane `i` is the beat's highest kept lane.
    highest: [Signal<Local, Bit>; K],
    lane_count: [Signal<Local, Bits<16>>; K],
    count_acc: [Signal<Local, Bits<16>>; K],
    ends_short: Signal<Local, Bit>,
    top_lane: Constant<Bits<16>>,
    beat: DFF<Bits<16>>,
    /// `at_beat[i]` is `beat == i`, a flip-flop of its own for `i` ≥ 1 (moved along with the
    /// count; index 0 is unused: beat 0 stays a compare, since the flip-flops power on at 0):
    /// header word `i`'s load enable and the ranks-per-host byte's select start at a flip-flop.
    /// From the count's compare, the beat count → the compare → the last word's select →
    /// the classifier's divisor block RAM address was board64's worst path on nextpnr's
    /// default seed (5 cells, 1.08 / 5.60 ns, 2026-12-06).
    at_beat: [DFF<Bit>; HB],
    len: DFF<Bits<16>>,
    words: [DFF<Bits<W>>; HB],
    /// Beat `i` placed at bit `i·W` of the header.
    place: [Place<512, W>; HB],
    packed: [Signal<Local, Bits<512>>; HB],
    header_pulse: DFF<Bit>,
    done: DFF<Bit>,
    done_len: DFF<Bits<16>>,
    done_short: DFF<Bit>,
    /// The header's IPv4 total length + 14, registered a clock after the header (it is
    /// complete well before the frame's `frame_done`).
    tot14: DFF<Bits<17>>,
    raw_total: Signal<Local, Bits<16>>,
    ip_total_at: Constant<Bits<16>>,
    /// Bit position of [`RANKS_PER_HOST_BYTE`] in the last header beat.
    rph_at: Constant<Bits<16>>,
}

impl<const W: usize, const K: usize, const HB: usize> Default for HeaderCapture<W, K, HB> {
    fn default() -> Self {
        check_widths(W, K);
        assert_eq!(HB * W, 512, "HB: beats of a 64-byte header");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tlast: Default::default(),
            header: Default::default(),
            header_valid: Default::default(),
            frame_len: Default::default(),
            frame_done: Default::default(),
            short_frame: Default::default(),
            len_ok: Default::default(),
            ranks_per_host_next: Default::default(),
            lane_bytes: std::array::from_fn(|i| Constant::new(bits::<16>(i as u64 + 1))),
            full_beat: Constant::new(bits::<16>(K as u64)),
            last_header_beat: Constant::new(bits::<16>(HB as u64 - 1)),
            beat_bytes: Default::default(),
            len_next: Default::default(),
            len_part: Default::default(),
            highest: std::array::from_fn(|_| Default::default()),
            lane_count: std::array::from_fn(|_| Default::default()),
            count_acc: std::array::from_fn(|_| Default::default()),
            ends_short: Default::default(),
            top_lane: Constant::new(bits::<16>(K as u64 - 1)),
            beat: Default::default(),
            at_beat: std::array::from_fn(|_| Default::default()),
            len: Default::default(),
            words: std::array::from_fn(|_| Default::default()),
            place: std::array::from_fn(Place::lane),
            packed: std::array::from_fn(|_| Default::default()),
            header_pulse: Default::default(),
            done: Default::default(),
            done_len: Default::default(),
            done_short: Default::default(),
            tot14: Default::default(),
            raw_total: Default::default(),
            ip_total_at: Constant::new(bits::<16>(8 * IP_TOTAL_LEN_BYTE as u64)),
            rph_at: {
                assert_eq!(
                    RANKS_PER_HOST_BYTE / K,
                    HB - 1,
                    "ranks per host in the last beat"
                );
                Constant::new(bits::<16>(8 * (RANKS_PER_HOST_BYTE % K) as u64))
            },
        }
    }
}

impl<const W: usize, const K: usize, const HB: usize> Logic for HeaderCapture<W, K, HB> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            beat,
            len,
            header_pulse,
            done,
            done_len,
            done_short,
            tot14
        );
        for i in 0..HB {
            self.words[i].clock.next = self.clock.val();
            self.words[i].d.next = self.words[i].q.val();
            self.at_beat[i].clock.next = self.clock.val();
            self.at_beat[i].d.next = self.at_beat[i].q.val();
        }
        // Bytes in this beat: the highest kept lane + 1 (tkeep is contiguous), as an OR of
        // the lanes' counts, each selected by its lane being the highest kept one (a flat OR,
        // not a priority chain over every lane in front of the length's adder).
        for i in 0..K {
            self.highest[i].next = self.s_axis_tkeep.val().get_bit(i);
        }
        for i in 0..(K - 1usize) {
            self.highest[i].next =
                self.s_axis_tkeep.val().get_bit(i) & !self.s_axis_tkeep.val().get_bit(i + 1);
        }
        for i in 0..K {
            self.lane_count[i].next = bits::<16>(0);
            if self.highest[i].val() {
                self.lane_count[i].next = self.lane_bytes[i].val();
            }
        }
        self.count_acc[0].next = self.lane_count[0].val();
        for i in 1..K {
            self.count_acc[i].next = self.count_acc[i - 1].val() | self.lane_count[i].val();
        }
        for i in (K - 1usize)..K {
            self.beat_bytes.next = self.count_acc[i].val();
        }
        self.len_next.next = self.len.q.val() + self.full_beat.val();
        self.len_part.next = self.len.q.val() | self.beat_bytes.val();
        // The frame ends before byte 64: on a header beat before the last, or on the last one
        // not full (its top lane not kept) — from the beat count, not from the length's sum.
        self.ends_short.next = (self.beat.q.val() < self.last_header_beat.val())
            | ((self.beat.q.val() == self.last_header_beat.val())
                & !self.s_axis_tkeep.val().get_bit(self.top_lane.val().index()));
        self.header_pulse.d.next = false;
        self.done.d.next = false;
        // Header word `i` follows the bus while the frame is at beat `i`, taken or not: the
        // beat taken is the last it loads before the count moves on, so it holds that beat
        // from the next clock until the next frame reaches beat `i` again (at the earliest the
        // clock after this frame's last beat, as when the next frame follows at once). Its
        // load enable is then the beat count alone: `tvalid` (the router's `accept`, behind
        // the input arbiter's grant) fanned out to the 512 header flip-flops' enables was
        // board64's worst path on both seeds after the arbiter's one-hot grant (8.2–8.5 ns).
        if self.beat.q.val() == bits::<16>(0) {
            self.words[0].d.next = self.s_axis_tdata.val();
        }
        for i in 1..HB {
            if self.at_beat[i].q.val() {
                self.words[i].d.next = self.s_axis_tdata.val();
            }
        }
        if self.s_axis_tvalid.val() {
            // The count moves on (or back to 0 after a last beat): each flag takes the one
            // before it, flag 1 the count's compare with 0.
            self.at_beat[1].d.next =
                (self.beat.q.val() == bits::<16>(0)) & !self.s_axis_tlast.val();
            for i in 2..HB {
                self.at_beat[i].d.next = self.at_beat[i - 1].q.val() & !self.s_axis_tlast.val();
            }
            if self.beat.q.val() == self.last_header_beat.val() {
                self.header_pulse.d.next = true;
            }
            self.beat.d.next = self.beat.q.val() + bits::<16>(1);
            self.len.d.next = self.len_next.val();
            if self.s_axis_tlast.val() {
                self.beat.d.next = bits::<16>(0);
                self.len.d.next = bits::<16>(0);
                self.done.d.next = true;
                self.done_len.d.next = self.len_part.val();
                if self.s_axis_tkeep.val().get_bit(self.top_lane.val().index()) {
                    self.done_len.d.next = self.len_next.val();
                }
                self.done_short.d.next = self.ends_short.val();
                // A frame of exactly 64 bytes or more whose header ended on an
                // earlier beat already pulsed; a short one never does.
                if self.ends_short.val() {
                    self.header_pulse.d.next = false;
                }
            }
        }
        if self.reset.val() {
            self.beat.d.next = bits::<16>(0);
            for i in 0..HB {
                self.at_beat[i].d.next = false;
            }
            self.len.d.next = bits::<16>(0);
            self.header_pulse.d.next = false;
            self.done.d.next = false;
        }
        // Pack the captured beats into the 512-bit header.
        for i in 0..HB {
            self.place[i].lane.next = self.words[i].q.val();
        }
        self.packed[0].next = self.place[0].word.val();
        for i in 1..HB {
            self.packed[i].next = self.packed[i - 1].val() | self.place[i].word.val();
        }
        // The last partial sum is the header (a one-pass loop: rust-hdl evaluates an array
        // index in Verilog, where `HB` does not exist, but a loop bound in Rust).
        for i in (HB - 1usize)..HB {
            self.header.next = self.packed[i].val();
        }
        self.header_valid.next = self.header_pulse.q.val();
        self.frame_len.next = self.done_len.q.val();
        self.frame_done.next = self.done.q.val();
        self.short_frame.next = self.done_short.q.val();
        // Big-endian on the wire; byte `IP_TOTAL_LEN_BYTE` is the high one.
        for i in (HB - 1usize)..HB {
            self.raw_total.next = self.packed[i]
                .val()
                .get_bits::<16>(self.ip_total_at.val().index());
        }
        self.tot14.d.next =
            bit_cast::<17, 16>((self.raw_total.val() << 8) | (self.raw_total.val() >> 8))
                + bits::<17>(14);
        self.len_ok.next = !self.done_short.q.val()
            & (bit_cast::<17, 16>(self.done_len.q.val()) >= self.tot14.q.val());
        for i in (HB - 1usize)..HB {
            self.ranks_per_host_next.next = self.words[i]
                .d
                .val()
                .get_bits::<8>(self.rph_at.val().index());
        }
    }
}

/// ZedBoard: 8 beats of header.
pub type HeaderCapture64 = HeaderCapture<64, 8, 8>;
/// NetFPGA SUME: 2 beats of header.
pub type HeaderCapture256 = HeaderCapture<256, 32, 2>;

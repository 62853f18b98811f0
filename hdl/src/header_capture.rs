//! First stage of the offload parser: taps an AXI-Stream frame and captures its first 64 bytes
//! (Ethernet + IPv4 + UDP + offload header: everything before the payload, see
//! `collwire_proto::PAYLOAD_FRAME_OFFSET`) and its length in bytes.
//!
//! Bus convention (as in verilog-ethernet / NetFPGA): byte `i` of a beat is `tdata[8i+7:8i]`, and
//! frame byte `n` travels in beat `n / BYTES`, lane `n % BYTES`; `tkeep` is contiguous from lane 0
//! and only the `tlast` beat may be partial. The tap only observes (no `tready`).
//!
//! * `header_valid` pulses for one clock once all 64 header bytes have been seen; `header` then
//!   holds frame bytes 0..64 little-endian (byte 0 in bits 7:0).
//! * `frame_done` pulses after the `tlast` beat with `frame_len` (bytes) and `short_frame` set when the
//!   frame ended before byte 64 (no offload header: never an offload frame).
//!
//! One template for both widths: [`HeaderCapture64`] (8 beats of header) and
//! [`HeaderCapture256`] (2 beats).

use rust_hdl::prelude::*;

macro_rules! header_capture {
    (
        $(#[$doc:meta])* $name:ident, width = $w:tt, keep = $k:tt, header_beats = $hb:tt,
        last_header_beat = $lhb:tt, more_beats = [$($b:tt)*]
    ) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            /// Synchronous reset: forget any partial frame.
            pub reset: Signal<In, Bit>,
            pub s_axis_tdata: Signal<In, Bits<$w>>,
            pub s_axis_tkeep: Signal<In, Bits<$k>>,
            pub s_axis_tvalid: Signal<In, Bit>,
            pub s_axis_tlast: Signal<In, Bit>,
            pub header: Signal<Out, Bits<512>>,
            pub header_valid: Signal<Out, Bit>,
            pub frame_len: Signal<Out, Bits<16>>,
            pub frame_done: Signal<Out, Bit>,
            pub short_frame: Signal<Out, Bit>,
            /// Byte count of a beat whose highest kept lane is `i`: `i + 1`.
            lane_bytes: [Constant<Bits<16>>; $k],
            full_beat: Constant<Bits<16>>,
            beat_bytes: Signal<Local, Bits<16>>,
            beat: DFF<Bits<16>>,
            len: DFF<Bits<16>>,
            words: [DFF<Bits<$w>>; $hb],
            packed: [Signal<Local, Bits<512>>; $hb],
            header_pulse: DFF<Bit>,
            done: DFF<Bit>,
            done_len: DFF<Bits<16>>,
            done_short: DFF<Bit>,
        }

        impl Default for $name {
            fn default() -> Self {
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
                    lane_bytes: std::array::from_fn(|i| Constant::new(bits::<16>(i as u64 + 1))),
                    full_beat: Constant::new(bits::<16>($k)),
                    beat_bytes: Default::default(),
                    beat: Default::default(),
                    len: Default::default(),
                    words: Default::default(),
                    packed: Default::default(),
                    header_pulse: Default::default(),
                    done: Default::default(),
                    done_len: Default::default(),
                    done_short: Default::default(),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, beat, len, header_pulse, done, done_len, done_short);
                for i in 0..$hb {
                    self.words[i].clock.next = self.clock.val();
                    self.words[i].d.next = self.words[i].q.val();
                }
                // Bytes in this beat: the highest kept lane + 1 (tkeep is contiguous).
                self.beat_bytes.next = bits::<16>(0);
                for i in 0..$k {
                    if self.s_axis_tkeep.val().get_bit(i) {
                        self.beat_bytes.next = self.lane_bytes[i].val();
                    }
                }
                self.header_pulse.d.next = false;
                self.done.d.next = false;
                if self.s_axis_tvalid.val() {
                    for i in 0..$hb {
                        if self.beat.q.val().index() == i {
                            self.words[i].d.next = self.s_axis_tdata.val();
                        }
                    }
                    if self.beat.q.val().index() == $lhb {
                        self.header_pulse.d.next = true;
                    }
                    self.beat.d.next = self.beat.q.val() + bits::<16>(1);
                    self.len.d.next = self.len.q.val() + self.full_beat.val();
                    if self.s_axis_tlast.val() {
                        self.beat.d.next = bits::<16>(0);
                        self.len.d.next = bits::<16>(0);
                        self.done.d.next = true;
                        self.done_len.d.next = self.len.q.val() + self.beat_bytes.val();
                        self.done_short.d.next = (self.len.q.val() + self.beat_bytes.val()) < bits::<16>(64);
                        // A frame of exactly 64 bytes or more whose header ended on an
                        // earlier beat already pulsed; a short one never does.
                        if (self.len.q.val() + self.beat_bytes.val()) < bits::<16>(64) {
                            self.header_pulse.d.next = false;
                        }
                    }
                }
                if self.reset.val() {
                    self.beat.d.next = bits::<16>(0);
                    self.len.d.next = bits::<16>(0);
                    self.header_pulse.d.next = false;
                    self.done.d.next = false;
                }
                // Pack the captured beats into the 512-bit header (unrolled: bit_cast cannot
                // take a loop-indexed signal).
                self.packed[0].next = bit_cast::<512, $w>(self.words[0].q.val());
                $(
                    self.packed[$b].next = self.packed[$b - 1].val() | (bit_cast::<512, $w>(self.words[$b].q.val()) << ($b * $w));
                )*
                self.header.next = self.packed[$lhb].val();
                self.header_valid.next = self.header_pulse.q.val();
                self.frame_len.next = self.done_len.q.val();
                self.frame_done.next = self.done.q.val();
                self.short_frame.next = self.done_short.q.val();
            }
        }
    };
}

header_capture!(
    /// 64-bit bus: the header spans beats 0..=7.
    HeaderCapture64, width = 64, keep = 8, header_beats = 8, last_header_beat = 7, more_beats = [1 2 3 4 5 6 7]
);

header_capture!(
    /// 256-bit bus: the header spans beats 0..=1.
    HeaderCapture256, width = 256, keep = 32, header_beats = 2, last_header_beat = 1, more_beats = [1]
);

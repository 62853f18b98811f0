//! The board's FIFO: block RAM + read pointer + two write pointers, with a reset. In **frame
//! mode** it is verilog-ethernet's `axis_fifo` with `FRAME_FIFO` and `DROP_BAD_FRAME`: words
//! are written at the tentative write pointer; the read side sees them only once the word that
//! ends their frame (`last`) is written, so a reader never waits inside a frame, and a frame
//! whose last word comes with `drop` is discarded: the tentative pointer goes back to where the
//! frame started, and the reader never sees any of it. While `cut_through` is high the read
//! side sees every word written (a plain FIFO, [`crate::fifo::Fifo`]; a frame being cut
//! through, [`crate::output_queues`]). A frame already being read cannot be called back: its
//! writer holds `keep_bad` high at its last word, `drop` then discards nothing, and the last
//! word leaves as it is (marked bad, for the MAC to abort). `keep_bad` is an input of its own,
//! not `cut_through`, so that a writer that picks the mode at a frame's first word can drive it
//! from the register that holds that choice (the output queues: `cut_through` comes from the
//! queues' fill levels through the merge's grant, and the discard moves the write pointers).
//!
//! Timing as [`crate::fifo::Fifo`]: a frame whose last word is written on cycle `t` can be read
//! from cycle `t + 2` (cutting through with `early`: a word written on cycle `t` from `t + 1`,
//! its data forwarded past the RAM); `data_out` is the head while `empty` is low, `read` pops it; `reset`
//! empties it in one clock. `full` refuses words (the writer waits), so a frame longer than the
//! FIFO would wait forever: its users bound their frames below 2^`N` words.
//!
//! **Registered write** ([`FrameFifo::registered_write`]: every [`crate::axis_fifo::AxisFifo`],
//! i.e. the output queues and the router's ingress and offload buffers; not any
//! [`crate::fifo::Fifo`]): the RAM's
//! write port is driven from flip-flops, a clock after the push (the writer's logic ends at a
//! register beside it, not at write pins spread over many block RAMs across the die, where
//! board64's worst paths ended). The read side sees the same words on the same clocks: a word
//! not yet in the RAM when it is read is forwarded from that register.
//!
//! The RAM ([`crate::sdp_ram`]) registers its read address when it has 32 words or fewer (LUT
//! RAM: a pop ends at that register, not at the outputs of every LUT RAM of the word) and its
//! read data otherwise (block RAM); the FIFO's outputs are the same either way.
//!
//! `N` address bits (2^N words), `NP1 = N + 1` pointer bits. `almost_full` is high, one clock
//! after the fact (and one clock longer after a pop), while `almost_level` words or more are
//! stored or being written: a writer that must never wait checks it before it starts a frame
//! ([`crate::frame_router`]), with that clock in its margin.

use rust_hdl::prelude::*;

use crate::sdp_ram::SdpRam;

#[derive(LogicBlock)]
pub struct FrameFifo<D: Synth, const N: usize, const NP1: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous: the FIFO is empty after the clock edge.
    pub reset: Signal<In, Bit>,
    pub read: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    /// The word written ends its frame.
    pub last: Signal<In, Bit>,
    /// With `last`: discard the whole frame (frame mode only).
    pub drop: Signal<In, Bit>,
    /// The read side sees words as they are written, not only whole frames.
    pub cut_through: Signal<In, Bit>,
    /// With `last` and `drop`: keep the frame (its words may have been read). High at the
    /// last word of every frame any of whose words was written with `cut_through`.
    pub keep_bad: Signal<In, Bit>,
    /// With `cut_through`: a word written on cycle `t` is seen from cycle `t + 1` (its data
    /// forwarded past the RAM, whose read of an address written in the same clock gives the
    /// old word), not `t + 2`.
    pub early: Signal<In, Bit>,
    pub full: Signal<Out, Bit>,
    pub almost_level: Signal<In, Bits<NP1>>,
    pub almost_full: Signal<Out, Bit>,
    /// From a register, conservative: a word can be written this clock (a clock ago at most
    /// 2^N - 2 words were stored or being written, and a clock adds at most one). A writer
    /// that gates on it, not on `full`, has no path from the pointers' compare.
    pub room: Signal<Out, Bit>,
    /// A word is taken only with `room`, and `full` is `!room`: the RAM's write enable does
    /// not hang on the pointers' compare (a parent ties it high or low; one word less fits).
    pub room_gate: Signal<In, Bit>,
    /// Every word written has been read and no frame is open (exact while an open frame is
    /// shorter than 2^(N+1) words, as every user's frames are), from a flip-flop (`idle_r`:
    /// set on the clock before from the pointers' compares and that clock's push and pop). A
    /// writer with a register in front of the FIFO can hand the word in that register
    /// straight to the reader instead ([`crate::output_queues`]'s bypass). (The pointers'
    /// compares as they stand, in front of the bypass, the queue's write and its pointers,
    /// were 7–9 logic levels, about 200 of board64's endpoints at 358ac01.)
    pub idle: Signal<Out, Bit>,
    /// Registers the read address when small (LUT RAM), the read data when large (block RAM).
    ram: SdpRam<D, N>,
    read_address: DFF<Bits<NP1>>,
    /// `read_address + 1`, kept beside it (as in [`crate::fifo::Fifo`]).
    read_address_plus1: DFFWithInit<Bits<NP1>>,
    /// Where the next word goes (inside the frame being written), and one past it: a push
    /// selects a kept pointer instead of adding, so `write` reaches the pointers through
    /// multiplexers only (a multicast's ready logic runs through it, [`crate::output_queues`]).
    write_address: DFF<Bits<NP1>>,
    write_address_plus1: DFFWithInit<Bits<NP1>>,
    /// One past the last word of the last whole frame: what the read side sees; and one past
    /// that, kept beside it (a dropped frame restores both pointers without adding).
    committed: DFF<Bits<NP1>>,
    committed_plus1: DFFWithInit<Bits<NP1>>,
    /// `write_address_plus1 + 1`: the one adder on the write side, on a register.
    write_plus2: Signal<Local, Bits<NP1>>,
    next_committed_plus1: Signal<Local, Bits<NP1>>,
    not_empty: DFF<Bit>,
    /// `idle` for the next clock (high at power-on, as the pointers are equal then).
    idle_r: DFFWithInit<Bit>,
    /// After this clock, `committed` is at the write pointer.
    closed_next: Signal<Local, Bit>,
    /// `idle_r`'s next value, assigned to its flip-flop once.
    next_idle: Signal<Local, Bit>,
    almost_full_r: DFF<Bit>,
    /// 2^N - 1 words (`crowded_level`; 2^N − 2 for a [`FrameFifo::staged_writer`]) or more
    /// were stored or being written a clock ago: `room` is low.
    crowded_r: DFF<Bit>,
    /// The RAM was read at the address written in the same clock: `data_out` is the word
    /// written then (`fwd_data`), not the RAM's.
    fwd_hit: DFF<Bit>,
    fwd_data: DFF<D>,
    /// Registered write: the RAM's write port a clock after the push (`w_en` high), and the
    /// RAM read at the address it writes in the same clock (`fwd2_hit`: `data_out` is the
    /// word it writes, `fwd2_data`).
    reg_write: Constant<Bit>,
    w_en: DFF<Bit>,
    w_addr: DFF<Bits<N>>,
    w_data: DFF<D>,
    fwd2_hit: DFF<Bit>,
    fwd2_data: DFF<D>,
    /// The RAM's read address.
    r_addr: Signal<Local, Bits<N>>,
    /// The read pointer after this clock's pop is not at the write pointer (as it is now).
    seen_stay: Signal<Local, Bit>,
    /// The compares of both read pointers a pop can leave (`read_address`, and
    /// `read_address_plus1` after a pop) with the write pointer and with `committed`, made
    /// beside each other from flip-flops: the pop then only selects between two answers, not
    /// the pointer in front of a compare (the frame builder's `pop_q` → its entry queue →
    /// the next read address → `seen_stay` → `not_empty`, 7 cells, was board64's worst path
    /// on seed 3 at fb6736d).
    stay_at: Signal<Local, Bit>,
    stay_past: Signal<Local, Bit>,
    left_at: Signal<Local, Bit>,
    left_past: Signal<Local, Bit>,
    l_data_out: Signal<Local, D>,
    is_full: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    next_read: Signal<Local, Bits<NP1>>,
    next_read_plus1: Signal<Local, Bits<NP1>>,
    next_write: Signal<Local, Bits<NP1>>,
    next_write_plus1: Signal<Local, Bits<NP1>>,
    address_mask: Constant<Bits<NP1>>,
    size: Constant<Bits<NP1>>,
    crowded_level: Constant<Bits<NP1>>,
}

impl<D: Synth, const N: usize, const NP1: usize> Default for FrameFifo<D, N, NP1> {
    fn default() -> Self {
        assert_eq!(N + 1, NP1, "FrameFifo: NP1 must be N + 1");
        assert!(NP1 < 32);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            last: Default::default(),
            drop: Default::default(),
            cut_through: Default::default(),
            keep_bad: Default::default(),
            early: Default::default(),
            full: Default::default(),
            almost_level: Default::default(),
            almost_full: Default::default(),
            room: Default::default(),
            room_gate: Default::default(),
            idle: Default::default(),
            ram: Default::default(),
            read_address: Default::default(),
            read_address_plus1: DFFWithInit::new(1u64.to_bits()),
            write_address: Default::default(),
            write_address_plus1: DFFWithInit::new(1u64.to_bits()),
            committed: Default::default(),
            committed_plus1: DFFWithInit::new(1u64.to_bits()),
            write_plus2: Default::default(),
            next_committed_plus1: Default::default(),
            not_empty: Default::default(),
            idle_r: DFFWithInit::new(true),
            closed_next: Default::default(),
            next_idle: Default::default(),
            almost_full_r: Default::default(),
            crowded_r: Default::default(),
            fwd_hit: Default::default(),
            fwd_data: Default::default(),
            reg_write: Constant::new(false),
            w_en: Default::default(),
            w_addr: Default::default(),
            w_data: Default::default(),
            fwd2_hit: Default::default(),
            fwd2_data: Default::default(),
            r_addr: Default::default(),
            seen_stay: Default::default(),
            stay_at: Default::default(),
            stay_past: Default::default(),
            left_at: Default::default(),
            left_past: Default::default(),
            l_data_out: Default::default(),
            is_full: Default::default(),
            pop: Default::default(),
            push: Default::default(),
            next_read: Default::default(),
            next_read_plus1: Default::default(),
            next_write: Default::default(),
            next_write_plus1: Default::default(),
            address_mask: Constant::new(((1u64 << N) - 1).to_bits()),
            size: Constant::new((1u64 << N).to_bits()),
            crowded_level: Constant::new(((1u64 << N) - 1).to_bits()),
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize> FrameFifo<D, N, NP1> {
    /// The FIFO with its RAM's write port registered (the module doc).
    pub fn registered_write() -> Self {
        Self {
            reg_write: Constant::new(true),
            ..Default::default()
        }
    }

    /// `room` a word sooner (low from 2^N − 2 words a clock ago): for a writer that checks
    /// `room` a clock before its word reaches `write` (a register between,
    /// [`crate::output_queues`]), so the word in that register always fits.
    pub fn staged_writer(self) -> Self {
        Self {
            crowded_level: Constant::new(((1u64 << N) - 2).to_bits()),
            ..self
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize> Logic for FrameFifo<D, N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            read_address,
            write_address,
            committed,
            not_empty,
            almost_full_r,
            crowded_r,
            fwd_hit,
            fwd_data,
            w_en,
            w_addr,
            w_data,
            fwd2_hit,
            fwd2_data
        );
        self.read_address_plus1.clock.next = self.clock.val();
        self.idle_r.clock.next = self.clock.val();
        self.write_address_plus1.clock.next = self.clock.val();
        self.committed_plus1.clock.next = self.clock.val();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        // Full: the pointers a lap apart, or, with `room_gate`, no `room` (each output assigned
        // once: the select is an expression, not an override).
        self.is_full.next = (((self.write_address.q.val() ^ self.read_address.q.val())
            == self.size.val())
            & !self.room_gate.val())
            | (self.crowded_r.q.val() & self.room_gate.val());
        self.pop.next = self.read.val() & self.not_empty.q.val();
        self.push.next = self.write.val() & !self.is_full.val();
        self.next_read.next = self.read_address.q.val();
        self.next_read_plus1.next = self.read_address_plus1.q.val();
        if self.pop.val() {
            self.next_read.next = self.read_address_plus1.q.val();
            self.next_read_plus1.next = self.read_address_plus1.q.val() + bits::<NP1>(1);
        }
        self.stay_at.next = self.read_address.q.val() != self.write_address.q.val();
        self.stay_past.next = self.read_address_plus1.q.val() != self.write_address.q.val();
        self.left_at.next = self.read_address.q.val() != self.committed.q.val();
        self.left_past.next = self.read_address_plus1.q.val() != self.committed.q.val();
        self.seen_stay.next = self.stay_at.val();
        if self.pop.val() {
            self.seen_stay.next = self.stay_past.val();
        }
        self.empty.next = !self.not_empty.q.val();
        // Idle next clock: the read pointer after this clock's pop at `committed`, and
        // `committed` at the write pointer after this clock's push: it is there now and no
        // word is pushed, or the push is a dropped frame's last word (the write pointer goes
        // back to `committed`). Any other push leaves a word to read or a frame open.
        self.closed_next.next = (!self.push.val()
            & (self.committed.q.val() == self.write_address.q.val()))
            | (self.push.val() & self.last.val() & self.drop.val() & !self.keep_bad.val());
        self.next_idle.next = !self.left_at.val() & self.closed_next.val();
        if self.pop.val() {
            self.next_idle.next = !self.left_past.val() & self.closed_next.val();
        }
        self.idle.next = self.idle_r.q.val();
        self.full.next = self.is_full.val();
        self.almost_full.next = self.almost_full_r.q.val();
        self.room.next = !self.crowded_r.q.val();
        self.r_addr.next = bit_cast::<N, NP1>(self.next_read.val() & self.address_mask.val());
        self.ram.read_address.next = self.r_addr.val();
        // A read of the address written this clock gets the RAM's old word: the written one
        // is forwarded (only an `early` reader can look there while the word is valid).
        // (The read address is the write address exactly when the read pointer, after this
        // clock's pop, is at the write pointer: `seen_stay` low. A push needs room, so the
        // pointers are not a lap apart then.)
        self.fwd_hit.d.next = self.push.val() & !self.seen_stay.val();
        self.fwd_data.d.next = self.data_in.val();
        // Registered write: the word pushed a clock ago is written now; a read of its address
        // now gets it forwarded (the word pushed now wins: a dropped frame's rewind can bring
        // the write pointer back to an address still being written). The address and data
        // registers load on every clock and mean something only with `w_en` (and `fwd2_data`
        // only with `fwd2_hit`): no enable. (The push as the enable of the ingress buffer's
        // data flip-flops was 30–33 of board64's late endpoints on both seeds at b953173.)
        self.w_en.d.next = self.push.val();
        self.w_addr.d.next =
            bit_cast::<N, NP1>(self.write_address.q.val() & self.address_mask.val());
        self.w_data.d.next = self.data_in.val();
        self.fwd2_hit.d.next = self.w_en.q.val() & (self.r_addr.val() == self.w_addr.q.val());
        self.fwd2_data.d.next = self.w_data.q.val();
        self.l_data_out.next = self.ram.read_data.val();
        if self.fwd_hit.q.val() {
            self.l_data_out.next = self.fwd_data.q.val();
        } else if self.reg_write.val() & self.fwd2_hit.q.val() {
            self.l_data_out.next = self.fwd2_data.q.val();
        }
        self.data_out.next = self.l_data_out.val();
        if self.reg_write.val() {
            self.ram.write_address.next = self.w_addr.q.val();
            self.ram.write_data.next = self.w_data.q.val();
            self.ram.write_enable.next = self.w_en.q.val();
        } else {
            self.ram.write_address.next =
                bit_cast::<N, NP1>(self.write_address.q.val() & self.address_mask.val());
            self.ram.write_data.next = self.data_in.val();
            self.ram.write_enable.next = self.push.val();
        }
        self.read_address.d.next = self.next_read.val();
        // A frame's last word commits it or throws it away.
        self.write_plus2.next = self.write_address_plus1.q.val() + bits::<NP1>(1);
        self.next_write.next = self.write_address.q.val();
        self.next_write_plus1.next = self.write_address_plus1.q.val();
        self.committed.d.next = self.committed.q.val();
        self.next_committed_plus1.next = self.committed_plus1.q.val();
        if self.push.val() {
            if self.last.val() & self.drop.val() & !self.keep_bad.val() {
                self.next_write.next = self.committed.q.val();
                self.next_write_plus1.next = self.committed_plus1.q.val();
            } else {
                self.next_write.next = self.write_address_plus1.q.val();
                self.next_write_plus1.next = self.write_plus2.val();
                if self.last.val() {
                    self.committed.d.next = self.write_address_plus1.q.val();
                    self.next_committed_plus1.next = self.write_plus2.val();
                }
            }
        }
        // Next clock the read side sees `committed` (or, cutting through, `write_address`) as
        // it is now: the RAM holds its words by then.
        self.not_empty.d.next = self.left_at.val();
        if self.pop.val() {
            self.not_empty.d.next = self.left_past.val();
        }
        if self.cut_through.val() {
            self.not_empty.d.next = self.seen_stay.val();
            if self.early.val() {
                // The read pointer never passes the write pointer: after a push there is a
                // word to read.
                self.not_empty.d.next = self.seen_stay.val() | self.push.val();
            }
        }
        // From the pointers as they are (a pop this clock shows next clock): no path from
        // `read` to the flag, which only has to be conservative.
        self.almost_full_r.d.next =
            (self.write_address.q.val() - self.read_address.q.val()) >= self.almost_level.val();
        self.crowded_r.d.next =
            (self.write_address.q.val() - self.read_address.q.val()) >= self.crowded_level.val();
        if self.reset.val() {
            self.read_address.d.next = bits::<NP1>(0);
            self.next_read_plus1.next = bits::<NP1>(1);
            self.next_write.next = bits::<NP1>(0);
            self.next_write_plus1.next = bits::<NP1>(1);
            self.committed.d.next = bits::<NP1>(0);
            self.next_committed_plus1.next = bits::<NP1>(1);
            self.not_empty.d.next = false;
            self.next_idle.next = true;
            self.almost_full_r.d.next = false;
            self.crowded_r.d.next = false;
            self.fwd_hit.d.next = false;
            self.w_en.d.next = false;
            self.fwd2_hit.d.next = false;
        }
        // Blocks of their own (they start at 1): their inputs are assigned once.
        self.read_address_plus1.d.next = self.next_read_plus1.val();
        self.write_address_plus1.d.next = self.next_write_plus1.val();
        self.committed_plus1.d.next = self.next_committed_plus1.val();
        self.idle_r.d.next = self.next_idle.val();
        self.write_address.d.next = self.next_write.val();
    }
}

//! A four-entry FIFO in flip-flops, for a few bits of side-band per frame (the router's class
//! of each frame in its ingress buffer). Unlike the block-RAM [`crate::fifo::Fifo`], a word
//! written on cycle `t` is the head on cycle `t + 1`. `data_out` and `empty` come straight out of
//! registers (`head_q`, `filled_q`), each kept equal to what the entries and pointers say (the
//! head entry, pointers unequal): the 4:1 multiplexer on the entries and the pointer compare are
//! computed for the next clock, with `read` choosing at the last mux, so a path that starts at
//! this FIFO's head does not run through its pointers (the router's class FIFO read pointer →
//! its output registers was one of board64's worst paths, 104.5 MHz). `full` comes from a
//! register too (`full_q`: the class FIFO's read pointer → `full` → the router's `accept` →
//! the header capture's enables was board64's worst path on seed 1 after 6102a4a, 8.18 ns).
//! `filled_q`, `full_q` and `level_q` (exactly 1, 2, 3 words) are a one-hot count shifted by
//! `push` and `pop`, not a compare of the incremented pointers (the input arbiter's grant →
//! the router's `accept` → the class FIFO's `write` → `full_q` was board64's worst path on
//! seed 1 at b33b2d9); `almost_full` (three words or four) is one gate on those registers, for
//! a writer whose write lands a clock after it decides to take a beat; `write` while full and
//! `read` while empty are ignored; `reset` empties it and zeroes every entry.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RegFifo4<D: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    pub full: Signal<Out, Bit>,
    /// Three words or four.
    pub almost_full: Signal<Out, Bit>,
    pub read: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    entries: [DFF<D>; 4],
    /// Pointers; bit 2 is a lap bit, as in the block-RAM FIFO (the flags do not read it).
    read_at: DFF<Bits<3>>,
    write_at: DFF<Bits<3>>,
    index: [Constant<Bits<2>>; 4],
    zero: Constant<D>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    is_empty: Signal<Local, Bit>,
    is_full: Signal<Local, Bit>,
    head_q: DFF<D>,
    /// Not empty (low at power-on, as the pointers are equal then).
    filled_q: DFF<Bit>,
    /// Full (low at power-on).
    full_q: DFF<Bit>,
    /// Exactly 1, 2, 3 words (bits 0, 1, 2; with `filled_q` and `full_q` a one-hot count, all
    /// low at power-on): the flags' next values are a shift of it by `push` and `pop`, not a
    /// compare of the pointers after their increments.
    level_q: DFF<Bits<3>>,
    /// Words up (`push`, no `pop`) or down.
    up: Signal<Local, Bit>,
    down: Signal<Local, Bit>,
    /// The entry after the head (its slot is written this clock: the word written).
    after_head: Signal<Local, D>,
    /// The head if it stays (the FIFO empty and written this clock: the word written).
    stay_head: Signal<Local, D>,
    read_slot: Signal<Local, Bits<2>>,
    next_slot: Signal<Local, Bits<2>>,
    write_slot: Signal<Local, Bits<2>>,
    read_next: Signal<Local, Bits<3>>,
    write_next: Signal<Local, Bits<3>>,
}

impl<D: Synth> Default for RegFifo4<D> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            full: Default::default(),
            almost_full: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            entries: std::array::from_fn(|_| Default::default()),
            read_at: Default::default(),
            write_at: Default::default(),
            index: std::array::from_fn(|i| Constant::new(bits::<2>(i as u64))),
            zero: Constant::new(D::default()),
            push: Default::default(),
            pop: Default::default(),
            is_empty: Default::default(),
            is_full: Default::default(),
            head_q: Default::default(),
            filled_q: Default::default(),
            full_q: Default::default(),
            level_q: Default::default(),
            up: Default::default(),
            down: Default::default(),
            after_head: Default::default(),
            stay_head: Default::default(),
            read_slot: Default::default(),
            next_slot: Default::default(),
            write_slot: Default::default(),
            read_next: Default::default(),
            write_next: Default::default(),
        }
    }
}

impl<D: Synth> Logic for RegFifo4<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, read_at, write_at, head_q, filled_q, full_q, level_q
        );
        // The pointer registers say the FIFO is empty exactly when `filled_q` is low, full
        // exactly when `full_q` is high.
        self.is_empty.next = !self.filled_q.q.val();
        self.is_full.next = self.full_q.q.val();
        self.push.next = self.write.val() & !self.is_full.val();
        self.pop.next = self.read.val() & !self.is_empty.val();
        self.read_slot.next = self.read_at.q.val().get_bits::<2>(0);
        self.next_slot.next = self.read_slot.val() + bits::<2>(1);
        self.write_slot.next = self.write_at.q.val().get_bits::<2>(0);
        self.after_head.next = self.entries[0].q.val();
        for i in 0..4 {
            self.entries[i].clock.next = self.clock.val();
            self.entries[i].d.next = self.entries[i].q.val();
            if self.push.val() & (self.write_slot.val() == self.index[i].val()) {
                self.entries[i].d.next = self.data_in.val();
            }
            if self.next_slot.val() == self.index[i].val() {
                self.after_head.next = self.entries[i].q.val();
            }
            if self.reset.val() {
                self.entries[i].d.next = self.zero.val();
            }
        }
        // The head entry, next clock: the one after it if read, else the same; a slot written
        // this clock holds the word written.
        if self.push.val() & (self.write_slot.val() == self.next_slot.val()) {
            self.after_head.next = self.data_in.val();
        }
        self.stay_head.next = self.head_q.q.val();
        if self.push.val() & (self.write_slot.val() == self.read_slot.val()) {
            self.stay_head.next = self.data_in.val();
        }
        self.head_q.d.next = self.stay_head.val();
        if self.pop.val() {
            self.head_q.d.next = self.after_head.val();
        }
        self.write_next.next = self.write_at.q.val() + bit_cast::<3, 1>(self.push.val().into());
        self.read_next.next = self.read_at.q.val() + bit_cast::<3, 1>(self.pop.val().into());
        self.write_at.d.next = self.write_next.val();
        self.read_at.d.next = self.read_next.val();
        self.up.next = self.push.val() & !self.pop.val();
        self.down.next = self.pop.val() & !self.push.val();
        self.filled_q.d.next = self.filled_q.q.val();
        self.level_q.d.next = self.level_q.q.val();
        self.full_q.d.next = self.full_q.q.val();
        if self.up.val() {
            self.filled_q.d.next = true;
            self.level_q.d.next =
                (self.level_q.q.val() << 1) | bit_cast::<3, 1>(self.is_empty.val().into());
            self.full_q.d.next = self.level_q.q.val().get_bit(2);
        } else if self.down.val() {
            self.filled_q.d.next = !self.level_q.q.val().get_bit(0);
            self.level_q.d.next =
                (self.level_q.q.val() >> 1) | (bit_cast::<3, 1>(self.full_q.q.val().into()) << 2);
            self.full_q.d.next = false;
        }
        if self.reset.val() {
            self.write_at.d.next = bits::<3>(0);
            self.read_at.d.next = bits::<3>(0);
            self.head_q.d.next = self.zero.val();
            self.filled_q.d.next = false;
            self.full_q.d.next = false;
            self.level_q.d.next = bits::<3>(0);
        }
        self.data_out.next = self.head_q.q.val();
        self.empty.next = self.is_empty.val();
        self.full.next = self.is_full.val();
        self.almost_full.next = self.is_full.val() | self.level_q.q.val().get_bit(2);
    }
}

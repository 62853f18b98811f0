//! A four-entry FIFO in flip-flops, for a few bits of side-band per frame (the router's class
//! of each frame in its ingress buffer). Unlike the block-RAM [`crate::fifo::Fifo`], a word
//! written on cycle `t` is the head on cycle `t + 1`: `data_out` is a 4:1 multiplexer on the
//! entry registers. `empty` and `full` come from the pointer registers; `write` while full and
//! `read` while empty are ignored; `reset` empties it and zeroes every entry.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RegFifo4<D: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    pub full: Signal<Out, Bit>,
    pub read: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    entries: [DFF<D>; 4],
    /// Pointers with a lap bit (bit 2), as in the block-RAM FIFO.
    read_at: DFF<Bits<3>>,
    write_at: DFF<Bits<3>>,
    index: [Constant<Bits<2>>; 4],
    lap: Constant<Bits<3>>,
    zero: Constant<D>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    is_empty: Signal<Local, Bit>,
    is_full: Signal<Local, Bit>,
    head: Signal<Local, D>,
}

impl<D: Synth> Default for RegFifo4<D> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            full: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            entries: std::array::from_fn(|_| Default::default()),
            read_at: Default::default(),
            write_at: Default::default(),
            index: std::array::from_fn(|i| Constant::new(bits::<2>(i as u64))),
            lap: Constant::new(bits::<3>(4)),
            zero: Constant::new(D::default()),
            push: Default::default(),
            pop: Default::default(),
            is_empty: Default::default(),
            is_full: Default::default(),
            head: Default::default(),
        }
    }
}

impl<D: Synth> Logic for RegFifo4<D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, read_at, write_at);
        self.is_empty.next = self.read_at.q.val() == self.write_at.q.val();
        self.is_full.next = (self.read_at.q.val() ^ self.write_at.q.val()) == self.lap.val();
        self.push.next = self.write.val() & !self.is_full.val();
        self.pop.next = self.read.val() & !self.is_empty.val();
        self.head.next = self.entries[0].q.val();
        for i in 0..4 {
            self.entries[i].clock.next = self.clock.val();
            self.entries[i].d.next = self.entries[i].q.val();
            if self.push.val() & (self.write_at.q.val().get_bits::<2>(0) == self.index[i].val()) {
                self.entries[i].d.next = self.data_in.val();
            }
            if self.read_at.q.val().get_bits::<2>(0) == self.index[i].val() {
                self.head.next = self.entries[i].q.val();
            }
            if self.reset.val() {
                self.entries[i].d.next = self.zero.val();
            }
        }
        self.write_at.d.next = self.write_at.q.val() + bit_cast::<3, 1>(self.push.val().into());
        self.read_at.d.next = self.read_at.q.val() + bit_cast::<3, 1>(self.pop.val().into());
        if self.reset.val() {
            self.write_at.d.next = bits::<3>(0);
            self.read_at.d.next = bits::<3>(0);
        }
        self.data_out.next = self.head.val();
        self.empty.next = self.is_empty.val();
        self.full.next = self.is_full.val();
    }
}

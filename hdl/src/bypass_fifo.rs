//! A [`crate::fifo::Fifo`] whose word written into it while it is empty is the head on the
//! next clock, not two clocks later: the block-RAM FIFO plus one register in front of its
//! read side (`early`). For a queue of one entry per frame whose reader waits for the head
//! (the router's verdict queue, the frame builder's entry queue): each such queue sat on the
//! engine hop with its two clocks.
//!
//! A word written when the FIFO is empty and nothing written on the clock before is still on
//! its way through the RAM goes into `early` (also when `early` is being read this clock);
//! any other word goes into the RAM FIFO, behind it. So `early`, when full, is the oldest word,
//! and the order is kept. `data_out` is `early` when full, else the RAM FIFO's head: one
//! multiplexer, its select a flip-flop. A word written into the RAM FIFO behind `early` is
//! seen two clocks after it was written (the RAM FIFO's own timing), so a reader that takes a
//! word every clock may see a gap when the FIFO goes from one to two words: this is a queue of
//! frames' side-band, not a stream.
//!
//! `full` and `almost_full` are the RAM FIFO's (`early` is room on top: conservative);
//! `write` while full and `read` while empty are ignored; `reset` empties it in one clock.
//! Every output is assigned once per evaluation (see `collwire_flow::verilog_lint`).

use rust_hdl::prelude::*;

use crate::fifo::Fifo;

#[derive(LogicBlock)]
pub struct BypassFifo<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> {
    pub clock: Signal<In, Clock>,
    /// Synchronous: the FIFO is empty after the clock edge.
    pub reset: Signal<In, Bit>,
    pub read: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    pub full: Signal<Out, Bit>,
    pub almost_full: Signal<Out, Bit>,
    words: Fifo<D, N, NP1, ALMOST>,
    early: DFF<D>,
    early_full: DFF<Bit>,
    /// A word went into the RAM FIFO on the last clock (its `empty` does not show it yet).
    in_flight: DFF<Bit>,
    pop_early: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    to_early: Signal<Local, Bit>,
    l_data_out: Signal<Local, D>,
}

impl<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> Default
    for BypassFifo<D, N, NP1, ALMOST>
{
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            full: Default::default(),
            almost_full: Default::default(),
            words: Default::default(),
            early: Default::default(),
            early_full: Default::default(),
            in_flight: Default::default(),
            pop_early: Default::default(),
            push: Default::default(),
            to_early: Default::default(),
            l_data_out: Default::default(),
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> Logic
    for BypassFifo<D, N, NP1, ALMOST>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, early, early_full, in_flight);
        clock!(self, clock, words);
        self.words.reset.next = self.reset.val();
        self.words.early.next = false;
        self.pop_early.next = self.read.val() & self.early_full.q.val();
        self.push.next = self.write.val() & !self.words.full.val();
        // Into `early` only while nothing is in the RAM FIFO or on its way there: so `early`
        // is older than every word behind it.
        self.to_early.next = self.push.val()
            & self.words.empty.val()
            & !self.in_flight.q.val()
            & (!self.early_full.q.val() | self.pop_early.val());
        if self.to_early.val() {
            self.early.d.next = self.data_in.val();
        }
        self.early_full.d.next =
            self.to_early.val() | (self.early_full.q.val() & !self.pop_early.val());
        self.words.write.next = self.push.val() & !self.to_early.val();
        self.words.data_in.next = self.data_in.val();
        self.in_flight.d.next = self.push.val() & !self.to_early.val();
        // The RAM FIFO is read only once `early` is empty (its head is behind `early`).
        self.words.read.next = self.read.val() & !self.early_full.q.val();
        self.l_data_out.next = self.words.data_out.val();
        if self.early_full.q.val() {
            self.l_data_out.next = self.early.q.val();
        }
        if self.reset.val() {
            self.early_full.d.next = false;
            self.in_flight.d.next = false;
        }
        self.data_out.next = self.l_data_out.val();
        self.empty.next = !self.early_full.q.val() & self.words.empty.val();
        self.full.next = self.words.full.val();
        self.almost_full.next = self.words.almost_full.val();
    }
}

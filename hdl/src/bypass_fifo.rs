//! A [`crate::fifo::Fifo`] whose word written into it while it is empty is the head on the
//! next clock, not two clocks later, and whose head comes straight out of a register
//! (`head`): for a queue of one entry per frame whose reader waits for the head and compares
//! it with much (the router's verdict queue: its head's fields are the CFE's lookup key and
//! signature; the frame builder's entry queue). Each such queue sits on the engine hop.
//!
//! Behind `head` is the block-RAM FIFO in its `early` mode (a word written is its head the
//! next clock). `head` is loaded whenever it is empty or read: from the RAM FIFO's head if it
//! has one, else with `data_in` (the word written this clock, if one is; `head` counts as full
//! only when a word was taken, and `data_out` means something only while not `empty`). So
//! `data_out` is one flip-flop, and the RAM's read data, its forward select and `data_in` meet
//! at `head`'s input, not on the reader's path.
//! (The first design, a register beside the RAM FIFO and a select between them, put that
//! select and the RAM FIFO's own forward select in front of the CFE's key compares: board64's
//! worst path on seed 1 at 406f211, 132.7 MHz.)
//!
//! The timing is the first design's, clock for clock (`sim/tests/bypass_fifo.rs` checks it
//! against a model of that design): a word written while nothing is held and nothing was written
//! on the clock before, or while the only word held is shown and read and came in that way, is
//! the head on the next clock; any other word no earlier than two clocks after its write, and
//! once every older word has gone. The second rule is kept by `from_ram`: a head that came
//! through the RAM FIFO stood for a word of the first design's RAM FIFO, and a word written on
//! the clock it is read went behind it there. So a reader that takes a word every clock may see a
//! gap when the FIFO goes from one to two words: this is a queue of frames' side-band, not a
//! stream.
//!
//! `data_next` and `empty_next` are what `data_out` and `empty` will be after the clock edge
//! (`head`'s and `head_full`'s inputs): a reader that registers a decision on the head a clock
//! ahead (the router's offload `tvalid`, a flip-flop with the value the head's would have, so
//! that the CFE's arrival check starts from one register) uses them.
//!
//! A reader reads a clock ahead: `read_next` says whether it reads the head on the next clock,
//! and the FIFO registers it (`read_q`, the read of this clock), which it gives back as
//! `reading`: a reader that waits out the clock of its read (the router's verdict queue, the
//! frame builder's entry queue) takes that flip-flop rather than keeping one of its own (the
//! builder's own copy, reset in a branch of its own, was one Yosys did not merge). Knowing the
//! read a clock ahead, `head`'s load enable comes from a flip-flop of its own (`refill_r`,
//! `refill` a clock ahead), so the read flip-flop drives only the RAM FIFO's control, not also
//! `head`'s hundreds of enables: a `refill` LUT shared by both sat in the middle of `head`'s
//! bits and put two long routes on the frame builder's read flip-flop (then `pop_q`) → the RAM
//! FIFO's `fwd_hit` (board64's worst path on seed 2 at 07ea5f7, 143.5 MHz, 1.17 / 5.79 ns).
//! (Until 2026-12-05 the reader gave `read` from its own flip-flop beside `read_next`, a
//! promise nothing checked.)
//!
//! `full` and `almost_full` are the RAM FIFO's (`head` is room on top: conservative); `write`
//! while full and a read while empty are ignored; `reset` empties it in one clock. Every output
//! is assigned once per evaluation (see `collwire_flow::verilog_lint`).

use rust_hdl::prelude::*;

use crate::fifo::Fifo;

#[derive(LogicBlock)]
pub struct BypassFifo<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> {
    pub clock: Signal<In, Clock>,
    /// Synchronous: the FIFO is empty after the clock edge.
    pub reset: Signal<In, Bit>,
    /// Read the head on the next clock (see the module doc): registered into `read_q`.
    pub read_next: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    pub full: Signal<Out, Bit>,
    pub almost_full: Signal<Out, Bit>,
    /// `data_out` after the next clock edge.
    pub data_next: Signal<Out, D>,
    /// `empty` after the next clock edge.
    pub empty_next: Signal<Out, Bit>,
    /// The head is read this clock: `read_next` of the clock before, from `read_q`.
    pub reading: Signal<Out, Bit>,
    words: Fifo<D, N, NP1, ALMOST>,
    /// The read of this clock: `read_next` of the clock before.
    read_q: DFF<Bit>,
    head: DFF<D>,
    head_full: DFF<Bit>,
    /// `head` was loaded from the RAM FIFO.
    from_ram: DFF<Bit>,
    /// `refill` of this clock, loaded a clock ahead from `full_next` and `read_next` (high at
    /// power-on, as `head` is empty then).
    refill_r: DFFWithInit<Bit>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    /// `head` takes a word this clock: it is empty or read.
    refill: Signal<Local, Bit>,
    /// ... from the RAM FIFO's head.
    take_ram: Signal<Local, Bit>,
    /// ... the word written.
    take_in: Signal<Local, Bit>,
    /// `head`'s and `head_full`'s next values.
    head_next: Signal<Local, D>,
    full_next: Signal<Local, Bit>,
}

impl<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> Default
    for BypassFifo<D, N, NP1, ALMOST>
{
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            read_next: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            full: Default::default(),
            almost_full: Default::default(),
            data_next: Default::default(),
            empty_next: Default::default(),
            reading: Default::default(),
            words: Default::default(),
            read_q: Default::default(),
            head: Default::default(),
            head_full: Default::default(),
            from_ram: Default::default(),
            refill_r: DFFWithInit::new(true),
            pop: Default::default(),
            push: Default::default(),
            refill: Default::default(),
            take_ram: Default::default(),
            take_in: Default::default(),
            head_next: Default::default(),
            full_next: Default::default(),
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> Logic
    for BypassFifo<D, N, NP1, ALMOST>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, read_q, head, head_full, from_ram);
        self.read_q.d.next = self.read_next.val();
        self.reading.next = self.read_q.q.val();
        self.refill_r.clock.next = self.clock.val();
        clock!(self, clock, words);
        self.words.reset.next = self.reset.val();
        self.words.early.next = true;
        self.pop.next = self.read_q.q.val() & self.head_full.q.val();
        self.push.next = self.write.val() & !self.words.full.val();
        self.refill.next = !self.head_full.q.val() | self.pop.val();
        self.take_ram.next = self.refill.val() & !self.words.empty.val();
        // The word written goes straight to `head` only while nothing else is held, or the
        // head read now came in straight too (see the module doc).
        self.take_in.next = self.push.val()
            & self.words.empty.val()
            & (!self.head_full.q.val() | (self.pop.val() & !self.from_ram.q.val()));
        self.words.read.next = self.take_ram.val();
        self.words.write.next = self.push.val() & !self.take_in.val();
        self.words.data_in.next = self.data_in.val();
        // Loaded on `refill` alone (its flip-flop, `refill_r`), not on whether a word comes (`take_ram | take_in`): the
        // writer's `write` stays out of the enable of all of `head`'s bits (the CFE's
        // `ent_pend` → the entry queue's write → the 570 enables was board64's worst path on
        // seed 3 at bce5998). A `head` loaded with nothing taken is not full: it holds the
        // word written (or whatever is on `data_in`), never shown.
        self.head_next.next = self.head.q.val();
        if self.refill_r.q.val() {
            if self.words.empty.val() {
                self.head_next.next = self.data_in.val();
            } else {
                self.head_next.next = self.words.data_out.val();
            }
        }
        self.head.d.next = self.head_next.val();
        self.full_next.next =
            self.take_ram.val() | self.take_in.val() | (self.head_full.q.val() & !self.pop.val());
        if self.take_ram.val() | self.take_in.val() {
            self.from_ram.d.next = self.take_ram.val();
        }
        if self.reset.val() {
            self.full_next.next = false;
            self.from_ram.d.next = false;
        }
        self.head_full.d.next = self.full_next.val();
        self.refill_r.d.next = !self.full_next.val() | self.read_next.val();
        self.data_next.next = self.head_next.val();
        self.empty_next.next = !self.full_next.val();
        self.data_out.next = self.head.q.val();
        self.empty.next = !self.head_full.q.val();
        self.full.next = self.words.full.val();
        self.almost_full.next = self.words.almost_full.val();
    }
}

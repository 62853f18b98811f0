//! A synchronous FIFO with a reset, as rust-hdl's
//! `SynchronousFIFO` (same ports, same timing: a word written on cycle `t` can be read from
//! cycle `t + 2`, `data_out` is the head while `empty` is low, `read` pops it), plus `reset`,
//! which empties it in one clock. rust-hdl's FIFO has no reset, so a board could not be
//! returned to its power-on state without this one (issue 14).
//!
//! `N` address bits (2^N words), `NP1 = N + 1` pointer bits (the extra bit tells full from
//! empty, Cummings SNUG 2002), `ALMOST` words of headroom: `almost_full` is high from
//! 2^N − `ALMOST` words on (a clock late, and a clock longer after a pop: conservative).
//!
//! `empty`, `almost_full` and `full` come straight from flip-flops (computed from the
//! pointers), and a pop selects a kept `read_address + 1` instead of adding, so the path from
//! `read` to the RAM address is one multiplexer: a parent can chain its ready logic through
//! it. `full` is [`FrameFifo`]'s `room` inverted (high from 2^N − 1 words a clock ago on:
//! conservative, so the last word may not fit), and a write is taken or refused on it alone,
//! so the RAM's write enable does not hang on a compare of the pointers.
//!
//! It is the board's one FIFO implementation, [`FrameFifo`], with frame mode off
//! (`cut_through` high: every word is seen as soon as it is written) and a constant
//! `almost_full` level. Its RAM is written on the clock of the push ([`FrameFifo`]'s
//! default, not its registered write): the router's verdict queue and the frame builder's
//! entry queue (one word per frame) and the CIPE's result FIFO, whose read data lie on long
//! paths that the registered write's second forward lengthened by a select on hundreds of
//! bits (board64, ECP5 proxy, seeds 1 / 2: 124.8 / 118.5 MHz with it, 127.6 / 125.8
//! without, and 1,747 fewer flip-flops).
//!
//! Every output is assigned once per evaluation (see `collwire_flow::verilog_lint`).

use rust_hdl::prelude::*;

use crate::frame_fifo::FrameFifo;

#[derive(LogicBlock)]
pub struct Fifo<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> {
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
    /// A word written on cycle `t` is the head from `t + 1`, not `t + 2` (its data forwarded
    /// past the RAM, [`FrameFifo`]'s `early`).
    pub early: Signal<In, Bit>,
    words: FrameFifo<D, N, NP1>,
    almost_full_level: Constant<Bits<NP1>>,
}

impl<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> Default
    for Fifo<D, N, NP1, ALMOST>
{
    fn default() -> Self {
        assert!((ALMOST as u128) < (1u128 << N));
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
            early: Default::default(),
            words: FrameFifo::default(),
            almost_full_level: Constant::new(((1u64 << N) - u64::from(ALMOST)).to_bits()),
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> Logic
    for Fifo<D, N, NP1, ALMOST>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.words.clock.next = self.clock.val();
        self.words.reset.next = self.reset.val();
        self.words.read.next = self.read.val();
        self.words.write.next = self.write.val();
        self.words.data_in.next = self.data_in.val();
        self.words.last.next = false;
        self.words.drop.next = false;
        self.words.cut_through.next = true;
        self.words.keep_bad.next = true;
        self.words.early.next = self.early.val();
        // `full` from a flip-flop, and the write enable without the pointers' compare
        // (the router's verdict queue: its read pointer → the compare → the RAM's write
        // enables was board64's worst path on seed 2 at 811197d).
        self.words.room_gate.next = true;
        self.words.almost_level.next = self.almost_full_level.val();
        self.data_out.next = self.words.data_out.val();
        self.empty.next = self.words.empty.val();
        self.full.next = self.words.full.val();
        self.almost_full.next = self.words.almost_full.val();
    }
}

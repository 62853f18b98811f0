//! A synchronous FIFO with a reset: block RAM + read pointer + write pointer, as rust-hdl's
//! `SynchronousFIFO` (same ports, same timing: a word written on cycle `t` can be read from
//! cycle `t + 2`, `data_out` is the head while `empty` is low, `read` pops it), plus `reset`,
//! which empties it in one clock. rust-hdl's FIFO has no reset, so a board could not be
//! returned to its power-on state without this one (issue 14).
//!
//! `N` address bits (2^N words), `NP1 = N + 1` pointer bits (the extra bit tells full from
//! empty, Cummings SNUG 2002), `ALMOST` words of headroom: `almost_full` is high from
//! 2^N − `ALMOST` words on.
//!
//! `empty` and `almost_full` come straight from flip-flops (computed from the next pointers),
//! and a pop selects a kept `read_address + 1` instead of adding, so the path from `read` to
//! the RAM address is one multiplexer: a parent can chain its ready logic through it.
//!
//! Every output is assigned once per evaluation (see `collwire_flow::verilog_lint`).

use rust_hdl::prelude::*;

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
    ram: RAM<D, N>,
    read_address: DFF<Bits<NP1>>,
    /// `read_address + 1`, kept beside it: popping selects it instead of adding.
    read_address_plus1: DFFWithInit<Bits<NP1>>,
    write_address: DFF<Bits<NP1>>,
    /// The write pointer one clock late: the read side sees a word once the RAM holds it.
    write_address_delayed: DFF<Bits<NP1>>,
    /// Registered flags, computed from the next pointers: `empty` is
    /// `read_address != write_address_delayed` and `almost_full` the fill level the read side
    /// sees, exactly as if decoded from the pointers, but with no logic after the flip-flop.
    not_empty: DFF<Bit>,
    almost_full_r: DFF<Bit>,
    is_full: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    next_read: Signal<Local, Bits<NP1>>,
    next_read_plus1: Signal<Local, Bits<NP1>>,
    address_mask: Constant<Bits<NP1>>,
    size: Constant<Bits<NP1>>,
    almost_full_level: Constant<Bits<NP1>>,
}

impl<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> Default
    for Fifo<D, N, NP1, ALMOST>
{
    fn default() -> Self {
        assert_eq!(N + 1, NP1, "Fifo: NP1 must be N + 1");
        assert!(NP1 < 32 && (ALMOST as u128) < (1u128 << N));
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
            ram: Default::default(),
            read_address: Default::default(),
            read_address_plus1: DFFWithInit::new(1u64.to_bits()),
            write_address: Default::default(),
            write_address_delayed: Default::default(),
            not_empty: Default::default(),
            almost_full_r: Default::default(),
            is_full: Default::default(),
            pop: Default::default(),
            push: Default::default(),
            next_read: Default::default(),
            next_read_plus1: Default::default(),
            address_mask: Constant::new(((1u64 << N) - 1).to_bits()),
            size: Constant::new((1u64 << N).to_bits()),
            almost_full_level: Constant::new(((1u64 << N) - u64::from(ALMOST)).to_bits()),
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize, const ALMOST: u32> Logic
    for Fifo<D, N, NP1, ALMOST>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            read_address,
            write_address,
            write_address_delayed,
            not_empty,
            almost_full_r
        );
        // `read_address_plus1` is a block of its own (it starts at 1): its input is assigned
        // once, from `next_read_plus1`.
        self.read_address_plus1.clock.next = self.clock.val();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_clock.next = self.clock.val();
        // Full: the write pointer one lap ahead of the read pointer.
        self.is_full.next =
            (self.write_address.q.val() ^ self.read_address.q.val()) == self.size.val();
        self.pop.next = self.read.val() & self.not_empty.q.val();
        self.push.next = self.write.val() & !self.is_full.val();
        self.next_read.next = self.read_address.q.val();
        if self.pop.val() {
            self.next_read.next = self.read_address_plus1.q.val();
        }
        self.empty.next = !self.not_empty.q.val();
        self.full.next = self.is_full.val();
        self.almost_full.next = self.almost_full_r.q.val();
        // The RAM reads the next head on the clock that pops the current one, so `data_out`
        // follows `read` without a bubble.
        self.ram.read_address.next =
            bit_cast::<N, NP1>(self.next_read.val() & self.address_mask.val());
        self.data_out.next = self.ram.read_data.val();
        self.ram.write_address.next =
            bit_cast::<N, NP1>(self.write_address.q.val() & self.address_mask.val());
        self.ram.write_data.next = self.data_in.val();
        self.ram.write_enable.next = self.push.val();
        self.read_address.d.next = self.next_read.val();
        self.next_read_plus1.next = self.read_address_plus1.q.val();
        if self.pop.val() {
            self.next_read_plus1.next = self.read_address_plus1.q.val() + bits::<NP1>(1);
        }
        self.write_address.d.next =
            self.write_address.q.val() + bit_cast::<NP1, 1>(self.push.val().into());
        self.write_address_delayed.d.next = self.write_address.q.val();
        // Next clock the read side sees `write_address` as it is now.
        self.not_empty.d.next = self.next_read.val() != self.write_address.q.val();
        self.almost_full_r.d.next =
            (self.write_address.q.val() - self.next_read.val()) >= self.almost_full_level.val();
        if self.reset.val() {
            self.read_address.d.next = bits::<NP1>(0);
            self.next_read_plus1.next = bits::<NP1>(1);
            self.write_address.d.next = bits::<NP1>(0);
            self.write_address_delayed.d.next = bits::<NP1>(0);
            self.not_empty.d.next = false;
            self.almost_full_r.d.next = false;
        }
        self.read_address_plus1.d.next = self.next_read_plus1.val();
    }
}

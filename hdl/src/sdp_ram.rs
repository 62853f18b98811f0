//! A simple dual-port RAM (one read port, one write port), the FIFOs' ([`crate::frame_fifo`])
//! and the route tables' ([`crate::route_table`]): rust-hdl's `RAM` (the same ports, the same
//! timing: `read_data` is the word at the `read_address` of the clock before), with the
//! register on the read address instead of on the read data when the RAM has 2^[`SMALL`]
//! words or fewer.
//!
//! Both targets build a RAM that small from LUTs (distributed RAM: the ECP5's `DPR16X4`,
//! 7-series `RAM32M`), whose read is combinational. With the register on the data, as
//! rust-hdl's `RAM` has it, a FIFO's pop → its next read address → the address pins of every
//! LUT RAM of the word (66 of them for the CIPE's 130-bit result FIFO) → their outputs ends at
//! that register in one clock: the router's verdict queue (20 endpoints) and the CIPE's result
//! FIFO were on board64's late paths (`timing`, 2026-11-30). With the register on the address,
//! the pop ends at that register, and the read (address → LUT RAMs → the word) starts the next
//! clock at a flip-flop. Larger RAMs (block RAM) keep rust-hdl's form: a block RAM's read is
//! registered inside it.
//!
//! [`SdpRam::address_registered_always`] registers the address at any size: for a RAM that is
//! built from LUTs because its read must be quick, not because it is small (the CFE's and the
//! router's route tables, 64 words, [`crate::route_table`]).
//!
//! The two forms differ only when a word is read on the clock it is written: rust-hdl's
//! `RAM` gives the old word, the registered address the new one. The FIFO never shows the RAM's
//! word then: it forwards the word written ([`crate::frame_fifo`]'s `fwd_hit` and `fwd2_hit`),
//! which is the new word. So the FIFO's outputs are the same clock for clock.

use std::collections::BTreeMap;

use rust_hdl::prelude::*;

/// RAMs of 2^`SMALL` words or fewer register the read address ([module docs](self)).
pub const SMALL: usize = 5;

#[derive(LogicBlock)]
pub struct SdpRam<D: Synth, const N: usize> {
    pub read_address: Signal<In, Bits<N>>,
    pub read_clock: Signal<In, Clock>,
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_clock: Signal<In, Clock>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    /// The words and the registered read address, for rust-hdl's own simulator.
    _sim: BTreeMap<Bits<N>, D>,
    _address: Bits<N>,
    /// The read address is registered (else the read data).
    _address_registered: bool,
}

impl<D: Synth, const N: usize> Default for SdpRam<D, N> {
    /// The address registered for 2^`SMALL` words or fewer, else the data.
    fn default() -> Self {
        Self {
            read_address: Default::default(),
            read_clock: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_clock: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _sim: Default::default(),
            _address: Default::default(),
            _address_registered: N <= SMALL,
        }
    }
}

impl<D: Synth, const N: usize> SdpRam<D, N> {
    /// The read address registered whatever the size (the module doc).
    pub fn address_registered_always() -> Self {
        Self {
            _address_registered: true,
            ..Default::default()
        }
    }

    /// Whether this RAM registers its read address.
    pub fn address_registered(&self) -> bool {
        self._address_registered
    }
}

impl<D: Synth, const N: usize> Logic for SdpRam<D, N> {
    fn update(&mut self) {
        let registered = self.address_registered();
        if self.read_clock.pos_edge() {
            if registered {
                self._address = self.read_address.val();
            } else {
                self.read_data.next = *self
                    ._sim
                    .get(&self.read_address.val())
                    .unwrap_or(&D::default());
            }
        }
        if self.write_clock.pos_edge() && self.write_enable.val() {
            self._sim
                .insert(self.write_address.val(), self.write_data.val());
        }
        if registered {
            self.read_data.next = *self._sim.get(&self._address).unwrap_or(&D::default());
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let read = if self.address_registered() {
            format!(
                "\
reg[{A}:0] read_address_q;

initial begin
   read_address_q = {N}'h0;
end

always @(posedge read_clock) begin
   read_address_q <= read_address;
end

always @(*) begin
   read_data = mem[read_address_q];
end
",
                A = N - 1,
            )
        } else {
            "\
always @(posedge read_clock) begin
   read_data <= mem[read_address];
end
"
            .to_string()
        };
        Verilog::Custom(format!(
            "\
reg[{D}:0] mem[{W}:0];

{read}
always @(posedge write_clock) begin
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
            D = D::BITS - 1,
            W = (1usize << N) - 1,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_rams_register_the_address_large_ones_the_data() {
        let small = crate::emit::verilog(SdpRam::<Bits<8>, 5>::default(), "small");
        assert!(small.contains("read_address_q <= read_address;"), "{small}");
        assert!(
            small.contains("read_data = mem[read_address_q];"),
            "{small}"
        );
        let large = crate::emit::verilog(SdpRam::<Bits<8>, 6>::default(), "large");
        assert!(large.contains("read_data <= mem[read_address];"), "{large}");
        assert!(!large.contains("read_address_q"), "{large}");
        let always =
            crate::emit::verilog(SdpRam::<Bits<8>, 6>::address_registered_always(), "always");
        assert!(
            always.contains("read_address_q <= read_address;"),
            "{always}"
        );
    }
}

//! A small constant table built from LUTs: rust-hdl's `ROM` (the same ports: `data` is the word
//! at `address`, combinational), whose Verilog `case` carries `(* rom_style = "logic" *)`.
//!
//! Yosys turns a `case` of constants into a ROM (`proc_rom`) and, when its output feeds a
//! register, merges the register into the ROM's read port and maps it to block RAM. A block
//! RAM's output is slow and fixed in place: the classifier's divisor table (256 × 48 bits,
//! read on the header's clock, registered as `s0_div`) then drove the divisibility multiplier
//! straight from a block RAM across the die, the worst path of board64 on seed 2 at b953173
//! (block RAM → multiplier → `s1_product`, 6.98 ns). `proc_rom` copies the `case`'s
//! attributes to the memory, and `rom_style = "logic"` keeps it out of block RAM on both
//! targets: the table becomes LUTs and the register stays flip-flops, which the placer puts
//! beside the multiplier. Verilator and Icarus ignore the attribute.

use std::collections::BTreeMap;

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LogicRom<D: Synth, const N: usize> {
    pub address: Signal<In, Bits<N>>,
    pub data: Signal<Out, D>,
    _sim: BTreeMap<Bits<N>, D>,
}

impl<I: Iterator<Item = D>, D: Synth, const N: usize> From<I> for LogicRom<D, N> {
    fn from(words: I) -> Self {
        Self {
            address: Default::default(),
            data: Signal::new_with_default(D::default()),
            _sim: words
                .enumerate()
                .map(|(at, word)| (at.to_bits(), word))
                .collect(),
        }
    }
}

impl<D: Synth, const N: usize> Logic for LogicRom<D, N> {
    fn update(&mut self) {
        self.data.next = *self._sim.get(&self.address.val()).unwrap_or(&D::default());
    }

    fn connect(&mut self) {
        self.data.connect();
    }

    fn hdl(&self) -> Verilog {
        let cases = self
            ._sim
            .iter()
            .map(|(at, word)| format!("  {}: data = {};", at.verilog(), word.verilog()))
            .collect::<Vec<_>>()
            .join("\n");
        Verilog::Custom(format!(
            "always @*\n(* rom_style = \"logic\" *) case (address)\n{cases}\n  default: data = {};\nendcase\n",
            D::default().verilog()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_case_lists_every_word_and_is_marked_for_logic() {
        let rom: LogicRom<Bits<8>, 2> = [3u64, 5, 7].iter().map(|&v| bits::<8>(v)).into();
        let v = crate::emit::verilog(rom, "rom");
        assert!(
            v.contains("(* rom_style = \"logic\" *) case (address)"),
            "{v}"
        );
        for word in [
            "2'b0: data = 8'h3;",
            "2'b1: data = 8'h5;",
            "2'b10: data = 8'h7;",
        ] {
            assert!(v.contains(word), "{word} in {v}");
        }
        assert!(v.contains("default: data = 8'h0;"), "{v}");
    }
}

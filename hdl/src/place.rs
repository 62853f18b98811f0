//! Placing a narrow word at its bits of a wide one: a lane of an ALU word
//! ([`crate::cipe_alu`]), a beat of the captured header ([`crate::header_capture`]).

use rust_hdl::prelude::*;

/// An `LW`-bit lane placed at bit `at` of a `W`-bit word (zeros elsewhere). A block of its own
/// because rust-hdl's `bit_cast` cannot take a loop-indexed signal (its width is evaluated in
/// Rust, where the loop index does not exist).
#[derive(LogicBlock)]
pub struct Place<const W: usize, const LW: usize> {
    pub lane: Signal<In, Bits<LW>>,
    pub word: Signal<Out, Bits<W>>,
    at: Constant<Bits<16>>,
}

impl<const W: usize, const LW: usize> Place<W, LW> {
    /// Lane `index` (bits `index·LW` up).
    pub fn lane(index: usize) -> Self {
        assert!((index + 1) * LW <= W);
        Self {
            lane: Default::default(),
            word: Default::default(),
            at: Constant::new(bits::<16>((index * LW) as u64)),
        }
    }
}

impl<const W: usize, const LW: usize> Logic for Place<W, LW> {
    fn update(&mut self) {
        self.word.next = bit_cast::<W, LW>(self.lane.val()) << self.at.val();
    }

    fn connect(&mut self) {
        self.word.connect();
    }

    /// A concatenation (zeros, the lane, zeros) rather than a shift: the same bits, and a
    /// simulator copies words instead of shifting a `W`-bit vector on every evaluation.
    fn hdl(&self) -> Verilog {
        let at = self.at.val().index();
        let above = W - at - LW;
        let mut parts = Vec::new();
        if above > 0 {
            parts.push(format!("{above}'b0"));
        }
        parts.push("lane".to_string());
        if at > 0 {
            parts.push(format!("{at}'b0"));
        }
        Verilog::Custom(format!(
            "always @(*) begin\n    word = {{{}}};\nend\n",
            parts.join(", ")
        ))
    }
}

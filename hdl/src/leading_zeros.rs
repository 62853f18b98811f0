//! Leading-zero count of a 64-bit word as a shallow tree: the IEEE adders' normaliser
//! ([`crate::fp_add`]) uses it to find how far a sum must move left.
//!
//! Three levels, each a small priority select, instead of a 64-deep priority chain:
//! 1. per nibble (4 bits): is it zero, and its own leading-zero count (0..3);
//! 2. per 16-bit group (4 nibbles): is it zero, and the count from its first non-zero nibble;
//! 3. the word: the count from its first non-zero group, 64 if the word is zero.
//!
//! Narrower words are counted by placing them at the top and filling the bits below with ones
//! (the count then stops at the narrow width).

use rust_hdl::prelude::*;

/// `count` = number of leading zero bits of `value` (0..=64), combinational.
#[derive(LogicBlock, Default)]
pub struct LeadingZeros64 {
    pub value: Signal<In, Bits<64>>,
    pub count: Signal<Out, Bits<7>>,
    /// Nibble `i` (bits `4i..4i+3`) has a one; its leading zeros.
    nibble_any: [Signal<Local, Bit>; 16],
    nibble_count: [Signal<Local, Bits<7>>; 16],
    /// Group `g` (nibbles `4g..4g+3`) has a one; its leading zeros.
    group_any: [Signal<Local, Bit>; 4],
    group_count: [Signal<Local, Bits<7>>; 4],
    /// Drives `count`, assigned once at the end of `update`.
    total: Signal<Local, Bits<7>>,
}

impl Logic for LeadingZeros64 {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..16 {
            self.nibble_any[i].next = self.value.val().get_bits::<4>(4 * i).any();
            self.nibble_count[i].next = bits::<7>(3);
            if self.value.val().get_bit(4 * i + 1) {
                self.nibble_count[i].next = bits::<7>(2);
            }
            if self.value.val().get_bit(4 * i + 2) {
                self.nibble_count[i].next = bits::<7>(1);
            }
            if self.value.val().get_bit(4 * i + 3) {
                self.nibble_count[i].next = bits::<7>(0);
            }
        }
        for g in 0..4 {
            self.group_any[g].next = self.nibble_any[4 * g].val()
                | self.nibble_any[4 * g + 1].val()
                | self.nibble_any[4 * g + 2].val()
                | self.nibble_any[4 * g + 3].val();
            self.group_count[g].next = self.nibble_count[4 * g].val() | bits::<7>(12);
            if self.nibble_any[4 * g + 1].val() {
                self.group_count[g].next = self.nibble_count[4 * g + 1].val() | bits::<7>(8);
            }
            if self.nibble_any[4 * g + 2].val() {
                self.group_count[g].next = self.nibble_count[4 * g + 2].val() | bits::<7>(4);
            }
            if self.nibble_any[4 * g + 3].val() {
                self.group_count[g].next = self.nibble_count[4 * g + 3].val();
            }
        }
        self.total.next = bits::<7>(64);
        if self.group_any[0].val() {
            self.total.next = self.group_count[0].val() | bits::<7>(48);
        }
        if self.group_any[1].val() {
            self.total.next = self.group_count[1].val() | bits::<7>(32);
        }
        if self.group_any[2].val() {
            self.total.next = self.group_count[2].val() | bits::<7>(16);
        }
        if self.group_any[3].val() {
            self.total.next = self.group_count[3].val();
        }
        self.count.next = self.total.val();
    }
}

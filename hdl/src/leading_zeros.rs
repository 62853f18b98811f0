//! Leading-zero count of a 64-bit word as a shallow tree, in two halves that a pipeline
//! register may separate: the IEEE adders' normaliser ([`crate::fp_add`]) counts the groups in
//! one stage and finishes the count in the next, in front of its coarse shift.
//!
//! Three levels, each a small priority select, instead of a 64-deep priority chain:
//! 1. per nibble (4 bits): is it zero, and its own leading-zero count (0..3);
//! 2. per 16-bit group (4 nibbles): is it zero, and the count from its first non-zero nibble
//!    (0..15) — levels 1 and 2 are [`LeadingZeroGroups64`];
//! 3. the word: the count from its first non-zero group, 64 if the word is zero —
//!    [`LeadingZeroTotal64`].
//!
//! Narrower words are counted by placing them at the top and filling the bits below with ones
//! (the count then stops at the narrow width).

use rust_hdl::prelude::*;

/// Per 16-bit group `g` (bits `16g..16g+15`): `any` bit `g` = the group has a one; `counts`
/// bits `4g..4g+3` = its leading zeros when it has. Combinational.
#[derive(LogicBlock, Default)]
pub struct LeadingZeroGroups64 {
    pub value: Signal<In, Bits<64>>,
    pub any: Signal<Out, Bits<4>>,
    pub counts: Signal<Out, Bits<16>>,
    /// Nibble `i` (bits `4i..4i+3`) has a one; its leading zeros.
    nibble_any: [Signal<Local, Bit>; 16],
    nibble_count: [Signal<Local, Bits<4>>; 16],
    /// Group `g` (nibbles `4g..4g+3`) has a one; its leading zeros.
    group_any: [Signal<Local, Bit>; 4],
    group_count: [Signal<Local, Bits<4>>; 4],
}

impl Logic for LeadingZeroGroups64 {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..16 {
            self.nibble_any[i].next = self.value.val().get_bits::<4>(4 * i).any();
            self.nibble_count[i].next = bits::<4>(3);
            if self.value.val().get_bit(4 * i + 1) {
                self.nibble_count[i].next = bits::<4>(2);
            }
            if self.value.val().get_bit(4 * i + 2) {
                self.nibble_count[i].next = bits::<4>(1);
            }
            if self.value.val().get_bit(4 * i + 3) {
                self.nibble_count[i].next = bits::<4>(0);
            }
        }
        for g in 0..4 {
            self.group_any[g].next = self.nibble_any[4 * g].val()
                | self.nibble_any[4 * g + 1].val()
                | self.nibble_any[4 * g + 2].val()
                | self.nibble_any[4 * g + 3].val();
            self.group_count[g].next = self.nibble_count[4 * g].val() | bits::<4>(12);
            if self.nibble_any[4 * g + 1].val() {
                self.group_count[g].next = self.nibble_count[4 * g + 1].val() | bits::<4>(8);
            }
            if self.nibble_any[4 * g + 2].val() {
                self.group_count[g].next = self.nibble_count[4 * g + 2].val() | bits::<4>(4);
            }
            if self.nibble_any[4 * g + 3].val() {
                self.group_count[g].next = self.nibble_count[4 * g + 3].val();
            }
        }
        self.any.next = bit_cast::<4, 1>(self.group_any[0].val().into())
            | (bit_cast::<4, 1>(self.group_any[1].val().into()) << 1)
            | (bit_cast::<4, 1>(self.group_any[2].val().into()) << 2)
            | (bit_cast::<4, 1>(self.group_any[3].val().into()) << 3);
        self.counts.next = bit_cast::<16, 4>(self.group_count[0].val())
            | (bit_cast::<16, 4>(self.group_count[1].val()) << 4)
            | (bit_cast::<16, 4>(self.group_count[2].val()) << 8)
            | (bit_cast::<16, 4>(self.group_count[3].val()) << 12);
    }
}

/// `count` = the word's leading zeros (0..=64) from [`LeadingZeroGroups64`]'s `any` and
/// `counts`: the first group (from the top) that has a one, 64 if none has. Combinational.
#[derive(LogicBlock, Default)]
pub struct LeadingZeroTotal64 {
    pub any: Signal<In, Bits<4>>,
    pub counts: Signal<In, Bits<16>>,
    pub count: Signal<Out, Bits<7>>,
    /// Drives `count`, assigned once at the end of `update`.
    total: Signal<Local, Bits<7>>,
}

impl Logic for LeadingZeroTotal64 {
    #[hdl_gen]
    fn update(&mut self) {
        self.total.next = bits::<7>(64);
        if self.any.val().get_bit(0) {
            self.total.next = bit_cast::<7, 4>(self.counts.val().get_bits::<4>(0)) | bits::<7>(48);
        }
        if self.any.val().get_bit(1) {
            self.total.next = bit_cast::<7, 4>(self.counts.val().get_bits::<4>(4)) | bits::<7>(32);
        }
        if self.any.val().get_bit(2) {
            self.total.next = bit_cast::<7, 4>(self.counts.val().get_bits::<4>(8)) | bits::<7>(16);
        }
        if self.any.val().get_bit(3) {
            self.total.next = bit_cast::<7, 4>(self.counts.val().get_bits::<4>(12));
        }
        self.count.next = self.total.val();
    }
}

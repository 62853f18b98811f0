//! CIPE — the collective instruction processing engine (paper: "Collective instruction
//! processing engine"): packet buffers in block RAM and the streaming lane ALU
//! ([`crate::cipe_alu`]), driven by a 64-bit instruction word per packet from the CFE.
//!
//! Each instruction streams `count` payload words, one per clock (II = 1): the incoming word
//! (`s_axis`), the word stored at the same index of buffer `slot`, or the combination of both
//! (`stored ⊕ incoming`, or `incoming ⊕ stored` with `swap`, so the left operand is always the
//! lower-ranked data). The result can be written back into the slot (`store`) and/or sent out
//! on `m_axis` (`emit`) with the instruction word beside every beat, for the frame builder.
//!
//! Pipeline: issue (RAM read) → operand (RAM data) → ALU, [`crate::cipe_alu::ALU_LATENCY`]
//! clocks → write-back/out; [`CIPE_LATENCY`] clocks from a word in to its result out. The
//! pipeline never stalls: a word issues only when the output queue has room for everything in
//! flight. A read of a slot waits while a store to the same slot is still in flight (read after
//! write), so consecutive packets on different slots stream with no gap; on the same slot they
//! wait at most [`STORE_TO_READ`] clocks.
//!
//! The instruction word (an extension of the paper's 8-bit type / 8-bit size / 16-bit port /
//! 32-bit instruction layout; see docs/cipe.md) is built by [`Instruction::encode`].
//!
//! One template for both widths: [`Cipe64`] (8 slots × 2048 words) and [`Cipe256`] (8 slots
//! × 512 words); a slot holds 16 KiB, more than the largest segment (MTU 9216).

use rust_hdl::prelude::*;

use crate::cipe_alu::{ALU_LATENCY, CipeAlu64, CipeAlu256};

/// Clocks from a word accepted on `s_axis` to its result on `m_axis` (queue empty, ready).
pub const CIPE_LATENCY: usize = ALU_LATENCY + 3;
/// Extra clocks the first read of a slot waits after the last store into it issued: the store
/// reaches the RAM ALU_LATENCY + 1 clocks after its issue.
pub const STORE_TO_READ: usize = ALU_LATENCY + 1;
/// Buffer slots.
pub const SLOTS: usize = 8;

/// What an instruction streams through the ALU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// Result = the incoming word (store it: load a slot; emit it: forward).
    Input = 0,
    /// Result = stored ⊕ incoming (or incoming ⊕ stored with `swap`).
    Combine = 1,
    /// Result = the stored word; no input (send a buffered result).
    Buffer = 2,
}

impl Opcode {
    pub fn consumes_input(self) -> bool {
        self != Opcode::Buffer
    }
    pub fn reads_slot(self) -> bool {
        self != Opcode::Input
    }
}

/// A CIPE instruction word.
///
/// | bits | field |
/// |---|---|
/// | 63:56 | message type for the result header (paper: 8-bit message type) |
/// | 55:48 | destination port mask of the result (replaces the paper's 8-bit packet size: the word count below is 12 bits so a jumbo segment fits) |
/// | 47:32 | destination UDP port of the result (paper: 16-bit UDP port) |
/// | 31:28 | opcode |
/// | 27:24 | datatype code (collwire-proto) |
/// | 23:20 | reduce op code (collwire-proto) |
/// | 19 | reserved (0) |
/// | 18:16 | buffer slot |
/// | 15 | swap: the incoming word is the left operand |
/// | 14 | store the result into the slot |
/// | 13 | emit the result on `m_axis` |
/// | 12 | reserved (0) |
/// | 11:0 | word count (bus words) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instruction {
    pub msg_type: u8,
    pub dst_mask: u8,
    pub udp_port: u16,
    pub opcode: Opcode,
    pub datatype: u8,
    pub op: u8,
    pub slot: u8,
    pub swap: bool,
    pub store: bool,
    pub emit: bool,
    pub count: u16,
}

impl Instruction {
    pub fn encode(&self) -> u64 {
        assert!(usize::from(self.slot) < SLOTS && self.count < 4096);
        u64::from(self.msg_type) << 56
            | u64::from(self.dst_mask) << 48
            | u64::from(self.udp_port) << 32
            | (self.opcode as u64) << 28
            | u64::from(self.datatype & 0xf) << 24
            | u64::from(self.op & 0xf) << 20
            | u64::from(self.slot) << 16
            | u64::from(self.swap) << 15
            | u64::from(self.store) << 14
            | u64::from(self.emit) << 13
            | u64::from(self.count)
    }
}

macro_rules! cipe {
    (
        $(#[$doc:meta])* $name:ident, alu = $alu:ident, width = $w:tt, word_bits = $wb:tt,
        addr_bits = $ab:tt, out_bits = $ob:tt
    ) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            pub s_instr_tdata: Signal<In, Bits<64>>,
            pub s_instr_tvalid: Signal<In, Bit>,
            pub s_instr_tready: Signal<Out, Bit>,
            pub s_axis_tdata: Signal<In, Bits<$w>>,
            pub s_axis_tvalid: Signal<In, Bit>,
            pub s_axis_tready: Signal<Out, Bit>,
            pub m_axis_tdata: Signal<Out, Bits<$w>>,
            pub m_axis_tlast: Signal<Out, Bit>,
            /// The instruction that produced this beat.
            pub m_axis_tinstr: Signal<Out, Bits<64>>,
            pub m_axis_tvalid: Signal<Out, Bit>,
            pub m_axis_tready: Signal<In, Bit>,
            /// An instruction is executing or results are in flight.
            pub busy: Signal<Out, Bit>,
            alu: $alu,
            buffer: RAM<Bits<$w>, $ab>,
            out: SynchronousFIFO<Bits<$ob>, 5, 6, 12>,
            slot_bit: [Constant<Bits<3>>; 8],
            store_to_read: Constant<Bits<4>>,
            // Issue stage.
            active: DFF<Bit>,
            instr: DFF<Bits<64>>,
            index: DFF<Bits<12>>,
            pending: [DFF<Bits<4>>; 8],
            opcode: Signal<Local, Bits<4>>,
            slot: Signal<Local, Bits<3>>,
            count: Signal<Local, Bits<12>>,
            needs_input: Signal<Local, Bit>,
            reads_slot: Signal<Local, Bit>,
            hazard: Signal<Local, Bit>,
            issue: Signal<Local, Bit>,
            last_word: Signal<Local, Bit>,
            addr: Signal<Local, Bits<$ab>>,
            // Operand stage.
            p_valid: DFF<Bit>,
            p_in: DFF<Bits<$w>>,
            p_addr: DFF<Bits<$ab>>,
            p_instr: DFF<Bits<64>>,
            p_last: DFF<Bit>,
            // Delay lines beside the ALU.
            d_valid: [DFF<Bit>; 5],
            d_bypass: [DFF<Bits<$w>>; 5],
            d_addr: [DFF<Bits<$ab>>; 5],
            d_instr: [DFF<Bits<64>>; 5],
            d_last: [DFF<Bit>; 5],
            result: Signal<Local, Bits<$w>>,
            wb_instr: Signal<Local, Bits<64>>,
            in_flight: Signal<Local, Bit>,
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    clock: Default::default(),
                    s_instr_tdata: Default::default(),
                    s_instr_tvalid: Default::default(),
                    s_instr_tready: Default::default(),
                    s_axis_tdata: Default::default(),
                    s_axis_tvalid: Default::default(),
                    s_axis_tready: Default::default(),
                    m_axis_tdata: Default::default(),
                    m_axis_tlast: Default::default(),
                    m_axis_tinstr: Default::default(),
                    m_axis_tvalid: Default::default(),
                    m_axis_tready: Default::default(),
                    busy: Default::default(),
                    alu: Default::default(),
                    buffer: Default::default(),
                    out: Default::default(),
                    slot_bit: std::array::from_fn(|i| Constant::new(bits::<3>(i as u64))),
                    store_to_read: Constant::new(bits::<4>(STORE_TO_READ as u64)),
                    active: Default::default(),
                    instr: Default::default(),
                    index: Default::default(),
                    pending: Default::default(),
                    opcode: Default::default(),
                    slot: Default::default(),
                    count: Default::default(),
                    needs_input: Default::default(),
                    reads_slot: Default::default(),
                    hazard: Default::default(),
                    issue: Default::default(),
                    last_word: Default::default(),
                    addr: Default::default(),
                    p_valid: Default::default(),
                    p_in: Default::default(),
                    p_addr: Default::default(),
                    p_instr: Default::default(),
                    p_last: Default::default(),
                    d_valid: Default::default(),
                    d_bypass: Default::default(),
                    d_addr: Default::default(),
                    d_instr: Default::default(),
                    d_last: Default::default(),
                    result: Default::default(),
                    wb_instr: Default::default(),
                    in_flight: Default::default(),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, active, instr, index, p_valid, p_in, p_addr, p_instr, p_last);
                clock!(self, clock, alu, out);
                self.buffer.read_clock.next = self.clock.val();
                self.buffer.write_clock.next = self.clock.val();
                for i in 0..8 {
                    self.pending[i].clock.next = self.clock.val();
                    self.pending[i].d.next = self.pending[i].q.val();
                    if self.pending[i].q.val() != bits::<4>(0) {
                        self.pending[i].d.next = self.pending[i].q.val() - bits::<4>(1);
                    }
                }
                for i in 0..5 {
                    self.d_valid[i].clock.next = self.clock.val();
                    self.d_bypass[i].clock.next = self.clock.val();
                    self.d_addr[i].clock.next = self.clock.val();
                    self.d_instr[i].clock.next = self.clock.val();
                    self.d_last[i].clock.next = self.clock.val();
                }

                // ---- Issue: one word per clock of the active instruction.
                self.opcode.next = self.instr.q.val().get_bits::<4>(28);
                self.slot.next = self.instr.q.val().get_bits::<3>(16);
                self.count.next = self.instr.q.val().get_bits::<12>(0);
                self.needs_input.next = self.opcode.val() != bits::<4>(2);
                self.reads_slot.next = self.opcode.val() != bits::<4>(0);
                self.hazard.next = false;
                for i in 0..8 {
                    if (self.slot.val() == self.slot_bit[i].val()) & (self.pending[i].q.val() != bits::<4>(0)) {
                        // Only before the first word: within one instruction every word has
                        // its own address.
                        self.hazard.next = self.reads_slot.val() & (self.index.q.val() == bits::<12>(0));
                    }
                }
                self.issue.next = self.active.q.val()
                    & (self.s_axis_tvalid.val() | !self.needs_input.val())
                    & !self.out.almost_full.val()
                    & !self.hazard.val();
                self.s_axis_tready.next = self.active.q.val()
                    & self.needs_input.val()
                    & !self.out.almost_full.val()
                    & !self.hazard.val();
                self.last_word.next = (self.index.q.val() + bits::<12>(1)) == self.count.val();
                self.addr.next = (bit_cast::<$ab, 3>(self.slot.val()) << $wb) | bit_cast::<$ab, 12>(self.index.q.val());
                self.buffer.read_address.next = self.addr.val();
                if self.issue.val() {
                    self.index.d.next = self.index.q.val() + bits::<12>(1);
                    if self.last_word.val() {
                        self.active.d.next = false;
                    }
                    if self.instr.q.val().get_bit(14) {
                        for i in 0..8 {
                            if self.slot.val() == self.slot_bit[i].val() {
                                self.pending[i].d.next = self.store_to_read.val();
                            }
                        }
                    }
                }
                // A new instruction when idle or as the last word of the current one issues.
                self.s_instr_tready.next = !self.active.q.val() | (self.issue.val() & self.last_word.val());
                if self.s_instr_tvalid.val() & (!self.active.q.val() | (self.issue.val() & self.last_word.val())) {
                    self.instr.d.next = self.s_instr_tdata.val();
                    self.index.d.next = bits::<12>(0);
                    self.active.d.next = self.s_instr_tdata.val().get_bits::<12>(0) != bits::<12>(0);
                }
                self.p_valid.d.next = self.issue.val();
                self.p_in.d.next = self.s_axis_tdata.val();
                self.p_addr.d.next = self.addr.val();
                self.p_instr.d.next = self.instr.q.val();
                self.p_last.d.next = self.last_word.val();

                // ---- Operand: the stored word arrives; into the ALU (left = lower ranks).
                self.alu.a.next = self.buffer.read_data.val();
                self.alu.b.next = self.p_in.q.val();
                if self.p_instr.q.val().get_bit(15) {
                    self.alu.a.next = self.p_in.q.val();
                    self.alu.b.next = self.buffer.read_data.val();
                }
                self.alu.datatype.next = self.p_instr.q.val().get_bits::<4>(24);
                self.alu.op.next = self.p_instr.q.val().get_bits::<4>(20);
                self.alu.valid_in.next = self.p_valid.q.val();
                self.d_valid[0].d.next = self.p_valid.q.val();
                self.d_bypass[0].d.next = self.p_in.q.val();
                if self.p_instr.q.val().get_bits::<4>(28) == bits::<4>(2) {
                    self.d_bypass[0].d.next = self.buffer.read_data.val();
                }
                self.d_addr[0].d.next = self.p_addr.q.val();
                self.d_instr[0].d.next = self.p_instr.q.val();
                self.d_last[0].d.next = self.p_last.q.val();
                for i in 1..5 {
                    self.d_valid[i].d.next = self.d_valid[i - 1].q.val();
                    self.d_bypass[i].d.next = self.d_bypass[i - 1].q.val();
                    self.d_addr[i].d.next = self.d_addr[i - 1].q.val();
                    self.d_instr[i].d.next = self.d_instr[i - 1].q.val();
                    self.d_last[i].d.next = self.d_last[i - 1].q.val();
                }

                // ---- Write-back and out.
                self.wb_instr.next = self.d_instr[4].q.val();
                self.result.next = self.d_bypass[4].q.val();
                if self.wb_instr.val().get_bits::<4>(28) == bits::<4>(1) {
                    self.result.next = self.alu.result.val();
                }
                self.buffer.write_address.next = self.d_addr[4].q.val();
                self.buffer.write_data.next = self.result.val();
                self.buffer.write_enable.next = self.d_valid[4].q.val() & self.wb_instr.val().get_bit(14);
                self.out.write.next = self.d_valid[4].q.val() & self.wb_instr.val().get_bit(13);
                self.out.data_in.next = bit_cast::<$ob, $w>(self.result.val())
                    | (bit_cast::<$ob, 64>(self.wb_instr.val()) << $w)
                    | (bit_cast::<$ob, 1>(self.d_last[4].q.val().into()) << ($w + 64));
                self.m_axis_tvalid.next = !self.out.empty.val();
                self.m_axis_tdata.next = self.out.data_out.val().get_bits::<$w>(0);
                self.m_axis_tinstr.next = self.out.data_out.val().get_bits::<64>($w);
                self.m_axis_tlast.next = self.out.data_out.val().get_bit($w + 64);
                self.out.read.next = self.m_axis_tready.val() & !self.out.empty.val();
                self.in_flight.next = self.p_valid.q.val();
                for i in 0..5 {
                    if self.d_valid[i].q.val() {
                        self.in_flight.next = true;
                    }
                }
                self.busy.next = self.active.q.val() | self.in_flight.val() | !self.out.empty.val();
            }
        }
    };
}

cipe!(
    /// ZedBoard: 64-bit words, 8 slots × 2048 words.
    Cipe64, alu = CipeAlu64, width = 64, word_bits = 11, addr_bits = 14, out_bits = 129
);
cipe!(
    /// NetFPGA SUME: 256-bit words, 8 slots × 512 words.
    Cipe256, alu = CipeAlu256, width = 256, word_bits = 9, addr_bits = 12, out_bits = 321
);

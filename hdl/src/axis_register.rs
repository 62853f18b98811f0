//! AXI-Stream register slice (a skid buffer, as verilog-axis's `axis_register` with
//! `REG_TYPE = 2`): every output and `s_axis.tready` come from registers, so no combinational
//! path crosses it in either direction — a block boundary where a long ready/valid chain is
//! cut (the board puts one between the frame builder and the merge: the merge's grant no longer
//! reaches into the builder and the CIPE's result FIFO). Full throughput: a beat in and a beat
//! out on every clock; one clock of latency. `reset` empties it.
//!
//! One block for both widths: [`AxisRegister64`] and [`AxisRegister256`].

use rust_hdl::prelude::*;

use crate::axis::{AxisSink, AxisSource, TUSER_BITS, check_widths};

#[derive(LogicBlock)]
pub struct AxisRegister<const W: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<W, K>,
    pub m_axis: AxisSource<W, K>,
    /// The output register.
    o_data: DFF<Bits<W>>,
    o_keep: DFF<Bits<K>>,
    o_last: DFF<Bit>,
    o_user: DFF<Bits<TUSER_BITS>>,
    o_valid: DFF<Bit>,
    /// The skid register: the beat taken while the output was stalled.
    t_data: DFF<Bits<W>>,
    t_keep: DFF<Bits<K>>,
    t_last: DFF<Bit>,
    t_user: DFF<Bits<TUSER_BITS>>,
    t_valid: DFF<Bit>,
    /// `s_axis.tready`, registered.
    ready: DFF<Bit>,
}

impl<const W: usize, const K: usize> Default for AxisRegister<W, K> {
    fn default() -> Self {
        check_widths(W, K);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            o_valid: Default::default(),
            t_data: Default::default(),
            t_keep: Default::default(),
            t_last: Default::default(),
            t_user: Default::default(),
            t_valid: Default::default(),
            ready: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for AxisRegister<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, o_data, o_keep, o_last, o_user, o_valid, t_data, t_keep, t_last, t_user,
            t_valid, ready
        );
        if self.ready.q.val() {
            // Taking input: to the output register if it empties now, else aside.
            if self.m_axis.tready.val() | !self.o_valid.q.val() {
                self.o_valid.d.next = self.s_axis.tvalid.val();
            } else {
                self.t_valid.d.next = self.s_axis.tvalid.val();
            }
        } else if self.m_axis.tready.val() {
            // Full: the skid beat moves up.
            self.o_valid.d.next = self.t_valid.q.val();
            self.t_valid.d.next = false;
        }
        // Ready next clock unless a beat waits aside and the output stays stalled (or takes
        // the one aside).
        self.ready.d.next = self.m_axis.tready.val()
            | (!self.t_valid.q.val() & (!self.o_valid.q.val() | !self.s_axis.tvalid.val()));
        // The data registers' selects and enables come from registers where they can: the
        // output register loads whenever the output moves or is empty (from the input while
        // `ready`, else from the skid register), and the skid register loads the input on
        // every clock it is `ready` (it is empty then; `t_valid` says whether what it holds
        // counts). Only the output register's enable sees `m_axis.tready`, in one gate: the
        // downstream ready chain ends there, not in a data select.
        if self.m_axis.tready.val() | (self.ready.q.val() & !self.o_valid.q.val()) {
            if self.ready.q.val() {
                self.o_data.d.next = self.s_axis.tdata.val();
                self.o_keep.d.next = self.s_axis.tkeep.val();
                self.o_last.d.next = self.s_axis.tlast.val();
                self.o_user.d.next = self.s_axis.tuser.val();
            } else {
                self.o_data.d.next = self.t_data.q.val();
                self.o_keep.d.next = self.t_keep.q.val();
                self.o_last.d.next = self.t_last.q.val();
                self.o_user.d.next = self.t_user.q.val();
            }
        }
        if self.ready.q.val() {
            self.t_data.d.next = self.s_axis.tdata.val();
            self.t_keep.d.next = self.s_axis.tkeep.val();
            self.t_last.d.next = self.s_axis.tlast.val();
            self.t_user.d.next = self.s_axis.tuser.val();
        }
        if self.reset.val() {
            self.o_valid.d.next = false;
            self.t_valid.d.next = false;
            self.ready.d.next = false;
        }
        self.s_axis.tready.next = self.ready.q.val();
        self.m_axis.tdata.next = self.o_data.q.val();
        self.m_axis.tkeep.next = self.o_keep.q.val();
        self.m_axis.tlast.next = self.o_last.q.val();
        self.m_axis.tuser.next = self.o_user.q.val();
        self.m_axis.tvalid.next = self.o_valid.q.val();
    }
}

/// ZedBoard: 64-bit beats.
pub type AxisRegister64 = AxisRegister<64, 8>;
/// NetFPGA SUME: 256-bit beats.
pub type AxisRegister256 = AxisRegister<256, 32>;

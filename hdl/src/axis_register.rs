//! AXI-Stream register slice (a skid buffer, as verilog-axis's `axis_register` with
//! `REG_TYPE = 2`): every output and `s_axis.tready` come from registers, so no combinational
//! path crosses it in either direction — a block boundary where a long ready/valid chain is
//! cut (the board puts one between the frame builder and the merge: the merge's grant no longer
//! reaches into the builder and the CIPE's result FIFO). Full throughput: a beat in and a beat
//! out on every clock; one clock of latency. `reset` empties it.
//!
//! The two beats it holds are a queue of two: the data, keep and user of each sit in a slot
//! of their own, written from the input while the slice is `ready` (the slot it writes is
//! free then) and never moved; `m_axis.tdata`/`tkeep`/`tuser` is a select between the slots
//! by a flip-flop. So `m_axis.tready` reaches only the few flip-flops of the valid flags, the
//! head's `tlast` and the read slot, not the data registers' enables (the merge's grant → the
//! output register's enable, fanned out over its 64 data bits, was board64's worst path on
//! seed 1 at 814ed5e: 2.2 ns of its 7.4 on that one net).
//!
//! `m_tvalid_next` is what `m_axis.tvalid` will be after the clock edge (`o_valid`'s input),
//! for a reader that registers a decision on the output a clock ahead (the router's offload
//! `tvalid`).
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
    /// `m_axis.tvalid` after the next clock edge.
    pub m_tvalid_next: Signal<Out, Bit>,
    /// The two slots' data, keep and user, and the slot the next beat is written to / the
    /// head is read from. (`tuser` in the output and skid registers put `m_axis.tready` on
    /// the enables of 32 more flip-flops: the router's read-side handshake → its ingress
    /// slice's user register was board64's worst path on seed 3 at 7be4647, two 2.4 ns nets.)
    data: [DFF<Bits<W>>; 2],
    keep: [DFF<Bits<K>>; 2],
    user: [DFF<Bits<TUSER_BITS>>; 2],
    w_sel: DFF<Bit>,
    r_sel: DFF<Bit>,
    /// The output beat's `tlast` and `tvalid`.
    o_last: DFF<Bit>,
    o_valid: DFF<Bit>,
    /// The beat taken while the output was stalled (the second in the queue).
    t_last: DFF<Bit>,
    t_valid: DFF<Bit>,
    /// `s_axis.tready`, registered.
    ready: DFF<Bit>,
    /// `o_valid`'s next value.
    v_next: Signal<Local, Bit>,
}

impl<const W: usize, const K: usize> Default for AxisRegister<W, K> {
    fn default() -> Self {
        check_widths(W, K);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            m_tvalid_next: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            w_sel: Default::default(),
            r_sel: Default::default(),
            o_last: Default::default(),
            o_valid: Default::default(),
            t_last: Default::default(),
            user: Default::default(),
            t_valid: Default::default(),
            ready: Default::default(),
            v_next: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Logic for AxisRegister<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, w_sel, r_sel, o_last, o_valid, t_last, t_valid, ready
        );
        self.v_next.next = self.o_valid.q.val();
        if self.ready.q.val() {
            // Taking input: to the output register if it empties now, else aside.
            if self.m_axis.tready.val() | !self.o_valid.q.val() {
                self.v_next.next = self.s_axis.tvalid.val();
            } else {
                self.t_valid.d.next = self.s_axis.tvalid.val();
            }
        } else if self.m_axis.tready.val() {
            // Full: the skid beat moves up.
            self.v_next.next = self.t_valid.q.val();
            self.t_valid.d.next = false;
        }
        // Ready next clock unless a beat waits aside and the output stays stalled (or takes
        // the one aside).
        self.ready.d.next = self.m_axis.tready.val()
            | (!self.t_valid.q.val() & (!self.o_valid.q.val() | !self.s_axis.tvalid.val()));
        // The head's `tlast` loads whenever the output moves or is empty (from the
        // input while `ready`, else from the beat aside); the beat aside's on every clock the
        // slice is `ready` (it is empty then; `t_valid` says whether what it holds counts).
        if self.m_axis.tready.val() | (self.ready.q.val() & !self.o_valid.q.val()) {
            if self.ready.q.val() {
                self.o_last.d.next = self.s_axis.tlast.val();
            } else {
                self.o_last.d.next = self.t_last.q.val();
            }
        }
        if self.ready.q.val() {
            self.t_last.d.next = self.s_axis.tlast.val();
        }
        // Data, keep and user: the slot `w_sel` takes the input on every clock the slice is `ready`
        // (it is free then) and the next slot is used once a beat was taken; the head is the
        // slot `r_sel`, the other one once the head has left.
        for i in 0..2 {
            self.data[i].clock.next = self.clock.val();
            self.keep[i].clock.next = self.clock.val();
            self.user[i].clock.next = self.clock.val();
            self.data[i].d.next = self.data[i].q.val();
            self.keep[i].d.next = self.keep[i].q.val();
            self.user[i].d.next = self.user[i].q.val();
        }
        if self.ready.q.val() {
            if self.w_sel.q.val() {
                self.data[1].d.next = self.s_axis.tdata.val();
                self.keep[1].d.next = self.s_axis.tkeep.val();
                self.user[1].d.next = self.s_axis.tuser.val();
            } else {
                self.data[0].d.next = self.s_axis.tdata.val();
                self.keep[0].d.next = self.s_axis.tkeep.val();
                self.user[0].d.next = self.s_axis.tuser.val();
            }
        }
        self.w_sel.d.next = self.w_sel.q.val() ^ (self.ready.q.val() & self.s_axis.tvalid.val());
        self.r_sel.d.next = self.r_sel.q.val() ^ (self.o_valid.q.val() & self.m_axis.tready.val());
        if self.reset.val() {
            self.v_next.next = false;
            self.t_valid.d.next = false;
            self.ready.d.next = false;
            self.w_sel.d.next = false;
            self.r_sel.d.next = false;
        }
        self.o_valid.d.next = self.v_next.val();
        self.m_tvalid_next.next = self.v_next.val();
        self.s_axis.tready.next = self.ready.q.val();
        if self.r_sel.q.val() {
            self.m_axis.tdata.next = self.data[1].q.val();
            self.m_axis.tkeep.next = self.keep[1].q.val();
            self.m_axis.tuser.next = self.user[1].q.val();
        } else {
            self.m_axis.tdata.next = self.data[0].q.val();
            self.m_axis.tkeep.next = self.keep[0].q.val();
            self.m_axis.tuser.next = self.user[0].q.val();
        }
        self.m_axis.tlast.next = self.o_last.q.val();
        self.m_axis.tvalid.next = self.o_valid.q.val();
    }
}

/// ZedBoard: 64-bit beats.
pub type AxisRegister64 = AxisRegister<64, 8>;
/// NetFPGA SUME: 256-bit beats.
pub type AxisRegister256 = AxisRegister<256, 32>;

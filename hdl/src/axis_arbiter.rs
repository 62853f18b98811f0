//! Input arbiter: merges the ports' `s_axis` streams into one `m_axis` stream, a whole frame at a
//! time, round-robin so no port starves (after a frame from port `i` the search starts at
//! `i + 1`). Zero-bubble: the next frame's first beat can follow the previous `tlast` on the next
//! clock. `tuser[7:0]` leaves as the one-hot number of the port the frame came from.
//!
//! One template for both builds: [`AxisArbiter64`] (host + 3 ports) and [`AxisArbiter256`]
//! (host + 4 ports).

use rust_hdl::prelude::*;

macro_rules! axis_arbiter {
    ($(#[$doc:meta])* $name:ident, width = $w:tt, keep = $k:tt, ports = $n:tt) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            /// Synchronous reset: drop the lock on a partial frame.
            pub reset: Signal<In, Bit>,
            pub s_axis_tdata: [Signal<In, Bits<$w>>; $n],
            pub s_axis_tkeep: [Signal<In, Bits<$k>>; $n],
            pub s_axis_tlast: [Signal<In, Bit>; $n],
            pub s_axis_tuser: [Signal<In, Bits<16>>; $n],
            pub s_axis_tvalid: [Signal<In, Bit>; $n],
            pub s_axis_tready: [Signal<Out, Bit>; $n],
            pub m_axis_tdata: Signal<Out, Bits<$w>>,
            pub m_axis_tkeep: Signal<Out, Bits<$k>>,
            pub m_axis_tlast: Signal<Out, Bit>,
            pub m_axis_tuser: Signal<Out, Bits<16>>,
            pub m_axis_tvalid: Signal<Out, Bit>,
            pub m_axis_tready: Signal<In, Bit>,
            /// Port number `i` as a value.
            index: [Constant<Bits<4>>; $n],
            /// One-hot source mask of port `i`.
            one_hot: [Constant<Bits<16>>; $n],
            /// Bit `i` of the request vector.
            bit: [Constant<Bits<8>>; $n],
            /// Ports numbered above `i` (where the search starts after granting `i`).
            above: [Constant<Bits<8>>; $n],
            dst_mask: Constant<Bits<16>>,
            requests: Signal<Local, Bits<8>>,
            after_last: Signal<Local, Bits<8>>,
            pick: Signal<Local, Bits<4>>,
            found: Signal<Local, Bit>,
            grant: Signal<Local, Bits<4>>,
            /// The granted port's beat, before it leaves as `m_axis_*`: every output is
            /// assigned once per evaluation (event-driven simulators re-run the blocks that read
            /// a signal on every change, even a transient one).
            mux_tdata: Signal<Local, Bits<$w>>,
            mux_tkeep: Signal<Local, Bits<$k>>,
            mux_tlast: Signal<Local, Bit>,
            mux_tuser: Signal<Local, Bits<16>>,
            mux_tvalid: Signal<Local, Bit>,
            /// Inside a frame of port `sel`.
            locked: DFF<Bit>,
            sel: DFF<Bits<4>>,
            last: DFF<Bits<4>>,
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    s_axis_tdata: Default::default(),
                    s_axis_tkeep: Default::default(),
                    s_axis_tlast: Default::default(),
                    s_axis_tuser: Default::default(),
                    s_axis_tvalid: Default::default(),
                    s_axis_tready: Default::default(),
                    m_axis_tdata: Default::default(),
                    m_axis_tkeep: Default::default(),
                    m_axis_tlast: Default::default(),
                    m_axis_tuser: Default::default(),
                    m_axis_tvalid: Default::default(),
                    m_axis_tready: Default::default(),
                    index: std::array::from_fn(|i| Constant::new(bits::<4>(i as u64))),
                    one_hot: std::array::from_fn(|i| Constant::new(bits::<16>(1 << i))),
                    bit: std::array::from_fn(|i| Constant::new(bits::<8>(1 << i))),
                    above: std::array::from_fn(|i| Constant::new(bits::<8>(0xff & !((2u64 << i) - 1)))),
                    dst_mask: Constant::new(bits::<16>(0xff00)),
                    requests: Default::default(),
                    after_last: Default::default(),
                    pick: Default::default(),
                    found: Default::default(),
                    grant: Default::default(),
                    mux_tdata: Default::default(),
                    mux_tkeep: Default::default(),
                    mux_tlast: Default::default(),
                    mux_tuser: Default::default(),
                    mux_tvalid: Default::default(),
                    locked: Default::default(),
                    sel: Default::default(),
                    last: Default::default(),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, locked, sel, last);
                self.requests.next = bits::<8>(0);
                for i in 0..$n {
                    if self.s_axis_tvalid[i].val() {
                        self.requests.next = self.requests.val() | self.bit[i].val();
                    }
                }
                // Round-robin: the lowest requesting port above the last grant, else the lowest.
                self.after_last.next = bits::<8>(0);
                for i in 0..$n {
                    if self.last.q.val() == self.index[i].val() {
                        self.after_last.next = self.requests.val() & self.above[i].val();
                    }
                }
                self.pick.next = bits::<4>(0);
                self.found.next = false;
                for i in 0..$n {
                    if self.after_last.val().get_bit(i) & !self.found.val() {
                        self.pick.next = self.index[i].val();
                        self.found.next = true;
                    }
                }
                for i in 0..$n {
                    if self.requests.val().get_bit(i) & !self.found.val() {
                        self.pick.next = self.index[i].val();
                        self.found.next = true;
                    }
                }
                self.grant.next = self.pick.val();
                if self.locked.q.val() {
                    self.grant.next = self.sel.q.val();
                }
                self.mux_tdata.next = bits::<$w>(0);
                self.mux_tkeep.next = bits::<$k>(0);
                self.mux_tlast.next = false;
                self.mux_tuser.next = bits::<16>(0);
                self.mux_tvalid.next = false;
                for i in 0..$n {
                    if self.grant.val() == self.index[i].val() {
                        self.mux_tdata.next = self.s_axis_tdata[i].val();
                        self.mux_tkeep.next = self.s_axis_tkeep[i].val();
                        self.mux_tlast.next = self.s_axis_tlast[i].val();
                        self.mux_tuser.next = (self.s_axis_tuser[i].val() & self.dst_mask.val()) | self.one_hot[i].val();
                        self.mux_tvalid.next = self.s_axis_tvalid[i].val();
                    }
                    self.s_axis_tready[i].next = self.m_axis_tready.val() & (self.grant.val() == self.index[i].val());
                }
                self.m_axis_tdata.next = self.mux_tdata.val();
                self.m_axis_tkeep.next = self.mux_tkeep.val();
                self.m_axis_tlast.next = self.mux_tlast.val();
                self.m_axis_tuser.next = self.mux_tuser.val();
                self.m_axis_tvalid.next = self.mux_tvalid.val();
                if self.m_axis_tvalid.val() & self.m_axis_tready.val() {
                    if self.m_axis_tlast.val() {
                        self.locked.d.next = false;
                        self.last.d.next = self.grant.val();
                    } else {
                        self.locked.d.next = true;
                        self.sel.d.next = self.grant.val();
                    }
                }
                if self.reset.val() {
                    self.locked.d.next = false;
                    self.sel.d.next = bits::<4>(0);
                    self.last.d.next = bits::<4>(0);
                }
            }
        }
    };
}

axis_arbiter!(
    /// ZedBoard: host + 3 network ports, 64-bit beats.
    AxisArbiter64, width = 64, keep = 8, ports = 4
);
axis_arbiter!(
    /// NetFPGA SUME: host + 4 network ports, 256-bit beats.
    AxisArbiter256, width = 256, keep = 32, ports = 5
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emits_verilog() {
        let v = crate::emit::verilog(AxisArbiter64::default(), "collwire_axis_arbiter64");
        assert!(v.contains("module collwire_axis_arbiter64("), "{v}");
    }
}

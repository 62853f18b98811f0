//! One board: the whole bump in the wire, host port plus network ports.
//!
//! ```text
//! s_axis[0..n] → axis_arbiter → frame_router ─ pass-through ───────────────────┐
//!                                   │ offload frame + header                    │
//!                                   ├──→ cfe ── command ──→ offload_splitter ─ transit ─┤
//!                                   │     │ instructions         │ payload words        ├→ merge (axis_arbiter)
//!                                   │     └──→ cipe ←────────────┘                      │       → output_queues → m_axis[0..n]
//!                                   │     header entries → frame_builder ← results ─────┘
//! ```
//!
//! A request from the host (port 0) or a partial/result from another board enters through the
//! arbiter, is recognised by the router, stored by the CFE into a CIPE buffer, and the
//! segment's program sends its results as new frames (`frame_builder`) to the host and to other
//! boards, merged with pass-through and transit traffic into the output queues.
//!
//! One template for both widths: [`Board64`] (ZedBoard: host + 3 ports) and [`Board256`]
//! (NetFPGA SUME: host + 4 ports). Configuration (`cfg_*`) is the CFE's ([`crate::cfe::cfg`]);
//! the statistics counters ([`crate::statistics`]) are read back on `cfg_rdata`.

use rust_hdl::prelude::*;

use crate::axis_arbiter::{AxisArbiter64, AxisArbiter256};
use crate::cfe::{Cfe, cfg};
use crate::cipe::{Cipe64, Cipe256};
use crate::frame_builder::{FrameBuilder64, FrameBuilder256};
use crate::frame_router::{FrameRouter64, FrameRouter256};
use crate::offload_splitter::{OffloadSplitter64, OffloadSplitter256};
use crate::output_queues::{OutputQueues64, OutputQueues256};
use crate::statistics::{STAT_INDEX_BITS, STATS, Statistics};

macro_rules! board {
    (
        $(#[$doc:meta])* $name:ident, width = $w:tt, keep = $k:tt, ports = $n:tt, word_bytes = $wb:tt,
        arbiter = $arb:ident, router = $router:ident, splitter = $split:ident, cipe = $cipe:ident,
        builder = $fb:ident, queues = $oq:ident
    ) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            pub reset: Signal<In, Bit>,
            pub s_axis_tdata: [Signal<In, Bits<$w>>; $n],
            pub s_axis_tkeep: [Signal<In, Bits<$k>>; $n],
            pub s_axis_tlast: [Signal<In, Bit>; $n],
            pub s_axis_tvalid: [Signal<In, Bit>; $n],
            pub s_axis_tready: [Signal<Out, Bit>; $n],
            pub m_axis_tdata: [Signal<Out, Bits<$w>>; $n],
            pub m_axis_tkeep: [Signal<Out, Bits<$k>>; $n],
            pub m_axis_tlast: [Signal<Out, Bit>; $n],
            pub m_axis_tvalid: [Signal<Out, Bit>; $n],
            pub m_axis_tready: [Signal<In, Bit>; $n],
            pub cfg_we: Signal<In, Bit>,
            pub cfg_addr: Signal<In, Bits<16>>,
            pub cfg_data: Signal<In, Bits<32>>,
            /// The CFE's state ([`crate::cfe::STATE_NAMES`]).
            pub cfe_state: Signal<Out, Bits<4>>,
            /// Configuration read port: the word at `cfg_addr` (the statistics counters,
            /// `cfg::STATS`; 0 elsewhere), combinational.
            pub cfg_rdata: Signal<Out, Bits<32>>,
            arbiter: $arb,
            router: $router,
            cfe: Cfe,
            splitter: $split,
            cipe: $cipe,
            builder: $fb,
            merge: $arb,
            queues: $oq,
            stats: Statistics,
            stats_tag: Constant<Bits<16>>,
            stats_index_bits: Constant<Bits<16>>,
            ev_cfe: Signal<Local, Bits<STATS>>,
            ev_router: Signal<Local, Bits<STATS>>,
            ev_queues: Signal<Local, Bits<STATS>>,
            l_rdata: Signal<Local, Bits<32>>,
        }

        impl Default for $name {
            fn default() -> Self {
                Self {
                    clock: Default::default(),
                    reset: Default::default(),
                    s_axis_tdata: Default::default(),
                    s_axis_tkeep: Default::default(),
                    s_axis_tlast: Default::default(),
                    s_axis_tvalid: Default::default(),
                    s_axis_tready: Default::default(),
                    m_axis_tdata: Default::default(),
                    m_axis_tkeep: Default::default(),
                    m_axis_tlast: Default::default(),
                    m_axis_tvalid: Default::default(),
                    m_axis_tready: Default::default(),
                    cfg_we: Default::default(),
                    cfg_addr: Default::default(),
                    cfg_data: Default::default(),
                    cfe_state: Default::default(),
                    cfg_rdata: Default::default(),
                    arbiter: Default::default(),
                    router: Default::default(),
                    cfe: Cfe::new($wb),
                    splitter: Default::default(),
                    cipe: Default::default(),
                    builder: Default::default(),
                    merge: Default::default(),
                    queues: Default::default(),
                    stats: Default::default(),
                    stats_tag: Constant::new(bits::<16>(cfg::region_tag(cfg::STATS, cfg::STAT_ENTRIES))),
                    stats_index_bits: Constant::new(bits::<16>(STAT_INDEX_BITS as u64)),
                    ev_cfe: Default::default(),
                    ev_router: Default::default(),
                    ev_queues: Default::default(),
                    l_rdata: Default::default(),
                }
            }
        }

        impl Logic for $name {
            #[hdl_gen]
            fn update(&mut self) {
                self.arbiter.clock.next = self.clock.val();
                self.router.clock.next = self.clock.val();
                self.cfe.clock.next = self.clock.val();
                self.splitter.clock.next = self.clock.val();
                self.cipe.clock.next = self.clock.val();
                self.builder.clock.next = self.clock.val();
                self.merge.clock.next = self.clock.val();
                self.queues.clock.next = self.clock.val();
                self.stats.clock.next = self.clock.val();
                self.stats.reset.next = self.reset.val();
                self.arbiter.reset.next = self.reset.val();
                self.router.reset.next = self.reset.val();
                self.cfe.reset.next = self.reset.val();
                self.splitter.reset.next = self.reset.val();
                self.cipe.reset.next = self.reset.val();
                self.builder.reset.next = self.reset.val();
                self.merge.reset.next = self.reset.val();
                self.queues.reset.next = self.reset.val();
                // Ingress.
                for i in 0..$n {
                    self.arbiter.s_axis_tdata[i].next = self.s_axis_tdata[i].val();
                    self.arbiter.s_axis_tkeep[i].next = self.s_axis_tkeep[i].val();
                    self.arbiter.s_axis_tlast[i].next = self.s_axis_tlast[i].val();
                    self.arbiter.s_axis_tuser[i].next = bits::<16>(0);
                    self.arbiter.s_axis_tvalid[i].next = self.s_axis_tvalid[i].val();
                    self.s_axis_tready[i].next = self.arbiter.s_axis_tready[i].val();
                }
                self.router.s_axis_tdata.next = self.arbiter.m_axis_tdata.val();
                self.router.s_axis_tkeep.next = self.arbiter.m_axis_tkeep.val();
                self.router.s_axis_tlast.next = self.arbiter.m_axis_tlast.val();
                self.router.s_axis_tuser.next = self.arbiter.m_axis_tuser.val();
                self.router.s_axis_tvalid.next = self.arbiter.m_axis_tvalid.val();
                self.arbiter.m_axis_tready.next = self.router.s_axis_tready.val();
                // Offload frames: the CFE decides, the splitter moves the beats.
                self.cfe.frame_valid.next = self.router.m_offload_axis_tvalid.val();
                self.cfe.frame_header.next = self.router.offload_header.val();
                self.cfe.frame_payload_len.next = self.router.offload_payload_len.val();
                self.cfe.frame_unsupported.next = self.router.offload_unsupported.val();
                self.cfe.cfg_we.next = self.cfg_we.val();
                self.cfe.cfg_addr.next = self.cfg_addr.val();
                self.cfe.cfg_data.next = self.cfg_data.val();
                self.splitter.s_axis_tdata.next = self.router.m_offload_axis_tdata.val();
                self.splitter.s_axis_tkeep.next = self.router.m_offload_axis_tkeep.val();
                self.splitter.s_axis_tlast.next = self.router.m_offload_axis_tlast.val();
                self.splitter.s_axis_tuser.next = self.router.m_offload_axis_tuser.val();
                self.splitter.s_axis_tvalid.next = self.router.m_offload_axis_tvalid.val();
                self.router.m_offload_axis_tready.next = self.splitter.s_axis_tready.val();
                self.splitter.s_cmd_tdata.next = self.cfe.m_cmd_tdata.val();
                self.splitter.s_cmd_tvalid.next = self.cfe.m_cmd_tvalid.val();
                self.cfe.m_cmd_tready.next = self.splitter.s_cmd_tready.val();
                // CIPE: instructions from the CFE, payload words from the splitter.
                self.cipe.s_instr_tdata.next = self.cfe.m_instr_tdata.val();
                self.cipe.s_instr_tvalid.next = self.cfe.m_instr_tvalid.val();
                self.cfe.m_instr_tready.next = self.cipe.s_instr_tready.val();
                self.cipe.s_axis_tdata.next = self.splitter.m_axis_tdata.val();
                self.cipe.s_axis_tvalid.next = self.splitter.m_axis_tvalid.val();
                self.splitter.m_axis_tready.next = self.cipe.s_axis_tready.val();
                // Frames the engine sends.
                self.builder.s_entry_tdata.next = self.cfe.m_entry_tdata.val();
                self.builder.s_entry_tvalid.next = self.cfe.m_entry_tvalid.val();
                self.cfe.m_entry_tready.next = self.builder.s_entry_tready.val();
                self.builder.s_axis_tdata.next = self.cipe.m_axis_tdata.val();
                self.builder.s_axis_tlast.next = self.cipe.m_axis_tlast.val();
                self.builder.s_axis_tvalid.next = self.cipe.m_axis_tvalid.val();
                self.cipe.m_axis_tready.next = self.builder.s_axis_tready.val();
                // Merge: pass-through (0), transit (1), engine (2); the rest idle. Each merge
                // input is assigned once (no default-then-override across a block boundary).
                for i in 3..$n {
                    self.merge.s_axis_tdata[i].next = bits::<$w>(0);
                    self.merge.s_axis_tkeep[i].next = bits::<$k>(0);
                    self.merge.s_axis_tlast[i].next = false;
                    self.merge.s_axis_tuser[i].next = bits::<16>(0);
                    self.merge.s_axis_tvalid[i].next = false;
                }
                self.merge.s_axis_tdata[0].next = self.router.m_axis_tdata.val();
                self.merge.s_axis_tkeep[0].next = self.router.m_axis_tkeep.val();
                self.merge.s_axis_tlast[0].next = self.router.m_axis_tlast.val();
                self.merge.s_axis_tuser[0].next = self.router.m_axis_tuser.val();
                self.merge.s_axis_tvalid[0].next = self.router.m_axis_tvalid.val();
                self.router.m_axis_tready.next = self.merge.s_axis_tready[0].val();
                self.merge.s_axis_tdata[1].next = self.splitter.m_transit_axis_tdata.val();
                self.merge.s_axis_tkeep[1].next = self.splitter.m_transit_axis_tkeep.val();
                self.merge.s_axis_tlast[1].next = self.splitter.m_transit_axis_tlast.val();
                self.merge.s_axis_tuser[1].next = self.splitter.m_transit_axis_tuser.val();
                self.merge.s_axis_tvalid[1].next = self.splitter.m_transit_axis_tvalid.val();
                self.splitter.m_transit_axis_tready.next = self.merge.s_axis_tready[1].val();
                self.merge.s_axis_tdata[2].next = self.builder.m_axis_tdata.val();
                self.merge.s_axis_tkeep[2].next = self.builder.m_axis_tkeep.val();
                self.merge.s_axis_tlast[2].next = self.builder.m_axis_tlast.val();
                self.merge.s_axis_tuser[2].next = self.builder.m_axis_tuser.val();
                self.merge.s_axis_tvalid[2].next = self.builder.m_axis_tvalid.val();
                self.builder.m_axis_tready.next = self.merge.s_axis_tready[2].val();
                self.queues.s_axis_tdata.next = self.merge.m_axis_tdata.val();
                self.queues.s_axis_tkeep.next = self.merge.m_axis_tkeep.val();
                self.queues.s_axis_tlast.next = self.merge.m_axis_tlast.val();
                self.queues.s_axis_tuser.next = self.merge.m_axis_tuser.val();
                self.queues.s_axis_tvalid.next = self.merge.m_axis_tvalid.val();
                self.merge.m_axis_tready.next = self.queues.s_axis_tready.val();
                for i in 0..$n {
                    self.m_axis_tdata[i].next = self.queues.m_axis_tdata[i].val();
                    self.m_axis_tkeep[i].next = self.queues.m_axis_tkeep[i].val();
                    self.m_axis_tlast[i].next = self.queues.m_axis_tlast[i].val();
                    self.m_axis_tvalid[i].next = self.queues.m_axis_tvalid[i].val();
                    self.queues.m_axis_tready[i].next = self.m_axis_tready[i].val();
                }
                self.cfe_state.next = self.cfe.state_code.val();
                // Statistics: every block's events into one register file, read over the
                // configuration port.
                self.ev_cfe.next = self.cfe.events.val().into();
                self.ev_router.next = self.router.events.val().into();
                self.ev_queues.next = self.queues.events.val().into();
                self.stats.events.next = self.ev_cfe.val() | self.ev_router.val() | self.ev_queues.val();
                self.stats.read_index.next = bit_cast::<STAT_INDEX_BITS, 16>(self.cfg_addr.val());
                self.l_rdata.next = bits::<32>(0);
                if (self.cfg_addr.val() >> self.stats_index_bits.val()) == self.stats_tag.val() {
                    self.l_rdata.next = self.stats.read_data.val();
                }
                self.cfg_rdata.next = self.l_rdata.val();
            }
        }
    };
}

board!(
    /// ZedBoard: 64-bit datapath, host + 3 network ports.
    Board64, width = 64, keep = 8, ports = 4, word_bytes = 8, arbiter = AxisArbiter64,
    router = FrameRouter64, splitter = OffloadSplitter64, cipe = Cipe64, builder = FrameBuilder64,
    queues = OutputQueues64
);
board!(
    /// NetFPGA SUME: 256-bit datapath, host + 4 network ports.
    Board256, width = 256, keep = 32, ports = 5, word_bytes = 32, arbiter = AxisArbiter256,
    router = FrameRouter256, splitter = OffloadSplitter256, cipe = Cipe256, builder = FrameBuilder256,
    queues = OutputQueues256
);

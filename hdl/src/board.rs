//! One board: the whole bump in the wire, host port plus network ports.
//!
//! ```text
//! s_axis[0..n] → axis_arbiter → frame_router ─ pass-through (cut-through) ────── axis_register ─┐
//!                                   │     ─ transit (cut-through, route table) ─ axis_register ─┤
//!                                   │ offload frame + header (offload buffer)                   │
//!                                   ├──→ cfe ── command ──→ offload_splitter                    ├→ merge (axis_arbiter)
//!                                   │     │ instructions         │ payload words                │    → output_queues → m_axis[0..n]
//!                                   │     │                axis_register                        │
//!                                   │     └──→ cipe ←────────────┘                              │
//!                                   │  header entries → frame_builder ← results ─ axis_register ┘
//! ```
//!
//! A request from the host (port 0) or a partial/result from another board enters through the
//! arbiter, is recognised by the router, stored by the CFE into a CIPE buffer, and the
//! segment's program sends its results as new frames (`frame_builder`) to the host and to other
//! boards, merged with pass-through and transit traffic into the output queues. At 64 bits a
//! register slice sits between the arbiter and the router ([`ingress_slice`]).
//!
//! One block for both widths: [`Board64`] (ZedBoard: host + 3 ports) and [`Board256`]
//! (NetFPGA SUME: host + 4 ports). Configuration (`cfg_*`) is the CFE's ([`crate::cfe::cfg`]);
//! the statistics counters ([`crate::statistics`]) are read back on `cfg_rdata`.

use rust_hdl::prelude::*;

use crate::axis::{AxisSource, MacSink, MacSource, PayloadSource, TUSER_BAD_AT, TUSER_DST_AT};
use crate::axis_arbiter::AxisArbiter;
use crate::axis_register::AxisRegister;
use crate::cfe::{Cfe, cfg};
use crate::cipe::Cipe;
use crate::frame_builder::FrameBuilder;
use crate::frame_router::FrameRouter;
use crate::offload_splitter::OffloadSplitter;
use crate::output_queues::OutputQueues;
use crate::statistics::{STAT_INDEX_BITS, STATS, Statistics};

/// Whether the `w`-bit board has a register slice between the input arbiter and the router
/// (`in_reg`): at 64 bits, where the arbiter's grant → its merged beat → the router's accept,
/// header capture and classifier start was board64's worst path on seed 2 at fef1ca6 (7 cells,
/// 1.25 / 5.97 ns, 138.4 MHz). Its clock is on every hop; at 64 bits the engine hop gets it back
/// from the router's early verdict (`hdl/src/frame_router.rs`, since then at 64 bits too), the transit and
/// pass-through hops have room under their targets (≤ 14 and ≤ 12). At 256 bits the transit
/// hop is at its target (8) and the slice is left out.
pub const fn ingress_slice(w: usize) -> bool {
    w < 256
}

/// A board of `N` ports and a `W`-bit datapath. Stable Rust cannot compute one const
/// parameter from another (`generic_const_exprs`), so every width the blocks inside need is a
/// parameter of its own, checked by the block that uses it:
///
/// | parameter | meaning | 64-bit | 256-bit |
/// |---|---|---|---|
/// | `W`, `K` | data bits, keep bits (`W / 8`) | 64, 8 | 256, 32 |
/// | `N` | ports (host + network) | 4 | 5 |
/// | `BB`, `LAST`, `USER` | a stored beat's bits; where its `tlast` and `tuser` sit | 89, 72, 73 | 305, 288, 289 |
/// | `DL`, `DL1` | log2 of a frame buffer or queue in beats, + 1 | 11, 12 | 9, 10 |
/// | `HB` | beats of the 64-byte header | 8 | 2 |
/// | `WL`, `KL` | log2 of `W` and of `K` | 6, 3 | 8, 5 |
/// | `L64`, `L32` | ALU lanes of 64 and 32 bits | 1, 2 | 4, 8 |
/// | `WB`, `AB`, `OB` | log2 of words a CIPE buffer; buffer address bits; CIPE output entry bits | 8, 14, 130 | 6, 12, 322 |
#[derive(LogicBlock)]
pub struct Board<
    const W: usize,
    const K: usize,
    const N: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
    const HB: usize,
    const WL: usize,
    const KL: usize,
    const L64: usize,
    const L32: usize,
    const WB: usize,
    const AB: usize,
    const OB: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// Port `i`'s MAC receive stream (port 0: the host).
    pub s_axis: [MacSink<W, K>; N],
    /// Port `i`'s MAC transmit stream.
    pub m_axis: [MacSource<W, K>; N],
    pub cfg_we: Signal<In, Bit>,
    pub cfg_addr: Signal<In, Bits<16>>,
    pub cfg_data: Signal<In, Bits<32>>,
    /// Time-base pin: open contexts age on its ticks ([`crate::time_base`]; or configure the
    /// prescaler, `cfg::TICK_PERIOD`).
    pub age_tick: Signal<In, Bit>,
    /// The CFE's state ([`crate::cfe::STATE_NAMES`]).
    pub cfe_state: Signal<Out, Bits<4>>,
    /// Configuration read port: the word at `cfg_addr` (the statistics counters,
    /// `cfg::STATS`; 0 elsewhere), combinational.
    pub cfg_rdata: Signal<Out, Bits<32>>,
    arbiter: AxisArbiter<W, K, N>,
    /// The register slice between the arbiter and the router, where [`ingress_slice`] says
    /// (`in_slice`); else unused (its input never valid), and removed by synthesis.
    in_reg: AxisRegister<W, K>,
    in_slice: Constant<Bit>,
    router: FrameRouter<W, K, BB, LAST, USER, DL, DL1, HB>,
    cfe: Cfe,
    splitter: OffloadSplitter<W, K, HB>,
    cipe: Cipe<W, L64, L32, WB, AB, OB>,
    /// A register slice on the payload words from the splitter to the CIPE (`tdata`, the
    /// handshake, and the bad mark in `tuser`): the CIPE's input ready does not reach through the splitter
    /// into the router's offload-frame pop and the verdict queue's read address.
    payload_reg: AxisRegister<W, K>,
    builder: FrameBuilder<W, K, HB, WL, KL>,
    /// A register slice between the builder and the merge: the merge's grant does not reach
    /// into the builder and the CIPE's result FIFO.
    engine_out: AxisRegister<W, K>,
    /// Register slices on the router's pass-through and transit streams: the router's
    /// ingress buffer (its head beat's `tlast`, which holds a transit frame's last beat back
    /// until its verdict is in) does not reach through the merge's grant into the output
    /// queues' input stage (board64's worst path on the default seed at 814ed5e, 9 cells,
    /// 1.60 / 5.94 ns). A clock on the pass-through and transit hops, none on the engine's.
    pass_out: AxisRegister<W, K>,
    transit_out: AxisRegister<W, K>,
    merge: AxisArbiter<W, K, N>,
    queues: OutputQueues<W, K, N, BB, LAST, USER, DL, DL1>,
    stats: Statistics,
    stats_tag: Constant<Bits<16>>,
    stats_index_bits: Constant<Bits<16>>,
    bad_bit: Constant<Bits<16>>,
    /// Merge inputs 0 (pass-through), 1 (transit) and 2 (engine: gapless frames,
    /// [`crate::frame_builder`]), as `tuser` source bits.
    gapless_sources: Constant<Bits<8>>,
    /// Where the destination mask is in `tuser`.
    dst_at: Constant<Bits<16>>,
    /// Merge input `i`'s cut-through answer for the output queues (`OutputQueues::roomy`),
    /// on its own beat: the merge passes the granted one.
    cut_of: [Signal<Local, Bit>; N],
    mac_user: [Signal<Local, Bits<16>>; N],
    payload_user: Signal<Local, Bits<16>>,
    ev_cfe: Signal<Local, Bits<STATS>>,
    ev_router: Signal<Local, Bits<STATS>>,
    ev_queues: Signal<Local, Bits<STATS>>,
    l_rdata: Signal<Local, Bits<32>>,
}

impl<
    const W: usize,
    const K: usize,
    const N: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
    const HB: usize,
    const WL: usize,
    const KL: usize,
    const L64: usize,
    const L32: usize,
    const WB: usize,
    const AB: usize,
    const OB: usize,
> Default for Board<W, K, N, BB, LAST, USER, DL, DL1, HB, WL, KL, L64, L32, WB, AB, OB>
{
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: std::array::from_fn(|_| Default::default()),
            m_axis: std::array::from_fn(|_| Default::default()),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_data: Default::default(),
            age_tick: Default::default(),
            cfe_state: Default::default(),
            cfg_rdata: Default::default(),
            arbiter: AxisArbiter::ready_always(),
            in_reg: Default::default(),
            in_slice: Constant::new(ingress_slice(W)),
            router: Default::default(),
            cfe: Cfe::new(K),
            splitter: Default::default(),
            cipe: Default::default(),
            builder: Default::default(),
            engine_out: Default::default(),
            pass_out: Default::default(),
            transit_out: Default::default(),
            payload_reg: Default::default(),
            merge: Default::default(),
            queues: Default::default(),
            stats: Default::default(),
            stats_tag: Constant::new(bits::<16>(cfg::region_tag(cfg::STATS, cfg::STAT_ENTRIES))),
            stats_index_bits: Constant::new(bits::<16>(STAT_INDEX_BITS as u64)),
            bad_bit: Constant::new(bits::<16>(1 << TUSER_BAD_AT)),
            gapless_sources: Constant::new(bits::<8>(0b111)),
            dst_at: Constant::new(bits::<16>(TUSER_DST_AT as u64)),
            cut_of: std::array::from_fn(|_| Default::default()),
            mac_user: std::array::from_fn(|_| Default::default()),
            payload_user: Default::default(),
            ev_cfe: Default::default(),
            ev_router: Default::default(),
            ev_queues: Default::default(),
            l_rdata: Default::default(),
        }
    }
}

impl<
    const W: usize,
    const K: usize,
    const N: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
    const HB: usize,
    const WL: usize,
    const KL: usize,
    const L64: usize,
    const L32: usize,
    const WB: usize,
    const AB: usize,
    const OB: usize,
> Logic for Board<W, K, N, BB, LAST, USER, DL, DL1, HB, WL, KL, L64, L32, WB, AB, OB>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.arbiter.clock.next = self.clock.val();
        self.in_reg.clock.next = self.clock.val();
        self.router.clock.next = self.clock.val();
        self.cfe.clock.next = self.clock.val();
        self.splitter.clock.next = self.clock.val();
        self.cipe.clock.next = self.clock.val();
        self.builder.clock.next = self.clock.val();
        self.engine_out.clock.next = self.clock.val();
        self.pass_out.clock.next = self.clock.val();
        self.transit_out.clock.next = self.clock.val();
        self.payload_reg.clock.next = self.clock.val();
        self.merge.clock.next = self.clock.val();
        self.queues.clock.next = self.clock.val();
        self.stats.clock.next = self.clock.val();
        self.stats.reset.next = self.reset.val();
        self.arbiter.reset.next = self.reset.val();
        self.in_reg.reset.next = self.reset.val();
        self.router.reset.next = self.reset.val();
        self.cfe.reset.next = self.reset.val();
        self.splitter.reset.next = self.reset.val();
        self.cipe.reset.next = self.reset.val();
        self.builder.reset.next = self.reset.val();
        self.engine_out.reset.next = self.reset.val();
        self.pass_out.reset.next = self.reset.val();
        self.transit_out.reset.next = self.reset.val();
        self.payload_reg.reset.next = self.reset.val();
        self.merge.reset.next = self.reset.val();
        self.queues.reset.next = self.reset.val();
        // Ingress: the MACs' streams into the arbiter, which stamps the source port; a MAC's
        // `tuser` (frame received bad) becomes the bus's bad bit.
        for i in 0..N {
            self.arbiter.s_axis[i].tdata.next = self.s_axis[i].tdata.val();
            self.arbiter.s_axis[i].tkeep.next = self.s_axis[i].tkeep.val();
            self.arbiter.s_axis[i].tlast.next = self.s_axis[i].tlast.val();
            self.mac_user[i].next = bits::<16>(0);
            if self.s_axis[i].tuser.val() {
                self.mac_user[i].next = self.bad_bit.val();
            }
            self.arbiter.s_axis[i].tuser.next = self.mac_user[i].val();
            self.arbiter.s_axis[i].tvalid.next = self.s_axis[i].tvalid.val();
            self.arbiter.s_flag[i].next = false;
            self.s_axis[i].tready.next = self.arbiter.s_axis[i].tready.val();
        }
        // The merged frames to the router, through the slice where there is one.
        self.in_reg.s_axis.tdata.next = self.arbiter.m_axis.tdata.val();
        self.in_reg.s_axis.tkeep.next = self.arbiter.m_axis.tkeep.val();
        self.in_reg.s_axis.tlast.next = self.arbiter.m_axis.tlast.val();
        self.in_reg.s_axis.tuser.next = self.arbiter.m_axis.tuser.val();
        self.in_reg.s_axis.tvalid.next = self.arbiter.m_axis.tvalid.val() & self.in_slice.val();
        self.in_reg.m_axis.tready.next = self.router.s_axis.tready.val();
        if self.in_slice.val() {
            self.router.s_axis.tdata.next = self.in_reg.m_axis.tdata.val();
            self.router.s_axis.tkeep.next = self.in_reg.m_axis.tkeep.val();
            self.router.s_axis.tlast.next = self.in_reg.m_axis.tlast.val();
            self.router.s_axis.tuser.next = self.in_reg.m_axis.tuser.val();
            self.router.s_axis.tvalid.next = self.in_reg.m_axis.tvalid.val();
            self.arbiter.m_axis.tready.next = self.in_reg.s_axis.tready.val();
        } else {
            self.router.s_axis.tdata.next = self.arbiter.m_axis.tdata.val();
            self.router.s_axis.tkeep.next = self.arbiter.m_axis.tkeep.val();
            self.router.s_axis.tlast.next = self.arbiter.m_axis.tlast.val();
            self.router.s_axis.tuser.next = self.arbiter.m_axis.tuser.val();
            self.router.s_axis.tvalid.next = self.arbiter.m_axis.tvalid.val();
            self.arbiter.m_axis.tready.next = self.router.s_axis.tready.val();
        }
        // The MACs' frames carry no destination yet: the input arbiter waits only on the router
        // (it is made `ready_always` and does not read this).
        self.arbiter.dst_ready.next = bits::<8>(0xff);
        self.router.cfg_we.next = self.cfg_we.val();
        self.router.cfg_addr.next = self.cfg_addr.val();
        self.router.cfg_data.next = self.cfg_data.val();
        // Offload frames: the CFE decides, the splitter moves the beats.
        self.cfe.frame_valid.next = self.router.m_offload_axis.tvalid.val();
        self.cfe.frame_fields.next = self.router.offload_fields.val();
        self.cfe.frame_payload_len.next = self.router.offload_payload_len.val();
        self.cfe.frame_dir.next = self.router.offload_dir.val();
        self.cfe.frame_unsupported.next = self.router.offload_unsupported.val();
        // Each frame's tail, good or bad: the CFE commits or undoes what the frame did.
        self.cfe.frame_tail_valid.next = self.splitter.tail_valid.val();
        self.cfe.frame_tail_bad.next = self.splitter.tail_bad.val();
        self.cfe.cfg_we.next = self.cfg_we.val();
        self.cfe.cfg_addr.next = self.cfg_addr.val();
        self.cfe.cfg_data.next = self.cfg_data.val();
        self.cfe.age_tick.next = self.age_tick.val();
        AxisSource::<W, K>::join(&mut self.router.m_offload_axis, &mut self.splitter.s_axis);
        self.splitter.s_axis_peek.next = self.router.offload_peek.val();
        self.splitter.s_axis_gone.next = self.router.offload_gone.val();
        self.router.offload_skip.next = self.splitter.s_axis_skip.val();
        self.splitter.s_cmd_tdata.next = self.cfe.m_cmd_tdata.val();
        self.splitter.s_cmd_tvalid.next = self.cfe.m_cmd_tvalid.val();
        self.cfe.m_cmd_tready.next = self.splitter.s_cmd_tready.val();
        // CIPE: instructions from the CFE, payload words from the splitter.
        self.cipe.s_instr.tdata.next = self.cfe.m_instr_tdata.val();
        self.cipe.s_instr_tuser.next = self.cfe.m_instr_tuser.val();
        self.cipe.s_instr.tvalid.next = self.cfe.m_instr_tvalid.val();
        self.cfe.m_instr_tready.next = self.cipe.s_instr.tready.val();
        self.payload_reg.s_axis.tdata.next = self.splitter.m_axis.tdata.val();
        self.payload_reg.s_axis.tkeep.next = bits::<K>(0);
        self.payload_reg.s_axis.tlast.next = false;
        // The bad mark of a frame's last payload word rides in `tuser`'s bad bit.
        self.payload_user.next = bits::<16>(0);
        if self.splitter.m_axis_tbad.val() {
            self.payload_user.next = self.bad_bit.val();
        }
        self.payload_reg.s_axis.tuser.next = self.payload_user.val();
        self.payload_reg.s_axis.tvalid.next = self.splitter.m_axis.tvalid.val();
        self.splitter.m_axis.tready.next = self.payload_reg.s_axis.tready.val();
        self.cipe.s_axis.tdata.next = self.payload_reg.m_axis.tdata.val();
        self.cipe.s_axis.tvalid.next = self.payload_reg.m_axis.tvalid.val();
        self.cipe.s_axis_tbad.next =
            (self.payload_reg.m_axis.tuser.val() & self.bad_bit.val()) != bits::<16>(0);
        self.payload_reg.m_axis.tready.next = self.cipe.s_axis.tready.val();
        // Frames the engine sends.
        self.builder.s_entry_tdata.next = self.cfe.m_entry_tdata.val();
        self.builder.s_entry_tvalid.next = self.cfe.m_entry_tvalid.val();
        self.cfe.m_entry_tready.next = self.builder.s_entry_tready.val();
        PayloadSource::<W>::join(&mut self.cipe.m_axis, &mut self.builder.s_axis);
        self.builder.s_axis_soon.next = self.cipe.m_axis_soon.val();
        // Merge: pass-through (0), transit (1), engine (2); the rest idle. Each merge
        // input is assigned once (no default-then-override across a block boundary).
        for i in 3..N {
            self.merge.s_axis[i].tdata.next = bits::<W>(0);
            self.merge.s_axis[i].tkeep.next = bits::<K>(0);
            self.merge.s_axis[i].tlast.next = false;
            self.merge.s_axis[i].tuser.next = bits::<16>(0);
            self.merge.s_axis[i].tvalid.next = false;
        }
        AxisSource::<W, K>::join(&mut self.router.m_axis, &mut self.pass_out.s_axis);
        AxisSource::<W, K>::join(&mut self.pass_out.m_axis, &mut self.merge.s_axis[0]);
        AxisSource::<W, K>::join(
            &mut self.router.m_transit_axis,
            &mut self.transit_out.s_axis,
        );
        AxisSource::<W, K>::join(&mut self.transit_out.m_axis, &mut self.merge.s_axis[1]);
        AxisSource::<W, K>::join(&mut self.builder.m_axis, &mut self.engine_out.s_axis);
        AxisSource::<W, K>::join(&mut self.engine_out.m_axis, &mut self.merge.s_axis[2]);
        // The merge offers a beat only when every queue of its destinations has room
        // (`dst_ready`), so the queues take whatever it offers: its `m_axis_tready` is tied
        // high and the queues' ready never reaches back through the merged beat's mask.
        self.queues.s_axis.tdata.next = self.merge.m_axis.tdata.val();
        self.queues.s_axis.tkeep.next = self.merge.m_axis.tkeep.val();
        self.queues.s_axis.tlast.next = self.merge.m_axis.tlast.val();
        self.queues.s_axis.tuser.next = self.merge.m_axis.tuser.val();
        self.queues.s_axis.tvalid.next = self.merge.m_axis.tvalid.val();
        self.merge.m_axis.tready.next = true;
        self.queues.source_checks_room.next = true;
        self.merge.dst_ready.next = self.queues.dst_ready.val();
        // The queues' cut-through choice (see `OutputQueues::roomy`), made on each merge
        // input's beat (each from a register slice) beside the merge's grant.
        for i in 0..N {
            self.cut_of[i].next = self.gapless_sources.val().get_bit(i)
                & !self.merge.s_axis[i].tlast.val()
                & ((self.merge.s_axis[i]
                    .tuser
                    .val()
                    .get_bits::<8>(self.dst_at.val().index())
                    & !self.queues.roomy.val())
                    == bits::<8>(0));
            self.merge.s_flag[i].next = self.cut_of[i].val();
        }
        self.queues.source_decides_cut.next = true;
        self.queues.s_axis_cut.next = self.merge.m_flag.val();
        // Pass-through and transit frames arrive on consecutive clocks (the router forwards
        // them as the cable delivers): the queues may cut them through. Engine frames wait for their results: frame mode.
        self.queues.gapless.next = self.gapless_sources.val();
        // Egress: the queues' streams to the MACs, the bad bit as the MAC's abort.
        for i in 0..N {
            self.m_axis[i].tdata.next = self.queues.m_axis[i].tdata.val();
            self.m_axis[i].tkeep.next = self.queues.m_axis[i].tkeep.val();
            self.m_axis[i].tlast.next = self.queues.m_axis[i].tlast.val();
            self.m_axis[i].tuser.next =
                (self.queues.m_axis[i].tuser.val() & self.bad_bit.val()) != bits::<16>(0);
            self.m_axis[i].tvalid.next = self.queues.m_axis[i].tvalid.val();
            self.queues.m_axis[i].tready.next = self.m_axis[i].tready.val();
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

/// ZedBoard: 64-bit datapath, host + 3 network ports.
pub type Board64 = Board<64, 8, 4, 89, 72, 73, 11, 12, 8, 6, 3, 1, 2, 8, 14, 130>;
/// NetFPGA SUME: 256-bit datapath, host + 4 network ports.
pub type Board256 = Board<256, 32, 5, 305, 288, 289, 9, 10, 2, 8, 5, 4, 8, 6, 12, 322>;

//! CFE — the collective forwarding engine (paper: "Collective forwarding engine"): the control
//! plane of the board. For every offload frame it decides where the frame belongs, stores its
//! payload, runs the segment's program ([`crate::cfe_program`]) as far as the arrived data
//! allows, and hands the CIPE its instructions and the frame builder a header for every frame
//! the program sends. docs/cfe.md describes the execution model; this is its hardware.
//!
//! Width-independent: the bus width enters only as the bytes per word ([`Cfe::new`]).
//!
//! ## Ports
//!
//! * `frame_*`: the offload frame waiting at the head of [`crate::frame_router`]'s offload port
//!   (header and verdict held while it waits). The engine looks at it only while the splitter
//!   is idle (`m_cmd_tready`), i.e. before the frame's first beat was taken.
//! * `m_cmd_*`: what [`crate::offload_splitter`] does with that frame: `[1:0]` action
//!   ([`SPLIT_DRAIN`], [`SPLIT_STREAM`] `[15:4]` words to the CIPE, [`SPLIT_TRANSIT`] whole frame
//!   to the ports in `[23:16]`).
//! * `m_instr_*`: CIPE instruction words ([`crate::cipe::Instruction`]).
//! * `m_entry_*`: frame-builder header entries ([`crate::frame_builder`]), queued in the same
//!   order as the CIPE instructions that emit, so entries and result streams pair up.
//! * `cfg_*`: configuration writes ([`cfg`] address map), from [`crate::cfe_program::image`].
//!
//! ## One state machine
//!
//! `Idle` → `Lookup` (directory and route RAM read) → `Arrive` (classify: transit, store,
//! allocate a context, duplicate, error) → `Emit` (splitter command, CIPE input instruction,
//! error entry) → `Idle`; or, for a context with news (`dirty`), `Fetch` (program RAM) →
//! `Decide` (operands present? program done?) → `Read` (request header and route RAM) →
//! `Issue` (one CIPE pass and/or one header entry) → `Send` → `Read` or `Fetch`; a finished
//! program goes `Retire` (context freed, its key into the history of completed segments).
//! Arrivals go first; a frame that finds no free context waits at the input (`blocked`) while
//! the programs run, until a context retires.

use collwire_proto::limits;
use collwire_proto::{Collective, ErrorCode, MessageType, addressing};
use rust_hdl::prelude::*;

use crate::header_builder::HeaderBuilder;

/// A 4-bit protocol code (message type, collective) as a constant.
fn code4(code: u8) -> Constant<Bits<4>> {
    Constant::new(bits::<4>(u64::from(code)))
}

/// An 8-bit protocol code (error code) as a constant.
fn code8(code: u8) -> Constant<Bits<8>> {
    Constant::new(bits::<8>(u64::from(code)))
}

/// Contexts (segments in flight); each owns [`crate::cfe_program::REGS`] CIPE buffers.
pub const CONTEXTS: usize = limits::CONTEXTS;
/// Completed segment keys remembered, so late duplicates are dropped and not re-run.
pub const HISTORY: usize = 8;

/// Splitter actions, `m_cmd_tdata[1:0]`.
pub const SPLIT_DRAIN: u32 = 0;
pub const SPLIT_STREAM: u32 = 1;
pub const SPLIT_TRANSIT: u32 = 2;

/// Configuration address map (`cfg_addr`, 32-bit `cfg_data`).
pub mod cfg {
    /// `0x0000..0x1000`: program memory, one micro-op per word.
    pub const PROGRAM: u16 = 0x0000;
    /// `0x1000..0x1200`: directory by [`crate::cfe_program::directory_index`]:
    /// `[11:0]` start, `[27:16]` end, `[31]` installed.
    pub const DIRECTORY: u16 = 0x1000;
    /// Directory entries (`DIRECTORY .. DIRECTORY + DIRECTORY_ENTRIES`).
    pub const DIRECTORY_ENTRIES: usize = 512;
    /// `0x1200..0x1240`: route table, board → output port mask.
    pub const ROUTE: u16 = 0x1200;
    /// Route-table entries, one per board index.
    pub const ROUTE_ENTRIES: usize = collwire_proto::limits::MAX_BOARDS;
    /// This board's index (`[7:0]`): MAC `02:c0:11:00:00:<board>`, IPv4 `<prefix>.<board>`.
    pub const BOARD: u16 = 0x1300;
    /// The first three IPv4 address bytes, wire order (`[7:0]` is the first byte).
    pub const IP_PREFIX: u16 = 0x1301;

    /// Directory word.
    pub fn directory_word(start: u16, end: u16) -> u32 {
        u32::from(start) | u32::from(end) << 16 | 1 << 31
    }
}

/// Where the engine is; the cluster simulator shows these names in its waveforms.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum CfeState {
    Idle,
    Lookup,
    Arrive,
    Emit,
    Fetch,
    Decide,
    Read,
    Issue,
    Send,
    Retire,
}

/// `state_code` values, in [`CfeState`] order.
pub const STATE_NAMES: [&str; 10] = [
    "idle", "lookup", "arrive", "emit", "fetch", "decide", "read", "issue", "send", "retire",
];

#[derive(LogicBlock)]
pub struct Cfe {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the contexts and the history (not of the configuration).
    pub reset: Signal<In, Bit>,
    pub frame_valid: Signal<In, Bit>,
    pub frame_header: Signal<In, Bits<512>>,
    pub frame_payload_len: Signal<In, Bits<16>>,
    pub frame_unsupported: Signal<In, Bit>,
    pub m_cmd_tdata: Signal<Out, Bits<32>>,
    pub m_cmd_tvalid: Signal<Out, Bit>,
    pub m_cmd_tready: Signal<In, Bit>,
    pub m_instr_tdata: Signal<Out, Bits<64>>,
    pub m_instr_tvalid: Signal<Out, Bit>,
    pub m_instr_tready: Signal<In, Bit>,
    pub m_entry_tdata: Signal<Out, Bits<570>>,
    pub m_entry_tvalid: Signal<Out, Bit>,
    pub m_entry_tready: Signal<In, Bit>,
    pub cfg_we: Signal<In, Bit>,
    pub cfg_addr: Signal<In, Bits<16>>,
    pub cfg_data: Signal<In, Bits<32>>,
    /// [`CfeState`] as a number ([`STATE_NAMES`]).
    pub state_code: Signal<Out, Bits<4>>,
    /// Arrivals stored into a context register.
    pub stored: Signal<Out, Bits<32>>,
    /// Duplicates and late arrivals dropped.
    pub duplicates: Signal<Out, Bits<32>>,
    /// Error frames sent to requesting ranks.
    pub errors: Signal<Out, Bits<32>>,
    /// Frames forwarded for other boards.
    pub transits: Signal<Out, Bits<32>>,
    /// Segments completed.
    pub retired: Signal<Out, Bits<32>>,
    /// Abort requests taken (a local rank gave up on a segment; its context, if open, freed).
    pub aborted: Signal<Out, Bits<32>>,
    /// Other offload frames dropped (responses, acks, refused board frames).
    pub dropped: Signal<Out, Bits<32>>,
    // Constants.
    word_round: Constant<Bits<16>>,
    word_shift: Constant<Bits<16>>,
    index: [Constant<Bits<3>>; 8],
    /// Entry bits of an error answer: host port, 4 payload bytes, inline record.
    error_entry: Constant<Bits<570>>,
    /// Entry bits of an answer to a local rank: host port.
    host_entry: Constant<Bits<570>>,
    /// Largest segment payload a context holds (`limits::MAX_SEGMENT_PAYLOAD`).
    max_payload: Constant<Bits<16>>,
    /// Largest ranks per host (`limits::MAX_RANKS_PER_HOST`).
    max_rph: Constant<Bits<8>>,
    /// Message type of the answer to a duplicate request (`MessageType::Ack`).
    msg_ack: Constant<Bits<4>>,
    // Protocol codes and addresses, from `collwire_proto` (one definition for the hardware
    // and the Rust code).
    msg_request: Constant<Bits<4>>,
    msg_partial: Constant<Bits<4>>,
    msg_result: Constant<Bits<4>>,
    msg_response: Constant<Bits<4>>,
    msg_error: Constant<Bits<4>>,
    msg_abort: Constant<Bits<4>>,
    err_unsupported: Constant<Bits<8>>,
    err_bad_topology: Constant<Bits<8>>,
    err_mismatch: Constant<Bits<8>>,
    coll_reduce: Constant<Bits<4>>,
    coll_scan: Constant<Bits<4>>,
    offload_port: Constant<Bits<16>>,
    /// Board MACs are this prefix with the board index as the sixth byte.
    board_mac_prefix: Constant<Bits<48>>,
    /// Error code of the answer to a request for a completed segment (`ErrorCode::Stale`).
    code_stale: Constant<Bits<8>>,
    /// Instruction bit 14: store.
    store_bit: Constant<Bits<64>>,
    // Configuration and memories.
    microcode: RAM<Bits<32>, 12>,
    directory: RAM<Bits<32>, 9>,
    route: RAM<Bits<8>, 6>,
    /// Request header of local rank `l` of context `c` at `2c + l`.
    headers: RAM<Bits<512>, 4>,
    builder: HeaderBuilder,
    my_board: DFF<Bits<8>>,
    ip_prefix: DFF<Bits<32>>,
    state: DFF<CfeState>,
    // Context table.
    c_valid: [DFF<Bit>; 8],
    c_dirty: [DFF<Bit>; 8],
    c_key: [DFF<Bits<48>>; 8],
    c_sig: [DFF<Bits<88>>; 8],
    c_pc: [DFF<Bits<12>>; 8],
    c_end: [DFF<Bits<12>>; 8],
    c_present: [DFF<Bits<8>>; 8],
    c_rph2: [DFF<Bit>; 8],
    c_words: [DFF<Bits<12>>; 8],
    c_bytes: [DFF<Bits<16>>; 8],
    // History of completed keys.
    h_valid: [DFF<Bit>; 8],
    h_key: [DFF<Bits<48>>; 8],
    h_ptr: DFF<Bits<3>>,
    blocked: DFF<Bit>,
    // The arrival being handled.
    arr_hdr: DFF<Bits<512>>,
    arr_len: DFF<Bits<16>>,
    arr_unsup: DFF<Bit>,
    // The context being run.
    cur: DFF<Bits<3>>,
    sub: DFF<Bit>,
    // Output registers and their pending flags.
    cmd: DFF<Bits<32>>,
    cmd_pend: DFF<Bit>,
    ins: DFF<Bits<64>>,
    ins_pend: DFF<Bit>,
    ent: DFF<Bits<570>>,
    ent_pend: DFF<Bit>,
    n_stored: DFF<Bits<32>>,
    n_dups: DFF<Bits<32>>,
    n_aborted: DFF<Bits<32>>,
    n_errors: DFF<Bits<32>>,
    n_transits: DFF<Bits<32>>,
    n_retired: DFF<Bits<32>>,
    n_dropped: DFF<Bits<32>>,
    // Arrival decode (from arr_hdr).
    a_msg: Signal<Local, Bits<4>>,
    a_is_req: Signal<Local, Bit>,
    a_is_board: Signal<Local, Bit>,
    a_is_abort: Signal<Local, Bit>,
    a_transit: Signal<Local, Bit>,
    a_key: Signal<Local, Bits<48>>,
    a_sig: Signal<Local, Bits<88>>,
    a_rph: Signal<Local, Bits<8>>,
    a_size: Signal<Local, Bits<16>>,
    a_rank: Signal<Local, Bits<16>>,
    a_boards_m1: Signal<Local, Bits<16>>,
    a_rank_board: Signal<Local, Bits<16>>,
    a_reg8: Signal<Local, Bits<8>>,
    a_reg: Signal<Local, Bits<3>>,
    a_reg_ok: Signal<Local, Bit>,
    a_words: Signal<Local, Bits<16>>,
    a_dir_addr: Signal<Local, Bits<9>>,
    a_dir_ok: Signal<Local, Bit>,
    a_hit: Signal<Local, Bit>,
    a_hit_idx: Signal<Local, Bits<3>>,
    a_free: Signal<Local, Bit>,
    a_free_idx: Signal<Local, Bits<3>>,
    a_late: Signal<Local, Bit>,
    a_ctx: Signal<Local, Bits<3>>,
    a_sig_match: Signal<Local, Bit>,
    a_present: Signal<Local, Bit>,
    a_store: Signal<Local, Bit>,
    a_alloc: Signal<Local, Bit>,
    a_error: Signal<Local, Bits<8>>,
    /// The error code a request is answered with: `a_error`, or `stale`.
    a_code: Signal<Local, Bits<8>>,
    /// A request's answer is an ack (a duplicate of a stored request).
    a_ack: Signal<Local, Bit>,
    a_slot: Signal<Local, Bits<7>>,
    // The running context.
    k_pc: Signal<Local, Bits<12>>,
    k_end: Signal<Local, Bits<12>>,
    k_present: Signal<Local, Bits<8>>,
    k_rph2: Signal<Local, Bit>,
    k_words: Signal<Local, Bits<12>>,
    k_bytes: Signal<Local, Bits<16>>,
    k_key: Signal<Local, Bits<48>>,
    pick: Signal<Local, Bits<3>>,
    pick_found: Signal<Local, Bit>,
    // The micro-op.
    u: Signal<Local, Bits<32>>,
    u_kind: Signal<Local, Bits<4>>,
    ra: Signal<Local, Bits<3>>,
    rb: Signal<Local, Bits<3>>,
    rd: Signal<Local, Bits<3>>,
    ready: Signal<Local, Bit>,
    last_sub: Signal<Local, Bit>,
    // One step of it.
    s_opcode: Signal<Local, Bits<4>>,
    s_slot_a: Signal<Local, Bits<7>>,
    s_slot_b: Signal<Local, Bits<7>>,
    s_slot_d: Signal<Local, Bits<7>>,
    s_bytes: Signal<Local, Bits<16>>,
    s_store: Signal<Local, Bit>,
    s_emit: Signal<Local, Bit>,
    s_has_instr: Signal<Local, Bit>,
    s_has_entry: Signal<Local, Bit>,
    s_send: Signal<Local, Bit>,
    s_data: Signal<Local, Bit>,
    // The header the builder starts from, and its fields.
    hs: Signal<Local, Bits<512>>,
    hs_rank: Signal<Local, Bits<16>>,
    hs_root: Signal<Local, Bits<16>>,
    hs_elem: Signal<Local, Bits<16>>,
    hs_coll: Signal<Local, Bits<4>>,
    /// The fields of the frame being composed, assigned to the header builder's inputs once
    /// at the end of `update` (a default-then-override of a child's input re-triggers it in
    /// event-driven simulators).
    f_dst_mac: Signal<Local, Bits<48>>,
    f_src_mac: Signal<Local, Bits<48>>,
    f_src_ip: Signal<Local, Bits<32>>,
    f_dst_ip: Signal<Local, Bits<32>>,
    f_src_port: Signal<Local, Bits<16>>,
    f_dst_port: Signal<Local, Bits<16>>,
    f_payload_bytes: Signal<Local, Bits<16>>,
    f_msg_type: Signal<Local, Bits<4>>,
    f_rank: Signal<Local, Bits<16>>,
    f_elem_count: Signal<Local, Bits<16>>,
}

impl Cfe {
    /// An engine for a datapath of `word_bytes` bytes per beat (8 or 32).
    pub fn new(word_bytes: usize) -> Cfe {
        assert!(word_bytes.is_power_of_two());
        Cfe {
            clock: Default::default(),
            reset: Default::default(),
            frame_valid: Default::default(),
            frame_header: Default::default(),
            frame_payload_len: Default::default(),
            frame_unsupported: Default::default(),
            m_cmd_tdata: Default::default(),
            m_cmd_tvalid: Default::default(),
            m_cmd_tready: Default::default(),
            m_instr_tdata: Default::default(),
            m_instr_tvalid: Default::default(),
            m_instr_tready: Default::default(),
            m_entry_tdata: Default::default(),
            m_entry_tvalid: Default::default(),
            m_entry_tready: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_data: Default::default(),
            state_code: Default::default(),
            stored: Default::default(),
            duplicates: Default::default(),
            aborted: Default::default(),
            errors: Default::default(),
            transits: Default::default(),
            retired: Default::default(),
            dropped: Default::default(),
            word_round: Constant::new(bits::<16>(word_bytes as u64 - 1)),
            word_shift: Constant::new(bits::<16>(u64::from(word_bytes.trailing_zeros()))),
            index: std::array::from_fn(|i| Constant::new(bits::<3>(i as u64))),
            error_entry: Constant::new(
                bits::<570>(1) << 512 | bits::<570>(4) << 520 | bits::<570>(1) << 537,
            ),
            host_entry: Constant::new(bits::<570>(1) << 512),
            max_payload: Constant::new(bits::<16>(limits::MAX_SEGMENT_PAYLOAD as u64)),
            max_rph: Constant::new(bits::<8>(u64::from(limits::MAX_RANKS_PER_HOST))),
            msg_ack: code4(MessageType::Ack.code()),
            msg_request: code4(MessageType::Request.code()),
            msg_partial: code4(MessageType::Partial.code()),
            msg_result: code4(MessageType::Result.code()),
            msg_response: code4(MessageType::Response.code()),
            msg_error: code4(MessageType::Error.code()),
            msg_abort: code4(MessageType::Abort.code()),
            err_unsupported: code8(ErrorCode::Unsupported.code()),
            err_bad_topology: code8(ErrorCode::BadTopology.code()),
            err_mismatch: code8(ErrorCode::Mismatch.code()),
            coll_reduce: code4(Collective::Reduce.code()),
            coll_scan: code4(Collective::Scan.code()),
            offload_port: Constant::new(bits::<16>(u64::from(collwire_proto::OFFLOAD_UDP_PORT))),
            board_mac_prefix: Constant::new(bits::<48>(addressing::BOARD_MAC_PREFIX_BITS)),
            code_stale: code8(ErrorCode::Stale.code()),
            store_bit: Constant::new(bits::<64>(1 << 14)),
            microcode: Default::default(),
            directory: Default::default(),
            route: Default::default(),
            headers: Default::default(),
            builder: Default::default(),
            my_board: Default::default(),
            ip_prefix: Default::default(),
            state: Default::default(),
            c_valid: Default::default(),
            c_dirty: Default::default(),
            c_key: Default::default(),
            c_sig: Default::default(),
            c_pc: Default::default(),
            c_end: Default::default(),
            c_present: Default::default(),
            c_rph2: Default::default(),
            c_words: Default::default(),
            c_bytes: Default::default(),
            h_valid: Default::default(),
            h_key: Default::default(),
            h_ptr: Default::default(),
            blocked: Default::default(),
            arr_hdr: Default::default(),
            arr_len: Default::default(),
            arr_unsup: Default::default(),
            cur: Default::default(),
            sub: Default::default(),
            cmd: Default::default(),
            cmd_pend: Default::default(),
            ins: Default::default(),
            ins_pend: Default::default(),
            ent: Default::default(),
            ent_pend: Default::default(),
            n_stored: Default::default(),
            n_dups: Default::default(),
            n_aborted: Default::default(),
            n_errors: Default::default(),
            n_transits: Default::default(),
            n_retired: Default::default(),
            n_dropped: Default::default(),
            a_msg: Default::default(),
            a_is_req: Default::default(),
            a_is_board: Default::default(),
            a_is_abort: Default::default(),
            a_transit: Default::default(),
            a_key: Default::default(),
            a_sig: Default::default(),
            a_rph: Default::default(),
            a_size: Default::default(),
            a_rank: Default::default(),
            a_boards_m1: Default::default(),
            a_rank_board: Default::default(),
            a_reg8: Default::default(),
            a_reg: Default::default(),
            a_reg_ok: Default::default(),
            a_words: Default::default(),
            a_dir_addr: Default::default(),
            a_dir_ok: Default::default(),
            a_hit: Default::default(),
            a_hit_idx: Default::default(),
            a_free: Default::default(),
            a_free_idx: Default::default(),
            a_late: Default::default(),
            a_ctx: Default::default(),
            a_sig_match: Default::default(),
            a_present: Default::default(),
            a_store: Default::default(),
            a_alloc: Default::default(),
            a_error: Default::default(),
            a_code: Default::default(),
            a_ack: Default::default(),
            a_slot: Default::default(),
            k_pc: Default::default(),
            k_end: Default::default(),
            k_present: Default::default(),
            k_rph2: Default::default(),
            k_words: Default::default(),
            k_bytes: Default::default(),
            k_key: Default::default(),
            pick: Default::default(),
            pick_found: Default::default(),
            u: Default::default(),
            u_kind: Default::default(),
            ra: Default::default(),
            rb: Default::default(),
            rd: Default::default(),
            ready: Default::default(),
            last_sub: Default::default(),
            s_opcode: Default::default(),
            s_slot_a: Default::default(),
            s_slot_b: Default::default(),
            s_slot_d: Default::default(),
            s_bytes: Default::default(),
            s_store: Default::default(),
            s_emit: Default::default(),
            s_has_instr: Default::default(),
            s_has_entry: Default::default(),
            s_send: Default::default(),
            s_data: Default::default(),
            hs: Default::default(),
            hs_rank: Default::default(),
            hs_root: Default::default(),
            hs_elem: Default::default(),
            hs_coll: Default::default(),
            f_dst_mac: Default::default(),
            f_src_mac: Default::default(),
            f_src_ip: Default::default(),
            f_dst_ip: Default::default(),
            f_src_port: Default::default(),
            f_dst_port: Default::default(),
            f_payload_bytes: Default::default(),
            f_msg_type: Default::default(),
            f_rank: Default::default(),
            f_elem_count: Default::default(),
        }
    }
}

impl Logic for Cfe {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, my_board, ip_prefix, state, h_ptr, blocked, arr_hdr, arr_len, arr_unsup,
            cur, sub, cmd, cmd_pend, ins, ins_pend, ent, ent_pend, n_stored, n_dups, n_errors,
            n_transits, n_retired, n_dropped, n_aborted
        );
        for c in 0..8 {
            self.c_valid[c].clock.next = self.clock.val();
            self.c_dirty[c].clock.next = self.clock.val();
            self.c_key[c].clock.next = self.clock.val();
            self.c_sig[c].clock.next = self.clock.val();
            self.c_pc[c].clock.next = self.clock.val();
            self.c_end[c].clock.next = self.clock.val();
            self.c_present[c].clock.next = self.clock.val();
            self.c_rph2[c].clock.next = self.clock.val();
            self.c_words[c].clock.next = self.clock.val();
            self.c_bytes[c].clock.next = self.clock.val();
            self.h_valid[c].clock.next = self.clock.val();
            self.h_key[c].clock.next = self.clock.val();
            self.c_valid[c].d.next = self.c_valid[c].q.val();
            self.c_dirty[c].d.next = self.c_dirty[c].q.val();
            self.c_key[c].d.next = self.c_key[c].q.val();
            self.c_sig[c].d.next = self.c_sig[c].q.val();
            self.c_pc[c].d.next = self.c_pc[c].q.val();
            self.c_end[c].d.next = self.c_end[c].q.val();
            self.c_present[c].d.next = self.c_present[c].q.val();
            self.c_rph2[c].d.next = self.c_rph2[c].q.val();
            self.c_words[c].d.next = self.c_words[c].q.val();
            self.c_bytes[c].d.next = self.c_bytes[c].q.val();
            self.h_valid[c].d.next = self.h_valid[c].q.val();
            self.h_key[c].d.next = self.h_key[c].q.val();
        }
        self.microcode.read_clock.next = self.clock.val();
        self.microcode.write_clock.next = self.clock.val();
        self.directory.read_clock.next = self.clock.val();
        self.directory.write_clock.next = self.clock.val();
        self.route.read_clock.next = self.clock.val();
        self.route.write_clock.next = self.clock.val();
        self.headers.read_clock.next = self.clock.val();
        self.headers.write_clock.next = self.clock.val();

        // Configuration writes.
        self.microcode.write_address.next = self.cfg_addr.val().get_bits::<12>(0);
        self.microcode.write_data.next = self.cfg_data.val();
        self.microcode.write_enable.next =
            self.cfg_we.val() & (self.cfg_addr.val().get_bits::<4>(12) == bits::<4>(0));
        self.directory.write_address.next = self.cfg_addr.val().get_bits::<9>(0);
        self.directory.write_data.next = self.cfg_data.val();
        self.directory.write_enable.next =
            self.cfg_we.val() & (self.cfg_addr.val().get_bits::<7>(9) == bits::<7>(0x08));
        self.route.write_address.next = self.cfg_addr.val().get_bits::<6>(0);
        self.route.write_data.next = self.cfg_data.val().get_bits::<8>(0);
        self.route.write_enable.next =
            self.cfg_we.val() & (self.cfg_addr.val().get_bits::<10>(6) == bits::<10>(0x48));
        if self.cfg_we.val() & (self.cfg_addr.val() == bits::<16>(0x1300)) {
            self.my_board.d.next = self.cfg_data.val().get_bits::<8>(0);
        }
        if self.cfg_we.val() & (self.cfg_addr.val() == bits::<16>(0x1301)) {
            self.ip_prefix.d.next = self.cfg_data.val() & bits::<32>(0xFF_FFFF);
        }

        // ---- Arrival decode, from the latched header (frame byte n at bit 8n; the offload
        // header starts at frame byte 42, bit 336).
        self.a_msg.next = self.arr_hdr.q.val().get_bits::<4>(344);
        self.a_is_req.next = self.a_msg.val() == self.msg_request.val();
        self.a_is_board.next = (self.a_msg.val() == self.msg_partial.val())
            | (self.a_msg.val() == self.msg_result.val());
        self.a_is_abort.next = self.a_msg.val() == self.msg_abort.val();
        // Board frames for another board (IPv4 destination's last byte, frame byte 33).
        self.a_transit.next = self.a_is_board.val()
            & (self.arr_hdr.q.val().get_bits::<8>(264) != self.my_board.q.val());
        // Key: communicator, operation id, segment index (raw wire bytes).
        self.a_key.next = (bit_cast::<48, 16>(self.arr_hdr.q.val().get_bits::<16>(384)) << 32)
            | (bit_cast::<48, 16>(self.arr_hdr.q.val().get_bits::<16>(352)) << 16)
            | bit_cast::<48, 16>(self.arr_hdr.q.val().get_bits::<16>(464));
        // Parameters every frame of a segment agrees on: collective, algorithm, datatype, op,
        // comm size, root, ranks per host, segment count, element count.
        self.a_sig.next = bit_cast::<88, 16>(self.arr_hdr.q.val().get_bits::<16>(368))
            | (bit_cast::<88, 16>(self.arr_hdr.q.val().get_bits::<16>(400)) << 16)
            | (bit_cast::<88, 24>(self.arr_hdr.q.val().get_bits::<24>(432)) << 32)
            | (bit_cast::<88, 32>(self.arr_hdr.q.val().get_bits::<32>(480)) << 56);
        self.a_rph.next = self.arr_hdr.q.val().get_bits::<8>(448);
        self.a_size.next = (bit_cast::<16, 8>(self.arr_hdr.q.val().get_bits::<8>(400)) << 8)
            | bit_cast::<16, 8>(self.arr_hdr.q.val().get_bits::<8>(408));
        self.a_rank.next = (bit_cast::<16, 8>(self.arr_hdr.q.val().get_bits::<8>(416)) << 8)
            | bit_cast::<16, 8>(self.arr_hdr.q.val().get_bits::<8>(424));
        self.a_boards_m1.next = self.a_size.val() - bits::<16>(1);
        self.a_rank_board.next = self.a_rank.val();
        self.a_reg8.next = bits::<8>(0);
        if self.a_rph.val() == bits::<8>(2) {
            self.a_boards_m1.next = (self.a_size.val() >> 1) - bits::<16>(1);
            self.a_rank_board.next = self.a_rank.val() >> 1;
            self.a_reg8.next = bit_cast::<8, 1>(self.a_rank.val().get_bits::<1>(0));
        }
        if self.a_is_board.val() {
            self.a_reg8.next = self.a_rank.val().get_bits::<8>(8);
        }
        self.a_reg.next = self.a_reg8.val().get_bits::<3>(0);
        self.a_reg_ok.next = (self.a_rank_board.val() == bit_cast::<16, 8>(self.my_board.q.val()))
            & (self.a_rph.val() <= bits::<8>(2));
        if self.a_is_board.val() {
            self.a_reg_ok.next =
                (self.a_reg8.val() >= bits::<8>(2)) & (self.a_reg8.val() < bits::<8>(8));
        }
        self.a_words.next = (self.arr_len.q.val() + self.word_round.val()) >> self.word_shift.val();
        // Directory: algorithm, kind (scan = collective 3), boards − 1.
        self.a_dir_addr.next = (bit_cast::<9, 2>(self.arr_hdr.q.val().get_bits::<2>(368)) << 7)
            | bit_cast::<9, 6>(self.a_boards_m1.val().get_bits::<6>(0));
        if self.arr_hdr.q.val().get_bits::<4>(372) == self.coll_scan.val() {
            self.a_dir_addr.next = self.a_dir_addr.val() | bits::<9>(64);
        }
        self.directory.read_address.next = self.a_dir_addr.val();
        self.a_dir_ok.next =
            self.directory.read_data.val().get_bit(31) & (self.a_boards_m1.val() < bits::<16>(64));
        // Context search, free context, history.
        self.a_hit.next = false;
        self.a_hit_idx.next = bits::<3>(0);
        self.a_free.next = false;
        self.a_free_idx.next = bits::<3>(0);
        self.a_late.next = false;
        for c in 0..8 {
            if self.c_valid[c].q.val() & (self.c_key[c].q.val() == self.a_key.val()) {
                self.a_hit.next = true;
                self.a_hit_idx.next = self.index[c].val();
            }
            if !self.c_valid[c].q.val() & !self.a_free.val() {
                self.a_free.next = true;
                self.a_free_idx.next = self.index[c].val();
            }
            if self.h_valid[c].q.val() & (self.h_key[c].q.val() == self.a_key.val()) {
                self.a_late.next = true;
            }
        }
        self.a_ctx.next = self.a_free_idx.val();
        if self.a_hit.val() {
            self.a_ctx.next = self.a_hit_idx.val();
        }
        self.a_sig_match.next = false;
        self.a_present.next = false;
        for c in 0..8 {
            if self.a_hit_idx.val() == self.index[c].val() {
                self.a_sig_match.next = self.c_sig[c].q.val() == self.a_sig.val();
                self.a_present.next = ((self.c_present[c].q.val()
                    >> bit_cast::<8, 3>(self.a_reg.val()))
                    & bits::<8>(1))
                    != bits::<8>(0);
            }
        }
        self.a_slot.next =
            (bit_cast::<7, 3>(self.a_ctx.val()) << 3) | bit_cast::<7, 3>(self.a_reg.val());

        // ---- The running context's fields.
        self.k_pc.next = bits::<12>(0);
        self.k_end.next = bits::<12>(0);
        self.k_present.next = bits::<8>(0);
        self.k_rph2.next = false;
        self.k_words.next = bits::<12>(0);
        self.k_bytes.next = bits::<16>(0);
        self.k_key.next = bits::<48>(0);
        for c in 0..8 {
            if self.cur.q.val() == self.index[c].val() {
                self.k_pc.next = self.c_pc[c].q.val();
                self.k_end.next = self.c_end[c].q.val();
                self.k_present.next = self.c_present[c].q.val();
                self.k_rph2.next = self.c_rph2[c].q.val();
                self.k_words.next = self.c_words[c].q.val();
                self.k_bytes.next = self.c_bytes[c].q.val();
                self.k_key.next = self.c_key[c].q.val();
            }
        }
        // The lowest context with news.
        self.pick.next = bits::<3>(0);
        self.pick_found.next = false;
        for c in 0..8 {
            if self.c_valid[c].q.val() & self.c_dirty[c].q.val() & !self.pick_found.val() {
                self.pick.next = self.index[c].val();
                self.pick_found.next = true;
            }
        }
        self.microcode.read_address.next = self.k_pc.val();

        // ---- The micro-op (valid from Decide on) and its registers; operand 15 = H.
        self.u.next = self.microcode.read_data.val();
        self.u_kind.next = self.u.val().get_bits::<4>(0);
        self.ra.next = self.u.val().get_bits::<3>(4);
        if self.u.val().get_bits::<4>(4) == bits::<4>(15) {
            self.ra.next = bit_cast::<3, 1>(self.k_rph2.val().into());
        }
        self.rb.next = self.u.val().get_bits::<3>(8);
        if self.u.val().get_bits::<4>(8) == bits::<4>(15) {
            self.rb.next = bit_cast::<3, 1>(self.k_rph2.val().into());
        }
        self.rd.next = self.u.val().get_bits::<3>(14);
        if self.u.val().get_bits::<4>(14) == bits::<4>(15) {
            self.rd.next = bit_cast::<3, 1>(self.k_rph2.val().into());
        }
        // Operands present? Local registers: 0, and 1 with two ranks per host.
        self.ready.next = self.k_present.val().get_bit(0)
            & (!self.k_rph2.val() | self.k_present.val().get_bit(1));
        if self.u_kind.val() == bits::<4>(1) {
            self.ready.next = (((self.k_present.val() >> bit_cast::<8, 3>(self.ra.val()))
                & bits::<8>(1))
                != bits::<8>(0))
                & (!self.u.val().get_bit(12)
                    | (((self.k_present.val() >> bit_cast::<8, 3>(self.rb.val())) & bits::<8>(1))
                        != bits::<8>(0)));
        }
        if self.u_kind.val() == bits::<4>(2) {
            self.ready.next = ((self.k_present.val() >> bit_cast::<8, 3>(self.ra.val()))
                & bits::<8>(1))
                != bits::<8>(0);
        }
        if (self.u_kind.val() == bits::<4>(3)) & self.u.val().get_bit(12) {
            self.ready.next = self.ready.val()
                & (((self.k_present.val() >> bit_cast::<8, 3>(self.ra.val())) & bits::<8>(1))
                    != bits::<8>(0));
        }
        self.last_sub.next = true;
        if (self.u_kind.val() >= bits::<4>(2)) & self.k_rph2.val() {
            self.last_sub.next = self.sub.q.val();
        }

        // ---- The header the builder starts from: the arrival (errors) or a stored request.
        self.hs.next = self.headers.read_data.val();
        if self.state.q.val() == CfeState::Arrive {
            self.hs.next = self.arr_hdr.q.val();
        }
        self.hs_rank.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(416)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(424));
        self.hs_root.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(432)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(440));
        self.hs_elem.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(496)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(504));
        self.hs_coll.next = self.hs.val().get_bits::<4>(372);
        // Default: an answer to a local rank (addresses and ports swapped).
        self.f_dst_mac.next = self.hs.val().get_bits::<48>(48);
        self.f_src_mac.next = self.hs.val().get_bits::<48>(0);
        self.f_src_ip.next = self.hs.val().get_bits::<32>(240);
        self.f_dst_ip.next = self.hs.val().get_bits::<32>(208);
        self.f_src_port.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(288)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(296));
        self.f_dst_port.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(272)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(280));
        self.f_payload_bytes.next = bits::<16>(0);
        self.f_msg_type.next = self.msg_response.val();
        self.builder.op_id.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(352)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(360));
        self.builder.collective.next = self.hs_coll.val();
        self.builder.algorithm.next = self.hs.val().get_bits::<4>(368);
        self.builder.datatype.next = self.hs.val().get_bits::<4>(380);
        self.builder.reduce_op.next = self.hs.val().get_bits::<4>(376);
        self.builder.comm_id.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(384)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(392));
        self.builder.comm_size.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(400)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(408));
        self.f_rank.next = self.hs_rank.val();
        self.builder.root.next = self.hs_root.val();
        self.builder.ranks_per_host.next = self.hs.val().get_bits::<8>(448);
        self.builder.attempt.next = self.hs.val().get_bits::<8>(456);
        self.builder.seg_index.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(464)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(472));
        self.builder.seg_count.next = (bit_cast::<16, 8>(self.hs.val().get_bits::<8>(480)) << 8)
            | bit_cast::<16, 8>(self.hs.val().get_bits::<8>(488));
        self.f_elem_count.next = bits::<16>(0);

        // ---- One step of the micro-op (valid in Issue): the CIPE pass and the frame.
        self.s_send.next = (self.u_kind.val() == bits::<4>(1)) & self.u.val().get_bit(18);
        self.s_data.next = self.k_words.val() != bits::<12>(0);
        // A reduce answers with data only to the root.
        if (self.u_kind.val() == bits::<4>(2))
            & (self.hs_coll.val() == self.coll_reduce.val())
            & (self.hs_rank.val() != self.hs_root.val())
        {
            self.s_data.next = false;
        }
        self.s_opcode.next = bits::<4>(2);
        self.s_slot_a.next =
            (bit_cast::<7, 3>(self.cur.q.val()) << 3) | bit_cast::<7, 3>(self.ra.val());
        self.s_slot_b.next =
            (bit_cast::<7, 3>(self.cur.q.val()) << 3) | bit_cast::<7, 3>(self.rb.val());
        self.s_slot_d.next =
            (bit_cast::<7, 3>(self.cur.q.val()) << 3) | bit_cast::<7, 3>(self.rd.val());
        self.s_store.next = false;
        self.s_emit.next = true;
        self.s_has_entry.next = true;
        self.s_has_instr.next = self.s_data.val();
        if self.u_kind.val() == bits::<4>(0) {
            // LocalPrefix: r1 = r0 · r1.
            self.s_opcode.next = bits::<4>(3);
            self.s_slot_a.next = bit_cast::<7, 3>(self.cur.q.val()) << 3;
            self.s_slot_b.next = (bit_cast::<7, 3>(self.cur.q.val()) << 3) | bits::<7>(1);
            self.s_slot_d.next = self.s_slot_b.val();
            self.s_store.next = true;
            self.s_emit.next = false;
            self.s_has_entry.next = false;
            self.s_has_instr.next = self.s_data.val() & self.k_rph2.val();
        }
        if self.u_kind.val() == bits::<4>(1) {
            if self.u.val().get_bit(12) {
                self.s_opcode.next = bits::<4>(3);
            }
            self.s_store.next = self.u.val().get_bit(13);
            self.s_emit.next = self.s_send.val();
            self.s_has_entry.next = self.s_send.val();
            self.s_has_instr.next = self.s_data.val() & (self.s_store.val() | self.s_send.val());
        }
        if self.u_kind.val() == bits::<4>(3) {
            // RespondPrefix: rank l gets x · r[l], or r[l].
            self.s_slot_a.next = (bit_cast::<7, 3>(self.cur.q.val()) << 3)
                | bit_cast::<7, 1>(self.sub.q.val().into());
            if self.u.val().get_bit(12) {
                self.s_opcode.next = bits::<4>(3);
                self.s_slot_a.next =
                    (bit_cast::<7, 3>(self.cur.q.val()) << 3) | bit_cast::<7, 3>(self.ra.val());
                self.s_slot_b.next = (bit_cast::<7, 3>(self.cur.q.val()) << 3)
                    | bit_cast::<7, 1>(self.sub.q.val().into());
            }
        }

        self.s_bytes.next = bits::<16>(0);
        if self.s_data.val() {
            self.s_bytes.next = self.k_bytes.val();
        }

        // ---- Outputs.
        self.m_cmd_tdata.next = self.cmd.q.val();
        self.m_cmd_tvalid.next = self.cmd_pend.q.val();
        self.m_instr_tdata.next = self.ins.q.val();
        self.m_instr_tvalid.next = self.ins_pend.q.val();
        self.m_entry_tdata.next = self.ent.q.val();
        self.m_entry_tvalid.next = self.ent_pend.q.val();
        if self.m_cmd_tready.val() {
            self.cmd_pend.d.next = false;
        }
        if self.m_instr_tready.val() {
            self.ins_pend.d.next = false;
        }
        if self.m_entry_tready.val() {
            self.ent_pend.d.next = false;
        }
        self.headers.write_address.next = (bit_cast::<4, 3>(self.a_ctx.val()) << 1)
            | bit_cast::<4, 3>(self.a_reg.val() & bits::<3>(1));
        self.headers.write_data.next = self.arr_hdr.q.val();
        self.headers.write_enable.next = false;
        self.headers.read_address.next = bit_cast::<4, 3>(self.cur.q.val()) << 1;
        if self.u_kind.val() >= bits::<4>(2) {
            self.headers.read_address.next = (bit_cast::<4, 3>(self.cur.q.val()) << 1)
                | bit_cast::<4, 1>(self.sub.q.val().into());
        }
        self.route.read_address.next = self.arr_hdr.q.val().get_bits::<6>(264);
        if self.state.q.val() == CfeState::Read {
            self.route.read_address.next = self.u.val().get_bits::<6>(24);
        }
        self.a_store.next = false;
        self.a_alloc.next = false;
        self.a_error.next = bits::<8>(0);
        self.a_code.next = bits::<8>(0);
        self.a_ack.next = false;

        match self.state.q.val() {
            CfeState::Idle => {
                if self.frame_valid.val() & self.m_cmd_tready.val() & !self.blocked.q.val() {
                    self.arr_hdr.d.next = self.frame_header.val();
                    self.arr_len.d.next = self.frame_payload_len.val();
                    self.arr_unsup.d.next = self.frame_unsupported.val();
                    self.state.d.next = CfeState::Lookup;
                } else if self.pick_found.val() {
                    self.cur.d.next = self.pick.val();
                    self.state.d.next = CfeState::Fetch;
                }
            }
            CfeState::Lookup => {
                self.state.d.next = CfeState::Arrive;
            }
            CfeState::Arrive => {
                // Default: drain the frame.
                self.cmd.d.next = bits::<32>(0);
                self.cmd_pend.d.next = true;
                self.state.d.next = CfeState::Emit;
                if self.arr_unsup.q.val() {
                    self.a_error.next = self.err_unsupported.val();
                } else if self.a_is_abort.val() & self.a_reg_ok.val() {
                    // A local rank gave up on this segment: free its context if open and file
                    // the key with the completed ones, so the segment's late frames (and a
                    // late request of the same rank) are dropped instead of opening a context
                    // that would never complete.
                    for c in 0..8 {
                        if self.a_hit.val() & (self.a_hit_idx.val() == self.index[c].val()) {
                            self.c_valid[c].d.next = false;
                            self.c_dirty[c].d.next = false;
                        }
                        if !self.a_late.val() & (self.h_ptr.q.val() == self.index[c].val()) {
                            self.h_valid[c].d.next = true;
                            self.h_key[c].d.next = self.a_key.val();
                        }
                    }
                    if !self.a_late.val() {
                        self.h_ptr.d.next = self.h_ptr.q.val() + bits::<3>(1);
                    }
                    self.n_aborted.d.next = self.n_aborted.q.val() + bits::<32>(1);
                } else if !(self.a_is_req.val() | self.a_is_board.val()) {
                    self.n_dropped.d.next = self.n_dropped.q.val() + bits::<32>(1);
                } else if self.a_transit.val() {
                    self.cmd.d.next =
                        bits::<32>(2) | (bit_cast::<32, 8>(self.route.read_data.val()) << 16);
                    self.n_transits.d.next = self.n_transits.q.val() + bits::<32>(1);
                } else if self.a_late.val() {
                    // A frame of a completed or aborted segment. A request (a retransmission
                    // whose answer was lost, or a rank arriving after its peers aborted) is
                    // told so: the result cannot be sent again.
                    self.n_dups.d.next = self.n_dups.q.val() + bits::<32>(1);
                    if self.a_is_req.val() {
                        self.a_code.next = self.code_stale.val();
                    }
                } else if (self.a_rph.val() == bits::<8>(0))
                    | (self.a_rph.val() > self.max_rph.val())
                    | (self.arr_len.q.val() > self.max_payload.val())
                {
                    self.a_error.next = self.err_unsupported.val();
                } else if !self.a_reg_ok.val() {
                    self.a_error.next = self.err_bad_topology.val();
                } else if self.a_hit.val() {
                    if !self.a_sig_match.val() {
                        self.a_error.next = self.err_mismatch.val();
                    } else if self.a_present.val() {
                        // A duplicate (a retransmission): the board has this contribution
                        // and waits for the others; a request is acknowledged, so its rank
                        // knows the board is alive.
                        self.n_dups.d.next = self.n_dups.q.val() + bits::<32>(1);
                        self.a_ack.next = self.a_is_req.val();
                    } else {
                        self.a_store.next = true;
                    }
                } else if !self.a_dir_ok.val() {
                    self.a_error.next = self.err_bad_topology.val();
                } else if !self.a_free.val() {
                    // No context free: the frame waits at the input, programs run on.
                    self.cmd_pend.d.next = false;
                    self.blocked.d.next = true;
                    self.state.d.next = CfeState::Idle;
                } else {
                    self.a_store.next = true;
                    self.a_alloc.next = true;
                }
                if self.a_error.val() != bits::<8>(0) {
                    self.a_code.next = self.a_error.val();
                    if self.a_is_req.val() {
                        self.n_errors.d.next = self.n_errors.q.val() + bits::<32>(1);
                    } else {
                        self.n_dropped.d.next = self.n_dropped.q.val() + bits::<32>(1);
                    }
                }
                if (self.a_code.val() != bits::<8>(0)) & self.a_is_req.val() {
                    // Error answer: the 4-byte record is code (u16 BE) + detail 0.
                    self.f_msg_type.next = self.msg_error.val();
                    self.f_payload_bytes.next = bits::<16>(4);
                    self.ent.d.next = bit_cast::<570, 512>(self.builder.header.val())
                        | self.error_entry.val()
                        | (bit_cast::<570, 8>(self.a_code.val()) << 546);
                    self.ent_pend.d.next = true;
                }
                if self.a_ack.val() {
                    // Ack: the request's header, addresses swapped, no elements.
                    self.f_msg_type.next = self.msg_ack.val();
                    self.ent.d.next =
                        bit_cast::<570, 512>(self.builder.header.val()) | self.host_entry.val();
                    self.ent_pend.d.next = true;
                }
                if self.a_store.val() {
                    self.n_stored.d.next = self.n_stored.q.val() + bits::<32>(1);
                    self.headers.write_enable.next = self.a_is_req.val();
                    if self.a_words.val() != bits::<16>(0) {
                        self.cmd.d.next = bits::<32>(1)
                            | (bit_cast::<32, 12>(self.a_words.val().get_bits::<12>(0)) << 4);
                        // CIPE input: store the payload into its register's buffer.
                        self.ins.d.next =
                            (bit_cast::<64, 4>(self.arr_hdr.q.val().get_bits::<4>(376)) << 48)
                                | (bit_cast::<64, 4>(self.arr_hdr.q.val().get_bits::<4>(380))
                                    << 44)
                                | (bit_cast::<64, 7>(self.a_slot.val()) << 32)
                                | self.store_bit.val()
                                | bit_cast::<64, 12>(self.a_words.val().get_bits::<12>(0));
                        self.ins_pend.d.next = true;
                    }
                    for c in 0..8 {
                        if self.a_ctx.val() == self.index[c].val() {
                            self.c_dirty[c].d.next = true;
                            self.c_present[c].d.next = self.c_present[c].q.val()
                                | (bits::<8>(1) << bit_cast::<8, 3>(self.a_reg.val()));
                            if self.a_alloc.val() {
                                self.c_valid[c].d.next = true;
                                self.c_key[c].d.next = self.a_key.val();
                                self.c_sig[c].d.next = self.a_sig.val();
                                self.c_pc[c].d.next =
                                    self.directory.read_data.val().get_bits::<12>(0);
                                self.c_end[c].d.next =
                                    self.directory.read_data.val().get_bits::<12>(16);
                                self.c_present[c].d.next =
                                    bits::<8>(1) << bit_cast::<8, 3>(self.a_reg.val());
                                self.c_rph2[c].d.next = self.a_rph.val() == bits::<8>(2);
                                self.c_words[c].d.next = self.a_words.val().get_bits::<12>(0);
                                self.c_bytes[c].d.next = self.arr_len.q.val();
                            }
                        }
                    }
                }
            }
            CfeState::Emit => {
                if !(self.cmd_pend.q.val() | self.ins_pend.q.val() | self.ent_pend.q.val()) {
                    self.state.d.next = CfeState::Idle;
                }
            }
            CfeState::Fetch => {
                self.state.d.next = CfeState::Decide;
            }
            CfeState::Decide => {
                self.sub.d.next = false;
                if self.k_pc.val() == self.k_end.val() {
                    self.state.d.next = CfeState::Retire;
                } else if self.ready.val() {
                    self.state.d.next = CfeState::Read;
                } else {
                    for c in 0..8 {
                        if self.cur.q.val() == self.index[c].val() {
                            self.c_dirty[c].d.next = false;
                        }
                    }
                    self.state.d.next = CfeState::Idle;
                }
            }
            CfeState::Read => {
                self.state.d.next = CfeState::Issue;
            }
            CfeState::Issue => {
                // The frame: a partial/result to another board, or an answer to local rank l.
                if self.s_send.val() {
                    self.f_dst_mac.next = self.board_mac_prefix.val()
                        | (bit_cast::<48, 8>(self.u.val().get_bits::<8>(24)) << 40);
                    self.f_src_mac.next = self.board_mac_prefix.val()
                        | (bit_cast::<48, 8>(self.my_board.q.val()) << 40);
                    self.f_src_ip.next =
                        self.ip_prefix.q.val() | (bit_cast::<32, 8>(self.my_board.q.val()) << 24);
                    self.f_dst_ip.next = self.ip_prefix.q.val()
                        | (bit_cast::<32, 8>(self.u.val().get_bits::<8>(24)) << 24);
                    self.f_src_port.next = self.offload_port.val();
                    self.f_dst_port.next = self.offload_port.val();
                    self.f_msg_type.next = self.msg_partial.val();
                    if self.u.val().get_bit(19) {
                        self.f_msg_type.next = self.msg_result.val();
                    }
                    self.f_rank.next = (bit_cast::<16, 4>(self.u.val().get_bits::<4>(20)) << 8)
                        | bit_cast::<16, 8>(self.my_board.q.val());
                    self.f_payload_bytes.next = self.k_bytes.val();
                    self.f_elem_count.next = self.hs_elem.val();
                    self.ent.d.next = bit_cast::<570, 512>(self.builder.header.val())
                        | (bit_cast::<570, 8>(self.route.read_data.val()) << 512)
                        | (bit_cast::<570, 16>(self.k_bytes.val()) << 520)
                        | (bit_cast::<570, 1>(self.s_data.val().into()) << 536);
                } else {
                    self.f_payload_bytes.next = self.s_bytes.val();
                    if self.s_data.val() {
                        self.f_elem_count.next = self.hs_elem.val();
                    }
                    self.ent.d.next = bit_cast::<570, 512>(self.builder.header.val())
                        | self.host_entry.val()
                        | (bit_cast::<570, 16>(self.s_bytes.val()) << 520)
                        | (bit_cast::<570, 1>(self.s_data.val().into()) << 536);
                }
                self.ent_pend.d.next = self.s_has_entry.val();
                self.ins.d.next = (bit_cast::<64, 4>(self.hs.val().get_bits::<4>(376)) << 48)
                    | (bit_cast::<64, 4>(self.hs.val().get_bits::<4>(380)) << 44)
                    | (bit_cast::<64, 4>(self.s_opcode.val()) << 40)
                    | (bit_cast::<64, 7>(self.s_slot_d.val()) << 32)
                    | (bit_cast::<64, 7>(self.s_slot_b.val()) << 24)
                    | (bit_cast::<64, 7>(self.s_slot_a.val()) << 16)
                    | (bit_cast::<64, 1>(self.s_store.val().into()) << 14)
                    | (bit_cast::<64, 1>(self.s_emit.val().into()) << 13)
                    | bit_cast::<64, 12>(self.k_words.val());
                self.ins_pend.d.next = self.s_has_instr.val();
                // A stored result makes its register present.
                if (self.u_kind.val() == bits::<4>(1)) & self.u.val().get_bit(13) {
                    for c in 0..8 {
                        if self.cur.q.val() == self.index[c].val() {
                            self.c_present[c].d.next = self.c_present[c].q.val()
                                | (bits::<8>(1) << bit_cast::<8, 3>(self.rd.val()));
                        }
                    }
                }
                self.state.d.next = CfeState::Send;
            }
            CfeState::Send => {
                if !(self.ins_pend.q.val() | self.ent_pend.q.val()) {
                    if self.last_sub.val() {
                        for c in 0..8 {
                            if self.cur.q.val() == self.index[c].val() {
                                self.c_pc[c].d.next = self.c_pc[c].q.val() + bits::<12>(1);
                            }
                        }
                        self.state.d.next = CfeState::Fetch;
                    } else {
                        self.sub.d.next = true;
                        self.state.d.next = CfeState::Read;
                    }
                }
            }
            CfeState::Retire => {
                for c in 0..8 {
                    if self.cur.q.val() == self.index[c].val() {
                        self.c_valid[c].d.next = false;
                        self.c_dirty[c].d.next = false;
                    }
                    if self.h_ptr.q.val() == self.index[c].val() {
                        self.h_valid[c].d.next = true;
                        self.h_key[c].d.next = self.k_key.val();
                    }
                }
                self.h_ptr.d.next = self.h_ptr.q.val() + bits::<3>(1);
                self.blocked.d.next = false;
                self.n_retired.d.next = self.n_retired.q.val() + bits::<32>(1);
                self.state.d.next = CfeState::Idle;
            }
            _ => {
                self.state.d.next = CfeState::Idle;
            }
        }
        match self.state.q.val() {
            CfeState::Idle => {
                self.state_code.next = bits::<4>(0);
            }
            CfeState::Lookup => {
                self.state_code.next = bits::<4>(1);
            }
            CfeState::Arrive => {
                self.state_code.next = bits::<4>(2);
            }
            CfeState::Emit => {
                self.state_code.next = bits::<4>(3);
            }
            CfeState::Fetch => {
                self.state_code.next = bits::<4>(4);
            }
            CfeState::Decide => {
                self.state_code.next = bits::<4>(5);
            }
            CfeState::Read => {
                self.state_code.next = bits::<4>(6);
            }
            CfeState::Issue => {
                self.state_code.next = bits::<4>(7);
            }
            CfeState::Send => {
                self.state_code.next = bits::<4>(8);
            }
            CfeState::Retire => {
                self.state_code.next = bits::<4>(9);
            }
            _ => {
                self.state_code.next = bits::<4>(0);
            }
        }
        // Reset: the engine and every context and history entry as at power-on, the counters
        // 0. The configuration (board, prefix, routes, directory, microcode) is kept: the
        // configuration port rewrites all of it.
        if self.reset.val() {
            self.state.d.next = CfeState::Idle;
            self.blocked.d.next = false;
            self.cmd_pend.d.next = false;
            self.ins_pend.d.next = false;
            self.ent_pend.d.next = false;
            self.h_ptr.d.next = bits::<3>(0);
            self.cur.d.next = bits::<3>(0);
            self.sub.d.next = false;
            self.n_stored.d.next = bits::<32>(0);
            self.n_dups.d.next = bits::<32>(0);
            self.n_aborted.d.next = bits::<32>(0);
            self.n_errors.d.next = bits::<32>(0);
            self.n_transits.d.next = bits::<32>(0);
            self.n_retired.d.next = bits::<32>(0);
            self.n_dropped.d.next = bits::<32>(0);
            for c in 0..8 {
                self.c_valid[c].d.next = false;
                self.c_dirty[c].d.next = false;
                self.h_valid[c].d.next = false;
            }
        }
        self.stored.next = self.n_stored.q.val();
        self.duplicates.next = self.n_dups.q.val();
        self.aborted.next = self.n_aborted.q.val();
        self.errors.next = self.n_errors.q.val();
        self.transits.next = self.n_transits.q.val();
        self.retired.next = self.n_retired.q.val();
        self.dropped.next = self.n_dropped.q.val();
        self.builder.dst_mac.next = self.f_dst_mac.val();
        self.builder.src_mac.next = self.f_src_mac.val();
        self.builder.src_ip.next = self.f_src_ip.val();
        self.builder.dst_ip.next = self.f_dst_ip.val();
        self.builder.src_port.next = self.f_src_port.val();
        self.builder.dst_port.next = self.f_dst_port.val();
        self.builder.payload_bytes.next = self.f_payload_bytes.val();
        self.builder.msg_type.next = self.f_msg_type.val();
        self.builder.rank.next = self.f_rank.val();
        self.builder.elem_count.next = self.f_elem_count.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emits_verilog_that_yosys_accepts() {
        let v = crate::emit::verilog(Cfe::new(8), "collwire_cfe64");
        assert!(v.contains("module collwire_cfe64("), "{}", &v[..200]);
    }
}

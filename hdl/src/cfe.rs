//! CFE — the collective forwarding engine (paper: "Collective forwarding engine"): the control
//! plane of the board. For every offload frame it decides where the frame belongs, stores its
//! payload, runs the segment's program (compiled by the control plane, `collwire_control::program`) as far as the arrived data
//! allows, and hands the CIPE its instructions and the frame builder a header for every frame
//! the program sends. docs/cfe.md describes the execution model; this is its hardware.
//!
//! Width-independent: the bus width enters only as the bytes per word ([`Cfe::new`]).
//!
//! ## Blocks
//!
//! * [`crate::cfe_config`]: configuration registers and memories (program, directory, routes).
//! * [`crate::arrival_verdict`]: what to do with an arrival, from its
//!   [`FrameFields`] (decoded once, by the router's classifier).
//! * [`crate::context_table`]: the segments in flight and the history of completed ones.
//! * [`crate::uop_decode`]: one step of the running context's micro-op.
//! * [`crate::entry_composer`]: the frame-builder entry of every frame the engine sends (its
//!   header from [`crate::header_builder`]).
//! * This file: the state machine that sequences them, the splitter commands, CIPE
//!   instructions and entries it queues, and the counters.
//!
//! ## Ports
//!
//! * `frame_*`: the offload frame waiting at the head of [`crate::frame_router`]'s offload port
//!   (its [`FrameFields`] and verdict held while it waits). The engine looks at it only while the splitter
//!   waits for its command (`m_cmd_tready`): at most its header beats were taken.
//! * `m_cmd_*`: what [`crate::offload_splitter`] does with that frame ([`SplitCommand`]).
//! * `m_instr_*`: CIPE instruction words ([`InstrWord`]).
//! * `m_entry_*`: frame-builder header entries ([`EntryWord`]), queued in the same order as the
//!   CIPE instructions that emit, so entries and result streams pair up.
//! * `cfg_*`: configuration writes ([`cfg`] address map), from the control plane's image (`collwire_control::image`).
//!
//! ## One state machine
//!
//! `Idle` → `Lookup` (the directory entry registered, read at the frame's `frame_dir` on the
//! `Idle` clock; context-table lookup, the arrival's fields decoded into registered flags) →
//! `Judge` (the
//! verdict: store, allocate a context, duplicate, error; registered; the segment's next
//! micro-op read from the program RAM) → `Arrive` (act on it; a stored arrival goes on to
//! `Decide`) → `Emit` (splitter command, CIPE input instruction) → `Tail` → (`Emit`: an error
//! or an ack) → `Idle`; or, for a context with news (`dirty`), `Fetch` (program RAM) → `Load` (its word registered) →
//! `Decide` (operands present? program done?) → `Read` (request fields and route RAM) →
//! `Issue` (one CIPE pass and/or one header entry) → `Send` → `Read` or `Fetch`; a finished
//! program goes `Retire` (context *done*: its result retained, its key into the history of
//! completed segments). A retransmitted request for a done context (verdict `resend`) waits
//! for its tail in `Tail`, which checks it came from the endpoint of the stored request of its
//! rank (`ep_match`); then `Fetch` … `Send` run the program's last micro-op (the `Respond` that
//! answered the rank) for that rank alone (`resending`), and the engine goes back to `Idle`
//! with the context unchanged: the lost answer is sent again (docs/recovery.md).
//! **The NACK between boards** (docs/recovery.md): after acking a local rank's retransmission
//! the engine looks at the segment's next micro-op (`Fetch` … `Decide`, `probing`); if it waits
//! for a register a board sends (the program's input map, read in `Probe` → `Map`) it sends that
//! board a `nack` (`Read` → `Issue` → `Send`). A nack for a context here (verdict `nack`) makes
//! `Scan` read the program backwards from the context's counter for the pass that sent the
//! frame, which runs once more as a resend (`nack_resend`: a copy of the register that keeps the
//! value sent); a frame not sent yet, or a segment not started here (verdict `pend`), is
//! answered `pending` (`ans_board`, from `Emit`). A context whose nacks go unanswered
//! `cfg::NACK_LIMIT` times is silent ([`crate::context_table`]).
//!
//! **The tail.** The router hands an offload frame over as it arrives, once its header is
//! checked (cut-through); only its last beat says whether the frame was good (the MAC's bad
//! mark, a giant cut off, a frame shorter than its IPv4 length: the router marks that beat
//! bad). So the engine acts on an arrival before its tail is known, and `Tail` waits for it:
//! a good tail commits (the `stored` count; a pass that took the arrival makes its register
//! present and the program goes on; an abort cancels its segment; errors, acks and counts of
//! refused frames), a bad one undoes (`unstore`: the arrival's register absent again, and a
//! context it opened freed without filing its key, so a good retransmission is taken). Until
//! then the engine runs nothing else, so nothing reads what the arrival brought. A frame the
//! engine sent from a bad arrival leaves with its last beat marked bad (the splitter marks the
//! arrival's last payload word, the CIPE carries the mark to its result, the frame builder to
//! the frame), and the compiler never lets an arrival be combined into a pass that overwrites
//! a stored operand (`Program::fusible`), so a bad arrival destroys nothing.
//! In `Idle`, with no arrival to take and no context with news, a context that made no progress for
//! [`cfg::RECLAIM`] time-base ticks is reclaimed (freed, its key into the history, counted
//! `reclaimed`): a job killed mid-collective leaks no context.
//! Arrivals go first; a frame that finds no free context waits at the input (`blocked`) while
//! the programs run, until a context retires.

use rust_hdl::prelude::*;

use crate::arrival_verdict::{ArrivalReg, ArrivalSig, ArrivalVerdict, LateRow, Verdict};
pub use crate::cfe_config::cfg;
use crate::cfe_config::{CfeConfig, DirectoryWord};
use crate::cipe::{InstrAhead, InstrWord, Opcode};
use crate::context_table::ContextTable;
pub use crate::context_table::{CONTEXTS, HISTORY};
use crate::entry_composer::EntryComposer;
pub use crate::frame_builder::EntryWord;
use crate::header_fields::FrameFields;
pub use crate::offload_splitter::{SPLIT_DRAIN, SPLIT_STREAM, SplitCommand};
use crate::statistics::StatEvents;
use crate::time_base::TimeBase;
use crate::uop_decode::{UopDecode, UopWord};

/// Where the engine is; the cluster simulator shows these names in its waveforms.
#[derive(Copy, Clone, PartialEq, Eq, Debug, LogicState)]
pub enum CfeState {
    Idle,
    Lookup,
    Judge,
    Arrive,
    Emit,
    Fetch,
    Load,
    Decide,
    Read,
    Issue,
    Send,
    Retire,
    Tail,
    Scan,
    Probe,
    Map,
}

/// `state_code` values, in [`CfeState`] order.
pub const STATE_NAMES: [&str; 16] = [
    "idle", "lookup", "judge", "arrive", "emit", "fetch", "load", "decide", "read", "issue",
    "send", "retire", "tail", "scan", "probe", "map",
];

/// A stored request's endpoint, as `ep_match` compares it.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct Endpoint {
    pub mac: Bits<48>,
    pub ip: Bits<32>,
    pub port: Bits<16>,
}

#[derive(LogicBlock)]
pub struct Cfe {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset of the contexts and the history (not of the configuration).
    pub reset: Signal<In, Bit>,
    pub frame_valid: Signal<In, Bit>,
    /// The arrival's decoded fields (the router's `offload_fields`).
    pub frame_fields: Signal<In, FrameFields>,
    pub frame_payload_len: Signal<In, Bits<16>>,
    pub frame_unsupported: Signal<In, Bit>,
    /// Its program directory index (the router's `offload_dir`, from a flip-flop).
    pub frame_dir: Signal<In, Bits<9>>,
    /// The splitter took the last beat of the frame it was commanded to handle (a pulse), and
    /// whether that beat was marked bad (the router's verdict on the frame's tail: the MAC's
    /// bad mark, a giant cut off, or a frame shorter than its IPv4 length).
    pub frame_tail_valid: Signal<In, Bit>,
    pub frame_tail_bad: Signal<In, Bit>,
    pub m_cmd_tdata: Signal<Out, Bits<32>>,
    pub m_cmd_tvalid: Signal<Out, Bit>,
    pub m_cmd_tready: Signal<In, Bit>,
    pub m_instr_tdata: Signal<Out, Bits<64>>,
    /// With `m_instr_tdata`: its [`InstrAhead`], for the pass that takes the arrival (`ins_f`,
    /// whose count is the arrival's words), `valid` low for every other instruction.
    pub m_instr_tuser: Signal<Out, Bits<16>>,
    pub m_instr_tvalid: Signal<Out, Bit>,
    pub m_instr_tready: Signal<In, Bit>,
    pub m_entry_tdata: Signal<Out, Bits<570>>,
    pub m_entry_tvalid: Signal<Out, Bit>,
    pub m_entry_tready: Signal<In, Bit>,
    pub cfg_we: Signal<In, Bit>,
    pub cfg_addr: Signal<In, Bits<16>>,
    pub cfg_data: Signal<In, Bits<32>>,
    /// The time-base pin ([`crate::time_base`]): open contexts age on its ticks.
    pub age_tick: Signal<In, Bit>,
    /// [`CfeState`] as a number ([`STATE_NAMES`]).
    pub state_code: Signal<Out, Bits<4>>,
    /// This clock's countable events ([`crate::statistics`]): stored, duplicates, errors,
    /// retired, aborted, reclaimed, engine drops.
    pub events: Signal<Out, StatEvents>,
    // Constants.
    no_events: Constant<StatEvents>,
    split_drain: Constant<Bits<2>>,
    split_stream: Constant<Bits<2>>,
    op_input: Constant<Bits<4>>,
    instr_none: Constant<InstrWord>,
    no_verdict: Constant<Verdict>,
    /// Drain, no words.
    no_cmd: Constant<SplitCommand>,
    // Blocks.
    conf: CfeConfig,
    contexts: ContextTable,
    time_base: TimeBase,
    /// The verdict on the latched arrival.
    arrival: ArrivalVerdict,
    /// One step of the running context's micro-op (valid from `Decide` on), decoded from the
    /// program RAM's output registered in `Load` (`uop_r`; the program counter does not move
    /// before `Send`): the decisions and the step's instruction, entry and register decode
    /// start at a flip-flop, not at the far block RAM (the board's worst paths at 96.6 and
    /// 106.6 MHz).
    step: UopDecode,
    uop_r: DFF<Bits<32>>,
    /// The entry of the frame being sent, built from `answer_src`.
    composer: EntryComposer,
    /// Request fields of local rank 0 of context `c` at `c` (`requests0`) and of local rank 1
    /// at `c` (`requests1`): two RAMs read at the running context `cur` every clock, one
    /// picked after their read registers by `req_lo` (the rank the read was for). With one
    /// RAM at `2c + l`, the rank bit of the read address (the state's decode, `step.answers`,
    /// `sub`, `resending`) fanned out to every word of a 16 × 200-bit distributed RAM: the
    /// cfe's worst place-and-route path on two seeds of four and board64's on one.
    requests0: RAM<FrameFields, 3>,
    requests1: RAM<FrameFields, 3>,
    /// The rank bit of the last clock's `req_raddr`: which of `requests0`/`requests1` the
    /// registered read data stands for.
    req_lo: DFF<Bit>,
    /// Beside each stored request, what the step's decode needs of it, compared when it was
    /// stored (from `arr_flags`): bit 0 its collective is a reduce, bit 1 its rank is the
    /// root. (The decode compared the request's 16-bit rank and root itself: the RAM → that
    /// compare → the decode → the next state was the CFE's deepest path.)
    req_flags: RAM<Bits<2>, 4>,
    /// A copy of each stored request's endpoint (source MAC, IPv4 address, UDP port), read
    /// only for `ep_match`, always at the arrival's context and local rank: its address comes
    /// straight from flip-flops. (Sharing the request RAM's read address, the `resend` select
    /// put the state's decode and the verdict in front of a 200-bit RAM's address: the CFE's
    /// worst place-and-route path on three of four seeds.)
    req_eps: RAM<Endpoint, 4>,
    /// `req_flags`' read address, `2c + l` (assigned once); its rank bit, registered, is
    /// `req_lo`.
    req_raddr: Signal<Local, Bits<4>>,
    req_waddr: Signal<Local, Bits<4>>,
    /// A stored request is written (into `requests0`/`requests1` by its rank, `req_flags` and
    /// `req_eps` alike).
    req_we: Signal<Local, Bit>,
    state: DFF<CfeState>,
    blocked: DFF<Bit>,
    /// `Idle` found an expired context: it reclaims it the next clock (the table's
    /// `reclaim` is this flip-flop).
    reclaiming: DFF<Bit>,
    /// In `Retire`: the context retires (the table's `retire` from this flip-flop, not the
    /// state decoded: state → `retire` → the history's writes was the CFE's worst path).
    retiring: DFF<Bit>,
    /// The arrival's command went out; what it did is undone or committed in `Tail`.
    await_tail: DFF<Bit>,
    /// The arrival's tail has come (from the splitter), and whether it was bad.
    tail_in: DFF<Bit>,
    tail_bad: DFF<Bit>,
    /// The state is `Tail` (a copy of that decode in its own flip-flop, set with every move
    /// to `Tail` and cleared with every move away, not decoded from the next state, which
    /// would add a level behind it: `tail_good` → `cancel` fans out to the table's valid
    /// flags and its history, and the state decode in front of it was the cfe block's worst
    /// path on two of four seeds at e0fdfea).
    in_tail: DFF<Bit>,
    /// In `Tail`, the tail known: good (commit) or bad (undo).
    tail_good: Signal<Local, Bit>,
    tail_undo: Signal<Local, Bit>,
    /// The arrival verdict ([`crate::arrival_verdict`]) of every row but the long history's
    /// `late` row, registered in `Judge`, and whether that row applies (`hist_q`): `Arrive`
    /// acts on the two laid together (`live`), and registers that here for the states after
    /// it. (Deciding and acting in one clock was the board's longest path: latched fields →
    /// verdict → context-table write enables; and the route from the history's block RAM
    /// through the row into the verdict's registers was board64's worst path at 4deefba,
    /// seed 4.)
    verdict: DFF<Verdict>,
    hist_q: DFF<Bit>,
    /// `verdict` with the history's row laid over it: what `Arrive` acts on (`hist_q` is low
    /// in every other state, where this is `verdict`).
    live: LateRow,
    // The arrival being handled.
    arr_fields: DFF<FrameFields>,
    arr_len: DFF<Bits<16>>,
    arr_unsup: DFF<Bit>,
    /// The stored arrival waits, unsplit, to be combined as it streams in by the next pass of
    /// its context (`cur`), if that pass may take it (docs/cfe.md, "Combining on arrival").
    fusing: DFF<Bit>,
    /// This step is the pass that takes the waiting arrival.
    fused_step: Signal<Local, Bit>,
    /// The step's decode, registered in `Read` and used in `Issue` (the micro-op and its
    /// operands do not change in between), so no path runs from the microcode RAM through the
    /// decode into the output registers: the CIPE pass (its `op`, `datatype` and `count` are
    /// filled in `Issue`), whether it has one, whether it sends a frame, whether it makes its
    /// register present (and which), whether it takes the waiting arrival.
    st_ins: DFF<InstrWord>,
    /// The pass that takes the arrival, as `Decide` decodes it (the arrival's reduce op,
    /// datatype and words): issued from `Read`, a clock before `Issue` would.
    ins_f: DFF<InstrWord>,
    /// `ins_f`'s count's derived values, loaded with it from the arrival's registers.
    ins_f_ahead: DFF<InstrAhead>,
    /// Drives `m_instr_tuser`.
    l_ahead: Signal<Local, InstrAhead>,
    ahead_none: Constant<InstrAhead>,
    /// `Decide` chose the pass that takes the arrival (its entry is composed from `Read`).
    fuse_go: DFF<Bit>,
    /// The instruction pending on `m_instr` is `ins_f` (the pass that takes the arrival, sent
    /// from `Read`), not `ins`.
    f_sel: DFF<Bit>,
    /// Drives `m_instr_tdata`, assigned once per evaluation.
    l_instr: Signal<Local, InstrWord>,
    /// The step's CIPE pass from the decode (`st_ins` in `Read`, `ins_f` in `Decide`).
    step_ins: Signal<Local, InstrWord>,
    /// The pass that takes the arrival, from the decode's `fused` (for `ins_f`).
    fused_ins: Signal<Local, InstrWord>,
    st_has_instr: DFF<Bit>,
    st_has_entry: DFF<Bit>,
    st_produce: DFF<Bit>,
    st_dst_reg: DFF<Bits<3>>,
    st_fused: DFF<Bit>,
    /// The splitter command for the waiting arrival.
    arrival_cmd: Signal<Local, SplitCommand>,
    // The context being run, and which local rank a Respond step answers.
    cur: DFF<Bits<3>>,
    /// `cur` one-hot, loaded with it (from the table's `pick_is` or `ctx_is`; context 0 at
    /// power-on and after a reset, as `cur`): it selects the table's `at_end`.
    cur_is: DFFWithInit<Bits<8>>,
    /// `cur_is`'s next value, assigned to its flip-flop once (the flip-flop with a power-on
    /// value has logic of its own: see `collwire_flow::verilog_lint`).
    l_cur_is: Signal<Local, Bits<8>>,
    /// `Idle` takes the arrival at the input this clock (into `Lookup`). The router's
    /// `offload_valid` comes from the far side of the board; it enters the state's next value
    /// here, in the last select after every state's own choice, not at the head of `Idle`'s
    /// priority chain (board64's worst path at 15e92f3, seed 1: seven cells behind a 2.6 ns
    /// net).
    take_arrival: Signal<Local, Bit>,
    /// Where `cur` came from on the last clock edge: 0 it held, 1 `pick` (`Idle`), 2 the
    /// arrival's context. It chooses the table's flip-flop that holds `cur`'s program counter
    /// now (`pc_r`, `pick_pc`, `ctx_pc`), so the program RAM's address comes from flip-flops
    /// and a select, not from `cur` through the table's 8:1 select (board64's worst path at
    /// 116.4 MHz).
    cur_src: DFF<Bits<2>>,
    /// `cur`'s two-ranks-per-host flag, registered for the step's decode (not `cur` → the
    /// table's 8:1 mux → the decode, one of the board's worst paths): the table's value for
    /// `cur` a clock late, loaded from the arrival when `Arrive` makes the arrival's context
    /// `cur` (a hit context's parameters are the arrival's: `Judge` refuses a mismatch).
    /// Every other way into `Decide` or `Read` leaves `cur` unchanged for two clocks before.
    cur_rph2: DFF<Bit>,
    /// `cur`'s present mask and whether it has words, registered for the decode the same way
    /// (in `Arrive` what the arrival's `store` makes of its context's mask, and whether the
    /// arrival has words: a stored arrival's are its segment's). The mask changes under a stable `cur` only by a
    /// `produce` (from `Issue` or `Tail`, then `Send`/`Tail` → `Fetch` → `Load` → `Decide`)
    /// or an `unstore` (then `Idle`), so the decode reads it only where it is current.
    cur_present: DFF<Bits<8>>,
    /// (`contexts.has_words`, the table's flag that `words` ≠ 0, or the arrival's `has_words`
    /// in `Arrive`: no compare between this register and the state, nor between `cur` and
    /// it.)
    cur_has_words: DFF<Bit>,
    /// The register the arrival fills (`arrival.arr_reg`), registered in `Lookup` (the
    /// arrival's fields are held from there to the next `Idle`) and used from `Judge` on, so
    /// the step's decode and the request RAM's address do not start at the fields' decode.
    arr_reg_r: DFF<Bits<3>>,
    /// The register the latched arrival fills (the verdict's `arr_reg`), decoded from the
    /// fields at the input and loaded with `arr_fields`: the context table's `arr_reg`.
    arr_reg_in: ArrivalReg,
    /// The signature of the frame at the input (`ArrivalSig`), the table's `peek_sig`.
    arr_sig_in: ArrivalSig,
    arr_reg_q: DFF<Bits<3>>,
    /// The arrival's directory entry: the directory RAM reads at the index of the frame at
    /// the input (`frame_dir`, the classifier's, from the router's verdict flip-flop) on
    /// every clock, so the entry of the frame `Idle` takes is at the RAM's output in `Lookup`,
    /// and registered here then. `Judge` and `Arrive` so address the program RAM from this
    /// flip-flop, not from the directory RAM's output. (Reading the directory in `Lookup`
    /// put its output, a select and the program RAM's eight address inputs across the die in
    /// one clock: board64's worst path on seed 1 at b953173, 122 MHz.)
    dir_r: DFF<DirectoryWord>,
    /// `dir_r`'s program is empty (start = end), registered on every clock: current from
    /// `Judge` on, so the context table's `alloc_at_end` is a flip-flop, not a 12-bit compare
    /// in front of a context's done flag (`store_now` → that compare's select → `c_at_end`
    /// was board64's worst path on seed 1 at 565fe73, 6.91 ns).
    dir_at_end: DFF<Bit>,
    /// The arrival's `req_flags` (a reduce; its rank is the root), registered in `Lookup` as
    /// `arr_reg_r` is.
    arr_flags: DFF<Bits<2>>,
    sub: DFF<Bit>,
    /// The program goes on to its next micro-op: the `advance` is issued in `Fetch` (from
    /// this flip-flop, not from `Send`'s or `Tail`'s wait, which starts at the step's decode
    /// and the composer), and `Fetch` reads the micro-op at `pc_next`. High for one clock,
    /// and only in `Fetch` (set with the move there, cleared by a reset): the advance and the
    /// read are this flip-flop alone, not decoded with the state (state → `advance` → the
    /// table's counters was the CFE's worst path at 3e5f093).
    advancing: DFF<Bit>,
    /// `cur`'s program counter + 1, registered every clock (`cur` and its counter hold from
    /// `Send` or `Tail` into `Fetch`), from the table's `pc_r` (`cur`'s counter from a
    /// flip-flop: `cur` held over the edge into `Send` and `Tail` too), not from the 8:1
    /// select of the counters.
    pc_next: DFF<Bits<12>>,
    /// A done context's answer is being sent again (`cur`'s last micro-op, step `sub`): no
    /// advance or retire after it.
    resending: DFF<Bit>,
    /// `resending`, not a nack's resend, not the look after an ack: a retained answer is sent
    /// again (the step's `again`). Registered from those three's next values, so the decode
    /// starts at one flip-flop.
    again: DFF<Bit>,
    /// The stored request of the arrival's local rank (read while a `resend` verdict waits
    /// for its tail) came from the arrival's endpoint: source MAC, IPv4 address, UDP port.
    ep_match: DFF<Bit>,
    err_stale: Constant<Bits<8>>,
    // The NACK between boards (docs/recovery.md).
    /// Waiting side: after acking a local rank's retransmission, the engine looks at the
    /// segment's next micro-op (`Fetch` … `Decide`); if it waits for a register a board sends,
    /// it reads the program's input map (`Probe`, `Map`) and sends that board a nack (`Read`,
    /// `Issue`, `Send`).
    probing: DFF<Bit>,
    /// The register the segment waits for, and the board the input map names for it.
    nack_reg: DFF<Bits<3>>,
    nack_board: DFF<Bits<8>>,
    /// Sending side: `Scan` reads the nacked context's program backwards from its program
    /// counter (`scan_pc`) to its first micro-op (a `LocalPrefix`), for the pass that sent the
    /// nacking board the register it lacks. `scan_addr` is the address being read (in `Probe`
    /// the input map's word), `scan_at1` / `scan_at2` the addresses of the words in the program
    /// RAM's output and in `uop_r`, `scan_fill` how many of those are valid.
    scan_addr: DFF<Bits<12>>,
    /// The running context's end (the input map's first word; + 1, its second), registered
    /// every clock: `Decide` after an ack takes it (`cur` has been the same since `Fetch`, and
    /// a context's end changes only when it is allocated, in `Arrive`), so neither the context
    /// select nor an adder behind it is in front of `scan_addr` (`cur` → end → + 1 →
    /// `scan_addr` was the cfe's worst path on a seed; `cur` → end → + 1 → this register,
    /// board64's on seed 2 at 73c9684, 119.8 MHz, when it held end + 1).
    end_r: DFF<Bits<12>>,
    scan_at1: DFF<Bits<12>>,
    scan_at2: DFF<Bits<12>>,
    scan_pc: DFF<Bits<12>>,
    /// `scan_at2 != scan_pc`, registered from their next values (the 12-bit compare out of
    /// `scan_found`: `scan_at2` → the compare → `scan_found` → `Scan`'s answer → `ans_pend`'s
    /// enable, 8 cells, was board64's worst path on seed 1 at 7246a3c, 149.9 MHz), which on
    /// the clocks it is read are `scan_at1` and `scan_pc` as they are: compared from those
    /// flip-flops (the compare after the state's selects of both was among board64's late
    /// endpoints on seed 5 at 3822ae8, 6.72 ns).
    scan_ne: DFF<Bit>,
    scan_fill: DFF<Bits<2>>,
    /// This clock `uop_r` holds the pass the nack asks for.
    scan_found: Signal<Local, Bit>,
    /// The program RAM's output as a micro-op, and whether it is a pass that sends the nacking
    /// board (`arr_fields`' rank: its board, its register's tag) its register: `scan_match`,
    /// registered beside `uop_r` (and kept with it), so `scan_found` compares no fields after
    /// `uop_r` (`state` → the compares → `scan_found` → `uop_r`'s enable and the next state was
    /// the cfe's worst path on a seed and board64's at e146a7f, seed 1).
    ram_word: Signal<Local, UopWord>,
    scan_match: DFF<Bit>,
    /// `uop_r` keeps its word (the found pass, or the micro-op the segment waits for).
    keep_uop: DFF<Bit>,
    /// The found pass runs as a resend ([`UopDecode`]'s `resend`): its value copied out of the
    /// register that holds it, to the nacking board.
    nack_resend: DFF<Bit>,
    kind_pass: Constant<Bits<2>>,
    kind_local_prefix: Constant<Bits<2>>,
    no_board: Constant<Bits<8>>,
    /// The composer's board and register (the step's, or the nack's).
    c_board: Signal<Local, Bits<8>>,
    c_tag: Signal<Local, Bits<4>>,
    // Output registers and their pending flags.
    cmd: DFF<SplitCommand>,
    cmd_pend: DFF<Bit>,
    ins: DFF<InstrWord>,
    ins_pend: DFF<Bit>,
    /// The instruction pending, set only in `Decide` with an arrival: `ins_pend_f` for the
    /// fused pass's (`ins_f`), `ins_pend_s` for the `input` that stores the arrival (`ins`).
    /// The micro-op decode feeds these flip-flops alone, not the mux of every state that sets
    /// `ins_pend` (uop_r → decode → that mux was the cfe block's deepest path, 15–16 levels
    /// on xc7); and two of them, so the pass's is the decode's `fuses` and `has_instr` ANDed,
    /// not a choice between those and the arrival's words on the step's readiness (16 levels
    /// with `scan_match` and one flag, 13 split). The instruction is pending while any of the
    /// three is set (one at a time: `Decide` has none pending).
    ins_pend_f: DFF<Bit>,
    ins_pend_s: DFF<Bit>,
    /// The step's pass takes the arrival and sends an instruction.
    fused_instr: Signal<Local, Bit>,
    instr_pend: Signal<Local, Bit>,
    ent: DFF<EntryWord>,
    ent_pend: DFF<Bit>,
    /// An answer to the arrival (error or ack) waits to be composed (from `emit`), its kind
    /// and error code.
    ans_pend: DFF<Bit>,
    ans_err: DFF<Bit>,
    ans_code: DFF<Bits<8>>,
    /// The answer is a `pending` to the board that sent the arrival (a nack).
    ans_board: DFF<Bit>,
    /// In `Arrive`: the verdict is acted on (from `in_arrive`, a flip-flop set with the move
    /// there: the state decode sat in front of the table's `store`, which writes every
    /// context's registers).
    arriving: Signal<Local, Bit>,
    in_arrive: DFF<Bit>,
    /// The table's `store` and `alloc` in `Arrive`, registered in `Judge` with the verdict
    /// (high for that one clock, as `in_arrive`): no AND with the state between the verdict
    /// and the table's write enables (the verdict → `store` → a context's enable → its
    /// present mask, 80 % routing, was board64's worst path at b9cf617). Not also one-hot by
    /// context (the verdict's `store` AND `ctx_is` into eight flip-flops): the verdict's
    /// second stage, in `Judge`, then ended at eight flip-flops instead of one, and that
    /// was the worst path on the default seed (130.6 MHz). The chain's `store` and `alloc`:
    /// the table gets them AND NOT `hist_q` (the history's row), one gate of two flip-flops.
    store_now: DFF<Bit>,
    alloc_now: DFF<Bit>,
    // Context-table commands, assigned to the table's inputs once at the end of `update` (a
    // default-then-override of a child's input re-triggers it in event-driven simulators).
    t_park: Signal<Local, Bit>,
    t_produce: Signal<Local, Bit>,
    /// High in `Issue` only (`Read` goes there on every clock it runs), so the table's
    /// `produce` and `nacked` in `Issue` come from this flip-flop and the step's, not from a
    /// decode of the state: `cfe_state` → `produce` → a context's `c_present` was 7 levels at
    /// 64 endpoints and among board64's late registers (seed 1, 73da2a6).
    in_issue: DFF<Bit>,
    /// Compose an entry from this clock's answer source and step.
    t_compose: Signal<Local, Bit>,
    /// This clock's events, default none.
    ev: Signal<Local, StatEvents>,
    /// The fields an answer is built from: the arrival's (errors, acks) or a stored request's.
    answer_src: Signal<Local, FrameFields>,
    /// Whether the segment is a reduce and the answered rank its root (`req_flags`' bits), as
    /// the step's decode reads them: the waiting arrival's while there is one (`fusing`: its
    /// collective and root are the segment's, `Judge` refuses a mismatch, and no step that
    /// depends on the rank takes an arrival), else the stored request's. Selected by a
    /// flip-flop, not by the state's decode that selected `answer_src` then (state → that
    /// select → the decode → the next state was board64's worst path).
    dec_flags: Signal<Local, Bits<2>>,
    coll_reduce: Constant<Bits<4>>,
    /// The program RAM's read address (`conf.uop_addr`, assigned once).
    uop_addr: Signal<Local, Bits<12>>,
    route_addr: Signal<Local, Bits<6>>,
}

impl Cfe {
    /// An engine for a datapath of `word_bytes` bytes per beat (8 or 32).
    pub fn new(word_bytes: usize) -> Cfe {
        assert!(word_bytes.is_power_of_two());
        let split = |action: u32| Constant::new(bits::<2>(u64::from(action)));
        Cfe {
            clock: Default::default(),
            reset: Default::default(),
            frame_valid: Default::default(),
            frame_fields: Default::default(),
            frame_payload_len: Default::default(),
            frame_dir: Default::default(),
            frame_unsupported: Default::default(),
            frame_tail_valid: Default::default(),
            frame_tail_bad: Default::default(),
            m_cmd_tdata: Default::default(),
            m_cmd_tvalid: Default::default(),
            m_cmd_tready: Default::default(),
            m_instr_tdata: Default::default(),
            m_instr_tuser: Default::default(),
            m_instr_tvalid: Default::default(),
            m_instr_tready: Default::default(),
            m_entry_tdata: Default::default(),
            m_entry_tvalid: Default::default(),
            m_entry_tready: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_data: Default::default(),
            age_tick: Default::default(),
            state_code: Default::default(),
            events: Default::default(),
            no_events: Constant::new(StatEvents::default()),
            split_drain: split(SPLIT_DRAIN),
            split_stream: split(SPLIT_STREAM),
            op_input: Constant::new(bits::<4>(Opcode::Input as u64)),
            instr_none: Constant::new(InstrWord::default()),
            no_verdict: Constant::new(Verdict::default()),
            no_cmd: Constant::new(SplitCommand {
                action: bits::<2>(u64::from(SPLIT_DRAIN)),
                ..Default::default()
            }),
            conf: Default::default(),
            contexts: Default::default(),
            time_base: Default::default(),
            arrival: ArrivalVerdict::new(word_bytes),
            step: Default::default(),
            uop_r: Default::default(),
            composer: Default::default(),
            requests0: Default::default(),
            requests1: Default::default(),
            req_lo: Default::default(),
            req_flags: Default::default(),
            req_eps: Default::default(),
            req_raddr: Default::default(),
            req_waddr: Default::default(),
            req_we: Default::default(),
            arr_flags: Default::default(),
            dec_flags: Default::default(),
            coll_reduce: Constant::new(bits::<4>(u64::from(
                collwire_proto::Collective::Reduce.code(),
            ))),
            state: Default::default(),
            blocked: Default::default(),
            reclaiming: Default::default(),
            retiring: Default::default(),
            await_tail: Default::default(),
            tail_in: Default::default(),
            tail_bad: Default::default(),
            tail_good: Default::default(),
            tail_undo: Default::default(),
            in_tail: Default::default(),
            verdict: Default::default(),
            arr_fields: Default::default(),
            arr_len: Default::default(),
            arr_unsup: Default::default(),
            fusing: Default::default(),
            fused_step: Default::default(),
            st_ins: Default::default(),
            ins_f: Default::default(),
            ins_f_ahead: Default::default(),
            l_ahead: Default::default(),
            ahead_none: Constant::new(InstrAhead::default()),
            fuse_go: Default::default(),
            f_sel: Default::default(),
            l_instr: Default::default(),
            step_ins: Default::default(),
            fused_ins: Default::default(),
            st_has_instr: Default::default(),
            st_has_entry: Default::default(),
            st_produce: Default::default(),
            st_dst_reg: Default::default(),
            st_fused: Default::default(),
            arrival_cmd: Default::default(),
            cur: Default::default(),
            cur_is: DFFWithInit::new(bits::<8>(1)),
            l_cur_is: Default::default(),
            take_arrival: Default::default(),
            cur_src: Default::default(),
            cur_rph2: Default::default(),
            cur_present: Default::default(),
            cur_has_words: Default::default(),
            arr_reg_r: Default::default(),
            arr_reg_in: Default::default(),
            arr_sig_in: Default::default(),
            arr_reg_q: Default::default(),
            dir_r: Default::default(),
            dir_at_end: Default::default(),
            sub: Default::default(),
            resending: Default::default(),
            advancing: Default::default(),
            pc_next: Default::default(),
            again: Default::default(),
            ep_match: Default::default(),
            err_stale: Constant::new(bits::<8>(u64::from(
                collwire_proto::ErrorCode::Stale.code(),
            ))),
            probing: Default::default(),
            nack_reg: Default::default(),
            nack_board: Default::default(),
            scan_addr: Default::default(),
            end_r: Default::default(),
            scan_at1: Default::default(),
            scan_at2: Default::default(),
            scan_pc: Default::default(),
            scan_ne: Default::default(),
            scan_fill: Default::default(),
            scan_found: Default::default(),
            ram_word: Default::default(),
            scan_match: Default::default(),
            keep_uop: Default::default(),
            nack_resend: Default::default(),
            kind_pass: Constant::new(bits::<2>(u64::from(crate::uop_decode::uop_code::PASS))),
            kind_local_prefix: Constant::new(bits::<2>(u64::from(
                crate::uop_decode::uop_code::LOCAL_PREFIX,
            ))),
            no_board: Constant::new(bits::<8>(u64::from(cfg::NO_BOARD))),
            c_board: Default::default(),
            c_tag: Default::default(),
            cmd: Default::default(),
            cmd_pend: Default::default(),
            ins: Default::default(),
            ins_pend: Default::default(),
            ins_pend_f: Default::default(),
            ins_pend_s: Default::default(),
            fused_instr: Default::default(),
            instr_pend: Default::default(),
            ent: Default::default(),
            ent_pend: Default::default(),
            ans_pend: Default::default(),
            ans_err: Default::default(),
            ans_code: Default::default(),
            ans_board: Default::default(),
            arriving: Default::default(),
            in_arrive: Default::default(),
            store_now: Default::default(),
            alloc_now: Default::default(),
            hist_q: Default::default(),
            live: Default::default(),
            t_park: Default::default(),
            t_produce: Default::default(),
            in_issue: Default::default(),
            t_compose: Default::default(),
            ev: Default::default(),
            answer_src: Default::default(),
            uop_addr: Default::default(),
            route_addr: Default::default(),
        }
    }
}

impl Logic for Cfe {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            blocked,
            reclaiming,
            retiring,
            advancing,
            pc_next,
            cur_src,
            await_tail,
            tail_in,
            tail_bad,
            in_tail,
            in_arrive,
            in_issue,
            store_now,
            alloc_now,
            verdict,
            hist_q,
            arr_fields,
            arr_len,
            arr_unsup,
            fusing,
            cur,
            cur_rph2,
            cur_present,
            cur_has_words,
            arr_reg_r,
            arr_reg_q,
            dir_r,
            dir_at_end,
            arr_flags,
            sub,
            resending,
            again,
            ep_match,
            cmd,
            cmd_pend,
            ins,
            ins_pend,
            ins_pend_f,
            ins_pend_s,
            ent,
            ent_pend,
            ans_pend,
            ans_err,
            ans_code,
            ans_board,
            st_ins,
            ins_f,
            ins_f_ahead,
            fuse_go,
            f_sel,
            st_has_instr,
            st_has_entry,
            st_produce,
            st_dst_reg,
            st_fused,
            uop_r,
            probing,
            nack_reg,
            nack_board,
            scan_addr,
            end_r,
            scan_at1,
            scan_at2,
            scan_ne,
            scan_pc,
            scan_fill,
            keep_uop,
            scan_match,
            nack_resend
        );
        self.ev.next = self.no_events.val();
        self.conf.clock.next = self.clock.val();
        self.contexts.clock.next = self.clock.val();
        self.requests0.read_clock.next = self.clock.val();
        self.requests0.write_clock.next = self.clock.val();
        self.requests1.read_clock.next = self.clock.val();
        self.requests1.write_clock.next = self.clock.val();
        self.req_lo.clock.next = self.clock.val();
        self.req_flags.read_clock.next = self.clock.val();
        self.req_flags.write_clock.next = self.clock.val();
        self.req_eps.read_clock.next = self.clock.val();
        self.req_eps.write_clock.next = self.clock.val();
        self.conf.cfg_we.next = self.cfg_we.val();
        self.conf.cfg_addr.next = self.cfg_addr.val();
        self.conf.cfg_data.next = self.cfg_data.val();

        // ---- The arrival: looked up in the context table, the directory and the routes.
        self.arrival.clock.next = self.clock.val();
        self.arrival.reset.next = self.reset.val();
        // Held from `Lookup` (loaded in `Idle`): the verdict's first stage registers their
        // flags there, and its second gives the verdict in `Judge`.
        self.arrival.fields.next = self.arr_fields.q.val();
        self.arrival.payload_len.next = self.arr_len.q.val();
        self.arrival.unsupported.next = self.arr_unsup.q.val();
        self.arrival.my_board.next = self.conf.my_board.val();
        self.arrival.dir_word.next = self.dir_r.q.val();
        self.arrival.hit.next = self.contexts.hit.val();
        self.arrival.done.next = self.contexts.done.val();
        self.arrival.late.next = self.contexts.late.val();
        // The long history answers in `Judge`, a clock after `late` (valid there only).
        self.arrival.hist_late.next = self.contexts.hist_late.val();
        self.arrival.sig_match.next = self.contexts.sig_match.val();
        self.arrival.present.next = self.contexts.present.val();
        self.arrival.has_free.next = self.contexts.has_free.val();
        self.arrival.silent.next = self.contexts.silent.val();
        self.contexts.key.next = self.arrival.key.val();
        // The key of the frame at the input, which `Idle` takes into `Lookup` next clock and
        // `Judge` judges the clock after: the table compares it with its keys a clock ahead
        // of the lookup, the long history reads it two clocks ahead. (The same fields as
        // `arrival_verdict`'s key, from the router's side-band instead of the registered
        // arrival.) So `Idle` writes and files no key on the clock it takes an arrival.
        self.contexts.peek_key.next = (bit_cast::<48, 16>(self.frame_fields.val().comm_id) << 32)
            | (bit_cast::<48, 16>(self.frame_fields.val().op_id) << 16)
            | bit_cast::<48, 16>(self.frame_fields.val().seg_index);
        // Looked up once, in `Lookup`: the answers hold until the next arrival's.
        self.contexts.lookup.next = self.state.q.val() == CfeState::Lookup;
        self.contexts.sig.next = self.arrival.sig.val();
        // Its signature likewise, compared a clock ahead of the lookup.
        self.arr_sig_in.fields.next = self.frame_fields.val();
        self.contexts.peek_sig.next = self.arr_sig_in.sig.val();
        self.contexts.arr_reg.next = self.arr_reg_q.q.val();
        self.arr_reg_in.fields.next = self.frame_fields.val();
        self.conf.dir_addr.next = self.frame_dir.val();
        if self.state.q.val() == CfeState::Lookup {
            self.dir_r.d.next = self.conf.dir_word.val();
        }
        self.dir_at_end.d.next = self.dir_r.q.val().start == self.dir_r.q.val().end;
        self.arriving.next = self.in_arrive.q.val();

        // ---- The running context and its micro-op (valid from Decide on).
        self.contexts.cur.next = self.cur.q.val();
        self.contexts.cur_is.next = self.cur_is.q.val();
        self.l_cur_is.next = self.cur_is.q.val();
        self.cur_is.clock.next = self.clock.val();
        self.cur_src.d.next = bits::<2>(0);
        self.uop_addr.next = self.contexts.pc_r.val();
        if self.cur_src.q.val() == bits::<2>(1) {
            self.uop_addr.next = self.contexts.pick_pc.val();
        } else if self.cur_src.q.val() == bits::<2>(2) {
            self.uop_addr.next = self.contexts.ctx_pc.val();
        }
        // While an arrival is judged and acted on, the program RAM reads the micro-op its
        // segment runs next: the hit context's program counter, else the program's first (a
        // new context's). A stored arrival then goes from `Arrive` straight to `Decide`: the
        // word read in `Judge` is in `uop_r` there, and the one read in `Arrive` in `Read`
        // (which registers the step's decode; `cur` is the arrival's context only from
        // `Decide` on). For any other verdict the words are not used.
        if (self.state.q.val() == CfeState::Judge) | (self.state.q.val() == CfeState::Arrive) {
            self.uop_addr.next = self.dir_r.q.val().start;
            if self.contexts.hit.val() {
                self.uop_addr.next = self.contexts.ctx_pc.val();
            }
        }
        // A nack: the program read backwards (`Scan`), or the input map's word (`Probe`).
        if (self.state.q.val() == CfeState::Scan) | (self.state.q.val() == CfeState::Probe) {
            self.uop_addr.next = self.scan_addr.q.val();
        }
        // An advance is issued in `Fetch`, the clock the micro-op after it is read.
        self.pc_next.d.next = self.contexts.pc_r.val() + bits::<12>(1);
        self.end_r.d.next = self.contexts.end_pc.val();
        if self.advancing.q.val() {
            self.uop_addr.next = self.pc_next.q.val();
        }
        self.conf.uop_addr.next = self.uop_addr.val();
        // The pass a nack asks for is in `uop_r` when `Scan` finds it: kept while it runs.
        self.scan_found.next = (self.state.q.val() == CfeState::Scan)
            & (self.scan_fill.q.val() == bits::<2>(2))
            & self.scan_ne.q.val()
            & self.scan_match.q.val();
        self.ram_word.next = self.conf.uop.val().into();
        self.uop_r.d.next = self.conf.uop.val();
        self.scan_match.d.next = (self.ram_word.val().kind == self.kind_pass.val())
            & self.ram_word.val().send
            & (self.ram_word.val().board == bit_cast::<8, 16>(self.arr_fields.q.val().rank))
            & (bit_cast::<16, 4>(self.ram_word.val().tag)
                == ((self.arr_fields.q.val().rank >> 8) & bits::<16>(15)));
        if self.keep_uop.q.val() | self.scan_found.val() {
            self.uop_r.d.next = self.uop_r.q.val();
            self.scan_match.d.next = self.scan_match.q.val();
        }
        self.step.resend.next = self.nack_resend.q.val();
        // A retained answer sent again (not a nack's resend, not the look after an ack).
        self.step.again.next = self.again.q.val();
        self.step.uop.next = self.uop_r.q.val();
        self.step.cur.next = self.cur.q.val();
        self.step.present.next = self.cur_present.q.val();
        self.step.rph2.next = self.cur_rph2.q.val();
        self.step.has_words.next = self.cur_has_words.q.val();
        self.step.sub.next = self.sub.q.val();
        self.dec_flags.next = self.req_flags.read_data.val();
        if self.fusing.q.val() {
            self.dec_flags.next = self.arr_flags.q.val();
        }
        self.step.reduce.next = self.dec_flags.val().get_bit(0);
        self.step.rank_is_root.next = self.dec_flags.val().get_bit(1);
        self.step.arr_reg.next = self.arr_reg_r.q.val();
        self.fused_step.next = self.fusing.q.val() & self.step.fuses.val();
        self.fused_instr.next = self.step.fuses.val() & self.step.fused_instr.val();
        // The step's CIPE pass as decoded (the reduce op, datatype and word count filled in
        // where it is issued).
        self.step_ins.next = self.instr_none.val();
        self.step_ins.next.opcode = self.step.pass.val().opcode;
        self.step_ins.next.slot_d = self.step.pass.val().slot_d;
        self.step_ins.next.slot_b = self.step.pass.val().slot_b;
        self.step_ins.next.slot_a = self.step.pass.val().slot_a;
        self.step_ins.next.store = self.step.pass.val().store;
        self.step_ins.next.emit = self.step.pass.val().emit;
        self.step_ins.next.swap = self.step.pass.val().swap;
        // The same for the pass that takes the arrival (the step's pass when it does).
        self.fused_ins.next = self.instr_none.val();
        self.fused_ins.next.opcode = self.step.fused.val().opcode;
        self.fused_ins.next.slot_d = self.step.fused.val().slot_d;
        self.fused_ins.next.slot_b = self.step.fused.val().slot_b;
        self.fused_ins.next.slot_a = self.step.fused.val().slot_a;
        self.fused_ins.next.store = self.step.fused.val().store;
        self.fused_ins.next.emit = self.step.fused.val().emit;
        self.fused_ins.next.swap = self.step.fused.val().swap;
        // The splitter command for the stored arrival, whether a pass takes it or it is
        // stored: stream its payload words, or drain a frame without payload.
        self.arrival_cmd.next = self.no_cmd.val();
        if self.arrival.has_words.val() {
            self.arrival_cmd.next.action = self.split_stream.val();
            self.arrival_cmd.next.words = self.arrival.words.val();
            self.arrival_cmd.next.one = self.arrival.words_one.val();
            self.arrival_cmd.next.two = self.arrival.words_two.val();
            self.arrival_cmd.next.after2 = self.arrival.words_after2.val();
        }

        // ---- The fields an answer is built from: the arrival's (errors, acks) or a stored
        // request's.
        self.answer_src.next = self.requests0.read_data.val();
        if self.req_lo.q.val() {
            self.answer_src.next = self.requests1.read_data.val();
        }
        // Only the entry composer reads it, and only on `t_compose`: in `Emit` for an answer
        // to the arrival (`ans_pend`: an error, an ack, a `pending`), in `Read` and `Issue`
        // for a step's frame (the stored request). So `ans_pend` alone selects the arrival's.
        // (It was also selected in `Arrive` and in `Decide` with an arrival, where nothing is
        // composed: the state's decode in that select, fanned out to 364 muxes in front of the
        // composer's first stage, was the cfe's worst path at e146a7f seed 4 and 3f048e2
        // seed 1. The step's decode reads the request's flags from `dec_flags`.)
        if self.ans_pend.q.val() {
            self.answer_src.next = self.arr_fields.q.val();
        }

        // ---- Outputs.
        self.m_cmd_tdata.next = self.cmd.q.val().into();
        self.m_cmd_tvalid.next = self.cmd_pend.q.val();
        self.l_instr.next = self.ins.q.val();
        if self.f_sel.q.val() {
            self.l_instr.next = self.ins_f.q.val();
        }
        self.m_instr_tdata.next = self.l_instr.val().into();
        self.l_ahead.next = self.ahead_none.val();
        if self.f_sel.q.val() {
            self.l_ahead.next = self.ins_f_ahead.q.val();
        }
        self.m_instr_tuser.next = self.l_ahead.val().into();
        self.instr_pend.next =
            self.ins_pend.q.val() | self.ins_pend_f.q.val() | self.ins_pend_s.q.val();
        self.m_instr_tvalid.next = self.instr_pend.val();
        self.m_entry_tdata.next = self.ent.q.val().into();
        self.m_entry_tvalid.next = self.ent_pend.q.val();
        if self.m_cmd_tready.val() {
            self.cmd_pend.d.next = false;
        }
        if self.m_instr_tready.val() {
            self.ins_pend.d.next = false;
            self.ins_pend_f.d.next = false;
            self.ins_pend_s.d.next = false;
        }
        if self.m_entry_tready.val() {
            self.ent_pend.d.next = false;
        }
        // The composer's entry, [`crate::entry_composer::COMPOSE_LATENCY`] clocks after it was asked for (the engine
        // waits for it before it composes another, so `ent` is free).
        if self.composer.entry_valid.val() {
            self.ent.d.next = self.composer.entry.val();
            self.ent_pend.d.next = true;
        }
        self.req_waddr.next = (bit_cast::<4, 3>(self.contexts.ctx.val()) << 1)
            | bit_cast::<4, 3>(self.arr_reg_r.q.val() & bits::<3>(1));
        self.requests0.write_data.next = self.arr_fields.q.val();
        self.requests1.write_data.next = self.arr_fields.q.val();
        self.req_raddr.next = bit_cast::<4, 3>(self.cur.q.val()) << 1;
        // Rank `sub`'s request, as `sub` will be in `Read`: in `Decide` (which clears `sub`)
        // rank 0's, in `Send` and `Tail` already the next step's (`Send` or `Tail` → `Read` is
        // the only way to a second step, `sub` = 1). So it is read by the time `Read` registers the step's
        // decode (which depends on the request's collective, rank and root). The composer
        // took this step's request when it started, in `Issue`.
        if self.step.answers.val() {
            self.req_raddr.next = (bit_cast::<4, 3>(self.cur.q.val()) << 1)
                | bit_cast::<4, 1>(
                    ((self.sub.q.val()
                        & ((self.state.q.val() != CfeState::Decide) | self.resending.q.val()))
                        | (self.state.q.val() == CfeState::Send)
                        | (self.state.q.val() == CfeState::Tail))
                        .into(),
                );
        }
        // The stored request of the arrival's local rank, for a `resend` verdict waiting for
        // its tail: does the retransmission come from where that request came from? (Read
        // every clock; `ep_match` is looked at only in `Tail`, the arrival's context and rank
        // registered since `Judge`.)
        self.ep_match.d.next = (self.req_eps.read_data.val().mac
            == self.arr_fields.q.val().src_mac)
            & (self.req_eps.read_data.val().ip == self.arr_fields.q.val().src_ip)
            & (self.req_eps.read_data.val().port == self.arr_fields.q.val().src_port);
        self.route_addr.next = bit_cast::<6, 8>(self.step.word.val().board);
        self.c_board.next = self.step.word.val().board;
        self.c_tag.next = self.step.word.val().tag;
        if self.probing.q.val() {
            self.route_addr.next = bit_cast::<6, 8>(self.nack_board.q.val());
            self.c_board.next = self.nack_board.q.val();
            self.c_tag.next = bit_cast::<4, 3>(self.nack_reg.q.val());
        }
        // A nack's answer goes to the board that sent it (a resend's pass names the same
        // board).
        if self.live.verdict.val().nack | self.live.verdict.val().pend {
            self.route_addr.next = bit_cast::<6, 16>(self.arr_fields.q.val().rank);
        }
        if self.ans_board.q.val() {
            self.c_board.next = bit_cast::<8, 16>(self.arr_fields.q.val().rank);
            self.c_tag.next = bit_cast::<4, 16>(self.arr_fields.q.val().rank >> 8);
        }
        self.t_park.next = false;
        self.t_compose.next = false;
        // The arrival's tail, from the splitter (it may come before `Tail` is reached).
        if self.frame_tail_valid.val() {
            self.tail_in.d.next = true;
            self.tail_bad.d.next = self.frame_tail_bad.val();
        }
        self.tail_good.next = self.in_tail.q.val() & self.tail_in.q.val() & !self.tail_bad.q.val();
        self.tail_undo.next = self.in_tail.q.val() & self.tail_in.q.val() & self.tail_bad.q.val();
        // A pass's result makes its register present in `Issue`, unless the pass took the
        // arrival (`st_fused`): then in `Tail`, once the arrival's tail is good (`tail_good` is
        // high in `Tail` only).
        self.t_produce.next =
            (self.in_issue.q.val() & self.st_produce.q.val() & !self.st_fused.q.val())
                | (self.tail_good.val()
                    & self.verdict.q.val().store
                    & self.fusing.q.val()
                    & self.st_produce.q.val());

        self.cur_rph2.d.next = self.contexts.rph2.val();
        self.cur_present.d.next = self.contexts.present_mask.val();
        self.cur_has_words.d.next = self.contexts.has_words.val();
        if self.state.q.val() == CfeState::Lookup {
            self.arr_reg_r.d.next = self.arrival.arr_reg.val();
            self.arr_flags.d.next = bit_cast::<2, 1>(
                (self.arr_fields.q.val().collective == self.coll_reduce.val()).into(),
            ) | (bit_cast::<2, 1>(
                (self.arr_fields.q.val().rank == self.arr_fields.q.val().root).into(),
            ) << 1);
        }
        self.reclaiming.d.next = false;
        self.retiring.d.next = false;
        self.advancing.d.next = false;
        self.in_tail.d.next = false;
        self.in_arrive.d.next = false;
        self.in_issue.d.next = self.state.q.val() == CfeState::Read;
        self.store_now.d.next = false;
        self.alloc_now.d.next = false;
        match self.state.q.val() {
            CfeState::Idle => {
                // The arrival registers follow the router's offload port on every idle clock
                // (nothing reads them between arrivals), so their load enable is the state
                // alone, not the splitter's ready: a shorter path to 364 flip-flops' enables.
                self.arr_fields.d.next = self.frame_fields.val();
                self.arr_reg_q.d.next = bit_cast::<3, 8>(self.arr_reg_in.reg8.val());
                self.arr_len.d.next = self.frame_payload_len.val();
                self.arr_unsup.d.next = self.frame_unsupported.val();
                self.resending.d.next = false;
                self.probing.d.next = false;
                self.keep_uop.d.next = false;
                self.nack_resend.d.next = false;
                self.ans_board.d.next = false;
                if self.reclaiming.q.val() {
                    // A segment without progress for the configured time, found the clock
                    // before: freed as if its ranks had aborted (the table still holds it
                    // `expired`: no command since); a frame waiting for a context may try
                    // again. Nothing else this clock: an arrival taken now would be looked up
                    // before the table counts the filed key.
                    self.blocked.d.next = false;
                    self.ev.next.reclaimed = self.contexts.expired.val();
                } else if self.frame_valid.val() & self.m_cmd_tready.val() & !self.blocked.q.val() {
                    // Into `Lookup`: the state is set by `take_arrival`, after this match.
                } else if self.contexts.pick_found.val() {
                    self.cur.d.next = self.contexts.pick.val();
                    self.l_cur_is.next = self.contexts.pick_is.val();
                    self.cur_src.d.next = bits::<2>(1);
                } else if self.contexts.expired.val() {
                    // Reclaimed the next clock (from a flip-flop: the choice between an
                    // arrival, a picked context and an expired one is too deep to sit in
                    // front of the table's writes).
                    self.reclaiming.d.next = true;
                }
                // A picked context runs unless the clock reclaims; an arrival taken now
                // overrides this with `Lookup` (`take_arrival`, below).
                if !self.reclaiming.q.val() & self.contexts.pick_found.val() {
                    self.state.d.next = CfeState::Fetch;
                }
            }
            CfeState::Lookup => {
                self.state.d.next = CfeState::Judge;
            }
            CfeState::Judge => {
                // The chain's verdict and the history's row, laid together in `Arrive`.
                self.verdict.d.next = self.arrival.chain.val();
                self.hist_q.d.next = self.arrival.hist_row.val();
                self.in_arrive.d.next = true;
                // The table's `store` and `alloc` are these with the row's mask (`hist_q`).
                self.store_now.d.next = self.arrival.chain.val().store;
                self.alloc_now.d.next = self.arrival.chain.val().alloc;
                self.state.d.next = CfeState::Arrive;
            }
            CfeState::Arrive => {
                // The frame may still be arriving (the router cuts offload frames through):
                // what the verdict says is done once its tail is known good (`Tail`), except
                // what a bad tail can undo there. The splitter drains the frame unless it is
                // stored or forwarded.
                // The verdict with the history's row laid over it, kept for the states after.
                self.verdict.d.next = self.live.verdict.val();
                self.hist_q.d.next = false;
                self.cmd.d.next.action = self.split_drain.val();
                self.cmd.d.next.words = bits::<12>(0);
                self.cmd_pend.d.next = true;
                self.await_tail.d.next = true;
                self.state.d.next = CfeState::Emit;
                if self.live.verdict.val().stall {
                    // No context free: the frame waits at the input, programs run on.
                    self.cmd_pend.d.next = false;
                    self.await_tail.d.next = false;
                    self.blocked.d.next = true;
                    self.state.d.next = CfeState::Idle;
                }
                if self.live.verdict.val().store {
                    // Marked present (the context table's `store`, undone by `unstore` if the
                    // tail is bad); the frame waits unsplit while the context's next pass is
                    // looked at: it may take the arrival as it streams in, else the arrival
                    // is stored (`Decide`).
                    // Its payload goes to the CIPE now: whichever instruction takes it (the
                    // pass, or the `input` that stores it), the command is this one, and the
                    // CIPE takes the words only with it (a local prefix run first takes none).
                    self.cmd.d.next = self.arrival_cmd.val();
                    self.fusing.d.next = true;
                    self.cur.d.next = self.contexts.ctx.val();
                    self.l_cur_is.next = self.contexts.ctx_is.val();
                    self.cur_src.d.next = bits::<2>(2);
                    self.cur_rph2.d.next = self.arrival.rph2.val();
                    self.cur_has_words.d.next = self.arrival.has_words.val();
                    self.cur_present.d.next =
                        bits::<8>(1) << bit_cast::<8, 3>(self.arr_reg_r.q.val());
                    if !self.live.verdict.val().alloc {
                        self.cur_present.d.next = self.contexts.ctx_present.val()
                            | (bits::<8>(1) << bit_cast::<8, 3>(self.arr_reg_r.q.val()));
                    }
                    self.state.d.next = CfeState::Decide;
                }
            }
            CfeState::Emit => {
                if self.ans_pend.q.val() {
                    self.t_compose.next = true;
                    self.ans_pend.d.next = false;
                }
                if !(self.cmd_pend.q.val()
                    | self.instr_pend.val()
                    | self.ent_pend.q.val()
                    | self.ans_pend.q.val()
                    | self.composer.busy.val())
                {
                    self.state.d.next = CfeState::Idle;
                    if self.await_tail.q.val() {
                        self.in_tail.d.next = true;
                        self.state.d.next = CfeState::Tail;
                    } else if self.probing.q.val() {
                        // The ack is out: what does the segment wait for?
                        self.state.d.next = CfeState::Fetch;
                    }
                }
            }
            CfeState::Tail => {
                // The arrival's frame has ended (its command was taken; the splitter reports
                // its last beat): commit what it did, or undo it.
                self.in_tail.d.next = !self.tail_in.q.val();
                if self.tail_in.q.val() {
                    self.tail_in.d.next = false;
                    self.await_tail.d.next = false;
                    self.fusing.d.next = false;
                    self.state.d.next = CfeState::Idle;
                }
                if self.tail_good.val() {
                    if self.verdict.q.val().store {
                        self.ev.next.stored = true;
                        if self.fusing.q.val() {
                            // The pass that took the arrival: its result register present
                            // (`t_produce`), and the program goes on.
                            if self.step.last_sub.val() {
                                self.advancing.d.next = true;
                                self.state.d.next = CfeState::Fetch;
                            } else {
                                self.sub.d.next = true;
                                self.state.d.next = CfeState::Read;
                            }
                        }
                    } else {
                        if self.verdict.q.val().cancel {
                            self.ev.next.aborted = true;
                        }
                        if self.verdict.q.val().dup {
                            self.ev.next.duplicates = true;
                        }
                        if self.verdict.q.val().drop
                            | (self.verdict.q.val().faulty & !self.verdict.q.val().is_req)
                        {
                            self.ev.next.engine_drops = true;
                        }
                        if self.verdict.q.val().faulty & self.verdict.q.val().is_req {
                            self.ev.next.errors = true;
                        }
                        if self.verdict.q.val().resend {
                            if self.ep_match.q.val() {
                                // A lost answer: the done context's last micro-op, the step
                                // of this rank, runs again (`Fetch` … `Send`, then `Idle`).
                                self.ev.next.resent = true;
                                self.cur.d.next = self.contexts.ctx.val();
                                self.l_cur_is.next = self.contexts.ctx_is.val();
                                self.cur_src.d.next = bits::<2>(2);
                                self.sub.d.next = self.arr_reg_r.q.val().get_bit(0);
                                self.resending.d.next = true;
                                self.state.d.next = CfeState::Fetch;
                            } else {
                                // Another endpoint (another job reusing the key): refused as
                                // the history would.
                                self.ev.next.duplicates = true;
                                self.ans_pend.d.next = true;
                                self.ans_err.d.next = true;
                                self.ans_code.d.next = self.err_stale.val();
                                self.state.d.next = CfeState::Emit;
                            }
                        }
                        // An error answer or an ack to a request ([`EntryComposer`] builds
                        // it, started from `emit`).
                        if self.verdict.q.val().answer_error | self.verdict.q.val().ack {
                            self.ans_pend.d.next = true;
                            self.ans_err.d.next = self.verdict.q.val().answer_error;
                            self.ans_code.d.next = self.verdict.q.val().code;
                            self.state.d.next = CfeState::Emit;
                        }
                        if self.verdict.q.val().ack {
                            // The rank waited an RTO and its segment is still open here: after
                            // the ack, the segment's next micro-op is looked at (a register
                            // from another board lost on the way is nacked).
                            self.probing.d.next = true;
                            self.cur.d.next = self.contexts.ctx.val();
                            self.l_cur_is.next = self.contexts.ctx_is.val();
                            self.cur_src.d.next = bits::<2>(2);
                        }
                        if self.verdict.q.val().pend {
                            // A nack for a segment not started here (a late rank): this
                            // board is alive, the segment will come.
                            self.ans_pend.d.next = true;
                            self.ans_err.d.next = false;
                            self.ans_board.d.next = true;
                            self.ev.next.pendings = true;
                            self.state.d.next = CfeState::Emit;
                        }
                        if self.verdict.q.val().nack {
                            // Another board lacks a frame of this segment: the context's
                            // program is read backwards from its counter for the pass that
                            // sent it.
                            self.cur.d.next = self.contexts.ctx.val();
                            self.l_cur_is.next = self.contexts.ctx_is.val();
                            self.cur_src.d.next = bits::<2>(2);
                            self.scan_addr.d.next = self.contexts.ctx_pc.val();
                            self.scan_pc.d.next = self.contexts.ctx_pc.val();
                            self.scan_fill.d.next = bits::<2>(0);
                            self.state.d.next = CfeState::Scan;
                        }
                    }
                }
            }
            CfeState::Fetch => {
                self.state.d.next = CfeState::Load;
            }
            CfeState::Load => {
                self.state.d.next = CfeState::Decide;
            }
            CfeState::Decide => {
                // The first step of a micro-op answers local rank 0; a resend the rank asking.
                self.sub.d.next = self.resending.q.val() & self.sub.q.val();
                // The stored arrival's splitter command and CIPE input instruction (store the
                // payload into its register's buffer) are loaded on every `Decide`, whichever
                // way it goes: no instruction is pending here (`Send` and `Emit` wait for
                // that; an arrival's command, sent from `Arrive`, may be, and is reloaded
                // unchanged), the pending flags below say whether they count, and `Issue`
                // reloads the instruction. So the
                // two registers' load enables are the state alone, not the micro-op's decode
                // (the board's worst path at 94.9 MHz: microcode RAM → decode → `ins` enable).
                self.cmd.d.next = self.arrival_cmd.val();
                self.ins.d.next = self.instr_none.val();
                self.ins.d.next.op = self.arrival.reduce_op.val();
                self.ins.d.next.datatype = self.arrival.datatype.val();
                self.ins.d.next.opcode = self.op_input.val();
                self.ins.d.next.slot_d = (bit_cast::<7, 3>(self.cur.q.val()) << 3)
                    | bit_cast::<7, 3>(self.arr_reg_r.q.val());
                self.ins.d.next.store = true;
                self.ins.d.next.count = self.arrival.words.val();
                // The pass that would take the arrival, from this clock's decode (also loaded
                // on every `Decide`; `fuse_go` says whether it counts): the decode's `fused`,
                // which is its pass when the step takes the arrival, without the operand
                // checks that decide whether it does (uop_r → those → `ins_f` was board64's
                // worst path at b2b3d5d, seed 1). The arrival's reduce op, datatype and words
                // are the segment's (a mismatch is refused in `Judge`).
                self.ins_f.d.next = self.fused_ins.val();
                self.ins_f.d.next.op = self.arrival.reduce_op.val();
                self.ins_f.d.next.datatype = self.arrival.datatype.val();
                self.ins_f.d.next.count = self.arrival.words.val();
                self.ins_f_ahead.d.next.valid = self.arrival.has_words.val();
                self.ins_f_ahead.d.next.one = self.arrival.words_one.val();
                self.ins_f_ahead.d.next.two = self.arrival.words_two.val();
                self.ins_f_ahead.d.next.after2 = self.arrival.words_after2.val();
                self.fuse_go.d.next = false;
                self.f_sel.d.next = false;
                if self.probing.q.val() {
                    // After an ack: the segment waits for register `missing` of its next
                    // micro-op (or runs, or is done: nothing to nack). The input map's word
                    // for it is read next (`Probe`).
                    self.nack_reg.d.next = self.step.missing.val();
                    self.scan_addr.d.next = self.end_r.q.val();
                    if self.step.missing.val().get_bit(2) {
                        self.scan_addr.d.next = self.end_r.q.val() + bits::<12>(1);
                    }
                    self.state.d.next = CfeState::Idle;
                    if !self.contexts.at_end.val() & !self.step.ready.val() {
                        self.keep_uop.d.next = true;
                        self.resending.d.next = true;
                        self.state.d.next = CfeState::Probe;
                    }
                } else if self.fusing.q.val() {
                    // The pass takes the arrival; or a step with nothing to send (a local
                    // prefix of one rank) runs and the next is looked at; or the arrival is
                    // stored, to be read by a later pass. The pass's instruction goes now:
                    // set on the decode's `fuses` and `has_instr` alone (no flag is pending
                    // in `Decide`, so the other ways leave both flags clear).
                    if !self.contexts.at_end.val() & self.fused_instr.val() {
                        self.ins_pend_f.d.next = true;
                    }
                    if !self.contexts.at_end.val()
                        & (self.step.fuses.val() | (self.step.ready.val() & self.step.idle.val()))
                    {
                        // The pass takes the arrival (whose payload words, commanded in
                        // `Arrive`, wait at the CIPE's input: the CIPE takes them in order,
                        // and every earlier instruction that takes words had its frame's tail
                        // before this arrival was looked at). Its instruction goes now (a
                        // pass's decode does not depend on the stored request, which the
                        // request RAM gives only in `Read`).
                        self.fuse_go.d.next = self.step.fuses.val();
                        self.f_sel.d.next = true;
                        self.state.d.next = CfeState::Read;
                    } else {
                        self.fusing.d.next = false;
                        // A payload is stored by the CIPE input instruction loaded above (its
                        // splitter command went out in `Arrive`).
                        if self.arrival.has_words.val() {
                            self.ins_pend_s.d.next = true;
                        }
                        self.state.d.next = CfeState::Emit;
                    }
                } else if self.contexts.at_end.val() {
                    self.retiring.d.next = true;
                    self.state.d.next = CfeState::Retire;
                } else if self.step.ready.val() {
                    self.state.d.next = CfeState::Read;
                } else {
                    self.t_park.next = true;
                    self.state.d.next = CfeState::Idle;
                }
            }
            CfeState::Probe => {
                self.state.d.next = CfeState::Map;
            }
            CfeState::Map => {
                // The input map's word is out of the program RAM: the board that sends the
                // register.
                self.nack_board.d.next = bit_cast::<8, 32>(
                    self.conf.uop.val()
                        >> (bit_cast::<32, 3>(self.nack_reg.q.val() & bits::<3>(3)) << 3),
                );
                self.state.d.next = CfeState::Read;
            }
            CfeState::Scan => {
                self.scan_addr.d.next = self.scan_addr.q.val() - bits::<12>(1);
                self.scan_at1.d.next = self.scan_addr.q.val();
                self.scan_at2.d.next = self.scan_at1.q.val();
                if self.scan_fill.q.val() != bits::<2>(2) {
                    self.scan_fill.d.next = self.scan_fill.q.val() + bits::<2>(1);
                } else if self.scan_found.val() {
                    // Sent again from the register that holds it (`Read` … `Send`, then `Idle`).
                    self.keep_uop.d.next = true;
                    self.nack_resend.d.next = true;
                    self.resending.d.next = true;
                    self.ev.next.nack_resends = true;
                    self.state.d.next = CfeState::Read;
                } else if self.step.word.val().kind == self.kind_local_prefix.val() {
                    // The program's first micro-op: this board has not sent that frame yet.
                    // An open segment answers `pending` (it waits for its own inputs), unless
                    // it is silent itself (its own partner is gone: so is this one, for the
                    // nacking board); a done one never sends it (a stray nack).
                    self.state.d.next = CfeState::Idle;
                    if self.contexts.done.val() | self.contexts.silent.val() {
                        self.ev.next.engine_drops = true;
                    } else {
                        self.ans_pend.d.next = true;
                        self.ans_err.d.next = false;
                        self.ans_board.d.next = true;
                        self.ev.next.pendings = true;
                        self.state.d.next = CfeState::Emit;
                    }
                }
            }
            CfeState::Read => {
                self.st_ins.d.next = self.step_ins.val();
                self.st_has_instr.d.next = self.step.has_instr.val();
                self.st_has_entry.d.next = self.step.has_entry.val();
                self.st_produce.d.next = self.step.produce.val();
                self.st_dst_reg.d.next = self.step.dst_reg.val();
                self.st_fused.d.next = self.fused_step.val();
                self.fuse_go.d.next = false;
                if self.fuse_go.q.val() {
                    // The pass that takes the arrival (its instruction went out in `Decide`):
                    // the entry of the frame it sends is composed now (the request it is built
                    // from is out of the request RAM since `Decide`); `Issue` leaves both.
                    self.t_compose.next = self.step.has_entry.val();
                }
                if self.probing.q.val() {
                    // A nack, if the input map names a board.
                    self.st_has_instr.d.next = false;
                    self.st_has_entry.d.next = self.nack_board.q.val() != self.no_board.val();
                    self.st_produce.d.next = false;
                    self.st_fused.d.next = false;
                }
                self.state.d.next = CfeState::Issue;
            }
            CfeState::Issue => {
                // The frame: a partial/result to another board, or an answer to local rank l.
                self.t_compose.next = self.st_has_entry.q.val() & !self.st_fused.q.val();
                self.ev.next.nacks = self.probing.q.val() & self.st_has_entry.q.val();
                if !self.st_fused.q.val() {
                    self.ins.d.next = self.st_ins.q.val();
                    self.ins.d.next.op = self.composer.reduce_op.val();
                    self.ins.d.next.datatype = self.composer.datatype.val();
                    self.ins.d.next.count = self.contexts.words.val();
                    self.ins_pend.d.next = self.st_has_instr.q.val();
                    self.f_sel.d.next = false;
                }
                // The waiting arrival streams into this pass: its command went out in
                // `Decide`.
                // A stored result makes its register present (a pass that takes the arrival:
                // once its tail is known good, in `Tail`): `t_produce`, after the states.
                self.state.d.next = CfeState::Send;
            }
            CfeState::Send => {
                if !(self.cmd_pend.q.val()
                    | self.instr_pend.val()
                    | self.ent_pend.q.val()
                    | self.composer.busy.val())
                {
                    if self.resending.q.val() {
                        // The answer is sent again; the done context stays as it was.
                        self.resending.d.next = false;
                        self.state.d.next = CfeState::Idle;
                    } else if self.st_fused.q.val() {
                        // The pass took the arrival: on once its tail is known.
                        self.in_tail.d.next = true;
                        self.state.d.next = CfeState::Tail;
                    } else if self.step.last_sub.val() {
                        self.advancing.d.next = true;
                        self.state.d.next = CfeState::Fetch;
                    } else {
                        self.sub.d.next = true;
                        self.state.d.next = CfeState::Read;
                    }
                }
            }
            CfeState::Retire => {
                self.blocked.d.next = false;
                self.ev.next.retired = true;
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
            CfeState::Judge => {
                self.state_code.next = bits::<4>(2);
            }
            CfeState::Arrive => {
                self.state_code.next = bits::<4>(3);
            }
            CfeState::Emit => {
                self.state_code.next = bits::<4>(4);
            }
            CfeState::Fetch => {
                self.state_code.next = bits::<4>(5);
            }
            CfeState::Load => {
                self.state_code.next = bits::<4>(6);
            }
            CfeState::Decide => {
                self.state_code.next = bits::<4>(7);
            }
            CfeState::Read => {
                self.state_code.next = bits::<4>(8);
            }
            CfeState::Issue => {
                self.state_code.next = bits::<4>(9);
            }
            CfeState::Send => {
                self.state_code.next = bits::<4>(10);
            }
            CfeState::Retire => {
                self.state_code.next = bits::<4>(11);
            }
            CfeState::Tail => {
                self.state_code.next = bits::<4>(12);
            }
            CfeState::Scan => {
                self.state_code.next = bits::<4>(13);
            }
            CfeState::Probe => {
                self.state_code.next = bits::<4>(14);
            }
            CfeState::Map => {
                self.state_code.next = bits::<4>(15);
            }
            _ => {
                self.state_code.next = bits::<4>(0);
            }
        }
        // `Idle`'s choice of the arrival, the last select in front of the state (above).
        self.take_arrival.next = (self.state.q.val() == CfeState::Idle)
            & !self.reclaiming.q.val()
            & !self.blocked.q.val()
            & self.m_cmd_tready.val()
            & self.frame_valid.val();
        if self.take_arrival.val() {
            self.state.d.next = CfeState::Lookup;
        }
        // Reset: the engine and the context table as at power-on (the counters live in
        // [`crate::statistics`], which the same reset zeroes). The
        // configuration (board, prefix, routes, directory, microcode) is kept: the
        // configuration port rewrites all of it.
        if self.reset.val() {
            self.state.d.next = CfeState::Idle;
            self.in_tail.d.next = false;
            self.in_arrive.d.next = false;
            self.in_issue.d.next = false;
            self.store_now.d.next = false;
            self.alloc_now.d.next = false;
            self.blocked.d.next = false;
            self.reclaiming.d.next = false;
            self.retiring.d.next = false;
            self.advancing.d.next = false;
            self.await_tail.d.next = false;
            self.tail_in.d.next = false;
            self.tail_bad.d.next = false;
            self.verdict.d.next = self.no_verdict.val();
            self.hist_q.d.next = false;
            self.cmd_pend.d.next = false;
            self.ins_pend.d.next = false;
            self.ins_pend_f.d.next = false;
            self.ins_pend_s.d.next = false;
            self.ent_pend.d.next = false;
            self.ans_pend.d.next = false;
            self.ans_board.d.next = false;
            self.fusing.d.next = false;
            self.st_has_instr.d.next = false;
            self.st_has_entry.d.next = false;
            self.st_produce.d.next = false;
            self.st_fused.d.next = false;
            self.fuse_go.d.next = false;
            self.f_sel.d.next = false;
            self.cur.d.next = bits::<3>(0);
            self.l_cur_is.next = bits::<8>(1);
            self.cur_src.d.next = bits::<2>(0);
            self.sub.d.next = false;
            self.resending.d.next = false;
            self.probing.d.next = false;
            self.keep_uop.d.next = false;
            self.nack_resend.d.next = false;
            self.scan_fill.d.next = bits::<2>(0);
        }
        self.events.next = self.ev.val();
        // After every assignment to the three (reset included).
        self.again.d.next =
            self.resending.d.val() & !self.nack_resend.d.val() & !self.probing.d.val();
        // Children's inputs decided above, each assigned once.
        self.cur_is.d.next = self.l_cur_is.val();
        self.conf.route_addr.next = self.route_addr.val();
        self.req_we.next =
            self.arriving.val() & self.live.verdict.val().store & self.verdict.q.val().is_req;
        self.requests0.write_enable.next = self.req_we.val() & !self.req_waddr.val().get_bit(0);
        self.requests1.write_enable.next = self.req_we.val() & self.req_waddr.val().get_bit(0);
        self.req_flags.write_enable.next = self.req_we.val();
        self.requests0.read_address.next = self.cur.q.val();
        self.requests1.read_address.next = self.cur.q.val();
        self.req_lo.d.next = self.req_raddr.val().get_bit(0);
        self.requests0.write_address.next = self.contexts.ctx.val();
        self.requests1.write_address.next = self.contexts.ctx.val();
        self.req_flags.read_address.next = self.req_raddr.val();
        self.req_flags.write_address.next = self.req_waddr.val();
        self.req_flags.write_data.next = self.arr_flags.q.val();
        self.req_eps.write_enable.next = self.req_we.val();
        self.req_eps.write_address.next = self.req_waddr.val();
        self.req_eps.read_address.next = self.req_waddr.val();
        self.req_eps.write_data.next.mac = self.arr_fields.q.val().src_mac;
        self.req_eps.write_data.next.ip = self.arr_fields.q.val().src_ip;
        self.req_eps.write_data.next.port = self.arr_fields.q.val().src_port;
        self.contexts.reset.next = self.reset.val();
        self.contexts.store.next = self.store_now.q.val() & !self.hist_q.q.val();
        self.contexts.alloc.next = self.alloc_now.q.val() & !self.hist_q.q.val();
        self.live.chain.next = self.verdict.q.val();
        self.live.late.next = self.hist_q.q.val();
        self.contexts.alloc_pc.next = self.dir_r.q.val().start;
        self.contexts.alloc_end.next = self.dir_r.q.val().end;
        self.contexts.alloc_at_end.next = self.dir_at_end.q.val();
        self.contexts.alloc_rph2.next = self.arrival.rph2.val();
        self.contexts.alloc_words.next = self.arrival.words.val();
        self.contexts.alloc_len.next = self.arr_len.q.val();
        self.contexts.unstore.next = self.tail_undo.val() & self.verdict.q.val().store;
        self.contexts.unstore_free.next = self.verdict.q.val().alloc;
        self.contexts.cancel.next =
            self.tail_good.val() & !self.verdict.q.val().store & self.verdict.q.val().cancel;
        self.contexts.park.next = self.t_park.val();
        self.contexts.produce.next = self.t_produce.val();
        self.contexts.produce_reg.next = self.st_dst_reg.q.val();
        // The advance decided in `Send` or `Tail`, issued in `Fetch`.
        self.contexts.advance.next = self.advancing.q.val();
        // `retire` and `reclaim` likewise from flip-flops that are high only in `Retire` and
        // in `Idle`'s reclaiming clock (set with the move there, cleared by a reset).
        self.contexts.retire.next = self.retiring.q.val();
        self.contexts.touch.next = self.arriving.val();
        self.contexts.reclaim.next = self.reclaiming.q.val();
        self.contexts.nacked.next =
            self.in_issue.q.val() & self.probing.q.val() & self.st_has_entry.q.val();
        self.contexts.heard.next = self.tail_good.val() & self.verdict.q.val().heard;
        self.contexts.silence_limit.next = self.conf.nack_limit.val();
        self.contexts.age_tick.next = self.time_base.age_tick.val();
        self.contexts.age_limit.next = self.conf.reclaim_ticks.val();
        self.time_base.clock.next = self.clock.val();
        self.time_base.reset.next = self.reset.val();
        self.time_base.period.next = self.conf.tick_period.val();
        self.time_base.pin.next = self.age_tick.val();
        self.composer.clock.next = self.clock.val();
        self.composer.reset.next = self.reset.val();
        self.composer.start.next = self.t_compose.val();
        self.composer.request.next = self.answer_src.val();
        self.composer.err_answer.next = self.ans_pend.q.val() & self.ans_err.q.val();
        self.composer.code.next = self.ans_code.q.val();
        self.composer.ack.next =
            self.ans_pend.q.val() & !self.ans_err.q.val() & !self.ans_board.q.val();
        self.composer.to_board.next =
            self.step.sends.val() | self.probing.q.val() | self.ans_board.q.val();
        self.composer.nack.next = self.probing.q.val();
        self.composer.pending.next = self.ans_board.q.val();
        self.composer.board.next = self.c_board.val();
        self.composer.tag.next = self.c_tag.val();
        self.composer.result.next = self.step.word.val().result;
        self.composer.ports.next = self.conf.route_ports.val();
        self.composer.bytes.next = self.contexts.bytes.val();
        self.composer.data.next =
            self.step.data.val() & !self.probing.q.val() & !self.ans_board.q.val();
        self.composer.my_board.next = self.conf.my_board.val();
        self.composer.ip_prefix.next = self.conf.ip_prefix.val();
        // `scan_found` reads it only in `Scan` with `scan_fill` at 2, whose clock before was
        // `Scan` too (only `Tail` enters `Scan`, with `scan_fill` at 0): on that clock
        // `scan_at2` loads `scan_at1` and `scan_pc` holds, so their next values are those
        // flip-flops as they are.
        self.scan_ne.d.next = self.scan_at1.q.val() != self.scan_pc.q.val();
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

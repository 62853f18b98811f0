//! The CFE's context table: the segments in flight, and the history of completed ones.
//!
//! A context holds one segment's state: its key (communicator, operation, segment index), the
//! parameters every frame of the segment must agree on (`sig`), the program counter and end of
//! its program, which of its [`REGS`] registers hold data (`present`),
//! whether two ranks share the host, the segment's words and bytes, and `dirty` — news the
//! program has not looked at yet. The history remembers the last [`HISTORY`] completed or
//! aborted keys, so late duplicates are dropped instead of opening a context that would never
//! complete; behind them, every key filed goes into the long history ([`KeyHistory`], 1,024
//! keys in block RAM), so a replay of a segment finished long ago is recognised too.
//!
//! The arrival's lookup is registered: on a clock with `lookup` high, `key`, `sig` and
//! `arr_reg` are compared with every context and the eight recent keys, and the verdict
//! (`hit`, `done`, `late`, `sig_match`, `present`, `has_free`, `ctx`) comes out of flip-flops
//! from the next clock until the next lookup, unchanged by the commands in between (the
//! engine acts on the arrival with it, from `Judge` to the arrival's `Tail`). The 48-bit key
//! compares are a clock ahead of that: every clock, `peek_key` (the key looked up the next
//! clock) is compared with every context's key and every recent key, and `peek_sig` (the
//! signature looked up the next clock) with every context's signature, and the answers
//! are registered, each with its context's or recent key's valid flag ANDed in (a key filed
//! two clocks before the lookup, in the ring's staging register then, is compared there). So on
//! the clock before a lookup no command may write or file a key (`store` with `alloc`,
//! `cancel`, `retire`, `reclaim`): the engine's `Idle`, which takes the arrival then, issues
//! only `reclaim`, and never on that clock. (The context a miss takes, the first free one or,
//! with none free, the oldest done one, is found the clock before the lookup and read from
//! registers for the same reason; so no `unstore` with `unstore_free`, which frees a context,
//! may come then either: the engine gives it only in `Tail`. A `reset` may: it registers
//! context 0, free after it.) The long history's answer
//! (`hist_late`) comes a clock after the lookup's, an AND of compares registered the clock
//! before (`peek_key` asked for it two clocks before; `key` must be the arrival's from the
//! lookup's clock on). The engine holds the arrival for a
//! clock with no command (its `Lookup` state), judges it the next (`Judge`) and acts on it the
//! clock after (`Arrive`); `store`, `alloc` and `cancel` use that registered verdict.
//! (Compares across eight contexts and eight history keys, then the verdict, then the write
//! enables, were too deep for one clock.) The running
//! context (`cur`) is read out and the lowest context with news (`pick`) found
//! combinationally. `advance` and `retire` come only when `cur` held over the clock edge
//! before (the engine sets `cur` in `Idle`, `Arrive` and `Tail`, and gives those commands in
//! `Fetch` after `Send` or `Tail`, and in `Retire` after `Decide`): `pc_r`, `cur`'s counter
//! after them, is stepped from its own flip-flop. No command that sets or clears a done flag
//! (`store` with `alloc`, `retire`, `reset`) comes the clock before a `retire` (the engine's
//! `Decide` gives none), so whether `cur` is done is read from a flip-flop loaded the clock
//! before. Changes are commands, at most one per cycle,
//! taken on the clock edge:
//!
//! | command   | effect |
//! |-----------|--------|
//! | `store`   | register `arr_reg` of context `ctx` (hit, else the free one) present, news; with `alloc` (never without `store`) the context is opened with `alloc_*` |
//! | `unstore` | undoes a `store` whose frame turned out bad at its tail: register `arr_reg` of context `ctx` absent again; with `unstore_free` (the store opened it) the context freed, its key not filed (a good retransmission opens it again) |
//! | `cancel`  | the hit context (if any) freed; the key filed in the history unless among the eight recent keys |
//! | `park`    | `cur` has no news (its program waits for data) |
//! | `produce` | register `produce_reg` of `cur` present (a stored result) |
//! | `advance` | `cur`'s program counter + 1 |
//! | `retire`  | `cur` done (below), its key filed in the history |
//! | `touch`   | the hit context's age back to 0 (any arrival for it: a retransmission shows its ranks are alive) |
//! | `reclaim` | the `expired` context freed, its key filed in the history |
//! | `nacked`  | `cur` sent a nack: its silence + 1 (saturating) |
//! | `heard`   | the hit context heard from its partner (a `pending`): its silence back to 0 |
//!
//! **Silence** (docs/recovery.md, "A partner that answers nothing"): every context counts the
//! nacks it sent since it last stored anything or heard a `pending` from a partner. At
//! `silence_limit` (0: never) it is `silent`: its partner is taken as dead or cut off, and the
//! engine answers its ranks' retransmissions with `timeout` and stops answering nacks for it.
//! (A new `silence_limit` counts from the clock after the one it is set on: each context's
//! mute flag is registered from its count's next value and the limit.)
//!
//! **Ageing** (self-reclaiming contexts): every open context counts the time-base ticks (`age_tick`)
//! since it last made progress (a store or a touch: data or a retransmission arrived; a program
//! runs only on arrived data, for microseconds, so its steps need not count);
//! once its age reaches `age_limit` (0: never) it is `expired`, and the engine reclaims it,
//! as if its ranks had aborted: a job killed mid-collective cannot leak it. `expired`
//! (the lowest such context, `expired_ctx`) comes out of two register stages (which contexts
//! expired; the lowest and its key) and is low unless neither of those clocks had a command,
//! so a reclaim acts on a context exactly as it was when found expired.
//!
//! **Retained results** (docs/recovery.md): a retired context is not freed but *done*. It keeps
//! its key, parameters, registers and buffers, its program counter moved back to the
//! program's last micro-op (the `Respond`/`RespondPrefix` that answered its local ranks), so the
//! engine can send a lost answer again. A done context still `hit`s its key (with `done`), is
//! never picked (no news) and never expires; it is allocatable: a new segment takes a free
//! context first, else the done context that retired first (a queue of done contexts in
//! retirement order), whose key is in the history already. Nothing else frees a done context
//! (`cancel`, `unstore` and `retire` leave it alone; `reclaim` never finds it).
//!
//! `reset` frees every context, zeroes the ages and forgets the history.

use collwire_proto::limits;
use rust_hdl::prelude::*;

use crate::key_history::KeyHistory;

/// Contexts (segments in flight); each owns [`REGS`] CIPE buffers.
pub const CONTEXTS: usize = limits::CONTEXTS;
/// Registers (CIPE packet buffers) per context.
pub const REGS: usize = 8;
/// Completed segment keys remembered, so late duplicates are dropped and not re-run.
pub const HISTORY: usize = 8;
/// Bits of a context's age in time-base ticks (it saturates).
pub const AGE_BITS: usize = 16;
/// Bits of a context's silence, in nacks sent without an answer (it saturates).
pub const SILENCE_BITS: usize = 4;

#[derive(LogicBlock)]
pub struct ContextTable {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // The arrival looked up.
    pub key: Signal<In, Bits<48>>,
    /// Look `key` up this clock (its answers out from the next clock until the next lookup).
    pub lookup: Signal<In, Bit>,
    /// The key looked up the next clock (`key` then), its answers out two clocks later: the
    /// key compares are registered a clock ahead of the lookup (module doc), and the long
    /// history reads its block RAM and registers the words before it compares
    /// ([`KeyHistory`]).
    pub peek_key: Signal<In, Bits<48>>,
    /// The signature looked up the next clock (`sig` then): compared with every context's a
    /// clock ahead of the lookup, as `peek_key`.
    pub peek_sig: Signal<In, Bits<88>>,
    /// The arrival's signature: written with `store` and `alloc`.
    pub sig: Signal<In, Bits<88>>,
    pub arr_reg: Signal<In, Bits<3>>,
    /// A context holds `key` (this and the next six: the last lookup's answers).
    pub hit: Signal<Out, Bit>,
    /// The hit context is done (its segment completed, its result retained).
    pub done: Signal<Out, Bit>,
    /// A context can be allocated: a free one, else the oldest done one.
    pub has_free: Signal<Out, Bit>,
    /// The looked-up key is among the eight most recent keys filed (completed, aborted,
    /// reclaimed).
    pub late: Signal<Out, Bit>,
    /// `key` is in the long history ([`KeyHistory`]), when `peek_key` announced it two clocks
    /// ahead (combinational: the engine judges with it a clock after `late`).
    pub hist_late: Signal<Out, Bit>,
    /// The hit context's parameters equal `sig` (false on a miss).
    pub sig_match: Signal<Out, Bit>,
    /// The hit context has register `reg` already (false on a miss).
    pub present: Signal<Out, Bit>,
    /// The context an arrival goes to: the hit one, else the lowest free one, else the done
    /// one that retired first.
    pub ctx: Signal<Out, Bits<3>>,
    /// `ctx` one-hot (bit `c`: `ctx` is context `c`), from the flip-flops `ctx` is registered
    /// in beside it: the engine loads its one-hot `cur_is` from it.
    pub ctx_is: Signal<Out, Bits<8>>,
    /// `ctx`'s program counter (with `hit`, the micro-op the arrival's segment runs next: the
    /// engine reads it from the program RAM while it judges the arrival). From a flip-flop
    /// the lookup loads and the commands on `ctx`'s context step (the same value as a read
    /// through `ctx`, without the 8:1 select in front of the program RAM's address). Valid
    /// from the clock after a lookup; the engine gives no command in a lookup's clock.
    pub ctx_pc: Signal<Out, Bits<12>>,
    /// `ctx`'s present mask (the engine computes what a `store` makes of it).
    pub ctx_present: Signal<Out, Bits<8>>,
    // The running context.
    pub cur: Signal<In, Bits<3>>,
    /// `cur` one-hot (bit `c`: `cur` is context `c`), from a register the engine loads with
    /// `cur`. It selects `at_end` (an AND-OR of eight flip-flops, not `cur` → the 8:1 select:
    /// `cur` → `at_end` → the engine's next state was board64's worst path at 94c0d61).
    pub cur_is: Signal<In, Bits<8>>,
    pub pc: Signal<Out, Bits<12>>,
    /// The program counter of the context that was `cur` a clock ago, as it is now (the
    /// commands of that clock applied; context 0's after a reset, which makes the engine's
    /// `cur` 0): `pc` whenever `cur` held over the last clock edge. From a flip-flop: the
    /// engine addresses its program RAM with it.
    pub pc_r: Signal<Out, Bits<12>>,
    pub end_pc: Signal<Out, Bits<12>>,
    /// `pc` is `end_pc` (the program is done), from a flip-flop per context: a clock late
    /// after an `advance` or `retire` of `cur` (the engine reads it in `Decide`, at least two
    /// clocks after either: an advance is issued in `Fetch`, `Load` comes between), on time
    /// after an `alloc` (`alloc_at_end`).
    pub at_end: Signal<Out, Bit>,
    pub present_mask: Signal<Out, Bits<8>>,
    pub rph2: Signal<Out, Bit>,
    pub words: Signal<Out, Bits<12>>,
    /// `words` is not zero, from a flip-flop per context set with the words (the engine's
    /// `cur_has_words` took the 12-bit compare after the 8:1 select of `words`: `cur` →
    /// `cur_has_words` was board64's second-latest endpoint on seed 2 at e44ab6b, 7.21 ns).
    pub has_words: Signal<Out, Bit>,
    pub bytes: Signal<Out, Bits<16>>,
    /// The lowest context with news, if `pick_found`.
    pub pick: Signal<Out, Bits<3>>,
    pub pick_found: Signal<Out, Bit>,
    /// `pick` one-hot (0 without `pick_found`).
    pub pick_is: Signal<Out, Bits<8>>,
    /// The program counter of the context that was `pick` a clock ago, as it was then (from
    /// a flip-flop, as `pc_r`; the engine reads it after `Idle`, which gives no command that
    /// moves a counter).
    pub pick_pc: Signal<Out, Bits<12>>,
    // Commands.
    pub store: Signal<In, Bit>,
    /// Only with `store` (the engine's verdict allocates only what it stores): the wide
    /// fields an `alloc` opens (key, signature, end, words, bytes) are loaded on `alloc` and
    /// `r_ctx_is` alone, so their 170-odd enables per context hang on a net of their own and
    /// not on the store-and-alloc strobe, which also drives the done flags, the counters and
    /// the present masks (`store_now` → that strobe, 202 loads per context → `c_at_end` was
    /// board64's worst path on seed 2 at 2728133, 6.84 ns, 5.7 ns of it routing).
    pub alloc: Signal<In, Bit>,
    pub alloc_pc: Signal<In, Bits<12>>,
    pub alloc_end: Signal<In, Bits<12>>,
    /// `alloc_pc` = `alloc_end` (the program is empty), from the engine's flip-flop: the
    /// context's done flag is loaded with it, not with a compare of the two.
    pub alloc_at_end: Signal<In, Bit>,
    pub alloc_rph2: Signal<In, Bit>,
    pub alloc_words: Signal<In, Bits<12>>,
    pub alloc_len: Signal<In, Bits<16>>,
    pub unstore: Signal<In, Bit>,
    pub unstore_free: Signal<In, Bit>,
    pub cancel: Signal<In, Bit>,
    pub park: Signal<In, Bit>,
    pub produce: Signal<In, Bit>,
    pub produce_reg: Signal<In, Bits<3>>,
    pub advance: Signal<In, Bit>,
    pub retire: Signal<In, Bit>,
    pub touch: Signal<In, Bit>,
    pub reclaim: Signal<In, Bit>,
    /// The time base: every open context ages by one on each clock this is high.
    pub age_tick: Signal<In, Bit>,
    /// Ticks without progress after which a context expires; 0: never.
    pub age_limit: Signal<In, Bits<AGE_BITS>>,
    /// A context has expired (registered; see the module doc), the lowest is `expired_ctx`.
    pub expired: Signal<Out, Bit>,
    pub expired_ctx: Signal<Out, Bits<3>>,
    pub nacked: Signal<In, Bit>,
    pub heard: Signal<In, Bit>,
    /// Nacks without an answer after which a context is `silent`; 0: never. Read into the
    /// mute flags (`c_mute`) a clock ahead: a change counts from the clock after.
    pub silence_limit: Signal<In, Bits<SILENCE_BITS>>,
    /// The lookup's context (`ctx`, with `hit`) is silent (a clock late after a `nacked`).
    pub silent: Signal<Out, Bit>,
    c_silence: [DFF<Bits<SILENCE_BITS>>; 8],
    /// The context's silence is at the limit: registered from the silence's next value (after
    /// every command and the reset) and the limit, so `c_mute.q` goes with `c_silence.q` and
    /// `r_silent` selects flip-flops (it selected this compare's output, after the commands:
    /// `silence_limit` → the compare → the select → `r_silent` was board64's worst path on
    /// seed 2 at c08749e, 7.03 ns).
    c_mute: [DFF<Bit>; 8],
    /// `silence_limit` − 1 (a count + 1 reaches the limit when the count reaches this).
    limit_less1: Signal<Local, Bits<SILENCE_BITS>>,
    silence_max: Constant<Bits<SILENCE_BITS>>,
    /// `silent` from a flip-flop: each context's `c_mute` flip-flop, selected by `ctx`'s next
    /// value (on a lookup the hit context or the one a miss takes, as `hit_pc` and `miss_pc`
    /// are; else `ctx` as it is); low after a reset. Not `c_mute`
    /// selected by `ctx` a clock later: `ctx` → 8:1 select → the engine's `Scan` decision
    /// was the CFE's worst path, seed 2, once the counters no longer were.
    r_silent: DFF<Bit>,
    s_keep: Signal<Local, Bit>,
    s_hit: Signal<Local, Bit>,
    s_miss: Signal<Local, Bit>,
    index: [Constant<Bits<3>>; 8],
    age_max: Constant<Bits<AGE_BITS>>,
    c_age: [DFF<Bits<AGE_BITS>>; 8],
    /// Expiry, stage 1: the lowest context that has expired (at most one bit set), and no
    /// command this clock. The lowest is found here, from the age compares (`exp_now`), so
    /// stage 2 selects the key and number with an AND-OR of flip-flops. (A priority select
    /// over the eight expired flags in stage 2, a select that also drove the 48 key bits'
    /// multiplexers, was board64's worst path on seed 3 at df3a419: 4 cells, 7.2 ns of
    /// route, 123.8 MHz.)
    r_exp_vec: [DFF<Bit>; 8],
    /// The contexts that expire now, one bit each.
    exp_now: Signal<Local, Bits<8>>,
    r_quiet: DFF<Bit>,
    /// Stage 2: the lowest expired context and its key (no command the clock before;
    /// `expired_now` adds the clock after).
    r_expired: DFF<Bit>,
    /// `r_expired` and still no command (`r_quiet`): what the table's users see.
    expired_now: Signal<Local, Bit>,
    r_exp_idx: DFF<Bits<3>>,
    r_exp_key: DFF<Bits<48>>,
    exp_found: Signal<Local, Bit>,
    exp_idx: Signal<Local, Bits<3>>,
    exp_key: Signal<Local, Bits<48>>,
    /// Some command changes the table this clock.
    any_command: Signal<Local, Bit>,
    valid: [DFF<Bit>; 8],
    /// Completed, result retained (valid too).
    c_done: [DFF<Bit>; 8],
    /// The done contexts in retirement order: `d_fifo[d_head]` is the oldest, `d_count` many.
    d_fifo: [DFF<Bits<3>>; 8],
    d_head: DFF<Bits<3>>,
    d_count: DFF<Bits<4>>,
    /// Where the next retired context is queued (`d_head + d_count`).
    d_tail: Signal<Local, Bits<3>>,
    /// The oldest done context.
    d_oldest: Signal<Local, Bits<3>>,
    /// The context a miss takes (the first free one, else the oldest done one), found the
    /// clock before the lookup from the flags as they are then and registered, one-hot
    /// (`r_miss_is`, context 0 at power-on), numbered (`r_miss_idx`), and whether one is free
    /// (`r_any_free`, high at power-on). No command that opens or frees a context or moves the
    /// queue of done ones comes the clock before a lookup (the module doc), so these are the
    /// lookup's own. The lookup then only picks between the hit context and this one: an
    /// AND-OR of flip-flops selects its counter and mute. (The first-free search on the valid
    /// flags, then the select of its counter, then the choice between free and oldest, then
    /// the hit's, in front of `r_ctx_pc` was board64's worst path on seed 5 at 07ea5f7, 8
    /// cells; the oldest done context was registered for the same reason before: `d_head` →
    /// `d_fifo` → `r_ctx_pc` on one seed, and at 13a42b1 the table's deepest path, 9 levels.)
    r_miss_is: DFFWithInit<Bits<8>>,
    r_miss_idx: DFF<Bits<3>>,
    r_any_free: DFFWithInit<Bit>,
    miss_is_next: Signal<Local, Bits<8>>,
    l_oldest_is: Signal<Local, Bits<8>>,
    /// The open contexts, one bit each.
    valid_vec: Signal<Local, Bits<8>>,
    /// The contexts below context `c` (bit `j` for `j < c`).
    below: [Constant<Bits<8>>; 8],
    /// The lookup's allocatable context is the oldest done one (no context free): an `alloc`
    /// into it takes it off the queue.
    r_evict: DFF<Bit>,
    r_done: DFF<Bit>,
    l_done: Signal<Local, Bit>,
    /// A context is free now, and the first free one (number, one-hot): for the next
    /// clock's lookup, through `r_miss_is`.
    any_free: Signal<Local, Bit>,
    dirty: [DFF<Bit>; 8],
    c_key: [DFF<Bits<48>>; 8],
    c_sig: [DFF<Bits<88>>; 8],
    c_pc: [DFF<Bits<12>>; 8],
    /// Each context's program counter after this clock's commands (`c_pc`'s input).
    nx_pc: [Signal<Local, Bits<12>>; 8],
    /// `pc_r`, `pick_pc`, `ctx_pc`: the counters of `cur` and `ctx` after this clock's
    /// commands, and `pick`'s as it is, registered.
    r_pc: DFF<Bits<12>>,
    r_pick_pc: DFF<Bits<12>>,
    r_ctx_pc: DFF<Bits<12>>,
    /// `ctx` is `cur`: the commands on `cur` move `ctx`'s counter.
    ctx_is_cur: Signal<Local, Bit>,
    /// `r_pc`'s next value: `cur`'s counter selected by the one-hot `cur_is` (an OR of ANDs)
    /// when no command moves it (`pc_hold`), else an OR of the four other sources, each gated
    /// by its own exclusive condition; not the select followed by four muxes in a row (`cur`
    /// → the select → the priority chain → `r_pc` was board64's worst path on seed 1 at
    /// c08749e, 7.08 ns). The conditions come from the commands' flip-flops alone.
    /// A retire of `cur` that counts (`cur` not done yet); a store that opens `cur`.
    pc_ret: Signal<Local, Bit>,
    pc_alloc: Signal<Local, Bit>,
    pc_back: Signal<Local, Bit>,
    pc_fwd: Signal<Local, Bit>,
    pc_open: Signal<Local, Bit>,
    pc_hold: Signal<Local, Bit>,
    /// `cur`'s counter as it is.
    pc_held: Signal<Local, Bits<12>>,
    pc_opened: Signal<Local, Bits<12>>,
    pc_up: Signal<Local, Bits<12>>,
    pc_down: Signal<Local, Bits<12>>,
    pc_reset: Signal<Local, Bits<12>>,
    /// `cur` is done, as it was on the clock before: read only with `retire`, which never
    /// comes the clock after `cur` changed or after a command that sets or clears a done flag
    /// (see the module's contract). Registered so the 8:1 select of the done flags is not in
    /// front of the counters' selects and the history's file (`cur` → `cur_done` → `r_ctx_pc`,
    /// `r_pc`, `h_valid` were the table's deepest paths at 220af75, 9 levels).
    r_cur_done: DFF<Bit>,
    /// On the lookup's clock, the counter of the context it gives (`ctx`): the hit
    /// context's, ORed from the contexts with their matches (at most one), the first free
    /// context's (taken in the free search's own priority loop), or the oldest done one's. No command comes with a
    /// lookup, so these are the counters after the clock's commands too; `r_ctx_pc` takes
    /// them without the context's number being encoded and decoded again in between (the
    /// matches → `ctx` → its counter was board64's worst path at 127c60c, seed 1).
    hit_pc: Signal<Local, Bits<12>>,
    miss_pc: Signal<Local, Bits<12>>,
    /// `pick`'s counter (0 without one), selected by the pick's tree, not through `pick`.
    pick_or: Signal<Local, Bits<12>>,
    /// The contexts with news (`valid` and `dirty`), one bit each. The lowest is `pick`,
    /// found by a tree: each pair's lower one with news (`p_*`), then each half's (`h_*`),
    /// then the lower half's if it has one. (A chain of eight, each context's test behind
    /// the ones below it, put 8–9 levels in front of `r_pick_pc` and of the CFE's `cur_is`:
    /// among board64's late registers at b953173, seed 1.)
    news: Signal<Local, Bits<8>>,
    /// Each context: some context below it has news.
    news_below: Signal<Local, Bits<8>>,
    p_has: [Signal<Local, Bit>; 4],
    /// The pair's upper context is its lowest with news.
    p_odd: [Signal<Local, Bit>; 4],
    p_pc: [Signal<Local, Bits<12>>; 4],
    h_has: [Signal<Local, Bit>; 2],
    /// The half's lowest context with news, within it.
    h_ix: [Signal<Local, Bits<2>>; 2],
    h_pc: [Signal<Local, Bits<12>>; 2],
    c_end: [DFF<Bits<12>>; 8],
    c_present: [DFF<Bits<8>>; 8],
    c_rph2: [DFF<Bit>; 8],
    c_words: [DFF<Bits<12>>; 8],
    /// `c_words` is not zero (set with it, at an `alloc`).
    c_has_words: [DFF<Bit>; 8],
    c_bytes: [DFF<Bits<16>>; 8],
    /// The recent keys: [`HISTORY`] slots in a ring, written a clock after the file from the
    /// long history's first filing register (`history.staged_key`, with `history.staged`):
    /// the slot `h_ptr` names (one-hot) takes it and the pointer moves on. `file_key` (a
    /// select of three keys behind the commands) drives that one register, not 384 key
    /// flip-flops' inputs beside it (its ten loads a bit, stretched by the placer between the
    /// table and the long history's block RAM, were most of the late endpoints of board64's
    /// bad seeds at cc876b3: 423 of the 542 of seed 4).
    h_valid: [DFF<Bit>; 8],
    h_key: [DFF<Bits<48>>; 8],
    /// One-hot; slot 0 at power-on, as after a reset.
    h_ptr: [DFFWithInit<Bit>; 8],
    /// Context `c` is open and `peek_key` equals its key (registered: the lookup's key
    /// compares, a clock ahead of it; the valid flag is the lookup's too, as no command that
    /// opens or frees a context comes the clock before a lookup, the module doc, and a
    /// `reset` clears it). The hit
    /// then is one flip-flop a context, not a valid flag ANDed in on the lookup's clock
    /// (`k_eq[3]` → the hit's counter select → `r_ctx_pc`, 6 cells, 2.95 ns on its first
    /// net, was board64's worst path on seed 2 at d0ff5a1, 129.8 MHz).
    k_eq: [DFF<Bit>; 8],
    /// Context `2i` or `2i + 1` is open and holds `peek_key` (registered, the OR of their
    /// `k_eq` inputs): the lookup's hit is the OR of these four flip-flops, one gate, not an
    /// OR of the eight `k_eq` on the lookup's clock in front of the selects it drives (`k_eq`
    /// → that OR → the choice between the hit's and the miss's counter → `r_ctx_pc`, 6–7
    /// cells, 1.2 / 5.5–5.8 ns, was board64's worst path on seeds 5 and 1 at 3822ae8, 148.5
    /// and 143.6 MHz). Pairs, not one flip-flop for all eight: the OR of all eight key
    /// compares in front of one flip-flop was seed 1's worst path (7 cells, 1.31 / 5.86 ns).
    k_pair: [DFF<Bit>; 4],
    /// The open contexts whose key equals `peek_key`, one bit each: compared once, for
    /// `k_eq` and `k_pair` both.
    key_match: Signal<Local, Bits<8>>,
    /// Contexts `2i` and `2i + 1`, for `k_pair[i]`.
    pair_mask: [Constant<Bits<8>>; 4],
    /// Recent key `c` is valid, equals `peek_key` and is not being overwritten by the staged
    /// key (registered, as `k_eq`).
    h_eq: [DFF<Bit>; 8],
    /// The staged key (filed the clock before) equals `peek_key` (registered). With `h_eq`,
    /// the keys a lookup sees are the last [`HISTORY`] filed up to two clocks before it, as
    /// when the ring took the key on the file's own clock edge.
    t_eq: DFF<Bit>,
    /// `peek_sig` equals context `c`'s signature (registered, as `k_eq`).
    s_eq: [DFF<Bit>; 8],
    /// Every key filed, kept longer: 1,024 keys in block RAM.
    history: KeyHistory,
    /// The arrival's lookup, registered.
    r_hit: DFF<Bit>,
    r_hit_idx: DFF<Bits<3>>,
    r_has_free: DFF<Bit>,
    r_late: DFF<Bit>,
    r_ctx: DFF<Bits<3>>,
    /// `r_ctx` one-hot (`r_ctx_is[c]`: `r_ctx` is context `c`; context 0 at power-on, as
    /// `r_ctx`): each context's store, unstore and present select reads its own flip-flop,
    /// not a compare of `r_ctx` fanned out to all eight (`r_ctx` → `c_present` was board64's
    /// worst path at 3f048e2 on seeds 1 and 3: 6.9–7.3 ns of route).
    r_ctx_is: [DFFWithInit<Bit>; 8],
    r_sig_match: DFF<Bit>,
    r_present: DFF<Bit>,
    hit_idx: Signal<Local, Bits<3>>,
    free_idx: Signal<Local, Bits<3>>,
    /// The context `l_ctx` names, one-hot, built from the hit context's and `r_miss_is` (not
    /// decoded from `l_ctx`).
    hit_vec: Signal<Local, Bits<8>>,
    free_vec: Signal<Local, Bits<8>>,
    ctx_vec: Signal<Local, Bits<8>>,
    onehot: [Constant<Bits<8>>; 8],
    cur_key: Signal<Local, Bits<48>>,
    cur_done: Signal<Local, Bit>,
    /// A key goes into the history this cycle (the long history's first filing register,
    /// and from there the recent keys' ring, the next).
    file: Signal<Local, Bit>,
    file_key: Signal<Local, Bits<48>>,
    /// The lookup hits (`k_pair`), registered into `r_hit`, which drives `hit`.
    l_hit: Signal<Local, Bit>,
    /// Drives `has_free`, assigned once at the end of `update`.
    l_has_free: Signal<Local, Bit>,
    /// Drives `late`, assigned once at the end of `update`.
    l_late: Signal<Local, Bit>,
    /// Drives `ctx`, assigned once at the end of `update`.
    l_ctx: Signal<Local, Bits<3>>,
    /// Drives `sig_match`, assigned once at the end of `update`.
    l_sig_match: Signal<Local, Bit>,
    /// Drives `present`, assigned once at the end of `update`.
    l_present: Signal<Local, Bit>,
    /// The hit context's register mask (ORed: at most one context hits), indexed by
    /// `arr_reg` only after the OR: the arrival's register decode and the contexts' match
    /// run side by side (`arr_fields` → `arr_reg` → each context's mask → the OR →
    /// `r_present` was board64's worst path on seed 1 at 6102a4a, 8.72 ns).
    hit_present: Signal<Local, Bits<8>>,
    /// Drives `pc`, assigned once at the end of `update`.
    l_pc: Signal<Local, Bits<12>>,
    /// Drives `ctx_present`, assigned once at the end of `update`.
    l_ctx_present: Signal<Local, Bits<8>>,
    /// Drives `end_pc`, assigned once at the end of `update`.
    l_end_pc: Signal<Local, Bits<12>>,
    /// Drives `at_end`, assigned once at the end of `update`.
    l_at_end: Signal<Local, Bit>,
    /// Context `c`'s program counter is at its end (registered).
    c_at_end: [DFF<Bit>; 8],
    /// Drives `present_mask`, assigned once at the end of `update`.
    l_present_mask: Signal<Local, Bits<8>>,
    /// Drives `rph2`, assigned once at the end of `update`.
    l_rph2: Signal<Local, Bit>,
    /// Drives `words`, assigned once at the end of `update`.
    l_words: Signal<Local, Bits<12>>,
    /// Drives `has_words`, assigned once at the end of `update`.
    l_has_words: Signal<Local, Bit>,
    /// Drives `bytes`, assigned once at the end of `update`.
    l_bytes: Signal<Local, Bits<16>>,
    /// Drives `pick`, assigned once at the end of `update`.
    l_pick: Signal<Local, Bits<3>>,
    /// Drives `pick_found`, assigned once at the end of `update`.
    l_pick_found: Signal<Local, Bit>,
    /// Drives `pick_is`, assigned once at the end of `update`.
    l_pick_is: Signal<Local, Bits<8>>,
    /// Drives `ctx_is`, assigned once at the end of `update`.
    l_ctx_is: Signal<Local, Bits<8>>,
}

impl Default for ContextTable {
    fn default() -> Self {
        assert_eq!(CONTEXTS, 8);
        assert_eq!(HISTORY, 8);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            key: Default::default(),
            lookup: Default::default(),
            peek_key: Default::default(),
            peek_sig: Default::default(),
            sig: Default::default(),
            arr_reg: Default::default(),
            hit: Default::default(),
            l_hit: Default::default(),
            done: Default::default(),
            c_done: Default::default(),
            d_fifo: Default::default(),
            d_head: Default::default(),
            d_count: Default::default(),
            d_tail: Default::default(),
            d_oldest: Default::default(),
            r_miss_idx: Default::default(),
            r_miss_is: DFFWithInit::new(bits::<8>(1)),
            r_any_free: DFFWithInit::new(true),
            miss_is_next: Default::default(),
            l_oldest_is: Default::default(),
            valid_vec: Default::default(),
            below: std::array::from_fn(|c| Constant::new(bits::<8>((1 << c) - 1))),
            r_evict: Default::default(),
            r_done: Default::default(),
            l_done: Default::default(),
            any_free: Default::default(),
            has_free: Default::default(),
            l_has_free: Default::default(),
            late: Default::default(),
            hist_late: Default::default(),
            l_late: Default::default(),
            sig_match: Default::default(),
            l_sig_match: Default::default(),
            present: Default::default(),
            l_present: Default::default(),
            hit_present: Default::default(),
            ctx: Default::default(),
            ctx_pc: Default::default(),
            ctx_present: Default::default(),
            l_ctx: Default::default(),
            cur: Default::default(),
            pc: Default::default(),
            l_pc: Default::default(),
            l_ctx_present: Default::default(),
            end_pc: Default::default(),
            l_end_pc: Default::default(),
            at_end: Default::default(),
            l_at_end: Default::default(),
            c_at_end: Default::default(),
            present_mask: Default::default(),
            l_present_mask: Default::default(),
            rph2: Default::default(),
            l_rph2: Default::default(),
            words: Default::default(),
            l_words: Default::default(),
            has_words: Default::default(),
            l_has_words: Default::default(),
            bytes: Default::default(),
            l_bytes: Default::default(),
            pick: Default::default(),
            l_pick: Default::default(),
            pick_found: Default::default(),
            l_pick_found: Default::default(),
            pick_is: Default::default(),
            l_pick_is: Default::default(),
            ctx_is: Default::default(),
            l_ctx_is: Default::default(),
            cur_is: Default::default(),
            store: Default::default(),
            alloc: Default::default(),
            alloc_pc: Default::default(),
            alloc_end: Default::default(),
            alloc_at_end: Default::default(),
            alloc_rph2: Default::default(),
            alloc_words: Default::default(),
            alloc_len: Default::default(),
            unstore: Default::default(),
            unstore_free: Default::default(),
            cancel: Default::default(),
            park: Default::default(),
            produce: Default::default(),
            produce_reg: Default::default(),
            advance: Default::default(),
            retire: Default::default(),
            touch: Default::default(),
            reclaim: Default::default(),
            age_tick: Default::default(),
            age_limit: Default::default(),
            expired: Default::default(),
            expired_ctx: Default::default(),
            nacked: Default::default(),
            heard: Default::default(),
            silence_limit: Default::default(),
            silent: Default::default(),
            c_silence: Default::default(),
            c_mute: Default::default(),
            limit_less1: Default::default(),
            r_silent: Default::default(),
            s_keep: Default::default(),
            s_hit: Default::default(),
            s_miss: Default::default(),
            index: std::array::from_fn(|i| Constant::new(bits::<3>(i as u64))),
            age_max: Constant::new(Bits::<AGE_BITS>::mask()),
            silence_max: Constant::new(Bits::<SILENCE_BITS>::mask()),
            c_age: Default::default(),
            r_exp_vec: Default::default(),
            r_quiet: Default::default(),
            r_expired: Default::default(),
            expired_now: Default::default(),
            r_exp_idx: Default::default(),
            r_exp_key: Default::default(),
            exp_found: Default::default(),
            exp_now: Default::default(),
            exp_idx: Default::default(),
            exp_key: Default::default(),
            any_command: Default::default(),
            valid: Default::default(),
            dirty: Default::default(),
            c_key: Default::default(),
            c_sig: Default::default(),
            c_pc: Default::default(),
            nx_pc: Default::default(),
            r_pc: Default::default(),
            r_pick_pc: Default::default(),
            r_ctx_pc: Default::default(),
            ctx_is_cur: Default::default(),
            pc_ret: Default::default(),
            pc_alloc: Default::default(),
            pc_back: Default::default(),
            pc_fwd: Default::default(),
            pc_open: Default::default(),
            pc_hold: Default::default(),
            pc_held: Default::default(),
            pc_opened: Default::default(),
            pc_up: Default::default(),
            pc_down: Default::default(),
            pc_reset: Default::default(),
            r_cur_done: Default::default(),
            pick_or: Default::default(),
            hit_pc: Default::default(),
            miss_pc: Default::default(),
            news: Default::default(),
            news_below: Default::default(),
            p_has: Default::default(),
            p_odd: Default::default(),
            p_pc: Default::default(),
            h_has: Default::default(),
            h_ix: Default::default(),
            h_pc: Default::default(),
            pc_r: Default::default(),
            pick_pc: Default::default(),
            c_end: Default::default(),
            c_present: Default::default(),
            c_rph2: Default::default(),
            c_words: Default::default(),
            c_has_words: Default::default(),
            c_bytes: Default::default(),
            h_valid: Default::default(),
            h_key: Default::default(),
            h_ptr: std::array::from_fn(|i| DFFWithInit::new(i == 0)),
            k_eq: Default::default(),
            k_pair: Default::default(),
            key_match: Default::default(),
            pair_mask: std::array::from_fn(|i| Constant::new(bits::<8>(3 << (2 * i)))),
            s_eq: Default::default(),
            h_eq: Default::default(),
            t_eq: Default::default(),
            history: Default::default(),
            r_hit: Default::default(),
            r_hit_idx: Default::default(),
            r_has_free: Default::default(),
            r_late: Default::default(),
            r_ctx: Default::default(),
            r_ctx_is: std::array::from_fn(|c| DFFWithInit::new(c == 0)),
            hit_vec: Default::default(),
            free_vec: Default::default(),
            ctx_vec: Default::default(),
            onehot: std::array::from_fn(|c| Constant::new(bits::<8>(1 << c))),
            r_sig_match: Default::default(),
            r_present: Default::default(),
            hit_idx: Default::default(),
            free_idx: Default::default(),
            cur_key: Default::default(),
            cur_done: Default::default(),
            file: Default::default(),
            file_key: Default::default(),
        }
    }
}

impl Logic for ContextTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            r_hit,
            r_hit_idx,
            r_has_free,
            r_late,
            r_ctx,
            r_sig_match,
            r_present,
            r_quiet,
            r_expired,
            r_exp_idx,
            r_exp_key,
            d_head,
            r_miss_idx,
            d_count,
            r_evict,
            r_done,
            r_pc,
            r_pick_pc,
            r_ctx_pc,
            r_silent,
            r_cur_done
        );
        self.key_match.next = bits::<8>(0);
        for c in 0..8 {
            self.valid[c].clock.next = self.clock.val();
            self.c_done[c].clock.next = self.clock.val();
            self.d_fifo[c].clock.next = self.clock.val();
            self.c_done[c].d.next = self.c_done[c].q.val();
            self.d_fifo[c].d.next = self.d_fifo[c].q.val();
            self.dirty[c].clock.next = self.clock.val();
            self.c_key[c].clock.next = self.clock.val();
            self.c_sig[c].clock.next = self.clock.val();
            self.c_pc[c].clock.next = self.clock.val();
            self.c_end[c].clock.next = self.clock.val();
            self.c_present[c].clock.next = self.clock.val();
            self.r_ctx_is[c].clock.next = self.clock.val();
            self.c_rph2[c].clock.next = self.clock.val();
            self.c_words[c].clock.next = self.clock.val();
            self.c_has_words[c].clock.next = self.clock.val();
            self.c_bytes[c].clock.next = self.clock.val();
            self.k_eq[c].clock.next = self.clock.val();
            // The 48-bit key compared as its three 16-bit fields (segment index, op id, comm
            // id), ANDed: the same answer. As one 48-bit compare ABC mapped it with `valid` as
            // a chain of 7 LUT4 in front of `k_pair` (board64's worst path on seeds 1 and 6 at
            // 1159997); as three, `k_eq` is a level shallower, board64 maps to 121 fewer
            // xc7z020 LUTs, and its eight seeds place at a median of 148.4 MHz, minimum 143.7
            // (147.4 / 136.4 before; docs/timing.md, 2026-12-04, late night).
            if self.valid[c].q.val()
                & (self.c_key[c].q.val().get_bits::<16>(0) == self.peek_key.val().get_bits::<16>(0))
                & (self.c_key[c].q.val().get_bits::<16>(16)
                    == self.peek_key.val().get_bits::<16>(16))
                & (self.c_key[c].q.val().get_bits::<16>(32)
                    == self.peek_key.val().get_bits::<16>(32))
            {
                self.key_match.next = self.key_match.val() | self.onehot[c].val();
            }
            self.k_eq[c].d.next = self.key_match.val().get_bit(c) & !self.reset.val();
            self.s_eq[c].clock.next = self.clock.val();
            self.s_eq[c].d.next = self.c_sig[c].q.val() == self.peek_sig.val();
            self.c_age[c].clock.next = self.clock.val();
            self.c_silence[c].clock.next = self.clock.val();
            self.c_mute[c].clock.next = self.clock.val();
            self.c_silence[c].d.next = self.c_silence[c].q.val();
            self.r_exp_vec[c].clock.next = self.clock.val();
            self.valid[c].d.next = self.valid[c].q.val();
            self.dirty[c].d.next = self.dirty[c].q.val();
            self.c_key[c].d.next = self.c_key[c].q.val();
            self.c_sig[c].d.next = self.c_sig[c].q.val();
            self.nx_pc[c].next = self.c_pc[c].q.val();
            self.c_end[c].d.next = self.c_end[c].q.val();
            self.c_at_end[c].clock.next = self.clock.val();
            self.c_at_end[c].d.next = self.c_pc[c].q.val() == self.c_end[c].q.val();
            self.c_present[c].d.next = self.c_present[c].q.val();
            self.c_rph2[c].d.next = self.c_rph2[c].q.val();
            self.c_words[c].d.next = self.c_words[c].q.val();
            self.c_has_words[c].d.next = self.c_has_words[c].q.val();
            self.c_bytes[c].d.next = self.c_bytes[c].q.val();
            self.c_age[c].d.next = self.c_age[c].q.val();
            if self.age_tick.val()
                & self.valid[c].q.val()
                & (self.c_age[c].q.val() != self.age_max.val())
            {
                self.c_age[c].d.next = self.c_age[c].q.val() + bits::<AGE_BITS>(1);
            }
        }

        for i in 0..4 {
            self.k_pair[i].clock.next = self.clock.val();
            self.k_pair[i].d.next = ((self.key_match.val() & self.pair_mask[i].val())
                != bits::<8>(0))
                & !self.reset.val();
        }

        // The staged key goes into the slot at `h_ptr` on this clock's edge: that slot's old
        // key is not among the recent ones the next clock, the staged key is (`t_eq`).
        for c in 0..8 {
            self.h_valid[c].clock.next = self.clock.val();
            self.h_key[c].clock.next = self.clock.val();
            self.h_ptr[c].clock.next = self.clock.val();
            self.h_eq[c].clock.next = self.clock.val();
            self.h_eq[c].d.next = self.h_valid[c].q.val()
                & (self.h_key[c].q.val() == self.peek_key.val())
                & !(self.history.staged.val() & self.h_ptr[c].q.val());
            self.h_valid[c].d.next = self.h_valid[c].q.val();
        }
        self.t_eq.clock.next = self.clock.val();
        self.t_eq.d.next =
            self.history.staged.val() & (self.history.staged_key.val() == self.peek_key.val());

        // ---- The arrival: its context, a free one, the history.
        self.l_hit.next = self.k_pair[0].q.val()
            | self.k_pair[1].q.val()
            | self.k_pair[2].q.val()
            | self.k_pair[3].q.val();
        self.l_done.next = false;
        self.hit_idx.next = bits::<3>(0);
        self.any_free.next = false;
        self.free_idx.next = bits::<3>(0);
        self.hit_vec.next = bits::<8>(0);
        self.free_vec.next = bits::<8>(0);
        self.valid_vec.next = bits::<8>(0);
        self.l_late.next = false;
        self.l_sig_match.next = false;
        self.hit_present.next = bits::<8>(0);
        self.hit_pc.next = bits::<12>(0);
        for c in 0..8 {
            // At most one open context holds a key (a context opens only on a miss): the
            // matches are ORed, not priority-encoded, and the hit context's bits are read
            // with its match rather than through its index.
            if self.k_eq[c].q.val() {
                self.hit_idx.next = self.hit_idx.val() | self.index[c].val();
                self.hit_vec.next = self.hit_vec.val() | self.onehot[c].val();
                if self.c_done[c].q.val() {
                    self.l_done.next = true;
                }
                if self.s_eq[c].q.val() {
                    self.l_sig_match.next = true;
                }
                self.hit_present.next = self.hit_present.val() | self.c_present[c].q.val();
                self.hit_pc.next = self.hit_pc.val() | self.c_pc[c].q.val();
            }
            if self.valid[c].q.val() {
                self.valid_vec.next = self.valid_vec.val() | self.onehot[c].val();
            }
        }
        // The first free context: free, every context below it open (an AND each, not a
        // chain through the contexts below).
        self.any_free.next = self.valid_vec.val() != bits::<8>(0xff);
        for c in 0..8 {
            if !self.valid[c].q.val()
                & ((self.valid_vec.val() & self.below[c].val()) == self.below[c].val())
            {
                self.free_idx.next = self.free_idx.val() | self.index[c].val();
                self.free_vec.next = self.free_vec.val() | self.onehot[c].val();
            }
        }
        for c in 0..8 {
            if self.h_eq[c].q.val() {
                self.l_late.next = true;
            }
        }
        if self.t_eq.q.val() {
            self.l_late.next = true;
        }
        self.l_present.next = (self.hit_present.val()
            & (bits::<8>(1) << bit_cast::<8, 3>(self.arr_reg.val())))
            != bits::<8>(0);
        // No context free: the done context that retired first.
        self.d_oldest.next = bits::<3>(0);
        self.d_tail.next = bits::<3>(0);
        for c in 0..8 {
            if self.d_head.q.val() == self.index[c].val() {
                self.d_oldest.next = self.d_fifo[c].q.val();
            }
        }
        self.l_oldest_is.next = bits::<8>(0);
        for c in 0..8 {
            if self.d_oldest.val() == self.index[c].val() {
                self.l_oldest_is.next = self.onehot[c].val();
            }
        }
        // The context a miss would take, registered for the next clock's lookup (see
        // `r_miss_is`); context 0 after a reset, which frees them all.
        self.r_miss_is.clock.next = self.clock.val();
        self.r_any_free.clock.next = self.clock.val();
        self.miss_is_next.next = self.l_oldest_is.val();
        self.r_miss_idx.d.next = self.d_oldest.val();
        if self.any_free.val() {
            self.miss_is_next.next = self.free_vec.val();
            self.r_miss_idx.d.next = self.free_idx.val();
        }
        if self.reset.val() {
            self.miss_is_next.next = bits::<8>(1);
            self.r_miss_idx.d.next = bits::<3>(0);
        }
        // Assigned once (flip-flops with a power-on value: `collwire_flow::verilog_lint`).
        self.r_miss_is.d.next = self.miss_is_next.val();
        self.r_any_free.d.next = self.any_free.val() | self.reset.val();
        self.miss_pc.next = bits::<12>(0);
        for c in 0..8 {
            if self.r_miss_is.q.val().get_bit(c) {
                self.miss_pc.next = self.miss_pc.val() | self.c_pc[c].q.val();
            }
        }
        self.d_tail.next = self.d_head.q.val() + bit_cast::<3, 4>(self.d_count.q.val());
        self.l_has_free.next = self.r_any_free.q.val() | (self.d_count.q.val() != bits::<4>(0));
        self.l_ctx.next = self.r_miss_idx.q.val();
        if self.l_hit.val() {
            self.l_ctx.next = self.hit_idx.val();
        }
        self.ctx_vec.next = self.r_miss_is.q.val();
        if self.l_hit.val() {
            self.ctx_vec.next = self.hit_vec.val();
        }

        if self.lookup.val() {
            self.r_hit.d.next = self.l_hit.val();
            self.r_done.d.next = self.l_done.val();
            self.r_evict.d.next = !self.r_any_free.q.val();
            self.r_hit_idx.d.next = self.hit_idx.val();
            self.r_has_free.d.next = self.l_has_free.val();
            self.r_late.d.next = self.l_late.val();
            self.r_ctx.d.next = self.l_ctx.val();
            self.r_sig_match.d.next = self.l_sig_match.val();
            self.r_present.d.next = self.l_present.val();
        }
        // `r_ctx` one-hot, each flip-flop's input assigned once on either way.
        for c in 0..8 {
            if self.lookup.val() {
                self.r_ctx_is[c].d.next = self.ctx_vec.val().get_bit(c);
            } else {
                self.r_ctx_is[c].d.next = self.r_ctx_is[c].q.val();
            }
        }

        // ---- The running context, and the lowest context with news.
        self.l_pc.next = bits::<12>(0);
        self.l_end_pc.next = bits::<12>(0);
        self.l_at_end.next = false;
        self.l_present_mask.next = bits::<8>(0);
        self.l_rph2.next = false;
        self.l_words.next = bits::<12>(0);
        self.l_has_words.next = false;
        self.l_bytes.next = bits::<16>(0);
        self.cur_key.next = bits::<48>(0);
        self.cur_done.next = false;
        self.l_ctx_present.next = bits::<8>(0);
        self.l_ctx_is.next = bits::<8>(0);
        for c in 0..8 {
            if self.r_ctx_is[c].q.val() {
                self.l_ctx_present.next = self.c_present[c].q.val();
                self.l_ctx_is.next = self.l_ctx_is.val() | self.onehot[c].val();
            }
            // An OR of ANDs (the bits of `cur_is` are exclusive: no priority chain).
            self.l_at_end.next =
                self.l_at_end.val() | (self.cur_is.val().get_bit(c) & self.c_at_end[c].q.val());
            if self.cur.val() == self.index[c].val() {
                self.l_present_mask.next = self.c_present[c].q.val();
                self.l_pc.next = self.c_pc[c].q.val();
                self.l_end_pc.next = self.c_end[c].q.val();
                self.l_rph2.next = self.c_rph2[c].q.val();
                self.l_words.next = self.c_words[c].q.val();
                self.l_has_words.next = self.c_has_words[c].q.val();
                self.l_bytes.next = self.c_bytes[c].q.val();
                self.cur_key.next = self.c_key[c].q.val();
                self.cur_done.next = self.c_done[c].q.val();
            }
        }
        // `pick`: the lowest context with news, by pairs and halves (see `news`). (hdl_gen
        // takes no arithmetic in an index: the pairs and halves written out.)
        self.news.next = bits::<8>(0);
        for c in 0..8 {
            if self.valid[c].q.val() & self.dirty[c].q.val() {
                self.news.next = self.news.val() | self.onehot[c].val();
            }
        }
        self.news_below.next = (self.news.val() << 1)
            | (self.news.val() << 2)
            | (self.news.val() << 3)
            | (self.news.val() << 4)
            | (self.news.val() << 5)
            | (self.news.val() << 6)
            | (self.news.val() << 7);
        self.p_has[0].next = self.news.val().get_bit(0) | self.news.val().get_bit(1);
        self.p_has[1].next = self.news.val().get_bit(2) | self.news.val().get_bit(3);
        self.p_has[2].next = self.news.val().get_bit(4) | self.news.val().get_bit(5);
        self.p_has[3].next = self.news.val().get_bit(6) | self.news.val().get_bit(7);
        self.p_odd[0].next = !self.news.val().get_bit(0);
        self.p_odd[1].next = !self.news.val().get_bit(2);
        self.p_odd[2].next = !self.news.val().get_bit(4);
        self.p_odd[3].next = !self.news.val().get_bit(6);
        self.p_pc[0].next = self.c_pc[1].q.val();
        if self.news.val().get_bit(0) {
            self.p_pc[0].next = self.c_pc[0].q.val();
        }
        self.p_pc[1].next = self.c_pc[3].q.val();
        if self.news.val().get_bit(2) {
            self.p_pc[1].next = self.c_pc[2].q.val();
        }
        self.p_pc[2].next = self.c_pc[5].q.val();
        if self.news.val().get_bit(4) {
            self.p_pc[2].next = self.c_pc[4].q.val();
        }
        self.p_pc[3].next = self.c_pc[7].q.val();
        if self.news.val().get_bit(6) {
            self.p_pc[3].next = self.c_pc[6].q.val();
        }
        self.h_has[0].next = self.p_has[0].val() | self.p_has[1].val();
        self.h_has[1].next = self.p_has[2].val() | self.p_has[3].val();
        self.h_ix[0].next = bits::<2>(2) | bit_cast::<2, 1>(self.p_odd[1].val().into());
        self.h_pc[0].next = self.p_pc[1].val();
        if self.p_has[0].val() {
            self.h_ix[0].next = bit_cast::<2, 1>(self.p_odd[0].val().into());
            self.h_pc[0].next = self.p_pc[0].val();
        }
        self.h_ix[1].next = bits::<2>(2) | bit_cast::<2, 1>(self.p_odd[3].val().into());
        self.h_pc[1].next = self.p_pc[3].val();
        if self.p_has[2].val() {
            self.h_ix[1].next = bit_cast::<2, 1>(self.p_odd[2].val().into());
            self.h_pc[1].next = self.p_pc[2].val();
        }
        self.l_pick_found.next = self.h_has[0].val() | self.h_has[1].val();
        self.l_pick_is.next = self.news.val() & !self.news_below.val();
        self.l_pick.next = bits::<3>(0);
        self.pick_or.next = bits::<12>(0);
        if self.h_has[1].val() {
            self.l_pick.next = bits::<3>(4) | bit_cast::<3, 2>(self.h_ix[1].val());
            self.pick_or.next = self.h_pc[1].val();
        }
        if self.h_has[0].val() {
            self.l_pick.next = bit_cast::<3, 2>(self.h_ix[0].val());
            self.pick_or.next = self.h_pc[0].val();
        }

        // ---- Expiry, in two registered stages: which open contexts reached the age limit;
        // then the lowest of them and its key.
        self.exp_found.next = false;
        self.exp_idx.next = bits::<3>(0);
        self.exp_key.next = bits::<48>(0);
        self.exp_now.next = bits::<8>(0);
        for c in 0..8 {
            if self.valid[c].q.val()
                & !self.c_done[c].q.val()
                & (self.age_limit.val() != bits::<AGE_BITS>(0))
                & (self.c_age[c].q.val() >= self.age_limit.val())
            {
                self.exp_now.next = self.exp_now.val() | self.onehot[c].val();
            }
        }
        for c in 0..8 {
            self.r_exp_vec[c].d.next = self.exp_now.val().get_bit(c)
                & ((self.exp_now.val() & self.below[c].val()) == bits::<8>(0));
            if self.r_exp_vec[c].q.val() {
                self.exp_found.next = true;
                self.exp_idx.next = self.exp_idx.val() | self.index[c].val();
                self.exp_key.next = self.exp_key.val() | self.c_key[c].q.val();
            }
        }
        self.any_command.next = self.store.val()
            | self.unstore.val()
            | self.cancel.val()
            | self.park.val()
            | self.produce.val()
            | self.advance.val()
            | self.retire.val()
            | self.touch.val()
            | self.reclaim.val()
            | self.nacked.val()
            | self.heard.val()
            | self.reset.val();
        // `r_expired`: an expiry found with no command the clock before; its users AND in
        // `r_quiet` (no command the clock after either), so the state a reclaim acts on is
        // the state the expiry was found in, as when `r_expired` itself took this clock's
        // `any_command`. That was the tail of board64's worst path at c94203c, seed 3 (the
        // engine's `cur` → its decision → a command → `any_command` → `r_expired`).
        self.r_quiet.d.next = !self.any_command.val();
        self.r_expired.d.next = self.exp_found.val() & self.r_quiet.q.val() & !self.reset.val();
        self.expired_now.next = self.r_expired.q.val() & self.r_quiet.q.val();
        self.r_exp_idx.d.next = self.exp_idx.val();
        self.r_exp_key.d.next = self.exp_key.val();

        // ---- Commands.
        self.file.next = false;
        for c in 0..8 {
            if (self.store.val() | self.heard.val()) & self.r_ctx_is[c].q.val() {
                // Progress, or a partner alive: not silent.
                self.c_silence[c].d.next = bits::<SILENCE_BITS>(0);
            }
            if self.store.val() & self.r_ctx_is[c].q.val() {
                self.c_age[c].d.next = bits::<AGE_BITS>(0);
                self.dirty[c].d.next = true;
                self.c_present[c].d.next = self.c_present[c].q.val()
                    | (bits::<8>(1) << bit_cast::<8, 3>(self.arr_reg.val()));
                if self.alloc.val() {
                    self.valid[c].d.next = true;
                    self.c_done[c].d.next = false;
                    self.nx_pc[c].next = self.alloc_pc.val();
                    self.c_at_end[c].d.next = self.alloc_at_end.val();
                    self.c_present[c].d.next = bits::<8>(1) << bit_cast::<8, 3>(self.arr_reg.val());
                    self.c_rph2[c].d.next = self.alloc_rph2.val();
                    self.c_has_words[c].d.next = self.alloc_words.val() != bits::<12>(0);
                }
            }
            // The wide fields on `alloc` alone (it comes only with `store`).
            if self.alloc.val() & self.r_ctx_is[c].q.val() {
                self.c_key[c].d.next = self.key.val();
                self.c_sig[c].d.next = self.sig.val();
                self.c_end[c].d.next = self.alloc_end.val();
                self.c_words[c].d.next = self.alloc_words.val();
                self.c_bytes[c].d.next = self.alloc_len.val();
            }
            if self.unstore.val() & self.r_ctx_is[c].q.val() {
                self.c_present[c].d.next = self.c_present[c].q.val()
                    & !(bits::<8>(1) << bit_cast::<8, 3>(self.arr_reg.val()));
                if self.unstore_free.val() & !self.c_done[c].q.val() {
                    self.valid[c].d.next = false;
                    self.dirty[c].d.next = false;
                }
            }
            if self.cancel.val()
                & self.r_hit.q.val()
                & !self.r_done.q.val()
                & (self.r_hit_idx.q.val() == self.index[c].val())
            {
                self.valid[c].d.next = false;
                self.dirty[c].d.next = false;
            }
            if self.touch.val()
                & self.r_hit.q.val()
                & (self.r_hit_idx.q.val() == self.index[c].val())
            {
                self.c_age[c].d.next = bits::<AGE_BITS>(0);
            }
            if self.reclaim.val()
                & self.expired_now.val()
                & (self.r_exp_idx.q.val() == self.index[c].val())
            {
                self.valid[c].d.next = false;
                self.dirty[c].d.next = false;
            }
            if self.cur_is.val().get_bit(c) {
                if self.nacked.val() & (self.c_silence[c].q.val() != self.silence_max.val()) {
                    self.c_silence[c].d.next = self.c_silence[c].q.val() + bits::<SILENCE_BITS>(1);
                }
                if self.park.val() {
                    self.dirty[c].d.next = false;
                }
                if self.produce.val() {
                    self.c_present[c].d.next = self.c_present[c].q.val()
                        | (bits::<8>(1) << bit_cast::<8, 3>(self.produce_reg.val()));
                }
                if self.advance.val() {
                    self.nx_pc[c].next = self.c_pc[c].q.val() + bits::<12>(1);
                }
                if self.retire.val() & !self.c_done[c].q.val() {
                    // Done: the result retained, the program counter back on the last
                    // micro-op (the one that answered the local ranks).
                    self.c_done[c].d.next = true;
                    self.dirty[c].d.next = false;
                    self.nx_pc[c].next = self.c_pc[c].q.val() - bits::<12>(1);
                }
            }
        }
        // (Cancel, reclaim and retire never come together; the arrival's key, the latest
        // signal, goes through the last mux.)
        // The key is selected by `reclaim` and `retire` alone (it counts only with `file`,
        // which has the conditions; the three commands never come together): the arrival's
        // by default, for a `cancel`. The long history's first filing register takes it on
        // every clock, and `cancel`, the latest of the commands (the CFE's `Tail` decisions), stays off
        // its 48 selects.
        self.file_key.next = self.key.val();
        if self.reclaim.val() {
            self.file_key.next = self.r_exp_key.q.val();
        }
        if self.retire.val() {
            self.file_key.next = self.cur_key.val();
        }
        if self.reclaim.val() & self.expired_now.val() {
            self.file.next = true;
        }
        if self.cancel.val() & !self.r_late.q.val() & !self.r_done.q.val() {
            self.file.next = true;
        }
        if self.retire.val() & !self.r_cur_done.q.val() {
            self.file.next = true;
            // Queued behind the contexts that retired before it.
            for c in 0..8 {
                if self.d_tail.val() == self.index[c].val() {
                    self.d_fifo[c].d.next = self.cur.val();
                }
            }
            self.d_count.d.next = self.d_count.q.val() + bits::<4>(1);
        }
        if self.store.val() & self.alloc.val() & self.r_evict.q.val() {
            // The oldest done context reused (retire and store never come together).
            self.d_head.d.next = self.d_head.q.val() + bits::<3>(1);
            self.d_count.d.next = self.d_count.q.val() - bits::<4>(1);
        }
        // The key filed the clock before into the ring, over its oldest key.
        for c in 0..8 {
            self.h_key[c].d.next = self.h_key[c].q.val();
            if self.history.staged.val() & self.h_ptr[c].q.val() {
                self.h_key[c].d.next = self.history.staged_key.val();
                self.h_valid[c].d.next = true;
            }
        }
        if self.history.staged.val() {
            // (hdl_gen takes no arithmetic in an index: the ring written out.)
            self.h_ptr[0].d.next = self.h_ptr[7].q.val();
            self.h_ptr[1].d.next = self.h_ptr[0].q.val();
            self.h_ptr[2].d.next = self.h_ptr[1].q.val();
            self.h_ptr[3].d.next = self.h_ptr[2].q.val();
            self.h_ptr[4].d.next = self.h_ptr[3].q.val();
            self.h_ptr[5].d.next = self.h_ptr[4].q.val();
            self.h_ptr[6].d.next = self.h_ptr[5].q.val();
            self.h_ptr[7].d.next = self.h_ptr[6].q.val();
        } else {
            // Held: each pointer flip-flop's input assigned once on either way (a flip-flop
            // with a power-on value has logic of its own: `collwire_flow::verilog_lint`).
            for c in 0..8 {
                self.h_ptr[c].d.next = self.h_ptr[c].q.val();
            }
        }
        // ---- The counters, and the three of them the engine reads from flip-flops.
        for c in 0..8 {
            self.c_pc[c].d.next = self.nx_pc[c].val();
        }
        // `ctx` is `cur`.
        self.ctx_is_cur.next = self.cur.val() == self.r_ctx.q.val();
        self.r_cur_done.d.next = self.cur_done.val();
        // `cur`'s counter after the commands: selected from the counters as they are, or,
        // for an advance or a retire, stepped from this flip-flop, which holds `cur`'s counter
        // whenever `cur` held over the last clock edge (an advance or a retire comes only
        // then: see the module's contract). Not selected from the eight counters after the
        // commands (the engine's state → `advance` → a context's adder → the 8:1 select was
        // the CFE's worst path once `ctx_pc` no longer was), nor stepped after the select
        // (`cur` → the select → the adder was, on two seeds, once the request RAM's address
        // no longer was). The same priority as `nx_pc` (a reset, a retire, an advance, a store
        // that opens `cur`, else the counter as it is), as exclusive conditions.
        self.pc_ret.next = self.retire.val() & !self.r_cur_done.q.val();
        self.pc_alloc.next = self.store.val() & self.alloc.val() & self.ctx_is_cur.val();
        self.pc_back.next = self.pc_ret.val() & !self.reset.val();
        self.pc_fwd.next = self.advance.val() & !self.pc_ret.val() & !self.reset.val();
        self.pc_open.next =
            self.pc_alloc.val() & !self.advance.val() & !self.pc_ret.val() & !self.reset.val();
        self.pc_hold.next =
            !(self.pc_alloc.val() | self.advance.val() | self.pc_ret.val() | self.reset.val());
        self.pc_held.next = bits::<12>(0);
        for c in 0..8 {
            if self.cur_is.val().get_bit(c) {
                self.pc_held.next = self.pc_held.val() | self.c_pc[c].q.val();
            }
        }
        self.pc_opened.next = bits::<12>(0);
        if self.pc_open.val() {
            self.pc_opened.next = self.alloc_pc.val();
        }
        self.pc_up.next = bits::<12>(0);
        if self.pc_fwd.val() {
            self.pc_up.next = self.r_pc.q.val() + bits::<12>(1);
        }
        self.pc_down.next = bits::<12>(0);
        if self.pc_back.val() {
            self.pc_down.next = self.r_pc.q.val() - bits::<12>(1);
        }
        // The engine's `cur` is context 0 after a reset: its counter as it is (every
        // context is free after a reset, so no command of the reset's clock counts; the
        // counter after the commands put the table's decode of them in front of this
        // flip-flop's reset mux, the CFE's worst path, seed 1, once the select was gone).
        self.pc_reset.next = bits::<12>(0);
        if self.reset.val() {
            self.pc_reset.next = self.c_pc[0].q.val();
        }
        self.r_pc.d.next =
            self.pc_opened.val() | self.pc_up.val() | self.pc_down.val() | self.pc_reset.val();
        if self.pc_hold.val() {
            self.r_pc.d.next = self.pc_held.val();
        }
        // `ctx`'s counter moves with the commands that move that context's: it is kept and
        // stepped from its own flip-flop, which holds `c_pc[ctx]` from the clock after a
        // lookup on (the lookup loads it, and no command comes with a lookup), instead of
        // selected from the eight counters after the commands (`r_ctx` → 8:1 select of the
        // contexts' adders, and the engine's state → `advance` → those adders, were the
        // table's and the CFE's worst paths at 3e5f093). The same priority as `nx_pc`: a
        // store that allocates `ctx`, then an advance or a retire of `cur`.
        self.r_ctx_pc.d.next = self.r_ctx_pc.q.val();
        if self.store.val() & self.alloc.val() {
            self.r_ctx_pc.d.next = self.alloc_pc.val();
        }
        if self.ctx_is_cur.val() & self.advance.val() {
            self.r_ctx_pc.d.next = self.r_ctx_pc.q.val() + bits::<12>(1);
        }
        if self.ctx_is_cur.val() & self.retire.val() & !self.r_cur_done.q.val() {
            self.r_ctx_pc.d.next = self.r_ctx_pc.q.val() - bits::<12>(1);
        }
        if self.lookup.val() {
            self.r_ctx_pc.d.next = self.miss_pc.val();
            if self.l_hit.val() {
                self.r_ctx_pc.d.next = self.hit_pc.val();
            }
        }
        self.r_pick_pc.d.next = self.pick_or.val();
        self.history.clock.next = self.clock.val();
        self.history.reset.next = self.reset.val();
        self.history.peek.next = self.peek_key.val();
        self.history.key.next = self.key.val();
        self.history.file.next = self.file.val();
        self.history.file_key.next = self.file_key.val();
        if self.reset.val() {
            for c in 0..8 {
                self.h_valid[c].d.next = false;
                self.h_ptr[c].d.next = false;
                self.h_eq[c].d.next = false;
            }
            self.h_ptr[0].d.next = true;
            self.t_eq.d.next = false;
            self.r_cur_done.d.next = false;
            self.d_head.d.next = bits::<3>(0);
            self.d_count.d.next = bits::<4>(0);
            for c in 0..8 {
                self.valid[c].d.next = false;
                self.c_done[c].d.next = false;
                self.dirty[c].d.next = false;
                self.c_age[c].d.next = bits::<AGE_BITS>(0);
                self.c_silence[c].d.next = bits::<SILENCE_BITS>(0);
            }
        }
        // The mutes next clock: whether the silences' next values reach the limit. A silence
        // is next its count + 1 (a nack by `cur`, below the maximum: the last of the commands
        // above), 0 (a store or a heard of `ctx`, or a reset) or as it is, so each mute is a
        // compare of the count as it is with the limit or the limit − 1, chosen by those
        // conditions, not a compare after the commands' muxes (`cur` → the nack's decode →
        // the + 1 → the compare → `c_mute` was board64's worst path on seed 2 at 565fe73,
        // 7.57 ns).
        self.limit_less1.next = self.silence_limit.val() - bits::<SILENCE_BITS>(1);
        for c in 0..8 {
            self.c_mute[c].d.next = (self.silence_limit.val() != bits::<SILENCE_BITS>(0))
                & (self.c_silence[c].q.val() >= self.silence_limit.val())
                & !((self.store.val() | self.heard.val()) & self.r_ctx_is[c].q.val());
            if self.nacked.val()
                & self.cur_is.val().get_bit(c)
                & (self.c_silence[c].q.val() != self.silence_max.val())
            {
                self.c_mute[c].d.next = (self.silence_limit.val() != bits::<SILENCE_BITS>(0))
                    & (self.c_silence[c].q.val() >= self.limit_less1.val());
            }
            if self.reset.val() {
                self.c_mute[c].d.next = false;
            }
        }
        // `silent` next clock: the mutes as they are (they go with the silences as they are),
        // selected as `ctx` will be; none after a reset.
        self.s_keep.next = false;
        self.s_hit.next = false;
        self.s_miss.next = false;
        for c in 0..8 {
            if self.r_ctx_is[c].q.val() {
                self.s_keep.next = self.c_mute[c].q.val();
            }
            if self.k_eq[c].q.val() {
                self.s_hit.next = self.s_hit.val() | self.c_mute[c].q.val();
            }
            if self.r_miss_is.q.val().get_bit(c) {
                self.s_miss.next = self.s_miss.val() | self.c_mute[c].q.val();
            }
        }
        self.r_silent.d.next = self.s_keep.val();
        if self.lookup.val() {
            self.r_silent.d.next = self.s_miss.val();
            if self.l_hit.val() {
                self.r_silent.d.next = self.s_hit.val();
            }
        }
        if self.reset.val() {
            self.r_silent.d.next = false;
        }
        self.hit.next = self.r_hit.q.val();
        self.done.next = self.r_done.q.val();
        self.has_free.next = self.r_has_free.q.val();
        self.late.next = self.r_late.q.val();
        self.hist_late.next = self.history.seen.val();
        self.ctx.next = self.r_ctx.q.val();
        self.ctx_pc.next = self.r_ctx_pc.q.val();
        self.ctx_present.next = self.l_ctx_present.val();
        self.silent.next = self.r_silent.q.val();
        self.sig_match.next = self.r_sig_match.q.val();
        self.present.next = self.r_present.q.val();
        self.pc.next = self.l_pc.val();
        self.pc_r.next = self.r_pc.q.val();
        self.pick_pc.next = self.r_pick_pc.q.val();
        self.end_pc.next = self.l_end_pc.val();
        self.at_end.next = self.l_at_end.val();
        self.present_mask.next = self.l_present_mask.val();
        self.rph2.next = self.l_rph2.val();
        self.words.next = self.l_words.val();
        self.has_words.next = self.l_has_words.val();
        self.bytes.next = self.l_bytes.val();
        self.pick.next = self.l_pick.val();
        self.pick_found.next = self.l_pick_found.val();
        self.pick_is.next = self.l_pick_is.val();
        self.ctx_is.next = self.l_ctx_is.val();
        self.expired.next = self.expired_now.val();
        self.expired_ctx.next = self.r_exp_idx.q.val();
    }
}

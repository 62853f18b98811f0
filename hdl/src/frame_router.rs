//! The ingress frame path after the arbiter. It decides where a frame goes from the frame's
//! first bytes and forwards it as its beats arrive (cut-through), and it keeps every frame the
//! board must not deliver from being delivered as good:
//!
//! * A frame that is not an offload **candidate** ([`crate::offload_candidate`]) **passes
//!   through**, unchanged byte for byte, toward the port a plain NIC would use: from the host
//!   to the uplink (port 1), from any network port to the host (port 0) — the `tuser`
//!   destination mask says which. Its first beat leaves as soon as the candidate rule is decided
//!   (byte 37 seen: beat 4 at 64 bits, beat 1 at 256) — it never waits for the frame's end.
//! * A candidate goes into the **offload buffer**, a FIFO of its own ([`AxisFifo`], 16 KiB),
//!   and is handed to the collective engine on `m_offload_axis_*` as it arrives
//!   (**cut-through**), once the classifier ([`crate::header_capture`] +
//!   [`crate::offload_classifier`]) has checked its header: with its decoded fields
//!   ([`FrameFields`]) and verdict held on `offload_*` for the whole frame. Candidates whose
//!   header fails a check are drained there and counted (`malformed_drops`). What only the
//!   tail tells — the frame holds its IPv4 total length (the capture's `len_ok`), its MAC did
//!   not mark it bad, it is no giant — comes with its last beat: a frame that fails is marked
//!   bad there (the MAC convention), counted, and the engine undoes what it did with it
//!   ([`crate::cfe`], `Tail`). Transit frames are judged the same way: header, then tail.
//! * **Isolation**: a candidate is taken only if the offload buffer has room for the longest
//!   offload frame (`limits::MAX_OFFLOAD_FRAME`, 2112 bytes; a longer candidate is a giant, cut
//!   off there); otherwise (the engine stalled, every context busy) it is dropped and
//!   counted (`engine_busy_drops`). So an offload frame never waits at the head of the shared
//!   input, and plain traffic behind it never waits for the engine.
//! * **Hygiene**: a runt (shorter than `limits::MIN_FRAME`, 60 bytes), a giant (longer than
//!   `limits::MAX_FRAME`, 9216 bytes: cut off at the first beat beyond it, the rest swallowed,
//!   however long) and a frame its MAC marked bad (`tuser` bad bit on `tlast`) are counted
//!   (`runt_drops`, `giant_drops`, `bad_frame_drops`) and never delivered as good: a pass-through
//!   one leaves with the bad bit on its last beat, so the output queues drop it (the MAC
//!   convention: a cut-through frame found bad at its tail is aborted, never sent as good); an
//!   offload one reaches the engine so marked; one that ends before the rule is decided is
//!   dropped here.
//!
//! Inside: the beats wait in a small ingress buffer (8 beats; the input stops at 7, on a flag
//! from registers) and the register slice on its output until their frame's class is known;
//! the class of each frame waits beside it in a four-entry register FIFO. The input stalls
//! only when the pass-through output does (its own queueing) or the class FIFO is full (a
//! class is set a clock after its deciding beat, so three queued count as full).
//!
//! One block for both widths: [`FrameRouter64`] and [`FrameRouter256`].

use collwire_proto::MessageType;
use collwire_proto::limits::{MAX_FRAME, MAX_OFFLOAD_FRAME, MIN_FRAME};
use rust_hdl::prelude::*;

use crate::axis::{AxisSink, AxisSource, TUSER_BAD_AT};
use crate::axis_fifo::AxisFifo;
use crate::axis_register::AxisRegister;
use crate::bypass_fifo::BypassFifo;
use crate::header_capture::HeaderCapture;
use crate::header_fields::{DST_HOST_BYTE, FrameFields, VERSION_TYPE_BYTE};
use crate::offload_candidate::{CANDIDATE_BYTES, CHECK_BYTES, CHECKS, OffloadCandidate};
use crate::offload_classifier::{CLASSIFY_LATENCY, OffloadClassifier};
use crate::place::Place;
use crate::reg_fifo::RegFifo4;
use crate::route_table::RouteTable;
use crate::statistics::StatEvents;

/// A verdict queue entry: what the classifier decided about one stored candidate.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct RouterVerdict {
    /// A valid offload frame: to the engine; else it failed a check and is drained (counted
    /// when the verdict came).
    pub offload: Bit,
    /// Valid, but uses a reserved code.
    pub unsupported: Bit,
    /// Payload bytes after the offload header.
    pub payload_len: Bits<16>,
    /// The frame's fields, decoded once by the classifier.
    pub fields: FrameFields,
    /// Its program directory index (the classifier's `dir_index`).
    pub dir_index: Bits<9>,
}

/// Where a frame in the ingress buffer goes (the class FIFO's entries). Bit 0: the frame
/// leaves (and is counted if it leaves marked bad). Zero (power-on, reset, and the frame being
/// written until its class is set) is `DROP`: nothing is tagged or counted for it.
pub mod class {
    /// Ended before its class was decided, or a runt / bad frame ended at that beat: drop.
    pub const DROP: u64 = 0;
    /// Pass through.
    pub const PASS: u64 = 1;
    /// A candidate the offload buffer had no room for: drop.
    pub const BUSY: u64 = 2;
    /// Into the offload buffer.
    pub const OFFLOAD: u64 = 3;
    /// A board frame (partial, result, nack) for another board: forwarded by the route table.
    pub const TRANSIT: u64 = 5;
}

/// The frame bytes the class is decided on: the candidate rule's, the board frame's
/// destination board and its message type.
pub const DECIDE_BYTES: usize = {
    let mut n = CANDIDATE_BYTES;
    if DST_HOST_BYTE + 1 > n {
        n = DST_HOST_BYTE + 1;
    }
    if VERSION_TYPE_BYTE + 1 > n {
        n = VERSION_TYPE_BYTE + 1;
    }
    n
};

/// Beats a transit frame waits in the ingress buffer before its first beat leaves, unless
/// its verdict is in: its last beat then leaves no earlier than the classifier's verdict on it
/// (started a clock after the header's last beat, at the latest the frame's last, then
/// [`CLASSIFY_LATENCY`] clocks of classifier and a clock in the verdict queue; the tail check
/// is queued in time by construction), so a frame arriving without gaps leaves without gaps
/// (`sim/tests/frame_router.rs`, 64- to 1656-byte transit frames). The count is taken a clock
/// before the first beat leaves (a register: no compare on the read side's path), when the
/// frame was still arriving; a beat more has come since.
pub const TRANSIT_LAG: usize = CLASSIFY_LATENCY;

// The router writes an offload frame's verdict into its verdict queue a clock before the
// classifier registers it (`offload_classifier::EARLY_LATENCY`): its last step, the
// divisibility compare, goes into the queue's head (a flip-flop) instead of the classifier's
// own register, so the engine sees the frame a clock sooner (the early verdict). At 256 bits
// since 2026-12-03, where that clock is on the engine hop (the header's 2 beats hide none of
// the classifier); at 64 bits too since later that day, where it pays for the register slice
// in front of the router (`board::ingress_slice`). Transit frames' verdicts are read
// from the registered outputs.

/// A 512-bit header mask with lane `lane` (`w` bits wide) cleared and every other bit set.
fn lane_mask(lane: usize, w: usize) -> Bits<512> {
    let mut m = bits::<512>(0);
    for b in lane * w..(lane + 1) * w {
        m = m.replace_bit(b, true);
    }
    !m
}

/// `tuser` destination mask of port `port` (bits 15:8).
fn to_port(port: usize) -> Constant<Bits<16>> {
    Constant::new(bits::<16>(u64::from(
        crate::axis::tuser(0, 1 << port) & 0xff00,
    )))
}

/// Routes, classifies and checks frames: `W`-bit beats with `K` keep bits; a stored beat is
/// `BB` bits ([`AxisFifo`]: `tdata`, `tkeep`, `tlast` at bit `LAST`, `tuser` from bit `USER`);
/// 2^`DL` beats of offload buffer (`DL1 = DL + 1`); the 64-byte offload header is `HB` beats.
#[derive(LogicBlock)]
pub struct FrameRouter<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
    const HB: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisSink<W, K>,
    /// Pass-through frames, `tuser[15:8]` = destination port mask, `tuser[7]` = bad.
    pub m_axis: AxisSource<W, K>,
    /// Transit frames (board frames for other boards), `tuser[15:8]` = the route table's port
    /// mask, `tuser[7]` = bad.
    pub m_transit_axis: AxisSource<W, K>,
    /// Offload frames for the collective engine.
    pub m_offload_axis: AxisSource<W, K>,
    /// The decoded fields of the offload frame on `m_offload_axis` (valid with its beats).
    pub offload_fields: Signal<Out, FrameFields>,
    pub offload_payload_len: Signal<Out, Bits<16>>,
    /// Its program directory index (the engine's directory read address, from a flip-flop).
    pub offload_dir: Signal<Out, Bits<9>>,
    /// The offload frame uses a reserved code.
    pub offload_unsupported: Signal<Out, Bit>,
    /// A beat of the offload buffer's head frame is at `m_offload_axis` (`tdata`, `tlast`)
    /// before its verdict is in (or with an offload verdict): the splitter may skip the
    /// frame's header beats (never its last) with `offload_skip` before the engine has seen
    /// the frame, so its payload is at the port when the engine's command comes.
    pub offload_peek: Signal<Out, Bit>,
    /// The beat at `offload_peek` is taken (while `m_offload_axis.tvalid` is low: the verdict
    /// is not in yet). Low: beats move only on `m_offload_axis`'s handshake.
    pub offload_skip: Signal<In, Bit>,
    /// The head frame, refused by the classifier's header checks, was drained: its last beat
    /// left this clock (the splitter forgets the header beats it skipped).
    pub offload_gone: Signal<Out, Bit>,
    /// `passed_frames`, `offload_frames`, `transits`, `malformed_drops`, `runt_drops`,
    /// `giant_drops`, `bad_frame_drops`, `engine_busy_drops`, `engine_waits`
    /// ([`crate::statistics`]).
    pub events: Signal<Out, StatEvents>,
    /// The configuration port (route table and board index, [`crate::cfe_config::cfg`]).
    pub cfg_we: Signal<In, Bit>,
    pub cfg_addr: Signal<In, Bits<16>>,
    pub cfg_data: Signal<In, Bits<32>>,
    no_events: Constant<StatEvents>,
    ev: Signal<Local, StatEvents>,
    capture: HeaderCapture<W, K, HB>,
    classifier: OffloadClassifier,
    /// The candidate rule on the header as it stands once the deciding beat arrives.
    rule: OffloadCandidate,
    /// The rule on the header as it stands once the beat before the deciding beat arrives.
    prev_rule: OffloadCandidate,
    /// That beat placed where it sits in the header, and the header with it in its place.
    prev_beat: Place<512, W>,
    prev_mask: Constant<Bits<512>>,
    prev: Signal<Local, Bits<512>>,
    /// `prev_rule`'s checks, loaded with every stored beat: on the deciding clock they hold
    /// the answers for every field in the beats before the deciding beat (`early`), which then
    /// come from flip-flops instead of through the compares. (Registered every clock from the
    /// captured header, they covered only the beats before the one before the deciding beat;
    /// the UDP port's compare on the captured header, through the class into `w_class`, was
    /// board64's worst path on seeds 1 and 3 at f39c6fa.)
    pre_q: DFF<Bits<CHECKS>>,
    /// The checks whose bytes all lie in beats `0 ..= decide − 1`.
    early: Constant<Bits<CHECKS>>,
    /// The destination board lies before the deciding beat (64 bits): whether it is another
    /// board is then `other_q`, loaded with every stored beat from `prev`.
    host_early: Constant<Bit>,
    other_q: DFF<Bit>,
    /// The frame's destination board is another board.
    other_host: Signal<Local, Bit>,
    all_checks: Constant<Bits<CHECKS>>,
    /// The frame is a candidate: the early checks from `pre_q`, the others from `rule`.
    cand: Signal<Local, Bit>,
    /// The arriving beat placed where the deciding beat sits in the header.
    live_beat: Place<512, W>,
    live_mask: Constant<Bits<512>>,
    /// The header as it stands once the deciding beat arrives.
    live: Signal<Local, Bits<512>>,
    /// The ingress buffer; a beat written on cycle `t` is at its output from `t + 1` (`early`).
    /// Its RAM is written a clock after the push, from flip-flops ([`AxisFifo`]'s registered
    /// write): the input arbiter's grant → the beat's valid → `accept` → the LUT RAM's write
    /// enable and address was board64's worst path on seed 1 at 73c9684 (6 cells, 1.6 ns of
    /// wire on the last net). The write's forward adds a select in front of `ingress_out`,
    /// which registers the read side.
    ingress: AxisFifo<W, K, BB, LAST, USER, 3, 4>,
    /// A register slice on the ingress buffer's output, where the read side starts: a beat
    /// leaves it from `t + 2`, as it left the buffer before the slice. The read side's
    /// decision (`r_take`, from the head beat's `tlast` and class) ends at the slice's few
    /// control flip-flops, not in the buffer's read address and on through its distributed
    /// RAM (head `tlast` → `r_take` → read address → RAM → read data, and the forwarded
    /// word's `fwd_hit` → read side → the transit slice: board64's worst path in 3 of 6
    /// runs at 1aaed82).
    ingress_out: AxisRegister<W, K>,
    classes: RegFifo4<Bits<3>>,
    /// The route table (a copy of the CFE's) and the port masks of the transit frames in the
    /// ingress buffer, in order.
    route_table: RouteTable,
    routes: RegFifo4<Bits<8>>,
    /// The classifier's verdict on each transit frame in the ingress buffer, in order: good
    /// (a valid offload frame without reserved codes) or not.
    transit_ok: RegFifo4<Bit>,
    msg_type: Signal<Local, Bits<4>>,
    dst_host: Signal<Local, Bits<8>>,
    is_transit: Signal<Local, Bit>,
    /// Board-to-board message types (`MessageType::is_board_to_board`: partial, result, nack).
    board_msgs: Constant<Bits<16>>,
    msg_at: Constant<Bits<16>>,
    dst_host_at: Constant<Bits<16>>,
    offload: AxisFifo<W, K, BB, LAST, USER, DL, DL1>,
    /// A register slice on the offload buffer's output: its block-RAM data (`tlast`) does not
    /// reach through the splitter's ready back into the buffer's read address.
    offload_out: AxisRegister<W, K>,
    verdicts: BypassFifo<RouterVerdict, 5, 6, 16>,
    verdict_in: Signal<Local, RouterVerdict>,
    head: Signal<Local, RouterVerdict>,
    to_host: Constant<Bits<16>>,
    to_uplink: Constant<Bits<16>>,
    from_host: Constant<Bits<16>>,
    source_mask: Constant<Bits<16>>,
    bad_bit: Constant<Bits<16>>,
    bad_at: Constant<Bits<16>>,
    // Write side.
    /// Beat index within the frame (stops counting once a giant is cut off).
    w_beat: DFF<Bits<16>>,
    /// `w_beat` is at the first beat beyond `MAX_FRAME` / `MAX_OFFLOAD_FRAME` (the beat after
    /// `giant_prev` / `offload_giant_prev`): each compare made a clock ahead,
    /// from `w_beat`'s flip-flops beside its own next value, so that a giant's cut (`giant`
    /// → `w_last` → the capture's and the buffer's tail) starts at flip-flops (the compare
    /// there was 6 cells to the capture's `frame_len` on board64 seed 6 at 15e92f3).
    at_giant: DFF<Bit>,
    at_offload_giant: DFF<Bit>,
    /// The class of the frame being written, once decided (`DROP` before, and after its last
    /// beat).
    w_class: DFF<Bits<3>>,
    /// The class is set a clock after the deciding beat was taken, from what that
    /// beat told, registered (`dq_*`): the input arbiter's grant → the beat → the candidate
    /// rule → the class → the class FIFO, `w_class`, the tags and the statistics was 11 logic
    /// levels (`levels` at c8551e3), board64's deepest with the CFE's decode. No hop is longer
    /// for it: the deciding beat leaves the ingress buffer's slice two clocks after it came at
    /// the earliest, and the frame's earlier beats, when no class is queued (the frame is the
    /// buffer's oldest), leave as its class is set if it is pass-through or offload
    /// (`by_pass`, `by_off`), a clock before the class is at the class FIFO's head. (A
    /// transit frame's route is queued a clock later anyway; a dropped frame need not hurry.)
    /// At 256 bits too since 2026-12-02 (with `late_end`): there the whole candidate rule is
    /// in the deciding beat, and set on the deciding clock, the arbiter's grant → the beat →
    /// the rule → the class → `w_class`, the class FIFO and the tags was 14–16 logic levels,
    /// board256's deepest (`levels --width 256` at b16df2f). No 256-bit hop got longer
    /// (`testbench/tests/hop_latency.rs`).
    late: Constant<Bit>,
    /// `late` where the deciding beat is the header's last and may end a legal frame (256 bits:
    /// a 60–64-byte frame is two beats, the deciding beat is beat 1). So a frame that ended at
    /// its deciding beat (`dq_last`) gets its class when the next frame's first beat may be
    /// coming in: the class goes to the class FIFO, and its tail check to `tails` (on the clock
    /// it would have gone without `late`), but not into `w_class`, which is the next frame's
    /// by then; and the classifier tags (`tag_start`, `ttag_start`) are set from the class
    /// as it is set, a clock after the header's last beat, one stage shorter after it.
    late_end: Constant<Bit>,
    /// The offload tag as the early verdict comes (the verdict queue is written from the
    /// classifier's early outputs, a stage before its registered ones).
    tag_e: Signal<Local, Bit>,
    /// Drives the verdict queue's `write`, assigned to it once.
    v_write: Signal<Local, Bit>,
    /// The deciding beat taken on the previous clock was its frame's last.
    dq_last: DFF<Bit>,
    /// The class set now is the frame being written's (see `late_end`).
    set_here: Signal<Local, Bit>,
    /// `tails`' write, assigned once (a crossing into another block).
    tail_write: Signal<Local, Bit>,
    /// The transit tag delay line's output, in step with the classifier's verdict.
    ttag_v: Signal<Local, Bit>,
    /// The class being set now (`late`) is pass-through / offload, and no class is queued.
    by_pass: Signal<Local, Bit>,
    by_off: Signal<Local, Bit>,
    /// The deciding beat was taken on the previous clock; it ended a runt or a frame its MAC
    /// marked bad (`dq_drop`, `dq_mac_bad`); the frame is a candidate, a board frame for
    /// another board.
    dq_go: DFF<Bit>,
    dq_drop: DFF<Bit>,
    dq_mac_bad: DFF<Bit>,
    dq_cand: DFF<Bit>,
    dq_transit: DFF<Bit>,
    /// The class is set now, from these (the `dq_*` registers, `late`; else this clock's beat).
    d_go: Signal<Local, Bit>,
    d_drop: Signal<Local, Bit>,
    d_mac_bad: Signal<Local, Bit>,
    d_cand: Signal<Local, Bit>,
    d_transit: Signal<Local, Bit>,
    /// What this clock's beat says about a frame leaving marked bad, before the priority
    /// between them: the frame's last beat is stored and its class marks it bad (bit 0), it is
    /// a giant cut off (bit 1), marked bad by its MAC (bit 2), a runt (bit 3). Registered in
    /// `tail_q` when `late` (bit 0 as `w_end_r` and `b_class`), and the count (`tail_ev`:
    /// giant, MAC, runt in bits 0, 1, 2) taken from the register, so its statistics event
    /// comes a clock after the beat, as the class's do. The register holds the raw flags, not
    /// the count: the priority between them sits behind it, not between the input arbiter's
    /// merged beat and it (arbiter → `tail_q`, 9 logic levels, was board64's worst path on two
    /// placements at b472d6b).
    tail_now: Signal<Local, Bits<4>>,
    tail_q: DFF<Bits<4>>,
    tail_p: Signal<Local, Bits<4>>,
    tail_ev: Signal<Local, Bits<3>>,
    /// The class FIFO takes a frame's class (`late`: its `almost_full`, as a class is written a
    /// clock after the input took the beat).
    class_room: Signal<Local, Bit>,
    /// A transit frame was decided on the previous clock: its route is read.
    route_wait: DFF<Bit>,
    /// A transit frame's class is set now; its route is queued now (`late`, a clock after the
    /// deciding beat) or on the next clock.
    route_set: Signal<Local, Bit>,
    route_push: Signal<Local, Bit>,
    /// Beats in the ingress buffer and its slice (stored, not yet taken by the read side), a
    /// clock behind: last clock's store and take are in `st_r` / `tk_r`, added where the
    /// count is read (`level_now`, for `lag_ok`), so the input's accept (behind the input
    /// arbiter's grant) and the read side's take end in those two flip-flops, not in the
    /// counter's adder (`classes` → `h_take` → `level` and `ingress_out` → `level` were
    /// board64's worst endpoints on seed 5 at b472d6b, 7–8 logic levels). And whole frames
    /// (their last beat written).
    level: DFF<Bits<4>>,
    st_r: DFF<Bit>,
    tk_r: DFF<Bit>,
    level_now: Signal<Local, Bits<4>>,
    /// Whole frames in the ingress buffer, a clock behind: the ends of the clock before are in
    /// `w_end_r` / `r_end_r`, added where `frames_in` is read (`lag_ok`), so the accept and
    /// take cones end in those two flip-flops, not in the counter's adder (the arbiter's grant
    /// → `accept` → `frames_in` was board64's worst path at c94203c + the CIPE's second buffer
    /// copy dropped, seed 1, an experiment).
    frames_in: DFF<Bits<4>>,
    w_end_r: DFF<Bit>,
    r_end_r: DFF<Bit>,
    transit_lag: Constant<Bits<4>>,
    /// On the previous clock: at least [`TRANSIT_LAG`] beats in the ingress buffer, and no
    /// whole frame.
    lag_ok: DFF<Bit>,
    /// A transit frame's first beat has left (its others follow as they come).
    t_started: DFF<Bit>,
    /// A transit frame's / an offload or transit frame's last beat left on the previous
    /// clock: the side queues (`routes`, `transit_ok`; `tails`) are popped now, from a
    /// register. Popping them as the last beat left put the whole read-side handshake (the
    /// slice's valid → class → `t_valid` → `h_take` → `t_end`) in front of their pointers,
    /// flags and head registers: the largest group of board64's endpoints after 6.0 ns on six
    /// static-placer seeds at 358ac01 (about 210 of them), and 8 logic levels. The transit
    /// frame after waits the one clock (`t_pop` gates `t_valid`); an offload frame's last
    /// beat, the one that reads `tails`, is at least two clocks after the previous frame's.
    t_pop: DFF<Bit>,
    o_pop: DFF<Bit>,
    /// `hyg_bad` on the previous clock (with `t_pop`/`o_pop`: the frame that ended was marked
    /// bad as it came in), and a plain frame's last beat left then unmarked: the events of a
    /// frame's end (`transits`, `malformed_drops`, `passed_frames`) are counted a clock after
    /// it, from these registers and the side queues' heads, still the frame's as they are
    /// popped (counted as it ended, `ingress_out`'s valid → `events_r` was 10 levels).
    hyg_r: DFF<Bit>,
    p_end: DFF<Bit>,
    /// Swallowing the rest of a giant.
    swallow: DFF<Bit>,
    /// The deciding beat, the beat holding byte `MIN_FRAME − 1`.
    decide_beat: Constant<Bits<16>>,
    runt_beat: Constant<Bits<16>>,
    runt_lane: Constant<Bits<16>>,
    /// The beat before the first beat beyond `MAX_FRAME`: `at_giant` is set when it is
    /// written.
    giant_prev: Constant<Bits<16>>,
    /// The beat before the first beat beyond `MAX_OFFLOAD_FRAME` (where a candidate is cut
    /// off).
    offload_giant_prev: Constant<Bits<16>>,
    /// Room the offload buffer must have to take a candidate: the longest offload frame, cut
    /// off, plus the ingress buffer and the flag's delay.
    offload_level: Constant<Bits<DL1>>,
    /// The ingress buffer's `almost_full` level, which back-pressures the input: 7 of its 8
    /// beats. The flag comes from registers a clock after the fact, so a beat taken while it
    /// is low always fits; the input's ready is then no path from the buffer's read address
    /// (its `full` compare) into the header capture's enables.
    ingress_room: Constant<Bits<4>>,
    c_pass: Constant<Bits<3>>,
    c_offload: Constant<Bits<3>>,
    c_drop: Constant<Bits<3>>,
    c_busy: Constant<Bits<3>>,
    c_transit: Constant<Bits<3>>,
    accept: Signal<Local, Bit>,
    /// A beat written to the ingress buffer (not a giant's swallowed tail).
    stored: Signal<Local, Bit>,
    deciding: Signal<Local, Bit>,
    decided: Signal<Local, Bits<3>>,
    cur_class: Signal<Local, Bits<3>>,
    runt: Signal<Local, Bit>,
    mac_bad: Signal<Local, Bit>,
    giant: Signal<Local, Bit>,
    w_last: Signal<Local, Bit>,
    w_user: Signal<Local, Bits<16>>,
    /// This beat starts the classifier on its frame: the header's last beat, or an earlier
    /// last beat (the capture's `header_valid`, or `frame_done` of a short frame, a clock
    /// later).
    start_beat: Signal<Local, Bit>,
    hb_last: Constant<Bits<16>>,
    /// Last clock's beat, registered as it was taken: it was stored and was its frame's last
    /// (`w_end_r`), it was stored and started the classifier (`b_start`), and its class
    /// (`b_class`, `cur_class`). The tags below and the tail count (`tail_q`) are taken from
    /// these, behind the register: each was a register of its own, loaded from the input
    /// arbiter's merged beat through the class compares (8–9 logic levels from the
    /// arbiter's round robin on board64 at b472d6b, the worst path on two placements).
    b_start: DFF<Bit>,
    b_class: DFF<Bits<3>>,
    /// The classified frame is an offload frame: its verdict is pushed. Set with the
    /// classifier's start (`tag_go`: from `b_start` and `b_class`, or with `late_end` from
    /// `tag_start`, set as the class is set), then delayed as the classifier is.
    tag_start: DFF<Bit>,
    tag_go: Signal<Local, Bit>,
    tag: [DFF<Bit>; 2],
    /// The same for a transit frame (its verdict is queued beside it).
    ttag_start: DFF<Bit>,
    ttag_go: Signal<Local, Bit>,
    ttag: [DFF<Bit>; 3],
    /// An offload or transit frame ended last clock: its tail check (the capture's `len_ok`,
    /// at its `frame_done`) is queued for its last beat.
    tail_tag: Signal<Local, Bit>,
    tails: RegFifo4<Bit>,
    /// The head frame of the ingress buffer is an offload frame and its tail check failed /
    /// its last beat leaves.
    o_user: Signal<Local, Bits<16>>,
    o_valid: Signal<Local, Bit>,
    o_end: Signal<Local, Bit>,
    /// The bad bit of the beat at the ingress buffer's head (a runt, a giant cut off, a
    /// frame its MAC marked bad: counted when it came in).
    hyg_bad: Signal<Local, Bit>,
    /// Malformed frames found this clock on the way into the offload buffer or out on the
    /// transit port, and out of the offload buffer (the verdict); two in one clock count one
    /// now and one the next (`mal_carry`: such events are at least two clocks apart on each
    /// side).
    mal_in: Signal<Local, Bit>,
    mal_out: Signal<Local, Bit>,
    mal_carry: DFF<Bit>,
    /// The offload buffer's head beat carries the bad bit.
    head_bad: Signal<Local, Bit>,
    // Read side.
    r_valid: Signal<Local, Bit>,
    r_class: Signal<Local, Bits<3>>,
    /// The head beat goes to the pass-through port.
    p_valid: Signal<Local, Bit>,
    /// The head beat is taken by its queued class (`h_take`), or as its class is set
    /// (`b_take`, never the frame's last beat: `by_pass`, `by_off`). The class FIFO's and the
    /// side queues' reads come from `h_take` alone.
    h_take: Signal<Local, Bit>,
    b_take: Signal<Local, Bit>,
    r_last: Signal<Local, Bit>,
    t_go: Signal<Local, Bit>,
    t_valid: Signal<Local, Bit>,
    t_bad: Signal<Local, Bit>,
    /// The classifier's verdict on a transit frame arrives (into `transit_ok`); the head
    /// transit frame's verdict is there (`t_have`: taken from the queue only), and good with
    /// its tail check (`t_ok`).
    t_arrive: Signal<Local, Bit>,
    t_have: Signal<Local, Bit>,
    t_ok: Signal<Local, Bit>,
    t_user: Signal<Local, Bits<16>>,
    /// A transit frame's last beat leaves.
    t_end: Signal<Local, Bit>,
    /// A frame's last beat is written / read.
    w_end: Signal<Local, Bit>,
    r_end: Signal<Local, Bit>,
    r_take: Signal<Local, Bit>,
    head_valid: Signal<Local, Bit>,
    /// The head frame's last beat left on the clock before (`pop_next` then): its verdict is
    /// popped now, and the next frame waits this one clock. The verdict queue's `reading`
    /// (its `read_next` registered) says so: a register, so the splitter's ready does not reach
    /// the verdict queue's read address and its RAM.
    pop_next: Signal<Local, Bit>,
    /// The verdict queue's head after the clock edge.
    head_after: Signal<Local, RouterVerdict>,
    /// `m_offload_axis_tvalid` (an offload verdict at the head, its frame's beat in the
    /// offload buffer's output slice, no pop pending), from a flip-flop loaded with the value
    /// it will have: from the verdict queue's and the slice's next values (`data_next`,
    /// `empty_next`, `m_tvalid_next`) and `pop_next`. The CFE's arrival check starts from
    /// this one register (the pending pop, then the router's `pop_pending`, → the head's
    /// valid → the CFE's choice between an arrival and a context's next step → its `cur_is`
    /// was board64's worst path on seed 1 at fef1ca6: 135.3 MHz, three long routes between the
    /// router and the CFE; 137.4 with this register, 7 endpoints late at 150 MHz instead of
    /// 15, none of them behind it).
    offload_valid: DFF<Bit>,
    head_ready: Signal<Local, Bit>,
    /// The offload buffer's head beat is taken (drives its `tready`, assigned once).
    head_take: Signal<Local, Bit>,
    head_user: Signal<Local, Bits<16>>,
    pass_dst: Signal<Local, Bits<16>>,
}

impl<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
    const HB: usize,
> Default for FrameRouter<W, K, BB, LAST, USER, DL, DL1, HB>
{
    fn default() -> Self {
        // AxisFifo checks W, K, BB, LAST, USER, DL1.
        assert_eq!(HB * W, 512, "HB: beats of a 64-byte header");
        assert_eq!(
            CLASSIFY_LATENCY, 3,
            "the tag delay line matches the classifier"
        );
        let decide = (DECIDE_BYTES - 1) / K;
        let giant = MAX_FRAME / K;
        let offload_giant = MAX_OFFLOAD_FRAME / K;
        let room = offload_giant + 1 + 8 + 4;
        assert!(room < 1 << DL && decide < HB && decide >= 1);
        // A frame that ends before its deciding beat is a runt (dropped whatever the rule
        // says), so the early checks never answer for bytes a frame did not have.
        assert!(
            decide <= (MIN_FRAME - 1) / K,
            "a frame ending before `decide` is a runt"
        );
        let late = true;
        // Set late, the class of a frame that ended at its deciding beat lands as the next
        // frame's first beat comes in. At 64 bits such a frame is a runt (`DROP`, the value
        // `w_class` holds for a frame whose class is not set yet), and the header's last beat,
        // where the frame's classifier tag is set, comes after the class. At 256 bits neither
        // holds, and `late_end` handles both.
        let late_end = late && !(decide < (MIN_FRAME - 1) / K && decide + 1 < HB);
        assert!(
            !late_end || decide + 1 == HB,
            "late_end: the classifier tags are set as the class is, a clock after the header"
        );
        let early = CHECK_BYTES
            .iter()
            .enumerate()
            .filter(|(_, r)| r.end <= decide * K)
            .fold(0u64, |m, (i, _)| m | 1 << i);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            m_transit_axis: Default::default(),
            m_offload_axis: Default::default(),
            offload_fields: Default::default(),
            offload_payload_len: Default::default(),
            offload_dir: Default::default(),
            offload_unsupported: Default::default(),
            offload_peek: Default::default(),
            offload_skip: Default::default(),
            offload_gone: Default::default(),
            events: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_data: Default::default(),
            no_events: Constant::new(StatEvents::default()),
            ev: Default::default(),
            capture: Default::default(),
            classifier: Default::default(),
            rule: Default::default(),
            prev_rule: Default::default(),
            prev_beat: Place::lane(decide - 1),
            prev_mask: Constant::new(lane_mask(decide - 1, W)),
            prev: Default::default(),
            pre_q: Default::default(),
            early: Constant::new(bits::<CHECKS>(early)),
            host_early: Constant::new(DST_HOST_BYTE < decide * K),
            other_q: Default::default(),
            other_host: Default::default(),
            all_checks: Constant::new(bits::<CHECKS>((1 << CHECKS) - 1)),
            cand: Default::default(),
            live_beat: Place::lane(decide),
            live_mask: Constant::new(lane_mask(decide, W)),
            live: Default::default(),
            ingress: AxisFifo::default(),
            ingress_out: Default::default(),
            classes: Default::default(),
            route_table: Default::default(),
            routes: Default::default(),
            transit_ok: Default::default(),
            msg_type: Default::default(),
            dst_host: Default::default(),
            is_transit: Default::default(),
            board_msgs: Constant::new(bits::<16>(
                MessageType::ALL
                    .iter()
                    .filter(|m| m.is_board_to_board())
                    .fold(0u64, |mask, m| mask | 1 << m.code()),
            )),
            msg_at: Constant::new(bits::<16>(8 * VERSION_TYPE_BYTE as u64)),
            dst_host_at: Constant::new(bits::<16>(8 * DST_HOST_BYTE as u64)),
            offload: Default::default(),
            offload_out: Default::default(),
            verdicts: Default::default(),
            verdict_in: Default::default(),
            head: Default::default(),
            to_host: to_port(crate::axis::HOST_PORT),
            to_uplink: to_port(crate::axis::UPLINK_PORT),
            from_host: Constant::new(bits::<16>(
                crate::axis::tuser(crate::axis::HOST_PORT, 0).into(),
            )),
            source_mask: Constant::new(bits::<16>(0xff)),
            bad_bit: Constant::new(bits::<16>(1 << TUSER_BAD_AT)),
            bad_at: Constant::new(bits::<16>(TUSER_BAD_AT as u64)),
            w_beat: Default::default(),
            at_giant: Default::default(),
            at_offload_giant: Default::default(),
            w_class: Default::default(),
            late: Constant::new(late),
            late_end: Constant::new(late_end),
            tag_e: Default::default(),
            v_write: Default::default(),
            dq_last: Default::default(),
            set_here: Default::default(),
            tail_write: Default::default(),
            ttag_v: Default::default(),
            by_pass: Default::default(),
            by_off: Default::default(),
            dq_go: Default::default(),
            dq_drop: Default::default(),
            dq_mac_bad: Default::default(),
            dq_cand: Default::default(),
            dq_transit: Default::default(),
            d_go: Default::default(),
            d_drop: Default::default(),
            d_mac_bad: Default::default(),
            d_cand: Default::default(),
            d_transit: Default::default(),
            tail_now: Default::default(),
            tail_q: Default::default(),
            tail_p: Default::default(),
            tail_ev: Default::default(),
            class_room: Default::default(),
            route_wait: Default::default(),
            route_set: Default::default(),
            route_push: Default::default(),
            level: Default::default(),
            st_r: Default::default(),
            tk_r: Default::default(),
            level_now: Default::default(),
            frames_in: Default::default(),
            w_end_r: Default::default(),
            r_end_r: Default::default(),
            transit_lag: Constant::new(bits::<4>(TRANSIT_LAG as u64)),
            lag_ok: Default::default(),
            t_started: Default::default(),
            t_pop: Default::default(),
            o_pop: Default::default(),
            hyg_r: Default::default(),
            p_end: Default::default(),
            swallow: Default::default(),
            decide_beat: Constant::new(bits::<16>(decide as u64)),
            runt_beat: Constant::new(bits::<16>(((MIN_FRAME - 1) / K) as u64)),
            runt_lane: Constant::new(bits::<16>(((MIN_FRAME - 1) % K) as u64)),
            giant_prev: Constant::new(bits::<16>(giant as u64 - 1)),
            offload_giant_prev: Constant::new(bits::<16>(offload_giant as u64 - 1)),
            offload_level: Constant::new(bits::<DL1>(((1 << DL) - room) as u64)),
            ingress_room: Constant::new(bits::<4>(7)),
            c_pass: Constant::new(bits::<3>(class::PASS)),
            c_offload: Constant::new(bits::<3>(class::OFFLOAD)),
            c_drop: Constant::new(bits::<3>(class::DROP)),
            c_busy: Constant::new(bits::<3>(class::BUSY)),
            c_transit: Constant::new(bits::<3>(class::TRANSIT)),
            accept: Default::default(),
            stored: Default::default(),
            deciding: Default::default(),
            decided: Default::default(),
            cur_class: Default::default(),
            runt: Default::default(),
            mac_bad: Default::default(),
            giant: Default::default(),
            w_last: Default::default(),
            w_user: Default::default(),
            start_beat: Default::default(),
            hb_last: Constant::new(bits::<16>(HB as u64 - 1)),
            b_start: Default::default(),
            b_class: Default::default(),
            tag_start: Default::default(),
            tag_go: Default::default(),
            tag: std::array::from_fn(|_| Default::default()),
            ttag_start: Default::default(),
            ttag_go: Default::default(),
            ttag: std::array::from_fn(|_| Default::default()),
            tail_tag: Default::default(),
            tails: Default::default(),
            o_user: Default::default(),
            o_valid: Default::default(),
            o_end: Default::default(),
            hyg_bad: Default::default(),
            mal_in: Default::default(),
            mal_out: Default::default(),
            mal_carry: Default::default(),
            head_bad: Default::default(),
            r_valid: Default::default(),
            r_class: Default::default(),
            p_valid: Default::default(),
            h_take: Default::default(),
            b_take: Default::default(),
            r_last: Default::default(),
            t_go: Default::default(),
            t_valid: Default::default(),
            t_bad: Default::default(),
            t_arrive: Default::default(),
            t_have: Default::default(),
            t_ok: Default::default(),
            t_user: Default::default(),
            t_end: Default::default(),
            w_end: Default::default(),
            r_end: Default::default(),
            r_take: Default::default(),
            head_valid: Default::default(),
            pop_next: Default::default(),
            head_after: Default::default(),
            offload_valid: Default::default(),
            head_ready: Default::default(),
            head_take: Default::default(),
            head_user: Default::default(),
            pass_dst: Default::default(),
        }
    }
}

impl<
    const W: usize,
    const K: usize,
    const BB: usize,
    const LAST: usize,
    const USER: usize,
    const DL: usize,
    const DL1: usize,
    const HB: usize,
> Logic for FrameRouter<W, K, BB, LAST, USER, DL, DL1, HB>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.ev.next = self.no_events.val();
        clock!(
            self,
            clock,
            capture,
            classifier,
            ingress,
            ingress_out,
            classes,
            offload,
            offload_out,
            verdicts,
            route_table,
            routes,
            transit_ok,
            tails
        );
        dff_setup!(
            self,
            clock,
            w_beat,
            at_giant,
            at_offload_giant,
            w_class,
            dq_go,
            dq_drop,
            dq_mac_bad,
            dq_cand,
            dq_transit,
            dq_last,
            tail_q,
            swallow,
            pre_q,
            other_q,
            b_start,
            b_class,
            tag_start,
            ttag_start,
            mal_carry,
            route_wait,
            level,
            st_r,
            tk_r,
            frames_in,
            w_end_r,
            r_end_r,
            t_started,
            t_pop,
            o_pop,
            hyg_r,
            p_end,
            lag_ok,
            offload_valid
        );
        for i in 0..2 {
            self.tag[i].clock.next = self.clock.val();
        }
        for i in 0..3 {
            self.ttag[i].clock.next = self.clock.val();
        }
        self.route_table.cfg_we.next = self.cfg_we.val();
        self.route_table.cfg_addr.next = self.cfg_addr.val();
        self.route_table.cfg_data.next = self.cfg_data.val();
        self.routes.reset.next = self.reset.val();
        self.transit_ok.reset.next = self.reset.val();
        self.tails.reset.next = self.reset.val();
        self.capture.reset.next = self.reset.val();
        self.classifier.reset.next = self.reset.val();
        self.ingress.reset.next = self.reset.val();
        self.ingress.cut_through.next = true;
        self.ingress.keep_bad.next = true;
        self.ingress.early.next = true;
        self.ingress_out.reset.next = self.reset.val();
        self.ingress.almost_level.next = self.ingress_room.val();
        self.classes.reset.next = self.reset.val();
        self.offload.reset.next = self.reset.val();
        self.offload_out.reset.next = self.reset.val();
        self.verdicts.reset.next = self.reset.val();

        // ---- Write side: every accepted beat, unless a giant's tail is being swallowed, is
        // written to the ingress buffer and tapped by the parser (which so sees a giant end
        // where it is cut off).
        self.class_room.next = !self.classes.full.val();
        if self.late.val() {
            self.class_room.next = !self.classes.almost_full.val();
        }
        self.s_axis.tready.next =
            self.swallow.q.val() | (!self.ingress.almost_full.val() & self.class_room.val());
        self.accept.next = self.s_axis.tvalid.val()
            & (self.swallow.q.val() | (!self.ingress.almost_full.val() & self.class_room.val()));
        self.stored.next = self.accept.val() & !self.swallow.q.val();
        // The rules on the captured beats with the arriving one in its place.
        self.live_beat.lane.next = self.s_axis.tdata.val();
        self.live.next =
            (self.capture.header.val() & self.live_mask.val()) | self.live_beat.word.val();
        self.rule.header.next = self.live.val();
        // The rule and the destination board on the header with the arriving beat in the
        // place of the beat before the deciding one, kept from every stored beat.
        self.prev_beat.lane.next = self.s_axis.tdata.val();
        self.prev.next =
            (self.capture.header.val() & self.prev_mask.val()) | self.prev_beat.word.val();
        self.prev_rule.header.next = self.prev.val();
        self.pre_q.d.next = self.pre_q.q.val();
        self.other_q.d.next = self.other_q.q.val();
        if self.stored.val() {
            self.pre_q.d.next = self.prev_rule.checks.val();
            self.other_q.d.next = self
                .prev
                .val()
                .get_bits::<8>(self.dst_host_at.val().index())
                != self.route_table.my_board.val();
        }
        self.cand.next = ((self.pre_q.q.val() & self.early.val())
            | (self.rule.checks.val() & !self.early.val()))
            == self.all_checks.val();
        // A board frame for another board: its route is read on this clock.
        self.msg_type.next = self.live.val().get_bits::<4>(self.msg_at.val().index());
        self.dst_host.next = self
            .live
            .val()
            .get_bits::<8>(self.dst_host_at.val().index());
        self.other_host.next = self.dst_host.val() != self.route_table.my_board.val();
        if self.host_early.val() {
            self.other_host.next = self.other_q.q.val();
        }
        self.is_transit.next =
            (((self.board_msgs.val() >> bit_cast::<16, 4>(self.msg_type.val())) & bits::<16>(1))
                != bits::<16>(0))
                & self.other_host.val();
        self.route_table.addr.next = bit_cast::<6, 8>(self.dst_host.val());
        // What this beat tells: the frame ends short, is marked bad, or runs past the maximum.
        self.runt.next = self.s_axis.tlast.val()
            & ((self.w_beat.q.val() < self.runt_beat.val())
                | ((self.w_beat.q.val() == self.runt_beat.val())
                    & !self
                        .s_axis
                        .tkeep
                        .val()
                        .get_bit(self.runt_lane.val().index())));
        self.mac_bad.next =
            self.s_axis.tlast.val() & self.s_axis.tuser.val().get_bit(self.bad_at.val().index());
        self.giant.next = self.at_giant.q.val();
        if (self.w_class.q.val() == self.c_offload.val())
            | (self.w_class.q.val() == self.c_transit.val())
        {
            self.giant.next = self.at_offload_giant.q.val();
        }
        // The class is decided on the deciding beat, or on an earlier last beat (and set then,
        // or a clock later: `late`).
        self.deciding.next = !self.swallow.q.val()
            & ((self.w_beat.q.val() == self.decide_beat.val())
                | (self.s_axis.tlast.val() & (self.w_beat.q.val() < self.decide_beat.val())));
        self.d_go.next = self.accept.val() & self.deciding.val();
        self.d_drop.next = self.s_axis.tlast.val() & (self.runt.val() | self.mac_bad.val());
        self.d_mac_bad.next = self.mac_bad.val();
        self.d_cand.next = self.cand.val();
        self.d_transit.next = self.is_transit.val();
        self.dq_go.d.next = self.d_go.val();
        self.dq_drop.d.next = self.d_drop.val();
        self.dq_mac_bad.d.next = self.d_mac_bad.val();
        self.dq_cand.d.next = self.d_cand.val();
        self.dq_transit.d.next = self.d_transit.val();
        self.dq_last.d.next = self.s_axis.tlast.val();
        if self.late.val() {
            self.d_go.next = self.dq_go.q.val();
            self.d_drop.next = self.dq_drop.q.val();
            self.d_mac_bad.next = self.dq_mac_bad.q.val();
            self.d_cand.next = self.dq_cand.q.val();
            self.d_transit.next = self.dq_transit.q.val();
        }
        self.decided.next = self.c_pass.val();
        if self.d_drop.val() {
            self.decided.next = self.c_drop.val();
        } else if self.d_cand.val() & self.d_transit.val() {
            self.decided.next = self.c_transit.val();
        } else if self.d_cand.val() {
            self.decided.next = self.c_busy.val();
            if !self.offload.almost_full.val() & !self.verdicts.almost_full.val() {
                self.decided.next = self.c_offload.val();
            }
        }
        // The class being set is the frame being written's, unless that frame ended at its
        // deciding beat (`late_end`): the beat coming in now is then the next frame's.
        self.set_here.next = self.d_go.val() & !(self.late_end.val() & self.dq_last.q.val());
        self.cur_class.next = self.w_class.q.val();
        if self.set_here.val() {
            self.cur_class.next = self.decided.val();
        }
        self.classes.write.next = self.d_go.val();
        self.classes.data_in.next = self.decided.val();
        // The beat as stored: a giant is cut off here, and the last beat carries the verdict
        // on the frame's hygiene in the bad bit.
        self.w_last.next = self.s_axis.tlast.val() | self.giant.val();
        self.w_user.next = self.s_axis.tuser.val() & !self.bad_bit.val();
        if self.w_last.val() & (self.giant.val() | self.mac_bad.val() | self.runt.val()) {
            self.w_user.next = self.s_axis.tuser.val() | self.bad_bit.val();
        }
        self.ingress.s_axis.tvalid.next = self.stored.val();
        self.capture.s_axis_tdata.next = self.s_axis.tdata.val();
        self.capture.s_axis_tkeep.next = self.s_axis.tkeep.val();
        self.capture.s_axis_tlast.next = self.w_last.val();
        self.capture.s_axis_tvalid.next = self.stored.val();
        self.ingress.s_axis.tdata.next = self.s_axis.tdata.val();
        self.ingress.s_axis.tkeep.next = self.s_axis.tkeep.val();
        self.ingress.s_axis.tlast.next = self.w_last.val();
        self.ingress.s_axis.tuser.next = self.w_user.val();
        if self.set_here.val() {
            self.w_class.d.next = self.decided.val();
        }
        if self.d_go.val() {
            if self.decided.val() == self.c_busy.val() {
                self.ev.next.engine_busy_drops = true;
            } else if self.decided.val() == self.c_drop.val() {
                if self.d_mac_bad.val() {
                    self.ev.next.bad_frame_drops = true;
                } else {
                    self.ev.next.runt_drops = true;
                }
            }
        }
        // One count per frame that leaves marked bad (a dropped or busy one was counted when
        // its class was set): its class's bit 0.
        self.tail_now.next = bit_cast::<4, 1>(
            (self.stored.val() & self.w_last.val() & self.cur_class.val().get_bit(0)).into(),
        ) | (bit_cast::<4, 1>(self.giant.val().into()) << 1)
            | (bit_cast::<4, 1>(self.mac_bad.val().into()) << 2)
            | (bit_cast::<4, 1>(self.runt.val().into()) << 3);
        self.tail_q.d.next = self.tail_now.val();
        self.tail_p.next = self.tail_now.val();
        if self.late.val() {
            // Bit 0 from `w_end_r` and `b_class` (the same beat's, registered beside it).
            self.tail_p.next = (self.tail_q.q.val() & bits::<4>(14))
                | bit_cast::<4, 1>((self.w_end_r.q.val() & self.b_class.q.val().get_bit(0)).into());
        }
        self.tail_ev.next = bits::<3>(0);
        if self.tail_p.val().get_bit(0) {
            if self.tail_p.val().get_bit(1) {
                self.tail_ev.next = bits::<3>(1);
            } else if self.tail_p.val().get_bit(2) {
                self.tail_ev.next = bits::<3>(2);
            } else if self.tail_p.val().get_bit(3) {
                self.tail_ev.next = bits::<3>(4);
            }
        }
        if self.tail_ev.val().get_bit(0) {
            self.ev.next.giant_drops = true;
        }
        if self.tail_ev.val().get_bit(1) {
            self.ev.next.bad_frame_drops = true;
        }
        if self.tail_ev.val().get_bit(2) {
            self.ev.next.runt_drops = true;
        }
        if self.accept.val() & !self.swallow.q.val() {
            self.w_beat.d.next = self.w_beat.q.val() + bits::<16>(1);
            self.at_giant.d.next = self.w_beat.q.val() == self.giant_prev.val();
            self.at_offload_giant.d.next = self.w_beat.q.val() == self.offload_giant_prev.val();
            if self.giant.val() & !self.s_axis.tlast.val() {
                self.swallow.d.next = true;
            }
        }
        if self.accept.val() & self.s_axis.tlast.val() {
            self.w_beat.d.next = bits::<16>(0);
            self.at_giant.d.next = false;
            self.at_offload_giant.d.next = false;
            self.swallow.d.next = false;
            self.w_class.d.next = self.c_drop.val();
        }
        // The classifier starts on a frame once its header is in, or at its end if it is
        // shorter (one start per frame): offload and transit frames are judged while they
        // arrive. Whether they hold their IPv4 length is known at their end (the tail).
        self.start_beat.next = (self.w_beat.q.val() == self.hb_last.val())
            | (self.w_last.val() & (self.w_beat.q.val() < self.hb_last.val()));
        self.b_start.d.next = self.stored.val() & self.start_beat.val();
        self.b_class.d.next = self.cur_class.val();
        self.tag_go.next = self.b_start.q.val() & (self.b_class.q.val() == self.c_offload.val());
        self.ttag_go.next = self.b_start.q.val() & (self.b_class.q.val() == self.c_transit.val());
        // The header's last beat is the deciding one with `late_end`: tagged as its class is
        // set.
        self.tag_start.d.next = self.d_go.val() & (self.decided.val() == self.c_offload.val());
        self.ttag_start.d.next = self.d_go.val() & (self.decided.val() == self.c_transit.val());
        if self.late_end.val() {
            self.tag_go.next = self.tag_start.q.val();
            self.ttag_go.next = self.ttag_start.q.val();
        }
        self.tail_tag.next = self.w_end_r.q.val()
            & ((self.b_class.q.val() == self.c_offload.val())
                | (self.b_class.q.val() == self.c_transit.val()));
        // The tail check is queued a clock after the last beat came in (`tail_tag`), for a
        // frame that ended at its deciding beat as its class is set, which is that clock too
        // (the capture's `len_ok` is the frame's then: the next frame's end is a clock later
        // at the earliest).
        self.tail_write.next = self.tail_tag.val();
        if self.late_end.val() & self.d_go.val() & self.dq_last.q.val() {
            self.tail_write.next = (self.decided.val() == self.c_offload.val())
                | (self.decided.val() == self.c_transit.val());
        }
        self.tails.write.next = self.tail_write.val();
        self.tails.data_in.next = self.capture.len_ok.val();
        self.tag[0].d.next = self.tag_go.val();
        self.tag[1].d.next = self.tag[0].q.val();
        self.ttag[0].d.next = self.ttag_go.val();
        self.ttag[1].d.next = self.ttag[0].q.val();
        self.ttag[2].d.next = self.ttag[1].q.val();
        self.ttag_v.next = self.ttag[2].q.val();
        self.tag_e.next = self.tag[1].q.val();
        if self.late_end.val() {
            self.ttag_v.next = self.ttag[1].q.val();
            self.tag_e.next = self.tag[0].q.val();
        }
        // A transit frame's route, read on its deciding clock (the table's read is
        // synchronous: the route is out a clock later, when `late` sets the class).
        self.route_set.next = self.d_go.val() & (self.decided.val() == self.c_transit.val());
        self.route_wait.d.next = self.route_set.val();
        self.route_push.next = self.route_wait.q.val();
        if self.late.val() {
            self.route_push.next = self.route_set.val();
        }
        self.routes.write.next = self.route_push.val();
        self.routes.data_in.next = self.route_table.ports.val();
        if self.reset.val() {
            self.w_beat.d.next = bits::<16>(0);
            self.at_giant.d.next = false;
            self.at_offload_giant.d.next = false;
            self.w_class.d.next = bits::<3>(0);
            self.dq_go.d.next = false;
            self.dq_drop.d.next = false;
            self.dq_mac_bad.d.next = false;
            self.dq_cand.d.next = false;
            self.dq_transit.d.next = false;
            self.dq_last.d.next = false;
            self.tail_q.d.next = bits::<4>(0);
            self.pre_q.d.next = bits::<CHECKS>(0);
            self.other_q.d.next = false;
            self.swallow.d.next = false;
            self.b_start.d.next = false;
            self.tag_start.d.next = false;
            self.ttag_start.d.next = false;
            self.route_wait.d.next = false;
        }

        // ---- The classifier checks every frame from its header; the verdicts of offload and
        // transit frames are kept.
        self.classifier.header.next = self.capture.header.val();
        self.classifier.frame_len.next = self.capture.frame_len.val();
        self.classifier.ranks_per_host_next.next = self.capture.ranks_per_host_next.val();
        self.classifier.start.next = self.capture.header_valid.val()
            | (self.capture.frame_done.val() & self.capture.short_frame.val());
        self.classifier.short_frame.next =
            self.capture.frame_done.val() & self.capture.short_frame.val();
        // The queue's inputs: the classifier's early outputs (the early verdict, above).
        self.v_write.next = self.classifier.early_valid.val() & self.tag_e.val();
        self.verdict_in.next.offload = self.classifier.early_offload.val();
        self.verdict_in.next.unsupported = self.classifier.early_unsupported.val();
        self.verdict_in.next.payload_len = self.classifier.early_payload_len.val();
        self.verdict_in.next.fields = self.classifier.early_fields.val();
        self.verdict_in.next.dir_index = self.classifier.early_dir_index.val();
        self.verdicts.write.next = self.v_write.val();
        self.verdicts.data_in.next = self.verdict_in.val();
        self.t_arrive.next = self.classifier.verdict_valid.val() & self.ttag_v.val();
        self.transit_ok.data_in.next =
            self.classifier.offload.val() & !self.classifier.unsupported.val();

        // ---- Read side of the ingress buffer (its register slice): a frame leaves once its
        // class is known.
        AxisSource::<W, K>::join(&mut self.ingress.m_axis, &mut self.ingress_out.s_axis);
        self.r_valid.next = self.ingress_out.m_axis.tvalid.val() & !self.classes.empty.val();
        self.r_class.next = self.classes.data_out.val();
        // The class being set (`late`) with none queued is the head frame's: it is the oldest
        // without one. Its last beat is not out of the slice yet, so the class is in the FIFO
        // by then. Each is a gate on the `dq_*` registers (and the two buffers' flags).
        self.by_pass.next = self.late.val()
            & self.classes.empty.val()
            & self.dq_go.q.val()
            & !self.dq_drop.q.val()
            & !self.dq_cand.q.val();
        self.by_off.next = self.late.val()
            & self.classes.empty.val()
            & self.dq_go.q.val()
            & !self.dq_drop.q.val()
            & self.dq_cand.q.val()
            & !self.dq_transit.q.val()
            & !self.offload.almost_full.val()
            & !self.verdicts.almost_full.val();
        self.head_user.next = self.ingress_out.m_axis.tuser.val();
        // Pass-through: host -> uplink, network -> host.
        self.pass_dst.next = self.to_host.val();
        if (self.head_user.val() & self.from_host.val()) != bits::<16>(0) {
            self.pass_dst.next = self.to_uplink.val();
        }
        self.m_axis.tdata.next = self.ingress_out.m_axis.tdata.val();
        self.m_axis.tkeep.next = self.ingress_out.m_axis.tkeep.val();
        self.m_axis.tlast.next = self.ingress_out.m_axis.tlast.val();
        self.m_axis.tuser.next =
            (self.head_user.val() & self.source_mask.val()) | self.pass_dst.val();
        self.p_valid.next = (self.r_valid.val() & (self.r_class.val() == self.c_pass.val()))
            | (self.ingress_out.m_axis.tvalid.val() & self.by_pass.val());
        self.m_axis.tvalid.next = self.p_valid.val();
        // Offload: into the offload buffer as the beats come (cut-through); the last beat
        // carries the frame's tail check's failure as the bad bit, so the engine, which acts
        // on the frame from its header, undoes what it did. The check is at the head of
        // `tails` by the time the last beat can leave: it is queued a clock after that beat
        // entered the ingress buffer (the capture's `frame_done`), the beat leaves two clocks
        // after at the earliest, and the frames before it took theirs: each pops its check
        // the clock after its last beat left (`t_pop`, `o_pop`), at least a clock before
        // this frame's last beat can leave, as offload and transit frames are never shorter
        // than two beats (a runt is dropped). So `tails.empty` need not gate the read: a path from its
        // pointers into the ingress buffer's read enable was the board's worst at 104.1 MHz.
        self.hyg_bad.next = self.head_user.val().get_bit(self.bad_at.val().index());
        self.o_user.next = self.head_user.val();
        if self.ingress_out.m_axis.tlast.val() & !self.tails.data_out.val() {
            self.o_user.next = self.head_user.val() | self.bad_bit.val();
        }
        self.o_valid.next = (self.r_valid.val() & (self.r_class.val() == self.c_offload.val()))
            | (self.ingress_out.m_axis.tvalid.val() & self.by_off.val());
        self.offload.s_axis.tdata.next = self.ingress_out.m_axis.tdata.val();
        self.offload.s_axis.tkeep.next = self.ingress_out.m_axis.tkeep.val();
        self.offload.s_axis.tlast.next = self.ingress_out.m_axis.tlast.val();
        self.offload.s_axis.tuser.next = self.o_user.val();
        // The buffer always has room for an admitted frame (`offload_level`); its registered
        // `room`, not its `tready`, gates the write, so no path runs from its pointers through
        // `r_take` (board64's worst at 114.4 MHz ran from its read pointer to `transit_ok`).
        self.offload.s_axis.tvalid.next = self.o_valid.val() & self.offload.room.val();
        self.offload.almost_level.next = self.offload_level.val();
        self.offload.cut_through.next = true;
        self.offload.keep_bad.next = true;
        // The engine sees a beat the clock after it was stored (the 64-bit engine hop waits
        // for the header beats to pass the splitter).
        self.offload.early.next = true;
        // Transit: the port mask from the route table; the first beat waits until the last
        // cannot overtake the verdict ([`TRANSIT_LAG`]), the last beat for the verdict, which
        // marks a frame that failed a check bad.
        self.r_last.next = self.ingress_out.m_axis.tlast.val();
        // The verdict is taken from its queue, a clock after the classifier gave it (it comes
        // from the header now, early enough; taking it as it arrived put the classifier's
        // output on the transit valid, the merge's grant and an output queue's write pointer,
        // board64's worst path at 110.1 MHz).
        self.t_have.next = !self.transit_ok.empty.val();
        self.t_ok.next = self.transit_ok.data_out.val() & self.tails.data_out.val();
        self.level_now.next = self.level.q.val() + bit_cast::<4, 1>(self.st_r.q.val().into())
            - bit_cast::<4, 1>(self.tk_r.q.val().into());
        self.lag_ok.d.next = ((self.frames_in.q.val()
            + bit_cast::<4, 1>(self.w_end_r.q.val().into())
            - bit_cast::<4, 1>(self.r_end_r.q.val().into()))
            == bits::<4>(0))
            & (self.level_now.val() >= self.transit_lag.val());
        self.t_go.next = self.t_started.q.val() | self.t_have.val() | self.lag_ok.q.val();
        self.t_valid.next = self.r_valid.val()
            & (self.r_class.val() == self.c_transit.val())
            & !self.routes.empty.val()
            & self.t_go.val()
            & !self.t_pop.q.val()
            & (!self.r_last.val() | self.t_have.val());
        self.t_bad.next = self.r_last.val() & !self.t_ok.val();
        self.m_transit_axis.tdata.next = self.ingress_out.m_axis.tdata.val();
        self.m_transit_axis.tkeep.next = self.ingress_out.m_axis.tkeep.val();
        self.m_transit_axis.tlast.next = self.r_last.val();
        self.t_user.next = (self.head_user.val() & self.source_mask.val())
            | (bit_cast::<16, 8>(self.routes.data_out.val()) << 8);
        if self.t_bad.val() {
            self.t_user.next = self.t_user.val() | self.bad_bit.val();
        }
        self.m_transit_axis.tuser.next = self.t_user.val();
        self.m_transit_axis.tvalid.next = self.t_valid.val();
        self.h_take.next = self.r_valid.val(); // drop, busy: drain
        if self.r_class.val() == self.c_pass.val() {
            self.h_take.next = self.r_valid.val() & self.m_axis.tready.val();
        } else if self.r_class.val() == self.c_offload.val() {
            self.h_take.next = self.r_valid.val() & self.offload.room.val();
        } else if self.r_class.val() == self.c_transit.val() {
            self.h_take.next = self.t_valid.val() & self.m_transit_axis.tready.val();
        }
        self.b_take.next = self.ingress_out.m_axis.tvalid.val()
            & ((self.by_pass.val() & self.m_axis.tready.val())
                | (self.by_off.val() & self.offload.room.val()));
        self.r_take.next = self.h_take.val() | self.b_take.val();
        self.ingress_out.m_axis.tready.next = self.r_take.val();
        self.classes.read.next = self.h_take.val() & self.r_last.val();
        self.t_end.next =
            self.h_take.val() & self.r_last.val() & (self.r_class.val() == self.c_transit.val());
        self.o_end.next =
            self.h_take.val() & self.r_last.val() & (self.r_class.val() == self.c_offload.val());
        self.t_pop.d.next = self.t_end.val();
        self.o_pop.d.next = self.o_end.val();
        self.hyg_r.d.next = self.hyg_bad.val();
        self.routes.read.next = self.t_pop.q.val();
        self.tails.read.next = self.t_pop.q.val() | self.o_pop.q.val();
        // A frame that failed a check (an offload frame's tail; a transit frame's header or
        // tail, a reserved code among them) is counted as it leaves (a clock after), unless
        // it was counted as it came in (marked bad).
        self.mal_in.next = !self.hyg_r.q.val()
            & ((self.o_pop.q.val() & !self.tails.data_out.val())
                | (self.t_pop.q.val() & !self.t_ok.val()));
        self.transit_ok.write.next = self.t_arrive.val();
        self.transit_ok.read.next = self.t_pop.q.val();
        if self.t_pop.q.val() & self.t_ok.val() & !self.hyg_r.q.val() {
            self.ev.next.transits = true;
        }
        if self.h_take.val() & (self.r_class.val() == self.c_transit.val()) {
            self.t_started.d.next = !self.r_last.val();
        }
        // Beats and whole frames in the ingress buffer.
        self.st_r.d.next = self.stored.val();
        self.tk_r.d.next = self.r_take.val();
        if self.st_r.q.val() & !self.tk_r.q.val() {
            self.level.d.next = self.level.q.val() + bits::<4>(1);
        } else if !self.st_r.q.val() & self.tk_r.q.val() {
            self.level.d.next = self.level.q.val() - bits::<4>(1);
        }
        self.w_end.next = self.stored.val() & self.w_last.val();
        self.r_end.next = self.h_take.val() & self.r_last.val();
        self.w_end_r.d.next = self.w_end.val();
        self.r_end_r.d.next = self.r_end.val();
        if self.w_end_r.q.val() & !self.r_end_r.q.val() {
            self.frames_in.d.next = self.frames_in.q.val() + bits::<4>(1);
        } else if !self.w_end_r.q.val() & self.r_end_r.q.val() {
            self.frames_in.d.next = self.frames_in.q.val() - bits::<4>(1);
        }
        if self.reset.val() {
            self.t_started.d.next = false;
            self.t_pop.d.next = false;
            self.o_pop.d.next = false;
            self.hyg_r.d.next = false;
            self.level.d.next = bits::<4>(0);
            self.st_r.d.next = false;
            self.tk_r.d.next = false;
            self.frames_in.d.next = bits::<4>(0);
            self.w_end_r.d.next = false;
            self.r_end_r.d.next = false;
            self.lag_ok.d.next = false;
        }
        self.p_end.d.next = self.h_take.val()
            & self.ingress_out.m_axis.tlast.val()
            & (self.r_class.val() == self.c_pass.val())
            & !self.hyg_bad.val();
        if self.reset.val() {
            self.p_end.d.next = false;
        }
        if self.p_end.q.val() {
            self.ev.next.passed_frames = true;
        }

        // ---- Read side of the offload buffer: the head frame goes where its verdict says.
        AxisSource::<W, K>::join(&mut self.offload.m_axis, &mut self.offload_out.s_axis);
        self.head.next = self.verdicts.data_out.val();
        self.head_valid.next = !self.verdicts.empty.val()
            & self.offload_out.m_axis.tvalid.val()
            & !self.verdicts.reading.val();
        self.m_offload_axis.tdata.next = self.offload_out.m_axis.tdata.val();
        self.m_offload_axis.tkeep.next = self.offload_out.m_axis.tkeep.val();
        self.m_offload_axis.tlast.next = self.offload_out.m_axis.tlast.val();
        self.m_offload_axis.tuser.next = self.offload_out.m_axis.tuser.val();
        self.offload_fields.next = self.head.val().fields;
        self.offload_payload_len.next = self.head.val().payload_len;
        self.offload_dir.next = self.head.val().dir_index;
        self.offload_unsupported.next = self.head.val().unsupported;
        self.m_offload_axis.tvalid.next = self.offload_valid.q.val();
        self.head_ready.next = true; // malformed: drain
        if self.head.val().offload {
            self.head_ready.next = self.m_offload_axis.tready.val();
        }
        // Before the verdict: the splitter skips header beats (`offload_peek`).
        self.head_take.next = self.head_valid.val() & self.head_ready.val();
        if !self.head_valid.val() {
            self.head_take.next = self.offload_skip.val();
        }
        self.offload_out.m_axis.tready.next = self.head_take.val();
        self.offload_peek.next = self.offload_out.m_axis.tvalid.val()
            & (!self.head_valid.val() | self.head.val().offload);
        self.offload_gone.next = self.head_valid.val()
            & !self.head.val().offload
            & self.offload_out.m_axis.tvalid.val()
            & self.offload_out.m_axis.tlast.val();
        self.pop_next.next =
            self.head_valid.val() & self.head_ready.val() & self.offload_out.m_axis.tlast.val();
        if self.reset.val() {
            self.pop_next.next = false;
        }
        self.verdicts.read_next.next = self.pop_next.val();
        // `head.offload & head_valid` as it will be after the edge.
        self.head_after.next = self.verdicts.data_next.val();
        self.offload_valid.d.next = self.head_after.val().offload
            & !self.verdicts.empty_next.val()
            & self.offload_out.m_tvalid_next.val()
            & !self.pop_next.val();
        // A frame marked bad goes to the engine too (it undoes what it did), counted when it
        // was marked; one that failed the header checks is drained and counted here.
        self.head_bad.next = self
            .offload_out
            .m_axis
            .tuser
            .val()
            .get_bit(self.bad_at.val().index());
        if self.head_valid.val()
            & self.m_offload_axis.tready.val()
            & self.offload_out.m_axis.tlast.val()
            & self.head.val().offload
            & !self.head_bad.val()
        {
            self.ev.next.offload_frames = true;
        }
        self.mal_out.next = self.head_valid.val()
            & self.head_ready.val()
            & self.offload_out.m_axis.tlast.val()
            & !self.head.val().offload
            & !self.head_bad.val();
        if self.mal_in.val() | self.mal_out.val() | self.mal_carry.q.val() {
            self.ev.next.malformed_drops = true;
        }
        self.mal_carry.d.next = (self.mal_in.val() & self.mal_out.val())
            | (self.mal_carry.q.val() & (self.mal_in.val() | self.mal_out.val()));
        if self.reset.val() {
            self.mal_carry.d.next = false;
        }
        self.ev.next.engine_waits =
            self.head.val().offload & self.head_valid.val() & !self.m_offload_axis.tready.val();
        self.events.next = self.ev.val();
    }
}

/// ZedBoard: 64-bit beats, 2048 beats (16 KiB) of offload buffer.
pub type FrameRouter64 = FrameRouter<64, 8, 89, 72, 73, 11, 12, 8>;
/// NetFPGA SUME: 256-bit beats, 512 beats (16 KiB) of offload buffer.
pub type FrameRouter256 = FrameRouter<256, 32, 305, 288, 289, 9, 10, 2>;

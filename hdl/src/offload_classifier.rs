//! Offload parser stage 2: decides what a captured frame is — pass-through, a valid offload
//! frame, or a malformed offload frame to drop and count — exactly as
//! `collwire_proto::frame::classify` does, and decodes every address and offload-header field.
//!
//! Input: the first 64 frame bytes from [`crate::header_capture`] at its `start` pulse: as soon
//! as the header is in (`header_valid`), or at the end of a frame shorter than the header
//! (`frame_done` with `short_frame`, and then the frame's length). Output: `verdict_valid`
//! pulses [`CLASSIFY_LATENCY`] clocks later with the verdict and the frame's decoded fields
//! ([`FrameFields`]). It takes one frame per clock (fully pipelined), so back-to-back runts
//! cannot overrun it. The one check that needs the frame's end — the IPv4 total length within
//! the frame — is the capture's (`len_ok` at `frame_done`): the router judges a frame from its
//! header and marks it bad at its tail if that fails ([`crate::frame_router`]).
//!
//! The rules (docs/protocol.md, "Classification"):
//! * candidate: length ≥ 38, EtherType 0x0800, IPv4 version 4 with IHL 5, not a fragment,
//!   protocol 17, UDP destination port 0xC011 ([`crate::offload_candidate`]). Anything else
//!   passes through untouched.
//! * a candidate is malformed unless: it holds the 64-byte header; IPv4 total length ≥ 20 (and
//!   ≤ frame length − 14, trailing bytes being Ethernet padding: the capture's check); the IP
//!   payload holds a UDP header; the UDP length is 0 (use the IP payload) or 8 ≤ length ≤ IP
//!   payload; the datagram holds the 22-byte offload header; magic, version and every code are
//!   known; the op is defined on the datatype; comm size and ranks per host are non-zero and
//!   comm size is a multiple of ranks per host (the only multi-clock check: a table lookup a
//!   clock ahead, then one multiply and two compares in stages 0 to 2, [`Divisor`]); rank <
//!   comm size
//!   (except partial/result, whose rank is `register << 8 | board`); root < comm size; seg
//!   index < seg count; no data where none is allowed; payload length = elements × element
//!   size (4 for an error datagram).
//! * `unsupported` marks a valid frame that uses a reserved code (the engine answers it with an
//!   error datagram instead of acting on it).
//!
//! Every field is read through [`crate::header_fields::HeaderFields`] (offsets from
//! `collwire_proto`'s field table and the Ethernet/IPv4/UDP layout), once, on the arriving
//! header (`fin`); the pipeline carries the decoded record (364 bits, not the 512-bit header),
//! and the divisibility stages read comm size and ranks per host from it. Addresses leave in wire
//! byte order (byte 0 in bits 7:0), ready to be copied into a reply. The checks are width
//! independent; [`crate::frame_router`] puts this behind the capture.

use collwire_proto::{Algorithm, Collective, Datatype, MessageType, ReduceOp};
use rust_hdl::prelude::*;

use crate::arrival_verdict::ArrivalDir;
use crate::header_fields::{FrameFields, HeaderFields};
use crate::offload_candidate::{CANDIDATE_BYTES, OffloadCandidate};

/// Clocks from `start` to `verdict_valid`.
pub const CLASSIFY_LATENCY: usize = 3;
/// Clocks from `start` to `early_valid`.
pub const EARLY_LATENCY: usize = CLASSIFY_LATENCY - 1;

fn nibble(v: usize) -> Constant<Bits<4>> {
    Constant::new(bits::<4>(v as u64))
}

fn mask16(bits_set: impl Iterator<Item = u8>) -> Constant<Bits<16>> {
    Constant::new(bits::<16>(bits_set.fold(0u64, |m, c| m | 1 << c)))
}

/// The constants of a divisibility test by a ranks-per-host value `r = 2^k·d` (`d` odd), for
/// 16-bit numbers `n` (Granlund and Montgomery, "Division by invariant integers using
/// multiplication", 1994, §9): `n` is a multiple of `r` iff `n & low_mask == 0` and
/// `n · inverse mod 2^16 ≤ limit`. One multiply and two compares instead of a divider.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct Divisor {
    /// `d⁻¹ mod 2^16`.
    pub inverse: Bits<16>,
    /// `(2^16 − 1) / d`.
    pub limit: Bits<16>,
    /// `2^k − 1`.
    pub low_mask: Bits<16>,
}

impl Divisor {
    /// The test for `r` (0: never asked, the header check rejects it first).
    pub fn of(r: usize) -> Divisor {
        if r == 0 {
            return Divisor::default();
        }
        let k = r.trailing_zeros();
        let d = (r >> k) as u16;
        // Newton's iteration doubles the correct low bits: 3, 6, 12, 24.
        let mut inverse = d;
        for _ in 0..4 {
            inverse = inverse.wrapping_mul(2u16.wrapping_sub(d.wrapping_mul(inverse)));
        }
        Divisor {
            inverse: u64::from(inverse).into(),
            limit: u64::from(u16::MAX / d).into(),
            low_mask: ((1u64 << k) - 1).into(),
        }
    }

    /// What the hardware computes.
    pub fn divides(&self, n: u16) -> bool {
        let (inverse, limit, mask) = (
            self.inverse.to_u64() as u16,
            self.limit.to_u64() as u16,
            self.low_mask.to_u64() as u16,
        );
        n & mask == 0 && n.wrapping_mul(inverse) <= limit
    }
}

#[derive(LogicBlock)]
pub struct OffloadClassifier {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no frame in the pipeline.
    pub reset: Signal<In, Bit>,
    pub header: Signal<In, Bits<512>>,
    /// The header is in (or a frame shorter than it ended): classify it.
    pub start: Signal<In, Bit>,
    /// With `start`: the frame ended before its 64th byte (never an offload frame; a candidate
    /// if at least [`CANDIDATE_BYTES`] long, then malformed), and its length.
    pub short_frame: Signal<In, Bit>,
    pub frame_len: Signal<In, Bits<16>>,
    /// `header`'s ranks-per-host byte a clock ahead (the capture's `ranks_per_host_next`): the
    /// divisor table is read with it, so that its word is in flip-flops at stage 0.
    pub ranks_per_host_next: Signal<In, Bits<8>>,
    /// One clock per classified frame.
    pub verdict_valid: Signal<Out, Bit>,
    /// A valid offload frame: hand it to the collective engine.
    pub offload: Signal<Out, Bit>,
    /// Addressed to the engine but invalid: drop and count.
    pub malformed: Signal<Out, Bit>,
    /// Valid but uses a reserved code (answer with an error datagram).
    pub unsupported: Signal<Out, Bit>,
    /// The frame's fields, decoded (what the engine acts on).
    pub fields: Signal<Out, FrameFields>,
    /// Payload bytes after the offload header.
    pub payload_len: Signal<Out, Bits<16>>,
    /// The program directory's index for the frame ([`ArrivalDir`]: algorithm, kind, boards),
    /// with `fields`. The engine reads its directory at this index on the clock it first sees
    /// the frame, from the verdict queue's flip-flop: computing it there, from the fields,
    /// put the ranks-per-host compare and a subtraction in front of the directory RAM.
    pub dir_index: Signal<Out, Bits<9>>,
    /// The same verdict a clock earlier ([`EARLY_LATENCY`] clocks after `start`), from stage
    /// 1's registers: `early_offload` is one gate of four flip-flops (the compare's last gate
    /// and the other checks), `early_unsupported` one more. For the router's verdict queue,
    /// whose head can be the word written on that clock (the router's early verdict,
    /// `hdl/src/frame_router.rs`).
    pub early_valid: Signal<Out, Bit>,
    pub early_offload: Signal<Out, Bit>,
    pub early_unsupported: Signal<Out, Bit>,
    pub early_fields: Signal<Out, FrameFields>,
    pub early_payload_len: Signal<Out, Bits<16>>,
    pub early_dir_index: Signal<Out, Bits<9>>,
    // Code tables, taken from collwire-proto.
    code: [Constant<Bits<4>>; 16],
    msg_max: Constant<Bits<4>>,
    coll_max: Constant<Bits<4>>,
    alg_max: Constant<Bits<4>>,
    dtype_max: Constant<Bits<4>>,
    op_max: Constant<Bits<4>>,
    msg_error: Constant<Bits<4>>,
    /// Board-to-board message types (`MessageType::is_board_to_board`): `rank` names a
    /// register and a board, not a rank.
    board_msgs: Constant<Bits<16>>,
    magic_byte: Constant<Bits<8>>,
    version: Constant<Bits<4>>,
    /// Per datatype code: the ops defined on it.
    valid_ops: [Constant<Bits<16>>; 16],
    /// Per datatype code: log2 of the element size.
    size_log2: [Constant<Bits<4>>; 16],
    msgs_without_data: Constant<Bits<16>>,
    colls_with_data: Constant<Bits<16>>,
    supported_colls: Constant<Bits<16>>,
    supported_algs: Constant<Bits<16>>,
    supported_dtypes: Constant<Bits<16>>,
    supported_ops: Constant<Bits<16>>,
    /// The arriving header as named fields.
    fin: HeaderFields,
    /// The candidate rule ([`OffloadCandidate`]) and the length it needs.
    rule: OffloadCandidate,
    candidate_bytes: Constant<Bits<20>>,
    total_len: Signal<Local, Bits<20>>,
    udp_len: Signal<Local, Bits<20>>,
    len: Signal<Local, Bits<20>>,
    f_elem: Signal<Local, Bits<20>>,
    // Checks.
    candidate: Signal<Local, Bit>,
    ip_payload: Signal<Local, Bits<20>>,
    lengths_ok: Signal<Local, Bit>,
    payload: Signal<Local, Bits<20>>,
    op_mask: Signal<Local, Bits<16>>,
    size_shift: Signal<Local, Bits<4>>,
    expected_payload: Signal<Local, Bits<20>>,
    no_data: Signal<Local, Bit>,
    header_ok: Signal<Local, Bit>,
    reserved: Signal<Local, Bit>,
    // Stage 0: everything but the length-to-length checks (finished in stage 1) and the
    // divisibility of comm size by ranks per host (stages 1 and 2).
    s0_valid: DFF<Bit>,
    s0_candidate: DFF<Bit>,
    s0_ok: DFF<Bit>,
    s0_unsupported: DFF<Bit>,
    s0_fields: DFF<FrameFields>,
    s0_payload: DFF<Bits<16>>,
    /// The length checks that compare two header lengths (each a subtraction or an addition
    /// and then a compare: two carry chains in one clock was the router's deepest path) are
    /// finished in stage 1, from these registers: the IP payload length and the UDP length
    /// (UDP within IP), the payload length and the one its element count asks for, and
    /// whether it is an error datagram.
    s0_ip_payload: DFF<Bits<20>>,
    s0_udp_len: DFF<Bits<20>>,
    s0_payload_full: DFF<Bits<20>>,
    s0_expected: DFF<Bits<20>>,
    s0_error_msg: DFF<Bit>,
    /// Stage 1's part of the checks.
    late_ok: Signal<Local, Bit>,
    /// The divisibility-test constants of the frame's ranks per host: read from the table
    /// with `ranks_per_host_next` (a synchronous ROM read, on an FPGA a block RAM and its
    /// output: `r_div` holds the word of the ranks per host `header` holds on the same
    /// clock), so that stage 0 multiplies; its limit and mask registered at stage 0
    /// (`s0_div`) for stage 1.
    r_div: DFF<Divisor>,
    s0_div: DFF<Divisor>,
    // Stages 0 to 2: is comm size a multiple of ranks per host?
    /// Per ranks-per-host value: the constants of its divisibility test ([`Divisor`]).
    divisors: ROM<Divisor, 8>,
    product: Signal<Local, Bits<32>>,
    /// `comm size · d⁻¹ mod 2^16`, from stage 0.
    s0_product: DFF<Bits<16>>,
    /// `s0_div`'s limit (a plain signal, so that its bytes are single part-selects: Icarus
    /// takes no range of a range).
    limit: Signal<Local, Bits<16>>,
    /// Stage 1 compares the product with the limit byte by byte: high byte below, high
    /// byte equal, low byte not above. Stage 2 has one gate left of the compare.
    s1_hi_lt: DFF<Bit>,
    s1_hi_eq: DFF<Bit>,
    s1_lo_le: DFF<Bit>,
    divisible: Signal<Local, Bit>,
    s1_valid: DFF<Bit>,
    s1_candidate: DFF<Bit>,
    /// Every check but the product's compare.
    s1_ok: DFF<Bit>,
    /// `s1_candidate & s1_ok` in a flip-flop of its own: the early verdict's `offload` is it
    /// and the compare's one gate.
    s1_pre: DFF<Bit>,
    s1_unsupported: DFF<Bit>,
    s1_fields: DFF<FrameFields>,
    s1_payload: DFF<Bits<16>>,
    s2_valid: DFF<Bit>,
    s2_candidate: DFF<Bit>,
    s2_ok: DFF<Bit>,
    s2_unsupported: DFF<Bit>,
    s2_fields: DFF<FrameFields>,
    s2_payload: DFF<Bits<16>>,
    /// The directory index, computed in stage 1 from stage 0's fields (beside the multiply).
    dir_of: ArrivalDir,
    s1_dir: DFF<Bits<9>>,
    s2_dir: DFF<Bits<9>>,
}

impl Default for OffloadClassifier {
    fn default() -> Self {
        let max = |n: usize| nibble(n - 1);
        let dtype = |c: usize| Datatype::from_code(c as u8).ok();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            header: Default::default(),
            start: Default::default(),
            short_frame: Default::default(),
            frame_len: Default::default(),
            ranks_per_host_next: Default::default(),
            verdict_valid: Default::default(),
            offload: Default::default(),
            malformed: Default::default(),
            unsupported: Default::default(),
            fields: Default::default(),
            payload_len: Default::default(),
            dir_index: Default::default(),
            early_valid: Default::default(),
            early_offload: Default::default(),
            early_unsupported: Default::default(),
            early_fields: Default::default(),
            early_payload_len: Default::default(),
            early_dir_index: Default::default(),
            code: std::array::from_fn(nibble),
            msg_max: max(MessageType::ALL.len()),
            coll_max: max(Collective::ALL.len()),
            alg_max: max(Algorithm::ALL.len()),
            dtype_max: max(Datatype::ALL.len()),
            op_max: max(ReduceOp::ALL.len()),
            msg_error: nibble(MessageType::Error.code().into()),
            board_msgs: mask16(
                MessageType::ALL
                    .iter()
                    .filter(|m| m.is_board_to_board())
                    .map(|m| m.code()),
            ),
            magic_byte: Constant::new(bits::<8>(collwire_proto::MAGIC.into())),
            version: nibble(collwire_proto::VERSION.into()),
            valid_ops: std::array::from_fn(|c| {
                mask16(
                    ReduceOp::ALL
                        .iter()
                        .filter(|op| dtype(c).is_some_and(|d| op.is_valid_for(d)))
                        .map(|op| op.code()),
                )
            }),
            size_log2: std::array::from_fn(|c| {
                nibble(dtype(c).map_or(0, |d| d.size().trailing_zeros() as usize))
            }),
            msgs_without_data: mask16(
                MessageType::ALL
                    .iter()
                    .filter(|m| !m.carries_data())
                    .map(|m| m.code()),
            ),
            colls_with_data: mask16(
                Collective::ALL
                    .iter()
                    .filter(|c| c.carries_data())
                    .map(|c| c.code()),
            ),
            supported_colls: mask16(Collective::supported().map(|c| c.code())),
            supported_algs: mask16(Algorithm::supported().map(|c| c.code())),
            supported_dtypes: mask16(Datatype::supported().map(|c| c.code())),
            supported_ops: mask16(ReduceOp::supported().map(|c| c.code())),
            fin: Default::default(),
            rule: Default::default(),
            candidate_bytes: Constant::new(bits::<20>(CANDIDATE_BYTES as u64)),
            total_len: Default::default(),
            udp_len: Default::default(),
            len: Default::default(),
            f_elem: Default::default(),
            candidate: Default::default(),
            ip_payload: Default::default(),
            lengths_ok: Default::default(),
            payload: Default::default(),
            op_mask: Default::default(),
            size_shift: Default::default(),
            expected_payload: Default::default(),
            no_data: Default::default(),
            header_ok: Default::default(),
            reserved: Default::default(),
            s0_valid: Default::default(),
            s0_candidate: Default::default(),
            s0_ok: Default::default(),
            s0_unsupported: Default::default(),
            s0_fields: Default::default(),
            s0_payload: Default::default(),
            s0_ip_payload: Default::default(),
            s0_udp_len: Default::default(),
            s0_payload_full: Default::default(),
            s0_expected: Default::default(),
            s0_error_msg: Default::default(),
            late_ok: Default::default(),
            s0_div: Default::default(),
            divisors: (0..256).map(Divisor::of).into(),
            product: Default::default(),
            s0_product: Default::default(),
            limit: Default::default(),
            divisible: Default::default(),
            s1_valid: Default::default(),
            s1_candidate: Default::default(),
            s1_ok: Default::default(),
            s1_unsupported: Default::default(),
            s1_fields: Default::default(),
            s1_payload: Default::default(),
            s1_pre: Default::default(),
            s1_hi_lt: Default::default(),
            s1_hi_eq: Default::default(),
            s1_lo_le: Default::default(),
            r_div: Default::default(),
            s2_valid: Default::default(),
            s2_candidate: Default::default(),
            s2_ok: Default::default(),
            s2_unsupported: Default::default(),
            s2_fields: Default::default(),
            s2_payload: Default::default(),
            dir_of: Default::default(),
            s1_dir: Default::default(),
            s2_dir: Default::default(),
        }
    }
}

impl Logic for OffloadClassifier {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s0_valid,
            s0_candidate,
            s0_ok,
            s0_unsupported,
            s0_fields,
            s0_payload,
            s0_ip_payload,
            s0_udp_len,
            s0_payload_full,
            s0_expected,
            s0_error_msg,
            s0_div,
            s1_valid,
            s1_candidate,
            s1_ok,
            s1_pre,
            s1_hi_lt,
            s1_hi_eq,
            s1_lo_le,
            r_div,
            s0_product,
            s1_unsupported,
            s1_fields,
            s1_payload,
            s2_valid,
            s2_candidate,
            s2_ok,
            s2_unsupported,
            s2_fields,
            s2_payload,
            s1_dir,
            s2_dir
        );
        // Named fields of the arriving header (offsets from collwire-proto's field table).
        self.fin.header.next = self.header.val();
        self.len.next = bit_cast::<20, 16>(self.frame_len.val());
        self.total_len.next = bit_cast::<20, 16>(self.fin.ip_total_len.val());
        self.udp_len.next = bit_cast::<20, 16>(self.fin.udp_len.val());
        self.f_elem.next = bit_cast::<20, 16>(self.fin.elem_count.val());

        self.rule.header.next = self.header.val();
        self.candidate.next = self.rule.candidate.val()
            & (!self.short_frame.val() | (self.len.val() >= self.candidate_bytes.val()));

        // Lengths, as etherparse slices them: UDP length 0 (whole IP payload) or 8..=IP
        // payload, room for the offload header (the IPv4 total length within the frame is the
        // capture's check, at the frame's end).
        // Each length straight from the header fields, side by side (the same values, modulo
        // 2^20, as one from the other, without a chain of subtractions).
        self.ip_payload.next = self.total_len.val() - bits::<20>(20);
        self.payload.next = self.udp_len.val() - bits::<20>(30);
        if self.udp_len.val() == bits::<20>(0) {
            self.payload.next = self.total_len.val() - bits::<20>(50);
        }
        // Here the checks against constants; stage 1 compares lengths with each other.
        // Each on a header field itself, not on a difference (an adder in front of a compare):
        // IP payload ≥ 8 is total ≥ 28; the datagram (UDP length, or the IP payload when it
        // is 0) holds the 22-byte offload header: UDP length ≥ 30, or total ≥ 50.
        self.lengths_ok.next = (self.total_len.val() >= bits::<20>(28))
            & ((self.udp_len.val() >= bits::<20>(30))
                | ((self.udp_len.val() == bits::<20>(0))
                    & (self.total_len.val() >= bits::<20>(50))));

        self.op_mask.next = bits::<16>(0);
        self.size_shift.next = bits::<4>(0);
        for c in 0..16 {
            if self.fin.datatype.val() == self.code[c].val() {
                self.op_mask.next = self.valid_ops[c].val();
                self.size_shift.next = self.size_log2[c].val();
            }
        }
        self.expected_payload.next = self.f_elem.val() << 3;
        if self.size_shift.val() == bits::<4>(2) {
            self.expected_payload.next = self.f_elem.val() << 2;
        }
        if self.size_shift.val() == bits::<4>(1) {
            self.expected_payload.next = self.f_elem.val() << 1;
        }
        self.no_data.next = ((self.msgs_without_data.val()
            >> bit_cast::<16, 4>(self.fin.msg_type.val()))
            & bits::<16>(1))
            != bits::<16>(0);
        if ((self.colls_with_data.val() >> bit_cast::<16, 4>(self.fin.collective.val()))
            & bits::<16>(1))
            == bits::<16>(0)
        {
            self.no_data.next = true;
        }
        self.header_ok.next = (self.fin.magic.val() == self.magic_byte.val())
            & (self.fin.version.val() == self.version.val())
            & (self.fin.msg_type.val() <= self.msg_max.val())
            & (self.fin.collective.val() <= self.coll_max.val())
            & (self.fin.algorithm.val() <= self.alg_max.val())
            & (self.fin.datatype.val() <= self.dtype_max.val())
            & (self.fin.reduce_op.val() <= self.op_max.val())
            & (((self.op_mask.val() >> bit_cast::<16, 4>(self.fin.reduce_op.val()))
                & bits::<16>(1))
                != bits::<16>(0))
            & (self.fin.comm_size.val() != bits::<16>(0))
            & (self.fin.ranks_per_host.val() != bits::<8>(0))
            & ((self.fin.rank.val() < self.fin.comm_size.val())
                | (((self.board_msgs.val() >> bit_cast::<16, 4>(self.fin.msg_type.val()))
                    & bits::<16>(1))
                    != bits::<16>(0)))
            & (self.fin.root.val() < self.fin.comm_size.val())
            & (self.fin.seg_count.val() != bits::<16>(0))
            & (self.fin.seg_index.val() < self.fin.seg_count.val())
            & !(self.no_data.val() & (self.f_elem.val() != bits::<20>(0)));
        self.reserved.next = (((self.supported_colls.val()
            >> bit_cast::<16, 4>(self.fin.collective.val()))
            & (self.supported_algs.val() >> bit_cast::<16, 4>(self.fin.algorithm.val()))
            & (self.supported_dtypes.val() >> bit_cast::<16, 4>(self.fin.datatype.val()))
            & (self.supported_ops.val() >> bit_cast::<16, 4>(self.fin.reduce_op.val())))
            & bits::<16>(1))
            == bits::<16>(0);

        // Stage 0.
        self.s0_valid.d.next = self.start.val();
        self.s0_candidate.d.next = self.candidate.val();
        self.s0_ok.d.next = self.lengths_ok.val() & self.header_ok.val() & !self.short_frame.val();
        self.s0_unsupported.d.next = self.reserved.val();
        self.s0_fields.d.next = self.fin.fields.val();
        self.s0_payload.d.next = self.payload.val().get_bits::<16>(0);
        self.s0_ip_payload.d.next = self.ip_payload.val();
        self.s0_udp_len.d.next = self.udp_len.val();
        self.s0_payload_full.d.next = self.payload.val();
        self.s0_expected.d.next = self.expected_payload.val();
        self.s0_error_msg.d.next = self.fin.msg_type.val() == self.msg_error.val();
        self.divisors.address.next = self.ranks_per_host_next.val();
        self.r_div.d.next = self.divisors.data.val();
        self.s0_div.d.next = self.r_div.q.val();

        // Stages 0 to 2: the divisibility test, with the constants of this ranks per host:
        // comm size is a multiple of ranks per host = 2^k·d (d odd) iff its low k bits are 0
        // (stage 1, with the other checks) and comm size · d⁻¹ (mod 2^16) ≤ (2^16 − 1) / d.
        // Stage 0 multiplies (the table's word is out a clock ahead), stage 1 compares byte
        // by byte, stage 2 joins the two bytes' compares (one gate). The whole compare in
        // stage 2 ran on into the router's verdict queue and its offload `tvalid` (board64's
        // worst path on seeds 1 and 5 at 9d93d81, 146.6 / 139.5 MHz); multiply and compare
        // in one stage took 7.2–9.6 ns (the multiplier alone is about 2.5 ns on the ECP5).
        self.product.next = self.fin.comm_size.val() * self.r_div.q.val().inverse;
        self.s0_product.d.next = bit_cast::<16, 32>(self.product.val());
        self.limit.next = self.s0_div.q.val().limit;
        self.s1_hi_lt.d.next =
            self.s0_product.q.val().get_bits::<8>(8) < self.limit.val().get_bits::<8>(8);
        self.s1_hi_eq.d.next =
            self.s0_product.q.val().get_bits::<8>(8) == self.limit.val().get_bits::<8>(8);
        self.s1_lo_le.d.next =
            self.s0_product.q.val().get_bits::<8>(0) <= self.limit.val().get_bits::<8>(0);
        self.s1_valid.d.next = self.s0_valid.q.val();
        self.s1_candidate.d.next = self.s0_candidate.q.val();
        // The UDP length (unless 0) within the IP payload, the payload as long as the element
        // count says (4 bytes for an error).
        self.late_ok.next = (self.s0_udp_len.q.val() == bits::<20>(0))
            | (self.s0_udp_len.q.val() <= self.s0_ip_payload.q.val());
        if self.s0_error_msg.q.val() {
            if self.s0_payload_full.q.val() != bits::<20>(4) {
                self.late_ok.next = false;
            }
        } else if self.s0_payload_full.q.val() != self.s0_expected.q.val() {
            self.late_ok.next = false;
        }
        self.s1_ok.d.next = self.s0_ok.q.val()
            & self.late_ok.val()
            & ((self.s0_fields.q.val().comm_size & self.s0_div.q.val().low_mask) == bits::<16>(0));
        self.s1_pre.d.next = self.s0_candidate.q.val() & self.s1_ok.d.val();
        self.s1_unsupported.d.next = self.s0_unsupported.q.val();
        self.s1_fields.d.next = self.s0_fields.q.val();
        self.s1_payload.d.next = self.s0_payload.q.val();
        self.dir_of.fields.next = self.s0_fields.q.val();
        self.s1_dir.d.next = self.dir_of.dir_addr.val();

        // Stage 2: the product's compare's last gate.
        self.divisible.next =
            self.s1_hi_lt.q.val() | (self.s1_hi_eq.q.val() & self.s1_lo_le.q.val());
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_candidate.d.next = self.s1_candidate.q.val();
        self.s2_ok.d.next = self.s1_ok.q.val() & self.divisible.val();
        self.s2_unsupported.d.next = self.s1_unsupported.q.val();
        self.s2_fields.d.next = self.s1_fields.q.val();
        self.s2_payload.d.next = self.s1_payload.q.val();
        self.s2_dir.d.next = self.s1_dir.q.val();

        // Verdict and decoded fields.
        self.verdict_valid.next = self.s2_valid.q.val();
        self.offload.next = self.s2_candidate.q.val() & self.s2_ok.q.val();
        self.malformed.next = self.s2_candidate.q.val() & !self.s2_ok.q.val();
        self.unsupported.next =
            self.s2_candidate.q.val() & self.s2_ok.q.val() & self.s2_unsupported.q.val();
        self.fields.next = self.s2_fields.q.val();
        self.payload_len.next = self.s2_payload.q.val();
        self.dir_index.next = self.s2_dir.q.val();
        self.early_valid.next = self.s1_valid.q.val();
        self.early_offload.next = self.s1_pre.q.val() & self.divisible.val();
        self.early_unsupported.next = self.early_offload.val() & self.s1_unsupported.q.val();
        self.early_fields.next = self.s1_fields.q.val();
        self.early_payload_len.next = self.s1_payload.q.val();
        self.early_dir_index.next = self.s1_dir.q.val();
        if self.reset.val() {
            self.s0_valid.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test the hardware runs agrees with `%` for every ranks per host and comm size.
    #[test]
    fn the_divisibility_test_is_exact_for_every_pair() {
        for r in 1..256usize {
            let t = Divisor::of(r);
            for n in 0..=u16::MAX {
                assert_eq!(t.divides(n), usize::from(n) % r == 0, "{n} / {r}");
            }
        }
    }
}

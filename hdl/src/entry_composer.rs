//! The CFE's entry composer: the frame-builder entry ([`EntryWord`]) of every frame the engine
//! sends, from the [`FrameFields`] of the frame it answers (a stored request, or the arrival
//! itself) and what the state machine decided. A short pipeline: on `start` it registers its inputs;
//! then the answered request and the fields it chose for the frame ([`ComposedFields`]); the header
//! builder registers the placed header; `entry` is valid with `entry_valid`
//! [`COMPOSE_LATENCY`] clocks after `start`, and the CFE latches it then. The fields the state
//! machine itself needs (`datatype`, `reduce_op`) leave combinationally from `request`.
//!
//! Frames, in order of precedence:
//!
//! * **error answer** (`err_answer`): to the requesting rank (addresses and ports swapped), message
//!   `error`, a 4-byte inline record: `code` as a big-endian u16, detail 0;
//! * **ack** (`ack`): to the requesting rank, message `ack`, no payload;
//! * **board frame** (`to_board`): a `partial` or `result` (`result`) to board `board`, MAC
//!   and IPv4 from the addressing scheme (`collwire_proto::addressing`), the offload UDP port
//!   both ways, rank = `tag << 8 | this board`, `bytes` of payload from the CIPE when `data`,
//!   out of the ports in `ports` (the route table's entry for `board`); with `nack`, a `nack`
//!   for this board's register `tag` instead (no payload, elem count 0), with `pending` a
//!   `pending` (the same, answering a nack of board `board` for its register `tag`);
//! * **answer** (otherwise): a `response` to the requesting rank, with `bytes` of payload from
//!   the CIPE when `data`, else empty.

use collwire_proto::wire::ERROR_PAYLOAD_LEN;
use collwire_proto::{MessageType, addressing};
use rust_hdl::prelude::*;

use crate::frame_builder::EntryWord;
use crate::header_builder::{HEADER_LATENCY, HeaderBuilder};
use crate::header_fields::FrameFields;

/// Clocks from `start` to `entry_valid`.
pub const COMPOSE_LATENCY: usize = 2 + HEADER_LATENCY;

/// The frame's own fields as the composer chose them: where it goes, what it is, what it carries.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct ComposedFields {
    pub dst_mac: Bits<48>,
    pub src_mac: Bits<48>,
    pub src_ip: Bits<32>,
    pub dst_ip: Bits<32>,
    pub src_port: Bits<16>,
    pub dst_port: Bits<16>,
    pub payload_bytes: Bits<16>,
    pub msg_type: Bits<4>,
    pub rank: Bits<16>,
    pub elem_count: Bits<16>,
    pub ports: Bits<8>,
    pub inline: Bit,
    pub from_cipe: Bit,
    pub record: Bits<32>,
}

#[derive(LogicBlock)]
pub struct EntryComposer {
    pub clock: Signal<In, Clock>,
    /// Synchronous: nothing in flight.
    pub reset: Signal<In, Bit>,
    /// Compose an entry from this clock's inputs.
    pub start: Signal<In, Bit>,
    /// The fields of the frame being answered: a stored request, or the arrival itself.
    pub request: Signal<In, FrameFields>,
    pub err_answer: Signal<In, Bit>,
    pub code: Signal<In, Bits<8>>,
    pub ack: Signal<In, Bit>,
    pub to_board: Signal<In, Bit>,
    pub board: Signal<In, Bits<8>>,
    pub tag: Signal<In, Bits<4>>,
    pub result: Signal<In, Bit>,
    /// The board frame is a `nack`: this board lacks its register `tag` (docs/recovery.md).
    pub nack: Signal<In, Bit>,
    /// The board frame is a `pending`: the answer to a nack for register `tag` of board
    /// `board` whose frame this board has not sent yet.
    pub pending: Signal<In, Bit>,
    pub ports: Signal<In, Bits<8>>,
    /// The segment's payload bytes, and whether the frame carries them.
    pub bytes: Signal<In, Bits<16>>,
    pub data: Signal<In, Bit>,
    pub my_board: Signal<In, Bits<8>>,
    pub ip_prefix: Signal<In, Bits<32>>,
    pub entry: Signal<Out, EntryWord>,
    /// `entry` is the one started [`COMPOSE_LATENCY`] clocks ago.
    pub entry_valid: Signal<Out, Bit>,
    /// An entry is being composed.
    pub busy: Signal<Out, Bit>,
    // Fields of the answered frame the engine also needs.
    pub datatype: Signal<Out, Bits<4>>,
    pub reduce_op: Signal<Out, Bits<4>>,
    host_ports: Constant<Bits<8>>,
    error_bytes: Constant<Bits<16>>,
    msg_ack: Constant<Bits<4>>,
    msg_partial: Constant<Bits<4>>,
    msg_result: Constant<Bits<4>>,
    msg_response: Constant<Bits<4>>,
    msg_error: Constant<Bits<4>>,
    msg_nack: Constant<Bits<4>>,
    msg_pending: Constant<Bits<4>>,
    offload_port: Constant<Bits<16>>,
    board_mac_prefix: Constant<Bits<48>>,
    builder: HeaderBuilder,
    /// Stage 0: the inputs as they were on `start` (the state machine's choices and the
    /// answered request reach the field choice from flip-flops near it, not across the CFE).
    s0_valid: DFF<Bit>,
    s0_request: DFF<FrameFields>,
    s0_err_answer: DFF<Bit>,
    s0_code: DFF<Bits<8>>,
    s0_ack: DFF<Bit>,
    s0_to_board: DFF<Bit>,
    s0_board: DFF<Bits<8>>,
    s0_tag: DFF<Bits<4>>,
    s0_result: DFF<Bit>,
    s0_nack: DFF<Bit>,
    s0_pending: DFF<Bit>,
    s0_ports: DFF<Bits<8>>,
    s0_bytes: DFF<Bits<16>>,
    s0_data: DFF<Bit>,
    s0_my_board: DFF<Bits<8>>,
    s0_ip_prefix: DFF<Bits<32>>,
    /// Stage 1: the answered request and the chosen fields; stage 2: the chosen fields again,
    /// beside the header builder's register.
    s1_request: DFF<FrameFields>,
    s1_fields: DFF<ComposedFields>,
    s1_valid: DFF<Bit>,
    s2_fields: DFF<ComposedFields>,
    s2_valid: DFF<Bit>,
    /// The frame's fields, chosen field by field (answer by default; error, ack or board frame
    /// override), assigned to `s1_fields` once.
    chosen: Signal<Local, ComposedFields>,
}

impl Default for EntryComposer {
    fn default() -> Self {
        let msg = |m: MessageType| Constant::new(bits::<4>(u64::from(m.code())));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            request: Default::default(),
            err_answer: Default::default(),
            code: Default::default(),
            ack: Default::default(),
            to_board: Default::default(),
            board: Default::default(),
            tag: Default::default(),
            result: Default::default(),
            nack: Default::default(),
            pending: Default::default(),
            ports: Default::default(),
            bytes: Default::default(),
            data: Default::default(),
            my_board: Default::default(),
            ip_prefix: Default::default(),
            entry: Default::default(),
            entry_valid: Default::default(),
            busy: Default::default(),
            datatype: Default::default(),
            reduce_op: Default::default(),
            host_ports: Constant::new(bits::<8>(1 << crate::axis::HOST_PORT)),
            error_bytes: Constant::new(bits::<16>(ERROR_PAYLOAD_LEN as u64)),
            msg_ack: msg(MessageType::Ack),
            msg_partial: msg(MessageType::Partial),
            msg_result: msg(MessageType::Result),
            msg_response: msg(MessageType::Response),
            msg_error: msg(MessageType::Error),
            msg_nack: msg(MessageType::Nack),
            msg_pending: msg(MessageType::Pending),
            offload_port: Constant::new(bits::<16>(u64::from(collwire_proto::OFFLOAD_UDP_PORT))),
            board_mac_prefix: Constant::new(bits::<48>(addressing::BOARD_MAC_PREFIX_BITS)),
            builder: Default::default(),
            s0_valid: Default::default(),
            s0_request: Default::default(),
            s0_err_answer: Default::default(),
            s0_code: Default::default(),
            s0_ack: Default::default(),
            s0_to_board: Default::default(),
            s0_board: Default::default(),
            s0_tag: Default::default(),
            s0_result: Default::default(),
            s0_nack: Default::default(),
            s0_pending: Default::default(),
            s0_ports: Default::default(),
            s0_bytes: Default::default(),
            s0_data: Default::default(),
            s0_my_board: Default::default(),
            s0_ip_prefix: Default::default(),
            s1_request: Default::default(),
            s1_fields: Default::default(),
            s1_valid: Default::default(),
            s2_fields: Default::default(),
            s2_valid: Default::default(),
            chosen: Default::default(),
        }
    }
}

impl Logic for EntryComposer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s0_valid,
            s0_request,
            s0_err_answer,
            s0_code,
            s0_ack,
            s0_to_board,
            s0_board,
            s0_tag,
            s0_result,
            s0_nack,
            s0_pending,
            s0_ports,
            s0_bytes,
            s0_data,
            s0_my_board,
            s0_ip_prefix,
            s1_request,
            s1_fields,
            s1_valid,
            s2_fields,
            s2_valid
        );
        // Stage 0.
        self.s0_valid.d.next = self.start.val();
        self.s0_request.d.next = self.request.val();
        self.s0_err_answer.d.next = self.err_answer.val();
        self.s0_code.d.next = self.code.val();
        self.s0_ack.d.next = self.ack.val();
        self.s0_to_board.d.next = self.to_board.val();
        self.s0_board.d.next = self.board.val();
        self.s0_tag.d.next = self.tag.val();
        self.s0_result.d.next = self.result.val();
        self.s0_nack.d.next = self.nack.val();
        self.s0_pending.d.next = self.pending.val();
        self.s0_ports.d.next = self.ports.val();
        self.s0_bytes.d.next = self.bytes.val();
        self.s0_data.d.next = self.data.val();
        self.s0_my_board.d.next = self.my_board.val();
        self.s0_ip_prefix.d.next = self.ip_prefix.val();
        self.builder.clock.next = self.clock.val();
        self.datatype.next = self.request.val().datatype;
        self.reduce_op.next = self.request.val().reduce_op;
        // Fields every frame copies from the answered header.
        self.builder.op_id.next = self.s1_request.q.val().op_id;
        self.builder.collective.next = self.s1_request.q.val().collective;
        self.builder.algorithm.next = self.s1_request.q.val().algorithm;
        self.builder.datatype.next = self.s1_request.q.val().datatype;
        self.builder.reduce_op.next = self.s1_request.q.val().reduce_op;
        self.builder.comm_id.next = self.s1_request.q.val().comm_id;
        self.builder.comm_size.next = self.s1_request.q.val().comm_size;
        self.builder.root.next = self.s1_request.q.val().root;
        self.builder.ranks_per_host.next = self.s1_request.q.val().ranks_per_host;
        self.builder.attempt.next = self.s1_request.q.val().attempt;
        self.builder.seg_index.next = self.s1_request.q.val().seg_index;
        self.builder.seg_count.next = self.s1_request.q.val().seg_count;

        // Default: an answer to the requesting rank (addresses and ports swapped).
        self.chosen.next.dst_mac = self.s0_request.q.val().src_mac;
        self.chosen.next.src_mac = self.s0_request.q.val().dst_mac;
        self.chosen.next.src_ip = self.s0_request.q.val().dst_ip;
        self.chosen.next.dst_ip = self.s0_request.q.val().src_ip;
        self.chosen.next.src_port = self.s0_request.q.val().dst_port;
        self.chosen.next.dst_port = self.s0_request.q.val().src_port;
        self.chosen.next.rank = self.s0_request.q.val().rank;
        self.chosen.next.msg_type = self.msg_response.val();
        self.chosen.next.ports = self.host_ports.val();
        self.chosen.next.inline = false;
        self.chosen.next.from_cipe = self.s0_data.q.val();
        self.chosen.next.payload_bytes = bits::<16>(0);
        self.chosen.next.elem_count = bits::<16>(0);
        if self.s0_data.q.val() {
            self.chosen.next.payload_bytes = self.s0_bytes.q.val();
            self.chosen.next.elem_count = self.s0_request.q.val().elem_count;
        }
        if self.s0_err_answer.q.val() {
            self.chosen.next.msg_type = self.msg_error.val();
            self.chosen.next.payload_bytes = self.error_bytes.val();
            self.chosen.next.elem_count = bits::<16>(0);
            self.chosen.next.inline = true;
            self.chosen.next.from_cipe = false;
        } else if self.s0_ack.q.val() {
            self.chosen.next.msg_type = self.msg_ack.val();
            self.chosen.next.payload_bytes = bits::<16>(0);
            self.chosen.next.elem_count = bits::<16>(0);
            self.chosen.next.from_cipe = false;
        } else if self.s0_to_board.q.val() {
            self.chosen.next.dst_mac =
                self.board_mac_prefix.val() | (bit_cast::<48, 8>(self.s0_board.q.val()) << 40);
            self.chosen.next.src_mac =
                self.board_mac_prefix.val() | (bit_cast::<48, 8>(self.s0_my_board.q.val()) << 40);
            self.chosen.next.src_ip =
                self.s0_ip_prefix.q.val() | (bit_cast::<32, 8>(self.s0_my_board.q.val()) << 24);
            self.chosen.next.dst_ip =
                self.s0_ip_prefix.q.val() | (bit_cast::<32, 8>(self.s0_board.q.val()) << 24);
            self.chosen.next.src_port = self.offload_port.val();
            self.chosen.next.dst_port = self.offload_port.val();
            self.chosen.next.msg_type = self.msg_partial.val();
            if self.s0_result.q.val() {
                self.chosen.next.msg_type = self.msg_result.val();
            }
            // A board frame's rank: the receiver's register in the high byte, the sending
            // board in the low byte.
            self.chosen.next.rank = (bit_cast::<16, 4>(self.s0_tag.q.val()) << 8)
                | bit_cast::<16, 8>(self.s0_my_board.q.val());
            self.chosen.next.payload_bytes = self.s0_bytes.q.val();
            self.chosen.next.elem_count = self.s0_request.q.val().elem_count;
            self.chosen.next.ports = self.s0_ports.q.val();
            if self.s0_nack.q.val() | self.s0_pending.q.val() {
                self.chosen.next.msg_type = self.msg_nack.val();
                if self.s0_pending.q.val() {
                    self.chosen.next.msg_type = self.msg_pending.val();
                }
                self.chosen.next.payload_bytes = bits::<16>(0);
                self.chosen.next.elem_count = bits::<16>(0);
                self.chosen.next.from_cipe = false;
            }
        }

        // The record: the code as a big-endian u16 (wire byte 1), detail 0.
        self.chosen.next.record = bits::<32>(0);
        if self.chosen.val().inline {
            self.chosen.next.record = bit_cast::<32, 8>(self.s0_code.q.val()) << 8;
        }

        // Stage 1: what was chosen, registered.
        self.s1_request.d.next = self.s0_request.q.val();
        self.s1_fields.d.next = self.chosen.val();
        self.s1_valid.d.next = self.s0_valid.q.val();

        // Stage 2: the header builder places the header (its register); the rest rides along.
        self.builder.dst_mac.next = self.s1_fields.q.val().dst_mac;
        self.builder.src_mac.next = self.s1_fields.q.val().src_mac;
        self.builder.src_ip.next = self.s1_fields.q.val().src_ip;
        self.builder.dst_ip.next = self.s1_fields.q.val().dst_ip;
        self.builder.src_port.next = self.s1_fields.q.val().src_port;
        self.builder.dst_port.next = self.s1_fields.q.val().dst_port;
        self.builder.payload_bytes.next = self.s1_fields.q.val().payload_bytes;
        self.builder.msg_type.next = self.s1_fields.q.val().msg_type;
        self.builder.rank.next = self.s1_fields.q.val().rank;
        self.builder.elem_count.next = self.s1_fields.q.val().elem_count;
        self.s2_fields.d.next = self.s1_fields.q.val();
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.entry.next.header = self.builder.header.val();
        self.entry.next.ports = self.s2_fields.q.val().ports;
        self.entry.next.bytes = self.s2_fields.q.val().payload_bytes;
        self.entry.next.from_cipe = self.s2_fields.q.val().from_cipe;
        self.entry.next.inline = self.s2_fields.q.val().inline;
        self.entry.next.record = self.s2_fields.q.val().record;
        self.entry_valid.next = self.s2_valid.q.val();
        self.busy.next = self.s0_valid.q.val() | self.s1_valid.q.val() | self.s2_valid.q.val();
        if self.reset.val() {
            self.s0_valid.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
        }
    }
}

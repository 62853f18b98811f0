//! The CFE's entry composer: the frame-builder entry ([`EntryWord`]) of every frame the engine
//! sends, from the [`FrameFields`] of the frame it answers (a stored request, or the arrival
//! itself) and what the state machine decided. Combinational; the CFE latches `entry` when it queues one.
//!
//! Frames, in order of precedence:
//!
//! * **error answer** (`err_answer`): to the requesting rank (addresses and ports swapped), message
//!   `error`, a 4-byte inline record: `code` as a big-endian u16, detail 0;
//! * **ack** (`ack`): to the requesting rank, message `ack`, no payload;
//! * **board frame** (`to_board`): a `partial` or `result` (`result`) to board `board`, MAC
//!   and IPv4 from the addressing scheme (`collwire_proto::addressing`), the offload UDP port
//!   both ways, rank = `tag << 8 | this board`, `bytes` of payload from the CIPE when `data`,
//!   out of the ports in `ports` (the route table's entry for `board`);
//! * **answer** (otherwise): a `response` to the requesting rank, with `bytes` of payload from
//!   the CIPE when `data`, else empty.

use collwire_proto::wire::ERROR_PAYLOAD_LEN;
use collwire_proto::{MessageType, addressing};
use rust_hdl::prelude::*;

use crate::frame_builder::EntryWord;
use crate::header_builder::HeaderBuilder;
use crate::header_fields::FrameFields;

#[derive(LogicBlock)]
pub struct EntryComposer {
    /// The fields of the frame being answered: a stored request, or the arrival itself.
    pub request: Signal<In, FrameFields>,
    pub err_answer: Signal<In, Bit>,
    pub code: Signal<In, Bits<8>>,
    pub ack: Signal<In, Bit>,
    pub to_board: Signal<In, Bit>,
    pub board: Signal<In, Bits<8>>,
    pub tag: Signal<In, Bits<4>>,
    pub result: Signal<In, Bit>,
    pub ports: Signal<In, Bits<8>>,
    /// The segment's payload bytes, and whether the frame carries them.
    pub bytes: Signal<In, Bits<16>>,
    pub data: Signal<In, Bit>,
    pub my_board: Signal<In, Bits<8>>,
    pub ip_prefix: Signal<In, Bits<32>>,
    pub entry: Signal<Out, EntryWord>,
    // Fields of the answered frame the engine also needs.
    pub collective: Signal<Out, Bits<4>>,
    pub datatype: Signal<Out, Bits<4>>,
    pub reduce_op: Signal<Out, Bits<4>>,
    pub rank: Signal<Out, Bits<16>>,
    pub root: Signal<Out, Bits<16>>,
    host_ports: Constant<Bits<8>>,
    error_bytes: Constant<Bits<16>>,
    msg_ack: Constant<Bits<4>>,
    msg_partial: Constant<Bits<4>>,
    msg_result: Constant<Bits<4>>,
    msg_response: Constant<Bits<4>>,
    msg_error: Constant<Bits<4>>,
    offload_port: Constant<Bits<16>>,
    board_mac_prefix: Constant<Bits<48>>,
    builder: HeaderBuilder,
    /// The fields of the frame, assigned to the header builder's inputs once.
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
    f_ports: Signal<Local, Bits<8>>,
    f_inline: Signal<Local, Bit>,
    f_from_cipe: Signal<Local, Bit>,
    f_record: Signal<Local, Bits<32>>,
}

impl Default for EntryComposer {
    fn default() -> Self {
        let msg = |m: MessageType| Constant::new(bits::<4>(u64::from(m.code())));
        Self {
            request: Default::default(),
            err_answer: Default::default(),
            code: Default::default(),
            ack: Default::default(),
            to_board: Default::default(),
            board: Default::default(),
            tag: Default::default(),
            result: Default::default(),
            ports: Default::default(),
            bytes: Default::default(),
            data: Default::default(),
            my_board: Default::default(),
            ip_prefix: Default::default(),
            entry: Default::default(),
            collective: Default::default(),
            datatype: Default::default(),
            reduce_op: Default::default(),
            rank: Default::default(),
            root: Default::default(),
            host_ports: Constant::new(bits::<8>(1 << crate::axis::HOST_PORT)),
            error_bytes: Constant::new(bits::<16>(ERROR_PAYLOAD_LEN as u64)),
            msg_ack: msg(MessageType::Ack),
            msg_partial: msg(MessageType::Partial),
            msg_result: msg(MessageType::Result),
            msg_response: msg(MessageType::Response),
            msg_error: msg(MessageType::Error),
            offload_port: Constant::new(bits::<16>(u64::from(collwire_proto::OFFLOAD_UDP_PORT))),
            board_mac_prefix: Constant::new(bits::<48>(addressing::BOARD_MAC_PREFIX_BITS)),
            builder: Default::default(),
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
            f_ports: Default::default(),
            f_inline: Default::default(),
            f_from_cipe: Default::default(),
            f_record: Default::default(),
        }
    }
}

impl Logic for EntryComposer {
    #[hdl_gen]
    fn update(&mut self) {
        self.collective.next = self.request.val().collective;
        self.datatype.next = self.request.val().datatype;
        self.reduce_op.next = self.request.val().reduce_op;
        self.rank.next = self.request.val().rank;
        self.root.next = self.request.val().root;
        // Fields every frame copies from the answered header.
        self.builder.op_id.next = self.request.val().op_id;
        self.builder.collective.next = self.request.val().collective;
        self.builder.algorithm.next = self.request.val().algorithm;
        self.builder.datatype.next = self.request.val().datatype;
        self.builder.reduce_op.next = self.request.val().reduce_op;
        self.builder.comm_id.next = self.request.val().comm_id;
        self.builder.comm_size.next = self.request.val().comm_size;
        self.builder.root.next = self.request.val().root;
        self.builder.ranks_per_host.next = self.request.val().ranks_per_host;
        self.builder.attempt.next = self.request.val().attempt;
        self.builder.seg_index.next = self.request.val().seg_index;
        self.builder.seg_count.next = self.request.val().seg_count;

        // Default: an answer to the requesting rank (addresses and ports swapped).
        self.f_dst_mac.next = self.request.val().src_mac;
        self.f_src_mac.next = self.request.val().dst_mac;
        self.f_src_ip.next = self.request.val().dst_ip;
        self.f_dst_ip.next = self.request.val().src_ip;
        self.f_src_port.next = self.request.val().dst_port;
        self.f_dst_port.next = self.request.val().src_port;
        self.f_rank.next = self.request.val().rank;
        self.f_msg_type.next = self.msg_response.val();
        self.f_ports.next = self.host_ports.val();
        self.f_inline.next = false;
        self.f_from_cipe.next = self.data.val();
        self.f_payload_bytes.next = bits::<16>(0);
        self.f_elem_count.next = bits::<16>(0);
        if self.data.val() {
            self.f_payload_bytes.next = self.bytes.val();
            self.f_elem_count.next = self.request.val().elem_count;
        }
        if self.err_answer.val() {
            self.f_msg_type.next = self.msg_error.val();
            self.f_payload_bytes.next = self.error_bytes.val();
            self.f_elem_count.next = bits::<16>(0);
            self.f_inline.next = true;
            self.f_from_cipe.next = false;
        } else if self.ack.val() {
            self.f_msg_type.next = self.msg_ack.val();
            self.f_payload_bytes.next = bits::<16>(0);
            self.f_elem_count.next = bits::<16>(0);
            self.f_from_cipe.next = false;
        } else if self.to_board.val() {
            self.f_dst_mac.next =
                self.board_mac_prefix.val() | (bit_cast::<48, 8>(self.board.val()) << 40);
            self.f_src_mac.next =
                self.board_mac_prefix.val() | (bit_cast::<48, 8>(self.my_board.val()) << 40);
            self.f_src_ip.next =
                self.ip_prefix.val() | (bit_cast::<32, 8>(self.my_board.val()) << 24);
            self.f_dst_ip.next = self.ip_prefix.val() | (bit_cast::<32, 8>(self.board.val()) << 24);
            self.f_src_port.next = self.offload_port.val();
            self.f_dst_port.next = self.offload_port.val();
            self.f_msg_type.next = self.msg_partial.val();
            if self.result.val() {
                self.f_msg_type.next = self.msg_result.val();
            }
            // A board frame's rank: the receiver's register in the high byte, the sending
            // board in the low byte.
            self.f_rank.next =
                (bit_cast::<16, 4>(self.tag.val()) << 8) | bit_cast::<16, 8>(self.my_board.val());
            self.f_payload_bytes.next = self.bytes.val();
            self.f_elem_count.next = self.request.val().elem_count;
            self.f_ports.next = self.ports.val();
        }

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
        self.entry.next.header = self.builder.header.val();
        self.entry.next.ports = self.f_ports.val();
        self.entry.next.bytes = self.f_payload_bytes.val();
        self.entry.next.from_cipe = self.f_from_cipe.val();
        self.entry.next.inline = self.f_inline.val();
        // The record: the code as a big-endian u16 (wire byte 1), detail 0.
        self.f_record.next = bits::<32>(0);
        if self.f_inline.val() {
            self.f_record.next = bit_cast::<32, 8>(self.code.val()) << 8;
        }
        self.entry.next.record = self.f_record.val();
    }
}

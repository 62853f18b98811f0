//! The fields of a captured 64-byte frame header, named: what the engine reads from the
//! arrival it classifies and from the stored request it answers.
//!
//! Combinational. Frame byte `n` is `header[8n+7:8n]` (wire order, as captured by
//! [`crate::header_capture`]). Addresses come out in wire order (as [`crate::header_builder`]
//! takes them); numeric fields come out as numbers (big-endian on the wire).
//!
//! Every offset is computed here from `collwire_proto`'s field table
//! ([`collwire_proto::wire::field`], [`collwire_proto::HEADER_FRAME_OFFSET`]) and the
//! Ethernet II / IPv4 / UDP layout lengths, and enters the Verilog as a named `localparam`
//! (`at_rank` …): no byte position is written twice. The Verilator test
//! (`sim/tests/header_fields.rs`) compares every output with `collwire_proto`'s parser on
//! random frames.

use collwire_proto::wire::field;
use collwire_proto::{ETH_HEADER_LEN, HEADER_FRAME_OFFSET, IPV4_HEADER_LEN};
use rust_hdl::prelude::*;

/// The frame byte holding the last byte of the IPv4 destination: the board index of a board
/// frame.
pub const DST_HOST_BYTE: usize = ETH_HEADER_LEN + 19;
/// The frame byte where the IPv4 total length (big-endian, 2 bytes) starts.
pub const IP_TOTAL_LEN_BYTE: usize = ETH_HEADER_LEN + 2;
/// The frame byte holding the offload header's version (high nibble) and message type (low).
pub const VERSION_TYPE_BYTE: usize = HEADER_FRAME_OFFSET + field::VERSION_TYPE;
/// The frame byte holding the offload header's ranks per host.
pub const RANKS_PER_HOST_BYTE: usize = HEADER_FRAME_OFFSET + field::RANKS_PER_HOST;
/// The frame byte where the EtherType (big-endian, 2 bytes) starts.
pub const ETHERTYPE_BYTE: usize = 12;
/// The frame byte holding the IPv4 version and header length.
pub const IP_VERSION_IHL_BYTE: usize = ETH_HEADER_LEN;
/// The frame byte where the IPv4 flags and fragment offset (big-endian, 2 bytes) start.
pub const IP_FLAGS_FRAG_BYTE: usize = ETH_HEADER_LEN + 6;
/// The frame byte holding the IPv4 protocol.
pub const IP_PROTOCOL_BYTE: usize = ETH_HEADER_LEN + 9;
/// The frame byte where the UDP destination port (big-endian, 2 bytes) starts.
pub const DST_PORT_BYTE: usize = ETH_HEADER_LEN + IPV4_HEADER_LEN + 2;

/// Bit position of frame byte `byte`, as a Verilog constant.
fn at(byte: usize) -> Constant<Bits<10>> {
    assert!(byte < 64);
    Constant::new(bits::<10>(8 * byte as u64))
}

/// Bit position of offload-header byte `byte`.
fn at_offload(byte: usize) -> Constant<Bits<10>> {
    at(HEADER_FRAME_OFFSET + byte)
}

/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// IPv4 version 4, header length 5 words (no options).
pub const IPV4_VERSION_IHL: u8 = 0x45;
/// IPv4 flags and fragment offset: don't fragment.
pub const IPV4_DONT_FRAGMENT: u16 = 0x4000;
/// IPv4 time to live, as etherparse's `PacketBuilder` sets it.
pub const IPV4_TTL: u8 = 64;
/// IP protocol number of UDP.
pub const IPV4_PROTOCOL_UDP: u8 = 17;

/// Bytes before the payload: Ethernet 14 + IPv4 20 + UDP 8 + offload header 22.
pub const HEADER_BYTES: usize = 64;

/// A header byte that holds two 4-bit codes: version/type, collective/algorithm,
/// datatype/op (`field::VERSION_TYPE`, `COLL_ALG`, `DTYPE_OP`) — the name first in the field's
/// name is the high nibble.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct NibblePair {
    pub low: Bits<4>,
    pub high: Bits<4>,
}

/// What the hardware's `.into()` of a header byte means.
impl From<Bits<8>> for NibblePair {
    fn from(b: Bits<8>) -> NibblePair {
        let v = b.to_u64();
        NibblePair {
            low: (v & 0xf).into(),
            high: (v >> 4).into(),
        }
    }
}

/// The 64-byte header as the hardware writes it ([`crate::header_builder`]): Ethernet II,
/// IPv4 without options, UDP, the offload header, every field in wire order. A field's
/// first wire byte is in its low 8 bits, so frame byte `n` is bits `8n+7:8n` of the
/// packed word; big-endian numbers are stored byte-swapped. The unit tests check every
/// offset against `collwire_proto`'s field table and the reader's (`HeaderFields`) offsets.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct WireHeader {
    pub dst_mac: Bits<48>,
    pub src_mac: Bits<48>,
    pub ethertype: Bits<16>,
    pub ip_version_ihl: Bits<8>,
    pub ip_dscp_ecn: Bits<8>,
    pub ip_total_len: Bits<16>,
    pub ip_id: Bits<16>,
    pub ip_flags_frag: Bits<16>,
    pub ip_ttl: Bits<8>,
    pub ip_protocol: Bits<8>,
    pub ip_checksum: Bits<16>,
    pub src_ip: Bits<32>,
    pub dst_ip: Bits<32>,
    pub src_port: Bits<16>,
    pub dst_port: Bits<16>,
    pub udp_len: Bits<16>,
    pub udp_checksum: Bits<16>,
    pub magic: Bits<8>,
    pub version_type: Bits<8>,
    pub op_id: Bits<16>,
    pub coll_alg: Bits<8>,
    pub dtype_op: Bits<8>,
    pub comm_id: Bits<16>,
    pub comm_size: Bits<16>,
    pub rank: Bits<16>,
    pub root: Bits<16>,
    pub ranks_per_host: Bits<8>,
    pub attempt: Bits<8>,
    pub seg_index: Bits<16>,
    pub seg_count: Bits<16>,
    pub elem_count: Bits<16>,
}

/// The fields of an offload frame the engine acts on, decoded once by the router's classifier
/// ([`crate::offload_classifier`]) and handed to the CFE beside the frame: what the CFE
/// classifies an arrival by, keys its context table with, and builds every answer from. The
/// CFE never sees raw header bytes. Addresses are in wire order (byte 0 in the low bits, as
/// [`crate::header_builder`] takes them), numbers are numbers; [`HeaderFields`] fills it.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct FrameFields {
    pub dst_mac: Bits<48>,
    pub src_mac: Bits<48>,
    pub src_ip: Bits<32>,
    pub dst_ip: Bits<32>,
    /// The last byte of the IPv4 destination: the board index of a board frame.
    pub dst_host: Bits<8>,
    pub src_port: Bits<16>,
    pub dst_port: Bits<16>,
    pub msg_type: Bits<4>,
    pub op_id: Bits<16>,
    pub collective: Bits<4>,
    pub algorithm: Bits<4>,
    pub datatype: Bits<4>,
    pub reduce_op: Bits<4>,
    pub comm_id: Bits<16>,
    pub comm_size: Bits<16>,
    pub rank: Bits<16>,
    pub root: Bits<16>,
    pub ranks_per_host: Bits<8>,
    pub attempt: Bits<8>,
    pub seg_index: Bits<16>,
    pub seg_count: Bits<16>,
    pub elem_count: Bits<16>,
}

impl FrameFields {
    /// The record as the hardware packs it (first field in the low bits), as bytes: byte `i`
    /// is bits `8i+7:8i` (what a Verilator port of this type holds).
    pub fn to_le_bytes(self) -> Vec<u8> {
        const BITS: usize = <FrameFields as Synth>::BITS;
        let packed: Bits<BITS> = self.into();
        (0..BITS.div_ceil(8))
            .map(|i| {
                (0..8)
                    .filter(|b| 8 * i + b < BITS && packed.get_bit(8 * i + b))
                    .fold(0u8, |acc, b| acc | 1 << b)
            })
            .collect()
    }
}

#[derive(LogicBlock)]
pub struct HeaderFields {
    pub header: Signal<In, Bits<512>>,
    /// Every field the engine acts on, as one record.
    pub fields: Signal<Out, FrameFields>,
    // Ethernet II, IPv4, UDP.
    pub dst_mac: Signal<Out, Bits<48>>,
    pub src_mac: Signal<Out, Bits<48>>,
    pub src_ip: Signal<Out, Bits<32>>,
    pub dst_ip: Signal<Out, Bits<32>>,
    /// The last byte of the IPv4 destination: the board index of a board frame.
    pub dst_host: Signal<Out, Bits<8>>,
    pub src_port: Signal<Out, Bits<16>>,
    pub dst_port: Signal<Out, Bits<16>>,
    // What the classifier checks before it trusts the rest.
    pub ethertype: Signal<Out, Bits<16>>,
    /// IPv4 version (high nibble) and header length in words (low nibble).
    pub ip_version_ihl: Signal<Out, Bits<8>>,
    pub ip_total_len: Signal<Out, Bits<16>>,
    /// IPv4 flags (top 3 bits) and fragment offset.
    pub ip_flags_frag: Signal<Out, Bits<16>>,
    pub ip_protocol: Signal<Out, Bits<8>>,
    pub udp_len: Signal<Out, Bits<16>>,
    pub magic: Signal<Out, Bits<8>>,
    pub version: Signal<Out, Bits<4>>,
    // The offload header.
    pub msg_type: Signal<Out, Bits<4>>,
    pub op_id: Signal<Out, Bits<16>>,
    pub collective: Signal<Out, Bits<4>>,
    pub algorithm: Signal<Out, Bits<4>>,
    pub datatype: Signal<Out, Bits<4>>,
    pub reduce_op: Signal<Out, Bits<4>>,
    pub comm_id: Signal<Out, Bits<16>>,
    pub comm_size: Signal<Out, Bits<16>>,
    pub rank: Signal<Out, Bits<16>>,
    pub root: Signal<Out, Bits<16>>,
    pub ranks_per_host: Signal<Out, Bits<8>>,
    pub attempt: Signal<Out, Bits<8>>,
    pub seg_index: Signal<Out, Bits<16>>,
    pub seg_count: Signal<Out, Bits<16>>,
    pub elem_count: Signal<Out, Bits<16>>,
    // Where each field starts (bit of `header`).
    at_dst_mac: Constant<Bits<10>>,
    at_src_mac: Constant<Bits<10>>,
    at_src_ip: Constant<Bits<10>>,
    at_dst_ip: Constant<Bits<10>>,
    at_dst_host: Constant<Bits<10>>,
    at_src_port: Constant<Bits<10>>,
    at_dst_port: Constant<Bits<10>>,
    at_ethertype: Constant<Bits<10>>,
    at_ip_version_ihl: Constant<Bits<10>>,
    at_ip_total_len: Constant<Bits<10>>,
    at_ip_flags_frag: Constant<Bits<10>>,
    at_ip_protocol: Constant<Bits<10>>,
    at_udp_len: Constant<Bits<10>>,
    at_magic: Constant<Bits<10>>,
    /// Version (high nibble) and message type (low nibble).
    at_version_type: Constant<Bits<10>>,
    at_op_id: Constant<Bits<10>>,
    /// Collective (high nibble) and algorithm (low nibble).
    at_coll_alg: Constant<Bits<10>>,
    /// Datatype (high nibble) and reduction op (low nibble).
    at_dtype_op: Constant<Bits<10>>,
    at_comm_id: Constant<Bits<10>>,
    at_comm_size: Constant<Bits<10>>,
    at_rank: Constant<Bits<10>>,
    at_root: Constant<Bits<10>>,
    at_ranks_per_host: Constant<Bits<10>>,
    at_attempt: Constant<Bits<10>>,
    at_seg_index: Constant<Bits<10>>,
    at_seg_count: Constant<Bits<10>>,
    at_elem_count: Constant<Bits<10>>,
    // Big-endian fields as they lie on the wire (byte-swapped numbers).
    raw_src_port: Signal<Local, Bits<16>>,
    raw_dst_port: Signal<Local, Bits<16>>,
    raw_ethertype: Signal<Local, Bits<16>>,
    raw_ip_total_len: Signal<Local, Bits<16>>,
    raw_ip_flags_frag: Signal<Local, Bits<16>>,
    raw_udp_len: Signal<Local, Bits<16>>,
    version_type: Signal<Local, NibblePair>,
    raw_op_id: Signal<Local, Bits<16>>,
    raw_comm_id: Signal<Local, Bits<16>>,
    raw_comm_size: Signal<Local, Bits<16>>,
    raw_rank: Signal<Local, Bits<16>>,
    raw_root: Signal<Local, Bits<16>>,
    raw_seg_index: Signal<Local, Bits<16>>,
    raw_seg_count: Signal<Local, Bits<16>>,
    raw_elem_count: Signal<Local, Bits<16>>,
    coll_alg: Signal<Local, NibblePair>,
    dtype_op: Signal<Local, NibblePair>,
}

impl Default for HeaderFields {
    fn default() -> Self {
        // Ethernet II: destination, source, EtherType (RFC 894). IPv4 (RFC 791, no options):
        // version/IHL, DSCP, total length at 2, id, flags/fragment at 6, TTL, protocol at 9,
        // checksum, addresses at 12 and 16. UDP (RFC 768): source port, destination port,
        // length at 4, checksum.
        let ip = ETH_HEADER_LEN;
        let udp = ETH_HEADER_LEN + IPV4_HEADER_LEN;
        Self {
            header: Default::default(),
            fields: Default::default(),
            dst_mac: Default::default(),
            src_mac: Default::default(),
            src_ip: Default::default(),
            dst_ip: Default::default(),
            dst_host: Default::default(),
            src_port: Default::default(),
            dst_port: Default::default(),
            ethertype: Default::default(),
            ip_version_ihl: Default::default(),
            ip_total_len: Default::default(),
            ip_flags_frag: Default::default(),
            ip_protocol: Default::default(),
            udp_len: Default::default(),
            magic: Default::default(),
            version: Default::default(),
            msg_type: Default::default(),
            op_id: Default::default(),
            collective: Default::default(),
            algorithm: Default::default(),
            datatype: Default::default(),
            reduce_op: Default::default(),
            comm_id: Default::default(),
            comm_size: Default::default(),
            rank: Default::default(),
            root: Default::default(),
            ranks_per_host: Default::default(),
            attempt: Default::default(),
            seg_index: Default::default(),
            seg_count: Default::default(),
            elem_count: Default::default(),
            at_dst_mac: at(0),
            at_src_mac: at(6),
            at_src_ip: at(ip + 12),
            at_dst_ip: at(ip + 16),
            at_dst_host: at(DST_HOST_BYTE),
            at_src_port: at(udp),
            at_dst_port: at(DST_PORT_BYTE),
            at_ethertype: at(ETHERTYPE_BYTE),
            at_ip_version_ihl: at(IP_VERSION_IHL_BYTE),
            at_ip_total_len: at(IP_TOTAL_LEN_BYTE),
            at_ip_flags_frag: at(IP_FLAGS_FRAG_BYTE),
            at_ip_protocol: at(IP_PROTOCOL_BYTE),
            at_udp_len: at(udp + 4),
            at_magic: at_offload(field::MAGIC),
            at_version_type: at(VERSION_TYPE_BYTE),
            at_op_id: at_offload(field::OP_ID.start),
            at_coll_alg: at_offload(field::COLL_ALG),
            at_dtype_op: at_offload(field::DTYPE_OP),
            at_comm_id: at_offload(field::COMM_ID.start),
            at_comm_size: at_offload(field::COMM_SIZE.start),
            at_rank: at_offload(field::RANK.start),
            at_root: at_offload(field::ROOT.start),
            at_ranks_per_host: at_offload(field::RANKS_PER_HOST),
            at_attempt: at_offload(field::ATTEMPT),
            at_seg_index: at_offload(field::SEG_INDEX.start),
            at_seg_count: at_offload(field::SEG_COUNT.start),
            at_elem_count: at_offload(field::ELEM_COUNT.start),
            raw_src_port: Default::default(),
            raw_dst_port: Default::default(),
            raw_ethertype: Default::default(),
            raw_ip_total_len: Default::default(),
            raw_ip_flags_frag: Default::default(),
            raw_udp_len: Default::default(),
            version_type: Default::default(),
            raw_op_id: Default::default(),
            raw_comm_id: Default::default(),
            raw_comm_size: Default::default(),
            raw_rank: Default::default(),
            raw_root: Default::default(),
            raw_seg_index: Default::default(),
            raw_seg_count: Default::default(),
            raw_elem_count: Default::default(),
            coll_alg: Default::default(),
            dtype_op: Default::default(),
        }
    }
}

impl Logic for HeaderFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.dst_mac.next = self
            .header
            .val()
            .get_bits::<48>(self.at_dst_mac.val().index());
        self.src_mac.next = self
            .header
            .val()
            .get_bits::<48>(self.at_src_mac.val().index());
        self.src_ip.next = self
            .header
            .val()
            .get_bits::<32>(self.at_src_ip.val().index());
        self.dst_ip.next = self
            .header
            .val()
            .get_bits::<32>(self.at_dst_ip.val().index());
        self.dst_host.next = self
            .header
            .val()
            .get_bits::<8>(self.at_dst_host.val().index());
        self.raw_src_port.next = self
            .header
            .val()
            .get_bits::<16>(self.at_src_port.val().index());
        self.raw_dst_port.next = self
            .header
            .val()
            .get_bits::<16>(self.at_dst_port.val().index());
        self.raw_op_id.next = self
            .header
            .val()
            .get_bits::<16>(self.at_op_id.val().index());
        self.raw_comm_id.next = self
            .header
            .val()
            .get_bits::<16>(self.at_comm_id.val().index());
        self.raw_comm_size.next = self
            .header
            .val()
            .get_bits::<16>(self.at_comm_size.val().index());
        self.raw_rank.next = self.header.val().get_bits::<16>(self.at_rank.val().index());
        self.raw_root.next = self.header.val().get_bits::<16>(self.at_root.val().index());
        self.raw_seg_index.next = self
            .header
            .val()
            .get_bits::<16>(self.at_seg_index.val().index());
        self.raw_seg_count.next = self
            .header
            .val()
            .get_bits::<16>(self.at_seg_count.val().index());
        self.raw_elem_count.next = self
            .header
            .val()
            .get_bits::<16>(self.at_elem_count.val().index());
        self.raw_ethertype.next = self
            .header
            .val()
            .get_bits::<16>(self.at_ethertype.val().index());
        self.raw_ip_total_len.next = self
            .header
            .val()
            .get_bits::<16>(self.at_ip_total_len.val().index());
        self.raw_ip_flags_frag.next = self
            .header
            .val()
            .get_bits::<16>(self.at_ip_flags_frag.val().index());
        self.raw_udp_len.next = self
            .header
            .val()
            .get_bits::<16>(self.at_udp_len.val().index());
        self.ip_version_ihl.next = self
            .header
            .val()
            .get_bits::<8>(self.at_ip_version_ihl.val().index());
        self.ip_protocol.next = self
            .header
            .val()
            .get_bits::<8>(self.at_ip_protocol.val().index());
        self.magic.next = self.header.val().get_bits::<8>(self.at_magic.val().index());
        // Big-endian to number: swap the two bytes.
        self.ethertype.next = (self.raw_ethertype.val() << 8) | (self.raw_ethertype.val() >> 8);
        self.ip_total_len.next =
            (self.raw_ip_total_len.val() << 8) | (self.raw_ip_total_len.val() >> 8);
        self.ip_flags_frag.next =
            (self.raw_ip_flags_frag.val() << 8) | (self.raw_ip_flags_frag.val() >> 8);
        self.udp_len.next = (self.raw_udp_len.val() << 8) | (self.raw_udp_len.val() >> 8);
        self.src_port.next = (self.raw_src_port.val() << 8) | (self.raw_src_port.val() >> 8);
        self.dst_port.next = (self.raw_dst_port.val() << 8) | (self.raw_dst_port.val() >> 8);
        self.op_id.next = (self.raw_op_id.val() << 8) | (self.raw_op_id.val() >> 8);
        self.comm_id.next = (self.raw_comm_id.val() << 8) | (self.raw_comm_id.val() >> 8);
        self.comm_size.next = (self.raw_comm_size.val() << 8) | (self.raw_comm_size.val() >> 8);
        self.rank.next = (self.raw_rank.val() << 8) | (self.raw_rank.val() >> 8);
        self.root.next = (self.raw_root.val() << 8) | (self.raw_root.val() >> 8);
        self.seg_index.next = (self.raw_seg_index.val() << 8) | (self.raw_seg_index.val() >> 8);
        self.seg_count.next = (self.raw_seg_count.val() << 8) | (self.raw_seg_count.val() >> 8);
        self.elem_count.next = (self.raw_elem_count.val() << 8) | (self.raw_elem_count.val() >> 8);
        // Nibble pairs: high nibble first in the byte's name.
        self.version_type.next = self
            .header
            .val()
            .get_bits::<8>(self.at_version_type.val().index())
            .into();
        self.version.next = self.version_type.val().high;
        self.msg_type.next = self.version_type.val().low;
        self.coll_alg.next = self
            .header
            .val()
            .get_bits::<8>(self.at_coll_alg.val().index())
            .into();
        self.collective.next = self.coll_alg.val().high;
        self.algorithm.next = self.coll_alg.val().low;
        self.dtype_op.next = self
            .header
            .val()
            .get_bits::<8>(self.at_dtype_op.val().index())
            .into();
        self.datatype.next = self.dtype_op.val().high;
        self.reduce_op.next = self.dtype_op.val().low;
        self.ranks_per_host.next = self
            .header
            .val()
            .get_bits::<8>(self.at_ranks_per_host.val().index());
        self.attempt.next = self
            .header
            .val()
            .get_bits::<8>(self.at_attempt.val().index());
        // The record the router hands the engine.
        self.fields.next.dst_mac = self.dst_mac.val();
        self.fields.next.src_mac = self.src_mac.val();
        self.fields.next.src_ip = self.src_ip.val();
        self.fields.next.dst_ip = self.dst_ip.val();
        self.fields.next.dst_host = self.dst_host.val();
        self.fields.next.src_port = self.src_port.val();
        self.fields.next.dst_port = self.dst_port.val();
        self.fields.next.msg_type = self.msg_type.val();
        self.fields.next.op_id = self.op_id.val();
        self.fields.next.collective = self.collective.val();
        self.fields.next.algorithm = self.algorithm.val();
        self.fields.next.datatype = self.datatype.val();
        self.fields.next.reduce_op = self.reduce_op.val();
        self.fields.next.comm_id = self.comm_id.val();
        self.fields.next.comm_size = self.comm_size.val();
        self.fields.next.rank = self.rank.val();
        self.fields.next.root = self.root.val();
        self.fields.next.ranks_per_host = self.ranks_per_host.val();
        self.fields.next.attempt = self.attempt.val();
        self.fields.next.seg_index = self.seg_index.val();
        self.fields.next.seg_count = self.seg_count.val();
        self.fields.next.elem_count = self.elem_count.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_the_protocol_crate() {
        let f = HeaderFields::default();
        // The offload header starts at frame byte 42: the message type is bit 344, the rank
        // frame bytes 52..54.
        assert_eq!(f.at_version_type.val().index(), 344);
        assert_eq!(f.at_rank.val().index(), 416);
        assert_eq!(f.at_dst_ip.val().index(), 240);
        let v = crate::emit::verilog(HeaderFields::default(), "collwire_header_fields");
        assert!(v.contains("header[(at_rank)+:(16)]"), "{v}");
    }

    #[test]
    fn the_written_layout_is_the_read_layout_and_the_protocol_crates() {
        let w = WireHeader::default();
        let f = HeaderFields::default();
        let at = |c: &Constant<Bits<10>>| c.val().index();
        let offload = |byte: usize| 8 * (HEADER_FRAME_OFFSET + byte);
        let pairs = [
            (w.get_my_offset_dst_mac(), at(&f.at_dst_mac)),
            (w.get_my_offset_src_mac(), at(&f.at_src_mac)),
            (w.get_my_offset_ethertype(), at(&f.at_ethertype)),
            (w.get_my_offset_ip_version_ihl(), at(&f.at_ip_version_ihl)),
            (w.get_my_offset_ip_total_len(), at(&f.at_ip_total_len)),
            (w.get_my_offset_ip_flags_frag(), at(&f.at_ip_flags_frag)),
            (w.get_my_offset_ip_protocol(), at(&f.at_ip_protocol)),
            (w.get_my_offset_src_ip(), at(&f.at_src_ip)),
            (w.get_my_offset_dst_ip(), at(&f.at_dst_ip)),
            (w.get_my_offset_src_port(), at(&f.at_src_port)),
            (w.get_my_offset_dst_port(), at(&f.at_dst_port)),
            (w.get_my_offset_udp_len(), at(&f.at_udp_len)),
            (w.get_my_offset_magic(), offload(field::MAGIC)),
            (w.get_my_offset_version_type(), offload(field::VERSION_TYPE)),
            (w.get_my_offset_op_id(), offload(field::OP_ID.start)),
            (w.get_my_offset_coll_alg(), offload(field::COLL_ALG)),
            (w.get_my_offset_dtype_op(), offload(field::DTYPE_OP)),
            (w.get_my_offset_comm_id(), offload(field::COMM_ID.start)),
            (w.get_my_offset_comm_size(), offload(field::COMM_SIZE.start)),
            (w.get_my_offset_rank(), offload(field::RANK.start)),
            (w.get_my_offset_root(), offload(field::ROOT.start)),
            (
                w.get_my_offset_ranks_per_host(),
                offload(field::RANKS_PER_HOST),
            ),
            (w.get_my_offset_attempt(), offload(field::ATTEMPT)),
            (w.get_my_offset_seg_index(), offload(field::SEG_INDEX.start)),
            (w.get_my_offset_seg_count(), offload(field::SEG_COUNT.start)),
            (
                w.get_my_offset_elem_count(),
                offload(field::ELEM_COUNT.start),
            ),
        ];
        for (i, (written, read)) in pairs.into_iter().enumerate() {
            assert_eq!(written, read, "field {i}");
        }
        // The reader's own constants follow the protocol crate too.
        assert_eq!(at(&f.at_rank), offload(field::RANK.start));
        assert_eq!(WireHeader::BITS, 8 * collwire_proto::PAYLOAD_FRAME_OFFSET);
    }

    #[test]
    fn a_nibble_pair_is_high_nibble_first() {
        let p = NibblePair::from(bits::<8>(0xA5));
        assert_eq!((p.high.to_u64(), p.low.to_u64()), (0xA, 0x5));
        assert_eq!(Bits::<8>::from(p).to_u64(), 0xA5);
    }
}

//! Builds the 64-byte Ethernet II / IPv4 / UDP / offload header of every frame the engine
//! sends (results to local ranks, partials and results to other boards, error answers), in
//! [`HEADER_LATENCY`] clock: the fields are placed and the checksum's two halves summed into a
//! register (the lengths and the address words, each at most two carry chains); from there the
//! checksum is finished (one sum, an end-around carry by carry select, the complement) and put
//! into its place, combinationally, for the register that takes `header`.
//!
//! Each field is written into its place in a [`WireHeader`] (the one hardware definition of
//! the layout, checked against `collwire_proto`'s field table), which leaves as `header`.
//!
//! Bytes are in wire order: frame byte `n` is `header[8n+7:8n]`, as on the bus (lane `n` of a
//! beat). MAC and IPv4 addresses are taken and placed in wire order; numeric fields are given
//! as numbers and written big-endian. The IPv4 header is the one `etherparse` builds (IHL 5,
//! DSCP 0, id 0, don't-fragment, TTL 64, protocol UDP) with its checksum computed here — a
//! one's-complement sum of the ten header words, folded twice; the UDP checksum is 0 (no
//! checksum, allowed for IPv4). The Verilator test compares every byte with
//! `collwire_proto::frame::build_frame` on random fields (UDP checksum aside).

use collwire_proto::{HEADER_LEN, IPV4_HEADER_LEN, UDP_HEADER_LEN};
use rust_hdl::prelude::*;

use crate::header_fields::{
    ETHERTYPE_IPV4, IPV4_DONT_FRAGMENT, IPV4_PROTOCOL_UDP, IPV4_TTL, IPV4_VERSION_IHL, NibblePair,
    WireHeader,
};

/// Clocks from the fields in to `header` out (the register inside; `header` itself leaves
/// combinationally from it).
pub const HEADER_LATENCY: usize = 1;

#[derive(LogicBlock)]
pub struct HeaderBuilder {
    pub clock: Signal<In, Clock>,
    pub dst_mac: Signal<In, Bits<48>>,
    pub src_mac: Signal<In, Bits<48>>,
    pub src_ip: Signal<In, Bits<32>>,
    pub dst_ip: Signal<In, Bits<32>>,
    pub src_port: Signal<In, Bits<16>>,
    pub dst_port: Signal<In, Bits<16>>,
    /// Bytes after the offload header (elements, or the 4-byte error record).
    pub payload_bytes: Signal<In, Bits<16>>,
    pub msg_type: Signal<In, Bits<4>>,
    pub op_id: Signal<In, Bits<16>>,
    pub collective: Signal<In, Bits<4>>,
    pub algorithm: Signal<In, Bits<4>>,
    pub datatype: Signal<In, Bits<4>>,
    pub reduce_op: Signal<In, Bits<4>>,
    pub comm_id: Signal<In, Bits<16>>,
    pub comm_size: Signal<In, Bits<16>>,
    pub rank: Signal<In, Bits<16>>,
    pub root: Signal<In, Bits<16>>,
    pub ranks_per_host: Signal<In, Bits<8>>,
    pub attempt: Signal<In, Bits<8>>,
    pub seg_index: Signal<In, Bits<16>>,
    pub seg_count: Signal<In, Bits<16>>,
    pub elem_count: Signal<In, Bits<16>>,
    pub header: Signal<Out, Bits<512>>,
    // Fixed fields, in wire order.
    ethertype_ipv4: Constant<Bits<16>>,
    ipv4_no_options: Constant<Bits<8>>,
    dont_fragment: Constant<Bits<16>>,
    ttl: Constant<Bits<8>>,
    protocol_udp: Constant<Bits<8>>,
    /// The checksum's sum of the fixed IPv4 words, each in wire order.
    ip_fixed_sum: Constant<Bits<20>>,
    /// UDP + offload header bytes; the same plus the IPv4 header (each length one add from
    /// the payload's).
    udp_overhead: Constant<Bits<16>>,
    ip_overhead: Constant<Bits<16>>,
    magic_byte: Constant<Bits<8>>,
    version: Constant<Bits<4>>,
    udp_len: Signal<Local, Bits<16>>,
    ip_total_len: Signal<Local, Bits<16>>,
    /// The lengths as they lie on the wire (bytes swapped).
    udp_len_wire: Signal<Local, Bits<16>>,
    ip_total_len_wire: Signal<Local, Bits<16>>,
    /// The checksum's sum in two registered halves: the fixed words and the total length; the
    /// four address words.
    part_len: DFF<Bits<20>>,
    part_addr: DFF<Bits<20>>,
    addr_src: Signal<Local, Bits<20>>,
    addr_dst: Signal<Local, Bits<20>>,
    sum: Signal<Local, Bits<20>>,
    /// The end-around carry, both ways: the low half plus the high bits, and one more.
    fold: Signal<Local, Bits<17>>,
    fold_plus1: Signal<Local, Bits<17>>,
    ip_checksum: Signal<Local, Bits<16>>,
    version_type: Signal<Local, NibblePair>,
    coll_alg: Signal<Local, NibblePair>,
    dtype_op: Signal<Local, NibblePair>,
    /// The header being written, field by field (checksum 0); registered; with the checksum.
    w: Signal<Local, WireHeader>,
    placed: DFF<WireHeader>,
    done: Signal<Local, WireHeader>,
}

/// A 16-bit number as it lies on the wire (the two bytes swapped).
const fn wire16(v: u16) -> u64 {
    v.swap_bytes() as u64
}

impl Default for HeaderBuilder {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            dst_mac: Default::default(),
            src_mac: Default::default(),
            src_ip: Default::default(),
            dst_ip: Default::default(),
            src_port: Default::default(),
            dst_port: Default::default(),
            payload_bytes: Default::default(),
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
            header: Default::default(),
            ethertype_ipv4: Constant::new(bits::<16>(wire16(ETHERTYPE_IPV4))),
            ipv4_no_options: Constant::new(bits::<8>(IPV4_VERSION_IHL.into())),
            dont_fragment: Constant::new(bits::<16>(wire16(IPV4_DONT_FRAGMENT))),
            ttl: Constant::new(bits::<8>(IPV4_TTL.into())),
            protocol_udp: Constant::new(bits::<8>(IPV4_PROTOCOL_UDP.into())),
            ip_fixed_sum: Constant::new(bits::<20>(
                wire16(u16::from(IPV4_VERSION_IHL) << 8)
                    + wire16(IPV4_DONT_FRAGMENT)
                    + wire16(u16::from(IPV4_TTL) << 8 | u16::from(IPV4_PROTOCOL_UDP)),
            )),
            udp_overhead: Constant::new(bits::<16>((UDP_HEADER_LEN + HEADER_LEN) as u64)),
            ip_overhead: Constant::new(bits::<16>(
                (IPV4_HEADER_LEN + UDP_HEADER_LEN + HEADER_LEN) as u64,
            )),
            magic_byte: Constant::new(bits::<8>(collwire_proto::MAGIC.into())),
            version: Constant::new(bits::<4>(collwire_proto::VERSION.into())),
            udp_len: Default::default(),
            ip_total_len: Default::default(),
            udp_len_wire: Default::default(),
            ip_total_len_wire: Default::default(),
            part_len: Default::default(),
            part_addr: Default::default(),
            addr_src: Default::default(),
            addr_dst: Default::default(),
            sum: Default::default(),
            fold: Default::default(),
            fold_plus1: Default::default(),
            ip_checksum: Default::default(),
            version_type: Default::default(),
            coll_alg: Default::default(),
            dtype_op: Default::default(),
            w: Default::default(),
            placed: Default::default(),
            done: Default::default(),
        }
    }
}

impl Logic for HeaderBuilder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, part_len, part_addr, placed);
        self.udp_len.next = self.payload_bytes.val() + self.udp_overhead.val();
        self.ip_total_len.next = self.payload_bytes.val() + self.ip_overhead.val();
        self.udp_len_wire.next = (self.udp_len.val() << 8) | (self.udp_len.val() >> 8);
        self.ip_total_len_wire.next =
            (self.ip_total_len.val() << 8) | (self.ip_total_len.val() >> 8);
        // IPv4 checksum: one's-complement sum of the header's ten 16-bit words (checksum word
        // 0, id 0), folded twice, complemented. The one's-complement sum does not depend on
        // byte order (RFC 1071, 2.(B)), so it is computed on the words as they lie on the
        // wire — each address is two words — and comes out in wire order.
        self.part_len.d.next =
            self.ip_fixed_sum.val() + bit_cast::<20, 16>(self.ip_total_len_wire.val());
        self.addr_src.next = bit_cast::<20, 16>(self.src_ip.val().get_bits::<16>(0))
            + bit_cast::<20, 16>(self.src_ip.val().get_bits::<16>(16));
        self.addr_dst.next = bit_cast::<20, 16>(self.dst_ip.val().get_bits::<16>(0))
            + bit_cast::<20, 16>(self.dst_ip.val().get_bits::<16>(16));
        self.part_addr.d.next = self.addr_src.val() + self.addr_dst.val();
        // After the register: the sum, folded (a carry out of the first fold adds one more,
        // which cannot carry again), complemented.
        self.sum.next = self.part_len.q.val() + self.part_addr.q.val();
        self.fold.next = bit_cast::<17, 16>(self.sum.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.sum.val().get_bits::<4>(16));
        self.fold_plus1.next = bit_cast::<17, 16>(self.sum.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.sum.val().get_bits::<4>(16))
            + bits::<17>(1);
        self.ip_checksum.next = !self.fold.val().get_bits::<16>(0);
        if self.fold.val().get_bit(16) {
            self.ip_checksum.next = !self.fold_plus1.val().get_bits::<16>(0);
        }
        self.version_type.next.high = self.version.val();
        self.version_type.next.low = self.msg_type.val();
        self.coll_alg.next.high = self.collective.val();
        self.coll_alg.next.low = self.algorithm.val();
        self.dtype_op.next.high = self.datatype.val();
        self.dtype_op.next.low = self.reduce_op.val();
        // Every field into its place (WireHeader: wire order; numbers byte-swapped).
        self.w.next.dst_mac = self.dst_mac.val();
        self.w.next.src_mac = self.src_mac.val();
        self.w.next.ethertype = self.ethertype_ipv4.val();
        self.w.next.ip_version_ihl = self.ipv4_no_options.val();
        self.w.next.ip_dscp_ecn = bits::<8>(0);
        self.w.next.ip_total_len = self.ip_total_len_wire.val();
        self.w.next.ip_id = bits::<16>(0);
        self.w.next.ip_flags_frag = self.dont_fragment.val();
        self.w.next.ip_ttl = self.ttl.val();
        self.w.next.ip_protocol = self.protocol_udp.val();
        self.w.next.ip_checksum = bits::<16>(0);
        self.w.next.src_ip = self.src_ip.val();
        self.w.next.dst_ip = self.dst_ip.val();
        self.w.next.src_port = (self.src_port.val() << 8) | (self.src_port.val() >> 8);
        self.w.next.dst_port = (self.dst_port.val() << 8) | (self.dst_port.val() >> 8);
        self.w.next.udp_len = self.udp_len_wire.val();
        self.w.next.udp_checksum = bits::<16>(0);
        self.w.next.magic = self.magic_byte.val();
        self.w.next.version_type = self.version_type.val().into();
        self.w.next.op_id = (self.op_id.val() << 8) | (self.op_id.val() >> 8);
        self.w.next.coll_alg = self.coll_alg.val().into();
        self.w.next.dtype_op = self.dtype_op.val().into();
        self.w.next.comm_id = (self.comm_id.val() << 8) | (self.comm_id.val() >> 8);
        self.w.next.comm_size = (self.comm_size.val() << 8) | (self.comm_size.val() >> 8);
        self.w.next.rank = (self.rank.val() << 8) | (self.rank.val() >> 8);
        self.w.next.root = (self.root.val() << 8) | (self.root.val() >> 8);
        self.w.next.ranks_per_host = self.ranks_per_host.val();
        self.w.next.attempt = self.attempt.val();
        self.w.next.seg_index = (self.seg_index.val() << 8) | (self.seg_index.val() >> 8);
        self.w.next.seg_count = (self.seg_count.val() << 8) | (self.seg_count.val() >> 8);
        self.w.next.elem_count = (self.elem_count.val() << 8) | (self.elem_count.val() >> 8);
        self.placed.d.next = self.w.val();
        self.done.next = self.placed.q.val();
        self.done.next.ip_checksum = self.ip_checksum.val();
        self.header.next = self.done.val().into();
    }
}

//! Builds the 64-byte Ethernet II / IPv4 / UDP / offload header of every frame the engine
//! sends (results to local ranks, partials and results to other boards, error answers), in
//! one clock, combinationally.
//!
//! Bytes are in wire order: frame byte `n` is `header[8n+7:8n]`, as on the bus (lane `n` of a
//! beat). MAC and IPv4 addresses are taken and placed in wire order; numeric fields are given
//! as numbers and written big-endian. The IPv4 header is the one `etherparse` builds (IHL 5,
//! DSCP 0, id 0, don't-fragment, TTL 64, protocol UDP) with its checksum computed here — a
//! one's-complement sum of the ten header words, folded twice; the UDP checksum is 0 (no
//! checksum, allowed for IPv4). The Verilator test compares every byte with
//! `collwire_proto::frame::build_frame` on random fields (UDP checksum aside).

use rust_hdl::prelude::*;

/// Bytes before the payload: Ethernet 14 + IPv4 20 + UDP 8 + offload header 22.
pub const HEADER_BYTES: usize = 64;

#[derive(LogicBlock)]
pub struct HeaderBuilder {
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
    fixed_eth_ip: Constant<Bits<32>>,
    fixed_ip_mid: Constant<Bits<48>>,
    magic_byte: Constant<Bits<8>>,
    version: Constant<Bits<8>>,
    udp_len: Signal<Local, Bits<16>>,
    ip_total_len: Signal<Local, Bits<16>>,
    sum: Signal<Local, Bits<20>>,
    fold: Signal<Local, Bits<20>>,
    ip_checksum: Signal<Local, Bits<16>>,
    version_type: Signal<Local, Bits<8>>,
    coll_alg: Signal<Local, Bits<8>>,
    dtype_op: Signal<Local, Bits<8>>,
}

impl Default for HeaderBuilder {
    fn default() -> Self {
        Self {
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
            // Bytes 12..15: EtherType 0x0800, version/IHL 0x45, DSCP/ECN 0.
            fixed_eth_ip: Constant::new(bits::<32>(0x0045_0008)),
            // Bytes 18..23: id 0, flags DF (0x4000), TTL 64, protocol 17.
            fixed_ip_mid: Constant::new(bits::<48>(0x1140_0040_0000)),
            magic_byte: Constant::new(bits::<8>(collwire_proto::MAGIC as u64)),
            version: Constant::new(bits::<8>(u64::from(collwire_proto::VERSION) << 4)),
            udp_len: Default::default(),
            ip_total_len: Default::default(),
            sum: Default::default(),
            fold: Default::default(),
            ip_checksum: Default::default(),
            version_type: Default::default(),
            coll_alg: Default::default(),
            dtype_op: Default::default(),
        }
    }
}

impl Logic for HeaderBuilder {
    #[hdl_gen]
    fn update(&mut self) {
        self.udp_len.next = self.payload_bytes.val() + bits::<16>(30);
        self.ip_total_len.next = self.udp_len.val() + bits::<16>(20);
        // One's-complement sum of the IPv4 header words (checksum word 0): 0x4500, length,
        // id 0, 0x4000, 0x4011, the two words of each address (big-endian).
        self.sum.next = bits::<20>(0x4500 + 0x4000 + 0x4011)
            + bit_cast::<20, 16>(self.ip_total_len.val())
            + (bit_cast::<20, 8>(self.src_ip.val().get_bits::<8>(0)) << 8)
            + bit_cast::<20, 8>(self.src_ip.val().get_bits::<8>(8))
            + (bit_cast::<20, 8>(self.src_ip.val().get_bits::<8>(16)) << 8)
            + bit_cast::<20, 8>(self.src_ip.val().get_bits::<8>(24))
            + (bit_cast::<20, 8>(self.dst_ip.val().get_bits::<8>(0)) << 8)
            + bit_cast::<20, 8>(self.dst_ip.val().get_bits::<8>(8))
            + (bit_cast::<20, 8>(self.dst_ip.val().get_bits::<8>(16)) << 8)
            + bit_cast::<20, 8>(self.dst_ip.val().get_bits::<8>(24));
        self.fold.next = bit_cast::<20, 16>(self.sum.val().get_bits::<16>(0))
            + bit_cast::<20, 4>(self.sum.val().get_bits::<4>(16));
        self.ip_checksum.next = !(self.fold.val().get_bits::<16>(0)
            + bit_cast::<16, 4>(self.fold.val().get_bits::<4>(16)));
        self.version_type.next = self.version.val() | bit_cast::<8, 4>(self.msg_type.val());
        self.coll_alg.next =
            (bit_cast::<8, 4>(self.collective.val()) << 4) | bit_cast::<8, 4>(self.algorithm.val());
        self.dtype_op.next =
            (bit_cast::<8, 4>(self.datatype.val()) << 4) | bit_cast::<8, 4>(self.reduce_op.val());
        self.header.next = (bit_cast::<512, 48>(self.dst_mac.val()) << 0)
            | (bit_cast::<512, 48>(self.src_mac.val()) << 48)
            | (bit_cast::<512, 32>(self.fixed_eth_ip.val()) << 96)
            | (bit_cast::<512, 8>(self.ip_total_len.val().get_bits::<8>(8)) << 128)
            | (bit_cast::<512, 8>(self.ip_total_len.val().get_bits::<8>(0)) << 136)
            | (bit_cast::<512, 8>(self.ip_checksum.val().get_bits::<8>(8)) << 192)
            | (bit_cast::<512, 8>(self.ip_checksum.val().get_bits::<8>(0)) << 200)
            | (bit_cast::<512, 8>(self.src_port.val().get_bits::<8>(8)) << 272)
            | (bit_cast::<512, 8>(self.src_port.val().get_bits::<8>(0)) << 280)
            | (bit_cast::<512, 8>(self.dst_port.val().get_bits::<8>(8)) << 288)
            | (bit_cast::<512, 8>(self.dst_port.val().get_bits::<8>(0)) << 296)
            | (bit_cast::<512, 8>(self.udp_len.val().get_bits::<8>(8)) << 304)
            | (bit_cast::<512, 8>(self.udp_len.val().get_bits::<8>(0)) << 312)
            | (bit_cast::<512, 8>(self.op_id.val().get_bits::<8>(8)) << 352)
            | (bit_cast::<512, 8>(self.op_id.val().get_bits::<8>(0)) << 360)
            | (bit_cast::<512, 8>(self.comm_id.val().get_bits::<8>(8)) << 384)
            | (bit_cast::<512, 8>(self.comm_id.val().get_bits::<8>(0)) << 392)
            | (bit_cast::<512, 8>(self.comm_size.val().get_bits::<8>(8)) << 400)
            | (bit_cast::<512, 8>(self.comm_size.val().get_bits::<8>(0)) << 408)
            | (bit_cast::<512, 8>(self.rank.val().get_bits::<8>(8)) << 416)
            | (bit_cast::<512, 8>(self.rank.val().get_bits::<8>(0)) << 424)
            | (bit_cast::<512, 8>(self.root.val().get_bits::<8>(8)) << 432)
            | (bit_cast::<512, 8>(self.root.val().get_bits::<8>(0)) << 440)
            | (bit_cast::<512, 8>(self.seg_index.val().get_bits::<8>(8)) << 464)
            | (bit_cast::<512, 8>(self.seg_index.val().get_bits::<8>(0)) << 472)
            | (bit_cast::<512, 8>(self.seg_count.val().get_bits::<8>(8)) << 480)
            | (bit_cast::<512, 8>(self.seg_count.val().get_bits::<8>(0)) << 488)
            | (bit_cast::<512, 8>(self.elem_count.val().get_bits::<8>(8)) << 496)
            | (bit_cast::<512, 8>(self.elem_count.val().get_bits::<8>(0)) << 504)
            | (bit_cast::<512, 48>(self.fixed_ip_mid.val()) << 144)
            | (bit_cast::<512, 32>(self.src_ip.val()) << 208)
            | (bit_cast::<512, 32>(self.dst_ip.val()) << 240)
            | (bit_cast::<512, 8>(self.magic_byte.val()) << 336)
            | (bit_cast::<512, 8>(self.version_type.val()) << 344)
            | (bit_cast::<512, 8>(self.coll_alg.val()) << 368)
            | (bit_cast::<512, 8>(self.dtype_op.val()) << 376)
            | (bit_cast::<512, 8>(self.ranks_per_host.val()) << 448)
            | (bit_cast::<512, 8>(self.attempt.val()) << 456);
    }
}

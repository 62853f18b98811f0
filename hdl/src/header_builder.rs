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
    /// Header bytes `8k .. 8k+7`.
    word: [Signal<Local, Bits<64>>; 8],
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
            word: Default::default(),
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
        // Eight 64-bit words first (native machine words in a simulator), then one 512-bit
        // vector: 7 wide shifts instead of one per field, the simulator's hottest code.
        self.word[0].next = bit_cast::<64, 48>(self.dst_mac.val())
            | (bit_cast::<64, 16>(self.src_mac.val().get_bits::<16>(0)) << 48);
        self.word[1].next = bit_cast::<64, 32>(self.src_mac.val().get_bits::<32>(16))
            | (bit_cast::<64, 32>(self.fixed_eth_ip.val()) << 32);
        self.word[2].next = bit_cast::<64, 8>(self.ip_total_len.val().get_bits::<8>(8))
            | (bit_cast::<64, 8>(self.ip_total_len.val().get_bits::<8>(0)) << 8)
            | (bit_cast::<64, 48>(self.fixed_ip_mid.val()) << 16);
        self.word[3].next = bit_cast::<64, 8>(self.ip_checksum.val().get_bits::<8>(8))
            | (bit_cast::<64, 8>(self.ip_checksum.val().get_bits::<8>(0)) << 8)
            | (bit_cast::<64, 32>(self.src_ip.val()) << 16)
            | (bit_cast::<64, 16>(self.dst_ip.val().get_bits::<16>(0)) << 48);
        self.word[4].next = bit_cast::<64, 16>(self.dst_ip.val().get_bits::<16>(16))
            | (bit_cast::<64, 8>(self.src_port.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<64, 8>(self.src_port.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<64, 8>(self.dst_port.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<64, 8>(self.dst_port.val().get_bits::<8>(0)) << 40)
            | (bit_cast::<64, 8>(self.udp_len.val().get_bits::<8>(8)) << 48)
            | (bit_cast::<64, 8>(self.udp_len.val().get_bits::<8>(0)) << 56);
        self.word[5].next = (bit_cast::<64, 8>(self.magic_byte.val()) << 16)
            | (bit_cast::<64, 8>(self.version_type.val()) << 24)
            | (bit_cast::<64, 8>(self.op_id.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<64, 8>(self.op_id.val().get_bits::<8>(0)) << 40)
            | (bit_cast::<64, 8>(self.coll_alg.val()) << 48)
            | (bit_cast::<64, 8>(self.dtype_op.val()) << 56);
        self.word[6].next = bit_cast::<64, 8>(self.comm_id.val().get_bits::<8>(8))
            | (bit_cast::<64, 8>(self.comm_id.val().get_bits::<8>(0)) << 8)
            | (bit_cast::<64, 8>(self.comm_size.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<64, 8>(self.comm_size.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<64, 8>(self.rank.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<64, 8>(self.rank.val().get_bits::<8>(0)) << 40)
            | (bit_cast::<64, 8>(self.root.val().get_bits::<8>(8)) << 48)
            | (bit_cast::<64, 8>(self.root.val().get_bits::<8>(0)) << 56);
        self.word[7].next = bit_cast::<64, 8>(self.ranks_per_host.val())
            | (bit_cast::<64, 8>(self.attempt.val()) << 8)
            | (bit_cast::<64, 8>(self.seg_index.val().get_bits::<8>(8)) << 16)
            | (bit_cast::<64, 8>(self.seg_index.val().get_bits::<8>(0)) << 24)
            | (bit_cast::<64, 8>(self.seg_count.val().get_bits::<8>(8)) << 32)
            | (bit_cast::<64, 8>(self.seg_count.val().get_bits::<8>(0)) << 40)
            | (bit_cast::<64, 8>(self.elem_count.val().get_bits::<8>(8)) << 48)
            | (bit_cast::<64, 8>(self.elem_count.val().get_bits::<8>(0)) << 56);
        self.header.next = bit_cast::<512, 64>(self.word[0].val())
            | (bit_cast::<512, 64>(self.word[1].val()) << 64)
            | (bit_cast::<512, 64>(self.word[2].val()) << 128)
            | (bit_cast::<512, 64>(self.word[3].val()) << 192)
            | (bit_cast::<512, 64>(self.word[4].val()) << 256)
            | (bit_cast::<512, 64>(self.word[5].val()) << 320)
            | (bit_cast::<512, 64>(self.word[6].val()) << 384)
            | (bit_cast::<512, 64>(self.word[7].val()) << 448);
    }
}

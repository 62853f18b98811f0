//! The packet bus: AXI-Stream as in verilog-ethernet / NetFPGA, one module per file, `s_axis_*`
//! in and `m_axis_*` out.
//!
//! | signal | width | meaning |
//! |---|---|---|
//! | `tdata` | 64 or 256 | frame bytes; byte `i` of a beat is `tdata[8i+7:8i]` |
//! | `tkeep` | 8 or 32 | byte enables, contiguous from lane 0; only the `tlast` beat may be partial |
//! | `tlast` | 1 | last beat of the frame |
//! | `tuser` | 16 | `[7:0]` source port (one-hot), `[15:8]` destination port mask |
//! | `tvalid`/`tready` | 1 | a beat moves on a clock where both are high |
//!
//! Ports are numbered as on the board: port 0 is the host (DMA) port, ports 1.. are the network
//! ports; port 1 is the uplink a plain NIC would use. The ZedBoard build (64 bits) has the host
//! and the 3 ports of its Ethernet FMC; the NetFPGA SUME build (256 bits) the host and 4 SFP+.
//! The source mask is stamped by the input arbiter; the destination mask is decided by the router
//! (pass-through) or by the collective engine (offload results, multicast when several bits are set).
//!
//! Frame byte `n` is in beat `n / BYTES`, lane `n % BYTES`. The offload header ends at byte 64
//! ([`collwire_proto::PAYLOAD_FRAME_OFFSET`]), a beat boundary at both widths, so a payload is a
//! whole number of beats from its first word.

/// Width of `tuser`.
pub const TUSER_BITS: usize = 16;
/// Port number of the host (DMA) port.
pub const HOST_PORT: usize = 0;
/// Port number of the uplink (where a plain NIC sends host traffic).
pub const UPLINK_PORT: usize = 1;

/// `tuser` with source port `src` and destination mask `dst_mask`.
pub const fn tuser(src: usize, dst_mask: u8) -> u16 {
    (1 << src) as u16 | (dst_mask as u16) << 8
}

/// Ports of a build: host + network ports.
pub const fn ports_for_width(bits: usize) -> usize {
    if bits == 64 { 4 } else { 5 }
}

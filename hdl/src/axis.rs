//! The packet bus: AXI-Stream as in verilog-ethernet / NetFPGA, one module per file, `s_axis_*`
//! in and `m_axis_*` out.
//!
//! | signal | width | meaning |
//! |---|---|---|
//! | `tdata` | 64 or 256 | frame bytes; byte `i` of a beat is `tdata[8i+7:8i]` |
//! | `tkeep` | 8 or 32 | byte enables, contiguous from lane 0; only the `tlast` beat may be partial |
//! | `tlast` | 1 | last beat of the frame |
//! | `tuser` | 16 | `[6:0]` source port (one-hot), `[7]` bad frame (on the `tlast` beat), `[15:8]` destination port mask |
//! | `tvalid`/`tready` | 1 | a beat moves on a clock where both are high |
//!
//! Ports are numbered as on the board: port 0 is the host (DMA) port, ports 1.. are the network
//! ports; port 1 is the uplink a plain NIC would use. The ZedBoard build (64 bits) has the host
//! and the 3 ports of its Ethernet FMC; the NetFPGA SUME build (256 bits) the host and 4 SFP+.
//! The source mask is stamped by the input arbiter; the destination mask is decided by the router
//! (pass-through) or by the collective engine (offload results, multicast when several bits are set).
//!
//! **Bad frames** (the MAC convention, as verilog-ethernet's `tuser` on `tlast`): a frame whose
//! `tlast` beat has the bad bit set must never be delivered as good. A MAC sets it on a frame it
//! received with a bad FCS (the board's `s_axis_*_tuser`); the router sets it on a runt, on the
//! beat that cuts off a giant and on a frame the MAC marked; a frame FIFO in frame mode
//! ([`crate::axis_fifo::AxisFifo`]) drops such a frame instead of storing it.
//!
//! Frame byte `n` is in beat `n / BYTES`, lane `n % BYTES`. The offload header ends at byte 64
//! ([`collwire_proto::PAYLOAD_FRAME_OFFSET`]), a beat boundary at both widths, so a payload is a
//! whole number of beats from its first word.

use rust_hdl::prelude::*;

/// Width of `tuser`.
pub const TUSER_BITS: usize = 16;
/// Port number of the host (DMA) port.
pub const HOST_PORT: usize = 0;
/// Port number of the uplink (where a plain NIC sends host traffic).
pub const UPLINK_PORT: usize = 1;

/// First bit of the destination mask in `tuser` (the source mask is bits 6:0).
pub const TUSER_DST_AT: usize = 8;
/// The bad-frame bit of `tuser`, meaningful on a `tlast` beat.
pub const TUSER_BAD_AT: usize = 7;
/// Ports a source mask can name (below the bad bit).
pub const MAX_PORTS: usize = TUSER_BAD_AT;

/// `tuser` with source port `src` and destination mask `dst_mask`.
pub const fn tuser(src: usize, dst_mask: u8) -> u16 {
    (1 << src) as u16 | (dst_mask as u16) << TUSER_DST_AT
}

/// Ports of a build: host + network ports.
pub const fn ports_for_width(bits: usize) -> usize {
    if bits == 64 { 4 } else { 5 }
}

// The bus as typed interfaces. `W` data bits and `K = W / 8` keep bits: stable Rust has no
// `generic_const_exprs`, so the keep width is a parameter of its own, checked by
// [`check_widths`] in every block's `Default`. A block receives through `s_axis: AxisSink` and
// sends through `m_axis: AxisSource`; a parent connects two blocks with
// `AxisSource::join(&mut self.a.m_axis, &mut self.b.s_axis)`. In Verilog the fields are the
// usual `s_axis_tdata`, `m_axis_tready`, ... ([`crate::emit::verilog`] names them).

/// Panics unless `K` is `W / 8` (the keep width of a `W`-bit bus).
pub const fn check_widths(w: usize, k: usize) {
    assert!(k * 8 == w, "AXI-Stream: keep must be data bits / 8");
}

/// A frame stream into a block (`s_axis_*`): the bus inside a board, with `tuser`.
#[derive(LogicInterface, Default)]
#[join = "AxisSource"]
pub struct AxisSink<const W: usize, const K: usize> {
    pub tdata: Signal<In, Bits<W>>,
    pub tkeep: Signal<In, Bits<K>>,
    pub tlast: Signal<In, Bit>,
    pub tuser: Signal<In, Bits<TUSER_BITS>>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// A frame stream out of a block (`m_axis_*`): the bus inside a board, with `tuser`.
#[derive(LogicInterface, Default)]
#[join = "AxisSink"]
pub struct AxisSource<const W: usize, const K: usize> {
    pub tdata: Signal<Out, Bits<W>>,
    pub tkeep: Signal<Out, Bits<K>>,
    pub tlast: Signal<Out, Bit>,
    pub tuser: Signal<Out, Bits<TUSER_BITS>>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// A MAC's receive stream into the board (`s_axis_*`): `tuser` is one bit, high on the `tlast`
/// beat of a frame the MAC received bad (FCS or PHY error); the board stamps the port.
#[derive(LogicInterface, Default)]
#[join = "MacSource"]
pub struct MacSink<const W: usize, const K: usize> {
    pub tdata: Signal<In, Bits<W>>,
    pub tkeep: Signal<In, Bits<K>>,
    pub tlast: Signal<In, Bit>,
    pub tuser: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// The board's transmit stream to a MAC (`m_axis_*`): `tuser` high on a `tlast` beat tells
/// the MAC to abort the frame (send it with a bad FCS). The output queues store whole frames and
/// drop bad ones, so today it is always low; it is the port a cut-through queue will use.
#[derive(LogicInterface, Default)]
#[join = "MacSink"]
pub struct MacSource<const W: usize, const K: usize> {
    pub tdata: Signal<Out, Bits<W>>,
    pub tkeep: Signal<Out, Bits<K>>,
    pub tlast: Signal<Out, Bit>,
    pub tuser: Signal<Out, Bit>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// Result words into a block: whole `W`-bit words, `tlast` on the last word of a frame's
/// payload.
#[derive(LogicInterface, Default)]
#[join = "PayloadSource"]
pub struct PayloadSink<const W: usize> {
    pub tdata: Signal<In, Bits<W>>,
    pub tlast: Signal<In, Bit>,
    /// With `tlast`: the words were computed from an offload frame found bad at its tail; the
    /// frame that carries them must leave marked bad.
    pub tbad: Signal<In, Bit>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// Result words out of a block.
#[derive(LogicInterface, Default)]
#[join = "PayloadSink"]
pub struct PayloadSource<const W: usize> {
    pub tdata: Signal<Out, Bits<W>>,
    pub tlast: Signal<Out, Bit>,
    pub tbad: Signal<Out, Bit>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// A stream of `T` values into a block: payload words (`Bits<W>`, whole words, no frame
/// boundaries: the command that came with them says how many) or typed records such as a
/// command.
#[derive(LogicInterface, Default)]
#[join = "StreamSource"]
pub struct StreamSink<T: Synth> {
    pub tdata: Signal<In, T>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}

/// A stream of `T` values out of a block.
#[derive(LogicInterface, Default)]
#[join = "StreamSink"]
pub struct StreamSource<T: Synth> {
    pub tdata: Signal<Out, T>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

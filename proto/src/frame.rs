//! Ethernet II + IPv4 + UDP framing of offload datagrams (built and sliced with `etherparse`),
//! and the reference classification that the hardware parser must match.
//!
//! A frame is an *offload candidate* when, at fixed offsets, it is Ethernet II with EtherType
//! IPv4 (no VLAN tag), IPv4 with IHL = 5 (no options), not a fragment (MF = 0, offset = 0),
//! protocol UDP, destination port [`crate::OFFLOAD_UDP_PORT`]. Every other frame is
//! [`FrameKind::PassThrough`] and must leave the board unchanged. A candidate whose lengths or
//! offload header do not validate is [`FrameKind::Malformed`]: dropped and counted, never acted on.

use etherparse::{NetSlice, PacketBuilder, SlicedPacket, TransportSlice};

use crate::wire::OffloadRepr;
use crate::{ETH_HEADER_LEN, Error, OFFLOAD_UDP_PORT};

/// Layer 2–4 addresses of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Endpoints {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
    pub src_port: u16,
    pub dst_port: u16,
}

impl Endpoints {
    /// The endpoints of the reply: sources and destinations swapped.
    pub fn reversed(&self) -> Endpoints {
        Endpoints {
            src_mac: self.dst_mac,
            dst_mac: self.src_mac,
            src_ip: self.dst_ip,
            dst_ip: self.src_ip,
            src_port: self.dst_port,
            dst_port: self.src_port,
        }
    }
}

/// IPv4 time-to-live of frames we build.
pub const TTL: u8 = 64;

/// Wraps `datagram` in Ethernet II / IPv4 / UDP with a valid IPv4 header checksum and UDP
/// checksum.
pub fn build_frame(endpoints: &Endpoints, datagram: &[u8]) -> Result<Vec<u8>, Error> {
    let builder = PacketBuilder::ethernet2(endpoints.src_mac, endpoints.dst_mac)
        .ipv4(endpoints.src_ip, endpoints.dst_ip, TTL)
        .udp(endpoints.src_port, endpoints.dst_port);
    let mut frame = Vec::with_capacity(builder.size(datagram.len()));
    builder
        .write(&mut frame, datagram)
        .map_err(|e| Error::Frame(e.to_string()))?;
    Ok(frame)
}

/// What the board does with a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameKind<'a> {
    /// Not ours: forward unchanged.
    PassThrough,
    /// A valid offload datagram.
    Offload {
        endpoints: Endpoints,
        repr: OffloadRepr,
        payload: &'a [u8],
    },
    /// Addressed to the offload port but invalid: drop and count.
    Malformed(Error),
}

/// True when the fixed-offset fields mark `frame` as addressed to the offload engine.
pub fn is_offload_candidate(frame: &[u8]) -> bool {
    const IP: usize = ETH_HEADER_LEN;
    if frame.len() < IP + 20 + 4 {
        return false;
    }
    let ethertype = u16::from_be_bytes([frame[12], frame[13]]);
    let version_ihl = frame[IP];
    let flags_frag = u16::from_be_bytes([frame[IP + 6], frame[IP + 7]]);
    let protocol = frame[IP + 9];
    let dst_port = u16::from_be_bytes([frame[IP + 22], frame[IP + 23]]);
    ethertype == 0x0800
        && version_ihl == 0x45
        && flags_frag & 0x3fff == 0 // MF clear, fragment offset 0
        && protocol == 17
        && dst_port == OFFLOAD_UDP_PORT
}

/// Classifies a frame (without FCS) the way the hardware parser must.
pub fn classify(frame: &[u8]) -> FrameKind<'_> {
    if !is_offload_candidate(frame) {
        return FrameKind::PassThrough;
    }
    match slice_offload(frame) {
        Ok((endpoints, datagram)) => match OffloadRepr::from_datagram(datagram) {
            Ok((repr, payload)) => FrameKind::Offload {
                endpoints,
                repr,
                payload,
            },
            Err(e) => FrameKind::Malformed(e),
        },
        Err(e) => FrameKind::Malformed(e),
    }
}

/// Slices a candidate with etherparse, checking IPv4 and UDP lengths; returns the UDP payload.
fn slice_offload(frame: &[u8]) -> Result<(Endpoints, &[u8]), Error> {
    let sliced = SlicedPacket::from_ethernet(frame).map_err(|e| Error::Frame(e.to_string()))?;
    let eth = match sliced.link {
        Some(etherparse::LinkSlice::Ethernet2(eth)) => eth,
        _ => return Err(Error::NotOffload("no Ethernet II header")),
    };
    let ip = match sliced.net {
        Some(NetSlice::Ipv4(ip)) => ip,
        _ => return Err(Error::NotOffload("not IPv4")),
    };
    let udp = match sliced.transport {
        Some(TransportSlice::Udp(udp)) => udp,
        _ => return Err(Error::NotOffload("not UDP")),
    };
    let endpoints = Endpoints {
        src_mac: eth.source(),
        dst_mac: eth.destination(),
        src_ip: ip.header().source(),
        dst_ip: ip.header().destination(),
        src_port: udp.source_port(),
        dst_port: udp.destination_port(),
    };
    Ok((endpoints, udp.payload()))
}

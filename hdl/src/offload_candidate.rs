//! The rule that makes a frame an offload **candidate** (docs/protocol.md, "Classification";
//! `collwire_proto::frame::is_offload_candidate`): EtherType 0x0800, IPv4 version 4 with IHL 5,
//! not a fragment, protocol 17, UDP destination port 0xC011 — every field within the first 38
//! bytes. One definition for the two places that ask: the router, which decides from the
//! header's first beats where a frame goes ([`crate::frame_router`]), and the classifier,
//! which checks the whole offload header of a candidate ([`crate::offload_classifier`]).
//! Frames shorter than 38 bytes are never candidates; the length is the asker's to check.

use rust_hdl::prelude::*;

use crate::header_fields::{ETHERTYPE_IPV4, HeaderFields, IPV4_PROTOCOL_UDP, IPV4_VERSION_IHL};

/// Bytes a frame needs before the rule can be decided (the UDP destination port ends here).
pub const CANDIDATE_BYTES: usize = 38;

#[derive(LogicBlock)]
pub struct OffloadCandidate {
    /// Frame bytes 0..64, byte 0 in bits 7:0 (only bytes 0..38 are read).
    pub header: Signal<In, Bits<512>>,
    pub candidate: Signal<Out, Bit>,
    fields: HeaderFields,
    ethertype_ipv4: Constant<Bits<16>>,
    ipv4_no_options: Constant<Bits<8>>,
    protocol_udp: Constant<Bits<8>>,
    offload_port: Constant<Bits<16>>,
    frag_mask: Constant<Bits<16>>,
}

impl Default for OffloadCandidate {
    fn default() -> Self {
        Self {
            header: Default::default(),
            candidate: Default::default(),
            fields: Default::default(),
            ethertype_ipv4: Constant::new(bits::<16>(ETHERTYPE_IPV4.into())),
            ipv4_no_options: Constant::new(bits::<8>(IPV4_VERSION_IHL.into())),
            protocol_udp: Constant::new(bits::<8>(IPV4_PROTOCOL_UDP.into())),
            offload_port: Constant::new(bits::<16>(collwire_proto::OFFLOAD_UDP_PORT.into())),
            frag_mask: Constant::new(bits::<16>(0x3fff)),
        }
    }
}

impl Logic for OffloadCandidate {
    #[hdl_gen]
    fn update(&mut self) {
        self.fields.header.next = self.header.val();
        self.candidate.next = (self.fields.ethertype.val() == self.ethertype_ipv4.val())
            & (self.fields.ip_version_ihl.val() == self.ipv4_no_options.val())
            & ((self.fields.ip_flags_frag.val() & self.frag_mask.val()) == bits::<16>(0))
            & (self.fields.ip_protocol.val() == self.protocol_udp.val())
            & (self.fields.dst_port.val() == self.offload_port.val());
    }
}

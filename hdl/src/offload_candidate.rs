//! The rule that makes a frame an offload **candidate** (docs/protocol.md, "Classification";
//! `collwire_proto::frame::is_offload_candidate`): EtherType 0x0800, IPv4 version 4 with IHL 5,
//! not a fragment, protocol 17, UDP destination port 0xC011 — every field within the first 38
//! bytes. One definition for the two places that ask: the router, which decides from the
//! header's first beats where a frame goes ([`crate::frame_router`]), and the classifier,
//! which checks the whole offload header of a candidate ([`crate::offload_classifier`]).
//! Frames shorter than 38 bytes are never candidates; the length is the asker's to check.

use rust_hdl::prelude::*;

use crate::header_fields::{
    DST_PORT_BYTE, ETHERTYPE_BYTE, ETHERTYPE_IPV4, HeaderFields, IP_FLAGS_FRAG_BYTE,
    IP_PROTOCOL_BYTE, IP_VERSION_IHL_BYTE, IPV4_PROTOCOL_UDP, IPV4_VERSION_IHL,
};

/// The rule's checks, one bit each of `checks`: EtherType, IPv4 version/IHL, flags and
/// fragment offset, protocol, UDP destination port.
pub const CHECKS: usize = 5;

/// The frame bytes each check reads, as `start..end` (bit `i` of `checks` reads
/// `CHECK_BYTES[i]`): an asker that sees a frame beat by beat knows from these which checks
/// it can make before the last of the rule's bytes is in.
pub const CHECK_BYTES: [std::ops::Range<usize>; CHECKS] = [
    ETHERTYPE_BYTE..ETHERTYPE_BYTE + 2,
    IP_VERSION_IHL_BYTE..IP_VERSION_IHL_BYTE + 1,
    IP_FLAGS_FRAG_BYTE..IP_FLAGS_FRAG_BYTE + 2,
    IP_PROTOCOL_BYTE..IP_PROTOCOL_BYTE + 1,
    DST_PORT_BYTE..DST_PORT_BYTE + 2,
];

/// Bytes a frame needs before the rule can be decided (the UDP destination port ends here).
pub const CANDIDATE_BYTES: usize = DST_PORT_BYTE + 2;

const _: () = {
    let mut i = 0;
    while i < CHECKS {
        assert!(CHECK_BYTES[i].end <= CANDIDATE_BYTES);
        i += 1;
    }
};

#[derive(LogicBlock)]
pub struct OffloadCandidate {
    /// Frame bytes 0..64, byte 0 in bits 7:0 (only bytes 0..38 are read).
    pub header: Signal<In, Bits<512>>,
    pub candidate: Signal<Out, Bit>,
    /// Each check's answer on its own (bit order of [`CHECK_BYTES`]); `candidate` is their AND.
    pub checks: Signal<Out, Bits<CHECKS>>,
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
            checks: Default::default(),
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
        self.checks.next = bits::<5>(0)
            .replace_bit(0, self.fields.ethertype.val() == self.ethertype_ipv4.val())
            .replace_bit(
                1,
                self.fields.ip_version_ihl.val() == self.ipv4_no_options.val(),
            )
            .replace_bit(
                2,
                (self.fields.ip_flags_frag.val() & self.frag_mask.val()) == bits::<16>(0),
            )
            .replace_bit(3, self.fields.ip_protocol.val() == self.protocol_udp.val())
            .replace_bit(4, self.fields.dst_port.val() == self.offload_port.val());
        self.candidate.next = self.checks.val() == bits::<5>(0x1f);
    }
}

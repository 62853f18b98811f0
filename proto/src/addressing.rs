//! Where boards and ranks sit on the network, defined once: board `b`'s MAC and IPv4 address
//! (what the hardware puts on board-to-board frames and checks partials against), and the
//! addresses a host's rank sends from. Used by the hardware (`hdl`), the cluster simulator, the
//! demo and the tests.
//!
//! * Board `b`: MAC `02:c0:11:00:00:b` (locally administered), IPv4 `10.11.0.b`
//!   ([`BOARD_IP_PREFIX`]`.b`; the prefix is written into each board at configuration).
//! * Local rank `l` of board `b`'s host: MAC `02:00:00:00:b:l`, IPv4 `10.12.b.l`, UDP port
//!   `40000 + l` ([`rank_port`]).

use crate::OFFLOAD_UDP_PORT;
use crate::frame::Endpoints;

/// The first five bytes of every board MAC; the sixth is the board index.
pub const BOARD_MAC_PREFIX: [u8; 5] = [0x02, 0xc0, 0x11, 0x00, 0x00];
/// The first three bytes of every board IPv4 address; the fourth is the board index.
pub const BOARD_IP_PREFIX: [u8; 3] = [10, 11, 0];
/// UDP port of local rank 0 on its host; local rank `l` uses this + `l`.
pub const RANK_PORT_BASE: u16 = 40000;

/// [`BOARD_MAC_PREFIX`] as the hardware holds a MAC: wire byte `n` at bits `8n .. 8n+8`.
pub const BOARD_MAC_PREFIX_BITS: u64 = (BOARD_MAC_PREFIX[0] as u64)
    | (BOARD_MAC_PREFIX[1] as u64) << 8
    | (BOARD_MAC_PREFIX[2] as u64) << 16
    | (BOARD_MAC_PREFIX[3] as u64) << 24
    | (BOARD_MAC_PREFIX[4] as u64) << 32;

/// Board `b`'s MAC address.
pub fn board_mac(b: usize) -> [u8; 6] {
    let p = BOARD_MAC_PREFIX;
    [p[0], p[1], p[2], p[3], p[4], b as u8]
}

/// Board `b`'s IPv4 address.
pub fn board_ip(b: usize) -> [u8; 4] {
    let p = BOARD_IP_PREFIX;
    [p[0], p[1], p[2], b as u8]
}

/// UDP port of local rank `local` on its host.
pub fn rank_port(local: usize) -> u16 {
    RANK_PORT_BASE + local as u16
}

/// Addresses of a request from local rank `local` of board `b` (to the board, offload port).
pub fn rank_endpoints(b: usize, local: usize) -> Endpoints {
    Endpoints {
        src_mac: [0x02, 0, 0, 0, b as u8, local as u8],
        dst_mac: board_mac(b),
        src_ip: [10, 12, b as u8, local as u8],
        dst_ip: board_ip(b),
        src_port: rank_port(local),
        dst_port: OFFLOAD_UDP_PORT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hardware_form_of_the_mac_prefix_is_the_wire_bytes() {
        let mac = board_mac(0x2a);
        let bits = BOARD_MAC_PREFIX_BITS | 0x2a << 40;
        let wire: Vec<u8> = (0..6).map(|n| (bits >> (8 * n)) as u8).collect();
        assert_eq!(wire, mac);
        assert_eq!(board_ip(7), [10, 11, 0, 7]);
        assert_eq!(rank_endpoints(3, 1).src_port, 40001);
    }
}

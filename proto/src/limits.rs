//! What one board runs: the limits the hardware enforces (and answers `unsupported` or
//! `bad-topology` for), defined once. The hardware (`hdl`) builds its checks from these
//! constants; the driver checks them before it sends anything and `collwire serve` before it
//! starts, so a call the boards cannot run is refused up front with a typed error instead of
//! failing at the board.

use crate::Error;
use crate::segment::{MIN_MTU, SEGMENT_ALIGN};
use crate::{HEADER_LEN, IPV4_HEADER_LEN, UDP_HEADER_LEN};

/// Ranks one board hosts (its local input registers).
pub const MAX_RANKS_PER_HOST: u8 = 2;
/// Payload bytes of one segment: one CIPE packet buffer.
pub const MAX_SEGMENT_PAYLOAD: usize = 2048;
/// Boards in one communicator (the CFE's program directory and route table).
pub const MAX_BOARDS: usize = 64;
/// Segments in flight on one board at once (CFE contexts).
pub const CONTEXTS: usize = 8;
/// Largest MTU whose full segments fit [`MAX_SEGMENT_PAYLOAD`]: segments are cut at
/// multiples of [`SEGMENT_ALIGN`] bytes below `MTU − 50`.
pub const MAX_MTU: usize =
    MAX_SEGMENT_PAYLOAD + SEGMENT_ALIGN - 1 + IPV4_HEADER_LEN + UDP_HEADER_LEN + HEADER_LEN;
/// Shortest frame a board forwards, without FCS (Ethernet's 64-byte minimum less its 4-byte
/// FCS, Linux's `ETH_ZLEN`): shorter ones are runts, dropped and counted (`runt_drops`).
pub const MIN_FRAME: usize = 60;
/// Longest frame a board forwards, without FCS: a jumbo frame of 9216 bytes, the usual switch
/// maximum. Longer ones are giants, dropped and counted (`giant_drops`); a giant is never
/// stored whole, so its length is not bounded.
pub const MAX_FRAME: usize = 9216;
/// Longest offload frame a board takes: the 64-byte headers and a full
/// [`MAX_SEGMENT_PAYLOAD`]. A longer offload candidate is a giant to the board (dropped and
/// counted, `giant_drops`), whatever its header says.
pub const MAX_OFFLOAD_FRAME: usize = crate::PAYLOAD_FRAME_OFFSET + MAX_SEGMENT_PAYLOAD;
/// Largest offload datagram (header + payload) a board takes.
pub const MAX_DATAGRAM: usize = HEADER_LEN + MAX_SEGMENT_PAYLOAD;

const _: () = assert!(MAX_MTU == 2129);
// Both are whole beats at 64 and 256 bits, so a frame's beat count tells runt and giant apart.
const _: () = assert!(MAX_FRAME.is_multiple_of(32) && MAX_FRAME >= crate::ETH_HEADER_LEN + MAX_MTU);
const _: () = assert!(MAX_OFFLOAD_FRAME.is_multiple_of(32) && MAX_OFFLOAD_FRAME < MAX_FRAME);
const _: () = assert!(MAX_MTU >= MIN_MTU);

fn beyond(what: &'static str, value: usize, min: usize, max: usize) -> Result<(), Error> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(Error::BeyondBoard {
            what,
            value,
            min,
            max,
        })
    }
}

/// Ranks per host a board runs: 1 ..= [`MAX_RANKS_PER_HOST`].
pub fn check_ranks_per_host(ranks_per_host: u8) -> Result<(), Error> {
    beyond(
        "ranks per host",
        usize::from(ranks_per_host),
        1,
        usize::from(MAX_RANKS_PER_HOST),
    )
}

/// An MTU the boards run: [`MIN_MTU`] ..= [`MAX_MTU`].
pub fn check_mtu(mtu: usize) -> Result<(), Error> {
    beyond("MTU", mtu, MIN_MTU, MAX_MTU)
}

/// A number of boards in one communicator: 1 ..= [`MAX_BOARDS`].
pub fn check_boards(boards: usize) -> Result<(), Error> {
    beyond("boards", boards, 1, MAX_BOARDS)
}

/// A datagram's length, header included: at most [`MAX_DATAGRAM`].
pub fn check_datagram_len(len: usize) -> Result<(), Error> {
    beyond("datagram bytes", len, 0, MAX_DATAGRAM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Datatype;
    use crate::segment::Segmenter;

    #[test]
    fn the_largest_mtu_fills_a_buffer_exactly_and_one_more_byte_does_not() {
        for dt in Datatype::supported() {
            let s = Segmenter::new(dt, MAX_MTU).unwrap();
            assert_eq!(s.elements_per_segment() * dt.size(), MAX_SEGMENT_PAYLOAD);
            let s = Segmenter::new(dt, MAX_MTU + 1).unwrap();
            assert!(s.elements_per_segment() * dt.size() > MAX_SEGMENT_PAYLOAD);
        }
        assert!(check_mtu(MAX_MTU).is_ok());
        assert!(matches!(
            check_mtu(9000),
            Err(Error::BeyondBoard { max: MAX_MTU, .. })
        ));
        assert!(check_ranks_per_host(2).is_ok());
        assert!(check_ranks_per_host(3).is_err());
        assert!(check_ranks_per_host(0).is_err());
        assert!(check_boards(64).is_ok() && check_boards(65).is_err());
        assert!(check_datagram_len(MAX_DATAGRAM).is_ok());
        assert!(check_datagram_len(MAX_DATAGRAM + 1).is_err());
    }
}

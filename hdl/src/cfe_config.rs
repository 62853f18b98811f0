//! The CFE's configuration: program memory, program directory, route table, this board's
//! index and IPv4 prefix, written over the configuration port ([`cfg`] address map) by
//! `collwire_hdl::cfe_program::image`, read by the engine.
//!
//! The memories have one synchronous read port each (block RAM): an address given in one
//! cycle is read in the next. Configuration is not touched by `reset`: the configuration
//! port rewrites every entry (`image` writes all of them), so nothing depends on RAM that was
//! never written.

use rust_hdl::prelude::*;

/// Configuration address map (`cfg_addr`, 32-bit `cfg_data`).
pub mod cfg {
    /// `0x0000..0x1000`: program memory, one micro-op per word.
    pub const PROGRAM: u16 = 0x0000;
    /// Program words (`PROGRAM .. PROGRAM + PROGRAM_WORDS`).
    pub const PROGRAM_WORDS: usize = 1 << 12;
    /// `0x1000..0x1200`: directory by [`crate::cfe_program::directory_index`]:
    /// `[11:0]` start, `[27:16]` end, `[31]` installed.
    pub const DIRECTORY: u16 = 0x1000;
    /// Directory entries (`DIRECTORY .. DIRECTORY + DIRECTORY_ENTRIES`).
    pub const DIRECTORY_ENTRIES: usize = 512;
    /// `0x1200..0x1240`: route table, board → output port mask.
    pub const ROUTE: u16 = 0x1200;
    /// Route-table entries, one per board index.
    pub const ROUTE_ENTRIES: usize = collwire_proto::limits::MAX_BOARDS;
    /// This board's index (`[7:0]`): MAC `02:c0:11:00:00:<board>`, IPv4 `<prefix>.<board>`.
    pub const BOARD: u16 = 0x1300;
    /// The first three IPv4 address bytes, wire order (`[7:0]` is the first byte).
    pub const IP_PREFIX: u16 = 0x1301;

    /// Directory word.
    pub fn directory_word(start: u16, end: u16) -> u32 {
        u32::from(start) | u32::from(end) << 16 | 1 << 31
    }

    /// The address bits above a region of `entries` words (a power of two) starting at `base`:
    /// what the hardware compares to select the region.
    pub(crate) fn region_tag(base: u16, entries: usize) -> u64 {
        assert!(entries.is_power_of_two() && usize::from(base) % entries == 0);
        u64::from(base) >> entries.trailing_zeros()
    }
}

#[derive(LogicBlock)]
pub struct CfeConfig {
    pub clock: Signal<In, Clock>,
    pub cfg_we: Signal<In, Bit>,
    pub cfg_addr: Signal<In, Bits<16>>,
    pub cfg_data: Signal<In, Bits<32>>,
    /// Program-memory read: `uop` is the word at `uop_addr` of the previous cycle.
    pub uop_addr: Signal<In, Bits<12>>,
    pub uop: Signal<Out, Bits<32>>,
    /// Directory read: `dir_word` is the entry at `dir_addr` of the previous cycle.
    pub dir_addr: Signal<In, Bits<9>>,
    pub dir_word: Signal<Out, Bits<32>>,
    /// Route read: `route_ports` is the port mask of board `route_addr` of the previous cycle.
    pub route_addr: Signal<In, Bits<6>>,
    pub route_ports: Signal<Out, Bits<8>>,
    pub my_board: Signal<Out, Bits<8>>,
    /// IPv4 prefix, wire order, last byte 0.
    pub ip_prefix: Signal<Out, Bits<32>>,
    program_tag: Constant<Bits<4>>,
    directory_tag: Constant<Bits<7>>,
    route_tag: Constant<Bits<10>>,
    board_addr: Constant<Bits<16>>,
    prefix_addr: Constant<Bits<16>>,
    prefix_mask: Constant<Bits<32>>,
    microcode: RAM<Bits<32>, 12>,
    directory: RAM<Bits<32>, 9>,
    route: RAM<Bits<8>, 6>,
    board: DFF<Bits<8>>,
    prefix: DFF<Bits<32>>,
}

impl Default for CfeConfig {
    fn default() -> Self {
        assert_eq!(cfg::PROGRAM_WORDS, 1 << 12);
        assert_eq!(cfg::DIRECTORY_ENTRIES, 1 << 9);
        assert_eq!(cfg::ROUTE_ENTRIES, 1 << 6);
        Self {
            clock: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_data: Default::default(),
            uop_addr: Default::default(),
            uop: Default::default(),
            dir_addr: Default::default(),
            dir_word: Default::default(),
            route_addr: Default::default(),
            route_ports: Default::default(),
            my_board: Default::default(),
            ip_prefix: Default::default(),
            program_tag: Constant::new(bits(cfg::region_tag(cfg::PROGRAM, cfg::PROGRAM_WORDS))),
            directory_tag: Constant::new(bits(cfg::region_tag(
                cfg::DIRECTORY,
                cfg::DIRECTORY_ENTRIES,
            ))),
            route_tag: Constant::new(bits(cfg::region_tag(cfg::ROUTE, cfg::ROUTE_ENTRIES))),
            board_addr: Constant::new(bits(u64::from(cfg::BOARD))),
            prefix_addr: Constant::new(bits(u64::from(cfg::IP_PREFIX))),
            prefix_mask: Constant::new(bits(0xFF_FFFF)),
            microcode: Default::default(),
            directory: Default::default(),
            route: Default::default(),
            board: Default::default(),
            prefix: Default::default(),
        }
    }
}

impl Logic for CfeConfig {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, board, prefix);
        self.microcode.read_clock.next = self.clock.val();
        self.microcode.write_clock.next = self.clock.val();
        self.directory.read_clock.next = self.clock.val();
        self.directory.write_clock.next = self.clock.val();
        self.route.read_clock.next = self.clock.val();
        self.route.write_clock.next = self.clock.val();
        // Writes: the address's high bits select the region, its low bits the entry.
        self.microcode.write_address.next = self.cfg_addr.val().get_bits::<12>(0);
        self.microcode.write_data.next = self.cfg_data.val();
        self.microcode.write_enable.next =
            self.cfg_we.val() & (self.cfg_addr.val().get_bits::<4>(12) == self.program_tag.val());
        self.directory.write_address.next = self.cfg_addr.val().get_bits::<9>(0);
        self.directory.write_data.next = self.cfg_data.val();
        self.directory.write_enable.next =
            self.cfg_we.val() & (self.cfg_addr.val().get_bits::<7>(9) == self.directory_tag.val());
        self.route.write_address.next = self.cfg_addr.val().get_bits::<6>(0);
        self.route.write_data.next = self.cfg_data.val().get_bits::<8>(0);
        self.route.write_enable.next =
            self.cfg_we.val() & (self.cfg_addr.val().get_bits::<10>(6) == self.route_tag.val());
        if self.cfg_we.val() & (self.cfg_addr.val() == self.board_addr.val()) {
            self.board.d.next = self.cfg_data.val().get_bits::<8>(0);
        }
        if self.cfg_we.val() & (self.cfg_addr.val() == self.prefix_addr.val()) {
            self.prefix.d.next = self.cfg_data.val() & self.prefix_mask.val();
        }
        // Reads.
        self.microcode.read_address.next = self.uop_addr.val();
        self.uop.next = self.microcode.read_data.val();
        self.directory.read_address.next = self.dir_addr.val();
        self.dir_word.next = self.directory.read_data.val();
        self.route.read_address.next = self.route_addr.val();
        self.route_ports.next = self.route.read_data.val();
        self.my_board.next = self.board.q.val();
        self.ip_prefix.next = self.prefix.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_tags_are_the_address_map() {
        assert_eq!(cfg::region_tag(cfg::PROGRAM, cfg::PROGRAM_WORDS), 0);
        assert_eq!(
            cfg::region_tag(cfg::DIRECTORY, cfg::DIRECTORY_ENTRIES),
            0x08
        );
        assert_eq!(cfg::region_tag(cfg::ROUTE, cfg::ROUTE_ENTRIES), 0x48);
    }
}

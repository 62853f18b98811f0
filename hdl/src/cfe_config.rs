//! The CFE's configuration: program memory, program directory, route table, this board's
//! index and IPv4 prefix, written over the configuration port ([`cfg`] address map) by
//! the control plane (`collwire_control::image`), read by the engine.
//!
//! The memories have one synchronous read port each (block RAM): an address given in one
//! cycle is read in the next. Configuration is not touched by `reset`: the configuration
//! port rewrites every entry (`image` writes all of them), so nothing depends on RAM that was
//! never written.

use collwire_proto::Algorithm;
use rust_hdl::prelude::*;

use crate::route_table::RouteTable;

/// Which program family a directory entry holds: the reductions (allreduce, reduce, barrier
/// share one program) or the inclusive scan. The engine derives it from the collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Reduction = 0,
    Scan = 1,
}

/// Program-directory index of `(algorithm, kind, boards)`: `alg << 7 | kind << 6 | boards − 1`
/// (what the engine computes from an arrival's header to find its program).
pub fn directory_index(algorithm: Algorithm, kind: Kind, boards: usize) -> usize {
    usize::from(algorithm.code()) << 7 | (kind as usize) << 6 | (boards - 1)
}

/// Configuration address map (`cfg_addr`, 32-bit `cfg_data`).
pub mod cfg {
    use rust_hdl::prelude::{Bits, bits};

    /// `0x0000..0x1000`: program memory, one micro-op per word.
    pub const PROGRAM: u16 = 0x0000;
    /// Program words (`PROGRAM .. PROGRAM + PROGRAM_WORDS`).
    pub const PROGRAM_WORDS: usize = 1 << 12;
    /// `0x1000..0x1200`: directory by [`super::directory_index`], one
    /// [`super::DirectoryWord`] per entry.
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
    /// Time-base ticks an open segment may go without progress before the engine reclaims
    /// its context (`[15:0]`; 0: never). See [`crate::context_table`].
    pub const RECLAIM: u16 = 0x1302;
    /// Clocks per time-base tick from the prescaler (0: ticks only from the board's `tick`
    /// pin). See [`crate::time_base`].
    pub const TICK_PERIOD: u16 = 0x1303;
    /// Nacks a waiting segment may send without an answer (`[3:0]`; 0: never give up): then
    /// its ranks' retransmissions are answered `timeout` (docs/recovery.md, "A partner that
    /// answers nothing"). See [`crate::context_table`]'s silence.
    pub const NACK_LIMIT: u16 = 0x1304;
    /// What the control plane's image writes to [`NACK_LIMIT`].
    pub const NACK_LIMIT_DEFAULT: u32 = 8;
    /// `0x1400..0x1420`, read only (`cfg_rdata`): the statistics counters, by
    /// [`crate::statistics::stat_index`].
    pub const STATS: u16 = 0x1400;
    /// Statistics register slots.
    pub const STAT_ENTRIES: usize = 1 << crate::statistics::STAT_INDEX_BITS;

    /// Words after each program's last micro-op (at its directory `end`): the program's
    /// *input map*, byte `r` (word `r / 4`, lowest byte first) the board that sends input
    /// register `r`, [`NO_BOARD`] for a register no board sends (a local rank's, a result's).
    /// The engine reads it to know which board to `nack` for a register it lacks
    /// (docs/recovery.md, "NACK between boards").
    pub const INPUT_MAP_WORDS: usize = crate::context_table::REGS / 4;
    /// An input-map byte: no board sends this register.
    pub const NO_BOARD: u8 = 0xFF;
    const _: () = assert!(crate::context_table::REGS == 4 * INPUT_MAP_WORDS);

    /// Directory word of a program whose micro-ops are `start .. end` (`end` exclusive: the
    /// program counter's value once the program is done), its input map at `end`.
    pub fn directory_word(start: u16, end: u16) -> u32 {
        assert!(usize::from(start) < usize::from(end));
        assert!(usize::from(end) + INPUT_MAP_WORDS <= PROGRAM_WORDS);
        let w = super::DirectoryWord {
            start: bits(start.into()),
            end: bits(end.into()),
            installed: true,
            ..Default::default()
        };
        Bits::<32>::from(w).to_u64() as u32
    }

    /// The address bits above a region of `entries` words (a power of two) starting at `base`:
    /// what the hardware compares to select the region.
    pub fn region_tag(base: u16, entries: usize) -> u64 {
        assert!(entries.is_power_of_two() && usize::from(base) % entries == 0);
        u64::from(base) >> entries.trailing_zeros()
    }
}

/// A program-directory entry: where the program of one `(algorithm, kind, boards)` starts
/// and ends in program memory.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct DirectoryWord {
    pub start: Bits<12>,
    pub unused_a: Bits<4>,
    /// The last micro-op (inclusive).
    pub end: Bits<12>,
    pub unused_b: Bits<3>,
    /// A program is installed here (never-installed entries answer `bad-topology`).
    pub installed: Bit,
}

/// What the hardware's `.into()` of a 32-bit configuration word means.
impl From<Bits<32>> for DirectoryWord {
    fn from(w: Bits<32>) -> DirectoryWord {
        let d = DirectoryWord::default();
        let field = |offset: usize, width: usize| (w.to_u64() >> offset) & ((1 << width) - 1);
        DirectoryWord {
            start: field(d.get_my_offset_start(), d.get_my_width_start()).into(),
            unused_a: field(d.get_my_offset_unused_a(), d.get_my_width_unused_a()).into(),
            end: field(d.get_my_offset_end(), d.get_my_width_end()).into(),
            unused_b: field(d.get_my_offset_unused_b(), d.get_my_width_unused_b()).into(),
            installed: field(d.get_my_offset_installed(), 1) != 0,
        }
    }
}

/// The address bits below a region of `entries` words: the entry index.
pub(crate) fn index_bits(entries: usize) -> Constant<Bits<16>> {
    Constant::new(bits::<16>(entries.trailing_zeros().into()))
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
    pub dir_word: Signal<Out, DirectoryWord>,
    /// Route read: `route_ports` is the port mask of board `route_addr` of the previous cycle.
    pub route_addr: Signal<In, Bits<6>>,
    pub route_ports: Signal<Out, Bits<8>>,
    pub my_board: Signal<Out, Bits<8>>,
    /// IPv4 prefix, wire order, last byte 0.
    pub ip_prefix: Signal<Out, Bits<32>>,
    /// [`cfg::RECLAIM`] and [`cfg::TICK_PERIOD`].
    pub reclaim_ticks: Signal<Out, Bits<16>>,
    pub tick_period: Signal<Out, Bits<32>>,
    /// [`cfg::NACK_LIMIT`].
    pub nack_limit: Signal<Out, Bits<4>>,
    program_tag: Constant<Bits<16>>,
    directory_tag: Constant<Bits<16>>,
    program_index_bits: Constant<Bits<16>>,
    directory_index_bits: Constant<Bits<16>>,
    prefix_addr: Constant<Bits<16>>,
    prefix_mask: Constant<Bits<32>>,
    reclaim_addr: Constant<Bits<16>>,
    tick_period_addr: Constant<Bits<16>>,
    nack_limit_addr: Constant<Bits<16>>,
    microcode: RAM<Bits<32>, 12>,
    directory: RAM<DirectoryWord, 9>,
    /// The route table and the board index.
    routes: RouteTable,
    prefix: DFF<Bits<32>>,
    reclaim: DFF<Bits<16>>,
    period: DFF<Bits<32>>,
    limit: DFF<Bits<4>>,
}

impl Default for CfeConfig {
    fn default() -> Self {
        assert_eq!(cfg::PROGRAM_WORDS, 1 << 12);
        assert_eq!(cfg::DIRECTORY_ENTRIES, 1 << 9);
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
            reclaim_ticks: Default::default(),
            tick_period: Default::default(),
            nack_limit: Default::default(),
            program_tag: Constant::new(bits(cfg::region_tag(cfg::PROGRAM, cfg::PROGRAM_WORDS))),
            directory_tag: Constant::new(bits(cfg::region_tag(
                cfg::DIRECTORY,
                cfg::DIRECTORY_ENTRIES,
            ))),
            program_index_bits: index_bits(cfg::PROGRAM_WORDS),
            directory_index_bits: index_bits(cfg::DIRECTORY_ENTRIES),
            prefix_addr: Constant::new(bits(u64::from(cfg::IP_PREFIX))),
            prefix_mask: Constant::new(bits(0xFF_FFFF)),
            reclaim_addr: Constant::new(bits(u64::from(cfg::RECLAIM))),
            tick_period_addr: Constant::new(bits(u64::from(cfg::TICK_PERIOD))),
            nack_limit_addr: Constant::new(bits(u64::from(cfg::NACK_LIMIT))),
            microcode: Default::default(),
            directory: Default::default(),
            routes: Default::default(),
            prefix: Default::default(),
            reclaim: Default::default(),
            period: Default::default(),
            limit: Default::default(),
        }
    }
}

impl Logic for CfeConfig {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, prefix, reclaim, period, limit);
        self.microcode.read_clock.next = self.clock.val();
        self.microcode.write_clock.next = self.clock.val();
        self.directory.read_clock.next = self.clock.val();
        self.directory.write_clock.next = self.clock.val();
        self.routes.clock.next = self.clock.val();
        self.routes.cfg_we.next = self.cfg_we.val();
        self.routes.cfg_addr.next = self.cfg_addr.val();
        self.routes.cfg_data.next = self.cfg_data.val();
        // Writes: the address's high bits select the region, its low bits the entry.
        self.microcode.write_address.next = bit_cast::<12, 16>(self.cfg_addr.val());
        self.microcode.write_data.next = self.cfg_data.val();
        self.microcode.write_enable.next = self.cfg_we.val()
            & ((self.cfg_addr.val() >> self.program_index_bits.val()) == self.program_tag.val());
        self.directory.write_address.next = bit_cast::<9, 16>(self.cfg_addr.val());
        self.directory.write_data.next = self.cfg_data.val().into();
        self.directory.write_enable.next = self.cfg_we.val()
            & ((self.cfg_addr.val() >> self.directory_index_bits.val())
                == self.directory_tag.val());
        if self.cfg_we.val() & (self.cfg_addr.val() == self.prefix_addr.val()) {
            self.prefix.d.next = self.cfg_data.val() & self.prefix_mask.val();
        }
        if self.cfg_we.val() & (self.cfg_addr.val() == self.reclaim_addr.val()) {
            self.reclaim.d.next = bit_cast::<16, 32>(self.cfg_data.val());
        }
        if self.cfg_we.val() & (self.cfg_addr.val() == self.tick_period_addr.val()) {
            self.period.d.next = self.cfg_data.val();
        }
        if self.cfg_we.val() & (self.cfg_addr.val() == self.nack_limit_addr.val()) {
            self.limit.d.next = bit_cast::<4, 32>(self.cfg_data.val());
        }
        // Reads.
        self.microcode.read_address.next = self.uop_addr.val();
        self.uop.next = self.microcode.read_data.val();
        self.directory.read_address.next = self.dir_addr.val();
        self.dir_word.next = self.directory.read_data.val();
        self.routes.addr.next = self.route_addr.val();
        self.route_ports.next = self.routes.ports.val();
        self.my_board.next = self.routes.my_board.val();
        self.ip_prefix.next = self.prefix.q.val();
        self.reclaim_ticks.next = self.reclaim.q.val();
        self.tick_period.next = self.period.q.val();
        self.nack_limit.next = self.limit.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_word_reads_back_as_written() {
        let w = DirectoryWord::from(bits::<32>(cfg::directory_word(0x123, 0xabc).into()));
        assert_eq!((w.start.to_u64(), w.end.to_u64()), (0x123, 0xabc));
        assert!(w.installed);
        assert!(!DirectoryWord::from(bits::<32>(0)).installed);
        assert_eq!(cfg::directory_word(1, 2), 1 | 2 << 16 | 1 << 31);
    }

    #[test]
    fn region_tags_are_the_address_map() {
        assert_eq!(cfg::region_tag(cfg::PROGRAM, cfg::PROGRAM_WORDS), 0);
        assert_eq!(
            cfg::region_tag(cfg::DIRECTORY, cfg::DIRECTORY_ENTRIES),
            0x08
        );
        assert_eq!(cfg::region_tag(cfg::ROUTE, cfg::ROUTE_ENTRIES), 0x48);
        assert_eq!(cfg::region_tag(cfg::STATS, cfg::STAT_ENTRIES), 0xa0);
    }
}

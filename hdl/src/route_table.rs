//! The route table and this board's index, written over the configuration port
//! ([`crate::cfe_config::cfg::ROUTE`], [`crate::cfe_config::cfg::BOARD`]). Two copies are
//! written by the same configuration writes: the CFE's (where its partials go,
//! [`crate::cfe_config`]) and the router's (where a transit frame goes,
//! [`crate::frame_router`]); each has its own read port.
//!
//! The table has one synchronous read port: `ports` is the entry at `addr` of the previous
//! cycle. Its 64 words are LUT RAM on both targets, with the register on the read address
//! ([`SdpRam::address_registered_always`]), so the read (address → LUT RAMs → their select)
//! starts at a flip-flop. With the register on the data, the CFE's choice of the board to look
//! up (its arrival verdict, a nack's board, the micro-op's) went on through the LUT RAMs into the
//! entry composer's `s0_ports` in one clock: board64's worst path on seed 4 at 07ea5f7 (5
//! cells, 1.02 / 5.75 ns) and on seed 3 at d2ca9b9. (A configuration write and a read of the
//! same entry on one clock give the new word, not the old one.) Like all configuration it is not touched by `reset`.

use rust_hdl::prelude::*;

use crate::cfe_config::{cfg, index_bits};
use crate::sdp_ram::SdpRam;

#[derive(LogicBlock)]
pub struct RouteTable {
    pub clock: Signal<In, Clock>,
    pub cfg_we: Signal<In, Bit>,
    pub cfg_addr: Signal<In, Bits<16>>,
    pub cfg_data: Signal<In, Bits<32>>,
    /// Board index to look up.
    pub addr: Signal<In, Bits<6>>,
    /// The output-port mask of board `addr` of the previous cycle.
    pub ports: Signal<Out, Bits<8>>,
    /// This board's index.
    pub my_board: Signal<Out, Bits<8>>,
    route_tag: Constant<Bits<16>>,
    route_index_bits: Constant<Bits<16>>,
    board_addr: Constant<Bits<16>>,
    route: SdpRam<Bits<8>, 6>,
    board: DFF<Bits<8>>,
}

impl Default for RouteTable {
    fn default() -> Self {
        assert_eq!(cfg::ROUTE_ENTRIES, 1 << 6);
        Self {
            clock: Default::default(),
            cfg_we: Default::default(),
            cfg_addr: Default::default(),
            cfg_data: Default::default(),
            addr: Default::default(),
            ports: Default::default(),
            my_board: Default::default(),
            route_tag: Constant::new(bits(cfg::region_tag(cfg::ROUTE, cfg::ROUTE_ENTRIES))),
            route_index_bits: index_bits(cfg::ROUTE_ENTRIES),
            board_addr: Constant::new(bits(u64::from(cfg::BOARD))),
            route: SdpRam::address_registered_always(),
            board: Default::default(),
        }
    }
}

impl Logic for RouteTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, board);
        self.route.read_clock.next = self.clock.val();
        self.route.write_clock.next = self.clock.val();
        self.route.write_address.next = bit_cast::<6, 16>(self.cfg_addr.val());
        self.route.write_data.next = bit_cast::<8, 32>(self.cfg_data.val());
        self.route.write_enable.next = self.cfg_we.val()
            & ((self.cfg_addr.val() >> self.route_index_bits.val()) == self.route_tag.val());
        if self.cfg_we.val() & (self.cfg_addr.val() == self.board_addr.val()) {
            self.board.d.next = bit_cast::<8, 32>(self.cfg_data.val());
        }
        self.route.read_address.next = self.addr.val();
        self.ports.next = self.route.read_data.val();
        self.my_board.next = self.board.q.val();
    }
}

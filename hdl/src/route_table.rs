//! The route table and this board's index, written over the configuration port
//! ([`crate::cfe_config::cfg::ROUTE`], [`crate::cfe_config::cfg::BOARD`]). Two copies are
//! written by the same configuration writes: the CFE's (where its partials go,
//! [`crate::cfe_config`]) and the router's (where a transit frame goes,
//! [`crate::frame_router`]); each has its own read port.
//!
//! The table has one synchronous read port (block RAM): `ports` is the entry at `addr` of the
//! previous cycle. Like all configuration it is not touched by `reset`.

use rust_hdl::prelude::*;

use crate::cfe_config::{cfg, index_bits};

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
    route: RAM<Bits<8>, 6>,
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
            route: Default::default(),
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

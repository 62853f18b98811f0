//! A Verilated board ([`collwire_hdl::board`]) behind one interface for both widths, plus its
//! configuration from the CFE image ([`collwire_hdl::cfe_program::image`]).

use collwire_hdl::cfe::cfg;
use collwire_hdl::cfe_program;

use crate::axis::Beat;
use crate::models::{Board64, Board256};

/// The statistics counters' names, in register order ([`collwire_hdl::statistics`]).
pub fn stat_names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        collwire_hdl::statistics::stat_names()
            .into_iter()
            .map(|n| &*Box::leak(n.into_boxed_str()))
            .collect()
    })
}

/// The statistics counters of one board, by name, as read over the configuration port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoardCounters {
    values: Vec<(&'static str, u64)>,
}

impl BoardCounters {
    /// Counter `name` ([`stat_names`]). Panics on a name the hardware does not have: the names
    /// are fixed at build time, so an unknown one is a bug in the caller.
    pub fn get(&self, name: &str) -> u64 {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("no counter {name:?}; the board has {:?}", stat_names()))
    }

    /// `(name, value)` in register order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.values.iter().copied()
    }
}

impl std::fmt::Display for BoardCounters {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (name, value)) in self.values.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{name}={value}")?;
        }
        Ok(())
    }
}

impl serde::Serialize for BoardCounters {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.values.len()))?;
        for (name, value) in &self.values {
            m.serialize_entry(name, value)?;
        }
        m.end()
    }
}

/// Port-level access to one board model; one call sequence per clock:
/// `set_input`/`set_output_ready` → [`BoardModel::settle`] → read `input_taken`/`output` →
/// [`BoardModel::rise`].
pub trait BoardModel: Send {
    /// Bytes per beat.
    fn bytes(&self) -> usize;
    /// Host + network ports.
    fn ports(&self) -> usize;
    fn set_input(&mut self, port: usize, beat: Option<&Beat>);
    fn set_output_ready(&mut self, port: usize, ready: bool);
    /// Clock low, inputs settled.
    fn settle(&mut self);
    fn input_ready(&self, port: usize) -> bool;
    fn output(&self, port: usize) -> Option<Beat>;
    /// Rising clock edge.
    fn rise(&mut self);
    fn set_reset(&mut self, on: bool);
    fn set_cfg(&mut self, we: bool, addr: u16, data: u32);
    /// The CFE state code ([`collwire_hdl::cfe::STATE_NAMES`]).
    fn cfe_state(&self) -> u8;
    /// The configuration read port as it is now (`cfg_rdata`).
    fn cfg_rdata(&self) -> u32;
    /// Reads configuration word `addr` without a clock edge (the read port is combinational)
    /// and puts the configuration port back as it was.
    fn read_cfg(&mut self, addr: u16) -> u32;
    /// Every statistics counter, by name ([`cfg::STATS`]).
    fn counters(&mut self) -> BoardCounters {
        let values = stat_names()
            .iter()
            .enumerate()
            .map(|(i, name)| (*name, u64::from(self.read_cfg(cfg::STATS + i as u16))))
            .collect();
        BoardCounters { values }
    }
    /// The Verilog module the model was built from, and its text.
    fn verilog(&self) -> (&'static str, &'static str);
}

macro_rules! board_model {
    ($ty:ty, $bytes:expr, $ports:expr) => {
        impl BoardModel for $ty {
            fn bytes(&self) -> usize {
                $bytes
            }
            fn ports(&self) -> usize {
                $ports
            }
            fn set_input(&mut self, port: usize, beat: Option<&Beat>) {
                match beat {
                    Some(b) => {
                        self.set_s_axis_tdata_bytes_at(port, &b.data);
                        self.set_s_axis_tkeep_at(port, b.keep);
                        self.set_s_axis_tlast_at(port, u64::from(b.last));
                        self.set_s_axis_tvalid_at(port, 1);
                    }
                    None => self.set_s_axis_tvalid_at(port, 0),
                }
            }
            fn set_output_ready(&mut self, port: usize, ready: bool) {
                self.set_m_axis_tready_at(port, u64::from(ready));
            }
            fn settle(&mut self) {
                self.set_clock(0);
                self.eval();
            }
            fn input_ready(&self, port: usize) -> bool {
                self.s_axis_tready_at(port) != 0
            }
            fn output(&self, port: usize) -> Option<Beat> {
                (self.m_axis_tvalid_at(port) != 0).then(|| Beat {
                    data: self.m_axis_tdata_bytes_at(port),
                    keep: self.m_axis_tkeep_at(port),
                    last: self.m_axis_tlast_at(port) != 0,
                    user: 0,
                })
            }
            fn rise(&mut self) {
                self.set_clock(1);
                self.eval();
            }
            fn set_reset(&mut self, on: bool) {
                <$ty>::set_reset(self, u64::from(on));
            }
            fn set_cfg(&mut self, we: bool, addr: u16, data: u32) {
                self.set_cfg_we(u64::from(we));
                self.set_cfg_addr(u64::from(addr));
                self.set_cfg_data(u64::from(data));
            }
            fn cfe_state(&self) -> u8 {
                <$ty>::cfe_state(self) as u8
            }
            fn cfg_rdata(&self) -> u32 {
                <$ty>::cfg_rdata(self) as u32
            }
            fn read_cfg(&mut self, addr: u16) -> u32 {
                let was = self.cfg_addr();
                self.set_cfg_addr(u64::from(addr));
                self.eval();
                let value = <$ty>::cfg_rdata(self) as u32;
                self.set_cfg_addr(was);
                self.eval();
                value
            }
            fn verilog(&self) -> (&'static str, &'static str) {
                (<$ty>::MODULE, <$ty>::VERILOG)
            }
        }
    };
}

board_model!(Board64, 8, 4);
board_model!(Board256, 32, 5);

/// A new board model of `width` bits (64 or 256).
pub fn new_board(width: usize) -> Option<Box<dyn BoardModel>> {
    match width {
        64 => Some(Box::new(Board64::new())),
        256 => Some(Box::new(Board256::new())),
        _ => None,
    }
}

/// The configuration writes of board `board` in a cluster of `boards`: identity, address
/// prefix, route table (`routes[dst]` = output port mask), directory and programs.
pub fn config_writes(
    board: usize,
    boards: usize,
    ip_prefix: [u8; 3],
    routes: &[u8],
) -> Vec<(u16, u32)> {
    let image = cfe_program::image(board, boards);
    let mut w = vec![
        (cfg::BOARD, board as u32),
        (
            cfg::IP_PREFIX,
            u32::from(ip_prefix[0]) | u32::from(ip_prefix[1]) << 8 | u32::from(ip_prefix[2]) << 16,
        ),
    ];
    // Every directory and route entry is written, absent ones as 0 (no program, no port): no
    // behaviour depends on what a never-written RAM word reads (0 in Verilator and on an FPGA,
    // X in an event-driven simulator).
    let mut route_table = vec![0u32; cfg::ROUTE_ENTRIES];
    for (dst, mask) in routes.iter().enumerate() {
        route_table[dst] = u32::from(*mask);
    }
    w.extend(
        route_table
            .into_iter()
            .enumerate()
            .map(|(dst, mask)| (cfg::ROUTE + dst as u16, mask)),
    );
    let mut directory = vec![0u32; cfg::DIRECTORY_ENTRIES];
    for (index, start, end) in &image.directory {
        directory[*index] = cfg::directory_word(*start, *end);
    }
    w.extend(
        directory
            .into_iter()
            .enumerate()
            .map(|(index, word)| (cfg::DIRECTORY + index as u16, word)),
    );
    w.extend(
        image
            .words
            .iter()
            .enumerate()
            .map(|(i, word)| (cfg::PROGRAM + i as u16, *word)),
    );
    w
}

/// Applies configuration writes, one per clock, then a reset pulse.
pub fn configure(board: &mut dyn BoardModel, writes: &[(u16, u32)]) {
    for p in 0..board.ports() {
        board.set_input(p, None);
        board.set_output_ready(p, true);
    }
    for (addr, data) in writes {
        board.set_cfg(true, *addr, *data);
        board.settle();
        board.rise();
    }
    board.set_cfg(false, 0, 0);
    board.set_reset(true);
    board.settle();
    board.rise();
    board.set_reset(false);
    board.settle();
    board.rise();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_writes_every_directory_and_route_entry_once() {
        for (board, boards) in [(0, 1), (3, 8), (63, 64)] {
            let routes = vec![2u8; boards];
            let writes = config_writes(board, boards, [10, 11, 0], &routes);
            let count = |lo: u16, n: usize| {
                let mut seen = vec![0; n];
                for (addr, _) in &writes {
                    if (lo..lo + n as u16).contains(addr) {
                        seen[usize::from(addr - lo)] += 1;
                    }
                }
                seen
            };
            assert!(
                count(cfg::DIRECTORY, cfg::DIRECTORY_ENTRIES)
                    .iter()
                    .all(|&c| c == 1)
            );
            assert!(
                count(cfg::ROUTE, cfg::ROUTE_ENTRIES)
                    .iter()
                    .all(|&c| c == 1)
            );
            // Installed programs keep their words; absent ones read "not installed".
            let installed = writes
                .iter()
                .filter(|(a, w)| (cfg::DIRECTORY..cfg::ROUTE).contains(a) && w >> 31 == 1)
                .count();
            assert_eq!(installed, cfe_program::image(board, boards).directory.len());
        }
    }
}

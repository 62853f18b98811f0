//! A Verilated board ([`collwire_hdl::board`]) behind one interface for both widths, and how
//! the control plane's configuration writes (`collwire_control::image`) are applied to it.

use collwire_hdl::cfe::cfg;

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

/// Port-level access to one board model; one call sequence per clock: read `output` (every
/// output but the input ready is a register's, so it is already what this clock shows) →
/// `set_input`/`set_output_ready` → [`BoardModel::rise`] → [`BoardModel::took`] says which
/// offered beats the edge took. [`BoardModel::settle`] before `rise` is needed only to look at
/// `input_ready` before the edge (the Icarus recording, `Cluster::check_handshakes`).
pub trait BoardModel: Send {
    /// Bytes per beat.
    fn bytes(&self) -> usize;
    /// Host + network ports.
    fn ports(&self) -> usize;
    fn set_input(&mut self, port: usize, beat: Option<&Beat>);
    fn set_output_ready(&mut self, port: usize, ready: bool);
    /// Evaluates the logic for the inputs as set, without a clock edge.
    fn settle(&mut self);
    /// The input ready as of the last evaluation ([`BoardModel::settle`] after setting the
    /// inputs to see this clock's).
    fn input_ready(&self, port: usize) -> bool;
    fn output(&self, port: usize) -> Option<Beat>;
    /// A clock edge. Returns false if nothing in the model changed since the last edge (no
    /// register, memory, input or settled signal): the board is at rest, and further edges
    /// with the same inputs change nothing either (the cluster then skips it until an input
    /// changes). A model that cannot tell returns true.
    fn rise(&mut self) -> bool;
    /// Whether the last edge took the beat offered on input `port` (valid and ready).
    fn took(&self, port: usize) -> bool;
    fn set_reset(&mut self, on: bool);
    /// The time-base pin (`age_tick`): open contexts age one tick per clock it is high.
    fn set_age_tick(&mut self, on: bool);
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
                        self.set_s_axis_tuser_at(
                            port,
                            u64::from(b.user & crate::axis::MAC_BAD != 0),
                        );
                        self.set_s_axis_tvalid_at(port, 1);
                    }
                    None => self.set_s_axis_tvalid_at(port, 0),
                }
            }
            fn set_output_ready(&mut self, port: usize, ready: bool) {
                self.set_m_axis_tready_at(port, u64::from(ready));
            }
            fn settle(&mut self) {
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
                    user: if self.m_axis_tuser_at(port) != 0 {
                        crate::axis::MAC_BAD
                    } else {
                        0
                    },
                })
            }
            fn rise(&mut self) -> bool {
                crate::models::take_activity();
                self.tick();
                // A memory written (flagged by the simulation copy): not at rest, and the state
                // is not compared (the copy is refreshed at the next edge without a write, which
                // then counts as a change: so a rest is always against the edge before). Else
                // any other state changed since the last edge.
                if crate::models::take_activity() {
                    self.forget_state();
                    return true;
                }
                self.state_changed()
            }
            fn took(&self, port: usize) -> bool {
                <$ty>::took(self) >> port & 1 != 0
            }
            fn set_reset(&mut self, on: bool) {
                <$ty>::set_reset(self, u64::from(on));
            }
            fn set_age_tick(&mut self, on: bool) {
                <$ty>::set_age_tick(self, u64::from(on));
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

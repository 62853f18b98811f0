//! Which board serves which rank: the map a launcher (or `collwire serve --write-config`)
//! writes and every rank reads (the C ABI and the PMPI library take its path from
//! `COLLWIRE_CONFIG`).
//!
//! ```toml
//! ranks_per_host = 1          # ranks r*k .. r*k+k-1 share board r (1 or 2)
//! algorithm = "ring"          # ring | recursive-doubling | tree | torus2d
//! # timeout_ms = 10000        # opt-in fail-fast deadline from post; absent or 0: wait like MPI
//! retransmit = true           # resend unanswered segments (adaptive RTO)
//! dead_after_ms = 30000       # no answer to any retransmission for this long: board unreachable
//! window = 2                  # unanswered segments a rank keeps in flight
//! mtu = 1500                  # 576 ..= 2129 (a segment's payload fits one 2 KiB board buffer)
//! boards = ["127.0.0.1:47000", "127.0.0.1:47001"]   # board b's offload address
//! ```

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use collwire_proto::{Algorithm, limits};
use serde::{Deserialize, Serialize};

use crate::call::{Communicator, DriverError};
use crate::comm::{DEFAULT_WINDOW, OffloadComm, Retransmit};
use crate::transport::UdpTransport;

/// Why a board map could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("bad board map: {0}")]
    Parse(#[from] toml::de::Error),
    #[error("board map: {0}")]
    Invalid(String),
    #[error(transparent)]
    Driver(#[from] DriverError),
}

/// The rank → board map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardMap {
    #[serde(default = "one")]
    pub ranks_per_host: u8,
    #[serde(default = "ring")]
    pub algorithm: String,
    /// Opt-in fail-fast deadline of every operation, from its post (absent or 0: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Retransmit unanswered segments (on by default).
    #[serde(default = "yes")]
    pub retransmit: bool,
    /// A board that answers no retransmission of a segment for this long is reported
    /// unreachable.
    #[serde(default = "default_dead_after_ms")]
    pub dead_after_ms: u64,
    #[serde(default = "default_window")]
    pub window: usize,
    #[serde(default = "default_mtu")]
    pub mtu: usize,
    /// Where `collwire serve` answers statistics requests (`host:port`; `collwire stats`
    /// reads it). Not used by the driver; absent for real boards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<String>,
    /// Board `b`'s offload address (`host:port`).
    pub boards: Vec<String>,
}

fn one() -> u8 {
    1
}
fn ring() -> String {
    Algorithm::Ring.name().to_string()
}
fn yes() -> bool {
    true
}
fn default_dead_after_ms() -> u64 {
    Retransmit::default().dead_after.as_millis() as u64
}
fn default_window() -> usize {
    DEFAULT_WINDOW
}
fn default_mtu() -> usize {
    1500
}

impl BoardMap {
    pub fn new(boards: Vec<String>, ranks_per_host: u8) -> BoardMap {
        BoardMap {
            ranks_per_host,
            algorithm: ring(),
            timeout_ms: None,
            retransmit: true,
            dead_after_ms: default_dead_after_ms(),
            window: default_window(),
            mtu: default_mtu(),
            control: None,
            boards,
        }
    }

    pub fn from_toml_str(text: &str) -> Result<BoardMap, ConfigError> {
        let map: BoardMap = toml::from_str(text)?;
        map.validate()?;
        Ok(map)
    }

    pub fn from_file(path: &Path) -> Result<BoardMap, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        BoardMap::from_toml_str(&text)
    }

    /// Checks the map against what the boards run ([`collwire_proto::limits`]): a map they
    /// cannot serve is refused with the limit it breaks ([`DriverError::is_unsupported`]).
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.algorithm()?;
        if self.boards.is_empty() {
            return Err(ConfigError::Invalid("no boards".into()));
        }
        let limit = |r: Result<(), collwire_proto::Error>| r.map_err(DriverError::from);
        limit(limits::check_ranks_per_host(self.ranks_per_host))?;
        limit(limits::check_mtu(self.mtu))?;
        limit(limits::check_boards(self.boards.len()))?;
        Ok(())
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a board map serializes")
    }

    pub fn algorithm(&self) -> Result<Algorithm, ConfigError> {
        self.algorithm
            .parse()
            .map_err(|e: collwire_proto::Error| ConfigError::Invalid(e.to_string()))
    }

    /// The board address serving `rank` of a communicator of `size` ranks.
    pub fn board_for(&self, rank: usize, size: usize) -> Result<SocketAddr, ConfigError> {
        let rph = usize::from(self.ranks_per_host.max(1));
        let boards = size.div_ceil(rph);
        if !size.is_multiple_of(rph) || boards > self.boards.len() {
            return Err(ConfigError::Invalid(format!(
                "{size} ranks at {rph} per host need {boards} boards; the map has {}",
                self.boards.len()
            )));
        }
        let text = &self.boards[rank / rph];
        text.to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .ok_or_else(|| ConfigError::Invalid(format!("bad board address {text:?}")))
    }

    /// Opens `rank`'s communicator of `size` ranks with id `comm_id` over UDP.
    pub fn open(
        &self,
        rank: usize,
        size: usize,
        comm_id: u16,
    ) -> Result<OffloadComm<UdpTransport>, ConfigError> {
        let spec = Communicator::new(size, self.ranks_per_host, rank, comm_id, self.mtu)?;
        let addr = self.board_for(rank, size)?;
        let transport = UdpTransport::connect(addr).map_err(DriverError::from)?;
        let mut comm = OffloadComm::new(spec, transport);
        comm.set_algorithm(self.algorithm()?)?;
        comm.set_timeout(
            self.timeout_ms
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis),
        );
        comm.set_retransmit(self.retransmit.then(|| Retransmit {
            dead_after: Duration::from_millis(self.dead_after_ms),
            ..Retransmit::default()
        }));
        comm.set_window(self.window);
        Ok(comm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_round_trips_and_defaults_fill_in() {
        let map =
            BoardMap::from_toml_str("boards = [\"127.0.0.1:47000\", \"127.0.0.1:47001\"]").unwrap();
        assert_eq!(map.ranks_per_host, 1);
        assert_eq!(map.algorithm().unwrap(), Algorithm::Ring);
        assert_eq!(BoardMap::from_toml_str(&map.to_toml()).unwrap(), map);
        assert_eq!(
            map.board_for(1, 2).unwrap(),
            "127.0.0.1:47001".parse().unwrap()
        );
    }

    #[test]
    fn bad_maps_are_refused_with_a_reason() {
        assert!(matches!(
            BoardMap::from_toml_str("boards = []"),
            Err(ConfigError::Invalid(_))
        ));
        assert!(matches!(
            BoardMap::from_toml_str("boards = [\"a:1\"]\nalgorithm = \"butterfly\""),
            Err(ConfigError::Invalid(_))
        ));
        assert!(matches!(
            BoardMap::from_toml_str("boardz = []"),
            Err(ConfigError::Parse(_))
        ));
        let map = BoardMap::new(vec!["127.0.0.1:1".into()], 2);
        assert!(map.board_for(0, 3).is_err(), "2 per host does not divide 3");
        assert!(map.board_for(0, 4).is_err(), "4 ranks need 2 boards");
        assert!(map.board_for(1, 2).is_ok());
    }
}

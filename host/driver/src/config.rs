//! Which board serves which rank: the map a launcher (or `collwire serve --write-config`)
//! writes and every rank reads (the C ABI and the PMPI library take its path from
//! `COLLWIRE_CONFIG`).
//!
//! ```toml
//! ranks_per_host = 1          # ranks r*k .. r*k+k-1 share board r
//! algorithm = "ring"          # ring | recursive-doubling | tree | torus2d
//! timeout_ms = 10000          # an operation's deadline from post
//! window = 2                  # unanswered segments a rank keeps in flight
//! mtu = 1500
//! boards = ["127.0.0.1:47000", "127.0.0.1:47001"]   # board b's offload address
//! ```

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use collwire_proto::Algorithm;
use serde::{Deserialize, Serialize};

use crate::call::{Communicator, DriverError};
use crate::comm::{DEFAULT_TIMEOUT, DEFAULT_WINDOW, OffloadComm};
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
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    #[serde(default = "default_window")]
    pub window: usize,
    #[serde(default = "default_mtu")]
    pub mtu: usize,
    /// Board `b`'s offload address (`host:port`).
    pub boards: Vec<String>,
}

fn one() -> u8 {
    1
}
fn ring() -> String {
    Algorithm::Ring.name().to_string()
}
fn default_timeout_ms() -> u64 {
    DEFAULT_TIMEOUT.as_millis() as u64
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
            timeout_ms: default_timeout_ms(),
            window: default_window(),
            mtu: default_mtu(),
            boards,
        }
    }

    pub fn from_toml_str(text: &str) -> Result<BoardMap, ConfigError> {
        let map: BoardMap = toml::from_str(text)?;
        map.algorithm()?;
        if map.boards.is_empty() {
            return Err(ConfigError::Invalid("no boards".into()));
        }
        Ok(map)
    }

    pub fn from_file(path: &Path) -> Result<BoardMap, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        BoardMap::from_toml_str(&text)
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
        comm.set_timeout(Duration::from_millis(self.timeout_ms));
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

//! One board's configuration, as the writes the configuration port takes (`cfg` address map of
//! `collwire_hdl::cfe_config`): identity, address prefix, route table, program directory and
//! program memory.

use collwire_hdl::cfe_config::cfg;
use collwire_hdl::time_base::RECLAIM_DEFAULT_TICKS;

use crate::program;

/// The configuration writes of board `board` in a cluster of `boards`: identity, address
/// prefix, a waiting segment given up after [`cfg::NACK_LIMIT_DEFAULT`] unanswered nacks,
/// context reclaim after [`RECLAIM_DEFAULT_TICKS`] time-base ticks with the
/// prescaler off (ticks come from the `age_tick` pin, which the simulator and `collwire serve`
/// drive; on hardware write `cfg::TICK_PERIOD` = `time_base::prescaler_period(MHz)`), route
/// table (`routes[dst]` = output port mask, from [`crate::topology::routes`]), directory and
/// programs.
pub fn config_writes(
    board: usize,
    boards: usize,
    ip_prefix: [u8; 3],
    routes: &[u8],
) -> Vec<(u16, u32)> {
    let image = program::image(board, boards);
    let mut w = vec![
        (cfg::BOARD, board as u32),
        (
            cfg::IP_PREFIX,
            u32::from(ip_prefix[0]) | u32::from(ip_prefix[1]) << 8 | u32::from(ip_prefix[2]) << 16,
        ),
        (cfg::RECLAIM, RECLAIM_DEFAULT_TICKS),
        (cfg::TICK_PERIOD, 0),
        (cfg::NACK_LIMIT, cfg::NACK_LIMIT_DEFAULT),
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

#[cfg(test)]
mod tests {
    use super::*;
    use collwire_proto::addressing::BOARD_IP_PREFIX;

    #[test]
    fn configuration_writes_every_directory_and_route_entry_once() {
        for (board, boards) in [(0, 1), (3, 8), (63, 64)] {
            let routes = vec![2u8; boards];
            let writes = config_writes(board, boards, BOARD_IP_PREFIX, &routes);
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
            assert_eq!(installed, program::image(board, boards).directory.len());
        }
    }
}

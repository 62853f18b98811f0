//! Cabling and routes: which port of which board is cabled to which, and the route table
//! every board gets (`routes[b][dst]`: the output port mask board `b` sends a frame for board
//! `dst` out of).
//!
//! * `ring`: port 1 → the next board's port 2.
//! * `torus`: rows × cols from `layout::torus_shape`; ports 1/2 east/west, 3/4 south/north
//!   (needs the 4 network ports of the 256-bit build).
//! * `hypercube`: port d + 1 of board b → port d + 1 of board b XOR 2^d (when that board
//!   exists): dimension d on port d + 1, so each step of recursive doubling uses a port of its
//!   own. 8 boards use the 64-bit build's 3 network ports, 16 the 256-bit build's 4
//!   ([`network_ports_needed`]).
//!
//! Every algorithm runs on either: frames for boards that are not neighbours are forwarded
//! hop by hop along the route tables.

use std::collections::VecDeque;

use collwire_proto::layout::torus_shape;
use serde::{Deserialize, Serialize};

/// How the boards are cabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Topology {
    Ring,
    Torus,
    Hypercube,
}

/// Network ports per board `topology` needs for `boards` boards.
pub fn network_ports_needed(boards: usize, topology: Topology) -> usize {
    match topology {
        Topology::Ring => usize::from(boards > 1) * 2,
        Topology::Torus => 4,
        Topology::Hypercube => boards.max(1).next_power_of_two().trailing_zeros() as usize,
    }
}

/// One cable end: (board, port).
pub type PortId = (usize, usize);

/// The cables of `boards` boards cabled as `topology`: pairs of (board, port) ends.
pub fn cabling(boards: usize, topology: Topology) -> Vec<(PortId, PortId)> {
    let n = boards;
    let mut cables = Vec::new();
    if n < 2 {
        return cables;
    }
    match topology {
        Topology::Ring => {
            for b in 0..n {
                cables.push(((b, 1), ((b + 1) % n, 2)));
            }
        }
        Topology::Torus => {
            let (rows, cols) = torus_shape(n);
            for r in 0..rows {
                for c in 0..cols {
                    let b = r * cols + c;
                    if cols > 1 {
                        cables.push(((b, 1), (r * cols + (c + 1) % cols, 2)));
                    }
                    if rows > 1 {
                        cables.push(((b, 3), (((r + 1) % rows) * cols + c, 4)));
                    }
                }
            }
        }
        Topology::Hypercube => {
            let dims = network_ports_needed(n, topology);
            for d in 0..dims {
                for b in (0..n).filter(|b| b & (1 << d) == 0 && b | (1 << d) < n) {
                    cables.push(((b, d + 1), (b | (1 << d), d + 1)));
                }
            }
        }
    }
    cables
}

/// Route tables: `routes[b][dst]` = the port mask board `b` sends a frame for `dst` out of
/// (shortest path, the lowest port on ties); 0 for `dst == b`.
pub fn routes(boards: usize, cables: &[(PortId, PortId)]) -> Vec<Vec<u8>> {
    // Directed adjacency: (board, port) → neighbour board.
    let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); boards];
    for &((a, pa), (b, pb)) in cables {
        adj[a].push((pa, b));
        adj[b].push((pb, a));
    }
    for a in adj.iter_mut() {
        a.sort();
    }
    (0..boards)
        .map(|src| {
            // BFS from src, remembering the first hop's port.
            let mut first = vec![0u8; boards];
            let mut seen = vec![false; boards];
            seen[src] = true;
            let mut queue = VecDeque::new();
            for &(port, nb) in &adj[src] {
                if !seen[nb] {
                    seen[nb] = true;
                    first[nb] = 1 << port;
                    queue.push_back(nb);
                }
            }
            while let Some(x) = queue.pop_front() {
                for &(_, nb) in &adj[x] {
                    if !seen[nb] {
                        seen[nb] = true;
                        first[nb] = first[x];
                        queue.push_back(nb);
                    }
                }
            }
            first
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Follows the route tables from `src` to `dst`; the hop count.
    fn hops(boards: usize, topology: Topology, src: usize, dst: usize) -> usize {
        let cables = cabling(boards, topology);
        let routes = routes(boards, &cables);
        let (mut at, mut n) = (src, 0);
        while at != dst {
            let mask = routes[at][dst];
            assert_eq!(mask.count_ones(), 1, "board {at} → {dst}: mask {mask:#x}");
            let port = mask.trailing_zeros() as usize;
            at = cables
                .iter()
                .find_map(|&(a, b)| {
                    if a == (at, port) {
                        Some(b.0)
                    } else if b == (at, port) {
                        Some(a.0)
                    } else {
                        None
                    }
                })
                .expect("a routed port is cabled");
            n += 1;
            assert!(n <= boards, "{src} → {dst} loops");
        }
        n
    }

    #[test]
    fn ring_routes_take_the_shorter_way_round() {
        for boards in 2..=16 {
            for src in 0..boards {
                for dst in 0..boards {
                    let d = (dst + boards - src) % boards;
                    assert_eq!(
                        hops(boards, Topology::Ring, src, dst),
                        d.min(boards - d),
                        "{boards} boards {src} → {dst}"
                    );
                }
            }
        }
    }

    #[test]
    fn hypercube_routes_flip_one_bit_a_hop() {
        for boards in [2, 3, 6, 8, 16] {
            let cables = cabling(boards, Topology::Hypercube);
            let dims = network_ports_needed(boards, Topology::Hypercube);
            assert_eq!(1 << dims, boards.next_power_of_two());
            for &((a, pa), (b, pb)) in &cables {
                assert_eq!(pa, pb, "a dimension's cable joins equal ports");
                assert_eq!(a ^ b, 1 << (pa - 1), "port {pa} is dimension {}", pa - 1);
            }
            for src in 0..boards {
                for dst in 0..boards {
                    let bits = (src ^ dst).count_ones() as usize;
                    let n = hops(boards, Topology::Hypercube, src, dst);
                    if boards.is_power_of_two() {
                        assert_eq!(n, bits, "{boards} boards {src} → {dst}");
                    } else {
                        // An incomplete cube may detour round a missing corner (and `hops`
                        // checks every board is reached).
                        assert!(n >= bits, "{boards} boards {src} → {dst}");
                    }
                }
            }
            for b in 0..boards {
                for d in 0..dims {
                    let partner = b ^ (1 << d);
                    if partner < boards {
                        // Recursive doubling's step d goes out of port d + 1, one hop.
                        assert_eq!(routes(boards, &cables)[b][partner], 1 << (d + 1));
                    }
                }
            }
        }
    }

    #[test]
    fn torus_routes_take_the_manhattan_distance() {
        for boards in [4, 6, 8, 9, 16, 64] {
            let (rows, cols) = torus_shape(boards);
            let ring = |a: usize, b: usize, n: usize| {
                let d = (b + n - a) % n;
                d.min(n - d)
            };
            for src in 0..boards {
                for dst in 0..boards {
                    let want =
                        ring(src / cols, dst / cols, rows) + ring(src % cols, dst % cols, cols);
                    assert_eq!(hops(boards, Topology::Torus, src, dst), want);
                }
            }
        }
    }
}

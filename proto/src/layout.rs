//! Where ranks live: ranks are placed block-wise on boards, and the 2-D torus shape of a board
//! count. Shared by the hardware, the driver and the golden model so they agree.

use crate::Error;

/// A communicator's placement: `size` ranks, `ranks_per_host` consecutive ranks per board.
/// Board `b` hosts ranks `b·rph … b·rph + rph − 1`; a rank's local rank is `rank mod rph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    size: u16,
    ranks_per_host: u8,
}

impl Layout {
    pub fn new(size: u16, ranks_per_host: u8) -> Result<Layout, Error> {
        if size == 0 {
            return Err(Error::ZeroCommSize);
        }
        if ranks_per_host == 0 || !size.is_multiple_of(u16::from(ranks_per_host)) {
            return Err(Error::BadRanksPerHost {
                ranks_per_host,
                comm_size: size,
            });
        }
        Ok(Layout {
            size,
            ranks_per_host,
        })
    }

    pub fn size(&self) -> usize {
        usize::from(self.size)
    }
    pub fn ranks_per_host(&self) -> usize {
        usize::from(self.ranks_per_host)
    }
    /// Number of boards (hosts) taking part.
    pub fn boards(&self) -> usize {
        self.size() / self.ranks_per_host()
    }
    pub fn board_of(&self, rank: usize) -> usize {
        rank / self.ranks_per_host()
    }
    pub fn local_rank(&self, rank: usize) -> usize {
        rank % self.ranks_per_host()
    }
    /// Ranks hosted by `board`, in local-rank order.
    pub fn ranks_of(&self, board: usize) -> core::ops::Range<usize> {
        board * self.ranks_per_host()..(board + 1) * self.ranks_per_host()
    }
}

/// Shape `(rows, cols)` of the 2-D torus for `boards` boards: `rows` is the largest divisor of
/// `boards` not above its square root, so every board count is a full `rows × cols` rectangle
/// (8 → 2×4, 16 → 4×4, 6 → 2×3, a prime p → 1×p, which is a ring). Board `b` sits at row
/// `b / cols`, column `b mod cols`.
pub fn torus_shape(boards: usize) -> (usize, usize) {
    let rows = (1..=boards)
        .take_while(|r| r * r <= boards)
        .filter(|r| boards.is_multiple_of(*r))
        .last()
        .unwrap_or(1);
    (rows, boards.max(1) / rows)
}

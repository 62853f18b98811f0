//! The board's statistics register file: one 32-bit counter per event, read by name over the
//! configuration port.
//!
//! Every block that sees a countable event drives a [`StatEvents`] with that event's bit high
//! for the clock it happens (all other bits low); the board ORs them into this block, which
//! registers them and adds each bit to its counter on the next clock (so no path runs from a
//! block's logic through its event into a 32-bit counter's carry chain: one was the board's
//! worst path; a counter reads one clock late). The counters are read at `cfg::STATS + index`
//! ([`crate::cfe::cfg`]) through the configuration read port (`cfg_rdata`, combinational, like
//! an AXI-Lite slave's register mux before its output register); other addresses read 0.
//! `reset` zeroes every counter. Counters wrap at 2^32.
//!
//! **Adding a counter** is one line in [`StatEvents`] (its name is the field name, its index the
//! field's position) and the line in the block that raises it. The simulator, `serve`, the VCD
//! and the Icarus comparison take the list from [`stat_names`]; nothing else names a counter.

use rust_hdl::prelude::*;

/// One bit per counter, in register order. The doc comment of each field is the counter's
/// meaning; the field name is its name everywhere outside the hardware.
#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct StatEvents {
    /// Requests and board frames stored into a context register.
    pub stored: Bit,
    /// Duplicates and late arrivals dropped.
    pub duplicates: Bit,
    /// Error datagrams the engine answered with.
    pub errors: Bit,
    /// Board frames forwarded to another board unchanged.
    pub transits: Bit,
    /// Segments completed (their context freed).
    pub retired: Bit,
    /// Abort requests taken (contexts given up by their ranks).
    pub aborted: Bit,
    /// Other offload frames the engine dropped (responses, acks, refused board frames).
    pub engine_drops: Bit,
    /// Plain frames passed through.
    pub passed_frames: Bit,
    /// Valid offload frames handed to the engine.
    pub offload_frames: Bit,
    /// Offload frames that failed a check, dropped.
    pub malformed_drops: Bit,
    /// Frames dropped because their output queue had no room.
    pub queue_drops: Bit,
    /// Contexts reclaimed after [`crate::cfe::cfg::RECLAIM`] ticks without progress.
    pub reclaimed: Bit,
    /// Frames shorter than `limits::MIN_FRAME` (60 bytes) dropped.
    pub runt_drops: Bit,
    /// Frames longer than `limits::MAX_FRAME` (9216 bytes) cut off and dropped.
    pub giant_drops: Bit,
    /// Frames their MAC received bad (FCS or PHY error, `tuser` on `tlast`) dropped.
    pub bad_frame_drops: Bit,
    /// Offload frames dropped because the engine's input buffer had no room for a frame of
    /// the longest length (the engine stalled): they never wait in the shared input.
    pub engine_busy_drops: Bit,
    /// Clocks on which a stored offload frame (or the rest of one) waited for the engine:
    /// the engine's input valid, not ready. Divided by `offload_frames`, how long a frame
    /// waits for the engine on average (the engine's back-pressure).
    pub engine_waits: Bit,
    /// Answers sent again from a completed segment's retained result (a rank retransmitted
    /// its request: the first answer was lost).
    pub resent: Bit,
    /// Nacks this board sent: a local rank's retransmission found its segment waiting for a
    /// register another board sends (lost between boards, or not sent yet), and the program's
    /// input map named that board.
    pub nacks: Bit,
    /// Board frames (partials, results) sent again because the board they were for nacked
    /// them.
    pub nack_resends: Bit,
    /// `pending` answers to nacks: the frame asked for was not sent yet (the segment waits
    /// for its own inputs here, or has not started here).
    pub pendings: Bit,
}

/// Number of counters.
pub const STATS: usize = <StatEvents as Synth>::BITS;
/// Address bits of the register file (room for 2^`STAT_INDEX_BITS` counters).
pub const STAT_INDEX_BITS: usize = 5;
const _: () = assert!(STATS <= 1 << STAT_INDEX_BITS);

/// The counters' names, in register order (the field names of [`StatEvents`]).
pub fn stat_names() -> Vec<String> {
    match <StatEvents as Synth>::descriptor().kind {
        TypeKind::Composite(fields) => fields.into_iter().map(|f| f.fieldname).collect(),
        _ => unreachable!("StatEvents is a LogicStruct"),
    }
}

/// The register index of counter `name`.
pub fn stat_index(name: &str) -> Option<usize> {
    stat_names().iter().position(|n| n == name)
}

#[derive(LogicBlock)]
pub struct Statistics {
    pub clock: Signal<In, Clock>,
    /// Zeroes every counter.
    pub reset: Signal<In, Bit>,
    /// The events of this clock (the OR of every block's [`StatEvents`]).
    pub events: Signal<In, Bits<STATS>>,
    /// Read port: `read_data` is counter `read_index` (0 past the last counter).
    pub read_index: Signal<In, Bits<STAT_INDEX_BITS>>,
    pub read_data: Signal<Out, Bits<32>>,
    /// This clock's events, counted on the next.
    events_r: DFF<Bits<STATS>>,
    count: [DFF<Bits<32>>; STATS],
    l_data: Signal<Local, Bits<32>>,
}

impl Default for Statistics {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            events: Default::default(),
            read_index: Default::default(),
            read_data: Default::default(),
            events_r: Default::default(),
            count: std::array::from_fn(|_| Default::default()),
            l_data: Default::default(),
        }
    }
}

impl Logic for Statistics {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, events_r);
        self.events_r.d.next = self.events.val();
        if self.reset.val() {
            self.events_r.d.next = bits::<STATS>(0);
        }
        self.l_data.next = bits::<32>(0);
        for i in 0..STATS {
            self.count[i].clock.next = self.clock.val();
            self.count[i].d.next = self.count[i].q.val();
            if self.events_r.q.val().get_bit(i) {
                self.count[i].d.next = self.count[i].q.val() + bits::<32>(1);
            }
            if self.reset.val() {
                self.count[i].d.next = bits::<32>(0);
            }
            if self.read_index.val().index() == i {
                self.l_data.next = self.count[i].q.val();
            }
        }
        self.read_data.next = self.l_data.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_struct() {
        let names = stat_names();
        assert_eq!(names.len(), STATS);
        assert_eq!(names[0], "stored");
        assert_eq!(stat_index("pendings"), Some(STATS - 1));
        assert_eq!(stat_index("nonsense"), None);
        // The event bit of a field is its index.
        let e = StatEvents {
            retired: true,
            ..Default::default()
        };
        assert_eq!(
            Bits::<STATS>::from(e).to_u64(),
            1 << stat_index("retired").unwrap()
        );
    }

    #[test]
    fn the_verilog_names_each_counter_register() {
        let v = crate::emit::verilog(Statistics::default(), "collwire_statistics");
        assert!(
            v.contains("count$0$q") && v.contains(&format!("count${}$q", STATS - 1)),
            "{v}"
        );
    }
}

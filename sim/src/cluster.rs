//! The cluster simulator: N Verilated boards ([`crate::board`]) cabled port to port with links
//! of a fixed latency in cycles, one host adapter per board on its host port (port 0).
//!
//! * Cabling ([`Topology`]): `ring`, `torus` or `hypercube`, and the route tables installed in every board,
//!   from the control plane (`collwire_control::topology`); each board's configuration writes
//!   from `collwire_control::image`.
//! * Addressing: `collwire_proto::addressing` (board `b` is MAC `02:c0:11:00:00:b`, IPv4
//!   `10.11.0.b`; local rank `l` of board `b` is `10.12.b.l`, UDP port `40000 + l`).
//! * Links move beats: a beat a board sends at cycle `t` is offered to the peer from cycle
//!   `t + latency` on, in order, with no loss (infinite link buffer).
//! * Waveforms ([`Cluster::trace_vcd`]): a VCD of a window of cycles with, per board, the CFE
//!   state by name (a string variable), the per-port valid/last of every link, and the counters.

use std::collections::VecDeque;

use rayon::prelude::*;

use collwire_control::image::config_writes;
pub use collwire_control::topology::{PortId, Topology, cabling, network_ports_needed, routes};
use serde::{Deserialize, Serialize};

use collwire_hdl::emit::BusWidth;
use collwire_hdl::time_base::prescaler_period;

use crate::axis::{Beat, MAC_BAD, beats};
use crate::board::{BoardCounters, BoardModel, configure, new_board, stat_names};
use crate::capture::{Capture, CaptureClock};
use crate::links::{Faults, LinkModel, LinkStats, RxFifo, RxStart, TxLink, rate_matched_start};

/// A cluster: from flags or a TOML file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    /// 1 to 64 boards.
    pub boards: usize,
    /// Datapath width, 64 (ZedBoard) or 256 (NetFPGA SUME).
    #[serde(default = "default_width")]
    pub width: usize,
    /// Cycles a beat spends on a cable (≥ 1).
    #[serde(default = "default_latency")]
    pub link_latency: u64,
    #[serde(default = "default_topology")]
    pub topology: Topology,
}

impl ClusterConfig {
    /// Reads a TOML file, e.g. `boards = 8`, `width = 256`, `link_latency = 10`,
    /// `topology = "torus"`.
    pub fn from_toml_file(path: &std::path::Path) -> anyhow::Result<ClusterConfig> {
        let text = std::fs::read_to_string(path)?;
        Ok(toml::from_str(&text)?)
    }
}

fn default_width() -> usize {
    64
}
fn default_latency() -> u64 {
    4
}
fn default_topology() -> Topology {
    Topology::Ring
}

/// Why a cluster cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    #[error("{0} boards: the simulator runs 1 to 64")]
    Boards(usize),
    #[error("width {0}: the boards are 64 or 256 bits wide")]
    Width(usize),
    #[error("link latency must be at least 1 cycle")]
    Latency,
    #[error(
        "{topology:?} of {boards} boards needs {needs} network ports per board; the {width}-bit board has {has}"
    )]
    Ports {
        topology: Topology,
        boards: usize,
        needs: usize,
        width: usize,
        has: usize,
    },
    #[error("no answer after {0} cycles")]
    Timeout(u64),
    #[error("{0} clocks of MAC underrun: an output port ran dry inside a frame")]
    Underrun(u64),
}

pub use collwire_proto::addressing::{
    BOARD_IP_PREFIX, board_ip, board_mac, rank_endpoints, rank_port,
};

/// A frame a host received, with the cycle its last beat reached the host (over the ideal links:
/// the cycle it left the board).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub cycle: u64,
    pub frame: Vec<u8>,
}

enum Change {
    Bit(bool),
    Vector(u64),
    Text(&'static str),
}

struct Trace {
    out: vcd::Writer<std::io::BufWriter<std::fs::File>>,
    start: u64,
    end: u64,
    state: Vec<vcd::IdCode>,
    state_code: Vec<vcd::IdCode>,
    in_valid: Vec<Vec<vcd::IdCode>>,
    out_valid: Vec<Vec<vcd::IdCode>>,
    out_last: Vec<Vec<vcd::IdCode>>,
    /// Per board, one 32-bit wire per statistics counter, named as in the hardware.
    counters: Vec<Vec<vcd::IdCode>>,
    last_counters: Vec<Vec<Option<u64>>>,
    last_state: Vec<u8>,
}

impl Trace {
    fn write(&mut self, now: u64, changes: Vec<(vcd::IdCode, Change)>) -> std::io::Result<()> {
        self.out.timestamp(now)?;
        for (id, change) in changes {
            match change {
                Change::Bit(v) => self.out.change_scalar(id, v)?,
                Change::Vector(v) => {
                    let bits: Vec<vcd::Value> = (0..64 - v.leading_zeros().min(63))
                        .rev()
                        .map(|i| vcd::Value::from(v >> i & 1 == 1))
                        .collect();
                    self.out.change_vector(id, &bits)?
                }
                Change::Text(s) => self.out.change_string(id, s)?,
            }
        }
        Ok(())
    }
}

/// Clocks of one time-base tick (`time_base::TICK_MS`) at the target clock of `width`
/// (125 MHz at 64 bits, 200 MHz at 256): what the board's prescaler would count.
pub fn tick_cycles(width: usize) -> u64 {
    let mhz = BusWidth::from_bits(width).map_or(125, BusWidth::target_mhz);
    u64::from(prescaler_period(mhz))
}

/// Configures every board of a cluster, on two threads (the machine has two cores).
fn configure_all(boards: &mut [Box<dyn BoardModel>], routes: &[Vec<u8>]) {
    let n = boards.len();
    std::thread::scope(|s| {
        let (lo, hi) = boards.split_at_mut(n / 2);
        for (offset, part) in [(0, lo), (n / 2, hi)] {
            s.spawn(move || {
                for (i, board) in part.iter_mut().enumerate() {
                    let b = offset + i;
                    configure(
                        board.as_mut(),
                        &config_writes(b, n, BOARD_IP_PREFIX, &routes[b]),
                    );
                }
            });
        }
    });
}

/// The simulated cluster.
pub struct Cluster {
    pub config: ClusterConfig,
    boards: Vec<Box<dyn BoardModel>>,
    /// `peer[b][p]`: where board `b`'s port `p` is cabled to.
    peer: Vec<Vec<Option<PortId>>>,
    /// Beats waiting at every input, with the cycle they may enter.
    inputs: Vec<Vec<VecDeque<(u64, Beat)>>>,
    /// `rx_staged[b][p]`: with frame or rate-matched receive FIFOs ([`LinkModel::rx_start`]),
    /// the beats of the frame arriving at board `b`'s port `p` not yet handed on.
    rx_staged: Vec<Vec<Vec<Beat>>>,
    /// Frames being assembled at every host port.
    host_partial: Vec<Vec<u8>>,
    host_rx: Vec<Vec<Received>>,
    /// The links ([`Cluster::set_links`]; default [`LinkModel::ideal`]).
    links: LinkModel,
    /// `tx[b][p]`: the link out of board `b`'s port `p` (port 0: to its host).
    tx: Vec<Vec<TxLink>>,
    /// `host_tx[b]`: the link from board `b`'s host into its port 0.
    host_tx: Vec<TxLink>,
    /// `rx[b][p]`: board `b`'s receive FIFO at port `p`.
    rx: Vec<Vec<RxFifo>>,
    /// Beats on their way to every host, with the cycle they arrive.
    host_inbox: Vec<VecDeque<(u64, Beat)>>,
    in_frame_in: Vec<Vec<bool>>,
    /// Cycle the first beat of each frame entered each input.
    pub first_in_log: Vec<Vec<Vec<u64>>>,
    /// `input_wait_peak[b][p]`: the most clocks a beat waited at board `b`'s input `p`
    /// between reaching it (off its link) and being taken: how far the board fell behind the
    /// port. Zero it to start a new measurement.
    pub input_wait_peak: Vec<Vec<u64>>,
    /// Cycle the first beat of each frame left each output.
    pub first_out: Vec<Vec<Vec<u64>>>,
    in_frame_out: Vec<Vec<bool>>,
    /// Clocks on which an output port showed no beat inside a frame it had begun: a MAC
    /// underrun (a cut-through frame that ran dry). Always 0 for a correct board.
    pub underruns: u64,
    pub cycle: u64,
    /// Beats sent out of unconnected ports (lost).
    pub unconnected_beats: u64,
    trace: Option<Trace>,
    /// The packet capture ([`Cluster::capture_pcap`]), the frames being assembled at every
    /// output port for it, and the first error writing it.
    capture: Option<Capture>,
    capture_partial: Vec<Vec<Vec<u8>>>,
    capture_error: Option<std::io::Error>,
    /// `resting[b]`: board `b`'s last evaluated clock had no input beat, no output beat and
    /// changed no register or memory ([`BoardModel::rise`]), so while no beat waits at its
    /// inputs, its next clocks would change nothing: they are skipped (exact, not an
    /// approximation; [`Cluster::set_skip_resting`] turns it off to compare).
    resting: Vec<bool>,
    skip_resting: bool,
    /// Whether every clock also settles each evaluated board before its edge and checks that
    /// its outputs do not depend on that clock's inputs and that the handshakes the edge
    /// registered are the input readies (what the one-evaluation-per-clock stepping relies on,
    /// `BoardModel`). On in debug builds (the tests), off in release (the benches).
    check_handshakes: bool,
    /// The threads the boards of a clock are stepped on within [`Cluster::run_threaded`]
    /// ([`Cluster::set_threads`]); none: on the caller's.
    pool: Option<rayon::ThreadPool>,
    /// Whether [`Cluster::step`] steps the boards on the current thread pool (set within
    /// [`Cluster::run_threaded`]).
    parallel: bool,
    /// Clocks between two ticks of every board's time base (`age_tick` pin); 0: none.
    age_tick_every: u64,
    /// Ticks still to deliver, one per clock, and the pin's level now.
    pending_ticks: u64,
    tick_level: bool,
    /// Board-clocks evaluated and board-clocks skipped at rest, since the cluster was built.
    pub board_clocks_evaluated: u64,
    pub board_clocks_skipped: u64,
}

impl Cluster {
    pub fn new(config: ClusterConfig) -> Result<Cluster, ClusterError> {
        Cluster::new_wrapped(config, |_, model| model)
    }

    /// A cluster whose board `b` is `wrap(b, model)` (e.g. a [`crate::icarus::Recording`]),
    /// configured through the wrapper.
    pub fn new_wrapped(
        config: ClusterConfig,
        mut wrap: impl FnMut(usize, Box<dyn BoardModel>) -> Box<dyn BoardModel>,
    ) -> Result<Cluster, ClusterError> {
        if !(1..=64).contains(&config.boards) {
            return Err(ClusterError::Boards(config.boards));
        }
        if config.link_latency == 0 {
            return Err(ClusterError::Latency);
        }
        let mut boards = Vec::with_capacity(config.boards);
        for b in 0..config.boards {
            let model = new_board(config.width).ok_or(ClusterError::Width(config.width))?;
            boards.push(wrap(b, model));
        }
        let ports = boards[0].ports();
        let needs = network_ports_needed(config.boards, config.topology);
        if needs > ports - 1 {
            return Err(ClusterError::Ports {
                topology: config.topology,
                boards: config.boards,
                needs,
                width: config.width,
                has: ports - 1,
            });
        }
        let cables = cabling(config.boards, config.topology);
        let mut peer = vec![vec![None; ports]; config.boards];
        for &(a, b) in &cables {
            peer[a.0][a.1] = Some(b);
            peer[b.0][b.1] = Some(a);
        }
        configure_all(&mut boards, &routes(config.boards, &cables));
        let n = config.boards;
        let width = config.width;
        let mut cluster = Cluster {
            inputs: vec![vec![VecDeque::new(); ports]; n],
            rx_staged: vec![vec![Vec::new(); ports]; n],
            host_partial: vec![Vec::new(); n],
            host_rx: vec![Vec::new(); n],
            links: LinkModel::ideal(config.link_latency),
            tx: Vec::new(),
            host_tx: Vec::new(),
            rx: Vec::new(),
            host_inbox: vec![VecDeque::new(); n],
            in_frame_in: vec![vec![false; ports]; n],
            first_out: vec![vec![Vec::new(); ports]; n],
            underruns: 0,
            first_in_log: vec![vec![Vec::new(); ports]; n],
            input_wait_peak: vec![vec![0; ports]; n],
            in_frame_out: vec![vec![false; ports]; n],
            config,
            boards,
            peer,
            cycle: 0,
            unconnected_beats: 0,
            trace: None,
            capture: None,
            capture_partial: vec![vec![Vec::new(); ports]; n],
            capture_error: None,
            resting: vec![false; n],
            skip_resting: true,
            check_handshakes: cfg!(debug_assertions),
            pool: None,
            parallel: false,
            age_tick_every: tick_cycles(width),
            pending_ticks: 0,
            tick_level: false,
            board_clocks_evaluated: 0,
            board_clocks_skipped: 0,
        };
        cluster.build_links();
        Ok(cluster)
    }

    /// Every link anew from `self.links` (fresh fault streams, nothing in flight).
    fn build_links(&mut self) {
        let n = self.boards.len();
        let ports = self.boards[0].ports();
        let m = &self.links;
        self.tx = (0..n)
            .map(|b| {
                (0..ports)
                    .map(|p| {
                        let spec = if p == 0 { m.to_host } else { m.cable };
                        TxLink::new(m, spec, (b * ports + p) as u64)
                    })
                    .collect()
            })
            .collect();
        self.host_tx = (0..n)
            .map(|b| TxLink::new(m, m.to_board, (n * ports + b) as u64))
            .collect();
        self.rx = vec![vec![RxFifo::default(); ports]; n];
        // A frame half received by an old receive FIFO is lost with it.
        self.rx_staged.iter_mut().flatten().for_each(Vec::clear);
    }

    /// Replaces every link ([`LinkModel::ideal`] by default; [`LinkModel::target`] for the
    /// boards' own ports, with faults if wanted). Call between runs: what the old links carried
    /// is kept, the new links start empty.
    pub fn set_links(&mut self, links: LinkModel) {
        self.links = links;
        self.build_links();
        self.resting.fill(false);
    }

    /// Cuts the cable at board `b`'s port `p` (`p` ≥ 1), both ways: from the next frame on,
    /// nothing crosses it.
    pub fn cut_cable(&mut self, b: usize, p: usize) {
        self.tx[b][p].set_faults(Faults::CUT);
        if let Some((to, q)) = self.peer[b][p] {
            self.tx[to][q].set_faults(Faults::CUT);
        }
    }

    /// Board `b` goes dark: from the next frame on, nothing crosses any of its cables or its
    /// host link, either way (a board powered off, as its neighbours and its host see it).
    pub fn kill_board(&mut self, b: usize) {
        for p in 1..self.tx[b].len() {
            self.cut_cable(b, p);
        }
        self.tx[b][0].set_faults(Faults::CUT);
        self.host_tx[b].set_faults(Faults::CUT);
    }

    /// The links as set.
    pub fn links(&self) -> &LinkModel {
        &self.links
    }

    /// What every link did so far: frames sent, lost, duplicated, reordered, corrupted, and
    /// the frames receive FIFOs had no room for.
    pub fn link_stats(&self) -> LinkStats {
        let mut s = LinkStats::sum(
            self.tx
                .iter()
                .flatten()
                .chain(&self.host_tx)
                .map(|l| &l.stats),
        );
        s.rx_overflows = self.rx.iter().flatten().map(|r| r.overflows).sum();
        s
    }

    /// Holds every board's `reset` high for `cycles` clocks, as a cluster-wide reset: the
    /// links go down with the boards, so the beats on the cables and the frames half received
    /// or not yet taken at the host adapters are discarded. Like configuration, these clocks
    /// are not counted in `cycle`. Reconfigure ([`Cluster::reconfigure`]) before new traffic.
    pub fn reset_boards(&mut self, cycles: u64) {
        self.resting.fill(false);
        self.inputs.iter_mut().flatten().for_each(VecDeque::clear);
        self.rx_staged.iter_mut().flatten().for_each(Vec::clear);
        self.host_partial.iter_mut().for_each(Vec::clear);
        self.host_rx.iter_mut().for_each(Vec::clear);
        self.host_inbox.iter_mut().for_each(VecDeque::clear);
        // A frame cut off by the reset is not captured (its beats so far are dropped).
        self.capture_partial
            .iter_mut()
            .flatten()
            .for_each(Vec::clear);
        self.build_links();
        self.in_frame_in
            .iter_mut()
            .flatten()
            .for_each(|f| *f = false);
        self.in_frame_out
            .iter_mut()
            .flatten()
            .for_each(|f| *f = false);
        for board in &mut self.boards {
            for p in 0..board.ports() {
                board.set_input(p, None);
                board.set_output_ready(p, true);
            }
            board.set_reset(true);
            for _ in 0..cycles {
                board.settle();
                board.rise();
            }
            board.set_reset(false);
        }
    }

    /// Writes every board's whole configuration again (identity, prefix, routes, directory,
    /// programs), then a reset pulse: what [`Cluster::new`] does.
    pub fn reconfigure(&mut self) {
        self.resting.fill(false);
        let cables = cabling(self.config.boards, self.config.topology);
        configure_all(&mut self.boards, &routes(self.config.boards, &cables));
    }

    /// The threads [`Cluster::run_threaded`] steps the boards of each clock on (default 1: the
    /// caller's). Every result is the same on any number; only the time it takes changes
    /// (`bench_cluster --only speed`).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), rayon::ThreadPoolBuildError> {
        self.pool = match threads {
            0 | 1 => None,
            n => Some(rayon::ThreadPoolBuilder::new().num_threads(n).build()?),
        };
        Ok(())
    }

    /// Runs `f` (which steps the cluster) on the cluster's threads ([`Cluster::set_threads`]),
    /// each clock's boards shared out among them. The whole run moves to the pool, not each
    /// clock: a clock's boards take a few microseconds, less than handing a clock to threads
    /// that sleep. With one thread, just `f(self)`.
    pub fn run_threaded<R: Send>(&mut self, f: impl FnOnce(&mut Cluster) -> R + Send) -> R {
        let Some(pool) = self.pool.take() else {
            return f(self);
        };
        self.parallel = true;
        let result = pool.install(|| f(self));
        self.parallel = false;
        self.pool = Some(pool);
        result
    }

    /// Whether each clock checks the handshakes (see the field; default: in debug builds).
    pub fn set_check_handshakes(&mut self, on: bool) {
        self.check_handshakes = on;
    }

    /// Whether boards at rest are skipped (default: yes). Skipping is exact; turning it off
    /// evaluates every board on every clock, for comparison.
    pub fn set_skip_resting(&mut self, on: bool) {
        self.skip_resting = on;
        self.resting.fill(false);
    }

    /// Whether every board is at rest, no beat waits at any input or on any cable and no
    /// time-base tick is due: nothing will happen until a frame is injected or a tick comes
    /// (the periodic one, or [`Cluster::queue_age_ticks`]). Exact: the boards' only timers
    /// are the context ages, which move on ticks alone.
    pub fn at_rest(&self) -> bool {
        self.resting.iter().all(|r| *r)
            && self.inputs.iter().flatten().all(VecDeque::is_empty)
            && self.rx_staged.iter().flatten().all(Vec::is_empty)
            && self.host_inbox.iter().all(VecDeque::is_empty)
            && !self
                .tx
                .iter()
                .flatten()
                .chain(&self.host_tx)
                .any(TxLink::holding)
            && self.pending_ticks == 0
            && !self.tick_level
    }

    /// Clocks between two time-base ticks (default: [`tick_cycles`], one `TICK_MS` at the
    /// target's clock); 0 stops the periodic ticks.
    pub fn set_age_tick_every(&mut self, cycles: u64) {
        self.age_tick_every = cycles;
    }

    /// Queues `n` time-base ticks, delivered one per clock from the next (how `collwire
    /// serve` keeps the boards' time tied to wall time).
    pub fn queue_age_ticks(&mut self, n: u64) {
        self.pending_ticks += n;
    }

    /// Writes one configuration word on every board (a clock each, not counted in `cycle`,
    /// like configuration), e.g. `cfg::RECLAIM`.
    pub fn write_cfg_all(&mut self, addr: u16, data: u32) {
        self.resting.fill(false);
        for board in &mut self.boards {
            board.set_cfg(true, addr, data);
            board.settle();
            board.rise();
            board.set_cfg(false, 0, 0);
        }
    }

    /// Ports per board (host + network).
    pub fn ports(&self) -> usize {
        self.boards[0].ports()
    }

    /// Bytes per beat.
    pub fn beat_bytes(&self) -> usize {
        self.boards[0].bytes()
    }

    /// Writes every frame on every link from now on to a pcapng file at `path`
    /// ([`crate::capture`]: one interface per sending end, timestamps from `clock`).
    pub fn capture_pcap(
        &mut self,
        path: &std::path::Path,
        clock: CaptureClock,
    ) -> std::io::Result<()> {
        self.capture = Some(Capture::create(path, clock)?);
        for partial in self.capture_partial.iter_mut().flatten() {
            partial.clear();
        }
        Ok(())
    }

    /// Ends the capture: flushes the file and returns the frames written, or the first error
    /// writing it.
    pub fn finish_capture(&mut self) -> std::io::Result<u64> {
        let capture = self.capture.take();
        if let Some(e) = self.capture_error.take() {
            return Err(e);
        }
        match capture {
            Some(mut c) => c.flush().map(|_| c.frames),
            None => Ok(0),
        }
    }

    /// Writes one whole frame to the capture, if one runs.
    fn capture_frame(
        &mut self,
        name: impl FnOnce() -> String,
        describe: impl FnOnce() -> String,
        frame: &[u8],
        bad: bool,
    ) {
        let cycle = self.cycle;
        if let Some(c) = self.capture.as_mut()
            && let Err(e) = c.write(&name(), describe, cycle, frame, bad)
        {
            self.capture = None;
            self.capture_error = Some(e);
        }
    }

    /// One beat out of board `b`'s port `p`, for the capture.
    fn capture_beat(&mut self, b: usize, p: usize, beat: &Beat) {
        if self.capture.is_none() {
            return;
        }
        let n = beat.keep.trailing_ones() as usize;
        self.capture_partial[b][p].extend_from_slice(&beat.data[..n]);
        if beat.last {
            let frame = std::mem::take(&mut self.capture_partial[b][p]);
            let to = match (p, self.peer[b][p]) {
                (0, _) => format!("host {b}"),
                (_, Some((q, r))) => format!("board {q} port {r}"),
                (_, None) => "nothing (unconnected)".to_string(),
            };
            self.capture_frame(
                || format!("b{b}p{p}"),
                || format!("board {b} port {p} -> {to}"),
                &frame,
                beat.user & MAC_BAD != 0,
            );
        }
    }

    /// Queues `frame` at board `b`'s host port.
    pub fn host_send(&mut self, b: usize, frame: &[u8]) {
        self.capture_frame(
            || format!("host{b}"),
            || format!("host {b} -> board {b} port 0"),
            frame,
            false,
        );
        let now = self.cycle;
        let bytes = self.beat_bytes();
        let mut arrivals = Vec::new();
        for beat in beats(frame, bytes, 0) {
            self.host_tx[b].send(now, beat, &mut arrivals);
        }
        self.receive(b, 0, &mut arrivals);
    }

    /// Beats arriving at board `b`'s port `p`, through its receive FIFO (`arrivals` is left
    /// empty, for reuse).
    fn receive(&mut self, b: usize, p: usize, arrivals: &mut Vec<(u64, Beat)>) {
        let bytes = self.beat_bytes();
        let capacity = self.links.rx_fifo_bytes;
        for (at, beat) in arrivals.drain(..) {
            let queued = (self.inputs[b][p].len() + self.rx_staged[b][p].len()) * bytes;
            if !self.rx[b][p].admit(&beat, queued, capacity) {
                continue;
            }
            let rx = &mut self.rx[b][p];
            let through = match self.links.rx_start {
                RxStart::CutThrough => true,
                RxStart::RateMatched => rx.started,
                RxStart::Frame => false,
            };
            if through {
                rx.started = !beat.last;
                self.inputs[b][p].push_back((at, beat));
                continue;
            }
            let last = beat.last;
            self.rx_staged[b][p].push(beat);
            let go = last
                || (self.links.rx_start == RxStart::RateMatched
                    && rate_matched_start(&self.rx_staged[b][p], bytes, {
                        let spec = if p == 0 {
                            &self.links.to_board
                        } else {
                            &self.links.cable
                        };
                        self.links.cycles_per_byte(spec)
                    }));
            if go {
                // What is in goes on, a beat per clock from now; the rest as it comes.
                rx.started = !last;
                let staged = std::mem::take(&mut self.rx_staged[b][p]);
                self.inputs[b][p].extend(staged.into_iter().map(|beat| (at, beat)));
            }
        }
    }

    /// Queues `frame` at board `b`'s port `port`, to enter at once (as if it came over that
    /// port's cable, with no link in between: no line rate, no faults).
    pub fn inject(&mut self, b: usize, port: usize, frame: &[u8]) {
        self.inject_marked(b, port, frame, false);
    }

    /// As [`Cluster::inject`], with the MAC's bad-frame mark (`tuser` on the last beat: a
    /// frame received with a bad FCS) when `bad`.
    pub fn inject_marked(&mut self, b: usize, port: usize, frame: &[u8], bad: bool) {
        self.capture_frame(
            || format!("b{b}p{port}-in"),
            || format!("injected into board {b} port {port}"),
            frame,
            bad,
        );
        let now = self.cycle;
        let bytes = self.beat_bytes();
        let mut frame_beats = beats(frame, bytes, 0);
        if bad {
            frame_beats.last_mut().unwrap().user = MAC_BAD;
        }
        self.inputs[b][port].extend(frame_beats.into_iter().map(|beat| (now, beat)));
    }

    /// Frames board `b` delivered to its host so far (taken).
    pub fn host_take(&mut self, b: usize) -> Vec<Received> {
        std::mem::take(&mut self.host_rx[b])
    }

    /// Board `b`'s statistics counters, by name (read over its configuration port, no clock).
    pub fn counters(&mut self, b: usize) -> BoardCounters {
        self.boards[b].counters()
    }

    /// Drives board `b`'s configuration port (held until changed); with `we` low, the next
    /// clocks read `addr` on `cfg_rdata`.
    pub fn set_cfg(&mut self, b: usize, we: bool, addr: u16, data: u32) {
        self.resting[b] = false;
        self.boards[b].set_cfg(we, addr, data);
    }

    /// Writes a VCD of cycles `start..end` to `path` (GTKWave opens it; the CFE state shows by
    /// name as a string variable).
    pub fn trace_vcd(
        &mut self,
        path: &std::path::Path,
        start: u64,
        end: u64,
    ) -> std::io::Result<()> {
        let file = std::fs::File::create(path)?;
        let mut w = vcd::Writer::new(std::io::BufWriter::new(file));
        w.timescale(1, vcd::TimescaleUnit::NS)?;
        w.add_module("cluster")?;
        let (mut state, mut state_code, mut in_valid, mut out_valid, mut out_last, mut counters) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for (b, board) in self.boards.iter().enumerate() {
            w.add_module(&format!("board{b}"))?;
            state.push(w.add_var(vcd::VarType::String, 1, "cfe_state", None)?);
            state_code.push(w.add_wire(4, "cfe_state_code")?);
            w.add_module("stats")?;
            counters.push(
                stat_names()
                    .iter()
                    .map(|name| w.add_wire(32, name))
                    .collect::<std::io::Result<Vec<_>>>()?,
            );
            w.upscope()?;
            let (mut iv, mut ov, mut ol) = (vec![], vec![], vec![]);
            for p in 0..board.ports() {
                iv.push(w.add_wire(1, &format!("in{p}_valid"))?);
                ov.push(w.add_wire(1, &format!("out{p}_valid"))?);
                ol.push(w.add_wire(1, &format!("out{p}_last"))?);
            }
            in_valid.push(iv);
            out_valid.push(ov);
            out_last.push(ol);
            w.upscope()?;
        }
        w.upscope()?;
        w.enddefinitions()?;
        self.trace = Some(Trace {
            out: w,
            start,
            end,
            state,
            state_code,
            in_valid,
            out_valid,
            out_last,
            last_counters: vec![vec![None; stat_names().len()]; self.boards.len()],
            counters,
            last_state: vec![u8::MAX; self.boards.len()],
        });
        Ok(())
    }

    /// One clock cycle of every board and link.
    pub fn step(&mut self) {
        let now = self.cycle;
        let tracing = self
            .trace
            .as_ref()
            .is_some_and(|t| (t.start..t.end).contains(&now));
        let mut changes: Vec<(vcd::IdCode, Change)> = Vec::new();
        let mut deliveries: Vec<(PortId, Beat)> = Vec::new();
        // The time base: a tick is the pin high for one clock; a change of the pin is an input
        // change, so every board is evaluated on it.
        if self.age_tick_every > 0 && now > 0 && now.is_multiple_of(self.age_tick_every) {
            self.pending_ticks += 1;
        }
        let tick = self.pending_ticks > 0;
        self.pending_ticks -= u64::from(tick);
        if tick != self.tick_level {
            self.tick_level = tick;
            self.resting.fill(false);
            for board in &mut self.boards {
                board.set_age_tick(tick);
            }
        }
        // Frames held back on a link whose time has come.
        if [self.links.cable, self.links.to_board, self.links.to_host]
            .iter()
            .any(|l| l.faults.reorder > 0.0)
        {
            self.poll_links(now);
        }
        let skip_resting = self.skip_resting && !tracing;
        let check = self.check_handshakes;
        let tx = &self.tx;
        let clocks: Vec<BoardClock<'_>> = self
            .boards
            .iter_mut()
            .zip(self.inputs.iter_mut())
            .zip(
                self.in_frame_in
                    .iter_mut()
                    .zip(self.in_frame_out.iter_mut()),
            )
            .zip(self.first_in_log.iter_mut().zip(self.first_out.iter_mut()))
            .zip(self.resting.iter_mut().zip(self.input_wait_peak.iter_mut()))
            .enumerate()
            .map(
                |(b, ((((model, inputs), (in_frame_in, in_frame_out)), logs), (resting, wait)))| {
                    BoardClock {
                        b,
                        model: model.as_mut(),
                        inputs,
                        in_frame_in,
                        in_frame_out,
                        first_in_log: logs.0,
                        first_out: logs.1,
                        input_wait_peak: wait,
                        resting,
                        tx: &tx[b],
                    }
                },
            )
            .collect();
        let run = |c: BoardClock<'_>| c.clock(now, skip_resting, check, tracing);
        // The boards of one clock are independent (a beat a board sends reaches its peer's
        // input queue only after the clock), so they may be stepped on several threads; the
        // results are merged in board order, so the run is the same on any number of threads.
        let outcomes: Vec<BoardClockOut> = if self.parallel && !tracing {
            clocks.into_par_iter().map(run).collect()
        } else {
            clocks.into_iter().map(run).collect()
        };
        for (b, out) in outcomes.into_iter().enumerate() {
            if !out.evaluated {
                self.board_clocks_skipped += 1;
                continue;
            }
            self.board_clocks_evaluated += 1;
            self.underruns += out.underruns;
            deliveries.extend(out.sent.into_iter().map(|(p, beat)| ((b, p), beat)));
            if tracing {
                let t = self.trace.as_mut().unwrap();
                for (p, (offered, out_last)) in out.pins.into_iter().enumerate() {
                    changes.push((t.out_valid[b][p], Change::Bit(out_last.is_some())));
                    changes.push((t.out_last[b][p], Change::Bit(out_last == Some(true))));
                    changes.push((t.in_valid[b][p], Change::Bit(offered)));
                }
                let state = self.boards[b].cfe_state();
                let counters = self.boards[b].counters();
                if t.last_state[b] != state {
                    t.last_state[b] = state;
                    let name = collwire_hdl::cfe::STATE_NAMES
                        .get(usize::from(state))
                        .copied()
                        .unwrap_or("unknown");
                    changes.push((t.state[b], Change::Text(name)));
                    changes.push((t.state_code[b], Change::Vector(u64::from(state))));
                }
                for (i, (_, value)) in counters.iter().enumerate() {
                    if t.last_counters[b][i] != Some(value) {
                        t.last_counters[b][i] = Some(value);
                        changes.push((t.counters[b][i], Change::Vector(value)));
                    }
                }
            }
        }
        // What left the boards goes onto the links (in board and port order), then to the
        // far ends: another board's receive FIFO, or the host.
        let mut arrivals = Vec::new();
        for ((b, p), beat) in deliveries {
            self.capture_beat(b, p, &beat);
            self.tx[b][p].send(now, beat, &mut arrivals);
            self.deliver(b, p, &mut arrivals);
        }
        self.host_arrivals(now);
        if let Some(t) = self.trace.as_mut() {
            if tracing {
                let _ = t.write(now, changes);
            }
            if now + 1 >= t.end {
                // Dropping the writer flushes its buffer: the file is complete.
                self.trace = None;
            }
        }
        self.cycle += 1;
    }

    /// Beats from board `b`'s port `p` that reach the far end of its link (`arrivals` is
    /// left empty, for reuse).
    fn deliver(&mut self, b: usize, p: usize, arrivals: &mut Vec<(u64, Beat)>) {
        if p == 0 {
            self.host_inbox[b].extend(arrivals.drain(..));
        } else if let Some((to, q)) = self.peer[b][p] {
            self.receive(to, q, arrivals);
        } else {
            self.unconnected_beats += arrivals.len() as u64;
            arrivals.clear();
        }
    }

    /// Beats that reached every host by `now`, assembled into frames.
    fn host_arrivals(&mut self, now: u64) {
        for b in 0..self.host_inbox.len() {
            while self.host_inbox[b].front().is_some_and(|(t, _)| *t <= now) {
                let (at, beat) = self.host_inbox[b].pop_front().unwrap();
                let n = beat.keep.trailing_ones() as usize;
                self.host_partial[b].extend_from_slice(&beat.data[..n]);
                if beat.last {
                    let frame = std::mem::take(&mut self.host_partial[b]);
                    // The host's MAC drops a frame the board aborted or the link corrupted.
                    if beat.user & MAC_BAD == 0 {
                        self.host_rx[b].push(Received { cycle: at, frame });
                    }
                }
            }
        }
    }

    /// Frames held back on a link (reordering) whose time has come go on.
    fn poll_links(&mut self, now: u64) {
        let mut arrivals = Vec::new();
        for b in 0..self.tx.len() {
            for p in 0..self.tx[b].len() {
                self.tx[b][p].poll(now, &mut arrivals);
                if !arrivals.is_empty() {
                    self.deliver(b, p, &mut arrivals);
                }
            }
            self.host_tx[b].poll(now, &mut arrivals);
            if !arrivals.is_empty() {
                self.receive(b, 0, &mut arrivals);
            }
        }
    }

    /// Steps until `done(self)` holds, at most `max_cycles` more cycles.
    pub fn run_until(
        &mut self,
        max_cycles: u64,
        mut done: impl FnMut(&mut Cluster) -> bool,
    ) -> Result<u64, ClusterError> {
        let start = self.cycle;
        while !done(self) {
            if self.cycle - start >= max_cycles {
                return Err(ClusterError::Timeout(max_cycles));
            }
            self.step();
        }
        Ok(self.cycle - start)
    }

    /// Board `b`'s CFE state code ([`collwire_hdl::cfe::STATE_NAMES`]) as it is now.
    pub fn cfe_state(&self, b: usize) -> u8 {
        self.boards[b].cfe_state()
    }

    /// One line per board: CFE state, counters, beats waiting at each input.
    pub fn summary(&mut self) -> String {
        let mut out = String::new();
        for (b, board) in self.boards.iter_mut().enumerate() {
            let state = collwire_hdl::cfe::STATE_NAMES
                .get(usize::from(board.cfe_state()))
                .copied()
                .unwrap_or("unknown");
            let waiting: Vec<usize> = self.inputs[b].iter().map(|q| q.len()).collect();
            out += &format!(
                "board {b}: cfe {state}, waiting beats {waiting:?}, {}\n",
                board.counters()
            );
        }
        out
    }

    /// Number of boards.
    pub fn len(&self) -> usize {
        self.boards.len()
    }
    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }
}

/// One board's share of a clock: its model and its own queues and logs, borrowed from the
/// cluster so that the boards of a clock can be stepped on several threads.
struct BoardClock<'a> {
    b: usize,
    model: &'a mut dyn BoardModel,
    inputs: &'a mut [VecDeque<(u64, Beat)>],
    in_frame_in: &'a mut [bool],
    in_frame_out: &'a mut [bool],
    first_in_log: &'a mut [Vec<u64>],
    first_out: &'a mut [Vec<u64>],
    input_wait_peak: &'a mut [u64],
    resting: &'a mut bool,
    /// The links out of the board's ports: an output is taken only when its MAC is ready.
    tx: &'a [TxLink],
}

/// What a board's clock gives the rest of the cluster.
#[derive(Default)]
struct BoardClockOut {
    /// False: skipped at rest.
    evaluated: bool,
    /// Beats the ports' MACs took, in port order.
    sent: Vec<(usize, Beat)>,
    underruns: u64,
    /// Per port, when tracing: a beat offered at the input, and the `last` of the beat sent.
    pins: Vec<(bool, Option<bool>)>,
}

impl BoardClock<'_> {
    /// One clock of the board at cycle `now` (see [`Cluster::step`]).
    fn clock(self, now: u64, skip_resting: bool, check: bool, tracing: bool) -> BoardClockOut {
        let b = self.b;
        let mut out = BoardClockOut::default();
        let due = |q: &VecDeque<(u64, Beat)>| q.front().is_some_and(|(t, _)| *t <= now);
        if *self.resting && skip_resting && !self.inputs.iter().any(due) {
            return out;
        }
        out.evaluated = true;
        let ports = self.model.ports();
        // What the board sends this clock: its outputs are registers, already showing this
        // clock's values before the inputs are set (`BoardModel`).
        let outs: Vec<Option<Beat>> = (0..ports).map(|p| self.model.output(p)).collect();
        let offered: Vec<bool> = (0..ports)
            .map(|p| {
                let head = self.inputs[p]
                    .front()
                    .filter(|(t, _)| *t <= now)
                    .map(|(_, beat)| beat);
                self.model.set_input(p, head);
                self.model.set_output_ready(p, self.tx[p].ready(now));
                head.is_some()
            })
            .collect();
        let ready_before: Option<Vec<bool>> = check.then(|| {
            self.model.settle();
            for (p, sent) in outs.iter().enumerate() {
                assert_eq!(
                    &self.model.output(p),
                    sent,
                    "board {b} port {p} cycle {now}: an output depends on this clock's inputs"
                );
            }
            (0..ports).map(|p| self.model.input_ready(p)).collect()
        });
        let beat_out = outs.iter().any(Option::is_some);
        for (p, sent) in outs.into_iter().enumerate() {
            if tracing {
                out.pins
                    .push((offered[p], sent.as_ref().map(|beat| beat.last)));
            }
            if !self.tx[p].ready(now) {
                // The MAC is still sending: the beat waits on the board's output.
                continue;
            }
            let Some(beat) = sent else {
                if self.in_frame_out[p] {
                    // The MAC wants the next beat of a frame it has begun: an underrun.
                    out.underruns += 1;
                }
                continue;
            };
            if !self.in_frame_out[p] {
                self.first_out[p].push(now);
            }
            self.in_frame_out[p] = !beat.last;
            out.sent.push((p, beat));
        }
        let changed = self.model.rise();
        for (p, &offered) in offered.iter().enumerate() {
            let took = offered && self.model.took(p);
            if let Some(ready) = &ready_before {
                assert_eq!(
                    took,
                    offered && ready[p],
                    "board {b} port {p} cycle {now}: the edge's handshake is not the input ready"
                );
            }
            if took {
                let (at, beat) = self.inputs[p].pop_front().unwrap();
                self.input_wait_peak[p] = self.input_wait_peak[p].max(now - at);
                if !self.in_frame_in[p] {
                    self.first_in_log[p].push(now);
                }
                self.in_frame_in[p] = !beat.last;
            }
        }
        *self.resting = !changed && !beat_out && !offered.iter().any(|o| *o);
        out
    }
}

//! The cluster's links: line rate, latency, receive FIFOs and seeded faults.
//!
//! Every direction of every cable and host link is a [`TxLink`]: the sending MAC's serialiser
//! (it takes a beat only when the wire is free), the PHY and cable latency, and per-frame
//! faults drawn from the link's own seeded generator. Every board input has an [`RxFifo`]: a
//! frame that finds too little room is dropped whole.
//!
//! [`LinkModel::ideal`] (the default) is the simulator as it always was: a cable moves one bus
//! word per clock and delivers it `link_latency` clocks later, a host link has no delay,
//! nothing is lost, receive FIFOs are unbounded. [`LinkModel::target`] is the boards' own
//! ports: 1 Gb/s for the ZedBoard's Ethernet FMC (64-bit datapath at 125 MHz: one byte per
//! clock, a bus word every 8 clocks) and 10 Gb/s for the NetFPGA SUME (256-bit at 200 MHz:
//! 6.25 bytes per clock), with preamble, FCS and inter-frame gap on the wire.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::axis::{Beat, MAC_BAD};

/// Preamble and start-of-frame delimiter, bytes on the wire before a frame.
pub const PREAMBLE_BYTES: usize = 8;
/// Frame check sequence, bytes on the wire after a frame (the simulator's frames carry none).
pub const FCS_BYTES: usize = 4;
/// Inter-frame gap, bytes of idle after a frame.
pub const IFG_BYTES: usize = 12;
/// Shortest frame on the wire without its FCS: a MAC pads a shorter one.
pub const MIN_WIRE_FRAME: usize = 60;
/// Longest frame a receive FIFO must have room for to take a frame (1500-byte MTU, Ethernet
/// header and a VLAN tag; no FCS).
pub const MAX_FRAME_BYTES: usize = 1518;
/// PHY (transmit + receive) and cable latency of a 1000BASE-T link with 2 m of cable: an
/// assumed typical figure (a gigabit copper PHY takes a few hundred ns each way).
pub const LATENCY_1G_NS: f64 = 400.0;
/// The same for a 10GBASE-R SFP+ direct-attach link with 2 m of cable (assumed typical).
pub const LATENCY_10G_NS: f64 = 150.0;
/// Receive FIFO per board input in [`LinkModel::target`], bytes.
pub const TARGET_RX_FIFO_BYTES: usize = 16 * 1024;

/// Per-frame fault probabilities on one direction of a link; at most one fault per frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Faults {
    /// Lost on the wire (it still takes its time on the wire).
    pub drop: f64,
    /// Delivered twice, the copy right after the original (its wire time too).
    pub duplicate: f64,
    /// Held back and delivered after the link's next frame (or, if none comes, after the
    /// time of two longest frames).
    pub reorder: f64,
    /// A bit flipped: the receiving MAC's FCS check fails, so the frame arrives marked bad
    /// (`tuser` on its last beat: a host's MAC drops it, a board drops and counts it).
    pub corrupt: f64,
}

/// Why a fault list (`drop=0.01,duplicate=0.005,...`) did not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FaultsError {
    #[error("`{0}`: expected name=probability")]
    Form(String),
    #[error("`{0}`: the faults are drop, duplicate, reorder and corrupt")]
    Name(String),
    #[error("`{0}`: a probability is a number from 0 to 1")]
    Probability(String),
    #[error("the probabilities add up to {0}, more than 1 (at most one fault per frame)")]
    Sum(f64),
}

impl std::str::FromStr for Faults {
    type Err = FaultsError;

    /// `drop=0.01,duplicate=0.005,reorder=0.005,corrupt=0.001` (any subset; `none`: no
    /// faults).
    fn from_str(s: &str) -> Result<Faults, FaultsError> {
        let mut f = Faults::NONE;
        for item in s
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty() && *i != "none")
        {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| FaultsError::Form(item.to_string()))?;
            let p: f64 = value
                .trim()
                .parse()
                .ok()
                .filter(|p: &f64| (0.0..=1.0).contains(p))
                .ok_or_else(|| FaultsError::Probability(item.to_string()))?;
            *match name.trim() {
                "drop" => &mut f.drop,
                "duplicate" => &mut f.duplicate,
                "reorder" => &mut f.reorder,
                "corrupt" => &mut f.corrupt,
                _ => return Err(FaultsError::Name(item.to_string())),
            } = p;
        }
        let sum = f.drop + f.duplicate + f.reorder + f.corrupt;
        if sum > 1.0 {
            return Err(FaultsError::Sum(sum));
        }
        Ok(f)
    }
}

impl Faults {
    /// Every frame lost: a cut cable, a dead port.
    pub const CUT: Faults = Faults {
        drop: 1.0,
        duplicate: 0.0,
        reorder: 0.0,
        corrupt: 0.0,
    };

    /// Whether any fault can happen.
    pub fn any(&self) -> bool {
        self.drop + self.duplicate + self.reorder + self.corrupt > 0.0
    }

    /// No faults.
    pub const NONE: Faults = Faults {
        drop: 0.0,
        duplicate: 0.0,
        reorder: 0.0,
        corrupt: 0.0,
    };
}

/// One kind of link (every cable, or every host link), one direction.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkSpec {
    /// Line rate, Gb/s; `None`: one bus word per clock, whatever its width.
    pub gbps: Option<f64>,
    /// Clocks from the last bit of a beat sent to the beat delivered at the far end.
    pub latency_cycles: u64,
    pub faults: Faults,
}

/// When a board input's receive FIFO hands a frame on to the board (which takes a beat per
/// clock, faster than any line the simulator models).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum RxStart {
    /// Cut-through: every beat as the line brings it. At line rates below the bus's a frame
    /// then holds the board's input arbiter for its whole wire time.
    #[default]
    CutThrough,
    /// Rate-matched cut-through: a frame goes on once the rest of it will come in no later
    /// than the board takes it at a beat per clock ([`rate_matched_start`]), about its bus
    /// time before its last byte is in. It enters without a gap and holds the input arbiter
    /// for about its bus time only. The frame's length is read from its IPv4 header: a frame
    /// without one goes on whole; on a link without a line rate every frame goes on at once.
    RateMatched,
    /// Store and forward: a frame goes on once its last beat is in, then at a beat per clock
    /// (the `FRAME_FIFO` receive FIFOs of verilog-ethernet's MAC wrappers, NetFPGA's
    /// `rx_queue`).
    Frame,
}

/// The name the command line and the JSON use (`cut-through`, `rate-matched`, `frame`).
impl std::fmt::Display for RxStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let value = clap::ValueEnum::to_possible_value(self).expect("every kind has a name");
        f.write_str(value.get_name())
    }
}

/// Whether a frame whose first beats `staged` are in (the last of them arrived now) can go on
/// to the board now, a beat per clock, without ever waiting for the line: each of its beats
/// still to come (the last padded to the Ethernet minimum and followed by the FCS) is on the
/// line for no longer, from now, than the board takes to reach it (a MAC sends a frame's
/// bytes back to back). The frame's length comes from its IPv4 header (Ethernet II,
/// EtherType 0x0800); without one in `staged` the answer is no, so such a frame waits for
/// its last beat. A frame longer than its IPv4 length says (trailing bytes) may then reach
/// the board with a gap, as through a cut-through FIFO. On a link without a line rate
/// (`cycles_per_byte` 0) every frame goes on at once.
pub fn rate_matched_start(staged: &[Beat], beat_bytes: usize, cycles_per_byte: f64) -> bool {
    if cycles_per_byte == 0.0 {
        return true;
    }
    let lanes = |b: &Beat| b.keep.trailing_ones() as usize;
    // Ethernet II and the longest IPv4 header.
    let head: Vec<u8> = staged
        .iter()
        .flat_map(|b| b.data[..lanes(b)].iter().copied())
        .take(14 + 60)
        .collect();
    let Ok(eth) = etherparse::Ethernet2HeaderSlice::from_slice(&head) else {
        return false;
    };
    if eth.ether_type() != etherparse::EtherType::IPV4 {
        return false;
    }
    let Ok(ip) = etherparse::Ipv4HeaderSlice::from_slice(&head[eth.slice().len()..]) else {
        return false;
    };
    let len = eth.slice().len() + usize::from(ip.total_len());
    let received: usize = staged.iter().map(lanes).sum();
    let beats = len.div_ceil(beat_bytes).max(staged.len());
    // Beat `j` goes to the board `j` clocks from now; its last byte leaves the far MAC
    // after the bytes before it, from the first byte not yet received.
    (staged.len()..beats).all(|j| {
        let through = if j + 1 == beats {
            len.max(MIN_WIRE_FRAME) + FCS_BYTES
        } else {
            (j + 1) * beat_bytes
        };
        (through.saturating_sub(received) as f64 * cycles_per_byte).ceil() <= j as f64
    })
}

/// The links of a cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkModel {
    /// Every board-to-board cable, each way.
    pub cable: LinkSpec,
    /// Every host link (a board's port 0), host to board.
    pub to_board: LinkSpec,
    /// Every host link, board to host.
    pub to_host: LinkSpec,
    /// Receive FIFO of every board input, bytes; `None`: unbounded.
    pub rx_fifo_bytes: Option<usize>,
    /// When every board input's receive FIFO hands a frame on to the board.
    #[serde(default)]
    pub rx_start: RxStart,
    /// The datapath clock the line rate is counted in, MHz.
    pub clock_mhz: f64,
    /// Seeds every link's fault generator (each link its own stream).
    pub seed: u64,
}

impl LinkModel {
    /// The simulator's ideal links: cables of `link_latency` clocks, one bus word per clock,
    /// host links without delay, no loss.
    pub fn ideal(link_latency: u64) -> LinkModel {
        LinkModel {
            cable: LinkSpec {
                gbps: None,
                latency_cycles: link_latency,
                faults: Faults::NONE,
            },
            to_board: LinkSpec {
                gbps: None,
                latency_cycles: 0,
                faults: Faults::NONE,
            },
            to_host: LinkSpec {
                gbps: None,
                latency_cycles: 0,
                faults: Faults::NONE,
            },
            rx_fifo_bytes: None,
            rx_start: RxStart::CutThrough,
            clock_mhz: 125.0,
            seed: 0,
        }
    }

    /// The ports of a `width`-bit board (64: ZedBoard, 1 Gb/s at 125 MHz; 256: NetFPGA SUME,
    /// 10 Gb/s at 200 MHz), with [`LATENCY_1G_NS`] / [`LATENCY_10G_NS`] and
    /// [`TARGET_RX_FIFO_BYTES`]; `cable_faults` on the cables, `host_faults` on the host links
    /// both ways.
    pub fn target(width: usize, cable_faults: Faults, host_faults: Faults, seed: u64) -> Self {
        let (gbps, ns) = if width == 64 {
            (1.0, LATENCY_1G_NS)
        } else {
            (10.0, LATENCY_10G_NS)
        };
        let clock_mhz = f64::from(
            collwire_hdl::emit::BusWidth::from_bits(width)
                .map_or(125, collwire_hdl::emit::BusWidth::target_mhz),
        );
        let latency_cycles = (ns * clock_mhz / 1000.0).ceil() as u64;
        let spec = |faults| LinkSpec {
            gbps: Some(gbps),
            latency_cycles,
            faults,
        };
        LinkModel {
            cable: spec(cable_faults),
            to_board: spec(host_faults),
            to_host: spec(host_faults),
            rx_fifo_bytes: Some(TARGET_RX_FIFO_BYTES),
            rx_start: RxStart::CutThrough,
            clock_mhz,
            seed,
        }
    }

    /// Clocks a byte takes on a link of `spec` (0 for an ideal link).
    pub fn cycles_per_byte(&self, spec: &LinkSpec) -> f64 {
        spec.gbps.map_or(0.0, |g| 8.0 / g * self.clock_mhz / 1000.0)
    }
}

/// What happens to one frame on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Deliver,
    Drop,
    Duplicate,
    Reorder,
    Corrupt,
}

/// What the links did, summed over a cluster's links ([`crate::cluster::Cluster::link_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkStats {
    /// Frames sent onto a link.
    pub frames: u64,
    pub dropped: u64,
    pub duplicated: u64,
    pub reordered: u64,
    pub corrupted: u64,
    /// Frames a board's receive FIFO had no room for.
    pub rx_overflows: u64,
}

impl LinkStats {
    fn add(&mut self, o: &LinkStats) {
        self.frames += o.frames;
        self.dropped += o.dropped;
        self.duplicated += o.duplicated;
        self.reordered += o.reordered;
        self.corrupted += o.corrupted;
        self.rx_overflows += o.rx_overflows;
    }

    /// The sum of `parts`.
    pub fn sum<'a>(parts: impl IntoIterator<Item = &'a LinkStats>) -> LinkStats {
        let mut s = LinkStats::default();
        for p in parts {
            s.add(p);
        }
        s
    }
}

/// One direction of one link: the sending MAC and the wire.
pub struct TxLink {
    spec: LinkSpec,
    cycles_per_byte: f64,
    /// When the wire is free again (clocks, fractional).
    free_at: f64,
    /// The latest arrival handed out: arrivals never go backwards.
    last_arrival: u64,
    rng: StdRng,
    /// The frame being sent: bytes so far, its fate, the byte to corrupt, its beats when it
    /// must be sent again or later.
    in_frame: bool,
    bytes: usize,
    fate: Fate,
    corrupt_at: usize,
    corrupted: bool,
    kept: Vec<Beat>,
    /// A frame held back (reordered) and the clock by which it goes anyway.
    held: Option<(Vec<Beat>, u64)>,
    pub stats: LinkStats,
}

impl TxLink {
    /// A link of `spec` under `model`, its fault stream seeded from the model's seed and
    /// `stream` (one number per link).
    pub fn new(model: &LinkModel, spec: LinkSpec, stream: u64) -> TxLink {
        let seed = model
            .seed
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        TxLink {
            spec,
            cycles_per_byte: model.cycles_per_byte(&spec),
            free_at: 0.0,
            last_arrival: 0,
            rng: StdRng::seed_from_u64(seed),
            in_frame: false,
            bytes: 0,
            fate: Fate::Deliver,
            corrupt_at: 0,
            corrupted: false,
            kept: Vec::new(),
            held: None,
            stats: LinkStats::default(),
        }
    }

    /// From the next frame on, this link's faults are `faults` (e.g. every frame lost: a cut
    /// cable).
    pub fn set_faults(&mut self, faults: Faults) {
        self.spec.faults = faults;
    }

    /// Whether the MAC takes a beat at clock `now`: the wire is free before the next clock
    /// (a MAC holds the next word while it sends one, so words follow with no gap).
    pub fn ready(&self, now: u64) -> bool {
        self.free_at < (now + 1) as f64
    }

    /// Puts one beat on the wire at `now` (or once the wire is free) and returns the clock
    /// its last byte reaches the far end.
    fn wire(&mut self, now: u64, beat: &Beat, first: bool) -> u64 {
        if self.cycles_per_byte == 0.0 {
            return self.arrive(now + self.spec.latency_cycles);
        }
        let n = beat.keep.trailing_ones() as usize;
        let mut start = self.free_at.max(now as f64);
        if first {
            start += PREAMBLE_BYTES as f64 * self.cycles_per_byte;
        }
        let mut end = start + n as f64 * self.cycles_per_byte;
        let mut gap = 0.0;
        if beat.last {
            let pad = MIN_WIRE_FRAME.saturating_sub(self.bytes + n);
            end += (pad + FCS_BYTES) as f64 * self.cycles_per_byte;
            gap = IFG_BYTES as f64 * self.cycles_per_byte;
        }
        self.free_at = end + gap;
        self.arrive(end.ceil() as u64 + self.spec.latency_cycles)
    }

    fn arrive(&mut self, at: u64) -> u64 {
        self.last_arrival = self.last_arrival.max(at);
        self.last_arrival
    }

    /// The MAC takes `beat` at clock `now`: pushes onto `out` what reaches the far end, each
    /// beat with the clock it arrives (none for a lost frame, a held frame later, a duplicated
    /// frame twice).
    pub fn send(&mut self, now: u64, mut beat: Beat, out: &mut Vec<(u64, Beat)>) {
        let first = !self.in_frame;
        if first {
            self.in_frame = true;
            self.bytes = 0;
            self.corrupted = false;
            self.kept.clear();
            self.stats.frames += 1;
            let f = self.spec.faults;
            let u: f64 = self.rng.r#gen();
            self.fate = if u < f.drop {
                Fate::Drop
            } else if u < f.drop + f.duplicate {
                Fate::Duplicate
            } else if u < f.drop + f.duplicate + f.reorder {
                Fate::Reorder
            } else if u < f.drop + f.duplicate + f.reorder + f.corrupt {
                Fate::Corrupt
            } else {
                Fate::Deliver
            };
            self.corrupt_at = self.rng.gen_range(0..MAX_FRAME_BYTES);
            match self.fate {
                Fate::Drop => self.stats.dropped += 1,
                Fate::Duplicate => self.stats.duplicated += 1,
                Fate::Reorder => self.stats.reordered += 1,
                Fate::Corrupt => self.stats.corrupted += 1,
                Fate::Deliver => {}
            }
        }
        let n = beat.keep.trailing_ones() as usize;
        if self.fate == Fate::Corrupt {
            let at = if (self.bytes..self.bytes + n).contains(&self.corrupt_at) {
                Some(self.corrupt_at - self.bytes)
            } else if beat.last && !self.corrupted {
                Some(n.saturating_sub(1))
            } else {
                None
            };
            if let Some(i) = at {
                beat.data[i] ^= 1 << (self.corrupt_at % 8);
                self.corrupted = true;
            }
            if beat.last {
                beat.user |= MAC_BAD;
            }
        }
        let arrival = self.wire(now, &beat, first);
        self.bytes += n;
        let last = beat.last;
        match self.fate {
            Fate::Drop => {}
            Fate::Deliver | Fate::Corrupt => out.push((arrival, beat)),
            Fate::Duplicate => {
                out.push((arrival, beat.clone()));
                self.kept.push(beat);
            }
            Fate::Reorder => self.kept.push(beat),
        }
        if !last {
            return;
        }
        self.in_frame = false;
        match self.fate {
            Fate::Duplicate => {
                let copy = std::mem::take(&mut self.kept);
                self.replay(now, copy, out);
                self.release(out);
            }
            Fate::Reorder => {
                // One held frame at a time: an earlier one goes first.
                self.release(out);
                let hold = 2.0 * (MAX_FRAME_BYTES + PREAMBLE_BYTES + FCS_BYTES + IFG_BYTES) as f64;
                let deadline = now + (hold * self.cycles_per_byte).max(400.0) as u64;
                self.held = Some((std::mem::take(&mut self.kept), deadline));
            }
            _ => self.release(out),
        }
    }

    /// Sends `frame` again right after what the wire carries now.
    fn replay(&mut self, now: u64, frame: Vec<Beat>, out: &mut Vec<(u64, Beat)>) {
        let saved = self.bytes;
        self.bytes = 0;
        for (i, beat) in frame.into_iter().enumerate() {
            let arrival = self.wire(now, &beat, i == 0);
            self.bytes += beat.keep.trailing_ones() as usize;
            out.push((arrival, beat));
        }
        self.bytes = saved;
    }

    /// Delivers a held frame after everything delivered so far.
    fn release(&mut self, out: &mut Vec<(u64, Beat)>) {
        if let Some((frame, _)) = self.held.take() {
            for beat in frame {
                let at = self.last_arrival + 1;
                out.push((self.arrive(at), beat));
            }
        }
    }

    /// At `now`, between frames: a held frame whose time has come is delivered.
    pub fn poll(&mut self, now: u64, out: &mut Vec<(u64, Beat)>) {
        if !self.in_frame && self.held.as_ref().is_some_and(|(_, t)| *t <= now) {
            self.last_arrival = self.last_arrival.max(now + self.spec.latency_cycles);
            self.release(out);
        }
    }

    /// Whether a frame is held back (the link is not at rest).
    pub fn holding(&self) -> bool {
        self.held.is_some()
    }
}

/// A board input's receive FIFO: whether each frame finds room, decided at its first beat.
#[derive(Clone, Debug, Default)]
pub struct RxFifo {
    in_frame: bool,
    dropping: bool,
    /// [`RxStart::RateMatched`]: the frame coming in has started on to the board.
    pub started: bool,
    pub overflows: u64,
}

impl RxFifo {
    /// Whether `beat` goes into the FIFO, which holds `queued_bytes` and may hold
    /// `capacity` (`None`: any amount). A frame is taken only if there is room for a longest
    /// frame when its first beat comes; else all of it is dropped.
    pub fn admit(&mut self, beat: &Beat, queued_bytes: usize, capacity: Option<usize>) -> bool {
        if !self.in_frame {
            self.in_frame = true;
            self.dropping = capacity.is_some_and(|c| queued_bytes + MAX_FRAME_BYTES > c);
            self.overflows += u64::from(self.dropping);
        }
        if beat.last {
            self.in_frame = false;
        }
        !self.dropping
    }
}

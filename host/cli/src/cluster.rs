//! `collwire cluster`: one collective on a simulated cluster of Verilated boards, every rank's
//! answer compared bit for bit with the golden model; optionally a waveform of a window of
//! cycles (`--vcd`), with the CFE state of every board by name.

use anyhow::{Context, Result, bail};
use collwire_driver::Call;
use collwire_proto::{Algorithm, Collective, Datatype, Layout, ReduceOp};
use collwire_sim::capture::CaptureClock;
use collwire_sim::cluster::{Cluster, ClusterConfig, Topology};
use collwire_sim::collective::{Job, run_jobs};
use collwire_sim::links::{Faults, LinkModel, RxStart};
use collwire_testbench::golden::{Spec, expected};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// The simulated cluster's shape, shared by `collwire cluster` and `collwire serve`.
#[derive(clap::Args)]
pub struct ShapeArgs {
    /// Cluster description (TOML: boards, width, link_latency, topology); flags override it.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    #[arg(long)]
    pub boards: Option<usize>,
    /// Datapath width: 64 (ZedBoard) or 256 (NetFPGA SUME).
    #[arg(long)]
    pub width: Option<usize>,
    /// Cycles a beat spends on a cable.
    #[arg(long)]
    pub link_latency: Option<u64>,
    /// ring, torus or hypercube.
    #[arg(long, value_parser = parse_topology)]
    pub topology: Option<Topology>,
}

impl ShapeArgs {
    /// The TOML file's shape (or 4 64-bit boards on a ring) with the flags applied.
    pub fn config(&self) -> Result<ClusterConfig> {
        let mut config = match &self.config {
            Some(path) => ClusterConfig::from_toml_file(path)
                .with_context(|| format!("reading {}", path.display()))?,
            None => ClusterConfig {
                boards: 4,
                width: 64,
                link_latency: 4,
                topology: Topology::Ring,
            },
        };
        config.boards = self.boards.unwrap_or(config.boards);
        config.width = self.width.unwrap_or(config.width);
        config.link_latency = self.link_latency.unwrap_or(config.link_latency);
        config.topology = self.topology.unwrap_or(config.topology);
        Ok(config)
    }
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub shape: ShapeArgs,
    #[arg(long, default_value = "allreduce")]
    pub collective: Collective,
    #[arg(long, default_value = "ring")]
    pub algorithm: Algorithm,
    #[arg(long, default_value = "f64")]
    pub datatype: Datatype,
    #[arg(long, default_value = "sum")]
    pub op: ReduceOp,
    /// Elements per rank (0 for a barrier).
    #[arg(long, default_value_t = 1)]
    pub elements: usize,
    #[arg(long, default_value_t = 1)]
    pub ranks_per_host: u8,
    #[arg(long, default_value_t = 0)]
    pub root: usize,
    /// Seed of every rank's random data.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write a VCD waveform (GTKWave) of the cycles in `--window`.
    #[arg(long)]
    pub vcd: Option<std::path::PathBuf>,
    /// Cycles to trace, `START:END`.
    #[arg(long, default_value = "0:5000", value_parser = parse_window)]
    pub window: (u64, u64),
    /// Write every frame on every link to a pcapng capture (Wireshark; one interface per
    /// sending end, simulated time; decode with `tshark -X lua_script:wireshark/collwire.lua`).
    #[arg(long)]
    pub pcap: Option<std::path::PathBuf>,
    /// `ideal`: a bus word per clock on every cable (`--link-latency` clocks), no delay on
    /// host links. `target`: the boards' own ports (1G at 125 MHz for 64 bits, 10G at
    /// 200 MHz for 256), with preamble, FCS and gap, PHY and cable latency, 16 KiB receive
    /// FIFOs.
    #[arg(long, value_enum, default_value = "ideal")]
    pub links: Links,
    /// With `--links target`: when a board's receive FIFOs hand a frame on: as it comes
    /// (`cut-through`), once the rest cannot be outrun by the board (`rate-matched`), or
    /// whole (`frame`).
    #[arg(long, value_enum, default_value = "cut-through")]
    pub rx_fifo: RxStart,
}

/// The links of `collwire cluster` (`--links`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Links {
    Ideal,
    Target,
}

fn parse_window(s: &str) -> Result<(u64, u64), String> {
    let parsed = s
        .split_once(':')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
    match parsed {
        Some((a, b)) if a < b => Ok((a, b)),
        _ => Err(format!("{s:?} is not START:END with START < END")),
    }
}

fn parse_topology(s: &str) -> Result<Topology, String> {
    match s {
        "ring" => Ok(Topology::Ring),
        "torus" => Ok(Topology::Torus),
        "hypercube" => Ok(Topology::Hypercube),
        _ => Err(format!("unknown topology {s:?} (ring, torus, hypercube)")),
    }
}

pub fn run(args: &Args) -> Result<()> {
    if args.links == Links::Ideal && args.rx_fifo != RxStart::CutThrough {
        bail!("--rx-fifo needs --links target (ideal links bring a beat every clock)");
    }
    let config = args.shape.config()?;
    let ranks = config.boards * usize::from(args.ranks_per_host);
    let layout = Layout::new(ranks as u16, args.ranks_per_host)?;
    let elements = if args.collective.carries_data() {
        args.elements
    } else {
        0
    };
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let size = args.datatype.size();
    let inputs: Vec<Vec<u8>> = (0..ranks)
        .map(|_| (0..elements * size).map(|_| rng.r#gen::<u8>()).collect())
        .collect();
    let spec = Spec {
        collective: args.collective,
        algorithm: args.algorithm,
        datatype: args.datatype,
        op: args.op,
        layout,
        root: args.root,
    };
    let golden = expected(&spec, &inputs)?;
    let target = (args.links == Links::Target).then(|| LinkModel {
        rx_start: args.rx_fifo,
        ..LinkModel::target(config.width, Faults::NONE, Faults::NONE, args.seed)
    });
    let links = match &target {
        None => format!("links {} cycles", config.link_latency),
        Some(links) => format!(
            "the boards' own {}G links with {} receive FIFOs",
            links.cable.gbps.unwrap_or(0.0),
            args.rx_fifo
        ),
    };
    println!(
        "{} boards × {} ranks, {}-bit, {:?} cabling, {links}: {} {} {} {} of {elements} elements",
        config.boards,
        args.ranks_per_host,
        config.width,
        config.topology,
        args.collective,
        args.algorithm,
        args.datatype,
        args.op
    );
    let mut cluster = Cluster::new(config)?;
    if let Some(links) = &target {
        cluster.set_links(links.clone());
    }
    if let Some(path) = &args.vcd {
        cluster.trace_vcd(path, args.window.0, args.window.1)?;
    }
    if let Some(path) = &args.pcap {
        let clock = CaptureClock::simulated(cluster.config.width);
        cluster
            .capture_pcap(path, clock)
            .with_context(|| format!("creating {}", path.display()))?;
    }
    let job = Job {
        call: Call {
            collective: args.collective,
            algorithm: args.algorithm,
            datatype: args.datatype,
            op: args.op,
            root: args.root,
            elements,
            op_id: 1,
        },
        comm_id: 1,
        ranks_per_host: args.ranks_per_host,
        inputs,
    };
    let result = run_jobs(&mut cluster, &[job], 1500, 50_000_000)
        .map_err(|e| anyhow::anyhow!("{e}\n{}", cluster.summary()))?
        .remove(0);
    let mut bad = 0;
    for (rank, (got, want)) in result.outcomes.iter().zip(&golden).enumerate() {
        let want = want.as_deref().unwrap_or(&[]);
        let verdict = match got {
            Ok(bytes) if bytes == want => "bit-identical to the golden model".to_string(),
            Ok(_) => {
                bad += 1;
                "DIFFERS from the golden model".to_string()
            }
            Err(e) => {
                bad += 1;
                format!("refused: {e}")
            }
        };
        println!(
            "  rank {rank:>3}: {} bytes, {verdict}",
            got.as_ref().map_or(0, |b| b.len())
        );
    }
    let cycles = result.last_response - result.first_request;
    match &target {
        Some(links) => println!(
            "cycles from the first request to the last response: {cycles} ({:.2} µs at {} MHz)",
            cycles as f64 / links.clock_mhz,
            links.clock_mhz
        ),
        None => println!("cycles from the first request to the last response: {cycles}"),
    }
    print!("{}", cluster.summary());
    if let Some(path) = &args.pcap {
        let frames = cluster
            .finish_capture()
            .with_context(|| format!("writing {}", path.display()))?;
        println!("capture: {frames} frames in {}", path.display());
    }
    if let Some(path) = &args.vcd {
        // Finish the window so the file is complete.
        let (start, end) = args.window;
        while cluster.cycle < end {
            cluster.step();
        }
        drop(cluster);
        println!("waveform: {} (cycles {start}:{end})", path.display());
    }
    if bad > 0 {
        bail!("{bad} ranks did not get the golden model's answer");
    }
    Ok(())
}

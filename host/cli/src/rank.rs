//! `collwire rank`: one rank as its own process — opens its communicator from a board map
//! (`--map` or `COLLWIRE_CONFIG`), runs one collective over UDP and prints the result as JSON
//! (values and their exact bits). With `collwire serve` this is a cluster of real processes
//! talking to simulated boards; against real boards it is a smoke test of the wiring.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use collwire_driver::BoardMap;
use collwire_proto::reduce::read_lane;
use collwire_proto::{Collective, Datatype, ReduceOp};

#[derive(clap::Args)]
pub struct Args {
    /// Board map (TOML); defaults to $COLLWIRE_CONFIG.
    #[arg(long)]
    pub map: Option<PathBuf>,
    #[arg(long)]
    pub rank: usize,
    #[arg(long)]
    pub size: usize,
    #[arg(long, default_value_t = 1)]
    pub comm_id: u16,
    #[arg(long, default_value = "allreduce")]
    pub collective: Collective,
    #[arg(long, default_value = "f64")]
    pub datatype: Datatype,
    #[arg(long, default_value = "sum")]
    pub op: ReduceOp,
    #[arg(long, default_value_t = 0)]
    pub root: usize,
    /// This rank's elements, comma separated (in the datatype's notation).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub values: Vec<String>,
    /// Repeat the call this many times (the result of the last is printed).
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
}

#[derive(serde::Serialize)]
struct Output {
    rank: usize,
    collective: String,
    datatype: String,
    op: String,
    /// The result's elements as text (empty for a barrier and a reduce's non-root ranks).
    values: Vec<String>,
    /// The same elements' bits, little-endian lanes as hex.
    bits: Vec<String>,
    calls: usize,
    microseconds_per_call: f64,
}

pub fn run(args: &Args) -> Result<()> {
    let path = match &args.map {
        Some(p) => p.clone(),
        None => std::env::var_os("COLLWIRE_CONFIG")
            .map(PathBuf::from)
            .context("no board map: pass --map or set COLLWIRE_CONFIG")?,
    };
    let map = BoardMap::from_file(&path)?;
    let send = encode(args.datatype, &args.values)?;
    let mut comm = map.open(args.rank, args.size, args.comm_id)?;
    let started = Instant::now();
    let mut result = Vec::new();
    for _ in 0..args.repeat.max(1) {
        let request = comm.post_bytes(args.collective, args.datatype, args.op, args.root, &send)?;
        result = comm.wait_bytes(request)?;
    }
    let per_call = started.elapsed().as_secs_f64() * 1e6 / args.repeat.max(1) as f64;
    let size = args.datatype.size();
    let lanes = result.len() / size;
    let out = Output {
        rank: args.rank,
        collective: args.collective.to_string(),
        datatype: args.datatype.to_string(),
        op: args.op.to_string(),
        values: (0..lanes)
            .map(|i| show(args.datatype, read_lane(&result, size, i)))
            .collect(),
        bits: (0..lanes)
            .map(|i| format!("{:0w$x}", read_lane(&result, size, i), w = size * 2))
            .collect(),
        calls: args.repeat.max(1),
        microseconds_per_call: per_call,
    };
    println!("{}", serde_json::to_string(&out)?);
    Ok(())
}

/// Little-endian bytes of `values` parsed as `datatype`.
fn encode(datatype: Datatype, values: &[String]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for v in values {
        let v = v.trim();
        let bad = || format!("{v:?} is not a {datatype} value");
        match datatype {
            Datatype::Int32 => out.extend(v.parse::<i32>().with_context(bad)?.to_le_bytes()),
            Datatype::Uint32 => out.extend(v.parse::<u32>().with_context(bad)?.to_le_bytes()),
            Datatype::Int64 => out.extend(v.parse::<i64>().with_context(bad)?.to_le_bytes()),
            Datatype::Uint64 => out.extend(v.parse::<u64>().with_context(bad)?.to_le_bytes()),
            Datatype::F32 => out.extend(v.parse::<f32>().with_context(bad)?.to_le_bytes()),
            Datatype::F64 => out.extend(v.parse::<f64>().with_context(bad)?.to_le_bytes()),
            other => bail!("{other} is not supported"),
        }
    }
    Ok(out)
}

fn show(datatype: Datatype, lane: u64) -> String {
    match datatype {
        Datatype::Int32 => (lane as u32 as i32).to_string(),
        Datatype::Int64 => (lane as i64).to_string(),
        Datatype::F32 => f32::from_bits(lane as u32).to_string(),
        Datatype::F64 => f64::from_bits(lane).to_string(),
        _ => lane.to_string(),
    }
}

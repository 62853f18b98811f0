//! `bench_serve`: what `collwire serve` costs and how fast an offloaded collective is through
//! it. Prints numbers; asserts nothing (this 2-core machine is too noisy for timed tests).
//!
//! 1. `serve`'s CPU use with 16 idle boards (goal ≤ 2 % of a core): from /proc, over a window
//!    after start-up.
//! 2. The wall time of an 8-byte f64 allreduce through `serve` on 4 boards (goal ≤ 2 ms), and
//!    the host CPU per allreduce through the C ABI (`collwire_allreduce`, thread CPU time):
//!    4 rank threads, each with its own communicator, as 4 MPI ranks would.
//! 3. Host CPU per allreduce through the PMPI library: `osu_overlap` under `mpirun -np 1`
//!    against a 1-board `serve`, when scripts/build-mpi has built it (else said so).
//!
//! `cargo run --release -p collwire --bin bench_serve [-- --iterations N --idle-seconds S]`
//! (run it from the repository root; it starts the `collwire` binary next to itself).

use std::ffi::{CString, c_int};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use collwire::{
    COLLWIRE_OK, collwire_allreduce, collwire_comm_close, collwire_comm_open, collwire_last_error,
};

#[derive(Parser)]
struct Args {
    /// Allreduces per rank in phase 2.
    #[arg(long, default_value_t = 200)]
    iterations: usize,
    /// Length of the idle-CPU window in phase 1.
    #[arg(long, default_value_t = 10.0)]
    idle_seconds: f64,
    /// Where scripts/build-mpi put osu_overlap (phase 3).
    #[arg(long, default_value = "target/mpi")]
    mpi_dir: PathBuf,
}

/// A running `collwire serve`, killed when dropped.
struct Serve {
    child: Child,
    map: PathBuf,
    _dir: tempfile::TempDir,
}

impl Serve {
    fn start(args: &[&str]) -> Result<Serve> {
        let exe = std::env::current_exe()?.with_file_name("collwire");
        let dir = tempfile::tempdir()?;
        let map = dir.path().join("map.toml");
        let child = Command::new(&exe)
            .arg("serve")
            .args(args)
            .arg("--write-config")
            .arg(&map)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", exe.display()))?;
        let deadline = Instant::now() + Duration::from_secs(300);
        while !map.exists() {
            if Instant::now() > deadline {
                bail!("serve wrote no board map");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Serve {
            child,
            map,
            _dir: dir,
        })
    }

    /// CPU seconds (user + system) the process has used.
    fn cpu_seconds(&self) -> Result<f64> {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))?;
        // Fields after the command name (which may hold spaces) start after the last ')'.
        let rest = &stat[stat.rfind(')').context("bad /proc stat")? + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let ticks: f64 = fields[11].parse::<f64>()? + fields[12].parse::<f64>()?;
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        Ok(ticks / hz)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        // SAFETY: plain signal to our own child.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        let _ = self.child.wait();
    }
}

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn idle_cpu(seconds: f64) -> Result<()> {
    let serve = Serve::start(&["--boards", "16"])?;
    std::thread::sleep(Duration::from_secs(1)); // past start-up
    let (c0, t0) = (serve.cpu_seconds()?, Instant::now());
    std::thread::sleep(Duration::from_secs_f64(seconds));
    let (c1, t1) = (serve.cpu_seconds()?, Instant::now());
    let pct = 100.0 * (c1 - c0) / t1.duration_since(t0).as_secs_f64();
    println!("serve idle, 16 boards: {pct:.2} % of a core over {seconds:.0} s (goal <= 2 %)");
    Ok(())
}

/// One rank: `iterations` 8-byte allreduces through the C ABI; (wall µs, thread CPU µs) each.
fn c_abi_rank(map: &Path, rank: usize, iterations: usize) -> Result<Vec<(f64, f64)>> {
    let path = CString::new(map.to_str().context("map path")?)?;
    let mut comm = std::ptr::null_mut();
    // SAFETY: valid C string and out-pointer.
    let s = unsafe { collwire_comm_open(path.as_ptr(), rank as c_int, 4, 900, &mut comm) };
    if s != COLLWIRE_OK {
        // SAFETY: returns a valid C string.
        let msg = unsafe { std::ffi::CStr::from_ptr(collwire_last_error()) };
        bail!("rank {rank}: open: {}", msg.to_string_lossy());
    }
    let mut out = Vec::with_capacity(iterations);
    let send = [rank as f64 + 0.25];
    let mut recv = [0.0f64];
    for _ in 0..iterations {
        let (w0, c0) = (Instant::now(), thread_cpu());
        // SAFETY: buffers of one f64 each; datatype 5 = f64, op 0 = sum.
        let s = unsafe {
            collwire_allreduce(
                comm,
                send.as_ptr().cast(),
                recv.as_mut_ptr().cast(),
                1,
                5,
                0,
            )
        };
        let (c1, w1) = (thread_cpu(), Instant::now());
        if s != COLLWIRE_OK {
            // SAFETY: as above.
            let msg = unsafe { std::ffi::CStr::from_ptr(collwire_last_error()) };
            bail!("rank {rank}: allreduce: {}", msg.to_string_lossy());
        }
        if recv[0] != 0.25 * 4.0 + 6.0 {
            bail!("rank {rank}: wrong result {}", recv[0]);
        }
        out.push(((w1 - w0).as_secs_f64() * 1e6, (c1 - c0).as_secs_f64() * 1e6));
    }
    // SAFETY: from collwire_comm_open.
    unsafe { collwire_comm_close(comm) };
    Ok(out)
}

fn allreduce_wall(iterations: usize) -> Result<()> {
    let serve = Serve::start(&["--boards", "4"])?;
    let cpu0 = serve.cpu_seconds()?;
    let started = Instant::now();
    let per_rank: Vec<Vec<(f64, f64)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|r| {
                let map = serve.map.clone();
                s.spawn(move || c_abi_rank(&map, r, iterations))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("rank thread"))
            .collect::<Result<_>>()
    })?;
    let elapsed = started.elapsed().as_secs_f64();
    let serve_cpu = serve.cpu_seconds()? - cpu0;
    // An allreduce ends when its slowest rank has the result: the iteration's max over ranks.
    let mut wall: Vec<f64> = (0..iterations)
        .map(|i| per_rank.iter().map(|r| r[i].0).fold(0.0, f64::max))
        .collect();
    let mut cpu: Vec<f64> = per_rank.iter().flatten().map(|(_, c)| *c).collect();
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    println!(
        "8-byte f64 allreduce through serve, 4 boards, 4 ranks, {iterations} calls: wall median {:.0} us, p10 {:.0} us, p90 {:.0} us (goal <= 2000 us); {:.0} calls/s",
        percentile(&wall, 0.5),
        percentile(&wall, 0.1),
        percentile(&wall, 0.9),
        iterations as f64 / elapsed
    );
    println!(
        "host CPU per allreduce through the C ABI (thread CPU of one rank): median {:.1} us, p90 {:.1} us",
        percentile(&cpu, 0.5),
        percentile(&cpu, 0.9)
    );
    println!(
        "serve CPU while busy: {:.0} % of a core",
        100.0 * serve_cpu / elapsed
    );
    Ok(())
}

fn pmpi_cost(mpi_dir: &Path) -> Result<()> {
    let bench = mpi_dir.join("osu_overlap_openmpi");
    let lib = mpi_dir.join("libcollwire_pmpi_openmpi.so");
    if !bench.exists() || !lib.exists() {
        println!(
            "host CPU through PMPI: skipped ({} not built; run scripts/build-mpi)",
            bench.display()
        );
        return Ok(());
    }
    let serve = Serve::start(&["--boards", "1"])?;
    let out = Command::new("mpirun.openmpi")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "1", "-x"])
        .arg(format!(
            "LD_PRELOAD={}",
            std::fs::canonicalize(&lib)?.display()
        ))
        .arg("-x")
        .arg(format!("COLLWIRE_CONFIG={}", serve.map.display()))
        .arg(&bench)
        .output()
        .context("mpirun.openmpi")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("osu_overlap:"))
        .with_context(|| {
            format!(
                "osu_overlap printed no result: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
    let field = |name: &str| -> Option<&str> {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
    };
    println!(
        "host CPU per allreduce through PMPI (osu_overlap, 1 rank, 1 board): {} us (post {} + wait {}); overlap {} %; kernel UDP send+recv floor {} us cold, {} us hot",
        field("host_cpu_us").unwrap_or("?"),
        field("post_cpu_us").unwrap_or("?"),
        field("wait_cpu_us").unwrap_or("?"),
        field("overlap_pct").unwrap_or("?"),
        field("udp_pair_cpu_us").unwrap_or("?"),
        field("udp_pair_hot_cpu_us").unwrap_or("?"),
    );
    Ok(())
}

fn main() -> Result<()> {
    let args = Args::parse();
    idle_cpu(args.idle_seconds)?;
    allreduce_wall(args.iterations)?;
    pmpi_cost(&args.mpi_dir)?;
    Ok(())
}

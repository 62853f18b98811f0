//! End to end with real MPI: `collwire serve` runs four simulated boards; `mpirun -np 4` runs
//! unmodified MPI programs with the collwire PMPI library preloaded, under Open MPI and under
//! MPICH (both installed by scripts/setup). scripts/build-mpi builds everything once per test
//! process; the tests take turns (one MPI job mix at a time on a small machine), each with its
//! own `collwire serve`.
//!
//! * `offload_check` compares every intercepted collective with PMPI's own result, under each
//!   MPI; without a board map, or with one no rank can open, everything goes to MPI and each
//!   rank says why once;
//! * the MILC-like CG solver converges to the same answer with and without the library under
//!   each MPI, bit-identically on two offloaded runs and under both MPIs when offloaded (the
//!   boards' reductions are reproducible and independent of the MPI library);
//! * `largecount_check` (MPICH): the MPI-4 `_c` collectives are offloaded (the verbose log
//!   names each one) and equal PMPI's results; MPI_PROD and a count the boards cannot carry go
//!   to MPI, still correct, and the verbose log says why;
//! * `inflight_check`: an MPI_Iallreduce outstanding on each of 8 communicators at once (with
//!   more segments in flight than a board has contexts: ignored, it fails today);
//! * two 4-rank `offload_check` jobs at once on one `collwire serve`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod common;
use common::{Service, libcollwire_dir, repo};

/// One test at a time: every test runs 4- or 8-rank MPI jobs and its own `collwire serve`.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running MPI job, killed if the test fails before it finishes.
struct Job {
    child: Child,
    what: String,
    stdout: Option<JoinHandle<Vec<u8>>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
}

/// Reads a pipe to its end on a thread, so a chatty job cannot block on a full pipe.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        bytes
    })
}

impl Job {
    fn start(mut cmd: Command) -> Job {
        let what = format!("{cmd:?}");
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let stdout = Some(drain(child.stdout.take()));
        let stderr = Some(drain(child.stderr.take()));
        Job {
            child,
            what,
            stdout,
            stderr,
        }
    }

    /// Waits for the job, failing the test if it is still running at `deadline` (a hung MPI
    /// job must fail the test, not CI).
    fn finish(mut self, deadline: Instant) -> Output {
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                self.stop();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stdout = self.stdout.take().unwrap().join().unwrap();
        let stderr = self.stderr.take().unwrap().join().unwrap();
        let Some(status) = status else {
            panic!(
                "{} did not finish in time\nstdout:\n{}\nstderr:\n{}",
                self.what,
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            );
        };
        Output {
            status,
            stdout,
            stderr,
        }
    }

    /// SIGTERM (the launcher then ends its ranks), SIGKILL if it is still there 10 s later.
    fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let grace = Instant::now() + Duration::from_secs(10);
        while let Ok(None) = self.child.try_wait() {
            if Instant::now() > grace {
                let _ = self.child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.wait();
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}

/// Runs `cmd` to completion within `limit`.
fn run(cmd: Command, limit: Duration) -> Output {
    Job::start(cmd).finish(Instant::now() + limit)
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// What scripts/build-mpi built.
struct Built {
    dir: PathBuf,
    /// MPI flavours built ("openmpi", "mpich").
    flavours: Vec<String>,
    /// Flavours with the MPI-4 large-count API (PMPI library intercepting the `_c` functions,
    /// and `largecount_check` built).
    large_count: Vec<String>,
}

/// scripts/build-mpi, once per test process, into `target/tmp/mpi_e2e-<pid>` (earlier
/// processes' directories are removed once those processes are gone).
fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(|| {
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        for entry in std::fs::read_dir(tmp).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("mpi_e2e-"))
                && !Path::new("/proc").join(pid).exists()
            {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let dir = tmp.join(format!("mpi_e2e-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut cmd = Command::new("bash");
        cmd.arg(repo().join("scripts/build-mpi"))
            .arg(libcollwire_dir())
            .arg(&dir);
        let out = run(cmd, Duration::from_secs(300));
        assert!(
            out.status.success(),
            "build-mpi failed (run scripts/setup to install MPI): {}",
            text(&out)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let flavours_with = |prefix: &str| -> Vec<String> {
            stdout
                .lines()
                .filter_map(|l| l.strip_prefix(prefix)?.split(' ').next().map(String::from))
                .collect()
        };
        Built {
            flavours: flavours_with("built "),
            large_count: flavours_with("large-count "),
            dir,
        }
    })
}

/// `mpirun -np 4 program args` as a command, with the PMPI library, board map and extra
/// environment when given.
fn mpirun_cmd(
    mpi: &str,
    dir: &Path,
    program: &str,
    args: &[&str],
    preload: bool,
    map: Option<&Path>,
    extra_env: &[(&str, &str)],
) -> Command {
    let mut cmd = Command::new(format!("mpirun.{mpi}"));
    let mut env: Vec<(String, String)> = Vec::new();
    if preload {
        let lib = dir.join(format!("libcollwire_pmpi_{mpi}.so"));
        env.push(("LD_PRELOAD".into(), lib.display().to_string()));
    }
    if let Some(map) = map {
        env.push(("COLLWIRE_CONFIG".into(), map.display().to_string()));
    }
    for (k, v) in extra_env {
        env.push((k.to_string(), v.to_string()));
    }
    if mpi == "openmpi" {
        // A session directory of its own per launch: two `mpirun`s started at once race to
        // create the shared `/tmp/ompi.<host>.<uid>` ("mkdir ... File exists", Open MPI 4.1).
        static LAUNCH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = LAUNCH.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let session = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("ompi-session-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&session).unwrap();
        cmd.env("TMPDIR", &session);
        cmd.args(["--allow-run-as-root", "--oversubscribe", "-np", "4"]);
        for (k, v) in &env {
            cmd.arg("-x").arg(format!("{k}={v}"));
        }
    } else {
        cmd.args(["-np", "4"]);
        for (k, v) in &env {
            cmd.args(["-genv", k, v]);
        }
    }
    // Only the launcher's environment carries these, never this test's own.
    cmd.env_remove("COLLWIRE_CONFIG")
        .env_remove("LD_PRELOAD")
        .env_remove("COLLWIRE_PMPI_VERBOSE");
    // The ranks load the libcollwire.so the PMPI library was linked against: `cargo test`
    // puts target/debug (where an older copy may be) on LD_LIBRARY_PATH, which wins over the
    // library's run path.
    let mut path = libcollwire_dir().into_os_string();
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        path.push(":");
        path.push(old);
    }
    cmd.env("LD_LIBRARY_PATH", path);
    cmd.arg(dir.join(format!("{program}_{mpi}"))).args(args);
    cmd
}

/// `mpirun -np 4 program args`, with the PMPI library and board map when given.
fn mpirun(
    mpi: &str,
    dir: &Path,
    program: &str,
    args: &[&str],
    preload: bool,
    map: Option<&Path>,
) -> Output {
    mpirun_env(mpi, dir, program, args, preload, map, &[])
}

fn mpirun_env(
    mpi: &str,
    dir: &Path,
    program: &str,
    args: &[&str],
    preload: bool,
    map: Option<&Path>,
    extra_env: &[(&str, &str)],
) -> Output {
    let cmd = mpirun_cmd(mpi, dir, program, args, preload, map, extra_env);
    run(cmd, Duration::from_secs(600))
}

/// `key=value` from a report line.
fn field<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key} in {report:?}"))
}

/// The line of `out`'s stdout starting with `prefix`.
fn report_line(out: &Output, prefix: &str) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} line: {}", text(out)))
        .to_string()
}

/// The PMPI library's lines on stderr.
fn pmpi_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("collwire-pmpi: "))
        .map(String::from)
        .collect()
}

/// `offload_check` passed, offloading `offloaded` calls on rank 0.
/// The MILC-like solver on 4 ranks under `mpi`, offloaded through the board map `map` (the
/// PMPI library preloaded) or, without one, MPI's own; its report line.
fn milc_cg(mpi: &str, dir: &Path, map: Option<&Path>) -> String {
    let out = mpirun(
        mpi,
        dir,
        "milc_cg",
        &["4", "8", "0.05", "1e-10"],
        map.is_some(),
        map,
    );
    assert!(out.status.success(), "{mpi} milc_cg: {}", text(&out));
    report_line(&out, "milc_cg:")
}

fn assert_offload_check(mpi: &str, out: &Output, offloaded: usize) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{mpi}: {}", text(out));
    assert!(
        stdout.contains("PASSED: 0 mismatches"),
        "{mpi}: {}",
        text(out)
    );
    assert!(!stdout.contains("MISMATCH"), "{mpi}: {}", text(out));
    assert!(
        stdout.contains(&format!("offloaded {offloaded} calls")),
        "{mpi}: rank 0 should offload {offloaded} calls: {}",
        text(out)
    );
}

#[test]
fn unmodified_mpi_programs_offload_through_the_pmpi_library() {
    let _turn = one_at_a_time();
    let built = built();
    let dir = built.dir.as_path();
    let flavours = &built.flavours;
    assert!(
        flavours.iter().any(|f| f == "openmpi"),
        "Open MPI is required: {flavours:?}"
    );
    let work = tempfile::tempdir().unwrap();
    let map = work.path().join("map.toml");
    let _service = Service::start(&map, &["--boards", "4"]);

    for mpi in flavours {
        // Every intercepted collective equals PMPI's own result; without verbose output the
        // library prints nothing.
        let out = mpirun(mpi, dir, "offload_check", &[], true, Some(&map));
        assert_offload_check(mpi, &out, 21);
        assert_eq!(
            pmpi_lines(&out),
            Vec::<String>::new(),
            "{mpi}: {}",
            text(&out)
        );

        // Preloaded without a board map: everything is forwarded, and it says so once.
        let out = mpirun(mpi, dir, "offload_check", &[], true, None);
        assert_offload_check(mpi, &out, 0);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.matches("COLLWIRE_CONFIG is not set").count(),
            1,
            "{mpi}: {}",
            text(&out)
        );
    }

    // The MILC-like solver under every MPI: same answer with and without the library (MPI's
    // reduction order differs from the boards', so the last bits of |x|^2 may differ),
    // bit-identical on two offloaded runs, and — the boards doing every reduction — the same
    // bits under Open MPI and MPICH.
    let solve = |mpi: &str, preload: bool| {
        let line = milc_cg(mpi, dir, preload.then_some(map.as_path()));
        let how = if preload { "offloaded" } else { "MPI" };
        eprintln!("{mpi:>8} {how:>9} {line}");
        line
    };
    let iters = |r: &str| field(r, "iterations").parse::<i64>().unwrap();
    let x2 = |r: &str| field(r, "x2").parse::<f64>().unwrap();
    let mut offloaded_runs = Vec::new();
    for mpi in flavours {
        let plain = solve(mpi, false);
        let offloaded = solve(mpi, true);
        for r in [&plain, &offloaded] {
            assert_eq!(field(r, "converged"), "1", "{mpi}: {r}");
        }
        assert!(
            (iters(&plain) - iters(&offloaded)).abs() <= 1,
            "{mpi}:\n{plain}\n{offloaded}"
        );
        assert!(
            ((x2(&plain) - x2(&offloaded)) / x2(&plain)).abs() < 1e-9,
            "{mpi}:\n{plain}\n{offloaded}"
        );
        offloaded_runs.push((mpi.clone(), offloaded));
    }
    let (first_mpi, first) = &offloaded_runs[0];
    let again = solve(first_mpi, true);
    assert_eq!(
        field(first, "x2_bits"),
        field(&again, "x2_bits"),
        "offloaded runs are reproducible bit for bit"
    );
    assert_eq!(iters(first), iters(&again));
    for (mpi, run) in &offloaded_runs[1..] {
        assert_eq!(
            (field(run, "x2_bits"), iters(run)),
            (field(first, "x2_bits"), iters(first)),
            "offloaded under {mpi} and {first_mpi}: the boards reduce, so the bits agree"
        );
    }
}

/// A board map that no rank can open (a file that does not exist): every collective goes to
/// MPI, and each rank says so once although offload_check uses two communicators congruent to
/// MPI_COMM_WORLD (each opened separately).
#[test]
fn a_rank_that_cannot_open_its_board_says_so_once() {
    let _turn = one_at_a_time();
    let built = built();
    let work = tempfile::tempdir().unwrap();
    let missing = work.path().join("no-such-map.toml");
    let out = mpirun(
        "openmpi",
        &built.dir,
        "offload_check",
        &[],
        true,
        Some(&missing),
    );
    assert_offload_check("openmpi", &out, 0);
    let lines = pmpi_lines(&out);
    for rank in 0..4 {
        let says = format!("collwire-pmpi: rank {rank}: cannot offload: ");
        assert_eq!(
            lines.iter().filter(|l| l.starts_with(&says)).count(),
            1,
            "rank {rank}: {}",
            text(&out)
        );
    }
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains("a rank could not open its collwire communicator"))
            .count(),
        1,
        "{}",
        text(&out)
    );
    assert_eq!(lines.len(), 5, "nothing else on stderr: {}", text(&out));
}

/// MPICH has the MPI-4 large-count API: the library intercepts the six `_c` collectives, each
/// is offloaded (its verbose line says so on every rank) and equals PMPI's result; MPI_PROD
/// and a count too large for the boards (more segments than the 16-bit segment field holds at
/// the board map's MTU) go to MPI, blocking and non-blocking, still correct.
#[test]
fn large_count_collectives_offload_under_mpich() {
    let _turn = one_at_a_time();
    let built = built();
    assert!(
        built.flavours.iter().any(|f| f == "mpich"),
        "MPICH is required: {:?}",
        built.flavours
    );
    assert!(
        built.large_count.iter().any(|f| f == "mpich"),
        "build-mpi did not detect MPICH's large-count API: {:?}",
        built.large_count
    );
    let work = tempfile::tempdir().unwrap();
    let map = work.path().join("map.toml");
    let _service = Service::start(&map, &["--boards", "4"]);
    let mtu = collwire_driver::BoardMap::from_file(&map).unwrap().mtu;
    let per_segment =
        collwire_proto::segment::max_elements_per_segment(collwire_proto::Datatype::Int32, mtu)
            .unwrap();
    let too_large = per_segment * collwire_proto::segment::MAX_SEGMENTS + 1;

    let out = mpirun_env(
        "mpich",
        &built.dir,
        "largecount_check",
        &[&too_large.to_string()],
        true,
        Some(&map),
        &[("COLLWIRE_PMPI_VERBOSE", "1")],
    );
    assert!(out.status.success(), "{}", text(&out));
    let summary = report_line(&out, "largecount_check:");
    assert_eq!(
        (
            field(&summary, "cases"),
            field(&summary, "mismatches"),
            field(&summary, "offloaded")
        ),
        ("13", "0", "9"),
        "{}",
        text(&out)
    );
    let lines = pmpi_lines(&out);
    let decisions = |rank: usize, call: &str, outcome: &str| {
        let start = format!("collwire-pmpi: rank {rank}: {call} ");
        lines
            .iter()
            .filter(|l| l.starts_with(&start) && l.contains(outcome))
            .count()
    };
    for rank in 0..4 {
        for (call, shapes) in [
            ("MPI_Allreduce_c", 3),
            ("MPI_Reduce_c", 2),
            ("MPI_Scan_c", 1),
            ("MPI_Iallreduce_c", 1),
            ("MPI_Ireduce_c", 1),
            ("MPI_Iscan_c", 1),
        ] {
            assert_eq!(
                decisions(rank, call, " -> offloaded"),
                shapes,
                "rank {rank} {call}: {}",
                text(&out)
            );
        }
        let start = format!(
            "collwire-pmpi: rank {rank}: MPI_Allreduce_c count 8 MPI_DOUBLE MPI_SUM on comm "
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&start) && l.ends_with(" -> offloaded")),
            "rank {rank}: {}",
            text(&out)
        );
        // Two MPI_PROD calls of one shape: one notice.
        assert_eq!(
            decisions(
                rank,
                "MPI_Allreduce_c count 3 MPI_DOUBLE MPI_PROD",
                " -> MPI (MPI_PROD is not offloaded)"
            ),
            1,
            "rank {rank}: {}",
            text(&out)
        );
        for call in ["MPI_Allreduce_c", "MPI_Iallreduce_c"] {
            assert_eq!(
                decisions(
                    rank,
                    &format!("{call} count {too_large} MPI_INT MPI_SUM"),
                    " -> MPI (boards cannot run it: "
                ),
                1,
                "rank {rank} {call}: {}",
                text(&out)
            );
        }
    }
}

/// `inflight_check COUNT` on a fresh `collwire serve`: every result equals PMPI's, each rank
/// offloading its 16 MPI_Iallreduce calls.
fn inflight_check(count: usize) {
    let built = built();
    let work = tempfile::tempdir().unwrap();
    let map = work.path().join("map.toml");
    let _service = Service::start(&map, &["--boards", "4"]);
    let out = Job::start(mpirun_cmd(
        "openmpi",
        &built.dir,
        "inflight_check",
        &[&count.to_string()],
        true,
        Some(&map),
        &[],
    ))
    .finish(Instant::now() + Duration::from_secs(180));
    assert!(out.status.success(), "{}", text(&out));
    let summary = report_line(&out, "inflight_check:");
    assert_eq!(
        (
            field(&summary, "comms"),
            field(&summary, "mismatches"),
            field(&summary, "offloaded")
        ),
        ("8", "0", "16"),
        "{}",
        text(&out)
    );
}

/// An MPI_Iallreduce outstanding on each of 8 communicators (MPI_COMM_WORLD and 7 duplicates,
/// each its own collwire communicator and socket) at once, completed by one MPI_Waitall, in two
/// rounds (3 doubles, then 100 int64: one segment per operation, so 8 segments per board in
/// flight, as many as a board has contexts).
#[test]
fn iallreduce_in_flight_on_eight_communicators_at_once() {
    let _turn = one_at_a_time();
    inflight_check(100);
}

/// As above with 300 int64 in the second round: two segments per operation, 16 per board in
/// flight at once, twice a board's 8 contexts.
#[test]
#[ignore = "fails: with more segments in flight than a board has contexts, no operation \
            completes (the ranks' retransmissions go unanswered until they give up)"]
fn iallreduce_in_flight_on_eight_communicators_beyond_the_boards_contexts() {
    let _turn = one_at_a_time();
    inflight_check(300);
}

/// Two 4-rank jobs at once on one `collwire serve` (so two processes per board, each as the
/// same local rank): both offload every call and match PMPI.
#[test]
fn two_jobs_at_once_share_one_serve() {
    let _turn = one_at_a_time();
    let built = built();
    let work = tempfile::tempdir().unwrap();
    let map = work.path().join("map.toml");
    let _service = Service::start(&map, &["--boards", "4"]);
    let jobs: Vec<Job> = (0..2)
        .map(|_| {
            Job::start(mpirun_cmd(
                "openmpi",
                &built.dir,
                "offload_check",
                &[],
                true,
                Some(&map),
                &[],
            ))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(300);
    let outs: Vec<Output> = jobs.into_iter().map(|job| job.finish(deadline)).collect();
    for (job, out) in outs.iter().enumerate() {
        assert_offload_check(&format!("openmpi job {job}"), out, 21);
    }
}

/// The MILC-like solver through `serve` with frames lost, duplicated, reordered and corrupted
/// on every host link, both ways: the ranks' retransmissions recover every loss (a lost
/// request is stored from its copy, a lost answer is sent again from the board's retained
/// result: docs/recovery.md), so under Open MPI and MPICH it ends with the same bits and
/// iterations as over clean links.
#[test]
fn milc_through_lossy_host_links_gives_the_same_bits_under_both_mpis() {
    let _turn = one_at_a_time();
    let built = built();
    let dir = built.dir.as_path();
    let work = tempfile::tempdir().unwrap();
    let solve = |mpi: &str, map: &std::path::Path| milc_cg(mpi, dir, Some(map));
    let clean_map = work.path().join("clean.toml");
    let clean: Vec<String> = {
        let _service = Service::start(&clean_map, &["--boards", "4"]);
        built
            .flavours
            .iter()
            .map(|mpi| solve(mpi, &clean_map))
            .collect()
    };
    let lossy_map = work.path().join("lossy.toml");
    let service = Service::start(
        &lossy_map,
        &[
            "--boards",
            "4",
            "--host-faults-in",
            "drop=0.02,duplicate=0.01,reorder=0.01,corrupt=0.005",
            "--host-faults-out",
            "drop=0.02,duplicate=0.01,reorder=0.01,corrupt=0.005",
            "--fault-seed",
            "9",
        ],
    );
    for (mpi, clean) in built.flavours.iter().zip(&clean) {
        let lossy = solve(mpi, &lossy_map);
        eprintln!("{mpi:>8} clean {clean}\n{mpi:>8} lossy {lossy}");
        assert_eq!(
            (field(&lossy, "x2_bits"), field(&lossy, "iterations")),
            (field(clean, "x2_bits"), field(clean, "iterations")),
            "{mpi}: lossy host links changed the answer"
        );
    }
    let (status, stdout, stderr) = service.stop();
    assert!(status.success(), "{stderr}");
    for fault in ["dropped", "duplicated", "reordered", "corrupted"] {
        let n = common::counter(&stdout, &format!("link frames {fault}"));
        assert!(n >= 1, "no frame {fault}: {stdout}");
    }
    let resent: u64 = common::counters_named(&stdout, "resent").iter().sum();
    assert!(resent >= 1, "no answer was sent again: {stdout}");
}

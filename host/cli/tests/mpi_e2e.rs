//! End to end with real MPI: `collwire serve` runs four simulated boards; `mpirun -np 4` runs
//! unmodified MPI programs with the collwire PMPI library preloaded, under Open MPI and under
//! MPICH (both installed by scripts/setup).
//!
//! * `offload_check` compares every intercepted collective with PMPI's own result;
//! * the MILC-like CG solver converges to the same answer with and without the library under
//!   each MPI, bit-identically on two offloaded runs and under both MPIs when offloaded (the
//!   boards' reductions are reproducible and independent of the MPI library).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{Service, libcollwire_dir, repo};

/// Runs `cmd`, killing it after `limit` (a hung MPI job must fail the test, not CI).
fn run(mut cmd: Command, limit: Duration) -> Output {
    let what = format!("{cmd:?}");
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} did not finish in {limit:?}\nstdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn text(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The MPI flavours scripts/build-mpi built into `out`.
fn build_mpi(out: &Path) -> Vec<String> {
    let mut cmd = Command::new("bash");
    cmd.arg(repo().join("scripts/build-mpi"))
        .arg(libcollwire_dir())
        .arg(out);
    let built = run(cmd, Duration::from_secs(300));
    assert!(
        built.status.success(),
        "build-mpi failed (run scripts/setup to install MPI): {}",
        text(&built)
    );
    String::from_utf8_lossy(&built.stdout)
        .lines()
        .filter_map(|l| {
            l.strip_prefix("built ")?
                .split(' ')
                .next()
                .map(String::from)
        })
        .collect()
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
    let mut cmd = Command::new(format!("mpirun.{mpi}"));
    let mut env: Vec<(String, String)> = Vec::new();
    if preload {
        let lib = dir.join(format!("libcollwire_pmpi_{mpi}.so"));
        env.push(("LD_PRELOAD".into(), lib.display().to_string()));
    }
    if let Some(map) = map {
        env.push(("COLLWIRE_CONFIG".into(), map.display().to_string()));
    }
    if mpi == "openmpi" {
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
    cmd.env_remove("COLLWIRE_CONFIG").env_remove("LD_PRELOAD");
    cmd.arg(dir.join(format!("{program}_{mpi}"))).args(args);
    run(cmd, Duration::from_secs(600))
}

/// `key=value` from the solver's report line.
fn field<'a>(report: &'a str, key: &str) -> &'a str {
    report
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key} in {report:?}"))
}

#[test]
fn unmodified_mpi_programs_offload_through_the_pmpi_library() {
    let dir = tempfile::tempdir().unwrap();
    let flavours = build_mpi(dir.path());
    assert!(
        flavours.iter().any(|f| f == "openmpi"),
        "Open MPI is required: {flavours:?}"
    );
    let map = dir.path().join("map.toml");
    let _service = Service::start(&map, &["--boards", "4"]);

    for mpi in &flavours {
        // Every intercepted collective equals PMPI's own result.
        let out = mpirun(mpi, dir.path(), "offload_check", &[], true, Some(&map));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{mpi}: {}", text(&out));
        assert!(
            stdout.contains("PASSED: 0 mismatches"),
            "{mpi}: {}",
            text(&out)
        );
        assert!(!stdout.contains("MISMATCH"), "{mpi}: {}", text(&out));
        assert!(
            stdout.contains("offloaded 21 calls"),
            "{mpi}: rank 0 should offload 21 calls: {}",
            text(&out)
        );

        // Preloaded without a board map: everything is forwarded, and it says so once.
        let out = mpirun(mpi, dir.path(), "offload_check", &[], true, None);
        assert!(out.status.success(), "{mpi}: {}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.matches("COLLWIRE_CONFIG is not set").count(),
            1,
            "{mpi}: {}",
            text(&out)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("offloaded 0 calls"));
    }

    // The MILC-like solver under every MPI: same answer with and without the library (MPI's
    // reduction order differs from the boards', so the last bits of |x|^2 may differ),
    // bit-identical on two offloaded runs, and — the boards doing every reduction — the same
    // bits under Open MPI and MPICH.
    let solve = |mpi: &str, preload: bool| {
        let out = mpirun(
            mpi,
            dir.path(),
            "milc_cg",
            &["4", "8", "0.05", "1e-10"],
            preload,
            preload.then_some(map.as_path()),
        );
        assert!(out.status.success(), "{mpi} milc_cg: {}", text(&out));
        let line = String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|l| l.starts_with("milc_cg:"))
            .expect("report line")
            .to_string();
        let how = if preload { "offloaded" } else { "MPI" };
        eprintln!("{mpi:>8} {how:>9} {line}");
        line
    };
    let iters = |r: &str| field(r, "iterations").parse::<i64>().unwrap();
    let x2 = |r: &str| field(r, "x2").parse::<f64>().unwrap();
    let mut offloaded_runs = Vec::new();
    for mpi in &flavours {
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

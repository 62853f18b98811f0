//! Helpers shared by the CLI's integration tests: paths, and a running `collwire serve`.
#![allow(dead_code)] // each test file uses its own subset

pub mod tshark;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_collwire")
}

/// Runs `collwire ARGS…`, asserts it succeeded, and returns what it printed.
pub fn collwire<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let out = Command::new(exe()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "collwire failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The directory holding `libcollwire.so` (the CLI depends on the C ABI crate, so cargo has
/// built it next to the tests' own dependencies).
pub fn libcollwire_dir() -> PathBuf {
    let deps = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    [deps.clone(), deps.parent().unwrap().to_path_buf()]
        .into_iter()
        .find(|d| d.join("libcollwire.so").exists())
        .unwrap_or_else(|| panic!("libcollwire.so not found near {}", deps.display()))
}

/// A running `collwire serve`, stopped with SIGINT by [`Service::stop`] (and killed if a test
/// fails first).
pub struct Service {
    child: Option<Child>,
    pub map: PathBuf,
}

impl Service {
    /// Starts `collwire serve --write-config MAP ARGS…` and waits for its board map.
    pub fn start(map: &Path, args: &[&str]) -> Service {
        let child = Command::new(exe())
            .args(["serve", "--write-config"])
            .arg(map)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("collwire serve starts");
        let deadline = Instant::now() + Duration::from_secs(120);
        while !map.exists() {
            assert!(Instant::now() < deadline, "serve never wrote its board map");
            std::thread::sleep(Duration::from_millis(20));
        }
        Service {
            child: Some(child),
            map: map.to_path_buf(),
        }
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().unwrap().id()
    }

    /// SIGINT, then the exit status and everything it printed.
    pub fn stop(mut self) -> (ExitStatus, String, String) {
        let child = self.child.take().unwrap();
        let status = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let out = child.wait_with_output().unwrap();
        (
            out.status,
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A counter from `collwire serve`'s summary ("collwire serve:   requests in    12").
/// Every value of counter `name` in a `serve` summary (one per board for board counters).
pub fn counters_named(summary: &str, name: &str) -> Vec<u64> {
    summary
        .lines()
        .filter_map(|l| l.strip_prefix("collwire serve:"))
        .filter_map(|l| l.trim_start().strip_prefix(name)?.trim().parse().ok())
        .collect()
}

pub fn counter(summary: &str, name: &str) -> u64 {
    summary
        .lines()
        .filter_map(|l| l.strip_prefix("collwire serve:"))
        .find_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix(name)?;
            rest.trim().parse().ok()
        })
        .unwrap_or_else(|| panic!("no counter {name:?} in:\n{summary}"))
}

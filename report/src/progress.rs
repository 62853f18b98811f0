//! Progress bars for runs that take minutes (the soak, the full golden matrix, the cluster
//! bench): drawn on stderr with an ETA when stderr is a terminal, and not at all otherwise (CI,
//! pipes, files), so logs stay as they were.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` steps named `what`.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg} (ETA {eta})")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
}

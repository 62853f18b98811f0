//! The command line, run as a user runs it.

use assert_cmd::Command;

fn collwire() -> Command {
    Command::cargo_bin("collwire").unwrap()
}

/// What `collwire args…` printed; it must succeed.
fn stdout_of(args: &[&str]) -> String {
    let out = collwire()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn demo_shows_requests_and_golden_results() {
    let out = stdout_of(&["demo"]);
    assert_eq!(
        out.matches("request op_id=1 allreduce recursive-doubling f64 sum")
            .count(),
        4,
        "{out}"
    );
    // ring gives 0 for the first element, the others 1 (see docs/protocol.md).
    assert!(
        out.contains("ring                0x0000000000000000"),
        "{out}"
    );
    assert!(
        out.contains("recursive-doubling  0x3ff0000000000000"),
        "{out}"
    );
    assert!(!out.contains("identical on all 4 ranks: false"), "{out}");
}

#[test]
fn decode_reports_fields_and_errors() {
    // Header of docs/protocol.md's worked example, as a datagram.
    let ok = "c7 10 12 34 01 50 be ef 00 08 00 05 00 00 02 00 00 01 00 03 00 01 0000000000000000";
    let out = collwire()
        .args(["decode", "--datagram", ok])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains(
            "request op_id=4660 allreduce recursive-doubling f64 sum comm=48879 size=8 rank=5"
        ),
        "{out}"
    );
    let out = collwire()
        .args(["decode", "--datagram", "c7 20"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("malformed offload datagram: datagram too short: 2 bytes")
    );
    collwire().args(["decode", "abc"]).assert().failure();
}

#[test]
fn emit_writes_named_verilog_per_width() {
    let dir = std::env::temp_dir().join(format!("collwire-emit-{}", std::process::id()));
    for (width, alu) in [
        ("64", "collwire_cipe_alu64"),
        ("256", "collwire_cipe_alu256"),
    ] {
        let out = dir.join(width);
        collwire()
            .args(["emit", "--width", width, "--out"])
            .arg(&out)
            .assert()
            .success();
        let v = std::fs::read_to_string(out.join(format!("{alu}.v"))).unwrap();
        assert!(
            v.contains(&format!("module {alu}(")),
            "top module named {alu}"
        );
        assert!(!v.contains("module top("));
        assert!(out.join("collwire_fp_add64.v").exists());
    }
    collwire()
        .args(["emit", "--width", "128", "--out"])
        .arg(&dir)
        .assert()
        .failure();
}

/// Runs `collwire cluster` with `args`; requires it to succeed with every one of `ranks`
/// answers bit-identical to the golden model, and returns what it printed.
fn cluster_exact(args: &[&str], ranks: usize) -> String {
    let out = stdout_of(&[&["cluster"], args].concat());
    assert_eq!(
        out.matches("bit-identical to the golden model").count(),
        ranks,
        "{out}"
    );
    out
}

#[test]
fn cluster_runs_a_reduce_against_the_golden_model_and_writes_a_waveform() {
    let vcd = std::env::temp_dir().join(format!("collwire-cli-{}.vcd", std::process::id()));
    let vcd_arg = vcd.to_str().unwrap();
    cluster_exact(
        &[
            "--boards",
            "3",
            "--collective",
            "reduce",
            "--root",
            "2",
            "--datatype",
            "int64",
            "--op",
            "max",
            "--elements",
            "300",
            "--vcd",
            vcd_arg,
            "--window",
            "0:500",
        ],
        3,
    );
    let wave = std::fs::read_to_string(&vcd).unwrap();
    std::fs::remove_file(&vcd).ok();
    assert!(
        wave.contains("$var string 1 ! cfe_state $end"),
        "{}",
        &wave[..300]
    );
    assert!(wave.contains("sarrive"));
}

/// `cluster --links target`: an MTU allreduce over the boards' own 1G links, exact with every
/// kind of receive FIFO; a frame FIFO stores each frame whole at every hop, so it takes
/// longest, and a rate-matched one hands a frame on its bus time before its end.
#[test]
fn cluster_runs_over_the_boards_own_links_with_each_receive_fifo() {
    let cycles = |fifo: &str| -> u64 {
        let out = cluster_exact(
            &[
                "--boards",
                "4",
                "--elements",
                "180",
                "--links",
                "target",
                "--rx-fifo",
                fifo,
            ],
            4,
        );
        assert!(
            out.contains(&format!("1G links with {fifo} receive FIFOs")),
            "{out}"
        );
        let line = out
            .lines()
            .find(|l| l.starts_with("cycles from the first request"))
            .unwrap();
        assert!(line.ends_with("µs at 125 MHz)"), "{line}");
        line.split(": ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (cut, matched, frame) = (
        cycles("cut-through"),
        cycles("rate-matched"),
        cycles("frame"),
    );
    assert!(cut < matched && matched < frame, "{cut} {matched} {frame}");
    // A 1,504-byte frame is 188 beats: each hop of the rate-matched run saves about that.
    assert!(frame - matched >= 188 * 4, "{matched} against {frame}");
    let refused = collwire()
        .args(["cluster", "--boards", "4", "--rx-fifo", "frame"])
        .assert()
        .failure()
        .get_output()
        .clone();
    let stderr = String::from_utf8(refused.stderr).unwrap();
    assert!(
        stderr.contains("--rx-fifo needs --links target"),
        "{stderr}"
    );
    assert!(refused.stdout.is_empty(), "nothing simulated");
}

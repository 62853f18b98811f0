//! The command line, run as a user runs it.

use assert_cmd::Command;

fn collwire() -> Command {
    Command::cargo_bin("collwire").unwrap()
}

#[test]
fn demo_shows_requests_and_golden_results() {
    let out = collwire()
        .arg("demo")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
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

#[test]
fn cluster_runs_a_reduce_against_the_golden_model_and_writes_a_waveform() {
    let vcd = std::env::temp_dir().join(format!("collwire-cli-{}.vcd", std::process::id()));
    let out = collwire()
        .args([
            "cluster",
            "--boards",
            "3",
            "--collective",
            "reduce",
            "--root",
            "2",
        ])
        .args([
            "--datatype",
            "int64",
            "--op",
            "max",
            "--elements",
            "300",
            "--vcd",
        ])
        .arg(&vcd)
        .args(["--window", "0:500"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(
        out.matches("bit-identical to the golden model").count(),
        3,
        "{out}"
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

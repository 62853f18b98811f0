//! `timing --replot`: the Fmax bar chart drawn again from an earlier run's JSON rows, with no
//! tool run: one bar per design (per seed when a design has several), each labelled with its
//! Fmax rounded to a whole MHz.

use std::process::Command;

#[test]
fn replot_draws_the_bars_of_a_saved_report() {
    let dir = std::env::temp_dir().join(format!("collwire-replot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("timing.json");
    let svg = dir.join("fmax.svg");
    let row = |design: &str, seed: Option<u64>, fmax: Option<f64>| serde_json::json!({"design": design, "width": 64, "seed": seed, "ecp5_fmax_mhz": fmax});
    let rows = [
        row("collwire_fp_add64", None, Some(190.2)),
        row("collwire_board64", Some(1), Some(219.6)),
        row("collwire_board64", Some(2), Some(147.8)),
        row("collwire_header_fields", None, None),
    ];
    std::fs::write(&json, serde_json::to_string(&rows).unwrap()).unwrap();
    let timing = env!("CARGO_BIN_EXE_timing");
    let out = Command::new(timing)
        .arg("--replot")
        .arg(&json)
        .arg("--plot")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("64-bit (ECP5 proxy for xc7z020)"), "{text}");
    for label in [
        "collwire_fp_add64",
        "collwire_board64 (seed 1)",
        "collwire_board64 (seed 2)",
        "collwire_header_fields",
    ] {
        assert!(text.contains(&format!("\n{label}\n")), "no bar for {label}");
    }
    // Bar values: a whole MHz, zeros kept (190, not 19); a combinational block has none.
    for value in ["\n 190\n", "\n 220\n", "\n 148\n", "\n-\n"] {
        assert!(text.contains(value), "no label {value:?}");
    }
    // Without `--plot` there is nothing to draw: refused before anything runs.
    let refused = Command::new(timing)
        .arg("--replot")
        .arg(&json)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    std::fs::remove_dir_all(&dir).ok();
}

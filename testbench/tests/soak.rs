//! A seeded sample of the soak (`collwire_testbench::soak`): random collectives over the
//! boards' own links with 1 % drop, 0.5 % duplication, 0.5 % reordering and 0.1 % corruption on
//! every cable and host link. No run may give a wrong result or hang; runs the boards cannot
//! recover yet end in typed errors (the share that completes is printed by the soak bench,
//! `cargo run --release -p collwire-testbench --bin soak`).

use collwire_testbench::soak::{SoakConfig, soak};

#[test]
fn a_seeded_sample_over_lossy_links_gives_no_wrong_result_and_no_hang() {
    for (width, runs) in [(64, 150), (256, 100)] {
        let report = soak(&SoakConfig::issue(runs, 20261124, width), |_, _| {});
        assert_eq!(report.wrong, 0, "{width}-bit: {:?}", report.failures);
        assert_eq!(report.hangs, 0, "{width}-bit: {:?}", report.failures);
        // The faults did happen, and runs met them and still came out exact.
        assert!(report.faulted_exact > 0, "{width}-bit: {report:?}");
        assert!(report.exact_share() > 0.5, "{width}-bit: {report:?}");
        eprintln!(
            "{width}-bit: {:.1} % of {runs} exact, errors {:?}",
            100.0 * report.exact_share(),
            report.errors
        );
    }
}

//! Per-hop latency, first word in → first word out, in simulated cycles (deterministic: the
//! same on any machine, so these are checks of the hardware's behaviour, not timed tests).
//!
//! * **Cut-through**: a 1440-byte frame (180 words at 64 bits) crosses a board no later than
//!   an 8-byte one, through the engine, in transit and to the host. A store-and-forward stage
//!   anywhere on a path would add a frame time at 1440 B.
//! * **The issue's bounds** (issue 15): engine ≤ 24 / 20 cycles, transit ≤ 14 / 8 and
//!   pass-through ≤ 12 / 6 at 64 / 256 bits. The 256-bit engine hop meets its 20 since the
//!   IEEE adders took two stages fewer (a near and a far path, `hdl::fp_add`, 2026-12-03); it
//!   was 24 before the 256-bit splitter and CIPE took the first payload word a clock earlier
//!   and the 256-bit router wrote the classifier's verdict into its queue a clock earlier.
//! * **The published numbers are what the hardware does**: every hop of
//!   `docs/plots/cluster.json` (what `bench_cluster` wrote and the docs quote), the engine's
//!   behind its own request included, measured again and compared cycle for cycle. A change
//!   that moves a hop by a clock must redraw the bench's report.

use collwire_sim::hop::{Hop, measure};

/// The cable latency and the hops as published.
fn published() -> (u64, Vec<serde_json::Value>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/plots/cluster.json");
    let text = std::fs::read_to_string(path).expect("docs/plots/cluster.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let latency = json["link_latency"].as_u64().expect("link_latency");
    let hops = json["hops"].as_array().expect("hops").clone();
    (latency, hops)
}

fn cycles(h: &Hop) -> [(&'static str, u64); 4] {
    [
        ("engine_hop_cycles", h.engine_hop_cycles),
        (
            "engine_hop_behind_own_request_cycles",
            h.engine_hop_behind_own_request_cycles,
        ),
        ("transit_hop_cycles", h.transit_hop_cycles),
        ("pass_through_hop_cycles", h.pass_through_hop_cycles),
    ]
}

#[test]
fn hops_cut_through_and_keep_within_the_issue_bounds() {
    let (latency, _) = published();
    for (width, engine_max, transit_max, pass_max) in [(64, 24, 14, 12), (256, 20, 8, 6)] {
        let short = measure(width, 8, latency);
        let long = measure(width, 1440, latency);
        for h in [&short, &long] {
            assert!(
                h.engine_hop_cycles <= engine_max
                    && h.transit_hop_cycles <= transit_max
                    && h.pass_through_hop_cycles <= pass_max,
                "{width}-bit, {} B: {h:?} beyond {engine_max} / {transit_max} / {pass_max}",
                h.payload_bytes
            );
        }
        // The engine's hop behind its own request is left out: it includes a wait for the
        // request's tail, which grows with the payload.
        for ((name, s), (_, l)) in cycles(&short)
            .into_iter()
            .zip(cycles(&long))
            .filter(|((name, _), _)| !name.contains("behind"))
        {
            assert!(
                l <= s,
                "{width}-bit {name}: {l} cycles at 1440 B, {s} at 8 B: stored somewhere"
            );
        }
    }
}

#[test]
fn the_published_hops_are_what_the_hardware_does() {
    let (latency, hops) = published();
    assert!(hops.len() >= 4, "every width at 8 and 1440 B at least");
    for entry in &hops {
        let width = entry["width"].as_u64().expect("width") as usize;
        let payload = entry["payload_bytes"].as_u64().expect("payload_bytes") as usize;
        let h = measure(width, payload, latency);
        for (name, got) in cycles(&h) {
            assert_eq!(
                Some(got),
                entry[name].as_u64(),
                "{width}-bit, {payload} B: {name} measures {got}, docs/plots/cluster.json says {}",
                entry[name]
            );
        }
    }
}

//! The open-source place-and-route flow runs and its report is read: a registered 64-bit adder
//! (the calibration design of `collwire_flow::pnr`) routes on the ECP5 proxy at a plausible
//! Fmax, with its critical path from one register to another; the levels in front of its
//! registers are counted on the netlist (`collwire_flow::levels`).

use collwire_flow::levels::{endpoints, register_of};
use collwire_flow::pnr::{late_groups, place_route_ecp5};
use collwire_hdl::emit::Design;

#[test]
fn a_registered_adder_places_and_routes() {
    let verilog = "module collwire_add64(input wire clock, input wire [63:0] a, input wire [63:0] b,\n\
                   output reg [63:0] s);\n\
                   reg [63:0] ra, rb;\n\
                   always @(posedge clock) begin ra <= a; rb <= b; s <= ra + rb; end\n\
                   endmodule\n";
    let d = Design {
        name: "collwire_add64",
        verilog: verilog.into(),
    };
    let dir = std::env::temp_dir().join(format!("collwire-pnr-{}", std::process::id()));
    let r = place_route_ecp5(&dir, &d, 200).unwrap_or_else(|e| panic!("{e}"));
    println!("{r:?}");
    // About 340 MHz when this was written; far outside means the flow or the parser broke.
    let fmax = r.fmax_mhz.expect("a clocked design has an Fmax");
    assert!((150.0..1000.0).contains(&fmax), "Fmax {fmax} MHz");
    assert!(r.critical.logic_steps >= 16, "{:?}", r.critical); // 64 bits of carry
    assert!(r.ff_used >= 192 && r.comb_used >= 64, "{r:?}");
    // Every timed endpoint's latest arrival: the sum's 64 registers (the operands' come from
    // ports, untimed out of context). The latest is the critical path (its setup aside), and
    // at a clock a little faster than Fmax only the sum's registers are late.
    let latest = r.endpoints.iter().map(|e| e.arrival_ns).fold(0.0, f64::max);
    assert_eq!(r.endpoints.len(), 64, "{:?}", r.endpoints);
    assert!(
        (latest - 1000.0 / fmax).abs() < 0.3,
        "latest arrival {latest} ns, Fmax {fmax} MHz"
    );
    let late = late_groups(&r.endpoints, 0.9 * 1000.0 / fmax);
    assert!(
        !late.is_empty() && late.iter().all(|g| g.register.starts_with('s')),
        "{late:?}"
    );
    assert!(late_groups(&r.endpoints, latest).is_empty());
    // The sum's registers: its carry chain entered on the operands (a level) and the sum (a
    // level), the ripple between them free; the operands' registers straight from the ports.
    let text = std::fs::read_to_string(dir.join("collwire_add64.json")).expect("netlist");
    let eps = endpoints(&serde_json::from_str(&text).unwrap(), "collwire_add64").unwrap();
    let data: Vec<_> = eps.iter().filter(|e| e.port == "DI").collect();
    assert_eq!(data.len(), 192, "{eps:?}");
    let sum: Vec<_> = data
        .iter()
        .filter(|e| register_of(&e.to).starts_with('s'))
        .collect();
    assert_eq!(sum.len(), 64, "{sum:?}");
    assert_eq!(sum.iter().map(|e| e.levels).max(), Some(2), "{sum:?}");
    assert!(
        sum.iter()
            .all(|e| e.levels >= 1 && register_of(&e.from).starts_with('r'))
    );
    assert!(data.iter().filter(|e| e.levels == 0).count() >= 128);
    std::fs::remove_dir_all(&dir).ok();
}

//! A check on emitted Verilog that no external tool makes: **no signal that crosses into another
//! block is assigned twice in one evaluation.**
//!
//! rust-hdl turns each block's `update()` into one `always @(*)` of blocking assignments. An
//! event-driven simulator (Icarus, Questa, Vivado's xsim) wakes every block that reads a signal
//! on each change of it, even a transient one inside another block's evaluation. A parent that
//! writes a child's input as a default and then overrides it, while the child does the same to
//! an output the parent reads, wakes the two blocks in turn forever: the simulation never leaves
//! its time step. Verilator evaluates differently and only warns (UNOPTFLAT).
//!
//! The rule: a module's output, or a child's input whose module has combinational logic, gets at
//! most one assignment on any path through the block (`if`/`else` arms and `case` items each
//! assign once). A value chosen by default-then-override goes through a `Signal<Local>`, which
//! no other block reads, and is assigned to the crossing signal once.
//!
//! Every module of every design is checked, rust-hdl's widgets included (its FIFO broke the rule
//! in its read and write logic; `collwire_hdl::fifo` replaces it). The whole board also runs in Icarus
//! in CI (`testbench/tests/icarus_board.rs`).

use std::collections::{HashMap, HashSet};

/// One module of rust-hdl's Verilog, as far as the check needs it.
#[derive(Default)]
struct Module {
    outputs: HashSet<String>,
    /// Instance name → module name.
    instances: HashMap<String, String>,
    /// `(indent, target)` of every blocking assignment in the `always @(*)` block, in order.
    assignments: Vec<(usize, String)>,
    has_comb: bool,
}

fn parse(verilog: &str) -> Vec<(String, Module)> {
    let mut modules = Vec::new();
    let mut current: Option<(String, Module)> = None;
    let mut in_comb = false;
    for line in verilog.lines() {
        if let Some(rest) = line.strip_prefix("module ") {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            current = Some((name, Module::default()));
            in_comb = false;
            continue;
        }
        let Some((_, m)) = current.as_mut() else {
            continue;
        };
        if line.starts_with("endmodule") {
            modules.push(current.take().unwrap());
            continue;
        }
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if indent == 4 && trimmed.starts_with("always @(*) begin") {
            in_comb = true;
            m.has_comb = true;
            continue;
        }
        if in_comb {
            if indent == 4 && trimmed.starts_with("end") {
                in_comb = false;
            } else if let Some((target, _)) = trimmed.split_once(" = ")
                && !target.contains(' ')
            {
                m.assignments.push((indent, target.to_string()));
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("output reg ") {
            if let Some(name) = rest.trim_end_matches(';').split_whitespace().last() {
                m.outputs.insert(name.to_string());
            }
        } else if indent == 4
            && trimmed.ends_with('(')
            && let Some((ty, inst)) = trimmed.trim_end_matches('(').split_once(' ')
            && !ty.contains(['=', ';'])
            && !inst.contains(' ')
        {
            m.instances.insert(inst.to_string(), ty.to_string());
        }
    }
    modules
}

/// Every `module: signal` of `verilog` whose signal crosses into another block (an output, or
/// the input of a child with combinational logic) and is assigned again after an assignment on
/// every path (a default then an override). Empty when the rule holds.
pub fn reassigned_crossings(verilog: &str) -> Vec<String> {
    let modules = parse(verilog);
    let comb: HashSet<&str> = modules
        .iter()
        .filter(|(_, m)| m.has_comb)
        .map(|(n, _)| n.as_str())
        .collect();
    let mut found = Vec::new();
    for (name, m) in &modules {
        let body_indent = m.assignments.iter().map(|(i, _)| *i).min().unwrap_or(0);
        let mut unconditional = HashSet::new();
        let mut reported = HashSet::new();
        for (indent, target) in &m.assignments {
            if unconditional.contains(target.as_str()) && reported.insert(target.clone()) {
                // A child's input is `instance$port`; the instance of an array of children
                // has the index in its name (`ctx_is$0`), so every prefix ending before a `$`
                // is tried.
                let crosses = m.outputs.contains(target)
                    || target.match_indices('$').any(|(at, _)| {
                        m.instances
                            .get(&target[..at])
                            .is_some_and(|ty| comb.contains(ty.as_str()))
                    });
                if crosses {
                    found.push(format!("{name}: {target}"));
                }
            }
            if *indent == body_indent {
                unconditional.insert(target.as_str());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
module top(a, y);
    input wire  a;
    output reg  y;
    reg  c$x;
    reg  local;
    always @(*) begin
        y = 1'b0;
        local = 1'b0;
        if (a) begin
            y = 1'b1;
            local = 1'b1;
        end
        if (a) begin
            c$x = 1'b1;
        end
        else begin
            c$x = 1'b0;
        end
    end
    top$c c(
        .x(c$x)
    );
endmodule // top
module top$c(x);
    input wire  x;
    reg  z;
    always @(*) begin
        z = x;
    end
endmodule // top$c
";

    #[test]
    fn a_default_then_override_of_an_output_is_found() {
        // `y` is reported; `local` stays inside the block; `c$x` is assigned once per path.
        assert_eq!(reassigned_crossings(SAMPLE), vec!["top: y".to_string()]);
    }

    #[test]
    fn a_child_input_is_found_only_when_the_child_has_combinational_logic() {
        let twice = SAMPLE.replace(
            "        if (a) begin\n            c$x = 1'b1;",
            "        c$x = 1'b0;\n        if (a) begin\n            c$x = 1'b1;",
        );
        assert_eq!(
            reassigned_crossings(&twice),
            vec!["top: y".to_string(), "top: c$x".to_string()]
        );
        let registered = twice.replace(
            "always @(*) begin\n        z = x;",
            "always @(posedge x) begin\n        z <= x;",
        );
        assert_eq!(
            reassigned_crossings(&registered),
            vec!["top: y".to_string()]
        );
    }

    #[test]
    fn a_child_in_an_array_of_children_is_found_too() {
        // rust-hdl names the children of an array `c$0`, `c$1`, …: the input `c$0$x`.
        let twice = SAMPLE
            .replace(
                "        if (a) begin\n            c$x = 1'b1;",
                "        c$0$x = 1'b0;\n        if (a) begin\n            c$0$x = 1'b1;",
            )
            .replace("c$x = 1'b0;", "c$0$x = 1'b0;")
            .replace("    top$c c(", "    top$c c$0(");
        assert_eq!(
            reassigned_crossings(&twice),
            vec!["top: y".to_string(), "top: c$0$x".to_string()]
        );
    }
}

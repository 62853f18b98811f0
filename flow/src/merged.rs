//! Registers that synthesis merged into one: which of the design's registers share their
//! flip-flops after Yosys's optimisation.
//!
//! Yosys merges two flip-flops with the same inputs (`opt_merge`), after simplifying the logic
//! in front of them. Usually that is welcome (two pipeline registers that hold the same word),
//! but a register written as a second copy of another — to split a fan-out, or to keep a
//! block RAM's write register apart from a reader's — is then gone, and a change built on it
//! changes nothing. rust-hdl's `DFFWithInit` stores `q` XOR its power-on value, so a copy of
//! `x` inverted with a power-on value of all ones stores exactly `x`'s bits: the CFE's `cur_n`
//! was such a copy from 2728133 to ed039ed, merged into `cur`, and no `cur_n` was left in any
//! netlist (docs/timing.md, 2026-12-01).
//!
//! This reads the netlist [`crate::pnr::synth_ecp5_registers`] writes (flip-flops mapped, LUTs
//! not yet: the design's wire names are still there) and, for every flip-flop, the names of the
//! register outputs on its `Q` net (a rust-hdl register's output is `<name>.q` or `<name>$q`;
//! `DFFWithInit`'s inner one `<name>.dff.q`). A net with two register names is a merge.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::{Context, Result};
use serde_json::Value;

/// Registers whose flip-flops Yosys merged, and how many flip-flops they share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    pub registers: Vec<String>,
    pub bits: usize,
}

/// A rust-hdl register's name from the name of its output wire (`r.q`, `r$q`, `r.dff.q`).
fn register_name(wire: &str) -> Option<&str> {
    let base = wire
        .strip_suffix(".q")
        .or_else(|| wire.strip_suffix("$q"))?;
    Some(base.strip_suffix(".dff").unwrap_or(base))
}

/// The merged registers of `top`, the most shared flip-flops first.
pub fn merged_registers(netlist: &Value, top: &str) -> Result<Vec<Merged>> {
    let module = netlist["modules"]
        .get(top)
        .with_context(|| format!("no module {top} in the netlist"))?;
    let mut names: HashMap<u64, BTreeSet<&str>> = HashMap::new();
    for (wire, w) in module["netnames"].as_object().into_iter().flatten() {
        let Some(reg) = register_name(wire) else {
            continue;
        };
        for b in w["bits"].as_array().into_iter().flatten() {
            if let Some(b) = b.as_u64() {
                names.entry(b).or_default().insert(reg);
            }
        }
    }
    let mut groups: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    for cell in module["cells"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, c)| c)
    {
        let kind = cell["type"].as_str().unwrap_or_default();
        if !(kind.contains("FF") || kind.contains("DFF")) {
            continue;
        }
        for b in cell["connections"]["Q"].as_array().into_iter().flatten() {
            let Some(regs) = b.as_u64().and_then(|b| names.get(&b)) else {
                continue;
            };
            if regs.len() > 1 {
                *groups
                    .entry(regs.iter().map(|r| r.to_string()).collect())
                    .or_default() += 1;
            }
        }
    }
    let mut out: Vec<Merged> = groups
        .into_iter()
        .map(|(registers, bits)| Merged { registers, bits })
        .collect();
    out.sort_by(|a, b| b.bits.cmp(&a.bits).then(a.registers.cmp(&b.registers)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flip_flop_with_two_register_names_is_a_merge() {
        // `cur` and `cur_n` (its inner flip-flop) share bits 2 and 3; `r` has its own (4).
        let json = serde_json::json!({"modules": {"top": {
            "netnames": {
                "cur.q": {"bits": [2, 3]},
                "cur_n.dff.q": {"bits": [2, 3]},
                "contexts.cur": {"bits": [2, 3]},
                "r$q": {"bits": [4]},
                "r.d": {"bits": [2]}
            },
            "cells": {
                "ff0": {"type": "TRELLIS_FF", "connections": {"Q": [2], "DI": [9]}},
                "ff1": {"type": "TRELLIS_FF", "connections": {"Q": [3], "DI": [10]}},
                "ff2": {"type": "TRELLIS_FF", "connections": {"Q": [4], "DI": [2]}},
                "lut": {"type": "LUT4", "connections": {"Z": [9]}}
            }
        }}});
        let m = merged_registers(&json, "top").unwrap();
        assert_eq!(
            m,
            vec![Merged {
                registers: vec!["cur".into(), "cur_n".into()],
                bits: 2
            }]
        );
        assert!(merged_registers(&json, "other").is_err());
    }
}

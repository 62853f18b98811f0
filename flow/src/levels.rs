//! Logic levels at every endpoint of a mapped ECP5 netlist: how many paths are deep, not only
//! the deepest.
//!
//! Place and route reports one critical path per run, and a board's Fmax moves by several MHz
//! from one placement to another; since 2026-11-30 every board64 run has ended on a different
//! path of 7–9 cells. This counts, from the netlist `synth_ecp5` writes (Yosys JSON, the one
//! [`crate::pnr::synth_ecp5`] hands to nextpnr), the logic levels in front of **every**
//! endpoint — a flip-flop's data, enable or set/reset input, a block RAM's input, a
//! distributed RAM's write port — with every storage cell cut. It is deterministic (no
//! placement), so it shows progress that one seed's Fmax hides, and it names the source and
//! end registers of each deep endpoint: a work list.
//!
//! A level is one cell on the path: `LUT4`, `PFUMX`, `L6MUX21`, a `CCU2C` entered on its
//! operands (its carry ripple to the next `CCU2C` adds none: it is fast), and a distributed
//! RAM's read (`TRELLIS_DPR16X4` from `RAD` to `DO`). Sources: flip-flops (`TRELLIS_FF`),
//! block RAM (`DP16KD`) and multiplier outputs, the design's inputs. At about 0.8 ns a level
//! on the ECP5 proxy (a LUT and its net, [`crate::pnr`]), 150 MHz leaves room for 7.

use std::collections::{BTreeMap, HashMap};

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// One endpoint: its logic levels, the storage cell (or input) its deepest path starts at,
/// the cell and port it ends at, and the net bit it reads ([`Levels::path`] traces it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub levels: usize,
    pub from: String,
    pub to: String,
    pub port: String,
    pub bit: u64,
}

/// One level of a path: the cell, its type, and the name of the net it drives (a name Yosys
/// kept from the design where there is one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub cell: String,
    pub cell_type: String,
    pub net: String,
}

/// The level one pin adds, and the input pins it is reached from, for a combinational cell
/// driving `out`; `None` for a storage cell (its outputs start paths).
fn through(cell_type: &str, out: &str) -> Option<(usize, &'static [&'static str])> {
    const LUT: &[&str] = &["A", "B", "C", "D"];
    const MUX: &[&str] = &["ALUT", "BLUT", "C0"];
    const L6: &[&str] = &["D0", "D1", "SD"];
    const RAM_READ: &[&str] = &["RAD"];
    const CARRY_ALL: &[&str] = &["A0", "B0", "C0", "D0", "A1", "B1", "C1", "D1", "CIN"];
    match (cell_type, out) {
        ("LUT4", _) => Some((1, LUT)),
        ("PFUMX", _) => Some((1, MUX)),
        ("L6MUX21", _) => Some((1, L6)),
        ("TRELLIS_DPR16X4", _) => Some((1, RAM_READ)),
        // The ripple from `CIN` adds no level, an operand one.
        ("CCU2C", "COUT") => Some((0, CARRY_ALL)),
        ("CCU2C", _) => Some((1, CARRY_ALL)),
        _ => None,
    }
}

/// The input ports of a storage cell that end paths.
fn ends(cell_type: &str, port: &str) -> bool {
    match cell_type {
        "TRELLIS_FF" => matches!(port, "DI" | "CE" | "LSR"),
        "TRELLIS_DPR16X4" => port.starts_with("WAD") || port.starts_with("DI") || port == "WRE",
        "DP16KD" | "MULT18X18D" => !port.starts_with("CLK"),
        _ => false,
    }
}

/// A cell's connection: port, whether it is an output, its net bits.
type Conn<'a> = (&'a str, bool, Vec<u64>);

struct Netlist<'a> {
    /// Cell name, type, and its connections.
    cells: Vec<(&'a str, &'a str, Vec<Conn<'a>>)>,
    /// Net bit → the cell and output port driving it.
    driver: HashMap<u64, (usize, &'a str)>,
    /// Net bit → a name of its net (a design name before one Yosys made up).
    names: HashMap<u64, String>,
}

/// What is known of a net bit: its levels, the source of its deepest path, and the input bit
/// of its driver that path comes through.
type Memo = HashMap<u64, (usize, String, Option<u64>)>;

impl<'a> Netlist<'a> {
    fn new(module: &'a Value) -> Result<Self> {
        let cells_json = module["cells"]
            .as_object()
            .context("netlist module without cells")?;
        let mut cells = Vec::new();
        let mut driver = HashMap::new();
        for (name, cell) in cells_json {
            let ty = cell["type"].as_str().context("cell without type")?;
            if ty.starts_with('$') {
                continue; // `$scopeinfo` and the like: no logic
            }
            let mut conns = Vec::new();
            let dirs = &cell["port_directions"];
            for (port, bits) in cell["connections"]
                .as_object()
                .context("cell without connections")?
            {
                let out = dirs[port.as_str()].as_str() == Some("output");
                // Constants ("0", "1", "x") are strings: no net.
                let bits: Vec<u64> = bits
                    .as_array()
                    .context("connection is not a list")?
                    .iter()
                    .filter_map(Value::as_u64)
                    .collect();
                if out {
                    for &b in &bits {
                        driver.insert(b, (cells.len(), port.as_str()));
                    }
                }
                conns.push((port.as_str(), out, bits));
            }
            cells.push((name.as_str(), ty, conns));
        }
        let mut names: HashMap<u64, (bool, String)> = HashMap::new();
        if let Some(nets) = module["netnames"].as_object() {
            for (name, net) in nets {
                let hidden = net["hide_name"].as_u64() == Some(1);
                let bits = net["bits"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                let wide = bits.len() > 1;
                for (i, b) in bits.iter().enumerate() {
                    let Some(b) = b.as_u64() else { continue };
                    let better = match names.get(&b) {
                        None => true,
                        Some((h, n)) => (*h && !hidden) || (*h == hidden && name.len() < n.len()),
                    };
                    if better {
                        let n = if wide {
                            format!("{name}[{i}]")
                        } else {
                            name.clone()
                        };
                        names.insert(b, (hidden, n));
                    }
                }
            }
        }
        let names = names.into_iter().map(|(b, (_, n))| (b, n)).collect();
        Ok(Self {
            cells,
            driver,
            names,
        })
    }

    /// Levels in front of net bit `bit`, and the source its deepest path starts at.
    fn level(&self, bit: u64, memo: &mut Memo) -> (usize, String) {
        if let Some((l, src, _)) = memo.get(&bit) {
            return (*l, src.clone());
        }
        let Some(&(ci, out)) = self.driver.get(&bit) else {
            let l = (0, format!("input bit {bit}"));
            memo.insert(bit, (l.0, l.1.clone(), None));
            return l;
        };
        let (name, ty, conns) = &self.cells[ci];
        let Some((add, from)) = through(ty, out) else {
            let l = (0, (*name).to_string());
            memo.insert(bit, (l.0, l.1.clone(), None));
            return l;
        };
        // A combinational loop (the flow reports those elsewhere) ends here.
        memo.insert(bit, (0, format!("loop at {name}"), None));
        let mut best: Option<(usize, String, Option<u64>)> = None;
        for (port, is_out, bits) in conns {
            if *is_out || !from.contains(port) {
                continue;
            }
            for &b in bits {
                let (l, src) = self.level(b, memo);
                // A carry chain entered on its operands costs the level of that CCU2C.
                let l = if *ty == "CCU2C" && out == "COUT" && *port != "CIN" {
                    l + 1
                } else {
                    l + add
                };
                if best.as_ref().is_none_or(|(bl, _, _)| l > *bl) {
                    best = Some((l, src, Some(b)));
                }
            }
        }
        let l = best.unwrap_or((add, (*name).to_string(), None));
        memo.insert(bit, l.clone());
        (l.0, l.1)
    }

    /// The cells of the deepest path into net bit `bit` (after [`Netlist::level`] on it),
    /// source side first; the ripple of a carry chain is one step per `CCU2C` as it is.
    fn path(&self, bit: u64, memo: &Memo) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut at = Some(bit);
        while let Some(b) = at {
            if !seen.insert(b) {
                break; // around a loop
            }
            let Some(&(ci, _)) = self.driver.get(&b) else {
                break;
            };
            let (name, ty, _) = &self.cells[ci];
            let Some((_, _, via)) = memo.get(&b) else {
                break;
            };
            if via.is_none() && through(ty, "").is_none() {
                break; // the source's storage cell
            }
            steps.push(Step {
                cell: (*name).to_string(),
                cell_type: (*ty).to_string(),
                net: self
                    .names
                    .get(&b)
                    .cloned()
                    .unwrap_or_else(|| format!("bit {b}")),
            });
            at = *via;
        }
        steps.reverse();
        steps
    }
}

/// A netlist's logic levels, with what is needed to trace an endpoint's deepest path.
pub struct Levels<'a> {
    net: Netlist<'a>,
    memo: Memo,
}

impl<'a> Levels<'a> {
    /// Module `top` of the Yosys JSON netlist `netlist`.
    pub fn new(netlist: &'a Value, top: &str) -> Result<Self> {
        let module = &netlist["modules"][top];
        if module.is_null() {
            bail!("no module {top} in the netlist");
        }
        Ok(Self {
            net: Netlist::new(module)?,
            memo: HashMap::new(),
        })
    }

    /// Every endpoint, with its logic levels.
    pub fn endpoints(&mut self) -> Vec<Endpoint> {
        let mut out = Vec::new();
        for (name, ty, conns) in &self.net.cells {
            for (port, is_out, bits) in conns {
                if *is_out || !ends(ty, port) {
                    continue;
                }
                for &b in bits {
                    let (levels, from) = self.net.level(b, &mut self.memo);
                    out.push(Endpoint {
                        levels,
                        from,
                        to: (*name).to_string(),
                        port: (*port).to_string(),
                        bit: b,
                    });
                }
            }
        }
        out
    }

    /// The cells of an endpoint's deepest path, source side first (after [`Levels::endpoints`]).
    pub fn path(&self, endpoint: &Endpoint) -> Vec<Step> {
        self.net.path(endpoint.bit, &self.memo)
    }
}

/// Every endpoint of module `top` of the Yosys JSON netlist `netlist`, with its logic levels.
pub fn endpoints(netlist: &Value, top: &str) -> Result<Vec<Endpoint>> {
    Ok(Levels::new(netlist, top)?.endpoints())
}

/// Endpoints per number of levels.
pub fn histogram(eps: &[Endpoint]) -> BTreeMap<usize, usize> {
    let mut h = BTreeMap::new();
    for e in eps {
        *h.entry(e.levels).or_insert(0) += 1;
    }
    h
}

/// The register a mapped cell belongs to: its hierarchical name up to the first `$` or
/// `_TRELLIS` / `.q_` suffix Yosys and the mapper add (`cfe.uop_r$q_TRELLIS_FF_Q_4` →
/// `cfe.uop_r`).
pub fn register_of(cell: &str) -> &str {
    let mut end = cell.len();
    for pat in ["$", "_TRELLIS", ".q_"] {
        if let Some(i) = cell.find(pat) {
            end = end.min(i);
        }
    }
    &cell[..end]
}

/// Deep endpoints from one source register to one end register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The deepest endpoint's levels.
    pub levels: usize,
    /// Endpoints in the group.
    pub count: usize,
    pub from: String,
    pub to: String,
    /// The index in the endpoint list of the deepest (the first found).
    pub deepest: usize,
}

/// Endpoints of at least `min` levels grouped by (source register, end register), deepest
/// groups first, then the larger.
pub fn work_list(eps: &[Endpoint], min: usize) -> Vec<Group> {
    let mut groups: BTreeMap<(String, String), Group> = BTreeMap::new();
    for (i, e) in eps.iter().enumerate().filter(|(_, e)| e.levels >= min) {
        let (from, to) = (register_of(&e.from), register_of(&e.to));
        let g = groups
            .entry((from.to_string(), to.to_string()))
            .or_insert_with(|| Group {
                levels: e.levels,
                count: 0,
                from: from.to_string(),
                to: to.to_string(),
                deepest: i,
            });
        if e.levels > g.levels {
            g.levels = e.levels;
            g.deepest = i;
        }
        g.count += 1;
    }
    let mut list: Vec<_> = groups.into_values().collect();
    list.sort_by(|a, b| {
        b.levels
            .cmp(&a.levels)
            .then(b.count.cmp(&a.count))
            .then(a.from.cmp(&b.from))
    });
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cell(ty: &str, conns: &[(&str, &str, Vec<u64>)]) -> Value {
        let mut c = serde_json::Map::new();
        let mut d = serde_json::Map::new();
        for (p, dir, bits) in conns {
            c.insert((*p).into(), json!(bits));
            d.insert((*p).into(), json!(dir));
        }
        json!({"type": ty, "connections": c, "port_directions": d})
    }

    /// ff_a → LUT → LUT → ff_b.DI; ff_a → CCU2C (operands) → CCU2C (carry) → CCU2C (sum) →
    /// ff_c.DI; a loop of two LUTs into ff_d.CE; an input straight into ff_e.LSR.
    fn netlist() -> Value {
        json!({"modules": {"top": {"cells": {
            "ff_a": cell("TRELLIS_FF", &[("Q", "output", vec![10]), ("DI", "input", vec![2])]),
            "u.l1$x": cell("LUT4", &[("A", "input", vec![10]), ("Z", "output", vec![11])]),
            "u.l2": cell("LUT4", &[("B", "input", vec![11]), ("C", "input", vec![10]), ("Z", "output", vec![12])]),
            "u.ff_b$q_TRELLIS_FF_Q": cell("TRELLIS_FF", &[("DI", "input", vec![12]), ("Q", "output", vec![13])]),
            "c0": cell("CCU2C", &[("A0", "input", vec![10]), ("COUT", "output", vec![20]), ("S0", "output", vec![21])]),
            "c1": cell("CCU2C", &[("CIN", "input", vec![20]), ("COUT", "output", vec![22])]),
            "c2": cell("CCU2C", &[("CIN", "input", vec![22]), ("S1", "output", vec![23])]),
            "ff_c": cell("TRELLIS_FF", &[("DI", "input", vec![23])]),
            "loop1": cell("LUT4", &[("A", "input", vec![31]), ("Z", "output", vec![30])]),
            "loop2": cell("LUT4", &[("A", "input", vec![30]), ("Z", "output", vec![31])]),
            "ff_d": cell("TRELLIS_FF", &[("CE", "input", vec![31]), ("DI", "input", vec![13])]),
            "ff_e": cell("TRELLIS_FF", &[("LSR", "input", vec![2])]),
            "scope": cell("$scopeinfo", &[]),
        }, "netnames": {
            "$abc$1": {"bits": [11], "hide_name": 1},
            "u.mid": {"bits": [11], "hide_name": 0},
            "u.wide": {"bits": [40, 12], "hide_name": 0},
        }}}})
    }

    fn find<'a>(eps: &'a [Endpoint], to: &str, port: &str) -> &'a Endpoint {
        eps.iter()
            .find(|e| e.to == to && e.port == port)
            .unwrap_or_else(|| panic!("no endpoint {to}.{port}"))
    }

    #[test]
    fn levels_count_luts_and_the_carry_chain_once_and_start_at_storage() {
        let n = netlist();
        let eps = endpoints(&n, "top").unwrap();
        let b = find(&eps, "u.ff_b$q_TRELLIS_FF_Q", "DI");
        assert_eq!((b.levels, b.from.as_str()), (2, "ff_a"));
        // Operands into c0 (1), the ripple through c1 (0), c2's sum (1).
        let c = find(&eps, "ff_c", "DI");
        assert_eq!((c.levels, c.from.as_str()), (2, "ff_a"));
        // A flip-flop's output starts a path: ff_b → ff_d is 0 levels.
        assert_eq!(find(&eps, "ff_d", "DI").levels, 0);
        // An input bit (2) is a source.
        assert_eq!(find(&eps, "ff_e", "LSR").levels, 0);
        // A loop ends without hanging: each of its LUTs counted once.
        assert_eq!(find(&eps, "ff_d", "CE").levels, 2);
        let h = histogram(&eps);
        assert_eq!(h.values().sum::<usize>(), eps.len());
        assert_eq!(h[&2], 3);
    }

    #[test]
    fn the_work_list_groups_by_register_deepest_first() {
        let n = netlist();
        let eps = endpoints(&n, "top").unwrap();
        let list = work_list(&eps, 2);
        assert_eq!(list[0].levels, 2);
        let g = list
            .iter()
            .find(|g| (g.from.as_str(), g.to.as_str()) == ("ff_a", "u.ff_b"))
            .unwrap();
        assert_eq!((g.levels, g.count), (2, 1));
        assert_eq!(eps[g.deepest].to, "u.ff_b$q_TRELLIS_FF_Q");
    }

    #[test]
    fn a_path_names_its_cells_and_nets_source_side_first() {
        let n = netlist();
        let mut lv = Levels::new(&n, "top").unwrap();
        let eps = lv.endpoints();
        let path = lv.path(find(&eps, "u.ff_b$q_TRELLIS_FF_Q", "DI"));
        let got: Vec<_> = path
            .iter()
            .map(|s| (s.cell.as_str(), s.cell_type.as_str(), s.net.as_str()))
            .collect();
        // The design's name before Yosys's, a bit of a wide net by its index.
        assert_eq!(
            got,
            [("u.l1$x", "LUT4", "u.mid"), ("u.l2", "LUT4", "u.wide[1]")]
        );
        // The carry chain: one step per CCU2C.
        assert_eq!(lv.path(find(&eps, "ff_c", "DI")).len(), 3);
        // A loop ends.
        assert_eq!(lv.path(find(&eps, "ff_d", "CE")).len(), 2);
        assert!(lv.path(find(&eps, "ff_e", "LSR")).is_empty());
        assert!(work_list(&eps, 3).is_empty());
        assert_eq!(register_of("cfe.uop_r$q_TRELLIS_FF_Q_4"), "cfe.uop_r");
        assert_eq!(register_of("cfe.keep_uop.q_TRELLIS_FF_Q"), "cfe.keep_uop");
        assert!(endpoints(&n, "nonesuch").is_err());
    }
}

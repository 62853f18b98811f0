//! Logic depth: a cheap timing guard that needs no place and route.
//!
//! [`crate::toolflow::synth_xc7`] maps a design to 7-series cells, cuts every storage cell
//! (flip-flops `FD*`, block and distributed RAM `RAM*`, shift registers `SRL*`) and reports
//! the longest chain of cells left (Yosys `ltp`): the worst register-to-register path, in cells.
//!
//! What a level costs: on a 7-series −1 part a LUT plus the net to the next cell is roughly
//! 0.5–0.7 ns, and a register-to-register path also pays clock-to-out and setup (about
//! 0.6 ns). Hence the rules of thumb [`TARGET_125MHZ`] (8 ns, ZedBoard) and
//! [`TARGET_200MHZ`] (5 ns, NetFPGA SUME, a −2/−3 part). A CARRY4 counts as one level here
//! although it adds only about 0.1 ns to a chain (a 64-bit add is 16 levels and runs above
//! 300 MHz), so the targets are conservative for adder-heavy paths; the post-route figure
//! (issue 15) is the real measure. This one catches a path that grew.
//!
//! [`BUDGET`] holds every block's allowed depth. It starts at the depth each block had when the
//! guard was added (2026-11-23, commit after 6992b17), well above the targets, and is lowered
//! as blocks are re-pipelined: a change that deepens a block fails `tests/synth.rs`
//! ([`check`]). That test synthesizes only the blocks that are not built into a larger one
//! (`emit::is_part_of_another`): a part's own budget is shown by the timing report but not
//! enforced (its paths are checked inside the larger block). `uop_decode`'s stood at 7 while
//! the report showed 10; it was set to the measured 10 on 2026-11-27. `output_queues256`'s
//! went 10 → 11 the same day with no change to its logic: `frame_fifo`'s new `room` port,
//! unused there, changed the netlist's names, and ABC mapped the same cone (a queue's read
//! pointer → `full` → `push` → `not_empty`) a level deeper. The CFE measured 13 after its
//! verdict was split in two (7b864f8) and 14 after `entry_composer` lost three unread
//! outputs (ca1015b), again with no change to its logic: its budget is 14 (it was 15). A
//! budget set to the level just measured can so fail on an unrelated change; the failure then
//! names the block, and `timing` shows its path. `context_table` went 18 → 13 later that day
//! (its key compares registered a clock ahead of the lookup: 12), one level above what it
//! measures, for that noise. The CFE's went 14 → 15 on 2026-11-29 when the running context's
//! `at_end` came to be selected by a one-hot `cur` (an OR of eight ANDs; board64's post-route
//! worst path before, on two seeds): the deepest path then ran from the micro-op register
//! through the step's decode into `ins_pend_s` (15 cells, four of them MUXF7/MUXF8), not
//! through the select, and post-route board64 went 128.6 / 131.6 → 133.2 / 132.7 MHz.
//! The splitters went 5 → 6 on 2026-12-03, when the payload word's logic came out of the
//! `Payload` arm into one block that the 256-bit splitter also runs on a stream command's
//! clock (`early_first`, the engine hop 24 → 23): the same logic at 64 bits, with the state's
//! select in front of it as a separate multiplexer; 6 is within the 7 levels of 200 MHz.
//! `offload_splitter256` went 6 → 7 on 2026-12-04 (4270e99): `held`'s load enable became a
//! flip-flop of its own, loaded with the state's next value decoded (`held_load`, a level
//! after the state's logic; board64's worst path on seed 5 had run through the decode that
//! it replaces). 7 is the 200 MHz target; the 64-bit splitter stays at 6, and the 256-bit one
//! alone places at 255.1 MHz (ECP5 proxy).

/// Levels a path may have at 125 MHz (ZedBoard, 8 ns).
pub const TARGET_125MHZ: usize = 12;
/// Levels a path may have at 200 MHz (NetFPGA SUME, 5 ns).
pub const TARGET_200MHZ: usize = 7;

/// Per design (the names of `collwire_hdl::emit::designs`): the deepest path it may have.
/// Measured with every storage cell cut (Yosys of Debian bookworm, `synth_xilinx -family xc7`).
pub const BUDGET: &[(&str, usize)] = &[
    ("collwire_fp_add64", 19),
    ("collwire_fp_add32", 11),
    ("collwire_offload_classifier", 16),
    ("collwire_header_builder", 13),
    ("collwire_header_fields", 0),
    ("collwire_cfe_config", 2),
    ("collwire_context_table", 13),
    ("collwire_key_history", 12),
    ("collwire_uop_decode", 10),
    ("collwire_arrival_verdict", 8),
    ("collwire_entry_composer", 13),
    ("collwire_statistics", 9),
    ("collwire_time_base", 13),
    ("collwire_reg_fifo4", 5),
    ("collwire_frame_fifo", 4),
    ("collwire_bypass_fifo", 5),
    ("collwire_cfe", 15),
    ("collwire_cipe_alu64", 19),
    ("collwire_header_capture64", 12),
    ("collwire_axis_arbiter64", 10),
    ("collwire_axis_arbiter_in64", 6),
    ("collwire_axis_register64", 1),
    ("collwire_frame_router64", 15),
    ("collwire_output_queues64", 9),
    ("collwire_cipe64", 20),
    ("collwire_frame_builder64", 9),
    ("collwire_offload_splitter64", 6),
    ("collwire_cipe_alu256", 19),
    ("collwire_header_capture256", 18),
    ("collwire_axis_arbiter256", 10),
    ("collwire_axis_arbiter_in256", 6),
    ("collwire_axis_register256", 1),
    ("collwire_frame_router256", 16),
    ("collwire_output_queues256", 11),
    ("collwire_cipe256", 20),
    ("collwire_frame_builder256", 9),
    ("collwire_offload_splitter256", 7),
];

/// The budget of `design`, if it has one.
pub fn budget(design: &str) -> Option<usize> {
    BUDGET
        .iter()
        .find(|(name, _)| *name == design)
        .map(|&(_, b)| b)
}

/// Whether `design`'s measured `depth` is within its budget.
pub fn check(design: &str, depth: usize) -> Result<(), String> {
    match budget(design) {
        None => Err(format!(
            "{design}: no depth budget (add it to collwire_flow::depth::BUDGET)"
        )),
        Some(b) if depth > b => Err(format!(
            "{design}: logic depth {depth} exceeds its budget {b} (target {TARGET_125MHZ} \
             levels at 125 MHz, {TARGET_200MHZ} at 200 MHz)"
        )),
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deeper_path_fails_and_an_unknown_design_fails() {
        let (name, b) = BUDGET[0];
        assert!(check(name, b).is_ok());
        assert!(check(name, b + 1).unwrap_err().contains("exceeds"));
        assert!(
            check("collwire_nonesuch", 1)
                .unwrap_err()
                .contains("no depth budget")
        );
    }

    #[test]
    fn every_design_has_one_budget() {
        let mut names: Vec<_> = BUDGET.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BUDGET.len());
    }
}

//! # collwire-hdl — the hardware, in rust-hdl
//!
//! Hardware only: what configures it (the microcode compiler, configuration images, route
//! tables) is the control plane, `collwire-control`, which builds its words from the formats
//! defined here. The tools run on the emitted Verilog (lint, Icarus, Yosys) are
//! `collwire-flow`.
//!
//! * [`axis`]: the bus convention (AXI-Stream, tuser port masks, port numbering).
//! * [`axis_arbiter`]: round-robin input arbiter, whole frames.
//! * [`cfe`]: the CFE's state machine; its blocks [`cfe_config`] (configuration memories),
//!   [`arrival_verdict`] (what to do with an arrival; fields by [`header_fields`]),
//!   [`context_table`] (segments in flight, history), [`uop_decode`] (one micro-op step) and
//!   [`entry_composer`] (the entry of every frame it sends).
//! * [`cipe`]: the CIPE — instruction word, packet buffers in block RAM, ALU at II = 1.
//! * [`cipe_alu`]: the CIPE's streaming lane ALU, every (datatype, op), II = 1, 64 and 256 bits.
//! * [`header_builder`]: the 64-byte Ethernet/IPv4/UDP/offload header of every frame the engine sends.
//! * [`header_capture`]: offload parser stage 1 — first 64 frame bytes and frame length, 64/256.
//! * [`offload_classifier`]: offload parser stage 2 — pass-through / offload / malformed, fields.
//! * [`frame_builder`]: header entries from the CFE + result beats from the CIPE → frames.
//! * [`offload_candidate`]: the candidate rule (which frames the parser looks at), shared.
//! * [`frame_router`]: cut-through pass-through, the engine's offload buffer (cut through to
//!   the engine, a frame bad at its tail marked on its last beat; dropped when full, never
//!   blocking the input), malformed/runt/giant/bad frames dropped and counted.
//! * [`output_queues`]: per-port queues with multicast, frame mode, back-pressure.
//! * [`frame_fifo`]: the board's one FIFO (block RAM + pointers, a reset, frame mode or
//!   cut-through), its RAM [`sdp_ram`] (the read address registered in a LUT RAM);
//!   [`fifo`]: it as a plain FIFO; [`bypass_fifo`]: it with a register in front
//!   of its read side (a word written into it empty is the head a clock later);
//!   [`axis_fifo`]: it on the bus; [`reg_fifo`]: four entries in flip-flops.
//! * [`fp_add`]: pipelined IEEE 754 binary32/binary64 adders for the CIPE's floating-point SUM.
//! * [`leading_zeros`]: a 64-bit leading-zero count as a shallow tree (the adders' normaliser).
//! * [`time_base`]: the tick that ages open contexts (a pin, or a prescaler of the clock).
//! * [`emit`]: Verilog with meaningful module names, and the list of designs.

pub mod arrival_verdict;
pub mod axis;
pub mod axis_arbiter;
pub mod axis_fifo;
pub mod axis_register;
pub mod board;
pub mod bypass_fifo;
pub mod cfe;
pub mod cfe_config;
pub mod cipe;
pub mod cipe_alu;
pub mod context_table;
pub mod emit;
pub mod entry_composer;
pub mod fifo;
pub mod fp_add;
pub mod frame_builder;
pub mod frame_fifo;
pub mod frame_router;
pub mod header_builder;
pub mod header_capture;
pub mod header_fields;
pub mod key_history;
pub mod leading_zeros;
pub mod offload_candidate;
pub mod offload_classifier;
pub mod offload_splitter;
pub mod output_queues;
pub mod place;
pub mod reg_fifo;
pub mod route_table;
pub mod sdp_ram;
pub mod statistics;
pub mod time_base;
pub mod uop_decode;

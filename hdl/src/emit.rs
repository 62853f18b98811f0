//! Verilog emission with meaningful module names.
//!
//! rust-hdl always names the top module `top` and its children `top$child`; two designs could
//! not share one compile, and `top` says nothing in a synthesis report. Every design leaves this
//! crate renamed to `collwire_<what>`.

use rust_hdl::prelude::*;

use crate::arrival_verdict::ArrivalVerdict;
use crate::axis_arbiter::{AxisArbiter64, AxisArbiter256};
use crate::axis_register::{AxisRegister64, AxisRegister256};
use crate::board::{Board64, Board256};
use crate::bypass_fifo::BypassFifo;
use crate::cfe::Cfe;
use crate::cfe_config::CfeConfig;
use crate::cipe::{Cipe64, Cipe256};
use crate::cipe_alu::{CipeAlu64, CipeAlu256};
use crate::context_table::ContextTable;
use crate::entry_composer::EntryComposer;
use crate::fp_add::{FpAdd32, FpAdd64};
use crate::frame_builder::{FrameBuilder64, FrameBuilder256};
use crate::frame_fifo::FrameFifo;
use crate::frame_router::{FrameRouter64, FrameRouter256};
use crate::header_builder::HeaderBuilder;
use crate::header_capture::{HeaderCapture64, HeaderCapture256};
use crate::header_fields::HeaderFields;
use crate::key_history::KeyHistory;
use crate::offload_classifier::OffloadClassifier;
use crate::offload_splitter::{OffloadSplitter64, OffloadSplitter256};
use crate::output_queues::{OutputQueues64, OutputQueues256};
use crate::reg_fifo::RegFifo4;
use crate::statistics::Statistics;
use crate::time_base::TimeBase;
use crate::uop_decode::UopDecode;

/// Verilog of `block` with the top module (and its children's prefix) renamed to `name`, and
/// the top module's structured ports renamed to plain identifiers: an array port (rust-hdl's
/// `s_axis_tdata$0`) becomes `s_axis_tdata_0`, an interface field (`s_axis$tdata`)
/// `s_axis_tdata`, a field of an array of interfaces (`s_axis$0$tdata`) `s_axis_tdata_0` — the
/// index always last, so a port's signals group as in verilog-ethernet.
pub fn verilog<B: Block>(mut block: B, name: &str) -> String {
    block.connect_all();
    let text = generate_verilog(&block)
        .replace("module top(", &format!("module {name}("))
        .replace("endmodule // top\n", &format!("endmodule // {name}\n"))
        .replace("top$", &format!("{name}$"));
    let header = text
        .split_once(&format!("module {name}("))
        .and_then(|(_, rest)| rest.split_once(");"))
        .map(|(ports, _)| ports.to_string())
        .unwrap_or_default();
    let renames: std::collections::HashMap<&str, String> = header
        .split(',')
        .map(str::trim)
        .filter(|p| p.contains('$'))
        .map(|p| (p, plain_port_name(p)))
        .collect();
    // Whole identifiers only, so a port's name inside a longer wire name stays as it is.
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    while let Some(start) = rest.find(is_ident) {
        out.push_str(&rest[..start]);
        let len = rest[start..]
            .find(|c| !is_ident(c))
            .unwrap_or(rest.len() - start);
        let ident = &rest[start..start + len];
        out.push_str(renames.get(ident).map_or(ident, String::as_str));
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

/// `s_axis$0$tdata` → `s_axis_tdata_0`: the named parts joined by `_`, the indices after them.
fn plain_port_name(port: &str) -> String {
    let (indices, names): (Vec<&str>, Vec<&str>) = port
        .split('$')
        .partition(|part| part.chars().all(|c| c.is_ascii_digit()));
    names
        .into_iter()
        .chain(indices)
        .collect::<Vec<_>>()
        .join("_")
}

/// One emitted design: its module name and Verilog text.
pub struct Design {
    pub name: &'static str,
    pub verilog: String,
}

/// The two datapath targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusWidth {
    /// Zynq ZedBoard (xc7z020).
    W64,
    /// NetFPGA SUME (xc7vx690t).
    W256,
}

impl BusWidth {
    pub fn from_bits(bits: usize) -> Option<BusWidth> {
        match bits {
            64 => Some(BusWidth::W64),
            256 => Some(BusWidth::W256),
            _ => None,
        }
    }
    pub fn bits(self) -> usize {
        match self {
            BusWidth::W64 => 64,
            BusWidth::W256 => 256,
        }
    }
    /// The clock this width's board is built for (the timing target), in MHz.
    pub fn target_mhz(self) -> u32 {
        match self {
            BusWidth::W64 => 125,
            BusWidth::W256 => 200,
        }
    }
    /// The FPGA part this width targets.
    pub fn part(self) -> &'static str {
        match self {
            BusWidth::W64 => "xc7z020",
            BusWidth::W256 => "xc7vx690t",
        }
    }
}

fn design<B: Block>(block: B, name: &'static str) -> Design {
    Design {
        name,
        verilog: verilog(block, name),
    }
}

/// The designs that make up the datapath of one target.
pub fn designs_for(width: BusWidth) -> Vec<Design> {
    let mut all = vec![
        design(FpAdd64::default(), "collwire_fp_add64"),
        design(FpAdd32::default(), "collwire_fp_add32"),
        design(OffloadClassifier::default(), "collwire_offload_classifier"),
        design(HeaderBuilder::default(), "collwire_header_builder"),
        design(HeaderFields::default(), "collwire_header_fields"),
        design(CfeConfig::default(), "collwire_cfe_config"),
        design(ContextTable::default(), "collwire_context_table"),
        design(KeyHistory::default(), "collwire_key_history"),
        design(UopDecode::default(), "collwire_uop_decode"),
        design(ArrivalVerdict::new(8), "collwire_arrival_verdict"),
        design(EntryComposer::default(), "collwire_entry_composer"),
        design(Statistics::default(), "collwire_statistics"),
        design(TimeBase::default(), "collwire_time_base"),
        // The router's side-band FIFO (its class of each frame), one byte wide.
        design(RegFifo4::<Bits<8>>::default(), "collwire_reg_fifo4"),
        // The board's one FIFO (the router's buffers and every output queue stand on it),
        // one byte wide, eight words.
        design(FrameFifo::<Bits<8>, 3, 4>::default(), "collwire_frame_fifo"),
        // The same with its RAM's write port registered (the AXI-Stream FIFOs': the router's
        // buffers and the output queues).
        design(
            FrameFifo::<Bits<8>, 3, 4>::registered_write(),
            "collwire_frame_fifo_rw",
        ),
        // The verdict and entry queues' FIFO (a write into an empty one is the head a clock
        // later), one byte wide, eight words.
        design(
            BypassFifo::<Bits<8>, 3, 4, 2>::default(),
            "collwire_bypass_fifo",
        ),
        // Width enters only as bytes per word; the 64-bit engine stands for both.
        design(Cfe::new(8), "collwire_cfe"),
    ];
    all.extend(match width {
        BusWidth::W64 => [
            design(CipeAlu64::default(), "collwire_cipe_alu64"),
            design(HeaderCapture64::default(), "collwire_header_capture64"),
            design(AxisArbiter64::default(), "collwire_axis_arbiter64"),
            // The board's input arbiter: no room check (`AxisArbiter::ready_always`).
            design(AxisArbiter64::ready_always(), "collwire_axis_arbiter_in64"),
            design(AxisRegister64::default(), "collwire_axis_register64"),
            design(FrameRouter64::default(), "collwire_frame_router64"),
            design(OutputQueues64::default(), "collwire_output_queues64"),
            design(Cipe64::default(), "collwire_cipe64"),
            design(FrameBuilder64::default(), "collwire_frame_builder64"),
            design(OffloadSplitter64::default(), "collwire_offload_splitter64"),
            design(Board64::default(), "collwire_board64"),
        ],
        BusWidth::W256 => [
            design(CipeAlu256::default(), "collwire_cipe_alu256"),
            design(HeaderCapture256::default(), "collwire_header_capture256"),
            design(AxisArbiter256::default(), "collwire_axis_arbiter256"),
            // The board's input arbiter: no room check (`AxisArbiter::ready_always`).
            design(
                AxisArbiter256::ready_always(),
                "collwire_axis_arbiter_in256",
            ),
            design(AxisRegister256::default(), "collwire_axis_register256"),
            design(FrameRouter256::default(), "collwire_frame_router256"),
            design(OutputQueues256::default(), "collwire_output_queues256"),
            design(Cipe256::default(), "collwire_cipe256"),
            design(FrameBuilder256::default(), "collwire_frame_builder256"),
            design(
                OffloadSplitter256::default(),
                "collwire_offload_splitter256",
            ),
            design(Board256::default(), "collwire_board256"),
        ],
    });
    all
}

/// Every design the simulator bridge verilates and the synthesis checks cover.
pub fn designs() -> Vec<Design> {
    let mut all = designs_for(BusWidth::W64);
    all.extend(
        designs_for(BusWidth::W256)
            .into_iter()
            .filter(|d| d.name.ends_with("256")),
    );
    all
}

/// Whole boards: every other design of the target put together. CI synthesizes the parts
/// (minutes each on two cores); the bench synthesizes the boards.
pub fn is_board(name: &str) -> bool {
    name.starts_with("collwire_board")
}

/// Designs that are also built into a larger design (`fp_add` in `cipe_alu` in `cipe`;
/// `header_capture` and `offload_classifier` in `frame_router`; `cfe_config`,
/// `context_table` (with `key_history`), `arrival_verdict`, `uop_decode`, `entry_composer` and
/// `time_base` in `cfe`, `reg_fifo4` and `frame_fifo` in `frame_router`, `bypass_fifo` in `frame_router` and
/// `frame_builder`, with
/// `header_fields` and `header_builder` inside them). Synthesizing the
/// larger one covers them, flattened, so the synthesis check can skip them; the bench still
/// reports them.
pub fn is_part_of_another(name: &str) -> bool {
    [
        "fp_add",
        "cipe_alu",
        "header_capture",
        "offload_classifier",
        "header_builder",
        "header_fields",
        "cfe_config",
        "context_table",
        "key_history",
        "uop_decode",
        "arrival_verdict",
        "entry_composer",
        "time_base",
        "reg_fifo",
        "frame_fifo",
        "bypass_fifo",
    ]
    .iter()
    .any(|part| name.starts_with(&format!("collwire_{part}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_ports_get_plain_names_with_the_index_last() {
        assert_eq!(plain_port_name("s_axis$0$tdata"), "s_axis_tdata_0");
        assert_eq!(plain_port_name("s_axis_tdata$3"), "s_axis_tdata_3");
        assert_eq!(plain_port_name("m_axis$tready"), "m_axis_tready");
    }

    #[test]
    fn interface_ports_leave_as_verilog_ethernet_names() {
        let v = verilog(AxisArbiter64::default(), "collwire_axis_arbiter64");
        let header = v
            .split_once("module collwire_axis_arbiter64(")
            .and_then(|(_, rest)| rest.split_once(");"))
            .unwrap()
            .0;
        for port in [
            "s_axis_tdata_0",
            "s_axis_tready_3",
            "m_axis_tuser",
            "m_axis_tready",
        ] {
            assert!(header.contains(port), "{port} missing in ({header})");
        }
        assert!(!header.contains('$'), "{header}");
        // The names are whole identifiers: inside the module too.
        assert!(v.contains("input wire  [63:0] s_axis_tdata_0;"), "{v}");
        assert!(!v.contains("s_axis$0$tdata"), "{v}");
    }
}

//! Packet captures of a simulated cluster: every frame on every link, written as pcapng
//! (`pcap-file`) for Wireshark and `tshark`.
//!
//! Each sending end of a link is a capture interface of its own, named for where the frame
//! goes, so Wireshark's `frame.interface_name` (or the "Interface" column) says which cable a
//! frame crossed:
//!
//! * `host<b>`: host `b` → board `b`'s port 0 (requests and aborts, as the host sent them);
//! * `b<b>p<p>`: out of board `b`'s port `p` (port 0: to its host; others: to the board cabled
//!   there, named in the interface's description);
//! * `b<b>p<p>-in`: frames placed straight into board `b`'s port `p` by a test
//!   ([`crate::cluster::Cluster::inject`]).
//!
//! A frame is written when its last beat leaves its sender, before the link (so a frame the
//! link then drops, duplicates or corrupts is captured once, as sent). A frame the board aborted
//! (the MAC's bad-frame mark on its last beat) carries the pcapng "CRC error" flag.
//!
//! Timestamps are simulated time, the cycle times the clock period of the datapath's target
//! (8 ns at 64 bits / 125 MHz, 5 ns at 256 bits / 200 MHz), at nanosecond resolution; or, for
//! `collwire serve`, wall time since the capture began ([`CaptureClock`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::time::{Duration, Instant};

use pcap_file::DataLink;
use pcap_file::pcapng::PcapNgWriter;
use pcap_file::pcapng::blocks::enhanced_packet::{EnhancedPacketBlock, EnhancedPacketOption};
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};

/// The pcapng flags word of a frame with a bad FCS: link-layer error bit 24, "CRC error".
pub const FLAG_CRC_ERROR: u32 = 1 << 24;

/// Timestamps of a capture.
#[derive(Debug, Clone, Copy)]
pub enum CaptureClock {
    /// Simulated time: cycle × `period_ps` picoseconds.
    Simulated { period_ps: u64 },
    /// Wall time since the capture began (hardware in the loop).
    Wall(Instant),
}

impl CaptureClock {
    /// Simulated time at the target clock of a `width`-bit datapath (125 MHz at 64 bits,
    /// 200 MHz at 256).
    pub fn simulated(width: usize) -> CaptureClock {
        CaptureClock::Simulated {
            period_ps: if width >= 256 { 5_000 } else { 8_000 },
        }
    }

    fn at(&self, cycle: u64) -> Duration {
        match self {
            CaptureClock::Simulated { period_ps } => {
                Duration::from_nanos(cycle.saturating_mul(*period_ps) / 1000)
            }
            CaptureClock::Wall(start) => start.elapsed(),
        }
    }
}

/// A pcapng file being written, one interface per capture point.
pub struct Capture {
    writer: PcapNgWriter<BufWriter<File>>,
    clock: CaptureClock,
    interfaces: HashMap<String, u32>,
    /// Frames written.
    pub frames: u64,
}

impl Capture {
    pub fn create(path: &Path, clock: CaptureClock) -> std::io::Result<Capture> {
        let file = BufWriter::new(File::create(path)?);
        let writer = PcapNgWriter::new(file).map_err(std::io::Error::other)?;
        Ok(Capture {
            writer,
            clock,
            interfaces: HashMap::new(),
            frames: 0,
        })
    }

    /// The interface `name`, described by `describe` when it is first used.
    fn interface(&mut self, name: &str, describe: impl FnOnce() -> String) -> std::io::Result<u32> {
        if let Some(&id) = self.interfaces.get(name) {
            return Ok(id);
        }
        let id = self.interfaces.len() as u32;
        let idb = InterfaceDescriptionBlock {
            linktype: DataLink::ETHERNET,
            snaplen: 0,
            options: vec![
                InterfaceDescriptionOption::IfName(Cow::Owned(name.to_string())),
                InterfaceDescriptionOption::IfDescription(Cow::Owned(describe())),
                // Nanosecond timestamps (what the writer's enhanced packet blocks hold).
                InterfaceDescriptionOption::IfTsResol(9),
            ],
        };
        self.writer
            .write_pcapng_block(idb)
            .map_err(std::io::Error::other)?;
        self.interfaces.insert(name.to_string(), id);
        Ok(id)
    }

    /// Writes `frame` (no FCS) seen on interface `name` at `cycle`; `bad`: the frame carries
    /// the MAC's bad-frame mark.
    pub fn write(
        &mut self,
        name: &str,
        describe: impl FnOnce() -> String,
        cycle: u64,
        frame: &[u8],
        bad: bool,
    ) -> std::io::Result<()> {
        let interface_id = self.interface(name, describe)?;
        let options = if bad {
            vec![EnhancedPacketOption::Flags(FLAG_CRC_ERROR)]
        } else {
            Vec::new()
        };
        let epb = EnhancedPacketBlock {
            interface_id,
            timestamp: self.clock.at(cycle),
            original_len: frame.len() as u32,
            data: Cow::Borrowed(frame),
            options,
        };
        self.writer
            .write_pcapng_block(epb)
            .map_err(std::io::Error::other)?;
        self.frames += 1;
        Ok(())
    }

    /// Flushes what was written (the file is complete and readable after this).
    pub fn flush(&mut self) -> std::io::Result<()> {
        use std::io::Write;
        self.writer.get_mut().flush()
    }
}

/// One frame read back from a capture: interface name, timestamp, bytes, CRC-error flag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedFrame {
    pub interface: String,
    pub timestamp: Duration,
    pub data: Vec<u8>,
    pub bad: bool,
}

/// Every frame of a pcapng file, in file order.
pub fn read_capture(path: &Path) -> anyhow::Result<Vec<CapturedFrame>> {
    use pcap_file::pcapng::{Block, PcapNgReader};
    let mut reader = PcapNgReader::new(std::io::BufReader::new(File::open(path)?))?;
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    while let Some(block) = reader.next_block() {
        match block? {
            Block::InterfaceDescription(idb) => names.push(
                idb.options
                    .iter()
                    .find_map(|o| match o {
                        InterfaceDescriptionOption::IfName(n) => Some(n.to_string()),
                        _ => None,
                    })
                    .unwrap_or_default(),
            ),
            Block::EnhancedPacket(epb) => out.push(CapturedFrame {
                interface: names
                    .get(epb.interface_id as usize)
                    .cloned()
                    .unwrap_or_default(),
                timestamp: epb.timestamp,
                data: epb.data.to_vec(),
                bad: epb.options.iter().any(
                    |o| matches!(o, EnhancedPacketOption::Flags(f) if f & FLAG_CRC_ERROR != 0),
                ),
            }),
            _ => {}
        }
    }
    Ok(out)
}

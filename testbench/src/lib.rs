//! # collwire-testbench
//!
//! * [`golden`]: the golden reference model — the exact output bits every rank must receive for
//!   every collective and algorithm. The combination order it implements is the specification
//!   the hardware must meet (`docs/protocol.md`, "Combination order").
//!
//! * [`soak`]: random collectives over lossy simulated links, every result against the golden
//!   model (`cargo run --release -p collwire-testbench --bin soak`).

use collwire_proto::Datatype;

pub mod golden;
pub mod soak;

/// Rank `r`'s send buffer: element `i` is a different value for every `(r, i)`; floats spread
/// over many exponents, so the order of a floating-point sum shows in the bits.
pub fn distinct_input(datatype: Datatype, r: usize, elements: usize) -> Vec<u8> {
    (0..elements)
        .flat_map(|i| {
            let x = (r * 1000 + i) as u64;
            match datatype {
                Datatype::F64 => ((x as f64 + 0.25) * 1.5f64.powi(i as i32 % 40 - 20))
                    .to_le_bytes()
                    .to_vec(),
                Datatype::F32 => ((x as f32 + 0.5) * 1.25f32.powi(i as i32 % 30 - 15))
                    .to_le_bytes()
                    .to_vec(),
                d => x.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes()[..d.size()].to_vec(),
            }
        })
        .collect()
}

//! `collwire dissector`: the Wireshark Lua dissector for the offload header, generated from
//! `collwire-proto` (`proto/src/wireshark.rs`). The committed copy is `wireshark/collwire.lua`.

use anyhow::{Context, Result};

#[derive(clap::Args)]
pub struct Args {
    /// Write it here (default: standard output).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

pub fn run(args: &Args) -> Result<()> {
    let lua = collwire_proto::wireshark::lua_dissector();
    match &args.out {
        Some(path) => {
            std::fs::write(path, lua).with_context(|| format!("writing {}", path.display()))
        }
        None => {
            print!("{lua}");
            Ok(())
        }
    }
}

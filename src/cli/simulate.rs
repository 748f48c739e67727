//! `ckpt simulate <simulator>`: the subcommands of the simulators.

use clap::{Args, Subcommand};

/// `ckpt simulate` and its simulator.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// Which simulator.
    #[command(subcommand)]
    pub simulator: Simulator,
}

/// The simulators.
#[derive(Debug, Subcommand)]
pub enum Simulator {
    /// Task-based 1-D stencil with checkpoint levels and global or dependency-aware rollback.
    Stencil(Box<super::stencil::StencilArgs>),
}

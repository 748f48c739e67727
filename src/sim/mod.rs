//! The simulators of docs/simulation.md and the discrete-event core they share.
//!
//! A simulator is a function from a validated config, a seed and a run index to a plain figures
//! struct; parallelism, progress and statistics live outside it, in [`engine`] and [`stats`].

pub mod engine;
pub mod multilevel;
pub mod periodic;
pub mod replicated;
pub mod run;
pub mod stats;
pub mod stencil;
pub mod trace;

//! `ckpt`: how often to checkpoint, with every model of the literature side by side, minimized
//! numerically, held against closed forms, and checked by simulation.
//!
//! The binary is a thin shell over this crate: everything it does is a library call that a
//! scheduler plug-in or a notebook can make too.

pub mod cli;
pub mod encoding;
pub mod failure;
pub mod sim;
pub mod units;

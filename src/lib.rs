//! `ckpt`: how often to checkpoint, with every model of the literature side by side, minimized
//! numerically, held against closed forms, and checked by simulation.
//!
//! The binary is a thin shell over this crate: everything it does is a library call that a
//! scheduler plug-in or a notebook can make too.
//!
//! ```
//! use ckpt::interval::{IntervalInputs, compute};
//! // Daly's example: MTBF 24 h, checkpoint 5 min, restart 10 min.
//! let answer = compute(&IntervalInputs::single(86400.0, 300.0, 600.0)).unwrap();
//! assert_eq!(answer.recommended, "daly-complete");
//! assert!((answer.recommended_interval_s / 60.0 - 116.69).abs() < 0.005);
//! ```

// `!(x > 0.0)` is how this crate rejects NaN together with the out-of-range values; the
// partial_cmp form clippy suggests hides that.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod encoding;
pub mod failure;
pub mod interval;
pub mod model;
pub mod optimize;
pub mod progress;
pub mod report;
pub mod rng;
pub mod shard;
pub mod sim;
pub mod sweep;
pub mod units;
pub mod validate;

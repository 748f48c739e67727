//! Diskless checkpoint encodings (docs/encodings.md): the schemes of the seed paper on fault-tolerant
//! computing by a coding approach, the probability that each survives `k` simultaneous failures,
//! the floating-point encoding and recovery with the round-off it costs, the cost of one
//! checkpoint for the interval models, and the fault-tolerant conjugate gradient.
//!
//! Processors are numbered `0..n` for the computation processors and `n..total` for the extra
//! (mirror or checksum) processors a scheme adds, so a failure set is a set of indices into
//! `0..total`.

pub mod codec;
pub mod cost;
pub mod experiment;
pub mod matrix;
pub mod pcg;
pub mod scheme;
pub mod survival;

pub use codec::{Accuracy, Codec, RecoveryReport};
pub use cost::{
    CostBreakdown, CostParams, ReductionAlgorithm, SchemeSummary, checkpoint_cost, scheme_summary,
};
pub use matrix::MatrixKind;
pub use scheme::{SchemeKind, SchemeSpec};
pub use survival::{SurvivalRow, survival, survival_range, survival_table, try_survival};

use thiserror::Error;

/// What can go wrong in this area. Messages name the command-line flag a user would change.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum EncodingError {
    /// One input has a value the scheme cannot take.
    #[error("invalid value `{value}` for {arg}: {accepted}")]
    Invalid {
        /// The flag.
        arg: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        accepted: String,
    },
    /// The scheme needs an input that was not given.
    #[error("{arg} is required: {needed}")]
    Missing {
        /// The flag.
        arg: &'static str,
        /// What it must give.
        needed: String,
    },
    /// The failure set is more than the scheme can rebuild.
    #[error("the failure of processors {failed:?} cannot be recovered by scheme {scheme}")]
    Unrecoverable {
        /// The scheme.
        scheme: String,
        /// The failed processors.
        failed: Vec<usize>,
    },
    /// The scheme survives the failure set in exact arithmetic, but its recovery system is
    /// numerically singular in double precision (entries that overflow, or an effective
    /// condition number of at least 1/eps): no digit of a rebuilt value could be trusted.
    #[error(
        "the failure of processors {failed:?} is survivable in exact arithmetic but not in double precision: {why}"
    )]
    IllConditioned {
        /// The failed processors.
        failed: Vec<usize>,
        /// What was found (the matrix's overflow, or the effective condition number).
        why: String,
    },
    /// The solver broke down (a rebuilt state it cannot continue from).
    #[error("{0}")]
    Diverged(String),
    /// Checkpoints handed to the codec do not fit the scheme (count or length).
    #[error("checkpoint shape: {0}")]
    Shape(String),
}

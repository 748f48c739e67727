//! `ckpt`: how often to checkpoint, with every model of the literature side by side, minimized
//! numerically, held against closed forms, and checked by simulation.
//!
//! The `ckpt` binary is a thin shell over this crate: everything it does is a library call that
//! a scheduler plug-in or a notebook can make too. Data flows one way: validated inputs (plain
//! serde types) → computation ([`interval`], [`sim`], [`sweep`], [`validate`], [`encoding`],
//! [`fit`]) → plain results → [`report`] (tables, JSON, CSV, plots as bytes). Long commands are
//! [`job::Job`]s, which run whole or as shards that [`job::merge`] puts back together. The
//! library never prints, reads files or exits; the caller does.
//!
//! Compute an interval, then check it by simulation:
//!
//! ```
//! use ckpt::{IntervalInputs, Lifetime, PeriodicConfig, PeriodicFailures};
//! // Daly's example: MTBF 24 h, checkpoint 5 min, restart 10 min.
//! let answer = ckpt::compute_interval(&IntervalInputs::single(86400.0, 300.0, 600.0)).unwrap();
//! assert_eq!(answer.recommended, "daly-complete");
//! let tau = answer.recommended_interval_s;
//! assert!((tau / 60.0 - 116.69).abs() < 0.005);
//!
//! // 200 seeded runs of a 100-hour job checkpointing every tau.
//! let ns = |s: f64| (s * 1e9).round() as u64;
//! let config = PeriodicConfig {
//!     work: ns(100.0 * 3600.0),
//!     interval: ns(tau),
//!     cost: ns(300.0),
//!     restart: ns(600.0),
//!     failures: PeriodicFailures::Platform(Lifetime::exponential(86400.0).unwrap()),
//!     final_checkpoint: true,
//!     walltime: None,
//!     asynchronous: None,
//!     signal_lead: None,
//! };
//! let sim = ckpt::simulate(&config, 42, 200, 1, &|| {}).unwrap();
//! // The simulated mean wall time per unit of work agrees with the model's overhead.
//! let overhead = sim.wall_time_s.point / (100.0 * 3600.0);
//! assert!((overhead - answer.recommended_overhead).abs() < 0.02);
//! ```
//!
//! Features: `plots` (default) draws the reports' SVG and PNG figures; `cli` (default) builds
//! the `ckpt` binary. With `default-features = false` the crate needs neither a drawing backend
//! nor any command-line crate.

// `!(x > 0.0)` is how this crate rejects NaN together with the out-of-range values; the
// partial_cmp form clippy suggests hides that.
#![allow(clippy::neg_cmp_op_on_partial_ord)]
#![warn(missing_docs)]

/// `TryFrom<$spec> for $ty` through `$ty::new`, given the spec's fields in order, and
/// `From<$ty> for $spec` moving them back: the serde proxy of a type that validates what it
/// reads (`#[serde(try_from = "Spec", into = "Spec")]`), so that a file cannot hold a value
/// `new` refuses.
macro_rules! serde_proxy {
    ($ty:ident <-> $spec:ident { $($field:ident),+ }, $err:ty) => {
        impl TryFrom<$spec> for $ty {
            type Error = $err;
            fn try_from(s: $spec) -> Result<$ty, $err> {
                $ty::new($(s.$field),+)
            }
        }

        impl From<$ty> for $spec {
            fn from(v: $ty) -> $spec {
                $spec { $($field: v.$field),+ }
            }
        }
    };
}

pub mod encoding;
pub mod failure;
pub mod finite;
pub mod fit;
pub mod interval;
pub mod job;
pub mod model;
pub mod optimize;
pub mod progress;
pub mod report;
pub mod rng;
pub mod sim;
pub mod sweep;
pub mod text;
pub mod units;
pub mod validate;

pub use failure::{Lifetime, Shape};
pub use interval::{IntervalAnswer, IntervalError, IntervalInputs, compute as compute_interval};
pub use job::{Job, JobError, Output};
pub use model::platform::Nodes;
pub use model::replicated::Detect;
pub use progress::{NoProgress, Progress};
pub use sim::periodic::{Failures as PeriodicFailures, PeriodicConfig, PeriodicFigures};
pub use sim::replicated::{ReplicatedConfig, ReplicatedFigures};
pub use sim::run::{Scenario, simulate};
pub use sim::stats::Estimate;
pub use sim::stencil::StencilConfig;

//! The analytical models of docs/models.md, in two shapes.
//!
//! A [`CostModel`] is a value with an overhead function (expected wall time per unit of useful
//! work, 1.0 = no loss) that the optimizer minimizes. An [`Estimator`] is a value that gives an
//! interval from a closed form and has no cost function of its own: it is judged under the most
//! complete cost model that applies. The sweep and the validator only see these two shapes.

pub mod allocation;
pub mod asynchronous;
pub mod chunks;
pub mod daly;
pub mod finite_renewal;
pub mod mtti;
pub mod multilevel;
pub mod platform;
pub mod quadrature;
pub mod renewal;
pub mod renewal_allocation;
pub mod replicated;
pub mod young;

use serde::Serialize;
use thiserror::Error;

/// Invalid model parameters.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ModelError {
    /// A parameter outside the range the model accepts.
    #[error("{name} = {} is out of range: {accepted}", crate::text::number(*.value))]
    Parameter {
        /// The parameter.
        name: &'static str,
        /// The value given.
        value: f64,
        /// What is accepted.
        accepted: &'static str,
    },
    /// A checkpoint schedule with a chunk that is not a positive, finite number of seconds.
    #[error(
        "chunk {index} of the schedule is {value} s: every chunk must be a positive, finite number of seconds"
    )]
    Chunk {
        /// Position in the schedule, from 1.
        index: usize,
        /// The offending value (s).
        value: f64,
    },
    /// An empty checkpoint schedule.
    #[error("the schedule is empty: give at least one chunk")]
    EmptySchedule,
    /// No checkpointing policy finishes work: the expected overhead is beyond f64 range.
    #[error("{what}: no work gets done (the expected overhead is beyond 1e308)")]
    NoProgress {
        /// What was being evaluated.
        what: &'static str,
    },
    /// The failure distribution's tail is so heavy that the expected life left does not fall
    /// to a negligible part of a restart's within f64 range: no horizon for the schedule.
    #[error(
        "{dist}: the failure distribution's tail is too heavy for a checkpoint schedule: at {age_s:.3e} s after the restart the expected life left is still above 1e-9 of a restart's; use a larger shape"
    )]
    TailTooHeavy {
        /// The distribution (`weibull:0.05`, ...).
        dist: String,
        /// How far the search had got when it stopped (s).
        age_s: f64,
    },
    /// The schedule's grid would not fit in memory: a heavy tail puts the horizon far out, and
    /// a checkpoint cost small beside the spread of lifetimes makes the steps fine.
    #[error(
        "{dist}: the checkpoint schedule's grid would need more than {limit} ages (it had reached {age_s:.3e} s after the restart, of {horizon_s:.3e} s to cover); a heavy tail (a small shape) or a checkpoint cost small beside the spread of lifetimes needs many, a larger shape or a larger cost fewer"
    )]
    GridTooLarge {
        /// The distribution (`weibull:0.05`, ...).
        dist: String,
        /// The grid's limit on ages.
        limit: usize,
        /// How far the grid had got when it stopped (s after the restart).
        age_s: f64,
        /// Where the grid would have ended (s after the restart).
        horizon_s: f64,
    },
    /// The optimizer could not find the best periodic interval.
    #[error(transparent)]
    Optimize(#[from] crate::optimize::OptimizeError),
}

/// The least time (s) the models that multiply times together take: the renewal model and the
/// multi-level model (a cost, a mean lifetime); their squares stay inside f64's normal range.
pub(crate) const MIN_TIME: f64 = 1e-100;

/// The largest time (s) those models take, for the same reason at the other end.
pub(crate) const MAX_TIME: f64 = 1e100;

/// Checks that `value` is finite and positive.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(ModelError::Parameter {
            name,
            value,
            accepted: "a positive, finite number",
        })
    }
}

/// Checks that `value` is finite and not negative.
pub(crate) fn nonnegative(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(ModelError::Parameter {
            name,
            value,
            accepted: "a finite number of zero or more",
        })
    }
}

/// The platform of Daly's complete model, validated: MTBF and checkpoint cost positive and
/// finite, restart and downtime finite and not negative (all seconds). The models built on
/// Daly's (a finite job, asynchronous checkpoints) hold it beside what they add.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DalyInputs {
    pub(crate) mtbf: f64,
    pub(crate) cost: f64,
    pub(crate) restart: f64,
    pub(crate) downtime: f64,
}

impl DalyInputs {
    /// Checks the four in this order, naming the first bad one.
    pub(crate) fn new(
        mtbf: f64,
        cost: f64,
        restart: f64,
        downtime: f64,
    ) -> Result<DalyInputs, ModelError> {
        Ok(DalyInputs {
            mtbf: positive("mtbf", mtbf)?,
            cost: positive("cost", cost)?,
            restart: nonnegative("restart", restart)?,
            downtime: nonnegative("downtime", downtime)?,
        })
    }
}

/// A model with an overhead function of the checkpoint interval.
pub trait CostModel: Send + Sync {
    /// The row name in reports (`daly-complete`, `replicated-end`, ...).
    fn name(&self) -> &'static str;

    /// `ln(overhead(tau))` for a work interval `tau` (seconds). Evaluated in log space so that
    /// a job whose success probability is below 1e-300 still gets a finite figure; `+inf`
    /// only where no interval of this length makes progress.
    fn ln_overhead(&self, tau: f64) -> f64;

    /// The closed-form estimate of the optimum, from which the optimizer grows its bracket.
    fn seed_interval(&self) -> f64;

    /// Expected number of interruptions per committed interval of length `tau`.
    fn expected_failures(&self, tau: f64) -> f64;

    /// A function of `tau` whose sign change is the optimum (the derivative condition), where
    /// one is known in closed form; the optimizer polishes its answer on it.
    fn stationarity(&self, _tau: f64) -> Option<f64> {
        None
    }

    /// `overhead(tau)`, or `None` beyond f64 range.
    fn overhead(&self, tau: f64) -> Option<f64> {
        finite_exp(self.ln_overhead(tau))
    }
}

/// `e^x` when it is a finite number, else `None`.
pub fn finite_exp(x: f64) -> Option<f64> {
    let v = x.exp();
    if v.is_finite() && !x.is_nan() {
        Some(v)
    } else {
        None
    }
}

/// How an estimator's or a cost model's interval was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// A formula.
    ClosedForm,
    /// The minimum of an overhead function, found by the optimizer.
    Numerical,
}

/// A closed-form interval estimate: a value, or why the formula does not apply here.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimator {
    /// Row name (`young`, `daly-first-order`, ...).
    pub name: &'static str,
    /// The interval in seconds, or the reason the formula does not apply.
    pub interval: Result<f64, String>,
}

impl Estimator {
    /// An estimator whose formula gave `value`; not applicable unless positive and finite.
    pub fn from_value(name: &'static str, value: f64, range_note: &str) -> Estimator {
        let interval = if value.is_finite() && value > 0.0 {
            Ok(value)
        } else {
            Err(range_note.to_string())
        };
        Estimator { name, interval }
    }
}

//! `ckpt interval`: every model's interval side by side, each judged under the most complete
//! cost model that applies, with the answer's completion time, iteration rounding and
//! sensitivity.

use crate::failure::{FailureError, Lifetime, Shape};
use crate::model::replicated::{self, Detect, Replicated, ReplicatedSystem};
use crate::model::{CostModel, Estimator, Method, ModelError, daly, mtti, young};
use crate::optimize::{self, OptimizeError, Optimum};
use serde::Serialize;
use thiserror::Error;

/// Why `interval` cannot answer.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum IntervalError {
    /// A model rejected its parameters.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The failure distribution is invalid.
    #[error(transparent)]
    Failure(#[from] FailureError),
    /// The reference model has no optimum.
    #[error(transparent)]
    Optimize(#[from] OptimizeError),
    /// An input out of range.
    #[error("{name} = {}: {accepted}", crate::text::number(*.value))]
    Input {
        /// The input's name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// What is accepted.
        accepted: &'static str,
    },
}

/// The replicated-process part of the inputs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct Replication {
    /// Number of inter-dependent processes n.
    pub procs: u64,
    /// Replicas per process r.
    pub replicas: u32,
    /// Detection variant that answers.
    pub detect: Detect,
    /// Host lifetime distribution (mean = `mtbf`).
    pub shape: Shape,
}

/// Validated inputs of `interval` (seconds throughout).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IntervalInputs {
    /// MTBF of the whole job, or of one host with `replication`.
    pub mtbf: f64,
    /// Checkpoint cost delta.
    pub cost: f64,
    /// Restart cost R.
    pub restart: f64,
    /// Downtime D before a restart (Daly's complete model).
    pub downtime: f64,
    /// The replicated model, when `--procs`/`--replicas` are given.
    pub replication: Option<Replication>,
    /// Useful work to complete, for the expected completion time.
    pub work: Option<f64>,
    /// Length of one application iteration, to round the interval to whole iterations.
    pub iteration_time: Option<f64>,
    /// Where `mtbf` came from, when it was derived from a node count and a node MTBF.
    pub nodes: Option<Nodes>,
    /// Where `cost` came from, when an in-memory checkpoint scheme gave it.
    pub scheme: Option<crate::encoding::SchemeSummary>,
    /// Asynchronous checkpoints (`cost` is then the snapshot's stall); `docs/models.md` §11.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asynchronous: Option<crate::finite::AsyncInputs>,
    /// A fixed allocation to schedule (`docs/models.md` §10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocation: Option<crate::finite::AllocationInputs>,
}

pub use crate::model::platform::Nodes;

impl IntervalInputs {
    /// A single coordinated job: MTBF, checkpoint cost and restart cost.
    pub fn single(mtbf: f64, cost: f64, restart: f64) -> IntervalInputs {
        IntervalInputs {
            mtbf,
            cost,
            restart,
            downtime: 0.0,
            replication: None,
            work: None,
            iteration_time: None,
            nodes: None,
            scheme: None,
            asynchronous: None,
            allocation: None,
        }
    }

    fn with(&self, mtbf: f64, cost: f64) -> IntervalInputs {
        IntervalInputs {
            mtbf,
            cost,
            ..self.clone()
        }
    }
}

/// One row of the answer (deserialized from sweep shard files, whose names come back static).
/// A model or kind name: static where the library names it, owned where it was read back
/// from a shard file.
pub type Name = std::borrow::Cow<'static, str>;

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
/// One model's answer: its interval and figures under the reference cost model.
pub struct Row {
    /// Model name.
    pub name: Name,
    /// `estimator` or `cost-model`.
    pub kind: Name,
    /// The interval (s), or null when not applicable.
    pub interval_s: Option<f64>,
    /// Expected overhead (wall time / work) under the reference cost model.
    pub overhead: Option<f64>,
    /// 1 / overhead.
    pub efficiency: Option<f64>,
    /// Loss against the reference model's numerical optimum, in percent.
    pub loss_pct: Option<f64>,
    /// Expected interruptions per committed interval under the reference model.
    pub expected_failures: Option<f64>,
    /// `closed-form` or `numerical`.
    pub method: Method,
    /// For numerical rows: whether the solver converged.
    pub converged: Option<bool>,
    /// Expected completion time of `work` (s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_s: Option<f64>,
    /// Why a figure is missing, or a caveat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The interval rounded to whole iterations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IterationChoice {
    /// Iterations between checkpoints.
    pub iterations: u64,
    /// The resulting interval (s).
    pub interval_s: f64,
    /// Its overhead under the reference model.
    pub overhead: f64,
    /// Extra overhead against the unrounded optimum, in percent.
    pub extra_overhead_pct: f64,
}

/// The overhead of the recommended interval if a parameter is off by a factor.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sensitivity {
    /// `mtbf` or `cost`.
    pub parameter: &'static str,
    /// The factor applied to the given value.
    pub factor: f64,
    /// Overhead of the recommended interval under the changed parameter.
    pub overhead: Option<f64>,
    /// The optimum overhead under the changed parameter.
    pub optimal_overhead: Option<f64>,
    /// The loss of keeping the recommended interval, in percent.
    pub loss_pct: Option<f64>,
}

/// The full answer of `interval`.
#[derive(Debug, Clone, PartialEq)]
pub struct IntervalAnswer {
    /// The inputs it answers.
    pub inputs: IntervalInputs,
    /// MTTI of the replicated system (s), with replication.
    pub mtti_s: Option<f64>,
    /// Every model, in a fixed order.
    pub rows: Vec<Row>,
    /// Name of the row that answers.
    pub recommended: &'static str,
    /// The recommended interval (s).
    pub recommended_interval_s: f64,
    /// Its overhead.
    pub recommended_overhead: f64,
    /// Expected completion time of `work`, with `work`.
    pub completion_s: Option<f64>,
    /// Whole-iteration interval, with `iteration_time`.
    pub iterations: Option<IterationChoice>,
    /// Sensitivity to MTBF and cost at 0.5x and 2x.
    pub sensitivity: Vec<Sensitivity>,
    /// The best whole number of chunks of `work` (one job only).
    pub whole_chunks: Option<crate::model::chunks::WholeChunks>,
    /// The schedule of the allocation, when one is given.
    pub allocation: Option<crate::model::allocation::AllocationPlan>,
    /// The allocation's best interval of whole iterations, with `iteration_time`.
    pub allocation_iterations: Option<crate::model::allocation::IterationPlan>,
}

/// The most complete cost model that applies to `inputs`.
pub fn reference_model(inputs: &IntervalInputs) -> Result<Box<dyn CostModel>, IntervalError> {
    if let Some(a) = crate::finite::async_model(inputs)? {
        return Ok(Box::new(a));
    }
    Ok(match inputs.replication {
        None => Box::new(daly::DalyComplete::new(
            inputs.mtbf,
            inputs.cost,
            inputs.restart,
            inputs.downtime,
        )?),
        Some(rep) => Box::new(replicated_model(inputs, rep, rep.detect)?),
    })
}

fn replicated_system(
    inputs: &IntervalInputs,
    rep: Replication,
) -> Result<ReplicatedSystem, IntervalError> {
    let lifetime = Lifetime::new(rep.shape, inputs.mtbf)?;
    Ok(ReplicatedSystem::new(lifetime, rep.procs, rep.replicas)?)
}

fn replicated_model(
    inputs: &IntervalInputs,
    rep: Replication,
    detect: Detect,
) -> Result<Replicated, IntervalError> {
    Ok(Replicated::new(
        replicated_system(inputs, rep)?,
        inputs.cost,
        inputs.restart,
        detect,
    )?)
}

fn check(name: &'static str, value: f64, zero_ok: bool) -> Result<(), IntervalError> {
    let ok = value.is_finite() && (value > 0.0 || (zero_ok && value == 0.0));
    if ok {
        Ok(())
    } else {
        Err(IntervalError::Input {
            name,
            value,
            accepted: if zero_ok {
                "a finite number of zero or more"
            } else {
                "a positive, finite number"
            },
        })
    }
}

/// Something a row is computed from.
enum Source {
    Estimate(Estimator),
    Cost(Box<dyn CostModel>),
}

/// Computes every row, the recommendation and the sensitivity figures.
pub fn compute(inputs: &IntervalInputs) -> Result<IntervalAnswer, IntervalError> {
    check("mtbf", inputs.mtbf, false)?;
    check("cost", inputs.cost, false)?;
    check("restart", inputs.restart, true)?;
    check("downtime", inputs.downtime, true)?;
    if let Some(w) = inputs.work {
        check("work", w, false)?;
    }
    if let Some(t) = inputs.iteration_time {
        check("iteration-time", t, false)?;
    }
    let (d, m, r) = (inputs.cost, inputs.mtbf, inputs.restart);
    let reference = reference_model(inputs)?;
    let best = optimize::minimize(reference.as_ref())?;
    // With a background write the synchronous rows answer for a checkpoint blocking that long.
    let b = crate::finite::blocking_cost(inputs);

    let mut mtti_s = None;
    let sources: Vec<Source> = match inputs.replication {
        None => vec![
            Source::Estimate(young::young(b, m)),
            Source::Estimate(daly::first_order(b, m, r)),
            Source::Estimate(daly::higher_order(b, m)),
            Source::Estimate(daly::exact("daly-exact", b, m)),
            Source::Cost(Box::new(daly::DalyComplete::new(m, b, r, inputs.downtime)?)),
        ]
        .into_iter()
        .chain(crate::finite::async_model(inputs)?.map(|a| Source::Cost(Box::new(a))))
        .collect(),
        Some(rep) => {
            let system = replicated_system(inputs, rep)?;
            let t = mtti::mtti(&system);
            mtti_s = Some(t);
            let (n, k) = (rep.procs, rep.replicas);
            vec![
                Source::Estimate(young::young_named("young-mtti", d, t)),
                Source::Estimate(daly::first_order_named("daly-first-order-mtti", d, t, r)),
                Source::Estimate(daly::higher_order_named("daly-higher-order-mtti", d, t)),
                Source::Cost(Box::new(
                    daly::DalyComplete::new(t, d, r, inputs.downtime)?.named("daly-complete-mtti"),
                )),
                Source::Estimate(replicated::first_order_end(d, m, n, k)),
                Source::Estimate(replicated::first_order_immediate(d, m, n, k)),
                Source::Cost(Box::new(replicated_model(inputs, rep, Detect::End)?)),
                Source::Cost(Box::new(replicated_model(inputs, rep, Detect::Immediate)?)),
            ]
        }
    };

    let recommended = reference.name();
    let rows = sources
        .into_iter()
        .map(|s| row(s, reference.as_ref(), &best, inputs, recommended))
        .collect::<Vec<_>>();

    let iterations = inputs
        .iteration_time
        .map(|it| round_to_iterations(reference.as_ref(), &best, it));
    if let (Some(it), Some(c)) = (inputs.iteration_time, &iterations)
        && !(c.overhead.is_finite() && c.extra_overhead_pct.is_finite())
    {
        return Err(IntervalError::Input {
            name: "iteration-time",
            value: it,
            accepted: "an iteration short enough against the MTBF that one whole-iteration interval can finish between failures (its expected overhead overflows)",
        });
    }
    let mut sensitivity = Vec::new();
    for (parameter, factor) in [("mtbf", 0.5), ("mtbf", 2.0), ("cost", 0.5), ("cost", 2.0)] {
        let changed = if parameter == "mtbf" {
            inputs.with(m * factor, d)
        } else {
            inputs.with(m, d * factor)
        };
        sensitivity.push(sensitivity_at(&changed, parameter, factor, best.interval));
    }
    let allocation = crate::finite::allocation(inputs)?;
    Ok(IntervalAnswer {
        inputs: inputs.clone(),
        mtti_s,
        rows,
        recommended,
        recommended_interval_s: best.interval,
        recommended_overhead: best.overhead(),
        // Beyond f64 range (work near f64::MAX) there is no completion time to give.
        completion_s: inputs
            .work
            .map(|w| w * best.overhead())
            .filter(|c| c.is_finite()),
        iterations,
        sensitivity,
        // A count beyond 2^53 or a completion beyond f64 range leaves the rest of the answer.
        whole_chunks: crate::finite::whole_chunks(inputs, best.interval)
            .ok()
            .flatten(),
        allocation: allocation.map(|(plan, _)| plan),
        allocation_iterations: allocation.and_then(|(_, iterations)| iterations),
    })
}

/// The overhead of `interval` under the model of `inputs`, with that model's optimum.
pub fn sensitivity_at(
    inputs: &IntervalInputs,
    parameter: &'static str,
    factor: f64,
    interval: f64,
) -> Sensitivity {
    let model = reference_model(inputs).ok();
    let at = model.as_ref().map(|m| m.ln_overhead(interval));
    let opt = model
        .as_ref()
        .and_then(|m| optimize::minimize(m.as_ref()).ok());
    let loss = match (at, opt) {
        (Some(a), Some(o)) if a.is_finite() => finite(100.0 * (a - o.ln_overhead).exp_m1()),
        _ => None,
    };
    Sensitivity {
        parameter,
        factor,
        overhead: at.and_then(crate::model::finite_exp),
        optimal_overhead: opt.and_then(|o| crate::model::finite_exp(o.ln_overhead)),
        loss_pct: loss,
    }
}

fn finite(x: f64) -> Option<f64> {
    if x.is_finite() { Some(x) } else { None }
}

fn row(
    source: Source,
    reference: &dyn CostModel,
    best: &Optimum,
    inputs: &IntervalInputs,
    recommended: &str,
) -> Row {
    let (name, kind, method, interval, converged, mut note) = match source {
        Source::Estimate(e) => match e.interval {
            Ok(t) => (e.name, "estimator", Method::ClosedForm, Some(t), None, None),
            Err(why) => (
                e.name,
                "estimator",
                Method::ClosedForm,
                None,
                None,
                Some(why),
            ),
        },
        Source::Cost(model) => {
            let name = model.name();
            if name == recommended {
                (
                    name,
                    "cost-model",
                    Method::Numerical,
                    Some(best.interval),
                    Some(best.converged),
                    None,
                )
            } else {
                match optimize::minimize(model.as_ref()) {
                    Ok(o) => (
                        name,
                        "cost-model",
                        Method::Numerical,
                        Some(o.interval),
                        Some(o.converged),
                        None,
                    ),
                    Err(e) => (
                        name,
                        "cost-model",
                        Method::Numerical,
                        None,
                        Some(false),
                        Some(e.to_string()),
                    ),
                }
            }
        }
    };
    let ln = interval.map(|t| reference.ln_overhead(t));
    let overhead = ln.and_then(crate::model::finite_exp);
    if interval.is_some() && overhead.is_none() && note.is_none() {
        note = Some("no progress: the overhead at this interval is beyond f64 range".into());
    }
    let loss_pct = match ln {
        Some(l) if l.is_finite() => finite((100.0 * (l - best.ln_overhead).exp_m1()).max(0.0)),
        _ => None,
    };
    Row {
        name: name.into(),
        kind: kind.into(),
        interval_s: interval,
        overhead,
        efficiency: overhead.map(|o| 1.0 / o),
        loss_pct,
        expected_failures: interval.and_then(|t| finite(reference.expected_failures(t))),
        method,
        converged,
        completion_s: inputs
            .work
            .and_then(|w| overhead.map(|o| w * o))
            .and_then(finite),
        note,
    }
}

fn round_to_iterations(model: &dyn CostModel, best: &Optimum, iteration: f64) -> IterationChoice {
    let k = (best.interval / iteration).floor().max(1.0);
    let candidates = [k, k + 1.0];
    let mut choice = None;
    for c in candidates {
        let ln = model.ln_overhead(c * iteration);
        if choice.is_none_or(|(_, l)| ln < l) {
            choice = Some((c, ln));
        }
    }
    let (c, ln) = choice.expect("two candidates");
    IterationChoice {
        iterations: c as u64,
        interval_s: c * iteration,
        overhead: ln.exp(),
        extra_overhead_pct: (100.0 * (ln - best.ln_overhead).exp_m1()).max(0.0),
    }
}

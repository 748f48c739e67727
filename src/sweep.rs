//! `ckpt sweep`: how the optimum moves when one input varies.

pub mod multilevel;
pub mod renewal;

use crate::interval::{self, IntervalAnswer, IntervalError, IntervalInputs, Row, Sensitivity};
use crate::model::CostModel;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A sweep that cannot run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SweepError {
    /// The `--vary` specification is malformed.
    #[error(
        "`{value}` is not a sweep: use PARAM=LO..HI with PARAM one of mtbf, cost, restart, procs, replicas, interval (e.g. mtbf=1h..7d)"
    )]
    Spec {
        /// The value given.
        value: String,
    },
    /// The range is empty or reversed.
    #[error("{param}: the range {lo}..{hi} must have 0 < LO < HI")]
    Range {
        /// The parameter.
        param: SweepParam,
        /// The lo.
        lo: f64,
        /// The hi.
        hi: f64,
    },
    /// A duration range that ends beyond what any duration flag accepts.
    #[error(
        "{param}: the range ends at {}; durations are {}",
        crate::units::seconds_in_message(*hi),
        crate::units::TOO_LONG
    )]
    TooLong {
        /// The parameter.
        param: SweepParam,
        /// The upper end (s).
        hi: f64,
    },
    /// A multi-level sweep's range whose ends break [`SweepRange::ends_ok`].
    #[error("{name}: the range {lo}..{hi} must have 0 < LO < HI (0 <= LO for a restart)")]
    Ends {
        /// `levelN.param`.
        name: String,
        /// The lo.
        lo: f64,
        /// The hi.
        hi: f64,
    },
    /// A multi-level sweep of a level the description does not have, or whose per-level flags
    /// do not cover its levels.
    #[error(
        "the sweep varies level {level} of {levels} and says of {flags} levels whether their restart follows the cost"
    )]
    Level {
        /// 1-based level number swept.
        level: usize,
        /// Levels described.
        levels: usize,
        /// Levels the restart flags cover.
        flags: usize,
    },
    /// The parameter does not apply to these inputs.
    #[error("{0}")]
    NotApplicable(String),
    /// A point count out of [`MIN_POINTS`]..=[`MAX_POINTS`].
    #[error("`{points}` is not a point count: a whole number from {MIN_POINTS} to {MAX_POINTS}")]
    Points {
        /// The count given.
        points: usize,
    },
    /// A point could not be computed.
    #[error("at {param} = {}: {source}", crate::text::number(*.value))]
    Point {
        /// The parameter.
        param: SweepParam,
        /// The value given.
        value: f64,
        /// The underlying error.
        source: IntervalError,
    },
}

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SweepParam {
    /// The MTBF (of the job, or of a host with replication).
    Mtbf,
    /// The checkpoint cost.
    Cost,
    /// The restart cost.
    Restart,
    /// The number of processes (replicated model).
    Procs,
    /// The number of replicas (replicated model).
    Replicas,
    /// The checkpoint interval itself: every cost model's overhead along it.
    Interval,
}

impl fmt::Display for SweepParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl SweepParam {
    /// The lower-case name.
    pub fn name(&self) -> &'static str {
        match self {
            SweepParam::Mtbf => "mtbf",
            SweepParam::Cost => "cost",
            SweepParam::Restart => "restart",
            SweepParam::Procs => "procs",
            SweepParam::Replicas => "replicas",
            SweepParam::Interval => "interval",
        }
    }

    /// True for the parameters that are durations (seconds).
    pub fn is_duration(&self) -> bool {
        !matches!(self, SweepParam::Procs | SweepParam::Replicas)
    }
}

/// The values a sweep visits: `points` (at least two) from `lo` to `hi`, evenly or `log`
/// spaced, the ends exactly as given. Every kind of sweep has one (of a model input, a level's
/// input, a shape).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct SweepRange {
    /// Lower end (seconds, a count or a shape).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Number of points asked for.
    pub points: usize,
    /// Log spacing.
    pub log: bool,
}

/// The fewest points a sweep takes.
pub const MIN_POINTS: usize = 2;
/// The most points a sweep takes: every point is computed, kept and plotted.
pub const MAX_POINTS: usize = 100_000;

impl SweepRange {
    /// The rule every sweep's ends follow, whatever reads them (a command line, a shard file):
    /// `0 < LO` (`0 <= LO` where `zero_lo`, a restart), `LO < HI`, `HI` finite, and `LO > 0` on
    /// a log scale.
    pub fn ends_ok(&self, zero_lo: bool) -> bool {
        let lo_ok = if zero_lo {
            self.lo >= 0.0
        } else {
            self.lo > 0.0
        };
        lo_ok && self.hi > self.lo && self.hi.is_finite() && !(self.log && self.lo <= 0.0)
    }

    /// Checks that a point read back from a shard file lies in the range: `Err` says where it
    /// lies instead, `what` naming the point's field.
    pub fn check_value(&self, what: &str, value: f64) -> Result<(), String> {
        if self.lo <= value && value <= self.hi {
            Ok(())
        } else {
            Err(format!(
                "{what} {} outside the range {}..{}",
                crate::text::number(value),
                crate::text::number(self.lo),
                crate::text::number(self.hi)
            ))
        }
    }

    /// Refuses a point count out of [`MIN_POINTS`]..=[`MAX_POINTS`].
    pub fn check_points(&self) -> Result<(), SweepError> {
        if (MIN_POINTS..=MAX_POINTS).contains(&self.points) {
            Ok(())
        } else {
            Err(SweepError::Points {
                points: self.points,
            })
        }
    }

    /// The values, in increasing order.
    ///
    /// ```
    /// use ckpt::sweep::SweepRange;
    /// // Log spacing: the middle of three is the geometric mean of the ends.
    /// let r = SweepRange { lo: 1.0, hi: 100.0, points: 3, log: true };
    /// assert_eq!(r.values(), [1.0, 10.0, 100.0]);
    /// let r = SweepRange { lo: 0.0, hi: 1.0, points: 5, log: false };
    /// assert_eq!(r.values(), [0.0, 0.25, 0.5, 0.75, 1.0]);
    /// // A ratio past f64 (before: `inf` in the middle): the geometric mean, as on any range.
    /// let r = SweepRange { lo: 1e-308, hi: 300.0, points: 3, log: true };
    /// assert!((r.values()[1] / (1e-308f64.sqrt() * 300f64.sqrt()) - 1.0).abs() < 1e-12);
    /// ```
    pub fn values(&self) -> Vec<f64> {
        let n = self.points.max(2);
        let mut v: Vec<f64> = (0..n)
            .map(|i| {
                let f = i as f64 / (n - 1) as f64;
                if self.log {
                    log_between(self.lo, self.hi, f)
                } else {
                    self.lo + (self.hi - self.lo) * f
                }
            })
            .collect();
        // Pin the ends: powf would leave them a rounding away from what the user typed.
        v[0] = self.lo;
        v[n - 1] = self.hi;
        v
    }
}

/// The point a fraction `f` of the way from `lo` to `hi` (both positive) on a log scale. A range
/// whose ratio passes f64 (`1e-308..300`) is spaced in logs, whose sum cannot overflow; any
/// other keeps the ratio's form, which the published sweeps were computed with.
fn log_between(lo: f64, hi: f64, f: f64) -> f64 {
    let ratio = hi / lo;
    if ratio.is_finite() {
        lo * ratio.powf(f)
    } else {
        (lo.ln() + (hi.ln() - lo.ln()) * f).exp()
    }
}

/// A validated sweep: the parameter and the range it takes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct SweepSpec {
    /// What varies.
    pub param: SweepParam,
    /// Its values.
    #[serde(flatten)]
    pub range: SweepRange,
}

impl SweepSpec {
    /// Parses `PARAM=LO..HI`; durations take the forms of [`crate::units::parse_duration`].
    ///
    /// ```
    /// use ckpt::sweep::{SweepParam, SweepSpec};
    /// let s = SweepSpec::parse("mtbf=1h..7d", 50, true).unwrap();
    /// assert_eq!((s.param, s.range.lo, s.range.hi), (SweepParam::Mtbf, 3600.0, 604800.0));
    /// ```
    pub fn parse(text: &str, points: usize, log: bool) -> Result<SweepSpec, SweepError> {
        let err = || SweepError::Spec {
            value: crate::text::shown(text),
        };
        let (name, range) = text.split_once('=').ok_or_else(err)?;
        let param = SweepParam::from_str(name.trim()).map_err(|_| err())?;
        let (lo, hi) = range.split_once("..").ok_or_else(err)?;
        let read = |s: &str| -> Result<f64, SweepError> {
            if param.is_duration() {
                crate::units::parse_duration(s).map_err(|_| err())
            } else {
                s.trim().parse::<u64>().map(|v| v as f64).map_err(|_| err())
            }
        };
        let (lo, hi) = (read(lo)?, read(hi)?);
        if points < 2 {
            return Err(SweepError::Spec {
                value: format!("{text} with {points} points (2 or more)"),
            });
        }
        let spec = SweepSpec {
            param,
            range: SweepRange {
                lo,
                hi,
                points,
                log,
            },
        };
        spec.check_range()?;
        Ok(spec)
    }

    /// Checks the range's ends for this parameter ([`SweepRange::ends_ok`], and durations no
    /// longer than a duration flag takes): for a spec parsed or read back from a shard file.
    pub fn check_range(&self) -> Result<(), SweepError> {
        let (param, lo, hi) = (self.param, self.range.lo, self.range.hi);
        if !self.range.ends_ok(param == SweepParam::Restart) {
            return Err(SweepError::Range { param, lo, hi });
        }
        if param.is_duration() && hi > crate::units::MAX_DURATION_S {
            return Err(SweepError::TooLong { param, hi });
        }
        Ok(())
    }

    /// The values of the parameter, in increasing order (integers deduplicated).
    pub fn values(&self) -> Vec<f64> {
        let mut v = self.range.values();
        if !self.param.is_duration() {
            for x in &mut v {
                *x = x.round();
            }
            v.dedup();
        }
        v
    }
}

impl FromStr for SweepParam {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "mtbf" => SweepParam::Mtbf,
            "cost" => SweepParam::Cost,
            "restart" => SweepParam::Restart,
            "procs" => SweepParam::Procs,
            "replicas" => SweepParam::Replicas,
            "interval" => SweepParam::Interval,
            _ => return Err(()),
        })
    }
}

/// One point of a sweep (deserialized from shard files, whose names come back static).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The parameter's value.
    pub value: f64,
    /// The row that answers at this point.
    pub recommended: crate::interval::Name,
    /// Every row at this point.
    pub models: Vec<Row>,
}

/// The overhead of every cost model along the interval at the base inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    /// Cost model name.
    pub name: &'static str,
    /// `(interval_s, overhead)`; overheads beyond f64 range are left out.
    pub points: Vec<(f64, f64)>,
}

/// A sweep's results: the base answer, the points, and what the plots need.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepResult {
    /// What was swept.
    pub spec: SweepSpec,
    /// The answer at the inputs as given.
    pub base: IntervalAnswer,
    /// One entry per value.
    pub points: Vec<SweepPoint>,
    /// Every cost model's overhead vs interval at the base inputs.
    pub curves: Vec<Curve>,
    /// Overhead of the base recommendation if MTBF or cost is 0.25x to 4x.
    pub sensitivity: Vec<Sensitivity>,
}

/// The one-level sweep: `inputs` with one parameter varied as `spec` says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPlan {
    /// The validated model inputs.
    pub inputs: IntervalInputs,
    /// What varies, over which range.
    pub spec: SweepSpec,
}

impl SweepPlan {
    /// The values of the parameter, as [`SweepSpec::values`].
    pub fn values(&self) -> Vec<f64> {
        self.spec.values()
    }
}

/// `point` at the values `range` of `values` (one shard's slice), computed in parallel and
/// returned in order; `tick` is called once per finished point. Every kind of sweep slices its
/// values this way, so that a shard's points are those of the whole sweep.
pub fn slice_points<P: Send, E: Send>(
    values: &[f64],
    range: std::ops::Range<usize>,
    tick: &(dyn Fn() + Sync),
    point: impl Fn(f64) -> Result<P, E> + Sync,
) -> Result<Vec<P>, E> {
    use rayon::prelude::*;
    values
        .get(range)
        .unwrap_or_default()
        .par_iter()
        .map(|&v| {
            let p = point(v)?;
            tick();
            Ok(p)
        })
        .collect()
}

fn set(
    inputs: &IntervalInputs,
    param: SweepParam,
    value: f64,
) -> Result<IntervalInputs, SweepError> {
    let mut i = inputs.clone();
    let na = |what: &str| {
        SweepError::NotApplicable(format!(
            "{what} varies only the replicated model: give --procs and/or --replicas"
        ))
    };
    match param {
        SweepParam::Mtbf => {
            i.mtbf = value;
            i.nodes = None;
        }
        SweepParam::Cost => i.cost = value,
        SweepParam::Restart => i.restart = value,
        SweepParam::Procs => {
            i.replication.as_mut().ok_or_else(|| na("procs"))?.procs = value as u64
        }
        SweepParam::Replicas => {
            let r = i.replication.as_mut().ok_or_else(|| na("replicas"))?;
            if value > 64.0 {
                return Err(SweepError::NotApplicable(format!(
                    "--vary replicas: a point at {value} replicas, beyond the 64 the replicated model takes (end the range at 64 at most)"
                )));
            }
            r.replicas = value as u32;
        }
        SweepParam::Interval => {}
    }
    Ok(i)
}

/// Log-spaced factors from 0.25 to 4 for the sensitivity plot.
pub fn sensitivity_factors() -> Vec<f64> {
    (0..=32)
        .map(|i| 0.25 * 16f64.powf(i as f64 / 32.0))
        .collect()
}

/// Checks that `spec` applies to `inputs` before any work is done.
pub fn check(inputs: &IntervalInputs, spec: &SweepSpec) -> Result<(), SweepError> {
    spec.range.check_points()?;
    spec.check_range()?;
    set(inputs, spec.param, spec.range.lo)?;
    // The given inputs answer (the report's base), as every point's inputs must.
    base_answer(inputs, spec).map(|_| ())
}

/// Checks a point read back from a shard file against `plan` and the sweep's `first` point:
/// its value within the range, at least one model row, each model once, the same models in the
/// same order as the first point (every point of a sweep answers with the same models), and the
/// recommended model among them. `Err` says what does not fit.
pub fn check_point(plan: &SweepPlan, point: &SweepPoint, first: &SweepPoint) -> Result<(), String> {
    plan.spec.range.check_value("value", point.value)?;
    let names: Vec<&str> = point.models.iter().map(|r| r.name.as_ref()).collect();
    if names.is_empty() {
        return Err("no model rows".into());
    }
    // A set, not a scan of the rows before each: an edited file may hold any number of rows.
    let mut seen = std::collections::HashSet::new();
    if let Some((i, n)) = names.iter().enumerate().find(|&(_, n)| !seen.insert(*n)) {
        return Err(format!(
            "model `{}` twice (row {})",
            crate::text::escaped(n),
            i + 1
        ));
    }
    let expected: Vec<&str> = first.models.iter().map(|r| r.name.as_ref()).collect();
    if names != expected {
        return Err(format!(
            "models {} where the first point has {}",
            crate::text::escaped(&names.join(", ")),
            crate::text::escaped(&expected.join(", "))
        ));
    }
    if !names.contains(&point.recommended.as_ref()) {
        return Err(format!(
            "recommended model `{}` has no row",
            crate::text::escaped(&point.recommended)
        ));
    }
    Ok(())
}

/// Runs the sweep; `tick` is called once per finished point (in any order).
pub fn run(
    inputs: &IntervalInputs,
    spec: &SweepSpec,
    tick: &(dyn Fn() + Sync),
) -> Result<SweepResult, SweepError> {
    let plan = SweepPlan {
        inputs: inputs.clone(),
        spec: *spec,
    };
    let n = spec.values().len();
    let points = points(&plan, 0..n, tick)?;
    finish(&plan, points)
}

fn base_answer(
    inputs: &IntervalInputs,
    spec: &SweepSpec,
) -> Result<(IntervalAnswer, Box<dyn CostModel>), SweepError> {
    let at_base = |source| SweepError::Point {
        param: spec.param,
        value: f64::NAN,
        source,
    };
    let base = interval::compute(inputs).map_err(at_base)?;
    let reference = interval::reference_model(inputs).map_err(at_base)?;
    Ok((base, reference))
}

/// The points `range` of [`SweepSpec::values`] (one shard's slice), in order; `tick` is
/// called once per finished point.
pub fn points(
    plan: &SweepPlan,
    range: std::ops::Range<usize>,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<SweepPoint>, SweepError> {
    let (inputs, spec) = (&plan.inputs, &plan.spec);
    let (base, reference) = base_answer(inputs, spec)?;
    slice_points(&spec.values(), range, tick, |value| {
        point(inputs, &base, reference.as_ref(), spec.param, value)
    })
}

/// The sweep from all its points in order (those [`points`] gives for the whole range, or
/// the concatenated slices of shards): the base answer, the curves and the sensitivity.
pub fn finish(plan: &SweepPlan, points: Vec<SweepPoint>) -> Result<SweepResult, SweepError> {
    let (inputs, spec) = (&plan.inputs, &plan.spec);
    let (base, _) = base_answer(inputs, spec)?;
    let curves = curves(inputs, &base, spec);
    let sensitivity = sensitivity_factors()
        .into_iter()
        .flat_map(|f| {
            [
                interval::sensitivity_at(
                    &inputs_with(inputs, inputs.mtbf * f, inputs.cost),
                    "mtbf",
                    f,
                    base.recommended_interval_s,
                ),
                interval::sensitivity_at(
                    &inputs_with(inputs, inputs.mtbf, inputs.cost * f),
                    "cost",
                    f,
                    base.recommended_interval_s,
                ),
            ]
        })
        .collect();
    Ok(SweepResult {
        spec: *spec,
        base,
        points,
        curves,
        sensitivity,
    })
}

fn inputs_with(inputs: &IntervalInputs, mtbf: f64, cost: f64) -> IntervalInputs {
    IntervalInputs {
        mtbf,
        cost,
        ..inputs.clone()
    }
}

fn point(
    inputs: &IntervalInputs,
    base: &IntervalAnswer,
    reference: &dyn CostModel,
    param: SweepParam,
    value: f64,
) -> Result<SweepPoint, SweepError> {
    if param == SweepParam::Interval {
        // Every cost model row at this interval, judged under the reference as the rows are.
        let best = base.recommended_overhead.ln();
        let ln = reference.ln_overhead(value);
        let overhead = crate::model::finite_exp(ln);
        let models = base
            .rows
            .iter()
            .filter(|r| r.kind == "cost-model")
            .map(|r| Row {
                interval_s: Some(value),
                overhead,
                efficiency: overhead.map(|o| 1.0 / o),
                loss_pct: overhead.map(|_| (100.0 * (ln - best).exp_m1()).max(0.0)),
                expected_failures: Some(reference.expected_failures(value))
                    .filter(|x| x.is_finite()),
                completion_s: inputs.work.and_then(|w| overhead.map(|o| w * o)),
                note: None,
                ..r.clone()
            })
            .collect();
        return Ok(SweepPoint {
            value,
            recommended: base.recommended.into(),
            models,
        });
    }
    let i = set(inputs, param, value)?;
    let a = interval::compute(&i).map_err(|source| SweepError::Point {
        param,
        value,
        source,
    })?;
    Ok(SweepPoint {
        value,
        recommended: a.recommended.into(),
        models: a.rows,
    })
}

fn curves(inputs: &IntervalInputs, base: &IntervalAnswer, spec: &SweepSpec) -> Vec<Curve> {
    let chosen: Vec<f64> = base.rows.iter().filter_map(|r| r.interval_s).collect();
    let (mut lo, mut hi) = chosen
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), &t| (l.min(t), h.max(t)));
    lo /= 4.0;
    hi *= 4.0;
    if spec.param == SweepParam::Interval {
        lo = lo.min(spec.range.lo);
        hi = hi.max(spec.range.hi);
    }
    let n = 200;
    let taus: Vec<f64> = (0..n)
        .map(|i| log_between(lo, hi, i as f64 / (n - 1) as f64))
        .collect();
    let mut out = Vec::new();
    if let Ok(reference) = interval::reference_model(inputs) {
        out.push(curve(reference.name(), reference.as_ref(), &taus));
    }
    out
}

fn curve(name: &'static str, model: &dyn CostModel, taus: &[f64]) -> Curve {
    Curve {
        name,
        points: taus
            .iter()
            .filter_map(|&t| model.overhead(t).map(|o| (t, o)))
            .collect(),
    }
}

//! `ckpt validate`: every model's predicted interval held against simulation (docs/simulation.md
//! §4). The periodic and replicated simulators run at every row's interval and on a
//! log-spaced grid around the recommended one, with common random numbers: run `i` uses the
//! stream `(seed, i)` at every interval, so differences between intervals are measured on the
//! same failure histories.

use crate::failure::Lifetime;
use crate::interval::{self, IntervalAnswer, IntervalError, IntervalInputs};
use crate::model::replicated::Detect;
use crate::sim::periodic::{self, Failures, PeriodicConfig};
use crate::sim::replicated::{self as rsim, ReplicatedConfig};
use crate::sim::run::{Scenario, SimError, replicate_range};
use crate::sim::stats::{Estimate, t_quantile_975};
use crate::units::{Nanos, chunk_ns, ns_to_secs, secs_to_ns};
use serde::Serialize;
use thiserror::Error;

pub mod allocation;
pub mod multilevel;
pub mod renewal;
pub mod stencil;

/// Why a validation cannot run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ValidateError {
    /// The models could not answer.
    #[error(transparent)]
    Interval(#[from] IntervalError),
    /// A simulation could not run.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// Settings that make no sense together.
    #[error("{0}")]
    Conflict(String),
}

/// Which simulator checks the models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SimKind {
    /// One coordinated job (docs/simulation.md §1): the setting of Young's and Daly's models.
    Periodic,
    /// n processes x r replicas (docs/simulation.md §2).
    Replicated,
}

impl SimKind {
    /// The simulator's name, as `--sim` takes it and the JSON and tables name it.
    pub fn name(self) -> &'static str {
        match self {
            SimKind::Periodic => "periodic",
            SimKind::Replicated => "replicated",
        }
    }
}

/// Simulator settings beyond the model inputs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct SimOptions {
    /// Useful work per simulated job (s).
    pub work_s: f64,
    /// Replications per interval.
    pub runs: u64,
    /// Seed of the common random numbers.
    pub seed: u64,
    /// Points of the grid around the recommended interval (0.25x to 4x).
    pub grid_points: usize,
    /// Replicated: survivors keep their age across intervals (the model assumes they do not).
    pub aging: bool,
    /// Replicated `immediate`: a loss is noticed this long after it happens (s).
    pub heartbeat_s: f64,
}

/// Simulated overhead at one interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GridPoint {
    /// The work interval (s).
    pub interval_s: f64,
    /// Mean simulated overhead (wall time / work) with its CI.
    pub overhead: Estimate,
    /// The reference model's expected overhead there.
    pub model_overhead: Option<f64>,
    /// Within the optimal region (not significantly worse than the empirical optimum).
    pub optimal_region: bool,
    /// A point of the log grid (the others are rows' intervals).
    pub on_grid: bool,
}

/// One row's prediction against the simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The row.
    pub name: crate::interval::Name,
    /// Its interval (s).
    pub interval_s: f64,
    /// The model's expected overhead at it (reference model).
    pub predicted_overhead: Option<f64>,
    /// The simulated overhead at it.
    pub simulated_overhead: Estimate,
    /// `(predicted - simulated) / stderr`.
    pub z: Option<f64>,
    /// Paired relative excess of mean wall time over the empirical optimum, in percent.
    pub regret_pct: Estimate,
    /// In the optimal region, or the regret's CI contains 0.
    pub confirmed: bool,
}

/// The whole validation.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    /// Simulator used.
    pub sim: SimKind,
    /// Its settings.
    pub options: SimOptions,
    /// What the models say.
    pub answer: IntervalAnswer,
    /// Every simulated interval, ascending.
    pub points: Vec<GridPoint>,
    /// The simulated interval (grid or row) with the lowest mean overhead.
    pub empirical_optimum_s: f64,
    /// The optimal region's smallest and largest intervals (grid and rows).
    pub optimal_region_s: [f64; 2],
    /// One verdict per row with an interval.
    pub verdicts: Vec<Verdict>,
    /// Where the simulator departs from the model's assumptions (aging, heartbeat, ...).
    pub assumptions_hold: bool,
    /// Why not, when they do not.
    pub assumption_notes: Vec<String>,
}

/// [`at_simulated`] at the interval `interval_s`, the simulated length `work` set by `field`.
fn sim_error_for_interval(
    e: SimError,
    interval_s: f64,
    work: Nanos,
    field: &'static str,
) -> ValidateError {
    let at = format!(
        "at the interval {}",
        crate::units::format_duration(interval_s)
    );
    ValidateError::Sim(at_simulated(e, &at, work, field))
}

/// A simulator's refusal of a setup a validation built, `at` saying which (`at the interval
/// 5m 0s`): no progress says where; an interval the job's checkpoints cannot fit in the
/// simulators' clock is the fault of the simulated length `work`, set by the input `field`
/// (`work`, or `walltime` for a run in an allocation), since the validation, not the user,
/// chose the interval.
pub(crate) fn at_simulated(e: SimError, at: &str, work: Nanos, field: &'static str) -> SimError {
    match e {
        SimError::NoProgress(m) => SimError::NoProgress(format!("{at}: {m}")),
        SimError::Invalid {
            field: "interval",
            accepted,
            ..
        } => SimError::Invalid {
            field,
            value: format!("{}s", ns_to_secs(work)),
            accepted: format!(
                "{} the simulators' 584-year clock holds at every interval simulated; {at}, {accepted}",
                if field == "walltime" {
                    "a walltime"
                } else {
                    "work"
                }
            ),
        },
        other => other,
    }
}

/// A simulator set up for the validation, as a function of the interval.
enum Setup {
    Periodic(PeriodicConfig),
    Replicated(ReplicatedConfig),
}

impl Setup {
    fn new(inputs: &IntervalInputs, sim: SimKind, o: &SimOptions) -> Result<Setup, ValidateError> {
        let work = secs_to_ns(o.work_s);
        let cost = secs_to_ns(inputs.cost);
        Ok(match sim {
            SimKind::Periodic => {
                if inputs.replication.is_some() {
                    return Err(ValidateError::Conflict(
                        "--sim periodic simulates one job: drop --procs/--replicas, or use --sim replicated".into(),
                    ));
                }
                let failures = exponential_failures(inputs)?;
                Setup::Periodic(PeriodicConfig {
                    work,
                    interval: 1,
                    cost,
                    restart: secs_to_ns(inputs.restart),
                    failures,
                    final_checkpoint: true,
                    walltime: None,
                    asynchronous: inputs
                        .asynchronous
                        .map(|a| periodic::AsyncWrite::new(a.write_s, a.slowdown))
                        .transpose()?,
                    signal_lead: None,
                })
            }
            SimKind::Replicated => {
                let rep = inputs.replication.ok_or_else(|| {
                    ValidateError::Conflict(
                        "--sim replicated needs --procs and/or --replicas".into(),
                    )
                })?;
                let (restart, heartbeat) = match rep.detect {
                    Detect::End => {
                        if o.heartbeat_s > 0.0 {
                            return Err(ValidateError::Conflict(
                                "--heartbeat needs --detect immediate".into(),
                            ));
                        }
                        (0, 0)
                    }
                    Detect::Immediate => (secs_to_ns(inputs.restart), secs_to_ns(o.heartbeat_s)),
                };
                Setup::Replicated(ReplicatedConfig {
                    work,
                    interval: 1,
                    cost,
                    procs: rep.procs,
                    replicas: rep.replicas as u64,
                    lifetime: Lifetime::new(rep.shape, inputs.mtbf).map_err(IntervalError::from)?,
                    detect: rep.detect,
                    restart,
                    heartbeat,
                    aging: o.aging,
                    walltime: None,
                })
            }
        })
    }

    /// The job's work.
    fn work(&self) -> Nanos {
        match self {
            Setup::Periodic(c) => c.work,
            Setup::Replicated(c) => c.work,
        }
    }

    fn check(&self, interval: Nanos) -> Result<(), SimError> {
        match self {
            Setup::Periodic(c) => PeriodicConfig {
                interval,
                ..c.clone()
            }
            .validate(),
            Setup::Replicated(c) => ReplicatedConfig {
                interval,
                ..c.clone()
            }
            .validate(),
        }
    }

    /// The memory one run holds of its own, whatever the interval.
    fn run_bytes(&self) -> u64 {
        match self {
            Setup::Periodic(c) => c.run_bytes(),
            Setup::Replicated(c) => c.run_bytes(),
        }
    }

    /// Wall time of run `run` at `interval`.
    fn wall(&self, interval: Nanos, seed: u64, run: u64) -> Result<Nanos, SimError> {
        match self {
            Setup::Periodic(c) => {
                let cfg = PeriodicConfig {
                    interval,
                    ..c.clone()
                };
                periodic::simulate_run(&cfg, seed, run).map(|r| r.wall)
            }
            Setup::Replicated(c) => {
                let cfg = ReplicatedConfig {
                    interval,
                    ..c.clone()
                };
                rsim::simulate_run(&cfg, seed, run).map(|r| r.wall)
            }
        }
    }
}

/// The exponential failures of one job's `inputs` as the periodic simulator draws them: of
/// `--nodes` exponential nodes when given (their superposition is the system's exponential),
/// else of the platform.
fn exponential_failures(inputs: &IntervalInputs) -> Result<Failures, ValidateError> {
    Ok(match inputs.nodes {
        Some(n) => Failures::Nodes {
            node: Lifetime::exponential(n.node_mtbf_s).map_err(IntervalError::from)?,
            nodes: n.count,
            partners: 0,
        },
        None => {
            Failures::Platform(Lifetime::exponential(inputs.mtbf).map_err(IntervalError::from)?)
        }
    })
}

/// The default simulator for `inputs`: replicated when the replicated model applies.
pub fn default_sim(inputs: &IntervalInputs) -> SimKind {
    if inputs.replication.is_some() {
        SimKind::Replicated
    } else {
        SimKind::Periodic
    }
}

/// The log-spaced grid from 0.25x to 4x of `center`.
pub fn grid(center: f64, points: usize) -> Vec<f64> {
    let n = points.max(2);
    (0..n)
        .map(|i| center * 0.25 * 16f64.powf(i as f64 / (n - 1) as f64))
        .collect()
}

/// Every interval a validation simulates, on whole nanoseconds, ascending and each once: the
/// [`grid`] of `points` around `center` (marked `true`), then the `rows`' own intervals not
/// already on it.
pub(crate) fn simulated_intervals(
    center: f64,
    points: usize,
    rows: impl Iterator<Item = Nanos>,
) -> Vec<(Nanos, bool)> {
    let mut taus: Vec<(Nanos, bool)> = grid(center, points)
        .into_iter()
        .map(|t| (chunk_ns(t), true))
        .collect();
    for ns in rows {
        if !taus.iter().any(|(x, _)| *x == ns) {
            taus.push((ns, false));
        }
    }
    taus.sort();
    taus
}

/// The empirical optimum of a set of simulated alternatives and the alternatives not
/// significantly worse than it (docs/simulation.md §4).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Optimum {
    /// Index of the alternative with the lowest mean (the first on a tie).
    pub best: usize,
    /// Per alternative: the optimum itself, or the 95% CI of its paired difference to the
    /// optimum reaches down to 0.
    pub region: Vec<bool>,
}

/// The rule every validation form applies: `samples[j][i]` is run `i` of alternative `j`, all
/// alternatives measured on the same runs (common random numbers). Every alternative competes,
/// so no paired difference to the optimum has a negative mean, and none is significantly
/// negative. `None` when there is no alternative.
pub(crate) fn optimum(samples: &[Vec<f64>]) -> Option<Optimum> {
    let means: Vec<f64> = samples
        .iter()
        .map(|s| s.iter().sum::<f64>() / s.len().max(1) as f64)
        .collect();
    let best = (0..samples.len()).min_by(|&a, &b| means[a].total_cmp(&means[b]))?;
    let region = (0..samples.len())
        .map(|j| j == best || paired(&samples[j], &samples[best]).ci95[0] <= 0.0)
        .collect();
    Some(Optimum { best, region })
}

/// `|z|` below this is agreement between a prediction and its simulation
/// (`docs/simulation.md` §4).
pub const Z_AGREES: f64 = 4.0;

/// Whether a prediction agrees with its simulation: `|z| <` [`Z_AGREES`]. Where there is no z
/// because every run came out alike (no failure could strike, say), the outcome is exact and
/// the prediction is held to it within `tolerance`, the model's own precision, instead.
pub(crate) fn agrees(
    z: Option<f64>,
    predicted: Option<f64>,
    simulated: &Estimate,
    tolerance: f64,
) -> bool {
    match z {
        Some(z) => z.abs() < Z_AGREES,
        None => {
            simulated.all_alike()
                && predicted.is_some_and(|p| (p - simulated.point).abs() <= tolerance)
        }
    }
}

/// `(predicted - simulated) / stderr`, the z every validation reports: `None` without a
/// prediction, or where the runs show no spread (one run, or every run alike).
pub(crate) fn z_of(predicted: Option<f64>, simulated: &Estimate) -> Option<f64> {
    Some((predicted? - simulated.point) / simulated.spread()?)
}

/// Mean and CI of paired differences `a_i - b_i`.
pub(crate) fn paired(a: &[f64], b: &[f64]) -> Estimate {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    Estimate::from_samples(&d)
}

pub(crate) fn scaled(e: Estimate, by: f64) -> Estimate {
    Estimate {
        point: e.point * by,
        stderr: e.stderr.map(|s| s * by),
        ci95: [e.ci95[0] * by, e.ci95[1] * by],
        runs: e.runs,
    }
}

/// The predicted overhead of the simulated job at an interval: the reference model's, or with
/// asynchronous checkpoints the finite job's expected wall time over its work
/// (`docs/models.md` §11; below the wait rule's edge, where that is not derived, the model's).
struct Predictor {
    model: Box<dyn crate::model::CostModel>,
    finite: Option<(crate::model::asynchronous::AsyncComplete, f64)>,
}

impl Predictor {
    fn new(inputs: &IntervalInputs, options: &SimOptions) -> Result<Predictor, ValidateError> {
        Ok(Predictor {
            model: interval::reference_model(inputs)?,
            finite: crate::finite::async_model(inputs)?.map(|a| (a, options.work_s)),
        })
    }

    fn overhead(&self, t: f64) -> Option<f64> {
        self.finite
            .and_then(|(m, work)| m.expected_wall(work, t).ok().map(|w| w / work))
            .or_else(|| self.model.overhead(t))
    }
}

/// What a validation simulates: the models' answer and the intervals, on whole nanoseconds.
struct Plan {
    answer: IntervalAnswer,
    setup: Setup,
    reference: Predictor,
    taus: Vec<(Nanos, bool)>,
    intervals: Vec<Nanos>,
}

fn plan(
    inputs: &IntervalInputs,
    sim: SimKind,
    options: &SimOptions,
) -> Result<Plan, ValidateError> {
    enough_runs(options.runs)?;
    grid_size(options.grid_points)?;
    let answer = interval::compute(inputs)?;
    let setup = Setup::new(inputs, sim, options)?;
    let reference = Predictor::new(inputs, options)?;

    let rows = answer
        .rows
        .iter()
        .filter_map(|r| r.interval_s.map(chunk_ns));
    let taus = simulated_intervals(answer.recommended_interval_s, options.grid_points, rows);
    for &(t, _) in &taus {
        setup
            .check(t)
            .map_err(|e| sim_error_for_interval(e, ns_to_secs(t), setup.work(), "work"))?;
    }
    let intervals: Vec<Nanos> = taus.iter().map(|p| p.0).collect();
    Ok(Plan {
        answer,
        setup,
        reference,
        taus,
        intervals,
    })
}

/// The fewest intervals (or patterns) a validation's grid takes: an optimum needs neighbours.
pub const MIN_GRID_POINTS: usize = 3;
/// The most: every one is simulated in every run and kept until the reduction.
pub const MAX_GRID_POINTS: usize = 1000;

/// Refuses a grid size out of [`MIN_GRID_POINTS`]..=[`MAX_GRID_POINTS`].
pub(crate) fn grid_size(points: usize) -> Result<(), ValidateError> {
    if (MIN_GRID_POINTS..=MAX_GRID_POINTS).contains(&points) {
        return Ok(());
    }
    Err(ValidateError::Sim(SimError::Invalid {
        field: "points",
        value: points.to_string(),
        accepted: format!("a whole number from {MIN_GRID_POINTS} to {MAX_GRID_POINTS}"),
    }))
}

/// Refuses fewer than two runs: every validation reports confidence intervals.
pub(crate) fn enough_runs(runs: u64) -> Result<(), ValidateError> {
    if runs < 2 {
        return Err(ValidateError::Sim(SimError::Invalid {
            field: "runs",
            value: runs.to_string(),
            accepted: "at least 2 (confidence intervals need two runs)".into(),
        }));
    }
    Ok(())
}

/// The memory one run of [`paired_walls`] keeps until the reduction: one wall time a
/// candidate, in a vector of its own.
pub(crate) fn paired_bytes(candidates: usize) -> u64 {
    (std::mem::size_of::<Vec<Nanos>>() + candidates * std::mem::size_of::<Nanos>()) as u64
}

/// The wall time of runs `range` (one shard's slice) under each candidate (an interval, a
/// pattern, a policy), in run order: one task per run, simulating every candidate on the run's
/// own stream, so that differences between candidates are measured on the same failures.
/// `run_bytes` is the most memory one candidate's run holds (they run one after another).
pub(crate) fn paired_walls<C: Sync>(
    candidates: &[C],
    range: std::ops::Range<u64>,
    threads: usize,
    run_bytes: u64,
    tick: &(dyn Fn() + Sync),
    wall: impl Fn(&C, u64) -> Result<Nanos, ValidateError> + Sync,
) -> Result<Vec<Vec<Nanos>>, ValidateError> {
    let kept = paired_bytes(candidates.len());
    crate::sim::run::check_results(range.end.saturating_sub(range.start), kept)?;
    replicate_range(range, threads, run_bytes, tick, |i| {
        candidates.iter().map(|c| wall(c, i)).collect()
    })
}

/// A validation on common random numbers whose candidates (patterns, policies, intervals in an
/// allocation) are simulator configs: it names them and what one run of one measures, and
/// [`paired_runs`] runs them all on the same failures.
pub trait PairedCheck: Sync {
    /// One candidate's simulator config.
    type Candidate: Scenario + Sync;
    /// The candidates in report order, checked before any run.
    fn candidates(&self) -> Result<Vec<Self::Candidate>, ValidateError>;
    /// What run `run` of `candidate` measures: its wall time, or the work it saves.
    fn measure(&self, candidate: &Self::Candidate, run: u64) -> Result<Nanos, ValidateError>;
}

/// What runs `range` of every candidate of `check` measure (one shard's slice), in run order.
pub fn paired_runs<P: PairedCheck>(
    check: &P,
    threads: usize,
    range: std::ops::Range<u64>,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Vec<Nanos>>, ValidateError> {
    let candidates = check.candidates()?;
    let run_bytes = candidates
        .iter()
        .map(Scenario::run_bytes)
        .max()
        .unwrap_or(0);
    paired_walls(&candidates, range, threads, run_bytes, tick, |c, i| {
        check.measure(c, i)
    })
}

/// Every candidate's overhead run by run, `[candidate][run]`: wall time over `work(candidate)`
/// (ns). Shard files are only as good as their content, so `per_run` must hold `runs` runs of
/// all `n` candidates (`what` names them in the refusal) rather than be indexed out of range.
pub(crate) fn overheads(
    per_run: &[Vec<Nanos>],
    runs: u64,
    n: usize,
    what: &str,
    work: impl Fn(usize) -> f64,
) -> Result<Vec<Vec<f64>>, ValidateError> {
    if per_run.len() as u64 != runs || per_run.iter().any(|r| r.len() != n) {
        return Err(ValidateError::Conflict(format!(
            "{runs} runs of {n} {what} were expected; the results given do not match"
        )));
    }
    Ok((0..n)
        .map(|j| {
            let work = work(j);
            per_run.iter().map(|r| r[j] as f64 / work).collect()
        })
        .collect())
}

/// The wall time of runs `range` at every simulated interval (one shard's slice), in run order.
pub fn per_run(
    inputs: &IntervalInputs,
    sim: SimKind,
    options: &SimOptions,
    threads: usize,
    range: std::ops::Range<u64>,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Vec<Nanos>>, ValidateError> {
    let p = plan(inputs, sim, options)?;
    paired_walls(
        &p.intervals,
        range,
        threads,
        p.setup.run_bytes(),
        tick,
        |&t, i| {
            p.setup
                .wall(t, options.seed, i)
                .map_err(|e| sim_error_for_interval(e, ns_to_secs(t), p.setup.work(), "work"))
        },
    )
}

/// The memory one run of [`per_run`] keeps until [`finish`]: a wall time per simulated interval.
pub fn kept_bytes(
    inputs: &IntervalInputs,
    sim: SimKind,
    options: &SimOptions,
) -> Result<u64, ValidateError> {
    Ok(paired_bytes(interval_count(inputs, sim, options)?))
}

/// How many intervals the validation simulates in every run, once its inputs pass the checks
/// a new validation gets (those of [`run`], before any run).
pub fn interval_count(
    inputs: &IntervalInputs,
    sim: SimKind,
    options: &SimOptions,
) -> Result<usize, ValidateError> {
    Ok(plan(inputs, sim, options)?.intervals.len())
}

/// Runs the validation; `tick` is called once per finished run (of all intervals).
pub fn run(
    inputs: &IntervalInputs,
    sim: SimKind,
    options: &SimOptions,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Validation, ValidateError> {
    let runs = per_run(inputs, sim, options, threads, 0..options.runs, tick)?;
    finish(inputs, sim, options, runs)
}

/// The validation from every run's wall times (what [`per_run`] gives for all runs).
pub fn finish(
    inputs: &IntervalInputs,
    sim: SimKind,
    options: &SimOptions,
    per_run: Vec<Vec<Nanos>>,
) -> Result<Validation, ValidateError> {
    let Plan {
        answer,
        reference,
        taus,
        intervals,
        ..
    } = plan(inputs, sim, options)?;
    let work = secs_to_ns(options.work_s) as f64;
    // overhead[j][i]: interval j, run i.
    let overhead = overheads(&per_run, options.runs, intervals.len(), "intervals", |_| {
        work
    })?;
    let means: Vec<Estimate> = overhead.iter().map(|o| Estimate::from_samples(o)).collect();

    // Every simulated interval competes, the rows' own included: an optimum taken over the grid
    // alone let a row between two grid points beat it significantly.
    let Optimum {
        best,
        region: in_region,
    } = optimum(&overhead).ok_or_else(|| {
        ValidateError::Conflict("no interval was simulated; nothing to compare".into())
    })?;
    let region: Vec<f64> = (0..intervals.len())
        .filter(|&j| in_region[j])
        .map(|j| intervals[j] as f64 / 1e9)
        .collect();
    let region_s = [
        region.iter().cloned().fold(f64::INFINITY, f64::min),
        region.iter().cloned().fold(0.0, f64::max),
    ];

    let points = (0..intervals.len())
        .map(|j| {
            let t = intervals[j] as f64 / 1e9;
            GridPoint {
                interval_s: t,
                overhead: means[j],
                model_overhead: reference.overhead(t),
                optimal_region: in_region[j],
                on_grid: taus[j].1,
            }
        })
        .collect();

    let best_mean = means[best].point;
    let verdicts = answer
        .rows
        .iter()
        .filter_map(|r| {
            let t = r.interval_s?;
            let j = intervals.iter().position(|&x| x == chunk_ns(t))?;
            let regret = scaled(paired(&overhead[j], &overhead[best]), 100.0 / best_mean);
            let predicted = reference.overhead(t);
            let sim_mean = means[j];
            let z = z_of(predicted, &sim_mean);
            let inside = t >= region_s[0] && t <= region_s[1];
            Some(Verdict {
                name: r.name.clone(),
                interval_s: t,
                predicted_overhead: predicted,
                simulated_overhead: sim_mean,
                z,
                regret_pct: regret,
                confirmed: inside || regret.ci95[0] <= 0.0,
            })
        })
        .collect();

    let mut notes = Vec::new();
    if sim == SimKind::Periodic && inputs.downtime > 0.0 {
        notes.push(format!(
            "a downtime of {}: the model adds it after every failure, while the simulator restarts at once",
            crate::units::format_duration(inputs.downtime)
        ));
    }
    if let (SimKind::Replicated, Some(rep)) = (sim, inputs.replication) {
        if options.aging && !rep.shape.is_exponential() {
            notes.push(format!(
                "--aging with {} lifetimes: survivors keep their age, while the model assumes fresh replicas at every interval",
                rep.shape
            ));
        }
        if options.heartbeat_s > 0.0 {
            notes.push(format!(
                "a heartbeat of {}: losses are noticed late, while the `immediate` model acts at once",
                crate::units::format_duration(options.heartbeat_s)
            ));
        }
    }
    Ok(Validation {
        sim,
        options: *options,
        answer,
        points,
        empirical_optimum_s: intervals[best] as f64 / 1e9,
        optimal_region_s: region_s,
        verdicts,
        assumptions_hold: notes.is_empty(),
        assumption_notes: notes,
    })
}

/// The t quantile used for the paired CIs (exposed for reports that explain them).
pub fn ci_quantile(runs: u64) -> f64 {
    t_quantile_975(runs.saturating_sub(1).max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten paired runs: a common history plus each alternative's own offsets.
    fn runs(offsets: impl Fn(usize) -> f64) -> Vec<f64> {
        (0..10)
            .map(|i| 3.0 + 0.2 * (i as f64 * 1.7).sin() + offsets(i))
            .collect()
    }

    #[test]
    fn the_optimum_is_the_lowest_mean_of_every_alternative() {
        let samples = vec![
            // A grid point, clearly worse.
            runs(|_| 0.05),
            // A row's interval between grid points: the best.
            runs(|_| 0.0),
            // Worse by +0.002/-0.001 alternately: mean +0.0005, sd 0.00158, so the paired CI
            // is 0.0005 +- 2.262 * 0.0005, reaching below 0.
            runs(|i| if i % 2 == 0 { 0.002 } else { -0.001 }),
            // Worse by exactly 0.001 in every run: a CI of zero width, significantly worse.
            runs(|_| 0.001),
        ];
        let o = optimum(&samples).unwrap();
        assert_eq!(o.best, 1);
        assert_eq!(o.region, vec![false, true, true, false]);
        // Against the optimum no alternative is better, let alone significantly.
        for s in &samples {
            let d = paired(s, &samples[o.best]);
            assert!(d.point >= 0.0 && d.ci95[1] >= 0.0, "{d:?}");
        }
    }

    #[test]
    fn a_tie_goes_to_the_first_and_nothing_has_no_optimum() {
        let a = runs(|_| 0.0);
        let o = optimum(&[runs(|_| 1.0), a.clone(), a]).unwrap();
        assert_eq!(o.best, 1);
        assert_eq!(o.region, vec![false, true, true]);
        assert_eq!(optimum(&[]), None);
    }
}

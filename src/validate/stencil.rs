//! The stencil validation (docs/simulation.md §4, last rule): every valid checkpoint level
//! under both recovery strategies, each level's interval and checkpoint cost, the level every
//! model row predicts, the empirical best level, and the regret of the prediction.

use super::ValidateError;
use crate::interval::{self, IntervalInputs};
use crate::sim::stats::Estimate;
use crate::sim::stencil::{self, Failures, Recovery, RunFigures, StencilConfig};
use crate::units::{Nanos, ns_to_secs};
use serde::Serialize;

/// The recovery strategies, in report order.
pub const STRATEGIES: [Recovery; 2] = [Recovery::Global, Recovery::Dependency];

/// Figures of one (level, strategy) over the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StrategyFigures {
    /// `global` or `dependency`.
    pub recovery: &'static str,
    /// Makespan with its CI.
    pub makespan_s: Estimate,
    /// Cancelled executions.
    pub cancelled_executions: Estimate,
    /// Aggregate processing time (the paper's Fig. 7).
    pub aggregate_processing_s: Estimate,
    /// Failures applied.
    pub failures: Estimate,
    /// The time of all workers, six ways: useful, transfer, cancelled, waiting,
    /// checkpointing, idle (means, s).
    pub time_split_s: [f64; 6],
    /// Paired relative excess of mean makespan over this strategy's best level, in percent.
    pub regret_pct: Estimate,
}

/// One checkpoint level.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Level {
    /// L.
    pub level: u32,
    /// Rows per checkpoint band, H = 2^(L-1).
    pub band_rows: u32,
    /// The level's checkpoint interval: H rows of failure-free time per row (s).
    pub interval_s: f64,
    /// Its checkpoint cost per interval: (failure-free makespan with checkpoints - without) /
    /// bands (s).
    pub checkpoint_cost_s: f64,
    /// Failure-free makespan with this level's checkpoints (s).
    pub failure_free_makespan_s: f64,
    /// `global` then `dependency`.
    pub strategies: Vec<StrategyFigures>,
}

/// What one model row predicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelPrediction {
    /// The row.
    pub name: crate::interval::Name,
    /// The level whose interval is nearest (log scale) to the row's interval at that level's
    /// checkpoint cost.
    pub level: u32,
    /// The row's interval there (s).
    pub interval_s: f64,
    /// Regret of the predicted level per strategy (percent, paired against the best level).
    pub regret_pct: Vec<Estimate>,
    /// Within one level of the optimal region, per strategy (`global`, `dependency`).
    pub within_one_level: Vec<bool>,
}

/// The stencil validation.
#[derive(Debug, Clone, PartialEq)]
pub struct StencilValidation {
    /// The config (level and recovery are swept).
    pub config: StencilConfig,
    /// Runs per (level, strategy).
    pub runs: u64,
    /// Seed of the common random numbers.
    pub seed: u64,
    /// System MTBF (s).
    pub mtbf_s: f64,
    /// Failure-free makespan without checkpoints (s).
    pub no_checkpoint_makespan_s: f64,
    /// Every valid level.
    pub levels: Vec<Level>,
    /// Empirical best level (lowest mean makespan) per strategy (`global`, `dependency`).
    pub best_level: Vec<u32>,
    /// Per strategy, the levels not significantly worse than the best (paired 95% CI of the
    /// regret contains 0).
    pub optimal_levels: Vec<Vec<u32>>,
    /// Per strategy, the finest level of the optimal region: what the validator recommends,
    /// since among levels it cannot tell apart the finest loses least to a failure.
    pub recommended_level: Vec<u32>,
    /// Every row's prediction.
    pub predictions: Vec<LevelPrediction>,
    /// The reference row's name.
    pub recommended: &'static str,
}

/// The levels the grid admits: W a multiple of 2H, and H no more than the rows.
pub fn valid_levels(cfg: &StencilConfig) -> Vec<u32> {
    (1..=31u32)
        .take_while(|&l| {
            let h = 1u64 << (l - 1);
            (cfg.width as u64).is_multiple_of(2 * h) && h <= cfg.rows as u64
        })
        .collect()
}

fn failure_free(cfg: &StencilConfig, level: u32, checkpoint: bool) -> Result<Nanos, ValidateError> {
    let c = StencilConfig {
        level,
        checkpoint,
        failures: Failures::None,
        ..cfg.clone()
    };
    let layout = stencil::layout(&c);
    stencil::simulate_run(&layout, &c, 0, 0)
        .map(|r| r.makespan)
        .map_err(|e| ValidateError::Conflict(e.to_string()))
}

fn paired_regret(a: &[f64], best: &[f64]) -> Estimate {
    let d: Vec<f64> = a.iter().zip(best).map(|(x, y)| x - y).collect();
    let e = Estimate::from_samples(&d);
    let mean = best.iter().sum::<f64>() / best.len().max(1) as f64;
    let k = 100.0 / mean;
    Estimate {
        point: e.point * k,
        stderr: e.stderr.map(|s| s * k),
        ci95: [e.ci95[0] * k, e.ci95[1] * k],
        runs: e.runs,
    }
}

/// Checks a validation read back from a shard file as a new one is checked before any run: at
/// least two runs (it reports confidence intervals) and a setup it can compare levels on.
pub fn check_job(cfg: &StencilConfig, runs: u64) -> Result<(), ValidateError> {
    super::enough_runs(runs)?;
    check(cfg).map(|_| ())
}

fn check(cfg: &StencilConfig) -> Result<Nanos, ValidateError> {
    match cfg.failures {
        Failures::Poisson { mtbf } if cfg.checkpoint => Ok(mtbf),
        Failures::Poisson { .. } => Err(ValidateError::Conflict(
            "--sim stencil compares checkpoint levels: the config must not set Checkpoint = N".into(),
        )),
        _ => Err(ValidateError::Conflict(
            "--sim stencil validates under random failures: the config needs an MTBF (not a trace, not Fail = N)".into(),
        )),
    }
}

/// The configs of every (level, strategy), in report order (level, then `global`,
/// `dependency`).
fn variants(cfg: &StencilConfig) -> Vec<StencilConfig> {
    valid_levels(cfg)
        .into_iter()
        .flat_map(|level| {
            STRATEGIES.map(|recovery| StencilConfig {
                level,
                recovery,
                ..cfg.clone()
            })
        })
        .collect()
}

/// The runs `range` of every (level, strategy): one vector per run, in run order, each with
/// one entry per variant. Run `i` uses the stream `(seed, i)` under every variant (common
/// random numbers), so the runs can be sharded and merged.
pub fn per_run(
    cfg: &StencilConfig,
    seed: u64,
    threads: usize,
    range: std::ops::Range<u64>,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Vec<RunFigures>>, ValidateError> {
    check(cfg)?;
    let configs = variants(cfg);
    for c in &configs {
        stencil::check_feasible(c).map_err(|e| ValidateError::Conflict(e.to_string()))?;
    }
    let kept = kept_for(configs.len(), cfg.workers);
    crate::sim::run::check_results(range.end.saturating_sub(range.start), kept)?;
    let layouts: Vec<_> = configs.iter().map(stencil::layout).collect();
    // The variants of one run go one after another: the largest bounds the run.
    let run_bytes = configs
        .iter()
        .zip(&layouts)
        .map(|(c, l)| stencil::run::run_bytes(l, c))
        .max()
        .unwrap_or(0);
    crate::sim::run::replicate_range(range, threads, run_bytes, tick, |i| {
        configs
            .iter()
            .zip(&layouts)
            .map(|(c, l)| stencil::simulate_run(l, c, seed, i))
            .collect::<Result<Vec<_>, _>>()
    })
    .map_err(|e| ValidateError::Conflict(e.to_string()))
}

/// The memory one run of [`per_run`] keeps until [`finish`]: the figures of every variant.
pub fn kept_bytes(cfg: &StencilConfig) -> u64 {
    kept_for(variants(cfg).len(), cfg.workers)
}

fn kept_for(variants: usize, workers: u32) -> u64 {
    std::mem::size_of::<Vec<RunFigures>>() as u64
        + variants as u64 * RunFigures::kept_bytes(workers)
}

/// Runs the stencil validation; `tick` is called once per finished run (of every level and
/// strategy).
pub fn run(
    cfg: &StencilConfig,
    runs: u64,
    seed: u64,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<StencilValidation, ValidateError> {
    let per = per_run(cfg, seed, threads, 0..runs, tick)?;
    finish(cfg, seed, per)
}

/// The validation from every run's figures (as [`per_run`] gives them, runs in order).
pub fn finish(
    cfg: &StencilConfig,
    seed: u64,
    per: Vec<Vec<RunFigures>>,
) -> Result<StencilValidation, ValidateError> {
    let mtbf = check(cfg)?;
    let runs = per.len() as u64;
    let levels = valid_levels(cfg);
    let width = levels.len() * STRATEGIES.len();
    if runs < 2 || per.iter().any(|r| r.len() != width) {
        return Err(ValidateError::Conflict(format!(
            "the stencil validation needs at least 2 runs of {width} levels and strategies each"
        )));
    }
    let bare = failure_free(cfg, 1, false)?;
    let per_row = bare as f64 / cfg.rows as f64;
    let mut out_levels = Vec::new();
    let mut makespans: Vec<Vec<Vec<f64>>> = Vec::new(); // [level][strategy][run]
    for (li, &l) in levels.iter().enumerate() {
        let h = 1u32 << (l - 1);
        let with = failure_free(cfg, l, true)?;
        let bands = cfg.rows.div_ceil(h);
        let mut strategies = Vec::new();
        let mut level_ms = Vec::new();
        for (si, recovery) in STRATEGIES.iter().enumerate() {
            let figures: Vec<&RunFigures> =
                per.iter().map(|r| &r[li * STRATEGIES.len() + si]).collect();
            let e = |f: &dyn Fn(&RunFigures) -> f64| {
                Estimate::from_samples(&figures.iter().map(|r| f(r)).collect::<Vec<_>>())
            };
            let mean = |f: fn(&RunFigures) -> Nanos| {
                figures.iter().map(|r| ns_to_secs(f(r))).sum::<f64>() / runs as f64
            };
            level_ms.push(
                figures
                    .iter()
                    .map(|r| ns_to_secs(r.makespan))
                    .collect::<Vec<_>>(),
            );
            strategies.push(StrategyFigures {
                recovery: recovery.name(),
                makespan_s: e(&|r| ns_to_secs(r.makespan)),
                cancelled_executions: e(&|r| r.cancelled_executions as f64),
                aggregate_processing_s: e(&|r| ns_to_secs(r.aggregate_processing)),
                failures: e(&|r| r.failures as f64),
                time_split_s: [
                    mean(|r| r.useful),
                    mean(|r| r.transfer),
                    mean(|r| r.cancelled),
                    mean(|r| r.waiting),
                    mean(|r| r.checkpointing),
                    mean(|r| r.idle),
                ],
                regret_pct: Estimate::from_samples(&[0.0]),
            });
        }
        makespans.push(level_ms);
        out_levels.push(Level {
            level: l,
            band_rows: h,
            interval_s: h as f64 * per_row / 1e9,
            checkpoint_cost_s: ns_to_secs(with.saturating_sub(bare)) / bands as f64,
            failure_free_makespan_s: ns_to_secs(with),
            strategies,
        });
    }
    // The best level per strategy, and every level's paired regret against it.
    let mut best_level = Vec::new();
    let mut best_index = Vec::new();
    // The strategy index reaches into three parallel tables; a range is clearest.
    #[allow(clippy::needless_range_loop)]
    let mut optimal_levels: Vec<Vec<u32>> = Vec::new();
    for s in 0..STRATEGIES.len() {
        let per_level: Vec<Vec<f64>> = makespans.iter().map(|l| l[s].clone()).collect();
        let super::Optimum { best: b, region } = super::optimum(&per_level)
            .ok_or_else(|| ValidateError::Conflict("no level was simulated".into()))?;
        best_index.push(b);
        best_level.push(levels[b]);
        for (level, runs) in out_levels.iter_mut().zip(&makespans) {
            level.strategies[s].regret_pct = paired_regret(&runs[s], &makespans[b][s]);
        }
        optimal_levels.push(
            (0..levels.len())
                .filter(|&j| region[j])
                .map(|j| levels[j])
                .collect(),
        );
    }
    let recommended_level: Vec<u32> = optimal_levels
        .iter()
        .map(|r| r.iter().copied().min().unwrap_or(1))
        .collect();
    // Each row's interval at each level's checkpoint cost, and the level nearest to it.
    let mtbf_s = ns_to_secs(mtbf);
    let answers = out_levels
        .iter()
        .map(|l| {
            interval::compute(&IntervalInputs::single(
                mtbf_s,
                l.checkpoint_cost_s.max(1e-9),
                0.0,
            ))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let recommended = answers[0].recommended;
    let names: Vec<crate::interval::Name> =
        answers[0].rows.iter().map(|r| r.name.clone()).collect();
    let predictions = names
        .into_iter()
        .filter_map(|name| {
            let (j, tau) = answers
                .iter()
                .enumerate()
                .filter_map(|(j, a)| {
                    a.rows
                        .iter()
                        .find(|r| r.name == name)?
                        .interval_s
                        .map(|t| (j, t))
                })
                .min_by(|a, b| {
                    let d = |(j, t): &(usize, f64)| (t.ln() - out_levels[*j].interval_s.ln()).abs();
                    d(a).total_cmp(&d(b))
                })?;
            let regret_pct = (0..STRATEGIES.len())
                .map(|s| paired_regret(&makespans[j][s], &makespans[best_index[s]][s]))
                .collect();
            Some(LevelPrediction {
                name,
                level: levels[j],
                interval_s: tau,
                regret_pct,
                within_one_level: optimal_levels
                    .iter()
                    .map(|region| {
                        region
                            .iter()
                            .any(|&b| (levels[j] as i64 - b as i64).abs() <= 1)
                    })
                    .collect(),
            })
        })
        .collect();
    Ok(StencilValidation {
        config: cfg.clone(),
        runs,
        seed,
        mtbf_s,
        no_checkpoint_makespan_s: ns_to_secs(bare),
        levels: out_levels,
        best_level,
        optimal_levels,
        recommended_level,
        predictions,
        recommended,
    })
}

//! `ckpt validate --level ...`: the multi-level model's pattern held against its simulator
//! (docs/simulation.md §4, §5). The optimal strides run on a log grid of base intervals around
//! the model's `w`, and every neighbouring stride vector (one level's ratio to the level below
//! one more or one less) runs at `w`; all with common random numbers, so that each pattern's
//! regret against the empirical optimum is paired run by run.

use super::{PairedCheck, ValidateError, grid, overheads, paired, scaled, z_of};
use crate::model::multilevel::{Levels, MultilevelError, Pattern};
use crate::sim::multilevel::{self as msim, MultilevelConfig};
use crate::sim::run::{Scenario, SimError};
use crate::sim::stats::Estimate;
use crate::units::Nanos;
use serde::{Deserialize, Serialize};

/// Simulation settings of a multi-level validation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MultilevelValidateOptions {
    /// Useful work per simulated job (s); each pattern runs the smallest whole number of its
    /// periods that covers it.
    pub work_s: f64,
    /// Replications per pattern.
    pub runs: u64,
    /// Seed of the common random numbers.
    pub seed: u64,
    /// Points of the base-interval grid (0.25x to 4x the model's `w`).
    pub grid_points: usize,
}

/// Where a simulated pattern comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PointKind {
    /// The model's pattern itself.
    Model,
    /// The model's strides at another base interval of the grid.
    Grid,
    /// A neighbouring stride vector at the model's base interval.
    Neighbour,
}

/// One simulated pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PatternPoint {
    /// Base interval (s).
    pub interval_s: f64,
    /// One stride per level (`null` for a level left out).
    pub strides: Vec<Option<u64>>,
    /// Where it comes from.
    pub kind: PointKind,
    /// Work simulated per run (s): whole periods.
    pub work_s: f64,
    /// Simulated overhead (wall time / work) with its CI.
    pub overhead: Estimate,
    /// The exact model's overhead.
    pub model_overhead: f64,
    /// `(model - simulated mean) / stderr`.
    pub z: Option<f64>,
    /// Paired relative excess of wall time over the empirical optimum, in percent.
    pub regret_pct: Estimate,
    /// Not significantly worse than the empirical optimum (or it).
    pub optimal_region: bool,
}

/// The model's pattern against the simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultilevelVerdict {
    /// The model's base interval (s).
    pub interval_s: f64,
    /// Its strides.
    pub strides: Vec<Option<u64>>,
    /// Its exact overhead.
    pub predicted_overhead: f64,
    /// The simulated one.
    pub simulated_overhead: Estimate,
    /// `(predicted - simulated) / stderr`.
    pub z: Option<f64>,
    /// Regret against the empirical optimum (percent).
    pub regret_pct: Estimate,
    /// In the optimal region, or the regret's CI contains 0.
    pub confirmed: bool,
}

/// The whole multi-level validation.
#[derive(Debug, Clone, PartialEq)]
pub struct MultilevelValidation {
    /// The levels.
    pub levels: Levels,
    /// Its settings.
    pub options: MultilevelValidateOptions,
    /// The model's pattern (its optimum).
    pub pattern: Pattern,
    /// Every simulated pattern: the grid (ascending `w`) then the neighbours.
    pub points: Vec<PatternPoint>,
    /// Index in `points` of the empirical optimum.
    pub best: usize,
    /// The model's pattern.
    pub verdict: MultilevelVerdict,
}

/// What a validation simulates.
pub struct Plan {
    patterns: Vec<(Pattern, PointKind)>,
    configs: Vec<MultilevelConfig>,
}

fn model_error(e: MultilevelError) -> ValidateError {
    ValidateError::Conflict(e.to_string())
}

/// Strides as users write them: `None` for a level left out.
pub fn shown(p: &Pattern) -> Vec<Option<u64>> {
    p.strides()
        .iter()
        .zip(p.used())
        .map(|(&k, u)| u.then_some(k))
        .collect()
}

/// The stride vectors next to `strides`: each level's ratio to the level below (1 for a level
/// left out) one more or one less, the others kept.
pub fn neighbours(strides: &[u64]) -> Vec<Vec<u64>> {
    let ratios: Vec<u64> = (0..strides.len())
        .map(|j| {
            if j == 0 {
                1
            } else {
                strides[j] / strides[j - 1]
            }
        })
        .collect();
    let mut out = Vec::new();
    for j in 1..ratios.len() {
        for r in [ratios[j].saturating_sub(1), ratios[j].saturating_add(1)] {
            if r == 0 {
                continue;
            }
            let mut v = ratios.clone();
            v[j] = r;
            let mut k = Vec::with_capacity(v.len());
            let mut acc: u64 = 1;
            for &x in &v {
                acc = acc.saturating_mul(x);
                k.push(acc);
            }
            // A level's ratio 1 below a top ratio 1 would leave the top level alone at stride 1:
            // a valid pattern, the single-level one, kept.
            if !out.contains(&k) && k != strides {
                out.push(k);
            }
        }
    }
    out
}

/// What `validate --level` simulates: the levels, the model's optimal pattern (computed once
/// when the job is made, carried by shard files) and the settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternCheck {
    /// The levels.
    pub levels: Levels,
    /// The model's optimal pattern.
    pub pattern: Pattern,
    /// Work, runs, seed, grid.
    pub options: MultilevelValidateOptions,
}

/// Checks `c` as [`plan`] does before any run (a setup read back from a shard file included).
pub fn check(c: &PatternCheck) -> Result<(), ValidateError> {
    plan(&c.levels, &c.pattern, &c.options).map(|_| ())
}

/// The patterns of a validation around `best` (the model's optimum, [`Levels::optimize`]) and
/// their simulator configs, checked before any run.
pub fn plan(
    levels: &Levels,
    best: &Pattern,
    options: &MultilevelValidateOptions,
) -> Result<Plan, ValidateError> {
    super::enough_runs(options.runs)?;
    super::grid_size(options.grid_points)?;
    levels.check_pattern(best).map_err(model_error)?;
    let w = best.interval();
    let mut patterns: Vec<(Pattern, PointKind)> = Vec::new();
    for t in grid(w, options.grid_points) {
        let kind = if t == w {
            PointKind::Model
        } else {
            PointKind::Grid
        };
        patterns.push((best.with_interval(t).map_err(model_error)?, kind));
    }
    if !patterns.iter().any(|p| p.1 == PointKind::Model) {
        patterns.push((best.clone(), PointKind::Model));
        patterns.sort_by(|a, b| a.0.interval().total_cmp(&b.0.interval()));
    }
    for k in neighbours(best.strides()) {
        // A neighbour beyond the model's limits is no pattern to compare with.
        if let Ok(p) = Pattern::new(w, k) {
            patterns.push((p, PointKind::Neighbour));
        }
    }
    let configs = patterns
        .iter()
        .map(|(p, _)| {
            let periods = (options.work_s / p.period()).ceil().max(1.0);
            let mut cfg = MultilevelConfig::from_model(levels, p, periods * p.period())?;
            // Whole periods on the simulator's own grid: a work a nanosecond off would add a
            // chunk and its checkpoint.
            cfg.work = (periods as u64)
                .saturating_mul(p.chunks())
                .saturating_mul(cfg.interval);
            cfg.validate().map_err(|e| {
                let at = format!(
                    "at the base interval {} with strides {:?}",
                    crate::units::format_duration(p.interval()),
                    p.strides()
                );
                super::at_simulated(e, &at, cfg.work, "work")
            })?;
            Ok(cfg)
        })
        .collect::<Result<Vec<_>, SimError>>()?;
    Ok(Plan { patterns, configs })
}

/// The memory one run of [`super::paired_runs`] keeps until [`finish`]: a wall time per pattern.
pub fn kept_bytes(c: &PatternCheck) -> Result<u64, ValidateError> {
    let p = plan(&c.levels, &c.pattern, &c.options)?;
    Ok(super::paired_bytes(p.configs.len()))
}

/// Every pattern of the plan; a run measures the job's wall time.
impl PairedCheck for PatternCheck {
    type Candidate = MultilevelConfig;
    fn candidates(&self) -> Result<Vec<MultilevelConfig>, ValidateError> {
        Ok(plan(&self.levels, &self.pattern, &self.options)?.configs)
    }
    fn measure(&self, config: &MultilevelConfig, run: u64) -> Result<Nanos, ValidateError> {
        Ok(msim::simulate_run(config, self.options.seed, run)?.wall)
    }
}

/// The validation from every run's wall times (what [`super::paired_runs`] gives for all runs).
pub fn finish(
    c: &PatternCheck,
    per_run: Vec<Vec<Nanos>>,
) -> Result<MultilevelValidation, ValidateError> {
    let (levels, model, options) = (&c.levels, &c.pattern, &c.options);
    let Plan { patterns, configs } = plan(levels, model, options)?;
    let n = patterns.len();
    let overhead = overheads(&per_run, options.runs, n, "patterns", |j| {
        configs[j].work as f64
    })?;
    let means: Vec<Estimate> = overhead.iter().map(|o| Estimate::from_samples(o)).collect();
    let super::Optimum { best, region } = super::optimum(&overhead)
        .ok_or_else(|| ValidateError::Conflict("no pattern was simulated".into()))?;
    let best_mean = means[best].point;
    let mut points = Vec::with_capacity(n);
    for j in 0..n {
        let (p, kind) = &patterns[j];
        let model = levels.evaluate(p).map_err(model_error)?.overhead;
        let regret = scaled(paired(&overhead[j], &overhead[best]), 100.0 / best_mean);
        points.push(PatternPoint {
            interval_s: p.interval(),
            strides: shown(p),
            kind: *kind,
            work_s: crate::units::ns_to_secs(configs[j].work),
            overhead: means[j],
            model_overhead: model,
            z: z_of(Some(model), &means[j]),
            regret_pct: regret,
            optimal_region: region[j],
        });
    }
    let m = points
        .iter()
        .find(|p| p.kind == PointKind::Model)
        .cloned()
        .ok_or_else(|| ValidateError::Conflict("the model's pattern was not simulated".into()))?;
    let verdict = MultilevelVerdict {
        interval_s: m.interval_s,
        strides: m.strides.clone(),
        predicted_overhead: m.model_overhead,
        simulated_overhead: m.overhead,
        z: m.z,
        regret_pct: m.regret_pct,
        confirmed: m.optimal_region,
    };
    Ok(MultilevelValidation {
        levels: levels.clone(),
        options: *options,
        pattern: model.clone(),
        points,
        best,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::multilevel::Level;
    use crate::validate::paired_runs;

    #[test]
    fn neighbours_move_one_ratio() {
        // Ratios 1, 4, 8: each of the two upper ratios one up or down.
        let n = neighbours(&[1, 4, 32]);
        assert_eq!(
            n,
            vec![
                vec![1, 3, 24],
                vec![1, 5, 40],
                vec![1, 4, 28],
                vec![1, 4, 36]
            ]
        );
        // A level left out (ratio 1) can come back (ratio 2); ratio 0 is never made.
        let n = neighbours(&[1, 1, 8]);
        assert_eq!(n, vec![vec![1, 2, 16], vec![1, 1, 7], vec![1, 1, 9]]);
    }

    #[test]
    fn the_models_pattern_is_simulated_and_paired() {
        let h = 3600.0;
        let levels = Levels::new(
            vec![
                Level::new("a", 5.0, 10.0, Some(2.0 * h)),
                Level::new("b", 60.0, 120.0, Some(12.0 * h)),
            ],
            0.0,
        )
        .unwrap();
        let o = MultilevelValidateOptions {
            work_s: 20.0 * h,
            runs: 40,
            seed: 3,
            grid_points: 5,
        };
        let best = levels.optimize().unwrap().pattern;
        let c = PatternCheck {
            levels,
            pattern: best.clone(),
            options: o,
        };
        let runs = paired_runs(&c, 1, 0..o.runs, &|| {}).unwrap();
        let v = finish(&c, runs).unwrap();
        assert_eq!(v.verdict.interval_s, best.interval());
        assert_eq!(
            v.points
                .iter()
                .filter(|p| p.kind == PointKind::Model)
                .count(),
            1
        );
        // The best point's regret against itself is exactly zero.
        assert_eq!(v.points[v.best].regret_pct.point, 0.0);
        // Whole periods: the work simulated is a multiple of each pattern's period.
        for p in &v.points {
            let period = p.interval_s * p.strides.last().unwrap().unwrap() as f64;
            let periods = p.work_s / period;
            assert!((periods - periods.round()).abs() < 1e-6, "{p:?}");
        }
        // A wrong number of results is refused.
        assert!(finish(&c, vec![vec![1; 3]; 40]).is_err());
    }
}

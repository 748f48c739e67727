//! `ckpt validate --walltime`: the allocation's plan (`docs/models.md` §10, and §10.1 with
//! `--dist`) held against the job-level simulator in the same allocation (`docs/simulation.md`
//! §1, the allocation mode, and §4). The plan, every long-run model's interval run inside the
//! allocation, and a log grid around the plan all run on the same failures: run `i` draws from
//! the stream `(seed, i)` whatever the interval, so the differences of saved work between
//! intervals are paired run by run.

use super::{
    PairedCheck, ValidateError, agrees, enough_runs, exponential_failures, grid_size, optimum,
    paired, paired_bytes, scaled, simulated_intervals, z_of,
};
use crate::failure::Lifetime;
use crate::finite::renewal_allocation;
use crate::interval::{self, IntervalError, IntervalInputs, Name};
use crate::model::allocation::Limit;
use crate::model::renewal::Renewal;
use crate::model::renewal_allocation::RenewalAllocation;
use crate::sim::periodic::{Failures, PeriodicConfig, simulate_run};
use crate::sim::run::Scenario;
use crate::sim::stats::Estimate;
use crate::units::{Nanos, chunk_ns, ns_to_secs, secs_to_ns};
use serde::{Deserialize, Serialize};

/// The row of the allocation's own plan, the recommendation.
pub const PLAN: &str = "allocation";

/// The row of §10's plan (exponential failures of the same MTBF) run under `--dist` failures.
pub const TAKEN_AS_EXPONENTIAL: &str = "taken-as-exponential";

/// Simulation settings of an allocation validation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AllocationValidateOptions {
    /// Replications, each running every interval.
    pub runs: u64,
    /// Seed of the common random numbers.
    pub seed: u64,
    /// Points of the log grid from 0.25x to 4x the plan's interval.
    pub grid_points: usize,
}

/// A named interval: the plan's, or a long-run model's run inside the allocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedInterval {
    /// The row's name (`allocation`, `young`, `daly-complete`, ...).
    pub name: Name,
    /// Its work between checkpoints, on the simulator's nanosecond grid.
    pub interval: Nanos,
}

/// What `validate --walltime` simulates: the job, its allocation and the rows' intervals,
/// computed once when the job is made (the plan's search is the dear part) and carried by
/// shard files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllocationCheck {
    /// The validated model inputs, the allocation among them.
    pub inputs: IntervalInputs,
    /// The job's lifetime under `--dist` (§10.1); `None` for exponential failures (§10).
    pub life: Option<Lifetime>,
    /// The signal's lead before the limit (s), the plan's.
    pub signal_lead_s: f64,
    /// The rows, the plan first.
    pub rows: Vec<NamedInterval>,
    /// Runs, seed, grid.
    pub options: AllocationValidateOptions,
}

/// The inputs' allocation, refused when there is none.
fn allocation_of(
    inputs: &IntervalInputs,
) -> Result<crate::finite::AllocationInputs, ValidateError> {
    inputs
        .allocation
        .ok_or_else(|| ValidateError::Conflict("an allocation validation needs --walltime".into()))
}

fn model_error(e: crate::model::ModelError) -> ValidateError {
    ValidateError::Interval(IntervalError::Model(e))
}

impl AllocationCheck {
    /// The plan of `inputs.allocation` and the rows to hold against it: with `life` (§10.1)
    /// the plan under that lifetime, §10's plan taken as exponential, the best long-run period,
    /// Young's and Daly's intervals; without it (§10) the plan and every row of `ckpt interval`.
    pub fn new(
        inputs: IntervalInputs,
        life: Option<Lifetime>,
        options: AllocationValidateOptions,
    ) -> Result<AllocationCheck, ValidateError> {
        enough_runs(options.runs)?;
        grid_size(options.grid_points)?;
        let a = allocation_of(&inputs)?;
        let named = |name: &'static str, seconds: f64| NamedInterval {
            name: Name::Borrowed(name),
            interval: chunk_ns(seconds),
        };
        let (signal_lead_s, rows) = match life {
            None => {
                let answer = interval::compute(&inputs)?;
                let plan = answer.allocation.ok_or_else(|| {
                    ValidateError::Conflict("the models gave no allocation plan".into())
                })?;
                let mut rows = vec![named(PLAN, plan.interval)];
                rows.extend(answer.rows.iter().filter_map(|r| {
                    Some(NamedInterval {
                        name: r.name.clone(),
                        interval: chunk_ns(r.interval_s?),
                    })
                }));
                (plan.signal_lead, rows)
            }
            Some(life) => {
                let job = Renewal::new(life, inputs.cost, inputs.restart).map_err(model_error)?;
                let analysis = job.analyze().map_err(model_error)?;
                let answer = renewal_allocation(&job, &analysis, a, None)?;
                let plan = answer.best.plan;
                let mut rows = vec![named(PLAN, plan.interval)];
                if let Some(e) = answer.exponential {
                    rows.push(named(TAKEN_AS_EXPONENTIAL, e.plan.interval));
                }
                rows.push(named("renewal-periodic", analysis.periodic.interval));
                rows.push(named("young", analysis.young.interval));
                rows.push(named("daly-complete", analysis.daly.interval));
                (plan.signal_lead, rows)
            }
        };
        let check = AllocationCheck {
            inputs,
            life,
            signal_lead_s,
            rows,
            options,
        };
        configs(&check)?;
        Ok(check)
    }

    /// Every simulated interval, ascending and without repeats, each marked when it is a point
    /// of the grid: the grid around the plan, then the rows' own.
    pub fn intervals(&self) -> Vec<(Nanos, bool)> {
        let plan = self.rows.first().map_or(1, |r| r.interval);
        let rows = self.rows.iter().map(|r| r.interval);
        let mut taus = simulated_intervals(ns_to_secs(plan), self.options.grid_points, rows);
        // Grid points closer than a nanosecond (an interval of a few nanoseconds) are one.
        taus.dedup_by_key(|(t, _)| *t);
        taus
    }

    /// The expected saved work at each of `intervals` (s): §10's, or §10.1's under the
    /// lifetime (`None` where that model does not resolve the interval).
    pub fn predictions(&self, intervals: &[f64]) -> Result<Vec<Option<f64>>, ValidateError> {
        let a = allocation_of(&self.inputs)?;
        match self.life {
            None => {
                let model = a.model(&self.inputs).map_err(model_error)?;
                Ok(intervals
                    .iter()
                    .map(|&t| Some(model.expected_saved_work(t)))
                    .collect())
            }
            Some(life) => {
                let limit = Limit::new(self.inputs.cost, a.walltime_s, a.signal_margin_s)
                    .map_err(model_error)?;
                let guess = ns_to_secs(self.rows.first().map_or(1, |r| r.interval));
                let model = RenewalAllocation::new(life, self.inputs.restart, limit, guess)
                    .map_err(model_error)?;
                Ok(model.expected_saved_work_each(intervals))
            }
        }
    }
}

/// The periodic simulator in the allocation at every simulated interval, checked before any
/// run: work enough to fill the allocation, the plan's signal, the final checkpoint taken.
pub fn configs(c: &AllocationCheck) -> Result<Vec<PeriodicConfig>, ValidateError> {
    enough_runs(c.options.runs)?;
    grid_size(c.options.grid_points)?;
    let a = allocation_of(&c.inputs)?;
    if c.inputs.replication.is_some() || c.inputs.asynchronous.is_some() {
        return Err(ValidateError::Conflict(
            "an allocation validation simulates one job with synchronous checkpoints: drop --procs/--replicas and --async-write".into(),
        ));
    }
    let failures = match c.life {
        Some(life) => Failures::Platform(life),
        None => exponential_failures(&c.inputs)?,
    };
    let walltime = secs_to_ns(a.walltime_s);
    let base = PeriodicConfig {
        work: walltime,
        interval: 1,
        cost: secs_to_ns(c.inputs.cost),
        restart: secs_to_ns(c.inputs.restart),
        failures,
        final_checkpoint: true,
        walltime: Some(walltime),
        asynchronous: None,
        signal_lead: Some(secs_to_ns(c.signal_lead_s)),
    };
    c.intervals()
        .into_iter()
        .map(|(interval, _)| {
            let cfg = PeriodicConfig {
                interval,
                ..base.clone()
            };
            cfg.validate().map_err(|e| {
                super::sim_error_for_interval(e, ns_to_secs(interval), walltime, "walltime")
            })?;
            Ok(cfg)
        })
        .collect()
}

/// Checks `c` as [`AllocationCheck::new`] did (a setup read back from a shard file included).
pub fn check(c: &AllocationCheck) -> Result<(), ValidateError> {
    configs(c)?;
    c.predictions(&[]).map(|_| ())
}

/// The memory one run of [`super::paired_runs`] keeps until [`finish`]: a saved work per interval.
pub fn kept_bytes(c: &AllocationCheck) -> Result<u64, ValidateError> {
    Ok(paired_bytes(c.intervals().len()))
}

/// Every simulated interval in the allocation; a run measures the work saved by the limit.
impl PairedCheck for AllocationCheck {
    type Candidate = PeriodicConfig;
    fn candidates(&self) -> Result<Vec<PeriodicConfig>, ValidateError> {
        configs(self)
    }
    fn measure(&self, config: &PeriodicConfig, run: u64) -> Result<Nanos, ValidateError> {
        Ok(simulate_run(config, self.options.seed, run)?.saved_work)
    }
}

/// Saved work at one simulated interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AllocationPoint {
    /// The work interval (s).
    pub interval_s: f64,
    /// Mean simulated work saved by the limit (s), with its CI.
    pub saved_work_s: Estimate,
    /// The model's expected saved work there (s).
    pub model_saved_work_s: Option<f64>,
    /// Not significantly below the empirical best (or it).
    pub optimal_region: bool,
    /// A point of the log grid (the others are rows' intervals).
    pub on_grid: bool,
}

/// One row's interval in the allocation, predicted against simulated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AllocationVerdict {
    /// The row.
    pub name: Name,
    /// Its interval (s).
    pub interval_s: f64,
    /// The model's expected saved work at it (s).
    pub predicted_saved_work_s: Option<f64>,
    /// The simulated saved work (s).
    pub simulated_saved_work_s: Estimate,
    /// `(predicted - simulated) / stderr`.
    pub z: Option<f64>,
    /// `|z| < 4`, or, where every run came out alike, the prediction within a millisecond.
    pub agrees: bool,
    /// Paired shortfall of saved work against the empirical best, in percent of the best's.
    pub regret_pct: Estimate,
    /// Between the optimal region's smallest and largest intervals, or the regret's CI
    /// reaches 0.
    pub confirmed: bool,
}

/// The whole allocation validation.
#[derive(Debug, Clone, PartialEq)]
pub struct AllocationValidation {
    /// What was simulated.
    pub check: AllocationCheck,
    /// One verdict per row, the plan first.
    pub verdicts: Vec<AllocationVerdict>,
    /// Every simulated interval, ascending.
    pub points: Vec<AllocationPoint>,
    /// The simulated interval with the most mean saved work.
    pub empirical_best_s: f64,
    /// The optimal region's smallest and largest intervals.
    pub optimal_region_s: [f64; 2],
    /// Every row's prediction agrees with its simulation.
    pub all_agree: bool,
    /// Whether the simulator follows the model's assumptions.
    pub assumptions_hold: bool,
    /// Where it does not.
    pub assumption_notes: Vec<String>,
}

/// Predictions within this of an outcome every run shares agree (s): the model's precision.
const ALIKE_TOLERANCE_S: f64 = 1e-3;

/// The validation from every run's saved work (what [`super::paired_runs`] gives for all runs).
pub fn finish(
    c: &AllocationCheck,
    per_run: Vec<Vec<Nanos>>,
) -> Result<AllocationValidation, ValidateError> {
    let taus = c.intervals();
    // Saved work in seconds; the optimum is the least shortfall, so negated for `optimum`.
    let saved = super::overheads(&per_run, c.options.runs, taus.len(), "intervals", |_| 1e9)?;
    let shortfall: Vec<Vec<f64>> = saved
        .iter()
        .map(|s| s.iter().map(|x| -x).collect())
        .collect();
    let means: Vec<Estimate> = saved.iter().map(|s| Estimate::from_samples(s)).collect();
    let best = optimum(&shortfall)
        .ok_or_else(|| ValidateError::Conflict("no interval was simulated".into()))?;
    let seconds: Vec<f64> = taus.iter().map(|&(t, _)| ns_to_secs(t)).collect();
    let predicted = c.predictions(&seconds)?;
    let region: Vec<f64> = (0..taus.len())
        .filter(|&j| best.region[j])
        .map(|j| seconds[j])
        .collect();
    let optimal_region_s = [
        region.iter().copied().fold(f64::INFINITY, f64::min),
        region.iter().copied().fold(0.0, f64::max),
    ];
    let points = (0..taus.len())
        .map(|j| AllocationPoint {
            interval_s: seconds[j],
            saved_work_s: means[j],
            model_saved_work_s: predicted[j],
            optimal_region: best.region[j],
            on_grid: taus[j].1,
        })
        .collect();
    let best_mean = means[best.best].point;
    let verdicts: Vec<AllocationVerdict> = c
        .rows
        .iter()
        .filter_map(|r| {
            let j = taus.iter().position(|&(t, _)| t == r.interval)?;
            let sim = means[j];
            let z = z_of(predicted[j], &sim);
            let agrees = agrees(z, predicted[j], &sim, ALIKE_TOLERANCE_S);
            let regret = if best_mean > 0.0 {
                scaled(
                    paired(&shortfall[j], &shortfall[best.best]),
                    100.0 / best_mean,
                )
            } else {
                Estimate::exact(0.0, c.options.runs)
            };
            Some(AllocationVerdict {
                name: r.name.clone(),
                interval_s: seconds[j],
                predicted_saved_work_s: predicted[j],
                simulated_saved_work_s: sim,
                z,
                agrees,
                // Between the region's bounds, as the periodic validation rules (a gap in the
                // region is the points' own flags to show).
                confirmed: (optimal_region_s[0]..=optimal_region_s[1]).contains(&seconds[j])
                    || regret.ci95[0] <= 0.0,
                regret_pct: regret,
            })
        })
        .collect();
    let mut notes = Vec::new();
    if c.inputs.downtime > 0.0 {
        notes.push(format!(
            "a downtime of {}: the model adds it after every failure, while the simulator restarts at once",
            crate::units::format_duration(c.inputs.downtime)
        ));
    }
    Ok(AllocationValidation {
        check: c.clone(),
        all_agree: verdicts.iter().all(|v| v.agrees),
        verdicts,
        points,
        empirical_best_s: seconds[best.best],
        optimal_region_s,
        assumptions_hold: notes.is_empty(),
        assumption_notes: notes,
    })
}

impl AllocationValidation {
    /// The allocation's length (s).
    pub fn walltime_s(&self) -> f64 {
        self.check.inputs.allocation.map_or(0.0, |a| a.walltime_s)
    }

    /// The plan's verdict.
    pub fn plan(&self) -> Option<&AllocationVerdict> {
        self.verdicts.first().filter(|v| v.name == PLAN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finite::AllocationInputs;
    use crate::validate::paired_runs;

    fn check(life: Option<Lifetime>) -> AllocationCheck {
        let mut inputs = IntervalInputs::single(6.0 * 3600.0, 300.0, 300.0);
        inputs.allocation = Some(AllocationInputs {
            walltime_s: 86_400.0,
            signal_margin_s: 0.0,
        });
        let options = AllocationValidateOptions {
            runs: 30,
            seed: 5,
            grid_points: 5,
        };
        AllocationCheck::new(inputs, life, options).unwrap()
    }

    #[test]
    fn the_plan_comes_first_and_every_run_is_paired() {
        let c = check(None);
        assert_eq!(c.rows[0].name, PLAN);
        assert_eq!(c.signal_lead_s, 300.0);
        // The aligned plan of 23 checkpoints: (T - L + C)/23 - C.
        let plan = ns_to_secs(c.rows[0].interval);
        assert!((plan - (86_400.0 / 23.0 - 300.0)).abs() < 1e-6, "{plan}");
        let taus = c.intervals();
        assert!(taus.windows(2).all(|w| w[0].0 < w[1].0), "{taus:?}");
        assert_eq!(taus.iter().filter(|t| t.1).count(), 5);
        let runs = paired_runs(&c, 1, 0..30, &|| {}).unwrap();
        // Threads and slices change nothing.
        let split: Vec<Vec<Nanos>> = [0..11, 11..30]
            .into_iter()
            .flat_map(|r| paired_runs(&c, 2, r, &|| {}).unwrap())
            .collect();
        assert_eq!(runs, split);
        // No run saves more than the failure-free bound, T - L + C less the plan's checkpoints.
        let j = taus.iter().position(|t| t.0 == c.rows[0].interval).unwrap();
        assert!(
            runs.iter()
                .all(|r| ns_to_secs(r[j]) <= 86_400.0 - 23.0 * 300.0 + 1e-6)
        );
        let v = finish(&c, runs.clone()).unwrap();
        assert_eq!(v.verdicts.len(), c.rows.len());
        assert_eq!(
            v.plan().map(|p| p.interval_s),
            Some(ns_to_secs(c.rows[0].interval))
        );
        // The empirical best is in its own optimal region, with no regret against itself.
        let best = v
            .points
            .iter()
            .find(|p| p.interval_s == v.empirical_best_s)
            .unwrap();
        assert!(best.optimal_region);
        assert!(finish(&c, runs[..29].to_vec()).is_err());
        assert!(finish(&c, vec![vec![1; 2]; 30]).is_err());
    }

    #[test]
    fn renewal_failures_add_their_own_rows() {
        let life =
            Lifetime::new(crate::failure::Shape::Weibull { shape: 0.7 }, 6.0 * 3600.0).unwrap();
        let c = check(Some(life));
        let names: Vec<&str> = c.rows.iter().map(|r| r.name.as_ref()).collect();
        assert_eq!(
            names,
            [
                PLAN,
                TAKEN_AS_EXPONENTIAL,
                "renewal-periodic",
                "young",
                "daly-complete"
            ]
        );
        let p = c.predictions(&[ns_to_secs(c.rows[0].interval)]).unwrap();
        assert!(p[0].is_some_and(|v| v > 0.0 && v < 86_400.0), "{p:?}");
        // No allocation, no validation.
        let mut bad = c.clone();
        bad.inputs.allocation = None;
        assert!(configs(&bad).is_err());
    }
}

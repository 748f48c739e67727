//! Replications and their reduction, shared by every simulator and by validation: run N
//! independent replications in parallel, keep their per-run figures in run order, and reduce
//! each figure to an [`Estimate`].

use super::engine::{run_parallel_range, threads_within_memory};

use super::stats::Estimate;
use crate::units::{Nanos, ns_to_secs};
use std::ops::Range;
use thiserror::Error;

/// A simulator's config that cannot be run, or a run that cannot finish.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    /// One input has a value the simulator cannot accept; `field` is the input's name.
    #[error("invalid value `{value}` for {field}: {accepted}")]
    Invalid {
        /// The input's name (`work`, `interval`, ...), as the CLI spells its flag without `--`.
        field: &'static str,
        /// The value given.
        value: String,
        /// What would be accepted.
        accepted: String,
    },
    /// Inputs that make no sense together.
    #[error("{0}")]
    Conflict(String),
    /// The inputs are valid but the job cannot finish in any reasonable simulated effort.
    #[error("{0}")]
    NoProgress(String),
}

/// `Err(SimError::Invalid { .. })`, the refusal of one input that every simulator's
/// validation returns.
pub fn invalid<T>(
    field: &'static str,
    value: String,
    accepted: impl Into<String>,
) -> Result<T, SimError> {
    let accepted = accepted.into();
    Err(SimError::Invalid {
        field,
        value,
        accepted,
    })
}

/// The refusal of a run whose simulated clock passes its 584 years (`u64` nanoseconds):
/// `mtbf` names what is too short ("MTBF", or "MTBFs" for several levels).
pub fn past_the_clock(mtbf: &str) -> SimError {
    SimError::NoProgress(format!(
        "the simulated time passes 584 years: the {mtbf} too short for this job to finish"
    ))
}

/// Refuses a walltime below the work (when one is given): no run could finish by it.
pub fn check_walltime(walltime: Option<Nanos>, work: Nanos) -> Result<(), SimError> {
    match walltime {
        Some(w) if w < work => invalid(
            "walltime",
            format!("{}s", ns_to_secs(w)),
            format!(
                "a duration of at least the work ({}s): no run can finish sooner",
                ns_to_secs(work)
            ),
        ),
        _ => Ok(()),
    }
}

/// Refuses a job every simulator refuses: no work, no interval, or a failure-free time (`work`
/// plus a checkpoint of `cost` per interval) beyond what nanosecond time holds (584 years).
pub fn check_job(work: Nanos, interval: Nanos, cost: Nanos) -> Result<(), SimError> {
    if work == 0 {
        return invalid("work", "0".into(), "a positive duration");
    }
    if interval == 0 {
        return invalid("interval", "0".into(), "a positive duration");
    }
    let segments = work.div_ceil(interval) as u128;
    if work as u128 + segments * cost as u128 >= u64::MAX as u128 && segments > 1 {
        // The work alone fits (it is a u64): the checkpoints, one per interval, do not.
        return invalid(
            "interval",
            format!("{}s", ns_to_secs(interval)),
            format!(
                "an interval long enough that the work plus one checkpoint per interval ({segments} checkpoints of {}s) takes less than 584 years without failures",
                ns_to_secs(cost)
            ),
        );
    }
    if work as u128 + segments * cost as u128 >= u64::MAX as u128 {
        return invalid(
            "work",
            format!("{}s", ns_to_secs(work)),
            "a job that takes less than 584 years without failures, checkpoints included",
        );
    }
    Ok(())
}

/// Runs the replications `f(run)` for every run of `range` (the whole set, or one shard's slice)
/// on `threads` threads (0 = all cores), fewer where each run's own `run_bytes` would take the
/// runs in flight past [`RUN_MEMORY_BUDGET`], calling `tick` once per finished run, and returns
/// the results in run order. The first error in run order wins, so the outcome does not depend
/// on the thread count either; once a run has failed, no later run is started (every earlier
/// one still runs, since one of them may fail first).
///
/// [`RUN_MEMORY_BUDGET`]: super::engine::RUN_MEMORY_BUDGET
pub fn replicate_range<T, E, F>(
    range: Range<u64>,
    threads: usize,
    run_bytes: u64,
    tick: &(dyn Fn() + Sync),
    f: F,
) -> Result<Vec<T>, E>
where
    T: Send,
    E: Send,
    F: Fn(u64) -> Result<T, E> + Sync,
{
    use std::sync::atomic::{AtomicU64, Ordering};
    let threads = threads_within_memory(threads, run_bytes);
    // Before: every run ran to its own failure cap after the first had failed, so a job no
    // up-front check could judge hopeless took runs x the cap to be refused.
    let first_failure = AtomicU64::new(u64::MAX);
    let runs = run_parallel_range(range, threads, tick, |i| {
        if i > first_failure.load(Ordering::Relaxed) {
            return None;
        }
        let r = f(i);
        if r.is_err() {
            first_failure.fetch_min(i, Ordering::Relaxed);
        }
        Some(r)
    });
    // Every run before the first failed one ran (a run is skipped only after an earlier one
    // failed), so in run order the first error comes before any skipped run.
    let mut out = Vec::with_capacity(runs.len());
    for r in runs {
        match r {
            Some(Ok(t)) => out.push(t),
            Some(Err(e)) => return Err(e),
            None => break,
        }
    }
    Ok(out)
}

/// The most memory the figures of one process's runs may take together: every run's figures
/// are kept, in run order, until the reduction, so `runs` times what one run keeps is held at
/// once (a validation at 1000 intervals keeps 8 kB a run; a stencil of 10^5 workers 800 kB).
pub const RESULTS_MEMORY_BUDGET: u64 = 4 << 30;

/// Refuses `runs` runs whose kept figures, `bytes_per_run` each, would pass
/// [`RESULTS_MEMORY_BUDGET`], before any run starts.
///
/// ```
/// use ckpt::sim::run::check_results;
/// assert!(check_results(10_000_000, 400).is_ok());
/// assert!(check_results(10_000_000, 8024).is_err());
/// ```
pub fn check_results(runs: u64, bytes_per_run: u64) -> Result<(), SimError> {
    let bytes = bytes_per_run.max(1);
    if runs.saturating_mul(bytes) <= RESULTS_MEMORY_BUDGET {
        return Ok(());
    }
    invalid(
        "runs",
        runs.to_string(),
        format!(
            "at most {} runs of this setup: each keeps {bytes} bytes of figures until the \
             reduction, and all of them must fit in {} GiB",
            RESULTS_MEMORY_BUDGET / bytes,
            RESULTS_MEMORY_BUDGET >> 30
        ),
    )
}

/// A validated simulator setup: what one run does from a seed and a run index, and how runs
/// reduce to figures. [`simulate`] and [`simulate_range`] run any of them the same way.
pub trait Scenario: Sync {
    /// One run's figures, as shard files carry them.
    type Run: Send;
    /// The reduction of every run.
    type Figures;
    /// Reduces `runs` (every run, in run order) to the figures.
    fn summarize(&self, runs: &[Self::Run]) -> Self::Figures;
    /// Refuses a setup that cannot run, before any run starts.
    fn validate(&self) -> Result<(), SimError>;
    /// Run `run`, on stream `run` of `seed`.
    fn run(&self, seed: u64, run: u64) -> Result<Self::Run, SimError>;
    /// The most memory one run holds of its own (per-node or per-replica state, not what runs
    /// share), so that [`simulate_range`] runs no more at once than
    /// [`RUN_MEMORY_BUDGET`](super::engine::RUN_MEMORY_BUDGET) holds.
    fn run_bytes(&self) -> u64 {
        0
    }
    /// The memory one run's figures keep until [`Scenario::summarize`], which holds every
    /// run's (see [`check_results`]).
    fn kept_bytes(&self) -> u64 {
        std::mem::size_of::<Self::Run>() as u64
    }
}

/// Checks `scenario`, runs `runs` runs of `seed` on `threads` threads (0 = all cores) and
/// reduces them; `tick` is called once per run.
///
/// ```
/// use ckpt::failure::Lifetime;
/// use ckpt::sim::periodic::{simulate, Failures, PeriodicConfig};
/// let s = 1_000_000_000;
/// let cfg = PeriodicConfig {
///     work: 3600 * s, interval: 600 * s, cost: 60 * s, restart: 120 * s,
///     failures: Failures::Platform(Lifetime::exponential(6.0 * 3600.0).unwrap()),
///     final_checkpoint: true, walltime: None, asynchronous: None, signal_lead: None,
/// };
/// let f = simulate(&cfg, 42, 100, 1, &|| {}).unwrap();
/// assert!(f.wall_time_s.point >= 3960.0);
/// ```
pub fn simulate<S: Scenario>(
    scenario: &S,
    seed: u64,
    runs: u64,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<S::Figures, SimError> {
    let results = simulate_range(scenario, seed, 0..runs, threads, tick)?;
    Ok(scenario.summarize(&results))
}

/// The runs `range` of [`simulate`] (one shard's slice), per run and in run order: run `i`
/// uses stream `i` as in the whole set, so [`Scenario::summarize`] over the concatenated slices
/// gives what [`simulate`] gives.
pub fn simulate_range<S: Scenario>(
    scenario: &S,
    seed: u64,
    range: Range<u64>,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<S::Run>, SimError> {
    scenario.validate()?;
    check_results(range.end.saturating_sub(range.start), scenario.kept_bytes())?;
    replicate_range(range, threads, scenario.run_bytes(), tick, |i| {
        scenario.run(seed, i)
    })
}

/// The estimate of one figure over runs, summed in run order.
///
/// ```
/// use ckpt::sim::run::estimate;
/// let runs = [(1.0, 2u64), (3.0, 4)];
/// assert_eq!(estimate(&runs, |r| r.0).point, 2.0);
/// ```
pub fn estimate<T>(runs: &[T], figure: impl Fn(&T) -> f64) -> Estimate {
    let samples: Vec<f64> = runs.iter().map(figure).collect();
    Estimate::from_samples(&samples)
}

/// The fraction of runs for which `hit` holds, with the Wilson score 95% interval (which stays
/// inside [0, 1] and does not collapse to a point at 0 or 1 the way the normal interval does) and
/// the binomial standard error `sqrt(p (1 - p) / n)`.
///
/// ```
/// use ckpt::sim::run::proportion;
/// let e = proportion(&[true, true, true, false], |b| *b);
/// assert_eq!(e.point, 0.75);
/// assert!(e.ci95[0] > 0.0 && e.ci95[1] < 1.0);
/// ```
pub fn proportion<T>(runs: &[T], hit: impl Fn(&T) -> bool) -> Estimate {
    let n = runs.len();
    if n == 0 {
        return Estimate::exact(0.0, 0);
    }
    let k = runs.iter().filter(|r| hit(r)).count();
    let nf = n as f64;
    let p = k as f64 / nf;
    if n == 1 {
        return Estimate::exact(p, 1);
    }
    let z = super::stats::Z_975;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * nf)) / (1.0 + z2 / nf);
    let half = z / (1.0 + z2 / nf) * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    Estimate {
        point: p,
        stderr: Some((p * (1.0 - p) / nf).sqrt()),
        ci95: [(centre - half).max(0.0), (centre + half).min(1.0)],
        runs: n as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Before: every run ran to its own failure cap after the first had failed (a hopeless
    /// lognormal:30 job took minutes to be refused, 0.7 s now).
    #[test]
    fn the_first_failed_run_in_order_is_reported_and_later_runs_are_not_started() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let calls = AtomicU64::new(0);
        let f = |i: u64| {
            calls.fetch_add(1, Ordering::Relaxed);
            if i >= 500 && i.is_multiple_of(7) {
                Err(i)
            } else {
                Ok(i)
            }
        };
        for threads in [1, 2, 4] {
            calls.store(0, Ordering::Relaxed);
            assert_eq!(replicate_range(0..10_000, threads, 0, &|| {}, f), Err(504));
            assert!(calls.load(Ordering::Relaxed) < 10_000, "{threads} threads");
        }
        let all = replicate_range(0..10, 2, 0, &|| {}, |i| Ok::<u64, u64>(i * i));
        assert_eq!(all, Ok((0..10).map(|i| i * i).collect::<Vec<_>>()));
    }

    #[test]
    fn a_walltime_may_equal_the_work_but_not_fall_short_of_it() {
        assert_eq!(check_walltime(None, 10), Ok(()));
        assert_eq!(check_walltime(Some(10), 10), Ok(()));
        assert!(matches!(
            check_walltime(Some(9), 10),
            Err(SimError::Invalid {
                field: "walltime",
                ..
            })
        ));
    }

    /// The bound on kept figures never binds the simulators whose runs keep a fixed record:
    /// 10^7 runs, their most, fit.
    #[test]
    fn fixed_size_runs_fit_at_their_most() {
        let most = 10_000_000;
        for bytes in [
            std::mem::size_of::<crate::sim::periodic::PeriodicRun>(),
            std::mem::size_of::<crate::sim::replicated::ReplicatedRun>(),
            std::mem::size_of::<crate::sim::multilevel::MultilevelRun>(),
        ] {
            assert!(check_results(most, bytes as u64).is_ok(), "{bytes}");
        }
        // A MiB a run: 4 GiB holds 4096 runs.
        assert!(check_results(4096, 1 << 20).is_ok());
        match check_results(4097, 1 << 20) {
            Err(SimError::Invalid {
                field, accepted, ..
            }) => {
                assert_eq!(field, "runs");
                assert!(accepted.starts_with("at most 4096 runs"), "{accepted}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn first_error_in_run_order() {
        let r = replicate_range(0..50, 2, 0, &|| {}, |i| {
            if i % 10 == 7 {
                Err(SimError::NoProgress(format!("run {i}")))
            } else {
                Ok(i)
            }
        });
        assert_eq!(r.unwrap_err(), SimError::NoProgress("run 7".into()));
        let ok = replicate_range(0..5, 2, 0, &|| {}, Ok::<u64, SimError>).unwrap();
        assert_eq!(ok, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn wilson_interval() {
        // 8 of 10: Wilson interval [0.4902, 0.9433] (standard tables).
        let v: Vec<bool> = (0..10).map(|i| i < 8).collect();
        let e = proportion(&v, |b| *b);
        assert!(
            (e.ci95[0] - 0.4902).abs() < 1e-4 && (e.ci95[1] - 0.9433).abs() < 1e-4,
            "{e:?}"
        );
        let all = proportion(&[true; 20], |b| *b);
        assert_eq!(all.point, 1.0);
        assert!(all.ci95[0] < 1.0 && all.ci95[1] == 1.0);
    }
}

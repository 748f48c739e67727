//! The task-based stencil with checkpoint levels and two rollback strategies (docs/simulation.md
//! §3): the simulation of the seed paper on dependency-aware rollback, made exact.
//!
//! [`graph`] and [`triangles`] are pure functions of the configuration (tasks, dependencies,
//! checkpoint triangles, checkpoint tasks); [`run`] is one run on the shared event core;
//! `recovery` holds the `global` and `dependency` strategies; [`config`] reads the paper's INI
//! and failure traces.

pub mod config;
mod ends;
pub mod graph;
mod recovery;
pub mod run;
pub mod triangles;

pub use config::{Failures, Recovery, StencilConfig};
pub use run::{RunFigures, SimError, simulate};

use crate::rng::run_rng;
use crate::sim::stats::Estimate;
use crate::units::ns_to_secs;
use serde::Serialize;
use std::ops::Range;

/// The grid and checkpoint tables of a config, built once and shared by every run.
pub fn layout(cfg: &StencilConfig) -> triangles::Layout {
    let g = graph::Grid::new(cfg.width, cfg.rows).expect("validated grid");
    let tris = if cfg.checkpoint {
        triangles::Triangles::new(g, cfg.level)
    } else {
        None
    };
    triangles::Layout::new(g, tris)
}

/// One run `run` of `cfg` under `seed` (the seed matters only for Poisson failures).
pub fn simulate_run(
    layout: &triangles::Layout,
    cfg: &StencilConfig,
    seed: u64,
    run: u64,
) -> Result<RunFigures, SimError> {
    simulate(
        layout,
        cfg,
        run::FailureStream::new(cfg, run_rng(seed, run)),
    )
}

/// The figures of 3.7 as estimates over runs (seconds for times), in JSON order.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// End of processing of the last task.
    pub makespan_s: Estimate,
    /// Tasks (W x T).
    pub tasks: Estimate,
    /// Executions (starts of transfer-then-processing).
    pub executions: Estimate,
    /// Cancelled executions.
    pub cancelled_executions: Estimate,
    /// Aggregate processing time (the paper's Fig. 7).
    pub aggregate_processing_s: Estimate,
    /// Applied failures.
    pub failures: Estimate,
    /// Useful processing.
    pub useful_s: Estimate,
    /// Transfers of standing executions.
    pub transfer_s: Estimate,
    /// Transfer and processing of cancelled executions.
    pub cancelled_s: Estimate,
    /// Waiting on dependencies.
    pub waiting_s: Estimate,
    /// Remote copies and re-sends.
    pub checkpointing_s: Estimate,
    /// The re-send part of checkpointing.
    pub resend_s: Estimate,
    /// No task to take.
    pub idle_s: Estimate,
    /// Local checkpoint copies made.
    pub local_copies: Estimate,
    /// Remote copies made.
    pub remote_copies: Estimate,
    /// Copies re-sent by ring repair.
    pub resent_copies: Estimate,
    /// Most copies held at once.
    pub max_copies_held: Estimate,
    /// The same in bytes, when the output size is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes_held: Option<Estimate>,
    /// Fewest tasks completed by one worker index.
    pub tasks_per_worker_min: Estimate,
    /// Most tasks completed by one worker index.
    pub tasks_per_worker_max: Estimate,
}

impl Summary {
    /// Reduces runs in run order.
    pub fn from_runs(runs: &[RunFigures], output_bytes: Option<u64>) -> Summary {
        let e = |f: &dyn Fn(&RunFigures) -> f64| {
            Estimate::from_samples(&runs.iter().map(f).collect::<Vec<_>>())
        };
        let s = |f: fn(&RunFigures) -> u64| e(&|r| ns_to_secs(f(r)));
        let c = |f: fn(&RunFigures) -> u64| e(&|r| f(r) as f64);
        Summary {
            makespan_s: s(|r| r.makespan),
            tasks: c(|r| r.tasks),
            executions: c(|r| r.executions),
            cancelled_executions: c(|r| r.cancelled_executions),
            aggregate_processing_s: s(|r| r.aggregate_processing),
            failures: c(|r| r.failures),
            useful_s: s(|r| r.useful),
            transfer_s: s(|r| r.transfer),
            cancelled_s: s(|r| r.cancelled),
            waiting_s: s(|r| r.waiting),
            checkpointing_s: s(|r| r.checkpointing),
            resend_s: s(|r| r.resend),
            idle_s: s(|r| r.idle),
            local_copies: c(|r| r.local_copies),
            remote_copies: c(|r| r.remote_copies),
            resent_copies: c(|r| r.resent_copies),
            max_copies_held: c(|r| r.max_copies_held),
            max_bytes_held: output_bytes.map(|b| e(&|r| r.max_copies_held as f64 * b as f64)),
            tasks_per_worker_min: c(|r| r.tasks_per_worker.iter().copied().min().unwrap_or(0)),
            tasks_per_worker_max: c(|r| r.tasks_per_worker.iter().copied().max().unwrap_or(0)),
        }
    }
}

/// Refuses, before any run, a Poisson config whose runs cannot finish: every task is processed
/// at least once, so a run lasts at least (tasks x process cost / workers) and meets on average
/// at least that over the MTBF in failures. Beyond [`run::MAX_FAILURES`] each run would be
/// stopped there (Poisson counts that large hardly deviate from their mean), after minutes of
/// work per run. Under global rollback every failure cancels every execution in progress, so
/// the first task completes only after a stretch of its process cost `P` without failures,
/// which a Poisson process of mean `M` reaches after `e^(P/M) - 1` failures on average: past
/// the same cap, refused too.
pub fn check_feasible(cfg: &StencilConfig) -> Result<(), SimError> {
    let Failures::Poisson { mtbf } = cfg.failures else {
        return Ok(());
    };
    let tasks = cfg.width as f64 * cfg.rows as f64;
    let least = tasks * cfg.process_cost as f64 / f64::from(cfg.workers.max(1));
    let expected = least / mtbf as f64;
    // A zero MTBF gives infinity (or NaN with no work): refused unless there is no work at all.
    if expected > run::MAX_FAILURES as f64 || (mtbf == 0 && least > 0.0) {
        return Err(SimError::Hopeless {
            mtbf_s: mtbf as f64 * 1e-9,
            expected: expected.min(f64::MAX),
        });
    }
    // ln of the failures before the first failure-free stretch of `ns`, where past the cap.
    let beyond_cap = |ns: f64| {
        let ln_expected = crate::failure::ln_expm1(ns / mtbf as f64);
        (ln_expected > (run::MAX_FAILURES as f64).ln()).then_some(ln_expected)
    };
    if cfg.recovery == Recovery::Global
        && cfg.process_cost > 0
        && let Some(ln_expected) = beyond_cap(cfg.process_cost as f64)
    {
        return Err(SimError::GlobalHopeless {
            mtbf_s: crate::units::ns_to_secs(mtbf),
            process_s: crate::units::ns_to_secs(cfg.process_cost),
            ln_expected,
        });
    }
    if cfg.workers == 1
        && least > 0.0
        && let Some(ln_expected) = beyond_cap(least)
    {
        return Err(SimError::LoneWorkerHopeless {
            mtbf_s: crate::units::ns_to_secs(mtbf),
            work_s: least / crate::units::NS_PER_S,
            ln_expected,
        });
    }
    Ok(())
}

/// `runs` runs of `cfg` on `threads` threads (0 = all cores), results in run order whatever
/// the thread count. A deterministic config (a trace or no failures) is simulated once and its
/// result repeated. `tick` is called once per run.
pub fn simulate_runs(
    cfg: &StencilConfig,
    seed: u64,
    runs: u64,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<RunFigures>, SimError> {
    simulate_range(cfg, seed, 0..runs, threads, tick)
}

/// The runs `range` of [`simulate_runs`] (one shard's slice), with the same run indices and
/// so the same streams; a deterministic config is simulated once (not at all for an empty
/// slice) and repeated.
pub fn simulate_range(
    cfg: &StencilConfig,
    seed: u64,
    range: Range<u64>,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<RunFigures>, SimError> {
    let runs = range.end.saturating_sub(range.start);
    crate::sim::run::check_results(runs, RunFigures::kept_bytes(cfg.workers))?;
    let layout = layout(cfg);
    if !matches!(cfg.failures, Failures::Poisson { .. }) {
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let one = simulate_run(&layout, cfg, seed, 0)?;
        for _ in range.clone() {
            tick();
        }
        return Ok(vec![one; (range.end - range.start) as usize]);
    }
    check_feasible(cfg)?;
    let run_bytes = run::run_bytes(&layout, cfg);
    crate::sim::run::replicate_range(range, threads, run_bytes, tick, |i| {
        simulate_run(&layout, cfg, seed, i)
    })
}

#[cfg(test)]
mod feasibility {
    use super::*;

    fn cfg(mtbf: u64) -> StencilConfig {
        StencilConfig {
            width: 256,
            rows: 256,
            workers: 128,
            level: 6,
            checkpoint: true,
            recovery: Recovery::Global,
            process_cost: 7_100_000_000,
            backup_cost: 1_300_000,
            transfer_cost: 1_300_000,
            failures: Failures::Poisson { mtbf },
            output_bytes: None,
        }
    }

    #[test]
    fn refuses_only_beyond_the_failure_cap() {
        // 65536 tasks x 7.1 s / 128 workers = 3635.2 s of work per worker: 10^6 failures at
        // an MTBF of 3.6352 ms.
        // Dependency-aware rollback: the work-per-worker bound alone.
        let dependency = |mtbf| StencilConfig {
            recovery: Recovery::Dependency,
            ..cfg(mtbf)
        };
        assert!(check_feasible(&dependency(3_635_000)).is_err());
        assert!(check_feasible(&dependency(3_636_000)).is_ok());
        assert!(check_feasible(&dependency(0)).is_err());
        assert!(check_feasible(&cfg(0)).is_err());
        assert!(check_feasible(&cfg(1_800_000_000_000)).is_ok());
        let mut none = cfg(1);
        none.failures = Failures::None;
        assert!(check_feasible(&none).is_ok());
    }

    /// Global rollback needs a stretch of P = 7.1 s without failures: e^(P/M) - 1 = 10^6 at
    /// M = P / ln(10^6 + 1) = 0.513912 s (by hand: ln(1000001) = 13.815512).
    #[test]
    fn global_rollback_refuses_beyond_the_first_failure_free_stretch() {
        assert!(matches!(
            check_feasible(&cfg(513_900_000)),
            Err(SimError::GlobalHopeless { .. })
        ));
        assert!(check_feasible(&cfg(513_930_000)).is_ok());
        let e = check_feasible(&cfg(100_000_000)).unwrap_err().to_string();
        assert!(e.contains("e^71.0 failures"), "{e}");
    }

    /// One worker, its own guard: a failure loses everything and the run starts over, so a run
    /// needs one failure-free stretch of all its work `W` (no transfers: every input is its
    /// own; no backup cost here). A Poisson process meets `e^(W/M) - 1` failures on average
    /// before its first gap of `W`; the simulated mean agrees, and the refusal uses that bound.
    #[test]
    fn a_lone_worker_needs_one_failure_free_stretch_of_all_its_work() {
        let lone = |mtbf| StencilConfig {
            width: 4,
            rows: 4,
            workers: 1,
            level: 2,
            backup_cost: 0,
            transfer_cost: 0,
            process_cost: 1_000_000_000,
            recovery: Recovery::Dependency,
            ..cfg(mtbf)
        };
        // W = 16 s, M = 8 s: e^2 - 1 = 6.389 failures a run.
        let c = lone(8_000_000_000);
        let failures: Vec<f64> = simulate_runs(&c, 11, 4000, 1, &|| {})
            .unwrap()
            .iter()
            .map(|r| r.failures as f64)
            .collect();
        let e = crate::sim::stats::Estimate::from_samples(&failures);
        let expected = 2f64.exp() - 1.0;
        let z = (e.point - expected) / e.stderr.unwrap();
        assert!(z.abs() < 4.0, "{} vs {expected}: z = {z}", e.point);
        // e^(16/M) - 1 = 10^6 at M = 16 / ln(1000001) = 1.158115 s.
        assert!(matches!(
            check_feasible(&lone(1_158_000_000)),
            Err(SimError::LoneWorkerHopeless { .. })
        ));
        assert!(check_feasible(&lone(1_158_200_000)).is_ok());
        // Two workers keep each other's checkpoints: the bound does not apply.
        assert!(
            check_feasible(&StencilConfig {
                workers: 2,
                ..lone(1_158_000_000)
            })
            .is_ok()
        );
    }
}

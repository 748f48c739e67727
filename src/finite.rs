//! The finite-job answers of `ckpt interval` (`docs/models.md` §9-§11): asynchronous
//! checkpoints as the reference model, whole chunks of `--work`, and the schedule of a fixed
//! allocation. Kept apart from `interval.rs`, which only asks these functions.

use crate::interval::{IntervalError, IntervalInputs};
use crate::model::ModelError;
use crate::model::allocation::{Allocation, AllocationPlan};
use crate::model::asynchronous::AsyncComplete;
use crate::model::chunks::{FiniteJob, WholeChunks};
use serde::{Deserialize, Serialize};

/// Asynchronous checkpoints: `cost` is the snapshot's stall, then a background write.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AsyncInputs {
    /// The background write `D_w` (s); the checkpoint is durable when it ends.
    pub write_s: f64,
    /// Fraction of speed lost while a write runs, in `[0, 1)`.
    pub slowdown: f64,
}

/// A fixed wall-time allocation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AllocationInputs {
    /// The allocation's length `T` (s).
    pub walltime_s: f64,
    /// Added to the checkpoint cost before rounding the signal's lead up to a second (s).
    pub signal_margin_s: f64,
}

impl AllocationInputs {
    /// The allocation model of this allocation for the single-level `inputs` (§10).
    pub fn model(&self, inputs: &IntervalInputs) -> Result<Allocation, ModelError> {
        Allocation::new(
            inputs.mtbf,
            inputs.cost,
            inputs.restart,
            inputs.downtime,
            self.walltime_s,
            self.signal_margin_s,
        )
    }
}

fn one_job(what: &'static str, value: f64, inputs: &IntervalInputs) -> Result<(), IntervalError> {
    if inputs.replication.is_some() {
        return Err(IntervalError::Input {
            name: what,
            value,
            accepted: "a setting of one coordinated job: it does not combine with the replicated model (--procs/--replicas)",
        });
    }
    Ok(())
}

/// The asynchronous model of `inputs`, when it has a background write.
pub fn async_model(inputs: &IntervalInputs) -> Result<Option<AsyncComplete>, IntervalError> {
    let Some(a) = inputs.asynchronous else {
        return Ok(None);
    };
    one_job("async-write", a.write_s, inputs)?;
    Ok(Some(AsyncComplete::new(
        inputs.mtbf,
        inputs.cost,
        inputs.restart,
        inputs.downtime,
        a.write_s,
        a.slowdown,
    )?))
}

/// The cost the synchronous rows are computed with: the snapshot and its write, as if the
/// checkpoint blocked for both (`docs/models.md` §11); the cost itself without a write.
pub fn blocking_cost(inputs: &IntervalInputs) -> f64 {
    inputs.cost + inputs.asynchronous.map_or(0.0, |a| a.write_s)
}

/// Most counts the asynchronous whole-chunk search looks at on either side of `W / tau*`.
const ASYNC_NEIGHBOURS: u64 = 2;

/// The best whole number of chunks of `inputs.work`, under the reference model: Bougeret's
/// optimum (§9) for synchronous checkpoints; with a background write, the count near
/// `W / tau*` with the lowest expected wall time of §11's finite job (`tau*` = `interval`,
/// the asynchronous optimum). `None` without work or with the replicated model.
pub fn whole_chunks(
    inputs: &IntervalInputs,
    interval: f64,
) -> Result<Option<WholeChunks>, IntervalError> {
    let Some(work) = inputs.work else {
        return Ok(None);
    };
    if inputs.replication.is_some() {
        return Ok(None);
    }
    let Some(model) = async_model(inputs)? else {
        let job = FiniteJob::new(
            work,
            inputs.mtbf,
            inputs.cost,
            inputs.restart,
            inputs.downtime,
        )?;
        return Ok(Some(job.optimum()?));
    };
    let k0 = work / interval;
    if !(k0.is_finite() && k0 < crate::model::chunks::MAX_CHUNKS as f64) {
        return Err(IntervalError::Input {
            name: "work",
            value: work,
            accepted: "a job that needs fewer than 2^53 chunks at the optimal interval",
        });
    }
    let center = k0.floor() as u64;
    let mut best: Option<WholeChunks> = None;
    for k in center.saturating_sub(ASYNC_NEIGHBOURS).max(1)..=center + 1 + ASYNC_NEIGHBOURS {
        // `W / k` may divide back into a hair more than k segments: take the next float up.
        let mut tau = work / k as f64;
        if (work / tau).ceil() > k as f64 {
            tau = tau.next_up();
        }
        // Below the wait rule's edge the chunks would not hold `W / k` each.
        let Ok(wall) = model.expected_wall(work, tau) else {
            continue;
        };
        if best.is_none_or(|b| wall < b.completion) {
            best = Some(WholeChunks {
                count: k,
                interval: tau,
                completion: wall,
                continuous_count: k0,
            });
        }
    }
    Ok(best)
}

/// The schedule of `inputs.allocation` (§10), `None` without one.
pub fn allocation(inputs: &IntervalInputs) -> Result<Option<AllocationPlan>, IntervalError> {
    let Some(a) = inputs.allocation else {
        return Ok(None);
    };
    one_job("walltime", a.walltime_s, inputs)?;
    if let Some(w) = inputs.asynchronous {
        return Err(IntervalError::Input {
            name: "async-write",
            value: w.write_s,
            accepted: "synchronous checkpoints inside an allocation (asynchronous ones are not modelled there)",
        });
    }
    Ok(Some(a.model(inputs)?.optimum()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;

    fn inputs(write: Option<(f64, f64)>, work: Option<f64>) -> IntervalInputs {
        let mut i = IntervalInputs::single(10_800.0, 60.0, 0.0);
        i.asynchronous = write.map(|(write_s, slowdown)| AsyncInputs { write_s, slowdown });
        i.work = work;
        i
    }

    #[test]
    fn async_whole_chunks_beat_their_neighbours() {
        let i = inputs(Some((600.0, 0.1)), Some(100.0 * 3600.0));
        let model = async_model(&i).unwrap().unwrap();
        let tau = crate::optimize::minimize(&model).unwrap().interval;
        let w = whole_chunks(&i, tau).unwrap().unwrap();
        assert_eq!(
            (360_000.0 / w.interval).ceil() as u64,
            w.count,
            "{w:?} cuts the work into its count"
        );
        // Every count from 1 to 4 K0 by brute force: none completes sooner.
        for k in 1..(4.0 * w.continuous_count) as u64 {
            let t = (360_000.0 / k as f64).next_up();
            if let Ok(wall) = model.expected_wall(360_000.0, t) {
                assert!(wall >= w.completion * (1.0 - 1e-12), "k = {k}");
            }
        }
        // Close to W times the stationary overhead (the ends of the job differ).
        let steady = 360_000.0 * model.overhead(tau).unwrap();
        assert!((w.completion / steady - 1.0).abs() < 0.02, "{w:?} {steady}");
    }

    #[test]
    fn synchronous_whole_chunks_are_bougerets() {
        let mut i = IntervalInputs::single(86_400.0, 600.0, 600.0);
        i.downtime = 60.0;
        i.work = Some(864_000.0);
        let w = whole_chunks(&i, 1.0).unwrap().unwrap();
        assert_eq!(w.count, 88);
        assert!(whole_chunks(&inputs(None, None), 1.0).unwrap().is_none());
    }

    #[test]
    fn conflicting_settings_are_refused() {
        let mut i = inputs(Some((600.0, 0.0)), None);
        i.allocation = Some(AllocationInputs {
            walltime_s: 86_400.0,
            signal_margin_s: 0.0,
        });
        let e = allocation(&i).unwrap_err().to_string();
        assert!(e.contains("async-write = 600"), "{e}");
        i.asynchronous = None;
        i.replication = Some(crate::interval::Replication {
            procs: 2,
            replicas: 2,
            detect: crate::model::replicated::Detect::End,
            shape: crate::failure::Shape::Exponential,
        });
        assert!(allocation(&i).is_err());
        assert_eq!(blocking_cost(&inputs(Some((600.0, 0.5)), None)), 660.0);
    }
}

//! The finite-job answers of `ckpt interval` (`docs/models.md` §9-§11): asynchronous
//! checkpoints as the reference model, whole chunks of `--work`, and the schedule of a fixed
//! allocation. Kept apart from `interval.rs`, which only asks these functions.

use crate::interval::{IntervalError, IntervalInputs};
use crate::model::ModelError;
use crate::model::allocation::{Allocation, AllocationPlan, IterationPlan, Limit};
use crate::model::asynchronous::AsyncComplete;
use crate::model::chunks::{FiniteJob, WholeChunks};
use crate::model::finite_renewal::{
    MAX_LATTICE_STATES, Prediction, expected_wall, followed_grid, on_grid, predict_with_spread,
    wall_moments,
};
use crate::model::renewal::{Renewal, RenewalAnalysis};
use crate::model::renewal_allocation::{RenewalAllocation, RenewalAllocationPlan};
use crate::sim::engine::{run_parallel_range, threads_within_memory};
use crate::units::{Nanos, chunk_ns, ns_to_secs, secs_to_ns};
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
                completion_sd: None,
                continuous_count: k0,
            });
        }
    }
    if let Some(b) = best.as_mut() {
        b.completion_sd = model.completion_sd(work, b.interval)?;
    }
    Ok(best)
}

/// Most steps the renewal whole-chunk search takes on either side of each count it starts from.
const RENEWAL_NEIGHBOURS: u64 = 8;
/// Most counts of "j chunks to the schedule's first" the renewal whole-chunk search starts from.
const RENEWAL_FITS: u64 = 64;
/// The most memory one evaluation of the whole-chunk search holds: a lattice's expected
/// times, which bounds how many run at once.
const SEARCH_EVALUATION_BYTES: u64 = (MAX_LATTICE_STATES * std::mem::size_of::<f64>()) as u64;

/// One job under renewal failures with `--work` (`docs/models.md` §13.1): what each policy of
/// `interval --dist` is expected to take to finish the work from a fresh start, and the best
/// whole number of equal chunks near the best period's count.
#[derive(Debug, Clone, PartialEq)]
pub struct RenewalCompletion {
    /// The work (s).
    pub work_s: f64,
    /// Young's interval.
    pub young: Prediction,
    /// Daly's complete optimum.
    pub daly: Prediction,
    /// The best period under `F`.
    pub periodic: Prediction,
    /// The schedule after each restart, its chunks in whole seconds as `--format env` gives
    /// them; where the model does not follow that job but follows the one of the chunks on a
    /// coarser grid ([`followed_grid`]), of those.
    pub schedule: Prediction,
    /// The grid (s) of the chunks `schedule` is of: 1, or the coarser one.
    pub schedule_grid_s: u64,
    /// The count of equal chunks whose finite job takes least, found by walking while the job
    /// gets shorter (at most 8 counts either way) from the count nearest `W / tau*` (`tau*` the
    /// best period, at most a quarter of it either way) and from the counts at which `j` chunks
    /// and their checkpoints fill the schedule's first chunk and its checkpoint (`j = 1, 2,
    /// ...` while the chunk is at least `tau* / 2`, at most 64): where the lifetime barely
    /// varies, the best equal chunks are those that fill a life. `None` where no start has a
    /// finite-job figure.
    pub whole_chunks: Option<WholeChunks>,
}

/// The finite job of `work_s` under each policy of `a` (the analysis of `job`): the expected
/// wall time over the work where [`crate::model::finite_renewal`] follows the job's states,
/// else the long-run overhead (each [`Prediction`] says which). Chunks and work are rounded to
/// whole nanoseconds, as the simulator runs them.
pub fn renewal_completion(
    job: &Renewal,
    a: &RenewalAnalysis,
    work_s: f64,
) -> Result<RenewalCompletion, IntervalError> {
    let work = secs_to_ns(work_s);
    if !(1..Nanos::MAX).contains(&work) {
        return Err(IntervalError::Input {
            name: "work",
            value: work_s,
            accepted: "from 1 ns to 18446744073 s (584 years) with --dist for one job",
        });
    }
    let of = |chunks: &[f64]| {
        let chunks: Vec<Nanos> = chunks.iter().map(|&w| chunk_ns(w)).collect();
        predict_with_spread(job, &chunks, work)
    };
    let k0 = work_s / a.periodic.interval;
    let wall_of = |k: u64| -> Option<WholeChunks> {
        // `k` chunks of `ceil(W / k)` ns, the last one cut to what is left.
        let chunk = work.div_ceil(k);
        if work.div_ceil(chunk) != k {
            return None;
        }
        let wall = expected_wall(job, &[chunk], work).ok()??;
        Some(WholeChunks {
            count: k,
            interval: ns_to_secs(chunk),
            completion: wall,
            completion_sd: None,
            continuous_count: k0,
        })
    };
    // From `center`, down then up within `low..=high`, while the job gets shorter.
    let walk = |center: u64, low: u64, high: u64| {
        wall_of(center).map(|mut here| {
            for step in [u64::checked_sub, u64::checked_add] {
                while let Some(next) = step(here.count, 1).filter(|k| (low..=high).contains(k)) {
                    match wall_of(next) {
                        Some(w) if w.completion < here.completion => here = w,
                        _ => break,
                    }
                }
            }
            here
        })
    };
    let around = |center: u64| {
        (
            center.saturating_sub(RENEWAL_NEIGHBOURS).max(1),
            center.saturating_add(RENEWAL_NEIGHBOURS),
        )
    };
    let center = k0.round().clamp(1.0, Nanos::MAX as f64) as u64;
    let (low, high) = around(center);
    let mut starts = vec![(
        center,
        low.max((k0 / 1.25).floor() as u64),
        high.min((k0 * 1.25).ceil() as u64).max(center),
    )];
    // Chunks that fill a life: `j` of them and their checkpoints in the schedule's first chunk
    // and its checkpoint (which, under a nearly fixed lifetime, ends just before the cliff).
    // Under a spread-out lifetime `j` stops at 1 or 2, and those walks end above the one from
    // `W / tau*`. Each start is walked from: one that starts above the best may still reach a
    // lower dip within its 8 counts (Weibull 1e4 with 1-s checkpoints, by 7e-4).
    let (cost, first) = (
        job.cost(),
        a.schedule.chunks.first().copied().unwrap_or(0.0),
    );
    for j in 1..=RENEWAL_FITS {
        let chunk = (first + cost) / j as f64 - cost;
        if !(chunk >= 0.5 * a.periodic.interval) {
            break;
        }
        // Rounded up, so that the chunks are no longer than the ones that fill the life.
        let k = (work_s / chunk).ceil().clamp(1.0, Nanos::MAX as f64) as u64;
        let (low, high) = around(k);
        starts.push((k, low, high));
    }
    // The walks are independent: they run in parallel, and the best is taken in the order of
    // the starts (the first of equal completions), so the answer is the same whatever the
    // thread count. Each evaluation holds at most one lattice of expected times in memory.
    let threads = threads_within_memory(0, SEARCH_EVALUATION_BYTES);
    let walks = run_parallel_range(0..starts.len() as u64, threads, &|| {}, |i| {
        let (k, low, high) = starts[i as usize];
        walk(k, low, high)
    });
    let best = walks
        .into_iter()
        .flatten()
        .fold(None, |best: Option<WholeChunks>, w| {
            if best.is_none_or(|b| w.completion < b.completion) {
                Some(w)
            } else {
                best
            }
        });
    // As a batch script runs it (`CKPT_SCHEDULE_SECONDS`): whole seconds put every chunk end
    // on a lattice of 1 s, which the recursion follows as far as its bounds allow (about 30
    // days where lives vary); beyond, a coarser grid whose job it follows (docs/models.md
    // §13.1), before the long-run figure.
    // `followed_grid` tries whole seconds first; where it finds no grid (or the chunks are too
    // short for one), whole seconds stand all the same, and their figure is long-run only if
    // the model does not follow them.
    let chunks = &a.schedule.chunks;
    let schedule_grid_s = followed_grid(job, chunks, work)?.unwrap_or(1);
    Ok(RenewalCompletion {
        work_s,
        young: of(&[a.young.interval]),
        daly: of(&[a.daly.interval]),
        periodic: of(&[a.periodic.interval]),
        schedule: predict_with_spread(job, &on_grid(chunks, schedule_grid_s), work),
        schedule_grid_s,
        // The spread of the best count only: the search compared means.
        whole_chunks: best.map(|mut w| {
            let chunk = work.div_ceil(w.count);
            w.completion_sd = wall_moments(job, &[chunk], work)
                .ok()
                .flatten()
                .map(|m| m.variance.sqrt());
            w
        }),
    })
}

/// The schedule of `inputs.allocation` (§10), `None` without one; with
/// `inputs.iteration_time`, also the best interval of whole iterations in it.
pub fn allocation(
    inputs: &IntervalInputs,
) -> Result<Option<(AllocationPlan, Option<IterationPlan>)>, IntervalError> {
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
    let model = a.model(inputs)?;
    let plan = model.optimum()?;
    let iterations = inputs
        .iteration_time
        .and_then(|iteration| model.in_iterations(plan.interval, iteration));
    Ok(Some((plan, iterations)))
}

/// The allocation's answer under renewal failures (`docs/models.md` §10.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenewalAllocationAnswer {
    /// The best period under the job's lifetime (not always aligned with the signal).
    pub best: RenewalAllocationPlan,
    /// §10's answer for exponential failures of the same mean, and what it saves under the
    /// job's lifetime; `None` where §10 does not resolve the allocation.
    pub exponential: Option<ExponentialBelief>,
    /// With an iteration length: the best interval of whole iterations under the lifetime.
    pub iterations: Option<IterationPlan>,
}

/// What a user who takes the failures as exponential would run, judged under the real lifetime.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExponentialBelief {
    /// §10's plan at the same MTBF (its saved work is §10's prediction).
    pub plan: AllocationPlan,
    /// The expected work that plan saves under the job's lifetime (s).
    pub saved_under_lifetime: f64,
}

/// The schedule of the allocation `a` for the renewal job `job` (§10.1): the best period under
/// its lifetime, searched around the long-run best period of `analysis`, the exponential
/// model's answer judged under the lifetime, and with `iteration` (an iteration's length, s)
/// the best interval of whole iterations.
pub fn renewal_allocation(
    job: &Renewal,
    analysis: &RenewalAnalysis,
    a: AllocationInputs,
    iteration: Option<f64>,
) -> Result<RenewalAllocationAnswer, IntervalError> {
    let limit = Limit::new(job.cost(), a.walltime_s, a.signal_margin_s)?;
    let guess = analysis.periodic.interval;
    let model = RenewalAllocation::new(job.life(), job.restart(), limit, guess)?;
    let best = model.optimum(guess)?;
    let exponential = Allocation::new(
        job.life().mean(),
        job.cost(),
        job.restart(),
        0.0,
        a.walltime_s,
        a.signal_margin_s,
    )
    .and_then(|e| e.optimum())
    .ok()
    .and_then(|plan| {
        model
            .expected_saved_work(&[plan.interval])
            .map(|saved_under_lifetime| ExponentialBelief {
                plan,
                saved_under_lifetime,
            })
    });
    let iterations = iteration.and_then(|i| model.in_iterations(best.plan.interval, i));
    Ok(RenewalAllocationAnswer {
        best,
        exponential,
        iterations,
    })
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

    fn renewal_job(shape: crate::failure::Shape) -> (Renewal, RenewalAnalysis) {
        let life = crate::failure::Lifetime::new(shape, 86_400.0).unwrap();
        let job = Renewal::new(life, 600.0, 600.0).unwrap();
        let a = job.analyze().unwrap();
        (job, a)
    }

    #[test]
    fn renewal_work_outside_the_nanosecond_range_is_refused() {
        let (job, a) = renewal_job(crate::failure::Shape::Exponential);
        for work in [1e-12, 0.0, -1.0, f64::NAN, 1e10 * 2.0, f64::INFINITY] {
            let e = renewal_completion(&job, &a, work).unwrap_err();
            assert!(e.to_string().contains("584 years"), "{work}: {e}");
        }
        assert!(renewal_completion(&job, &a, 1e-9).is_ok());
    }

    #[test]
    fn renewal_whole_chunks_beat_their_neighbours() {
        use crate::model::finite_renewal::PredictionKind;
        let (job, a) = renewal_job(crate::failure::Shape::Weibull { shape: 0.7 });
        let work_s = 10.0 * 86_400.0;
        let c = renewal_completion(&job, &a, work_s).unwrap();
        for p in [c.young, c.daly, c.periodic, c.schedule] {
            assert_eq!(p.kind, PredictionKind::FiniteJob);
        }
        let w = c.whole_chunks.unwrap();
        let work = secs_to_ns(work_s);
        for k in [w.count - 1, w.count + 1] {
            let chunk = work.div_ceil(k);
            let other = expected_wall(&job, &[chunk], work).unwrap().unwrap();
            assert!(w.completion <= other, "{k}: {other} < {}", w.completion);
        }
        // The equal chunks are within a few percent of the best period's count and lose
        // nothing to it (the period's last chunk is cut short).
        assert!((w.count as f64 / (work_s / a.periodic.interval) - 1.0).abs() < 0.05);
        assert!(w.completion <= c.periodic.overhead.unwrap() * work_s * (1.0 + 1e-9));
    }

    /// Under a nearly fixed lifetime the job's time is far from unimodal in the count: it
    /// dips wherever whole chunks fill a life. The walk from `W / tau*` alone stopped at 97
    /// chunks (931151 s) for ten days of work at Weibull 1e4, where 31 chunks, three a life,
    /// take 893071 s. Every count from 1 to twice `W / tau*` is tried here, a second search:
    /// the answer is the best of them.
    #[test]
    fn renewal_whole_chunks_fill_the_lives_of_a_nearly_fixed_lifetime() {
        use crate::failure::Shape;
        for (shape, days) in [
            (Shape::Weibull { shape: 1e4 }, 10.0),
            (Shape::Weibull { shape: 1e4 }, 30.0),
            (Shape::Weibull { shape: 50.0 }, 30.0),
            (Shape::Gamma { shape: 1e4 }, 10.0),
        ] {
            let (job, a) = renewal_job(shape);
            let work_s = days * 86_400.0;
            let w = renewal_completion(&job, &a, work_s)
                .unwrap()
                .whole_chunks
                .unwrap();
            let work = secs_to_ns(work_s);
            let top = (2.0 * work_s / a.periodic.interval).ceil() as u64;
            let scan = (1..=top)
                .filter_map(|k| expected_wall(&job, &[work.div_ceil(k)], work).ok()?)
                .fold(f64::INFINITY, f64::min);
            assert!(
                w.completion <= scan * (1.0 + 1e-12),
                "{shape} {days} d: {} chunks, {} s; the scan's best {scan} s",
                w.count,
                w.completion
            );
        }
        let (job, a) = renewal_job(Shape::Weibull { shape: 1e4 });
        let w = renewal_completion(&job, &a, 864_000.0)
            .unwrap()
            .whole_chunks
            .unwrap();
        assert_eq!(w.count, 31);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]
        // Exponential failures: a period's job is whole segments of Daly's term and one cut to
        // the work left, and the whole-chunk search lands on Bougeret's count (model::chunks,
        // written for exponential failures alone) or one exactly as good.
        #[test]
        fn exponential_completions_are_dalys_and_bougerets(
            m in 3600.0f64..1e6,
            c_frac in 0.001f64..0.2,
            r_frac in 0.0f64..0.2,
            lives in 0.5f64..40.0,
        ) {
            let (c, r) = (c_frac * m, r_frac * m);
            let work_s = (lives * m).round();
            let life = crate::failure::Lifetime::exponential(m).unwrap();
            let job = Renewal::new(life, c, r).unwrap();
            let a = job.analyze().unwrap();
            let got = renewal_completion(&job, &a, work_s).unwrap();
            let seg = |t: f64| m * (r / m).exp() * ((t + c) / m).exp_m1();
            let tau = ns_to_secs(secs_to_ns(a.young.interval));
            let whole = (work_s / tau).floor();
            let exact = whole * seg(tau) + seg(work_s - whole * tau);
            let young = got.young.overhead.unwrap() * work_s;
            proptest::prop_assert!((young / exact - 1.0).abs() < 1e-9, "{young} vs {exact}");
            let ours = got.whole_chunks.unwrap();
            let bougeret = FiniteJob::new(work_s, m, c, r, 0.0).unwrap().optimum().unwrap();
            proptest::prop_assert!(
                (ours.completion / bougeret.completion - 1.0).abs() < 1e-9,
                "{} chunks: {}; Bougeret's {}: {}",
                ours.count, ours.completion, bougeret.count, bougeret.completion
            );
        }
    }
}

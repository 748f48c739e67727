//! Multi-level checkpointing (docs/simulation.md §5, docs/models.md §12): the semantics of the exact
//! model, simulated on integer nanoseconds.
//!
//! The job works in chunks of `interval`; chunk `c` (counted over the job from 1) ends with one
//! checkpoint of the highest level whose stride divides `c`. Each failure class is its own
//! renewal process in wall time (exponential by default: the model's setting). A class-`i`
//! failure stops whatever the job is doing (work, checkpoint or restart; the checkpoint being
//! written is not made), rolls back to the newest checkpoint of a level `>= i` (the job's start
//! counts as a checkpoint of the top level; with nested strides that is the last multiple of
//! stride `i` at or below the committed chunk), waits out the downtime and pays that
//! checkpoint's level restart cost; a failure during the restart starts this over.
//!
//! Ties and windows (the rules, in order):
//! - failures come first within an instant: a failure at the very instant a checkpoint or a
//!   restart would end interrupts it;
//! - failures of several classes at one instant are one interruption, of the highest of those
//!   classes (each is counted in its class);
//! - failures strictly inside a downtime window (after the failure that opened it, before the
//!   restart begins) are ignored: nothing can fail while the job is down; one at the window's
//!   end hits the restart at its first instant.
//!
//! Random streams: run `i` of seed `s` takes its generator from [`crate::rng::run_rng`] and
//! draws from it one ChaCha8 seed per level, in level order, whether or not the class fails;
//! class `j` then draws its inter-arrival times from its own generator. A class's failure
//! times in a run are therefore the same whatever the pattern, which gives validation common
//! random numbers across intervals and strides.

use super::engine::interrupted_segment;

use super::periodic::MAX_FAILURES_PER_RUN;
use super::run::{Scenario, SimError, check_job, estimate, invalid, past_the_clock};
pub use super::run::{simulate, simulate_range};
use super::stats::Estimate;
use crate::failure::Lifetime;
use crate::model::multilevel::{Level, Levels, MAX_LEVELS, Pattern, level_of};
use crate::rng::run_rng;
use crate::units::{Nanos, ns_to_secs, secs_to_ns};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// One level of the simulated job, in nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimLevel {
    /// A name for reports.
    pub name: String,
    /// One checkpoint of this level.
    pub cost: Nanos,
    /// One restart from a checkpoint of this level.
    pub restart: Nanos,
    /// The inter-arrival times of the class this level is the first to survive; `None` when
    /// the class never fails.
    pub failures: Option<Lifetime>,
}

/// A validated multi-level setup, in nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MultilevelConfig {
    /// Computation the job needs. The last chunk is shorter when it is not a whole number of
    /// chunks; it ends with its checkpoint like every other.
    pub work: Nanos,
    /// Work per chunk (the base interval `w`).
    pub interval: Nanos,
    /// One stride per level, as [`Pattern`] takes them (first 1, each dividing the next; a
    /// level whose stride equals the next one's is left out).
    pub strides: Vec<u64>,
    /// The levels, cheapest first.
    pub levels: Vec<SimLevel>,
    /// Dead time before each restart, during which nothing fails.
    pub downtime: Nanos,
}

impl MultilevelConfig {
    /// The configuration of the exact model's pattern: `levels` and `pattern` in seconds
    /// (rounded to nanoseconds), exponential classes, and `work` seconds of work.
    pub fn from_model(
        levels: &Levels,
        pattern: &Pattern,
        work: f64,
    ) -> Result<MultilevelConfig, SimError> {
        let sim_levels = levels
            .levels()
            .iter()
            .map(|l: &Level| {
                let failures = l.mtbf.map(Lifetime::exponential).transpose().map_err(|e| {
                    SimError::Invalid {
                        field: "level",
                        value: l.name.clone(),
                        accepted: e.to_string(),
                    }
                })?;
                Ok(SimLevel {
                    name: l.name.clone(),
                    cost: secs_to_ns(l.cost),
                    restart: secs_to_ns(l.restart),
                    failures,
                })
            })
            .collect::<Result<Vec<_>, SimError>>()?;
        Ok(MultilevelConfig {
            work: secs_to_ns(work),
            interval: secs_to_ns(pattern.interval()),
            strides: pattern.strides().to_vec(),
            levels: sim_levels,
            downtime: secs_to_ns(levels.downtime()),
        })
    }

    /// With exponential classes the exact model says how many failures a run needs: refuse a
    /// job that would need more than [`MAX_FAILURES_PER_RUN`] instead of running into the cap.
    fn check_progress(&self, pattern: &Pattern, chunks: f64) -> Result<(), SimError> {
        if self
            .levels
            .iter()
            .any(|l| l.failures.is_some_and(|f| !f.shape().is_exponential()))
        {
            return Ok(());
        }
        let levels: Vec<Level> = self
            .levels
            .iter()
            .map(|l| {
                Level::new(
                    &l.name,
                    ns_to_secs(l.cost),
                    ns_to_secs(l.restart),
                    l.failures.map(|f| f.mean()),
                )
            })
            .collect();
        // Costs need not be ordered in a simulation; the bound below does not depend on it.
        let mut sorted = levels.clone();
        for l in &mut sorted {
            l.cost = levels.iter().map(|x| x.cost).fold(0.0, f64::max);
        }
        let too_many = |what: String| {
            Err(SimError::NoProgress(format!(
                "{what}: the MTBFs are too short for this interval, strides and costs to finish"
            )))
        };
        let Ok(model) = Levels::new(sorted, ns_to_secs(self.downtime)) else {
            return Ok(());
        };
        match model.evaluate(pattern) {
            Ok(e) => {
                let failures = e.failures_per_period * chunks / pattern.chunks() as f64;
                if failures > MAX_FAILURES_PER_RUN as f64 {
                    return too_many(format!(
                        "about {failures:.3e} failures expected per run (over {MAX_FAILURES_PER_RUN})"
                    ));
                }
                Ok(())
            }
            Err(_) => too_many("the expected time of a period is beyond 1e300 s".into()),
        }
    }
}

/// What one run measured, in nanoseconds and counts.
// Serialized for shard files (`--shard`), which carry per-run results to `ckpt merge`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MultilevelRun {
    /// Time to finish the job.
    pub wall: Nanos,
    /// Interruptions (failures at one instant count once).
    pub failures: u64,
    /// Failures that hit the job, per class (ignored ones, during downtime, not counted).
    pub class_failures: Vec<u64>,
    /// Work executed, including work later rolled back.
    pub work_executed: Nanos,
    /// Time writing checkpoints, interrupted ones included.
    pub checkpoint: Nanos,
    /// Time restarting, interrupted restarts included.
    pub restart: Nanos,
    /// Downtime.
    pub downtime: Nanos,
    /// Work executed and then rolled back: `work_executed - work`.
    pub lost_work: Nanos,
    /// Simulated events: chunks committed, interruptions, restarts completed.
    pub events: u64,
}

/// The failure times of one class.
enum Clock {
    Never,
    // Boxed: the generator is large and most clocks of a run are of this kind anyway.
    Random {
        life: Lifetime,
        rng: Box<ChaCha8Rng>,
        next: Nanos,
    },
    #[cfg(test)]
    Fixed {
        times: Vec<Nanos>,
        pos: usize,
    },
}

impl Clock {
    fn next(&self) -> Nanos {
        match self {
            Clock::Never => Nanos::MAX,
            Clock::Random { next, .. } => *next,
            #[cfg(test)]
            Clock::Fixed { times, pos } => times.get(*pos).copied().unwrap_or(Nanos::MAX),
        }
    }

    fn advance(&mut self) {
        match self {
            Clock::Never => {}
            Clock::Random { life, rng, next } => {
                // At least 1 ns between failures of a class, so that skipping a window ends.
                *next = next.saturating_add(secs_to_ns(life.sample(rng)).max(1));
            }
            #[cfg(test)]
            Clock::Fixed { pos, .. } => *pos += 1,
        }
    }
}

fn too_many() -> SimError {
    SimError::NoProgress(format!(
        "more than {MAX_FAILURES_PER_RUN} failures in one run: the MTBFs are too short for this job to finish"
    ))
}

fn add(t: Nanos, d: Nanos) -> Result<Nanos, SimError> {
    t.checked_add(d)
        .filter(|&e| e < Nanos::MAX)
        .ok_or_else(|| past_the_clock("MTBFs are"))
}

/// Simulates run `run` of `seed`. The config must have passed [`MultilevelConfig::validate`].
pub fn simulate_run(
    cfg: &MultilevelConfig,
    seed: u64,
    run: u64,
) -> Result<MultilevelRun, SimError> {
    run_with(cfg, clocks(cfg, seed, run))
}

/// The failure clocks of run `run`: one generator per level, seeded from the run's stream in
/// level order.
fn clocks(cfg: &MultilevelConfig, seed: u64, run: u64) -> Vec<Clock> {
    let mut rng = run_rng(seed, run);
    cfg.levels
        .iter()
        .map(|l| {
            let mut class = ChaCha8Rng::from_rng(&mut rng);
            match l.failures {
                None => Clock::Never,
                Some(life) => {
                    let next = secs_to_ns(life.sample(&mut class)).max(1);
                    Clock::Random {
                        life,
                        rng: Box::new(class),
                        next,
                    }
                }
            }
        })
        .collect()
}

fn run_with(cfg: &MultilevelConfig, mut clocks: Vec<Clock>) -> Result<MultilevelRun, SimError> {
    let n = cfg.levels.len();
    let k = &cfg.strides;
    let period = k[n - 1];
    let chunks = cfg.work.div_ceil(cfg.interval);
    let rest = cfg.work % cfg.interval;
    let full_periods = (cfg.work / cfg.interval) / period;
    let cost = |c: u64| cfg.levels[level_of(k, c)].cost;
    let span = (1..=period).try_fold(0u64, |acc, c| {
        acc.checked_add(cfg.interval)
            .and_then(|a| a.checked_add(cost(c)))
    });
    let mut out = MultilevelRun {
        class_failures: vec![0; n],
        ..MultilevelRun::default()
    };
    let next_failure =
        |clocks: &[Clock]| clocks.iter().map(Clock::next).min().unwrap_or(Nanos::MAX);
    let mut t: Nanos = 0;
    let mut done: u64 = 0;
    while done < chunks {
        let next = next_failure(&clocks);
        // Whole periods that end before the next failure pass in one step, so a run costs
        // O(failures + chunks of the periods failures touch).
        if let Some(span) = span
            && done.is_multiple_of(period)
            && next > t
        {
            let left = full_periods.saturating_sub(done / period);
            let skip = left.min((next - t - 1) / span.max(1));
            if skip > 0 {
                t = add(t, skip * span)?;
                out.work_executed += skip * period * cfg.interval;
                out.checkpoint += skip * (span - period * cfg.interval);
                out.events += skip * period;
                done += skip * period;
                continue;
            }
        }
        let c = done + 1;
        let len = if c == chunks && rest > 0 {
            rest
        } else {
            cfg.interval
        };
        let ckpt = cost(c);
        let end = add(t, len.saturating_add(ckpt))?;
        if next > end {
            t = end;
            out.work_executed += len;
            out.checkpoint += ckpt;
            out.events += 1;
            done = c;
            continue;
        }
        // Interrupted at `next` during the chunk or its checkpoint.
        let (worked, checkpointing) = interrupted_segment(next - t, len);
        out.work_executed += worked;
        out.checkpoint += checkpointing;
        t = next;
        loop {
            // Every class failing at this instant: one interruption of the highest of them.
            let mut class = 0;
            for (j, clock) in clocks.iter_mut().enumerate() {
                if clock.next() == t {
                    class = j;
                    out.class_failures[j] += 1;
                    clock.advance();
                }
            }
            out.failures += 1;
            if out.failures > MAX_FAILURES_PER_RUN {
                return Err(too_many());
            }
            done = done / k[class] * k[class];
            let up = add(t, cfg.downtime)?;
            for clock in clocks.iter_mut() {
                while clock.next() < up {
                    clock.advance();
                }
            }
            out.downtime += cfg.downtime;
            t = up;
            let restart = cfg.levels[level_of(k, done)].restart;
            let finished = add(t, restart)?;
            let next = next_failure(&clocks);
            if next > finished {
                out.restart += restart;
                t = finished;
                out.events += 2;
                break;
            }
            out.restart += next - t;
            out.events += 1;
            t = next;
        }
    }
    out.wall = t;
    out.lost_work = out.work_executed - cfg.work;
    Ok(out)
}

/// The figures over runs, as the report layer serializes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultilevelFigures {
    /// Time to finish the job.
    pub wall_time_s: Estimate,
    /// Wall time per unit of work (the model's overhead).
    pub overhead: Estimate,
    /// Interruptions.
    pub failures: Estimate,
    /// Failures that hit the job, per class.
    pub class_failures: Vec<Estimate>,
    /// Checkpointing, interrupted checkpoints included.
    pub checkpoint_s: Estimate,
    /// Restarting, interrupted restarts included.
    pub restart_s: Estimate,
    /// Downtime.
    pub downtime_s: Estimate,
    /// Work rolled back; wall = work + checkpoint + restart + downtime + lost work.
    pub lost_work_s: Estimate,
}

impl Scenario for MultilevelConfig {
    type Run = MultilevelRun;
    type Figures = MultilevelFigures;
    /// Checks what the types cannot: levels and strides that match and nest, positive work,
    /// interval and costs, a failure-free time within 584 years, and (with exponential
    /// classes) a job that is expected to finish within [`MAX_FAILURES_PER_RUN`] failures.
    fn validate(&self) -> Result<(), SimError> {
        if self.levels.is_empty() || self.levels.len() > MAX_LEVELS {
            return invalid(
                "level",
                self.levels.len().to_string(),
                format!("1 to {MAX_LEVELS} levels"),
            );
        }
        let dearest = self.levels.iter().map(|l| l.cost).max().unwrap_or(0);
        check_job(self.work, self.interval, dearest)?;
        if self.strides.len() != self.levels.len() {
            return Err(SimError::Conflict(format!(
                "{} strides given for {} levels: give one per level",
                self.strides.len(),
                self.levels.len()
            )));
        }
        let pattern =
            Pattern::new(ns_to_secs(self.interval), self.strides.clone()).map_err(|e| {
                SimError::Invalid {
                    field: "strides",
                    value: format!("{:?}", self.strides),
                    accepted: e.to_string(),
                }
            })?;
        if let Some(l) = self.levels.iter().find(|l| l.cost == 0) {
            return invalid(
                "level",
                format!("{} with cost 0", l.name),
                "a positive checkpoint cost",
            );
        }
        let chunks = self.work.div_ceil(self.interval);
        self.check_progress(&pattern, chunks as f64)
    }
    /// A run keeps a failure count per class besides its fixed figures.
    fn kept_bytes(&self) -> u64 {
        (std::mem::size_of::<MultilevelRun>() + self.levels.len() * std::mem::size_of::<u64>())
            as u64
    }
    /// Reduces runs (in run order) to figures.
    fn summarize(&self, runs: &[MultilevelRun]) -> MultilevelFigures {
        let s = |f: fn(&MultilevelRun) -> Nanos| estimate(runs, |r| ns_to_secs(f(r)));
        let work = self.work as f64;
        MultilevelFigures {
            wall_time_s: s(|r| r.wall),
            overhead: estimate(runs, |r| r.wall as f64 / work),
            failures: estimate(runs, |r| r.failures as f64),
            class_failures: (0..self.levels.len())
                .map(|j| {
                    estimate(runs, |r| {
                        r.class_failures.get(j).copied().unwrap_or(0) as f64
                    })
                })
                .collect(),
            checkpoint_s: s(|r| r.checkpoint),
            restart_s: s(|r| r.restart),
            downtime_s: s(|r| r.downtime),
            lost_work_s: s(|r| r.lost_work),
        }
    }
    fn run(&self, seed: u64, run: u64) -> Result<MultilevelRun, SimError> {
        simulate_run(self, seed, run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::Shape;

    const S: Nanos = 1_000_000_000;

    fn levels(spec: &[(f64, f64, Option<f64>)], downtime: f64) -> Levels {
        Levels::new(
            spec.iter()
                .enumerate()
                .map(|(i, &(c, r, m))| Level::new(&format!("l{}", i + 1), c, r, m))
                .collect(),
            downtime,
        )
        .unwrap()
    }

    /// Two levels, cost/MTBF 0.05 and 0.1, restarts above the costs, and the pattern they are
    /// checked at: the second level every fourth one-minute chunk.
    fn two_levels(downtime: f64) -> (Levels, Pattern) {
        let l = levels(
            &[(30.0, 60.0, Some(600.0)), (120.0, 300.0, Some(1200.0))],
            downtime,
        );
        (l, Pattern::new(60.0, vec![1, 4]).unwrap())
    }

    fn fixed(cfg: &MultilevelConfig, times: &[&[u64]]) -> MultilevelRun {
        let clocks = times
            .iter()
            .map(|t| Clock::Fixed {
                times: t.iter().map(|x| x * S / 10).collect(),
                pos: 0,
            })
            .collect();
        run_with(cfg, clocks).unwrap()
    }

    /// Chunks of 10 s; level 1 costs 1 s (restart 2 s), level 2 costs 3 s (restart 4 s);
    /// strides 1, 3: a period is [10+1][10+1][10+3] = 36 s.
    fn small(work_chunks: u64, downtime: Nanos) -> MultilevelConfig {
        let l = |cost, restart| SimLevel {
            name: "x".into(),
            cost: cost * S,
            restart: restart * S,
            failures: None,
        };
        MultilevelConfig {
            work: work_chunks * 10 * S,
            interval: 10 * S,
            strides: vec![1, 3],
            levels: vec![l(1, 2), l(3, 4)],
            downtime,
        }
    }

    #[test]
    fn semantics_by_hand() {
        let cfg = small(6, 0);
        cfg.validate().unwrap();
        let r = fixed(&cfg, &[&[], &[]]);
        assert_eq!(r.wall, 70 * S);
        // Times in tenths of a second. Class 1 at 15 s, 4 s into chunk 2 ([11, 22)): back to
        // chunk 1's level-1 checkpoint, restart R1 [15, 17); chunk 2 [17, 28), chunk 3
        // [28, 41). Class 2 at 45 s, 4 s into chunk 4: back to chunk 3's level-2 checkpoint,
        // R2 [45, 49); chunk 4 is work [49, 59) and checkpoint [59, 60): class 2 at 60 s, its
        // last instant, interrupts it (failures first): back to chunk 3 again, R2 [60, 64),
        // then chunks 4, 5, 6 (11 + 11 + 13 s) end at 99 s.
        let r = fixed(&cfg, &[&[150], &[450, 600]]);
        assert_eq!(r.failures, 3);
        assert_eq!(r.class_failures, vec![1, 2]);
        assert_eq!(r.wall, 99 * S);
        assert_eq!(r.restart, 2 * S + 4 * S + 4 * S);
        assert_eq!(r.checkpoint, 11 * S);
        assert_eq!(
            r.wall,
            r.work_executed + r.checkpoint + r.restart + r.downtime
        );
        // Work lost: 4 s (chunk 2), 4 s (chunk 4), 10 s (chunk 4, whose checkpoint failed).
        assert_eq!(r.lost_work, 18 * S);
        assert_eq!(r.work_executed, cfg.work + r.lost_work);
    }

    #[test]
    fn failures_during_restart_and_downtime() {
        let cfg = small(3, 5 * S);
        // Class 1 at 15 s: downtime [15, 20), where class 1 at 17 s is ignored; restart R1
        // [20, 22) but class 2 at exactly 22 s (its last instant) interrupts it: back to the
        // start (the job's start is a top-level checkpoint), downtime [22, 27), restart R2
        // [27, 31); then the 35 s period: 66 s.
        let r = fixed(&cfg, &[&[150, 170], &[220]]);
        assert_eq!(r.failures, 2);
        assert_eq!(r.class_failures, vec![1, 1]);
        assert_eq!(r.downtime, 10 * S);
        assert_eq!(r.restart, 2 * S + 4 * S);
        assert_eq!(r.wall, 66 * S);
        // Two classes at one instant (3 s into chunk 3): one interruption, of the higher
        // class: back to the start, downtime [25, 30), R2 [30, 34), the period: 69 s.
        let r = fixed(&cfg, &[&[250], &[250]]);
        assert_eq!(r.failures, 1);
        assert_eq!(r.class_failures, vec![1, 1]);
        assert_eq!(r.wall, 69 * S);
    }

    #[test]
    fn partial_last_chunk_and_period_skipping() {
        let mut cfg = small(7, 0);
        cfg.work += 5 * S;
        // Two periods (70 s), chunk 7 (11 s), chunk 8: 5 s of work and a level-1 checkpoint.
        let r = fixed(&cfg, &[&[], &[]]);
        assert_eq!(r.wall, 70 * S + 11 * S + 6 * S);
        // Class 1 at 80 s, the end of chunk 7's work ([70, 81)): the two periods before it pass
        // in one step; back to chunk 6, a level-2 checkpoint (R2 [80, 84)), chunk 7 [84, 95),
        // chunk 8 [95, 101).
        let r = fixed(&cfg, &[&[800], &[]]);
        assert_eq!(r.wall, 101 * S);
        assert_eq!(r.lost_work, 10 * S);
        // Six chunks skipped, one interruption and its restart, two chunks.
        assert_eq!(r.events, 6 + 2 + 2);
    }

    fn check_against_model(l: &Levels, pattern: &Pattern, periods: u64, runs: u64, seed: u64) {
        let work = periods as f64 * pattern.period();
        let cfg = MultilevelConfig::from_model(l, pattern, work).unwrap();
        // Whole periods of whole nanoseconds: the model applies to the nanosecond.
        assert_eq!(cfg.work, periods * pattern.chunks() * cfg.interval);
        let f = simulate(&cfg, seed, runs, 0, &|| {}).unwrap();
        let e = l.evaluate(pattern).unwrap();
        let expected = periods as f64 * e.period_time;
        let z = f.wall_time_s.z(expected).expect("runs with a spread");
        assert!(
            z.abs() < 4.0,
            "{pattern:?}: simulated {:?} vs model {expected} (z = {z})",
            f.wall_time_s
        );
        // Failures matter here: at least 10% overhead and several failures per run.
        assert!(e.overhead > 1.1, "{}", e.overhead);
        assert!(f.failures.point > 5.0);
        let fails = periods as f64 * e.failures_per_period;
        let zf = f.failures.z(fails).expect("runs with a spread");
        // Failures of every class at one instant would count once: never in practice.
        assert!(zf.abs() < 4.0, "failures {:?} vs {fails}", f.failures);
    }

    #[test]
    fn two_levels_agree_with_the_exact_model() {
        // With a downtime.
        let (l, pattern) = two_levels(20.0);
        check_against_model(&l, &pattern, 20, 400, 1);
    }

    #[test]
    fn three_levels_agree_with_the_exact_model() {
        let l = levels(
            &[
                (5.0, 15.0, Some(300.0)),
                (20.0, 40.0, Some(1200.0)),
                (100.0, 200.0, Some(1000.0)),
            ],
            0.0,
        );
        check_against_model(&l, &Pattern::new(40.0, vec![1, 2, 6]).unwrap(), 20, 400, 2);
        // A level left out and a class that never fails.
        let l = levels(
            &[
                (5.0, 15.0, Some(400.0)),
                (20.0, 40.0, None),
                (100.0, 200.0, Some(1500.0)),
            ],
            30.0,
        );
        check_against_model(&l, &Pattern::new(50.0, vec![1, 3, 3]).unwrap(), 30, 400, 3);
    }

    #[test]
    fn the_optimum_agrees_with_simulation() {
        let l = levels(
            &[
                (5.0, 10.0, Some(1800.0)),
                (30.0, 60.0, Some(3.0 * 3600.0)),
                (300.0, 600.0, Some(6.0 * 3600.0)),
            ],
            0.0,
        );
        let ans = l.optimize().unwrap();
        let p = &ans.pattern;
        let mut cfg = MultilevelConfig::from_model(&l, p, p.period()).unwrap();
        // Ten whole periods of the interval in whole nanoseconds (within 1 ns of the optimum).
        cfg.work = 10 * p.chunks() * cfg.interval;
        let f = simulate(&cfg, 9, 300, 0, &|| {}).unwrap();
        // The pattern in whole nanoseconds differs from the optimum by < 1 ns per chunk.
        let z = f.overhead.z(ans.overhead).expect("runs with a spread");
        assert!(
            z.abs() < 4.0,
            "{:?} vs {} (z = {z})",
            f.overhead,
            ans.overhead
        );
    }

    #[test]
    fn departs_where_failures_are_not_exponential() {
        // Bursty classes (Weibull shape 0.5, same means): the exponential model no longer
        // holds.
        let (l, pattern) = two_levels(0.0);
        let mut cfg = MultilevelConfig::from_model(&l, &pattern, 20.0 * pattern.period()).unwrap();
        for lv in &mut cfg.levels {
            let mean = lv.failures.unwrap().mean();
            lv.failures = Some(Lifetime::new(Shape::Weibull { shape: 0.5 }, mean).unwrap());
        }
        let f = simulate(&cfg, 4, 400, 0, &|| {}).unwrap();
        let expected = 20.0 * l.evaluate(&pattern).unwrap().period_time;
        let z = f.wall_time_s.z(expected).expect("runs with a spread");
        assert!(z.abs() > 8.0, "{:?} vs {expected} (z = {z})", f.wall_time_s);
    }

    #[test]
    fn results_depend_on_seed_and_run_only() {
        let (l, pattern) = two_levels(0.0);
        let cfg = MultilevelConfig::from_model(&l, &pattern, 10.0 * pattern.period()).unwrap();
        let all = simulate_range(&cfg, 5, 0..20, 2, &|| {}).unwrap();
        let mut parts = simulate_range(&cfg, 5, 0..7, 1, &|| {}).unwrap();
        parts.extend(simulate_range(&cfg, 5, 7..20, 1, &|| {}).unwrap());
        assert_eq!(all, parts);
        let json = serde_json::to_string(&all[3]).unwrap();
        let back: MultilevelRun = serde_json::from_str(&json).unwrap();
        assert_eq!(back, all[3]);
        // Common random numbers: a class's failure times do not depend on the pattern, nor on
        // whether the other classes fail.
        let mut other = MultilevelConfig {
            strides: vec![1, 2],
            interval: 77 * S,
            ..cfg.clone()
        };
        other.levels[0].failures = None;
        let mut a = clocks(&cfg, 5, 3);
        let mut b = clocks(&other, 5, 3);
        assert_eq!(b[0].next(), Nanos::MAX);
        for _ in 0..5 {
            assert_eq!(a[1].next(), b[1].next());
            a[1].advance();
            b[1].advance();
        }
        assert_ne!(clocks(&cfg, 5, 4)[1].next(), b[1].next());
    }

    #[test]
    fn bad_configs_are_refused() {
        let mut cfg = small(3, 0);
        cfg.strides = vec![1, 3, 6];
        assert!(matches!(cfg.validate(), Err(SimError::Conflict(_))));
        cfg.strides = vec![2, 4];
        assert!(matches!(
            cfg.validate(),
            Err(SimError::Invalid {
                field: "strides",
                ..
            })
        ));
        let mut cfg = small(3, 0);
        cfg.levels[0].cost = 0;
        assert!(cfg.validate().is_err());
        let mut cfg = small(3, 0);
        cfg.work = 0;
        assert!(cfg.validate().is_err());
        let mut cfg = small(1000, 0);
        for l in &mut cfg.levels {
            l.failures = Some(Lifetime::exponential(1.0).unwrap());
        }
        assert!(matches!(cfg.validate(), Err(SimError::NoProgress(_))));
    }
}

//! Replicated inter-dependent processes (docs/simulation.md §2): `n` processes that advance
//! only together, each run as `r` replicas; the volunteer-grid setting.
//!
//! Within one attempt no replica is recreated, so a process dies at the latest death of its
//! replicas and the job at the earliest death of its processes: an attempt is decided by one
//! pass over the replicas' death times, the events of the attempt taken in time order without a
//! queue. Ties: failures come first within an instant, so a replica dying at the very end of an
//! attempt is dead at its checkpoint.

use super::run::{
    Scenario, SimError, check_job, check_walltime, estimate, invalid, past_the_clock, proportion,
};
pub use super::run::{simulate, simulate_range};
use super::stats::Estimate;
use crate::failure::{Lifetime, ln_add_exp, log1mexp};
use crate::rng::run_rng;
use crate::units::{Nanos, ns_to_secs, secs_to_ns};
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// A run stops with an error past this many attempts: the MTBF is too short to finish.
pub const MAX_ATTEMPTS_PER_RUN: u64 = 10_000_000;

/// Most replicas in all (`procs * replicas`).
pub const MAX_REPLICAS: u64 = 1 << 24;

/// Most replica-attempts in one run (attempts times `procs * replicas`): every attempt looks at
/// every replica, so this, not the attempt count alone, bounds the time of a run (a minute or
/// two at most on one core of a 2020s machine).
pub const MAX_REPLICA_ATTEMPTS_PER_RUN: u64 = 10_000_000_000;

pub use crate::model::replicated::Detect;

/// A validated replicated setup, in nanoseconds.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReplicatedConfig {
    /// Computation the job needs.
    pub work: Nanos,
    /// Work per interval (tau).
    pub interval: Nanos,
    /// The checkpoint ending each interval (delta).
    pub cost: Nanos,
    /// Processes, all needed (n).
    pub procs: u64,
    /// Replicas of each process (r).
    pub replicas: u64,
    /// One replica's (host's) lifetime.
    pub lifetime: Lifetime,
    /// When a lost process is noticed: at the end of the attempt, or (`Immediate`) when the
    /// last replica of a process dies, `heartbeat` later but no later than the end of the
    /// attempt, whose checkpoint finds the dead process anyway.
    pub detect: Detect,
    /// `Immediate`: time between abandoning an attempt and starting the retry.
    pub restart: Nanos,
    /// `Immediate`: delay between the death and its detection.
    pub heartbeat: Nanos,
    /// Survivors keep their age across committed intervals; otherwise every attempt starts
    /// from fresh lifetimes, as the model assumes.
    pub aging: bool,
    /// A deadline: also report the fraction of runs finished within it.
    pub walltime: Option<Nanos>,
}

impl ReplicatedConfig {
    /// Most attempts one run may make: [`MAX_ATTEMPTS_PER_RUN`], or fewer where
    /// [`MAX_REPLICA_ATTEMPTS_PER_RUN`] over the replicas is smaller.
    pub fn attempt_cap(&self) -> u64 {
        MAX_ATTEMPTS_PER_RUN.min(MAX_REPLICA_ATTEMPTS_PER_RUN / self.replicas_in_all().max(1))
    }

    /// Replicas in all, `procs * replicas`.
    pub fn replicas_in_all(&self) -> u64 {
        self.procs.saturating_mul(self.replicas)
    }

    /// `ln S(t)`, `S(t) = [1 - (1 - f(t))^r]^n`: every process keeps a replica for `t` seconds.
    pub fn ln_survival(&self, t: f64) -> f64 {
        let ln_cdf = self.lifetime.ln_cdf(t);
        self.procs as f64 * log1mexp(-(self.replicas as f64) * ln_cdf)
    }
}

/// What one run measured.
// Serialized for shard files (`--shard`), which carry per-run results to `ckpt merge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReplicatedRun {
    /// Time to finish the job.
    pub wall: Nanos,
    /// Attempts at intervals, committed or lost.
    pub attempts: u64,
    /// Attempts lost because some process had no live replica.
    pub lost_attempts: u64,
    /// Replica deaths during attempts.
    pub replica_deaths: u64,
    /// Replicas recreated: the dead ones at each commit, all of them at each loss.
    pub replicas_recreated: u64,
    /// Simulated events: attempts (ends or abandonments) and replica deaths.
    pub events: u64,
}

fn too_many(cap: u64, cfg: &ReplicatedConfig) -> SimError {
    SimError::NoProgress(format!(
        "more than {cap} attempts in one run{}: the MTBF is too short for this job to finish",
        cap_reason(cap, cfg)
    ))
}

/// Why the attempt cap is below [`MAX_ATTEMPTS_PER_RUN`], when it is.
fn cap_reason(cap: u64, cfg: &ReplicatedConfig) -> String {
    if cap < MAX_ATTEMPTS_PER_RUN {
        format!(
            " ({MAX_REPLICA_ATTEMPTS_PER_RUN} replica-attempts shared by {} replicas)",
            cfg.replicas_in_all()
        )
    } else {
        String::new()
    }
}

/// Simulates run `run` of `seed`. The config must have passed [`ReplicatedConfig::validate`].
pub fn simulate_run(
    cfg: &ReplicatedConfig,
    seed: u64,
    run: u64,
) -> Result<ReplicatedRun, SimError> {
    let mut rng = run_rng(seed, run);
    let mut out = ReplicatedRun::default();
    let r = cfg.replicas as usize;
    let nr = cfg.replicas_in_all() as usize;
    let cap = cfg.attempt_cap();
    // Absolute death time of every replica, process-major.
    let mut death: Vec<Nanos> = vec![0; nr];
    let mut all_fresh = true;
    let full = cfg.work / cfg.interval;
    let rest = cfg.work % cfg.interval;
    let intervals = full + u64::from(rest > 0);
    let mut t: Nanos = 0;
    for k in 0..intervals {
        let w = if k + 1 == intervals && rest > 0 {
            rest
        } else {
            cfg.interval
        };
        loop {
            out.attempts += 1;
            if out.attempts > cap {
                return Err(too_many(cap, cfg));
            }
            let end = t
                .checked_add(w.saturating_add(cfg.cost))
                .filter(|&e| e < Nanos::MAX)
                .ok_or_else(|| past_the_clock("MTBF is"))?;
            if !cfg.aging {
                // Fresh lifetimes, drawn by inversion: a replica dies within the attempt exactly
                // when its uniform draw is below cdf(T), and only then is its death time
                // needed. Survivors are marked as dying never, which is all the attempt uses.
                let p_die = cfg.lifetime.cdf(ns_to_secs(end - t));
                for d in death.iter_mut() {
                    let u: f64 = rng.random();
                    *d = if u < p_die {
                        t.saturating_add(secs_to_ns(cfg.lifetime.quantile(u)))
                            .min(end)
                    } else {
                        Nanos::MAX
                    };
                }
            } else if all_fresh {
                for d in death.iter_mut() {
                    *d = t.saturating_add(secs_to_ns(cfg.lifetime.sample(&mut rng)));
                }
                all_fresh = false;
            }
            let job_death = death
                .chunks_exact(r)
                .map(|p| p.iter().copied().max().unwrap_or(0))
                .min()
                .unwrap_or(Nanos::MAX);
            if job_death > end {
                let mut dead = 0;
                for d in death.iter_mut() {
                    if *d <= end {
                        dead += 1;
                        if cfg.aging {
                            *d = end.saturating_add(secs_to_ns(cfg.lifetime.sample(&mut rng)));
                        }
                    }
                }
                out.replica_deaths += dead;
                out.replicas_recreated += dead;
                t = end;
                break;
            }
            out.lost_attempts += 1;
            let (abandon, restart) = match cfg.detect {
                Detect::End => (end, 0),
                Detect::Immediate => (
                    job_death.saturating_add(cfg.heartbeat).min(end),
                    cfg.restart,
                ),
            };
            out.replica_deaths += death.iter().filter(|&&d| d <= abandon).count() as u64;
            out.replicas_recreated += nr as u64;
            t = abandon
                .checked_add(restart)
                .filter(|&e| e < Nanos::MAX)
                .ok_or_else(|| past_the_clock("MTBF is"))?;
            all_fresh = true;
        }
    }
    out.wall = t;
    out.events = out.attempts + out.replica_deaths;
    Ok(out)
}

/// The figures of section 2 over runs, as the report layer serializes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplicatedFigures {
    /// Time to finish the job.
    pub wall_time_s: Estimate,
    /// Attempts at intervals.
    pub attempts: Estimate,
    /// Lost attempts.
    pub lost_attempts: Estimate,
    /// Replica deaths.
    pub replica_deaths: Estimate,
    /// Replicas recreated.
    pub replicas_recreated: Estimate,
    /// Fraction of runs finished within the walltime (with `walltime` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_within_walltime: Option<Estimate>,
}

impl Scenario for ReplicatedConfig {
    type Run = ReplicatedRun;
    type Figures = ReplicatedFigures;
    /// Checks what the types cannot, and refuses up front a job that would need more than
    /// [`ReplicatedConfig::attempt_cap`] attempts on average: from the model's S(T), exactly
    /// without aging; with aging, from the first interval alone, whose attempts start fresh.
    fn validate(&self) -> Result<(), SimError> {
        check_job(self.work, self.interval, self.cost)?;
        if self.detect == Detect::End && (self.restart > 0 || self.heartbeat > 0) {
            return Err(SimError::Conflict(
                "a restart or heartbeat delay goes with immediate detection: with end detection a loss is found at checkpoint time and retried at once".into(),
            ));
        }
        if self.procs == 0 {
            return invalid(
                "procs",
                "0".into(),
                "a whole number of processes, at least 1",
            );
        }
        if self.replicas == 0 {
            return invalid(
                "replicas",
                "0".into(),
                "a whole number of replicas, at least 1",
            );
        }
        if self.replicas_in_all() > MAX_REPLICAS {
            return invalid(
                "procs",
                self.procs.to_string(),
                format!("at most {MAX_REPLICAS} replicas in all (procs x replicas)"),
            );
        }
        let cap = self.attempt_cap();
        if self.work.div_ceil(self.interval) > cap {
            return invalid(
                "interval",
                format!("{}s", ns_to_secs(self.interval)),
                format!(
                    "an interval that splits the work into at most {cap} intervals{}",
                    cap_reason(cap, self)
                ),
            );
        }
        check_walltime(self.walltime, self.work)?;
        let ln_s_of = |w: Nanos| self.ln_survival(ns_to_secs(w.saturating_add(self.cost)));
        let first = ln_s_of(self.interval.min(self.work));
        let ln_attempts = if self.aging {
            // Later intervals depend on the survivors' ages, but the first starts from fresh
            // replicas and so does every retry after a loss: its attempts alone are geometric
            // with S(T), a lower bound on the run's.
            -first
        } else {
            // Independent attempts: full / S(tau + delta) + [rest > 0] / S(rest + delta).
            let (full, rest) = (self.work / self.interval, self.work % self.interval);
            let of_full = if full > 0 {
                (full as f64).ln() - first
            } else {
                f64::NEG_INFINITY
            };
            let of_rest = if rest > 0 {
                -ln_s_of(rest)
            } else {
                f64::NEG_INFINITY
            };
            ln_add_exp(of_full, of_rest)
        };
        if ln_attempts > (cap as f64).ln() {
            let p = if first.is_finite() {
                format!("e^{first:.1}")
            } else {
                "below 1e-308".to_string()
            };
            return Err(SimError::NoProgress(format!(
                "an interval survives with probability {p}: over {cap} attempts expected per \
                 run{}, the MTBF is too short for this interval and cost to finish",
                cap_reason(cap, self)
            )));
        }
        Ok(())
    }
    /// Reduces runs (in run order) to figures.
    fn summarize(&self, runs: &[ReplicatedRun]) -> ReplicatedFigures {
        ReplicatedFigures {
            wall_time_s: estimate(runs, |r| ns_to_secs(r.wall)),
            attempts: estimate(runs, |r| r.attempts as f64),
            lost_attempts: estimate(runs, |r| r.lost_attempts as f64),
            replica_deaths: estimate(runs, |r| r.replica_deaths as f64),
            replicas_recreated: estimate(runs, |r| r.replicas_recreated as f64),
            finished_within_walltime: self.walltime.map(|w| proportion(runs, |r| r.wall <= w)),
        }
    }
    fn run(&self, seed: u64, run: u64) -> Result<ReplicatedRun, SimError> {
        simulate_run(self, seed, run)
    }
    /// One death time per replica.
    fn run_bytes(&self) -> u64 {
        self.replicas_in_all()
            .saturating_mul(std::mem::size_of::<Nanos>() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::Shape;

    const S: Nanos = 1_000_000_000;

    fn cfg(detect: Detect) -> ReplicatedConfig {
        ReplicatedConfig {
            work: 3600 * S,
            interval: 600 * S,
            cost: 60 * S,
            procs: 8,
            replicas: 2,
            lifetime: Lifetime::exponential(7200.0).unwrap(),
            detect,
            restart: if detect == Detect::End { 0 } else { 30 * S },
            heartbeat: if detect == Detect::End { 0 } else { 10 * S },
            aging: false,
            walltime: None,
        }
    }

    #[test]
    fn bookkeeping_adds_up() {
        for detect in [Detect::End, Detect::Immediate] {
            for aging in [false, true] {
                let c = ReplicatedConfig {
                    aging,
                    ..cfg(detect)
                };
                for run in 0..50 {
                    let r = simulate_run(&c, 9, run).unwrap();
                    assert_eq!(r.attempts, 6 + r.lost_attempts);
                    assert!(r.replicas_recreated >= r.lost_attempts * 16);
                    // Deaths in lost attempts: at least a whole process (2 replicas), at most all.
                    let lost_deaths =
                        r.replica_deaths + r.lost_attempts * 16 - r.replicas_recreated;
                    assert!(
                        lost_deaths >= 2 * r.lost_attempts && lost_deaths <= 16 * r.lost_attempts
                    );
                    if detect == Detect::End {
                        assert_eq!(r.wall, r.attempts * 660 * S);
                    } else {
                        assert!(r.wall >= 6 * 660 * S);
                    }
                }
            }
        }
    }

    #[test]
    fn one_replica_no_failures_ever_possible() {
        // A huge MTBF: every attempt commits.
        let c = ReplicatedConfig {
            lifetime: Lifetime::exponential(1e15).unwrap(),
            ..cfg(Detect::End)
        };
        let r = simulate_run(&c, 1, 0).unwrap();
        assert_eq!((r.attempts, r.lost_attempts, r.wall), (6, 0, 3960 * S));
    }

    #[test]
    fn validation() {
        let mut c = cfg(Detect::End);
        c.walltime = Some(3599 * S);
        assert!(matches!(
            c.validate(),
            Err(SimError::Invalid {
                field: "walltime",
                ..
            })
        ));
        let c = ReplicatedConfig {
            procs: 0,
            ..cfg(Detect::End)
        };
        assert!(matches!(
            c.validate(),
            Err(SimError::Invalid { field: "procs", .. })
        ));
        let c = ReplicatedConfig {
            lifetime: Lifetime::exponential(1.0).unwrap(),
            ..cfg(Detect::End)
        };
        assert!(matches!(c.validate(), Err(SimError::NoProgress(_))));
        let w = Lifetime::new(Shape::Weibull { shape: 0.7 }, 7200.0).unwrap();
        let c = ReplicatedConfig {
            lifetime: w,
            ..cfg(Detect::End)
        };
        assert!(c.validate().is_ok());
    }

    /// Before: with aging nothing was checked up front, and a job whose intervals almost never
    /// survive ran to the attempt cap, 1000 replicas an attempt, for minutes per run.
    #[test]
    fn a_hopeless_job_is_refused_up_front_with_aging_too() {
        for lifetime in [
            Lifetime::exponential(86_400.0).unwrap(),
            Lifetime::new(Shape::Weibull { shape: 0.7 }, 86_400.0).unwrap(),
        ] {
            let c = ReplicatedConfig {
                work: 36_000 * S,
                interval: 1800 * S,
                cost: 300 * S,
                procs: 1000,
                replicas: 1,
                lifetime,
                aging: true,
                ..cfg(Detect::Immediate)
            };
            // S(T) of 1000 exponential hosts over 35 minutes: e^(-1000 * 2100 / 86400) = e^-24.3.
            match c.validate() {
                Err(SimError::NoProgress(why)) if lifetime.shape() == Shape::Exponential => {
                    assert!(why.contains("e^-24.3"), "{why}")
                }
                Err(SimError::NoProgress(_)) => {}
                other => panic!("{other:?}"),
            }
        }
    }

    /// A job shorter than one interval makes attempts of the work alone: before, it was judged
    /// by the survival of the whole interval and refused.
    #[test]
    fn a_job_shorter_than_its_interval_is_judged_by_its_work() {
        let c = ReplicatedConfig {
            work: 3600 * S,
            interval: 360_000 * S,
            ..cfg(Detect::End)
        };
        // S(3660 s) = [1 - (1 - e^(-3660/7200))^2]^8, about 0.25: a few attempts.
        let q = 1.0 - (-3660.0f64 / 7200.0).exp();
        let expected = 1.0 / (1.0 - q * q).powi(8);
        assert!((3.0..5.0).contains(&expected));
        assert!(c.validate().is_ok());
        assert!(simulate_run(&c, 3, 0).unwrap().attempts >= 1);
    }

    /// Every attempt looks at every replica: with 2^24 replicas a run may make
    /// 10^10 / 2^24 = 596.05 attempts. 590 one-second intervals expect
    /// 590 e^(2^24 / 1.5e10) = 590.66 attempts and pass; 597 intervals cannot.
    #[test]
    fn the_attempt_cap_shrinks_with_the_replicas() {
        let c = ReplicatedConfig {
            work: 590 * S,
            interval: S,
            cost: 0,
            procs: 1 << 24,
            replicas: 1,
            lifetime: Lifetime::exponential(1.5e10).unwrap(),
            ..cfg(Detect::End)
        };
        assert_eq!(c.attempt_cap(), 596);
        assert_eq!(cfg(Detect::End).attempt_cap(), MAX_ATTEMPTS_PER_RUN);
        assert!(c.validate().is_ok());
        let c = ReplicatedConfig { work: 597 * S, ..c };
        match c.validate() {
            Err(SimError::Invalid {
                field, accepted, ..
            }) => {
                assert_eq!(field, "interval");
                assert!(accepted.contains("at most 596 intervals"), "{accepted}");
                assert!(accepted.contains("16777216 replicas"), "{accepted}");
            }
            other => panic!("{other:?}"),
        }
    }
}

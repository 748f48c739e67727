//! Periodic checkpointing of one coordinated job (docs/simulation.md §1): the setting of
//! Young's and Daly's models.
//!
//! The failure process does not depend on what the job is doing (a failed node's new lifetime
//! starts at its failure, whatever the job does then), so a run is a stream of job
//! interruption times consumed by the job's work/checkpoint/restart cycle. Exponential failures
//! of a whole platform or of identical nodes are one renewal (Poisson) process, drawn one
//! inter-arrival at a time; per-node state (a queue of node failure times) is kept only where it
//! matters: non-exponential node lifetimes and redundant partners.
//!
//! Ties: failures come first within an instant, so a failure at the very instant a checkpoint
//! or restart would end interrupts it (the same rule as the stencil, docs/simulation.md §3.4).

use super::engine::{EventQueue, interrupted_segment};

use super::run::{
    Scenario, SimError, check_job, check_walltime, estimate, invalid, past_the_clock, proportion,
};
pub use super::run::{simulate, simulate_range};
use super::stats::Estimate;
use super::trace::Trace;
use crate::failure::Lifetime;
use crate::rng::run_rng;
use crate::units::{Nanos, ns_to_secs, secs_to_ns};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A run stops with an error past this many failures: the MTBF is too short to finish.
pub const MAX_FAILURES_PER_RUN: u64 = 10_000_000;

/// Most nodes (with partners) for which per-node state is kept.
pub const MAX_TRACKED_NODES: u64 = 1 << 26;

/// Where the job's failures come from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Failures {
    /// The platform as one renewal process with this inter-arrival distribution.
    Platform(Lifetime),
    /// `nodes` nodes, each its own renewal process with lifetime `node`; the first `partners`
    /// of them have a redundant partner (nodes `nodes..nodes + partners`).
    Nodes {
        /// One node's lifetime.
        node: Lifetime,
        /// Nodes the job runs on.
        nodes: u64,
        /// How many of them have a partner, `0..=nodes`.
        partners: u64,
    },
    /// Recorded failure times (from the job's start), with the node of each row when `nodes`
    /// is given.
    Trace {
        /// The rows, sorted by time.
        trace: Arc<Trace>,
        /// Nodes the job runs on, for node indices and partners.
        nodes: Option<u64>,
        /// Partnered nodes, as for [`Failures::Nodes`]; needs `nodes` and a node on every row.
        partners: u64,
    },
}

/// A validated periodic-checkpointing setup, in nanoseconds.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PeriodicConfig {
    /// Computation the job needs.
    pub work: Nanos,
    /// Work between checkpoints (tau).
    pub interval: Nanos,
    /// One checkpoint (delta).
    pub cost: Nanos,
    /// One restart (R); a failure during it starts it again.
    pub restart: Nanos,
    /// The failure process.
    pub failures: Failures,
    /// Whether the last segment ends with a checkpoint too (Daly's model: yes).
    pub final_checkpoint: bool,
    /// A deadline: also report the fraction of runs finished within it.
    pub walltime: Option<Nanos>,
    /// Asynchronous checkpoints (`cost` is then the snapshot's stall); `None`: synchronous.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asynchronous: Option<AsyncWrite>,
    /// Allocation mode: the walltime is a hard limit and this long before it the job
    /// checkpoints what it holds and stops (Slurm's `--signal=B:USR1@lead`); the runs report
    /// the work saved by the limit. Needs `walltime`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal_lead: Option<Nanos>,
}

/// The background write of an asynchronous checkpoint (`docs/simulation.md` §1).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AsyncWrite {
    /// Time to write a snapshot in the background; it is durable when the write ends.
    pub write: Nanos,
    /// Fraction of speed the job loses while a write runs, in `[0, 1)`.
    pub slowdown: f64,
}

impl AsyncWrite {
    /// A write of `write_s` seconds with slowdown `slowdown`: refuses a negative or non-finite
    /// write time and a slowdown outside `[0, 1)`.
    ///
    /// ```
    /// use ckpt::sim::periodic::AsyncWrite;
    /// assert!(AsyncWrite::new(600.0, 0.1).is_ok());
    /// assert!(AsyncWrite::new(-1.0, 0.0).is_err());
    /// assert!(AsyncWrite::new(600.0, 1.0).is_err());
    /// ```
    pub fn new(write_s: f64, slowdown: f64) -> Result<AsyncWrite, SimError> {
        if !(write_s.is_finite() && write_s >= 0.0) {
            return Err(SimError::Invalid {
                field: "async-write",
                value: write_s.to_string(),
                accepted: "a duration of zero or more".into(),
            });
        }
        let w = AsyncWrite {
            write: secs_to_ns(write_s),
            slowdown,
        };
        w.validate()?;
        Ok(w)
    }

    fn validate(&self) -> Result<(), SimError> {
        if self.slowdown.is_finite() && (0.0..1.0).contains(&self.slowdown) {
            Ok(())
        } else {
            Err(SimError::Invalid {
                field: "async-slowdown",
                value: self.slowdown.to_string(),
                accepted: "a fraction of speed lost while writing, at least 0 and below 1".into(),
            })
        }
    }

    /// Work done in `wall` ns while a write runs.
    fn slowed(&self, wall: Nanos) -> Nanos {
        ((1.0 - self.slowdown) * wall as f64).floor() as Nanos
    }
}

/// Most segments one run of the asynchronous simulator may step through.
pub const MAX_ASYNC_SEGMENTS: u64 = 100_000_000;

impl PeriodicConfig {
    /// The asynchronous and allocation settings.
    fn validate_finite(&self) -> Result<(), SimError> {
        if let Some(a) = &self.asynchronous {
            a.validate()?;
            if !self.final_checkpoint {
                return Err(SimError::Conflict(
                    "asynchronous checkpoints need the final checkpoint (the job ends when its last write is durable)".into(),
                ));
            }
            if self.signal_lead.is_some() {
                return Err(SimError::Conflict(
                    "asynchronous checkpoints inside an allocation (--signal lead) are not modelled".into(),
                ));
            }
            if self.work / self.interval > MAX_ASYNC_SEGMENTS {
                return Err(SimError::Invalid {
                    field: "interval",
                    value: format!("{}s", ns_to_secs(self.interval)),
                    accepted: format!(
                        "an interval that cuts the work into at most {MAX_ASYNC_SEGMENTS} segments with asynchronous checkpoints"
                    ),
                });
            }
        }
        if let Some(lead) = self.signal_lead {
            let Some(wall) = self.walltime else {
                return Err(SimError::Conflict("a signal lead needs a walltime".into()));
            };
            if lead < self.cost {
                return Err(SimError::Invalid {
                    field: "signal-lead",
                    value: format!("{}s", ns_to_secs(lead)),
                    accepted: format!(
                        "a lead that covers one checkpoint ({}s)",
                        ns_to_secs(self.cost)
                    ),
                });
            }
            if wall <= lead {
                return Err(SimError::Invalid {
                    field: "walltime",
                    value: format!("{}s", ns_to_secs(wall)),
                    accepted: format!(
                        "an allocation longer than one checkpoint and the signal's lead ({}s)",
                        ns_to_secs(lead)
                    ),
                });
            }
        }
        Ok(())
    }

    /// With exponential failures the expected number of failures is known in closed form
    /// (per segment of wall time T: e^(R/M) (e^(T/M) - 1)); refuse up front a job that would
    /// need more than [`MAX_FAILURES_PER_RUN`] on average instead of running into the cap.
    /// With partners and exponential nodes, a lower bound takes its place: every node is alive
    /// after an interruption and lifetimes forget their age, so a fresh system survives a
    /// segment of length T with probability `p = e^(-(N-P) x) (e^(-x) (2 - e^(-x)))^P`,
    /// `x = T/m` (each unpartnered node must live through it, and one of each pair), no
    /// attempt survives with more, and a segment then meets at least `1/p - 1` failures.
    fn check_progress(&self) -> Result<(), SimError> {
        let t = ns_to_secs(self.interval) + ns_to_secs(self.cost);
        let ln_segments = (self.work as f64 / self.interval as f64).ceil().ln();
        let (ln_failures, what, m) = match &self.failures {
            Failures::Platform(l) if l.shape().is_exponential() => {
                let m = l.mean();
                (
                    exact_ln_failures(m, t, self.restart, ln_segments),
                    "MTBF",
                    m,
                )
            }
            Failures::Nodes {
                node,
                nodes,
                partners: 0,
            } if node.shape().is_exponential() => {
                let m = node.mean() / *nodes as f64;
                (
                    exact_ln_failures(m, t, self.restart, ln_segments),
                    "MTBF",
                    m,
                )
            }
            Failures::Nodes {
                node,
                nodes,
                partners,
            } if node.shape().is_exponential() => {
                let x = t / node.mean();
                let ln_pair = -x + (2.0 - (-x).exp()).ln();
                let ln_p =
                    -(nodes.saturating_sub(*partners) as f64) * x + *partners as f64 * ln_pair;
                // ln(1/p - 1) = ln(e^(-ln p) - 1).
                let ln_q = crate::failure::ln_expm1(-ln_p);
                (ln_segments + ln_q, "node MTBF", node.mean())
            }
            _ => return Ok(()),
        };
        // NaN too: a bound that cannot be computed is no promise of progress.
        if !(ln_failures <= (MAX_FAILURES_PER_RUN as f64).ln()) {
            let bound = if what == "MTBF" { "about" } else { "at least" };
            let many = if ln_failures.is_finite() {
                format!("{bound} e^{ln_failures:.1}")
            } else {
                // Past what f64 holds: e^709.8.
                "more than e^709".into()
            };
            return Err(SimError::NoProgress(format!(
                "{many} failures expected per run (over {MAX_FAILURES_PER_RUN}): \
                 the {what} ({}s) is too short for this interval, cost and restart to finish",
                seconds_text(m)
            )));
        }
        Ok(())
    }

    /// True when every run is the same (a trace): one run says it all.
    pub fn is_deterministic(&self) -> bool {
        matches!(self.failures, Failures::Trace { .. })
    }
}

/// ln of the expected failures of `e^(ln_segments)` segments of wall time `t` under
/// exponential failures of mean `m`, restart `restart`: kept in logs so that nothing overflows.
fn exact_ln_failures(m: f64, t: f64, restart: Nanos, ln_segments: f64) -> f64 {
    ns_to_secs(restart) / m + crate::failure::ln_expm1(t / m) + ln_segments
}

/// Seconds as a message writes them: plainly in the range people type, else in scientific
/// notation (an MTBF of 1e-308 s is not 300 digits).
fn seconds_text(s: f64) -> String {
    if (1e-3..1e15).contains(&s) {
        format!("{s}")
    } else {
        format!("{s:.3e}")
    }
}

/// A job checkpointed on a schedule instead of a period (`docs/simulation.md` §1.1): after
/// every failure and restart the work is cut into `chunks` again from the first, the last
/// repeating. The base's `interval` is not used.
///
/// ```
/// use ckpt::failure::{Lifetime, Shape};
/// use ckpt::sim::periodic::{Failures, PeriodicConfig, ScheduleConfig};
/// use ckpt::sim::run::simulate;
/// let s = 1_000_000_000;
/// let life = Lifetime::new(Shape::Weibull { shape: 0.7 }, 6.0 * 3600.0).unwrap();
/// let cfg = ScheduleConfig {
///     base: PeriodicConfig {
///         work: 100 * 3600 * s, interval: 3600 * s, cost: 60 * s, restart: 120 * s,
///         failures: Failures::Platform(life), final_checkpoint: true, walltime: None,
///         asynchronous: None, signal_lead: None,
///     },
///     chunks: vec![1200 * s, 2400 * s, 3600 * s],
/// };
/// let f = simulate(&cfg, 42, 50, 1, &|| {}).unwrap();
/// assert!(f.wall_time_s.point > 100.0 * 3600.0);
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScheduleConfig {
    /// Everything but the interval.
    pub base: PeriodicConfig,
    /// Work between checkpoints after a restart; the last one repeats.
    pub chunks: Vec<Nanos>,
}

impl Scenario for ScheduleConfig {
    type Run = PeriodicRun;
    type Figures = PeriodicFigures;
    /// Checks the base as [`PeriodicConfig`] does with the shortest chunk as its interval
    /// (the most checkpoints, so the bound on the failure-free time holds), that the schedule
    /// is not empty and has no zero chunk, and that no asynchronous or allocation mode is set
    /// (a schedule runs synchronous checkpoints only).
    fn validate(&self) -> Result<(), SimError> {
        let Some(&shortest) = self.chunks.iter().min() else {
            return invalid("schedule", "(empty)".into(), "at least one chunk");
        };
        if let Some(i) = self.chunks.iter().position(|&c| c == 0) {
            return invalid(
                "schedule",
                format!("chunk {} is 0", i + 1),
                "positive durations",
            );
        }
        if self.base.asynchronous.is_some() || self.base.signal_lead.is_some() {
            return Err(SimError::Conflict(
                "a schedule runs synchronous checkpoints only: no asynchronous or allocation mode"
                    .into(),
            ));
        }
        // The shortest chunk stands for the interval: a refusal of it is the schedule's.
        PeriodicConfig {
            interval: shortest,
            ..self.base.clone()
        }
        .validate()
        .map_err(|e| match e {
            SimError::Invalid {
                field: "interval",
                value,
                accepted,
            } => SimError::Invalid {
                field: "schedule",
                value: format!("a chunk of {value}"),
                accepted: accepted
                    .replacen("an interval", "chunks", 1)
                    .replace("per interval", "per chunk"),
            },
            other => other,
        })
    }
    /// Reduces runs (in run order) as the base's periodic figures.
    fn summarize(&self, runs: &[PeriodicRun]) -> PeriodicFigures {
        self.base.summarize(runs)
    }
    /// As the base's: the chunks change nothing a run holds.
    fn run_bytes(&self) -> u64 {
        self.base.run_bytes()
    }
    /// Simulates run `run` of `seed`; the config must have passed validation.
    fn run(&self, seed: u64, run: u64) -> Result<PeriodicRun, SimError> {
        if self.chunks.is_empty() {
            return self.validate().map(|_| PeriodicRun::default());
        }
        let mut rng = run_rng(seed, run);
        run_chunks(
            &self.base,
            &self.chunks,
            &mut Stream::new(&self.base, &mut rng)?,
        )
    }
}

/// What one run measured, in nanoseconds and counts.
// Serialized for shard files (`--shard`), which carry per-run results to `ckpt merge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PeriodicRun {
    /// Time to finish the job.
    pub wall: Nanos,
    /// Failures that interrupted the job.
    pub failures: u64,
    /// Node failures, including those a partner absorbed.
    pub node_failures: u64,
    /// Useful work (equals the job's work).
    pub work: Nanos,
    /// Time checkpointing, interrupted checkpoints included.
    pub checkpoint: Nanos,
    /// Time restarting, interrupted restarts included.
    pub restart: Nanos,
    /// Work done and then lost to a failure.
    pub lost_work: Nanos,
    /// Simulated events: failures (node failures included), ends of segments, ends of restarts.
    pub events: u64,
    /// Allocation mode: work checkpointed by the limit (0 otherwise).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub saved_work: Nanos,
}

fn is_zero(n: &Nanos) -> bool {
    *n == 0
}

/// The stream of job interruption times of one run.
enum Clock<'a> {
    Renewal {
        life: Lifetime,
        last: Nanos,
    },
    Nodes {
        queue: EventQueue<u32>,
        life: Lifetime,
        pairs: Pairs,
    },
    Trace {
        rows: &'a [super::trace::TraceRow],
        pos: usize,
        pairs: Option<Pairs>,
    },
}

/// Partner bookkeeping: which partnered nodes are dead, waiting for the next interruption.
struct Pairs {
    nodes: u64,
    partners: u64,
    dead: Vec<bool>,
    dead_list: Vec<u32>,
}

impl Pairs {
    fn new(nodes: u64, partners: u64) -> Pairs {
        Pairs {
            nodes,
            partners,
            dead: vec![false; (nodes + partners) as usize],
            dead_list: Vec::new(),
        }
    }

    fn partner_of(&self, i: u64) -> Option<u64> {
        if i < self.partners {
            Some(self.nodes + i)
        } else if i >= self.nodes {
            Some(i - self.nodes)
        } else {
            None
        }
    }

    /// A failure of node `i`: true when it interrupts the job; otherwise the node is dead until
    /// then. A trace row on a node already dead changes nothing (`None`).
    fn fail(&mut self, i: u64) -> Option<bool> {
        if self.dead[i as usize] {
            return None;
        }
        match self.partner_of(i) {
            Some(j) if !self.dead[j as usize] => {
                self.dead[i as usize] = true;
                self.dead_list.push(i as u32);
                Some(false)
            }
            _ => Some(true),
        }
    }
}

impl Clock<'_> {
    /// The next interruption; `Nanos::MAX` when there is none. Failures that a partner absorbs
    /// on the way are appended to `absorbed` (in time order): the lookahead may pass the job's
    /// end, so they are counted only once the end is known.
    fn next(&mut self, rng: &mut ChaCha8Rng, absorbed: &mut Vec<Nanos>) -> Nanos {
        match self {
            Clock::Renewal { life, last } => {
                *last = last.saturating_add(secs_to_ns(life.sample(rng)));
                *last
            }
            Clock::Nodes { queue, life, pairs } => loop {
                let Some((t, i)) = queue.pop() else {
                    return Nanos::MAX;
                };
                if pairs.fail(i as u64) != Some(true) {
                    absorbed.push(t);
                } else {
                    // Every dead node, the one that just failed first, gets a fresh lifetime
                    // from this moment; survivors keep their age.
                    queue.push(
                        t.saturating_add(secs_to_ns(life.sample(rng))),
                        0,
                        i as u64,
                        i,
                    );
                    for d in pairs.dead_list.drain(..) {
                        pairs.dead[d as usize] = false;
                        queue.push(
                            t.saturating_add(secs_to_ns(life.sample(rng))),
                            0,
                            d as u64,
                            d,
                        );
                    }
                    return t;
                }
            },
            Clock::Trace { rows, pos, pairs } => loop {
                let Some(row) = rows.get(*pos) else {
                    return Nanos::MAX;
                };
                *pos += 1;
                let Some(pairs) = pairs else {
                    return row.time;
                };
                let node = row.index.unwrap_or(0) as u64;
                match pairs.fail(node) {
                    None => {}
                    Some(false) => absorbed.push(row.time),
                    Some(true) => {
                        for d in pairs.dead_list.drain(..) {
                            pairs.dead[d as usize] = false;
                        }
                        return row.time;
                    }
                }
            },
        }
    }
}

fn too_many(failures: &Failures) -> SimError {
    let why = match failures {
        Failures::Trace { .. } => "the trace has too many failures for this job to finish",
        _ => "the MTBF is too short for this job to finish",
    };
    SimError::NoProgress(format!(
        "more than {MAX_FAILURES_PER_RUN} failures in one run: {why}"
    ))
}

/// The failure process of one run, drawing its initial state from `rng`.
fn start_clock<'a>(cfg: &'a PeriodicConfig, rng: &mut ChaCha8Rng) -> Result<Clock<'a>, SimError> {
    Ok(match &cfg.failures {
        Failures::Platform(life) => Clock::Renewal {
            life: *life,
            last: 0,
        },
        Failures::Nodes {
            node,
            nodes,
            partners: 0,
        } if node.shape().is_exponential() => {
            let life = Lifetime::exponential(node.mean() / *nodes as f64).map_err(|e| {
                SimError::Invalid {
                    field: "node-mtbf",
                    value: node.mean().to_string(),
                    accepted: e.to_string(),
                }
            })?;
            Clock::Renewal { life, last: 0 }
        }
        Failures::Nodes {
            node,
            nodes,
            partners,
        } => {
            let total = nodes + partners;
            let mut queue = EventQueue::with_capacity(total as usize);
            for i in 0..total {
                queue.push(secs_to_ns(node.sample(rng)), 0, i, i as u32);
            }
            Clock::Nodes {
                queue,
                life: *node,
                pairs: Pairs::new(*nodes, *partners),
            }
        }
        Failures::Trace {
            trace,
            nodes,
            partners,
        } => Clock::Trace {
            rows: &trace.rows,
            pos: 0,
            pairs: (*partners > 0).then(|| Pairs::new(nodes.unwrap_or(0), *partners)),
        },
    })
}

/// Simulates run `run` of `seed`. The config must have passed [`PeriodicConfig::validate`].
pub fn simulate_run(cfg: &PeriodicConfig, seed: u64, run: u64) -> Result<PeriodicRun, SimError> {
    let mut rng = run_rng(seed, run);
    let st = &mut Stream::new(cfg, &mut rng)?;
    match (&cfg.asynchronous, cfg.signal_lead, cfg.walltime) {
        (Some(a), _, _) => run_async(cfg, a, st),
        (None, Some(lead), Some(limit)) => run_allocation(cfg, limit - lead, st),
        _ => run_chunks(cfg, &[cfg.interval], st),
    }
}

/// One run of `cfg` with the work cut into `chunks` (the last repeating), started again from
/// the first chunk after every failure and restart; `[cfg.interval]` is periodic
/// checkpointing. The last chunk of the job is cut short to the work left. Synchronous
/// checkpoints only (schedules refuse the asynchronous and allocation modes).
fn run_chunks(
    cfg: &PeriodicConfig,
    chunks: &[Nanos],
    st: &mut Stream<'_, '_>,
) -> Result<PeriodicRun, SimError> {
    let mut out = PeriodicRun::default();
    let repeating = chunks.len() - 1;
    let mut t: Nanos = 0;
    // Work committed, and the chunk to run next (its index since the last restart).
    let mut committed: Nanos = 0;
    let mut k = 0;
    while committed < cfg.work {
        let left = cfg.work - committed;
        let chunk = chunks[k.min(repeating)];
        // Whole chunks of the repeating one that end before the next failure pass in one
        // step, so a run costs O(failures) however short the chunk; each still counts as an
        // event. The job's last chunk is never among them (it may have no checkpoint).
        if k >= repeating && st.next > t {
            // The chunks that fit before the failure first: right after a skip none does, and
            // the count of whole chunks left (a second division) is then not needed.
            let span = chunk.saturating_add(cfg.cost);
            let fit = (st.next - t - 1) / span;
            let n = if fit > 0 {
                fit.min((left - 1) / chunk)
            } else {
                0
            };
            if n > 0 {
                t += n * span;
                out.work += n * chunk;
                out.checkpoint += n * cfg.cost;
                out.events += n;
                committed += n * chunk;
                continue;
            }
        }
        let mut w = chunk.min(left);
        let cost = |w: Nanos| {
            if w == left && !cfg.final_checkpoint {
                0
            } else {
                cfg.cost
            }
        };
        let mut c = cost(w);
        k += 1;
        loop {
            let end = t
                .checked_add(w.saturating_add(c))
                .filter(|&e| e < Nanos::MAX)
                .ok_or_else(|| past_the_clock("MTBF is"))?;
            if st.next > end {
                t = end;
                out.work += w;
                out.checkpoint += c;
                out.events += 1;
                committed += w;
                break;
            }
            // Interrupted at `next`: lose the work since the last checkpoint, then restart;
            // a failure during the restart (its last instant included) starts it again.
            let (worked, checkpointing) = interrupted_segment(st.next - t, w);
            out.lost_work += worked;
            out.checkpoint += checkpointing;
            t = st.resume(cfg, &mut out, st.next)?;
            // The schedule starts again from its first chunk (periodic: the same chunk).
            k = 1;
            w = chunks[0].min(left);
            c = cost(w);
        }
    }
    st.finish(&mut out, t);
    Ok(out)
}

/// One run's failure stream and its restarts, shared by the synchronous, asynchronous and
/// allocation runs.
// The run's generator is borrowed, not owned, so that the stream is small to build and move.
struct Stream<'a, 'r> {
    rng: &'r mut ChaCha8Rng,
    clock: Clock<'a>,
    /// The absorbed failures before the interruption the job last reached: all counted.
    absorbed_reached: u64,
    /// Those after it, up to `next`: counted once the run's end is known. A partnered node is
    /// absorbed at most once between two interruptions, so these are at most the nodes.
    absorbed: Vec<Nanos>,
    next: Nanos,
}

impl<'a, 'r> Stream<'a, 'r> {
    /// The failure stream of `cfg` drawing from `rng` (one run's generator), at its first failure.
    #[inline]
    fn new(cfg: &'a PeriodicConfig, rng: &'r mut ChaCha8Rng) -> Result<Stream<'a, 'r>, SimError> {
        let mut clock = start_clock(cfg, rng)?;
        let mut absorbed = Vec::new();
        let next = clock.next(rng, &mut absorbed);
        Ok(Stream {
            rng,
            clock,
            absorbed_reached: 0,
            absorbed,
            next,
        })
    }

    /// The failure at `self.next` has interrupted the job at `t = self.next`: counts it and
    /// runs the restart, started over by each failure in it. Returns the time the restart
    /// ends, or `None` when `stop` comes first (the run then ends at `stop`).
    #[inline]
    fn restart(
        &mut self,
        cfg: &PeriodicConfig,
        out: &mut PeriodicRun,
        mut t: Nanos,
        stop: Nanos,
    ) -> Result<Option<Nanos>, SimError> {
        loop {
            self.interrupt(cfg, out)?;
            let done = t
                .checked_add(cfg.restart)
                .filter(|&e| e < Nanos::MAX)
                .ok_or_else(|| past_the_clock("MTBF is"))?;
            if done > stop && self.next > stop {
                out.restart += stop - t;
                return Ok(None);
            }
            if self.next > done {
                out.restart += cfg.restart;
                out.events += 1;
                return Ok(Some(done));
            }
            out.restart += self.next - t;
            t = self.next;
        }
    }

    /// Counts the interruption at `self.next`, which the job has reached, and moves to the
    /// next one.
    #[inline]
    fn interrupt(&mut self, cfg: &PeriodicConfig, out: &mut PeriodicRun) -> Result<(), SimError> {
        out.failures += 1;
        if out.failures > MAX_FAILURES_PER_RUN {
            return Err(too_many(&cfg.failures));
        }
        // The job has reached the interruption, and with it every failure before.
        self.absorbed_reached += self.absorbed.len() as u64;
        self.absorbed.clear();
        self.next = self.clock.next(self.rng, &mut self.absorbed);
        Ok(())
    }

    /// The interruption at `self.next` ends the run there: counts it and every other one at
    /// that instant (several failures at one instant each count), so that the rows read past
    /// it, absorbed ones included, do not depend on the order of equal times.
    fn end_at_failure(
        &mut self,
        cfg: &PeriodicConfig,
        out: &mut PeriodicRun,
    ) -> Result<(), SimError> {
        let at = self.next;
        while self.next == at {
            self.interrupt(cfg, out)?;
        }
        Ok(())
    }

    /// [`Stream::restart`] with no deadline: the time the restart ends.
    #[inline]
    fn resume(
        &mut self,
        cfg: &PeriodicConfig,
        out: &mut PeriodicRun,
        t: Nanos,
    ) -> Result<Nanos, SimError> {
        self.restart(cfg, out, t, Nanos::MAX)?
            .ok_or_else(|| past_the_clock("MTBF is"))
    }

    /// Closes the run at `t`: node failures up to then, events.
    fn finish(&self, out: &mut PeriodicRun, t: Nanos) {
        out.wall = t;
        // Failures first within an instant: one at the job's last instant counts.
        out.node_failures = out.failures
            + self.absorbed_reached
            + self.absorbed.partition_point(|&a| a <= t) as u64;
        out.events += out.node_failures;
    }
}

/// One run with asynchronous checkpoints (`docs/simulation.md` §1, asynchronous): each
/// segment's snapshot stalls the job `cost`, then its write runs `write` in the background
/// (the job at `1 - slowdown` speed meanwhile); the snapshot is durable when the write ends.
/// A segment due while the previous write runs waits for it, the job working on. A failure
/// rolls back to the last durable snapshot. The job ends when its last write is durable.
fn run_async(
    cfg: &PeriodicConfig,
    a: &AsyncWrite,
    st: &mut Stream<'_, '_>,
) -> Result<PeriodicRun, SimError> {
    let mut out = PeriodicRun::default();
    let mut t: Nanos = 0;
    // Work position made durable, and the write in progress: (its end, the position it saves).
    let mut durable: Nanos = 0;
    let mut pending: Option<(Nanos, Nanos)> = None;
    let mut pos: Nanos = 0;
    let add = |x: Nanos, y: Nanos| {
        x.checked_add(y)
            .filter(|&e| e < Nanos::MAX)
            .ok_or_else(|| past_the_clock("MTBF is"))
    };
    loop {
        let target = pos + cfg.interval.min(cfg.work - pos);
        // The end of the write that slows this segment's start, if one runs: kept apart from
        // `pending`, which a write durable before the next failure leaves, since the work
        // position at that failure still counts the slowed rate while the write ran.
        let slowed_until = match pending {
            Some((we, _)) if we > t => Some(we),
            _ => None,
        };
        // When the snapshot starts, and the position it captures.
        let (snap, captured) = match slowed_until {
            Some(we) => {
                let capacity = a.slowed(we - t);
                if target - pos <= capacity {
                    (we, (pos + capacity).min(cfg.work))
                } else {
                    (add(we, target - pos - capacity)?, target)
                }
            }
            None => (add(t, target - pos)?, target),
        };
        let end = add(snap, cfg.cost)?;
        // A write that ends before the next failure is durable (failures first on a tie).
        if let Some((we, saved)) = pending
            && we < st.next
        {
            durable = saved;
            pending = None;
        }
        if st.next > end {
            out.events += 1;
            pos = captured;
            t = end;
            let write_end = add(end, a.write)?;
            if pos < cfg.work {
                pending = Some((write_end, pos));
                continue;
            }
            // The last snapshot: the job waits, idle, for its write.
            if st.next > write_end {
                t = write_end;
                break;
            }
            pending = Some((write_end, pos));
        }
        // Interrupted at `next`: everything since the last durable snapshot is lost.
        let at = st.next;
        if let Some((we, saved)) = pending
            && we < at
        {
            durable = saved;
        }
        let done_at_failure = if at >= end {
            captured
        } else {
            let worked = at.min(snap).saturating_sub(t);
            let accrued = match slowed_until {
                Some(we) => {
                    let slow = we.min(t + worked) - t;
                    a.slowed(slow) + (worked - slow)
                }
                None => worked,
            };
            (pos + accrued).min(captured)
        };
        out.lost_work += done_at_failure - durable;
        pending = None;
        pos = durable;
        t = st.resume(cfg, &mut out, at)?;
    }
    out.work = cfg.work;
    // Stalls, waits for writes and the slowdown: what is neither work, restart nor lost.
    out.checkpoint = t - out.work - out.restart - out.lost_work;
    st.finish(&mut out, t);
    Ok(out)
}

/// One run inside an allocation (`docs/simulation.md` §1, allocation): periodic checkpoints
/// as usual until `signal`; then a job at work checkpoints what it holds and stops, a
/// checkpoint in progress completes, and a restart in progress ends the run. The run reports
/// the work checkpointed (saved) by then.
fn run_allocation(
    cfg: &PeriodicConfig,
    signal: Nanos,
    st: &mut Stream<'_, '_>,
) -> Result<PeriodicRun, SimError> {
    let mut out = PeriodicRun::default();
    let mut t: Nanos = 0;
    let mut saved: Nanos = 0;
    let span = cfg.interval.saturating_add(cfg.cost);
    while saved < cfg.work && t < signal {
        let left = cfg.work - saved;
        // Whole segments that end by the signal and before the next failure pass at once.
        let whole_left = left / cfg.interval - u64::from(left.is_multiple_of(cfg.interval));
        if whole_left > 0 && st.next > t {
            let k = whole_left
                .min((st.next - t - 1) / span)
                .min((signal - t) / span);
            if k > 0 {
                t += k * span;
                saved += k * cfg.interval;
                out.checkpoint += k * cfg.cost;
                out.events += k;
                continue;
            }
        }
        let mut w = cfg.interval.min(left);
        let last = w == left;
        let mut c = if last && !cfg.final_checkpoint {
            0
        } else {
            cfg.cost
        };
        let mut stopping = false;
        if t + w > signal {
            // The signal comes during this segment's work: checkpoint now, then stop.
            w = signal - t;
            c = cfg.cost;
            stopping = true;
        }
        let end = t + w + c;
        if st.next > end {
            t = end;
            saved += w;
            out.checkpoint += c;
            out.events += 1;
            if stopping {
                break;
            }
            continue;
        }
        let at = st.next;
        let (worked, checkpointing) = interrupted_segment(at - t, w);
        out.lost_work += worked;
        out.checkpoint += checkpointing;
        t = at;
        if at > signal {
            // A failure during the final checkpoint: nothing more can be saved. One exactly at
            // the signal comes first and goes through the restart, which stops at once.
            st.end_at_failure(cfg, &mut out)?;
            break;
        }
        match st.restart(cfg, &mut out, at, signal)? {
            Some(done) => t = done,
            None => {
                t = signal;
                break;
            }
        }
    }
    out.work = saved;
    out.saved_work = saved;
    st.finish(&mut out, t);
    Ok(out)
}

/// The figures of section 1 over runs, as the report layer serializes them.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeriodicFigures {
    /// Time to finish the job.
    pub wall_time_s: Estimate,
    /// Failures that interrupted the job.
    pub failures: Estimate,
    /// Node failures, including those absorbed by partners (with partners only).
    pub node_failures: Option<Estimate>,
    /// Useful work.
    pub work_s: Estimate,
    /// Checkpointing, interrupted checkpoints included.
    pub checkpoint_s: Estimate,
    /// Restarting, interrupted restarts included.
    pub restart_s: Estimate,
    /// Work lost to failures; wall = work + checkpoint + restart + lost work.
    pub lost_work_s: Estimate,
    /// Fraction of runs finished within the walltime (with `walltime` only).
    pub finished_within_walltime: Option<Estimate>,
    /// Allocation mode: work checkpointed by the limit.
    pub saved_work_s: Option<Estimate>,
}

impl Scenario for PeriodicConfig {
    type Run = PeriodicRun;
    type Figures = PeriodicFigures;
    /// Checks what the types cannot: positive work and interval, partners within range, a
    /// walltime not below the work.
    fn validate(&self) -> Result<(), SimError> {
        check_job(self.work, self.interval, self.cost)?;
        self.validate_finite()?;
        if self.signal_lead.is_none() {
            check_walltime(self.walltime, self.work)?;
        }
        match &self.failures {
            Failures::Platform(_) => {}
            Failures::Nodes {
                nodes,
                partners,
                node,
            } => {
                if *nodes == 0 {
                    return invalid("nodes", "0".into(), "a whole number of nodes, at least 1");
                }
                if partners > nodes {
                    return invalid(
                        "partners",
                        partners.to_string(),
                        format!("0 to --nodes ({nodes})"),
                    );
                }
                if (!node.shape().is_exponential() || *partners > 0)
                    && nodes.saturating_add(*partners) > MAX_TRACKED_NODES
                {
                    return invalid(
                        "nodes",
                        nodes.to_string(),
                        format!(
                            "at most {MAX_TRACKED_NODES} nodes with partners when each node is tracked (non-exponential or --partners)"
                        ),
                    );
                }
                if node.mean() / *nodes as f64 <= 0.0 {
                    return invalid(
                        "node-mtbf",
                        node.mean().to_string(),
                        "a node MTBF that leaves a positive system MTBF",
                    );
                }
            }
            Failures::Trace {
                trace,
                nodes,
                partners,
            } => {
                if *partners > 0 && nodes.unwrap_or(0).saturating_add(*partners) > MAX_TRACKED_NODES
                {
                    return invalid(
                        "nodes",
                        nodes.unwrap_or(0).to_string(),
                        format!("at most {MAX_TRACKED_NODES} nodes with partners"),
                    );
                }
                if *partners > 0 {
                    let Some(n) = nodes else {
                        return Err(SimError::Conflict("--partners needs --nodes".into()));
                    };
                    if partners > n {
                        return invalid(
                            "partners",
                            partners.to_string(),
                            format!("0 to --nodes ({n})"),
                        );
                    }
                    if let Some(row) = trace.rows.iter().find(|r| r.index.is_none()) {
                        return Err(SimError::Conflict(format!(
                            "trace line {}: with --partners every line needs `time_seconds,node`",
                            row.line
                        )));
                    }
                }
                if let Some(n) = nodes {
                    let count = n.saturating_add(*partners);
                    if let Some(row) = trace
                        .rows
                        .iter()
                        .find(|r| r.index.is_some_and(|i| i as u64 >= count))
                    {
                        return Err(SimError::Conflict(format!(
                            "trace line {}, field node: {} is out of range 0 to {}",
                            row.line,
                            row.index.unwrap_or(0),
                            count - 1
                        )));
                    }
                }
            }
        }
        // After the ranges: the bound reads `nodes - partners`.
        self.check_progress()
    }
    /// Reduces runs (in run order) to figures.
    fn summarize(&self, runs: &[PeriodicRun]) -> PeriodicFigures {
        let s = |f: fn(&PeriodicRun) -> Nanos| estimate(runs, |r| ns_to_secs(f(r)));
        let partners = match self.failures {
            Failures::Nodes { partners, .. } | Failures::Trace { partners, .. } => partners,
            Failures::Platform(_) => 0,
        };
        PeriodicFigures {
            wall_time_s: s(|r| r.wall),
            failures: estimate(runs, |r| r.failures as f64),
            node_failures: (partners > 0).then(|| estimate(runs, |r| r.node_failures as f64)),
            work_s: s(|r| r.work),
            checkpoint_s: s(|r| r.checkpoint),
            restart_s: s(|r| r.restart),
            lost_work_s: s(|r| r.lost_work),
            finished_within_walltime: self.walltime.map(|w| proportion(runs, |r| r.wall <= w)),
            saved_work_s: self.signal_lead.map(|_| s(|r| r.saved_work)),
        }
    }
    fn run(&self, seed: u64, run: u64) -> Result<PeriodicRun, SimError> {
        simulate_run(self, seed, run)
    }
    /// Tracked nodes hold one pending failure each in the run's queue and a dead flag; the
    /// partners' list of dead nodes holds at most one index per partner.
    fn run_bytes(&self) -> u64 {
        let (tracked, per_node, partners) = match &self.failures {
            Failures::Nodes {
                nodes, partners, ..
            } => (*nodes, 1 + EventQueue::<u32>::EVENT_BYTES as u64, *partners),
            Failures::Trace {
                nodes, partners, ..
            } if *partners > 0 => (nodes.unwrap_or(0), 1, *partners),
            _ => return 0,
        };
        tracked
            .saturating_add(partners)
            .saturating_mul(per_node)
            .saturating_add(partners.saturating_mul(4))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::trace::{IndexColumn, parse_trace};

    const S: Nanos = 1_000_000_000;

    fn traced(text: &str, nodes: Option<u64>, partners: u64) -> PeriodicConfig {
        let column = match nodes {
            Some(n) => IndexColumn::Optional {
                name: "node",
                count: (n + partners) as usize,
            },
            None => IndexColumn::Forbidden,
        };
        PeriodicConfig {
            work: 100 * S,
            interval: 10 * S,
            cost: S,
            restart: 2 * S,
            failures: Failures::Trace {
                trace: Arc::new(parse_trace(text, "t", column).unwrap()),
                nodes,
                partners,
            },
            final_checkpoint: true,
            walltime: None,
            asynchronous: None,
            signal_lead: None,
        }
    }

    /// Before: `--threads 4` with 2^26 tracked nodes held four 2 GiB queues at once. A queued
    /// failure is 8 + 4 + 8 + 8 + 4 = 32 bytes (time, rule, key, sequence, node).
    #[test]
    fn tracked_nodes_bound_the_runs_in_flight() {
        assert_eq!(EventQueue::<u32>::EVENT_BYTES, 32);
        let nodes = |nodes: u64, partners: u64| PeriodicConfig {
            failures: Failures::Nodes {
                node: Lifetime::new(crate::failure::Shape::Weibull { shape: 0.7 }, 1e9).unwrap(),
                nodes,
                partners,
            },
            ..traced("", None, 0)
        };
        assert_eq!(nodes(1000, 10).run_bytes(), 1010 * 33 + 10 * 4);
        assert_eq!(traced("", None, 0).run_bytes(), 0);
        assert_eq!(traced("1,0\n", Some(4), 2).run_bytes(), 6 + 2 * 4);
        let big = nodes(1 << 26, 0).run_bytes();
        assert_eq!(big, (1 << 26) * 33);
        assert_eq!(crate::sim::engine::threads_within_memory(4, big), 1);
        assert_eq!(crate::sim::engine::threads_within_memory(4, big / 4), 4);
    }

    #[test]
    fn no_failures_is_work_plus_checkpoints() {
        let cfg = traced("", None, 0);
        let r = simulate_run(&cfg, 1, 0).unwrap();
        assert_eq!(r.wall, 110 * S);
        let cfg = PeriodicConfig {
            final_checkpoint: false,
            work: 95 * S,
            ..cfg
        };
        let r = simulate_run(&cfg, 1, 0).unwrap();
        // 9 full segments with checkpoints, then 5 s of work with none.
        assert_eq!(r.wall, 9 * 11 * S + 5 * S);
    }

    #[test]
    fn failures_in_work_checkpoint_and_restart() {
        // Segment 1 is [0, 11). A failure at 5 loses 5 s of work; the restart runs [5, 7) but a
        // failure at 6 starts it again: [6, 8). Segment 1 again [8, 19); a failure at 18.5 hits
        // its checkpoint (10 s of work lost, 0.5 s of checkpoint). Restart [18.5, 20.5); then
        // a failure at exactly 20.5 (its last instant) restarts it: [20.5, 22.5).
        let cfg = traced("5\n6\n18.5\n20.5\n", None, 0);
        let r = simulate_run(&cfg, 1, 0).unwrap();
        assert_eq!(r.failures, 4);
        assert_eq!(r.lost_work, 15 * S);
        assert_eq!(r.checkpoint, 10 * S + S / 2);
        assert_eq!(r.restart, S + 2 * S + 2 * S + 2 * S);
        assert_eq!(r.wall, 22 * S + S / 2 + 110 * S);
        assert_eq!(r.wall, r.work + r.checkpoint + r.restart + r.lost_work);
    }

    #[test]
    fn failure_at_the_end_of_a_checkpoint_interrupts_it() {
        let cfg = traced("11\n", None, 0);
        let r = simulate_run(&cfg, 1, 0).unwrap();
        assert_eq!(r.lost_work, 10 * S);
        assert_eq!(r.wall, 11 * S + 2 * S + 110 * S);
        // The job's last instant too: the final checkpoint ends at 110.
        let r = simulate_run(&traced("110\n", None, 0), 1, 0).unwrap();
        assert_eq!(r.failures, 1);
        let r = simulate_run(&traced("110.000000001\n", None, 0), 1, 0).unwrap();
        assert_eq!(r.failures, 0);
    }

    #[test]
    fn partners_absorb_first_failures() {
        // 2 nodes, node 0 partnered with node 2. Node 0 dies at 3 (absorbed), node 0 again at 4
        // (already dead: nothing), node 2 at 5 interrupts; then both are alive again and node
        // 2 at 30 is absorbed, node 1 (unpartnered) at 40 interrupts.
        // Node 0 at 500 is past the job's end: neither applied nor counted.
        let cfg = traced("3,0\n4,0\n5,2\n30,2\n40,1\n500,0\n", Some(2), 1);
        cfg.validate().unwrap();
        let r = simulate_run(&cfg, 1, 0).unwrap();
        assert_eq!(r.failures, 2);
        assert_eq!(r.node_failures, 4);
    }

    #[test]
    fn node_clock_partners_reduce_interruptions() {
        let node = Lifetime::exponential(1000.0 * 3600.0).unwrap();
        let mk = |partners| PeriodicConfig {
            work: 200 * 3600 * S,
            interval: 3600 * S,
            cost: 60 * S,
            restart: 60 * S,
            failures: Failures::Nodes {
                node,
                nodes: 100,
                partners,
            },
            final_checkpoint: true,
            walltime: None,
            asynchronous: None,
            signal_lead: None,
        };
        let plain = simulate(&mk(0), 3, 200, 1, &|| {}).unwrap();
        let paired = simulate(&mk(100), 3, 200, 1, &|| {}).unwrap();
        // ~20 interruptions without partners; with every node paired a pair fails within one
        // restart cycle rarely: ~40 node failures, few interruptions.
        assert!(plain.failures.point > 15.0, "{:?}", plain.failures);
        assert!(
            paired.failures.point < 0.25 * plain.failures.point,
            "{:?}",
            paired.failures
        );
        let nf = paired.node_failures.unwrap();
        assert!(
            nf.point > 30.0 && nf.point > 4.0 * paired.failures.point,
            "{nf:?}"
        );
    }

    #[test]
    fn validation() {
        let mut cfg = traced("", Some(4), 0);
        cfg.walltime = Some(99 * S);
        assert!(matches!(
            cfg.validate(),
            Err(SimError::Invalid {
                field: "walltime",
                ..
            })
        ));
        // The parser checks the range; a trace built by hand is checked again here.
        let mut cfg = traced("", Some(4), 1);
        let rows = vec![crate::sim::trace::TraceRow {
            time: S,
            index: Some(5),
            line: 1,
        }];
        cfg.failures = Failures::Trace {
            trace: Arc::new(Trace { rows }),
            nodes: Some(4),
            partners: 1,
        };
        assert!(matches!(cfg.validate(), Err(SimError::Conflict(_))));
        let cfg = traced("1\n", Some(4), 1);
        assert!(matches!(cfg.validate(), Err(SimError::Conflict(_))));
        let mut cfg = traced("", None, 0);
        cfg.failures = Failures::Nodes {
            node: Lifetime::exponential(1.0).unwrap(),
            nodes: 2,
            partners: 3,
        };
        assert!(matches!(
            cfg.validate(),
            Err(SimError::Invalid {
                field: "partners",
                ..
            })
        ));
    }

    #[test]
    fn too_short_mtbf_is_an_error_not_a_hang() {
        let cfg = PeriodicConfig {
            work: 3600 * S,
            interval: 3600 * S,
            cost: 60 * S,
            restart: 60 * S,
            failures: Failures::Platform(Lifetime::exponential(1.0).unwrap()),
            final_checkpoint: true,
            walltime: None,
            asynchronous: None,
            signal_lead: None,
        };
        assert!(matches!(cfg.validate(), Err(SimError::NoProgress(_))));
        let fine = PeriodicConfig {
            failures: Failures::Platform(Lifetime::exponential(3600.0).unwrap()),
            ..cfg
        };
        assert!(fine.validate().is_ok());
    }

    /// With partners the refusal bounds the failures by `1/p - 1` a segment, `p` the chance
    /// that a fresh system lives through it: `e^(-(N-P)x) (e^(-x)(2 - e^(-x)))^P`. One segment
    /// from a fresh start with no restart meets exactly that many on average (each attempt
    /// starts with every node alive, and lifetimes forget their age).
    #[test]
    fn partnered_nodes_meet_the_bound_the_refusal_uses() {
        let (m, nodes, partners) = (3600.0, 3u64, 2u64);
        let cfg = PeriodicConfig {
            failures: Failures::Nodes {
                node: Lifetime::exponential(m).unwrap(),
                nodes,
                partners,
            },
            ..exp_cfg(m, 1800.0, 1800.0, 60.0, 0.0)
        };
        let x = 1860.0 / m;
        let pair = (-x).exp() * (2.0 - (-x).exp());
        let p = (-((nodes - partners) as f64) * x).exp() * pair.powi(partners as i32);
        let expected = 1.0 / p - 1.0;
        let failures: Vec<f64> = (0..20_000)
            .map(|i| simulate_run(&cfg, 7, i).unwrap().failures as f64)
            .collect();
        let e = Estimate::from_samples(&failures);
        let z = (e.point - expected) / e.stderr.unwrap();
        assert!(z.abs() < 4.0, "{} vs {expected}: z = {z}", e.point);
        // 256 pairs of nodes of MTBF 1 s over 2-s segments: about e^352 failures, refused.
        let hopeless = PeriodicConfig {
            work: S,
            interval: S,
            cost: S,
            failures: Failures::Nodes {
                node: Lifetime::exponential(1.0).unwrap(),
                nodes: 256,
                partners: 256,
            },
            ..cfg
        };
        match hopeless.validate() {
            Err(SimError::NoProgress(m)) => assert!(m.contains("at least e^352.5"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    fn exp_cfg(m: f64, work: f64, tau: f64, cost: f64, restart: f64) -> PeriodicConfig {
        PeriodicConfig {
            work: secs_to_ns(work),
            interval: secs_to_ns(tau),
            cost: secs_to_ns(cost),
            restart: secs_to_ns(restart),
            failures: Failures::Platform(Lifetime::exponential(m).unwrap()),
            final_checkpoint: true,
            walltime: None,
            asynchronous: None,
            signal_lead: None,
        }
    }

    fn asynchronous(cfg: &PeriodicConfig, write: f64, slowdown: f64) -> PeriodicConfig {
        PeriodicConfig {
            asynchronous: Some(AsyncWrite::new(write, slowdown).unwrap()),
            ..cfg.clone()
        }
    }

    #[test]
    fn asynchronous_without_a_write_is_the_synchronous_run() {
        let sync = exp_cfg(3600.0, 36_000.0, 1000.0, 60.0, 120.0);
        let asy = asynchronous(&sync, 0.0, 0.0);
        asy.validate().unwrap();
        for run in 0..50 {
            let a = simulate_run(&sync, 9, run).unwrap();
            let b = simulate_run(&asy, 9, run).unwrap();
            assert_eq!(
                (a.wall, a.failures, a.lost_work, a.restart, a.checkpoint),
                (b.wall, b.failures, b.lost_work, b.restart, b.checkpoint),
                "run {run}"
            );
        }
    }

    #[test]
    fn asynchronous_semantics_on_traces() {
        let with = |trace: &str, write: f64, slowdown: f64, interval: Nanos| {
            let mut cfg = traced(trace, None, 0);
            cfg.work = 30 * S;
            cfg.interval = interval;
            let cfg = asynchronous(&cfg, write, slowdown);
            cfg.validate().unwrap();
            simulate_run(&cfg, 1, 0).unwrap()
        };
        // Snapshots end at 11, 22, 33; the last write ends at 38.
        let r = with("", 5.0, 0.0, 10 * S);
        assert_eq!(r.wall, 38 * S);
        assert_eq!(r.checkpoint, 8 * S);
        // A failure during the first write (at 14) loses it all: 10 s captured and 3 s more.
        let r = with("14\n", 5.0, 0.0, 10 * S);
        assert_eq!((r.lost_work, r.wall), (13 * S, 54 * S));
        assert_eq!(r.wall, r.work + r.checkpoint + r.restart + r.lost_work);
        // After the write's end (16) only the second segment's 6 s are lost.
        let r = with("17\n", 5.0, 0.0, 10 * S);
        assert_eq!((r.lost_work, r.wall), (6 * S, 46 * S));
        // At the very instant the write ends the failure comes first: the write is lost.
        let r = with("16\n", 5.0, 0.0, 10 * S);
        assert_eq!((r.lost_work, r.wall), (15 * S, 56 * S));
        // Half speed during 4 s writes: 2 s of work each, 2 s late twice, 4 s final write.
        let r = with("", 4.0, 0.5, 10 * S);
        assert_eq!(r.wall, 41 * S);
        // Wait rule: a 2 s interval with 5 s writes takes snapshots at 2, then every 6 s
        // when the write ends (8, 14, ..., 38, holding 5 s of work each: 7, 12, ..., 27, 30
        // with the last one capped at the work); the last write ends at 44.
        let r = with("", 5.0, 0.0, 2 * S);
        assert_eq!(r.wall, 44 * S);
        assert_eq!(r.checkpoint, 14 * S);
    }

    /// The work position at a failure counts the slowed rate while a write ran, also when the
    /// write has become durable before the failure: the run once forgot the slowdown there
    /// and counted 2 s more lost work (and 2 s less checkpointing) in this setting. Expected
    /// values worked by hand from docs/simulation.md §1: work 20, interval 10, cost 1,
    /// restart 2, a 4 s write at half speed. The first snapshot ends at 11 and its write at
    /// 15; by then the job has done 2 s of work (10 + 2); at full speed after, a failure at
    /// `f` holds `12 + (f - 15)`, of which the 10 made durable at 15 are kept.
    #[test]
    fn the_slowdown_counts_after_the_write_is_durable() {
        let run = |trace: &str| {
            let mut cfg = traced(trace, None, 0);
            cfg.work = 20 * S;
            let cfg = asynchronous(&cfg, 4.0, 0.5);
            cfg.validate().unwrap();
            simulate_run(&cfg, 1, 0).unwrap()
        };
        for (f, lost_ms) in [
            (16_000, 3_000),
            (15_500, 2_500),
            (18_000, 5_000),
            (20_000, 7_000),
        ] {
            let r = run(&format!("{}.{:03}\n", f / 1000, f % 1000));
            assert_eq!(r.lost_work, lost_ms * 1_000_000, "failure at {f} ms");
            assert_eq!(r.wall, r.work + r.checkpoint + r.restart + r.lost_work);
        }
        // At 16: the job restarts at 18 from 10, its second snapshot at 18 + 10, durable at
        // 29 + 4 = 33; checkpointing is the two 1 s stalls, the 2 s the slowdown cost during
        // the first write and the last 4 s write waited for.
        let r = run("16\n");
        assert_eq!((r.wall, r.checkpoint, r.restart), (33 * S, 8 * S, 2 * S));
        // Before the write ends (13), the slowed 1 s of work counts half: 10 + 1 lost.
        assert_eq!(run("13\n").lost_work, 11 * S);
    }

    #[test]
    fn asynchronous_runs_agree_with_the_exact_model() {
        use crate::model::asynchronous::AsyncComplete;
        // D_w/M up to 0.2, with and without a slowdown, and in the wait rule's edge case.
        for (m, c, r, dw, f, tau) in [
            (3600.0, 60.0, 60.0, 720.0, 0.0, 900.0),
            (3600.0, 60.0, 60.0, 720.0, 0.3, 900.0),
            (7200.0, 120.0, 0.0, 360.0, 0.5, 600.0),
            (3600.0, 30.0, 30.0, 500.0, 0.2, 400.0),
        ] {
            let work = 24.0 * tau;
            let cfg = asynchronous(&exp_cfg(m, work, tau, c, r), dw, f);
            let sim = simulate(&cfg, 5, 400, 1, &|| {}).unwrap();
            let model = AsyncComplete::new(m, c, r, 0.0, dw, f).unwrap();
            let expected = model.expected_wall(work, tau).unwrap();
            let zv = sim.wall_time_s.z(expected).expect("runs with a spread");
            assert!(zv.abs() < 4.0, "{m} {c} {r} {dw} {f} {tau}: z = {zv}");
        }
        // The synchronous model departs from the same runs once the write is long.
        let (m, c, dw, tau) = (3600.0, 60.0, 720.0, 900.0);
        let cfg = asynchronous(&exp_cfg(m, 24.0 * tau, tau, c, 0.0), dw, 0.0);
        let sim = simulate(&cfg, 5, 400, 1, &|| {}).unwrap();
        let sync = 24.0 * m * ((tau + c) / m).exp_m1();
        assert!(sim.wall_time_s.z(sync).is_some_and(|z| z > 4.0));
    }

    #[test]
    fn allocation_runs_save_what_the_model_expects() {
        use crate::model::allocation::Allocation;
        let (m, c, r, limit) = (3.0 * 3600.0, 120.0, 60.0, 12.0 * 3600.0);
        let alloc = Allocation::new(m, c, r, 0.0, limit, 0.0).unwrap();
        let plan = alloc.optimum().unwrap();
        for tau in [plan.interval, 0.6 * plan.interval, 1.7 * plan.interval] {
            let mut cfg = exp_cfg(m, 1000.0 * 3600.0, tau, c, r);
            cfg.walltime = Some(secs_to_ns(limit));
            cfg.signal_lead = Some(secs_to_ns(plan.signal_lead));
            cfg.validate().unwrap();
            let runs = simulate_range(&cfg, 11, 0..400, 1, &|| {}).unwrap();
            // Every run stops inside the allocation.
            assert!(runs.iter().all(|r| r.wall <= secs_to_ns(limit)));
            let figures = cfg.summarize(&runs);
            let saved = figures.saved_work_s.unwrap();
            let zv = saved
                .z(alloc.expected_saved_work(tau))
                .expect("runs with a spread");
            assert!(zv.abs() < 4.0, "tau {tau}: z = {zv} {saved:?}");
        }
        // Without failures the last checkpoint ends at T - L + C, inside the allocation, and
        // saves all but the checkpoints.
        let mut cfg = traced("", None, 0);
        cfg.work = secs_to_ns(100.0 * 3600.0);
        cfg.interval = secs_to_ns(plan.interval);
        cfg.cost = secs_to_ns(c);
        cfg.walltime = Some(secs_to_ns(limit));
        cfg.signal_lead = Some(secs_to_ns(plan.signal_lead));
        let r = simulate_run(&cfg, 1, 0).unwrap();
        let end = limit - plan.signal_lead + c;
        assert!((ns_to_secs(r.wall) - end).abs() < 1e-6 && r.wall <= secs_to_ns(limit));
        let saved = end - plan.checkpoints as f64 * c;
        assert!((ns_to_secs(r.saved_work) - saved).abs() < 1e-6, "{r:?}");
    }

    /// Before: a failure exactly at the signal ended the run as one after it would, so a second
    /// failure at that instant went uncounted, and the node failures read past a failure in
    /// the final checkpoint depended on the order of equal times in the file. Expected
    /// values by hand from docs/simulation.md §1 (allocation mode, ties).
    #[test]
    fn failures_at_one_instant_each_count_at_and_after_the_signal() {
        // Work 2 s in one segment, restart 2 s, walltime `limit`, lead `lead`: the signal S at
        // `limit - lead`.
        let run = |text: &str, nodes: Option<u64>, partners: u64, cost: Nanos, signal: Nanos| {
            let mut cfg = traced(text, nodes, partners);
            cfg.work = 2 * S;
            cfg.interval = 2 * S;
            cfg.cost = cost;
            cfg.walltime = Some(signal + 2 * S);
            cfg.signal_lead = Some(2 * S);
            cfg.validate().unwrap();
            simulate_run(&cfg, 0, 0).unwrap()
        };
        // S = 1 s, two failures at S: the first sends the job into restart, which stops at S,
        // and the second strikes that restart. The second of work is lost.
        let r = run("1\n1\n", None, 0, 0, S);
        assert_eq!(
            (r.failures, r.wall, r.lost_work, r.saved_work),
            (2, S, S, 0)
        );
        // Node 1 (no partner) interrupts at S; node 0's failure at S is absorbed by node 2.
        for text in ["1,1\n1,0\n", "1,0\n1,1\n"] {
            let r = run(text, Some(2), 1, 0, S);
            assert_eq!((r.failures, r.node_failures, r.wall), (1, 2, S), "{text:?}");
        }
        // Cost 1 s: the final checkpoint runs from S = 1 s to 2 s and a failure at 1.5 s ends
        // the run; the absorbed node failure at that instant counts in either order, and two
        // interrupting failures there count twice.
        for text in ["1.5,1\n1.5,0\n", "1.5,0\n1.5,1\n"] {
            let r = run(text, Some(2), 1, S, S);
            assert_eq!((r.failures, r.node_failures), (1, 2), "{text:?}");
            assert_eq!((r.wall, r.saved_work), (3 * S / 2, 0), "{text:?}");
        }
        let r = run("1.5\n1.5\n", None, 0, S, S);
        assert_eq!(
            (r.failures, r.wall, r.lost_work),
            (2, 3 * S / 2, S),
            "{r:?}"
        );
        assert_eq!(r.wall, r.work + r.checkpoint + r.restart + r.lost_work);
    }

    #[test]
    fn asynchronous_and_allocation_inputs_are_checked() {
        let base = exp_cfg(3600.0, 36_000.0, 1000.0, 60.0, 120.0);
        for (write, slowdown) in [
            (-1.0, 0.0),
            (f64::NAN, 0.0),
            (1.0, 1.0),
            (1.0, -0.5),
            (1.0, f64::NAN),
        ] {
            let e = AsyncWrite::new(write, slowdown).unwrap_err();
            assert!(matches!(e, SimError::Invalid { .. }), "{e}");
        }
        let e = AsyncWrite::new(1.0, 1.5).unwrap_err().to_string();
        assert!(e.contains("async-slowdown") && e.contains("below 1"), "{e}");
        let mut cfg = asynchronous(&base, 600.0, 0.0);
        cfg.final_checkpoint = false;
        assert!(matches!(cfg.validate(), Err(SimError::Conflict(_))));
        // A slowdown set by hand past the constructor is caught too.
        let mut cfg = asynchronous(&base, 600.0, 0.0);
        cfg.asynchronous.as_mut().unwrap().slowdown = 1.0;
        assert!(cfg.validate().is_err());
        let mut cfg = base.clone();
        cfg.signal_lead = Some(120 * S);
        assert!(matches!(cfg.validate(), Err(SimError::Conflict(_))));
        cfg.walltime = Some(100 * S);
        let e = cfg.validate().unwrap_err().to_string();
        assert!(
            e.contains("walltime") && e.contains("longer than one checkpoint"),
            "{e}"
        );
        cfg.walltime = Some(3600 * S);
        cfg.signal_lead = Some(30 * S);
        let e = cfg.validate().unwrap_err().to_string();
        assert!(e.contains("covers one checkpoint"), "{e}");
        // A walltime below the work is the point of an allocation.
        cfg.signal_lead = Some(60 * S);
        assert!(cfg.validate().is_ok());
        let cfg = asynchronous(&cfg, 600.0, 0.0);
        assert!(matches!(cfg.validate(), Err(SimError::Conflict(_))));
    }

    #[test]
    fn a_schedule_starts_again_after_each_restart() {
        // Chunks 2, 4, 6 (6 repeats), cost 1, restart 2, work 20. Chunk 1 [0,3), chunk 2
        // [3,8) (6 s committed); a failure at 10 loses 2 s of chunk 3; restart [10,12); then
        // chunk 1 again [12,15), chunk 2 [15,20), chunk 3 [20,27) (18 s committed), and the
        // 2 s left, cut from the repeating chunk: [27,30). Six checkpoints.
        let mut base = traced("10\n", None, 0);
        base.work = 20 * S;
        base.cost = S;
        let cfg = ScheduleConfig {
            base,
            chunks: vec![2 * S, 4 * S, 6 * S],
        };
        cfg.validate().unwrap();
        let r = cfg.run(1, 0).unwrap();
        assert_eq!(r.failures, 1);
        assert_eq!(r.lost_work, 2 * S);
        assert_eq!(r.restart, 2 * S);
        assert_eq!(r.checkpoint, 6 * S);
        assert_eq!(r.wall, 30 * S);
        assert_eq!(r.wall, r.work + r.checkpoint + r.restart + r.lost_work);
    }

    #[test]
    fn a_one_chunk_schedule_is_the_periodic_run() {
        let life = Lifetime::new(crate::failure::Shape::Weibull { shape: 0.7 }, 3600.0).unwrap();
        let base = PeriodicConfig {
            work: 100 * 3600 * S,
            interval: 1000 * S,
            cost: 60 * S,
            restart: 120 * S,
            failures: Failures::Platform(life),
            final_checkpoint: false,
            walltime: None,
            asynchronous: None,
            signal_lead: None,
        };
        let sched = ScheduleConfig {
            base: base.clone(),
            chunks: vec![1000 * S],
        };
        for run in 0..20 {
            assert_eq!(simulate_run(&base, 5, run), sched.run(5, run));
        }
    }

    #[test]
    fn schedule_validation() {
        let base = traced("", None, 0);
        let empty = ScheduleConfig {
            base: base.clone(),
            chunks: vec![],
        };
        assert!(matches!(
            empty.validate(),
            Err(SimError::Invalid {
                field: "schedule",
                ..
            })
        ));
        assert!(empty.run(1, 0).is_err());
        let zero = ScheduleConfig {
            base,
            chunks: vec![S, 0, S],
        };
        let e = zero.validate().unwrap_err();
        assert!(e.to_string().contains("chunk 2 is 0"), "{e}");
    }

    /// Paired per-run overheads (wall / work) of a schedule and of the periodic optimum under
    /// the same failures: the clock draws one lifetime per failure whatever the policy.
    fn overheads(cfg: &ScheduleConfig, seed: u64, runs: u64) -> Vec<f64> {
        simulate_range(cfg, seed, 0..runs, 0, &|| {})
            .unwrap()
            .iter()
            .map(|r| r.wall as f64 / r.work as f64)
            .collect()
    }

    fn mean_se(x: &[f64]) -> (f64, f64) {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, (v / n).sqrt())
    }

    #[test]
    fn renewal_model_agrees_with_the_simulator() {
        use crate::failure::Shape;
        use crate::model::renewal::Renewal;
        // A long job (about 2000 lives) so that its start (no restart, age 0) and its end (a
        // life cut short) weigh little beside the standard error of 200 runs.
        let m = 3600.0;
        let (cost, restart) = (150.0, 150.0);
        let ns = |x: f64| secs_to_ns(x);
        for shape in [
            Shape::Weibull { shape: 0.7 },
            Shape::Weibull { shape: 1.5 },
            Shape::Gamma { shape: 0.5 },
            Shape::LogNormal { sigma: 1.5 },
        ] {
            let life = Lifetime::new(shape, m).unwrap();
            let job = Renewal::new(life, cost, restart).unwrap();
            let sched = job.schedule().unwrap();
            let per = job.best_periodic().unwrap();
            let base = PeriodicConfig {
                work: ns(2000.0 * m),
                interval: ns(per.interval),
                cost: ns(cost),
                restart: ns(restart),
                failures: Failures::Platform(life),
                final_checkpoint: true,
                walltime: None,
                asynchronous: None,
                signal_lead: None,
            };
            let as_sched = |chunks: &[f64]| ScheduleConfig {
                base: base.clone(),
                chunks: chunks.iter().map(|&w| ns(w)).collect(),
            };
            let runs = 200;
            let a = overheads(&as_sched(&sched.chunks), 11, runs);
            let b = overheads(&as_sched(&[per.interval]), 11, runs);
            for (x, predicted, what) in [
                (&a, sched.overhead, "schedule"),
                (&b, per.overhead(), "periodic"),
            ] {
                let (mean, se) = mean_se(x);
                let z = (mean - predicted) / se;
                assert!(
                    z.abs() < 4.0,
                    "{shape} {what}: simulated {mean} ± {se}, predicted {predicted}, z = {z}"
                );
            }
            // Same failures, so the difference is paired: the schedule is not worse.
            let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
            let (dm, dse) = mean_se(&d);
            assert!(
                dm < 4.0 * dse,
                "{shape}: schedule - periodic = {dm} ± {dse}"
            );
            let predicted = sched.overhead - per.overhead();
            assert!(
                ((dm - predicted) / dse).abs() < 4.0,
                "{shape}: paired difference {dm} ± {dse}, predicted {predicted}"
            );
        }
    }
}

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

use super::engine::{EventQueue, Nanos, ns_to_secs, secs_to_ns};
use super::run::{SimError, estimate, proportion, replicate_range};
use super::stats::Estimate;
use super::trace::Trace;
use crate::failure::Lifetime;
use crate::rng::run_rng;
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
}

impl PeriodicConfig {
    /// Checks what the types cannot: positive work and interval, partners within range, a
    /// walltime not below the work.
    pub fn validate(&self) -> Result<(), SimError> {
        let invalid = |field, value: String, accepted: &str| {
            Err(SimError::Invalid {
                field,
                value,
                accepted: accepted.to_string(),
            })
        };
        if self.work == 0 {
            return invalid("work", "0".into(), "a positive duration");
        }
        if self.interval == 0 {
            return invalid("interval", "0".into(), "a positive duration");
        }
        // The failure-free time must fit in nanosecond time (584 years).
        let segments = self.work.div_ceil(self.interval) as u128;
        if self.work as u128 + segments * self.cost as u128 >= u64::MAX as u128 {
            return invalid(
                "work",
                format!("{}s", ns_to_secs(self.work)),
                "a job that takes less than 584 years without failures, checkpoints included",
            );
        }
        if let Some(w) = self.walltime
            && w < self.work
        {
            return invalid(
                "walltime",
                format!("{}s", ns_to_secs(w)),
                &format!(
                    "a duration of at least the work ({}s): no run can finish sooner",
                    ns_to_secs(self.work)
                ),
            );
        }
        self.check_progress()?;
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
                        &format!("0 to --nodes ({nodes})"),
                    );
                }
                if (!node.shape().is_exponential() || *partners > 0)
                    && nodes.saturating_add(*partners) > MAX_TRACKED_NODES
                {
                    return invalid(
                        "nodes",
                        nodes.to_string(),
                        &format!(
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
                        &format!("at most {MAX_TRACKED_NODES} nodes with partners"),
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
                            &format!("0 to --nodes ({n})"),
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
        Ok(())
    }

    /// With exponential failures the expected number of failures is known in closed form
    /// (per segment of wall time T: e^(R/M) (e^(T/M) - 1)); refuse up front a job that would
    /// need more than [`MAX_FAILURES_PER_RUN`] on average instead of running into the cap.
    fn check_progress(&self) -> Result<(), SimError> {
        let m = match &self.failures {
            Failures::Platform(l) if l.shape().is_exponential() => l.mean(),
            Failures::Nodes {
                node,
                nodes,
                partners: 0,
            } if node.shape().is_exponential() => node.mean() / *nodes as f64,
            _ => return Ok(()),
        };
        let t = ns_to_secs(self.interval) + ns_to_secs(self.cost);
        let segments = (self.work as f64 / self.interval as f64).ceil();
        // ln of the expected failures, kept in log space so that nothing overflows.
        let ln_failures =
            ns_to_secs(self.restart) / m + t / m + crate::failure::log1mexp(t / m) + segments.ln();
        if ln_failures > (MAX_FAILURES_PER_RUN as f64).ln() {
            return Err(SimError::NoProgress(format!(
                "about e^{ln_failures:.1} failures expected per run (over {MAX_FAILURES_PER_RUN}): \
                 the MTBF ({m}s) is too short for this interval, cost and restart to finish"
            )));
        }
        Ok(())
    }

    /// True when every run is the same (a trace): one run says it all.
    pub fn is_deterministic(&self) -> bool {
        matches!(self.failures, Failures::Trace { .. })
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

fn too_long() -> SimError {
    SimError::NoProgress(
        "the simulated time passes 584 years: the MTBF is too short for this job to finish".into(),
    )
}

fn too_many() -> SimError {
    SimError::NoProgress(format!(
        "more than {MAX_FAILURES_PER_RUN} failures in one run: the MTBF is too short for this job to finish"
    ))
}

/// Simulates run `run` of `seed`. The config must have passed [`PeriodicConfig::validate`].
pub fn simulate_run(cfg: &PeriodicConfig, seed: u64, run: u64) -> Result<PeriodicRun, SimError> {
    let mut rng = run_rng(seed, run);
    let mut out = PeriodicRun::default();
    let mut clock = match &cfg.failures {
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
            let mut queue = EventQueue::new();
            for i in 0..total {
                queue.push(secs_to_ns(node.sample(&mut rng)), 0, i, i as u32);
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
    };
    let mut absorbed = Vec::new();
    let mut next = clock.next(&mut rng, &mut absorbed);
    let full = cfg.work / cfg.interval;
    let rest = cfg.work % cfg.interval;
    let segments = full + u64::from(rest > 0);
    let mut t: Nanos = 0;
    let mut s = 0;
    while s < segments {
        // Whole segments that end before the next failure pass in one step, so a run costs
        // O(failures) however short the interval; each still counts as an event.
        let whole_left = segments - 1 - s;
        let span = cfg.interval.saturating_add(cfg.cost);
        if whole_left > 0 && next > t {
            let k = whole_left.min((next - t - 1) / span);
            if k > 0 {
                t += k * span;
                out.work += k * cfg.interval;
                out.checkpoint += k * cfg.cost;
                out.events += k;
                s += k;
                continue;
            }
        }
        s += 1;
        let last = s == segments;
        let w = if last && rest > 0 { rest } else { cfg.interval };
        let c = if last && !cfg.final_checkpoint {
            0
        } else {
            cfg.cost
        };
        loop {
            let end = t
                .checked_add(w.saturating_add(c))
                .filter(|&e| e < Nanos::MAX)
                .ok_or_else(too_long)?;
            if next > end {
                t = end;
                out.work += w;
                out.checkpoint += c;
                out.events += 1;
                break;
            }
            // Interrupted at `next`: lose the work since the last checkpoint, then restart;
            // a failure during the restart (its last instant included) starts it again.
            let elapsed = next - t;
            out.lost_work += elapsed.min(w);
            out.checkpoint += elapsed.saturating_sub(w);
            t = next;
            loop {
                out.failures += 1;
                if out.failures > MAX_FAILURES_PER_RUN {
                    return Err(too_many());
                }
                next = clock.next(&mut rng, &mut absorbed);
                let done = t
                    .checked_add(cfg.restart)
                    .filter(|&e| e < Nanos::MAX)
                    .ok_or_else(too_long)?;
                if next > done {
                    out.restart += cfg.restart;
                    t = done;
                    out.events += 1;
                    break;
                }
                out.restart += next - t;
                t = next;
            }
        }
    }
    out.wall = t;
    // Failures first within an instant: one at the job's last instant counts.
    out.node_failures = out.failures + absorbed.partition_point(|&a| a <= t) as u64;
    out.events += out.node_failures;
    Ok(out)
}

/// The figures of section 1 over runs, as the report layer serializes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeriodicFigures {
    /// Time to finish the job.
    pub wall_time_s: Estimate,
    /// Failures that interrupted the job.
    pub failures: Estimate,
    /// Node failures, including those absorbed by partners (with partners only).
    #[serde(skip_serializing_if = "Option::is_none")]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_within_walltime: Option<Estimate>,
}

/// Reduces runs (in run order) to figures.
pub fn summarize(cfg: &PeriodicConfig, runs: &[PeriodicRun]) -> PeriodicFigures {
    let s = |f: fn(&PeriodicRun) -> Nanos| estimate(runs, |r| ns_to_secs(f(r)));
    let partners = match cfg.failures {
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
        finished_within_walltime: cfg.walltime.map(|w| proportion(runs, |r| r.wall <= w)),
    }
}

/// Validates `cfg`, simulates `runs` runs of `seed` on `threads` threads (0 = all cores) and
/// reduces them; `tick` is called once per run.
///
/// ```
/// use ckpt::failure::Lifetime;
/// use ckpt::sim::periodic::{simulate, Failures, PeriodicConfig};
/// let s = 1_000_000_000;
/// let cfg = PeriodicConfig {
///     work: 3600 * s, interval: 600 * s, cost: 60 * s, restart: 120 * s,
///     failures: Failures::Platform(Lifetime::exponential(6.0 * 3600.0).unwrap()),
///     final_checkpoint: true, walltime: None,
/// };
/// let f = simulate(&cfg, 42, 100, 1, &|| {}).unwrap();
/// assert!(f.wall_time_s.point >= 3960.0);
/// ```
pub fn simulate(
    cfg: &PeriodicConfig,
    seed: u64,
    runs: u64,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<PeriodicFigures, SimError> {
    let results = simulate_range(cfg, seed, 0..runs, threads, tick)?;
    Ok(summarize(cfg, &results))
}

/// The runs `range` of [`simulate`] (one shard's slice), per run and in run order: run `i`
/// uses stream `i` as in the whole set, so [`summarize`] over the concatenated slices gives
/// what [`simulate`] gives.
pub fn simulate_range(
    cfg: &PeriodicConfig,
    seed: u64,
    range: std::ops::Range<u64>,
    threads: usize,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<PeriodicRun>, SimError> {
    cfg.validate()?;
    replicate_range(range, threads, tick, |i| simulate_run(cfg, seed, i))
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
        }
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
        };
        assert!(matches!(cfg.validate(), Err(SimError::NoProgress(_))));
        let fine = PeriodicConfig {
            failures: Failures::Platform(Lifetime::exponential(3600.0).unwrap()),
            ..cfg
        };
        assert!(fine.validate().is_ok());
    }
}

//! A fixed wall-time allocation (`docs/models.md` §10): the job runs inside a limit `T` (a
//! batch allocation) and whatever is not checkpointed by then is lost. The policy is the one a
//! batch script can run: checkpoint every `tau` of work, and when the scheduler's signal
//! arrives `L` before the limit (Slurm's `--signal=B:USR1@L`), checkpoint at once and stop. A
//! failure inside the allocation costs a downtime `D` and a restart `R` (started over by a
//! failure during it), after which the job continues with the same interval.
//!
//! For exponential failures the expected work saved by the limit solves a renewal equation in
//! the time at which the job (re)starts (§10); it is computed on a grid, backwards from the
//! signal, and maximized over the intervals that make the failure-free schedule end exactly on
//! the signal's checkpoint: `tau = (T - L + C)/n - C`, `n` checkpoints.

use super::daly::exact_optimum;
use super::{ModelError, nonnegative, positive};

/// Slurm's largest `--signal` lead time (seconds; `sig_time` is 0 to 65535).
pub const MAX_SIGNAL_LEAD: f64 = 65_535.0;

/// Most grid points of one evaluation of the expected saved work. An allocation whose grid
/// near the optimum (steps of 1/64 of the shorter of the best long-run period and the MTBF)
/// would need more is refused rather than solved on a coarser one.
pub const MAX_GRID: usize = 2_000_000;

/// Grid steps per period (interval plus cost) or per MTBF, whichever is shorter. `G` and `H`
/// bend only where the plan from a point gains or loses a chunk, once a period, and decay on
/// the MTBF's scale; a checkpoint shorter than a step costs nothing in accuracy, because the
/// commits are exact in the start time.
const STEPS_PER_PERIOD: f64 = 64.0;

/// Most grid points of the evaluations that search the count of checkpoints; the counts the
/// search ends on are then compared on the accurate grid. The drift of a coarser grid is
/// nearly the same for neighbouring counts, so it moves the search little; up to this size
/// the search is on the accurate grid.
const SEARCH_GRID: usize = 500_000;

/// An interval off the aligned family replaces the aligned plan only where it saves more by over
/// this fraction: within it the aligned plan, exact without failures, stands.
pub const TIE_RELATIVE: f64 = 1e-6;

/// Fewest grid points of one evaluation.
const MIN_GRID: usize = 400;

/// The allocation itself, whatever the failures: its length `T`, the checkpoint cost `C` and
/// the signal's lead `L = ceil(C + margin)` (§10), validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit {
    cost: f64,
    walltime: f64,
    lead: f64,
}

/// A wall-time allocation under exponential failures, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Allocation {
    mtbf: f64,
    restart: f64,
    downtime: f64,
    limit: Limit,
}

/// The schedule that maximizes the expected work saved by the end of the allocation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AllocationPlan {
    /// Checkpoints of the failure-free schedule, the signal's included.
    pub checkpoints: u64,
    /// Work between checkpoints (s).
    pub interval: f64,
    /// Expected work checkpointed by the limit (s).
    pub expected_saved_work: f64,
    /// The signal's lead before the limit (whole seconds, at least one checkpoint).
    pub signal_lead: f64,
}

impl Limit {
    /// An allocation of `walltime` seconds for checkpoints of `cost`. The signal comes
    /// `ceil(cost + margin)` seconds before the limit (Slurm takes whole seconds; `margin`
    /// covers its event resolution, which may send the signal up to a minute early, or a
    /// slower last checkpoint). The allocation must hold the lead and some work.
    ///
    /// ```
    /// use ckpt::model::allocation::Limit;
    /// let l = Limit::new(299.5, 86_400.0, 0.0).unwrap();
    /// assert_eq!(l.lead(), 300.0);
    /// // Four checkpoints, the last one started by the signal and ending at T - L + C.
    /// let tau = l.aligned_interval(4).unwrap();
    /// assert!((4.0 * (tau + 299.5) - (86_400.0 - 300.0 + 299.5)).abs() < 1e-9);
    /// ```
    pub fn new(cost: f64, walltime: f64, margin: f64) -> Result<Limit, ModelError> {
        let cost = positive("cost", cost)?;
        let margin = nonnegative("signal-margin", margin)?;
        let walltime = positive("walltime", walltime)?;
        let lead = (cost + margin).ceil();
        // The cost alone past Slurm's limit is the cost's fault; else the margin pushed it over.
        if cost.ceil() > MAX_SIGNAL_LEAD {
            return Err(ModelError::Parameter {
                name: "cost",
                value: cost,
                accepted: "a checkpoint of at most 65535 s, Slurm's longest signal lead",
            });
        }
        if lead > MAX_SIGNAL_LEAD {
            return Err(ModelError::Parameter {
                name: "signal-margin",
                value: margin,
                accepted: "a margin that keeps the signal's lead (the cost plus the margin) at most Slurm's 65535 s",
            });
        }
        if walltime <= lead {
            return Err(ModelError::Parameter {
                name: "walltime",
                value: walltime,
                accepted: "an allocation longer than one checkpoint (the signal's lead, cost plus margin rounded up to a second)",
            });
        }
        Ok(Limit {
            cost,
            walltime,
            lead,
        })
    }

    /// The checkpoint cost `C` (s).
    pub fn cost(&self) -> f64 {
        self.cost
    }

    /// The allocation's length `T` (s).
    pub fn walltime(&self) -> f64 {
        self.walltime
    }

    /// The signal's lead before the limit (s).
    pub fn lead(&self) -> f64 {
        self.lead
    }

    /// Time from the start to the signal, `T - L`.
    pub fn signal(&self) -> f64 {
        self.walltime - self.lead
    }

    /// The interval whose failure-free schedule has `n` checkpoints, the last one started by
    /// the signal: `(T - L + C)/n - C`; `None` when it is not positive.
    pub fn aligned_interval(&self, n: u64) -> Option<f64> {
        let tau = (self.signal() + self.cost) / n.max(1) as f64 - self.cost;
        (tau > 0.0).then_some(tau)
    }

    /// The checkpoints of the failure-free schedule of `tau`, the signal's included:
    /// `ceil((T - L + C)/(tau + C))` (`n` for the aligned `tau_n`).
    pub fn checkpoints(&self, tau: f64) -> u64 {
        // A saturating cast: a vanishing interval gives the largest count.
        ((self.signal() + self.cost) / (tau + self.cost))
            .ceil()
            .max(1.0) as u64
    }

    /// The two ranges of intervals beside the aligned count `n`, `[tau_{n+1}, tau_n]` and
    /// `[tau_n, tau_{n-1}]`: every interval inside one has the same failure-free saved work,
    /// and with failures the best of a range may lie inside it.
    pub(crate) fn count_ranges(&self, n: u64) -> Vec<(f64, f64)> {
        [(n + 1, n), (n, n.saturating_sub(1).max(1))]
            .into_iter()
            .filter_map(|(a, b)| Some((self.aligned_interval(a)?, self.aligned_interval(b)?)))
            .filter(|(lo, hi)| lo < hi)
            .collect()
    }

    /// The search after the count search, shared by §10 and §10.1: in each of the two count
    /// ranges beside `plan`'s count ([`Limit::count_ranges`]), the interval with the most of
    /// `searched` (on the search grid, to a sixteenth of `step(lo)`, the grid's step at the
    /// range's shortest interval), judged by `accurate` and adopted as [`Limit::adopt`] says
    /// against the aligned plan's saved work `aligned`.
    pub(crate) fn refine_within_counts(
        &self,
        plan: &mut AllocationPlan,
        aligned: f64,
        step: impl Fn(f64) -> f64,
        searched: impl Fn(f64) -> Option<f64>,
        accurate: impl Fn(f64) -> Option<f64>,
    ) {
        for (lo, hi) in self.count_ranges(plan.checkpoints) {
            if let Some(saved) =
                maximize(&searched, lo, hi, step(lo)).and_then(|tau| Some((tau, accurate(tau)?)))
            {
                self.adopt(plan, aligned, saved.0, saved.1);
            }
        }
    }

    /// Replaces `plan` by the interval `tau` that saves `saved`, where that beats both the plan
    /// and the aligned plan's `aligned` by over [`TIE_RELATIVE`] of the latter.
    pub(crate) fn adopt(&self, plan: &mut AllocationPlan, aligned: f64, tau: f64, saved: f64) {
        if saved > aligned * (1.0 + TIE_RELATIVE) && saved > plan.expected_saved_work {
            *plan = AllocationPlan {
                checkpoints: self.checkpoints(tau),
                interval: tau,
                expected_saved_work: saved,
                signal_lead: plan.signal_lead,
            };
        }
    }

    /// The aligned count with the most expected saved work (§10). Starting from the count of
    /// `guess` (an interval near the optimum), steps of an eighth of that count, doubling,
    /// walk uphill until the value falls, which brackets the best count; a ternary search
    /// narrows the bracket with `value(tau_n, search)`. The neighbours of where it ends and of
    /// the guess's count are then compared with `value(tau_n, accurate)`; `value` is the saved
    /// work of the aligned interval `tau_n` on at most that many grid points. The bracket keeps
    /// the search off the extreme counts, whose short intervals need the finest grids.
    ///
    /// `seeds` are intervals near which the sequence may have other peaks (a nearly fixed
    /// lifetime makes one wherever whole periods fill a life): their counts and those
    /// counts' neighbours are evaluated on the search grid, except the counts that cannot
    /// beat what the search found (the failure-free saved work `T - L + C - n C` is a bound),
    /// and the neighbours of the best of them join the final candidates.
    pub(crate) fn best_count(
        &self,
        guess: f64,
        seeds: &[f64],
        search: usize,
        accurate: usize,
        value: impl Fn(f64, usize) -> f64,
    ) -> Result<AllocationPlan, ModelError> {
        let span = self.signal() + self.cost;
        let max_n = ((span / self.cost).ceil() as u64).saturating_sub(1).max(1);
        let value_within = |n: u64, points: usize| match self.aligned_interval(n) {
            Some(tau) => value(tau, points),
            None => f64::NEG_INFINITY,
        };
        // A saturating cast: an interval beyond the counts gives the largest count.
        let count_of = |tau: f64| ((span / (tau + self.cost)).round() as u64).clamp(1, max_n);
        let guess = count_of(guess);
        let (mut lo, mut hi) = bracket(guess, max_n, |n| value_within(n, search));
        // Ternary search on a unimodal-in-practice sequence, with at most 200 evaluations.
        for _ in 0..100 {
            if hi - lo < 6 {
                break;
            }
            let a = lo + (hi - lo) / 3;
            let b = hi - (hi - lo) / 3;
            if value_within(a, search) < value_within(b, search) {
                lo = a + 1;
            } else {
                hi = b;
            }
        }
        let mut seed_counts: Vec<u64> = seeds
            .iter()
            .flat_map(|&tau| {
                let n = count_of(tau);
                [n.saturating_sub(1).max(1), n, (n + 1).min(max_n)]
            })
            .collect();
        seed_counts.sort_unstable();
        seed_counts.dedup();
        let best_seed = (!seed_counts.is_empty()).then(|| {
            let mut best = (value_within(lo, search), lo);
            for n in seed_counts {
                if span - n as f64 * self.cost <= best.0 {
                    break;
                }
                let v = value_within(n, search);
                if v > best.0 {
                    best = (v, n);
                }
            }
            best.1
        });
        let mut best = (f64::NEG_INFINITY, 1u64);
        let mut candidates: Vec<u64> = (lo.saturating_sub(3).max(1)..=(hi + 3).min(max_n))
            .chain(guess.saturating_sub(2).max(1)..=(guess + 2).min(max_n))
            .chain(
                best_seed
                    .into_iter()
                    .flat_map(|n| n.saturating_sub(2).max(1)..=(n + 2).min(max_n)),
            )
            .collect();
        // An evaluation on the accurate grid is the costliest step: each count once.
        candidates.sort_unstable();
        candidates.dedup();
        for n in candidates {
            let v = value_within(n, accurate);
            if v > best.0 || (v == best.0 && n < best.1) {
                best = (v, n);
            }
        }
        let (saved, n) = best;
        match self.aligned_interval(n) {
            Some(interval) if saved.is_finite() => Ok(AllocationPlan {
                checkpoints: n,
                interval,
                expected_saved_work: saved,
                signal_lead: self.lead,
            }),
            _ => Err(ModelError::Parameter {
                name: "walltime",
                value: self.walltime,
                accepted: "an allocation with room for work and one checkpoint before the signal's",
            }),
        }
    }
}

/// Counts `lo <= hi` in `1..=max_n` around the best of `value`, for a sequence that rises to
/// one peak and then falls: from `start`, a step of an eighth of it (at least 1), doubled at
/// each move, goes uphill until the value falls. Fewer than 80 evaluations for any `max_n`.
fn bracket(start: u64, max_n: u64, value: impl Fn(u64) -> f64) -> (u64, u64) {
    let mut step = (start / 8).max(1);
    let here = value(start);
    let up = (start + step).min(max_n);
    let down = start.saturating_sub(step).max(1);
    let (v_up, v_down) = (value(up), value(down));
    if v_up <= here && v_down <= here {
        return (down, up);
    }
    let rising = v_up > here;
    let (mut behind, mut at, mut v_at) = if rising {
        (start, up, v_up)
    } else {
        (start, down, v_down)
    };
    loop {
        step = step.saturating_mul(2);
        let next = if rising {
            at.saturating_add(step).min(max_n)
        } else {
            at.saturating_sub(step).max(1)
        };
        if next == at {
            // The edge of the counts: the best lies between the last point passed and it.
            return if rising { (behind, at) } else { (at, behind) };
        }
        let v_next = value(next);
        if v_next <= v_at {
            return if rising {
                (behind, next)
            } else {
                (next, behind)
            };
        }
        (behind, at, v_at) = (at, next, v_next);
    }
}

impl Allocation {
    /// An allocation of `walltime` seconds for a job under MTBF `mtbf` with checkpoint cost
    /// `cost`, restart `restart` and downtime `downtime`; the signal's lead is as
    /// [`Limit::new`] gives it.
    pub fn new(
        mtbf: f64,
        cost: f64,
        restart: f64,
        downtime: f64,
        walltime: f64,
        margin: f64,
    ) -> Result<Allocation, ModelError> {
        let limit = Limit::new(cost, walltime, margin)?;
        let mtbf = positive("mtbf", mtbf)?;
        let signal = limit.signal();
        let period = exact_optimum(limit.cost, mtbf) + limit.cost;
        if signal / (period.min(mtbf).min(signal) / STEPS_PER_PERIOD) > MAX_GRID as f64 {
            return Err(ModelError::Parameter {
                name: "walltime",
                value: walltime,
                accepted: "an allocation the model resolves: at most 31,250 times the shorter of the MTBF and the best long-run period (interval plus cost) before the signal",
            });
        }
        Ok(Allocation {
            mtbf,
            restart: nonnegative("restart", restart)?,
            downtime: nonnegative("downtime", downtime)?,
            limit,
        })
    }

    /// The signal's lead before the limit (s).
    pub fn lead(&self) -> f64 {
        self.limit.lead
    }

    /// Time from the start to the signal, `T - L`.
    fn signal(&self) -> f64 {
        self.limit.signal()
    }

    /// The interval whose failure-free schedule has `n` checkpoints, the last one started by
    /// the signal: `(T - L + C)/n - C`; `None` when it is not positive.
    pub fn aligned_interval(&self, n: u64) -> Option<f64> {
        self.limit.aligned_interval(n)
    }

    /// Expected work saved by the limit when checkpointing every `tau` (s), from a start at
    /// time 0 with nothing to restart.
    ///
    /// ```
    /// use ckpt::model::allocation::Allocation;
    /// // Without failures (an MTBF of ten thousand years) 4 checkpoints of 60 s in 1 h leave
    /// // 3360 s of work, less what the failures take.
    /// let a = Allocation::new(3.15e11, 60.0, 0.0, 0.0, 3600.0, 0.0).unwrap();
    /// let tau = a.aligned_interval(4).unwrap();
    /// assert!((a.expected_saved_work(tau) - 3360.0).abs() < 1e-3);
    /// ```
    pub fn expected_saved_work(&self, tau: f64) -> f64 {
        self.saved_work_within(tau, MAX_GRID)
    }

    /// [`Allocation::expected_saved_work`] on at most `points` grid points.
    fn saved_work_within(&self, tau: f64, points: usize) -> f64 {
        if !(tau > 0.0 && tau.is_finite()) {
            return 0.0;
        }
        let s = self.signal();
        let step = (tau + self.limit.cost).min(self.mtbf).min(s) / STEPS_PER_PERIOD;
        let n = ((s / step).ceil() as usize).clamp(MIN_GRID, points.max(MIN_GRID));
        Grid::new(self, tau, n).solve()
    }

    /// The schedule with the most expected saved work (§10). First the aligned intervals (a
    /// failure-free schedule whose last checkpoint is the signal's): the count is searched
    /// around `(T - L + C)/(tau* + C)`, with `tau*` Daly's exact optimum, by a ternary search
    /// on the count, then checked over its neighbours. Then Brent's method searches the two
    /// count ranges beside the best count `n`, `[tau_{n+1}, tau_n]` and `[tau_n, tau_{n-1}]`;
    /// an interval inside one replaces the aligned plan where it saves more by over
    /// [`TIE_RELATIVE`].
    pub fn optimum(&self) -> Result<AllocationPlan, ModelError> {
        let guess = exact_optimum(self.limit.cost, self.mtbf);
        let mut plan =
            self.limit
                .best_count(guess, &[], SEARCH_GRID, MAX_GRID, |tau, points| {
                    self.saved_work_within(tau, points)
                })?;
        let aligned = plan.expected_saved_work;
        self.limit.refine_within_counts(
            &mut plan,
            aligned,
            |lo| (lo + self.limit.cost).min(self.mtbf).min(self.signal()) / STEPS_PER_PERIOD,
            |tau| Some(self.saved_work_within(tau, SEARCH_GRID)),
            |tau| Some(self.saved_work_within(tau, MAX_GRID)),
        );
        Ok(plan)
    }
}

/// The best interval of whole iterations inside an allocation (§10, `--iteration-time`): an
/// application that can checkpoint only between iterations checkpoints every `iterations` of
/// them, and the signal's checkpoint takes what the last chunk holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationPlan {
    /// Iterations between checkpoints.
    pub iterations: u64,
    /// The interval, `iterations` times the iteration's length (s).
    pub interval: f64,
    /// Expected work checkpointed by the limit (s).
    pub expected_saved_work: f64,
}

impl Allocation {
    /// The whole number of iterations of `iteration` seconds between checkpoints that saves the
    /// most work: the counts around `near / iteration` (`near` the plan's interval), from
    /// one below its floor to one above its ceiling, each evaluated as a schedule of its own (the
    /// last chunk cut by the signal). `None` when no such interval ends before the signal or
    /// `iteration` is not a positive, finite number.
    ///
    /// ```
    /// use ckpt::model::allocation::Allocation;
    /// let a = Allocation::new(6.0 * 3600.0, 300.0, 300.0, 0.0, 86_400.0, 0.0).unwrap();
    /// let best = a.optimum().unwrap();
    /// let p = a.in_iterations(best.interval, 1020.0).unwrap();
    /// assert_eq!(p.interval, p.iterations as f64 * 1020.0);
    /// assert!(p.expected_saved_work <= best.expected_saved_work);
    /// ```
    pub fn in_iterations(&self, near: f64, iteration: f64) -> Option<IterationPlan> {
        best_multiple(near, iteration, self.signal(), |taus| {
            taus.iter()
                .map(|&t| Some(self.expected_saved_work(t)))
                .collect()
        })
    }
}

/// The interval in `[lo, hi]` with the most of `value` (no value counts as nothing saved), by
/// Brent's method to a sixteenth of the grid's step `h`: a local maximum where there are
/// several.
pub(crate) fn maximize(
    value: &impl Fn(f64) -> Option<f64>,
    lo: f64,
    hi: f64,
    h: f64,
) -> Option<f64> {
    let brent = crate::optimize::brent::Brent {
        rel_tol: 1e-7,
        abs_tol: h / 16.0,
        max_iters: 60,
    };
    brent
        .minimize(|tau| -value(tau).unwrap_or(0.0), lo, hi)
        .ok()
        .map(|m| m.x)
}

/// The best of the multiples `k iteration` from one below the floor of `near / iteration` to one
/// above its ceiling (at least 1, ending by `signal`), by `saved`, the expected saved work of
/// each interval (`None` where the model does not resolve it); `None` where none qualifies or
/// `iteration` is not a positive, finite number.
pub(crate) fn best_multiple(
    near: f64,
    iteration: f64,
    signal: f64,
    saved: impl Fn(&[f64]) -> Vec<Option<f64>>,
) -> Option<IterationPlan> {
    if !(iteration > 0.0 && iteration.is_finite() && near.is_finite()) {
        return None;
    }
    let k = near / iteration;
    // Saturating casts: `near` is at most the time to the signal, so both are small.
    let lo = (k.floor() - 1.0).max(1.0) as u64;
    let hi = (k.ceil() + 1.0).min((signal / iteration).floor()) as u64;
    let counts: Vec<u64> = (lo..=hi).collect();
    let intervals: Vec<f64> = counts.iter().map(|&n| n as f64 * iteration).collect();
    let mut best: Option<IterationPlan> = None;
    for ((&iterations, &interval), saved) in counts.iter().zip(&intervals).zip(saved(&intervals)) {
        let Some(saved) = saved else { continue };
        if best.is_none_or(|b| saved > b.expected_saved_work) {
            best = Some(IterationPlan {
                iterations,
                interval,
                expected_saved_work: saved,
            });
        }
    }
    best
}

/// The backward solution of §10's equations on `n + 1` points `u_i = i S / n`.
struct Grid<'a> {
    a: &'a Allocation,
    tau: f64,
    h: f64,
    lam: f64,
    /// Expected saved work from a fresh start at `u_i`.
    g: Vec<f64>,
    /// Expected saved work after a failure at `u_i`.
    f: Vec<f64>,
    /// `Q(u_i) = integral_{u_i}^S lambda e^(-lambda (y - u_i)) F(y) dy`.
    q: Vec<f64>,
}

impl Grid<'_> {
    fn new(a: &Allocation, tau: f64, n: usize) -> Grid<'_> {
        Grid {
            a,
            tau,
            h: a.signal() / n as f64,
            lam: 1.0 / a.mtbf,
            g: vec![0.0; n + 1],
            f: vec![0.0; n + 1],
            q: vec![0.0; n + 1],
        }
    }

    /// Linear interpolation of `v` at time `x`; every function is 0 from the signal on.
    fn at(&self, v: &[f64], x: f64) -> f64 {
        let pos = x / self.h;
        let last = v.len() - 1;
        if pos >= last as f64 {
            return 0.0;
        }
        let i = pos.floor() as usize;
        let frac = pos - i as f64;
        v[i] + frac * (v[i + 1] - v[i])
    }

    /// The failure-free plan from a fresh start at `u`: expected work of its commits (each
    /// weighted by the chance of no failure before it) and the end of its last commit.
    fn plan(&self, u: f64) -> (f64, f64) {
        let (s, c, tau, lam) = (self.a.signal(), self.a.limit.cost, self.tau, self.lam);
        let left = s - u;
        if left <= 0.0 {
            return (0.0, u);
        }
        let period = tau + c;
        let full = if left >= tau {
            ((left - tau) / period).floor() + 1.0
        } else {
            0.0
        };
        // sum_{k=1}^{full} e^(-lambda k period), without cancellation.
        let x = lam * period;
        let geometric = if full > 0.0 {
            (-x).exp() * (-(-x * full).exp_m1()) / (-(-x).exp_m1())
        } else {
            0.0
        };
        let start = u + full * period;
        if start < s {
            // The signal falls in a work phase: its checkpoint takes what is left.
            let end = s + c;
            (
                tau * geometric + (s - start) * (-lam * (end - u)).exp(),
                end,
            )
        } else {
            (tau * geometric, start)
        }
    }

    fn solve(mut self) -> f64 {
        let n = self.g.len() - 1;
        let (lam, h) = (self.lam, self.h);
        let (r, d) = (self.a.restart, self.a.downtime);
        let decay = (-lam * h).exp();
        // Weights of the step integral of lambda e^(-lambda s) times a linear function.
        let p = -(-lam * h).exp_m1();
        let w1 = p / (lam * h) - decay;
        let w0 = p - w1;
        let survive_restart = (-lam * r).exp();
        for i in (0..n).rev() {
            let u = i as f64 * h;
            let (commits, end) = self.plan(u);
            let reach_end = (-lam * (end - u)).exp();
            self.g[i] = self.g[i + 1];
            self.f[i] = self.f[i + 1];
            self.q[i] = self.q[i + 1];
            // The unknowns at u_i appear in interpolations only through points within one
            // step; a fixed-point iteration contracts by about lambda h per sweep. It stops
            // when neither F nor G moves: G alone can repeat itself while F still lags a
            // sweep behind (with R = D = 0 the second sweep reproduces the first), which
            // left an explicit, first-order step.
            for _ in 0..60 {
                let q = decay * self.q[i + 1] + w0 * self.f[i] + w1 * self.f[i + 1];
                self.q[i] = q;
                let f = survive_restart * self.at(&self.g, u + d + r) + self.at(&self.q, u + d)
                    - survive_restart * self.at(&self.q, u + d + r);
                let f_moved = (f - self.f[i]).abs() > 1e-15 * f.abs();
                self.f[i] = f;
                let g = commits + q - reach_end * self.at(&self.q, end);
                let g_moved = (g - self.g[i]).abs() > 1e-15 * g.abs();
                self.g[i] = g;
                if !f_moved && !g_moved {
                    break;
                }
            }
        }
        self.g[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Slurm's 65535-s lead is the cost's fault only when the cost alone passes it; past it by
    /// the margin, the margin is named, with its own value.
    #[test]
    fn the_lead_past_slurms_limit_blames_what_pushed_it() {
        let name = |cost, margin| match Limit::new(cost, 1e6, margin) {
            Err(ModelError::Parameter { name, value, .. }) => Some((name, value)),
            _ => None,
        };
        assert_eq!(name(65_535.5, 0.0), Some(("cost", 65_535.5)));
        assert_eq!(name(65_000.0, 600.0), Some(("signal-margin", 600.0)));
        assert_eq!(name(65_000.0, 535.0), None);
        assert_eq!(name(65_000.0, 535.5), Some(("signal-margin", 535.5)));
    }

    /// An independent computation: the job's state distribution pushed forward in time steps
    /// of `h` seconds (every duration a whole number of steps), a failure in a step taking
    /// effect at its end. Returns the expected work committed by the limit.
    fn forward(m: f64, c: u64, r: u64, d: u64, tau: u64, signal: u64, h: f64) -> f64 {
        let pf = 1.0 - (-h / m).exp();
        let period = tau + c;
        // run[o]: mass working or checkpointing, `o` steps after its (re)start.
        let mut run = vec![0.0f64; signal as usize + 1];
        run[0] = 1.0;
        // rest[k]: mass `k` steps into downtime + restart.
        let mut rest = vec![0.0f64; (d + r) as usize + 1];
        let mut saved = 0.0;
        let mut next_run = vec![0.0f64; run.len()];
        for t in 0..signal as usize {
            next_run.fill(0.0);
            let mut failed = 0.0;
            // Nobody is more than t steps past a (re)start at step t.
            for (o, &mass) in run.iter().enumerate().take(t + 1) {
                if mass == 0.0 {
                    continue;
                }
                let ok = mass * (1.0 - pf);
                failed += mass * pf;
                let o1 = o as u64 + 1;
                if o1.is_multiple_of(period) {
                    saved += ok * tau as f64 * h;
                }
                next_run[o1 as usize] += ok;
            }
            let mut next_rest = vec![0.0f64; rest.len()];
            for k in 0..(d + r) as usize {
                let mass = rest[k];
                if mass == 0.0 {
                    continue;
                }
                let exposed = k as u64 >= d;
                let (ok, f) = if exposed {
                    (mass * (1.0 - pf), mass * pf)
                } else {
                    (mass, 0.0)
                };
                failed += f;
                if k + 1 == (d + r) as usize {
                    next_run[0] += ok;
                } else {
                    next_rest[k + 1] += ok;
                }
            }
            if d + r == 0 {
                next_run[0] += failed;
            } else {
                next_rest[0] += failed;
            }
            std::mem::swap(&mut run, &mut next_run);
            rest = next_rest;
        }
        // At the signal: work phases checkpoint what they hold; checkpoints in progress end.
        let final_survive = |steps: u64| (1.0 - pf).powi(steps as i32);
        for (o, &mass) in run.iter().enumerate() {
            let phase = o as u64 % period;
            if phase > 0 && phase < tau {
                saved += mass * final_survive(c) * phase as f64 * h;
            } else if phase >= tau {
                saved += mass * final_survive(period - phase) * tau as f64 * h;
            }
        }
        saved
    }

    #[test]
    fn agrees_with_a_forward_computation() {
        // Steps of 2 s: M = 2 h, C = 60 s, R = 120 s, D = 30 s, T = 6 h, lead 60 s.
        for (tau, r, d) in [(570u64, 60u64, 15u64), (270, 60, 0), (1170, 0, 0)] {
            let a = Allocation::new(7200.0, 60.0, 2.0 * r as f64, 2.0 * d as f64, 21_600.0, 0.0)
                .unwrap();
            let ours = a.expected_saved_work(2.0 * tau as f64);
            let theirs = forward(7200.0, 30, r, d, tau, 10_770, 2.0);
            assert!(
                (ours / theirs - 1.0).abs() < 3e-4,
                "tau {tau}: {ours} vs {theirs}"
            );
        }
    }

    /// Without a restart or a downtime, a failure's value is `G` at the same point, so the
    /// iteration must run until `F` settles too: it used to stop after two sweeps and give
    /// 9106.39, an explicit step's first-order error. 4.0 million simulated runs
    /// (`simulate periodic --mtbf 2h --cost 600 --walltime 4h --signal-lead 600 --interval
    /// 3000 --work 1000h --runs 4000000 --seed 1`) saved 9128.93 s, standard error 1.06 s; a
    /// grid of 64 times the points agrees within 1e-6.
    #[test]
    fn without_a_restart_the_fewest_points_agree_with_four_million_runs() {
        let a = Allocation::new(7_200.0, 600.0, 0.0, 0.0, 14_400.0, 0.0).unwrap();
        let v = a.expected_saved_work(3_000.0);
        assert!(((v - 9128.93) / 1.06).abs() < 4.0, "{v}");
        let fine = Grid::new(&a, 3_000.0, 64 * MIN_GRID).solve();
        assert!((v / fine - 1.0).abs() < 1e-6, "{v} vs {fine}");
    }

    #[test]
    fn without_failures_the_aligned_schedule_saves_all_but_its_checkpoints() {
        let a = Allocation::new(1e15, 300.0, 0.0, 0.0, 36_000.0, 30.0).unwrap();
        assert_eq!(a.lead(), 330.0);
        for n in [1, 3, 10] {
            let tau = a.aligned_interval(n).unwrap();
            // The last checkpoint ends at T - L + C, inside the allocation.
            let end = n as f64 * (tau + 300.0);
            assert!((end - (36_000.0 - 330.0 + 300.0)).abs() < 1e-6 && end <= 36_000.0);
            let saved = a.expected_saved_work(tau);
            assert!(
                (saved - (end - n as f64 * 300.0)).abs() < 1e-3,
                "{n}: {saved}"
            );
        }
    }

    /// A one-second checkpoint in an 8-day allocation at M = 1 h: steps of 1/64 of an 85-s
    /// period make the accurate grid about 519,000 points, over the search's 500,000, so the
    /// count is searched on the coarser grid. It is the best of its neighbours on the accurate
    /// one, and close to Daly's count.
    #[test]
    fn a_long_allocation_with_cheap_checkpoints_is_searched_on_a_coarser_grid() {
        let (m, c, t) = (3600.0, 1.0, 8.0 * 86_400.0);
        let a = Allocation::new(m, c, 60.0, 0.0, t, 0.0).unwrap();
        let plan = a.optimum().unwrap();
        let accurate = a.signal() / ((plan.interval + c) / STEPS_PER_PERIOD);
        assert!(accurate > SEARCH_GRID as f64 && accurate < 1.1 * SEARCH_GRID as f64);
        for n in (plan.checkpoints - 4)..=(plan.checkpoints + 4) {
            let tau = a.aligned_interval(n).unwrap();
            assert!(
                a.expected_saved_work(tau) <= plan.expected_saved_work,
                "n = {n} beats {}",
                plan.checkpoints
            );
        }
        let daly = t / (exact_optimum(c, m) + c);
        assert!(
            (plan.checkpoints as f64 / daly - 1.0).abs() < 0.02,
            "{daly}"
        );
    }

    #[test]
    fn the_chosen_count_beats_every_other_interval() {
        let a = Allocation::new(3.0 * 3600.0, 120.0, 60.0, 0.0, 12.0 * 3600.0, 0.0).unwrap();
        let plan = a.optimum().unwrap();
        assert_eq!(plan.signal_lead, 120.0);
        assert!(plan.interval + 120.0 <= 12.0 * 3600.0);
        // Brute force over every aligned count.
        for n in 1..300 {
            if let Some(tau) = a.aligned_interval(n) {
                assert!(
                    a.expected_saved_work(tau) <= plan.expected_saved_work + 1e-9,
                    "n = {n}"
                );
            }
        }
        // And over intervals that are not aligned: no better schedule in the policy's family
        // (within the tie of the aligned plan and the grid's accuracy).
        for i in 1..400 {
            let tau = 30.0 * i as f64;
            assert!(
                a.expected_saved_work(tau) <= plan.expected_saved_work * (1.0 + 2e-6),
                "tau = {tau}"
            );
        }
        // Close to, and below, the failure-free bound T - L + C - n C.
        let bound = 12.0 * 3600.0 - plan.checkpoints as f64 * 120.0;
        assert!(plan.expected_saved_work < bound && plan.expected_saved_work > 0.8 * bound);
    }

    /// Where failures make an interval inside a count range better than every aligned one
    /// (M = 3 h, C = 660 s, no restart, T = 24 h: Daly's 3349 s saves 8e-5 more than the best
    /// aligned count, 21 every 3454 s), the plan is that range's best, and no interval on a
    /// 10-s grid near it does better by more than the grid's accuracy (the grid follows the
    /// interval, so the saved work is smooth only to about 1e-7).
    #[test]
    fn an_interval_inside_a_count_range_can_beat_the_aligned_ones() {
        let a = Allocation::new(3.0 * 3600.0, 660.0, 0.0, 0.0, 86_400.0, 0.0).unwrap();
        let plan = a.optimum().unwrap();
        let aligned = a.expected_saved_work(a.aligned_interval(21).unwrap());
        assert!(
            plan.expected_saved_work > aligned * (1.0 + 5e-5),
            "{plan:?}"
        );
        assert_eq!(plan.checkpoints, a.limit.checkpoints(plan.interval));
        for i in 0..200 {
            let tau = 2_800.0 + 10.0 * i as f64;
            assert!(
                a.expected_saved_work(tau) <= plan.expected_saved_work * (1.0 + 1e-6),
                "tau = {tau}: {} > {plan:?}",
                a.expected_saved_work(tau)
            );
        }
    }

    proptest! {
        /// For any sequence that rises to one peak and falls (slopes of either size on
        /// either side, the peak anywhere, the start anywhere), the bracket holds the peak,
        /// within the evaluations its doc promises.
        #[test]
        fn the_bracket_holds_the_peak_of_a_unimodal_sequence(
            ln_max in 0.0f64..40.0, peak_at in 0.0f64..=1.0, start_at in 0.0f64..=1.0,
            rise in 1e-6f64..1e3, fall in 1e-6f64..1e3,
        ) {
            let max_n = ln_max.exp().round().max(1.0) as u64;
            let pick = |x: f64| (1 + (x * (max_n - 1) as f64).round() as u64).min(max_n);
            let (peak, start) = (pick(peak_at), pick(start_at));
            let calls = std::cell::Cell::new(0u32);
            let value = |n: u64| {
                calls.set(calls.get() + 1);
                if n <= peak { rise * n as f64 } else { rise * peak as f64 - fall * (n - peak) as f64 }
            };
            let (lo, hi) = bracket(start, max_n, value);
            prop_assert!(1 <= lo && lo <= peak && peak <= hi && hi <= max_n, "{} {} {}", lo, peak, hi);
            prop_assert!(calls.get() < 80);
        }
    }

    /// The whole-iteration interval is the best multiple of the iteration, by brute force over
    /// every multiple that fits before the signal, and never beats the aligned optimum by more
    /// than the grid's error.
    #[test]
    fn the_whole_iteration_interval_is_the_best_multiple() {
        let a = Allocation::new(6.0 * 3600.0, 300.0, 300.0, 0.0, 86_400.0, 0.0).unwrap();
        let best = a.optimum().unwrap();
        for iteration in [1020.0, 400.0, 97.0, 5000.0] {
            let p = a.in_iterations(best.interval, iteration).unwrap();
            assert_eq!(p.interval, p.iterations as f64 * iteration);
            for k in 1..=(86_100.0 / iteration) as u64 {
                let v = a.expected_saved_work(k as f64 * iteration);
                assert!(v <= p.expected_saved_work, "{iteration}: {k} saves {v}");
            }
            assert!(p.expected_saved_work <= best.expected_saved_work * (1.0 + 1e-6));
        }
        assert!(a.in_iterations(best.interval, 0.0).is_none());
        assert!(a.in_iterations(best.interval, f64::NAN).is_none());
        // An iteration longer than the time to the signal leaves no whole chunk.
        assert!(a.in_iterations(best.interval, 90_000.0).is_none());
    }

    #[test]
    fn bad_input_is_refused() {
        let e = Allocation::new(3600.0, 600.0, 0.0, 0.0, 500.0, 0.0).unwrap_err();
        assert!(e.to_string().contains("walltime = 500"), "{e}");
        assert!(e.to_string().contains("longer than one checkpoint"), "{e}");
        assert!(Allocation::new(3600.0, 600.0, 0.0, 0.0, 600.0, 0.0).is_err());
        assert!(Allocation::new(3600.0, 60.0, 0.0, 0.0, f64::NAN, 0.0).is_err());
        assert!(Allocation::new(3600.0, 60.0, 0.0, 0.0, 3600.0, -1.0).is_err());
        assert!(Allocation::new(3600.0, 70_000.0, 0.0, 0.0, 1e6, 0.0).is_err());
        // A 1 s checkpoint at M = 1 h has a best period near 85.5 s, so steps of 1.34 s: 100
        // days would need 6.5 million of them and are refused, 30 days fit (1.94 million).
        let e = Allocation::new(3600.0, 1.0, 0.0, 0.0, 100.0 * 86_400.0, 0.0).unwrap_err();
        assert!(e.to_string().contains("31,250 times"), "{e}");
        assert!(Allocation::new(3600.0, 1.0, 0.0, 0.0, 30.0 * 86_400.0, 0.0).is_ok());
        let a = Allocation::new(3600.0, 60.0, 0.0, 0.0, 3600.0, 0.0).unwrap();
        assert_eq!(a.expected_saved_work(f64::NAN), 0.0);
        assert_eq!(a.expected_saved_work(-1.0), 0.0);
    }
}

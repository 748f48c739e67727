//! A finite job under renewal failures (`docs/models.md` §13.1): the expected wall time of `W`
//! of work under a chunk sequence run after every restart, with the job's start and end as the
//! job-level simulator runs them, where [`Renewal::overhead_of`] gives the long-run figure.
//!
//! The two differ by the ends of the job. The first life starts at age 0 with no restart, so
//! it carries more work than the others, and the last life stops when the work is done.
//! Wherever the lives vary, this is a few hours in a job of years, far below the spread of the
//! runs. Where they barely vary (a nearly fixed lifetime), runs differ by less than that, and
//! only the finite figure agrees with them.
//!
//! **Rules** (the simulator's, `docs/simulation.md` §1.1). Work and chunks are whole
//! nanoseconds. After every failure the job restarts (`R`, started over by a failure) and runs
//! the list again from `w1`, the last chunk repeating; the job's last chunk is cut to the work
//! left; every chunk, the last included, ends with a checkpoint `C`; a failure at or before the
//! end of a chunk's checkpoint loses the chunk. The failure process renews at every failure.
//!
//! **Recursion.** With `w` the work left after a failure, `m` the chunks it takes,
//! `a_k = R + P_k + k C` the age at which chunk `k` ends (`P_k` the work of the first `k`,
//! `a_m` with the last cut to `w`) and `S` the survival:
//!
//! ```text
//! V(w) S(a_1) = E[min(X, a_m)] + sum_{k=1}^{m-1} (S(a_k) - S(a_{k+1})) V(w - P_k)
//! ```
//!
//! (a life either ends the job at `a_m`, or fails after `k` whole chunks and leaves `w - P_k`;
//! a failure before the first chunk ends, the restart included, changes nothing, which the
//! division by `S(a_1)` sums). The job takes `E[min(X, b_m)] + (1 - S(b_1)) V(W) + sum ...` with
//! the ages `b_k = P_k + k C` of the first life, which has no restart.
//!
//! **States.** Every work left is `W` minus prefix sums that a life can end on. Terms whose
//! probability is zero in double precision are left out, and so are the chunk ends beyond a
//! survival of 1e-18 (what they would add is below that fraction of `V`). A period `tau`
//! leaves `W - j tau`; a list whose ends fall on a few prefix sums (a nearly fixed lifetime)
//! leaves few states. Where the states would pass [`MAX_STATES`] (or, on a lattice,
//! [`MAX_LATTICE_STATES`]) or the terms [`MAX_TERMS`] ([`MAX_TERMS_ONE`] for a list's one
//! figure, [`predict`]) (many different chunks, each a possible end of a life, in a long job),
//! there is no answer (`None`); the long-run figure is then within the spread of the runs.

use super::ModelError;
use super::renewal::Renewal;
use crate::units::{Nanos, ns_to_secs};
use serde::Serialize;
use statrs::function::factorial::ln_binomial;
use std::collections::{HashMap, HashSet};

/// Most states the recursion holds as a set it walks, and most chunk ends a life lists.
pub const MAX_STATES: usize = 1 << 20;
/// Most states it holds on a lattice (`W - j g`): 64 MiB of expected times.
pub const MAX_LATTICE_STATES: usize = 1 << 23;
/// Most states of a lattice beyond [`MAX_STATES`] that need the distribution (two evaluations
/// each): once the work left outlasts every life, a state's life is sure to fail before it
/// finishes the work and its expected length is the mean, so a long job's lattice is mostly
/// cheap.
pub const MAX_EVALUATED: usize = 1 << 22;
/// Most terms the recursion sums over all its states (about a nanosecond each) in
/// [`expected_wall`], which a search calls many times.
pub const MAX_TERMS: u64 = 1 << 27;
/// Most terms for the one figure of a list that [`predict`] gives (about half a second).
pub const MAX_TERMS_ONE: u64 = 1 << 29;
/// Above this many states the recursion finds the age past which a life's expected length is
/// the mean in f64 ([`Ends::far`]; about 120 evaluations of the distribution), and evaluates
/// it no more beyond.
const FAR_FROM: usize = 4096;
/// Chunk ends where the survival is at most this are not followed.
const NEGLIGIBLE: f64 = 1e-18;

/// The ends of the whole chunks of one life, from a start age `s` (`R` after a restart, 0 for
/// the first life).
struct Ends {
    /// `P_k` (ns), `k = 1..=K`.
    work: Vec<u64>,
    /// `S(s + P_k + k C)`, same `k`.
    sf: Vec<f64>,
    /// `S(a_k) - S(a_(k+1))`, the probability that a life ends after exactly `k` whole chunks
    /// when more follow; 0 where it is not positive (such an end is never followed).
    prob: Vec<f64>,
    /// The ends whose `prob` is positive, ascending: the only ones a sum visits (at a nearly
    /// fixed lifetime, one or two of thousands).
    active: Vec<usize>,
    /// The start age (s).
    start: f64,
    /// An age beyond which `E[(X - a)^+]` is below `2^-60` of the mean, so that
    /// `M - E[(X - a)^+]` is `M` in f64 and the recursion need not evaluate it (infinite
    /// where no such age is found).
    far: f64,
}

impl Ends {
    /// The chunk ends below the work `total` up to the first whose survival is negligible;
    /// `None` beyond [`MAX_STATES`] of them.
    fn new(job: &Renewal, chunks: &[u64], total: u64, start: f64) -> Option<Ends> {
        let (life, cost) = (job.life(), job.cost());
        let (mut work, mut sf) = (Vec::new(), Vec::new());
        let mut p: u64 = 0;
        for k in 1.. {
            let w = chunks[(k - 1).min(chunks.len() - 1)];
            p = match p.checked_add(w) {
                Some(p) if p < total => p,
                _ => break,
            };
            if work.len() >= MAX_STATES {
                return None;
            }
            let s = life.sf(start + ns_to_secs(p) + k as f64 * cost);
            work.push(p);
            sf.push(s);
            if s <= NEGLIGIBLE {
                break;
            }
        }
        let prob: Vec<f64> = (0..sf.len())
            .map(|i| (sf[i] - sf.get(i + 1).copied().unwrap_or(0.0)).max(0.0))
            .collect();
        let active = (0..prob.len()).filter(|&i| prob[i] > 0.0).collect();
        Some(Ends {
            work,
            sf,
            prob,
            active,
            start,
            far: f64::INFINITY,
        })
    }

    /// The life that starts with `w` left.
    fn life(&self, job: &Renewal, list: &Prefix, w: u64) -> Life {
        let m = list.segments(w);
        let end = self.start + ns_to_secs(w) + m as f64 * job.cost();
        let life = job.life();
        // Ends `k = 1..=m-2` are whole chunks with more to follow; `k = m-1` is followed by
        // the cut last chunk.
        let listed = self.work.len() as u64;
        let whole = m.saturating_sub(2).min(listed) as usize;
        // The survival at the job's end matters only to a life that may reach it: one chunk,
        // or a last whole chunk among the listed ends (past them the life is sure to fail).
        let reaches = m == 1 || m - 1 <= listed;
        let sf_end = if reaches { life.sf(end) } else { 0.0 };
        let partial = (m >= 2 && m - 1 <= listed).then(|| {
            let i = (m - 2) as usize;
            // Never followed where the whole chunk after it could not end the life either.
            let p = if self.prob[i] > 0.0 {
                (self.sf[i] - sf_end).max(0.0)
            } else {
                0.0
            };
            (i, p)
        });
        let mean = if end >= self.far {
            life.mean()
        } else {
            (life.mean() - life.excess(end)).max(0.0)
        };
        Life {
            mean,
            first_sf: if m == 1 {
                sf_end
            } else {
                self.sf.first().copied().unwrap_or(sf_end)
            },
            whole,
            partial,
        }
    }

    /// The active ends among the whole chunks of `life`.
    fn whole<'a>(&'a self, life: &Life) -> impl Iterator<Item = usize> + 'a {
        let whole = life.whole;
        self.active.iter().copied().take_while(move |&i| i < whole)
    }

    /// Every end a life from `w` can stop on, with its probability and the work it leaves.
    fn each(&self, life: &Life, w: u64, mut f: impl FnMut(f64, u64)) {
        let ends = self.whole(life).map(|i| (i, self.prob[i]));
        for (i, p) in ends.chain(life.partial) {
            if p > 0.0 {
                f(p, w - self.work[i]);
            }
        }
    }

    /// The work a life can stop on, as offsets from the work left (ns), ascending.
    fn offsets(&self) -> impl Iterator<Item = u64> + '_ {
        self.active.iter().map(|&i| self.work[i])
    }
}

/// What one life from a state is expected to cost, and where it can stop.
struct Life {
    /// `E[min(X, a_m)]` (s).
    mean: f64,
    /// `S(a_1)`: the probability that it gets past its first chunk.
    first_sf: f64,
    /// Ends `0..whole` (as indices into [`Ends`]) are whole chunks with more to follow.
    whole: usize,
    /// The end before the cut last chunk, with its probability.
    partial: Option<(usize, f64)>,
}

/// The chunk list's own prefix sums, for the number of chunks any work takes.
struct Prefix {
    sums: Vec<u64>,
    last: u64,
}

impl Prefix {
    fn new(chunks: &[u64]) -> Prefix {
        let mut p: u64 = 0;
        let sums = chunks
            .iter()
            .map(|&c| {
                p = p.saturating_add(c);
                p
            })
            .collect();
        Prefix {
            sums,
            last: chunks[chunks.len() - 1],
        }
    }

    /// `m(w)`: the chunks a life that starts with `w` left runs to finish it.
    fn segments(&self, w: u64) -> u64 {
        let listed = self.sums.len() as u64;
        let total = self.sums[self.sums.len() - 1];
        if w <= total {
            self.sums.partition_point(|&p| p < w) as u64 + 1
        } else {
            listed + (w - total).div_ceil(self.last)
        }
    }
}

/// An age beyond which `E[(X - a)^+] < 2^-60 M` ([`Ends::far`]): doubling from the mean,
/// then bisection; infinite where the tail is too heavy for f64 ages to get there. Past it
/// `M - E[(X - a)^+]` rounds to `M` (below half its last place, with a margin of 64 for the
/// rounding of the tail itself), so skipping the evaluation changes no bit.
fn far_age(job: &Renewal) -> f64 {
    let life = job.life();
    let tiny = life.mean() * (-60.0f64).exp2();
    let small = |a: f64| life.excess(a) < tiny;
    let mut hi = life.mean();
    let mut lo = 0.0;
    while !small(hi) {
        lo = hi;
        hi *= 2.0;
        if !hi.is_finite() {
            return f64::INFINITY;
        }
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if small(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The states of the recursion, ascending, with a way to find each one's index.
enum States {
    /// `lowest + j g` for `j = 0..count`.
    Lattice {
        lowest: u64,
        step: u64,
        count: usize,
    },
    /// Any set, found by lookup.
    Sparse {
        values: Vec<u64>,
        index: HashMap<u64, usize>,
    },
}

impl States {
    fn len(&self) -> usize {
        match self {
            States::Lattice { count, .. } => *count,
            States::Sparse { values, .. } => values.len(),
        }
    }

    fn value(&self, i: usize) -> u64 {
        match self {
            States::Lattice { lowest, step, .. } => lowest + i as u64 * step,
            States::Sparse { values, .. } => values[i],
        }
    }

    fn index(&self, w: u64) -> Option<usize> {
        match self {
            States::Lattice {
                lowest,
                step,
                count,
            } => {
                let d = w.checked_sub(*lowest)?;
                (d % step == 0 && d / step < *count as u64).then_some((d / step) as usize)
            }
            States::Sparse { index, .. } => index.get(&w).copied(),
        }
    }
}

/// The states from `work`: the lattice of the offsets' greatest common divisor where it is
/// small enough, else the set a depth-first walk reaches where that is small enough; `None`
/// beyond the bounds. `far` gives [`far_age`], which a long lattice needs (and the recursion
/// over it after).
fn states(
    job: &Renewal,
    list: &Prefix,
    (first, after): (&Ends, &Ends),
    work: u64,
    max_terms: u64,
    far: &dyn Fn() -> f64,
) -> Option<States> {
    let offsets: Vec<u64> = after.offsets().collect();
    let g = first.offsets().chain(offsets.iter().copied()).fold(0, gcd);
    if g == 0 {
        // No life after a restart can end on a chunk: the only state is the whole job.
        return Some(States::Lattice {
            lowest: work,
            step: 1,
            count: 1,
        });
    }
    let count = (work - 1) / g + 1;
    let lowest = work - (count - 1) * g;
    let lattice = || {
        // A state sums one term per offset below it.
        let terms: u64 = (0..count)
            .map(|j| offsets.partition_point(|&p| p < lowest + j * g) as u64)
            .sum();
        (terms <= max_terms).then_some(States::Lattice {
            lowest,
            step: g,
            count: count as usize,
        })
    };
    if count <= MAX_STATES as u64 {
        return lattice();
    }
    // A walk finds few states where lives end on few sums (a nearly fixed lifetime); failing
    // that, a long lattice: its states past every life's end cost no evaluation of the
    // distribution, and at most MAX_EVALUATED of the others are taken.
    walked(job, list, (first, after), work, &offsets, max_terms).or_else(|| {
        let reach = far() - job.restart();
        let evaluated = if reach * 1e9 < (work - lowest) as f64 {
            (reach * 1e9 / g as f64).ceil() as u64 + 1
        } else {
            count
        };
        (count <= MAX_LATTICE_STATES as u64 && evaluated <= MAX_EVALUATED as u64)
            .then(lattice)
            .flatten()
    })
}

/// The states a depth-first walk reaches from `work`, where the bound on them and the walk
/// stay within [`MAX_STATES`] and `max_terms`.
fn walked(
    job: &Renewal,
    list: &Prefix,
    (first, after): (&Ends, &Ends),
    work: u64,
    offsets: &[u64],
    max_terms: u64,
) -> Option<States> {
    // Sums of at most `lives` offsets out of `offsets.len()`, after any first life: an upper
    // bound on the states, checked before walking them.
    // `C(lives + k, k)` multisets of at most `lives` ends out of `k` offsets.
    let smallest = offsets.iter().copied().min().unwrap_or(work).max(1);
    let (lives, k) = (work / smallest, offsets.len() as u64);
    let bound =
        ln_binomial(lives.saturating_add(k), k) + ((first.offsets().count() + 1) as f64).ln();
    if bound > (MAX_STATES as f64).ln() {
        return None;
    }
    let mut seen: HashSet<u64> = HashSet::from([work]);
    let mut stack = vec![work];
    let mut terms: u64 = 0;
    first.each(&first.life(job, list, work), work, |_, next| {
        if seen.insert(next) {
            stack.push(next);
        }
    });
    while let Some(w) = stack.pop() {
        after.each(&after.life(job, list, w), w, |_, next| {
            terms += 1;
            if seen.insert(next) {
                stack.push(next);
            }
        });
        if seen.len() > MAX_STATES || terms > max_terms {
            return None;
        }
    }
    let mut values: Vec<u64> = seen.into_iter().collect();
    values.sort_unstable();
    let index = values.iter().enumerate().map(|(i, &w)| (w, i)).collect();
    Some(States::Sparse { values, index })
}

/// The expected wall time (s) of a job of `work` ns under the chunk list `chunks` (ns, the
/// last repeating) from a fresh start, as the module's rules say; `Ok(None)` where the states
/// pass [`MAX_STATES`] (a set that is walked) or [`MAX_LATTICE_STATES`] (a lattice), or the
/// terms [`MAX_TERMS`].
///
/// ```
/// use ckpt::failure::Lifetime;
/// use ckpt::model::finite_renewal::expected_wall;
/// use ckpt::model::renewal::Renewal;
/// // Exponential failures: each segment of `T = w + C` takes `M e^(R/M) (e^(T/M) - 1)`
/// // whatever came before, so 2.5 chunks of 1 h take 2 full segments and a half one.
/// let (m, c, r) = (86400.0_f64, 300.0, 600.0);
/// let job = Renewal::new(Lifetime::exponential(m).unwrap(), c, r).unwrap();
/// let h = 3_600_000_000_000;
/// let wall = expected_wall(&job, &[h], 5 * h / 2).unwrap().unwrap();
/// let seg = |t: f64| m * (r / m).exp() * (t / m).exp_m1();
/// let exact = 2.0 * seg(3600.0 + c) + seg(1800.0 + c);
/// assert!((wall / exact - 1.0).abs() < 1e-12);
/// ```
pub fn expected_wall(job: &Renewal, chunks: &[u64], work: u64) -> Result<Option<f64>, ModelError> {
    wall_within(job, chunks, work, MAX_TERMS)
}

/// [`expected_wall`] with at most `max_terms` terms.
fn wall_within(
    job: &Renewal,
    chunks: &[u64],
    work: u64,
    max_terms: u64,
) -> Result<Option<f64>, ModelError> {
    if chunks.is_empty() {
        return Err(ModelError::EmptySchedule);
    }
    if let Some(i) = chunks.iter().position(|&c| c == 0) {
        return Err(ModelError::Chunk {
            index: i + 1,
            value: 0.0,
        });
    }
    if work == 0 {
        return Err(ModelError::Parameter {
            name: "work",
            value: 0.0,
            accepted: "at least 1 ns",
        });
    }
    let list = Prefix::new(chunks);
    let (Some(first), Some(mut after)) = (
        Ends::new(job, chunks, work, 0.0),
        Ends::new(job, chunks, work, job.restart()),
    ) else {
        return Ok(None);
    };
    // Found at most once: by a long lattice's bound, or for the recursion below.
    let far = std::cell::OnceCell::new();
    let far_of = || *far.get_or_init(|| far_age(job));
    let Some(states) = states(job, &list, (&first, &after), work, max_terms, &far_of) else {
        return Ok(None);
    };
    if states.len() > FAR_FROM {
        after.far = far_of();
    }
    let no_progress = ModelError::NoProgress {
        what: "finite renewal job",
    };
    let mut v = vec![0.0f64; states.len()];
    // Every state a life leaves is among the states, below the one it leaves.
    let mut missing = false;
    // On a lattice, the active end `k` leaves the state `P_k / g` steps down.
    let steps: Vec<usize> = match &states {
        States::Lattice { step, .. } => after.work.iter().map(|&w| (w / step) as usize).collect(),
        States::Sparse { .. } => Vec::new(),
    };
    for i in 0..states.len() {
        let w = states.value(i);
        let life = after.life(job, &list, w);
        let mut sum = 0.0;
        match &states {
            States::Lattice { .. } => {
                for k in after.whole(&life) {
                    sum += after.prob[k] * v[i - steps[k]];
                }
                if let Some((k, p)) = life.partial.filter(|&(_, p)| p > 0.0) {
                    sum += p * v[i - steps[k]];
                }
            }
            States::Sparse { .. } => after.each(&life, w, |p, next| match states.index(next) {
                Some(j) => sum += p * v[j],
                None => missing = true,
            }),
        }
        if life.first_sf <= 0.0 {
            return Err(no_progress);
        }
        v[i] = (life.mean + sum) / life.first_sf;
        if !v[i].is_finite() {
            return Err(no_progress);
        }
    }
    let mut sum = 0.0;
    let life = first.life(job, &list, work);
    first.each(&life, work, |p, next| match states.index(next) {
        Some(j) => sum += p * v[j],
        None => missing = true,
    });
    let top = states.index(work);
    let (Some(top), false) = (top, missing) else {
        debug_assert!(false, "a state left by a life is not among the states");
        return Ok(None);
    };
    let wall = life.mean + (1.0 - life.first_sf) * v[top] + sum;
    if wall.is_finite() {
        Ok(Some(wall))
    } else {
        Err(no_progress)
    }
}

/// Which figure of the model stands for a finite job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredictionKind {
    /// The job's own expected wall time over its work ([`expected_wall`]).
    FiniteJob,
    /// The long-run overhead, where the finite job has more states than the model follows.
    LongRun,
}

/// What the model predicts for one chunk list over a finite job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    /// The finite job's expected overhead (wall time over work) where it is computed, else the
    /// long-run one (`None` beyond f64 range).
    pub overhead: Option<f64>,
    /// Which of the two `overhead` is.
    pub kind: PredictionKind,
    /// The long-run overhead of the chunks.
    pub long_run: Option<f64>,
}

/// The expected overhead of a job of `work` ns under `chunks` (ns, the last repeating) from a
/// fresh start: [`expected_wall`] over the work where it answers (with up to [`MAX_TERMS_ONE`]
/// terms: one figure, not a search's many), else the long-run overhead
/// of the chunks ([`Renewal::overhead_of`]), which is then within the spread of such jobs
/// (the module's rules). An input [`expected_wall`] refuses also gives the long-run figure,
/// or none.
///
/// ```
/// use ckpt::failure::{Lifetime, Shape};
/// use ckpt::model::finite_renewal::{PredictionKind, predict};
/// use ckpt::model::renewal::Renewal;
/// let life = Lifetime::new(Shape::Weibull { shape: 0.7 }, 86400.0).unwrap();
/// let job = Renewal::new(life, 600.0, 600.0).unwrap();
/// // Ten days of work in chunks of 10000 s: 87 lattice states.
/// let p = predict(&job, &[10_000_000_000_000], 864_000_000_000_000);
/// assert_eq!(p.kind, PredictionKind::FiniteJob);
/// let (finite, long_run) = (p.overhead.unwrap(), p.long_run.unwrap());
/// assert!(finite > 1.0 && (finite / long_run - 1.0).abs() < 0.01);
/// ```
pub fn predict(job: &Renewal, chunks: &[Nanos], work: Nanos) -> Prediction {
    let chunks_s: Vec<f64> = chunks.iter().map(|&c| ns_to_secs(c)).collect();
    let long_run = job.overhead_of(&chunks_s).ok();
    match wall_within(job, chunks, work, MAX_TERMS_ONE) {
        Ok(Some(wall)) => Prediction {
            overhead: Some(wall / ns_to_secs(work)),
            kind: PredictionKind::FiniteJob,
            long_run,
        },
        _ => Prediction {
            overhead: long_run,
            kind: PredictionKind::LongRun,
            long_run,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::{Lifetime, Shape};
    use crate::sim::periodic::{Failures, PeriodicConfig, ScheduleConfig};
    use crate::sim::run::Scenario;
    use crate::sim::stats::Estimate;
    use proptest::prelude::*;

    const S: u64 = 1_000_000_000;

    fn job(shape: Shape, m: f64, c: f64, r: f64) -> Renewal {
        Renewal::new(Lifetime::new(shape, m).unwrap(), c, r).unwrap()
    }

    /// The job with every life exactly `life` long, run chunk by chunk: a second way to the
    /// wall time where the lifetime barely varies.
    fn fixed_life_wall(life: f64, chunks: &[f64], work: f64, c: f64, r: f64) -> f64 {
        let (mut wall, mut left, mut start) = (0.0, work, 0.0);
        loop {
            let mut age = start;
            let mut k = 0;
            loop {
                let w = chunks[k.min(chunks.len() - 1)].min(left);
                if age + w + c >= life {
                    break;
                }
                age += w + c;
                left -= w;
                k += 1;
                if left == 0.0 {
                    return wall + age;
                }
            }
            wall += life;
            start = r;
        }
    }

    #[test]
    fn a_nearly_fixed_lifetime_gives_the_fixed_lifes_wall_time() {
        // Weibull K = 10^6: every life is within 1e-5 of the mean, 86400 s, and the chunk
        // ends below are at least 400 s from it.
        let (m, c, r) = (86400.0, 600.0, 600.0);
        let j = job(Shape::Weibull { shape: 1e6 }, m, c, r);
        for (chunks, work) in [
            (vec![10_000.0], 1e6),
            (vec![10_000.0], 987_654.0),
            (vec![40_000.0, 20_000.0, 5_000.0], 2e6),
            (vec![30_000.0, 7_000.0], 555_555.0),
        ] {
            let ns: Vec<u64> = chunks.iter().map(|&w| (w * 1e9) as u64).collect();
            let got = expected_wall(&j, &ns, (work * 1e9) as u64)
                .unwrap()
                .unwrap();
            let want = fixed_life_wall(m, &chunks, work, c, r);
            assert!(
                (got / want - 1.0).abs() < 1e-9,
                "{chunks:?}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn exponential_failures_give_each_segment_dalys_term() {
        // Memoryless failures: one segment of `T = w + C` takes `M e^(R/M) (e^(T/M) - 1)`
        // whatever came before it, and a period cuts the work into the same segments however
        // the failures fall.
        let (m, c, r) = (7200.0, 120.0, 300.0);
        let j = Renewal::new(Lifetime::exponential(m).unwrap(), c, r).unwrap();
        let seg = |t: f64| m * (r / m).exp() * (t / m).exp_m1();
        let (tau, work) = (1500 * S, 40_000 * S + 123);
        let whole = work / tau;
        let part = (work % tau) as f64 / 1e9;
        let want = whole as f64 * seg(1500.0 + c) + seg(part + c);
        let got = expected_wall(&j, &[tau], work).unwrap().unwrap();
        assert!((got / want - 1.0).abs() < 1e-12, "{got} vs {want}");
        // A lattice past MAX_STATES (1.2 million segments of 1 s under a 2 s MTBF): the
        // walk's bound refuses it, and the lattice's states past every life's end (beyond
        // 84 s of work here) take the mean without evaluating the distribution.
        let (m, c, r) = (2.0, 0.1, 0.2);
        let j = Renewal::new(Lifetime::exponential(m).unwrap(), c, r).unwrap();
        let seg = |t: f64| m * (r / m).exp() * (t / m).exp_m1();
        let (tau, work) = (S, 1_200_000 * S);
        assert!(work / tau > MAX_STATES as u64);
        let want = 1_200_000.0 * seg(1.0 + c);
        let got = expected_wall(&j, &[tau], work).unwrap().unwrap();
        assert!((got / want - 1.0).abs() < 1e-10, "{got} vs {want}");
    }

    #[test]
    fn bad_lists_are_refused_and_long_varied_jobs_have_no_answer() {
        let j = job(Shape::Weibull { shape: 0.7 }, 86400.0, 600.0, 600.0);
        assert_eq!(expected_wall(&j, &[], S), Err(ModelError::EmptySchedule));
        assert!(matches!(
            expected_wall(&j, &[S, 0], S),
            Err(ModelError::Chunk { index: 2, .. })
        ));
        assert!(expected_wall(&j, &[S], 0).is_err());
        // Many different chunks, each a likely end of a life, over a thousand lives.
        let list: Vec<u64> = (0..40).map(|i| (7000 + 150 * i) * S + i).collect();
        assert_eq!(expected_wall(&j, &list, 86_400_000 * S), Ok(None));
    }

    /// `runs` simulated wall times of the job (s), the simulator's own estimate.
    fn simulated(j: &Renewal, chunks: &[u64], work: u64, runs: u64) -> Estimate {
        let cfg = ScheduleConfig {
            base: PeriodicConfig {
                work,
                interval: chunks[0],
                cost: (j.cost() * 1e9) as u64,
                restart: (j.restart() * 1e9) as u64,
                failures: Failures::Platform(j.life()),
                final_checkpoint: true,
                walltime: None,
                asynchronous: None,
                signal_lead: None,
            },
            chunks: chunks.to_vec(),
        };
        let walls: Vec<f64> = (0..runs)
            .map(|i| cfg.run(7, i).unwrap().wall as f64 / 1e9)
            .collect();
        Estimate::from_samples(&walls)
    }

    #[test]
    fn the_simulator_agrees_where_the_long_run_figure_does_not() {
        // Weibull K = 10^4: the runs barely differ, and the long-run overhead of Young's
        // period misses them by the first life's extra chunk (a lattice of states).
        let j = job(Shape::Weibull { shape: 1e4 }, 86400.0, 600.0, 600.0);
        let work = 3_000_000 * S;
        let young = [((2.0f64 * 600.0 * 86400.0).sqrt() * 1e9) as u64];
        let e = simulated(&j, &young, work, 200);
        let finite = expected_wall(&j, &young, work).unwrap().unwrap();
        let z = (finite - e.point) / e.stderr.unwrap();
        assert!(z.abs() < 4.0, "finite {finite} vs {e:?}: z {z}");
        let long_run = j.overhead_of(&[young[0] as f64 / 1e9]).unwrap() * work as f64 / 1e9;
        let z = (long_run - e.point) / e.stderr.unwrap();
        assert!(z.abs() > 4.0, "long-run {long_run} vs {e:?}: z {z}");
        // The third chunk after a restart ends at the mean life, so lives end after two or
        // three chunks: offsets with no common step but 1 ns, a sparse set of states.
        let list = [80_000 * S + 7, 2_000 * S + 1];
        let path = |chunks: &[u64]| {
            let ends = |start| Ends::new(&j, chunks, work, start).unwrap();
            states(
                &j,
                &Prefix::new(chunks),
                (&ends(0.0), &ends(600.0)),
                work,
                MAX_TERMS,
                &|| far_age(&j),
            )
            .unwrap()
        };
        assert!(matches!(path(&young), States::Lattice { .. }));
        assert!(matches!(path(&list), States::Sparse { .. }));
        let e = simulated(&j, &list, work, 200);
        let finite = expected_wall(&j, &list, work).unwrap().unwrap();
        let z = (finite - e.point) / e.stderr.unwrap();
        assert!(z.abs() < 4.0, "finite {finite} vs {e:?}: z {z}");
    }

    #[test]
    fn the_simulator_agrees_where_lives_vary() {
        // Weibull 1.5, a job of 30 MTBFs, where the ends of the job are a visible share.
        let j = job(Shape::Weibull { shape: 1.5 }, 3600.0, 60.0, 120.0);
        let (tau, work) = (700 * S, 108_000 * S);
        let e = simulated(&j, &[tau], work, 400);
        let finite = expected_wall(&j, &[tau], work).unwrap().unwrap();
        let z = (finite - e.point) / e.stderr.unwrap();
        assert!(z.abs() < 4.0, "finite {finite} vs {e:?}: z {z}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn a_period_under_exponential_failures_is_the_sum_of_its_segments(
            m in 600.0f64..1e6,
            c in 1.0f64..3600.0,
            r in 0.0f64..3600.0,
            tau in 60u64..86_400,
            segments in 1u64..400,
            part in 0u64..1_000_000_000,
        ) {
            let j = Renewal::new(Lifetime::exponential(m).unwrap(), c, r).unwrap();
            let seg = |t: f64| m * (r / m).exp() * (t / m).exp_m1();
            let work = (segments - 1) * tau * S + part.max(1);
            let (whole, rest) = (work / (tau * S), work % (tau * S));
            let want = whole as f64 * seg(tau as f64 + c)
                + if rest > 0 { seg(rest as f64 / 1e9 + c) } else { 0.0 };
            let got = expected_wall(&j, &[tau * S], work).unwrap().unwrap();
            prop_assert!((got / want - 1.0).abs() < 1e-10, "{} vs {}", got, want);
        }
    }
}

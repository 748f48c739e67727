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
use crate::failure::Cut;
use crate::units::{NS_PER_S, Nanos, chunk_ns, ns_to_secs, whole_seconds};
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
    /// With the spread ([`Ends::with_moments`]).
    moments: Option<Moments>,
}

/// The age (s) at which a life from age `start` ends `chunks` chunks of `work` ns in all,
/// each with its checkpoint of `cost` s: `a_k = start + P_k + k C`.
fn end_age(start: f64, work: u64, chunks: f64, cost: f64) -> f64 {
    start + ns_to_secs(work) + chunks * cost
}

/// The partial moments `[P, E[X; .], E[X^2; .]]` of the lifetime that the spread of every
/// state from one start age shares.
struct Moments {
    /// Over `(a_k, a_(k+1)]` for each listed end (the last one's beyond it).
    between: Vec<[f64; 3]>,
    /// Over `(0, a_1]`.
    before: [f64; 3],
    /// Each listed end's cut, for the interval from it to a state's end.
    cuts: Vec<Cut>,
}

/// `E[(X + c)^2; X in I]` from the partial moments `[P, E[X; I], E[X^2; I]]`.
fn square([m0, m1, m2]: [f64; 3], c: f64) -> f64 {
    (m2 + 2.0 * c * m1 + c * c * m0).max(0.0)
}

/// Running sums over the whole ends `k` of one life, for its spread, centred on a value `r`
/// known before the life's own mean `mu`: with `e_k = V_k - r`, `a = sum E[(X + e_k)^2; I_k]`,
/// `b = sum E[X + e_k; I_k]`, `c = sum P(I_k)`, so that with `d = mu - r` the centred sum
/// `sum E[(X + V_k - mu)^2; I_k]` is `a - 2 d b + d^2 c`. Summed state by state, `r` is `mu`
/// itself; on a lattice's blocks ([`Pass::lattice`]) it is the state below the block, at most
/// 512 steps' worth of wall time from `mu` (small against the terms, so that the correction
/// costs no digits), which lets the mean's sums and the spread's share one pass over the ends.
struct Tally {
    r: f64,
    a: f64,
    b: f64,
    c: f64,
    /// `sum P_k U_k`.
    pu: f64,
}

impl Tally {
    fn new(r: f64) -> Tally {
        Tally {
            r,
            a: 0.0,
            b: 0.0,
            c: 0.0,
            pu: 0.0,
        }
    }

    /// Adds the end with partial moments `m`, probability `p`, and `(V, U)` from its state.
    #[inline]
    fn add(&mut self, [m0, m1, m2]: [f64; 3], p: f64, (v, u): (f64, f64)) {
        let e = v - self.r;
        self.a += m2 + 2.0 * e * m1 + e * e * m0;
        self.b += m1 + e * m0;
        self.c += m0;
        self.pu += p * u;
    }

    /// `sum E[(X + V_k - mu)^2; I_k]`.
    fn centred(&self, mu: f64) -> f64 {
        let d = mu - self.r;
        (self.a - 2.0 * d * self.b + d * d * self.c).max(0.0)
    }
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
            let s = life.sf(end_age(start, p, k as f64, cost));
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
            moments: None,
        })
    }

    /// The age at which end `i` (`k = i + 1` whole chunks) falls.
    fn age(&self, job: &Renewal, i: usize) -> f64 {
        end_age(self.start, self.work[i], (i + 1) as f64, job.cost())
    }

    /// Adds the partial moments of the lifetime between the listed ends, which the spread
    /// of every state shares, and each end's cut for the intervals from it to a state's end.
    fn with_moments(&mut self, job: &Renewal) {
        let life = job.life();
        let n = self.work.len();
        let cuts: Vec<Cut> = (0..n).map(|i| life.cut(self.age(job, i))).collect();
        let between = (0..n)
            .map(|i| {
                let next = if i + 1 < n {
                    self.age(job, i + 1)
                } else {
                    f64::INFINITY
                };
                life.moments_from(&cuts[i], next)
            })
            .collect();
        let before = match n {
            0 => [0.0; 3],
            _ => life.moments_between(0.0, self.age(job, 0)),
        };
        self.moments = Some(Moments {
            between,
            before,
            cuts,
        });
    }

    /// The life that starts with `w` left.
    fn life(&self, job: &Renewal, list: &Prefix, w: u64) -> Life {
        let m = list.segments(w);
        let end = end_age(self.start, w, m as f64, job.cost());
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
            end,
            sf_end,
            chunks: m,
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

    /// The sums over the whole ends of `life` that its spread needs, centred on `r`, with
    /// `value(k)` the expected wall time and variance from the state end `k` leaves. `None`
    /// where a state is missing or the moments were not added.
    fn tally(
        &self,
        life: &Life,
        r: f64,
        mut value: impl FnMut(usize) -> Option<(f64, f64)>,
    ) -> Option<Tally> {
        let between = &self.moments.as_ref()?.between;
        let mut t = Tally::new(r);
        for i in self.whole(life) {
            t.add(between[i], self.prob[i], value(i)?);
        }
        Some(t)
    }

    /// The spread a life adds (`docs/models.md` §13.3): with `mu` the expected wall time from
    /// its start, `again` the expected wall time from the state a failure before the first
    /// chunk leaves, `whole` the sums over its whole ends ([`Ends::tally`]) and `partial` the
    /// expected wall time and variance from the state its cut last chunk's end leaves,
    /// `(sum of P U(next) over the ends past the first chunk, E[(L + V(next) - mu)^2])` with
    /// `L` the life's length. `None` where the moments were not added or `partial` is missing.
    fn spread(
        &self,
        job: &Renewal,
        life: &Life,
        (mu, again): (f64, f64),
        whole: &Tally,
        partial: Option<(f64, f64)>,
    ) -> Option<(f64, f64)> {
        let Moments { before, cuts, .. } = self.moments.as_ref()?;
        let life_x = job.life();
        let first = if life.chunks == 1 {
            life_x.moments_between(0.0, life.end)
        } else {
            *before
        };
        let mut d = square(first, again - mu) + whole.centred(mu);
        let mut pu = whole.pu;
        if let Some((i, p)) = life.partial.filter(|&(_, p)| p > 0.0) {
            let (v, u) = partial?;
            d += square(life_x.moments_from(&cuts[i], life.end), v - mu);
            pu += p * u;
        }
        d += (life.end - mu).powi(2) * life.sf_end;
        Some((pu, d))
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
    /// `a_m`, the age at which it ends the job (s).
    end: f64,
    /// `S(a_m)` where the life can reach it, else 0.
    sf_end: f64,
    /// `m`, the chunks it runs to end the job.
    chunks: u64,
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
        let terms = lattice_terms(&offsets, lowest, g, count);
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
        let evaluated = if reach * NS_PER_S < (work - lowest) as f64 {
            (reach * NS_PER_S / g as f64).ceil() as u64 + 1
        } else {
            count
        };
        (count <= MAX_LATTICE_STATES as u64 && evaluated <= MAX_EVALUATED as u64)
            .then(lattice)
            .flatten()
    })
}

/// The terms of a lattice of `count` states `lowest + j g`: each state sums one per offset
/// below it. An offset `p` counts once for every state above it, so the sum over the offsets
/// needs no pass over the states (millions, on a fine grid).
fn lattice_terms(offsets: &[u64], lowest: u64, g: u64, count: u64) -> u64 {
    offsets
        .iter()
        .map(|&p| match p.checked_sub(lowest) {
            None => count,
            Some(d) => count.saturating_sub(d / g + 1),
        })
        .fold(0, u64::saturating_add)
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
    Ok(wall_within(job, chunks, work, MAX_TERMS, false)?.map(|w| w.mean))
}

/// The expected wall time of a finite job and its variance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallMoments {
    /// `E[T]` (s).
    pub mean: f64,
    /// `Var T` (s²).
    pub variance: f64,
}

/// The expected wall time (s) of a job of `work` ns under `chunks` and its variance
/// (`docs/models.md` §13.3), by the recursion of [`expected_wall`] and the law of total
/// variance over each life; `Ok(None)` where [`expected_wall`] has none.
///
/// ```
/// use ckpt::failure::Lifetime;
/// use ckpt::model::finite_renewal::wall_moments;
/// use ckpt::model::renewal::Renewal;
/// // Under exponential failures a period's segments are independent: the variance of the job
/// // is the sum of theirs, here two equal segments of 1 h and a checkpoint.
/// let (m, c) = (86400.0_f64, 300.0);
/// let job = Renewal::new(Lifetime::exponential(m).unwrap(), c, 0.0).unwrap();
/// let h = 3_600_000_000_000;
/// let w = wall_moments(&job, &[h], 2 * h).unwrap().unwrap();
/// // One segment of `t`: `t` plus N failures, N geometric with mean e^(t/M) - 1, each
/// // costing a lifetime cut below `t`.
/// let x = (3600.0 + c) / m;
/// let (n1, vn) = (x.exp_m1(), x.exp() * x.exp_m1());
/// let mean_x = m * (1.0 - x / x.exp_m1());
/// let var_x = m * m * (1.0 - x * x * x.exp() / x.exp_m1().powi(2));
/// let segment = n1 * var_x + vn * mean_x * mean_x;
/// assert!((w.variance / (2.0 * segment) - 1.0).abs() < 1e-9);
/// ```
pub fn wall_moments(
    job: &Renewal,
    chunks: &[u64],
    work: u64,
) -> Result<Option<WallMoments>, ModelError> {
    Ok(
        wall_within(job, chunks, work, MAX_TERMS_ONE, true)?.and_then(|w| {
            w.variance.map(|variance| WallMoments {
                mean: w.mean,
                variance,
            })
        }),
    )
}

/// The recursion's answer: the mean, and with the spread asked for, the variance.
struct Wall {
    mean: f64,
    variance: Option<f64>,
}

const NO_PROGRESS: ModelError = ModelError::NoProgress {
    what: "finite renewal job",
};

/// Most states of a lattice summed together (a bound on the buffers of [`Pass::lattice`]).
const BLOCK: usize = 512;
/// Fewer states than this together are summed one state at a time.
const MIN_BLOCK: usize = 16;

/// The recursion over the states of one job below its first life: `V` (and `U`) from each
/// state, lowest first.
struct Pass<'a> {
    job: &'a Renewal,
    list: &'a Prefix,
    /// The ends of a life after a restart.
    ends: &'a Ends,
    states: &'a States,
    spread: bool,
}

impl Pass<'_> {
    /// Fills `v` (and `u` with the spread) on a lattice of `step`; `Ok(true)` where a state
    /// a life leaves is missing. Every end leaves a state at least `P_1 / g` steps below:
    /// the states of a block no longer than that depend on none of one another, so each
    /// end's terms are added across the block in one contiguous pass, and every state's sum
    /// still takes its terms in the order of the ends (the figures are those of a state by
    /// state loop, bit for bit). The spread's sums are centred on the state below the block.
    fn lattice(&self, step: u64, v: &mut [f64], u: &mut [f64]) -> Result<bool, ModelError> {
        let ends = self.ends;
        let steps: Vec<usize> = ends.work.iter().map(|&w| (w / step) as usize).collect();
        let block = steps.first().map_or(BLOCK, |&s| s.min(BLOCK));
        if block < MIN_BLOCK {
            // A period's lattice (one step a chunk): state by state, indexed.
            return self.by_state(v, u, |i, _, k| i.checked_sub(steps[k]));
        }
        let moments = ends.moments.as_ref().filter(|_| self.spread);
        let mut lives = Vec::with_capacity(block);
        // The active ends among each state's whole chunks, which never fall as the work
        // left grows.
        let mut count = Vec::with_capacity(block);
        let mut sum = vec![0.0f64; block];
        let width = if moments.is_some() { block } else { 0 };
        let (mut a, mut b, mut c, mut pu) = (
            vec![0.0f64; width],
            vec![0.0f64; width],
            vec![0.0f64; width],
            vec![0.0f64; width],
        );
        let mut start = 0;
        while start < v.len() {
            let end = (start + block).min(v.len());
            let len = end - start;
            lives.clear();
            count.clear();
            for i in start..end {
                let life = ends.life(self.job, self.list, self.states.value(i));
                count.push(ends.active.partition_point(|&k| k < life.whole));
                lives.push(life);
            }
            debug_assert!(count.windows(2).all(|w| w[0] <= w[1]));
            sum[..len].fill(0.0);
            let r = if start > 0 { v[start - 1] } else { 0.0 };
            if moments.is_some() {
                for x in [&mut a, &mut b, &mut c, &mut pu] {
                    x[..len].fill(0.0);
                }
            }
            // The states from `lo` on take end `k`.
            let mut lo = 0;
            for (n, &k) in ends.active.iter().enumerate() {
                while lo < len && count[lo] <= n {
                    lo += 1;
                }
                if lo == len {
                    break;
                }
                let Some(from) = (start + lo).checked_sub(steps[k]) else {
                    return Ok(true);
                };
                let p = ends.prob[k];
                let below = &v[from..from + len - lo];
                for (acc, &vj) in sum[lo..len].iter_mut().zip(below) {
                    *acc += p * vj;
                }
                if let Some(m) = moments {
                    // Tally::add, one state of the block per lane.
                    let [m0, m1, m2] = m.between[k];
                    let under = &u[from..from + len - lo];
                    for x in 0..len - lo {
                        let e = below[x] - r;
                        a[lo + x] += m2 + 2.0 * e * m1 + e * e * m0;
                        b[lo + x] += m1 + e * m0;
                        c[lo + x] += m0;
                        pu[lo + x] += p * under[x];
                    }
                }
            }
            for (x, life) in lives.iter().enumerate() {
                let i = start + x;
                let next = |k: usize| i.checked_sub(steps[k]);
                let mut s = sum[x];
                if let Some((k, p)) = life.partial.filter(|&(_, p)| p > 0.0) {
                    let Some(j) = next(k) else {
                        return Ok(true);
                    };
                    s += p * v[j];
                }
                let whole = moments.map(|_| Tally {
                    r,
                    a: a[x],
                    b: b[x],
                    c: c[x],
                    pu: pu[x],
                });
                if self.finish(i, life, s, whole, next, v, u)? {
                    return Ok(true);
                }
            }
            start = end;
        }
        Ok(false)
    }

    /// Fills `v` (and `u`) state by state, with `next(i, w, k)` the state end `k` of a life
    /// from state `i` (`w` left) leaves; `Ok(true)` where one is missing.
    fn by_state(
        &self,
        v: &mut [f64],
        u: &mut [f64],
        next: impl Fn(usize, u64, usize) -> Option<usize>,
    ) -> Result<bool, ModelError> {
        let ends = self.ends;
        for i in 0..v.len() {
            let w = self.states.value(i);
            let life = ends.life(self.job, self.list, w);
            let mut sum = 0.0;
            // Two loops rather than a chained iterator, which the compiler leaves slow here.
            for k in ends.whole(&life) {
                let Some(j) = next(i, w, k) else {
                    return Ok(true);
                };
                sum += ends.prob[k] * v[j];
            }
            if let Some((k, p)) = life.partial.filter(|&(_, p)| p > 0.0) {
                let Some(j) = next(i, w, k) else {
                    return Ok(true);
                };
                sum += p * v[j];
            }
            if self.finish(i, &life, sum, None, |k| next(i, w, k), v, u)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `V` (and `U`) of state `i` from its life, the sum over the states its ends leave, and,
    /// where they were summed with it, the spread's sums; `next(k)` is the state end `k`
    /// leaves. `Ok(true)` where that state is missing.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        i: usize,
        life: &Life,
        sum: f64,
        whole: Option<Tally>,
        next: impl Fn(usize) -> Option<usize>,
        v: &mut [f64],
        u: &mut [f64],
    ) -> Result<bool, ModelError> {
        if life.first_sf <= 0.0 {
            return Err(NO_PROGRESS);
        }
        v[i] = (life.mean + sum) / life.first_sf;
        if !v[i].is_finite() {
            return Err(NO_PROGRESS);
        }
        if !self.spread {
            return Ok(false);
        }
        let value = |k: usize| next(k).map(|j| (v[j], u[j]));
        let whole = whole.or_else(|| self.ends.tally(life, v[i], value));
        let partial = life.partial.and_then(|(k, _)| value(k));
        let found = whole.and_then(|t| self.ends.spread(self.job, life, (v[i], v[i]), &t, partial));
        match found {
            Some((pu, d)) => {
                u[i] = (pu + d) / life.first_sf;
                Ok(false)
            }
            None => Ok(true),
        }
    }
}

/// [`expected_wall`] with at most `max_terms` terms, and the variance with `spread`.
/// The list's prefix sums and the ends of a first life and of a life after a restart, after
/// the inputs' checks; `None` where a life lists more than [`MAX_STATES`] ends.
fn setup(
    job: &Renewal,
    chunks: &[u64],
    work: u64,
) -> Result<Option<(Prefix, Ends, Ends)>, ModelError> {
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
    Ok(Ends::new(job, chunks, work, 0.0)
        .zip(Ends::new(job, chunks, work, job.restart()))
        .map(|(first, after)| (Prefix::new(chunks), first, after)))
}

/// Whether [`predict`] follows the states of a job of `work` ns under `chunks` (its figure is
/// then [`PredictionKind::FiniteJob`]), found without the recursion: only the states and the
/// count of their terms, a small part of its cost.
///
/// ```
/// use ckpt::failure::{Lifetime, Shape};
/// use ckpt::model::finite_renewal::follows;
/// use ckpt::model::renewal::Renewal;
/// let life = Lifetime::new(Shape::Weibull { shape: 0.7 }, 86400.0).unwrap();
/// let job = Renewal::new(life, 600.0, 600.0).unwrap();
/// let (s, days) = (1_000_000_000u64, 3 * 86_400_000_000_000u64);
/// // Chunks of whole seconds leave the states on a lattice of one second...
/// assert!(follows(&job, &[7336 * s, 8322 * s, 8898 * s], days).unwrap());
/// // ...while chunks with no common step but a nanosecond leave too many.
/// assert!(!follows(&job, &[7336 * s + 1, 8322 * s + 7, 8898 * s + 3], days).unwrap());
/// ```
pub fn follows(job: &Renewal, chunks: &[u64], work: u64) -> Result<bool, ModelError> {
    let Some((list, first, after)) = setup(job, chunks, work)? else {
        return Ok(false);
    };
    let far = std::cell::OnceCell::new();
    let far_of = || *far.get_or_init(|| far_age(job));
    Ok(states(job, &list, (&first, &after), work, MAX_TERMS_ONE, &far_of).is_some())
}

/// The grids (s) a chunk list may be put on so that the model follows its finite job
/// ([`followed_grid`]), finest first.
pub const GRIDS_S: [u64; 13] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/// The coarsest grid [`followed_grid`] takes, as a fraction of the shortest chunk: each chunk
/// moves by at most half of it, and the overhead of a schedule, flat at its optimum, by far
/// less than its advantage over the best period.
pub const GRID_MAX_FRACTION: f64 = 0.01;

/// `chunks_s` (s) rounded to whole multiples of `grid_s`, at least one each, in ns: at 1 s the
/// whole seconds of `--format env`.
///
/// ```
/// use ckpt::model::finite_renewal::on_grid;
/// assert_eq!(on_grid(&[7336.4, 8322.5, 3.0], 5), [7335e9 as u64, 8325e9 as u64, 5e9 as u64]);
/// ```
pub fn on_grid(chunks_s: &[f64], grid_s: u64) -> Vec<Nanos> {
    chunks_s
        .iter()
        .map(|&w| chunk_ns(whole_seconds(w / grid_s as f64).saturating_mul(grid_s) as f64))
        .collect()
}

/// The finest grid of [`GRIDS_S`], at most [`GRID_MAX_FRACTION`] of the shortest chunk, on
/// which the model [`follows`] the job of `work` ns under `chunks_s` (s); `None` where none
/// within reach is followed. Chunks to the nanosecond have no common step, and a job of a few
/// dozen lives can leave more states than the model follows; on a grid they lie on a lattice.
pub fn followed_grid(
    job: &Renewal,
    chunks_s: &[f64],
    work: Nanos,
) -> Result<Option<u64>, ModelError> {
    let shortest = chunks_s.iter().copied().fold(f64::INFINITY, f64::min);
    for g in GRIDS_S {
        if g as f64 > GRID_MAX_FRACTION * shortest {
            break;
        }
        if follows(job, &on_grid(chunks_s, g), work)? {
            return Ok(Some(g));
        }
    }
    Ok(None)
}

fn wall_within(
    job: &Renewal,
    chunks: &[u64],
    work: u64,
    max_terms: u64,
    spread: bool,
) -> Result<Option<Wall>, ModelError> {
    let Some((list, mut first, mut after)) = setup(job, chunks, work)? else {
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
    if spread {
        first.with_moments(job);
        after.with_moments(job);
    }
    let mut v = vec![0.0f64; states.len()];
    // The variance from each state, with the spread.
    let mut u = if spread {
        vec![0.0f64; states.len()]
    } else {
        Vec::new()
    };
    let pass = Pass {
        job,
        list: &list,
        ends: &after,
        states: &states,
        spread,
    };
    // Every state a life leaves is among the states, below the one it leaves.
    let mut missing = match &states {
        States::Lattice { step, .. } => pass.lattice(*step, &mut v, &mut u)?,
        States::Sparse { .. } => {
            pass.by_state(&mut v, &mut u, |_, w, k| states.index(w - after.work[k]))?
        }
    };
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
    if !wall.is_finite() {
        return Err(NO_PROGRESS);
    }
    let variance = if spread {
        let value = |k: usize| states.index(work - first.work[k]).map(|j| (v[j], u[j]));
        let partial = life.partial.and_then(|(k, _)| value(k));
        let found = first
            .tally(&life, wall, value)
            .and_then(|t| first.spread(job, &life, (wall, v[top]), &t, partial));
        let Some((pu, d)) = found else {
            debug_assert!(false, "a state left by a life is not among the states");
            return Ok(None);
        };
        let variance = (1.0 - life.first_sf) * u[top] + pu + d;
        // Where the variance passes f64 range, the mean still stands.
        variance.is_finite().then_some(variance)
    } else {
        None
    };
    Ok(Some(Wall {
        mean: wall,
        variance,
    }))
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
    /// With [`predict_with_spread`]: the standard deviation of the job's wall time (s), of the
    /// same kind as `overhead` (the finite job's own, else `sqrt(v W)` from the long-run
    /// variance rate [`Renewal::wall_variance_rate`]).
    pub sd: Option<f64>,
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
    prediction(job, chunks, work, false)
}

/// [`predict`] with the standard deviation of the wall time ([`wall_moments`]), which costs
/// about twice as much again.
///
/// ```
/// use ckpt::failure::{Lifetime, Shape};
/// use ckpt::model::finite_renewal::predict_with_spread;
/// use ckpt::model::renewal::Renewal;
/// let life = Lifetime::new(Shape::Weibull { shape: 0.7 }, 86400.0).unwrap();
/// let job = Renewal::new(life, 600.0, 600.0).unwrap();
/// let p = predict_with_spread(&job, &[10_000_000_000_000], 864_000_000_000_000);
/// // Ten days of work under failures a day apart: the wall time varies by hours.
/// let sd = p.sd.unwrap();
/// assert!(sd > 3600.0 && sd < 86400.0);
/// ```
pub fn predict_with_spread(job: &Renewal, chunks: &[Nanos], work: Nanos) -> Prediction {
    prediction(job, chunks, work, true)
}

fn prediction(job: &Renewal, chunks: &[Nanos], work: Nanos, spread: bool) -> Prediction {
    let chunks_s: Vec<f64> = chunks.iter().map(|&c| ns_to_secs(c)).collect();
    // Figures past f64 range (a mean lifetime near 1e300 s) are no prediction.
    let long_run = job.overhead_of(&chunks_s).ok().filter(|o| o.is_finite());
    match wall_within(job, chunks, work, MAX_TERMS_ONE, spread) {
        Ok(Some(wall)) if (wall.mean / ns_to_secs(work)).is_finite() => Prediction {
            overhead: Some(wall.mean / ns_to_secs(work)),
            kind: PredictionKind::FiniteJob,
            long_run,
            sd: wall.variance.map(f64::sqrt).filter(|sd| sd.is_finite()),
        },
        _ => Prediction {
            overhead: long_run,
            kind: PredictionKind::LongRun,
            long_run,
            sd: spread
                .then(|| job.wall_variance_rate(&chunks_s).ok().flatten())
                .flatten()
                .map(|v| (v * ns_to_secs(work)).sqrt())
                .filter(|sd| sd.is_finite()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::{Lifetime, Shape};
    use crate::sim::periodic::{Failures, PeriodicConfig, ScheduleConfig};
    use crate::sim::run::Scenario;
    use crate::sim::stats::{Estimate, variance_z};
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
        Estimate::from_samples(&walls(j, chunks, work, runs))
    }

    /// The simulated wall times (s) of `runs` jobs.
    fn walls(j: &Renewal, chunks: &[u64], work: u64, runs: u64) -> Vec<f64> {
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
        (0..runs)
            .map(|i| cfg.run(7, i).unwrap().wall as f64 / 1e9)
            .collect()
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

    #[test]
    fn the_spread_agrees_with_the_simulator_where_the_exponential_one_does_not() {
        // Weibull 0.5 (lives more varied than the exponential's), a job of 20 MTBFs over a
        // period and over a list, 2000 runs each: the recursion's variance against the runs'.
        // The exponential model of the same MTBF (§9.1) misses it by far.
        let (m, c, r) = (3600.0, 60.0, 120.0);
        let j = job(Shape::Weibull { shape: 0.5 }, m, c, r);
        let work = 72_000 * S;
        for chunks in [vec![900 * S], vec![400 * S, 700 * S, 1100 * S]] {
            let w = wall_moments(&j, &chunks, work).unwrap().unwrap();
            let walls = walls(&j, &chunks, work, 2000);
            let z = variance_z(w.variance, &walls);
            assert!(z.abs() < 4.0, "{chunks:?}: {w:?}, z {z}");
            let mean = walls.iter().sum::<f64>() / walls.len() as f64;
            let e = Estimate::from_samples(&walls);
            assert!(((w.mean - mean) / e.stderr.unwrap()).abs() < 4.0);
        }
        let exponential = crate::model::chunks::FiniteJob::new(72_000.0, m, c, r, 0.0).unwrap();
        let sd = exponential.completion_sd(80).unwrap();
        let walls = walls(&j, &[900 * S], work, 2000);
        let z = variance_z(sd * sd, &walls);
        assert!(z < -4.0, "exponential sd {sd}: z {z}");
    }

    #[test]
    fn a_long_jobs_spread_grows_at_the_long_run_rate() {
        // Var T(W) = v W + O(1) (the renewal-reward limit, `Renewal::wall_variance_rate`):
        // the difference between two long jobs is v times their difference in work.
        let j = job(Shape::Weibull { shape: 0.7 }, 3600.0, 30.0, 60.0);
        let chunk = 600 * S;
        let v = j.wall_variance_rate(&[600.0]).unwrap().unwrap();
        let var = |hours: u64| {
            wall_moments(&j, &[chunk], hours * 3600 * S)
                .unwrap()
                .unwrap()
                .variance
        };
        let rate = (var(2000) - var(1000)) / (1000.0 * 3600.0);
        assert!((rate / v - 1.0).abs() < 1e-6, "{rate} vs {v}");
    }

    #[test]
    fn a_nearly_fixed_lifetime_barely_spreads_the_wall_time() {
        // Weibull 10^6: every life ends within about a second of 86400 s, so every job fails
        // the same way, and the wall time varies by seconds in a job of weeks.
        let j = job(Shape::Weibull { shape: 1e6 }, 86400.0, 600.0, 600.0);
        let w = wall_moments(&j, &[10_000 * S], 1_000_000 * S)
            .unwrap()
            .unwrap();
        let want = fixed_life_wall(86400.0, &[10_000.0], 1e6, 600.0, 600.0);
        assert!((w.mean / want - 1.0).abs() < 1e-9);
        assert!(w.variance.sqrt() < 10.0, "{w:?}");
    }

    prop_compose! {
        /// A job under exponential failures: `M`, `C`, `R` (s) and a period in whole seconds.
        fn exponential_job()(
            m in 600.0f64..1e6,
            c in 1.0f64..3600.0,
            r in 0.0f64..3600.0,
            tau in 60u64..86_400,
        ) -> (f64, f64, f64, u64) {
            (m, c, r, tau)
        }
    }

    proptest! {
        #[test]
        fn a_lattices_terms_are_its_states_offsets_below_them(
            offsets in proptest::collection::vec(0u64..5000, 0..40),
            lowest in 0u64..3000,
            g in 1u64..400,
            count in 0u64..200,
        ) {
            // Counted state by state, as the recursion sums them.
            let brute: u64 = (0..count)
                .map(|j| offsets.iter().filter(|&&p| p < lowest + j * g).count() as u64)
                .sum();
            prop_assert_eq!(lattice_terms(&offsets, lowest, g, count), brute);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn the_spread_leaves_the_mean_as_it_is_and_is_finite(
            family in 0usize..4,
            k in 0.3f64..3.0,
            m in 600.0f64..1e6,
            c_frac in 1e-3f64..0.2,
            r_frac in 0.0f64..0.2,
            chunks in proptest::collection::vec(0.05f64..2.0, 1..4),
            lives in 0.1f64..20.0,
        ) {
            let shape = match family {
                0 => Shape::Exponential,
                1 => Shape::Weibull { shape: k },
                2 => Shape::Gamma { shape: k },
                _ => Shape::LogNormal { sigma: k / 2.0 },
            };
            let j = job(shape, m, c_frac * m, r_frac * m);
            let ns: Vec<u64> = chunks.iter().map(|&f| (f * m * 1e9) as u64).collect();
            let work = (lives * m * 1e9) as u64;
            let mean = expected_wall(&j, &ns, work).unwrap();
            let both = wall_moments(&j, &ns, work).unwrap();
            // The spread's pass reads the means and never writes them.
            prop_assert_eq!(mean, both.map(|w| w.mean));
            if let Some(w) = both {
                prop_assert!(w.variance.is_finite() && w.variance >= 0.0, "{:?}", w);
            }
        }

        #[test]
        fn the_lattice_blocks_give_the_figures_of_a_state_by_state_pass(
            family in 0usize..4,
            k in 0.3f64..3.0,
            m in 600.0f64..1e5,
            c in 1u64..600,
            r in 0u64..600,
            unit in prop_oneof![Just(1u64), Just(7), Just(60)],
            chunks in proptest::collection::vec(1u64..3000, 1..4),
            lives in 1u64..40,
        ) {
            // The same states walked two ways: blocks of states summed end by end, and one
            // state at a time with every state a life leaves looked up. The means must agree
            // bit for bit; the spreads, centred differently, to rounding.
            let shape = match family {
                0 => Shape::Exponential,
                1 => Shape::Weibull { shape: k },
                2 => Shape::Gamma { shape: k },
                _ => Shape::LogNormal { sigma: k / 2.0 },
            };
            let j = job(shape, m, c as f64, r as f64);
            let ns: Vec<u64> = chunks.iter().map(|&x| x * unit * S).collect();
            let work = lives * chunks.iter().max().unwrap() * unit * S / 2 + S;
            let list = Prefix::new(&ns);
            let (Some(first), Some(mut after)) =
                (Ends::new(&j, &ns, work, 0.0), Ends::new(&j, &ns, work, j.restart()))
            else {
                return Ok(());
            };
            let far = || far_age(&j);
            let Some(states) = states(&j, &list, (&first, &after), work, MAX_TERMS_ONE, &far)
            else {
                return Ok(());
            };
            let States::Lattice { step, count, .. } = states else {
                return Ok(());
            };
            prop_assume!(count <= 200_000);
            if count > FAR_FROM {
                after.far = far_age(&j);
            }
            after.with_moments(&j);
            let pass = Pass { job: &j, list: &list, ends: &after, states: &states, spread: true };
            let (mut v1, mut u1) = (vec![0.0; count], vec![0.0; count]);
            let (mut v2, mut u2) = (vec![0.0; count], vec![0.0; count]);
            let blocks = pass.lattice(step, &mut v1, &mut u1);
            let one_by_one = pass.by_state(&mut v2, &mut u2, |_, w, k| {
                states.index(w - after.work[k])
            });
            prop_assert_eq!(format!("{blocks:?}"), format!("{one_by_one:?}"));
            prop_assert_eq!(&v1, &v2);
            // A spread beyond f64's range (chunks so long that a life survives one with a
            // chance of 1e-149: a mean of 1e153 s, a variance of its square) is no figure in
            // either pass, and the model gives none (`wall_moments`).
            for (x, y) in u1.iter().zip(&u2) {
                if x.is_finite() || y.is_finite() {
                    prop_assert!((x - y).abs() <= 1e-9 * y.abs() + 1e-6, "{} vs {}", x, y);
                }
            }
        }

        #[test]
        fn the_spread_under_exponential_failures_is_the_segments_closed_form(
            (m, c, r, tau) in exponential_job(),
            k in 1u64..200,
        ) {
            // The recursion against the sum of independent segments (§9.1), two derivations.
            let j = Renewal::new(Lifetime::exponential(m).unwrap(), c, r).unwrap();
            let job = crate::model::chunks::FiniteJob::new((k * tau) as f64, m, c, r, 0.0).unwrap();
            let want = job.completion_sd(k).unwrap();
            let got = wall_moments(&j, &[tau * S], k * tau * S).unwrap().unwrap();
            prop_assert!(
                (got.variance.sqrt() / want - 1.0).abs() < 1e-9,
                "{} vs {}", got.variance.sqrt(), want
            );
            prop_assert!((got.mean / job.completion(k).unwrap() - 1.0).abs() < 1e-10);
        }

        #[test]
        fn a_period_under_exponential_failures_is_the_sum_of_its_segments(
            (m, c, r, tau) in exponential_job(),
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

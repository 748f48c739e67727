//! Survival of `k` simultaneous failures (docs/encodings.md §2): `k` distinct processors drawn
//! uniformly among all computation and extra processors.
//!
//! The closed forms are written as products of `k` ratios, each at most a small constant, so
//! they neither overflow nor lose digits for large `n`; weighted-1d counts its admissible
//! subsets in log space.

use super::EncodingError;
use super::scheme::{SchemeKind, SchemeSpec};
use crate::failure::ln_add_exp;
use crate::progress::within;
use serde::Serialize;
use statrs::function::gamma::ln_gamma;

/// Probability that the in-memory checkpoint of `scheme` survives `k` simultaneous failures.
///
/// A `k` larger than the processor count is an impossible draw; it is reported as 0 (the
/// checkpoint does not survive). Use [`try_survival`] to have it rejected instead. The closed
/// forms take at most `k` steps (fewer once the product underflows); a weighted-1d count takes
/// `g x k x (m + 1)`, with no limit here: [`try_survival`] holds it to
/// [`WEIGHTED_1D_WORK_LIMIT`].
///
/// ```
/// use ckpt::encoding::{survival, SchemeKind, SchemeSpec};
/// let mirror = SchemeSpec::new(SchemeKind::Mirror, 64, None, None).unwrap();
/// assert!((survival(&mirror, 2) - 0.992126).abs() < 5e-7);
/// ```
pub fn survival(scheme: &SchemeSpec, k: usize) -> f64 {
    let n = scheme.procs;
    if k == 0 {
        return 1.0;
    }
    if k > scheme.total_procs() {
        return 0.0;
    }
    let nf = n as f64;
    if let Some(term) = prefix_term(scheme) {
        return product(k, term);
    }
    match scheme.kind {
        SchemeKind::Ring => {
            if k >= n {
                0.0
            } else if k == 1 {
                // Exactly: the product below rounds (12/11 * 11/12 is not 1 in f64).
                1.0
            } else {
                let kf = k as f64;
                (nf / (nf - kf) * product(k, |i| ((nf - kf - i) / (nf - i)).max(0.0))).min(1.0)
            }
        }
        SchemeKind::Checksum => {
            if k <= 1 {
                1.0
            } else {
                0.0
            }
        }
        SchemeKind::Weighted => {
            if k <= scheme.checksums {
                1.0
            } else {
                0.0
            }
        }
        SchemeKind::Weighted1d if k <= scheme.checksums => 1.0,
        SchemeKind::Weighted1d => at_most_per_group(
            scheme.groups,
            scheme.group_size() + scheme.checksums,
            scheme.checksums,
            k,
        ),
        // Answered by `prefix_term` above.
        SchemeKind::Mirror | SchemeKind::Pair | SchemeKind::Checksum1d => 0.0,
    }
}

/// The `i`-th ratio of the schemes whose survival of `k` failures is the product of the first
/// `k` ratios of one sequence (so a range of counts is one pass): the chance that the `i+1`-th
/// failure, given `i` harmless ones, is harmless too.
fn prefix_term(scheme: &SchemeSpec) -> Option<impl Fn(f64) -> f64 + use<>> {
    let nf = scheme.procs as f64;
    let (kind, g) = (scheme.kind, scheme.groups as f64);
    let size = (scheme.procs / scheme.groups.max(1) + 1) as f64;
    let total = scheme.total_procs() as f64;
    matches!(
        kind,
        SchemeKind::Mirror | SchemeKind::Pair | SchemeKind::Checksum1d
    )
    .then_some(move |i: f64| match kind {
        SchemeKind::Mirror => 2.0 * (nf - i) / (2.0 * nf - i),
        SchemeKind::Pair => (2.0 * (nf / 2.0 - i)).max(0.0) / (nf - i),
        _ => (g - i).max(0.0) * size / (total - i),
    })
}

/// Steps a range of ring counts may take as products of their own (each count's product is
/// its own sequence); beyond it the counts after the first follow from the ratio of
/// consecutive counts, `(n-2k)(n-2k-1) / ((n-k)(n-k-1))`.
const RING_DIRECT_WORK_LIMIT: f64 = 2e8;

/// Steps (group x failure count x failures in one group) the exact count of weighted-1d may
/// take for one table, about five seconds of work: a range of failure counts is counted in one
/// pass up to its largest count, which sets the cost. Beyond it the count is refused; below
/// `--checksums` failures and beyond `groups x checksums` the answer (1 or 0) needs no count.
pub const WEIGHTED_1D_WORK_LIMIT: f64 = 2e8;

/// [`survival`], with a `k` beyond the processor count rejected (naming `--failures`), as is
/// a weighted-1d count beyond [`WEIGHTED_1D_WORK_LIMIT`].
pub fn try_survival(scheme: &SchemeSpec, k: usize) -> Result<f64, EncodingError> {
    Ok(survival_range(scheme, k, k, &crate::progress::NoProgress)?[0])
}

/// The cost, in steps, of counting weighted-1d's admissible subsets up to `k` failures.
fn weighted_1d_work(scheme: &SchemeSpec, k: usize) -> f64 {
    (scheme.groups as f64)
        * (k.min(scheme.groups * scheme.checksums) as f64)
        * (scheme.checksums as f64 + 1.0)
}

/// [`survival`] of every `k` in `lo..=hi`, as [`try_survival`] checks them. Weighted-1d is
/// counted in one pass up to `hi` (so a range costs what its largest count costs), with one
/// `progress` step per group; the closed forms take one step per count.
pub fn survival_range(
    scheme: &SchemeSpec,
    lo: usize,
    hi: usize,
    progress: &dyn crate::progress::Progress,
) -> Result<Vec<f64>, EncodingError> {
    check_range(lo, hi)?;
    if hi > scheme.total_procs() {
        return Err(EncodingError::Invalid {
            arg: "--failures",
            value: hi.to_string(),
            accepted: format!(
                "at most the {} processors of {} (computation and extra)",
                scheme.total_procs(),
                scheme
            ),
        });
    }
    let (g, m) = (scheme.groups, scheme.checksums);
    // Counts that need the count: above the checksums of one group, up to all groups' checksums.
    let counted = scheme.kind == SchemeKind::Weighted1d && hi > m && lo <= g * m;
    if !counted {
        return Ok(within(progress, "survive", (hi - lo + 1) as u64, || {
            closed_range(scheme, lo, hi, progress)
        }));
    }
    let work = weighted_1d_work(scheme, hi);
    if work > WEIGHTED_1D_WORK_LIMIT {
        // The largest count that fits, for the message; counts up to m need no count at all.
        let fits = (WEIGHTED_1D_WORK_LIMIT / (g as f64 * (m as f64 + 1.0))) as usize;
        let fits = if fits > m {
            format!("at most {fits} failures")
        } else {
            format!("at most {m} failures (survival 1) or more than {}", g * m)
        };
        return Err(EncodingError::Invalid {
            arg: "--failures",
            value: hi.to_string(),
            accepted: format!(
                "for weighted-1d with {g} groups, {fits}: beyond {m} (the checksums of one group) the exact count takes groups x failures x (checksums + 1) steps, limited to {WEIGHTED_1D_WORK_LIMIT:.0e} (this is {work:.1e}); survival is 0 beyond {} failures",
                g * m
            ),
        });
    }
    let size = scheme.group_size() + m;
    let top = hi.min(g * m);
    // Counts whose subsets fit a double exactly are counted as integers, the rest in logs; the
    // binomials grow with k here (k <= g m <= half the processors), so the first is a prefix.
    let exact_top = (m + 1..=top)
        .take_while(|&k| ln_choose(g * size, k) < LINEAR_LN_LIMIT)
        .last();
    let log_needed = exact_top.is_none_or(|e| e < top);
    let passes = u64::from(exact_top.is_some()) + u64::from(log_needed);
    let (exact, logs) = within(progress, "survive", passes * g as u64, || {
        (
            exact_top.map(|e| count(Counting::Linear, g, size, m, e, progress)),
            log_needed.then(|| count(Counting::Log, g, size, m, top, progress)),
        )
    });
    Ok((lo..=hi)
        .map(|k| {
            if k <= m {
                1.0
            } else if k > g * m {
                0.0
            } else {
                match (&exact, exact_top) {
                    (Some(f), Some(e)) if k <= e => f(k),
                    _ => logs.as_ref().map_or(0.0, |f| f(k)),
                }
            }
        })
        .collect())
}

/// One row of a survival table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct SurvivalRow {
    /// Simultaneous failures `k`.
    pub failures: usize,
    /// Probability that the in-memory checkpoint survives them.
    pub probability: f64,
}

/// The most failure counts one survival range or table holds (one f64 each: a range of all
/// 2^33 processors of a mirror would take 64 GiB).
pub const MAX_SURVIVAL_COUNTS: usize = 100_000;

/// `lo..=hi` as a range of failure counts: in order, and at most [`MAX_SURVIVAL_COUNTS`] long.
fn check_range(lo: usize, hi: usize) -> Result<(), EncodingError> {
    if lo > hi || hi - lo >= MAX_SURVIVAL_COUNTS {
        return Err(EncodingError::Invalid {
            arg: "--failures",
            value: format!("{lo}..{hi}"),
            accepted: format!(
                "a range LO..HI with LO <= HI of at most {MAX_SURVIVAL_COUNTS} failure counts"
            ),
        });
    }
    Ok(())
}

/// Survival of `1..=up_to` failures (capped at the processor count), for reports beside an
/// interval. A weighted-1d table whose exact count exceeds [`WEIGHTED_1D_WORK_LIMIT`] is
/// refused, naming `--checksums`.
pub fn survival_table(
    scheme: &SchemeSpec,
    up_to: usize,
) -> Result<Vec<SurvivalRow>, EncodingError> {
    let top = up_to.min(scheme.total_procs());
    if top == 0 {
        return Ok(Vec::new());
    }
    let (g, m) = (scheme.groups, scheme.checksums);
    let work = weighted_1d_work(scheme, top);
    if scheme.kind == SchemeKind::Weighted1d && top > m && work > WEIGHTED_1D_WORK_LIMIT {
        return Err(EncodingError::Invalid {
            arg: "--checksums",
            value: m.to_string(),
            accepted: format!(
                "for weighted-1d with {g} groups, few enough checksums that the survival table beside the interval (up to {top} failures) takes at most {WEIGHTED_1D_WORK_LIMIT:.0e} steps of the exact count (this is {work:.1e})"
            ),
        });
    }
    let rows = survival_range(scheme, 1, top, &crate::progress::NoProgress)?;
    Ok((1..=top)
        .zip(rows)
        .map(|(failures, probability)| SurvivalRow {
            failures,
            probability,
        })
        .collect())
}

/// [`survival`] of every `k` in `lo..=hi` for the schemes with a closed form, one `progress`
/// step per count. The prefix products are one pass up to `hi`, bit for bit each count's own
/// product; a ring range is each count's product while that is cheap, else the first count's
/// product carried on by the ratio of consecutive counts.
fn closed_range(
    scheme: &SchemeSpec,
    lo: usize,
    hi: usize,
    progress: &dyn crate::progress::Progress,
) -> Vec<f64> {
    let mut out = Vec::with_capacity(hi - lo + 1);
    if let Some(term) = prefix_term(scheme) {
        let mut p = 1.0f64;
        for k in 0..=hi {
            if k >= lo {
                out.push(p.clamp(0.0, 1.0));
                progress.tick();
            }
            p *= term(k as f64);
            // As in `product`: below the smallest normal double, 0 for this count and the rest.
            if p < f64::MIN_POSITIVE {
                let rest = (hi - k).min(hi + 1 - lo);
                out.extend(std::iter::repeat_n(0.0, rest));
                (0..rest).for_each(|_| progress.tick());
                break;
            }
        }
        return out;
    }
    // Each ring count's product stops once it underflows, but may take k steps before.
    let direct_work = (lo as f64 + hi as f64) / 2.0 * (hi - lo + 1) as f64;
    let n = scheme.procs as f64;
    let mut last: Option<f64> = None;
    for k in lo..=hi {
        let p = match last {
            Some(p) if scheme.kind == SchemeKind::Ring && direct_work > RING_DIRECT_WORK_LIMIT => {
                // From k - 1 to k.
                let j = (k - 1) as f64;
                let q = p * ((n - 2.0 * j) * (n - 2.0 * j - 1.0)).max(0.0)
                    / ((n - j) * (n - j - 1.0)).max(1.0);
                if q < f64::MIN_POSITIVE {
                    0.0
                } else {
                    q.min(1.0)
                }
            }
            _ => survival(scheme, k),
        };
        last = Some(p);
        out.push(p);
        progress.tick();
    }
    out
}

/// The product of the first `k` ratios `term(0), term(1), ...`, each at most 1, within [0, 1].
/// Once below the smallest normal double it is 0: the subnormals would hold it (a subnormal
/// times a ratio near 1 rounds back to itself) for as many steps as are left.
fn product(k: usize, term: impl Fn(f64) -> f64) -> f64 {
    let mut p = 1.0;
    for i in 0..k {
        p *= term(i as f64);
        if p < f64::MIN_POSITIVE {
            return 0.0;
        }
    }
    p.clamp(0.0, 1.0)
}

fn ln_choose(n: usize, k: usize) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    if k == 0 || k == n {
        return 0.0;
    }
    ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
}

/// Subsets up to `e^LINEAR_LN_LIMIT` are counted as doubles, larger ones in logs.
const LINEAR_LN_LIMIT: f64 = 600.0;

/// Fraction of the `k`-subsets of `groups` groups of `size` processors that put at most
/// `cap` in every group: the coefficient of `x^k` in `(sum_{j<=cap} C(size,j) x^j)^groups`
/// over `C(groups size, k)`.
fn at_most_per_group(groups: usize, size: usize, cap: usize, k: usize) -> f64 {
    if k > groups * cap {
        return 0.0;
    }
    let none = &crate::progress::NoProgress;
    let counting = if ln_choose(groups * size, k) < LINEAR_LN_LIMIT {
        Counting::Linear
    } else {
        Counting::Log
    };
    count(counting, groups, size, cap, k, none)(k)
}

/// How the subset counts of [`count`] are held.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Counting {
    /// As integer-valued doubles: exact while they stay below 2^53, valid while
    /// `C(groups size, top)` stays far from overflow.
    Linear,
    /// As their logarithms, for counts beyond a double's range.
    Log,
}

impl Counting {
    /// `C(n, j)` held this way. Each linear partial product is itself the binomial C(n, i+1),
    /// so rounding keeps it exact while it stays below 2^53.
    fn choose(self, n: usize, j: usize) -> f64 {
        match self {
            Counting::Linear => {
                (0..j).fold(1.0f64, |c, i| (c * (n - i) as f64 / (i + 1) as f64).round())
            }
            Counting::Log => ln_choose(n, j),
        }
    }

    /// The held zero and one.
    fn zero_one(self) -> (f64, f64) {
        match self {
            Counting::Linear => (0.0, 1.0),
            Counting::Log => (f64::NEG_INFINITY, 0.0),
        }
    }

    /// `acc + a b`, all three held this way.
    fn add_product(self, acc: f64, a: f64, b: f64) -> f64 {
        match self {
            Counting::Linear => acc + a * b,
            Counting::Log => ln_add_exp(acc, a + b),
        }
    }

    /// The plain value of `a / b`.
    fn ratio(self, a: f64, b: f64) -> f64 {
        match self {
            Counting::Linear => a / b,
            Counting::Log => (a - b).exp(),
        }
    }
}

/// [`at_most_per_group`] for every `k <= top`, the polynomial's power expanded group by group
/// (one progress tick each) with its counts held as `counting` says.
fn count(
    counting: Counting,
    groups: usize,
    size: usize,
    cap: usize,
    top: usize,
    progress: &dyn crate::progress::Progress,
) -> impl Fn(usize) -> f64 + use<> {
    let terms: Vec<f64> = (0..=cap.min(size))
        .map(|j| counting.choose(size, j))
        .collect();
    let (zero, one) = counting.zero_one();
    let mut dp = vec![zero; top + 1];
    dp[0] = one;
    for _ in 0..groups {
        let mut next = vec![zero; top + 1];
        for (t, slot) in next.iter_mut().enumerate() {
            *slot = terms
                .iter()
                .enumerate()
                .take(t + 1)
                .fold(zero, |acc, (j, &c)| counting.add_product(acc, dp[t - j], c));
        }
        dp = next;
        progress.tick();
    }
    let all = groups * size;
    move |k| {
        counting
            .ratio(dp[k], counting.choose(all, k))
            .clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Before: a table of every count of a mirror of 2^32 processors took 3.1 GB, one of
    /// usize::MAX counts aborted on a 64 GB allocation, and a range with LO > HI wrapped round.
    #[test]
    fn survival_ranges_are_bounded_and_in_order() {
        let none = &crate::progress::NoProgress;
        let s = spec(SchemeKind::Mirror, 1 << 32, None, None);
        assert!(survival_table(&s, usize::MAX).is_err());
        assert!(survival_range(&s, 0, MAX_SURVIVAL_COUNTS, none).is_err());
        assert_eq!(
            survival_range(&s, 1, MAX_SURVIVAL_COUNTS, none)
                .unwrap()
                .len(),
            MAX_SURVIVAL_COUNTS
        );
        assert!(survival_range(&s, 5, 3, none).is_err());
        assert_eq!(survival_table(&s, 0).unwrap(), Vec::new());
    }

    fn spec(kind: SchemeKind, n: usize, g: Option<usize>, m: Option<usize>) -> SchemeSpec {
        SchemeSpec::new(kind, n, g, m).unwrap()
    }

    /// A ring survives any one failure: exactly 1, where the product form gave
    /// 0.9999999999999999 at 12, 20, 35, 36 and 40 processors.
    #[test]
    fn a_ring_survives_one_failure_exactly() {
        for n in 2..=4096 {
            assert_eq!(
                survival(&spec(SchemeKind::Ring, n, None, None), 1),
                1.0,
                "{n}"
            );
        }
    }

    #[test]
    fn a_plain_checksum_takes_one_checksum_and_says_so() {
        for (kind, groups) in [
            (SchemeKind::Checksum, None),
            (SchemeKind::Checksum1d, Some(2)),
        ] {
            let e = SchemeSpec::new(kind, 8, groups, Some(2))
                .unwrap_err()
                .to_string();
            assert!(e.contains("1 for scheme"), "{e}");
            assert!(SchemeSpec::new(kind, 8, groups, Some(1)).is_ok());
        }
    }

    #[test]
    fn reference_values_of_section_2() {
        let cases = [
            (SchemeKind::Mirror, None, [0.992126, 0.952945]),
            (SchemeKind::Ring, None, [0.968254, 0.818640]),
            (SchemeKind::Pair, None, [0.984127, 0.905543]),
            (SchemeKind::Checksum1d, Some(8), [0.887324, 0.446418]),
        ];
        for (kind, g, want) in cases {
            let s = spec(kind, 64, g, None);
            for (k, w) in [2, 4].into_iter().zip(want) {
                let got = survival(&s, k);
                assert!((got - w).abs() < 5e-7, "{kind} k={k}: {got} vs {w}");
            }
        }
    }

    #[test]
    fn edges() {
        let r = spec(SchemeKind::Ring, 5, None, None);
        assert_eq!(survival(&r, 5), 0.0);
        assert_eq!(survival(&r, 3), 0.0);
        assert!(survival(&r, 2) > 0.0);
        let w = spec(SchemeKind::Weighted, 16, None, Some(4));
        assert_eq!(survival(&w, 4), 1.0);
        assert_eq!(survival(&w, 5), 0.0);
        assert_eq!(survival(&w, 21), 0.0);
        assert!(try_survival(&w, 21).is_err());
        assert!(try_survival(&w, 20).is_ok());
        let w1 = spec(SchemeKind::Weighted1d, 64, Some(8), Some(4));
        assert!((survival(&w1, 4) - 1.0).abs() < 1e-12);
        assert!(survival(&w1, 5) < 1.0 && survival(&w1, 5) > 0.9);
        assert_eq!(survival(&w1, 33), 0.0);
        // One group: weighted-1d is weighted.
        let one = spec(SchemeKind::Weighted1d, 16, Some(1), Some(3));
        assert!((survival(&one, 3) - 1.0).abs() < 1e-12);
        assert_eq!(survival(&one, 4), 0.0);
    }

    /// A range counted in one pass gives, bit for bit, what each count gives alone (both the
    /// integer and the log counts), and reports one progress step per group and pass.
    #[test]
    fn a_range_is_each_count() {
        use std::sync::atomic::{AtomicU64, Ordering};
        struct Count(AtomicU64, AtomicU64);
        impl crate::progress::Progress for Count {
            fn start(&self, _: &str, total: u64) {
                self.0.store(total, Ordering::Relaxed);
            }
            fn tick(&self) {
                self.1.fetch_add(1, Ordering::Relaxed);
            }
            fn finish(&self) {}
        }
        for (n, g, m, hi) in [(64, 8, 4, 40), (4000, 100, 3, 300), (600, 200, 2, 400)] {
            let s = spec(SchemeKind::Weighted1d, n, Some(g), Some(m));
            let p = Count(AtomicU64::new(0), AtomicU64::new(0));
            let all = survival_range(&s, 0, hi, &p).unwrap();
            for (k, &v) in all.iter().enumerate() {
                assert_eq!(v.to_bits(), survival(&s, k).to_bits(), "n={n} k={k}");
            }
            let (total, ticks) = (p.0.into_inner(), p.1.into_inner());
            assert_eq!(total, ticks);
            assert!(total == g as u64 || total == 2 * g as u64, "{total}");
        }
        // (4000, 100, 3) needs logs beyond k = 100 or so: both passes ran above.
        assert!(ln_choose(4000 + 300, 300) > LINEAR_LN_LIMIT);
    }

    /// Before: 74 s per count with no progress. Counts beyond the limit are refused at once,
    /// with the largest count that fits; known answers (0 beyond groups x checksums) are not
    /// counted at all.
    #[test]
    fn costly_counts_are_refused_and_known_ones_answered() {
        let s = spec(SchemeKind::Weighted1d, 100_000, Some(10_000), Some(10));
        let none = &crate::progress::NoProgress;
        let e = survival_range(&s, 18_000, 18_000, none).unwrap_err();
        assert!(e.to_string().contains("at most 1818 failures"), "{e}");
        let beyond = survival_range(&s, 100_001, 100_005, none).unwrap();
        assert!(beyond.iter().all(|&p| p == 0.0));
        assert_eq!(survival_range(&s, 0, 10, none).unwrap(), vec![1.0; 11]);
        assert!(survival_range(&s, 0, 200_001, none).is_err());
    }

    /// Before: a product that fell into the subnormals stayed there (a subnormal times a ratio
    /// near 1 rounds back to itself) and ran all its k steps: 18.6 s for one mirror count of
    /// 4.3e9 failures. A range of counts was as many products.
    #[test]
    fn underflowed_products_stop_and_ranges_are_one_pass() {
        let none = &crate::progress::NoProgress;
        let big = 1usize << 32;
        for kind in [SchemeKind::Mirror, SchemeKind::Pair, SchemeKind::Ring] {
            let s = spec(kind, big, None, None);
            assert_eq!(survival(&s, big - 296), 0.0, "{kind}");
            let r = survival_range(&s, big - 100_000, big - 1, none).unwrap();
            assert!(r.iter().all(|&p| p == 0.0), "{kind}");
        }
        // A prefix range is each count's own product, bit for bit, up to and past underflow.
        for (kind, g) in [
            (SchemeKind::Mirror, None),
            (SchemeKind::Pair, None),
            (SchemeKind::Checksum1d, Some(50)),
        ] {
            let s = spec(kind, 1000, g, None);
            let all = survival_range(&s, 3, s.total_procs(), none).unwrap();
            for (k, &v) in (3..).zip(&all) {
                assert_eq!(v.to_bits(), survival(&s, k).to_bits(), "{kind} k={k}");
            }
            assert!(all.iter().all(|&p| p == 0.0 || p >= f64::MIN_POSITIVE));
        }
    }

    /// A ring range too costly as products of their own follows the ratio of consecutive
    /// counts from its first; it agrees with each count's own product.
    #[test]
    fn long_ring_ranges_follow_the_ratio() {
        let none = &crate::progress::NoProgress;
        let s = spec(SchemeKind::Ring, 10_000_000, None, None);
        for (lo, hi) in [(20_000, 40_000), (75_000, 95_000)] {
            assert!((lo + hi) as f64 / 2.0 * (hi - lo + 1) as f64 > RING_DIRECT_WORK_LIMIT);
            let all = survival_range(&s, lo, hi, none).unwrap();
            for k in (lo..=hi).step_by(997) {
                let (got, want) = (all[k - lo], survival(&s, k));
                assert!((got - want).abs() <= 1e-9 * want, "k={k}: {got} vs {want}");
            }
        }
        // Near exp(-708) the products underflow to 0, about k = 84000 here.
        assert!(survival(&s, 80_000) > 0.0 && survival(&s, 90_000) == 0.0);
    }

    /// Before: the survival table beside an interval counted weighted-1d with no limit (over a
    /// minute for 65536 groups of 4096 checksums). Now it is refused, naming `--checksums`;
    /// a `--failures` refusal whose limit falls below the checksums no longer says
    /// "at most 3 failures" while counts up to the checksums are answered.
    #[test]
    fn weighted_1d_tables_are_bounded_and_messages_true() {
        let s = spec(SchemeKind::Weighted1d, 1 << 28, Some(1 << 16), Some(4096));
        let e = survival_table(&s, 4099).unwrap_err().to_string();
        assert!(e.contains("--checksums") && e.contains("4096"), "{e}");
        let few = spec(SchemeKind::Weighted1d, 1 << 20, Some(1 << 10), Some(2));
        let t = survival_table(&few, 5).unwrap();
        assert_eq!(t.len(), 5);
        assert_eq!(t[1].probability, 1.0);
        assert_eq!(t[4].probability.to_bits(), survival(&few, 5).to_bits());
        let e = survival_range(&s, 4097, 4097, &crate::progress::NoProgress)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("at most 4096 failures (survival 1) or more than 268435456"),
            "{e}"
        );
    }

    #[test]
    fn large_n_is_finite_and_monotone() {
        let s = spec(SchemeKind::Weighted1d, 100_000, Some(1000), Some(2));
        let mut last = 1.0;
        for k in [1, 10, 50, 200] {
            let p = survival(&s, k);
            assert!(p.is_finite() && p <= last + 1e-12, "k={k} p={p}");
            last = p;
        }
        let m = spec(SchemeKind::Mirror, 1_000_000, None, None);
        assert!((survival(&m, 1000) - (-(1000.0f64 * 999.0) / (4.0 * 1e6)).exp()).abs() < 1e-3);
    }
}

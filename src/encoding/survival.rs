//! Survival of `k` simultaneous failures (docs/encodings.md §2): `k` distinct processors drawn
//! uniformly among all computation and extra processors.
//!
//! The closed forms are written as products of `k` ratios, each at most a small constant, so
//! they neither overflow nor lose digits for large `n`; weighted-1d counts its admissible
//! subsets in log space.

use super::EncodingError;
use super::scheme::{SchemeKind, SchemeSpec};
use serde::Serialize;
use statrs::function::gamma::ln_gamma;

/// Probability that the in-memory checkpoint of `scheme` survives `k` simultaneous failures.
///
/// A `k` larger than the processor count is an impossible draw; it is reported as 0 (the
/// checkpoint does not survive). Use [`try_survival`] to have it rejected instead.
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
    match scheme.kind {
        SchemeKind::Mirror => product(k, |i| 2.0 * (nf - i) / (2.0 * nf - i)),
        SchemeKind::Ring => {
            if k >= n {
                0.0
            } else {
                let kf = k as f64;
                nf / (nf - kf) * product(k, |i| ((nf - kf - i) / (nf - i)).max(0.0))
            }
        }
        SchemeKind::Pair => product(k, |i| (2.0 * (nf / 2.0 - i)).max(0.0) / (nf - i)),
        SchemeKind::Checksum => {
            if k <= 1 {
                1.0
            } else {
                0.0
            }
        }
        SchemeKind::Checksum1d => {
            let g = scheme.groups as f64;
            let size = (n / scheme.groups + 1) as f64;
            let total = scheme.total_procs() as f64;
            product(k, |i| (g - i).max(0.0) * size / (total - i))
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
    }
}

/// [`survival`], with a `k` beyond the processor count rejected (naming `--failures`).
pub fn try_survival(scheme: &SchemeSpec, k: usize) -> Result<f64, EncodingError> {
    if k > scheme.total_procs() {
        return Err(EncodingError::Invalid {
            arg: "--failures",
            value: k.to_string(),
            accepted: format!(
                "at most the {} processors of {} (computation and extra)",
                scheme.total_procs(),
                scheme
            ),
        });
    }
    if scheme.kind == SchemeKind::Weighted1d && k > scheme.checksums {
        // The count is a dynamic programme over groups x failures x per-group failures.
        let work = (scheme.groups as f64)
            * (k.min(scheme.groups * scheme.checksums) as f64)
            * (scheme.checksums as f64 + 1.0);
        if work > 2e9 {
            return Err(EncodingError::Invalid {
                arg: "--failures",
                value: k.to_string(),
                accepted: format!(
                    "a failure count small enough to count exactly for {} groups",
                    scheme.groups
                ),
            });
        }
    }
    Ok(survival(scheme, k))
}

/// One row of a survival table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct SurvivalRow {
    /// Simultaneous failures `k`.
    pub failures: usize,
    /// Probability that the in-memory checkpoint survives them.
    pub probability: f64,
}

/// Survival of `1..=up_to` failures (capped at the processor count), for reports beside an
/// interval.
pub fn survival_table(scheme: &SchemeSpec, up_to: usize) -> Vec<SurvivalRow> {
    (1..=up_to.min(scheme.total_procs()))
        .map(|k| SurvivalRow {
            failures: k,
            probability: survival(scheme, k),
        })
        .collect()
}

fn product(k: usize, term: impl Fn(f64) -> f64) -> f64 {
    let mut p = 1.0;
    for i in 0..k {
        p *= term(i as f64);
        if p == 0.0 {
            break;
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

fn ln_add(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// Fraction of the `k`-subsets of `groups` groups of `size` processors that put at most
/// `cap` in every group: the coefficient of `x^k` in `(sum_{j<=cap} C(size,j) x^j)^groups`
/// over `C(groups size, k)`.
fn at_most_per_group(groups: usize, size: usize, cap: usize, k: usize) -> f64 {
    if k > groups * cap {
        return 0.0;
    }
    // Exact integer-valued coefficients while they fit comfortably in a double; logs beyond.
    if ln_choose(groups * size, k) < 600.0 {
        // Each partial product is itself the binomial C(n, i+1), so rounding keeps it exact
        // while it stays below 2^53.
        let choose = |n: usize, j: usize| {
            (0..j).fold(1.0f64, |c, i| (c * (n - i) as f64 / (i + 1) as f64).round())
        };
        let terms: Vec<f64> = (0..=cap.min(size)).map(|j| choose(size, j)).collect();
        let mut dp = vec![0.0; k + 1];
        dp[0] = 1.0;
        for _ in 0..groups {
            let mut next = vec![0.0; k + 1];
            for (t, slot) in next.iter_mut().enumerate() {
                *slot = terms
                    .iter()
                    .enumerate()
                    .take(t + 1)
                    .map(|(j, c)| dp[t - j] * c)
                    .sum();
            }
            dp = next;
        }
        let all = choose(groups * size, k);
        return (dp[k] / all).clamp(0.0, 1.0);
    }
    let terms: Vec<f64> = (0..=cap.min(size)).map(|j| ln_choose(size, j)).collect();
    let mut dp = vec![f64::NEG_INFINITY; k + 1];
    dp[0] = 0.0;
    for _ in 0..groups {
        let mut next = vec![f64::NEG_INFINITY; k + 1];
        for (t, slot) in next.iter_mut().enumerate() {
            let mut acc = f64::NEG_INFINITY;
            for (j, &lc) in terms.iter().enumerate().take(t + 1) {
                acc = ln_add(acc, dp[t - j] + lc);
            }
            *slot = acc;
        }
        dp = next;
    }
    (dp[k] - ln_choose(groups * size, k)).exp().clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(kind: SchemeKind, n: usize, g: Option<usize>, m: Option<usize>) -> SchemeSpec {
        SchemeSpec::new(kind, n, g, m).unwrap()
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

//! Mean time to interruption of the replicated system without repair:
//! `MTTI = int_0^inf S(t) dt`, in closed form where one is known, else by the trapezoidal rule
//! in log time.

use super::replicated::ReplicatedSystem;

/// `int_0^inf S(t) dt`: in closed form for exponential lifetimes with one or two replicas,
/// numerically ([`mtti_numeric`]) otherwise.
///
/// ```
/// use ckpt::failure::Lifetime;
/// use ckpt::model::{mtti::mtti, replicated::ReplicatedSystem};
/// let s = ReplicatedSystem::new(Lifetime::exponential(1.0).unwrap(), 1, 2).unwrap();
/// assert!((mtti(&s) - 1.5).abs() < 1e-12);
/// ```
pub fn mtti(system: &ReplicatedSystem) -> f64 {
    let mean = system.lifetime.mean();
    if system.lifetime.shape().is_exponential() {
        match system.replicas {
            1 => return mean / system.procs as f64,
            2 => return mtti_two_replicas_exponential(mean, system.procs),
            _ => {}
        }
    }
    mtti_numeric(system)
}

/// Relative tolerance of [`mtti_numeric`]. The MTTI only feeds the `*-mtti` rows, whose
/// intervals go as its square root or its first power: 1e-13 keeps them well inside the
/// 1e-6 the intervals are held to, and their overheads (judged under the reference model, at
/// worst a few percent off the optimum) inside 1e-12.
const MTTI_REL_TOL: f64 = 1e-13;

/// `int_0^inf S(t) dt` by the trapezoidal rule in `u = ln t`:
/// `MTTI = int_{-inf}^{inf} S(e^u) e^u du`.
///
/// In `u` the integrand is smooth on the whole line and dies off exponentially to the left
/// (like `e^u`) and at least like a Gaussian to the right (doubly exponentially for Weibull
/// and gamma lifetimes), and the fall of `S` takes a width of about `1 / (k r)` in `u` whatever
/// the number of processes (`1 - S ~ n t^(k r)` near 0). The trapezoidal rule on the line
/// converges exponentially for such integrands (the error goes as `exp(-2 pi d / h)` for a
/// function analytic in a strip of half-width `d`), so halving the step squares the relative
/// error: a change of `c` between two halvings leaves an error of about `c^2`. The end-point
/// singularity of `S` at `t = 0` for a Weibull of shape below 1 (`1 - S ~ t^(k r)`), which
/// cost the adaptive Gauss-Kronrod on `t` about 47,000 evaluations, disappears.
///
/// ```
/// use ckpt::failure::Lifetime;
/// use ckpt::model::{mtti::mtti_numeric, replicated::ReplicatedSystem};
/// // n = r = 1: the mean lifetime whatever the shape.
/// let s = ReplicatedSystem::new(Lifetime::new(ckpt::failure::Shape::Weibull { shape: 0.7 }, 3600.0).unwrap(), 1, 1).unwrap();
/// assert!((mtti_numeric(&s) / 3600.0 - 1.0).abs() < 1e-12);
/// ```
pub fn mtti_numeric(system: &ReplicatedSystem) -> f64 {
    // A centre near where S has dropped noticeably, found by halving from the mean.
    let mut a = system.lifetime.mean();
    for _ in 0..200 {
        if system.survival(a) > 0.5 {
            break;
        }
        a *= 0.5;
    }
    let c = a.ln();
    let f = |u: f64| {
        let t = (c + u).exp();
        if t.is_finite() {
            system.survival(t) * t
        } else {
            0.0
        }
    };
    // Ends: to the left f < e^u a, to the right f falls once S does; both ends stop where a
    // term is below 1e-18 of the running sum, or at |u| = 2000 (t beyond e^2000 a is
    // infinite in f64 and below e^-2000 a nothing is left), walked in steps of H0.
    const H0: f64 = 0.5;
    const U_MAX: f64 = 2000.0;
    let mut sum = f(0.0);
    let mut hi = 0.0;
    while hi < U_MAX {
        let v = f(hi + H0);
        hi += H0;
        sum += v;
        if v <= 1e-18 * sum && system.survival((c + hi).exp()) < 0.5 {
            break;
        }
    }
    let mut lo = 0.0;
    while lo > -U_MAX {
        let v = f(lo - H0);
        lo -= H0;
        sum += v;
        if v <= 1e-18 * sum {
            break;
        }
    }
    let mut h = H0;
    let mut estimate = h * sum;
    // Each halving adds the midpoints; 12 halvings (about 8,000 points per unit of u at most)
    // is far beyond what any lifetime of the models needs.
    for _ in 0..12 {
        let points = ((hi - lo) / h).round() as u64;
        for k in 0..points {
            sum += f(lo + (k as f64 + 0.5) * h);
        }
        h *= 0.5;
        let next = h * sum;
        let change = (next - estimate).abs();
        estimate = next;
        if change <= MTTI_REL_TOL.sqrt() * 1e-1 * estimate || change == 0.0 {
            break;
        }
    }
    estimate
}

/// The closed form for two exponential replicas: `M (1 + 4^n / C(2n, n)) / (2n)`.
///
/// Below 40 processes `4^n / C(2n, n)` is the quotient of two exact integers (two roundings);
/// from 40 on it is `sqrt(pi n)` divided by the asymptotic series of `C(2n, n) sqrt(pi n) / 4^n`
/// in `1/n` (eight terms, truncated 3e-17 relative at `n = 40`). Through `ln C(2n, n)` it lost
/// digits as `n` grew (5e-11 relative at `n = 10^5`).
pub fn mtti_two_replicas_exponential(mean: f64, procs: u64) -> f64 {
    let n = procs as f64;
    let ratio = if procs < 40 {
        // C(2n, k + 1) = C(2n, k) (2n - k) / (k + 1), exact; below 2^90 for n < 40.
        let mut c: u128 = 1;
        for k in 0..procs as u128 {
            c = c * (2 * procs as u128 - k) / (k + 1);
        }
        (1u128 << (2 * procs)) as f64 / c as f64
    } else {
        const SERIES: [f64; 8] = [
            1.0,
            -1.0 / 8.0,
            1.0 / 128.0,
            5.0 / 1024.0,
            -21.0 / 32768.0,
            -399.0 / 262144.0,
            869.0 / 4194304.0,
            39325.0 / 33554432.0,
        ];
        let x = 1.0 / n;
        let s = SERIES.iter().rev().fold(0.0, |acc, &c| acc * x + c);
        (std::f64::consts::PI * n).sqrt() / s
    };
    mean * (1.0 + ratio) / (2.0 * n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::{Lifetime, Shape, TEST_SHAPES};
    use crate::model::quadrature::integrate;

    /// `int_0^inf S(t) dt` the way the code did before the log-space rule: adaptive
    /// Gauss-Kronrod panel by panel on a doubling grid of `t`, written independently as a
    /// cross-check.
    fn mtti_gauss_kronrod(system: &ReplicatedSystem) -> f64 {
        let mut a = system.lifetime.mean();
        while system.survival(a) <= 0.5 {
            a *= 0.5;
        }
        let (mut total, mut lo, mut hi) = (0.0, 0.0, a);
        loop {
            let (v, _) = integrate(|t| system.survival(t), lo, hi, 1e-14, 0.0, 400);
            total += v;
            if v <= total * 1e-17 && system.survival(hi) <= 1e-300_f64.max(total * 1e-18 / hi) {
                return total;
            }
            lo = hi;
            hi *= 2.0;
        }
    }

    #[test]
    fn two_replicas_match_the_closed_form() {
        for (n, expected) in [(1u64, 1.5), (2, 0.9166667), (10, 0.3337731928)] {
            let s = ReplicatedSystem::new(Lifetime::exponential(1.0).unwrap(), n, 2).unwrap();
            let numeric = mtti_numeric(&s);
            let closed = mtti_two_replicas_exponential(1.0, n);
            assert_eq!(mtti(&s), closed);
            assert!(
                (numeric - closed).abs() < 1e-12 * closed,
                "{n}: {numeric} {closed}"
            );
            assert!((closed - expected).abs() < 5e-8, "{n}: {closed} {expected}");
        }
        // (1 + 4^n / C(2n, n)) / (2n) in exact rational arithmetic (Python's fractions and
        // math.comb), rounded to the nearest double: both branches within a few ulps.
        for (n, exact) in [
            (1u64, 1.5),
            (8, 0.38075951825951826),
            (39, 0.15518595080025152),
            (40, 0.15306334382809644),
            (63, 0.11981235905256905),
            (1000, 0.028528459420308003),
            (100_000, 0.0028074991113206643),
            (1_000_000, 0.0008867270362311306),
        ] {
            let closed = mtti_two_replicas_exponential(1.0, n);
            assert!(
                (closed - exact).abs() <= 4.0 * f64::EPSILON * exact,
                "{n}: {closed} {exact}"
            );
        }
        // C(2n, n) / 4^n = prod (2k - 1) / (2k), summed in logs (good to about 1e-12 here).
        for n in [1u64, 3, 64, 1000, 100_000] {
            let ln_ratio: f64 = (1..=n)
                .map(|k| (2.0 * k as f64).ln() - (2.0 * k as f64 - 1.0).ln())
                .sum();
            let direct = 7.0 * (1.0 + ln_ratio.exp()) / (2.0 * n as f64);
            let closed = mtti_two_replicas_exponential(7.0, n);
            assert!(
                (direct - closed).abs() < 1e-10 * closed,
                "{n}: {direct} {closed}"
            );
        }
    }

    #[test]
    fn log_space_rule_agrees_with_gauss_kronrod() {
        for shape in TEST_SHAPES {
            for (n, r) in [(1u64, 1u32), (64, 2), (16, 3), (1000, 2), (3, 5)] {
                let life = Lifetime::new(shape, 3600.0).unwrap();
                let s = ReplicatedSystem::new(life, n, r).unwrap();
                let (a, b) = (mtti_numeric(&s), mtti_gauss_kronrod(&s));
                // The log-normal's ln_cdf (through erfc) is good to about 1e-11 relative,
                // which bounds both integrals.
                let tol = if matches!(shape, Shape::LogNormal { .. }) {
                    1e-10
                } else {
                    1e-12
                };
                assert!(
                    (a - b).abs() <= tol * b,
                    "{shape:?} n={n} r={r}: {a} vs {b}"
                );
                if (n, r) == (1, 1) {
                    assert!((a - 3600.0).abs() <= tol * 3600.0, "{shape:?}: {a}");
                }
            }
        }
    }

    #[test]
    fn heavy_tails_converge() {
        let s = ReplicatedSystem::new(
            Lifetime::new(Shape::Weibull { shape: 0.5 }, 1.0).unwrap(),
            1,
            1,
        )
        .unwrap();
        assert!((mtti(&s) - 1.0).abs() < 1e-9);
        let s = ReplicatedSystem::new(
            Lifetime::new(Shape::LogNormal { sigma: 1.2 }, 1.0).unwrap(),
            1,
            1,
        )
        .unwrap();
        assert!((mtti(&s) - 1.0).abs() < 1e-8, "{}", mtti(&s));
    }
}

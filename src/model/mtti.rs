//! Mean time to interruption of the replicated system without repair:
//! `MTTI = int_0^inf S(t) dt`.

use super::quadrature::integrate;
use super::replicated::ReplicatedSystem;
use statrs::function::factorial::ln_binomial;

/// `int_0^inf S(t) dt`, integrated panel by panel on a doubling grid until the tail is nil.
///
/// ```
/// use ckpt::failure::Lifetime;
/// use ckpt::model::{mtti::mtti, replicated::ReplicatedSystem};
/// let s = ReplicatedSystem::new(Lifetime::exponential(1.0).unwrap(), 1, 2).unwrap();
/// assert!((mtti(&s) - 1.5).abs() < 1e-12);
/// ```
pub fn mtti(system: &ReplicatedSystem) -> f64 {
    let mean = system.lifetime.mean();
    if system.replicas == 1 && system.lifetime.shape().is_exponential() {
        return mean / system.procs as f64;
    }
    // The first panel ends near where S has dropped noticeably, found by halving.
    let mut a = mean;
    for _ in 0..200 {
        if system.survival(a) > 0.5 {
            break;
        }
        a *= 0.5;
    }
    let mut total = 0.0;
    let mut lo = 0.0;
    let mut hi = a;
    for _ in 0..2000 {
        let (v, _) = integrate(|t| system.survival(t), lo, hi, 1e-14, 0.0, 200);
        total += v;
        if v <= total * 1e-17 && system.survival(hi) <= 1e-300_f64.max(total * 1e-18 / hi) {
            break;
        }
        lo = hi;
        hi *= 2.0;
        if !hi.is_finite() {
            break;
        }
    }
    total
}

/// The closed form for two exponential replicas: `M (1 + 4^n / C(2n, n)) / (2n)`.
pub fn mtti_two_replicas_exponential(mean: f64, procs: u64) -> f64 {
    let n = procs as f64;
    let ratio = (n * 4f64.ln() - ln_binomial(2 * procs, procs)).exp();
    mean * (1.0 + ratio) / (2.0 * n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::{Lifetime, Shape};

    #[test]
    fn two_replicas_match_the_closed_form() {
        for (n, expected) in [(1u64, 1.5), (2, 0.9166667), (10, 0.3337731928)] {
            let s = ReplicatedSystem::new(Lifetime::exponential(1.0).unwrap(), n, 2).unwrap();
            let numeric = mtti(&s);
            let closed = mtti_two_replicas_exponential(1.0, n);
            assert!((numeric - closed).abs() < 1e-11, "{n}: {numeric} {closed}");
            assert!((closed - expected).abs() < 5e-8, "{n}: {closed} {expected}");
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

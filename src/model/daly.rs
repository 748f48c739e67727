//! Daly: the first-order estimate (2003), the complete cost model and its higher-order
//! estimate (2006), and the exact optimum of the complete model through Lambert's W.

use super::{CostModel, DalyInputs, Estimator, ModelError};
use crate::failure::ln_expm1;

/// Daly's first-order interval `sqrt(2 delta (M + R)) - delta`; not applicable where it is not
/// positive (`delta >= 2 (M + R)`).
///
/// ```
/// let e = ckpt::model::daly::first_order(300.0, 86400.0, 600.0);
/// assert!((e.interval.unwrap() - 6924.96).abs() < 0.01);
/// ```
pub fn first_order(delta: f64, mtbf: f64, restart: f64) -> Estimator {
    first_order_named("daly-first-order", delta, mtbf, restart)
}

/// [`first_order`] under another row name.
pub fn first_order_named(name: &'static str, delta: f64, mtbf: f64, restart: f64) -> Estimator {
    Estimator::from_value(
        name,
        (2.0 * delta * (mtbf + restart)).sqrt() - delta,
        "not applicable: the formula is not positive for delta >= 2(M + R)",
    )
}

/// Daly's higher-order estimate
/// `sqrt(2 delta M) [1 + (1/3) sqrt(delta/(2M)) + (1/9) delta/(2M)] - delta`, defined for
/// `delta < 2M` (Daly falls back to `tau = M` beyond; this row reports it as not applicable).
///
/// ```
/// let e = ckpt::model::daly::higher_order(300.0, 86400.0);
/// assert_eq!((e.interval.unwrap() / 60.0).round(), 117.0);
/// ```
pub fn higher_order(delta: f64, mtbf: f64) -> Estimator {
    higher_order_named("daly-higher-order", delta, mtbf)
}

/// [`higher_order`] under another row name.
pub fn higher_order_named(name: &'static str, delta: f64, mtbf: f64) -> Estimator {
    if !(delta < 2.0 * mtbf) {
        return Estimator {
            name,
            interval: Err(
                "not applicable for delta >= 2M (Daly's fallback there is tau = M)".into(),
            ),
        };
    }
    let q = delta / (2.0 * mtbf);
    let tau = (2.0 * delta * mtbf).sqrt() * (1.0 + q.sqrt() / 3.0 + q / 9.0) - delta;
    Estimator::from_value(
        name,
        tau,
        "not applicable: the estimate is not positive here",
    )
}

/// `-(u + ln(1 - u)) = sum_{k>=2} u^k / k` for `0 <= u < 1`, without the cancellation of the
/// direct form for small `u`.
pub(crate) fn neg_u_plus_ln1m(u: f64) -> f64 {
    if u < 0.1 {
        let mut term = u;
        let mut sum = 0.0;
        for k in 2..60 {
            term *= u;
            let t = term / k as f64;
            sum += t;
            if t < sum * 1e-18 {
                break;
            }
        }
        sum
    } else {
        -(u + (-u).ln_1p())
    }
}

/// `1 + W0(-e^(-1-a))` for `a > 0`: the exact optimum of Daly's complete model is `M` times
/// this with `a = delta/M`.
///
/// The argument sits next to W's branch point, where a naive evaluation loses half its digits;
/// this solves `u + ln(1 - u) = -a` for `u = 1 + W` by Newton from the branch-point series in
/// `p = sqrt(2 (1 - e^(-a)))`, with the left side summed as a series for small `u`.
///
/// ```
/// let u = ckpt::model::daly::one_plus_lambert_w0_branch(1e-12);
/// assert!((u - (2e-12f64).sqrt()).abs() / u < 1e-5);
/// ```
pub fn one_plus_lambert_w0_branch(a: f64) -> f64 {
    if !(a > 0.0) {
        return 0.0;
    }
    if a > 30.0 {
        // 1 - u = e^(-a-u) with u = 1 to double precision.
        return 1.0 - (-1.0 - a).exp();
    }
    let p = (2.0 * -(-a).exp_m1()).sqrt();
    // W0 = -1 + p - p^2/3 + 11/72 p^3 - 43/540 p^4 + 769/17280 p^5 - 221/8505 p^6 + ...
    let series = p - p * p / 3.0 + 11.0 / 72.0 * p.powi(3) - 43.0 / 540.0 * p.powi(4)
        + 769.0 / 17280.0 * p.powi(5)
        - 221.0 / 8505.0 * p.powi(6);
    let mut u = series.clamp(f64::MIN_POSITIVE, 1.0 - 1e-16);
    // g(u) = sum u^k/k increases from 0 to inf on (0, 1); Newton on ln g is well behaved
    // near the branch point (g ~ u^2/2) and near 1 (g ~ -ln(1-u)).
    for _ in 0..100 {
        let g = neg_u_plus_ln1m(u);
        let dg = u / (1.0 - u);
        let step = (g.ln() - a.ln()) * g / dg;
        let next = (u - step).clamp(u * 0.5, u + 0.5 * (1.0 - u));
        if (next - u).abs() <= 4.0 * f64::EPSILON * u {
            u = next;
            break;
        }
        u = next;
    }
    u
}

/// Exact optimum of Daly's complete model: `M (1 + W0(-e^(-1 - delta/M)))`.
///
/// ```
/// let tau = ckpt::model::daly::exact_optimum(300.0, 86400.0);
/// assert!((tau / 60.0 - 116.69).abs() < 0.005);
/// ```
pub fn exact_optimum(delta: f64, mtbf: f64) -> f64 {
    mtbf * one_plus_lambert_w0_branch(delta / mtbf)
}

/// The exact optimum as an estimator row (closed form through Lambert's W).
pub fn exact(name: &'static str, delta: f64, mtbf: f64) -> Estimator {
    Estimator::from_value(
        name,
        exact_optimum(delta, mtbf),
        "needs a positive cost and MTBF",
    )
}

/// Daly's complete model with downtime (Bougeret et al.):
/// `overhead(tau) = e^(R/M) (M + D) (e^((tau + delta)/M) - 1) / tau`.
///
/// ```
/// use ckpt::model::{CostModel, daly::DalyComplete};
/// let m = DalyComplete::new(86400.0, 300.0, 600.0, 0.0).unwrap();
/// let o = m.overhead(7001.0).unwrap();
/// assert!(o > 1.0 && o < 1.1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DalyComplete {
    name: &'static str,
    daly: DalyInputs,
}

impl DalyComplete {
    /// The model for MTBF `mtbf`, checkpoint cost `delta`, restart `restart`, downtime
    /// `downtime` (all seconds).
    pub fn new(mtbf: f64, delta: f64, restart: f64, downtime: f64) -> Result<Self, ModelError> {
        Ok(DalyComplete {
            name: "daly-complete",
            daly: DalyInputs::new(mtbf, delta, restart, downtime)?,
        })
    }

    /// The same model under another row name.
    pub fn named(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }

    /// The exact optimum (Lambert W); restart and downtime scale the overhead, not its argmin.
    pub fn exact_optimum(&self) -> f64 {
        exact_optimum(self.daly.cost, self.daly.mtbf)
    }
}

impl CostModel for DalyComplete {
    fn name(&self) -> &'static str {
        self.name
    }

    fn ln_overhead(&self, tau: f64) -> f64 {
        if !(tau > 0.0) {
            return f64::INFINITY;
        }
        let m = self.daly.mtbf;
        (m + self.daly.downtime).ln() - tau.ln()
            + self.daly.restart / m
            + ln_expm1((tau + self.daly.cost) / m)
    }

    fn seed_interval(&self) -> f64 {
        higher_order(self.daly.cost, self.daly.mtbf)
            .interval
            .unwrap_or(self.daly.mtbf)
    }

    fn expected_failures(&self, tau: f64) -> f64 {
        // Wald: failures = uptime / M, and wall = failures (M + D), so failures per interval
        // are e^(R/M) (e^(T/M) - 1).
        (self.daly.restart / self.daly.mtbf).exp()
            * ((tau + self.daly.cost) / self.daly.mtbf).exp_m1()
    }

    fn stationarity(&self, tau: f64) -> Option<f64> {
        // d/dtau ln overhead = 0  <=>  (tau + delta)/M + ln(1 - tau/M) = 0; decreasing in tau.
        let u = tau / self.daly.mtbf;
        if u >= 1.0 {
            return Some(f64::NEG_INFINITY);
        }
        Some(self.daly.cost / self.daly.mtbf - neg_u_plus_ln1m(u.max(0.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lambert_branch_solves_its_equation() {
        for a in [1e-14, 1e-12, 1e-9, 1e-6, 1e-3, 0.1, 0.5, 1.0, 1.9] {
            let u = one_plus_lambert_w0_branch(a);
            let residual = neg_u_plus_ln1m(u) / a - 1.0;
            assert!(
                residual.abs() < 1e-13,
                "a = {a}: u = {u}, residual {residual}"
            );
        }
        // Far beyond the models' range u is 1 - e^(-1-a-...) and only its distance to 1,
        // which f64 holds to ~1e-16 absolute, can be checked.
        for a in [5.0, 20.0, 50.0] {
            let u = one_plus_lambert_w0_branch(a);
            let expected = 1.0 - (-a - u).exp();
            assert!((u - expected).abs() < 1e-15, "a = {a}: {u} {expected}");
        }
    }

    #[test]
    fn lambert_branch_agrees_with_an_independent_w0() {
        // Away from the branch point a general-purpose W0 is accurate: use it as a second oracle.
        for a in [1e-4f64, 1e-3, 0.01, 0.1, 0.5, 1.0, 1.9] {
            let z = -(-1.0 - a).exp();
            let w = lambert_w::lambert_w0(z);
            let ours = one_plus_lambert_w0_branch(a) - 1.0;
            assert!(((ours - w) / w).abs() < 1e-9, "a = {a}: {ours} vs {w}");
        }
    }

    #[test]
    fn stationarity_changes_sign_at_the_exact_optimum() {
        let m = DalyComplete::new(3600.0, 60.0, 0.0, 0.0).unwrap();
        let tau = m.exact_optimum();
        assert!(m.stationarity(tau * (1.0 - 1e-9)).unwrap() > 0.0);
        assert!(m.stationarity(tau * (1.0 + 1e-9)).unwrap() < 0.0);
    }

    #[test]
    fn overhead_is_finite_far_out() {
        let m = DalyComplete::new(60.0, 3600.0, 0.0, 0.0).unwrap();
        assert!(m.ln_overhead(1e6).is_finite());
        assert!(m.overhead(1e6).is_none());
    }

    #[test]
    fn estimator_ranges() {
        assert!(first_order(1000.0, 100.0, 100.0).interval.is_err());
        assert!(higher_order(200.0, 100.0).interval.is_err());
        assert!(higher_order(199.0, 100.0).interval.is_ok());
    }
}

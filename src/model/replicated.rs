//! The volunteer-grid model: `n` inter-dependent processes, each run as `r` replicas on hosts
//! whose lifetimes follow a success function `f(t)`. The job survives an interval of wall time
//! `T` while every process keeps a replica: `S(T) = [1 - (1 - f(T))^r]^n`.

use super::quadrature::{integrate, tanh_sinh};
use super::{CostModel, Estimator, ModelError, nonnegative, positive};
use crate::failure::{Lifetime, log1mexp};
use serde::Serialize;
use std::fmt;

/// When a process that lost all its replicas is acted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Detect {
    /// At the next checkpoint time (the seed paper's assumption): `G = T / S(T)`.
    End,
    /// At once, retrying after the restart cost: `G = (int_0^T S + R (1 - S(T))) / S(T)`.
    Immediate,
}

impl fmt::Display for Detect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Detect::End => "end",
            Detect::Immediate => "immediate",
        })
    }
}

/// The replicated-process system: its survival function, without costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplicatedSystem {
    /// Lifetime of one replica's host.
    pub lifetime: Lifetime,
    /// Number of inter-dependent processes, n >= 1.
    pub procs: u64,
    /// Replicas per process, r >= 1.
    pub replicas: u32,
}

impl ReplicatedSystem {
    /// A system of `procs` processes with `replicas` replicas each.
    pub fn new(lifetime: Lifetime, procs: u64, replicas: u32) -> Result<Self, ModelError> {
        if procs == 0 {
            return Err(ModelError::Parameter {
                name: "procs",
                value: 0.0,
                accepted: "at least 1",
            });
        }
        if replicas == 0 {
            return Err(ModelError::Parameter {
                name: "replicas",
                value: 0.0,
                accepted: "at least 1",
            });
        }
        Ok(ReplicatedSystem {
            lifetime,
            procs,
            replicas,
        })
    }

    /// `ln S(t)`: finite until the result is below the smallest f64 logarithm of interest;
    /// `ln S = n L(-r ln F(t))` with `L(x) = ln(1 - e^(-x))`.
    pub fn ln_survival(&self, t: f64) -> f64 {
        if !(t > 0.0) {
            return 0.0;
        }
        let ln_cdf = self.lifetime.ln_cdf(t);
        self.procs as f64 * log1mexp(-(self.replicas as f64) * ln_cdf)
    }

    /// `S(t)`.
    pub fn survival(&self, t: f64) -> f64 {
        self.ln_survival(t).exp()
    }

    /// `1 - S(t)`, accurate when it is tiny.
    pub fn failure_probability(&self, t: f64) -> f64 {
        -self.ln_survival(t).exp_m1()
    }

    /// `int_0^T S(t) dt` to a relative 1e-12.
    pub fn integral_survival(&self, t_end: f64) -> f64 {
        if self.replicas == 1 && self.lifetime.shape().is_exponential() && t_end > 0.0 {
            // S = e^(-x t), x = n / M: the integral is closed.
            let x = self.procs as f64 / self.lifetime.mean();
            return -(-x * t_end).exp_m1() / x;
        }
        match self.integral_deficit(t_end) {
            Some(lost) => t_end - lost,
            None => self.quadrature(|t| self.survival(t), t_end),
        }
    }

    /// `int_0^T g` for `g` built from `S`: Gauss-Kronrod where `S` is smooth at 0
    /// (exponential lifetimes: `1 - S ~ t^r`), tanh-sinh where it has a fractional power there
    /// (`t^(k r)` for a Weibull of shape k, and the like).
    fn quadrature<G: Fn(f64) -> f64>(&self, g: G, t_end: f64) -> f64 {
        if self.lifetime.shape().is_exponential() {
            integrate(g, 0.0, t_end, 1e-12, 0.0, 400).0
        } else {
            tanh_sinh(g, 0.0, t_end, 1e-12).0
        }
    }

    /// `int_0^T (1 - S(t)) dt` while `S(T) >= 1/2`, where it is the small part of the
    /// integral and keeps every digit of `T - deficit`; `None` beyond.
    pub fn integral_deficit(&self, t_end: f64) -> Option<f64> {
        if !(t_end > 0.0) {
            return Some(0.0);
        }
        if self.failure_probability(t_end) >= 0.5 {
            return None;
        }
        if self.replicas == 1 && self.lifetime.shape().is_exponential() {
            // S = e^(-x t), x = n / M: the deficit is T - (1 - e^(-x T)) / x, summed as a
            // series where the closed form would cancel.
            let x = self.procs as f64 / self.lifetime.mean();
            let y = x * t_end;
            return Some(if y < 0.1 {
                let mut term = t_end;
                let mut sum = 0.0;
                for k in 2..40 {
                    term *= -y / k as f64;
                    sum -= term;
                    if term.abs() < 1e-18 * sum.abs() {
                        break;
                    }
                }
                sum
            } else {
                t_end + (-y).exp_m1() / x
            });
        }
        Some(self.quadrature(|t| self.failure_probability(t), t_end))
    }
}

/// The replicated model's cost function in one detection variant.
///
/// ```
/// use ckpt::failure::Lifetime;
/// use ckpt::model::CostModel;
/// use ckpt::model::replicated::{Detect, Replicated, ReplicatedSystem};
/// let sys = ReplicatedSystem::new(Lifetime::exponential(3600.0).unwrap(), 1, 1).unwrap();
/// let m = Replicated::new(sys, 60.0, 0.0, Detect::End).unwrap();
/// // n = r = 1, `end`: the exact optimum is (sqrt(delta^2 + 4 delta M) - delta) / 2.
/// let exact = ((60.0f64 * 60.0 + 4.0 * 60.0 * 3600.0).sqrt() - 60.0) / 2.0;
/// assert!(m.ln_overhead(exact) < m.ln_overhead(exact * 1.01));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replicated {
    system: ReplicatedSystem,
    delta: f64,
    restart: f64,
    detect: Detect,
}

impl Replicated {
    /// The model with checkpoint cost `delta`, restart cost `restart` (used by `immediate`)
    /// and detection variant `detect`.
    pub fn new(
        system: ReplicatedSystem,
        delta: f64,
        restart: f64,
        detect: Detect,
    ) -> Result<Self, ModelError> {
        Ok(Replicated {
            system,
            delta: positive("cost", delta)?,
            restart: nonnegative("restart", restart)?,
            detect,
        })
    }

    /// The system this model is of.
    pub fn system(&self) -> &ReplicatedSystem {
        &self.system
    }

    /// The detection variant.
    pub fn detect(&self) -> Detect {
        self.detect
    }

    /// `ln G(tau)`: the expected wall time to commit one interval.
    pub fn ln_g(&self, tau: f64) -> f64 {
        self.ln_g_over_tau(tau) + tau.ln()
    }

    /// `ln(G(tau) / tau)`, written as `ln1p(excess / tau) - ln S` so that the optimizer sees
    /// the overhead to full relative precision even when it is within 1e-9 of 1.
    fn ln_g_over_tau(&self, tau: f64) -> f64 {
        let t = tau + self.delta;
        let ln_s = self.system.ln_survival(t);
        let lost = -ln_s.exp_m1();
        match self.detect {
            Detect::End => (self.delta / tau).ln_1p() - ln_s,
            Detect::Immediate => match self.system.integral_deficit(t) {
                Some(deficit) => {
                    ((self.delta - deficit + self.restart * lost) / tau).ln_1p() - ln_s
                }
                None => {
                    let numerator = self.system.integral_survival(t) + self.restart * lost;
                    numerator.ln() - tau.ln() - ln_s
                }
            },
        }
    }
}

impl CostModel for Replicated {
    fn name(&self) -> &'static str {
        match self.detect {
            Detect::End => "replicated-end",
            Detect::Immediate => "replicated-immediate",
        }
    }

    fn ln_overhead(&self, tau: f64) -> f64 {
        if !(tau > 0.0) {
            return f64::INFINITY;
        }
        let v = self.ln_g_over_tau(tau);
        if v.is_nan() { f64::INFINITY } else { v }
    }

    fn seed_interval(&self) -> f64 {
        let s = &self.system;
        let e = match self.detect {
            Detect::End => first_order_end(self.delta, s.lifetime.mean(), s.procs, s.replicas),
            Detect::Immediate => {
                first_order_immediate(self.delta, s.lifetime.mean(), s.procs, s.replicas)
            }
        };
        e.interval.unwrap_or(s.lifetime.mean())
    }

    fn expected_failures(&self, tau: f64) -> f64 {
        // Attempts are Bernoulli trials with success S: (1 - S)/S lost attempts per commit.
        (-self.system.ln_survival(tau + self.delta)).exp_m1()
    }
}

/// First-order optimum of the `end` variant: `[delta M^r / (n r)]^(1/(r+1))`.
pub fn first_order_end(delta: f64, mtbf: f64, procs: u64, replicas: u32) -> Estimator {
    let r = replicas as f64;
    // Computed in logs: M^r overflows for r of a few dozen.
    let ln = (delta.ln() + r * mtbf.ln() - (procs as f64 * r).ln()) / (r + 1.0);
    Estimator::from_value(
        "replicated-end-first-order",
        ln.exp(),
        "needs positive inputs",
    )
}

/// First-order optimum of the `immediate` variant (R = 0):
/// `[(r+1) delta M^r / (n r^2)]^(1/(r+1))`.
pub fn first_order_immediate(delta: f64, mtbf: f64, procs: u64, replicas: u32) -> Estimator {
    let r = replicas as f64;
    let ln =
        ((r + 1.0).ln() + delta.ln() + r * mtbf.ln() - (procs as f64 * r * r).ln()) / (r + 1.0);
    Estimator::from_value(
        "replicated-immediate-first-order",
        ln.exp(),
        "needs positive inputs",
    )
}

/// The exact optimum of the `end` variant for one process with one exponential replica:
/// `(sqrt(delta^2 + 4 delta M) - delta) / 2`, written without cancellation.
pub fn exact_end_single(delta: f64, mtbf: f64) -> f64 {
    2.0 * delta * mtbf / ((delta * delta + 4.0 * delta * mtbf).sqrt() + delta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::Shape;

    fn sys(n: u64, r: u32, mean: f64) -> ReplicatedSystem {
        ReplicatedSystem::new(Lifetime::exponential(mean).unwrap(), n, r).unwrap()
    }

    #[test]
    fn log_survival_is_finite_where_the_naive_form_is_not() {
        let s = sys(1, 1, 1.0);
        // lambda T = 38: the naive n ln1p(-(1 - e^-x)^r) is already -inf... for r = 1 it is -38.
        assert!((s.ln_survival(38.0) + 38.0).abs() < 1e-12);
        let big = sys(1_000_000, 2, 1.0);
        let v = big.ln_survival(30.0);
        assert!(v.is_finite() && v < -1e6, "{v}");
    }

    #[test]
    fn integral_matches_r1_closed_form_through_quadrature() {
        let s = ReplicatedSystem::new(
            Lifetime::new(Shape::Weibull { shape: 1.0 }, 100.0).unwrap(),
            3,
            1,
        )
        .unwrap();
        for t in [1e-3, 0.5, 50.0, 1000.0] {
            let closed = sys(3, 1, 100.0).integral_survival(t);
            let quad = s.integral_survival(t);
            assert!(
                (closed - quad).abs() / closed < 1e-12,
                "{t}: {closed} {quad}"
            );
            let (dc, dq) = (sys(3, 1, 100.0).integral_deficit(t), s.integral_deficit(t));
            if let (Some(dc), Some(dq)) = (dc, dq) {
                assert!((dc - dq).abs() <= 1e-12 * dc, "{t}: {dc} {dq}");
            }
        }
    }

    #[test]
    fn r2_integral_matches_incomplete_beta() {
        use statrs::function::beta::{beta_reg, ln_beta};
        for &(n, t) in &[(1u64, 0.3f64), (4, 1.0), (16, 0.05), (64, 2.0)] {
            let s = sys(n, 2, 1.0);
            let nf = n as f64;
            let lead = (nf * 4f64.ln() + ln_beta(nf, nf + 1.0)).exp();
            let closed =
                lead * (beta_reg(nf, nf + 1.0, 0.5) - beta_reg(nf, nf + 1.0, (-t).exp() / 2.0));
            let quad = s.integral_survival(t);
            assert!(
                (closed - quad).abs() / quad < 1e-9,
                "n={n} t={t}: {closed} {quad}"
            );
        }
    }

    #[test]
    fn immediate_with_one_replica_and_no_restart_is_daly() {
        use crate::model::daly::DalyComplete;
        let m = Replicated::new(sys(1, 1, 5000.0), 100.0, 0.0, Detect::Immediate).unwrap();
        let d = DalyComplete::new(5000.0, 100.0, 0.0, 0.0).unwrap();
        for tau in [10.0, 500.0, 5000.0, 40000.0] {
            let a = m.ln_overhead(tau);
            let b = d.ln_overhead(tau);
            assert!((a - b).abs() < 1e-12, "{tau}: {a} {b}");
        }
    }

    #[test]
    fn zero_counts_are_refused() {
        let l = Lifetime::exponential(1.0).unwrap();
        assert!(ReplicatedSystem::new(l, 0, 1).is_err());
        assert!(ReplicatedSystem::new(l, 1, 0).is_err());
    }
}

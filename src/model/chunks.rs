//! Whole chunks for a finite job (Bougeret et al., SC11): a job of `W` seconds of work cut into
//! `K` equal chunks, each followed by a checkpoint, under exponential failures with restart and
//! downtime (`docs/models.md` §9).
//!
//! The expected completion with `K` chunks is `K e^(λR) (1/λ + D) (e^(λ(W/K + C)) - 1)`: `K`
//! times Daly's complete-model term for one segment of `W/K + C`. As a function of a real `K`
//! it is convex, and its minimum is at `K0 = λW / (1 + L(-e^(-λC-1)))` (Lambert's W, principal
//! branch), i.e. `W` over Daly's exact optimal interval; the best whole count is `floor(K0)` or
//! `ceil(K0)`.

use super::daly::{exact_optimum, ln_expm1};
use super::{DalyInputs, ModelError, positive};

/// Most chunks the model will count: beyond 2^53 a count is no longer an exact f64.
pub const MAX_CHUNKS: u64 = 1 << 53;

/// The optimal whole number of chunks for a finite job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WholeChunks {
    /// Number of chunks `K` (each ends with a checkpoint).
    pub count: u64,
    /// Work per chunk, `W / K` (s).
    pub interval: f64,
    /// Expected completion time with `K` chunks (s).
    pub completion: f64,
    /// The real-valued optimum `K0 = W / tau*` the count was rounded from.
    pub continuous_count: f64,
}

/// The inputs of the finite-job model, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FiniteJob {
    work: f64,
    daly: DalyInputs,
}

impl FiniteJob {
    /// A job of `work` seconds under MTBF `mtbf`, checkpoint cost `cost`, restart `restart`
    /// and downtime `downtime` (all seconds). Work, MTBF and cost must be positive and finite,
    /// restart and downtime finite and not negative.
    pub fn new(
        work: f64,
        mtbf: f64,
        cost: f64,
        restart: f64,
        downtime: f64,
    ) -> Result<FiniteJob, ModelError> {
        Ok(FiniteJob {
            work: positive("work", work)?,
            daly: DalyInputs::new(mtbf, cost, restart, downtime)?,
        })
    }

    /// `ln` of the expected completion with `k` equal chunks; `+inf` for `k = 0`.
    pub fn ln_completion(&self, k: u64) -> f64 {
        if k == 0 {
            return f64::INFINITY;
        }
        let m = self.daly.mtbf;
        let kf = k as f64;
        kf.ln()
            + self.daly.restart / m
            + (m + self.daly.downtime).ln()
            + ln_expm1((self.work / kf + self.daly.cost) / m)
    }

    /// The expected completion with `k` equal chunks (s), or `None` beyond f64 range.
    pub fn completion(&self, k: u64) -> Option<f64> {
        super::finite_exp(self.ln_completion(k))
    }

    /// The real-valued optimum `K0 = λW / (1 + W0(-e^(-λC-1)))`.
    pub fn continuous_count(&self) -> f64 {
        self.work / exact_optimum(self.daly.cost, self.daly.mtbf)
    }

    /// The best whole number of chunks: `floor(K0)` or `ceil(K0)` (at least 1), whichever has
    /// the lower expected completion (the smaller count on a tie).
    ///
    /// ```
    /// use ckpt::model::chunks::FiniteJob;
    /// // Ten days of work, C = R = 10 min, D = 1 min, MTBF one day.
    /// let job = FiniteJob::new(864_000.0, 86_400.0, 600.0, 600.0, 60.0).unwrap();
    /// let best = job.optimum().unwrap();
    /// assert_eq!(best.count, 88);
    /// assert!((best.completion - 981_835.86).abs() < 0.01);
    /// ```
    pub fn optimum(&self) -> Result<WholeChunks, ModelError> {
        let k0 = self.continuous_count();
        if !(k0.is_finite() && k0 > 0.0) || k0 >= MAX_CHUNKS as f64 {
            return Err(ModelError::Parameter {
                name: "work",
                value: self.work,
                accepted: "a job that needs fewer than 2^53 chunks at the optimal interval",
            });
        }
        let lo = (k0.floor() as u64).max(1);
        let hi = (k0.ceil() as u64).max(1);
        let count = if self.ln_completion(hi) < self.ln_completion(lo) {
            hi
        } else {
            lo
        };
        let completion = self.completion(count).ok_or(ModelError::Parameter {
            name: "mtbf",
            value: self.daly.mtbf,
            accepted: "an MTBF that leaves an expected completion within f64 range",
        })?;
        Ok(WholeChunks {
            count,
            interval: self.work / count as f64,
            completion,
            continuous_count: k0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostModel;
    use crate::model::daly::DalyComplete;
    use proptest::prelude::*;

    /// The issue's formula, evaluated directly (no logarithms), as an independent oracle.
    fn direct(w: f64, m: f64, c: f64, r: f64, d: f64, k: u64) -> f64 {
        let lam = 1.0 / m;
        k as f64 * (lam * r).exp() * (m + d) * ((lam * (w / k as f64 + c)).exp() - 1.0)
    }

    #[test]
    fn the_issue_example() {
        let (w, m, c, r, d) = (864_000.0, 86_400.0, 600.0, 600.0, 60.0);
        let job = FiniteJob::new(w, m, c, r, d).unwrap();
        let best = job.optimum().unwrap();
        assert_eq!(best.count, 88);
        assert!((best.completion - 981_835.86).abs() < 0.005, "{best:?}");
        assert!((best.interval - w / 88.0).abs() < 1e-9);
        // Brute force over every count up to 10 K0: none beats the chosen one.
        let chosen = direct(w, m, c, r, d, best.count);
        assert!((chosen / best.completion - 1.0).abs() < 1e-12);
        for k in 1..900 {
            assert!(direct(w, m, c, r, d, k) >= chosen, "k = {k}");
        }
    }

    #[test]
    fn one_chunk_when_the_job_is_short() {
        let job = FiniteJob::new(10.0, 86_400.0, 600.0, 0.0, 0.0).unwrap();
        let best = job.optimum().unwrap();
        assert_eq!(best.count, 1);
        assert!((best.completion - direct(10.0, 86_400.0, 600.0, 0.0, 0.0, 1)).abs() < 1e-6);
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(FiniteJob::new(f64::NAN, 1.0, 1.0, 0.0, 0.0).is_err());
        assert!(FiniteJob::new(1.0, 1.0, 0.0, 0.0, 0.0).is_err());
        assert!(FiniteJob::new(1.0, 1.0, 1.0, -1.0, 0.0).is_err());
        let e = FiniteJob::new(1.0, -5.0, 1.0, 0.0, 0.0).unwrap_err();
        assert!(e.to_string().contains("mtbf = -5"), "{e}");
        // 1e300 s of work at a 1 s interval would need more chunks than a count can hold.
        let huge = FiniteJob::new(1e300, 1e3, 1e-3, 0.0, 0.0).unwrap();
        assert!(huge.optimum().is_err());
    }

    proptest! {
        #[test]
        fn whole_chunks_are_optimal_and_bounded_by_the_continuous_optimum(
            ln_m in 6.0f64..13.0, ln_c_over_m in -9.0f64..-1.0, ln_w_over_tau in -2.0f64..5.0,
            r_over_c in 0.0f64..3.0, d_over_c in 0.0f64..1.0,
        ) {
            let m = ln_m.exp();
            let c = m * ln_c_over_m.exp();
            let (r, d) = (r_over_c * c, d_over_c * c);
            let tau = exact_optimum(c, m);
            let w = tau * ln_w_over_tau.exp();
            let job = FiniteJob::new(w, m, c, r, d).unwrap();
            let best = job.optimum().unwrap();
            let eps = 1e-10 * best.completion;
            // Brute force around K0: no whole count does better.
            let k0 = best.continuous_count;
            let top = (3.0 * k0).ceil() as u64 + 3;
            for k in 1..=top.min(2000) {
                prop_assert!(direct(w, m, c, r, d, k) >= best.completion - eps, "k = {}", k);
            }
            // The continuous relaxation (W times the complete model's minimum) is a lower
            // bound the whole count never beats by more than rounding.
            let model = DalyComplete::new(m, c, r, d).unwrap();
            let relaxed = w * model.overhead(tau).unwrap();
            prop_assert!(relaxed <= best.completion + eps, "{} {}", relaxed, best.completion);
            // Checkpointing every tau* as the simulator does (floor(W/tau*) chunks of tau*
            // and the remainder) completes no sooner than the whole-chunk optimum.
            let full = (w / tau).floor();
            let rest = w - full * tau;
            let seg = |x: f64| (r / m).exp() * (m + d) * ((x + c) / m).exp_m1();
            let periodic = full * seg(tau) + if rest > 0.0 { seg(rest) } else { 0.0 };
            prop_assert!(periodic >= best.completion - eps, "{} {}", periodic, best.completion);
        }
    }
}

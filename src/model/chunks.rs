//! Whole chunks for a finite job (Bougeret et al., SC11): a job of `W` seconds of work cut into
//! `K` equal chunks, each followed by a checkpoint, under exponential failures with restart and
//! downtime (`docs/models.md` §9).
//!
//! The expected completion with `K` chunks is `K e^(λR) (1/λ + D) (e^(λ(W/K + C)) - 1)`: `K`
//! times Daly's complete-model term for one segment of `W/K + C`. As a function of a real `K`
//! it is convex, and its minimum is at `K0 = λW / (1 + L(-e^(-λC-1)))` (Lambert's W, principal
//! branch), i.e. `W` over Daly's exact optimal interval; the best whole count is `floor(K0)` or
//! `ceil(K0)`.

use super::daly::exact_optimum;
use super::{DalyInputs, ModelError, positive};
use crate::failure::ln_expm1;

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
    /// The standard deviation of the completion time (s), where the model gives it.
    pub completion_sd: Option<f64>,
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

    /// The standard deviation of the completion with `k` equal chunks (s): the square root of
    /// `k` times the variance of one segment (§9.1), or `None` beyond f64 range.
    ///
    /// ```
    /// use ckpt::model::chunks::FiniteJob;
    /// // Failures so rare that a segment fails at most once: the spread is that of the one
    /// // failure's cost, about sqrt(k p) (T/2 + R) for a failure probability p = T / M each.
    /// let job = FiniteJob::new(3600.0, 1e9, 60.0, 30.0, 0.0).unwrap();
    /// let sd = job.completion_sd(10).unwrap();
    /// let t: f64 = 360.0 + 60.0;
    /// let approx = (10.0 * t / 1e9).sqrt() * (t * t / 3.0 + t * 30.0 + 30.0 * 30.0).sqrt();
    /// assert!((sd / approx - 1.0).abs() < 1e-4);
    /// ```
    pub fn completion_sd(&self, k: u64) -> Option<f64> {
        if k == 0 {
            return None;
        }
        let penalty = recovery(&self.daly)?;
        let (_, segment_var) = attempts(
            self.work / k as f64 + self.daly.cost,
            self.daly.mtbf,
            penalty,
        )?;
        let sd = (k as f64 * segment_var).sqrt();
        sd.is_finite().then_some(sd)
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
            completion_sd: self.completion_sd(count),
            continuous_count: k0,
        })
    }
}

/// The mean and variance of what a failure costs before the next try: the downtime, then the
/// restart, itself started over (after another downtime) by every failure that interrupts it.
/// `None` beyond f64 range.
pub(super) fn recovery(daly: &DalyInputs) -> Option<(f64, f64)> {
    let (restart_mean, restart_var) = attempts(daly.restart, daly.mtbf, (daly.downtime, 0.0))?;
    Some((daly.downtime + restart_mean, restart_var))
}

/// The mean and variance of the time to get through `t` seconds without a failure under
/// exponential failures of mean `m`, where each failure costs the time to it and a penalty
/// of the given mean and variance before the next try (§9.1): `t + sum_(i <= N) (X_i + P_i)`,
/// with `N` geometric (`E[N] = e^x - 1`, `Var N = e^x (e^x - 1)`, `x = t / m`) and `X_i` the
/// lifetime cut below `t`. `None` beyond f64 range.
pub(super) fn attempts(
    t: f64,
    m: f64,
    (penalty_mean, penalty_var): (f64, f64),
) -> Option<(f64, f64)> {
    let x = t / m;
    let n1 = x.exp_m1();
    let vn = super::finite_exp(x)? * n1;
    let (hx1, hx2) = truncated_exponential(x);
    let (cut_mean, cut_var) = (m * hx1, m * m * hx2);
    let mean = t + n1 * (cut_mean + penalty_mean);
    let var = n1 * (cut_var + penalty_var) + vn * (cut_mean + penalty_mean).powi(2);
    (mean.is_finite() && var.is_finite()).then_some((mean, var))
}

/// The mean and variance of an exponential lifetime of mean 1 cut below `x`:
/// `(1 - x / (e^x - 1), 1 - x^2 e^x / (e^x - 1)^2)`, by their series below 0.1, where the
/// closed forms lose their digits to cancellation (the series' error is below 1e-17 there).
pub(super) fn truncated_exponential(x: f64) -> (f64, f64) {
    if x < 0.1 {
        let x2 = x * x;
        let mean = x / 2.0 - x2 / 12.0 + x2 * x2 / 720.0 - x2 * x2 * x2 / 30240.0
            + x2 * x2 * x2 * x2 / 1_209_600.0;
        let var = x2
            * (1.0 / 12.0 - x2 / 240.0 + x2 * x2 / 6048.0 - x2 * x2 * x2 / 172_800.0
                + x2 * x2 * x2 * x2 / 5_322_240.0);
        return (mean, var);
    }
    let em1 = x.exp_m1();
    // e^x / (e^x - 1)^2 as 1 / ((e^x - 1)(1 - e^-x)), which stays finite for large x.
    let ratio = 1.0 / (em1 * -(-x).exp_m1());
    (1.0 - x / em1, (1.0 - x * x * ratio).max(0.0))
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

    /// One segment of `t` run failure by failure (downtime, then the restart, both started
    /// over by a failure), with exponential lifetimes drawn afresh: a second route to §9.1.
    fn simulated_segment(t: f64, m: f64, r: f64, d: f64, rng: &mut impl rand::Rng) -> f64 {
        use rand::RngExt;
        let mut life = || -m * (1.0 - rng.random::<f64>()).ln();
        let mut wall = 0.0;
        let mut need = t;
        loop {
            let x = life();
            if x >= need {
                return wall + need;
            }
            // A failure: the time to it and the downtime, then the restart and the segment.
            wall += x + d;
            need = r + t;
        }
    }

    #[test]
    fn the_spread_of_a_segment_matches_a_simulation_and_its_mean_dalys_term() {
        // 40000 segments of 2 h under a 4-h MTBF, R = 10 min, D = 5 min: failures are common,
        // so the geometric count and the downtime after every failure both show.
        let (m, c, r, d) = (14_400.0, 300.0, 600.0, 300.0);
        let job = FiniteJob::new(7200.0, m, c, r, d).unwrap();
        let t = 7200.0 + c;
        let sd = job.completion_sd(1).unwrap();
        let mut rng = crate::rng::run_rng(3, 0);
        let n = 40_000;
        let walls: Vec<f64> = (0..n)
            .map(|_| simulated_segment(t, m, r, d, &mut rng))
            .collect();
        let mean = walls.iter().sum::<f64>() / n as f64;
        let s2 = walls.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let z = crate::sim::stats::variance_z(sd * sd, &walls);
        assert!(z.abs() < 4.0, "sd {sd} vs {}: z {z}", s2.sqrt());
        // The mean of the same decomposition is Daly's complete-model term.
        let (rm, rv) = attempts(r, m, (d, 0.0)).unwrap();
        let (mean_model, _) = attempts(t, m, (d + rm, rv)).unwrap();
        assert!((mean_model / job.completion(1).unwrap() - 1.0).abs() < 1e-12);
        let z = (mean_model - mean) / (s2 / n as f64).sqrt();
        assert!(z.abs() < 4.0, "mean {mean_model} vs {mean}: z {z}");
    }

    #[test]
    fn the_cut_exponentials_moments_keep_their_digits_across_the_series_switch() {
        // The series below 0.1 and the closed forms above it meet without a step, and the
        // variance tends to the uniform's x^2 / 12 as x goes to 0.
        let (below, above) = (
            truncated_exponential(0.1f64.next_down()),
            truncated_exponential(0.1),
        );
        assert!(
            (below.0 / above.0 - 1.0).abs() < 1e-14,
            "{below:?} {above:?}"
        );
        assert!(
            (below.1 / above.1 - 1.0).abs() < 1e-12,
            "{below:?} {above:?}"
        );
        let (mean, var) = truncated_exponential(1e-9);
        assert!((mean / 5e-10 - 1.0).abs() < 1e-8 && (var / (1e-18 / 12.0) - 1.0).abs() < 1e-8);
        // Far out the cut lifetime is the whole one: mean 1, variance 1.
        let (mean, var) = truncated_exponential(800.0);
        assert!((mean - 1.0).abs() < 1e-15 && (var - 1.0).abs() < 1e-15);
        assert_eq!(
            FiniteJob::new(1e6, 1.0, 1.0, 0.0, 0.0)
                .unwrap()
                .completion_sd(1),
            None
        );
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

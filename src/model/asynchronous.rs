//! Asynchronous checkpoints (`docs/models.md` §11): the job stalls `C` to snapshot its state,
//! then the snapshot is written in the background for `D_w` while the job works on at
//! `1 - F` of its speed; the checkpoint is durable only when its write ends, and a failure
//! before that loses the work back to the previous durable checkpoint.
//!
//! Overlap rule (*wait*): a checkpoint that falls due (after `tau` of work) while the previous
//! write is still running waits for that write to end, the job working on meanwhile; the
//! snapshot is then taken at the write's end. A segment between two snapshots therefore holds
//! `max(tau, (1 - F) D_w)` of work, except the first one after a restart, which has no write
//! to wait for.
//!
//! For exponential failures the expected overhead is, for `tau >= (1 - F) D_w`,
//!
//! `overhead(tau) = e^(R/M) (M + D) e^((1 - F) D_w / M) (e^((tau + C + F D_w)/M) - 1) / tau`,
//!
//! Daly's complete model with the cost `C + F D_w` times the constant `e^((1-F) D_w/M)`: the
//! write time moves the optimum only through the slowdown.

use super::chunks::{attempts, recovery, truncated_exponential};
use super::daly::{higher_order, neg_u_plus_ln1m};
use super::{CostModel, DalyInputs, ModelError, nonnegative, positive};
use crate::failure::{ln_expm1, log1mexp};

/// The asynchronous cost model (row name `async-complete`).
///
/// ```
/// use ckpt::model::CostModel;
/// use ckpt::model::asynchronous::AsyncComplete;
/// // 60 s snapshot, 10 min write, MTBF 3 h.
/// let m = AsyncComplete::new(3.0 * 3600.0, 60.0, 0.0, 0.0, 600.0, 0.0).unwrap();
/// let opt = ckpt::optimize::minimize(&m).unwrap();
/// // Daly's exact optimum for the 60 s stall alone; the write costs e^(600/10800) on top.
/// assert!((opt.interval - 1098.78).abs() < 0.01);
/// assert!((opt.overhead() - 1.17686).abs() < 1e-5);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AsyncComplete {
    daly: DalyInputs,
    write: f64,
    slowdown: f64,
}

/// Checks that the slowdown is a finite number in `[0, 1)`.
pub fn slowdown(value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && (0.0..1.0).contains(&value) {
        Ok(value)
    } else {
        Err(ModelError::Parameter {
            name: "async-slowdown",
            value,
            accepted: "a fraction of speed lost while writing, at least 0 and below 1",
        })
    }
}

impl AsyncComplete {
    /// The model for MTBF `mtbf`, snapshot stall `cost`, restart `restart`, downtime
    /// `downtime`, background write `write` (all seconds) and slowdown `slowdown` in `[0, 1)`
    /// while writing.
    pub fn new(
        mtbf: f64,
        cost: f64,
        restart: f64,
        downtime: f64,
        write: f64,
        slowdown_fraction: f64,
    ) -> Result<Self, ModelError> {
        Ok(AsyncComplete {
            daly: DalyInputs::new(mtbf, cost, restart, downtime)?,
            write: nonnegative("async-write", write)?,
            slowdown: slowdown(slowdown_fraction)?,
        })
    }

    /// The shortest segment the wait rule allows once a write runs: `(1 - F) D_w` of work.
    pub fn min_interval(&self) -> f64 {
        (1.0 - self.slowdown) * self.write
    }

    /// The cost Daly's model would need to have the same optimum: `C + F D_w`.
    pub fn effective_cost(&self) -> f64 {
        self.daly.cost + self.slowdown * self.write
    }

    /// `ln` of the expected wall time spent per transition of the embedded chain, times
    /// `e^(D_w/M)`: `ln(K e^((tau + C)/M) (1 - e^(-L/M)) e^(D_w/M))` with
    /// `K = (M + D) e^(R/M)` and `L` the wall time of a cycle.
    fn ln_time(&self, tau: f64, cycle: f64) -> f64 {
        let m = self.daly.mtbf;
        (m + self.daly.downtime).ln()
            + self.daly.restart / m
            + (tau + self.daly.cost + self.write) / m
            + log1mexp(cycle / m)
    }

    /// The wall time of one cycle from a snapshot's end to the next: the next segment of `w`
    /// (at least until the write ends) and its snapshot.
    fn cycle(&self, w: f64) -> f64 {
        (if w >= self.min_interval() {
            w + self.slowdown * self.write
        } else {
            // The segment's work ends before the write does: the job waits, idle.
            self.write
        }) + self.daly.cost
    }

    /// The expected wall time of a job of `work` seconds checkpointed every `tau`, with a
    /// final checkpoint (snapshot and write: the job ends when its last write is durable);
    /// the last segment holds the remainder. Needs `tau >= (1 - F) D_w`, where every segment
    /// but the last holds exactly `tau`.
    ///
    /// ```
    /// use ckpt::model::asynchronous::AsyncComplete;
    /// let m = AsyncComplete::new(3600.0, 60.0, 30.0, 0.0, 0.0, 0.0).unwrap();
    /// // No write: Daly's k segments, k M e^(R/M) (e^((tau + C)/M) - 1).
    /// let daly = 4.0 * 3600.0 * (30.0f64 / 3600.0).exp() * (660.0f64 / 3600.0).exp_m1();
    /// assert!((m.expected_wall(2400.0, 600.0).unwrap() / daly - 1.0).abs() < 1e-12);
    /// ```
    pub fn expected_wall(&self, work: f64, tau: f64) -> Result<f64, ModelError> {
        let (segments, last) = self.plan(work, tau)?;
        let m = self.daly.mtbf;
        let lam = 1.0 / m;
        let k = (m + self.daly.downtime) * (lam * self.daly.restart).exp();
        let phi = k - m;
        // A restart followed by one segment of `w` and its snapshot at full speed.
        let redo = |w: f64| k * (lam * (w + self.daly.cost)).exp_m1();
        let p_write = (-lam * self.write).exp();
        // From the end of a snapshot that captured `w0`, with `w1` of work left in the next
        // segment: e^(-λD_w) (E_B(k) - E_B(k+1)).
        let step = |w0: f64, w1: f64| {
            let l = self.cycle(w1);
            let p_cycle = (-lam * l).exp();
            m * (1.0 - p_cycle)
                + (1.0 - p_write) * (phi + redo(w0))
                + (p_write - p_cycle) * (phi + redo(w1))
        };
        let middle = if segments >= 3.0 {
            (segments - 2.0) * step(tau, tau)
        } else {
            0.0
        };
        let before_last = if segments >= 2.0 {
            step(tau, last)
        } else {
            0.0
        };
        let final_write = (lam * self.write).exp_m1() * (k + redo(last));
        let first = redo(if segments >= 2.0 { tau } else { last });
        let total = first + (middle + before_last) / p_write + final_write;
        if total.is_finite() {
            Ok(total)
        } else {
            Err(ModelError::Parameter {
                name: "mtbf",
                value: m,
                accepted: "an MTBF that leaves an expected wall time within f64 range",
            })
        }
    }

    /// The segments of a job of `work` checkpointed every `tau` and the work of the last:
    /// `(ceil(work / tau), work - (n - 1) tau)`, with the inputs checked.
    fn plan(&self, work: f64, tau: f64) -> Result<(f64, f64), ModelError> {
        let work = positive("work", work)?;
        let tau = positive("interval", tau)?;
        if tau < self.min_interval() {
            return Err(ModelError::Parameter {
                name: "interval",
                value: tau,
                accepted: "at least (1 - slowdown) times the write time (the wait rule's segment)",
            });
        }
        let segments = (work / tau).ceil().max(1.0);
        if segments > 1e15 {
            return Err(ModelError::Parameter {
                name: "work",
                value: work,
                accepted: "at most 1e15 intervals",
            });
        }
        Ok((segments, work - (segments - 1.0) * tau))
    }

    /// The standard deviation of the wall time of [`AsyncComplete::expected_wall`]'s job
    /// (`docs/models.md` §11.1); `Ok(None)` where it passes f64 range.
    ///
    /// ```
    /// use ckpt::model::asynchronous::AsyncComplete;
    /// // Without a write, the job is Daly's segments: k independent ones, each the time to
    /// // get through tau + C between failures (here 4 segments, restarts of 30 s).
    /// let m = AsyncComplete::new(3600.0, 60.0, 30.0, 0.0, 0.0, 0.0).unwrap();
    /// let sync = ckpt::model::chunks::FiniteJob::new(2400.0, 3600.0, 60.0, 30.0, 0.0).unwrap();
    /// let (a, b) = (m.completion_sd(2400.0, 600.0).unwrap().unwrap(), sync.completion_sd(4).unwrap());
    /// assert!((a / b - 1.0).abs() < 1e-12);
    /// ```
    pub fn completion_sd(&self, work: f64, tau: f64) -> Result<Option<f64>, ModelError> {
        let (segments, last) = self.plan(work, tau)?;
        Ok(self
            .completion_moments(segments, tau, last)
            .map(|(_, var)| var.sqrt())
            .filter(|sd| sd.is_finite()))
    }

    /// The mean and variance of the job's wall time, as a sum of independent parts (failures
    /// are memoryless): the first segment and its snapshot, then from each snapshot's end to
    /// the next one's, then the last write. `None` beyond f64 range.
    fn completion_moments(&self, segments: f64, tau: f64, last: f64) -> Option<(f64, f64)> {
        let (m, cost) = (self.daly.mtbf, self.daly.cost);
        let add = |(m1, v1): (f64, f64), (m2, v2): (f64, f64)| (m1 + m2, v1 + v2);
        let recovery = recovery(&self.daly)?;
        // From a restart, a segment of `w` and its snapshot (state A).
        let redo = |w: f64| attempts(w + cost, m, recovery);
        // From the end of the snapshot of `w0` to the end of the next one, of `w1`: the write
        // of `w0`, which every failure during it loses with `w0` (recovery, then `w0` again);
        // then the rest of the cycle, `l`, where a failure loses only `w1`.
        let step = |w0: f64, w1: f64| -> Option<(f64, f64)> {
            let write = attempts(self.write, m, add(recovery, redo(w0)?))?;
            let l = self.cycle(w1) - self.write;
            let q = -(-l / m).exp_m1();
            let (hx1, hx2) = truncated_exponential(l / m);
            let (fail_mean, fail_var) = add((m * hx1, m * m * hx2), add(recovery, redo(w1)?));
            // A mixture: `l` with probability 1 - q, a failure's cost with q.
            let rest = (
                (1.0 - q) * l + q * fail_mean,
                q * fail_var + q * (1.0 - q) * (l - fail_mean).powi(2),
            );
            Some(add(write, rest))
        };
        let mut total = redo(if segments >= 2.0 { tau } else { last })?;
        if segments >= 3.0 {
            let (mean, var) = step(tau, tau)?;
            total = add(total, ((segments - 2.0) * mean, (segments - 2.0) * var));
        }
        if segments >= 2.0 {
            total = add(total, step(tau, last)?);
        }
        // The last write: the job ends when it is durable; a failure during it loses the last
        // segment too.
        total = add(total, attempts(self.write, m, add(recovery, redo(last)?))?);
        (total.0.is_finite() && total.1.is_finite()).then_some(total)
    }
}

impl CostModel for AsyncComplete {
    fn name(&self) -> &'static str {
        "async-complete"
    }

    fn ln_overhead(&self, tau: f64) -> f64 {
        if !(tau > 0.0) {
            return f64::INFINITY;
        }
        let m = self.daly.mtbf;
        let (f, dw) = (self.slowdown, self.write);
        if tau >= self.min_interval() {
            // Written in the order of DalyComplete::ln_overhead so that D_w = 0 gives its
            // value to the last bit (the extra terms are then exact zeros).
            (m + self.daly.downtime).ln() - tau.ln()
                + self.daly.restart / m
                + ln_expm1((tau + self.daly.cost + f * dw) / m)
                + (1.0 - f) * dw / m
        } else {
            // Wait rule: segments after a snapshot hold (1-F) D_w, the one after a restart
            // tau; the embedded chain's stationary weight of the former is e^(-L/M).
            let l = self.cycle(tau);
            let stay = (-l / m).exp();
            let mean = tau + stay * (self.min_interval() - tau);
            self.ln_time(tau, l) - mean.ln()
        }
    }

    fn seed_interval(&self) -> f64 {
        higher_order(self.effective_cost(), self.daly.mtbf)
            .interval
            .unwrap_or(self.daly.mtbf)
            .max(self.min_interval())
    }

    fn expected_failures(&self, tau: f64) -> f64 {
        // Wald: failures = exposed time / M and wall = exposed + D failures, so failures per
        // committed segment are its expected wall over M + D.
        let m = self.daly.mtbf;
        if tau >= self.min_interval() {
            // e^(R/M) e^((1-F) D_w/M) (e^((tau + C + F D_w)/M) - 1), in Daly's order so that
            // D_w = 0 gives his figure to the last bit.
            let (f, dw) = (self.slowdown, self.write);
            return (self.daly.restart / m).exp()
                * ((tau + self.daly.cost + f * dw) / m).exp_m1()
                * ((1.0 - f) * dw / m).exp();
        }
        let stay = (-self.cycle(tau) / m).exp();
        let mean = tau + stay * (self.min_interval() - tau);
        self.overhead(tau)
            .map_or(f64::INFINITY, |o| o * mean / (m + self.daly.downtime))
    }

    fn stationarity(&self, tau: f64) -> Option<f64> {
        // Daly's derivative condition with the cost C + F D_w, where that formula holds.
        if tau < self.min_interval() {
            return None;
        }
        let u = tau / self.daly.mtbf;
        if u >= 1.0 {
            return Some(f64::NEG_INFINITY);
        }
        Some(self.effective_cost() / self.daly.mtbf - neg_u_plus_ln1m(u.max(0.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::{Lifetime, Shape};
    use crate::model::chunks::FiniteJob;
    use crate::model::daly::{DalyComplete, exact_optimum};
    use crate::optimize::minimize;
    use crate::sim::stats::{Estimate, variance_z};
    use proptest::prelude::*;

    #[test]
    fn no_write_is_daly_complete_to_the_last_bit() {
        for (m, c, r, d) in [
            (86_400.0, 300.0, 600.0, 0.0),
            (3600.0, 60.0, 0.0, 30.0),
            (600.0, 300.0, 50.0, 10.0),
            (1e7, 1e-3, 0.0, 0.0),
        ] {
            let daly = DalyComplete::new(m, c, r, d).unwrap();
            for f in [0.0, 0.5] {
                let a = AsyncComplete::new(m, c, r, d, 0.0, f).unwrap();
                for tau in [1e-3, 1.0, 77.7, 1234.5, 1e5, 1e9] {
                    assert_eq!(
                        a.ln_overhead(tau).to_bits(),
                        daly.ln_overhead(tau).to_bits()
                    );
                    assert_eq!(
                        a.expected_failures(tau).to_bits(),
                        daly.expected_failures(tau).to_bits()
                    );
                }
                let (oa, od) = (minimize(&a).unwrap(), minimize(&daly).unwrap());
                assert_eq!(oa.interval.to_bits(), od.interval.to_bits());
                assert_eq!(oa.ln_overhead.to_bits(), od.ln_overhead.to_bits());
            }
        }
    }

    /// The overhead by renewal-reward over the two states written out term by term (not the
    /// factored form of the model): expected time per step of the embedded chain over the
    /// expected durable work it adds.
    fn renewal_reward(m: f64, c: f64, r: f64, d: f64, dw: f64, f: f64, tau: f64) -> f64 {
        let lam = 1.0 / m;
        let restart = (m + d) * ((lam * r).exp() - 1.0);
        let phi = d + restart;
        let redo = ((lam * (tau + c)).exp() - 1.0) * (m + phi);
        let l = tau + f * dw + c;
        let fail = 1.0 - (-lam * l).exp();
        let time = m * fail + fail * (phi + redo);
        let reward = tau * (-lam * dw).exp();
        time / reward
    }

    #[test]
    fn the_factored_form_matches_renewal_reward() {
        for (m, c, r, d, dw, f) in [
            (10_800.0, 60.0, 0.0, 0.0, 600.0, 0.0),
            (3600.0, 30.0, 60.0, 10.0, 720.0, 0.3),
            (1000.0, 10.0, 5.0, 0.0, 200.0, 0.9),
        ] {
            let a = AsyncComplete::new(m, c, r, d, dw, f).unwrap();
            for tau in [a.min_interval().max(1.0), a.min_interval() + 100.0, 2000.0] {
                let ours = a.overhead(tau).unwrap();
                let theirs = renewal_reward(m, c, r, d, dw, f, tau);
                assert!((ours / theirs - 1.0).abs() < 1e-12, "{ours} {theirs}");
            }
        }
    }

    #[test]
    fn optimum_is_daly_with_the_slowed_cost() {
        let a = AsyncComplete::new(10_800.0, 60.0, 120.0, 0.0, 600.0, 0.25).unwrap();
        let opt = minimize(&a).unwrap();
        let expected = exact_optimum(60.0 + 0.25 * 600.0, 10_800.0);
        assert!((opt.interval / expected - 1.0).abs() < 1e-12);
        assert!(opt.polished);
    }

    #[test]
    fn the_wait_rule_binds_when_the_write_is_long() {
        // The unconstrained optimum (~1140 s) is below (1-F) D_w = 2000 s: the best interval
        // is at or below the wait rule's segment, never above it.
        let a = AsyncComplete::new(10_800.0, 60.0, 0.0, 0.0, 2000.0, 0.0).unwrap();
        let opt = minimize(&a).unwrap();
        assert!(opt.interval <= 2000.0 * (1.0 + 1e-6), "{opt:?}");
        // The overhead is continuous across the rule's edge.
        let edge = a.min_interval();
        let below = a.ln_overhead(edge * (1.0 - 1e-12));
        let above = a.ln_overhead(edge);
        assert!((below - above).abs() < 1e-9, "{below} {above}");
        // Brute force on a grid: nothing beats the optimizer's answer.
        for i in 1..4000 {
            let tau = i as f64 * 2.0;
            assert!(a.ln_overhead(tau) >= opt.ln_overhead - 1e-12, "tau = {tau}");
        }
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(AsyncComplete::new(3600.0, 60.0, 0.0, 0.0, -1.0, 0.0).is_err());
        assert!(AsyncComplete::new(3600.0, 60.0, 0.0, 0.0, f64::NAN, 0.0).is_err());
        let e = AsyncComplete::new(3600.0, 60.0, 0.0, 0.0, 60.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("async-slowdown = 1"), "{e}");
        assert!(AsyncComplete::new(3600.0, 60.0, 0.0, 0.0, 60.0, -0.1).is_err());
        assert!(AsyncComplete::new(3600.0, 60.0, 0.0, 0.0, 60.0, f64::NAN).is_err());
        let a = AsyncComplete::new(3600.0, 60.0, 0.0, 0.0, 600.0, 0.0).unwrap();
        assert!(a.expected_wall(3600.0, 300.0).is_err());
    }

    #[test]
    fn finite_job_sums_to_the_overhead_far_from_its_ends() {
        // Between two jobs of n and n + 1000 segments the difference is 1000 tau overhead.
        let a = AsyncComplete::new(7200.0, 60.0, 30.0, 5.0, 500.0, 0.2).unwrap();
        let tau = 900.0;
        let short = a.expected_wall(10.0 * tau, tau).unwrap();
        let long = a.expected_wall(1010.0 * tau, tau).unwrap();
        let per = a.overhead(tau).unwrap() * tau;
        assert!(((long - short) / (1000.0 * per) - 1.0).abs() < 1e-10);
    }

    /// The wall times (s) of `runs` simulated jobs of `work` checkpointed every `tau` with
    /// the write and slowdown of `a`, under failures of lifetime `life` (no downtime: the
    /// simulator's failures have none).
    fn simulated_walls(
        a: &AsyncComplete,
        life: Lifetime,
        work: f64,
        tau: f64,
        runs: u64,
    ) -> Vec<f64> {
        use crate::sim::periodic::{AsyncWrite, Failures, PeriodicConfig};
        use crate::sim::run::Scenario;
        let ns = |s: f64| (s * 1e9).round() as u64;
        let cfg = PeriodicConfig {
            work: ns(work),
            interval: ns(tau),
            cost: ns(a.daly.cost),
            restart: ns(a.daly.restart),
            failures: Failures::Platform(life),
            final_checkpoint: true,
            walltime: None,
            asynchronous: Some(AsyncWrite::new(a.write, a.slowdown).unwrap()),
            signal_lead: None,
        };
        (0..runs)
            .map(|i| cfg.run(11, i).unwrap().wall as f64 / 1e9)
            .collect()
    }

    #[test]
    fn the_spread_matches_the_simulator_under_exponential_failures_only() {
        // 20 segments of 15 min under a 1-h MTBF with a 10-min write slowing the job by 20%:
        // writes are often lost, and the variance sums every kind of loss. The second job's
        // last segment (200 s) is shorter than (1 - F) D_w = 480 s: it waits for the write.
        let a = AsyncComplete::new(3600.0, 60.0, 120.0, 0.0, 600.0, 0.2).unwrap();
        let tau = 900.0;
        for work in [20.0 * tau - 300.0, 20.0 * tau - 700.0] {
            let sd = a.completion_sd(work, tau).unwrap().unwrap();
            let exp = Lifetime::exponential(3600.0).unwrap();
            let walls = simulated_walls(&a, exp, work, tau, 3000);
            let z = variance_z(sd * sd, &walls);
            assert!(z.abs() < 4.0, "work {work}: sd {sd}, z {z}");
            let e = Estimate::from_samples(&walls);
            let z = (a.expected_wall(work, tau).unwrap() - e.point) / e.stderr.unwrap();
            assert!(z.abs() < 4.0, "work {work}: mean z {z}");
            // Failures that cluster (Weibull 0.5, same mean) spread the job far more.
            let weibull = Lifetime::new(Shape::Weibull { shape: 0.5 }, 3600.0).unwrap();
            let walls = simulated_walls(&a, weibull, work, tau, 3000);
            let z = variance_z(sd * sd, &walls);
            assert!(z < -5.0, "work {work}: Weibull 0.5 z {z}");
        }
    }

    proptest! {
        /// The spread's parts, summed for their means, give `expected_wall` (derived the other
        /// way, from the end); without a write the spread is that of Daly's segments.
        #[test]
        fn the_spread_decomposition_has_the_expected_wall(
            m in 600.0f64..1e6,
            c in 1.0f64..3600.0,
            r in 0.0f64..3600.0,
            d in 0.0f64..3600.0,
            write_frac in 0.0f64..2.0,
            f in 0.0f64..0.9,
            tau_frac in 1.0f64..4.0,
            segments in 1u64..300,
            part in 0.01f64..1.0,
        ) {
            let write = write_frac * c;
            let a = AsyncComplete::new(m, c, r, d, write, f).unwrap();
            // Whole seconds, so that `segments` periods divide back into exactly as many.
            let tau = (a.min_interval() * tau_frac).max(c).ceil();
            let work = (segments as f64 - 1.0 + part) * tau;
            let (n, last) = a.plan(work, tau).unwrap();
            let (mean, var) = a.completion_moments(n, tau, last).unwrap();
            let want = a.expected_wall(work, tau).unwrap();
            prop_assert!((mean / want - 1.0).abs() < 1e-9, "{} vs {}", mean, want);
            prop_assert!(var.is_finite() && var >= 0.0);
            let sync = AsyncComplete::new(m, c, r, d, 0.0, f).unwrap();
            let job = FiniteJob::new(segments as f64 * tau, m, c, r, d).unwrap();
            let want = job.completion_sd(segments).unwrap();
            let got = sync.completion_sd(segments as f64 * tau, tau).unwrap().unwrap();
            prop_assert!((got / want - 1.0).abs() < 1e-9, "{} vs {}", got, want);
        }

    }

    proptest! {
        /// Vaidya's observation: as C/M shrinks the optimum tends to sqrt(2 C M) whatever the
        /// write time, and the overhead to 1 + C/T + (T/2 + D_w)/M.
        #[test]
        fn small_cost_limit(ln_c_over_m in -16.0f64..-10.0, dw_over_tau in 0.0f64..0.9) {
            let m = 86_400.0;
            let c = m * ln_c_over_m.exp();
            let young = (2.0 * c * m).sqrt();
            let a = AsyncComplete::new(m, c, 0.0, 0.0, dw_over_tau * young, 0.0).unwrap();
            let opt = minimize(&a).unwrap();
            let q = (c / m).sqrt();
            prop_assert!((opt.interval / young - 1.0).abs() < 2.0 * q, "{} {}", opt.interval, young);
            let t = opt.interval;
            let first_order = 1.0 + c / t + (t / 2.0 + a.write) / m;
            // The neglected terms are O(C/M) (and D_w^2/M^2 < C/M here).
            prop_assert!((opt.overhead() - first_order).abs() < 4.0 * c / m + 2.0 * (a.write / m).powi(2),
                "{} {}", opt.overhead(), first_order);
        }
    }
}

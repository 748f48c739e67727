//! Means and confidence intervals over runs, always reduced in run order.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// A figure estimated over runs: `{"point", "stderr", "ci95", "runs"}` in JSON.
///
/// ```
/// let e = ckpt::sim::stats::Estimate::from_samples(&[1.0, 2.0, 3.0]);
/// assert_eq!(e.point, 2.0);
/// assert!(e.ci95[0] < 2.0 && e.ci95[1] > 2.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The mean over runs.
    pub point: f64,
    /// The standard error of the mean; `None` (JSON null) for a single run.
    pub stderr: Option<f64>,
    /// The 95% confidence interval of the mean (Student t).
    pub ci95: [f64; 2],
    /// Number of runs.
    pub runs: u64,
}

impl Estimate {
    /// `point` over `runs` runs with no spread to estimate (none or one run): no standard
    /// error, and a confidence interval that is the point itself.
    pub fn exact(point: f64, runs: u64) -> Estimate {
        Estimate {
            point,
            stderr: None,
            ci95: [point, point],
            runs,
        }
    }

    /// The mean of `samples` with its 95% CI; summed in the order given.
    pub fn from_samples(samples: &[f64]) -> Estimate {
        let n = samples.len();
        if n == 0 {
            return Estimate::exact(0.0, 0);
        }
        let mean = samples.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Estimate::exact(mean, 1);
        }
        let first = samples[0];
        if samples.iter().all(|&x| x == first) {
            // Runs that all came out alike have no spread. The sum below would instead leave
            // the round-off of the mean (about 1e-16), and a z over that is 1e13.
            return Estimate {
                point: first,
                stderr: Some(0.0),
                ci95: [first, first],
                runs: n as u64,
            };
        }
        let var = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        let se = (var / n as f64).sqrt();
        let q = t_quantile_975(n as f64 - 1.0);
        Estimate {
            point: mean,
            stderr: Some(se),
            ci95: [mean - q * se, mean + q * se],
            runs: n as u64,
        }
    }

    /// True when more than one run was reduced and every one came out alike (the same value
    /// bit for bit): the mean is then the outcome itself, with a standard error of exactly 0.
    ///
    /// ```
    /// use ckpt::sim::stats::Estimate;
    /// assert!(Estimate::from_samples(&[61.0 / 60.0; 20]).all_alike());
    /// assert!(!Estimate::from_samples(&[1.0]).all_alike());
    /// ```
    pub fn all_alike(&self) -> bool {
        self.stderr == Some(0.0)
    }

    /// The standard error where the runs show a spread: `None` with one run or with every run
    /// alike, where no z can be formed and the mean is the outcome itself.
    ///
    /// ```
    /// use ckpt::sim::stats::Estimate;
    /// assert_eq!(Estimate::from_samples(&[61.0 / 60.0; 20]).spread(), None);
    /// assert!(Estimate::from_samples(&[1.0, 2.0]).spread().is_some());
    /// ```
    pub fn spread(&self) -> Option<f64> {
        self.stderr.filter(|&se| se > 0.0)
    }

    /// `(point - expected) / stderr`, the z statistic the simulator checks use (|z| < 4,
    /// docs/simulation.md §4); `None` without a [`spread`](Estimate::spread).
    pub fn z(&self, expected: f64) -> Option<f64> {
        self.spread().map(|se| (self.point - expected) / se)
    }

    /// True when the CI contains `x`.
    pub fn contains(&self, x: f64) -> bool {
        self.ci95[0] <= x && x <= self.ci95[1]
    }
}

/// The 97.5% quantile of the standard normal.
pub(crate) const Z_975: f64 = 1.959963984540054;

/// Degrees of freedom from which the t quantile comes from its expansion in `1/dof`, not from
/// statrs' inverse cdf: that loses digits as the count grows (1e-12 relative at 2^14, 3e-7
/// at 2^15, 5e-3 at 2^22, not even decreasing) and runs for minutes past 2^24, where the
/// expansion's first omitted term is below 1e-16 from 2^12 on.
const T_EXPANSION_DOF: f64 = 4096.0;

/// The 97.5% quantile of Student's t with `dof` degrees of freedom.
///
/// ```
/// use ckpt::sim::stats::t_quantile_975;
/// assert!((t_quantile_975(9.0) - 2.262157).abs() < 1e-6);
/// assert!((t_quantile_975(1e12) - 1.959963985).abs() < 1e-9);
/// ```
pub fn t_quantile_975(dof: f64) -> f64 {
    if dof >= T_EXPANSION_DOF {
        // Cornish-Fisher: the normal quantile corrected in powers of 1/dof (Abramowitz and
        // Stegun 26.7.5).
        let z = Z_975;
        let g1 = (z.powi(3) + z) / 4.0;
        let g2 = (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / 96.0;
        let g3 = (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / 384.0;
        let g4 = (79.0 * z.powi(9) + 776.0 * z.powi(7) + 1482.0 * z.powi(5)
            - 1920.0 * z.powi(3)
            - 945.0 * z)
            / 92160.0;
        let v = 1.0 / dof;
        return z + v * (g1 + v * (g2 + v * (g3 + v * g4)));
    }
    StudentsT::new(0.0, 1.0, dof)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(Z_975)
}

/// `z` of a model's variance against the sample variance of `samples`, whose standard error
/// is `sqrt((m4 - s^4) / n)` with `m4` the fourth central moment: the tests' check of a
/// predicted spread against a simulation.
#[cfg(test)]
pub(crate) fn variance_z(variance: f64, samples: &[f64]) -> f64 {
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let m = |p: i32| samples.iter().map(|w| (w - mean).powi(p)).sum::<f64>() / n;
    let (s2, m4) = (m(2) * n / (n - 1.0), m(4));
    (variance - s2) / ((m4 - s2 * s2) / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Before: statrs' quantile came back 1.9508 at 2^22 degrees of freedom (below the normal
    /// quantile, which bounds it) and ran for minutes past 2^24. The expansion meets statrs
    /// where both are exact, and the quantile falls toward the normal's at every larger count.
    #[test]
    fn t_quantile_is_exact_and_quick_at_every_run_count() {
        let statrs = |dof: f64| StudentsT::new(0.0, 1.0, dof).unwrap().inverse_cdf(0.975);
        for dof in [1024.0, 2048.0, T_EXPANSION_DOF] {
            assert!((t_quantile_975(dof) - statrs(dof)).abs() < 1e-12, "{dof}");
        }
        // Tables: t(0.975, 1000) = 1.962339, t(0.975, 10000) = 1.960201.
        assert!((t_quantile_975(999.0 + 1.0) - 1.962339).abs() < 1e-6);
        assert!((t_quantile_975(1e4) - 1.960201).abs() < 1e-6);
        let mut last = t_quantile_975(T_EXPANSION_DOF - 1.0);
        for e in 14..64 {
            let q = t_quantile_975(2f64.powi(e));
            assert!(q <= last && q >= Z_975, "2^{e}: {q} after {last}");
            last = q;
        }
        assert_eq!(t_quantile_975(u64::MAX as f64), Z_975);
    }

    #[test]
    fn single_run_has_null_stderr() {
        let e = Estimate::from_samples(&[5.0]);
        assert_eq!(e.stderr, None);
        assert_eq!(e.ci95, [5.0, 5.0]);
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            r#"{"point":5.0,"stderr":null,"ci95":[5.0,5.0],"runs":1}"#
        );
    }

    #[test]
    fn runs_alike_have_no_spread() {
        // Twenty runs of 61/60: summed and divided, the mean comes out 2 ulps low, and the
        // two-pass variance would be that round-off instead of 0.
        let x = 61.0 / 60.0;
        assert_ne!([x; 20].iter().sum::<f64>() / 20.0, x);
        let e = Estimate::from_samples(&[x; 20]);
        assert_eq!(e.point, x);
        assert_eq!(e.stderr, Some(0.0));
        assert!(e.all_alike());
        assert_eq!(e.ci95, [x, x]);
        assert_eq!(e.z(1.0), None);
        let apart = Estimate::from_samples(&[x, x, x + 4.0 * f64::EPSILON]);
        assert!(apart.spread().is_some_and(|se| se > 0.0));
    }

    #[test]
    fn ci_width_uses_t() {
        let e = Estimate::from_samples(&[0.0, 2.0]);
        // t(1) quantile 12.706; se = 1
        assert!((e.ci95[1] - 1.0 - 12.706204736).abs() < 1e-6);
    }
}

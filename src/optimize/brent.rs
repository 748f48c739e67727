//! Brent's minimizer of a function of one variable on a bracket (Brent 1973, "Algorithms for
//! minimization without derivatives", ch. 5, procedure `localmin`): golden-section steps, with
//! parabolic interpolation through the three best points whenever that step is safe.

use super::SolverError;

/// `(3 - sqrt 5) / 2`: the golden-section fraction of the larger part of the bracket.
const GOLDEN: f64 = 0.381_966_011_250_105_1;

/// Settings of Brent's minimizer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Brent {
    /// Relative tolerance on `x` (`sqrt(eps)` is the least that makes sense: the function is
    /// flat to first order at a minimum).
    pub rel_tol: f64,
    /// Absolute tolerance on `x`.
    pub abs_tol: f64,
    /// Iteration cap (one function evaluation per iteration, plus one at the start).
    pub max_iters: u64,
}

/// What Brent's minimizer found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Minimum {
    /// The point with the lowest value (the first one seen, on ties).
    pub x: f64,
    /// The value there.
    pub value: f64,
    /// Iterations run, the last (the convergence check) included.
    pub iterations: u64,
    /// Whether the bracket shrank to the tolerance before the iteration cap.
    pub converged: bool,
}

impl Brent {
    /// Minimizes `f` on `[lo, hi]`.
    ///
    /// The search stops when the current best `x` is within `2 tol - (hi' - lo')/2` of the
    /// middle of the current bracket `[lo', hi']`, `tol = rel_tol |x| + abs_tol`, i.e. when the
    /// minimum is located to about `3 tol`. The first point is `lo + GOLDEN (hi - lo)`; no point
    /// is evaluated closer than `tol` to another or to the ends. A function that is not
    /// unimodal on the bracket gives a local minimum.
    ///
    /// `f` must be finite on the bracket: a NaN or infinite value is an error (callers that
    /// want "infinitely bad" pass a large finite stand-in, which keeps the parabolic steps
    /// finite).
    ///
    /// ```
    /// use ckpt::optimize::brent::Brent;
    /// let b = Brent { rel_tol: f64::EPSILON.sqrt(), abs_tol: 1e-10, max_iters: 100 };
    /// let m = b.minimize(|x| (x - 2.0).powi(2) + 1.0, 0.0, 5.0).unwrap();
    /// assert!((m.x - 2.0).abs() < 1e-7 && m.converged);
    /// ```
    pub fn minimize(
        &self,
        mut f: impl FnMut(f64) -> f64,
        lo: f64,
        hi: f64,
    ) -> Result<Minimum, SolverError> {
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(SolverError::Bracket { lo, hi });
        }
        for tol in [self.rel_tol, self.abs_tol] {
            if !(tol.is_finite() && tol >= 0.0) {
                return Err(SolverError::Tolerance { tol });
            }
        }
        let mut eval = |x: f64| {
            let y = f(x);
            if y.is_finite() {
                Ok(y)
            } else {
                Err(SolverError::NonFinite { x, value: y })
            }
        };
        let (mut a, mut b) = (lo, hi);
        // x: lowest value so far; w: second lowest; v: the previous w.
        let mut x = a + GOLDEN * (b - a);
        let mut fx = eval(x)?;
        let (mut w, mut fw, mut v, mut fv) = (x, fx, x, fx);
        // d: the step just taken; e: the one before (a parabola is only trusted when its step
        // is less than half of that, so that the steps shrink at least geometrically).
        let (mut d, mut e) = (0.0f64, 0.0f64);
        // x moves on ties too; the answer stays at the first point of the lowest value.
        let (mut best_x, mut best_f) = (x, fx);
        let mut iterations = 0;
        let done = |x, value, iterations, converged| Minimum {
            x,
            value,
            iterations,
            converged,
        };
        loop {
            if iterations >= self.max_iters {
                return Ok(done(best_x, best_f, iterations, false));
            }
            iterations += 1;
            let tol = self.rel_tol * x.abs() + self.abs_tol;
            let mid = (a + b) / 2.0;
            if (x - mid).abs() <= 2.0 * tol - (b - a) / 2.0 {
                return Ok(done(best_x, best_f, iterations, true));
            }
            // The parabola through (v, fv), (w, fw), (x, fx) has its vertex at x + p/q.
            let p = (x - v) * (x - v) * (fx - fw) - (x - w) * (x - w) * (fx - fv);
            let q = 2.0 * ((x - w) * (fx - fv) - (x - v) * (fx - fw));
            let (p, q) = if q >= 0.0 { (p, q) } else { (-p, -q) };
            let parabola_ok = p.is_finite()
                && q.is_finite()
                && e.abs() > tol
                && p >= q * (a - x)
                && p <= q * (b - x)
                && 2.0 * p.abs() < q * e.abs();
            if parabola_ok {
                e = d;
                d = p / q;
                // Keep the new point at least 2 tol inside the bracket.
                if x + d - a < 2.0 * tol || b - x - d < 2.0 * tol {
                    d = (mid - x).signum() * tol;
                }
            } else {
                e = if x < mid { b } else { a } - x;
                d = GOLDEN * e;
            }
            // A step below tol could not tell the two values apart.
            let u = x + if d.abs() >= tol { d } else { d.signum() * tol };
            let fu = eval(u)?;
            if fu <= fx {
                if u < x {
                    b = x;
                } else {
                    a = x;
                }
                (v, fv) = (w, fw);
                (w, fw) = (x, fx);
                (x, fx) = (u, fu);
            } else {
                if u < x {
                    a = u;
                } else {
                    b = u;
                }
                if fu <= fw || w == x {
                    (v, fv) = (w, fw);
                    (w, fw) = (u, fu);
                } else if fu <= fv || v == x || v == w {
                    (v, fv) = (u, fu);
                }
            }
            if fx < best_f {
                (best_x, best_f) = (x, fx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SETTINGS: Brent = Brent {
        rel_tol: 1.490_116_119_384_765_6e-8, // sqrt(f64::EPSILON) = 2^-26
        abs_tol: 1e-10,
        max_iters: 500,
    };

    /// Brent's guarantee: within 3 tol of the minimizer, plus the width over which rounding
    /// (about eps |f|) hides a curvature `c`: `sqrt(eps |f| / c)`.
    fn bound(m: f64, f_min: f64, curvature: f64) -> f64 {
        3.0 * (SETTINGS.rel_tol * m.abs() + SETTINGS.abs_tol)
            + 2.0 * (f64::EPSILON * f_min.abs().max(1e-300) / curvature).sqrt()
    }

    #[test]
    fn golden_fraction_is_the_textbook_one() {
        assert_eq!(GOLDEN, (3.0 - 5f64.sqrt()) / 2.0);
        assert_eq!(SETTINGS.rel_tol, f64::EPSILON.sqrt());
    }

    #[test]
    fn shifted_parabola() {
        for (a, b) in [(1.7, -3.0), (-4.25, 0.0), (123.0, 1e3), (0.0, 5.0)] {
            let m = SETTINGS
                .minimize(|x| (x - a) * (x - a) + b, -200.0, 300.0)
                .unwrap();
            assert!(m.converged);
            assert!((m.x - a).abs() <= bound(a, b, 1.0), "{a}: {}", m.x);
            assert!(
                (m.value - b).abs() <= 1e-12 * (1.0 + b.abs()),
                "{}",
                m.value
            );
        }
    }

    #[test]
    fn x_minus_ln_x() {
        // f'(x) = 1 - 1/x: the minimum is at 1, where f = 1 and f'' = 1.
        let m = SETTINGS.minimize(|x| x - x.ln(), 0.1, 5.0).unwrap();
        assert!(m.converged);
        assert!((m.x - 1.0).abs() <= bound(1.0, 1.0, 1.0), "{}", m.x);
        assert!((m.value - 1.0).abs() < 1e-15);
    }

    #[test]
    fn iteration_cap_is_reported() {
        let m = Brent {
            max_iters: 3,
            ..SETTINGS
        }
        .minimize(|x| (x - 1.0).powi(2), -10.0, 10.0)
        .unwrap();
        assert!(!m.converged);
        assert_eq!(m.iterations, 3);
        let start = Brent {
            max_iters: 0,
            ..SETTINGS
        }
        .minimize(|x| (x - 1.0).powi(2), -10.0, 10.0)
        .unwrap();
        assert_eq!((start.x, start.iterations), (-10.0 + GOLDEN * 20.0, 0));
    }

    #[test]
    fn ties_keep_the_first_point() {
        // A constant: every point ties with the first, at the golden fraction of the bracket.
        let m = SETTINGS.minimize(|_| 7.0, 0.0, 1.0).unwrap();
        assert_eq!((m.x, m.value), (GOLDEN, 7.0));
        assert!(m.converged);
    }

    #[test]
    fn non_finite_values_and_bad_input_are_errors() {
        let nan = SETTINGS.minimize(|x| if x > 0.5 { f64::NAN } else { x * x }, 0.0, 1.0);
        assert!(matches!(nan, Err(SolverError::NonFinite { .. })), "{nan:?}");
        let inf = SETTINGS.minimize(|x| 1.0 / (x - x), 0.0, 1.0);
        assert!(matches!(inf, Err(SolverError::NonFinite { .. })), "{inf:?}");
        for (lo, hi) in [
            (1.0, 1.0),
            (2.0, 1.0),
            (f64::NAN, 1.0),
            (0.0, f64::INFINITY),
        ] {
            let r = SETTINGS.minimize(|x| x * x, lo, hi);
            assert!(matches!(r, Err(SolverError::Bracket { .. })), "{r:?}");
        }
        for tol in [-1.0, f64::NAN, f64::INFINITY] {
            let r = Brent {
                abs_tol: tol,
                ..SETTINGS
            }
            .minimize(|x| x * x, -1.0, 1.0);
            assert!(matches!(r, Err(SolverError::Tolerance { .. })), "{r:?}");
        }
    }

    proptest! {
        #[test]
        fn random_parabolas(
            m in -20.0f64..20.0, c in 0.1f64..10.0, k in -10.0f64..10.0,
            below in 0.1f64..100.0, above in 0.1f64..100.0,
        ) {
            let found = SETTINGS
                .minimize(|x| c * (x - m) * (x - m) + k, m - below, m + above)
                .unwrap();
            prop_assert!(found.converged);
            prop_assert!((found.x - m).abs() <= bound(m, k, c), "{} vs {m}", found.x);
        }

        #[test]
        fn random_convex_non_quadratics(
            m in -20.0f64..20.0, s in 0.5f64..5.0, below in 0.1f64..30.0, above in 0.1f64..30.0,
        ) {
            // cosh(s (x - m)): minimum 1 at m, curvature s^2; e^y - y likewise with curvature 1.
            let found = SETTINGS
                .minimize(|x| (s * (x - m)).cosh(), m - below, m + above)
                .unwrap();
            prop_assert!(found.converged);
            prop_assert!((found.x - m).abs() <= bound(m, 1.0, s * s), "{} vs {m}", found.x);
            let found = SETTINGS
                .minimize(|x| (x - m).exp() - (x - m), m - below, m + above)
                .unwrap();
            prop_assert!(found.converged);
            prop_assert!((found.x - m).abs() <= bound(m, 1.0, 1.0), "{} vs {m}", found.x);
        }
    }
}

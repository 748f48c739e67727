//! Brent's root finder on a sign-changing bracket (Brent 1973, "Algorithms for minimization
//! without derivatives", ch. 4, procedure `zero`): inverse quadratic or secant steps while they
//! make fast progress, bisection otherwise, so the bracket always shrinks.

use super::SolverError;

/// What Brent's root finder found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Root {
    /// The point with the smallest `|f|` seen (the first one, on ties).
    pub x: f64,
    /// `|f(x)|`.
    pub residual: f64,
    /// Iterations run, the last (the convergence check) included.
    pub iterations: u64,
    /// Whether the bracket shrank to the tolerance (or `f` hit 0 exactly) before the cap.
    pub converged: bool,
}

/// Finds a root of `f` in `[lo, hi]`, where `f(lo)` and `f(hi)` must not have the same sign.
///
/// Each iteration keeps a bracket `[b, c]` with `f(b) f(c) <= 0` and `|f(b)| <= |f(c)|`, and
/// stops when `|c - b| / 2 <= 2 eps |b| + tol / 2` or `f(b) = 0`. A step goes through the
/// inverse quadratic (or, with two distinct points, the secant) when it lands inside the
/// bracket and is less than half the step before the last; otherwise it bisects. No step is
/// shorter than the stopping tolerance.
///
/// `f` must be finite at `lo` and `hi` and never NaN (an error otherwise); infinite values
/// inside the bracket are allowed and only force bisection.
///
/// ```
/// use ckpt::optimize::root::find_root;
/// let r = find_root(|x| x * x - 2.0, 0.0, 2.0, 1e-15, 100).unwrap();
/// assert!((r.x - 2f64.sqrt()).abs() < 1e-14 && r.converged);
/// ```
pub fn find_root(
    mut f: impl FnMut(f64) -> f64,
    lo: f64,
    hi: f64,
    tol: f64,
    max_iters: u64,
) -> Result<Root, SolverError> {
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(SolverError::Bracket { lo, hi });
    }
    if !(tol.is_finite() && tol >= 0.0) {
        return Err(SolverError::Tolerance { tol });
    }
    let mut eval = |x: f64| {
        let y = f(x);
        if y.is_nan() {
            Err(SolverError::NonFinite { x, value: y })
        } else {
            Ok(y)
        }
    };
    let (mut a, mut b) = (lo, hi);
    let (mut fa, mut fb) = (eval(a)?, eval(b)?);
    for (x, value) in [(a, fa), (b, fb)] {
        if value.is_infinite() {
            return Err(SolverError::NonFinite { x, value });
        }
    }
    if fa * fb > 0.0 {
        return Err(SolverError::SameSign { lo, hi });
    }
    // b: the best estimate; c: the other end of the bracket; a: the previous b.
    let (mut c, mut fc) = (b, fb);
    // d: the step just taken; e: the one before.
    let (mut d, mut e) = (b - a, b - a);
    let (mut best_x, mut best_r) = (b, fb.abs());
    let mut iterations = 0;
    let done = |x, residual, iterations, converged| Root {
        x,
        residual,
        iterations,
        converged,
    };
    loop {
        if iterations >= max_iters {
            return Ok(done(best_x, best_r, iterations, false));
        }
        iterations += 1;
        if (fb > 0.0 && fc > 0.0) || (fb < 0.0 && fc < 0.0) {
            // The last step kept the sign: the bracket's far end is the previous point.
            (c, fc) = (a, fa);
            d = b - a;
            e = d;
        }
        if fc.abs() < fb.abs() {
            (a, fa) = (b, fb);
            (b, fb) = (c, fc);
            (c, fc) = (a, fa);
        }
        let tol1 = 2.0 * f64::EPSILON * b.abs() + 0.5 * tol;
        let half = 0.5 * (c - b);
        if half.abs() <= tol1 || fb == 0.0 {
            if fb.abs() < best_r {
                (best_x, best_r) = (b, fb.abs());
            }
            return Ok(done(best_x, best_r, iterations, true));
        }
        if e.abs() >= tol1 && fa.abs() > fb.abs() {
            let s = fb / fa;
            let (mut p, mut q) = if a == c {
                (2.0 * half * s, 1.0 - s)
            } else {
                let qa = fa / fc;
                let r = fb / fc;
                (
                    s * (2.0 * half * qa * (qa - r) - (b - a) * (r - 1.0)),
                    (qa - 1.0) * (r - 1.0) * (s - 1.0),
                )
            };
            if p > 0.0 {
                q = -q;
            }
            p = p.abs();
            let inside = 3.0 * half * q - (tol1 * q).abs();
            let shrinking = (e * q).abs();
            if 2.0 * p
                < if inside < shrinking {
                    inside
                } else {
                    shrinking
                }
            {
                e = d;
                d = p / q;
            } else {
                d = half;
                e = d;
            }
        } else {
            d = half;
            e = d;
        }
        (a, fa) = (b, fb);
        b += if d.abs() > tol1 {
            d
        } else if half >= 0.0 {
            tol1.abs()
        } else {
            -tol1.abs()
        };
        fb = eval(b)?;
        if fb.abs() < best_r {
            (best_x, best_r) = (b, fb.abs());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brents_classic_cubic() {
        // x^3 - 2x - 5 = 0, Wallis's example: 2.0945514815423265914823865...
        let r = find_root(|x| x * x * x - 2.0 * x - 5.0, 2.0, 3.0, 1e-15, 100).unwrap();
        assert!(r.converged);
        assert!((r.x - 2.094_551_481_542_326_6).abs() < 4e-15, "{}", r.x);
    }

    #[test]
    fn cos_x_equals_x() {
        // The Dottie number 0.7390851332151606416...
        let r = find_root(|x| x.cos() - x, 0.0, 1.0, 1e-16, 100).unwrap();
        assert!(r.converged);
        assert!((r.x - 0.739_085_133_215_160_6).abs() < 4e-16, "{}", r.x);
        // Either orientation of the bracket.
        let r = find_root(|x| x.cos() - x, 1.0, 0.0, 1e-16, 100).unwrap();
        assert!((r.x - 0.739_085_133_215_160_6).abs() < 4e-16, "{}", r.x);
    }

    #[test]
    fn roots_at_the_ends_are_exact() {
        let r = find_root(|x| x - 1.0, 1.0, 3.0, 1e-12, 100).unwrap();
        assert_eq!((r.x, r.residual), (1.0, 0.0));
        let r = find_root(|x| x - 3.0, 1.0, 3.0, 1e-12, 100).unwrap();
        assert_eq!((r.x, r.iterations), (3.0, 1));
        assert!(r.converged);
    }

    #[test]
    fn infinite_values_inside_only_force_bisection() {
        let f = |x: f64| {
            if x > 1.2 && x < 2.9 {
                f64::NEG_INFINITY
            } else {
                1.0 - x
            }
        };
        let r = find_root(f, 0.0, 3.0, 1e-15, 200).unwrap();
        assert!(r.converged);
        assert!((r.x - 1.0).abs() < 1e-15, "{}", r.x);
    }

    #[test]
    fn iteration_cap_is_reported() {
        let r = find_root(|x| x.cos() - x, 0.0, 1.0, 0.0, 2).unwrap();
        assert!(!r.converged);
        assert_eq!(r.iterations, 2);
        assert!((0.0..=1.0).contains(&r.x));
    }

    #[test]
    fn bad_input_is_an_error() {
        let r = find_root(|x| x * x + 1.0, -1.0, 1.0, 1e-12, 100);
        assert!(matches!(r, Err(SolverError::SameSign { .. })), "{r:?}");
        let r = find_root(
            |x| if x > 0.3 { f64::NAN } else { x - 0.5 },
            0.0,
            1.0,
            1e-12,
            100,
        );
        assert!(matches!(r, Err(SolverError::NonFinite { .. })), "{r:?}");
        let r = find_root(|x| 1.0 / x - 1.0, 0.0, 2.0, 1e-12, 100);
        assert!(matches!(r, Err(SolverError::NonFinite { .. })), "{r:?}");
        let r = find_root(|x| x, f64::NAN, 1.0, 1e-12, 100);
        assert!(matches!(r, Err(SolverError::Bracket { .. })), "{r:?}");
        let r = find_root(|x| x, -1.0, 1.0, -1.0, 100);
        assert!(matches!(r, Err(SolverError::Tolerance { .. })), "{r:?}");
    }
}

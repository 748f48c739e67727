//! The Nelder-Mead simplex minimizer (Nelder and Mead 1965, "A simplex method for function
//! minimization"), with the standard coefficients: reflection 1, expansion 2, contraction 1/2,
//! shrink 1/2.

use super::SolverError;
use std::cmp::Ordering;

const REFLECT: f64 = 1.0;
const EXPAND: f64 = 2.0;
const CONTRACT: f64 = 0.5;
const SHRINK: f64 = 0.5;

/// What the simplex found.
#[derive(Debug, Clone, PartialEq)]
pub struct SimplexMinimum {
    /// The best vertex (the first one to reach the lowest value, on ties).
    pub x: Vec<f64>,
    /// The value there.
    pub value: f64,
    /// Iterations run (one reflection and what follows it each).
    pub iterations: u64,
    /// Whether the values at the vertices agreed to the tolerance before the cap.
    pub converged: bool,
}

/// `p + (q - p) t`, coordinate by coordinate.
fn towards(p: &[f64], q: &[f64], t: f64) -> Vec<f64> {
    p.iter().zip(q).map(|(p, q)| p + (q - p) * t).collect()
}

/// Minimizes `f` from the `n + 1` vertices of `simplex` (each a point of `n >= 1` coordinates).
///
/// Each iteration reflects the worst vertex through the centroid of the others and then
/// expands (the reflection beat the best vertex; the better of the two is kept), keeps the
/// reflection (it beat the second worst), contracts halfway to the reflection (it beat only the
/// worst) or halfway to the worst vertex (it beat none), and when a contraction does not help,
/// shrinks every vertex halfway towards the best. The vertices are kept sorted by value, ties
/// in the order they were made.
///
/// It stops, converged, when the sample standard deviation of the `n + 1` values is below
/// `sd_tolerance` (checked before each iteration, so a simplex that starts flat takes none);
/// otherwise after `max_iters` iterations, or when a value is `-inf`. `f` may return `+inf`
/// ("infeasible"); a NaN value is an error.
///
/// ```
/// use ckpt::optimize::simplex::nelder_mead;
/// let f = |p: &[f64]| (p[0] - 1.0).powi(2) + (p[1] + 2.0).powi(2);
/// let m = nelder_mead(f, vec![vec![0.0, 0.0], vec![0.5, 0.0], vec![0.0, 0.5]], 1e-12, 1000)
///     .unwrap();
/// assert!((m.x[0] - 1.0).abs() < 1e-5 && (m.x[1] + 2.0).abs() < 1e-5 && m.converged);
/// ```
pub fn nelder_mead(
    mut f: impl FnMut(&[f64]) -> f64,
    simplex: Vec<Vec<f64>>,
    sd_tolerance: f64,
    max_iters: u64,
) -> Result<SimplexMinimum, SolverError> {
    let n = simplex.len().saturating_sub(1);
    if n == 0 || simplex.iter().any(|p| p.len() != n) {
        return Err(SolverError::Simplex {
            vertices: simplex.len(),
            dims: simplex.iter().map(Vec::len).collect(),
        });
    }
    if !(sd_tolerance >= 0.0) {
        return Err(SolverError::Tolerance { tol: sd_tolerance });
    }
    let mut eval = |x: &[f64]| {
        let y = f(x);
        if y.is_nan() {
            Err(SolverError::NonFinite {
                x: x.first().copied().unwrap_or(f64::NAN),
                value: y,
            })
        } else {
            Ok(y)
        }
    };
    let mut vertices = Vec::with_capacity(n + 1);
    for p in simplex {
        let y = eval(&p)?;
        vertices.push((p, y));
    }
    // No NaN gets here, so partial_cmp is total; a stable sort keeps ties in their order.
    let sort = |v: &mut Vec<(Vec<f64>, f64)>| {
        v.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal))
    };
    sort(&mut vertices);
    let mut best = vertices[0].clone();
    let mut iterations = 0;
    loop {
        let count = (n + 1) as f64;
        let mean = vertices.iter().map(|v| v.1).sum::<f64>() / count;
        let sd = (1.0 / (count - 1.0) * vertices.iter().map(|v| (v.1 - mean).powi(2)).sum::<f64>())
            .sqrt();
        let converged = sd < sd_tolerance;
        if converged || iterations >= max_iters || best.1 == f64::NEG_INFINITY {
            return Ok(SimplexMinimum {
                x: best.0,
                value: best.1,
                iterations,
                converged,
            });
        }
        iterations += 1;
        let mut centroid = vertices[0].0.clone();
        for (p, _) in &vertices[1..n] {
            for (c, x) in centroid.iter_mut().zip(p) {
                *c += x;
            }
        }
        let scale = 1.0 / n as f64;
        centroid.iter_mut().for_each(|c| *c *= scale);
        let lowest = vertices[0].1;
        let second_worst = vertices[n - 1].1;
        let (worst, worst_value) = (&vertices[n].0, vertices[n].1);
        let reflected: Vec<f64> = centroid
            .iter()
            .zip(worst)
            .map(|(c, w)| c + (c - w) * REFLECT)
            .collect();
        let fr = eval(&reflected)?;
        let replacement = if fr < lowest {
            let expanded = towards(&centroid, &reflected, EXPAND);
            let fe = eval(&expanded)?;
            Some(if fe < fr {
                (expanded, fe)
            } else {
                (reflected, fr)
            })
        } else if fr < second_worst {
            Some((reflected, fr))
        } else if fr < worst_value {
            let contracted = towards(&centroid, &reflected, CONTRACT);
            let fc = eval(&contracted)?;
            (fc <= fr).then_some((contracted, fc))
        } else {
            let contracted = towards(&centroid, worst, CONTRACT);
            let fc = eval(&contracted)?;
            (fc < worst_value).then_some((contracted, fc))
        };
        match replacement {
            Some(v) => vertices[n] = v,
            None => {
                let anchor = vertices[0].0.clone();
                for (p, y) in &mut vertices[1..] {
                    *p = towards(&anchor, p, SHRINK);
                    *y = eval(p)?;
                }
            }
        }
        sort(&mut vertices);
        let (top, value) = (&vertices[0].0, vertices[0].1);
        // Infinite values compare equal to themselves; the newest of them stands in.
        if value < best.1 || (value.is_infinite() && value == best.1) {
            best = (top.clone(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corner(x: &[f64], step: f64) -> Vec<Vec<f64>> {
        let mut s = vec![x.to_vec()];
        for i in 0..x.len() {
            let mut p = x.to_vec();
            p[i] += step;
            s.push(p);
        }
        s
    }

    #[test]
    fn rosenbrock() {
        // (1 - x)^2 + 100 (y - x^2)^2: the minimum 0 at (1, 1), from the classic (-1.2, 1).
        let f = |p: &[f64]| (1.0 - p[0]).powi(2) + 100.0 * (p[1] - p[0] * p[0]).powi(2);
        let m = nelder_mead(f, corner(&[-1.2, 1.0], 0.5), 1e-15, 5000).unwrap();
        assert!(m.converged);
        assert!(
            (m.x[0] - 1.0).abs() < 1e-4 && (m.x[1] - 1.0).abs() < 1e-4,
            "{:?}",
            m.x
        );
        assert!(m.value < 1e-9, "{}", m.value);
    }

    #[test]
    fn quadratic_bowl_in_three_dimensions() {
        let centre = [3.0, -1.0, 0.5];
        let f = |p: &[f64]| {
            p.iter()
                .zip(centre)
                .enumerate()
                .map(|(i, (x, c))| (i + 1) as f64 * (x - c).powi(2))
                .sum::<f64>()
                + 2.0
        };
        let m = nelder_mead(f, corner(&[0.0, 0.0, 0.0], 1.0), 1e-14, 5000).unwrap();
        assert!(m.converged);
        for (x, c) in m.x.iter().zip(centre) {
            assert!((x - c).abs() < 1e-5, "{:?}", m.x);
        }
        assert!((m.value - 2.0).abs() < 1e-12);
    }

    #[test]
    fn infeasible_region_as_infinity() {
        // The unconstrained minimum (-1, 0) is infeasible; on x >= 0 it is (0, 0), value 1.
        let f = |p: &[f64]| {
            if p[0] < 0.0 {
                f64::INFINITY
            } else {
                (p[0] + 1.0).powi(2) + p[1] * p[1]
            }
        };
        let m = nelder_mead(f, corner(&[2.0, 1.0], 0.5), 1e-14, 5000).unwrap();
        assert!(
            m.x[0] >= 0.0 && m.x[0] < 1e-6 && m.x[1].abs() < 1e-3,
            "{:?}",
            m.x
        );
    }

    #[test]
    fn iteration_cap_and_flat_start() {
        let f = |p: &[f64]| p[0] * p[0] + p[1] * p[1];
        let m = nelder_mead(f, corner(&[5.0, 5.0], 1.0), 0.0, 5).unwrap();
        assert_eq!((m.iterations, m.converged), (5, false));
        // Equal values from the start: converged before any iteration, at the first vertex.
        let m = nelder_mead(|_| 4.0, corner(&[1.0, 2.0], 1.0), 1e-12, 5).unwrap();
        assert_eq!((m.iterations, m.converged), (0, true));
        assert_eq!((m.x, m.value), (vec![1.0, 2.0], 4.0));
    }

    #[test]
    fn minus_infinity_stops_unconverged() {
        let f = |p: &[f64]| if p[0] > 1.2 { f64::NEG_INFINITY } else { -p[0] };
        let m = nelder_mead(f, corner(&[0.0, 0.0], 1.0), 1e-12, 100).unwrap();
        assert_eq!(m.value, f64::NEG_INFINITY);
        assert!(!m.converged && m.iterations < 100);
    }

    #[test]
    fn nan_and_bad_input_are_errors() {
        let f = |p: &[f64]| if p[0] > 0.7 { f64::NAN } else { -p[0] };
        let r = nelder_mead(f, corner(&[0.0, 0.0], 0.5), 1e-12, 100);
        assert!(matches!(r, Err(SolverError::NonFinite { .. })), "{r:?}");
        let g = |p: &[f64]| p[0];
        for bad in [vec![], vec![vec![]], vec![vec![0.0], vec![1.0, 2.0]]] {
            let r = nelder_mead(g, bad, 1e-12, 10);
            assert!(matches!(r, Err(SolverError::Simplex { .. })), "{r:?}");
        }
        let r = nelder_mead(g, corner(&[0.0], 1.0), -1.0, 10);
        assert!(matches!(r, Err(SolverError::Tolerance { .. })), "{r:?}");
    }
}

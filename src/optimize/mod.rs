//! The one minimizer every cost model uses: Brent's method on `ln overhead` over
//! `ln(tau / tau0)`, on a bracket grown from the closed-form estimate `tau0`, with an explicit
//! iteration cap, a convergence check, and a polish by Brent's root finder on the derivative
//! condition where the model knows it in closed form.
//!
//! The solvers themselves live here too, each small and self-contained: [`brent`] (Brent's
//! minimizer), [`root`] (Brent's root finder) and [`simplex`] (Nelder-Mead, which the gamma and
//! log-normal fits use).

pub mod brent;
pub mod root;
pub mod simplex;

use crate::model::CostModel;
use brent::Brent;
use thiserror::Error;

/// Why a solver could not run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SolverError {
    /// The bracket is not a finite interval with `lo < hi`.
    #[error("the bracket [{lo}, {hi}] is not a finite interval")]
    Bracket {
        /// Its lower end.
        lo: f64,
        /// Its upper end.
        hi: f64,
    },
    /// A tolerance is negative or not finite.
    #[error("the tolerance {tol} is not a finite non-negative number")]
    Tolerance {
        /// The tolerance given.
        tol: f64,
    },
    /// The function has the same sign at both ends of the root finder's bracket.
    #[error("the function has the same sign at {lo} and {hi}")]
    SameSign {
        /// The lower end.
        lo: f64,
        /// The upper end.
        hi: f64,
    },
    /// The function gave a value the solver cannot order or interpolate.
    #[error("the function is {value} at {x}")]
    NonFinite {
        /// Where (the first coordinate, for the simplex).
        x: f64,
        /// The value.
        value: f64,
    },
    /// The simplex does not have `n + 1` vertices of `n >= 1` coordinates each.
    #[error("a simplex needs n + 1 vertices of n >= 1 coordinates; got {vertices} of {dims:?}")]
    Simplex {
        /// Vertices given.
        vertices: usize,
        /// Their lengths.
        dims: Vec<usize>,
    },
}

/// Iteration cap of each Brent run.
pub const MAX_ITERS: u64 = 500;
/// Widening steps of the bracket beyond the first (each by a factor 1e3 on the stuck side).
const MAX_WIDENINGS: usize = 8;
/// A stand-in for `+inf` that keeps Brent's parabolic steps finite.
const HUGE: f64 = 1e300;

/// Why no optimum could be given.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum OptimizeError {
    /// The closed-form seed is not a positive number.
    #[error("{model}: no starting interval (closed-form estimate {seed})")]
    Seed {
        /// The cost model, by name.
        model: &'static str,
        /// The closed-form estimate it started from.
        seed: f64,
    },
    /// The overhead at the best interval is beyond f64 range.
    #[error(
        "{model}: no interval makes progress (the expected overhead is beyond 1e308 at every interval)"
    )]
    NoProgress {
        /// The cost model, by name.
        model: &'static str,
    },
    /// The minimum kept running into the edge of the widest bracket.
    #[error("{model}: the overhead keeps falling towards {edge} intervals; no optimum exists")]
    Unbounded {
        /// The cost model, by name.
        model: &'static str,
        /// `short` or `long`: the end of the bracket the overhead falls towards.
        edge: &'static str,
    },
    /// The solver refused its input (a bug: the bracket and the values are made safe first).
    #[error("{model}: the solver failed: {message}")]
    Solver {
        /// The cost model, by name.
        model: &'static str,
        /// What the solver said.
        message: String,
    },
}

/// The numerical optimum of a cost model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Optimum {
    /// The optimal work interval (s).
    pub interval: f64,
    /// `ln overhead` at that interval.
    pub ln_overhead: f64,
    /// Iterations of the last Brent run.
    pub iterations: u64,
    /// Whether the solver reported convergence (and the root polish, where run, too).
    pub converged: bool,
    /// Whether the interval was polished on the derivative condition.
    pub polished: bool,
}

impl Optimum {
    /// The overhead at the optimum.
    pub fn overhead(&self) -> f64 {
        self.ln_overhead.exp()
    }
}

/// Minimizes `model`'s overhead.
///
/// ```
/// use ckpt::model::daly::DalyComplete;
/// let m = DalyComplete::new(86400.0, 300.0, 600.0, 0.0).unwrap();
/// let opt = ckpt::optimize::minimize(&m).unwrap();
/// assert!((opt.interval - m.exact_optimum()).abs() / opt.interval < 1e-12);
/// assert!(opt.converged);
/// ```
pub fn minimize(model: &dyn CostModel) -> Result<Optimum, OptimizeError> {
    let name = model.name();
    let tau0 = model.seed_interval();
    if !(tau0.is_finite() && tau0 > 0.0) {
        return Err(OptimizeError::Seed {
            model: name,
            seed: tau0,
        });
    }
    let step = 1e3f64.ln();
    let (mut lo, mut hi) = (-step, step);
    let f = log_objective(model, tau0);
    let mut widening = 0;
    let found = loop {
        let found = BRENT
            .minimize(&f, lo, hi)
            .map_err(|e| OptimizeError::Solver {
                model: name,
                message: e.to_string(),
            })?;
        let margin = 1e-6 * (hi - lo);
        let at_lo = found.x - lo < margin;
        let at_hi = hi - found.x < margin;
        if !(at_lo || at_hi) {
            break found;
        }
        if widening == MAX_WIDENINGS {
            let edge = if at_lo { "short" } else { "long" };
            if found.value >= HUGE {
                return Err(OptimizeError::NoProgress { model: name });
            }
            return Err(OptimizeError::Unbounded { model: name, edge });
        }
        // The minimum sits on an edge: move the bracket out on that side only.
        if at_lo {
            lo -= step;
        } else {
            hi += step;
        }
        widening += 1;
    };
    let (x, fx) = (found.x, found.value);
    if !(fx.is_finite() && fx < HUGE && fx < f64::MAX.ln()) {
        return Err(OptimizeError::NoProgress { model: name });
    }
    let mut opt = Optimum {
        interval: tau0 * x.exp(),
        ln_overhead: fx,
        iterations: found.iterations,
        converged: found.converged,
        polished: false,
    };
    if let Some(polished) = polish(model, opt.interval) {
        let lp = model.ln_overhead(polished);
        // The root is exact where the minimizer is only within sqrt(eps); the overheads of the
        // two differ by rounding (~1e-15 absolute on the log scale), so keep the root unless
        // it is clearly worse.
        if lp <= opt.ln_overhead + 1e-13 {
            opt.interval = polished;
            opt.ln_overhead = lp;
            opt.polished = true;
        }
    }
    Ok(opt)
}

/// The settings of every Brent run on `ln(tau / tau0)`.
const BRENT: Brent = Brent {
    rel_tol: 1.490_116_119_384_765_6e-8, // sqrt(f64::EPSILON)
    abs_tol: 1e-10,
    max_iters: MAX_ITERS,
};

/// `ln overhead` at `tau0 e^x`, non-finite values made HUGE so that Brent's parabolic steps stay
/// finite.
fn log_objective(model: &dyn CostModel, tau0: f64) -> impl Fn(f64) -> f64 + '_ {
    move |x: f64| {
        let v = model.ln_overhead(tau0 * x.exp());
        if v.is_finite() { v } else { HUGE }
    }
}

/// Minimizes `model`'s overhead on the fixed bracket `[lo, hi]` (`0 < lo < hi`), on the same log
/// scale and to the same tolerances as [`minimize`], without widening the bracket: a local
/// minimum, for a model whose overhead has several. No root polish. The model's seed is not
/// used.
///
/// ```
/// use ckpt::model::daly::DalyComplete;
/// let m = DalyComplete::new(86400.0, 300.0, 600.0, 0.0).unwrap();
/// let best = m.exact_optimum();
/// let near = ckpt::optimize::minimize_between(&m, 0.5 * best, 2.0 * best).unwrap();
/// assert!((near.interval / best - 1.0).abs() < 1e-6);
/// let edge = ckpt::optimize::minimize_between(&m, 2.0 * best, 3.0 * best).unwrap();
/// assert!((edge.interval / (2.0 * best) - 1.0).abs() < 1e-6);
/// ```
pub fn minimize_between(model: &dyn CostModel, lo: f64, hi: f64) -> Result<Optimum, OptimizeError> {
    let name = model.name();
    if !(lo > 0.0 && hi > lo && hi.is_finite()) {
        return Err(OptimizeError::Solver {
            model: name,
            message: SolverError::Bracket { lo, hi }.to_string(),
        });
    }
    let f = log_objective(model, lo);
    let found = BRENT
        .minimize(&f, 0.0, (hi / lo).ln())
        .map_err(|e| OptimizeError::Solver {
            model: name,
            message: e.to_string(),
        })?;
    if !(found.value < HUGE && found.value < f64::MAX.ln()) {
        return Err(OptimizeError::NoProgress { model: name });
    }
    Ok(Optimum {
        interval: lo * found.x.exp(),
        ln_overhead: found.value,
        iterations: found.iterations,
        converged: found.converged,
        polished: false,
    })
}

/// Brent's root finder on the derivative condition near `tau`, if the model has one.
fn polish(model: &dyn CostModel, tau: f64) -> Option<f64> {
    let g = |t: f64| model.stationarity(t);
    let g0 = g(tau)?;
    if g0 == 0.0 {
        return Some(tau);
    }
    let mut width = 1e-6;
    for _ in 0..12 {
        let (a, b) = (tau * (1.0 - width), tau * (1.0 + width));
        let (ga, gb) = (g(a)?, g(b)?);
        if ga.is_finite() && gb.is_finite() && ga * gb < 0.0 {
            // A NaN (no model gives one) or a cap reached leaves the minimizer's answer.
            let found =
                root::find_root(|t| g(t).unwrap_or(f64::NAN), a, b, 1e-16 * tau, MAX_ITERS).ok()?;
            return Some(found.x).filter(|t| found.converged && *t > 0.0);
        }
        width = (width * 10.0).min(0.5);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::daly::DalyComplete;

    #[test]
    fn brent_settings_are_sqrt_eps_relative() {
        assert_eq!(BRENT.rel_tol, f64::EPSILON.sqrt());
    }

    #[test]
    fn finds_daly_exact_optimum_to_the_contract() {
        for a in [1e-6, 1e-4, 1e-2, 0.5, 1.0, 1.9] {
            let m = DalyComplete::new(1000.0, 1000.0 * a, 0.0, 0.0).unwrap();
            let opt = minimize(&m).unwrap();
            let exact = m.exact_optimum();
            assert!(opt.converged);
            assert!(
                (opt.interval - exact).abs() / exact < 1e-12,
                "a={a}: {} {exact}",
                opt.interval
            );
            let lo = m.ln_overhead(exact);
            assert!((opt.ln_overhead.exp() / lo.exp() - 1.0).abs() < 1e-12);
        }
    }

    /// A model whose overhead falls for ever: the optimizer must say so, not loop.
    struct Falling;
    impl CostModel for Falling {
        fn name(&self) -> &'static str {
            "falling"
        }
        fn ln_overhead(&self, tau: f64) -> f64 {
            1.0 / tau
        }
        fn seed_interval(&self) -> f64 {
            1.0
        }
        fn expected_failures(&self, _: f64) -> f64 {
            0.0
        }
    }

    #[test]
    fn unbounded_is_an_error() {
        assert!(matches!(
            minimize(&Falling),
            Err(OptimizeError::Unbounded { .. })
        ));
    }
}

use super::FailureError;
use rand::{Rng, RngExt};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Gamma as GammaDist};
use statrs::function::gamma::{checked_gamma_lr, checked_gamma_ur, ln_gamma};
use std::f64::consts::{LN_2, SQRT_2};
use std::fmt;

/// `ln(1 - e^(-x))` for `x > 0`, without the cancellation of the naive form (Maechler's log1mexp).
///
/// ```
/// let v = ckpt::failure::log1mexp(1e-20);
/// assert!((v - (1e-20f64).ln()).abs() < 1e-12);
/// ```
pub fn log1mexp(x: f64) -> f64 {
    if x <= 0.0 {
        f64::NEG_INFINITY
    } else if x <= LN_2 {
        (-(-x).exp_m1()).ln()
    } else {
        (-(-x).exp()).ln_1p()
    }
}

/// `ln(e^x - 1)` for `x > 0`, finite far beyond where `e^x` overflows: the log of the failures
/// a Poisson process meets, on average, before its first gap of `x` means.
pub(crate) fn ln_expm1(x: f64) -> f64 {
    if x < 1.0 {
        x.exp_m1().ln()
    } else {
        x + log1mexp(x)
    }
}

/// `ln(e^a + e^b)` without overflow: a sum of probabilities or counts kept in logs. Either may
/// be `-inf` (a zero term); an infinite term gives `+inf`.
///
/// ```
/// use ckpt::failure::ln_add_exp;
/// assert!((ln_add_exp(1000.0, 1000.0) - (1000.0 + 2f64.ln())).abs() < 1e-12);
/// assert_eq!(ln_add_exp(f64::NEG_INFINITY, 3.0), 3.0);
/// ```
pub fn ln_add_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY || hi == f64::INFINITY {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// `ln(1 - p)` where `complement()` computes `1 - p` directly: `ln_1p(-p)` while `p` is small,
/// the complement's own log once it is, so neither loses digits to the subtraction.
fn ln_complement(p: f64, complement: impl FnOnce() -> f64) -> f64 {
    if p < 0.5 {
        (-p).ln_1p()
    } else {
        complement().ln()
    }
}

/// The family of a lifetime distribution, with its shape parameter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "family", rename_all = "lowercase")]
pub enum Shape {
    /// Memoryless failures: the assumption of Young's and Daly's models.
    Exponential,
    /// Weibull with shape `k` (k < 1: infant mortality, as volunteer hosts and HPC nodes show).
    Weibull {
        /// The shape parameter.
        shape: f64,
    },
    /// Gamma with shape `k`.
    Gamma {
        /// The shape parameter.
        shape: f64,
    },
    /// Log-normal with log-scale standard deviation `sigma`.
    LogNormal {
        /// The log-scale standard deviation.
        sigma: f64,
    },
}

impl Shape {
    /// Parses `exp`, `weibull:K`, `gamma:K` or `lognormal:SIGMA`.
    ///
    /// ```
    /// use ckpt::failure::Shape;
    /// assert_eq!(Shape::parse("weibull:0.7").unwrap(), Shape::Weibull { shape: 0.7 });
    /// assert!(Shape::parse("weibull:0").is_err());
    /// assert!(Shape::parse("gamma:1e7").is_err()); // over MAX_SHAPE
    /// ```
    pub fn parse(text: &str) -> Result<Shape, FailureError> {
        let err = || FailureError::Spec {
            value: text.to_string(),
        };
        let lower = text.trim().to_ascii_lowercase();
        let (family, param) = match lower.split_once(':') {
            Some((f, p)) => (f, Some(p)),
            None => (lower.as_str(), None),
        };
        let shape = || -> Result<f64, FailureError> {
            let v: f64 = param.ok_or_else(err)?.trim().parse().map_err(|_| err())?;
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(err())
            }
        };
        let bounded = |family: &'static str| -> Result<f64, FailureError> {
            let v = shape()?;
            at_most_max(family, v)?;
            Ok(v)
        };
        match family {
            "exp" | "exponential" if param.is_none() => Ok(Shape::Exponential),
            "weibull" => Ok(Shape::Weibull {
                shape: bounded("weibull")?,
            }),
            "gamma" => Ok(Shape::Gamma {
                shape: bounded("gamma")?,
            }),
            "lognormal" | "log-normal" => Ok(Shape::LogNormal { sigma: shape()? }),
            _ => Err(err()),
        }
    }

    /// True for the exponential, whose closed forms the models can use.
    pub fn is_exponential(&self) -> bool {
        matches!(self, Shape::Exponential)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Exponential => write!(f, "exp"),
            Shape::Weibull { shape } => write!(f, "weibull:{shape}"),
            Shape::Gamma { shape } => write!(f, "gamma:{shape}"),
            Shape::LogNormal { sigma } => write!(f, "lognormal:{sigma}"),
        }
    }
}

/// A lifetime distribution with a given mean (seconds).
///
/// ```
/// use ckpt::failure::{Lifetime, Shape};
/// let w = Lifetime::new(Shape::Weibull { shape: 0.7 }, 3600.0).unwrap();
/// assert!((w.mean() - 3600.0).abs() < 1e-9);
/// assert!(w.sf(3600.0) < 1.0);
/// ```
// Serialized as its family and mean; deserializing validates again, so a shard file cannot
// smuggle in a distribution that `new` would refuse.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(into = "LifetimeSpec", try_from = "LifetimeSpec")]
pub struct Lifetime {
    shape: Shape,
    mean: f64,
    /// Weibull scale, gamma scale, or log-normal mu: derived once from the mean.
    param: f64,
    /// `E[X^n]` for `n = 0, 1, 2` (infinite beyond f64 range), which every partial moment
    /// scales: derived once, as it costs a Weibull three `ln_gamma`.
    full: [f64; 3],
}

/// The serialized form of a [`Lifetime`].
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct LifetimeSpec {
    shape: Shape,
    mean: f64,
}

serde_proxy!(Lifetime <-> LifetimeSpec { shape, mean }, FailureError);

/// The largest Weibull or gamma shape taken (and fitted): at `10^6` a gamma lifetime is fixed to
/// within 0.1%, and the time of statrs' incomplete gamma function grows with the shape (`ckpt
/// interval` took 8.7 s at a gamma shape of `10^15`, more than 20 s at `10^17`).
pub const MAX_SHAPE: f64 = 1e6;

/// Refuses a Weibull or gamma shape above [`MAX_SHAPE`] (a log-normal sigma has no such cost).
fn at_most_max(family: &'static str, v: f64) -> Result<(), FailureError> {
    if v > MAX_SHAPE {
        Err(FailureError::ShapeTooLarge { family, value: v })
    } else {
        Ok(())
    }
}

impl Lifetime {
    /// A distribution of the given family with the given mean.
    pub fn new(shape: Shape, mean: f64) -> Result<Lifetime, FailureError> {
        if !(mean.is_finite() && mean > 0.0) {
            return Err(FailureError::Mean { value: mean });
        }
        let check = |name: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(FailureError::ShapeParameter { name, value: v })
            }
        };
        let param = match shape {
            Shape::Exponential => mean,
            Shape::Weibull { shape: k } => {
                check("weibull", k)?;
                at_most_max("weibull", k)?;
                let ln_g = ln_gamma(1.0 + 1.0 / k);
                // Gamma(1 + 1/K) passes f64 range for K below about 0.007: no scale gives
                // this mean, and the error should say so rather than blame the mean.
                if !(ln_g < f64::MAX.ln()) {
                    return Err(FailureError::MeanOverflow {
                        family: "weibull",
                        value: k,
                    });
                }
                mean / ln_g.exp()
            }
            Shape::Gamma { shape: k } => {
                check("gamma", k)?;
                at_most_max("gamma", k)?;
                mean / k
            }
            Shape::LogNormal { sigma } => {
                check("lognormal", sigma)?;
                mean.ln() - sigma * sigma / 2.0
            }
        };
        if !param.is_finite() || (param <= 0.0 && !matches!(shape, Shape::LogNormal { .. })) {
            return Err(FailureError::Mean { value: mean });
        }
        Ok(Lifetime {
            shape,
            mean,
            param,
            full: full_moments(shape, mean, param),
        })
    }

    /// The exponential distribution with mean `mean`.
    pub fn exponential(mean: f64) -> Result<Lifetime, FailureError> {
        Lifetime::new(Shape::Exponential, mean)
    }

    /// The mean lifetime (seconds).
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The family and shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// `ln P(X > t)`, finite far into the tail where that is possible.
    pub fn ln_sf(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return 0.0;
        }
        match self.shape {
            Shape::Exponential => -t / self.mean,
            Shape::Weibull { shape } => -(t / self.param).powf(shape),
            Shape::Gamma { shape } => {
                let x = t / self.param;
                ln_complement(gamma_p(shape, x), || gamma_q(shape, x))
            }
            Shape::LogNormal { sigma } => ln_phi(-(t.ln() - self.param) / sigma),
        }
    }

    /// `ln P(X <= t)`, finite for tiny `t` (where the naive `ln(1 - sf)` is `-inf`).
    pub fn ln_cdf(&self, t: f64) -> f64 {
        if t <= 0.0 {
            return f64::NEG_INFINITY;
        }
        match self.shape {
            Shape::Exponential => log1mexp(t / self.mean),
            Shape::Weibull { shape } => {
                // ln(1 - e^-y) = ln y where y = (t / scale)^K is below f64's range (a large K).
                let ln_y = shape * (t / self.param).ln();
                if ln_y < TINY_LN {
                    ln_y
                } else {
                    log1mexp((t / self.param).powf(shape))
                }
            }
            Shape::Gamma { shape } => {
                let x = t / self.param;
                ln_complement(gamma_q(shape, x), || gamma_p(shape, x))
            }
            Shape::LogNormal { sigma } => ln_phi((t.ln() - self.param) / sigma),
        }
    }

    /// `P(X > t)`.
    pub fn sf(&self, t: f64) -> f64 {
        self.ln_sf(t).exp()
    }

    /// `P(X <= t)`.
    pub fn cdf(&self, t: f64) -> f64 {
        self.ln_cdf(t).exp()
    }

    /// `integral_x^inf P(X > t) dt = E[(X - x)^+]`, the expected remaining life beyond `x`
    /// times the chance of reaching it (the mean for `x <= 0`); in closed form through the
    /// regularized incomplete gamma function and the normal cdf (`docs/models.md` §13).
    ///
    /// ```
    /// use ckpt::failure::Lifetime;
    /// let e = Lifetime::exponential(10.0).unwrap();
    /// assert!((e.excess(5.0) - 10.0 * (-0.5f64).exp()).abs() < 1e-12);
    /// ```
    pub fn excess(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return self.mean;
        }
        let v = match self.shape {
            Shape::Exponential => self.mean * (-x / self.mean).exp(),
            // Substituting u = (t/scale)^K gives scale Gamma(1/K, y) / K = M Q(1/K, y).
            Shape::Weibull { shape } => {
                let ratio = x / self.param;
                if shape * ratio.ln() < TINY_LN {
                    // y below f64's range, yet y^(1/K) = x / scale is not: the series
                    // P(a, y) = y^a / Gamma(a + 1) (1 + O(y)) at a = 1/K, in logarithms.
                    let p = (ratio.ln() - ln_gamma(1.0 + 1.0 / shape)).exp();
                    self.mean * (1.0 - p)
                } else {
                    self.mean * gamma_q(1.0 / shape, ratio.powf(shape))
                }
            }
            // E[X; X > x] - x P(X > x), with E[X; X > x] = M Q(K + 1, y) and
            // Q(K + 1, y) = Q(K, y) + y^K e^(-y) / Gamma(K + 1).
            Shape::Gamma { shape } => {
                let y = x / self.param;
                let q = gamma_q(shape, y);
                let tail = (shape * y.ln() - y - ln_gamma(shape + 1.0)).exp();
                (self.mean - x) * q + self.mean * tail
            }
            // E[X; X > x] = M Phi(sigma - z), P(X > x) = Phi(-z), z = (ln x - mu) / sigma.
            Shape::LogNormal { sigma } => {
                let z = (x.ln() - self.param) / sigma;
                self.mean * ln_phi(sigma - z).exp() - x * ln_phi(-z).exp()
            }
        };
        if v.is_finite() { v.max(0.0) } else { 0.0 }
    }

    /// `[P(a < X <= b), E[X; a < X <= b], E[X^2; a < X <= b]]`: the mass and the first two
    /// moments of the lifetime over `(a, b]`, in closed form through the regularized incomplete
    /// gamma function and the normal cdf. Each comes from the side of the median that keeps it
    /// accurate: two upper tails are subtracted above the median, two lower parts below it, so
    /// each keeps its digits relative to the tail or lower part it comes from (an interval far
    /// out in a light tail keeps them all; a narrow one far out in a heavy tail, whose moments
    /// lie mostly beyond it, has an error of about `1e-16` of that tail's moment). The second
    /// moment is infinite where
    /// `E[X^2]` passes f64 range (a mean beyond about `1e154` s), and every entry is 0 for
    /// `b <= a`.
    ///
    /// ```
    /// use ckpt::failure::Lifetime;
    /// let e = Lifetime::exponential(10.0).unwrap();
    /// let [p, m1, m2] = e.moments_between(0.0, f64::INFINITY);
    /// assert!((p - 1.0).abs() < 1e-15 && (m1 - 10.0).abs() < 1e-12);
    /// assert!((m2 - 200.0).abs() < 1e-10); // 2 M^2
    /// // Beyond 20 s: e^-2 (1, 20 + 10, 20^2 + 2 * 20 * 10 + 2 * 10^2).
    /// let [p, m1, m2] = e.moments_between(20.0, f64::INFINITY);
    /// let t = (-2.0f64).exp();
    /// assert!((p - t).abs() < 1e-15 && (m1 - 30.0 * t).abs() < 1e-13);
    /// assert!((m2 - 1000.0 * t).abs() < 1e-11);
    /// ```
    pub fn moments_between(&self, a: f64, b: f64) -> [f64; 3] {
        if !(b > a) {
            return [0.0; 3];
        }
        let cdf = self.cdf(a);
        self.between(cdf, b, |part| match part {
            Part::Below => self.partial(a, Side::Below),
            Part::Above => self.partial(a, Side::Above),
            Part::Rest => sub(self.partial(0.0, Side::Above), self.partial(a, Side::Below)),
        })
    }

    /// What [`Lifetime::moments_between`] needs at `a`, for many intervals that start there.
    pub(crate) fn cut(&self, a: f64) -> Cut {
        let below = self.partial(a, Side::Below);
        Cut {
            at: a,
            cdf: self.cdf(a),
            below,
            above: self.partial(a, Side::Above),
            rest: sub(self.partial(0.0, Side::Above), below),
        }
    }

    /// [`Lifetime::moments_between`]`(a, b)` from `a`'s [`Cut`]: the same sides and the same
    /// figures, with one evaluation at `b`.
    pub(crate) fn moments_from(&self, cut: &Cut, b: f64) -> [f64; 3] {
        if !(b > cut.at) {
            return [0.0; 3];
        }
        self.between(cut.cdf, b, |part| match part {
            Part::Below => cut.below,
            Part::Above => cut.above,
            Part::Rest => cut.rest,
        })
    }

    /// The moments over `(a, b]` from `P(X <= a)` and `a`'s partial moments: each from the
    /// side of the median that keeps its digits.
    fn between(&self, cdf_a: f64, b: f64, at_a: impl Fn(Part) -> [f64; 3]) -> [f64; 3] {
        if cdf_a >= 0.5 {
            sub(at_a(Part::Above), self.partial(b, Side::Above))
        } else if self.cdf(b) <= 0.5 {
            sub(self.partial(b, Side::Below), at_a(Part::Below))
        } else {
            sub(at_a(Part::Rest), self.partial(b, Side::Above))
        }
    }

    /// `E[X^n; X <= x]` (below) or `E[X^n; X > x]` (above) for `n = 0, 1, 2`: a full moment
    /// times a regularized incomplete gamma function or a normal cdf.
    fn partial(&self, x: f64, side: Side) -> [f64; 3] {
        let below = side == Side::Below;
        let x = x.max(0.0);
        if x <= 0.0 || x == f64::INFINITY {
            // Nothing below 0 and nothing above infinity; everything on the other side.
            let empty = (x <= 0.0) == below;
            if empty {
                return [0.0; 3];
            }
        }
        match self.shape {
            Shape::Exponential => gamma_partial(1.0, self.mean, self.full, x, below),
            Shape::Gamma { shape } => gamma_partial(shape, self.param, self.full, x, below),
            Shape::Weibull { shape } => {
                // E[X^n; X > x] = scale^n Gamma(1 + n/K) Q(1 + n/K, (x / scale)^K).
                let ln_y = shape * (x / self.param).ln();
                std::array::from_fn(|n| {
                    let a = 1.0 + n as f64 / shape;
                    let f = if ln_y < TINY_LN {
                        // y below f64's range: P(a, y) ~ y^a / Gamma(a + 1), 0 in f64 here.
                        if below { 0.0 } else { 1.0 }
                    } else if below {
                        gamma_p(a, ln_y.exp())
                    } else {
                        gamma_q(a, ln_y.exp())
                    };
                    times(self.full[n], f)
                })
            }
            Shape::LogNormal { sigma } => {
                // E[X^n; X <= x] = e^(n mu + n^2 sigma^2 / 2) Phi(z - n sigma).
                let z = (x.ln() - self.param) / sigma;
                std::array::from_fn(|m| {
                    let n = m as f64;
                    let f = if below {
                        ln_phi(z - n * sigma)
                    } else {
                        ln_phi(n * sigma - z)
                    };
                    times(self.full[m], f.exp())
                })
            }
        }
    }

    /// Draws one lifetime (seconds) from `rng`: positive and finite.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        // Inverse transform where it is exact and cheap; gamma uses statrs' sampler and
        // log-normal the crate's one normal draw, `crate::rng::standard_normal`.
        let t = match self.shape {
            Shape::Exponential => -self.mean * open01(rng).ln(),
            Shape::Weibull { shape } => self.param * (-open01(rng).ln()).powf(1.0 / shape),
            Shape::Gamma { shape } => {
                use rand::distr::Distribution;
                GammaDist::new(shape, 1.0 / self.param)
                    .map(|g| g.sample(rng))
                    .unwrap_or(self.mean)
            }
            Shape::LogNormal { sigma } => {
                let z = crate::rng::standard_normal(rng);
                (self.param + sigma * z).exp()
            }
        };
        if t.is_finite() && t > 0.0 {
            t
        } else {
            f64::MIN_POSITIVE.max(t.min(f64::MAX))
        }
    }

    /// Inverse of the cdf at `p` in (0, 1).
    pub fn quantile(&self, p: f64) -> f64 {
        match self.shape {
            Shape::Exponential => -self.mean * (-p).ln_1p(),
            Shape::Weibull { shape } => self.param * (-(-p).ln_1p()).powf(1.0 / shape),
            // statrs inverts on the given scale, and at a scale far from 1 (a mean of 1e-310 s)
            // it panics or does not return: there, the unit gamma's quantile is scaled instead.
            Shape::Gamma { shape } if !(1e-200..=1e200).contains(&self.param) => {
                GammaDist::new(shape, 1.0)
                    .map(|g| g.inverse_cdf(p) * self.param)
                    .unwrap_or(self.mean)
            }
            Shape::Gamma { shape } => GammaDist::new(shape, 1.0 / self.param)
                .map(|g| g.inverse_cdf(p))
                .unwrap_or(self.mean),
            Shape::LogNormal { sigma } => {
                let n = statrs::distribution::Normal::new(self.param, sigma).expect("valid");
                n.inverse_cdf(p).exp()
            }
        }
    }
}

/// Which part of a lifetime a partial moment covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// `X <= x`.
    Below,
    /// `X > x`.
    Above,
}

/// The partial moments at the start `a` of an interval (`(a, b]`).
#[derive(Debug, Clone, Copy)]
enum Part {
    /// Over `X <= a`.
    Below,
    /// Over `X > a`, from the upper tail.
    Above,
    /// Over `X > a`, as the whole less what lies below (for an interval across the median).
    Rest,
}

/// The partial moments of a lifetime at one age, for [`Lifetime::moments_from`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cut {
    at: f64,
    cdf: f64,
    below: [f64; 3],
    above: [f64; 3],
    rest: [f64; 3],
}

/// `x - y` entry by entry for partial moments: never negative, and infinite where both are
/// (a moment beyond f64 range on both sides of an interval).
fn sub(x: [f64; 3], y: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|n| {
        let v = x[n] - y[n];
        if v.is_nan() {
            f64::INFINITY
        } else {
            v.max(0.0)
        }
    })
}

/// `E[X^n]` for `n = 0, 1, 2` of the family `shape` with mean `mean` and parameter `param`.
fn full_moments(shape: Shape, mean: f64, param: f64) -> [f64; 3] {
    match shape {
        Shape::Exponential => [1.0, mean, 2.0 * mean * mean],
        // theta^n k (k+1)...(k+n-1).
        Shape::Gamma { shape: k } => [1.0, k * param, k * (k + 1.0) * param * param],
        // scale^n Gamma(1 + n/K).
        Shape::Weibull { shape: k } => {
            std::array::from_fn(|n| (n as f64 * param.ln() + ln_gamma(1.0 + n as f64 / k)).exp())
        }
        // e^(n mu + n^2 sigma^2 / 2).
        Shape::LogNormal { sigma } => std::array::from_fn(|n| {
            let n = n as f64;
            (n * param + n * n * sigma * sigma / 2.0).exp()
        }),
    }
}

/// [`Lifetime::partial`] of a gamma lifetime of shape `k`, scale `theta` and full moments
/// `full` (the exponential is `k = 1`): `E[X^n; X > x] = E[X^n] Q(k + n, x/theta)`.
fn gamma_partial(k: f64, theta: f64, full: [f64; 3], x: f64, below: bool) -> [f64; 3] {
    let y = x / theta;
    std::array::from_fn(|n| {
        let a = k + n as f64;
        let f = if below { gamma_p(a, y) } else { gamma_q(a, y) };
        times(full[n], f)
    })
}

/// A full moment times the fraction of it on one side: 0 where the fraction is (an infinite
/// moment with nothing on that side is nothing, not NaN).
fn times(full: f64, fraction: f64) -> f64 {
    if fraction == 0.0 {
        0.0
    } else {
        full * fraction
    }
}

/// Below this, `e^x` is under 1e-300: where a Weibull `(t / scale)^K` is computed from its
/// logarithm (a large shape makes it underflow long before `t` is small).
const TINY_LN: f64 = -690.0;

/// `P(a, x)`, the regularized lower incomplete gamma function, for every `x >= 0` and `a > 0`:
/// statrs takes `0 < x < inf` only and panics at the ends, which a large shape reaches (a
/// Weibull `(t / scale)^K` is 0 or infinite in f64 for K in the hundreds).
///
/// ```
/// use ckpt::failure::gamma_p;
/// assert_eq!((gamma_p(2.0, 0.0), gamma_p(2.0, f64::INFINITY)), (0.0, 1.0));
/// assert!((gamma_p(1.0, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-15);
/// ```
pub fn gamma_p(a: f64, x: f64) -> f64 {
    match x {
        x if x <= 0.0 => 0.0,
        f64::INFINITY => 1.0,
        x => checked_gamma_lr(a, x).unwrap_or(f64::NAN),
    }
}

/// `Q(a, x) = 1 - P(a, x)`, for every `x >= 0` and `a > 0` (see [`gamma_p`]).
///
/// ```
/// use ckpt::failure::gamma_q;
/// assert_eq!((gamma_q(2.0, 0.0), gamma_q(2.0, f64::INFINITY)), (1.0, 0.0));
/// assert!((gamma_q(1.0, 1.0) - (-1.0f64).exp()).abs() < 1e-15);
/// ```
pub fn gamma_q(a: f64, x: f64) -> f64 {
    match x {
        x if x <= 0.0 => 1.0,
        f64::INFINITY => 0.0,
        x => checked_gamma_ur(a, x).unwrap_or(f64::NAN),
    }
}

/// A uniform draw in (0, 1]: never 0, so its logarithm is finite.
fn open01<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    1.0 - rng.random::<f64>()
}

/// `ln Phi(z)` for the standard normal cdf, stable in the far lower tail.
pub(crate) fn ln_phi(z: f64) -> f64 {
    // erfc keeps its relative accuracy down to where Phi leaves the normal range of f64
    // (z near -37.5). The asymptotic series below is no substitute above that: it diverges,
    // and at z = -5 its best truncation is still 1e-5 off (its eighth term is 1.3e-5), which
    // once moved a log-normal schedule's tail sum by 5e-6.
    if z > -37.0 {
        (0.5 * statrs::function::erf::erfc(-z / SQRT_2)).ln()
    } else {
        // Asymptotic series of the Mills ratio; at z < -37 its eighth term is below 1e-18.
        let z2 = z * z;
        let mut term = 1.0;
        let mut sum = 1.0;
        for k in 1..8 {
            term *= -((2 * k - 1) as f64) / z2;
            sum += term;
        }
        -z2 / 2.0 - (-z).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln() + sum.ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ln Phi` against Python's `math.log(0.5 * math.erfc(-z / sqrt 2))` (an independent
    /// erfc). The asymptotic series once served every `z < -5` and was 1e-5 off there.
    #[test]
    fn ln_phi_is_accurate_in_the_lower_tail() {
        for (z, expected) in [
            (-5.5, -17.77937635262526),
            (-7.0, -27.384307498811076),
            (-10.0, -53.23128515051246),
            (-20.0, -203.91715537109724),
            (-36.0, -652.5032275937983),
        ] {
            let got = ln_phi(z);
            // statrs and Python differ by up to 1.4e-12 here; the series was off by 6e-7.
            assert!(
                ((got - expected) / expected).abs() < 1e-11,
                "{z}: {got} vs {expected}"
            );
        }
        // Where the series takes over (z = -37 is the series' first point).
        let expected = -689.0305855768905;
        assert!(((ln_phi(-37.0) - expected) / expected).abs() < 1e-14);
    }
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// A large shape is a nearly fixed lifetime: `E[(X - x)^+]` is `M - x` before the mean
    /// and 0 after it. Before: `(x / scale)^K` reached 0 or infinity in f64 and statrs'
    /// incomplete gamma function panicked there (`interval --dist weibull:200` did).
    #[test]
    fn a_nearly_fixed_lifetime_has_the_excess_of_a_fixed_one() {
        let m = 86_400.0;
        for shape in [
            Shape::Weibull { shape: 1e4 },
            Shape::Weibull { shape: MAX_SHAPE },
            Shape::Gamma { shape: MAX_SHAPE },
        ] {
            let d = Lifetime::new(shape, m).unwrap();
            for x in [0.1 * m, 0.5 * m, 0.9 * m] {
                let e = d.excess(x);
                assert!(
                    (e - (m - x)).abs() <= 1e-3 * m,
                    "{shape}: excess({x}) = {e}"
                );
                assert!(d.ln_sf(x).abs() < 1e-6, "{shape}: ln_sf({x})");
            }
            for x in [1.5 * m, 10.0 * m, 1e300] {
                assert!(d.excess(x) <= 1e-6 * m, "{shape}: excess({x})");
                assert!(d.ln_cdf(x).abs() < 1e-6, "{shape}: ln_cdf({x})");
            }
        }
    }

    fn all(mean: f64) -> Vec<Lifetime> {
        crate::failure::TEST_SHAPES
            .into_iter()
            .map(|s| Lifetime::new(s, mean).unwrap())
            .collect()
    }

    fn any_shape() -> impl proptest::strategy::Strategy<Value = Shape> {
        use proptest::prelude::*;
        prop_oneof![
            Just(Shape::Exponential),
            (-2.0f64..6.0).prop_map(|k| Shape::Weibull {
                shape: 10f64.powf(k)
            }),
            (-2.0f64..6.0).prop_map(|k| Shape::Gamma {
                shape: 10f64.powf(k)
            }),
            (-3.0f64..0.5).prop_map(|s| Shape::LogNormal {
                sigma: 10f64.powf(s)
            }),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Over `(a, b]` the mass is a probability, the mean lies in the interval and so does
        /// the root mean square, and the parts of a cut add up to the whole.
        #[test]
        fn partial_moments_are_moments_of_the_interval(
            shape in any_shape(),
            lo in 0.0f64..4.0,
            width in 1e-6f64..4.0,
            split in 0.0f64..1.0,
        ) {
            let m = 100.0;
            let d = Lifetime::new(shape, m).unwrap();
            let (a, b) = (lo * m, (lo + width) * m);
            let got = d.moments_between(a, b);
            let [p, m1, m2] = got;
            proptest::prop_assert!(got.iter().all(|x| x.is_finite() && *x >= 0.0), "{got:?}");
            proptest::prop_assert!(p <= 1.0 + 1e-12, "{p}");
            // Each moment keeps its digits relative to the tail or lower part it is taken
            // from, not to the interval's own share (a narrow interval far out in a heavy
            // tail): the error bound is that part's moment.
            let scale: [f64; 3] = std::array::from_fn(|n| {
                d.moments_between(a, f64::INFINITY)[n].max(d.moments_between(0.0, b)[n])
            });
            let tol = |n: usize| 1e-12 * scale[n];
            proptest::prop_assert!(m1 >= a * p - tol(1) && m1 <= b * p + tol(1), "{got:?}");
            proptest::prop_assert!(m2 >= a * a * p - tol(2) && m2 <= b * b * p + tol(2));
            let c = a + split * (b - a);
            let (l, r) = (d.moments_between(a, c), d.moments_between(c, b));
            for n in 0..3 {
                let err = (l[n] + r[n] - got[n]).abs();
                proptest::prop_assert!(err <= tol(n), "{n}: {err} of {}", scale[n]);
            }
        }
    }

    #[test]
    fn partial_moments_add_up_to_the_known_full_ones() {
        let m = 100.0;
        for d in all(m) {
            // E[X^2] per family, written out: M^2 Gamma(1 + 2/K) / Gamma(1 + 1/K)^2 (Weibull),
            // M^2 (1 + 1/K) (gamma), M^2 e^(sigma^2) (log-normal), 2 M^2 (exponential).
            let second = match d.shape() {
                Shape::Exponential => 2.0 * m * m,
                Shape::Weibull { shape: k } => {
                    m * m * (ln_gamma(1.0 + 2.0 / k) - 2.0 * ln_gamma(1.0 + 1.0 / k)).exp()
                }
                Shape::Gamma { shape: k } => m * m * (1.0 + 1.0 / k),
                Shape::LogNormal { sigma } => m * m * (sigma * sigma).exp(),
            };
            let full = d.moments_between(0.0, f64::INFINITY);
            let expected = [1.0, m, second];
            for n in 0..3 {
                assert!(
                    (full[n] / expected[n] - 1.0).abs() < 1e-12,
                    "{}: moment {n} {} against {}",
                    d.shape(),
                    full[n],
                    expected[n]
                );
            }
            // Cut anywhere, the parts add up, on either side of the median.
            let mut cuts = [
                0.0,
                0.01,
                1.0,
                30.0,
                d.quantile(0.5),
                150.0,
                900.0,
                f64::INFINITY,
            ];
            cuts.sort_by(f64::total_cmp);
            let mut sum = [0.0; 3];
            for w in cuts.windows(2) {
                let part = d.moments_between(w[0], w[1]);
                assert!(part.iter().all(|x| *x >= 0.0 && x.is_finite()));
                for n in 0..3 {
                    sum[n] += part[n];
                }
            }
            for n in 0..3 {
                let err = sum[n] / expected[n] - 1.0;
                assert!(
                    err.abs() < 1e-12,
                    "{}: moment {n} off by {err:e}",
                    d.shape()
                );
            }
            // The mass is the survival's difference, and beyond x the first moment is
            // x P(X > x) + E[(X - x)^+].
            let [p, m1, _] = d.moments_between(150.0, f64::INFINITY);
            assert!((p / d.sf(150.0) - 1.0).abs() < 1e-12, "{}", d.shape());
            let by_excess = 150.0 * d.sf(150.0) + d.excess(150.0);
            assert!((m1 / by_excess - 1.0).abs() < 1e-10, "{}", d.shape());
            assert_eq!(d.moments_between(5.0, 5.0), [0.0; 3]);
            assert_eq!(d.moments_between(5.0, 1.0), [0.0; 3]);
        }
        // The heaviest Weibull tail taken still has a second moment in f64 range: M^2 times
        // about e^(1.39 / K) at the smallest shape, 0.0069.
        let heavy = Lifetime::new(Shape::Weibull { shape: 0.0069 }, m).unwrap();
        let [p, m1, m2] = heavy.moments_between(0.0, f64::INFINITY);
        assert!((p - 1.0).abs() < 1e-12 && (m1 / m - 1.0).abs() < 1e-9);
        assert!(m2.is_finite() && m2 > 1e80 * m * m, "{m2}");
        // A mean past 1e154 s has none.
        let huge = Lifetime::exponential(1e200).unwrap();
        let [p, _, m2] = huge.moments_between(0.0, f64::INFINITY);
        assert_eq!((p, m2), (1.0, f64::INFINITY));
        assert_eq!(huge.moments_between(1e199, 2e199)[2], f64::INFINITY);
        // A far tail of a nearly fixed lifetime keeps its digits: beyond x = 1.0065 M under
        // Weibull 1000, P(X > x) = exp(-(x / scale)^K) is about 1e-159, and the life ends
        // within a few scale / K of x.
        let fixed = Lifetime::new(Shape::Weibull { shape: 1000.0 }, m).unwrap();
        let x = 1.0065 * m;
        let [p, _, m2] = fixed.moments_between(x, f64::INFINITY);
        let scale = m / ln_gamma(1.001).exp();
        let expected = (-(x / scale).powf(1000.0)).exp();
        assert!(expected > 0.0 && expected < 1e-150);
        assert!((p / expected - 1.0).abs() < 1e-9, "{p} against {expected}");
        assert!(m2 > x * x * p && m2 < (1.001 * x).powi(2) * p, "{m2}");
    }

    #[test]
    fn log1mexp_is_stable() {
        for x in [1e-300, 1e-20, 1e-8, 0.1, LN_2, 1.0, 30.0, 38.0, 700.0] {
            let v = log1mexp(x);
            assert!(v.is_finite() && v <= 0.0, "{x} -> {v}");
        }
        assert!((log1mexp(40.0) + (-40.0f64).exp()).abs() < 1e-30);
    }

    #[test]
    fn cdf_and_sf_add_to_one() {
        for d in all(100.0) {
            for t in [1e-3, 1.0, 50.0, 100.0, 400.0] {
                let s = d.sf(t) + d.cdf(t);
                assert!((s - 1.0).abs() < 1e-12, "{:?} {t} {s}", d.shape());
            }
        }
    }

    #[test]
    fn tails_are_finite() {
        for d in all(1.0) {
            assert!(d.ln_cdf(1e-12).is_finite(), "{:?}", d.shape());
            assert!(d.ln_sf(30.0).is_finite(), "{:?}", d.shape());
        }
    }

    #[test]
    fn samples_have_the_mean() {
        for d in all(10.0) {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let n = 200_000;
            let mean: f64 = (0..n).map(|_| d.sample(&mut rng)).sum::<f64>() / n as f64;
            assert!((mean - 10.0).abs() < 0.2, "{:?}: {mean}", d.shape());
        }
    }

    #[test]
    fn quantile_inverts_cdf() {
        for d in all(10.0) {
            for p in [0.01, 0.5, 0.99] {
                let t = d.quantile(p);
                assert!((d.cdf(t) - p).abs() < 1e-8, "{:?} {p}", d.shape());
            }
        }
    }

    #[test]
    fn excess_matches_a_quadrature_of_the_survival() {
        // Simpson's rule in u = ln t on a fine grid out to where the survival is negligible:
        // a second, independent route to the same integral. (The trapezoid in t, at the same
        // step, is off by 3e-6 where a wear-out survival falls steeply, as Weibull 2.5's at 40.)
        for d in all(10.0) {
            for x in [0.5, 5.0, 10.0, 40.0] {
                // int_x^1e6 S(t) dt = int_0^span S(x e^u) x e^u du.
                let f = |u: f64| {
                    let t = x * u.exp();
                    d.sf(t) * t
                };
                let span = (1e6 / x).ln();
                let n = 2 * (span / 2e-4).ceil() as usize;
                let h = span / n as f64;
                let inner: f64 = (1..n)
                    .map(|i| {
                        let weight = if i % 2 == 1 { 4.0 } else { 2.0 };
                        weight * f(i as f64 * h)
                    })
                    .sum();
                let sum = h / 3.0 * (f(0.0) + inner + f(span));
                let e = d.excess(x);
                assert!(
                    (e - sum).abs() <= 1e-6 * sum.max(1e-12),
                    "{:?} x={x}: {e} vs {sum}",
                    d.shape()
                );
            }
            assert_eq!(d.excess(0.0), 10.0);
        }
    }

    #[test]
    fn a_shape_whose_mean_overflows_is_named() {
        let e = Lifetime::new(Shape::Weibull { shape: 0.005 }, 86400.0).unwrap_err();
        assert!(matches!(e, FailureError::MeanOverflow { .. }));
        assert!(e.to_string().contains("weibull:0.005"), "{e}");
        assert!(Lifetime::new(Shape::Weibull { shape: 0.01 }, 86400.0).is_ok());
    }

    #[test]
    fn shape_parsing() {
        assert_eq!(Shape::parse("exp").unwrap(), Shape::Exponential);
        assert_eq!(
            Shape::parse("gamma:2").unwrap(),
            Shape::Gamma { shape: 2.0 }
        );
        assert_eq!(
            Shape::parse("lognormal:1.2").unwrap(),
            Shape::LogNormal { sigma: 1.2 }
        );
        for bad in [
            "",
            "weibull",
            "weibull:-1",
            "weibull:nan",
            "weibull:inf",
            "poisson:1",
            "exp:2",
        ] {
            assert!(Shape::parse(bad).is_err(), "{bad}");
        }
    }
}

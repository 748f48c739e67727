//! Failure distributions: what the models integrate and the simulators sample.
//!
//! Every distribution is parameterised by its mean, because the mean (MTBF) is what users know;
//! the shape parameter says how far from memoryless the failures are.

mod dist;

pub(crate) use dist::Cut;
pub use dist::{Lifetime, MAX_SHAPE, Shape, gamma_p, gamma_q, ln_add_exp, log1mexp};
pub(crate) use dist::{ln_expm1, ln_phi};

use thiserror::Error;

/// Invalid failure-distribution input.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FailureError {
    #[error(
        "--dist `{value}` is not a distribution: use exp, weibull:K, gamma:K or lognormal:SIGMA with a positive shape"
    )]
    /// A malformed specification.
    Spec {
        /// The value given.
        value: String,
    },
    #[error("the mean time between failures must be positive and finite, got {}", crate::text::number(*.value))]
    /// A mean that is not positive and finite.
    Mean {
        /// The value given.
        value: f64,
    },
    #[error("the shape of {name} must be positive and finite, got {}", crate::text::number(*.value))]
    /// A shape parameter that is not positive and finite.
    ShapeParameter {
        /// The family.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// A Weibull or gamma shape above [`MAX_SHAPE`].
    #[error(
        "{family}:{value:e}: a shape up to 1e6 (a larger one is a lifetime fixed to within 0.1%, for which the incomplete gamma function takes ever longer)"
    )]
    ShapeTooLarge {
        /// The family.
        family: &'static str,
        /// The value given.
        value: f64,
    },
    /// A shape so small that no scale of the family has the given mean in f64.
    #[error(
        "{family}:{value}: the mean cannot be represented (Gamma(1 + 1/K) overflows f64 below a shape of about 0.007); use a larger shape"
    )]
    MeanOverflow {
        /// The family.
        family: &'static str,
        /// The value given.
        value: f64,
    },
}

/// Shapes on both sides of the exponential in each family (k < 1 and k > 1) and a heavy
/// log-normal: the unit tests that must hold for any lifetime share this one list, so that no
/// such test covers less ground than another.
#[cfg(test)]
pub(crate) const TEST_SHAPES: [Shape; 9] = [
    Shape::Exponential,
    Shape::Weibull { shape: 0.5 },
    Shape::Weibull { shape: 0.7 },
    Shape::Weibull { shape: 2.0 },
    Shape::Weibull { shape: 2.5 },
    Shape::Gamma { shape: 0.5 },
    Shape::Gamma { shape: 0.6 },
    Shape::Gamma { shape: 2.0 },
    Shape::LogNormal { sigma: 1.2 },
];

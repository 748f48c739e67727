//! Young (1974): the first-order optimum `tau = sqrt(2 delta M)`.

use super::Estimator;

/// Young's formula itself, `sqrt(2 delta M)`, for a cost and MTBF already validated.
///
/// ```
/// assert_eq!(ckpt::model::young::interval(300.0, 86400.0), 7200.0);
/// ```
pub fn interval(delta: f64, mtbf: f64) -> f64 {
    (2.0 * delta * mtbf).sqrt()
}

/// Young's interval for checkpoint cost `delta` and MTBF `mtbf`.
///
/// ```
/// let e = ckpt::model::young::young(300.0, 86400.0);
/// assert_eq!(e.interval, Ok(7200.0));
/// ```
pub fn young(delta: f64, mtbf: f64) -> Estimator {
    young_named("young", delta, mtbf)
}

/// Young's formula under another row name (on the replicated job's MTTI, say).
pub fn young_named(name: &'static str, delta: f64, mtbf: f64) -> Estimator {
    Estimator::from_value(
        name,
        interval(delta, mtbf),
        "needs a positive cost and MTBF",
    )
}

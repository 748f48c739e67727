//! `ckpt sweep --dist FAMILY:K --vary shape=LO..HI` for one job: how much the optimal chunk
//! schedule gains over the best period, and what Young's and Daly's intervals lose, as the
//! shape of the failure distribution moves at a fixed mean (`docs/models.md` §13).

use super::SweepRange;
use crate::failure::{Lifetime, Shape};
use crate::model::ModelError;
use crate::model::renewal::Renewal;
use serde::{Deserialize, Serialize};

/// A validated shape sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapeSweep {
    /// The distribution as given (`--dist`): its family is swept, its shape marked.
    pub dist: Shape,
    /// Mean time between failures (s).
    pub mtbf_s: f64,
    /// Checkpoint cost (s).
    pub cost_s: f64,
    /// Restart (s).
    pub restart_s: f64,
    /// The shapes it takes.
    #[serde(flatten)]
    pub range: SweepRange,
}

/// The family's shape parameter set to `value`; `None` for the exponential, which has none.
pub fn with_shape(family: Shape, value: f64) -> Option<Shape> {
    match family {
        Shape::Exponential => None,
        Shape::Weibull { .. } => Some(Shape::Weibull { shape: value }),
        Shape::Gamma { .. } => Some(Shape::Gamma { shape: value }),
        Shape::LogNormal { .. } => Some(Shape::LogNormal { sigma: value }),
    }
}

/// The shape parameter of `shape` (`sigma` for the log-normal); `None` for the exponential.
pub fn shape_of(shape: Shape) -> Option<f64> {
    match shape {
        Shape::Exponential => None,
        Shape::Weibull { shape } | Shape::Gamma { shape } => Some(shape),
        Shape::LogNormal { sigma } => Some(sigma),
    }
}

impl ShapeSweep {
    /// The shapes, as `ckpt sweep` spaces its values (ends exact).
    pub fn values(&self) -> Vec<f64> {
        self.range.values()
    }

    /// The family's name as `--dist` spells it.
    pub fn family(&self) -> &'static str {
        match self.dist {
            Shape::Exponential => "exp",
            Shape::Weibull { .. } => "weibull",
            Shape::Gamma { .. } => "gamma",
            Shape::LogNormal { .. } => "lognormal",
        }
    }

    /// The model at shape `value`.
    pub fn job_at(&self, value: f64) -> Result<Renewal, ModelError> {
        let shape = with_shape(self.dist, value).ok_or(ModelError::Parameter {
            name: "shape",
            value,
            accepted: "a family with a shape: weibull, gamma or lognormal",
        })?;
        let life = Lifetime::new(shape, self.mtbf_s).map_err(|e| ModelError::Parameter {
            name: "shape",
            value,
            accepted: match e {
                crate::failure::FailureError::ShapeTooLarge { .. } => "a shape up to 1e6",
                _ => "a shape whose mean the family can hold",
            },
        })?;
        Renewal::new(life, self.cost_s, self.restart_s)
    }

    /// The answer at shape `value`.
    pub fn point(&self, value: f64) -> Result<ShapePoint, ShapePointError> {
        let at = |source| ShapePointError {
            dist: with_shape(self.dist, value).map_or_else(String::new, |s| s.to_string()),
            source,
        };
        let job = self.job_at(value).map_err(at)?;
        let a = job.analyze().map_err(at)?;
        let s = &a.schedule;
        let periodic = a.periodic.overhead();
        Ok(ShapePoint {
            shape: value,
            schedule_overhead: s.overhead,
            schedule_chunks: s.chunks.len(),
            first_chunk_s: s.chunks.first().copied().unwrap_or(a.periodic.interval),
            last_chunk_s: s.chunks.last().copied().unwrap_or(a.periodic.interval),
            grid_error: s.grid_error,
            periodic_interval_s: a.periodic.interval,
            periodic_overhead: periodic,
            young_interval_s: a.young.interval,
            young_overhead: a.young.overhead,
            daly_interval_s: a.daly.interval,
            daly_overhead: a.daly.overhead,
            gain_pct: 100.0 * (periodic / s.overhead - 1.0),
        })
    }
}

/// The four policies' overheads at one shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapePoint {
    /// The shape (`sigma` for the log-normal).
    pub shape: f64,
    /// The optimal schedule's long-run overhead.
    pub schedule_overhead: f64,
    /// Chunks the schedule lists (the last repeating).
    pub schedule_chunks: usize,
    /// Its first chunk after a restart (s).
    pub first_chunk_s: f64,
    /// Its repeating chunk (s).
    pub last_chunk_s: f64,
    /// The grid's error on the schedule's overhead (absolute).
    pub grid_error: f64,
    /// The best periodic interval under `F` (s).
    pub periodic_interval_s: f64,
    /// Its overhead.
    pub periodic_overhead: f64,
    /// Young's interval at the mean (s).
    pub young_interval_s: f64,
    /// Its overhead under `F` (`None` beyond f64 range).
    pub young_overhead: Option<f64>,
    /// Daly's complete optimum at the mean (s).
    pub daly_interval_s: f64,
    /// Its overhead under `F`.
    pub daly_overhead: Option<f64>,
    /// `100 (periodic_overhead / schedule_overhead - 1)`.
    pub gain_pct: f64,
}

/// A point that could not be computed, with the distribution it was at.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("at --dist {dist}: {source}")]
pub struct ShapePointError {
    /// The distribution of the point.
    pub dist: String,
    /// Why.
    pub source: ModelError,
}

/// A finished shape sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeSweepResult {
    /// What was swept.
    pub sweep: ShapeSweep,
    /// The answer at the given `--dist`.
    pub base: ShapePoint,
    /// One point per shape, ascending.
    pub points: Vec<ShapePoint>,
}

/// The points of `range` (one shard's slice), in order.
pub fn points(
    sweep: &ShapeSweep,
    range: std::ops::Range<usize>,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<ShapePoint>, ShapePointError> {
    super::slice_points(&sweep.values(), range, tick, |v| sweep.point(v))
}

/// Checks a point read back from a shard file against `sweep`: a point of figures, whose only
/// shape is its shape within the range, at least one chunk in its schedule, and a grid error
/// of at least 0 (what the report reads as such).
pub fn check_point(
    sweep: &ShapeSweep,
    point: &ShapePoint,
    _first: &ShapePoint,
) -> Result<(), String> {
    sweep.range.check_value("shape", point.shape)?;
    if point.schedule_chunks == 0 {
        return Err("a schedule of no chunks".into());
    }
    if !(point.grid_error >= 0.0 && point.grid_error.is_finite()) {
        return Err(format!(
            "a grid error of {}",
            crate::text::number(point.grid_error)
        ));
    }
    Ok(())
}

/// The sweep from all its points.
pub fn finish(
    sweep: &ShapeSweep,
    points: Vec<ShapePoint>,
) -> Result<ShapeSweepResult, ShapePointError> {
    let given = shape_of(sweep.dist).unwrap_or(1.0);
    Ok(ShapeSweepResult {
        sweep: sweep.clone(),
        base: sweep.point(given)?,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(dist: Shape) -> ShapeSweep {
        ShapeSweep {
            dist,
            mtbf_s: 86400.0,
            cost_s: 600.0,
            restart_s: 600.0,
            range: SweepRange {
                lo: 0.5,
                hi: 1.5,
                points: 3,
                log: false,
            },
        }
    }

    #[test]
    fn the_family_is_kept_and_the_shape_moves() {
        let s = sweep(Shape::Gamma { shape: 2.0 });
        assert_eq!(s.values(), [0.5, 1.0, 1.5]);
        assert_eq!(
            s.job_at(0.5).unwrap().life().shape(),
            Shape::Gamma { shape: 0.5 }
        );
        assert_eq!(
            with_shape(Shape::LogNormal { sigma: 1.0 }, 0.3),
            Some(Shape::LogNormal { sigma: 0.3 })
        );
        assert_eq!(with_shape(Shape::Exponential, 0.3), None);
        assert!(sweep(Shape::Exponential).point(1.0).is_err());
    }

    #[test]
    fn weibull_1_is_the_exponential_and_gains_nothing() {
        // Weibull with shape 1 is the exponential: the schedule is Daly's period.
        let s = sweep(Shape::Weibull { shape: 1.0 });
        let p = points(&s, 0..3, &|| {}).unwrap();
        assert_eq!(p[1].shape, 1.0);
        assert!(p[1].gain_pct.abs() < 1e-3, "{p:?}");
        assert!(p[0].gain_pct > p[1].gain_pct && p[2].gain_pct > p[1].gain_pct);
        let r = finish(&s, p).unwrap();
        assert_eq!(r.base.shape, 1.0);
    }
}

//! `ckpt sweep --level ... --vary levelN.cost|restart|mtbf=LO..HI`: how the multi-level optimum
//! (strides, base interval, levels used, gain over a single level) moves with one level's input.

use super::SweepRange;
use crate::model::multilevel::{Level, Levels, MultilevelAnswer, MultilevelError};
use serde::{Deserialize, Serialize};

/// Which input of the level varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MultilevelSweepParam {
    /// The checkpoint cost (the restart follows it when it was not given).
    Cost,
    /// The restart cost.
    Restart,
    /// The MTBF of the level's failure class.
    Mtbf,
}

impl MultilevelSweepParam {
    /// The lower-case name.
    pub fn name(&self) -> &'static str {
        match self {
            MultilevelSweepParam::Cost => "cost",
            MultilevelSweepParam::Restart => "restart",
            MultilevelSweepParam::Mtbf => "mtbf",
        }
    }
}

/// A validated multi-level sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelSweep {
    /// The levels at the given inputs.
    pub levels: Levels,
    /// Per level: its restart was not given and follows its cost.
    pub restart_follows_cost: Vec<bool>,
    /// The level that varies (0-based).
    pub level: usize,
    /// Which of its inputs.
    pub param: MultilevelSweepParam,
    /// Its values (s).
    #[serde(flatten)]
    pub range: SweepRange,
}

impl LevelSweep {
    /// `levelN.param`, as `--vary` names it.
    pub fn name(&self) -> String {
        format!("level{}.{}", self.level + 1, self.param.name())
    }

    /// The values, as `ckpt sweep` spaces them (ends exact).
    pub fn values(&self) -> Vec<f64> {
        self.range.values()
    }

    /// The levels with the swept input at `value`.
    pub fn levels_at(&self, value: f64) -> Result<Levels, MultilevelError> {
        let mut v: Vec<Level> = self.levels.levels().to_vec();
        let follows = self
            .restart_follows_cost
            .get(self.level)
            .copied()
            .unwrap_or(false);
        let l = v.get_mut(self.level).ok_or(MultilevelError::NoLevels)?;
        match self.param {
            MultilevelSweepParam::Cost => {
                l.cost = value;
                if follows {
                    l.restart = value;
                }
            }
            MultilevelSweepParam::Restart => l.restart = value,
            MultilevelSweepParam::Mtbf => l.mtbf = Some(value),
        }
        Levels::new(v, self.levels.downtime())
    }
}

/// The optimum at one value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelSweepPoint {
    /// The swept input (s).
    pub value: f64,
    /// Base interval `w` (s).
    pub base_interval_s: f64,
    /// One stride per level, `null` when the level is left out.
    pub strides: Vec<Option<u64>>,
    /// Work per period (s).
    pub period_s: f64,
    /// The multi-level overhead.
    pub overhead: f64,
    /// The single-level answer's interval (s).
    pub single_level_interval_s: f64,
    /// The single-level answer's overhead.
    pub single_level_overhead: f64,
    /// Wall time saved, percent.
    pub gain_pct: f64,
}

impl LevelSweepPoint {
    fn of(value: f64, a: &MultilevelAnswer) -> LevelSweepPoint {
        LevelSweepPoint {
            value,
            base_interval_s: a.pattern.interval(),
            strides: a
                .pattern
                .strides()
                .iter()
                .zip(&a.used)
                .map(|(&k, &u)| u.then_some(k))
                .collect(),
            period_s: a.pattern.period(),
            overhead: a.overhead,
            single_level_interval_s: a.single_level.interval,
            single_level_overhead: a.single_level.overhead,
            gain_pct: a.gain_pct,
        }
    }
}

/// A finished sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelSweepResult {
    /// What was swept.
    pub sweep: LevelSweep,
    /// The answer at the given inputs.
    pub base: MultilevelAnswer,
    /// One point per value, ascending.
    pub points: Vec<LevelSweepPoint>,
}

/// A point that could not be computed, with the value it was at.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("at {name} = {} s: {source}", crate::text::number(*.value))]
pub struct PointError {
    /// `levelN.param`.
    pub name: String,
    /// The value.
    pub value: f64,
    /// Why.
    pub source: MultilevelError,
}

/// The points of `range` (one shard's slice), in order.
pub fn points(
    sweep: &LevelSweep,
    range: std::ops::Range<usize>,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<LevelSweepPoint>, PointError> {
    super::slice_points(&sweep.values(), range, tick, |v| {
        let at = |source| PointError {
            name: sweep.name(),
            value: v,
            source,
        };
        let a = sweep.levels_at(v).map_err(at)?.optimize().map_err(at)?;
        Ok(LevelSweepPoint::of(v, &a))
    })
}

/// Checks a point read back from a shard file against `sweep`: its value within the range, one
/// stride per level (which the report indexes by level), at least one level used and every
/// stride used at least 1.
pub fn check_point(
    sweep: &LevelSweep,
    point: &LevelSweepPoint,
    _first: &LevelSweepPoint,
) -> Result<(), String> {
    sweep.range.check_value("value", point.value)?;
    let levels = sweep.levels.levels().len();
    if point.strides.len() != levels {
        return Err(format!(
            "{} strides for {levels} levels",
            point.strides.len()
        ));
    }
    if point.strides.iter().all(Option::is_none) {
        return Err("no level used".into());
    }
    if point.strides.contains(&Some(0)) {
        return Err("a stride of 0".into());
    }
    Ok(())
}

/// Checks a sweep read back from a shard file as `ckpt sweep --level` checks a new one: a
/// level it has, a restart flag per level, ends that make a range ([`SweepRange::ends_ok`])
/// and a point count a sweep takes. (Valid levels at both ends: [`LevelSweep::levels_at`].)
pub fn check(sweep: &LevelSweep) -> Result<(), super::SweepError> {
    let levels = sweep.levels.levels().len();
    let flags = sweep.restart_follows_cost.len();
    if sweep.level >= levels || flags != levels {
        return Err(super::SweepError::Level {
            level: sweep.level.saturating_add(1),
            levels,
            flags,
        });
    }
    let (lo, hi) = (sweep.range.lo, sweep.range.hi);
    if !sweep
        .range
        .ends_ok(sweep.param == MultilevelSweepParam::Restart)
    {
        return Err(super::SweepError::Ends {
            name: sweep.name(),
            lo,
            hi,
        });
    }
    sweep.range.check_points()
}

/// The sweep from all its points.
pub fn finish(
    sweep: &LevelSweep,
    points: Vec<LevelSweepPoint>,
) -> Result<LevelSweepResult, MultilevelError> {
    let base = sweep.levels.optimize()?;
    Ok(LevelSweepResult {
        sweep: sweep.clone(),
        base,
        points,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(param: MultilevelSweepParam, follows: bool) -> LevelSweep {
        let h = 3600.0;
        LevelSweep {
            levels: Levels::new(
                vec![
                    Level::new("local", 5.0, 10.0, Some(3.0 * h)),
                    Level::new("pfs", 600.0, 900.0, Some(168.0 * h)),
                ],
                0.0,
            )
            .unwrap(),
            restart_follows_cost: vec![false, follows],
            level: 1,
            param,
            range: SweepRange {
                lo: 60.0,
                hi: 1800.0,
                points: 4,
                log: true,
            },
        }
    }

    #[test]
    fn the_level_moves_and_only_it() {
        let s = sweep(MultilevelSweepParam::Cost, true);
        let l = s.levels_at(120.0).unwrap();
        assert_eq!(l.levels()[1].cost, 120.0);
        assert_eq!(l.levels()[1].restart, 120.0);
        assert_eq!(l.levels()[0], s.levels.levels()[0]);
        let s = sweep(MultilevelSweepParam::Cost, false);
        assert_eq!(s.levels_at(120.0).unwrap().levels()[1].restart, 900.0);
        // Below the cheaper level's cost the levels are out of order.
        assert!(s.levels_at(1.0).is_err());
        let s = sweep(MultilevelSweepParam::Mtbf, false);
        assert_eq!(s.levels_at(1e6).unwrap().levels()[1].mtbf, Some(1e6));
        assert_eq!(s.name(), "level2.mtbf");
    }

    #[test]
    fn points_are_the_optimum_at_each_value() {
        let s = sweep(MultilevelSweepParam::Cost, false);
        let p = points(&s, 0..4, &|| {}).unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!((p[0].value, p[3].value), (60.0, 1800.0));
        for q in &p {
            let direct = s.levels_at(q.value).unwrap().optimize().unwrap();
            assert_eq!(q.overhead, direct.overhead);
        }
        // A dearer top level: the cheap level takes more of the checkpoints.
        assert!(p[3].strides[1].unwrap() > p[0].strides[1].unwrap());
    }
}

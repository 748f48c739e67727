//! Multi-level checkpointing (docs/models.md §12): levels of increasing cost that survive
//! increasing classes of failures, a nested pattern of checkpoints over chunks of work, the
//! exact expected time of a period for exponential failure classes, and the optimum over the
//! base interval, the strides and the choice of levels.
//!
//! Levels are indexed from 0 here (level `j` of the documentation is index `j - 1`). Class `j`
//! failures are the ones level `j` is the first to survive; they destroy every checkpoint of a
//! lower level.
//!
//! ```
//! use ckpt::model::multilevel::{Level, Levels};
//! let h = 3600.0;
//! let levels = Levels::new(
//!     vec![
//!         Level::new("local", 5.0, 5.0, Some(3000.0 * h)),
//!         Level::new("pfs", 300.0, 300.0, Some(24000.0 * h)),
//!     ],
//!     0.0,
//! )
//! .unwrap();
//! let best = levels.optimize().unwrap();
//! assert_eq!(best.pattern.strides(), &[1, 22]);
//! assert!(best.overhead < best.single_level.overhead);
//! ```

use super::daly::DalyComplete;
use super::{CostModel, MAX_TIME, MIN_TIME, ModelError};
use crate::optimize::{self, OptimizeError};
use serde::{Deserialize, Serialize};
use std::ops::{Add, Mul, Sub};
use std::sync::Arc;
use thiserror::Error;

/// Most levels a description may have (FTI has four, SCR's examples three).
pub const MAX_LEVELS: usize = 16;

/// Most chunks in a period: the exact model costs `O(chunks x levels)` per evaluation.
pub const MAX_PERIOD_CHUNKS: u64 = 1 << 20;

/// Most nodes the stride search may visit before it gives up (it visits a few hundred on
/// realistic inputs).
pub const MAX_SEARCH_NODES: u64 = 1 << 22;

/// Why a multi-level description, pattern or optimum cannot be given.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MultilevelError {
    /// No level at all.
    #[error("no checkpoint level given: give at least one level")]
    NoLevels,
    /// More levels than [`MAX_LEVELS`].
    #[error("{count} checkpoint levels given: at most {MAX_LEVELS} are accepted")]
    TooManyLevels {
        /// Levels given.
        count: usize,
    },
    /// A cost, restart, MTBF or downtime out of range.
    #[error("level {level} ({name}): {field} = {} is out of range: {accepted}", crate::text::number(*.value))]
    Parameter {
        /// 1-based level number.
        level: usize,
        /// The level's name.
        name: String,
        /// `cost`, `restart` or `mtbf`.
        field: &'static str,
        /// The value given (seconds).
        value: f64,
        /// What is accepted.
        accepted: &'static str,
    },
    /// The downtime is negative or not finite.
    #[error("downtime = {} is out of range: from 0 to 1e100 seconds", crate::text::number(*.value))]
    Downtime {
        /// The value given.
        value: f64,
    },
    /// Levels not given cheapest first.
    #[error(
        "levels must be given cheapest first: level {level} ({name}) costs {cost}s, less than level {prev_level} ({prev_name}) at {prev_cost}s"
    )]
    Unordered {
        /// 1-based number of the cheaper level that comes later.
        level: usize,
        /// Its name.
        name: String,
        /// Its cost (s).
        cost: f64,
        /// 1-based number of the level before it.
        prev_level: usize,
        /// Its name.
        prev_name: String,
        /// Its cost (s).
        prev_cost: f64,
    },
    /// The top level has no MTBF, so no period is ever worth its cost and there is no optimum.
    #[error(
        "level {level} ({name}) needs an MTBF: it is the top level, and without failures of its class there is no best interval (give mtbf=...)"
    )]
    MissingMtbf {
        /// 1-based level number.
        level: usize,
        /// The level's name.
        name: String,
    },
    /// A pattern's strides do not match the levels.
    #[error("{given} strides given for {levels} levels: give one per level")]
    StrideCount {
        /// Strides given.
        given: usize,
        /// Levels.
        levels: usize,
    },
    /// A stride of zero.
    #[error("stride {level} is 0: strides are whole numbers of chunks, at least 1")]
    ZeroStride {
        /// 1-based level number.
        level: usize,
    },
    /// The lowest level used does not checkpoint after every chunk.
    #[error(
        "the lowest level used has stride {stride}: it must be 1 (a checkpoint after every chunk)"
    )]
    FirstStride {
        /// The stride given.
        stride: u64,
    },
    /// A stride that is not a multiple of the one below it.
    #[error(
        "strides are not nested: level {level}'s stride {stride} is not a multiple of level {below}'s stride {below_stride}"
    )]
    NotNested {
        /// 1-based level number.
        level: usize,
        /// Its stride.
        stride: u64,
        /// 1-based number of the used level below.
        below: usize,
        /// That level's stride.
        below_stride: u64,
    },
    /// The top level is left out of a pattern.
    #[error("the top level must be used: every period ends with a checkpoint of it")]
    TopUnused,
    /// A period of more than [`MAX_PERIOD_CHUNKS`] chunks.
    #[error("a period of {chunks} chunks: at most {MAX_PERIOD_CHUNKS} are accepted")]
    PeriodTooLong {
        /// Chunks per period.
        chunks: u64,
    },
    /// The base interval is not a positive number.
    #[error("interval = {} is out of range: a positive, finite number of seconds", crate::text::number(*.value))]
    Interval {
        /// The value given.
        value: f64,
    },
    /// The stride search would exceed its bounds.
    #[error(
        "the stride search needs periods beyond {MAX_PERIOD_CHUNKS} chunks or more than {MAX_SEARCH_NODES} steps: the levels' costs and MTBFs are too far apart"
    )]
    SearchTooLarge,
    /// The expected time of a period is beyond f64 range.
    #[error("no progress: the expected time of a period is beyond 1e300 seconds")]
    NoProgress,
    /// The single-level model rejected its inputs.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The optimizer found no interval.
    #[error(transparent)]
    Optimize(#[from] OptimizeError),
}

/// One checkpoint level, in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// A name for reports and configuration lines (`local`, `partner`, `pfs`).
    pub name: String,
    /// Time to write one checkpoint of this level.
    pub cost: f64,
    /// Time to restart from a checkpoint of this level.
    pub restart: f64,
    /// Mean time between failures of the class this level is the first to survive; `None` when
    /// there are none.
    pub mtbf: Option<f64>,
}

impl Level {
    /// A level from its parts.
    pub fn new(name: &str, cost: f64, restart: f64, mtbf: Option<f64>) -> Level {
        Level {
            name: name.to_string(),
            cost,
            restart,
            mtbf,
        }
    }
}

/// A validated description of the levels, cheapest first, and the downtime before a restart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "LevelsSpec", into = "LevelsSpec")]
pub struct Levels {
    levels: Vec<Level>,
    downtime: f64,
}

/// The serialized form of [`Levels`], validated on the way in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelsSpec {
    /// The levels, cheapest first.
    pub levels: Vec<Level>,
    /// Downtime before each restart (s).
    pub downtime: f64,
}

serde_proxy!(Levels <-> LevelsSpec { levels, downtime }, MultilevelError);

fn check(
    level: usize,
    l: &Level,
    field: &'static str,
    value: f64,
    ok: bool,
    accepted: &'static str,
) -> Result<(), MultilevelError> {
    if ok {
        Ok(())
    } else {
        Err(MultilevelError::Parameter {
            level: level + 1,
            name: l.name.clone(),
            field,
            value,
            accepted,
        })
    }
}

/// What a level's cost or MTBF may be: the model multiplies times together (the first-order
/// interval `sqrt(a / b)` underflowed to 0 at costs of 1e-170 s).
const TIME_RANGE: &str = "from 1e-100 to 1e100 seconds (the model multiplies times together, which beyond that leave f64's range)";

impl Levels {
    /// Validates `levels` (cheapest first: costs must not decrease; costs from 1e-100 to
    /// 1e100 s, restarts from 0 to 1e100 s, MTBFs where given from 1e-100 to 1e100 s) and the
    /// downtime (0 to 1e100 s). MTBFs need not be ordered.
    pub fn new(levels: Vec<Level>, downtime: f64) -> Result<Levels, MultilevelError> {
        if levels.is_empty() {
            return Err(MultilevelError::NoLevels);
        }
        if levels.len() > MAX_LEVELS {
            return Err(MultilevelError::TooManyLevels {
                count: levels.len(),
            });
        }
        for (i, l) in levels.iter().enumerate() {
            check(
                i,
                l,
                "cost",
                l.cost,
                (MIN_TIME..=MAX_TIME).contains(&l.cost),
                TIME_RANGE,
            )?;
            check(
                i,
                l,
                "restart",
                l.restart,
                (0.0..=MAX_TIME).contains(&l.restart),
                "from 0 to 1e100 seconds",
            )?;
            if let Some(m) = l.mtbf {
                check(
                    i,
                    l,
                    "mtbf",
                    m,
                    (MIN_TIME..=MAX_TIME).contains(&m),
                    TIME_RANGE,
                )?;
            }
            if i > 0 && l.cost < levels[i - 1].cost {
                let p = &levels[i - 1];
                return Err(MultilevelError::Unordered {
                    level: i + 1,
                    name: l.name.clone(),
                    cost: l.cost,
                    prev_level: i,
                    prev_name: p.name.clone(),
                    prev_cost: p.cost,
                });
            }
        }
        if !(0.0..=MAX_TIME).contains(&downtime) {
            return Err(MultilevelError::Downtime { value: downtime });
        }
        Ok(Levels { levels, downtime })
    }

    /// The levels, cheapest first.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// Downtime before each restart (s).
    pub fn downtime(&self) -> f64 {
        self.downtime
    }

    /// Number of levels.
    pub fn len(&self) -> usize {
        self.levels.len()
    }

    /// Always false: a description has at least one level.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// The failure rate of class `j` (0-based), 0 without an MTBF.
    pub fn rate(&self, j: usize) -> f64 {
        self.levels
            .get(j)
            .and_then(|l| l.mtbf)
            .map_or(0.0, |m| 1.0 / m)
    }

    /// The mean time between failures of any class, `None` when no class fails. With one class
    /// that fails it is that class's MTBF as given (not `1/(1/M)`), so that a single level is
    /// Daly's model to the last digit.
    pub fn combined_mtbf(&self) -> Option<f64> {
        let given: Vec<f64> = self.levels.iter().filter_map(|l| l.mtbf).collect();
        match given.as_slice() {
            [] => None,
            [m] => Some(*m),
            _ => Some(1.0 / given.iter().map(|m| 1.0 / m).sum::<f64>()),
        }
    }

    fn top(&self) -> &Level {
        &self.levels[self.levels.len() - 1]
    }

    /// The single-level answer: only the top level, against every class (Daly's complete model
    /// at the combined rate, with the top level's cost and restart).
    pub fn single_level_model(&self) -> Result<DalyComplete, MultilevelError> {
        let m = self.combined_mtbf().ok_or_else(|| self.missing_top())?;
        let top = self.top();
        Ok(DalyComplete::new(m, top.cost, top.restart, self.downtime)?)
    }

    fn missing_top(&self) -> MultilevelError {
        MultilevelError::MissingMtbf {
            level: self.levels.len(),
            name: self.top().name.clone(),
        }
    }

    /// The first-order overhead terms of strides `k`: `A` (checkpoint seconds per chunk) and
    /// `B` (expected lost work per unit of work and per second of chunk), so that
    /// `overhead ~ 1 + A/w + B w`, a lower bound of the exact overhead at every `w`
    /// (docs/models.md §12.5). `strides` has one entry per level (the callers' invariant).
    pub(crate) fn first_order_terms(&self, strides: &[u64]) -> (f64, f64) {
        let n = self.levels.len();
        let mut a = 0.0;
        let mut b = 0.0;
        for j in 0..n {
            let k = strides[j] as f64;
            let next = if j + 1 < n {
                1.0 / strides[j + 1] as f64
            } else {
                0.0
            };
            a += self.levels[j].cost * (1.0 / k - next);
            b += self.rate(j) * k / 2.0;
        }
        (a, b)
    }

    /// The first-order form of `pattern` (docs/models.md §12.4): `1 + A/w + B w`, a lower bound
    /// of the exact overhead.
    ///
    /// ```
    /// use ckpt::model::multilevel::{Level, Levels, Pattern};
    /// let l = Levels::new(vec![Level::new("a", 5.0, 5.0, Some(1e6)), Level::new("b", 50.0, 50.0, Some(1e7))], 0.0).unwrap();
    /// let p = Pattern::new(1000.0, vec![1, 10]).unwrap();
    /// assert!(l.first_order_overhead(&p).unwrap() <= l.evaluate(&p).unwrap().overhead);
    /// ```
    pub fn first_order_overhead(&self, pattern: &Pattern) -> Result<f64, MultilevelError> {
        self.check_pattern(pattern)?;
        let (a, b) = self.first_order_terms(pattern.strides());
        let w = pattern.interval();
        Ok(1.0 + a / w + b * w)
    }

    /// The exact expected wall time of one period of `pattern` and what follows from it.
    ///
    /// ```
    /// use ckpt::model::multilevel::{Level, Levels, Pattern};
    /// let levels = Levels::new(vec![Level::new("only", 60.0, 60.0, Some(3600.0))], 0.0).unwrap();
    /// let e = levels.evaluate(&Pattern::new(600.0, vec![1]).unwrap()).unwrap();
    /// // Daly: e^(R/M) M (e^((w + C)/M) - 1)
    /// let daly = (60.0f64 / 3600.0).exp() * 3600.0 * ((660.0f64 / 3600.0).exp() - 1.0);
    /// assert!((e.period_time - daly).abs() < 1e-9 * daly);
    /// ```
    pub fn evaluate(&self, pattern: &Pattern) -> Result<Evaluation, MultilevelError> {
        let chain = Chain::new(self, pattern.strides())?;
        let w = pattern.interval();
        let e = chain.period_time(w);
        if !(e.is_finite() && e < 1e300) {
            return Err(MultilevelError::NoProgress);
        }
        let work = chain.chunks as f64 * w;
        let lambda = chain.lambda;
        // A subnormal interval's period of work rounds to nothing next to its time.
        if !(work > 0.0 && (e / work).is_finite()) {
            return Err(MultilevelError::NoProgress);
        }
        Ok(Evaluation {
            period_work: work,
            period_time: e,
            overhead: e / work,
            // Wald: failures arrive at rate lambda over the time not spent in downtime.
            failures_per_period: lambda * e / (1.0 + lambda * self.downtime),
        })
    }

    /// Checks `pattern` against these levels (one stride per level).
    pub fn check_pattern(&self, pattern: &Pattern) -> Result<(), MultilevelError> {
        if pattern.strides.len() != self.levels.len() {
            return Err(MultilevelError::StrideCount {
                given: pattern.strides.len(),
                levels: self.levels.len(),
            });
        }
        Ok(())
    }
}

/// A checkpointing pattern: chunks of `interval` seconds of work, each followed by one
/// checkpoint of the highest level whose stride divides the chunk's index (counted over the
/// job, from 1).
///
/// One stride per level, nested: the first is 1 and each divides the next. A level whose stride
/// equals the next level's is never written (the next level takes its turn): it is *left out*,
/// and its class is recovered from the next level used above. The top level is always used;
/// its stride is the number of chunks in a period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PatternSpec", into = "PatternSpec")]
pub struct Pattern {
    interval: f64,
    strides: Vec<u64>,
}

/// The serialized form of [`Pattern`], validated on the way in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternSpec {
    /// Base interval `w` (s).
    pub interval: f64,
    /// One stride per level.
    pub strides: Vec<u64>,
}

serde_proxy!(Pattern <-> PatternSpec { interval, strides }, MultilevelError);

impl Pattern {
    /// A pattern from one stride per level (see the type's documentation).
    ///
    /// ```
    /// use ckpt::model::multilevel::Pattern;
    /// let p = Pattern::new(600.0, vec![1, 4, 32]).unwrap();
    /// assert_eq!(p.chunks(), 32);
    /// assert!(Pattern::new(600.0, vec![1, 4, 30]).is_err()); // 30 is not a multiple of 4
    /// ```
    pub fn new(interval: f64, strides: Vec<u64>) -> Result<Pattern, MultilevelError> {
        if !(interval.is_finite() && interval > 0.0) {
            return Err(MultilevelError::Interval { value: interval });
        }
        if strides.is_empty() {
            return Err(MultilevelError::NoLevels);
        }
        if let Some(i) = strides.iter().position(|&k| k == 0) {
            return Err(MultilevelError::ZeroStride { level: i + 1 });
        }
        if strides[0] != 1 {
            return Err(MultilevelError::FirstStride { stride: strides[0] });
        }
        for j in 1..strides.len() {
            if !strides[j].is_multiple_of(strides[j - 1]) {
                return Err(MultilevelError::NotNested {
                    level: j + 1,
                    stride: strides[j],
                    below: j,
                    below_stride: strides[j - 1],
                });
            }
        }
        let chunks = strides[strides.len() - 1];
        if chunks > MAX_PERIOD_CHUNKS {
            return Err(MultilevelError::PeriodTooLong { chunks });
        }
        Ok(Pattern { interval, strides })
    }

    /// A pattern from the strides of the levels used, `None` for a level left out (as a user
    /// writes `--strides -,1,16`): the lowest used stride must be 1, each used stride a
    /// multiple of the used one below, and the top level used.
    ///
    /// ```
    /// use ckpt::model::multilevel::Pattern;
    /// let p = Pattern::from_used(600.0, &[None, Some(1), Some(16)]).unwrap();
    /// assert_eq!(p.strides(), &[1, 1, 16]);
    /// assert_eq!(p.used(), vec![false, true, true]);
    /// ```
    pub fn from_used(interval: f64, strides: &[Option<u64>]) -> Result<Pattern, MultilevelError> {
        let Some(top) = strides.last() else {
            return Err(MultilevelError::NoLevels);
        };
        if top.is_none() {
            return Err(MultilevelError::TopUnused);
        }
        let mut below: Option<(usize, u64)> = None;
        for (j, s) in strides.iter().enumerate() {
            let Some(k) = *s else { continue };
            if k == 0 {
                return Err(MultilevelError::ZeroStride { level: j + 1 });
            }
            match below {
                None if k != 1 => return Err(MultilevelError::FirstStride { stride: k }),
                Some((b, bk)) if k % bk != 0 || k == bk => {
                    return Err(MultilevelError::NotNested {
                        level: j + 1,
                        stride: k,
                        below: b + 1,
                        below_stride: bk,
                    });
                }
                _ => {}
            }
            below = Some((j, k));
        }
        // A level left out takes the stride of the next level used above it.
        let mut full = vec![0; strides.len()];
        let mut next = 0;
        for j in (0..strides.len()).rev() {
            if let Some(k) = strides[j] {
                next = k;
            }
            full[j] = next;
        }
        Pattern::new(interval, full)
    }

    /// The base interval `w` (s of work per chunk).
    pub fn interval(&self) -> f64 {
        self.interval
    }

    /// One stride per level.
    pub fn strides(&self) -> &[u64] {
        &self.strides
    }

    /// Chunks per period (the top level's stride).
    pub fn chunks(&self) -> u64 {
        self.strides[self.strides.len() - 1]
    }

    /// Work per period (s).
    pub fn period(&self) -> f64 {
        self.chunks() as f64 * self.interval
    }

    /// Which levels are ever written.
    pub fn used(&self) -> Vec<bool> {
        used(&self.strides)
    }

    /// The same strides with another base interval.
    pub fn with_interval(&self, interval: f64) -> Result<Pattern, MultilevelError> {
        Pattern::new(interval, self.strides.clone())
    }
}

fn used(strides: &[u64]) -> Vec<bool> {
    let n = strides.len();
    (0..n)
        .map(|j| j + 1 == n || strides[j] < strides[j + 1])
        .collect()
}

/// The level (0-based) of the checkpoint that ends chunk `index` (from 1) of a job, or of the
/// job's start for index 0 (the top level).
pub fn level_of(strides: &[u64], index: u64) -> usize {
    (0..strides.len())
        .rev()
        .find(|&j| index.is_multiple_of(strides[j]))
        .unwrap_or(0)
}

/// What one pattern costs under the exact model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Evaluation {
    /// Work per period (s).
    pub period_work: f64,
    /// Expected wall time of a period (s).
    pub period_time: f64,
    /// Expected wall time per unit of work.
    pub overhead: f64,
    /// Expected failures per period (of every class, those during restarts included).
    pub failures_per_period: f64,
}

/// The single-level answer the multi-level one is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SingleLevel {
    /// Its interval (s of work between top-level checkpoints).
    pub interval: f64,
    /// Its overhead.
    pub overhead: f64,
}

/// The optimum over the base interval, the strides and the levels used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultilevelAnswer {
    /// The best pattern.
    pub pattern: Pattern,
    /// Which levels it uses.
    pub used: Vec<bool>,
    /// Its overhead (expected wall time per unit of work).
    pub overhead: f64,
    /// Its expected wall time per period (s).
    pub period_time: f64,
    /// Expected failures per period.
    pub failures_per_period: f64,
    /// The best single-level answer: only the top level, at the combined failure rate.
    pub single_level: SingleLevel,
    /// Wall time saved against the single-level answer, in percent:
    /// `100 (1 - overhead / single_level.overhead)`.
    pub gain_pct: f64,
    /// The first-order optimum the search started from.
    pub first_order: Pattern,
    /// Whether the last Brent run on `w` converged.
    pub converged: bool,
    /// Stride vectors whose interval was optimized exactly (the rest were excluded by bounds).
    pub patterns_optimized: u64,
}

/// The exact model of one stride vector, with what does not depend on `w` computed once.
#[derive(Debug, Clone)]
pub(crate) struct Chain {
    data: Arc<LevelData>,
    strides: Vec<u64>,
    chunks: u64,
}

impl std::ops::Deref for Chain {
    type Target = LevelData;
    fn deref(&self) -> &LevelData {
        &self.data
    }
}

/// What the exact model needs of the levels, whatever the strides.
#[derive(Debug, Clone)]
pub(crate) struct LevelData {
    lambda: f64,
    rates: Vec<f64>,
    costs: Vec<f64>,
    /// Rate of the classes at or below each level.
    rate_le: Vec<f64>,
    downtime: f64,
    /// `(1 - e^(-lambda R_l)) / lambda`: expected exposed time of a restart attempt.
    psi: Vec<f64>,
    /// `e^(-lambda R_l) + psi_l * rate above l`: `1 - P(the attempt fails and comes back here)`.
    den: Vec<f64>,
}

impl LevelData {
    fn new(levels: &Levels) -> LevelData {
        let n = levels.len();
        let rates: Vec<f64> = (0..n).map(|j| levels.rate(j)).collect();
        let lambda: f64 = rates.iter().sum();
        let mut rate_le = Vec::with_capacity(n);
        let mut acc = 0.0;
        for r in &rates {
            acc += r;
            rate_le.push(acc);
        }
        let mut psi = Vec::with_capacity(n);
        let mut den = Vec::with_capacity(n);
        for (j, l) in levels.levels().iter().enumerate() {
            let above: f64 = rates[j + 1..].iter().sum();
            let (p, stay) = if lambda > 0.0 {
                (
                    -(-lambda * l.restart).exp_m1() / lambda,
                    (-lambda * l.restart).exp(),
                )
            } else {
                (l.restart, 1.0)
            };
            psi.push(p);
            den.push(stay + p * above);
        }
        LevelData {
            lambda,
            rates,
            costs: levels.levels().iter().map(|l| l.cost).collect(),
            rate_le,
            downtime: levels.downtime(),
            psi,
            den,
        }
    }
}

/// The scalars the chain is evaluated in: plain numbers, or value-and-derivative pairs.
trait Scalar: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> {
    fn constant(x: f64) -> Self;
    fn scale(self, x: f64) -> Self;
    fn value(self) -> f64;
}

impl Scalar for f64 {
    fn constant(x: f64) -> f64 {
        x
    }
    fn scale(self, x: f64) -> f64 {
        self * x
    }
    fn value(self) -> f64 {
        self
    }
}

/// `p P + c C + k`: a time as an affine function of the time `P` at a block's start and of the
/// rollback terms `C` of the classes above the block's start level.
#[derive(Debug, Clone, Copy)]
struct Aff<T> {
    p: T,
    c: T,
    k: T,
}

/// `(x^n, 1 + x + ... + x^(n-1))` by squaring.
fn power<T: Scalar>(x: T, n: u64) -> (T, T) {
    // (x^a, S_a) then (x^b, S_b) compose to (x^(a+b), S_a + x^a S_b).
    let mut acc = (T::constant(1.0), T::constant(0.0));
    let mut sq = (x, T::constant(1.0));
    let mut m = n;
    while m > 0 {
        if m & 1 == 1 {
            acc = (acc.0 * sq.0, acc.1 + acc.0 * sq.1);
        }
        sq = (sq.0 * sq.0, sq.1 + sq.0 * sq.1);
        m >>= 1;
    }
    acc
}

/// A value and its derivative in `w` (forward mode).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Dual(f64, f64);

impl Add for Dual {
    type Output = Dual;
    fn add(self, o: Dual) -> Dual {
        Dual(self.0 + o.0, self.1 + o.1)
    }
}

impl Sub for Dual {
    type Output = Dual;
    fn sub(self, o: Dual) -> Dual {
        Dual(self.0 - o.0, self.1 - o.1)
    }
}

impl Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual(self.0 * o.0, self.0 * o.1 + self.1 * o.0)
    }
}

impl Scalar for Dual {
    fn constant(x: f64) -> Dual {
        Dual(x, 0.0)
    }
    fn scale(self, x: f64) -> Dual {
        Dual(self.0 * x, self.1 * x)
    }
    fn value(self) -> f64 {
        self.0
    }
}

impl Chain {
    pub(crate) fn new(levels: &Levels, strides: &[u64]) -> Result<Chain, MultilevelError> {
        Chain::with(&Arc::new(LevelData::new(levels)), strides)
    }

    fn with(data: &Arc<LevelData>, strides: &[u64]) -> Result<Chain, MultilevelError> {
        let n = data.rates.len();
        if strides.len() != n {
            return Err(MultilevelError::StrideCount {
                given: strides.len(),
                levels: n,
            });
        }
        Ok(Chain {
            data: Arc::clone(data),
            strides: strides.to_vec(),
            chunks: strides[n - 1],
        })
    }

    /// `phi_l = (e^(lambda (w + C_l)) - 1) / lambda` and its derivative `e^(lambda (w + C_l))`.
    fn phi(&self, w: f64, j: usize) -> Dual {
        let a = w + self.costs[j];
        if self.lambda > 0.0 {
            let x = self.lambda * a;
            Dual(x.exp_m1() / self.lambda, x.exp())
        } else {
            Dual(a, 1.0)
        }
    }

    /// The expected wall time of a period, by the forward recursion of docs/models.md §12.2
    /// position by position: for each position `p` its restart time `H(p)` and its advance
    /// time `G(p)`, keeping only the value at the start of the current block of each level.
    /// `O(chunks x levels)`; the tests hold [`Chain::blocks`] against it.
    #[cfg_attr(not(test), allow(dead_code))]
    fn positions<T: Scalar>(&self, phi: &[T]) -> T {
        let n = self.strides.len();
        let top = n - 1;
        let mut h_start = vec![T::constant(0.0); n];
        let mut p_start = vec![T::constant(0.0); n];
        let mut rem = vec![0u64; n];
        let mut elapsed = T::constant(0.0);
        let mut level = top;
        for _ in 0..self.chunks {
            // X = sum over classes above l(p) of rate x (H at the block start + time since).
            let mut x = T::constant(0.0);
            for j in level + 1..n {
                x = x + (h_start[j] + elapsed - p_start[j]).scale(self.rates[j]);
            }
            let h = ((T::constant(1.0) + x).scale(self.psi[level]) + T::constant(self.downtime))
                .scale(1.0 / self.den[level]);
            for j in 0..=level {
                h_start[j] = h;
                p_start[j] = elapsed;
            }
            let mut next = 0;
            for (j, (r, &k)) in rem.iter_mut().zip(&self.strides).enumerate() {
                *r += 1;
                if *r == k {
                    *r = 0;
                    next = j;
                }
            }
            let g = phi[next] * (T::constant(1.0) + h.scale(self.rate_le[level]) + x);
            elapsed = elapsed + g;
            if !(elapsed.value() < 1e300) {
                return T::constant(f64::INFINITY);
            }
            level = next;
        }
        elapsed
    }

    pub(crate) fn period_time(&self, w: f64) -> f64 {
        let phi: Vec<f64> = (0..self.strides.len()).map(|j| self.phi(w, j).0).collect();
        let e = self.blocks(&phi);
        if e.is_nan() { f64::INFINITY } else { e }
    }

    fn period_time_dual(&self, w: f64) -> Dual {
        let phi: Vec<Dual> = (0..self.strides.len()).map(|j| self.phi(w, j)).collect();
        self.blocks(&phi)
    }

    /// The same recursion composed block by block (docs/models.md §12.3): the time at the end
    /// of a block of level `g` is an affine function of the time at its start and of the sum
    /// `C` of the rollback terms of the classes above its start level; a block is its first
    /// sub-block, `r - 2` identical middle ones (composed by squaring) and its last one.
    /// `O(levels^3 log chunks)`.
    fn blocks<T: Scalar>(&self, phi: &[T]) -> T {
        let n = self.strides.len();
        let mut memo: Vec<Option<Aff<T>>> = vec![None; n * n * n];
        let top = n - 1;
        let e = self.block(top, top, top, phi, &mut memo).k;
        if e.value().is_finite() && e.value() < 1e300 {
            e
        } else {
            T::constant(f64::INFINITY)
        }
    }

    /// `H` at a position of level `ls`, as a function of the time `P` there and of `C`.
    fn restart_aff<T: Scalar>(&self, ls: usize) -> Aff<T> {
        let above = self.lambda_total() - self.rate_le[ls];
        let q = self.psi[ls] / self.den[ls];
        Aff {
            p: T::constant(q * above),
            c: T::constant(q),
            k: T::constant((self.downtime + self.psi[ls]) / self.den[ls]),
        }
    }

    fn lambda_total(&self) -> f64 {
        self.rate_le[self.rate_le.len() - 1]
    }

    /// The end time of a block of level `g` that starts with a checkpoint of level `ls` and
    /// ends with one of level `le`.
    fn block<T: Scalar>(
        &self,
        g: usize,
        ls: usize,
        le: usize,
        phi: &[T],
        memo: &mut Vec<Option<Aff<T>>>,
    ) -> Aff<T> {
        let n = self.strides.len();
        let key = (g * n + ls) * n + le;
        if let Some(a) = memo[key] {
            return a;
        }
        let h = self.restart_aff::<T>(ls);
        let above = self.lambda_total() - self.rate_le[ls];
        let out = if g == 0 {
            // One chunk: X = C + rate_above P, G = phi_le (1 + rate_le H + X), end = P + G.
            let le_rate = self.rate_le[ls];
            let f = phi[le];
            Aff {
                p: T::constant(1.0) + f * (h.p.scale(le_rate) + T::constant(above)),
                c: f * (h.c.scale(le_rate) + T::constant(1.0)),
                k: f * (T::constant(1.0) + h.k.scale(le_rate)),
            }
        } else {
            let r = self.strides[g] / self.strides[g - 1];
            if r == 1 {
                self.block(g - 1, ls, le, phi, memo)
            } else {
                let first = self.block(g - 1, ls, g - 1, phi, memo);
                let mid = self.block(g - 1, g - 1, g - 1, phi, memo);
                let last = self.block(g - 1, g - 1, le, phi, memo);
                // C' = rate of classes g..=ls x (H - P) + C: what the sub-blocks after the
                // first see from above.
                let band = self.rate_le[ls] - self.rate_le[g - 1];
                let cp = Aff {
                    p: (h.p - T::constant(1.0)).scale(band),
                    c: h.c.scale(band) + T::constant(1.0),
                    k: h.k.scale(band),
                };
                let (a, s) = power(mid.p, r - 2);
                // End = last.p (a P1 + s (mid.c C' + mid.k)) + last.c C' + last.k.
                let on_p1 = last.p * a;
                let on_cp = last.p * s * mid.c + last.c;
                let constant = last.p * s * mid.k + last.k;
                Aff {
                    p: on_p1 * first.p + on_cp * cp.p,
                    c: on_p1 * first.c + on_cp * cp.c,
                    k: on_p1 * first.k + on_cp * cp.k + constant,
                }
            }
        };
        memo[key] = Some(out);
        out
    }

    /// A lower bound of `min_w overhead` from two tangents of the convex period time on
    /// either side of the optimum (docs/models.md §12.5), found from `w0` outwards, with the
    /// least overhead met on the way (an upper bound); `None` when no bracket is found.
    fn tangent_bound(&self, w0: f64) -> Option<(f64, f64)> {
        let k = self.chunks as f64;
        let mut upper = f64::INFINITY;
        // The tangent at w: E(v) >= alpha + beta v for every v, so overhead(v) >= (alpha / v
        // + beta) / chunks; alpha > 0 exactly when w is below the optimum.
        let mut tangent = |w: f64| {
            let d = self.period_time_dual(w);
            upper = upper.min(d.0 / (k * w));
            (d.0 - w * d.1, d.1)
        };
        let first = tangent(w0);
        if !(first.0.is_finite() && first.1.is_finite()) {
            return None;
        }
        let below = first.0 > 0.0;
        let mut step = 1.1f64;
        for _ in 0..8 {
            let other = tangent(if below { w0 * step } else { w0 / step });
            let ((al, bl), (ah, bh)) = if below {
                (first, other)
            } else {
                (other, first)
            };
            if al > 0.0 && ah < 0.0 && bh > bl {
                let wx = (al - ah) / (bh - bl);
                let bound = (al / wx + bl) / k;
                return (bound.is_finite() && upper.is_finite()).then_some((bound, upper));
            }
            step *= step;
        }
        None
    }
}

/// Lower bounds of `min_w overhead - 1` over the completions of a prefix of strides
/// (docs/models.md §12.5), as two parts that each fall then rise with the last stride fixed.
struct PrefixBound<'a> {
    levels: &'a Levels,
    tight: bool,
    lambda: f64,
    /// A lower bound of every restart time `H`: downtime plus the least exposed restart.
    h: f64,
}

impl<'a> PrefixBound<'a> {
    fn new(levels: &'a Levels, tight: bool) -> PrefixBound<'a> {
        let lambda: f64 = (0..levels.len()).map(|j| levels.rate(j)).sum();
        let psi_min = levels
            .levels()
            .iter()
            .map(|l| {
                if lambda > 0.0 {
                    -(-lambda * l.restart).exp_m1() / lambda
                } else {
                    l.restart
                }
            })
            .fold(f64::INFINITY, f64::min);
        PrefixBound {
            levels,
            tight,
            lambda,
            h: levels.downtime() + psi_min,
        }
    }

    /// The prefix `k[..=d]`: the terms of `A` up to level `d` (those above are not negative:
    /// costs do not decrease), every stride above `d` at its least, `k_d`. Returns the part
    /// that is convex in `k_d` and the root part `2 sqrt(A' B)`.
    fn parts(&self, k: &[u64], d: usize) -> (f64, f64) {
        let l = self.levels;
        let c = |j: usize| l.levels()[j].cost;
        let mut a = c(0) / k[0] as f64;
        for (j, &kj) in k.iter().enumerate().take(d + 1).skip(1) {
            a += (c(j) - c(j - 1)) / kj as f64;
        }
        let mut b = 0.0;
        let mut lost = 0.0;
        for j in 0..l.len() {
            let kj = k[j.min(d)] as f64;
            b += l.rate(j) * kj / 2.0;
            lost += l.rate(j) * (kj - 1.0);
        }
        if !self.tight {
            return (0.0, 2.0 * (a * b).sqrt());
        }
        let lh = self.lambda * self.h;
        (
            self.lambda * a + lh + c(0) * lost,
            2.0 * (a * (1.0 + lh) * b).sqrt(),
        )
    }
}

/// The exact model of one stride vector as a function of `w`, for the crate's optimizer.
struct PatternCost<'a> {
    chain: &'a Chain,
    seed: f64,
    downtime: f64,
}

impl CostModel for PatternCost<'_> {
    fn name(&self) -> &'static str {
        "multilevel"
    }

    fn ln_overhead(&self, w: f64) -> f64 {
        if !(w > 0.0 && w.is_finite()) {
            return f64::INFINITY;
        }
        let e = self.chain.period_time(w);
        if !(e.is_finite() && e > 0.0) {
            return f64::INFINITY;
        }
        e.ln() - (self.chain.chunks as f64 * w).ln()
    }

    fn seed_interval(&self) -> f64 {
        self.seed
    }

    fn expected_failures(&self, w: f64) -> f64 {
        let l = self.chain.lambda;
        l * self.chain.period_time(w) / (1.0 + l * self.downtime) / self.chain.chunks as f64
    }
}

/// One exactly optimized stride vector.
#[derive(Debug, Clone)]
struct Candidate {
    strides: Vec<u64>,
    interval: f64,
    ln_overhead: f64,
    converged: bool,
}

impl Levels {
    /// The stride vectors in the search order: depth-first over the strides from the second
    /// level up, each a multiple of the one below, pruned by a lower bound of `min_w overhead
    /// - 1` over every completion of the prefix (docs/models.md §12.5): the first-order one
    /// (`tight` false) or the one with the terms of first order in the rates. `visit` gets
    /// each full vector whose bound is below `limit()`, with that bound.
    fn search(
        &self,
        tight: bool,
        limit: &mut dyn FnMut() -> f64,
        visit: &mut dyn FnMut(&[u64], f64),
    ) -> Result<(), MultilevelError> {
        let n = self.len();
        let bound = PrefixBound::new(self, tight);
        let mut k = vec![1u64; n];
        let mut nodes = 0u64;
        if n == 1 {
            let (x, y) = bound.parts(&k, 0);
            visit(&k, x + y);
            return Ok(());
        }
        self.descend(&bound, 1, &mut k, &mut nodes, limit, visit)
    }

    fn descend(
        &self,
        bound: &PrefixBound,
        d: usize,
        k: &mut Vec<u64>,
        nodes: &mut u64,
        limit: &mut dyn FnMut() -> f64,
        visit: &mut dyn FnMut(&[u64], f64),
    ) -> Result<(), MultilevelError> {
        let n = self.len();
        let base = k[d - 1];
        let mut previous = (f64::INFINITY, f64::INFINITY);
        let mut r = 1u64;
        loop {
            *nodes += 1;
            if *nodes > MAX_SEARCH_NODES {
                return Err(MultilevelError::SearchTooLarge);
            }
            let kd = base.checked_mul(r).filter(|&x| x <= MAX_PERIOD_CHUNKS);
            let Some(kd) = kd else {
                return Err(MultilevelError::SearchTooLarge);
            };
            k[d] = kd;
            let parts = bound.parts(k, d);
            let total = parts.0 + parts.1;
            // Each part first falls then rises with r (one is convex in k_d, the other the
            // root of a convex function): once both rise and the sum is past the limit, every
            // larger stride is excluded too.
            if total >= limit() {
                if parts.0 >= previous.0 && parts.1 >= previous.1 {
                    break;
                }
            } else if d + 1 == n {
                visit(k, total);
            } else {
                self.descend(bound, d + 1, k, nodes, limit, visit)?;
            }
            previous = parts;
            r += 1;
        }
        k[d] = base;
        Ok(())
    }

    /// The full-vector form of the tight bound (for tests).
    #[cfg(test)]
    fn leaf_bound(&self) -> impl Fn(&[u64]) -> f64 + '_ {
        let b = PrefixBound::new(self, true);
        move |k: &[u64]| {
            let (x, y) = b.parts(k, k.len() - 1);
            x + y
        }
    }

    /// The exact optimum over `w` of one stride vector.
    fn optimize_strides(
        &self,
        data: &Arc<LevelData>,
        strides: &[u64],
    ) -> Result<Candidate, MultilevelError> {
        if strides[strides.len() - 1] == 1 {
            // Only the top level: Daly's complete model at the combined rate (docs/models.md
            // §12.2, one level), evaluated by model::daly so that one level agrees with
            // daly-complete to the last digit.
            let m = self.single_level_model()?;
            let opt = optimize::minimize(&m)?;
            return Ok(Candidate {
                strides: strides.to_vec(),
                interval: opt.interval,
                ln_overhead: opt.ln_overhead,
                converged: opt.converged,
            });
        }
        let chain = Chain::with(data, strides)?;
        let (a, b) = self.first_order_terms(strides);
        let model = PatternCost {
            chain: &chain,
            seed: (a / b).sqrt(),
            downtime: self.downtime,
        };
        let opt = optimize::minimize(&model)?;
        Ok(Candidate {
            strides: strides.to_vec(),
            interval: opt.interval,
            ln_overhead: opt.ln_overhead,
            converged: opt.converged,
        })
    }

    /// The strides that minimize the first-order overhead `1 + 2 sqrt(A B)` (each at its own
    /// `w = sqrt(A/B)`): the seed of [`Levels::optimize`].
    pub fn first_order_optimum(&self) -> Result<Pattern, MultilevelError> {
        if self.rate(self.len() - 1) <= 0.0 {
            return Err(self.missing_top());
        }
        let best = std::cell::RefCell::new((f64::INFINITY, vec![1u64; self.len()]));
        // Start from the single-level bound so that the search is finite from the first step.
        {
            let (a, b) = self.first_order_terms(&vec![1u64; self.len()]);
            best.borrow_mut().0 = 2.0 * (a * b).sqrt();
        }
        self.search(false, &mut || best.borrow().0, &mut |k, bound| {
            let mut b = best.borrow_mut();
            if bound < b.0 {
                *b = (bound, k.to_vec());
            }
        })?;
        let strides = best.into_inner().1;
        let (a, b) = self.first_order_terms(&strides);
        Pattern::new((a / b).sqrt(), strides)
    }

    /// The exact optimum over the base interval `w` (continuous, by the crate's optimizer), the
    /// strides and the levels used, with the single-level answer beside it. Global over
    /// strides: every stride vector not optimized exactly has a proven lower bound at or above
    /// the answer (docs/models.md §12.5).
    pub fn optimize(&self) -> Result<MultilevelAnswer, MultilevelError> {
        let seed = self.first_order_optimum()?;
        let data = Arc::new(LevelData::new(self));
        let single = self.optimize_strides(&data, &vec![1u64; self.len()])?;
        let mut best = single.clone();
        let mut optimized = 1u64;
        // The tangent bounds (two or three evaluations each) of every vector whose prefix bound
        // is below the best overhead met so far, the seed first: they also give achievable
        // overheads, which tighten the search as it goes.
        let incumbent = std::cell::Cell::new(single.ln_overhead.exp());
        let mut survivors: Vec<(f64, Vec<u64>)> = Vec::new();
        let mut consider = |k: &[u64], bound: f64| {
            if k[k.len() - 1] == 1 || 1.0 + bound > incumbent.get() {
                return;
            }
            let Ok(chain) = Chain::with(&data, k) else {
                return;
            };
            let (a, b) = self.first_order_terms(k);
            match chain.tangent_bound((a / b).sqrt()) {
                Some((lower, _)) if lower > incumbent.get() => {}
                Some((lower, upper)) => {
                    incumbent.set(incumbent.get().min(upper));
                    survivors.push((lower, k.to_vec()));
                }
                None => survivors.push((1.0 + bound, k.to_vec())),
            }
        };
        consider(seed.strides(), 0.0);
        self.search(true, &mut || incumbent.get() - 1.0, &mut |k, bound| {
            if k != seed.strides() {
                consider(k, bound)
            }
        })?;
        let incumbent = incumbent.get();
        survivors.retain(|s| s.0 <= incumbent);
        survivors.sort_by(|x, y| x.0.total_cmp(&y.0).then_with(|| x.1.cmp(&y.1)));
        for (lower, k) in survivors {
            if lower >= best.ln_overhead.exp() {
                break;
            }
            let c = self.optimize_strides(&data, &k)?;
            optimized += 1;
            if c.ln_overhead < best.ln_overhead {
                best = c;
            }
        }
        let pattern = Pattern::new(best.interval, best.strides.clone())?;
        let single_overhead = single.ln_overhead.exp();
        let eval = self.evaluate(&pattern)?;
        // The overhead reported is the optimizer's (for one level: Daly's, digit for digit).
        let overhead = best.ln_overhead.exp();
        Ok(MultilevelAnswer {
            used: pattern.used(),
            overhead,
            period_time: eval.period_time,
            failures_per_period: eval.failures_per_period,
            single_level: SingleLevel {
                interval: single.interval,
                overhead: single_overhead,
            },
            gain_pct: 100.0 * (1.0 - overhead / single_overhead),
            first_order: seed,
            converged: best.converged,
            patterns_optimized: optimized,
            pattern,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    const H: f64 = 3600.0;

    fn lv(levels: &[(f64, f64, Option<f64>)], downtime: f64) -> Levels {
        let v = levels
            .iter()
            .enumerate()
            .map(|(i, &(c, r, m))| Level::new(&format!("l{}", i + 1), c, r, m))
            .collect();
        Levels::new(v, downtime).unwrap()
    }

    /// Before: `ckpt interval --level cost=1e-170,mtbf=1e-168 --level cost=1e-169,mtbf=1e-167`
    /// failed with "interval = 0", a flag that mode does not have: the first-order interval
    /// `sqrt(a / b)` underflowed. Such times are refused up front; within the range the
    /// optimum scales with the times (the model is scale-free: every time times `s`, the
    /// optimal interval times `s`, the overhead unchanged).
    #[test]
    fn times_past_the_models_range_are_refused_and_those_within_scale() {
        let make = |c: f64, r: f64, m: f64, d: f64| {
            Levels::new(
                vec![
                    Level::new("a", c, r, Some(m)),
                    Level::new("b", 10.0 * c, r, Some(10.0 * m)),
                ],
                d,
            )
        };
        for (c, r, m, d) in [
            (1e-170, 0.0, 1e-168, 0.0),
            (1.0, 1e101, 100.0, 0.0),
            (1.0, 0.0, 1e101, 0.0),
            (1.0, 0.0, 100.0, 1e101),
        ] {
            let e = make(c, r, m, d).unwrap_err();
            assert!(e.to_string().contains("1e100"), "{e}");
        }
        let unit = make(1.0, 1.0, 100.0, 1.0).unwrap().optimize().unwrap();
        for s in [1e-97, 1e97] {
            let a = make(s, s, 100.0 * s, s).unwrap().optimize().unwrap();
            assert_eq!(a.pattern.strides(), unit.pattern.strides(), "{s:e}");
            let ratio = a.pattern.interval() / s / unit.pattern.interval();
            assert!((ratio - 1.0).abs() < 1e-6, "{s:e}: {ratio}");
        }
    }

    /// The Markov chain of the semantics, solved as one dense linear system (a second
    /// implementation, written from the rules rather than from the recursion): unknowns
    /// `E(p)` (time to the period's end from a commit at position p) and `F(q)` (time to the
    /// end from a failure that rolls back to q, downtime included).
    fn dense_period_time(l: &Levels, k: &[u64], w: f64) -> f64 {
        let n = l.len();
        let kk = k[n - 1] as usize;
        let rates: Vec<f64> = (0..n).map(|j| l.rate(j)).collect();
        let lam: f64 = rates.iter().sum();
        let target = |p: usize, j: usize| (p as u64 / k[j] * k[j]) as usize;
        let size = 2 * kk;
        let mut a = DMatrix::<f64>::identity(size, size);
        let mut rhs = DVector::<f64>::zeros(size);
        let e = |p: usize| p;
        let f = |q: usize| kk + q;
        for p in 0..kk {
            let len = w + l.levels()[level_of(k, p as u64 + 1)].cost;
            let survive = (-lam * len).exp();
            rhs[e(p)] = (1.0 - survive) / lam;
            if p + 1 < kk {
                a[(e(p), e(p + 1))] -= survive;
            }
            for j in 0..n {
                a[(e(p), f(target(p, j)))] -= rates[j] / lam * (1.0 - survive);
            }
            let r = l.levels()[level_of(k, p as u64)].restart;
            let ok = (-lam * r).exp();
            rhs[f(p)] = l.downtime() + (1.0 - ok) / lam;
            a[(f(p), e(p))] -= ok;
            for j in 0..n {
                a[(f(p), f(target(p, j)))] -= rates[j] / lam * (1.0 - ok);
            }
        }
        let x = a.lu().solve(&rhs).unwrap();
        x[0]
    }

    #[test]
    fn recursion_agrees_with_the_dense_chain() {
        let cases: Vec<(Levels, Vec<u64>, f64)> = vec![
            (lv(&[(5.0, 10.0, Some(2.0 * H))], 0.0), vec![1], 900.0),
            (
                lv(&[(5.0, 20.0, Some(H)), (60.0, 120.0, Some(4.0 * H))], 30.0),
                vec![1, 4],
                600.0,
            ),
            (
                lv(
                    &[
                        (5.0, 20.0, Some(H)),
                        (30.0, 90.0, Some(3.0 * H)),
                        (300.0, 600.0, Some(10.0 * H)),
                    ],
                    0.0,
                ),
                vec![1, 3, 12],
                300.0,
            ),
            // A level left out (its stride is the next one's), a class without failures.
            (
                lv(
                    &[
                        (5.0, 20.0, Some(H)),
                        (30.0, 90.0, None),
                        (300.0, 600.0, Some(10.0 * H)),
                    ],
                    45.0,
                ),
                vec![1, 6, 6],
                400.0,
            ),
            (
                lv(
                    &[
                        (5.0, 20.0, None),
                        (30.0, 90.0, Some(2.0 * H)),
                        (300.0, 600.0, Some(10.0 * H)),
                    ],
                    0.0,
                ),
                vec![1, 1, 8],
                700.0,
            ),
        ];
        for (l, k, w) in cases {
            let chain = Chain::new(&l, &k).unwrap();
            let ours = chain.period_time(w);
            let dense = dense_period_time(&l, &k, w);
            assert!(
                ((ours - dense) / dense).abs() < 1e-12,
                "{k:?}: {ours} vs {dense}"
            );
        }
    }

    #[test]
    fn blocks_agree_with_positions() {
        let l = lv(
            &[
                (5.0, 20.0, Some(H)),
                (30.0, 90.0, Some(3.0 * H)),
                (60.0, 100.0, None),
                (300.0, 600.0, Some(10.0 * H)),
            ],
            25.0,
        );
        for k in [
            vec![1, 1, 1, 1],
            vec![1, 2, 2, 8],
            vec![1, 3, 12, 12],
            vec![1, 1, 5, 35],
            vec![1, 7, 21, 1050],
        ] {
            let chain = Chain::new(&l, &k).unwrap();
            for w in [20.0, 300.0, 2000.0] {
                let phi: Vec<Dual> = (0..4).map(|j| chain.phi(w, j)).collect();
                let a = chain.blocks(&phi);
                let b = chain.positions(&phi);
                assert!(((a.0 - b.0) / b.0).abs() < 1e-12, "{k:?} {w}: {a:?} {b:?}");
                assert!(((a.1 - b.1) / b.1).abs() < 1e-11, "{k:?} {w}: {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn one_level_is_daly_complete() {
        // The recursion against Daly's closed form (an independent expression), then the
        // optimizer's answer against daly-complete's to the last digit.
        for (c, r, m, d) in [
            (300.0, 600.0, 86400.0, 0.0),
            (5.0, 10.0, 3.0 * H, 60.0),
            (60.0, 0.0, 600.0, 0.0),
            (1.0, 2.0, 1e7, 5.0),
        ] {
            let l = lv(&[(c, r, Some(m))], d);
            let daly = DalyComplete::new(m, c, r, d).unwrap();
            let chain = Chain::new(&l, &[1]).unwrap();
            for w in [10.0, 100.0, 1000.0, 5000.0] {
                let ours = chain.period_time(w) / w;
                let theirs = daly.overhead(w).unwrap();
                assert!(((ours - theirs) / theirs).abs() < 1e-13, "{ours} {theirs}");
            }
            let ans = l.optimize().unwrap();
            let opt = optimize::minimize(&daly).unwrap();
            assert_eq!(ans.pattern.interval(), opt.interval);
            assert_eq!(ans.overhead, opt.overhead());
            assert_eq!(ans.single_level.overhead, opt.overhead());
            assert_eq!(ans.gain_pct, 0.0);
        }
    }

    /// The issue's reference: C = 5 s and 300 s, M = 3000 h and 24000 h.
    fn issue_levels() -> Levels {
        lv(
            &[
                (5.0, 5.0, Some(3000.0 * H)),
                (300.0, 300.0, Some(24000.0 * H)),
            ],
            0.0,
        )
    }

    #[test]
    fn first_order_limit_of_the_issue() {
        // Independently: min over n of ((n-1) C1 + C2)/W + (1/(n M1) + 1/M2) W/2, each n at its
        // own best W = sqrt(2 ((n-1) C1 + C2) / (1/(n M1) + 1/M2)).
        let (c1, c2, m1, m2) = (5.0, 300.0, 3000.0 * H, 24000.0 * H);
        let (mut best_n, mut best_v, mut best_w) = (0u64, f64::INFINITY, 0.0);
        for n in 1..1000u64 {
            let nf = n as f64;
            let num = (nf - 1.0) * c1 + c2;
            let rate = 1.0 / (nf * m1) + 1.0 / m2;
            let w = (2.0 * num / rate).sqrt();
            let v = num / w + rate * w / 2.0;
            if v < best_v {
                (best_n, best_v, best_w) = (n, v, w);
            }
        }
        assert_eq!(best_n, 22);
        assert!((best_w - 226_540.0).abs() < 100.0, "{best_w}");
        let l = issue_levels();
        let fo = l.first_order_optimum().unwrap();
        assert_eq!(fo.chunks(), best_n);
        assert!((fo.period() / best_w - 1.0).abs() < 1e-9);
        let ans = l.optimize().unwrap();
        let k = ans.pattern.chunks() as f64;
        assert!((k / best_n as f64 - 1.0).abs() < 0.01, "stride {k}");
        assert!(
            (ans.pattern.period() / best_w - 1.0).abs() < 0.01,
            "period {}",
            ans.pattern.period()
        );
        assert!(ans.gain_pct > 0.0);
    }

    /// Every nested stride vector with a top stride up to `max`, each at its exact best `w`.
    fn brute_force(l: &Levels, max: u64) -> (f64, Vec<u64>) {
        fn rec(l: &Levels, k: &mut Vec<u64>, d: usize, max: u64, best: &mut (f64, Vec<u64>)) {
            if d == k.len() {
                let c = l.optimize_strides(&Arc::new(LevelData::new(l)), k).unwrap();
                if c.ln_overhead < best.0 {
                    *best = (c.ln_overhead, k.clone());
                }
                return;
            }
            let mut s = k[d - 1];
            while s <= max {
                k[d] = s;
                rec(l, k, d + 1, max, best);
                s += k[d - 1];
            }
        }
        let mut best = (f64::INFINITY, vec![]);
        let mut k = vec![1u64; l.len()];
        if l.len() == 1 {
            let data = Arc::new(LevelData::new(l));
            return (l.optimize_strides(&data, &k).unwrap().ln_overhead, k);
        }
        rec(l, &mut k, 1, max, &mut best);
        best
    }

    #[test]
    fn optimum_is_global_over_strides() {
        let cases = [
            lv(
                &[(10.0, 20.0, Some(2.0 * H)), (120.0, 240.0, Some(12.0 * H))],
                0.0,
            ),
            lv(
                &[
                    (10.0, 30.0, Some(H)),
                    (60.0, 90.0, Some(4.0 * H)),
                    (400.0, 800.0, Some(12.0 * H)),
                ],
                60.0,
            ),
            lv(
                &[
                    (20.0, 40.0, Some(20.0 * H)),
                    (40.0, 50.0, Some(1.5 * H)),
                    (300.0, 300.0, Some(6.0 * H)),
                ],
                0.0,
            ),
        ];
        for l in cases {
            let ans = l.optimize().unwrap();
            let found = ans.overhead.ln();
            let (brute, k) = brute_force(&l, 120);
            assert!(ans.pattern.chunks() < 60, "{:?}", ans.pattern);
            assert!(
                found <= brute + 1e-13,
                "optimizer {:?} {found} beaten by {k:?} {brute}",
                ans.pattern
            );
        }
    }

    #[test]
    fn leaving_a_level_out_is_optimal_here() {
        // Class 1 is rare and level 1 dear: protecting against it after every chunk costs more
        // than rolling its failures back to the partner copy.
        let l = lv(
            &[
                (60.0, 60.0, Some(2000.0 * H)),
                (90.0, 120.0, Some(10.0 * H)),
                (600.0, 900.0, Some(100.0 * H)),
            ],
            0.0,
        );
        let ans = l.optimize().unwrap();
        assert_eq!(ans.used, vec![false, true, true], "{:?}", ans.pattern);
        // Every pattern that writes level 1 (strides 1 < k2) is worse, by enumeration.
        let data = Arc::new(LevelData::new(&l));
        let mut best_with = f64::INFINITY;
        for k2 in 2..40u64 {
            for r in 1..20u64 {
                let c = l.optimize_strides(&data, &[1, k2, k2 * r]).unwrap();
                best_with = best_with.min(c.ln_overhead);
            }
        }
        assert!(best_with > ans.overhead.ln() + 1e-4, "{best_with}");
    }

    #[test]
    fn first_order_bound_is_below_the_exact_overhead() {
        let l = lv(
            &[
                (10.0, 30.0, Some(H)),
                (60.0, 90.0, Some(4.0 * H)),
                (400.0, 800.0, Some(12.0 * H)),
            ],
            60.0,
        );
        for k in [vec![1, 1, 1], vec![1, 2, 8], vec![1, 4, 4], vec![1, 3, 30]] {
            let (a, b) = l.first_order_terms(&k);
            let chain = Chain::new(&l, &k).unwrap();
            for w in [30.0, 300.0, 3000.0] {
                let exact = chain.period_time(w) / (k[2] as f64 * w);
                assert!(exact >= 1.0 + a / w + b * w, "{k:?} {w}");
            }
        }
    }

    #[test]
    fn tighter_bound_is_below_the_exact_minimum() {
        for l in [
            lv(
                &[
                    (10.0, 30.0, Some(H)),
                    (60.0, 90.0, Some(4.0 * H)),
                    (400.0, 800.0, Some(12.0 * H)),
                ],
                60.0,
            ),
            issue_levels_three(),
        ] {
            let bound = l.leaf_bound();
            for k in [vec![1, 1, 1], vec![1, 2, 8], vec![1, 4, 4], vec![1, 3, 30]] {
                let data = Arc::new(LevelData::new(&l));
                let exact = l.optimize_strides(&data, &k).unwrap().ln_overhead.exp();
                let (a, b) = l.first_order_terms(&k);
                let first = 2.0 * (a * b).sqrt();
                let tight = bound(&k);
                assert!(1.0 + tight <= exact, "{k:?}: {tight} {exact}");
                assert!(tight > first, "{k:?}");
                // Tangents at a bracket of the optimum: below it, and close.
                if k[2] > 1 {
                    let chain = Chain::new(&l, &k).unwrap();
                    let w0 = (a / b).sqrt();
                    let (t, upper) = chain.tangent_bound(w0).unwrap();
                    assert!(t <= exact && t > 1.0 + tight, "{k:?}: {t} {exact}");
                    assert!(
                        upper >= exact && upper < exact * (1.0 + 1e-2),
                        "{upper} {exact}"
                    );
                }
            }
        }
    }

    fn issue_levels_three() -> Levels {
        lv(
            &[
                (5.0, 10.0, Some(3.0 * H)),
                (30.0, 60.0, Some(24.0 * H)),
                (600.0, 900.0, Some(168.0 * H)),
            ],
            0.0,
        )
    }

    #[test]
    fn dual_derivative_matches_a_difference_quotient() {
        let l = lv(
            &[(10.0, 30.0, Some(H)), (400.0, 800.0, Some(12.0 * H))],
            20.0,
        );
        let chain = Chain::new(&l, &[1, 6]).unwrap();
        let w = 500.0;
        let d = chain.period_time_dual(w);
        let h = 1e-3;
        let fd = (chain.period_time(w + h) - chain.period_time(w - h)) / (2.0 * h);
        assert!(((d.1 - fd) / fd).abs() < 1e-7, "{} {fd}", d.1);
        assert_eq!(d.0, chain.period_time(w));
    }

    #[test]
    fn bad_input_gets_one_clear_error() {
        let l = |c, r, m| Level::new("x", c, r, m);
        let err = |v, d| Levels::new(v, d).unwrap_err();
        assert_eq!(err(vec![], 0.0), MultilevelError::NoLevels);
        let e = err(vec![l(5.0, 5.0, Some(H)), l(3.0, 5.0, Some(H))], 0.0);
        assert!(matches!(e, MultilevelError::Unordered { level: 2, .. }));
        assert!(e.to_string().contains("cheapest first"));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = err(vec![l(bad, 5.0, Some(H))], 0.0);
            assert!(
                matches!(e, MultilevelError::Parameter { field: "cost", .. }),
                "{e}"
            );
            let e = err(vec![l(5.0, 5.0, Some(bad))], 0.0);
            assert!(matches!(
                e,
                MultilevelError::Parameter { field: "mtbf", .. }
            ));
        }
        let e = err(vec![l(5.0, f64::NAN, Some(H))], 0.0);
        assert!(matches!(
            e,
            MultilevelError::Parameter {
                field: "restart",
                ..
            }
        ));
        let e = err(vec![l(5.0, 5.0, Some(H))], f64::NAN);
        assert!(matches!(e, MultilevelError::Downtime { .. }));
        // The top level's class must fail for an optimum to exist.
        let top_free = Levels::new(vec![l(5.0, 5.0, Some(H)), l(50.0, 50.0, None)], 0.0).unwrap();
        let e = top_free.optimize().unwrap_err();
        assert!(matches!(e, MultilevelError::MissingMtbf { level: 2, .. }));
        assert!(e.to_string().contains("needs an MTBF"));
        // Strides.
        assert!(matches!(
            Pattern::new(10.0, vec![1, 4, 6]),
            Err(MultilevelError::NotNested {
                level: 3,
                stride: 6,
                ..
            })
        ));
        assert!(matches!(
            Pattern::new(10.0, vec![2, 4]),
            Err(MultilevelError::FirstStride { stride: 2 })
        ));
        assert!(matches!(
            Pattern::new(10.0, vec![1, 0]),
            Err(MultilevelError::ZeroStride { level: 2 })
        ));
        assert!(matches!(
            Pattern::new(f64::NAN, vec![1]),
            Err(MultilevelError::Interval { .. })
        ));
        assert!(matches!(
            Pattern::from_used(10.0, &[Some(1), None]),
            Err(MultilevelError::TopUnused)
        ));
        assert!(matches!(
            Pattern::from_used(10.0, &[Some(1), Some(4), Some(4)]),
            Err(MultilevelError::NotNested { .. })
        ));
        let two = lv(&[(5.0, 5.0, Some(H)), (50.0, 50.0, Some(H))], 0.0);
        assert!(matches!(
            two.evaluate(&Pattern::new(10.0, vec![1]).unwrap()),
            Err(MultilevelError::StrideCount { .. })
        ));
        // Deserializing checks too.
        let json =
            r#"{"levels":[{"name":"a","cost":-1.0,"restart":0.0,"mtbf":null}],"downtime":0.0}"#;
        assert!(serde_json::from_str::<Levels>(json).is_err());
        assert!(serde_json::from_str::<Pattern>(r#"{"interval":1.0,"strides":[1,3,4]}"#).is_err());
    }

    #[test]
    fn no_failures_costs_the_checkpoints_only() {
        let l = lv(&[(5.0, 5.0, None), (50.0, 50.0, None)], 10.0);
        let e = l
            .evaluate(&Pattern::new(100.0, vec![1, 4]).unwrap())
            .unwrap();
        assert_eq!(e.period_time, 4.0 * 100.0 + 3.0 * 5.0 + 50.0);
        assert_eq!(e.failures_per_period, 0.0);
    }

    #[test]
    fn far_out_is_an_error_not_infinity() {
        let l = lv(&[(5.0, 5.0, Some(60.0)), (50.0, 50.0, Some(600.0))], 0.0);
        let e = l.evaluate(&Pattern::new(1e6, vec![1, 8]).unwrap());
        assert_eq!(e.unwrap_err(), MultilevelError::NoProgress);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            /// The recursion and the dense chain agree on random two- and three-level inputs.
            #[test]
            fn recursion_is_the_chain(
                c1 in 1.0f64..100.0, dc in 0.0f64..500.0, r in 0.0f64..3.0,
                m1 in 0.5f64..50.0, m2 in 0.5f64..50.0, m3 in 0.5f64..50.0,
                k2 in 1u64..6, k3 in 1u64..5, w in 10.0f64..5000.0, d in 0.0f64..100.0,
            ) {
                let l = lv(&[
                    (c1, c1 * r, Some(m1 * H)),
                    (c1 + dc, (c1 + dc) * r, Some(m2 * H)),
                    (c1 + 2.0 * dc, (c1 + 2.0 * dc) * r, Some(m3 * H)),
                ], d);
                let k = [1, k2, k2 * k3];
                // The dense oracle solves a linear system whose condition grows like
                // e^(period x rate): past a few expected failures per period its own round-off
                // exceeds the tolerance (c1 = 1, m = 0.5 h, w = 3367 s, strides 1,1,3 disagreed
                // by more than 1e-10), so the comparison is kept where the oracle is accurate.
                let rate = (1.0 / m1 + 1.0 / m2 + 1.0 / m3) / H;
                prop_assume!((w + c1 + 2.0 * dc) * (k2 * k3) as f64 * rate <= 5.0);
                let ours = Chain::new(&l, &k).unwrap().period_time(w);
                let dense = dense_period_time(&l, &k, w);
                prop_assert!(((ours - dense) / dense).abs() < 1e-10);
            }

            /// Dearer checkpoints or more frequent failures never lower the optimum's overhead.
            #[test]
            fn optimum_is_monotone(
                c1 in 1.0f64..60.0, dc in 1.0f64..600.0, m1 in 1.0f64..100.0, m2 in 1.0f64..100.0,
            ) {
                let base = lv(&[(c1, c1, Some(m1 * H)), (c1 + dc, c1 + dc, Some(m2 * H))], 0.0);
                let dear = lv(&[(c1, c1, Some(m1 * H)), (c1 + 2.0 * dc, c1 + 2.0 * dc, Some(m2 * H))], 0.0);
                let frail = lv(&[(c1, c1, Some(m1 * H / 2.0)), (c1 + dc, c1 + dc, Some(m2 * H))], 0.0);
                let o = base.optimize().unwrap().overhead;
                prop_assert!(dear.optimize().unwrap().overhead >= o * (1.0 - 1e-12));
                prop_assert!(frail.optimize().unwrap().overhead >= o * (1.0 - 1e-12));
                prop_assert!(o <= base.optimize().unwrap().single_level.overhead);
            }
        }
    }
}

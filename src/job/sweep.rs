//! `ckpt sweep`: the points of a sweep as a job, for the one-level models' inputs and for the
//! multi-level ones alike.

use super::{JobError, Output, Slice, Task, command_line};
use crate::report;
pub use crate::sweep::SweepPlan;
use crate::sweep::multilevel::{self as msweep, LevelSweep, LevelSweepPoint};
use crate::sweep::renewal::{self as rsweep, ShapePoint, ShapeSweep};
use crate::sweep::{self, SweepPoint};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// What a [`Sweep`] varies and how its points become a report.
pub trait Sweeping: Serialize + DeserializeOwned {
    /// One point's answer, as shard files carry it.
    type Point: Serialize + DeserializeOwned + Send;
    /// What a progress display says.
    const LABEL: &'static str;
    /// How many points the sweep has.
    fn count(&self) -> u64;
    /// The points `range`, `tick` called once per point.
    fn points(
        &self,
        range: Range<usize>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<Self::Point>, JobError>;
    /// Checks a point read back from a shard file against the sweep and the sweep's first
    /// point ([`Task::item_check`]).
    fn check_point(&self, point: &Self::Point, first: &Self::Point) -> Result<(), String>;
    /// The report of every point: the line to print and the folder's files, `command` being
    /// what report.md quotes and `out` the folder the line names.
    fn report(
        &self,
        points: Vec<Self::Point>,
        command: &str,
        out: &Path,
    ) -> Result<(String, report::Files), JobError>;
}

/// `ckpt sweep`: a sweep reported into `out`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// The bounds serde would infer repeat what `Sweeping` already requires, ambiguously.
#[serde(bound = "")]
pub struct Sweep<S: Sweeping> {
    /// What varies (flattened, so a shard file names its fields beside `out` and `args`).
    #[serde(flatten)]
    pub sweep: S,
    /// The report folder.
    pub out: PathBuf,
    /// The command line after `ckpt`, canonical, quoted in report.md.
    pub args: Vec<String>,
}

/// `ckpt sweep` of the one-level models.
pub type SweepJob = Sweep<SweepPlan>;
/// `ckpt sweep --level ... --vary levelN.X=LO..HI`.
pub type SweepMultilevel = Sweep<LevelSweep>;

impl<S: Sweeping> Sweep<S> {
    /// Reports into `out` instead, the quoted command line saying so.
    pub fn redirect(&mut self, out: &Path) {
        self.args = super::args_with_out(&self.args, out);
        self.out = out.to_path_buf();
    }
}

impl<S: Sweeping> Task for Sweep<S> {
    type Item = S::Point;
    const LABEL: &'static str = S::LABEL;
    fn total(&self) -> u64 {
        self.sweep.count()
    }
    fn item_check(&self) -> Result<super::ItemCheck<'_, S::Point>, JobError> {
        Ok(Box::new(|point, first| {
            self.sweep.check_point(point, first)
        }))
    }
    fn compute(&self, s: &Slice) -> Result<Vec<S::Point>, JobError> {
        let range = s.range.start as usize..s.range.end as usize;
        self.sweep.points(range, s.tick)
    }
    fn finish(&self, points: Vec<S::Point>) -> Result<Output, JobError> {
        let (text, files) = self
            .sweep
            .report(points, &command_line(&self.args), &self.out)?;
        Ok(Output {
            text,
            out: Some(self.out.clone()),
            files,
        })
    }
}

/// The [`Sweeping`] of a kind of sweep, from its module's `points(&kind, range, tick)` and
/// `finish(&kind, points)` and its report module's `files(&result, command)` and
/// `summary_line(&result, out)`: every kind is wired to the job the same way, so the wiring is
/// written once, with the module's `check_point(&kind, point, first)`, which checks a point
/// read back from a shard file.
macro_rules! sweeping {
    ($kind:ty, $point:ty, $label:literal, $sweep:ident, $report:ident) => {
        impl Sweeping for $kind {
            type Point = $point;
            const LABEL: &'static str = $label;
            fn count(&self) -> u64 {
                self.values().len() as u64
            }
            fn points(
                &self,
                range: Range<usize>,
                tick: &(dyn Fn() + Sync),
            ) -> Result<Vec<$point>, JobError> {
                Ok($sweep::points(self, range, tick)?)
            }
            fn report(
                &self,
                points: Vec<$point>,
                command: &str,
                out: &Path,
            ) -> Result<(String, report::Files), JobError> {
                let result = $sweep::finish(self, points)?;
                let files = report::$report::files(&result, command)?;
                Ok((report::$report::summary_line(&result, out), files))
            }
            fn check_point(&self, point: &$point, first: &$point) -> Result<(), String> {
                $sweep::check_point(self, point, first)
            }
        }
    };
}

sweeping!(SweepPlan, SweepPoint, "sweep", sweep, sweep);
sweeping!(
    LevelSweep,
    LevelSweepPoint,
    "sweep multilevel",
    msweep,
    sweep_multilevel
);
sweeping!(ShapeSweep, ShapePoint, "sweep shape", rsweep, sweep_renewal);

//! `ckpt sweep`: the points of a sweep as a job, for the one-level models' inputs and for the
//! multi-level ones alike.

use super::{JobError, Output, Slice, Task, command_line};
use crate::interval::IntervalInputs;
use crate::report;
use crate::sweep::multilevel::{self as msweep, LevelSweep, LevelSweepPoint};
use crate::sweep::{self, SweepPoint, SweepSpec};
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

/// The one-level sweep: `inputs` with one parameter varied as `spec` says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPlan {
    /// The validated model inputs.
    pub inputs: IntervalInputs,
    /// What varies, over which range.
    pub spec: SweepSpec,
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

impl Sweeping for SweepPlan {
    type Point = SweepPoint;
    const LABEL: &'static str = "sweep";
    fn count(&self) -> u64 {
        self.spec.values().len() as u64
    }
    fn points(
        &self,
        range: Range<usize>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<SweepPoint>, JobError> {
        Ok(sweep::points(&self.inputs, &self.spec, range, tick)?)
    }
    fn report(
        &self,
        points: Vec<SweepPoint>,
        command: &str,
        out: &Path,
    ) -> Result<(String, report::Files), JobError> {
        let result = sweep::finish(&self.inputs, &self.spec, points)?;
        let files = report::sweep::files(&result, command)?;
        Ok((report::sweep::summary_line(&result, out), files))
    }
}

impl Sweeping for LevelSweep {
    type Point = LevelSweepPoint;
    const LABEL: &'static str = "sweep multilevel";
    fn count(&self) -> u64 {
        self.values().len() as u64
    }
    fn points(
        &self,
        range: Range<usize>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<LevelSweepPoint>, JobError> {
        Ok(msweep::points(self, range, tick)?)
    }
    fn report(
        &self,
        points: Vec<LevelSweepPoint>,
        command: &str,
        out: &Path,
    ) -> Result<(String, report::Files), JobError> {
        let result = msweep::finish(self, points)?;
        let files = report::sweep_multilevel::files(&result, command)?;
        Ok((report::sweep_multilevel::summary_line(&result, out), files))
    }
}

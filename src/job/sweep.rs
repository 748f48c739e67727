//! `ckpt sweep`: the points of a sweep as a job.

use super::{JobError, Output, Slice, Task, command_line};
use crate::interval::IntervalInputs;
use crate::report;
use crate::sweep::{self, SweepPoint, SweepSpec};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// `ckpt sweep`: `inputs` with one parameter varied as `spec` says, reported into `out`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepJob {
    /// The validated model inputs.
    pub inputs: IntervalInputs,
    /// What varies, over which range.
    pub spec: SweepSpec,
    /// The report folder.
    pub out: PathBuf,
    /// The command line after `ckpt`, canonical, quoted in report.md.
    pub args: Vec<String>,
}

impl Task for SweepJob {
    type Item = SweepPoint;
    const LABEL: &'static str = "sweep";
    fn total(&self) -> u64 {
        self.spec.values().len() as u64
    }
    fn compute(&self, s: &Slice) -> Result<Vec<SweepPoint>, JobError> {
        let range = s.range.start as usize..s.range.end as usize;
        Ok(sweep::points(&self.inputs, &self.spec, range, s.tick)?)
    }
    fn finish(&self, points: Vec<SweepPoint>) -> Result<Output, JobError> {
        let result = sweep::finish(&self.inputs, &self.spec, points)?;
        let files = report::sweep::files(&result, &command_line(&self.args))?;
        Ok(Output {
            text: report::sweep::summary_line(&result, &self.out),
            out: Some(self.out.clone()),
            files,
        })
    }
}

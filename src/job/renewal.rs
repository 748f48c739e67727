//! One job under renewal failures as jobs: `validate --dist` (no `--procs`) and
//! `sweep --dist FAMILY:K --vary shape=LO..HI`, each run whole or in shards like the others.

use super::sweep::Sweeping;
use super::{JobError, Output, Reporting, Slice, Task};
use crate::report;
use crate::sim::engine::Nanos;
use crate::sweep::renewal::{self as rsweep, ShapePoint, ShapeSweep};
use crate::validate::renewal::{self as rval, RenewalPolicies, RenewalValidateOptions};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::path::Path;

/// `ckpt validate --dist ...` for one job: the schedule, the best period, Young and Daly under
/// the same simulated failures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidateRenewal {
    /// The job and its policies, computed once when the job is made.
    pub policies: RenewalPolicies,
    /// Work, runs, seed.
    pub options: RenewalValidateOptions,
    /// How to report.
    pub report: Reporting,
}

impl Task for ValidateRenewal {
    /// One run's wall time under every policy.
    type Item = Vec<Nanos>;
    const LABEL: &'static str = "validate renewal";
    fn total(&self) -> u64 {
        self.options.runs
    }
    fn compute(&self, s: &Slice) -> Result<Vec<Vec<Nanos>>, JobError> {
        let range = s.range.clone();
        Ok(rval::per_run(
            &self.policies,
            &self.options,
            s.threads,
            range,
            s.tick,
        )?)
    }
    fn finish(&self, runs: Vec<Vec<Nanos>>) -> Result<Output, JobError> {
        let v = rval::finish(&self.policies, &self.options, runs)?;
        use report::validate_renewal as r;
        self.report.output(
            || r::table(&v),
            || r::json(&v),
            |command| r::files(&v, command),
        )
    }
}

/// `ckpt sweep --dist FAMILY:K --vary shape=LO..HI`.
pub type SweepRenewal = super::Sweep<ShapeSweep>;

impl Sweeping for ShapeSweep {
    type Point = ShapePoint;
    const LABEL: &'static str = "sweep shape";
    fn count(&self) -> u64 {
        self.values().len() as u64
    }
    fn points(
        &self,
        range: Range<usize>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<ShapePoint>, JobError> {
        Ok(rsweep::points(self, range, tick)?)
    }
    fn report(
        &self,
        points: Vec<ShapePoint>,
        command: &str,
        out: &Path,
    ) -> Result<Output, JobError> {
        let result = rsweep::finish(self, points)?;
        Ok(Output {
            text: report::sweep_renewal::summary_line(&result, out),
            out: Some(out.to_path_buf()),
            files: report::sweep_renewal::files(&result, command)?,
        })
    }
}

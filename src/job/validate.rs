//! `ckpt validate`: the simulations behind a validation as jobs.

use super::{JobError, Output, Reporting, Slice, Task};
use crate::interval::IntervalInputs;
use crate::report::{self, Format};
use crate::sim::stencil::{RunFigures, StencilConfig};
use crate::units::Nanos;
pub use crate::validate::allocation::AllocationCheck;
use crate::validate::{self, SimKind, SimOptions};
use serde::{Deserialize, Serialize};

/// Every model's interval against the periodic or replicated simulator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidateIntervals {
    /// The validated model inputs.
    pub inputs: IntervalInputs,
    /// Which simulator.
    pub sim: SimKind,
    /// Runs, seed, grid and simulator options.
    pub options: SimOptions,
    /// How to report.
    pub report: Reporting,
}

/// `ckpt validate --walltime ...`: the allocation's plan, the long-run models' intervals and a
/// grid around the plan, run in the allocation on the same failures.
pub type ValidateAllocation = super::Paired<AllocationCheck>;

/// The stencil's checkpoint levels under both strategies, against the models' predictions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValidateStencil {
    /// The validated stencil setup.
    pub config: StencilConfig,
    /// Runs per level and strategy.
    pub runs: u64,
    /// Seed of the failure streams.
    pub seed: u64,
    /// How to report.
    pub report: Reporting,
}

impl Reporting {
    /// The table or JSON on stdout, and the report files when a folder is asked for.
    pub(super) fn output<V>(
        &self,
        v: &V,
        table: fn(&V) -> String,
        json: fn(&V) -> String,
        files: fn(&V, &str) -> Result<report::Files, report::plot::ReportError>,
    ) -> Result<Output, JobError> {
        let text = match self.format {
            Format::Table => table(v),
            Format::Json => json(v),
        };
        let files = match self.out {
            Some(_) => files(v, &self.command())?,
            None => Vec::new(),
        };
        Ok(Output {
            text,
            out: self.out.clone(),
            files,
        })
    }
}

impl Task for ValidateIntervals {
    /// One run's wall time at every simulated interval.
    type Item = Vec<Nanos>;
    const LABEL: &'static str = "validate";
    fn total(&self) -> u64 {
        self.options.runs
    }
    fn item_bytes(&self) -> Result<u64, JobError> {
        Ok(validate::kept_bytes(&self.inputs, self.sim, &self.options)?)
    }
    /// One wall time per simulated interval, and none below the job's work (a shard edited to
    /// zeros once gave regrets of NaN).
    fn item_check(&self) -> Result<super::ItemCheck<'_, Vec<Nanos>>, JobError> {
        let intervals = validate::interval_count(&self.inputs, self.sim, &self.options)?;
        let work = crate::units::secs_to_ns(self.options.work_s);
        Ok(Box::new(move |walls, _| {
            if walls.len() != intervals {
                return Err(format!(
                    "{} wall times for {intervals} intervals",
                    walls.len()
                ));
            }
            match walls.iter().find(|&&w| w < work) {
                Some(w) => Err(format!(
                    "a wall time of {} s, below the job's work of {} s",
                    crate::units::ns_to_secs(*w),
                    self.options.work_s
                )),
                None => Ok(()),
            }
        }))
    }
    fn compute(&self, s: &Slice) -> Result<Vec<Self::Item>, JobError> {
        let (inputs, options) = (&self.inputs, &self.options);
        let range = s.range.clone();
        Ok(validate::per_run(
            inputs, self.sim, options, s.threads, range, s.tick,
        )?)
    }
    fn finish(&self, runs: Vec<Self::Item>) -> Result<Output, JobError> {
        let v = validate::finish(&self.inputs, self.sim, &self.options, runs)?;
        use report::validate as r;
        self.report.output(&v, r::table, r::json, r::files)
    }
}

impl Task for ValidateStencil {
    /// One run's figures under every (level, strategy).
    type Item = Vec<RunFigures>;
    const LABEL: &'static str = "validate stencil";
    fn total(&self) -> u64 {
        self.runs
    }
    fn item_bytes(&self) -> Result<u64, JobError> {
        Ok(validate::stencil::kept_bytes(&self.config))
    }
    /// Figures for every (level, strategy), each with one task count per worker.
    fn item_check(&self) -> Result<super::ItemCheck<'_, Vec<RunFigures>>, JobError> {
        let width = validate::stencil::valid_levels(&self.config).len()
            * validate::stencil::STRATEGIES.len();
        Ok(Box::new(move |runs, _| {
            if runs.len() != width {
                return Err(format!(
                    "figures of {} runs for {width} levels and strategies",
                    runs.len()
                ));
            }
            runs.iter()
                .try_for_each(|r| super::simulate::workers_match(r, self.config.workers))
        }))
    }
    fn compute(&self, s: &Slice) -> Result<Vec<Self::Item>, JobError> {
        let range = s.range.clone();
        let runs = validate::stencil::per_run(&self.config, self.seed, s.threads, range, s.tick);
        Ok(runs?)
    }
    fn finish(&self, runs: Vec<Self::Item>) -> Result<Output, JobError> {
        let v = validate::stencil::finish(&self.config, self.seed, runs)?;
        use report::validate_stencil as r;
        self.report.output(&v, r::table, r::json, r::files)
    }
}

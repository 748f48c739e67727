//! `ckpt simulate`: the simulators' runs as jobs.

use super::{JobError, Output, Task};
use crate::report::Format;
use crate::report::simulate::{self, PeriodicInputs, ReplicatedInputs};
use crate::sim::periodic::{self, PeriodicConfig, PeriodicRun};
use crate::sim::replicated::{self, ReplicatedConfig, ReplicatedRun};
use crate::sim::stencil::{self, RunFigures, StencilConfig, Summary};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// `ckpt simulate periodic`: `runs` runs of `config` from `seed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulatePeriodic {
    /// The validated setup.
    pub config: PeriodicConfig,
    /// The inputs as the JSON output echoes them.
    pub inputs: PeriodicInputs,
    /// Replications.
    pub runs: u64,
    /// Seed of the random streams (run `i` uses stream `i`).
    pub seed: u64,
    /// Table or JSON.
    pub format: Format,
    /// The command line after `ckpt`, canonical, for messages.
    pub args: Vec<String>,
}

impl Task for SimulatePeriodic {
    type Item = PeriodicRun;
    fn label(&self) -> &'static str {
        "periodic"
    }
    fn total(&self) -> u64 {
        self.runs
    }
    fn compute(
        &self,
        range: Range<u64>,
        threads: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<PeriodicRun>, JobError> {
        Ok(periodic::simulate_range(
            &self.config,
            self.seed,
            range,
            threads,
            tick,
        )?)
    }
    fn finish(&self, items: Vec<PeriodicRun>) -> Result<Output, JobError> {
        let figures = periodic::summarize(&self.config, &items);
        Ok(Output::text(simulate::periodic(
            &self.inputs,
            &figures,
            self.runs,
            self.seed,
            self.format,
        )))
    }
}

/// `ckpt simulate replicated`: `runs` runs of `config` from `seed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulateReplicated {
    /// The validated setup.
    pub config: ReplicatedConfig,
    /// The inputs as the JSON output echoes them.
    pub inputs: ReplicatedInputs,
    /// Replications.
    pub runs: u64,
    /// Seed of the random streams.
    pub seed: u64,
    /// Table or JSON.
    pub format: Format,
    /// The command line after `ckpt`, canonical, for messages.
    pub args: Vec<String>,
}

impl Task for SimulateReplicated {
    type Item = ReplicatedRun;
    fn label(&self) -> &'static str {
        "replicated"
    }
    fn total(&self) -> u64 {
        self.runs
    }
    fn compute(
        &self,
        range: Range<u64>,
        threads: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<ReplicatedRun>, JobError> {
        Ok(replicated::simulate_range(
            &self.config,
            self.seed,
            range,
            threads,
            tick,
        )?)
    }
    fn finish(&self, items: Vec<ReplicatedRun>) -> Result<Output, JobError> {
        let figures = replicated::summarize(&self.config, &items);
        Ok(Output::text(simulate::replicated(
            &self.inputs,
            &figures,
            self.runs,
            self.seed,
            self.format,
        )))
    }
}

/// `ckpt simulate stencil`: `runs` runs of `config`; the seed matters only with Poisson
/// failures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulateStencil {
    /// The validated setup.
    pub config: StencilConfig,
    /// Seed of the failure streams, when there is one.
    pub seed: Option<u64>,
    /// Replications.
    pub runs: u64,
    /// Table or JSON.
    pub format: Format,
    /// The command line after `ckpt`, canonical, for messages.
    pub args: Vec<String>,
}

impl Task for SimulateStencil {
    type Item = RunFigures;
    fn label(&self) -> &'static str {
        "stencil runs"
    }
    fn total(&self) -> u64 {
        self.runs
    }
    fn compute(
        &self,
        range: Range<u64>,
        threads: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<RunFigures>, JobError> {
        Ok(stencil::simulate_range(
            &self.config,
            self.seed.unwrap_or(0),
            range,
            threads,
            tick,
        )?)
    }
    fn finish(&self, figures: Vec<RunFigures>) -> Result<Output, JobError> {
        let summary = Summary::from_runs(&figures, self.config.output_bytes);
        let one = (self.runs == 1).then(|| &figures[0]);
        Ok(Output::text(simulate::stencil(
            &self.config,
            self.runs,
            self.seed,
            &summary,
            one,
            self.format,
        )))
    }
}

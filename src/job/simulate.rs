//! `ckpt simulate`: the simulators' runs as jobs.

use super::{JobError, Output, Slice, Task};
use crate::report::Format;
use crate::report::simulate::{self, FigureTable, PeriodicInputs, ReplicatedInputs};
use crate::sim::periodic::{PeriodicConfig, ScheduleConfig};
use crate::sim::replicated::ReplicatedConfig;
use crate::sim::run::{self, Scenario};
use crate::sim::stencil::{self, RunFigures, StencilConfig, Summary};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A simulator whose validated config a [`Simulate`] job runs: its runs come from
/// [`Scenario`], its report from here.
pub trait Simulation:
    Scenario<Run: Serialize + DeserializeOwned, Figures: FigureTable> + Serialize + DeserializeOwned
{
    /// The inputs as the report echoes them.
    type Inputs: Serialize + DeserializeOwned + std::fmt::Debug + Clone + PartialEq;
    /// The simulator's name, as the report and a progress display say it.
    const LABEL: &'static str;

    /// Whether the runs draw from the seed (a trace draws nothing: the report gives no seed).
    fn draws(&self) -> bool {
        true
    }
}

/// `ckpt simulate periodic|replicated`: `runs` runs of `config` from `seed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// The bounds serde would infer repeat what `Simulation` already requires, ambiguously.
#[serde(bound = "")]
pub struct Simulate<C: Simulation> {
    /// The validated setup.
    pub config: C,
    /// The inputs as the report echoes them.
    pub inputs: C::Inputs,
    /// Replications.
    pub runs: u64,
    /// Seed of the random streams (run `i` uses stream `i`).
    pub seed: u64,
    /// Table or JSON.
    pub format: Format,
    /// The command line after `ckpt`, canonical, for messages.
    pub args: Vec<String>,
}

/// `ckpt simulate periodic`.
pub type SimulatePeriodic = Simulate<PeriodicConfig>;
/// `ckpt simulate periodic --schedule`.
pub type SimulateSchedule = Simulate<ScheduleConfig>;
/// `ckpt simulate replicated`.
pub type SimulateReplicated = Simulate<ReplicatedConfig>;

// The periodic and replicated runs are figures without a shape (no list in them), so they keep
// the default check: their digest is what guards them.
impl<C: Simulation> Task for Simulate<C> {
    type Item = C::Run;
    const LABEL: &'static str = C::LABEL;
    fn total(&self) -> u64 {
        self.runs
    }
    fn item_bytes(&self) -> Result<u64, JobError> {
        Ok(self.config.kept_bytes())
    }
    fn compute(&self, s: &Slice) -> Result<Vec<C::Run>, JobError> {
        let (range, threads) = (s.range.clone(), s.threads);
        Ok(run::simulate_range(
            &self.config,
            self.seed,
            range,
            threads,
            s.tick,
        )?)
    }
    fn finish(&self, items: Vec<C::Run>) -> Result<Output, JobError> {
        let figures = self.config.summarize(&items);
        Ok(Output::text(simulate::render(
            C::LABEL,
            &self.inputs,
            &figures,
            self.runs,
            self.config.draws().then_some(self.seed),
            self.format,
        )))
    }
}

impl Simulation for PeriodicConfig {
    type Inputs = PeriodicInputs;
    const LABEL: &'static str = "periodic";
    fn draws(&self) -> bool {
        !self.is_deterministic()
    }
}

impl Simulation for ScheduleConfig {
    type Inputs = PeriodicInputs;
    const LABEL: &'static str = "periodic";
    fn draws(&self) -> bool {
        !self.base.is_deterministic()
    }
}

impl Simulation for ReplicatedConfig {
    type Inputs = ReplicatedInputs;
    const LABEL: &'static str = "replicated";
}

/// `ckpt simulate stencil`: `runs` runs of `config`; the seed matters only with Poisson
/// failures, and a trace makes every run the same.
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
    const LABEL: &'static str = "stencil runs";
    type Item = RunFigures;
    fn item_bytes(&self) -> Result<u64, JobError> {
        Ok(RunFigures::kept_bytes(self.config.workers))
    }
    /// One task count per worker, which the report's min and max read.
    fn item_check(&self) -> Result<super::ItemCheck<'_, RunFigures>, JobError> {
        Ok(Box::new(|run, _| workers_match(run, self.config.workers)))
    }
    fn compute(&self, s: &Slice) -> Result<Vec<RunFigures>, JobError> {
        let seed = self.seed.unwrap_or(0);
        Ok(stencil::simulate_range(
            &self.config,
            seed,
            s.range.clone(),
            s.threads,
            s.tick,
        )?)
    }
    fn finish(&self, figures: Vec<RunFigures>) -> Result<Output, JobError> {
        let summary = Summary::from_runs(&figures, self.config.output_bytes);
        let one = (self.runs == 1).then(|| &figures[0]);
        let (cfg, runs, seed) = (&self.config, self.runs, self.seed);
        let text = simulate::stencil(cfg, runs, seed, &summary, one, self.format);
        Ok(Output::text(text))
    }
    fn total(&self) -> u64 {
        self.runs
    }
}

/// A stencil run's figures read back from a shard file hold one task count per worker.
pub(super) fn workers_match(run: &RunFigures, workers: u32) -> Result<(), String> {
    if run.tasks_per_worker.len() as u64 == u64::from(workers) {
        Ok(())
    } else {
        Err(format!(
            "{} task counts for {workers} workers",
            run.tasks_per_worker.len()
        ))
    }
}

//! Multi-level checkpointing as jobs: `simulate multilevel`, `validate --level` and
//! `sweep --level`, each run whole or in shards like the other commands.

use super::paired::Paired;
use super::{JobError, Output, Slice, Task};
use crate::model::multilevel::{Levels, Pattern};
use crate::report::{self, Format};
use crate::sim::multilevel::{self as msim, MultilevelConfig, MultilevelRun};
use crate::sim::run::Scenario;
pub use crate::validate::multilevel::PatternCheck;
use serde::{Deserialize, Serialize};

/// How `simulate multilevel` prints: the generic [`super::Simulate`] job knows only a table and
/// JSON, this one also a CSV, which is why it is a job of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MultilevelFormat {
    /// Aligned text.
    Table,
    /// One JSON document.
    Json,
    /// One line per figure.
    Csv,
}

/// `ckpt simulate multilevel`: `runs` runs of a pattern over the levels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulateMultilevel {
    /// The levels (for the model's prediction and the echo).
    pub levels: Levels,
    /// The pattern simulated.
    pub pattern: Pattern,
    /// Useful work per run (s), as given.
    pub work_s: f64,
    /// The validated simulator setup.
    pub config: MultilevelConfig,
    /// Replications.
    pub runs: u64,
    /// Seed of the random streams.
    pub seed: u64,
    /// How to print.
    pub format: MultilevelFormat,
    /// The command line after `ckpt`, canonical.
    pub args: Vec<String>,
}

impl Task for SimulateMultilevel {
    type Item = MultilevelRun;
    const LABEL: &'static str = "multilevel";
    fn total(&self) -> u64 {
        self.runs
    }
    fn item_bytes(&self) -> Result<u64, JobError> {
        Ok(self.config.kept_bytes())
    }
    /// One failure count per level's class, which the report estimates level by level.
    fn item_check(&self) -> Result<super::ItemCheck<'_, MultilevelRun>, JobError> {
        let levels = self.config.levels.len();
        Ok(Box::new(move |run, _| {
            if run.class_failures.len() == levels {
                Ok(())
            } else {
                Err(format!(
                    "{} failure counts for {levels} levels",
                    run.class_failures.len()
                ))
            }
        }))
    }
    fn compute(&self, s: &Slice) -> Result<Vec<MultilevelRun>, JobError> {
        Ok(msim::simulate_range(
            &self.config,
            self.seed,
            s.range.clone(),
            s.threads,
            s.tick,
        )?)
    }
    fn finish(&self, runs: Vec<MultilevelRun>) -> Result<Output, JobError> {
        let figures = self.config.summarize(&runs);
        let model = self.levels.evaluate(&self.pattern)?;
        use report::simulate_multilevel as r;
        let check = r::ModelCheck::new(&figures, model.overhead, self.whole_periods());
        let text = r::render(
            &r::Inputs::of(self),
            &figures,
            check,
            self.runs,
            self.seed,
            self.format,
        );
        Ok(Output::text(text))
    }
}

impl SimulateMultilevel {
    /// True when the simulated work is a whole number of periods, to a millionth of a period
    /// (a work typed in seconds is rarely a multiple of the nanosecond grid): the exact model's
    /// overhead is then the expectation of the simulated one, but for a sliver of a chunk.
    pub fn whole_periods(&self) -> bool {
        let period = self.config.interval as f64 * self.pattern.chunks() as f64;
        let r = self.config.work as f64 / period;
        period > 0.0 && r >= 0.5 && (r - r.round()).abs() <= 1e-6
    }
}

/// `ckpt validate --level ...`: the model's pattern, a grid of base intervals and the
/// neighbouring strides against the simulator.
pub type ValidateMultilevel = Paired<PatternCheck>;

impl From<Format> for MultilevelFormat {
    fn from(f: Format) -> MultilevelFormat {
        match f {
            Format::Table => MultilevelFormat::Table,
            Format::Json => MultilevelFormat::Json,
        }
    }
}

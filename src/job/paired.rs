//! Validations on common random numbers as one generic job: every run simulates each candidate
//! (a pattern, a policy) under the same failures, and the report compares them pairwise.

use super::{JobError, Output, Reporting, Slice, Task};
use crate::units::Nanos;
use crate::validate::allocation::{self, AllocationCheck};
use crate::validate::multilevel::{self, PatternCheck};
use crate::validate::paired_runs;
use crate::validate::renewal::{self, PolicyCheck};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// What a [`Paired`] validation simulates and how its runs become a report.
pub trait PairedRuns: Serialize + DeserializeOwned {
    /// What a progress display says.
    const LABEL: &'static str;
    /// How many runs.
    fn runs(&self) -> u64;
    /// Re-checks a setup read back from a shard file, as building it checked it.
    fn check(&self) -> Result<(), JobError>;
    /// The memory one run's wall times keep until the report.
    fn item_bytes(&self) -> Result<u64, JobError>;
    /// How many candidates a run measures: one wall time each.
    fn candidates(&self) -> Result<usize, JobError>;
    /// The runs `range` on `threads` threads, `tick` called once per run: one wall time per
    /// candidate each.
    fn per_run(
        &self,
        threads: usize,
        range: Range<u64>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<Vec<Nanos>>, JobError>;
    /// The validation of every run, reported as `report` asks.
    fn report(&self, runs: Vec<Vec<Nanos>>, report: &Reporting) -> Result<Output, JobError>;
}

/// A validation on common random numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
// The bounds serde would infer repeat what `PairedRuns` already requires, ambiguously.
#[serde(bound = "")]
pub struct Paired<P: PairedRuns> {
    /// What is simulated (flattened, so a shard file names its fields beside `report`).
    #[serde(flatten)]
    pub setup: P,
    /// How to report.
    pub report: Reporting,
}

/// The [`PairedRuns`] of a validation whose setup is a [`crate::validate::PairedCheck`] and whose module has
/// `check(&setup)`, `kept_bytes(&setup)` and `finish(&setup, runs)`, and whose report module
/// has `table`, `json` and `files`: every such validation is wired to the job the same way, so
/// the wiring is written once.
macro_rules! paired_runs {
    ($setup:ty, $label:literal, $validate:ident, $report:ident) => {
        impl PairedRuns for $setup {
            const LABEL: &'static str = $label;
            fn runs(&self) -> u64 {
                self.options.runs
            }
            fn check(&self) -> Result<(), JobError> {
                Ok($validate::check(self)?)
            }
            fn item_bytes(&self) -> Result<u64, JobError> {
                Ok($validate::kept_bytes(self)?)
            }
            fn candidates(&self) -> Result<usize, JobError> {
                Ok(crate::validate::PairedCheck::candidates(self)?.len())
            }
            fn per_run(
                &self,
                threads: usize,
                range: Range<u64>,
                tick: &(dyn Fn() + Sync),
            ) -> Result<Vec<Vec<Nanos>>, JobError> {
                Ok(paired_runs(self, threads, range, tick)?)
            }
            fn report(
                &self,
                runs: Vec<Vec<Nanos>>,
                report: &Reporting,
            ) -> Result<Output, JobError> {
                let v = $validate::finish(self, runs)?;
                use crate::report::$report as r;
                report.output(&v, r::table, r::json, r::files)
            }
        }
    };
}

paired_runs!(
    PatternCheck,
    "validate multilevel",
    multilevel,
    validate_multilevel
);
paired_runs!(PolicyCheck, "validate renewal", renewal, validate_renewal);
paired_runs!(
    AllocationCheck,
    "validate allocation",
    allocation,
    validate_allocation
);

impl<P: PairedRuns> Task for Paired<P> {
    /// One run's wall time under every candidate.
    type Item = Vec<Nanos>;
    const LABEL: &'static str = P::LABEL;
    fn total(&self) -> u64 {
        self.setup.runs()
    }
    fn item_bytes(&self) -> Result<u64, JobError> {
        self.setup.item_bytes()
    }
    /// One measure per candidate.
    fn item_check(&self) -> Result<super::ItemCheck<'_, Vec<Nanos>>, JobError> {
        let n = self.setup.candidates()?;
        Ok(Box::new(move |walls, _| {
            if walls.len() == n {
                Ok(())
            } else {
                Err(format!("{} measures for {n} candidates", walls.len()))
            }
        }))
    }
    fn compute(&self, s: &Slice) -> Result<Vec<Vec<Nanos>>, JobError> {
        self.setup.per_run(s.threads, s.range.clone(), s.tick)
    }
    fn finish(&self, runs: Vec<Vec<Nanos>>) -> Result<Output, JobError> {
        self.setup.report(runs, &self.report)
    }
}

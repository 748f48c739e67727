//! Validations on common random numbers as one generic job: every run simulates each candidate
//! (a pattern, a policy) under the same failures, and the report compares them pairwise.

use super::{JobError, Output, Reporting, Slice, Task};
use crate::sim::engine::Nanos;
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

impl<P: PairedRuns> Task for Paired<P> {
    /// One run's wall time under every candidate.
    type Item = Vec<Nanos>;
    const LABEL: &'static str = P::LABEL;
    fn total(&self) -> u64 {
        self.setup.runs()
    }
    fn compute(&self, s: &Slice) -> Result<Vec<Vec<Nanos>>, JobError> {
        self.setup.per_run(s.threads, s.range.clone(), s.tick)
    }
    fn finish(&self, runs: Vec<Vec<Nanos>>) -> Result<Output, JobError> {
        self.setup.report(runs, &self.report)
    }
}

//! One job under renewal failures as jobs: `validate --dist` (no `--procs`) and
//! `sweep --dist FAMILY:K --vary shape=LO..HI`, each run whole or in shards like the others.

use super::paired::{Paired, PairedRuns};
use super::{JobError, Output, Reporting};
use crate::report;
use crate::sim::engine::Nanos;
use crate::sweep::renewal::ShapeSweep;
use crate::validate::renewal::{self as rval, RenewalPolicies, RenewalValidateOptions};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// `ckpt validate --dist ...` for one job: the schedule, the best period, Young and Daly under
/// the same simulated failures.
pub type ValidateRenewal = Paired<PolicyCheck>;

/// What `validate --dist` for one job simulates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyCheck {
    /// The job and its policies, computed once when the job is made.
    pub policies: RenewalPolicies,
    /// Work, runs, seed.
    pub options: RenewalValidateOptions,
}

impl PairedRuns for PolicyCheck {
    const LABEL: &'static str = "validate renewal";
    fn runs(&self) -> u64 {
        self.options.runs
    }
    fn check(&self) -> Result<(), JobError> {
        self.policies.model()?;
        rval::configs(&self.policies, &self.options)?;
        Ok(())
    }
    fn per_run(
        &self,
        threads: usize,
        range: Range<u64>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<Vec<Nanos>>, JobError> {
        Ok(rval::per_run(
            &self.policies,
            &self.options,
            threads,
            range,
            tick,
        )?)
    }
    fn report(&self, runs: Vec<Vec<Nanos>>, report: &Reporting) -> Result<Output, JobError> {
        let v = rval::finish(&self.policies, &self.options, runs)?;
        use report::validate_renewal as r;
        report.output(
            || r::table(&v),
            || r::json(&v),
            |command| r::files(&v, command),
        )
    }
}

/// `ckpt sweep --dist FAMILY:K --vary shape=LO..HI`.
pub type SweepRenewal = super::Sweep<ShapeSweep>;

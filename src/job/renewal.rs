//! One job under renewal failures as jobs: `validate --dist` (no `--procs`) and
//! `sweep --dist FAMILY:K --vary shape=LO..HI`, each run whole or in shards like the others.

use super::paired::Paired;
use crate::sweep::renewal::ShapeSweep;
pub use crate::validate::renewal::PolicyCheck;

/// `ckpt validate --dist ...` for one job: the schedule, the best period, Young and Daly under
/// the same simulated failures.
pub type ValidateRenewal = Paired<PolicyCheck>;

/// `ckpt sweep --dist FAMILY:K --vary shape=LO..HI`.
pub type SweepRenewal = super::Sweep<ShapeSweep>;

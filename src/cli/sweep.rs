//! `ckpt sweep`: arguments, validation, and the report files.

use super::interval::{ModelArgs, interval_error};
use super::merge::ShardArg;
use super::{CliError, Progress};
use ckpt::job::shard::canonical_args;
use ckpt::job::{Job, Output, SweepJob, SweepPlan};
use ckpt::sweep::{self, SweepError, SweepRange, SweepSpec};
use clap::Args;
use std::path::PathBuf;

/// Examples shown under `ckpt sweep --help`.
pub const EXAMPLES: &str = "Examples:
  ckpt sweep --mtbf 24h --cost 5m --restart 10m --vary mtbf=15m..7d --log --out sweep-mtbf
  ckpt sweep --mtbf 6h --cost 5m --vary cost=10s..2h --points 100 --log --out sweep-cost
  ckpt sweep --mtbf 1h --cost 60s --procs 8 --replicas 2 --vary procs=1..1024 --log --out sweep-procs
  ckpt sweep --mtbf 6h --cost 5m --vary interval=5m..12h --log --out sweep-interval
  ckpt sweep --level cost=5s,mtbf=3h --level cost=30s,mtbf=1d --level cost=10m,mtbf=7d \
      --vary level2.cost=5s..10m --log --out sweep-partner   # multi-level: levelN.cost|restart|mtbf
  ckpt sweep --mtbf 24h --cost 10m --restart 10m --dist weibull:1 --vary shape=0.5..1.5 --points 21 --out sweep-shape
  ckpt sweep ... --out sweep-mtbf --shard 0/4 > shard-0.json   # one of 4 slices; then ckpt merge

Writes sweep.json, sweep.csv, interval/overhead/loss/sensitivity plots (.svg and .png) and
report.md into --out.";

/// `ckpt sweep` arguments.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    /// The model inputs, as for `ckpt interval`.
    #[command(flatten)]
    pub model: ModelArgs,
    /// What to vary and over which range: PARAM=LO..HI, PARAM one of mtbf, cost, restart,
    /// procs, replicas, interval (e.g. mtbf=1h..7d); shape=LO..HI with --dist for one job.
    #[arg(long, value_name = "PARAM=LO..HI")]
    pub vary: String,
    /// Number of points.
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = super::parse::bounded::<u32>("a point count", ckpt::sweep::MIN_POINTS as u64, ckpt::sweep::MAX_POINTS as u64))]
    pub points: u32,
    /// Log-spaced points (linear otherwise).
    #[arg(long)]
    pub log: bool,
    /// Folder for the report (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace the --out folder even if it holds files that are not this command's report.
    #[arg(long)]
    pub force: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub shard: ShardArg,
}

pub fn sweep_error(e: SweepError) -> CliError {
    match e {
        SweepError::Spec { ref value } => CliError::Invalid {
            arg: "--vary",
            value: value.clone(),
            accepted: e.to_string(),
        },
        SweepError::Range { param, lo, hi } => CliError::Invalid {
            arg: "--vary",
            value: format!("{param}={lo}..{hi}"),
            accepted: e.to_string(),
        },
        SweepError::TooLong { param, hi } => CliError::Invalid {
            arg: "--vary",
            value: format!("{param}=..{hi}"),
            accepted: e.to_string(),
        },
        SweepError::Ends { ref name, lo, hi } => CliError::Invalid {
            arg: "--vary",
            value: format!("{name}={lo}..{hi}"),
            accepted: e.to_string(),
        },
        SweepError::Level { .. } => CliError::Conflict(e.to_string()),
        SweepError::NotApplicable(m) => CliError::Conflict(m),
        SweepError::Points { points } => CliError::Invalid {
            arg: "--points",
            value: points.to_string(),
            accepted: e.to_string(),
        },
        SweepError::Point { source, .. } => interval_error(source),
    }
}

impl SweepArgs {
    /// `--points` values from `lo` to `hi`, spaced as `--log` says.
    pub fn range(&self, lo: f64, hi: f64) -> SweepRange {
        SweepRange {
            lo,
            hi,
            points: self.points as usize,
            log: self.log,
        }
    }

    /// Validates the arguments, before any work.
    pub fn validate(&self) -> Result<(), CliError> {
        job(self, &[]).map(|_| ())
    }

    /// Validates the arguments into inputs and a sweep spec.
    pub fn plan(&self) -> Result<(ckpt::interval::IntervalInputs, SweepSpec), CliError> {
        let inputs = self.model.inputs()?;
        let spec = SweepSpec::parse(&self.vary, self.points as usize, self.log).map_err(|e| {
            CliError::Invalid {
                arg: "--vary",
                value: self.vary.clone(),
                accepted: e.to_string(),
            }
        })?;
        sweep::check(&inputs, &spec).map_err(sweep_error)?;
        Ok((inputs, spec))
    }
}

/// Validates the arguments into the sweep to run (multi-level, renewal or of the interval
/// models); `argv` is the canonical command line after `ckpt`, quoted in report.md.
pub fn job(args: &SweepArgs, argv: &[String]) -> Result<Job, CliError> {
    Ok(if args.model.levels.given() {
        Job::SweepMultilevel(super::multilevel::sweep_job(args, argv)?)
    } else if super::renewal_jobs::sweep_applies(args) {
        Job::SweepRenewal(super::renewal_jobs::sweep_job(args, argv)?)
    } else {
        Job::Sweep(interval_models_job(args, argv)?)
    })
}

/// The sweep of the interval models.
fn interval_models_job(args: &SweepArgs, argv: &[String]) -> Result<SweepJob, CliError> {
    let (inputs, spec) = args.plan()?;
    Ok(SweepJob {
        sweep: SweepPlan { inputs, spec },
        out: args.out.clone(),
        args: argv.to_vec(),
    })
}

/// Runs the sweep, or with `--shard` its slice of the points (then the output is the shard
/// file and no report folder). `argv` is the command line after `ckpt`.
pub fn run(args: &SweepArgs, argv: &[String], progress: &dyn Progress) -> Result<Output, CliError> {
    let job = job(args, &canonical_args(argv))?;
    super::run_job(&job, args.shard.shard, 0, progress)
}

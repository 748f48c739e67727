//! `ckpt sweep`: arguments, validation, and the report files.

use super::interval::{ModelArgs, interval_error};
use super::{CliError, Progress};
use crate::report;
use crate::sweep::{self, SweepError, SweepSpec};
use clap::Args;
use std::path::PathBuf;

/// Examples shown under `ckpt sweep --help`.
pub const EXAMPLES: &str = "Examples:
  ckpt sweep --mtbf 24h --cost 5m --restart 10m --vary mtbf=15m..7d --log --out sweep-mtbf
  ckpt sweep --mtbf 6h --cost 5m --vary cost=10s..2h --points 100 --log --out sweep-cost
  ckpt sweep --mtbf 1h --cost 60s --procs 8 --replicas 2 --vary procs=1..1024 --log --out sweep-procs
  ckpt sweep --mtbf 6h --cost 5m --vary interval=5m..12h --log --out sweep-interval

Writes sweep.json, sweep.csv, interval/overhead/loss/sensitivity plots (.svg and .png) and
report.md into --out.";

/// `ckpt sweep` arguments.
#[derive(Debug, Clone, Args)]
pub struct SweepArgs {
    /// The model inputs, as for `ckpt interval`.
    #[command(flatten)]
    pub model: ModelArgs,
    /// What to vary and over which range: PARAM=LO..HI, PARAM one of mtbf, cost, restart,
    /// procs, replicas, interval (e.g. mtbf=1h..7d).
    #[arg(long, value_name = "PARAM=LO..HI")]
    pub vary: String,
    /// Number of points.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub points: u32,
    /// Log-spaced points (linear otherwise).
    #[arg(long)]
    pub log: bool,
    /// Folder for the report (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// A finished sweep: the files to write and a line to print.
pub struct SweepOutput {
    /// `(file name, bytes)` for the --out folder.
    pub files: Vec<(String, Vec<u8>)>,
    /// A one-line summary for the terminal.
    pub summary: String,
}

fn sweep_error(e: SweepError) -> CliError {
    match e {
        SweepError::Spec { ref value } => CliError::Invalid {
            arg: "--vary",
            value: value.clone(),
            accepted: e.to_string(),
        },
        SweepError::Range { .. } => CliError::Invalid {
            arg: "--vary",
            value: String::new(),
            accepted: e.to_string(),
        },
        SweepError::NotApplicable(m) => CliError::Conflict(m),
        SweepError::Point { source, .. } => interval_error(source),
    }
}

impl SweepArgs {
    /// Validates the arguments into inputs and a sweep spec, before any work.
    pub fn validate(&self) -> Result<(crate::interval::IntervalInputs, SweepSpec), CliError> {
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

/// Runs the sweep; `command` is the command line quoted in report.md.
pub fn run(
    args: &SweepArgs,
    command: &str,
    progress: &dyn Progress,
) -> Result<SweepOutput, CliError> {
    let (inputs, spec) = args.validate()?;
    let n = spec.values().len() as u64;
    progress.start("sweep", n);
    let result = sweep::run(&inputs, &spec, &|| progress.tick());
    progress.finish();
    let result = result.map_err(sweep_error)?;
    let files =
        report::sweep::files(&result, command).map_err(|e| CliError::Internal(e.to_string()))?;
    Ok(SweepOutput {
        files,
        summary: format!(
            "{} points of {}; recommended at the given inputs: {} ({} s)",
            result.points.len(),
            spec.param,
            crate::units::format_duration(result.base.recommended_interval_s),
            result.base.recommended_interval_s.round()
        ),
    })
}

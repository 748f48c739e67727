//! `ckpt validate`: the models' intervals held against simulation.

use super::interval::{ModelArgs, interval_error};
use super::parse::{duration, duration0};
use super::{CliError, Format, Progress};
use ckpt::job::shard::canonical_args;
use ckpt::job::{Job, Output, Reporting, ValidateIntervals, ValidateStencil};
use ckpt::sim::run::SimError;
use ckpt::validate::{self, SimKind, SimOptions, ValidateError};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Examples shown under `ckpt validate --help`.
pub const EXAMPLES: &str = "Examples:
  ckpt validate --mtbf 6h --cost 5m --restart 10m --runs 1000 --work 100h --out val-daly
  ckpt validate --mtbf 1h --cost 60s --procs 8 --replicas 2 --detect immediate --restart 2m
  ckpt validate --mtbf 1h --cost 60s --procs 8 --replicas 2 --dist weibull:0.7 --aging
  ckpt validate --mtbf 1h --cost 60s --procs 8 --replicas 2 --detect immediate --heartbeat 2m
  ckpt validate --mtbf 24h --cost 10m --restart 10m --dist weibull:0.7 --runs 400 --out val-renewal
  ckpt validate --level cost=5s,mtbf=3h --level cost=30s,mtbf=1d --level cost=10m,mtbf=7d --out val-ml
  ckpt validate --mtbf 6h --cost 5m --restart 5m --walltime 24h --out val-allocation

Every row's interval and a 25-point log grid from 0.25x to 4x the recommended one are simulated
with common random numbers (run i uses stream i at every interval); each row gets its regret
against the empirical optimum with a 95% CI, and a verdict. With --walltime every interval runs
in the allocation, and the figure is the work saved by its limit.";

/// The flags the stencil's `--config` replaces (clap ids): the model, the job and the interval
/// grid all come from the configuration and its levels.
fn stencil_replaces() -> Vec<&'static str> {
    super::multilevel::SINGLE_LEVEL_FLAGS
        .into_iter()
        .chain([
            "downtime",
            "level",
            "work",
            "async_write",
            "async_slowdown",
            "walltime",
            "signal_margin",
            "aging",
            "heartbeat",
            "points",
        ])
        .collect()
}

/// The grid points of a validation without `--points`.
pub const DEFAULT_POINTS: usize = 25;

/// The useful work of each simulated job without `--work` (s): 100 h.
pub const DEFAULT_WORK_S: f64 = 100.0 * 3600.0;

/// Simulators on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimArg {
    /// One coordinated job (Young's and Daly's setting).
    Periodic,
    /// n processes x r replicas.
    Replicated,
    /// The task-based stencil: every checkpoint level, both rollback strategies (--config).
    Stencil,
}

/// `ckpt validate` arguments.
#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    /// The model inputs, as for `ckpt interval`.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Asynchronous checkpoints, simulated and predicted (docs/models.md §11).
    #[command(flatten)]
    pub asynchronous: super::finite::AsyncArgs,
    /// A fixed allocation: its plan against runs in the allocation (docs/models.md §10).
    #[command(flatten)]
    pub allocation: super::finite::AllocationArgs,
    /// The simulator (default: replicated with --procs/--replicas, periodic otherwise).
    #[arg(long, value_enum)]
    pub sim: Option<SimArg>,
    /// Replications per interval (default 1000; 200 per level and strategy for the stencil).
    #[arg(long, value_name = "N", value_parser = super::parse::runs(2, super::simulate::MAX_RUNS))]
    pub runs: Option<u64>,
    /// The stencil's configuration, in the paper's INI format (with --sim stencil; `-`: standard
    /// input).
    #[arg(long, value_name = "FILE.ini", conflicts_with_all = stencil_replaces())]
    pub config: Option<PathBuf>,
    /// Useful work of each simulated job (default 100h; with --dist for one job 1000 times
    /// --mtbf, at most ten years, so that the job's start and end weigh little).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub work: Option<f64>,
    /// Seed of the common random numbers (default 42, or the stencil config's Seed).
    #[arg(long, value_parser = super::parse::whole::<u64>)]
    pub seed: Option<u64>,
    /// Worker threads (0: all cores); the results do not depend on it.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = super::parse::threads)]
    pub threads: usize,
    /// Points of the log grid from 0.25x to 4x the recommended interval (default 25).
    #[arg(long, value_name = "N", value_parser = super::parse::bounded::<usize>("a point count", ckpt::validate::MIN_GRID_POINTS as u64, ckpt::validate::MAX_GRID_POINTS as u64))]
    pub points: Option<usize>,
    /// Replicated: survivors keep their age (the model assumes fresh replicas every interval).
    #[arg(long)]
    pub aging: bool,
    /// Replicated `immediate`: a loss is noticed this long after it happens.
    #[arg(long, value_name = "DURATION", value_parser = duration0)]
    pub heartbeat: Option<f64>,
    /// Folder for validate.json, validate.csv, the plots and report.md.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the --out folder even if it holds files that are not this command's report.
    #[arg(long)]
    pub force: bool,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub shard: super::merge::ShardArg,
}

pub fn validate_error(e: ValidateError) -> CliError {
    match e {
        ValidateError::Interval(i) => interval_error(i),
        ValidateError::Sim(SimError::Invalid {
            field,
            value,
            accepted,
        }) => CliError::Invalid {
            arg: match field {
                "runs" => "--runs",
                "work" => "--work",
                "walltime" => "--walltime",
                "interval" => "--interval",
                "cost" => "--cost",
                "procs" => "--procs",
                "replicas" => "--replicas",
                "async-write" => "--async-write",
                "async-slowdown" => "--async-slowdown",
                _ => "a simulator input",
            },
            value,
            accepted,
        },
        ValidateError::Sim(other) => CliError::NoAnswer(other.to_string()),
        ValidateError::Conflict(m) => CliError::Conflict(m),
    }
}

/// A validated `ckpt validate`: the models against the periodic or replicated simulator, or
/// the stencil's levels.
#[allow(clippy::large_enum_variant)]
pub enum Plan {
    /// Periodic or replicated.
    Intervals(ckpt::interval::IntervalInputs, SimKind, SimOptions),
    /// The stencil, with its runs and seed.
    Stencil(ckpt::sim::stencil::StencilConfig, u64, u64),
}

impl ValidateArgs {
    /// Validates the arguments into a plan, before any work.
    pub fn plan(&self) -> Result<Plan, CliError> {
        if self.sim == Some(SimArg::Stencil) {
            let m = &self.model;
            let model_flags = m.mtbf.is_some()
                || m.cost.is_some()
                || m.nodes.is_some()
                || m.procs.is_some()
                || m.replicas.is_some()
                || m.dist.is_some();
            let (a, w) = (&self.asynchronous, &self.allocation);
            let job_flags = self.work.is_some()
                || a.async_write.is_some()
                || a.async_slowdown.is_some()
                || w.walltime.is_some()
                || w.signal_margin.is_some();
            if model_flags || job_flags || self.aging || self.heartbeat.is_some() {
                return Err(CliError::Conflict(
                    "--sim stencil takes its inputs from --config: drop the model and job flags (--mtbf, --cost, --procs, --work, --walltime, ...)".into(),
                ));
            }
            let path = self.config.as_ref().ok_or_else(|| CliError::Missing {
                arg: "--config",
                needed:
                    "a stencil configuration in the paper's INI format, required with --sim stencil"
                        .into(),
            })?;
            let text = super::input::read_text("--config", path, "stencil configuration")?;
            let folder = super::input::folder_of(path);
            let settings =
                ckpt::sim::stencil::config::parse_ini(&text, &super::input::name_of(path), folder)
                    .map_err(|e| CliError::Conflict(e.to_string()))?;
            let trace = settings
                .trace_to_read()
                .map(|p| super::input::read_text("FailureTrace", p, "trace file"))
                .transpose()?;
            let (cfg, seed) = settings
                .validate(true, trace.as_deref())
                .map_err(|e| CliError::Conflict(e.to_string()))?;
            let seed = self.seed.or(seed).unwrap_or(super::DEFAULT_SEED);
            return Ok(Plan::Stencil(cfg, self.runs.unwrap_or(200), seed));
        }
        if self.config.is_some() {
            return Err(CliError::Conflict(
                "--config is the stencil's: give --sim stencil".into(),
            ));
        }
        let mut inputs = self.model.inputs()?;
        let work = self.work.unwrap_or(DEFAULT_WORK_S);
        inputs.work = Some(work);
        super::finite::apply(&mut inputs, self.asynchronous.inputs()?, None)?;
        let sim = match self.sim {
            Some(SimArg::Periodic) => SimKind::Periodic,
            Some(SimArg::Replicated) => SimKind::Replicated,
            Some(SimArg::Stencil) | None => validate::default_sim(&inputs),
        };
        if sim == SimKind::Periodic && (self.aging || self.heartbeat.is_some()) {
            return Err(CliError::Conflict(
                "--aging and --heartbeat apply to --sim replicated".into(),
            ));
        }
        let options = SimOptions {
            work_s: work,
            runs: self.runs.unwrap_or(1000),
            seed: self.seed.unwrap_or(super::DEFAULT_SEED),
            grid_points: self.points.unwrap_or(DEFAULT_POINTS),
            aging: self.aging,
            heartbeat_s: self.heartbeat.unwrap_or(0.0),
        };
        Ok(Plan::Intervals(inputs, sim, options))
    }

    /// Validates the arguments (a check that fails before any work).
    pub fn validate(&self) -> Result<(), CliError> {
        job(self, &[]).map(|_| ())
    }
}

/// Validates the arguments into the validation job; `argv` is the canonical command line after
/// `ckpt`, quoted in report.md.
pub fn job(args: &ValidateArgs, argv: &[String]) -> Result<Job, CliError> {
    if args.force && args.out.is_none() {
        return Err(CliError::Conflict(
            "--force applies to --out: it lets the report replace a folder of other files".into(),
        ));
    }
    if args.allocation.walltime.is_some() || args.allocation.signal_margin.is_some() {
        return Ok(Job::ValidateAllocation(super::finite::validate_job(
            args, argv,
        )?));
    }
    if args.model.levels.given() {
        return super::multilevel::validate_job(args, argv);
    }
    if super::renewal_jobs::validate_applies(args) {
        return Ok(Job::ValidateRenewal(super::renewal_jobs::validate_job(
            args, argv,
        )?));
    }
    let report = Reporting {
        format: args.format.into(),
        out: args.out.clone(),
        args: argv.to_vec(),
    };
    Ok(match args.plan()? {
        Plan::Intervals(inputs, sim, options) => Job::ValidateIntervals(ValidateIntervals {
            inputs,
            sim,
            options,
            report,
        }),
        Plan::Stencil(config, runs, seed) => Job::ValidateStencil(ValidateStencil {
            config,
            runs,
            seed,
            report,
        }),
    })
}

/// Runs the validation, or with `--shard` its slice of the runs; `argv` is the command line
/// after `ckpt`.
pub fn run(
    args: &ValidateArgs,
    argv: &[String],
    progress: &dyn Progress,
) -> Result<Output, CliError> {
    let job = job(args, &canonical_args(argv))?;
    super::run_job(&job, args.shard.shard, args.threads, progress)
}

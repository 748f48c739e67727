//! Command-line definitions (clap) and their validation into the library's configs.
//!
//! Raw arguments are parsed here and turned into validated configs once; the library below
//! never sees a string a user typed.

pub mod encoding;
pub mod finite;
pub mod fit;
pub mod input;
pub mod interval;
pub mod man;
pub mod merge;
pub mod messages;
pub mod multilevel;
pub mod outdir;
pub mod output;
pub mod parse;
pub mod renewal;
pub mod renewal_jobs;
pub mod simulate;
pub mod stencil;
pub mod sweep;
pub mod validate;
pub mod warn;

use clap::{Parser, Subcommand};
use thiserror::Error;

/// The seed of every command that draws, without `--seed` (nor a stencil file's `Seed`).
pub const DEFAULT_SEED: u64 = 42;

/// The ckpt command line.
#[derive(Debug, Parser)]
#[command(
    name = "ckpt",
    version,
    about = "How often to checkpoint, with every model side by side, and proof by simulation",
    long_about = "How often to checkpoint: Young, Daly (first order, higher order, complete \
model) and the replicated n-process model, each minimized numerically and held against its \
closed forms, and Monte Carlo simulators that check the answer.\n\nDurations take seconds or humantime forms (90s, 5m, 1.5h, 7d, 5y). A capital M \
would be a month in humantime and is refused: write 30d or 5m.",
    after_help = "Example:\n  ckpt interval --mtbf 24h --cost 5m --restart 10m"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
// Parsed once per process: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The optimal checkpoint interval from every model, side by side.
    #[command(after_help = interval::EXAMPLES)]
    Interval(interval::IntervalArgs),
    /// Plotted reports of how the optimum moves when one input varies.
    #[command(after_help = sweep::EXAMPLES)]
    Sweep(sweep::SweepArgs),
    /// Every model's interval held against simulation, with a verdict and a report.
    #[command(after_help = validate::EXAMPLES)]
    Validate(validate::ValidateArgs),
    /// The MTBF and failure distribution from a failure log, with their uncertainty.
    #[command(after_help = fit::EXAMPLES)]
    Fit(fit::FitArgs),
    /// Monte Carlo simulation: the ground truth the models are held against.
    Simulate(simulate::SimulateArgs),
    /// Probability that a diskless checkpoint scheme survives k simultaneous failures.
    Survive(encoding::SurviveArgs),
    /// Encode checkpoints with a scheme, fail processors, rebuild, report the round-off.
    Encode(encoding::EncodeArgs),
    /// Fault-tolerant conjugate gradient: survive k simultaneous failures, one row per k.
    Pcg(encoding::PcgArgs),
    /// Put the shards of a `--shard I/N` run back together: exactly the single-process output.
    #[command(after_help = merge::EXAMPLES)]
    Merge(merge::MergeArgs),
    /// Shell completions, generated from these same definitions.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Manual pages (roff), generated from these same definitions: one per command.
    #[command(after_help = man::EXAMPLES)]
    Man(man::ManArgs),
}

/// Output format of the commands that print a table or one JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text for a person.
    Table,
    /// One JSON object, in seconds.
    Json,
}

impl From<Format> for ckpt::report::Format {
    fn from(f: Format) -> ckpt::report::Format {
        match f {
            Format::Table => ckpt::report::Format::Table,
            Format::Json => ckpt::report::Format::Json,
        }
    }
}

/// Bad input or an internal failure, as the binary reports it.
#[derive(Debug, Error)]
pub enum CliError {
    /// One argument has a value that cannot be accepted.
    #[error("invalid value `{value}` for {arg}: {accepted}")]
    Invalid {
        arg: &'static str,
        value: String,
        accepted: String,
    },
    /// An argument the others make necessary was not given.
    #[error("{arg} is required: {needed}")]
    Missing { arg: &'static str, needed: String },
    /// Arguments that make no sense together.
    #[error("{0}")]
    Conflict(String),
    /// The inputs are valid but no answer exists (e.g. no interval makes progress).
    #[error("{0}")]
    NoAnswer(String),
    /// Shard files that cannot be merged, or a malformed `--shard`.
    #[error(transparent)]
    Shard(#[from] ckpt::job::shard::ShardError),
    /// A file or standard output could not be written.
    #[error("cannot write {what}: {reason}")]
    Write {
        /// The file, or `standard output`.
        what: String,
        /// The system's reason.
        reason: String,
    },
    /// Something went wrong inside (exit status 1).
    #[error("internal error: {0}")]
    Internal(String),
}

impl CliError {
    /// The exit status: 2 for bad input, 1 for an internal failure.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Internal(_) => 1,
            _ => 2,
        }
    }
}

pub use ckpt::progress::Progress;

/// Runs `job` whole, or with `shard` only its slice, as every shardable command does: its
/// errors as [`job_error`] words them, and a shard file refused when `ckpt merge` could not
/// read it back.
pub fn run_job(
    job: &ckpt::job::Job,
    shard: Option<ckpt::job::shard::Shard>,
    threads: usize,
    progress: &dyn Progress,
) -> Result<ckpt::job::Output, CliError> {
    let output = job.run(shard, threads, progress).map_err(job_error)?;
    merge::mergeable(output, shard)
}

/// A library job's error as the binary reports it: the simulators' and models' own mappings
/// to flags, a shard problem as itself, anything else as internal.
pub fn job_error(e: ckpt::job::JobError) -> CliError {
    use ckpt::job::JobError;
    use ckpt::sim::stencil::SimError as StencilError;
    match e {
        JobError::Sim(e) => simulate::sim_error(e),
        JobError::Stencil(
            e @ (StencilError::TooManyFailures
            | StencilError::TooLong
            | StencilError::Hopeless { .. }
            | StencilError::GlobalHopeless { .. }
            | StencilError::LoneWorkerHopeless { .. }),
        ) => CliError::NoAnswer(e.to_string()),
        JobError::Stencil(StencilError::TooManyRuns(e)) => simulate::sim_error(e),
        JobError::Stencil(e) => CliError::Internal(e.to_string()),
        JobError::Sweep(e) => sweep::sweep_error(e),
        JobError::Validate(e) => validate::validate_error(e),
        JobError::Report(e) => CliError::Internal(e.to_string()),
        JobError::Multilevel(e) => multilevel::model_error(&[], e),
        JobError::MultilevelSweep(e) => CliError::NoAnswer(e.to_string()),
        JobError::ShapeSweep(e) => CliError::NoAnswer(e.to_string()),
        JobError::Shard(e) => CliError::Shard(e),
        // Named by the library's message, the reason as the command line words it.
        JobError::Edited { file, source } => CliError::Conflict(format!(
            "{file}: its job would be refused on the command line ({}): the file was edited or damaged",
            job_error(*source)
        )),
        // Only a job read back from a shard file can carry a setup validation never saw.
        JobError::StencilConfig(e) => CliError::Conflict(format!("the shard's stencil setup: {e}")),
    }
}

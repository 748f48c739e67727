//! `ckpt simulate stencil`: the task-based stencil with checkpoint levels and rollback
//! (docs/simulation.md §3), from the paper's INI file and/or flags.

use super::CliError;
use super::parse::{nanos, nanos0};
use ckpt::job::SimulateStencil;
use ckpt::sim::stencil::config::{ConfigError, Settings, parse_ini};
use ckpt::sim::stencil::{Failures, Recovery, StencilConfig};
use ckpt::units::Nanos;
use clap::Args;
use std::path::PathBuf;

/// Most runs one `simulate stencil` makes (the documented 1 to 10^8).
pub const MAX_STENCIL_RUNS: u64 = 100_000_000;

fn recovery(s: &str) -> Result<Recovery, String> {
    Recovery::parse(s).ok_or_else(|| "global or dependency".into())
}

/// `--output-bytes`: a size, rounded to whole bytes below 2^64.
fn output_bytes(s: &str) -> Result<u64, String> {
    ckpt::units::parse_whole_bytes(s)
        .ok_or_else(|| "positive bytes (4096) or a size (1.6MB, 64MiB) below 2^64".into())
}

/// Flags of `ckpt simulate stencil`; each overrides the same setting of `--config`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Examples:\n  ckpt simulate stencil --config data/paper/rollback-five-failures.ini --level 1 --recovery dependency\n  \
ckpt simulate stencil --width 256 --rows 256 --workers 128 --level 6 --process-cost 7.1 \
--backup-cost 0.0013 --recovery global --mtbf 30m --runs 200"
)]
pub struct StencilArgs {
    /// The paper's INI configuration (docs/simulation.md §3.8; `-`: standard input); flags
    /// override it.
    #[arg(long, value_name = "FILE.ini")]
    pub config: Option<PathBuf>,
    /// Tasks per row (StencilSize), even.
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<u32>)]
    pub width: Option<u32>,
    /// Rows, i.e. time steps (Timesteps).
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<u32>)]
    pub rows: Option<u32>,
    /// Workers (WorkerCount).
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<u32>)]
    pub workers: Option<u32>,
    /// Checkpoint level L: triangles of 2^(L-1) rows (CheckpointLevel), 1 to 20.
    #[arg(long, value_name = "N", value_parser = super::parse::level, conflicts_with = "no_checkpoint")]
    pub level: Option<u32>,
    /// Time to process one task (ProcessCost): seconds (7.1) or a duration (1.3ms).
    #[arg(long, value_name = "DURATION", value_parser = nanos0)]
    pub process_cost: Option<Nanos>,
    /// Time to send one remote copy (BackupCost).
    #[arg(long, value_name = "DURATION", value_parser = nanos0)]
    pub backup_cost: Option<Nanos>,
    /// Time to fetch one input (TransferCost; default: the backup cost).
    #[arg(long, value_name = "DURATION", value_parser = nanos0)]
    pub transfer_cost: Option<Nanos>,
    /// global (rollback to the latest consistent checkpoint) or dependency.
    #[arg(long, value_parser = recovery)]
    pub recovery: Option<Recovery>,
    /// System MTBF of Poisson worker failures, seconds or a duration (30m).
    #[arg(long, value_name = "DURATION", conflicts_with = "trace", value_parser = nanos)]
    pub mtbf: Option<Nanos>,
    /// Failure trace of `time_seconds,worker` lines (`-`: standard input).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// No checkpoint tasks and no copies (Checkpoint = N).
    #[arg(long)]
    pub no_checkpoint: bool,
    /// No failures (Fail = N).
    #[arg(long, conflicts_with_all = ["mtbf", "trace"])]
    pub no_fail: bool,
    /// Bytes of one task output, for the memory figure in bytes (OutputBytes).
    #[arg(long, value_name = "BYTES", value_parser = output_bytes)]
    pub output_bytes: Option<u64>,
    /// Runs (default 1000 with an MTBF, 1 when the result is deterministic).
    #[arg(long, value_name = "N", value_parser = super::parse::runs(1, MAX_STENCIL_RUNS))]
    pub runs: Option<u64>,
    /// Seed of the Poisson failures (overrides the file's Seed; default 42 without a file).
    #[arg(long, value_parser = super::parse::whole::<u64>, conflicts_with_all = ["trace", "no_fail"])]
    pub seed: Option<u64>,
    /// table or json.
    #[arg(long, value_enum, default_value_t = super::Format::Table)]
    pub format: super::Format,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub exec: super::simulate::ExecArgs,
}

fn config_error(e: ConfigError) -> CliError {
    CliError::Conflict(e.to_string())
}

impl StencilArgs {
    fn flag_settings(&self) -> Settings {
        Settings {
            width: self.width,
            rows: self.rows,
            workers: self.workers,
            level: self.level,
            checkpoint: self.no_checkpoint.then_some(false),
            recovery: self.recovery,
            fail: if self.no_fail {
                Some(false)
            } else if self.mtbf.is_some() || self.trace.is_some() {
                Some(true)
            } else {
                None
            },
            mtbf: self.mtbf,
            seed: self.seed,
            trace: self.trace.clone(),
            process_cost: self.process_cost,
            backup_cost: self.backup_cost,
            transfer_cost: self.transfer_cost,
            output_bytes: self.output_bytes,
        }
    }

    /// The validated config and seed these flags (and file) describe.
    pub fn config(&self) -> Result<(StencilConfig, Option<u64>), CliError> {
        let flags = self.flag_settings();
        let (settings, from_file) = match &self.config {
            Some(path) => {
                let text = super::input::read_text("--config", path, "stencil configuration")?;
                let folder = super::input::folder_of(path);
                let file = parse_ini(&text, &super::input::name_of(path), folder);
                (file.map_err(config_error)?.overridden_by(&flags), true)
            }
            None => (flags, false),
        };
        let trace = settings
            .trace_to_read()
            .map(|p| {
                // The trace comes from the flag, or else from the file's FailureTrace.
                let arg = if self.trace.is_some() {
                    "--trace"
                } else {
                    "FailureTrace"
                };
                super::input::read_text(arg, p, "trace file")
            })
            .transpose()?;
        settings
            .validate(from_file, trace.as_deref())
            .map_err(config_error)
    }
}

/// Validates `ckpt simulate stencil`'s flags (and file) into the runs to make.
pub fn job(args: &StencilArgs, argv: &[String]) -> Result<SimulateStencil, CliError> {
    let (cfg, seed) = args.config()?;
    let deterministic = !matches!(cfg.failures, Failures::Poisson { .. });
    let runs = args.runs.unwrap_or(if deterministic { 1 } else { 1000 });
    Ok(SimulateStencil {
        config: cfg,
        seed,
        runs,
        format: args.format.into(),
        args: argv.to_vec(),
    })
}

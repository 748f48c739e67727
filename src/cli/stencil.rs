//! `ckpt simulate stencil`: the task-based stencil with checkpoint levels and rollback
//! (SIMULATION.md section 3), from the paper's INI file and/or flags.

use super::CliError;
use super::merge::{self, Job, ShardArg};
use ckpt::shard;
use ckpt::sim::engine::{ns_to_secs, parse_seconds_exact};
use ckpt::sim::stats::Estimate;
use ckpt::sim::stencil::config::{ConfigError, Settings, duration_ns, parse_ini};
use ckpt::sim::stencil::{
    Failures, Recovery, RunFigures, SimError, StencilConfig, Summary, simulate_range,
};
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::ops::Range;
use std::path::PathBuf;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text for a person.
    Table,
    /// One JSON object (seconds).
    Json,
}

/// Flags of `ckpt simulate stencil`; each overrides the same setting of `--config`.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Examples:\n  ckpt simulate stencil --config data/paper/rollback-five-failures.ini --level 1 --recovery dependency\n  \
ckpt simulate stencil --width 256 --rows 256 --workers 128 --level 6 --process-cost 7.1 \
--backup-cost 0.0013 --recovery global --mtbf 30m --runs 200"
)]
pub struct StencilArgs {
    /// The paper's INI configuration (SIMULATION.md 3.8); flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Tasks per row (StencilSize), even.
    #[arg(long)]
    pub width: Option<u32>,
    /// Rows, i.e. time steps (Timesteps).
    #[arg(long)]
    pub rows: Option<u32>,
    /// Workers (WorkerCount).
    #[arg(long)]
    pub workers: Option<u32>,
    /// Checkpoint level L: triangles of 2^(L-1) rows (CheckpointLevel).
    #[arg(long)]
    pub level: Option<u32>,
    /// Seconds to process one task (ProcessCost).
    #[arg(long, value_name = "SECONDS")]
    pub process_cost: Option<String>,
    /// Seconds to send one remote copy (BackupCost).
    #[arg(long, value_name = "SECONDS")]
    pub backup_cost: Option<String>,
    /// Seconds to fetch one input (TransferCost; default: the backup cost).
    #[arg(long, value_name = "SECONDS")]
    pub transfer_cost: Option<String>,
    /// global (rollback to the latest consistent checkpoint) or dependency.
    #[arg(long)]
    pub recovery: Option<String>,
    /// System MTBF of Poisson worker failures, seconds or a duration (30m).
    #[arg(long, conflicts_with = "trace")]
    pub mtbf: Option<String>,
    /// Failure trace of `time_seconds,worker` lines.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// No checkpoint tasks and no copies (Checkpoint = N).
    #[arg(long)]
    pub no_checkpoint: bool,
    /// No failures (Fail = N).
    #[arg(long, conflicts_with_all = ["mtbf", "trace"])]
    pub no_fail: bool,
    /// Bytes of one task output, for the memory figure in bytes (OutputBytes).
    #[arg(long, value_name = "BYTES")]
    pub output_bytes: Option<String>,
    /// Runs (default 1000 with an MTBF, 1 when the result is deterministic).
    #[arg(long)]
    pub runs: Option<u64>,
    /// Seed of the Poisson failures (overrides the file's Seed; default 42 without a file).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Threads (0 = all cores); results are identical for any count.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub shard: ShardArg,
}

fn invalid(arg: &'static str, value: &str, accepted: &str) -> CliError {
    CliError::Invalid {
        arg,
        value: value.to_string(),
        accepted: accepted.to_string(),
    }
}

fn config_error(e: ConfigError) -> CliError {
    CliError::Conflict(e.to_string())
}

impl StencilArgs {
    fn flag_settings(&self) -> Result<Settings, CliError> {
        let dur = |arg: &'static str, v: &Option<String>| -> Result<Option<u64>, CliError> {
            v.as_deref()
                .map(|s| {
                    parse_seconds_exact(s).ok().ok_or_else(|| {
                        invalid(arg, s, "a non-negative number of seconds, e.g. 7.1")
                    })
                })
                .transpose()
        };
        let recovery = self
            .recovery
            .as_deref()
            .map(|s| {
                Recovery::parse(s).ok_or_else(|| invalid("--recovery", s, "global or dependency"))
            })
            .transpose()?;
        let mtbf = self
            .mtbf
            .as_deref()
            .map(|s| {
                duration_ns(s).filter(|&v| v > 0).ok_or_else(|| {
                    invalid(
                        "--mtbf",
                        s,
                        "a positive duration: seconds or humantime (30m, 1.5h)",
                    )
                })
            })
            .transpose()?;
        let output_bytes = self
            .output_bytes
            .as_deref()
            .map(|s| {
                ckpt::units::parse_bytes(s)
                    .ok()
                    .filter(|b| b.is_finite() && *b >= 0.0 && *b < 1.8e19)
                    .map(|b| b.round() as u64)
                    .ok_or_else(|| {
                        invalid("--output-bytes", s, "bytes (4096) or a size (1.6MB, 64MiB)")
                    })
            })
            .transpose()?;
        Ok(Settings {
            width: self.width,
            rows: self.rows,
            workers: self.workers,
            level: self.level,
            checkpoint: self.no_checkpoint.then_some(false),
            recovery,
            fail: if self.no_fail {
                Some(false)
            } else if mtbf.is_some() || self.trace.is_some() {
                Some(true)
            } else {
                None
            },
            mtbf,
            seed: self.seed,
            trace: self.trace.clone(),
            process_cost: dur("--process-cost", &self.process_cost)?,
            backup_cost: dur("--backup-cost", &self.backup_cost)?,
            transfer_cost: dur("--transfer-cost", &self.transfer_cost)?,
            output_bytes,
        })
    }

    /// The validated config and seed these flags (and file) describe.
    pub fn config(&self) -> Result<(StencilConfig, Option<u64>), CliError> {
        let flags = self.flag_settings()?;
        let (settings, from_file) = match &self.config {
            Some(path) => {
                let text = super::input::read_text("--config", path, "stencil configuration")?;
                let folder = path.parent().unwrap_or(std::path::Path::new("."));
                let file = parse_ini(&text, &path.display().to_string(), folder);
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

#[derive(Serialize)]
struct Inputs {
    width: u32,
    rows: u32,
    workers: u32,
    level: u32,
    checkpoint: bool,
    recovery: Recovery,
    process_cost_s: f64,
    backup_cost_s: f64,
    transfer_cost_s: f64,
    failures: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    mtbf_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace_failures: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_bytes: Option<u64>,
}

#[derive(Serialize)]
struct Output<'a> {
    schema_version: u32,
    simulator: &'static str,
    inputs: Inputs,
    runs: u64,
    seed: Option<u64>,
    figures: &'a Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    tasks_per_worker: Option<&'a [u64]>,
}

fn inputs(cfg: &StencilConfig) -> Inputs {
    let (failures, mtbf_s, trace_failures) = match &cfg.failures {
        Failures::None => ("none", None, None),
        Failures::Poisson { mtbf } => ("poisson", Some(ns_to_secs(*mtbf)), None),
        Failures::Trace(v) => ("trace", None, Some(v.len())),
    };
    Inputs {
        width: cfg.width,
        rows: cfg.rows,
        workers: cfg.workers,
        level: cfg.level,
        checkpoint: cfg.checkpoint,
        recovery: cfg.recovery,
        process_cost_s: ns_to_secs(cfg.process_cost),
        backup_cost_s: ns_to_secs(cfg.backup_cost),
        transfer_cost_s: ns_to_secs(cfg.transfer_cost),
        failures,
        mtbf_s,
        trace_failures,
        output_bytes: cfg.output_bytes,
    }
}

fn table(
    cfg: &StencilConfig,
    runs: u64,
    seed: Option<u64>,
    s: &Summary,
    one: Option<&RunFigures>,
) -> String {
    let mut out = String::new();
    let failures = match &cfg.failures {
        Failures::None => "none".to_string(),
        Failures::Poisson { mtbf } => format!(
            "Poisson, MTBF {} s, seed {}",
            ns_to_secs(*mtbf),
            seed.unwrap_or(0)
        ),
        Failures::Trace(v) => format!("trace of {} failures", v.len()),
    };
    out.push_str(&format!(
        "stencil {} x {}, {} workers, {}, recovery {}, process {} s, backup {} s, transfer {} s\nfailures: {failures}; runs: {runs}\n\n",
        cfg.width,
        cfg.rows,
        cfg.workers,
        if cfg.checkpoint { format!("level {}", cfg.level) } else { "no checkpoints".to_string() },
        cfg.recovery.name(),
        ns_to_secs(cfg.process_cost),
        ns_to_secs(cfg.backup_cost),
        ns_to_secs(cfg.transfer_cost),
    ));
    let mut row = |name: &str, e: &Estimate, unit: &str| {
        let ci = if e.runs > 1 {
            format!("  95% CI [{:.4}, {:.4}]", e.ci95[0], e.ci95[1])
        } else {
            String::new()
        };
        out.push_str(&format!("{name:<26}{:>16.4} {unit:<2}{ci}\n", e.point));
    };
    row("makespan", &s.makespan_s, "s");
    row("executions", &s.executions, "");
    row("cancelled executions", &s.cancelled_executions, "");
    row("aggregate processing", &s.aggregate_processing_s, "s");
    row("failures", &s.failures, "");
    row("time: useful", &s.useful_s, "s");
    row("time: transfer", &s.transfer_s, "s");
    row("time: cancelled", &s.cancelled_s, "s");
    row("time: waiting", &s.waiting_s, "s");
    row("time: checkpointing", &s.checkpointing_s, "s");
    row("  of which re-sends", &s.resend_s, "s");
    row("time: idle", &s.idle_s, "s");
    row("copies: local", &s.local_copies, "");
    row("copies: remote", &s.remote_copies, "");
    row("copies: re-sent", &s.resent_copies, "");
    row("most copies held", &s.max_copies_held, "");
    if let Some(b) = &s.max_bytes_held {
        row("most bytes held", b, "B");
    }
    row("tasks per worker: min", &s.tasks_per_worker_min, "");
    row("tasks per worker: max", &s.tasks_per_worker_max, "");
    if let Some(f) = one {
        out.push_str(&format!("\nmakespan exactly {} ns\n", f.makespan));
    }
    out
}

/// A validated `ckpt simulate stencil`: the runs to make and how to report them.
pub struct StencilJob {
    cfg: StencilConfig,
    seed: Option<u64>,
    runs: u64,
    threads: usize,
    format: Format,
}

/// Validates `ckpt simulate stencil`'s flags (and file) into the runs to make.
pub fn job(args: &StencilArgs) -> Result<StencilJob, CliError> {
    let (cfg, seed) = args.config()?;
    let deterministic = !matches!(cfg.failures, Failures::Poisson { .. });
    let runs = args.runs.unwrap_or(if deterministic { 1 } else { 1000 });
    if runs == 0 || runs > 100_000_000 {
        return Err(invalid("--runs", &runs.to_string(), "1 to 100000000 runs"));
    }
    Ok(StencilJob {
        cfg,
        seed,
        runs,
        threads: args.threads,
        format: args.format,
    })
}

impl Job for StencilJob {
    type Item = RunFigures;

    fn label(&self) -> &'static str {
        "stencil runs"
    }

    fn total(&self) -> u64 {
        self.runs
    }

    fn digest(&self) -> String {
        shard::digest(&(&self.cfg, self.seed))
    }

    fn compute(
        &self,
        range: Range<u64>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<RunFigures>, CliError> {
        simulate_range(&self.cfg, self.seed.unwrap_or(0), range, self.threads, tick).map_err(|e| {
            match e {
                SimError::TooManyFailures => CliError::NoAnswer(e.to_string()),
                SimError::Protocol { .. } => CliError::Internal(e.to_string()),
            }
        })
    }

    fn finish(&self, figures: Vec<RunFigures>) -> Result<merge::Output, CliError> {
        let (cfg, runs, seed) = (&self.cfg, self.runs, self.seed);
        let summary = Summary::from_runs(&figures, cfg.output_bytes);
        let one = (runs == 1).then(|| &figures[0]);
        let text = match self.format {
            Format::Table => table(cfg, runs, seed, &summary, one),
            Format::Json => {
                let out = Output {
                    schema_version: 1,
                    simulator: "stencil",
                    inputs: inputs(cfg),
                    runs,
                    seed,
                    figures: &summary,
                    tasks_per_worker: one.map(|f| f.tasks_per_worker.as_slice()),
                };
                serde_json::to_string_pretty(&out)
                    .map(|s| s + "\n")
                    .map_err(|e| CliError::Internal(e.to_string()))?
            }
        };
        Ok(merge::Output::text(text))
    }
}

//! `ckpt simulate periodic|replicated`: the Monte Carlo ground truth of docs/simulation.md §1 and §2.
//!
//! The arguments are validated here into the simulators' configs; the figures come back as plain
//! structs and are rendered as a table or as JSON.

use super::merge::ShardArg;
use super::parse;
use super::{CliError, Format, Progress};
use ckpt::failure::{Lifetime, Shape};
use ckpt::job::{Job, Simulate, SimulateReplicated, Simulation};
use ckpt::report::simulate::{PeriodicInputs, ReplicatedInputs};
use ckpt::sim::periodic::{Failures, PeriodicConfig};
use ckpt::sim::replicated::{Detect, ReplicatedConfig};
use ckpt::sim::run::{Scenario, SimError};
use ckpt::sim::trace::{IndexColumn, TraceError, parse_trace};
use ckpt::units::{Nanos, ns_to_secs};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::sync::Arc;

/// `ckpt simulate`: one of the simulators.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  ckpt simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 500h\n  \
ckpt simulate replicated --mtbf 1h --cost 60s --procs 8 --replicas 2 --detect end --interval 6m --work 100h\n\n\
Every simulator takes --runs (default 1000), --seed (default 42), --threads, --format table|json \
and --quiet; the same seed gives the same JSON bytes whatever the thread count. --shard I/N runs \
slice I of N of the runs and prints it for `ckpt merge`, which gives the same bytes again."
)]
pub struct SimulateArgs {
    /// Which simulator.
    #[command(subcommand)]
    pub simulator: Simulator,
}

impl SimulateArgs {
    /// True when `--quiet` asks for no progress bar.
    pub fn quiet(&self) -> bool {
        self.simulator.exec().quiet
    }
}

impl Simulator {
    /// How the chosen simulator runs.
    fn exec(&self) -> &ExecArgs {
        match self {
            Simulator::Periodic(a) => &a.common.exec,
            Simulator::Replicated(a) => &a.common.exec,
            Simulator::Stencil(a) => &a.exec,
            Simulator::Multilevel(a) => &a.exec,
        }
    }
}

/// The simulators.
#[derive(Debug, Subcommand)]
pub enum Simulator {
    /// Periodic checkpointing of one coordinated job (the setting of Young's and Daly's models).
    #[command(
        after_help = "Examples:\n  ckpt simulate periodic --mtbf 6h --cost 5m --restart 10m --interval 57m --work 500h\n  \
ckpt simulate periodic --nodes 131072 --node-mtbf 5y --cost 5m --restart 10m --interval 12m --work 168h --walltime 700h\n  \
ckpt simulate periodic --trace failures.csv --cost 5m --interval 1h --work 100h --format json\n  \
ckpt simulate periodic --mtbf 3h --cost 60s --interval 1099 --work 100h --async-write 10m --async-slowdown 0.1\n  \
ckpt simulate periodic --mtbf 6h --cost 5m --restart 5m --interval 3457 --work 1000h --walltime 24h --signal-lead 300"
    )]
    Periodic(PeriodicArgs),
    /// Replicated inter-dependent processes (the volunteer-grid model).
    #[command(
        after_help = "Examples:\n  ckpt simulate replicated --mtbf 1h --cost 60s --procs 8 --replicas 2 --detect end --interval 6m --work 100h\n  \
ckpt simulate replicated --mtbf 1h --cost 60s --procs 8 --replicas 2 --detect immediate --restart 2m --heartbeat 30s --interval 6m --work 100h\n  \
ckpt simulate replicated --mtbf 1h --dist weibull:0.7 --aging --cost 60s --procs 8 --replicas 2 --interval 6m --work 100h"
    )]
    Replicated(ReplicatedArgs),
    /// Task-based 1-D stencil with checkpoint levels and global or dependency-aware rollback.
    #[command(
        after_help = "Examples:\n  ckpt simulate stencil --config data/paper/rollback.ini --level 6 --recovery dependency\n  \
ckpt simulate stencil --width 256 --rows 256 --workers 128 --level 6 --process-cost 7.1 --backup-cost 0.0013 --recovery dependency --mtbf 30m --runs 200\n  \
ckpt simulate stencil --width 256 --rows 256 --workers 128 --level 1 --process-cost 7.1 --backup-cost 0.0013 --trace data/paper/five-failures.csv"
    )]
    Stencil(Box<super::stencil::StencilArgs>),
    /// Multi-level checkpointing: levels of increasing cost, a nested pattern of strides.
    #[command(
        after_help = "Examples:\n  ckpt simulate multilevel --level cost=5s,restart=10s,mtbf=3h,name=local \\\n    --level cost=30s,restart=60s,mtbf=24h,name=partner --level cost=600s,restart=900s,mtbf=7d,name=pfs \\\n    --interval 291s --strides 1,7,91 --work 500h\n  \
ckpt simulate multilevel --level cost=5s,mtbf=1h --level cost=60s,mtbf=1d --level cost=10m,mtbf=1w --interval 10m --strides -,1,16 --work 100h --format csv\n\n\
--strides: one per --level, the lowest used 1, each used one a multiple of the used one below, - for a level left out."
    )]
    Multilevel(super::multilevel::SimulateMultilevelArgs),
}

/// How a simulator runs: flags every simulator takes. Each declares its own `--format`
/// beside them, since the multi-level simulator also writes CSV.
#[derive(Debug, Clone, Args)]
pub struct ExecArgs {
    /// Worker threads (0 or absent: all cores); the results do not depend on it.
    #[arg(long, value_name = "N", value_parser = super::parse::threads)]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub shard: ShardArg,
}

/// The runs of the periodic and replicated simulators.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Replications (default 1000; 1 with a trace, which makes every run the same).
    #[arg(long, value_name = "N", value_parser = parse::runs(1, MAX_RUNS))]
    pub runs: Option<u64>,
    /// Seed of the random streams (run i uses stream i of this seed; default 42; not with a
    /// trace, which draws nothing).
    #[arg(long, value_parser = super::parse::whole::<u64>)]
    pub seed: Option<u64>,
    /// table or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub exec: ExecArgs,
}

/// The job the periodic and the replicated simulators run.
#[derive(Debug, Args)]
pub struct JobArgs {
    /// Computation the job needs (e.g. 500h).
    #[arg(long, value_name = "DURATION", value_parser = parse::nanos)]
    pub work: Nanos,
    /// Work between checkpoints (e.g. 57m); required, except with `simulate periodic --schedule`.
    #[arg(long, value_name = "DURATION", value_parser = parse::nanos)]
    pub interval: Option<Nanos>,
    /// Time one checkpoint takes (e.g. 5m).
    #[arg(long, value_name = "DURATION", value_parser = parse::exact0)]
    pub cost: parse::ExactDuration,
    /// Failure inter-arrival (periodic) or replica lifetime (replicated) distribution: exp,
    /// weibull:K, gamma:K or lognormal:SIGMA, its mean the MTBF.
    #[arg(long)]
    pub dist: Option<String>,
    /// Also report the fraction of runs finished within this wall time.
    #[arg(long, value_name = "DURATION", value_parser = parse::nanos)]
    pub walltime: Option<Nanos>,
}

/// The job that runs `config` as `common` and the command line `args` say.
fn simulate_job<C: Simulation>(
    config: C,
    inputs: C::Inputs,
    runs: u64,
    common: &RunArgs,
    args: &[String],
) -> Simulate<C> {
    let (seed, format) = (
        common.seed.unwrap_or(super::DEFAULT_SEED),
        common.format.into(),
    );
    let args = args.to_vec();
    Simulate {
        config,
        inputs,
        runs,
        seed,
        format,
        args,
    }
}

/// `ckpt simulate periodic`.
#[derive(Debug, Args)]
pub struct PeriodicArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub job: JobArgs,
    /// Time one restart takes; a failure during it starts it again.
    #[arg(long, value_name = "DURATION", default_value = "0", value_parser = parse::nanos0)]
    pub restart: Nanos,
    /// MTBF of the whole job (system MTBF).
    #[arg(long, value_name = "DURATION", value_parser = parse::duration)]
    pub mtbf: Option<f64>,
    /// Nodes the job runs on (with --node-mtbf, or with a trace whose lines name nodes).
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<u64>)]
    pub nodes: Option<u64>,
    /// MTBF of one node.
    #[arg(long, value_name = "DURATION", value_parser = parse::duration)]
    pub node_mtbf: Option<f64>,
    /// How many of the nodes have a redundant partner (0 to --nodes).
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<u64>)]
    pub partners: Option<u64>,
    /// Failure trace: `time_seconds` lines, or `time_seconds,node` with --nodes (`-`: standard
    /// input).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Drop the checkpoint after the last segment.
    #[arg(long)]
    pub no_final_checkpoint: bool,
    /// Checkpoint on a schedule instead of --interval: the work between checkpoints after each
    /// restart, comma-separated (e.g. 600,1200,1800), the last repeating (docs/simulation.md §1.1).
    #[arg(long, value_name = "D,D,...", value_parser = parse::schedule)]
    pub schedule: Option<parse::Schedule>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub finite: super::finite::SimFiniteArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: RunArgs,
}

/// `ckpt simulate replicated`.
#[derive(Debug, Args)]
pub struct ReplicatedArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub job: JobArgs,
    /// MTBF of one host, i.e. of one replica.
    #[arg(long, value_name = "DURATION", value_parser = parse::duration)]
    pub mtbf: f64,
    /// Processes, all needed for the job to advance.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = super::parse::whole::<u64>)]
    pub procs: u64,
    /// Replicas of each process.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = super::parse::whole::<u64>)]
    pub replicas: u64,
    /// When a lost process is noticed: end or immediate.
    #[arg(long, default_value = "end", value_parser = super::parse::detect())]
    pub detect: Detect,
    /// With --detect immediate: time before the retry starts.
    #[arg(long, value_name = "DURATION", value_parser = parse::nanos0)]
    pub restart: Option<Nanos>,
    /// With --detect immediate: a loss is noticed this long after the last replica dies.
    #[arg(long, value_name = "DURATION", value_parser = parse::nanos0)]
    pub heartbeat: Option<Nanos>,
    /// Surviving replicas keep their age across intervals (only recreated ones start fresh).
    #[arg(long)]
    pub aging: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: RunArgs,
}

/// Validates the chosen simulator's arguments into its job; `args` is the canonical command
/// line after `ckpt`, which a shard records for messages. Returns the job, the shard to run
/// and the thread count.
pub fn job(
    sim: Simulator,
    args: &[String],
) -> Result<(Job, Option<ckpt::job::shard::Shard>, usize), CliError> {
    let exec = sim.exec();
    let (shard, threads) = (exec.shard.shard, exec.threads.unwrap_or(0));
    let job = match sim {
        Simulator::Periodic(a) => periodic_job(a, args)?,
        Simulator::Replicated(a) => Job::SimulateReplicated(replicated_job(a, args)?),
        Simulator::Stencil(a) => Job::SimulateStencil(super::stencil::job(&a, args)?),
        Simulator::Multilevel(a) => super::multilevel::simulate_job(a, args)?,
    };
    Ok((job, shard, threads))
}

/// Runs the chosen simulator and returns the text to print: the figures, or with `--shard`
/// the slice's shard file. `argv` is the command line after `ckpt`.
pub fn run(
    args: SimulateArgs,
    argv: &[String],
    progress: &dyn Progress,
) -> Result<String, CliError> {
    let (job, shard, threads) = job(args.simulator, &ckpt::job::shard::canonical_args(argv))?;
    Ok(super::run_job(&job, shard, threads, progress)?.text)
}

fn lifetime(dist: Option<&str>, mean: f64, mean_arg: &'static str) -> Result<Lifetime, CliError> {
    let shape = match dist {
        Some(d) => Shape::parse(d).map_err(|e| CliError::Invalid {
            arg: "--dist",
            value: d.to_string(),
            accepted: e.to_string(),
        })?,
        None => Shape::Exponential,
    };
    Lifetime::new(shape, mean).map_err(|e| match e {
        ckpt::failure::FailureError::Mean { .. } => CliError::Invalid {
            arg: mean_arg,
            value: mean.to_string(),
            accepted: e.to_string(),
        },
        // The family's own limits: the shape is what to change.
        _ => CliError::Invalid {
            arg: "--dist",
            value: shape.to_string(),
            accepted: e.to_string(),
        },
    })
}

/// Most replications one command runs.
pub const MAX_RUNS: u64 = 10_000_000;

/// `--runs`, or its default: one run when every run is the same.
fn runs_of(common: &RunArgs, deterministic: bool) -> u64 {
    common.runs.unwrap_or(if deterministic { 1 } else { 1000 })
}

pub fn sim_error(e: SimError) -> CliError {
    match e {
        SimError::Invalid {
            field,
            value,
            accepted,
        } => CliError::Invalid {
            arg: flag_name(field),
            value,
            accepted,
        },
        SimError::Conflict(m) => CliError::Conflict(m),
        SimError::NoProgress(m) => CliError::NoAnswer(m),
    }
}

fn flag_name(field: &'static str) -> &'static str {
    match field {
        "work" => "--work",
        "interval" => "--interval",
        "walltime" => "--walltime",
        "nodes" => "--nodes",
        "node-mtbf" => "--node-mtbf",
        "partners" => "--partners",
        "procs" => "--procs",
        "replicas" => "--replicas",
        "async-write" => "--async-write",
        "async-slowdown" => "--async-slowdown",
        "signal-lead" => "--signal-lead",
        "schedule" => "--schedule",
        "runs" => "--runs",
        "points" => "--points",
        other => other,
    }
}

fn trace_error(e: TraceError) -> CliError {
    CliError::Conflict(format!("--trace {e}"))
}

fn conflict(text: &str) -> CliError {
    CliError::Conflict(text.to_string())
}

fn periodic_job(a: PeriodicArgs, args: &[String]) -> Result<Job, CliError> {
    let JobArgs {
        work,
        interval,
        cost,
        walltime,
        ..
    } = a.job;
    let cost = cost.ns;
    let chunks = a.schedule.map(|s| s.0);
    let interval = match (&chunks, interval) {
        (Some(_), Some(_)) => {
            return Err(conflict(
                "--schedule conflicts with --interval: give the one period or the schedule",
            ));
        }
        (Some(c), None) => c[0],
        (None, Some(i)) => i,
        (None, None) => return Err(conflict("--interval is required (or --schedule)")),
    };
    let restart = a.restart;
    let partners = a.partners.unwrap_or(0);
    if a.partners.is_some() && a.nodes.is_none() {
        return Err(conflict(
            "--partners needs --nodes (and --node-mtbf or --trace)",
        ));
    }
    if a.node_mtbf.is_some() && a.nodes.is_none() {
        return Err(conflict("--node-mtbf needs --nodes"));
    }
    if let Some(0) = a.nodes {
        return Err(CliError::Invalid {
            arg: "--nodes",
            value: "0".into(),
            accepted: "a whole number of nodes, at least 1".into(),
        });
    }
    let mut inputs = PeriodicInputs {
        work_s: ns_to_secs(work),
        interval_s: ns_to_secs(interval),
        cost_s: ns_to_secs(cost),
        restart_s: ns_to_secs(restart),
        mtbf_s: None,
        nodes: a.nodes,
        node_mtbf_s: None,
        partners,
        dist: None,
        trace: None,
        trace_failures: None,
        final_checkpoint: !a.no_final_checkpoint,
        walltime_s: walltime.map(ns_to_secs),
        async_write_s: None,
        async_slowdown: None,
        signal_lead_s: None,
        schedule_s: None,
    };
    let failures = match (&a.trace, a.mtbf, a.node_mtbf) {
        (Some(path), None, None) => {
            if a.job.dist.is_some() {
                return Err(conflict(
                    "--dist does not apply to --trace: the trace gives the failure times",
                ));
            }
            if a.common.seed.is_some() {
                return Err(conflict(
                    "--seed does not apply to --trace: the trace gives the failure times and nothing is drawn",
                ));
            }
            if let Some(n) = a.nodes
                && partners > n
            {
                return Err(CliError::Invalid {
                    arg: "--partners",
                    value: partners.to_string(),
                    accepted: format!("a whole number from 0 to --nodes ({n})"),
                });
            }
            let column = match a.nodes {
                None => IndexColumn::Forbidden,
                Some(n) => {
                    let count = usize::try_from(n.saturating_add(partners)).unwrap_or(usize::MAX);
                    if partners > 0 {
                        IndexColumn::Required {
                            name: "node",
                            count,
                        }
                    } else {
                        IndexColumn::Optional {
                            name: "node",
                            count,
                        }
                    }
                }
            };
            let text = super::input::read_text("--trace", path, "trace file")?;
            let trace =
                parse_trace(&text, &super::input::name_of(path), column).map_err(trace_error)?;
            inputs.trace = Some(super::input::name_of(path));
            inputs.trace_failures = Some(trace.rows.len());
            Failures::Trace {
                trace: Arc::new(trace),
                nodes: a.nodes,
                partners,
            }
        }
        (None, Some(m), None) => {
            if a.nodes.is_some() {
                return Err(conflict(
                    "--nodes goes with --node-mtbf (or a trace), not with --mtbf",
                ));
            }
            let life = lifetime(a.job.dist.as_deref(), m, "--mtbf")?;
            inputs.mtbf_s = Some(life.mean());
            inputs.dist = Some(life.shape());
            Failures::Platform(life)
        }
        (None, None, Some(m)) => {
            let nodes = a.nodes.unwrap_or(1);
            let node = lifetime(a.job.dist.as_deref(), m, "--node-mtbf")?;
            inputs.node_mtbf_s = Some(m);
            inputs.dist = Some(node.shape());
            if node.shape().is_exponential() {
                let platform = ckpt::model::platform::Nodes {
                    count: nodes,
                    node_mtbf_s: m,
                };
                inputs.mtbf_s = Some(platform.system_mtbf());
            }
            Failures::Nodes {
                node,
                nodes,
                partners,
            }
        }
        _ => {
            return Err(conflict(
                "give exactly one failure source: --mtbf, --nodes with --node-mtbf, or --trace",
            ));
        }
    };
    let mut cfg = PeriodicConfig {
        work,
        interval,
        cost,
        restart,
        failures,
        final_checkpoint: !a.no_final_checkpoint,
        walltime,
        asynchronous: None,
        signal_lead: None,
    };
    a.finite.apply(&mut cfg, &mut inputs)?;
    if let Some(chunks) = chunks {
        inputs.schedule_s = Some(chunks.iter().map(|&c| ns_to_secs(c)).collect());
        let runs = runs_of(&a.common, cfg.is_deterministic());
        let sched = ckpt::sim::periodic::ScheduleConfig { base: cfg, chunks };
        sched.validate().map_err(sim_error)?;
        return Ok(Job::SimulateSchedule(simulate_job(
            sched, inputs, runs, &a.common, args,
        )));
    }
    cfg.validate().map_err(sim_error)?;
    let runs = runs_of(&a.common, cfg.is_deterministic());
    Ok(Job::SimulatePeriodic(simulate_job(
        cfg, inputs, runs, &a.common, args,
    )))
}

fn replicated_job(a: ReplicatedArgs, args: &[String]) -> Result<SimulateReplicated, CliError> {
    let (work, cost, walltime) = (a.job.work, a.job.cost.ns, a.job.walltime);
    let interval = a
        .job
        .interval
        .ok_or_else(|| conflict("--interval is required"))?;
    let life = lifetime(a.job.dist.as_deref(), a.mtbf, "--mtbf")?;
    if a.detect == Detect::End && (a.restart.is_some() || a.heartbeat.is_some()) {
        return Err(conflict(
            "--restart and --heartbeat go with --detect immediate: with --detect end a loss is found at checkpoint time and retried at once",
        ));
    }
    let restart = a.restart.unwrap_or(0);
    let heartbeat = a.heartbeat.unwrap_or(0);
    let cfg = ReplicatedConfig {
        work,
        interval,
        cost,
        procs: a.procs,
        replicas: a.replicas,
        lifetime: life,
        detect: a.detect,
        restart,
        heartbeat,
        aging: a.aging,
        walltime,
    };
    cfg.validate().map_err(sim_error)?;
    let inputs = ReplicatedInputs {
        work_s: ns_to_secs(work),
        interval_s: ns_to_secs(interval),
        cost_s: ns_to_secs(cost),
        mtbf_s: life.mean(),
        procs: a.procs,
        replicas: a.replicas,
        detect: a.detect,
        restart_s: ns_to_secs(restart),
        heartbeat_s: ns_to_secs(heartbeat),
        dist: life.shape(),
        aging: a.aging,
        walltime_s: walltime.map(ns_to_secs),
    };
    let runs = runs_of(&a.common, false);
    Ok(simulate_job(cfg, inputs, runs, &a.common, args))
}

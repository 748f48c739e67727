//! `ckpt interval`: arguments, their validation into [`IntervalInputs`], and the run.

use super::CliError;
use super::parse::{count, duration, duration0};
use ckpt::encoding::SchemeSummary;
use ckpt::failure::Shape;
use ckpt::interval::{self, IntervalAnswer, IntervalError, IntervalInputs, Nodes, Replication};
use ckpt::model::allocation::AllocationPlan;
use ckpt::model::platform::{CostError, UploadCost};
use ckpt::model::replicated::Detect;
use ckpt::optimize::OptimizeError;
use ckpt::report;
use ckpt::units;
use clap::{Args, ValueEnum};

/// Examples shown under `ckpt interval --help`.
pub const EXAMPLES: &str = "Examples:
  ckpt interval --mtbf 24h --cost 5m --restart 10m
  ckpt interval --nodes 4096 --node-mtbf 5y --cost 5m --restart 10m --format json
  ckpt interval --mtbf 1h --cost 60s --procs 8 --replicas 2 --detect immediate --restart 2m
  ckpt interval --mtbf 24h --cost 10m --restart 10m --dist weibull:0.7    # schedule under Weibull failures
  ckpt interval --mtbf 24h --ckpt-bytes 64GiB --bandwidth 2GB/s --latency 5ms --format env
  ckpt interval --mtbf 3h --cost 60s --async-write 10m --async-slowdown 0.1
  ckpt interval --mtbf 24h --cost 10m --restart 10m --work 10d
  ckpt interval --mtbf 6h --cost 5m --restart 5m --walltime 24h --format slurm
  ckpt interval --mtbf 6h --cost 5m --restart 5m --dist weibull:50 --walltime 24h
  ckpt interval --level cost=5s,restart=10s,mtbf=3h,name=local --level cost=30s,restart=60s,mtbf=24h,name=partner \
      --level cost=600s,restart=900s,mtbf=7d,name=pfs --format scr     # multi-level (also fti, veloc)

Durations are seconds or humantime forms (90s, 5m, 1.5h, 7d, 5y); `M` would be a month and
is refused. Without --procs/--replicas, --mtbf is the MTBF of the whole job; with them it is
the MTBF of one host (one replica).";

/// Output formats of `interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum IntervalFormat {
    /// Aligned table for a person.
    Table,
    /// One JSON object, seconds throughout (schema_version 1).
    Json,
    /// `CKPT_INTERVAL_SECONDS=N` for `eval` in a batch script (with --walltime, the
    /// allocation's, and `CKPT_SIGNAL_LEAD_SECONDS=LEAD`).
    Env,
    /// `SCR_CHECKPOINT_SECONDS=N` for LLNL's SCR (with --level, its checkpoint descriptors).
    Scr,
    /// With --walltime: `#SBATCH --signal=B:USR1@LEAD` and `CKPT_INTERVAL_SECONDS=N`.
    Slurm,
    /// With --level: FTI's `ckpt_l1` .. `ckpt_l4` (minutes).
    Fti,
    /// With --level: VeloC's `ec_interval` and `persistent_interval` (seconds).
    Veloc,
}

fn shape(s: &str) -> Result<Shape, String> {
    Shape::parse(s).map_err(|e| match e {
        ckpt::failure::FailureError::Spec { .. } => {
            "use exp, weibull:K, gamma:K or lognormal:SIGMA with a positive shape".to_string()
        }
        other => other.to_string(),
    })
}

fn bytes(s: &str) -> Result<f64, String> {
    units::parse_bytes(s).map_err(|e| e.to_string())
}

fn bandwidth(s: &str) -> Result<f64, String> {
    units::parse_bandwidth(s).map_err(|e| e.to_string())
}

/// The model flags shared by `interval`, `sweep` and `validate`.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// MTBF of the whole job, or of one host with --procs/--replicas (e.g. 24h).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub mtbf: Option<f64>,
    /// Checkpoint cost delta (e.g. 5m); or give its parts (--ckpt-bytes, --bandwidth, ...).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub cost: Option<f64>,
    /// Restart cost R: reading the checkpoint back.
    #[arg(long, value_name = "DURATION", value_parser = duration0, default_value = "0")]
    pub restart: f64,
    /// Downtime D before a restart, during which nothing fails.
    #[arg(long, value_name = "DURATION", value_parser = duration0, default_value = "0")]
    pub downtime: f64,
    /// Number of nodes; with --node-mtbf gives the system MTBF node-mtbf / nodes.
    #[arg(long, value_name = "N", value_parser = count)]
    pub nodes: Option<u64>,
    /// MTBF of one node (with --nodes).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub node_mtbf: Option<f64>,
    /// Inter-dependent processes n of the replicated model (default 1 with --replicas).
    #[arg(long, value_name = "N", value_parser = count)]
    pub procs: Option<u64>,
    /// Replicas r of each process (default 1 with --procs).
    #[arg(long, value_name = "N", value_parser = super::parse::bounded::<u32>("a replica count", 1, 64))]
    pub replicas: Option<u32>,
    /// When a lost process is acted on: at the next checkpoint, or at once.
    #[arg(long, value_parser = super::parse::detect())]
    pub detect: Option<Detect>,
    /// Lifetime distribution: exp, weibull:K, gamma:K, lognormal:SIGMA; of a host with
    /// --procs/--replicas, else of the job (the renewal model, docs/models.md §13).
    #[arg(long, value_name = "DIST", value_parser = shape)]
    pub dist: Option<Shape>,
    /// The checkpoint cost from its parts instead of --cost.
    #[command(flatten)]
    pub upload: UploadArgs,
    /// The checkpoint cost from an in-memory (diskless) scheme instead (docs/encodings.md §4).
    #[command(flatten)]
    pub scheme: super::encoding::SchemeArgs,
    /// Multi-level checkpointing instead (docs/models.md §12).
    #[command(flatten)]
    pub levels: super::multilevel::LevelArgs,
}

/// The checkpoint cost from its parts, the library's [`UploadCost`]: create + latency +
/// bytes / bandwidth + ack (the volunteer-grid paper's eq. 1).
#[derive(Debug, Clone, Args)]
pub struct UploadArgs {
    /// Checkpoint cost from parts: time to create the checkpoint on the node.
    #[arg(long, value_name = "DURATION", value_parser = duration0)]
    pub create_time: Option<f64>,
    /// Checkpoint cost from parts: latency to the server or partner.
    #[arg(long, value_name = "DURATION", value_parser = duration0)]
    pub latency: Option<f64>,
    /// Checkpoint cost from parts: bytes per checkpoint (e.g. 64GiB).
    #[arg(long, value_name = "BYTES", value_parser = bytes)]
    pub ckpt_bytes: Option<f64>,
    /// Checkpoint cost from parts: bandwidth (e.g. 10GB/s, 100Gbit/s).
    #[arg(long, value_name = "RATE", value_parser = bandwidth)]
    pub bandwidth: Option<f64>,
    /// Checkpoint cost from parts: time to acknowledge the upload.
    #[arg(long, value_name = "DURATION", value_parser = duration0)]
    pub ack_time: Option<f64>,
}

/// `ckpt interval` arguments.
#[derive(Debug, Clone, Args)]
pub struct IntervalArgs {
    /// The model inputs.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Useful work to complete: reports the expected completion time and its standard deviation.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub work: Option<f64>,
    /// Length of one iteration: the interval is given in whole iterations.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub iteration_time: Option<f64>,
    /// Asynchronous checkpoints.
    #[command(flatten)]
    pub asynchronous: super::finite::AsyncArgs,
    /// A fixed allocation.
    #[command(flatten)]
    pub allocation: super::finite::AllocationArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = IntervalFormat::Table)]
    pub format: IntervalFormat,
}

fn conflict(msg: &str) -> CliError {
    CliError::Conflict(msg.to_string())
}

impl ModelArgs {
    /// The checkpoint cost: `--cost`, or the sum of its parts.
    pub fn checkpoint_cost(&self) -> Result<f64, CliError> {
        match (self.cost, self.upload.given()) {
            (Some(_), true) => Err(conflict(
                "--cost conflicts with --create-time/--latency/--ckpt-bytes/--bandwidth/--ack-time: give the cost or its parts",
            )),
            (Some(c), false) => Ok(c),
            (None, false) => Err(conflict(
                "--cost is required (or its parts: --ckpt-bytes with --bandwidth)",
            )),
            (None, true) => self.upload.total(),
        }
    }

    /// The diskless scheme's cost and survival, with `--scheme`; `--procs` is then the number
    /// of computation processors it encodes.
    pub fn scheme_summary(&self) -> Result<Option<SchemeSummary>, CliError> {
        let procs = self.procs.map(|p| usize::try_from(p).unwrap_or(usize::MAX));
        let u = &self.upload;
        self.scheme
            .summary(procs, u.ckpt_bytes, u.bandwidth, u.latency)
    }

    /// Validates the flags into the inputs of the models (without work/iteration settings).
    pub fn inputs(&self) -> Result<IntervalInputs, CliError> {
        let scheme = self.scheme_summary()?;
        // With --scheme, --procs counts the processors the scheme encodes; the replicated
        // model then needs --replicas to say that processes are replicated too.
        let replicated = if scheme.is_some() {
            self.replicas.is_some()
        } else {
            self.procs.is_some() || self.replicas.is_some()
        };
        let (mtbf, nodes) = match (self.mtbf, self.nodes, self.node_mtbf) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return Err(conflict(
                    "--mtbf conflicts with --nodes/--node-mtbf: give one or the other",
                ));
            }
            (Some(m), None, None) => (m, None),
            (None, Some(n), Some(m)) => {
                if replicated {
                    return Err(conflict(
                        "--nodes/--node-mtbf give a system MTBF and do not combine with --procs/--replicas, whose --mtbf is that of one host",
                    ));
                }
                let nodes = Nodes {
                    count: n,
                    node_mtbf_s: m,
                };
                (nodes.system_mtbf(), Some(nodes))
            }
            (None, Some(_), None) => return Err(conflict("--nodes needs --node-mtbf")),
            (None, None, Some(_)) => return Err(conflict("--node-mtbf needs --nodes")),
            (None, None, None) => {
                return Err(conflict("--mtbf is required (or --nodes with --node-mtbf)"));
            }
        };
        if replicated && self.downtime > 0.0 {
            return Err(conflict(
                "--downtime does not apply to --procs/--replicas: the replicated model (docs/models.md §4) and its simulator have no downtime",
            ));
        }
        if !replicated && self.detect.is_some() {
            return Err(conflict(
                "--detect applies to the replicated model: give --procs and/or --replicas",
            ));
        }
        if !replicated && self.dist.is_some() {
            return Err(conflict(if scheme.is_some() {
                "--dist with --scheme applies to the replicated model: give --replicas"
            } else {
                "--dist without --procs/--replicas (one job under renewal failures) is answered by `ckpt interval` only; here give --procs and/or --replicas for the replicated model"
            }));
        }
        let cost = match &scheme {
            None => self.checkpoint_cost()?,
            Some(summary) => {
                if self.cost.is_some()
                    || self.upload.create_time.is_some()
                    || self.upload.ack_time.is_some()
                {
                    return Err(conflict(
                        "--scheme gives the checkpoint cost: drop --cost/--create-time/--ack-time",
                    ));
                }
                summary.cost.total_s
            }
        };
        let replication = replicated.then(|| Replication {
            procs: self.procs.unwrap_or(1),
            replicas: self.replicas.unwrap_or(1),
            detect: self.detect.unwrap_or(Detect::End),
            shape: self.dist.unwrap_or(Shape::Exponential),
        });
        Ok(IntervalInputs {
            mtbf,
            cost,
            restart: self.restart,
            downtime: self.downtime,
            replication,
            work: None,
            iteration_time: None,
            nodes,
            scheme,
            asynchronous: None,
            allocation: None,
        })
    }
}

impl UploadArgs {
    /// True when any part is given.
    pub fn given(&self) -> bool {
        [
            self.create_time,
            self.latency,
            self.ckpt_bytes,
            self.bandwidth,
            self.ack_time,
        ]
        .iter()
        .any(Option::is_some)
    }

    /// The cost the parts add up to (the parts not given count 0); a refusal names the flags
    /// at fault.
    pub fn total(&self) -> Result<f64, CliError> {
        let parts = UploadCost {
            create_s: self.create_time.unwrap_or(0.0),
            latency_s: self.latency.unwrap_or(0.0),
            bytes: self.ckpt_bytes,
            bandwidth: self.bandwidth,
            ack_s: self.ack_time.unwrap_or(0.0),
        };
        parts.total().map_err(|e| match e {
            CostError::SizeWithoutBandwidth => conflict("--ckpt-bytes needs --bandwidth"),
            CostError::BandwidthWithoutSize => conflict("--bandwidth needs --ckpt-bytes"),
            CostError::UploadTooLong {
                bandwidth,
                upload_s,
                ..
            } => CliError::Invalid {
                arg: "--bandwidth",
                value: format!("{bandwidth:e} B/s"),
                accepted: format!(
                    "a bandwidth that uploads --ckpt-bytes within 500 years (this one takes {})",
                    ckpt::units::seconds_in_message(upload_s)
                ),
            },
            CostError::TooLong { total } => CliError::Invalid {
                arg: "--create-time/--latency/--ckpt-bytes/--ack-time",
                value: ckpt::units::seconds_in_message(total),
                accepted: format!("parts that add up to {}", ckpt::units::TOO_LONG),
            },
            CostError::NotPositive { total } => CliError::Invalid {
                arg: "--create-time/--latency/--ckpt-bytes/--ack-time",
                value: format!("{total}"),
                accepted: "parts that add up to a positive checkpoint cost".into(),
            },
        })
    }
}

impl IntervalArgs {
    /// Validates every flag into the library's inputs.
    pub fn inputs(&self) -> Result<IntervalInputs, CliError> {
        let mut inputs = self.model.inputs()?;
        inputs.work = self.work;
        inputs.iteration_time = self.iteration_time;
        let allocation = self.allocation.inputs()?;
        if self.format == IntervalFormat::Slurm && allocation.is_none() {
            return Err(super::finite::slurm_needs_walltime());
        }
        super::finite::apply(&mut inputs, self.asynchronous.inputs()?, allocation)?;
        Ok(inputs)
    }
}

/// Maps a library error to what the user sees.
pub fn interval_error(e: IntervalError) -> CliError {
    match e {
        IntervalError::Optimize(OptimizeError::Solver { .. }) => CliError::Internal(e.to_string()),
        IntervalError::Optimize(_) => CliError::NoAnswer(e.to_string()),
        _ => CliError::Conflict(e.to_string()),
    }
}

/// The interval a batch script runs in the allocation: in whole iterations with
/// `--iteration-time`, as without an allocation.
fn allocation_interval(answer: &IntervalAnswer, p: &AllocationPlan) -> f64 {
    answer
        .allocation_iterations
        .map_or(p.interval, |it| it.interval)
}

/// Runs `ckpt interval` and returns what to print.
pub fn run(args: &IntervalArgs) -> Result<String, CliError> {
    if args.model.levels.given() {
        return super::multilevel::interval(args);
    }
    if let (true, Some(shape)) = (super::renewal::applies(args), args.model.dist) {
        return super::renewal::interval(args, shape);
    }
    let inputs = args.inputs()?;
    let answer = interval::compute(&inputs).map_err(interval_error)?;
    Ok(match args.format {
        IntervalFormat::Table => {
            let mut text = report::interval::table(&answer);
            if let Some(s) = &answer.inputs.scheme {
                text.push('\n');
                text.push_str(&ckpt::report::encoding::summary_lines(s));
            }
            text
        }
        IntervalFormat::Json => report::interval::json(&answer),
        // Inside an allocation the interval to run is the allocation's, whichever format
        // carries it.
        IntervalFormat::Env => match &answer.allocation {
            Some(p) => report::finite::env(allocation_interval(&answer, p), p.signal_lead),
            None => report::interval::env(&answer),
        },
        IntervalFormat::Scr => match &answer.allocation {
            Some(p) => report::interval::scr_seconds(allocation_interval(&answer, p)),
            None => report::interval::scr(&answer),
        },
        IntervalFormat::Slurm => match &answer.allocation {
            Some(p) => report::finite::slurm(allocation_interval(&answer, p), p.signal_lead),
            None => return Err(super::finite::slurm_needs_walltime()),
        },
        IntervalFormat::Fti | IntervalFormat::Veloc => {
            return Err(conflict(
                "--format fti and veloc write multi-level configurations: give the levels with --level",
            ));
        }
    })
}

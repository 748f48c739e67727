//! `ckpt survive`, `ckpt encode` and `ckpt pcg` (docs/encodings.md), and [`SchemeArgs`], the
//! scheme flags `ckpt interval` flattens in to take its checkpoint cost from a scheme.

use super::{CliError, Progress};
use ckpt::encoding::codec::{Codec, bit_exact, erase, relative_error};
use ckpt::encoding::cost::{SchemeSummary, default_survival_rows, scheme_summary};
use ckpt::encoding::matrix::{MATRIX_STREAM, MatrixKind};
use ckpt::encoding::pcg::{PcgConfig, PcgRun, run_pcg};
use ckpt::encoding::scheme::{SchemeKind, SchemeSpec};
use ckpt::encoding::survival::try_survival;
use ckpt::encoding::{CostParams, EncodingError};
use ckpt::rng::{run_rng, standard_normal};
use ckpt::units::format_duration;
use clap::{Args, ValueEnum};
use rand::RngExt;
use serde::Serialize;
use std::fmt::Write as _;

impl From<EncodingError> for CliError {
    fn from(e: EncodingError) -> CliError {
        match e {
            EncodingError::Invalid {
                arg,
                value,
                accepted,
            } => CliError::Invalid {
                arg,
                value,
                accepted,
            },
            EncodingError::Unrecoverable { .. } | EncodingError::Diverged(_) => {
                CliError::NoAnswer(e.to_string())
            }
            EncodingError::Shape(_) => CliError::Internal(e.to_string()),
        }
    }
}

/// Output format of these commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned text for a person.
    Table,
    /// One JSON object.
    Json,
}

fn parse_scheme(s: &str) -> Result<SchemeKind, String> {
    s.parse::<SchemeKind>()
        .map_err(|_| format!("accepted: {}", ckpt::encoding::scheme::SCHEME_NAMES))
}

fn parse_matrix(s: &str) -> Result<MatrixKind, String> {
    s.parse::<MatrixKind>()
        .map_err(|_| "accepted: gaussian, vandermonde or cauchy".to_string())
}

/// Reads `a..b` (inclusive) or a single count.
pub fn parse_count_range(arg: &'static str, text: &str) -> Result<(usize, usize), CliError> {
    let bad = || CliError::Invalid {
        arg,
        value: text.to_string(),
        accepted: "a count (`3`) or an inclusive range (`0..8`)".to_string(),
    };
    let num = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
    match text.split_once("..") {
        Some((a, b)) => {
            let b = b.strip_prefix('=').unwrap_or(b);
            let (a, b) = (num(a)?, num(b)?);
            if a > b { Err(bad()) } else { Ok((a, b)) }
        }
        None => {
            let k = num(text)?;
            Ok((k, k))
        }
    }
}

fn sci(v: f64) -> String {
    if v == 0.0 {
        "0".to_string()
    } else {
        format!("{v:.3e}")
    }
}

fn opt_sci(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), sci)
}

fn to_json<T: Serialize>(v: &T) -> Result<String, CliError> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| CliError::Internal(e.to_string()))
}

/// The scheme and its sizes, as every command here takes them.
#[derive(Debug, Clone, Args)]
pub struct SchemeSizeArgs {
    /// mirror, ring, pair, checksum, checksum-1d, weighted or weighted-1d.
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: SchemeKind,
    /// Computation processors n.
    #[arg(long)]
    pub procs: usize,
    /// Groups g (checksum-1d and weighted-1d only; must divide --procs).
    #[arg(long)]
    pub groups: Option<usize>,
    /// Weighted checksums m (per group for weighted-1d).
    #[arg(long)]
    pub checksums: Option<usize>,
}

impl SchemeSizeArgs {
    fn spec(&self) -> Result<SchemeSpec, CliError> {
        Ok(SchemeSpec::new(
            self.scheme,
            self.procs,
            self.groups,
            self.checksums,
        )?)
    }
}

// ---------------------------------------------------------------------------------------------
// survive

/// `ckpt survive`: the probability that a scheme's in-memory checkpoint survives k
/// simultaneous failures (docs/encodings.md §2).
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Example:\n  ckpt survive --scheme checksum-1d --procs 64 --groups 8 --failures 0..8"
)]
pub struct SurviveArgs {
    #[command(flatten)]
    pub scheme: SchemeSizeArgs,
    /// Simultaneous failures: a count (`2`) or an inclusive range (`0..8`).
    #[arg(long, default_value = "0..4")]
    pub failures: String,
    /// table or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Serialize)]
struct SurviveInputs {
    scheme: SchemeKind,
    procs: usize,
    groups: usize,
    checksums: usize,
    total_procs: usize,
}

#[derive(Serialize)]
struct SurviveRow {
    failures: usize,
    survival: f64,
}

#[derive(Serialize)]
struct SurviveOut {
    schema_version: u32,
    command: &'static str,
    inputs: SurviveInputs,
    rows: Vec<SurviveRow>,
}

/// Runs `ckpt survive` and returns the text to print.
pub fn run_survive(args: &SurviveArgs, _progress: &dyn Progress) -> Result<String, CliError> {
    let spec = args.scheme.spec()?;
    let (lo, hi) = parse_count_range("--failures", &args.failures)?;
    if hi - lo >= 100_000 {
        return Err(CliError::Invalid {
            arg: "--failures",
            value: args.failures.clone(),
            accepted: "a range of at most 100000 failure counts".into(),
        });
    }
    let rows = (lo..=hi)
        .map(|k| {
            Ok(SurviveRow {
                failures: k,
                survival: try_survival(&spec, k)?,
            })
        })
        .collect::<Result<Vec<_>, EncodingError>>()?;
    match args.format {
        Format::Json => to_json(&SurviveOut {
            schema_version: 1,
            command: "survive",
            inputs: SurviveInputs {
                scheme: spec.kind,
                procs: spec.procs,
                groups: spec.groups,
                checksums: spec.checksums,
                total_procs: spec.total_procs(),
            },
            rows,
        }),
        Format::Table => {
            let mut s = format!("{spec} ({} processors in all)\n", spec.total_procs());
            s.push_str("failures  survival\n");
            for r in rows {
                let p = if r.survival > 0.0 && r.survival < 1e-4 {
                    format!("{:.3e}", r.survival)
                } else {
                    format!("{:.6}", r.survival)
                };
                let _ = writeln!(s, "{:>8}  {p}", r.failures);
            }
            Ok(s)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// encode

/// `ckpt encode`: encode random checkpoints with a scheme, fail processors, rebuild them, and
/// report the condition number of each recovery system and the error of the rebuilt data.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "Processors 0..n-1 compute; n.. are the scheme's extra (mirror or checksum) \
processors. --fail K draws K distinct processors among all of them from the seed.\n\nExample:\n  \
ckpt encode --scheme weighted --procs 16 --checksums 4 --fail 3 --matrix vandermonde"
)]
pub struct EncodeArgs {
    #[command(flatten)]
    pub scheme: SchemeSizeArgs,
    /// Number of processors that fail together, chosen from the seed.
    #[arg(long, conflicts_with = "fail_set")]
    pub fail: Option<usize>,
    /// The failed processors, as a list (`0,5,9`).
    #[arg(long, value_delimiter = ',')]
    pub fail_set: Option<Vec<usize>>,
    /// Checkpoint matrix of the weighted schemes: gaussian, vandermonde or cauchy.
    #[arg(long, value_parser = parse_matrix, default_value = "gaussian")]
    pub matrix: MatrixKind,
    /// f64 values per checkpoint.
    #[arg(long, default_value_t = 1024)]
    pub len: usize,
    /// Seeds the Gaussian matrix, the data and the failed set.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// table or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Stream of the seed the checkpoint data of `ckpt encode` are drawn from.
const DATA_STREAM: u64 = MATRIX_STREAM + 1;
/// Stream the failed set of `ckpt encode --fail K` is drawn from.
const FAIL_STREAM: u64 = MATRIX_STREAM + 2;

/// The result of one encode/fail/recover experiment.
#[derive(Debug, Clone, Serialize)]
pub struct EncodeOutcome {
    /// Failed processors (computation and extra), sorted.
    pub failed: Vec<usize>,
    /// Whether the scheme rebuilt them.
    pub recoverable: bool,
    /// Computation processors rebuilt.
    pub rebuilt: Vec<usize>,
    /// Processors whose redundancy was re-encoded.
    pub reencoded: Vec<usize>,
    /// The systems solved, one per group with lost data.
    pub solves: Vec<ckpt::encoding::codec::GroupSolve>,
    /// Largest condition number of the recovery systems.
    pub condition_number: Option<f64>,
    /// Largest effective condition number (`||A[S,:]|| / sigma_min(A[S,F])`).
    pub effective_condition_number: Option<f64>,
    /// Relative Frobenius error of the rebuilt checkpoints.
    pub relative_error: Option<f64>,
    /// Largest absolute error of a rebuilt value.
    pub max_abs_error: Option<f64>,
    /// Rebuilt bit for bit.
    pub bit_exact: Option<bool>,
    /// What a null means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Encodes standard-normal checkpoints (`len` values each, from `seed`), erases the `failed`
/// processors, rebuilds them and measures the result.
pub fn encode_experiment(
    codec: &Codec,
    len: usize,
    seed: u64,
    failed: &[usize],
) -> Result<EncodeOutcome, EncodingError> {
    let spec = codec.spec();
    let mut rng = run_rng(seed, DATA_STREAM);
    let orig: Vec<Vec<f64>> = (0..spec.procs)
        .map(|_| (0..len).map(|_| standard_normal(&mut rng)).collect())
        .collect();
    let held = codec.encode(&orig)?;
    let mut failed = failed.to_vec();
    failed.sort_unstable();
    failed.dedup();
    let (mut locals, mut h) = (orig.clone(), held);
    erase(&mut locals, &mut h, &failed);
    match codec.recover(&mut locals, &mut h, &failed) {
        Ok(report) => {
            let lost: Vec<usize> = report.rebuilt.clone();
            let note = if lost.is_empty() {
                Some("no computation processor failed: only redundancy was re-encoded".to_string())
            } else if report.solves.is_empty() {
                Some("copies, no system solved: condition number not applicable".to_string())
            } else {
                None
            };
            let max_abs = (!lost.is_empty()).then(|| {
                lost.iter()
                    .flat_map(|&p| orig[p].iter().zip(&locals[p]).map(|(a, b)| (a - b).abs()))
                    .fold(0.0, f64::max)
            });
            Ok(EncodeOutcome {
                failed,
                recoverable: true,
                condition_number: report.max_condition_number(),
                effective_condition_number: report.max_effective_condition_number(),
                relative_error: if lost.is_empty() {
                    None
                } else {
                    relative_error(&orig, &locals, &lost)
                },
                max_abs_error: max_abs.filter(|v| v.is_finite()),
                bit_exact: (!lost.is_empty()).then(|| bit_exact(&orig, &locals, &lost)),
                rebuilt: report.rebuilt,
                reencoded: report.reencoded,
                solves: report.solves,
                note,
            })
        }
        Err(EncodingError::Unrecoverable { .. }) => Ok(EncodeOutcome {
            failed,
            recoverable: false,
            rebuilt: vec![],
            reencoded: vec![],
            solves: vec![],
            condition_number: None,
            effective_condition_number: None,
            relative_error: None,
            max_abs_error: None,
            bit_exact: None,
            note: Some(
                "the scheme does not survive this failure set: the stable-storage level restarts"
                    .into(),
            ),
        }),
        Err(e) => Err(e),
    }
}

#[derive(Serialize)]
struct EncodeInputs {
    scheme: SchemeKind,
    procs: usize,
    groups: usize,
    checksums: usize,
    total_procs: usize,
    matrix: Option<MatrixKind>,
    len: usize,
    seed: u64,
}

#[derive(Serialize)]
struct EncodeOut {
    schema_version: u32,
    command: &'static str,
    inputs: EncodeInputs,
    #[serde(flatten)]
    outcome: EncodeOutcome,
}

/// `k` distinct processors among `total`, uniformly, from the seed's failure stream.
fn draw_failures(seed: u64, total: usize, k: usize) -> Vec<usize> {
    let mut rng = run_rng(seed, FAIL_STREAM);
    let mut all: Vec<usize> = (0..total).collect();
    for i in 0..k {
        let j = rng.random_range(i..total);
        all.swap(i, j);
    }
    let mut f = all[..k].to_vec();
    f.sort_unstable();
    f
}

/// Runs `ckpt encode` and returns the text to print.
pub fn run_encode(args: &EncodeArgs, _progress: &dyn Progress) -> Result<String, CliError> {
    let spec = args.scheme.spec()?;
    let total = spec.total_procs();
    // Checkpoints, their copies and the rebuilt set stay within a few GiB.
    let budget = 1usize << 27;
    if args.len == 0 || args.len.saturating_mul(spec.total_procs()) > budget {
        return Err(CliError::Invalid {
            arg: "--len",
            value: args.len.to_string(),
            accepted: format!(
                "between 1 and {} values per checkpoint for {} processors",
                budget / spec.total_procs(),
                spec.total_procs()
            ),
        });
    }
    let failed = match (&args.fail, &args.fail_set) {
        (Some(k), None) => {
            if *k > total {
                return Err(CliError::Invalid {
                    arg: "--fail",
                    value: k.to_string(),
                    accepted: format!(
                        "at most the {total} processors of {spec} (computation and extra)"
                    ),
                });
            }
            draw_failures(args.seed, total, *k)
        }
        (None, Some(set)) => {
            if let Some(bad) = set.iter().find(|&&p| p >= total) {
                return Err(CliError::Invalid {
                    arg: "--fail-set",
                    value: bad.to_string(),
                    accepted: format!(
                        "processor indices 0..{} (computation 0..{}, extra after)",
                        total - 1,
                        spec.procs - 1
                    ),
                });
            }
            set.clone()
        }
        (None, None) => {
            return Err(CliError::Invalid {
                arg: "--fail",
                value: "(missing)".into(),
                accepted: "a failure count (--fail 3) or a failure set (--fail-set 0,5,9)".into(),
            });
        }
        (Some(_), Some(_)) => {
            return Err(CliError::Conflict(
                "give --fail or --fail-set, not both".into(),
            ));
        }
    };
    let codec = Codec::new(spec, args.matrix, args.seed);
    let outcome = encode_experiment(&codec, args.len, args.seed, &failed)?;
    match args.format {
        Format::Json => to_json(&EncodeOut {
            schema_version: 1,
            command: "encode",
            inputs: EncodeInputs {
                scheme: spec.kind,
                procs: spec.procs,
                groups: spec.groups,
                checksums: spec.checksums,
                total_procs: total,
                matrix: codec.matrix_kind(),
                len: args.len,
                seed: args.seed,
            },
            outcome,
        }),
        Format::Table => {
            let mut s = format!("{spec} ({total} processors in all)");
            if let Some(m) = codec.matrix_kind() {
                let _ = write!(s, ", {m} matrix");
            }
            let _ = writeln!(
                s,
                ", {} values per checkpoint, seed {}",
                args.len, args.seed
            );
            let _ = writeln!(s, "failed processors   {:?}", outcome.failed);
            let _ = writeln!(
                s,
                "recoverable         {}",
                if outcome.recoverable { "yes" } else { "no" }
            );
            if outcome.recoverable {
                let _ = writeln!(s, "rebuilt             {:?}", outcome.rebuilt);
                let _ = writeln!(s, "re-encoded          {:?}", outcome.reencoded);
                for g in &outcome.solves {
                    let _ = writeln!(
                        s,
                        "group {:<4} lost {:?} from {} checksum rows, condition number {} (effective {})",
                        g.group,
                        g.failed,
                        g.rows,
                        sci(g.condition_number),
                        sci(g.effective_condition_number)
                    );
                }
                let _ = writeln!(
                    s,
                    "condition number    {}",
                    opt_sci(outcome.condition_number)
                );
                let _ = writeln!(
                    s,
                    "effective condition {}",
                    opt_sci(outcome.effective_condition_number)
                );
                let _ = writeln!(s, "relative error      {}", opt_sci(outcome.relative_error));
                let _ = writeln!(s, "max abs error       {}", opt_sci(outcome.max_abs_error));
                let exact = outcome
                    .bit_exact
                    .map_or("-", |b| if b { "yes" } else { "no" });
                let _ = writeln!(s, "bit exact           {exact}");
            }
            if let Some(n) = &outcome.note {
                let _ = writeln!(s, "note: {n}");
            }
            Ok(s)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// pcg

/// `ckpt pcg`: the fault-tolerant conjugate gradient of docs/encodings.md §5, one row per
/// number of simultaneous failures.
#[derive(Debug, Clone, Args)]
#[command(
    after_help = "The k failed processors are computation processors drawn from --seed; a set \
the scheme cannot rebuild restarts CG from the initial guess (the stable-storage level).\n\n\
Example:\n  ckpt pcg --grid 256 --procs 16 --scheme weighted --checksums 3 --every 100 --fail 0..3 --at 150"
)]
pub struct PcgArgs {
    /// Grid side G of the 2-D Poisson problem (G^2 unknowns).
    #[arg(long, default_value_t = 256)]
    pub grid: usize,
    #[command(flatten)]
    pub scheme: SchemeSizeArgs,
    /// Checkpoint every K iterations.
    #[arg(long, default_value_t = 100)]
    pub every: usize,
    /// Simultaneous failures: a count or an inclusive range (`0..3`), one row each.
    #[arg(long, default_value = "0")]
    pub fail: String,
    /// The failures strike after this iteration.
    #[arg(long, default_value_t = 150)]
    pub at: usize,
    /// Stop at this relative residual.
    #[arg(long, default_value_t = 1e-10)]
    pub tol: f64,
    /// Give up after this many iterations.
    #[arg(long, default_value_t = 100_000)]
    pub max_iter: usize,
    /// Checkpoint matrix of the weighted schemes: gaussian, vandermonde or cauchy.
    #[arg(long, value_parser = parse_matrix, default_value = "gaussian")]
    pub matrix: MatrixKind,
    /// Seeds the Gaussian matrix and the failed processors.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// table or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Add the (run-to-run varying) encode and recovery times to the JSON.
    #[arg(long)]
    pub timing: bool,
}

#[derive(Serialize)]
struct PcgInputs {
    grid: usize,
    unknowns: usize,
    scheme: SchemeKind,
    procs: usize,
    groups: usize,
    checksums: usize,
    matrix: Option<MatrixKind>,
    every: usize,
    at: usize,
    tol: f64,
    max_iter: usize,
    seed: u64,
}

#[derive(Serialize)]
struct PcgTiming {
    failures: usize,
    encode_s: f64,
    recover_s: f64,
}

#[derive(Serialize)]
struct PcgOut {
    schema_version: u32,
    command: &'static str,
    inputs: PcgInputs,
    runs: Vec<PcgRun>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Vec<PcgTiming>>,
}

/// The PCG rows as a Markdown table (for the README).
pub fn pcg_markdown(runs: &[PcgRun]) -> String {
    let mut s = String::from(
        "| failures | failed processors | iterations | executed | final residual norm | relative residual | recovery error | condition number | effective condition | encode | recover |\n\
         |---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in runs {
        let failed = if r.failed.is_empty() {
            "-".to_string()
        } else {
            r.failed
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let rec = if r.failures > 0 && r.failure_injected && !r.recovered {
            "unrecoverable".to_string()
        } else {
            opt_sci(r.recovery_error)
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.failures,
            failed,
            r.iterations,
            r.executed_iterations,
            sci(r.final_residual_norm),
            sci(r.final_relative_residual),
            rec,
            opt_sci(r.condition_number),
            opt_sci(r.effective_condition_number),
            format_duration(r.encode_s),
            if r.failure_injected {
                format_duration(r.recover_s)
            } else {
                "-".into()
            },
        );
    }
    s
}

/// Runs `ckpt pcg` and returns the text to print.
pub fn run_pcg_command(args: &PcgArgs, progress: &dyn Progress) -> Result<String, CliError> {
    let spec = args.scheme.spec()?;
    let (lo, hi) = parse_count_range("--fail", &args.fail)?;
    if !(args.tol.is_finite() && args.tol > 0.0 && args.tol < 1.0) {
        return Err(CliError::Invalid {
            arg: "--tol",
            value: args.tol.to_string(),
            accepted: "a relative residual between 0 and 1".into(),
        });
    }
    if args.grid > 2048 {
        return Err(CliError::Invalid {
            arg: "--grid",
            value: args.grid.to_string(),
            accepted: "a grid side between 2 and 2048".into(),
        });
    }
    let cfg = PcgConfig {
        grid: args.grid,
        scheme: spec,
        matrix: args.matrix,
        seed: args.seed,
        every: args.every,
        at: args.at,
        tol: args.tol,
        max_iter: args.max_iter,
    };
    cfg.validate()?;
    if hi > spec.procs {
        return Err(CliError::Invalid {
            arg: "--fail",
            value: args.fail.clone(),
            accepted: format!(
                "failure counts up to the {} computation processors",
                spec.procs
            ),
        });
    }
    progress.start("pcg", (hi - lo + 1) as u64);
    let mut runs = Vec::new();
    for k in lo..=hi {
        runs.push(run_pcg(&cfg, k)?);
        progress.tick();
    }
    progress.finish();
    let matrix = Codec::new(spec, args.matrix, args.seed).matrix_kind();
    match args.format {
        Format::Json => to_json(&PcgOut {
            schema_version: 1,
            command: "pcg",
            inputs: PcgInputs {
                grid: args.grid,
                unknowns: args.grid * args.grid,
                scheme: spec.kind,
                procs: spec.procs,
                groups: spec.groups,
                checksums: spec.checksums,
                matrix,
                every: args.every,
                at: args.at,
                tol: args.tol,
                max_iter: args.max_iter,
                seed: args.seed,
            },
            timing: args.timing.then(|| {
                runs.iter()
                    .map(|r| PcgTiming {
                        failures: r.failures,
                        encode_s: r.encode_s,
                        recover_s: r.recover_s,
                    })
                    .collect()
            }),
            runs,
        }),
        Format::Table => {
            let mut s = format!(
                "PCG (Jacobi) on the {g}x{g} Poisson grid ({} unknowns), {spec}, checkpoint every {} iterations, failures after iteration {}, tol {:e}\n",
                args.grid * args.grid,
                args.every,
                args.at,
                args.tol,
                g = args.grid
            );
            for r in &runs {
                if r.failures > 0 && !r.failure_injected {
                    let _ = writeln!(
                        s,
                        "note: with {} failures the solver converged before iteration {}",
                        r.failures, args.at
                    );
                }
                if !r.converged {
                    let _ = writeln!(
                        s,
                        "note: with {} failures the solver stopped at --max-iter unconverged",
                        r.failures
                    );
                }
            }
            s.push_str(&pcg_markdown(&runs));
            Ok(s)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// the scheme flags of `ckpt interval`

/// Scheme flags for `ckpt interval`: the checkpoint cost then comes from the scheme's cost
/// model (docs/encodings.md §4). `--procs` belongs to the interval command (it is also the
/// replicated model's process count) and is passed to [`SchemeArgs::to_cost_input`].
#[derive(Debug, Clone, Default, Args)]
pub struct SchemeArgs {
    /// Take the checkpoint cost from a diskless scheme: mirror, ring, pair, checksum,
    /// checksum-1d, weighted or weighted-1d (needs --procs, --ckpt-bytes, --bandwidth).
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: Option<SchemeKind>,
    /// Groups of the checksum-1d and weighted-1d schemes (must divide --procs).
    #[arg(long)]
    pub groups: Option<usize>,
    /// Weighted checksums m (per group for weighted-1d).
    #[arg(long)]
    pub checksums: Option<usize>,
    /// Floating-point rate per processor, operations per second (`1e10`; default: arithmetic
    /// not counted).
    #[arg(long)]
    pub flops: Option<f64>,
}

impl SchemeArgs {
    /// The validated scheme and cost inputs, or `None` when no `--scheme` was given (then
    /// none of the other scheme flags may be given either). `procs` is the interval
    /// command's `--procs`.
    ///
    /// `--ckpt-bytes`, `--bandwidth` and `--latency` belong to the interval command's
    /// checkpoint-cost flags, which without `--scheme` add up to the volunteer-grid paper's
    /// cost; they are passed in already parsed.
    pub fn to_cost_input(
        &self,
        procs: Option<usize>,
        ckpt_bytes: Option<f64>,
        bandwidth: Option<f64>,
        latency: Option<f64>,
    ) -> Result<Option<(SchemeSpec, CostParams)>, CliError> {
        let Some(kind) = self.scheme else {
            let given: Vec<&str> = [
                ("--groups", self.groups.is_some()),
                ("--checksums", self.checksums.is_some()),
                ("--flops", self.flops.is_some()),
            ]
            .into_iter()
            .filter(|(_, g)| *g)
            .map(|(n, _)| n)
            .collect();
            if given.is_empty() {
                return Ok(None);
            }
            return Err(CliError::Conflict(format!(
                "{} need --scheme",
                given.join(", ")
            )));
        };
        let missing = |arg: &'static str, what: &str| CliError::Invalid {
            arg,
            value: "(missing)".into(),
            accepted: format!("{what}, required with --scheme"),
        };
        let procs =
            procs.ok_or_else(|| missing("--procs", "the number of computation processors"))?;
        let spec = SchemeSpec::new(kind, procs, self.groups, self.checksums)?;
        let bytes_per_proc = ckpt_bytes
            .ok_or_else(|| missing("--ckpt-bytes", "a checkpoint size per processor (`1GiB`)"))?;
        let bandwidth =
            bandwidth.ok_or_else(|| missing("--bandwidth", "a bandwidth (`10GB/s`)"))?;
        let latency = latency.unwrap_or(0.0);
        let params = CostParams {
            bytes_per_proc,
            bandwidth,
            latency,
            flops: self.flops,
        };
        params.validate()?;
        Ok(Some((spec, params)))
    }

    /// [`SchemeArgs::to_cost_input`] and the summary (cost and survival of 1, 2, ...
    /// failures) the interval report shows beside its answer.
    pub fn summary(
        &self,
        procs: Option<usize>,
        ckpt_bytes: Option<f64>,
        bandwidth: Option<f64>,
        latency: Option<f64>,
    ) -> Result<Option<SchemeSummary>, CliError> {
        match self.to_cost_input(procs, ckpt_bytes, bandwidth, latency)? {
            None => Ok(None),
            Some((spec, params)) => Ok(Some(scheme_summary(
                &spec,
                &params,
                default_survival_rows(&spec),
            )?)),
        }
    }
}

/// Lines for a table report of a [`SchemeSummary`]: the checkpoint cost and the survival
/// probabilities.
pub fn summary_lines(s: &SchemeSummary) -> String {
    let mut out = format!(
        "in-memory checkpoint: {} ({} processors in all)\n",
        s.scheme, s.total_procs
    );
    let _ = write!(out, "checkpoint cost {}", format_duration(s.cost.total_s));
    if let Some(r) = &s.cost.reduction {
        let algo = match r.algorithm {
            ckpt::encoding::ReductionAlgorithm::Tree => "tree",
            ckpt::encoding::ReductionAlgorithm::Pipeline => "pipelined",
        };
        let _ = write!(
            out,
            " ({} {algo} reduction(s) over {} processors)",
            r.reductions, r.group_procs
        );
    } else {
        out.push_str(" (one neighbour transfer)");
    }
    out.push('\n');
    let probs: Vec<String> = s
        .survival
        .iter()
        .map(|r| format!("{}: {:.6}", r.failures, r.probability))
        .collect();
    let _ = writeln!(
        out,
        "survives k simultaneous failures with probability  {}",
        probs.join("  ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_count_range("--failures", "0..8").unwrap(), (0, 8));
        assert_eq!(parse_count_range("--failures", "0..=8").unwrap(), (0, 8));
        assert_eq!(parse_count_range("--failures", "3").unwrap(), (3, 3));
        assert!(parse_count_range("--failures", "5..2").is_err());
        assert!(parse_count_range("--failures", "x").is_err());
        assert!(parse_count_range("--failures", "-1..2").is_err());
    }

    #[test]
    fn scheme_args_for_interval() {
        const GIB: Option<f64> = Some(1073741824.0);
        const BW: Option<f64> = Some(1e10);
        let none = SchemeArgs::default();
        assert!(
            none.to_cost_input(Some(64), None, None, None)
                .unwrap()
                .is_none()
        );
        let stray = SchemeArgs {
            checksums: Some(4),
            ..Default::default()
        };
        assert!(matches!(
            stray.to_cost_input(Some(64), None, None, None),
            Err(CliError::Conflict(_))
        ));
        let a = SchemeArgs {
            scheme: Some(SchemeKind::Weighted),
            checksums: Some(4),
            flops: Some(1e10),
            ..Default::default()
        };
        let (spec, p) = a
            .to_cost_input(Some(64), GIB, BW, Some(5e-6))
            .unwrap()
            .unwrap();
        assert_eq!(spec.total_procs(), 68);
        assert_eq!(p.bytes_per_proc, 1073741824.0);
        assert!((p.latency - 5e-6).abs() < 1e-18);
        assert!(matches!(
            a.to_cost_input(None, GIB, BW, None),
            Err(CliError::Invalid { arg: "--procs", .. })
        ));
        assert!(matches!(
            a.to_cost_input(Some(64), GIB, None, None),
            Err(CliError::Invalid {
                arg: "--bandwidth",
                ..
            })
        ));
        let s = a.summary(Some(64), GIB, BW, Some(5e-6)).unwrap().unwrap();
        assert_eq!(s.survival.len(), 7);
        assert_eq!(s.survival[3].probability, 1.0);
        assert_eq!(s.survival[4].probability, 0.0);
        assert!(summary_lines(&s).contains("4 pipelined reduction(s) over 65 processors"));
        let odd = SchemeArgs {
            scheme: Some(SchemeKind::Pair),
            checksums: None,
            ..a
        };
        assert!(matches!(
            odd.to_cost_input(Some(63), GIB, BW, None),
            Err(CliError::Invalid { arg: "--procs", .. })
        ));
    }
}

//! `ckpt survive`, `ckpt encode` and `ckpt pcg` (docs/encodings.md), and [`SchemeArgs`], the
//! scheme flags `ckpt interval` flattens in to take its checkpoint cost from a scheme.

use super::{CliError, Format, Progress};
use ckpt::encoding::codec::Codec;
use ckpt::encoding::cost::{SchemeSummary, default_survival_rows, scheme_summary};
use ckpt::encoding::experiment::{draw_failures, encode_experiment};
use ckpt::encoding::matrix::MatrixKind;
use ckpt::encoding::pcg::{MAX_GRID, PcgConfig, run_pcg};
use ckpt::encoding::scheme::{SchemeKind, SchemeSpec};
use ckpt::encoding::survival::survival_range;
use ckpt::encoding::{CostParams, EncodingError};
use ckpt::report::encoding::{self as report, EncodeInputs, PcgInputs, SurviveRow};
use clap::Args;

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
            EncodingError::Missing { arg, needed } => CliError::Missing { arg, needed },
            EncodingError::Unrecoverable { .. }
            | EncodingError::IllConditioned { .. }
            | EncodingError::Diverged(_) => CliError::NoAnswer(e.to_string()),
            EncodingError::Shape(_) => CliError::Internal(e.to_string()),
        }
    }
}

fn parse_scheme(s: &str) -> Result<SchemeKind, String> {
    s.parse::<SchemeKind>()
        .map_err(|_| format!("accepted: {}", ckpt::encoding::scheme::SCHEME_NAMES))
}

// Range checked here, not after parsing, so that a refusal quotes what was typed (`1e400`),
// not the infinity it reads as.
fn flops(s: &str) -> Result<f64, String> {
    real(
        s,
        |v| v.is_finite() && v > 0.0,
        "a positive, finite rate of operations per second (`1e10`)",
    )
}

fn residual(s: &str) -> Result<f64, String> {
    real(
        s,
        |v| v > 0.0 && v < 1.0,
        "a relative residual between 0 and 1 (`1e-10`)",
    )
}

/// A number that `admits` takes; `accepted` says which.
fn real(s: &str, admits: impl Fn(f64) -> bool, accepted: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if admits(v) => Ok(v),
        Ok(_) => Err(accepted.into()),
        Err(_) => Err(format!("`{s}` is not a number: {accepted}")),
    }
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
    let num = |s: &str| {
        super::parse::whole::<usize>(s).map_err(|e| CliError::Invalid {
            arg,
            value: text.to_string(),
            accepted: format!("{e}: a count (`3`) or an inclusive range (`0..8`)"),
        })
    };
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

/// The scheme and its sizes, as every command here takes them.
#[derive(Debug, Clone, Args)]
pub struct SchemeSizeArgs {
    /// mirror, ring, pair, checksum, checksum-1d, weighted or weighted-1d.
    #[arg(long, value_parser = parse_scheme)]
    pub scheme: SchemeKind,
    /// Computation processors n.
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<usize>)]
    pub procs: usize,
    /// The scheme's groups and checksums.
    #[command(flatten)]
    pub shape: SchemeShapeArgs,
}

impl SchemeSizeArgs {
    fn spec(&self) -> Result<SchemeSpec, CliError> {
        self.shape.spec(self.scheme, self.procs)
    }

    /// The checkpoint matrix: `--matrix` (default gaussian), which only the weighted schemes
    /// have, so that a matrix given to another scheme is refused rather than ignored.
    fn matrix(&self, matrix: Option<MatrixKind>) -> Result<MatrixKind, CliError> {
        match (self.scheme, matrix) {
            (SchemeKind::Weighted | SchemeKind::Weighted1d, m) => {
                Ok(m.unwrap_or(MatrixKind::Gaussian))
            }
            (_, None) => Ok(MatrixKind::Gaussian),
            (kind, Some(_)) => Err(CliError::Conflict(format!(
                "--matrix applies to the weighted schemes (weighted, weighted-1d): {kind} has no checkpoint matrix"
            ))),
        }
    }
}

/// The sizes a scheme takes beside its processors, shared by `survive`, `encode`, `pcg` and
/// the scheme flags of `interval`.
#[derive(Debug, Clone, Default, Args)]
pub struct SchemeShapeArgs {
    /// Groups g (checksum-1d and weighted-1d only; must divide --procs).
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<usize>)]
    pub groups: Option<usize>,
    /// Weighted checksums m (per group for weighted-1d).
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<usize>)]
    pub checksums: Option<usize>,
}

impl SchemeShapeArgs {
    /// The validated scheme `kind` on `procs` computation processors with these sizes.
    fn spec(&self, kind: SchemeKind, procs: usize) -> Result<SchemeSpec, CliError> {
        Ok(SchemeSpec::new(kind, procs, self.groups, self.checksums)?)
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
    #[arg(long, default_value = SURVIVE_DEFAULT_FAILURES)]
    pub failures: String,
    /// table or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `survive --failures` when not given (cut at the scheme's processor count).
const SURVIVE_DEFAULT_FAILURES: &str = "0..4";

/// Runs `ckpt survive` and returns the text to print.
pub fn run_survive(args: &SurviveArgs, progress: &dyn Progress) -> Result<String, CliError> {
    let spec = args.scheme.spec()?;
    let (lo, mut hi) = parse_count_range("--failures", &args.failures)?;
    if args.failures == SURVIVE_DEFAULT_FAILURES {
        // The default range stops at the scheme's size: a count nobody typed is not refused.
        hi = hi.min(spec.total_procs());
    }
    if hi - lo >= ckpt::encoding::survival::MAX_SURVIVAL_COUNTS {
        return Err(CliError::Invalid {
            arg: "--failures",
            value: args.failures.clone(),
            accepted: format!(
                "a range of at most {} failure counts",
                ckpt::encoding::survival::MAX_SURVIVAL_COUNTS
            ),
        });
    }
    let rows = survival_range(&spec, lo, hi, progress)?
        .into_iter()
        .zip(lo..=hi)
        .map(|(survival, failures)| SurviveRow { failures, survival })
        .collect();
    Ok(report::survive(&spec, rows, args.format.into()))
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
    #[arg(long, value_name = "K", conflicts_with = "fail_set", value_parser = super::parse::whole::<usize>)]
    pub fail: Option<usize>,
    /// The failed processors, as a list (`0,5,9`).
    #[arg(long, value_name = "P,...", value_delimiter = ',', value_parser = processor)]
    pub fail_set: Option<Vec<usize>>,
    /// Checkpoint matrix of the weighted schemes: gaussian, vandermonde or cauchy (default
    /// gaussian).
    #[arg(long, value_parser = parse_matrix)]
    pub matrix: Option<MatrixKind>,
    /// f64 values per checkpoint.
    #[arg(long, value_name = "N", default_value_t = 1024, value_parser = super::parse::whole::<usize>)]
    pub len: usize,
    /// Seeds the Gaussian matrix, the data and the failed set.
    #[arg(long, default_value_t = super::DEFAULT_SEED, value_parser = super::parse::whole::<u64>)]
    pub seed: u64,
    /// table or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// One item of `--fail-set`: a processor index.
fn processor(s: &str) -> Result<usize, String> {
    const LIST: &str = "give processor indices separated by commas (0,5,9)";
    if s.trim().is_empty() {
        return Err(format!("an empty item: {LIST}"));
    }
    super::parse::whole::<usize>(s).map_err(|e| format!("{e}: {LIST}"))
}

/// Runs `ckpt encode` and returns the text to print.
pub fn run_encode(args: &EncodeArgs, progress: &dyn Progress) -> Result<String, CliError> {
    let spec = args.scheme.spec()?;
    let total = spec.total_procs();
    ckpt::encoding::experiment::check_size(&spec, args.len)?;
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
            draw_failures(args.seed, total, *k)?
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
            let mut sorted = set.clone();
            sorted.sort_unstable();
            if let Some(twice) = sorted.windows(2).find(|w| w[0] == w[1]) {
                return Err(CliError::Invalid {
                    arg: "--fail-set",
                    value: set
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(","),
                    accepted: format!("distinct processor indices ({} is listed twice)", twice[0]),
                });
            }
            set.clone()
        }
        (None, None) => {
            return Err(CliError::Missing {
                arg: "--fail",
                needed: "a failure count (--fail 3) or a failure set (--fail-set 0,5,9)".into(),
            });
        }
        (Some(_), Some(_)) => {
            return Err(CliError::Conflict(
                "give --fail or --fail-set, not both".into(),
            ));
        }
    };
    let codec = Codec::new(spec, args.scheme.matrix(args.matrix)?, args.seed)?;
    let outcome = encode_experiment(&codec, args.len, args.seed, &failed, progress)?;
    let inputs = EncodeInputs::new(&spec, codec.matrix_kind(), args.len, args.seed);
    Ok(report::encode(&spec, inputs, outcome, args.format.into()))
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
    #[arg(long, value_name = "N", default_value_t = 256, value_parser = super::parse::whole::<usize>)]
    pub grid: usize,
    #[command(flatten)]
    pub scheme: SchemeSizeArgs,
    /// Checkpoint every K iterations.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = super::parse::whole::<usize>)]
    pub every: usize,
    /// Simultaneous failures: a count or an inclusive range (`0..3`), one row each.
    #[arg(long, default_value = "0")]
    pub fail: String,
    /// The failures strike after this iteration (default 150; with failures only).
    #[arg(long, value_name = "N", value_parser = super::parse::whole::<usize>)]
    pub at: Option<usize>,
    /// Stop at this relative residual.
    #[arg(long, value_name = "RESIDUAL", default_value_t = 1e-10, value_parser = residual)]
    pub tol: f64,
    /// Give up after this many iterations.
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = super::parse::whole::<usize>)]
    pub max_iter: usize,
    /// Checkpoint matrix of the weighted schemes: gaussian, vandermonde or cauchy (default
    /// gaussian).
    #[arg(long, value_parser = parse_matrix)]
    pub matrix: Option<MatrixKind>,
    /// Seeds the Gaussian matrix and the failed processors.
    #[arg(long, default_value_t = super::DEFAULT_SEED, value_parser = super::parse::whole::<u64>)]
    pub seed: u64,
    /// table or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Add the (run-to-run varying) encode and recovery times to the JSON.
    #[arg(long)]
    pub timing: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The iteration after which the failures strike without `--at`.
const DEFAULT_PCG_AT: usize = 150;

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
    if args.grid > MAX_GRID {
        return Err(CliError::Invalid {
            arg: "--grid",
            value: args.grid.to_string(),
            accepted: format!("a grid side between 2 and {MAX_GRID}"),
        });
    }
    if hi == 0 && args.at.is_some() {
        return Err(CliError::Conflict(
            "--at applies when processors fail: give --fail a count or range above 0".into(),
        ));
    }
    let matrix = args.scheme.matrix(args.matrix)?;
    let at = args.at.unwrap_or(DEFAULT_PCG_AT);
    let cfg = PcgConfig {
        grid: args.grid,
        scheme: spec,
        matrix,
        seed: args.seed,
        every: args.every,
        at,
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
    // The library counts runs; the refusal quotes the range as typed.
    cfg.validate_runs(hi - lo + 1).map_err(|e| match e {
        EncodingError::Invalid {
            arg: "--fail",
            accepted,
            ..
        } => CliError::Invalid {
            arg: "--fail",
            value: args.fail.clone(),
            accepted,
        },
        e => e.into(),
    })?;
    progress.start("pcg", (hi - lo + 1) as u64);
    let mut runs = Vec::new();
    for k in lo..=hi {
        runs.push(run_pcg(&cfg, k)?);
        progress.tick();
    }
    progress.finish();
    let inputs = PcgInputs {
        grid: args.grid,
        unknowns: args.grid * args.grid,
        scheme: spec.kind,
        procs: spec.procs,
        groups: spec.groups,
        checksums: spec.checksums,
        matrix: Codec::new(spec, matrix, args.seed)?.matrix_kind(),
        every: args.every,
        at,
        tol: args.tol,
        max_iter: args.max_iter,
        seed: args.seed,
    };
    Ok(report::pcg(
        &spec,
        inputs,
        runs,
        args.timing,
        args.format.into(),
    ))
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
    /// The scheme's groups and checksums.
    #[command(flatten)]
    pub shape: SchemeShapeArgs,
    /// Floating-point rate per processor, operations per second (`1e10`; default: arithmetic
    /// not counted).
    #[arg(long, value_parser = flops)]
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
                ("--groups", self.shape.groups.is_some()),
                ("--checksums", self.shape.checksums.is_some()),
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
        if self.flops.is_some()
            && matches!(
                kind,
                SchemeKind::Mirror | SchemeKind::Ring | SchemeKind::Pair
            )
        {
            return Err(CliError::Conflict(format!(
                "--flops applies to the checksum and weighted schemes, whose reductions add and scale: {kind} only copies"
            )));
        }
        let missing = |arg: &'static str, what: &str| CliError::Missing {
            arg,
            needed: format!("{what}, required with --scheme"),
        };
        let procs =
            procs.ok_or_else(|| missing("--procs", "the number of computation processors"))?;
        let spec = self.shape.spec(kind, procs)?;
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
            shape: SchemeShapeArgs {
                groups: None,
                checksums: Some(4),
            },
            ..Default::default()
        };
        assert!(matches!(
            stray.to_cost_input(Some(64), None, None, None),
            Err(CliError::Conflict(_))
        ));
        let a = SchemeArgs {
            scheme: Some(SchemeKind::Weighted),
            shape: SchemeShapeArgs {
                groups: None,
                checksums: Some(4),
            },
            flops: Some(1e10),
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
            Err(CliError::Missing { arg: "--procs", .. })
        ));
        assert!(matches!(
            a.to_cost_input(Some(64), GIB, None, None),
            Err(CliError::Missing {
                arg: "--bandwidth",
                ..
            })
        ));
        let s = a.summary(Some(64), GIB, BW, Some(5e-6)).unwrap().unwrap();
        assert_eq!(s.survival.len(), 7);
        assert_eq!(s.survival[3].probability, 1.0);
        assert_eq!(s.survival[4].probability, 0.0);
        assert!(
            ckpt::report::encoding::summary_lines(&s)
                .contains("4 pipelined reduction(s) over 65 processors")
        );
        let odd = SchemeArgs {
            scheme: Some(SchemeKind::Pair),
            shape: SchemeShapeArgs::default(),
            flops: None,
        };
        assert!(matches!(
            SchemeArgs { flops: a.flops, ..odd.clone() }.to_cost_input(Some(64), GIB, BW, None),
            Err(CliError::Conflict(m)) if m.contains("--flops")
        ));
        assert!(matches!(
            odd.to_cost_input(Some(63), GIB, BW, None),
            Err(CliError::Invalid { arg: "--procs", .. })
        ));
    }
}

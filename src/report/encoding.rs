//! `ckpt survive`, `ckpt encode` and `ckpt pcg`, and the diskless-scheme block of `ckpt
//! interval`: tables and JSON documents from the encodings' results.

use super::command_document;
use crate::encoding::codec::{Accuracy, GroupSolve};
use crate::encoding::cost::SchemeSummary;
use crate::encoding::experiment::EncodeOutcome;
use crate::encoding::matrix::MatrixKind;
use crate::encoding::pcg::PcgRun;
use crate::encoding::scheme::{SchemeKind, SchemeSpec};
use crate::units::format_duration;
use serde::Serialize;
use std::fmt::Write as _;

use super::Format;

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

/// The scheme as `survive` echoes it.
#[derive(Serialize)]
pub struct SurviveInputs {
    scheme: SchemeKind,
    procs: usize,
    groups: usize,
    checksums: usize,
    total_procs: usize,
}

impl SurviveInputs {
    /// The echo of `spec`.
    pub fn of(spec: &SchemeSpec) -> SurviveInputs {
        SurviveInputs {
            scheme: spec.kind,
            procs: spec.procs,
            groups: spec.groups,
            checksums: spec.checksums,
            total_procs: spec.total_procs(),
        }
    }
}

/// One row of `survive`.
#[derive(Serialize)]
pub struct SurviveRow {
    /// Simultaneous failures.
    pub failures: usize,
    /// Probability that the scheme survives them.
    pub survival: f64,
}

#[derive(Serialize)]
struct SurviveOut {
    inputs: SurviveInputs,
    rows: Vec<SurviveRow>,
}

/// `ckpt survive`'s output.
pub fn survive(spec: &SchemeSpec, rows: Vec<SurviveRow>, format: Format) -> String {
    match format {
        Format::Json => command_document(
            "survive",
            &SurviveOut {
                inputs: SurviveInputs::of(spec),
                rows,
            },
        ),
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
            s
        }
    }
}

/// The experiment as `encode` echoes it.
#[derive(Serialize)]
pub struct EncodeInputs {
    scheme: SchemeKind,
    procs: usize,
    groups: usize,
    checksums: usize,
    total_procs: usize,
    matrix: Option<MatrixKind>,
    len: usize,
    seed: u64,
}

impl EncodeInputs {
    /// The echo of an experiment on `spec` with `matrix`, `len` values per checkpoint and
    /// `seed`.
    pub fn new(spec: &SchemeSpec, matrix: Option<MatrixKind>, len: usize, seed: u64) -> Self {
        EncodeInputs {
            scheme: spec.kind,
            procs: spec.procs,
            groups: spec.groups,
            checksums: spec.checksums,
            total_procs: spec.total_procs(),
            matrix,
            len,
            seed,
        }
    }
}

/// `ckpt encode`'s JSON: the inputs, then the outcome's fields at the top level.
#[derive(Serialize)]
struct EncodeOut<'a> {
    inputs: EncodeInputs,
    failed: &'a [usize],
    recoverable: bool,
    rebuilt: &'a [usize],
    reencoded: &'a [usize],
    solves: &'a [GroupSolve],
    condition_number: Option<f64>,
    effective_condition_number: Option<f64>,
    relative_error: Option<f64>,
    max_abs_error: Option<f64>,
    bit_exact: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

impl<'a> EncodeOut<'a> {
    fn new(inputs: EncodeInputs, o: &'a EncodeOutcome) -> EncodeOut<'a> {
        let r = o.recovery.as_ref();
        let a = o.accuracy.as_ref();
        EncodeOut {
            inputs,
            failed: &o.failed,
            recoverable: r.is_some(),
            rebuilt: r.map_or(&[], |r| &r.rebuilt),
            reencoded: r.map_or(&[], |r| &r.reencoded),
            solves: r.map_or(&[], |r| &r.solves),
            condition_number: a.and_then(|a| a.condition_number),
            effective_condition_number: a.and_then(|a| a.effective_condition_number),
            relative_error: a.and_then(|a| a.relative_error),
            max_abs_error: a.and_then(|a| a.max_abs_error),
            bit_exact: a.map(|a| a.bit_exact),
            note: o.note.as_deref(),
        }
    }
}

/// `ckpt encode`'s output.
pub fn encode(
    spec: &SchemeSpec,
    inputs: EncodeInputs,
    outcome: EncodeOutcome,
    format: Format,
) -> String {
    match format {
        Format::Json => command_document("encode", &EncodeOut::new(inputs, &outcome)),
        Format::Table => encode_table(spec, &inputs, &outcome),
    }
}

fn encode_table(spec: &SchemeSpec, inputs: &EncodeInputs, outcome: &EncodeOutcome) -> String {
    let mut s = format!("{spec} ({} processors in all)", inputs.total_procs);
    if let Some(m) = inputs.matrix {
        let _ = write!(s, ", {m} matrix");
    }
    let _ = writeln!(
        s,
        ", {} values per checkpoint, seed {}",
        inputs.len, inputs.seed
    );
    let _ = writeln!(s, "failed processors   {:?}", outcome.failed);
    let _ = writeln!(
        s,
        "recoverable         {}",
        if outcome.recovery.is_some() {
            "yes"
        } else {
            "no"
        }
    );
    if let Some(r) = &outcome.recovery {
        let _ = writeln!(s, "rebuilt             {:?}", r.rebuilt);
        let _ = writeln!(s, "re-encoded          {:?}", r.reencoded);
        for g in &r.solves {
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
        let a = outcome.accuracy.as_ref();
        let figure = |f: fn(&Accuracy) -> Option<f64>| opt_sci(a.and_then(f));
        let _ = writeln!(s, "condition number    {}", figure(|a| a.condition_number));
        let _ = writeln!(
            s,
            "effective condition {}",
            figure(|a| a.effective_condition_number)
        );
        let _ = writeln!(s, "relative error      {}", figure(|a| a.relative_error));
        let _ = writeln!(s, "max abs error       {}", figure(|a| a.max_abs_error));
        let exact = a.map_or("-", |a| if a.bit_exact { "yes" } else { "no" });
        let _ = writeln!(s, "bit exact           {exact}");
    }
    if let Some(n) = &outcome.note {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

/// The run as `pcg` echoes it.
#[derive(Serialize)]
pub struct PcgInputs {
    /// Grid side.
    pub grid: usize,
    /// Unknowns (grid squared).
    pub unknowns: usize,
    /// The scheme.
    pub scheme: SchemeKind,
    /// Computation processors.
    pub procs: usize,
    /// Groups.
    pub groups: usize,
    /// Weighted checksums.
    pub checksums: usize,
    /// Checkpoint matrix of the weighted schemes.
    pub matrix: Option<MatrixKind>,
    /// Iterations between checkpoints.
    pub every: usize,
    /// The failures strike after this iteration.
    pub at: usize,
    /// Relative residual to stop at.
    pub tol: f64,
    /// Iterations at most.
    pub max_iter: usize,
    /// Seed of the matrix and the failed processors.
    pub seed: u64,
}

#[derive(Serialize)]
struct PcgTiming {
    failures: usize,
    encode_s: f64,
    recover_s: f64,
}

/// One run in `ckpt pcg`'s JSON.
#[derive(Serialize)]
struct PcgRunOut<'a> {
    failures: usize,
    failed: &'a [usize],
    failure_injected: bool,
    recovered: bool,
    iterations: usize,
    executed_iterations: usize,
    converged: bool,
    final_residual_norm: f64,
    final_relative_residual: f64,
    recovery_error: Option<f64>,
    bit_exact: Option<bool>,
    condition_number: Option<f64>,
    effective_condition_number: Option<f64>,
    checkpoints: usize,
}

impl<'a> PcgRunOut<'a> {
    fn new(r: &'a PcgRun) -> PcgRunOut<'a> {
        let a = r.recovery.as_ref();
        PcgRunOut {
            failures: r.failures,
            failed: &r.failed,
            failure_injected: r.failure_injected,
            recovered: a.is_some(),
            iterations: r.iterations,
            executed_iterations: r.executed_iterations,
            converged: r.converged,
            final_residual_norm: r.final_residual_norm,
            final_relative_residual: r.final_relative_residual,
            recovery_error: a.and_then(|a| a.relative_error),
            bit_exact: a.map(|a| a.bit_exact),
            condition_number: a.and_then(|a| a.condition_number),
            effective_condition_number: a.and_then(|a| a.effective_condition_number),
            checkpoints: r.checkpoints,
        }
    }
}

#[derive(Serialize)]
struct PcgOut<'a> {
    inputs: PcgInputs,
    runs: Vec<PcgRunOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Vec<PcgTiming>>,
}

/// `ckpt pcg`'s output; `timing` adds the run-to-run varying encode and recovery times to the
/// JSON.
pub fn pcg(
    spec: &SchemeSpec,
    inputs: PcgInputs,
    runs: Vec<PcgRun>,
    timing: bool,
    format: Format,
) -> String {
    match format {
        Format::Json => command_document(
            "pcg",
            &PcgOut {
                timing: timing.then(|| {
                    runs.iter()
                        .map(|r| PcgTiming {
                            failures: r.failures,
                            encode_s: r.encode_s,
                            recover_s: r.recover_s,
                        })
                        .collect()
                }),
                inputs,
                runs: runs.iter().map(PcgRunOut::new).collect(),
            },
        ),
        Format::Table => {
            let mut s = format!(
                "PCG (Jacobi) on the {g}x{g} Poisson grid ({} unknowns), {spec}, checkpoint every {} iterations, failures after iteration {}, tol {:e}\n",
                inputs.unknowns,
                inputs.every,
                inputs.at,
                inputs.tol,
                g = inputs.grid
            );
            for r in &runs {
                if r.failures > 0 && !r.failure_injected {
                    let _ = writeln!(
                        s,
                        "note: with {} failures the solver converged before iteration {}",
                        r.failures, inputs.at
                    );
                }
                if !r.converged && r.iterations >= inputs.max_iter {
                    let _ = writeln!(
                        s,
                        "note: with {} failures the solver stopped at --max-iter unconverged",
                        r.failures
                    );
                } else if !r.converged {
                    // CG broke down (a zero or non-finite step) short of --max-iter.
                    let _ = writeln!(
                        s,
                        "note: with {} failures the solver broke down at iteration {} before reaching --tol {:e}, below what double precision reaches on this problem",
                        r.failures, r.iterations, inputs.tol
                    );
                }
            }
            s.push_str(&pcg_markdown(&runs));
            s
        }
    }
}

/// The PCG rows as a Markdown table (for the README).
pub fn pcg_markdown(runs: &[PcgRun]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let failed = if r.failed.is_empty() {
                "-".to_string()
            } else {
                r.failed
                    .iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let a = r.recovery.as_ref();
            let rec = if r.failures > 0 && r.failure_injected && a.is_none() {
                "unrecoverable".to_string()
            } else {
                opt_sci(a.and_then(|a| a.relative_error))
            };
            vec![
                r.failures.to_string(),
                failed,
                r.iterations.to_string(),
                r.executed_iterations.to_string(),
                sci(r.final_residual_norm),
                sci(r.final_relative_residual),
                rec,
                opt_sci(a.and_then(|a| a.condition_number)),
                opt_sci(a.and_then(|a| a.effective_condition_number)),
                format_duration(r.encode_s),
                if r.failure_injected {
                    format_duration(r.recover_s)
                } else {
                    "-".into()
                },
            ]
        })
        .collect();
    super::markdown::table(
        &[
            "failures",
            "failed processors",
            "iterations",
            "executed",
            "final residual norm",
            "relative residual",
            "recovery error",
            "condition number",
            "effective condition",
            "encode",
            "recover",
        ],
        &super::table::Align::columns("rlrrrrrrrrr"),
        &rows,
    )
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
            crate::encoding::ReductionAlgorithm::Tree => "tree",
            crate::encoding::ReductionAlgorithm::Pipeline => "pipelined",
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

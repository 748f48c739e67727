//! `ckpt simulate`: the figures of the periodic, replicated and stencil simulators as an
//! aligned table or as one JSON document (seconds throughout).

use super::table::{Align, ruled};
use super::{Format, simulation_document};
use crate::failure::Shape;
use crate::sim::periodic::PeriodicFigures;
use crate::sim::replicated::ReplicatedFigures;
use crate::sim::stats::Estimate;
use crate::sim::stencil::config::{Failures as StencilFailures, Recovery, StencilConfig};
use crate::sim::stencil::{RunFigures, Summary};
use crate::units::format_duration;
use crate::units::ns_to_secs;
use serde::{Deserialize, Serialize};

/// The JSON document of one simulation.
#[derive(Serialize)]
struct Document<'a, I: Serialize, F: Serialize> {
    inputs: &'a I,
    runs: u64,
    /// Null when nothing is drawn (a trace).
    seed: Option<u64>,
    figures: &'a F,
}

/// The inputs of `simulate periodic` as its JSON echoes them.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PeriodicInputs {
    /// Work to do.
    pub work_s: f64,
    /// Work between checkpoints.
    pub interval_s: f64,
    /// One checkpoint.
    pub cost_s: f64,
    /// One restart.
    pub restart_s: f64,
    /// The system MTBF, when one is given or follows from exponential nodes.
    pub mtbf_s: Option<f64>,
    /// Nodes, when failures are per node.
    pub nodes: Option<u64>,
    /// One node's MTBF.
    pub node_mtbf_s: Option<f64>,
    /// Nodes with a redundant partner.
    pub partners: u64,
    /// The lifetime family.
    pub dist: Option<Shape>,
    /// The trace file, as named (`<stdin>` for `-`).
    pub trace: Option<String>,
    /// Failures in the trace.
    pub trace_failures: Option<usize>,
    /// Whether the job ends with a checkpoint.
    pub final_checkpoint: bool,
    /// The deadline, if any.
    pub walltime_s: Option<f64>,
    /// Asynchronous checkpoints: the background write.
    pub async_write_s: Option<f64>,
    /// Asynchronous checkpoints: the fraction of speed lost while writing.
    pub async_slowdown: Option<f64>,
    /// Allocation mode: the signal's lead before the walltime.
    pub signal_lead_s: Option<f64>,
    /// `--schedule`: the chunks after each restart, the last repeating (`interval_s` is then
    /// the first).
    pub schedule_s: Option<Vec<f64>>,
}

/// The inputs of `simulate replicated` as its JSON echoes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicatedInputs {
    /// Work to do.
    pub work_s: f64,
    /// Work per interval.
    pub interval_s: f64,
    /// One checkpoint.
    pub cost_s: f64,
    /// One host's MTBF.
    pub mtbf_s: f64,
    /// Processes.
    pub procs: u64,
    /// Replicas per process.
    pub replicas: u64,
    /// `end` or `immediate`.
    pub detect: crate::model::replicated::Detect,
    /// Restart after an abandoned attempt.
    pub restart_s: f64,
    /// Delay of the detection.
    pub heartbeat_s: f64,
    /// The lifetime family.
    pub dist: Shape,
    /// Survivors keep their age.
    pub aging: bool,
    /// The deadline, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walltime_s: Option<f64>,
}

/// How a figure reads in a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A duration in seconds, shown as `1h 2m 3s`.
    Duration,
    /// A count: whole when it is one, else to two decimals.
    Count,
    /// A fraction, shown in percent.
    Fraction,
}

pub(crate) fn cell(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Duration if v == 0.0 => "0s".to_string(),
        Unit::Duration => format_duration(v),
        // A whole count (one run, or every run alike) reads as one: `4`, not `4.00`.
        Unit::Count if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v:.0}"),
        Unit::Count => count_decimals(v),
        Unit::Fraction => format!("{:.2}%", v * 100.0),
    }
}

/// A count that is a mean: two decimals (four significant digits from a million on).
fn count_decimals(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{v:.4e}")
    } else {
        format!("{v:.2}")
    }
}

/// `v`, a figure of `e` (its mean, a CI bound or its standard error), as its cell: a count
/// reads whole only when every run agrees (one run, or no spread), so that a mean of counts
/// that differ keeps its decimals even where it happens to be whole (`5.00`, not `5`).
fn figure_cell(v: f64, e: &Estimate, unit: Unit) -> String {
    let alike = e.runs <= 1 || e.stderr == Some(0.0);
    match unit {
        Unit::Count if !alike => count_decimals(v),
        _ => cell(v, unit),
    }
}

/// The 95% CI column: none can be told from one run (its bounds would be the run itself).
pub(crate) fn ci_cell(e: &Estimate, unit: Unit) -> String {
    if e.runs <= 1 {
        return ONE_RUN.to_string();
    }
    format!(
        "{} .. {}",
        figure_cell(e.ci95[0], e, unit),
        figure_cell(e.ci95[1], e, unit)
    )
}

/// `1 run`, `1000 runs`.
pub(crate) fn runs_text(runs: u64) -> String {
    if runs == 1 {
        "1 run".to_string()
    } else {
        format!("{runs} runs")
    }
}

/// What a table shows for an interval that one run cannot give.
pub(crate) const ONE_RUN: &str = "n/a (1 run)";

/// Aligned columns: figure | mean | 95% CI | stderr, under a title line.
pub(crate) fn figure_table(title: &str, rows: &[(&str, Estimate, Unit)]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(name, e, unit)| {
            vec![
                name.to_string(),
                figure_cell(e.point, e, *unit),
                ci_cell(e, *unit),
                e.stderr
                    .map(|s| figure_cell(s, e, *unit))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let align = Align::columns("lrrr");
    format!(
        "{title}\n{}",
        ruled(&["figure", "mean", "95% CI", "stderr"], &align, &cells)
    )
}

/// A simulator's figures as `simulate` prints them: the JSON document serializes them, the
/// table lists [`FigureTable::rows`].
pub trait FigureTable: Serialize {
    /// Every figure the table can list, in order, each with how it reads; the table leaves out
    /// those a run does not have (`None`: node failures without partners, say).
    fn rows(&self) -> Vec<(&'static str, Option<Estimate>, Unit)>;
}

impl FigureTable for PeriodicFigures {
    fn rows(&self) -> Vec<(&'static str, Option<Estimate>, Unit)> {
        vec![
            ("wall time", Some(self.wall_time_s), Unit::Duration),
            ("failures", Some(self.failures), Unit::Count),
            ("node failures", self.node_failures, Unit::Count),
            ("work", Some(self.work_s), Unit::Duration),
            ("checkpoint", Some(self.checkpoint_s), Unit::Duration),
            ("restart", Some(self.restart_s), Unit::Duration),
            ("lost work", Some(self.lost_work_s), Unit::Duration),
            (
                "finished within walltime",
                self.finished_within_walltime,
                Unit::Fraction,
            ),
            ("saved work", self.saved_work_s, Unit::Duration),
        ]
    }
}

impl FigureTable for ReplicatedFigures {
    fn rows(&self) -> Vec<(&'static str, Option<Estimate>, Unit)> {
        vec![
            ("wall time", Some(self.wall_time_s), Unit::Duration),
            ("attempts", Some(self.attempts), Unit::Count),
            ("lost attempts", Some(self.lost_attempts), Unit::Count),
            ("replica deaths", Some(self.replica_deaths), Unit::Count),
            (
                "replicas recreated",
                Some(self.replicas_recreated),
                Unit::Count,
            ),
            (
                "finished within walltime",
                self.finished_within_walltime,
                Unit::Fraction,
            ),
        ]
    }
}

/// `simulate periodic|replicated`'s output: the JSON document, or the figure table under a
/// `SIMULATOR: N runs, seed S` line (`SIMULATOR: N runs, no seed (a trace)` without a seed).
pub fn render<I: Serialize, F: FigureTable>(
    simulator: &'static str,
    inputs: &I,
    figures: &F,
    runs: u64,
    seed: Option<u64>,
    format: Format,
) -> String {
    match format {
        Format::Json => simulation_document(
            simulator,
            &Document {
                inputs,
                runs,
                seed,
                figures,
            },
        ),
        Format::Table => figure_table(
            &match seed {
                Some(seed) => format!("{simulator}: {}, seed {seed}", runs_text(runs)),
                None => format!("{simulator}: {}, no seed (a trace)", runs_text(runs)),
            },
            &figures
                .rows()
                .into_iter()
                .filter_map(|(name, e, unit)| Some((name, e?, unit)))
                .collect::<Vec<_>>(),
        ),
    }
}

#[serde_with::skip_serializing_none]
#[derive(Serialize)]
struct StencilInputs {
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
    mtbf_s: Option<f64>,
    trace_failures: Option<usize>,
    output_bytes: Option<u64>,
}

#[derive(Serialize)]
struct StencilDocument<'a> {
    inputs: StencilInputs,
    runs: u64,
    seed: Option<u64>,
    figures: &'a Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    tasks_per_worker: Option<&'a [u64]>,
}

fn stencil_inputs(cfg: &StencilConfig) -> StencilInputs {
    let (failures, mtbf_s, trace_failures) = match &cfg.failures {
        StencilFailures::None => ("none", None, None),
        StencilFailures::Poisson { mtbf } => ("poisson", Some(ns_to_secs(*mtbf)), None),
        StencilFailures::Trace(v) => ("trace", None, Some(v.len())),
    };
    StencilInputs {
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

/// `simulate stencil`'s output; `one` is the single run's figures when there is one run.
pub fn stencil(
    cfg: &StencilConfig,
    runs: u64,
    seed: Option<u64>,
    summary: &Summary,
    one: Option<&RunFigures>,
    format: Format,
) -> String {
    match format {
        Format::Table => stencil_table(cfg, runs, seed, summary, one),
        Format::Json => simulation_document(
            "stencil",
            &StencilDocument {
                inputs: stencil_inputs(cfg),
                runs,
                seed,
                figures: summary,
                tasks_per_worker: one.map(|f| f.tasks_per_worker.as_slice()),
            },
        ),
    }
}

fn stencil_table(
    cfg: &StencilConfig,
    runs: u64,
    seed: Option<u64>,
    s: &Summary,
    one: Option<&RunFigures>,
) -> String {
    let mut out = String::new();
    let failures = match &cfg.failures {
        StencilFailures::None => "none".to_string(),
        StencilFailures::Poisson { mtbf } => format!(
            "Poisson, MTBF {} s, seed {}",
            ns_to_secs(*mtbf),
            seed.unwrap_or(0)
        ),
        StencilFailures::Trace(v) => format!("trace of {} failures", v.len()),
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
        // Counts (no unit) that are whole, as with one run, read as counts: `5`, not `5.0000`.
        let point = if unit.is_empty() && e.point.fract() == 0.0 && e.point.abs() < 1e15 {
            format!("{:.0}", e.point)
        } else {
            format!("{:.4}", e.point)
        };
        out.push_str(&format!("{name:<26}{point:>16} {unit:<2}{ci}\n"));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_aligned() {
        let e = Estimate::from_samples(&[3600.0, 7200.0]);
        let t = figure_table(
            "t",
            &[
                ("wall time", e, Unit::Duration),
                ("failures", Estimate::from_samples(&[1.0]), Unit::Count),
            ],
        );
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "t");
        assert!(lines[1].starts_with("figure"));
        assert!(lines[3].starts_with("wall time") && lines[3].contains("1h 30m 0s"));
        assert!(lines[4].ends_with('-'), "{}", lines[4]);
        // Every mean ends in the same column.
        let col = |l: &str, s: &str| l.find(s).map(|i| i + s.len());
        assert_eq!(col(lines[1], "mean"), col(lines[3], "1h 30m 0s"));
    }
}

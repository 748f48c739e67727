//! The `fit` answer as a table and as JSON (schema_version 1, seconds throughout).

use super::table::{Align, plain_seconds, render};
use crate::fit::{Advice, AdviceRow, Family, Fit, FitReport, KindCount, NodeCount};
use crate::units::format_duration;
use serde::Serialize;

/// What the report echoes back as its inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitInputs {
    /// The log as named on the command line (`<stdin>` for `-`).
    pub file: String,
    /// Kinds taken for exposure, as given.
    pub exclude_kinds: Vec<String>,
    /// Per-node windows.
    pub per_node: bool,
    /// `--nodes`, if given.
    pub nodes: Option<u64>,
    /// Checkpoint cost (s), if given.
    pub cost_s: Option<f64>,
    /// Restart cost (s).
    pub restart_s: f64,
}

#[derive(Serialize)]
struct JsonObservation {
    events: u64,
    failure_events: u64,
    exposure_events: u64,
    failures_at_window_start: u64,
    failures_simultaneous: u64,
    failure_gaps: u64,
    censored_gaps: u64,
    exposure_s: f64,
    start_s: f64,
    end_s: f64,
    nodes: Option<u64>,
    nodes_seen: Option<u64>,
}

#[derive(Serialize)]
struct JsonMtbf {
    of: &'static str,
    point_s: f64,
    ci95_s: [f64; 2],
    method: &'static str,
    failures: u64,
    exposure_s: f64,
    system_mtbf_s: Option<f64>,
}

#[derive(Serialize)]
struct JsonFit<'a> {
    inputs: &'a FitInputs,
    observation: JsonObservation,
    kinds: &'a [KindCount],
    fits: &'a [Fit],
    best: Option<Family>,
    mtbf: JsonMtbf,
    flags: &'a str,
    flags_exponential: &'a str,
    intervals: &'a [AdviceRow],
}

const CI_METHOD: &str = "time-terminated chi-square: [2T/chi2(0.975; 2r+2), 2T/chi2(0.025; 2r)]";

/// The report as pretty JSON (with a final newline).
pub fn json(inputs: &FitInputs, report: &FitReport, advice: &Advice) -> String {
    let o = &report.observation;
    let doc = JsonFit {
        inputs,
        observation: JsonObservation {
            events: o.events,
            failure_events: o.failure_events,
            exposure_events: o.exposure_events,
            failures_at_window_start: o.failures_at_window_start,
            failures_simultaneous: o.failures_simultaneous,
            failure_gaps: o.sample.failure_count(),
            censored_gaps: o.sample.censored_count(),
            exposure_s: o.sample.exposure(),
            start_s: o.start,
            end_s: o.end,
            nodes: o.per_node.map(|n| n.covered),
            nodes_seen: o.per_node.map(|n| n.seen),
        },
        kinds: &o.kinds,
        fits: &report.fits,
        best: report.best,
        mtbf: JsonMtbf {
            of: if o.per_node.is_some() {
                "node"
            } else {
                "system"
            },
            point_s: report.mtbf.point_s,
            ci95_s: report.mtbf.ci95_s,
            method: CI_METHOD,
            failures: report.mtbf.failures,
            exposure_s: report.mtbf.exposure_s,
            system_mtbf_s: o.per_node.map(|n| report.mtbf.point_s / n.covered as f64),
        },
        flags: &advice.flags,
        flags_exponential: &advice.flags_exponential,
        intervals: &advice.intervals,
    };
    // serde_json writes a non-finite number as null; the fits give none by construction.
    super::command_document("fit", &doc)
}

fn num(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e6) {
        format!("{x:.4e}")
    } else {
        format!("{x:.4}")
    }
}

fn fixed(x: f64, places: usize) -> String {
    if x.abs() >= 1e9 {
        format!("{x:.3e}")
    } else {
        format!("{x:.places$}")
    }
}

fn parameters(f: &Fit) -> String {
    match f.family {
        Family::Exponential => f
            .mean_s
            .map(|m| format!("mean {}", format_duration(m)))
            .unwrap_or_else(|| "-".into()),
        Family::Weibull | Family::Gamma => match (f.shape, f.scale_s) {
            (Some(k), Some(s)) => {
                let ci = f
                    .shape_ci95
                    .map(|[lo, hi]| format!(" [{}, {}]", num(lo), num(hi)))
                    .unwrap_or_default();
                format!("shape {}{ci}, scale {}", num(k), format_duration(s))
            }
            _ => "-".into(),
        },
        Family::LogNormal => match (f.mu, f.sigma) {
            (Some(m), Some(s)) => format!("mu {}, sigma {}", num(m), num(s)),
            _ => "-".into(),
        },
    }
}

/// `--format flags`: the best fit's `ckpt interval` flags, one line, to splice into a command
/// (`ckpt interval $(ckpt fit LOG --format flags) --cost 5m`).
pub fn flags(advice: &Advice) -> String {
    format!("{}\n", advice.flags)
}

/// The report as aligned tables for a person.
pub fn table(inputs: &FitInputs, report: &FitReport, advice: &Advice) -> String {
    let o = &report.observation;
    let s = &o.sample;
    let mut out = String::new();
    out.push_str(&format!(
        "{}: {} events over {} ({} failure, {} exposure); failure gaps {}, censored gaps {}{}\n",
        inputs.file,
        o.events,
        format_duration(o.end - o.start),
        o.failure_events,
        o.exposure_events,
        s.failure_count(),
        s.censored_count(),
        match o.per_node {
            Some(NodeCount { covered, seen }) if covered > seen => {
                format!("; per node: {covered} nodes ({seen} named in the log)")
            }
            Some(n) => format!("; per node: {} nodes", n.covered),
            None => String::new(),
        }
    ));
    let kinds: Vec<String> = o
        .kinds
        .iter()
        .map(|k| format!("{} {} ({})", k.kind, k.events, k.role))
        .collect();
    out.push_str(&format!("kinds: {}\n", kinds.join(", ")));
    if o.failures_at_window_start > 0 {
        out.push_str(&format!(
            "not counted: {} failure events that open the observation or a window (the time before them was not observed)\n",
            o.failures_at_window_start
        ));
    }
    if o.failures_simultaneous > 0 {
        out.push_str(&format!(
            "merged: {} failure events at the same time as the previous failure{} (one interruption)\n",
            o.failures_simultaneous,
            if o.per_node.is_some() {
                " of their node"
            } else {
                ""
            }
        ));
    }
    out.push('\n');

    let header = ["family", "parameters", "mean", "ln L", "AIC", "dAIC", "KS"];
    let align = Align::columns("llrrrrr");
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for f in &report.fits {
        let dash = || "-".to_string();
        rows.push(vec![
            if Some(f.family) == report.best {
                format!("{} *", f.family.name())
            } else {
                f.family.name().to_string()
            },
            parameters(f),
            f.mean_s.map(format_duration).unwrap_or_else(dash),
            f.ln_likelihood.map(|l| fixed(l, 2)).unwrap_or_else(dash),
            f.aic.map(|a| fixed(a, 2)).unwrap_or_else(dash),
            f.delta_aic.map(|a| fixed(a, 2)).unwrap_or_else(dash),
            f.ks.map(|k| format!("{k:.4}")).unwrap_or_else(dash),
        ]);
        if let Some(n) = &f.note {
            notes.push(format!("{}: {n}", f.family.name()));
        }
    }
    out.push_str(&render(&header, &align, &rows));
    for n in notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    out.push_str(
        "  (* best by AIC; KS: largest distance to the Kaplan-Meier cdf; shape interval: profile likelihood 95%)\n\n",
    );

    let m = &report.mtbf;
    let of = if o.per_node.is_some() {
        "node MTBF"
    } else {
        "MTBF"
    };
    out.push_str(&format!(
        "{of} (exponential): {}, 95% CI {} .. {} ({} failures in {} of exposure; time-terminated chi-square)\n",
        format_duration(m.point_s),
        format_duration(m.ci95_s[0]),
        format_duration(m.ci95_s[1]),
        m.failures,
        format_duration(m.exposure_s)
    ));
    if let Some(NodeCount { covered, .. }) = o.per_node {
        out.push_str(&format!(
            "system MTBF of {covered} nodes (exponential): {}\n",
            format_duration(m.point_s / covered as f64)
        ));
    }
    out.push_str(&format!(
        "\nckpt interval flags{}:\n  {}\n",
        report
            .best
            .map(|b| format!(" (best fit: {})", b.name()))
            .unwrap_or_default(),
        advice.flags
    ));
    if advice.flags != advice.flags_exponential {
        out.push_str(&format!("  exponential: {}\n", advice.flags_exponential));
    }
    if advice.intervals.is_empty() {
        out.push_str("\ngive --cost (and --restart) for the recommended intervals\n");
        return out;
    }
    out.push_str(&format!(
        "\nrecommended interval (checkpoint {}, restart {}):\n",
        format_duration(inputs.cost_s.unwrap_or(0.0)),
        format_duration(inputs.restart_s)
    ));
    let header = ["at", "dist", of, "interval", "seconds", "overhead", "model"];
    let align = Align::columns("llrrrrl");
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for r in &advice.intervals {
        rows.push(vec![
            r.at.to_string(),
            r.dist.clone(),
            format_duration(r.mtbf_s),
            r.interval_s
                .map(format_duration)
                .unwrap_or_else(|| "n/a".into()),
            r.interval_s
                .map(|t| format!("{t:.1}"))
                .unwrap_or_else(|| "-".into()),
            r.overhead.map(num).unwrap_or_else(|| "-".into()),
            r.model.unwrap_or("-").to_string(),
        ]);
        if let Some(n) = &r.note {
            notes.push(format!("{}: {n}", r.at));
        }
    }
    out.push_str(&render(&header, &align, &rows));
    for n in notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    if let Some(r) = advice.intervals.iter().find(|r| r.at == "best-fit")
        && let Some(chunks) = &r.schedule_s
    {
        let list: Vec<String> = chunks.iter().map(|&w| plain_seconds(w)).collect();
        out.push_str(&format!(
            "  best-fit: the renewal model's schedule (docs/models.md §13), the work between checkpoints after each restart, the last repeating: {} s\n",
            list.join(" ")
        ));
    } else if advice.intervals.iter().any(|r| r.at == "best-fit") {
        out.push_str(
            "  best-fit: the replicated model with one replica per node, which starts every interval with fresh nodes (docs/models.md §4): pessimistic for a falling hazard (shape below 1), optimistic for a rising one\n",
        );
    }
    out.push_str("flags of each row:\n");
    for r in &advice.intervals {
        out.push_str(&format!("  {:<13} ckpt interval {}\n", r.at, r.flags));
    }
    out
}

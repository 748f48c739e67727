//! The `interval` answer as a table, as JSON (schema_version 1, seconds throughout), and as
//! one-line assignments for batch scripts.

use super::table::{Align, percent, plain_seconds, render, seconds};
use crate::interval::{IntervalAnswer, IntervalInputs, IterationChoice, Nodes, Row, Sensitivity};
use crate::units::{format_duration, whole_seconds};
use serde::Serialize;

/// The inputs as every JSON document echoes them (seconds, counts, names).
#[derive(Serialize)]
pub struct JsonInputs {
    mtbf_s: f64,
    cost_s: f64,
    restart_s: f64,
    downtime_s: f64,
    nodes: Option<Nodes>,
    procs: Option<u64>,
    replicas: Option<u32>,
    detect: Option<String>,
    dist: String,
    work_s: Option<f64>,
    iteration_time_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    scheme: Option<crate::encoding::SchemeSummary>,
    #[serde(flatten)]
    finite: super::finite::FiniteInputsJson,
}

impl JsonInputs {
    /// The echo of `i`.
    pub fn of(i: &IntervalInputs) -> JsonInputs {
        let rep = i.replication;
        JsonInputs {
            mtbf_s: i.mtbf,
            cost_s: i.cost,
            restart_s: i.restart,
            downtime_s: i.downtime,
            nodes: i.nodes,
            procs: rep.map(|r| r.procs),
            replicas: rep.map(|r| r.replicas),
            detect: rep.map(|r| r.detect.to_string()),
            dist: rep
                .map(|r| r.shape.to_string())
                .unwrap_or_else(|| "exp".into()),
            work_s: i.work,
            iteration_time_s: i.iteration_time,
            scheme: i.scheme.clone(),
            finite: super::finite::FiniteInputsJson::of(i),
        }
    }

    /// The echo of `i` for one job whose failures follow `dist` (`--dist` without
    /// replication), which `i` does not carry.
    pub fn of_job(i: &IntervalInputs, dist: String) -> JsonInputs {
        JsonInputs {
            dist,
            ..JsonInputs::of(i)
        }
    }
}

#[derive(Serialize)]
struct JsonAnswer<'a> {
    inputs: JsonInputs,
    mtti_s: Option<f64>,
    models: &'a [Row],
    recommended: &'static str,
    recommended_interval_s: f64,
    recommended_overhead: f64,
    recommended_efficiency: f64,
    completion_s: Option<f64>,
    iterations: Option<IterationChoice>,
    sensitivity: &'a [Sensitivity],
    #[serde(skip_serializing_if = "Option::is_none")]
    whole_chunks: Option<super::finite::WholeChunksJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allocation: Option<super::finite::AllocationJson>,
}

/// The answer as pretty JSON (with a final newline).
pub fn json(answer: &IntervalAnswer) -> String {
    let doc = JsonAnswer {
        inputs: JsonInputs::of(&answer.inputs),
        mtti_s: answer.mtti_s,
        models: &answer.rows,
        recommended: answer.recommended,
        recommended_interval_s: answer.recommended_interval_s,
        recommended_overhead: answer.recommended_overhead,
        recommended_efficiency: 1.0 / answer.recommended_overhead,
        completion_s: answer.completion_s,
        iterations: answer.iterations,
        sensitivity: &answer.sensitivity,
        whole_chunks: answer
            .whole_chunks
            .as_ref()
            .map(super::finite::whole_chunks_json),
        allocation: answer.allocation.as_ref().map(|p| {
            let mut json = super::finite::allocation_json(p);
            json.iterations = answer
                .allocation_iterations
                .as_ref()
                .map(|it| super::finite::iteration_plan_json(it, p));
            json
        }),
    };
    // Every number in the answer is finite by construction (missing figures are null), so
    // serialization cannot fail.
    super::command_document("interval", &doc)
}

/// The recommended interval in whole seconds (at least 1).
pub fn recommended_seconds(answer: &IntervalAnswer) -> u64 {
    whole_seconds(recommended(answer))
}

/// The recommended interval (s): its whole-iteration rounding where there is one.
fn recommended(answer: &IntervalAnswer) -> f64 {
    answer
        .iterations
        .map(|c| c.interval_s)
        .unwrap_or(answer.recommended_interval_s)
}

/// `CKPT_INTERVAL_SECONDS=7001`, for `eval` in a batch script.
pub fn env(answer: &IntervalAnswer) -> String {
    format!("CKPT_INTERVAL_SECONDS={}\n", recommended_seconds(answer))
}

/// `SCR_CHECKPOINT_SECONDS=7001`, the setting LLNL's SCR library reads.
pub fn scr(answer: &IntervalAnswer) -> String {
    scr_seconds(recommended(answer))
}

/// `SCR_CHECKPOINT_SECONDS=` an interval (s) to the nearest second, at least 1: an
/// allocation's, which [`scr`] does not know.
pub fn scr_seconds(interval_s: f64) -> String {
    format!("SCR_CHECKPOINT_SECONDS={}\n", whole_seconds(interval_s))
}

fn num(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e6) {
        format!("{x:.3e}")
    } else {
        format!("{x:.4}")
    }
}

/// The answer as an aligned table for a person.
pub fn table(answer: &IntervalAnswer) -> String {
    let i = &answer.inputs;
    let mut out = String::new();
    let what = match (&i.replication, &i.nodes) {
        (Some(r), _) => format!(
            "{} processes x {} replicas, host MTBF {} ({}), detection {}, MTTI {}",
            r.procs,
            r.replicas,
            format_duration(i.mtbf),
            r.shape,
            r.detect,
            answer
                .mtti_s
                .map(format_duration)
                .unwrap_or_else(|| "-".into())
        ),
        (None, Some(n)) => format!(
            "system MTBF {} ({} nodes of MTBF {})",
            format_duration(i.mtbf),
            n.count,
            format_duration(n.node_mtbf_s)
        ),
        (None, None) => format!("system MTBF {}", format_duration(i.mtbf)),
    };
    out.push_str(&format!(
        "{what}; checkpoint {}, restart {}{}\n\n",
        format_duration(i.cost),
        format_duration(i.restart),
        if i.downtime > 0.0 {
            format!(", downtime {}", format_duration(i.downtime))
        } else {
            String::new()
        }
    ));
    out.push_str(&super::finite::async_lines(i));
    let mut header = vec![
        "model",
        "interval",
        "seconds",
        "overhead",
        "efficiency",
        "loss",
        "failures/interval",
        "method",
    ];
    if i.work.is_some() {
        header.push("completion");
    }
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for r in &answer.rows {
        let mut cells = vec![
            if r.name == answer.recommended {
                format!("{} *", r.name)
            } else {
                r.name.to_string()
            },
            r.interval_s
                .map(format_duration)
                .unwrap_or_else(|| "n/a".into()),
            r.interval_s.map(seconds).unwrap_or_else(|| "-".into()),
            r.overhead.map(num).unwrap_or_else(|| "-".into()),
            r.efficiency
                .map(|e| percent(100.0 * e))
                .unwrap_or_else(|| "-".into()),
            r.loss_pct.map(percent).unwrap_or_else(|| "-".into()),
            r.expected_failures.map(num).unwrap_or_else(|| "-".into()),
            match (r.method, r.converged) {
                (crate::model::Method::ClosedForm, _) => "closed-form".into(),
                (_, Some(false)) => "numerical (not converged)".into(),
                _ => "numerical".into(),
            },
        ];
        if i.work.is_some() {
            cells.push(
                r.completion_s
                    .map(format_duration)
                    .unwrap_or_else(|| "-".into()),
            );
        }
        if let Some(n) = &r.note {
            notes.push(format!("  {}: {}", r.name, n));
        }
        rows.push(cells);
    }
    let align = Align::columns(if i.work.is_some() {
        "lrrrrrrlr"
    } else {
        "lrrrrrrl"
    });
    out.push_str(&render(&header, &align, &rows));
    if !notes.is_empty() {
        out.push_str("notes:\n");
        for n in notes {
            out.push_str(&n);
            out.push('\n');
        }
    }
    out.push_str(&format!(
        "\nrecommended (*): checkpoint every {} ({} s) of work; overhead {}, efficiency {}\n",
        format_duration(answer.recommended_interval_s),
        plain_seconds(answer.recommended_interval_s),
        num(answer.recommended_overhead),
        percent(100.0 / answer.recommended_overhead)
    ));
    if let Some(c) = answer.completion_s {
        out.push_str(&format!(
            "expected completion of {} of work: {}\n",
            format_duration(i.work.unwrap_or(0.0)),
            format_duration(c)
        ));
    }
    if let Some(w) = &answer.whole_chunks {
        out.push_str(&super::finite::whole_chunks_line(w, i.work.unwrap_or(0.0)));
    }
    if let (Some(p), Some(a)) = (&answer.allocation, &i.allocation) {
        out.push_str(&super::finite::allocation_lines(p, a.walltime_s));
        if let Some(it) = &answer.allocation_iterations {
            out.push_str(&super::finite::iteration_plan_line(it, p));
        }
    }
    if let Some(it) = &answer.iterations {
        out.push_str(&format!(
            "in whole iterations: every {} iterations ({}), {} more overhead\n",
            it.iterations,
            format_duration(it.interval_s),
            percent(it.extra_overhead_pct)
        ));
    }
    out.push_str("sensitivity of the recommended interval (if the real value is off):\n");
    let srows: Vec<Vec<String>> = answer
        .sensitivity
        .iter()
        .map(|s| {
            vec![
                format!("{} x{}", s.parameter, s.factor),
                s.overhead.map(num).unwrap_or_else(|| "-".into()),
                s.optimal_overhead.map(num).unwrap_or_else(|| "-".into()),
                s.loss_pct.map(percent).unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let t = render(
        &["if", "overhead", "best possible", "loss"],
        &Align::columns("lrrr"),
        &srows,
    );
    for l in t.lines() {
        out.push_str("  ");
        out.push_str(l);
        out.push('\n');
    }
    out
}

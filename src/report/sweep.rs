//! The sweep report: `sweep.json`, `sweep.csv`, the plots (SVG and PNG) and `report.md`, as
//! bytes; the binary writes them.

use super::interval::JsonInputs;
use super::plot::{Axis, Marker, Plot, Series, Unit};
use crate::interval::Sensitivity;
use crate::sweep::{Curve, SweepParam, SweepPoint, SweepRange, SweepResult};
use crate::units::format_duration;
use serde::Serialize;

/// The values a `sweep.json` was asked for, as every kind of sweep echoes them.
#[derive(Serialize)]
pub(crate) struct JsonRange {
    lo: f64,
    hi: f64,
    log: bool,
    points_requested: usize,
}

impl JsonRange {
    /// The range as `sweep.json` echoes it.
    pub(crate) fn of(r: &SweepRange) -> JsonRange {
        JsonRange {
            lo: r.lo,
            hi: r.hi,
            log: r.log,
            points_requested: r.points,
        }
    }
}

#[derive(Serialize)]
struct JsonSweep<'a> {
    param: SweepParam,
    #[serde(flatten)]
    range: JsonRange,
    inputs: JsonInputs,
    recommended: &'static str,
    recommended_interval_s: f64,
    recommended_overhead: f64,
    points: &'a [SweepPoint],
    overhead_curves: &'a [Curve],
    sensitivity: &'a [Sensitivity],
}

/// `sweep.json`: every row at every point, in seconds.
pub fn json(r: &SweepResult) -> String {
    let doc = JsonSweep {
        param: r.spec.param,
        range: JsonRange::of(&r.spec.range),
        inputs: JsonInputs::of(&r.base.inputs),
        recommended: r.base.recommended,
        recommended_interval_s: r.base.recommended_interval_s,
        recommended_overhead: r.base.recommended_overhead,
        points: &r.points,
        overhead_curves: &r.curves,
        sensitivity: &r.sensitivity,
    };
    super::command_document("sweep", &doc)
}

/// `sweep.csv`: one line per (point, row); empty cells where JSON has null. Numbers are
/// written with Rust's shortest round-trip form, so CSV and JSON agree to the bit.
pub fn csv(r: &SweepResult) -> String {
    let header = "param,value,model,kind,interval_s,overhead,efficiency,loss_pct,expected_failures,recommended";
    let records = r.points.iter().flat_map(|p| {
        p.models.iter().map(move |m| {
            [
                r.spec.param.to_string(),
                format!("{:?}", p.value),
                m.name.to_string(),
                m.kind.to_string(),
                super::csv_cell(m.interval_s),
                super::csv_cell(m.overhead),
                super::csv_cell(m.efficiency),
                super::csv_cell(m.loss_pct),
                super::csv_cell(m.expected_failures),
                (m.name == p.recommended).to_string(),
            ]
        })
    });
    super::csv_document(header, records)
}

fn param_name(param: SweepParam) -> &'static str {
    match param {
        SweepParam::Mtbf => "MTBF",
        SweepParam::Cost => "checkpoint cost",
        SweepParam::Restart => "restart cost",
        SweepParam::Procs => "processes n",
        SweepParam::Replicas => "replicas r",
        SweepParam::Interval => "checkpoint interval",
    }
}

fn param_axis(param: SweepParam, log: bool) -> Axis {
    let label = param_name(param);
    if param.is_duration() {
        Axis {
            label: label.to_string(),
            log,
            unit: Unit::Seconds,
        }
    } else {
        Axis {
            label: label.to_string(),
            log,
            unit: Unit::Plain,
        }
    }
}

fn spans(values: impl Iterator<Item = f64>, ratio: f64) -> bool {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    hi > 0.0 && hi / lo > ratio
}

fn row_names(r: &SweepResult) -> Vec<&str> {
    r.points
        .first()
        .map(|p| p.models.iter().map(|m| m.name.as_ref()).collect())
        .unwrap_or_default()
}

fn per_row(r: &SweepResult, f: impl Fn(&crate::interval::Row) -> Option<f64>) -> Vec<Series> {
    row_names(r)
        .into_iter()
        .map(|name| Series {
            name: name.to_string(),
            points: r
                .points
                .iter()
                .filter_map(|p| {
                    p.models
                        .iter()
                        .find(|m| m.name == name)
                        .and_then(&f)
                        .map(|y| (p.value, y))
                })
                .collect(),
            dashed: false,
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// The optimal interval of every row against the swept parameter.
pub fn interval_plot(r: &SweepResult) -> Plot {
    let series = per_row(r, |m| m.interval_s);
    let log_y = spans(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        20.0,
    );
    Plot {
        id: "interval".into(),
        title: format!(
            "Checkpoint interval of every model vs {}",
            param_name(r.spec.param)
        ),
        x: param_axis(r.spec.param, r.spec.range.log),
        y: Axis::interval(log_y),
        bands: vec![],
        series,
        markers: given_point(r).into_iter().collect(),
        error_bars: vec![],
    }
}

/// The recommended interval at the inputs as given, where they fall inside the sweep.
fn given_point(r: &SweepResult) -> Option<Marker> {
    let i = &r.base.inputs;
    let rep = i.replication;
    let x = match r.spec.param {
        SweepParam::Mtbf => i.mtbf,
        SweepParam::Cost => i.cost,
        SweepParam::Restart => i.restart,
        SweepParam::Procs => rep?.procs as f64,
        SweepParam::Replicas => rep?.replicas as f64,
        SweepParam::Interval => return None,
    };
    (x >= r.spec.range.lo && x <= r.spec.range.hi).then(|| Marker {
        name: format!(
            "optimum at the inputs given ({})",
            format_duration(r.base.recommended_interval_s)
        ),
        x,
        y: r.base.recommended_interval_s,
    })
}

/// The reference model's overhead along the interval at the given inputs, every row's choice
/// marked on it.
pub fn overhead_plot(r: &SweepResult) -> Plot {
    let series: Vec<Series> = r
        .curves
        .iter()
        .map(|c| Series {
            name: format!("{} overhead", c.name),
            points: c.points.clone(),
            dashed: false,
        })
        .collect();
    let markers = r
        .base
        .rows
        .iter()
        .filter_map(|m| match (m.interval_s, m.overhead) {
            (Some(t), Some(o)) => Some(Marker {
                name: format!("{} ({})", m.name, format_duration(t)),
                x: t,
                y: o,
            }),
            _ => None,
        })
        .collect();
    Plot {
        id: "overhead".into(),
        title: "Expected overhead vs checkpoint interval, each model's choice marked".into(),
        x: Axis::interval(true),
        y: overhead_axis(&series),
        bands: vec![],
        series,
        markers,
        error_bars: vec![],
    }
}

/// The loss of every other row against the numerical optimum, per point.
pub fn loss_plot(r: &SweepResult) -> Plot {
    // Losses span many orders of magnitude (1e-11 % for Daly's higher order at small
    // delta/M, tens of percent for Young at large): a log axis, on the rows that lose.
    let floor = 1e-9;
    let mut series = per_row(r, |m| m.loss_pct.filter(|l| *l > floor));
    series.retain(|s| s.points.len() > 1 || r.points.len() == 1);
    Plot {
        id: "loss".into(),
        title: format!(
            "Loss against the numerical optimum vs {}",
            param_name(r.spec.param)
        ),
        x: param_axis(r.spec.param, r.spec.range.log),
        y: Axis {
            label: "extra overhead (% of the optimum's)".into(),
            log: true,
            unit: Unit::Percent,
        },
        bands: vec![],
        series,
        markers: vec![],
        error_bars: vec![],
    }
}

/// The overhead of the recommended interval if the true MTBF or cost is 0.25x to 4x the value
/// given, beside the best possible overhead there.
pub fn sensitivity_plot(r: &SweepResult) -> Plot {
    let pick = |param: &str, best: bool| -> Vec<(f64, f64)> {
        r.sensitivity
            .iter()
            .filter(|s| s.parameter == param)
            .filter_map(|s| {
                (if best { s.optimal_overhead } else { s.overhead }).map(|o| (s.factor, o))
            })
            .collect()
    };
    let series = vec![
        Series {
            name: "true MTBF = factor x given".into(),
            points: pick("mtbf", false),
            dashed: false,
        },
        Series {
            name: "best possible at that MTBF".into(),
            points: pick("mtbf", true),
            dashed: true,
        },
        Series {
            name: "true cost = factor x given".into(),
            points: pick("cost", false),
            dashed: false,
        },
        Series {
            name: "best possible at that cost".into(),
            points: pick("cost", true),
            dashed: true,
        },
    ];
    Plot {
        id: "sensitivity".into(),
        title: format!(
            "Overhead of the recommended {} if an input is off",
            format_duration(r.base.recommended_interval_s)
        ),
        x: Axis {
            label: "true value / value given".into(),
            log: true,
            unit: Unit::Plain,
        },
        y: overhead_axis(&series),
        bands: vec![],
        series,
        markers: vec![Marker {
            name: "as given".into(),
            x: 1.0,
            y: r.base.recommended_overhead,
        }],
        error_bars: vec![],
    }
}

/// Every plot of the sweep, as prepared data.
pub fn plots(r: &SweepResult) -> Vec<Plot> {
    let mut v = Vec::new();
    if r.spec.param != SweepParam::Interval {
        v.push(interval_plot(r));
    }
    v.push(overhead_plot(r));
    v.push(loss_plot(r));
    v.push(sensitivity_plot(r));
    v
}

fn describe(r: &SweepResult) -> String {
    let b = &r.base;
    let param = param_name(r.spec.param);
    let show = |v: f64| {
        if r.spec.param.is_duration() {
            format_duration(v)
        } else {
            format!("{v}")
        }
    };
    let mut text = format!(
        "At the inputs given, `{}` recommends a checkpoint every {} of work (overhead {:.4}, efficiency {:.2}%).",
        b.recommended,
        format_duration(b.recommended_interval_s),
        b.recommended_overhead,
        100.0 / b.recommended_overhead
    );
    if r.spec.param != SweepParam::Interval {
        let opt = |p: &SweepPoint| {
            p.models
                .iter()
                .find(|m| m.name == p.recommended)
                .and_then(|m| m.interval_s)
        };
        if let (Some(first), Some(last)) = (r.points.first(), r.points.last())
            && let (Some(a), Some(z)) = (opt(first), opt(last))
        {
            text.push_str(&format!(
                " As the {param} goes from {} to {}, the optimal interval moves from {} to {} (first plot).",
                show(first.value),
                show(last.value),
                format_duration(a),
                format_duration(z)
            ));
        }
    }
    let worst = r
        .points
        .iter()
        .flat_map(|p| p.models.iter().map(move |m| (p.value, m)))
        .filter(|(_, m)| m.kind == "estimator")
        .filter_map(|(v, m)| m.loss_pct.map(|l| (v, m.name.as_ref(), l)))
        .fold(None, |acc: Option<(f64, &str, f64)>, x| {
            if acc.is_none_or(|a| x.2 > a.2) {
                Some(x)
            } else {
                acc
            }
        });
    if let Some((v, name, l)) = worst {
        text.push_str(&format!(
            " The closed-form estimate that loses most is `{name}`: {l:.3}% more overhead than the optimum at {param} = {}.",
            show(v)
        ));
    }
    let loss_at = |param: &str, f: f64| {
        r.sensitivity
            .iter()
            .find(|s| s.parameter == param && (s.factor - f).abs() < 1e-9)
            .and_then(|s| s.loss_pct)
    };
    if let (Some(m), Some(c)) = (loss_at("mtbf", 0.25), loss_at("cost", 4.0)) {
        text.push_str(&format!(
            " The recommendation is robust to moderate errors in its inputs: if the true MTBF is a quarter of the one given it costs {m:.2}% more than the best interval would, and {c:.2}% if the checkpoint costs four times as much (last plot)."
        ));
    }
    text
}

super::folder!(
    sweep SweepResult,
    "ckpt sweep",
    "Data: `sweep.json` (every row at every point, seconds) and `sweep.csv` (the same, one line per point and row). PNG copies of the plots sit beside the SVG files.\n"
);

/// The line `sweep` prints: the points, the answer at the given inputs, where the report is.
pub fn summary_line(r: &SweepResult, out: &std::path::Path) -> String {
    format!(
        "{} points of {}; recommended at the given inputs: {} ({} s); report in {}\n",
        r.points.len(),
        r.spec.param,
        crate::units::format_duration(r.base.recommended_interval_s),
        super::table::plain_seconds(r.base.recommended_interval_s),
        out.join("report.md").display()
    )
}

/// The overhead axis of `series`, logarithmic when their losses (overhead - 1) span enough
/// decades.
fn overhead_axis(series: &[Series]) -> Axis {
    let losses = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1 - 1.0));
    Axis::overhead(spans(losses, 30.0))
}

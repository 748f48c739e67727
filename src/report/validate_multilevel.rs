//! The multi-level validation report (`validate --level`): the table and verdict, `validate.json`,
//! `validate.csv`, the `validate` and `regret` plots and `report.md`, in the shapes of the
//! single-level report (`report::validate`).

use super::markdown;
use super::multilevel::JsonLevelInputs;
use super::plot::{Axis, Marker, Plot, Unit};
use super::table::{self, Align};
use super::validate::{Simulated, simulated_vs_model};
use crate::units::format_duration;
use crate::validate::multilevel::{
    MultilevelValidateOptions, MultilevelValidation, MultilevelVerdict, PatternPoint, PointKind,
};
use serde::Serialize;

fn strides(s: &[Option<u64>]) -> String {
    s.iter()
        .map(|k| k.map_or("-".into(), |k| k.to_string()))
        .collect::<Vec<_>>()
        .join(",")
}

fn pattern(p: &PatternPoint) -> String {
    format!(
        "{} @ {}",
        strides(&p.strides),
        format_duration(p.interval_s)
    )
}

#[derive(Serialize)]
struct Doc<'a> {
    inputs: JsonLevelInputs,
    options: &'a MultilevelValidateOptions,
    recommended_interval_s: f64,
    recommended_strides: Vec<Option<u64>>,
    empirical_optimum: &'a PatternPoint,
    verdict: &'a MultilevelVerdict,
    points: &'a [PatternPoint],
}

/// `validate.json`: seconds throughout, CIs as `{point, stderr, ci95, runs}`.
pub fn json(v: &MultilevelValidation) -> String {
    super::validation_document(
        "multilevel",
        &Doc {
            inputs: JsonLevelInputs::of(&v.levels, Some(v.options.work_s)),
            options: &v.options,
            recommended_interval_s: v.verdict.interval_s,
            recommended_strides: v.verdict.strides.clone(),
            empirical_optimum: &v.points[v.best],
            verdict: &v.verdict,
            points: &v.points,
        },
    )
}

/// `validate.csv`: one line per simulated pattern.
pub fn csv(v: &MultilevelValidation) -> String {
    let header = "kind,interval_s,strides,work_s,overhead,stderr,ci95_lo,ci95_hi,runs,model_overhead,z,regret_pct,regret_ci95_lo,regret_ci95_hi,optimal_region";
    let records = v.points.iter().map(|p| {
        [
            kind(p.kind).to_string(),
            format!("{:?}", p.interval_s),
            strides(&p.strides),
            format!("{:?}", p.work_s),
        ]
        .into_iter()
        .chain(super::estimate_cells(&p.overhead))
        .chain([
            format!("{:?}", p.model_overhead),
            super::csv_cell(p.z),
            format!("{:?}", p.regret_pct.point),
            format!("{:?}", p.regret_pct.ci95[0]),
            format!("{:?}", p.regret_pct.ci95[1]),
            p.optimal_region.to_string(),
        ])
    });
    super::csv_document(header, records)
}

fn kind(k: PointKind) -> &'static str {
    match k {
        PointKind::Model => "model",
        PointKind::Grid => "grid",
        PointKind::Neighbour => "neighbour",
    }
}

/// Simulated overhead of the model's strides against the base interval, with its CI band and
/// the exact model's curve; the model's pattern and the empirical optimum marked.
pub fn overhead_plot(v: &MultilevelValidation) -> Plot {
    let curve: Vec<Simulated> = v
        .points
        .iter()
        .filter(|p| p.kind != PointKind::Neighbour)
        .map(|p| Simulated {
            interval_s: p.interval_s,
            simulated: &p.overhead,
            model: Some(p.model_overhead),
        })
        .collect();
    // The markers name patterns, not intervals, so they are made here.
    let (band, series, _) = simulated_vs_model(&curve, "exact model".into(), vec![], None, "");
    let best = &v.points[v.best];
    let markers = vec![
        Marker {
            name: format!(
                "model: strides {} @ {}",
                strides(&v.verdict.strides),
                format_duration(v.verdict.interval_s)
            ),
            x: v.verdict.interval_s,
            y: v.verdict.simulated_overhead.point,
        },
        Marker {
            name: format!("empirical optimum ({})", pattern(best)),
            x: best.interval_s,
            y: best.overhead.point,
        },
    ];
    Plot {
        id: "validate".into(),
        title: format!(
            "Simulated vs exact overhead, strides {} ({} runs)",
            strides(&v.verdict.strides),
            v.options.runs
        ),
        x: Axis {
            label: "base interval w".into(),
            log: true,
            unit: Unit::Seconds,
        },
        y: Axis::overhead(false),
        bands: vec![band],
        series,
        markers,
        error_bars: vec![],
    }
}

/// The regret of the model's pattern and of each neighbouring stride vector (at `w`), with
/// 95% CIs, one per position on the horizontal axis.
pub fn regret_plot(v: &MultilevelValidation) -> Plot {
    let shown: Vec<&PatternPoint> = v
        .points
        .iter()
        .filter(|p| p.kind != PointKind::Grid)
        .collect();
    Plot {
        id: "regret".into(),
        title:
            "Regret of the model's strides and of their neighbours against the empirical optimum"
                .into(),
        x: Axis {
            label: "pattern (see legend)".into(),
            log: false,
            unit: Unit::Plain,
        },
        y: Axis::percent("extra wall time (%), 95% CI"),
        bands: vec![],
        series: vec![],
        markers: shown
            .iter()
            .enumerate()
            .map(|(i, p)| Marker {
                name: format!(
                    "{}. {}{}: {:+.3}%",
                    i + 1,
                    if p.kind == PointKind::Model {
                        "model "
                    } else {
                        ""
                    },
                    pattern(p),
                    p.regret_pct.point
                ),
                x: (i + 1) as f64,
                y: p.regret_pct.point,
            })
            .collect(),
        error_bars: shown
            .iter()
            .enumerate()
            .map(|(i, p)| ((i + 1) as f64, p.regret_pct.ci95[0], p.regret_pct.ci95[1]))
            .collect(),
    }
}

/// The verdict in one paragraph.
pub fn verdict_paragraph(v: &MultilevelValidation) -> String {
    let d = &v.verdict;
    let best = &v.points[v.best];
    let mut s = format!(
        "The model's pattern (strides {}, base interval {}) is {} by {} runs of the multilevel simulator: the empirical optimum of the {} patterns simulated is {}, and the model's regret is {:.3}% (95% CI {:.3}% to {:.3}%).",
        strides(&d.strides),
        format_duration(d.interval_s),
        if d.confirmed {
            "confirmed"
        } else {
            "NOT confirmed"
        },
        v.options.runs,
        v.points.len(),
        pattern(best),
        d.regret_pct.point,
        d.regret_pct.ci95[0],
        d.regret_pct.ci95[1],
    );
    s.push_str(&super::validate::measured_against(
        format!(
            "The exact model predicts an overhead of {:.4}",
            d.predicted_overhead
        ),
        &d.simulated_overhead,
        d.z,
    ));
    let worse = v
        .points
        .iter()
        .filter(|p| p.kind == PointKind::Neighbour && !p.optimal_region)
        .count();
    let neighbours = v
        .points
        .iter()
        .filter(|p| p.kind == PointKind::Neighbour)
        .count();
    s.push_str(&format!(
        " Neighbouring stride vectors measurably worse than the optimum: {worse} of {neighbours}."
    ));
    s
}

/// The columns of the pattern table, in the terminal and in `report.md`.
const COLUMNS: [&str; 8] = [
    "pattern",
    "strides",
    "w",
    "predicted",
    "simulated (± stderr)",
    "z",
    "regret (95% CI)",
    "region",
];

/// One row per simulated pattern: the cells of both the terminal table and `report.md`'s.
fn rows<'a>(points: impl Iterator<Item = &'a PatternPoint>) -> Vec<Vec<String>> {
    points
        .map(|p| {
            vec![
                kind(p.kind).into(),
                strides(&p.strides),
                format_duration(p.interval_s),
                format!("{:.4}", p.model_overhead),
                table::mean_se(&p.overhead, 4),
                table::z_score(p.z),
                table::regret(&p.regret_pct),
                if p.optimal_region { "optimal" } else { "worse" }.into(),
            ]
        })
        .collect()
}

/// The table for a terminal: the model's pattern and its neighbours, then the verdict.
pub fn table(v: &MultilevelValidation) -> String {
    let rows = rows(v.points.iter().filter(|p| p.kind != PointKind::Grid));
    let align = Align::columns("llrrrrrl");
    table::with_paragraph(&COLUMNS, &align, &rows, &verdict_paragraph(v))
}

/// `report.md`.
pub fn markdown(v: &MultilevelValidation, command: &str) -> String {
    markdown::validation(
        "ckpt validate (multi-level)",
        command,
        &verdict_paragraph(v),
        &figures(v),
        &markdown::table(
            &COLUMNS,
            &Align::columns("llrrrrrl"),
            &rows(v.points.iter()),
        ),
        " (every simulated pattern with its CI, the exact model's overhead, z and regret)",
    )
}

/// The plots in report order, each with its caption in `report.md`.
fn figures(v: &MultilevelValidation) -> [(&'static str, Plot); 2] {
    [
        ("simulated vs exact overhead", overhead_plot(v)),
        (
            "regret of the model's strides and their neighbours",
            regret_plot(v),
        ),
    ]
}

fn plots(v: &MultilevelValidation) -> [Plot; 2] {
    figures(v).map(|(_, p)| p)
}

super::folder!("validate", MultilevelValidation);

//! The validation report: `validate.json`, `validate.csv`, plots, `report.md`, and the table.

use super::interval::JsonInputs;
use super::plot::{Axis, Band, Marker, Plot, Series, Unit};
use super::table;
use crate::sim::stats::Estimate;
use crate::units::format_duration;
use crate::validate::{GridPoint, SimOptions, Validation, Verdict};
use serde::Serialize;

#[derive(Serialize)]
struct JsonValidation<'a> {
    inputs: JsonInputs,
    options: &'a SimOptions,
    recommended: &'static str,
    recommended_interval_s: f64,
    empirical_optimum_s: f64,
    optimal_region_s: [f64; 2],
    assumptions_hold: bool,
    assumption_notes: &'a [String],
    verdicts: &'a [Verdict],
    points: &'a [GridPoint],
}

/// `validate.json`: seconds throughout, CIs as `{point, stderr, ci95, runs}`.
pub fn json(v: &Validation) -> String {
    let doc = JsonValidation {
        inputs: JsonInputs::of(&v.answer.inputs),
        options: &v.options,
        recommended: v.answer.recommended,
        recommended_interval_s: v.answer.recommended_interval_s,
        empirical_optimum_s: v.empirical_optimum_s,
        optimal_region_s: v.optimal_region_s,
        assumptions_hold: v.assumptions_hold,
        assumption_notes: &v.assumption_notes,
        verdicts: &v.verdicts,
        points: &v.points,
    };
    super::validation_document(v.sim.name(), &doc)
}

/// `validate.csv`: one line per simulated interval.
pub fn csv(v: &Validation) -> String {
    let header =
        "interval_s,on_grid,overhead,stderr,ci95_lo,ci95_hi,runs,model_overhead,optimal_region";
    let records = v.points.iter().map(|p| {
        [format!("{:?}", p.interval_s), p.on_grid.to_string()]
            .into_iter()
            .chain(super::estimate_cells(&p.overhead))
            .chain([
                super::csv_cell(p.model_overhead),
                p.optimal_region.to_string(),
            ])
    });
    super::csv_document(header, records)
}

/// One simulated interval as a simulated-vs-predicted plot draws it.
pub(crate) struct Simulated<'a> {
    /// The interval (s).
    pub interval_s: f64,
    /// The simulated figure with its CI.
    pub simulated: &'a Estimate,
    /// The model's figure there.
    pub model: Option<f64>,
}

/// The layers of a simulated-vs-predicted plot: over the `grid`'s intervals the simulated mean
/// with its 95% CI band and the model's dashed curve (`model`, its legend entry), every `rows`
/// entry `(name, interval, simulated mean)` marked, and the empirical optimum `best` marked
/// as `best_name`.
pub(crate) fn simulated_vs_model(
    grid: &[Simulated],
    model: String,
    rows: Vec<(String, f64, f64)>,
    best: Option<&Simulated>,
    best_name: &str,
) -> (Band, Vec<Series>, Vec<Marker>) {
    let band = Band {
        name: "simulated 95% CI".into(),
        points: grid
            .iter()
            .map(|p| (p.interval_s, p.simulated.ci95[0], p.simulated.ci95[1]))
            .collect(),
    };
    let series = vec![
        Series {
            name: "simulated mean".into(),
            points: grid
                .iter()
                .map(|p| (p.interval_s, p.simulated.point))
                .collect(),
            dashed: false,
        },
        Series {
            name: model,
            points: grid
                .iter()
                .filter_map(|p| p.model.map(|m| (p.interval_s, m)))
                .collect(),
            dashed: true,
        },
    ];
    let mut markers: Vec<Marker> = rows
        .into_iter()
        .map(|(name, x, y)| Marker {
            name: format!("{name} ({})", format_duration(x)),
            x,
            y,
        })
        .collect();
    if let Some(best) = best {
        markers.push(Marker {
            name: format!("{best_name} ({})", format_duration(best.interval_s)),
            x: best.interval_s,
            y: best.simulated.point,
        });
    }
    (band, series, markers)
}

/// Simulated overhead vs interval with its 95% CI band, the model's curve over it, and every
/// row's interval marked on the simulated curve.
pub fn overhead_plot(v: &Validation) -> Plot {
    fn point(p: &GridPoint) -> Simulated<'_> {
        Simulated {
            interval_s: p.interval_s,
            simulated: &p.overhead,
            model: p.model_overhead,
        }
    }
    let grid: Vec<Simulated> = v.points.iter().filter(|p| p.on_grid).map(point).collect();
    let rows = v
        .verdicts
        .iter()
        .map(|d| (d.name.to_string(), d.interval_s, d.simulated_overhead.point))
        .collect();
    let best = v
        .points
        .iter()
        .find(|p| p.interval_s == v.empirical_optimum_s)
        .map(point);
    let (band, series, markers) = simulated_vs_model(
        &grid,
        format!("{} (model)", v.answer.recommended),
        rows,
        best.as_ref(),
        "empirical optimum",
    );
    Plot {
        id: "validate".into(),
        title: format!(
            "Simulated vs predicted overhead ({} simulator, {} runs)",
            v.sim.name(),
            v.options.runs
        ),
        x: Axis::interval(true),
        y: Axis::overhead(false),
        bands: vec![band],
        series,
        markers,
        error_bars: vec![],
    }
}

/// The regret of every row with its 95% CI as an error bar, at the row's interval.
pub fn regret_plot(v: &Validation) -> Plot {
    regret_markers(
        "Regret of each model's interval against the empirical optimum",
        "the model's interval",
        "extra wall time (%), 95% CI",
        &regrets(v),
    )
}

fn regrets(v: &Validation) -> Vec<Regret<'_>> {
    v.verdicts
        .iter()
        .map(|d| Regret::new(&d.name, d.interval_s, &d.regret_pct, d.confirmed))
        .collect()
}

/// A row's regret against the empirical optimum, as the regret plots and verdicts show it.
pub(crate) struct Regret<'a> {
    /// The row's name.
    pub name: &'a str,
    /// Its interval (s).
    pub interval_s: f64,
    /// Its regret in percent, with its CI.
    pub regret_pct: &'a Estimate,
    /// In the optimal region, or the regret's CI reaches 0.
    pub confirmed: bool,
}

impl<'a> Regret<'a> {
    /// The regret of the row `name` at `interval_s`.
    pub fn new(name: &'a str, interval_s: f64, regret_pct: &'a Estimate, confirmed: bool) -> Self {
        Regret {
            name,
            interval_s,
            regret_pct,
            confirmed,
        }
    }
}

/// The verdict's closing sentences: `fine` where every row is confirmed, else `worse` and the
/// rows that are not ([`unconfirmed`]); then, where the simulation departs from the model's
/// assumptions, `departs` of the notes joined.
pub(crate) fn closing(
    rows: &[Regret],
    fine: &str,
    worse: &str,
    notes: &[String],
    departs: impl Fn(&str) -> String,
) -> String {
    let mut s = listed(&unconfirmed(rows), fine, &format!(" {worse}"));
    if !notes.is_empty() {
        s.push_str(&departs(&notes.join("; ")));
    }
    s
}

/// `none` where `items` is empty, else `lead: a, b, c.`: the sentences that name the rows a
/// verdict singles out.
pub(crate) fn listed(items: &[String], none: &str, lead: &str) -> String {
    if items.is_empty() {
        none.to_string()
    } else {
        format!("{lead}: {}.", items.join(", "))
    }
}

/// Every row's regret at its interval (log scale), its 95% CI as an error bar.
pub(crate) fn regret_markers(title: &str, x_label: &str, y_label: &str, rows: &[Regret]) -> Plot {
    Plot {
        id: "regret".into(),
        title: title.into(),
        x: Axis {
            label: x_label.into(),
            log: true,
            unit: Unit::Seconds,
        },
        y: Axis::percent(y_label),
        bands: vec![],
        series: vec![],
        markers: rows
            .iter()
            .map(|d| Marker {
                name: format!(
                    "{}: {:+.3}%{}",
                    d.name,
                    d.regret_pct.point,
                    if d.confirmed { "" } else { " (not confirmed)" }
                ),
                x: d.interval_s,
                y: d.regret_pct.point,
            })
            .collect(),
        error_bars: rows
            .iter()
            .map(|d| (d.interval_s, d.regret_pct.ci95[0], d.regret_pct.ci95[1]))
            .collect(),
    }
}

/// The rows not confirmed, each as `` `name` (+R%, CI A% to B%) ``.
pub(crate) fn unconfirmed(rows: &[Regret]) -> Vec<String> {
    rows.iter()
        .filter(|d| !d.confirmed)
        .map(|d| {
            format!(
                "`{}` ({}%, CI {}% to {}%)",
                d.name,
                super::table::regret_number(d.regret_pct.point, true),
                super::table::regret_number(d.regret_pct.ci95[0], false),
                super::table::regret_number(d.regret_pct.ci95[1], false)
            )
        })
        .collect()
}

/// The verdict in one paragraph.
pub fn verdict_paragraph(v: &Validation) -> String {
    let rec = v.verdicts.iter().find(|d| d.name == v.answer.recommended);
    let mut s = String::new();
    if let Some(r) = rec {
        s.push_str(&format!(
            "The recommended interval ({}, `{}`) is {} by {} runs of the {} simulator: the empirical optimum (the best of every simulated interval, grid and rows) is {}, the optimal region (not significantly worse at 95%) spans {} to {}, and the recommendation's regret is {}% (95% CI {}% to {}%).",
            format_duration(r.interval_s),
            r.name,
            if r.confirmed { "confirmed" } else { "NOT confirmed" },
            v.options.runs,
            v.sim.name(),
            format_duration(v.empirical_optimum_s),
            format_duration(v.optimal_region_s[0]),
            format_duration(v.optimal_region_s[1]),
            super::table::regret_number(r.regret_pct.point, false),
            super::table::regret_number(r.regret_pct.ci95[0], false),
            super::table::regret_number(r.regret_pct.ci95[1], false),
        ));
        if let Some(p) = r.predicted_overhead {
            s.push_str(&measured_against(
                format!("The model predicts an overhead of {p:.4} there"),
                &r.simulated_overhead,
                r.z,
            ));
        }
    }
    s.push_str(&closing(
        &regrets(v),
        " Every model's interval lies in the optimal region or has a regret indistinguishable from zero.",
        "Measurably worse than the optimum",
        &v.assumption_notes,
        |notes| format!(" The simulation departs from the models' assumptions ({notes}), so the figures above measure what that costs, not a flaw of the optimizer."),
    ));
    s
}

/// One row per model: the cells of both the terminal table and `report.md`'s.
fn rows(v: &Validation) -> Vec<Vec<String>> {
    v.verdicts
        .iter()
        .map(|d| {
            vec![
                d.name.to_string(),
                format_duration(d.interval_s),
                d.predicted_overhead
                    .map(|p| format!("{p:.4}"))
                    .unwrap_or_else(|| "-".into()),
                table::mean_se(&d.simulated_overhead, 4),
                table::z_score(d.z),
                table::regret(&d.regret_pct),
                if d.confirmed {
                    "confirmed".into()
                } else {
                    "not confirmed".into()
                },
            ]
        })
        .collect()
}

super::validation_report!(
    Validation,
    "ckpt validate",
    " (every simulated interval with its CI and the model's overhead)",
    "predicted",
    [
        ("simulated vs predicted overhead", overhead_plot),
        ("regret of each model", regret_plot)
    ]
);

/// The sentence that holds a prediction against its simulation: `lead` (`The model predicts an
/// overhead of 1.0958 there`), then the simulated mean and its z, or, where every run came out
/// alike and no z exists, that outcome; nothing where neither can be said.
pub(crate) fn measured_against(lead: String, simulated: &Estimate, z: Option<f64>) -> String {
    match z {
        Some(z) => format!(
            " {lead}; the simulation measures {:.4} (z = {z:.2}).",
            simulated.point
        ),
        None if simulated.all_alike() => {
            format!(" {lead}; every run measures {:.4}.", simulated.point)
        }
        None => String::new(),
    }
}

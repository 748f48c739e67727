//! The allocation validation report (`validate --walltime`): the table and verdict,
//! `validate.json`, `validate.csv`, the `saved` and `regret` plots and `report.md`, in the
//! shapes of the other validation reports.

use super::interval::JsonInputs;
use super::plot::{Axis, Plot, Unit};
use super::table;
use super::validate::{Regret, Simulated, simulated_vs_model};
use crate::units::format_duration;
use crate::validate::Z_AGREES;
use crate::validate::allocation::{
    AllocationPoint, AllocationValidateOptions, AllocationValidation, AllocationVerdict, PLAN,
};
use serde::Serialize;

#[derive(Serialize)]
struct Doc<'a> {
    inputs: JsonInputs,
    options: &'a AllocationValidateOptions,
    walltime_s: f64,
    signal_lead_s: f64,
    recommended: &'static str,
    recommended_interval_s: f64,
    empirical_best_s: f64,
    optimal_region_s: [f64; 2],
    all_agree: bool,
    assumptions_hold: bool,
    assumption_notes: &'a [String],
    verdicts: &'a [AllocationVerdict],
    points: &'a [AllocationPoint],
}

/// The failures' distribution as `--dist` names it (`exp` for §10).
fn dist(v: &AllocationValidation) -> String {
    v.check
        .life
        .map_or_else(|| "exp".to_string(), |l| l.shape().to_string())
}

/// `validate.json`: seconds throughout, CIs as `{point, stderr, ci95, runs}`.
pub fn json(v: &AllocationValidation) -> String {
    super::validation_document(
        "periodic",
        &Doc {
            inputs: JsonInputs::of_job(&v.check.inputs, dist(v)),
            options: &v.check.options,
            walltime_s: v.walltime_s(),
            signal_lead_s: v.check.signal_lead_s,
            recommended: PLAN,
            recommended_interval_s: v.plan().map_or(0.0, |p| p.interval_s),
            empirical_best_s: v.empirical_best_s,
            optimal_region_s: v.optimal_region_s,
            all_agree: v.all_agree,
            assumptions_hold: v.assumptions_hold,
            assumption_notes: &v.assumption_notes,
            verdicts: &v.verdicts,
            points: &v.points,
        },
    )
}

/// `validate.csv`: one line per simulated interval.
pub fn csv(v: &AllocationValidation) -> String {
    let header = "interval_s,on_grid,saved_work_s,stderr,ci95_lo,ci95_hi,runs,model_saved_work_s,optimal_region";
    let records = v.points.iter().map(|p| {
        [format!("{:?}", p.interval_s), p.on_grid.to_string()]
            .into_iter()
            .chain(super::estimate_cells(&p.saved_work_s))
            .chain([
                super::csv_cell(p.model_saved_work_s),
                p.optimal_region.to_string(),
            ])
    });
    super::csv_document(header, records)
}

fn saved_axis() -> Axis {
    Axis {
        label: "work saved by the limit".into(),
        log: false,
        unit: Unit::Seconds,
    }
}

/// Simulated saved work vs interval with its 95% CI band, the model's curve over it, and every
/// row's interval marked on the simulated curve.
pub fn saved_plot(v: &AllocationValidation) -> Plot {
    fn point(p: &AllocationPoint) -> Simulated<'_> {
        Simulated {
            interval_s: p.interval_s,
            simulated: &p.saved_work_s,
            model: p.model_saved_work_s,
        }
    }
    let grid: Vec<Simulated> = v.points.iter().filter(|p| p.on_grid).map(point).collect();
    let rows = v
        .verdicts
        .iter()
        .map(|d| {
            (
                d.name.to_string(),
                d.interval_s,
                d.simulated_saved_work_s.point,
            )
        })
        .collect();
    let best = v
        .points
        .iter()
        .find(|p| p.interval_s == v.empirical_best_s)
        .map(point);
    let (band, series, markers) = simulated_vs_model(
        &grid,
        "allocation model".into(),
        rows,
        best.as_ref(),
        "empirical best",
    );
    Plot {
        id: "saved".into(),
        title: format!(
            "Simulated vs predicted work saved in a {} allocation ({} runs)",
            format_duration(v.walltime_s()),
            v.check.options.runs
        ),
        x: Axis::interval(true),
        y: saved_axis(),
        bands: vec![band],
        series,
        markers,
        error_bars: vec![],
    }
}

/// The regret of every row with its 95% CI as an error bar, at the row's interval.
pub fn regret_plot(v: &AllocationValidation) -> Plot {
    super::validate::regret_markers(
        "Work each row's interval saves less than the empirical best",
        "the row's interval",
        "less work saved (%), 95% CI",
        &regrets(v),
    )
}

fn regrets(v: &AllocationValidation) -> Vec<Regret<'_>> {
    v.verdicts
        .iter()
        .map(|d| Regret::new(&d.name, d.interval_s, &d.regret_pct, d.confirmed))
        .collect()
}

/// Seconds of saved work, whole.
fn saved(s: f64) -> String {
    format!("{s:.0} s")
}

/// The verdict in one paragraph.
pub fn verdict_paragraph(v: &AllocationValidation) -> String {
    let mut s = String::new();
    let model = if v.check.life.is_some() {
        "The allocation model under these failures (docs/models.md §10.1)"
    } else {
        "The allocation model (docs/models.md §10)"
    };
    if let Some(r) = v.plan() {
        s.push_str(&format!(
            "The allocation's plan ({} of work between checkpoints, the signal {} s before the limit of {}) is {} by {} runs of the periodic simulator in the allocation: the empirical best (the most work saved of every simulated interval, grid and rows) is at {}, the optimal region (not significantly below it at 95%) spans {} to {}, and the plan saves {:.3}% less (95% CI {:.3}% to {:.3}%).",
            format_duration(r.interval_s),
            v.check.signal_lead_s,
            format_duration(v.walltime_s()),
            if r.confirmed { "confirmed" } else { "NOT confirmed" },
            v.check.options.runs,
            format_duration(v.empirical_best_s),
            format_duration(v.optimal_region_s[0]),
            format_duration(v.optimal_region_s[1]),
            r.regret_pct.point,
            r.regret_pct.ci95[0],
            r.regret_pct.ci95[1],
        ));
        if let Some(p) = r.predicted_saved_work_s {
            let e = &r.simulated_saved_work_s;
            match r.z {
                Some(z) => s.push_str(&format!(
                    " {model} predicts {} saved there; the simulation measures {} ± {:.0} s (z = {z:.2}).",
                    saved(p),
                    saved(e.point),
                    e.stderr.unwrap_or(0.0)
                )),
                None if e.all_alike() => s.push_str(&format!(
                    " {model} predicts {} saved there; every run saves {}.",
                    saved(p),
                    saved(e.point)
                )),
                None => {}
            }
        }
    }
    let disagree: Vec<String> = v
        .verdicts
        .iter()
        .filter(|d| !d.agrees)
        .map(|d| format!("`{}` (z = {})", d.name, table::z_score(d.z)))
        .collect();
    s.push_str(&super::validate::listed(
        &disagree,
        &format!(
            " Every row's predicted saved work agrees with its simulation (|z| < {Z_AGREES})."
        ),
        &format!(" Predictions that disagree with their simulation (|z| >= {Z_AGREES})"),
    ));
    s.push_str(&super::validate::closing(
        &regrets(v),
        " Every row's interval lies in the optimal region or saves an amount indistinguishable from the best.",
        "Measurably below the best",
        &v.assumption_notes,
        |notes| format!(" The simulation departs from the model's assumptions ({notes}), so the predictions are expected to miss by what that costs."),
    ));
    s
}

/// One row per model: the cells of both the terminal table and `report.md`'s.
fn rows(v: &AllocationValidation) -> Vec<Vec<String>> {
    v.verdicts
        .iter()
        .map(|d| {
            let verdict = match (d.confirmed, d.agrees) {
                (true, true) => "confirmed",
                (true, false) => "confirmed, DISAGREES",
                (false, true) => "not confirmed",
                (false, false) => "not confirmed, DISAGREES",
            };
            vec![
                if d.name == PLAN {
                    format!("{} *", d.name)
                } else {
                    d.name.to_string()
                },
                format_duration(d.interval_s),
                d.predicted_saved_work_s
                    .map_or_else(|| "-".into(), |p| format!("{p:.1}")),
                table::mean_se(&d.simulated_saved_work_s, 1),
                table::z_score(d.z),
                table::regret(&d.regret_pct),
                verdict.into(),
            ]
        })
        .collect()
}

super::validation_report!(
    AllocationValidation,
    "ckpt validate (a fixed allocation)",
    " (every simulated interval with its CI and the model's saved work)",
    "predicted saved (s)",
    [
        ("simulated vs predicted work saved", saved_plot),
        ("regret of each row", regret_plot)
    ]
);

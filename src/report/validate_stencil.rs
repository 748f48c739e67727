//! The stencil validation report: levels x strategies, the seed paper's Figs. 7-9, and the
//! models' predicted level against the empirical best.

use super::markdown;
use super::plot::{self, Axis, Band, Marker, Plot, ReportError, Series, StackedBars, Unit};
use super::table::{self, Align, render};
use crate::units::{format_duration, ns_to_secs};
use crate::validate::stencil::{Level, LevelPrediction, STRATEGIES, StencilValidation};
use serde::Serialize;

#[derive(Serialize)]
struct JsonConfig {
    width: u32,
    rows: u32,
    workers: u32,
    process_cost_s: f64,
    backup_cost_s: f64,
    transfer_cost_s: f64,
    mtbf_s: f64,
}

#[derive(Serialize)]
struct JsonStencil<'a> {
    config: JsonConfig,
    runs: u64,
    seed: u64,
    no_checkpoint_makespan_s: f64,
    levels: &'a [Level],
    best_level: BestLevel,
    optimal_levels: BestLevels,
    recommended_level: BestLevel,
    recommended: &'static str,
    predictions: &'a [LevelPrediction],
}

#[derive(Serialize)]
struct BestLevel {
    global: u32,
    dependency: u32,
}

#[derive(Serialize)]
struct BestLevels {
    global: Vec<u32>,
    dependency: Vec<u32>,
}

/// `validate.json` for the stencil.
pub fn json(v: &StencilValidation) -> String {
    let c = &v.config;
    let doc = JsonStencil {
        config: JsonConfig {
            width: c.width,
            rows: c.rows,
            workers: c.workers,
            process_cost_s: ns_to_secs(c.process_cost),
            backup_cost_s: ns_to_secs(c.backup_cost),
            transfer_cost_s: ns_to_secs(c.transfer_cost),
            mtbf_s: v.mtbf_s,
        },
        runs: v.runs,
        seed: v.seed,
        no_checkpoint_makespan_s: v.no_checkpoint_makespan_s,
        levels: &v.levels,
        best_level: BestLevel {
            global: v.best_level[0],
            dependency: v.best_level[1],
        },
        optimal_levels: BestLevels {
            global: v.optimal_levels[0].clone(),
            dependency: v.optimal_levels[1].clone(),
        },
        recommended_level: BestLevel {
            global: v.recommended_level[0],
            dependency: v.recommended_level[1],
        },
        recommended: v.recommended,
        predictions: &v.predictions,
    };
    super::validation_document("stencil", &doc)
}

/// `validate.csv`: one line per (level, strategy).
pub fn csv(v: &StencilValidation) -> String {
    let header = "level,interval_s,checkpoint_cost_s,recovery,makespan_s,makespan_ci_lo,makespan_ci_hi,cancelled_executions,aggregate_processing_s,regret_pct,useful_s,transfer_s,cancelled_s,waiting_s,checkpointing_s,idle_s";
    let records = v.levels.iter().flat_map(|l| {
        l.strategies.iter().map(move |s| {
            let t = s.time_split_s;
            let mut record = vec![
                l.level.to_string(),
                format!("{:?}", l.interval_s),
                format!("{:?}", l.checkpoint_cost_s),
                s.recovery.to_string(),
            ];
            record.extend(
                [
                    s.makespan_s.point,
                    s.makespan_s.ci95[0],
                    s.makespan_s.ci95[1],
                    s.cancelled_executions.point,
                    s.aggregate_processing_s.point,
                    s.regret_pct.point,
                ]
                .into_iter()
                .chain(t)
                .map(|x| format!("{x:?}")),
            );
            record
        })
    });
    super::csv_document(header, records)
}

fn per_level(
    v: &StencilValidation,
    what: impl Fn(&crate::validate::stencil::StrategyFigures) -> crate::sim::stats::Estimate,
) -> (Vec<Band>, Vec<Series>) {
    let mut bands = Vec::new();
    let mut series = Vec::new();
    for (s, r) in STRATEGIES.iter().enumerate() {
        let pts: Vec<(f64, crate::sim::stats::Estimate)> = v
            .levels
            .iter()
            .map(|l| (l.level as f64, what(&l.strategies[s])))
            .collect();
        bands.push(Band {
            name: format!("{} 95% CI", r.name()),
            points: pts
                .iter()
                .map(|(x, e)| (*x, e.ci95[0], e.ci95[1]))
                .collect(),
        });
        series.push(Series {
            name: r.name().to_string(),
            points: pts.iter().map(|(x, e)| (*x, e.point)).collect(),
            dashed: false,
        });
    }
    (bands, series)
}

/// Makespan per level for both strategies (the paper's Fig. 8), the best and predicted levels
/// marked.
pub fn makespan_plot(v: &StencilValidation) -> Plot {
    let (bands, series) = per_level(v, |s| s.makespan_s);
    let mut markers = Vec::new();
    for (s, r) in STRATEGIES.iter().enumerate() {
        let b = v.recommended_level[s];
        if let Some(l) = v.levels.iter().find(|l| l.level == b) {
            markers.push(Marker {
                name: format!("recommended under {}: level {b}", r.name()),
                x: b as f64,
                y: l.strategies[s].makespan_s.point,
            });
        }
    }
    if let Some(p) = v.predictions.iter().find(|p| p.name == v.recommended)
        && let Some(l) = v.levels.iter().find(|l| l.level == p.level)
    {
        markers.push(Marker {
            name: format!("{} predicts level {}", p.name, p.level),
            x: p.level as f64,
            y: l.strategies[0].makespan_s.point,
        });
    }
    Plot {
        id: "makespan".into(),
        title: format!("Makespan per checkpoint level ({} runs)", v.runs),
        x: Axis {
            label: "checkpoint level L (H = 2^(L-1) rows)".into(),
            log: false,
            unit: Unit::Plain,
        },
        y: Axis {
            label: "makespan".into(),
            log: false,
            unit: Unit::Seconds,
        },
        bands,
        series,
        markers,
        error_bars: vec![],
    }
}

/// Cancelled executions per level for both strategies (the paper's Fig. 7 counts).
pub fn cancelled_plot(v: &StencilValidation) -> Plot {
    let (bands, series) = per_level(v, |s| s.cancelled_executions);
    let log = v
        .levels
        .iter()
        .flat_map(|l| l.strategies.iter())
        .any(|s| s.cancelled_executions.point > 0.0)
        && v.levels
            .iter()
            .flat_map(|l| l.strategies.iter())
            .all(|s| s.cancelled_executions.ci95[0] > 0.0);
    Plot {
        id: "cancelled".into(),
        title: "Cancelled executions per checkpoint level".into(),
        x: Axis {
            label: "checkpoint level L".into(),
            log: false,
            unit: Unit::Plain,
        },
        y: Axis {
            label: "cancelled executions per run".into(),
            log,
            unit: Unit::Plain,
        },
        bands,
        series,
        markers: vec![],
        error_bars: vec![],
    }
}

/// The time of all workers split six ways, per (level, strategy), as stacked bars (Fig. 9).
pub fn time_split_bars(v: &StencilValidation) -> StackedBars {
    let mut categories = Vec::new();
    let mut values = vec![Vec::new(); 6];
    for l in &v.levels {
        for (s, r) in STRATEGIES.iter().enumerate() {
            categories.push(format!(
                "L{} {}",
                l.level,
                if s == 0 { "glob" } else { "dep" }
            ));
            let _ = r;
            for (k, x) in l.strategies[s].time_split_s.iter().enumerate() {
                values[k].push(*x);
            }
        }
    }
    let names = [
        "useful",
        "transfer",
        "cancelled",
        "waiting",
        "checkpointing",
        "idle",
    ];
    StackedBars {
        id: "time-split".into(),
        title: "Time of all workers, by level and strategy".into(),
        y_label: "worker time, summed over workers".into(),
        y_unit: Unit::Seconds,
        categories,
        components: names
            .iter()
            .zip(values)
            .map(|(n, v)| (n.to_string(), v))
            .collect(),
    }
}

/// The verdict in one paragraph.
pub fn verdict_paragraph(v: &StencilValidation) -> String {
    let region = |k: usize| {
        let others: Vec<String> = v.optimal_levels[k]
            .iter()
            .filter(|&&l| l != v.best_level[k])
            .map(|l| l.to_string())
            .collect();
        if others.is_empty() {
            format!(
                "lowest mean makespan at level {}, every other level significantly worse",
                v.best_level[k]
            )
        } else {
            format!(
                "lowest mean at level {}; levels {} not significantly worse",
                v.best_level[k],
                others.join(", ")
            )
        }
    };
    let mut s = format!(
        "Over {} runs per level and strategy (system MTBF {}), the validator recommends checkpoint level {} under `global` rollback ({}) and level {} under `dependency`-aware rollback ({}).",
        v.runs,
        format_duration(v.mtbf_s),
        v.recommended_level[0],
        region(0),
        v.recommended_level[1],
        region(1),
    );
    let Some(p) = v.predictions.iter().find(|p| p.name == v.recommended) else {
        return s;
    };
    let l = v.levels.iter().find(|l| l.level == p.level);
    s.push_str(&format!(
        " `{}` predicts level {} (its interval {} at that level's checkpoint cost {}, against the level's interval {}): regret {:.3}% under `global` (95% CI {:.3}% to {:.3}%) and {:.3}% under `dependency` ({:.3}% to {:.3}%).",
        p.name,
        p.level,
        format_duration(p.interval_s),
        l.map(|l| format_duration(l.checkpoint_cost_s)).unwrap_or_default(),
        l.map(|l| format_duration(l.interval_s)).unwrap_or_default(),
        p.regret_pct[0].point,
        p.regret_pct[0].ci95[0],
        p.regret_pct[0].ci95[1],
        p.regret_pct[1].point,
        p.regret_pct[1].ci95[0],
        p.regret_pct[1].ci95[1],
    ));
    for (k, r) in STRATEGIES.iter().enumerate() {
        let near = p.within_one_level[k];
        s.push_str(&format!(
            " Under `{}` the prediction is {} the empirical optimum.",
            r.name(),
            if near {
                "within one level of"
            } else {
                "more than one level away from"
            }
        ));
    }
    if !p.within_one_level[0] {
        // Why the models miss under global rollback: the total failure-free checkpoint time.
        let first = v
            .levels
            .first()
            .map(|l| l.failure_free_makespan_s - v.no_checkpoint_makespan_s)
            .unwrap_or(0.0);
        let last = v
            .levels
            .last()
            .map(|l| l.failure_free_makespan_s - v.no_checkpoint_makespan_s)
            .unwrap_or(0.0);
        if last > first {
            s.push_str(&format!(
                " The models assume that a longer interval means fewer checkpoints of a fixed cost; in this task graph a coarser level costs more checkpoint time in all, even without failures ({} at level {} against {} at level {}, the failure-free makespan with checkpoints less the one without), so the finest level wins under `global` rollback and the models' predicted level is far from it.",
                format_duration(first),
                v.levels.first().map(|l| l.level).unwrap_or(1),
                format_duration(last),
                v.levels.last().map(|l| l.level).unwrap_or(1),
            ));
        } else {
            s.push_str(" The models see a checkpoint as a pause of the whole job, while here checkpoint tasks overlap with other work, and a global rollback cancels the running executions of every worker, which the models do not count.");
        }
    }
    s.push_str(&format!(
        " Dependency-aware rollback redoes only lost work, which breaks the models' assumption that a failure loses everything since the last checkpoint: under it the predicted level's regret is {:.3}% (95% CI {:.3}% to {:.3}%){}.",
        p.regret_pct[1].point,
        p.regret_pct[1].ci95[0],
        p.regret_pct[1].ci95[1],
        if p.within_one_level[1] { ", though the level is within one of its optimum" } else { "" }
    ));
    s
}

/// The columns of the level table, in the terminal and in `report.md`.
const COLUMNS: [&str; 8] = [
    "level",
    "interval",
    "ckpt cost",
    "recovery",
    "makespan s (± se)",
    "cancelled",
    "aggregate s",
    "regret",
];

/// One row per level and strategy: the cells of both the terminal table and `report.md`'s.
fn rows(v: &StencilValidation) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for l in &v.levels {
        for s in &l.strategies {
            rows.push(vec![
                l.level.to_string(),
                format_duration(l.interval_s),
                format_duration(l.checkpoint_cost_s),
                s.recovery.to_string(),
                table::mean_se(&s.makespan_s, 1),
                format!("{:.1}", s.cancelled_executions.point),
                format!("{:.1}", s.aggregate_processing_s.point),
                format!("{:+.3}%", s.regret_pct.point),
            ]);
        }
    }
    rows
}

/// The table for a terminal.
pub fn table(v: &StencilValidation) -> String {
    let mut out = render(&COLUMNS, &Align::columns("rrrlrrrr"), &rows(v));
    out.push_str("\npredicted levels:\n");
    let prow: Vec<Vec<String>> = v
        .predictions
        .iter()
        .map(|p| {
            vec![
                p.name.to_string(),
                p.level.to_string(),
                format_duration(p.interval_s),
                format!("{:+.3}%", p.regret_pct[0].point),
                format!("{:+.3}%", p.regret_pct[1].point),
            ]
        })
        .collect();
    out.push_str(&render(
        &[
            "model",
            "level",
            "interval",
            "regret (global)",
            "regret (dependency)",
        ],
        &Align::columns("lrrrr"),
        &prow,
    ));
    out.push('\n');
    out.push_str(&verdict_paragraph(v));
    out.push('\n');
    out
}

/// `report.md`.
pub fn markdown(v: &StencilValidation, command: &str) -> String {
    // The bars always have something to draw: one bar per level and strategy.
    let bars = plot::embed_bars(&time_split_bars(v), "time split");
    let table = markdown::table(&COLUMNS, &Align::columns("rrrlrrrr"), &rows(v));
    markdown::validation(
        "ckpt validate (stencil)",
        command,
        &verdict_paragraph(v),
        &figures(v),
        &format!("{bars}{table}"),
        "",
    )
}

/// The plots in report order, each with its caption in `report.md`.
fn figures(v: &StencilValidation) -> [(&'static str, Plot); 2] {
    [
        ("makespan per level", makespan_plot(v)),
        ("cancelled executions per level", cancelled_plot(v)),
    ]
}

/// Every file of the stencil report.
pub fn files(v: &StencilValidation, command: &str) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
    let plots = figures(v).map(|(_, p)| p);
    let bars = plot::images(&time_split_bars(v), (1200, 600))?;
    let markdown = markdown(v, command);
    plot::folder("validate", [json(v), csv(v)], &plots, bars, markdown)
}

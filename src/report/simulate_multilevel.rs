//! `simulate multilevel`'s output: the figures over runs as a table, one JSON document or a CSV,
//! beside the exact model's overhead of the pattern (docs/simulation.md §5).

use super::multilevel::JsonLevelInputs;
use super::simulate::{Unit, figure_table};
use crate::job::{MultilevelFormat, SimulateMultilevel};
use crate::sim::multilevel::MultilevelFigures;
use crate::sim::stats::Estimate;
use crate::units::format_duration;
use serde::Serialize;

/// The inputs as the JSON echoes them (seconds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inputs {
    /// The levels, downtime and work.
    #[serde(flatten)]
    pub levels: JsonLevelInputs,
    /// Base interval `w`.
    pub interval_s: f64,
    /// One stride per level, `null` for a level left out.
    pub strides: Vec<Option<u64>>,
}

impl Inputs {
    /// The echo of a job.
    pub fn of(job: &SimulateMultilevel) -> Inputs {
        Inputs {
            levels: JsonLevelInputs::of(&job.levels, Some(job.work_s)),
            interval_s: job.pattern.interval(),
            strides: crate::validate::multilevel::shown(&job.pattern),
        }
    }
}

/// The exact model beside the simulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelCheck {
    /// The exact model's overhead of the pattern (a long job of whole periods).
    pub overhead: f64,
    /// Whether the simulated work is a whole number of periods (then the model's overhead is
    /// the simulated one's expectation).
    pub whole_periods: bool,
    /// `(simulated mean - model) / stderr`.
    pub z: Option<f64>,
}

#[derive(Serialize)]
struct Document<'a> {
    inputs: &'a Inputs,
    runs: u64,
    seed: u64,
    figures: &'a MultilevelFigures,
    model: ModelCheck,
}

/// The figures with their names, as the table and the CSV list them.
fn named<'a>(
    inputs: &'a Inputs,
    f: &'a MultilevelFigures,
) -> Vec<(String, Estimate, Option<Unit>)> {
    let mut rows = vec![
        ("wall time".to_string(), f.wall_time_s, Some(Unit::Duration)),
        ("overhead".to_string(), f.overhead, None),
        ("failures".to_string(), f.failures, Some(Unit::Count)),
    ];
    for (l, e) in inputs.levels.levels.iter().zip(&f.class_failures) {
        rows.push((format!("failures {}", l.name), *e, Some(Unit::Count)));
    }
    rows.extend([
        (
            "checkpoint".to_string(),
            f.checkpoint_s,
            Some(Unit::Duration),
        ),
        ("restart".to_string(), f.restart_s, Some(Unit::Duration)),
        ("downtime".to_string(), f.downtime_s, Some(Unit::Duration)),
        ("lost work".to_string(), f.lost_work_s, Some(Unit::Duration)),
    ]);
    rows
}

impl ModelCheck {
    /// The check of `figures` against the model's `overhead`.
    pub fn new(figures: &MultilevelFigures, overhead: f64, whole_periods: bool) -> ModelCheck {
        ModelCheck {
            overhead,
            whole_periods,
            z: figures.overhead.z(overhead),
        }
    }
}

/// The output of `simulate multilevel` in `format`.
pub fn render(
    inputs: &Inputs,
    figures: &MultilevelFigures,
    check: ModelCheck,
    runs: u64,
    seed: u64,
    format: MultilevelFormat,
) -> String {
    let model_overhead = check.overhead;
    let period = inputs.interval_s * inputs.strides.last().copied().flatten().unwrap_or(1) as f64;
    let work = inputs.levels.work_s.unwrap_or(0.0);
    match format {
        MultilevelFormat::Json => super::simulation_document(
            "multilevel",
            &Document {
                inputs,
                runs,
                seed,
                figures,
                model: check,
            },
        ),
        MultilevelFormat::Csv => {
            let mut records: Vec<Vec<String>> = named(inputs, figures)
                .into_iter()
                .map(|(name, e, unit)| {
                    let name = match unit {
                        Some(Unit::Duration) => format!("{}_s", name.replace(' ', "_")),
                        _ => name.replace(' ', "_"),
                    };
                    std::iter::once(name)
                        .chain(super::estimate_cells(&e))
                        .collect::<Vec<_>>()
                })
                .collect();
            records.push(vec![
                "model_overhead".into(),
                format!("{model_overhead:?}"),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]);
            super::csv_document("figure,point,stderr,ci95_lo,ci95_hi,runs", records)
        }
        MultilevelFormat::Table => {
            let strides: Vec<String> = inputs
                .strides
                .iter()
                .map(|s| s.map_or("-".into(), |k| k.to_string()))
                .collect();
            let rows: Vec<(String, Estimate, Option<Unit>)> = named(inputs, figures)
                .into_iter()
                .filter(|r| r.2.is_some())
                .collect();
            let table_rows: Vec<(&str, Estimate, Unit)> = rows
                .iter()
                .filter_map(|(n, e, u)| u.map(|u| (n.as_str(), *e, u)))
                .collect();
            let mut out = figure_table(
                &format!(
                    "multilevel: {}, seed {seed}; base interval {}, strides {}",
                    super::simulate::runs_text(runs),
                    format_duration(inputs.interval_s),
                    strides.join(",")
                ),
                &table_rows,
            );
            let o = &figures.overhead;
            let ci = if o.runs > 1 {
                format!("95% CI {:.6} .. {:.6}", o.ci95[0], o.ci95[1])
            } else {
                "95% CI n/a: 1 run".to_string()
            };
            out.push_str(&format!(
                "\noverhead {:.6} ({ci}); exact model {:.6}{}\n",
                o.point,
                model_overhead,
                match (check.whole_periods, check.z) {
                    (true, Some(z)) => format!(", z = {z:+.2}"),
                    (true, None) => String::new(),
                    (false, _) => format!(
                        " for whole periods (the work is {:.2} periods of {}: the model is the long-job limit)",
                        work / period,
                        format_duration(period)
                    ),
                }
            ));
            out
        }
    }
}

//! The renewal validation report (`validate --dist` for one job): the table and verdict,
//! `validate.json`, `validate.csv`, the `schedule`, `hazard` and `difference` plots and
//! `report.md`, in the shapes of the other validation reports.

use super::markdown;
use super::plot::{Axis, Band, Marker, Plot, Series, Unit};
use super::renewal::RenewalInputsJson;
use super::table::{self, Align, plain_seconds};
use crate::failure::Lifetime;
use crate::model::finite_renewal::PredictionKind;
use crate::sim::stats::Estimate;
use crate::units::format_duration;
use crate::validate::Z_AGREES;
use crate::validate::renewal::{
    DEFAULT_WORK_MTBFS, PolicyResult, RenewalValidateOptions, RenewalValidation,
};
use serde::Serialize;

fn inputs(v: &RenewalValidation) -> RenewalInputsJson {
    let p = &v.policies;
    RenewalInputsJson {
        mtbf_s: p.life.mean(),
        cost_s: p.cost_s,
        restart_s: p.restart_s,
        dist: p.life.shape().to_string(),
        // The simulated work is in `options`.
        work_s: None,
        walltime_s: None,
        signal_margin_s: None,
    }
}

/// A policy's paired difference to the schedule in percent of the schedule's mean overhead.
fn diff_pct(v: &RenewalValidation, r: &PolicyResult) -> Estimate {
    let base = v.results[0].simulated_overhead.point;
    crate::validate::scaled(r.diff_vs_schedule, 100.0 / base)
}

#[derive(Serialize)]
struct JsonPolicy<'a> {
    #[serde(flatten)]
    result: &'a PolicyResult,
    diff_vs_schedule_pct: Estimate,
}

#[derive(Serialize)]
struct Verdict {
    all_agree: bool,
    schedule_not_worse: bool,
    tie: f64,
    confirmed: bool,
}

#[derive(Serialize)]
struct Doc<'a> {
    inputs: RenewalInputsJson,
    options: &'a RenewalValidateOptions,
    recommended: &'static str,
    recommended_interval_s: f64,
    verdict: Verdict,
    policies: Vec<JsonPolicy<'a>>,
}

/// `validate.json`: seconds throughout, CIs as `{point, stderr, ci95, runs}`.
pub fn json(v: &RenewalValidation) -> String {
    super::validation_document(
        "renewal",
        &Doc {
            inputs: inputs(v),
            options: &v.options,
            recommended: v.results[0].name,
            recommended_interval_s: v.results[0].chunks_s.first().copied().unwrap_or(0.0),
            verdict: Verdict {
                all_agree: v.all_agree,
                schedule_not_worse: v.schedule_not_worse,
                tie: v.tie,
                confirmed: v.all_agree && v.schedule_not_worse,
            },
            policies: v
                .results
                .iter()
                .map(|r| JsonPolicy {
                    result: r,
                    diff_vs_schedule_pct: diff_pct(v, r),
                })
                .collect(),
        },
    )
}

/// `validate.csv`: one line per policy.
pub fn csv(v: &RenewalValidation) -> String {
    let header = "policy,first_chunk_s,last_chunk_s,chunks,predicted_overhead,prediction,long_run_overhead,predicted_stderr,overhead,stderr,ci95_lo,ci95_hi,runs,z,agrees,diff_vs_schedule,diff_stderr,diff_ci95_lo,diff_ci95_hi,predicted_diff,diff_z";
    let records = v.results.iter().map(|r| {
        // The difference's run count is the overhead's.
        let [d_point, d_stderr, d_lo, d_hi, _] = super::estimate_cells(&r.diff_vs_schedule);
        let mut record = vec![
            r.name.to_string(),
            super::csv_cell(r.chunks_s.first().copied()),
            super::csv_cell(r.chunks_s.last().copied()),
            r.chunks_s.len().to_string(),
            super::csv_cell(r.predicted_overhead),
            prediction_name(r.prediction).to_string(),
            super::csv_cell(r.long_run_overhead),
            super::csv_cell(r.predicted_stderr),
        ];
        record.extend(super::estimate_cells(&r.simulated_overhead));
        record.extend([
            super::csv_cell(r.z),
            r.agrees.to_string(),
            d_point,
            d_stderr,
            d_lo,
            d_hi,
            super::csv_cell(r.predicted_diff),
            super::csv_cell(r.diff_z),
        ]);
        record
    });
    super::csv_document(header, records)
}

/// Points of the hazard curve.
const HAZARD_POINTS: usize = 400;
/// Repetitions of the last chunk drawn after the listed ones, so its flat end shows.
const SHOWN_REPEATS: usize = 3;

/// How far after the restart the schedule and hazard plots reach (s): the listed chunks with
/// their checkpoints, then a few repetitions of the last.
fn span(v: &RenewalValidation) -> f64 {
    let c = v.policies.cost_s;
    let chunks = &v.results[0].chunks_s;
    let listed: f64 = chunks.iter().map(|w| w + c).sum();
    let last = chunks.last().copied().unwrap_or(0.0);
    listed + SHOWN_REPEATS as f64 * (last + c)
}

fn time_axis() -> Axis {
    Axis {
        label: "time since the restart ended".into(),
        log: false,
        unit: Unit::Seconds,
    }
}

/// The chunk lengths after a restart as steps over the time since the restart ended (each
/// chunk drawn across its own work and checkpoint), beside the best period.
pub fn schedule_plot(v: &RenewalValidation) -> Plot {
    let c = v.policies.cost_s;
    let chunks = &v.results[0].chunks_s;
    let last = chunks.last().copied().unwrap_or(0.0);
    let shown = chunks
        .iter()
        .copied()
        .chain(std::iter::repeat_n(last, SHOWN_REPEATS));
    let mut steps = Vec::new();
    let mut t = 0.0;
    for w in shown {
        steps.push((t, w));
        t += w + c;
        steps.push((t, w));
    }
    let periodic = v.results[1].chunks_s.first().copied().unwrap_or(0.0);
    Plot {
        id: "schedule".into(),
        title: format!(
            "Chunks of work after a restart, {} failures",
            v.policies.life.shape()
        ),
        x: time_axis(),
        y: Axis {
            label: "work between checkpoints".into(),
            log: false,
            unit: Unit::Seconds,
        },
        bands: vec![],
        series: vec![
            Series {
                name: format!(
                    "optimal schedule ({} chunks, the last repeating)",
                    chunks.len()
                ),
                points: steps,
                dashed: false,
            },
            Series {
                name: format!("best period ({})", format_duration(periodic)),
                points: vec![(0.0, periodic), (t, periodic)],
                dashed: true,
            },
        ],
        markers: vec![],
        error_bars: vec![],
    }
}

/// The mean hazard of `life` over `[a, b]`: `(ln S(a) - ln S(b)) / (b - a)`, finite where the
/// hazard itself is not (a Weibull below shape 1 at age 0).
fn mean_hazard(life: &Lifetime, a: f64, b: f64) -> f64 {
    (life.ln_sf(a) - life.ln_sf(b)) / (b - a)
}

/// The hazard rate of `F` times the MTBF (1 for exponential failures) over the same times
/// since the restart as [`schedule_plot`]: where it falls, the chunks can grow.
pub fn hazard_plot(v: &RenewalValidation) -> Plot {
    let life = &v.policies.life;
    let r = v.policies.restart_s;
    let m = life.mean();
    let end = span(v);
    let dx = end / HAZARD_POINTS as f64;
    let points: Vec<(f64, f64)> = (0..HAZARD_POINTS)
        .map(|i| {
            let x = i as f64 * dx;
            (x + 0.5 * dx, m * mean_hazard(life, r + x, r + x + dx))
        })
        .filter(|p| p.1.is_finite())
        .collect();
    Plot {
        id: "hazard".into(),
        title: format!(
            "Hazard rate of {} failures, the restart ({}) survived",
            life.shape(),
            format_duration(r)
        ),
        x: time_axis(),
        y: Axis {
            label: "hazard x MTBF (1 = exponential)".into(),
            log: false,
            unit: Unit::Plain,
        },
        bands: vec![],
        series: vec![
            Series {
                name: format!("hazard of {} x MTBF", life.shape()),
                points,
                dashed: false,
            },
            Series {
                name: "exponential failures".into(),
                points: vec![(0.0, 1.0), (end, 1.0)],
                dashed: true,
            },
        ],
        markers: vec![],
        error_bars: vec![],
    }
}

/// Each other policy's paired difference of overhead to the schedule: the simulated mean
/// (marker) inside its 95% CI (a bar of the legend's colour), the model's difference (dashed)
/// and zero (no difference), one policy per position on the horizontal axis.
pub fn difference_plot(v: &RenewalValidation) -> Plot {
    let others: Vec<(f64, &PolicyResult)> = v
        .results
        .iter()
        .skip(1)
        .enumerate()
        .map(|(i, r)| ((i + 1) as f64, r))
        .collect();
    let base = v.results[0].simulated_overhead.point;
    let markers: Vec<Marker> = others
        .iter()
        .map(|&(x, r)| Marker {
            name: format!("{}: {:+.3}% simulated", r.name, diff_pct(v, r).point),
            x,
            y: diff_pct(v, r).point,
        })
        .collect();
    let bands: Vec<Band> = others
        .iter()
        .map(|&(x, r)| {
            let d = diff_pct(v, r);
            Band {
                name: format!("{}: 95% CI", r.name),
                points: vec![
                    (x - 0.12, d.ci95[0], d.ci95[1]),
                    (x + 0.12, d.ci95[0], d.ci95[1]),
                ],
            }
        })
        .collect();
    let model: Vec<(f64, f64)> = others
        .iter()
        .filter_map(|&(x, r)| r.predicted_diff.map(|d| (x, 100.0 * d / base)))
        .collect();
    let (lo, hi) = (0.6, others.len() as f64 + 0.4);
    Plot {
        id: "difference".into(),
        title: "Extra wall time of each policy over the schedule, same failures".into(),
        x: Axis {
            label: format!(
                "policy: {}",
                others
                    .iter()
                    .map(|&(x, r)| format!("{x} = {}", r.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            log: false,
            unit: Unit::Plain,
        },
        y: Axis::percent("overhead over the schedule's (%)"),
        bands,
        series: vec![
            Series {
                name: "model".into(),
                points: model,
                dashed: true,
            },
            Series {
                name: "no difference".into(),
                points: vec![(lo, 0.0), (hi, 0.0)],
                dashed: true,
            },
        ],
        markers,
        error_bars: vec![],
    }
}

fn prediction_name(k: PredictionKind) -> &'static str {
    match k {
        PredictionKind::FiniteJob => "finite-job",
        PredictionKind::LongRun => "long-run",
    }
}

/// Where the model's standard error is at least this many times the runs' own, the verdict
/// says that z divides by it.
const RARE_SPREAD: f64 = 2.0;

/// The verdict in one paragraph.
pub fn verdict_paragraph(v: &RenewalValidation) -> String {
    let disagree: Vec<String> = v
        .results
        .iter()
        .filter(|r| !r.agrees)
        .map(|r| match (r.z, r.predicted_overhead) {
            (Some(z), _) => format!("`{}` (z = {z:.2})", r.name),
            (None, Some(p)) if r.simulated_overhead.all_alike() => format!(
                "`{}` (every run {:.5}, predicted {p:.5})",
                r.name, r.simulated_overhead.point
            ),
            (None, _) => format!("`{}` (z = -)", r.name),
        })
        .collect();
    let mut s = format!(
        "{} runs of {} of work each, {} failures (MTBF {}), every policy on the same failures. ",
        v.options.runs,
        format_duration(v.options.work_s),
        v.policies.life.shape(),
        format_duration(v.policies.life.mean()),
    );
    s.push_str(&super::validate::listed(
        &disagree,
        &format!("Every prediction agrees with its simulation (|z| < {Z_AGREES})."),
        &format!("Predictions NOT confirmed (|z| >= {Z_AGREES})"),
    ));
    let diffs: Vec<String> = v
        .results
        .iter()
        .skip(1)
        .map(|r| {
            let d = diff_pct(v, r);
            format!(
                "`{}` {:+.3}% (95% CI {:+.3}% to {:+.3}%)",
                r.name, d.point, d.ci95[0], d.ci95[1]
            )
        })
        .collect();
    s.push_str(&format!(
        " Paired against the schedule, the others take {}: the schedule is {}.",
        diffs.join(", "),
        if v.schedule_not_worse {
            "not worse than any of them"
        } else {
            "measurably worse than one of them"
        }
    ));
    s.push_str(&format!(
        " (Differences within {:.1e} of overhead, the model's precision, count as ties.)",
        v.tie
    ));
    let rare: Vec<String> = v
        .results
        .iter()
        .filter_map(|r| {
            let (own, model) = (r.simulated_overhead.stderr?, r.predicted_stderr?);
            (own > 0.0 && model >= RARE_SPREAD * own).then(|| {
                format!(
                    "`{}` (the model's {model:.1e}, {:.1} times the runs' own)",
                    r.name,
                    model / own
                )
            })
        })
        .collect();
    if !rare.is_empty() {
        s.push_str(&format!(
            " For {}, z divides by the model's standard error: most of that spread lies in long losses too rare for {} runs to show.",
            rare.join(", "),
            v.options.runs
        ));
    }
    for r in &v.results {
        let Some(g) = r.rounded_to_s else { continue };
        let grid = if g == 1.0 {
            "in whole seconds, as --format env gives them".to_string()
        } else {
            format!("rounded to whole multiples of {g} s")
        };
        s.push_str(&format!(
            " `{}` runs its chunks {grid}: the model follows that job's states, not those of the chunks to the nanosecond.",
            r.name
        ));
    }
    let long_run: Vec<String> = v
        .results
        .iter()
        .filter(|r| r.prediction == PredictionKind::LongRun)
        .map(|r| format!("`{}`", r.name))
        .collect();
    if !long_run.is_empty() {
        s.push_str(&format!(
            " Predicted: each policy's expected overhead over this job, except the long-run overhead (marked `lr`) for {}, whose job has more states than the model follows.",
            long_run.join(", ")
        ));
        let lives = v.options.work_s / v.policies.life.mean();
        let missed = v
            .results
            .iter()
            .any(|r| r.prediction == PredictionKind::LongRun && !r.agrees);
        if missed && lives < DEFAULT_WORK_MTBFS {
            s.push_str(&format!(
                " A long-run figure is a limit over many lives, and a job of {lives:.0} MTBFs may differ from it by its two ends (the first life with no restart, the last one cut short): a longer --work (the default is {DEFAULT_WORK_MTBFS:.0} MTBFs) tests the long-run figure itself."
            ));
        }
    }
    s
}

const COLUMNS: [&str; 7] = [
    "policy",
    "first chunk",
    "predicted",
    "simulated (± stderr)",
    "z",
    "vs schedule (95% CI)",
    "verdict",
];

/// One row per policy: the cells of both the terminal table and `report.md`'s.
fn rows(v: &RenewalValidation) -> Vec<Vec<String>> {
    v.results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            vec![
                r.name.to_string(),
                r.chunks_s
                    .first()
                    .map_or("-".into(), |&w| format_duration(w)),
                match (r.predicted_overhead, r.prediction) {
                    (None, _) => "-".into(),
                    (Some(p), PredictionKind::FiniteJob) => format!("{p:.5}"),
                    (Some(p), PredictionKind::LongRun) => format!("{p:.5} lr"),
                },
                table::mean_se(&r.simulated_overhead, 5),
                table::z_score(r.z),
                // The schedule's difference to itself is no figure.
                if i == 0 {
                    "-".into()
                } else {
                    table::regret(&diff_pct(v, r))
                },
                if r.agrees { "agrees" } else { "DISAGREES" }.into(),
            ]
        })
        .collect()
}

/// The table for a terminal, then the verdict.
pub fn table(v: &RenewalValidation) -> String {
    let align = Align::columns("lrrrrrl");
    table::with_paragraph(&COLUMNS, &align, &rows(v), &verdict_paragraph(v))
}

/// `report.md`: the verdict, the chunks and the hazard side by side (one line, two images),
/// the paired differences, the table and the chunks.
pub fn markdown(v: &RenewalValidation, command: &str) -> String {
    let data = "validate.json";
    let side_by_side = format!(
        "{} {}",
        markdown::figure("chunks of work after a restart", &schedule_plot(v), data).trim_end(),
        markdown::figure(
            "hazard rate of the failure distribution",
            &hazard_plot(v),
            data
        )
    );
    let intro = format!(
        "{}\n\nThe chunks after a restart (left) follow the hazard of the failure distribution (right, same time axis): where failures get rarer the chunks grow, where they get likelier the chunks shrink.\n\n{}",
        verdict_paragraph(v),
        side_by_side.trim_end()
    );
    let table = markdown::table(&COLUMNS, &Align::columns("lrrrrrl"), &rows(v));
    let chunks: Vec<String> = v.results[0]
        .chunks_s
        .iter()
        .map(|&w| plain_seconds(w))
        .collect();
    markdown::document(
        "ckpt validate (one job, renewal failures)",
        command,
        &intro,
        &[(
            "extra wall time of each policy over the schedule",
            &difference_plot(v),
        )],
        data,
        &format!(
            "{table}\nThe schedule after each restart (s, the last repeats): {}\n\nData: `validate.json` and `validate.csv` (every policy's chunks, predicted and simulated overhead with its CI, z, and its paired difference to the schedule).\n",
            chunks.join(" ")
        ),
    )
}

/// The plots, in report order.
fn plots(v: &RenewalValidation) -> [Plot; 3] {
    [schedule_plot(v), hazard_plot(v), difference_plot(v)]
}

super::folder!("validate", RenewalValidation);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::Shape;
    use crate::units::{Nanos, chunk_ns, secs_to_ns};
    use crate::validate::renewal::{PolicyCheck, RenewalPolicies, finish, predictions};

    /// Where a long-run prediction misses a job shorter than the default, the verdict says why
    /// it may and what tests the figure itself; where every prediction agrees it says nothing.
    #[test]
    fn a_long_run_figure_that_misses_a_short_job_points_to_a_longer_one() {
        let life = Lifetime::new(Shape::Weibull { shape: 0.7 }, 3600.0).unwrap();
        let work_s = 100.0 * 3600.0;
        let work = secs_to_ns(work_s);
        let mut p = RenewalPolicies::new(life, 120.0, 120.0, work).unwrap();
        // The schedule to the nanosecond, each chunk a few ns off, so that the chunks have no
        // common step and the model gives the long-run figure.
        let analysis = p.model().unwrap().analyze().unwrap();
        let odd: Vec<Nanos> = (analysis.schedule.chunks.iter())
            .zip(1..)
            .map(|(&w, i)| chunk_ns(w) + i)
            .collect();
        p.policies[0].chunks = odd;
        p.policies[0].rounded_to = None;
        let predicted = predictions(&p, work).unwrap();
        assert_eq!(predicted[0].kind, PredictionKind::LongRun);
        let options = RenewalValidateOptions {
            work_s,
            runs: 20,
            seed: 1,
        };
        // Runs spread by 1e-4 around `off` times each prediction. The model's standard error
        // of 20 runs of 100 lives is about 0.7% of overhead, so z divides by it: 1% off would
        // still agree, half as much again does not.
        let walls = |off: f64| -> Vec<Vec<Nanos>> {
            (0..20)
                .map(|i| {
                    let spread = 1.0 + 1e-4 * (i % 2) as f64;
                    (predicted.iter())
                        .map(|x| (x.overhead.unwrap() * off * spread * work as f64) as Nanos)
                        .collect()
                })
                .collect()
        };
        let check = PolicyCheck {
            policies: p,
            options,
        };
        let hint = "a job of 100 MTBFs may differ from it by its two ends";
        let missed = finish(&check, walls(1.5)).unwrap();
        assert!(!missed.results[0].agrees);
        assert!(verdict_paragraph(&missed).contains(hint));
        let agreed = finish(&check, walls(1.0)).unwrap();
        assert!(agreed.results[0].agrees);
        assert!(!verdict_paragraph(&agreed).contains(hint));
    }
}

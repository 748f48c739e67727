//! `ckpt interval --dist` for a single job (no `--procs`): the renewal model's rows, its JSON
//! `schedule` object and its env lines (`docs/models.md` §13), with each policy's completion of
//! `--work` where it is given (§13.1). Pure functions of a [`RenewalAnalysis`] and a
//! [`RenewalCompletion`]; the command layer renders them.

use super::finite::{
    AllocationJson, WholeChunksJson, allocation_json, allocation_lines, saved_loss_pct,
    whole_chunks_json, whole_chunks_line,
};
use super::table::{Align, percent, plain_seconds, ruled, seconds};
use crate::finite::{RenewalAllocationAnswer, RenewalCompletion};
use crate::model::finite_renewal::{Prediction, PredictionKind};
use crate::model::renewal::{Cut, RenewalAnalysis};
use crate::units::{format_duration, whole_seconds};
use serde::Serialize;

/// One row of the table: an interval (or a schedule) judged under the renewal model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenewalRow {
    /// `young`, `daly-complete`, `renewal-periodic` or `renewal-schedule`.
    pub name: &'static str,
    /// The interval (s); for the schedule, its first chunk.
    pub interval_s: f64,
    /// The long-run overhead under `F` (`None` beyond f64 range).
    pub overhead: Option<f64>,
    /// Percent lost against the schedule's overhead (never negative).
    pub loss_pct: Option<f64>,
    /// With `--work`: the expected completion and what it rests on.
    #[serde(flatten)]
    pub completion: Option<RowCompletion>,
}

/// A row's expected completion of `--work` from a fresh start.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RowCompletion {
    /// Expected wall time to finish the work (s; `None` beyond f64 range).
    pub completion_s: Option<f64>,
    /// `finite-job` (the job's own expected wall time) or `long-run` (the long-run overhead
    /// times the work, where the finite job has more states than the model follows).
    pub completion_basis: PredictionKind,
    /// The standard deviation of the wall time (s), on the same basis (`None` where the model
    /// gives none).
    pub completion_sd_s: Option<f64>,
    /// The schedule's only, where its completion is of its chunks on a grid coarser than whole
    /// seconds (s; [`RenewalCompletion::schedule_grid_s`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_grid_s: Option<u64>,
}

impl RowCompletion {
    fn of(p: &Prediction, work_s: f64) -> RowCompletion {
        RowCompletion {
            completion_s: p.overhead.map(|o| o * work_s),
            completion_basis: p.kind,
            completion_sd_s: p.sd,
            completion_grid_s: None,
        }
    }
}

/// The rows young, daly-complete (both at the mean, evaluated under `F`), renewal-periodic and
/// renewal-schedule (the recommendation), in that order, with their completions when `c` is
/// given.
pub fn rows(a: &RenewalAnalysis, c: Option<&RenewalCompletion>) -> Vec<RenewalRow> {
    let best = a.schedule.overhead;
    let loss = |o: Option<f64>| o.map(|o| (100.0 * (o / best - 1.0)).max(0.0));
    let completion = |pick: fn(&RenewalCompletion) -> &Prediction| {
        c.map(|c| RowCompletion::of(pick(c), c.work_s))
    };
    let row = |name, interval_s, overhead: Option<f64>, completion| RenewalRow {
        name,
        interval_s,
        overhead,
        loss_pct: loss(overhead),
        completion,
    };
    vec![
        row(
            "young",
            a.young.interval,
            a.young.overhead,
            completion(|c| &c.young),
        ),
        row(
            "daly-complete",
            a.daly.interval,
            a.daly.overhead,
            completion(|c| &c.daly),
        ),
        row(
            "renewal-periodic",
            a.periodic.interval,
            Some(a.periodic.overhead()),
            completion(|c| &c.periodic),
        ),
        row(
            "renewal-schedule",
            a.schedule
                .chunks
                .first()
                .copied()
                .unwrap_or(a.periodic.interval),
            Some(best),
            c.map(|c| RowCompletion {
                completion_grid_s: (c.schedule_grid_s > 1).then_some(c.schedule_grid_s),
                ..RowCompletion::of(&c.schedule, c.work_s)
            }),
        ),
    ]
}

/// The JSON `schedule` object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScheduleJson {
    /// Work between checkpoints after a restart (s); the last repeats.
    pub chunks_s: Vec<f64>,
    /// The schedule's long-run overhead under `F`.
    pub overhead: f64,
    /// The best periodic interval under `F` (s).
    pub periodic_interval_s: f64,
    /// Its overhead.
    pub periodic_overhead: f64,
    /// `100 (periodic_overhead / overhead - 1)`: what the schedule saves over the period.
    pub gain_pct: f64,
    /// The grid's error on `overhead` (absolute, `docs/models.md` §13).
    pub grid_error: f64,
    /// Why the list ends where it does: `stable`, `tail`, `limit` or `horizon`.
    pub cut: Cut,
}

/// The `schedule` object of the JSON answer.
pub fn schedule_json(a: &RenewalAnalysis) -> ScheduleJson {
    let s = &a.schedule;
    ScheduleJson {
        chunks_s: s.chunks.clone(),
        overhead: s.overhead,
        periodic_interval_s: a.periodic.interval,
        periodic_overhead: a.periodic.overhead(),
        gain_pct: 100.0 * (a.periodic.overhead() / s.overhead - 1.0),
        grid_error: s.grid_error,
        cut: s.cut,
    }
}

/// `CKPT_INTERVAL_SECONDS=N` (the best periodic interval) and
/// `CKPT_SCHEDULE_SECONDS="w1 w2 ..."` (the schedule, the last repeating), whole seconds, at
/// least 1 each, for `eval` in a batch script.
pub fn env(a: &RenewalAnalysis) -> String {
    let chunks: Vec<String> = a
        .schedule
        .chunks
        .iter()
        .map(|&w| whole_seconds(w).to_string())
        .collect();
    format!(
        "CKPT_INTERVAL_SECONDS={}\nCKPT_SCHEDULE_SECONDS=\"{}\"\n",
        whole_seconds(a.periodic.interval),
        chunks.join(" ")
    )
}

/// `--format env` with `--walltime`: the allocation's lines ([`super::finite::env()`]) and its
/// schedule, one interval repeating, as `CKPT_SCHEDULE_SECONDS` (the variable that [`env()`]
/// gives without `--walltime`, so that a script reading it runs the allocation's period).
pub fn allocation_env(a: &RenewalAllocationAnswer) -> String {
    let interval = allocation_interval(a);
    format!(
        "{}CKPT_SCHEDULE_SECONDS=\"{}\"\n",
        super::finite::env(interval, a.best.plan.signal_lead),
        whole_seconds(interval)
    )
}

/// The interval a batch script runs in the allocation: in whole iterations with
/// `--iteration-time`, else the best period.
pub fn allocation_interval(a: &RenewalAllocationAnswer) -> f64 {
    a.iterations.map_or(a.best.plan.interval, |it| it.interval)
}

/// The rows as an aligned table, the recommended one starred, then the schedule's chunks; with
/// `c`, a completion column and the whole-chunk line.
pub fn table(a: &RenewalAnalysis, c: Option<&RenewalCompletion>) -> String {
    let rows = rows(a, c);
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                if r.name == "renewal-schedule" {
                    format!("{} *", r.name)
                } else {
                    r.name.to_string()
                },
                seconds(r.interval_s),
                r.overhead
                    .map(|o| format!("{o:.6}"))
                    .unwrap_or_else(|| "-".into()),
                r.loss_pct
                    .map(|l| format!("{l:.4}%"))
                    .unwrap_or_else(|| "-".into()),
            ];
            if let Some(rc) = &r.completion {
                let shown = rc.completion_s.map_or_else(|| "-".into(), format_duration);
                cells.push(match rc.completion_basis {
                    PredictionKind::FiniteJob => shown,
                    PredictionKind::LongRun => format!("{shown} lr"),
                });
                cells.push(
                    rc.completion_sd_s
                        .map_or_else(|| "-".into(), format_duration),
                );
            }
            cells
        })
        .collect();
    let mut header = vec!["model", "seconds", "overhead", "loss"];
    if c.is_some() {
        header.extend(["completion", "sd"]);
    }
    let mut out = ruled(&header, &Align::columns(&"lrrrrr"[..header.len()]), &cells);
    let s = schedule_json(a);
    let chunks: Vec<String> = s.chunks_s.iter().map(|&w| plain_seconds(w)).collect();
    out.push_str(&format!(
        "\nschedule after each restart (s, the last repeats): {}\n\
         gain over the best period: {:.4}% (grid error {:.1e} on the overhead)\n",
        chunks.join(" "),
        s.gain_pct,
        s.grid_error
    ));
    if let Some(c) = c {
        out.push_str(&format!(
            "completion: expected wall time to finish {} of work, the first life starting on a renewed system with no restart; sd: its standard deviation
",
            format_duration(c.work_s)
        ));
        let long_run = rows.iter().any(|r| {
            r.completion
                .is_some_and(|rc| rc.completion_basis == PredictionKind::LongRun)
        });
        if long_run {
            out.push_str(
                "lr: the long-run overhead times the work; the job has more states than the finite-job model follows
",
            );
        }
        if let Some(w) = &c.whole_chunks {
            out.push_str(&whole_chunks_line(w, c.work_s));
        }
        if let Some(note) = grid_note(a, c) {
            out.push_str(&note);
        }
    }
    out
}

/// A note on the chunks the schedule's completion is of: on a grid coarser than whole seconds,
/// always; in whole seconds (as `--format env` gives them), where they are worse than the
/// chunks listed by more than the grid's error (chunks of a few seconds or less, which the
/// rounding moves far).
fn grid_note(a: &RenewalAnalysis, c: &RenewalCompletion) -> Option<String> {
    let listed = a.schedule.overhead;
    let rounded = c.schedule.long_run?;
    let tolerance = a.schedule.grid_error.max(1e-6 * listed);
    if c.schedule_grid_s > 1 {
        return Some(format!(
            "note: the schedule's completion is of its chunks rounded to whole multiples of {} s, whose job the model follows (in whole seconds, as --format env gives them, the job has more states than it follows): their long-run overhead is {rounded:.6}, against {listed:.6} for the chunks listed\n",
            c.schedule_grid_s
        ));
    }
    (rounded - listed > tolerance).then(|| {
        format!(
            "note: the schedule's completion is of its chunks in whole seconds (at least 1 s each), as --format env gives them: their long-run overhead is {rounded:.6}, against {listed:.6} for the chunks listed\n"
        )
    })
}

/// The inputs the renewal answer echoes (seconds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenewalInputsJson {
    /// The mean time between failures (s).
    pub mtbf_s: f64,
    /// The checkpoint cost (s).
    pub cost_s: f64,
    /// The restart cost (s).
    pub restart_s: f64,
    /// The distribution of the times between failures (`weibull:0.7`, ...).
    pub dist: String,
    /// `--work` (s), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_s: Option<f64>,
    /// `--walltime` (s), when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub walltime_s: Option<f64>,
    /// `--signal-margin` (s), with `--walltime`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal_margin_s: Option<f64>,
}

/// JSON `allocation` under renewal failures: §10's object for the best period under the
/// lifetime, the grid's error, and the exponential model's answer judged under it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RenewalAllocationJson {
    /// The best period under the lifetime, with `iterations` under `--iteration-time`.
    #[serde(flatten)]
    pub best: AllocationJson,
    /// The difference of the saved work between the grid and one of half its points (s).
    pub grid_error_s: f64,
    /// What taking the failures as exponential would run, and save under the lifetime.
    pub exponential: Option<ExponentialJson>,
}

/// The exponential model's allocation answer at the same MTBF, judged under the lifetime.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExponentialJson {
    /// Its checkpoints.
    pub checkpoints: u64,
    /// Its interval (s).
    pub interval_s: f64,
    /// The saved work the exponential model predicts for it (s).
    pub predicted_saved_work_s: f64,
    /// The saved work it gets under the lifetime (s).
    pub saved_work_s: f64,
    /// Percent less saved than the best period under the lifetime (never negative).
    pub loss_pct: f64,
}

/// The `allocation` object.
pub fn allocation_object(a: &RenewalAllocationAnswer) -> RenewalAllocationJson {
    let best = a.best.plan.expected_saved_work;
    let mut json = allocation_json(&a.best.plan);
    json.iterations = a
        .iterations
        .map(|it| super::finite::iteration_plan_json(&it, &a.best.plan));
    RenewalAllocationJson {
        best: json,
        grid_error_s: a.best.grid_error,
        exponential: a.exponential.map(|e| ExponentialJson {
            checkpoints: e.plan.checkpoints,
            interval_s: e.plan.interval,
            predicted_saved_work_s: e.plan.expected_saved_work,
            saved_work_s: e.saved_under_lifetime,
            loss_pct: saved_loss_pct(best, e.saved_under_lifetime),
        }),
    }
}

/// The table lines of the allocation under the lifetime `dist`.
pub fn allocation_table(a: &RenewalAllocationAnswer, walltime: f64, dist: &str) -> String {
    let mut out = allocation_lines(&a.best.plan, walltime);
    out.push_str(&format!(
        "(the best period under {dist} failures, docs/models.md §10.1; the saved work is good to {:.2} s on the model's grid)\n",
        a.best.grid_error
    ));
    if let Some(it) = &a.iterations {
        out.push_str(&super::finite::iteration_plan_line(it, &a.best.plan));
    }
    if let Some(e) = &a.exponential {
        out.push_str(&format!(
            "taken as exponential: {} checkpoints every {} s, predicted to save {:.0} s; under {dist} they save {:.0} s ({} less than the best)\n",
            e.plan.checkpoints,
            plain_seconds(e.plan.interval),
            e.plan.expected_saved_work,
            e.saved_under_lifetime,
            percent(saved_loss_pct(
                a.best.plan.expected_saved_work,
                e.saved_under_lifetime,
            )),
        ));
    }
    out
}

#[derive(Serialize)]
struct RenewalJson<'a> {
    inputs: &'a RenewalInputsJson,
    models: Vec<RenewalRow>,
    recommended: &'static str,
    recommended_interval_s: f64,
    recommended_overhead: f64,
    recommended_efficiency: f64,
    schedule: ScheduleJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    whole_chunks: Option<WholeChunksJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allocation: Option<RenewalAllocationJson>,
}

/// The answer as one JSON document: the inputs, the four rows, the recommendation (the
/// schedule) and the `schedule` object; with `c`, each row's completion and `whole_chunks`;
/// with `allocation`, the `allocation` object.
pub fn json(
    inputs: &RenewalInputsJson,
    a: &RenewalAnalysis,
    c: Option<&RenewalCompletion>,
    allocation: Option<&RenewalAllocationAnswer>,
) -> String {
    let schedule = schedule_json(a);
    let first = schedule
        .chunks_s
        .first()
        .copied()
        .unwrap_or(a.periodic.interval);
    super::command_document(
        "interval",
        &RenewalJson {
            inputs,
            models: rows(a, c),
            recommended: "renewal-schedule",
            recommended_interval_s: first,
            recommended_overhead: schedule.overhead,
            recommended_efficiency: 1.0 / schedule.overhead,
            schedule,
            whole_chunks: c
                .and_then(|c| c.whole_chunks.as_ref())
                .map(whole_chunks_json),
            allocation: allocation.map(allocation_object),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::renewal::{Judged, Schedule};
    use crate::optimize::Optimum;

    /// An analysis with round numbers, so every figure below can be checked by hand.
    fn analysis() -> RenewalAnalysis {
        RenewalAnalysis {
            young: Judged {
                interval: 10000.0,
                overhead: Some(1.2),
            },
            daly: Judged {
                interval: 9000.0,
                overhead: Some(1.15),
            },
            periodic: Optimum {
                interval: 8000.4,
                ln_overhead: 1.1f64.ln(),
                iterations: 10,
                converged: true,
                polished: false,
            },
            schedule: Schedule {
                chunks: vec![600.4, 1199.6, 0.2],
                overhead: 1.0,
                ln_overhead: 0.0,
                coarse_overhead: 1.0001,
                shifted_overhead: 1.0,
                grid_error: 1e-4,
                resolution: 0.01,
                grid_points: 100,
                horizon_s: 1e6,
                cut: Cut::Tail,
            },
        }
    }

    #[test]
    fn rows_are_in_order_with_losses_against_the_schedule() {
        let r = rows(&analysis(), None);
        let names: Vec<&str> = r.iter().map(|r| r.name).collect();
        assert_eq!(
            names,
            [
                "young",
                "daly-complete",
                "renewal-periodic",
                "renewal-schedule"
            ]
        );
        assert!((r[0].loss_pct.unwrap() - 20.0).abs() < 1e-9);
        assert!((r[1].loss_pct.unwrap() - 15.0).abs() < 1e-9);
        assert!((r[2].loss_pct.unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(r[3].loss_pct, Some(0.0));
        assert_eq!(r[3].interval_s, 600.4);
        let mut a = analysis();
        a.young.overhead = None;
        assert_eq!(rows(&a, None)[0].loss_pct, None);
    }

    #[test]
    fn json_object_has_the_documented_fields() {
        let v = serde_json::to_value(schedule_json(&analysis())).unwrap();
        assert_eq!(v["chunks_s"], serde_json::json!([600.4, 1199.6, 0.2]));
        assert_eq!(v["overhead"], 1.0);
        assert_eq!(v["periodic_interval_s"], 8000.4);
        assert!((v["periodic_overhead"].as_f64().unwrap() - 1.1).abs() < 1e-12);
        assert!((v["gain_pct"].as_f64().unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(v["cut"], "tail");
        assert_eq!(v["grid_error"], 1e-4);
    }

    #[test]
    fn env_lines_give_whole_seconds() {
        assert_eq!(
            env(&analysis()),
            "CKPT_INTERVAL_SECONDS=8000\nCKPT_SCHEDULE_SECONDS=\"600 1200 1\"\n"
        );
    }

    /// The schedule's completion is of its whole-second chunks; the table says so where they
    /// are worse than the chunks listed (here 1.5 against 1.0, far beyond the grid's 1e-4),
    /// and says nothing where they are not.
    #[test]
    fn whole_second_chunks_that_lose_are_noted() {
        let a = analysis();
        let prediction = |long_run: f64| Prediction {
            overhead: Some(long_run),
            kind: PredictionKind::LongRun,
            long_run: Some(long_run),
            sd: None,
        };
        let mut c = RenewalCompletion {
            work_s: 1e6,
            young: prediction(1.2),
            daly: prediction(1.15),
            periodic: prediction(1.1),
            schedule: prediction(1.5),
            schedule_grid_s: 1,
            whole_chunks: None,
        };
        let t = table(&a, Some(&c));
        assert!(
            t.contains("long-run overhead is 1.500000, against 1.000000 for the chunks listed"),
            "{t}"
        );
        c.schedule = prediction(1.00005);
        assert!(!table(&a, Some(&c)).contains("note:"));
        // A coarser grid is always named, in the note and in the schedule's JSON row only.
        c.schedule_grid_s = 15;
        let t = table(&a, Some(&c));
        assert!(t.contains("rounded to whole multiples of 15 s"), "{t}");
        let r = rows(&a, Some(&c));
        let grids: Vec<Option<u64>> = r
            .iter()
            .map(|r| r.completion.and_then(|c| c.completion_grid_s))
            .collect();
        assert_eq!(grids, [None, None, None, Some(15)]);
    }

    #[test]
    fn table_stars_the_schedule_and_lists_its_chunks() {
        let t = table(&analysis(), None);
        assert!(t.contains("renewal-schedule *"), "{t}");
        assert!(t.contains("young"), "{t}");
        assert!(t.contains("20.0000%"), "{t}");
        // A chunk below a second keeps three digits instead of printing as 0.
        assert!(
            t.contains("(s, the last repeats): 600 1200 2.00e-1\n"),
            "{t}"
        );
        assert!(t.contains("gain over the best period: 10.0000%"), "{t}");
    }
}

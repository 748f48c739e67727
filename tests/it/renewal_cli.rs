//! `ckpt interval --dist` for one job (the renewal model, docs/models.md §13) from the command
//! line: the exponential case against Daly's complete model written out here, the shape of the
//! schedule under Weibull failures, the env lines, each policy's completion of `--work` against
//! the simulator and against Daly's segments, and bad input.

use crate::common::{ckpt, daly_optimum, daly_overhead, named, refused, stdout_of};
use serde_json::Value;

const JOB: [&str; 7] = [
    "interval",
    "--mtbf",
    "24h",
    "--cost",
    "10m",
    "--restart",
    "10m",
];

fn answer(dist: &str) -> Value {
    let mut args = JOB.to_vec();
    args.extend(["--dist", dist, "--format", "json"]);
    serde_json::from_str(&stdout_of(&args)).unwrap()
}

fn chunks(v: &Value) -> Vec<f64> {
    v["schedule"]["chunks_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_f64().unwrap())
        .collect()
}

#[test]
fn exponential_failures_give_daly_complete_within_the_grid_error() {
    let (m, c, r) = (86400.0, 600.0, 600.0);
    let v = answer("exp");
    let s = &v["schedule"];
    let grid_error = s["grid_error"].as_f64().unwrap();
    let tau = daly_optimum(m, c, r);
    let best = daly_overhead(m, c, r, tau);
    let overhead = s["overhead"].as_f64().unwrap();
    assert!(
        (overhead - best).abs() <= grid_error + 1e-12 * best,
        "schedule {overhead} vs Daly {best} (grid error {grid_error})"
    );
    // The schedule is one chunk, Daly's interval (the overhead is flat at the optimum, so the
    // interval is known to about the square root of the overhead's precision).
    let ch = chunks(&v);
    assert!(
        ch.iter().all(|w| (w / tau - 1.0).abs() < 1e-4),
        "{ch:?} vs {tau}"
    );
    let daly = named(&v, "models", "daly-complete");
    assert!((daly["interval_s"].as_f64().unwrap() / tau - 1.0).abs() < 1e-4);
    assert!((s["gain_pct"].as_f64().unwrap()).abs() < 1e-6);
}

#[test]
fn weibull_0_7_chunks_grow_after_a_restart() {
    let v = answer("weibull:0.7");
    let ch = chunks(&v);
    let periodic = v["schedule"]["periodic_interval_s"].as_f64().unwrap();
    assert!(ch.len() > 2, "{ch:?}");
    // A decreasing hazard: short chunks right after a restart, longer ones later.
    assert!(ch[0] < periodic && periodic < ch[ch.len() - 1], "{ch:?}");
    assert!(ch[ch.len() - 1] > 1.5 * ch[0], "{ch:?}");
    assert!(v["schedule"]["gain_pct"].as_f64().unwrap() > 0.0);
    assert_eq!(v["recommended"], "renewal-schedule");
    let names: Vec<&str> = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "young",
            "daly-complete",
            "renewal-periodic",
            "renewal-schedule"
        ]
    );
    // Weibull 1.5 (an increasing hazard): the chunks shrink instead.
    let ch = chunks(&answer("weibull:1.5"));
    assert!(ch[ch.len() - 1] < 0.7 * ch[0], "{ch:?}");
}

#[test]
fn env_gives_the_period_and_the_schedule() {
    let v = answer("weibull:0.7");
    let mut args = JOB.to_vec();
    args.extend(["--dist", "weibull:0.7", "--format", "env"]);
    let env = stdout_of(&args);
    let lines: Vec<&str> = env.lines().collect();
    assert_eq!(lines.len(), 2, "{env}");
    let period = v["schedule"]["periodic_interval_s"]
        .as_f64()
        .unwrap()
        .round();
    assert_eq!(lines[0], format!("CKPT_INTERVAL_SECONDS={period}"));
    let listed: Vec<String> = chunks(&v)
        .iter()
        .map(|w| format!("{}", w.round()))
        .collect();
    assert_eq!(
        lines[1],
        format!("CKPT_SCHEDULE_SECONDS=\"{}\"", listed.join(" "))
    );
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    for (extra, mentions) in [
        (&["--dist", "weibull:0.005"][..], "weibull:0.005"),
        (&["--dist", "weibull:0"][..], "--dist"),
        (
            &["--dist", "weibull:0.7", "--downtime", "1m"][..],
            "--downtime",
        ),
        (
            &["--dist", "weibull:0.7", "--iteration-time", "1m"][..],
            "--iteration-time",
        ),
        (
            &["--dist", "weibull:0.7", "--work", "1000y"][..],
            "584 years",
        ),
        (&["--dist", "weibull:0.7", "--format", "scr"][..], "scr"),
        (
            &["--dist", "weibull:0.7", "--detect", "end"][..],
            "--detect",
        ),
    ] {
        let mut args = JOB.to_vec();
        args.extend(extra);
        let out = ckpt().args(&args).assert().code(2).get_output().clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(mentions), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `simulate periodic` of a job with a one-day MTBF under failures of `dist` and 10 min
/// checkpoints.
fn daily_job(dist: &str) -> Vec<&str> {
    vec![
        "simulate", "periodic", "--mtbf", "24h", "--dist", dist, "--cost", "10m",
    ]
}

/// Mean wall time of seeded runs of the daily job of `work` under `policy`, and its standard
/// error.
fn simulated_wall(dist: &str, work: &str, policy: &[&str], runs: &str) -> (f64, f64) {
    let mut args = daily_job(dist);
    args.extend([
        "--restart",
        "10m",
        "--work",
        work,
        "--runs",
        runs,
        "--seed",
        "11",
        "--format",
        "json",
        "--quiet",
    ]);
    args.extend(policy);
    let v: Value = serde_json::from_str(&stdout_of(&args)).unwrap();
    let wall = &v["figures"]["wall_time_s"];
    (
        wall["point"].as_f64().unwrap(),
        wall["stderr"].as_f64().unwrap(),
    )
}

/// Mean wall time per unit of work of 200 seeded runs of a long job (about 2000 lives, so its
/// start without a restart and its cut last chunk weigh little), and its standard error.
fn simulated_overhead(dist: &str, policy: &[&str]) -> (f64, f64) {
    let w = 48_000.0 * 3600.0;
    let (mean, se) = simulated_wall(dist, "48000h", policy, "200");
    (mean / w, se / w)
}

#[test]
fn simulated_schedule_and_period_agree_with_the_model() {
    let v = answer("weibull:0.7");
    let s = &v["schedule"];
    let list: Vec<String> = chunks(&v).iter().map(|c| format!("{c}")).collect();
    let list = list.join(",");
    let period = format!("{}", s["periodic_interval_s"].as_f64().unwrap());
    for (policy, predicted) in [
        (
            ["--schedule", list.as_str()],
            s["overhead"].as_f64().unwrap(),
        ),
        (
            ["--interval", period.as_str()],
            s["periodic_overhead"].as_f64().unwrap(),
        ),
    ] {
        let (mean, se) = simulated_overhead("weibull:0.7", &policy);
        let z = (mean - predicted) / se;
        assert!(
            z.abs() < 4.0,
            "{}: simulated {mean} ± {se}, predicted {predicted}",
            policy[0]
        );
    }
}

#[test]
fn bad_schedules_get_one_line_and_exit_2() {
    for (extra, mentions) in [
        (&["--schedule", "600,0,1200"][..], "chunk 2"),
        (&["--schedule", "600", "--interval", "1h"][..], "--interval"),
        (&["--schedule", "600,,1200"][..], "--schedule"),
        (&[][..], "--interval"),
    ] {
        let mut args = daily_job("weibull:0.7");
        args.extend(["--work", "100h"]);
        args.extend(extra);
        refused(&args, &[mentions]);
    }
}

#[test]
fn fit_advice_gives_the_schedule_of_the_best_family() {
    let v: Value = serde_json::from_str(&stdout_of(&[
        "fit",
        crate::common::package_file("data/failures/weibull-0.7.csv")
            .to_str()
            .unwrap(),
        "--cost",
        "10m",
        "--restart",
        "10m",
        "--format",
        "json",
    ]))
    .unwrap();
    let rows = v["intervals"].as_array().unwrap();
    let best = rows.iter().find(|r| r["at"] == "best-fit").unwrap();
    assert_eq!(best["model"], "renewal-schedule");
    let flags = best["flags"].as_str().unwrap();
    assert!(
        !flags.contains("--procs") && !flags.contains("--detect"),
        "{flags}"
    );
    // The printed flags give the printed schedule.
    let mut args = vec!["interval"];
    args.extend(flags.split_whitespace());
    args.extend(["--format", "json"]);
    let again: Value = serde_json::from_str(&stdout_of(&args)).unwrap();
    assert_eq!(again["schedule"]["chunks_s"], best["schedule_s"]);
    assert_eq!(again["schedule"]["overhead"], best["overhead"]);
}

/// The README's gains: every figure beside a command is what that command prints.
#[test]
fn readme_gains_are_what_the_commands_print() {
    let readme = crate::common::read_package_file("README.md");
    let lines: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("ckpt interval") && l.contains("--dist") && l.contains("# gain"))
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    for line in lines {
        let (command, figure) = line.split_once('#').unwrap();
        let figure = figure.trim().strip_prefix("gain ").unwrap();
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let out = stdout_of(&args);
        assert!(
            out.contains(&format!("gain over the best period: {figure} ")),
            "{command}: {out}"
        );
    }
}

/// Before: a large shape (a nearly fixed lifetime) panicked in statrs' incomplete gamma
/// function, from `weibull:200` up, and the schedule's grid then stepped over the cliff of its
/// survival (grid error 0.1 at `weibull:1e6` and `gamma:1e6`). Now every command answers up to a
/// shape of 1e6 with the grid error of a smooth lifetime; above, the shape is refused.
#[test]
fn nearly_fixed_lifetimes_do_not_panic() {
    for dist in ["weibull:200", "weibull:1e6", "gamma:1e6"] {
        let v = answer(dist);
        let grid_error = v["schedule"]["grid_error"].as_f64().unwrap();
        assert!(grid_error.is_finite() && grid_error < 1e-5, "{dist}: {v}");
    }
    // Before: gamma:1e17 ran for minutes in the incomplete gamma function.
    for dist in ["gamma:1e17", "weibull:1e300"] {
        let mut args = JOB.to_vec();
        args.extend(["--dist", dist]);
        refused(&args, &["--dist", dist, "a shape up to 1e6"]);
    }
}

/// The simulator's check of a nearly fixed lifetime's schedule: before, the grid's schedule
/// (one chunk of 84253 s at `weibull:1e4`) was exact for its chunk but its verdict said
/// `DISAGREES` (z = -5.8; the job's start and end, which the long-run figure leaves out, outweigh
/// a standard error when runs barely differ). The chunk up to the cliff agrees with its
/// simulation, at the overhead of the closed form in `model::renewal`'s tests (1.01507).
#[test]
fn a_nearly_fixed_lifetimes_schedule_agrees_with_its_simulation() {
    for (dist, expected) in [("weibull:1e4", Some(1.01507)), ("gamma:1e6", None)] {
        let mut args = JOB.to_vec();
        args[0] = "validate";
        args.extend(["--dist", dist, "--runs", "200", "--format", "json"]);
        let v: Value = serde_json::from_str(&stdout_of(&args)).unwrap();
        let schedule = &v["policies"][0];
        assert_eq!(schedule["name"], "renewal-schedule", "{v}");
        assert_eq!(schedule["agrees"], true, "{dist}: {schedule}");
        let predicted = schedule["predicted_overhead"].as_f64().unwrap();
        if let Some(expected) = expected {
            assert!((predicted - expected).abs() < 1e-5, "{dist}: {predicted}");
        }
        let periodic = &v["policies"][1];
        assert_eq!(periodic["name"], "renewal-periodic", "{v}");
        assert!(predicted < periodic["predicted_overhead"].as_f64().unwrap());
    }
}

/// Checkpoints cheap beside the cliff (`weibull:1e4`, one-day mean, `C = 1 s`): the schedule
/// keeps its short chunks through the cliff, and the simulator confirms both its overhead and
/// the saving over the one chunk up to the cliff repeated, the schedule the tail rule used to
/// give (1.000178 by the model).
#[test]
fn cheap_checkpoints_schedule_through_the_cliff_agrees_with_its_simulation() {
    let v: Value = serde_json::from_str(&stdout_of(&[
        "validate",
        "--dist",
        "weibull:1e4",
        "--mtbf",
        "24h",
        "--cost",
        "1s",
        "--work",
        "12d",
        "--runs",
        "400",
        "--seed",
        "7",
        "--format",
        "json",
    ]))
    .unwrap();
    let schedule = &v["policies"][0];
    assert_eq!(schedule["name"], "renewal-schedule", "{v}");
    assert_eq!(schedule["agrees"], true, "{schedule}");
    assert!(
        schedule["chunks_s"].as_array().unwrap().len() > 2,
        "{schedule}"
    );
    let e = &schedule["simulated_overhead"];
    let (mean, se) = (e["point"].as_f64().unwrap(), e["stderr"].as_f64().unwrap());
    assert!(mean + 4.0 * se < 1.000_178, "{schedule}");
}

/// The periods at a nearly fixed lifetime leave much of each life unused, so the first life,
/// which has no restart, fits one chunk more than the others: the long-run overhead misses the
/// runs by hundreds of standard errors (Young's by z = 781 at `weibull:1e4`), and the finite
/// job's expected wall time (`docs/models.md` §13.1) is what every policy agrees with.
#[test]
fn a_nearly_fixed_lifetimes_periods_agree_with_the_finite_job_not_the_long_run() {
    for dist in ["weibull:1e4", "gamma:1e6"] {
        let mut args = JOB.to_vec();
        args[0] = "validate";
        args.extend(["--dist", dist, "--runs", "200", "--format", "json"]);
        let v: Value = serde_json::from_str(&stdout_of(&args)).unwrap();
        assert_eq!(v["verdict"]["all_agree"], true, "{dist}: {}", v["verdict"]);
        for name in ["renewal-periodic", "young", "daly-complete"] {
            let p = named(&v, "policies", name);
            assert_eq!(p["prediction"], "finite-job", "{dist} {name}");
            assert!(p["z"].as_f64().unwrap().abs() < 4.0, "{dist} {name}: {p}");
            let e = &p["simulated_overhead"];
            let (mean, se) = (e["point"].as_f64().unwrap(), e["stderr"].as_f64().unwrap());
            let long_run = p["long_run_overhead"].as_f64().unwrap();
            let z = (long_run - mean) / se;
            if name != "renewal-periodic" {
                assert!(z > 4.0, "{dist} {name}: long-run z {z}");
            }
        }
    }
}

/// A 10 h job under lifetimes of nearly exactly 24 h never fails: its 20 runs take the same time.
/// The outcome is then exact (the work and one 10 min checkpoint per chunk, each chunk
/// `min(chunk, work left)`), with no spread: a standard error of 0, not the round-off of the
/// mean, which used to give the schedule z = -2.5e13 while the other rows showed none. No z is
/// formed; the finite job's prediction is that outcome, so every policy agrees (the long-run
/// figures, which count restarts and lost chunks, did not).
#[test]
fn runs_that_are_all_alike_report_the_outcome_and_no_z() {
    let mut args = JOB.to_vec();
    args[0] = "validate";
    args.extend(["--dist", "weibull:1e6", "--work", "10h", "--runs", "20"]);
    let mut json = args.clone();
    json.extend(["--format", "json"]);
    let v: Value = serde_json::from_str(&stdout_of(&json)).unwrap();
    let work = 36000.0;
    let policies = v["policies"].as_array().unwrap();
    assert_eq!(policies.len(), 4);
    for p in policies {
        let first = p["chunks_s"][0].as_f64().unwrap();
        let checkpoints = (work / first).ceil();
        let expected = (work + 600.0 * checkpoints) / work;
        let sim = &p["simulated_overhead"];
        assert!(
            (sim["point"].as_f64().unwrap() - expected).abs() < 1e-15,
            "{}: {sim} vs {expected}",
            p["name"]
        );
        assert_eq!(sim["stderr"], 0.0, "{p}");
        assert_eq!(sim["ci95"][0], sim["ci95"][1], "{p}");
        assert!(p["z"].is_null(), "{p}");
        assert_eq!(p["prediction"], "finite-job", "{p}");
        let predicted = p["predicted_overhead"].as_f64().unwrap();
        assert!((predicted - expected).abs() < 1e-9, "{p} vs {expected}");
        assert_eq!(p["agrees"], true, "{p}");
        let long_run = p["long_run_overhead"].as_f64().unwrap();
        assert!((long_run - expected).abs() > 1e-3, "{p}");
    }
    let table = stdout_of(&args);
    assert!(
        table.contains("Every prediction agrees with its simulation"),
        "{table}"
    );
}

/// `interval --dist DIST --work WORK --format json` of the daily job.
fn completion_answer(dist: &str, work: &str) -> Value {
    let mut args = JOB.to_vec();
    args.extend(["--dist", dist, "--work", work, "--format", "json"]);
    serde_json::from_str(&stdout_of(&args)).unwrap()
}

/// The daily job's schedule under `dist` as a batch script runs it (`--format env`, whole
/// seconds), comma-separated for `simulate --schedule`.
fn env_schedule(dist: &str) -> String {
    let mut env = JOB.to_vec();
    env.extend(["--dist", dist, "--format", "env"]);
    stdout_of(&env)
        .lines()
        .find_map(|l| l.strip_prefix("CKPT_SCHEDULE_SECONDS="))
        .unwrap()
        .trim_matches('"')
        .replace(' ', ",")
}

/// Ten MTBFs of work under Weibull 0.7: every policy gets the finite job's own figure, and the
/// simulator, run as a user would run each answer (the period as printed, the schedule as
/// `--format env` gives it, the whole chunks), agrees with it.
#[test]
fn each_policys_completion_agrees_with_its_simulation() {
    let v = completion_answer("weibull:0.7", "240h");
    assert_eq!(v["inputs"]["work_s"], 864000.0);
    for m in v["models"].as_array().unwrap() {
        assert_eq!(m["completion_basis"], "finite-job", "{m}");
    }
    let schedule = env_schedule("weibull:0.7");
    let young = format!("{}", named(&v, "models", "young")["interval_s"]);
    let whole = &v["whole_chunks"];
    let count = whole["count"].as_f64().unwrap();
    assert!((count - 864000.0 / 10345.0).abs() < 5.0, "{whole}");
    let chunk = format!("{}", whole["interval_s"]);
    for (policy, answer) in [
        (
            ["--schedule", schedule.as_str()],
            named(&v, "models", "renewal-schedule"),
        ),
        (["--interval", young.as_str()], named(&v, "models", "young")),
        (["--interval", chunk.as_str()], whole),
    ] {
        let predicted = answer["completion_s"].as_f64().unwrap();
        let (mean, se) = simulated_wall("weibull:0.7", "240h", &policy, "4000");
        let z = (mean - predicted) / se;
        assert!(
            z.abs() < 4.0,
            "{policy:?}: simulated {mean} ± {se}, predicted {predicted}"
        );
        same_spread(answer["completion_sd_s"].as_f64().unwrap(), se, 4000);
    }
}

/// The runs' standard deviation (`se` times the square root of `runs`) against the model's:
/// within 8%, about four standard errors of a sample standard deviation over 4000 runs of
/// a wall time whose kurtosis is below 6 (the model's own z test, with the runs' fourth
/// moment, is in `model::finite_renewal`).
fn same_spread(model_sd: f64, se: f64, runs: u32) {
    let sd = se * f64::from(runs).sqrt();
    assert!(
        (sd / model_sd - 1.0).abs() < 0.08,
        "simulated sd {sd}, model {model_sd}"
    );
}

/// Past 2^20 s of work the schedule's lattice of whole seconds is longer than a walk, and most of
/// its states lie beyond every life's end: twenty days under log-normal 1.5 get the finite job's
/// figure (22d 17h), which the simulator confirms, where the long-run one (22d 11h, the row's
/// figure before) departs by six hours and made the schedule's gain over the best period look
/// twice what it is.
#[test]
fn the_schedules_completion_of_a_long_job_is_the_finite_jobs() {
    let v = completion_answer("lognormal:1.5", "20d");
    let row = named(&v, "models", "renewal-schedule");
    assert_eq!(row["completion_basis"], "finite-job", "{row}");
    let schedule = env_schedule("lognormal:1.5");
    let (mean, se) = simulated_wall("lognormal:1.5", "20d", &["--schedule", &schedule], "4000");
    let completion = row["completion_s"].as_f64().unwrap();
    same_spread(row["completion_sd_s"].as_f64().unwrap(), se, 4000);
    let long_run = row["overhead"].as_f64().unwrap() * 20.0 * 86400.0;
    assert!(
        ((mean - completion) / se).abs() < 4.0,
        "simulated {mean} ± {se}, completion {completion}"
    );
    assert!(
        (mean - long_run) / se > 4.0,
        "simulated {mean} ± {se}, long run {long_run}"
    );
}

/// A nearly fixed lifetime: runs differ by seconds, and the work times the long-run overhead,
/// which knows neither the first life's extra chunk nor the cut last one, is off by hours,
/// while the completion agrees.
#[test]
fn a_nearly_fixed_lifetimes_completion_agrees_where_the_long_run_figure_departs() {
    let v = completion_answer("weibull:1e4", "240h");
    let young = named(&v, "models", "young");
    let interval = format!("{}", young["interval_s"]);
    let (mean, se) = simulated_wall("weibull:1e4", "240h", &["--interval", &interval], "200");
    let completion = young["completion_s"].as_f64().unwrap();
    let long_run = young["overhead"].as_f64().unwrap() * 864000.0;
    assert!(
        ((mean - completion) / se).abs() < 4.0,
        "simulated {mean} ± {se}, completion {completion}"
    );
    assert!(
        ((mean - long_run) / se).abs() > 4.0,
        "simulated {mean} ± {se}, long run {long_run}"
    );
}

/// The whole chunks of a nearly fixed lifetime fill its lives (31 chunks of 27871 s for ten
/// days at Weibull 1e4, three a life): the simulator agrees with their completion, and
/// confirms the saving over the 97 chunks near `W / tau*` that the search used to stop at
/// (931151 s by the model).
#[test]
fn a_nearly_fixed_lifetimes_whole_chunks_fill_its_lives() {
    let v = completion_answer("weibull:1e4", "240h");
    let whole = &v["whole_chunks"];
    assert_eq!(whole["count"], 31, "{whole}");
    let chunk = format!("{}", whole["interval_s"]);
    let (mean, se) = simulated_wall("weibull:1e4", "240h", &["--interval", &chunk], "200");
    let completion = whole["completion_s"].as_f64().unwrap();
    assert!(
        ((mean - completion) / se).abs() < 4.0,
        "simulated {mean} ± {se}, completion {completion}"
    );
    assert!(mean + 4.0 * se < 931_151.0, "simulated {mean} ± {se}");
}

/// Exponential failures: a period's job is whole segments of Daly's complete model and one cut
/// to the work left (each from the same state), so the completion is written out here; the best
/// whole number of chunks is Bougeret's, which `interval --work` finds without `--dist`, and
/// its spread the sum of independent segments'.
#[test]
fn exponential_completions_are_dalys_segments_and_bougerets_chunks() {
    let (m, c, r, w) = (86400.0f64, 600.0, 600.0, 864000.0);
    let v = completion_answer("exp", "240h");
    let seg = |t: f64| m * (r / m).exp() * ((t + c) / m).exp_m1();
    for name in ["young", "daly-complete", "renewal-periodic"] {
        let row = named(&v, "models", name);
        let tau = row["interval_s"].as_f64().unwrap();
        let whole = (w / tau).floor();
        let exact = whole * seg(tau) + seg(w - whole * tau);
        let got = row["completion_s"].as_f64().unwrap();
        assert!((got / exact - 1.0).abs() < 1e-9, "{name}: {got} vs {exact}");
    }
    let mut plain = JOB.to_vec();
    plain.extend(["--work", "240h", "--format", "json"]);
    let plain: Value = serde_json::from_str(&stdout_of(&plain)).unwrap();
    let (a, b) = (&v["whole_chunks"], &plain["whole_chunks"]);
    assert_eq!(a["count"], b["count"]);
    let (ca, cb) = (
        a["completion_s"].as_f64().unwrap(),
        b["completion_s"].as_f64().unwrap(),
    );
    assert!((ca / cb - 1.0).abs() < 1e-9, "{ca} vs {cb}");
    // The spread by the renewal recursion against the sum of independent segments.
    let (sa, sb) = (
        a["completion_sd_s"].as_f64().unwrap(),
        b["completion_sd_s"].as_f64().unwrap(),
    );
    assert!((sa / sb - 1.0).abs() < 1e-9, "{sa} vs {sb}");
}

/// The table gains a completion column and says what it rests on.
#[test]
fn the_table_shows_each_completion_and_the_whole_chunks() {
    let mut args = JOB.to_vec();
    args.extend(["--dist", "weibull:0.7", "--work", "240h"]);
    let t = stdout_of(&args);
    assert!(
        t.lines()
            .next()
            .unwrap()
            .ends_with("completion          sd"),
        "{t}"
    );
    assert!(
        t.contains("completion: expected wall time to finish 10d 0h 0m of work"),
        "{t}"
    );
    assert!(!t.contains(" lr"), "{t}");
    // The figures docs/guide.md quotes.
    for (row, completion, sd) in [
        ("young ", "11d 8h 12m", "8h 3m 39s"),
        ("daly-complete ", "11d 8h 18m", "7h 47m 36s"),
        ("renewal-periodic ", "11d 8h 15m", "8h 9m 51s"),
        ("renewal-schedule * ", "11d 7h 48m", "8h 6m 31s"),
    ] {
        let line = t.lines().find(|l| l.starts_with(row)).unwrap();
        let cells: Vec<&str> = line.split("  ").map(str::trim).collect();
        assert!(cells.ends_with(&[completion, sd]), "{line}");
    }
    assert!(
        t.contains("in whole chunks: 86 chunks of 2h 47m 27s (10047 s) for 10d 0h 0m of work; expected completion 11d 8h 12m (979934 s), standard deviation 7h 58m 41s (28721 s)"),
        "{t}"
    );
    // A job of 30 years under a 12 h MTBF: the schedule's states are past what the model
    // follows, so its completion is the long-run figure, marked.
    let args = [
        "interval",
        "--mtbf",
        "12h",
        "--cost",
        "10m",
        "--restart",
        "10m",
        "--dist",
        "weibull:0.7",
        "--work",
        "30y",
    ];
    let t = stdout_of(&args);
    let schedule = t
        .lines()
        .find(|l| l.starts_with("renewal-schedule"))
        .unwrap();
    assert!(schedule.contains(" lr  "), "{t}");
    assert!(
        t.contains("lr: the long-run overhead times the work"),
        "{t}"
    );
}

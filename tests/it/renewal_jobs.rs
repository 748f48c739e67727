//! `ckpt validate --dist` and `ckpt sweep --dist ... --vary shape=...` for one job under
//! renewal failures (docs/models.md §13, docs/interface.md §1.2, §1.6): the exponential case
//! against Daly's closed form written out here, every policy's simulated mean against its
//! prediction under four shapes, the paired differences that common random numbers make
//! tight, the shape sweep's gains, the report folders, and bad input.

use crate::common::{daly_optimum, daly_overhead, named, read_package_file, refused, stdout_of};
use serde_json::Value;

const JOB: [&str; 6] = ["--mtbf", "24h", "--cost", "10m", "--restart", "10m"];

/// The policies of `validate --dist`, in report order.
const POLICIES: [&str; 4] = [
    "renewal-schedule",
    "renewal-periodic",
    "young",
    "daly-complete",
];

fn run_json(command: &str, extra: &[&str]) -> Value {
    let mut args = vec![command];
    args.extend(JOB);
    args.extend(extra);
    args.extend(["--format", "json"]);
    if command != "interval" {
        args.push("-q");
    }
    serde_json::from_str(&stdout_of(&args)).unwrap()
}

/// Runs `ckpt validate` on the file's job under Weibull 0.7 failures with `extra` and `--out` a
/// fresh scratch folder `name`; returns the folder and what the command printed.
fn validate_weibull_into(name: &str, extra: &[&str]) -> (crate::common::ScratchPath, String) {
    let dir = crate::common::temp_path(name);
    let out = dir.display().to_string();
    let mut args = vec!["validate"];
    args.extend(JOB);
    args.extend(["--dist", "weibull:0.7"]);
    args.extend(extra);
    args.extend(["--out", &out, "-q"]);
    let stdout = stdout_of(&args);
    (dir, stdout)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn exponential_failures_all_four_policies_agree_and_the_schedule_is_daly() {
    let (m, c, r) = (86400.0, 600.0, 600.0);
    let v = run_json("validate", &["--dist", "exp", "--runs", "200"]);
    assert_eq!(v["simulator"], "renewal");
    // Without --work each job does 1000 MTBFs of work.
    assert_eq!(f(&v["options"]["work_s"]), 1000.0 * m);
    let tau = daly_optimum(m, c, r);
    let sched = named(&v, "policies", "renewal-schedule");
    let chunks = sched["chunks_s"].as_array().unwrap();
    assert_eq!(chunks.len(), 1, "{chunks:?}");
    assert!(
        (f(&chunks[0]) / tau - 1.0).abs() < 1e-4,
        "{chunks:?} vs {tau}"
    );
    for name in POLICIES {
        let p = named(&v, "policies", name);
        let interval = f(&p["chunks_s"][0]);
        // The long-run figure is Daly's closed form at the policy's interval.
        let closed = daly_overhead(m, c, r, interval);
        assert!(
            (f(&p["long_run_overhead"]) / closed - 1.0).abs() < 1e-9,
            "{name}: {p}"
        );
        // The prediction is the finite job's: memoryless failures give each segment of
        // `T = w + C` Daly's term `M e^(R/M) (e^(T/M) - 1)`, and the work is whole periods
        // and a last cut one.
        assert_eq!(p["prediction"], "finite-job", "{name}: {p}");
        let work = 1000.0 * m;
        let segment = |t: f64| daly_overhead(m, c, r, t) * t;
        let whole = (work / interval).floor();
        let exact = (whole * segment(interval) + segment(work - whole * interval)) / work;
        assert!(
            (f(&p["predicted_overhead"]) / exact - 1.0).abs() < 1e-9,
            "{name}: {p} vs {exact}"
        );
        assert!(f(&p["z"]).abs() < 4.0, "{name}: {p}");
        assert_eq!(p["agrees"], true);
    }
    // Young's interval is sqrt(2 C M).
    let young = f(&named(&v, "policies", "young")["chunks_s"][0]);
    assert!((young - (2.0 * c * m).sqrt()).abs() < 1e-6);
    assert_eq!(v["verdict"]["confirmed"], true, "{}", v["verdict"]);
}

#[test]
fn every_policy_agrees_with_its_simulation_under_four_shapes() {
    for dist in ["weibull:0.7", "weibull:1.5", "gamma:0.5", "lognormal:1.5"] {
        let v = run_json(
            "validate",
            &[
                "--dist", dist, "--runs", "200", "--work", "500d", "--seed", "3",
            ],
        );
        let interval = run_json("interval", &["--dist", dist]);
        for name in POLICIES {
            let p = named(&v, "policies", name);
            let e = &p["simulated_overhead"];
            let (mean, se) = (f(&e["point"]), f(&e["stderr"]));
            let predicted = f(&p["predicted_overhead"]);
            assert!(
                ((predicted - mean) / se).abs() < 4.0,
                "{dist} {name}: simulated {mean} ± {se}, predicted {predicted}"
            );
            // Where lives vary, the model's standard error is the runs' own (the runs' is
            // itself uncertain by about 1 / sqrt(2 runs), 5% here, more for heavy tails).
            let model_se = f(&p["predicted_stderr"]);
            assert!(
                (0.75..1.33).contains(&(model_se / se)),
                "{dist} {name}: the model's standard error {model_se} against the runs' {se}"
            );
            // The long-run figure is `interval --dist`'s overhead for the same policy: its
            // intervals rounded to the simulator's nanoseconds change it by far less than 1e-9,
            // and a schedule rounded to a grid of seconds by less than 1e-6 (its overhead is flat
            // at its optimum).
            let row = named(&interval, "models", name);
            let rounded = p.get("rounded_to_s").is_some();
            assert!(
                (f(&p["long_run_overhead"]) / f(&row["overhead"]) - 1.0).abs()
                    < if rounded { 1e-6 } else { 1e-9 },
                "{dist} {name}"
            );
            // The periods' finite jobs have few enough states to follow. A schedule of many
            // chunks, each a likely end of a life, over 500 lives has not, unless its chunks
            // on a grid of seconds leave few enough (here Weibull 1.5 and gamma 0.5).
            let kind = if name == "renewal-schedule" && !rounded {
                "long-run"
            } else {
                "finite-job"
            };
            assert_eq!(p["prediction"], kind, "{dist} {name}");
        }
        // The schedule is not worse than the best period on the same failures: the paired
        // difference periodic - schedule is positive or not significantly negative.
        let per = named(&v, "policies", "renewal-periodic");
        let d = &per["diff_vs_schedule"];
        assert!(f(&d["ci95"][1]) >= 0.0, "{dist}: {d}");
        // Common random numbers: the paired difference's standard error is below that of the
        // difference of two independent means (about 0.4 of it at shape 0.7, 0.65 at 1.5,
        // where the two policies' chunks differ most; independent streams would give 1).
        let se = |name: &str| f(&named(&v, "policies", name)["simulated_overhead"]["stderr"]);
        let unpaired = (se("renewal-periodic").powi(2) + se("renewal-schedule").powi(2)).sqrt();
        assert!(
            f(&d["stderr"]) < 0.8 * unpaired,
            "{dist}: paired {} vs unpaired {unpaired}",
            d["stderr"]
        );
        // The difference itself agrees with the model's.
        let model = f(&per["predicted_diff"]);
        assert!(
            ((model - f(&d["point"])) / f(&d["stderr"])).abs() < 4.0,
            "{dist}: {d} vs {model}"
        );
        assert_eq!(v["verdict"]["schedule_not_worse"], true, "{dist}");
    }
}

/// Under a nearly fixed lifetime with cheap checkpoints the schedule's first chunk runs almost to
/// the cliff, and a life that ends inside it loses nearly a whole life: about one life in a
/// million, so a thousand jobs of a thousand lives hold none or one, and the runs' spread
/// misses it. The model's standard error counts it (docs/models.md §13.2).
#[test]
fn rare_long_losses_are_judged_by_the_models_spread() {
    let job = ["--mtbf", "24h", "--cost", "1s", "--restart", "1s"];
    let args = crate::common::with(&["validate", "--dist", "weibull:1e3"], &job);
    let v: Value = serde_json::from_str(&stdout_of(&crate::common::with(
        &args,
        &["--format", "json", "-q"],
    )))
    .unwrap();
    let s = named(&v, "policies", "renewal-schedule");
    let e = &s["simulated_overhead"];
    let (mean, own, runs) = (f(&e["point"]), f(&e["stderr"]), f(&e["runs"]));
    let (predicted, model) = (f(&s["predicted_overhead"]), f(&s["predicted_stderr"]));
    // The first chunk's end, and the chance that a life ends before it, from the Weibull
    // survival exp(-(t / scale)^K), scale = M / Gamma(1 + 1/K), written out here.
    let (m, k) = (86400.0f64, 1000.0f64);
    let scale = m / statrs::function::gamma::gamma(1.0 + 1.0 / k);
    let end = 1.0 + f(&s["chunks_s"][0]) + 1.0;
    let p = -(-(end / scale).powf(k)).exp_m1();
    let lives = f(&v["options"]["work_s"]) / m * runs;
    assert!(p * lives < 2.0, "{p} per life, {lives} lives");
    // Those lives alone give each job's wall time a variance of about (lives per job) p end^2;
    // the model's standard error of the mean overhead is at least that share of it.
    let work = f(&v["options"]["work_s"]);
    let alone = ((work / m) * p * end * end).sqrt() / work / runs.sqrt();
    assert!(
        model > 0.9 * alone && model > 3.0 * own,
        "model {model}, their share {alone}, the runs' {own}"
    );
    // By the runs' own standard error the prediction would be refused; by the model's it
    // agrees. (The first half guards this seed's sample, not the model.)
    assert!(
        ((predicted - mean) / own).abs() > 4.0,
        "{predicted} {mean} {own}"
    );
    assert!(((predicted - mean) / model).abs() < 4.0);
    assert_eq!(s["agrees"], true);
    assert!((f(&s["z"]) - (predicted - mean) / model).abs() < 1e-9);
    // The table's verdict says why.
    let table = stdout_of(&crate::common::with(&args, &["-q"]));
    assert!(
        table.contains("For `renewal-schedule` (the model's")
            && table.contains("too rare for 1000 runs to show"),
        "{table}"
    );
}

/// A job of 50 lives under log-normal 1.5 failures: its two ends weigh on its mean and on its
/// spread, so the long-run figures depart from the runs and the finite job's own agree. The
/// schedule, whose chunks to the nanosecond leave more states than the model follows, is
/// simulated on a grid whose job it does follow.
#[test]
fn a_job_of_fifty_lives_is_predicted_by_its_own_states() {
    let dist = ["--dist", "lognormal:1.5"];
    let v = run_json(
        "validate",
        &crate::common::with(&dist, &["--work", "50d", "--runs", "2000", "--seed", "5"]),
    );
    let s = named(&v, "policies", "renewal-schedule");
    assert_eq!(s["prediction"], "finite-job");
    let g = f(&s["rounded_to_s"]);
    assert!((1.0..=60.0).contains(&g), "grid {g}");
    for w in s["chunks_s"].as_array().unwrap() {
        assert_eq!(f(w) % g, 0.0, "{w} on a grid of {g}");
    }
    let e = &s["simulated_overhead"];
    let (mean, own) = (f(&e["point"]), f(&e["stderr"]));
    // The long-run overhead misses the job by its ends: far beyond the runs' spread.
    assert!(
        (f(&s["long_run_overhead"]) - mean) / own < -6.0,
        "long-run {} against {mean} ± {own}",
        s["long_run_overhead"]
    );
    // The long-run spread, from a job of 1000 lives (sqrt(v / (W n)), scaled here to 50 days
    // and 2000 runs), overstates the runs' standard error by about a quarter.
    let long = run_json(
        "validate",
        &crate::common::with(&dist, &["--work", "1000d", "--runs", "10"]),
    );
    let rate = f(&named(&long, "policies", "renewal-schedule")["predicted_stderr"])
        * (1000.0f64 / 50.0 * 10.0 / 2000.0).sqrt();
    assert!(
        rate / own > 1.15,
        "long-run spread {rate} against the runs' {own}"
    );
    for name in POLICIES {
        let p = named(&v, "policies", name);
        assert_eq!(p["agrees"], true, "{name}: {p}");
        // The finite job's spread is the runs' own (whose standard error is itself uncertain
        // by a few percent over 2000 runs).
        let ratio = f(&p["predicted_stderr"]) / f(&p["simulated_overhead"]["stderr"]);
        assert!((0.92..1.08).contains(&ratio), "{name}: {ratio}");
    }
    assert_eq!(v["verdict"]["confirmed"], true);
    // `interval --work` gives the completion of the same schedule on the same grid, which the
    // runs above confirm, where its chunks in whole seconds leave too many states.
    let i = run_json("interval", &crate::common::with(&dist, &["--work", "50d"]));
    let row = named(&i, "models", "renewal-schedule");
    assert_eq!(row["completion_basis"], "finite-job");
    assert_eq!(f(&row["completion_grid_s"]), g);
    let work = 50.0 * 86400.0;
    assert!((f(&row["completion_s"]) / work / f(&s["predicted_overhead"]) - 1.0).abs() < 1e-12);
    let sd = f(&row["completion_sd_s"]) / work / 2000f64.sqrt();
    assert!((sd / f(&s["predicted_stderr"]) - 1.0).abs() < 1e-12);
}

#[test]
fn the_validation_report_folder_has_its_data_and_plots() {
    let (dir, stdout) = validate_weibull_into(
        "ckpt-renewal-validate",
        &["--runs", "40", "--work", "100d", "--format", "json"],
    );
    let mut names: Vec<String> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "difference.png",
            "difference.svg",
            "hazard.png",
            "hazard.svg",
            "report.md",
            "schedule.png",
            "schedule.svg",
            "validate.csv",
            "validate.json"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("validate.json")).unwrap(),
        stdout
    );
    let csv = std::fs::read_to_string(dir.join("validate.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    assert!(csv.starts_with("policy,first_chunk_s,"), "{csv}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    // The chunks and the hazard side by side: both images on one line.
    assert!(
        md.lines()
            .any(|l| l.contains("(schedule.svg)") && l.contains("(hazard.svg)")),
        "{md}"
    );
}

fn sweep(dist: &str, vary: &str, points: &str, dir: &str) -> Value {
    let mut args = vec!["sweep"];
    args.extend(JOB);
    args.extend([
        "--dist", dist, "--vary", vary, "--points", points, "--out", dir, "-q",
    ]);
    stdout_of(&args);
    serde_json::from_str(&std::fs::read_to_string(format!("{dir}/sweep.json")).unwrap()).unwrap()
}

#[test]
fn the_shape_sweep_gains_nothing_at_the_exponential_and_most_at_small_shapes() {
    let (m, c, r) = (86400.0, 600.0, 600.0);
    let dir = crate::common::temp_path("ckpt-renewal-sweep");
    let dir_s = dir.display().to_string();
    let v = sweep("weibull:1", "shape=0.5..1.5", "11", &dir_s);
    assert_eq!(v["family"], "weibull");
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.len(), 11);
    let at = |k: f64| {
        points
            .iter()
            .find(|p| (f(&p["shape"]) - k).abs() < 1e-9)
            .unwrap()
    };
    // Weibull with shape 1 is the exponential: the schedule is Daly's period, nothing gained.
    let one = at(1.0);
    assert!(f(&one["gain_pct"]).abs() < 1e-3, "{one}");
    let best = daly_overhead(m, c, r, daly_optimum(m, c, r));
    assert!((f(&one["periodic_overhead"]) / best - 1.0).abs() < 1e-9);
    // Many failures soon after a restart: the more so, the more the schedule gains.
    assert!(
        f(&at(0.5)["gain_pct"]) > f(&at(0.8)["gain_pct"]),
        "{} {}",
        at(0.5),
        at(0.8)
    );
    assert!(f(&at(0.8)["gain_pct"]) > 0.0);
    for p in points {
        let s = f(&p["schedule_overhead"]);
        let per = f(&p["periodic_overhead"]);
        assert!(s <= per + f(&p["grid_error"]) + 1e-12, "{p}");
        for other in ["young_overhead", "daly_overhead"] {
            assert!(per <= f(&p[other]) * (1.0 + 1e-12), "{p}");
        }
    }
    for file in ["sweep.csv", "gain.svg", "overhead.svg", "report.md"] {
        assert!(dir.join(file).exists(), "{file}");
    }
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 12);
    // The other families sweep their own shape (sigma for the log-normal).
    let v = sweep("lognormal:1", "shape=0.5..1.5", "2", &dir_s);
    assert_eq!(v["family"], "lognormal");
    assert_eq!(v["inputs"]["dist"], "lognormal:1");
    let v = sweep("gamma:2", "shape=0.5..1.5", "2", &dir_s);
    assert_eq!(v["points"][0]["shape"], 0.5);
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    let scratch = crate::common::temp_path("ckpt-renewal-bad");
    let out = scratch.display().to_string();
    for (extra, mentions) in [
        (
            &["sweep", "--dist", "exp", "--vary", "shape=0.5..1.5"][..],
            "exponential",
        ),
        (&["sweep", "--vary", "shape=0.5..1.5"][..], "--dist"),
        (
            &["sweep", "--dist", "weibull:1", "--vary", "shape=1..1"][..],
            "0 < LO < HI",
        ),
        (
            &["sweep", "--dist", "weibull:1", "--vary", "shape=0..1"][..],
            "0 < LO < HI",
        ),
        (
            &["sweep", "--dist", "weibull:1", "--vary", "mtbf=1h..2d"][..],
            "shape=LO..HI",
        ),
        (
            &["sweep", "--dist", "weibull:1", "--vary", "shape=0.01..1"][..],
            "weibull:0.01",
        ),
        (
            &["validate", "--dist", "weibull:0.7", "--sim", "periodic"][..],
            "--sim",
        ),
        (
            &["validate", "--dist", "weibull:0.7", "--downtime", "1m"][..],
            "--downtime",
        ),
        (&["validate", "--dist", "weibull:0.01"][..], "weibull:0.01"),
    ] {
        let mut args = vec![extra[0]];
        args.extend(JOB);
        args.extend(&extra[1..]);
        if extra[0] == "sweep" {
            args.extend(["--out", &out]);
        }
        refused(&args, &[mentions]);
        assert!(
            !std::path::Path::new(&out).exists(),
            "{extra:?}: refused before any work"
        );
    }
}

/// The README's figures for one job under renewal failures are what the commands beside them
/// print (a guard against drift: the expected figures are the README's). Each line
/// `ckpt ARGS  # gain X%` or `# periodic +X% [A, B]` of its section is run as written.
#[test]
fn the_readme_renewal_figures_are_what_the_commands_print() {
    let readme = crate::common::read_package_file("README.md");
    let section = readme
        .split("## Failures that are not exponential")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README's section on non-exponential failures");
    let mut checked = 0;
    for line in section.lines() {
        let Some((command, figure)) = line.split_once("  # ") else {
            continue;
        };
        let Some(args) = command.trim().strip_prefix("ckpt ") else {
            continue;
        };
        let args: Vec<&str> = args.split_whitespace().collect();
        let out = stdout_of(&args);
        let expected = if let Some(gain) = figure.strip_prefix("gain ") {
            format!("gain over the best period: {gain}")
        } else if let Some(diff) = figure.strip_prefix("periodic ") {
            diff.to_string()
        } else if let Some((best, exponential)) = figure.split_once("; exponential's ") {
            // `5 checkpoints every 19623 s; exponential's 23: 9.464% less` (an allocation).
            let (n, secs) = best
                .split_once(" checkpoints every ")
                .expect("N checkpoints every S s");
            let (n_exp, pct) = exponential.split_once(": ").expect("N: P% less");
            for part in [
                format!("{n} checkpoints, every "),
                format!("({}) of work", secs.trim()),
                format!("taken as exponential: {n_exp} checkpoints"),
                format!("({pct} than the best)"),
            ] {
                assert!(
                    out.contains(&part),
                    "`{command}` prints\n{out}\nnot `{part}`"
                );
            }
            checked += 1;
            continue;
        } else {
            panic!("unknown README figure `{figure}`");
        };
        assert!(
            out.contains(&expected),
            "`{command}` prints\n{out}\nnot `{expected}`"
        );
        checked += 1;
    }
    assert_eq!(checked, 6, "the README's six renewal figures");
}

/// Guards against regressions: the committed example report (docs/validate-renewal/, linked from
/// docs/README.md and the guide) is what the command printed in it makes today. Its figures
/// themselves are checked against the models by the tests above.
#[test]
fn the_committed_renewal_validate_report_is_fresh() {
    let (dir, _) = validate_weibull_into("ckpt-renewal-docs", &["--runs", "1000"]);
    let out = dir.display().to_string();
    for file in [
        "validate.json",
        "validate.csv",
        "schedule.svg",
        "hazard.svg",
        "difference.svg",
    ] {
        let fresh = std::fs::read_to_string(dir.join(file)).unwrap();
        let committed = read_package_file(&format!("docs/validate-renewal/{file}"));
        assert_eq!(fresh, committed, "docs/validate-renewal/{file} is stale");
    }
    let fresh = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let committed = read_package_file("docs/validate-renewal/report.md");
    assert_eq!(
        fresh.replace(&out, "docs/validate-renewal"),
        committed,
        "docs/validate-renewal/report.md is stale"
    );
}

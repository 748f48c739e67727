//! `ckpt validate`: verdicts where the models hold, losses where they do not, and reports.

use crate::common::{
    VALIDATE_REPORT, assert_written, ckpt, named, package_file, refused, stdout_of, with,
};
use ckpt::failure::Shape;
use ckpt::interval::{IntervalInputs, Replication};
use ckpt::model::replicated::Detect;
use ckpt::validate::{self, SimKind, SimOptions, Validation};

fn options(runs: u64, work_s: f64) -> SimOptions {
    SimOptions {
        work_s,
        runs,
        seed: 7,
        grid_points: 25,
        aging: false,
        heartbeat_s: 0.0,
    }
}

/// `validate::run` with no progress report, which must succeed.
fn run(inputs: &IntervalInputs, kind: SimKind, o: &SimOptions, threads: usize) -> Validation {
    validate::run(inputs, kind, o, threads, &|| {}).unwrap()
}

fn verdict<'a>(v: &'a Validation, name: &str) -> &'a validate::Verdict {
    v.verdicts
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no verdict for {name}"))
}

fn replicated(mtbf: f64, cost: f64, restart: f64, detect: Detect, shape: Shape) -> IntervalInputs {
    let mut i = IntervalInputs::single(mtbf, cost, restart);
    i.replication = Some(Replication {
        procs: 8,
        replicas: 2,
        detect,
        shape,
    });
    i
}

#[test]
fn the_exact_model_is_confirmed_where_its_assumptions_hold() {
    for (mtbf, cost, restart) in [(6.0 * 3600.0, 300.0, 600.0), (3600.0, 60.0, 120.0)] {
        let inputs = IntervalInputs::single(mtbf, cost, restart);
        let v = run(&inputs, SimKind::Periodic, &options(400, 50.0 * 3600.0), 0);
        assert!(v.assumptions_hold);
        let d = verdict(&v, "daly-complete");
        assert!(d.confirmed, "{d:?}");
        assert!(
            d.z.unwrap().abs() < 4.0,
            "the model's overhead against the simulated one: {d:?}"
        );
        assert!(
            d.regret_pct.ci95[0] <= 0.0
                || (d.interval_s >= v.optimal_region_s[0] && d.interval_s <= v.optimal_region_s[1])
        );
    }
}

#[test]
fn young_and_first_order_lose_where_delta_over_m_is_large() {
    let inputs = IntervalInputs::single(600.0, 300.0, 60.0);
    let v = run(&inputs, SimKind::Periodic, &options(400, 50.0 * 3600.0), 0);
    assert!(verdict(&v, "daly-complete").confirmed);
    for name in ["young", "daly-first-order"] {
        let d = verdict(&v, name);
        assert!(!d.confirmed, "{name}: {d:?}");
        // The loss is measured, with a CI that excludes zero: Young about 5%, first order about 2%.
        assert!(d.regret_pct.ci95[0] > 0.5, "{name}: {:?}", d.regret_pct);
    }
    assert!(
        verdict(&v, "young").regret_pct.point > verdict(&v, "daly-first-order").regret_pct.point
    );
}

#[test]
fn weibull_with_aging_is_reported_as_a_broken_assumption_with_a_measured_regret() {
    let inputs = replicated(
        3600.0,
        60.0,
        0.0,
        Detect::End,
        Shape::Weibull { shape: 0.7 },
    );
    let mut o = options(200, 20.0 * 3600.0);
    o.aging = true;
    let v = run(&inputs, SimKind::Replicated, &o, 0);
    assert!(!v.assumptions_hold);
    assert!(v.assumption_notes[0].contains("aging"));
    let d = verdict(&v, v.answer.recommended);
    // Survivors that keep their age fail less than fresh ones (shape < 1): the model is far off...
    assert!(d.z.unwrap() > 4.0, "{d:?}");
    // ...and its interval measurably too short: the regret is not zero.
    assert!(d.regret_pct.ci95[0] > 0.0, "{:?}", d.regret_pct);
    assert!(!d.confirmed);
    let text = ckpt::report::validate::verdict_paragraph(&v);
    assert!(
        text.contains("NOT confirmed") && text.contains("departs from the models' assumptions"),
        "{text}"
    );
}

#[test]
fn a_heartbeat_delay_is_measured_against_the_immediate_model() {
    let inputs = replicated(3600.0, 60.0, 60.0, Detect::Immediate, Shape::Exponential);
    let mut o = options(200, 20.0 * 3600.0);
    o.heartbeat_s = 120.0;
    let v = run(&inputs, SimKind::Replicated, &o, 0);
    assert!(!v.assumptions_hold);
    let d = verdict(&v, "replicated-immediate");
    // Late detection costs wall time the model does not count.
    assert!(d.z.unwrap() < -4.0, "{d:?}");
    assert!(d.simulated_overhead.point > d.predicted_overhead.unwrap());
    // Without the heartbeat the model holds.
    let v0 = run(
        &inputs,
        SimKind::Replicated,
        &options(200, 20.0 * 3600.0),
        0,
    );
    assert!(verdict(&v0, "replicated-immediate").z.unwrap().abs() < 4.0);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let inputs = IntervalInputs::single(3600.0, 60.0, 120.0);
    let a = run(&inputs, SimKind::Periodic, &options(64, 10.0 * 3600.0), 1);
    let b = run(&inputs, SimKind::Periodic, &options(64, 10.0 * 3600.0), 2);
    assert_eq!(
        ckpt::report::validate::json(&a),
        ckpt::report::validate::json(&b)
    );
}

#[test]
fn the_grid_is_log_spaced_around_the_recommendation() {
    let g = validate::grid(100.0, 25);
    assert_eq!(g.len(), 25);
    assert!(
        (g[0] - 25.0).abs() < 1e-12 && (g[24] - 400.0).abs() < 1e-9 && (g[12] - 100.0).abs() < 1e-9
    );
}

#[test]
fn validate_writes_its_report() {
    let dir = crate::common::temp_path("ckpt-validate-test");
    let out = crate::common::stdout_of(&[
        "validate",
        "--mtbf",
        "1h",
        "--cost",
        "60s",
        "--runs",
        "50",
        "--work",
        "10h",
        "--format",
        "json",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["simulator"], "periodic");
    assert_eq!(
        v["points"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["on_grid"] == true)
            .count(),
        25
    );
    assert_written(&dir, VALIDATE_REPORT);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("confirmed"));
}

#[test]
fn bad_validations_get_status_2() {
    for (args, mention) in [
        (
            vec!["--mtbf", "1h", "--cost", "60s", "--runs", "1"],
            "--runs",
        ),
        (
            vec!["--mtbf", "1h", "--cost", "60s", "--runs", "0"],
            "--runs",
        ),
        (
            vec!["--mtbf", "1h", "--cost", "60s", "--sim", "replicated"],
            "--procs",
        ),
        (
            vec![
                "--mtbf", "1h", "--cost", "60s", "--procs", "4", "--sim", "periodic",
            ],
            "--sim periodic",
        ),
        (vec!["--mtbf", "1h", "--cost", "60s", "--aging"], "--aging"),
        (
            vec![
                "--mtbf",
                "1h",
                "--cost",
                "60s",
                "--procs",
                "4",
                "--heartbeat",
                "30s",
            ],
            "--heartbeat",
        ),
        (
            vec!["--mtbf", "1h", "--cost", "60s", "--work", "-1h"],
            "--work",
        ),
    ] {
        refused(&with(&["validate"], &args), &[mention]);
    }
}

fn stencil_config(path: &str) -> (ckpt::sim::stencil::StencilConfig, u64) {
    let p = package_file(path);
    let text = std::fs::read_to_string(&p).unwrap();
    let folder = p.parent().unwrap();
    let (cfg, seed) = ckpt::sim::stencil::config::parse_ini(&text, path, folder)
        .unwrap()
        .validate(true, None)
        .unwrap();
    (cfg, seed.unwrap())
}

#[test]
fn the_papers_stencil_setting_recommends_the_finest_level() {
    let (cfg, seed) = stencil_config("data/paper/rollback.ini");
    let v = validate::stencil::run(&cfg, 12, seed, 0, &|| {}).unwrap();
    assert_eq!(v.levels.len(), 8, "levels 1 to 8 on a 256 x 256 grid");
    assert_eq!(
        v.recommended_level,
        [1, 1],
        "regions {:?}",
        v.optimal_levels
    );
    assert_eq!(v.best_level[0], 1);
    let p = v
        .predictions
        .iter()
        .find(|p| p.name == v.recommended)
        .unwrap();
    assert_eq!(p.level, 1);
    // Level L's interval is H rows of failure-free time per row; its cost per band is tiny.
    assert!((v.levels[0].interval_s - 3635.2 / 256.0 * (1.0 + 0.0013 / 7.1)).abs() < 0.1);
    assert!(v.levels.iter().all(|l| l.checkpoint_cost_s < 1.0));
}

#[test]
fn a_costly_checkpoint_has_an_interior_optimum_that_the_models_predict_within_one_level() {
    let (cfg, seed) = stencil_config("data/validate/costly-checkpoint.ini");
    let v = validate::stencil::run(&cfg, 60, seed, 0, &|| {}).unwrap();
    let max = v.levels.last().unwrap().level;
    // Under global rollback, the models' setting: neither the finest nor the coarsest level.
    let best = v.recommended_level[0];
    assert!(
        best > 1 && best < max,
        "interior optimum: {best} of 1..={max} (region {:?})",
        v.optimal_levels[0]
    );
    assert!(v.best_level[0] > 1 && v.best_level[0] < max);
    let p = v
        .predictions
        .iter()
        .find(|p| p.name == v.recommended)
        .unwrap();
    assert!(
        p.within_one_level[0],
        "predicted {} vs region {:?}",
        p.level, v.optimal_levels[0]
    );
    // Young's interval, far too long here, is measurably worse.
    let young = v.predictions.iter().find(|p| p.name == "young").unwrap();
    assert!(young.level >= p.level);
    // Dependency-aware rollback redoes only lost work and prefers coarser levels: the models'
    // assumption breaks, and the prediction's regret there is measured, not zero.
    assert!(
        v.recommended_level[1] > p.level,
        "{:?}",
        v.recommended_level
    );
    assert!(p.regret_pct[1].ci95[0] > 0.0, "{:?}", p.regret_pct[1]);
    let text = ckpt::report::validate_stencil::verdict_paragraph(&v);
    assert!(
        text.contains("within one level of the empirical optimum"),
        "{text}"
    );
    assert!(text.contains("breaks the models' assumption"), "{text}");
    let a = ckpt::report::validate_stencil::json(&v);
    let b = ckpt::report::validate_stencil::json(
        &validate::stencil::run(&cfg, 60, seed, 1, &|| {}).unwrap(),
    );
    assert_eq!(a, b, "thread count changes nothing");
}

#[test]
fn stencil_validation_through_the_cli() {
    let dir = crate::common::temp_path("ckpt-validate-stencil");
    ckpt()
        .args([
            "validate",
            "--sim",
            "stencil",
            "--config",
            "data/validate/costly-checkpoint.ini",
            "--runs",
            "8",
            "--quiet",
            "--out",
        ])
        .arg(&*dir)
        .assert()
        .success();
    assert_written(
        &dir,
        &[
            "validate.json",
            "validate.csv",
            "makespan.svg",
            "makespan.png",
            "cancelled.svg",
            "time-split.svg",
            "time-split.png",
            "report.md",
        ],
    );
    for (args, mention) in [
        (vec!["validate", "--sim", "stencil"], "--config"),
        (
            vec![
                "validate",
                "--sim",
                "stencil",
                "--config",
                "data/paper/rollback.ini",
                "--mtbf",
                "1h",
            ],
            "--config",
        ),
        (
            vec![
                "validate",
                "--sim",
                "stencil",
                "--config",
                "data/paper/rollback-five-failures.ini",
            ],
            "MTBF",
        ),
        (
            vec!["validate", "--config", "data/paper/rollback.ini"],
            "--sim stencil",
        ),
        (
            vec![
                "validate",
                "--mtbf",
                "1h",
                "--cost",
                "1m",
                "--config",
                "data/paper/rollback.ini",
            ],
            "--config",
        ),
    ] {
        refused(&args, &[mention]);
    }
}

/// Issue 13: at 400 runs of `validate --mtbf 10m --cost 5m --restart 1m --work 100h` the optimum
/// taken over the grid alone was the recommended 6m 59s, `daly-higher-order`'s 6m 57s (a row,
/// not a grid point) had a regret of -0.029% (95% CI -0.054% to -0.004%), and the region was
/// "6m 59s to 6m 59s". Every simulated interval now competes.
#[test]
fn the_empirical_optimum_and_region_cover_every_simulated_interval() {
    let out = crate::common::stdout_of(&[
        "validate",
        "--mtbf",
        "10m",
        "--cost",
        "5m",
        "--restart",
        "1m",
        "--runs",
        "400",
        "--work",
        "100h",
        "--format",
        "json",
        "--quiet",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let points = v["points"].as_array().unwrap();
    let f = |x: &serde_json::Value| x.as_f64().unwrap();
    // The optimum is the lowest mean of all points, rows' intervals included.
    let lowest = points
        .iter()
        .min_by(|a, b| f(&a["overhead"]["point"]).total_cmp(&f(&b["overhead"]["point"])))
        .unwrap();
    assert_eq!(v["empirical_optimum_s"], lowest["interval_s"]);
    // No row beats it, significantly or not.
    for d in v["verdicts"].as_array().unwrap() {
        let ci = &d["regret_pct"]["ci95"];
        assert!(
            f(&d["regret_pct"]["point"]) >= 0.0 && f(&ci[1]) >= 0.0,
            "{d}"
        );
    }
    // The region spans exactly the points flagged in it, grid and rows.
    let region: Vec<f64> = points
        .iter()
        .filter(|p| p["optimal_region"] == true)
        .map(|p| f(&p["interval_s"]))
        .collect();
    let span = &v["optimal_region_s"];
    assert_eq!(
        f(&span[0]),
        region.iter().cloned().fold(f64::INFINITY, f64::min)
    );
    assert_eq!(f(&span[1]), region.iter().cloned().fold(0.0, f64::max));
    assert!(region.contains(&f(&v["empirical_optimum_s"])));
    // Why 6m 57s wins: 100 h is 864 whole chunks of it, while 6m 59s leaves a last chunk of
    // a fifth of an interval that still pays a full checkpoint. Daly's exact segment time,
    // E[T(L)] = M e^(R/M) (e^(L/M) - 1) for a segment of work and checkpoint L, summed over the
    // job's segments, puts the difference at about 0.019%; the paired regret measures it.
    let (m, c, r, w) = (600.0f64, 300.0, 60.0, 360_000.0);
    let job = |tau: f64| {
        let seg = |l: f64| m * (r / m).exp() * ((l / m).exp() - 1.0);
        let full = (w / tau - 1e-9).floor();
        (full * seg(tau + c) + seg(w - full * tau + c)) / w
    };
    let exact = named(&v, "verdicts", "daly-exact");
    let t_best = f(&v["empirical_optimum_s"]);
    assert!((t_best - 416.666_666_667).abs() < 1e-6, "{t_best}");
    let expected_pct = 100.0 * (job(f(&exact["interval_s"])) / job(t_best) - 1.0);
    let ci = &exact["regret_pct"]["ci95"];
    assert!(
        f(&ci[0]) <= expected_pct && expected_pct <= f(&ci[1]),
        "expected {expected_pct}%, measured {}",
        exact["regret_pct"]
    );
}

/// The periodic simulator has no downtime: a validation with `--downtime` says that the runs
/// depart from the model's assumptions, where its z would otherwise stand unexplained.
#[test]
fn a_downtime_is_named_as_a_departure() {
    let out = stdout_of(&[
        "validate",
        "--mtbf",
        "6h",
        "--cost",
        "5m",
        "--downtime",
        "10m",
        "--runs",
        "50",
        "--points",
        "3",
        "--format",
        "json",
        "--quiet",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["assumptions_hold"], false);
    let note = v["assumption_notes"][0].as_str().unwrap();
    assert!(note.contains("downtime of 10m"), "{note}");
}

//! `ckpt validate --walltime` (docs/simulation.md §4, docs/models.md §10 and §10.1): the
//! allocation's plan and the long-run models' intervals run in the allocation on the same
//! failures. The model's saved work agrees with the runs where its assumptions hold and departs
//! where they break (a downtime the simulator does not have); a shard merge gives the bytes of
//! one process.

use crate::common::{DAY, merged_shards, named, refused, stdout_of, temp_path, with};
use serde_json::Value;

fn validation(extra: &[&str]) -> Value {
    let mut args = with(&["validate"], &DAY);
    args.extend(extra);
    args.extend(["--format", "json", "--quiet"]);
    serde_json::from_str(&stdout_of(&args)).unwrap()
}

fn z(row: &Value) -> f64 {
    row["z"].as_f64().expect("a z")
}

/// Exponential failures (§10): the plan's saved work agrees with 600 runs, and so does every
/// long-run row's, each run inside the allocation with the plan's signal.
#[test]
fn the_allocation_plan_agrees_with_runs_in_the_allocation() {
    let v = validation(&["--runs", "600", "--points", "7"]);
    assert_eq!(v["command"], "validate");
    assert_eq!(v["signal_lead_s"], 300.0);
    assert_eq!(v["walltime_s"], 86_400.0);
    let plan = named(&v, "verdicts", "allocation");
    // The README's 24 h plan: 23 checkpoints, the last one the signal's.
    let tau = plan["interval_s"].as_f64().unwrap();
    assert!((tau - (86_400.0 / 23.0 - 300.0)).abs() < 1e-6, "{tau}");
    for name in ["allocation", "young", "daly-complete"] {
        let row = named(&v, "verdicts", name);
        assert!(z(row).abs() < 4.0, "{name}: {row}");
        assert_eq!(row["agrees"], true, "{name}");
    }
    assert_eq!(v["all_agree"], true);
    assert_eq!(v["assumptions_hold"], true);
    assert_eq!(plan["confirmed"], true);
    // 7 grid points and the rows' own intervals, each simulated once.
    let points = v["points"].as_array().unwrap();
    assert!(points.len() >= 7, "{}", points.len());
    let grid = points.iter().filter(|p| p["on_grid"] == true).count();
    assert_eq!(grid, 7);
}

/// `confirmed` follows docs/simulation.md §4's rule for the periodic validation: between the
/// region's smallest and largest intervals, or a regret whose CI reaches 0. Before, a row in a
/// gap of the region (daly-higher-order here, 6 ms beside daly-exact, whose points are in)
/// was not confirmed although the report's region holds it.
#[test]
fn a_row_between_the_regions_bounds_is_confirmed() {
    let args = [
        "validate",
        "--nodes",
        "8",
        "--node-mtbf",
        "2d",
        "--cost",
        "5m",
        "--downtime",
        "1m",
        "--walltime",
        "12h",
        "--signal-margin",
        "30s",
        "--runs",
        "60",
        "--points",
        "3",
        "--format",
        "json",
    ];
    let v: Value = serde_json::from_str(&stdout_of(&args)).unwrap();
    let region = &v["optimal_region_s"];
    let (lo, hi) = (region[0].as_f64().unwrap(), region[1].as_f64().unwrap());
    let mut in_a_gap = 0;
    for row in v["verdicts"].as_array().unwrap() {
        let t = row["interval_s"].as_f64().unwrap();
        let inside = (lo..=hi).contains(&t);
        let reaches_zero = row["regret_pct"]["ci95"][0].as_f64().unwrap() <= 0.0;
        assert_eq!(row["confirmed"], inside || reaches_zero, "{row}");
        let point = v["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["interval_s"] == row["interval_s"])
            .unwrap();
        if inside && point["optimal_region"] == false {
            in_a_gap += 1;
        }
    }
    assert!(in_a_gap > 0, "the case no longer has a row in a gap: {v}");
}

/// A downtime that the simulator does not have: the model loses it after every failure (about
/// four a day), so its prediction falls below the runs by far more than 4 standard errors, and
/// the report says why.
#[test]
fn a_downtime_the_simulator_lacks_is_a_departure() {
    let v = validation(&["--downtime", "10m", "--runs", "400", "--points", "3"]);
    let plan = named(&v, "verdicts", "allocation");
    assert!(z(plan) < -4.0, "{plan}");
    assert_eq!(v["all_agree"], false);
    assert_eq!(v["assumptions_hold"], false);
    let notes = v["assumption_notes"][0].as_str().unwrap();
    assert!(notes.contains("downtime of 10m"), "{notes}");
}

/// Nearly fixed lifetimes (Weibull 50, §10.1): the plan (one chunk per life) agrees with the
/// runs and saves measurably more than Young's and Daly's intervals and than the plan of the
/// exponential model, which the runs find about 9% worse.
#[test]
fn under_nearly_fixed_lifetimes_the_plan_beats_the_long_run_intervals() {
    let v = validation(&["--dist", "weibull:50", "--runs", "300", "--points", "5"]);
    assert_eq!(v["inputs"]["dist"], "weibull:50");
    let plan = named(&v, "verdicts", "allocation");
    assert!(z(plan).abs() < 4.0, "{plan}");
    assert_eq!(plan["confirmed"], true);
    for name in ["taken-as-exponential", "young", "daly-complete"] {
        let row = named(&v, "verdicts", name);
        assert_eq!(row["confirmed"], false, "{name}: {row}");
        assert!(z(row).abs() < 4.0, "{name}: {row}");
        let regret = row["regret_pct"]["ci95"][0].as_f64().unwrap();
        assert!(regret > 5.0, "{name}: {row}");
    }
}

/// Two shards merged give the bytes of one process, report folder included.
#[test]
fn shards_merge_to_the_whole_run() {
    let base = with(&["validate"], &DAY);
    let args = with(&base, &["--runs", "40", "--points", "3", "--quiet"]);
    let whole = stdout_of(&args);
    assert_eq!(
        merged_shards(&args, 2, "validate-allocation", "shard"),
        whole
    );
    let out = temp_path("validate-allocation-report");
    let out_s = out.display().to_string();
    let mut with_out = args.clone();
    with_out.extend(["--out", &out_s]);
    stdout_of(&with_out);
    for f in [
        "validate.json",
        "validate.csv",
        "saved.svg",
        "regret.svg",
        "report.md",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("a fixed allocation"), "{md}");
}

/// Each combination the allocation validation does not model is refused with one line.
#[test]
fn what_an_allocation_does_not_combine_with_is_refused() {
    let base = with(&["validate"], &DAY);
    refused(&with(&base, &["--procs", "4"]), &["--procs"]);
    refused(&with(&base, &["--work", "10h"]), &["--work"]);
    refused(&with(&base, &["--sim", "replicated"]), &["--sim"]);
    refused(&with(&base, &["--async-write", "5m"]), &["--async-write"]);
    refused(
        &[
            "validate",
            "--mtbf",
            "6h",
            "--cost",
            "5m",
            "--signal-margin",
            "1m",
        ],
        &["--signal-margin needs --walltime"],
    );
    refused(
        &with(&base, &["--dist", "weibull:50", "--downtime", "1m"]),
        &["--downtime"],
    );
    refused(
        &[
            "validate",
            "--mtbf",
            "6h",
            "--cost",
            "5m",
            "--walltime",
            "4m",
        ],
        &["--walltime", "240s", "longer than one checkpoint"],
    );
}

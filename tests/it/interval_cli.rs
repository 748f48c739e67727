//! `ckpt interval` through the binary: formats, committed examples, and bad input.

use crate::common::{
    DALY_EXAMPLE, REPLICATED_PAIRS, SIMULATED_EXAMPLE, ckpt, named, read_package_file, refused,
    same_json, stdout_of, with,
};
use predicates::prelude::*;

#[test]
fn table_answers_the_embedded_default() {
    let text = stdout_of(&with(&["interval"], DALY_EXAMPLE));
    assert!(text.contains("daly-complete *"), "{text}");
    assert!(
        text.contains("checkpoint every 1h 56m 41s (7001 s)"),
        "{text}"
    );
    for name in [
        "young",
        "daly-first-order",
        "daly-higher-order",
        "daly-exact",
    ] {
        assert!(text.contains(name), "{name}");
    }
}

#[test]
fn json_matches_the_committed_examples() {
    for (file, args) in [
        (
            "data/examples/interval-24h-5m-10m.json",
            DALY_EXAMPLE.to_vec(),
        ),
        (
            "data/examples/interval-replicated.json",
            with(
                REPLICATED_PAIRS,
                &["--work", "100h", "--iteration-time", "7s"],
            ),
        ),
    ] {
        let mut all = vec!["interval"];
        all.extend(args);
        all.extend(["--format", "json"]);
        let got = stdout_of(&all);
        let want = read_package_file(file);
        let (g, w): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&got).unwrap(),
            serde_json::from_str(&want).unwrap(),
        );
        // Equal structure, equal strings, numbers equal to 1e-9 relative: the committed example
        // pins the schema and the figures, not the last bits of the floating-point arithmetic.
        if let Err(path) = same_json(&g, &w, "$", 1e-9, &[]) {
            panic!("{file} differs at {path}: regenerate it if the change is intended");
        }
    }
}

#[test]
fn json_follows_the_documented_schema() {
    let interval = with(&["interval"], SIMULATED_EXAMPLE);
    let text = stdout_of(&with(&interval, &["--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["inputs"]["mtbf_s"], 21600.0);
    assert_eq!(v["recommended"], "daly-complete");
    let models = v["models"].as_array().unwrap();
    assert_eq!(models.len(), 5);
    for m in models {
        for key in [
            "name",
            "kind",
            "interval_s",
            "overhead",
            "efficiency",
            "loss_pct",
            "method",
            "converged",
        ] {
            assert!(m.get(key).is_some(), "{key} missing in {m}");
        }
        let kind = m["kind"].as_str().unwrap();
        assert!(kind == "estimator" || kind == "cost-model");
        let method = m["method"].as_str().unwrap();
        assert!(method == "closed-form" || method == "numerical");
    }
    let tau = v["recommended_interval_s"].as_f64().unwrap() / 60.0;
    assert!((tau - 56.71).abs() < 0.005);
    assert!(!text.contains("NaN") && !text.contains("inf"));
}

#[test]
fn not_applicable_rows_are_null_with_a_note() {
    let text = stdout_of(&[
        "interval", "--mtbf", "10m", "--cost", "25m", "--format", "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ho = named(&v, "models", "daly-higher-order");
    assert!(ho["interval_s"].is_null());
    assert!(ho["note"].as_str().unwrap().contains("not applicable"));
    let fo = named(&v, "models", "daly-first-order");
    assert!(fo["interval_s"].is_null());
}

#[test]
fn env_and_scr_lines() {
    let base = with(&["interval"], DALY_EXAMPLE);
    let env = with(&base, &["--format", "env"]);
    assert_eq!(stdout_of(&env), "CKPT_INTERVAL_SECONDS=7001\n");
    let scr = with(&base, &["--format", "scr"]);
    assert_eq!(stdout_of(&scr), "SCR_CHECKPOINT_SECONDS=7001\n");
}

#[test]
fn nodes_give_the_system_mtbf() {
    let a = stdout_of(&[
        "interval",
        "--nodes",
        "4096",
        "--node-mtbf",
        "5y",
        "--cost",
        "5m",
        "--format",
        "env",
    ]);
    let mtbf = 5.0 * 365.25 * 86400.0 / 4096.0;
    let b = stdout_of(&[
        "interval",
        "--mtbf",
        &format!("{mtbf}"),
        "--cost",
        "5m",
        "--format",
        "env",
    ]);
    assert_eq!(a, b);
}

#[test]
fn cost_from_its_parts() {
    // 10 s create + 64 GiB at 1 GiB/s + 2 s ack = 76 s.
    let a = stdout_of(&[
        "interval",
        "--mtbf",
        "24h",
        "--create-time",
        "10s",
        "--ckpt-bytes",
        "64GiB",
        "--bandwidth",
        "1GiB/s",
        "--ack-time",
        "2s",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["inputs"]["cost_s"], 76.0);
}

#[test]
fn iteration_rounding_picks_the_better_neighbour() {
    let text = stdout_of(&[
        "interval",
        "--mtbf",
        "24h",
        "--cost",
        "5m",
        "--iteration-time",
        "17m",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let it = &v["iterations"];
    let k = it["iterations"].as_u64().unwrap();
    // 7001 s / 1020 s = 6.86: 6 or 7 iterations, whichever costs less.
    assert!(k == 6 || k == 7);
    assert!(it["extra_overhead_pct"].as_f64().unwrap() >= 0.0);
    assert_eq!(it["interval_s"].as_f64().unwrap(), k as f64 * 1020.0);
}

#[test]
fn work_gives_the_expected_completion_time() {
    let text = stdout_of(&[
        "interval", "--mtbf", "24h", "--cost", "5m", "--work", "100h", "--format", "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let c = v["completion_s"].as_f64().unwrap();
    let o = v["recommended_overhead"].as_f64().unwrap();
    assert!((c - 360000.0 * o).abs() < 1e-6);
}

/// `ckpt interval args` is refused with one line that mentions `mentions`.
fn rejects(args: &[&str], mentions: &str) {
    refused(&with(&["interval"], args), &[mentions]);
}

#[test]
fn bad_input_gets_one_line_and_status_2() {
    // A bad MTBF or cost.
    for (mtbf, cost, mentions) in [
        ("0", "5m", "--mtbf"),
        ("-5h", "5m", "--mtbf"),
        ("NaN", "5m", "--mtbf"),
        ("inf", "5m", "--mtbf"),
        ("soon", "5m", "--mtbf"),
        ("1M", "5m", "month"),
        ("24h", "0", "--cost"),
    ] {
        rejects(&["--mtbf", mtbf, "--cost", cost], mentions);
    }
    // A one-day MTBF and 5 min checkpoints with a flag that is wrong or does not go with them.
    for (extra, mentions) in [
        (&["--restart", "-1"][..], "--restart"),
        (&["--replicas", "0"], "--replicas"),
        (&["--procs", "0"], "--procs"),
        (&["--procs", "-3"], "--procs"),
        (&["--procs", "2", "--dist", "weibull:0"], "--dist"),
        (&["--procs", "2", "--dist", "normal"], "--dist"),
        (&["--detect", "immediate"], "--detect"),
        (&["--nodes", "10", "--node-mtbf", "5y"], "--mtbf"),
        (&["--ckpt-bytes", "1GiB", "--bandwidth", "1GB/s"], "--cost"),
        (&["--format", "xml"], "--format"),
        (&["--work", "0"], "--work"),
        (&["--iteration-time", "x"], "--iteration-time"),
    ] {
        rejects(&with(&["--mtbf", "24h", "--cost", "5m"], extra), mentions);
    }
    // A system given some other way, incompletely or wrongly.
    for (args, mentions) in [
        (
            &[
                "--nodes",
                "10",
                "--node-mtbf",
                "5y",
                "--cost",
                "5m",
                "--dist",
                "weibull:0.7",
            ][..],
            "--dist",
        ),
        (&["--nodes", "10", "--cost", "5m"], "--node-mtbf"),
        (&["--node-mtbf", "5y", "--cost", "5m"], "--nodes"),
        (
            &[
                "--nodes",
                "10",
                "--node-mtbf",
                "5y",
                "--procs",
                "4",
                "--cost",
                "5m",
            ],
            "--procs",
        ),
        (&["--cost", "5m"], "--mtbf"),
        (&["--mtbf", "24h"], "--cost"),
        (&["--mtbf", "24h", "--ckpt-bytes", "1GiB"], "--bandwidth"),
        (
            &[
                "--mtbf",
                "24h",
                "--ckpt-bytes",
                "1Gb",
                "--bandwidth",
                "1GB/s",
            ],
            "--ckpt-bytes",
        ),
        (
            &[
                "--mtbf",
                "1h",
                "--cost",
                "60s",
                "--procs",
                "100000000",
                "--replicas",
                "1",
            ],
            "no interval makes progress",
        ),
    ] {
        rejects(args, mentions);
    }
}

#[test]
fn completions_and_man_are_generated() {
    ckpt()
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(predicate::str::contains("interval"));
    ckpt()
        .args(["man"])
        .assert()
        .success()
        .stdout(predicate::str::contains(".TH"));
    ckpt()
        .args(["interval", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Examples:"));
}

#[test]
fn scheme_gives_the_cost_and_its_survival() {
    // 64 processes each checkpointing 1 GiB at 10 GB/s, under a one-day MTBF.
    let machine = [
        "interval",
        "--mtbf",
        "24h",
        "--procs",
        "64",
        "--ckpt-bytes",
        "1GiB",
        "--bandwidth",
        "10GB/s",
    ];
    let text = stdout_of(&with(
        &machine,
        &[
            "--scheme",
            "weighted",
            "--checksums",
            "4",
            "--latency",
            "5us",
            "--flops",
            "1e10",
            "--format",
            "json",
        ],
    ));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let scheme = &v["inputs"]["scheme"];
    let cost = scheme["cost"]["total_s"].as_f64().unwrap();
    assert_eq!(v["inputs"]["cost_s"].as_f64().unwrap(), cost);
    // --procs is the scheme's processor count here, not the replicated model's.
    assert_eq!(v["recommended"], "daly-complete");
    assert!(v["inputs"]["procs"].is_null());
    let survival = scheme["survival"].as_array().unwrap();
    assert!(survival.len() >= 5);
    // Weighted checksums with m = 4 survive any 4 failures and no 5.
    let p = |k: usize| {
        survival
            .iter()
            .find(|r| r["failures"] == k)
            .map(|r| r["probability"].as_f64().unwrap())
    };
    assert_eq!(p(4), Some(1.0));
    assert_eq!(p(5), Some(0.0));
    let table = stdout_of(&with(&machine, &["--scheme", "pair"]));
    assert!(table.contains("in-memory checkpoint: pair"), "{table}");
}

#[test]
fn scheme_flags_are_checked() {
    // Each scheme given with a 1 GiB checkpoint written at 1 GB/s.
    let storage = ["--ckpt-bytes", "1GiB", "--bandwidth", "1GB/s"];
    for (scheme, mentions) in [
        (&["--scheme", "weighted", "--checksums", "4"][..], "--procs"),
        (&["--scheme", "pair", "--procs", "7"], "--procs"),
        (
            &["--cost", "5m", "--scheme", "pair", "--procs", "8"],
            "--cost",
        ),
    ] {
        rejects(&with(&with(&["--mtbf", "24h"], scheme), &storage), mentions);
    }
    rejects(
        &[
            "--mtbf",
            "24h",
            "--scheme",
            "pair",
            "--procs",
            "8",
            "--ckpt-bytes",
            "1GiB",
        ],
        "--bandwidth",
    );
    rejects(
        &["--mtbf", "24h", "--cost", "5m", "--checksums", "4"],
        "--scheme",
    );
}

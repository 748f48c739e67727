//! `ckpt simulate` from the outside: byte-identical JSON across thread counts, the JSON shape,
//! and bad input (exit status 2, one line naming the argument or the file, line and field).

use crate::common::{
    REPLICATED_PAIRS, ckpt, periodic_6h, periodic_example, refused, seeded_json, temp_file, with,
};

fn write_trace(name: &str, text: &str) -> crate::common::ScratchPath {
    temp_file("ckpt-simulate-cli", name, text)
}

/// The shared replicated system with heartbeats and aging Weibull failures.
fn replicated() -> Vec<&'static str> {
    let cmd = with(&["simulate", "replicated"], REPLICATED_PAIRS);
    let rest = [
        "--heartbeat",
        "30s",
        "--interval",
        "6m",
        "--work",
        "20h",
        "--dist",
        "weibull:0.7",
        "--aging",
    ];
    with(&with(&cmd, &rest), &seeded_json("300"))
}

fn stdout(args: &[&str], extra: &[&str]) -> Vec<u8> {
    let out = ckpt().args(args).args(extra).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn same_seed_same_bytes_whatever_the_thread_count() {
    for args in [periodic_6h("120h", "300"), replicated()] {
        let one = stdout(&args, &["--threads", "1"]);
        let two = stdout(&args, &["--threads", "2"]);
        assert_eq!(one, two);
        let reseeded: Vec<&str> = args
            .iter()
            .map(|&a| if a == "7" { "8" } else { a })
            .collect();
        let other_seed = stdout(&reseeded, &["--threads", "2"]);
        assert_ne!(one, other_seed);
    }
    let nodes = [
        "simulate",
        "periodic",
        "--nodes",
        "64",
        "--node-mtbf",
        "30d",
        "--partners",
        "32",
        "--dist",
        "gamma:0.8",
        "--cost",
        "5m",
        "--interval",
        "1h",
        "--work",
        "50h",
        "--runs",
        "200",
        "--format",
        "json",
    ];
    assert_eq!(
        stdout(&nodes, &["--threads", "1"]),
        stdout(&nodes, &["--threads", "2"])
    );
}

#[test]
fn json_has_the_documented_shape() {
    let v: serde_json::Value =
        serde_json::from_slice(&stdout(&periodic_6h("120h", "300"), &[])).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["simulator"], "periodic");
    assert_eq!(v["runs"], 300);
    assert_eq!(v["seed"], 7);
    assert_eq!(v["inputs"]["interval_s"], 3420.0);
    assert_eq!(v["inputs"]["walltime_s"], 432000.0);
    for key in [
        "wall_time_s",
        "failures",
        "work_s",
        "checkpoint_s",
        "restart_s",
        "lost_work_s",
        "finished_within_walltime",
    ] {
        let e = &v["figures"][key];
        assert!(
            e["point"].is_f64() && e["stderr"].is_f64() && e["ci95"][1].is_f64(),
            "{key}: {e}"
        );
        assert_eq!(e["runs"], 300);
    }
    let v: serde_json::Value = serde_json::from_slice(&stdout(&replicated(), &[])).unwrap();
    assert_eq!(v["simulator"], "replicated");
    assert_eq!(v["inputs"]["dist"]["family"], "weibull");
    for key in [
        "wall_time_s",
        "attempts",
        "lost_attempts",
        "replica_deaths",
        "replicas_recreated",
    ] {
        assert!(v["figures"][key]["point"].is_f64(), "{key}");
    }
}

#[test]
fn a_trace_is_replayed_once_with_a_null_stderr() {
    let path = write_trace(
        "ok.csv",
        "# job failures\ntime_seconds\n5\n6\n\n18.5\n20.5\n",
    );
    let out = stdout(
        &[
            "simulate",
            "periodic",
            "--cost",
            "1",
            "--restart",
            "2",
            "--interval",
            "10",
            "--work",
            "100",
            "--format",
            "json",
        ],
        &["--trace", path.to_str().unwrap()],
    );
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["runs"], 1);
    let wall = &v["figures"]["wall_time_s"];
    assert_eq!(wall["point"], 132.5);
    assert!(wall["stderr"].is_null());
    assert_eq!(wall["ci95"][0], 132.5);
    assert_eq!(v["figures"]["failures"]["point"], 4.0);
    assert_eq!(v["inputs"]["trace_failures"], 4);
    // The same trace on standard input (`--trace -`) replays alike.
    let piped = ckpt()
        .args(["simulate", "periodic", "--cost", "1", "--restart", "2"])
        .args(["--interval", "10", "--work", "100", "--format", "json"])
        .args(["--trace", "-"])
        .write_stdin("# job failures\ntime_seconds\n5\n6\n\n18.5\n20.5\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let p: serde_json::Value = serde_json::from_slice(&piped).unwrap();
    assert_eq!(p["figures"], v["figures"]);
    assert_eq!(p["inputs"]["trace"], "<stdin>");
}

#[test]
fn the_table_is_for_people() {
    let out = ckpt()
        .args(periodic_example())
        .args(["--runs", "50"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("periodic: 50 runs, seed 42"), "{text}");
    assert!(
        lines[1].contains("mean") && lines[1].contains("95% CI") && lines[1].contains("stderr")
    );
    assert!(text.contains("wall time") && text.contains("lost work"));
    assert!(
        lines[3].contains('d') && lines[3].contains('h'),
        "human durations: {}",
        lines[3]
    );
    // Not a terminal: no progress bar, nothing on stderr.
    assert!(out.stderr.is_empty());
}

#[test]
fn bad_input_exits_2_with_one_line_naming_it() {
    let base = [
        "simulate",
        "periodic",
        "--cost",
        "5m",
        "--interval",
        "1h",
        "--work",
        "10h",
    ];
    let with = |extra: &[&'static str]| with(&base, extra);
    refused(&with(&["--mtbf", "6h", "--runs", "0"]), &["--runs", "'0'"]);
    refused(
        &with(&["--mtbf", "6h", "--walltime", "5h"]),
        &["--walltime", "at least the work"],
    );
    refused(&with(&["--mtbf", "1M"]), &["--mtbf", "month"]);
    refused(&with(&["--mtbf", "-3h"]), &["--mtbf"]);
    refused(
        &with(&["--mtbf", "6h", "--dist", "weibull:-1"]),
        &["--dist", "weibull:-1"],
    );
    refused(&with(&["--mtbf", "6h", "--nodes", "4"]), &["--nodes"]);
    refused(
        &with(&["--nodes", "4", "--node-mtbf", "1y", "--partners", "5"]),
        &["--partners", "'5'"],
    );
    refused(&with(&[]), &["--mtbf", "--trace"]);
    refused(
        &with(&["--mtbf", "1s", "--restart", "1m"]),
        &["MTBF", "too short"],
    );
    let neg = write_trace("neg.csv", "10\n# fine so far\n-3\n");
    refused(
        &[&base[..], &["--trace", neg.to_str().unwrap()]].concat(),
        &["neg.csv", "line 3", "time_seconds", "negative"],
    );
    let nan = write_trace("nan.csv", "10\nsoon\n");
    refused(
        &[&base[..], &["--trace", nan.to_str().unwrap()]].concat(),
        &["nan.csv", "line 2", "time_seconds", "`soon`"],
    );
    let node = write_trace("node.csv", "10,3\n20,4\n");
    refused(
        &[
            &base[..],
            &["--nodes", "4", "--trace", node.to_str().unwrap()],
        ]
        .concat(),
        &["node.csv", "line 2", "field node", "`4`", "0 to 3"],
    );
    refused(
        &[&base[..], &["--trace", node.to_str().unwrap()]].concat(),
        &["node.csv", "line 1", "--nodes"],
    );
    refused(
        &with(&["--trace", "/nonexistent/trace.csv"]),
        &["--trace", "/nonexistent/trace.csv"],
    );

    let rep = [
        "simulate",
        "replicated",
        "--mtbf",
        "1h",
        "--cost",
        "60s",
        "--interval",
        "6m",
        "--work",
        "10h",
    ];
    let with = |extra: &[&'static str]| [&rep[..], extra].concat();
    refused(&with(&["--procs", "0"]), &["--procs", "'0'"]);
    refused(&with(&["--replicas", "0"]), &["--replicas"]);
    refused(
        &with(&["--restart", "1m"]),
        &["--restart", "--detect immediate"],
    );
    refused(
        &with(&["--detect", "sometimes"]),
        &["--detect", "sometimes"],
    );
    refused(&with(&["--runs", "-1"]), &["--runs"]);
    refused(
        &with(&["--runs", "100000000000"]),
        &["--runs", "1 to 10000000"],
    );
    refused(&with(&["--walltime", "9h"]), &["--walltime"]);
    refused(&with(&["--interval", "0"]), &["--interval"]);
}

//! `--shard i/N` and `ckpt merge` from the outside: for every shardable command, N shards run
//! as separate processes and merged give the single process's stdout and report files byte for
//! byte; shards that do not belong together are refused with one line naming the file; and
//! the Slurm job-array script, run through a stand-in `sbatch`, gives the same bytes again.

use crate::common::{
    DALY_EXAMPLE, REPLICATED_PAIRS, SMALL_STENCIL, ckpt, periodic_6h, refused_in, with,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> crate::common::ScratchPath {
    let dir = crate::common::temp_path(&format!("ckpt-shard-{name}"));
    std::fs::create_dir_all(&*dir).unwrap();
    dir
}

/// Stdout of `ckpt args` run in `dir`, which must succeed.
fn run_in(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = ckpt().current_dir(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "ckpt {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `args` as `n` shards, each its own process, in `dir`; returns the shard files, last
/// slice first (the merge must not depend on the order it is given them in).
fn shards(dir: &Path, args: &[&str], n: u64) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for i in (0..n).rev() {
        let spec = format!("{i}/{n}");
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--shard", &spec]);
        // The thread count is not part of a computation's identity.
        if args[0] == "simulate" {
            a.extend(["--threads", if i % 2 == 0 { "1" } else { "2" }]);
        }
        let path = dir.join(format!("shard-{i}.json"));
        std::fs::write(&path, run_in(dir, &a)).unwrap();
        files.push(path);
    }
    files
}

fn merge_in(dir: &Path, files: &[PathBuf], extra: &[&str]) -> Vec<u8> {
    let mut a: Vec<String> = vec!["merge".into()];
    a.extend(files.iter().map(|p| p.display().to_string()));
    a.extend(extra.iter().map(|s| s.to_string()));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    run_in(dir, &a)
}

/// Every file of a folder, by name.
fn folder(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Single process against three shards merged: the same stdout, byte for byte.
fn same_as_single(name: &str, args: &[&str]) -> Vec<u8> {
    let dir = scratch(name);
    let single = run_in(&dir, args);
    let files = shards(&dir, args, 3);
    let merged = merge_in(&dir, &files, &[]);
    assert_eq!(
        String::from_utf8_lossy(&merged),
        String::from_utf8_lossy(&single)
    );
    assert_eq!(merged, single);
    single
}

/// Single process against three shards merged, both run with `--out report` in `args`: the
/// same stdout and the same report folder, byte for byte. Returns the folder.
fn same_report_as_single(name: &str, args: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let one = scratch(&format!("{name}-single"));
    let single = run_in(&one, args);
    let dir = scratch(&format!("{name}-shards"));
    let files = shards(&dir, args, 3);
    assert_eq!(merge_in(&dir, &files, &[]), single, "{name}");
    let report = folder(&one.join("report"));
    assert_eq!(report, folder(&dir.join("report")), "{name}");
    report
}

#[test]
fn periodic_shards_merge_to_the_single_process_bytes() {
    let periodic = periodic_6h("130h", "40");
    let out = same_as_single("periodic", &periodic);
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["runs"], 40);
    assert_eq!(v["figures"]["wall_time_s"]["runs"], 40);
    // The table too: the merge finishes with the recorded --format.
    let table: Vec<&str> = periodic
        .iter()
        .copied()
        .filter(|a| *a != "--format" && *a != "json")
        .collect();
    same_as_single("periodic-table", &table);
}

#[test]
fn replicated_shards_merge_to_the_single_process_bytes() {
    let command = with(&["simulate", "replicated"], REPLICATED_PAIRS);
    same_as_single(
        "replicated",
        &with(
            &command,
            &[
                "--interval",
                "6m",
                "--work",
                "10h",
                "--runs",
                "30",
                "--format",
                "json",
            ],
        ),
    );
}

/// [`SMALL_STENCIL`] with Poisson failures and the paper's costs, 20 runs as JSON.
fn stencil() -> Vec<&'static str> {
    with(
        SMALL_STENCIL,
        &[
            "--level",
            "3",
            "--process-cost",
            "7.1",
            "--backup-cost",
            "0.0013",
            "--recovery",
            "dependency",
            "--mtbf",
            "30m",
            "--runs",
            "20",
            "--format",
            "json",
        ],
    )
}

#[test]
fn stencil_shards_merge_to_the_single_process_bytes() {
    same_as_single("stencil", &stencil());
    // A trace: one run, so two of the three slices are empty; the table shows the exact
    // makespan of the one run.
    let ini = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/paper/rollback-five-failures.ini"
    );
    let out = same_as_single(
        "stencil-trace",
        &[
            "simulate",
            "stencil",
            "--config",
            ini,
            "--level",
            "1",
            "--recovery",
            "dependency",
        ],
    );
    assert!(String::from_utf8_lossy(&out).contains("makespan exactly"));
}

/// The README's sweep of Daly's example over the MTBF, its report in `report`.
fn sweep() -> Vec<&'static str> {
    let vary = [
        "--vary",
        "mtbf=15m..7d",
        "--log",
        "--points",
        "8",
        "--out",
        "report",
    ];
    with(&with(&["sweep"], DALY_EXAMPLE), &vary)
}

#[test]
fn sweep_shards_merge_to_the_single_process_bytes_and_report() {
    // The same relative --out in two folders: report.md quotes the command line.
    let sweep = sweep();
    let one = scratch("sweep-single");
    let single = run_in(&one, &sweep);
    let dir = scratch("sweep-shards");
    let files = shards(&dir, &sweep, 3);
    assert!(
        !dir.join("report").exists(),
        "a shard leaves --out to the merge"
    );
    let merged = merge_in(&dir, &files, &[]);
    assert_eq!(
        String::from_utf8_lossy(&merged),
        String::from_utf8_lossy(&single)
    );
    let a = folder(&one.join("report"));
    let b = folder(&dir.join("report"));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    assert!(a.contains_key("sweep.json") && a.contains_key("interval.png"));
    for (name, bytes) in &a {
        assert!(b[name] == *bytes, "{name} differs");
    }

    // `merge --out` writes elsewhere, exactly what the command with that --out writes.
    let elsewhere: Vec<&str> = sweep
        .iter()
        .map(|a| if *a == "report" { "other" } else { a })
        .collect();
    let single_other = run_in(&one, &elsewhere);
    let merged_other = merge_in(&dir, &files, &["--out", "other"]);
    assert_eq!(merged_other, single_other);
    assert_eq!(folder(&one.join("other")), folder(&dir.join("other")));
}

/// The validation both the shard test and the array script's test run, without its command.
const VALIDATE: &[&str] = &[
    "--mtbf",
    "1h",
    "--cost",
    "5m",
    "--restart",
    "1m",
    "--runs",
    "20",
    "--work",
    "10h",
    "--points",
    "5",
];

#[test]
fn validate_shards_merge_to_the_single_process_bytes_and_report() {
    let command = with(&["validate"], VALIDATE);
    let args = with(&command, &["--format", "json", "--out", "report"]);
    same_report_as_single("validate", &args);
}

#[test]
fn bad_shards_are_refused_naming_the_file() {
    let dir = scratch("errors");
    let files = shards(&dir, &periodic_6h("130h", "40"), 3);
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let n: Vec<&str> = names.iter().map(String::as_str).collect();
    // files are slices 2, 1, 0.
    refused_in(&dir, &["merge", n[0], n[2]], &["1/3", "missing", n[0]]);
    refused_in(
        &dir,
        &["merge", n[0], n[1], n[2], n[1]],
        &["1/3", "twice", n[1]],
    );
    // A shard of another seed, and one of another shard count.
    let periodic = periodic_6h("130h", "40");
    let other_seed: Vec<&str> = periodic
        .iter()
        .map(|a| if *a == "7" { "8" } else { a })
        .collect();
    let foreign = dir.join("foreign.json");
    let mut a = other_seed.clone();
    a.extend(["--shard", "1/3"]);
    std::fs::write(&foreign, run_in(&dir, &a)).unwrap();
    let f = foreign.display().to_string();
    refused_in(&dir, &["merge", n[2], &f, n[0]], &[&f, "--seed 8"]);
    let four = dir.join("four.json");
    let mut a = periodic.clone();
    a.extend(["--shard", "1/4"]);
    std::fs::write(&four, run_in(&dir, &a)).unwrap();
    let f4 = four.display().to_string();
    refused_in(&dir, &["merge", n[2], &f4], &[&f4, "shard counts"]);
    // Not a shard, unreadable, truncated.
    let report = dir.join("report.json");
    std::fs::write(&report, run_in(&dir, &periodic)).unwrap();
    let r = report.display().to_string();
    refused_in(&dir, &["merge", &r], &[&r, "not a ckpt shard"]);
    refused_in(&dir, &["merge", "no-such.json"], &["no-such.json", "read"]);
    let cut = dir.join("cut.json");
    let text = std::fs::read_to_string(&files[1]).unwrap();
    std::fs::write(&cut, &text[..text.len() / 2]).unwrap();
    let c = cut.display().to_string();
    refused_in(&dir, &["merge", n[2], &c, n[0]], &[&c]);
    // Results that do not fill their slice.
    let short = dir.join("short.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["results"].as_array_mut().unwrap().pop();
    std::fs::write(&short, v.to_string()).unwrap();
    let s = short.display().to_string();
    refused_in(&dir, &["merge", n[2], &s, n[0]], &[&s, "should hold"]);
    // simulate writes no report folder.
    refused_in(&dir, &["merge", n[0], n[1], n[2], "--out", "x"], &["--out"]);
    // Malformed --shard.
    for bad in ["3/3", "1", "a/b", "-1/3", "1/0"] {
        let mut a = periodic.clone();
        a.extend(["--shard", bad]);
        refused_in(&dir, &a, &["--shard", bad]);
    }
}

#[test]
fn a_trace_that_changed_between_shards_is_caught_and_after_them_is_harmless() {
    let dir = scratch("changed");
    let trace = dir.join("failures.csv");
    std::fs::write(&trace, "3600\n7200\n").unwrap();
    let t = trace.display().to_string();
    let args = [
        "simulate",
        "periodic",
        "--trace",
        &t,
        "--cost",
        "5m",
        "--interval",
        "1h",
        "--work",
        "10h",
        "--runs",
        "3",
    ];
    let mut files = vec![dir.join("a.json")];
    let mut a = args.to_vec();
    a.extend(["--shard", "0/2"]);
    std::fs::write(&files[0], run_in(&dir, &a)).unwrap();
    // Same number of failures, another time: only the digest tells.
    std::fs::write(&trace, "3600\n7300\n").unwrap();
    files.push(dir.join("b.json"));
    let mut a = args.to_vec();
    a.extend(["--shard", "1/2"]);
    std::fs::write(&files[1], run_in(&dir, &a)).unwrap();
    let a0 = files[0].display().to_string();
    let b0 = files[1].display().to_string();
    refused_in(&dir, &["merge", &a0, &b0], &[&b0, "inputs"]);
    // Both shards of the new trace, then the trace changes before the merge: the shards carry
    // the trace they ran with, so the merge still gives what one process gave on it.
    let mut a = args.to_vec();
    a.extend(["--shard", "0/2"]);
    std::fs::write(&files[0], run_in(&dir, &a)).unwrap();
    let single = run_in(&dir, &args);
    assert_eq!(run_in(&dir, &["merge", &a0, &b0]), single);
    std::fs::write(&trace, "3600\n7400\n").unwrap();
    assert_eq!(run_in(&dir, &["merge", &a0, &b0]), single);
}

#[test]
fn an_old_format_shard_is_refused_by_its_format() {
    let old = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/examples/shard-format-1.json");
    let o = old.display().to_string();
    refused_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["merge", &o],
        &[
            &o,
            "shard format 1",
            "reads format 2",
            "run the shards again",
        ],
    );
}

#[test]
fn edited_results_and_inputs_are_refused() {
    let dir = scratch("edited");
    let files = shards(&dir, &periodic_6h("130h", "40"), 2);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let edited = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        edit(&mut v);
        let path = dir.join(name);
        std::fs::write(&path, v.to_string()).unwrap();
        path.display().to_string()
    };
    let other = files[1].display().to_string();
    let wall = edited("wall.json", &|v| v["results"][0]["wall"] = 0.into());
    refused_in(
        &dir,
        &["merge", &other, &wall],
        &[&wall, "results", "edited or damaged"],
    );
    let seed = edited("seed.json", &|v| v["job"]["seed"] = 8.into());
    refused_in(
        &dir,
        &["merge", &other, &seed],
        &[&seed, "inputs", "edited or damaged"],
    );
}

/// Runs a script of data/slurm with the stand-in sbatch first on PATH, in `dir`.
fn slurm_standin(dir: &Path, script: &str, args: &[&str]) -> std::process::Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = format!(
        "{}:{}",
        root.join("data/slurm/standin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("bash")
        .arg(root.join("data/slurm").join(script))
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("SHARDS", "3")
        .env("WORK", "work")
        .env("WAIT", "1")
        .env("CKPT", env!("CARGO_BIN_EXE_ckpt"))
        .env("SBATCH_STANDIN_STATE", dir.join("sbatch-state"))
        .output()
        .unwrap()
}

/// [`slurm_standin`], which must succeed.
fn slurm_ok(dir: &Path, script: &str, args: &[&str]) {
    let out = slurm_standin(dir, script, args);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_job_array_script_runs_shards_as_separate_tasks_and_merges_them() {
    let periodic = periodic_6h("130h", "40");
    let sweep = sweep();
    let dir = scratch("slurm-simulate");
    slurm_ok(&dir, "ckpt-array.sh", &periodic);
    let work = dir.join("work");
    for i in 0..3 {
        let shard: serde_json::Value =
            serde_json::from_slice(&std::fs::read(work.join(format!("shard-{i}.json"))).unwrap())
                .unwrap();
        assert_eq!(shard["shard"]["index"], i);
        assert_eq!(shard["shard"]["count"], 3);
    }
    assert_eq!(
        std::fs::read(work.join("merged.out")).unwrap(),
        run_in(&dir, &periodic)
    );

    // WORK is not reused: its shards would be taken for the new run's.
    let out = slurm_standin(&dir, "ckpt-array.sh", &sweep);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("fresh WORK"), "{err}");

    // A sweep through the same script: the merge job writes the recorded --out.
    let fresh = scratch("slurm-sweep");
    slurm_ok(&fresh, "ckpt-array.sh", &sweep);
    let single = scratch("slurm-sweep-single");
    assert_eq!(
        std::fs::read(fresh.join("work/merged.out")).unwrap(),
        run_in(&single, &sweep)
    );
    assert_eq!(
        folder(&fresh.join("report")),
        folder(&single.join("report"))
    );

    // A task that fails: no shard left behind, no merge, the script's status says so.
    let bad = scratch("slurm-bad");
    let mut args = periodic.clone();
    args[3] = "0";
    let out = slurm_standin(&bad, "ckpt-array.sh", &args);
    assert!(!out.status.success());
    assert!(!bad.join("work/shard-0.json").exists());
    assert!(!bad.join("work/shard-0.json.part").exists());
    assert!(!bad.join("work/merged.out").exists());
    let log = std::fs::read_to_string(bad.join("work/slurm-101_0.out")).unwrap();
    assert!(log.contains("--mtbf"), "{log}");
}

#[test]
fn the_validate_array_script_gives_the_single_process_validation() {
    let args = with(VALIDATE, &["--out", "report"]);
    let dir = scratch("slurm-validate");
    slurm_ok(&dir, "validate-array.sh", &args);
    let single = scratch("slurm-validate-single");
    let a = with(&["validate"], &args);
    assert_eq!(
        std::fs::read(dir.join("work/merged.out")).unwrap(),
        run_in(&single, &a)
    );
    assert_eq!(folder(&dir.join("report")), folder(&single.join("report")));
}

#[test]
fn stencil_validation_shards_merge_to_the_single_process_bytes_and_report() {
    let config = format!(
        "{}/data/validate/costly-checkpoint.ini",
        env!("CARGO_MANIFEST_DIR")
    );
    let args = [
        "validate", "--sim", "stencil", "--config", &config, "--runs", "6", "--format", "json",
        "--out", "report",
    ];
    same_report_as_single("validate-stencil", &args);
}

/// Before: with no ckpt on PATH the script said "no `` on PATH", having emptied the name it
/// was about to print.
#[test]
fn the_job_array_script_names_the_binary_it_cannot_find() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("bash")
        .arg(root.join("data/slurm/ckpt-array.sh"))
        .args(["simulate", "periodic", "--mtbf", "1h"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("CKPT", "ckpt-not-installed-here")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no `ckpt-not-installed-here` on PATH"),
        "{err}"
    );
}

#[test]
fn renewal_validation_and_shape_sweep_shards_merge_to_the_single_process_bytes() {
    let job = "--mtbf 24h --cost 10m --restart 10m";
    // `validate --dist` for one job, then the shape sweep: stdout and the report folder.
    for (name, command, expected) in [
        (
            "renewal-validate",
            "validate --dist weibull:0.7 --runs 20 --work 50d --format json",
            ["hazard.svg", "validate.csv"],
        ),
        (
            "renewal-sweep",
            "sweep --dist gamma:1 --vary shape=0.6..1.4 --points 5",
            ["gain.svg", "sweep.json"],
        ),
    ] {
        let line = format!("{command} {job} --out report");
        let args: Vec<&str> = line.split_whitespace().collect();
        let a = same_report_as_single(name, &args);
        assert!(expected.iter().all(|f| a.contains_key(*f)), "{name}");
    }
}

/// A shard whose job was edited and given a matching digest reaches the checks a new job
/// gets: a point count no sweep takes is refused naming `--points`. Before: the merge asked the
/// edited job for its size first, and 2^40 points allocated 8 TiB (abort).
#[test]
fn an_edited_job_with_its_digest_is_checked_as_a_new_one() {
    let dir = scratch("edited-job");
    let args = [
        "sweep",
        "--mtbf",
        "6h",
        "--cost",
        "5m",
        "--vary",
        "mtbf=1h..1d",
        "--points",
        "3",
        "--out",
        "r",
        "--shard",
        "0/1",
    ];
    let text = String::from_utf8(run_in(&dir, &args)).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["job"]["spec"]["points"] = (1u64 << 40).into();
    let job: ckpt::job::Job = serde_json::from_value(v["job"].clone()).unwrap();
    v["digest"] = ckpt::job::shard::digest(&job).into();
    let edited = dir.join("edited.json");
    std::fs::write(&edited, v.to_string()).unwrap();
    refused_in(
        &dir,
        &["merge", edited.to_str().unwrap()],
        &["--points", "1099511627776", "from 2 to 100000"],
    );
}

/// A validation's shards edited to wall times of zero, their results' digest written again to
/// match (it guards against damage, not against edits), were merged into regrets of NaN; every
/// wall time read back must now be at least the job's work, and the file is refused naming it.
#[test]
fn edited_validation_walls_below_the_work_are_refused() {
    let scratch = crate::common::Scratch::new("ckpt-shard-edited");
    let base = [
        "validate", "--mtbf", "6h", "--cost", "5m", "--runs", "20", "--points", "3", "--quiet",
    ];
    let mut files = Vec::new();
    for i in 0..2 {
        let shard = format!("{i}/2");
        let text = crate::common::stdout_of(&with(&base, &["--shard", &shard]));
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        for run in doc["results"].as_array_mut().unwrap() {
            for wall in run.as_array_mut().unwrap() {
                *wall = serde_json::json!(0);
            }
        }
        doc["results_digest"] = ckpt::job::shard::digest(&doc["results"]).into();
        let path = scratch.file(&format!("v{i}.json"), &serde_json::to_string(&doc).unwrap());
        files.push(path.display().to_string());
    }
    let mut merge = vec!["merge"];
    merge.extend(files.iter().map(String::as_str));
    crate::common::refused(
        &merge,
        &["v0.json", "below the job's work", "edited or damaged"],
    );
}

/// A shard file edited to record millions of arguments took 8.8 GB to read and printed them
/// all in one 100 MB line; now more than `MAX_ARGS` of them are refused while reading.
#[test]
fn a_shard_with_too_many_recorded_arguments_is_refused() {
    let scratch = crate::common::Scratch::new("ckpt-shard-args");
    let args = with(
        &crate::common::periodic_example(),
        &["--runs", "4", "--shard", "0/2"],
    );
    let text = crate::common::stdout_of(&args);
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let many = vec![serde_json::json!("a"); ckpt::job::shard::MAX_ARGS + 1];
    doc["args"] = serde_json::Value::Array(many);
    let path = scratch.file("many.json", &serde_json::to_string(&doc).unwrap());
    let path = path.display().to_string();
    let line = crate::common::refused(&["merge", &path], &["many.json", "more than 4096"]);
    assert!(line.len() < 1000, "{line}");
}

/// Shard `i` of `n` of `args` in `dir`, as a JSON value.
fn shard_value(dir: &Path, args: &[&str], i: u64, n: u64) -> serde_json::Value {
    let spec = format!("{i}/{n}");
    let text = String::from_utf8(run_in(dir, &with(args, &["--shard", &spec]))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Writes `v` to `dir/name` with both digests recomputed, as someone editing a shard file and
/// knowing the format (docs/interface.md §4) would: the job's from the job read back, the
/// results' from the results read back as `T` (the serialization ckpt writes).
fn redigested<T>(dir: &Path, name: &str, mut v: serde_json::Value) -> String
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let job: ckpt::job::Job = serde_json::from_value(v["job"].clone()).unwrap();
    v["digest"] = ckpt::job::shard::digest(&job).into();
    let results: Vec<T> = serde_json::from_value(v["results"].clone()).unwrap();
    v["results_digest"] = ckpt::job::shard::digest(&results).into();
    let path = dir.join(name);
    std::fs::write(&path, v.to_string()).unwrap();
    path.display().to_string()
}

/// Merges slice 0 of 2 of `args` with slice 1 edited by `edit` (digests recomputed): refused
/// with status 2, naming the edited file and `needles`, and saying it was edited or damaged.
fn edited_slice_is_refused<T>(
    name: &str,
    args: &[&str],
    edit: &dyn Fn(&mut serde_json::Value),
    needles: &[&str],
) where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let dir = scratch(name);
    let mut first = shard_value(&dir, args, 0, 2);
    // A job is edited in every file, or the files would not belong together; the merge checks
    // the job of the first file given, here the edited slice 1.
    let job = first["job"].clone();
    let job_edit = |v: &mut serde_json::Value| {
        let mut edited = v.clone();
        edit(&mut edited);
        if edited["job"] != job {
            v["job"] = edited["job"].clone();
        }
    };
    job_edit(&mut first);
    let first = redigested::<T>(&dir, "s0.json", first);
    let mut v = shard_value(&dir, args, 1, 2);
    edit(&mut v);
    let edited = redigested::<T>(&dir, "s1e.json", v);
    let mut all = vec![edited.as_str(), "edited or damaged"];
    all.extend(needles);
    refused_in(&dir, &["merge", &edited, &first], &all);
}

fn small_sweep() -> Vec<&'static str> {
    let vary = [
        "sweep",
        "--vary",
        "cost=10s..2h",
        "--points",
        "6",
        "--log",
        "--out",
        "r",
    ];
    with(&vary, DALY_EXAMPLE)
}

/// Before: a sweep point with a model row removed merged with exit 0 into a report whose point
/// recommended a model it had no row for; empty or repeated rows and unknown names too. Every
/// point now holds the first point's models, once each, its recommendation among them.
#[test]
fn an_edited_sweep_point_is_refused_naming_the_file_and_the_point() {
    type P = ckpt::sweep::SweepPoint;
    let args = small_sweep();
    // Slice 1 of 2 holds points 3 to 5; its first row is Young's, its recommendation Daly's.
    let models = |v: &mut serde_json::Value| v["results"][1]["models"].take();
    edited_slice_is_refused::<P>(
        "sweep-row-removed",
        &args,
        &|v| {
            let mut m = models(v);
            m.as_array_mut().unwrap().pop();
            v["results"][1]["models"] = m;
        },
        &["result 2", "where the first point has"],
    );
    edited_slice_is_refused::<P>(
        "sweep-rows-empty",
        &args,
        &|v| v["results"][0]["models"] = serde_json::json!([]),
        &["result 1", "no model rows"],
    );
    edited_slice_is_refused::<P>(
        "sweep-row-twice",
        &args,
        &|v| {
            let mut m = models(v);
            let a = m.as_array_mut().unwrap();
            a[1] = a[0].clone();
            v["results"][1]["models"] = m;
        },
        &["result 2", "twice"],
    );
    edited_slice_is_refused::<P>(
        "sweep-unknown-recommended",
        &args,
        &|v| v["results"][2]["recommended"] = "nobody".into(),
        &["result 3", "`nobody` has no row"],
    );
    // A value outside the swept range (10 s to 2 h).
    edited_slice_is_refused::<P>(
        "sweep-value-outside",
        &args,
        &|v| v["results"][0]["value"] = 9000.0.into(),
        &["result 1", "value 9000 outside the range 10..7200"],
    );
}

/// Before: `simulate multilevel` with a run's `class_failures` cut to one entry merged into a
/// level-2 estimate of 0.667 instead of 0.833; a stencil run with no `tasks_per_worker` changed
/// the min and max. A run now holds one count per level, per worker.
#[test]
fn edited_multilevel_and_stencil_runs_are_refused() {
    let multilevel = [
        "simulate",
        "multilevel",
        "--level",
        "cost=5s,mtbf=1h",
        "--level",
        "cost=60s,mtbf=1d",
        "--interval",
        "10m",
        "--strides",
        "1,4",
        "--work",
        "20h",
        "--runs",
        "6",
        "--format",
        "json",
    ];
    edited_slice_is_refused::<ckpt::sim::multilevel::MultilevelRun>(
        "multilevel-classes",
        &multilevel,
        &|v| v["results"][0]["class_failures"] = serde_json::json!([3]),
        &["result 1", "1 failure counts for 2 levels"],
    );
    let stencil = stencil();
    edited_slice_is_refused::<ckpt::sim::stencil::RunFigures>(
        "stencil-workers",
        &stencil,
        &|v| v["results"][1]["tasks_per_worker"] = serde_json::json!([]),
        &["result 2", "0 task counts for"],
    );
}

/// A small renewal validation (Weibull 0.7 failures of a one-job schedule), for edited shards.
const RENEWAL_VALIDATION: &[&str] = &[
    "validate",
    "--dist",
    "weibull:0.7",
    "--mtbf",
    "24h",
    "--cost",
    "10m",
    "--runs",
    "6",
    "--work",
    "20d",
    "--quiet",
];

/// A validation's run with a wall time less than its intervals (the reduction refused it with
/// a line naming no file), and a renewal validation's run with a policy less.
#[test]
fn edited_validation_runs_of_another_width_are_refused() {
    type W = Vec<u64>;
    let intervals = [
        "validate", "--mtbf", "6h", "--cost", "5m", "--runs", "6", "--points", "3",
    ];
    edited_slice_is_refused::<W>(
        "validate-width",
        &with(&intervals, &["--quiet"]),
        &|v| {
            v["results"][0].as_array_mut().unwrap().pop();
        },
        &["result 1", "wall times for"],
    );
    edited_slice_is_refused::<W>(
        "renewal-width",
        RENEWAL_VALIDATION,
        &|v| {
            v["results"][2].as_array_mut().unwrap().pop();
        },
        &["result 3", "3 measures for 4 candidates"],
    );
}

/// Before: these edited jobs, given matching digests, merged with exit 0 into other outputs.
/// Each now meets the checks the command line applies, and is refused naming the file.
#[test]
fn edited_jobs_meet_the_command_lines_checks_naming_the_file() {
    type P = ckpt::sweep::SweepPoint;
    let sweep = small_sweep();
    edited_slice_is_refused::<P>(
        "sweep-lo-above-hi",
        &sweep,
        &|v| v["job"]["spec"]["lo"] = 9000.0.into(),
        &["--vary", "cost=9000..7200", "0 < LO < HI"],
    );
    edited_slice_is_refused::<P>(
        "sweep-lo-negative",
        &sweep,
        &|v| v["job"]["spec"]["lo"] = (-5.0).into(),
        &["--vary", "cost=-5..7200"],
    );
    edited_slice_is_refused::<P>(
        "sweep-mtbf-0",
        &sweep,
        &|v| v["job"]["inputs"]["mtbf"] = 0.0.into(),
        &["mtbf = 0"],
    );
    let levels = [
        "sweep",
        "--level",
        "cost=5s,mtbf=3h",
        "--level",
        "cost=30s,mtbf=1d",
        "--vary",
        "level2.cost=10s..10m",
        "--points",
        "4",
        "--out",
        "r",
    ];
    type L = ckpt::sweep::multilevel::LevelSweepPoint;
    edited_slice_is_refused::<L>(
        "level-sweep-lo-above-hi",
        &levels,
        &|v| v["job"]["lo"] = 700.0.into(),
        &["level2.cost=700..600"],
    );
    // Before: `no checkpoint level given`, the wrong reason, naming no file.
    edited_slice_is_refused::<L>(
        "level-sweep-level-7",
        &levels,
        &|v| v["job"]["level"] = 7.into(),
        &["varies level 8 of 2"],
    );
    edited_slice_is_refused::<Vec<u64>>(
        "renewal-grid-error",
        RENEWAL_VALIDATION,
        &|v| v["job"]["policies"]["grid_error"] = (-1.0).into(),
        &["a grid error of -1"],
    );
    // Before: `invalid value '0' for 'a simulator input'`, naming no file.
    let validate = [
        "validate", "--mtbf", "6h", "--cost", "5m", "--runs", "6", "--quiet",
    ];
    edited_slice_is_refused::<Vec<u64>>(
        "validate-points-0",
        &validate,
        &|v| v["job"]["options"]["grid_points"] = 0.into(),
        &["a whole number from 3 to 1000"],
    );
}

/// A file with no `ckpt_version` said `written by ckpt , this is ckpt 0.1.0`; a field removed
/// was refused without saying the file was edited. A leading byte-order mark, which other input
/// files may carry, was refused (`expected value at line 1 column 1`) and is now ignored.
#[test]
fn missing_fields_are_edits_and_a_byte_order_mark_is_ignored() {
    let dir = scratch("fields-bom");
    let args = periodic_6h("130h", "10");
    let files = shards(&dir, &args, 2);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let other = files[1].display().to_string();
    for field in ["ckpt_version", "start", "results"] {
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v.as_object_mut().unwrap().remove(field);
        let path = dir.join(format!("no-{field}.json"));
        std::fs::write(&path, v.to_string()).unwrap();
        let p = path.display().to_string();
        refused_in(
            &dir,
            &["merge", &other, &p],
            &[&p, &format!("`{field}`"), "edited or damaged"],
        );
    }
    let bom = dir.join("bom.json");
    std::fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    let b = bom.display().to_string();
    let single = run_in(&dir, &args);
    assert_eq!(
        merge_in(&dir, &[files[1].clone(), bom.clone()], &[]),
        single
    );
    assert_eq!(run_in(&dir, &["merge", &b, &other]), single);
}

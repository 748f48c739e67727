//! What several test modules share: the `ckpt` binary, the check of a refusal, the example
//! systems several modules run, files of the package, scratch files, and JSON compared with a
//! tolerance.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The `ckpt` binary under test.
pub fn ckpt() -> Command {
    Command::cargo_bin("ckpt").unwrap()
}

/// Stdout of `ckpt args`, which must succeed, as text.
pub fn stdout_of(args: &[&str]) -> String {
    let out = ckpt()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// `ckpt args` must be refused the way every bad input is: exit status 2, nothing on stdout,
/// one line on stderr that starts `error: `, names every `needle` and is no panic. Returns
/// the line.
pub fn refused(args: &[&str], needles: &[&str]) -> String {
    refused_in(Path::new("."), args, needles)
}

/// [`refused`], run in the folder `dir`.
pub fn refused_in(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    let out = ckpt().current_dir(dir).args(args).output().unwrap();
    refusal(args, out, needles)
}

/// [`refused`], with `input` on the command's standard input.
pub fn refused_fed(args: &[&str], input: &str, needles: &[&str]) -> String {
    let out = ckpt().args(args).write_stdin(input).output().unwrap();
    refusal(args, out, needles)
}

/// The checks of [`refused`] on the output of `ckpt args`.
fn refusal(args: &[&str], out: std::process::Output, needles: &[&str]) -> String {
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: not one line: {err}"
    );
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: `{n}` missing from: {err}");
    }
    err
}

/// The README's 24 h allocation: M = 6 h, C = R = 5 min, `--walltime 24h`.
pub const DAY: [&str; 8] = [
    "--mtbf",
    "6h",
    "--cost",
    "5m",
    "--restart",
    "5m",
    "--walltime",
    "24h",
];

/// `base` followed by `extra`: a test's own flags after a shared example.
pub fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    [base, extra].concat()
}

/// The README's main job, Daly's example: a 24 h MTBF, 5 min checkpoints, 10 min restarts.
pub const DALY_EXAMPLE: &[&str] = &["--mtbf", "24h", "--cost", "5m", "--restart", "10m"];

/// The README's simulated job: a 6 h MTBF, 5 min checkpoints, 10 min restarts.
pub const SIMULATED_EXAMPLE: &[&str] = &["--mtbf", "6h", "--cost", "5m", "--restart", "10m"];

/// `simulate periodic` of [`SIMULATED_EXAMPLE`] at a 57 min interval (close to Young's 60 min)
/// over 100 h of work: the periodic example the command-line tests share. Tests add the runs,
/// seed, wall-time limit and format they need.
pub fn periodic_example() -> Vec<&'static str> {
    let job = with(&["simulate", "periodic"], SIMULATED_EXAMPLE);
    with(&job, &["--interval", "57m", "--work", "100h"])
}

/// [`periodic_example`] under a wall-time limit of `walltime`, as [`seeded_json`] `runs`.
pub fn periodic_6h(walltime: &'static str, runs: &'static str) -> Vec<&'static str> {
    with(
        &with(&periodic_example(), &["--walltime", walltime]),
        &seeded_json(runs),
    )
}

/// `runs` runs from seed 7, written as JSON: how the tests that compare bytes run a simulation.
pub fn seeded_json(runs: &str) -> [&str; 6] {
    ["--runs", runs, "--seed", "7", "--format", "json"]
}

/// The replicated system the command-line tests share, without its command: 8 processes in
/// pairs, each with a 1 h MTBF, 60 s checkpoints, failures detected at once and 2 min restarts.
pub const REPLICATED_PAIRS: &[&str] = &[
    "--mtbf",
    "1h",
    "--cost",
    "60s",
    "--procs",
    "8",
    "--replicas",
    "2",
    "--detect",
    "immediate",
    "--restart",
    "2m",
];

/// `simulate stencil` of the paper's five-failure trace, the deterministic stencil run the
/// command-line tests share.
pub const PAPER_FIVE_FAILURES: &[&str] = &[
    "simulate",
    "stencil",
    "--config",
    "data/paper/rollback-five-failures.ini",
];

/// The small stencil grid the command-line tests share, without a file: 16 x 16 tasks on 4
/// workers. Tests add the costs, level and failures they need.
pub const SMALL_STENCIL: &[&str] = &[
    "simulate",
    "stencil",
    "--width",
    "16",
    "--rows",
    "16",
    "--workers",
    "4",
];

/// The files of a `validate --out` report of the periodic, replicated and multi-level
/// simulators.
pub const VALIDATE_REPORT: &[&str] = &[
    "validate.json",
    "validate.csv",
    "validate.svg",
    "validate.png",
    "regret.svg",
    "regret.png",
    "report.md",
];

/// Every file of `names` is in `dir`, and none is empty.
pub fn assert_written(dir: &Path, names: &[&str]) {
    for f in names {
        assert!(
            std::fs::metadata(dir.join(f))
                .map(|m| m.len() > 0)
                .unwrap_or(false),
            "{f}"
        );
    }
}

/// A file of the package by its path from the package root (`data/examples/...`), wherever the
/// tests run from.
pub fn package_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The text of a committed file of the package.
pub fn read_package_file(path: &str) -> String {
    std::fs::read_to_string(package_file(path)).unwrap()
}

/// A scratch folder of one test in the system's temporary folder, removed with all it holds
/// when dropped, also when the test fails: a test run leaves nothing behind. Its name starts
/// with the name given, so that a folder a killed run left can be told.
pub struct Scratch(tempfile::TempDir);

impl Scratch {
    /// A fresh, empty folder `<temp>/<name>-<random>`.
    pub fn new(name: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("{name}-"))
            .tempdir()
            .unwrap();
        Scratch(dir)
    }

    /// `name` inside the folder, not created: where a command may write its own folder.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }

    /// Writes `text` to `name` inside the folder and returns its path.
    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

/// A path in a scratch folder of its own, removed with the folder when dropped. It derefs to
/// the path, and only lends it: an argument takes `&*path` (or `path.as_os_str()`), so the
/// folder cannot go with a value moved into a command before the command runs.
pub struct ScratchPath {
    path: PathBuf,
    _folder: Scratch,
}

impl std::ops::Deref for ScratchPath {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

/// `out` in a fresh scratch folder starting `name`, not created: where a command may write
/// its folder or a test its file; see [`ScratchPath`].
pub fn temp_path(name: &str) -> ScratchPath {
    let scratch = Scratch::new(name);
    ScratchPath {
        path: scratch.join("out"),
        _folder: scratch,
    }
}

/// Writes `text` to `name` in a fresh scratch folder starting `folder`; see [`ScratchPath`].
pub fn temp_file(folder: &str, name: &str, text: &str) -> ScratchPath {
    let scratch = Scratch::new(folder);
    ScratchPath {
        path: scratch.file(name, text),
        _folder: scratch,
    }
}

/// Stdout of `ckpt merge` over `args` run as `n` shards, each its own process, the shard files
/// written as `<name>-<i>.json` in a scratch folder starting `folder` (see [`Scratch`]).
pub fn merged_shards(args: &[&str], n: u64, folder: &str, name: &str) -> String {
    let scratch = Scratch::new(folder);
    let files: Vec<String> = (0..n)
        .map(|i| {
            let shard = format!("{i}/{n}");
            let mut a = args.to_vec();
            a.extend(["--shard", &shard]);
            let path = scratch.file(&format!("{name}-{i}.json"), &stdout_of(&a));
            path.display().to_string()
        })
        .collect();
    let mut merge = vec!["merge"];
    merge.extend(files.iter().map(String::as_str));
    stdout_of(&merge)
}

/// Daly's complete model with exponential failures and no downtime, per unit of work:
/// `M e^(R/M) (e^((tau + C)/M) - 1) / tau`.
pub fn daly_overhead(m: f64, c: f64, r: f64, tau: f64) -> f64 {
    m * (r / m).exp() * ((tau + c) / m).exp_m1() / tau
}

/// The optimum of [`daly_overhead`] by golden-section search: an oracle independent of the
/// crate's Brent minimiser.
pub fn daly_optimum(m: f64, c: f64, r: f64) -> f64 {
    let (mut a, mut b) = (c, 10.0 * m);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..200 {
        let (x1, x2) = (b - g * (b - a), a + g * (b - a));
        if daly_overhead(m, c, r, x1) < daly_overhead(m, c, r, x2) {
            b = x2;
        } else {
            a = x1;
        }
    }
    (a + b) / 2.0
}

/// The element of the JSON array `v[list]` (models, verdicts, policies) whose `name` is `name`.
pub fn named<'a>(v: &'a serde_json::Value, list: &str, name: &str) -> &'a serde_json::Value {
    v[list]
        .as_array()
        .unwrap_or_else(|| panic!("no array `{list}`"))
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in `{list}`"))
}

/// `estimate` agrees with the mean `expected` from an independent source: |z| < 4, the
/// simulators' acceptance rule (docs/simulation.md §4); where every run came out alike, the
/// outcome itself to 1e-12. `what` names the case on failure.
pub fn assert_agrees(estimate: &ckpt::sim::stats::Estimate, expected: f64, what: &str) {
    match estimate.z(expected) {
        Some(z) => assert!(z.abs() < 4.0, "{what}: {estimate:?} vs {expected} (z {z})"),
        None => assert!(
            (estimate.point - expected).abs() <= 1e-12 * expected.abs(),
            "{what}: every run {estimate:?} vs {expected}"
        ),
    }
}

/// Equal structure, equal strings, numbers equal to `rel` relative; the values of object keys
/// named in `ignored` need only be present on both sides. `Err` names the first difference by
/// its path from `path` (`$` at the top).
pub fn same_json(
    a: &serde_json::Value,
    b: &serde_json::Value,
    path: &str,
    rel: f64,
    ignored: &[&str],
) -> Result<(), String> {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            if (x - y).abs() <= rel * x.abs().max(y.abs()) {
                Ok(())
            } else {
                Err(format!("{path}: {x} vs {y}"))
            }
        }
        (Array(x), Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .try_for_each(|(i, (p, q))| same_json(p, q, &format!("{path}[{i}]"), rel, ignored)),
        (Object(x), Object(y)) if x.len() == y.len() => {
            x.iter().try_for_each(|(k, v)| match y.get(k) {
                Some(_) if ignored.contains(&k.as_str()) => Ok(()),
                Some(w) => same_json(v, w, &format!("{path}.{k}"), rel, ignored),
                None => Err(format!("{path}.{k} missing")),
            })
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} vs {b}")),
    }
}

//! What several test modules share: the `ckpt` binary, files of the package, scratch files, and
//! JSON compared with a tolerance.

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

/// A file of the package by its path from the package root (`data/examples/...`), wherever the
/// tests run from.
pub fn package_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The text of a committed file of the package.
pub fn read_package_file(path: &str) -> String {
    std::fs::read_to_string(package_file(path)).unwrap()
}

/// Writes `text` to `name` in the folder `<temp>/<folder>-<process id>` (created if need be) and
/// returns its path. Every module names its own folder: they all run in one process.
pub fn temp_file(folder: &str, name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{folder}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Stdout of `ckpt merge` over `args` run as `n` shards, each its own process, the shard files
/// kept as `<folder>/<name>-<i>.json` (see [`temp_file`]).
pub fn merged_shards(args: &[&str], n: u64, folder: &str, name: &str) -> String {
    let files: Vec<String> = (0..n)
        .map(|i| {
            let shard = format!("{i}/{n}");
            let mut a = args.to_vec();
            a.extend(["--shard", &shard]);
            let path = temp_file(folder, &format!("{name}-{i}.json"), &stdout_of(&a));
            path.display().to_string()
        })
        .collect();
    let mut merge = vec!["merge"];
    merge.extend(files.iter().map(String::as_str));
    stdout_of(&merge)
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

//! Shards: one slice of a long command's runs or points, with exactly the random streams a
//! single process would use, and the checks that a set of shards belongs together.
//!
//! A shard file records the command's arguments (without `--shard`, `--threads` and
//! `--quiet`, which do not change results), the slice, and the slice's per-run (or per-point)
//! results. `ckpt merge` checks the files, concatenates their results in run order and
//! finishes the command as a single process would, so the output is byte-identical.

use serde::{Deserialize, Serialize};
use std::ops::Range;
use thiserror::Error;

/// The `kind` of every shard file.
pub const SHARD_KIND: &str = "ckpt-shard";

/// Shards that cannot be used.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ShardError {
    /// `--shard` is malformed.
    #[error(
        "`{value}` is not a shard: use I/N with 0 <= I < N (e.g. 3/16; Slurm: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=0-15)"
    )]
    Spec { value: String },
    /// A file is not a shard file.
    #[error("{file}: not a ckpt shard file ({why})")]
    NotShard { file: String, why: String },
    /// Files of different commands, inputs, seeds or shard counts.
    #[error("{file} does not belong with {first}: {what} differ ({a} vs {b})")]
    Mismatch {
        file: String,
        first: String,
        what: &'static str,
        a: String,
        b: String,
    },
    /// A slice is missing.
    #[error("shard {index}/{count} is missing")]
    Missing { index: u64, count: u64 },
    /// A slice is given twice.
    #[error("shard {index}/{count} is given twice ({file})")]
    Repeated {
        index: u64,
        count: u64,
        file: String,
    },
    /// A file's results do not fill its slice.
    #[error("{file}: shard {index}/{count} should hold {expected} results, holds {found}")]
    Incomplete {
        file: String,
        index: u64,
        count: u64,
        expected: u64,
        found: u64,
    },
    /// No file given.
    #[error("no shard files given")]
    Empty,
}

/// Slice `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 0-based slice number.
    pub index: u64,
    /// Number of slices.
    pub count: u64,
}

impl Shard {
    /// Parses `I/N`.
    ///
    /// ```
    /// let s = ckpt::shard::Shard::parse("2/8").unwrap();
    /// assert_eq!(s.range(100), 25..37);
    /// assert!(ckpt::shard::Shard::parse("8/8").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let err = || ShardError::Spec {
            value: text.to_string(),
        };
        let (i, n) = text.trim().split_once('/').ok_or_else(err)?;
        let index: u64 = i.trim().parse().map_err(|_| err())?;
        let count: u64 = n.trim().parse().map_err(|_| err())?;
        if count == 0 || index >= count {
            return Err(err());
        }
        Ok(Shard { index, count })
    }

    /// The runs (or points) of this slice out of `total`: contiguous, and together the
    /// slices cover `0..total` once.
    pub fn range(&self, total: u64) -> Range<u64> {
        let at = |i: u64| ((total as u128 * i as u128) / self.count as u128) as u64;
        at(self.index)..at(self.index + 1)
    }
}

/// One shard's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardFile<T> {
    /// Always [`SHARD_KIND`].
    pub kind: String,
    /// Schema of the file.
    pub schema_version: u32,
    /// The command's arguments after `ckpt`, less `--shard`, `--threads` and `--quiet`.
    pub args: Vec<String>,
    /// Which slice.
    pub shard: Shard,
    /// Runs or points in all.
    pub total: u64,
    /// First run (or point) of the slice.
    pub start: u64,
    /// The slice's results, in run order.
    pub results: Vec<T>,
}

/// The arguments that identify a computation: `args` less the flags that do not change its
/// results (`--shard`, `--threads`, `--quiet`/`-q`).
pub fn canonical_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_value = false;
    for a in args {
        if skip_value {
            skip_value = false;
            continue;
        }
        match a.as_str() {
            "--shard" | "--threads" => skip_value = true,
            "--quiet" | "-q" => {}
            s if s.starts_with("--shard=") || s.starts_with("--threads=") => {}
            _ => out.push(a.clone()),
        }
    }
    out
}

/// A shard file's header, read without its results.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Header {
    kind: String,
    args: Vec<String>,
    shard: Shard,
    total: u64,
}

/// Checks that `files` (name, text) are all the slices of one computation, and returns its
/// arguments and the files in slice order.
pub fn check(files: &[(String, String)]) -> Result<(Vec<String>, Vec<usize>), ShardError> {
    if files.is_empty() {
        return Err(ShardError::Empty);
    }
    let mut headers = Vec::new();
    for (name, text) in files {
        let h: Header = serde_json::from_str(text).map_err(|e| ShardError::NotShard {
            file: name.clone(),
            why: e.to_string(),
        })?;
        if h.kind != SHARD_KIND {
            return Err(ShardError::NotShard {
                file: name.clone(),
                why: format!("kind is `{}`", h.kind),
            });
        }
        headers.push(h);
    }
    let first = &headers[0];
    for (h, (name, _)) in headers.iter().zip(files).skip(1) {
        let mismatch = |what, a: String, b: String| ShardError::Mismatch {
            file: name.clone(),
            first: files[0].0.clone(),
            what,
            a,
            b,
        };
        if h.args != first.args {
            return Err(mismatch(
                "the command and its inputs",
                first.args.join(" "),
                h.args.join(" "),
            ));
        }
        if h.shard.count != first.shard.count {
            return Err(mismatch(
                "the shard counts",
                first.shard.count.to_string(),
                h.shard.count.to_string(),
            ));
        }
        if h.total != first.total {
            return Err(mismatch(
                "the totals",
                first.total.to_string(),
                h.total.to_string(),
            ));
        }
    }
    let count = first.shard.count;
    let mut order: Vec<Option<usize>> = vec![None; count as usize];
    for (k, h) in headers.iter().enumerate() {
        let slot = &mut order[h.shard.index as usize];
        if slot.is_some() {
            return Err(ShardError::Repeated {
                index: h.shard.index,
                count,
                file: files[k].0.clone(),
            });
        }
        *slot = Some(k);
    }
    let order = order
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            s.ok_or(ShardError::Missing {
                index: i as u64,
                count,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((first.args.clone(), order))
}

/// The results of checked shard files, concatenated in run order.
pub fn concat<T: for<'de> Deserialize<'de>>(
    files: &[(String, String)],
    order: &[usize],
) -> Result<Vec<T>, ShardError> {
    let mut out = Vec::new();
    for &k in order {
        let (name, text) = &files[k];
        let f: ShardFile<T> = serde_json::from_str(text).map_err(|e| ShardError::NotShard {
            file: name.clone(),
            why: e.to_string(),
        })?;
        let expected = f.shard.range(f.total);
        let found = f.results.len() as u64;
        if f.start != expected.start || found != expected.end - expected.start {
            return Err(ShardError::Incomplete {
                file: name.clone(),
                index: f.shard.index,
                count: f.shard.count,
                expected: expected.end - expected.start,
                found,
            });
        }
        out.extend(f.results);
    }
    Ok(out)
}

/// Serializes a shard file (one JSON document with a final newline).
pub fn to_json<T: Serialize>(args: &[String], shard: Shard, total: u64, results: Vec<T>) -> String {
    let range = shard.range(total);
    let file = ShardFile {
        kind: SHARD_KIND.to_string(),
        schema_version: 1,
        args: canonical_args(args),
        shard,
        total,
        start: range.start,
        results,
    };
    let mut s = serde_json::to_string(&file).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_every_run_once() {
        for total in [0u64, 1, 7, 100, 1001] {
            for count in 1..=9 {
                let mut next = 0;
                for index in 0..count {
                    let r = Shard { index, count }.range(total);
                    assert_eq!(r.start, next);
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn canonical_args_drop_what_does_not_change_results() {
        let a: Vec<String> = [
            "simulate",
            "periodic",
            "--threads",
            "2",
            "--shard",
            "1/4",
            "-q",
            "--runs",
            "10",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(canonical_args(&a), ["simulate", "periodic", "--runs", "10"]);
    }

    fn file(args: &[&str], index: u64, count: u64, total: u64) -> (String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let r = Shard { index, count }.range(total);
        let results: Vec<u64> = r.collect();
        (
            format!("s{index}.json"),
            to_json(&args, Shard { index, count }, total, results),
        )
    }

    #[test]
    fn checks_catch_missing_repeated_and_foreign_shards() {
        let a = ["validate", "--mtbf", "1h"];
        let good = vec![file(&a, 1, 3, 10), file(&a, 0, 3, 10), file(&a, 2, 3, 10)];
        let (args, order) = check(&good).unwrap();
        assert_eq!(args, a);
        let all: Vec<u64> = concat(&good, &order).unwrap();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert!(matches!(
            check(&good[..2]),
            Err(ShardError::Missing { index: 2, .. })
        ));
        let twice = vec![good[0].clone(), good[1].clone(), good[0].clone()];
        assert!(matches!(check(&twice), Err(ShardError::Repeated { .. })));
        let other = vec![
            good[0].clone(),
            good[1].clone(),
            file(&["validate", "--mtbf", "2h"], 2, 3, 10),
        ];
        assert!(matches!(check(&other), Err(ShardError::Mismatch { .. })));
        let counts = vec![good[0].clone(), file(&a, 1, 4, 10)];
        assert!(matches!(
            check(&counts),
            Err(ShardError::Mismatch {
                what: "the shard counts",
                ..
            })
        ));
        assert!(matches!(
            check(&[("x".into(), "{}".into())]),
            Err(ShardError::NotShard { .. })
        ));
    }
}

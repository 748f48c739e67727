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
    #[error("{first}: shard {index}/{count} of the same run is missing from the files given")]
    Missing {
        index: u64,
        count: u64,
        first: String,
    },
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
    /// A file cannot be read.
    #[error("{file}: cannot be read ({why})")]
    Read { file: String, why: String },
    /// A file written by another version of ckpt, whose results may differ.
    #[error(
        "{file}: written by ckpt {found}, this is ckpt {expected}: rerun the shards with one version"
    )]
    Version {
        file: String,
        found: String,
        expected: String,
    },
    /// The arguments recorded in a file no longer describe what the shards computed (a
    /// config or trace file they name changed, or they do not parse).
    #[error("{file}: {why}")]
    Stale { file: String, why: String },
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
    /// The ckpt version that wrote it (shards of different versions are not merged).
    pub ckpt_version: String,
    /// The command's arguments after `ckpt`, less `--shard`, `--threads` and `--quiet`.
    pub args: Vec<String>,
    /// Which slice.
    pub shard: Shard,
    /// Runs or points in all.
    pub total: u64,
    /// A digest of the validated inputs, which also covers the files the arguments name.
    pub digest: String,
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

/// A shard file's header: everything but the results (which serde skips over).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Header {
    /// Always [`SHARD_KIND`].
    pub kind: String,
    /// Schema of the file.
    pub schema_version: u32,
    /// The ckpt version that wrote it.
    pub ckpt_version: String,
    /// The command's canonical arguments.
    pub args: Vec<String>,
    /// Which slice.
    pub shard: Shard,
    /// Runs or points in all.
    pub total: u64,
    /// Digest of the validated inputs.
    pub digest: String,
}

/// The version of ckpt shard files are written and merged by.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Reads the header of the shard file `name` with content `text`.
pub fn header(name: &str, text: &str) -> Result<Header, ShardError> {
    let not_shard = |why: String| ShardError::NotShard {
        file: name.to_string(),
        why,
    };
    // The kind first, so that any other JSON (a simulate report, say) is named for what it is.
    #[derive(Deserialize)]
    struct Kind {
        kind: Option<String>,
    }
    let k: Kind = serde_json::from_str(text).map_err(|e| not_shard(e.to_string()))?;
    match k.kind.as_deref() {
        Some(SHARD_KIND) => {}
        Some(other) => return Err(not_shard(format!("kind is `{other}`"))),
        None => return Err(not_shard("no `kind` field".into())),
    }
    let h: Header = serde_json::from_str(text).map_err(|e| not_shard(e.to_string()))?;
    if h.schema_version != 1 {
        return Err(not_shard(format!(
            "schema_version {} (this ckpt reads 1)",
            h.schema_version
        )));
    }
    if h.ckpt_version != VERSION {
        return Err(ShardError::Version {
            file: name.to_string(),
            found: h.ckpt_version,
            expected: VERSION.to_string(),
        });
    }
    if h.shard.count == 0 || h.shard.index >= h.shard.count {
        return Err(not_shard(format!(
            "shard {}/{} is not a slice",
            h.shard.index, h.shard.count
        )));
    }
    Ok(h)
}

/// Checks that `files` (name, text) are all the slices of one computation, and returns its
/// arguments and the files in slice order.
pub fn check(files: &[(String, String)]) -> Result<(Vec<String>, Vec<usize>), ShardError> {
    if files.is_empty() {
        return Err(ShardError::Empty);
    }
    let headers = files
        .iter()
        .map(|(name, text)| header(name, text))
        .collect::<Result<Vec<_>, _>>()?;
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
        if h.digest != first.digest {
            return Err(mismatch(
                "the inputs read from the files the arguments name",
                format!("digest {}", first.digest),
                format!("digest {}", h.digest),
            ));
        }
    }
    let count = first.shard.count;
    // By slice index; a map, since a count is only as trustworthy as the file it came from.
    let mut by_index = std::collections::BTreeMap::new();
    for (k, h) in headers.iter().enumerate() {
        if by_index.insert(h.shard.index, k).is_some() {
            return Err(ShardError::Repeated {
                index: h.shard.index,
                count,
                file: files[k].0.clone(),
            });
        }
    }
    if let Some(index) = (0..count).find(|i| !by_index.contains_key(i)) {
        return Err(ShardError::Missing {
            index,
            count,
            first: files[0].0.clone(),
        });
    }
    let order: Vec<usize> = by_index.into_values().collect();
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

/// Serializes a shard file (one JSON document with a final newline). `args` is the command
/// line after `ckpt` (made canonical here), `digest` what [`digest`] gives for the validated
/// inputs, `results` the slice's results in run order.
pub fn to_json<T: Serialize>(
    args: &[String],
    shard: Shard,
    total: u64,
    digest: &str,
    results: Vec<T>,
) -> String {
    let range = shard.range(total);
    let file = ShardFile {
        kind: SHARD_KIND.to_string(),
        schema_version: 1,
        ckpt_version: VERSION.to_string(),
        args: canonical_args(args),
        shard,
        total,
        digest: digest.to_string(),
        start: range.start,
        results,
    };
    let mut s = serde_json::to_string(&file).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// A digest (64-bit FNV-1a, hex) of `value`'s `Debug` form. Commands digest their validated
/// inputs, which hold the contents of the files their arguments name (traces, configs), so a
/// file that changed between shards, or before the merge, is caught.
///
/// ```
/// use ckpt::shard::digest;
/// assert_eq!(digest(&(1, "a")), digest(&(1, "a")));
/// assert_ne!(digest(&(1, "a")), digest(&(2, "a")));
/// ```
pub fn digest(value: &impl std::fmt::Debug) -> String {
    struct Fnv(u64);
    impl std::fmt::Write for Fnv {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            for b in s.bytes() {
                self.0 ^= b as u64;
                self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
            }
            Ok(())
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    let _ = std::fmt::write(&mut h, format_args!("{value:?}"));
    format!("{:016x}", h.0)
}

/// `&'static str` by another name, for fields deserialized with [`static_str`]: serde's derive
/// borrows every field spelled `&str` from its input (which a `'static` field cannot be), and
/// this spelling keeps it from doing so.
pub type StaticStr = &'static str;

/// Deserializes a string into a `&'static str`, for result types whose names are static
/// (interval rows, say). Each distinct string is allocated once and kept for the life of the
/// process: the names are a handful, and a merge is one short process.
pub fn static_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let s = String::deserialize(d)?;
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&known) = names.get(s.as_str()) {
        return Ok(known);
    }
    let leaked: &'static str = Box::leak(s.into_boxed_str());
    names.insert(leaked);
    Ok(leaked)
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
            to_json(&args, Shard { index, count }, total, "d", results),
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

    #[test]
    fn checks_catch_other_versions_digests_and_short_slices() {
        let a = ["simulate", "periodic"];
        let good = [file(&a, 0, 2, 5), file(&a, 1, 2, 5)];
        let edit = |f: &(String, String), key: &str, value: serde_json::Value| {
            let mut v: serde_json::Value = serde_json::from_str(&f.1).unwrap();
            v[key] = value;
            (f.0.clone(), v.to_string())
        };
        let old = vec![
            good[0].clone(),
            edit(&good[1], "ckpt_version", "0.0.1".into()),
        ];
        assert!(matches!(check(&old), Err(ShardError::Version { file, .. }) if file == "s1.json"));
        let other = vec![good[0].clone(), edit(&good[1], "digest", "e".into())];
        assert!(matches!(
            check(&other),
            Err(ShardError::Mismatch { file, .. }) if file == "s1.json"
        ));
        let short = vec![good[0].clone(), edit(&good[1], "results", vec![3].into())];
        let (_, order) = check(&short).unwrap();
        assert!(matches!(
            concat::<u64>(&short, &order),
            Err(ShardError::Incomplete {
                expected: 3,
                found: 1,
                ..
            })
        ));
        let bad = vec![edit(
            &good[0],
            "shard",
            serde_json::json!({"index": 2, "count": 2}),
        )];
        assert!(matches!(check(&bad), Err(ShardError::NotShard { .. })));
    }

    #[test]
    fn static_names_come_back_once() {
        #[derive(Deserialize)]
        struct Named {
            #[serde(deserialize_with = "static_str")]
            name: StaticStr,
        }
        let a: Named = serde_json::from_str(r#"{"name": "daly-complete"}"#).unwrap();
        let b: Named = serde_json::from_str(r#"{"name": "daly-complete"}"#).unwrap();
        assert_eq!(a.name, "daly-complete");
        assert!(std::ptr::eq(a.name, b.name));
    }
}

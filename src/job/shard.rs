//! Shards: one slice of a job's runs or points, with exactly the random streams a single
//! process would use, and the checks that a set of shard files belongs together.
//!
//! A shard file (format 2) carries the job itself, serialized (its validated config: the
//! contents of any trace or configuration file included), a digest of that serialization, the
//! slice, the slice's per-item results and a digest of them. Merging rebuilds the job from the
//! file, never from a command line, so renaming a flag cannot break an old shard and a file
//! that changed on disk since cannot change what the shards computed. The digests catch files
//! that were edited or damaged after they were written.

use super::Job;
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
    Spec {
        /// The value given.
        value: String,
    },
    /// A file is not a shard file.
    #[error("{file}: not a ckpt shard file ({why})")]
    NotShard {
        /// The file, as named.
        file: String,
        /// Why.
        why: String,
    },
    /// Files of different commands, inputs, seeds or shard counts.
    #[error("{file} does not belong with {first}: {what} differ ({a} vs {b})")]
    Mismatch {
        /// The file, as named.
        file: String,
        /// The first file given.
        first: String,
        /// What differs.
        what: &'static str,
        /// The first file's value.
        a: String,
        /// The other file's value.
        b: String,
    },
    /// A slice is missing.
    #[error("{first}: shard {index}/{count} of the same run is missing from the files given")]
    Missing {
        /// The slice number.
        index: u64,
        /// The number of slices.
        count: u64,
        /// The first file given.
        first: String,
    },
    /// A slice is given twice.
    #[error("shard {index}/{count} is given twice ({file})")]
    Repeated {
        /// The slice number.
        index: u64,
        /// The number of slices.
        count: u64,
        /// The file, as named.
        file: String,
    },
    /// A file's results do not fill its slice.
    #[error(
        "{file}: shard {index}/{count} {}: the file was edited or damaged",
        misplaced(*expected, *found, *first, *last, *start)
    )]
    Incomplete {
        /// The file, as named.
        file: String,
        /// The slice number.
        index: u64,
        /// The number of slices.
        count: u64,
        /// What this ckpt expects.
        expected: u64,
        /// What the file has.
        found: u64,
        /// The first file given.
        first: u64,
        /// The last item the slice should hold.
        last: u64,
        /// Where the file says its slice starts.
        start: u64,
    },
    /// No file given.
    #[error("no shard files given")]
    Empty,
    /// A file cannot be read.
    #[error("{file}: cannot be read ({why})")]
    Read {
        /// The file, as named.
        file: String,
        /// Why.
        why: String,
    },
    /// A file written by another version of ckpt, whose results may differ.
    #[error(
        "{file}: written by ckpt {found}, this is ckpt {expected}: rerun the shards with one version"
    )]
    Version {
        /// The file, as named.
        file: String,
        /// What the file has.
        found: String,
        /// What this ckpt expects.
        expected: String,
    },
    /// A file of an older shard format, whose jobs this version cannot rebuild.
    #[error(
        "{file}: shard format {found}, written by an older ckpt; this ckpt reads format {FORMAT}: run the shards again"
    )]
    OldFormat {
        /// The file, as named.
        file: String,
        /// What the file has.
        found: u32,
    },
    /// A file whose job or results do not match their digest.
    #[error(
        "{file}: the {what} do not match the digest written with them: the file was edited or damaged"
    )]
    Tampered {
        /// The file, as named.
        file: String,
        /// What does not match: the job or the results.
        what: &'static str,
    },
    /// `--out` given to the merge of a command that writes no report folder.
    #[error("{file} is a shard of `ckpt simulate`, which writes no report folder")]
    NoReportFolder {
        /// The file, as named.
        file: String,
    },
}

/// What is wrong with a slice's results: their number or where they start.
fn misplaced(expected: u64, found: u64, first: u64, last: u64, start: u64) -> String {
    let results = |n: u64| {
        if n == 1 {
            "1 result".to_string()
        } else {
            format!("{n} results")
        }
    };
    if found != expected {
        format!(
            "should hold {} (numbers {first} to {last}) but holds {}",
            results(expected),
            results(found)
        )
    } else {
        format!("should hold results {first} to {last} but says its results start at {start}")
    }
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
    /// let s = ckpt::job::shard::Shard::parse("2/8").unwrap();
    /// assert_eq!(s.range(100), 25..37);
    /// assert!(ckpt::job::shard::Shard::parse("8/8").is_err());
    /// assert!(ckpt::job::shard::Shard::parse("+0/3").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let err = || ShardError::Spec {
            value: crate::text::shown(text),
        };
        let (i, n) = text.trim().split_once('/').ok_or_else(err)?;
        // Digits only: `u64::from_str` would also take a sign (`+0/3`).
        let whole = |t: &str| {
            let t = t.trim();
            (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
                .then(|| t.parse::<u64>().ok())
                .flatten()
        };
        let index = whole(i).ok_or_else(err)?;
        let count = whole(n).ok_or_else(err)?;
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

/// The shard format this version writes and reads.
pub const FORMAT: u32 = 2;

/// One shard's file; `R` is the results' container (a `Vec` read back, a slice written).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardFile<R> {
    /// Always [`SHARD_KIND`].
    pub kind: String,
    /// The file format, [`FORMAT`].
    pub schema_version: u32,
    /// The ckpt version that wrote it (shards of different versions are not merged).
    pub ckpt_version: String,
    /// The command line after `ckpt`, less `--shard`, `--threads` and `--quiet`: for messages.
    /// (Bounded where it is read first, in the [`Header`].)
    pub args: Vec<String>,
    /// The job, validated.
    pub job: Job,
    /// [`digest`] of the job's serialization.
    pub digest: String,
    /// Which slice.
    pub shard: Shard,
    /// Runs or points in all.
    pub total: u64,
    /// First run (or point) of the slice.
    pub start: u64,
    /// The slice's results, in run order.
    pub results: R,
    /// [`digest`] of the results' serialization.
    pub results_digest: String,
}

/// Most command-line arguments a shard file may record: far more than any command takes, and
/// few enough that a file of millions cannot take gigabytes to read.
pub const MAX_ARGS: usize = 4096;

/// Reads `args`, refusing more than [`MAX_ARGS`] of them before holding them all.
fn bounded_args<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct Args;
    impl<'de> serde::de::Visitor<'de> for Args {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "at most {MAX_ARGS} command-line arguments")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(a) = seq.next_element::<String>()? {
                if out.len() == MAX_ARGS {
                    return Err(serde::de::Error::custom(format!(
                        "more than {MAX_ARGS} command-line arguments"
                    )));
                }
                out.push(a);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Args)
}

/// A recorded command line for a one-line message: escaped, and cut after 1000 characters
/// (an edited file may hold arguments of any length).
fn quoted(args: &[String]) -> String {
    let text = crate::text::escaped(&args.join(" "));
    match text.char_indices().nth(1000) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text,
    }
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

/// A shard file less its results (which serde skips over).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Header {
    /// The command line, for messages: at most [`MAX_ARGS`] of them, refused while reading,
    /// before the whole file is read as a [`ShardFile`].
    #[serde(deserialize_with = "bounded_args")]
    pub args: Vec<String>,
    /// The job.
    pub job: Job,
    /// Digest of the job.
    pub digest: String,
    /// Which slice.
    pub shard: Shard,
    /// Runs or points in all.
    pub total: u64,
}

/// `text` less a leading UTF-8 byte-order mark, which an editor may add and every input file
/// of ckpt may start with.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The version of ckpt shard files are written and merged by.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Reads the header of the shard file `name` with content `text`, and checks its format,
/// version, slice and the job's digest.
pub fn header(name: &str, text: &str) -> Result<Header, ShardError> {
    let not_shard = |why: String| ShardError::NotShard {
        file: name.to_string(),
        why,
    };
    // The kind and format first, so that any other JSON (a simulate report, say) or an older
    // shard is named for what it is, not for a field it lacks.
    #[derive(Deserialize)]
    struct Kind {
        kind: Option<String>,
        schema_version: Option<u32>,
        ckpt_version: Option<String>,
    }
    let text = without_bom(text);
    let k: Kind = serde_json::from_str(text).map_err(|e| {
        not_shard(if e.is_eof() {
            format!("{e}: the file was cut short, edited or damaged")
        } else {
            e.to_string()
        })
    })?;
    match k.kind.as_deref() {
        Some(SHARD_KIND) => {}
        Some(other) => return Err(not_shard(format!("kind is `{other}`"))),
        None => return Err(not_shard("no `kind` field".into())),
    }
    match k.schema_version {
        Some(FORMAT) => {}
        Some(found) if found < FORMAT => {
            return Err(ShardError::OldFormat {
                file: name.to_string(),
                found,
            });
        }
        Some(v) => {
            return Err(not_shard(format!(
                "schema_version {v} (this ckpt reads {FORMAT})"
            )));
        }
        None => return Err(not_shard("no `schema_version` field".into())),
    }
    // From here on the file says it is a shard of this format: what does not read as one was
    // edited or damaged.
    let damaged = |why: String| not_shard(format!("{why}: the file was edited or damaged"));
    let Some(found) = k.ckpt_version else {
        return Err(damaged("no `ckpt_version` field".into()));
    };
    if found != VERSION {
        return Err(ShardError::Version {
            file: name.to_string(),
            found,
            expected: VERSION.to_string(),
        });
    }
    let h: Header = serde_json::from_str(text).map_err(|e| damaged(e.to_string()))?;
    if h.shard.count == 0 || h.shard.index >= h.shard.count {
        return Err(damaged(format!(
            "shard {}/{} is not a slice",
            h.shard.index, h.shard.count
        )));
    }
    if digest(&h.job) != h.digest {
        return Err(ShardError::Tampered {
            file: name.to_string(),
            what: "job and its inputs",
        });
    }
    Ok(h)
}

/// The shard files of one job, gathered one at a time so that a file's text can be dropped
/// once it is added: each is checked against the first file given, its results against its
/// slice and their digest, and the slices come back in run order.
pub struct Gathered<T> {
    first: String,
    args: Vec<String>,
    count: u64,
    total: u64,
    digest: String,
    // By slice index, with the file's name; a map, since a count is only as trustworthy as the
    // file it came from.
    slices: std::collections::BTreeMap<u64, (String, Vec<T>)>,
}

impl<T: Serialize + for<'de> Deserialize<'de>> Gathered<T> {
    /// Starts from the first file given: its name, its [`header`] and its text.
    pub fn new(first: String, header: &Header, text: &str) -> Result<Gathered<T>, ShardError> {
        let mut g = Gathered {
            first,
            args: header.args.clone(),
            count: header.shard.count,
            total: header.total,
            digest: header.digest.clone(),
            slices: Default::default(),
        };
        let name = g.first.clone();
        g.insert(&name, header.shard, text)?;
        Ok(g)
    }

    /// Adds the shard file `name` with content `text`, which must belong with the first.
    pub fn add(&mut self, name: &str, text: &str) -> Result<(), ShardError> {
        let h = header(name, text)?;
        let mismatch = |what, a: String, b: String| ShardError::Mismatch {
            file: name.to_string(),
            first: self.first.clone(),
            what,
            a,
            b,
        };
        if h.args != self.args {
            return Err(mismatch(
                "the command and its inputs",
                quoted(&self.args),
                quoted(&h.args),
            ));
        }
        if h.shard.count != self.count {
            return Err(mismatch(
                "the shard counts",
                self.count.to_string(),
                h.shard.count.to_string(),
            ));
        }
        if h.total != self.total {
            return Err(mismatch(
                "the total numbers of results",
                self.total.to_string(),
                h.total.to_string(),
            ));
        }
        if h.digest != self.digest {
            return Err(mismatch(
                "the inputs read from the files the arguments name",
                format!("digest {}", self.digest),
                format!("digest {}", h.digest),
            ));
        }
        self.insert(name, h.shard, text)
    }

    /// Every slice's results in run order, once each slice is there, each passed by `check`
    /// (the job's own check of a result's shape; its `Err` names what does not match), which
    /// is given the result and the job's first result (results of one job share their shape).
    pub fn results(
        self,
        check: impl Fn(&T, &T) -> Result<(), String>,
    ) -> Result<Vec<T>, ShardError> {
        let count = self.count;
        if let Some(index) = (0..count).find(|i| !self.slices.contains_key(i)) {
            return Err(ShardError::Missing {
                index,
                count,
                first: self.first,
            });
        }
        let mut out = Vec::with_capacity(self.slices.values().map(|(_, r)| r.len()).sum());
        // Each file's name and where its results start in `out`.
        let mut files = Vec::with_capacity(self.slices.len());
        for (name, slice) in self.slices.into_values() {
            files.push((name, out.len()));
            out.extend(slice);
        }
        let Some(first) = out.first() else {
            return Ok(out);
        };
        for (i, result) in out.iter().enumerate() {
            if let Err(why) = check(result, first) {
                // The file whose slice holds result `i`: the last one starting at or before it.
                let (name, start) = files
                    .iter()
                    .rev()
                    .find(|(_, start)| *start <= i)
                    .map_or((self.first.clone(), 0), |(n, s)| (n.clone(), *s));
                return Err(ShardError::NotShard {
                    file: name,
                    why: format!(
                        "its result {} does not fit its job: {why}; the file was edited or damaged",
                        i - start + 1
                    ),
                });
            }
        }
        Ok(out)
    }

    fn insert(&mut self, name: &str, shard: Shard, text: &str) -> Result<(), ShardError> {
        if self.slices.contains_key(&shard.index) {
            return Err(ShardError::Repeated {
                index: shard.index,
                count: shard.count,
                file: name.to_string(),
            });
        }
        let f: ShardFile<Vec<T>> =
            serde_json::from_str(without_bom(text)).map_err(|e| ShardError::NotShard {
                file: name.to_string(),
                why: format!("{e}: the file was edited or damaged"),
            })?;
        // The header was read from the same text; a file is read once, so only a bug could
        // make them differ, and then the file is refused, never misread.
        if f.digest != self.digest || f.shard != shard || f.total != self.total {
            return Err(ShardError::Tampered {
                file: name.to_string(),
                what: "job and its inputs",
            });
        }
        let expected = f.shard.range(f.total);
        let found = f.results.len() as u64;
        if f.start != expected.start || found != expected.end - expected.start {
            return Err(ShardError::Incomplete {
                file: name.to_string(),
                index: f.shard.index,
                count: f.shard.count,
                expected: expected.end - expected.start,
                found,
                first: expected.start,
                last: expected.end.saturating_sub(1),
                start: f.start,
            });
        }
        if digest(&f.results) != f.results_digest {
            return Err(ShardError::Tampered {
                file: name.to_string(),
                what: "results",
            });
        }
        self.slices
            .insert(shard.index, (name.to_string(), f.results));
        Ok(())
    }
}

/// Serializes the shard file of slice `shard` of `job` (one JSON document with a final
/// newline); `results` are the slice's results in run order.
pub fn to_json<T: Serialize>(job: &Job, shard: Shard, total: u64, results: &[T]) -> String {
    let range = shard.range(total);
    let file = ShardFile {
        kind: SHARD_KIND.to_string(),
        schema_version: FORMAT,
        ckpt_version: VERSION.to_string(),
        args: job.args().to_vec(),
        job: job.clone(),
        digest: digest(job),
        shard,
        total,
        start: range.start,
        results,
        results_digest: digest(&results),
    };
    let mut s = serde_json::to_string(&file).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// A digest (64-bit FNV-1a, hex) of `value`'s compact JSON serialization: the canonical form
/// of a job or of results, since serialization is deterministic (fields in declaration order,
/// floats in shortest round-trip form) and reading it back gives the same value.
///
/// ```
/// use ckpt::job::shard::digest;
/// // FNV-1a of the 7 bytes `[1,"a"]`
/// assert_eq!(digest(&(1, "a")), "5d4e0cbd3073f8ef");
/// assert_ne!(digest(&(1, "a")), digest(&(2, "a")));
/// ```
pub fn digest<T: Serialize + ?Sized>(value: &T) -> String {
    use std::hash::Hasher;
    // serde_json writes to an `io::Write`; this one feeds every byte to the hasher.
    struct Feed(fnv::FnvHasher);
    impl std::io::Write for Feed {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.write(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut h = Feed(fnv::FnvHasher::default());
    // Serializing plain data into a hasher cannot fail; if it ever did, the digest would differ
    // and the merge refuse, never accept.
    let _ = serde_json::to_writer(&mut h, value);
    format!("{:016x}", h.0.finish())
}

#[cfg(test)]
pub(super) mod tests {
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

    /// A small job to shard: 12 runs of a short periodic simulation.
    pub(crate) fn job(seed: u64) -> Job {
        use crate::failure::Lifetime;
        use crate::sim::periodic::{Failures, PeriodicConfig};
        let s = 1_000_000_000;
        let inputs = crate::report::simulate::PeriodicInputs {
            work_s: 7200.0,
            interval_s: 600.0,
            cost_s: 60.0,
            restart_s: 0.0,
            mtbf_s: Some(3600.0),
            nodes: None,
            node_mtbf_s: None,
            partners: 0,
            dist: None,
            trace: None,
            trace_failures: None,
            final_checkpoint: true,
            walltime_s: None,
            async_write_s: None,
            async_slowdown: None,
            signal_lead_s: None,
            schedule_s: None,
        };
        Job::SimulatePeriodic(crate::job::SimulatePeriodic {
            config: PeriodicConfig {
                work: 7200 * s,
                interval: 600 * s,
                cost: 60 * s,
                restart: 0,
                failures: Failures::Platform(Lifetime::exponential(3600.0).unwrap()),
                final_checkpoint: true,
                walltime: None,
                asynchronous: None,
                signal_lead: None,
            },
            inputs,
            runs: 12,
            seed,
            format: crate::report::Format::Json,
            args: vec!["simulate".into(), format!("--seed {seed}")],
        })
    }

    fn file(job: &Job, index: u64, count: u64) -> (String, String) {
        let shard = Some(Shard { index, count });
        let text = job
            .run(shard, 1, &crate::progress::NoProgress)
            .unwrap()
            .text;
        (format!("s{index}.json"), text)
    }

    fn edit(f: &(String, String), edit: impl Fn(&mut serde_json::Value)) -> (String, String) {
        let mut v: serde_json::Value = serde_json::from_str(&f.1).unwrap();
        edit(&mut v);
        (f.0.clone(), v.to_string())
    }

    type Run = crate::sim::periodic::PeriodicRun;

    /// What the merge does with the files, in the order given.
    fn gather(files: &[(String, String)]) -> Result<Vec<Run>, ShardError> {
        let (name, text) = files.first().ok_or(ShardError::Empty)?;
        let h = header(name, text)?;
        let mut g = Gathered::new(name.clone(), &h, text)?;
        for (name, text) in &files[1..] {
            g.add(name, text)?;
        }
        g.results(|_, _| Ok(()))
    }

    #[test]
    fn checks_catch_missing_repeated_and_foreign_shards() {
        let j = job(1);
        let Job::SimulatePeriodic(t) = &j else {
            unreachable!()
        };
        let whole = crate::sim::run::simulate_range(&t.config, 1, 0..12, 1, &|| {}).unwrap();
        let good: Vec<_> = (0..3).rev().map(|i| file(&j, i, 3)).collect();
        assert_eq!(header(&good[0].0, &good[0].1).unwrap().job, j);
        assert_eq!(gather(&good).unwrap(), whole);
        assert!(matches!(
            gather(&good[..2]),
            Err(ShardError::Missing { index: 0, .. })
        ));
        let twice = vec![good[0].clone(), good[1].clone(), good[1].clone()];
        assert!(matches!(gather(&twice), Err(ShardError::Repeated { .. })));
        let other = vec![good[0].clone(), file(&job(2), 1, 3)];
        assert!(matches!(gather(&other), Err(ShardError::Mismatch { .. })));
        let counts = vec![good[0].clone(), file(&j, 1, 4)];
        assert!(matches!(
            gather(&counts),
            Err(ShardError::Mismatch {
                what: "the shard counts",
                ..
            })
        ));
        assert!(matches!(
            gather(&[("x".into(), "{}".into())]),
            Err(ShardError::NotShard { .. })
        ));
        assert!(matches!(gather(&[]), Err(ShardError::Empty)));
    }

    #[test]
    fn checks_catch_old_formats_versions_edits_and_short_slices() {
        let j = job(1);
        let good: Vec<_> = (0..2).map(|i| file(&j, i, 2)).collect();
        let old = edit(&good[1], |v| v["schema_version"] = 1.into());
        let err = gather(&[good[0].clone(), old]).unwrap_err();
        assert!(
            matches!(err, ShardError::OldFormat { found: 1, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("format 1"), "{err}");
        let version = edit(&good[1], |v| v["ckpt_version"] = "0.0.1".into());
        assert!(matches!(
            gather(&[good[0].clone(), version]),
            Err(ShardError::Version { file, .. }) if file == "s1.json"
        ));
        // An edited input, with the job digest left as it was.
        let job_edit = edit(&good[1], |v| v["job"]["seed"] = 9.into());
        assert!(matches!(
            gather(&[good[0].clone(), job_edit]),
            Err(ShardError::Tampered {
                what: "job and its inputs",
                ..
            })
        ));
        // An edited total, the job left as it was.
        let total_edit = edit(&good[1], |v| v["total"] = 13.into());
        assert!(matches!(
            gather(&[good[0].clone(), total_edit]),
            Err(ShardError::Mismatch {
                what: "the total numbers of results",
                ..
            })
        ));
        // An edited result.
        let result_edit = edit(&good[1], |v| v["results"][0]["failures"] = 99.into());
        assert!(matches!(
            gather(&[good[0].clone(), result_edit]),
            Err(ShardError::Tampered {
                what: "results",
                ..
            })
        ));
        // A dropped result.
        let short = edit(&good[1], |v| {
            v["results"].as_array_mut().unwrap().pop();
        });
        let err = gather(&[good[0].clone(), short]).unwrap_err();
        assert!(
            matches!(
                err,
                ShardError::Incomplete {
                    expected: 6,
                    found: 5,
                    ..
                }
            ),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("should hold 6 results (numbers 6 to 11) but holds 5"),
            "{err}"
        );
    }

    #[test]
    fn a_job_reads_back_as_it_was_written() {
        let j = job(3);
        let text = serde_json::to_string(&j).unwrap();
        let back: Job = serde_json::from_str(&text).unwrap();
        assert_eq!(back, j);
        assert_eq!(digest(&back), digest(&j));
    }

    /// The digest is 64-bit FNV-1a of the JSON bytes, as it was before the hasher came from the
    /// `fnv` crate, so that shard files written then still merge. Expected values from a
    /// second implementation (Python) of FNV-1a over the same bytes.
    #[test]
    fn the_digest_is_fnv_1a_of_the_json() {
        assert_eq!(digest(&[0u8; 0]), "09612b07b5ecb5a5", "`[]`");
        assert_eq!(digest(&"a"), "d4272417d7c77eea", "`\"a\"`");
        assert_eq!(
            digest(&serde_json::json!({"runs": 20, "seed": 42})),
            "0f3de6a03942900c"
        );
    }
}

//! `--shard i/N` and `ckpt merge`: one command's runs (or points) spread over processes, and
//! the shards put back together into exactly what one process prints and writes.
//!
//! A shardable command is a [`Job`]: a number of independent items (runs, points), a function
//! computing the items of a range, and a function finishing the command from all items in
//! order. Without `--shard` the command computes `0..total` and finishes ([`run_job`]); with it
//! the command computes its slice and prints a shard file; `ckpt merge` re-parses the recorded
//! arguments with the same clap definitions, concatenates the files' items and finishes
//! ([`finish_from`]). Both paths go through the same `finish`, so the bytes are the same.

use super::{Cli, CliError, Command, Progress};
use ckpt::shard::{self, Shard, ShardError};
use clap::{Args, Parser};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::ops::Range;
use std::path::PathBuf;

/// Examples shown under `ckpt merge --help`.
pub const EXAMPLES: &str = "Examples:
  for i in 0 1 2; do ckpt simulate periodic --mtbf 6h --cost 5m --interval 57m --work 500h \\
      --format json --shard $i/3 > shard-$i.json; done
  ckpt merge shard-*.json                # what the command without --shard prints
  ckpt merge shard-*.json --out report   # its report folder, here instead of the recorded --out

The shards must be all the slices of one command (same arguments, seed and N, each slice
once); the files the arguments name (configs, traces) are read again and must be unchanged.";

/// `ckpt merge` arguments.
#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// Shard files written by a command run with `--shard I/N`, in any order.
    #[arg(required = true, value_name = "SHARD.json")]
    pub files: Vec<PathBuf>,
    /// Folder for the command's report files, instead of the `--out` the shards recorded.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// What a command gives the binary: text for stdout and, with a report folder, its files.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Output {
    /// Printed to stdout as is.
    pub text: String,
    /// The report folder, when the command writes one.
    pub out: Option<PathBuf>,
    /// `(file name, bytes)` for `out`.
    pub files: Vec<(String, Vec<u8>)>,
}

impl Output {
    /// Text only.
    pub fn text(text: String) -> Output {
        Output {
            text,
            ..Output::default()
        }
    }
}

/// A command whose work is a set of independent items (runs or points) that can be sharded.
pub trait Job {
    /// One item's result, as shard files carry it.
    type Item: Serialize + DeserializeOwned + Send;
    /// What the progress bar says.
    fn label(&self) -> &'static str;
    /// Items in all.
    fn total(&self) -> u64;
    /// What identifies the computation beyond its arguments: [`shard::digest`] of the
    /// validated inputs, which hold the contents of any files the arguments name.
    fn digest(&self) -> String;
    /// The items of `range`, in order; `tick` once per finished item.
    fn compute(
        &self,
        range: Range<u64>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<Self::Item>, CliError>;
    /// The command's output from every item, in order.
    fn finish(&self, items: Vec<Self::Item>) -> Result<Output, CliError>;
}

/// The `--shard I/N` flag, flattened into every shardable command.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ShardArg {
    /// Run only slice I of N (0-based; e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) and
    /// print it as a shard file for `ckpt merge`; --out is then left to the merge.
    #[arg(long, value_name = "I/N", allow_hyphen_values = true, value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// Runs `job` whole, or with `shard` only its slice, printed as a shard file that records
/// `argv` (the command line after `ckpt`).
pub fn run_job<J: Job>(
    job: &J,
    shard: Option<Shard>,
    argv: &[String],
    progress: &dyn Progress,
) -> Result<Output, CliError> {
    let total = job.total();
    let range = shard.map_or(0..total, |s| s.range(total));
    progress.start(job.label(), range.end - range.start);
    let items = job.compute(range, &|| progress.tick());
    progress.finish();
    let items = items?;
    match shard {
        None => job.finish(items),
        Some(s) => Ok(Output::text(shard::to_json(
            argv,
            s,
            total,
            &job.digest(),
            items,
        ))),
    }
}

/// Finishes `job` from checked shard files (`order` from [`shard::check`]), after making sure
/// that the arguments, re-read, still describe what the shards computed.
pub fn finish_from<J: Job>(
    job: &J,
    files: &[(String, String)],
    order: &[usize],
) -> Result<Output, CliError> {
    let (name, text) = &files[order[0]];
    let h = shard::header(name, text)?;
    let stale = |why: String| ShardError::Stale {
        file: name.clone(),
        why,
    };
    if job.total() != h.total {
        return Err(stale(format!(
            "the shards hold {} items, the recorded arguments now give {}: a file they name changed",
            h.total,
            job.total()
        ))
        .into());
    }
    if job.digest() != h.digest {
        return Err(stale(
            "the inputs changed since the shards ran: a config or trace file the arguments name differs"
                .into(),
        )
        .into());
    }
    let items = shard::concat::<J::Item>(files, order)?;
    job.finish(items)
}

/// `args` with its `--out` replaced by `out` in place (or `--out out` added at the end).
fn with_out(args: &[String], out: &std::path::Path) -> Vec<String> {
    let out = out.display().to_string();
    let mut v = Vec::new();
    let mut replaced = false;
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        if a == "--out" || a.starts_with("--out=") {
            skip = a == "--out";
            if !replaced {
                v.push("--out".to_string());
                v.push(out.clone());
                replaced = true;
            }
            continue;
        }
        v.push(a.clone());
    }
    if !replaced {
        v.push("--out".into());
        v.push(out);
    }
    v
}

/// Reads the files of `ckpt merge`, checks that they belong together, and finishes their
/// command as one process would.
pub fn run(args: &MergeArgs) -> Result<Output, CliError> {
    let files = args
        .files
        .iter()
        .map(|p| {
            let name = p.display().to_string();
            std::fs::read_to_string(p)
                .map(|text| (name.clone(), text))
                .map_err(|e| ShardError::Read {
                    file: name,
                    why: e.to_string(),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (recorded, order) = shard::check(&files)?;
    let first = files[order[0]].0.clone();
    let recorded = match &args.out {
        Some(dir) => {
            if recorded.first().map(String::as_str) == Some("simulate") {
                return Err(CliError::Invalid {
                    arg: "--out",
                    value: dir.display().to_string(),
                    accepted: format!(
                        "no --out: {first} is a shard of `ckpt simulate`, which writes no report folder"
                    ),
                });
            }
            with_out(&recorded, dir)
        }
        None => recorded,
    };
    let cli = Cli::try_parse_from(std::iter::once("ckpt".to_string()).chain(recorded.clone()))
        .map_err(|e| ShardError::Stale {
            file: first.clone(),
            why: format!(
                "the recorded arguments do not parse: {}",
                e.to_string().lines().next().unwrap_or("").trim()
            ),
        })?;
    let command = format!("ckpt {}", recorded.join(" "));
    match cli.command {
        Command::Simulate(a) => super::simulate::merge(a, &files, &order),
        Command::Validate(a) => super::validate::merge(&a, &command, &files, &order),
        Command::Sweep(a) => {
            let job = super::sweep::job(&a, &command)?;
            finish_from(&job, &files, &order)
        }
        _ => Err(ShardError::NotShard {
            file: first,
            why: format!(
                "`ckpt {}` has no shards",
                recorded.first().map(String::as_str).unwrap_or("")
            ),
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ckpt::progress::NoProgress;

    /// Squares, summed by `finish`.
    struct Squares(u64);

    impl Job for Squares {
        type Item = u64;
        fn label(&self) -> &'static str {
            "squares"
        }
        fn total(&self) -> u64 {
            self.0
        }
        fn digest(&self) -> String {
            shard::digest(&self.0)
        }
        fn compute(&self, r: Range<u64>, tick: &(dyn Fn() + Sync)) -> Result<Vec<u64>, CliError> {
            Ok(r.map(|i| {
                tick();
                i * i
            })
            .collect())
        }
        fn finish(&self, items: Vec<u64>) -> Result<Output, CliError> {
            Ok(Output::text(format!("{items:?}")))
        }
    }

    #[test]
    fn shards_merge_to_the_whole() {
        let job = Squares(10);
        let argv: Vec<String> = vec!["squares".into()];
        let whole = run_job(&job, None, &argv, &NoProgress).unwrap();
        let files: Vec<(String, String)> = (0..3)
            .rev()
            .map(|i| {
                let s = Shard { index: i, count: 3 };
                let text = run_job(&job, Some(s), &argv, &NoProgress).unwrap().text;
                (format!("s{i}"), text)
            })
            .collect();
        let (args, order) = shard::check(&files).unwrap();
        assert_eq!(args, argv);
        assert_eq!(finish_from(&job, &files, &order).unwrap(), whole);
        // The same arguments over other inputs (a changed file, say) are refused.
        let err = finish_from(&Squares(11), &files, &order).unwrap_err();
        assert!(err.to_string().contains("s0"), "{err}");
    }

    #[test]
    fn out_is_replaced() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let c = std::path::Path::new("c");
        assert_eq!(
            with_out(&args(&["sweep", "--out", "a", "--log", "--out=b"]), c),
            ["sweep", "--out", "c", "--log"]
        );
        assert_eq!(
            with_out(&args(&["validate", "--log"]), c),
            ["validate", "--log", "--out", "c"]
        );
    }
}

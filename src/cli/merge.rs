//! `--shard i/N` and `ckpt merge`: one command's runs (or points) spread over processes, and
//! the shards put back together into exactly what one process prints and writes.
//!
//! The jobs and their shard files live in the library (`ckpt::job`); this module holds the
//! `--shard` flag and `ckpt merge`'s arguments, and maps the library's errors to messages.

use super::CliError;
use ckpt::job::shard::{Shard, ShardError};
use ckpt::job::{JobError, Output};
use clap::Args;
use std::path::PathBuf;

/// Examples shown under `ckpt merge --help`.
pub const EXAMPLES: &str = "Examples:
  for i in 0 1 2; do ckpt simulate periodic --mtbf 6h --cost 5m --interval 57m --work 500h \\
      --format json --shard $i/3 > shard-$i.json; done
  ckpt merge shard-*.json                # what the command without --shard prints
  ckpt merge shard-*.json --out report   # its report folder, here instead of the recorded --out

The shards must be all the slices of one command (same arguments, seed and N, each slice
once). Each shard carries the validated inputs, the contents of any config or trace file
included, so the merge reads no other file and needs none of them unchanged.";

/// `ckpt merge` arguments.
#[derive(Debug, Clone, Args)]
pub struct MergeArgs {
    /// Shard files written by a command run with `--shard I/N`, in any order.
    #[arg(required = true, value_name = "SHARD.json")]
    pub files: Vec<PathBuf>,
    /// Folder for the command's report files, instead of the `--out` the shards recorded.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the --out folder even if it holds files that are not this command's report.
    #[arg(long)]
    pub force: bool,
}

/// The `--shard I/N` flag, flattened into every shardable command.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ShardArg {
    /// Run only slice I of N (0-based; e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) and
    /// print it as a shard file for `ckpt merge`; --out is then left to the merge.
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// With `--shard`, refuses a shard file larger than `ckpt merge` reads, naming how many shards
/// would make each small enough; the whole output passes as it is.
pub fn mergeable(output: Output, shard: Option<Shard>) -> Result<Output, CliError> {
    mergeable_within(output, shard, super::input::MAX_SHARD_BYTES)
}

fn mergeable_within(output: Output, shard: Option<Shard>, limit: u64) -> Result<Output, CliError> {
    let size = output.text.len() as u64;
    match shard {
        Some(s) if size > limit => Err(CliError::Invalid {
            arg: "--shard",
            value: format!("{}/{}", s.index, s.count),
            accepted: format!(
                "a slice whose shard file `ckpt merge` can read: this one takes {} MiB, over \
                 {} MiB; split the runs into at least {} shards",
                size.div_ceil(1 << 20),
                limit >> 20,
                (size.saturating_mul(s.count)).div_ceil(limit)
            ),
        }),
        _ => Ok(output),
    }
}

/// Reads the files of `ckpt merge`, checks that they belong together, and finishes their
/// job as one process would.
pub fn run(args: &MergeArgs) -> Result<Output, CliError> {
    // Read one at a time, as the merge comes to each.
    let files = args.files.iter().map(|p| {
        let name = p.display().to_string();
        super::input::read_within(p, super::input::MAX_SHARD_BYTES)
            .and_then(|b| String::from_utf8(b).map_err(|e| e.to_string()))
            .map(|text| (name.clone(), text))
            .map_err(|why| ShardError::Read { file: name, why })
    });
    ckpt::job::merge(files, args.out.as_deref()).map_err(|e| match (e, &args.out) {
        (JobError::Shard(ShardError::NoReportFolder { file }), Some(dir)) => CliError::Invalid {
            arg: "--out",
            value: dir.display().to_string(),
            accepted: format!(
                "no --out: {file} is a shard of `ckpt simulate`, which writes no report folder"
            ),
        },
        (e, _) => super::job_error(e),
    })
    .and_then(|output| match output.out {
        None if args.force => Err(CliError::Conflict(
            "--force replaces a report folder, and these shards write none (`ckpt simulate`, or a run without --out)".into(),
        )),
        _ => Ok(output),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Before: a shard file over the 256 MiB input bound was printed, and only the merge, after
    /// every slice had run, refused it.
    #[test]
    fn a_shard_file_merge_cannot_read_is_refused_with_the_shards_needed() {
        let text = || Output::text("x".repeat(3 << 20));
        let shard = Some(Shard { index: 1, count: 4 });
        match mergeable_within(text(), shard, 1 << 20) {
            Err(CliError::Invalid {
                arg,
                value,
                accepted,
            }) => {
                assert_eq!((arg, value.as_str()), ("--shard", "1/4"));
                // 3 MiB a slice of 4 over 1 MiB a file: at least 12 slices.
                assert!(accepted.contains("takes 3 MiB, over 1 MiB"), "{accepted}");
                assert!(accepted.contains("at least 12 shards"), "{accepted}");
            }
            other => panic!("{:?}", other.map(|o| o.text.len())),
        }
        assert!(mergeable_within(text(), None, 1 << 20).is_ok());
        assert!(mergeable_within(text(), shard, 4 << 20).is_ok());
    }
}

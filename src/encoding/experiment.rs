//! The encode experiment: encode random checkpoints with a scheme, erase a set of processors,
//! rebuild them and measure what came back (`ckpt encode`).

use super::codec::{Accuracy, Codec, RecoveryReport, erase};
use super::matrix::MATRIX_STREAM;
use super::{EncodingError, SchemeSpec};
use crate::progress::{Progress, within};
use crate::rng::{run_rng, standard_normal};
use rand::RngExt;

/// Stream of the seed the checkpoint data of `ckpt encode` are drawn from.
pub const DATA_STREAM: u64 = MATRIX_STREAM + 1;
/// Stream the failed set of `ckpt encode --fail K` is drawn from.
pub const FAIL_STREAM: u64 = MATRIX_STREAM + 2;

/// Most processors of an experiment, extra ones included: each holds its checkpoint as a
/// vector of its own, about 260 bytes with its copies and bookkeeping even at one value, so
/// that this many take about a GiB.
pub const MAX_PROCS: usize = 1 << 22;

/// Most values in all (`len` times the processors): the checkpoints, their copies and the
/// rebuilt set stay within a few GiB.
pub const MAX_VALUES: usize = 1 << 27;

/// Refuses an experiment whose data would not fit [`MAX_PROCS`] and [`MAX_VALUES`]: `spec`'s
/// processors (naming `--procs`), then `len` values per checkpoint (naming `--len`).
///
/// ```
/// use ckpt::encoding::{SchemeKind, SchemeSpec};
/// use ckpt::encoding::experiment::check_size;
/// let spec = SchemeSpec::new(SchemeKind::Checksum, 1 << 23, None, None).unwrap();
/// assert!(check_size(&spec, 1).is_err());
/// let spec = SchemeSpec::new(SchemeKind::Checksum, 64, None, None).unwrap();
/// assert!(check_size(&spec, 1024).is_ok());
/// assert!(check_size(&spec, 1 << 22).is_err());
/// ```
pub fn check_size(spec: &SchemeSpec, len: usize) -> Result<(), EncodingError> {
    let total = spec.total_procs();
    if total > MAX_PROCS {
        return Err(EncodingError::Invalid {
            arg: "--procs",
            value: spec.procs.to_string(),
            accepted: format!(
                "at most {MAX_PROCS} processors in all for an encode experiment ({spec} has {total}): each one's checkpoint is a vector of its own"
            ),
        });
    }
    if len == 0 || len.saturating_mul(total) > MAX_VALUES {
        return Err(EncodingError::Invalid {
            arg: "--len",
            value: len.to_string(),
            accepted: format!(
                "between 1 and {} values per checkpoint for {total} processors",
                MAX_VALUES / total
            ),
        });
    }
    Ok(())
}

/// The result of one encode/fail/recover experiment.
#[derive(Debug, Clone)]
pub struct EncodeOutcome {
    /// Failed processors (computation and extra), sorted.
    pub failed: Vec<usize>,
    /// What the recovery rebuilt and solved; `None` when the scheme could not rebuild the
    /// failed set.
    pub recovery: Option<RecoveryReport>,
    /// How well the lost computation checkpoints came back; `None` when none was lost or
    /// none could be rebuilt.
    pub accuracy: Option<Accuracy>,
    /// What a missing figure means.
    pub note: Option<String>,
}

/// Encodes standard-normal checkpoints (`len` values each, from `seed`), erases the `failed`
/// processors, rebuilds them and measures the result. `progress` gets three steps: the data
/// drawn, encoded, rebuilt.
pub fn encode_experiment(
    codec: &Codec,
    len: usize,
    seed: u64,
    failed: &[usize],
    progress: &dyn Progress,
) -> Result<EncodeOutcome, EncodingError> {
    check_size(codec.spec(), len)?;
    within(progress, "encode", 3, || {
        let spec = codec.spec();
        let mut rng = run_rng(seed, DATA_STREAM);
        let orig: Vec<Vec<f64>> = (0..spec.procs)
            .map(|_| (0..len).map(|_| standard_normal(&mut rng)).collect())
            .collect();
        progress.tick();
        let held = codec.encode(&orig)?;
        progress.tick();
        let mut failed = failed.to_vec();
        failed.sort_unstable();
        failed.dedup();
        let (mut locals, mut h) = (orig.clone(), held);
        erase(&mut locals, &mut h, &failed);
        let recovered = codec.recover(&mut locals, &mut h, &failed);
        progress.tick();
        match recovered {
            Ok(report) => {
                let note = if report.rebuilt.is_empty() {
                    Some(
                        "no computation processor failed: only redundancy was re-encoded"
                            .to_string(),
                    )
                } else if report.solves.is_empty() {
                    Some("copies, no system solved: condition number not applicable".to_string())
                } else {
                    None
                };
                Ok(EncodeOutcome {
                    failed,
                    accuracy: Accuracy::measure(&orig, &locals, &report),
                    recovery: Some(report),
                    note,
                })
            }
            Err(EncodingError::Unrecoverable { .. }) => Ok(lost_outcome(
                failed,
                "the scheme does not survive this failure set: the stable-storage level restarts"
                    .into(),
            )),
            Err(EncodingError::IllConditioned { why, .. }) => Ok(lost_outcome(
                failed,
                format!(
                    "survivable in exact arithmetic (as `ckpt survive` counts it), lost in double precision: {why}; the stable-storage level restarts"
                ),
            )),
            Err(e) => Err(e),
        }
    })
}

/// The outcome of a failure set that cannot be rebuilt: nothing rebuilt, no figures, `note`
/// saying why.
fn lost_outcome(failed: Vec<usize>, note: String) -> EncodeOutcome {
    EncodeOutcome {
        failed,
        recovery: None,
        accuracy: None,
        note: Some(note),
    }
}

/// `k` distinct processors among `total`, uniformly, from the seed's failure stream. More
/// than [`MAX_PROCS`] processors are refused naming `--procs` (the draw holds every index),
/// and `k` above `total` naming `--fail`.
pub fn draw_failures(seed: u64, total: usize, k: usize) -> Result<Vec<usize>, EncodingError> {
    if total > MAX_PROCS {
        return Err(EncodingError::Invalid {
            arg: "--procs",
            value: total.to_string(),
            accepted: format!("at most {MAX_PROCS} processors in all to draw failures from"),
        });
    }
    if k > total {
        return Err(EncodingError::Invalid {
            arg: "--fail",
            value: k.to_string(),
            accepted: format!("at most the {total} processors"),
        });
    }
    let mut rng = run_rng(seed, FAIL_STREAM);
    let mut all: Vec<usize> = (0..total).collect();
    for i in 0..k {
        let j = rng.random_range(i..total);
        all.swap(i, j);
    }
    let mut f = all[..k].to_vec();
    f.sort_unstable();
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Before: 5 failures among 3 processors panicked ("cannot sample empty range"),
    /// usize::MAX processors overflowed the capacity and 2^40 aborted allocating 8.8 TB.
    #[test]
    fn impossible_draws_are_refused() {
        assert!(matches!(
            draw_failures(0, 3, 5),
            Err(EncodingError::Invalid { arg: "--fail", .. })
        ));
        for total in [usize::MAX, 1 << 40] {
            assert!(matches!(
                draw_failures(0, total, 1),
                Err(EncodingError::Invalid { arg: "--procs", .. })
            ));
        }
        let f = draw_failures(7, 10, 10).unwrap();
        assert_eq!(f, (0..10).collect::<Vec<_>>());
        assert_eq!(draw_failures(7, 10, 0).unwrap(), Vec::<usize>::new());
    }
}

//! The encode experiment: encode random checkpoints with a scheme, erase a set of processors,
//! rebuild them and measure what came back (`ckpt encode`).

use super::EncodingError;
use super::codec::{Codec, bit_exact, erase, relative_error};
use super::matrix::MATRIX_STREAM;
use crate::progress::{Progress, within};
use crate::rng::{run_rng, standard_normal};
use rand::RngExt;
use serde::Serialize;

/// Stream of the seed the checkpoint data of `ckpt encode` are drawn from.
pub const DATA_STREAM: u64 = MATRIX_STREAM + 1;
/// Stream the failed set of `ckpt encode --fail K` is drawn from.
pub const FAIL_STREAM: u64 = MATRIX_STREAM + 2;

/// The result of one encode/fail/recover experiment.
#[derive(Debug, Clone, Serialize)]
pub struct EncodeOutcome {
    /// Failed processors (computation and extra), sorted.
    pub failed: Vec<usize>,
    /// Whether the scheme rebuilt them.
    pub recoverable: bool,
    /// Computation processors rebuilt.
    pub rebuilt: Vec<usize>,
    /// Processors whose redundancy was re-encoded.
    pub reencoded: Vec<usize>,
    /// The systems solved, one per group with lost data.
    pub solves: Vec<super::codec::GroupSolve>,
    /// Largest condition number of the recovery systems.
    pub condition_number: Option<f64>,
    /// Largest effective condition number (`||A[S,:]|| / sigma_min(A[S,F])`).
    pub effective_condition_number: Option<f64>,
    /// Relative Frobenius error of the rebuilt checkpoints.
    pub relative_error: Option<f64>,
    /// Largest absolute error of a rebuilt value.
    pub max_abs_error: Option<f64>,
    /// Rebuilt bit for bit.
    pub bit_exact: Option<bool>,
    /// What a null means.
    #[serde(skip_serializing_if = "Option::is_none")]
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
                let lost: Vec<usize> = report.rebuilt.clone();
                let note = if lost.is_empty() {
                    Some(
                        "no computation processor failed: only redundancy was re-encoded"
                            .to_string(),
                    )
                } else if report.solves.is_empty() {
                    Some("copies, no system solved: condition number not applicable".to_string())
                } else {
                    None
                };
                let max_abs = (!lost.is_empty()).then(|| {
                    lost.iter()
                        .flat_map(|&p| orig[p].iter().zip(&locals[p]).map(|(a, b)| (a - b).abs()))
                        .fold(0.0, f64::max)
                });
                Ok(EncodeOutcome {
                    failed,
                    recoverable: true,
                    condition_number: report.max_condition_number(),
                    effective_condition_number: report.max_effective_condition_number(),
                    relative_error: if lost.is_empty() {
                        None
                    } else {
                        relative_error(&orig, &locals, &lost)
                    },
                    max_abs_error: max_abs.filter(|v| v.is_finite()),
                    bit_exact: (!lost.is_empty()).then(|| bit_exact(&orig, &locals, &lost)),
                    rebuilt: report.rebuilt,
                    reencoded: report.reencoded,
                    solves: report.solves,
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
        recoverable: false,
        rebuilt: vec![],
        reencoded: vec![],
        solves: vec![],
        condition_number: None,
        effective_condition_number: None,
        relative_error: None,
        max_abs_error: None,
        bit_exact: None,
        note: Some(note),
    }
}

/// `k` distinct processors among `total`, uniformly, from the seed's failure stream.
pub fn draw_failures(seed: u64, total: usize, k: usize) -> Vec<usize> {
    let mut rng = run_rng(seed, FAIL_STREAM);
    let mut all: Vec<usize> = (0..total).collect();
    for i in 0..k {
        let j = rng.random_range(i..total);
        all.swap(i, j);
    }
    let mut f = all[..k].to_vec();
    f.sort_unstable();
    f
}

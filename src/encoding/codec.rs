//! Encoding and recovery on real f64 data (docs/encodings.md §3).
//!
//! A checkpoint lives in two places: `locals[i]`, computation processor i's own checkpoint,
//! and `held[q]`, whatever redundancy processor q holds for others (a copy for the neighbour
//! schemes, a checksum row for the checksum schemes, empty otherwise). A failure erases both
//! for every failed processor; [`Codec::recover`] rebuilds them reading survivors only.

use super::EncodingError;
use super::matrix::{
    MatrixKind, checkpoint_matrix, condition_number, extreme_singular_values, largest_column_norm,
    spectral_norm, submatrix,
};
use super::scheme::{SchemeKind, SchemeSpec};
use nalgebra::DMatrix;
use serde::Serialize;

/// Elements per block in encode and recovery: the block of every checksum row plus one input
/// block stays in cache while each processor's data streams through once.
const BLOCK: usize = 2048;

/// A scheme with its checkpoint matrix, ready to encode and recover.
#[derive(Debug, Clone)]
pub struct Codec {
    spec: SchemeSpec,
    matrix_kind: Option<MatrixKind>,
    /// `checksums x group_size`, shared by every group (checksum schemes only).
    matrix: Option<DMatrix<f64>>,
}

/// The least-squares system solved for one group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupSolve {
    /// Group index.
    pub group: usize,
    /// Failed computation processors of the group (global indices).
    pub failed: Vec<usize>,
    /// Surviving checksum rows used (`|S|`).
    pub rows: usize,
    /// 2-norm condition number of `A[S, F]`.
    pub condition_number: f64,
    /// `||A[S, :]||_2 / sigma_min(A[S, F])`: the condition number scaled by how much larger
    /// the whole surviving row block is than the lost columns. The relative error of the
    /// rebuilt data is a small multiple of machine epsilon times this (a lone lost column
    /// with small weights has condition number 1 yet amplifies the round-off of the sums).
    pub effective_condition_number: f64,
}

/// What a recovery did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecoveryReport {
    /// Computation processors whose checkpoints were rebuilt.
    pub rebuilt: Vec<usize>,
    /// Processors whose held redundancy was re-encoded.
    pub reencoded: Vec<usize>,
    /// One entry per group that solved a system (checksum schemes only).
    pub solves: Vec<GroupSolve>,
}

impl RecoveryReport {
    /// The largest condition number over the solved systems, `None` when nothing was solved.
    pub fn max_condition_number(&self) -> Option<f64> {
        self.solves
            .iter()
            .map(|s| s.condition_number)
            .reduce(f64::max)
    }

    /// The largest effective condition number over the solved systems.
    pub fn max_effective_condition_number(&self) -> Option<f64> {
        self.solves
            .iter()
            .map(|s| s.effective_condition_number)
            .reduce(f64::max)
    }
}

/// How well a recovery rebuilt the lost computation checkpoints: the rebuilt data against
/// the originals, and the conditioning of the systems solved for them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Accuracy {
    /// Relative Frobenius error of the rebuilt checkpoints ([`relative_error`]).
    pub relative_error: Option<f64>,
    /// Largest absolute error of a rebuilt value (`None` where it is not finite).
    pub max_abs_error: Option<f64>,
    /// Whether every rebuilt value equals its original bit for bit.
    pub bit_exact: bool,
    /// Largest condition number of the systems solved; `None` for copies (nothing solved).
    pub condition_number: Option<f64>,
    /// Largest effective condition number of the systems solved (see [`GroupSolve`]).
    pub effective_condition_number: Option<f64>,
}

impl Accuracy {
    /// The accuracy of the recovery `report` that turned the erased checkpoints back into
    /// `rebuilt`, against `original`; `None` when it rebuilt no computation processor, or
    /// names one that `original` or `rebuilt` does not have.
    pub fn measure(
        original: &[Vec<f64>],
        rebuilt: &[Vec<f64>],
        report: &RecoveryReport,
    ) -> Option<Accuracy> {
        let lost = &report.rebuilt;
        if lost.is_empty() || !covers(original, rebuilt, lost) {
            return None;
        }
        let max_abs = lost
            .iter()
            .flat_map(|&p| {
                original[p]
                    .iter()
                    .zip(&rebuilt[p])
                    .map(|(a, b)| (a - b).abs())
            })
            .fold(0.0, f64::max);
        Some(Accuracy {
            relative_error: relative_error(original, rebuilt, lost),
            max_abs_error: max_abs.is_finite().then_some(max_abs),
            bit_exact: bit_exact(original, rebuilt, lost),
            condition_number: report.max_condition_number(),
            effective_condition_number: report.max_effective_condition_number(),
        })
    }
}

/// The most steps one recovery may take, `m^2 n` for `m` checksums per group and `n`
/// computation processors (the singular values of each group's `m x n/g` block, at about
/// 4 ns a step here: some five seconds). A scheme beyond it is refused when its codec is
/// built, before the matrix is allocated.
pub const MAX_RECOVERY_WORK: f64 = 1_073_741_824.0;

/// Refuses a checksum scheme whose recovery would exceed [`MAX_RECOVERY_WORK`] (what
/// [`Codec::new`] checks before building the matrix), naming `--checksums`, or `--procs` for
/// the single-checksum schemes. Neighbour schemes solve nothing and always pass.
pub fn check_recovery_work(spec: &SchemeSpec) -> Result<(), EncodingError> {
    let (m, n) = (spec.checksums as f64, spec.procs as f64);
    let work = m * m * n;
    if !spec.kind.is_neighbour() && work > MAX_RECOVERY_WORK {
        let (arg, value, most) = if spec.kind.is_weighted() {
            let most = (MAX_RECOVERY_WORK / n).sqrt().floor();
            (
                "--checksums",
                spec.checksums,
                format!("at most {most} checksums"),
            )
        } else {
            (
                "--procs",
                spec.procs,
                format!("at most {MAX_RECOVERY_WORK} processors"),
            )
        };
        return Err(EncodingError::Invalid {
            arg,
            value: value.to_string(),
            accepted: format!(
                "for {} with {} computation processors, {most}: a recovery takes checksums^2 x processors steps, limited to {MAX_RECOVERY_WORK:.2e} (this is {work:.2e})",
                spec.kind, spec.procs
            ),
        });
    }
    Ok(())
}

impl Codec {
    /// A codec for `spec`; `matrix` is used by the weighted schemes (the plain checksums use
    /// all ones, the neighbour schemes none), `seed` draws the Gaussian matrix. A checksum
    /// scheme whose recovery would exceed [`MAX_RECOVERY_WORK`] is refused, naming
    /// `--checksums` (or `--procs` for the single-checksum schemes).
    ///
    /// ```
    /// use ckpt::encoding::{Codec, MatrixKind, SchemeKind, SchemeSpec};
    /// let small = SchemeSpec::new(SchemeKind::Weighted, 16, None, Some(4)).unwrap();
    /// assert!(Codec::new(small, MatrixKind::Gaussian, 1).is_ok());
    /// let huge = SchemeSpec::new(SchemeKind::Weighted, 1 << 20, None, Some(1 << 20)).unwrap();
    /// assert!(Codec::new(huge, MatrixKind::Gaussian, 1).is_err());
    /// ```
    pub fn new(spec: SchemeSpec, matrix: MatrixKind, seed: u64) -> Result<Codec, EncodingError> {
        let kind = match spec.kind {
            k if k.is_neighbour() => None,
            SchemeKind::Checksum | SchemeKind::Checksum1d => Some(MatrixKind::Ones),
            _ => Some(matrix),
        };
        check_recovery_work(&spec)?;
        let matrix = kind
            .map(|k| checkpoint_matrix(k, spec.checksums, spec.group_size(), seed))
            .transpose()?;
        Ok(Codec {
            spec,
            matrix_kind: kind,
            matrix,
        })
    }

    /// The scheme.
    pub fn spec(&self) -> &SchemeSpec {
        &self.spec
    }

    /// The checkpoint matrix of one group, if the scheme has one.
    pub fn matrix(&self) -> Option<&DMatrix<f64>> {
        self.matrix.as_ref()
    }

    /// Which matrix kind is in use, if any.
    pub fn matrix_kind(&self) -> Option<MatrixKind> {
        self.matrix_kind
    }

    fn check_locals(&self, locals: &[Vec<f64>]) -> Result<usize, EncodingError> {
        if locals.len() != self.spec.procs {
            return Err(EncodingError::Shape(format!(
                "{} checkpoints for {} computation processors",
                locals.len(),
                self.spec.procs
            )));
        }
        let len = locals.first().map_or(0, Vec::len);
        if locals.iter().any(|l| l.len() != len) {
            return Err(EncodingError::Shape(
                "checkpoints of different lengths".to_string(),
            ));
        }
        Ok(len)
    }

    /// Encodes the local checkpoints: returns `held`, one vector per processor
    /// (`total_procs()` of them).
    pub fn encode(&self, locals: &[Vec<f64>]) -> Result<Vec<Vec<f64>>, EncodingError> {
        let len = self.check_locals(locals)?;
        // A NaN or infinite value would spread through every checksum of its group, and the
        // rebuilt data with it: refused rather than encoded.
        if let Some((p, _)) = locals
            .iter()
            .enumerate()
            .find(|(_, l)| l.iter().any(|v| !v.is_finite()))
        {
            return Err(EncodingError::Shape(format!(
                "the checkpoint of processor {p} holds a value that is not finite"
            )));
        }
        let n = self.spec.procs;
        let mut held = vec![Vec::new(); self.spec.total_procs()];
        match self.spec.kind {
            SchemeKind::Mirror => {
                held[n..].clone_from_slice(locals);
            }
            SchemeKind::Ring => {
                for i in 0..n {
                    held[i] = locals[(i + n - 1) % n].clone();
                }
            }
            SchemeKind::Pair => {
                for i in 0..n {
                    held[i] = locals[i ^ 1].clone();
                }
            }
            _ => {
                for g in 0..self.spec.groups {
                    let rows: Vec<usize> = (0..self.spec.checksums).collect();
                    let sums = self.weighted_sums(locals, g, &rows, &[], len);
                    let a = self
                        .matrix
                        .as_ref()
                        .expect("checksum schemes have a matrix");
                    for (r, c) in rows.into_iter().zip(sums) {
                        // Finite values can still sum past f64::MAX (two of 1e308). A row
                        // whose weights themselves overflow (Vandermonde, many checksums) is
                        // left to recovery, which names the matrix as the cause.
                        let weights_finite = a.row(r).iter().all(|w| w.is_finite());
                        if weights_finite && c.iter().any(|v| !v.is_finite()) {
                            return Err(EncodingError::Shape(format!(
                                "checksum {r} of group {g} overflows double precision"
                            )));
                        }
                        held[self.spec.checksum_proc(g, r)] = c;
                    }
                }
            }
        }
        Ok(held)
    }

    /// `sum_{j in group, j not in skip} a_rj P_j` for each row r of `rows`, streamed in
    /// blocks so each checkpoint is read once. `skip` is sorted.
    fn weighted_sums(
        &self,
        locals: &[Vec<f64>],
        group: usize,
        rows: &[usize],
        skip: &[usize],
        len: usize,
    ) -> Vec<Vec<f64>> {
        let a = self
            .matrix
            .as_ref()
            .expect("checksum schemes have a matrix");
        let size = self.spec.group_size();
        let first = group * size;
        // A search, not a scan: a group may lose many processors, and a scan per member made
        // recovery quadratic in them.
        let members: Vec<usize> = (0..size)
            .filter(|j| skip.binary_search(&(first + j)).is_err())
            .collect();
        let mut out = vec![vec![0.0; len]; rows.len()];
        let coef: Vec<Vec<f64>> = rows
            .iter()
            .map(|&r| members.iter().map(|&j| a[(r, j)]).collect())
            .collect();
        let mut start = 0;
        while start < len {
            let end = (start + BLOCK).min(len);
            // Four processors per pass: one load and one store of each output value feed four
            // products (measured about 1.7x the one-at-a-time loop on this machine).
            let mut t = 0;
            for chunk in members.chunks(4) {
                if let [a, b, c, d] = *chunk {
                    let xa = &locals[first + a][start..end];
                    let xb = &locals[first + b][start..end];
                    let xc = &locals[first + c][start..end];
                    let xd = &locals[first + d][start..end];
                    for (o, w) in out.iter_mut().zip(&coef) {
                        let (wa, wb, wc, wd) = (w[t], w[t + 1], w[t + 2], w[t + 3]);
                        let inputs = xa.iter().zip(xb).zip(xc.iter().zip(xd));
                        for (y, ((&pa, &pb), (&pc, &pd))) in o[start..end].iter_mut().zip(inputs) {
                            *y += (wa * pa + wb * pb) + (wc * pc + wd * pd);
                        }
                    }
                } else {
                    for (u, &j) in chunk.iter().enumerate() {
                        let p = &locals[first + j][start..end];
                        for (o, w) in out.iter_mut().zip(&coef) {
                            let wj = w[t + u];
                            for (y, x) in o[start..end].iter_mut().zip(p) {
                                *y += wj * x;
                            }
                        }
                    }
                }
                t += chunk.len();
            }
            start = end;
        }
        out
    }

    /// Rebuilds the checkpoints of the failed processors (indices in `0..total_procs()`).
    ///
    /// Only survivors' `locals` and `held` are read, so erased (NaN) data of the failed
    /// processors cannot leak into the result. Fails with [`EncodingError::Unrecoverable`]
    /// when the scheme does not survive the set (or a system is exactly singular).
    pub fn recover(
        &self,
        locals: &mut [Vec<f64>],
        held: &mut [Vec<f64>],
        failed: &[usize],
    ) -> Result<RecoveryReport, EncodingError> {
        let total = self.spec.total_procs();
        let mut failed: Vec<usize> = failed.to_vec();
        failed.sort_unstable();
        failed.dedup();
        if let Some(&bad) = failed.iter().find(|&&f| f >= total) {
            return Err(EncodingError::Invalid {
                arg: "--fail-set",
                value: bad.to_string(),
                accepted: format!("processor indices below {total}"),
            });
        }
        if held.len() != total {
            return Err(EncodingError::Shape(format!(
                "{} held vectors for {total} processors",
                held.len()
            )));
        }
        let unrecoverable = || EncodingError::Unrecoverable {
            scheme: self.spec.kind.to_string(),
            failed: failed.clone(),
        };
        if !self.spec.survives(&failed) {
            return Err(unrecoverable());
        }
        let ill = |why: String| EncodingError::IllConditioned {
            failed: failed.clone(),
            why,
        };
        let n = self.spec.procs;
        // `failed` is sorted: membership is a binary search. A scan of it per processor or
        // per group made recovery quadratic (131072 failures of 524288 processors: 67 s).
        let is_down = |p: usize| failed.binary_search(&p).is_ok();
        let len = locals
            .iter()
            .enumerate()
            .find(|(i, _)| !is_down(*i))
            .map(|(_, l)| l.len());
        let len = len
            .or_else(|| held.iter().find(|h| !h.is_empty()).map(Vec::len))
            .unwrap_or(0);
        // The count first: the resize below indexes `locals` by failed processor.
        if locals.len() != n {
            return Err(EncodingError::Shape(format!(
                "{} checkpoints for {n} computation processors",
                locals.len()
            )));
        }
        for &f in failed.iter().filter(|&&f| f < n) {
            locals[f].resize(len, f64::NAN);
        }
        self.check_locals(locals)?;
        // What each survivor holds is read as a whole checkpoint (copied, or subtracted from
        // a checksum): one of another length panicked in the copy, or silently rebuilt from
        // part of it.
        for (q, h) in held.iter().enumerate() {
            // Ring and pair processors each hold a neighbour's copy; otherwise only the
            // processors past the computation ones hold data.
            let holds = matches!(self.spec.kind, SchemeKind::Ring | SchemeKind::Pair) || q >= n;
            let expected = if holds { len } else { 0 };
            if !is_down(q) && h.len() != expected {
                return Err(EncodingError::Shape(format!(
                    "processor {q} holds {} values where {expected} were encoded",
                    h.len()
                )));
            }
        }
        let rebuilt: Vec<usize> = failed.iter().cloned().filter(|&f| f < n).collect();
        let mut solves = Vec::new();
        match self.spec.kind {
            SchemeKind::Mirror => {
                for &i in &rebuilt {
                    locals[i].copy_from_slice(&held[n + i]);
                }
            }
            SchemeKind::Ring => {
                for &i in &rebuilt {
                    locals[i].copy_from_slice(&held[(i + 1) % n]);
                }
            }
            SchemeKind::Pair => {
                for &i in &rebuilt {
                    locals[i].copy_from_slice(&held[i ^ 1]);
                }
            }
            _ => {
                let a = self
                    .matrix
                    .as_ref()
                    .expect("checksum schemes have a matrix");
                let size = self.spec.group_size();
                // `rebuilt` is sorted, so each group's lost processors are one run of it.
                for lost in rebuilt.chunk_by(|a, b| a / size == b / size) {
                    let lost = lost.to_vec();
                    let g = lost[0] / size;
                    let rows: Vec<usize> = (0..self.spec.checksums)
                        .filter(|&r| !is_down(self.spec.checksum_proc(g, r)))
                        .collect();
                    let cols: Vec<usize> = lost.iter().map(|f| f - g * size).collect();
                    let sub = submatrix(a, &rows, &cols)?;
                    let all: Vec<usize> = (0..size).collect();
                    let whole = submatrix(a, &rows, &all)?;
                    // The SVD does not terminate on infinite entries (a Vandermonde matrix
                    // with many checksums overflows): say so instead.
                    if whole.iter().any(|v| !v.is_finite()) {
                        return Err(ill(format!(
                            "entries of the {} matrix overflow double precision at {} checksums",
                            self.matrix_kind().map_or("checkpoint", MatrixKind::name),
                            self.spec.checksums
                        )));
                    }
                    // Numerically singular although the scheme survives the set in exact
                    // arithmetic (the rank test above): a floating-point loss, not the scheme's.
                    let cond = condition_number(&sub).ok_or_else(|| {
                        ill("the recovery system is numerically singular".to_string())
                    })?;
                    let low = extreme_singular_values(&sub).map_or(0.0, |(_, lo)| lo);
                    // Entries of very different magnitudes (the rows of a Vandermonde matrix
                    // of many checksums) defeat the SVD of the whole block; its largest
                    // column then bounds the effective condition number from below.
                    let (block, exact) = match spectral_norm(&whole) {
                        Some(norm) => (norm, true),
                        None => (largest_column_norm(&whole), false),
                    };
                    let effective = block / low;
                    // The rebuilt values' relative error is of order eps times this number
                    // (docs/encodings.md): from 1/eps on, not one digit is left.
                    let lost_digits = !effective.is_finite() || effective * f64::EPSILON >= 1.0;
                    if lost_digits {
                        let inv_eps = 1.0 / f64::EPSILON;
                        return Err(ill(match (effective.is_finite(), exact) {
                            (true, true) => format!(
                                "effective condition number {effective:.3e}, at least 1/eps ({inv_eps:.3e})"
                            ),
                            (true, false) => format!(
                                "effective condition number at least {effective:.3e}, beyond 1/eps ({inv_eps:.3e})"
                            ),
                            (false, _) => format!(
                                "effective condition number beyond {:.3e}, beyond 1/eps ({inv_eps:.3e})",
                                f64::MAX
                            ),
                        }));
                    }
                    if !exact {
                        return Err(ill(format!(
                            "the singular values of the {} matrix at {} checksums are beyond double precision",
                            self.matrix_kind().map_or("checkpoint", MatrixKind::name),
                            self.spec.checksums
                        )));
                    }
                    // Householder QR: A[S,F] = Q R, X = R^-1 Q^T (rhs). (nalgebra's SVD
                    // vectors were seen to lose five digits on a 3x3 Gaussian block, so the
                    // SVD only gives the condition number.)
                    let qr = sub.clone().qr();
                    let pinv = qr
                        .r()
                        .solve_upper_triangular(&qr.q().transpose())
                        .ok_or_else(unrecoverable)?;
                    // Right-hand side C_S - A[S, not F] P[not F], then X = A[S,F]^+ (rhs).
                    let mut rhs = self.weighted_sums(locals, g, &rows, &lost, len);
                    for (o, &r) in rhs.iter_mut().zip(&rows) {
                        let c = &held[self.spec.checksum_proc(g, r)];
                        for (y, x) in o.iter_mut().zip(c) {
                            *y = x - *y;
                        }
                    }
                    for (t, &f) in lost.iter().enumerate() {
                        let w: Vec<f64> = (0..rows.len()).map(|s| pinv[(t, s)]).collect();
                        let dst = &mut locals[f];
                        dst.fill(0.0);
                        for (wk, r) in w.iter().zip(&rhs) {
                            for (y, x) in dst.iter_mut().zip(r) {
                                *y += wk * x;
                            }
                        }
                    }
                    solves.push(GroupSolve {
                        group: g,
                        failed: lost,
                        rows: rows.len(),
                        condition_number: cond,
                        effective_condition_number: effective,
                    });
                }
            }
        }
        // Re-encode what the failed processors held, from the now complete checkpoints.
        let mut reencoded = Vec::new();
        for &q in &failed {
            let new = match self.spec.kind {
                SchemeKind::Mirror if q >= n => Some(locals[q - n].clone()),
                SchemeKind::Ring => Some(locals[(q + n - 1) % n].clone()),
                SchemeKind::Pair => Some(locals[q ^ 1].clone()),
                k if !k.is_neighbour() && q >= n => {
                    let g = self.spec.group_of(q);
                    let r = q - self.spec.checksum_proc(g, 0);
                    Some(self.weighted_sums(locals, g, &[r], &[], len).remove(0))
                }
                _ => None,
            };
            if let Some(v) = new {
                held[q] = v;
                reencoded.push(q);
            }
        }
        Ok(RecoveryReport {
            rebuilt,
            reencoded,
            solves,
        })
    }
}

/// Sets every vector of the failed processors to NaN: what a failure leaves behind.
pub fn erase(locals: &mut [Vec<f64>], held: &mut [Vec<f64>], failed: &[usize]) {
    for &f in failed {
        if let Some(l) = locals.get_mut(f) {
            l.fill(f64::NAN);
        }
        if let Some(h) = held.get_mut(f) {
            h.fill(f64::NAN);
        }
    }
}

/// Whether every processor of `procs` has a checkpoint in both `original` and `rebuilt`, of
/// the same length.
fn covers(original: &[Vec<f64>], rebuilt: &[Vec<f64>], procs: &[usize]) -> bool {
    procs.iter().all(
        |&p| matches!((original.get(p), rebuilt.get(p)), (Some(a), Some(b)) if a.len() == b.len()),
    )
}

/// Relative Frobenius error of the rebuilt checkpoints of `procs` against the originals;
/// `None` when the originals are all zero and the rebuilt ones are not, or when a processor
/// of `procs` is missing from either, or its two checkpoints differ in length.
pub fn relative_error(original: &[Vec<f64>], rebuilt: &[Vec<f64>], procs: &[usize]) -> Option<f64> {
    if !covers(original, rebuilt, procs) {
        return None;
    }
    let (mut err, mut norm) = (0.0f64, 0.0f64);
    for &p in procs {
        for (a, b) in original[p].iter().zip(&rebuilt[p]) {
            err += (a - b) * (a - b);
            norm += a * a;
        }
    }
    if !err.is_finite() {
        return None;
    }
    if norm == 0.0 {
        return (err == 0.0).then_some(0.0);
    }
    Some((err / norm).sqrt())
}

/// Whether the rebuilt checkpoints of `procs` equal the originals bit for bit (false when a
/// processor of `procs` is missing from either).
pub fn bit_exact(original: &[Vec<f64>], rebuilt: &[Vec<f64>], procs: &[usize]) -> bool {
    // `covers` has checked the lengths.
    covers(original, rebuilt, procs)
        && procs.iter().all(|&p| {
            original[p]
                .iter()
                .zip(&rebuilt[p])
                .all(|(a, b)| a.to_bits() == b.to_bits())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::run_rng;
    use crate::rng::standard_normal;

    fn data(n: usize, len: usize, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = run_rng(seed, 1);
        (0..n)
            .map(|_| (0..len).map(|_| standard_normal(&mut rng)).collect())
            .collect()
    }

    struct Trip {
        result: Result<RecoveryReport, EncodingError>,
        orig: Vec<Vec<f64>>,
        locals: Vec<Vec<f64>>,
        held0: Vec<Vec<f64>>,
        held: Vec<Vec<f64>>,
    }

    fn roundtrip(spec: SchemeSpec, failed: &[usize]) -> Trip {
        let codec = Codec::new(spec, MatrixKind::Gaussian, 3).unwrap();
        let orig = data(spec.procs, 37, 5);
        let held0 = codec.encode(&orig).unwrap();
        let mut locals = orig.clone();
        let mut held = held0.clone();
        erase(&mut locals, &mut held, failed);
        let result = codec.recover(&mut locals, &mut held, failed);
        Trip {
            result,
            orig,
            locals,
            held0,
            held,
        }
    }

    #[test]
    fn neighbours_rebuild_bit_for_bit() {
        for (kind, failed) in [
            (SchemeKind::Mirror, vec![0, 3, 9, 14]),
            (SchemeKind::Ring, vec![0, 2, 5]),
            (SchemeKind::Pair, vec![1, 2, 7]),
        ] {
            let spec = SchemeSpec::new(kind, 8, None, None).unwrap();
            let t = roundtrip(spec, &failed);
            t.result.unwrap();
            assert!(
                bit_exact(&t.orig, &t.locals, &(0..8).collect::<Vec<_>>()),
                "{kind}"
            );
            assert!(
                t.held0
                    .iter()
                    .zip(&t.held)
                    .all(|(a, b)| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()))
            );
        }
    }

    #[test]
    fn checksum_rebuilds_and_reencodes() {
        let spec = SchemeSpec::new(SchemeKind::Checksum1d, 9, Some(3), None).unwrap();
        let t = roundtrip(spec, &[1, 4, 11]);
        let r = t.result.unwrap();
        assert_eq!(r.rebuilt, vec![1, 4]);
        assert_eq!(r.reencoded, vec![11]);
        assert!(relative_error(&t.orig, &t.locals, &[1, 4]).unwrap() < 1e-14);
        assert_eq!(r.max_condition_number(), Some(1.0));
        for (a, b) in t.held0[11].iter().zip(&t.held[11]) {
            assert!((a - b).abs() < 1e-13);
        }
    }

    /// Recovery of many failures at once, exact. Before, it scanned the failed list once per
    /// group and per checksum row: this case took some 17 s (the audit's 262144 failures,
    /// 277 s); now each membership test is a search of the sorted list. The time itself is a
    /// benchmark's to measure, not this test's.
    #[test]
    fn many_failures_recover_exactly() {
        let n = 1 << 17;
        let spec = SchemeSpec::new(SchemeKind::Checksum1d, n, Some(n / 2), None).unwrap();
        let codec = Codec::new(spec, MatrixKind::Gaussian, 1).unwrap();
        // Processor i holds i + 1: a group {2j, 2j+1} sums to 4j + 3, so the lost 2j is
        // 4j + 3 - (2j + 2) = 2j + 1, exactly.
        let orig: Vec<Vec<f64>> = (0..n).map(|i| vec![i as f64 + 1.0]).collect();
        let mut held = codec.encode(&orig).unwrap();
        let mut locals = orig.clone();
        let failed: Vec<usize> = (0..n).step_by(2).collect();
        erase(&mut locals, &mut held, &failed);
        let r = codec.recover(&mut locals, &mut held, &failed).unwrap();
        assert_eq!(r.rebuilt.len(), n / 2);
        assert!(bit_exact(&orig, &locals, &failed));
    }

    /// Before: `locals` shorter than the processors panicked (index out of bounds), `held`
    /// vectors of the wrong length panicked in the copies of mirror, ring and pair and were
    /// silently half-used by the checksum schemes; measure, relative_error and bit_exact
    /// indexed processors that the slices did not have.
    #[test]
    fn misshapen_inputs_are_refused_not_panicked_on() {
        for (kind, g, m) in [
            (SchemeKind::Mirror, None, None),
            (SchemeKind::Ring, None, None),
            (SchemeKind::Pair, None, None),
            (SchemeKind::Checksum1d, Some(2), None),
            (SchemeKind::Weighted, None, Some(2)),
        ] {
            let spec = SchemeSpec::new(kind, 4, g, m).unwrap();
            let codec = Codec::new(spec, MatrixKind::Gaussian, 3).unwrap();
            let orig = data(4, 5, 1);
            let held = codec.encode(&orig).unwrap();
            let mut short = orig[..2].to_vec();
            let mut h = held.clone();
            assert!(codec.recover(&mut short, &mut h, &[3]).is_err(), "{kind}");
            // Processor 0 is lost; every holder of data keeps 3 of its 5 values.
            let mut l = orig.clone();
            let mut cut = held.clone();
            for v in cut.iter_mut().filter(|v| !v.is_empty()) {
                v.truncate(3);
            }
            erase(&mut l, &mut cut, &[0]);
            assert!(
                matches!(
                    codec.recover(&mut l, &mut cut, &[0]),
                    Err(EncodingError::Shape(_))
                ),
                "{kind}"
            );
        }
        let report = RecoveryReport {
            rebuilt: vec![0],
            reencoded: vec![],
            solves: vec![],
        };
        assert_eq!(Accuracy::measure(&[], &[], &report), None);
        assert_eq!(relative_error(&[], &[], &[0]), None);
        assert!(!bit_exact(&[vec![1.0]], &[], &[0]));
    }

    /// Before: two checkpoints of 1e308 encoded to an infinite checksum returned as Ok, and
    /// a NaN value passed into every checksum of its group.
    #[test]
    fn non_finite_checksums_are_refused() {
        let spec = SchemeSpec::new(SchemeKind::Checksum, 2, None, None).unwrap();
        let codec = Codec::new(spec, MatrixKind::Gaussian, 1).unwrap();
        assert!(codec.encode(&[vec![1e308], vec![1e308]]).is_err());
        assert!(codec.encode(&[vec![f64::NAN], vec![1.0]]).is_err());
        let mirror = SchemeSpec::new(SchemeKind::Mirror, 2, None, None).unwrap();
        let copies = Codec::new(mirror, MatrixKind::Gaussian, 1).unwrap();
        assert!(copies.encode(&[vec![f64::INFINITY], vec![1.0]]).is_err());
        // 1e308 + (-1e308) is 0: large but finite sums are kept.
        assert_eq!(
            codec.encode(&[vec![1e308], vec![-1e308]]).unwrap()[2],
            vec![0.0]
        );
    }

    #[test]
    fn unrecoverable_sets_are_refused() {
        let spec = SchemeSpec::new(SchemeKind::Weighted, 6, None, Some(2)).unwrap();
        let r = roundtrip(spec, &[0, 1, 6]).result;
        assert!(matches!(r, Err(EncodingError::Unrecoverable { .. })));
        let spec = SchemeSpec::new(SchemeKind::Ring, 6, None, None).unwrap();
        let r = roundtrip(spec, &[5, 0]).result;
        assert!(matches!(r, Err(EncodingError::Unrecoverable { .. })));
    }

    #[test]
    fn codec_agrees_with_the_survival_rule() {
        // Every subset of a small weighted-1d layout: recoverable exactly when it survives,
        // and then the rebuilt data are close.
        let spec = SchemeSpec::new(SchemeKind::Weighted1d, 6, Some(2), Some(2)).unwrap();
        let total = spec.total_procs();
        let codec = Codec::new(spec, MatrixKind::Gaussian, 11).unwrap();
        let orig = data(6, 16, 2);
        let held0 = codec.encode(&orig).unwrap();
        for mask in 0u32..(1 << total) {
            let failed: Vec<usize> = (0..total).filter(|b| mask >> b & 1 == 1).collect();
            let (mut l, mut h) = (orig.clone(), held0.clone());
            erase(&mut l, &mut h, &failed);
            let r = codec.recover(&mut l, &mut h, &failed);
            assert_eq!(r.is_ok(), spec.survives(&failed), "{failed:?}");
            if r.is_ok() {
                assert!(relative_error(&orig, &l, &(0..6).collect::<Vec<_>>()).unwrap() < 1e-12);
                assert!(h.iter().all(|v| v.iter().all(|x| x.is_finite())));
            }
        }
    }

    #[test]
    fn accuracy_compares_the_rebuilt_processors_only() {
        let original = vec![vec![3.0, 4.0], vec![1.0, 1.0], vec![0.0, 12.0]];
        // Processor 1 is not in the report, so its difference must not count.
        let rebuilt = vec![vec![3.0, 4.001], vec![9.0, 9.0], vec![0.0, 12.0]];
        let solve = |c, e| GroupSolve {
            group: 0,
            failed: vec![0],
            rows: 1,
            condition_number: c,
            effective_condition_number: e,
        };
        let report = RecoveryReport {
            rebuilt: vec![0, 2],
            reencoded: vec![],
            solves: vec![solve(10.0, 40.0), solve(20.0, 30.0)],
        };
        let a = Accuracy::measure(&original, &rebuilt, &report).unwrap();
        // Frobenius: 0.001 over sqrt(9 + 16 + 144) = 13.
        assert!((a.relative_error.unwrap() - 0.001 / 13.0).abs() < 1e-15);
        assert!((a.max_abs_error.unwrap() - 0.001).abs() < 1e-15);
        assert!(!a.bit_exact);
        assert_eq!(a.condition_number, Some(20.0));
        assert_eq!(a.effective_condition_number, Some(40.0));

        let copies = RecoveryReport {
            rebuilt: vec![2],
            reencoded: vec![],
            solves: vec![],
        };
        let exact = Accuracy::measure(&original, &rebuilt, &copies).unwrap();
        assert!(exact.bit_exact && exact.relative_error == Some(0.0));
        assert_eq!(exact.condition_number, None);

        let nothing = RecoveryReport {
            rebuilt: vec![],
            reencoded: vec![1],
            solves: vec![],
        };
        assert_eq!(Accuracy::measure(&original, &rebuilt, &nothing), None);
    }
}

//! Checkpoint matrices (docs/encodings.md §3) and the conditioning of their submatrices.

use super::EncodingError;
use crate::rng::{run_rng, standard_normal};
use nalgebra::DMatrix;
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Which checkpoint matrix a weighted scheme uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatrixKind {
    /// `a_ij ~ N(0,1)` from the seeded generator: every square submatrix well conditioned
    /// with high probability (the paper's Theorem 1).
    Gaussian,
    /// `a_ij = j^(i-1)`, `j = 1..n`: every square submatrix nonsingular, many of them
    /// terribly conditioned.
    Vandermonde,
    /// `a_ij = 1/(x_i - y_j)`, `x_i = i`, `y_j = -j`.
    Cauchy,
    /// All ones: the plain checksum.
    Ones,
}

impl MatrixKind {
    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            MatrixKind::Gaussian => "gaussian",
            MatrixKind::Vandermonde => "vandermonde",
            MatrixKind::Cauchy => "cauchy",
            MatrixKind::Ones => "ones",
        }
    }
}

impl fmt::Display for MatrixKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MatrixKind {
    type Err = EncodingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "gaussian" => Ok(MatrixKind::Gaussian),
            "vandermonde" => Ok(MatrixKind::Vandermonde),
            "cauchy" => Ok(MatrixKind::Cauchy),
            _ => Err(EncodingError::Invalid {
                arg: "--matrix",
                value: s.to_string(),
                accepted: "gaussian, vandermonde or cauchy".to_string(),
            }),
        }
    }
}

/// The generator stream the Gaussian matrix is drawn from; data and failure sets drawn by
/// callers use other streams of the same seed.
pub const MATRIX_STREAM: u64 = 0;

/// The most entries a checkpoint matrix may have: 8 GiB of f64, as many as the largest scheme
/// [`super::codec::MAX_RECOVERY_WORK`] admits (one checksum row over 2^30 processors).
pub const MAX_MATRIX_ENTRIES: usize = 1 << 30;

/// The `rows x cols` checkpoint matrix of `kind` (rows are checksums, columns processors).
/// More than [`MAX_MATRIX_ENTRIES`] entries are refused, naming `--checksums` or `--procs`
/// (whichever is larger).
///
/// ```
/// use ckpt::encoding::matrix::{checkpoint_matrix, MatrixKind};
/// let v = checkpoint_matrix(MatrixKind::Vandermonde, 3, 4, 0).unwrap();
/// assert_eq!(v[(2, 3)], 16.0); // j = 4, i = 3: 4^2
/// assert!(checkpoint_matrix(MatrixKind::Ones, 1, 1 << 40, 0).is_err());
/// ```
pub fn checkpoint_matrix(
    kind: MatrixKind,
    rows: usize,
    cols: usize,
    seed: u64,
) -> Result<DMatrix<f64>, EncodingError> {
    // Checked before nalgebra sees the sizes: it multiplies them unchecked (2^32 x 2^32
    // wrapped to an empty buffer and crashed) and allocates whatever is asked (8.8 TB).
    if rows
        .checked_mul(cols)
        .is_none_or(|e| e > MAX_MATRIX_ENTRIES)
    {
        let (arg, value) = if rows >= cols {
            ("--checksums", rows)
        } else {
            ("--procs", cols)
        };
        return Err(EncodingError::Invalid {
            arg,
            value: value.to_string(),
            accepted: format!(
                "a checkpoint matrix of at most {MAX_MATRIX_ENTRIES} entries (this is {rows} checksums x {cols} processors)"
            ),
        });
    }
    Ok(match kind {
        MatrixKind::Gaussian => {
            let mut rng = run_rng(seed, MATRIX_STREAM);
            // Row-major draw order, so a matrix with more columns extends rows predictably.
            let mut a = DMatrix::zeros(rows, cols);
            for i in 0..rows {
                for j in 0..cols {
                    a[(i, j)] = standard_normal(&mut rng);
                }
            }
            a
        }
        MatrixKind::Vandermonde => {
            DMatrix::from_fn(rows, cols, |i, j| ((j + 1) as f64).powi(i as i32))
        }
        MatrixKind::Cauchy => {
            DMatrix::from_fn(rows, cols, |i, j| 1.0 / ((i + 1) as f64 + (j + 1) as f64))
        }
        MatrixKind::Ones => DMatrix::from_element(rows, cols, 1.0),
    })
}

/// The submatrix of `a` with the given rows and columns; an index outside `a` is a
/// [`EncodingError::Shape`].
pub fn submatrix(
    a: &DMatrix<f64>,
    rows: &[usize],
    cols: &[usize],
) -> Result<DMatrix<f64>, EncodingError> {
    if let Some(r) = rows.iter().find(|&&r| r >= a.nrows()) {
        return Err(EncodingError::Shape(format!(
            "row {r} of a matrix of {} rows",
            a.nrows()
        )));
    }
    if let Some(c) = cols.iter().find(|&&c| c >= a.ncols()) {
        return Err(EncodingError::Shape(format!(
            "column {c} of a matrix of {} columns",
            a.ncols()
        )));
    }
    Ok(DMatrix::from_fn(rows.len(), cols.len(), |i, j| {
        a[(rows[i], cols[j])]
    }))
}

/// The singular values of a non-empty matrix, in no order; `None` when they cannot be had in
/// double precision (a non-finite entry, or a decomposition that does not come out finite).
///
/// nalgebra scales the matrix by its largest entry itself, but entries many orders of
/// magnitude below it (the low rows of a Vandermonde matrix of many checksums) then underflow
/// in the Householder steps, the decomposition turns NaN, and its sorted form panics. So the
/// unordered form is used, with nalgebra's own default tolerance (results to the bit as
/// before) and a cap on the sweeps so that no input runs forever.
fn singular_values(a: &DMatrix<f64>) -> Option<Vec<f64>> {
    if !a.iter().all(|v| v.is_finite()) {
        return None;
    }
    let sweeps = 100 * (a.nrows() + a.ncols()) + 1000;
    let eps = 5.0 * f64::EPSILON;
    let svd = nalgebra::SVD::try_new_unordered(a.clone(), false, false, eps, sweeps)?;
    let values: Vec<f64> = svd.singular_values.iter().copied().collect();
    values.iter().all(|v| v.is_finite()).then_some(values)
}

/// The 2-norm (largest singular value) of any matrix; 0 for an empty one, `None` when the
/// SVD cannot give it in double precision (see [`largest_column_norm`] for a bound then).
pub fn spectral_norm(a: &DMatrix<f64>) -> Option<f64> {
    if a.is_empty() {
        return Some(0.0);
    }
    singular_values(a).map(|sv| sv.into_iter().fold(0.0, f64::max))
}

/// The largest 2-norm of a column: a lower bound of the matrix's 2-norm that, unlike the SVD,
/// does not fail on entries of very different magnitudes (computed scaled, so it overflows
/// only where the result itself is beyond double precision).
pub fn largest_column_norm(a: &DMatrix<f64>) -> f64 {
    a.column_iter()
        .map(|c| {
            let largest = c.amax();
            if largest == 0.0 || !largest.is_finite() {
                largest
            } else {
                largest * c.map(|v| v / largest).norm()
            }
        })
        .fold(0.0, f64::max)
}

/// Largest and smallest singular values; `None` for an empty matrix, one with fewer rows
/// than columns (it has a null space), or one whose singular values are beyond double
/// precision.
pub fn extreme_singular_values(a: &DMatrix<f64>) -> Option<(f64, f64)> {
    if a.nrows() == 0 || a.ncols() == 0 || a.nrows() < a.ncols() {
        return None;
    }
    let sv = singular_values(a)?;
    let max = sv.iter().copied().fold(0.0, f64::max);
    let min = sv.iter().copied().fold(f64::INFINITY, f64::min);
    Some((max, min))
}

/// 2-norm condition number: ratio of the extreme singular values; `None` when the matrix is
/// empty, numerically singular (smallest singular value zero) or beyond double precision.
pub fn condition_number(a: &DMatrix<f64>) -> Option<f64> {
    // Only min(rows, cols) singular values exist; a wide matrix has a null space, which least
    // squares on its columns does not care about when rows >= cols.
    let (max, min) = extreme_singular_values(a)?;
    if min <= 0.0 {
        return None;
    }
    let c = max / min;
    c.is_finite().then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_is_seeded_and_standard() {
        let a = checkpoint_matrix(MatrixKind::Gaussian, 40, 50, 7).unwrap();
        let b = checkpoint_matrix(MatrixKind::Gaussian, 40, 50, 7).unwrap();
        assert_eq!(a, b);
        assert_ne!(
            a,
            checkpoint_matrix(MatrixKind::Gaussian, 40, 50, 8).unwrap()
        );
        let n = (40 * 50) as f64;
        let mean = a.iter().sum::<f64>() / n;
        let var = a.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        // 2000 draws: the mean has stderr 0.022, the variance about 0.032.
        assert!(mean.abs() < 4.0 * 0.0224, "mean {mean}");
        assert!((var - 1.0).abs() < 4.0 * 0.0317, "var {var}");
    }

    #[test]
    fn structured_entries() {
        let c = checkpoint_matrix(MatrixKind::Cauchy, 2, 3, 0).unwrap();
        assert_eq!(c[(0, 0)], 0.5);
        assert_eq!(c[(1, 2)], 0.2);
        let v = checkpoint_matrix(MatrixKind::Vandermonde, 4, 64, 0).unwrap();
        assert_eq!(v[(0, 63)], 1.0);
        assert_eq!(v[(3, 63)], 262144.0);
    }

    /// Before: 2^32 x 2^32 Gaussian, Vandermonde and Cauchy matrices crashed with SIGSEGV
    /// (the entry count wrapped to 0 inside nalgebra), the Ones one came back empty, and 1 x
    /// 2^40 aborted allocating 8.8 TB; a submatrix index past the matrix panicked.
    #[test]
    fn oversized_matrices_and_indices_are_refused() {
        for kind in [
            MatrixKind::Gaussian,
            MatrixKind::Vandermonde,
            MatrixKind::Cauchy,
            MatrixKind::Ones,
        ] {
            for (rows, cols) in [(1 << 32, 1 << 32), (usize::MAX, 2), (1, 1 << 40)] {
                assert!(
                    matches!(
                        checkpoint_matrix(kind, rows, cols, 0),
                        Err(EncodingError::Invalid { .. })
                    ),
                    "{kind} {rows} x {cols}"
                );
            }
        }
        let z = DMatrix::<f64>::zeros(2, 2);
        assert!(matches!(
            submatrix(&z, &[5], &[0]),
            Err(EncodingError::Shape(_))
        ));
        assert!(submatrix(&z, &[0], &[2]).is_err());
        assert_eq!(submatrix(&z, &[1], &[0, 1]).unwrap().shape(), (1, 2));
    }

    #[test]
    fn condition_numbers() {
        let id = DMatrix::<f64>::identity(3, 3);
        assert!((condition_number(&id).unwrap() - 1.0).abs() < 1e-12);
        let sing = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 4.0]);
        assert!(condition_number(&sing).is_none_or(|c| c > 1e15));
        let diag = DMatrix::from_row_slice(2, 2, &[2.0, 0.0, 0.0, 0.5]);
        assert!((condition_number(&diag).unwrap() - 4.0).abs() < 1e-12);
        assert!(condition_number(&DMatrix::from_row_slice(1, 2, &[1.0, 1.0])).is_none());
    }

    #[test]
    fn huge_entries_scale_exactly() {
        // [[3, 0], [4, 5]]: A^T A = [[25, 20], [20, 25]], eigenvalues 45 and 5, so the
        // singular values are sqrt(45) and sqrt(5) and the condition number is 3. Times 2^700
        // the squares would overflow unscaled.
        let big = 2f64.powi(700);
        let a = DMatrix::from_row_slice(2, 2, &[3.0 * big, 0.0, 4.0 * big, 5.0 * big]);
        let norm = spectral_norm(&a).unwrap();
        assert!(
            (norm / (big * 45f64.sqrt()) - 1.0).abs() < 1e-14,
            "{norm:e}"
        );
        let (hi, lo) = extreme_singular_values(&a).unwrap();
        assert!((hi / lo - 3.0).abs() < 1e-13, "{hi:e} / {lo:e}");
        assert!((condition_number(&a).unwrap() - 3.0).abs() < 1e-13);
        // The same to the bit as the unscaled matrix: the scaling is by a power of two.
        let small = a.map(|v| v / big);
        assert_eq!(spectral_norm(&small).unwrap() * big, norm);
    }

    #[test]
    fn non_finite_entries_have_no_singular_values() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, f64::INFINITY, 0.0, 1.0]);
        assert_eq!(spectral_norm(&a), None);
        assert_eq!(condition_number(&a), None);
        let z = DMatrix::<f64>::zeros(2, 3);
        assert_eq!(spectral_norm(&z), Some(0.0));
        assert_eq!(spectral_norm(&DMatrix::<f64>::zeros(0, 3)), Some(0.0));
    }

    #[test]
    fn largest_column_norm_is_scaled() {
        // Column norms 5e200 and 1: the squares of 3e200 and 4e200 overflow unscaled.
        let a = DMatrix::from_row_slice(2, 2, &[3e200, 0.0, 4e200, 1.0]);
        let n = largest_column_norm(&a);
        assert!((n / 5e200 - 1.0).abs() < 1e-15, "{n:e}");
        assert_eq!(largest_column_norm(&DMatrix::<f64>::zeros(3, 2)), 0.0);
    }

    #[test]
    fn many_vandermonde_checksums_do_not_panic() {
        // Rows j^(i) for i < 56 over 1024 columns reach 1023^55, about 1e165: nalgebra's
        // sorted SVD of this block panicked on a NaN singular value.
        let v = checkpoint_matrix(MatrixKind::Vandermonde, 56, 1024, 0).unwrap();
        let bound = largest_column_norm(&v);
        assert!(bound.is_finite() && bound > 1e165, "{bound:e}");
        if let Some(norm) = spectral_norm(&v) {
            assert!(norm >= bound * (1.0 - 1e-12), "{norm:e} < {bound:e}");
        }
    }
}

//! The demonstration of docs/encodings.md §5: Jacobi-preconditioned conjugate gradient on
//! the 2-D Poisson matrix, rows partitioned over `n` simulated processors, checkpointed in
//! memory every `K` iterations with a scheme, surviving `k` processors that fail together.
//!
//! Each processor's local checkpoint is its slices of the iterate `x`, the residual `r` and
//! the search direction `p` (each padded to the largest slice so blocks line up) followed by
//! the two scalars `rho` and the iteration index.

use super::EncodingError;
use super::codec::{Accuracy, Codec, check_recovery_work, erase};
use super::matrix::MatrixKind;
use super::scheme::SchemeSpec;
use crate::rng::run_rng;
use rand::RngExt;
use std::time::Instant;

/// A validated PCG experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct PcgConfig {
    /// Grid side `G`: `G^2` unknowns.
    pub grid: usize,
    /// The encoding scheme (its `procs` is the number of computation processors).
    pub scheme: SchemeSpec,
    /// Checkpoint matrix for the weighted schemes.
    pub matrix: MatrixKind,
    /// Seeds the Gaussian matrix and the choice of failed processors.
    pub seed: u64,
    /// Checkpoint every `K` iterations (and at iteration 0).
    pub every: usize,
    /// The failure strikes after this iteration completes.
    pub at: usize,
    /// Stop at this relative residual `||r|| / ||b||`.
    pub tol: f64,
    /// Give up after this iteration index.
    pub max_iter: usize,
}

/// The largest grid side: `2048^2` unknowns, a few hundred MiB with the checkpoints.
pub const MAX_GRID: usize = 2048;

/// The most work one `ckpt pcg` invocation may ask for, in unknown-iterations (see
/// [`PcgConfig::work`]): an iteration costs some 6 ns per unknown on one core here, so about
/// ten minutes where every run goes to its iteration bound.
pub const MAX_PCG_WORK: f64 = 1e11;

impl PcgConfig {
    /// An upper estimate of the iterations one run executes: the conjugate-gradient bound
    /// `sqrt(kappa)/2 ln(2 sqrt(kappa) / tol)` (the residual falls by `tol` within it in exact
    /// arithmetic), where `sqrt(kappa) = 2(G+1)/pi` for the Jacobi-preconditioned 5-point
    /// Laplacian, at most `max_iter`; plus the `at` iterations a rollback can redo.
    pub fn iteration_bound(&self) -> f64 {
        self.cg_iterations() + (self.at as f64).min(self.max_iter as f64)
    }

    /// The conjugate-gradient part of [`Self::iteration_bound`], at most `max_iter`.
    fn cg_iterations(&self) -> f64 {
        let root_kappa = 2.0 * (self.grid as f64 + 1.0) / std::f64::consts::PI;
        let cg = (root_kappa / 2.0 * (2.0 * root_kappa / self.tol).ln()).ceil();
        cg.min(self.max_iter as f64)
    }

    /// The work of `runs` runs, in unknown-iterations: `runs x G^2 x` [`Self::iteration_bound`],
    /// times `1 + 3 max(m, 1) / every` for the checkpoints (three values per unknown into
    /// `m` sums every `every` iterations).
    pub fn work(&self, runs: usize) -> f64 {
        let unknowns = (self.grid as f64).powi(2);
        let sums = self.scheme.checksums.max(1) as f64;
        let encode = 1.0 + 3.0 * sums / self.every.max(1) as f64;
        runs as f64 * unknowns * self.iteration_bound() * encode
    }

    /// Checks the sizes; errors name the flag.
    pub fn validate(&self) -> Result<(), EncodingError> {
        self.validate_runs(1)
    }

    /// [`PcgConfig::validate`] for `runs` runs (one per failure count of `--fail`), whose
    /// [`PcgConfig::work`] must stay within [`MAX_PCG_WORK`]: refused naming `--fail` when
    /// there are several runs, else `--max-iter` or `--grid`, whichever bounds the iterations.
    pub fn validate_runs(&self, runs: usize) -> Result<(), EncodingError> {
        let bad = |arg: &'static str, value: String, accepted: String| {
            Err(EncodingError::Invalid {
                arg,
                value,
                accepted,
            })
        };
        // Bounded before `grid^2` is formed: a larger side overflowed it, or allocated
        // beyond memory in run_pcg.
        if !(2..=MAX_GRID).contains(&self.grid) {
            return bad(
                "--grid",
                self.grid.to_string(),
                format!("a grid side between 2 and {MAX_GRID}"),
            );
        }
        if self.scheme.procs > self.grid * self.grid {
            return bad(
                "--procs",
                self.scheme.procs.to_string(),
                format!("at most the {} unknowns of the grid", self.grid * self.grid),
            );
        }
        if self.every == 0 {
            return bad(
                "--every",
                "0".into(),
                "a checkpoint period of at least 1 iteration".into(),
            );
        }
        if !(self.tol.is_finite() && self.tol > 0.0 && self.tol < 1.0) {
            return bad(
                "--tol",
                self.tol.to_string(),
                "a relative residual between 0 and 1".into(),
            );
        }
        if self.at == 0 {
            return bad(
                "--at",
                "0".into(),
                "an iteration of at least 1 (the failure strikes after it completes)".into(),
            );
        }
        if self.max_iter == 0 {
            return bad("--max-iter", "0".into(), "at least 1 iteration".into());
        }
        // The recovery bound first, so that a scheme too large for any grid says so.
        check_recovery_work(&self.scheme)?;
        let work = self.work(runs);
        if work > MAX_PCG_WORK {
            let why = format!(
                "runs x grid^2 x iterations (each run at most min(--max-iter, the CG bound for --tol) + --at iterations, more with frequent checkpoints) within {MAX_PCG_WORK:.0e} (this is {work:.2e}; docs/interface.md, ckpt pcg)"
            );
            let one = self.work(1);
            return if runs > 1 && one <= MAX_PCG_WORK {
                bad(
                    "--fail",
                    format!("{runs} failure counts"),
                    format!(
                        "at most {} failure count(s) at this grid: {why}",
                        (MAX_PCG_WORK / one).floor()
                    ),
                )
            } else if self.cg_iterations() >= self.max_iter as f64 {
                bad("--max-iter", self.max_iter.to_string(), why)
            } else {
                bad("--grid", self.grid.to_string(), why)
            };
        }
        Ok(())
    }

    fn ranges(&self) -> Vec<(usize, usize)> {
        let n = self.grid * self.grid;
        let p = self.scheme.procs;
        let (base, extra) = (n / p, n % p);
        let mut start = 0;
        (0..p)
            .map(|i| {
                let len = base + usize::from(i < extra);
                let r = (start, start + len);
                start += len;
                r
            })
            .collect()
    }
}

/// The failed computation processors for a run with `k` failures: `k` distinct indices drawn
/// uniformly from the seed's stream `1 + k`, sorted.
pub fn failed_set(seed: u64, procs: usize, k: usize) -> Vec<usize> {
    let mut rng = run_rng(seed, 1 + k as u64);
    let mut all: Vec<usize> = (0..procs).collect();
    for i in 0..k.min(procs) {
        let j = rng.random_range(i..procs);
        all.swap(i, j);
    }
    let mut f = all[..k.min(procs)].to_vec();
    f.sort_unstable();
    f
}

/// One PCG run with `k` simultaneous failures.
#[derive(Debug, Clone, PartialEq)]
pub struct PcgRun {
    /// Simultaneous failures `k`.
    pub failures: usize,
    /// The computation processors that failed.
    pub failed: Vec<usize>,
    /// Whether the failure happened (the solver may converge before `--at`).
    pub failure_injected: bool,
    /// How well the in-memory checkpoint rebuilt the lost data; `None` when no failure
    /// struck, or when the scheme could not rebuild it and CG restarted from the initial
    /// guess (the stable-storage level is not modelled).
    pub recovery: Option<Accuracy>,
    /// Iteration index at which the solver stopped.
    pub iterations: usize,
    /// Iterations executed, counting those redone after the rollback.
    pub executed_iterations: usize,
    /// Whether `||r|| / ||b||` reached the tolerance.
    pub converged: bool,
    /// `||b - A x||_2` of the final iterate.
    pub final_residual_norm: f64,
    /// The same over `||b||_2`.
    pub final_relative_residual: f64,
    /// Checkpoints taken.
    pub checkpoints: usize,
    /// Wall time spent encoding checkpoints, seconds (varies run to run).
    pub encode_s: f64,
    /// Wall time spent rebuilding, seconds (varies run to run).
    pub recover_s: f64,
}

/// The local checkpoints of the computation processors and what every processor holds.
type Checkpoint = (Vec<Vec<f64>>, Vec<Vec<f64>>);

struct State {
    x: Vec<f64>,
    r: Vec<f64>,
    p: Vec<f64>,
    rho: f64,
    it: usize,
}

fn poisson(g: usize, v: &[f64], out: &mut [f64]) {
    for row in 0..g {
        for col in 0..g {
            let i = row * g + col;
            let mut s = 4.0 * v[i];
            if col > 0 {
                s -= v[i - 1];
            }
            if col + 1 < g {
                s -= v[i + 1];
            }
            if row > 0 {
                s -= v[i - g];
            }
            if row + 1 < g {
                s -= v[i + g];
            }
            out[i] = s;
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The Jacobi preconditioner of the 5-point matrix: its diagonal is 4.
const DIAG: f64 = 4.0;

fn initial(nn: usize) -> State {
    let r = vec![1.0; nn];
    let p: Vec<f64> = r.iter().map(|v| v / DIAG).collect();
    let rho = dot(&r, &p);
    State {
        x: vec![0.0; nn],
        r,
        p,
        rho,
        it: 0,
    }
}

fn pack(state: &State, ranges: &[(usize, usize)]) -> Vec<Vec<f64>> {
    let width = ranges.iter().map(|(s, e)| e - s).max().unwrap_or(0);
    ranges
        .iter()
        .map(|&(s, e)| {
            let mut v = vec![0.0; 3 * width + 2];
            v[..e - s].copy_from_slice(&state.x[s..e]);
            v[width..width + e - s].copy_from_slice(&state.r[s..e]);
            v[2 * width..2 * width + e - s].copy_from_slice(&state.p[s..e]);
            v[3 * width] = state.rho;
            v[3 * width + 1] = state.it as f64;
            v
        })
        .collect()
}

fn unpack(locals: &[Vec<f64>], ranges: &[(usize, usize)], scalars_from: usize, state: &mut State) {
    let width = ranges.iter().map(|(s, e)| e - s).max().unwrap_or(0);
    for (v, &(s, e)) in locals.iter().zip(ranges) {
        state.x[s..e].copy_from_slice(&v[..e - s]);
        state.r[s..e].copy_from_slice(&v[width..width + e - s]);
        state.p[s..e].copy_from_slice(&v[2 * width..2 * width + e - s]);
    }
    state.rho = locals[scalars_from][3 * width];
    state.it = locals[scalars_from][3 * width + 1].round().max(0.0) as usize;
}

/// Runs PCG with `k` computation processors failing together after iteration `cfg.at`
/// (the set from [`failed_set`]).
pub fn run_pcg(cfg: &PcgConfig, k: usize) -> Result<PcgRun, EncodingError> {
    cfg.validate()?;
    let n = cfg.scheme.procs;
    if k > n {
        return Err(EncodingError::Invalid {
            arg: "--fail",
            value: k.to_string(),
            accepted: format!("at most the {n} computation processors"),
        });
    }
    let failed = failed_set(cfg.seed, n, k);
    let codec = Codec::new(cfg.scheme, cfg.matrix, cfg.seed)?;
    let g = cfg.grid;
    let nn = g * g;
    let ranges = cfg.ranges();
    let b_norm = (nn as f64).sqrt();
    let mut st = initial(nn);
    let mut q = vec![0.0; nn];
    let mut checkpoint: Option<Checkpoint> = None;
    // The iteration the held checkpoint belongs to: a rollback lands on it, and the rebuilt
    // checkpoint is already encoded.
    let mut checkpoint_it = None;
    let (mut encode_s, mut recover_s) = (0.0, 0.0);
    let mut checkpoints = 0;
    let mut executed = 0;
    let mut injected = false;
    let mut recovery = None;
    let mut converged = dot(&st.r, &st.r).sqrt() / b_norm < cfg.tol;
    while !converged && st.it < cfg.max_iter {
        if st.it.is_multiple_of(cfg.every) && checkpoint_it != Some(st.it) {
            let t = Instant::now();
            let locals = pack(&st, &ranges);
            let held = codec.encode(&locals)?;
            encode_s += t.elapsed().as_secs_f64();
            checkpoint = Some((locals, held));
            checkpoint_it = Some(st.it);
            checkpoints += 1;
        }
        // One iteration.
        poisson(g, &st.p, &mut q);
        let alpha = st.rho / dot(&st.p, &q);
        if !alpha.is_finite() {
            break;
        }
        for ((x, r), (p, q)) in
            st.x.iter_mut()
                .zip(st.r.iter_mut())
                .zip(st.p.iter().zip(&q))
        {
            *x += alpha * p;
            *r -= alpha * q;
        }
        st.it += 1;
        executed += 1;
        converged = dot(&st.r, &st.r).sqrt() / b_norm < cfg.tol;
        if !converged {
            let rho_new: f64 = st.r.iter().map(|v| v * v / DIAG).sum();
            let beta = rho_new / st.rho;
            for (p, r) in st.p.iter_mut().zip(&st.r) {
                *p = r / DIAG + beta * *p;
            }
            st.rho = rho_new;
        }
        if k > 0 && !injected && st.it == cfg.at && !converged {
            injected = true;
            let (lost_locals, held) = checkpoint
                .as_ref()
                .expect("a checkpoint is taken at iteration 0");
            for &f in &failed {
                let (s, e) = ranges[f];
                for v in [&mut st.x, &mut st.r, &mut st.p] {
                    v[s..e].fill(f64::NAN);
                }
            }
            let mut locals = lost_locals.clone();
            let mut held = held.clone();
            erase(&mut locals, &mut held, &failed);
            let t = Instant::now();
            let result = codec.recover(&mut locals, &mut held, &failed);
            recover_s += t.elapsed().as_secs_f64();
            match result {
                Ok(report) => {
                    recovery = Accuracy::measure(lost_locals, &locals, &report);
                    // `failed` is sorted: a search per processor, not a scan (all n failing a mirror
                    // made this quadratic).
                    let from = (0..n)
                        .find(|i| failed.binary_search(i).is_err())
                        .unwrap_or(0);
                    unpack(&locals, &ranges, from, &mut st);
                    checkpoint = Some((locals, held));
                }
                Err(EncodingError::Unrecoverable { .. } | EncodingError::IllConditioned { .. }) => {
                    st = initial(nn);
                    checkpoint = None;
                    checkpoint_it = None;
                }
                Err(e) => return Err(e),
            }
            converged = false;
        }
    }
    poisson(g, &st.x, &mut q);
    let res = q.iter().map(|v| (1.0 - v) * (1.0 - v)).sum::<f64>().sqrt();
    if !res.is_finite() {
        return Err(EncodingError::Diverged(format!(
            "CG with {k} failures broke down at iteration {} (non-finite residual)",
            st.it
        )));
    }
    Ok(PcgRun {
        failures: k,
        failed,
        failure_injected: injected,
        recovery,
        iterations: st.it,
        executed_iterations: executed,
        converged,
        final_residual_norm: res,
        final_relative_residual: res / b_norm,
        checkpoints,
        encode_s,
        recover_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::SchemeKind;

    fn cfg(kind: SchemeKind, m: Option<usize>) -> PcgConfig {
        PcgConfig {
            grid: 24,
            scheme: SchemeSpec::new(kind, 8, None, m).unwrap(),
            matrix: MatrixKind::Gaussian,
            seed: 42,
            every: 10,
            at: 25,
            tol: 1e-10,
            max_iter: 10_000,
        }
    }

    /// Before: `grid: usize::MAX` overflowed `grid * grid` in validate (a panic in debug; in
    /// release it wrapped to Ok and run_pcg panicked), and `grid: 2^32 + 1` passed and
    /// aborted allocating. Now the library refuses a side above 2048, as the CLI did.
    #[test]
    fn grid_is_bounded_in_the_library() {
        for grid in [usize::MAX, (1 << 32) + 1, MAX_GRID + 1] {
            let c = PcgConfig {
                grid,
                ..cfg(SchemeKind::Mirror, None)
            };
            assert!(
                matches!(
                    c.validate(),
                    Err(EncodingError::Invalid { arg: "--grid", .. })
                ),
                "{grid}"
            );
            assert!(run_pcg(&c, 0).is_err());
        }
    }

    /// Before: nothing bounded the runs times the work of each, so `--grid 2048 --procs
    /// 4194304 --fail 0..4194304` was accepted (four million runs of some two minutes each).
    #[test]
    fn total_work_is_bounded() {
        let mut c = cfg(SchemeKind::Mirror, None);
        c.grid = 2048;
        c.scheme = SchemeSpec::new(SchemeKind::Mirror, 1 << 22, None, None).unwrap();
        c.every = 100;
        c.at = 150;
        c.max_iter = 100_000;
        assert!(matches!(
            c.validate_runs((1 << 22) + 1),
            Err(EncodingError::Invalid { arg: "--fail", .. })
        ));
        // One run at 2048 fits: sqrt(kappa) = 4098/pi = 1304.4, so the CG bound is
        // 652.2 ln(2 x 1304.4 / 1e-10) = 20150 iterations, plus 150: 8.5e10 unknown-iterations
        // times 1.03 for the checkpoints.
        assert!((c.iteration_bound() - (20150.0 + 150.0)).abs() <= 1.0);
        c.validate_runs(1).unwrap();
        // A tolerance the CG bound cannot reach in 100000 iterations leaves max_iter to bound
        // the run, and it is max_iter that is named.
        c.tol = 1e-300;
        assert!(matches!(
            c.validate_runs(1),
            Err(EncodingError::Invalid {
                arg: "--max-iter",
                ..
            })
        ));
        // The documented example stays accepted.
        let mut doc = cfg(SchemeKind::Weighted, Some(5));
        doc.grid = 512;
        doc.scheme = SchemeSpec::new(SchemeKind::Weighted, 64, None, Some(5)).unwrap();
        doc.every = 100;
        doc.at = 450;
        doc.validate_runs(6).unwrap();
    }

    #[test]
    fn failure_free_run_converges() {
        let r = run_pcg(&cfg(SchemeKind::Weighted, Some(3)), 0).unwrap();
        assert!(r.converged && !r.failure_injected);
        assert!(
            r.final_relative_residual < 1e-9,
            "{}",
            r.final_relative_residual
        );
        assert_eq!(r.iterations, r.executed_iterations);
    }

    #[test]
    fn mirror_recovery_repeats_the_failure_free_run_exactly() {
        let c = cfg(SchemeKind::Mirror, None);
        let base = run_pcg(&c, 0).unwrap();
        let hit = run_pcg(&c, 3).unwrap();
        assert!(hit.failure_injected && hit.recovery.is_some_and(|a| a.bit_exact));
        assert_eq!(hit.iterations, base.iterations);
        assert_eq!(hit.executed_iterations, base.iterations + 5);
        assert_eq!(
            hit.final_residual_norm.to_bits(),
            base.final_residual_norm.to_bits()
        );
    }

    #[test]
    fn failed_sets_are_distinct_and_seeded() {
        let f = failed_set(9, 16, 5);
        assert_eq!(f.len(), 5);
        assert!(f.windows(2).all(|w| w[0] < w[1]) && f.iter().all(|&p| p < 16));
        assert_eq!(f, failed_set(9, 16, 5));
    }

    #[test]
    fn unrecoverable_falls_back_to_a_restart() {
        let mut c = cfg(SchemeKind::Checksum, None);
        c.at = 15;
        let base = run_pcg(&c, 0).unwrap();
        let r = run_pcg(&c, 2).unwrap();
        assert!(r.failure_injected && r.recovery.is_none() && r.converged);
        assert_eq!(r.executed_iterations, base.iterations + 15);
    }
}

//! The crate's randomness: one seeded ChaCha8 stream per run, and the standard normal draw.
//!
//! Every simulator and every encoding takes its numbers from [`run_rng`], so a result depends
//! on the seed and the run index alone, never on the thread, shard or order a run executes in.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// The random stream of run `run` under `seed`: the same numbers whatever thread, shard or
/// order the run is executed in.
///
/// ```
/// use rand::RngExt;
/// let a: u64 = ckpt::rng::run_rng(42, 3).random();
/// assert_eq!(a, ckpt::rng::run_rng(42, 3).random::<u64>());
/// ```
pub fn run_rng(seed: u64, run: u64) -> ChaCha8Rng {
    // Streams of one seed rather than seeds derived from `(seed, run)`: ChaCha guarantees the
    // streams do not overlap, and shards stay consistent with a single process.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(run);
    rng
}

/// One standard normal deviate, `N(0, 1)`, through `rand_distr`'s ziggurat sampler.
///
/// ```
/// let z = ckpt::rng::standard_normal(&mut ckpt::rng::run_rng(1, 0));
/// assert!(z.is_finite());
/// ```
pub fn standard_normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_depend_on_seed_and_index_only() {
        let a: Vec<u64> = (0..4).map(|i| run_rng(42, i).random()).collect();
        let b: Vec<u64> = (0..4)
            .rev()
            .map(|i| run_rng(42, i).random())
            .collect::<Vec<_>>();
        let b: Vec<u64> = b.into_iter().rev().collect();
        assert_eq!(a, b);
        assert_ne!(a[0], a[1]);
        assert_ne!(run_rng(1, 0).random::<u64>(), run_rng(2, 0).random::<u64>());
    }

    #[test]
    fn normal_draws_have_mean_zero_and_unit_variance() {
        let mut rng = run_rng(5, 0);
        let n = 200_000;
        let z: Vec<f64> = (0..n).map(|_| standard_normal(&mut rng)).collect();
        let mean = z.iter().sum::<f64>() / n as f64;
        let var = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        // Five standard errors: 5/sqrt(n) for the mean, 5*sqrt(2/n) for the variance.
        assert!(mean.abs() < 5.0 / (n as f64).sqrt(), "{mean}");
        assert!((var - 1.0).abs() < 5.0 * (2.0 / n as f64).sqrt(), "{var}");
    }
}

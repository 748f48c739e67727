//! Property tests of the numerics: optima are minima, they move the right way, MTTI grows
//! with replicas.

use ckpt::failure::{Lifetime, Shape};
use ckpt::model::CostModel;
use ckpt::model::daly::DalyComplete;
use ckpt::model::mtti::mtti;
use ckpt::model::replicated::{Detect, Replicated, ReplicatedSystem};
use ckpt::optimize::{OptimizeError, minimize};
use proptest::prelude::*;

fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (0.0f64..1.0).prop_map(move |u| lo * (hi / lo).powf(u))
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Exponential),
        (0.5f64..3.0).prop_map(|k| Shape::Weibull { shape: k }),
        (0.5f64..3.0).prop_map(|k| Shape::Gamma { shape: k }),
        (0.3f64..1.5).prop_map(|s| Shape::LogNormal { sigma: s }),
    ]
}

fn detect() -> impl Strategy<Value = Detect> {
    prop_oneof![Just(Detect::End), Just(Detect::Immediate)]
}

fn assert_local_minimum(model: &dyn CostModel) -> Result<(), TestCaseError> {
    let opt = match minimize(model) {
        Ok(o) => o,
        // A job that cannot progress at any interval is a valid answer, not a failure.
        Err(OptimizeError::NoProgress { .. }) => return Ok(()),
        Err(e) => return Err(TestCaseError::fail(e.to_string())),
    };
    let at = opt.ln_overhead;
    for f in [0.9, 1.1] {
        let neighbour = model.ln_overhead(opt.interval * f);
        prop_assert!(
            at <= neighbour,
            "{}: {at} at {} vs {neighbour} at x{f}",
            model.name(),
            opt.interval
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn daly_optimum_beats_its_neighbours(
        mtbf in log_uniform(60.0, 1e8), a in log_uniform(1e-7, 1.9),
        restart in 0.0f64..3600.0, downtime in 0.0f64..600.0,
    ) {
        let m = DalyComplete::new(mtbf, a * mtbf, restart, downtime).unwrap();
        assert_local_minimum(&m)?;
    }

    #[test]
    fn replicated_optimum_beats_its_neighbours(
        mtbf in log_uniform(600.0, 1e7), a in log_uniform(1e-6, 0.5),
        n in 1u64..2000, r in 1u32..4, shape in shape(), detect in detect(), restart in 0.0f64..600.0,
    ) {
        let sys = ReplicatedSystem::new(Lifetime::new(shape, mtbf).unwrap(), n, r).unwrap();
        let m = Replicated::new(sys, a * mtbf, restart, detect).unwrap();
        assert_local_minimum(&m)?;
    }

    #[test]
    fn daly_optimum_grows_with_cost_and_mtbf(
        mtbf in log_uniform(60.0, 1e8), a in log_uniform(1e-7, 1.0), up in 1.01f64..3.0,
    ) {
        let tau = |m: f64, d: f64| minimize(&DalyComplete::new(m, d, 0.0, 0.0).unwrap()).unwrap().interval;
        let base = tau(mtbf, a * mtbf);
        prop_assert!(tau(mtbf, a * mtbf * up) > base);
        prop_assert!(tau(mtbf * up, a * mtbf) > base);
    }

    // With r >= 2 the system's hazard rises with time, and once delta is a sizeable part of
    // the MTTI the optimum can fall as the cost grows (n = 39, r = 2, M = 600 s: 37.14 s at
    // delta = 46.4 s, 36.78 s at 60 s). The property is that of the regime delta << MTTI.
    #[test]
    fn replicated_optimum_grows_with_cost_and_mtbf(
        mtbf in log_uniform(600.0, 1e7), a in log_uniform(1e-6, 1e-3), up in 1.05f64..3.0,
        n in 1u64..500, r in 1u32..4, detect in detect(),
    ) {
        let tau = |m: f64, d: f64| {
            let sys = ReplicatedSystem::new(Lifetime::exponential(m).unwrap(), n, r).unwrap();
            minimize(&Replicated::new(sys, d, 0.0, detect).unwrap()).unwrap().interval
        };
        let base = tau(mtbf, a * mtbf);
        prop_assert!(tau(mtbf, a * mtbf * up) > base);
        prop_assert!(tau(mtbf * up, a * mtbf) > base);
    }

    #[test]
    fn more_replicas_never_lower_mtti(n in 1u64..5000, r in 1u32..5, shape in shape()) {
        let l = Lifetime::new(shape, 1000.0).unwrap();
        let a = mtti(&ReplicatedSystem::new(l, n, r).unwrap());
        let b = mtti(&ReplicatedSystem::new(l, n, r + 1).unwrap());
        prop_assert!(b >= a, "{a} {b}");
    }
}

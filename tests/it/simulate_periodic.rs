//! The periodic simulator against Daly's complete model (docs/models.md §3) and the exact expectation
//! of the simulated process, with fixed seeds and |z| < 4 (docs/simulation.md §4).
//!
//! With exponential failures (rate 1/M) one segment of wall time T (work tau plus checkpoint
//! delta) is completed, from the checkpoint before it, in expected time
//! A(T) = E[min(X, T)] + P(X < T) (restart + A(T)), where a restart that a failure interrupts
//! starts again, so its expected length is M (e^(R/M) - 1). Solving:
//! A(T) = M e^(R/M) (e^(T/M) - 1), which is Daly's complete model per segment exactly: his first
//! attempt of a segment carries no restart, every retry does. A job of k whole segments therefore
//! has E[wall] = k A(tau + delta) = Daly's Tw with Ts = k tau. Only a shorter last segment (work
//! not a multiple of tau) or `--no-final-checkpoint` departs from Daly's Ts/tau scaling, by the
//! known term A(tau_last + delta_last) - (tau_last / tau) A(tau + delta).

use crate::common::assert_agrees;
use ckpt::failure::{Lifetime, Shape};
use ckpt::sim::periodic::{Failures, PeriodicConfig, simulate, simulate_run};
use ckpt::sim::run::Scenario;
use ckpt::sim::stats::Estimate;
use ckpt::units::Nanos;

const S: Nanos = 1_000_000_000;

/// Daly's complete model: wall time for `ts` seconds of work.
fn daly_wall(ts: f64, tau: f64, delta: f64, r: f64, m: f64) -> f64 {
    m * (r / m).exp() * (((tau + delta) / m).exp() - 1.0) * ts / tau
}

/// The exact expected time to complete one segment of wall time `t` (see the module comment).
fn segment(t: f64, r: f64, m: f64) -> f64 {
    m * (r / m).exp() * ((t / m).exp() - 1.0)
}

fn config(work: u64, tau: u64, delta: u64, r: u64, failures: Failures) -> PeriodicConfig {
    PeriodicConfig {
        work: work * S,
        interval: tau * S,
        cost: delta * S,
        restart: r * S,
        failures,
        final_checkpoint: true,
        walltime: None,
        asynchronous: None,
        signal_lead: None,
    }
}

fn exp(m: f64) -> Failures {
    Failures::Platform(Lifetime::exponential(m).unwrap())
}

#[test]
fn exponential_mean_wall_time_is_dalys_complete_model() {
    // (delta, M, R, tau): short and long MTBFs, R > delta, R = 0, and delta / M = 0.5.
    let points = [
        (300u64, 3600.0, 600u64, 1800u64),
        (300, 21600.0, 600, 3420),
        (300, 86400.0, 600, 7000),
        (1800, 3600.0, 600, 2400),
        (1800, 3600.0, 0, 1200),
        (60, 600.0, 120, 300),
    ];
    for (i, &(delta, m, r, tau)) in points.iter().enumerate() {
        let k = 30;
        let cfg = config(k * tau, tau, delta, r, exp(m));
        let f = simulate(&cfg, 1000 + i as u64, 1500, 0, &|| {}).unwrap();
        let daly = daly_wall((k * tau) as f64, tau as f64, delta as f64, r as f64, m);
        let case = format!("delta {delta} M {m} R {r} tau {tau}");
        assert_agrees(&f.wall_time_s, daly, &format!("{case}: Daly"));
        // The split adds up, run by run and so on average.
        let sum = f.work_s.point + f.checkpoint_s.point + f.restart_s.point + f.lost_work_s.point;
        assert!((sum - f.wall_time_s.point).abs() < 1e-6 * sum);
        // Each failed attempt (e^(T/M) - 1 of them per segment on average) brings e^(R/M)
        // failures with its restarts: k e^(R/M) (e^(T/M) - 1) = E[wall] / M (Wald).
        let failures = daly / m;
        assert_agrees(&f.failures, failures, &format!("{case}: failures"));
    }
}

#[test]
fn a_short_last_segment_follows_the_exact_expectation_and_daly_stays_close() {
    let (delta, m, r, tau) = (300.0, 3600.0, 600.0, 1800.0);
    // 10.5 segments of work: the last has 900 s of work and its own checkpoint.
    let cfg = config(18900, 1800, 300, 600, exp(m));
    let f = simulate(&cfg, 7, 3000, 0, &|| {}).unwrap();
    let exact = 10.0 * segment(tau + delta, r, m) + segment(tau / 2.0 + delta, r, m);
    let daly = daly_wall(18900.0, tau, delta, r, m);
    assert_agrees(&f.wall_time_s, exact, "half a last segment");
    // Daly counts the half segment as half a segment; the simulated job pays its checkpoint
    // whole but less than half the exponential growth: here the two nearly cancel.
    assert!(
        (exact - daly).abs() / exact < 0.01,
        "exact {exact} Daly {daly}"
    );
    // A last segment of 180 s of work: the whole checkpoint dominates, exact is above Daly.
    let short = 10.0 * segment(tau + delta, r, m) + segment(180.0 + delta, r, m);
    let daly_short = daly_wall(18180.0, tau, delta, r, m);
    assert!(short > daly_short && (short - daly_short) / short < 0.01);
    let f = simulate(&config(18180, 1800, 300, 600, exp(m)), 9, 3000, 0, &|| {}).unwrap();
    assert_agrees(&f.wall_time_s, short, "180 s of work last");
}

#[test]
fn no_final_checkpoint_drops_one_checkpoint_from_the_expectation() {
    let (delta, m, r, tau) = (300.0, 3600.0, 600.0, 1800.0);
    let mut cfg = config(18000, 1800, 300, 600, exp(m));
    cfg.final_checkpoint = false;
    let f = simulate(&cfg, 8, 3000, 0, &|| {}).unwrap();
    let exact = 9.0 * segment(tau + delta, r, m) + segment(tau, r, m);
    assert_agrees(&f.wall_time_s, exact, "no final checkpoint");
    let with = daly_wall(18000.0, tau, delta, r, m);
    assert!(f.wall_time_s.point < with);
}

#[test]
fn nodes_give_the_system_mtbf_on_every_path() {
    // 64 nodes of MTBF 64 h: system MTBF 1 h. The exponential path draws one Poisson process;
    // Weibull shape 1 and gamma shape 1 are the same law through the per-node queue.
    let (delta, r, tau, k) = (300u64, 600u64, 1800u64, 20u64);
    let daly = daly_wall((k * tau) as f64, tau as f64, delta as f64, r as f64, 3600.0);
    for (i, shape) in [
        Shape::Exponential,
        Shape::Weibull { shape: 1.0 },
        Shape::Gamma { shape: 1.0 },
    ]
    .into_iter()
    .enumerate()
    {
        let node = Lifetime::new(shape, 64.0 * 3600.0).unwrap();
        let cfg = config(
            k * tau,
            tau,
            delta,
            r,
            Failures::Nodes {
                node,
                nodes: 64,
                partners: 0,
            },
        );
        let f = simulate(&cfg, 20 + i as u64, 1200, 0, &|| {}).unwrap();
        assert_agrees(&f.wall_time_s, daly, &format!("{shape}: Daly"));
    }
}

#[test]
fn walltime_fraction_is_the_chance_of_no_failure_at_the_failure_free_time() {
    // Finishing within exactly the failure-free time means no failure in [0, W0].
    let m = 20000.0;
    let mut cfg = config(7200, 1800, 300, 600, exp(m));
    let w0 = 4 * 2100;
    cfg.walltime = Some(w0 * S);
    let f = simulate(&cfg, 5, 2000, 0, &|| {}).unwrap();
    let p = (-(w0 as f64) / m).exp();
    let e = f.finished_within_walltime.unwrap();
    assert_agrees(&e, p, "finished within the failure-free time");
    assert!(e.ci95[0] <= e.point && e.point <= e.ci95[1]);
}

#[test]
fn non_exponential_failures_move_the_mean_away_from_daly() {
    // One platform renewal process, Weibull shape 0.7 with the same mean: failures cluster, so
    // long failure-free stretches are more common and the mean wall time is below Daly's.
    let (delta, m, r, tau, k) = (300u64, 3600.0, 600u64, 1800u64, 30u64);
    let life = Lifetime::new(Shape::Weibull { shape: 0.7 }, m).unwrap();
    let cfg = config(k * tau, tau, delta, r, Failures::Platform(life));
    let f: Estimate = simulate(&cfg, 3, 1500, 0, &|| {}).unwrap().wall_time_s;
    let daly = daly_wall((k * tau) as f64, tau as f64, delta as f64, r as f64, m);
    assert!(
        f.z(daly).is_some_and(|z| z < -4.0),
        "Weibull 0.7 {f:?} vs Daly {daly}"
    );
}

#[test]
fn partners_with_every_node_paired_need_two_failures_in_a_pair() {
    // 4 nodes all paired, node MTBF 10 h, 100 h of work: interruptions only when both nodes of
    // a pair are down before the next interruption; node failures far outnumber them.
    let node = Lifetime::exponential(36000.0).unwrap();
    let cfg = config(
        360000,
        3600,
        60,
        60,
        Failures::Nodes {
            node,
            nodes: 4,
            partners: 4,
        },
    );
    let f = simulate(&cfg, 11, 300, 0, &|| {}).unwrap();
    let nf = f.node_failures.unwrap();
    assert!(nf.point > 2.0 * f.failures.point, "{nf:?} {:?}", f.failures);
    let unpaired = Failures::Nodes {
        node,
        nodes: 4,
        partners: 0,
    };
    let g = simulate(&config(360000, 3600, 60, 60, unpaired), 11, 300, 0, &|| {}).unwrap();
    assert!(f.wall_time_s.point < g.wall_time_s.point);
    assert!(f.failures.point < 0.5 * g.failures.point);
}

#[test]
fn same_seed_same_run_whatever_the_order() {
    let cfg = config(36000, 1800, 300, 600, exp(3600.0));
    let a: Vec<_> = (0..20).map(|i| simulate_run(&cfg, 9, i).unwrap()).collect();
    let b: Vec<_> = (0..20)
        .rev()
        .map(|i| simulate_run(&cfg, 9, i).unwrap())
        .collect();
    assert!(a.iter().eq(b.iter().rev()));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn shape() -> impl Strategy<Value = Shape> {
        prop_oneof![
            Just(Shape::Exponential),
            (0.5f64..3.0).prop_map(|shape| Shape::Weibull { shape }),
            (0.5f64..3.0).prop_map(|shape| Shape::Gamma { shape }),
            (0.3f64..1.5).prop_map(|sigma| Shape::LogNormal { sigma }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Whatever the distribution and the failure path (platform, per-node, partners): the
        /// time splits exactly into work, checkpoint, restart and lost work; the work is all
        /// done; a failure-free run is the lower bound; failures bound node failures.
        #[test]
        fn time_splits_exactly(
            shape in shape(),
            work in 1u64..200_000,
            tau in 1u64..20_000,
            delta in 0u64..2_000,
            restart in 0u64..2_000,
            mtbf_per_segment in 2.0f64..50.0,
            nodes in 1u64..40,
            paired in 0u64..40,
            final_checkpoint in any::<bool>(),
            path in 0u8..3,
            run in 0u64..1000,
        ) {
            let m = mtbf_per_segment * (tau + delta + restart) as f64;
            let failures = match path {
                0 => Failures::Platform(Lifetime::new(shape, m).unwrap()),
                _ => Failures::Nodes {
                    node: Lifetime::new(shape, m * nodes as f64).unwrap(),
                    nodes,
                    partners: if path == 2 { paired.min(nodes) } else { 0 },
                },
            };
            let mut cfg = config(work, tau, delta, restart, failures);
            cfg.final_checkpoint = final_checkpoint;
            prop_assume!(cfg.validate().is_ok());
            let r = simulate_run(&cfg, 77, run).unwrap();
            prop_assert_eq!(r.wall, r.work + r.checkpoint + r.restart + r.lost_work);
            prop_assert_eq!(r.work, work * S);
            let segments = work.div_ceil(tau);
            let checkpoints = if final_checkpoint { segments } else { segments - 1 };
            prop_assert!(r.wall >= (work + checkpoints * delta) * S);
            prop_assert!(r.checkpoint >= checkpoints * delta * S);
            // Each failure starts one restart, which runs at most R.
            prop_assert!(r.restart <= r.failures * restart * S);
            prop_assert!(r.node_failures >= r.failures);
            if r.failures == 0 {
                prop_assert_eq!(r.wall, (work + checkpoints * delta) * S);
            }
        }
    }
}

//! Oracles from the papers and the spec's accuracy contract, through the public API.

use ckpt::failure::{Lifetime, Shape};
use ckpt::interval::{IntervalInputs, Replication, compute};
use ckpt::model::CostModel;
use ckpt::model::daly::{self, DalyComplete};
use ckpt::model::mtti::{mtti, mtti_numeric, mtti_two_replicas_exponential};
use ckpt::model::replicated::{self, Detect, Replicated, ReplicatedSystem};
use ckpt::model::young;
use ckpt::optimize::minimize;

const MIN: f64 = 60.0;
const HOUR: f64 = 3600.0;

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

/// Daly 2006's three systems (Figs. 3-5: delta = 5 min, R = 10 min): the MTBF, then in minutes
/// Young's interval, Daly's published higher-order one, and the complete model's exact optimum.
const DALY_2006: [(f64, f64, f64, f64); 3] = [
    (24.0 * HOUR, 120.0, 117.0, 116.69),
    (6.0 * HOUR, 60.0, 57.0, 56.71),
    (15.0 * MIN, 12.25, 9.1, 9.17),
];

#[test]
fn daly_published_higher_order_values() {
    for (mtbf, _, published, _) in DALY_2006 {
        let tau = daly::higher_order(5.0 * MIN, mtbf).interval.unwrap() / MIN;
        let digits = if published < 10.0 { 10.0 } else { 1.0 };
        assert_eq!(
            (tau * digits).round() / digits,
            published,
            "M = {mtbf}: {tau}"
        );
    }
}

#[test]
fn young_values() {
    for (mtbf, expected, _, _) in DALY_2006 {
        let tau = young::young(5.0 * MIN, mtbf).interval.unwrap() / MIN;
        assert!((tau - expected).abs() < 0.005, "{tau} vs {expected}");
    }
}

#[test]
fn exact_optima_of_the_complete_model() {
    for (mtbf, _, _, expected) in DALY_2006 {
        let m = DalyComplete::new(mtbf, 5.0 * MIN, 10.0 * MIN, 0.0).unwrap();
        let numeric = minimize(&m).unwrap().interval / MIN;
        let lambert = daly::exact_optimum(5.0 * MIN, mtbf) / MIN;
        assert!(
            (numeric - expected).abs() < 0.005,
            "{numeric} vs {expected}"
        );
        assert!(
            (lambert - expected).abs() < 0.005,
            "{lambert} vs {expected}"
        );
        // Through the whole `interval` computation too.
        let answer = compute(&IntervalInputs::single(mtbf, 5.0 * MIN, 10.0 * MIN)).unwrap();
        assert_eq!(answer.recommended, "daly-complete");
        assert!((answer.recommended_interval_s / MIN - expected).abs() < 0.005);
    }
}

/// delta/M from 1e-6 to 1.9, log-spaced.
fn ratio_grid() -> Vec<f64> {
    let (lo, hi): (f64, f64) = (1e-6, 1.9);
    (0..=60)
        .map(|i| lo * (hi / lo).powf(i as f64 / 60.0))
        .collect()
}

#[test]
fn optimizer_meets_the_contract_against_lambert_w() {
    for a in ratio_grid() {
        for (mtbf, restart, downtime) in [(3600.0, 0.0, 0.0), (86400.0, 600.0, 120.0)] {
            let m = DalyComplete::new(mtbf, a * mtbf, restart, downtime).unwrap();
            let opt = minimize(&m).unwrap();
            assert!(opt.converged, "a = {a}");
            let exact = m.exact_optimum();
            // The contract: interval within 1e-6 (1e-12 with the root polish), overhead 1e-12.
            assert!(
                rel(opt.interval, exact) < 1e-12,
                "a = {a}: {} vs {exact}",
                opt.interval
            );
            let true_min = m.overhead(exact).unwrap();
            assert!(rel(opt.overhead(), true_min) < 1e-12, "a = {a}");
        }
    }
}

#[test]
fn higher_order_converges_to_the_exact_optimum() {
    let mut previous = f64::INFINITY;
    for a in ratio_grid().into_iter().rev().filter(|a| *a < 1.5) {
        let mtbf = 1000.0;
        let ho = daly::higher_order(a * mtbf, mtbf).interval.unwrap();
        let err = rel(ho, daly::exact_optimum(a * mtbf, mtbf));
        // Daly's perturbation error shrinks with delta/M; at 1e-6 it is below 1e-7.
        assert!(
            err <= previous * 1.0001 + 1e-13,
            "a = {a}: {err} after {previous}"
        );
        previous = err;
    }
    assert!(previous < 1e-8, "{previous}");
}

fn exp_system(n: u64, r: u32, mean: f64) -> ReplicatedSystem {
    ReplicatedSystem::new(Lifetime::exponential(mean).unwrap(), n, r).unwrap()
}

#[test]
fn replicated_end_single_process_matches_its_closed_form() {
    for (delta, mtbf) in [(60.0, 3600.0), (1.0, 1e6), (500.0, 600.0), (3000.0, 1000.0)] {
        let m = Replicated::new(exp_system(1, 1, mtbf), delta, 0.0, Detect::End).unwrap();
        let opt = minimize(&m).unwrap();
        let exact = replicated::exact_end_single(delta, mtbf);
        assert!(
            rel(opt.interval, exact) < 1e-6,
            "{delta} {mtbf}: {} {exact}",
            opt.interval
        );
        assert!(rel(opt.overhead(), m.overhead(exact).unwrap()) < 1e-12);
    }
}

#[test]
fn replicated_immediate_single_process_without_restart_is_daly() {
    for a in [1e-4, 1e-2, 0.3, 1.5] {
        let mtbf = 7200.0;
        let rep =
            Replicated::new(exp_system(1, 1, mtbf), a * mtbf, 0.0, Detect::Immediate).unwrap();
        let daly = DalyComplete::new(mtbf, a * mtbf, 0.0, 0.0).unwrap();
        let (o1, o2) = (minimize(&rep).unwrap(), minimize(&daly).unwrap());
        assert!(rel(o1.interval, o2.interval) < 1e-6, "a = {a}");
        assert!(rel(o1.overhead(), o2.overhead()) < 1e-12, "a = {a}");
    }
}

#[test]
fn first_order_forms_converge_at_the_stated_rate() {
    // The relative error of the first-order forms falls like (delta/M)^(1/(r+1)): one
    // order of the ratio per r+1 orders of delta/M, slowly for r >= 2 (docs/models.md §4).
    for r in 1..=3u32 {
        for n in [1u64, 8, 64] {
            for detect in [Detect::End, Detect::Immediate] {
                let err = |a: f64| {
                    let mtbf = 1e6;
                    let m = Replicated::new(exp_system(n, r, mtbf), a * mtbf, 0.0, detect).unwrap();
                    let fo = match detect {
                        Detect::End => replicated::first_order_end(a * mtbf, mtbf, n, r),
                        Detect::Immediate => {
                            replicated::first_order_immediate(a * mtbf, mtbf, n, r)
                        }
                    };
                    rel(fo.interval.unwrap(), minimize(&m).unwrap().interval)
                };
                let (e6, e8, e10) = (err(1e-6), err(1e-8), err(1e-10));
                assert!(e10 < e8 && e8 < e6, "r={r} n={n} {detect}: {e6} {e8} {e10}");
                let expected = 100f64.powf(-1.0 / (r as f64 + 1.0));
                let ratio = e10 / e8;
                assert!(
                    ratio > 0.6 * expected && ratio < 1.5 * expected,
                    "r={r} n={n} {detect}: {ratio} vs {expected}"
                );
                if r >= 2 {
                    // Still a few tenths of a percent off at 1e-6.
                    assert!(e6 > 5e-4 && e6 < 2e-2, "r={r} n={n}: {e6}");
                }
            }
        }
    }
}

#[test]
fn restart_moves_the_immediate_optimum_by_about_eleven_percent() {
    // docs/models.md §4: R = 5 delta moves the optimum by 11% for n = 8, r = 2 (at delta/M = 1e-2).
    let (mtbf, delta) = (1e4, 100.0);
    let m0 = Replicated::new(exp_system(8, 2, mtbf), delta, 0.0, Detect::Immediate).unwrap();
    let m5 = Replicated::new(
        exp_system(8, 2, mtbf),
        delta,
        5.0 * delta,
        Detect::Immediate,
    )
    .unwrap();
    let shift = 1.0 - minimize(&m5).unwrap().interval / minimize(&m0).unwrap().interval;
    assert!(shift > 0.09 && shift < 0.13, "{shift}");
}

#[test]
fn mtti_closed_form_for_two_replicas() {
    for (n, expected) in [(1u64, 1.5), (2, 0.9166667), (10, 0.3337731928)] {
        let closed = mtti_two_replicas_exponential(1.0, n);
        assert!((closed - expected).abs() < 1e-7, "{n}: {closed}");
        // mtti() returns the closed form for r = 2; the log-time quadrature is the check.
        assert_eq!(mtti(&exp_system(n, 2, 1.0)), closed);
        let numeric = mtti_numeric(&exp_system(n, 2, 1.0));
        assert!(rel(numeric, closed) < 1e-10, "{n}: {numeric} {closed}");
    }
    // Large n: the closed form's ratio 4^n / C(2n, n) ~ sqrt(pi n).
    let closed = mtti_two_replicas_exponential(1.0, 1000);
    assert!(rel(mtti_numeric(&exp_system(1000, 2, 1.0)), closed) < 1e-9);
}

#[test]
fn replicated_rows_and_recommendation() {
    let mut inputs = IntervalInputs::single(HOUR, 60.0, 120.0);
    inputs.replication = Some(Replication {
        procs: 8,
        replicas: 2,
        detect: Detect::Immediate,
        shape: Shape::Exponential,
    });
    let a = compute(&inputs).unwrap();
    let names: Vec<_> = a.rows.iter().map(|r| r.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "young-mtti",
            "daly-first-order-mtti",
            "daly-higher-order-mtti",
            "daly-complete-mtti",
            "replicated-end-first-order",
            "replicated-immediate-first-order",
            "replicated-end",
            "replicated-immediate"
        ]
    );
    assert_eq!(a.recommended, "replicated-immediate");
    let mtti_s = a.mtti_s.unwrap();
    // 3600 (1 + 4^8 / C(16, 8)) / 16, with C(16, 8) = 12870.
    assert!(rel(mtti_s, HOUR * (1.0 + 65536.0 / 12870.0) / 16.0) < 1e-15);
    // Every row's loss is measured against the recommended optimum: none is negative.
    for r in &a.rows {
        assert!(r.loss_pct.unwrap() >= 0.0, "{}", r.name);
    }
}

#[test]
fn a_million_processes_with_a_short_mtbf_get_a_finite_answer_or_a_clear_error() {
    for (r, detect) in [
        (1u32, Detect::End),
        (2, Detect::End),
        (2, Detect::Immediate),
        (3, Detect::Immediate),
    ] {
        let mut inputs = IntervalInputs::single(HOUR, 60.0, 60.0);
        inputs.replication = Some(Replication {
            procs: 1_000_000,
            replicas: r,
            detect,
            shape: Shape::Exponential,
        });
        match compute(&inputs) {
            Ok(a) => {
                assert!(a.recommended_overhead.is_finite());
                for row in &a.rows {
                    for v in [
                        row.interval_s,
                        row.overhead,
                        row.efficiency,
                        row.loss_pct,
                        row.expected_failures,
                    ] {
                        assert!(v.is_none_or(|x| x.is_finite()), "{}", row.name);
                    }
                }
            }
            Err(e) => assert!(e.to_string().contains("no interval makes progress"), "{e}"),
        }
    }
}

#[test]
fn non_exponential_lifetimes_work_through_the_replicated_model() {
    for shape in [
        Shape::Weibull { shape: 0.7 },
        Shape::Gamma { shape: 2.0 },
        Shape::LogNormal { sigma: 1.2 },
    ] {
        let mut inputs = IntervalInputs::single(6.0 * HOUR, 300.0, 600.0);
        inputs.replication = Some(Replication {
            procs: 16,
            replicas: 2,
            detect: Detect::Immediate,
            shape,
        });
        let a = compute(&inputs).unwrap();
        assert!(
            a.recommended_interval_s > 0.0 && a.recommended_overhead > 1.0,
            "{shape}"
        );
        assert!(a.mtti_s.unwrap() > 0.0);
    }
}

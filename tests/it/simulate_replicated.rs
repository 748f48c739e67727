//! The replicated simulator against the volunteer-grid model (docs/models.md §4), with fixed seeds
//! and |z| < 4 (docs/simulation.md §4); and where the model's assumptions break (aging, a heartbeat
//! delay), a pinned difference larger than the error bars.
//!
//! Model, per interval of wall time T = tau + delta, with S(t) = [1 - (1 - f(t))^r]^n:
//! `end`: G = T / S(T); `immediate`: G = (int_0^T S dt + R (1 - S(T))) / S(T).
//! For k whole intervals the expected wall time is k G.

use crate::common::assert_agrees;
use ckpt::failure::{Lifetime, Shape};
use ckpt::sim::replicated::{Detect, ReplicatedConfig, simulate, simulate_run};
use ckpt::units::Nanos;

const S: Nanos = 1_000_000_000;

fn survival(life: &Lifetime, n: u64, r: u64, t: f64) -> f64 {
    let f = life.sf(t);
    (1.0 - (1.0 - f).powi(r as i32)).powi(n as i32)
}

/// Composite Simpson on [0, t] with 4000 panels: the integrand is smooth and monotone.
fn integral_s(life: &Lifetime, n: u64, r: u64, t: f64) -> f64 {
    let panels = 4000;
    let h = t / panels as f64;
    let mut sum = survival(life, n, r, 0.0) + survival(life, n, r, t);
    for i in 1..panels {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        sum += w * survival(life, n, r, i as f64 * h);
    }
    sum * h / 3.0
}

fn g_end(life: &Lifetime, n: u64, r: u64, t: f64) -> f64 {
    t / survival(life, n, r, t)
}

fn g_immediate(life: &Lifetime, n: u64, r: u64, t: f64, restart: f64) -> f64 {
    let s = survival(life, n, r, t);
    (integral_s(life, n, r, t) + restart * (1.0 - s)) / s
}

/// The replica MTBF at which an interval of `t` seconds survives with probability `s`.
fn mtbf_for(n: u64, r: u64, t: f64, s: f64) -> f64 {
    let per_process = s.powf(1.0 / n as f64);
    let f = 1.0 - (1.0 - per_process).powf(1.0 / r as f64);
    t / -f.ln()
}

fn config(n: u64, r: u64, life: Lifetime, detect: Detect, k: u64) -> ReplicatedConfig {
    ReplicatedConfig {
        work: k * 600 * S,
        interval: 600 * S,
        cost: 60 * S,
        procs: n,
        replicas: r,
        lifetime: life,
        detect,
        restart: 0,
        heartbeat: 0,
        aging: false,
        walltime: None,
    }
}

const K: u64 = 12;
const T: f64 = 660.0;

#[test]
fn end_mode_agrees_with_t_over_s() {
    for (i, n) in [1u64, 8, 64].into_iter().enumerate() {
        for r in 1..=3u64 {
            let life = Lifetime::exponential(mtbf_for(n, r, T, 0.6)).unwrap();
            let cfg = config(n, r, life, Detect::End, K);
            let f = simulate(&cfg, 100 + 10 * i as u64 + r, 600, 0, &|| {}).unwrap();
            let expected = K as f64 * g_end(&life, n, r, T);
            assert_agrees(&f.wall_time_s, expected, &format!("n {n} r {r}"));
            // Attempts per interval: geometric with success S(T).
            let attempts = K as f64 / survival(&life, n, r, T);
            assert_agrees(&f.attempts, attempts, &format!("n {n} r {r}: attempts"));
        }
    }
}

#[test]
fn immediate_mode_agrees_with_its_variant() {
    for (i, n) in [1u64, 8, 64].into_iter().enumerate() {
        for r in 1..=3u64 {
            let life = Lifetime::exponential(mtbf_for(n, r, T, 0.6)).unwrap();
            // With and without a restart cost.
            let restart = if r == 2 { 0.0 } else { 120.0 };
            let cfg = ReplicatedConfig {
                restart: restart as u64 * S,
                ..config(n, r, life, Detect::Immediate, K)
            };
            let f = simulate(&cfg, 200 + 10 * i as u64 + r, 600, 0, &|| {}).unwrap();
            let expected = K as f64 * g_immediate(&life, n, r, T, restart);
            let case = format!("n {n} r {r} R {restart}");
            assert_agrees(&f.wall_time_s, expected, &case);
        }
    }
}

#[test]
fn fresh_weibull_agrees_with_the_model_and_aging_does_not() {
    // Weibull shape 0.7 (infant mortality): without aging every attempt starts from fresh
    // lifetimes, the model's assumption, and the mean agrees. With aging the survivors of
    // committed intervals are past their most dangerous age: the job finishes measurably sooner.
    let (n, r, k) = (8, 2, 30);
    let life = Lifetime::new(Shape::Weibull { shape: 0.7 }, 7200.0).unwrap();
    let expected = k as f64 * g_end(&life, n, r, T);
    let fresh = simulate(&config(n, r, life, Detect::End, k), 31, 600, 0, &|| {}).unwrap();
    assert_agrees(&fresh.wall_time_s, expected, "fresh");
    let aging = ReplicatedConfig {
        aging: true,
        ..config(n, r, life, Detect::End, k)
    };
    let aged = simulate(&aging, 31, 600, 0, &|| {}).unwrap();
    let z = aged.wall_time_s.z(expected).expect("runs with a spread");
    assert!(
        z < -4.0,
        "aging {:?} vs model {expected} (z {z})",
        aged.wall_time_s
    );
    assert!(aged.wall_time_s.ci95[1] < expected);
}

#[test]
fn a_heartbeat_delay_costs_more_than_the_immediate_model_says() {
    let (n, r) = (8, 2);
    let life = Lifetime::exponential(mtbf_for(n, r, T, 0.7)).unwrap();
    let expected = 30.0 * g_immediate(&life, n, r, T, 60.0);
    let cfg = ReplicatedConfig {
        restart: 60 * S,
        heartbeat: 120 * S,
        ..config(n, r, life, Detect::Immediate, 30)
    };
    let f = simulate(&cfg, 41, 600, 0, &|| {}).unwrap();
    let z = f.wall_time_s.z(expected).expect("runs with a spread");
    assert!(
        z > 4.0,
        "heartbeat {:?} vs immediate model {expected} (z {z})",
        f.wall_time_s
    );
    assert!(f.wall_time_s.ci95[0] > expected);
}

#[test]
fn a_heartbeat_longer_than_the_attempt_is_end_mode() {
    // The checkpoint at the end of the attempt finds the dead process anyway: with R = 0 and
    // h >= T every run is the same as in `end` mode, number for number.
    let life = Lifetime::exponential(mtbf_for(8, 2, T, 0.6)).unwrap();
    let end = config(8, 2, life, Detect::End, K);
    let late = ReplicatedConfig {
        heartbeat: 660 * S,
        ..config(8, 2, life, Detect::Immediate, K)
    };
    for run in 0..50 {
        assert_eq!(
            simulate_run(&end, 5, run).unwrap(),
            simulate_run(&late, 5, run).unwrap()
        );
    }
}

#[test]
fn aging_with_exponential_lifetimes_changes_nothing_in_law() {
    let life = Lifetime::exponential(mtbf_for(8, 2, T, 0.6)).unwrap();
    let cfg = ReplicatedConfig {
        aging: true,
        ..config(8, 2, life, Detect::End, K)
    };
    let f = simulate(&cfg, 51, 600, 0, &|| {}).unwrap();
    let expected = K as f64 * g_end(&life, 8, 2, T);
    assert_agrees(&f.wall_time_s, expected, "wall time");
}

#[test]
fn walltime_fraction_in_end_mode_is_the_chance_of_no_lost_attempt() {
    let life = Lifetime::exponential(mtbf_for(8, 2, T, 0.9)).unwrap();
    let mut cfg = config(8, 2, life, Detect::End, 5);
    cfg.walltime = Some(5 * 660 * S);
    let f = simulate(&cfg, 61, 1000, 0, &|| {}).unwrap();
    let e = f.finished_within_walltime.unwrap();
    let p = survival(&life, 8, 2, T).powi(5);
    assert_agrees(&e, p, "finished within the walltime");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Counts that must hold in every mode and for every distribution: attempts are the
        /// intervals plus the lost ones; every loss recreates all replicas and saw at least one
        /// whole process die; wall time is at least the failure-free time, exactly it in `end`
        /// mode with attempts times the attempt length when every interval is whole.
        #[test]
        fn counts_hold(
            n in 1u64..10, r in 1u64..4, k in 1u64..8,
            weibull in 0.5f64..2.0, aging in any::<bool>(),
            immediate in any::<bool>(), restart in 0u64..100, heartbeat in 0u64..300,
            survive in 0.3f64..0.95, run in 0u64..1000,
        ) {
            let mean = mtbf_for(n, r, T, survive);
            let life = Lifetime::new(Shape::Weibull { shape: weibull }, mean).unwrap();
            let cfg = if immediate {
                ReplicatedConfig {
                    restart: restart * S,
                    heartbeat: heartbeat * S,
                    aging,
                    ..config(n, r, life, Detect::Immediate, k)
                }
            } else {
                ReplicatedConfig { aging, ..config(n, r, life, Detect::End, k) }
            };
            let o = simulate_run(&cfg, 3, run).unwrap();
            let nr = n * r;
            prop_assert_eq!(o.attempts, k + o.lost_attempts);
            let lost_deaths = o.replica_deaths + o.lost_attempts * nr - o.replicas_recreated;
            prop_assert!(lost_deaths >= r * o.lost_attempts && lost_deaths <= nr * o.lost_attempts);
            prop_assert!(o.wall >= k * 660 * S);
            if !immediate {
                prop_assert_eq!(o.wall, o.attempts * 660 * S);
            }
        }
    }
}

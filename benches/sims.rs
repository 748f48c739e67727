//! Simulated events per second of each simulator, and the headline periodic run: 131072 nodes
//! of MTBF 5 years, 168 h of work, delta 5 min, R 10 min (target: under 5 ms per run).
//!
//! Each benchmark replays one fixed run (seed 42, run 0), so its event count is exact and the
//! reported throughput (elem/s) is simulated events per second.

use ckpt::Scenario;
use ckpt::failure::{Lifetime, Shape};
use ckpt::sim::periodic::{self, Failures, PeriodicConfig};
use ckpt::sim::replicated::{self, Detect, ReplicatedConfig};
use ckpt::units::Nanos;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const S: Nanos = 1_000_000_000;
const YEAR: f64 = 365.25 * 86400.0;

fn periodic_cfg(failures: Failures, interval: Nanos) -> PeriodicConfig {
    PeriodicConfig {
        work: 168 * 3600 * S,
        interval,
        cost: 300 * S,
        restart: 600 * S,
        failures,
        final_checkpoint: true,
        walltime: None,
        asynchronous: None,
        signal_lead: None,
    }
}

fn bench_periodic(c: &mut Criterion) {
    let mut g = c.benchmark_group("periodic");
    // System MTBF 5 y / 131072 = 1203.8 s; Daly's first order sqrt(2 delta (M + R)) - delta = 740 s.
    let exp = Lifetime::exponential(5.0 * YEAR).unwrap();
    let weibull = Lifetime::new(Shape::Weibull { shape: 0.7 }, 5.0 * YEAR).unwrap();
    let cases = [
        (
            "131072_nodes_exp",
            periodic_cfg(
                Failures::Nodes {
                    node: exp,
                    nodes: 131072,
                    partners: 0,
                },
                740 * S,
            ),
        ),
        (
            "4096_nodes_weibull0.7",
            periodic_cfg(
                Failures::Nodes {
                    node: weibull,
                    nodes: 4096,
                    partners: 0,
                },
                3600 * S,
            ),
        ),
        (
            "4096_nodes_4096_partners_exp",
            periodic_cfg(
                Failures::Nodes {
                    node: exp,
                    nodes: 4096,
                    partners: 4096,
                },
                3600 * S,
            ),
        ),
        (
            "131072_nodes_weibull0.7",
            periodic_cfg(
                Failures::Nodes {
                    node: weibull,
                    nodes: 131072,
                    partners: 0,
                },
                740 * S,
            ),
        ),
    ];
    for (name, cfg) in cases {
        cfg.validate().unwrap();
        let run = periodic::simulate_run(&cfg, 42, 0).unwrap();
        eprintln!(
            "periodic/{name}: {} events, {} failures, wall {:.1} h",
            run.events,
            run.failures,
            run.wall as f64 / 3.6e12
        );
        g.throughput(Throughput::Elements(run.events));
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| periodic::simulate_run(black_box(&cfg), 42, 0).unwrap())
        });
    }
    g.finish();
}

fn bench_replicated(c: &mut Criterion) {
    let mut g = c.benchmark_group("replicated");
    let exp = Lifetime::exponential(24.0 * 3600.0).unwrap();
    let weibull = Lifetime::new(Shape::Weibull { shape: 0.7 }, 24.0 * 3600.0).unwrap();
    let base = ReplicatedConfig {
        work: 100 * 3600 * S,
        interval: 600 * S,
        cost: 60 * S,
        procs: 64,
        replicas: 2,
        lifetime: exp,
        detect: Detect::End,
        restart: 0,
        heartbeat: 0,
        aging: false,
        walltime: None,
    };
    let cases = [
        ("end_n64_r2", base.clone()),
        (
            "immediate_n64_r2",
            ReplicatedConfig {
                detect: Detect::Immediate,
                restart: 120 * S,
                heartbeat: 30 * S,
                ..base.clone()
            },
        ),
        (
            "end_n64_r2_weibull0.7_aging",
            ReplicatedConfig {
                lifetime: weibull,
                aging: true,
                ..base.clone()
            },
        ),
        (
            "end_n8_r3",
            ReplicatedConfig {
                procs: 8,
                replicas: 3,
                ..base.clone()
            },
        ),
    ];
    for (name, cfg) in cases {
        cfg.validate().unwrap();
        let run = replicated::simulate_run(&cfg, 42, 0).unwrap();
        eprintln!(
            "replicated/{name}: {} events, {} attempts",
            run.events, run.attempts
        );
        g.throughput(Throughput::Elements(run.events));
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| replicated::simulate_run(black_box(&cfg), 42, 0).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_periodic, bench_replicated);
criterion_main!(benches);

//! How long each model takes: estimators (closed forms) and numerical optima.

use ckpt::failure::{Lifetime, Shape};
use ckpt::model::daly::{self, DalyComplete};
use ckpt::model::replicated::{self, Detect, Replicated, ReplicatedSystem};
use ckpt::model::young;
use ckpt::optimize::minimize;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn estimators(c: &mut Criterion) {
    let (d, m, r) = (300.0, 86400.0, 600.0);
    let mut g = c.benchmark_group("estimator");
    g.bench_function("young", |b| {
        b.iter(|| young::young(black_box(d), black_box(m)))
    });
    g.bench_function("daly-first-order", |b| {
        b.iter(|| daly::first_order(black_box(d), black_box(m), black_box(r)))
    });
    g.bench_function("daly-higher-order", |b| {
        b.iter(|| daly::higher_order(black_box(d), black_box(m)))
    });
    g.bench_function("daly-exact-lambert-w", |b| {
        b.iter(|| daly::exact_optimum(black_box(d), black_box(m)))
    });
    g.bench_function("replicated-end-first-order", |b| {
        b.iter(|| {
            replicated::first_order_end(
                black_box(60.0),
                black_box(3600.0),
                black_box(64),
                black_box(2),
            )
        })
    });
    g.bench_function("replicated-immediate-first-order", |b| {
        b.iter(|| {
            replicated::first_order_immediate(
                black_box(60.0),
                black_box(3600.0),
                black_box(64),
                black_box(2),
            )
        })
    });
    g.finish();
}

fn optima(c: &mut Criterion) {
    let mut g = c.benchmark_group("optimum");
    let daly = DalyComplete::new(86400.0, 300.0, 600.0, 0.0).unwrap();
    g.bench_function("daly-complete", |b| {
        b.iter(|| minimize(black_box(&daly)).unwrap())
    });
    let exp = |n, r| ReplicatedSystem::new(Lifetime::exponential(3600.0).unwrap(), n, r).unwrap();
    let weibull = ReplicatedSystem::new(
        Lifetime::new(Shape::Weibull { shape: 0.7 }, 3600.0).unwrap(),
        64,
        2,
    )
    .unwrap();
    for (name, system, restart, detect) in [
        ("replicated-end-n64-r2", exp(64, 2), 0.0, Detect::End),
        (
            "replicated-immediate-n64-r1-closed",
            exp(64, 1),
            120.0,
            Detect::Immediate,
        ),
        (
            "replicated-immediate-n64-r2-quadrature",
            exp(64, 2),
            120.0,
            Detect::Immediate,
        ),
        (
            "replicated-immediate-n1024-r3-quadrature",
            exp(1024, 3),
            120.0,
            Detect::Immediate,
        ),
        (
            "replicated-immediate-n64-r2-weibull",
            weibull,
            120.0,
            Detect::Immediate,
        ),
    ] {
        let model = Replicated::new(system, 60.0, restart, detect).unwrap();
        g.bench_function(name, |b| b.iter(|| minimize(black_box(&model)).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, estimators, optima);
criterion_main!(benches);

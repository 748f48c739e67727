//! How long the renewal model takes (`docs/models.md` §13): one optimal schedule (two grids and
//! the shifted one, the error measurement included) and the best periodic interval, for a 24 h
//! MTBF, a 10 min checkpoint and a 10 min restart. The target is under 50 ms per schedule.

use ckpt::failure::{Lifetime, Shape};
use ckpt::model::renewal::Renewal;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn shapes() -> [(&'static str, Shape); 5] {
    [
        ("exp", Shape::Exponential),
        ("weibull-0.7", Shape::Weibull { shape: 0.7 }),
        ("weibull-1.5", Shape::Weibull { shape: 1.5 }),
        ("gamma-0.5", Shape::Gamma { shape: 0.5 }),
        ("lognormal-1.5", Shape::LogNormal { sigma: 1.5 }),
    ]
}

fn job(shape: Shape) -> Renewal {
    Renewal::new(Lifetime::new(shape, 86400.0).unwrap(), 600.0, 600.0).unwrap()
}

fn schedule(c: &mut Criterion) {
    let mut g = c.benchmark_group("renewal-schedule");
    g.sample_size(20);
    for (name, shape) in shapes() {
        let j = job(shape);
        g.bench_function(name, |b| b.iter(|| black_box(&j).schedule().unwrap()));
    }
    g.finish();
}

fn periodic(c: &mut Criterion) {
    let mut g = c.benchmark_group("renewal-periodic");
    g.sample_size(20);
    for (name, shape) in shapes() {
        let j = job(shape);
        g.bench_function(name, |b| b.iter(|| black_box(&j).best_periodic().unwrap()));
    }
    g.finish();
}

criterion_group!(benches, schedule, periodic);
criterion_main!(benches);

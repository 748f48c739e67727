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

/// The group `group`: `f` on the job of each failure shape.
fn per_shape<T>(c: &mut Criterion, group: &str, f: impl Fn(&Renewal) -> T) {
    let mut g = c.benchmark_group(group);
    g.sample_size(20);
    for (name, shape) in shapes() {
        let j = job(shape);
        g.bench_function(name, |b| b.iter(|| f(black_box(&j))));
    }
    g.finish();
}

fn schedule(c: &mut Criterion) {
    per_shape(c, "renewal-schedule", |j| j.schedule().unwrap());
}

fn periodic(c: &mut Criterion) {
    per_shape(c, "renewal-periodic", |j| j.best_periodic().unwrap());
}

criterion_group!(benches, schedule, periodic);
criterion_main!(benches);

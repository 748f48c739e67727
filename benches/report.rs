//! How long the report layer takes to lay out a plot of many points: the drawing order of
//! coinciding series once compared every point of a series with every point of another.

use ckpt::interval::IntervalInputs;
use ckpt::report::plot::layout;
use ckpt::report::sweep::plots;
use ckpt::sweep::{self, SweepSpec};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn sweep_layout(c: &mut Criterion) {
    let mut g = c.benchmark_group("plot-layout");
    g.sample_size(10);
    for points in [2_000usize, 20_000] {
        let inputs = IntervalInputs::single(86400.0, 300.0, 0.0);
        let spec = SweepSpec::parse("mtbf=1h..2d", points, false).unwrap();
        let result = sweep::run(&inputs, &spec, &|| {}).unwrap();
        let prepared = plots(&result);
        g.bench_function(format!("sweep-mtbf-{points}-points"), |b| {
            b.iter(|| {
                for p in &prepared {
                    black_box(layout(black_box(p)));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, sweep_layout);
criterion_main!(benches);

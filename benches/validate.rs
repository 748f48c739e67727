//! A 1000-run validation on a 25-point grid (delta = 5 min, M = 6 h), on 1 and 2 threads.

use ckpt::interval::IntervalInputs;
use ckpt::validate::{self, SimKind, SimOptions};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn validation(c: &mut Criterion) {
    let inputs = IntervalInputs::single(6.0 * 3600.0, 300.0, 600.0);
    let options = SimOptions {
        work_s: 100.0 * 3600.0,
        runs: 1000,
        seed: 42,
        grid_points: 25,
        aging: false,
        heartbeat_s: 0.0,
    };
    let mut g = c.benchmark_group("validate-1000-runs-25-points");
    g.sample_size(10);
    for threads in [1, 2] {
        g.bench_function(format!("threads-{threads}"), |b| {
            b.iter(|| {
                validate::run(
                    black_box(&inputs),
                    SimKind::Periodic,
                    &options,
                    threads,
                    &|| {},
                )
                .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, validation);
criterion_main!(benches);

//! Speed of the stencil simulator: one 256 x 256, 128-worker run with the five-failure trace
//! (target: under 50 ms on one core), and 1000 such runs in parallel on 2 threads (target:
//! under 60 s).

use ckpt::rng::run_rng;
use ckpt::sim::engine::{Nanos, run_parallel};
use ckpt::sim::stencil::config::{TraceFailure, trace_failures};
use ckpt::sim::stencil::run::FailureStream;
use ckpt::sim::stencil::{Failures, Recovery, StencilConfig, layout, simulate};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

fn paper(level: u32, recovery: Recovery) -> StencilConfig {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/paper/five-failures.csv"
    ))
    .unwrap();
    let trace: Vec<TraceFailure> = trace_failures(&text, "five-failures.csv", 128).unwrap();
    let ms: Nanos = 1_000_000;
    StencilConfig {
        width: 256,
        rows: 256,
        workers: 128,
        level,
        checkpoint: true,
        recovery,
        process_cost: 7_100 * ms,
        backup_cost: 1_300_000,
        transfer_cost: 1_300_000,
        failures: Failures::Trace(trace),
        output_bytes: None,
    }
}

fn one_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("stencil_one_run_5_failures");
    g.sample_size(30);
    for level in [1, 6] {
        for recovery in [Recovery::Global, Recovery::Dependency] {
            let cfg = paper(level, recovery);
            let l = layout(&cfg);
            g.bench_function(format!("L{level}_{}", recovery.name()), |b| {
                b.iter(|| {
                    black_box(
                        simulate(&l, &cfg, FailureStream::new(&cfg, run_rng(0, 0)))
                            .unwrap()
                            .makespan,
                    )
                })
            });
        }
    }
    let cfg = paper(6, Recovery::Global);
    g.bench_function("layout_build", |b| {
        b.iter(|| black_box(layout(&cfg).tri_of.len()))
    });
    g.finish();
}

fn thousand_runs(c: &mut Criterion) {
    let mut g = c.benchmark_group("stencil_1000_runs_2_threads");
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(20));
    // The slowest of the four settings on the trace; the layout is built once, as the CLI does.
    let cfg = paper(6, Recovery::Global);
    g.bench_function("L6_global", |b| {
        b.iter(|| {
            let l = layout(&cfg);
            let v = run_parallel(1000, 2, &|| {}, |i| {
                simulate(&l, &cfg, FailureStream::new(&cfg, run_rng(0, i)))
                    .unwrap()
                    .makespan
            });
            black_box(v.len())
        })
    });
    g.finish();
}

criterion_group!(benches, one_run, thousand_runs);
criterion_main!(benches);

//! Speed of the stencil simulator on the paper's setting: 256 x 256 tasks, 128 workers, the
//! five-failure trace. What a user pays for one `ckpt simulate stencil` run is the layout,
//! built cold, plus the run; so the benchmarks time:
//!
//! - `stencil_layout_cold/L1`, `L6`: building the layout (the tables every run reads), from
//!   nothing, each iteration;
//! - `stencil_whole_run/L{level}_{strategy}`: the layout and one run, levels 1 to 6, both
//!   strategies (level 1 is the slowest: every task is a checkpoint task);
//! - `stencil_1000_runs_2_threads/L6_global`: 1000 runs in parallel on 2 threads over one
//!   layout, as `--runs 1000` does (target: under 60 s);
//! - `stencil_sparse_workers/2^20_workers`: one run of 64 x 64 tasks of a day each on 2^20
//!   workers under a Poisson MTBF of 30 min (about 3000 failures), where nearly every worker
//!   is idle: what each failure's recovery step costs when it must not walk every worker.

use ckpt::rng::run_rng;
use ckpt::sim::engine::run_parallel;
use ckpt::sim::stencil::config::{TraceFailure, trace_failures};
use ckpt::sim::stencil::run::FailureStream;
use ckpt::sim::stencil::{Failures, Recovery, StencilConfig, layout, simulate};
use ckpt::units::Nanos;
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

fn layout_cold(c: &mut Criterion) {
    let mut g = c.benchmark_group("stencil_layout_cold");
    g.sample_size(30);
    for level in [1, 6] {
        let cfg = paper(level, Recovery::Global);
        g.bench_function(format!("L{level}"), |b| {
            b.iter(|| black_box(layout(black_box(&cfg)).triangles()))
        });
    }
    g.finish();
}

fn whole_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("stencil_whole_run");
    g.sample_size(20);
    for level in 1..=6 {
        for recovery in [Recovery::Global, Recovery::Dependency] {
            let cfg = paper(level, recovery);
            g.bench_function(format!("L{level}_{}", recovery.name()), |b| {
                b.iter(|| {
                    let l = layout(black_box(&cfg));
                    black_box(
                        simulate(&l, &cfg, FailureStream::new(&cfg, run_rng(0, 0)))
                            .unwrap()
                            .makespan,
                    )
                })
            });
        }
    }
    g.finish();
}

fn thousand_runs(c: &mut Criterion) {
    let mut g = c.benchmark_group("stencil_1000_runs_2_threads");
    g.sample_size(10);
    g.measurement_time(std::time::Duration::from_secs(20));
    // The layout is built once, as the CLI does.
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

fn sparse_workers(c: &mut Criterion) {
    let mut g = c.benchmark_group("stencil_sparse_workers");
    g.sample_size(10);
    let s: Nanos = 1_000_000_000;
    let cfg = StencilConfig {
        width: 64,
        rows: 64,
        workers: 1 << 20,
        level: 3,
        recovery: Recovery::Dependency,
        process_cost: 86_400 * s,
        failures: Failures::Poisson { mtbf: 1800 * s },
        ..paper(3, Recovery::Dependency)
    };
    let l = layout(&cfg);
    g.bench_function("2^20_workers", |b| {
        b.iter(|| {
            black_box(
                simulate(&l, &cfg, FailureStream::new(&cfg, run_rng(0, 0)))
                    .unwrap()
                    .makespan,
            )
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    layout_cold,
    whole_run,
    thousand_runs,
    sparse_workers
);
criterion_main!(benches);

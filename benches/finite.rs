//! The finite-job models of `ckpt interval`: the asynchronous optimum (one Brent minimization
//! of §11's overhead), the finite job's expected wall time, the allocation's optimum (a search
//! over checkpoint counts, each a backward solution on a grid) and one evaluation of it, and
//! the whole-chunk optimum.

use ckpt::model::allocation::Allocation;
use ckpt::model::asynchronous::AsyncComplete;
use ckpt::model::chunks::FiniteJob;
use ckpt::optimize::minimize;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const H: f64 = 3600.0;

fn finite(c: &mut Criterion) {
    let mut g = c.benchmark_group("finite");
    // The README's ML-training example: M = 3 h, 60 s snapshot, 10 min write.
    let asy = AsyncComplete::new(3.0 * H, 60.0, 0.0, 0.0, 600.0, 0.0).unwrap();
    g.bench_function("async-optimum", |b| {
        b.iter(|| minimize(black_box(&asy)).unwrap())
    });
    let slowed = AsyncComplete::new(3.0 * H, 60.0, 120.0, 30.0, 600.0, 0.1).unwrap();
    g.bench_function("async-optimum-slowdown", |b| {
        b.iter(|| minimize(black_box(&slowed)).unwrap())
    });
    // A write longer than the optimum: the wait rule's branch.
    let long = AsyncComplete::new(3.0 * H, 60.0, 0.0, 0.0, 2000.0, 0.0).unwrap();
    g.bench_function("async-optimum-wait-rule", |b| {
        b.iter(|| minimize(black_box(&long)).unwrap())
    });
    g.bench_function("async-expected-wall-100h", |b| {
        b.iter(|| asy.expected_wall(black_box(100.0 * H), 1099.0).unwrap())
    });
    // A 24 h allocation, M = 6 h, C = R = 5 min (the README's Slurm example), and a 12 h one.
    let day = Allocation::new(6.0 * H, 300.0, 300.0, 0.0, 24.0 * H, 0.0).unwrap();
    g.bench_function("allocation-optimum-24h", |b| {
        b.iter(|| black_box(&day).optimum().unwrap())
    });
    let half = Allocation::new(3.0 * H, 120.0, 60.0, 0.0, 12.0 * H, 0.0).unwrap();
    g.bench_function("allocation-optimum-12h", |b| {
        b.iter(|| black_box(&half).optimum().unwrap())
    });
    // A week of 10 s checkpoints: steps of 1/64 of a 278 s period, about 139,000 per
    // evaluation (483,840 steps of 1.25 s while the grid followed the cost).
    let week = Allocation::new(H, 10.0, 0.0, 0.0, 7.0 * 24.0 * H, 0.0).unwrap();
    g.bench_function("allocation-optimum-7d-10s", |b| {
        b.iter(|| black_box(&week).optimum().unwrap())
    });
    g.bench_function("allocation-saved-work-one-interval", |b| {
        b.iter(|| half.expected_saved_work(black_box(1541.5)))
    });
    let job = FiniteJob::new(10.0 * 24.0 * H, 24.0 * H, 600.0, 600.0, 60.0).unwrap();
    g.bench_function("whole-chunks-optimum", |b| {
        b.iter(|| black_box(&job).optimum().unwrap())
    });
    g.finish();
}

criterion_group!(benches, finite);
criterion_main!(benches);

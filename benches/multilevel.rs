//! The multi-level optimum (issue 14: under a millisecond for three levels), and what it is
//! made of: one exact evaluation of a period and the first-order stride search.

use ckpt::model::multilevel::{Level, Levels, Pattern};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const H: f64 = 3600.0;

/// A realistic machine: node-local SSD, a partner copy, the parallel file system.
fn three() -> Levels {
    Levels::new(
        vec![
            Level::new("local", 5.0, 10.0, Some(3.0 * H)),
            Level::new("partner", 30.0, 60.0, Some(24.0 * H)),
            Level::new("pfs", 600.0, 900.0, Some(7.0 * 24.0 * H)),
        ],
        0.0,
    )
    .unwrap()
}

fn multilevel(c: &mut Criterion) {
    let mut g = c.benchmark_group("multilevel");
    let levels = three();
    g.bench_function("optimum-three-levels", |b| {
        b.iter(|| black_box(&levels).optimize().unwrap())
    });
    let two = Levels::new(
        vec![
            Level::new("local", 5.0, 5.0, Some(3000.0 * H)),
            Level::new("pfs", 300.0, 300.0, Some(24000.0 * H)),
        ],
        0.0,
    )
    .unwrap();
    g.bench_function("optimum-two-levels-issue", |b| {
        b.iter(|| black_box(&two).optimize().unwrap())
    });
    let four = Levels::new(
        vec![
            Level::new("local", 2.0, 4.0, Some(2.0 * H)),
            Level::new("partner", 10.0, 20.0, Some(12.0 * H)),
            Level::new("rs", 40.0, 80.0, Some(48.0 * H)),
            Level::new("pfs", 600.0, 900.0, Some(14.0 * 24.0 * H)),
        ],
        60.0,
    )
    .unwrap();
    g.bench_function("optimum-four-levels", |b| {
        b.iter(|| black_box(&four).optimize().unwrap())
    });
    let pattern = Pattern::new(291.1, vec![1, 7, 91]).unwrap();
    g.bench_function("evaluate-three-levels-91-chunks", |b| {
        b.iter(|| levels.evaluate(black_box(&pattern)).unwrap())
    });
    g.bench_function("first-order-search-three-levels", |b| {
        b.iter(|| black_box(&levels).first_order_optimum().unwrap())
    });
    // What `ckpt interval --level ...` does after parsing: the optimum and its reports.
    g.bench_function("interval-query-three-levels", |b| {
        b.iter(|| {
            let l = black_box(&levels);
            let a = l.optimize().unwrap();
            let mut text = ckpt::report::multilevel::interval_table(l, &a, None);
            text.push_str(&ckpt::report::multilevel::interval_json(l, &a, None));
            text.push_str(&ckpt::report::multilevel::fti(l, &a).unwrap().text);
            text
        })
    });
    // One run of `simulate multilevel` on that machine's optimal pattern, 500 h of work.
    let cfg = ckpt::sim::multilevel::MultilevelConfig::from_model(
        &levels,
        &Pattern::new(291.1, vec![1, 7, 91]).unwrap(),
        500.0 * H,
    )
    .unwrap();
    g.bench_function("simulate-run-three-levels-500h", |b| {
        let mut run = 0;
        b.iter(|| {
            run += 1;
            ckpt::sim::multilevel::simulate_run(black_box(&cfg), 42, run).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, multilevel);
criterion_main!(benches);

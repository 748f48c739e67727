//! The multi-level optimum (issue 14: under a millisecond for three levels), and what it is
//! made of: one exact evaluation of a period and the first-order stride search.

use ckpt::model::multilevel::{Level, Levels, Pattern};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const H: f64 = 3600.0;

/// The levels `(name, cost s, restart s, MTBF h)`, cheapest first, and a downtime in seconds.
fn machine(levels: &[(&str, f64, f64, f64)], downtime: f64) -> Levels {
    let levels = levels
        .iter()
        .map(|&(name, cost, restart, mtbf_h)| Level::new(name, cost, restart, Some(mtbf_h * H)))
        .collect();
    Levels::new(levels, downtime).unwrap()
}

fn multilevel(c: &mut Criterion) {
    let mut g = c.benchmark_group("multilevel");
    // A realistic machine: node-local SSD, a partner copy, the parallel file system.
    let levels = machine(
        &[
            ("local", 5.0, 10.0, 3.0),
            ("partner", 30.0, 60.0, 24.0),
            ("pfs", 600.0, 900.0, 7.0 * 24.0),
        ],
        0.0,
    );
    let two = machine(
        &[("local", 5.0, 5.0, 3000.0), ("pfs", 300.0, 300.0, 24000.0)],
        0.0,
    );
    let four = machine(
        &[
            ("local", 2.0, 4.0, 2.0),
            ("partner", 10.0, 20.0, 12.0),
            ("rs", 40.0, 80.0, 48.0),
            ("pfs", 600.0, 900.0, 14.0 * 24.0),
        ],
        60.0,
    );
    for (name, l) in [
        ("optimum-three-levels", &levels),
        ("optimum-two-levels-issue", &two),
        ("optimum-four-levels", &four),
    ] {
        g.bench_function(name, |b| b.iter(|| black_box(l).optimize().unwrap()));
    }
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

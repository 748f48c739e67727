//! How long the renewal model takes (`docs/models.md` §13): one optimal schedule (two grids and
//! the shifted one, the error measurement included), the best periodic interval, the expected
//! wall time of a finite job of 1000 MTBFs under Young's period (§13.1, what `ckpt validate
//! --dist` predicts for each period) and with its variance (§13.3), the completions `ckpt
//! interval --dist --work 240h` adds to the analysis (four policies with their spreads and the
//! whole-chunk search over ten MTBFs), and the long-run spread of the wall time under Young's
//! period and the schedule (§13.2), for a 24 h MTBF, a 10 min checkpoint and a 10 min restart.
//! The target is under 50 ms per schedule. Last, the best period in a week's allocation under
//! each lifetime (§10.1).

use ckpt::failure::{Lifetime, Shape};
use ckpt::finite::{AllocationInputs, renewal_allocation, renewal_completion};
use ckpt::model::finite_renewal::{expected_wall, followed_grid, wall_moments};
use ckpt::model::renewal::{Renewal, RenewalAnalysis};
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

/// The group `group`: `f` on the job of each failure shape and its schedule's chunks (s), in
/// `samples` samples (the schedule's dynamic program runs once, outside the timing).
fn per_schedule<T>(
    c: &mut Criterion,
    group: &str,
    samples: usize,
    f: impl Fn(&Renewal, &[f64]) -> T,
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(samples);
    for (name, shape) in shapes() {
        let j = job(shape);
        let chunks = j.schedule().unwrap().chunks;
        g.bench_function(name, |b| b.iter(|| f(black_box(&j), black_box(&chunks))));
    }
    g.finish();
}

fn schedule(c: &mut Criterion) {
    per_shape(c, "renewal-schedule", |j| j.schedule().unwrap());
}

fn periodic(c: &mut Criterion) {
    per_shape(c, "renewal-periodic", |j| j.best_periodic().unwrap());
}

fn finite_job(c: &mut Criterion) {
    // Young's interval, sqrt(2 C M), on the simulator's nanosecond grid.
    let young = [10_182_337_649_086u64];
    let work = 86_400_000 * 1_000_000_000;
    per_shape(c, "renewal-finite-job", |j| {
        expected_wall(j, &young, work).unwrap()
    });
    // The same job's mean and variance (§13.3), what `ckpt interval --dist --work` gives
    // each row.
    per_shape(c, "renewal-finite-job-spread", |j| {
        wall_moments(j, &young, work).unwrap()
    });
}

fn spread(c: &mut Criterion) {
    // The spread of the wall time (what `ckpt validate --dist` divides z by where it exceeds
    // the runs' own), of Young's period and of the schedule.
    let young = [(2.0f64 * 600.0 * 86400.0).sqrt()];
    per_shape(c, "renewal-spread-young", |j| {
        j.wall_variance_rate(&young).unwrap()
    });
    per_schedule(c, "renewal-spread-schedule", 20, |j, chunks| {
        j.wall_variance_rate(chunks).unwrap()
    });
}

/// The group `group`: `f` on the job of each failure shape and its analysis (run once,
/// outside the timing), in 10 samples.
fn per_analysis<T>(c: &mut Criterion, group: &str, f: impl Fn(&Renewal, &RenewalAnalysis) -> T) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    for (name, shape) in shapes() {
        let j = job(shape);
        let a = j.analyze().unwrap();
        g.bench_function(name, |b| b.iter(|| f(black_box(&j), &a)));
    }
    g.finish();
}

fn completion(c: &mut Criterion) {
    per_analysis(c, "renewal-completion", |j, a| {
        renewal_completion(j, a, 864_000.0).unwrap()
    });
}

fn grid(c: &mut Criterion) {
    // The finest grid on which the model follows the schedule's job of 50 days, where whole
    // seconds leave too many states: what `interval --work` and `validate --dist` pay for a job
    // of tens of MTBFs before the recursion itself.
    per_schedule(c, "renewal-grid", 10, |j, chunks| {
        followed_grid(j, chunks, 4_320_000 * 1_000_000_000).unwrap()
    });
}

fn allocation(c: &mut Criterion) {
    // `interval --dist --walltime 7d` after the analysis (§10.1): the best period in a
    // week's allocation, its grid error, and §10's exponential answer judged under the lifetime.
    let week = AllocationInputs {
        walltime_s: 7.0 * 86_400.0,
        signal_margin_s: 0.0,
    };
    per_analysis(c, "renewal-allocation", |j, a| {
        renewal_allocation(j, a, week, None).unwrap()
    });
}

criterion_group!(
    benches, schedule, periodic, finite_job, spread, completion, grid, allocation
);
criterion_main!(benches);

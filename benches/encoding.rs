//! Encode and recover 64 processors x 1 MiB with m = 4 weighted checksums, against a plain
//! memory copy of the same bytes (docs/encodings.md §3; issue 7's benchmark).

use ckpt::encoding::codec::{Codec, erase};
use ckpt::encoding::matrix::MatrixKind;
use ckpt::encoding::{SchemeKind, SchemeSpec};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

const PROCS: usize = 64;
const LEN: usize = (1 << 20) / 8; // 1 MiB of f64 per processor
const CHECKSUMS: usize = 4;

fn data() -> Vec<Vec<f64>> {
    (0..PROCS)
        .map(|p| {
            (0..LEN)
                .map(|i| ((p * LEN + i) as f64 * 0.618).sin())
                .collect()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let spec = SchemeSpec::new(SchemeKind::Weighted, PROCS, None, Some(CHECKSUMS)).unwrap();
    let codec = Codec::new(spec, MatrixKind::Gaussian, 42).unwrap();
    let locals = data();
    let bytes = (PROCS * LEN * 8) as u64;

    let mut g = c.benchmark_group("encoding_64x1MiB_m4");
    g.throughput(Throughput::Bytes(bytes));
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));

    g.bench_function("memcpy", |b| {
        let mut dst = vec![vec![0.0f64; LEN]; PROCS];
        b.iter(|| {
            for (d, s) in dst.iter_mut().zip(&locals) {
                d.copy_from_slice(s);
            }
            black_box(&dst);
        })
    });

    g.bench_function("encode", |b| {
        b.iter(|| black_box(codec.encode(black_box(&locals)).unwrap()))
    });

    let failed = [3usize, 17, 40, 60];
    let held = codec.encode(&locals).unwrap();
    let (mut l, mut h) = (locals.clone(), held.clone());
    erase(&mut l, &mut h, &failed);
    g.bench_function("recover_4_lost", |b| {
        // Recovery reads survivors only and overwrites the lost checkpoints, so the same
        // erased buffers serve every iteration.
        b.iter(|| black_box(codec.recover(&mut l, &mut h, &failed).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

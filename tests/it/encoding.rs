//! Diskless checkpoint encodings (docs/encodings.md): survival closed forms against enumeration and
//! Monte Carlo, floating-point recovery and its round-off, the fault-tolerant CG, the CLI.

use crate::common::{ckpt, refused, stdout_of, with};
use ckpt::encoding::codec::{Codec, bit_exact, erase, relative_error};
use ckpt::encoding::matrix::{MatrixKind, checkpoint_matrix, condition_number, submatrix};
use ckpt::encoding::pcg::{PcgConfig, run_pcg};
use ckpt::encoding::{SchemeKind, SchemeSpec, survival};
use ckpt::rng::{run_rng, standard_normal};
use rand::RngExt;

fn spec(kind: SchemeKind, n: usize, g: Option<usize>, m: Option<usize>) -> SchemeSpec {
    SchemeSpec::new(kind, n, g, m).unwrap()
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |c, i| (c * (n - i) as f64 / (i + 1) as f64).round())
}

// ---------------------------------------------------------------------------------------------
// Section 2: survival

#[test]
fn reference_survival_values_of_section_2() {
    // n = 64, g = 8, m = 4, as docs/encodings.md lists them to six digits.
    let rows = [
        (spec(SchemeKind::Mirror, 64, None, None), 0.992126, 0.952945),
        (spec(SchemeKind::Ring, 64, None, None), 0.968254, 0.818640),
        (spec(SchemeKind::Pair, 64, None, None), 0.984127, 0.905543),
        (
            spec(SchemeKind::Checksum1d, 64, Some(8), None),
            0.887324,
            0.446418,
        ),
    ];
    for (s, k2, k4) in rows {
        assert!(
            (survival(&s, 2) - k2).abs() < 5e-7,
            "{s}: k=2 {}",
            survival(&s, 2)
        );
        assert!(
            (survival(&s, 4) - k4).abs() < 5e-7,
            "{s}: k=4 {}",
            survival(&s, 4)
        );
    }
    let w = spec(SchemeKind::Weighted, 64, None, Some(4));
    assert_eq!(
        (0..=6).map(|k| survival(&w, k)).collect::<Vec<_>>(),
        vec![1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    );
    let c = spec(SchemeKind::Checksum, 64, None, None);
    assert_eq!(
        (0..=3).map(|k| survival(&c, k)).collect::<Vec<_>>(),
        vec![1.0, 1.0, 0.0, 0.0]
    );
}

/// Every valid configuration of `kind` with `n <= 12` whose layout has at most `max_bits`
/// processors, plus one at n = 12 whatever its size.
fn configurations(kind: SchemeKind, max_bits: usize) -> Vec<SchemeSpec> {
    let mut out = Vec::new();
    for n in 1..=12 {
        let gs: Vec<Option<usize>> = if kind.is_grouped() {
            (1..=n).filter(|g| n % g == 0).map(Some).collect()
        } else {
            vec![None]
        };
        for g in gs {
            let size = n / g.unwrap_or(1);
            let ms: Vec<Option<usize>> = if kind.is_weighted() {
                (1..=size).map(Some).collect()
            } else {
                vec![None]
            };
            for m in ms {
                if let Ok(s) = SchemeSpec::new(kind, n, g, m)
                    && (s.total_procs() <= max_bits
                        || (n == 12 && out.iter().all(|o: &SchemeSpec| o.procs < 12)))
                {
                    out.push(s);
                }
            }
        }
    }
    out
}

#[test]
fn closed_forms_agree_with_exhaustive_enumeration_for_n_up_to_12() {
    for kind in SchemeKind::ALL {
        let configs = configurations(kind, if kind == SchemeKind::Mirror { 24 } else { 20 });
        assert!(
            configs.iter().any(|s| s.procs == 12),
            "{kind} has no n = 12 case"
        );
        for s in configs {
            let total = s.total_procs();
            // Surviving subsets counted by size.
            let mut count = vec![0u64; total + 1];
            for mask in 0u64..(1u64 << total) {
                if s.survives_bits(mask).unwrap() {
                    count[mask.count_ones() as usize] += 1;
                }
            }
            for (k, &c) in count.iter().enumerate() {
                let enumerated = c as f64 / binomial(total, k);
                let closed = survival(&s, k);
                assert!(
                    (enumerated - closed).abs() <= 1e-12,
                    "{s}, k = {k}: enumeration {enumerated}, closed form {closed}"
                );
            }
        }
    }
}

#[test]
fn closed_forms_agree_with_monte_carlo_for_n_64() {
    let schemes = [
        spec(SchemeKind::Mirror, 64, None, None),
        spec(SchemeKind::Ring, 64, None, None),
        spec(SchemeKind::Pair, 64, None, None),
        spec(SchemeKind::Checksum, 64, None, None),
        spec(SchemeKind::Checksum1d, 64, Some(8), None),
        spec(SchemeKind::Weighted, 64, None, Some(4)),
        spec(SchemeKind::Weighted1d, 64, Some(8), Some(2)),
    ];
    let runs = 4000u64;
    for (si, s) in schemes.iter().enumerate() {
        let total = s.total_procs();
        for k in [2usize, 3, 5, 8] {
            let mut survived = 0u64;
            for run in 0..runs {
                let mut rng = run_rng(1000 + si as u64 * 16 + k as u64, run);
                let mut all: Vec<usize> = (0..total).collect();
                for i in 0..k {
                    let j = rng.random_range(i..total);
                    all.swap(i, j);
                }
                if s.survives(&all[..k]) {
                    survived += 1;
                }
            }
            let p = survival(s, k);
            let phat = survived as f64 / runs as f64;
            if p == 0.0 || p == 1.0 {
                assert_eq!(phat, p, "{s}, k = {k}");
            } else {
                let z = (phat - p) / (p * (1.0 - p) / runs as f64).sqrt();
                assert!(
                    z.abs() < 4.0,
                    "{s}, k = {k}: simulated {phat}, closed form {p}, z = {z}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Section 3: encoding and recovery

fn data(n: usize, len: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = run_rng(seed, 1);
    (0..n)
        .map(|_| (0..len).map(|_| standard_normal(&mut rng)).collect())
        .collect()
}

fn subsets(total: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn rec(start: usize, total: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..total {
            cur.push(i);
            rec(i + 1, total, k, cur, out);
            cur.pop();
        }
    }
    rec(0, total, k, &mut cur, &mut out);
    out
}

#[test]
fn neighbour_recovery_is_bit_exact_for_every_survivable_set() {
    for kind in [SchemeKind::Mirror, SchemeKind::Pair, SchemeKind::Ring] {
        let s = spec(kind, 8, None, None);
        let codec = Codec::new(s, MatrixKind::Gaussian, 1).unwrap();
        let orig = data(8, 33, 9);
        let held = codec.encode(&orig).unwrap();
        let mut tried = 0;
        for k in 1..=s.total_procs() {
            for failed in subsets(s.total_procs(), k) {
                let (mut l, mut h) = (orig.clone(), held.clone());
                erase(&mut l, &mut h, &failed);
                match codec.recover(&mut l, &mut h, &failed) {
                    Ok(_) => {
                        tried += 1;
                        assert!(
                            bit_exact(&orig, &l, &(0..8).collect::<Vec<_>>()),
                            "{kind} {failed:?}"
                        );
                        for (a, b) in held.iter().zip(&h) {
                            assert!(
                                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
                                "{kind} {failed:?} held"
                            );
                        }
                    }
                    Err(_) => assert!(!s.survives(&failed)),
                }
            }
        }
        assert!(tried > 20, "{kind}: only {tried} survivable sets");
    }
}

#[test]
fn gaussian_weighted_recovery_error_is_machine_precision_times_condition_number() {
    // n = 16, m = 4: every failure set of size 1..=4 among the 20 processors.
    let s = spec(SchemeKind::Weighted, 16, None, Some(4));
    let codec = Codec::new(s, MatrixKind::Gaussian, 2026).unwrap();
    let orig = data(16, 256, 4);
    let held = codec.encode(&orig).unwrap();
    let (mut worst_ratio, mut worst_cond, mut worst_err, mut sets) = (0.0f64, 0.0f64, 0.0f64, 0);
    for k in 1..=4 {
        for failed in subsets(20, k) {
            let (mut l, mut h) = (orig.clone(), held.clone());
            erase(&mut l, &mut h, &failed);
            let report = codec
                .recover(&mut l, &mut h, &failed)
                .expect("m failures are always recoverable");
            let lost: Vec<usize> = failed.iter().cloned().filter(|&f| f < 16).collect();
            assert!(h.iter().all(|v| v.iter().all(|x| x.is_finite())));
            if lost.is_empty() {
                continue;
            }
            let cond = report.max_condition_number().unwrap();
            let effective = report.max_effective_condition_number().unwrap();
            assert!(effective >= cond * 0.999, "{failed:?}");
            // The effective number, recomputed here from the singular values of the blocks.
            let rows: Vec<usize> = (0..4).filter(|r| !failed.contains(&(16 + r))).collect();
            let a = codec.matrix().unwrap();
            let block = submatrix(a, &rows, &(0..16).collect::<Vec<_>>())
                .unwrap()
                .singular_values()
                .max();
            let lost_min = submatrix(a, &rows, &lost).unwrap().singular_values().min();
            assert!((effective / (block / lost_min) - 1.0).abs() < 1e-9);
            let err = relative_error(&orig, &l, &lost).unwrap();
            assert!(err > 0.0 || lost.len() == 16);
            worst_cond = worst_cond.max(cond);
            worst_err = worst_err.max(err);
            worst_ratio = worst_ratio.max(err / (f64::EPSILON * effective));
            sets += 1;
        }
    }
    assert_eq!(sets, 6196 - 1 - 4 - 6 - 4 - 1); // less the sets of checksum processors only
    // Backward-stable least squares (Householder QR) on data of like scale: the error stays
    // within a small multiple of eps times the effective condition number for every set
    // (measured: 1.4).
    assert!(
        worst_ratio < 4.0,
        "error / (eps kappa_eff) reached {worst_ratio}"
    );
    // The Gaussian tail (Theorem 1): over 1820 4x4 blocks the worst is a few 1e4; the data
    // still keep eleven digits.
    assert!(
        worst_cond < 1e5,
        "a Gaussian 16-column matrix had a submatrix of condition {worst_cond}"
    );
    assert!(worst_err < 1e-11, "worst relative error {worst_err}");
}

/// Condition numbers and errors over a fixed family of `m`-sets on n = 64: random sets from a
/// seed and the sets of `m` neighbours, where Vandermonde columns are closest.
fn worst_case(kind: MatrixKind) -> (f64, f64) {
    let (n, m) = (64, 4);
    let s = spec(SchemeKind::Weighted, n, None, Some(m));
    let codec = Codec::new(s, kind, 7).unwrap();
    let orig = data(n, 64, 3);
    let held = codec.encode(&orig).unwrap();
    let mut sets: Vec<Vec<usize>> = (0..=n - m)
        .step_by(4)
        .map(|a| (a..a + m).collect())
        .collect();
    let mut rng = run_rng(77, 0);
    for _ in 0..60 {
        let mut all: Vec<usize> = (0..n).collect();
        for i in 0..m {
            let j = rng.random_range(i..n);
            all.swap(i, j);
        }
        sets.push(all[..m].to_vec());
    }
    let (mut cond, mut err) = (0.0f64, 0.0f64);
    for failed in sets {
        let (mut l, mut h) = (orig.clone(), held.clone());
        erase(&mut l, &mut h, &failed);
        let r = codec.recover(&mut l, &mut h, &failed).unwrap();
        cond = cond.max(r.max_condition_number().unwrap());
        err = err.max(relative_error(&orig, &l, &failed).unwrap());
    }
    (cond, err)
}

#[test]
fn vandermonde_loses_digits_gaussian_does_not() {
    let (gc, ge) = worst_case(MatrixKind::Gaussian);
    let (vc, ve) = worst_case(MatrixKind::Vandermonde);
    let (cc, ce) = worst_case(MatrixKind::Cauchy);
    // Gaussian: well conditioned, error near eps.
    assert!(gc < 1e3, "gaussian condition {gc}");
    assert!(ge < 1e-12, "gaussian error {ge}");
    // Vandermonde (and Cauchy): condition numbers of 1e8 and beyond, digits lost.
    assert!(vc > 1e8, "vandermonde condition {vc}");
    assert!(ve > 1e-9, "vandermonde error {ve}");
    assert!(
        cc > 1e6 && ce > 1e3 * ge,
        "cauchy condition {cc} error {ce}"
    );
    assert!(vc > 1e4 * gc && ve > 1e4 * ge);
}

#[test]
fn condition_number_is_ratio_of_extreme_singular_values() {
    let a = checkpoint_matrix(MatrixKind::Vandermonde, 3, 10, 0).unwrap();
    let sub = submatrix(&a, &[0, 1, 2], &[7, 8, 9]).unwrap();
    let sv = sub.clone().singular_values();
    let want = sv.max() / sv.min();
    assert!((condition_number(&sub).unwrap() / want - 1.0).abs() < 1e-12);
    // 3x3 Vandermonde on 8, 9, 10: a few thousand.
    assert!(want > 1e3 && want < 1e5, "{want}");
}

// ---------------------------------------------------------------------------------------------
// Section 5: the fault-tolerant CG

#[test]
fn pcg_survives_zero_to_m_failures_with_residuals_of_the_same_order() {
    let m = 3;
    let cfg = PcgConfig {
        grid: 32,
        scheme: spec(SchemeKind::Weighted, 8, None, Some(m)),
        matrix: MatrixKind::Gaussian,
        seed: 42,
        every: 20,
        at: 30,
        tol: 1e-10,
        max_iter: 5000,
    };
    let base = run_pcg(&cfg, 0).unwrap();
    assert!(base.converged && base.final_relative_residual < 1e-9);
    for k in 1..=m {
        let r = run_pcg(&cfg, k).unwrap();
        assert_eq!(r.failed.len(), k);
        assert!(
            r.failure_injected && r.recovery.is_some() && r.converged,
            "k = {k}: {r:?}"
        );
        let recovery = r.recovery.unwrap();
        assert!(!recovery.bit_exact, "checksums round");
        let e = recovery.relative_error.unwrap();
        assert!(e > 0.0 && e < 1e-13, "k = {k}: recovery error {e}");
        let ratio = r.final_residual_norm / base.final_residual_norm;
        assert!(
            (0.1..10.0).contains(&ratio),
            "k = {k}: residual {} vs {}",
            r.final_residual_norm,
            base.final_residual_norm
        );
        assert!(
            r.iterations.abs_diff(base.iterations) <= 3,
            "k = {k}: {} vs {} iterations",
            r.iterations,
            base.iterations
        );
        assert_eq!(r.executed_iterations, r.iterations + (cfg.at - 20));
    }
}

// ---------------------------------------------------------------------------------------------
// CLI

#[test]
fn survive_json_lists_one_row_per_k() {
    let out = ckpt()
        .args([
            "survive",
            "--scheme",
            "checksum-1d",
            "--procs",
            "64",
            "--groups",
            "8",
            "--failures",
            "0..4",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["inputs"]["total_procs"], 72);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    assert!((rows[2]["survival"].as_f64().unwrap() - 0.887324).abs() < 5e-7);
    assert!((rows[4]["survival"].as_f64().unwrap() - 0.446418).abs() < 5e-7);
}

#[test]
fn bad_scheme_inputs_exit_2_with_one_line_naming_the_flag() {
    let weighted = [
        "encode",
        "--scheme",
        "weighted",
        "--procs",
        "16",
        "--checksums",
        "4",
    ];
    for (args, flag) in [
        (
            vec![
                "survive",
                "--scheme",
                "pair",
                "--procs",
                "7",
                "--failures",
                "1",
            ],
            "--procs",
        ),
        (
            vec![
                "survive",
                "--scheme",
                "checksum-1d",
                "--procs",
                "10",
                "--groups",
                "3",
            ],
            "--groups",
        ),
        (
            vec!["survive", "--scheme", "weighted", "--procs", "10"],
            "--checksums",
        ),
        (
            vec![
                "survive",
                "--scheme",
                "weighted",
                "--procs",
                "10",
                "--checksums",
                "2",
                "--failures",
                "0..13",
            ],
            "--failures",
        ),
        (
            vec!["survive", "--scheme", "raid", "--procs", "10"],
            "--scheme",
        ),
        (with(&weighted, &["--fail", "21"]), "--fail"),
        (
            with(&weighted, &["--fail", "2", "--matrix", "hilbert"]),
            "--matrix",
        ),
        (
            vec![
                "pcg",
                "--grid",
                "8",
                "--procs",
                "4",
                "--scheme",
                "weighted",
                "--checksums",
                "2",
                "--fail",
                "0..5",
            ],
            "--fail",
        ),
        (
            vec![
                "pcg", "--grid", "8", "--procs", "4", "--scheme", "mirror", "--every", "0",
            ],
            "--every",
        ),
    ] {
        refused(&args, &[flag]);
    }
}

/// One value per processor used to pass the values bound with 2^27 processors, whose
/// checkpoints (a vector each) then took more than 16 GiB: refused up front, naming `--procs`,
/// and the bound's edge (2^22 in all) still runs.
#[test]
fn an_encode_too_wide_for_memory_is_refused_by_its_processors() {
    let args = |procs: &'static str| {
        [
            "encode", "--scheme", "checksum", "--procs", procs, "--fail", "1", "--len", "1", "-q",
        ]
    };
    let err = refused(&args("134217727"), &["--procs", "134217727", "4194304"]);
    assert!(!err.contains("--len"), "{err}");
    refused(&args("4194304"), &["--procs", "has 4194305"]);
    stdout_of(&args("4194303"));
}

#[test]
fn encode_reports_condition_and_error() {
    let run = |matrix: &str| {
        let out = ckpt()
            .args([
                "encode",
                "--scheme",
                "weighted",
                "--procs",
                "64",
                "--checksums",
                "4",
                "--fail-set",
                "60,61,62,63",
            ])
            .args(["--matrix", matrix, "--len", "256", "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let g = run("gaussian");
    let v = run("vandermonde");
    assert_eq!(g["recoverable"], true);
    assert_eq!(g["bit_exact"], false);
    assert!(g["condition_number"].as_f64().unwrap() < 1e3);
    assert!(v["condition_number"].as_f64().unwrap() > 1e8);
    assert!(v["relative_error"].as_f64().unwrap() > 1e4 * g["relative_error"].as_f64().unwrap());

    // A ring of 8 processes, two failed: the encoding is exact where it recovers.
    let ring = |fail_set: &str| -> serde_json::Value {
        let out = stdout_of(&[
            "encode",
            "--scheme",
            "ring",
            "--procs",
            "8",
            "--fail-set",
            fail_set,
            "--format",
            "json",
        ]);
        serde_json::from_str(&out).unwrap()
    };
    let r = ring("1,4");
    assert_eq!(r["bit_exact"], true);
    assert_eq!(r["condition_number"], serde_json::Value::Null);
    assert_eq!(r["relative_error"], 0.0);
    let r = ring("1,2");
    assert_eq!(r["recoverable"], false);
}

#[test]
fn many_vandermonde_checksums_are_lost_digits_not_a_panic() {
    // 56 checksum rows j^i over 1024 processes reach 1e165: the SVD of that block cannot be
    // had in double precision (it used to abort the run). The answer is the stable-storage
    // restart with a lower bound of the condition number, in text and JSON.
    let args = [
        "encode",
        "--scheme",
        "weighted",
        "--procs",
        "1024",
        "--checksums",
        "56",
        "--len",
        "1",
        "--fail",
        "1",
        "--matrix",
        "vandermonde",
    ];
    let text = stdout_of(&args);
    assert!(text.contains("recoverable         no"), "{text}");
    assert!(
        text.contains("effective condition number at least"),
        "{text}"
    );
    assert!(!text.contains("inf") && !text.contains("NaN"), "{text}");
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&json_args)).unwrap();
    assert_eq!(v["recoverable"], false);
}

#[test]
fn pcg_json_is_deterministic_and_timing_is_opt_in() {
    let args = [
        "pcg",
        "--grid",
        "16",
        "--procs",
        "4",
        "--scheme",
        "weighted",
        "--checksums",
        "2",
        "--every",
        "10",
        "--fail",
        "0..2",
        "--at",
        "15",
        "--format",
        "json",
    ];
    let a = ckpt().args(args).output().unwrap();
    let b = ckpt().args(args).output().unwrap();
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["runs"].as_array().unwrap().len(), 3);
    assert!(v.get("timing").is_none());
    assert!(!String::from_utf8_lossy(&a.stdout).contains("encode_s"));
    let t = ckpt().args(args).arg("--timing").output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&t.stdout).unwrap();
    assert_eq!(v["timing"].as_array().unwrap().len(), 3);
    let table = ckpt().args(&args[..args.len() - 2]).output().unwrap();
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("| failures |") && text.lines().count() >= 5,
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// Properties

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn any_spec() -> impl Strategy<Value = SchemeSpec> {
        (0usize..7, 1usize..=24, 1usize..=6, 1usize..=6).prop_filter_map(
            "valid layout",
            |(k, n, g, m)| {
                let kind = SchemeKind::ALL[k];
                let g = kind.is_grouped().then_some(g);
                let m = kind.is_weighted().then_some(m);
                SchemeSpec::new(kind, n, g, m).ok()
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Surviving sets are closed under taking subsets, so the surviving fraction can only
        /// fall as k grows; every value is a probability.
        #[test]
        fn survival_is_a_non_increasing_probability(s in any_spec()) {
            let mut last = 1.0;
            for k in 0..=s.total_procs() {
                let p = survival(&s, k);
                prop_assert!((0.0..=1.0).contains(&p), "{s} k={k} p={p}");
                prop_assert!(p <= last + 1e-12, "{s} k={k}: {p} after {last}");
                last = p;
            }
        }

        /// The codec rebuilds exactly the sets the survival rule admits, and then the data
        /// come back (bit for bit for copies, to round-off for checksums).
        #[test]
        fn codec_rebuilds_what_survives(s in any_spec(), seed in 0u64..1000, k in 0usize..8) {
            let total = s.total_procs();
            let k = k.min(total);
            let mut rng = run_rng(seed, 0);
            let mut all: Vec<usize> = (0..total).collect();
            for i in 0..k {
                let j = rng.random_range(i..total);
                all.swap(i, j);
            }
            let failed = all[..k].to_vec();
            let codec = Codec::new(s, MatrixKind::Gaussian, seed).unwrap();
            let orig = data(s.procs, 9, seed);
            let held = codec.encode(&orig).unwrap();
            let (mut l, mut h) = (orig.clone(), held);
            erase(&mut l, &mut h, &failed);
            let r = codec.recover(&mut l, &mut h, &failed);
            prop_assert_eq!(r.is_ok(), s.survives(&failed));
            if r.is_ok() {
                let procs: Vec<usize> = (0..s.procs).collect();
                if s.kind.is_neighbour() {
                    prop_assert!(bit_exact(&orig, &l, &procs));
                } else {
                    prop_assert!(relative_error(&orig, &l, &procs).unwrap() < 1e-6);
                }
            }
        }
    }
}

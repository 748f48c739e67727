//! Multi-level checkpointing through the binary (docs/interface.md §1.13): `interval --level` in
//! every format, `simulate multilevel` against the exact model, `validate --level`,
//! `sweep --level`, shards, the README's worked example and the bad-input lines.

use crate::common::{named, read_package_file, refused, stdout_of, with};
use serde_json::Value;

const H: f64 = 3600.0;

/// The README's machine.
const MACHINE: [&str; 6] = [
    "--level",
    "cost=5s,restart=10s,mtbf=3h,name=local",
    "--level",
    "cost=30s,restart=60s,mtbf=24h,name=partner",
    "--level",
    "cost=600s,restart=900s,mtbf=7d,name=pfs",
];

/// Three levels that fail often (cost/MTBF up to 0.03), so that failures shape the overhead.
const FAILING_OFTEN: [&str; 6] = [
    "--level",
    "cost=10s,restart=30s,mtbf=20m",
    "--level",
    "cost=1m,restart=2m,mtbf=1h",
    "--level",
    "cost=5m,restart=8m,mtbf=3h",
];

/// `ckpt command` on the README's machine, then `rest`.
fn on_machine<'a>(command: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    [&[command][..], &MACHINE, rest].concat()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&stdout_of(args)).unwrap()
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting (`a` row-major, n x n).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap();
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            if f != 0.0 {
                let (top, bottom) = a.split_at_mut(r);
                for (x, y) in bottom[0][c..].iter_mut().zip(&top[c][c..]) {
                    *x -= f * y;
                }
                b[r] -= f * b[c];
            }
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    x
}

/// The overhead of a pattern from the rules of docs/models.md §12.1, as a Markov chain over the
/// positions of a period: `E(p)`, the expected time to the period's end from a commit after
/// chunk `p`, and `F(q)`, from a failure that rolls back to `q` (downtime, then the restart of
/// the level that wrote `q`, which may fail again). `levels`: (cost, restart, rate).
fn chain_overhead(levels: &[(f64, f64, f64)], strides: &[u64], w: f64, downtime: f64) -> f64 {
    let n = levels.len();
    let k = strides[n - 1] as usize;
    let lam: f64 = levels.iter().map(|l| l.2).sum();
    // The level written after chunk `c` of the period (the job start counts as the top level).
    let level = |c: usize| {
        if c.is_multiple_of(k) {
            n - 1
        } else {
            (0..n)
                .rev()
                .find(|&j| (c as u64).is_multiple_of(strides[j]))
                .unwrap()
        }
    };
    let back = |p: usize, j: usize| p / strides[j] as usize * strides[j] as usize;
    let size = 2 * k;
    let mut a = vec![vec![0.0; size]; size];
    let mut b = vec![0.0; size];
    for p in 0..k {
        a[p][p] += 1.0;
        let len = w + levels[level(p + 1)].0;
        let ok = (-lam * len).exp();
        b[p] = (1.0 - ok) / lam;
        if p + 1 < k {
            a[p][p + 1] -= ok;
        }
        for (j, l) in levels.iter().enumerate() {
            a[p][k + back(p, j)] -= l.2 / lam * (1.0 - ok);
        }
        let f = k + p;
        a[f][f] += 1.0;
        let r = levels[level(p)].1;
        let ok = (-lam * r).exp();
        b[f] = downtime + (1.0 - ok) / lam;
        a[f][p] -= ok;
        for (j, l) in levels.iter().enumerate() {
            a[f][k + back(p, j)] -= l.2 / lam * (1.0 - ok);
        }
    }
    solve(a, b)[0] / (k as f64 * w)
}

/// Daly's complete overhead at interval `t` (a closed form, docs/models.md §3).
fn daly(t: f64, m: f64, c: f64, r: f64) -> f64 {
    (r / m).exp() * m * (((t + c) / m).exp() - 1.0) / t
}

/// The minimum over `t` of a unimodal `f`, by golden-section search on `ln t`.
fn golden(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (lo.ln(), hi.ln());
    for _ in 0..200 {
        let (x1, x2) = (b - g * (b - a), a + g * (b - a));
        if f(x1.exp()) < f(x2.exp()) {
            b = x2;
        } else {
            a = x1;
        }
    }
    f(((a + b) / 2.0).exp())
}

#[test]
fn one_level_is_daly_complete_to_the_last_digit() {
    for (m, c, r, d) in [
        ("24h", "5m", "10m", "0"),
        ("6h", "5m", "10m", "1m"),
        ("1h", "60s", "0", "0"),
        ("10m", "5m", "5m", "30s"),
    ] {
        let single = json(&[
            "interval",
            "--mtbf",
            m,
            "--cost",
            c,
            "--restart",
            r,
            "--downtime",
            d,
            "--format",
            "json",
        ]);
        let row = named(&single, "models", "daly-complete").clone();
        let level = format!("cost={c},restart={r},mtbf={m}");
        let multi = json(&[
            "interval",
            "--level",
            &level,
            "--downtime",
            d,
            "--format",
            "json",
        ]);
        // Bit for bit: the JSON numbers are the shortest round-trip forms of the doubles.
        assert_eq!(
            multi["recommended_interval_s"], row["interval_s"],
            "{level}"
        );
        assert_eq!(multi["recommended_overhead"], row["overhead"], "{level}");
        assert_eq!(multi["multilevel"]["overhead"], row["overhead"]);
        assert_eq!(multi["multilevel"]["base_interval_s"], row["interval_s"]);
        assert_eq!(multi["multilevel"]["levels"][0]["stride"], 1);
        assert_eq!(multi["multilevel"]["gain_pct"], 0.0);
    }
}

#[test]
fn the_readme_example_prints_what_the_readme_shows() {
    let readme = read_package_file("README.md");
    let table = stdout_of(&with(&["interval"], &MACHINE));
    assert!(readme.contains(&table), "README lacks the table:\n{table}");
    for format in ["scr", "fti", "veloc"] {
        let text = stdout_of(&with(&["interval", "--format", format], &MACHINE));
        assert!(
            readme.contains(&format!("```\n{text}```")),
            "README lacks the {format} lines:\n{text}"
        );
    }
    // The figures the README states in words.
    for figure in [
        "every 7th one a partner copy, every 91st one",
        "1.112 times its work",
        "1.607 times with the",
        "30.8% less wall time",
        "`w` = 291.1 s to 300 s, +0.0044%",
    ] {
        let doc = if figure.starts_with('`') {
            read_package_file("docs/interface.md")
        } else {
            readme.clone()
        };
        assert!(doc.contains(figure), "{figure}");
    }
    // The numbers, from sources independent of the optimizer: the exact chain written here
    // from the rules, and Daly's closed form for the file system alone.
    let v = json(&with(&["interval", "--format", "json"], &MACHINE));
    let ml = &v["multilevel"];
    let strides: Vec<u64> = (0..3)
        .map(|j| ml["levels"][j]["stride"].as_u64().unwrap())
        .collect();
    assert_eq!(strides, [1, 7, 91]);
    let w = ml["base_interval_s"].as_f64().unwrap();
    assert!((w - 291.1).abs() < 0.05, "{w}");
    let levels = [
        (5.0, 10.0, 1.0 / (3.0 * H)),
        (30.0, 60.0, 1.0 / (24.0 * H)),
        (600.0, 900.0, 1.0 / (168.0 * H)),
    ];
    let overhead = ml["overhead"].as_f64().unwrap();
    let chain = chain_overhead(&levels, &strides, w, 0.0);
    assert!((overhead - chain).abs() < 1e-9, "{overhead} vs {chain}");
    assert!((overhead - 1.1123).abs() < 5e-5);
    let m = 1.0 / levels.iter().map(|l| l.2).sum::<f64>();
    let single = golden(|t| daly(t, m, 600.0, 900.0), 10.0, 1e6);
    let reported = ml["single_level_overhead"].as_f64().unwrap();
    assert!(
        (single - reported).abs() < 1e-9 * single,
        "{single} vs {reported}"
    );
    assert!((single - 1.6065).abs() < 5e-5);
    // The table's single-level interval is in the JSON too: Daly's complete optimum there.
    let interval = ml["single_level_interval_s"].as_f64().unwrap();
    let daly_best = crate::common::daly_optimum(m, 600.0, 900.0);
    assert!(
        (interval - daly_best).abs() < 1e-6 * daly_best,
        "{interval} vs {daly_best}"
    );
    let gain = ml["gain_pct"].as_f64().unwrap();
    assert!((gain - 100.0 * (1.0 - chain / single)).abs() < 1e-6);
    assert!((gain - 30.8).abs() < 0.05);
    // FTI's rounded pattern (w = 5 min) under the chain: the comment line's overhead.
    let fti = stdout_of(&with(&["interval", "--format", "fti"], &MACHINE));
    let rounded = chain_overhead(&levels, &strides, 300.0, 0.0);
    assert!(
        fti.contains(&format!("gives overhead {rounded:.6} (")),
        "{fti}"
    );
    assert!(fti.starts_with("ckpt_l1 = 5\nckpt_l2 = 35\nckpt_l3 = 0\nckpt_l4 = 455\n"));
}

#[test]
fn the_committed_sweep_report_is_reproduced() {
    let dir = crate::common::temp_path("ckpt-ml-sweep");
    let out = dir.to_str().unwrap();
    let line = stdout_of(&on_machine(
        "sweep",
        &[
            "--vary",
            "level2.cost=5s..10m",
            "--points",
            "60",
            "--log",
            "--out",
            out,
        ],
    ));
    assert!(line.starts_with("60 points of level2.cost; at the given inputs: base interval 4m 51s (291 s), overhead 1.1123, gain 30.8%"), "{line}");
    for file in ["sweep.json", "sweep.csv"] {
        let fresh = std::fs::read_to_string(dir.join(file)).unwrap();
        let committed = read_package_file(&format!("docs/sweep-multilevel/{file}"));
        assert_eq!(fresh, committed, "docs/sweep-multilevel/{file} is stale");
    }
    let report = read_package_file("docs/sweep-multilevel/report.md");
    assert!(
        report.contains("--vary level2.cost=5s..10m --points 60 --log --out docs/sweep-multilevel")
    );
    assert!(read_package_file("README.md").contains("docs/sweep-multilevel/intervals.png"));
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    let points = v["points"].as_array().unwrap();
    // Ends: as cheap as the local copy, the partner level is written every other chunk; as dear
    // as the file system, it is left out.
    assert_eq!(points[0]["value"], 5.0);
    assert_eq!(points[59]["value"], 600.0);
    assert_eq!(points[59]["strides"][1], Value::Null);
    assert!(points[0]["gain_pct"].as_f64() > points[59]["gain_pct"].as_f64());
}

#[test]
fn the_first_order_limit_of_the_issue() {
    // C = 5 s and 300 s, M = 3000 h and 24000 h: the integer minimum over n of
    // ((n-1) C1 + C2)/W + (1/(n M1) + 1/M2) W/2, each n at its best W.
    let (c1, c2, m1, m2) = (5.0, 300.0, 3000.0 * H, 24000.0 * H);
    let (n, period) = (1..200u64)
        .map(|n| {
            let a = (n - 1) as f64 * c1 + c2;
            let b = (1.0 / (n as f64 * m1) + 1.0 / m2) / 2.0;
            (n, (a / b).sqrt(), 2.0 * (a * b).sqrt())
        })
        .min_by(|x, y| x.2.total_cmp(&y.2))
        .map(|(n, p, _)| (n, p))
        .unwrap();
    assert_eq!(n, 22);
    let v = json(&[
        "interval",
        "--level",
        "cost=5s,mtbf=3000h",
        "--level",
        "cost=300s,mtbf=24000h",
        "--format",
        "json",
    ]);
    let ml = &v["multilevel"];
    assert_eq!(ml["levels"][1]["stride"], 22);
    let exact = ml["period_s"].as_f64().unwrap();
    assert!((exact / period - 1.0).abs() < 0.01, "{exact} vs {period}");
    assert!((period / 226_540.0 - 1.0).abs() < 1e-4, "{period}");
}

#[test]
fn a_level_left_out_shows_in_every_format() {
    let levels = [
        "--level",
        "cost=60s,restart=60s,mtbf=2000h,name=ssd",
        "--level",
        "cost=90s,restart=120s,mtbf=10h,name=partner",
        "--level",
        "cost=600s,restart=900s,mtbf=100h,name=pfs",
    ];
    let env = stdout_of(&with(&["interval", "--format", "env"], &levels));
    assert!(env.ends_with("CKPT_STRIDES=-,1,8\n"), "{env}");
    let v = json(&with(&["interval", "--format", "json"], &levels));
    let l = &v["multilevel"]["levels"];
    assert_eq!(l[0]["used"], false);
    assert_eq!(l[0]["stride"], Value::Null);
    assert_eq!(l[0]["interval_s"], Value::Null);
    assert_eq!(l[2]["stride"], 8);
    let w = v["recommended_interval_s"].as_f64().unwrap();
    assert_eq!(l[2]["interval_s"].as_f64().unwrap(), 8.0 * w);
    assert_eq!(v["multilevel"]["period_s"].as_f64().unwrap(), 8.0 * w);
    let scr = stdout_of(&with(&["interval", "--format", "scr"], &levels));
    assert_eq!(
        scr,
        format!(
            "SCR_CHECKPOINT_SECONDS={}\nCKPT=0 INTERVAL=1 TYPE=PARTNER\nSCR_FLUSH=8\n",
            w.round()
        )
    );
    let veloc = stdout_of(&with(&["interval", "--format", "veloc"], &levels));
    assert_eq!(
        veloc,
        format!(
            "ec_interval = {}\npersistent_interval = {}\n",
            w.round(),
            (8.0 * w).round()
        )
    );
    let table = stdout_of(&with(&["interval"], &levels));
    let ssd = table.lines().find(|l| l.starts_with("ssd")).unwrap();
    assert!(
        ssd.contains(" no ") && ssd.trim_end().ends_with('-'),
        "{ssd}"
    );
}

#[test]
fn json_fields_and_work() {
    let v = json(&with(
        &[
            "interval",
            "--format",
            "json",
            "--work",
            "100h",
            "--downtime",
            "1m",
        ],
        &MACHINE,
    ));
    for key in [
        "schema_version",
        "command",
        "inputs",
        "recommended",
        "recommended_interval_s",
        "recommended_overhead",
        "recommended_efficiency",
        "completion_s",
        "multilevel",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["command"], "interval");
    assert_eq!(v["inputs"]["downtime_s"], 60.0);
    assert_eq!(v["inputs"]["levels"][2]["mtbf_s"], 168.0 * H);
    let o = v["recommended_overhead"].as_f64().unwrap();
    assert_eq!(v["completion_s"].as_f64().unwrap(), 100.0 * H * o);
    assert_eq!(v["recommended_efficiency"].as_f64().unwrap(), 1.0 / o);
    let ml = &v["multilevel"];
    for key in [
        "levels",
        "base_interval_s",
        "period_s",
        "overhead",
        "single_level_interval_s",
        "single_level_overhead",
        "gain_pct",
    ] {
        assert!(ml.get(key).is_some(), "{key}");
    }
    for key in [
        "name",
        "cost_s",
        "restart_s",
        "mtbf_s",
        "used",
        "stride",
        "interval_s",
    ] {
        assert!(ml["levels"][0].get(key).is_some(), "{key}");
    }
    assert_eq!(v["recommended_interval_s"], ml["base_interval_s"]);
    let table = stdout_of(&with(&["interval", "--work", "100h"], &MACHINE));
    assert!(
        table.contains("expected completion of 4d 4h 0m of work"),
        "{table}"
    );
}

#[test]
fn formats_refuse_what_they_cannot_hold() {
    let five: Vec<String> = (1..=5)
        .flat_map(|i| ["--level".to_string(), format!("cost={i}s,mtbf={i}h")])
        .collect();
    let five: Vec<&str> = five.iter().map(String::as_str).collect();
    refused(
        &with(&["interval", "--format", "fti"], &five),
        &["--format fti", "four", "this answer has 5"],
    );
    // Five levels are an answer in every other format.
    stdout_of(&with(&["interval", "--format", "scr"], &five));
    refused(
        &[
            "interval",
            "--level",
            "cost=5m,mtbf=1d",
            "--format",
            "veloc",
        ],
        &["--format veloc", "two levels", "uses 1"],
    );
    refused(
        &[
            "interval", "--mtbf", "1d", "--cost", "5m", "--format", "fti",
        ],
        &["--format fti", "--level"],
    );
    refused(
        &[
            "interval", "--mtbf", "1d", "--cost", "5m", "--format", "veloc",
        ],
        &["veloc", "--level"],
    );
}

#[test]
fn bad_levels_get_one_line_and_exit_2() {
    let i = |v: &[&'static str]| with(&["interval"], v);
    let accepted = "cost=DURATION[,restart=DURATION][,mtbf=DURATION][,name=NAME]";
    refused(
        &i(&["--level", "cost=5s,size=1"]),
        &["--level", "cost=5s,size=1", "unknown key `size`", accepted],
    );
    refused(
        &i(&["--level", "cost=5s,mtbf=1h,mtbf=2h"]),
        &["--level", "key `mtbf` given twice", accepted],
    );
    refused(
        &i(&["--level", "mtbf=1h"]),
        &["--level", "no cost", accepted],
    );
    refused(&i(&["--level", "cost=5x,mtbf=1h"]), &["--level", "cost=5x"]);
    refused(&i(&["--level", "cost=1M,mtbf=1h"]), &["--level", "month"]);
    refused(
        &i(&["--level", "cost=-5s,mtbf=1h"]),
        &["--level", "cost=-5s"],
    );
    refused(
        &i(&["--level", "cost=1m,mtbf=1d", "--level", "cost=5s,mtbf=1h"]),
        &[
            "--level",
            "'cost=5s,mtbf=1h'",
            "increasing cost",
            "60s of --level number 1",
        ],
    );
    refused(
        &i(&["--level", "cost=5s,mtbf=1h", "--level", "cost=1m,name=pfs"]),
        &["--level", "'cost=1m,name=pfs'", "mtbf=DURATION on the top"],
    );
    for flag in [
        ["--mtbf", "1h"],
        ["--cost", "5m"],
        ["--restart", "1m"],
        ["--procs", "4"],
        ["--nodes", "4"],
    ] {
        refused(
            &i(&["--level", "cost=5s,mtbf=1h", flag[0], flag[1]]),
            &["--level", "cannot be used with", flag[0]],
        );
    }
    refused(
        &i(&["--level", "cost=5s,mtbf=1h", "--iteration-time", "1s"]),
        &["--iteration-time", "--level"],
    );
    // The same lines from the other commands that take --level.
    refused(
        &["validate", "--level", "cost=5s,foo=1"],
        &["--level", "unknown key `foo`"],
    );
    refused(
        &[
            "simulate",
            "multilevel",
            "--level",
            "cost=5s,mtbf=1h",
            "--level",
            "cost=1s,mtbf=1h",
            "--interval",
            "1m",
            "--strides",
            "1,2",
            "--work",
            "1h",
        ],
        &["--level", "'cost=1s,mtbf=1h'", "increasing cost"],
    );
}

fn sim(levels: &[&str], rest: &[&str]) -> Vec<String> {
    [&["simulate", "multilevel"], levels, rest]
        .concat()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

#[test]
fn strides_must_nest() {
    let run = |strides: &'static str| {
        sim(
            &MACHINE,
            &["--interval", "5m", "--strides", strides, "--work", "10h"],
        )
    };
    fn as_str(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    for (strides, why) in [
        ("1,7,90", "not a multiple of level 2's stride 7"),
        ("1,7", "2 given for 3 levels"),
        ("2,4,8", "must be 1"),
        ("1,7,7", "levels 2 and 3 both have stride 7"),
        ("-,-,-", "top level must be used"),
    ] {
        refused(&as_str(&run(strides)), &["--strides", strides, why]);
    }
    refused(
        &as_str(&run("1,x,2")),
        &["--strides", "`x` is not a stride"],
    );
    // `-` leaves a level out.
    let out = stdout_of(&as_str(&run("-,1,8")));
    assert!(out.contains("strides -,1,8"), "{out}");
}

/// The simulated mean against the exact model where failures matter (cost/MTBF up to 0.1,
/// restarts above costs, a level left out, a downtime): |z| < 4 over a whole number of periods.
#[test]
fn simulate_agrees_with_the_exact_model() {
    let cases: [(&[&str], &str, &str, &str, &str); 3] = [
        (
            &[
                "--level",
                "cost=30s,restart=45s,mtbf=10m",
                "--level",
                "cost=3m,restart=5m,mtbf=30m",
            ],
            "2m",
            "1,3",
            "10h",
            "0",
        ),
        (&FAILING_OFTEN, "5m", "1,2,8", "40h", "30s"),
        (&FAILING_OFTEN, "5m", "-,1,4", "20h", "0"),
    ];
    for (levels, interval, strides, work, downtime) in cases {
        let args = sim(
            levels,
            &[
                "--interval",
                interval,
                "--strides",
                strides,
                "--work",
                work,
                "--downtime",
                downtime,
                "--runs",
                "400",
                "--seed",
                "11",
                "--format",
                "json",
            ],
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let v = json(&args);
        assert_eq!(v["model"]["whole_periods"], true, "{args:?}");
        let o = &v["figures"]["overhead"];
        let model = v["model"]["overhead"].as_f64().unwrap();
        let z = (o["point"].as_f64().unwrap() - model) / o["stderr"].as_f64().unwrap();
        assert!(z.abs() < 4.0, "{args:?}: z = {z}");
        assert!((v["model"]["z"].as_f64().unwrap() - z).abs() < 1e-9);
        // Failures mattered: the overhead is far from the failure-free one.
        assert!(model > 2.5, "{model}");
    }
}

#[test]
fn simulate_is_the_same_whatever_the_threads_and_shards() {
    let base = sim(
        &MACHINE,
        &[
            "--interval",
            "291s",
            "--strides",
            "1,7,91",
            "--work",
            "100h",
            "--runs",
            "90",
        ],
    );
    let base: Vec<&str> = base.iter().map(String::as_str).collect();
    for format in ["json", "table", "csv"] {
        let whole = stdout_of(&with(&base, &["--format", format, "--threads", "1"]));
        assert_eq!(
            whole,
            stdout_of(&with(&base, &["--format", format, "--threads", "2"]))
        );
        let args = with(&base, &["--format", format]);
        let merged = crate::common::merged_shards(&args, 3, "ckpt-ml-shards", format);
        assert_eq!(merged, whole, "{format}");
    }
    let csv = stdout_of(&with(&base, &["--format", "csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "figure,point,stderr,ci95_lo,ci95_hi,runs");
    assert!(lines.iter().any(|l| l.starts_with("failures_partner,")));
    assert!(lines.last().unwrap().starts_with("model_overhead,1.112"));
}

#[test]
fn validate_holds_the_pattern_against_simulation() {
    let dir = crate::common::temp_path("ckpt-ml-validate");
    let out = dir.to_str().unwrap();
    let args = on_machine(
        "validate",
        &[
            "--runs", "120", "--points", "5", "--work", "50h", "--format", "json",
        ],
    );
    let whole = stdout_of(&with(&args, &["--out", out]));
    let v: Value = serde_json::from_str(&whole).unwrap();
    assert_eq!(v["simulator"], "multilevel");
    assert_eq!(v["recommended_strides"], serde_json::json!([1, 7, 91]));
    let points = v["points"].as_array().unwrap();
    let kinds = |k: &str| points.iter().filter(|p| p["kind"] == k).count();
    assert_eq!(
        (kinds("model"), kinds("grid"), kinds("neighbour")),
        (1, 4, 4)
    );
    let verdict = &v["verdict"];
    assert_eq!(verdict["confirmed"], true);
    assert!(verdict["z"].as_f64().unwrap().abs() < 4.0);
    crate::common::assert_written(&dir, crate::common::VALIDATE_REPORT);
    assert_eq!(
        std::fs::read_to_string(dir.join("validate.json")).unwrap(),
        whole
    );
    // Shards and merge: the same document.
    let merged = crate::common::merged_shards(&args, 2, "ckpt-ml-validate-shards", "validate");
    assert_eq!(merged, whole);
    let table = stdout_of(&on_machine(
        "validate",
        &["--runs", "40", "--points", "3", "--work", "20h"],
    ));
    assert!(table.contains("model      1,7,91"), "{table}");
    refused(
        &with(&["validate", "--sim", "periodic"], &MACHINE),
        &["--level", "--sim"],
    );
}

#[test]
fn sweep_moves_the_strides_and_refuses_bad_ranges() {
    let dir = crate::common::temp_path("ckpt-ml-sweep2");
    let out = dir.to_str().unwrap();
    let args = on_machine(
        "sweep",
        &[
            "--vary",
            "level3.mtbf=1d..30d",
            "--points",
            "6",
            "--log",
            "--out",
            out,
        ],
    );
    let line = stdout_of(&args);
    assert!(line.starts_with("6 points of level3.mtbf"), "{line}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    let points = v["points"].as_array().unwrap();
    // Rarer file-system failures: the file system is written less often.
    let top = |p: &Value| p["strides"][2].as_u64().unwrap();
    assert!(top(&points[5]) > top(&points[0]));
    // Each point is the interval answer at that input.
    let at = points[5]["value"].as_f64().unwrap();
    let level = format!("cost=600s,restart=900s,mtbf={at}");
    let direct = json(&[
        "interval", MACHINE[0], MACHINE[1], MACHINE[2], MACHINE[3], "--level", &level, "--format",
        "json",
    ]);
    assert_eq!(points[5]["overhead"], direct["multilevel"]["overhead"]);
    for file in [
        "sweep.csv",
        "intervals.svg",
        "strides.png",
        "gain.svg",
        "overhead.png",
        "report.md",
    ] {
        assert!(dir.join(file).exists(), "{file}");
    }
    let s = |vary: &'static str| on_machine("sweep", &["--vary", vary, "--out", out]);
    refused(&s("level2.cost=1m..30m"), &["--vary", "5s..600s"]);
    refused(&s("level4.cost=1m..2m"), &["--vary", "N from 1 to 3"]);
    refused(&s("level2.size=1m..2m"), &["--vary", "levelN.cost"]);
    refused(&s("level2.mtbf=2h..1h"), &["--vary", "0 < LO < HI"]);
}

/// Levels that fail once a century, over a job of 10 h: no run meets a failure, so every run
/// takes the same time, a period of 7 chunks (the job rounded up to whole periods) with six
/// 5 s checkpoints and one of 60 s. The estimate has no spread (stderr 0, not round-off), no z
/// is formed, and the verdict's sentence gives the outcome instead.
#[test]
fn levels_that_never_fail_give_the_outcome_and_no_z() {
    let mut args = vec![
        "validate",
        "--level",
        "cost=5s,restart=10s,mtbf=100y",
        "--level",
        "cost=60s,restart=60s,mtbf=500y",
        "--work",
        "10h",
        "--runs",
        "20",
        "-q",
    ];
    let table = stdout_of(&args);
    args.extend(["--format", "json"]);
    let v = json(&args);
    let verdict = &v["verdict"];
    assert_eq!(verdict["strides"], serde_json::json!([1, 7]), "{verdict}");
    assert!(verdict["z"].is_null(), "{verdict}");
    let sim = &verdict["simulated_overhead"];
    assert_eq!(sim["stderr"], 0.0, "{sim}");
    let w = verdict["interval_s"].as_f64().unwrap();
    let expected = 1.0 + (6.0 * 5.0 + 60.0) / (7.0 * w);
    let point = sim["point"].as_f64().unwrap();
    assert!((point - expected).abs() < 1e-12, "{point} vs {expected}");
    assert!(
        table.contains(&format!("; every run measures {point:.4}.")),
        "{table}"
    );
}

/// Before: a level cost below half a nanosecond was refused by the simulator as "level1 with
/// cost 0" for "level", neither the value typed nor the flag; an interval as "'0'".
#[test]
fn a_cost_below_the_simulators_nanosecond_is_refused_as_typed() {
    let sim = [
        "simulate",
        "multilevel",
        "--strides",
        "1,4",
        "--work",
        "10h",
    ];
    let top = ["--level", "cost=1s,mtbf=1d"];
    refused(
        &[
            &sim[..],
            &["--level", "cost=0.4ns,mtbf=1h"],
            &top,
            &["--interval", "10m"],
        ]
        .concat(),
        &["--level", "cost=0.4ns,mtbf=1h", "0.5ns"],
    );
    refused(
        &[
            &sim[..],
            &["--level", "cost=0.5s,mtbf=1h"],
            &top,
            &["--interval", "1e-100"],
        ]
        .concat(),
        &["--interval", "1e-100s", "0.5ns"],
    );
}

//! Finite jobs, fixed allocations and asynchronous checkpoints from the command line
//! (docs/models.md §9-§11): `interval --work/--walltime/--async-write`, `simulate periodic
//! --async-write/--signal-lead`, `validate --async-write`, their bad input, and the README's
//! worked example.

use crate::common::{DAY, named, read_package_file, refused, stdout_of, temp_file, with};
use ckpt::model::asynchronous::AsyncComplete;
use serde_json::Value;

/// `interval` of the README's training job: a 3 h MTBF and 60 s checkpoints.
const TRAINING: &[&str] = &["interval", "--mtbf", "3h", "--cost", "60s"];

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&stdout_of(&all)).unwrap()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Daly's exact optimum `M (1 + W0(-e^(-1 - C/M)))`, through an independent Lambert W.
fn daly_exact(c: f64, m: f64) -> f64 {
    m * (1.0 + lambert_w::lambert_w0(-(-1.0 - c / m).exp()))
}

/// §11's overhead written from the formula (R = D = 0).
fn async_overhead(tau: f64, c: f64, m: f64, dw: f64, f: f64) -> f64 {
    ((1.0 - f) * dw / m).exp() * m * ((tau + c + f * dw) / m).exp_m1() / tau
}

#[test]
fn async_write_zero_is_daly_complete_exactly() {
    let base = with(TRAINING, &["--restart", "2m", "--downtime", "30s"]);
    let sync = json(&base);
    let mut with = base.to_vec();
    with.extend(["--async-write", "0"]);
    let asy = json(&with);
    assert_eq!(asy["recommended"], "async-complete");
    assert_eq!(sync["recommended"], "daly-complete");
    for key in ["recommended_interval_s", "recommended_overhead"] {
        assert_eq!(num(&asy[key]).to_bits(), num(&sync[key]).to_bits(), "{key}");
    }
    let (a, d) = (
        named(&asy, "models", "async-complete"),
        named(&sync, "models", "daly-complete"),
    );
    for key in ["interval_s", "overhead", "expected_failures"] {
        assert_eq!(num(&a[key]).to_bits(), num(&d[key]).to_bits(), "{key}");
    }
    // The synchronous rows are those of the run without the flag, number for number.
    for name in [
        "young",
        "daly-first-order",
        "daly-higher-order",
        "daly-exact",
        "daly-complete",
    ] {
        assert_eq!(
            named(&asy, "models", name),
            named(&sync, "models", name),
            "{name}"
        );
    }
    assert_eq!(asy["inputs"]["async_write_s"], 0.0);
    assert_eq!(asy["inputs"]["async_slowdown"], 0.0);
    assert!(sync["inputs"].get("async_write_s").is_none());
}

#[test]
fn vaidya_limit_from_the_command_line() {
    // C/M = 1/8.64e7: the optimum is sqrt(2 C M) whatever the 10 min write, and the overhead
    // 1 + C/T + (T/2 + D_w)/M to first order.
    let (m, c, dw): (f64, f64, f64) = (1000.0 * 86_400.0, 1.0, 600.0);
    for write in ["0", "10m"] {
        let v = json(&[
            "interval",
            "--mtbf",
            "1000d",
            "--cost",
            "1s",
            "--async-write",
            write,
        ]);
        let t = num(&v["recommended_interval_s"]);
        let young = (2.0 * c * m).sqrt();
        assert!(
            (t / young - 1.0).abs() < 2.0 * (c / m).sqrt(),
            "{t} {young}"
        );
        let w = if write == "0" { 0.0 } else { dw };
        let first = 1.0 + c / t + (t / 2.0 + w) / m;
        let o = num(&v["recommended_overhead"]);
        assert!(
            (o - first).abs() < 4.0 * c / m + 2.0 * (w / m).powi(2),
            "{o} {first}"
        );
    }
}

/// `simulate periodic` with an asynchronous write, against §11's finite job.
fn simulated_wall(m: f64, c: f64, r: f64, dw: f64, f: f64, tau: f64, work: f64) -> (f64, f64) {
    let v = json(&[
        "simulate",
        "periodic",
        "--mtbf",
        &m.to_string(),
        "--cost",
        &c.to_string(),
        "--restart",
        &r.to_string(),
        "--interval",
        &tau.to_string(),
        "--work",
        &work.to_string(),
        "--async-write",
        &dw.to_string(),
        "--async-slowdown",
        &f.to_string(),
        "--runs",
        "400",
        "--seed",
        "5",
        "--quiet",
    ]);
    assert_eq!(num(&v["inputs"]["async_write_s"]), dw);
    assert_eq!(num(&v["inputs"]["async_slowdown"]), f);
    let wall = &v["figures"]["wall_time_s"];
    (num(&wall["point"]), num(&wall["stderr"]))
}

#[test]
fn simulated_asynchronous_runs_agree_with_the_exact_model() {
    // D_w/M = 0.2 without and with a slowdown, and a slowdown of one half.
    for (m, c, r, dw, f, tau) in [
        (3600.0, 60.0, 60.0, 720.0, 0.0, 900.0),
        (3600.0, 60.0, 60.0, 720.0, 0.3, 900.0),
        (7200.0, 120.0, 0.0, 360.0, 0.5, 600.0),
    ] {
        let work = 24.0 * tau;
        let (mean, se) = simulated_wall(m, c, r, dw, f, tau, work);
        let model = AsyncComplete::new(m, c, r, 0.0, dw, f).unwrap();
        let expected = model.expected_wall(work, tau).unwrap();
        let z = (mean - expected) / se;
        assert!(z.abs() < 4.0, "{m} {c} {r} {dw} {f} {tau}: z = {z}");
    }
}

#[test]
fn whole_chunks_example() {
    // The example: W = 10 d, C = R = 10 min, D = 1 min, M = 1 d.
    let args = [
        "interval",
        "--mtbf",
        "1d",
        "--cost",
        "10m",
        "--restart",
        "10m",
        "--downtime",
        "1m",
        "--work",
        "10d",
    ];
    let v = json(&args);
    let w = &v["whole_chunks"];
    assert_eq!(w["count"], 88);
    let completion = num(&w["completion_s"]);
    assert!((completion - 981_835.86).abs() < 0.005, "{completion}");
    assert_eq!(num(&w["interval_s"]), 864_000.0 / 88.0);
    // Bougeret's formula evaluated directly: 88 beats its neighbours and matches.
    let direct = |k: f64| {
        let (m, c, r, d) = (86_400.0f64, 600.0, 600.0, 60.0);
        k * (r / m).exp() * (m + d) * ((864_000.0 / k + c) / m).exp_m1()
    };
    assert!((direct(88.0) / completion - 1.0).abs() < 1e-12);
    assert!(direct(87.0) > completion && direct(89.0) > completion);
    // The continuous relaxation W overhead(tau*) is a lower bound, up to rounding.
    let relaxed = num(&named(&v, "models", "daly-complete")["completion_s"]);
    assert!(
        relaxed <= completion * (1.0 + 1e-12),
        "{relaxed} {completion}"
    );
    let table = stdout_of(&args);
    // The spread as docs/guide.md quotes it (a regression guard: model::chunks holds it to a
    // simulation of segments with their downtime).
    assert!(
        table.contains("in whole chunks: 88 chunks of ")
            && table.contains("(981836 s), standard deviation 6h 21m 54s (22914 s)"),
        "{table}"
    );
    assert!((num(&w["completion_sd_s"]) - 22_914.25).abs() < 0.01, "{w}");
    // With a background write the count minimizes §11's finite job instead, and the spread
    // is that job's (model::asynchronous holds it to the simulator), at the chunk reported.
    let mut asy = args.to_vec();
    asy.extend(["--async-write", "20m"]);
    let v = json(&asy);
    let k = v["whole_chunks"]["count"].as_u64().unwrap();
    let model = AsyncComplete::new(86_400.0, 600.0, 600.0, 60.0, 1200.0, 0.0).unwrap();
    let chunk = num(&v["whole_chunks"]["interval_s"]);
    let sd = model.completion_sd(864_000.0, chunk).unwrap().unwrap();
    assert_eq!(num(&v["whole_chunks"]["completion_sd_s"]), sd, "{v}");
    // The write adds to the spread of the synchronous job's 22914 s.
    assert!(sd > 22_914.25, "{sd}");
    let at = |k: u64| {
        model
            .expected_wall(864_000.0, (864_000.0 / k as f64).next_up())
            .unwrap()
    };
    assert!(at(k) <= at(k - 1) && at(k) <= at(k + 1), "{k}");
}

/// A one-second checkpoint in a day's allocation (once refused, then solved on 691,200 points,
/// now on 26,600: the grid follows the period, not the cost): the simulator agrees with the
/// expected saved work.
#[test]
fn a_long_allocation_with_cheap_checkpoints_holds_against_simulation() {
    let job = [
        "--mtbf",
        "6h",
        "--cost",
        "1s",
        "--restart",
        "1m",
        "--walltime",
        "24h",
    ];
    let v = json(&[&["interval"][..], &job].concat());
    let a = &v["allocation"];
    let tau = num(&a["interval_s"]).to_string();
    let saved = num(&a["expected_saved_work_s"]);
    let lead = a["signal_lead_s"].as_u64().unwrap().to_string();
    let run = [
        "--interval",
        &tau,
        "--signal-lead",
        &lead,
        "--work",
        "1000h",
        "--runs",
        "400",
        "--seed",
        "5",
        "--quiet",
    ];
    let v = json(&[&["simulate", "periodic"][..], &job, &run].concat());
    let s = &v["figures"]["saved_work_s"];
    let z = (num(&s["point"]) - saved) / num(&s["stderr"]);
    assert!(z.abs() < 4.0, "z = {z}: {s} vs {saved}");
}

#[test]
fn allocation_schedule_holds_against_simulation() {
    let (m, c, r, limit) = ("3h", "2m", "1m", "12h");
    let base = [
        "interval",
        "--mtbf",
        m,
        "--cost",
        c,
        "--restart",
        r,
        "--walltime",
        limit,
    ];
    let v = json(&base);
    let a = &v["allocation"];
    let (n, tau) = (a["checkpoints"].as_u64().unwrap(), num(&a["interval_s"]));
    let lead = a["signal_lead_s"].as_u64().unwrap();
    let saved = num(&a["expected_saved_work_s"]);
    // The lead covers one checkpoint; the failure-free schedule's last checkpoint (the
    // signal's) ends inside the allocation, on T - L + C.
    assert_eq!(lead, 120);
    assert_eq!(a["sbatch"], "#SBATCH --signal=B:USR1@120");
    let end = n as f64 * (tau + 120.0);
    assert!((end - (43_200.0 - 120.0 + 120.0)).abs() < 1e-6, "{end}");
    assert_eq!(v["inputs"]["walltime_s"], 43_200.0);
    // `--format slurm`: the two lines a batch script takes.
    let mut slurm = base.to_vec();
    slurm.extend(["--format", "slurm"]);
    assert_eq!(
        stdout_of(&slurm),
        format!(
            "#SBATCH --signal=B:USR1@120\nCKPT_INTERVAL_SECONDS={}\n",
            tau.round()
        )
    );
    // `env` and `scr` give the allocation's interval too, not the long-run one.
    let long_run = stdout_of(
        &base[..7]
            .iter()
            .chain(&["--format", "env"])
            .copied()
            .collect::<Vec<_>>(),
    );
    assert_ne!(long_run, format!("CKPT_INTERVAL_SECONDS={}\n", tau.round()));
    for (format, expected) in [
        (
            "env",
            format!(
                "CKPT_INTERVAL_SECONDS={}\nCKPT_SIGNAL_LEAD_SECONDS=120\n",
                tau.round()
            ),
        ),
        ("scr", format!("SCR_CHECKPOINT_SECONDS={}\n", tau.round())),
    ] {
        let mut args = base.to_vec();
        args.extend(["--format", format]);
        assert_eq!(stdout_of(&args), expected, "{format}");
    }
    // A margin lengthens the lead to a whole second above the checkpoint.
    let mut margin = base.to_vec();
    margin.extend(["--signal-margin", "30.5s"]);
    assert_eq!(json(&margin)["allocation"]["signal_lead_s"], 151);

    let tau_s = tau.to_string();
    // The job in its allocation, with the signal `lead` before the end.
    let job = |lead| {
        vec![
            "simulate",
            "periodic",
            "--cost",
            c,
            "--interval",
            &tau_s,
            "--work",
            "1000h",
            "--walltime",
            limit,
            "--signal-lead",
            lead,
        ]
    };
    let sim = |extra: &[&str]| {
        let mut args = job("120");
        args.extend(["--restart", r, "--quiet"]);
        args.extend(extra);
        json(&args)
    };
    let v = sim(&["--mtbf", m, "--runs", "400", "--seed", "11"]);
    let s = &v["figures"]["saved_work_s"];
    let z = (num(&s["point"]) - saved) / num(&s["stderr"]);
    assert!(z.abs() < 4.0, "z = {z}: {s} vs {saved}");
    assert_eq!(v["inputs"]["signal_lead_s"], 120.0);
    // Every run ends inside the allocation (each run's wall time is at most the walltime).
    assert_eq!(num(&v["figures"]["finished_within_walltime"]["point"]), 1.0);
    // Without failures the run saves all but the checkpoints and ends at T - L + C.
    let empty = temp_file("ckpt-finite-cli", "no-failures.csv", "");
    let v = sim(&["--trace", empty.to_str().unwrap()]);
    let wall = num(&v["figures"]["wall_time_s"]["point"]);
    assert!((wall - 43_200.0).abs() < 1e-6, "{wall}");
    let kept = num(&v["figures"]["saved_work_s"]["point"]);
    assert!(
        (kept - (43_200.0 - n as f64 * 120.0)).abs() < 1e-6,
        "{kept}"
    );
    let mut table = job("2m");
    table.extend(["--trace", empty.to_str().unwrap()]);
    let table = stdout_of(&table);
    assert!(table.contains("saved work"), "{table}");
}

#[test]
fn validate_holds_the_asynchronous_model() {
    let v = json(&[
        "validate",
        "--mtbf",
        "3h",
        "--cost",
        "60s",
        "--async-write",
        "10m",
        "--async-slowdown",
        "0.1",
        "--work",
        "50h",
        "--runs",
        "200",
        "--points",
        "9",
        "--quiet",
    ]);
    let text = v.to_string();
    assert!(text.contains("async-complete"), "{text}");
    let ours = named(&v, "verdicts", "async-complete");
    let z = num(&ours["z"]);
    assert!(z.abs() < 4.0, "z = {z}");
    assert_eq!(ours["confirmed"], true);
}

#[test]
fn bad_input_gets_one_line() {
    // `interval` of a 6 h MTBF and 10 min checkpoints, then `simulate periodic` of a 6 h MTBF
    // and 1 min checkpoints, each with flags that are wrong or do not go together.
    let interval = ["interval", "--mtbf", "6h", "--cost", "10m"];
    let sim = [
        "simulate",
        "periodic",
        "--mtbf",
        "6h",
        "--cost",
        "1m",
        "--interval",
        "1h",
        "--work",
        "10h",
    ];
    // A checkpoint longer than Slurm's longest lead is the cost's fault, margin or not.
    let slow = ["interval", "--mtbf", "100h", "--cost", "20h"];
    for (base, extra, needles) in [
        (
            &interval[..],
            &["--walltime", "5m"][..],
            &["--walltime", "300s", "longer than one checkpoint"][..],
        ),
        (
            &slow,
            &["--walltime", "100h"],
            &["--cost", "72000s", "at most 65535 s"],
        ),
        (
            &interval,
            &["--walltime", "100h", "--signal-margin", "65000s"],
            &["--signal-margin", "65000s", "65535 s"],
        ),
        (
            &interval,
            &["--walltime", "10m"],
            &["--walltime", "longer than one checkpoint"],
        ),
        (
            &interval,
            &["--async-write", "-5m"],
            &["--async-write", "-5m", "zero or more"],
        ),
        (
            &interval,
            &["--async-write", "-5"],
            &["--async-write", "zero or more"],
        ),
        (&interval, &["--async-slowdown", "0.5"], &["--async-write"]),
        (
            &interval,
            &["--format", "slurm"],
            &["--format slurm", "--walltime"],
        ),
        (
            &interval,
            &["--walltime", "1d", "--async-write", "5m"],
            &["--async-write", "--walltime"],
        ),
        (
            &interval,
            &["--procs", "4", "--async-write", "5m"],
            &["--procs"],
        ),
        (&interval, &["--signal-margin", "1m"], &["--walltime"]),
        (&sim, &["--async-write", "-1"], &["--async-write", "-1"]),
        (
            &sim,
            &["--async-write", "1m", "--async-slowdown", "1"],
            &["--async-slowdown", "below 1"],
        ),
        (
            &sim,
            &["--signal-lead", "2m"],
            &["--signal-lead", "--walltime"],
        ),
        (
            &sim,
            &["--walltime", "5h", "--signal-lead", "30s"],
            &["--signal-lead", "30s", "one checkpoint"],
        ),
        (
            &sim,
            &["--walltime", "1m", "--signal-lead", "1m"],
            &["--walltime", "longer than one checkpoint"],
        ),
        (
            &sim,
            &[
                "--walltime",
                "5h",
                "--signal-lead",
                "1m",
                "--async-write",
                "1m",
            ],
            &["asynchronous"],
        ),
    ] {
        refused(&with(base, extra), needles);
    }
    for f in ["1", "-0.1", "1.5", "nan"] {
        refused(
            &with(&interval, &["--async-write", "5m", "--async-slowdown", f]),
            &["--async-slowdown", f, "below 1", "0"],
        );
    }
    // Longer than 31,250 best periods (85 s for a 1 s checkpoint at 1 h): refused, not
    // approximated.
    refused(
        &[
            "interval",
            "--mtbf",
            "1h",
            "--cost",
            "1s",
            "--walltime",
            "100d",
        ],
        &["--walltime", "31,250 times"],
    );
    refused(
        &[
            "validate",
            "--mtbf",
            "6h",
            "--cost",
            "1m",
            "--async-write",
            "1m",
            "--async-slowdown",
            "2",
        ],
        &["--async-slowdown", "2"],
    );
}

/// The README's worked example: every figure it prints is what the command beside it gives,
/// and what the formulas of docs/models.md §11 give independently.
#[test]
fn readme_ml_training_numbers() {
    let readme = read_package_file("README.md");
    let (m, c, dw) = (10_800.0, 60.0, 600.0);
    let base = with(TRAINING, &["--async-write", "10m"]);
    let v = json(&base);
    let t = num(&v["recommended_interval_s"]);
    let o = num(&v["recommended_overhead"]);
    assert!((t - daly_exact(c, m)).abs() < 1e-6 * t);
    assert!((o - async_overhead(t, c, m, dw, 0.0)).abs() < 1e-9);
    assert_eq!(format!("{t:.0}"), "1099");
    assert_eq!(format!("{o:.4}"), "1.1769");
    // The synchronous row for a blocking 660 s checkpoint, and what it costs run async.
    let sync = named(&v, "models", "daly-complete");
    let ts = num(&sync["interval_s"]);
    assert!((ts - daly_exact(c + dw, m)).abs() < 1e-6 * ts);
    let loss = num(&sync["loss_pct"]);
    let expected = 100.0 * (async_overhead(ts, c, m, dw, 0.0) / o - 1.0);
    assert!((loss - expected).abs() < 1e-6, "{loss} {expected}");
    assert_eq!(format!("{ts:.0}"), "3349");
    assert_eq!(format!("{loss:.1}"), "7.5");
    let mut slow = base.to_vec();
    slow.extend(["--async-slowdown", "0.1"]);
    let tf = num(&json(&slow)["recommended_interval_s"]);
    assert!((tf - daly_exact(c + 0.1 * dw, m)).abs() < 1e-6 * tf);
    assert_eq!(format!("{tf:.0}"), "1531");
    for figure in ["1099 s", "1.1769", "3349 s", "7.5%", "1531 s"] {
        assert!(readme.contains(figure), "README lacks {figure}");
    }
    for command in [
        "ckpt interval --mtbf 3h --cost 60s --async-write 10m",
        "ckpt interval --mtbf 3h --cost 60s --async-write 10m --async-slowdown 0.1",
    ] {
        assert!(readme.contains(command), "README lacks `{command}`");
    }
    // The README's one-line Slurm example prints what the README says.
    let slurm = stdout_of(&[&["interval"][..], &DAY, &["--format", "slurm"]].concat());
    assert!(
        readme.contains(
            "ckpt interval --mtbf 6h --cost 5m --restart 5m --walltime 24h --format slurm"
        ),
        "README lacks the Slurm example"
    );
    for line in slurm.lines() {
        assert!(readme.contains(line), "README lacks `{line}`");
    }
}

/// The new options travel through the shard files: two shards merged give the single
/// process's bytes, for an asynchronous and for an allocation run.
#[test]
fn shards_carry_the_finite_options() {
    let base = [
        "simulate",
        "periodic",
        "--mtbf",
        "2h",
        "--cost",
        "1m",
        "--interval",
        "20m",
        "--runs",
        "30",
        "--format",
        "json",
    ];
    for (name, extra) in [
        (
            "async",
            &[
                "--work",
                "10h",
                "--async-write",
                "5m",
                "--async-slowdown",
                "0.2",
            ][..],
        ),
        (
            "allocation",
            &["--work", "100h", "--walltime", "6h", "--signal-lead", "90s"][..],
        ),
    ] {
        let mut args = base.to_vec();
        args.extend(extra);
        let single = stdout_of(&args);
        let merged = crate::common::merged_shards(&args, 2, "ckpt-finite-shards", name);
        assert_eq!(merged, single, "{name}");
    }
}

/// An application that checkpoints only between iterations (`--iteration-time 17m`) inside a
/// 24 h allocation: the best whole number of iterations (3, every 3060 s, against the aligned
/// 3457 s) is what `slurm`, `env` and `scr` give, and the simulator agrees with its saved work.
#[test]
fn an_allocation_in_whole_iterations_holds_against_simulation() {
    let base = [&["interval"][..], &DAY, &["--iteration-time", "17m"]].concat();
    let v = json(&base);
    let it = &v["allocation"]["iterations"];
    assert_eq!(it["iterations"], 3);
    assert_eq!(num(&it["interval_s"]), 3060.0);
    let saved = num(&it["expected_saved_work_s"]);
    let aligned = num(&v["allocation"]["expected_saved_work_s"]);
    let loss = num(&it["loss_pct"]);
    assert!(saved < aligned && (loss - 100.0 * (aligned - saved) / aligned).abs() < 1e-9);
    for (format, expected) in [
        (
            "slurm",
            "#SBATCH --signal=B:USR1@300\nCKPT_INTERVAL_SECONDS=3060\n",
        ),
        (
            "env",
            "CKPT_INTERVAL_SECONDS=3060\nCKPT_SIGNAL_LEAD_SECONDS=300\n",
        ),
        ("scr", "SCR_CHECKPOINT_SECONDS=3060\n"),
    ] {
        assert_eq!(stdout_of(&with(&base, &["--format", format])), expected);
    }
    let table = stdout_of(&base);
    assert!(
        table.contains("in the allocation, in whole iterations: every 3 iterations (51m 0s)"),
        "{table}"
    );
    let run = [
        "--signal-lead",
        "300",
        "--interval",
        "3060",
        "--work",
        "1000h",
        "--runs",
        "4000",
        "--seed",
        "11",
        "--format",
        "json",
    ];
    let sim: Value = serde_json::from_str(&stdout_of(
        &[&["simulate", "periodic"][..], &DAY, &run].concat(),
    ))
    .unwrap();
    let f = &sim["figures"]["saved_work_s"];
    let z = (saved - num(&f["point"])) / num(&f["stderr"]);
    assert!(z.abs() < 4.0, "model {saved}, runs {f}");
}

//! The stencil simulator (docs/simulation.md §3): hand-checked cases, invariants over many
//! seeds and traces, the paper's settings, and the command line.

use crate::common::{
    PAPER_FIVE_FAILURES, SMALL_STENCIL, ckpt, refused, stdout_of, temp_file, with,
};
use ckpt::rng::run_rng;
use ckpt::sim::stencil::config::TraceFailure;
use ckpt::sim::stencil::run::FailureStream;
use ckpt::sim::stencil::{Failures, Recovery, RunFigures, StencilConfig, layout, simulate};
use ckpt::units::Nanos;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const S: Nanos = 1_000_000_000;

/// A failure-free, checkpointing stencil with the hand checks' costs: 10 s tasks, 1 s backups
/// and transfers.
fn cfg(width: u32, rows: u32, workers: u32, level: u32, recovery: Recovery) -> StencilConfig {
    StencilConfig {
        width,
        rows,
        workers,
        level,
        checkpoint: true,
        recovery,
        process_cost: 10 * S,
        backup_cost: S,
        transfer_cost: S,
        failures: Failures::None,
        output_bytes: None,
    }
}

fn with_trace(mut c: StencilConfig, trace: &[(Nanos, u32)]) -> StencilConfig {
    let mut v: Vec<TraceFailure> = trace
        .iter()
        .map(|&(time, worker)| TraceFailure { time, worker })
        .collect();
    v.sort_by_key(|f| f.time);
    c.failures = Failures::Trace(v);
    c
}

fn run(c: &StencilConfig) -> RunFigures {
    let l = layout(c);
    let f = simulate(&l, c, FailureStream::new(c, run_rng(7, 0)))
        .unwrap_or_else(|e| panic!("{e} for {c:?}"));
    invariants(c, &f);
    f
}

fn invariants(c: &StencilConfig, f: &RunFigures) {
    let tasks = (c.width * c.rows) as u64;
    assert_eq!(f.tasks, tasks);
    // Every task complete exactly once: one standing execution each.
    assert_eq!(f.tasks_per_worker.iter().sum::<u64>(), tasks, "{c:?}");
    assert_eq!(f.executions, f.tasks + f.cancelled_executions, "{c:?}");
    let split = f.useful + f.transfer + f.cancelled + f.waiting + f.checkpointing + f.idle;
    assert_eq!(split, c.workers as u64 * f.makespan + f.resend, "{c:?}");
    assert_eq!(f.aggregate_processing, tasks * c.process_cost + f.cancelled);
    assert!(f.makespan >= 2 * c.rows as u64 * c.process_cost);
}

/// The issue's hand-checked cases on 4 x 4 tasks and 2 workers, each with its makespan,
/// cancelled executions and aggregate processing: at level 1 and 2, without checkpoints, and
/// with worker 1 failing at 5 s under each recovery. Without failures nothing is cancelled and
/// each of the 16 tasks is processed once (160 s). The reference implementation is held to
/// them too.
pub(crate) fn hand_checked_cases() -> Vec<(StencilConfig, (Nanos, u64, Nanos))> {
    let c = |level, checkpoint, recovery, failure: bool| {
        let mut c = cfg(4, 4, 2, level, recovery);
        c.checkpoint = checkpoint;
        if failure {
            c = with_trace(c, &[(5 * S, 1)]);
        }
        c
    };
    vec![
        (c(1, true, Recovery::Global, false), (87 * S, 0, 160 * S)),
        (c(2, true, Recovery::Global, false), (88 * S, 0, 160 * S)),
        (c(1, false, Recovery::Global, false), (84 * S, 0, 160 * S)),
        (c(1, true, Recovery::Global, true), (92 * S, 2, 170 * S)),
        (c(1, true, Recovery::Dependency, true), (92 * S, 1, 165 * S)),
    ]
}

#[test]
fn hand_checked_cases_of_the_issue() {
    for (c, expected) in hand_checked_cases() {
        let f = run(&c);
        let got = (f.makespan, f.cancelled_executions, f.aggregate_processing);
        assert_eq!(got, expected, "{c:?}");
    }
}

#[test]
fn failure_free_makespan_is_the_critical_path() {
    // 2T x 7.1 s = 3635.2 s, plus 639 transfers and backups of 1.3 ms on the critical path.
    let mut c = cfg(256, 256, 128, 1, Recovery::Global);
    c.process_cost = 7_100_000_000;
    c.backup_cost = 1_300_000;
    c.transfer_cost = 1_300_000;
    let f = run(&c);
    assert_eq!(f.makespan, 3_636_030_700_000);
    assert_eq!(f.cancelled_executions, 0);
    // Fair shares: every worker processes 512 tasks.
    assert!(f.tasks_per_worker.iter().all(|&n| n == 512));
    // Without transfer or backup cost the makespan is exactly 2T tasks.
    c.backup_cost = 0;
    c.transfer_cost = 0;
    assert_eq!(run(&c).makespan, 512 * 7_100_000_000);
}

#[test]
fn strong_scaling_flattens_where_the_critical_path_binds() {
    let mut c = cfg(128, 128, 1, 1, Recovery::Global);
    c.checkpoint = false;
    c.process_cost = 5 * S;
    c.backup_cost = 0;
    c.transfer_cost = 0;
    let mut last = u64::MAX;
    for workers in [1, 2, 4, 8, 16, 32, 64, 96, 128, 256] {
        c.workers = workers;
        let m = run(&c).makespan;
        if workers <= 64 {
            // Ideal speedup up to W/2 workers.
            assert_eq!(m, 128 * 128 * 5 * S / workers as u64, "{workers} workers");
        } else {
            assert_eq!(m, 1280 * S, "{workers} workers");
        }
        assert!(m <= last);
        last = m;
    }
}

/// A random small configuration and trace.
fn random_case(rng: &mut ChaCha8Rng) -> (StencilConfig, Vec<(Nanos, u32)>) {
    let level = rng.random_range(1..=3u32);
    let h = 1u32 << (level - 1);
    let width = 2 * h * rng.random_range(1..=4u32);
    let rows = rng.random_range(1..=10u32);
    let workers = rng.random_range(1..=7u32);
    let recovery = if rng.random::<bool>() {
        Recovery::Global
    } else {
        Recovery::Dependency
    };
    let mut c = cfg(width, rows, workers, level, recovery);
    c.checkpoint = rng.random_range(0..6) != 0;
    c.process_cost = rng.random_range(1..=10u64) * S;
    c.backup_cost = rng.random_range(0..=4u64) * S / 2;
    c.transfer_cost = rng.random_range(0..=3u64) * S / 2;
    let horizon = (2 * rows as u64 * c.process_cost) * 3;
    let nf = rng.random_range(0..=5usize);
    let mut trace = Vec::new();
    for _ in 0..nf {
        // Whole seconds make failures coincide with ends of processing and copies often.
        let t = rng.random_range(0..horizon / S) * S;
        let w = rng.random_range(0..workers);
        trace.push((t, w));
        if rng.random_range(0..4) == 0 {
            // A worker and its guard at one instant, or the same worker twice.
            trace.push((
                t,
                if rng.random::<bool>() {
                    (w + 1) % workers
                } else {
                    w
                },
            ));
        }
    }
    (c, trace)
}

#[test]
fn invariants_hold_over_many_random_traces() {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    for _ in 0..1500 {
        let (c, trace) = random_case(&mut rng);
        let c = with_trace(c, &trace);
        let a = run(&c);
        // Identical inputs, identical results.
        assert_eq!(a, run(&c));
    }
}

#[test]
fn invariants_hold_over_many_seeded_poisson_runs() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let (mut failures, mut cancelled) = (0, 0);
    for i in 0..300 {
        let (mut c, _) = random_case(&mut rng);
        // Some failures per run, but not so many that a global restart never finishes.
        let span = (2 * c.rows as u64 + (c.width * c.rows / c.workers) as u64) * c.process_cost;
        c.failures = Failures::Poisson {
            mtbf: span / 4 * rng.random_range(1..=8u64),
        };
        let l = layout(&c);
        let a = simulate(&l, &c, FailureStream::new(&c, run_rng(i, 3))).unwrap();
        invariants(&c, &a);
        assert_eq!(
            a,
            simulate(&l, &c, FailureStream::new(&c, run_rng(i, 3))).unwrap()
        );
        failures += a.failures;
        cancelled += a.cancelled_executions;
    }
    assert!(
        failures > 300 && cancelled > 300,
        "{failures} failures, {cancelled} cancelled"
    );
}

#[test]
fn one_failure_dependency_never_cancels_more_than_global() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..800 {
        let (c, trace) = random_case(&mut rng);
        let Some(&first) = trace.first() else {
            continue;
        };
        let mut g = with_trace(c.clone(), &[first]);
        g.recovery = Recovery::Global;
        let mut d = g.clone();
        d.recovery = Recovery::Dependency;
        let (fg, fd) = (run(&g), run(&d));
        assert!(
            fd.cancelled_executions <= fg.cancelled_executions,
            "{d:?}: {} > {}",
            fd.cancelled_executions,
            fg.cancelled_executions
        );
    }
}

#[test]
fn level_one_single_failure_cancels_at_most_one_under_dependency() {
    // Large backups so that many failure instants fall into a remote copy; every half second
    // and every worker.
    for (width, rows, workers) in [(4, 4, 2), (8, 6, 3), (8, 5, 5)] {
        let mut c = cfg(width, rows, workers, 1, Recovery::Dependency);
        c.backup_cost = 3 * S;
        c.transfer_cost = S / 2;
        let m0 = run(&c).makespan;
        let mut during_copy = 0;
        let mut t = 0;
        while t <= m0 {
            for w in 0..workers {
                let f = run(&with_trace(c.clone(), &[(t, w)]));
                assert!(
                    f.cancelled_executions <= 1,
                    "failure of {w} at {t} ns on {width}x{rows}: {}",
                    f.cancelled_executions
                );
                if f.failures == 1 && f.checkpointing > f.remote_copies * c.backup_cost + f.resend {
                    // A send was cut short: the failure hit a remote copy.
                    during_copy += 1;
                }
            }
            t += S / 2;
        }
        assert!(
            during_copy > 10,
            "only {during_copy} failures hit a remote copy"
        );
    }
}

#[test]
fn worker_and_guard_failing_together_lose_checkpoints_and_both_strategies_finish() {
    // With two workers, a worker and its guard failing together lose every copy: the domino
    // path of 3.5 rolls back to row 1, so the run restarts from scratch at the failure.
    for level in [1, 2] {
        for recovery in [Recovery::Global, Recovery::Dependency] {
            let c = cfg(8, 8, 2, level, recovery);
            let m0 = run(&c).makespan;
            for t in [23 * S, 41 * S, 60 * S] {
                let f = run(&with_trace(c.clone(), &[(t, 0), (t, 1)]));
                assert_eq!(f.makespan, t + m0, "level {level} {recovery:?} at {t}");
                assert_eq!(f.failures, 2);
            }
        }
    }
    // With more workers only the pair's checkpoints are lost; both strategies still finish and
    // the pair costs at least what either failure alone costs.
    for level in [1, 2, 3] {
        for recovery in [Recovery::Global, Recovery::Dependency] {
            let mut c = cfg(16, 12, 4, level, recovery);
            c.backup_cost = S / 10;
            for t in [35 * S, 70 * S, 101 * S] {
                let pair = run(&with_trace(c.clone(), &[(t, 2), (t, 3)]));
                let alone = run(&with_trace(c.clone(), &[(t, 2)]));
                assert!(pair.cancelled_executions >= alone.cancelled_executions);
            }
        }
    }
}

#[test]
fn failure_order_within_an_instant_changes_no_figure() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..300 {
        let (c, _) = random_case(&mut rng);
        if c.workers < 3 {
            continue;
        }
        let t = rng.random_range(0..(c.rows as u64 * 20)) * S;
        let ws: Vec<u32> = (0..3).map(|_| rng.random_range(0..c.workers)).collect();
        let a: Vec<_> = ws.iter().map(|&w| (t, w)).collect();
        let b: Vec<_> = ws.iter().rev().map(|&w| (t, w)).collect();
        let fa = run(&with_trace(c.clone(), &a));
        let fb = run(&with_trace(c.clone(), &b));
        assert_eq!(fa, fb, "{c:?} {ws:?}");
    }
}

#[test]
fn the_papers_five_failure_trace_reproduces_the_direction_and_growth() {
    let file = std::fs::read_to_string("data/paper/five-failures.csv").unwrap();
    let trace: Vec<(Nanos, u32)> = ckpt::sim::stencil::config::trace_failures(&file, "five", 128)
        .unwrap()
        .into_iter()
        .map(|f| (f.time, f.worker))
        .collect();
    let paper = |level, recovery| {
        let mut c = cfg(256, 256, 128, level, recovery);
        c.process_cost = 7_100_000_000;
        c.backup_cost = 1_300_000;
        c.transfer_cost = 1_300_000;
        run(&with_trace(c, &trace))
    };
    let gap = |a: u64, b: u64| (a as f64 - b as f64) / a as f64;
    let (g1, d1) = (paper(1, Recovery::Global), paper(1, Recovery::Dependency));
    let (g6, d6) = (paper(6, Recovery::Global), paper(6, Recovery::Dependency));
    // docs/simulation.md §3.9: 0.4-0.5% and 21-29% lower aggregate processing; makespan 0% and 16-29%.
    let a1 = gap(g1.aggregate_processing, d1.aggregate_processing);
    let a6 = gap(g6.aggregate_processing, d6.aggregate_processing);
    assert!((0.004..=0.005).contains(&a1), "{a1}");
    assert!((0.21..=0.29).contains(&a6), "{a6}");
    assert!(gap(g1.makespan, d1.makespan).abs() < 0.001);
    assert!((0.16..=0.29).contains(&gap(g6.makespan, d6.makespan)));
    // Global cancels one execution per worker per failure at level 1.
    assert_eq!(g1.cancelled_executions, 5 * 128);
    assert_eq!(d1.cancelled_executions, 5);
}

#[test]
fn cli_reads_the_papers_config_and_json_is_thread_independent() {
    let args = [
        "simulate",
        "stencil",
        "--config",
        "data/paper/rollback.ini",
        "--width",
        "32",
        "--rows",
        "32",
        "--workers",
        "8",
        "--level",
        "2",
        "--mtbf",
        "300",
        "--runs",
        "12",
        "--format",
        "json",
    ];
    let one = ckpt().args(args).args(["--threads", "1"]).output().unwrap();
    let two = ckpt().args(args).args(["--threads", "2"]).output().unwrap();
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    assert_eq!(one.stdout, two.stdout);
    let v: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["simulator"], "stencil");
    assert_eq!(v["runs"], 12);
    assert_eq!(v["seed"], 42);
    for k in [
        "makespan_s",
        "executions",
        "cancelled_executions",
        "aggregate_processing_s",
        "useful_s",
        "transfer_s",
        "cancelled_s",
        "waiting_s",
        "checkpointing_s",
        "idle_s",
        "failures",
    ] {
        assert_eq!(v["figures"][k]["runs"], 12, "{k}");
        assert!(v["figures"][k]["point"].is_number(), "{k}");
    }
}

/// The cost flags read durations as every duration flag does: a humantime form and the same
/// time in plain seconds are one cost, to the nanosecond, as is the same cost from the INI.
#[test]
fn stencil_costs_read_humantime_and_seconds_alike() {
    let base = SMALL_STENCIL;
    let run = |extra: &[&str]| {
        stdout_of(&with(
            &with(
                base,
                &[
                    "--level", "2", "--mtbf", "20m", "--runs", "3", "--seed", "42", "--format",
                    "json",
                ],
            ),
            extra,
        ))
    };
    let seconds = run(&["--process-cost", "0.0013", "--backup-cost", "0.25"]);
    let humantime = run(&["--process-cost", "1.3ms", "--backup-cost", "250ms"]);
    assert_eq!(seconds, humantime);
    let ini = write_temp(
        "humantime-costs.ini",
        "[GENERAL]\nWorkerCount = 4\n[Stencil]\nStencilSize = 16\nTimesteps = 16\nProcessCost = 1.3ms\nBackupCost = 250ms\n",
    );
    let from_file = stdout_of(&with(
        &["simulate", "stencil", "--config", ini.to_str().unwrap()],
        &[
            "--level", "2", "--mtbf", "20m", "--runs", "3", "--seed", "42", "--format", "json",
        ],
    ));
    assert_eq!(seconds, from_file);
}

/// The hand-checked grid on the command line: 4 x 4 tasks on 2 workers.
const HAND_CHECKED: &[&str] = &[
    "simulate",
    "stencil",
    "--width",
    "4",
    "--rows",
    "4",
    "--workers",
    "2",
];

fn write_temp(name: &str, text: &str) -> crate::common::ScratchPath {
    temp_file("ckpt-stencil", name, text)
}

#[test]
fn cli_trace_run_matches_the_hand_check_and_reports_per_worker_tasks() {
    let trace = write_temp("t1.csv", "# time,worker\n5,1\n");
    let out = ckpt()
        .args(HAND_CHECKED)
        .args([
            "--level",
            "1",
            "--process-cost",
            "10",
            "--backup-cost",
            "1",
            "--recovery",
            "dependency",
            "--format",
            "json",
            "--trace",
        ])
        .arg(&*trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["figures"]["makespan_s"]["point"], 92.0);
    assert_eq!(v["figures"]["cancelled_executions"]["point"], 1.0);
    assert_eq!(v["figures"]["aggregate_processing_s"]["point"], 165.0);
    assert_eq!(
        v["figures"]["makespan_s"]["stderr"],
        serde_json::Value::Null
    );
    assert_eq!(v["tasks_per_worker"].as_array().unwrap().len(), 2);
}

#[test]
fn cli_bad_input_is_one_line_with_exit_two() {
    let bad_key = write_temp("bad.ini", "[GENERAL]\nWorkerCount = 2\nWorkers = 3\n");
    refused(
        &["simulate", "stencil", "--config", bad_key.to_str().unwrap()],
        &["`Workers`", "bad.ini:3"],
    );

    let trace = write_temp("range.csv", "1,0\n2,5\n");
    let base = with(HAND_CHECKED, &["--process-cost", "1", "--backup-cost", "0"]);
    refused(
        &with(&base, &["--trace", trace.to_str().unwrap()]),
        &["range.csv, line 2", "worker"],
    );

    for (flag, value) in [
        ("--process-cost", "abc"),
        ("--recovery", "local"),
        ("--mtbf", "0"),
        ("--level", "3"),
        ("--runs", "0"),
    ] {
        refused(&with(&base, &[flag, value]), &[]);
    }
}

/// Stdout of the stencil run on the paper's five-failure configuration with `args` (level,
/// recovery, format), which must succeed.
fn five_failures(args: &[&str]) -> String {
    stdout_of(&with(PAPER_FIVE_FAILURES, args))
}

#[test]
fn cli_reads_a_trace_relative_to_the_config_folder() {
    let out = five_failures(&["--level", "1", "--recovery", "global", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["inputs"]["trace_failures"], 5);
    assert_eq!(v["seed"], serde_json::Value::Null);
    assert_eq!(v["figures"]["cancelled_executions"]["point"], 640.0);
    assert_eq!(v["figures"]["makespan_s"]["point"], 3654.2533);
    // The table format says the same.
    let text = five_failures(&["--level", "1", "--recovery", "global"]);
    assert!(text.contains("makespan exactly 3654253300000 ns"), "{text}");
}

#[test]
fn json_output_matches_the_committed_example_byte_for_byte() {
    let out = five_failures(&[
        "--level",
        "6",
        "--recovery",
        "dependency",
        "--format",
        "json",
    ]);
    let expected = std::fs::read("data/paper/stencil-five-failures-L6-dependency.json").unwrap();
    assert_eq!(out, String::from_utf8(expected).unwrap());
}

/// A setting neither flag nor file gives is named with both ways to give it.
#[test]
fn a_missing_setting_names_its_flag_and_its_key() {
    crate::common::refused(
        &["simulate", "stencil", "--width", "8"],
        &["missing rows", "--rows", "Timesteps in the --config file"],
    );
}

/// A configuration on standard input (`--config -`) runs as the file does, its trace named
/// relative to the working folder; standard input is read once, so a trace there as well is
/// refused by name.
#[test]
fn a_configuration_on_standard_input_runs_as_the_file_does() {
    let args = ["--level", "1", "--recovery", "global", "--runs", "3"];
    let file = stdout_of(&with(
        &["simulate", "stencil", "--config", "data/paper/rollback.ini"],
        &args,
    ));
    let piped = ckpt()
        .args(["simulate", "stencil", "--config", "-"])
        .args(args)
        .write_stdin(crate::common::read_package_file("data/paper/rollback.ini"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8(piped).unwrap(), file);
    crate::common::refused_fed(
        &with(
            &["simulate", "stencil", "--config", "-", "--trace", "-"],
            &args,
        ),
        &crate::common::read_package_file("data/paper/rollback.ini"),
        &["--trace", "read once"],
    );
}

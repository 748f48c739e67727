//! What a user can type must not break the binary (issue 13): each test gives one input that
//! once crashed, hung, ran away with memory, showed a wrong figure or a poor message, and checks
//! the answer now (one line on stderr and exit status 2 for a refusal).

use crate::common::{PAPER_FIVE_FAILURES, SMALL_STENCIL, ckpt, periodic_example, refused, with};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

/// The largest stencil the tests name: 256 x 256 tasks on 128 workers, checkpointing at level
/// 6. Each test adds the costs it needs.
const STENCIL_256: &[&str] = &[
    "simulate",
    "stencil",
    "--width",
    "256",
    "--rows",
    "256",
    "--workers",
    "128",
    "--level",
    "6",
];

/// `simulate periodic` with a 1 h MTBF and 1 min checkpoints, before the job's flags.
const HOURLY: &[&str] = &["simulate", "periodic", "--mtbf", "1h", "--cost", "1m"];

/// `simulate periodic` of 10 h of work, 30 min interval and 1 min checkpoints, before the
/// `--trace` its failures come from.
const TRACED: &[&str] = &[
    "simulate",
    "periodic",
    "--work",
    "10h",
    "--interval",
    "30m",
    "--cost",
    "1m",
];

/// `sweep` of a one-day MTBF and 5 min checkpoints over MTBFs from 1 h to 7 d.
const WEEK_SWEEP: &[&str] = &[
    "sweep",
    "--mtbf",
    "24h",
    "--cost",
    "5m",
    "--vary",
    "mtbf=1h..7d",
];

/// `interval` with a one-day MTBF and 5 min checkpoints.
const DAILY: &[&str] = &["interval", "--mtbf", "24h", "--cost", "5m"];

/// A path in a fresh scratch folder, not created; see [`crate::common::temp_path`].
fn scratch(name: &str) -> crate::common::ScratchPath {
    crate::common::temp_path(&format!("ckpt-robust-{name}"))
}

/// Before: clap_complete panicked (exit 101) when the reader of the pipe went away.
#[test]
fn closed_pipe_is_success() {
    let bin = assert_cmd::cargo::cargo_bin("ckpt");
    for args in [
        &["completions", "bash"][..],
        &["man"],
        &["interval", "--mtbf", "24h", "--cost", "5m"],
    ] {
        let mut child = Process::new(&bin)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Closing the read end before the child writes makes every write a broken pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {:?}", out.stderr);
    }
}

/// Before: a panic with a backtrace (exit 101) on a full device.
#[test]
fn full_device_is_one_line() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    for args in [
        &["completions", "bash"][..],
        &["man"],
        &["interval", "--mtbf", "24h", "--cost", "5m"],
    ] {
        let out = Process::new(assert_cmd::cargo::cargo_bin("ckpt"))
            .args(args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains("cannot write standard output: No space left"),
            "{err}"
        );
    }
}

/// Before: 130 GB of axis ticks (abort), a hang at 23 GB, and "internal error: `loss` has no
/// finite data to draw" (exit 1). The ranges were wider once (to 1e15 s); a duration range now
/// ends at 500 years at most, and these are the widest ones left.
#[test]
fn sweep_axis_ticks_are_bounded() {
    for (i, vary) in ["mtbf=1e3..1.5e10", "interval=1s..1e9", "mtbf=1e9..1.5e10"]
        .iter()
        .enumerate()
    {
        let dir = scratch(&format!("ticks{i}"));
        let start = Instant::now();
        ckpt()
            .args(["sweep", "--mtbf", "24h", "--cost", "5m", "--vary", vary])
            .args(["--log", "--points", "5", "-q", "--out"])
            .arg(&*dir)
            .timeout(Duration::from_secs(60))
            .assert()
            .success();
        assert!(start.elapsed() < Duration::from_secs(60));
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        if *vary == "mtbf=1e9..1.5e10" {
            assert!(md.contains("not drawn, nothing finite to draw"), "{md}");
            assert!(!dir.join("loss.svg").exists());
        }
    }
}

/// Before: `--threads 100000` started them all.
#[test]
fn thread_count_is_bounded() {
    refused(
        &with(
            HOURLY,
            &["--work", "10h", "--interval", "30m", "--threads", "100000"],
        ),
        &["--threads", "100000", "1024"],
    );
}

/// Before: only "the following required arguments were not provided:"; typos lost clap's tip.
#[test]
fn clap_errors_name_what_is_missing_and_keep_tips() {
    refused(HOURLY, &["not provided: --work <DURATION>"]);
    // --interval is optional to clap since --schedule can replace it; the run names it.
    refused(
        &with(HOURLY, &["--work", "1h"]),
        &["--interval is required (or --schedule)"],
    );
    refused(
        &[
            "sweep",
            "--mtbf",
            "1h",
            "--cost",
            "1m",
            "--vary",
            "mtbf=1h..2h",
        ],
        &["--out <DIR>"],
    );
    refused(&["merge"], &["<SHARD.json>"]);
    refused(&["fit"], &["<FAILURES.csv>"]);
    refused(
        &["interval", "--mtbff", "1h", "--cost", "1m"],
        &["'--mtbff'", "similar argument exists: '--mtbf'", "--help"],
    );
    refused(&["intervall"], &["similar subcommand exists: 'interval'"]);
}

/// Before: "cannot be used with:; see --help", where clap lists two or more conflicting
/// arguments on lines of their own.
#[test]
fn every_conflicting_argument_is_named() {
    refused(
        &[
            "interval",
            "--level",
            "cost=5s,restart=10s",
            "--ack-time",
            "3ns",
            "--checksums",
            "2",
        ],
        &["cannot be used with: --ack-time <DURATION>, --checksums <N>; see --help"],
    );
}

/// Before: `--signal-margin` beside `--level` was silently dropped; a diskless scheme's
/// checkpoint over a bandwidth of 1e-300 B/s read "cost = inf: a positive, finite number"
/// without a flag; an upload that overflowed read "this one takes inf s".
#[test]
fn overflowing_costs_and_dropped_flags_are_refused_by_name() {
    refused(
        &[
            "interval",
            "--level",
            "cost=1m,mtbf=1d",
            "--level",
            "cost=10m,mtbf=2d",
            "--signal-margin",
            "1h",
        ],
        &["--signal-margin apply to one level"],
    );
    let scheme = [
        "interval",
        "--scheme",
        "pair",
        "--procs",
        "2",
        "--ckpt-bytes",
        "1GiB",
        "--bandwidth",
        "1e-300",
        "--mtbf",
        "1d",
    ];
    let line = refused(
        &scheme,
        &["'1e-300 B/s' for '--bandwidth", "more than 1.8e308 s"],
    );
    assert!(!line.contains("inf"), "{line}");
    let line = refused(
        &[
            "interval",
            "--mtbf",
            "1d",
            "--ckpt-bytes",
            "1GiB",
            "--bandwidth",
            "1e-300",
        ],
        &["--bandwidth", "more than 1.8e308 s"],
    );
    assert!(!line.contains("inf"), "{line}");
}

/// Before: `pcg --tol ''` read "cannot parse float from empty string"; a lone stencil worker
/// under a short MTBF ran a minute to the failure cap instead of being refused at once.
#[test]
fn a_residual_and_a_lone_worker_are_refused_at_once() {
    let pcg = [
        "pcg", "--grid", "64", "--procs", "16", "--scheme", "mirror", "--fail", "1",
    ];
    for value in ["", "x"] {
        refused(
            &[&pcg[..], &["--tol", value]].concat(),
            &["--tol <RESIDUAL>", "is not a number: a relative residual"],
        );
    }
    // Out of range: the refusal quotes what was typed, not the infinity `1e400` reads as.
    for value in ["1e400", "2", "0"] {
        refused(
            &[&pcg[..], &["--tol", value]].concat(),
            &[
                &format!("invalid value '{value}' for '--tol <RESIDUAL>'"),
                "between 0 and 1",
            ],
        );
    }
    let weighted = [
        "interval",
        "--mtbf",
        "1d",
        "--scheme",
        "weighted",
        "--checksums",
        "2",
        "--procs",
        "8",
        "--ckpt-bytes",
        "1GiB",
        "--bandwidth",
        "1GB/s",
        "--flops",
    ];
    for value in ["1e400", "-1", "0"] {
        refused(
            &[&weighted[..], &[value]].concat(),
            &[
                &format!("invalid value '{value}' for '--flops <FLOPS>'"),
                "positive, finite rate",
            ],
        );
    }
    refused(
        &[
            "simulate",
            "stencil",
            "--width",
            "64",
            "--rows",
            "64",
            "--workers",
            "1",
            "--level",
            "3",
            "--process-cost",
            "7.1",
            "--backup-cost",
            "1ms",
            "--mtbf",
            "30m",
        ],
        &["with one worker", "29081.6 s", "e^16.2 failures"],
    );
}

/// Before: a value with a newline in it (typed inside quotes) cut the refusal at the newline
/// (`invalid value '1; see --help`), and `--vary`'s and `--shard`'s refusals spread over two
/// lines; the value is now shown whole, its control characters escaped.
#[test]
fn a_value_with_a_newline_is_shown_escaped_on_one_line() {
    refused(
        &["interval", "--mtbf", "1\nd", "--cost", "5m"],
        &[
            "invalid value '1\\nd' for '--mtbf <DURATION>'",
            "`1\\nd` is not a duration",
        ],
    );
    refused(
        &["interval", "--mt\nbf", "1d"],
        &["unexpected argument '--mt\\nbf'"],
    );
    refused(
        &[
            "interval", "--mtbf", "1d", "--cost", "5m", "--scheme", "pa\nir",
        ],
        &["invalid value 'pa\\nir' for '--scheme"],
    );
    let out = crate::common::temp_path("newline-sweep");
    let dir = out.to_str().unwrap();
    refused(
        &[
            "sweep",
            "--mtbf",
            "1d",
            "--cost",
            "5m",
            "--vary",
            "mt\nbf=1h..7d",
            "--out",
            dir,
        ],
        &["mt\\nbf=1h..7d"],
    );
}

/// Before: "unexpected argument '-1' found" (the option and its rule were not named).
#[test]
fn negative_values_name_the_option() {
    refused(
        &with(STENCIL_256, &["--process-cost", "-1"]),
        &["--process-cost", "'-1'", "zero or more"],
    );
    // Not a number: clap read `-5m` as the short flags `-5` and `-m`. The stencil's durations
    // go through the simulators' one parser, so they answer as `--interval` does below.
    refused(
        &with(STENCIL_256, &["--mtbf", "-5m"]),
        &["--mtbf", "'-5m'", "not a duration"],
    );
    refused(
        &with(STENCIL_256, &["--mtbf", "-5"]),
        &["--mtbf", "'-5'", "must be a positive duration"],
    );
    refused(
        &["survive", "--scheme", "ring", "--procs", "-5m"],
        &["--procs", "'-5m'"],
    );
    refused(
        &["interval", "--mtbf", "-1", "--cost", "1m"],
        &["--mtbf", "-1", "positive"],
    );
    // The simulators' duration flags, typed since: `-5m` reaches their parser.
    refused(
        &with(&with(HOURLY, &["--work", "10h"]), &["--interval", "-5m"]),
        &["'--interval <DURATION>'", "'-5m'", "not a duration"],
    );
    refused(
        &[
            "simulate",
            "periodic",
            "--mtbf",
            "-5m",
            "--cost",
            "1m",
            "--interval",
            "1h",
            "--work",
            "10h",
        ],
        &["'--mtbf <DURATION>'", "'-5m'", "not a duration"],
    );
    refused(
        &with(&with(HOURLY, &["--work", "10h"]), &["--schedule", "1h,-5m"]),
        &["'--schedule <D,D,...>'", "'1h,-5m'", "chunk 2 (`-5m`)"],
    );
}

/// The line after `error: ` for `args`, less the value name clap shows beside the flag (one
/// flag may take another value in another command: `--level <N>`, `--level <cost=D,...>`).
fn refusal_without_value_name(args: &[&str]) -> String {
    let line = refused(args, &[]);
    let line = line.trim_end().strip_prefix("error: ").unwrap();
    let start = line.find(" <").unwrap();
    let end = start + line[start..].find(">'").unwrap() + 1;
    format!("{}{}", &line[..start], &line[end..])
}

/// Before: `simulate periodic` framed a bad duration its own way (invalid value `5x` for
/// --mtbf: ...), `interval` as clap does (invalid value '5x' for '--mtbf <DURATION>': ...; see
/// --help).
#[test]
fn a_bad_duration_reads_the_same_on_interval_and_simulate() {
    // `command` with 6h MTBF and 5 min checkpoints, `flag` given `value` instead.
    let refusal = |command: &[&'static str], flag, value| {
        let mut args = command.to_vec();
        for (f, v) in [("--mtbf", "6h"), ("--cost", "5m")] {
            args.extend([f, if f == flag { value } else { v }]);
        }
        refusal_without_value_name(&args)
    };
    let simulate = ["simulate", "periodic", "--interval", "1h", "--work", "10h"];
    for (flag, value) in [
        ("--mtbf", "5x"),
        ("--mtbf", "-5m"),
        ("--mtbf", "0"),
        ("--mtbf", ""),
        ("--mtbf", "1M"),
        ("--mtbf", "600y"),
        ("--cost", "5x"),
        ("--cost", "1.5M"),
    ] {
        let line = refusal(&simulate, flag, value);
        assert_eq!(line, refusal(&["interval"], flag, value), "{flag} {value}");
        assert!(
            line.starts_with(&format!("invalid value '{value}' for '{flag}': ")),
            "{line}"
        );
    }
}

/// Before: a value clap parsed and a later check refused read ``invalid value `0` for --runs:
/// ...``, beside clap's own `invalid value 'x' for '--runs <N>': ...; see --help` for the
/// same flag.
#[test]
fn parse_time_and_check_time_refusals_share_one_frame() {
    let periodic = ["simulate", "periodic", "--mtbf", "6h", "--cost", "5m"];
    for (flag, at_parse, at_check, name) in [
        ("--runs", "x", "0", "N"),
        ("--walltime", "5x", "5h", "DURATION"),
    ] {
        for value in [at_parse, at_check] {
            let args = with(
                &periodic,
                &["--interval", "1h", "--work", "10h", flag, value],
            );
            let line = refused(&args, &[]);
            let at_check_value = if value == "5h" { "18000s" } else { value };
            let frame = format!("error: invalid value '{at_check_value}' for '{flag} <{name}>': ");
            assert!(line.starts_with(&frame), "{line}");
            assert!(line.trim_end().ends_with("; see --help"), "{line}");
        }
    }
}

/// Before: an argument the others make necessary read as an invalid value, ``invalid value
/// `(missing)` for --checksums: ...``; now as clap words its own missing arguments.
#[test]
fn a_missing_argument_is_not_an_invalid_value() {
    for (args, named) in [
        (
            &["encode", "--scheme", "weighted", "--procs", "8"][..],
            "--checksums <N>: a checksum count",
        ),
        (
            &["encode", "--scheme", "mirror", "--procs", "8"][..],
            "--fail <K>: a failure count",
        ),
        (
            &["interval", "--mtbf", "1d", "--scheme", "mirror"][..],
            "--procs <N>: the number",
        ),
    ] {
        let line = refused(args, &[named]);
        assert!(
            line.starts_with("error: the following required arguments were not provided: "),
            "{line}"
        );
        assert!(!line.contains("(missing)"), "{line}");
    }
}

/// Before: four checks of `--runs`, each worded its own way (`invalid digit found in string`,
/// `a whole number of runs, at least 1`, `1 to 100000000 runs`, `must be a whole number from 2
/// to 10000000`); now one parser, with the bounds docs/interface.md gives each command.
#[test]
fn every_run_count_is_refused_by_one_rule() {
    let periodic = periodic_example();
    let multilevel = [
        "simulate",
        "multilevel",
        "--level",
        "cost=10s,mtbf=3h",
        "--interval",
        "30m",
        "--strides",
        "1",
        "--work",
        "100h",
    ];
    let stencil = PAPER_FIVE_FAILURES;
    let validate = ["validate", "--mtbf", "6h", "--cost", "5m"];
    for (command, low, high) in [
        (&periodic[..], "0", "10000001"),
        (&multilevel[..], "0", "10000001"),
        (stencil, "0", "100000001"),
        (&validate[..], "1", "10000001"),
    ] {
        let bounds = format!(
            "from {} to {}",
            low.parse::<u64>().unwrap() + 1,
            high.parse::<u64>().unwrap() - 1
        );
        for value in [low, high, "x", "-3"] {
            refused(
                &with(command, &["--runs", value]),
                &[
                    "'--runs <N>'",
                    &format!("`{value}` is not a run count: a whole number {bounds}"),
                ],
            );
        }
    }
}

/// Before: the whole-number flags left to clap's own integer parser said only "invalid digit
/// found in string" or "number too large to fit in target type", not what is accepted.
#[test]
fn whole_number_flags_say_what_they_accept() {
    const U64: &str = "18446744073709551615";
    const U32: &str = "4294967295";
    let encode = ["encode", "--scheme", "weighted", "--fail", "1"];
    let stencil = PAPER_FIVE_FAILURES;
    let periodic = periodic_example();
    // `command`, then the flags given good values, then the flag under test.
    for (command, good, flag, max) in [
        (&encode[..], &["--checksums", "2"][..], "--procs", U64),
        (&encode[..], &["--procs", "8"][..], "--checksums", U64),
        (
            &encode[..],
            &["--procs", "8", "--checksums", "2"][..],
            "--len",
            U64,
        ),
        (
            &encode[..],
            &["--procs", "8", "--checksums", "2"][..],
            "--seed",
            U64,
        ),
        (stencil, &[][..], "--width", U32),
        (stencil, &[][..], "--workers", U32),
        (stencil, &[][..], "--seed", U64),
        (&periodic[..], &[][..], "--partners", U64),
        (&periodic[..], &[][..], "--seed", U64),
    ] {
        for value in ["x", "-1", "2.5"] {
            refused(
                &[command, good, &[flag, value]].concat(),
                &[flag, &format!("`{value}` is not a whole number;")],
            );
        }
        let big = "99999999999999999999999";
        refused(
            &[command, good, &[flag, big]].concat(),
            &[flag, &format!("`{big}` is too large: at most {max}")],
        );
    }
    // `encode --fail` and each item of `--fail-set`, which the cases above cannot repeat.
    let encode = [
        "encode",
        "--scheme",
        "weighted",
        "--procs",
        "8",
        "--checksums",
        "2",
    ];
    for value in ["x", "-1", "2.5"] {
        refused(
            &[&encode[..], &["--fail", value]].concat(),
            &["--fail <K>", &format!("`{value}` is not a whole number;")],
        );
        refused(
            &[&encode[..], &["--fail-set", &format!("0,{value}")]].concat(),
            &[
                "--fail-set",
                &format!(
                    "`{value}` is not a whole number: give processor indices separated by commas"
                ),
            ],
        );
    }
    refused(
        &[&encode[..], &["--fail-set", "1,,2"]].concat(),
        &["--fail-set", "an empty item: give processor indices"],
    );
}

/// Before: "invalid digit found in string".
#[test]
fn level_range_is_named() {
    refused(
        &["simulate", "stencil", "--level", "1..6"],
        &["--level", "1 to 20"],
    );
}

/// Before: a trace of `/dev/zero` read 10 GB into memory.
#[test]
fn input_files_are_read_with_a_bound() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let start = Instant::now();
    refused(
        &with(TRACED, &["--trace", "/dev/zero"]),
        &["--trace", "/dev/zero", "larger than 256 MiB"],
    );
    assert!(start.elapsed() < Duration::from_secs(30));
}

/// The bound for a regular file, which is refused by its size before a byte is read (that it
/// is unread this test cannot see; the `/dev/zero` test covers what has no size). The file is
/// sparse, so it takes no disk.
#[test]
fn an_oversized_regular_file_is_refused() {
    let dir = scratch("oversized");
    std::fs::create_dir_all(&*dir).unwrap();
    let log = dir.join("huge.csv");
    let file = std::fs::File::create(&log).unwrap();
    file.set_len(300 << 20).unwrap();
    let path = log.to_str().unwrap();
    refused(&["fit", path], &[path, "larger than 256 MiB"]);
}

/// Before: a byte-order mark was quoted as part of the header, and a file with lone `\r` line
/// endings read as one line (echoed whole into the error).
#[test]
fn bom_and_cr_line_endings_are_accepted() {
    let dir = scratch("bom");
    std::fs::create_dir_all(&*dir).unwrap();
    let periodic = |file: &std::path::Path| {
        crate::common::stdout_of(&with(
            TRACED,
            &["--format", "json", "--trace", file.to_str().unwrap()],
        ))
    };
    let plain = dir.join("plain.csv");
    std::fs::write(&plain, "time_seconds\n100\n200\n").unwrap();
    for (name, text) in [
        ("bom.csv", "\u{feff}time_seconds\n100\n200\n"),
        ("cr.csv", "time_seconds\r100\r200\r"),
        ("bomcrlf.csv", "\u{feff}time_seconds\r\n100\r\n200\r\n"),
    ] {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        // Equal but for the file name the JSON echoes.
        let a = periodic(&f).replace(f.to_str().unwrap(), "F");
        let b = periodic(&plain).replace(plain.to_str().unwrap(), "F");
        assert_eq!(a, b, "{name}");
    }
}

/// Before: 1000 runs of 10^6 failures each (848 s) before the stencil refused a hopeless MTBF.
#[test]
fn hopeless_stencil_mtbf_is_refused_at_once() {
    let start = Instant::now();
    refused(
        &with(
            STENCIL_256,
            &[
                "--process-cost",
                "7.1",
                "--backup-cost",
                "0.0013",
                "--mtbf",
                "1ns",
                "--quiet",
            ],
        ),
        &[
            "MTBF (0.000000001 s) is too short",
            "failures expected per run",
        ],
    );
    // 256 x 256 tasks of 7.1 s on 128 workers: at least 3635 s per run, about 3.6e12 failures.
    let dir = scratch("hopeless");
    std::fs::create_dir_all(&*dir).unwrap();
    let ini = dir.join("hopeless.ini");
    let text = crate::common::read_package_file("data/validate/costly-checkpoint.ini")
        .replace("MTBF = 600", "MTBF = 0.000000001");
    std::fs::write(&ini, text).unwrap();
    refused(
        &[
            "validate",
            "--sim",
            "stencil",
            "--config",
            ini.to_str().unwrap(),
            "--quiet",
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        &["MTBF (0.000000001 s) is too short"],
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

/// Before: 150 Vandermonde checksums hung in the SVD (entries overflow); 20 said "recoverable:
/// yes" with a relative error of 3e4 (effective condition number 2e20); 60 said "no" as if the
/// scheme did not survive, where `survive` says 1.0.
#[test]
fn vandermonde_overflow_and_ill_conditioning_are_named() {
    let encode = |checksums: &str, fail: &str| {
        let start = Instant::now();
        let text = crate::common::stdout_of(&[
            "encode",
            "--scheme",
            "weighted",
            "--procs",
            "256",
            "--checksums",
            checksums,
            "--matrix",
            "vandermonde",
            "--fail",
            fail,
        ]);
        assert!(start.elapsed() < Duration::from_secs(20));
        text
    };
    let t = encode("150", "1");
    assert!(
        t.contains("recoverable         no") && t.contains("overflow double precision"),
        "{t}"
    );
    // 256^19 = 5.7e45 in the last row against entries of 1 in the first: hopeless.
    let t = encode("20", "1");
    assert!(
        t.contains("recoverable         no") && t.contains("at least 1/eps"),
        "{t}"
    );
    let t = encode("60", "60");
    assert!(t.contains("survivable in exact arithmetic"), "{t}");
    // A small Vandermonde system is still solved, to about eps times its condition number.
    let t = encode("4", "2");
    assert!(t.contains("recoverable         yes"), "{t}");
}

/// Before: `--iteration-time 1e308` printed `inf%` and `CKPT_INTERVAL_SECONDS=
/// 18446744073709551615`; `--mtbf 1e308` printed garbage durations with 0% loss; `validate
/// --mtbf 1e308` said "confirmed" on a clamped interval.
#[test]
fn durations_beyond_500_years_are_refused() {
    for args in [
        with(DAILY, &["--iteration-time", "1e308"]),
        with(DAILY, &["--iteration-time", "1e308", "--format", "env"]),
        vec!["interval", "--mtbf", "1e308", "--cost", "5m"],
        vec!["interval", "--mtbf", "501y", "--cost", "5m"],
        vec!["validate", "--mtbf", "1e308", "--cost", "5m"],
    ] {
        refused(&args, &["at most 500 years"]);
    }
    refused(
        &[
            "simulate",
            "periodic",
            "--node-mtbf",
            "1e308",
            "--nodes",
            "4",
            "--work",
            "1h",
            "--interval",
            "10m",
            "--cost",
            "1m",
        ],
        &["--node-mtbf", "at most 500 years"],
    );
    // Accepted but hopeless: 400 years per iteration against a 1-day MTBF.
    refused(
        &with(DAILY, &["--iteration-time", "400y"]),
        &["iteration-time", "overflows"],
    );
    // 500 years itself is accepted and answered (every figure finite).
    let out = crate::common::stdout_of(&["interval", "--mtbf", "500y", "--cost", "5m"]);
    assert!(!out.contains("inf") && !out.contains("NaN"), "{out}");
}

/// Before: a trace's or an INI file's bad value was echoed raw and whole: a 50 MB line came
/// back as a 50 MB error, and an escape sequence in a value reached the terminal.
#[test]
fn file_values_are_echoed_escaped_and_short() {
    let long = "1".repeat(1_000_000);
    for text in ["36\u{1b}[2K\n".to_string(), format!("{long}\n")] {
        let trace = crate::common::temp_file("ckpt-robust-echo", "t.csv", &text);
        let line = refused(
            &[
                "simulate",
                "periodic",
                "--work",
                "10h",
                "--interval",
                "1h",
                "--cost",
                "1m",
                "--trace",
                trace.to_str().unwrap(),
            ],
            &["t.csv", "line 1"],
        );
        assert!(!line.contains('\u{1b}') && line.len() < 400, "{line}");
    }
    let ini = crate::common::temp_file("ckpt-robust-echo", "e.ini", "[GENERAL]\nA\u{1b}B = 4\n");
    let line = refused(
        &["simulate", "stencil", "--config", ini.to_str().unwrap()],
        &["e.ini:2", "A\\u{1b}B"],
    );
    assert!(!line.contains('\u{1b}'), "{line}");
}

/// Before: `FailureTrace = -` read standard input when the INI file was named without a folder
/// and a file `-` beside it otherwise; it is a path, resolved from the INI's folder, always.
#[test]
fn an_ini_trace_named_dash_is_a_file_beside_the_ini() {
    let ini = "[Stencil]\nStencilSize = 16\nTimesteps = 16\nProcessCost = 1\nBackupCost = 0.1\n\
               [GENERAL]\nWorkerCount = 4\nCheckpointLevel = 1\nFailureTrace = -\n";
    let file = crate::common::temp_file("ckpt-robust-dash", "c.ini", ini);
    let dir = file.parent().unwrap();
    let out = ckpt()
        .current_dir(dir)
        .args(["simulate", "stencil", "--config", "c.ini"])
        .write_stdin("5,1\n")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("'./-' for 'FailureTrace'"), "{err}");
}

/// Before: a count past 2^64 read "is not a whole number of at least 1" (or, for `survive
/// --failures`, only the grammar); a zero size "is not a size"; a `--vary replicas` range past
/// 64 and a levels' range with no answer at its end named no value or no flag.
#[test]
fn refusals_say_the_value_and_the_rule_it_breaks() {
    const PAST_U64: &str = "18446744073709551616";
    for args in [
        vec![
            "interval", "--procs", PAST_U64, "--mtbf", "1d", "--cost", "5m",
        ],
        vec![
            "interval",
            "--nodes",
            PAST_U64,
            "--node-mtbf",
            "1d",
            "--cost",
            "5m",
        ],
        vec![
            "survive",
            "--scheme",
            "pair",
            "--procs",
            "4",
            "--failures",
            PAST_U64,
        ],
    ] {
        refused(
            &args,
            &[PAST_U64, "too large: at most 18446744073709551615"],
        );
    }
    refused(
        &[
            "interval",
            "--mtbf",
            "1d",
            "--ckpt-bytes",
            "0",
            "--bandwidth",
            "1GB/s",
        ],
        &["--ckpt-bytes", "`0` must be a positive size"],
    );
    refused(
        &[
            "interval",
            "--mtbf",
            "1d",
            "--ckpt-bytes",
            "1GB",
            "--bandwidth",
            "0",
        ],
        &["--bandwidth", "`0` must be a positive bandwidth"],
    );
    let dir = crate::common::Scratch::new("said-values");
    let out = dir.join("sweep");
    let out = out.to_str().unwrap();
    refused(
        &[
            "sweep",
            "--mtbf",
            "24h",
            "--cost",
            "5m",
            "--procs",
            "2",
            "--vary",
            "replicas=1..65",
            "--out",
            out,
        ],
        &["--vary replicas", "65 replicas", "64"],
    );
    refused(
        &[
            "sweep",
            "--level",
            "cost=5s,mtbf=3h",
            "--level",
            "cost=30s,mtbf=1d",
            "--level",
            "cost=10m,mtbf=7d",
            "--vary",
            "level3.cost=30s..500y",
            "--out",
            out,
        ],
        &[
            "--vary",
            "level3.cost=30s..500y",
            "at 15778800000.0 s",
            "stride search",
        ],
    );
}

/// Before: `validate --level` ran with `--async-write` and gave the output of the run without
/// it (`--walltime` was refused already, and stays so); `validate --sim stencil` did the same with `--work`; the default work
/// of a renewal validation stopped at 3650 days where its documented ten years (of 365.25
/// days, as `10y` reads) is 3652.5.
#[test]
fn flags_a_validation_cannot_use_are_refused_not_dropped() {
    for extra in [&["--async-write", "1m"][..], &["--walltime", "24h"][..]] {
        refused(
            &with(
                &[
                    "validate",
                    "--level",
                    "cost=5s,mtbf=3h",
                    "--level",
                    "cost=30s,mtbf=1d",
                    "--runs",
                    "20",
                    "--points",
                    "3",
                ],
                extra,
            ),
            &[extra[0], "--level"],
        );
    }
    refused(
        &[
            "validate",
            "--sim",
            "stencil",
            "--config",
            "data/paper/rollback.ini",
            "--work",
            "5h",
        ],
        &["--config", "--work"],
    );
    let json = crate::common::stdout_of(&[
        "validate",
        "--mtbf",
        "30d",
        "--cost",
        "10m",
        "--restart",
        "10m",
        "--dist",
        "weibull:0.7",
        "--runs",
        "2",
        "--format",
        "json",
        "--quiet",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["options"]["work_s"], 10.0 * 365.25 * 86400.0, "{json}");
}

/// Before: each of these was refused naming a flag the user had not typed or that was not at
/// fault: a schedule's 1 ns chunk as `--interval`; a validation's long `--work` as the
/// `--interval` of its grid (a flag `validate` does not have); a stencil's huge backup cost as
/// `--process-cost`.
#[test]
fn a_refusal_names_the_flag_at_fault() {
    refused(
        &[
            "simulate",
            "periodic",
            "--work",
            "10h",
            "--cost",
            "1m",
            "--mtbf",
            "6h",
            "--schedule",
            "1h,1ns",
            "--quiet",
        ],
        &[
            "--schedule",
            "a chunk of 0.000000001s",
            "one checkpoint per chunk",
        ],
    );
    let line = refused(
        &[
            "validate", "--mtbf", "6h", "--cost", "5m", "--runs", "2", "--points", "3", "--work",
            "450y", "--quiet",
        ],
        &["'--work", "14200920000s", "at the interval"],
    );
    assert!(!line.contains("for '--interval"), "{line}");
    refused(
        &with(
            SMALL_STENCIL,
            &[
                "--level",
                "1",
                "--mtbf",
                "1h",
                "--process-cost",
                "1",
                "--backup-cost",
                "1e10",
                "--quiet",
            ],
        ),
        &["--backup-cost", "10000000000 s", "2^60 ns"],
    );
}

/// Before: the 500-year rule held for the duration flags but not where durations are typed
/// inside another value or added up: `--level cost=5s,mtbf=501y` ran, `cost=1e300` was refused
/// as "interval = inf" naming no flag, a `--vary` range could end at 1e30 s or 600 years (its
/// CSV then had empty cells), and three cost parts of 500 years made a 1500-year checkpoint.
#[test]
fn durations_typed_inside_values_or_added_up_keep_the_500_year_rule() {
    let levels = ["--level", "cost=5s,mtbf=3h", "--level", "cost=30s,mtbf=1d"];
    for level in [
        "cost=5s,mtbf=15778800001",
        "cost=1e300,mtbf=1e300",
        "cost=5s,restart=501y",
    ] {
        let line = refused(
            &["interval", "--level", level],
            &["--level", level, "at most 500 years"],
        );
        assert!(!line.contains("inf"), "{line}");
    }
    let dir = crate::common::Scratch::new("long-ranges");
    let out = dir.join("sweep");
    let out = out.to_str().unwrap();
    for vary in ["mtbf=1h..1e30", "interval=1m..600y", "cost=1s..501y"] {
        refused(
            &[
                "sweep", "--mtbf", "24h", "--cost", "5m", "--vary", vary, "--points", "3", "--out",
                out,
            ],
            &["--vary", vary, "at most 500 years"],
        );
    }
    refused(
        &with(
            &[&["sweep"][..], &levels[..]].concat(),
            &["--vary", "level2.mtbf=1h..501y", "--out", out],
        ),
        &["--vary", "`501y`", "at most 500 years"],
    );
    refused(
        &[
            "interval",
            "--mtbf",
            "500y",
            "--create-time",
            "500y",
            "--latency",
            "500y",
            "--ack-time",
            "500y",
        ],
        &[
            "--create-time/--latency",
            "4.734e10 s",
            "add up to at most 500 years",
        ],
    );
    // The edges themselves are accepted.
    crate::common::stdout_of(&["interval", "--level", "cost=5s,mtbf=500y"]);
    crate::common::stdout_of(&[
        "interval",
        "--mtbf",
        "500y",
        "--create-time",
        "250y",
        "--latency",
        "250y",
    ]);
}

/// The `sweep.json` of a complete report in `dir`, which must parse and agree with the CSV and
/// report.md beside it (every plot report.md embeds exists): its number of points.
fn complete_sweep_report(dir: &std::path::Path) -> usize {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    let points = json["points"].as_array().unwrap().len();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for line in md.lines().filter(|l| l.starts_with("![")) {
        let file = line.rsplit('(').next().unwrap().trim_end_matches(')');
        let svg = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(svg.trim_end().ends_with("</svg>"), "{file} truncated");
    }
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    assert!(csv.ends_with('\n'));
    points
}

/// Before: a sweep killed while writing left a truncated sweep.json beside the previous run's
/// plots and report.md. Now each kill leaves the old report or the new one, whole.
#[test]
fn killed_report_leaves_old_or_new_whole() {
    let bin = assert_cmd::cargo::cargo_bin("ckpt");
    let dir = scratch("atomic");
    let sweep = |points: &str| {
        let mut c = Process::new(&bin);
        c.args(WEEK_SWEEP)
            .args(["--log", "--quiet", "--points", points, "--out"])
            .arg(&*dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    assert!(sweep("3").status().unwrap().success());
    assert_eq!(complete_sweep_report(&dir), 3);
    let mut seen_new = false;
    // Kills spread over the run, writing phase included (a run takes about half a second here).
    for delay_ms in [5u64, 50, 100, 150, 200, 250, 300, 350, 400, 450, 600, 900] {
        let mut child = sweep("2000").spawn().unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let points = complete_sweep_report(&dir);
        assert!(
            points == 3 || points == 2000,
            "{points} points after a kill at {delay_ms} ms"
        );
        seen_new |= points == 2000;
        if seen_new {
            break;
        }
    }
    // A different command's report is not mixed in without --force.
    let out = ckpt()
        .args([
            "validate", "--mtbf", "1h", "--cost", "1m", "--runs", "20", "--quiet", "--out",
        ])
        .arg(&*dir)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--force") && err.contains("sweep.json"),
        "{err}"
    );
    complete_sweep_report(&dir);
    ckpt()
        .args([
            "validate", "--mtbf", "1h", "--cost", "1m", "--runs", "20", "--quiet", "--force",
        ])
        .arg("--out")
        .arg(&*dir)
        .assert()
        .success();
    assert!(dir.join("validate.json").exists() && !dir.join("sweep.json").exists());
}

/// Before: a run refused after its `--out` folder was checked (an unreadable shard, a model
/// with no interval that makes progress) left that folder behind, empty, with every parent it
/// had created; so did a run killed before its report was written. Now the folder exists only
/// with a whole report in it.
#[test]
fn refused_or_killed_run_leaves_no_folder() {
    let root = scratch("no-folder");
    let out = root.join("nested").join("out");
    let empty = root.with_extension("empty.json");
    std::fs::write(&empty, b"").unwrap();
    let hopeless = ["--mtbf", "1s", "--cost", "100h", "-q", "--out"];
    let refused_runs: [Vec<std::ffi::OsString>; 3] = [
        ["sweep", "--vary", "mtbf=1s..2s"]
            .iter()
            .chain(&hopeless)
            .map(Into::into)
            .collect(),
        ["validate", "--runs", "2"]
            .iter()
            .chain(&hopeless)
            .map(Into::into)
            .collect(),
        vec![
            "merge".into(),
            empty.clone().into_os_string(),
            "--out".into(),
        ],
    ];
    for args in &refused_runs {
        let run = ckpt().args(args).arg(&out).output().unwrap();
        let err = String::from_utf8(run.stderr).unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(!root.exists(), "{args:?} left {}", root.display());
    }
    let bin = assert_cmd::cargo::cargo_bin("ckpt");
    let mut child = Process::new(&bin)
        .args(WEEK_SWEEP)
        .args(["--log", "--quiet", "--points", "2000", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let _ = child.kill();
    let finished = child.wait().unwrap().success();
    if out.exists() {
        assert!(finished, "a killed run left {}", out.display());
        complete_sweep_report(&out);
    } else {
        assert!(!root.join("nested").exists());
    }
}

/// Before: `--mtbf 24 --cost 300` (hours meant) answered with overhead 729415 and nothing on
/// stderr.
#[test]
fn cost_large_against_mtbf_warns() {
    let out = ckpt()
        .args(["interval", "--mtbf", "24", "--cost", "300"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("warning:") && err.contains("24.0s") && err.contains("unit"),
        "{err}"
    );
    let out = ckpt()
        .args(["interval", "--mtbf", "24h", "--cost", "5m"])
        .output()
        .unwrap();
    assert!(out.stderr.is_empty());
}

/// Before: `--interval 1ns` blamed `--work` for a job of 3.6e12 checkpoints.
#[test]
fn tiny_interval_blames_the_interval() {
    refused(
        &with(HOURLY, &["--interval", "1ns", "--work", "1h"]),
        &["--interval", "3600000000000 checkpoints"],
    );
}

/// Before: `survive --procs 1` refused a `--failures 3` nobody typed (the default range).
#[test]
fn survive_default_range_fits_the_scheme() {
    let one = [
        "survive",
        "--scheme",
        "weighted",
        "--procs",
        "1",
        "--checksums",
        "1",
    ];
    let out = crate::common::stdout_of(&one);
    assert!(
        out.lines().last().unwrap().trim_start().starts_with('2'),
        "{out}"
    );
    refused(&with(&one, &["--failures", "3"]), &["--failures", "'3'"]);
}

/// Before: `pcg --tol 1e-300` said "stopped at --max-iter" after far fewer iterations.
#[test]
fn pcg_breakdown_is_not_blamed_on_max_iter() {
    let out = crate::common::stdout_of(&[
        "pcg",
        "--grid",
        "16",
        "--procs",
        "4",
        "--scheme",
        "weighted",
        "--checksums",
        "1",
        "--every",
        "10",
        "--fail",
        "0",
        "--tol",
        "1e-300",
    ]);
    assert!(
        out.contains("broke down at iteration") && !out.contains("--max-iter"),
        "{out}"
    );
}

/// Before: `--bandwidth 1e-300B/s` reported `inf` against --create-time/--latency/...; the
/// bandwidth is what makes the upload endless.
#[test]
fn tiny_bandwidth_blames_the_bandwidth() {
    refused(
        &[
            "interval",
            "--mtbf",
            "24h",
            "--ckpt-bytes",
            "1GiB",
            "--bandwidth",
            "1e-300B/s",
        ],
        &["--bandwidth", "within 500 years"],
    );
}

/// Before: `ckpt man` gave one page listing `ckpt-interval(1)` and others that were never
/// generated. Now every command has its page, printed by name or written with `--dir`, and
/// every page a page lists is among those written.
#[test]
fn man_pages_exist_for_every_listed_command() {
    let dir = scratch("man");
    let out = ckpt().args(["man", "--dir"]).arg(&*dir).output().unwrap();
    assert!(out.status.success(), "{:?}", out);
    let names: Vec<String> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for page in [
        "ckpt.1",
        "ckpt-interval.1",
        "ckpt-simulate-periodic.1",
        "ckpt-man.1",
    ] {
        assert!(
            names.iter().any(|n| n == page),
            "{page} missing from {names:?}"
        );
    }
    assert!(
        !names
            .iter()
            .any(|n| n.contains("help") || n.starts_with('.'))
    );
    let mut listed = 0;
    for name in &names {
        let text = std::fs::read_to_string(dir.join(name))
            .unwrap()
            .replace("\\-", "-");
        // References read `ckpt-simulate-periodic(1)`.
        for (at, _) in text.match_indices("(1)") {
            let start = text[..at]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .map_or(0, |i| i + 1);
            let page = format!("{}.1", &text[start..at]);
            if page.starts_with("ckpt") {
                listed += 1;
                assert!(names.contains(&page), "{name} lists {page}, not written");
            }
        }
    }
    assert!(
        listed >= names.len() - 1,
        "{listed} references for {} pages",
        names.len()
    );
    // One page by name, with its flags.
    let page = crate::common::stdout_of(&["man", "simulate", "periodic"]).replace("\\-", "-");
    assert!(page.contains(".TH ckpt-simulate-periodic 1") && page.contains("--interval"));
    let written = std::fs::read_to_string(dir.join("ckpt-simulate-periodic.1")).unwrap();
    assert_eq!(written.replace("\\-", "-"), page);
    refused(
        &["man", "simulate", "nope"],
        &["COMMAND", "periodic, replicated"],
    );
}

/// Before: a one-run table printed its CI as `a .. a` and its counts as `4.00` (`5.0000` in
/// the stencil's). Now the CI reads `n/a (1 run)` and whole counts read as whole.
#[test]
fn one_run_has_no_ci_and_whole_counts() {
    let trace = crate::common::temp_file(
        "ckpt-robust-one-run",
        "t.txt",
        "1000\n50000\n90000\n200000\n",
    );
    let trace = trace.to_str().unwrap();
    let table = crate::common::stdout_of(&[
        "simulate",
        "periodic",
        "--work",
        "100h",
        "--interval",
        "1h",
        "--cost",
        "5m",
        "--trace",
        trace,
    ]);
    assert!(
        table.starts_with("periodic: 1 run, no seed (a trace)"),
        "{table}"
    );
    let failures = table.lines().find(|l| l.starts_with("failures")).unwrap();
    // Four failures strike before the job ends (100 h of work and checkpoints take 4.5 days).
    assert_eq!(
        failures.split_whitespace().collect::<Vec<_>>(),
        ["failures", "4", "n/a", "(1", "run)", "-"],
        "{table}"
    );
    assert!(!table.contains(" .. "), "{table}");
    let stencil = crate::common::stdout_of(&[
        "simulate",
        "stencil",
        "--width",
        "8",
        "--rows",
        "8",
        "--workers",
        "2",
        "--level",
        "1",
        "--process-cost",
        "1",
        "--backup-cost",
        "0.01",
        "--runs",
        "1",
        "--mtbf",
        "20",
    ]);
    // 8 x 8 tasks are 64 executions, plus one per cancelled one.
    let field = |name: &str| {
        let line = stencil.lines().find(|l| l.starts_with(name)).unwrap();
        line[name.len()..].trim().to_string()
    };
    let (done, cancelled) = (field("executions"), field("cancelled executions"));
    assert!(!done.contains('.') && !cancelled.contains('.'), "{stencil}");
    let (done, cancelled): (u64, u64) = (done.parse().unwrap(), cancelled.parse().unwrap());
    assert_eq!(done, 64 + cancelled, "{stencil}");
    assert!(
        field("makespan").contains('.'),
        "durations keep their decimals"
    );
}

/// Before: `validate --help` showed `(default 0)` in the text and `[default: 0]` for
/// `--restart` and `--downtime`.
#[test]
fn help_shows_one_default_per_flag() {
    let help = crate::common::stdout_of(&["validate", "--help"]);
    let at = help.find("--restart <DURATION>").unwrap();
    let block = &help[at..at + help[at..].find("--downtime").unwrap()];
    assert_eq!(block.matches("default").count(), 1, "{block}");
    assert!(block.contains("[default: 0]"));
}

/// Before: `--node-mtbf 5y` echoed as `1826d 6h 0m`. From a year on, durations read in years.
#[test]
fn years_echo_as_years() {
    let out = crate::common::stdout_of(&[
        "interval",
        "--nodes",
        "1000",
        "--node-mtbf",
        "5y",
        "--cost",
        "5m",
    ]);
    // 5 y / 1000 = 43.83 h = 1 d 19 h 49 m.
    assert!(
        out.contains("1000 nodes of MTBF 5y 0d 0h") && out.contains("system MTBF 1d 19h 49m"),
        "{out}"
    );
}

/// Before: a shard with one result too few said "should hold results 0 to 4 (5), holds 4
/// starting at 0", and with its start moved "should hold ... (5), holds 5". Every refusal now
/// says what is wrong and that the file was edited or damaged.
#[test]
fn tampered_shards_say_what_is_wrong() {
    let dir = scratch("tampered");
    std::fs::create_dir_all(&*dir).unwrap();
    let shard = |i: u32| {
        let slice = format!("{i}/2");
        let runs = ["--runs", "10", "--format", "json", "--shard", &slice];
        crate::common::stdout_of(&with(&periodic_example(), &runs))
    };
    let (s0, s1) = (shard(0), shard(1));
    let one = dir.join("s1.json");
    std::fs::write(&one, &s1).unwrap();
    let merged = |text: &str, needles: &[&str]| {
        let bad = dir.join("s0.json");
        std::fs::write(&bad, text).unwrap();
        refused(
            &["merge", bad.to_str().unwrap(), one.to_str().unwrap()],
            needles,
        )
    };
    let doc: serde_json::Value = serde_json::from_str(&s0).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut d = doc.clone();
        f(&mut d);
        d.to_string()
    };
    // A result's value.
    let first_failures = doc["results"][0]["failures"].as_u64().unwrap();
    merged(
        &edit(&|d| d["results"][0]["failures"] = (first_failures + 1).into()),
        &["results do not match the digest", "edited or damaged"],
    );
    // A result dropped, one added.
    merged(
        &edit(&|d| {
            d["results"].as_array_mut().unwrap().pop();
        }),
        &[
            "should hold 5 results (numbers 0 to 4) but holds 4",
            "edited or damaged",
        ],
    );
    merged(
        &edit(&|d| {
            let r = d["results"][0].clone();
            d["results"].as_array_mut().unwrap().push(r);
        }),
        &["should hold 5 results (numbers 0 to 4) but holds 6"],
    );
    // The header: where the slice starts, how many results in all, the inputs.
    merged(
        &edit(&|d| d["start"] = 1.into()),
        &[
            "should hold results 0 to 4 but says its results start at 1",
            "edited or damaged",
        ],
    );
    // Each file's total is held against its own job, so the edited file is the one named.
    merged(
        &edit(&|d| d["total"] = 9.into()),
        &[
            "s0.json",
            "it says 9 results in all, its job has 10",
            "edited or damaged",
        ],
    );
    merged(
        &edit(&|d| d["job"]["seed"] = 43.into()),
        &[
            "job and its inputs do not match the digest",
            "edited or damaged",
        ],
    );
}

/// Before: `survive --scheme weighted-1d` beyond its checksum count took about 74 s per count
/// with no progress. A count beyond the documented work limit is refused with the largest
/// that fits, a range is counted in one pass, and counts beyond groups x checksums are 0
/// without counting.
#[test]
fn weighted_1d_survival_is_bounded() {
    let scheme = [
        "survive",
        "--scheme",
        "weighted-1d",
        "--procs",
        "100000",
        "--groups",
        "10000",
        "--checksums",
        "10",
    ];
    let args = |failures: &str| {
        let mut a = scheme.to_vec();
        a.extend(["--failures", failures, "--quiet"]);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let a = args("18000");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    refused(&a, &["--failures", "18000", "at most 1818 failures", "2e8"]);
    let a = args("100001..100003");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let out = crate::common::stdout_of(&a);
    assert_eq!(out.matches("0.000000").count(), 3, "{out}");
    // --quiet is accepted by every encoding command.
    for cmd in [
        &[
            "encode",
            "--scheme",
            "weighted",
            "--procs",
            "8",
            "--checksums",
            "2",
            "--fail",
            "2",
            "--quiet",
        ][..],
        &[
            "pcg", "--grid", "16", "--procs", "4", "--scheme", "checksum", "--fail", "0", "-q",
        ][..],
    ] {
        ckpt().args(cmd).assert().success();
    }
}

/// Before: `sweep --out DIR` into a folder holding another command's report computed the whole
/// sweep and only then refused. Now it refuses before any work (a validation of ten million
/// runs per point would take hours), with the same message and the same `--force` override.
#[test]
fn foreign_report_folder_is_refused_before_the_work() {
    let dir = scratch("foreign-early");
    std::fs::create_dir_all(&*dir).unwrap();
    std::fs::write(dir.join("validate.json"), "{}").unwrap();
    let dir_s = dir.to_str().unwrap();
    refused(
        &with(
            WEEK_SWEEP,
            &["--points", "100000", "--quiet", "--out", dir_s],
        ),
        &["--out", "validate.json", "--force"],
    );
    std::fs::remove_file(dir.join("validate.json")).unwrap();
    std::fs::write(dir.join("sweep.json"), "{}").unwrap();
    refused(
        &[
            "validate", "--mtbf", "24h", "--cost", "5m", "--runs", "10000000", "--work", "500h",
            "--quiet", "--out", dir_s,
        ],
        &["--out", "sweep.json", "--force"],
    );
}

/// Before: a folder holding an earlier sweep report was taken to be the sweep's whatever else it
/// held of report kinds, so a `validate.json` the user had put beside it was deleted without a
/// word when the sweep ran again. Another command's data file is refused there too, and kept.
#[test]
fn another_commands_data_beside_an_earlier_report_is_kept() {
    let dir = scratch("beside-report");
    let dir_s = dir.to_str().unwrap();
    let sweep = with(WEEK_SWEEP, &["--points", "5", "--quiet", "--out", dir_s]);
    ckpt().args(&sweep).assert().success();
    std::fs::write(dir.join("validate.json"), "{}").unwrap();
    refused(&sweep, &["--out", "validate.json", "--force"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("validate.json")).unwrap(),
        "{}"
    );
    // With --force the folder is replaced, as documented.
    ckpt().args(with(&sweep, &["--force"])).assert().success();
    assert!(!dir.join("validate.json").exists());
}

/// Before: only `interval` warned when the cost is not small against the MTBF; `sweep`,
/// `validate` and `simulate` answered in silence.
#[test]
fn every_command_warns_of_a_large_cost() {
    let dir = scratch("warn");
    let dir_s = dir.to_str().unwrap();
    // A 1 h MTBF and 10 min checkpoints for every command; the simulations run this job.
    let job = ["--interval", "1h", "--work", "10h", "--runs", "5"];
    let cases: [(&[&str], Vec<&str>); 5] = [
        (&["interval"], vec![]),
        (
            &["sweep"],
            vec![
                "--vary",
                "mtbf=1h..2h",
                "--points",
                "3",
                "-q",
                "--out",
                dir_s,
            ],
        ),
        (
            &["validate"],
            vec!["--runs", "20", "--work", "10h", "--points", "3", "-q"],
        ),
        (&["simulate", "periodic"], with(&job, &["--quiet"])),
        (
            &["simulate", "replicated"],
            with(&job, &["--procs", "2", "--replicas", "2", "--quiet"]),
        ),
    ];
    for (command, rest) in cases {
        let args = with(&with(command, &["--mtbf", "1h", "--cost", "10m"]), &rest);
        let out = ckpt().args(&args).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(
            err.starts_with("warning: the checkpoint cost (10m 0s)") && err.contains("(1h 0m 0s)"),
            "{args:?}: {err}"
        );
    }
    // A cost small against the MTBF: no warning.
    let quiet = ckpt()
        .args(["simulate", "periodic", "--mtbf", "24h", "--cost", "5m"])
        .args(job)
        .output()
        .unwrap();
    assert!(quiet.stderr.is_empty());
}

/// Before: the warning came only after the work, so a long run of a mistyped MTBF said so after
/// minutes or hours. On a terminal (a pseudo-terminal from Python's `pty`), the warning now
/// comes once, above the progress bar, as the bar first shows; a machine fast enough to finish
/// within the bar's first second shows no bar, and the warning then follows the answer.
#[test]
fn a_long_runs_warning_comes_before_its_progress_bar() {
    let out = Process::new("python3")
        .args([
            "-c",
            "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)",
        ])
        .arg(assert_cmd::cargo::cargo_bin("ckpt"))
        .args([
            "validate", "--mtbf", "10m", "--cost", "5m", "--work", "100h",
        ])
        .args(["--runs", "1000", "--threads", "1", "--format", "json"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let warning = "warning: the checkpoint cost (5m 0s)";
    assert_eq!(text.matches(warning).count(), 1, "{text}");
    let at = text.find(warning).unwrap();
    if let Some(bar) = text.find("validate [") {
        assert!(at < bar, "the warning follows the bar: {text}");
    } else {
        assert!(at > text.find("\"schema_version\"").unwrap(), "{text}");
    }
}

/// Before: every run's figures were kept with no bound, so `validate` at 1000 intervals and
/// 10^6 runs asked for 8 GB, and a stencil of 10^5 workers 0.8 MB a run.
#[test]
fn run_counts_whose_figures_pass_the_memory_bound_are_refused() {
    let validate = ["validate", "--mtbf", "6h", "--cost", "5m", "--work", "10h"];
    refused(
        &with(&validate, &["--points", "1000", "--runs", "1000000"]),
        &[
            "'--runs <N>'",
            "'1000000'",
            "at most",
            "runs of this setup",
            "4 GiB",
        ],
    );
    let many_workers = with(&SMALL_STENCIL[..2], &["--workers", "100000", "--no-fail"]);
    let costs = [
        "--width",
        "8",
        "--rows",
        "8",
        "--process-cost",
        "1",
        "--backup-cost",
        "0.1",
    ];
    refused(
        &with(&with(&many_workers, &costs), &["--runs", "100000"]),
        &["'--runs <N>'", "'100000'", "at most", "4 GiB"],
    );
    // Before: a slice was checked alone, so 1000 shards of that validation ran (80 MB of
    // figures each) towards a merge that would hold all 8 GB of them.
    refused(
        &with(
            &validate,
            &["--points", "1000", "--runs", "1000000", "--shard", "0/1000"],
        ),
        &["'--runs <N>'", "'1000000'", "at most", "4 GiB"],
    );
}

/// Shard files get a bound of their own, 1 GiB, above the 256 MiB of other inputs: a large
/// shard set (a 25-point validation writes 450 bytes a run) stays mergeable. The file is sparse.
#[test]
fn shard_files_are_read_up_to_their_own_bound() {
    let dir = scratch("oversized-shard");
    std::fs::create_dir_all(&*dir).unwrap();
    let shard = dir.join("huge.json");
    std::fs::File::create(&shard)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    let path = shard.to_str().unwrap();
    refused(&["merge", path], &[path, "larger than 1024 MiB"]);
}

/// Before: `--output-bytes 1e19` multiplied the peak copy count by it in `u64`, which wrapped
/// (1.4e19 printed for 18 copies of 1e19 bytes), and `OutputBytes = 1e30` in an INI was
/// silently saturated to 2^64 - 1 bytes. Now the product is taken in floating point and a size
/// of 2^64 bytes or more is refused where it is read.
#[test]
fn output_bytes_are_whole_and_their_peak_does_not_wrap() {
    let json = |bytes: &str| -> serde_json::Value {
        let text = crate::common::stdout_of(&with(
            &with(
                SMALL_STENCIL,
                &[
                    "--level",
                    "2",
                    "--process-cost",
                    "1",
                    "--backup-cost",
                    "0.01",
                    "--no-fail",
                    "--format",
                    "json",
                ],
            ),
            &["--output-bytes", bytes],
        ));
        serde_json::from_str(&text).unwrap()
    };
    for bytes in [4096.0, 1e19] {
        let v = json(&bytes.to_string());
        let copies = v["figures"]["max_copies_held"]["point"].as_f64().unwrap();
        let held = v["figures"]["max_bytes_held"]["point"].as_f64().unwrap();
        assert!(copies >= 2.0, "{v}");
        let want = copies * bytes;
        assert!(
            (held - want).abs() <= 1e-12 * want,
            "{bytes}: {held} != {want}"
        );
    }
    refused(
        &with(SMALL_STENCIL, &["--output-bytes", "2e19"]),
        &["--output-bytes", "2e19", "below 2^64"],
    );
    // A fraction of a byte rounded to 0 was taken as a size of 0.
    refused(
        &with(SMALL_STENCIL, &["--output-bytes", "0.4"]),
        &["--output-bytes", "0.4", "positive bytes"],
    );
    let ini = crate::common::read_package_file("data/validate/costly-checkpoint.ini")
        + "OutputBytes = 1e30\n";
    let ini = crate::common::temp_file("ckpt-robust-output-bytes", "big.ini", &ini);
    refused(
        &["simulate", "stencil", "--config", ini.to_str().unwrap()],
        &["OutputBytes", "1e30", "below 2^64"],
    );
}

/// Before: a weighted scheme of 2^20 checksums on 2^20 processors asked for an 8 TiB matrix
/// and aborted (exit 134) in `encode` and `pcg`; `interval --scheme weighted-1d` with 4096
/// checksums per group counted its survival table for over a minute. Each is refused at once,
/// naming `--checksums` and the most that fits.
#[test]
fn oversized_checksum_schemes_are_refused_before_the_work() {
    let start = Instant::now();
    let weighted = [
        "--scheme",
        "weighted",
        "--procs",
        "1048576",
        "--checksums",
        "1048576",
    ];
    refused(
        &with(&["encode", "--len", "1", "--fail", "1", "-q"], &weighted),
        &["--checksums", "1048576", "at most 32 checksums"],
    );
    refused(
        &with(&["pcg", "--grid", "2048", "-q"], &weighted),
        &["--checksums", "1048576", "at most 32 checksums"],
    );
    refused(
        &[
            "interval",
            "--mtbf",
            "24h",
            "--restart",
            "10m",
            "--procs",
            "4294967296",
            "--scheme",
            "weighted-1d",
            "--groups",
            "65536",
            "--checksums",
            "4096",
            "--ckpt-bytes",
            "1GiB",
            "--bandwidth",
            "10GB/s",
        ],
        &["--checksums", "4096", "survival table"],
    );
    // Before: 18.6 s, a product of 4.3e9 factors crept through the subnormals.
    let out = crate::common::stdout_of(&[
        "survive",
        "--scheme",
        "mirror",
        "--procs",
        "4294967296",
        "--failures",
        "4294967000",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["rows"][0]["survival"], 0.0, "{out}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

/// Before: `--fail-set 1,4,1` was silently read as `1,4`, `--shard +0/3` as `0/3`, and a log
/// whose failure gaps total a subnormal number of seconds was said to have no failure that
/// ends a gap. Each is now refused for what it is.
#[test]
fn repeated_signed_and_subnormal_inputs_are_named() {
    let encode = "encode --scheme ring --procs 8 --fail-set 1,4,1";
    refused(
        &encode.split(' ').collect::<Vec<_>>(),
        &["--fail-set", "1,4,1", "1 is listed twice"],
    );
    refused(
        &with(&periodic_example(), &["--runs", "10", "--shard", "+0/3"]),
        &["--shard", "+0/3"],
    );
    let log = crate::common::temp_file(
        "ckpt-robust-subnormal",
        "log.csv",
        "time\n0\n5e-324\n1e-323\n2e-323\n",
    );
    refused(
        &["fit", log.to_str().unwrap()],
        &["3 failure gaps", "too short an exposure"],
    );
}

/// Before: a stencil setting out of range was named by its setting (`for width`), neither the
/// flag nor the INI key a user would change. Now both.
#[test]
fn stencil_settings_name_flag_and_key() {
    let grid = |w: &'static str, r: &'static str, k: &'static str| {
        let base = "simulate stencil --process-cost 1 --backup-cost 0.01 --level 2";
        let mut args: Vec<&str> = base.split(' ').collect();
        args.extend(["--width", w, "--rows", r, "--workers", k]);
        args
    };
    refused(&grid("6", "4", "2"), &["--level (CheckpointLevel)", "`2`"]);
    refused(&grid("0", "4", "2"), &["--width (StencilSize)", "`0`"]);
    refused(&grid("8", "0", "2"), &["--rows (Timesteps)", "`0`"]);
    refused(&grid("8", "4", "0"), &["--workers (WorkerCount)", "`0`"]);
}

/// Before: each of these flags was accepted and changed nothing (the output was byte-identical,
/// or only echoed the value): the stencil validation's model flags beside its `--config`, a
/// grid's `--points` where no grid is simulated, a matrix for a scheme without one, `--flops`
/// for a scheme that only copies, a seed where nothing is drawn, `--at` without failures, a
/// level without checkpoints, `--force` without a folder, a downtime the replicated model does
/// not have.
#[test]
fn flags_that_would_change_nothing_are_refused() {
    let stencil = [
        "validate",
        "--sim",
        "stencil",
        "--config",
        "data/paper/rollback.ini",
    ];
    for extra in [
        &["--restart", "0"][..],
        &["--downtime", "1m"],
        &["--node-mtbf", "5y"],
        &["--detect", "immediate"],
        &["--latency", "1s"],
        &["--flops", "1e9"],
        &["--groups", "2"],
        &["--points", "4"],
    ] {
        refused(&with(&stencil, extra), &["--config", extra[0]]);
    }
    refused(
        &[
            "validate",
            "--mtbf",
            "6h",
            "--cost",
            "5m",
            "--dist",
            "weibull:0.7",
            "--points",
            "4",
        ],
        &["--points", "--dist"],
    );
    refused(
        &[
            "encode", "--scheme", "mirror", "--procs", "16", "--fail", "2", "--matrix", "cauchy",
        ],
        &["--matrix", "mirror"],
    );
    let pcg = ["pcg", "--grid", "16", "--procs", "4", "--every", "10"];
    refused(
        &with(
            &pcg,
            &["--scheme", "ring", "--fail", "1", "--matrix", "gaussian"],
        ),
        &["--matrix", "ring"],
    );
    refused(
        &with(
            &pcg,
            &["--scheme", "weighted", "--checksums", "2", "--at", "15"],
        ),
        &["--at", "--fail"],
    );
    refused(
        &[
            "interval",
            "--mtbf",
            "24h",
            "--scheme",
            "pair",
            "--procs",
            "16",
            "--ckpt-bytes",
            "1GiB",
            "--bandwidth",
            "1GB/s",
            "--flops",
            "1e9",
        ],
        &["--flops", "pair"],
    );
    refused(
        &with(
            &with(&["interval"], crate::common::REPLICATED_PAIRS),
            &["--downtime", "5m"],
        ),
        &["--downtime", "--replicas"],
    );
    let trace = crate::common::temp_file("nochange", "trace.csv", "3600\n");
    let trace = trace.to_str().unwrap();
    refused(
        &[
            "simulate",
            "periodic",
            "--trace",
            trace,
            "--cost",
            "5m",
            "--interval",
            "1h",
            "--work",
            "10h",
            "--seed",
            "3",
        ],
        &["--seed", "--trace"],
    );
    let small = with(
        crate::common::SMALL_STENCIL,
        &["--process-cost", "1", "--backup-cost", "1"],
    );
    refused(
        &with(&small, &["--no-fail", "--seed", "3"]),
        &["--no-fail", "--seed"],
    );
    refused(
        &with(&small, &["--trace", trace, "--seed", "3"]),
        &["--trace", "--seed"],
    );
    refused(
        &with(&small, &["--no-checkpoint", "--level", "3"]),
        &["--no-checkpoint", "--level"],
    );
    refused(
        &[
            "validate", "--mtbf", "6h", "--cost", "5m", "--runs", "20", "--points", "3", "--force",
        ],
        &["--force", "--out"],
    );
    let shard = crate::common::temp_file(
        "nochange-shard",
        "s.json",
        &crate::common::stdout_of(&[
            "simulate",
            "periodic",
            "--mtbf",
            "6h",
            "--cost",
            "5m",
            "--interval",
            "1h",
            "--work",
            "20h",
            "--runs",
            "20",
            "--shard",
            "0/1",
        ]),
    );
    refused(&["merge", shard.to_str().unwrap(), "--force"], &["--force"]);
    // The same flags where they do apply still run.
    crate::common::stdout_of(&[
        "encode",
        "--scheme",
        "weighted",
        "--procs",
        "16",
        "--checksums",
        "2",
        "--fail",
        "2",
        "--matrix",
        "cauchy",
    ]);
    crate::common::stdout_of(&with(
        &pcg,
        &[
            "--scheme",
            "weighted",
            "--checksums",
            "2",
            "--fail",
            "1",
            "--at",
            "15",
        ],
    ));
}

/// Before: a stencil without failures echoed the INI's `Seed` in its JSON, where the docs say
/// no seed is reported when nothing is drawn.
#[test]
fn a_stencil_without_failures_reports_no_seed() {
    let ini = crate::common::temp_file(
        "noseed",
        "c.ini",
        "[GENERAL]\nWorkerCount = 4\nCheckpointLevel = 2\nCheckpoint = Y\nFail = N\nSeed = 7\n\
         [Stencil]\nBackupCost = 1\nProcessCost = 1\nStencilSize = 16\nTimesteps = 16\n",
    );
    let json = crate::common::stdout_of(&[
        "simulate",
        "stencil",
        "--config",
        ini.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["seed"], serde_json::Value::Null, "{json}");
}

/// Before: an allocation validation whose grid interval could not hold its checkpoints in the
/// simulators' clock named `--interval`, a flag `validate` does not have; the allocation's
/// length, `--walltime`, is what sets the simulated work there.
#[test]
fn an_allocation_validation_too_long_for_the_clock_names_the_walltime() {
    refused(
        &[
            "validate",
            "--mtbf",
            "30d",
            "--cost",
            "65000s",
            "--restart",
            "1s",
            "--walltime",
            "499y",
            "--runs",
            "2",
            "--points",
            "3",
            "--quiet",
        ],
        &["--walltime", "584-year clock", "at the interval"],
    );
}

/// Before: the library gave infinite figures inside answers it called good, and panicked on an
/// out-of-range digit count (an audit of the public API from outside the crate found them).
#[test]
fn library_answers_stay_finite_at_the_edges() {
    use ckpt::failure::Lifetime;
    use ckpt::interval::{IntervalInputs, compute};
    use ckpt::model::multilevel::{Level, Levels, Pattern};
    use ckpt::model::renewal::Renewal;

    let inputs = IntervalInputs {
        work: Some(f64::MAX),
        ..IntervalInputs::single(86400.0, 300.0, 10.0)
    };
    let answer = compute(&inputs).unwrap();
    assert_eq!(answer.completion_s, None);
    assert!(answer.recommended_overhead.is_finite());

    let levels = Levels::new(vec![Level::new("a", 86400.0, 0.0, Some(3600.0))], 0.0).unwrap();
    assert!(
        levels
            .evaluate(&Pattern::new(1e-300, vec![1]).unwrap())
            .is_err()
    );

    // A mean and cost of 1e300 s are now beyond the renewal model's range; at its top the
    // predictions of a one-nanosecond job stay finite.
    let huge = Renewal::new(Lifetime::exponential(1e300).unwrap(), 1e300, 0.0);
    assert!(
        matches!(huge, Err(ckpt::model::ModelError::Parameter { .. })),
        "{huge:?}"
    );
    let job = Renewal::new(Lifetime::exponential(1e100).unwrap(), 1e100, 0.0).unwrap();
    let p = ckpt::model::finite_renewal::predict(&job, &[1], 1);
    assert!(p.overhead.is_none_or(f64::is_finite), "{p:?}");
    assert!(p.sd.is_none_or(f64::is_finite), "{p:?}");

    assert_eq!(ckpt::fit::advice_number(1.5, 65536), "1.5");
    assert_eq!(ckpt::fit::advice_number(1.5, i32::MAX), "1.5");
}

/// Before: 50 runs whose failure counts differ (standard error 0.55) showed their mean, 5.0,
/// as `5`, the form of counts that every run agrees on.
#[test]
fn a_mean_of_counts_that_differ_keeps_its_decimals() {
    let args = [
        "simulate",
        "periodic",
        "--work",
        "100h",
        "--schedule",
        "4983,5605,5992,7000",
        "--cost",
        "5m",
        "--restart",
        "10m",
        "--mtbf",
        "24h",
        "--dist",
        "weibull:0.7",
        "--runs",
        "50",
        "--seed",
        "7",
    ];
    let json: serde_json::Value = serde_json::from_str(&crate::common::stdout_of(&with(
        &args,
        &["--format", "json"],
    )))
    .unwrap();
    let failures = &json["figures"]["failures"];
    assert_eq!(
        failures["point"].as_f64().unwrap().fract(),
        0.0,
        "{failures}"
    );
    assert!(failures["stderr"].as_f64().unwrap() > 0.0, "{failures}");
    let table = crate::common::stdout_of(&args);
    let row: Vec<&str> = table
        .lines()
        .find(|l| l.starts_with("failures"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert!(row[1].contains('.') && row[4].contains('.'), "{row:?}");
}

/// Before: a gamma lifetime with a mean far below a second (1e-310 s, which `Lifetime::new`
/// takes) panicked in statrs' quantile (`XInvalid`), or did not return (mean 5e-324).
#[test]
fn gamma_quantiles_at_extreme_scales_return() {
    use ckpt::failure::{Lifetime, Shape};
    for (k, mean) in [
        (0.01, 1e-310),
        (3.0, 1e-315),
        (0.5, 1e-310),
        (1e-10, 5e-324),
        (2.0, 1e250),
    ] {
        let life = Lifetime::new(Shape::Gamma { shape: k }, mean).unwrap();
        for p in [0.01, 0.5, 0.99] {
            let q = life.quantile(p);
            assert!(q.is_finite() && q >= 0.0, "k {k}, mean {mean}, p {p}: {q}");
        }
    }
}

/// Before: a path that is not UTF-8 panicked (exit 101) where the command line is recorded
/// (`validate --out`, `sweep --out`, `simulate --trace`).
#[test]
fn a_path_that_is_not_utf8_is_no_panic() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let folder = scratch("non-utf8");
    std::fs::create_dir_all(&*folder).unwrap();
    let name = OsStr::from_bytes(b"r\xff");
    let out = ckpt()
        .current_dir(&*folder)
        .args(["simulate", "periodic", "--mtbf", "6h", "--cost", "5m"])
        .args(["--interval", "1h", "--work", "10h", "--trace"])
        .arg(name)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let out = ckpt()
        .current_dir(&*folder)
        .args(["validate", "--mtbf", "6h", "--cost", "5m", "--runs", "4"])
        .args(["--points", "3", "--quiet", "--out"])
        .arg(name)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(folder.join(name).join("report.md")).unwrap();
    assert!(report.contains("--out r\u{fffd}"), "{report}");
}

/// Before: every duration the exact reader refused was "below 584 years", whatever the reason.
#[test]
fn an_exact_duration_refusal_says_why() {
    let sim = [
        "simulate",
        "replicated",
        "--runs",
        "1",
        "--interval",
        "1",
        "--mtbf",
        "1h",
    ];
    let digits = "1.000000000000000000000000000000000001";
    refused(
        &with(&sim, &["--work", "10", "--cost", digits]),
        &["--cost", digits, "too many digits"],
    );
    refused(
        &with(&sim, &["--work", "1e-61", "--cost", "1"]),
        &["--work", "1e-61", "exponent outside -60 to 60"],
    );
    refused(
        &with(&sim, &["--work", "600y", "--cost", "1"]),
        &["--work", "600y", "584 years"],
    );
}

//! Generated-input fuzz tests of every parser a user's text reaches: durations, sizes and
//! bandwidths (`ckpt::units`), failure traces, the stencil INI, failure logs, sweep ranges
//! (`--vary`), shard slices (`--shard I/N`) and shard files.
//! Each takes committed files (or typical values) and mutates them at random: no input may
//! panic or hang, every error is one line, and accepted values round-trip where that is
//! meaningful. About 256 cases per parser keep the suite quick; for a longer run:
//!
//! ```text
//! CKPT_FUZZ_CASES=100000 cargo test --release --test it fuzz::
//! ```

use crate::common::read_package_file;
use proptest::prelude::*;
use std::path::Path;

fn config() -> ProptestConfig {
    let cases = std::env::var("CKPT_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Characters that mean something to some parser, and a few that mean nothing.
const ALPHABET: &[&str] = &[
    "\n",
    "\r",
    "\r\n",
    "\u{feff}",
    ",",
    "=",
    "[",
    "]",
    "#",
    ";",
    "\"",
    " ",
    "\t",
    "-",
    "+",
    ".",
    "e",
    "E",
    "0",
    "1",
    "9",
    "h",
    "m",
    "s",
    "y",
    "M",
    "B",
    "GiB",
    "/s",
    "bit",
    "..",
    "{",
    "}",
    ":",
    "null",
    "1e308",
    "-1",
    "NaN",
    "inf",
    "18446744073709551616",
    "é",
    "\u{0}",
    "x",
];

/// One edit of a text: delete a span, insert tokens, or duplicate a span elsewhere.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, Vec<usize>),
    Duplicate(usize, usize, usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (
            any::<usize>(),
            prop::collection::vec(0..ALPHABET.len(), 1..6)
        )
            .prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), 1usize..60, any::<usize>()).prop_map(|(a, n, b)| Edit::Duplicate(a, n, b)),
    ];
    prop::collection::vec(edit, 1..8)
}

/// `text` with `edits` applied, positions taken modulo the length at char boundaries.
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut s = text.to_string();
    let at = |s: &str, p: usize| {
        let mut p = if s.is_empty() { 0 } else { p % (s.len() + 1) };
        while !s.is_char_boundary(p) {
            p -= 1;
        }
        p
    };
    for e in edits {
        match e {
            Edit::Delete(a, n) => {
                let a = at(&s, *a);
                let b = at(&s, a + n.min(&(s.len() - a)));
                s.replace_range(a..b.max(a), "");
            }
            Edit::Insert(a, toks) => {
                let a = at(&s, *a);
                let t: String = toks.iter().map(|&i| ALPHABET[i]).collect();
                s.insert_str(a, &t);
            }
            Edit::Duplicate(a, n, b) => {
                let a = at(&s, *a);
                let end = at(&s, a + n.min(&(s.len() - a)));
                let piece = s[a..end.max(a)].to_string();
                let b = at(&s, *b);
                s.insert_str(b, &piece);
            }
        }
    }
    s
}

fn one_line(e: &impl std::fmt::Display) -> Result<(), TestCaseError> {
    let m = e.to_string();
    prop_assert!(
        !m.contains('\n') && !m.contains('\r'),
        "not one line: {m:?}"
    );
    prop_assert!(!m.is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn units_never_panic(seed in prop::sample::select(vec![
        "5m", "1.5h", "1h 30m", "42.5", "1e3", "7d", "5y", "1.3ms", "64MiB", "2TB", "10GB/s",
        "100Gbit/s", "800MiB/s", "0", "",
    ]), e in edits()) {
        let t = mutate(seed, &e);
        match ckpt::units::parse_duration(&t) {
            Ok(v) => prop_assert!(v.is_finite(), "{t:?} -> {v}"),
            Err(err) => one_line(&err)?,
        }
        for r in [
            ckpt::units::parse_positive_duration(&t),
            ckpt::units::parse_nonnegative_duration(&t),
            ckpt::units::parse_bytes(&t),
            ckpt::units::parse_bandwidth(&t),
        ] {
            match r {
                Ok(v) => prop_assert!(v.is_finite() && v >= 0.0, "{t:?} -> {v}"),
                Err(err) => one_line(&err)?,
            }
        }
        if let Ok(d) = ckpt::units::duration(&t) {
            prop_assert!(d.seconds().is_finite());
        }
    }

    /// A duration of whole seconds below a day prints as a humantime form that reads back to
    /// it; sizes and bandwidths in bytes read back exactly.
    #[test]
    fn units_round_trip(s in 1u64..86_400, n in 1u64..1_000_000_000_000) {
        let text = ckpt::units::format_duration(s as f64);
        prop_assert_eq!(ckpt::units::parse_duration(&text).unwrap(), s as f64, "{}", text);
        prop_assert_eq!(ckpt::units::parse_bytes(&format!("{n}B")).unwrap(), n as f64);
        prop_assert_eq!(ckpt::units::parse_bandwidth(&format!("{n}B/s")).unwrap(), n as f64);
    }

    #[test]
    fn traces_never_panic(e in edits(), which in 0..3usize) {
        use ckpt::sim::trace::{IndexColumn, parse_trace};
        let t = mutate(&read_package_file("data/paper/five-failures.csv"), &e);
        let column = [
            IndexColumn::Forbidden,
            IndexColumn::Optional { name: "node", count: 4 },
            IndexColumn::Required { name: "worker", count: 128 },
        ][which];
        if let Err(err) = parse_trace(&t, "t.csv", column) {
            one_line(&err)?;
        }
    }

    #[test]
    fn stencil_ini_never_panics(e in edits(), which in 0..2usize) {
        use ckpt::sim::stencil::config::parse_ini;
        let file = ["data/paper/rollback.ini", "data/validate/costly-checkpoint.ini"][which];
        let t = mutate(&read_package_file(file), &e);
        match parse_ini(&t, "c.ini", Path::new("data/paper")) {
            Ok(settings) => {
                if let Err(err) = settings.validate(false, Some("time_seconds\n1\n")) {
                    one_line(&err)?;
                }
            }
            Err(err) => one_line(&err)?,
        }
    }

    #[test]
    fn failure_logs_never_panic(e in edits(), which in 0..3usize) {
        let file = ["data/failures/nodes.csv", "data/failures/exponential.csv",
            "data/failures/allocations.csv"][which];
        let text = read_package_file(file);
        // The head of the file: mutations matter, not its length.
        let head: String = text.lines().take(60).collect::<Vec<_>>().join("\n");
        let t = mutate(&head, &e);
        if let Err(err) = ckpt::fit::parse_log(&t, "f.csv") {
            one_line(&err)?;
        }
    }

    /// `--vary PARAM=LO..HI`: never a panic; an accepted range gives finite values that
    /// start at LO, end at HI, increase, and number at most `--points`.
    #[test]
    fn sweep_ranges_never_panic(seed in prop::sample::select(vec![
        "mtbf=1h..7d", "cost=1s..1h", "restart=0..10m", "procs=1..1024", "replicas=1..8",
        "interval=1m..1d", "mtbf=1e-300..1e300",
    ]), e in edits(), points in 0usize..400, log in any::<bool>()) {
        let t = mutate(seed, &e);
        match ckpt::sweep::SweepSpec::parse(&t, points, log) {
            Ok(spec) => {
                let v = spec.values();
                prop_assert!(!v.is_empty() && v.len() <= points, "{t:?}: {} values", v.len());
                prop_assert!(v.iter().all(|x| x.is_finite()), "{t:?}: {v:?}");
                prop_assert!(v.windows(2).all(|w| w[0] <= w[1]), "{t:?}: {v:?}");
                let (lo, hi) = (spec.range.lo, spec.range.hi);
                let ends = if spec.param.is_duration() { (lo, hi) } else { (lo.round(), hi.round()) };
                prop_assert_eq!((v[0], v[v.len() - 1]), ends, "{:?}", t);
            }
            Err(err) => one_line(&err)?,
        }
    }

    /// `--shard I/N`: never a panic; the `N` slices of any total cover it once, in order.
    #[test]
    fn shard_slices_cover_the_runs_once(
        seed in prop::sample::select(vec!["0/1", "2/8", "17/100", "0/18446744073709551615"]),
        e in edits(),
        count in 1u64..64,
        total in 0u64..10_000,
    ) {
        use ckpt::job::shard::Shard;
        let t = mutate(seed, &e);
        match Shard::parse(&t) {
            Ok(s) => prop_assert!(s.index < s.count, "{t:?}"),
            Err(err) => one_line(&err)?,
        }
        let mut next = 0;
        for index in 0..count {
            let r = Shard { index, count }.range(total);
            prop_assert_eq!(r.start, next);
            next = r.end;
        }
        prop_assert_eq!(next, total);
    }

    #[test]
    fn shard_files_never_panic(e in edits()) {
        let t = mutate(&read_package_file("data/examples/shard-format-1.json"), &e);
        if let Err(err) = ckpt::job::shard::header("s.json", &t) {
            one_line(&err)?;
        }
        if let Err(err) = ckpt::job::merge([Ok(("s.json".to_string(), t))], None) {
            one_line(&err)?;
        }
    }
}

/// One shard file (`--shard 0/1`: every result) of each kind of job, written by the binary.
fn whole_shards() -> &'static [String] {
    static SHARDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SHARDS.get_or_init(|| {
        let stencil = "--width 16 --rows 16 --workers 4 --level 2 --process-cost 1 \
                       --backup-cost 0.01 --mtbf 5m --runs 3";
        let levels = "--level cost=5s,mtbf=1h --level cost=60s,mtbf=1d";
        let ini = crate::common::temp_file(
            "fuzz-jobs",
            "small.ini",
            "[GENERAL]\nWorkerCount = 4\nCheckpointLevel = 1\nCheckpoint = Y\n\
             Recovery = Default\nFail = Y\nMTBF = 300\nSeed = 1\n[Stencil]\nBackupCost = 1\n\
             TransferCost = 0.01\nProcessCost = 1\nStencilSize = 16\nTimesteps = 16\n",
        );
        [
            "simulate periodic --mtbf 6h --cost 5m --interval 1h --work 20h --runs 3".to_string(),
            "simulate periodic --nodes 8 --node-mtbf 2d --partners 2 --cost 5m --interval 1h \
             --work 20h --walltime 30h --runs 3"
                .into(),
            "simulate periodic --mtbf 6h --cost 5m --work 20h --schedule 1h,2h --runs 3".into(),
            "simulate replicated --mtbf 1h --cost 60s --procs 4 --replicas 2 --interval 6m \
             --work 5h --runs 3"
                .into(),
            format!("simulate stencil {stencil}"),
            format!("simulate multilevel {levels} --interval 10m --strides 1,4 --work 5h --runs 3"),
            "validate --mtbf 6h --cost 5m --work 10h --runs 3 --points 3".into(),
            "validate --mtbf 1h --cost 60s --procs 4 --replicas 2 --work 5h --runs 3 --points 3"
                .into(),
            "validate --mtbf 24h --cost 10m --dist weibull:0.7 --runs 3".into(),
            format!("validate {levels} --runs 3 --points 3"),
            format!("validate --sim stencil --config {} --runs 3", ini.display()),
            "sweep --mtbf 6h --cost 5m --vary mtbf=1h..1d --points 3 --out r".into(),
            format!("sweep {levels} --vary level2.cost=5s..10m --points 3 --out r"),
            "sweep --mtbf 24h --cost 10m --dist weibull:1 --vary shape=0.5..1.5 --points 3 --out r"
                .into(),
        ]
        .iter()
        .map(|c| {
            let mut args: Vec<&str> = c.split_whitespace().collect();
            args.extend(["--shard", "0/1"]);
            crate::common::stdout_of(&args)
        })
        .collect()
    })
}

/// Every leaf of `v` (numbers, strings, booleans, arrays), as JSON pointers.
fn leaves(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                leaves(x, format!("{at}/{k}"), out);
            }
        }
        serde_json::Value::Array(a) => {
            out.push(at.clone());
            for (i, x) in a.iter().enumerate().take(4) {
                leaves(x, format!("{at}/{i}"), out);
            }
        }
        serde_json::Value::Null => {}
        _ => out.push(at),
    }
}

/// Values a hand edit might leave.
fn replacement(k: usize, old: &serde_json::Value) -> serde_json::Value {
    use serde_json::json;
    match (old, k % 10) {
        (serde_json::Value::Array(a), 0..=4) => json!(a[..a.len() / 2]),
        (serde_json::Value::Array(_), _) => json!([]),
        (serde_json::Value::Bool(b), _) => json!(!b),
        (serde_json::Value::String(_), 0..=4) => json!(""),
        (serde_json::Value::String(_), _) => json!("x"),
        (_, 0) => json!(0),
        (_, 1) => json!(1),
        (_, 2) => json!(u64::MAX),
        (_, 3) => json!(1u64 << 40),
        (_, 4) => json!(-1),
        (_, 5) => json!(1e308),
        (_, 6) => json!(1e-300),
        (_, 7) => json!(0.5),
        (_, 8) => json!(-0.0),
        _ => json!(2),
    }
}

proptest! {
    #![proptest_config(config())]

    /// A job edited by hand and given a matching digest (the digest catches damage, not
    /// intent) reaches the checks behind it: the merge refuses it in one line or finishes,
    /// and never panics, whatever the edit leaves.
    #[test]
    fn edited_jobs_with_their_digest_never_panic_the_merge(
        which in 0..whole_shards().len(),
        pick in any::<prop::sample::Index>(),
        edits in 1..3usize,
        k in any::<usize>(),
    ) {
        let text = &whole_shards()[which];
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        for e in 0..edits {
            let mut paths = Vec::new();
            leaves(&v["job"], "/job".into(), &mut paths);
            let path = pick.get(&paths).clone();
            let old = v.pointer(&path).unwrap().clone();
            *v.pointer_mut(&path).unwrap() = replacement(k.wrapping_add(e * 7), &old);
        }
        // The total is left as it was: an edit of the run or point count is then refused as
        // an edit, and asking an unchecked job for its size is the merge's business.
        if let Ok(job) = serde_json::from_value::<ckpt::job::Job>(v["job"].clone()) {
            v["digest"] = ckpt::job::shard::digest(&job).into();
        }
        let edited = v.to_string();
        if let Err(err) = ckpt::job::merge([Ok(("s.json".to_string(), edited))], None) {
            one_line(&err)?;
        }
    }
}

/// Found by the test above at 20 000 cases: a multi-level sweep's job cut to one level (and
/// given its digest) while its points keep two strides made the report index past the levels.
/// The merge checks every result against its job and names the file.
#[test]
fn a_result_that_does_not_fit_its_edited_job_is_refused() {
    let text = whole_shards()
        .iter()
        .find(|t| t.contains("\"command\":\"sweep-multilevel\""))
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    let first = v["job"]["levels"]["levels"][0].clone();
    v["job"]["levels"]["levels"] = serde_json::json!([first]);
    v["job"]["restart_follows_cost"] = serde_json::json!([true]);
    v["job"]["level"] = serde_json::json!(0);
    let job: ckpt::job::Job = serde_json::from_value(v["job"].clone()).unwrap();
    v["digest"] = ckpt::job::shard::digest(&job).into();
    match ckpt::job::merge([Ok(("s.json".to_string(), v.to_string()))], None) {
        Err(e) => {
            let m = e.to_string();
            assert!(
                m.starts_with("s.json: ")
                    && m.contains("result 1 does not fit its job: 2 strides for 1 levels"),
                "{m}"
            );
        }
        Ok(o) => panic!("merged: {}", o.text),
    }
}

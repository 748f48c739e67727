//! Multi-level checkpointing on the command line (docs/models.md §12, docs/interface.md §1.13):
//! the `--level` value parser, its validation into the library's [`Levels`], and the
//! multi-level forms of `interval`, `simulate`, `validate` and `sweep`.

use super::CliError;
use super::interval::{IntervalArgs, IntervalFormat};
use super::parse::{duration, duration0};
use ckpt::job::{
    Job, MultilevelFormat, PatternCheck, Reporting, SimulateMultilevel, SweepMultilevel,
    ValidateMultilevel,
};
use ckpt::model::multilevel::{Level, Levels, MultilevelAnswer, MultilevelError, Pattern};
use ckpt::report::multilevel as report;
use ckpt::sim::multilevel::MultilevelConfig;
use ckpt::sim::run::Scenario;
use ckpt::sweep::multilevel::{LevelSweep, MultilevelSweepParam};
use ckpt::validate::multilevel::MultilevelValidateOptions;
use clap::{Args, ValueEnum};

/// What `--level` accepts, as error messages say it.
pub const LEVEL_ACCEPTED: &str = "cost=DURATION[,restart=DURATION][,mtbf=DURATION][,name=NAME] (keys once each, cost required; e.g. cost=5s,restart=10s,mtbf=3h,name=local)";

/// Longest level name.
pub const MAX_NAME: usize = 32;

/// One `--level` as typed, its durations read (seconds) and its keys checked.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelSpec {
    /// The value as typed, for messages.
    pub text: String,
    /// `name=`, if given.
    pub name: Option<String>,
    /// `cost=` (positive).
    pub cost: f64,
    /// `restart=` (zero or more), if given; the cost otherwise.
    pub restart: Option<f64>,
    /// `mtbf=` (positive), if given.
    pub mtbf: Option<f64>,
}

impl LevelSpec {
    /// The library's level; `index` (0-based) names it `levelN` when no name is given.
    pub fn level(&self, index: usize) -> Level {
        let name = self
            .name
            .clone()
            .unwrap_or_else(|| format!("level{}", index + 1));
        Level::new(
            &name,
            self.cost,
            self.restart.unwrap_or(self.cost),
            self.mtbf,
        )
    }
}

/// Parses one `--level` value: comma-separated `key=value` pairs with the keys `cost`
/// (required, a positive duration), `restart` (a duration of zero or more; default the cost),
/// `mtbf` (a positive duration) and `name` (1 to 32 letters, digits, `-`, `_` or `.`), each at
/// most once. The error says what is wrong and what is accepted, for clap to print after the
/// flag and the value.
pub fn level_spec(text: &str) -> Result<LevelSpec, String> {
    let msg = |why: String| format!("{why}; accepted: {LEVEL_ACCEPTED}");
    let fail = |why: String| Err(msg(why));
    let mut spec = LevelSpec {
        text: text.to_string(),
        name: None,
        cost: 0.0,
        restart: None,
        mtbf: None,
    };
    let mut cost = None;
    let mut seen: Vec<&str> = Vec::new();
    for part in text.split(',') {
        let Some((key, value)) = part.split_once('=') else {
            return fail(format!("`{}` is not KEY=VALUE", part.trim()));
        };
        let (key, value) = (key.trim(), value.trim());
        let key = match key {
            "cost" | "restart" | "mtbf" | "name" => key,
            _ => return fail(format!("unknown key `{key}`")),
        };
        if seen.contains(&key) {
            return fail(format!("key `{key}` given twice"));
        }
        seen.push(key);
        let read = |positive: bool| -> Result<f64, String> {
            let d = ckpt::units::duration(value)
                .map_err(|e| format!("{key}: {e}"))?
                .seconds();
            if !d.is_finite() || d < 0.0 || (positive && d <= 0.0) {
                let what = if positive {
                    "a positive duration"
                } else {
                    "a duration of zero or more"
                };
                return Err(format!("{key}={value} must be {what}"));
            }
            if d > ckpt::units::MAX_DURATION_S {
                return Err(format!("{key}={value} must be {}", ckpt::units::TOO_LONG));
            }
            Ok(d)
        };
        match key {
            "cost" => cost = Some(read(true).map_err(msg)?),
            "restart" => spec.restart = Some(read(false).map_err(msg)?),
            "mtbf" => spec.mtbf = Some(read(true).map_err(msg)?),
            _ => {
                let ok = !value.is_empty()
                    && value.chars().count() <= MAX_NAME
                    && value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
                if !ok {
                    return fail(format!(
                        "name `{value}` must be 1 to {MAX_NAME} letters, digits, `-`, `_` or `.`"
                    ));
                }
                spec.name = Some(value.to_string());
            }
        }
    }
    match cost {
        Some(c) => spec.cost = c,
        None => return fail("no cost given".into()),
    }
    Ok(spec)
}

/// The `--level` flag, flattened into the model flags of `interval`, `sweep` and `validate`.
#[derive(Debug, Clone, Default, Args)]
pub struct LevelArgs {
    /// One checkpoint level, repeated cheapest first:
    /// cost=D[,restart=D][,mtbf=D][,name=N] (mtbf: of the failures this level is the first
    /// to survive; restart defaults to the cost). Replaces --mtbf, --cost, --restart and the
    /// other single-level model flags (docs/models.md §12).
    #[arg(
        long = "level",
        value_name = "cost=D[,restart=D][,mtbf=D][,name=N]",
        value_parser = level_spec,
        conflicts_with_all = SINGLE_LEVEL_FLAGS,
    )]
    pub level: Vec<LevelSpec>,
}

/// The single-level model flags `--level` replaces (clap ids).
pub(super) const SINGLE_LEVEL_FLAGS: [&str; 18] = [
    "mtbf",
    "cost",
    "restart",
    "nodes",
    "node_mtbf",
    "procs",
    "replicas",
    "detect",
    "dist",
    "create_time",
    "latency",
    "ckpt_bytes",
    "bandwidth",
    "ack_time",
    "scheme",
    "groups",
    "checksums",
    "flops",
];

impl LevelArgs {
    /// True when `--level` is given: the command answers the multi-level question.
    pub fn given(&self) -> bool {
        !self.level.is_empty()
    }
}

/// The `--level` whose 1-based number is `level`, as typed.
fn level_text(specs: &[LevelSpec], level: usize) -> String {
    specs
        .get(level.saturating_sub(1))
        .map_or_else(String::new, |s| s.text.clone())
}

/// Maps a model error to what the user sees, naming the `--level` at fault where there is one.
pub fn model_error(specs: &[LevelSpec], e: MultilevelError) -> CliError {
    use MultilevelError as E;
    let invalid = |level: usize, accepted: String| CliError::Invalid {
        arg: "--level",
        value: level_text(specs, level),
        accepted,
    };
    match e {
        E::Unordered {
            level,
            prev_level,
            prev_cost,
            ..
        } => invalid(
            level,
            format!(
                "the --level flags in order of increasing cost, cheapest first: this one costs less than the {prev_cost}s of --level number {prev_level} before it"
            ),
        ),
        E::MissingMtbf { level, .. } => invalid(
            level,
            "an mtbf=DURATION on the top (last) --level: without failures of its class no interval is best".into(),
        ),
        E::Parameter {
            level, accepted, ..
        } => invalid(level, accepted.to_string()),
        E::TooManyLevels { count } => CliError::Invalid {
            arg: "--level",
            value: format!("{count} levels"),
            accepted: e.to_string(),
        },
        E::SearchTooLarge | E::NoProgress | E::Optimize(_) => CliError::NoAnswer(e.to_string()),
        other => CliError::Conflict(other.to_string()),
    }
}

/// The validated levels of `specs` with `downtime` (s).
pub fn levels(specs: &[LevelSpec], downtime: f64) -> Result<Levels, CliError> {
    let levels = specs.iter().enumerate().map(|(i, s)| s.level(i)).collect();
    Levels::new(levels, downtime).map_err(|e| model_error(specs, e))
}

/// The optimum of `levels`, errors naming the `--level` at fault.
pub fn optimum(specs: &[LevelSpec], levels: &Levels) -> Result<MultilevelAnswer, CliError> {
    levels.optimize().map_err(|e| model_error(specs, e))
}

/// Refuses the asynchronous and allocation flags beside `--level`: the multi-level model and
/// its simulator have synchronous checkpoints and no allocation.
fn single_level_only(
    a: &super::finite::AsyncArgs,
    w: &super::finite::AllocationArgs,
) -> Result<(), CliError> {
    if a.async_write.is_some()
        || a.async_slowdown.is_some()
        || w.walltime.is_some()
        || w.signal_margin.is_some()
    {
        return Err(CliError::Conflict(
            "--async-write, --async-slowdown, --walltime and --signal-margin apply to one level: the multi-level model has synchronous checkpoints and no allocation; drop them with --level".into(),
        ));
    }
    Ok(())
}

/// `ckpt interval --level ...`: the multi-level answer in the chosen format.
pub fn interval(args: &IntervalArgs) -> Result<String, CliError> {
    let specs = &args.model.levels.level;
    if args.iteration_time.is_some() {
        return Err(CliError::Conflict(
            "--iteration-time applies to the single-level models: drop it with --level".into(),
        ));
    }
    single_level_only(&args.asynchronous, &args.allocation)?;
    let levels = levels(specs, args.model.downtime)?;
    let answer = optimum(specs, &levels)?;
    let format_error = |e: report::FormatError| match e {
        report::FormatError::Model(m) => model_error(specs, m),
        other => CliError::Conflict(other.to_string()),
    };
    Ok(match args.format {
        IntervalFormat::Table => report::interval_table(&levels, &answer, args.work),
        IntervalFormat::Json => report::interval_json(&levels, &answer, args.work),
        IntervalFormat::Env => report::env(&answer),
        IntervalFormat::Scr => report::scr(&levels, &answer),
        IntervalFormat::Fti => {
            report::fti_lines(&report::fti(&levels, &answer).map_err(format_error)?)
        }
        IntervalFormat::Veloc => report::veloc(&answer).map_err(format_error)?,
        IntervalFormat::Slurm => {
            return Err(CliError::Conflict(
                "--format slurm needs --walltime, which applies to one level: not with --level"
                    .into(),
            ));
        }
    })
}

/// `--strides` as typed: one entry per level, `None` for a level left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Strides(pub Vec<Option<u64>>);

/// Parses `--strides`: one entry per level, comma-separated, each a whole number of at least 1
/// or `-` for a level left out.
pub fn strides(text: &str) -> Result<Strides, String> {
    let v = text
        .split(',')
        .map(|s| match s.trim() {
            "-" => Ok(None),
            t => match t.parse::<u64>() {
                Ok(k) if k >= 1 => Ok(Some(k)),
                _ => Err(format!(
                    "`{t}` is not a stride: use one whole number of at least 1 per level, or - for a level left out (e.g. 1,4,32 or -,1,16)"
                )),
            },
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Strides(v))
}

/// Output formats of `simulate multilevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimFormat {
    /// Aligned text for a person.
    Table,
    /// One JSON object, in seconds.
    Json,
    /// One line per figure.
    Csv,
}

/// `ckpt simulate multilevel`.
#[derive(Debug, Args)]
pub struct SimulateMultilevelArgs {
    /// One checkpoint level, repeated cheapest first (as for `ckpt interval --level`).
    #[arg(long = "level", required = true, value_name = "cost=D[,restart=D][,mtbf=D][,name=N]", value_parser = level_spec)]
    pub level: Vec<LevelSpec>,
    /// The base interval w: work per chunk (e.g. 291s).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub interval: f64,
    /// One stride per level, nested, the lowest used 1 (e.g. 1,7,91; `-` for a level left out).
    #[arg(long, value_parser = strides)]
    pub strides: Strides,
    /// Computation the job needs (e.g. 500h).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub work: f64,
    /// Downtime before each restart, during which nothing fails.
    #[arg(long, value_name = "DURATION", value_parser = duration0, default_value = "0")]
    pub downtime: f64,
    /// Replications (default 1000).
    #[arg(long, value_name = "N", value_parser = super::parse::runs(1, super::simulate::MAX_RUNS))]
    pub runs: Option<u64>,
    /// Seed of the random streams (run i uses stream i of this seed).
    #[arg(long, default_value_t = super::DEFAULT_SEED, value_parser = super::parse::whole::<u64>)]
    pub seed: u64,
    /// table, json or csv.
    #[arg(long, value_enum, default_value_t = SimFormat::Table)]
    pub format: SimFormat,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub exec: super::simulate::ExecArgs,
}

/// The pattern of `--interval` and `--strides` for `levels`.
fn pattern(
    levels: &Levels,
    interval: f64,
    strides: &[Option<u64>],
    text: &str,
) -> Result<Pattern, CliError> {
    let invalid = |accepted: String| CliError::Invalid {
        arg: "--strides",
        value: text.to_string(),
        accepted,
    };
    if strides.len() != levels.len() {
        return Err(invalid(format!(
            "one stride per --level ({} given for {} levels), nested: the lowest used 1, each used one a multiple of the used one below",
            strides.len(),
            levels.len()
        )));
    }
    let used: Vec<(usize, u64)> = strides
        .iter()
        .enumerate()
        .filter_map(|(j, k)| k.map(|k| (j, k)))
        .collect();
    if let Some(w) = used.windows(2).find(|w| w[0].1 == w[1].1) {
        return Err(invalid(format!(
            "levels {} and {} both have stride {}: level {} would never be written (the higher level takes each of its turns); write - for a level left out",
            w[0].0 + 1,
            w[1].0 + 1,
            w[1].1,
            w[0].0 + 1
        )));
    }
    Pattern::from_used(interval, strides).map_err(|e| match e {
        MultilevelError::Interval { .. } => CliError::Invalid {
            arg: "--interval",
            value: interval.to_string(),
            accepted: e.to_string(),
        },
        e => invalid(format!(
            "{e} (strides: one per level, the lowest used 1, each used one a larger multiple of the used one below, - for a level left out)"
        )),
    })
}

/// Validates `simulate multilevel`'s arguments into its job.
pub fn simulate_job(a: SimulateMultilevelArgs, args: &[String]) -> Result<Job, CliError> {
    let levels = levels(&a.level, a.downtime)?;
    let (interval, work) = (a.interval, a.work);
    let text = a
        .strides
        .0
        .iter()
        .map(|s| s.map_or("-".to_string(), |k| k.to_string()))
        .collect::<Vec<_>>()
        .join(",");
    let pattern = pattern(&levels, interval, &a.strides.0, &text)?;
    // The simulator counts whole nanoseconds: a cost that rounds to none is refused here, as
    // typed, where the simulator could only name the rounded 0.
    if let Some(i) = levels
        .levels()
        .iter()
        .position(|l| ckpt::units::secs_to_ns(l.cost) == 0)
    {
        return Err(CliError::Invalid {
            arg: "--level",
            value: level_text(&a.level, i + 1),
            accepted: "a cost of at least 0.5ns: the simulator counts whole nanoseconds".into(),
        });
    }
    for (arg, seconds) in [("--interval", interval), ("--work", work)] {
        if ckpt::units::secs_to_ns(seconds) == 0 {
            return Err(CliError::Invalid {
                arg,
                value: super::finite::seconds(seconds),
                accepted: "a duration of at least 0.5ns: the simulator counts whole nanoseconds"
                    .into(),
            });
        }
    }
    let config = MultilevelConfig::from_model(&levels, &pattern, work)
        .map_err(super::simulate::sim_error)?;
    config.validate().map_err(super::simulate::sim_error)?;
    let runs = a.runs.unwrap_or(1000);
    let job = SimulateMultilevel {
        levels,
        pattern,
        work_s: work,
        config,
        runs,
        seed: a.seed,
        format: match a.format {
            SimFormat::Table => MultilevelFormat::Table,
            SimFormat::Json => MultilevelFormat::Json,
            SimFormat::Csv => MultilevelFormat::Csv,
        },
        args: args.to_vec(),
    };
    Ok(Job::SimulateMultilevel(job))
}

/// `ckpt validate --level ...`: the model's pattern against simulation.
pub fn validate_job(v: &super::validate::ValidateArgs, argv: &[String]) -> Result<Job, CliError> {
    let specs = &v.model.levels.level;
    if v.sim.is_some() || v.config.is_some() || v.aging || v.heartbeat.is_some() {
        return Err(CliError::Conflict(
            "--level validates the multi-level model against its own simulator: drop --sim, --config, --aging and --heartbeat".into(),
        ));
    }
    single_level_only(&v.asynchronous, &v.allocation)?;
    let levels = levels(specs, v.model.downtime)?;
    // Once per job: the optimum can take seconds when costs and MTBFs are far apart.
    let pattern = optimum(specs, &levels)?.pattern;
    let options = MultilevelValidateOptions {
        work_s: v.work.unwrap_or(super::validate::DEFAULT_WORK_S),
        runs: v.runs.unwrap_or(1000),
        seed: v.seed.unwrap_or(super::DEFAULT_SEED),
        grid_points: v.points.unwrap_or(super::validate::DEFAULT_POINTS),
    };
    let job = ValidateMultilevel {
        setup: PatternCheck {
            levels,
            pattern,
            options,
        },
        report: Reporting {
            format: v.format.into(),
            out: v.out.clone(),
            args: argv.to_vec(),
        },
    };
    let s = &job.setup;
    ckpt::validate::multilevel::plan(&s.levels, &s.pattern, &s.options)
        .map_err(super::validate::validate_error)?;
    Ok(Job::ValidateMultilevel(job))
}

/// Parses `--vary` for `--level`: `levelN.cost`, `levelN.restart` or `levelN.mtbf` (N from 1),
/// `=LO..HI` with durations.
pub fn vary(
    text: &str,
    levels: &Levels,
) -> Result<(usize, MultilevelSweepParam, f64, f64), CliError> {
    let invalid = |accepted: String| CliError::Invalid {
        arg: "--vary",
        value: text.to_string(),
        accepted,
    };
    let grammar = || {
        format!(
            "with --level use levelN.cost, levelN.restart or levelN.mtbf =LO..HI, N from 1 to {} (e.g. level2.cost=1m..30m)",
            levels.len()
        )
    };
    let syntax = || invalid(grammar());
    let (name, range) = text.split_once('=').ok_or_else(syntax)?;
    let (level, param) = name.trim().split_once('.').ok_or_else(syntax)?;
    let n: usize = level
        .strip_prefix("level")
        .and_then(|n| n.parse().ok())
        .filter(|n| (1..=levels.len()).contains(n))
        .ok_or_else(syntax)?;
    let param = match param {
        "cost" => MultilevelSweepParam::Cost,
        "restart" => MultilevelSweepParam::Restart,
        "mtbf" => MultilevelSweepParam::Mtbf,
        _ => return Err(syntax()),
    };
    let (lo, hi) = range.split_once("..").ok_or_else(syntax)?;
    // Every end a duration a user may give (500 years at most); the signs are checked below.
    let read = |s: &str| match ckpt::units::parse_duration(s) {
        Ok(v) if v > ckpt::units::MAX_DURATION_S => Err(invalid(format!(
            "`{}` must be {}; {}",
            ckpt::text::shown(s),
            ckpt::units::TOO_LONG,
            grammar()
        ))),
        Ok(v) => Ok(v),
        Err(e) => Err(invalid(format!("{e}; {}", grammar()))),
    };
    let (lo, hi) = (read(lo)?, read(hi)?);
    if param == MultilevelSweepParam::Cost {
        // Levels stay cheapest first along the whole range.
        let l = levels.levels();
        let below = if n >= 2 { l[n - 2].cost } else { 0.0 };
        let above = l.get(n).map_or(f64::INFINITY, |x| x.cost);
        if lo < below || hi > above {
            return Err(invalid(format!(
                "a cost range within the costs of the levels around level {n} ({}s..{}), so that the levels stay cheapest first",
                below,
                if above.is_finite() {
                    format!("{above}s")
                } else {
                    "any".into()
                }
            )));
        }
    }
    let ends = ckpt::sweep::SweepRange {
        lo,
        hi,
        points: ckpt::sweep::MIN_POINTS,
        log: false,
    };
    if !ends.ends_ok(param == MultilevelSweepParam::Restart) {
        return Err(invalid("a range LO..HI with 0 < LO < HI".into()));
    }
    Ok((n - 1, param, lo, hi))
}

/// `ckpt sweep --level ...`: the multi-level optimum along one level's input.
pub fn sweep_job(
    s: &super::sweep::SweepArgs,
    argv: &[String],
) -> Result<SweepMultilevel, CliError> {
    let specs = &s.model.levels.level;
    let levels = levels(specs, s.model.downtime)?;
    let (level, param, lo, hi) = vary(&s.vary, &levels)?;
    if s.log && lo <= 0.0 {
        return Err(CliError::Invalid {
            arg: "--vary",
            value: s.vary.clone(),
            accepted: "LO > 0 with --log".into(),
        });
    }
    let sweep = LevelSweep {
        levels,
        restart_follows_cost: specs.iter().map(|l| l.restart.is_none()).collect(),
        level,
        param,
        range: s.range(lo, hi),
    };
    // Both ends must be valid levels with an answer: refuse before any work.
    for v in [lo, hi] {
        let l = sweep
            .levels_at(v)
            .map_err(|e| vary_error(&s.vary, specs, e))?;
        optimum(specs, &l).map_err(|e| match e {
            CliError::Invalid { accepted, .. } => CliError::Invalid {
                arg: "--vary",
                value: s.vary.clone(),
                accepted: format!("a range where every level stays valid ({accepted})"),
            },
            CliError::NoAnswer(why) => CliError::Invalid {
                arg: "--vary",
                value: s.vary.clone(),
                accepted: format!(
                    "a range with an answer at both ends; at {} s: {why}",
                    ckpt::report::table::seconds(v)
                ),
            },
            other => other,
        })?;
    }
    Ok(SweepMultilevel {
        sweep,
        out: s.out.clone(),
        args: argv.to_vec(),
    })
}

fn vary_error(text: &str, specs: &[LevelSpec], e: MultilevelError) -> CliError {
    match model_error(specs, e) {
        CliError::Invalid { accepted, .. } => CliError::Invalid {
            arg: "--vary",
            value: text.to_string(),
            accepted: format!("a range where every level stays valid ({accepted})"),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn full_and_minimal_levels() {
        let s = level_spec("cost=5s,restart=10s,mtbf=3h,name=local").unwrap();
        assert_eq!(
            (s.cost, s.restart, s.mtbf, s.name.as_deref()),
            (5.0, Some(10.0), Some(10800.0), Some("local"))
        );
        let s = level_spec("cost=1m").unwrap();
        assert_eq!(s.level(1), Level::new("level2", 60.0, 60.0, None));
        // Keys in any order, spaces around them.
        let s = level_spec(" mtbf = 1d , cost=30s").unwrap();
        assert_eq!((s.cost, s.mtbf), (30.0, Some(86400.0)));
    }

    #[test]
    fn bad_levels_say_why() {
        for (text, why) in [
            ("cost=5s,foo=1", "unknown key `foo`"),
            ("cost=5s,cost=6s", "key `cost` given twice"),
            ("restart=5s", "no cost given"),
            ("cost=0", "cost=0 must be a positive duration"),
            ("cost=5s,restart=-1", "must be a duration of zero or more"),
            ("cost=5s,mtbf=0s", "mtbf=0s must be a positive duration"),
            ("cost", "`cost` is not KEY=VALUE"),
            ("cost=5s,", "`` is not KEY=VALUE"),
            ("cost=5s,name=a b", "name `a b`"),
            ("cost=5x", "cost:"),
        ] {
            let e = level_spec(text).unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
            assert!(e.contains("accepted: cost=DURATION"), "{text}: {e}");
        }
    }

    #[test]
    fn strides_with_levels_left_out() {
        assert_eq!(strides("1,4,32").unwrap().0, [Some(1), Some(4), Some(32)]);
        assert_eq!(strides("-, 1,16").unwrap().0, [None, Some(1), Some(16)]);
        assert!(strides("1,0").is_err());
        assert!(strides("1,x").is_err());
    }

    /// cost, restart, mtbf, name.
    type Parsed = (f64, Option<f64>, Option<f64>, Option<String>);

    /// A second reader of the grammar for the generated strings below: the pairs into a map
    /// (refusing a repeated key), then each value against the few shapes the generator writes.
    fn oracle(text: &str) -> Option<Parsed> {
        let mut map = std::collections::BTreeMap::new();
        for part in text.split(',') {
            let (k, v) = part.split_once('=')?;
            if map
                .insert(k.trim().to_string(), v.trim().to_string())
                .is_some()
            {
                return None;
            }
        }
        let secs = |v: &String| -> Option<f64> {
            // The generator only writes `<digits>`, `<digits>s`, `<digits>m`, `<digits>h`, or
            // junk without digits.
            if let Ok(n) = v.parse::<u64>() {
                return Some(n as f64);
            }
            let (n, unit) = v.split_at(v.len().checked_sub(1)?);
            let n: u64 = n.parse().ok()?;
            let unit = match unit {
                "s" => 1.0,
                "m" => 60.0,
                "h" => 3600.0,
                _ => return None,
            };
            Some(n as f64 * unit)
        };
        let mut out = (0.0, None, None, None);
        for (k, v) in &map {
            match k.as_str() {
                "cost" => out.0 = secs(v).filter(|&x| x > 0.0)?,
                "restart" => out.1 = Some(secs(v)?),
                "mtbf" => out.2 = Some(secs(v).filter(|&x| x > 0.0)?),
                "name" => {
                    let ok = !v.is_empty()
                        && v.len() <= MAX_NAME
                        && v.bytes()
                            .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c));
                    if !ok {
                        return None;
                    }
                    out.3 = Some(v.clone());
                }
                _ => return None,
            }
        }
        map.contains_key("cost").then_some(out)
    }

    fn part() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            Just("cost"),
            Just("restart"),
            Just("mtbf"),
            Just("name"),
            Just("costs"),
            Just(""),
        ];
        let value = prop_oneof![
            (0u64..100_000, prop_oneof![Just("s"), Just("m"), Just("h")])
                .prop_map(|(n, u)| format!("{n}{u}")),
            (0u64..1000).prop_map(|n| n.to_string()),
            "[A-Z_.-]{0,6}",
            "[a-zA-Z=,]{0,4}",
        ];
        (key, value).prop_map(|(k, v)| format!("{k}={v}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Any string: no panic, and an error names what is accepted.
        #[test]
        fn never_panics(text in "\\PC{0,40}") {
            if let Err(e) = level_spec(&text) {
                prop_assert!(e.contains("accepted:"));
            }
        }

        /// Strings built from the grammar's pieces (and near misses): accepted exactly when the
        /// second reader accepts them, with the same values.
        #[test]
        fn accepts_exactly_the_grammar(parts in prop::collection::vec(part(), 1..5)) {
            let text = parts.join(",");
            match (level_spec(&text), oracle(&text)) {
                (Ok(s), Some((cost, restart, mtbf, name))) => {
                    prop_assert_eq!(s.cost, cost);
                    prop_assert_eq!(s.restart, restart);
                    prop_assert_eq!(s.mtbf, mtbf);
                    prop_assert_eq!(s.name, name);
                }
                (Err(_), None) => {}
                (got, want) => prop_assert!(false, "{text}: parser {got:?}, oracle {want:?}"),
            }
        }
    }
}

//! Value parsers shared by the commands' clap definitions: each turns a typed string into a
//! value or says, in words clap prints after the argument's name, what is accepted.

use ckpt::model::replicated::Detect;
use ckpt::units;
use ckpt::units::Nanos;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// A positive duration in seconds.
pub fn duration(s: &str) -> Result<f64, String> {
    units::parse_positive_duration(s).map_err(|e| e.to_string())
}

/// A duration of zero or more, in seconds.
pub fn duration0(s: &str) -> Result<f64, String> {
    units::parse_nonnegative_duration(s).map_err(|e| e.to_string())
}

/// A positive duration in exact nanoseconds, as the simulators take it (see [`units::duration`]):
/// at least 1 ns once rounded, below 584 years.
pub fn nanos(s: &str) -> Result<Nanos, String> {
    exact(s, true).map(|d| d.ns)
}

/// A duration of zero or more in exact nanoseconds, below 584 years.
pub fn nanos0(s: &str) -> Result<Nanos, String> {
    exact(s, false).map(|d| d.ns)
}

/// A duration read for both of its readers: the exact nanoseconds a simulator runs, and the
/// nearest double in seconds that the models (and the warnings that speak for them) read from
/// the same text. The two differ when the text is finer than a nanosecond.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactDuration {
    /// Nanoseconds, rounded once.
    pub ns: Nanos,
    /// Seconds, the nearest double.
    pub seconds: f64,
}

/// [`nanos0`], with the seconds kept beside the nanoseconds.
pub fn exact0(s: &str) -> Result<ExactDuration, String> {
    exact(s, false)
}

fn exact(s: &str, positive: bool) -> Result<ExactDuration, String> {
    let d = units::duration(s).map_err(|e| e.to_string())?;
    let what = if positive {
        "a positive duration"
    } else {
        "a duration of zero or more"
    };
    if d.seconds() < 0.0 {
        return Err(format!("must be {what}"));
    }
    if positive && d.nanos() == Some(0) {
        return Err(format!("must be {what} (of at least 1ns)"));
    }
    // A plain number the exact reader refuses says why (too many digits, an exponent out of its
    // range); a humantime form can only be too long.
    let ns = d
        .nanos()
        .ok_or_else(|| match units::parse_seconds_exact(s) {
            Err(why) if s.trim().parse::<f64>().is_ok() => why,
            _ => format!("must be {what} below 584 years"),
        })?;
    Ok(ExactDuration {
        ns,
        seconds: d.seconds(),
    })
}

/// `simulate periodic --schedule`: the work between checkpoints after each restart.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule(pub Vec<Nanos>);

/// The most chunks `--schedule` takes: the model's schedules stop at 1000.
const MAX_SCHEDULE_CHUNKS: usize = 10_000;

/// `--schedule D,D,...`: comma-separated positive durations, each read as [`nanos`] reads one;
/// an error names the chunk at fault.
pub fn schedule(s: &str) -> Result<Schedule, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() > MAX_SCHEDULE_CHUNKS {
        return Err(format!(
            "at most {MAX_SCHEDULE_CHUNKS} chunks ({} given)",
            parts.len()
        ));
    }
    let chunks = parts
        .iter()
        .enumerate()
        .map(|(i, p)| nanos(p).map_err(|accepted| format!("chunk {} (`{p}`) {accepted}", i + 1)));
    Ok(Schedule(chunks.collect::<Result<_, _>>()?))
}

/// A whole number of at least 1.
pub fn count(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(v) => Ok(v),
        Err(_) if all_digits(s) => Err(too_large(s, u64::MAX)),
        Err(_) => Err(format!("`{s}` is not a whole number of at least 1")),
    }
}

/// Digits only, around white space: a whole number, if perhaps too large for its type.
fn all_digits(s: &str) -> bool {
    let t = s.trim();
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// The refusal of a whole number past its type's `max`.
fn too_large(s: &str, max: impl std::fmt::Display) -> String {
    format!("`{s}` is too large: at most {max}")
}

/// `--detect`: when a lost process is noticed, as the library's [`Detect`].
pub fn detect() -> impl TypedValueParser<Value = Detect> {
    PossibleValuesParser::new([
        PossibleValue::new("end").help(
            "At the next checkpoint, the end of the attempt (the seed paper's assumption)",
        ),
        PossibleValue::new("immediate").help(
            "When the last replica of a process dies (plus --heartbeat); the attempt is retried after --restart",
        ),
    ])
    .map(|s| match s.as_str() {
        "immediate" => Detect::Immediate,
        _ => Detect::End,
    })
}

/// `--level`: one checkpoint level, a whole number from 1 to 20 (the stencil's range).
pub fn level(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(v) if (1..=20).contains(&v) => Ok(v),
        _ if s.contains("..") => Err(format!(
            "`{s}` is a range; give one checkpoint level, a whole number from 1 to 20 (one run per level)"
        )),
        _ => Err(format!(
            "`{s}` is not a checkpoint level: a whole number from 1 to 20"
        )),
    }
}

/// `--threads`: 0 (all cores) up to the library's bound.
pub fn threads(s: &str) -> Result<usize, String> {
    let max = ckpt::sim::engine::MAX_THREADS;
    match s.trim().parse::<usize>() {
        Ok(v) if v <= max => Ok(v),
        _ => Err(format!(
            "`{s}` is not a thread count: a whole number from 0 (all cores) to {max}"
        )),
    }
}

/// The whole-number types of the command line, with their largest value.
pub trait Whole: TryFrom<u64> {
    /// The largest value, as `u64`.
    const MAX: u64;
}

impl Whole for u32 {
    const MAX: u64 = u32::MAX as u64;
}

impl Whole for u64 {
    const MAX: u64 = u64::MAX;
}

impl Whole for usize {
    const MAX: u64 = usize::MAX as u64;
}

/// A whole number that fits `T`; the command checks afterwards the range that its meaning
/// needs, with a message of its own (`--partners` within `--nodes`, `--procs` for a scheme).
pub fn whole<T: Whole>(s: &str) -> Result<T, String> {
    match s.trim().parse::<u64>() {
        Ok(v) => T::try_from(v).map_err(|_| too_large(s, T::MAX)),
        // All digits, yet no u64: beyond its range.
        Err(_) if all_digits(s) => Err(too_large(s, T::MAX)),
        Err(_) => Err(format!("`{s}` is not a whole number")),
    }
}

/// A whole number from `min` to `max` (both within `T`), which the message calls `what`:
/// `` `0` is not a run count: a whole number from 1 to 10000000 ``.
pub fn bounded<T: Whole>(
    what: &'static str,
    min: u64,
    max: u64,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync {
    move |s| {
        s.trim()
            .parse::<u64>()
            .ok()
            .filter(|v| (min..=max).contains(v))
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| format!("`{s}` is not {what}: a whole number from {min} to {max}"))
    }
}

/// `--runs`: a whole number of runs from `min` to `max`. The top bounds memory, since every
/// run's figures are kept until the reduction, in run order.
pub fn runs(min: u64, max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync {
    bounded("a run count", min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_that_fit_their_type() {
        assert_eq!(whole::<u32>(" 7 "), Ok(7));
        assert_eq!(whole::<u64>("0"), Ok(0));
        assert_eq!(whole::<u32>("4294967295"), Ok(u32::MAX));
        for big in ["4294967296", "99999999999999999999999"] {
            assert_eq!(
                whole::<u32>(big),
                Err(format!("`{big}` is too large: at most 4294967295")),
            );
        }
        for bad in ["-1", "1.5", "x", "", "1e3", "+"] {
            assert_eq!(
                whole::<u32>(bad),
                Err(format!("`{bad}` is not a whole number"))
            );
        }
    }

    #[test]
    fn bounded_counts_name_what_they_count() {
        let replicas = bounded::<u32>("a replica count", 1, 64);
        assert_eq!(replicas(" 64 "), Ok(64));
        for bad in ["0", "65", "-1", "2.0", ""] {
            assert_eq!(
                replicas(bad),
                Err(format!(
                    "`{bad}` is not a replica count: a whole number from 1 to 64"
                ))
            );
        }
        // A bound wider than the type still refuses what the type cannot hold.
        let wide = bounded::<u32>("a count", 0, u64::MAX);
        assert_eq!(wide("4294967295"), Ok(u32::MAX));
        assert!(wide("4294967296").is_err());
    }

    #[test]
    fn run_counts_within_their_bounds() {
        let r = runs(2, 10);
        assert_eq!(r("2"), Ok(2));
        assert_eq!(r(" 10 "), Ok(10));
        for bad in ["1", "11", "-1", "x", ""] {
            assert!(
                r(bad).unwrap_err().contains("a whole number from 2 to 10"),
                "{bad}"
            );
        }
    }

    #[test]
    fn nanosecond_durations() {
        assert_eq!(nanos("1h"), Ok(3_600_000_000_000));
        assert_eq!(nanos("2.5e-9"), Ok(3));
        assert_eq!(nanos0("0"), Ok(0));
        let fine = exact0("299.99999999999").unwrap();
        assert_eq!((fine.ns, fine.seconds), (300_000_000_000, 299.99999999999));
        for (text, why) in [
            ("0", "must be a positive duration (of at least 1ns)"),
            ("1e-10", "must be a positive duration (of at least 1ns)"),
            ("1000y", "must be a positive duration below 584 years"),
            ("5x", "`5x` is not a duration"),
        ] {
            assert!(nanos(text).unwrap_err().contains(why), "{text}");
        }
        assert_eq!(
            nanos0("-1"),
            Err("must be a duration of zero or more".into())
        );
    }

    #[test]
    fn schedules_name_the_chunk_at_fault() {
        assert_eq!(
            schedule("600, 20m").unwrap().0,
            [600_000_000_000, 1_200_000_000_000]
        );
        let e = schedule("600,,0").unwrap_err();
        assert!(e.starts_with("chunk 2 (``) "), "{e}");
        let e = schedule("600,0").unwrap_err();
        assert_eq!(
            e,
            "chunk 2 (`0`) must be a positive duration (of at least 1ns)"
        );
        let long = vec!["1"; MAX_SCHEDULE_CHUNKS + 1].join(",");
        assert_eq!(
            schedule(&long).unwrap_err(),
            "at most 10000 chunks (10001 given)"
        );
        assert_eq!(schedule(&long[2..]).unwrap().0.len(), MAX_SCHEDULE_CHUNKS);
    }
}

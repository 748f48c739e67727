//! Value parsers shared by the commands' clap definitions: each turns a typed string into a
//! number or says, in words clap prints after the argument's name, what is accepted.

use ckpt::model::replicated::Detect;
use ckpt::units;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// A positive duration in seconds.
pub fn duration(s: &str) -> Result<f64, String> {
    units::parse_positive_duration(s).map_err(|e| e.to_string())
}

/// A duration of zero or more, in seconds.
pub fn duration0(s: &str) -> Result<f64, String> {
    units::parse_nonnegative_duration(s).map_err(|e| e.to_string())
}

/// A whole number of at least 1.
pub fn count(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("`{s}` is not a whole number of at least 1")),
    }
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

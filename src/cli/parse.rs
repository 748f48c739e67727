//! Value parsers shared by the commands' clap definitions: each turns a typed string into a
//! number or says, in words clap prints after the argument's name, what is accepted.

use ckpt::units;

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

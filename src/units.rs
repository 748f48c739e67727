//! Durations and sizes in and out: every number a user types passes through here once.
//!
//! Durations take humantime forms (`90s`, `5m`, `1.5h`, `7d`, `5y`) or plain seconds. humantime
//! reads `M` as a month, which is never what a user of this tool means, so a capital `M` is
//! rejected instead of silently becoming 30 days.
//!
//! The simulators and the finite-job model count time in whole nanoseconds ([`Nanos`]); their
//! exact decimal reader and the conversions live here too.

mod nanos;

pub use nanos::{
    MAX_DIGITS, MAX_EXPONENT, NS_PER_S, Nanos, chunk_ns, ns_to_secs, parse_seconds_exact,
    secs_to_ns,
};
use thiserror::Error;

/// A value typed by a user that could not be read.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum UnitError {
    #[error(
        "`{value}` is not a duration: use seconds (`300`) or humantime forms (`90s`, `5m`, `1.5h`, `7d`, `5y`)"
    )]
    /// Not a duration.
    Duration {
        /// The value given.
        value: String,
    },
    #[error(
        "`{value}` is ambiguous: humantime reads `M` as a month; write `30d` for days or `m`/`min` for minutes"
    )]
    /// `M`, which humantime reads as a month.
    AmbiguousMonth {
        /// The value given.
        value: String,
    },
    #[error("`{value}` must be {what}")]
    /// A value outside the accepted range.
    Range {
        /// The value given.
        value: String,
        /// What the value must be.
        what: &'static str,
    },
    #[error(
        "`{value}` is not a size: use bytes (`4096`) or a unit (`512kB`, `64MiB`, `1GiB`, `2TB`)"
    )]
    /// Not a size.
    Size {
        /// The value given.
        value: String,
    },
    #[error(
        "`{value}` is not a bandwidth: use bytes per second (`1e9`) or a unit (`10GB/s`, `800MiB/s`, `100Gbit/s`)"
    )]
    /// Not a bandwidth.
    Bandwidth {
        /// The value given.
        value: String,
    },
}

use crate::text::shown;

/// Parses a duration in seconds from a plain number or a humantime string.
///
/// ```
/// assert_eq!(ckpt::units::parse_duration("5m").unwrap(), 300.0);
/// assert_eq!(ckpt::units::parse_duration("1.5h").unwrap(), 5400.0);
/// assert_eq!(ckpt::units::parse_duration("42.5").unwrap(), 42.5);
/// assert!(ckpt::units::parse_duration("1M").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<f64, UnitError> {
    let s = text.trim();
    let err = || UnitError::Duration { value: shown(text) };
    if s.is_empty() {
        return Err(err());
    }
    if let Ok(v) = s.parse::<f64>() {
        return if v.is_finite() { Ok(v) } else { Err(err()) };
    }
    if s.contains('M') && !s.contains("Mi") {
        return Err(UnitError::AmbiguousMonth { value: shown(text) });
    }
    // humantime has no fractional numbers; "1.5h" is common enough to support: split each
    // number-unit pair and sum.
    let mut total = 0.0;
    let mut any = false;
    for (number, unit) in humantime_pairs(s) {
        let number: f64 = number.parse().map_err(|_| err())?;
        let nanos = unit_nanos(unit).ok_or_else(err)?;
        // Dividing by the units per second keeps `1.3ms` at the double nearest 0.0013.
        total += if nanos < NANOS_PER_S {
            number / (NANOS_PER_S / nanos) as f64
        } else {
            number * (nanos / NANOS_PER_S) as f64
        };
        any = true;
    }
    if !any || !total.is_finite() {
        return Err(err());
    }
    Ok(total)
}

/// The number-unit pairs of a trimmed humantime form (`1h 30m`, `1.5h`), white space between
/// pairs skipped: each number a run of digits and dots, each unit a run of ASCII letters, either
/// possibly empty (for the caller to refuse). A pair with neither ends the pairs.
fn humantime_pairs(s: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = s;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(n);
        // Not only ASCII: the micro sign of `µs` is a letter of its unit.
        let u = tail
            .find(|c: char| !c.is_alphabetic())
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(u);
        rest = if number.is_empty() && unit.is_empty() {
            ""
        } else {
            tail
        };
        Some((number, unit))
    })
}

/// A duration as a user typed it, read once: the nearest double in seconds (what the models
/// take) and, when it is zero or more and below 2^64 ns (584 years), the exact number of
/// nanoseconds rounded once, ties up (what the simulators take). Every duration flag goes
/// through [`duration`], so `57m` is the same instant for `interval` and `simulate`.
///
/// ```
/// let d = ckpt::units::duration("1.5h").unwrap();
/// assert_eq!((d.seconds(), d.nanos()), (5400.0, Some(5_400_000_000_000)));
/// // 0.1 s has no exact double, but an exact number of nanoseconds.
/// assert_eq!(ckpt::units::duration("100ms").unwrap().nanos(), Some(100_000_000));
/// assert_eq!(ckpt::units::duration("2.5e-9").unwrap().nanos(), Some(3));
/// assert_eq!(ckpt::units::duration("1000y").unwrap().nanos(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Duration {
    seconds: f64,
    nanos: Option<u64>,
}

impl Duration {
    /// Seconds, the nearest double.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Nanoseconds, exact (rounded once), or `None` when negative or beyond `u64`.
    pub fn nanos(&self) -> Option<u64> {
        self.nanos
    }
}

/// Reads a duration: plain seconds or humantime forms, as [`parse_duration`] accepts them.
pub fn duration(text: &str) -> Result<Duration, UnitError> {
    let seconds = parse_duration(text)?;
    Ok(Duration {
        seconds,
        nanos: exact_nanos(text.trim()),
    })
}

const NANOS_PER_S: u128 = 1_000_000_000;

/// Nanoseconds in one unit of a humantime form: the same spellings humantime accepts, less the
/// month (a year is 365.25 days, as humantime has it).
fn unit_nanos(unit: &str) -> Option<u128> {
    Some(match unit {
        "ns" | "nsec" => 1,
        // The micro sign (U+00B5) and the Greek mu (U+03BC), which keyboards give alike.
        "us" | "usec" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000_000_000,
        "m" | "min" | "mins" | "minute" | "minutes" => 60_000_000_000,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000_000_000,
        "d" | "day" | "days" => 86_400_000_000_000,
        "w" | "week" | "weeks" => 604_800_000_000_000,
        "y" | "year" | "years" => 31_557_600_000_000_000,
        _ => return None,
    })
}

/// The exact value of an already valid duration text in nanoseconds, rounded once (ties up):
/// a plain number through the simulators' exact decimal reader, a humantime form as the exact
/// sum of its number-unit pairs over a common power of ten. `None` when negative or too large.
fn exact_nanos(s: &str) -> Option<u64> {
    if s.parse::<f64>().is_ok() {
        return parse_seconds_exact(s).ok();
    }
    // Each pair is digits[.digits] and a unit (what `parse_duration` accepted).
    let mut terms: Vec<(u128, u32, u128)> = Vec::new();
    for (number, unit) in humantime_pairs(s) {
        let (int, frac) = number.split_once('.').unwrap_or((number, ""));
        let unit = unit_nanos(unit)?;
        let frac = frac.trim_end_matches('0');
        let digits = format!("{int}{frac}");
        let m: u128 = if digits.trim_start_matches('0').is_empty() {
            0
        } else {
            digits.trim_start_matches('0').parse().ok()?
        };
        terms.push((m, u32::try_from(frac.len()).ok()?, unit));
    }
    let k = terms.iter().map(|t| t.1).max()?;
    let scale = 10u128.checked_pow(k)?;
    let mut numerator: u128 = 0;
    for (m, places, unit) in terms {
        let term = m
            .checked_mul(unit)?
            .checked_mul(10u128.checked_pow(k - places)?)?;
        numerator = numerator.checked_add(term)?;
    }
    let ns = numerator.checked_add(scale / 2)? / scale;
    u64::try_from(ns).ok()
}

/// The longest duration a user may give (500 years, in seconds): beyond any machine's MTBF or
/// job, and below the 584 years of the simulators' nanosecond clock, so that every figure
/// computed from an accepted duration can be simulated and printed.
pub const MAX_DURATION_S: f64 = 500.0 * YEAR_S;

/// A figure of seconds for a message, in scientific notation to four digits: `2.500e10 s`, or `more than
/// 1.8e308 s` for one that overflowed f64 (a size over a bandwidth of 1e-300 B/s), so that no
/// message reads `inf`.
///
/// ```
/// use ckpt::units::seconds_in_message;
/// assert_eq!(seconds_in_message(2.5e10), "2.500e10 s");
/// assert_eq!(seconds_in_message(f64::INFINITY), "more than 1.8e308 s");
/// ```
pub fn seconds_in_message(seconds: f64) -> String {
    if seconds.is_finite() {
        format!("{seconds:.3e} s")
    } else {
        "more than 1.8e308 s".into()
    }
}

/// One year, in seconds: 365.25 days, as `y` is read.
pub const YEAR_S: f64 = 365.25 * 86400.0;

/// What every duration a user gives must be, in the words of its refusal.
pub const TOO_LONG: &str = "at most 500 years (15778800000 s): longer is beyond the simulators' nanosecond clock (584 years) and any real MTBF or job";

/// Parses a duration that must be strictly positive, at most [`MAX_DURATION_S`].
///
/// ```
/// assert!(ckpt::units::parse_positive_duration("500y").is_ok());
/// assert!(ckpt::units::parse_positive_duration("1e308").is_err());
/// ```
pub fn parse_positive_duration(text: &str) -> Result<f64, UnitError> {
    bounded_duration(text, |v| v > 0.0, "a positive duration")
}

/// Parses a duration that may be zero but not negative, at most [`MAX_DURATION_S`].
pub fn parse_nonnegative_duration(text: &str) -> Result<f64, UnitError> {
    bounded_duration(text, |v| v >= 0.0, "a duration of zero or more")
}

/// A duration at most [`MAX_DURATION_S`] that `admits` takes, `what` naming those it takes.
fn bounded_duration(
    text: &str,
    admits: fn(f64) -> bool,
    what: &'static str,
) -> Result<f64, UnitError> {
    let v = parse_duration(text)?;
    if v > MAX_DURATION_S {
        return Err(UnitError::Range {
            value: shown(text),
            what: TOO_LONG,
        });
    }
    if admits(v) {
        Ok(v)
    } else {
        Err(UnitError::Range {
            value: shown(text),
            what,
        })
    }
}

fn split_number(s: &str) -> (&str, &str) {
    let idx = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || ((c == 'e' || c == 'E') && i > 0)
                || ((c == '+' || c == '-') && i > 0 && matches!(&s[i - 1..i], "e" | "E")))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    (&s[..idx], s[idx..].trim())
}

fn byte_unit(unit: &str) -> Option<f64> {
    Some(match unit {
        "" | "B" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        "PB" => 1e15,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0f64.powi(4),
        "PiB" => 1024.0f64.powi(5),
        _ => return None,
    })
}

/// Parses a size in bytes (`4096`, `64MiB`, `1GiB`, `2TB`); must be positive.
///
/// ```
/// assert_eq!(ckpt::units::parse_bytes("1GiB").unwrap(), 1073741824.0);
/// assert_eq!(ckpt::units::parse_bytes("2kB").unwrap(), 2000.0);
/// ```
pub fn parse_bytes(text: &str) -> Result<f64, UnitError> {
    positive_amount(
        text,
        || UnitError::Size { value: shown(text) },
        byte_unit,
        "a positive size",
    )
}

/// Parses a size as [`parse_bytes`] does, rounded to whole bytes; `None` unless it rounds to
/// at least one byte and below 2^64 (about 18.4 EB), so that a count of bytes is always a
/// positive `u64` (a fraction of a byte, rounded to 0, is no size).
///
/// ```
/// assert_eq!(ckpt::units::parse_whole_bytes("1.6MB"), Some(1_600_000));
/// assert_eq!(ckpt::units::parse_whole_bytes("1e30"), None);
/// assert_eq!(ckpt::units::parse_whole_bytes("0.4"), None);
/// ```
pub fn parse_whole_bytes(text: &str) -> Option<u64> {
    // 2^64 is exact in f64; anything that rounds below it converts exactly.
    let b = parse_bytes(text).ok()?.round();
    (1.0..18_446_744_073_709_551_616.0)
        .contains(&b)
        .then_some(b as u64)
}

/// Parses a bandwidth in bytes per second (`10GB/s`, `800MiB/s`, `100Gbit/s`, `1e9`).
///
/// A lone lowercase `b` is refused: `Gb/s` is read as gigabits by some and gigabytes by others.
///
/// ```
/// assert_eq!(ckpt::units::parse_bandwidth("10GB/s").unwrap(), 1e10);
/// assert_eq!(ckpt::units::parse_bandwidth("8Gbit/s").unwrap(), 1e9);
/// ```
pub fn parse_bandwidth(text: &str) -> Result<f64, UnitError> {
    let bytes_per_second = |unit: &str| {
        let unit = unit
            .strip_suffix("/s")
            .or_else(|| unit.strip_suffix("ps"))
            .unwrap_or(unit);
        match unit.strip_suffix("bit") {
            Some(prefix) => {
                let p = match prefix {
                    "" => 1.0,
                    "k" | "K" => 1e3,
                    "M" => 1e6,
                    "G" => 1e9,
                    "T" => 1e12,
                    _ => return None,
                };
                Some(p / 8.0)
            }
            None => byte_unit(unit),
        }
    };
    positive_amount(
        text,
        || UnitError::Bandwidth { value: shown(text) },
        bytes_per_second,
        "a positive bandwidth",
    )
}

/// A positive, finite number times the scale of the unit that follows it; `err` when the
/// number or the unit does not read or the product is not finite, and a refusal saying it must
/// be `positive` (`a positive size`) when it reads as zero or less.
fn positive_amount(
    text: &str,
    err: impl Fn() -> UnitError,
    scale: impl FnOnce(&str) -> Option<f64>,
    positive: &'static str,
) -> Result<f64, UnitError> {
    let (num, unit) = split_number(text.trim());
    let n: f64 = num.parse().map_err(|_| err())?;
    let v = n * scale(unit).ok_or_else(&err)?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else if v <= 0.0 {
        Err(UnitError::Range {
            value: shown(text),
            what: positive,
        })
    } else {
        Err(err())
    }
}

/// A duration as a batch script takes it: whole seconds, to the nearest, at least 1 (an
/// interval of 0 would mean "never" to most checkpointing libraries); saturates at `u64::MAX`.
///
/// ```
/// assert_eq!(ckpt::units::whole_seconds(9786.33), 9786);
/// assert_eq!(ckpt::units::whole_seconds(0.2), 1);
/// assert_eq!(ckpt::units::whole_seconds(2.5), 3);
/// ```
pub fn whole_seconds(seconds: f64) -> u64 {
    (seconds.round() as u64).max(1)
}

/// Formats seconds for a person: `1h 56m 41s`, `9m 10s`, `12.3s`, `850ms`, `0.250ms` from a
/// microsecond, `300ns` below it and `4.000e-10s` below half a nanosecond; from a day on,
/// days, hours and minutes (`4d 13h 34m`: rounded to the second, then the seconds dropped);
/// from one year (365.25 days, the year durations are read with) on, in years, days and
/// whole hours: `5y 0d 0h`, not `1826d 6h 0m`. A value that rounds up to the next form takes
/// it (`59.96` is `1m 0s`). From 1e15 s (some 32 million years, far past any duration a flag takes)
/// on, in scientific notation, `2.785e47s`, where whole hours would no longer be counted
/// exactly. Every form from half a nanosecond to 1e15 s reads back as a duration.
///
/// ```
/// assert_eq!(ckpt::units::format_duration(7001.0), "1h 56m 41s");
/// assert_eq!(ckpt::units::format_duration(0.25), "250ms");
/// assert_eq!(ckpt::units::format_duration(3e-7), "300ns");
/// assert_eq!(ckpt::units::format_duration(1.414e-100), "1.414e-100s");
/// assert_eq!(ckpt::units::format_duration(5.0 * 365.25 * 86400.0), "5y 0d 0h");
/// assert_eq!(ckpt::units::format_duration(2.785e47), "2.785e47s");
/// assert_eq!(ckpt::units::format_duration(59.96), "1m 0s");
/// assert_eq!(ckpt::units::format_duration(0.9996), "1.0s");
/// assert_eq!(ckpt::units::format_duration(365.25 * 86400.0 - 0.1), "1y 0d 0h");
/// ```
pub fn format_duration(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "-".to_string();
    }
    if seconds < 0.0 {
        return format!("-{}", format_duration(-seconds));
    }
    if seconds == 0.0 {
        return "0s".to_string();
    }
    // Each form is taken when the value, rounded as that form shows it, still belongs to it:
    // 59.96 s is `1m 0s`, not `60.0s`, and a year less a tenth of a second is `1y 0d 0h`.
    // Below a microsecond, nanoseconds; below half of one, scientific notation: the forms
    // above would print 0.000ms for every model answer at such scales.
    let nanos = (seconds * 1e9).round();
    if nanos < 1.0 {
        return format!("{seconds:.3e}s");
    }
    if nanos < 1e3 {
        return format!("{nanos}ns");
    }
    if (seconds * 1e6).round() < 1e3 {
        return format!("{:.3}ms", seconds * 1e3);
    }
    if (seconds * 1e3).round() < 1e3 {
        return format!("{:.0}ms", seconds * 1e3);
    }
    if (seconds * 10.0).round() < 600.0 {
        return format!("{:.1}s", seconds);
    }
    if seconds >= 1e15 {
        return format!("{seconds:.3e}s");
    }
    if seconds.round() >= YEAR_S {
        // Whole hours: a year is 8766 of them.
        let hours = (seconds / 3600.0).round() as u64;
        let year_h = (YEAR_S / 3600.0) as u64;
        let (y, rem) = (hours / year_h, hours % year_h);
        return format!("{y}y {}d {}h", rem / 24, rem % 24);
    }
    let total = seconds.round() as u64;
    let (d, rem) = (total / 86400, total % 86400);
    let (h, rem) = (rem / 3600, rem % 3600);
    let (m, s) = (rem / 60, rem % 60);
    let mut parts = Vec::new();
    if d > 0 {
        parts.push(format!("{d}d"));
    }
    if h > 0 || d > 0 {
        parts.push(format!("{h}h"));
    }
    parts.push(format!("{m}m"));
    if d == 0 {
        parts.push(format!("{s}s"));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        for (text, secs) in [
            ("24h", 86400.0),
            ("1h 30m", 5400.0),
            ("1h30m", 5400.0),
            ("5y", 5.0 * 365.25 * 86400.0),
            ("1e3", 1000.0),
            ("1.3ms", 0.0013),
        ] {
            assert_eq!(parse_duration(text), Ok(secs), "{text}");
        }
        assert!(matches!(
            parse_duration("1M"),
            Err(UnitError::AmbiguousMonth { .. })
        ));
        for bad in ["", "abc", "5x", "h", "NaN", "inf", "-", "1..2h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert!(parse_positive_duration("0").is_err());
        assert!(parse_positive_duration("-5").is_err());
        assert!(parse_nonnegative_duration("0").is_ok());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_bytes("64MiB").unwrap(), 67108864.0);
        assert!(parse_bytes("1Gb").is_err());
        assert!(parse_bytes("0").is_err());
        assert_eq!(parse_bandwidth("800MiB/s").unwrap(), 800.0 * 1048576.0);
        assert!(parse_bandwidth("10Gb/s").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(format_duration(60.0), "1m 0s");
        assert_eq!(format_duration(90061.0), "1d 1h 1m");
        assert_eq!(format_duration(12.25), "12.2s");
        // Before: `--node-mtbf 5y` echoed as `1826d 6h 0m`.
        assert_eq!(format_duration(5.0 * 365.25 * 86400.0), "5y 0d 0h");
        assert_eq!(format_duration(364.0 * 86400.0), "364d 0h 0m");
        // 1.5 years = 547 days 21 hours.
        assert_eq!(format_duration(1.5 * 365.25 * 86400.0), "1y 182d 15h");
        assert_eq!(format_duration(500.0 * 365.25 * 86400.0), "500y 0d 0h");
        for s in [1.5 * 365.25 * 86400.0, 3.0e9, 7.3e8] {
            let back = parse_duration(&format_duration(s)).unwrap();
            assert!((back - s).abs() <= 1800.0, "{s} -> {back}");
        }
    }

    #[test]
    fn no_positive_duration_is_shown_as_zero() {
        // Before, everything below half a microsecond printed as `0.000ms`.
        assert_eq!(format_duration(4.4e-7), "440ns");
        assert_eq!(format_duration(9.994e-7), "999ns");
        assert_eq!(format_duration(9.996e-7), "0.001ms");
        assert_eq!(format_duration(5e-10), "1ns");
        assert_eq!(format_duration(4.9e-10), "4.900e-10s");
        assert_eq!(format_duration(-3e-8), "-30ns");
        // The nanosecond forms read back to the nanosecond they show.
        for n in [1u64, 7, 440, 999] {
            let s = n as f64 * 1e-9;
            assert_eq!(duration(&format_duration(s)).unwrap().nanos(), Some(n));
        }
    }

    #[test]
    fn microseconds_take_every_spelling_of_the_micro_sign() {
        for text in [
            "1500us",
            "1500usec",
            "1500\u{b5}s",
            "1500\u{3bc}s",
            "1ms 500\u{b5}s",
        ] {
            assert_eq!(duration(text).unwrap().nanos(), Some(1_500_000), "{text}");
            assert_eq!(parse_duration(text), Ok(0.0015), "{text}");
        }
        // A letter that is no unit still refuses the whole text.
        assert!(parse_duration("5\u{e9}s").is_err());
    }

    #[test]
    fn durations_are_exact_in_nanoseconds_whatever_the_spelling() {
        // Independent spellings of the same instant: decimal seconds, nanoseconds, and a
        // humantime sum of whole units.
        for n in [
            0u64,
            1,
            999,
            1_000_000_007,
            3_600_000_000_000,
            86_399_999_999_999,
        ] {
            let decimal = format!("{}.{:09}", n / 1_000_000_000, n % 1_000_000_000);
            assert_eq!(duration(&decimal).unwrap().nanos(), Some(n), "{decimal}");
            assert_eq!(duration(&format!("{n}ns")).unwrap().nanos(), Some(n));
            let (h, rest) = (n / 3_600_000_000_000, n % 3_600_000_000_000);
            let (s, ns) = (rest / 1_000_000_000, rest % 1_000_000_000);
            let human = format!("{h}h {s}s {ns}ns");
            assert_eq!(duration(&human).unwrap().nanos(), Some(n), "{human}");
        }
        // Rounded once, ties up, after the units are summed exactly.
        assert_eq!(duration("0.5ns 0.5ns").unwrap().nanos(), Some(1));
        assert_eq!(
            duration("1.0000000005s").unwrap().nanos(),
            Some(1_000_000_001)
        );
        assert_eq!(duration("-1").unwrap().nanos(), None);
        assert_eq!(duration("585y").unwrap().nanos(), None);
    }
}

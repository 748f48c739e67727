//! The simulators' time base: whole nanoseconds, with the one exact reader of decimal seconds
//! (traces, stencil durations) and the conversions to and from seconds.

/// Simulated time in nanoseconds.
pub type Nanos = u64;

/// Nanoseconds per second.
pub const NS_PER_S: f64 = 1e9;

/// Rounds seconds to the nearest nanosecond, ties up; saturates instead of wrapping.
///
/// ```
/// assert_eq!(ckpt::units::secs_to_ns(0.0013), 1_300_000);
/// assert_eq!(ckpt::units::secs_to_ns(2.5e-9), 3);
/// ```
pub fn secs_to_ns(seconds: f64) -> Nanos {
    if seconds.is_nan() || seconds <= 0.0 {
        return 0;
    }
    let v = (seconds * NS_PER_S + 0.5).floor();
    if v >= u64::MAX as f64 {
        u64::MAX
    } else {
        v as u64
    }
}

/// The largest exponent, either way, that [`parse_seconds_exact`] accepts.
pub const MAX_EXPONENT: i64 = 60;

/// The most significant digits [`parse_seconds_exact`] accepts.
pub const MAX_DIGITS: usize = 36;

/// Reads a decimal number of seconds exactly and rounds it once to the nearest nanosecond,
/// ties up. Every trace time and every stencil duration goes through here.
///
/// The rules:
/// - white space around the number is ignored;
/// - an optional `+` sign; any `-` is refused as negative, `-0` included, since a negative
///   sign on a time is a mistake even when the digits are zero;
/// - digits with at most one `.`, at least one digit in all (`12`, `0.5`, `.5`, `5.`);
/// - an optional exponent `e` or `E`, signed or not, from -60 to 60 whatever the digits
///   (`0e400` is refused too): beyond it no time fits or every time rounds to zero;
/// - at most 36 significant digits, leading zeros and trailing zeros of the fraction not
///   counted, so the value is held exactly in a `u128`;
/// - the rounded value must fit a [`Nanos`]: 0 to 18446744073.709551615 s (584 years).
///
/// The error says what is wrong and what is accepted; the caller adds where.
///
/// ```
/// use ckpt::units::parse_seconds_exact;
/// assert_eq!(parse_seconds_exact("0.0013").unwrap(), 1_300_000);
/// assert_eq!(parse_seconds_exact("2.5e-9").unwrap(), 3);
/// assert!(parse_seconds_exact("-1").is_err());
/// assert!(parse_seconds_exact("-0").is_err());
/// assert!(parse_seconds_exact("ten").is_err());
/// ```
pub fn parse_seconds_exact(text: &str) -> Result<Nanos, String> {
    let accepted = "a time in seconds, zero or more (such as 12, 0.5 or 1.5e3)";
    let bad = || format!("is not a number: use {accepted}");
    let s = text.trim();
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(p) => {
            let e: i64 = s[p + 1..].parse().map_err(|_| bad())?;
            (&s[..p], e)
        }
        None => (s, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return Err(bad());
    }
    if !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac_part.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    if negative {
        return Err(format!("is negative: use {accepted}"));
    }
    if !(-MAX_EXPONENT..=MAX_EXPONENT).contains(&exponent) {
        return Err(format!(
            "has an exponent outside -{MAX_EXPONENT} to {MAX_EXPONENT}: use {accepted}"
        ));
    }
    let frac_part = frac_part.trim_end_matches('0');
    let digits: String = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(0);
    }
    let too_large = || "is too large: use at most 18446744073 seconds (584 years)".to_string();
    if digits.len() > MAX_DIGITS {
        return Err(
            if (int_part.trim_start_matches('0').len() as i64 + exponent) > 12 {
                too_large()
            } else {
                format!("has too many digits: use at most {MAX_DIGITS} significant digits")
            },
        );
    }
    let m: u128 = digits.parse().map_err(|_| bad())?;
    // The value in ns is m * 10^power; |power| <= 60 + 36 + 9, so only its sign needs care.
    let power = exponent - frac_part.len() as i64 + 9;
    let ns: u128 = if power >= 0 {
        if power > 30 {
            return Err(too_large());
        }
        m.checked_mul(10u128.pow(power as u32))
            .ok_or_else(too_large)?
    } else if power < -38 {
        // m < 10^36, so the value is under 0.001 ns.
        0
    } else {
        let d = 10u128.pow((-power) as u32);
        let (q, r) = (m / d, m % d);
        if r >= d - r { q + 1 } else { q }
    };
    u64::try_from(ns).map_err(|_| too_large())
}

/// A chunk of work or an interval on the simulators' grid: [`secs_to_ns`], at least 1 ns (a
/// chunk of 0 would make no progress). Every interval a model hands a simulator goes through
/// here, so a prediction and its simulation name the same nanoseconds.
///
/// ```
/// assert_eq!(ckpt::units::chunk_ns(9786.3281888), 9_786_328_188_800);
/// assert_eq!(ckpt::units::chunk_ns(1e-12), 1);
/// ```
pub fn chunk_ns(seconds: f64) -> Nanos {
    secs_to_ns(seconds).max(1)
}

/// Nanoseconds back to seconds, for reports.
pub fn ns_to_secs(ns: Nanos) -> f64 {
    ns as f64 / NS_PER_S
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        // Exact decimal reading: seconds and a nine-digit fraction give their nanoseconds, and
        // a tenth digit rounds half up.
        #[test]
        fn decimal_seconds_are_exact(secs in 0u64..10_000_000, frac in 0u64..1_000_000_000, tenth in 0u64..10) {
            prop_assert_eq!(parse_seconds_exact(&format!("{secs}.{frac:09}")), Ok(secs * 1_000_000_000 + frac));
            let up = if tenth >= 5 { 1 } else { 0 };
            prop_assert_eq!(parse_seconds_exact(&format!("{secs}.{frac:09}{tenth}")), Ok(secs * 1_000_000_000 + frac + up));
            prop_assert_eq!(parse_seconds_exact(&format!("{secs}{frac:09}e-9")), Ok(secs * 1_000_000_000 + frac));
        }
    }

    #[test]
    fn exact_decimals() {
        for (text, ns) in [
            ("7.1", 7_100_000_000),
            ("0.5e-9", 1),
            ("0.49e-9", 0),
            ("1.5e3", 1_500_000_000_000),
            ("1.3e-3", 1_300_000),
            ("1800", 1_800_000_000_000),
            (".25", 250_000_000),
            (".5", 500_000_000),
            ("3.", 3_000_000_000),
            ("5.", 5_000_000_000),
            ("0", 0),
            (" +0 ", 0),
            (
                "1.0000000000000000000000000000000000000000000",
                1_000_000_000,
            ),
            ("0.0000000015", 2),
            // Rounded once on the whole tail: rounding digit by digit would carry this to 2.
            ("0.0000000014999", 1),
        ] {
            assert_eq!(parse_seconds_exact(text), Ok(ns), "{text}");
        }
        for bad in [
            "",
            ".",
            "abc",
            "e3",
            "1e",
            "nan",
            "inf",
            "1,5",
            "0x10",
            "1.2.3",
            "--1",
            "1e400",
            "1e99999999999999999999",
            "99999999999999999999",
        ] {
            assert!(parse_seconds_exact(bad).is_err(), "{bad}");
        }
        assert!(
            parse_seconds_exact("-0.1")
                .unwrap_err()
                .contains("negative")
        );
        assert!(
            parse_seconds_exact("1e12")
                .unwrap_err()
                .contains("too large")
        );
        assert_eq!(
            parse_seconds_exact("18446744073.709551615").unwrap(),
            u64::MAX
        );
        assert!(parse_seconds_exact("18446744073.709551616").is_err());
    }

    // The two readers this one replaces disagreed here; the stricter rule won.
    #[test]
    fn minus_zero_and_far_exponents_are_refused() {
        for minus in ["-0", "-0.0", "-.0", "-0e5"] {
            assert!(
                parse_seconds_exact(minus).unwrap_err().contains("negative"),
                "{minus}"
            );
        }
        for far in ["1e-61", "1e61", "0e400", "0.5e-100", "0e99999999999"] {
            assert!(
                parse_seconds_exact(far).unwrap_err().contains("exponent"),
                "{far}"
            );
        }
        assert_eq!(parse_seconds_exact("1e-60"), Ok(0));
        assert_eq!(parse_seconds_exact("0e60"), Ok(0));
        assert_eq!(parse_seconds_exact("1e+1"), Ok(10_000_000_000));
    }

    #[test]
    fn rounding_is_nearest_ties_up() {
        assert_eq!(secs_to_ns(7.1), 7_100_000_000);
        assert_eq!(secs_to_ns(0.5e-9), 1);
        assert_eq!(secs_to_ns(-1.0), 0);
        assert_eq!(secs_to_ns(f64::NAN), 0);
        assert_eq!(secs_to_ns(1e300), u64::MAX);
    }
}

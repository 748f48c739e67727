//! Failure traces: `time_seconds` or `time_seconds,index` lines, shared by the simulators that
//! replay recorded failures instead of drawing them (SIMULATION.md 1 and 3.4).
//!
//! Blank lines and `#` comments are allowed (a `#` after data starts a comment too), as is a
//! header line whose first field is literally `time_seconds`. Times are read exactly as decimals
//! and rounded once to the nearest nanosecond, ties up. Rows are sorted stably by time, so rows
//! at equal times keep the order of the file. Every error names the file, the line and the field.

use super::engine::Nanos;
use std::path::Path;
use thiserror::Error;

/// One failure of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceRow {
    /// When it happens, from the start of the run.
    pub time: Nanos,
    /// Which node or worker fails, when the trace says.
    pub index: Option<usize>,
    /// The line of the file it came from (1-based), for messages.
    pub line: usize,
}

/// A parsed trace: rows sorted stably by time.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Trace {
    /// The failures, earliest first.
    pub rows: Vec<TraceRow>,
}

/// What the second column of a trace may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexColumn {
    /// Only `time_seconds`: failures of the whole job.
    Forbidden,
    /// `time_seconds` or `time_seconds,index` with the index in `0..count`.
    Optional {
        /// Name of the field in messages (`node`, `worker`).
        name: &'static str,
        /// Indices run from 0 to `count - 1`.
        count: usize,
    },
    /// Every row must name an index in `0..count`.
    Required {
        /// Name of the field in messages (`node`, `worker`).
        name: &'static str,
        /// Indices run from 0 to `count - 1`.
        count: usize,
    },
}

/// A trace that cannot be read.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum TraceError {
    /// The file itself could not be read.
    #[error("cannot read trace file {file}: {message}")]
    Io {
        /// The file as given.
        file: String,
        /// What the system said.
        message: String,
    },
    /// One field of one line is wrong.
    #[error("{file}, line {line}, field {field}: `{value}` {problem}")]
    Field {
        /// The file as given.
        file: String,
        /// 1-based line number.
        line: usize,
        /// The field's name (`time_seconds`, `node`, ...).
        field: String,
        /// The text found there.
        value: String,
        /// What is wrong and what is accepted.
        problem: String,
    },
}

/// Reads and parses the trace at `path`.
pub fn read_trace(path: &Path, column: IndexColumn) -> Result<Trace, TraceError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| TraceError::Io {
        file: file.clone(),
        message: e.to_string(),
    })?;
    parse_trace(&text, &file, column)
}

/// Parses trace text; `file` names it in messages.
///
/// ```
/// use ckpt::sim::trace::{parse_trace, IndexColumn};
/// let t = parse_trace("# failures\n20.5,1\n\n3,0\n", "t.csv",
///     IndexColumn::Required { name: "worker", count: 2 }).unwrap();
/// assert_eq!(t.rows[0].time, 3_000_000_000);
/// assert_eq!(t.rows[1].index, Some(1));
/// let e = parse_trace("-1\n", "t.csv", IndexColumn::Forbidden).unwrap_err();
/// assert!(e.to_string().starts_with("t.csv, line 1, field time_seconds"));
/// ```
pub fn parse_trace(text: &str, file: &str, column: IndexColumn) -> Result<Trace, TraceError> {
    let mut rows = Vec::new();
    let mut seen_data = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let fields: Vec<&str> = content.split(',').map(str::trim).collect();
        if !seen_data && fields[0].eq_ignore_ascii_case("time_seconds") {
            seen_data = true;
            continue;
        }
        seen_data = true;
        let err = |field: &str, value: &str, problem: String| TraceError::Field {
            file: file.to_string(),
            line,
            field: field.to_string(),
            value: value.to_string(),
            problem,
        };
        let time = parse_seconds_exact(fields[0]).map_err(|p| err("time_seconds", fields[0], p))?;
        let index = match (column, fields.get(1)) {
            (_, None) => {
                if let IndexColumn::Required { name, .. } = column {
                    return Err(err(
                        name,
                        "",
                        format!("is missing: every line needs `time_seconds,{name}`"),
                    ));
                }
                None
            }
            (IndexColumn::Forbidden, Some(v)) => {
                return Err(err(
                    "2",
                    v,
                    "is not expected: this trace takes `time_seconds` lines only (a node column needs --nodes)".into(),
                ));
            }
            (
                IndexColumn::Optional { name, count } | IndexColumn::Required { name, count },
                Some(v),
            ) => {
                let idx: usize = v.parse().map_err(|_| {
                    err(
                        name,
                        v,
                        format!(
                            "is not an index: use a whole number from 0 to {}",
                            count.saturating_sub(1)
                        ),
                    )
                })?;
                if idx >= count {
                    return Err(err(
                        name,
                        v,
                        format!("is out of range: use 0 to {}", count.saturating_sub(1)),
                    ));
                }
                Some(idx)
            }
        };
        if let Some(extra) = fields.get(2) {
            return Err(err(
                "3",
                extra,
                "is not expected: at most two fields per line".into(),
            ));
        }
        rows.push(TraceRow { time, index, line });
    }
    // Stable: equal times keep file order.
    rows.sort_by_key(|r| r.time);
    Ok(Trace { rows })
}

/// Reads a non-negative decimal number of seconds (`12`, `0.0013`, `1.5e3`) exactly and rounds it
/// once to the nearest nanosecond, ties up. The error says what is wrong and what is accepted.
///
/// ```
/// use ckpt::sim::trace::parse_seconds_exact;
/// assert_eq!(parse_seconds_exact("0.0013").unwrap(), 1_300_000);
/// assert_eq!(parse_seconds_exact("2.5e-9").unwrap(), 3);
/// assert!(parse_seconds_exact("-1").is_err());
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
    let frac_part = frac_part.trim_end_matches('0');
    let digits: String = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Ok(0);
    }
    if negative {
        return Err(format!("is negative: use {accepted}"));
    }
    let too_large = || "is too large: use at most 18446744073 seconds (584 years)".to_string();
    if digits.len() > 36 {
        return Err(
            if (int_part.trim_start_matches('0').len() as i64 + exponent) > 12 {
                too_large()
            } else {
                format!("has too many digits: use {accepted}")
            },
        );
    }
    let m: u128 = digits.parse().map_err(|_| bad())?;
    // value in ns = m * 10^(exponent - frac_len + 9)
    let power = exponent
        .saturating_sub(frac_part.len() as i64)
        .saturating_add(9);
    let ns: u128 = if power >= 0 {
        if power > 30 {
            return Err(too_large());
        }
        m.checked_mul(10u128.pow(power as u32))
            .ok_or_else(too_large)?
    } else if power < -38 {
        0
    } else {
        let d = 10u128.pow((-power) as u32);
        let (q, r) = (m / d, m % d);
        if r >= d - r { q + 1 } else { q }
    };
    u64::try_from(ns).map_err(|_| too_large())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_decimals() {
        assert_eq!(parse_seconds_exact("7.1").unwrap(), 7_100_000_000);
        assert_eq!(parse_seconds_exact("0.5e-9").unwrap(), 1);
        assert_eq!(parse_seconds_exact("0.49e-9").unwrap(), 0);
        assert_eq!(parse_seconds_exact("1.5e3").unwrap(), 1_500_000_000_000);
        assert_eq!(parse_seconds_exact(".25").unwrap(), 250_000_000);
        assert_eq!(parse_seconds_exact("3.").unwrap(), 3_000_000_000);
        assert_eq!(parse_seconds_exact("-0").unwrap(), 0);
        assert_eq!(
            parse_seconds_exact("1.0000000000000000000000000000000000000000000").unwrap(),
            1_000_000_000
        );
        for bad in [
            "",
            ".",
            "e3",
            "1e",
            "nan",
            "inf",
            "1,5",
            "0x10",
            "1.2.3",
            "--1",
            "1e99999999999999999999",
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

    #[test]
    fn sorted_stably_with_comments_and_header() {
        let text = "time_seconds,node\n# a comment\n5,2\n\n1,1 # inline\n5,0\n";
        let t = parse_trace(
            text,
            "f",
            IndexColumn::Optional {
                name: "node",
                count: 3,
            },
        )
        .unwrap();
        let v: Vec<_> = t
            .rows
            .iter()
            .map(|r| (r.time / 1_000_000_000, r.index, r.line))
            .collect();
        assert_eq!(v, vec![(1, Some(1), 5), (5, Some(2), 3), (5, Some(0), 6)]);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let col = IndexColumn::Required {
            name: "worker",
            count: 4,
        };
        let e = parse_trace("1,0\n2,4\n", "w.csv", col)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("w.csv, line 2, field worker: `4` is out of range"),
            "{e}"
        );
        let e = parse_trace("1,0\nx,1\n", "w.csv", col)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("w.csv, line 2, field time_seconds: `x` is not a number"),
            "{e}"
        );
        let e = parse_trace("1\n", "w.csv", col).unwrap_err().to_string();
        assert!(e.contains("line 1, field worker"), "{e}");
        let e = parse_trace("1,2\n", "j.csv", IndexColumn::Forbidden)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1, field 2"), "{e}");
        let e = parse_trace("1,-2\n", "j.csv", col).unwrap_err().to_string();
        assert!(e.contains("field worker: `-2` is not an index"), "{e}");
        let e = parse_trace("1,1,1\n", "j.csv", col)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field 3"), "{e}");
    }
}

//! Failure traces: `time_seconds` or `time_seconds,index` lines, shared by the simulators that
//! replay recorded failures instead of drawing them (docs/simulation.md §1 and §3.4).
//!
//! Blank lines and `#` comments are allowed (a `#` after data starts a comment too), as is a
//! header line whose first field is literally `time_seconds`. Times are read exactly by
//! [`parse_seconds_exact`], rounded once to the nearest nanosecond, ties up. Rows are sorted
//! stably by time, so rows at equal times keep the order of the file. Every error names the
//! file, the line and the field.
//!
//! The text comes from the caller: this module reads no file. It stays a hand parser rather than
//! the `csv` crate because a `#` after data on the same line starts a comment (`5,0 # again`),
//! which the crate's comment option (whole lines only) cannot express, and a trace has no
//! quoting to gain from it.

use crate::units::{Nanos, parse_seconds_exact};
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

/// Parses trace text; `file` names it in messages (the caller has read it).
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
    for (i, raw) in crate::text::lines(text).enumerate() {
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
            value: crate::text::shown(value),
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

#[cfg(test)]
mod tests {
    use super::*;

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

    // The stencil's reader refused `-0` and the periodic one took it as 0: now refused.
    #[test]
    fn a_negative_zero_time_is_refused() {
        let e = parse_trace("1\n-0\n", "t.csv", IndexColumn::Forbidden)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("t.csv, line 2, field time_seconds: `-0` is negative"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let col = IndexColumn::Required {
            name: "worker",
            count: 4,
        };
        for (text, file, col, start) in [
            (
                "1,0\n2,4\n",
                "w.csv",
                col,
                "w.csv, line 2, field worker: `4` is out of range",
            ),
            (
                "1,0\nx,1\n",
                "w.csv",
                col,
                "w.csv, line 2, field time_seconds: `x` is not a number",
            ),
            ("1\n", "w.csv", col, "w.csv, line 1, field worker"),
            (
                "1,2\n",
                "j.csv",
                IndexColumn::Forbidden,
                "j.csv, line 1, field 2",
            ),
            (
                "1,-2\n",
                "j.csv",
                col,
                "j.csv, line 1, field worker: `-2` is not an index",
            ),
            ("1,1,1\n", "j.csv", col, "j.csv, line 1, field 3"),
        ] {
            let e = parse_trace(text, file, col).unwrap_err().to_string();
            assert!(e.starts_with(start), "{e}");
        }
    }
}

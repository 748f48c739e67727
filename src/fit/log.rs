//! Failure logs: CSV lines `time[,node[,kind]]` into events, and events into observations
//! (failure gaps and right-censored gaps).

use super::FitError;
use super::mle::Sample;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// The one shared copy of `value` among `names`.
fn shared(names: &mut HashSet<Arc<str>>, value: &str) -> Arc<str> {
    match names.get(value) {
        Some(name) => Arc::clone(name),
        None => {
            let name: Arc<str> = Arc::from(value);
            names.insert(Arc::clone(&name));
            name
        }
    }
}

/// One line of a failure log.
///
/// Node names and kinds are shared between the events that name them (a log names a few
/// thousand nodes and a handful of kinds over millions of lines).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Seconds: as written, or since 1970-01-01T00:00:00Z for RFC 3339 times.
    pub time: f64,
    /// The node it happened on, if the log says.
    pub node: Option<Arc<str>>,
    /// Its kind (`failure`, `end-of-allocation`, ...), if the log says.
    pub kind: Option<Arc<str>>,
    /// Line number in the file (1-based), for messages.
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Time,
    Node,
    Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeFormat {
    Seconds,
    Rfc3339,
}

const TIME_ACCEPTED: &str = "is not a time: use seconds from 0 to 1e15 (e.g. 3600 or 1.5e4) \
or RFC 3339 (e.g. 2024-05-01T12:00:00Z or 2024-05-01T14:00:00+02:00)";

fn header_column(name: &str) -> Option<Column> {
    match name.trim().to_ascii_lowercase().as_str() {
        "time" | "time_seconds" | "time_s" | "timestamp" | "t" => Some(Column::Time),
        "node" | "host" | "hostname" | "node_id" => Some(Column::Node),
        "kind" | "type" | "event" | "category" => Some(Column::Kind),
        _ => None,
    }
}

/// Parses a failure log, given as text.
///
/// Blank lines and lines starting with `#` (after white space) are skipped. Fields are CSV, read
/// by the csv crate: a field may be quoted (`"rack 1, node 3"`, the quote first in the field),
/// and white space around a field is ignored. An optional header names the columns (`time`, `node`, `kind`, in any order); without
/// one they are `time[,node[,kind]]`. Times are seconds or RFC 3339, one form per file. Events
/// come back in file order.
///
/// ```
/// use ckpt::fit::parse_log;
/// let events = parse_log("time,node,kind\n0,n1,failure\n3600,n2,\n", "log.csv").unwrap();
/// assert_eq!(events.len(), 2);
/// assert_eq!(events[1].node.as_deref(), Some("n2"));
/// assert_eq!(events[1].kind, None);
/// assert!(parse_log("0\nsoon\n", "log.csv").unwrap_err().to_string().contains("log.csv:2"));
/// ```
pub fn parse_log(text: &str, file: &str) -> Result<Vec<Event>, FitError> {
    let mut columns = vec![Column::Time, Column::Node, Column::Kind];
    let mut seen_data_line = false;
    let mut format: Option<TimeFormat> = None;
    let mut events = Vec::new();
    let mut names = HashSet::new();
    let err = |line: usize, field: &'static str, value: &str, accepted: &str| FitError::Parse {
        file: file.to_string(),
        line,
        field,
        value: crate::text::shown(value),
        accepted: accepted.to_string(),
    };
    // A byte-order mark would otherwise hide a header's `time` (`text::lines` drops it).
    // Comment lines become empty lines before the csv crate sees them: its own comment option
    // only knows a `#` in the first column, and an indented comment is a comment here too. The
    // line count stays, so every record's line in the file can be found again.
    let lines: Vec<&str> = crate::text::lines(text)
        .map(|l| {
            let t = l.trim();
            if t.is_empty() || t.starts_with('#') {
                ""
            } else {
                l
            }
        })
        .collect();
    // The final newline makes a quote left open on the last line swallow it, so that the
    // check below sees it as it sees one open on any other line.
    let cleaned = lines.join("\n") + "\n";
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(cleaned.as_bytes());
    // The crate's position is where it started reading, before the empty lines it skips.
    let line_of = |pos: Option<&csv::Position>| {
        let mut line = pos.map_or(1, |p| p.line() as usize).max(1);
        while lines.get(line - 1).is_some_and(|l| l.is_empty()) {
            line += 1;
        }
        line
    };
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = line_of(e.position());
            let value = lines.get(line - 1).copied().unwrap_or("");
            err(line, "line", value.trim(), &format!("is not CSV: {e}"))
        })?;
        let line = line_of(record.position());
        let trimmed = lines.get(line - 1).copied().unwrap_or("").trim();
        // One event per line: a quote left open would make the csv crate read the lines below
        // into one field, and they would vanish from the log without a word.
        if record.iter().any(|f| f.contains('\n')) {
            return Err(err(
                line,
                "line",
                trimmed,
                "opens a quote (`\"`) that does not close on this line: one event per line",
            ));
        }
        let fields: Vec<&str> = record.iter().map(str::trim).collect();
        if !seen_data_line {
            seen_data_line = true;
            if header_column(fields[0]) == Some(Column::Time)
                || fields.iter().all(|f| header_column(f).is_some())
            {
                let mut named = Vec::new();
                for f in &fields {
                    let c = header_column(f).ok_or_else(|| {
                        err(
                            line,
                            "header",
                            f,
                            "is not a column name: use time, node and kind",
                        )
                    })?;
                    if named.contains(&c) {
                        return Err(err(line, "header", f, "names a column twice"));
                    }
                    named.push(c);
                }
                if !named.contains(&Column::Time) {
                    return Err(err(line, "header", trimmed, "has no `time` column"));
                }
                columns = named;
                continue;
            }
        }
        if fields.len() > columns.len() {
            return Err(err(
                line,
                "line",
                trimmed,
                &format!(
                    "has {} fields: expected at most {} ({})",
                    fields.len(),
                    columns.len(),
                    columns
                        .iter()
                        .map(|c| match c {
                            Column::Time => "time",
                            Column::Node => "node",
                            Column::Kind => "kind",
                        })
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            ));
        }
        let mut time = None;
        let mut node = None;
        let mut kind = None;
        for (c, value) in columns.iter().zip(fields.iter()) {
            match c {
                Column::Time => {
                    let (t, f) =
                        parse_time(value).ok_or_else(|| err(line, "time", value, TIME_ACCEPTED))?;
                    match format {
                        None => format = Some(f),
                        Some(prev) if prev != f => {
                            return Err(err(
                                line,
                                "time",
                                value,
                                match prev {
                                    TimeFormat::Seconds => {
                                        "is RFC 3339 but the lines above give seconds: use one form per file"
                                    }
                                    TimeFormat::Rfc3339 => {
                                        "is in seconds but the lines above give RFC 3339: use one form per file"
                                    }
                                },
                            ));
                        }
                        Some(_) => {}
                    }
                    time = Some(t);
                }
                Column::Node => node = (!value.is_empty()).then(|| shared(&mut names, value)),
                Column::Kind => kind = (!value.is_empty()).then(|| shared(&mut names, value)),
            }
        }
        let time =
            time.ok_or_else(|| err(line, "time", "", "is missing: every line needs a time"))?;
        events.push(Event {
            time,
            node,
            kind,
            line,
        });
    }
    Ok(events)
}

fn parse_time(value: &str) -> Option<(f64, TimeFormat)> {
    if value.is_empty() {
        return None;
    }
    if let Ok(t) = value.parse::<f64>() {
        // 1e15 s is 30 million years: beyond it a sum of gaps could lose its precision.
        return (t.is_finite() && (0.0..=1e15).contains(&t)).then_some((t, TimeFormat::Seconds));
    }
    parse_rfc3339(value).map(|t| (t, TimeFormat::Rfc3339))
}

/// Seconds since 1970-01-01T00:00:00Z of `YYYY-MM-DD[T| ]HH:MM:SS[.frac][Z|±HH:MM]`; a time
/// without an offset is read as UTC.
///
/// The form is checked here, strictly (`T` may be `t`, `Z` may be `z`; the offset needs its
/// colon; any number of fraction digits; second 60 is a leap second); the calendar (month
/// lengths, leap years, days since 1970) is jiff's. `None` for anything else.
///
/// ```
/// use ckpt::fit::parse_rfc3339;
/// assert_eq!(parse_rfc3339("1970-01-02T00:00:00Z"), Some(86400.0));
/// assert_eq!(parse_rfc3339("2024-05-01T14:00:00+02:00"), parse_rfc3339("2024-05-01T12:00:00Z"));
/// assert_eq!(parse_rfc3339("2023-02-29T00:00:00Z"), None);
/// ```
pub fn parse_rfc3339(s: &str) -> Option<f64> {
    use jiff::civil::{Date, Time, date};
    let b = s.as_bytes();
    if b.len() < 19 || !s.is_ascii() {
        return None;
    }
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = &s[from..from + len];
        if part.bytes().all(|c| c.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    if b[4] != b'-' || b[7] != b'-' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let day = Date::new(
        i16::try_from(num(0, 4)?).ok()?,
        i8::try_from(num(5, 2)?).ok()?,
        i8::try_from(num(8, 2)?).ok()?,
    )
    .ok()?;
    let second = num(17, 2)?;
    // jiff's clock stops at :59: a leap second :60 counts as the second after :59, the same
    // instant as the next minute's :00, since the gaps of a log are in POSIX seconds.
    let leap = i64::from(second == 60);
    let time = Time::new(
        i8::try_from(num(11, 2)?).ok()?,
        i8::try_from(num(14, 2)?).ok()?,
        i8::try_from(second - leap).ok()?,
        0,
    )
    .ok()?;
    let mut rest = &s[19..];
    let mut frac = 0.0;
    if let Some(r) = rest.strip_prefix('.') {
        let digits = r.bytes().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        frac = format!("0.{}", &r[..digits]).parse().ok()?;
        rest = &r[digits..];
    }
    let offset = match rest {
        "" | "Z" | "z" => 0,
        _ => {
            let rb = rest.as_bytes();
            if rb.len() != 6 || rb[3] != b':' {
                return None;
            }
            let sign = match rb[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let h: i64 = rest[1..3].parse().ok()?;
            let m: i64 = rest[4..6].parse().ok()?;
            if !rest[1..3].bytes().all(|c| c.is_ascii_digit())
                || !rest[4..6].bytes().all(|c| c.is_ascii_digit())
                || h > 23
                || m > 59
            {
                return None;
            }
            sign * (h * 3600 + m * 60)
        }
    };
    // Days between civil dates, not a jiff Timestamp: a Timestamp stops short of 9999-12-31,
    // which this reader has always accepted.
    let days = i64::from(
        day.since((jiff::Unit::Day, date(1970, 1, 1)))
            .ok()?
            .get_days(),
    );
    let clock = i64::from(time.hour()) * 3600
        + i64::from(time.minute()) * 60
        + i64::from(time.second())
        + leap;
    let secs = days * 86400 + clock - offset;
    Some(secs as f64 + frac)
}

/// How many events of one kind the log has, and what they were taken for.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KindCount {
    /// The kind as written (`(none)` for lines without one).
    pub kind: String,
    /// Number of events.
    pub events: u64,
    /// `failure` or `exposure`.
    pub role: &'static str,
}

/// What the windows of a log give: the sample to fit and the bookkeeping around it.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// Failure gaps and censored gaps.
    pub sample: Sample,
    /// Events read.
    pub events: u64,
    /// Failure events (of kinds not excluded).
    pub failure_events: u64,
    /// Exposure events (of excluded kinds).
    pub exposure_events: u64,
    /// Failures that end no gap because they open the observation or a window (the time
    /// before them was not observed).
    pub failures_at_window_start: u64,
    /// Failures that end no gap because they come at the same time as the previous failure
    /// (of the same node with per-node windows): one interruption.
    pub failures_simultaneous: u64,
    /// Time of the first event (s).
    pub start: f64,
    /// Time of the last event (s): the end of the observation.
    pub end: f64,
    /// Events per kind.
    pub kinds: Vec<KindCount>,
    /// With per-node windows: how many nodes the sample covers and the log names.
    pub per_node: Option<NodeCount>,
}

/// The nodes of per-node windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeCount {
    /// The nodes the sample covers: `--nodes`, or else those the log names.
    pub covered: u64,
    /// The distinct nodes named in the log (at most `covered`).
    pub seen: u64,
}

/// Whether `e`'s kind is one of `excluded` (lower case), compared without case.
fn is_excluded(e: &Event, excluded: &[String]) -> bool {
    let kind = e.kind.as_deref().unwrap_or("");
    excluded.iter().any(|x| {
        x.len() == kind.len()
            && x.bytes()
                .zip(kind.bytes())
                .all(|(x, k)| k.to_ascii_lowercase() == x)
    })
}

fn kind_key(e: &Event) -> String {
    e.kind
        .as_deref()
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

fn kinds(events: &[Event], excluded: &[String]) -> Vec<KindCount> {
    let mut counts: BTreeMap<String, (String, u64)> = BTreeMap::new();
    // Each kind as written is lowered once, not once per event.
    let mut keys: HashMap<Option<&str>, String> = HashMap::new();
    for e in events {
        let key = keys.entry(e.kind.as_deref()).or_insert_with(|| kind_key(e));
        match counts.get_mut(key.as_str()) {
            Some(entry) => entry.1 += 1,
            None => {
                let written = e.kind.as_deref().unwrap_or("(none)").to_string();
                counts.insert(key.clone(), (written, 1));
            }
        }
    }
    counts
        .into_iter()
        .map(|(key, (kind, n))| KindCount {
            kind,
            events: n,
            role: if excluded.contains(&key) {
                "exposure"
            } else {
                "failure"
            },
        })
        .collect()
}

/// What both window rules count besides the sample itself.
#[derive(Default)]
struct Tally {
    failure_events: u64,
    exposure_events: u64,
    at_start: u64,
    simultaneous: u64,
}

/// The observation of `events` as one window rule cut it: `sample` and `n`, with the node
/// counts of per-node windows.
fn observation(
    sample: Sample,
    n: Tally,
    events: &[Event],
    excluded: &[String],
    per_node: Option<NodeCount>,
) -> Observation {
    Observation {
        sample,
        events: events.len() as u64,
        failure_events: n.failure_events,
        exposure_events: n.exposure_events,
        failures_at_window_start: n.at_start,
        failures_simultaneous: n.simultaneous,
        start: events.first().map_or(0.0, |e| e.time),
        end: events.last().map_or(0.0, |e| e.time),
        kinds: kinds(events, excluded),
        per_node,
    }
}

/// The windows of a whole system: one sequence of gaps between failures of any node.
///
/// `events` must be sorted by time (stably). The observation starts at the first event of any
/// kind and ends at the last. A failure ends the current gap (uncensored); an event of an
/// `excluded` kind (lower case) ends it too, as a right-censored gap, and a new window starts
/// there; the gap from the last failure to the end of the observation is right-censored.
pub fn system_windows(events: &[Event], excluded: &[String]) -> Observation {
    let start = events.first().map_or(0.0, |e| e.time);
    let end = events.last().map_or(0.0, |e| e.time);
    let mut failures = Vec::new();
    let mut censored = Vec::new();
    let mut tally = Tally::default();
    let mut last = start;
    let mut last_was_failure = false;
    for e in events {
        if is_excluded(e, excluded) {
            tally.exposure_events += 1;
            if e.time > last {
                censored.push(e.time - last);
            }
            last_was_failure = false;
        } else {
            tally.failure_events += 1;
            if e.time > last {
                failures.push(e.time - last);
            } else if last_was_failure {
                tally.simultaneous += 1;
            } else {
                tally.at_start += 1;
            }
            last_was_failure = true;
        }
        last = e.time;
    }
    if end > last {
        censored.push(end - last);
    }
    observation(
        Sample::new(failures, censored),
        tally,
        events,
        excluded,
        None,
    )
}

/// The windows of each node: gaps between that node's failures, pooled over the nodes.
///
/// `events` must be sorted by time (stably). Every node is observed from the first event of
/// the log to the last; an exposure event with a node ends that node's window, one without a
/// node ends every node's window. `nodes` (at least the number of distinct nodes named) adds
/// nodes that never appear, observed over the same span with no failure.
pub fn node_windows(
    events: &[Event],
    excluded: &[String],
    nodes: Option<u64>,
    file: &str,
) -> Result<Observation, FitError> {
    let start = events.first().map_or(0.0, |e| e.time);
    let end = events.last().map_or(0.0, |e| e.time);
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for e in events {
        if let Some(n) = e.node.as_deref() {
            let next = index.len();
            index.entry(n).or_insert(next);
        }
    }
    if index.is_empty() {
        return Err(FitError::NoNodes {
            file: file.to_string(),
        });
    }
    let seen = index.len() as u64;
    let total = nodes.unwrap_or(seen);
    if total < seen {
        return Err(FitError::TooFewNodes {
            given: total,
            seen,
            file: file.to_string(),
        });
    }
    // A node-less exposure event censors every node at one instant, so the nodes that no
    // event has named since the last such event (and the nodes that never appear) share one
    // clock and end one gap together: one counted gap for them all, not one gap per node,
    // which grew as nodes x exposure events (a 600 KB log took 3 GB).
    let mut shared_last = start;
    let mut last = vec![start; index.len()];
    let mut last_was_failure = vec![false; index.len()];
    // The nodes named since the last node-less exposure event; the others are on the shared
    // clock, and their `last` and `last_was_failure` wait to be reset when next named.
    let mut own_clock = vec![false; index.len()];
    let mut named = Vec::new();
    let mut failures = Vec::new();
    let mut censored: Vec<(f64, f64)> = Vec::new();
    let mut tally = Tally::default();
    for e in events {
        let exposure = is_excluded(e, excluded);
        match (e.node.as_deref(), exposure) {
            (Some(n), _) => {
                let i = index[n];
                if !own_clock[i] {
                    own_clock[i] = true;
                    named.push(i);
                    last[i] = shared_last;
                    last_was_failure[i] = false;
                }
                let gap = e.time - last[i];
                if exposure {
                    tally.exposure_events += 1;
                    if gap > 0.0 {
                        censored.push((gap, 1.0));
                    }
                } else {
                    tally.failure_events += 1;
                    if gap > 0.0 {
                        failures.push(gap);
                    } else if last_was_failure[i] {
                        tally.simultaneous += 1;
                    } else {
                        tally.at_start += 1;
                    }
                }
                last[i] = e.time;
                last_was_failure[i] = !exposure;
            }
            (None, true) => {
                tally.exposure_events += 1;
                for &i in &named {
                    if e.time > last[i] {
                        censored.push((e.time - last[i], 1.0));
                    }
                    own_clock[i] = false;
                }
                let sharing = total - named.len() as u64;
                if e.time > shared_last && sharing > 0 {
                    censored.push((e.time - shared_last, sharing as f64));
                }
                named.clear();
                shared_last = e.time;
            }
            (None, false) => {
                return Err(FitError::Parse {
                    file: file.to_string(),
                    line: e.line,
                    field: "node",
                    value: String::new(),
                    accepted: "is missing: with --per-node every failure needs a node \
                               (or exclude its kind with --exclude-kind)"
                        .into(),
                });
            }
        }
    }
    for &i in &named {
        if end > last[i] {
            censored.push((end - last[i], 1.0));
        }
    }
    let sharing = total - named.len() as u64;
    if end > shared_last && sharing > 0 {
        censored.push((end - shared_last, sharing as f64));
    }
    let sample = Sample::with_counts(failures, censored);
    Ok(observation(
        sample,
        tally,
        events,
        excluded,
        Some(NodeCount {
            covered: total,
            seen,
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(time: f64, node: Option<&str>, kind: Option<&str>) -> Event {
        Event {
            time,
            node: node.map(Arc::from),
            kind: kind.map(Arc::from),
            line: 0,
        }
    }

    #[test]
    fn rfc3339_agrees_with_known_epochs() {
        for (text, epoch) in [
            ("1970-01-01T00:00:00Z", Some(0.0)),
            ("2000-03-01T00:00:00Z", Some(951868800.0)),
            ("2024-05-01T12:00:00Z", Some(1714564800.0)),
            ("2024-05-01 12:00:00", Some(1714564800.0)),
            ("2024-05-01T12:00:00.25Z", Some(1714564800.25)),
            ("1969-12-31T23:59:59Z", Some(-1.0)),
            ("2024-02-29T00:00:00Z", Some(1709164800.0)),
            // The calendar's edges, as the hand-written calendar before jiff had them.
            // A leap second reads as the next minute's start, 2017-01-01T00:00:00Z.
            ("2016-12-31T23:59:60Z", Some(1483228800.0)),
            ("2000-02-29T00:00:00Z", Some(951782400.0)),
            ("1900-02-29T00:00:00Z", None),
            ("0000-01-01T00:00:00Z", Some(-62167219200.0)),
            ("9999-12-31T23:59:59z", Some(253402300799.0)),
            ("2024-05-01t12:00:00-00:30", Some(1714566600.0)),
            ("2024-05-01T12:00:61Z", None),
        ] {
            assert_eq!(parse_rfc3339(text), epoch, "{text}");
        }
        for bad in [
            "2024-05-01",
            "2024-13-01T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-05-01T24:00:00Z",
            "2024-05-01T12:00:00+2:00",
            "2024-05-01T12:00:00.Z",
            "2024-05-01X12:00:00Z",
            "2024-05-01T12:00:00+02:00junk",
            "2024-0a-01T12:00:00Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn header_and_positional_columns() {
        let e = parse_log("# c\n\nkind,time\nfailure,10\n,20\n", "f").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].time, e[0].kind.as_deref()), (10.0, Some("failure")));
        assert_eq!((e[1].line, e[1].kind.as_deref()), (5, None));
        let e = parse_log("5,n1,maintenance\n7\n", "f").unwrap();
        assert_eq!(e[0].node.as_deref(), Some("n1"));
        assert_eq!(e[1].node, None);
    }

    #[test]
    fn quoted_fields_comments_and_line_numbers() {
        let text =
            "\u{feff}time,node\r\n1,\"rack 1, n3\" \r\n   # indented comment\r\n\r\n2,n4\r\n";
        let e = parse_log(text, "f").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].line, e[0].node.as_deref()), (2, Some("rack 1, n3")));
        assert_eq!((e[1].line, e[1].node.as_deref()), (5, Some("n4")));
        let e = parse_log("1\n  # c\n2,a,b,c\n", "f")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f:3: field `line`"), "{e}");
    }

    /// An open quote once swallowed every line below it into one field, silently: the log
    /// `0 10 20 30,"x 40 50 1000` was fitted from its first four events. A comment line inside
    /// the quote did the same.
    #[test]
    fn an_open_quote_is_refused_at_its_line() {
        for (text, line) in [
            ("0\n10\n20\n30,\"x\n40\n50\n1000\n", 4),
            ("time,node\n0,a\n10,\"b\n# x\"\n20,c\n30,d\n", 3),
            // On the last line (a log cut short while written), with or without its newline.
            ("time,node\n0,a\n5,\"b\n", 3),
            ("0\n10\n20,\"b", 3),
        ] {
            let e = parse_log(text, "f").unwrap_err().to_string();
            assert!(e.starts_with(&format!("f:{line}: field `line`")), "{e}");
            assert!(e.contains("does not close on this line"), "{e}");
        }
    }

    #[test]
    fn malformed_lines_name_line_and_field() {
        let cases = [
            ("1\n2\n-3\n", "f:3: field `time`"),
            ("1\nnan\n", "f:2: field `time`"),
            ("1\n1e16\n", "f:2: field `time`"),
            ("1,a,b,c\n", "f:1: field `line`"),
            ("time,where\n1,a\n", "f:1: field `header`"),
            ("node\nn1\n", "f:1: field `header`"),
            ("1\n2024-05-01T12:00:00Z\n", "f:2: field `time`"),
            ("time,node\n,n1\n", "f:2: field `time`"),
        ];
        for (text, want) in cases {
            let e = parse_log(text, "f").unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn system_windows_censor_at_exposure_and_end() {
        let events = [
            ev(0.0, None, Some("start")),
            ev(10.0, None, None),
            ev(10.0, None, None),
            ev(25.0, None, Some("end-of-allocation")),
            ev(30.0, None, None),
            ev(40.0, None, Some("maintenance")),
        ];
        let excluded = vec![
            "start".into(),
            "end-of-allocation".into(),
            "maintenance".into(),
        ];
        let o = system_windows(&events, &excluded);
        assert_eq!(o.sample.failures(), &[10.0, 5.0]);
        assert_eq!(o.sample.censored(), &[(10.0, 1.0), (15.0, 1.0)]);
        assert_eq!(
            (o.failures_at_window_start, o.failures_simultaneous),
            (0, 1)
        );
        assert_eq!((o.failure_events, o.exposure_events), (3, 3));
        assert_eq!(o.sample.exposure(), 40.0);
        // Counted as failures, the exposure events shorten the gaps: SCR's mistake.
        let o = system_windows(&events, &[]);
        assert_eq!(o.sample.failures(), &[10.0, 15.0, 5.0, 10.0]);
        assert_eq!(
            (o.failures_at_window_start, o.failures_simultaneous),
            (1, 1)
        );
    }

    #[test]
    fn node_windows_start_every_node_at_the_first_event() {
        let events = [
            ev(0.0, Some("a"), Some("boot")),
            ev(5.0, Some("b"), None),
            ev(8.0, Some("a"), None),
            ev(9.0, None, Some("maintenance")),
            ev(12.0, Some("b"), None),
        ];
        let excluded = vec!["boot".into(), "maintenance".into()];
        let o = node_windows(&events, &excluded, Some(3), "f").unwrap();
        assert_eq!(o.sample.failures(), &[5.0, 8.0, 3.0]);
        // a: 8..9 censored, 9..12 censored; b: 5..9 censored; unseen c: 0..9, 9..12.
        assert_eq!(
            o.sample.censored(),
            &[(1.0, 1.0), (3.0, 2.0), (4.0, 1.0), (9.0, 1.0)]
        );
        assert_eq!(o.sample.exposure(), 36.0);
        assert_eq!(
            o.per_node,
            Some(NodeCount {
                covered: 3,
                seen: 2
            })
        );
        assert!(matches!(
            node_windows(&events, &excluded, Some(1), "f"),
            Err(FitError::TooFewNodes { .. })
        ));
        let bad = [ev(0.0, Some("a"), None), ev(1.0, None, None)];
        assert!(node_windows(&bad, &[], None, "f").is_err());
    }

    /// The per-node windows as the definition reads: every node its own clock, every
    /// node-less exposure event censoring each node's gap one by one.
    fn node_windows_one_by_one(events: &[Event], excluded: &[String], total: u64) -> Sample {
        let start = events.first().map_or(0.0, |e| e.time);
        let end = events.last().map_or(0.0, |e| e.time);
        let mut names: Vec<&str> = Vec::new();
        for e in events {
            if let Some(n) = e.node.as_deref()
                && !names.contains(&n)
            {
                names.push(n);
            }
        }
        let mut last = vec![start; total as usize];
        let (mut failures, mut censored) = (Vec::new(), Vec::new());
        for e in events {
            let exposure = excluded.contains(&kind_key(e));
            let nodes: Vec<usize> = match e.node.as_deref() {
                Some(n) => vec![names.iter().position(|m| *m == n).unwrap()],
                None => (0..last.len()).collect(),
            };
            for i in nodes {
                let gap = e.time - last[i];
                if gap > 0.0 {
                    if exposure {
                        censored.push(gap)
                    } else {
                        failures.push(gap)
                    }
                }
                last[i] = e.time;
            }
        }
        censored.extend(last.iter().filter(|&&l| end > l).map(|l| end - l));
        Sample::new(failures, censored)
    }

    proptest::proptest! {
        /// Nodes that share the clock of the last node-less exposure event end their gaps
        /// together as one counted gap, and that is the same sample as every node alone.
        #[test]
        fn node_windows_count_shared_gaps_as_each_node_alone(
            steps in proptest::collection::vec((0u32..4, 0usize..6, proptest::bool::ANY), 1..80),
            extra in 0u64..4,
        ) {
            let mut t = 0.0;
            let events: Vec<Event> = steps
                .iter()
                .enumerate()
                .map(|(k, &(dt, node, exposure))| {
                    t += f64::from(dt);
                    // Node 5 stands for an event without a node, always an exposure here.
                    let name = (node < 5).then(|| Arc::from(format!("n{node}")));
                    let kind = (exposure || name.is_none()).then(|| Arc::from("END"));
                    Event { time: t, node: name, kind, line: k + 1 }
                })
                .collect();
            let excluded = vec!["end".to_string()];
            let seen = {
                let mut n: Vec<&str> = events.iter().filter_map(|e| e.node.as_deref()).collect();
                n.sort_unstable();
                n.dedup();
                n.len() as u64
            };
            proptest::prop_assume!(seen > 0);
            let o = node_windows(&events, &excluded, Some(seen + extra), "f").unwrap();
            let reference = node_windows_one_by_one(&events, &excluded, seen + extra);
            proptest::prop_assert_eq!(o.sample.failures(), reference.failures());
            proptest::prop_assert_eq!(o.sample.censored(), reference.censored());
        }
    }
}

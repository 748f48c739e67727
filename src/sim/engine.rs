//! The discrete-event core: integer-nanosecond time, an event queue ordered by time, then by the
//! rule order a simulator gives, then by insertion, and the parallel driver that collects
//! per-run results in run order. Each run's random stream comes from [`crate::rng::run_rng`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type Nanos = u64;

/// Nanoseconds per second.
pub const NS_PER_S: f64 = 1e9;

/// Rounds seconds to the nearest nanosecond, ties up; saturates instead of wrapping.
///
/// ```
/// assert_eq!(ckpt::sim::engine::secs_to_ns(0.0013), 1_300_000);
/// assert_eq!(ckpt::sim::engine::secs_to_ns(2.5e-9), 3);
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
/// use ckpt::sim::engine::parse_seconds_exact;
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

/// Nanoseconds back to seconds, for reports.
pub fn ns_to_secs(ns: Nanos) -> f64 {
    ns as f64 / NS_PER_S
}

/// A segment of `work` then its checkpoint, interrupted `elapsed` after it began: the time
/// spent working and the time spent checkpointing, the checkpoint lost with the work.
pub(crate) fn interrupted_segment(elapsed: Nanos, work: Nanos) -> (Nanos, Nanos) {
    (elapsed.min(work), elapsed.saturating_sub(work))
}

/// An entry of the event queue; ordered by `(time, rule, key, seq)`, never by the payload.
#[derive(Debug, Clone)]
struct Entry<E> {
    time: Nanos,
    rule: u32,
    key: u64,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    fn order(&self) -> (Nanos, u32, u64, u64) {
        (self.time, self.rule, self.key, self.seq)
    }
}
impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.order() == other.order()
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.order().cmp(&other.order())
    }
}

/// A priority queue of events: earliest time first; at equal times the lower `rule` (the
/// simulator's tie-break class) first, then the lower `key` (a worker index, say), then the
/// earlier insertion. Never hash order, never floating-point accident.
///
/// ```
/// use ckpt::sim::engine::EventQueue;
/// let mut q = EventQueue::new();
/// q.push(10, 2, 0, "end of copy");
/// q.push(10, 1, 5, "end of processing, worker 5");
/// q.push(10, 1, 3, "end of processing, worker 3");
/// q.push(5, 9, 0, "earlier");
/// let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
/// assert_eq!(order, ["earlier", "end of processing, worker 3", "end of processing, worker 5", "end of copy"]);
/// ```
#[derive(Debug, Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// Bytes one pending event takes in the queue.
    pub const EVENT_BYTES: usize = std::mem::size_of::<Reverse<Entry<E>>>();

    /// An empty queue.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty queue with room for `capacity` events, allocated once: a queue filled up front
    /// (one event per node) then holds `capacity` times [`Self::EVENT_BYTES`], not up to twice
    /// that after the heap's doublings.
    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(capacity),
            seq: 0,
        }
    }

    /// Schedules `event` at `time` in tie-break class `rule` with secondary key `key`.
    pub fn push(&mut self, time: Nanos, rule: u32, key: u64, event: E) {
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Reverse(Entry {
            time,
            rule,
            key,
            seq,
            event,
        }));
    }

    /// Removes and returns the first event with its time.
    pub fn pop(&mut self) -> Option<(Nanos, E)> {
        self.heap.pop().map(|Reverse(e)| (e.time, e.event))
    }

    /// The time of the first event.
    pub fn peek_time(&self) -> Option<Nanos> {
        self.heap.peek().map(|Reverse(e)| e.time)
    }

    /// The `(time, rule)` of the first event.
    pub fn peek_class(&self) -> Option<(Nanos, u32)> {
        self.heap.peek().map(|Reverse(e)| (e.time, e.rule))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Drops every pending event.
    pub fn clear(&mut self) {
        self.heap.clear();
    }
}

/// Runs `runs` independent replications of `f(run_index)` on `threads` threads (0 = all cores)
/// and returns their results in run order, so any reduction over them is thread-count
/// independent. `tick` is called once per finished run (for a progress bar).
pub fn run_parallel<T, F>(runs: u64, threads: usize, tick: &(dyn Fn() + Sync), f: F) -> Vec<T>
where
    T: Send,
    F: Fn(u64) -> T + Sync,
{
    run_parallel_range(0..runs, threads, tick, f)
}

/// The most worker threads a run starts: more than any machine this targets has cores, few
/// enough that a mistyped count cannot exhaust the system. A larger request is served by this
/// many (the results do not depend on the count).
pub const MAX_THREADS: usize = 1024;

/// The most memory that the runs in flight hold together in their own state (what they share
/// is not counted): beside the `--threads` cap, this keeps a thread count from multiplying a
/// large run (a 2 GiB event queue of 2^26 nodes) past the machine. A run larger than this runs
/// alone.
pub const RUN_MEMORY_BUDGET: u64 = 4 << 30;

/// The thread count to run with when each run holds `run_bytes` of its own: `threads` (0 = all
/// cores), lowered so that the runs in flight stay within [`RUN_MEMORY_BUDGET`]. The results
/// do not depend on it.
///
/// ```
/// use ckpt::sim::engine::threads_within_memory;
/// assert_eq!(threads_within_memory(8, 0), 8);
/// assert_eq!(threads_within_memory(8, 1 << 30), 4);
/// assert_eq!(threads_within_memory(1024, 3 << 30), 1);
/// ```
pub fn threads_within_memory(threads: usize, run_bytes: u64) -> usize {
    let fit = usize::try_from((RUN_MEMORY_BUDGET / run_bytes.max(1)).max(1)).unwrap_or(usize::MAX);
    if threads == 0 {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        // 0 stays 0 (the pool's own choice of all cores) unless memory asks for fewer.
        if fit >= cores { 0 } else { fit }
    } else {
        threads.min(fit)
    }
}

/// [`run_parallel`] over the runs `range` only (one shard's slice): `f` sees the same run
/// indices, hence the same streams, as in the whole set; results come back in run order.
///
/// ```
/// use ckpt::sim::engine::{run_parallel, run_parallel_range};
/// let all = run_parallel(10, 2, &|| {}, |i| i * i);
/// let part = run_parallel_range(3..7, 2, &|| {}, |i| i * i);
/// assert_eq!(part, all[3..7]);
/// ```
pub fn run_parallel_range<T, F>(
    range: std::ops::Range<u64>,
    threads: usize,
    tick: &(dyn Fn() + Sync),
    f: F,
) -> Vec<T>
where
    T: Send,
    F: Fn(u64) -> T + Sync,
{
    use rayon::prelude::*;
    let work = || {
        range
            .clone()
            .into_par_iter()
            .map(|i| {
                let r = f(i);
                tick();
                r
            })
            .collect::<Vec<T>>()
    };
    // Never more threads than runs either: the extra ones would only be started and stopped.
    let runs = usize::try_from(range.end.saturating_sub(range.start)).unwrap_or(usize::MAX);
    let threads = threads.min(MAX_THREADS).min(runs.max(1));
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(work),
        // A pool that cannot be built (no threads available) still gives the same results.
        Err(_) => range.clone().map(f).collect(),
    }
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

    #[test]
    fn parallel_results_in_run_order() {
        let one = run_parallel(100, 1, &|| {}, |i| i * i);
        let two = run_parallel(100, 2, &|| {}, |i| i * i);
        assert_eq!(one, two);
        assert_eq!(one[99], 99 * 99);
    }

    #[test]
    fn queue_orders_by_insertion_last() {
        let mut q = EventQueue::new();
        for i in 0..5 {
            q.push(1, 0, 0, i);
        }
        let v: Vec<_> = std::iter::from_fn(|| q.pop().map(|x| x.1)).collect();
        assert_eq!(v, vec![0, 1, 2, 3, 4]);
    }
}

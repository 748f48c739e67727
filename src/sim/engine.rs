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

/// Nanoseconds back to seconds, for reports.
pub fn ns_to_secs(ns: Nanos) -> f64 {
    ns as f64 / NS_PER_S
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
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
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
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(work),
        // A pool that cannot be built (no threads available) still gives the same results.
        Err(_) => range.clone().map(f).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

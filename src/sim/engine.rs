//! The discrete-event core: an event queue ordered by time (whole nanoseconds,
//! [`crate::units::Nanos`]), then by the rule order a simulator gives, then by insertion, and the
//! parallel driver that collects per-run results in run order. Each run's random stream comes
//! from [`crate::rng::run_rng`].

use crate::units::Nanos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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

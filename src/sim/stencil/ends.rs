//! The timed ends of the stencil's activities, grouped by instant.
//!
//! Every task costs the same, so ends pile up on a few instants: on the paper's setting at
//! level 6, 90,000 ends fall on 2,600 instants. A binary heap of single ends paid a pop (about
//! 300 instructions) per end; here the heap holds one entry per bucket of ends sharing a
//! `(time, rule)` key, and an end is a push onto a vector. [`Ends::take`] hands over a whole
//! class at once in worker order: exactly the order of a queue keyed `(time, rule, worker)`,
//! since a worker has at most one live end. An end whose worker has moved on (stopped, or
//! started something else) is stale: the caller tells which are live.

use crate::sim::engine::Nanos;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Keys of buckets recently opened, so pushes find their bucket without a search: within an
/// instant the ends pushed fall on four keys (a copy, and processing after 0, 1 or 2 inputs).
const RECENT: usize = 8;
const NO_BUCKET: u32 = u32::MAX;
/// Up to this many workers a class is put in worker order through a bit set, beyond by sorting.
const BITSET_WORKERS: u32 = 4096;

/// Pending ends (worker indices) by `(time, rule)`.
#[derive(Debug)]
pub(super) struct Ends {
    /// One entry per bucket. A key may have more than one bucket (when it fell out of
    /// `recent`); [`Ends::take`] merges them.
    heap: BinaryHeap<Reverse<(Nanos, u32, u32)>>,
    buckets: Vec<Vec<u32>>,
    free: Vec<u32>,
    recent: [(Nanos, u32, u32); RECENT],
    /// The place in `recent` of the last bucket pushed to, per parity of the rule: ends of
    /// copies and of processing are pushed in turns, each class mostly to one key.
    last: [usize; 2],
    /// The place in `recent` to overwrite next.
    next: usize,
    /// A bit per worker (empty between calls) when there are few enough workers.
    bits: Vec<u64>,
}

impl Ends {
    pub fn new(workers: u32) -> Ends {
        Ends {
            heap: BinaryHeap::new(),
            buckets: Vec::new(),
            free: Vec::new(),
            recent: [(0, 0, NO_BUCKET); RECENT],
            last: [0; 2],
            next: 0,
            bits: if workers <= BITSET_WORKERS {
                vec![0; workers.div_ceil(64) as usize]
            } else {
                Vec::new()
            },
        }
    }

    /// Schedules an end of `worker`'s activity at `time` in class `rule`.
    #[inline]
    pub fn push(&mut self, time: Nanos, rule: u32, worker: u32) {
        // Most pushes go where the previous one went.
        let (t, r, b) = self.recent[self.last[(rule & 1) as usize]];
        if t == time && r == rule && b != NO_BUCKET {
            self.buckets[b as usize].push(worker);
            return;
        }
        self.push_slow(time, rule, worker);
    }

    fn push_slow(&mut self, time: Nanos, rule: u32, worker: u32) {
        for (i, &(t, r, b)) in self.recent.iter().enumerate() {
            if t == time && r == rule && b != NO_BUCKET {
                self.buckets[b as usize].push(worker);
                self.last[(rule & 1) as usize] = i;
                return;
            }
        }
        let b = match self.free.pop() {
            Some(b) => b,
            None => {
                self.buckets.push(Vec::new());
                (self.buckets.len() - 1) as u32
            }
        };
        self.buckets[b as usize].push(worker);
        self.heap.push(Reverse((time, rule, b)));
        self.recent[self.next] = (time, rule, b);
        self.last[(rule & 1) as usize] = self.next;
        self.next = (self.next + 1) % RECENT;
    }

    fn release(&mut self, b: u32) {
        self.buckets[b as usize].clear();
        self.free.push(b);
        for e in &mut self.recent {
            if e.2 == b {
                e.2 = NO_BUCKET;
            }
        }
    }

    /// Moves the workers with an end at `(time, rule)` into `out` (cleared first), ascending
    /// and each once; stale ends included: the caller drops them.
    pub fn take(&mut self, time: Nanos, rule: u32, out: &mut Vec<u32>) {
        out.clear();
        let bitset = !self.bits.is_empty();
        while let Some(&Reverse((t, r, b))) = self.heap.peek() {
            if (t, r) != (time, rule) {
                break;
            }
            self.heap.pop();
            if bitset {
                for &w in &self.buckets[b as usize] {
                    self.bits[w as usize / 64] |= 1 << (w % 64);
                }
            } else {
                out.extend_from_slice(&self.buckets[b as usize]);
            }
            self.release(b);
        }
        if bitset {
            for (i, word) in self.bits.iter_mut().enumerate() {
                while *word != 0 {
                    out.push((i * 64) as u32 + word.trailing_zeros());
                    *word &= *word - 1;
                }
            }
        } else {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// The time of the first end for which `live(worker, time, rule)` holds. Buckets of stale
    /// ends only are dropped on the way: an instant with nothing live would change nothing.
    pub fn next_time(&mut self, live: impl Fn(u32, Nanos, u32) -> bool) -> Option<Nanos> {
        while let Some(&Reverse((t, r, b))) = self.heap.peek() {
            if self.buckets[b as usize].iter().any(|&w| live(w, t, r)) {
                return Some(t);
            }
            self.heap.pop();
            self.release(b);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        // Against a plain ordered set of (time, rule, worker): the same classes in the
        // same order, whatever falls out of the recent keys.
        #[test]
        fn takes_classes_in_key_order(
            ends in proptest::collection::vec((0u64..6, 2u32..4, 0u32..70), 0..300),
            many: bool,
        ) {
            // Both ways of ordering a class: the bit set and the sort.
            let workers = if many { BITSET_WORKERS + 1 } else { 70 };
            let mut q = Ends::new(workers);
            let mut reference = BTreeSet::new();
            for &(t, r, w) in &ends {
                q.push(t, r, w);
                reference.insert((t, r, w));
            }
            let mut got = Vec::new();
            let mut out = Vec::new();
            while let Some(t) = q.next_time(|_, _, _| true) {
                for r in 2..4 {
                    q.take(t, r, &mut out);
                    got.extend(out.iter().map(|&w| (t, r, w)));
                }
            }
            prop_assert_eq!(got, reference.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn stale_only_instants_are_skipped() {
        let mut q = Ends::new(8);
        q.push(5, 2, 1);
        q.push(7, 2, 2);
        q.push(7, 3, 1);
        assert_eq!(q.next_time(|w, t, _| (w, t) != (1, 5)), Some(7));
        let mut out = Vec::new();
        q.take(7, 2, &mut out);
        assert_eq!(out, [2]);
        assert_eq!(q.next_time(|_, _, _| false), None);
    }
}

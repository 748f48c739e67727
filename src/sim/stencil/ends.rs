//! The timed ends of the stencil's activities, in lanes of one duration each.
//!
//! An activity lasts one of a few durations fixed by the configuration: processing after
//! fetching 0, 1 or 2 inputs, and a send. Ends are scheduled at the current instant plus such a
//! duration, and instants only move forward, so the ends of one duration arrive in time order:
//! each duration is a first-in first-out lane, and a push is an append, with no ordering work
//! at all (a binary heap paid about 300 instructions a pop; buckets per instant found by a
//! search paid about 50 a push). [`Ends::take`] hands over the ends of one class at one instant
//! in worker order, each worker once: exactly the order of a queue keyed
//! `(time, rule, worker)`, since a worker has at most one live end. An end whose worker has
//! moved on (stopped, or started something else) is stale: the caller tells which are live.

use crate::units::Nanos;

/// Up to this many workers a class is put in worker order through a bit set, beyond by sorting.
const BITSET_WORKERS: u32 = 4096;

/// One duration's pending ends, oldest first: `ends[head..]`.
#[derive(Debug)]
struct Lane {
    rule: u32,
    ends: Vec<(Nanos, u32)>,
    head: usize,
}

impl Lane {
    fn pending(&self) -> &[(Nanos, u32)] {
        &self.ends[self.head..]
    }

    /// Takes the ends due by `time` (those before it are stale and dropped), calling `each`
    /// with the worker of every end at `time`, in the lane's order.
    #[inline(always)]
    fn take_due(&mut self, time: Nanos, mut each: impl FnMut(u32)) {
        let mut taken = 0;
        for &(t, w) in self.pending() {
            if t > time {
                break;
            }
            taken += 1;
            if t == time {
                each(w);
            }
        }
        self.head += taken;
        self.shrink();
    }

    /// Drops the taken ends once they are at least half the vector, so a lane holds about
    /// what is pending (a few per worker) at a cost of one move per end.
    fn shrink(&mut self) {
        if self.head == self.ends.len() {
            self.ends.clear();
            self.head = 0;
        } else if self.head >= 64 && 2 * self.head >= self.ends.len() {
            self.ends.drain(..self.head);
            self.head = 0;
        }
    }
}

/// Pending ends (worker indices) by lane; each lane's times never decrease.
#[derive(Debug)]
pub(super) struct Ends {
    lanes: Vec<Lane>,
    /// A bit per worker (empty between calls) when there are few enough workers.
    bits: Vec<u64>,
}

impl Ends {
    /// Lanes of the given classes (`rules[i]` the class of lane `i`), for `workers` workers.
    pub fn new(workers: u32, rules: &[u32]) -> Ends {
        Ends {
            lanes: rules
                .iter()
                .map(|&rule| Lane {
                    rule,
                    ends: Vec::new(),
                    head: 0,
                })
                .collect(),
            bits: if workers <= BITSET_WORKERS {
                vec![0; workers.div_ceil(64) as usize]
            } else {
                Vec::new()
            },
        }
    }

    /// Schedules an end of `worker`'s activity at `time` in lane `lane`: no earlier than the
    /// lane's last end (the lane's duration added to an instant that never goes back).
    #[inline]
    pub fn push(&mut self, lane: usize, time: Nanos, worker: u32) {
        let ends = &mut self.lanes[lane].ends;
        debug_assert!(ends.last().is_none_or(|&(t, _)| t <= time));
        ends.push((time, worker));
    }

    /// Moves the workers with an end at `(time, rule)` into `out` (cleared first), ascending
    /// and each once; stale ends included: the caller drops them. Ends before `time` still
    /// pending are stale (every instant with a live end is visited) and are dropped.
    pub fn take(&mut self, time: Nanos, rule: u32, out: &mut Vec<u32>) {
        out.clear();
        if self.mark(time, rule) {
            for i in 0..self.words() {
                let mut word = self.take_word(i);
                while word != 0 {
                    out.push((i * 64) as u32 + word.trailing_zeros());
                    word &= word - 1;
                }
            }
            return;
        }
        for lane in self.lanes.iter_mut().filter(|l| l.rule == rule) {
            lane.take_due(time, |w| out.push(w));
        }
        out.sort_unstable();
        out.dedup();
    }

    /// [`Ends::take`] into the bit set, when there is one (`false` otherwise, and nothing is
    /// taken): the workers are then read with [`Ends::take_word`], each word once.
    #[inline]
    pub fn mark(&mut self, time: Nanos, rule: u32) -> bool {
        if self.bits.is_empty() {
            return false;
        }
        let bits = &mut self.bits;
        for lane in self.lanes.iter_mut().filter(|l| l.rule == rule) {
            lane.take_due(time, |w| bits[w as usize / 64] |= 1 << (w % 64));
        }
        true
    }

    /// Words of the bit set.
    #[inline]
    pub fn words(&self) -> usize {
        self.bits.len()
    }

    /// Word `i` of the bit set (workers `64 i ..`), cleared.
    #[inline]
    pub fn take_word(&mut self, i: usize) -> u64 {
        std::mem::take(&mut self.bits[i])
    }

    /// The time of the first end for which `live(worker, time, rule)` holds. Ends of instants
    /// with nothing live are dropped on the way: such an instant would change nothing.
    pub fn next_time(&mut self, live: impl Fn(u32, Nanos, u32) -> bool) -> Option<Nanos> {
        loop {
            let t = self
                .lanes
                .iter()
                .filter_map(|l| l.pending().first().map(|e| e.0))
                .min()?;
            for lane in &self.lanes {
                for &(te, w) in lane.pending() {
                    if te != t {
                        break;
                    }
                    if live(w, t, lane.rule) {
                        return Some(t);
                    }
                }
            }
            for lane in &mut self.lanes {
                lane.head += lane.pending().iter().take_while(|e| e.0 == t).count();
                lane.shrink();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Three processing lanes and a send lane, with durations that make ends of different
    /// lanes meet at one instant.
    const RULES: [u32; 4] = [2, 2, 2, 3];
    const DURATIONS: [Nanos; 4] = [10, 11, 12, 4];

    fn drain_before(q: &mut Ends, before: Nanos, got: &mut Vec<(Nanos, u32, u32)>) {
        let mut out = Vec::new();
        while let Some(t) = q.next_time(|_, _, _| true).filter(|&t| t < before) {
            for r in 2..4 {
                q.take(t, r, &mut out);
                got.extend(out.iter().map(|&w| (t, r, w)));
            }
        }
    }

    proptest! {
        // Against a plain ordered set of (time, rule, worker), with pushes made as a run
        // makes them (at an instant that moves forward, between the takes): the same classes
        // in the same order, each worker once.
        #[test]
        fn takes_classes_in_key_order(
            pushes in proptest::collection::vec((0u64..4, 0usize..4, 0u32..70), 0..300),
            many: bool,
        ) {
            // Both ways of ordering a class: the bit set and the sort.
            let workers = if many { BITSET_WORKERS + 1 } else { 70 };
            let mut q = Ends::new(workers, &RULES);
            let mut reference = BTreeSet::new();
            let mut got = Vec::new();
            let mut now = 0;
            for &(gap, lane, w) in &pushes {
                now += gap;
                drain_before(&mut q, now, &mut got);
                let time = now + DURATIONS[lane];
                q.push(lane, time, w);
                reference.insert((time, RULES[lane], w));
            }
            drain_before(&mut q, Nanos::MAX, &mut got);
            prop_assert_eq!(got, reference.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn stale_only_instants_are_skipped() {
        let mut q = Ends::new(8, &[2, 3]);
        q.push(0, 5, 1);
        q.push(0, 7, 2);
        q.push(1, 7, 1);
        assert_eq!(q.next_time(|w, t, _| (w, t) != (1, 5)), Some(7));
        let mut out = Vec::new();
        q.take(7, 2, &mut out);
        assert_eq!(out, [2]);
        assert_eq!(q.next_time(|_, _, _| false), None);
    }

    #[test]
    fn stale_ends_left_behind_are_dropped() {
        let mut q = Ends::new(8, &[2, 3]);
        q.push(0, 5, 1);
        q.push(0, 7, 2);
        let mut out = Vec::new();
        // Nothing was taken at 5 (its end went stale): taking at 7 drops it.
        q.take(7, 2, &mut out);
        assert_eq!(out, [2]);
        assert_eq!(q.next_time(|_, _, _| true), None);
    }
}

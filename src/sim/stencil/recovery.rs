//! The two recovery strategies of docs/simulation.md §3.5, run once per failure instant (step 4).

use super::run::{Act, COMPLETE, COPIES, HELD, QUEUED, State};

impl State<'_> {
    fn available(&self, t: u32) -> bool {
        self.tasks[t as usize].flags & COPIES != 0
    }

    /// `global`: every incomplete checkpoint triangle restarts from its entry checkpoints; a
    /// complete triangle whose output into an incomplete one is unavailable counts as
    /// incomplete too (the domino effect). Every execution in progress is cancelled.
    pub(super) fn recover_global(&mut self) {
        let l = self.l;
        let count = l.triangles();
        let mut rolled = vec![false; count];
        let mut work: Vec<u32> = Vec::new();
        // Incomplete triangles outside the active window have no complete task and no complete
        // entry: rolling them back would change nothing.
        for t in self.active_window() {
            let x = l.tri_of(t) as usize;
            if !rolled[x] && self.incomplete_tri_of(t) {
                rolled[x] = true;
                work.push(x as u32);
            }
        }
        let mut i = 0;
        while i < work.len() {
            let x = work[i];
            i += 1;
            // The entries of `x` (its tasks' dependencies in other triangles), walked in place
            // over the only tasks that can have one: an iterator chain over the triangle cost
            // more than the rest of the recovery, and a walk over all its tasks about a tenth
            // of a level-6 run.
            l.for_each_edge_task(x, |t| {
                for d in l.deps(t).iter() {
                    let y = l.tri_of(d);
                    if y != x
                        && !rolled[y as usize]
                        && !self.incomplete_tri_of(d)
                        && !self.available(d)
                    {
                        rolled[y as usize] = true;
                        work.push(y);
                    }
                }
            });
        }
        // Executions in progress: their triangles are incomplete by definition.
        for w in 0..self.workers.len() as u32 {
            if let Act::Running { .. } = self.workers[w as usize].act {
                self.stop(w);
            }
        }
        for &x in &work {
            if self.all_incomplete(x) {
                continue;
            }
            l.for_each_task(x, |t| {
                if self.tasks[t as usize].status == COMPLETE {
                    self.cancel_complete(t);
                }
            });
        }
    }

    /// `dependency`: starting from every task that still needs its inputs (queued or held,
    /// which includes the tasks the failure cancelled), cancel each complete dependency whose
    /// output is no longer available, transitively. Running tasks carry on.
    pub(super) fn recover_dependency(&mut self) {
        let l = self.l;
        let mut work: Vec<u32> = self
            .active_window()
            .filter(|&t| {
                let st = self.tasks[t as usize].status;
                (st == QUEUED || st == HELD)
                    && l.deps(t)
                        .as_slice()
                        .iter()
                        .any(|&d| self.tasks[d as usize].status == COMPLETE)
            })
            .collect();
        while let Some(t) = work.pop() {
            for d in l.deps(t).iter() {
                if self.tasks[d as usize].status == COMPLETE && !self.available(d) {
                    self.cancel_complete(d);
                    work.push(d);
                }
            }
        }
    }
}

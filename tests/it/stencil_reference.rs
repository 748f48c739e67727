//! A second, naive implementation of docs/simulation.md §3 (polling and full scans, no
//! incremental bookkeeping), held against the library's event-driven one on random traces:
//! makespan to the nanosecond, executions, cancellations, aggregate processing, copies.

// The reference spells each rule of the spec as its own plain nested test, on purpose.
#![allow(clippy::collapsible_if)]

use ckpt::rng::run_rng;
use ckpt::sim::stencil::config::TraceFailure;
use ckpt::sim::stencil::run::FailureStream;
use ckpt::sim::stencil::{Failures, Recovery, StencilConfig, layout, simulate};
use ckpt::units::Nanos;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

const S: Nanos = 1_000_000_000;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Act {
    Idle,
    Waiting(usize),
    Running {
        task: usize,
        start: Nanos,
        transfer: Nanos,
        end: Nanos,
    },
    Sending {
        task: usize,
        end: Nanos,
    },
}

#[derive(Clone, Copy, Default)]
struct Task {
    complete: bool,
    producer: usize,
    plain: bool,
    local: bool,
    remote: bool,
    released: bool,
    remote_done: bool,
    transfer: Nanos,
}

#[derive(Debug, PartialEq)]
struct Out {
    makespan: Nanos,
    executions: u64,
    cancelled_executions: u64,
    aggregate: Nanos,
    local: u64,
    remote: u64,
    resent: u64,
    max_held: u64,
    per_worker: Vec<u64>,
}

struct Ref<'a> {
    c: &'a StencilConfig,
    deps: Vec<Vec<usize>>,
    cons: Vec<Vec<usize>>,
    tri: Vec<usize>,
    ckpt: Vec<bool>,
    ntri: usize,
    tasks: Vec<Task>,
    workers: Vec<Act>,
    queue: BTreeSet<usize>,
    now: Nanos,
    executions: u64,
    cancelled_executions: u64,
    cancelled: Nanos,
    local: u64,
    remote: u64,
    resent: u64,
}

impl Ref<'_> {
    fn guard(&self, w: usize) -> usize {
        (w + 1) % self.workers.len()
    }
    fn protectee(&self, w: usize) -> usize {
        (w + self.workers.len() - 1) % self.workers.len()
    }
    fn available(&self, t: usize) -> bool {
        let x = self.tasks[t];
        x.plain || x.local || x.remote
    }
    fn incomplete_or_running(&self, t: usize) -> bool {
        !self.tasks[t].complete
    }
    fn secured(&self, x: usize) -> bool {
        (0..self.tasks.len())
            .filter(|&t| self.tri[t] == x)
            .all(|t| self.tasks[t].complete && (!self.ckpt[t] || self.tasks[t].remote_done))
    }
    fn release_all(&mut self) {
        for t in 0..self.tasks.len() {
            if !self.tasks[t].complete {
                continue;
            }
            if self.tasks[t].plain && self.cons[t].iter().all(|&c| self.tasks[c].complete) {
                self.tasks[t].plain = false;
            }
            if self.ckpt[t] && !self.tasks[t].released {
                let all = self.cons[t].iter().all(|&c| self.secured(self.tri[c]));
                if all {
                    self.tasks[t].local = false;
                    self.tasks[t].remote = false;
                    self.tasks[t].released = true;
                }
            }
        }
    }
    fn stop(&mut self, w: usize) {
        match self.workers[w] {
            Act::Waiting(t) => {
                self.queue.insert(t);
            }
            Act::Running { task, start, .. } => {
                self.cancelled += self.now - start;
                self.cancelled_executions += 1;
                self.queue.insert(task);
            }
            _ => {}
        }
        self.workers[w] = Act::Idle;
    }
    fn uncomplete(&mut self, t: usize) {
        let p = self.tasks[t].producer;
        if matches!(self.workers[p], Act::Sending { task, .. } if task == t) {
            self.workers[p] = Act::Idle;
        }
        self.cancelled += self.tasks[t].transfer + self.c.process_cost;
        self.cancelled_executions += 1;
        self.tasks[t] = Task::default();
        self.queue.insert(t);
    }
    fn held(&self) -> u64 {
        self.tasks
            .iter()
            .map(|t| t.local as u64 + t.remote as u64)
            .sum()
    }
}

fn reference(c: &StencilConfig) -> Out {
    let l = layout(c);
    let n = (c.width * c.rows) as usize;
    let mut r = Ref {
        c,
        deps: (0..n)
            .map(|t| {
                l.grid
                    .deps(t as u32)
                    .as_slice()
                    .iter()
                    .map(|&d| d as usize)
                    .collect()
            })
            .collect(),
        cons: (0..n)
            .map(|t| {
                l.grid
                    .consumers(t as u32)
                    .as_slice()
                    .iter()
                    .map(|&d| d as usize)
                    .collect()
            })
            .collect(),
        tri: (0..n as u32).map(|t| l.tri_of(t) as usize).collect(),
        ckpt: (0..n as u32).map(|t| l.is_checkpoint(t)).collect(),
        ntri: l.triangles(),
        tasks: vec![Task::default(); n],
        workers: vec![Act::Idle; c.workers as usize],
        queue: (0..n).collect(),
        now: 0,
        executions: 0,
        cancelled_executions: 0,
        cancelled: 0,
        local: 0,
        remote: 0,
        resent: 0,
    };
    let trace: Vec<TraceFailure> = match &c.failures {
        Failures::Trace(v) => v.clone(),
        _ => Vec::new(),
    };
    let mut next_failure = 0;
    let mut max_held = 0;
    loop {
        let mut failed = Vec::new();
        while next_failure < trace.len() && trace[next_failure].time == r.now {
            let w = trace[next_failure].worker as usize;
            next_failure += 1;
            r.stop(w);
            let q = r.protectee(w);
            for t in 0..n {
                if r.tasks[t].complete && r.tasks[t].producer == w {
                    r.tasks[t].plain = false;
                    r.tasks[t].local = false;
                }
                if r.tasks[t].complete && r.tasks[t].producer == q {
                    r.tasks[t].remote = false;
                }
            }
            failed.push(w);
        }
        failed.sort();
        failed.dedup();
        for &w in &failed {
            let q = r.protectee(w);
            for t in 0..n {
                let x = r.tasks[t];
                if x.complete && x.producer == q && x.local && !x.remote {
                    r.tasks[t].remote = true;
                    r.tasks[t].remote_done = true;
                    r.resent += 1;
                }
                if x.complete && x.producer == w && x.remote && !x.local {
                    r.tasks[t].local = true;
                    r.resent += 1;
                }
            }
        }
        if !failed.is_empty() {
            r.release_all();
        }
        let mut first = true;
        loop {
            for w in 0..r.workers.len() {
                if let Act::Running {
                    task,
                    transfer,
                    end,
                    ..
                } = r.workers[w]
                {
                    if end == r.now {
                        let t = &mut r.tasks[task];
                        t.complete = true;
                        t.producer = w;
                        t.transfer = transfer;
                        if r.ckpt[task] {
                            t.local = true;
                            r.local += 1;
                            r.workers[w] = Act::Sending {
                                task,
                                end: r.now + c.backup_cost,
                            };
                        } else {
                            t.plain = true;
                            r.workers[w] = Act::Idle;
                        }
                        r.release_all();
                    }
                }
            }
            for w in 0..r.workers.len() {
                if let Act::Sending { task, end } = r.workers[w] {
                    if end == r.now {
                        if !r.tasks[task].remote && !r.tasks[task].released {
                            r.tasks[task].remote = true;
                            r.remote += 1;
                        }
                        r.tasks[task].remote_done = true;
                        r.workers[w] = Act::Idle;
                        r.release_all();
                    }
                }
            }
            if first && !failed.is_empty() {
                match c.recovery {
                    Recovery::Global => {
                        let mut rolled: Vec<bool> = (0..r.ntri)
                            .map(|x| (0..n).any(|t| r.tri[t] == x && r.incomplete_or_running(t)))
                            .collect();
                        loop {
                            let mut changed = false;
                            for t in 0..n {
                                if !rolled[r.tri[t]] {
                                    continue;
                                }
                                for &d in &r.deps[t] {
                                    if r.tri[d] != r.tri[t] && !rolled[r.tri[d]] && !r.available(d)
                                    {
                                        rolled[r.tri[d]] = true;
                                        changed = true;
                                    }
                                }
                            }
                            if !changed {
                                break;
                            }
                        }
                        for w in 0..r.workers.len() {
                            if matches!(r.workers[w], Act::Running { .. }) {
                                r.stop(w);
                            }
                        }
                        for t in 0..n {
                            if rolled[r.tri[t]] && r.tasks[t].complete {
                                r.uncomplete(t);
                            }
                        }
                    }
                    Recovery::Dependency => loop {
                        let running: Vec<usize> = r
                            .workers
                            .iter()
                            .filter_map(|a| match a {
                                Act::Running { task, .. } => Some(*task),
                                _ => None,
                            })
                            .collect();
                        let mut victim = None;
                        'scan: for t in 0..n {
                            if r.tasks[t].complete || running.contains(&t) {
                                continue;
                            }
                            for &d in &r.deps[t] {
                                if r.tasks[d].complete && !r.available(d) {
                                    victim = Some(d);
                                    break 'scan;
                                }
                            }
                        }
                        match victim {
                            Some(d) => r.uncomplete(d),
                            None => break,
                        }
                    },
                }
                for w in 0..r.workers.len() {
                    if matches!(r.workers[w], Act::Waiting(_)) {
                        r.stop(w);
                    }
                }
            }
            first = false;
            for w in 0..r.workers.len() {
                if r.workers[w] == Act::Idle {
                    if let Some(&t) = r.queue.iter().next() {
                        r.queue.remove(&t);
                        r.workers[w] = Act::Waiting(t);
                    }
                }
            }
            for w in 0..r.workers.len() {
                if let Act::Waiting(t) = r.workers[w] {
                    if r.deps[t].iter().all(|&d| r.tasks[d].complete) {
                        let mut k = 0;
                        for &d in &r.deps[t] {
                            let x = r.tasks[d];
                            assert!(r.available(d), "reference: input of {t} unavailable");
                            let mine = (x.producer == w && (x.plain || x.local))
                                || (x.remote && r.guard(x.producer) == w);
                            if !mine {
                                k += 1;
                            }
                        }
                        let transfer = k * c.transfer_cost;
                        r.executions += 1;
                        r.workers[w] = Act::Running {
                            task: t,
                            start: r.now,
                            transfer,
                            end: r.now + transfer + c.process_cost,
                        };
                    }
                }
            }
            let again = r.workers.iter().any(|a| match a {
                Act::Running { end, .. } | Act::Sending { end, .. } => *end == r.now,
                _ => false,
            });
            if !again {
                break;
            }
        }
        max_held = max_held.max(r.held());
        if r.tasks.iter().all(|t| t.complete) {
            let mut per_worker = vec![0; r.workers.len()];
            for t in &r.tasks {
                per_worker[t.producer] += 1;
            }
            return Out {
                makespan: r.now,
                executions: r.executions,
                cancelled_executions: r.cancelled_executions,
                aggregate: n as u64 * c.process_cost + r.cancelled,
                local: r.local,
                remote: r.remote,
                resent: r.resent,
                max_held,
                per_worker,
            };
        }
        let next_event = r
            .workers
            .iter()
            .filter_map(|a| match a {
                Act::Running { end, .. } | Act::Sending { end, .. } => Some(*end),
                _ => None,
            })
            .min()
            .expect("reference stalled");
        r.now = match trace.get(next_failure) {
            Some(f) if f.time < next_event => f.time,
            _ => next_event,
        };
    }
}

#[test]
fn the_event_driven_simulator_agrees_with_a_naive_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(31337);
    for case in 0..1000 {
        let level = rng.random_range(1..=3u32);
        let h = 1u32 << (level - 1);
        let width = 2 * h * rng.random_range(1..=3u32);
        let rows = rng.random_range(1..=8u32);
        let workers = rng.random_range(1..=6u32);
        let mut c = StencilConfig {
            width,
            rows,
            workers,
            level,
            checkpoint: rng.random_range(0..5) != 0,
            recovery: if rng.random::<bool>() {
                Recovery::Global
            } else {
                Recovery::Dependency
            },
            process_cost: rng.random_range(1..=6u64) * S,
            backup_cost: rng.random_range(0..=6u64) * S / 2,
            transfer_cost: rng.random_range(0..=2u64) * S / 2,
            failures: Failures::None,
            output_bytes: None,
        };
        let horizon = 2 * rows as u64 * c.process_cost * 3 / S;
        let mut trace: Vec<TraceFailure> = (0..rng.random_range(0..=4))
            .flat_map(|_| {
                let time = rng.random_range(0..horizon) * S;
                let worker = rng.random_range(0..workers);
                let twin = rng.random_range(0..3) == 0;
                let mut v = vec![TraceFailure { time, worker }];
                if twin {
                    v.push(TraceFailure {
                        time,
                        worker: (worker + 1) % workers,
                    });
                }
                v
            })
            .collect();
        trace.sort_by_key(|f| f.time);
        c.failures = Failures::Trace(trace);
        let l = layout(&c);
        let f = simulate(&l, &c, FailureStream::new(&c, run_rng(0, 0))).unwrap();
        let got = Out {
            makespan: f.makespan,
            executions: f.executions,
            cancelled_executions: f.cancelled_executions,
            aggregate: f.aggregate_processing,
            local: f.local_copies,
            remote: f.remote_copies,
            resent: f.resent_copies,
            max_held: f.max_copies_held,
            per_worker: f.tasks_per_worker.clone(),
        };
        assert_eq!(got, reference(&c), "case {case}: {c:?}");
    }
}

#[test]
fn the_reference_itself_gives_the_hand_checked_figures() {
    for (c, expected) in crate::simulate_stencil::hand_checked_cases() {
        let r = reference(&c);
        assert_eq!(
            (r.makespan, r.cancelled_executions, r.aggregate),
            expected,
            "{c:?}"
        );
    }
}

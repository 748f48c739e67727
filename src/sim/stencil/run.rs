//! One run of the stencil simulation (docs/simulation.md §3.3, §3.4, §3.6): workers, the global queue,
//! copies, failures and the per-instant phase loop.
//!
//! Each instant is processed in the order of 3.6: failures (with ring repair), ends of
//! processing by worker index, ends of remote copies by worker index, recovery, idle workers
//! taking tasks by ascending index, ready workers starting. Timed ends live in `Ends` (ends.rs), one
//! lane per duration, and are handed over a class and an instant at a time sorted by worker,
//! so they are handled in exactly the order of a queue keyed `(time, rule, worker)`; a stopped
//! activity leaves a stale entry, told apart by the worker's activity and due time.
//! Dependencies are signalled: a completing task wakes the worker holding each of its
//! consumers.

use super::config::{Failures, Recovery, StencilConfig, TraceFailure};
use super::ends::Ends;
use super::graph::Pair;
use super::triangles::Layout;
use crate::failure::Lifetime;
use crate::units::{Nanos, secs_to_ns};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

/// Applied failures beyond this many stop a run (3.4).
pub const MAX_FAILURES: u64 = 1_000_000;

/// A run that cannot finish.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    /// More than [`MAX_FAILURES`] failures were applied.
    #[error(
        "more than {MAX_FAILURES} failures were applied before the last task completed: the failures (MTBF or trace) are too frequent for the run to finish"
    )]
    TooManyFailures,
    /// The MTBF is so short against the work that no run can finish: told before any run.
    #[error(
        "the MTBF ({mtbf_s} s) is too short to finish: at least {expected:.3e} failures expected per run (the failure-free work per worker over the MTBF), over the limit of {MAX_FAILURES}"
    )]
    Hopeless {
        /// The system MTBF, in seconds.
        mtbf_s: f64,
        /// The failures a run meets on average, at the least.
        expected: f64,
    },
    /// Under global rollback every failure cancels every execution in progress, so a task
    /// completes only in a stretch without failures as long as its processing: told before
    /// any run.
    #[error(
        "the MTBF ({mtbf_s} s) is too short to finish under global rollback: every failure cancels every execution in progress, so a task completes only in a stretch of {process_s} s (its process cost) without failures, and the first such stretch comes after about e^{ln_expected:.1} failures on average (e^(P/M) - 1), over the limit of {MAX_FAILURES}; dependency-aware rollback cancels only what a failure touches"
    )]
    GlobalHopeless {
        /// The system MTBF, in seconds.
        mtbf_s: f64,
        /// The process cost of one task, in seconds.
        process_s: f64,
        /// The natural log of the failures expected before the first task completes.
        ln_expected: f64,
    },
    /// With one worker, its own guard, a failure loses every output and every checkpoint, so a
    /// run completes only in one stretch without failures as long as all its processing:
    /// told before any run.
    #[error(
        "the MTBF ({mtbf_s} s) is too short to finish with one worker: a lone worker is its own guard, so every failure loses every output and checkpoint and the run starts over; it completes only in a stretch of at least {work_s} s (tasks x process cost) without failures, and the first such stretch comes after about e^{ln_expected:.1} failures on average (e^(W/M) - 1), over the limit of {MAX_FAILURES}; with two or more workers a checkpoint survives on its guard"
    )]
    LoneWorkerHopeless {
        /// The system MTBF, in seconds.
        mtbf_s: f64,
        /// Tasks times the process cost, in seconds.
        work_s: f64,
        /// The natural log of the failures expected before a run completes, at the least.
        ln_expected: f64,
    },
    /// A run passed the 584 years that simulated time can count before its last task
    /// completed.
    #[error(
        "the MTBF is too short to finish: the run passed 584 years of simulated time before the last task completed"
    )]
    TooLong,
    /// More runs than their kept figures leave memory for, told before any run.
    #[error(transparent)]
    TooManyRuns(#[from] crate::sim::run::SimError),
    /// A protocol invariant broke (a bug, never bad input).
    #[error("stencil protocol violated at t = {time} ns: {what}")]
    Protocol {
        /// When.
        time: Nanos,
        /// What went wrong.
        what: String,
    },
}

/// The figures of one run (3.7); times in ns.
// Serialized for shard files (`--shard`), which carry per-run results to `ckpt merge`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RunFigures {
    /// End of processing of the last task.
    pub makespan: Nanos,
    /// Tasks, W x T.
    pub tasks: u64,
    /// Starts of transfer-then-processing.
    pub executions: u64,
    /// Executions cancelled in transfer or processing plus complete tasks made incomplete.
    pub cancelled_executions: u64,
    /// Applied failures.
    pub failures: u64,
    /// Processing of the executions that stand (tasks x process cost).
    pub useful: Nanos,
    /// Transfers of the executions that stand.
    pub transfer: Nanos,
    /// Transfer and processing of every cancelled execution.
    pub cancelled: Nanos,
    /// Holding a task whose dependencies are incomplete.
    pub waiting: Nanos,
    /// Sending remote copies, plus the re-sends of ring repair.
    pub checkpointing: Nanos,
    /// The re-send part of `checkpointing` (it occupies no worker).
    pub resend: Nanos,
    /// No task to take.
    pub idle: Nanos,
    /// Tasks x process cost + the transfer and processing of cancelled executions.
    pub aggregate_processing: Nanos,
    /// Local checkpoint copies made (one per completed checkpoint task).
    pub local_copies: u64,
    /// Remote copies made by sends.
    pub remote_copies: u64,
    /// Copies re-sent by ring repair (both directions).
    pub resent_copies: u64,
    /// Most checkpoint copies (local + remote) held at once, sampled at the end of each instant.
    pub max_copies_held: u64,
    /// Tasks completed (standing executions) per worker index.
    pub tasks_per_worker: Vec<u64>,
}

impl RunFigures {
    /// The memory one run's figures keep for `workers` workers (a task count for each).
    pub fn kept_bytes(workers: u32) -> u64 {
        (std::mem::size_of::<RunFigures>() + workers as usize * std::mem::size_of::<u64>()) as u64
    }
}

/// Where a run's failures come from.
pub enum FailureStream<'a> {
    /// None.
    None,
    /// A trace, in order.
    Trace(&'a [TraceFailure], usize),
    /// A Poisson process of the whole system, the victim uniform over worker indices.
    Poisson {
        /// The run's stream.
        rng: Box<ChaCha8Rng>,
        /// Inter-arrival distribution (seconds).
        gap: Lifetime,
        /// Workers.
        workers: u32,
        /// The next failure.
        next: Option<TraceFailure>,
    },
}

impl<'a> FailureStream<'a> {
    /// The failures of `cfg` for one run using `rng` (ignored unless the source is Poisson).
    pub fn new(cfg: &'a StencilConfig, rng: ChaCha8Rng) -> FailureStream<'a> {
        match &cfg.failures {
            Failures::None => FailureStream::None,
            Failures::Trace(v) => FailureStream::Trace(v, 0),
            Failures::Poisson { mtbf } => {
                let gap = Lifetime::exponential(crate::units::ns_to_secs((*mtbf).max(1)))
                    .expect("a positive finite mean");
                let mut s = FailureStream::Poisson {
                    rng: Box::new(rng),
                    gap,
                    workers: cfg.workers,
                    next: None,
                };
                s.draw(0);
                s
            }
        }
    }

    fn draw(&mut self, after: Nanos) {
        if let FailureStream::Poisson {
            rng,
            gap,
            workers,
            next,
        } = self
        {
            let dt = secs_to_ns(gap.sample(rng.as_mut()));
            let worker = rng.random_range(0..*workers);
            *next = after
                .checked_add(dt)
                .map(|time| TraceFailure { time, worker });
        }
    }

    fn peek(&self) -> Option<Nanos> {
        match self {
            FailureStream::None => None,
            FailureStream::Trace(v, i) => v.get(*i).map(|f| f.time),
            FailureStream::Poisson { next, .. } => next.map(|f| f.time),
        }
    }

    fn pop(&mut self) -> Option<TraceFailure> {
        match self {
            FailureStream::None => None,
            FailureStream::Trace(v, i) => {
                let f = v.get(*i).copied();
                *i += 1;
                f
            }
            FailureStream::Poisson { next, .. } => {
                let f = next.take();
                if let Some(f) = f {
                    self.draw(f.time);
                }
                f
            }
        }
    }
}

pub(super) const QUEUED: u8 = 0;
pub(super) const HELD: u8 = 1;
pub(super) const RUNNING: u8 = 2;
pub(super) const COMPLETE: u8 = 3;

/// Output copies of a complete task.
pub(super) const PLAIN: u8 = 1;
pub(super) const LOCAL: u8 = 2;
pub(super) const REMOTE: u8 = 4;
/// The checkpoint was released (a send in flight then makes no copy).
pub(super) const RELEASED: u8 = 8;
/// The remote copy was made (by its send or a re-send): counts towards securing.
pub(super) const REMOTE_DONE: u8 = 16;
pub(super) const COPIES: u8 = PLAIN | LOCAL | REMOTE;

const RULE_PROCESSING: u32 = 2;
const RULE_COPY: u32 = 3;
/// The classes of the lanes of [`Ends`]: processing after fetching 0, 1 or 2 inputs, a send.
const LANES: [u32; 4] = [RULE_PROCESSING, RULE_PROCESSING, RULE_PROCESSING, RULE_COPY];
const LANE_COPY: usize = 3;

/// Whether `wk`'s current activity ends at `time` in class `rule`: a worker has one activity,
/// so an end that does not match it is stale.
#[inline(always)]
fn live(wk: &Worker, time: Nanos, rule: u32) -> bool {
    wk.due == time
        && match wk.act {
            Act::Running { .. } => rule == RULE_PROCESSING,
            Act::Sending(_) => rule == RULE_COPY,
            Act::Idle | Act::Waiting(_) => false,
        }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Act {
    Idle,
    Waiting(u32),
    /// `inputs`: how many inputs were fetched (the transfer is `inputs` x the transfer cost).
    Running {
        task: u32,
        inputs: u8,
    },
    Sending(u32),
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Worker {
    pub act: Act,
    pub since: Nanos,
    /// When the current activity ends (running or sending; meaningless otherwise).
    pub due: Nanos,
}

/// Eight bytes a task.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TaskState {
    pub status: u8,
    pub flags: u8,
    /// Inputs fetched by the standing execution (its transfer is this x the transfer cost).
    pub inputs: u8,
    /// Holder while HELD/RUNNING, producer once COMPLETE.
    pub who: u32,
}

/// The open counts of one triangle: it is secured when both are zero.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TriCount {
    pub incomplete: u32,
    pub pending: u32,
}

/// The tasks put back in the queue (every one below the never-taken cursor): a bit per task,
/// taken lowest first. A recovery puts back a block of tasks and the queue hands them out in
/// ascending order, so the search for the lowest moves forward word by word.
#[derive(Debug)]
pub(super) struct Requeued {
    bits: Vec<u64>,
    count: u32,
    /// No bit is set in a word below this one.
    low: usize,
}

impl Requeued {
    fn new(n: usize) -> Requeued {
        Requeued {
            bits: vec![0; n.div_ceil(64)],
            count: 0,
            low: 0,
        }
    }

    fn push(&mut self, t: u32) {
        let (word, bit) = (t as usize / 64, t % 64);
        debug_assert_eq!(self.bits[word] >> bit & 1, 0);
        self.bits[word] |= 1 << bit;
        self.count += 1;
        self.low = self.low.min(word);
    }

    fn pop_lowest(&mut self) -> Option<u32> {
        if self.count == 0 {
            return None;
        }
        while self.bits[self.low] == 0 {
            self.low += 1;
        }
        let word = &mut self.bits[self.low];
        let bit = word.trailing_zeros();
        *word &= *word - 1;
        self.count -= 1;
        Some((self.low * 64) as u32 + bit)
    }

    fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| (i * 64) as u32 + b)
        })
    }
}

/// The state of one run.
pub(super) struct State<'a> {
    pub l: &'a Layout,
    pub cfg: &'a StencilConfig,
    pub now: Nanos,
    pub tasks: Vec<TaskState>,
    pub workers: Vec<Worker>,
    /// No task below this id holds a copy: a task gains copies only when it completes (which
    /// lowers this to it) or while it holds one, so a failure finds the copies of a worker
    /// in `copy_low..cursor`, with no list per worker kept on every completion.
    copy_low: u32,
    pub idle: Vec<u64>,
    pub cursor: u32,
    /// No task below this id is incomplete (lowered by cancellations, raised lazily).
    pub low: u32,
    pub requeued: Requeued,
    pub events: Ends,
    /// The ends of one class at one instant, being handled.
    batch: Vec<u32>,
    pub ready: Vec<u32>,
    /// Per triangle, its incomplete tasks and its checkpoint tasks whose remote copy was not
    /// made: side by side, so the securing test (both zero) is one load. Empty when every
    /// triangle is one task.
    tri: Vec<TriCount>,
    /// Every triangle is one task (level 1): its two counts are read off the task's status and
    /// flags instead of kept (eight bytes a task and two updates per execution saved).
    one_task_tris: bool,
    pub complete: u32,
    pub copies_held: u64,
    pub f: RunFigures,
    pub failed_now: Vec<u32>,
    pub error: Option<String>,
}

/// The most memory one run of `cfg` holds of its own (the layout is shared): a state per task,
/// a bit per task for the requeued ones, the open counts of every triangle, and per worker
/// its activity, its task count and its event lanes.
pub fn run_bytes(l: &Layout, cfg: &StencilConfig) -> u64 {
    let tasks = u64::from(l.grid.tasks());
    let triangles = if l.tris.is_some_and(|tr| tr.height() == 1) {
        0
    } else {
        l.triangles() as u64
    };
    let per_worker = (std::mem::size_of::<Worker>() + 8 + LANES.len() * 16) as u64;
    tasks * (std::mem::size_of::<TaskState>() as u64)
        + tasks.div_ceil(8)
        + triangles * std::mem::size_of::<TriCount>() as u64
        + u64::from(cfg.workers) * per_worker
}

impl<'a> State<'a> {
    fn new(l: &'a Layout, cfg: &'a StencilConfig) -> State<'a> {
        let n = l.grid.tasks() as usize;
        let w = cfg.workers as usize;
        let mut idle = vec![0u64; w.div_ceil(64)];
        for i in 0..w {
            idle[i / 64] |= 1 << (i % 64);
        }
        let one_task_tris = l.tris.is_some_and(|tr| tr.height() == 1);
        let mut tri = Vec::new();
        if !one_task_tris {
            let (size, checkpoints) = l.triangle_counts();
            tri = size
                .into_iter()
                .zip(checkpoints)
                .map(|(incomplete, pending)| TriCount {
                    incomplete,
                    pending,
                })
                .collect();
        }
        State {
            l,
            cfg,
            now: 0,
            tasks: vec![TaskState::default(); n],
            workers: vec![
                Worker {
                    act: Act::Idle,
                    since: 0,
                    due: 0
                };
                w
            ],
            copy_low: 0,
            idle,
            cursor: 0,
            low: 0,
            requeued: Requeued::new(n),
            events: Ends::new(cfg.workers, &LANES),
            batch: Vec::new(),
            ready: Vec::new(),
            tri,
            one_task_tris,
            complete: 0,
            copies_held: 0,
            f: RunFigures {
                tasks: n as u64,
                tasks_per_worker: vec![0; w],
                ..Default::default()
            },
            failed_now: Vec::new(),
            error: None,
        }
    }

    #[inline(always)]
    pub fn guard(&self, w: u32) -> u32 {
        if w + 1 == self.cfg.workers { 0 } else { w + 1 }
    }

    pub fn protectee(&self, w: u32) -> u32 {
        if w == 0 { self.cfg.workers - 1 } else { w - 1 }
    }

    #[inline(always)]
    fn set_idle(&mut self, w: u32) {
        self.idle[w as usize / 64] |= 1 << (w % 64);
    }

    #[inline(always)]
    fn clear_idle(&mut self, w: u32) {
        self.idle[w as usize / 64] &= !(1 << (w % 64));
    }

    fn fail(&mut self, what: String) {
        if self.error.is_none() {
            self.error = Some(what);
        }
    }

    /// Closes the current activity of `w` at `now` and books its time; then `w` is idle.
    /// A running execution is cancelled (its time counts as cancelled), a held task goes back
    /// to the queue, a send is cut short (its time counts as checkpointing).
    pub fn stop(&mut self, w: u32) {
        let now = self.now;
        let wk = self.workers[w as usize];
        let dt = now - wk.since;
        match wk.act {
            Act::Idle => self.f.idle += dt,
            Act::Waiting(t) => {
                self.f.waiting += dt;
                self.requeue(t);
            }
            Act::Running { task, .. } => {
                self.f.cancelled += dt;
                self.f.cancelled_executions += 1;
                self.requeue(task);
            }
            Act::Sending(_) => self.f.checkpointing += dt,
        }
        let wk = &mut self.workers[w as usize];
        wk.act = Act::Idle;
        wk.since = now;
        self.set_idle(w);
    }

    pub fn requeue(&mut self, t: u32) {
        let ts = &mut self.tasks[t as usize];
        ts.status = QUEUED;
        ts.who = u32::MAX;
        debug_assert!(t < self.cursor);
        self.requeued.push(t);
    }

    /// The smallest queued id: a put-back task (all lie below the cursor) or the cursor.
    #[inline(always)]
    fn queue_head(&mut self) -> Option<u32> {
        if let Some(t) = self.requeued.pop_lowest() {
            return Some(t);
        }
        if (self.cursor as usize) < self.tasks.len() {
            self.cursor += 1;
            Some(self.cursor - 1)
        } else {
            None
        }
    }

    #[inline(always)]
    fn queue_empty(&self) -> bool {
        self.requeued.is_empty() && self.cursor as usize >= self.tasks.len()
    }

    #[inline(always)]
    fn deps_complete(&self, t: u32) -> bool {
        self.l
            .deps(t)
            .iter()
            .all(|d| self.tasks[d as usize].status == COMPLETE)
    }

    /// Whether worker `w` holds a copy of `d`'s output.
    #[inline(always)]
    fn in_memory(&self, w: u32, d: u32) -> bool {
        let ts = self.tasks[d as usize];
        (ts.who == w && ts.flags & (PLAIN | LOCAL) != 0)
            || (ts.flags & REMOTE != 0 && self.guard(ts.who) == w)
    }

    /// Step (5) for idle worker `w`, and step (6) at once when its task can start: starting
    /// it here rather than after every take changes nothing (a start touches only its own
    /// worker and task, and the ends it schedules are put in worker order when taken).
    #[inline(always)]
    fn take(&mut self, w: u32) {
        let Some(t) = self.queue_head() else { return };
        let now = self.now;
        let wk = self.workers[w as usize];
        debug_assert_eq!(wk.act, Act::Idle);
        self.f.idle += now - wk.since;
        self.clear_idle(w);
        let wk = &mut self.workers[w as usize];
        wk.act = Act::Waiting(t);
        wk.since = now;
        let ts = &mut self.tasks[t as usize];
        ts.status = HELD;
        ts.who = w;
        self.start_task(w, t);
    }

    fn take_idle(&mut self) {
        for word in 0..self.idle.len() {
            while self.idle[word] != 0 {
                if self.queue_empty() {
                    return;
                }
                let w = (word * 64) as u32 + self.idle[word].trailing_zeros();
                self.take(w);
            }
        }
    }

    #[inline(always)]
    fn start(&mut self, w: u32) {
        let Act::Waiting(t) = self.workers[w as usize].act else {
            return;
        };
        self.start_task(w, t);
    }

    /// Starts `t`, held by `w`, if its dependencies are all complete.
    #[inline(always)]
    fn start_task(&mut self, w: u32, t: u32) {
        // One pass over the dependencies: all complete, and how many inputs to fetch.
        let mut k = 0u64;
        let mut missing = None;
        for d in self.l.deps(t).iter() {
            let ds = self.tasks[d as usize];
            if ds.status != COMPLETE {
                return;
            }
            if ds.flags & COPIES == 0 && missing.is_none() {
                missing = Some(d);
            }
            if !self.in_memory(w, d) {
                k += 1;
            }
        }
        if let Some(d) = missing {
            self.missing_input(w, t, d);
        }
        let now = self.now;
        let transfer = k * self.cfg.transfer_cost;
        let wk = &mut self.workers[w as usize];
        self.f.waiting += now - wk.since;
        wk.act = Act::Running {
            task: t,
            inputs: k as u8,
        };
        wk.since = now;
        wk.due = now
            .saturating_add(transfer)
            .saturating_add(self.cfg.process_cost);
        let due = wk.due;
        self.tasks[t as usize].status = RUNNING;
        self.f.executions += 1;
        // Lane k: processing after fetching k inputs (at most two).
        self.events.push(k as usize, due, w);
    }

    #[cold]
    fn missing_input(&mut self, w: u32, t: u32, d: u32) {
        let (dt, dn) = self.l.grid.coords(d);
        let (tt, tn) = self.l.grid.coords(t);
        self.fail(format!(
            "worker {w} starts T({tt},{tn}) but the output of T({dt},{dn}) is in no live memory"
        ));
    }

    #[inline(always)]
    fn end_processing(&mut self, w: u32) {
        let Act::Running { task: t, inputs } = self.workers[w as usize].act else {
            return;
        };
        let transfer = inputs as u64 * self.cfg.transfer_cost;
        let now = self.now;
        let ti = t as usize;
        let ts = &mut self.tasks[ti];
        ts.status = COMPLETE;
        ts.who = w;
        ts.inputs = inputs;
        self.complete += 1;
        if !self.one_task_tris {
            self.tri[self.l.tri_of(t) as usize].incomplete -= 1;
        }
        self.f.transfer += transfer;
        self.copy_low = self.copy_low.min(t);
        let wk = &mut self.workers[w as usize];
        let checkpoint = self.l.is_checkpoint(t);
        if checkpoint {
            self.tasks[ti].flags = LOCAL;
            self.f.local_copies += 1;
            self.copies_held += 1;
            wk.act = Act::Sending(t);
            wk.since = now;
            wk.due = now.saturating_add(self.cfg.backup_cost);
            let due = wk.due;
            self.events.push(LANE_COPY, due, w);
        } else {
            self.tasks[ti].flags = PLAIN;
            wk.act = Act::Idle;
            wk.since = now;
            self.set_idle(w);
        }
        // Worked out once here for the release tests and the consumers made ready.
        let consumers = self.l.consumers(t);
        self.release_tests(t, checkpoint, consumers);
        for c in consumers.iter() {
            let cs = self.tasks[c as usize];
            if cs.status == HELD && self.deps_complete(c) {
                self.ready.push(cs.who);
            }
        }
    }

    /// Release tests after `t` completed: its plain dependencies, itself, its triangle. `t`
    /// holds its plain output, or its local copy if `checkpoint`.
    #[inline(always)]
    fn release_tests(&mut self, t: u32, checkpoint: bool, consumers: Pair) {
        let deps = self.l.deps(t);
        for d in deps.iter() {
            self.try_release_plain(d);
        }
        if checkpoint {
            self.try_release_checkpoint(t);
        } else if self.all_complete(consumers) {
            self.tasks[t as usize].flags &= !PLAIN;
        }
        self.check_secured_with(t, deps);
    }

    #[inline(always)]
    fn try_release_plain(&mut self, d: u32) {
        let ds = self.tasks[d as usize];
        if ds.status == COMPLETE && ds.flags & PLAIN != 0 {
            self.release_plain_if_read(d);
        }
    }

    /// Drops the plain output of complete `d` once every consumer is complete.
    #[inline(always)]
    fn release_plain_if_read(&mut self, d: u32) {
        if self.all_complete(self.l.consumers(d)) {
            self.tasks[d as usize].flags &= !PLAIN;
        }
    }

    #[inline(always)]
    fn all_complete(&self, tasks: Pair) -> bool {
        tasks
            .iter()
            .all(|c| self.tasks[c as usize].status == COMPLETE)
    }

    #[inline(always)]
    pub fn secured(&self, x: u32) -> bool {
        if self.one_task_tris {
            return self.one_task_secured(x);
        }
        let n = self.tri[x as usize];
        n.incomplete | n.pending == 0
    }

    /// [`State::secured`] when every triangle is one task: off the hot paths (which test the
    /// task), and kept out of line so that the counts' test stays small enough to inline.
    #[cold]
    #[inline(never)]
    fn one_task_secured(&self, x: u32) -> bool {
        self.l.tasks_of(x).all(|t| self.task_secured(t))
    }

    /// Whether the triangle of task `t` has an incomplete task.
    #[inline(always)]
    pub fn incomplete_tri_of(&self, t: u32) -> bool {
        if self.one_task_tris {
            self.tasks[t as usize].status != COMPLETE
        } else {
            self.tri[self.l.tri_of(t) as usize].incomplete > 0
        }
    }

    /// Whether every task of triangle `x` is incomplete (`false` when unsure).
    pub fn all_incomplete(&self, x: u32) -> bool {
        !self.one_task_tris && self.tri[x as usize].incomplete == self.l.tri_size(x)
    }

    #[inline(never)]
    pub fn check_secured(&mut self, x: u32) {
        if !self.secured(x) {
            return;
        }
        let l = self.l;
        l.for_each_watched(x, |c| self.try_release_checkpoint(c));
    }

    /// Whether the triangle of `t` is secured, when it holds `t` alone: `t` is complete and,
    /// if a checkpoint task, its remote copy was made (the two counts of [`TriCount`]).
    #[inline(always)]
    fn task_secured(&self, t: u32) -> bool {
        let ts = self.tasks[t as usize];
        ts.status == COMPLETE && (ts.flags & REMOTE_DONE != 0 || !self.l.is_checkpoint(t))
    }

    /// [`State::check_secured`] for the triangle of task `t`. At level 1 the triangle is `t`
    /// alone and watches the checkpoints among its dependencies: enumerating it from the
    /// geometry cost more than the rest of a level-1 securing.
    #[inline(always)]
    fn check_secured_of(&mut self, t: u32) {
        self.check_secured_with(t, self.l.deps(t))
    }

    /// [`State::check_secured_of`] with the dependencies of `t` already worked out.
    #[inline(always)]
    fn check_secured_with(&mut self, t: u32, deps: Pair) {
        if !self.one_task_tris {
            // Tested here, so that the walk of the triangle is called only once it is secured.
            let x = self.l.tri_of(t);
            let n = self.tri[x as usize];
            if n.incomplete | n.pending == 0 {
                self.check_secured(x);
            }
        } else if self.task_secured(t) {
            let l = self.l;
            for d in deps.iter() {
                if l.is_checkpoint(d) {
                    self.try_release_checkpoint(d);
                }
            }
        }
    }

    #[inline(always)]
    fn try_release_checkpoint(&mut self, c: u32) {
        let cs = self.tasks[c as usize];
        if cs.status != COMPLETE || cs.flags & RELEASED != 0 {
            return;
        }
        let all = if self.one_task_tris {
            self.l.consumers(c).iter().all(|d| self.task_secured(d))
        } else {
            self.l.all_consumer_tris(c, |x| self.secured(x))
        };
        if all {
            self.drop_copies(c, LOCAL | REMOTE);
            self.tasks[c as usize].flags |= RELEASED;
        }
    }

    /// Clears the given copy flags of `t`, keeping the held-copies count.
    #[inline(always)]
    pub fn drop_copies(&mut self, t: u32, which: u8) {
        let ts = &mut self.tasks[t as usize];
        let gone = ts.flags & which;
        self.copies_held -= ((gone & LOCAL != 0) as u64) + ((gone & REMOTE != 0) as u64);
        ts.flags &= !which;
    }

    #[inline(always)]
    fn end_copy(&mut self, w: u32) {
        let Act::Sending(t) = self.workers[w as usize].act else {
            return;
        };
        let now = self.now;
        let ti = t as usize;
        let flags = self.tasks[ti].flags;
        if flags & (REMOTE | RELEASED) == 0 {
            self.tasks[ti].flags |= REMOTE;
            self.f.remote_copies += 1;
            self.copies_held += 1;
        }
        self.mark_remote_done(t);
        let wk = &mut self.workers[w as usize];
        self.f.checkpointing += now - wk.since;
        wk.act = Act::Idle;
        wk.since = now;
        self.set_idle(w);
        self.check_secured_of(t);
    }

    #[inline(always)]
    pub fn mark_remote_done(&mut self, t: u32) {
        let ts = &mut self.tasks[t as usize];
        if ts.flags & REMOTE_DONE == 0 {
            ts.flags |= REMOTE_DONE;
            if !self.one_task_tris {
                self.tri[self.l.tri_of(t) as usize].pending -= 1;
            }
        }
    }

    /// Makes a complete task incomplete again (3.5): it loses every copy, goes back to the
    /// queue, and its standing execution becomes a cancelled one; a send of it in flight stops.
    pub fn cancel_complete(&mut self, t: u32) {
        let ti = t as usize;
        let ts = self.tasks[ti];
        debug_assert_eq!(ts.status, COMPLETE);
        let p = ts.who;
        if self.workers[p as usize].act == Act::Sending(t) {
            self.stop(p);
        }
        self.drop_copies(t, COPIES);
        if ts.flags & REMOTE_DONE != 0 && !self.one_task_tris {
            self.tri[self.l.tri_of(t) as usize].pending += 1;
        }
        self.tasks[ti].flags = 0;
        let transfer = ts.inputs as u64 * self.cfg.transfer_cost;
        self.f.cancelled += transfer + self.cfg.process_cost;
        self.f.transfer -= transfer;
        self.f.cancelled_executions += 1;
        self.complete -= 1;
        if !self.one_task_tris {
            self.tri[self.l.tri_of(t) as usize].incomplete += 1;
        }
        self.low = self.low.min(t);
        self.requeue(t);
    }

    /// Step 1 of 3.4 for worker `w`: its activity stops and its memory is gone.
    fn fail_worker(&mut self, w: u32) {
        self.stop(w);
        self.for_each_held(w, |s, t| s.drop_copies(t, PLAIN | LOCAL));
        let q = self.protectee(w);
        self.for_each_held(q, |s, t| s.drop_copies(t, REMOTE));
    }

    /// Step 2 of 3.4 for worker `w`: ring repair around its replacement. Adds to
    /// `touched` the triangles whose securing must be tested once every repair of the instant
    /// is done, so the order of failures within an instant cannot matter.
    fn repair_ring(&mut self, w: u32, touched: &mut Vec<u32>) {
        // The protectee's checkpoints lost their remote copies with `w`: sent again.
        let q = self.protectee(w);
        self.for_each_held(q, |s, t| {
            if s.resend(t, LOCAL, REMOTE) {
                s.mark_remote_done(t);
                touched.push(s.l.tri_of(t));
            }
        });
        // The replacement gets back its local copies from the remote ones its guard holds.
        self.for_each_held(w, |s, t| {
            s.resend(t, REMOTE, LOCAL);
        });
    }

    /// Re-sends copy `make` of `t` from its copy `have`, if it has that one and not this.
    fn resend(&mut self, t: u32, have: u8, make: u8) -> bool {
        let flags = self.tasks[t as usize].flags;
        if flags & have == 0 || flags & make != 0 {
            return false;
        }
        self.tasks[t as usize].flags |= make;
        self.copies_held += 1;
        self.f.resent_copies += 1;
        self.f.resend += self.cfg.backup_cost;
        true
    }

    /// Calls `f` on each complete task produced by `w` that holds a copy, ascending.
    fn for_each_held(&mut self, w: u32, mut f: impl FnMut(&mut Self, u32)) {
        while self.copy_low < self.cursor && self.tasks[self.copy_low as usize].flags & COPIES == 0
        {
            self.copy_low += 1;
        }
        for t in self.copy_low..self.cursor {
            let ts = self.tasks[t as usize];
            if ts.status == COMPLETE && ts.who == w && ts.flags & COPIES != 0 {
                f(self, t);
            }
        }
    }

    /// The smallest incomplete task id (every task below it is complete).
    pub fn lowest_incomplete(&mut self) -> u32 {
        let n = self.tasks.len() as u32;
        while self.low < n && self.tasks[self.low as usize].status == COMPLETE {
            self.low += 1;
        }
        self.low
    }

    /// The ids that recovery must look at: from the smallest incomplete task to two rows past
    /// the queue's never-taken cursor. A task with a complete dependency lies below
    /// `cursor + 2W` (its dependency was taken, so lies below the cursor, and sits less than
    /// two rows before it), and a triangle with a complete task or a complete entry has a task
    /// in this window.
    pub fn active_window(&mut self) -> std::ops::Range<u32> {
        let n = self.tasks.len() as u32;
        let lo = self.lowest_incomplete();
        let hi = (self.cursor as u64 + 2 * self.l.grid.width() as u64).min(n as u64) as u32;
        lo..hi.max(lo)
    }

    /// Takes the ends of class `RULE` at `now` and handles them in worker order; an entry
    /// whose worker has moved on since is dropped. Handling one end pushes none of the same
    /// class at the same instant (an end of processing pushes a copy, an end of copy nothing),
    /// and changes no other worker, so one batch holds them all. With few workers the batch is
    /// read straight off the bit set of [`Ends`], a word at a time.
    fn handle_ends<const RULE: u32>(&mut self) {
        if self.events.mark(self.now, RULE) {
            for i in 0..self.events.words() {
                let mut word = self.events.take_word(i);
                while word != 0 {
                    let w = (i * 64) as u32 + word.trailing_zeros();
                    word &= word - 1;
                    self.handle_end::<RULE>(w);
                }
            }
        } else {
            let mut batch = std::mem::take(&mut self.batch);
            self.events.take(self.now, RULE, &mut batch);
            for &w in &batch {
                self.handle_end::<RULE>(w);
            }
            self.batch = batch;
        }
    }

    #[inline(always)]
    fn handle_end<const RULE: u32>(&mut self, w: u32) {
        if !live(&self.workers[w as usize], self.now, RULE) {
            return;
        }
        if RULE == RULE_PROCESSING {
            self.end_processing(w);
        } else {
            self.end_copy(w);
        }
    }

    /// The next instant with a live end.
    fn next_end(&mut self) -> Option<Nanos> {
        let workers = &self.workers;
        self.events
            .next_time(|w, time, rule| live(&workers[w as usize], time, rule))
    }

    fn start_ready(&mut self) {
        let ready = std::mem::take(&mut self.ready);
        for &w in &ready {
            self.start(w);
        }
        let mut ready = ready;
        ready.clear();
        self.ready = ready;
    }

    /// Recomputes, from scratch, what the incremental bookkeeping keeps (debug builds, small
    /// grids): a disagreement is a bug in the bookkeeping, never in the input.
    fn check_consistency(&self) {
        let l = self.l;
        let mut held = 0;
        let mut incomplete = vec![0u32; l.triangles()];
        let mut pending = vec![0u32; l.triangles()];
        let mut queued: Vec<u32> = self.requeued.iter().collect();
        queued.extend(self.cursor..self.tasks.len() as u32);
        queued.sort_unstable();
        let expect: Vec<u32> = (0..self.tasks.len() as u32)
            .filter(|&t| self.tasks[t as usize].status == QUEUED)
            .collect();
        assert_eq!(queued, expect, "queue contents at {}", self.now);
        for (t, ts) in self.tasks.iter().enumerate() {
            let x = l.tri_of(t as u32) as usize;
            held += (ts.flags & LOCAL != 0) as u64 + (ts.flags & REMOTE != 0) as u64;
            if ts.status != COMPLETE {
                incomplete[x] += 1;
                assert_eq!(ts.flags, 0, "an incomplete task holds copies");
            }
            if l.is_checkpoint(t as u32) && ts.flags & REMOTE_DONE == 0 {
                pending[x] += 1;
            }
            if ts.status == COMPLETE {
                if ts.flags & COPIES != 0 {
                    assert!(t as u32 >= self.copy_low, "{t} holds a copy below copy_low");
                }
                if !l.is_checkpoint(t as u32)
                    && l.consumers(t as u32)
                        .iter()
                        .all(|c| self.tasks[c as usize].status == COMPLETE)
                {
                    assert_eq!(
                        ts.flags & PLAIN,
                        0,
                        "plain output {t} not released at {}",
                        self.now
                    );
                }
            }
            match ts.status {
                HELD => assert_eq!(self.workers[ts.who as usize].act, Act::Waiting(t as u32)),
                RUNNING => assert!(
                    matches!(self.workers[ts.who as usize].act, Act::Running { task, .. } if task == t as u32)
                ),
                _ => {}
            }
        }
        assert_eq!(held, self.copies_held);
        if self.one_task_tris {
            for x in 0..l.triangles() as u32 {
                let secured = incomplete[x as usize] | pending[x as usize] == 0;
                assert_eq!(self.secured(x), secured, "triangle {x} at {}", self.now);
            }
        } else {
            assert!(incomplete.iter().eq(self.tri.iter().map(|n| &n.incomplete)));
            assert!(pending.iter().eq(self.tri.iter().map(|n| &n.pending)));
        }
        for (t, ts) in self.tasks.iter().enumerate() {
            if ts.status == COMPLETE && l.is_checkpoint(t as u32) && ts.flags & RELEASED == 0 {
                let all = l.all_consumer_tris(t as u32, |x| self.secured(x));
                assert!(
                    !all,
                    "checkpoint {t} should have been released at {}",
                    self.now
                );
            }
        }
        for (w, wk) in self.workers.iter().enumerate() {
            let bit = self.idle[w / 64] >> (w % 64) & 1 == 1;
            assert_eq!(bit, wk.act == Act::Idle, "idle bit of worker {w}");
            if wk.act == Act::Idle {
                assert!(
                    self.queue_empty(),
                    "worker {w} idle with a non-empty queue at {}",
                    self.now
                );
            }
        }
    }

    fn finish(mut self) -> RunFigures {
        for w in 0..self.workers.len() as u32 {
            let wk = self.workers[w as usize];
            let dt = self.now - wk.since;
            match wk.act {
                Act::Idle => self.f.idle += dt,
                Act::Sending(_) => self.f.checkpointing += dt,
                // Every task is complete: nobody waits or runs.
                Act::Waiting(_) | Act::Running { .. } => {
                    unreachable!("a task is incomplete at the end")
                }
            }
        }
        self.f.makespan = self.now;
        self.f.useful = self.f.tasks * self.cfg.process_cost;
        self.f.checkpointing += self.f.resend;
        self.f.aggregate_processing = self.f.useful + self.f.cancelled;
        for ts in &self.tasks {
            self.f.tasks_per_worker[ts.who as usize] += 1;
        }
        self.f
    }
}

/// Simulates one run of `cfg` over `layout` with the given failures.
///
/// ```
/// use ckpt::sim::stencil::{config::*, run::*, triangles::*, graph::Grid};
/// let cfg = StencilConfig { width: 4, rows: 4, workers: 2, level: 1, checkpoint: true,
///     recovery: Recovery::Global, process_cost: 10_000_000_000, backup_cost: 1_000_000_000,
///     transfer_cost: 1_000_000_000, failures: Failures::None, output_bytes: None };
/// let g = Grid::new(4, 4).unwrap();
/// let layout = Layout::new(g, Triangles::new(g, 1));
/// let f = simulate(&layout, &cfg, FailureStream::None).unwrap();
/// assert_eq!(f.makespan, 87_000_000_000);
/// ```
pub fn simulate(
    layout: &Layout,
    cfg: &StencilConfig,
    mut failures: FailureStream<'_>,
) -> Result<RunFigures, SimError> {
    let mut s = State::new(layout, cfg);
    let total = layout.grid.tasks();
    let mut touched = Vec::new();
    loop {
        // (1) failures, with ring repair once every failed worker has stopped.
        s.failed_now.clear();
        while failures.peek() == Some(s.now) {
            let f = failures.pop().expect("peeked");
            s.f.failures += 1;
            if s.f.failures > MAX_FAILURES {
                return Err(SimError::TooManyFailures);
            }
            s.fail_worker(f.worker);
            s.failed_now.push(f.worker);
        }
        let failed = !s.failed_now.is_empty();
        if failed {
            let mut seen = Vec::new();
            touched.clear();
            for i in 0..s.failed_now.len() {
                let w = s.failed_now[i];
                if !seen.contains(&w) {
                    seen.push(w);
                    s.repair_ring(w, &mut touched);
                }
            }
            touched.sort_unstable();
            touched.dedup();
            for &x in &touched {
                s.check_secured(x);
            }
        }
        let mut first = true;
        let next = loop {
            // (2) ends of processing, (3) ends of remote copies, each by worker index.
            s.handle_ends::<RULE_PROCESSING>();
            s.handle_ends::<RULE_COPY>();
            if first && failed {
                // (4) recovery; (5) every held task goes back before idle workers take.
                match cfg.recovery {
                    Recovery::Global => s.recover_global(),
                    Recovery::Dependency => s.recover_dependency(),
                }
                // Only busy workers can wait: walking the idle bitmap's complement skips the
                // idle ones 64 at a time (a million workers on a small grid are nearly all
                // idle, and this ran at every failure). Index order, as the rules say.
                for word in 0..s.idle.len() {
                    let mut busy = !s.idle[word];
                    while busy != 0 {
                        let w = (word * 64) as u32 + busy.trailing_zeros();
                        busy &= busy - 1;
                        if w >= cfg.workers {
                            break;
                        }
                        if let Act::Waiting(_) = s.workers[w as usize].act {
                            s.stop(w);
                        }
                    }
                }
                s.ready.clear();
            }
            first = false;
            // (5) idle workers take the head of the queue; (6) ready ones start.
            // The workers woken by ends start first, as if after the takes: a take starts its
            // worker at once (see `State::take`), and neither step changes the other's.
            s.start_ready();
            s.take_idle();
            if let Some(e) = s.error.take() {
                return Err(SimError::Protocol {
                    time: s.now,
                    what: e,
                });
            }
            let next = s.next_end();
            if next != Some(s.now) {
                break next;
            }
        };
        s.f.max_copies_held = s.f.max_copies_held.max(s.copies_held);
        if cfg!(any(debug_assertions, feature = "invariants")) && total <= 4096 {
            s.check_consistency();
        }
        if s.complete == total {
            return Ok(s.finish());
        }
        // Instants of only stale entries are skipped: they would change nothing (an idle worker
        // exists only while the queue is empty). No live end left is a stall.
        let Some(next_event) = next else {
            return Err(SimError::Protocol {
                time: s.now,
                what: format!(
                    "stalled with {} of {total} tasks complete and nothing running",
                    s.complete
                ),
            });
        };
        s.now = match failures.peek() {
            Some(t) if t < next_event => t,
            _ => next_event,
        };
        // Ends are due at a saturated time when they would fall past what u64 ns count.
        if s.now == Nanos::MAX {
            return Err(SimError::TooLong);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::stencil::layout;

    const S: Nanos = 1_000_000_000;

    fn small(
        level: u32,
        checkpoint: bool,
        recovery: Recovery,
        failures: Failures,
    ) -> StencilConfig {
        StencilConfig {
            width: 4,
            rows: 4,
            workers: 2,
            level,
            checkpoint,
            recovery,
            process_cost: 10 * S,
            backup_cost: S,
            transfer_cost: S,
            failures,
            output_bytes: None,
        }
    }

    /// Before: a run longer than u64 ns can count ended at the saturated clock, 18446744073.7 s,
    /// and was reported as a makespan.
    #[test]
    fn a_run_past_584_years_is_an_error() {
        let year = 31_557_600 * S;
        let mut cfg = small(1, true, Recovery::Dependency, Failures::None);
        cfg.process_cost = 300 * year;
        let l = layout(&cfg);
        // 16 tasks on 2 workers: 8 x 300 years at the least.
        assert_eq!(
            simulate(&l, &cfg, FailureStream::None),
            Err(SimError::TooLong)
        );
        cfg.process_cost = 70 * year;
        assert!(simulate(&l, &cfg, FailureStream::None).is_ok());
    }

    /// A run's own state is a little over eight bytes a task: an eight-byte state, a requeued
    /// bit and the triangles' counts (measured: two runs at once of 2^26 tasks hold 0.52 GB,
    /// 7.8 bytes a task, more than one).
    #[test]
    fn run_bytes_are_a_little_over_eight_a_task() {
        let cfg = StencilConfig {
            width: 1 << 10,
            rows: 1 << 10,
            workers: 64,
            level: 6,
            ..small(1, true, Recovery::Global, Failures::None)
        };
        let per_task = run_bytes(&layout(&cfg), &cfg) as f64 / f64::from(1u32 << 20);
        assert!((8.0..8.5).contains(&per_task), "{per_task}");
    }

    fn run(cfg: &StencilConfig) -> RunFigures {
        let l = layout(cfg);
        let f = simulate(&l, cfg, FailureStream::new(cfg, crate::rng::run_rng(1, 0))).unwrap();
        check_accounting(cfg, &f);
        f
    }

    pub(crate) fn check_accounting(cfg: &StencilConfig, f: &RunFigures) {
        assert_eq!(f.executions, f.tasks + f.cancelled_executions);
        let split = f.useful + f.transfer + f.cancelled + f.waiting + f.checkpointing + f.idle;
        assert_eq!(split, cfg.workers as u64 * f.makespan + f.resend);
        assert_eq!(
            f.aggregate_processing,
            f.tasks * cfg.process_cost + f.cancelled
        );
        assert_eq!(f.tasks_per_worker.iter().sum::<u64>(), f.tasks);
    }

    #[test]
    fn hand_checked_failure_free_makespans() {
        assert_eq!(
            run(&small(1, true, Recovery::Global, Failures::None)).makespan,
            87 * S
        );
        assert_eq!(
            run(&small(2, true, Recovery::Global, Failures::None)).makespan,
            88 * S
        );
        assert_eq!(
            run(&small(1, false, Recovery::Global, Failures::None)).makespan,
            84 * S
        );
        let f = run(&small(1, true, Recovery::Dependency, Failures::None));
        assert_eq!(
            (f.executions, f.cancelled_executions, f.failures),
            (16, 0, 0)
        );
        assert_eq!(f.local_copies, 14);
        assert_eq!(f.remote_copies, 14);
    }

    #[test]
    fn hand_checked_failure_of_worker_one_at_five_seconds() {
        let trace = Failures::Trace(vec![TraceFailure {
            time: 5 * S,
            worker: 1,
        }]);
        let g = run(&small(1, true, Recovery::Global, trace.clone()));
        assert_eq!(
            (g.makespan, g.cancelled_executions, g.aggregate_processing),
            (92 * S, 2, 170 * S)
        );
        let d = run(&small(1, true, Recovery::Dependency, trace));
        assert_eq!(
            (d.makespan, d.cancelled_executions, d.aggregate_processing),
            (92 * S, 1, 165 * S)
        );
        assert_eq!((g.failures, d.failures), (1, 1));
    }
}

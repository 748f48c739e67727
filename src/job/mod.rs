//! Jobs: the long commands (`simulate`, `sweep`, `validate`) as one validated, serializable
//! description, run whole or in slices (shards) that `merge` puts back together.
//!
//! Every job has a number of independent items (runs or points), a way to compute the items of
//! a range, and a way to finish the command from all items in order ([`Task`]). Run whole, a job
//! computes `0..total` and finishes. Run as shard `i/N`, it computes its slice and writes a
//! shard file that carries the job itself (its validated config, serialized) and the slice's
//! items. [`merge`] rebuilds the job from that config, never from a command line, concatenates
//! the items and finishes through the same code, so the bytes are those of a single process.
//!
//! ```
//! use ckpt::failure::Lifetime;
//! use ckpt::job::{Job, SimulatePeriodic, merge};
//! use ckpt::job::shard::Shard;
//! use ckpt::progress::NoProgress;
//! use ckpt::report::Format;
//! use ckpt::report::simulate::PeriodicInputs;
//! use ckpt::sim::periodic::{Failures, PeriodicConfig};
//! let s = 1_000_000_000;
//! let config = PeriodicConfig {
//!     work: 10 * 3600 * s, interval: 3600 * s, cost: 60 * s, restart: 60 * s,
//!     failures: Failures::Platform(Lifetime::exponential(6.0 * 3600.0).unwrap()),
//!     final_checkpoint: true, walltime: None, asynchronous: None, signal_lead: None,
//! };
//! let inputs = PeriodicInputs {
//!     work_s: 36000.0, interval_s: 3600.0, cost_s: 60.0, restart_s: 60.0, mtbf_s: Some(21600.0),
//!     nodes: None, node_mtbf_s: None, partners: 0, dist: None, trace: None,
//!     trace_failures: None, final_checkpoint: true, walltime_s: None, async_write_s: None,
//!     async_slowdown: None, signal_lead_s: None, schedule_s: None,
//! };
//! let job = Job::SimulatePeriodic(SimulatePeriodic {
//!     config, inputs, runs: 40, seed: 7, format: Format::Json, args: vec![],
//! });
//! let whole = job.run(None, 1, &NoProgress).unwrap();
//! let files: Vec<(String, String)> = (0..3)
//!     .map(|i| {
//!         let shard = Shard { index: i, count: 3 };
//!         (format!("shard-{i}"), job.run(Some(shard), 1, &NoProgress).unwrap().text)
//!     })
//!     .collect();
//! assert_eq!(merge(files.into_iter().map(Ok), None).unwrap(), whole);
//! ```

mod multilevel;
mod paired;
mod renewal;
pub mod shard;
mod simulate;
mod sweep;
mod validate;

pub use multilevel::{MultilevelFormat, PatternCheck, SimulateMultilevel, ValidateMultilevel};
pub use paired::{Paired, PairedRuns};
pub use renewal::{PolicyCheck, SweepRenewal, ValidateRenewal};
pub use simulate::{
    Simulate, SimulatePeriodic, SimulateReplicated, SimulateSchedule, SimulateStencil, Simulation,
};
pub use sweep::{Sweep, SweepJob, SweepMultilevel, SweepPlan, Sweeping};
pub use validate::{AllocationCheck, ValidateAllocation, ValidateIntervals, ValidateStencil};

use crate::progress::Progress;
use crate::sim::run::Scenario;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use shard::{Shard, ShardError};
use std::ops::Range;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What a command gives its caller: text for stdout and, with a report folder, its files.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Output {
    /// Printed to stdout as is.
    pub text: String,
    /// The report folder, when the command writes one.
    pub out: Option<PathBuf>,
    /// `(file name, bytes)` for `out`.
    pub files: Vec<(String, Vec<u8>)>,
}

impl Output {
    /// Text only.
    pub fn text(text: String) -> Output {
        Output {
            text,
            ..Output::default()
        }
    }
}

/// A job that could not run or finish.
#[derive(Debug, Error)]
pub enum JobError {
    /// The periodic or replicated simulator refused its inputs or made no progress.
    #[error(transparent)]
    Sim(#[from] crate::sim::run::SimError),
    /// The stencil simulator failed.
    #[error(transparent)]
    Stencil(#[from] crate::sim::stencil::SimError),
    /// A stencil setup read back from a file that validation would have refused.
    #[error(transparent)]
    StencilConfig(#[from] crate::sim::stencil::config::ConfigError),
    /// A sweep failed.
    #[error(transparent)]
    Sweep(#[from] crate::sweep::SweepError),
    /// A validation failed.
    #[error(transparent)]
    Validate(#[from] crate::validate::ValidateError),
    /// The multi-level model refused its inputs or found no answer.
    #[error(transparent)]
    Multilevel(#[from] crate::model::multilevel::MultilevelError),
    /// A point of a multi-level sweep could not be computed.
    #[error(transparent)]
    MultilevelSweep(#[from] crate::sweep::multilevel::PointError),
    /// A point of a shape sweep (one job under renewal failures) could not be computed.
    #[error(transparent)]
    ShapeSweep(#[from] crate::sweep::renewal::ShapePointError),
    /// A report could not be drawn.
    #[error(transparent)]
    Report(#[from] crate::report::plot::ReportError),
    /// Shard files that cannot be merged.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// The job a shard file carries, which the command line would refuse as a new one (or
    /// whose results' shape cannot be found): the file was edited, its digest recomputed.
    #[error(
        "{file}: its job would be refused on the command line ({source}): the file was edited or damaged"
    )]
    Edited {
        /// The file, as named.
        file: String,
        /// Why the job is refused.
        source: Box<JobError>,
    },
}

/// The part of a job one process computes: its items, on how many threads, and a tick per
/// finished item.
pub struct Slice<'a> {
    /// The items (runs or points) to compute.
    pub range: Range<u64>,
    /// Worker threads (0: all cores); the results do not depend on it.
    pub threads: usize,
    /// Called once per finished item, from any thread.
    pub tick: &'a (dyn Fn() + Sync),
}

/// A check of one item read back from a shard file, given the job's first item too
/// ([`Task::item_check`]).
pub type ItemCheck<'a, T> = Box<dyn Fn(&T, &T) -> Result<(), String> + 'a>;

/// One shardable command: its items and how to finish from them.
pub trait Task {
    /// One item's result, as shard files carry it.
    type Item: Serialize + DeserializeOwned + Send;
    /// What a progress display says.
    const LABEL: &'static str;
    /// Items in all.
    fn total(&self) -> u64;
    /// The memory one item's result holds until [`Task::finish`], where every item of the job
    /// is held at once (in one process, or in the merge of its shards).
    fn item_bytes(&self) -> Result<u64, JobError> {
        Ok(std::mem::size_of::<Self::Item>() as u64)
    }
    /// The check of the items read back from shard files against the job: a hand-edited file
    /// with a recomputed digest could carry any shape (a stride per level too many, a model row
    /// less), which the report must never index out of nor silently read as something else.
    /// Made once per merge (it may compute what every item must hold, such as a validation's
    /// count of intervals), it is given each item and the job's first item, and its `Err` says
    /// what does not match.
    fn item_check(&self) -> Result<ItemCheck<'_, Self::Item>, JobError> {
        Ok(Box::new(|_, _| Ok(())))
    }
    /// The items of the slice, in order.
    fn compute(&self, slice: &Slice) -> Result<Vec<Self::Item>, JobError>;
    /// The command's output from every item, in order.
    fn finish(&self, items: Vec<Self::Item>) -> Result<Output, JobError>;
}

/// Declares [`Job`] and `with_task!` from one list of the shardable commands, so that adding a
/// command is one line here and every dispatch over the jobs follows. (`$d` is a `$` passed in,
/// which lets this macro write the inner macro's own metavariables.)
macro_rules! jobs {
    ($d:tt $($(#[$doc:meta])* $variant:ident($task:ty),)*) => {
        /// Every shardable command, validated. The serialized form is what a shard file carries.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "command", rename_all = "kebab-case")]
        #[allow(clippy::large_enum_variant)]
        pub enum Job {
            $($(#[$doc])* $variant($task),)*
        }

        /// Calls `$body` with `$t` bound to the job's [`Task`].
        macro_rules! with_task {
            ($d job:expr, $d t:ident => $d body:expr) => {
                match $d job {
                    $(Job::$variant($d t) => $d body,)*
                }
            };
        }
    };
}

jobs! { $
    /// `ckpt simulate periodic`.
    SimulatePeriodic(SimulatePeriodic),
    /// `ckpt simulate replicated`.
    SimulateReplicated(SimulateReplicated),
    /// `ckpt simulate stencil`.
    SimulateStencil(SimulateStencil),
    /// `ckpt sweep`.
    Sweep(SweepJob),
    /// `ckpt validate` against the periodic or replicated simulator.
    ValidateIntervals(ValidateIntervals),
    /// `ckpt validate --sim stencil`.
    ValidateStencil(ValidateStencil),
    /// `ckpt simulate multilevel`.
    SimulateMultilevel(SimulateMultilevel),
    /// `ckpt simulate periodic --schedule ...`.
    SimulateSchedule(SimulateSchedule),
    /// `ckpt validate --level ...`.
    ValidateMultilevel(ValidateMultilevel),
    /// `ckpt sweep --level ...`.
    SweepMultilevel(SweepMultilevel),
    /// `ckpt validate --dist ...` for one job.
    ValidateRenewal(ValidateRenewal),
    /// `ckpt sweep --dist FAMILY:K --vary shape=LO..HI`.
    SweepRenewal(SweepRenewal),
    /// `ckpt validate --walltime ...`.
    ValidateAllocation(ValidateAllocation),
}

impl Job {
    /// Runs the job whole, or with `shard` only its slice, whose output is then the shard file.
    pub fn run(
        &self,
        shard: Option<Shard>,
        threads: usize,
        progress: &dyn Progress,
    ) -> Result<Output, JobError> {
        with_task!(self, t => run_task(self, t, shard, threads, progress))
    }

    /// Items in all (runs or points).
    pub fn total(&self) -> u64 {
        with_task!(self, t => t.total())
    }

    /// The command line (after `ckpt`, canonical) the job was made from, for messages and the
    /// report's quote; never parsed again.
    pub fn args(&self) -> &[String] {
        match self {
            Job::SimulatePeriodic(t) => &t.args,
            Job::SimulateReplicated(t) => &t.args,
            Job::SimulateStencil(t) => &t.args,
            Job::Sweep(t) => &t.args,
            Job::ValidateIntervals(t) => &t.report.args,
            Job::ValidateStencil(t) => &t.report.args,
            Job::SimulateMultilevel(t) => &t.args,
            Job::SimulateSchedule(t) => &t.args,
            Job::ValidateMultilevel(t) => &t.report.args,
            Job::SweepMultilevel(t) => &t.args,
            Job::ValidateRenewal(t) => &t.report.args,
            Job::SweepRenewal(t) => &t.args,
            Job::ValidateAllocation(t) => &t.report.args,
        }
    }

    /// The report folder, if the command writes one.
    pub fn out(&self) -> Option<&Path> {
        match self {
            Job::Sweep(t) => Some(&t.out),
            Job::ValidateIntervals(t) => t.report.out.as_deref(),
            Job::ValidateStencil(t) => t.report.out.as_deref(),
            Job::ValidateMultilevel(t) => t.report.out.as_deref(),
            Job::SweepMultilevel(t) => Some(&t.out),
            Job::ValidateRenewal(t) => t.report.out.as_deref(),
            Job::SweepRenewal(t) => Some(&t.out),
            Job::ValidateAllocation(t) => t.report.out.as_deref(),
            _ => None,
        }
    }

    /// The same job writing its report to `out` instead; `None` for a command that writes no
    /// report folder.
    pub fn with_out(mut self, out: &Path) -> Option<Job> {
        match &mut self {
            Job::Sweep(t) => t.redirect(out),
            Job::ValidateIntervals(t) => t.report.redirect(out),
            Job::ValidateStencil(t) => t.report.redirect(out),
            Job::ValidateMultilevel(t) => t.report.redirect(out),
            Job::SweepMultilevel(t) => t.redirect(out),
            Job::ValidateRenewal(t) => t.report.redirect(out),
            Job::SweepRenewal(t) => t.redirect(out),
            Job::ValidateAllocation(t) => t.report.redirect(out),
            _ => return None,
        }
        Some(self)
    }

    /// Refuses a job whose results would not fit in memory together when it finishes: checked
    /// before any item is computed, for a slice as for the whole job, since the merge of the
    /// shards holds every slice's results.
    fn check_held(&self) -> Result<(), JobError> {
        with_task!(self, t => {
            crate::sim::run::check_results(t.total(), t.item_bytes()?)?;
            Ok(())
        })
    }

    /// Checks a job read back from a file as the command-line path checks a new one, so that a
    /// hand-edited shard cannot carry inputs the validation would refuse.
    fn check(&self) -> Result<(), JobError> {
        match self {
            Job::SimulatePeriodic(t) => t.config.validate()?,
            Job::SimulateReplicated(t) => t.config.validate()?,
            Job::Sweep(t) => crate::sweep::check(&t.sweep.inputs, &t.sweep.spec)?,
            Job::SimulateStencil(t) => t.config.check()?,
            Job::ValidateStencil(t) => {
                t.config.check()?;
                crate::validate::stencil::check_job(&t.config, t.runs)?;
            }
            Job::ValidateIntervals(t) => {
                crate::validate::interval_count(&t.inputs, t.sim, &t.options)?;
            }
            Job::SimulateMultilevel(t) => t.config.validate()?,
            Job::SimulateSchedule(t) => t.config.validate()?,
            Job::ValidateMultilevel(t) => t.setup.check()?,
            Job::SweepMultilevel(t) => {
                crate::sweep::multilevel::check(&t.sweep)?;
                for v in [t.sweep.range.lo, t.sweep.range.hi] {
                    t.sweep.levels_at(v)?;
                }
            }
            Job::ValidateRenewal(t) => t.setup.check()?,
            Job::ValidateAllocation(t) => t.setup.check()?,
            Job::SweepRenewal(t) => {
                t.sweep.range.check_points()?;
                let (lo, hi) = (t.sweep.range.lo, t.sweep.range.hi);
                if !t.sweep.range.ends_ok(false) {
                    return Err(crate::sweep::renewal::ShapePointError {
                        dist: t.sweep.family().to_string(),
                        source: crate::model::ModelError::Parameter {
                            name: "shape",
                            value: lo,
                            accepted: "a range 0 < LO < HI",
                        },
                    }
                    .into());
                }
                for v in [lo, hi] {
                    t.sweep
                        .job_at(v)
                        .map_err(|source| crate::sweep::renewal::ShapePointError {
                            dist: t.sweep.family().to_string(),
                            source,
                        })?;
                }
            }
        }
        Ok(())
    }
}

/// Reports with an optional folder: the format and the command line that report.md quotes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reporting {
    /// Table or JSON on stdout.
    pub format: crate::report::Format,
    /// The report folder, if asked for.
    pub out: Option<PathBuf>,
    /// The command line after `ckpt`, canonical.
    pub args: Vec<String>,
}

impl Reporting {
    fn redirect(&mut self, out: &Path) {
        self.args = args_with_out(&self.args, out);
        self.out = Some(out.to_path_buf());
    }

    /// The command line as report.md quotes it.
    pub fn command(&self) -> String {
        command_line(&self.args)
    }
}

/// `ckpt` and `args`, as reports quote a command.
pub fn command_line(args: &[String]) -> String {
    format!("ckpt {}", args.join(" "))
}

/// `args` with its `--out` replaced by `out` in place (or `--out out` added at the end): the
/// command line a merged report quotes when the merge moves the folder.
fn args_with_out(args: &[String], out: &Path) -> Vec<String> {
    let out = out.display().to_string();
    let mut v = Vec::new();
    let mut replaced = false;
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
            continue;
        }
        if a == "--out" || a.starts_with("--out=") {
            skip = a == "--out";
            if !replaced {
                v.push("--out".to_string());
                v.push(out.clone());
                replaced = true;
            }
            continue;
        }
        v.push(a.clone());
    }
    if !replaced {
        v.push("--out".into());
        v.push(out);
    }
    v
}

fn run_task<T: Task>(
    job: &Job,
    task: &T,
    shard: Option<Shard>,
    threads: usize,
    progress: &dyn Progress,
) -> Result<Output, JobError> {
    job.check_held()?;
    let total = task.total();
    let range = shard.map_or(0..total, |s| s.range(total));
    progress.start(T::LABEL, range.end - range.start);
    let items = task.compute(&Slice {
        range,
        threads,
        tick: &|| progress.tick(),
    });
    progress.finish();
    let items = items?;
    match shard {
        None => task.finish(items),
        Some(s) => Ok(Output::text(shard::to_json(job, s, total, &items))),
    }
}

fn finish_task<T: Task>(
    task: &T,
    first: (String, &shard::Header, String),
    rest: impl Iterator<Item = Result<(String, String), ShardError>>,
) -> Result<Output, JobError> {
    let (name, header, text) = first;
    // What every result must hold, from the job (checked already): only an edited job that the
    // checks let through could make it fail, so the file is named.
    let check = task.item_check().map_err(|e| JobError::Edited {
        file: name.clone(),
        source: Box::new(e),
    })?;
    let mut gathered = shard::Gathered::<T::Item>::new(name, header, &text)?;
    drop(text);
    for file in rest {
        let (name, text) = file?;
        gathered.add(&name, &text)?;
    }
    task.finish(gathered.results(check)?)
}

/// Checks that `files` (name, text) are all the slices of one job, and finishes it as one
/// process would; with `out`, its report goes to that folder instead of the recorded one.
///
/// Each file is read when the merge comes to it and its text dropped once its results are
/// taken, so a merge holds the results and one file's text, not every file's.
pub fn merge<I>(files: I, out: Option<&Path>) -> Result<Output, JobError>
where
    I: IntoIterator<Item = Result<(String, String), ShardError>>,
{
    let mut files = files.into_iter();
    let (name, text) = files.next().ok_or(ShardError::Empty)??;
    let header = shard::header(&name, &text)?;
    let job = header.job.clone();
    let edited = |e: JobError| match e {
        e @ (JobError::Shard(_) | JobError::Edited { .. }) => e,
        e => JobError::Edited {
            file: name.clone(),
            source: Box::new(e),
        },
    };
    // Checked before anything asks the job for its size: an edited one could be any size.
    job.check().map_err(edited)?;
    if header.total != job.total() {
        return Err(ShardError::NotShard {
            file: name.clone(),
            why: format!(
                "it says {} results in all, its job has {}: the file was edited or damaged",
                header.total,
                job.total()
            ),
        }
        .into());
    }
    job.check_held().map_err(edited)?;
    let job = match out {
        None => job,
        Some(dir) => job
            .with_out(dir)
            .ok_or_else(|| ShardError::NoReportFolder { file: name.clone() })?,
    };
    with_task!(&job, t => finish_task(t, (name, &header, text), files))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shard set whose results could not be held together is refused from its first file's
    /// job, before any results are read (this one has none at all).
    #[test]
    fn a_merge_that_could_not_hold_its_results_is_refused_before_reading_them() {
        use crate::sim::periodic::PeriodicRun;
        let Job::SimulatePeriodic(mut t) = shard::tests::job(1) else {
            unreachable!()
        };
        t.runs = 1 << 40;
        let job = Job::SimulatePeriodic(t);
        let text = shard::to_json(
            &job,
            Shard { index: 0, count: 1 },
            1 << 40,
            &[] as &[PeriodicRun],
        );
        // No command line writes such a shard: the file is named as edited.
        match merge([Ok(("s.json".to_string(), text))], None) {
            Err(JobError::Edited { file, source }) => {
                assert_eq!(file, "s.json");
                match *source {
                    JobError::Sim(crate::sim::run::SimError::Invalid { field, value, .. }) => {
                        assert_eq!((field, value.as_str()), ("runs", "1099511627776"));
                    }
                    other => panic!("{other}"),
                }
            }
            other => panic!("{:?}", other.map(|o| o.text)),
        }
    }

    #[test]
    fn out_is_replaced() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let c = Path::new("c");
        assert_eq!(
            args_with_out(&args(&["sweep", "--out", "a", "--log", "--out=b"]), c),
            ["sweep", "--out", "c", "--log"]
        );
        assert_eq!(
            args_with_out(&args(&["validate", "--log"]), c),
            ["validate", "--log", "--out", "c"]
        );
    }
}

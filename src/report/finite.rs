//! The finite-job answers of `ckpt interval` (`--work`, `--walltime`, `--async-write`): the
//! whole-chunk optimum, the allocation's schedule, the lines a Slurm batch script takes
//! (`--format slurm`), and the echo of the asynchronous inputs. Pure functions of the model's
//! results; `docs/models.md` §9-§11.

use super::table::plain_seconds;
use crate::interval::IntervalInputs;
use crate::model::allocation::{AllocationPlan, IterationPlan};
use crate::model::chunks::WholeChunks;
use crate::units::{format_duration, whole_seconds};
use serde::Serialize;

/// The finite-job inputs as the `inputs` object echoes them (absent when not given, so that
/// other answers keep their bytes).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FiniteInputsJson {
    /// `--async-write` (s).
    pub async_write_s: Option<f64>,
    /// `--async-slowdown`.
    pub async_slowdown: Option<f64>,
    /// `--walltime` (s).
    pub walltime_s: Option<f64>,
    /// `--signal-margin` (s).
    pub signal_margin_s: Option<f64>,
}

impl FiniteInputsJson {
    /// The echo of `i`'s finite-job settings.
    pub fn of(i: &IntervalInputs) -> FiniteInputsJson {
        FiniteInputsJson {
            async_write_s: i.asynchronous.map(|a| a.write_s),
            async_slowdown: i.asynchronous.map(|a| a.slowdown),
            walltime_s: i.allocation.map(|a| a.walltime_s),
            signal_margin_s: i.allocation.map(|a| a.signal_margin_s),
        }
    }
}

/// The table's lines on asynchronous checkpoints (empty without them): what the rows mean.
pub fn async_lines(i: &IntervalInputs) -> String {
    let Some(a) = i.asynchronous else {
        return String::new();
    };
    format!(
        "asynchronous checkpoints: the {} snapshot stalls the job, then a {} background write{} makes it durable\n\
         the synchronous rows answer for a checkpoint blocking {} (snapshot and write); every overhead is async-complete's\n\n",
        format_duration(i.cost),
        format_duration(a.write_s),
        if a.slowdown > 0.0 {
            format!(" (the job slowed by F = {} meanwhile)", a.slowdown)
        } else {
            String::new()
        },
        format_duration(i.cost + a.write_s)
    )
}

/// JSON `whole_chunks`: the optimal whole number of chunks of `--work`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WholeChunksJson {
    /// Number of chunks, each ending with a checkpoint.
    pub count: u64,
    /// Work per chunk (s).
    pub interval_s: f64,
    /// Expected completion time (s).
    pub completion_s: f64,
    /// Its standard deviation (s; `null` where the model gives none).
    pub completion_sd_s: Option<f64>,
}

/// JSON `allocation`: the schedule for `--walltime`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AllocationJson {
    /// Checkpoints of the failure-free schedule, the signal's included.
    pub checkpoints: u64,
    /// Work between checkpoints (s).
    pub interval_s: f64,
    /// Expected work checkpointed by the limit (s).
    pub expected_saved_work_s: f64,
    /// The signal's lead before the limit (whole seconds).
    pub signal_lead_s: u64,
    /// The `#SBATCH` line that asks for the signal.
    pub sbatch: String,
    /// With `--iteration-time`: the best interval of whole iterations (absent otherwise, so
    /// that other answers keep their bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<IterationPlanJson>,
}

/// JSON `allocation.iterations`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IterationPlanJson {
    /// Iterations between checkpoints.
    pub iterations: u64,
    /// The interval (s).
    pub interval_s: f64,
    /// Expected work checkpointed by the limit (s).
    pub expected_saved_work_s: f64,
    /// Work saved less than at the allocation's plan, in percent (0 or more).
    pub loss_pct: f64,
}

/// The `allocation.iterations` object of `it` against the allocation's plan `p`.
pub fn iteration_plan_json(it: &IterationPlan, p: &AllocationPlan) -> IterationPlanJson {
    IterationPlanJson {
        iterations: it.iterations,
        interval_s: it.interval,
        expected_saved_work_s: it.expected_saved_work,
        loss_pct: saved_loss_pct(p.expected_saved_work, it.expected_saved_work),
    }
}

/// Percent of the saved work `best` that `other` saves less, 0 where it saves as much or more
/// (an allocation's alternatives are on grids of their own, and a search over aligned counts
/// can be beaten within the grid's error).
pub(super) fn saved_loss_pct(best: f64, other: f64) -> f64 {
    if best > 0.0 {
        (100.0 * (best - other) / best).max(0.0)
    } else {
        0.0
    }
}

/// The table line for the whole iterations of an allocation.
pub fn iteration_plan_line(it: &IterationPlan, p: &AllocationPlan) -> String {
    format!(
        "in the allocation, in whole iterations: every {} iterations ({}), expected work saved {} ({:.0} s), {} less\n",
        it.iterations,
        format_duration(it.interval),
        format_duration(it.expected_saved_work),
        it.expected_saved_work,
        super::table::percent(saved_loss_pct(
            p.expected_saved_work,
            it.expected_saved_work
        )),
    )
}

/// The `whole_chunks` object.
pub fn whole_chunks_json(w: &WholeChunks) -> WholeChunksJson {
    WholeChunksJson {
        count: w.count,
        interval_s: w.interval,
        completion_s: w.completion,
        completion_sd_s: w.completion_sd,
    }
}

/// The lead in whole seconds (the model already rounds it up; this only changes the type).
fn lead_seconds(lead: f64) -> u64 {
    lead.ceil().max(0.0) as u64
}

/// `#SBATCH --signal=B:USR1@<lead>`: Slurm sends SIGUSR1 to the batch shell `lead` seconds
/// before the limit.
pub fn sbatch_line(signal_lead_s: f64) -> String {
    format!("#SBATCH --signal=B:USR1@{}", lead_seconds(signal_lead_s))
}

/// The `allocation` object.
pub fn allocation_json(p: &AllocationPlan) -> AllocationJson {
    AllocationJson {
        checkpoints: p.checkpoints,
        interval_s: p.interval,
        expected_saved_work_s: p.expected_saved_work,
        signal_lead_s: lead_seconds(p.signal_lead),
        sbatch: sbatch_line(p.signal_lead),
        iterations: None,
    }
}

/// The table line for the whole chunks of `work` seconds.
pub fn whole_chunks_line(w: &WholeChunks, work: f64) -> String {
    format!(
        "in whole chunks: {} chunks of {} ({} s) for {} of work; expected completion {} ({:.0} s){}\n",
        w.count,
        format_duration(w.interval),
        plain_seconds(w.interval),
        format_duration(work),
        format_duration(w.completion),
        w.completion,
        w.completion_sd.map_or_else(String::new, |sd| format!(
            ", standard deviation {} ({sd:.0} s)",
            format_duration(sd)
        ))
    )
}

/// The table lines for an allocation of `walltime` seconds.
pub fn allocation_lines(p: &AllocationPlan, walltime: f64) -> String {
    format!(
        "in an allocation of {}: {} checkpoints, every {} ({} s) of work; expected work saved {} ({:.0} s, {:.1}% of the allocation)\n\
         signal {} s before the limit (covers one checkpoint): {}\n",
        format_duration(walltime),
        p.checkpoints,
        format_duration(p.interval),
        plain_seconds(p.interval),
        format_duration(p.expected_saved_work),
        p.expected_saved_work,
        100.0 * p.expected_saved_work / walltime,
        lead_seconds(p.signal_lead),
        sbatch_line(p.signal_lead)
    )
}

/// `--format slurm`: the `#SBATCH` signal line and `CKPT_INTERVAL_SECONDS=` (the interval to
/// the nearest second, at least 1), for a batch script whose application checkpoints every
/// interval and on SIGUSR1.
pub fn slurm(interval_s: f64, signal_lead_s: f64) -> String {
    format!(
        "{}\nCKPT_INTERVAL_SECONDS={}\n",
        sbatch_line(signal_lead_s),
        whole_seconds(interval_s)
    )
}

/// `--format env` with `--walltime`: `CKPT_INTERVAL_SECONDS=` the allocation's interval (as
/// `slurm` gives it) and `CKPT_SIGNAL_LEAD_SECONDS=` the lead that `#SBATCH --signal` takes,
/// for `eval` in a batch script that writes its own `#SBATCH` lines.
pub fn env(interval_s: f64, signal_lead_s: f64) -> String {
    format!(
        "CKPT_INTERVAL_SECONDS={}\nCKPT_SIGNAL_LEAD_SECONDS={}\n",
        whole_seconds(interval_s),
        lead_seconds(signal_lead_s)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> AllocationPlan {
        AllocationPlan {
            checkpoints: 12,
            interval: 3466.4,
            expected_saved_work: 35_000.25,
            signal_lead: 120.0,
        }
    }

    #[test]
    fn whole_chunks_object_and_line() {
        let w = WholeChunks {
            count: 88,
            interval: 9818.181818181818,
            completion: 981_835.860_9,
            completion_sd: Some(17_654.4),
            continuous_count: 88.29,
        };
        let json = serde_json::to_string(&whole_chunks_json(&w)).unwrap();
        assert_eq!(
            json,
            r#"{"count":88,"interval_s":9818.181818181818,"completion_s":981835.8609,"completion_sd_s":17654.4}"#
        );
        let line = whole_chunks_line(&w, 864_000.0);
        assert!(line.starts_with("in whole chunks: 88 chunks of "), "{line}");
        assert!(
            line.contains("(9818 s)")
                && line.contains("(981836 s), standard deviation 4h 54m 14s (17654 s)"),
            "{line}"
        );
        assert!(line.ends_with('\n') && line.lines().count() == 1);
    }

    #[test]
    fn allocation_object_and_lines() {
        let json = serde_json::to_value(allocation_json(&plan())).unwrap();
        assert_eq!(json["checkpoints"], 12);
        assert_eq!(json["interval_s"], 3466.4);
        assert_eq!(json["expected_saved_work_s"], 35_000.25);
        assert_eq!(json["signal_lead_s"], 120);
        assert_eq!(json["sbatch"], "#SBATCH --signal=B:USR1@120");
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 5);
        let lines = allocation_lines(&plan(), 43_200.0);
        assert_eq!(lines.lines().count(), 2, "{lines}");
        assert!(
            lines.contains("12 checkpoints") && lines.contains("(3466 s)"),
            "{lines}"
        );
        assert!(
            lines.contains("(35000 s, 81.0% of the allocation)"),
            "{lines}"
        );
        assert!(lines.contains("signal 120 s before the limit"), "{lines}");
    }

    #[test]
    fn env_lines_are_the_slurm_lines_values() {
        assert_eq!(
            env(3466.4, 120.0),
            "CKPT_INTERVAL_SECONDS=3466\nCKPT_SIGNAL_LEAD_SECONDS=120\n"
        );
        assert_eq!(
            env(0.2, 60.2),
            "CKPT_INTERVAL_SECONDS=1\nCKPT_SIGNAL_LEAD_SECONDS=61\n"
        );
    }

    #[test]
    fn slurm_lines() {
        assert_eq!(
            slurm(3466.4, 120.0),
            "#SBATCH --signal=B:USR1@120\nCKPT_INTERVAL_SECONDS=3466\n"
        );
        // A lead is never rounded down below the checkpoint; an interval never to 0.
        assert_eq!(sbatch_line(60.2), "#SBATCH --signal=B:USR1@61");
        assert!(slurm(0.2, 1.0).ends_with("CKPT_INTERVAL_SECONDS=1\n"));
    }
}

//! The finite-job flags (`docs/models.md` §9-§11): asynchronous checkpoints for `interval`,
//! `validate` and `simulate periodic`, and the fixed allocation of `interval --walltime` and
//! `simulate periodic --walltime --signal-lead`. Validated here into the library's inputs.

use super::CliError;
use super::parse::{duration, duration0};
use ckpt::finite::{AllocationInputs, AsyncInputs};
use ckpt::interval::IntervalInputs;
use ckpt::model::ModelError;
use ckpt::model::allocation::MAX_SIGNAL_LEAD;
use clap::Args;

/// `--async-slowdown`: a fraction in `[0, 1)`.
pub fn slowdown(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` must be the fraction of speed lost while writing, at least 0 and below 1"
        )),
    }
}

/// `--async-write`: a duration of zero or more, with a plain word for a negative one.
pub fn write_time(s: &str) -> Result<f64, String> {
    if s.trim().starts_with('-') {
        return Err(format!(
            "`{s}` is negative: the background write takes a duration of zero or more"
        ));
    }
    duration0(s)
}

/// Asynchronous checkpoints: `--cost` is the snapshot's stall, then a background write.
#[derive(Debug, Clone, Default, Args)]
pub struct AsyncArgs {
    /// Asynchronous checkpoints: after the --cost snapshot, a background write of this long
    /// (e.g. 10m); the checkpoint is durable only when it ends (docs/models.md §11, simulated as
    /// docs/simulation.md §1 says).
    #[arg(long, value_name = "DURATION", value_parser = write_time)]
    pub async_write: Option<f64>,
    /// With --async-write: the fraction of speed the job loses while a write runs, 0 <= F < 1
    /// (default 0).
    #[arg(long, value_name = "F", value_parser = slowdown)]
    pub async_slowdown: Option<f64>,
}

impl AsyncArgs {
    /// The asynchronous inputs, `None` without `--async-write`.
    pub fn inputs(&self) -> Result<Option<AsyncInputs>, CliError> {
        let pair = needs(
            self.async_write,
            self.async_slowdown,
            "--async-slowdown needs --async-write (the background write it slows the job during)",
        )?;
        Ok(pair.map(|(write_s, slowdown)| AsyncInputs { write_s, slowdown }))
    }
}

/// `interval --walltime`: the schedule of a fixed allocation.
#[derive(Debug, Clone, Default, Args)]
pub struct AllocationArgs {
    /// A fixed allocation (batch wall-time limit, e.g. 24h): the schedule that saves the most
    /// work by its end, and the lead of Slurm's --signal (docs/models.md §10; with --dist for
    /// one job, under those failures, §10.1).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub walltime: Option<f64>,
    /// With --walltime: added to the checkpoint cost before the signal's lead is rounded up to
    /// a second (Slurm may signal up to a minute early; default 0).
    #[arg(long, value_name = "DURATION", value_parser = duration0)]
    pub signal_margin: Option<f64>,
}

impl AllocationArgs {
    /// The allocation, `None` without `--walltime`.
    pub fn inputs(&self) -> Result<Option<AllocationInputs>, CliError> {
        let pair = needs(
            self.walltime,
            self.signal_margin,
            "--signal-margin needs --walltime (the allocation whose signal it delays)",
        )?;
        Ok(pair.map(|(walltime_s, signal_margin_s)| AllocationInputs {
            walltime_s,
            signal_margin_s,
        }))
    }
}

/// A flag and the one that qualifies it (0 when not given): `None` without the first, refused
/// (`conflict`) when only the second is given.
fn needs(
    main: Option<f64>,
    qualifier: Option<f64>,
    conflict: &str,
) -> Result<Option<(f64, f64)>, CliError> {
    match (main, qualifier) {
        (None, Some(_)) => Err(CliError::Conflict(conflict.into())),
        (None, None) => Ok(None),
        (Some(v), q) => Ok(Some((v, q.unwrap_or(0.0)))),
    }
}

/// Adds the finite-job settings to `inputs` and checks them against the rest, so that a bad
/// combination or value gets one line naming its flag before any work.
pub fn apply(
    inputs: &mut IntervalInputs,
    asynchronous: Option<AsyncInputs>,
    allocation: Option<AllocationInputs>,
) -> Result<(), CliError> {
    if (asynchronous.is_some() || allocation.is_some()) && inputs.replication.is_some() {
        return Err(CliError::Conflict(
            "--async-write and --walltime model one coordinated job: drop --procs/--replicas"
                .into(),
        ));
    }
    if asynchronous.is_some() && allocation.is_some() {
        return Err(CliError::Conflict(
            "--async-write does not combine with --walltime: asynchronous checkpoints inside an allocation are not modelled".into(),
        ));
    }
    if let Some(a) = allocation {
        check_allocation(inputs, a)?;
    }
    inputs.asynchronous = asynchronous;
    inputs.allocation = allocation;
    Ok(())
}

/// A value in seconds as a refusal quotes it.
pub(super) fn seconds(v: f64) -> String {
    format!("{}s", ckpt::text::number(v))
}

fn check_allocation(inputs: &IntervalInputs, a: AllocationInputs) -> Result<(), CliError> {
    check_limit(inputs.cost, a)?;
    // Whatever else the model refuses, in its own words.
    a.model(inputs).map(|_| ()).map_err(allocation_refusal)
}

/// The allocation's own flags against the checkpoint `cost`, whatever the failures: Slurm's
/// longest lead and an allocation longer than the lead, each naming its flag.
pub fn check_limit(cost: f64, a: AllocationInputs) -> Result<(), CliError> {
    let lead = (cost + a.signal_margin_s).ceil();
    // The cost alone past Slurm's limit is the cost's fault, margin or not.
    if cost.ceil() > MAX_SIGNAL_LEAD {
        return Err(CliError::Invalid {
            arg: "--cost",
            value: seconds(cost),
            accepted: "with --walltime, a checkpoint of at most 65535 s: the signal's lead covers one checkpoint, and Slurm's longest lead is 65535 s".to_string(),
        });
    }
    if lead > MAX_SIGNAL_LEAD {
        return Err(CliError::Invalid {
            arg: "--signal-margin",
            value: seconds(a.signal_margin_s),
            accepted: format!(
                "a margin that keeps the signal's lead (the cost plus the margin, {lead} s) at most Slurm's 65535 s"
            ),
        });
    }
    if a.walltime_s <= lead {
        return Err(CliError::Invalid {
            arg: "--walltime",
            value: seconds(a.walltime_s),
            accepted: format!(
                "an allocation longer than one checkpoint: the signal's lead of {lead} s (the checkpoint cost plus --signal-margin, rounded up to a second)"
            ),
        });
    }
    Ok(())
}

/// An allocation model's refusal as the flag it names.
pub fn allocation_refusal(e: ModelError) -> CliError {
    let arg = match &e {
        ModelError::Parameter { name, value, .. } => match *name {
            "walltime" => Some(("--walltime", *value)),
            "cost" => Some(("--cost", *value)),
            "mtbf" => Some(("--mtbf", *value)),
            "restart" => Some(("--restart", *value)),
            "downtime" => Some(("--downtime", *value)),
            "signal-margin" => Some(("--signal-margin", *value)),
            _ => None,
        },
        _ => None,
    };
    match arg {
        Some((arg, value)) => CliError::Invalid {
            arg,
            value: seconds(value),
            accepted: e.to_string(),
        },
        None => CliError::Conflict(e.to_string()),
    }
}

/// `ckpt validate --walltime ...`, validated into its job: the allocation's plan (§10, or
/// §10.1 with `--dist`), the long-run models' intervals and a grid around the plan, all run in
/// the allocation; `argv` is the canonical command line after `ckpt`.
pub fn validate_job(
    args: &super::validate::ValidateArgs,
    argv: &[String],
) -> Result<ckpt::job::ValidateAllocation, CliError> {
    use ckpt::interval::IntervalError;
    use ckpt::validate::ValidateError;
    use ckpt::validate::allocation::{AllocationCheck, AllocationValidateOptions};
    let Some(allocation) = args.allocation.inputs()? else {
        return Err(CliError::Conflict(
            "--signal-margin needs --walltime (the allocation whose signal it delays)".into(),
        ));
    };
    let m = &args.model;
    if m.levels.given() || m.procs.is_some() || m.replicas.is_some() {
        return Err(CliError::Conflict(
            "--walltime validates one coordinated job in an allocation: drop --level and --procs/--replicas".into(),
        ));
    }
    if args.asynchronous.async_write.is_some() || args.asynchronous.async_slowdown.is_some() {
        return Err(CliError::Conflict(
            "--async-write does not combine with --walltime: asynchronous checkpoints inside an allocation are not modelled".into(),
        ));
    }
    let periodic = matches!(args.sim, None | Some(super::validate::SimArg::Periodic));
    if !periodic || args.config.is_some() || args.aging || args.heartbeat.is_some() {
        return Err(CliError::Conflict(
            "--walltime runs the periodic simulator in the allocation: drop --sim, --config, --aging and --heartbeat".into(),
        ));
    }
    if args.work.is_some() {
        return Err(CliError::Conflict(
            "--work does not apply with --walltime: each run works until the allocation's signal"
                .into(),
        ));
    }
    let (inputs, life) = match m.dist {
        Some(shape) => {
            let mtbf = super::renewal::model_checks(m)?;
            let (_, job) = super::renewal::model_job(m, shape, mtbf)?;
            check_limit(job.cost(), allocation)?;
            let mut inputs = IntervalInputs::single(mtbf, job.cost(), job.restart());
            inputs.allocation = Some(allocation);
            (inputs, Some(job.life()))
        }
        None => {
            let mut inputs = m.inputs()?;
            apply(&mut inputs, None, Some(allocation))?;
            (inputs, None)
        }
    };
    let options = AllocationValidateOptions {
        runs: args.runs.unwrap_or(1000),
        seed: args.seed.unwrap_or(super::DEFAULT_SEED),
        grid_points: args.points.unwrap_or(super::validate::DEFAULT_POINTS),
    };
    let setup = AllocationCheck::new(inputs, life, options).map_err(|e| match e {
        ValidateError::Interval(IntervalError::Model(e)) => allocation_refusal(e),
        e => super::validate::validate_error(e),
    })?;
    Ok(ckpt::job::ValidateAllocation {
        setup,
        report: ckpt::job::Reporting {
            format: args.format.into(),
            out: args.out.clone(),
            args: argv.to_vec(),
        },
    })
}

/// `simulate periodic`: asynchronous checkpoints and the allocation mode.
#[derive(Debug, Clone, Default, Args)]
pub struct SimFiniteArgs {
    /// Asynchronous checkpoints.
    #[command(flatten)]
    pub asynchronous: AsyncArgs,
    /// Allocation mode (with --walltime, then a hard limit): this long before the limit the job
    /// checkpoints what it holds and stops, as on Slurm's --signal=B:USR1@LEAD; reports the
    /// work saved. At least one checkpoint (--cost).
    #[arg(long, value_name = "DURATION", value_parser = super::parse::nanos)]
    pub signal_lead: Option<ckpt::units::Nanos>,
}

impl SimFiniteArgs {
    /// Sets the asynchronous write and the signal lead on `cfg` and echoes them in `inputs`.
    /// The simulator's own validation checks them against the rest (e.g. a lead below the
    /// checkpoint cost).
    pub fn apply(
        &self,
        cfg: &mut ckpt::sim::periodic::PeriodicConfig,
        inputs: &mut ckpt::report::simulate::PeriodicInputs,
    ) -> Result<(), CliError> {
        use ckpt::units::ns_to_secs;
        if let Some(a) = self.asynchronous.inputs()? {
            let write = ckpt::sim::periodic::AsyncWrite::new(a.write_s, a.slowdown)
                .map_err(super::simulate::sim_error)?;
            cfg.asynchronous = Some(write);
            inputs.async_write_s = Some(ns_to_secs(write.write));
            inputs.async_slowdown = Some(a.slowdown);
        }
        if let Some(lead) = self.signal_lead {
            if cfg.walltime.is_none() {
                return Err(CliError::Conflict(
                    "--signal-lead needs --walltime (the allocation's limit it comes before)"
                        .into(),
                ));
            }
            cfg.signal_lead = Some(lead);
            inputs.signal_lead_s = Some(ns_to_secs(lead));
        }
        Ok(())
    }
}

/// `--format slurm` without `--walltime`.
pub fn slurm_needs_walltime() -> CliError {
    CliError::Conflict(
        "--format slurm prints the allocation's #SBATCH --signal line and interval: give --walltime (the allocation's length)".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slowdown_is_a_fraction_below_one() {
        for (text, fraction) in [("0", 0.0), ("0.25", 0.25), ("0.999", 0.999)] {
            assert_eq!(slowdown(text), Ok(fraction), "{text}");
        }
        for bad in ["1", "-0.1", "1.5", "nan", "inf", "x"] {
            assert!(slowdown(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_walltime_must_hold_one_checkpoint() {
        let mut i = IntervalInputs::single(3600.0, 600.0, 0.0);
        let a = AllocationInputs {
            walltime_s: 600.0,
            signal_margin_s: 0.0,
        };
        let e = apply(&mut i, None, Some(a)).unwrap_err();
        assert!(
            matches!(
                e,
                CliError::Invalid {
                    arg: "--walltime",
                    ..
                }
            ),
            "{e}"
        );
        let a = AllocationInputs {
            walltime_s: 601.0,
            signal_margin_s: 0.0,
        };
        apply(&mut i, None, Some(a)).unwrap();
        assert_eq!(i.allocation, Some(a));
    }
}

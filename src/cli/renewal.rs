//! `ckpt interval --dist` for one job (no `--procs`/`--replicas`): the renewal model
//! (`docs/models.md` §13). The flags it takes are validated here; the model is
//! `ckpt::model::renewal`, the output `ckpt::report::renewal`.

use super::CliError;
use super::interval::{IntervalArgs, IntervalFormat, ModelArgs, interval_error};
use ckpt::failure::{Lifetime, Shape};
use ckpt::finite::{renewal_allocation, renewal_completion};
use ckpt::interval::IntervalError;
use ckpt::model::ModelError;
use ckpt::model::renewal::{Renewal, RenewalAnalysis};
use ckpt::optimize::OptimizeError;
use ckpt::report::renewal::{self as report, RenewalInputsJson};

fn conflict(msg: &str) -> CliError {
    CliError::Conflict(msg.to_string())
}

/// Whether `interval` asks for the renewal model: `--dist` without the replicated model's
/// `--procs`/`--replicas`.
pub fn applies(args: &IntervalArgs) -> bool {
    let m = &args.model;
    m.dist.is_some() && m.procs.is_none() && m.replicas.is_none()
}

/// The job's failure distribution, its checkpoint cost and restart, validated.
pub fn job(args: &IntervalArgs, shape: Shape) -> Result<(RenewalInputsJson, Renewal), CliError> {
    let m = &args.model;
    let mtbf = model_checks(m)?;
    if args.asynchronous.async_write.is_some() || args.asynchronous.async_slowdown.is_some() {
        return Err(conflict(
            "--dist for one job gives the schedule, with --work each policy's completion and with --walltime the allocation's period: drop --async-write/--async-slowdown",
        ));
    }
    if args.iteration_time.is_some() && args.allocation.walltime.is_none() {
        return Err(conflict(
            "--iteration-time with --dist for one job needs --walltime (the allocation's period in whole iterations); the schedule after each restart is not periodic",
        ));
    }
    model_job(m, shape, mtbf)
}

/// The model flags' checks for one job under renewal failures (shared by `interval`,
/// `validate` and `sweep`); returns `--mtbf`.
pub fn model_checks(m: &ModelArgs) -> Result<f64, CliError> {
    if m.nodes.is_some() || m.node_mtbf.is_some() {
        return Err(conflict(
            "--dist without --procs/--replicas describes one job: give --mtbf, the MTBF of the whole job (a platform of --nodes is not a renewal process)",
        ));
    }
    let Some(mtbf) = m.mtbf else {
        return Err(conflict("--mtbf is required"));
    };
    if m.detect.is_some() {
        return Err(conflict(
            "--detect applies to the replicated model: give --procs and/or --replicas",
        ));
    }
    if m.downtime > 0.0 {
        return Err(conflict(
            "--downtime does not apply to --dist for one job (docs/models.md §13 has no downtime): add it to --restart",
        ));
    }
    if m.scheme_summary()?.is_some() {
        return Err(conflict(
            "--scheme does not combine with --dist for one job: give --cost",
        ));
    }
    Ok(mtbf)
}

/// The renewal model of the checked model flags (after [`model_checks`]) at `shape`, with
/// the inputs it echoes.
pub fn model_job(
    m: &ModelArgs,
    shape: Shape,
    mtbf: f64,
) -> Result<(RenewalInputsJson, Renewal), CliError> {
    let cost = m.checkpoint_cost()?;
    let life = Lifetime::new(shape, mtbf).map_err(|e| CliError::Invalid {
        arg: "--dist",
        value: shape.to_string(),
        accepted: e.to_string(),
    })?;
    let job = Renewal::new(life, cost, m.restart).map_err(|e| match e {
        // The model's range, as the flag that set the value.
        ModelError::Parameter {
            name,
            value,
            accepted,
        } => CliError::Invalid {
            arg: match name {
                "cost" => "--cost",
                "restart" => "--restart",
                _ => "--mtbf",
            },
            value: super::finite::seconds(value),
            accepted: format!("{name} {accepted}"),
        },
        e => model_error(e),
    })?;
    let echo = RenewalInputsJson {
        mtbf_s: mtbf,
        cost_s: cost,
        restart_s: m.restart,
        dist: shape.to_string(),
        work_s: None,
        walltime_s: None,
        signal_margin_s: None,
    };
    Ok((echo, job))
}

/// Maps a model error to what the user sees.
pub fn model_error(e: ModelError) -> CliError {
    match e {
        ModelError::Optimize(OptimizeError::Solver { .. }) => CliError::Internal(e.to_string()),
        ModelError::NoProgress { .. } | ModelError::Optimize(_) => {
            CliError::NoAnswer(e.to_string())
        }
        _ => CliError::Conflict(e.to_string()),
    }
}

/// Runs `ckpt interval --dist ...` for one job and returns what to print.
pub fn interval(args: &IntervalArgs, shape: Shape) -> Result<String, CliError> {
    let (mut echo, job) = job(args, shape)?;
    let allocation = args.allocation.inputs()?;
    if let Some(a) = allocation {
        super::finite::check_limit(job.cost(), a)?;
    }
    let analysis: RenewalAnalysis = job.analyze().map_err(model_error)?;
    let completion = match args.work {
        Some(w) => Some(renewal_completion(&job, &analysis, w).map_err(interval_error)?),
        None => None,
    };
    let in_allocation = match allocation {
        Some(a) => Some(
            renewal_allocation(&job, &analysis, a, args.iteration_time).map_err(|e| match e {
                IntervalError::Model(e) => super::finite::allocation_refusal(e),
                e => interval_error(e),
            })?,
        ),
        None => None,
    };
    echo.work_s = args.work;
    echo.walltime_s = allocation.map(|a| a.walltime_s);
    echo.signal_margin_s = allocation.map(|a| a.signal_margin_s);
    let c = completion.as_ref();
    Ok(match args.format {
        IntervalFormat::Table => {
            let mut text = report::table(&analysis, c);
            if let (Some(a), Some(inputs)) = (&in_allocation, allocation) {
                text.push('\n');
                text.push_str(&report::allocation_table(a, inputs.walltime_s, &echo.dist));
            }
            text
        }
        IntervalFormat::Json => report::json(&echo, &analysis, c, in_allocation.as_ref()),
        IntervalFormat::Env => match &in_allocation {
            Some(a) => report::allocation_env(a),
            None => report::env(&analysis),
        },
        IntervalFormat::Slurm => match &in_allocation {
            Some(a) => {
                ckpt::report::finite::slurm(report::allocation_interval(a), a.best.plan.signal_lead)
            }
            None => return Err(super::finite::slurm_needs_walltime()),
        },
        other => {
            return Err(conflict(&format!(
                "--format {} does not apply to --dist for one job: use table, json, env or (with --walltime) slurm",
                format!("{other:?}").to_lowercase()
            )));
        }
    })
}

//! `validate` and `sweep` for one job under renewal failures (`--dist` without
//! `--procs`/`--replicas`; docs/models.md §13, docs/interface.md §1.2 and §1.6): their flags
//! validated into the library's jobs.

use super::CliError;
use super::renewal::{model_checks, model_error, model_job};
use super::sweep::SweepArgs;
use super::validate::{SimArg, ValidateArgs, validate_error};
use ckpt::failure::Shape;
use ckpt::job::{PolicyCheck, Reporting, SweepRenewal, ValidateRenewal};
use ckpt::sweep::renewal::ShapeSweep;
use ckpt::units::secs_to_ns;
use ckpt::validate::renewal::{DEFAULT_WORK_MTBFS, RenewalPolicies, RenewalValidateOptions};

fn conflict(msg: &str) -> CliError {
    CliError::Conflict(msg.to_string())
}

/// The longest default work of a renewal validation (s), ten years: 1000 MTBFs of a long MTBF
/// would pass the simulator's 584-year clock.
const MAX_DEFAULT_WORK_S: f64 = 10.0 * ckpt::units::YEAR_S;

/// Whether `validate` asks for the renewal validation: `--dist` without `--procs`/`--replicas`
/// (and not the stencil, which takes its inputs from its own file).
pub fn validate_applies(args: &ValidateArgs) -> bool {
    let m = &args.model;
    m.dist.is_some()
        && m.procs.is_none()
        && m.replicas.is_none()
        && args.sim != Some(SimArg::Stencil)
        && !m.levels.given()
}

/// `ckpt validate --dist ...` for one job, validated into its job; `argv` is the canonical
/// command line after `ckpt`.
pub fn validate_job(args: &ValidateArgs, argv: &[String]) -> Result<ValidateRenewal, CliError> {
    let m = &args.model;
    let Some(shape) = m.dist else {
        return Err(conflict("--dist is required"));
    };
    if args.sim.is_some() || args.config.is_some() || args.aging || args.heartbeat.is_some() {
        return Err(conflict(
            "--dist without --procs/--replicas validates one job against its own simulator: drop --sim, --config, --aging and --heartbeat",
        ));
    }
    if args.asynchronous.async_write.is_some() || args.asynchronous.async_slowdown.is_some() {
        return Err(conflict(
            "--async-write/--async-slowdown do not combine with --dist for one job (its schedule runs synchronous checkpoints)",
        ));
    }
    if args.points.is_some() {
        return Err(conflict(
            "--points does not apply to --dist for one job: it validates the schedules themselves, not a grid of intervals",
        ));
    }
    let mtbf = model_checks(m)?;
    let (_, job) = model_job(m, shape, mtbf)?;
    let options = RenewalValidateOptions {
        work_s: args
            .work
            .unwrap_or((DEFAULT_WORK_MTBFS * mtbf).min(MAX_DEFAULT_WORK_S)),
        runs: args.runs.unwrap_or(1000),
        seed: args.seed.unwrap_or(super::DEFAULT_SEED),
    };
    let policies = RenewalPolicies::new(
        job.life(),
        job.cost(),
        job.restart(),
        secs_to_ns(options.work_s),
    )
    .map_err(model_error)?;
    ckpt::validate::renewal::configs(&policies, &options).map_err(validate_error)?;
    Ok(ValidateRenewal {
        setup: PolicyCheck { policies, options },
        report: Reporting {
            format: args.format.into(),
            out: args.out.clone(),
            args: argv.to_vec(),
        },
    })
}

/// Whether `--vary` names the shape: `shape=...`.
pub fn varies_shape(vary: &str) -> bool {
    vary.split_once('=')
        .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("shape"))
}

/// Whether `sweep` asks for the renewal model: `--vary shape=...`, or `--dist` without
/// `--procs`/`--replicas`.
pub fn sweep_applies(args: &SweepArgs) -> bool {
    let m = &args.model;
    !m.levels.given()
        && (varies_shape(&args.vary)
            || (m.dist.is_some() && m.procs.is_none() && m.replicas.is_none()))
}

const SHAPE_ACCEPTED: &str =
    "shape=LO..HI with 0 < LO < HI, plain numbers (e.g. shape=0.5..1.5; sigma for lognormal)";

/// `ckpt sweep --dist FAMILY:K --vary shape=LO..HI` validated into its job.
pub fn sweep_job(args: &SweepArgs, argv: &[String]) -> Result<SweepRenewal, CliError> {
    let m = &args.model;
    if !varies_shape(&args.vary) {
        return Err(conflict(
            "--dist without --procs/--replicas (one job under renewal failures) sweeps its shape only: use --vary shape=LO..HI, or give --procs/--replicas for the replicated model",
        ));
    }
    if m.procs.is_some() || m.replicas.is_some() {
        return Err(conflict(
            "--vary shape sweeps one job under renewal failures: drop --procs/--replicas",
        ));
    }
    let Some(dist) = m.dist else {
        return Err(conflict(
            "--vary shape needs --dist FAMILY:K to name the family (weibull:K, gamma:K or lognormal:SIGMA)",
        ));
    };
    if dist == Shape::Exponential {
        return Err(conflict(
            "--vary shape needs a family with a shape: exponential failures have none (give --dist weibull:K, gamma:K or lognormal:SIGMA)",
        ));
    }
    let invalid = |accepted: String| CliError::Invalid {
        arg: "--vary",
        value: args.vary.clone(),
        accepted,
    };
    let range = args.vary.split_once('=').map_or("", |(_, r)| r);
    let (lo, hi) = range
        .split_once("..")
        .and_then(|(lo, hi)| {
            Some((
                lo.trim().parse::<f64>().ok()?,
                hi.trim().parse::<f64>().ok()?,
            ))
        })
        .ok_or_else(|| invalid(SHAPE_ACCEPTED.into()))?;
    if !args.range(lo, hi).ends_ok(false) {
        return Err(invalid(SHAPE_ACCEPTED.into()));
    }
    let mtbf = model_checks(m)?;
    let (_, job) = model_job(m, dist, mtbf)?;
    let sweep = ShapeSweep {
        dist,
        mtbf_s: mtbf,
        cost_s: job.cost(),
        restart_s: job.restart(),
        range: args.range(lo, hi),
    };
    // Both ends must have an answer (a shape too small has a tail the grid cannot hold): refuse
    // before any work.
    for v in [lo, hi] {
        sweep.point(v).map_err(|e| {
            // The model's message may name the distribution already.
            let why = if e.source.to_string().contains(&e.dist) {
                e.source.to_string()
            } else {
                e.to_string()
            };
            invalid(format!(
                "a range of shapes the model can answer at both ends ({why})"
            ))
        })?;
    }
    Ok(SweepRenewal {
        sweep,
        out: args.out.clone(),
        args: argv.to_vec(),
    })
}

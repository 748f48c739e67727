//! `ckpt fit`: arguments, reading the log, and the run.

use super::CliError;
use super::parse::{count, duration, duration0};
use ckpt::fit::{self, FitError, FitOptions};
use ckpt::report;
use ckpt::report::fit::FitInputs;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Examples shown under `ckpt fit --help`.
pub const EXAMPLES: &str = "Examples:
  ckpt fit data/failures/weibull-0.7.csv
  ckpt fit data/failures/allocations.csv --exclude-kind end-of-allocation --cost 5m --restart 10m
  ckpt fit data/failures/nodes.csv --per-node --nodes 128 --exclude-kind maintenance \
      --exclude-kind end-of-log --format json

The log has one event per line: time[,node[,kind]], time in seconds or RFC 3339
(2024-05-01T12:00:00Z); an optional header names the columns; blank lines and # comments are
skipped. Events of an --exclude-kind kind are exposure, not failures: they end a window with a
right-censored gap. The observation runs from the first event of any kind to the last.";

/// Output formats of `fit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FitFormat {
    /// Aligned tables for a person.
    Table,
    /// One JSON object, seconds throughout (schema_version 1).
    Json,
    /// The best fit's `ckpt interval` flags on one line, to splice into a command:
    /// `ckpt interval $(ckpt fit LOG --format flags) --cost 5m`.
    Flags,
}

fn kind(s: &str) -> Result<String, String> {
    let k = s.trim();
    if k.is_empty() || k.contains(',') {
        Err("a kind as written in the log's kind column (no commas, not empty)".into())
    } else {
        Ok(k.to_string())
    }
}

/// `ckpt fit` arguments.
#[derive(Debug, Clone, Args)]
pub struct FitArgs {
    /// The failure log (CSV: time[,node[,kind]]); `-` reads it from standard input.
    #[arg(value_name = "FAILURES.csv")]
    pub file: PathBuf,
    /// An event kind that is exposure, not a failure (e.g. end-of-allocation); repeatable.
    #[arg(long = "exclude-kind", value_name = "KIND", value_parser = kind)]
    pub exclude_kind: Vec<String>,
    /// Fit node lifetimes (gaps between one node's failures) instead of the system's.
    #[arg(long)]
    pub per_node: bool,
    /// With --per-node: the node count, including nodes that never appear in the log.
    #[arg(long, value_name = "N", value_parser = count)]
    pub nodes: Option<u64>,
    /// Checkpoint cost: prints the recommended interval at the fitted MTBF and its bounds.
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub cost: Option<f64>,
    /// Restart cost R (with --cost).
    #[arg(long, value_name = "DURATION", value_parser = duration0, default_value = "0")]
    pub restart: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FitFormat::Table)]
    pub format: FitFormat,
}

fn fit_error(e: FitError) -> CliError {
    CliError::Conflict(e.to_string())
}

/// Runs `ckpt fit` and returns what to print, and a warning for an `--exclude-kind` that no
/// event of the log has (most often a kind misspelt, whose events then count as failures).
pub fn run(args: &FitArgs) -> Result<(String, Option<String>), CliError> {
    if args.nodes.is_some() && !args.per_node {
        return Err(CliError::Conflict(
            "--nodes applies to --per-node fits: give --per-node too".into(),
        ));
    }
    if args.restart > 0.0 && args.cost.is_none() {
        return Err(CliError::Conflict(
            "--restart needs --cost: the interval depends on the checkpoint cost".into(),
        ));
    }
    let name = super::input::name_of(&args.file);
    let typed = args.file.display().to_string();
    let bytes = super::input::read_bounded(&args.file).map_err(|e| CliError::Invalid {
        arg: "FAILURES.csv",
        value: typed.clone(),
        accepted: format!("a readable file ({e})"),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| CliError::Invalid {
        arg: "FAILURES.csv",
        value: typed,
        accepted: format!(
            "a UTF-8 text file (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })?;
    let options = FitOptions {
        exclude_kinds: args.exclude_kind.clone(),
        per_node: args.per_node,
        nodes: args.nodes,
    };
    let fitted = fit::fit_log(&text, &name, &options).map_err(fit_error)?;
    let kinds = &fitted.observation.kinds;
    let absent: Vec<String> = args
        .exclude_kind
        .iter()
        .filter(|x| {
            !kinds
                .iter()
                .any(|k| k.role == "exposure" && k.kind.eq_ignore_ascii_case(x))
        })
        .map(|x| ckpt::text::shown(x))
        .collect();
    let warning = (!absent.is_empty()).then(|| {
        // The log's kinds are its own text: escaped, and no more than a line's worth of them.
        const SHOWN: usize = 8;
        let mut listed: Vec<String> = kinds
            .iter()
            .take(SHOWN)
            .map(|k| ckpt::text::shown(&k.kind))
            .collect();
        if kinds.len() > SHOWN {
            listed.push(format!("and {} more", kinds.len() - SHOWN));
        }
        format!(
            "warning: --exclude-kind {}: no event of {} in {} (its kinds: {})",
            absent.join(", "),
            if absent.len() == 1 {
                "that kind"
            } else {
                "those kinds"
            },
            ckpt::text::shown(&name),
            listed.join(", ")
        )
    });
    let advice = fit::advise(&fitted, args.cost, args.restart);
    let inputs = FitInputs {
        file: name,
        exclude_kinds: args.exclude_kind.clone(),
        per_node: args.per_node,
        nodes: args.nodes,
        cost_s: args.cost,
        restart_s: args.restart,
    };
    let text = match args.format {
        FitFormat::Table => report::fit::table(&inputs, &fitted, &advice),
        FitFormat::Json => report::fit::json(&inputs, &fitted, &advice),
        FitFormat::Flags if advice.flags_mtbf_s > ckpt::units::MAX_DURATION_S => {
            return Err(CliError::NoAnswer(format!(
                "{}: the fitted MTBF ({}) is beyond the 500 years `ckpt interval` takes: no flags to give",
                inputs.file,
                ckpt::units::format_duration(advice.flags_mtbf_s)
            )));
        }
        FitFormat::Flags => report::fit::flags(&advice),
    };
    Ok((text, warning))
}

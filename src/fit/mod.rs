//! The calculator's inputs from failure logs: windows of observation, maximum-likelihood fits
//! with right-censoring, and the `ckpt interval` flags they give.
//!
//! A log is a list of events `time[,node[,kind]]`. Events of an excluded kind (such as
//! `end-of-allocation` or `maintenance`) are exposure, not failures: they end a window of
//! observation with a right-censored gap instead of a failure. The observation runs from the
//! first event of any kind to the last, so the gap after the last failure is right-censored
//! too. See [`system_windows`] and [`node_windows`] for the exact rules, and [`mle`] for the
//! fits.
//!
//! ```
//! use ckpt::fit::{FitOptions, fit_log};
//! let log = "time,kind\n0,start\n100,failure\n250,failure\n300,end-of-allocation\n";
//! let options = FitOptions {
//!     exclude_kinds: vec!["start".into(), "end-of-allocation".into()],
//!     ..FitOptions::default()
//! };
//! let report = fit_log(log, "log.csv", &options).unwrap();
//! // Two failures in 300 s of exposure.
//! assert_eq!(report.mtbf.point_s, 150.0);
//! ```

mod advice;
mod log;
pub mod mle;

pub use advice::{Advice, AdviceRow, advice_number, advise};
pub use log::{
    Event, KindCount, NodeCount, Observation, node_windows, parse_log, parse_rfc3339,
    system_windows,
};
pub use mle::{Family, Fit, Fitted, Mtbf, Sample, exponential_mtbf, fit_all};

use thiserror::Error;

/// Why a log cannot be fitted.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FitError {
    /// A line that cannot be read.
    #[error("{file}:{line}: field `{field}`: {}", describe(.value, .accepted))]
    Parse {
        /// The file, as named.
        file: String,
        /// The line (1-based).
        line: usize,
        /// The field.
        field: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        accepted: String,
    },
    /// Nothing to fit.
    #[error("{file} has no events (only blank lines, comments or a header): nothing to fit")]
    Empty {
        /// The file, as named.
        file: String,
    },
    /// Events, but no failure that ends a gap.
    #[error(
        "{file} has {events} events but no failure that ends a gap ({failure_events} failure events, of which {at_start} open the observation or a window and {simultaneous} coincide with the previous failure; {exposure_events} exposure events): the MTBF is not defined"
    )]
    NoFailures {
        /// The file, as named.
        file: String,
        /// Events in all.
        events: u64,
        /// Failure events in the log.
        failure_events: u64,
        /// Failure events that open the observation or a window.
        at_start: u64,
        /// Failure events at the instant of the previous failure.
        simultaneous: u64,
        /// Events that end exposure without a failure.
        exposure_events: u64,
    },
    /// Failure gaps, but their total exposure is too short for the MTBF's confidence bounds
    /// to be a positive double (subnormal seconds).
    #[error(
        "{file} has {failures} failure gaps totalling {exposure_s:e} s: too short an exposure for a finite, positive MTBF estimate and its bounds"
    )]
    TooShort {
        /// The file, as named.
        file: String,
        /// Failure gaps.
        failures: u64,
        /// Their exposure (failure and censored gaps), in seconds.
        exposure_s: f64,
    },
    /// `--per-node` on a log without nodes.
    #[error("{file} names no node: --per-node needs a node column (time,node[,kind])")]
    NoNodes {
        /// The file, as named.
        file: String,
    },
    /// `--nodes` below the nodes the log names.
    #[error("--nodes {given} is fewer than the {seen} distinct nodes that {file} names")]
    TooFewNodes {
        /// The given.
        given: u64,
        /// The seen.
        seen: u64,
        /// The file, as named.
        file: String,
    },
}

fn describe(value: &str, accepted: &str) -> String {
    if value.is_empty() {
        format!("the value {accepted}")
    } else {
        format!("`{value}` {accepted}")
    }
}

/// What to fit and how to read the log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FitOptions {
    /// Kinds that are exposure, not failures (compared case-insensitively).
    pub exclude_kinds: Vec<String>,
    /// Fit node lifetimes instead of the system's inter-failure times.
    pub per_node: bool,
    /// With `per_node`: the number of nodes, counting those that never appear in the log.
    pub nodes: Option<u64>,
}

/// Everything `fit` finds in a log.
#[derive(Debug, Clone, PartialEq)]
pub struct FitReport {
    /// The windows and their bookkeeping.
    pub observation: Observation,
    /// Exponential, Weibull, gamma and log-normal, in that order.
    pub fits: Vec<Fit>,
    /// The family with the smallest AIC among those that converged.
    pub best: Option<Family>,
    /// The exponential MTBF with its 95% interval (of one node with `per_node`).
    pub mtbf: Mtbf,
}

impl FitReport {
    /// The fit of one family.
    pub fn fit(&self, family: Family) -> Option<&Fit> {
        self.fits.iter().find(|f| f.family == family)
    }
}

/// Parses `text` (the contents of `file`) and fits it.
pub fn fit_log(text: &str, file: &str, options: &FitOptions) -> Result<FitReport, FitError> {
    let events = parse_log(text, file)?;
    fit_events(events, file, options)
}

/// Fits a list of events (in any order).
pub fn fit_events(
    mut events: Vec<Event>,
    file: &str,
    options: &FitOptions,
) -> Result<FitReport, FitError> {
    if events.is_empty() {
        return Err(FitError::Empty {
            file: file.to_string(),
        });
    }
    // Stable: events at the same time keep the order of the file.
    events.sort_by(|a, b| a.time.total_cmp(&b.time));
    let excluded: Vec<String> = options
        .exclude_kinds
        .iter()
        .map(|k| k.trim().to_ascii_lowercase())
        .collect();
    let observation = if options.per_node {
        node_windows(&events, &excluded, options.nodes, file)?
    } else {
        system_windows(&events, &excluded)
    };
    let sample = &observation.sample;
    let mtbf = exponential_mtbf(sample.failure_count(), sample.exposure()).ok_or_else(|| {
        if sample.failure_count() > 0 {
            return FitError::TooShort {
                file: file.to_string(),
                failures: sample.failure_count(),
                exposure_s: sample.exposure(),
            };
        }
        FitError::NoFailures {
            file: file.to_string(),
            events: observation.events,
            failure_events: observation.failure_events,
            at_start: observation.failures_at_window_start,
            simultaneous: observation.failures_simultaneous,
            exposure_events: observation.exposure_events,
        }
    })?;
    let (fits, best) = fit_all(sample);
    Ok(FitReport {
        observation,
        fits,
        best,
        mtbf,
    })
}

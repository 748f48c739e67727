//! The stencil's configuration: the paper's INI format read as is (docs/simulation.md §3.8), the
//! failure trace (3.4), and validation into [`StencilConfig`].
//!
//! Nothing here reads a file: the caller reads the INI and passes its text to [`parse_ini`],
//! then reads the trace it names ([`Settings::trace_to_read`]) and passes that text to
//! [`Settings::validate`]. Durations and trace times are exact decimals
//! ([`crate::units::parse_seconds_exact`]); traces are parsed by [`crate::sim::trace`].

use crate::sim::trace::{IndexColumn, TraceError, parse_trace};
use crate::units::Nanos;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Bad stencil input: a setting, a config line or a trace line.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ConfigError {
    /// A setting has a value that cannot be accepted.
    #[error("invalid value `{value}` for {key}: {accepted}")]
    Invalid {
        /// The INI key or flag.
        key: String,
        /// The value given.
        value: String,
        /// What is accepted.
        accepted: String,
    },
    /// A required setting is missing.
    #[error("missing {key}: {hint}")]
    Missing {
        /// The INI key or flag.
        key: String,
        /// How to give it.
        hint: String,
    },
    /// A line of the INI file cannot be accepted.
    #[error("{file}:{line}: {message}")]
    Ini {
        /// The file, as named.
        file: String,
        /// The line (1-based).
        line: usize,
        /// What the library said.
        message: String,
    },
    /// A line of the failure trace cannot be accepted.
    #[error(transparent)]
    Trace(#[from] TraceError),
}

/// The recovery strategy of docs/simulation.md §3.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Rollback to the latest consistent checkpoint (the paper's `Default`).
    Global,
    /// Dependency-aware rollback: only lost work is redone.
    Dependency,
}

impl Recovery {
    /// Reads `global`/`default` or `dependency` (case-insensitive).
    pub fn parse(text: &str) -> Option<Recovery> {
        match text.trim().to_ascii_lowercase().as_str() {
            "global" | "default" => Some(Recovery::Global),
            "dependency" => Some(Recovery::Dependency),
            _ => None,
        }
    }

    /// The name used in output.
    pub fn name(&self) -> &'static str {
        match self {
            Recovery::Global => "global",
            Recovery::Dependency => "dependency",
        }
    }
}

/// One failure of a trace: at `time`, worker `worker`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TraceFailure {
    /// When (ns).
    pub time: Nanos,
    /// Which worker index.
    pub worker: u32,
}

/// Where failures come from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Failures {
    /// No failures (`Fail = N`).
    None,
    /// A seeded Poisson process of the whole system with this mean (ns); the seed is the
    /// run's.
    Poisson {
        /// Mean time between failures of the system, ns.
        mtbf: Nanos,
    },
    /// A trace, sorted stably by time.
    Trace(Vec<TraceFailure>),
}

/// A validated stencil configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StencilConfig {
    /// Tasks per row, W.
    pub width: u32,
    /// Rows, T.
    pub rows: u32,
    /// Workers.
    pub workers: u32,
    /// Checkpoint level L (H = 2^(L-1)).
    pub level: u32,
    /// `false`: no checkpoint tasks, no copies.
    pub checkpoint: bool,
    /// Recovery strategy.
    pub recovery: Recovery,
    /// Processing time of a task, ns.
    pub process_cost: Nanos,
    /// Time to send a remote copy, ns.
    pub backup_cost: Nanos,
    /// Time to fetch one input, ns.
    pub transfer_cost: Nanos,
    /// Failure source.
    pub failures: Failures,
    /// Bytes of one task output, for the memory figure in bytes.
    pub output_bytes: Option<u64>,
}

/// Settings as read from a file or flags, before validation: every field optional, so flags can
/// override a file field by field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Tasks per row.
    pub width: Option<u32>,
    /// Rows.
    pub rows: Option<u32>,
    /// Workers.
    pub workers: Option<u32>,
    /// Checkpoint level.
    pub level: Option<u32>,
    /// Checkpoints on or off.
    pub checkpoint: Option<bool>,
    /// Recovery strategy.
    pub recovery: Option<Recovery>,
    /// Failures on or off (`Fail`).
    pub fail: Option<bool>,
    /// System MTBF, ns.
    pub mtbf: Option<Nanos>,
    /// Random seed.
    pub seed: Option<u64>,
    /// Failure trace file.
    pub trace: Option<PathBuf>,
    /// Process cost, ns.
    pub process_cost: Option<Nanos>,
    /// Backup cost, ns.
    pub backup_cost: Option<Nanos>,
    /// Transfer cost, ns.
    pub transfer_cost: Option<Nanos>,
    /// Bytes per output.
    pub output_bytes: Option<u64>,
}

impl StencilConfig {
    /// Checks a config as [`Settings::validate`] does, for one read back from a file (a shard):
    /// sizes, level, costs and the failure source, so that no edited file reaches the simulator
    /// with values it would have refused.
    pub fn check(&self) -> Result<(), ConfigError> {
        self.check_shape()?;
        match &self.failures {
            Failures::Poisson { mtbf: 0 } => Err(config_invalid(
                "--mtbf (MTBF)",
                "0".into(),
                "a positive duration",
            )),
            Failures::Trace(t) if t.iter().any(|f| f.worker >= self.workers) => {
                Err(config_invalid(
                    "FailureTrace",
                    "a worker index".into(),
                    "worker indices below the worker count",
                ))
            }
            Failures::Trace(t) if t.windows(2).any(|w| w[1].time < w[0].time) => {
                Err(config_invalid(
                    "FailureTrace",
                    "failure times".into(),
                    "failures sorted by time",
                ))
            }
            _ => Ok(()),
        }
    }

    /// The checks of everything but the failure source.
    fn check_shape(&self) -> Result<(), ConfigError> {
        let &StencilConfig {
            width,
            rows,
            workers,
            level,
            checkpoint,
            process_cost,
            backup_cost,
            transfer_cost,
            ..
        } = self;
        if width < 2 || width % 2 != 0 || width > 1 << 20 {
            return Err(config_invalid(
                "--width (StencilSize)",
                width.to_string(),
                "an even number of tasks per row, 2 to 1048576",
            ));
        }
        if rows < 1 || (width as u64) * (rows as u64) > 1 << 28 {
            return Err(config_invalid(
                "--rows (Timesteps)",
                rows.to_string(),
                "at least 1, with width x rows at most 2^28 tasks",
            ));
        }
        if !(1..=1 << 20).contains(&workers) {
            return Err(config_invalid(
                "--workers (WorkerCount)",
                workers.to_string(),
                "1 to 1048576 workers",
            ));
        }
        if process_cost == 0 {
            return Err(config_invalid(
                "--process-cost (ProcessCost)",
                "0".into(),
                "a positive number of seconds",
            ));
        }
        if !(1..=20).contains(&level) {
            return Err(config_invalid(
                "--level (CheckpointLevel)",
                level.to_string(),
                "a checkpoint level 1 to 20",
            ));
        }
        if checkpoint && width % (2u32 << (level - 1)) != 0 {
            return Err(config_invalid(
                "--level (CheckpointLevel)",
                level.to_string(),
                &format!(
                    "a level whose 2H = 2^L divides the width {width} (docs/simulation.md §3.2)"
                ),
            ));
        }
        // Keep every time of a run far from u64 overflow: the failure-free work of one worker
        // doing everything stays under 2^60 ns (36 years).
        let per_task = process_cost as u128 + backup_cost as u128 + 2 * transfer_cost as u128;
        if per_task * (width as u128 * rows as u128) > 1u128 << 60 {
            // The refusal names the cost that weighs most in the total; a transfer cost equal
            // to the backup cost is most likely its default, and counts as the backup's.
            let transfer = if transfer_cost == backup_cost { 0 } else { 2 };
            let backup = 3 - transfer;
            let (key, cost) = [
                ("--process-cost (ProcessCost)", process_cost, 1),
                ("--backup-cost (BackupCost)", backup_cost, backup),
                ("--transfer-cost (TransferCost)", transfer_cost, transfer),
            ]
            .into_iter()
            .max_by_key(|&(_, c, times)| c as u128 * times)
            .map(|(key, c, _)| (key, c))
            .unwrap_or(("--process-cost (ProcessCost)", process_cost));
            return Err(config_invalid(
                key,
                format!("{} s", crate::units::ns_to_secs(cost)),
                "costs whose total over all tasks stays under 2^60 ns (about 36 years)",
            ));
        }
        Ok(())
    }
}

fn config_invalid(key: &str, value: String, accepted: &str) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value,
        accepted: accepted.to_string(),
    }
}

/// A setting that was given neither on the command line nor in the file.
fn missing(key: &str, hint: &str) -> ConfigError {
    ConfigError::Missing {
        key: key.to_string(),
        hint: hint.to_string(),
    }
}

/// `value`, or the [`missing`] error for `key`.
fn required<T>(value: Option<T>, key: &str, hint: &str) -> Result<T, ConfigError> {
    value.ok_or_else(|| missing(key, hint))
}

impl Settings {
    /// `self` with every field that `over` sets replaced. Setting an MTBF clears a trace and
    /// the other way round, so a flag overrides the file's choice of failure source.
    pub fn overridden_by(mut self, over: &Settings) -> Settings {
        macro_rules! take {
            ($($f:ident),*) => { $( if over.$f.is_some() { self.$f = over.$f.clone(); } )* };
        }
        if over.mtbf.is_some() {
            self.trace = None;
        }
        if over.trace.is_some() {
            self.mtbf = None;
        }
        take!(
            width,
            rows,
            workers,
            level,
            checkpoint,
            recovery,
            fail,
            mtbf,
            seed,
            trace,
            process_cost,
            backup_cost,
            transfer_cost,
            output_bytes
        );
        self
    }
}

/// A duration in exact nanoseconds, as every duration flag reads ([`crate::units::duration`]):
/// plain seconds or a humantime form (`30m`); `None` when negative or beyond 584 years.
pub fn duration_ns(text: &str) -> Option<Nanos> {
    crate::units::duration(text).ok()?.nanos()
}

/// Parses the stencil's failure trace, `time_seconds,worker` lines with every worker in
/// `0..workers`, through [`parse_trace`]; `file` names it in messages.
///
/// ```
/// use ckpt::sim::stencil::config::trace_failures;
/// let t = trace_failures("# time_seconds,worker\n5,1\n2.5,0\n", "t.csv", 2).unwrap();
/// assert_eq!((t[0].time, t[0].worker), (2_500_000_000, 0));
/// assert!(trace_failures("1,2\n", "t.csv", 2).is_err());
/// ```
pub fn trace_failures(
    text: &str,
    file: &str,
    workers: u32,
) -> Result<Vec<TraceFailure>, TraceError> {
    let column = IndexColumn::Required {
        name: "worker",
        count: workers as usize,
    };
    let trace = parse_trace(text, file, column)?;
    // `Required` gives every row an index below `workers`, so both conversions are exact.
    Ok(trace
        .rows
        .iter()
        .map(|r| TraceFailure {
            time: r.time,
            worker: r.index.unwrap_or_default() as u32,
        })
        .collect())
}

fn yes_no(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "true" | "1" | "on" => Some(true),
        "n" | "no" | "false" | "0" | "off" => Some(false),
        _ => None,
    }
}

/// Parses the paper's INI format from the text of the file. `file` names the file in errors;
/// `folder` is the folder of the file, against which a relative `FailureTrace` is resolved (the
/// caller reads that file: see [`Settings::trace_to_read`]).
///
/// ```
/// use ckpt::sim::stencil::config::parse_ini;
/// let s = parse_ini("[GENERAL]\nWorkerCount = 2 ; two\n[Stencil]\nProcessCost = 7.1\n", "x.ini", ".".as_ref()).unwrap();
/// assert_eq!(s.workers, Some(2));
/// assert_eq!(s.process_cost, Some(7_100_000_000));
/// assert!(parse_ini("[GENERAL]\nWorkers = 2\n", "x.ini", ".".as_ref()).is_err());
/// ```
pub fn parse_ini(text: &str, file: &str, folder: &Path) -> Result<Settings, ConfigError> {
    #[derive(PartialEq, Clone, Copy)]
    enum Section {
        None,
        General,
        Stencil,
    }
    let mut s = Settings::default();
    let mut section = Section::None;
    let mut seen: Vec<String> = Vec::new();
    for (i, raw) in crate::text::lines(text).enumerate() {
        let line = i + 1;
        let err = |message: String| ConfigError::Ini {
            file: file.to_string(),
            line,
            message,
        };
        let mut content = raw;
        // An inline comment starts at `;` or `#` preceded by white space (or at line start).
        let bytes = raw.as_bytes();
        for (j, &b) in bytes.iter().enumerate() {
            if (b == b';' || b == b'#') && (j == 0 || bytes[j - 1].is_ascii_whitespace()) {
                content = &raw[..j];
                break;
            }
        }
        let content = content.trim();
        if content.is_empty() {
            continue;
        }
        if let Some(rest) = content.strip_prefix('[') {
            let name = rest.strip_suffix(']').ok_or_else(|| {
                err(format!(
                    "`{}` is not a section header",
                    crate::text::shown(content)
                ))
            })?;
            section = match name.trim().to_ascii_lowercase().as_str() {
                "general" => Section::General,
                "stencil" => Section::Stencil,
                _ => {
                    return Err(err(format!(
                        "unknown section `[{}]`: accepted are [GENERAL] and [Stencil]",
                        crate::text::shown(name.trim())
                    )));
                }
            };
            continue;
        }
        let (key, value) = content.split_once('=').ok_or_else(|| {
            err(format!(
                "`{}` is not `Key = value`",
                crate::text::shown(content)
            ))
        })?;
        let key_raw = key.trim();
        // Escaped and cut only when a message quotes it.
        let key_shown = || crate::text::shown(key_raw);
        let key = key_raw.to_ascii_lowercase();
        let value = value.trim();
        if section == Section::None {
            return Err(err(format!(
                "key `{}` before any section: put it under [GENERAL] or [Stencil]",
                key_shown()
            )));
        }
        if seen.contains(&key) {
            return Err(err(format!("duplicate key `{}`", key_shown())));
        }
        seen.push(key.clone());
        let bad = |accepted: &str| {
            err(format!(
                "invalid value `{}` for `{}`: {accepted}",
                crate::text::shown(value),
                key_shown()
            ))
        };
        let count = |accepted: &str| value.parse::<u32>().map_err(|_| bad(accepted));
        let extra = matches!(
            key.as_str(),
            "failuretrace" | "transfercost" | "outputbytes"
        );
        let general = matches!(
            key.as_str(),
            "kernel"
                | "workercount"
                | "checkpointlevel"
                | "checkpoint"
                | "recovery"
                | "fail"
                | "mtbf"
                | "seed"
                | "scheduler"
        );
        let stencil = matches!(
            key.as_str(),
            "backupcost" | "processcost" | "stencilsize" | "timesteps"
        );
        let placed = extra
            || (general && section == Section::General)
            || (stencil && section == Section::Stencil);
        if !placed {
            let hint = if general {
                " (it belongs in [GENERAL])"
            } else if stencil {
                " (it belongs in [Stencil])"
            } else {
                ""
            };
            return Err(err(format!("unknown key `{}`{hint}", key_shown())));
        }
        match key.as_str() {
            "kernel" => {
                if !value.eq_ignore_ascii_case("stencil") {
                    return Err(bad("only `Stencil` is simulated"));
                }
            }
            "scheduler" => {
                if !value.eq_ignore_ascii_case("horizontal") {
                    return Err(bad("only `Horizontal` is simulated"));
                }
            }
            "workercount" => s.workers = Some(count("a positive whole number")?),
            "checkpointlevel" => s.level = Some(count("a level 1, 2, ...")?),
            "checkpoint" => s.checkpoint = Some(yes_no(value).ok_or_else(|| bad("Y or N"))?),
            "fail" => s.fail = Some(yes_no(value).ok_or_else(|| bad("Y or N"))?),
            "recovery" => {
                s.recovery =
                    Some(Recovery::parse(value).ok_or_else(|| bad("Default or Dependency"))?)
            }
            "mtbf" => {
                s.mtbf = Some(
                    duration_ns(value).ok_or_else(|| bad("seconds or a duration such as 30m"))?,
                )
            }
            "seed" => s.seed = Some(value.parse().map_err(|_| bad("a whole number"))?),
            "backupcost" => {
                s.backup_cost = Some(decimal_or_duration(value).ok_or_else(|| bad("seconds"))?)
            }
            "processcost" => {
                s.process_cost = Some(decimal_or_duration(value).ok_or_else(|| bad("seconds"))?)
            }
            "transfercost" => {
                s.transfer_cost = Some(decimal_or_duration(value).ok_or_else(|| bad("seconds"))?)
            }
            "stencilsize" => s.width = Some(count("an even number of tasks per row")?),
            "timesteps" => s.rows = Some(count("a positive number of rows")?),
            "outputbytes" => {
                s.output_bytes = Some(
                    crate::units::parse_whole_bytes(value)
                        .ok_or_else(|| bad("positive bytes below 2^64, e.g. 1.6MB"))?,
                )
            }
            "failuretrace" => {
                let p = Path::new(value);
                s.trace = Some(if p.is_relative() {
                    folder.join(p)
                } else {
                    p.to_path_buf()
                });
            }
            _ => unreachable!("every placed key is matched"),
        }
    }
    Ok(s)
}

fn decimal_or_duration(v: &str) -> Option<Nanos> {
    duration_ns(v)
}

impl Settings {
    /// Failures are on: as set, or because a failure source is given.
    fn fail(&self) -> bool {
        self.fail
            .unwrap_or(self.mtbf.is_some() || self.trace.is_some())
    }

    /// The trace file these settings replay, if failures are on and a trace is named: the
    /// caller reads it and passes its text to [`Settings::validate`].
    pub fn trace_to_read(&self) -> Option<&Path> {
        self.trace.as_deref().filter(|_| self.fail())
    }

    /// Validates into a config. `trace_text` is the text of [`Settings::trace_to_read`] when
    /// that names a file. `seed_required`: an MTBF from a file needs a `Seed` (3.8); the seed
    /// itself is returned for the runs.
    pub fn validate(
        &self,
        seed_required: bool,
        trace_text: Option<&str>,
    ) -> Result<(StencilConfig, Option<u64>), ConfigError> {
        let invalid = |key: &str, value: String, accepted: &str| ConfigError::Invalid {
            key: key.to_string(),
            value,
            accepted: accepted.to_string(),
        };
        let width = required(
            self.width,
            "width",
            "give --width, or StencilSize in the --config file",
        )?;
        let rows = required(
            self.rows,
            "rows",
            "give --rows, or Timesteps in the --config file",
        )?;
        let workers = required(
            self.workers,
            "workers",
            "give --workers, or WorkerCount in the --config file",
        )?;
        let process_cost = required(
            self.process_cost,
            "process cost",
            "give --process-cost, or ProcessCost in the --config file",
        )?;
        let backup_cost = required(
            self.backup_cost,
            "backup cost",
            "give --backup-cost, or BackupCost in the --config file",
        )?;
        let level = self.level.unwrap_or(1);
        let checkpoint = self.checkpoint.unwrap_or(true);
        let mut cfg = StencilConfig {
            width,
            rows,
            workers,
            level,
            checkpoint,
            recovery: self.recovery.unwrap_or(Recovery::Global),
            process_cost,
            backup_cost,
            transfer_cost: self.transfer_cost.unwrap_or(backup_cost),
            failures: Failures::None,
            output_bytes: self.output_bytes,
        };
        cfg.check_shape()?;
        let mut seed = self.seed;
        let failures = if !self.fail() {
            // Nothing is drawn: a seed (of the file's, say) would only be echoed.
            seed = None;
            Failures::None
        } else if let Some(path) = &self.trace {
            let file = path.display().to_string();
            let text = trace_text.ok_or_else(|| {
                missing(
                    "FailureTrace text",
                    &format!("read {file} and pass its text to validate"),
                )
            })?;
            seed = None;
            Failures::Trace(trace_failures(text, &file, workers)?)
        } else if let Some(mtbf) = self.mtbf {
            if mtbf == 0 {
                return Err(invalid("--mtbf (MTBF)", "0".into(), "a positive duration"));
            }
            if seed.is_none() {
                if seed_required {
                    return Err(missing("Seed", "Fail = Y with MTBF needs Seed (or --seed)"));
                }
                seed = Some(42);
            }
            Failures::Poisson { mtbf }
        } else {
            return Err(missing(
                "MTBF or FailureTrace",
                "Fail = Y needs a failure source (--mtbf or --trace)",
            ));
        };
        cfg.failures = failures;
        Ok((cfg, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_nanoseconds() {
        assert_eq!(duration_ns("30m"), Some(1_800_000_000_000));
    }

    #[test]
    fn the_papers_config_reads_as_is() {
        let text = "[GENERAL]\nKernel = Stencil\nWorkerCount = 128\nCheckpointLevel = 6\nCheckpoint = Y\n\
                    Recovery = Default        ; Default = global\nFail = Y\nMTBF = 1800   # seconds\nSeed = 42\n\
                    Scheduler = Horizontal\n[Stencil]\nBackupCost = 0.0013\nProcessCost = 7.1\nStencilSize = 256\nTimesteps = 256\n";
        let s = parse_ini(text, "p.ini", Path::new(".")).unwrap();
        let (c, seed) = s.validate(true, None).unwrap();
        assert_eq!(seed, Some(42));
        assert_eq!(c.workers, 128);
        assert_eq!(c.level, 6);
        assert_eq!(c.recovery, Recovery::Global);
        assert_eq!(
            c.failures,
            Failures::Poisson {
                mtbf: 1_800_000_000_000
            }
        );
        assert_eq!(c.transfer_cost, 1_300_000);
        assert_eq!((c.width, c.rows), (256, 256));
    }

    #[test]
    fn bom_and_any_line_ending_read_as_plain() {
        let plain =
            "[GENERAL]\nWorkerCount = 2\nCheckpointLevel = 3\n[Stencil]\nProcessCost = 7.1\n";
        let want = parse_ini(plain, "p.ini", Path::new(".")).unwrap();
        for text in [
            format!("\u{feff}{plain}"),
            plain.replace('\n', "\r"),
            format!("\u{feff}{}", plain.replace('\n', "\r\n")),
        ] {
            let got = parse_ini(&text, "p.ini", Path::new(".")).unwrap();
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{text:?}");
        }
        // An error names its own line, not the whole file.
        let e = parse_ini(
            "[GENERAL]\rWorkerCount = x\rSeed = 1\r",
            "p.ini",
            Path::new("."),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("p.ini:2") && !e.contains("Seed"), "{e}");
    }

    #[test]
    fn unknown_duplicate_and_misplaced_keys_are_named() {
        let e = |t: &str| {
            parse_ini(t, "f.ini", Path::new("."))
                .unwrap_err()
                .to_string()
        };
        assert!(e("[GENERAL]\nWorkers = 3\n").contains("`Workers`"));
        assert!(e("[GENERAL]\nSeed = 1\nseed = 2\n").contains("duplicate key `seed`"));
        assert!(e("[Other]\n").contains("unknown section"));
        assert!(e("[Stencil]\nWorkerCount = 3\n").contains("belongs in [GENERAL]"));
        assert!(e("Seed = 1\n").contains("before any section"));
        assert!(e("[GENERAL]\nKernel = Heat\n").contains("Kernel"));
        assert!(e("[GENERAL]\nScheduler = DepthFirst\n").contains("Scheduler"));
        assert!(e("[GENERAL]\nCheckpoint = maybe\n").contains("Checkpoint"));
        // Extra keys stand in either section, but only once.
        assert!(
            parse_ini(
                "[GENERAL]\nTransferCost = 1\n[Stencil]\nOutputBytes = 1.6MB\n",
                "f",
                Path::new(".")
            )
            .is_ok()
        );
        assert!(
            e("[GENERAL]\nTransferCost = 1\n[Stencil]\ntransfercost = 2\n").contains("duplicate")
        );
        // `#` inside a value without white space before it is not a comment.
        assert!(e("[GENERAL]\nSeed = 4#2\n").contains("Seed"));
    }

    #[test]
    fn fail_defaults_and_seed_rules() {
        let base = "[GENERAL]\nWorkerCount = 2\n[Stencil]\nBackupCost = 1\nProcessCost = 10\nStencilSize = 4\nTimesteps = 4\n";
        let with_general = |keys: &str| {
            parse_ini(
                &base.replace("[Stencil]", &format!("{keys}\n[Stencil]")),
                "f",
                Path::new("."),
            )
            .unwrap()
        };
        let s = parse_ini(base, "f", Path::new(".")).unwrap();
        assert_eq!(s.validate(true, None).unwrap().0.failures, Failures::None);
        let s = with_general("MTBF = 30m");
        assert!(
            s.validate(true, None)
                .unwrap_err()
                .to_string()
                .contains("Seed")
        );
        assert_eq!(s.validate(false, None).unwrap().1, Some(42));
        let s = with_general("MTBF = 30m\nSeed = 7");
        assert_eq!(s.validate(true, None).unwrap().1, Some(7));
        let s = with_general("Fail = N\nMTBF = 5");
        assert_eq!(s.validate(true, None).unwrap().0.failures, Failures::None);
        let s = with_general("Fail = Y");
        assert!(s.validate(true, None).is_err());
        let s = parse_ini(
            &base.replace("Timesteps = 4", "Timesteps = 4\nStencilSize2 = 1"),
            "f",
            Path::new("."),
        );
        assert!(s.is_err());
        let mut s = parse_ini(base, "f", Path::new(".")).unwrap();
        s.level = Some(3);
        assert!(
            s.validate(true, None)
                .unwrap_err()
                .to_string()
                .contains("level")
        );
    }

    #[test]
    fn traces_sort_stably_and_name_the_line() {
        let rows = trace_failures("# t,w\n5,1\n\n2.5,0\n5,0 # again\n", "t.csv", 2).unwrap();
        let v: Vec<_> = rows.iter().map(|f| (f.time, f.worker)).collect();
        assert_eq!(
            v,
            [(2_500_000_000, 0), (5_000_000_000, 1), (5_000_000_000, 0)]
        );
        let e = trace_failures("1,0\n-3,1\n", "t.csv", 2)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("t.csv, line 2") && e.contains("time_seconds") && e.contains("-3"),
            "{e}"
        );
        let e = trace_failures("1,x\n", "t.csv", 2).unwrap_err().to_string();
        assert!(e.contains("worker"), "{e}");
        assert!(trace_failures("1\n", "t.csv", 2).is_err());
        assert!(trace_failures("1,2,3\n", "t.csv", 4).is_err());
        let e = trace_failures("1,2\n", "t.csv", 2).unwrap_err().to_string();
        assert!(
            e.contains("line 1, field worker: `2` is out of range"),
            "{e}"
        );
    }

    #[test]
    fn a_named_trace_is_read_by_the_caller() {
        let base = "[GENERAL]\nWorkerCount = 2\nFailureTrace = t.csv\n[Stencil]\nBackupCost = 1\nProcessCost = 10\nStencilSize = 4\nTimesteps = 4\n";
        let s = parse_ini(base, "f", Path::new("runs")).unwrap();
        assert_eq!(s.trace_to_read(), Some(Path::new("runs/t.csv")));
        assert!(
            s.validate(true, None)
                .unwrap_err()
                .to_string()
                .contains("t.csv")
        );
        let (c, seed) = s.validate(true, Some("3,1\n")).unwrap();
        assert_eq!(
            c.failures,
            Failures::Trace(vec![TraceFailure {
                time: 3_000_000_000,
                worker: 1
            }])
        );
        assert_eq!(seed, None);
        let off = parse_ini(
            &base.replace("[Stencil]", "Fail = N\n[Stencil]"),
            "f",
            Path::new("."),
        )
        .unwrap();
        assert_eq!(off.trace_to_read(), None);
    }

    #[test]
    fn flags_override_the_file() {
        let file = Settings {
            mtbf: Some(5),
            workers: Some(3),
            ..Default::default()
        };
        let flags = Settings {
            trace: Some("x.csv".into()),
            workers: Some(4),
            ..Default::default()
        };
        let s = file.overridden_by(&flags);
        assert_eq!(s.workers, Some(4));
        assert_eq!(s.mtbf, None);
        assert_eq!(s.trace, Some(PathBuf::from("x.csv")));
    }
}

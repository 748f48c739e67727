//! The `ckpt` binary: parse, call the library, print, set the exit status.

use anyhow::Result;
mod cli;

use ckpt::progress::Progress;
use clap::{CommandFactory, FromArgMatches};
use cli::{Cli, CliError, Command};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::Duration;

fn main() -> ExitCode {
    // The subcommands named, for framing a refusal that comes after parsing.
    let mut path = Vec::new();
    let parsed = cli::messages::command()
        .try_get_matches()
        .and_then(|mut m| {
            let mut at = &m;
            while let Some((name, sub)) = at.subcommand() {
                path.push(name.to_string());
                at = sub;
            }
            Cli::from_arg_matches_mut(&mut m)
        });
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return ExitCode::from(
                    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        2
                    } else {
                        0
                    },
                );
            }
            // One line naming the argument, the value and what is accepted; clap's own
            // rendering adds a usage block and a tip that scripts do not want.
            let text = cli::messages::clap_text(&e);
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("error: bad arguments");
            let accepted = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("[possible values:"));
            let line = match accepted {
                Some(values) => format!("{} {}", line.trim(), values),
                None => line.trim().to_string(),
            };
            say(&cli::messages::clap_line(&e, &line));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`ckpt ... | head`) is not a failure.
        Err(e) if cli::output::is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(w) = cli::output::write_error(&e) {
                say(&format!("error: {w}"));
                return ExitCode::from(w.exit_code() as u8);
            }
            let cli_error = e.downcast_ref::<CliError>();
            let line = match cli_error {
                Some(CliError::Invalid {
                    arg,
                    value,
                    accepted,
                }) => cli::messages::invalid_line(&path, arg, value, accepted),
                Some(CliError::Missing { arg, needed }) => {
                    cli::messages::missing_line(&path, arg, needed)
                }
                _ => e.to_string(),
            };
            say(&format!("error: {line}"));
            ExitCode::from(cli_error.map_or(1, CliError::exit_code) as u8)
        }
    }
}

/// One line on stderr; a closed stderr is not worth a panic (as `eprintln!` would).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The arguments after `ckpt`, as typed, for the record a report or a shard keeps of its
/// command line; a path that is not UTF-8 is recorded with U+FFFD where its bytes were (clap
/// has already read the arguments themselves, bytes and all).
fn argv() -> Vec<String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// Writes a command's report folder, if it has one (whole, see `cli::outdir`), then prints its
/// text.
fn emit(out: &mut impl Write, output: ckpt::job::Output, force: bool) -> Result<()> {
    if let Some(dir) = &output.out {
        cli::outdir::write_report(dir, &output.files, force)?;
    }
    out.write_all(output.text.as_bytes())?;
    Ok(())
}

/// A progress bar on stderr, drawn only when stderr is a terminal, `--quiet` is not given, and
/// the work has already taken a second (short runs never flash a bar).
struct Bar {
    enabled: bool,
    bar: RwLock<Option<ProgressBar>>,
    shown: AtomicBool,
    /// A warning about the inputs, printed above the bar when the bar first shows: a person
    /// watching a long run of a probably mistyped input can stop it then, not hours later.
    warning: Mutex<Option<String>>,
}

impl Bar {
    fn new(quiet: bool) -> Bar {
        Bar {
            enabled: !quiet && std::io::stderr().is_terminal(),
            bar: RwLock::new(None),
            shown: AtomicBool::new(false),
            warning: Mutex::new(None),
        }
    }

    /// The bar, with `warning` to print when it first shows.
    fn warning(self, warning: Option<String>) -> Bar {
        Bar {
            warning: Mutex::new(warning),
            ..self
        }
    }

    /// The warning, if the bar has not printed it.
    fn unsaid(&self) -> Option<String> {
        self.warning.lock().ok()?.take()
    }
}

impl Progress for Bar {
    fn start(&self, what: &str, total: u64) {
        if !self.enabled {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len}, {eta} left")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what.to_string());
        self.shown.store(false, Ordering::Relaxed);
        if let Ok(mut slot) = self.bar.write() {
            *slot = Some(bar);
        }
    }

    fn tick(&self) {
        let Ok(slot) = self.bar.read() else { return };
        if let Some(bar) = slot.as_ref() {
            bar.inc(1);
            if !self.shown.load(Ordering::Relaxed)
                && bar.elapsed() >= Duration::from_secs(1)
                && !self.shown.swap(true, Ordering::Relaxed)
            {
                if let Some(w) = self.unsaid() {
                    say(&w);
                }
                bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }

    fn finish(&self) {
        if let Ok(mut slot) = self.bar.write()
            && let Some(bar) = slot.take()
        {
            bar.finish_and_clear();
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let mut out = cli::output::Stdout(std::io::stdout().lock());
    // A warning about the inputs, printed once the command has answered (shown even with
    // `--quiet`, which hides progress only): a refusal stays one line on stderr. A long run
    // whose progress bar shows prints it above the bar instead (see `Bar`).
    let mut warning: Option<String> = None;
    let mut warn = |w: Option<String>| warning = warning.take().or(w);
    match cli.command {
        Command::Interval(args) => {
            warn(cli::warn::cost_against_mtbf(&args.model));
            let text = crate::cli::interval::run(&args)?;
            out.write_all(text.as_bytes())?;
        }
        Command::Sweep(args) => {
            args.validate()?;
            // A shard leaves the report folder to `ckpt merge`.
            if args.shard.shard.is_none() {
                cli::outdir::prepare(&args.out, Some("sweep"), args.force)?;
            }
            let progress = Bar::new(args.quiet).warning(cli::warn::cost_against_mtbf(&args.model));
            let output = crate::cli::sweep::run(&args, &argv(), &progress)?;
            emit(&mut out, output, args.force)?;
            warn(progress.unsaid());
        }
        Command::Validate(args) => {
            args.validate()?;
            if let (Some(dir), None) = (&args.out, args.shard.shard) {
                cli::outdir::prepare(dir, Some("validate"), args.force)?;
            }
            let progress = Bar::new(args.quiet).warning(cli::warn::cost_against_mtbf(&args.model));
            let output = crate::cli::validate::run(&args, &argv(), &progress)?;
            emit(&mut out, output, args.force)?;
            warn(progress.unsaid());
        }
        Command::Fit(args) => {
            let (text, warning) = crate::cli::fit::run(&args)?;
            warn(warning);
            out.write_all(text.as_bytes())?;
        }
        Command::Completions { shell } => {
            // Generated in memory: clap_complete panics on a failed write.
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "ckpt", &mut text);
            out.write_all(&text)?;
        }
        Command::Man(args) => out.write_all(&cli::man::run(&args)?)?,
        Command::Simulate(args) => {
            let bar = Bar::new(args.quiet()).warning(cli::warn::simulate_cost(&args));
            let text = crate::cli::simulate::run(args, &argv(), &bar)?;
            out.write_all(text.as_bytes())?;
            warn(bar.unsaid());
        }
        Command::Survive(args) => {
            let text = crate::cli::encoding::run_survive(&args, &Bar::new(args.quiet))?;
            out.write_all(text.as_bytes())?;
        }
        Command::Encode(args) => {
            let text = crate::cli::encoding::run_encode(&args, &Bar::new(args.quiet))?;
            out.write_all(text.as_bytes())?;
        }
        Command::Merge(args) => {
            if let Some(dir) = &args.out {
                cli::outdir::prepare(dir, None, args.force)?;
            }
            emit(&mut out, crate::cli::merge::run(&args)?, args.force)?;
        }
        Command::Pcg(args) => {
            let text = crate::cli::encoding::run_pcg_command(&args, &Bar::new(args.quiet))?;
            out.write_all(text.as_bytes())?;
        }
    }
    out.flush()?;
    if let Some(w) = warning {
        say(&w);
    }
    Ok(())
}

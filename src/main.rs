//! The `ckpt` binary: parse, call the library, print, set the exit status.

use anyhow::{Context, Result};
use ckpt::cli::{Cli, CliError, Command, Progress};
use clap::{CommandFactory, Parser};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
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
            let text = e.to_string();
            let line = text
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("error: bad arguments");
            let accepted = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("[possible values:"));
            match accepted {
                Some(values) => eprintln!("{} {}", line.trim(), values),
                None => eprintln!("{}", line.trim()),
            }
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let code = e
                .downcast_ref::<CliError>()
                .map(|c| c.exit_code())
                .unwrap_or(1);
            eprintln!("error: {e}");
            ExitCode::from(code as u8)
        }
    }
}

/// The command line as typed, for the reports that quote it.
fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("ckpt {}", args.join(" "))
}

/// Creates `dir` and checks it can be written to, before any work starts.
fn prepare_out_dir(dir: &Path) -> Result<()> {
    let bad = |why: String| CliError::Invalid {
        arg: "--out",
        value: dir.display().to_string(),
        accepted: format!("a folder that can be created and written to ({why})"),
    };
    std::fs::create_dir_all(dir).map_err(|e| bad(e.to_string()))?;
    let probe = dir.join(".ckpt-write-test");
    std::fs::write(&probe, b"").map_err(|e| bad(e.to_string()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

fn write_files(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<()> {
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// A progress bar on stderr, shown only when stderr is a terminal, `--quiet` is not given,
/// and the work has run for about a second.
struct Bar {
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Bar {
    fn new(quiet: bool) -> Bar {
        let show = !quiet && std::io::stderr().is_terminal();
        let bar = show.then(|| {
            let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            b.set_style(
                ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta})")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            b
        });
        Bar {
            bar,
            started: Instant::now(),
        }
    }
}

impl Progress for Bar {
    fn start(&self, what: &str, total: u64) {
        if let Some(b) = &self.bar {
            b.set_length(total);
            b.set_message(what.to_string());
        }
    }
    fn tick(&self) {
        if let Some(b) = &self.bar {
            if b.is_hidden() && self.started.elapsed() > Duration::from_secs(1) {
                b.set_draw_target(ProgressDrawTarget::stderr());
            }
            b.inc(1);
        }
    }
    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Interval(args) => {
            let text = ckpt::cli::interval::run(&args)?;
            out.write_all(text.as_bytes())?;
        }
        Command::Sweep(args) => {
            args.validate()?;
            prepare_out_dir(&args.out)?;
            let progress = Bar::new(args.quiet);
            let output = ckpt::cli::sweep::run(&args, &command_line(), &progress)?;
            write_files(&args.out, &output.files)?;
            writeln!(
                out,
                "{}; report in {}",
                output.summary,
                args.out.join("report.md").display()
            )?;
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "ckpt", &mut out);
        }
        Command::Man => {
            clap_mangen::Man::new(Cli::command()).render(&mut out)?;
        }
    }
    out.flush()?;
    Ok(())
}

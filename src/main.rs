//! The `ckpt` binary: parse, call the library, print, set the exit status.

use anyhow::Result;
use ckpt::cli::{Cli, CliError, Command};
use clap::{CommandFactory, Parser};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
                let _ = e.print();
                return ExitCode::from(if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand { 2 } else { 0 });
            }
            // One line naming the argument, the value and what is accepted; clap's own
            // rendering adds a usage block and a tip that scripts do not want.
            let text = e.to_string();
            let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("error: bad arguments");
            eprintln!("{}", line.trim());
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let code = e.downcast_ref::<CliError>().map(|c| c.exit_code()).unwrap_or(1);
            eprintln!("error: {e}");
            ExitCode::from(code as u8)
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "ckpt", &mut out);
        }
        Command::Man => {
            clap_mangen::Man::new(Cli::command()).render(&mut out)?;
        }
        Command::Simulate(a) => match a.simulator {
            ckpt::cli::simulate::Simulator::Stencil(s) => {
                writeln!(out, "{}", ckpt::cli::stencil::run(&s, &Bar::default())?)?;
            }
        },
    }
    out.flush()?;
    Ok(())
}

/// The progress bar on stderr; indicatif draws nothing when stderr is not a terminal.
#[derive(Default)]
struct Bar(std::sync::OnceLock<indicatif::ProgressBar>);

impl ckpt::cli::Progress for Bar {
    fn start(&self, what: &str, total: u64) {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_message(what.to_string());
        let _ = self.0.set(bar);
    }
    fn tick(&self) {
        if let Some(b) = self.0.get() {
            b.inc(1);
        }
    }
    fn finish(&self) {
        if let Some(b) = self.0.get() {
            b.finish_and_clear();
        }
    }
}

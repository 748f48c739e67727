//! `ckpt man`: manual pages generated from the clap definitions, one per command and
//! subcommand (`ckpt.1`, `ckpt-interval.1`, `ckpt-simulate-periodic.1`, ...), so that every page
//! a SEE ALSO or SUBCOMMANDS list names exists.

use super::{Cli, CliError};
use clap::{Args, CommandFactory};
use std::path::{Path, PathBuf};

/// `ckpt man` arguments.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// The command whose page to print, as typed after `ckpt` (e.g. `interval`, `simulate
    /// periodic`); none: the page of `ckpt` itself.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Write every page (ckpt.1, ckpt-interval.1, ckpt-simulate-periodic.1, ...) into this
    /// folder instead of printing one; other files in it are left alone.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
}

/// Examples shown under `ckpt man --help`.
pub const EXAMPLES: &str = "Examples:
  ckpt man | man -l -                      # ckpt's own page
  ckpt man simulate periodic > ckpt-simulate-periodic.1
  ckpt man --dir ~/.local/share/man/man1   # every page; then `man ckpt-interval`";

/// The command tree the pages are made from: the parser's own definitions without clap's
/// `help` subcommands (`--help` stays), which have no page of their own.
fn tree() -> clap::Command {
    fn no_help(cmd: clap::Command) -> clap::Command {
        cmd.disable_help_subcommand(true).mut_subcommands(no_help)
    }
    let mut cmd = no_help(Cli::command());
    // Gives every subcommand its display name (`ckpt-simulate-periodic`): the page's title and
    // file name, and the name its parent's page lists it under.
    cmd.build();
    cmd
}

fn render(cmd: &clap::Command) -> Result<(String, Vec<u8>), CliError> {
    // Every page names the package it comes from (a subcommand has no version of its own).
    let man =
        clap_mangen::Man::new(cmd.clone()).source(format!("ckpt {}", env!("CARGO_PKG_VERSION")));
    let mut text = Vec::new();
    man.render(&mut text)
        .map_err(|e| CliError::Internal(format!("manual page: {e}")))?;
    Ok((man.get_filename(), text))
}

/// Every page, `(file name, roff)`: `ckpt` first, then each command before its subcommands.
pub fn pages() -> Result<Vec<(String, Vec<u8>)>, CliError> {
    fn walk(cmd: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> Result<(), CliError> {
        out.push(render(cmd)?);
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, out)?;
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(&tree(), &mut out)?;
    Ok(out)
}

/// The page of the command `path` names (`["simulate", "periodic"]`; empty: `ckpt`).
pub fn page(path: &[String]) -> Result<Vec<u8>, CliError> {
    let root = tree();
    let mut cmd = &root;
    for (depth, name) in path.iter().enumerate() {
        let subs: Vec<&clap::Command> =
            cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
        cmd = match subs.iter().find(|s| s.get_name() == name) {
            Some(s) => s,
            None => {
                let parent = std::iter::once("ckpt")
                    .chain(path[..depth].iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                let names: Vec<&str> = subs.iter().map(|s| s.get_name()).collect();
                return Err(CliError::Invalid {
                    arg: "COMMAND",
                    value: path.join(" "),
                    accepted: if names.is_empty() {
                        format!("`{parent}` has no subcommands")
                    } else {
                        format!("a command of `{parent}`: {}", names.join(", "))
                    },
                });
            }
        };
    }
    Ok(render(cmd)?.1)
}

/// Writes every page into `dir` (created if need be). Each file is written beside its final
/// name and renamed onto it, so a killed run leaves each page old or new, never cut short;
/// files that are not ckpt's pages are not touched. Returns the names written.
pub fn write_dir(dir: &Path) -> Result<Vec<String>, CliError> {
    let fail = |path: &Path, e: std::io::Error| CliError::Write {
        what: path.display().to_string(),
        reason: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    let pages = pages()?;
    for (name, text) in &pages {
        let path = dir.join(name);
        let temp = dir.join(format!(".{name}.ckpt-new-{}", std::process::id()));
        if let Err(e) = std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, &path)) {
            let _ = std::fs::remove_file(&temp);
            return Err(fail(&path, e));
        }
    }
    Ok(pages.into_iter().map(|(name, _)| name).collect())
}

/// Runs `ckpt man`: the roff to print, or the line saying which pages were written.
pub fn run(args: &ManArgs) -> Result<Vec<u8>, CliError> {
    match &args.dir {
        Some(dir) => {
            let names = write_dir(dir)?;
            Ok(format!(
                "{} manual pages written to {}\n",
                names.len(),
                dir.display()
            )
            .into_bytes())
        }
        None => page(&args.command),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flag whose default clap shows (`[default: X]`) does not state a default in its text
    /// too: `--help` showed two, sometimes different.
    #[test]
    fn one_default_per_flag() {
        fn walk(cmd: &clap::Command, bad: &mut Vec<String>) {
            for a in cmd.get_arguments() {
                let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                let long = a.get_long_help().map(|h| h.to_string()).unwrap_or_default();
                let shown = !a.get_default_values().is_empty() && !a.is_hide_default_value_set();
                if shown && (help.contains("default") || long.contains("default")) {
                    bad.push(format!("{} --{}", cmd.get_name(), a.get_id()));
                }
            }
            for s in cmd.get_subcommands() {
                walk(s, bad);
            }
        }
        let mut bad = Vec::new();
        walk(&tree(), &mut bad);
        assert!(bad.is_empty(), "{bad:?}");
    }

    #[test]
    fn a_subcommand_page_has_its_flags() {
        let text = String::from_utf8(page(&["simulate".into(), "periodic".into()]).unwrap())
            .unwrap()
            .replace("\\-", "-");
        assert!(text.contains(".TH ckpt-simulate-periodic 1"), "{text}");
        assert!(text.contains("--interval") && text.contains("--work"));
        assert!(matches!(
            page(&["simulate".into(), "nope".into()]),
            Err(CliError::Invalid { arg: "COMMAND", .. })
        ));
    }
}

//! clap's errors as one line: the argument, the value and what is accepted, with the names a
//! missing-argument error lists and clap's "did you mean" tip kept (its usage block is not).

use super::Cli;
use clap::CommandFactory;
use clap::error::ErrorKind;
use std::any::TypeId;
use std::path::PathBuf;

/// The command line as clap parses it, with every typed option's value handed to that option's
/// own value parser even when it starts with `-`: `--mtbf -5m` is then refused by the rule of
/// `--mtbf`, in one line naming the flag, the value and what is accepted, not as an "unexpected
/// argument '-5'".
pub fn command() -> clap::Command {
    hyphen_values(Cli::command())
}

fn hyphen_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        if !a.get_action().takes_values() || a.is_positional() {
            return a;
        }
        let value = a.get_value_parser().type_id();
        // Text and paths accept nearly anything, so they would take the next flag of a
        // forgotten value as theirs (`--out --force` a folder named `--force`): only negative
        // numbers pass. A raw-text flag read later as a number says so with its own
        // `allow_hyphen_values`.
        if value == TypeId::of::<String>() || value == TypeId::of::<PathBuf>() {
            a.allow_negative_numbers(true)
        } else {
            a.allow_hyphen_values(true)
        }
    })
    .mut_subcommands(hyphen_values)
}

/// The one line printed for clap's error `e`, whose first line (with the accepted values, if
/// clap listed them) is `first`.
pub fn clap_line(e: &clap::Error, first: &str) -> String {
    let text = e.render().to_string();
    // The indented lines right under the first: the missing arguments, or a tip.
    let detail: Vec<&str> = text
        .lines()
        .skip(1)
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty() && l.starts_with(' '))
        .map(str::trim)
        .collect();
    let mut line = first.trim_end().to_string();
    match e.kind() {
        ErrorKind::MissingRequiredArgument if !detail.is_empty() => {
            line = format!("{} {}", line.trim_end_matches(':'), detail.join(", "));
            if !line.contains(':') {
                line.push(':');
            }
            // clap's wording ends its first line with a colon; the names follow it.
            line = line.replacen("provided ", "provided: ", 1);
        }
        _ => {
            if let Some(tip) = detail.iter().find(|l| l.starts_with("tip:")) {
                line = format!("{line} ({tip})");
            }
        }
    }
    if text.contains("try '--help'") {
        line.push_str("; see --help");
    }
    line
}

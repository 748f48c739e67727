//! Refusals as one line: the argument, the value and what is accepted, in clap's frame whether
//! clap or a later check refused the value, with the names a missing-argument error lists and
//! clap's "did you mean" tip kept (its usage block is not).

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

/// clap's text of `e`, with every value or argument that holds a control character (a newline
/// typed inside quotes) escaped, so that the refusal stays one line and shows the whole value.
pub fn clap_text(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let mut text = e.to_string();
    for kind in [ContextKind::InvalidValue, ContextKind::InvalidArg] {
        let given: Vec<&String> = match e.get(kind) {
            Some(ContextValue::String(v)) => vec![v],
            Some(ContextValue::Strings(v)) => v.iter().collect(),
            _ => Vec::new(),
        };
        for v in given {
            if v.chars().any(char::is_control) {
                text = text.replace(v.as_str(), &ckpt::text::escaped(v));
            }
        }
    }
    text
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
        // clap lists two or more conflicting arguments under a first line that ends in a colon.
        ErrorKind::ArgumentConflict if line.ends_with(':') && !detail.is_empty() => {
            let names: Vec<&str> = detail
                .iter()
                .copied()
                .filter(|l| !l.starts_with("tip:"))
                .collect();
            line = format!("{line} {}", names.join(", "));
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

/// The line for a value a check after parsing refused ([`super::CliError::Invalid`]), in the
/// frame clap gives the values it refuses itself: `invalid value 'V' for '--FLAG <NAME>': A;
/// see --help`, with the value name the help of `path`'s command shows beside `arg`. An
/// argument that is not one flag of that command (a file, a group of flags) is named as given.
pub fn invalid_line(path: &[String], arg: &str, value: &str, accepted: &str) -> String {
    let named = label(path, arg);
    let value = ckpt::text::escaped(value);
    format!("invalid value '{value}' for '{named}': {accepted}; see --help")
}

/// The line for an argument the others make necessary ([`super::CliError::Missing`]), in the
/// frame of clap's own missing-argument refusal, with what it must give.
pub fn missing_line(path: &[String], arg: &str, needed: &str) -> String {
    let named = label(path, arg);
    format!("the following required arguments were not provided: {named}: {needed}; see --help")
}

/// `arg` as the help of `path`'s command shows it: `--FLAG <NAME>`, or as given when it is not
/// one flag of that command.
fn label(path: &[String], arg: &str) -> String {
    let mut cmd = Cli::command();
    for name in path {
        match cmd.find_subcommand(name) {
            Some(sub) => cmd = sub.clone(),
            None => break,
        }
    }
    arg.strip_prefix("--")
        .and_then(|long| cmd.get_arguments().find(|a| a.get_long() == Some(long)))
        .and_then(|a| a.get_value_names()?.first().map(|n| format!("{arg} <{n}>")))
        .unwrap_or_else(|| arg.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_later_refusal_names_the_flag_as_its_command_help_does() {
        assert_eq!(
            invalid_line(&path(&["simulate", "stencil"]), "--level", "5", "more"),
            "invalid value '5' for '--level <N>': more; see --help"
        );
        assert_eq!(
            invalid_line(&path(&["interval"]), "--level", "5", "more"),
            "invalid value '5' for '--level <cost=D[,restart=D][,mtbf=D][,name=N]>': more; see --help"
        );
    }

    #[test]
    fn a_missing_argument_reads_as_clap_says_it() {
        assert_eq!(
            missing_line(&path(&["encode"]), "--checksums", "a checksum count"),
            "the following required arguments were not provided: --checksums <N>: a checksum count; see --help"
        );
    }

    #[test]
    fn what_is_not_one_flag_is_named_as_given() {
        assert_eq!(
            invalid_line(&path(&["fit"]), "FAILURES.csv", "x", "a log"),
            "invalid value 'x' for 'FAILURES.csv': a log; see --help"
        );
        assert_eq!(
            invalid_line(&path(&["interval"]), "--no-such", "x", "y"),
            "invalid value 'x' for '--no-such': y; see --help"
        );
    }
}

//! clap's errors as one line: the argument, the value and what is accepted, with the names a
//! missing-argument error lists and clap's "did you mean" tip kept (its usage block is not).

use super::Cli;
use clap::CommandFactory;
use clap::error::ErrorKind;

/// The command line as clap parses it, with negative numbers handed to each option's own value
/// parser: `--process-cost -1` is then refused by the rule of `--process-cost`, not as an
/// "unexpected argument '-1'".
pub fn command() -> clap::Command {
    allow_negative(Cli::command())
}

fn allow_negative(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        if a.get_action().takes_values() && !a.is_positional() {
            a.allow_negative_numbers(true)
        } else {
            a
        }
    })
    .mut_subcommands(allow_negative)
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

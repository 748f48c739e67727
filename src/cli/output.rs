//! Standard output as the binary writes it: a reader that went away ends the run quietly (as
//! `ckpt ... | head` expects), any other failure is one line with the system's reason.

use super::CliError;
use std::io::{self, Write};

/// Standard output; its write errors say they came from standard output.
pub struct Stdout<W: Write>(pub W);

fn stdout_error(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return e;
    }
    io::Error::new(
        e.kind(),
        CliError::Write {
            what: "standard output".into(),
            reason: e.to_string(),
        },
    )
}

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(stdout_error)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(stdout_error)
    }
}

/// Whether `e` is a write to a pipe whose reader has gone: the run is over, not failed.
pub fn is_closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// The exit status and line of an error that wraps a [`CliError::Write`] in an `io::Error`.
pub fn write_error(e: &anyhow::Error) -> Option<&CliError> {
    e.chain().find_map(|c| {
        c.downcast_ref::<io::Error>()
            .and_then(|io| io.get_ref())
            .and_then(|inner| inner.downcast_ref::<CliError>())
    })
}

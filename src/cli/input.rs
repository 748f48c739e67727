//! Input files: the binary reads them, the library parses their text.

use super::CliError;
use std::io::Read;
use std::path::Path;

/// The largest input file read (traces, configurations, failure logs, shards): far beyond any
/// real one, and small enough that a wrong path such as `/dev/zero` is refused in a moment
/// instead of filling memory.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// The largest shard file `ckpt merge` reads: shards are ckpt's own output, whose size follows
/// from the runs (450 bytes a run of a 25-point validation), so they get more room than other
/// inputs, and `--shard` refuses to print a larger one.
pub const MAX_SHARD_BYTES: u64 = 1 << 30;

/// How an input is named on the command line to be read from standard input instead of a
/// file (`sacct ... | ckpt fit -`).
pub const STDIN: &str = "-";

/// How messages name the input at `path`: `<stdin>` for [`STDIN`], else the path, its control
/// characters escaped (a file name holding a newline would break the one-line message).
pub fn name_of(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".into()
    } else {
        ckpt::text::escaped(&path.display().to_string())
    }
}

/// The folder the relative paths inside the file at `path` are read from: its own, or the
/// working folder (`.`) for a bare file name or standard input. Never empty, so that a path
/// `-` inside names a file, not standard input again.
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() && !is_stdin(path) => p,
        _ => Path::new("."),
    }
}

fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

/// Set once standard input has been read: a second argument naming it would read nothing.
static STDIN_TAKEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The bytes of the file at `path` (standard input for [`STDIN`]), or why not (the file
/// cannot be read, is larger than [`MAX_INPUT_BYTES`], or is standard input a second time).
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, String> {
    if is_stdin(path) {
        if STDIN_TAKEN.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return Err(
                "standard input is read once, and another argument already reads it".into(),
            );
        }
        return read_stream(std::io::stdin().lock(), None, MAX_INPUT_BYTES);
    }
    read_within(path, MAX_INPUT_BYTES)
}

/// The bytes of the file at `path` (a file only), at most `limit` of them.
pub fn read_within(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    // A regular file says its size: one too large is refused before a byte is read. Pipes and
    // devices say nothing useful, so the bounded read below stays the rule for them.
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    read_stream(file, size, limit)
}

/// At most `limit` bytes of `input`, whose size is `size` when known beforehand.
fn read_stream(input: impl Read, size: Option<u64>, limit: u64) -> Result<Vec<u8>, String> {
    let too_large = || {
        format!(
            "larger than {} MiB, the most an input file may hold",
            limit >> 20
        )
    };
    if size.is_some_and(|len| len > limit) {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(size.unwrap_or(0) as usize);
    input
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The text of the file at `path`, given by `arg` (a flag, or the setting that names it); the
/// error names both and says what the file should be (`what`, such as `trace file`).
pub fn read_text(arg: &'static str, path: &Path, what: &str) -> Result<String, CliError> {
    let bad = |why: String| CliError::Invalid {
        arg,
        value: path.display().to_string(),
        accepted: format!("a readable {what} ({why})"),
    };
    let bytes = read_bounded(path).map_err(bad)?;
    String::from_utf8(bytes).map_err(|e| {
        bad(format!(
            "stream did not contain valid UTF-8: invalid byte at offset {}",
            e.utf8_error().valid_up_to()
        ))
    })
}

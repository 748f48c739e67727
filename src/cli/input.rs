//! Input files: the binary reads them, the library parses their text.

use super::CliError;
use std::path::Path;

/// The text of the file at `path`, given by `arg` (a flag, or the setting that names it); the
/// error names both and says what the file should be (`what`, such as `trace file`).
pub fn read_text(arg: &'static str, path: &Path, what: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError::Invalid {
        arg,
        value: path.display().to_string(),
        accepted: format!("a readable {what} ({e})"),
    })
}

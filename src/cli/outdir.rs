//! Report folders (`--out DIR`) written so that a run killed at any moment leaves either the
//! previous complete report or the new complete one: the files go to a fresh folder beside
//! `DIR`, which then takes `DIR`'s place by renames (on Linux the two folders swap names in one
//! step; elsewhere the old folder is moved aside first and removed last); where `DIR`'s parents are missing too, the fresh folder stands for the
//! outermost of them, with `DIR` inside, so that no parent appears before the report. A folder
//! holding anything but a report of the same command is replaced only with `--force`.

use super::CliError;
use std::path::{Path, PathBuf};

/// The report files' folder `dir`, replaced by one holding exactly `files`.
pub fn write_report(dir: &Path, files: &[(String, Vec<u8>)], force: bool) -> Result<(), CliError> {
    let write_err = |path: &Path, e: std::io::Error| CliError::Write {
        what: path.display().to_string(),
        reason: e.to_string(),
    };
    let existing = listing(dir).map_err(|e| write_err(dir, e))?;
    if !force && let Some(foreign) = foreign_file(&existing, files) {
        return Err(refusal(dir, &foreign));
    }
    // Where `dir`'s parents are missing too, the outermost missing one is staged instead, with
    // `dir` inside it, so that one rename brings in the whole new branch: a run killed before
    // it leaves no empty parents behind, only the hidden staging folder beside them.
    let top = outermost_missing(dir);
    let staging = sibling(top, "new");
    let staged_dir = within(&staging, dir, top);
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staged_dir).map_err(|e| write_err(&staged_dir, e))?;
    for (name, bytes) in files {
        let path = staged_dir.join(name);
        if let Err(e) = std::fs::write(&path, bytes) {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(write_err(&dir.join(name), e));
        }
    }
    // Over an earlier report the two folders swap names in one step where the system can, so
    // that no moment is without a complete `dir`; elsewhere the old one is moved aside first,
    // which leaves a window of microseconds without it.
    if top == dir && exchange(&staging, dir).is_ok() {
        let _ = std::fs::remove_dir_all(&staging);
        return Ok(());
    }
    let old = sibling(dir, "old");
    let moved = match std::fs::rename(dir, &old) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(write_err(dir, e));
        }
    };
    if let Err(e) = std::fs::rename(&staging, top) {
        if moved {
            let _ = std::fs::rename(&old, dir);
        }
        let _ = std::fs::remove_dir_all(&staging);
        return Err(write_err(dir, e));
    }
    if moved {
        let _ = std::fs::remove_dir_all(&old);
    }
    Ok(())
}

/// Checks, before any work starts, that [`write_report`] will be able to put a report at
/// `dir`: that `dir` names a folder (not `.`, `..` or `/`, which no rename can replace), that
/// an existing `dir` is a folder it can list, and that the hidden folder it stages the report
/// in can be made beside `dir` (or beside its outermost missing parent) and written to. With
/// the stem of the command's data files (`sweep`) and without `force`, also refuses at once a
/// folder the finished report would be refused: one holding another command's data file
/// (`STEM.json` and `STEM.csv` are its own) or a file no report writes. (A folder it passes
/// may still be refused at the end, for a plot name only the finished report knows; none is
/// today.) The folder it makes for the check is removed again, so that a run refused or killed
/// later leaves `DIR` as it found it.
pub fn prepare(dir: &Path, stem: Option<&str>, force: bool) -> Result<(), CliError> {
    let bad = |why: String| CliError::Invalid {
        arg: "--out",
        value: dir.display().to_string(),
        accepted: format!("a folder that can be created and written to ({why})"),
    };
    if !names_a_folder(dir) {
        return Err(bad(
            "name the folder, not `.`, `..` or `/`: the report takes its place by a rename".into(),
        ));
    }
    // A dangling link is replaced as a missing folder is.
    match std::fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => return Err(bad("it is a file".into())),
        Ok(_) => {
            let existing = listing(dir).map_err(|e| bad(e.to_string()))?;
            if let Some(stem) = stem
                && !force
                && let Some(foreign) = surely_foreign(&existing, stem)
            {
                return Err(refusal(dir, &foreign));
            }
        }
        Err(_) => {}
    }
    let top = outermost_missing(dir);
    let staging = sibling(top, "check");
    let trial = within(&staging, dir, top);
    let checked = std::fs::create_dir_all(&trial).and_then(|()| {
        std::fs::write(trial.join(".ckpt-write-test"), b"")?;
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&staging);
    checked.map_err(|e| bad(e.to_string()))
}

/// Whether the path's last part names a folder that a rename can replace: not `.` or `..`
/// (`out/.` included), nor the root.
fn names_a_folder(dir: &Path) -> bool {
    let bytes = dir.as_os_str().as_encoded_bytes();
    let trimmed = match bytes.iter().rposition(|&b| b != b'/') {
        Some(end) => &bytes[..=end],
        None => return false,
    };
    let last = trimmed.rsplit(|&b| b == b'/').next().unwrap_or(trimmed);
    last != b"." && last != b".."
}

/// Swaps the names of the folders `a` and `b` in one step (Linux's `renameat2` with
/// `RENAME_EXCHANGE`); an `Err` where the system or the file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes()).map_err(|e| std::io::Error::other(e.to_string()))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both are NUL-terminated paths that outlive the call; renameat2 reads them only.
    let status = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if status == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// No single-step exchange here: [`write_report`] renames twice.
#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The one message for a folder that holds something else.
fn refusal(dir: &Path, foreign: &str) -> CliError {
    CliError::Invalid {
        arg: "--out",
        value: dir.display().to_string(),
        accepted: format!(
            "a new or empty folder, or one holding this command's earlier report (it holds `{foreign}`); give --force to replace the folder"
        ),
    }
}

/// A name [`foreign_file`] reports whatever plots the report of `stem` draws: a file of a kind
/// no report writes, or a data file (`.json`, `.csv`) of another stem.
fn surely_foreign(existing: &[String], stem: &str) -> Option<String> {
    let data = [format!("{stem}.json"), format!("{stem}.csv")];
    let foreign: Vec<&String> = existing
        .iter()
        .filter(|n| n.as_str() != ".ckpt-write-test")
        .filter(|n| !is_report_file(n) || (is_data_file(n) && !data.contains(n)))
        .collect();
    most_telling(&foreign)
}

/// `dir` where its parent exists (or it has none), else its outermost ancestor that does not
/// exist: the folder whose creation brings `dir` into being. A dangling link counts as there.
fn outermost_missing(dir: &Path) -> &Path {
    let mut top = dir;
    while let Some(parent) = top.parent() {
        if parent.as_os_str().is_empty() || std::fs::symlink_metadata(parent).is_ok() {
            break;
        }
        top = parent;
    }
    top
}

/// Where `dir` stands inside `staging` when `staging` is to become `top` (`dir` or one of its
/// ancestors).
fn within(staging: &Path, dir: &Path, top: &Path) -> PathBuf {
    match dir.strip_prefix(top) {
        Ok(rest) if !rest.as_os_str().is_empty() => staging.join(rest),
        _ => staging.to_path_buf(),
    }
}

/// `.NAME.ckpt-KIND-PID` beside `dir`: on the same file system, so renames stay renames.
fn sibling(dir: &Path, kind: &str) -> PathBuf {
    let name = dir
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let hidden = format!(".{name}.ckpt-{kind}-{}", std::process::id());
    match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.join(hidden),
        _ => PathBuf::from(hidden),
    }
}

/// The names in `dir` (none when it does not exist).
fn listing(dir: &Path) -> std::io::Result<Vec<String>> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// A name in the folder that the new report would not write: another command's report, or a
/// file of the user's. The report's own data files name the command (`sweep.json`, ...), so
/// an earlier report of the same command is recognized by them; its plots and notes may be
/// replaced, but never another command's data file beside them (`validate.json` in a sweep's
/// folder is the user's, not a leftover of a sweep).
fn foreign_file(existing: &[String], files: &[(String, Vec<u8>)]) -> Option<String> {
    let ours = |n: &str| files.iter().any(|(f, _)| f == n);
    let same_command = files
        .iter()
        .filter(|(f, _)| f.ends_with(".json"))
        .any(|(f, _)| existing.iter().any(|e| e == f));
    let foreign: Vec<&String> = existing
        .iter()
        // The writability probe of a run that was killed right after it.
        .filter(|n| n.as_str() != ".ckpt-write-test")
        .filter(|n| !(ours(n) || same_command && is_report_file(n) && !is_data_file(n)))
        .collect();
    most_telling(&foreign)
}

/// The foreign name to show: another report's data file says best what the folder holds.
fn most_telling(foreign: &[&String]) -> Option<String> {
    foreign
        .iter()
        .find(|n| n.ends_with(".json"))
        .or(foreign.first())
        .map(|n| n.to_string())
}

/// A report's data file: every report writes exactly two, `STEM.json` and `STEM.csv`, named
/// after its command.
fn is_data_file(name: &str) -> bool {
    name.ends_with(".json") || name.ends_with(".csv")
}

/// A file a report may hold (plots of other settings come and go with the inputs).
fn is_report_file(name: &str) -> bool {
    [".svg", ".png", ".json", ".csv", ".md"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str]) -> Vec<(String, Vec<u8>)> {
        names.iter().map(|n| (n.to_string(), Vec::new())).collect()
    }

    #[test]
    fn what_may_be_replaced() {
        let new = files(&["sweep.json", "sweep.csv", "interval.svg", "report.md"]);
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(foreign_file(&s(&[]), &new), None);
        assert_eq!(foreign_file(&s(&["sweep.json", "report.md"]), &new), None);
        // A plot an earlier sweep drew and this one does not.
        assert_eq!(foreign_file(&s(&["sweep.json", "loss.svg"]), &new), None);
        assert_eq!(
            foreign_file(&s(&["validate.json", "report.md"]), &new),
            Some("validate.json".into())
        );
        assert_eq!(
            foreign_file(&s(&["notes.txt"]), &new),
            Some("notes.txt".into())
        );
        // Another command's data beside an earlier sweep is not the sweep's to remove.
        for other in ["validate.json", "validate.csv"] {
            assert_eq!(
                foreign_file(&s(&["sweep.json", "sweep.csv", other]), &new),
                Some(other.into())
            );
        }
    }

    /// A fresh folder under this test's name in the system's temporary folder, absent.
    fn scratch(name: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("ckpt-outdir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        p
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v = listing(dir).unwrap();
        v.sort();
        v
    }

    /// A report under missing parents comes in by one rename of its outermost new folder, so
    /// that a run killed before it could leave only a hidden folder beside that one, never the
    /// empty parents (a killed sweep once left `nested/` behind).
    #[test]
    fn missing_parents_come_in_with_the_report() {
        let base = scratch("parents");
        std::fs::create_dir(&base).unwrap();
        let dir = base.join("a").join("b").join("out");
        assert_eq!(outermost_missing(&dir), base.join("a"));
        assert_eq!(outermost_missing(&base.join("c")), base.join("c"));
        prepare(&dir, Some("sweep"), false).unwrap();
        assert!(names(&base).is_empty(), "{:?}", names(&base));
        write_report(&dir, &files(&["sweep.json"]), false).unwrap();
        assert_eq!(names(&base), ["a"]);
        assert_eq!(names(&dir), ["sweep.json"]);
        // Again, over the earlier report: replaced in place, nothing left beside it.
        write_report(&dir, &files(&["sweep.json", "sweep.csv"]), false).unwrap();
        assert_eq!(names(&dir), ["sweep.csv", "sweep.json"]);
        assert_eq!(names(&base.join("a").join("b")), ["out"]);
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// Before: `--out .` and an `--out` under a folder the run could not write beside were
    /// refused only after the work (a rename cannot replace `.`, and the report is staged
    /// beside `DIR`).
    #[test]
    fn a_folder_no_rename_can_replace_is_refused_before_the_work() {
        for p in [".", "..", "/", "//", "out/.", "out/..", "./", "a/b/../"] {
            assert!(!names_a_folder(Path::new(p)), "{p}");
            let e = prepare(Path::new(p), Some("sweep"), true).unwrap_err();
            assert!(e.to_string().contains("not `.`, `..` or `/`"), "{p}: {e}");
        }
        for p in ["out", "out/", "./out", "../out", "a/.b", "a/..b/", "a/b."] {
            assert!(names_a_folder(Path::new(p)), "{p}");
        }
        let base = scratch("file");
        std::fs::create_dir(&base).unwrap();
        let file = base.join("report");
        std::fs::write(&file, b"").unwrap();
        let e = prepare(&file, None, true).unwrap_err();
        assert!(e.to_string().contains("it is a file"), "{e}");
        // The check leaves nothing behind, beside an existing folder either.
        let dir = base.join("out");
        std::fs::create_dir(&dir).unwrap();
        prepare(&dir, Some("sweep"), false).unwrap();
        assert_eq!(names(&base), ["out", "report"]);
        assert!(names(&dir).is_empty());
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// The early check refuses only what the final one refuses, for any plots drawn.
    #[test]
    fn early_check_is_a_subset_of_the_final_one() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let new = files(&["sweep.json", "sweep.csv", "interval.svg", "report.md"]);
        for folder in [
            s(&[]),
            s(&["sweep.json", "report.md", "loss.svg"]),
            s(&["validate.json", "report.md"]),
            s(&["validate.csv"]),
            s(&["notes.txt", "sweep.json"]),
            s(&["report.md"]),
            s(&["other.png"]),
            s(&["sweep.json", "validate.json"]),
        ] {
            let early = surely_foreign(&folder, "sweep");
            if early.is_some() {
                assert_eq!(early, foreign_file(&folder, &new), "{folder:?}");
            }
        }
        assert_eq!(
            surely_foreign(&s(&["validate.json", "report.md"]), "sweep"),
            Some("validate.json".into())
        );
        assert_eq!(
            surely_foreign(&s(&["a.txt"]), "sweep"),
            Some("a.txt".into())
        );
        assert_eq!(surely_foreign(&s(&["sweep.json", "x.svg"]), "sweep"), None);
        assert_eq!(
            surely_foreign(&s(&["sweep.json", "validate.json"]), "sweep"),
            Some("validate.json".into())
        );
    }
}

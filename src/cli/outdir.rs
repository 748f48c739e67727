//! Report folders (`--out DIR`) written so that a run killed at any moment leaves either the
//! previous complete report or the new complete one: the files go to a fresh folder beside
//! `DIR`, which then takes `DIR`'s place by renames (the old folder is moved aside first and
//! removed last); where `DIR`'s parents are missing too, the fresh folder stands for the
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

/// Checks, before any work starts, that `dir` can be created and written to; with the stem of
/// the command's data files (`sweep`), also refuses at once a folder the finished report would
/// be refused (see [`check_before`]). The folders it creates for the check are removed again,
/// so that a run refused or killed later leaves `DIR` as it found it; [`write_report`] creates
/// the folder when there is a report to put in it.
pub fn prepare(dir: &Path, stem: Option<&str>, force: bool) -> Result<(), CliError> {
    if let Some(stem) = stem {
        check_before(dir, stem, force)?;
    }
    let bad = |why: String| CliError::Invalid {
        arg: "--out",
        value: dir.display().to_string(),
        accepted: format!("a folder that can be created and written to ({why})"),
    };
    // A missing `dir` is tried as `write_report` will make it: inside a hidden folder beside
    // its outermost missing parent, removed again, so that a run killed during the check
    // leaves no empty folders of the user's path behind.
    let top = outermost_missing(dir);
    let (trial, staging) = if std::fs::symlink_metadata(dir).is_ok() {
        (dir.to_path_buf(), None)
    } else {
        let staging = sibling(top, "check");
        (within(&staging, dir, top), Some(staging))
    };
    let checked = std::fs::create_dir_all(&trial).and_then(|()| {
        let probe = trial.join(".ckpt-write-test");
        std::fs::write(&probe, b"")?;
        let _ = std::fs::remove_file(probe);
        Ok(())
    });
    if let Some(staging) = staging {
        let _ = std::fs::remove_dir_all(staging);
    }
    checked.map_err(|e| bad(e.to_string()))
}

/// Refuses, before any work starts, a folder that [`write_report`] would refuse at the end for
/// a report whose data files are `STEM.json` and `STEM.csv`: one holding another command's
/// data or a file no report writes. (A folder it passes may still be refused at the end, for
/// a plot name only the finished report knows; none is today.)
pub fn check_before(dir: &Path, stem: &str, force: bool) -> Result<(), CliError> {
    if force {
        return Ok(());
    }
    // A folder that cannot be listed is left to the writability check that follows, which
    // names --out and the system's reason.
    let Ok(existing) = listing(dir) else {
        return Ok(());
    };
    match surely_foreign(&existing, stem) {
        Some(foreign) => Err(refusal(dir, &foreign)),
        None => Ok(()),
    }
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

//! What a sweep writes: the set of files beside its CSV, named once here, and the checks that
//! keep a sweep or `summary` from replacing a file that is not theirs to replace.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::error::usage;
use crate::paths::{self, Existing, OpenError, Refused};
use crate::results::sidecar;

/// The extensions of the files a sweep writes, `X.csv` first: the rows, the latency histograms
/// (`X.latency.csv`), the machine and build (`X.json`), the summary (`X.md`), the statistics per
/// cell (`X.cells.json`) and the report (`X.html`). A sweep starts only when none of them
/// exists, or with `--force`.
pub const MEMBERS: [&str; 6] = ["csv", sidecar::EXTENSION, "json", "md", "cells.json", "html"];

/// The files of one run, named after its CSV: a sweep's ([`MEMBERS`]) or another command's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSet {
    csv: PathBuf,
    /// The extensions of its files, the CSV's first.
    extensions: &'static [&'static str],
    /// Who writes them, as the refusals name it: `the sweep`.
    writer: &'static str,
}

impl OutputSet {
    /// The sweep's set written beside `csv` (`--out`).
    pub fn new(csv: &Path) -> Self {
        Self::of(csv, &MEMBERS, "the sweep")
    }

    /// The set of the files with `extensions` (the CSV's first) that `writer` writes beside `csv`.
    pub fn of(csv: &Path, extensions: &'static [&'static str], writer: &'static str) -> Self {
        Self { csv: csv.to_owned(), extensions, writer }
    }

    /// The CSV itself, as given.
    pub fn csv(&self) -> &Path {
        &self.csv
    }

    /// `X.json`: the machine and build.
    pub fn json(&self) -> PathBuf {
        self.member("json")
    }

    /// `X.md`: the summary.
    pub fn markdown(&self) -> PathBuf {
        self.member("md")
    }

    /// `X.cells.json`: the statistics of every cell.
    pub fn cells_json(&self) -> PathBuf {
        self.member("cells.json")
    }

    /// `X.html`: the report.
    pub fn html(&self) -> PathBuf {
        self.member("html")
    }

    /// The member with extension `extension`, one of [`MEMBERS`].
    pub fn member(&self, extension: &str) -> PathBuf {
        if extension == self.extensions[0] { self.csv.clone() } else { self.csv.with_extension(extension) }
    }

    /// Every member, the CSV first.
    pub fn members(&self) -> Vec<PathBuf> {
        self.extensions.iter().map(|extension| self.member(extension)).collect()
    }

    /// A usage error unless the sweep may write every member: `--out` must not share its name
    /// with another member (`x.md`), and each member must be new, or a regular file and `force`.
    pub fn check(&self, force: bool) -> anyhow::Result<()> {
        let csv = self.csv.display();
        for (extension, member) in self.extensions.iter().zip(self.members()).skip(1) {
            if member == self.csv {
                return Err(usage(format!(
                    "--out {csv} ends in .{extension}, a name {} gives another of its files: give the CSV a .csv name",
                    self.writer
                )));
            }
        }
        for member in self.members() {
            let subject =
                if member == self.csv { format!("--out {csv}") } else { format!("--out {csv}: {}", member.display()) };
            check(&member, force, &subject)?;
        }
        Ok(())
    }
}

/// A usage error unless `path` may be written: it is new, or a regular file and `force`.
/// `subject` names it in the one line of [`Refused`] (`--out run.md`, `the summary run.md`).
pub fn check(path: &Path, force: bool, subject: &str) -> anyhow::Result<()> {
    let existing = if force { Existing::Truncate } else { Existing::Refuse };
    let found = paths::examine(path).map_err(OpenError::Io);
    match found.map(|found| OpenError::of(found, existing)) {
        Ok(None) => Ok(()),
        Ok(Some(why)) | Err(why) => Err(refused(subject, why)),
    }
}

/// A usage error unless `path` may be written by `flag` (`--export-json`, `the summary`):
/// it is new, or a regular file and `force`.
pub fn check_target(path: &Path, force: bool, flag: &str) -> anyhow::Result<()> {
    check(path, force, &format!("{flag} {}", path.display()))
}

/// [`Refused`] as a usage error (exit 2), or, for a failure of the system rather than of the
/// path, as a plain error (exit 1).
fn refused(subject: &str, why: OpenError) -> anyhow::Error {
    match why {
        OpenError::Io(error) if !paths::is_path_problem(&error) => {
            anyhow::Error::new(error).context(format!("{subject}: cannot write it"))
        }
        why => usage(Refused::new(subject, why).to_string()),
    }
}

/// Opens `path`, a member checked by [`OutputSet::check`] or [`check_target`], for writing:
/// a new file, or (`existing`) a regular file emptied in place. A path the user must change is
/// a usage error naming `flag`; a failure of the system is not.
pub fn open(path: &Path, existing: Existing, flag: &str) -> anyhow::Result<std::fs::File> {
    paths::open(path, existing).map_err(|why| refused(&format!("{flag} {}", path.display()), why))
}

/// Writes `contents` to `path`, a member already checked: a new file, or with `force` a
/// regular file emptied in place (never deleted first). Without `force` a file that appeared
/// since the check is left alone. `what` names it in errors (`the summary`).
pub fn write(path: &Path, contents: &[u8], force: bool, what: &str) -> anyhow::Result<()> {
    let mut file = open(path, if force { Existing::Truncate } else { Existing::Refuse }, what)?;
    file.write_all(contents).with_context(|| format!("cannot write {what} {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_members_are_named_after_the_csv() {
        let set = OutputSet::new(Path::new("results/run.csv"));
        let names: Vec<String> = set.members().iter().map(|path| path.display().to_string()).collect();
        assert_eq!(
            names,
            [
                "results/run.csv",
                "results/run.latency.csv",
                "results/run.json",
                "results/run.md",
                "results/run.cells.json",
                "results/run.html"
            ]
        );
        assert_eq!(OutputSet::new(Path::new("run")).csv(), Path::new("run"));
    }

    #[test]
    fn any_existing_member_refuses_the_sweep_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let set = OutputSet::new(&dir.path().join("run.csv"));
        set.check(false).unwrap();
        std::fs::write(set.html(), "notes").unwrap();
        let error = set.check(false).unwrap_err().to_string();
        assert!(error.contains(&format!("{} already exists", set.html().display())), "{error}");
        set.check(true).unwrap();
        std::fs::remove_file(set.html()).unwrap();
        std::fs::create_dir(set.markdown()).unwrap();
        let error = set.check(true).unwrap_err().to_string();
        assert!(error.contains("is a folder"), "{error}");
        std::fs::remove_dir(set.markdown()).unwrap();
        std::os::unix::fs::symlink(set.csv(), set.markdown()).unwrap();
        let error = set.check(true).unwrap_err().to_string();
        assert!(error.contains("is a symbolic link"), "{error}");
        let error = OutputSet::new(&dir.path().join("run.md")).check(true).unwrap_err().to_string();
        assert!(error.contains("ends in .md"), "{error}");
    }
}

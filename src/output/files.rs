//! What a sweep writes: the set of files beside its CSV, named once here, and the checks that
//! keep a sweep or `summary` from replacing a file that is not theirs to replace.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::error::usage;
use crate::paths::{self, Existing, Found, OpenError};

/// The extensions of the files a sweep writes, `X.csv` first: the rows, the machine and build
/// (`X.json`), the summary (`X.md`), the statistics per cell (`X.cells.json`) and the report
/// (`X.html`). A sweep starts only when none of them exists, or with `--force`.
pub const MEMBERS: [&str; 5] = ["csv", "json", "md", "cells.json", "html"];

/// The files of one sweep, named after its CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSet {
    csv: PathBuf,
}

impl OutputSet {
    /// The set written beside `csv` (`--out`).
    pub fn new(csv: &Path) -> Self {
        Self { csv: csv.to_owned() }
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
        if extension == MEMBERS[0] { self.csv.clone() } else { self.csv.with_extension(extension) }
    }

    /// Every member, the CSV first.
    pub fn members(&self) -> Vec<PathBuf> {
        MEMBERS.iter().map(|extension| self.member(extension)).collect()
    }

    /// A usage error unless the sweep may write every member: `--out` must not share its name
    /// with another member (`x.md`), and each member must be new, or a regular file and `force`.
    pub fn check(&self, force: bool) -> anyhow::Result<()> {
        let csv = self.csv.display();
        for (extension, member) in MEMBERS.iter().zip(self.members()).skip(1) {
            if member == self.csv {
                return Err(usage(format!(
                    "--out {csv} ends in .{extension}, a name the sweep gives another of its files: \
                     give the CSV a .csv name"
                )));
            }
        }
        for member in self.members() {
            let shown = member.display();
            let found = paths::examine(&member)
                .map_err(|error| usage(format!("--out {csv}: cannot examine {shown}: {error}")))?;
            match found {
                Found::Nothing => {}
                Found::Regular if force => {}
                Found::Regular if member == self.csv => {
                    return Err(usage(format!(
                        "--out {csv} already exists: choose another path, or pass --force to overwrite it"
                    )));
                }
                Found::Regular => {
                    return Err(usage(format!(
                        "--out {csv}: {shown} already exists and the sweep would replace it: \
                         choose another --out, or pass --force to overwrite it"
                    )));
                }
                Found::NullDevice => return Err(not_regular(&self.csv, &member, "a character device")),
                Found::Other(what) => return Err(not_regular(&self.csv, &member, what)),
            }
        }
        Ok(())
    }
}

fn not_regular(csv: &Path, member: &Path, what: &str) -> anyhow::Error {
    if member == csv {
        usage(format!("--out {} is {what}: give a regular file or a new path, such as run.csv", csv.display()))
    } else {
        usage(format!(
            "--out {}: {} is {what}, where the sweep writes one of its files: choose another --out",
            csv.display(),
            member.display()
        ))
    }
}

/// A usage error unless `path` may be written by `flag` (`--out`, or `summary`'s Markdown):
/// it is new, or a regular file and `force`.
pub fn check_target(path: &Path, force: bool, flag: &str) -> anyhow::Result<()> {
    let shown = path.display();
    match paths::examine(path).map_err(|error| usage(format!("{flag} {shown}: cannot examine it: {error}")))? {
        Found::Nothing => Ok(()),
        Found::Regular if force => Ok(()),
        Found::Regular => Err(usage(format!(
            "{flag} {shown} already exists: pass --force to replace it, or give --out PATH (--out - for stdout)"
        ))),
        Found::NullDevice => Err(usage(format!("{flag} {shown} is a character device: give a regular file"))),
        Found::Other(what) => Err(usage(format!("{flag} {shown} is {what}: give a regular file"))),
    }
}

/// Opens `path`, a member checked by [`OutputSet::check`] or [`check_target`], for writing:
/// a new file, or (`existing`) a regular file emptied in place. A path the user must change is
/// a usage error naming `flag`; a failure of the system is not.
pub fn open(path: &Path, existing: Existing, flag: &str) -> anyhow::Result<std::fs::File> {
    let shown = path.display();
    paths::open(path, existing).map_err(|error| match error {
        OpenError::Exists => {
            usage(format!("{flag} {shown} already exists: choose another path, or pass --force to overwrite it"))
        }
        OpenError::NotRegular(what) => usage(format!("{flag} {shown} is {what}: give a regular file or a new path")),
        OpenError::Io(error) if paths::is_path_problem(&error) => {
            usage(format!("cannot create {flag} {shown}: {error}"))
        }
        OpenError::Io(error) => anyhow::Error::new(error).context(format!("cannot create {shown}")),
    })
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
            ["results/run.csv", "results/run.json", "results/run.md", "results/run.cells.json", "results/run.html"]
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
        let error = OutputSet::new(&dir.path().join("run.md")).check(true).unwrap_err().to_string();
        assert!(error.contains("ends in .md"), "{error}");
    }
}

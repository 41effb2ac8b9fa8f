//! `--sink`: what the receiving task does with each payload besides counting and verifying it.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::paths::{self, Existing, Found, OpenError, Refused};

/// Bytes the sink's writer gathers before each `write` to the file.
pub const WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// Where payloads go.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub enum Sink {
    /// Nowhere: the receiver only counts and verifies.
    #[default]
    None,
    /// Appended to this file through a [`WRITE_BUFFER_BYTES`] buffered writer.
    File(PathBuf, Owner),
    /// A file sink that cuts its file one byte short after writing, for the harness's own tests.
    #[cfg(feature = "faults")]
    TruncatingFile(PathBuf, Owner),
}

/// Whose the sink's file is, and so what the run may do to it: decided once, before the sweep
/// starts, by [`Sink::claim`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub enum Owner {
    /// Not examined yet: [`Sink::open`] refuses it.
    #[default]
    Unclaimed,
    /// Nothing was at the path: the run creates the file, and removes it after each sample
    /// unless `--keep-sink`.
    Run,
    /// The user's regular file, named with `--force`: emptied in place before each sample,
    /// never removed.
    User,
    /// The null device: written, never emptied, removed or measured.
    NullDevice,
}

impl Sink {
    /// `none` or `file`, for the CSV.
    pub fn kind(&self) -> &'static str {
        match self {
            Sink::None => "none",
            Sink::File(..) => "file",
            #[cfg(feature = "faults")]
            Sink::TruncatingFile(..) => "truncating-file",
        }
    }

    /// The file written, if any.
    pub fn path(&self) -> Option<&Path> {
        self.file().map(|(path, _)| path)
    }

    fn file(&self) -> Option<(&Path, Owner)> {
        match self {
            Sink::None => None,
            Sink::File(path, owner) => Some((path, *owner)),
            #[cfg(feature = "faults")]
            Sink::TruncatingFile(path, owner) => Some((path, *owner)),
        }
    }

    /// The same sink, its file examined and its [`Owner`] decided: a new path is the run's; an
    /// existing regular file is the user's, and only `force` lets the run write it; the null
    /// device is written as it is. `Err` (a line for the user) for anything else there or a
    /// folder that does not exist.
    pub fn claim(self, force: bool) -> Result<Sink, String> {
        let Some((path, _)) = self.file() else { return Ok(self) };
        let subject = format!("--sink file:{}", path.display());
        let found = paths::examine(path).map_err(|error| Refused::new(&subject, OpenError::Io(error)).to_string())?;
        let existing = if force { Existing::Truncate } else { Existing::Refuse };
        let owner = match found {
            Found::Nothing => Owner::Run,
            Found::NullDevice => Owner::NullDevice,
            Found::Regular if force => Owner::User,
            found => {
                let why = OpenError::of(found, existing).expect("only a path that may not be written is left");
                return Err(Refused::new(subject, why).to_string());
            }
        };
        if owner == Owner::Run {
            let folder = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if !folder.is_dir() {
                return Err(format!("{subject}: folder {} does not exist: create it first", folder.display()));
            }
        }
        Ok(match self {
            Sink::None => Sink::None,
            Sink::File(path, _) => Sink::File(path, owner),
            #[cfg(feature = "faults")]
            Sink::TruncatingFile(path, _) => Sink::TruncatingFile(path, owner),
        })
    }

    /// Opens the file before the clock starts: created, or emptied in place, or (the null
    /// device) opened as it is. Never anything but what [`Sink::claim`] found there.
    pub fn open(&self) -> Result<Option<SinkWriter>, String> {
        let Some((path, owner)) = self.file() else { return Ok(None) };
        let shown = path.display();
        let file = match owner {
            Owner::Unclaimed => return Err(format!("{shown} was not examined before the sweep")),
            Owner::Run | Owner::User => paths::open(path, Existing::Truncate)
                .map_err(|why| Refused::new(format!("--sink file:{shown}"), why).to_string())?,
            Owner::NullDevice => {
                let file = OpenOptions::new()
                    .write(true)
                    .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                    .open(path)
                    .map_err(|error| format!("cannot open {shown}: {error}"))?;
                match file.metadata().map(|metadata| paths::found(&metadata)) {
                    Ok(Found::NullDevice) => file,
                    Ok(_) => return Err(format!("{shown} is no longer the null device: not written")),
                    Err(error) => return Err(format!("cannot examine {shown}: {error}")),
                }
            }
        };
        Ok(Some(SinkWriter {
            writer: BufWriter::with_capacity(WRITE_BUFFER_BYTES, file),
            failed: None,
            #[cfg(feature = "faults")]
            truncate: matches!(self, Sink::TruncatingFile(..)),
        }))
    }

    /// After the clock stops: `Err` naming the difference when the file does not hold exactly
    /// `expected` bytes (the null device holds nothing and is not measured). The file is
    /// removed only when the run created it, and not with `keep`.
    pub fn check(&self, expected: u64, keep: bool) -> Result<(), String> {
        let Some((path, owner)) = self.file() else { return Ok(()) };
        if owner == Owner::NullDevice {
            return Ok(());
        }
        let found = std::fs::metadata(path).map(|metadata| metadata.len());
        // Only a regular file, whatever may have been put at the path since it was written.
        if owner == Owner::Run && !keep && paths::examine(path).is_ok_and(|found| found == Found::Regular) {
            let _ = std::fs::remove_file(path);
        }
        match found {
            Ok(found) if found == expected => Ok(()),
            Ok(found) => Err(format!("{} holds {found} bytes, {expected} were received", path.display())),
            Err(error) => Err(format!("cannot read {}: {error}", path.display())),
        }
    }
}

impl fmt::Display for Sink {
    /// As `--sink` takes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path() {
            None => f.write_str("none"),
            Some(path) => write!(f, "{}:{}", self.kind(), path.display()),
        }
    }
}

impl FromStr for Sink {
    type Err = String;

    /// `none` or `file:PATH`.
    fn from_str(text: &str) -> Result<Self, String> {
        let path = |path: &str| {
            let needed = || "file: needs a path, as in file:/tmp/sink.bin".to_owned();
            (!path.is_empty()).then(|| PathBuf::from(path)).ok_or_else(needed)
        };
        match text.split_once(':') {
            None if text == "none" => Ok(Sink::None),
            Some(("file", rest)) => Ok(Sink::File(path(rest)?, Owner::Unclaimed)),
            #[cfg(feature = "faults")]
            Some(("truncating-file", rest)) => Ok(Sink::TruncatingFile(path(rest)?, Owner::Unclaimed)),
            _ => Err(format!("{text:?} is not a sink: write none or file:PATH")),
        }
    }
}

/// The receiving end of a file sink.
#[derive(Debug)]
pub struct SinkWriter {
    writer: BufWriter<File>,
    failed: Option<String>,
    #[cfg(feature = "faults")]
    truncate: bool,
}

impl SinkWriter {
    /// Writes one payload. After the first failure it writes nothing more and
    /// [`SinkWriter::finish`] reports that failure.
    #[inline]
    pub fn write(&mut self, payload: &[u8]) {
        if self.failed.is_none()
            && let Err(error) = self.writer.write_all(payload)
        {
            self.failed = Some(error.to_string());
        }
    }

    /// Flushes the buffer to the file (inside the clock: it is part of the receiver's work).
    pub fn finish(mut self) -> Result<(), String> {
        if let Some(error) = self.failed.take() {
            return Err(format!("write failed: {error}"));
        }
        self.writer.flush().map_err(|error| format!("flush failed: {error}"))?;
        #[cfg(feature = "faults")]
        if self.truncate {
            let file = self.writer.get_ref();
            let length = file.metadata().map_err(|error| error.to_string())?.len();
            file.set_len(length.saturating_sub(1)).map_err(|error| error.to_string())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinks_parse_as_the_flag_takes_them() {
        assert_eq!("none".parse(), Ok(Sink::None));
        assert_eq!("file:/tmp/x.bin".parse(), Ok(Sink::File("/tmp/x.bin".into(), Owner::Unclaimed)));
        assert_eq!(Sink::File("/tmp/x.bin".into(), Owner::Run).to_string(), "file:/tmp/x.bin");
        for bad in ["", "file", "file:", "disk:/tmp/x", "None"] {
            assert!(bad.parse::<Sink>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_size_check_passes_a_whole_file_and_catches_a_truncated_one() {
        let folder = tempfile::tempdir().unwrap();
        let sink = Sink::File(folder.path().join("sink.bin"), Owner::Unclaimed).claim(false).unwrap();
        let mut writer = sink.open().unwrap().unwrap();
        for _ in 0..100 {
            writer.write(&[7; 1000]);
        }
        writer.finish().unwrap();
        assert_eq!(sink.check(100_000, true), Ok(()));

        let file = std::fs::OpenOptions::new().write(true).open(sink.path().unwrap()).unwrap();
        file.set_len(99_999).unwrap();
        let error = sink.check(100_000, false).unwrap_err();
        assert!(error.contains("holds 99999 bytes, 100000 were received"), "{error}");
        assert!(!sink.path().unwrap().exists(), "removed without --keep-sink");
    }

    #[test]
    fn only_a_file_the_run_created_is_removed() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("mine.bin");
        std::fs::write(&path, "the user's").unwrap();
        let unclaimed = Sink::File(path.clone(), Owner::Unclaimed);
        assert!(unclaimed.open().is_err(), "an unexamined sink is not opened");
        let error = unclaimed.clone().claim(false).unwrap_err();
        assert!(error.contains("already exists") && error.contains("--force"), "{error}");

        let sink = unclaimed.claim(true).unwrap();
        assert_eq!(sink, Sink::File(path.clone(), Owner::User));
        let mut writer = sink.open().unwrap().unwrap();
        writer.write(b"abc");
        writer.finish().unwrap();
        assert_eq!(sink.check(3, false), Ok(()));
        assert_eq!(std::fs::read(&path).unwrap(), b"abc", "emptied in place, written, kept");

        let null = Sink::File("/dev/null".into(), Owner::Unclaimed).claim(false).unwrap();
        assert_eq!(null, Sink::File("/dev/null".into(), Owner::NullDevice));
        let mut writer = null.open().unwrap().unwrap();
        writer.write(&[1; 5000]);
        writer.finish().unwrap();
        assert_eq!(null.check(5000, false), Ok(()));
        assert!(Path::new("/dev/null").exists());
    }
}

//! `--sink`: what the receiving task does with each payload besides counting and verifying it.

use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Bytes the sink's writer gathers before each `write` to the file.
pub const WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// Where payloads go.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Sink {
    /// Nowhere: the receiver only counts and verifies.
    #[default]
    None,
    /// Appended to this file through a [`WRITE_BUFFER_BYTES`] buffered writer.
    File(PathBuf),
    /// A file sink that cuts its file one byte short after writing, for the harness's own tests.
    #[cfg(feature = "faults")]
    TruncatingFile(PathBuf),
}

impl Sink {
    /// `none` or `file`, for the CSV.
    pub fn kind(&self) -> &'static str {
        match self {
            Sink::None => "none",
            Sink::File(_) => "file",
            #[cfg(feature = "faults")]
            Sink::TruncatingFile(_) => "truncating-file",
        }
    }

    /// The file written, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Sink::None => None,
            Sink::File(path) => Some(path),
            #[cfg(feature = "faults")]
            Sink::TruncatingFile(path) => Some(path),
        }
    }

    /// Creates (or empties) the file, before the clock starts.
    pub fn open(&self) -> Result<Option<SinkWriter>, String> {
        let Some(path) = self.path() else { return Ok(None) };
        let file = File::create(path).map_err(|error| format!("cannot create {}: {error}", path.display()))?;
        Ok(Some(SinkWriter {
            writer: BufWriter::with_capacity(WRITE_BUFFER_BYTES, file),
            failed: None,
            #[cfg(feature = "faults")]
            truncate: matches!(self, Sink::TruncatingFile(_)),
        }))
    }

    /// After the clock stops: `Err` naming the difference when the file does not hold exactly
    /// `expected` bytes. The file is removed unless `keep`.
    pub fn check(&self, expected: u64, keep: bool) -> Result<(), String> {
        let Some(path) = self.path() else { return Ok(()) };
        let found = std::fs::metadata(path).map(|metadata| metadata.len());
        if !keep {
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
            if path.is_empty() {
                Err("file: needs a path, as in file:/tmp/sink.bin".to_owned())
            } else {
                Ok(path.into())
            }
        };
        match text.split_once(':') {
            None if text == "none" => Ok(Sink::None),
            Some(("file", rest)) => Ok(Sink::File(path(rest)?)),
            #[cfg(feature = "faults")]
            Some(("truncating-file", rest)) => Ok(Sink::TruncatingFile(path(rest)?)),
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
        assert_eq!("file:/tmp/x.bin".parse(), Ok(Sink::File("/tmp/x.bin".into())));
        assert_eq!(Sink::File("/tmp/x.bin".into()).to_string(), "file:/tmp/x.bin");
        for bad in ["", "file", "file:", "disk:/tmp/x", "None"] {
            assert!(bad.parse::<Sink>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_size_check_passes_a_whole_file_and_catches_a_truncated_one() {
        let folder = tempfile::tempdir().unwrap();
        let sink = Sink::File(folder.path().join("sink.bin"));
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
}

//! What is at a path, and opening for writing only what channel-bench may write: a new file,
//! or an existing regular file it truncates in place. Nothing here deletes anything.
//!
//! A path is examined before it is opened (opening a FIFO for writing waits for a reader, for
//! ever), and the file opened is examined again (`fstat`), so that something put in its place
//! meanwhile is closed untouched: opens use `O_NONBLOCK` and `O_NOFOLLOW`, and never `O_TRUNC`.
//! A symbolic link is never written through, whatever it points at, `--force` or not.
//!
//! [`Refused`] is the one line every writer gives for a path it will not write.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Nothing: a new file may be made there.
    Nothing,
    /// A regular file.
    Regular,
    /// A symbolic link, whatever it points at (or nothing): never written through.
    Symlink,
    /// The null device (character device 1:3, `/dev/null` or a copy of its node).
    NullDevice,
    /// Anything else, as a phrase: `a folder`, `a FIFO`, `a socket`…
    Other(&'static str),
}

/// What `path` names itself: a symbolic link is [`Found::Symlink`], not what it points at.
pub fn examine(path: &Path) -> io::Result<Found> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(Found::Nothing),
        Err(error) => Err(error),
        Ok(entry) => Ok(found(&entry)),
    }
}

/// What `metadata` (of a path, or of an open file) describes.
pub fn found(metadata: &Metadata) -> Found {
    let kind = metadata.file_type();
    let others = [
        (kind.is_dir(), "a folder"),
        (kind.is_char_device(), CHARACTER_DEVICE),
        (kind.is_block_device(), "a block device"),
        (kind.is_fifo(), "a FIFO"),
        (kind.is_socket(), "a socket"),
    ];
    if kind.is_file() {
        Found::Regular
    } else if kind.is_symlink() {
        Found::Symlink
    } else if kind.is_char_device() && metadata.rdev() == libc::makedev(1, 3) {
        Found::NullDevice
    } else {
        Found::Other(others.into_iter().find(|&(is, _)| is).map_or("not a regular file", |(_, what)| what))
    }
}

/// Why [`open`] did not open a file.
#[derive(Debug)]
pub enum OpenError {
    /// Something is there and the caller asked for a new file.
    Exists,
    /// A symbolic link is there.
    Symlink,
    /// What is there is not a regular file (the phrase of [`Found::Other`]).
    NotRegular(&'static str),
    /// The system refused.
    Io(io::Error),
}

impl OpenError {
    /// What is found at a path that may not be written: `None` for a new path or, when
    /// `existing` is [`Existing::Truncate`], a regular file.
    pub fn of(found: Found, existing: Existing) -> Option<OpenError> {
        match found {
            Found::Nothing => None,
            Found::Regular if existing == Existing::Truncate => None,
            Found::Regular => Some(OpenError::Exists),
            Found::Symlink => Some(OpenError::Symlink),
            Found::NullDevice => Some(OpenError::NotRegular(CHARACTER_DEVICE)),
            Found::Other(what) => Some(OpenError::NotRegular(what)),
        }
    }
}

/// The phrase for a character device, the null device included.
pub const CHARACTER_DEVICE: &str = "a character device";

/// A path channel-bench will not write, as one line for the user: `subject` names it as the
/// user gave it (`--out run.csv`, `--out run.csv: run.md`, `--sink file:x`), `why` is what is
/// there. The one wording of every such refusal.
#[derive(Debug)]
pub struct Refused {
    /// The flag and path, as the user reads them.
    pub subject: String,
    /// What stands at the path.
    pub why: OpenError,
}

impl Refused {
    /// `subject` refused for `why`.
    pub fn new(subject: impl Into<String>, why: OpenError) -> Self {
        Self { subject: subject.into(), why }
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let subject = &self.subject;
        match &self.why {
            OpenError::Exists => {
                write!(f, "{subject} already exists: choose another path, or pass --force to replace it")
            }
            OpenError::Symlink => write!(
                f,
                "{subject} is a symbolic link, which channel-bench never writes through (--force or not): \
                 give the path of a regular file or a new one"
            ),
            OpenError::NotRegular(what) => write!(f, "{subject} is {what}: give a regular file or a new path"),
            OpenError::Io(error) => write!(f, "{subject}: cannot write it: {error}"),
        }
    }
}

impl std::error::Error for Refused {}

/// The one line for an existing regular file a command leaves alone without `--force`:
/// `x.md exists, left as it is (--force replaces it)`.
pub fn kept(path: &Path) -> String {
    format!("{} exists, left as it is (--force replaces it)", path.display())
}

/// What to do with a regular file already at the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Leave it alone: [`OpenError::Exists`].
    Refuse,
    /// Truncate it in place and write it.
    Truncate,
}

/// Opens `path` for writing: a new file (created `O_EXCL`, so not through a symlink), or under
/// [`Existing::Truncate`] a regular file already there, emptied in place. Anything else there
/// is left untouched and refused.
pub fn open(path: &Path, existing: Existing) -> Result<File, OpenError> {
    let created =
        OpenOptions::new().write(true).create_new(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path);
    match created {
        Ok(file) => return Ok(file),
        Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(OpenError::Io(error)),
        Err(_) => {}
    }
    if let Some(refused) = OpenError::of(examine(path).map_err(OpenError::Io)?, existing) {
        return Err(refused);
    }
    // No O_CREAT: what is not there any more is not made; O_NOFOLLOW: a symlink put there
    // since is not followed (ELOOP).
    let file = OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW).open(path).map_err(
        |error| if error.raw_os_error() == Some(libc::ELOOP) { OpenError::Symlink } else { OpenError::Io(error) },
    )?;
    if let Some(refused) = OpenError::of(found(&file.metadata().map_err(OpenError::Io)?), Existing::Truncate) {
        return Err(refused);
    }
    file.set_len(0).map_err(OpenError::Io)?;
    Ok(file)
}

/// Whether `error` is about the path itself, so the user must give another one: it is missing,
/// or a file stands where a folder should, or it may not be written there. Other errors (a full
/// disk, a failing device) are failures of the run.
pub fn is_path_problem(error: &io::Error) -> bool {
    use io::ErrorKind::*;
    matches!(
        error.kind(),
        NotFound
            | PermissionDenied
            | AlreadyExists
            | NotADirectory
            | IsADirectory
            | ReadOnlyFilesystem
            | InvalidFilename
            | InvalidInput
    ) || error.raw_os_error() == Some(libc::ELOOP)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_new_path_is_created_and_an_existing_file_truncated_in_place_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        assert_eq!(examine(&path).unwrap(), Found::Nothing);
        open(&path, Existing::Refuse).unwrap().write_all(b"mine").unwrap();
        assert_eq!(examine(&path).unwrap(), Found::Regular);
        assert!(matches!(open(&path, Existing::Refuse), Err(OpenError::Exists)));
        assert_eq!(std::fs::read(&path).unwrap(), b"mine");

        let inode = std::fs::metadata(&path).unwrap().ino();
        open(&path, Existing::Truncate).unwrap().write_all(b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode, "the same file, not a new one");
    }

    #[test]
    fn folders_fifos_and_symlinks_are_refused_without_blocking_or_following() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path and nothing else.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        for (path, what) in [(dir.path(), "a folder"), (fifo.as_path(), "a FIFO")] {
            assert_eq!(examine(path).unwrap(), Found::Other(what), "{}", path.display());
            match open(path, Existing::Truncate) {
                Err(OpenError::NotRegular(found)) => assert_eq!(found, what),
                other => panic!("{}: {other:?}", path.display()),
            }
        }
        let to_file = dir.path().join("to-file");
        std::fs::write(dir.path().join("file"), "theirs").unwrap();
        std::os::unix::fs::symlink(dir.path().join("file"), &to_file).unwrap();
        for link in [&dangling, &to_file] {
            assert_eq!(examine(link).unwrap(), Found::Symlink);
            for existing in [Existing::Refuse, Existing::Truncate] {
                assert!(matches!(open(link, existing), Err(OpenError::Symlink)), "{}", link.display());
            }
        }
        assert!(!dir.path().join("nowhere").exists(), "nothing made through the dangling symlink");
        assert_eq!(std::fs::read(dir.path().join("file")).unwrap(), b"theirs");
        assert_eq!(examine(Path::new("/dev/null")).unwrap(), Found::NullDevice);
    }
}

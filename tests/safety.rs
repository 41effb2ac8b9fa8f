//! channel-bench writes regular files only, replaces one only with `--force` (emptying it in
//! place), and deletes only the sink file it created. Device nodes are made with `mknod` in a
//! temporary folder, which needs root (as CI runs); without it those cases are skipped.

use std::ffi::CString;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

mod common;

/// One sample per cell of a tiny sweep: 2 modes × 2 runtimes of one channel and one task count.
const TINY: &[&str] = &[
    "--messages",
    "600",
    "--capacity",
    "64",
    "--tasks",
    "2",
    "--channels",
    "kanal",
    "--warmup",
    "0",
    "--samples",
    "1",
    "--max-time",
    "0",
];

/// The binary with a time limit.
fn bounded() -> Command {
    let mut command = common::bench();
    // A FIFO opened for writing would wait for a reader: a hang fails the test, it does not stall it.
    command.timeout(Duration::from_secs(60));
    command
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_encoded_bytes()).unwrap()
}

fn mkfifo(path: &Path) -> PathBuf {
    // SAFETY: mkfifo reads the NUL-terminated path and nothing else.
    assert_eq!(unsafe { libc::mkfifo(c_path(path).as_ptr(), 0o600) }, 0, "mkfifo {}", path.display());
    path.to_owned()
}

/// A character device node `major:minor` at `path`, or `None` when this user may not make one.
fn mknod(path: &Path, major: u32, minor: u32) -> Option<PathBuf> {
    // SAFETY: mknod reads the NUL-terminated path and plain integers.
    let made = unsafe { libc::mknod(c_path(path).as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(major, minor)) };
    if made != 0 {
        eprintln!("skipped {}: mknod needs root ({})", path.display(), std::io::Error::last_os_error());
        return None;
    }
    Some(path.to_owned())
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|metadata| metadata.file_type().is_char_device())
}

/// Every kind of path that is not a regular file, made in `dir`, each with the phrase the
/// refusal uses; the device only when this user can make one. Also returns the socket's
/// listener, which must live as long as the socket is used.
fn not_regular_files(dir: &Path) -> (Vec<(PathBuf, &'static str)>, std::os::unix::net::UnixListener) {
    let fifo = mkfifo(&dir.join("fifo.csv"));
    let folder = dir.join("folder.csv");
    std::fs::create_dir(&folder).unwrap();
    let socket = dir.join("socket.csv");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let mut cases = vec![(fifo, "a FIFO"), (folder, "a folder"), (socket, "a socket"), (link, "a symbolic link")];
    // A copy of /dev/full: writes to it fail, and removing it would be the bug this guards.
    if let Some(device) = mknod(&dir.join("full.csv"), 1, 7) {
        cases.push((device, "a character device"));
    }
    (cases, listener)
}

/// Runs `args`; asserts exit 2 with one `error:` line containing each of `expected`, nothing on stdout.
fn refused(args: &[&str], expected: &[&str]) -> String {
    let output = bounded().args(args).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    for part in expected {
        assert!(stderr.contains(part), "{args:?}: {stderr} does not say {part:?}");
    }
    assert!(output.stdout.is_empty(), "{args:?} ran: {}", String::from_utf8_lossy(&output.stdout));
    stderr
}

#[test]
fn a_device_a_fifo_a_socket_a_folder_and_a_symlink_are_refused_as_out() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, _listener) = not_regular_files(dir.path());
    for (path, what) in &cases {
        let shown = path.to_str().unwrap();
        for force in [&[][..], &["--force"]] {
            refused(&[TINY, &["--out", shown], force].concat(), &["--out", shown, &format!("is {what}")]);
        }
        // Nothing written beside it either.
        assert!(!path.with_extension("json").exists() && !path.with_extension("md").exists(), "{shown}");
    }
    let device = cases.iter().find(|(_, what)| *what == "a character device");
    if let Some((device, _)) = device {
        assert!(is_char_device(device), "the device node is still there");
    }
}

#[test]
fn a_device_a_fifo_a_socket_a_folder_and_a_symlink_are_refused_as_sink() {
    let dir = tempfile::tempdir().unwrap();
    let (cases, _listener) = not_regular_files(dir.path());
    let out = dir.path().join("run.csv");
    for (path, what) in &cases {
        let sink = format!("file:{}", path.display());
        for force in [&[][..], &["--force"]] {
            let args = [TINY, &["--sink", &sink, "--out", out.to_str().unwrap()], force].concat();
            refused(&args, &["--sink", &sink, &format!("is {what}")]);
        }
        assert!(!out.exists(), "the sweep did not start");
    }
    if let Some((device, _)) = cases.iter().find(|(_, what)| *what == "a character device") {
        assert!(is_char_device(device), "the device node is still there");
    }
}

#[test]
fn the_null_device_is_a_sink_written_and_left_in_place() {
    let dir = tempfile::tempdir().unwrap();
    // A node of its own, so that a bug removes a copy and not the machine's /dev/null.
    let Some(null) = mknod(&dir.path().join("null"), 1, 3) else { return };
    let out = dir.path().join("null.csv");
    let sink = format!("file:{}", null.display());
    let output = bounded().args(TINY).args(["--sink", &sink, "--out"]).arg(&out).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(is_char_device(&null), "the null device node is still there");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 1 + 4, "{text}");
    assert!(text.lines().skip(1).all(|row| row.contains(",ok,") && row.contains(",file,")), "{text}");
}

#[test]
fn an_existing_sink_file_is_refused_and_under_force_emptied_in_place_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let sink = dir.path().join("mine.bin");
    std::fs::write(&sink, "the user's own file").unwrap();
    let inode = std::fs::metadata(&sink).unwrap().ino();
    let out = dir.path().join("run.csv");
    let flag = format!("file:{}", sink.display());
    refused(&[TINY, &["--sink", &flag, "--out", out.to_str().unwrap()]].concat(), &["--sink", "--force"]);
    assert_eq!(std::fs::read_to_string(&sink).unwrap(), "the user's own file");

    let output = bounded().args(TINY).args(["--sink", &flag, "--force", "--out"]).arg(&out).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let kept = std::fs::metadata(&sink).expect("the user's file is kept");
    assert_eq!(kept.ino(), inode, "emptied in place, not deleted and made again");
    // It holds the last sample's payloads: 600 messages of 1200 bytes.
    assert_eq!(kept.len(), 600 * 1200);
}

#[test]
fn a_sink_file_the_sweep_created_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let sink = dir.path().join("new.bin");
    let out = dir.path().join("run.csv");
    let flag = format!("file:{}", sink.display());
    bounded().args(TINY).args(["--sink", &flag, "--out"]).arg(&out).assert().success();
    assert!(!sink.exists());
}

#[test]
fn any_existing_file_of_the_output_set_refuses_the_sweep() {
    for member in ["json", "md", "cells.json", "html"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.csv");
        let existing = out.with_extension(member);
        std::fs::write(&existing, "the user's notes").unwrap();
        let shown = existing.display().to_string();
        refused(&[TINY, &["--out", out.to_str().unwrap()]].concat(), &[&shown, "already exists", "--force"]);
        assert!(!out.exists(), "no CSV started");
        assert_eq!(std::fs::read_to_string(&existing).unwrap(), "the user's notes");
    }
    // With --force the set is written, each existing file emptied in place.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.csv");
    std::fs::write(out.with_extension("md"), "the user's notes").unwrap();
    let inode = std::fs::metadata(out.with_extension("md")).unwrap().ino();
    bounded().args(TINY).arg("--out").arg(&out).arg("--force").assert().success();
    let markdown = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert!(
        common::answer(&markdown).starts_with("### Which channel\n\n") && markdown.contains("From `run.csv`"),
        "{markdown}"
    );
    assert_eq!(std::fs::metadata(out.with_extension("md")).unwrap().ino(), inode);
}

#[test]
fn an_out_named_like_another_member_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.md");
    refused(&[TINY, &["--out", out.to_str().unwrap()]].concat(), &["--out", "ends in .md"]);
    assert!(!out.exists());
}

#[test]
fn summary_and_report_on_a_sweeps_own_csv_answer_and_leave_its_files_alone_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("run.csv");
    bounded().args(TINY).arg("--out").arg(&csv).assert().success();
    let (markdown, html) = (csv.with_extension("md"), csv.with_extension("html"));
    std::fs::write(&markdown, "the user's notes").unwrap();
    std::fs::write(&html, "the user's page").unwrap();
    let shown = markdown.display().to_string();
    for (command, file, text) in [("summary", &markdown, "the user's notes"), ("report", &html, "the user's page")] {
        let output = bounded().args([command, csv.to_str().unwrap()]).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{command}: {}", String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8(output.stdout).unwrap();
        let line = format!("{command}: {} exists, left as it is (--force replaces it)", file.display());
        assert_eq!(stdout.matches(&line).count(), 1, "{command}: {stdout}");
        assert_eq!(stdout.lines().last(), Some(line.as_str()), "{stdout}");
        assert_eq!(std::fs::read_to_string(file).unwrap(), text, "{command}");
    }
    let answered = bounded().args(["summary", csv.to_str().unwrap()]).output().unwrap().stdout;
    assert!(String::from_utf8(answered).unwrap().contains("kanal"), "the answer is printed");
    // An explicit --out that exists is still refused.
    refused(&["summary", "--out", &shown, csv.to_str().unwrap()], &[&shown, "already exists", "--force"]);

    let printed = bounded().args(["summary", "--out", "-"]).arg(&csv).output().unwrap();
    assert!(printed.status.success());
    let printed = String::from_utf8(printed.stdout).unwrap();
    assert!(
        common::answer(&printed).starts_with("### Which channel\n\n") && printed.contains("From `run.csv`"),
        "{printed}"
    );
    let elsewhere = dir.path().join("elsewhere.md");
    bounded().args(["summary", "--out"]).arg(&elsewhere).arg(&csv).assert().success();
    assert!(common::answer(&std::fs::read_to_string(&elsewhere).unwrap()).starts_with("### Which channel"));
    assert_eq!(std::fs::read_to_string(&markdown).unwrap(), "the user's notes");

    bounded().args(["summary", "--force"]).arg(&csv).assert().success();
    assert!(common::answer(&std::fs::read_to_string(&markdown).unwrap()).starts_with("### Which channel"));

    // A FIFO in its place is refused, with --force too, without waiting for a reader.
    std::fs::remove_file(&markdown).unwrap();
    mkfifo(&markdown);
    refused(&["summary", "--force", csv.to_str().unwrap()], &[&shown, "is a FIFO"]);
}

/// A symbolic link at `link` to a regular file of the user's, and that file.
fn link_to_users_file(dir: &Path, link: &Path) -> PathBuf {
    let target = dir.join("precious.txt");
    std::fs::write(&target, "the user's own file").unwrap();
    std::os::unix::fs::symlink(&target, link).unwrap();
    target
}

#[test]
fn a_symlink_as_out_beside_out_or_as_sink_is_refused_with_or_without_force() {
    for (member, sink) in
        [(Some("csv"), false), (Some("json"), false), (Some("md"), false), (Some("html"), false), (None, true)]
    {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run.csv");
        let link = match member {
            Some(extension) => out.with_extension(extension),
            None => dir.path().join("sink.bin"),
        };
        let target = link_to_users_file(dir.path(), &link);
        let sink_flag = format!("file:{}", link.display());
        for force in [&[][..], &["--force"]] {
            let mut args = [TINY, &["--out", out.to_str().unwrap()], force].concat();
            if sink {
                args.extend(["--sink", &sink_flag]);
            }
            refused(&args, &[&link.display().to_string(), "is a symbolic link"]);
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "the user's own file", "{args:?}");
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        }
    }
}

#[test]
fn summary_report_and_cells_do_not_write_through_a_symlink() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("run.csv");
    bounded().args(TINY).arg("--out").arg(&csv).assert().success();
    for (command, extension) in [("summary", "md"), ("report", "html"), ("cells", "cells.json")] {
        let output = csv.with_extension(extension);
        std::fs::remove_file(&output).unwrap();
        let target = link_to_users_file(dir.path(), &output);
        for force in [&[][..], &["--force"]] {
            let args = [&[command][..], force, &[csv.to_str().unwrap()]].concat();
            let stderr = bounded().args(&args).output().unwrap();
            assert_eq!(stderr.status.code(), Some(2), "{args:?}");
            let stderr = String::from_utf8(stderr.stderr).unwrap();
            assert!(stderr.contains("is a symbolic link") && stderr.lines().count() == 1, "{args:?}: {stderr}");
            assert_eq!(std::fs::read_to_string(&target).unwrap(), "the user's own file", "{args:?}");
        }
        std::fs::remove_file(&output).unwrap();
        std::fs::remove_file(&target).unwrap();
    }
}

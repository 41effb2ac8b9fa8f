//! The one runner of the binary every test file calls, and hand-made channel-bench CSVs for
//! the tests of `compare`, `summary` and the other commands that read one.

// Each test file is a crate of its own and uses only some of these.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// Held by each test of a file that times something or loads the cores, so that two of them
/// never run at once: the tests of one file run on parallel threads, and a timed run beside a
/// loaded one measures the other's load.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The path of the channel-bench binary this test build made.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_channel-bench"))
}

/// The channel-bench binary as a command, to add arguments, stdin or a timeout to.
pub fn bench() -> Command {
    Command::new(binary())
}

/// Runs channel-bench with `args` to its end: the exit code (`None` when a signal ended it),
/// stdout and stderr as text.
pub fn run<I, S>(args: I) -> (Option<i32>, String, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    output(bench().args(args))
}

/// Runs `command` to its end: the exit code (`None` when a signal ended it), stdout and stderr
/// as text.
pub fn output(command: &mut Command) -> (Option<i32>, String, String) {
    let output = command.output().expect("the binary runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("the binary prints UTF-8");
    (output.status.code(), text(output.stdout), text(output.stderr))
}

/// The 14 columns every channel-bench CSV has had; newer columns are optional to readers.
pub const HEADER: &str = "channel,mode,runtime,workers,tasks,messages,capacity,capacity_per_channel,payload_bytes,sample,elapsed_ns,ns_per_message,cpu_ns,status";

/// CSV rows for one cloned-send cell: one per value, `ok` unless the value is negative (then
/// a failed sample); CPU time is twice the wall time.
pub fn cell(channel: &str, runtime: &str, tasks: u32, values: &[f64]) -> String {
    values
        .iter()
        .enumerate()
        .map(|(index, &value)| {
            let status = if value < 0.0 { "lost: 1 of 1000 messages missing" } else { "ok" };
            let ns = value.abs();
            format!(
                "{channel},cloned-send,{runtime},2,{tasks},1000,64,64,1200,{},{},{ns},{},{status}\n",
                index + 1,
                (ns * 1000.0) as u64,
                (ns * 2000.0) as u64
            )
        })
        .collect()
}

/// Writes `body` to `dir/name`.
pub fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

/// The position of column `name` in the CSV at `path`: readers find columns by name.
pub fn column(path: &Path, name: &str) -> usize {
    let mut reader = csv::Reader::from_path(path).unwrap();
    reader.headers().unwrap().iter().position(|column| column == name).unwrap_or_else(|| panic!("no column {name}"))
}

/// An answer (a summary, its Markdown) from the answer itself on: past the line that says a busy
/// host, which comes first when the host running the tests kept a sweep's threads from their cores.
pub fn answer(text: &str) -> &str {
    match text.strip_prefix("busy host on ") {
        Some(rest) => rest.split_once("\n\n").map_or("", |(_, answer)| answer),
        None => text,
    }
}

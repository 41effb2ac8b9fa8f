//! No result lost: Ctrl-C, SIGTERM, SIGHUP, SIGKILL and a failing disk leave a CSV whose complete
//! lines all parse; each ends with its own exit code.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

fn binary() -> PathBuf {
    common::binary()
}

/// A sweep long enough to be stopped half way: 36 cells of 200k messages.
fn start_long_sweep(out: &Path) -> Child {
    Command::new(binary())
        .args(["--messages", "200000", "--tasks", "1,2,4", "--channels", "kanal,flume,async-channel"])
        .args(["--max-time", "0", "--capacity", "65536"])
        .arg("--out")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_for_rows(out: &Path, rows: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(out).map_or(0, |text| text.lines().count()) < rows + 1 {
        assert!(Instant::now() < deadline, "no {rows} rows in {} after 60 s", out.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every complete line parses as a row of the header's width; returns their count and
/// whether a partial last line was left.
fn complete_rows(out: &Path) -> (usize, bool) {
    let text = std::fs::read_to_string(out).unwrap();
    let partial = !text.ends_with('\n');
    let complete = &text[..text.rfind('\n').map_or(0, |at| at + 1)];
    let mut reader = csv::Reader::from_reader(complete.as_bytes());
    let header_fields = channel_bench::results::schema::header().len();
    assert_eq!(reader.headers().unwrap().len(), header_fields);
    let mut rows = 0;
    for record in reader.records() {
        let record = record.unwrap();
        assert_eq!(record.len(), header_fields, "{record:?}");
        assert!(record[10].parse::<u64>().is_ok() && record[11].parse::<f64>().is_ok(), "{record:?}");
        rows += 1;
    }
    (rows, partial)
}

/// SIGINT (Ctrl-C), SIGTERM (`timeout`, CI, systemd, containers) and SIGHUP (a closed
/// terminal) all stop the sweep at the next sample boundary, keep every finished row, write
/// the summary of what finished, and exit with 128 + the signal.
#[test]
fn a_stop_signal_stops_cleanly_with_every_finished_sample_the_summary_and_its_exit_code() {
    for (signal, name, code) in
        [(libc::SIGINT, "SIGINT", 130), (libc::SIGTERM, "SIGTERM", 143), (libc::SIGHUP, "SIGHUP", 129)]
    {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("interrupted.csv");
        let child = start_long_sweep(&out);
        wait_for_rows(&out, 3);
        // SAFETY: kill only sends a signal to the child we started.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let signalled = Instant::now();
        let output = child.wait_with_output().unwrap();
        assert!(signalled.elapsed() < Duration::from_secs(5), "{name}: took {:?} to stop", signalled.elapsed());
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(code), "{name}: {stderr}");

        let (rows, partial) = complete_rows(&out);
        assert!(!partial);
        assert!((3..36 * 5).contains(&rows), "{rows}");
        let line = stderr
            .lines()
            .find(|line| line.starts_with(&format!("interrupted by {name}: ")))
            .unwrap_or_else(|| panic!("{stderr}"));
        assert!(
            line.contains(&format!(" of 36 cells finished, {rows} samples written to {}", out.display())),
            "{line}"
        );
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(stdout.contains(&format!("results: {}", out.display())), "{stdout}");
        // What was finished is summarized all the same.
        assert!(stdout.contains(&format!("summary: {}", out.with_extension("md").display())), "{stdout}");
        assert!(out.with_extension("md").exists());
    }
}

#[test]
fn sigkill_leaves_only_complete_lines_and_compare_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("killed.csv");
    let mut child = start_long_sweep(&out);
    wait_for_rows(&out, 3);
    child.kill().unwrap();
    child.wait().unwrap();
    let (rows, _) = complete_rows(&out);
    assert!(rows >= 3);
    let compared = Command::new(binary()).arg("compare").arg(&out).arg(&out).output().unwrap();
    assert_eq!(compared.status.code(), Some(0), "{}", String::from_utf8_lossy(&compared.stderr));
}

/// Runs a sweep of `args` writing `out` under a file-size limit of `kib` KiB (`ulimit -f`),
/// SIGXFSZ ignored: writes past the limit fail with EFBIG, as a full disk fails them with ENOSPC.
fn with_file_size_limit(kib: u32, args: &[&str], out: &Path) -> std::process::Output {
    Command::new("bash")
        .args(["-c", &format!(r#"trap "" XFSZ; ulimit -f {kib}; exec "$0" "$@""#)])
        .arg(binary())
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn a_write_failure_stops_the_sweep_with_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("full.csv");
    // A 2 KiB file-size limit: the header and a dozen rows fit, then writes fail with EFBIG.
    let args = ["--messages", "600", "--tasks", "1,3", "--samples", "5", "--max-time", "0", "--warmup", "0"];
    let output = with_file_size_limit(2, &args, &out);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with(&format!("error: cannot write to {}: ", out.display())), "{stderr}");
    assert!(!stderr.contains("panicked"));
    let (rows, _) = complete_rows(&out);
    assert!(rows >= 5, "{rows}");
}

#[test]
fn a_disk_that_fails_while_out_is_created_is_exit_1_not_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("full.csv");
    // No byte may be written: the header fails with EFBIG, as a full disk fails it with ENOSPC.
    let output = with_file_size_limit(0, &["--messages", "600", "--tasks", "1"], &out);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with(&format!("error: cannot write to {}: ", out.display())), "{stderr}");
    assert!(output.stdout.is_empty());
}

/// Voluntary context switches of the calling thread so far: each time it went to sleep.
fn thread_sleeps() -> i64 {
    // SAFETY: rusage is plain integers; getrusage writes only into it; RUSAGE_THREAD is valid on Linux.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) }, 0);
    usage.ru_nvcsw
}

#[test]
fn the_watchdog_sleeps_through_a_sample_without_waking() {
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    use channel_bench::run::measure::{Job, RuntimeKind, Watchdog, guarded_sample};
    use channel_bench::run::workload::{Mode, Pace, Phase, Workload};

    // 20 bursts of one message 20 ms apart: a sample of at least 400 ms, idle most of it.
    let pace = Pace { interval: Duration::from_millis(20), burst: 1, phase: Phase::Aligned };
    let workload = Workload { pace: Some(pace), ..Workload::new(Mode::ClonedSend, 1, 20, 64) };
    let channel = &channel_bench::registry::CHANNELS[0];
    let watchdog = Watchdog::new(Duration::from_secs(30), Arc::new(AtomicBool::new(false))).unwrap();
    let before = thread_sleeps();
    let job = Job {
        channel: channel.name.to_owned(),
        prepare: Some(channel.prepare),
        runtime: RuntimeKind::CurrentThread,
        workers: 1,
        workload,
        warmups: 0,
        bound: None,
        slowed: 0.0,
    };
    let sample = guarded_sample(&job, &watchdog).unwrap().unwrap();
    let sleeps = thread_sleeps() - before;
    assert!(sample.status.is_ok() && sample.elapsed >= Duration::from_millis(350), "{sample:?}");
    // Polling every 50 ms would sleep 8 times or more; one wait (and the join) is 1 to 3.
    assert!(sleeps <= 4, "the waiting thread slept {sleeps} times during a {:?} sample", sample.elapsed);
    assert!(sample.involuntary_switches.is_some());
    if cfg!(target_os = "linux") {
        assert!(sample.steal.is_some());
    }
}

/// Whichever thread the signal lands on, the waiting watchdog is woken: by the signal
/// handler's write to its socket, or (on the waiting thread itself) by the interrupted read.
#[test]
fn ctrl_c_stops_a_long_sample_in_the_middle() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("paced.csv");
    // One sample of 200 bursts 50 ms apart: 10 s, unless Ctrl-C cuts it short.
    let child = Command::new(binary())
        .args(["--pace", "50ms", "--duration", "10s", "--tasks", "1", "--channels", "kanal"])
        .args(["--runtimes", "current-thread", "--modes", "cloned-send", "--samples", "1", "--warmup", "0"])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The header is written just before the first sample starts.
    wait_for_rows(&out, 0);
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: kill only sends a signal to the child we started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let signalled = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(signalled.elapsed() < Duration::from_secs(3), "took {:?} to stop", signalled.elapsed());
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(complete_rows(&out).0, 0);
}

#[test]
fn a_plan_past_the_machines_memory_is_refused_at_once_naming_the_estimate_and_what_to_lower() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("huge.csv");
    // 4 GB buffers for each of 4096 tasks, and 10^11 slots: past any machine's memory.
    for args in [&["--payload", "4000000000", "--tasks", "4096"][..], &["--capacity", "100000000000", "--tasks", "1"]] {
        let started = std::time::Instant::now();
        let output = Command::new(binary()).args(args).arg("--out").arg(&out).output().unwrap();
        let took = started.elapsed();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(took < Duration::from_secs(1), "{args:?} took {took:?}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("needs about") && stderr.contains("available") && stderr.contains("lower --"),
            "{stderr}"
        );
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn a_plan_past_the_process_own_address_space_limit_is_refused_at_once_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("limited.csv");
    // About 16 GiB by the estimate: within the memory of a 24 GiB machine, past `ulimit -v` of 4 GB.
    let args = ["--tasks", "8192", "--capacity", "100000000", "--payload", "1000000", "--modes", "merged-recv"];
    let started = std::time::Instant::now();
    let output = Command::new("bash")
        .args(["-c", r#"ulimit -v 4000000; exec "$0" "$@""#])
        .arg(binary())
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("address-space limit (ulimit -v)") && stderr.contains("lower --"), "{stderr}");
    assert!(!out.exists(), "nothing written");
}

//! The harness against channels that misbehave on purpose (cargo feature `faults`):
//! a hang becomes a timeout row, a loss a lost row, and the sweep goes on.
#![cfg(feature = "faults")]

use std::time::{Duration, Instant};

mod common;

fn rows(path: &std::path::Path) -> Vec<csv::StringRecord> {
    csv::Reader::from_path(path).unwrap().records().map(Result::unwrap).collect()
}

#[test]
fn a_hang_becomes_a_timeout_row_within_the_timeout_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hang.csv");
    let started = Instant::now();
    let output = common::bench()
        .args(["--channels", "fault-hang,kanal", "--tasks", "2", "--messages", "2000", "--capacity", "64"])
        .args(["--timeout", "0.5", "--samples", "2", "--max-time", "0", "--out"])
        .arg(&out)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    // Four hung cells (2 modes × 2 runtimes), each abandoned after 0.5 s, one sample each.
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let rows = rows(&out);
    let hung: Vec<_> = rows.iter().filter(|row| &row[0] == "fault-hang").collect();
    assert_eq!(hung.len(), 4);
    let (status, elapsed) = (common::column(&out, "status"), common::column(&out, "elapsed_ns"));
    for row in &hung {
        assert!(row[status].starts_with("timeout"), "{row:?}");
        let elapsed: u64 = row[elapsed].parse().unwrap();
        assert!((500_000_000..5_000_000_000).contains(&elapsed), "{row:?}");
    }
    // The sweep went on past every hang: kanal's cells all ran, on fresh runtimes.
    let kanal: Vec<_> = rows.iter().filter(|row| &row[0] == "kanal").collect();
    assert_eq!(kanal.len(), 4 * 2);
    assert!(kanal.iter().all(|row| &row[status] == "ok"), "{kanal:?}");
    assert_eq!(stdout.matches("fault-hang: 1 of 1 samples failed, first: timeout").count(), 4, "{stdout}");
    // The closing summary ranks kanal alone; its page says why the hung channel is not ranked.
    let kanal = stdout.lines().filter(|line| line.trim_start().starts_with("small (2)") && line.contains(" kanal† "));
    assert_eq!(kanal.count(), 4, "{stdout}");
    let page = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert_eq!(page.matches("| fault-hang (1 failed sample(s) at tasks 2) |").count(), 4, "{page}");
}

#[test]
fn a_loss_becomes_a_lost_row_naming_sender_and_sequence() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lossy.csv");
    let output = common::bench()
        .args(["--channels", "fault-lossy", "--tasks", "3", "--messages", "3000", "--samples", "1", "--max-time", "0"])
        .args(["--capacity", "65536"])
        .arg("--out")
        .arg(&out)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let (rows, status) = (rows(&out), common::column(&out, "status"));
    assert_eq!(rows.len(), 4);
    for row in rows {
        // Each of the 3 senders loses seq 99, 199, …, 999: 30 messages; the first gap any
        // sender shows is at its seq 99.
        let status = &row[status];
        assert!(status.starts_with("lost: 30 of 3000 messages missing; first: sender "), "{status}");
        assert!(status.ends_with(" seq 99 (seq 100 came next)"), "{status}");
    }
}

#[test]
fn a_fault_build_lists_its_faulty_channels() {
    let output = common::bench().arg("--list-channels").output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("fault-hang") && stdout.contains("fault-lossy"), "{stdout}");
}

#[test]
fn a_truncated_sink_file_fails_its_sample() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sink.csv");
    let sink = format!("truncating-file:{}", dir.path().join("sink.bin").display());
    let output = common::bench()
        .args(["--channels", "kanal", "--tasks", "2", "--messages", "500", "--capacity", "64", "--sink", &sink])
        .args(["--runtimes", "current-thread", "--modes", "cloned-send", "--samples", "2", "--max-time", "0", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let (rows, status) = (rows(&out), common::column(&out, "status"));
    assert!(!rows.is_empty());
    for row in &rows {
        assert!(
            row[status].starts_with("sink: ") && row[status].contains("holds 599999 bytes, 600000 were received"),
            "{row:?}"
        );
    }
    assert!(stdout.contains("had failed samples"), "{stdout}");
}

#[test]
fn a_leaking_channel_grows_the_resident_set_more_than_a_normal_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("leak.csv");
    // 40,000 payloads of 1200 bytes: the leaking channel keeps some 48 MB.
    let output = common::bench()
        .args(["--channels", "tokio-mpsc,fault-leaky", "--tasks", "4", "--messages", "40000", "--capacity", "64"])
        .args(["--runtimes", "current-thread", "--modes", "cloned-send", "--samples", "2", "--max-time", "0"])
        .arg("--out")
        .arg(&out)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let growth = common::column(&out, "resident_growth_bytes");
    let largest = |channel: &str| {
        rows(&out).iter().filter(|row| &row[0] == channel).map(|row| row[growth].parse::<i64>().unwrap()).max().unwrap()
    };
    let (normal, leaky) = (largest("tokio-mpsc"), largest("fault-leaky"));
    assert!(leaky > 40_000 * 1200 / 2, "the leak shows: {leaky} bytes");
    assert!(leaky > 4 * normal.max(1), "leaky {leaky} against normal {normal} bytes");
}

#[test]
fn a_crash_ends_only_the_process_of_its_round_and_the_sweep_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("crash.csv");
    let output = common::bench()
        .args(["--channels", "fault-crash,kanal", "--tasks", "2", "--messages", "2000", "--capacity", "64"])
        .args(["--samples", "2", "--max-time", "0", "--out"])
        .arg(&out)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let (rows, status) = (rows(&out), common::column(&out, "status"));
    // Every cell's sample of the crashing channel is a failed row that says why; the crash
    // took only its round's process, so kanal's samples, before and after it, were all taken.
    let crashed: Vec<_> = rows.iter().filter(|row| &row[0] == "fault-crash").collect();
    // One sample per cell (2 modes × 2 runtimes): a failed first sample screens a channel out.
    assert_eq!(crashed.len(), 4, "{crashed:?}");
    for row in &crashed {
        assert!(row[status].starts_with("panicked: the process measuring it ended: signal: 9 (SIGKILL)"), "{row:?}");
    }
    let kanal: Vec<_> = rows.iter().filter(|row| &row[0] == "kanal").collect();
    assert_eq!(kanal.len(), 4 * 2);
    assert!(kanal.iter().all(|row| &row[status] == "ok"), "{kanal:?}");
}

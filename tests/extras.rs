//! Beyond throughput: each of `--latency`, `--pace`, `--payload MIN..MAX`, `--sink`,
//! `--count-allocs` and `--merge` on a small sweep through the real binary.

use std::collections::HashMap;
use std::path::Path;

use channel_bench::run::payload;

mod common;

/// Rows of a sweep's CSV, each as column name → value.
fn sweep(args: &[&str], out: &Path) -> Vec<HashMap<String, String>> {
    // The paced sweep here times its schedule: no other sweep of this file runs beside one.
    let _alone = common::one_at_a_time();
    let output = common::bench().args(args).arg("--out").arg(out).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{args:?}: {stdout}{}", String::from_utf8_lossy(&output.stderr));
    let mut reader = csv::Reader::from_path(out).unwrap();
    let header = reader.headers().unwrap().clone();
    let rows: Vec<HashMap<String, String>> = reader
        .records()
        .map(|record| header.iter().map(str::to_owned).zip(record.unwrap().iter().map(str::to_owned)).collect())
        .collect();
    assert!(!rows.is_empty());
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
    }
    rows
}

fn number(row: &HashMap<String, String>, column: &str) -> f64 {
    row[column].parse().unwrap_or_else(|_| panic!("{column} {:?} in {row:?}", row[column]))
}

/// Exactly `--samples` samples per cell, no warm-up.
const SMALL: &[&str] = &["--warmup", "0", "--samples", "2", "--max-time", "0", "--capacity", "256"];

#[test]
fn latency_percentiles_are_ordered_and_non_zero() {
    let dir = tempfile::tempdir().unwrap();
    let args = [SMALL, &["--latency", "--messages", "3000", "--tasks", "1,16", "--channels", "kanal,tokio-mpsc"]];
    let rows = sweep(&args.concat(), &dir.path().join("latency.csv"));
    for row in &rows {
        let [p50, p99, p999, max] = ["lat_p50_ns", "lat_p99_ns", "lat_p999_ns", "lat_max_ns"].map(|c| number(row, c));
        assert!(0.0 < p50 && p50 <= p99 && p99 <= p999 && p999 <= max, "{row:?}");
        // No message waits longer than the whole sample took.
        assert!(max <= number(row, "elapsed_ns") * 1.001, "{row:?}");
    }
}

#[test]
fn a_paced_run_takes_at_least_its_schedule_and_reports_the_real_interval() {
    let dir = tempfile::tempdir().unwrap();
    // 2 tasks, 50 ms in bursts of 4 every 5 ms: 10 bursts each, the last one 9 intervals after the first.
    let paced = ["--pace", "5ms", "--burst", "4", "--duration", "50ms", "--tasks", "2", "--channels", "flume"];
    let rows = sweep(&[SMALL, &paced, &["--runtimes", "current-thread"]].concat(), &dir.path().join("paced.csv"));
    for row in &rows {
        assert!(number(row, "elapsed_ns") >= 9.0 * 5e6, "{row:?}");
        assert_eq!(number(row, "pace_ns"), 5e6);
        assert_eq!(number(row, "burst"), 4.0);
        // The measured mean interval between bursts fits inside the sample, and is near the
        // asked-for one (a task's first burst can start late on a loaded machine, which
        // shortens the mean; the bound leaves room for that, not for a missing timer).
        let actual = number(row, "pace_actual_ns");
        assert!(9.0 * actual <= number(row, "elapsed_ns"), "{row:?}");
        assert!(actual >= 2.5e6, "{row:?}");
    }
}

#[test]
fn drawn_payload_sizes_add_up_to_the_bytes_reported_and_repeat_with_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let run = |seed: &str, name: &str| {
        let args = ["--payload", "300..2000", "--seed", seed, "--messages", "1001", "--tasks", "1,7"];
        sweep(&[SMALL, &args, &["--channels", "async-channel"]].concat(), &dir.path().join(name))
    };
    let rows = run("7", "seed7.csv");
    for row in &rows {
        let tasks: u32 = row["tasks"].parse().unwrap();
        let per_task = |task: u32| 1001 / tasks + u32::from(task < 1001 % tasks);
        let expected: u64 = (0..tasks)
            .map(|task| payload::sizes(300, 2000, 7, task, per_task(task)).iter().map(|&s| u64::from(s)).sum::<u64>())
            .sum();
        assert_eq!(number(row, "bytes") as u64, expected, "{row:?}");
        assert_eq!(row["payload"], "300..2000");
        assert_eq!(row["seed"], "7");
        assert_eq!(number(row, "payload_bytes"), (expected as f64 / 1001.0).round());
        assert!(number(row, "mb_per_s") > 0.0);
    }
    // Per cell (a round measured again when the machine was slow repeats its cell's bytes).
    let bytes = |rows: &[HashMap<String, String>]| {
        let cell = |row: &HashMap<String, String>| (row["runtime"].clone(), row["mode"].clone(), row["tasks"].clone());
        rows.iter().map(|row| (cell(row), row["bytes"].clone())).collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(bytes(&rows), bytes(&run("7", "again.csv")));
    assert_ne!(bytes(&rows), bytes(&run("8", "seed8.csv")));
}

#[test]
fn a_file_sink_receives_every_byte_and_is_removed_unless_kept() {
    let dir = tempfile::tempdir().unwrap();
    let sink = dir.path().join("sink.bin");
    let sink_arg = format!("file:{}", sink.display());
    let args = ["--sink", &sink_arg, "--messages", "2000", "--tasks", "1,4", "--channels", "kanal"];
    let rows = sweep(&[SMALL, &args].concat(), &dir.path().join("sink.csv"));
    assert!(rows.iter().all(|row| row["sink"] == "file" && number(row, "mb_per_s") > 0.0));
    assert!(!sink.exists(), "the sink file is removed after each sample");

    let kept = [SMALL, &args, &["--keep-sink", "--runtimes", "current-thread", "--modes", "cloned-send"]].concat();
    let rows = sweep(&kept, &dir.path().join("kept.csv"));
    let last = rows.last().unwrap();
    assert_eq!(std::fs::metadata(&sink).unwrap().len(), number(last, "bytes") as u64);
    assert_eq!(number(last, "bytes"), 2000.0 * 1200.0);
}

#[test]
fn allocations_are_one_per_message_for_futures_channel_and_none_for_kanal() {
    let dir = tempfile::tempdir().unwrap();
    // One sender that never waits (capacity ≥ messages): futures-channel queues each
    // message in a node of its own; kanal's ring buffer is allocated before the clock.
    let args = [
        "--count-allocs",
        "--messages",
        "5000",
        "--capacity",
        "8192",
        "--tasks",
        "1",
        "--modes",
        "cloned-send",
        "--runtimes",
        "current-thread",
        "--channels",
        "futures-channel,kanal",
        // Its three samples are the point, however far behind kanal the screening finds it.
        "--keep",
        "futures-channel",
        "--warmup",
        "0",
        "--samples",
        "3",
        "--max-time",
        "0",
    ];
    let rows = sweep(&args, &dir.path().join("allocs.csv"));
    let of = |channel: &str, column: &str| -> Vec<f64> {
        rows.iter().filter(|row| row["channel"] == channel).map(|row| number(row, column)).collect()
    };
    let futures = of("futures-channel", "allocs_per_message");
    assert_eq!(futures.len(), 3);
    assert!(futures.iter().all(|&count| count == futures[0]), "deterministic: {futures:?}");
    assert!((1.0..1.01).contains(&futures[0]), "{futures:?}");
    assert!(of("futures-channel", "alloc_bytes_per_message")[0] >= 48.0, "a node holds a whole message");
    assert!(of("kanal", "allocs_per_message").iter().all(|&count| count < 0.01), "{rows:?}");
}

#[test]
fn each_merge_strategy_is_a_cell_of_its_own_and_delivers_everything() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--merge", "futures-buffered,select-all,stream-map", "--modes", "merged-recv", "--messages", "3001"];
    let rows = sweep(
        &[SMALL, &args, &["--tasks", "1,64", "--channels", "tokio-mpsc,flume,kanal"]].concat(),
        &dir.path().join("m.csv"),
    );
    // 3 merges × 3 channels × 2 task counts × 2 runtimes, each in the first screening round and
    // in the second unless 2× behind its group's fastest (kanal's own stream corrupted the heap
    // under stream-map: see `Kanal::stream`), and again in rounds the machine ran slow
    assert!(rows.len() > 36, "{} rows", rows.len());
    for merge in ["futures-buffered", "select-all", "stream-map"] {
        let cells: std::collections::HashSet<_> = rows
            .iter()
            .filter(|row| row["merge"] == merge)
            .map(|row| (row["channel"].clone(), row["tasks"].clone(), row["runtime"].clone()))
            .collect();
        assert_eq!(cells.len(), 12, "{merge}");
    }
}

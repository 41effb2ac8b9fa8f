//! `channel-bench memory` end to end on a tiny configuration: its CSV's columns, the files beside
//! it, and figures that hold by the crates' construction: every channel holds its burst's
//! records in its slots at the peak; kanal allocates every slot when the channel is made, tokio's
//! mpsc one block of 32 slots.

use std::collections::HashMap;

mod common;

/// The columns of a memory CSV, in order.
const COLUMNS: &str = "channel,version,mode,tasks,capacity,capacity_per_channel,channels,record_bytes,slot_bytes,\
rest_bytes,peak_bytes,drained_bytes,kept_bytes,after_drop_bytes,status";

/// The rows of `csv`, each a map from column to value.
fn rows(csv: &std::path::Path) -> (String, Vec<HashMap<String, String>>) {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_owned();
    let names: Vec<&str> = header.split(',').collect();
    let rows = lines
        .map(|line| names.iter().map(|name| name.to_string()).zip(line.split(',').map(str::to_owned)).collect())
        .collect();
    (header, rows)
}

fn bytes(row: &HashMap<String, String>, column: &str) -> i64 {
    row[column].parse().unwrap()
}

#[test]
fn memory_writes_its_rows_and_a_preallocating_channel_holds_its_slots_at_rest() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("m.csv");
    let args = [
        "memory",
        "--channels",
        "kanal,tokio-mpsc",
        "--tasks",
        "4",
        "--capacity",
        "1024",
        "--record-bytes",
        "1200",
        "--out",
        csv.to_str().unwrap(),
    ];
    let (code, stdout, stderr) = common::run(args);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("keeps least:"), "{stdout}");
    assert!(dir.path().join("m.md").exists() && dir.path().join("m.json").exists());
    let (header, rows) = rows(&csv);
    assert_eq!(header, COLUMNS);
    // Two designs × two channels.
    assert_eq!(rows.len(), 4, "{rows:?}");
    let slots_bytes = 1024 * 1200;
    for row in &rows {
        assert_eq!(row["status"], "ok", "{row:?}");
        // Each slot holds a 1,200-byte record by value: at the peak every one is full.
        assert!(bytes(row, "peak_bytes") >= slots_bytes, "{row:?}");
        assert!(bytes(row, "peak_bytes") >= bytes(row, "rest_bytes").max(bytes(row, "drained_bytes")), "{row:?}");
    }
    let cloned = |channel: &str| {
        rows.iter().find(|row| row["channel"] == channel && row["mode"] == "cloned-send").unwrap().clone()
    };
    assert!(bytes(&cloned("kanal"), "rest_bytes") >= slots_bytes, "kanal allocates every slot when made");
    assert!(bytes(&cloned("tokio-mpsc"), "rest_bytes") < slots_bytes, "tokio's mpsc allocates blocks as needed");

    // Its files are never replaced without --force, and the refusal comes before anything is measured.
    let before = std::fs::read_to_string(&csv).unwrap();
    let (code, _, stderr) = common::run(args);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("already exists") && stderr.contains("--force"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), before);
}

#[test]
fn bad_memory_flags_are_refused_with_one_line() {
    for (args, says) in [
        (&["memory", "--channels", "nope"][..], "no channel named"),
        (&["memory", "--tasks", "4,4"][..], "lists 4 twice"),
        (&["memory", "--capacity", "0"][..], "--capacity"),
        (&["memory", "--record-bytes", "7"][..], "--record-bytes"),
    ] {
        let (code, _, stderr) = common::run(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says) && stderr.lines().count() == 1, "{args:?}: {stderr}");
    }
}

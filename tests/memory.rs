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

/// A tiny sweep's flags: two channels, 1 and 8 tasks, 64 slots, one runtime, a few samples.
const TINY_SWEEP: [&str; 16] = [
    "--channels",
    "tokio-mpsc,kanal",
    "--tasks",
    "1,8",
    "--capacity",
    "64",
    "--runtimes",
    "current-thread",
    "--messages",
    "600",
    "--warmup",
    "0",
    "--samples",
    "2",
    "--max-time",
    "0",
];

/// A temporary folder holding `x.csv`, a sweep of [`TINY_SWEEP`] that finished.
fn tiny_sweep() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("x.csv");
    let (code, stdout, stderr) = common::run(TINY_SWEEP.iter().copied().chain(["--out", csv.to_str().unwrap()]));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    (dir, csv)
}

#[test]
fn memory_beside_a_sweep_writes_its_sidecar_and_the_sweeps_answer_names_what_each_pick_keeps() {
    let (dir, csv) = tiny_sweep();

    // Without other flags, the sweep's channels and cells, the rows to its sidecar.
    let (code, stdout, stderr) = common::run(["memory", "--sweep", csv.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let sidecar = dir.path().join("x.memory.csv");
    let (_, rows) = rows(&sidecar);
    // Two designs × 1 and 8 tasks × two channels, at the sweep's 64 slots and shared message.
    assert_eq!(rows.len(), 8, "{rows:?}");
    assert!(rows.iter().all(|row| row["capacity"] == "64" && row["record_bytes"] == "shared"), "{rows:?}");
    assert!(dir.path().join("x.memory.md").exists() && dir.path().join("x.memory.json").exists());
    assert!(stdout.contains("memory kept after a burst:") && stdout.contains("the pick "), "{stdout}");

    let (code, json, stderr) = common::run(["summary", "--json", csv.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    let answer: serde_json::Value = serde_json::from_str(&json).unwrap();
    let bands = answer["bands"].as_array().unwrap();
    assert_eq!(bands.len(), 2, "one small band per design: {json}");
    for band in bands {
        let (leader, memory) = (&band["leader"]["channel"], &band["memory"]);
        assert_eq!(&memory["pick"]["channel"], leader, "{band}");
        let kept = |which: &str| memory[which]["kept_bytes"].as_array().unwrap().iter().map(|b| b.as_i64().unwrap());
        assert_eq!(kept("pick").len(), 2, "kept bytes at 1 and 8 tasks: {band}");
        assert!(kept("pick").all(|bytes| bytes > 0), "{band}");
        // The least is the channel whose rows in the sidecar keep least over the band's cells.
        let total = |channel: &str| -> i64 {
            let of = |row: &&HashMap<String, String>| row["channel"] == channel && row["mode"] == band["mode"];
            rows.iter().filter(of).map(|row| bytes(row, "kept_bytes")).sum()
        };
        let least = memory["least"]["channel"].as_str().unwrap();
        assert_eq!(kept("least").sum::<i64>(), total(least), "{band}");
        assert!(["tokio-mpsc", "kanal"].iter().all(|channel| total(least) <= total(channel)), "{band}");
    }
}

#[test]
fn memory_beside_a_sweep_refuses_before_measuring_when_its_sidecar_exists() {
    let (dir, csv) = tiny_sweep();
    let sidecar = dir.path().join("x.memory.csv");
    std::fs::write(&sidecar, "mine\n").unwrap();
    let listing = || {
        let mut paths: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().path()).collect();
        paths.sort();
        paths
    };
    let before = listing();
    let (code, stdout, stderr) = common::run(["memory", "--sweep", csv.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("x.memory.csv already exists") && stderr.lines().count() == 1, "{stderr}");
    assert!(stdout.is_empty(), "nothing measured: {stdout}");
    assert_eq!(std::fs::read_to_string(&sidecar).unwrap(), "mine\n");
    assert_eq!(listing(), before, "nothing written");
}

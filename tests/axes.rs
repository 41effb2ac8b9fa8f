//! The batch (`--batch`) and the kind of message (`--record-bytes`) are axes of the answer, as
//! capacity is: a band measured at several batches or record sizes is read across them, and
//! where the pick changes, each place names the other's pick and how far behind it is.

mod common;
use std::path::{Path, PathBuf};

use common::{HEADER, cell, run, write};
use serde_json::Value;

/// One run: at each of two places on an axis (the `batch` and `record_bytes` columns' values),
/// kanal and flume at 1 and 64 tasks; kanal leads at the first place, flume at the second.
fn a_run(dir: &Path, places: [(&str, &str); 2]) -> PathBuf {
    let steady = |value: f64| [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998];
    let mut body = format!("{HEADER},batch,record_bytes\n");
    for ((batch, record), (kanal, flume)) in places.iter().zip([(100.0, 200.0), (300.0, 100.0)]) {
        for tasks in [1, 64] {
            for (channel, ns) in [("kanal", kanal), ("flume", flume)] {
                for row in cell(channel, "multi-thread", tasks, &steady(ns)).lines() {
                    body += &format!("{row},{batch},{record}\n");
                }
            }
        }
    }
    write(dir, "run.csv", &body)
}

/// What `summary --json` and the console say of `csv`.
fn answers(csv: &Path) -> (Value, String) {
    let (code, json, stderr) = run(["summary", csv.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, console, stderr) = run(["summary", csv.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    (serde_json::from_str(&json).unwrap(), console)
}

/// Each of `key`'s bands picks kanal then flume, and each place's pick leads the other's 2× or more.
fn read_across(json: &Value, key: &str) {
    let found = json[key].as_array().unwrap_or_else(|| panic!("no {key}: {json}"));
    assert_eq!(found.len(), 2, "a small and a medium band: {json}");
    for band in found {
        let picks: Vec<&str> =
            band["picks"].as_array().unwrap().iter().map(|p| p["channel"].as_str().unwrap()).collect();
        assert_eq!(picks, ["kanal", "flume"], "{band}");
        let changes = band["changes"].as_array().unwrap();
        assert_eq!(changes.len(), 2, "each place's pick is behind at the other: {band}");
        assert!(changes.iter().all(|change| change["behind"]["ratio"].as_f64().unwrap() > 1.9), "{band}");
        assert_eq!(band["setting"], "", "the place is not part of the band's setting: {band}");
    }
}

#[test]
fn a_pick_that_changes_with_the_batch_is_named_with_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let (json, console) = answers(&a_run(dir.path(), [("1", ""), ("64", "")]));
    read_across(&json, "batches");
    assert!(json.get("records").is_none(), "one kind of message: {json}");
    assert!(
        console.contains("The pick changes with the batch; where it does, how far the other batch's pick is behind:")
    );
    assert!(console.contains("  At a batch of 1: flume 2.00× behind kanal† (2 bands, multi-thread)\n"), "{console}");
    assert!(console.contains("  At a batch of 64: kanal† 3.00× behind flume (2 bands, multi-thread)\n"), "{console}");
}

#[test]
fn a_pick_that_changes_with_the_record_size_is_named_with_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let (json, console) = answers(&a_run(dir.path(), [("1", "48"), ("1", "1200")]));
    read_across(&json, "records");
    assert!(json.get("batches").is_none(), "one batch: {json}");
    assert_eq!(json["records"][0]["picks"][1]["record_bytes"], 1200, "{json}");
    assert!(
        console.contains("  With 48-byte records by value: flume 2.00× behind kanal† (2 bands, multi-thread)\n"),
        "{console}"
    );
    assert!(
        console.contains("  With 1200-byte records by value: kanal† 3.00× behind flume (2 bands, multi-thread)\n"),
        "{console}"
    );
}

#[test]
fn bands_read_by_batch_and_record_size_smallest_first_whatever_the_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let (_, console) = answers(&a_run(dir.path(), [("64", "1200"), ("1", "48")]));
    let headings: Vec<&str> = console.lines().filter(|line| line.starts_with("multi-thread cloned-send")).collect();
    assert_eq!(headings.len(), 2, "{console}");
    assert!(headings[0].starts_with("multi-thread cloned-send [48-byte records by value] "), "{console}");
    assert!(headings[1].starts_with("multi-thread cloned-send [batch 64, 1200-byte records by value] "), "{console}");
}

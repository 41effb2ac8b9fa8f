//! `--weigh` kept with the run: a summary of a CSV whose JSON records an order decides the room
//! on it and names it on the card, and `summary --weigh` decides on the order given instead.

use std::fs;
use std::path::Path;

mod common;

/// The reference SFU run, copied with its JSON into `dir`, the JSON's `weigh` set to `order`
/// (none: left out); the CSV's path.
fn run_weighing(dir: &Path, order: Option<&[&str]>) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/reference");
    let csv = dir.join("room.csv");
    fs::copy(root.join("channel-bench-20261125T171956Z.csv"), &csv).unwrap();
    let json = fs::read_to_string(root.join("channel-bench-20261125T171956Z.json")).unwrap();
    let mut metadata: serde_json::Value = serde_json::from_str(&json).unwrap();
    if let Some(order) = order {
        metadata["weigh"] = serde_json::json!(order);
    }
    fs::write(dir.join("room.json"), metadata.to_string()).unwrap();
    csv
}

/// The room's decision as `summary --json` gives it, with `args` before the CSV.
fn decision(csv: &Path, args: &[&str]) -> serde_json::Value {
    let (code, stdout, stderr) = common::output(common::bench().arg("summary").arg("--json").args(args).arg(csv));
    assert_eq!(code, Some(0), "{stderr}");
    serde_json::from_str::<serde_json::Value>(&stdout).unwrap()["decision"].clone()
}

/// The card's `weighed:` line.
fn weighed(decision: &serde_json::Value) -> String {
    let card = decision["card"].as_array().unwrap();
    card.iter().filter_map(|line| line.as_str()).find(|line| line.starts_with("weighed:")).unwrap().to_owned()
}

#[test]
fn the_runs_order_is_the_summarys_unless_summary_is_given_another() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run_weighing(dir.path(), None);
    let default = decision(&plain, &[]);
    assert_eq!(default["weigh"], serde_json::json!(["drops", "cpu"]));
    assert!(weighed(&default).contains("frames overflowed in phase, then CPU per message out of phase"));

    let other = tempfile::tempdir().unwrap();
    let kept = run_weighing(other.path(), Some(&["p99", "cpu"]));
    let from_json = decision(&kept, &[]);
    assert_eq!(from_json["weigh"], serde_json::json!(["p99", "cpu"]));
    assert!(weighed(&from_json).contains("p99 in phase, then CPU per message out of phase (`--weigh p99,cpu`)"));
    assert_eq!(from_json, decision(&plain, &["--weigh", "p99,cpu"]), "the JSON's order is the flag's");
    assert_eq!(decision(&kept, &["--weigh", "drops,cpu"]), default, "the flag wins over the JSON");
}

#[test]
fn a_channel_passed_over_is_said_so_and_not_also_tied() {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/reference/16core-xeon-2026-11-28");
    for name in ["s.csv", "s.json", "s.latency.csv"] {
        fs::copy(from.join(name), dir.path().join(name)).unwrap();
    }
    let csv = dir.path().join("s.csv");
    let (code, stdout, stderr) =
        common::output(common::bench().args(["summary", "--keep", "flume,async-channel,tachyonix"]).arg(&csv));
    assert_eq!(code, Some(0), "{stderr}");
    let yours =
        stdout.lines().find(|line| line.trim_start().starts_with("yours:")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(yours.contains("flume: passed over, behind loole in 98.3%; async-channel is the pick"), "{yours}");
    assert!(yours.contains("tachyonix: not told apart from the pick on drops and CPU"), "{yours}");
    let tied = decision(&csv, &[])["tied"].clone();
    let tied: Vec<&str> = tied.as_array().unwrap().iter().filter_map(|channel| channel.as_str()).collect();
    assert!(tied.contains(&"tachyonix") && !tied.contains(&"flume") && !tied.contains(&"tokio-mpsc"), "{tied:?}");
}

//! The channels a user follows (`--keep`): each one's verdict against every band's pick, the
//! `recv_many` line a tokio user should read, and a worker count above the cores said.

mod common;
use common::{HEADER, cell, run, write};

fn steady(value: f64) -> [f64; 5] {
    [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998]
}

/// A merged-recv run where tokio-recv-many leads, kanal follows and tokio-mpsc is 3× behind.
fn merged(dir: &std::path::Path) -> std::path::PathBuf {
    let mut body = format!("{HEADER}\n");
    for (channel, value) in [("tokio-recv-many", 100.0), ("kanal", 150.0), ("tokio-mpsc", 300.0)] {
        body += &cell(channel, "multi-thread", 64, &steady(value)).replace(",cloned-send,", ",merged-recv,");
    }
    write(dir, "merged.csv", &body)
}

#[test]
fn a_kept_channel_has_its_verdict_against_the_pick_in_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let csv = merged(dir.path()).display().to_string();
    let (code, stdout, stderr) = run(["summary", &csv, "--keep", "tokio-mpsc,kanal"]);
    assert_eq!(code, Some(0), "{stderr}");
    let line = stdout.lines().find(|line| line.contains("yours (--keep): ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("tokio-mpsc 300, 3.00× ["), "{line}");
    assert!(line.contains("] behind; kanal† 150, 1.50× ["), "{line}");
    assert!(stdout.contains("Receiving with `recv_many` is the cheapest change a tokio user can make."), "{stdout}");
    let (code, short, stderr) = run(["summary", &csv, "--keep", "tokio-recv-many", "--short"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        short.contains("- yours (--keep): tokio-recv-many is the pick (multi-thread merged-recv medium"),
        "{short}"
    );
    assert!(!short.contains("recv_many`"), "the line is for a tokio-mpsc user: {short}");
    // Without --keep, nothing of it.
    let (_, plain, _) = run(["summary", &csv]);
    assert!(!plain.contains("yours") && !plain.contains("recv_many`"), "{plain}");
}

#[test]
fn a_sweeps_kept_channel_is_in_its_json_and_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("k.csv");
    let args = "--keep flume --channels kanal,flume --tasks 1 --messages 2000 --samples 2 --max-time 0 \
                --runtimes current-thread --modes cloned-send --capacity 64";
    let (code, stdout, stderr) = run(args.split(' ').chain(["--out", csv.to_str().unwrap()]));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("yours (--keep): flume"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(csv.with_extension("json")).unwrap()).unwrap();
    assert_eq!(json["keep"], serde_json::json!(["flume"]));
    let (code, stdout, stderr) = run(["summary", csv.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("yours (--keep): flume"), "the summary of the CSV follows the run's --keep: {stdout}");
    let (code, stdout, stderr) = run(["summary", csv.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let band = &answer["bands"][0];
    let entries = [&band["leader"], &band["runner_up"]].into_iter().chain(band["contenders"].as_array().unwrap());
    let kept: Vec<&serde_json::Value> = entries.filter(|entry| entry["kept"] == true).collect();
    assert_eq!(kept.len(), 1, "{band}");
    assert!(kept[0]["channel"].as_str().unwrap().starts_with("flume"), "{band}");
}

#[test]
fn more_workers_than_cores_is_said_in_the_plan() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = (cores * 4).to_string();
    let (code, stdout, stderr) = run(["--workers", &workers, "--tasks", "1", "--dry-run"]);
    assert_eq!(code, Some(0), "{stderr}");
    let said = format!("note: --workers {workers} on {cores} cores: the runtime's worker threads share the cores");
    assert!(stdout.contains(&said), "{stdout}");
    let (_, fits, _) = run(["--workers", "1", "--tasks", "1", "--dry-run"]);
    assert!(!fits.contains("oversubscription"), "{fits}");
}

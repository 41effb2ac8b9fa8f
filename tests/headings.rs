//! The console's cell blocks and the dry run's cells each name their whole setting: no two
//! share a heading.

use std::collections::HashSet;

mod common;
use common::run;

/// A tiny sweep of two batches of 256-byte records, one channel, 64 tasks.
const SWEEP: &[&str] = &[
    "--batch",
    "1,256",
    "--record-bytes",
    "256",
    "--channels",
    "kanal",
    "--tasks",
    "64",
    "--messages",
    "640",
    "--capacity",
    "1024",
    "--samples",
    "1",
    "--max-time",
    "0",
    "--warmup",
    "0",
];

/// The repeated items of `items`.
fn repeated<'a>(items: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    items.into_iter().filter(|item| !seen.insert(*item)).collect()
}

#[test]
fn no_two_dry_run_cells_or_console_blocks_share_a_heading() {
    let (code, stdout, stderr) = run(SWEEP.iter().chain(&["--dry-run"]));
    assert_eq!(code, Some(0), "{stderr}");
    let cells: Vec<&str> =
        stdout.lines().filter(|line| line.starts_with("  ") && line.contains(" tasks=64 ")).collect();
    assert_eq!(cells.len(), 2 * 2 * 2, "two runtimes × two modes × two batches: {stdout}");
    assert_eq!(repeated(cells.iter().copied()), Vec::<&str>::new(), "{stdout}");
    assert!(cells.iter().all(|cell| cell.contains("256-byte records by value")), "{stdout}");
    assert_eq!(cells.iter().filter(|cell| cell.contains("batch 256")).count(), 4, "{stdout}");

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("batches.csv");
    let (code, stdout, stderr) = run(SWEEP.iter().chain(&["--out", out.to_str().unwrap()]));
    assert_eq!(code, Some(0), "{stderr}");
    let headings: Vec<&str> = stdout.lines().filter(|line| line.starts_with("# ")).collect();
    assert_eq!(headings.len(), 2 * 2, "a block per runtime and batch: {stdout}");
    assert_eq!(repeated(headings.iter().copied()), Vec::<&str>::new(), "{stdout}");
    assert_eq!(headings.iter().filter(|heading| heading.contains(", batch 256, ")).count(), 2, "{stdout}");
    assert!(headings.iter().all(|heading| heading.contains("256-byte records by value")), "{stdout}");
    // Each cell keeps its line with ms and ns/message, and the answer comes after every block.
    let lines: Vec<&str> = stdout.lines().filter(|line| line.contains(" ms ") && line.contains(" ns/msg ")).collect();
    assert_eq!(lines.len(), 2 * 2 * 2, "{stdout}");
    let (last_block, answer) = (stdout.rfind("\n# "), stdout.find("which channel"));
    assert!(answer.is_some() && last_block < answer, "{stdout}");
}

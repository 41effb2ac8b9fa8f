//! `channel-bench cells` and the per-cell files a sweep writes at its end.

use std::path::Path;

mod common;
use common::{HEADER, cell, write};

fn channel_bench(args: &[&str], paths: &[&Path]) -> (Option<i32>, String, String) {
    common::output(common::bench().args(args).args(paths))
}

#[test]
fn cells_writes_beside_the_csv_and_replaces_nothing_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "x.csv", &format!("{HEADER}\n{}", cell("kanal", "multi-thread", 1, &[1.0, 2.0])));
    let beside = dir.path().join("x.cells.json");
    let (code, stdout, stderr) = channel_bench(&["cells"], &[&csv]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, format!("cells: {}\n", beside.display()));
    let written = std::fs::read_to_string(&beside).unwrap();
    assert!(written.contains("\"median\": 1.5"), "{written}");

    // Left as it is, and said so, as summary and report do; an explicit --out that exists is refused.
    std::fs::write(&beside, "mine").unwrap();
    let (code, stdout, stderr) = channel_bench(&["cells"], &[&csv]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, format!("cells: {} exists, left as it is (--force replaces it)\n", beside.display()));
    assert_eq!(std::fs::read_to_string(&beside).unwrap(), "mine");
    // The dry run says the same.
    let (code, stdout, stderr) = channel_bench(&["cells", "--dry-run"], &[&csv]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("write nothing") && stdout.contains("left as it is"), "{stdout}");
    let (code, _, stderr) = channel_bench(&["cells", "--out", beside.to_str().unwrap()], &[&csv]);
    assert_eq!(code, Some(2));
    assert_eq!(
        stderr,
        format!(
            "error: --out {} already exists: choose another path, or pass --force to replace it\n",
            beside.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&beside).unwrap(), "mine");
    assert_eq!(channel_bench(&["cells", "--force"], &[&csv]).0, Some(0));
    assert_eq!(std::fs::read_to_string(&beside).unwrap(), written);

    let elsewhere = dir.path().join("elsewhere.json");
    let (code, _, _) = channel_bench(&["cells", "--out", elsewhere.to_str().unwrap()], &[&csv]);
    assert_eq!((code, std::fs::read_to_string(&elsewhere).unwrap()), (Some(0), written.clone()));
    let (code, stdout, _) = channel_bench(&["cells", "--out", "-"], &[&csv]);
    assert_eq!((code, stdout), (Some(0), written));
}

#[test]
fn a_bad_csv_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.csv", "");
    for (path, expected) in [(dir.path().join("missing.csv"), "cannot read"), (empty, "is empty")] {
        let (code, stdout, stderr) = channel_bench(&["cells"], &[&path]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stdout.is_empty() && stderr.lines().count() == 1 && stderr.contains(expected), "{stderr}");
    }
}

#[test]
fn a_sweep_writes_its_cells_and_exports_and_refuses_to_replace_an_export_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let (out, bmf) = (dir.path().join("s.csv"), dir.path().join("s.bmf.json"));
    let sweep =
        ["--messages", "2000", "--tasks", "1,4", "--channels", "kanal", "--modes", "cloned-send", "--capacity", "1024"];
    let small = ["--runtimes", "current-thread", "--warmup", "0", "--samples", "2", "--max-time", "0"];
    let args = [&sweep[..], &small, &["--out", out.to_str().unwrap(), "--export-bmf", bmf.to_str().unwrap()]].concat();
    let (code, stdout, stderr) = channel_bench(&args, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains(&format!("cells: {}", dir.path().join("s.cells.json").display())), "{stdout}");
    let cells: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("s.cells.json")).unwrap()).unwrap();
    let names: Vec<&str> = cells["cells"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["current-thread/cloned-send/tasks=1/kanal", "current-thread/cloned-send/tasks=4/kanal"]);
    let bmf_text = std::fs::read_to_string(&bmf).unwrap();
    assert!(bmf_text.contains("\"current-thread/cloned-send/tasks=4/kanal\""), "{bmf_text}");

    // Again with another --out: the export exists, so nothing runs.
    let again = dir.path().join("again.csv");
    let args =
        [&sweep[..], &small, &["--out", again.to_str().unwrap(), "--export-bmf", bmf.to_str().unwrap()]].concat();
    let (code, _, stderr) = channel_bench(&args, &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("--export-bmf") && stderr.contains("--force"), "{stderr}");
    assert!(!again.exists());
}

//! `report` of runs from several machines, or of one machine at several `--workers`: the picks
//! side by side instead of a refusal to pool, the bands whose answer changes, each machine.

mod common;
use common::{HEADER, cell, run, write};

/// The stdout of a `report` that must succeed, and the page it wrote to `out`.
fn report(csvs: &str, out: &std::path::Path) -> (String, String) {
    let (code, stdout, stderr) = run(["report", csvs, "--out", &out.display().to_string()]);
    assert_eq!(code, Some(0), "{stderr}");
    (stdout, std::fs::read_to_string(out).unwrap())
}

#[test]
fn two_worker_counts_of_one_machine_read_as_a_small_scaling_study() {
    let dir = tempfile::tempdir().unwrap();
    let mut csvs = Vec::new();
    for workers in ["1", "2"] {
        let csv = dir.path().join(format!("w{workers}.csv"));
        let (code, _, stderr) = run([
            "--workers",
            workers,
            "--messages",
            "2000",
            "--tasks",
            "1,8",
            "--channels",
            "kanal,flume",
            "--samples",
            "2",
            "--max-time",
            "0",
            "--out",
            csv.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        csvs.push(csv.display().to_string());
    }
    let (stdout, page) = report(&csvs.join(","), &dir.path().join("both.html"));
    assert!(stdout.starts_with("several machines side by side\n"), "{stdout}");
    assert!(stdout.contains("a small scaling study"), "{stdout}");
    let column = |letter: &str, csv: &str, workers: &str| {
        stdout.lines().any(|line| line.starts_with(&format!("  {letter}  {csv} — ")) && line.ends_with(workers))
    };
    assert!(column("A", &csvs[0], "multi-thread 1 worker") && column("B", &csvs[1], "multi-thread 2 workers"));
    // Two modes on two runtimes, one band of task counts each; each row names both columns.
    for band in ["multi-thread cloned-send, small (1-8)", "current-thread merged-recv, small (1-8)"] {
        let at = stdout.find(&format!("\n{band}")).unwrap_or_else(|| panic!("no {band}: {stdout}"));
        let lines: Vec<&str> = stdout[at + 1..].lines().skip(1).take(2).collect();
        assert!(lines[0].starts_with("  A  ") && lines[1].starts_with("  B  "), "{lines:?}");
    }
    assert!(page.contains("<section id=\"machines\">") && page.contains("<section id=\"each\">"));
    assert_eq!(page.matches("<h3>").count(), 2, "one description per machine");
}

#[test]
fn different_machines_are_columns_and_a_changed_answer_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let steady = |value: f64| [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998];
    let body = |a: f64, b: f64| {
        [
            format!("{HEADER}\n"),
            cell("kanal", "multi-thread", 1, &steady(a)),
            cell("flume", "multi-thread", 1, &steady(b)),
        ]
        .concat()
    };
    let here = write(dir.path(), "here.csv", &body(100.0, 200.0));
    let again = write(dir.path(), "again.csv", &body(101.0, 201.0));
    // Another machine: the same workload on four workers, where flume leads.
    let there = write(dir.path(), "there.csv", &body(200.0, 100.0).replace(",multi-thread,2,", ",multi-thread,4,"));
    let csvs = [&here, &there, &again].map(|path| path.display().to_string()).join(",");
    let (stdout, page) = report(&csvs, &dir.path().join("both.html"));
    let first = format!("  A  {}, {} — ", here.display(), again.display());
    assert!(stdout.lines().any(|line| line.starts_with(&first)), "the runs of one machine pool: {stdout}");
    assert!(stdout.contains("the answer changes between the columns in 1 of 1 bands:"), "{stdout}");
    assert!(stdout.contains("multi-thread cloned-send, small (1): A kanal†; B flume"), "{stdout}");
    assert!(page.contains("<tr class=\"changes\">"), "{page}");
    // One CSV is still the one-machine report.
    let (code, _, stderr) =
        run(["report", here.to_str().unwrap(), "--out", dir.path().join("one.html").to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
}

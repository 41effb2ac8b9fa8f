//! `channel-bench compare` on small hand-made CSVs whose verdicts are known.

use std::path::{Path, PathBuf};

mod common;
use common::{HEADER, cell, write};

fn compare(old: &Path, new: &Path) -> (Option<i32>, String, String) {
    compare_with(&[], old, new)
}

fn line_of<'a>(stdout: &'a str, channel: &str) -> &'a str {
    stdout.lines().find(|line| line.split_whitespace().nth(3) == Some(channel)).unwrap_or_else(|| panic!("{stdout}"))
}

#[test]
fn verdicts_follow_the_noise_of_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    let old = [
        format!("{HEADER}\n"),
        cell("kanal", "current-thread", 1, &steady),
        cell("flume", "current-thread", 1, &steady),
        cell("tokio-mpsc", "current-thread", 1, &[100.0, 150.0, 80.0, 130.0, 95.0]),
        cell("async-channel", "current-thread", 1, &steady),
        cell("futures-channel", "current-thread", 1, &steady),
        cell("kanal", "current-thread", 8, &steady),
    ]
    .concat();
    let new = [
        format!("{HEADER}\n"),
        cell("kanal", "current-thread", 1, &[60.0, 60.5, 59.8, 60.1, 60.3]),
        cell("flume", "current-thread", 1, &[150.0, 151.0, 149.0, 150.5, 149.5]),
        cell("tokio-mpsc", "current-thread", 1, &[120.0, 160.0, 90.0, 140.0, 110.0]),
        cell("async-channel", "current-thread", 1, &[102.0, 102.2, 101.9, 102.1, 102.0]),
        cell("futures-channel", "current-thread", 1, &[-100.0, -100.0]),
        cell("kanal", "multi-thread", 64, &steady),
    ]
    .concat();
    let (old, new) = (write(dir.path(), "old.csv", &old), write(dir.path(), "new.csv", &new));
    let (code, stdout, stderr) = compare(&old, &new);
    assert_eq!(code, Some(0), "{stderr}");

    let kanal = line_of(&stdout, "kanal");
    assert!(kanal.ends_with("faster") && kanal.contains("0.601 ["), "{kanal}");
    assert!(line_of(&stdout, "flume").ends_with("slower"), "{stdout}");
    // 20% higher median, but the old samples spread from 80 to 150.
    assert!(line_of(&stdout, "tokio-mpsc").ends_with('~'), "{stdout}");
    // Separated, but only 2% apart: inside the drift between two runs.
    assert!(line_of(&stdout, "async-channel").ends_with('~'), "{stdout}");
    assert!(line_of(&stdout, "futures-channel").ends_with("no ok samples to compare"), "{stdout}");

    assert!(
        stdout.contains(&format!("only in {} (1 cells):\n  current-thread cloned-send tasks=8 kanal", old.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("only in {} (1 cells):\n  multi-thread cloned-send tasks=64 kanal", new.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains("5 cells in both: 1 faster, 1 slower, 2 no change beyond the noise, 1 without ok samples"),
        "{stdout}"
    );
    assert!(stdout.contains("(current-thread cloned-send tasks=1 kanal)"), "{stdout}");
    // Too few cells to measure the drift between the files: the calibrated one, said as such.
    assert!(stdout.contains("current-thread 7.07% (calibrated, too few cells to measure it)"), "{stdout}");
}

#[test]
fn a_partial_last_line_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let rows = cell("kanal", "multi-thread", 1, &[100.0, 100.5, 99.5, 100.2, 99.8]);
    let old = write(dir.path(), "old.csv", &format!("{HEADER}\n{rows}"));
    // Killed mid-row: the last line has no newline and a cut-off number.
    let new = write(
        dir.path(),
        "new.csv",
        &format!("{HEADER}\n{rows}kanal,cloned-send,multi-thread,2,1,1000,64,64,1200,6,99000,9"),
    );
    let (code, stdout, stderr) = compare(&old, &new);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.starts_with("warning: ") && stderr.contains("partial last line"), "{stderr}");
    // The cut-off 9 ns sample was not counted: the two files are identical.
    let kanal = line_of(&stdout, "kanal");
    assert!(kanal.contains(" 1.000 [") && kanal.ends_with("  ~"), "{stdout}");
}

#[test]
fn bad_files_give_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.csv", &format!("{HEADER}\n{}", cell("kanal", "multi-thread", 1, &[1.0])));
    let cases: Vec<(PathBuf, &str)> = vec![
        (dir.path().join("missing.csv"), "cannot read"),
        (write(dir.path(), "empty.csv", ""), "empty"),
        (write(dir.path(), "header.csv", &format!("{HEADER}\n")), "no samples"),
        (write(dir.path(), "other.csv", "name,mean,stddev\nfoo,1.0,0.1\n"), "no column channel"),
        (write(dir.path(), "prose.csv", "this is not a table at all\n"), "not a channel-bench CSV"),
        (
            write(
                dir.path(),
                "words.csv",
                &format!("{HEADER}\nkanal,cloned-send,multi-thread,2,1,1000,64,64,1200,1,5,fast,9,ok\n"),
            ),
            "ns_per_message \"fast\"",
        ),
        (
            write(
                dir.path(),
                "short.csv",
                &format!("{HEADER}\nkanal,cloned-send,multi-thread\n{}", cell("kanal", "multi-thread", 1, &[1.0])),
            ),
            "line 2: 3 fields",
        ),
        (
            write(
                dir.path(),
                "long.csv",
                &format!("{HEADER}\nkanal,cloned-send,multi-thread,2,1,1000,64,64,1200,1,5,5.0,9,ok,extra\n"),
            ),
            "line 2: 15 fields where the header has 14",
        ),
        (
            write(
                dir.path(),
                "runtime.csv",
                &format!("{HEADER}\nkanal,cloned-send,warp-drive,2,1,1000,64,64,1200,1,5,5.0,9,ok\n"),
            ),
            "line 2: runtime \"warp-drive\" is not one of multi-thread, current-thread",
        ),
        (
            write(
                dir.path(),
                "mode.csv",
                &format!("{HEADER}\nkanal,broadcast,multi-thread,2,1,1000,64,64,1200,1,5,5.0,9,ok\n"),
            ),
            "line 2: mode \"broadcast\" is not one of",
        ),
        (
            write(
                dir.path(),
                "tasks.csv",
                &format!("{HEADER}\nkanal,cloned-send,multi-thread,2,-1,1000,64,64,1200,1,5,5.0,9,ok\n"),
            ),
            "tasks \"-1\"",
        ),
        (dir.path().to_owned(), "cannot read"),
    ];
    std::fs::write(dir.path().join("binary.csv"), [0u8, 159, 146, 150, 255, 10]).unwrap();
    let binary = (dir.path().join("binary.csv"), "cannot read");
    for (bad, expected) in cases.iter().chain([&binary]) {
        for (old, new) in [(bad, &good), (&good, bad)] {
            let (code, stdout, stderr) = compare(old, new);
            assert_eq!(code, Some(2), "{}: {stderr}", bad.display());
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stderr.starts_with("error: ") && stderr.contains(expected), "{}: {stderr}", bad.display());
            assert!(stderr.contains(&bad.display().to_string()), "{stderr}");
            assert!(stdout.is_empty());
        }
    }
}

#[test]
fn an_old_file_matches_default_rows_of_a_new_one_and_other_settings_are_cells_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    let old =
        write(dir.path(), "old.csv", &[format!("{HEADER}\n"), cell("kanal", "multi-thread", 1, &steady)].concat());
    // The same cell from a newer binary (default setting), plus the same channel with latency
    // recorded and with another merge strategy.
    let extra = ",merge,payload,seed,bytes,mb_per_s,pace_ns,burst,pace_actual_ns,sink,lat_p50_ns,lat_p99_ns";
    let with = |suffix: &str| -> String {
        cell("kanal", "multi-thread", 1, &steady).lines().map(|line| format!("{line}{suffix}\n")).collect()
    };
    let new = [
        format!("{HEADER}{extra}\n"),
        with(",,1200,,1200000,12.0,,,,none,,"),
        with(",,1200,,1200000,12.0,,,,none,5000,9000"),
        with(",,300..2000,3,1150000,11.5,20000000,8,20001000,file,,"),
    ]
    .concat();
    let new = write(dir.path(), "new.csv", &new);
    let (code, stdout, stderr) = compare(&old, &new);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("1 cells in both"), "{stdout}");
    assert!(stdout.contains("only in"), "{stdout}");
    assert!(stdout.contains("kanal [latency]"), "{stdout}");
    assert!(stdout.contains("kanal [payload 300..2000 seed 3, paced 8 every 20ms, in phase, sink file]"), "{stdout}");
}

#[test]
fn a_channel_the_binary_does_not_know_is_welcome() {
    let dir = tempfile::tempdir().unwrap();
    let mine =
        write(dir.path(), "mine.csv", &[format!("{HEADER}\n"), cell("my-channel", "multi-thread", 1, &[1.0])].concat());
    let (code, stdout, stderr) = compare(&mine, &mine);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("my-channel"), "{stdout}");
}

/// One multi-thread kanal cell of `messages` messages per sample.
fn run_of(messages: u64, values: &[f64]) -> String {
    let rows = cell("kanal", "multi-thread", 1, values).replace(",1000,64,64,", &format!(",{messages},64,64,"));
    format!("{HEADER}\n{rows}")
}

fn compare_with(args: &[&str], old: &Path, new: &Path) -> (Option<i32>, String, String) {
    common::output(common::bench().arg("compare").args(args).arg(old).arg(new))
}

#[test]
fn a_quick_run_against_a_default_one_is_refused_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    let quick = write(dir.path(), "quick.csv", &run_of(65536, &steady));
    let full = write(dir.path(), "full.csv", &run_of(1_048_576, &steady));
    let (code, stdout, stderr) = compare(&quick, &full);
    assert_eq!(code, Some(2), "{stdout}");
    assert_eq!(
        stderr,
        format!(
            "error: {} has --messages 65536, {} 1048576: compare runs of the same workload, or pass --allow-different\n",
            quick.display(),
            full.display()
        )
    );
    assert!(stdout.is_empty());

    let (code, stdout, stderr) = compare_with(&["--allow-different"], &quick, &full);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.starts_with("note: workloads differ, cells paired without them"), "{stdout}");
    let kanal = line_of(&stdout, "kanal");
    assert!(kanal.contains(" 1.000 [") && kanal.ends_with("  ~"), "{stdout}");
    assert!(stdout.contains("1 cells in both"), "{stdout}");
}

#[test]
fn fail_on_slower_exits_1_after_the_table_when_a_cell_is_slower() {
    let dir = tempfile::tempdir().unwrap();
    let old = write(dir.path(), "old.csv", &run_of(1000, &[100.0, 100.5, 99.5, 100.2, 99.8]));
    let slower = write(dir.path(), "slower.csv", &run_of(1000, &[200.0, 201.0, 199.0, 200.5, 199.5]));
    let faster = write(dir.path(), "faster.csv", &run_of(1000, &[50.0, 50.5, 49.8, 50.1, 50.3]));
    let (code, stdout, stderr) = compare_with(&["--fail-on-slower"], &old, &slower);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(line_of(&stdout, "kanal").ends_with("slower") && stdout.contains("1 slower"), "{stdout}");
    assert_eq!(compare_with(&["--fail-on-slower"], &old, &faster).0, Some(0));
    // Without the flag a slower cell is only reported.
    assert_eq!(compare(&old, &slower).0, Some(0));
}

#[test]
fn differences_of_machine_and_build_are_named_above_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    let (old, new) =
        (write(dir.path(), "old.csv", &run_of(1000, &steady)), write(dir.path(), "new.csv", &run_of(1000, &steady)));
    let (_, stdout, _) = compare(&old, &new);
    assert!(
        stdout.starts_with(&format!(
            "note: machine and build not compared: no JSON beside {} and {}\n",
            old.display(),
            new.display()
        )),
        "{stdout}"
    );
    let machine = |cpu: &str, cores: u32, kanal: &str| {
        format!(
            r#"{{"cpu_model": "{cpu}", "cores": {cores}, "os": "Linux", "hostname": "box", "rustc": "rustc 1.88.0",
               "crates": {{"kanal": "{kanal}", "flume": "0.12.0"}}, "git_commit": null,
               "command_line": ["channel-bench"], "started_utc": "2026-01-01T00:00:00Z"}}"#
        )
    };
    write(dir.path(), "old.json", &machine("AMD EPYC 9654", 96, "0.1.0"));
    write(dir.path(), "new.json", &machine("AMD EPYC 9654", 96, "0.1.0"));
    let (code, stdout, _) = compare(&old, &new);
    assert_eq!(code, Some(0));
    assert!(stdout.starts_with("runtime "), "the same machine and build: no note\n{stdout}");
    write(dir.path(), "new.json", &machine("Intel Xeon 8480", 112, "0.1.1"));
    let (_, stdout, _) = compare(&old, &new);
    let notes: Vec<&str> = stdout.lines().take_while(|line| line.starts_with("note: ")).collect();
    assert_eq!(
        notes,
        [
            "note: different CPU: AMD EPYC 9654 (old), Intel Xeon 8480 (new)",
            "note: different cores: 96 (old), 112 (new)",
            "note: different kanal: 0.1.0 (old), 0.1.1 (new)",
        ]
    );
}

#[test]
fn a_mixed_cell_shows_its_clusters_and_the_closing_lines_count_them() {
    let dir = tempfile::tempdir().unwrap();
    // Two clusters (≈40 and ≈120) whose shares swap: the medians are 3× apart, the trimmed means less.
    let old = [format!("{HEADER}\n"), cell("crossfire", "multi-thread", 64, &[40.0, 41.0, 39.0, 120.0, 121.0])];
    let new = [format!("{HEADER}\n"), cell("crossfire", "multi-thread", 64, &[40.0, 41.0, 119.0, 120.0, 121.0])];
    let (old, new) = (write(dir.path(), "old.csv", &old.concat()), write(dir.path(), "new.csv", &new.concat()));
    let (code, stdout, stderr) = compare(&old, &new);
    assert_eq!(code, Some(0), "{stderr}");
    let line = line_of(&stdout, "crossfire");
    assert!(line.contains("  ~  clusters old 40.0 ns ×60% | 120 ns ×40%; new 40.5 ns ×40% | 120 ns ×60%"), "{line}");
    assert!(stdout.contains("1 cells in both: 0 faster, 0 slower, 1 no change beyond the noise"), "{stdout}");
    assert!(stdout.contains("multi-thread (1 cells) trimmed means 1.393/1.393, medians 2.902/2.902"), "{stdout}");
    assert!(stdout.contains("mixed cells (more than one cluster): 1 in old, 1 in new, 1 in both"), "{stdout}");
    assert!(
        stdout.contains("same fastest channel (lowest trimmed mean) in 1 of 1 (runtime, mode, tasks) groups"),
        "{stdout}"
    );
}

#[test]
fn the_drift_between_the_files_is_measured_from_their_cells_when_they_have_enough() {
    let dir = tempfile::tempdir().unwrap();
    let steady = |level: f64| [level, level * 1.005, level * 0.995, level * 1.002, level * 0.998];
    // 30 current-thread cells moved by at most ±1.5% between the runs, and one 15% slower.
    let file = |name: &str, slow: f64| {
        let mut body = format!("{HEADER}\n");
        for tasks in 1..=31u32 {
            let wobble = 1.0 + 0.015 * ((tasks % 5) as f64 - 2.0) / 2.0;
            let factor = if tasks == 31 {
                slow
            } else if slow > 1.0 {
                wobble
            } else {
                1.0
            };
            body.push_str(&cell("kanal", "current-thread", tasks, &steady(100.0 * factor)));
        }
        write(dir.path(), name, &body)
    };
    let (old, new) = (file("old.csv", 1.0), file("new.csv", 1.15));
    let (code, stdout, stderr) = compare(&old, &new);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("current-thread 1.") && stdout.contains("% (measured from the two files' cells)"),
        "{stdout}"
    );
    let slowed = stdout.lines().find(|line| line.split_whitespace().nth(2) == Some("31")).unwrap();
    assert!(slowed.ends_with("slower"), "{slowed}");
    assert!(stdout.contains("31 cells in both: 0 faster, 1 slower, 30 no change beyond the noise"), "{stdout}");
}

/// The change `compare` says it can detect on `runtime`, in percent, from its `Can detect` line
/// (`8%`, or `2.40×` for 140%).
fn detectable(stdout: &str, runtime: &str) -> f64 {
    let line = stdout.lines().find(|line| line.starts_with("Can detect ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.ends_with("at this noise (a cell's typical 99.9% interval)"), "{line}");
    let before = line.split(&format!(" on {runtime}")).next().unwrap();
    let change = before.rsplit(' ').next().unwrap();
    let percent = |text: &str| text.parse::<f64>().unwrap_or_else(|_| panic!("{line}"));
    change
        .strip_suffix('%')
        .map(percent)
        .or_else(|| change.strip_suffix('×').map(|ratio| (percent(ratio) - 1.0) * 100.0))
        .unwrap()
}

#[test]
fn compare_says_the_smallest_change_it_can_detect_per_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, spread: f64| {
        let values = [100.0, 100.0 + spread, 100.0 - spread, 100.0 + spread / 2.0, 100.0 - spread / 2.0];
        let mut body = format!("{HEADER}\n");
        for (channel, tasks) in [("kanal", 1), ("flume", 1), ("kanal", 8), ("flume", 8)] {
            body.push_str(&cell(channel, "current-thread", tasks, &values));
            body.push_str(&cell(channel, "multi-thread", tasks, &values.map(|v| v * 2.0)));
        }
        write(dir.path(), name, &body)
    };
    let (calm, noisy) =
        ((file("calm-a.csv", 0.5), file("calm-b.csv", 0.5)), (file("a.csv", 20.0), file("b.csv", 20.0)));
    let (code, calm, stderr) = compare(&calm.0, &calm.1);
    assert_eq!(code, Some(0), "{stderr}");
    let (_, noisy, _) = compare(&noisy.0, &noisy.1);
    for runtime in ["current-thread", "multi-thread"] {
        let (calm, noisy) = (detectable(&calm, runtime), detectable(&noisy, runtime));
        assert!(calm > 0.0 && noisy > calm * 1.2, "{runtime}: {calm}% calm, {noisy}% noisy");
    }
}

#[test]
fn compare_of_two_paced_runs_leads_with_p99_drops_and_cpu() {
    let twins = "results/reference/processes-2026-11-24";
    let (old, new) = (format!("{twins}/sfu-1.csv"), format!("{twins}/sfu-2.csv"));
    let (code, stdout, stderr) = common::run(["compare", &old, &new]);
    assert_eq!(code, Some(0), "{stderr}");
    let at = |text: &str| stdout.find(text).unwrap_or_else(|| panic!("no {text}: {stdout}"));
    let (worse, p99, speed) =
        (at("paced cells worse beyond the noise"), at("two runs' pooled p99"), at("cells in both:"));
    assert!(worse < p99 && p99 < speed, "the paced figures come before ns/message's: {stdout}");
    assert!(stdout[..speed].ends_with("ns/message restates the schedule: every cell is paced, so its verdicts follow the pace, not the channel\n104 "), "{stdout}");
    assert!(
        stdout.contains("Can detect ") && stdout.contains("on pooled p99 (a cell's typical 99.9% interval)"),
        "{stdout}"
    );
    // Files with unpaced cells keep ns/message first.
    let default = "results/reference/channel-bench-20261124T191226Z.csv";
    let (_, stdout, _) = common::run(["compare", default, default]);
    assert!(!stdout.contains("restates the schedule") && stdout.contains("520 cells in both"), "{stdout}");
}

#[test]
fn filters_compare_the_cells_they_name_in_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    let at = |capacity: u32, rows: String| rows.replace(",1000,64,64,", &format!(",1000,{capacity},{capacity},"));
    let cells = |capacity: u32| -> String {
        let each = |(channel, tasks)| at(capacity, cell(channel, "current-thread", tasks, &steady));
        [("kanal", 1), ("kanal", 8), ("flume", 1), ("flume", 8)].into_iter().map(each).collect()
    };
    // The old run swept two capacities, the new one the second only: workloads differ.
    let old = write(dir.path(), "old.csv", &format!("{HEADER}\n{}{}", cells(64), cells(1024)));
    let new = write(dir.path(), "new.csv", &format!("{HEADER}\n{}", cells(1024)));
    let (code, _, stderr) = compare(&old, &new);
    assert_eq!(code, Some(2), "{stderr}");
    let filters = ["--capacity", "1024", "--channels", "kanal", "--tasks", "1..8"];
    let (code, stdout, stderr) = compare_with(&filters, &old, &new);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("2 cells in both"), "{stdout}");
    assert!(stdout.contains("tasks=8 kanal") && !stdout.contains("flume") && !stdout.contains("only in"), "{stdout}");
    let (code, stdout, _) = compare_with(&["--capacity", "1024", "--tasks", "8"], &old, &new);
    assert_eq!(code, Some(0));
    assert!(stdout.contains("2 cells in both") && !stdout.contains("tasks=1 "), "{stdout}");
    // A filter that leaves a side nothing says so.
    let (code, stdout, stderr) = compare_with(&["--capacity", "64"], &old, &new);
    assert_eq!((code, stdout.as_str()), (Some(2), ""));
    assert!(stderr.contains("has no cell of the --channels, --tasks and --capacity given"), "{stderr}");
}

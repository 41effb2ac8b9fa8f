//! Several runs pooled by `summary`, `compare`, `cells` and `report`, and the runs they refuse
//! to pool, on small hand-made CSVs.

use std::path::{Path, PathBuf};

mod common;
use common::{HEADER, cell, write};

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    common::run(args)
}

/// Samples tight around `level`, so that each run's figure is about `level`.
fn steady(level: f64) -> [f64; 5] {
    [level, level * 1.002, level * 0.998, level * 1.001, level * 0.999]
}

/// A run with kanal at `kanal` and flume at `flume` ns/message, multi-thread, one task.
fn a_run(dir: &Path, name: &str, kanal: f64, flume: f64) -> PathBuf {
    let body = [
        format!("{HEADER}\n"),
        cell("kanal", "multi-thread", 1, &steady(kanal)),
        cell("flume", "multi-thread", 1, &steady(flume)),
    ]
    .concat();
    write(dir, name, &body)
}

fn joined(paths: &[&PathBuf]) -> String {
    paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(",")
}

fn machine(dir: &Path, csv: &str, host: &str, commit: &str) {
    let json = format!(
        r#"{{"cpu_model":"X","cores":2,"os":"linux","hostname":"{host}","rustc":"rustc 1","crates":{{}},"git_commit":"{commit}","command_line":["channel-bench","--out","{csv}"],"started_utc":"2026-01-01T00:00:00Z"}}"#
    );
    write(dir, &csv.replace(".csv", ".json"), &json);
}

#[test]
fn a_change_within_the_spread_between_runs_is_no_change_and_one_beyond_it_is_called() {
    let dir = tempfile::tempdir().unwrap();
    // Each run is tight inside, but kanal's runs spread ±10% between runs: a single pair of
    // runs calls a 10% change, the pooled runs do not; flume's runs agree, and its doubling is called.
    let old: Vec<PathBuf> = [(90.0, 100.0), (110.0, 101.0), (100.0, 99.0)]
        .iter()
        .enumerate()
        .map(|(at, &(kanal, flume))| a_run(dir.path(), &format!("old{at}.csv"), kanal, flume))
        .collect();
    let new: Vec<PathBuf> = [(110.0, 200.0), (99.0, 202.0), (121.0, 198.0)]
        .iter()
        .enumerate()
        .map(|(at, &(kanal, flume))| a_run(dir.path(), &format!("new{at}.csv"), kanal, flume))
        .collect();
    let (old_list, new_list) = (joined(&old.iter().collect::<Vec<_>>()), joined(&new.iter().collect::<Vec<_>>()));
    let (code, stdout, stderr) = run(&["compare", &old_list, &new_list]);
    assert_eq!(code, Some(0), "{stderr}");
    let verdict = |stdout: &str, channel: &str| {
        let line = stdout.lines().find(|line| line.split_whitespace().nth(3) == Some(channel)).unwrap();
        line.split_whitespace().last().unwrap().to_owned()
    };
    assert_eq!(verdict(&stdout, "kanal"), "~", "{stdout}");
    assert_eq!(verdict(&stdout, "flume"), "slower", "{stdout}");
    // Three runs a side: the calibrated drift between runs, over √3 on each side.
    assert!(stdout.contains("multi-thread 7.35% (calibrated, too few cells to measure it)"), "{stdout}");
    assert!(stdout.contains("over the 3 pooled runs"), "{stdout}");
    // One run against one: the drift of one run a side, wider; kanal's 90 → 121 is within it.
    let (_, single, _) = run(&["compare", &old[0].display().to_string(), &new[2].display().to_string()]);
    assert_eq!(verdict(&single, "kanal"), "~", "{single}");
    assert!(single.contains("multi-thread 12.7% (calibrated"), "{single}");
}

#[test]
fn a_pooled_summary_ranks_by_the_runs_and_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> =
        (0..3).map(|at| a_run(dir.path(), &format!("r{at}.csv"), 50.0 + at as f64, 100.0 - at as f64)).collect();
    let list = joined(&runs.iter().collect::<Vec<_>>());
    let (code, stdout, stderr) = run(&["summary", &list]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("3 runs pooled"), "{stdout}");
    assert!(stdout.contains("kanal"), "{stdout}");
    assert!(!dir.path().join("r0.md").exists(), "several CSVs write Markdown only with --out");
    let out = dir.path().join("pooled.md");
    let (code, _, stderr) = run(&["summary", &list, "--out", &out.display().to_string()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(std::fs::read_to_string(&out).unwrap().contains("kanal"));
    let (code, _, stderr) = run(&["cells", &list]);
    assert_eq!(code, Some(2), "cells of several CSVs need --out: {stderr}");
    assert!(stderr.contains("--out"), "{stderr}");
}

#[test]
fn runs_of_other_machines_workloads_or_builds_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let a = a_run(dir.path(), "a.csv", 50.0, 100.0);
    let b = a_run(dir.path(), "b.csv", 51.0, 100.0);
    machine(dir.path(), "a.csv", "vm", "abc");
    machine(dir.path(), "b.csv", "vm", "def");
    let list = joined(&[&a, &b]);
    let (code, _, stderr) = run(&["summary", &list]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("different build") && stderr.contains("--allow-different"), "{stderr}");
    let (code, _, stderr) = run(&["summary", &list, "--allow-different"]);
    assert_eq!(code, Some(0), "{stderr}");
    machine(dir.path(), "b.csv", "big-server", "abc");
    let (code, _, stderr) = run(&["summary", &list, "--allow-different"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("different host: vm (") && stderr.contains("), big-server ("), "{stderr}");
    let other = write(
        dir.path(),
        "c.csv",
        &[format!("{HEADER}\n"), cell("kanal", "multi-thread", 1, &steady(50.0))]
            .concat()
            .replace(",1000,64,64,", ",2000,64,64,"),
    );
    // The same machine as a.csv: one machine's runs of another workload cannot rank as one sweep.
    machine(dir.path(), "c.csv", "vm", "abc");
    let (code, _, stderr) = run(&["compare", &joined(&[&a, &other]), &b.display().to_string()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--messages 1000") && stderr.contains("--messages 2000"), "{stderr}");
}

#[test]
fn every_output_says_once_how_its_verdicts_were_made() {
    let dir = tempfile::tempdir().unwrap();
    let body = [format!("{HEADER}\n"), cell("kanal", "multi-thread", 1, &[50.0, 51.0, 49.0])].concat();
    let one = write(dir.path(), "one.csv", &body);
    let path = one.display().to_string();
    let said = |text: &str| text.lines().filter(|line| line.contains("verdicts: 95% intervals")).count();
    let (code, stdout, stderr) = run(&["compare", &path, &path]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(said(&stdout), 1, "{stdout}");
    // The summary in its Markdown, and the report (the console points to them).
    let (code, stdout, stderr) = run(&["summary", &path]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(said(&stdout), 0, "{stdout}");
    assert_eq!(said(&std::fs::read_to_string(dir.path().join("one.md")).unwrap()), 1);
    let (code, _, stderr) = run(&["report", &path]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(said(&std::fs::read_to_string(dir.path().join("one.html")).unwrap()), 1);
}

#[test]
fn a_run_given_twice_is_refused_under_one_name_or_two() {
    let dir = tempfile::tempdir().unwrap();
    let a = a_run(dir.path(), "a.csv", 50.0, 100.0);
    let copy = dir.path().join("copy.csv");
    std::fs::copy(&a, &copy).unwrap();
    for list in [joined(&[&a, &a]), joined(&[&a, &copy])] {
        let (code, _, stderr) = run(&["summary", &list]);
        assert_eq!(code, Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("one run given twice"), "{stderr}");
    }
    // The same as separate arguments, as a shell glob gives them.
    let (code, _, stderr) = run(&["summary", &a.display().to_string(), &copy.display().to_string()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("one run given twice"), "{stderr}");
}

#[test]
fn separate_csvs_are_pooled_as_commas_pool_them_and_compare_says_how_to_give_its_sides() {
    let dir = tempfile::tempdir().unwrap();
    let runs: Vec<PathBuf> =
        (0..3).map(|at| a_run(dir.path(), &format!("r{at}.csv"), 50.0 + at as f64, 100.0 - at as f64)).collect();
    let separate: Vec<String> = runs.iter().map(|run| run.display().to_string()).collect();
    let (code, stdout, stderr) =
        run(&[&["summary"][..], &separate.iter().map(String::as_str).collect::<Vec<_>>()].concat());
    assert_eq!(code, Some(0), "{stderr}");
    let (_, commas, _) = run(&["summary", &joined(&runs.iter().collect::<Vec<_>>())]);
    assert_eq!(stdout, commas);
    assert!(stdout.contains("3 runs pooled"), "{stdout}");
    let (code, _, stderr) = run(&[&["compare"][..], &separate.iter().map(String::as_str).collect::<Vec<_>>()].concat());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("compare a1.csv,a2.csv b1.csv,b2.csv"), "{stderr}");
}

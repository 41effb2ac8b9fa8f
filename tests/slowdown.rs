//! The known slowdown of the faults build (`CHANNEL_BENCH_SLOW=CHANNEL:PCT%`): the named
//! channel's ns/message rises, the others' do not, and a bad value is a usage error. How exactly
//! the share asked for is added is the unit tests' of `run::slow`.
#![cfg(feature = "faults")]

use std::collections::HashMap;
use std::path::Path;

mod common;

/// The slowdown asked for: far above two runs' noise on one task.
const SLOW: f64 = 1.0;

/// The median over rounds of kanal's ns/message over flume's, measured back to back in each
/// round of a tiny current-thread sweep, with `slow` as the variable's value (unset when
/// `None`): paired round by round, as every verdict is, so that a burst on the host, which
/// spans both samples of a round, cancels.
fn paired_ratio(dir: &Path, name: &str, slow: Option<&str>) -> f64 {
    let out = dir.join(name);
    let mut command = common::bench();
    command
        .args(["--channels", "kanal,flume", "--modes", "cloned-send", "--runtimes", "current-thread", "--tasks", "1"])
        .args(["--messages", "100000", "--samples", "5", "--max-time", "0", "--capacity", "65536"])
        // Both in every round: a burst can make the slowed one look far behind, and screening would
        // then leave it out.
        .args(["--keep", "kanal,flume", "--out"])
        .arg(&out);
    match slow {
        Some(value) => command.env("CHANNEL_BENCH_SLOW", value),
        None => command.env_remove("CHANNEL_BENCH_SLOW"),
    };
    let (code, _, stderr) = common::output(&mut command);
    assert_eq!(code, Some(0), "{stderr}");
    let mut rounds: HashMap<String, HashMap<String, f64>> = HashMap::new();
    let (status, ns, round) =
        (common::column(&out, "status"), common::column(&out, "ns_per_message"), common::column(&out, "round"));
    for row in csv::Reader::from_path(&out).unwrap().records().map(Result::unwrap) {
        assert_eq!(&row[status], "ok", "{row:?}");
        rounds.entry(row[round].to_owned()).or_default().insert(row[0].to_owned(), row[ns].parse().unwrap());
    }
    let mut ratios: Vec<f64> = rounds.values().map(|round| round["kanal"] / round["flume"]).collect();
    assert_eq!(ratios.len(), 5, "{rounds:?}");
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

#[test]
fn the_named_channel_slows_and_no_other_does() {
    let _alone = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let before = paired_ratio(dir.path(), "before.csv", None);
    let after = paired_ratio(dir.path(), "after.csv", Some(&format!("kanal:{}%", SLOW * 100.0)));
    // kanal against flume, measured in the same rounds: the host's noise, which moves both
    // runs' figures by a third and more on a busy machine, cancels; kanal alone got slower.
    let rise = after / before - 1.0;
    assert!((0.3 * SLOW..3.0 * SLOW).contains(&rise), "kanal/flume {before} → {after}");
}

#[test]
fn a_bad_value_is_a_usage_error_naming_the_variable() {
    for value in ["kanal", "nope:20%", "kanal:fast%", "kanal:0%", "kanal:20"] {
        let mut command = common::bench();
        command.env("CHANNEL_BENCH_SLOW", value).args(["--channels", "kanal", "--tasks", "1", "--messages", "100"]);
        let dir = tempfile::tempdir().unwrap();
        command.args(["--samples", "1", "--max-time", "0", "--out"]).arg(dir.path().join("x.csv"));
        let (code, _, stderr) = common::output(&mut command);
        assert_eq!(code, Some(2), "{value}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("CHANNEL_BENCH_SLOW") && stderr.contains("CHANNEL:PCT%"), "{stderr}");
        assert!(!dir.path().join("x.csv").exists(), "refused before anything is written");
    }
}

/// A slow stretch of the whole machine, injected on purpose for rounds 3 to 6 of four screening
/// passes of 4 rounds (every sample and every reading of the machine 4× as long): the stretch is
/// named on the host noise line, and its rounds are measured again once the machine reads
/// typical again (from the third pass: the second's start has too few rounds to judge).
#[test]
fn a_slow_stretch_of_the_machine_is_named_and_its_rounds_measured_again() {
    let _alone = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stretch.csv");
    let mut command = common::bench();
    command
        .env_remove("CHANNEL_BENCH_SLOW")
        .env("CHANNEL_BENCH_SLOW_ROUNDS", "3..6:300%")
        .args(["--channels", "kanal,flume,tokio-mpsc", "--keep", "kanal,flume,tokio-mpsc", "--modes", "cloned-send"])
        .args(["--runtimes", "current-thread", "--tasks", "1,2,4,8", "--capacity", "1024", "--messages", "20000"])
        .args(["--samples", "4", "--max-time", "0", "--out"])
        .arg(&out);
    let (code, stdout, stderr) = common::output(&mut command);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("the whole machine slowed by 300% in rounds 3 to 6"), "{stderr}");
    let host = stdout.lines().find(|line| line.starts_with("host noise:")).unwrap_or_default();
    assert!(host.contains(" machine slow") && host.contains("; machine: ") && host.contains("slow in "), "{host}");
    // Whether the line calls the cells measured again depends also on rounds the host itself
    // slowed late in the run, which no pass was left to measure again: the rows say it below.
    assert!(host.contains(" measured again"), "{host}");
    let (round, tasks, channel) =
        (common::column(&out, "round"), common::column(&out, "tasks"), common::column(&out, "channel"));
    let rows: Vec<csv::StringRecord> = csv::Reader::from_path(&out).unwrap().records().map(Result::unwrap).collect();
    let round_of = |row: &csv::StringRecord| row[round].parse::<u64>().unwrap();
    // Every cell took one sample a pass, and one more for each of its rounds the stretch cost
    // (measured again in the third pass, or the fourth when the host itself slowed the eighth round).
    let cell = |row: &csv::StringRecord| (row[channel].to_owned(), row[tasks].to_owned());
    let mut samples: std::collections::HashMap<(String, String), (usize, usize)> = Default::default();
    for row in &rows {
        let entry = samples.entry(cell(row)).or_default();
        entry.0 += 1;
        entry.1 += usize::from((3..=6).contains(&round_of(row)));
    }
    assert_eq!(samples.len(), 12, "{samples:?}");
    assert_eq!(samples.values().map(|(_, lost)| lost).sum::<usize>(), 12, "four rounds of three channels");
    for (cell, (taken, lost)) in &samples {
        assert!(*taken >= 4 + lost, "{cell:?}: {taken} samples, {lost} in the stretch");
    }
}

//! The known slowdown of the faults build (`CHANNEL_BENCH_SLOW=CHANNEL:NS`): the named
//! channel's ns/message rises by NS's order, the others' do not, and a bad value is a usage error.
#![cfg(feature = "faults")]

use std::collections::HashMap;
use std::path::Path;

mod common;

/// Nanoseconds of spin per message asked for: far above a channel's own cost on one task.
const SLOW_NS: f64 = 2000.0;

/// The median ns/message per channel of a tiny current-thread sweep of kanal and flume, with
/// `slow` as the variable's value (unset when `None`).
fn medians(dir: &Path, name: &str, slow: Option<&str>) -> HashMap<String, f64> {
    let out = dir.join(name);
    let mut command = common::bench();
    command
        .args(["--channels", "kanal,flume", "--modes", "cloned-send", "--runtimes", "current-thread", "--tasks", "1"])
        .args(["--messages", "20000", "--samples", "3", "--max-time", "0", "--out"])
        .arg(&out);
    match slow {
        Some(value) => command.env("CHANNEL_BENCH_SLOW", value),
        None => command.env_remove("CHANNEL_BENCH_SLOW"),
    };
    let (code, _, stderr) = common::output(&mut command);
    assert_eq!(code, Some(0), "{stderr}");
    let mut samples: HashMap<String, Vec<f64>> = HashMap::new();
    for row in csv::Reader::from_path(&out).unwrap().records().map(Result::unwrap) {
        assert_eq!(&row[13], "ok", "{row:?}");
        samples.entry(row[0].to_owned()).or_default().push(row[11].parse().unwrap());
    }
    samples
        .into_iter()
        .map(|(channel, mut values)| {
            values.sort_by(f64::total_cmp);
            (channel, values[values.len() / 2])
        })
        .collect()
}

#[test]
fn the_named_channel_slows_and_no_other_does() {
    let dir = tempfile::tempdir().unwrap();
    let before = medians(dir.path(), "before.csv", None);
    let after = medians(dir.path(), "after.csv", Some(&format!("kanal:{}", SLOW_NS as u64)));
    let rise = |channel: &str| after[channel] - before[channel];
    // The busy work's rate is timed on a long loop, so the rise is NS's order, not NS exactly.
    assert!((0.3 * SLOW_NS..2.0 * SLOW_NS).contains(&rise("kanal")), "kanal {before:?} → {after:?}");
    assert!(rise("flume") < 0.3 * SLOW_NS, "flume {before:?} → {after:?}");
}

#[test]
fn a_bad_value_is_a_usage_error_naming_the_variable() {
    for value in ["kanal", "nope:200", "kanal:fast", "kanal:0"] {
        let mut command = common::bench();
        command.env("CHANNEL_BENCH_SLOW", value).args(["--channels", "kanal", "--tasks", "1", "--messages", "100"]);
        let dir = tempfile::tempdir().unwrap();
        command.args(["--samples", "1", "--max-time", "0", "--out"]).arg(dir.path().join("x.csv"));
        let (code, _, stderr) = common::output(&mut command);
        assert_eq!(code, Some(2), "{value}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("CHANNEL_BENCH_SLOW") && stderr.contains("CHANNEL:NS"), "{stderr}");
        assert!(!dir.path().join("x.csv").exists(), "refused before anything is written");
    }
}

//! `channel-bench ab`: a paired A/B run of two builds (here one binary on both sides), its
//! rows split by build, and its refusal of a binary of another take-round protocol. How a
//! slowdown on one side is judged is the synthetic tests' (`sweep::synthetic::judged`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

mod common;

/// The tiny plan every A/B here runs, into `out`.
fn tiny(out: &Path) -> Vec<String> {
    let plan = ["--tasks", "1,4", "--messages", "4000", "--samples", "2", "--max-time", "0.02", "--out"];
    plan.iter().map(|arg| arg.to_string()).chain([out.display().to_string()]).collect()
}

/// Runs `binary ab --baseline baseline` with `args`: exit code, stdout, stderr.
fn ab(binary: &Path, baseline: &Path, args: &[String]) -> (Option<i32>, String, String) {
    let mut command = Command::new(binary);
    command.arg("ab").arg("--baseline").arg(baseline).args(args).timeout(Duration::from_secs(120));
    common::output(&mut command)
}

/// The values of `column` in the CSV at `path`.
fn column(path: &Path, column: &str) -> Vec<String> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let at = reader.headers().unwrap().iter().position(|name| name == column).unwrap();
    reader.records().map(|row| row.unwrap()[at].to_owned()).collect()
}

#[test]
fn both_builds_measure_every_round_and_every_cell_and_band_is_judged() {
    let _alone = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("aa.csv");
    let mut args = vec!["--channels".to_owned(), "kanal,flume".to_owned(), "--json".to_owned()];
    args.extend(tiny(&out));
    let (code, stdout, stderr) = ab(&common::binary(), &common::binary(), &args);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let builds = column(&out, "build");
    let baseline = builds.iter().filter(|build| *build == "baseline").count();
    assert_eq!(baseline * 2, builds.len(), "every row is one build's, half each: {builds:?}");
    let (rounds, of) = (column(&out, "round"), |build: &str| {
        let mut rounds: Vec<String> =
            column(&out, "round").into_iter().zip(&builds).filter(|(_, b)| *b == build).map(|(r, _)| r).collect();
        rounds.sort();
        rounds
    });
    assert!(!rounds.is_empty());
    assert_eq!(of("baseline"), of("candidate"), "the two builds measured the same rounds");
    let json = &stdout[stdout.find('{').unwrap()..stdout.rfind('}').unwrap() + 1];
    let verdicts: serde_json::Value = serde_json::from_str(json).unwrap();
    // 2 channels × 2 modes × 2 runtimes × 2 task counts × 2 default capacities; one band of task
    // counts per capacity.
    assert_eq!(verdicts["cells"].as_array().unwrap().len(), 32, "{json}");
    assert_eq!(verdicts["bands"].as_array().unwrap().len(), 16, "{json}");
    for change in verdicts["bands"].as_array().unwrap() {
        let (low, ratio, high) = (change["low"].as_f64(), change["ratio"].as_f64(), change["high"].as_f64());
        assert!(low < ratio && ratio < high, "{change}");
    }
    let metadata: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.with_extension("json")).unwrap()).unwrap();
    let roles: Vec<&str> = metadata["builds"].as_array().unwrap().iter().map(|b| b["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["baseline", "candidate"]);
    assert!(metadata["builds"][0]["crates"]["kanal"].is_string(), "{metadata}");
    assert!(std::fs::read_to_string(out.with_extension("md")).unwrap().contains("## Changed bands: "));
    assert!(out.with_extension("cells.json").exists(), "the candidate's per-cell results");
    // The CSV judged by `ab --from`, measuring nothing: the verdicts the run gave from the rows
    // it kept in memory.
    let mut again = Command::new(common::binary());
    again.args(["ab", "--json", "--from"]).arg(&out).timeout(Duration::from_secs(60));
    let (code, stdout, stderr) = common::output(&mut again);
    assert_eq!(code, Some(0), "{stderr}");
    let json = &stdout[stdout.find('{').unwrap()..stdout.rfind('}').unwrap() + 1];
    let rejudged: serde_json::Value = serde_json::from_str(json).unwrap();
    // The same verdicts, up to the order of a pooled sum's terms.
    let cells = |value: &serde_json::Value| -> Vec<(String, String, i64)> {
        let rounded = |change: &serde_json::Value| (change["ratio"].as_f64().unwrap() * 1e6).round() as i64;
        let text = |change: &serde_json::Value, field: &str| change[field].as_str().unwrap().to_owned();
        value["cells"].as_array().unwrap().iter().map(|c| (text(c, "place"), text(c, "call"), rounded(c))).collect()
    };
    assert_eq!(cells(&rejudged), cells(&verdicts));
}

#[test]
fn a_csv_of_no_ab_run_is_refused_as_bad_usage_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.csv");
    std::fs::write(
        &plain,
        "channel,mode,runtime,tasks,ns_per_message,status\nkanal,cloned-send,current-thread,1,50.0,ok\n",
    )
    .unwrap();
    let mut command = Command::new(common::binary());
    command.args(["ab", "--from"]).arg(&plain).timeout(Duration::from_secs(60));
    let (code, _, stderr) = common::output(&mut command);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("give the CSV an ab run wrote"), "{stderr}");
}

#[test]
fn a_baseline_of_no_take_round_protocol_is_refused_at_once_as_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("refused.csv");
    let (code, stdout, stderr) = ab(&common::binary(), Path::new("/bin/true"), &tiny(&out));
    assert_eq!(code, Some(2), "{stdout}\n{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("take-round protocol 2"), "{stderr}");
    assert!(!out.exists(), "nothing measured, nothing written");
}

/// The example binary built on `app::main_with`, built with this test build's features.
fn custom_binary() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut build = std::process::Command::new(cargo);
    build.args(["build", "--quiet", "--example", "custom_channel"]);
    if cfg!(feature = "faults") {
        build.args(["--features", "faults"]);
    }
    assert!(build.status().unwrap().success());
    common::binary().parent().unwrap().join("examples").join("custom_channel")
}

#[test]
fn a_binary_built_on_main_with_pairs_with_itself_and_sets_its_channel_against_the_others() {
    let _alone = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("custom.csv");
    let binary = custom_binary();
    let mut args = vec!["--channels".to_owned(), "mutex-queue,tokio-mpsc".to_owned(), "--json".to_owned()];
    args.extend(tiny(&out));
    let (code, stdout, stderr) = ab(&binary, &binary, &args);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(column(&out, "channel").iter().any(|channel| channel == "mutex-queue"));
    let json = &stdout[stdout.find('{').unwrap()..stdout.rfind('}').unwrap() + 1];
    let verdicts: serde_json::Value = serde_json::from_str(json).unwrap();
    let against = verdicts["against"].as_array().unwrap();
    // 2 modes × 2 runtimes × 2 task counts × 2 default capacities, mutex-queue against tokio-mpsc in each.
    assert_eq!(against.len(), 16, "{json}");
    assert!(against.iter().all(|row| row["mine"] == "mutex-queue" && row["other"] == "tokio-mpsc"), "{json}");
    let markdown = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert!(markdown.contains("## mutex-queue against the others"), "{markdown}");
}

#[test]
fn a_channel_the_baseline_does_not_have_is_left_out_and_said_so_and_the_rest_paired() {
    let _alone = common::one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shared.csv");
    let mut args: Vec<String> =
        ["--channels", "mutex-queue,kanal", "--runtimes", "current-thread"].iter().map(|arg| arg.to_string()).collect();
    args.extend(tiny(&out));
    let (code, stdout, stderr) = ab(&custom_binary(), &common::binary(), &args);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("left out: mutex-queue (the baseline has no such channel"), "{stdout}");
    assert!(column(&out, "channel").iter().all(|channel| channel == "kanal"));
    let markdown = std::fs::read_to_string(out.with_extension("md")).unwrap();
    assert!(markdown.contains("mutex-queue (the baseline has no such channel"), "{markdown}");
}

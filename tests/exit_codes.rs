//! The exit codes docs/reference.md's table gives, command by command: 0 for an output left as
//! it was (said on stdout), 2 for a file a sweep or an explicit `--out` would replace without
//! `--force`, for a run given twice to pool and for a bad flag.

use std::path::Path;

mod common;
use common::{HEADER, cell, write};

/// A CSV of two channels, one task, current-thread.
fn csv(dir: &Path) -> std::path::PathBuf {
    let body = [
        format!("{HEADER}\n"),
        cell("kanal", "current-thread", 1, &[50.0, 51.0, 49.0]),
        cell("flume", "current-thread", 1, &[100.0, 101.0, 99.0]),
    ]
    .concat();
    write(dir, "run.csv", &body)
}

#[test]
fn each_row_of_the_exit_code_table_is_what_the_binary_does() {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md")).unwrap();
    let table = &docs[docs.find("## Exit codes").unwrap()..docs.find("## The reference run").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    let run = csv(dir.path());
    // 0: an output beside the CSV that exists already is left as it is, and said so.
    assert!(table.contains("| 0 |") && table.contains("leave that file as it is"), "{table}");
    for command in ["summary", "cells", "report"] {
        let first = common::output(common::bench().arg(command).arg(&run));
        assert_eq!(first.0, Some(0), "{command}: {}", first.2);
        let (code, stdout, stderr) = common::output(common::bench().arg(command).arg(&run));
        assert_eq!(code, Some(0), "{command}: {stderr}");
        assert!(stdout.contains("left as it is (--force replaces it)"), "{command}: {stdout}");
    }
    // 2: an explicit --out that exists, a sweep's --out that exists, a run given twice, a bad flag.
    assert!(table.contains("| 2 |") && table.contains("without `--force`") && table.contains("given twice"), "{table}");
    let taken = write(dir.path(), "taken.md", "mine\n");
    let (code, _, stderr) = common::output(common::bench().args(["summary", "--out"]).arg(&taken).arg(&run));
    assert_eq!(code, Some(2), "{stderr}");
    let tiny =
        ["--channels", "kanal", "--tasks", "1", "--messages", "100", "--samples", "1", "--max-time", "0", "--out"];
    let (code, _, stderr) = common::output(common::bench().args(tiny).arg(&run));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "mine\n", "nothing replaced");
    let twice = format!("{},{}", run.display(), run.display());
    assert_eq!(common::run(["summary", &twice]).0, Some(2));
    assert_eq!(common::run(["--no-such-flag"]).0, Some(2));
}

#[test]
fn a_typo_of_a_flag_is_exit_2_naming_the_nearest_flag_on_one_line() {
    for (typo, nearest) in [(["--runtime", "current-thread"], "'--runtimes'"), (["--channel", "kanal"], "'--channels'")]
    {
        let (code, stdout, stderr) = common::run(typo);
        assert_eq!(code, Some(2), "{typo:?}: {stderr}");
        assert!(stdout.is_empty(), "{typo:?} ran something: {stdout}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{typo:?}: {stderr}");
        assert!(stderr.contains(&format!("unexpected argument '{}'", typo[0])), "{typo:?}: {stderr}");
        assert!(stderr.contains(&format!("a similar argument exists: {nearest}")), "{typo:?}: {stderr}");
    }
}

#[test]
fn a_bad_weigh_is_exit_2_on_one_line_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let run = csv(dir.path());
    let paced = ["--channels", "kanal", "--tasks", "2", "--pace", "1ms", "--duration", "10ms", "--samples", "1"];
    let cases: [(Vec<&str>, &str); 6] = [
        (
            vec!["summary", "--weigh", "latency"],
            "\"latency\" is not a figure the decision weighs: give drops, cpu or p99",
        ),
        (vec!["report", "--weigh", "p99,p99"], "p99 is named twice"),
        (vec!["--weigh", "cpu,"], "\"\" is not a figure the decision weighs"),
        ([&paced[..], &["--weigh", "drops,speed"]].concat(), "\"speed\" is not a figure"),
        ([&paced[..], &["--weigh", "p99,cpu"]].concat(), "--weigh p99 weighs the latency --latency records"),
        (vec!["--channels", "kanal", "--weigh", "cpu"], "--weigh orders what a paced room's decision weighs"),
    ];
    for (args, said) in cases {
        let mut command = common::bench();
        command.args(&args).current_dir(dir.path());
        if args[0] == "summary" || args[0] == "report" {
            command.arg(&run);
        } else {
            command.args(["--out", "never.csv"]);
        }
        let (code, stdout, stderr) = common::output(&mut command);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?} printed {stdout}");
    }
    let written: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().file_name()).collect();
    assert_eq!(written, ["run.csv"], "nothing written");
}

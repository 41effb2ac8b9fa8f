//! The outputs of the committed reference runs, byte for byte against the files in tests/golden/:
//! `summary` (text, its Markdown, `--short`, `--json`), `report`, `cells` and `compare` of an
//! A/A pair, so that a change that moves a byte of any of them shows here. Every command runs on
//! copies of the CSVs in a temp dir, whose path is replaced by `TMP`. With `CHANNEL_BENCH_BLESS=1`
//! the test rewrites the golden files instead of comparing. For the two-capacity runs, the
//! Markdown and page committed beside their CSVs are the golden ones, not copies of them.

use std::fs;
use std::path::Path;

mod common;

/// The default sweep and the SFU run of the reference machine.
const DEFAULT: &str = "channel-bench-20261124T191226Z";
const SFU: &str = "channel-bench-20261124T195121Z";
/// The default sweep at its two capacities and the SFU run of the reference machine, a day on.
const CAPACITY: &str = "channel-bench-20261125T170442Z";
const ROOM: &str = "channel-bench-20261125T171956Z";
/// The A/A twins measured beside them on the same machine.
const TWINS: &str = "results/reference/processes-2026-11-24";

/// The commands of one set of golden files, run in a temp dir, and the files that differ.
struct Golden {
    dir: tempfile::TempDir,
    set: &'static str,
    bless: bool,
    differ: Vec<String>,
}

impl Golden {
    /// Copies each run (a CSV's path without `.csv`) with its JSON into a temp dir.
    fn new(set: &'static str, runs: &[String]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for run in runs {
            for extension in ["csv", "json"] {
                let from = root().join(format!("{run}.{extension}"));
                fs::copy(&from, dir.path().join(from.file_name().unwrap())).unwrap();
            }
        }
        let bless = std::env::var_os("CHANNEL_BENCH_BLESS").is_some_and(|value| value == "1");
        Golden { dir, set, bless, differ: Vec::new() }
    }

    /// Runs channel-bench with `args` in the temp dir: its stdout, then its stderr if any.
    fn run(&self, args: &[&str]) -> String {
        let (code, stdout, stderr) = common::output(common::bench().args(args).current_dir(self.dir.path()));
        assert_eq!(code, Some(0), "channel-bench {args:?}: {stderr}");
        let stderr = if stderr.is_empty() { stderr } else { format!("--- stderr ---\n{stderr}") };
        stdout + &stderr
    }

    /// Compares `actual`, the temp dir's path replaced by `TMP`, with golden file `name`.
    fn check(&mut self, name: &str, actual: &str) {
        self.check_at(&root().join("tests/golden").join(self.set).join(name), actual);
    }

    /// Compares `actual`, the temp dir's path replaced by `TMP`, with the file at `path`.
    fn check_at(&mut self, path: &Path, actual: &str) {
        let actual = actual.replace(self.dir.path().to_str().unwrap(), "TMP");
        if self.bless {
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, actual).unwrap();
        } else if let Some(difference) = first_difference(path, &actual) {
            self.differ.push(format!("{}: {difference}", path.strip_prefix(root()).unwrap_or(path).display()));
        }
    }

    fn finish(self) {
        assert!(
            self.differ.is_empty(),
            "{} golden file(s) differ:\n{}\nIf the change is meant, run `CHANNEL_BENCH_BLESS=1 cargo test --test golden` \
             and list the changes (git diff tests/golden) with their reasons",
            self.differ.len(),
            self.differ.join("\n")
        );
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Where `actual` first differs from the golden file at `path`: the line, and both versions of
/// it from a little before the first differing character.
fn first_difference(path: &Path, actual: &str) -> Option<String> {
    let Ok(golden) = fs::read_to_string(path) else { return Some("missing".into()) };
    if golden == actual {
        return None;
    }
    let (mut old, mut new) = (golden.split('\n'), actual.split('\n'));
    for number in 1.. {
        let (was, now) = (old.next(), new.next());
        if was != now {
            let (was, now) = (was.unwrap_or("(end of file)"), now.unwrap_or("(end of file)"));
            let column = was.chars().zip(now.chars()).take_while(|(a, b)| a == b).count();
            let excerpt = |line: &str| line.chars().skip(column.saturating_sub(40)).take(160).collect::<String>();
            return Some(format!("line {number}\n  golden: {}\n  now:    {}", excerpt(was), excerpt(now)));
        }
    }
    unreachable!()
}

/// Every output of one reference run. With `beside`, the run's own Markdown and page committed
/// beside its CSV are the golden ones (`make answer` writes them with these commands).
fn outputs_of(set: &'static str, run: &str, beside: bool) {
    let mut golden = Golden::new(set, &[format!("results/reference/{run}")]);
    let csv = format!("{run}.csv");
    let text = golden.run(&["summary", &csv]);
    golden.check("summary.txt", &text);
    let markdown = fs::read_to_string(golden.dir.path().join(format!("{run}.md"))).unwrap();
    let short = golden.run(&["summary", "--short", &csv]);
    golden.check("short.md", &short);
    let json = golden.run(&["summary", "--json", &csv]);
    golden.check("summary.json", &json);
    golden.run(&["report", &csv, "--out", "report.html"]);
    let page = fs::read_to_string(golden.dir.path().join("report.html")).unwrap();
    if beside {
        golden.check_at(&root().join(format!("results/reference/{run}.md")), &markdown);
        golden.check_at(&root().join(format!("results/reference/{run}.html")), &page);
    } else {
        golden.check("summary.md", &markdown);
        golden.check("report.html", &page);
    }
    let cells = golden.run(&["cells", &csv, "--out", "-"]);
    golden.check("cells.json", &cells);
    golden.finish();
}

#[test]
fn the_default_sweeps_outputs_are_the_golden_ones() {
    outputs_of("default", DEFAULT, false);
}

#[test]
fn the_sfu_runs_outputs_are_the_golden_ones() {
    outputs_of("sfu", SFU, false);
}

#[test]
fn the_two_capacity_sweeps_outputs_are_the_golden_ones() {
    outputs_of("capacity", CAPACITY, true);
}

#[test]
fn the_sfu_run_with_its_repeats_outputs_are_the_golden_ones() {
    outputs_of("room", ROOM, true);
}

#[test]
fn compare_of_the_aa_pairs_is_the_golden_one() {
    let runs = [
        format!("results/reference/{DEFAULT}"),
        format!("{TWINS}/twin"),
        format!("{TWINS}/sfu-1"),
        format!("{TWINS}/sfu-2"),
    ];
    let mut golden = Golden::new("compare", &runs);
    let default = golden.run(&["compare", &format!("{DEFAULT}.csv"), "twin.csv"]);
    golden.check("default-aa.txt", &default);
    let sfu = golden.run(&["compare", "sfu-1.csv", "sfu-2.csv"]);
    golden.check("sfu-aa.txt", &sfu);
    golden.finish();
}

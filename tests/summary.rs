//! `channel-bench summary` on small hand-made CSVs whose answer is known, the summary at the
//! end of a sweep, the README's short answer and the reference run's summary against the
//! reference run, and the caveats beside every channel wherever it is ranked.

use std::path::{Path, PathBuf};

mod common;
use common::{HEADER, cell, write};

fn summary(csv: &Path) -> (Option<i32>, String, String) {
    summary_with(csv, &[])
}

fn summary_with(csv: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    common::output(common::bench().arg("summary").args(args).arg(csv))
}

/// The line of `stdout` for the band labelled `band` (`small (1-8)`), up to its end.
fn band_line<'a>(stdout: &'a str, band: &str) -> &'a str {
    stdout.lines().find(|line| line.trim_start().starts_with(band)).unwrap_or_else(|| panic!("no {band}: {stdout}"))
}

/// The page's table row of `band` (`| small (1-4) | …`), from its cell on.
fn band_row<'a>(markdown: &'a str, band: &str) -> &'a str {
    let cell = format!("| {band} | ");
    let row = markdown.lines().rfind(|line| line.contains(&cell));
    let row = row.unwrap_or_else(|| panic!("no {band}: {markdown}"));
    &row[row.find(&cell).unwrap()..]
}

const STEADY: [f64; 5] = [100.0, 100.5, 99.5, 100.2, 99.8];

fn scaled(factor: f64) -> Vec<f64> {
    STEADY.iter().map(|value| value * factor).collect()
}

#[test]
fn a_clear_winner_is_named_with_its_ratio_and_the_markdown_goes_beside_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let body = [
        format!("{HEADER}\n"),
        cell("kanal", "multi-thread", 1, &scaled(0.5)),
        cell("kanal", "multi-thread", 4, &scaled(0.5)),
        cell("flume", "multi-thread", 1, &scaled(1.25)),
        cell("flume", "multi-thread", 4, &scaled(1.25)),
        cell("tokio-mpsc", "multi-thread", 1, &scaled(2.0)),
        cell("tokio-mpsc", "multi-thread", 4, &scaled(2.0)),
    ]
    .concat();
    let csv = write(dir.path(), "run.csv", &body);
    let (code, stdout, stderr) = summary(&csv);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(stdout.contains("\nmulti-thread cloned-send  "), "{stdout}");
    let small = band_line(&stdout, "small (1-4)");
    assert!(small.split_whitespace().collect::<Vec<_>>().join(" ") == "small (1-4) kanal† 50.0 (flume)", "{small}");
    assert!(!stdout.contains("medium") && !stdout.contains("large"), "bands without data are left out: {stdout}");

    let markdown_path = dir.path().join("run.md");
    assert!(stdout.ends_with(&format!("summary: {}\n", markdown_path.display())), "{stdout}");
    assert!(!dir.path().join("run.html").exists(), "summary writes no report");
    let markdown = std::fs::read_to_string(&markdown_path).unwrap();
    assert!(markdown.contains("### In full\n\nFrom `run.csv`"), "{markdown}");
    assert!(markdown.contains("kanal† 100, 2.50× lower than flume 250 ["), "{markdown}");
    assert!(
        markdown.contains("| cloned-send | small (1-4) | **kanal†** 50.0, 2.50× faster than flume 125 ["),
        "{markdown}"
    );
    assert!(markdown.contains("| flume 125, 2.50× ["), "{markdown}");

    // Run again: the answer is printed, the Markdown not replaced without --force, and is with it.
    std::fs::write(&markdown_path, "my notes").unwrap();
    let (code, stdout, stderr) = summary(&csv);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout
            .ends_with(&format!("summary: {} exists, left as it is (--force replaces it)\n", markdown_path.display())),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&markdown_path).unwrap(), "my notes");
    let (code, _, stderr) = summary_with(&csv, &["--force"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(std::fs::read_to_string(&markdown_path).unwrap(), markdown);
}

#[test]
fn channels_within_the_noise_are_tied_not_crowned() {
    let dir = tempfile::tempdir().unwrap();
    let noisy = [80.0, 150.0, 105.0, 95.0, 130.0];
    let body = [
        format!("{HEADER}\n"),
        // 10% apart (trimmed means), and flume's samples spread from 80 to 150.
        cell("kanal", "current-thread", 16, &STEADY),
        cell("flume", "current-thread", 16, &noisy),
        cell("tokio-mpsc", "current-thread", 16, &scaled(3.0)),
        // 1% apart with tight samples: under the current-thread threshold.
        cell("kanal", "current-thread", 256, &STEADY),
        cell("flume", "current-thread", 256, &scaled(1.01)),
    ]
    .concat();
    let csv = write(dir.path(), "tie.csv", &body);
    let (code, stdout, stderr) = summary(&csv);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(band_line(&stdout, "medium (16)").ends_with(" kanal† 100 ≈ flume"), "{stdout}");
    assert!(band_line(&stdout, "large (256)").ends_with(" kanal† 100 ≈ flume"), "{stdout}");
    let markdown = std::fs::read_to_string(dir.path().join("tie.md")).unwrap();
    let medium = band_row(&markdown, "medium (16)");
    assert!(medium.starts_with("| medium (16) | **kanal†** 100 ≈ flume, within "), "{medium}");
    assert!(medium.contains("; next tokio-mpsc 300, 3.00× ["), "{medium}");
    assert!(markdown.contains("| **kanal†** 100 ≈ flume, within "), "{markdown}");
    // `--out -`: the Markdown on stdout, tie.md left as it was.
    let output = common::bench().args(["summary", "--out", "-"]).arg(&csv).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("| large (256) | **kanal†** 100 ≈ flume, within "), "{stdout}");
    assert_eq!(std::fs::read_to_string(dir.path().join("tie.md")).unwrap(), markdown);
}

#[test]
fn a_channel_with_failed_samples_does_not_win_even_when_its_ok_samples_are_fastest() {
    let dir = tempfile::tempdir().unwrap();
    let mut fastest_but_failing = scaled(0.3);
    fastest_but_failing.push(-30.0);
    let body = [
        format!("{HEADER}\n"),
        cell("kanal", "multi-thread", 128, &fastest_but_failing),
        cell("kanal", "multi-thread", 512, &scaled(0.3)),
        cell("flume", "multi-thread", 128, &STEADY),
        cell("flume", "multi-thread", 512, &STEADY),
        cell("async-channel", "multi-thread", 128, &scaled(2.0)),
        // async-channel never reached 512 tasks (a sweep stopped early): not ranked either.
    ]
    .concat();
    let csv = write(dir.path(), "failed.csv", &body);
    let (code, stdout, stderr) = summary(&csv);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(band_line(&stdout, "large (128-512)").ends_with(" flume 100"), "{stdout}");
    let markdown = std::fs::read_to_string(dir.path().join("failed.md")).unwrap();
    assert!(
        band_row(&markdown, "large (128-512)").starts_with("| large (128-512) | **flume** 100 (the only one ranked)")
    );
    // Channels in --list-channels order, whatever order the file has them in.
    assert!(markdown.contains("| not ranked |"), "{markdown}");
    assert!(
        markdown.contains("| async-channel (not measured at tasks 512), kanal (1 failed sample(s) at tasks 128) |")
    );
}

#[test]
fn the_p99_latency_is_ranked_when_the_file_has_it() {
    let dir = tempfile::tempdir().unwrap();
    let header = format!("{HEADER},lat_p50_ns,lat_p99_ns,lat_p999_ns,lat_max_ns");
    let with_latency = |rows: String, p99: &str| -> String {
        rows.lines().map(|row| format!("{row},1000,{p99},9000,20000\n")).collect()
    };
    let body = [
        format!("{header}\n"),
        with_latency(cell("kanal", "multi-thread", 8, &STEADY), "45000"),
        with_latency(cell("flume", "multi-thread", 8, &scaled(1.5)), "15000"),
        with_latency(cell("tokio-mpsc", "multi-thread", 8, &scaled(2.0)), "60000"),
    ]
    .concat();
    let csv = write(dir.path(), "latency.csv", &body);
    let (code, stdout, stderr) = summary(&csv);
    assert_eq!(code, Some(0), "{stderr}");
    // A run that recorded latency is a setting of its own (stamping costs time), and says so.
    assert!(stdout.contains("\nmulti-thread cloned-send [latency]  "), "{stdout}");
    let markdown = std::fs::read_to_string(dir.path().join("latency.md")).unwrap();
    assert!(markdown.contains("| flume 15.0 µs, 3.00× lower than kanal† 45.0 µs ["), "{markdown}");
    assert!(markdown.contains("| lowest p99 latency |"), "{markdown}");

    // Without latency columns, no p99 line.
    let csv =
        write(dir.path(), "plain.csv", &[format!("{HEADER}\n"), cell("kanal", "multi-thread", 8, &STEADY)].concat());
    let (_, stdout, _) = summary(&csv);
    assert!(!stdout.contains("p99"), "{stdout}");
}

#[test]
fn bad_files_give_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = cell("kanal", "multi-thread", 1, &[1.0]);
    let cases: Vec<(PathBuf, &str)> = vec![
        (dir.path().join("missing.csv"), "cannot read"),
        (write(dir.path(), "empty.csv", ""), "empty"),
        (write(dir.path(), "header.csv", &format!("{HEADER}\n")), "no samples"),
        (write(dir.path(), "other.csv", "name,mean,stddev\nfoo,1.0,0.1\n"), "no column channel"),
        (
            write(
                dir.path(),
                "cpu.csv",
                &format!("{HEADER}\nkanal,cloned-send,multi-thread,2,1,1000,64,64,1200,1,5,5.0,lots,ok\n"),
            ),
            "cpu_ns \"lots\" is not a number",
        ),
        (write(dir.path(), "summary.md", &format!("{HEADER}\n{good}")), "would overwrite it"),
        (dir.path().to_owned(), "cannot read"),
    ];
    for (bad, expected) in &cases {
        let (code, stdout, stderr) = summary(bad);
        assert_eq!(code, Some(2), "{}: {stderr}", bad.display());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(expected), "{}: {stderr}", bad.display());
        assert!(stderr.contains(&bad.display().to_string()), "{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
    }
    assert_eq!(std::fs::read_to_string(dir.path().join("summary.md")).unwrap(), format!("{HEADER}\n{good}"));
    let output = common::bench().arg("summary").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr).unwrap().contains("<CSV>"));
}

#[test]
fn a_markdown_that_cannot_be_written_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let csv =
        write(dir.path(), "run.csv", &[format!("{HEADER}\n"), cell("kanal", "multi-thread", 1, &STEADY)].concat());
    std::fs::create_dir(dir.path().join("run.md")).unwrap();
    let (code, _, stderr) = summary_with(&csv, &["--force"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let markdown = dir.path().join("run.md");
    assert!(stderr.starts_with(&format!("error: the summary {} is a folder: ", markdown.display())), "{stderr}");
}

#[test]
fn a_sweep_ends_with_the_summary_and_writes_it_beside_its_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep.csv");
    let output = common::bench()
        .args(["--channels", "kanal,flume", "--tasks", "1,16", "--messages", "600", "--capacity", "64"])
        .args(["--warmup", "0", "--samples", "2", "--max-time", "0", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    for group in ["multi-thread cloned-send", "multi-thread merged-recv", "current-thread cloned-send"] {
        assert!(stdout.contains(&format!("\n{group}  ")), "{group}: {stdout}");
    }
    assert!(stdout.contains("\n  small (1)  ") && stdout.contains("\n  medium (16)  "), "{stdout}");
    let markdown_path = out.with_extension("md");
    let cells_path = out.with_extension("cells.json");
    let html = out.with_extension("html");
    let ending = format!(
        "summary: {}
cells: {}
report: {}
",
        markdown_path.display(),
        cells_path.display(),
        html.display()
    );
    assert!(stdout.ends_with(&ending), "{stdout}");
    assert!(std::fs::read_to_string(&html).unwrap().contains("<section id=\"answer\">"));

    // The same as `channel-bench summary` writes from the CSV.
    let sweep_markdown = std::fs::read_to_string(&markdown_path).unwrap();
    assert_eq!(summary_with(&out, &["--force"]).0, Some(0));
    assert_eq!(std::fs::read_to_string(&markdown_path).unwrap(), sweep_markdown);
}

/// The repository's root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// What opens the README's short answer; the reference run's CSV follows it, then ` -->`.
const BEGIN: &str = "<!-- BEGIN channel-bench summary --short ";
/// What closes it.
const END: &str = "<!-- END channel-bench summary -->";

/// The README's short-answer block and the CSVs it says it comes from: the reference run
/// first, then other machines' runs read beside it.
fn readme_answer() -> (String, Vec<PathBuf>) {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find(BEGIN).unwrap_or_else(|| panic!("README.md has no {BEGIN}… -->"));
    let (csvs, rest) = readme[start + BEGIN.len()..].split_once(" -->\n").expect("the marker ends with -->");
    let block = &rest[..rest.find(END).unwrap_or_else(|| panic!("README.md has no {END}"))];
    (block.to_owned(), csvs.split_whitespace().map(|csv| root().join(csv)).collect())
}

#[test]
fn the_readme_short_answer_is_the_reference_runs() {
    let (block, runs) = readme_answer();
    let reference = &runs[0];
    let output = common::bench().args(["summary", "--short"]).args(&runs).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let short = String::from_utf8(output.stdout).unwrap();
    let csv = reference.strip_prefix(root()).unwrap().display();
    assert_eq!(
        block, short,
        "README.md's short answer differs from the reference run's: regenerate with make answer CSV={csv}"
    );
}

#[test]
fn the_reference_runs_summary_is_committed_beside_it_and_in_its_results_page() {
    let (_, runs) = readme_answer();
    let reference = runs[0].clone();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join(reference.file_name().unwrap());
    std::fs::copy(&reference, &csv).unwrap();
    // The run's JSON too: the summary names the crate versions it records.
    std::fs::copy(reference.with_extension("json"), csv.with_extension("json")).unwrap();
    let (code, _, stderr) = summary(&csv);
    assert_eq!(code, Some(0), "{stderr}");
    let markdown = std::fs::read_to_string(csv.with_extension("md")).unwrap();
    let committed = std::fs::read_to_string(reference.with_extension("md")).unwrap();
    assert_eq!(markdown, committed, "regenerate with: make answer CSV={}", reference.display());
    let name = reference.file_name().unwrap().to_string_lossy().into_owned();
    let pages: Vec<String> = std::fs::read_dir(root().join("docs/results"))
        .unwrap()
        .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
        .filter(|page| page.contains(&name))
        .collect();
    assert!(!pages.is_empty(), "no page in docs/results names {name}");
    assert!(
        pages.iter().any(|page| page.contains(&markdown)),
        "docs/results: the summary of {name} differs from {}",
        reference.with_extension("md").display()
    );
    assert!(reference.with_extension("html").exists(), "no report beside {}: make answer CSV=…", reference.display());
}

/// A CSV in which every channel with caveats is named in some ranking: two of them lead each
/// band, first and next, clearly apart; the other channels with caveats follow, and the channels
/// without caveats come last. Every channel is measured everywhere.
fn every_caveated_channel_ranked() -> String {
    let channels = channel_bench::registry::CHANNELS;
    let caveated: Vec<&str> = channels.iter().filter(|c| !c.caveats.is_empty()).map(|c| c.name).collect();
    let places = [("multi-thread", 1), ("multi-thread", 16), ("multi-thread", 128), ("current-thread", 1)];
    assert!(caveated.len() <= 2 * places.len(), "more bands needed for {} channels", caveated.len());
    let mut body = format!("{HEADER}\n");
    for (place, &(runtime, tasks)) in places.iter().enumerate() {
        for channel in channels {
            let factor = match caveated.iter().position(|name| *name == channel.name) {
                Some(at) if at / 2 == place => 1.0 + (at % 2) as f64,
                Some(_) => 3.0,
                None => 4.0,
            };
            body.push_str(&cell(channel.name, runtime, tasks, &scaled(factor)));
        }
    }
    body
}

#[test]
fn every_caveat_is_shown_beside_its_channel_wherever_it_is_ranked() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "caveats.csv", &every_caveated_channel_ranked());
    let (code, text, stderr) = summary(&csv);
    assert_eq!(code, Some(0), "{stderr}");
    let markdown = std::fs::read_to_string(csv.with_extension("md")).unwrap();
    let output = common::bench().args(["summary", "--short"]).arg(&csv).output().unwrap();
    let short = String::from_utf8(output.stdout).unwrap();
    let output = common::bench().arg("report").arg(&csv).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let html = std::fs::read_to_string(csv.with_extension("html")).unwrap();
    let list = common::bench().arg("--list-channels").output().unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    for channel in channel_bench::registry::CHANNELS.iter().filter(|c| !c.caveats.is_empty()) {
        let name = channel.name;
        // The rankings: every mention of the channel carries the mark.
        for (what, rankings) in [("text", &text), ("markdown", &markdown), ("short", &short)] {
            // The crate versions under the table name crates, not ranked channels.
            let rankings = rankings.split("† Known problems").next().unwrap().split("crate versions").next().unwrap();
            // The short answer's matrix shows the picks alone; the others show every ranking.
            let shown = what == "short" && !rankings.contains(name);
            assert!(shown || rankings.contains(&format!("{name}†")), "{what}: {name} is not ranked: {rankings}");
            let bare = rankings.match_indices(name).filter(|(at, _)| !rankings[at + name.len()..].starts_with('†'));
            assert_eq!(bare.count(), 0, "{what}: {name} without its mark: {rankings}");
        }
        let answer =
            &html[html.find("<section id=\"answer\">").unwrap()..html.find("<section id=\"caveats\">").unwrap()];
        assert!(answer.contains(&format!("{name}<span class=\"mark\">†</span>")), "{answer}");
        // And below them, each of its caveats with its link and how it is known.
        for caveat in channel.caveats {
            let evidence = caveat.evidence.label();
            let line = format!(
                "**{name}†** ({}): {} ([{}]({})); {evidence}",
                caveat.versions,
                caveat.text,
                caveat.link_label(),
                caveat.link
            );
            assert!(markdown.contains(&line), "{markdown}");
            let brief = caveat.text.split(';').next().unwrap();
            let line =
                format!("**{name}†** ({}): {brief} ([{}]({}))\n", caveat.versions, caveat.link_label(), caveat.link);
            assert!(short.contains(&line), "{short}");
            // On the page, what the caveat puts in backticks is code.
            let mut text = String::new();
            for (at, part) in caveat.text.split('`').enumerate() {
                text.push_str(match at {
                    0 => "",
                    _ if at % 2 == 1 => "<code>",
                    _ => "</code>",
                });
                text.push_str(part);
            }
            assert!(html.contains(&text) && html.contains(&format!("<a href=\"{}\">", caveat.link)), "{name}: {html}");
            assert!(html.contains(&format!("</a>); {evidence}</li>")), "{name}: {html}");
            let line = format!("{} ({}): {}; {evidence}", caveat.text, caveat.versions, caveat.link);
            assert!(list.contains(&line), "--list-channels: {list}");
        }
    }
}

#[test]
fn the_short_answer_names_the_fastest_with_no_known_problem_and_the_versions() {
    let dir = tempfile::tempdir().unwrap();
    // kanal (a known problem) is fastest on multi-thread, flume the fastest with none; tokio-mpsc,
    // with none, is fastest on current-thread.
    let body = [
        format!("{HEADER}\n"),
        cell("kanal", "multi-thread", 1, &scaled(0.5)),
        cell("flume", "multi-thread", 1, &scaled(1.0)),
        cell("tokio-mpsc", "multi-thread", 1, &scaled(2.0)),
        cell("tokio-mpsc", "current-thread", 1, &scaled(0.5)),
        cell("kanal", "current-thread", 1, &scaled(1.0)),
    ]
    .concat();
    let csv = write(dir.path(), "run.csv", &body);
    let (code, short, stderr) = summary_with(&csv, &["--short"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(short.contains("| runtime | mode | tasks | "), "{short}");
    assert!(short.contains("| multi-thread | cloned-send | small (1) | kanal† 50.0 (flume) |"), "{short}");
    assert!(short.contains("| current-thread | cloned-send | small (1) | tokio-mpsc 50.0 |"), "{short}");
    // The versions are the page's: the run's own, and the build's only for what it lacks.
    assert!(!short.contains("crate versions"), "{short}");
    let version = |name: &str| channel_bench::registry::locked_version(name);
    let json = r#"{"cpu_model": null, "cores": 2, "os": "", "hostname": null, "rustc": "", "crates": {"tokio": "1.0.0",
        "kanal": "0.0.9"}, "git_commit": null, "command_line": [], "started_utc": ""}"#;
    write(dir.path(), "run.json", json);
    let recorded = format!(
        "crate versions, as the run's JSON records them: tokio 1.0.0, kanal 0.0.9; from this build's Cargo.lock, \
         which the run's JSON lacks: flume {}\n",
        version("flume")
    );
    // The page says it in full.
    let (code, _, stderr) = summary(&csv);
    assert_eq!(code, Some(0), "{stderr}");
    let markdown = std::fs::read_to_string(dir.path().join("run.md")).unwrap();
    assert!(markdown.contains("| **kanal†** 50.0, 2.00× faster than flume 100 ["), "{markdown}");
    assert!(markdown.contains("| flume 100, 2.00× ["), "{markdown}");
    assert!(markdown.contains(&recorded), "{markdown}");
}

//! The HTML report: written by a small sweep and by `channel-bench report`, self-contained
//! (nothing fetched from anywhere) and complete (the answer, its caveats, every cell, the machine).

use std::path::Path;

mod common;
use common::{HEADER, bench, cell, write};

/// The text of `html` without its tags, entities left as they are.
fn without_tags(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text
}

/// Every start tag of `html` named `name` (`<script ...>`), lowercased.
fn tags(html: &str, name: &str) -> Vec<String> {
    let lower = html.to_lowercase();
    let open = format!("<{name}");
    lower
        .match_indices(&open)
        .filter(|(at, _)| lower[at + open.len()..].starts_with([' ', '>', '\n', '/']))
        .map(|(at, _)| lower[at..at + lower[at..].find('>').unwrap_or(lower.len() - at) + 1].to_owned())
        .collect()
}

/// The rows of the table in the section `id`, each as its cells' text.
fn table_rows(html: &str, id: &str) -> Vec<Vec<String>> {
    let start = html.find(&format!("<section id=\"{id}\">")).unwrap_or_else(|| panic!("no section {id}"));
    let section = &html[start..start + html[start..].find("</section>").unwrap()];
    section
        .split("<tr")
        .skip(1)
        .map(|row| row.split("<td").skip(1).map(|td| without_tags(&format!("<td{td}")).trim().to_owned()).collect())
        .filter(|cells: &Vec<String>| !cells.is_empty())
        .collect()
}

/// Fails unless `html` loads nothing from elsewhere: no script, stylesheet, font or image
/// from a file or address, and no address in any `src`.
fn assert_self_contained(html: &str) {
    assert!(tags(html, "link").is_empty(), "{:?}", tags(html, "link"));
    for name in ["script", "img", "iframe", "object", "embed", "source", "image", "use", "video", "audio"] {
        for tag in tags(html, name) {
            assert!(!tag.contains("src=") && !tag.contains("href="), "{tag}");
        }
    }
    let lower = html.to_lowercase();
    assert!(!lower.contains("@import") && !lower.contains("url("), "the CSS loads something");
    for attribute in ["src=\"http", "src='http", "src=http", "src=\"//"] {
        assert!(!lower.contains(attribute), "{attribute}");
    }
}

#[test]
fn a_sweep_writes_a_self_contained_and_complete_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("small.csv");
    bench()
        .args(["--channels", "kanal,tokio-mpsc,tachyonix", "--tasks", "1,16", "--messages", "600", "--capacity", "64"])
        .args(["--warmup", "0", "--samples", "2", "--max-time", "0", "--out"])
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(out.with_extension("html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert_self_contained(&html);

    // Every cell of the CSV is a row of the cells table.
    let csv = std::fs::read_to_string(&out).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let rows = table_rows(&html, "cells");
    let mut cells: Vec<(String, String, String, String)> = lines
        .map(|line| {
            let row: Vec<&str> = line.split(',').collect();
            let [runtime, mode, tasks, channel] =
                ["runtime", "mode", "tasks", "channel"].map(|name| row[column(name)].to_owned());
            (runtime, mode, tasks, channel)
        })
        .collect();
    cells.sort();
    cells.dedup();
    assert_eq!(cells.len(), 2 * 2 * 2 * 3, "{cells:?}");
    for (runtime, mode, tasks, channel) in &cells {
        let found = rows.iter().any(|row| {
            row[0] == *runtime && row[3] == *mode && row[5] == *tasks && row[6].trim_end_matches('†') == channel
        });
        assert!(found, "no row for {runtime} {mode} {tasks} {channel}");
    }
    assert_eq!(rows.len(), cells.len());

    // The answer, with a row per runtime, mode and band, and the caveats of what it names.
    let answer = table_rows(&html, "answer");
    assert_eq!(answer.len(), 2 * 2 * 2, "{answer:?}");
    assert!(answer.iter().all(|row| !row[3].is_empty()), "{answer:?}");
    let caveats = &html[html.find("<section id=\"caveats\">").unwrap()..];
    for channel in ["kanal", "tachyonix"] {
        if without_tags(&html[..html.find("<section id=\"caveats\">").unwrap()]).contains(&format!("{channel}†")) {
            let entry = channel_bench::registry::find(channel).unwrap();
            for caveat in entry.caveats {
                let text = caveat.text.replace('`', "");
                assert!(without_tags(caveats).contains(&text) && caveats.contains(caveat.link), "{channel}: {caveats}");
            }
        }
    }
    // One panel per runtime and mode, one line per channel.
    assert_eq!(html.matches("<svg").count(), 4);
    assert_eq!(html.matches("<polyline").count(), 4 * 3);
    // The machine, from the JSON beside the CSV.
    let machine = table_rows(&html, "machine");
    assert!(machine.iter().any(|row| row[0].contains("channel-bench") && row[0].contains("--tasks")), "{machine:?}");
}

#[test]
fn report_writes_any_csv_and_replaces_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let body = [
        format!("{HEADER}\n"),
        cell("flume", "multi-thread", 1, &[100.0, 101.0, 99.0, 100.5, 99.5]),
        cell("kanal", "multi-thread", 1, &[50.0, 51.0, -49.0]),
    ]
    .concat();
    let csv = write(dir.path(), "old.csv", &body);
    let output = bench().arg("report").arg(&csv).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let html_path = csv.with_extension("html");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout, format!("report: {}\n", html_path.display()));
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("No JSON beside the CSV"), "a CSV alone still gets its report");
    let rows = table_rows(&html, "cells");
    let kanal = rows.iter().find(|row| row[6] == "kanal†").unwrap();
    assert!(kanal[14].starts_with("1: lost: "), "failures are shown: {kanal:?}");
    assert_eq!(kanal[2], "64 slots", "the capacity column: {kanal:?}");
    // Every channel the table marks has its known problems listed under it.
    let under = &html[html.find("<section id=\"cells\">").unwrap()..];
    assert!(under.contains("<li><b>kanal<span class=\"mark\">†</span></b> ("), "{under}");
    assert!(html.contains("<tr class=\"failed\">"));

    // An existing report is kept without --force, replaced with it.
    std::fs::write(&html_path, "mine").unwrap();
    let output = bench().arg("report").arg(&csv).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.contains("exists, left as it is") && stdout.contains("--force"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&html_path).unwrap(), "mine");
    bench().args(["report", "--force"]).arg(&csv).assert().success();
    assert!(std::fs::read_to_string(&html_path).unwrap().starts_with("<!DOCTYPE html>"));

    // `--out -` prints the page, as `--dry-run` says it would, and writes no file named `-`.
    let output = bench().current_dir(dir.path()).args(["report", "--out", "-"]).arg(&csv).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let page = String::from_utf8(output.stdout).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"), "{page:.200}");
    assert!(!dir.path().join("-").exists(), "no file named -");
    let dry = bench().args(["report", "--dry-run", "--out", "-"]).arg(&csv).output().unwrap();
    assert!(String::from_utf8(dry.stdout).unwrap().contains("print it on stdout"));
}

#[test]
fn a_sweep_refuses_to_start_when_its_report_is_in_the_way() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run.csv");
    write(dir.path(), "run.html", "mine");
    let output =
        bench().args(["--channels", "kanal", "--tasks", "1", "--messages", "100", "--out"]).arg(&out).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(!out.exists(), "nothing ran");
    assert_eq!(std::fs::read_to_string(dir.path().join("run.html")).unwrap(), "mine");
}

#[test]
fn bad_inputs_give_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let html = write(dir.path(), "page.html", "mine");
    for (path, expected) in [(dir.path().join("missing.csv"), "cannot read"), (html.clone(), "ends in .html")] {
        let output = bench().arg("report").arg(&path).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", path.display());
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(expected), "{stderr}");
    }
    assert_eq!(std::fs::read_to_string(&html).unwrap(), "mine");
    assert!(!Path::new(&dir.path().join("missing.html")).exists());
}

#[test]
fn a_report_of_two_capacities_names_each_table_and_sets_each_groups_panels_side_by_side() {
    let csv = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/reference/channel-bench-20261125T170442Z.csv");
    let output = bench().args(["report", "--out", "-"]).arg(&csv).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let page = String::from_utf8(output.stdout).unwrap();
    let (small, large) = (page.find("<p><b>At 1,024 slots:</b></p>"), page.find("<p><b>At 65,536 slots:</b></p>"));
    assert!(small.is_some() && small < large, "a table per capacity, each named");
    let titles = page.match_indices(" slots</text>").map(|(at, _)| page[..at].rsplit(" at ").next().unwrap());
    let capacities: Vec<&str> = titles.collect();
    assert!(!capacities.is_empty() && capacities.chunks(2).all(|pair| pair == ["1,024", "65,536"]), "{capacities:?}");
}

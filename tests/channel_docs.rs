//! What the docs say about the channels, checked against the channel table: the channels
//! docs/channels.md lists with their locked versions, and the README's count of channels and
//! cells in the default and quick sweeps against what `--dry-run` plans.

use std::path::Path;

use channel_bench::registry::CHANNELS;

mod common;

fn read(relative: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{relative}: {error}"))
}

/// The cells `channel-bench ARGS --dry-run` plans.
fn planned_cells(args: &[&str]) -> u64 {
    let (code, stdout, stderr) = common::output(common::bench().args(args).arg("--dry-run"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let line = stdout.lines().find_map(|line| line.strip_prefix("cells: ")).unwrap_or_else(|| panic!("{stdout}"));
    line.trim().parse().unwrap()
}

/// The number just before `what` in `text` (`13 channels`, `520 cells`).
fn number_before(text: &str, what: &str) -> u64 {
    let at = text.find(what).unwrap_or_else(|| panic!("no {what:?} in {text}"));
    let digits: String = text[..at].trim_end().chars().rev().take_while(|c| c.is_ascii_digit() || *c == ',').collect();
    digits.chars().rev().filter(char::is_ascii_digit).collect::<String>().parse().unwrap_or_else(|_| panic!("{text}"))
}

/// The README's table row for `command` (`make bench`).
fn readme_row(command: &str) -> String {
    let readme = read("README.md");
    let start = format!("| `{command}` |");
    readme
        .lines()
        .find(|line| line.starts_with(&start))
        .unwrap_or_else(|| panic!("README has no row {start}"))
        .to_owned()
}

#[test]
fn the_readme_counts_the_channels_and_cells_the_sweeps_plan() {
    let default = readme_row("make bench");
    assert_eq!(number_before(&default, " channels ×") as usize, CHANNELS.len(), "{default}");
    assert_eq!(number_before(&default, " cells"), planned_cells(&[]), "{default}");
    let quick = readme_row("make bench ARGS=--quick");
    assert_eq!(number_before(&quick, " cells"), planned_cells(&["--quick"]), "{quick}");
}

#[test]
fn the_channels_page_lists_every_channel_of_the_table_with_its_locked_version() {
    let page = read("docs/channels.md");
    let table = page.split("| channel | crate (version in Cargo.lock)").nth(1).expect("docs/channels.md's table");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| line.split('|').map(str::trim).collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|row| row[1].trim_matches('`')).collect();
    let table_names: Vec<&str> = CHANNELS.iter().map(|channel| channel.name).collect();
    assert_eq!(names, table_names, "docs/channels.md lists other channels than the table, or in another order");
    for (row, channel) in rows.iter().zip(CHANNELS) {
        assert_eq!(row[2], format!("{} {}", channel.crate_name, channel.version()), "{}", channel.name);
    }
}

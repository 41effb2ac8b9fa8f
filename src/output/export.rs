//! Per-cell results written for other tools: `X.cells.json` and `--export-json` (the same
//! [`CellsFile`]), Bencher's metric format (`--export-bmf`) and github-action-benchmark's
//! `customSmallerIsBetter` list (`--export-github-action`). Each cell is named by
//! [`CellResult::name`], so a tracked series keeps its name from run to run.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;
use serde_json::json;

use crate::cli::ExportArgs;
use crate::output::files;
use crate::results::cells::{CellResult, CellsFile};

/// The Bencher measure, and github-action-benchmark's unit, of every exported value.
pub const MEASURE: &str = "ns_per_message";

/// What writes one export's text.
type Format = fn(&CellsFile) -> String;

/// Each export `exports` asks for: its path, its flag, and what writes its text.
fn asked(exports: &ExportArgs) -> impl Iterator<Item = (&Path, &'static str, Format)> {
    let all: [(&Option<_>, &'static str, Format); 3] = [
        (&exports.export_json, "--export-json", json::<CellsFile>),
        (&exports.export_bmf, "--export-bmf", bmf),
        (&exports.export_github_action, "--export-github-action", github_action),
    ];
    all.into_iter().filter_map(|(path, flag, text)| path.as_deref().map(|path: &Path| (path, flag, text)))
}

/// A usage error when an export would replace an existing file without `force`: checked
/// before a sweep, so that its end does not fail.
pub fn check_free(exports: &ExportArgs, force: bool) -> anyhow::Result<()> {
    asked(exports)
        .filter(|(path, _, _)| *path != Path::new("-"))
        .try_for_each(|(path, flag, _)| files::check_target(path, force, flag))
}

/// Writes every export `exports` asks for; an existing file is replaced only when `force` is set.
pub fn write_all(exports: &ExportArgs, cells: &CellsFile, force: bool) -> anyhow::Result<()> {
    for (path, flag, text) in asked(exports) {
        write_file(path, &text(cells), force, flag)?;
    }
    Ok(())
}

/// Bencher Metric Format: `{"<cell name>": {"ns_per_message": {"value": mean,
/// "lower_value": low, "upper_value": high}}}`, the bounds being the mean's interval (the
/// min–max below [`crate::stats::MIN_BOOTSTRAP_VALUES`] samples). Cells without an ok sample are
/// left out.
pub fn bmf(cells: &CellsFile) -> String {
    let metrics = measured(cells).map(|(cell, mean, (low, high))| {
        (cell.name.as_str(), json!({ MEASURE: { "value": mean, "lower_value": low, "upper_value": high } }))
    });
    json(&metrics.collect::<BTreeMap<&str, _>>())
}

/// github-action-benchmark's `customSmallerIsBetter` input: `[{"name", "unit", "value",
/// "range"}]`, the range being `± ` the wider side of the mean's interval.
pub fn github_action(cells: &CellsFile) -> String {
    let entries = measured(cells).map(|(cell, mean, (low, high))| {
        let range = format!("± {:.3}", (mean - low).max(high - mean));
        json!({ "name": cell.name, "unit": MEASURE, "value": mean, "range": range })
    });
    json(&entries.collect::<Vec<_>>())
}

/// Each cell with ok samples: its mean ns/message (the headline) and the band it is believed to lie in.
fn measured(cells: &CellsFile) -> impl Iterator<Item = (&CellResult, f64, (f64, f64))> {
    cells.cells.iter().filter_map(|cell| {
        let figures = cell.ns_per_message.as_ref()?;
        Some((cell, figures.trimmed_mean, figures.trimmed_mean_band()))
    })
}

/// `value` (the per-cell results, a metric list, an answer) as pretty JSON, one newline at the end.
pub fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("plain data serializes") + "\n"
}

/// Writes `text` to `path` (`-` is stdout). An existing file is replaced only when `force`
/// is set; otherwise that is a usage error naming `flag`.
pub fn write_file(path: &Path, text: &str, force: bool, flag: &str) -> anyhow::Result<()> {
    if path == Path::new("-") {
        std::io::stdout().write_all(text.as_bytes()).context("cannot write to stdout")?;
        return Ok(());
    }
    files::write(path, text.as_bytes(), force, flag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::cells::cells;
    use crate::results::load::hand_made;

    fn file() -> CellsFile {
        let file = hand_made(&[("kanal", 64, &[5.0, 1.0, 3.0, 2.0, 4.0], 0), ("flume", 1, &[], 2)]);
        cells("x.csv", (&file, &crate::results::figures::Table::of(&file)), &[], &[])
    }

    /// The mean of kanal's samples and its interval, as `stats` computes them.
    fn kanal_mean() -> (f64, f64, f64) {
        let summary = crate::stats::summarize(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        let (low, high) = summary.trimmed_mean_band();
        (summary.trimmed_mean, low, high)
    }

    #[test]
    fn bmf_names_each_measured_cell_with_its_mean_and_interval() {
        let value: serde_json::Value = serde_json::from_str(&bmf(&file())).unwrap();
        let (mean, low, high) = kanal_mean();
        assert_eq!(mean, 3.0);
        assert!(low < mean && mean < high, "{low} {high}");
        let expected = json!({"multi-thread/cloned-send/tasks=64/kanal":
            {"ns_per_message": {"value": mean, "lower_value": low, "upper_value": high}}});
        assert_eq!(value, expected);
    }

    #[test]
    fn github_action_is_a_list_with_a_range() {
        let value: serde_json::Value = serde_json::from_str(&github_action(&file())).unwrap();
        let (mean, low, high) = kanal_mean();
        let range = format!("± {:.3}", (mean - low).max(high - mean));
        let expected = json!([{"name": "multi-thread/cloned-send/tasks=64/kanal", "unit": "ns_per_message",
            "value": mean, "range": range}]);
        assert_eq!(value, expected);
    }

    #[test]
    fn an_existing_file_is_kept_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        std::fs::write(&path, "mine").unwrap();
        let error = write_file(&path, "new", false, "--export-json").unwrap_err();
        assert!(error.is::<crate::error::UsageError>() && error.to_string().contains("--force"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
        write_file(&path, "new", true, "--export-json").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    }
}

//! One CSV read by every reader of the binary: `cells` (and its exports), `compare` of the file
//! against itself and `summary` see the same cells with the same headline figure (the mean).
//! test_plot.py checks plot.py against the same `cells` output.

use std::collections::BTreeMap;
use std::path::Path;

use channel_bench::results::analysis::Analysis;
use channel_bench::results::load;

mod common;
use common::{HEADER, cell, write};

/// The stdout of `channel-bench ARGS CSV`, which must succeed.
fn stdout_of(args: &[&str], csv: &Path) -> String {
    let (code, stdout, stderr) = common::output(common::bench().args(args).arg(csv));
    assert_eq!(code, Some(0), "{stderr}");
    stdout
}

/// (runtime, tasks, channel) → mean, as `channel-bench cells --out -` writes it.
fn cells_means(csv: &Path) -> BTreeMap<(String, u64, String), Option<f64>> {
    let cells: serde_json::Value = serde_json::from_str(&stdout_of(&["cells", "--out", "-"], csv)).unwrap();
    let text = |c: &serde_json::Value, name: &str| c[name].as_str().unwrap().to_owned();
    let key = |c: &serde_json::Value| (text(c, "runtime"), c["tasks"].as_u64().unwrap(), text(c, "label"));
    let cells = cells["cells"].as_array().unwrap().iter();
    cells.map(|c| (key(c), c["ns_per_message"]["trimmed_mean"].as_f64())).collect()
}

#[test]
fn cells_compare_and_summary_agree_on_the_cells_and_their_means() {
    let dir = tempfile::tempdir().unwrap();
    let body = [
        format!("{HEADER}\n"),
        cell("kanal", "multi-thread", 1, &[100.0, 101.5, 99.25, 100.75, 98.0]),
        cell("flume", "multi-thread", 1, &[130.0, 131.5, 129.0]),
        cell("kanal", "current-thread", 8, &[55.5, 54.0]),
        cell("flume", "current-thread", 8, &[70.0, 72.0, 71.0]),
        cell("tokio-mpsc", "current-thread", 8, &[-1.0, -2.0]),
    ]
    .concat();
    let csv = write(dir.path(), "agree.csv", &body);
    let cells = cells_means(&csv);
    let expected: BTreeMap<_, _> = [
        (("multi-thread", 1, "kanal"), Some(100.0)),
        (("multi-thread", 1, "flume"), Some(390.5 / 3.0)),
        (("current-thread", 8, "kanal"), Some(54.75)),
        (("current-thread", 8, "flume"), Some(71.0)),
        (("current-thread", 8, "tokio-mpsc"), None),
    ]
    .into_iter()
    .map(|((runtime, tasks, channel), mean)| ((runtime.to_owned(), tasks, channel.to_owned()), mean))
    .collect();
    assert_eq!(cells.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>());
    for (key, mean) in &expected {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(
            matches!((mean, cells[key]), (Some(a), Some(b)) if close(*a, b))
                || (mean.is_none() && cells[key].is_none())
        );
    }

    // compare, the file against itself: every cell, the same trimmed means to its one decimal.
    let stdout = stdout_of(&["compare", csv.to_str().unwrap()], &csv);
    let table: BTreeMap<_, _> = stdout
        .lines()
        .skip_while(|line| line.starts_with("note: "))
        .skip(1)
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .take_while(|fields| fields.len() > 4)
        .map(|f| ((f[0].to_owned(), f[2].parse::<u64>().unwrap(), f[3].to_owned()), f[4].to_owned()))
        .collect();
    assert_eq!(table.keys().collect::<Vec<_>>(), cells.keys().collect::<Vec<_>>());
    for (key, mean) in &cells {
        let shown = mean.map_or("no".to_owned(), |mean| format!("{mean:.1}"));
        assert_eq!(table[key], shown, "{key:?}");
    }

    // summary: with one task count per band, a channel's figure is its cell's mean.
    let file = load::load(&csv).unwrap();
    let bands = Analysis::of("", &file, None).bands;
    let mut ranked = BTreeMap::new();
    for band in &bands {
        assert_eq!(band.band.tasks.len(), 1);
        let at = |channel: &String| (band.band.coord.runtime.to_string(), band.band.tasks[0], channel.clone());
        for entry in &band.speed.entries {
            ranked.insert(at(&entry.channel), Some(entry.value));
        }
        for excluded in &band.excluded {
            ranked.insert(at(&excluded.channel), None);
        }
    }
    assert_eq!(ranked.len(), cells.len());
    for (key, value) in ranked {
        match (value, cells[&key]) {
            (Some(value), Some(mean)) => assert!((value - mean).abs() < 1e-9, "{key:?}"),
            (None, None) => {}
            other => panic!("{key:?}: {other:?}"),
        }
    }
    // The console names the same picks and points to the page, which names each other channel
    // with its verdict against the first.
    let console = stdout_of(&["summary"], &csv);
    assert!(console.contains("kanal† 54.8") && console.contains("kanal† 100"), "{console}");
    assert!(!console.contains("verdicts: 95% intervals"), "{console}");
    let summary = std::fs::read_to_string(csv.with_extension("md")).unwrap();
    assert!(summary.contains("flume 71.0") && summary.contains("kanal†** 100"), "{summary}");
    // How the verdicts were made, said once on the page, after the answer it explains.
    assert_eq!(summary.matches("verdicts: 95% intervals").count(), 1, "{summary}");
    assert!(summary.find("\nverdicts: 95% intervals") > summary.find("kanal†** 100"), "{summary}");
}

#[test]
fn the_exports_carry_the_same_means_and_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(
        dir.path(),
        "x.csv",
        &[format!("{HEADER}\n"), cell("kanal", "multi-thread", 64, &[5.0, 1.0, 3.0, 2.0, 4.0])].concat(),
    );
    let (bmf, github) = (dir.path().join("bmf.json"), dir.path().join("gh.json"));
    let (code, _, stderr) = common::output(
        common::bench().arg("cells").arg(&csv).arg("--export-bmf").arg(&bmf).arg("--export-github-action").arg(&github),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let read =
        |path: &Path| -> serde_json::Value { serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap() };
    let name = "multi-thread/cloned-send/tasks=64/kanal";
    let cells = read(&dir.path().join("x.cells.json"));
    let figures = &cells["cells"][0]["ns_per_message"];
    assert_eq!(cells["cells"][0]["name"], name);
    assert_eq!((figures["trimmed_mean"].as_f64(), figures["median"].as_f64()), (Some(3.0), Some(3.0)));
    let interval = &figures["trimmed_mean_interval"];
    let bmf = read(&bmf);
    assert_eq!(bmf[name]["ns_per_message"]["value"], 3.0);
    assert_eq!(bmf[name]["ns_per_message"]["lower_value"], interval[0]);
    assert_eq!(bmf[name]["ns_per_message"]["upper_value"], interval[1]);
    let github = read(&github);
    assert_eq!((github[0]["name"].as_str(), github[0]["value"].as_f64()), (Some(name), Some(3.0)));
}

//! Several runs of one sweep read as one ([`pool`]), the two-level design of `stats::pool`: a
//! cell's figure is the geometric mean of its runs' trimmed means and its interval comes from
//! the spread between the runs (`speed`); the noise margins come from that spread measured
//! over the cells ([`noise`](super::noise)), or, for a single run, from the calibrated constants. Runs of
//! different workloads or machines are never pooled, runs of different builds only when asked
//! ([`refusal`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::coord::Coord;
use super::load::CellKey;
use super::load::{CellSamples, PacedSample, ResultsFile, WorkloadKey, sweep_order};
use super::metadata::{MachineId, Metadata};
use super::order::slot;
use crate::stats::{self, CONFIDENCE, Summary, pool as pooled};

/// One run: the CSV's name as given, its cells, and the machine description beside it.
#[derive(Debug, Clone)]
pub struct Run {
    /// The CSV as named on the command line.
    pub name: String,
    /// Its cells.
    pub file: ResultsFile,
    /// The JSON beside it, when there is a readable one.
    pub metadata: Option<Metadata>,
}

/// `runs` in the groups that pool, in the order first given: per machine ([`MachineId`] of the
/// JSON beside each run), the runs of each sweep (the same workloads and settings) together.
pub fn sweeps(runs: Vec<Run>) -> Vec<(MachineId, Vec<Vec<Run>>)> {
    let settings = |file: &ResultsFile| file.order.iter().map(|key| key.coord.setting.clone()).collect::<BTreeSet<_>>();
    let mut machines: Vec<(MachineId, Vec<Vec<Run>>)> = Vec::new();
    for run in runs {
        let machine = MachineId::of(run.metadata.as_ref());
        let sweeps = &mut slot(&mut machines, |(known, _)| *known == machine, || (machine.clone(), Vec::new())).1;
        let same = |other: &Run| {
            other.file.workloads() == run.file.workloads() && settings(&other.file) == settings(&run.file)
        };
        slot(sweeps, |sweep| same(&sweep[0]), Vec::new).push(run);
    }
    machines
}

/// `parts`, each the pooled runs of one sweep of one machine (named as given, [`sweeps`]), as
/// one file: each cell keyed on its machine when they hold several. `Err` names two parts of
/// one machine that measured the same cells in other workloads (`--messages`, say): those
/// would rank as one.
pub fn union(parts: Vec<(MachineId, String, ResultsFile)>) -> Result<ResultsFile, String> {
    let several = parts.iter().any(|(machine, ..)| *machine != parts[0].0);
    let runs = parts.iter().map(|(.., file)| file.runs).min().unwrap_or(0);
    // One part's machine speed is the file's; several parts' are as many machines or runs.
    let machine = if let [(_, _, only)] = &parts[..] { only.machine.clone() } else { None };
    let mut out = ResultsFile { runs, machine, ..ResultsFile::default() };
    let mut seen: HashMap<CellKey, (&str, &ResultsFile)> = HashMap::new();
    for (machine, name, file) in &parts {
        for key in &file.order {
            let coord = Coord { machine: machine.clone(), ..key.coord.clone() };
            let bare = CellKey { coord, messages: 0, ..key.clone() };
            if let Some((other, its)) = seen.insert(bare, (name, file)) {
                return Err(format!("{other} ran {}, {name} ran {}", text(&its.workloads()), text(&file.workloads())));
            }
        }
        let file = if several { file.clone().on_machine(machine) } else { file.clone() };
        out.skipped_partial_line |= file.skipped_partial_line;
        out.order.extend(file.order);
        out.cells.extend(file.cells);
        out.memory.extend(file.memory);
        // Several machines' samples together: a machine busy through its runs shows in their median.
        out.waited.extend(file.waited);
    }
    Ok(out)
}

/// Workloads as the flags that set them: `--messages 1000 --capacity 64 slots --workers 2`.
fn text(workloads: &[WorkloadKey]) -> String {
    let flags =
        |w: &WorkloadKey| format!("--messages {} --capacity {} --workers {}", w.messages, w.capacity, w.workers);
    workloads.iter().map(flags).collect::<Vec<_>>().join(" / ")
}

/// Why `runs`, of one machine's sweep ([`sweeps`]), cannot be pooled, in one line naming the
/// first difference: a host, or, unless `allow_different_builds`, a build (commit, rustc, a
/// channel crate's version). `None` when they can be.
pub fn refusal(runs: &[Run], allow_different_builds: bool) -> Option<String> {
    if let Some(line) = given_twice(runs) {
        return Some(line);
    }
    let (first, rest) = runs.split_first()?;
    for run in rest {
        let (Some(one), Some(other)) = (&first.metadata, &run.metadata) else { continue };
        let shown = |value: &Option<String>| value.as_deref().unwrap_or("unknown").to_owned();
        let machine = [
            ("host", shown(&one.hostname), shown(&other.hostname)),
            ("CPU", shown(&one.cpu_model), shown(&other.cpu_model)),
            ("cores", one.cores.to_string(), other.cores.to_string()),
        ];
        let build = [
            ("build", shown(&one.git_commit), shown(&other.git_commit)),
            ("rustc", one.rustc.clone(), other.rustc.clone()),
        ];
        // Crate versions differ as maps; the message names the runs alone.
        let crates = (one.crates != other.crates).then(|| ("channel crates", String::new(), String::new()));
        let (one_name, other_name) = (&first.name, &run.name);
        if let Some((what, a, b)) = machine.into_iter().find(|(_, a, b)| a != b) {
            return Some(format!("different {what}: {a} ({one_name}), {b} ({other_name}): runs of one machine pool"));
        }
        let differ = build.into_iter().find(|(_, a, b)| a != b).or(crates).filter(|_| !allow_different_builds);
        if let Some((what, a, b)) = differ {
            let (before_a, before_b) =
                (if a.is_empty() { " in" } else { ": " }, if b.is_empty() { " and" } else { ", " });
            let runs = format!("{before_a}{a} ({one_name}){before_b}{b} ({other_name})");
            return Some(format!("different {what}{runs}: pool runs of one build, or pass --allow-different"));
        }
    }
    None
}

/// A run given twice, under one name or two: the same started time and command line in the
/// JSON beside each, or the same samples. Pooled, it would count its own spread as agreement
/// between runs.
fn given_twice(runs: &[Run]) -> Option<String> {
    let samples = |file: &ResultsFile| -> BTreeMap<CellKey, Vec<u64>> {
        let bits = |cell: &CellSamples| cell.ok.iter().chain(&cell.disturbed).map(|v| v.to_bits()).collect();
        file.cells.iter().map(|(key, cell)| (key.clone(), bits(cell))).collect()
    };
    for (at, one) in runs.iter().enumerate() {
        for other in &runs[at + 1..] {
            let same_run = (one.metadata.as_ref().zip(other.metadata.as_ref()))
                .is_some_and(|(a, b)| a.started_utc == b.started_utc && a.command_line == b.command_line);
            if same_run || samples(&one.file) == samples(&other.file) {
                return Some(format!(
                    "{} and {} are one run given twice (the same samples): pool each run once",
                    one.name, other.name
                ));
            }
        }
    }
    None
}

/// The runs' cells as one file: each cell's samples of every run together (so the samples'
/// own figures and modes still read), and the trimmed mean of each run in
/// [`CellSamples::runs`]. One run is returned as it is.
pub fn pool(runs: Vec<ResultsFile>) -> ResultsFile {
    if runs.len() == 1 {
        return runs.into_iter().next().expect("one run");
    }
    let mut pooled = ResultsFile { runs: runs.len(), ..ResultsFile::default() };
    for (index, run) in runs.into_iter().enumerate() {
        // Rounds are numbered within a run: each run's get a range of their own.
        let round = |round: Option<u64>| round.map(|round| round + ((index as u64) << 40));
        pooled.skipped_partial_line |= run.skipped_partial_line;
        // What a channel holds is a function of its crate and the cell's shape: each run's
        // memory rows serve the pooled cells (`results::memory::CellMemory::of` takes the first).
        pooled.memory.extend(run.memory);
        pooled.waited.extend(run.waited);
        for key in run.order {
            let cell = &run.cells[&key];
            let into = pooled.cells.entry(key.clone()).or_insert_with(|| {
                pooled.order.push(key);
                CellSamples::default()
            });
            into.runs.extend(stats::trimmed_mean_of(&cell.ok));
            into.failed += cell.failed;
            into.first_failure = into.first_failure.take().or_else(|| cell.first_failure.clone());
            let lists = [(&mut into.ok, &cell.ok), (&mut into.disturbed, &cell.disturbed)];
            for (into, from) in lists.into_iter().chain(into.columns.0.iter_mut().zip(&cell.columns.0)) {
                into.extend_from_slice(from);
            }
            into.disturbed_why.extend_from_slice(&cell.disturbed_why);
            into.rounds.extend(cell.rounds.iter().map(|&r| round(r)));
            into.paced
                .extend(cell.paced.iter().map(|sample| PacedSample { round: round(sample.round), ..sample.clone() }));
        }
    }
    sweep_order(&mut pooled.order);
    pooled.pool_latencies();
    pooled
}

/// The ns/message of a cell of two runs or more as rankings and verdicts read it
/// (`figures::Figures::speed`): the geometric mean of the runs' trimmed means and its t
/// interval from the runs' spread (`stats::pool::pooled_summary`); `None` for a cell of one run.
pub fn pooled(cell: &CellSamples) -> Option<Summary> {
    pooled::pooled_summary(&cell.runs, CONFIDENCE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::load::hand_made;

    fn steady(value: f64) -> [f64; 5] {
        [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998]
    }

    #[test]
    fn runs_of_other_crate_versions_or_given_twice_are_told_from_their_data() {
        let metadata = |crates: &[(&str, &str)], started: &str| Metadata {
            crates: crates.iter().map(|(name, version)| (name.to_string(), version.to_string())).collect(),
            started_utc: started.to_owned(),
            ..serde_json::from_str(
                r#"{"cores": 2, "os": "", "rustc": "", "crates": {}, "command_line": [], "started_utc": ""}"#,
            )
            .unwrap()
        };
        let run = |name: &str, samples: &[f64], crates, started| Run {
            name: name.to_owned(),
            file: hand_made(&[("kanal", 1, samples, 0)]),
            metadata: Some(metadata(crates, started)),
        };
        let (one, other) = (
            run("a.csv", &steady(1.0), &[("kanal", "0.1")], "1"),
            run("b.csv", &steady(2.0), &[("kanal", "0.2")], "2"),
        );
        let refused = refusal(&[one.clone(), other.clone()], false).unwrap();
        assert_eq!(
            refused,
            "different channel crates in (a.csv) and (b.csv): pool runs of one build, or pass --allow-different"
        );
        assert_eq!(refusal(&[one.clone(), other], true), None);
        // The same samples in another cell, worded alike (its messages are not in its label), are
        // not the same run.
        let mut moved = run("c.csv", &steady(1.0), &[("kanal", "0.1")], "3");
        let key = moved.file.order[0].clone();
        let elsewhere = CellKey { messages: key.messages + 1, ..key.clone() };
        let cell = moved.file.cells.remove(&key).unwrap();
        (moved.file.order, moved.file.cells) = (vec![elsewhere.clone()], HashMap::from([(elsewhere, cell)]));
        assert_eq!(refusal(&[one.clone(), moved], false), None);
        assert!(
            refusal(&[one.clone(), Run { name: "d.csv".to_owned(), ..one }], false).unwrap().contains("given twice")
        );
    }

    #[test]
    fn pooled_cells_hold_each_runs_figure_and_every_sample() {
        let (a, b) = (steady(100.0), steady(121.0));
        let pooled = pool(vec![hand_made(&[("a", 1, &a, 0)]), hand_made(&[("a", 1, &b, 1), ("b", 1, &a, 0)])]);
        assert_eq!(pooled.runs, 2);
        let cell = &pooled.cells[&pooled.order[0]];
        assert_eq!((cell.ok.len(), cell.runs.len(), cell.failed), (10, 2, 1));
        let speed = self::pooled(cell).unwrap();
        assert!((speed.trimmed_mean - 110.0).abs() < 0.1, "the geometric mean of 100 and 121");
        let only_once = pooled.cells.values().find(|cell| cell.runs.len() == 1).unwrap();
        assert_eq!(self::pooled(only_once), None, "a cell of one run is its samples'");
    }
}

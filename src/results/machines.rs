//! Several machines, one report: runs grouped by machine and workload ([`group`]), each group
//! pooled as one machine (`results::pool`), and the pick of every band set side by side, one
//! column per machine and worker count ([`side_by_side`]), with the bands whose answer changes
//! from one column to another. Runs of one machine that differ only in `--workers` are two
//! columns of one machine: a small scaling study of the same code.

use std::collections::BTreeSet;

use super::analysis::Analysis;
use super::compare::{leaders, leaders_overlap};
use super::metadata::Metadata;
use super::pool::Run;
use super::recommend::Recommendation;
use crate::run::measure::RuntimeKind;

/// `runs` grouped by machine (host, CPU and cores of the JSON beside a run, `None` without one)
/// and workload (messages, capacity, workers), in the order each group first appears, each
/// group's runs in the order given: the runs of one group pool, different groups are different
/// machines (or worker counts) of one report.
pub fn group(runs: Vec<Run>) -> Vec<Vec<Run>> {
    let mut groups: Vec<(_, Vec<Run>)> = Vec::new();
    for run in runs {
        let machine = run.metadata.as_ref().map(|m| (m.hostname.clone(), m.cpu_model.clone(), m.cores));
        let key = (machine, run.file.workloads());
        match groups.iter_mut().find(|(known, _)| *known == key) {
            Some((_, group)) => group.push(run),
            None => groups.push((key, vec![run])),
        }
    }
    groups.into_iter().map(|(_, group)| group).collect()
}

/// One machine of the report: its runs pooled and analysed, and what it was measured on.
#[derive(Debug, Clone)]
pub struct Machine {
    /// The CSVs of its runs, as named on the command line.
    pub names: Vec<String>,
    /// The JSON beside its first run, when there is a readable one.
    pub metadata: Option<Metadata>,
    /// Its runs pooled, analysed (`results::analysis`): its summary, crate versions and runs.
    pub analysis: Analysis,
}

impl Machine {
    /// The worker threads of its multi-thread cells, ascending; empty when it has none.
    pub fn multi_thread_workers(&self) -> Vec<u64> {
        let cells = self.analysis.cells.cells.iter().filter(|cell| cell.runtime == RuntimeKind::MultiThread);
        cells.map(|cell| cell.workers).collect::<BTreeSet<_>>().into_iter().collect()
    }
}

/// One column of the side-by-side table: a machine, and the worker count of its bands when
/// its file holds several for a runtime (`Recommendation::workers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// Index into the machines.
    pub machine: usize,
    /// The bands' worker count when the machine's file names one, else `None`.
    pub workers: Option<u64>,
}

/// One band (runtime, mode, setting, band of task counts) across the columns.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    /// The band in each column, in column order; `None` where that column has no such band.
    pub bands: Vec<Option<&'a Recommendation>>,
}

impl Row<'_> {
    /// The band of the first column that has it: its runtime, mode, setting and band are the row's.
    pub fn first(&self) -> &Recommendation {
        self.bands.iter().flatten().next().expect("a row has a band")
    }

    /// Whether the answer changes between the columns: no channel is among the leaders (the
    /// first and the channels tied with it) of every column that ranks the band.
    pub fn changes(&self) -> bool {
        let leaders: Vec<_> = self.bands.iter().flatten().map(|band| leaders(&band.speed)).collect();
        !leaders_overlap(&leaders)
    }
}

/// The picks of every machine side by side.
#[derive(Debug, Clone)]
pub struct SideBySide<'a> {
    /// The columns, machine by machine, worker counts ascending.
    pub columns: Vec<Column>,
    /// The bands, in the order they first appear.
    pub rows: Vec<Row<'a>>,
}

/// The bands of `machines` side by side: one column per machine and worker count, one row per
/// runtime, mode, setting and band of task counts.
pub fn side_by_side(machines: &[Machine]) -> SideBySide<'_> {
    let mut columns: Vec<Column> = Vec::new();
    for (at, machine) in machines.iter().enumerate() {
        let workers: BTreeSet<Option<u64>> = machine.analysis.bands.iter().map(|band| band.band.workers).collect();
        columns.extend(workers.into_iter().map(|workers| Column { machine: at, workers }));
    }
    let place = |band: &Recommendation| (band.band.runtime, band.band.mode, band.band.setting.clone(), band.band.size);
    let mut rows: Vec<Row> = Vec::new();
    for (at, column) in columns.iter().enumerate() {
        for band in machines[column.machine].analysis.bands.iter().filter(|band| band.band.workers == column.workers) {
            let row = rows.iter().position(|row| place(row.first()) == place(band)).unwrap_or_else(|| {
                rows.push(Row { bands: vec![None; columns.len()] });
                rows.len() - 1
            });
            rows[row].bands[at] = Some(band);
        }
    }
    SideBySide { columns, rows }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::load::ResultsFile;
    use crate::results::load::hand_made;
    use crate::results::recommend::TaskBand;

    fn steady(value: f64) -> [f64; 5] {
        [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998]
    }

    fn machine(file: ResultsFile) -> Machine {
        Machine { names: vec!["x.csv".to_owned()], metadata: None, analysis: Analysis::of("", &file, None) }
    }

    #[test]
    fn runs_group_by_workload_and_bands_line_up_with_their_changes() {
        let (fast, slow) = (steady(100.0), steady(200.0));
        let one = hand_made(&[("a", 1, &fast, 0), ("b", 1, &slow, 0), ("a", 64, &fast, 0), ("b", 64, &slow, 0)]);
        let other = hand_made(&[("a", 1, &fast, 0), ("b", 1, &slow, 0), ("a", 64, &slow, 0), ("b", 64, &fast, 0)]);
        let other_workload = {
            let mut file = other.clone();
            let keys: Vec<_> = file.order.drain(..).collect();
            for mut key in keys {
                let cell = file.cells.remove(&key).unwrap();
                key.workload.workers += 1;
                file.cells.insert(key.clone(), cell);
                file.order.push(key);
            }
            file
        };
        let run = |file: &ResultsFile, name: &str| Run { name: name.to_owned(), file: file.clone(), metadata: None };
        let groups = group(vec![run(&one, "a1"), run(&other_workload, "b1"), run(&one, "a2")]);
        let names: Vec<Vec<&str>> = groups.iter().map(|g| g.iter().map(|run| run.name.as_str()).collect()).collect();
        assert_eq!(names, [vec!["a1", "a2"], vec!["b1"]]);

        let machines = [machine(one), machine(other_workload)];
        let side = side_by_side(&machines);
        assert_eq!(side.columns, [Column { machine: 0, workers: None }, Column { machine: 1, workers: None }]);
        assert_eq!(side.rows.len(), 2);
        let small = &side.rows[0];
        assert_eq!((small.first().band.size, small.changes()), (TaskBand::Small, false));
        assert!(small.bands.iter().all(|band| band.unwrap().speed.first().unwrap().channel == "a"));
        let medium = &side.rows[1];
        assert_eq!((medium.first().band.size, medium.changes()), (TaskBand::Medium, true));
    }

    #[test]
    fn a_tie_shared_by_every_column_is_no_change() {
        let (a, near, far) = (steady(100.0), steady(100.5), steady(200.0));
        let tied = machine(hand_made(&[("a", 1, &a, 0), ("b", 1, &near, 0)]));
        let b_alone = machine(hand_made(&[("a", 1, &far, 0), ("b", 1, &a, 0)]));
        let a_alone = machine(hand_made(&[("a", 1, &a, 0), ("b", 1, &far, 0)]));
        assert!(!side_by_side(&[tied.clone(), b_alone.clone()]).rows[0].changes());
        assert!(side_by_side(&[a_alone, b_alone]).rows[0].changes());
    }
}

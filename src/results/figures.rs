//! The figures of every cell of one analysis, computed once from its loaded samples ([`Table`]):
//! ns/message, each other column, a paced cell's figures and the memory its channels hold (from
//! the memory sidecar beside the CSV). Every ranking, decision and export
//! reads them here; none summarizes a cell's samples again.

use std::collections::HashMap;

use serde::Serialize;

use super::column::{Column, Columns};
use super::load::{CellKey, CellSamples, ResultsFile};
use super::memory::CellMemory;
use super::noise::Metric;
use super::paced::cell::{self as paced, PacedCell};
use super::repeat;
use crate::stats;

/// One metric of one cell: the values of its `ok` samples and what they say: the trimmed mean,
/// the headline, with the median and the clusters beside it (see `stats`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    /// The value of each `ok` sample that has one, in file order.
    pub samples: Vec<f64>,
    /// The mean of `samples` without their lowest and highest fifth (`stats::trimmed_mean`):
    /// the headline figure. For ns/message of a cell of several runs pooled, the figure every
    /// ranking reads instead: the geometric mean of the runs' trimmed means (`stats::pool`).
    pub trimmed_mean: f64,
    /// `[low, high]`: the bootstrap confidence interval of the trimmed mean at `confidence`; absent
    /// with too few samples for one. For ns/message of a cell of several runs pooled, the t
    /// interval from the runs' spread (`stats::pool::pooled_summary`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trimmed_mean_interval: Option<[f64; 2]>,
    /// The median of `samples`.
    pub median: f64,
    /// `[low, high]`: a distribution-free confidence interval of the median at `confidence`;
    /// absent below 5 samples, where none reaches it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_interval: Option<[f64; 2]>,
    /// `[low, high]`: for ns/message, where another run of the same command would likely put
    /// `trimmed_mean` (`stats::repeat`, at `stats::repeat::REPEAT_CONFIDENCE`): the samples'
    /// spread pooled over the channel's band, both runs' sample counts and the run's wander.
    /// Absent for other metrics, and where no cell of the group has two samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeat_interval: Option<[f64; 2]>,
    /// The smallest sample.
    pub min: f64,
    /// The largest sample.
    pub max: f64,
    /// The separate clusters the samples form on a log scale (`stats::clusters`), lowest first,
    /// when they form more than one; empty for a cell with one behaviour.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clusters: Vec<stats::Cluster>,
}

impl Figures {
    /// The figures of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Self> {
        let summary = stats::summarize(values)?;
        Some(Figures {
            samples: values.to_vec(),
            trimmed_mean: summary.trimmed_mean,
            trimmed_mean_interval: summary.trimmed_mean_interval.map(|(low, high)| [low, high]),
            median: summary.median,
            median_interval: summary.median_interval.map(|(low, high)| [low, high]),
            repeat_interval: None,
            min: summary.min,
            max: summary.max,
            clusters: Some(stats::clusters(values)).filter(|clusters| clusters.len() > 1).unwrap_or_default(),
        })
    }

    /// The figures of a cell's ns/message: its samples', but for a cell of several runs pooled,
    /// the trimmed mean and interval the rankings read (`results::pool::pooled`).
    pub fn speed(cell: &CellSamples) -> Option<Self> {
        let samples = Figures::of(&cell.ok)?;
        let Some(pooled) = super::pool::pooled(cell) else { return Some(samples) };
        let interval = pooled.trimmed_mean_interval.map(|(low, high)| [low, high]);
        Some(Figures { trimmed_mean: pooled.trimmed_mean, trimmed_mean_interval: interval, ..samples })
    }

    /// Half the width of the confidence interval of the trimmed mean, relative to it, the
    /// wider side (`stats::precision`); `None` without an interval.
    pub fn trimmed_mean_precision(&self) -> Option<f64> {
        let [low, high] = self.trimmed_mean_interval?;
        Some(stats::precision(self.trimmed_mean, (low, high)))
    }

    /// The interval the mean is believed to lie in: its confidence interval, or the min–max
    /// when there are too few samples for one (as `stats::Summary::trimmed_mean_band`).
    pub fn trimmed_mean_band(&self) -> (f64, f64) {
        self.trimmed_mean_interval.map_or((self.min, self.max), |[low, high]| (low, high))
    }
}

/// Every figure of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellFigures {
    /// Wall-clock nanoseconds per message ([`Figures::speed`]); `None` when no sample was ok.
    pub speed: Option<Figures>,
    /// The figures of each other [`Column`]; `None` where no `ok` sample
    /// has a value.
    pub columns: Columns<Option<Figures>>,
    /// A paced cell's figures (`paced::cell`: latency pooled over its messages, shares, CPU per
    /// delivered message); `None` when it was not paced.
    pub paced: Option<PacedCell>,
    /// The heap its channels hold at rest, at a burst's peak and kept after it, from the memory
    /// sidecar's row of its shape (`results::memory`); `None` without one measured ok.
    pub memory: Option<CellMemory>,
}

impl CellFigures {
    /// The figures of `metric` as rankings read them: ns/message, CPU ns/message, or the
    /// samples' p99 (which frames overflowed are judged beside).
    pub fn of_metric(&self, metric: Metric) -> Option<&Figures> {
        match metric {
            Metric::Speed => self.speed.as_ref(),
            Metric::Cpu => self.columns[Column::CpuNsPerMessage].as_ref(),
            Metric::P99 | Metric::Overflow => self.columns[Column::LatP99].as_ref(),
        }
    }

    /// The figures of `key`'s cell of `file`.
    fn of(key: &CellKey, file: &ResultsFile) -> CellFigures {
        let samples = &file.cells[key];
        CellFigures {
            speed: Figures::speed(samples),
            columns: Columns(samples.columns.0.each_ref().map(|values| Figures::of(values))),
            paced: paced::cell(key.tasks, &samples.paced, samples.latency),
            memory: CellMemory::of(&file.memory, (&key.channel, key.tasks, &key.coord)),
        }
    }
}

/// The figures of every cell of one file, by its key: built once per analysis.
#[derive(Debug, Clone, Default)]
pub struct Table {
    cells: HashMap<CellKey, CellFigures>,
}

impl Table {
    /// The figures of every cell of `file`, each ns/message with its repeat interval
    /// ([`repeat::Spreads`]).
    pub fn of(file: &ResultsFile) -> Table {
        let spreads = repeat::Spreads::of(file);
        let figures = |key: &CellKey| {
            let mut figures = CellFigures::of(key, file);
            if let Some(speed) = figures.speed.as_mut() {
                let interval = spreads.interval(key, &file.cells[key], speed.trimmed_mean);
                speed.repeat_interval = interval.map(|(low, high)| [low, high]);
            }
            (key.clone(), figures)
        };
        Table { cells: file.order.iter().map(figures).collect() }
    }

    /// The figures of `key`, a cell of the file the table was built from.
    pub fn cell(&self, key: &CellKey) -> &CellFigures {
        &self.cells[key]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::load::hand_made;
    use crate::results::pool::pool;

    #[test]
    fn each_cell_is_summarized_once_with_its_columns() {
        let file = hand_made(&[("kanal", 1, &[5.0, 1.0, 3.0, 2.0, 4.0], 0), ("flume", 8, &[], 2)]);
        let table = Table::of(&file);
        let kanal = table.cell(&file.order[0]);
        let speed = kanal.speed.as_ref().unwrap();
        assert_eq!((speed.median, speed.min, speed.max, speed.trimmed_mean), (3.0, 1.0, 5.0, 3.0));
        assert_eq!(kanal.columns[Column::CpuNsPerMessage].as_ref().unwrap().median, 6.0);
        assert!(kanal.columns[Column::LatP99].is_none() && kanal.paced.is_none());
        assert!(table.cell(&file.order[1]).speed.is_none());
    }

    #[test]
    fn a_cell_takes_the_memory_row_of_its_shape_measured_ok() {
        use crate::results::memory::{CellMemory, MemoryRow};
        use crate::results::schema::SampleStatus;
        use crate::run::workload::{Capacity, Mode, RecordBytes};
        let mut file = hand_made(&[("kanal", 8, &[1.0, 2.0], 0), ("flume", 8, &[1.0, 2.0], 0)]);
        let row = |channel: &str, kept, status| MemoryRow {
            channel: channel.to_owned(),
            version: "1.0.0".to_owned(),
            mode: Mode::ClonedSend,
            tasks: 8,
            capacity: 0,
            capacity_per_channel: 0,
            channels: 1,
            record_bytes: RecordBytes::Shared,
            slot_bytes: 48,
            rest_bytes: 100,
            peak_bytes: 300,
            drained_bytes: kept,
            kept_bytes: kept,
            after_drop_bytes: 0,
            status,
        };
        // hand_made's cells are of a file without the capacity column: 0 slots.
        assert_eq!(file.order[0].coord.capacity, Capacity::Shared(0));
        file.memory = vec![row("kanal", 200, SampleStatus::Ok), row("flume", 7, SampleStatus::of("lost: 1"))];
        let table = Table::of(&file);
        let kanal = CellMemory { rest_bytes: 100, peak_bytes: 300, kept_bytes: 200, slots: 0 };
        assert_eq!(table.cell(&file.order[0]).memory, Some(kanal));
        assert_eq!(table.cell(&file.order[1]).memory, None, "flume's row failed");
    }

    #[test]
    fn each_metric_reads_its_column() {
        let file = hand_made(&[("kanal", 1, &[5.0, 1.0, 3.0, 2.0, 4.0], 0)]);
        let table = Table::of(&file);
        let kanal = table.cell(&file.order[0]);
        assert_eq!(kanal.of_metric(Metric::Speed).unwrap().median, 3.0);
        assert_eq!(kanal.of_metric(Metric::Cpu).unwrap().median, 6.0);
        assert!(kanal.of_metric(Metric::P99).is_none() && kanal.of_metric(Metric::Overflow).is_none());
    }

    #[test]
    fn a_pooled_cell_shows_the_figure_its_ranking_reads() {
        let steady = |value: f64| [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998];
        let (a, b) = (steady(100.0), steady(121.0));
        let file = pool(vec![hand_made(&[("a", 1, &a, 0)]), hand_made(&[("a", 1, &b, 0)])]);
        let speed = Table::of(&file).cell(&file.order[0]).speed.clone().unwrap();
        let ranked = crate::results::pool::pooled(&file.cells[&file.order[0]]).unwrap();
        assert_eq!(speed.trimmed_mean, ranked.trimmed_mean);
        assert!((speed.trimmed_mean - 110.0).abs() < 0.1, "the geometric mean of 100 and 121");
        assert_eq!(speed.trimmed_mean_interval.map(|[low, high]| (low, high)), ranked.trimmed_mean_interval);
        assert_eq!((speed.samples.len(), speed.min, speed.max), (10, a[4], b[3]));
    }
}

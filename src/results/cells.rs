//! Per-cell results, computed once from a loaded file: what `X.cells.json`, the exports and
//! plot.py and the HTML report read, so that no script re-parses the CSV or re-computes a figure.

use std::collections::HashMap;

use serde::Serialize;

use super::band::{Grouped, first_seen};
use super::careful::Careful;
use super::channel::{ChannelId, channel_label};
use super::colour;
use super::column::Columns;
use super::coord::Coord;
use super::figures::Figures;
use super::figures::{CellFigures, Table};
use super::load::{CellKey, CellSamples, ResultsFile};
use super::metadata::MachineId;
use super::paced::PacedCell;
use super::recommend::Recommendation;
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Merge, Mode};
use crate::stats::CONFIDENCE;

/// The fewest `ok` samples a cell needs to be more than thin: the plots draw a cell with fewer
/// hollow, and `ab` calls no change on fewer pairs (the sweep's duels give a band's leaders more,
/// `sweep::choose::DUEL_SAMPLES`).
pub const FEWEST_SAMPLES: usize = 3;

/// Every cell of one CSV, in the order the cells first appear in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellsFile {
    /// The CSV the cells were read from, as named on the command line or by the sweep.
    pub csv: String,
    /// The confidence of every `trimmed_mean_interval` and `median_interval` (0.9 = 90%).
    pub confidence: f64,
    /// Whether the CSV ended in a partial line (a run stopped mid-write), which was skipped.
    pub skipped_partial_line: bool,
    /// A cell with fewer `ok` samples than this is thin ([`FEWEST_SAMPLES`]): plots draw it hollow.
    pub fewest_samples: usize,
    /// The cells, in file order.
    pub cells: Vec<CellResult>,
    /// Per group of cells, the channels a plot emphasises: each band's fastest and the fastest
    /// with no known problem (`results::careful`).
    pub highlights: Vec<Highlight>,
}

/// The channels to emphasise in one group's plot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Highlight {
    /// The group: the [`CellResult::coord`] of its cells.
    pub coord: Coord,
    /// The channels, each once, as data (`{"channel": "kanal", "merge": "select-all"}`, `merge`
    /// absent in cloned-send): plot.py matches each to a cell's `channel` and `merge`.
    pub channels: Vec<ChannelId>,
}

/// The highlights of a file's `groups` (ranked as `bands`): per group, every band's fastest and
/// fastest with no known problem.
fn highlights(groups: &[Grouped], bands: &[Recommendation]) -> Vec<Highlight> {
    let highlight = |group: &Grouped| {
        let key = &group.key;
        let named = bands.iter().filter(|band| band.band.holds(key)).flat_map(|band| {
            let careful = if let Careful::Behind { entry, .. } = &band.careful { Some(entry.id()) } else { None };
            band.speed.first().map(|first| first.id()).into_iter().chain(careful)
        });
        let named = named.map(ChannelId::of);
        Highlight { coord: key.clone(), channels: first_seen(named) }
    };
    groups.iter().map(highlight).collect()
}

/// One cell: its key, its samples and the figures computed from them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CellResult {
    /// A stable name, unique in the file: `runtime/mode/tasks=T/channel`, then `/setting`
    /// when the cell has one, then `/capacity=C` (`C/task` per task) when the file holds several
    /// capacities, or `/messages=M,capacity=C,workers=W` when another cell of the
    /// file has the same name but another workload. The benchmark name of the BMF and github-action exports.
    pub name: String,
    /// `multi-thread` or `current-thread`.
    pub runtime: RuntimeKind,
    /// `cloned-send` or `merged-recv`.
    pub mode: Mode,
    /// Sending tasks.
    pub tasks: u64,
    /// Channel name, as in `--list-channels`.
    pub channel: String,
    /// How merged-recv merged the receivers (`futures-buffered`, `select-all`, `stream-map`);
    /// absent in cloned-send.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merge: Option<Merge>,
    /// The channel as every report names it: `channel`, then ` via MERGE` when `merge` is not
    /// the default (`kanal via select-all`). For display: the fields above are the data.
    pub label: String,
    /// The channel's colour in every plot, `#rrggbb` (`results::colour`): plot.py draws with it.
    pub colour: String,
    /// Messages per sample; 0 for files without the column.
    pub messages: u64,
    /// The capacity's slots (`--capacity`, or `--task-capacity`'s per task: `capacity_label`
    /// says which); 0 for files without the column.
    pub capacity: u64,
    /// The capacity the cell is ranked at, in words (`1,024 slots`, `256 slots per task`): cells
    /// of different labels are never drawn on one line.
    pub capacity_label: String,
    /// Threads running tasks; 0 for files without the column.
    pub workers: u64,
    /// The machine the cell was measured on (`16 cores (Intel(R) Xeon(R) Processor)`), when
    /// the file holds runs of several; absent otherwise.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub machine: String,
    /// What else set the cell apart from a default run (payload, pacing, sink, latency,
    /// allocations), in words (`Setting`'s `Display`); empty for a default run. For display:
    /// `coord`'s setting is the data.
    pub setting: String,
    /// The setting in words with a paced cell's phase said either way (`paced 5 every 20ms,
    /// in phase, latency`): what plots and tables title a cell with.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phased_setting: String,
    /// The cell's place on every axis but the channel and the task count, as data: `runtime`,
    /// `workers`, `capacity` (`{"shared": N}` or `{"per-task": N}`), `mode`, `setting` (its
    /// fields; `{"send": "wait", "latency": false, "allocs": false}` for a default run) and
    /// `machine` (`cores` and `cpu`; 0 and empty when unknown). What plot.py groups panels and
    /// lines by; the words above title them.
    pub coord: Coord,
    /// Samples whose status is `ok` and that were not disturbed: the ones every figure below
    /// is computed from.
    pub ok: usize,
    /// Of `ok`, the samples stopped at their bound (CSV `bound_ns`): the channel was far behind
    /// its group's fastest, and these figures are over the messages taken by then; absent when
    /// none was.
    #[serde(skip_serializing_if = "is_zero")]
    pub bounded: usize,
    /// Samples that failed (any status other than `ok`).
    pub failed: usize,
    /// ns/message of the `ok` samples disturbed (`stats::disturbed`: a steal tick, a pacer late,
    /// CPU or switches far above the cell's others, a slow stretch of the sweep), in file order:
    /// left out of `ok` and of every figure; empty when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disturbed: Vec<f64>,
    /// The status of the first failed sample; absent when none failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_failure: Option<String>,
    /// Wall-clock nanoseconds per message; absent when no sample was ok. For a cell of several
    /// runs pooled, `trimmed_mean` and its interval are the figure every ranking reads (the
    /// geometric mean of the runs' trimmed means, its t interval from their spread), so that
    /// the plots and the tables show one figure; the rest are over the samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ns_per_message: Option<Figures>,
    /// The figures of each other [`Column`](super::column::Column), under its name
    /// (`cpu_ns_per_message`, `mb_per_s`, `lat_p50_ns`, `lat_p99_ns`, `lat_p999_ns`, `lat_max_ns`,
    /// `allocs_per_message`, `alloc_bytes_per_message`); absent where no `ok` sample has a value.
    #[serde(flatten)]
    pub figures: Columns<Option<Figures>>,
    /// The figures of a paced cell (`--pace`), over all its samples (`PacedCell`: the pooled
    /// p99, p99.9 and largest latency, the shares of frames overflowed and messages dropped,
    /// CPU per delivered message, the offered rate and its share of a core, the median
    /// resident growth, whether the pacer fell behind); absent when not paced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paced: Option<PacedCell>,
}

/// The per-cell results of `file`, read from the CSV named `csv`, with the figures `table` holds
/// of its cells.
pub fn cells(
    csv: &str,
    (file, table): (&ResultsFile, &Table),
    groups: &[Grouped],
    bands: &[Recommendation],
) -> CellsFile {
    let several_capacities = file.order.iter().any(|key| key.coord.capacity != file.order[0].coord.capacity);
    let several_machines = file.order.iter().any(|key| key.coord.machine != file.order[0].coord.machine);
    let name = |key: &CellKey| {
        let name = match several_capacities {
            true => format!("{}/capacity={}", short_name(key), capacity_slug(key.coord.capacity)),
            false => short_name(key),
        };
        if several_machines { format!("{}/{name}", key.coord.machine) } else { name }
    };
    let mut names: HashMap<String, usize> = HashMap::new();
    for key in &file.order {
        *names.entry(name(key)).or_default() += 1;
    }
    let unique = |key: &CellKey| Some(name(key)).filter(|name| names[name] == 1).unwrap_or_else(|| workload_name(key));
    let cells = file.order.iter().map(|key| cell(key, &file.cells[key], table.cell(key), unique(key))).collect();
    CellsFile {
        csv: csv.to_owned(),
        confidence: CONFIDENCE,
        skipped_partial_line: file.skipped_partial_line,
        fewest_samples: FEWEST_SAMPLES,
        cells,
        highlights: highlights(groups, bands),
    }
}

/// `runtime/mode/tasks=T/channel`, and `/setting` when there is one.
fn short_name(key: &CellKey) -> String {
    let (coord, channel) = (&key.coord, channel_label(&key.channel, key.merge));
    let name = format!("{}/{}/tasks={}/{channel}", coord.runtime, coord.mode, key.tasks);
    if key.coord.setting.is_default() { name } else { format!("{name}/{}", key.coord.setting) }
}

/// `1024`, or `256/task`: a capacity in a cell's name.
fn capacity_slug(capacity: Capacity) -> String {
    match capacity {
        Capacity::Shared(slots) => slots.to_string(),
        Capacity::PerTask(slots) => format!("{slots}/task"),
    }
}

/// [`short_name`] with the whole workload: unique where the file ran several of one cell.
fn workload_name(key: &CellKey) -> String {
    let (workload, capacity) = (key.workload(), capacity_slug(key.coord.capacity));
    format!("{}/messages={},capacity={capacity},workers={}", short_name(key), workload.messages, workload.workers)
}

/// One cell's results: its key, samples and `figures`, named `name`.
fn cell(key: &CellKey, samples: &CellSamples, figures: &CellFigures, name: String) -> CellResult {
    let workload = key.workload();
    CellResult {
        name,
        runtime: key.coord.runtime,
        mode: key.coord.mode,
        tasks: key.tasks,
        channel: key.channel.clone(),
        merge: key.merge,
        label: channel_label(&key.channel, key.merge),
        colour: colour::of(&key.channel).to_owned(),
        messages: workload.messages,
        capacity: workload.capacity.slots(),
        capacity_label: workload.capacity.to_string(),
        workers: workload.workers,
        machine: if key.coord.machine == MachineId::default() { String::new() } else { key.coord.machine.to_string() },
        setting: key.coord.setting.to_string(),
        phased_setting: key.coord.setting.phased(),
        coord: key.coord.clone(),
        ok: samples.ok.len(),
        bounded: samples.bounded,
        failed: samples.failed,
        disturbed: samples.disturbed.clone(),
        first_failure: samples.first_failure.as_ref().map(|status| status.text().to_owned()),
        ns_per_message: figures.speed.clone(),
        figures: figures.columns.clone(),
        paced: figures.paced.clone(),
    }
}

/// Whether a count is zero: a field left out of the JSON.
fn is_zero(count: &usize) -> bool {
    *count == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::column::Column;
    use crate::results::load::hand_made;

    #[test]
    fn each_cell_has_its_samples_median_interval_and_failures() {
        let file = hand_made(&[("kanal", 1, &[5.0, 1.0, 3.0, 2.0, 4.0], 0), ("flume", 8, &[10.0, 30.0], 2)]);
        let cells = cells("x.csv", (&file, &Table::of(&file)), &[], &[]);
        assert_eq!(cells.cells.len(), 2);
        let kanal = &cells.cells[0];
        assert_eq!(kanal.name, "multi-thread/cloned-send/tasks=1/kanal");
        let figures = kanal.ns_per_message.as_ref().unwrap();
        assert_eq!(figures.samples, [5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!((figures.median, figures.min, figures.max), (3.0, 1.0, 5.0));
        assert_eq!(figures.median_interval, Some([1.0, 5.0]));
        assert_eq!(kanal.figures[Column::CpuNsPerMessage].as_ref().unwrap().median, 6.0);
        assert!(kanal.figures[Column::LatP99].is_none());
        let flume = &cells.cells[1];
        assert_eq!((flume.ok, flume.failed), (2, 2));
        assert_eq!(flume.ns_per_message.as_ref().unwrap().median_interval, None);
        assert_eq!(flume.ns_per_message.as_ref().unwrap().trimmed_mean_band(), (10.0, 30.0));
    }

    #[test]
    fn a_cell_without_ok_samples_has_no_figures_and_names_are_unique() {
        let mut file = hand_made(&[("kanal", 1, &[], 3)]);
        let mut other = file.order[0].clone();
        (other.messages, other.coord.capacity, other.coord.workers) = (2000, Capacity::Shared(64), 2);
        file.order.push(other.clone());
        file.cells.insert(other, CellSamples { ok: vec![1.0], ..CellSamples::default() });
        let cells = cells("x.csv", (&file, &Table::of(&file)), &[], &[]);
        assert!(cells.cells[0].ns_per_message.is_none());
        // Two capacities name the capacity; the same capacity twice would name the whole workload.
        assert_eq!(cells.cells[0].name, "multi-thread/cloned-send/tasks=1/kanal/capacity=0");
        assert_eq!(cells.cells[1].name, "multi-thread/cloned-send/tasks=1/kanal/capacity=64");
        let json = serde_json::to_string(&cells.cells[0]).unwrap();
        assert!(!json.contains("ns_per_message") && json.contains("\"failed\":3"), "{json}");
    }
}

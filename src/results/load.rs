//! The one reader of channel-bench CSVs: rows into [`Record`]s, [`Record`]s into cells
//! known by one [`CellKey`]. `compare`, `summary` and the per-cell exports all read through it.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use anyhow::{Context, bail};

pub use super::channel::{ChannelId, channel_label};
use super::column::Columns;
use super::coord::Coord;
use super::memory::MemoryRow;
use super::metadata::MachineId;
use super::schema::{Record, SampleStatus};
use crate::run::latency::{Latency, Shared};
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Merge, Mode};
use crate::stats::disturbed::Why;

/// A cell: everything that sets its samples apart from another cell's. Two rows with equal
/// keys measured the same thing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellKey {
    /// The cell's group: its place on every axis but the channel and the task count.
    pub coord: Coord,
    /// Sending tasks.
    pub tasks: u64,
    /// Channel name, as in `--list-channels` (a user's own channel is welcome).
    pub channel: String,
    /// How merged-recv merged the receivers; `None` in cloned-send.
    pub merge: Option<Merge>,
    /// Messages per sample; 0 in files without the column.
    pub messages: u64,
    /// Whether these are the candidate build's samples beside the baseline's, in a paired A/B
    /// judged as one file (`results::ab`); false in every file read.
    pub candidate: bool,
}

/// The size of a run, which a comparison of two files expects to be the same in both: the
/// messages of a cell and the capacity and workers of its [`Coord`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkloadKey {
    /// Messages per sample; 0 in files without the column.
    pub messages: u64,
    /// The capacity the cell ran at; `Shared(0)` in files without the column.
    pub capacity: Capacity,
    /// Threads running tasks; 0 in files without the column.
    pub workers: u64,
}

impl CellKey {
    /// The sweep's group of this cell: the same place with any channel, the channels a round
    /// measures back to back (the key with the channel blanked; how they merged is kept).
    pub fn group(&self) -> CellKey {
        CellKey { channel: String::new(), ..self.clone() }
    }

    /// The key of one row.
    pub fn of(record: &Record) -> Self {
        CellKey {
            coord: Coord::of(record),
            tasks: record.tasks as u64,
            channel: record.channel.clone(),
            merge: record.merge,
            messages: record.messages,
            candidate: false,
        }
    }

    /// The size of the cell's run.
    pub fn workload(&self) -> WorkloadKey {
        WorkloadKey { messages: self.messages, capacity: self.coord.capacity, workers: self.coord.workers }
    }

    /// The same cell without its workload: no messages, the default capacity, no workers.
    pub fn without_workload(&self) -> CellKey {
        CellKey { coord: self.coord.without_workload(), messages: 0, ..self.clone() }
    }

    /// `runtime mode tasks=T channel`, then the setting in brackets when there is one.
    pub fn label(&self) -> String {
        self.label_with(&self.coord.setting.to_string())
    }

    /// [`label`](Self::label) with `setting` in words of the caller's choosing.
    pub fn label_with(&self, setting: &str) -> String {
        let setting = if setting.is_empty() { String::new() } else { format!(" [{setting}]") };
        format!("{} {} tasks={} {}{setting}", self.coord.runtime, self.coord.mode, self.tasks, self.channel_label())
    }

    /// The channel as reports name it: see [`channel_label`].
    pub fn channel_label(&self) -> String {
        channel_label(&self.channel, self.merge)
    }
}

/// The samples of one cell in one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellSamples {
    /// ns/message of the `ok` samples that every figure is computed from, in file order: all
    /// of them but the disturbed ones.
    pub ok: Vec<f64>,
    /// The round of each of `ok` (`Record::round`), in the same order; `None` in files
    /// without rounds.
    pub rounds: Vec<Option<u64>>,
    /// How many of `ok` were stopped at their bound (`Record::bound_ns`): the cell's figures
    /// are then labelled bounded.
    pub bounded: usize,
    /// ns/message of the `ok` samples disturbed (`stats::disturbed`: a steal tick, a pacer
    /// late, CPU or switches far above the cell's others, a slow stretch of the sweep), left out
    /// of `ok` and of every other list here.
    pub disturbed: Vec<f64>,
    /// Why each of `disturbed` was left out, in the same order.
    pub disturbed_why: Vec<Why>,
    /// How many samples failed.
    pub failed: usize,
    /// The first failed sample's status: a failure, or a refusal (the channel cannot run the
    /// cell, which is no failure of the channel's).
    pub first_failure: Option<SampleStatus>,
    /// Each [`Column`](super::column::Column) of the `ok` samples that have a value for it, in file order.
    pub columns: Columns<Vec<f64>>,
    /// When several runs were pooled (`results::pool`): the trimmed mean ns/message of each run
    /// that has `ok` samples of the cell, in the runs' order; empty for a single file.
    pub runs: Vec<f64>,
    /// What every `ok` sample of a paced cell recorded that was not disturbed
    /// (`results::paced` computes from them). Empty when the cell was not paced, or when every
    /// sample was disturbed.
    pub paced: Vec<PacedSample>,
    /// The percentiles of every delivered message of `paced` together (their histograms added
    /// up), pooled once the file's cells are complete ([`ResultsFile::pool_latencies`]), read
    /// by the cell's figures and by every p99 verdict; `None` without `--latency`.
    pub latency: Option<Latency>,
}

impl CellSamples {
    /// Adds one row of the cell: a failure, a disturbed sample (`disturbed`: why it is left
    /// out, `stats::disturbed`), or an `ok` sample to every list it has a value for.
    pub fn add(&mut self, mut record: Record, disturbed: Option<Why>) {
        if !record.status.is_ok() {
            self.failed += 1;
            self.first_failure.get_or_insert(record.status);
            return;
        }
        if let Some(why) = disturbed {
            self.disturbed.push(record.ns_per_message);
            self.disturbed_why.push(why);
            return;
        }
        self.paced.extend(PacedSample::of(&mut record));
        self.ok.push(record.ns_per_message);
        self.bounded += usize::from(record.bound_ns.is_some());
        self.rounds.push(record.round);
        self.columns.push_row(&record);
    }
}

/// What one `ok` sample of a paced cell recorded, as `results::paced` needs it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PacedSample {
    /// `pace_ns`: nanoseconds between a task's bursts.
    pub pace_ns: u64,
    /// `burst`: messages per burst.
    pub burst: u64,
    /// `messages`: sent, all tasks.
    pub sent: u64,
    /// `dropped`: messages dropped on a full channel.
    pub dropped: u64,
    /// `frames`: bursts sent, all tasks.
    pub frames: u64,
    /// `frames_overflowed`: bursts with a message dropped.
    pub frames_overflowed: u64,
    /// `cpu_ns` of the sample, when recorded.
    pub cpu_ns: Option<u64>,
    /// `lat_histogram`: the latency histogram, as the row's reader decoded it; `None` without
    /// `--latency`.
    pub lat_histogram: Option<Shared>,
    /// `resident_growth_bytes`, when recorded.
    pub resident_growth_bytes: Option<i64>,
    /// `pacer_behind`: the pacer could not keep up with the schedule.
    pub pacer_behind: bool,
    /// `lat_p99_ns`: the sample's own p99 latency, when recorded.
    pub p99_ns: Option<u64>,
    /// `round`: the round the sample was measured in, when recorded.
    pub round: Option<u64>,
}

impl PacedSample {
    /// The paced part of `record`, which gives up its histogram; `None` when it was not paced (a
    /// paced row records its burst, frames and pacer).
    fn of(record: &mut Record) -> Option<Self> {
        Some(PacedSample {
            pace_ns: record.pace_ns?,
            burst: u64::from(record.burst?),
            sent: record.messages,
            dropped: record.dropped,
            frames: record.frames?,
            frames_overflowed: record.frames_overflowed?,
            cpu_ns: record.cpu_ns,
            lat_histogram: record.lat_histogram.take(),
            resident_growth_bytes: record.resident_growth_bytes,
            pacer_behind: record.pacer_behind?,
            p99_ns: record.lat_p99_ns,
            round: record.round,
        })
    }

    /// CPU nanoseconds per delivered message; `None` without CPU time or a delivered message.
    pub fn cpu_per_delivered(&self) -> Option<f64> {
        Some(self.cpu_ns? as f64 / self.sent.checked_sub(self.dropped).filter(|&d| d > 0)? as f64)
    }
}

/// One file's cells, in the sweep's order ([`sweep_order`]).
#[derive(Debug, Clone, Default)]
pub struct ResultsFile {
    /// Cells in the sweep's order ([`sweep_order`]).
    pub order: Vec<CellKey>,
    /// Each cell's samples.
    pub cells: HashMap<CellKey, CellSamples>,
    /// Set when the file ended in a partial line (a run killed mid-write), which was skipped.
    pub skipped_partial_line: bool,
    /// How many runs were pooled into these cells (`results::pool`); 0 for a single file.
    pub runs: usize,
    /// How fast the machine was through the file's rounds, and its slow stretches; `None` for
    /// a file without readings of the machine (or too few rounds of them), and pooled files.
    pub machine: Option<MachineSpeed>,
    /// How long the benchmark's threads waited for a core, per runtime.
    pub waited: Waited,
    /// The rows of the memory sidecar beside the CSV (`results::memory::sidecar`), which the
    /// cells of their shape take as figures; empty without one.
    pub memory: Vec<MemoryRow>,
}

impl ResultsFile {
    /// Sets every cell's [`CellSamples::latency`] from its paced samples, once its samples are
    /// all in: when the file is read, and when runs are pooled.
    pub fn pool_latencies(&mut self) {
        for cell in self.cells.values_mut() {
            cell.latency = latency(&cell.paced);
        }
    }

    /// The same cells, each keyed on `machine`.
    pub fn on_machine(self, machine: &MachineId) -> ResultsFile {
        let key = |key: CellKey| CellKey { coord: Coord { machine: machine.clone(), ..key.coord }, ..key };
        let cells = self.cells.into_iter().map(|(k, cell)| (key(k), cell)).collect();
        ResultsFile { order: self.order.into_iter().map(key).collect(), cells, ..self }
    }

    /// The distinct workloads of the file's cells, in order.
    pub fn workloads(&self) -> Vec<WorkloadKey> {
        self.order.iter().map(CellKey::workload).collect::<BTreeSet<_>>().into_iter().collect()
    }

    /// Only the cells `keeps`, in the same order.
    pub fn only(mut self, keeps: impl Fn(&CellKey) -> bool) -> ResultsFile {
        self.order.retain(|key| keeps(key));
        self.cells.retain(|key, _| keeps(key));
        self
    }

    /// The same cells keyed without their workload, so that cells of two files that ran
    /// different workloads pair up; `None` when two cells of this file differ only by workload.
    pub fn without_workload(&self) -> Option<ResultsFile> {
        let mut file = ResultsFile { order: Vec::new(), cells: HashMap::new(), memory: Vec::new(), ..self.clone() };
        for key in &self.order {
            let stripped = key.without_workload();
            if file.cells.insert(stripped.clone(), self.cells[key].clone()).is_some() {
                return None;
            }
            file.order.push(stripped);
        }
        Some(file)
    }
}

/// The columns every channel-bench CSV has had; the others are optional to readers.
const REQUIRED: [&str; 6] = ["channel", "mode", "runtime", "tasks", "ns_per_message", "status"];

/// Reads a channel-bench CSV. A last line without its newline is a row cut off mid-write:
/// it is skipped and reported; any other malformed line, and a mode or runtime the binary does
/// not know, is an error naming the file and line. Channel names are not checked: a user's
/// own channel is welcome. The memory sidecar beside it is read too, when there is one.
pub fn load(path: &Path) -> anyhow::Result<ResultsFile> {
    let (rows, skipped_partial_line) = read_rows(path)?;
    Ok(ResultsFile { memory: super::memory::read_sidecar(path)?, ..file_of(rows, skipped_partial_line, Rounds::Own) })
}

/// Reads a paired A/B run's CSV (`channel-bench ab`) as one file per build: the rows whose
/// `build` is `builds[0]`, then those whose `build` is `builds[1]`. The two files' cells share
/// their keys, so a cell of one pairs with its cell in the other round by round.
pub fn load_builds(path: &Path, builds: [&str; 2]) -> anyhow::Result<[ResultsFile; 2]> {
    let (rows, skipped_partial_line) = read_rows(path)?;
    Ok(builds_of(&rows, builds, skipped_partial_line))
}

/// The cells of rows held in memory (a sweep's, as it writes them), as [`load`] reads them
/// back from the CSV they were written to.
pub fn of_rows(rows: &[Record]) -> ResultsFile {
    file_of(rows.to_vec(), false, Rounds::Own)
}

/// The cells of `rows` by build, as [`load_builds`] reads them: the rows of `builds[0]`, then
/// those of `builds[1]`, each build's rounds the one half of paired rounds (no round left out
/// for a slow machine: it slows both builds alike).
pub fn builds_of(rows: &[Record], builds: [&str; 2], skipped_partial_line: bool) -> [ResultsFile; 2] {
    let of_build = |build| rows.iter().filter(|row| row.build == build).cloned().collect();
    builds.map(|build| file_of(of_build(build), skipped_partial_line, Rounds::Paired))
}

/// The rows of the CSV at `path`, checked as [`load`] says, and whether a partial last line was skipped.
fn read_rows(path: &Path) -> anyhow::Result<(Vec<Record>, bool)> {
    let name = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let skipped_partial_line = !text.is_empty() && !text.ends_with('\n');
    let complete = &text[..text.rfind('\n').map_or(0, |at| at + 1)];
    if complete.trim().is_empty() {
        bail!("{name} is empty: not a channel-bench CSV");
    }
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(complete.as_bytes());
    let header = reader.headers().with_context(|| format!("{name} is not a CSV"))?.clone();
    let missing: Vec<&str> = REQUIRED.into_iter().filter(|wanted| !header.iter().any(|name| name == *wanted)).collect();
    if header.iter().eq(super::sidecar::HEADER) {
        bail!(
            "{name} is the latency sidecar of a run's CSV, not the CSV: give the CSV beside it, whose rows it completes"
        );
    }
    if header.iter().any(|column| column == "kept_bytes") {
        bail!(
            "{name} is a `channel-bench memory` CSV, not a sweep's: give the sweep's CSV, which reads its memory sidecar"
        );
    }
    if !missing.is_empty() {
        bail!("{name} is not a channel-bench CSV: no column {}", missing.join(", "));
    }
    let histogram_column = header.iter().position(|column| column == "lat_histogram");
    let mut rows = Vec::new();
    for row in reader.records() {
        let row = row.with_context(|| format!("{name} is not a CSV"))?;
        let line = row.position().map_or(0, |position| position.line());
        if row.len() != header.len() {
            bail!("{name} line {line}: {} fields where the header has {}", row.len(), header.len());
        }
        let mut record: Record = row
            .deserialize(Some(&header))
            .map_err(|error| anyhow::anyhow!("{name} line {line}: {}", field_error(&error, &header, &row)))?;
        if let Some(at) = histogram_column {
            record.lat_histogram = crate::run::latency::decode(&row[at])
                .map_err(|error| anyhow::anyhow!("{name} line {line}: {error}"))?;
        }
        if record.tasks == 0 {
            bail!("{name} line {line}: tasks \"0\" is not a positive integer");
        }
        if !(record.ns_per_message.is_finite() && record.ns_per_message >= 0.0) {
            bail!("{name} line {line}: ns_per_message {:?} is not a number", record.ns_per_message);
        }
        rows.push(record);
    }
    if rows.is_empty() {
        bail!("{name} has a header but no samples");
    }
    super::sidecar::attach(path, &mut rows)?;
    Ok((rows, skipped_partial_line))
}

mod left_out;
mod machine;

use left_out::Rounds;
pub use machine::{MachineSpeed, Waited};

/// `rows` as one file's cells.
fn file_of(rows: Vec<Record>, skipped_partial_line: bool, rounds: Rounds) -> ResultsFile {
    let keys: Vec<CellKey> = rows.iter().map(CellKey::of).collect();
    let (left_out, machine) = left_out::left_out_rows(&rows, &keys, rounds);
    let waited = Waited::of(&rows);
    let mut file = ResultsFile { skipped_partial_line, machine, waited, ..ResultsFile::default() };
    for ((record, key), why) in rows.into_iter().zip(keys).zip(left_out) {
        let cell = file.cells.entry(key.clone()).or_insert_with(|| {
            file.order.push(key);
            CellSamples::default()
        });
        cell.add(record, why);
    }
    sweep_order(&mut file.order);
    file.pool_latencies();
    file
}

/// What is wrong with a row serde could not read: `mode "x" is not one of cloned-send,
/// merged-recv` for a name the binary does not know, `tasks "x" is not a number`, or the csv
/// crate's own words when no field is to blame.
fn field_error(error: &csv::Error, header: &csv::StringRecord, row: &csv::StringRecord) -> String {
    let csv::ErrorKind::Deserialize { err, .. } = error.kind() else { return error.to_string() };
    match err.kind() {
        // serde says "unknown variant `x`, expected `a` or `b`" and leaves the field unset:
        // the column is the one holding `x`.
        csv::DeserializeErrorKind::Message(message) if message.starts_with("unknown variant") => {
            let quoted: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
            let Some((value, expected)) = quoted.split_first() else { return message.clone() };
            let column = row.iter().position(|field| field == *value).map_or("a column", |at| &header[at]);
            format!("{column} {value:?} is not one of {}", expected.join(", "))
        }
        _ => match err.field().map(|at| at as usize) {
            Some(at) => format!("{} {:?} is not a number", &header[at], &row[at]),
            None => error.to_string(),
        },
    }
}

/// Sorts cells as a sweep lists them, whatever order their rows came in (a sweep writes
/// them in shuffled passes): runtime and mode in the binary's order, task count ascending,
/// channels in `--list-channels` order (a channel the binary does not know after those);
/// cells equal in all of that keep their file order.
pub fn sweep_order(order: &mut [CellKey]) {
    fn position<T: PartialEq>(known: &[T], value: &T) -> usize {
        known.iter().position(|known| known == value).unwrap_or(usize::MAX)
    }
    let channels: Vec<&str> = crate::registry::known().map(|channel| channel.name).collect();
    order.sort_by_cached_key(|key| {
        (
            key.coord.machine.clone(),
            position(&RuntimeKind::ALL, &key.coord.runtime),
            key.coord.workers,
            key.tasks,
            position(&Mode::ALL, &key.coord.mode),
            position(&channels, &key.channel.as_str()),
        )
    });
}

/// The percentiles of every delivered message of `samples` together (their latency histograms
/// added up); `None` without `--latency`.
pub fn latency(samples: &[PacedSample]) -> Option<Latency> {
    Latency::of(&crate::run::latency::merge(samples.iter().filter_map(|sample| sample.lat_histogram.as_deref())))
}

#[cfg(test)]
pub(crate) fn hand_made_key(channel: &str, tasks: u64, setting: super::setting::Setting) -> CellKey {
    let coord = Coord { runtime: RuntimeKind::MultiThread, mode: Mode::ClonedSend, setting, ..Coord::default() };
    CellKey { coord, tasks, channel: channel.into(), merge: None, messages: 0, candidate: false }
}

/// A file of cloned-send, multi-thread cells made by hand: (channel, tasks, ok values,
/// failed samples); CPU time is twice the wall time; the i-th value of every cell was measured
/// in round i + 1. For unit tests.
#[cfg(test)]
pub(crate) fn hand_made(cells: &[(&str, u64, &[f64], usize)]) -> ResultsFile {
    let mut samples = ResultsFile::default();
    for &(channel, tasks, ok, failed) in cells {
        let key = hand_made_key(channel, tasks, super::setting::Setting::default());
        samples.order.push(key.clone());
        let mut columns = Columns::default();
        columns[super::column::Column::CpuNsPerMessage] = ok.iter().map(|v| v * 2.0).collect();
        let rounds = (1..=ok.len() as u64).map(Some).collect();
        let cell = CellSamples { ok: ok.to_vec(), rounds, failed, columns, ..CellSamples::default() };
        samples.cells.insert(key, cell);
    }
    samples
}

#[cfg(test)]
mod tests;

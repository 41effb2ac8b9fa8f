//! `channel-bench memory`'s results: its CSV row ([`MemoryRow`], the one owner of its columns)
//! and its answer ([`MemoryAnswer`]): per design and channel, the bytes at rest, at the peak and
//! kept, per channel instance and per slot, over the cells measured, and the channel that keeps
//! least. Beside a sweep's CSV `X.csv`, its rows are the memory sidecar `X.memory.csv`
//! ([`sidecar`]): each sweep cell of the same shape takes its row as a per-cell figure
//! ([`CellMemory`], in `figures::Table`), and each band of the speed answer names what its pick
//! keeps beside the channel that keeps least ([`BandMemory`]).

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::channel::ChannelId;
use super::coord::Coord;
use super::order::first_seen;
use super::schema::SampleStatus;
use crate::run::memory::{Footprint, MemoryCell};
use crate::run::workload::{Capacity, Mode, RecordBytes};

/// The memory sidecar's extension, replacing a sweep CSV's `.csv`: `X.memory.csv`.
pub const EXTENSION: &str = "memory.csv";

/// One row of a `channel-bench memory` CSV: one channel in one cell. Bytes are heap bytes
/// allocated and not yet freed (`run::allocs::LIVE`), all the cell's channel instances together,
/// counted from just before the first was made.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryRow {
    /// The channel (`--list-channels`).
    pub channel: String,
    /// Its crate's version, from the build's Cargo.lock.
    pub version: String,
    /// `cloned-send` (one channel, its sender cloned into every task) or `merged-recv` (one
    /// channel per task).
    pub mode: Mode,
    /// Sending tasks (senders).
    pub tasks: usize,
    /// Slots asked for (`--capacity`).
    pub capacity: usize,
    /// Slots of each channel instance: `capacity` in cloned-send, `capacity ÷ tasks` but at least 16 in merged-recv.
    pub capacity_per_channel: usize,
    /// Channel instances: 1 in cloned-send, `tasks` in merged-recv.
    pub channels: usize,
    /// What a message is (`--record-bytes`): `shared`, `48`, `256` or `1200`.
    pub record_bytes: RecordBytes,
    /// Bytes one message takes in a slot (`shared`: its 48-byte header and payload handle).
    pub slot_bytes: usize,
    /// Heap bytes once made and every sender cloned, nothing sent.
    pub rest_bytes: i64,
    /// The most heap bytes at any moment from creation until the burst (every slot filled
    /// while the receiver waits) was drained.
    pub peak_bytes: i64,
    /// Heap bytes once the burst was drained.
    pub drained_bytes: i64,
    /// Heap bytes after one more message per channel, sent and received: what is kept once idle.
    pub kept_bytes: i64,
    /// Heap bytes after every sender and receiver was dropped: 0 unless the crate keeps memory past its channels.
    pub after_drop_bytes: i64,
    /// `ok`, or why the figures do not count (a message lost, reordered or torn; a burst that
    /// did not fill exactly the slots asked for), or why the channel was not measured (refused).
    pub status: SampleStatus,
}

impl MemoryRow {
    /// The row of `channel` (crate `version`) in `cell`, as `footprint` measured it.
    pub fn new(channel: &str, version: String, cell: &MemoryCell, footprint: &Footprint) -> Self {
        Self {
            channel: channel.to_owned(),
            version,
            mode: cell.mode,
            tasks: cell.tasks,
            capacity: cell.capacity,
            capacity_per_channel: cell.workload().capacity_per_channel(),
            channels: cell.channels(),
            record_bytes: cell.record,
            slot_bytes: cell.record.slot_bytes(),
            rest_bytes: footprint.rest,
            peak_bytes: footprint.peak,
            drained_bytes: footprint.drained,
            kept_bytes: footprint.kept,
            after_drop_bytes: footprint.after_drop,
            status: SampleStatus::from(&footprint.status),
        }
    }

    /// Whether the figures count: every message delivered, the burst exactly the slots asked for.
    pub fn is_ok(&self) -> bool {
        self.status.is_ok()
    }

    /// Slots of every instance together.
    pub fn slots(&self) -> usize {
        self.capacity_per_channel * self.channels
    }

    /// The cell, apart from the channel.
    fn cell(&self) -> (Mode, usize, usize, RecordBytes) {
        (self.mode, self.tasks, self.capacity, self.record_bytes)
    }

    /// Whether this row measured the sweep cell of `channel` at `tasks` tasks and `coord`: its
    /// channel, design, tasks and kind of message, and the slots of its channels (the capacity
    /// asked when shared; each channel's with `--task-capacity`). The runtime, merge and pacing do
    /// not change what a channel holds.
    pub fn fits(&self, (channel, tasks, coord): Cell) -> bool {
        let slots = match coord.capacity {
            Capacity::Shared(slots) => self.capacity as u64 == slots,
            Capacity::PerTask(slots) => self.channels == self.tasks && self.capacity_per_channel as u64 == slots,
        };
        (self.channel.as_str(), self.mode, self.tasks as u64) == (channel, coord.mode, tasks)
            && self.record_bytes.by_value() == coord.setting.record_bytes
            && slots
    }
}

/// A sweep cell as a memory row is matched to it: its channel, task count and place.
pub type Cell<'a> = (&'a str, u64, &'a Coord);

/// The memory sidecar of the sweep CSV at `csv`.
pub fn sidecar(csv: &Path) -> PathBuf {
    csv.with_extension(EXTENSION)
}

/// The rows of the memory sidecar beside `csv`; none when there is none. A last line without
/// its newline (a run stopped mid-write) is skipped; a malformed line is an error naming the
/// sidecar and the line.
pub fn read_sidecar(csv: &Path) -> anyhow::Result<Vec<MemoryRow>> {
    let path = sidecar(csv);
    let name = path.display();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error).with_context(|| format!("cannot read {name}")),
    };
    let complete = &text[..text.rfind('\n').map_or(0, |at| at + 1)];
    let mut reader = csv::Reader::from_reader(complete.as_bytes());
    let rows = reader.deserialize::<MemoryRow>().map(|row| {
        row.map_err(|error| {
            let line = error.position().map_or(0, |position| position.line());
            let why = match error.kind() {
                csv::ErrorKind::Deserialize { err, .. } => err.to_string(),
                _ => error.to_string(),
            };
            anyhow::anyhow!(
                "{name} line {line} is not a `channel-bench memory` row ({why}): move it away, or measure it again \
                 with `channel-bench memory --sweep {} --force`",
                csv.display()
            )
        })
    });
    rows.collect()
}

/// What one sweep cell's channels hold, from its memory row ([`MemoryRow::fits`], measured
/// ok): a per-cell figure of `figures::Table`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CellMemory {
    /// Heap bytes at rest, every channel instance of the cell together.
    pub rest_bytes: i64,
    /// Heap bytes at the burst's peak.
    pub peak_bytes: i64,
    /// Heap bytes kept once idle again after the burst.
    pub kept_bytes: i64,
    /// Slots of every instance together: what the per-slot figures divide by.
    pub slots: usize,
}

impl CellMemory {
    /// The figures of the row of `rows` that measured `cell` ok; `None` when none did.
    pub fn of(rows: &[MemoryRow], cell: Cell) -> Option<Self> {
        let row = rows.iter().find(|row| row.is_ok() && row.fits(cell))?;
        let (rest_bytes, peak_bytes, kept_bytes) = (row.rest_bytes, row.peak_bytes, row.kept_bytes);
        Some(CellMemory { rest_bytes, peak_bytes, kept_bytes, slots: row.slots() })
    }

    /// `bytes` (one of this cell's) per slot held.
    pub fn per_slot(&self, bytes: i64) -> f64 {
        bytes as f64 / self.slots.max(1) as f64
    }
}

/// What one channel of a band keeps: at each of the band's task counts, in its order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Kept {
    /// The channel, written as the band's ranking names it (`kanal`, `kanal via select-all`).
    #[serde(serialize_with = "written")]
    pub channel: ChannelId,
    /// Heap bytes kept after the burst, every channel instance of the cell together.
    pub kept_bytes: Vec<i64>,
    /// The same per slot held.
    pub kept_bytes_per_slot: Vec<f64>,
}

impl Kept {
    fn of(channel: ChannelId, cells: &[CellMemory]) -> Self {
        let kept_bytes_per_slot = cells.iter().map(|cell| cell.per_slot(cell.kept_bytes)).collect();
        Kept { channel, kept_bytes: cells.iter().map(|cell| cell.kept_bytes).collect(), kept_bytes_per_slot }
    }

    /// The kept bytes over the band's task counts together: what [`BandMemory::least`] compares.
    pub fn total(&self) -> i64 {
        self.kept_bytes.iter().sum()
    }
}

/// `channel` as its `Display` writes it.
fn written<S: serde::Serializer>(channel: &ChannelId, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(channel)
}

/// One band's memory, beside its speed answer: what the pick keeps, and the channel that keeps
/// least.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BandMemory {
    /// The band's pick (the first of its speed ranking) and what it keeps; `None` without a pick,
    /// or when a cell of it has no memory row measured ok.
    pub pick: Option<Kept>,
    /// Of the band's channels with a memory row measured ok at each of its task counts, the one
    /// that keeps least over them together (the first of a tie, in the order given); `None`
    /// when none has.
    pub least: Option<Kept>,
}

impl BandMemory {
    /// The memory of a band of `channels`: each channel and its cells' memory at the
    /// band's task counts, in order (`None` where a cell has none, or the channel has no cell
    /// there); its pick is the `pick`th of them.
    pub fn of(pick: Option<usize>, channels: impl IntoIterator<Item = (ChannelId, Vec<Option<CellMemory>>)>) -> Self {
        let measured = channels.into_iter().enumerate().filter_map(|(at, (channel, cells))| {
            let cells: Vec<CellMemory> = cells.into_iter().collect::<Option<_>>()?;
            Some((at, Kept::of(channel, &cells)))
        });
        let measured: Vec<(usize, Kept)> = measured.collect();
        let pick = pick.and_then(|pick| measured.iter().find(|(at, _)| *at == pick).map(|(_, kept)| kept.clone()));
        // `min_by_key` keeps the first of a tie.
        let least = measured.into_iter().map(|(_, kept)| kept).min_by_key(Kept::total);
        BandMemory { pick, least }
    }
}

/// The lowest and highest of a figure over a channel's cells.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Range {
    /// The lowest.
    pub min: f64,
    /// The highest.
    pub max: f64,
}

impl Range {
    /// The lowest and highest of `values`; `None` without any.
    pub fn of(values: impl Iterator<Item = f64>) -> Option<Self> {
        values.fold(None, |range, value| match range {
            None => Some(Range { min: value, max: value }),
            Some(Range { min, max }) => Some(Range { min: min.min(value), max: max.max(value) }),
        })
    }
}

/// One moment's bytes over a channel's ok cells: per channel instance and per slot.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Moment {
    /// Bytes ÷ channel instances.
    pub per_channel: Range,
    /// Bytes ÷ slots held.
    pub per_slot: Range,
}

/// One channel of one design, over its ok cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChannelMemory {
    /// The channel.
    pub channel: String,
    /// Cells measured ok.
    pub ok_cells: usize,
    /// Cells measured, ok or not.
    pub cells: usize,
    /// At rest; `None` without an ok cell.
    pub rest: Option<Moment>,
    /// At the burst's peak.
    pub peak: Option<Moment>,
    /// Kept after the burst.
    pub kept: Option<Moment>,
    /// Kept bytes summed over the cells every channel of the design measured ok: what
    /// [`DesignMemory::least`] compares.
    pub kept_in_common: Option<i64>,
}

/// One design's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DesignMemory {
    /// The design.
    pub mode: Mode,
    /// Each channel, in the order measured.
    pub channels: Vec<ChannelMemory>,
    /// Cells every channel of the design measured ok.
    pub common_cells: usize,
    /// The channel that keeps least over those cells (the first measured of a tie); `None`
    /// when there are none.
    pub least: Option<String>,
}

/// The answer of a `channel-bench memory` run: one [`DesignMemory`] per design measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryAnswer {
    /// The designs, cloned-send first.
    pub designs: Vec<DesignMemory>,
}

impl MemoryAnswer {
    /// The answer of `rows`.
    pub fn of(rows: &[MemoryRow]) -> Self {
        let modes: std::collections::BTreeSet<Mode> = rows.iter().map(|row| row.mode).collect();
        Self { designs: modes.into_iter().map(|mode| design(mode, rows)).collect() }
    }
}

fn design(mode: Mode, rows: &[MemoryRow]) -> DesignMemory {
    let rows: Vec<&MemoryRow> = rows.iter().filter(|row| row.mode == mode).collect();
    let names = first_seen(rows.iter().map(|row| row.channel.as_str()));
    let common: Vec<_> = (first_seen(rows.iter().map(|row| row.cell())).into_iter())
        .filter(|cell| {
            names.iter().all(|name| rows.iter().any(|row| row.channel == *name && row.cell() == *cell && row.is_ok()))
        })
        .collect();
    let channels: Vec<ChannelMemory> = (names.iter())
        .map(|name| {
            let own: Vec<&MemoryRow> = rows.iter().copied().filter(|row| row.channel == *name).collect();
            let ok: Vec<&MemoryRow> = own.iter().copied().filter(|row| row.is_ok()).collect();
            let moment = |bytes: fn(&MemoryRow) -> i64| {
                Some(Moment {
                    per_channel: Range::of(ok.iter().map(|row| bytes(row) as f64 / row.channels as f64))?,
                    per_slot: Range::of(ok.iter().map(|row| bytes(row) as f64 / row.slots() as f64))?,
                })
            };
            let in_common = ok.iter().filter(|row| common.contains(&row.cell()));
            ChannelMemory {
                channel: (*name).to_owned(),
                ok_cells: ok.len(),
                cells: own.len(),
                rest: moment(|row| row.rest_bytes),
                peak: moment(|row| row.peak_bytes),
                kept: moment(|row| row.kept_bytes),
                kept_in_common: (!common.is_empty()).then(|| in_common.map(|row| row.kept_bytes).sum()),
            }
        })
        .collect();
    // `min_by_key` keeps the first measured of a tie.
    let least = channels.iter().filter_map(|channel| Some((channel.kept_in_common?, &channel.channel)));
    let least = least.min_by_key(|(kept, _)| *kept).map(|(_, name)| name.clone());
    DesignMemory { mode, channels, common_cells: common.len(), least }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(channel: &str, mode: Mode, tasks: usize, rest: i64, kept: i64, status: &str) -> MemoryRow {
        let cell = MemoryCell { mode, tasks, capacity: 1024, record: RecordBytes::B48 };
        let footprint = Footprint {
            rest,
            peak: 2 * rest.max(kept),
            drained: kept,
            kept,
            after_drop: 0,
            burst: 1024,
            status: crate::run::verify::Status::Ok,
        };
        MemoryRow { status: SampleStatus::of(status), ..MemoryRow::new(channel, "1.0.0".to_owned(), &cell, &footprint) }
    }

    #[test]
    fn the_answer_gives_each_channel_its_range_per_instance_and_per_slot() {
        let rows = [
            row("a", Mode::MergedRecv, 4, 4096, 8192, "ok"),
            row("a", Mode::MergedRecv, 64, 65_536, 131_072, "ok"),
            row("b", Mode::MergedRecv, 4, 400, 40, "ok"),
            row("b", Mode::MergedRecv, 64, 6400, 640, "lost: 1 of 1024 messages missing"),
        ];
        let answer = MemoryAnswer::of(&rows);
        let design = &answer.designs[0];
        assert_eq!(design.mode, Mode::MergedRecv);
        let a = &design.channels[0];
        // 4 channels of 256 slots, then 64 of 16.
        assert_eq!(a.rest.unwrap().per_channel, Range { min: 1024.0, max: 1024.0 });
        assert_eq!(a.rest.unwrap().per_slot, Range { min: 4.0, max: 64.0 });
        assert_eq!(a.kept.unwrap().per_channel, Range { min: 2048.0, max: 2048.0 });
        let b = &design.channels[1];
        assert_eq!((b.ok_cells, b.cells), (1, 2));
        assert_eq!(b.kept.unwrap().per_slot, Range { min: 40.0 / 1024.0, max: 40.0 / 1024.0 });
        // Only the cell both measured ok is compared.
        assert_eq!(design.common_cells, 1);
        assert_eq!((a.kept_in_common, b.kept_in_common), (Some(8192), Some(40)));
        assert_eq!(design.least.as_deref(), Some("b"));
    }

    #[test]
    fn each_design_is_answered_on_its_own_and_a_tie_goes_to_the_first_measured() {
        let rows = [
            row("a", Mode::ClonedSend, 1, 100, 50, "ok"),
            row("b", Mode::ClonedSend, 1, 100, 50, "ok"),
            row("b", Mode::MergedRecv, 1, 100, 50, "ok"),
            row("a", Mode::MergedRecv, 1, 100, 60, "ok"),
        ];
        let answer = MemoryAnswer::of(&rows);
        let least: Vec<_> = answer.designs.iter().map(|design| (design.mode, design.least.clone())).collect();
        assert_eq!(least, [(Mode::ClonedSend, Some("a".to_owned())), (Mode::MergedRecv, Some("b".to_owned()))]);
        let none = MemoryAnswer::of(&[row("a", Mode::ClonedSend, 1, 1, 1, "lost: 1")]);
        assert_eq!((none.designs[0].common_cells, none.designs[0].least.clone()), (0, None));
    }

    #[test]
    fn a_row_fits_the_sweep_cell_of_its_channel_design_tasks_slots_and_message() {
        let coord = Coord { capacity: Capacity::Shared(1024), ..Coord::default() };
        let key = ("kanal", 8, &coord);
        let shared = |row: MemoryRow| MemoryRow { record_bytes: RecordBytes::Shared, ..row };
        assert!(shared(row("kanal", Mode::ClonedSend, 8, 1, 1, "ok")).fits(key));
        assert!(!row("kanal", Mode::ClonedSend, 8, 1, 1, "ok").fits(key), "48-byte records, not the shared message");
        assert!(!shared(row("kanal", Mode::MergedRecv, 8, 1, 1, "ok")).fits(key));
        assert!(!shared(row("kanal", Mode::ClonedSend, 1, 1, 1, "ok")).fits(key));
        assert!(!shared(row("flume", Mode::ClonedSend, 8, 1, 1, "ok")).fits(key));
        assert!(!shared(MemoryRow { capacity: 64, ..row("kanal", Mode::ClonedSend, 8, 1, 1, "ok") }).fits(key));
        let failed = shared(row("kanal", Mode::ClonedSend, 8, 1, 1, "lost: 1"));
        assert_eq!(CellMemory::of(&[failed], key), None, "a row that failed is no figure");
        let ok = shared(row("kanal", Mode::ClonedSend, 8, 300, 2048, "ok"));
        let memory = CellMemory::of(&[ok], key).unwrap();
        assert_eq!((memory.rest_bytes, memory.peak_bytes, memory.kept_bytes, memory.slots), (300, 4096, 2048, 1024));
        assert_eq!(memory.per_slot(memory.kept_bytes), 2.0);
    }

    #[test]
    fn the_sidecar_reads_back_its_rows_typed_and_says_which_line_is_bad() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("x.csv");
        assert_eq!(read_sidecar(&csv).unwrap(), [], "no sidecar, no rows");
        let rows = [row("a", Mode::MergedRecv, 4, 1, 2, "ok"), row("b", Mode::ClonedSend, 1, 3, 4, "lost: 1 of 4")];
        let mut writer = csv::Writer::from_writer(Vec::new());
        rows.iter().for_each(|row| writer.serialize(row).unwrap());
        let text = String::from_utf8(writer.into_inner().unwrap()).unwrap();
        std::fs::write(sidecar(&csv), format!("{text}a,1.0")).unwrap();
        let read = read_sidecar(&csv).unwrap();
        assert_eq!(read, rows, "the partial last line is skipped");
        assert_eq!(read[1].status, SampleStatus::Failed("lost: 1 of 4".to_owned()));
        std::fs::write(sidecar(&csv), format!("{text}a,1.0,sideways\n")).unwrap();
        let error = read_sidecar(&csv).unwrap_err().to_string();
        assert!(error.contains("x.memory.csv line 4 is not a `channel-bench memory` row"), "{error}");
    }

    #[test]
    fn a_band_names_what_its_pick_keeps_and_the_channel_that_keeps_least() {
        let id = |name: &str| ChannelId::of((name, None));
        let cell = |kept| Some(CellMemory { rest_bytes: 0, peak_bytes: 0, kept_bytes: kept, slots: 64 });
        let channels = [
            (id("kanal"), vec![cell(6400), cell(6400)]),
            (id("flume"), vec![cell(100), None]),
            (id("tokio-mpsc"), vec![cell(3200), cell(640)]),
            (id("loole"), vec![cell(1920), cell(1920)]),
        ];
        let band = BandMemory::of(Some(0), channels.clone());
        let pick = band.pick.unwrap();
        assert_eq!((pick.channel.name.as_str(), pick.kept_bytes.as_slice()), ("kanal", &[6400, 6400][..]));
        assert_eq!(pick.kept_bytes_per_slot, [100.0, 100.0]);
        // flume keeps least where it was measured, but not at every task count of the band; of
        // the others tokio-mpsc's 3,840 bytes tie loole's, and tokio-mpsc comes first.
        let least = band.least.unwrap();
        assert_eq!((least.channel.name.as_str(), least.total()), ("tokio-mpsc", 3840));
        let unmeasured = BandMemory::of(Some(1), channels);
        assert_eq!(unmeasured.pick, None, "the pick has no row at one task count");
        assert_eq!(BandMemory::of(None, []), BandMemory::default());
    }
}

//! `channel-bench memory`'s results: its CSV row ([`MemoryRow`], the one owner of its columns)
//! and its answer ([`MemoryAnswer`]): per design and channel, the bytes at rest, at the peak and
//! kept, per channel instance and per slot, over the cells measured, and the channel that keeps
//! least.

use serde::{Deserialize, Serialize};

use super::recommend::Recommendation;
use crate::run::memory::{Footprint, MemoryCell};
use crate::run::workload::{Mode, RecordBytes};

/// One row of a `channel-bench memory` CSV: one channel in one cell. Bytes are heap bytes
/// allocated and not yet freed (`run::allocs::LIVE`), all the cell's channel instances together,
/// counted from just before the first was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// did not fill exactly the slots asked for).
    pub status: String,
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
            status: footprint.status.to_string(),
        }
    }

    /// Whether the figures count: every message delivered, the burst exactly the slots asked for.
    pub fn is_ok(&self) -> bool {
        self.status == "ok"
    }

    /// Slots of every instance together.
    pub fn slots(&self) -> usize {
        self.capacity_per_channel * self.channels
    }

    /// The cell, apart from the channel.
    fn cell(&self) -> (Mode, usize, usize, RecordBytes) {
        (self.mode, self.tasks, self.capacity, self.record_bytes)
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
    fn of(values: impl Iterator<Item = f64>) -> Option<Self> {
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
    /// The sweep's fastest channels of the design (`memory --sweep CSV`), most bands first;
    /// empty without a sweep.
    pub fastest: Vec<Fastest>,
}

/// A channel that leads bands of a sweep's speed answer (`memory --sweep CSV`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fastest {
    /// The channel, first of its bands' speed ranking.
    pub channel: String,
    /// The bands of the design it leads.
    pub bands: usize,
    /// The design's bands with a leader.
    pub of: usize,
}

/// Per design, the channels that lead the bands of a sweep's speed answer (`recommendations`),
/// those that lead most first (the first found of a tie).
pub fn fastest(recommendations: &[Recommendation]) -> Vec<(Mode, Vec<Fastest>)> {
    let mut designs: Vec<(Mode, Vec<Fastest>)> = Vec::new();
    for recommendation in recommendations {
        let Some(first) = recommendation.speed.first() else { continue };
        let mode = recommendation.band.coord.mode;
        let at = designs.iter().position(|(each, _)| *each == mode).unwrap_or_else(|| {
            designs.push((mode, Vec::new()));
            designs.len() - 1
        });
        let leaders = &mut designs[at].1;
        match leaders.iter_mut().find(|leader| leader.channel == first.channel) {
            Some(leader) => leader.bands += 1,
            None => leaders.push(Fastest { channel: first.channel.clone(), bands: 1, of: 0 }),
        }
    }
    for (_, leaders) in &mut designs {
        let of = leaders.iter().map(|leader| leader.bands).sum();
        leaders.iter_mut().for_each(|leader| leader.of = of);
        leaders.sort_by_key(|leader| std::cmp::Reverse(leader.bands));
    }
    designs
}

/// The answer of a `channel-bench memory` run: one [`DesignMemory`] per design measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryAnswer {
    /// The designs, cloned-send first.
    pub designs: Vec<DesignMemory>,
}

impl MemoryAnswer {
    /// The answer of `rows`, each design beside its fastest channels in a sweep (`fastest`, by
    /// design; empty without one).
    pub fn of(rows: &[MemoryRow], fastest: &[(Mode, Vec<Fastest>)]) -> Self {
        let mut modes: Vec<Mode> = rows.iter().map(|row| row.mode).collect();
        modes.sort();
        modes.dedup();
        let leaders = |mode: Mode| fastest.iter().find(|(each, _)| *each == mode).map(|(_, leaders)| leaders.clone());
        let designs = modes
            .into_iter()
            .map(|mode| DesignMemory { fastest: leaders(mode).unwrap_or_default(), ..design(mode, rows) });
        Self { designs: designs.collect() }
    }
}

fn design(mode: Mode, rows: &[MemoryRow]) -> DesignMemory {
    let rows: Vec<&MemoryRow> = rows.iter().filter(|row| row.mode == mode).collect();
    let mut names: Vec<&str> = Vec::new();
    for row in &rows {
        if !names.contains(&row.channel.as_str()) {
            names.push(&row.channel);
        }
    }
    let mut cells: Vec<_> = rows.iter().map(|row| row.cell()).collect();
    cells.sort();
    cells.dedup();
    let common: Vec<_> = (cells.into_iter())
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
    let least = (channels.iter())
        .filter_map(|channel| Some((channel.kept_in_common?, &channel.channel)))
        .fold(None, |least: Option<(i64, &String)>, (kept, name)| match least {
            Some((lowest, _)) if lowest <= kept => least,
            _ => Some((kept, name)),
        })
        .map(|(_, name)| name.clone());
    DesignMemory { mode, channels, common_cells: common.len(), least, fastest: Vec::new() }
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
        MemoryRow { status: status.to_owned(), ..MemoryRow::new(channel, "1.0.0".to_owned(), &cell, &footprint) }
    }

    #[test]
    fn the_answer_gives_each_channel_its_range_per_instance_and_per_slot() {
        let rows = [
            row("a", Mode::MergedRecv, 4, 4096, 8192, "ok"),
            row("a", Mode::MergedRecv, 64, 65_536, 131_072, "ok"),
            row("b", Mode::MergedRecv, 4, 400, 40, "ok"),
            row("b", Mode::MergedRecv, 64, 6400, 640, "lost: 1 of 1024 messages missing"),
        ];
        let answer = MemoryAnswer::of(&rows, &[]);
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
    fn a_sweeps_fastest_are_its_bands_leaders_counted_per_design() {
        use crate::results::analysis::Analysis;
        use crate::results::load::hand_made;
        let ten = [10.0, 10.1, 9.9, 10.0, 10.2, 9.8];
        let twenty = [20.0, 20.1, 19.9, 20.0, 20.2, 19.8];
        let file = hand_made(&[
            ("kanal", 1, &ten, 0),
            ("flume", 1, &twenty, 0),
            ("kanal", 64, &twenty, 0),
            ("flume", 64, &ten, 0),
            ("kanal", 512, &ten, 0),
            ("flume", 512, &twenty, 0),
        ]);
        let leaders = fastest(&Analysis::of("x.csv", &file, None).bands);
        let kanal = Fastest { channel: "kanal".to_owned(), bands: 2, of: 3 };
        let flume = Fastest { channel: "flume".to_owned(), bands: 1, of: 3 };
        assert_eq!(leaders, [(Mode::ClonedSend, vec![kanal, flume])]);
        let rows = [row("kanal", Mode::ClonedSend, 1, 1, 1, "ok"), row("kanal", Mode::MergedRecv, 1, 1, 1, "ok")];
        let answer = MemoryAnswer::of(&rows, &leaders);
        assert_eq!(answer.designs[0].fastest, leaders[0].1);
        assert!(answer.designs[1].fastest.is_empty(), "the sweep measured no merged-recv");
    }

    #[test]
    fn each_design_is_answered_on_its_own_and_a_tie_goes_to_the_first_measured() {
        let rows = [
            row("a", Mode::ClonedSend, 1, 100, 50, "ok"),
            row("b", Mode::ClonedSend, 1, 100, 50, "ok"),
            row("b", Mode::MergedRecv, 1, 100, 50, "ok"),
            row("a", Mode::MergedRecv, 1, 100, 60, "ok"),
        ];
        let answer = MemoryAnswer::of(&rows, &[]);
        let least: Vec<_> = answer.designs.iter().map(|design| (design.mode, design.least.clone())).collect();
        assert_eq!(least, [(Mode::ClonedSend, Some("a".to_owned())), (Mode::MergedRecv, Some("b".to_owned()))]);
        let none = MemoryAnswer::of(&[row("a", Mode::ClonedSend, 1, 1, 1, "lost: 1")], &[]);
        assert_eq!((none.designs[0].common_cells, none.designs[0].least.clone()), (0, None));
    }
}

//! Where capacity, the machine, the batch or the record size matters: a band measured at several
//! places on an [`Axis`], read across them from the rankings `recommend` made at each
//! ([`across`]). No new statistic: every ratio is a verdict one place's ranking holds.

use std::collections::BTreeSet;

use serde::Serialize;

use super::band::{Band, Contender};
use super::careful::known_problem;
use super::metadata::MachineId;
use super::recommend::{Entry, Recommendation};
use super::setting::Setting;
use crate::run::workload::Capacity;
use crate::stats::verdict::{Call, Verdict};

/// What an answer is read across: the capacities of one machine, the machines, the batches
/// the receiver took, or the kinds of message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// The capacities a machine measured a band at.
    Capacity,
    /// The machines that measured a band at one capacity, whatever their worker counts.
    Machine,
    /// The batches (`--batch`) a band was measured at.
    Batch,
    /// The kinds of message (`--record-bytes`) a band was measured with.
    Record,
}

impl Axis {
    /// Every axis, in the order the reports read them.
    pub const ALL: [Axis; 4] = [Axis::Machine, Axis::Capacity, Axis::Batch, Axis::Record];

    /// How the answer says and keys this axis: the one place its words are declared.
    pub fn words(self) -> &'static AxisWords {
        &WORDS[self as usize]
    }
}

/// Each axis's words, in [`Axis`]'s order.
const WORDS: [AxisWords; 4] = [
    AxisWords {
        always_in_json: true,
        keeps_capacity: false,
        ..AxisWords::at("capacity", "capacity", "capacities", "capacity")
    },
    AxisWords {
        preposition: "on",
        place_preposition: "on",
        keeps_workers: false,
        tally: true,
        ..AxisWords::at("the machine", "machine", "machines", "machine")
    },
    AxisWords::at("the batch", "batch", "batches", "batch"),
    AxisWords { place_preposition: "with", ..AxisWords::at("the record size", "size", "records", "record_bytes") },
];

impl AxisWords {
    /// The words of an axis whose places are `at` one, which keeps the workers and the
    /// capacity, counts no changes and is in the JSON only when a band is read across it.
    const fn at(what: &'static str, noun: &'static str, json_key: &'static str, place_key: &'static str) -> Self {
        AxisWords {
            what,
            noun,
            preposition: "at",
            place_preposition: "at",
            json_key,
            place_key,
            always_in_json: false,
            keeps_workers: true,
            keeps_capacity: true,
            tally: false,
        }
    }
}

/// How an [`Axis`] is said and keyed in every output: the console and the page (`output::across`,
/// `output::matrix`) and the answer's JSON (`output::answer`) read these fields and nothing else
/// of the axis.
#[derive(Debug, PartialEq, Eq)]
pub struct AxisWords {
    /// What the axis is, in a sentence: `the machine` (`where the machine matters`, `the pick
    /// changes with the machine`).
    pub what: &'static str,
    /// One place of it, as a noun: `machine`, `size` (`each size's pick`, `the other size's pick`).
    pub noun: &'static str,
    /// The preposition before the noun: `on` (`on every machine`), `at` (`at that size`).
    pub preposition: &'static str,
    /// The preposition before a place: `on 16 cores`, `at a batch of 64`, `with shared messages`.
    pub place_preposition: &'static str,
    /// The answer JSON's key of the bands read across the axis: `machines`.
    pub json_key: &'static str,
    /// The key of a place in those bands' picks: `machine`, `record_bytes`.
    pub place_key: &'static str,
    /// Whether the JSON holds [`AxisWords::json_key`] when no band is read across the axis (an
    /// empty list): `capacities`, read by scripts since before the other axes.
    pub always_in_json: bool,
    /// Whether a band read across the axis runs at one worker count, said with it: not across
    /// machines, where each runs its own (its cores by default); the JSON's `workers` is null.
    pub keeps_workers: bool,
    /// Whether a band read across the axis is at one capacity, said with it: not across
    /// capacities; the JSON's bands across capacities have no `capacity`.
    pub keeps_capacity: bool,
    /// Whether reports count, per runtime, the bands whose pick changes along the axis (the
    /// machines: `the pick changes with the machine in 8 of 12 multi-thread bands`).
    pub tally: bool,
}

/// One place on an [`Axis`]: a capacity, a machine, a batch or a kind of message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum At {
    /// A capacity.
    Capacity(Capacity),
    /// A machine.
    Machine(MachineId),
    /// The most messages the receiver took per wake-up.
    Batch(usize),
    /// The bytes of a record moved by value; `None` (null in the JSON) for the shared message.
    Record(Option<u32>),
}

impl std::fmt::Display for At {
    /// `1,024 slots`; `16 cores (Intel(R) Xeon(R) Processor)`; `a batch of 64`; `1200-byte
    /// records by value`, `shared messages`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Capacity(capacity) => capacity.fmt(f),
            At::Machine(machine) => machine.fmt(f),
            At::Batch(batch) => write!(f, "a batch of {batch}"),
            At::Record(Some(bytes)) => write!(f, "{bytes}-byte records by value"),
            At::Record(None) => f.write_str("shared messages"),
        }
    }
}

impl At {
    /// The place in words ([`At`]'s `Display`), a machine by its cores alone when `by_cores`.
    pub fn text(&self, by_cores: bool) -> String {
        if let At::Machine(machine) = self { machine.named(by_cores) } else { self.to_string() }
    }

    /// The machine's cores, for a place on the machine axis.
    pub fn cores(&self) -> Option<usize> {
        if let At::Machine(machine) = self { Some(machine.cores) } else { None }
    }
}

impl Axis {
    /// Where `band` stands on this axis, when the file names it there.
    fn of(self, band: &Band) -> Option<At> {
        match self {
            Axis::Capacity => band.named_capacity().map(At::Capacity),
            Axis::Machine => band.machine().cloned().map(At::Machine),
            Axis::Batch => Some(At::Batch(band.coord.setting.batch.unwrap_or(1))),
            Axis::Record => Some(At::Record(band.coord.setting.record_bytes)),
        }
    }

    /// `band` with its place on this axis and its task counts taken out: the same runtime,
    /// mode, setting and size, and across capacities, batches or kinds of message the same
    /// workers and machine, across machines the same capacity, whatever the worker count (a
    /// machine's default is its cores).
    fn rest(self, band: &Band) -> Band {
        let (words, mut coord) = (self.words(), band.coord.clone());
        match self {
            Axis::Capacity => coord.capacity = Capacity::default(),
            Axis::Machine => coord.machine = MachineId::default(),
            Axis::Batch => coord.setting.batch = None,
            Axis::Record => coord.setting.record_bytes = None,
        }
        if !words.keeps_workers {
            coord.workers = 0;
        }
        Band {
            coord,
            names_workers: band.names_workers && words.keeps_workers,
            names_capacity: band.names_capacity && words.keeps_capacity,
            names_machine: band.names_machine && self != Axis::Machine,
            size: band.size,
            tasks: Vec::new(),
        }
    }
}

/// One band (runtime, mode, setting, task counts, and the machine or the capacity that is not
/// the axis) at every place on the axis the file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Across {
    /// The axis.
    pub axis: Axis,
    /// The band, as the first place's ranking names it.
    pub band: Band,
    /// Each place's pick (the fastest), in file order.
    pub picks: Vec<(At, String)>,
    /// The channel with no known problem, ranked at every place, whose ratio to each place's
    /// fastest is smallest in the worst case; `None` when no such channel is ranked everywhere.
    pub holds: Option<Holds>,
    /// Where another place's pick is behind this place's beyond the noise: the pick changes
    /// along the axis. Empty when every place's pick is tied with the others' there.
    pub changes: Vec<Change>,
}

/// A pick that holds at every place.
#[derive(Debug, Clone, PartialEq)]
pub struct Holds {
    /// The channel.
    pub channel: String,
    /// The place where it is farthest behind that place's fastest.
    pub worst_at: At,
    /// Its verdict against that place's fastest there (`None` where it is the fastest
    /// everywhere).
    pub worst: Option<Verdict>,
    /// Whether it is the fastest or tied with it at every place.
    pub within_noise_everywhere: bool,
}

/// A place where another place's pick is behind this one's beyond the noise.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The place.
    pub at: At,
    /// Its pick, as this place ranked it.
    pub pick: Entry,
    /// The other place's pick, as this place ranked it.
    pub other: Entry,
    /// The other's verdict against the pick, at this place.
    pub verdict: Verdict,
}

impl Across {
    /// The band's setting without this axis's place in it (a batch's or a record's words are
    /// the place, not the band).
    pub fn setting(&self) -> Setting {
        self.rest().coord.setting
    }

    /// The band without its place on the axis: what is said of it beside its places (its
    /// workers, capacity and machine where the axis keeps them and the file names them).
    pub fn rest(&self) -> Band {
        self.axis.rest(&self.band)
    }
}

/// The bands found at several places on each axis: computed once, with the analysis.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Acrosses {
    /// Each axis of [`Axis::ALL`] and its bands.
    by_axis: Vec<(Axis, Vec<Across>)>,
}

impl Acrosses {
    /// Every axis of `bands` ([`across`]).
    pub fn of(bands: &[Recommendation]) -> Acrosses {
        Acrosses { by_axis: Axis::ALL.iter().map(|&axis| (axis, across(bands, axis))).collect() }
    }

    /// The bands found at several places on `axis`.
    pub fn on(&self, axis: Axis) -> &[Across] {
        self.by_axis.iter().find(|(on, _)| *on == axis).map_or(&[], |(_, found)| found)
    }
}

/// The bands of `bands` found at two places or more on `axis`, in the order they first appear.
pub fn across(bands: &[Recommendation], axis: Axis) -> Vec<Across> {
    let same = |a: &Recommendation, b: &Recommendation| axis.rest(&a.band) == axis.rest(&b.band);
    let named = |band: &&Recommendation| axis.of(&band.band).is_some();
    let mut out = Vec::new();
    for (first, band) in bands.iter().enumerate().filter(|(_, band)| named(band)) {
        let at: Vec<&Recommendation> =
            bands.iter().filter(|other| same(other, band) && other.speed.first().is_some()).collect();
        if at.len() < 2 || bands[..first].iter().any(|other| named(&other) && same(other, band)) {
            continue;
        }
        let place = |band: &Recommendation| axis.of(&band.band).expect("filtered on the axis");
        let picks: Vec<(At, String)> = at.iter().map(|b| (place(b), b.speed.entries[0].label())).collect();
        let others: BTreeSet<Contender> = at.iter().map(|b| b.speed.entries[0].id()).collect();
        let mut changes = Vec::new();
        for b in &at {
            let pick = &b.speed.entries[0];
            for entry in others.iter().filter(|other| **other != pick.id()).filter_map(|other| find(b, *other)) {
                if let Some(verdict) = entry.verdict.filter(|v| v.call == Call::Higher) {
                    changes.push(Change { at: place(b), pick: pick.clone(), other: entry.clone(), verdict });
                }
            }
        }
        out.push(Across { axis, band: band.band.clone(), holds: holds(&at, place), picks, changes });
    }
    out
}

/// The entry of channel `id` in `band`'s speed ranking, when ranked there.
fn find<'a>(band: &'a Recommendation, id: Contender) -> Option<&'a Entry> {
    band.speed.entries.iter().find(|entry| entry.id() == id)
}

/// The channel with no known problem whose worst ratio to a place's fastest is smallest.
fn holds(at: &[&Recommendation], place: impl Fn(&Recommendation) -> At) -> Option<Holds> {
    let log_ratio = |entry: &Entry| entry.verdict.map_or(0.0, |verdict| verdict.mean);
    let candidates = at[0].speed.entries.iter().filter(|entry| !known_problem(&entry.channel));
    let scored = candidates.filter_map(|candidate| {
        let places: Vec<(At, &Entry)> =
            at.iter().map(|band| Some((place(band), find(band, candidate.id())?))).collect::<Option<_>>()?;
        let (worst_at, worst) = places.iter().max_by(|a, b| log_ratio(a.1).total_cmp(&log_ratio(b.1)))?.clone();
        let within_noise_everywhere = places.iter().all(|(_, entry)| entry.verdict.is_none() || entry.tied_with_first);
        let holds = Holds { channel: candidate.label(), worst_at, worst: worst.verdict, within_noise_everywhere };
        Some((log_ratio(worst), holds))
    });
    scored.reduce(|best, next| if next.0 < best.0 { next } else { best }).map(|(_, holds)| holds)
}

#[cfg(test)]
pub(crate) use tests::two_places;

#[cfg(test)]
mod tests {
    use super::*;

    /// Moves `coord` to the `place`-th (0 or 1) of two places on `axis`: for tests that measure
    /// a file at two places on every axis.
    pub(crate) fn two_places(axis: Axis, coord: &mut crate::results::coord::Coord, place: usize) {
        match axis {
            Axis::Capacity => coord.capacity = Capacity::Shared([64, 1024][place]),
            Axis::Machine => coord.machine = MachineId { cores: [2, 16][place], cpu: String::new() },
            Axis::Batch => coord.setting.batch = Some([8, 64][place]),
            Axis::Record => coord.setting.record_bytes = Some([48, 1200][place]),
        }
    }

    #[test]
    fn each_axis_has_its_own_keys_and_words() {
        let unique = |field: fn(&AxisWords) -> &str| {
            let all: BTreeSet<&str> = Axis::ALL.iter().map(|axis| field(axis.words())).collect();
            all.len() == Axis::ALL.len() && !all.contains("")
        };
        assert!(unique(|words| words.json_key) && unique(|words| words.place_key) && unique(|words| words.what));
        // `WORDS` is in the enum's order.
        let keys: Vec<&str> = Axis::ALL.iter().map(|axis| axis.words().json_key).collect();
        assert_eq!(keys, ["machines", "capacities", "batches", "records"]);
    }
}

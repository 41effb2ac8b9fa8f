//! The answer in one table, the pick matrix: a row per runtime, mode and band of task counts, a
//! column per machine and capacity, each cell its pick ([`cell`]); then, in a few lines, where
//! the machine and the capacity change the pick and by how much, read from what
//! `results::across` found. A section of the document, on the console and the page alike.

use std::collections::BTreeSet;

use super::across::tally;
use super::doc::{Block, On, Section, Span, Table, capitalized, fitted, prose};
use super::format::{self, number};
use super::summary::{PICK, YOURS, named, recv_many, tasks_text, yours};
use crate::results::across::{Across, At, Axis, AxisWords};
use crate::results::analysis::Analysis;
use crate::results::band::{Contender, TaskBand, first_seen, slot};
use crate::results::careful::Careful;
use crate::results::metadata::MachineId;
use crate::results::recommend::{Entry, Recommendation};
use crate::results::setting::Setting;
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Mode};
use crate::stats::verdict::Call;

/// A column of the matrix: the machine (when the file holds several), the worker count and the
/// capacity its bands ran at.
#[derive(Debug, Clone, PartialEq)]
struct Column {
    machine: Option<MachineId>,
    workers: Option<u64>,
    capacity: Capacity,
}

impl Column {
    fn of(band: &Recommendation) -> Column {
        let b = &band.band;
        Column { machine: b.machine().cloned(), workers: b.workers(), capacity: b.coord.capacity }
    }

    /// `2 cores, 1,024 slots`; the machine by its cores when `by_cores`, in full otherwise.
    fn header(&self, by_cores: bool) -> String {
        let machine = self.machine.as_ref().map(|m| m.named(by_cores));
        let workers = self.workers.map(format::workers);
        let parts: Vec<String> = machine.into_iter().chain(workers).chain([self.capacity.to_string()]).collect();
        parts.join(", ")
    }
}

/// Whether the machines of `machines` are told apart by their cores alone.
fn by_cores<'a>(machines: impl IntoIterator<Item = &'a MachineId>) -> bool {
    let machines: Vec<&MachineId> = first_seen(machines);
    machines.iter().map(|machine| machine.cores).collect::<BTreeSet<_>>().len() == machines.len()
}

/// A row of the matrix: what a band is, without its machine, workers and capacity.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    runtime: RuntimeKind,
    mode: Mode,
    setting: Setting,
    size: TaskBand,
}

impl Row {
    fn of(band: &Recommendation) -> Row {
        let b = &band.band;
        Row { runtime: b.coord.runtime, mode: b.coord.mode, setting: b.coord.setting.clone(), size: b.size }
    }

    /// The row's runtime, mode with its setting, and band, in words.
    fn words(&self) -> (String, String, String) {
        let notes = format::group_notes(None, None, &self.setting.to_string());
        (self.runtime.to_string(), format!("{}{notes}", self.mode), self.size.name().to_owned())
    }
}

/// A band's pick as a cell: `kanal† 90.1`, tied `kanal† 90.1 ≈ fibre` or `tachyonix 115 ≈ 4
/// others`, then the fastest with no known problem where it differs and is not the one tied
/// channel named: `kanal† 78.4 (fibre)`, `crossfire† 39.4 (none without †)` where every channel
/// ranked has one. Bold when `changed`.
fn cell(band: &Recommendation, changed: bool) -> Vec<Span> {
    let ranking = &band.speed;
    let Some(first) = ranking.first() else { return vec![Span::text("none ranked")] };
    let mut spans = vec![named(first), Span::Text(format!(" {}", number(first.value)))];
    let tied = ranking.leaders().get(1..).unwrap_or_default();
    match tied {
        [] => {}
        [one] => spans.extend([Span::text(" ≈ "), named(one)]),
        more => spans.push(Span::Text(format!(" ≈ {} others", more.len()))),
    }
    match &band.careful {
        Careful::Behind { entry, .. } if !(tied.len() == 1 && tied[0].channel == entry.channel) => {
            spans.extend([Span::text(" ("), named(entry), Span::text(")")]);
        }
        Careful::NoneRanked => spans.push(Span::text(" (none without †)")),
        _ => {}
    }
    if changed { vec![Span::Strong(spans)] } else { spans }
}

/// Whether `band`'s pick changes beyond the noise from `first`'s, its row's first cell: another
/// channel, and each behind the other where the other leads.
fn changed(first: &Recommendation, band: &Recommendation) -> bool {
    fn pick(band: &Recommendation) -> Option<Contender<'_>> {
        band.speed.first().map(Entry::id)
    }
    let behind = |at: &Recommendation, channel: Contender| {
        let entry = at.speed.entries.iter().find(|entry| entry.id() == channel);
        entry.and_then(|entry| entry.verdict).is_some_and(|verdict| verdict.call == Call::Higher)
    };
    match (pick(first), pick(band)) {
        (Some(a), Some(b)) if a != b => behind(band, a) || behind(first, b),
        _ => false,
    }
}

/// The matrix of `bands`: rows in the order first seen, a column per machine, workers and
/// capacity, `-` where a row was not measured at a column.
fn matrix(bands: &[Recommendation]) -> Table {
    let columns = first_seen(bands.iter().map(Column::of));
    let cores = by_cores(columns.iter().filter_map(|column| column.machine.as_ref()));
    let headers = ["runtime", "mode", "tasks"].map(String::from).into_iter();
    let mut table = Table::new(2, headers.chain(columns.iter().map(|column| column.header(cores))));
    for row in first_seen(bands.iter().map(Row::of)) {
        let of_row: Vec<&Recommendation> = bands.iter().filter(|band| Row::of(band) == row).collect();
        let tasks: BTreeSet<u64> = of_row.iter().flat_map(|band| band.band.tasks.iter().copied()).collect();
        let (runtime, mode, size) = row.words();
        let tasks = format!("{size} ({})", tasks_text(&tasks.into_iter().collect::<Vec<_>>()));
        let mut cells = vec![vec![Span::Text(runtime)], vec![Span::Text(mode)], vec![Span::Text(tasks)]];
        let first = of_row.iter().find(|band| band.speed.first().is_some()).copied();
        cells.extend(columns.iter().map(|column| match of_row.iter().find(|band| Column::of(band) == *column) {
            Some(band) => cell(band, first.is_some_and(|first| changed(first, band))),
            None => vec![Span::text("-")],
        }));
        table.rows.push((None, cells));
    }
    table
}

/// `On 16 cores`, `At 65,536 slots on 2 cores`: where a change was found on `band`'s axis, with
/// the band's machine where the axis keeps it and the file names it; machines by their cores
/// when `cores`.
fn place(band: &Across, at: &At, cores: bool) -> String {
    let on = band.rest().machine().map_or(String::new(), |m| format!(" on {}", m.named(cores)));
    format!("{} {}{on}", capitalized(band.axis.words().place_preposition), at.text(cores))
}

/// One place's changes: per pair of picks (the one behind, the one ahead), the ratios found,
/// each with the runtime of its band.
type Pairs<'a> = Vec<(&'a Entry, &'a Entry, Vec<(f64, RuntimeKind)>)>;

/// Where a change was found: the place on its axis, and the band's machine when the axis is
/// not the machine and reports name it.
type Place = (At, Option<MachineId>);

/// Where `axis` changes the pick, a line per place: `On 16 cores: kanal† 1.60×–2.04× behind
/// crossfire† (2 bands, multi-thread); …`, each pair of channels with the range of its ratios
/// and the runtimes of its bands, so that no line is read as another runtime's.
fn changes(found: &[Across], cores: bool) -> Vec<Vec<Span>> {
    let mut places: Vec<(Place, String, Pairs)> = Vec::new();
    for band in found {
        for change in &band.changes {
            let at = (change.at.clone(), band.rest().machine().cloned());
            let new = || (at.clone(), place(band, &change.at, cores), Vec::new());
            let pairs = &mut slot(&mut places, |(place, ..)| *place == at, new).2;
            let ids = (change.other.id(), change.pick.id());
            let pair =
                slot(pairs, |pair| (pair.0.id(), pair.1.id()) == ids, || (&change.other, &change.pick, Vec::new()));
            pair.2.push((change.verdict.mean.exp(), band.band.coord.runtime));
        }
    }
    let line = |(_, at, pairs): (Place, String, Pairs)| {
        let items: Vec<Vec<Span>> = pairs.iter().map(|(other, pick, ratios)| behind(other, pick, ratios)).collect();
        [vec![Span::Text(format!("{at}: "))], fitted(&items, 110)].concat()
    };
    places.into_iter().map(line).collect()
}

/// One pair of picks at a place: `kanal† 1.60×–2.04× behind crossfire† (2 bands, multi-thread)`,
/// the range of the ratios found and the runtimes of their bands.
fn behind(other: &Entry, pick: &Entry, ratios: &[(f64, RuntimeKind)]) -> Vec<Span> {
    let (other, pick) = (&other.label(), &pick.label());
    let (low, high) = ratios.iter().fold((f64::MAX, 0.0f64), |(l, h), &(r, _)| (l.min(r), h.max(r)));
    let (low, high) = (format!("{low:.2}×"), format!("{high:.2}×"));
    let by = if low == high { low } else { format!("{low}–{high}") };
    let bands = format::count(ratios.len() as u64, "band", "bands");
    let runtimes: Vec<&str> = first_seen(ratios.iter().map(|&(_, runtime)| runtime.name()));
    let bands = match runtimes.as_slice() {
        [one] => format!("{bands}, {one}"),
        several => format!("{bands}: {}", several.join(" and ")),
    };
    let (by, bands) = (Span::Text(format!(" {by} behind ")), Span::Text(format!(" ({bands})")));
    vec![Span::channel(other, other), by, Span::channel(pick, pick), bands]
}

/// The pick matrix of `analysis`, its legend, and where the machine and capacity change the pick;
/// `None` for a file of paced cells only or without a band.
pub fn section(analysis: &Analysis) -> Option<Section> {
    let bands = &analysis.bands;
    if analysis.only_paced || bands.is_empty() {
        return None;
    }
    let legend = format!(
        "Each cell: the {PICK}, the fastest; ≈: tied, within the noise; †: a crate with a known problem; (x): the \
         fastest with none, where it differs; bold: apart from its row's first pick."
    );
    let mut blocks = vec![Block::Note(prose(&legend)), Block::Table(matrix(bands))];
    let cores = by_cores(bands.iter().filter_map(|band| band.band.machine()));
    let mut lines = Vec::new();
    for axis in Axis::ALL {
        let (found, AxisWords { what, noun, tally: tallied, .. }) = (analysis.across.on(axis), axis.words());
        let places = changes(found, cores);
        if *tallied && !found.is_empty() {
            lines.push(vec![Span::Text(tally(found, axis))]);
        } else if !*tallied && !places.is_empty() {
            let heading =
                format!("The pick changes with {what}; where it does, how far the other {noun}'s pick is behind:");
            lines.push(vec![Span::Text(heading)]);
        }
        lines.extend(places);
    }
    blocks.extend((!lines.is_empty()).then_some(Block::List(lines)));
    if !analysis.keep.is_empty() {
        let kept = bands.iter().map(|band| {
            let (runtime, mode, size) = Row::of(band).words();
            let at = format!("{runtime} {mode} {size}, {}", format::section(&band.band));
            [vec![Span::Text(format!("{YOURS}: "))], yours(band, &analysis.keep), vec![Span::Text(format!(" ({at})"))]]
                .concat()
        });
        blocks.push(Block::List(kept.collect()));
    }
    blocks.extend(recv_many(bands, &analysis.keep).map(|line| Block::Para(prose(&line))));
    Some(Section { id: "matrix", on: On::Everywhere, heading: Some("which channel".to_owned()), blocks })
}

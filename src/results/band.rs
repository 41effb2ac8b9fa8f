//! The one grouping of a file's cells: a [`Coord`] (machine, runtime, worker count,
//! capacity, mode, setting) holds the cells ranked together, split into bands of task counts
//! ([`TaskBand`]). Every ranking, paced or not, reads the groups [`Groups::of`] makes once per
//! analysis; two machines, two capacities or two worker counts are never ranked, pooled or
//! paired together.

use std::collections::{BTreeSet, HashMap};

use super::coord::Coord;
pub use super::coord::TaskBand;
use super::figures::{CellFigures, Table};
use super::load::{CellKey, CellSamples, ResultsFile};
use super::metadata::MachineId;
pub use super::order::{first_seen, slot};
use super::setting::Setting;
use crate::run::workload::{Capacity, Merge};

/// Which band an answer is about, as reports name it: its group, band and task counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// The group's place on every axis ([`Grouped::key`]), on the unknown machine when reports
    /// do not name the machine ([`Band::machine`]).
    pub coord: Coord,
    /// Whether reports name the worker threads: the file holds another worker count for the
    /// runtime ([`Grouped::several_workers`]).
    pub names_workers: bool,
    /// Whether reports name the capacity ([`Grouped::names_capacity`]).
    pub names_capacity: bool,
    /// Whether reports name the machine: the file holds several ([`Grouped::names_machine`]).
    pub names_machine: bool,
    /// Which band.
    pub size: TaskBand,
    /// The band's task counts found in the file, ascending.
    pub tasks: Vec<u64>,
}

impl Band {
    /// Whether this band ranks the cells of group `key` (a band names its workers, capacity and
    /// machine only where the file holds others).
    pub fn holds(&self, key: &Coord) -> bool {
        let coord = &self.coord;
        (coord.runtime, coord.mode, &coord.setting) == (key.runtime, key.mode, &key.setting)
            && self.workers().is_none_or(|workers| workers == key.workers)
            && self.named_capacity().is_none_or(|capacity| capacity == key.capacity)
            && self.machine().is_none_or(|machine| *machine == key.machine)
    }

    /// The worker threads, when reports name them; `None` otherwise. `coord.workers` are the
    /// threads running tasks, named or not: 1 for current-thread; 0 in files without the
    /// `workers` column.
    pub fn workers(&self) -> Option<u64> {
        self.names_workers.then_some(self.coord.workers)
    }

    /// The capacity, when reports name it; `None` otherwise.
    pub fn named_capacity(&self) -> Option<Capacity> {
        self.names_capacity.then_some(self.coord.capacity)
    }

    /// The machine, when reports name it; `None` otherwise.
    pub fn machine(&self) -> Option<&MachineId> {
        self.names_machine.then_some(&self.coord.machine)
    }

    /// The noise model's group of this band's cells ([`Coord::noise_group`]), on the unknown
    /// machine when the band does not name its machine.
    pub fn noise_group(&self) -> Coord {
        self.coord.noise_group()
    }

    /// Whether `other` is this band, whatever task counts each found: the same group and size.
    pub fn same_but_tasks(&self, other: &Band) -> bool {
        Band { tasks: Vec::new(), ..self.clone() } == Band { tasks: Vec::new(), ..other.clone() }
    }
}

/// A channel in a group: its name, and how merged-recv merged its receivers.
pub type Contender<'a> = (&'a str, Option<Merge>);

/// A cell as every ranking reads it: its samples, which verdicts pair round by round, and its
/// figures, computed once per analysis (`figures::Table`).
#[derive(Debug, Clone, Copy)]
pub struct Cell<'a> {
    /// The cell's samples.
    pub samples: &'a CellSamples,
    /// The cell's figures.
    pub figures: &'a CellFigures,
}

/// One group of a file's cells, as every ranking reads it.
#[derive(Debug, Clone, Default)]
pub struct Grouped<'a> {
    /// The group.
    pub key: Coord,
    /// Whether the file holds another worker count for the runtime on the group's machine, so
    /// that reports name it.
    pub several_workers: bool,
    /// Whether the file holds several machines, so that reports name each band's.
    pub names_machine: bool,
    /// Whether reports name the capacity: the file holds another, or the tasks had channels of
    /// their own (`--task-capacity`), a rule a report cannot leave unsaid.
    pub names_capacity: bool,
    /// The group's channels, in file order.
    pub channels: Vec<Contender<'a>>,
    /// The group's cells by (channel, tasks).
    pub cells: HashMap<(Contender<'a>, u64), Cell<'a>>,
    /// The group's bands that have cells, smallest first, each with its task counts ascending.
    pub bands: Vec<Band>,
}

/// A file's cells grouped once per analysis: every ranking, paced or not, and the per-cell
/// figures read these.
#[derive(Debug, Clone)]
pub struct Groups<'a> {
    /// Every cell's group, in the order they first appear in the file.
    pub all: Vec<Grouped<'a>>,
    /// The groups of the paced cells alone (`results::paced`), named among themselves.
    pub paced: Vec<Grouped<'a>>,
}

impl<'a> Groups<'a> {
    /// The groups of `file`'s cells, each cell with its figures in `table` (`file`'s).
    pub fn of(file: &'a ResultsFile, table: &'a Table) -> Groups<'a> {
        Groups {
            all: groups(file, table, |_| true),
            paced: groups(file, table, |key| !file.cells[key].paced.is_empty()),
        }
    }
}

/// The groups of `file`'s cells that `keep` keeps, in the order they first appear in the file,
/// each cell with its figures in `table` (`file`'s).
fn groups<'a>(file: &'a ResultsFile, table: &'a Table, keep: impl Fn(&CellKey) -> bool) -> Vec<Grouped<'a>> {
    let mut grouped: Vec<Grouped<'a>> = Vec::new();
    for key in file.order.iter().filter(|key| keep(key)) {
        let at = key.coord.clone();
        let group = slot(&mut grouped, |other| other.key == at, || Grouped { key: at.clone(), ..Grouped::default() });
        let channel = (key.channel.as_str(), key.merge);
        slot(&mut group.channels, |other| *other == channel, || channel);
        group.cells.insert((channel, key.tasks), Cell { samples: &file.cells[key], figures: table.cell(key) });
    }
    // Each batch, kind of message and capacity of a runtime, worker count, mode and setting
    // beside the others, smallest first.
    let place = |key: &Coord| {
        let setting = Setting { batch: None, record_bytes: None, ..key.setting.clone() };
        (key.machine.clone(), key.runtime, key.workers, key.mode, setting)
    };
    let places: Vec<_> = grouped.iter().map(|group| place(&group.key)).collect();
    grouped.sort_by_key(|group| {
        let (at, setting) = (places.iter().position(|at| *at == place(&group.key)), &group.key.setting);
        (at, setting.batch, setting.record_bytes, group.key.capacity)
    });
    let keys: Vec<Coord> = grouped.iter().map(|group| group.key.clone()).collect();
    for group in &mut grouped {
        let key = &group.key;
        group.several_workers = keys
            .iter()
            .any(|other| other.machine == key.machine && other.runtime == key.runtime && other.workers != key.workers);
        group.names_machine = keys.iter().any(|other| other.machine != key.machine);
        group.names_capacity =
            keys.iter().any(|other| other.capacity != key.capacity) || matches!(key.capacity, Capacity::PerTask(_));
        let tasks: Vec<u64> =
            group.cells.keys().map(|&(_, tasks)| tasks).collect::<BTreeSet<_>>().into_iter().collect();
        group.bands = bands(group, &tasks);
    }
    grouped
}

/// The bands of `group` over its task counts `tasks` (ascending), smallest first.
fn bands(group: &Grouped, tasks: &[u64]) -> Vec<Band> {
    let key = &group.key;
    let machine = if group.names_machine { key.machine.clone() } else { MachineId::default() };
    let coord = Coord { machine, ..key.clone() };
    let bands = tasks.chunk_by(|a, b| TaskBand::of(*a) == TaskBand::of(*b));
    bands
        .map(|tasks| Band {
            coord: coord.clone(),
            names_workers: group.several_workers,
            names_capacity: group.names_capacity,
            names_machine: group.names_machine,
            size: TaskBand::of(tasks[0]),
            tasks: tasks.to_vec(),
        })
        .collect()
}

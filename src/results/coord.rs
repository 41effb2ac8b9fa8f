//! A group's place on every axis but the channel and the task count: one [`Coord`]. A cell's
//! key (`load::CellKey`) holds one; the cells ranked together share one; the
//! noise model, the bands, the decisions and the exports read their axes from it. An axis is
//! one field here.

use super::metadata::MachineId;
use super::schema::Record;
use super::setting::Setting;
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Mode};

/// Where a group of cells stands on every axis but the channel and the task count. Ordered
/// by runtime, workers, capacity, mode, setting, then machine.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Coord {
    /// The runtime the tasks ran on.
    pub runtime: RuntimeKind,
    /// Threads running tasks; 0 in files without the column.
    pub workers: u64,
    /// The capacity the cells ran at; `Shared(0)` in files without the column.
    pub capacity: Capacity,
    /// How the tasks reached the receiver.
    pub mode: Mode,
    /// What else set the cells apart from a default run (payload, pacing, send mode, sink,
    /// latency, allocations); the default for files older than those columns.
    pub setting: Setting,
    /// The machine the cells were measured on, when runs of several machines are read together
    /// (`load::ResultsFile::on_machine`); the unknown machine otherwise.
    pub machine: MachineId,
}

impl Coord {
    /// The place of one row.
    pub fn of(record: &Record) -> Coord {
        Coord {
            runtime: record.runtime,
            workers: record.workers as u64,
            capacity: match (record.mode, record.task_capacity) {
                (Mode::MergedRecv, Some(slots)) => Capacity::PerTask(slots as u64),
                _ => Capacity::Shared(record.capacity as u64),
            },
            mode: record.mode,
            setting: Setting::of(record),
            machine: MachineId::default(),
        }
    }

    /// The noise model's group: cells whose noise is alike, one runtime, mode, setting and
    /// machine (merged-recv on the current-thread runtime is far noisier than cloned-send, say)
    /// at any worker count and capacity.
    pub fn noise_group(&self) -> Coord {
        Coord { workers: 0, capacity: Capacity::default(), ..self.clone() }
    }

    /// The place two runs' groups pair up at (`compare`'s agreement, `ab`'s places): the
    /// worker count and the machine blanked, as each run ran on its own.
    pub fn between_runs(&self) -> Coord {
        Coord { workers: 0, machine: MachineId::default(), ..self.clone() }
    }

    /// The place two designs pair up at (`designs`): every axis but the mode and the capacity
    /// (each design runs at its own), the machine included.
    pub fn design_pair(&self) -> Coord {
        Coord { mode: Mode::default(), capacity: Capacity::default(), ..self.clone() }
    }
}

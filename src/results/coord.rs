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
    /// at any worker count and capacity ([`Projection::Noise`]).
    pub fn noise_group(&self) -> Coord {
        Projection::Noise.of(self)
    }

    /// The place two runs' groups pair up at (`compare`'s agreement, `ab`'s places): the
    /// worker count and the machine blanked, as each run ran on its own
    /// ([`Projection::BetweenRuns`]).
    pub fn between_runs(&self) -> Coord {
        Projection::BetweenRuns.of(self)
    }

    /// The place two designs pair up at (`designs`): every axis but the mode and the capacity
    /// (each design runs at its own), the machine included ([`Projection::DesignPair`]).
    pub fn design_pair(&self) -> Coord {
        Projection::DesignPair.of(self)
    }

    /// The place two files' cells of different workloads pair up at (`load::CellKey::without_workload`):
    /// the capacity and the worker count blanked ([`Projection::WithoutWorkload`]).
    pub fn without_workload(&self) -> Coord {
        Projection::WithoutWorkload.of(self)
    }

    /// `self` with `axis` at its default: the one place an axis is blanked. Every field is
    /// named here, so a new axis does not compile until it is declared.
    fn blank(self, axis: CoordAxis) -> Coord {
        let Coord { runtime, workers, capacity, mode, setting, machine } = self;
        match axis {
            CoordAxis::Runtime => Coord { runtime: RuntimeKind::default(), workers, capacity, mode, setting, machine },
            CoordAxis::Workers => Coord { runtime, workers: 0, capacity, mode, setting, machine },
            CoordAxis::Capacity => Coord { runtime, workers, capacity: Capacity::default(), mode, setting, machine },
            CoordAxis::Mode => Coord { runtime, workers, capacity, mode: Mode::default(), setting, machine },
            CoordAxis::Setting => Coord { runtime, workers, capacity, mode, setting: Setting::default(), machine },
            CoordAxis::Machine => Coord { runtime, workers, capacity, mode, setting, machine: MachineId::default() },
        }
    }
}

/// An axis of a [`Coord`]: one of its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordAxis {
    /// [`Coord::runtime`].
    Runtime,
    /// [`Coord::workers`].
    Workers,
    /// [`Coord::capacity`].
    Capacity,
    /// [`Coord::mode`].
    Mode,
    /// [`Coord::setting`].
    Setting,
    /// [`Coord::machine`].
    Machine,
}

/// A kind of group made of cells of several coordinates: the axes it ignores are declared
/// here, once ([`Projection::ignores`]); every other axis, a new one included, sets two groups
/// apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Projection {
    /// The noise model's group ([`Coord::noise_group`]).
    Noise,
    /// Two runs' groups paired up ([`Coord::between_runs`]).
    BetweenRuns,
    /// Two designs paired up ([`Coord::design_pair`]).
    DesignPair,
    /// Two files' cells of different workloads paired up ([`Coord::without_workload`]).
    WithoutWorkload,
}

impl Projection {
    /// The axes this kind of group ignores: cells apart on those alone are in one group.
    pub fn ignores(self) -> &'static [CoordAxis] {
        match self {
            Projection::Noise => &[CoordAxis::Workers, CoordAxis::Capacity],
            Projection::BetweenRuns => &[CoordAxis::Workers, CoordAxis::Machine],
            Projection::DesignPair => &[CoordAxis::Mode, CoordAxis::Capacity],
            Projection::WithoutWorkload => &[CoordAxis::Workers, CoordAxis::Capacity],
        }
    }

    /// The group `coord` is in: `coord` with every axis this kind ignores blanked.
    pub fn of(self, coord: &Coord) -> Coord {
        self.ignores().iter().fold(coord.clone(), |coord, &axis| coord.blank(axis))
    }
}

/// A band of task counts summarized together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskBand {
    /// 1–8 tasks (up to 11).
    Small,
    /// 16–64 tasks (12 to 90).
    Medium,
    /// 128–512 tasks (91 to 724).
    Large,
    /// 1024 tasks and more (725 and more): a large room, a media server with thousands of tracks.
    XLarge,
}

impl TaskBand {
    /// The band of a task count. The named ranges are 1–8, 16–64, 128–512 and 1024 on; a
    /// count between them goes to the band it is nearest on a log2 scale (the sweep's and the
    /// plot's), so the bounds are the geometric midpoints √(8·16) ≈ 11.3, √(64·128) ≈ 90.5 and
    /// √(512·1024) ≈ 724.1: small up to 11, medium 12 to 90, large 91 to 724, x-large from 725.
    pub fn of(tasks: u64) -> TaskBand {
        match tasks {
            0..=11 => TaskBand::Small,
            12..=90 => TaskBand::Medium,
            91..=724 => TaskBand::Large,
            _ => TaskBand::XLarge,
        }
    }

    /// `small`, `medium`, `large` or `x-large`.
    pub fn name(self) -> &'static str {
        match self {
            TaskBand::Small => "small",
            TaskBand::Medium => "medium",
            TaskBand::Large => "large",
            TaskBand::XLarge => "x-large",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::workload::Phase;

    /// Every axis, in [`Coord`]'s field order.
    const AXES: [CoordAxis; 6] = [
        CoordAxis::Runtime,
        CoordAxis::Workers,
        CoordAxis::Capacity,
        CoordAxis::Mode,
        CoordAxis::Setting,
        CoordAxis::Machine,
    ];

    /// Every kind of group declared in [`Projection`].
    const PROJECTIONS: [Projection; 4] =
        [Projection::Noise, Projection::BetweenRuns, Projection::DesignPair, Projection::WithoutWorkload];

    /// A coordinate with every axis away from its default, and one apart from it on `axis` alone.
    fn apart_on(axis: CoordAxis) -> (Coord, Coord) {
        let machine = MachineId { cores: 16, cpu: "Xeon".to_owned() };
        let setting = Setting { phase: Some(Phase::Random), ..Setting::default() };
        let one = Coord {
            runtime: RuntimeKind::CurrentThread,
            workers: 1,
            capacity: Capacity::Shared(64),
            mode: Mode::MergedRecv,
            setting,
            machine,
        };
        let other = match axis {
            CoordAxis::Runtime => Coord { runtime: RuntimeKind::MultiThread, ..one.clone() },
            CoordAxis::Workers => Coord { workers: 2, ..one.clone() },
            CoordAxis::Capacity => Coord { capacity: Capacity::PerTask(8), ..one.clone() },
            CoordAxis::Mode => Coord { mode: Mode::ClonedSend, ..one.clone() },
            CoordAxis::Setting => Coord { setting: Setting::default(), ..one.clone() },
            CoordAxis::Machine => Coord { machine: MachineId::default(), ..one.clone() },
        };
        (one, other)
    }

    #[test]
    fn each_projection_keeps_or_drops_every_axis_as_declared() {
        for axis in AXES {
            let (one, other) = apart_on(axis);
            assert_ne!(one, other, "{axis:?} sets two coordinates apart");
            assert_eq!(one.clone().blank(axis), other.clone().blank(axis), "{axis:?} is blanked alone");
            for projection in PROJECTIONS {
                let ignored = projection.ignores().contains(&axis);
                assert_eq!(projection.of(&one) == projection.of(&other), ignored, "{projection:?} on {axis:?}");
            }
        }
        // Design pairs never cross machines; the noise group never crosses modes.
        assert!(!Projection::DesignPair.ignores().contains(&CoordAxis::Machine));
        assert!(!Projection::Noise.ignores().contains(&CoordAxis::Mode));
    }
}

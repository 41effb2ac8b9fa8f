//! Where a run measures other than what its flags asked for: merged-recv's channels held at
//! their floor of slots, a batch larger than the channels can hold. Computed once from the
//! cells' workloads (a plan's before its rounds, a file's for its page); the outputs word it.

use std::collections::BTreeMap;

use crate::run::workload::{Capacity, MIN_TASK_SLOTS, Mode, Workload};

/// One request a run could not keep, and what it measured instead.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unkept {
    /// merged-recv shares `--capacity` among the tasks' channels but gives each at least
    /// [`MIN_TASK_SLOTS`]: at `capacity` (the slots asked in all), each task count of `held`
    /// ran with that floor, its channels holding the slots paired with it in all.
    Floor {
        /// `--capacity`: the slots asked for, in all.
        capacity: u64,
        /// Each task count held at the floor, with the slots its channels held in all.
        held: Vec<(u64, u64)>,
    },
    /// `--batch` above what the channels hold at once: the receiver never took more than
    /// `slots` messages a wake-up.
    Batch {
        /// `--batch`: the most messages a wake-up was asked to take.
        batch: usize,
        /// The capacity the cells ran at.
        capacity: Capacity,
        /// The design whose channels hold fewer than `batch`.
        mode: Mode,
        /// The fewest slots those channels held in all, over the task counts measured.
        slots: u64,
    },
}

/// One cell's shape, as far as what it held is concerned: how the tasks reached the receiver,
/// the capacity asked, the task count and the batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The design.
    pub mode: Mode,
    /// The capacity asked (`--capacity` shared, or `--task-capacity` per task).
    pub capacity: Capacity,
    /// Sending tasks.
    pub tasks: u64,
    /// `--batch`.
    pub batch: usize,
}

impl Shape {
    /// The shape of `workload`.
    pub fn of(workload: &Workload) -> Shape {
        let (mode, capacity, tasks, batch) =
            (workload.mode, workload.capacity_axis(), workload.tasks as u64, workload.batch);
        Shape { mode, capacity, tasks, batch }
    }

    /// Slots of each channel and of all of them together, as [`Workload::capacity_per_channel`]
    /// gives them.
    fn slots(self) -> (u64, u64) {
        let (capacity, task_capacity) = match self.capacity {
            Capacity::Shared(slots) => (slots as usize, None),
            Capacity::PerTask(slots) => (slots as usize * self.tasks as usize, Some(slots as usize)),
        };
        let workload = Workload { task_capacity, ..Workload::new(self.mode, self.tasks as usize, 0, capacity) };
        let each = workload.capacity_per_channel() as u64;
        let channels = if self.mode == Mode::MergedRecv { self.tasks } else { 1 };
        (each, each.saturating_mul(channels))
    }
}

/// Every request `shapes` (the cells of a plan or a file, in any order, repeats welcome) did
/// not keep: a floor entry per capacity, then a batch entry per batch, capacity and design.
pub fn unkept(shapes: impl IntoIterator<Item = Shape>) -> Vec<Unkept> {
    let mut floors: BTreeMap<u64, BTreeMap<u64, u64>> = BTreeMap::new();
    let mut batches: BTreeMap<(usize, Capacity, Mode), u64> = BTreeMap::new();
    // A file without the capacity column says nothing of what its cells held.
    for shape in shapes.into_iter().filter(|shape| shape.capacity.slots() > 0) {
        let (each, all) = shape.slots();
        if let (Mode::MergedRecv, Capacity::Shared(asked)) = (shape.mode, shape.capacity)
            && each == MIN_TASK_SLOTS as u64
            && all > asked
        {
            floors.entry(asked).or_default().insert(shape.tasks, all);
        }
        if shape.batch as u64 > all {
            let fewest = batches.entry((shape.batch, shape.capacity, shape.mode)).or_insert(all);
            *fewest = (*fewest).min(all);
        }
    }
    let floors =
        floors.into_iter().map(|(capacity, held)| Unkept::Floor { capacity, held: held.into_iter().collect() });
    let batches =
        batches.into_iter().map(|((batch, capacity, mode), slots)| Unkept::Batch { batch, capacity, mode, slots });
    floors.chain(batches).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(mode: Mode, capacity: Capacity, tasks: u64, batch: usize) -> Shape {
        Shape { mode, capacity, tasks, batch }
    }

    #[test]
    fn merged_recv_under_its_floor_and_a_batch_above_the_slots_are_said_with_what_was_held() {
        let (merged, cloned) = (Mode::MergedRecv, Mode::ClonedSend);
        // --tasks 64 --capacity 32: 16 slots a task's channel, 1,024 in all.
        let asked = [shape(merged, Capacity::Shared(32), 64, 1), shape(merged, Capacity::Shared(32), 64, 1)];
        assert_eq!(unkept(asked), [Unkept::Floor { capacity: 32, held: vec![(64, 1024)] }]);
        // 1,024 over 128 and 512 tasks: 8 and 2 a channel asked, 16 held; 64 tasks get their 16.
        let default = [64, 128, 512].map(|tasks| shape(merged, Capacity::Shared(1024), tasks, 1));
        assert_eq!(unkept(default), [Unkept::Floor { capacity: 1024, held: vec![(128, 2048), (512, 8192)] }]);
        // A batch of 256 above cloned-send's 32 slots, not above merged-recv's 1,024 in all.
        let batch = [shape(cloned, Capacity::Shared(32), 64, 256), shape(merged, Capacity::Shared(32), 64, 256)];
        let floor = Unkept::Floor { capacity: 32, held: vec![(64, 1024)] };
        let over = Unkept::Batch { batch: 256, capacity: Capacity::Shared(32), mode: cloned, slots: 32 };
        assert_eq!(unkept(batch), [floor, over]);
        // Merged-recv's fewest slots over its task counts: 100 over 3 tasks is 33 a channel, 99 in all.
        let uneven = [1, 3].map(|tasks| shape(merged, Capacity::Shared(100), tasks, 100));
        let over = Unkept::Batch { batch: 100, capacity: Capacity::Shared(100), mode: merged, slots: 99 };
        assert_eq!(unkept(uneven), [over]);
        // Kept: per-task slots, a capacity every task's share holds, a batch the slots hold.
        let kept = [
            shape(merged, Capacity::PerTask(4), 512, 64),
            shape(merged, Capacity::Shared(65536), 512, 1),
            shape(cloned, Capacity::Shared(32), 512, 32),
        ];
        assert_eq!(unkept(kept), []);
    }
}

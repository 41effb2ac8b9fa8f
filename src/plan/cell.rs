//! One cell of the sweep: a channel under one workload on one runtime, and why a channel cannot
//! run it.

use crate::registry::ChannelEntry;
use crate::results::setting::Setting;
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Merge, Mode, Workload};

/// One cell of the sweep: a channel under one workload on one runtime.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The channel measured.
    pub channel: &'static ChannelEntry,
    /// The runtime it ran on.
    pub runtime: RuntimeKind,
    /// Threads that run tasks: one of `--workers` for multi-thread, 1 for current-thread.
    pub workers: usize,
    /// What each run does.
    pub workload: Workload,
}

impl Cell {
    /// `runtime tasks=T mode channel` (`multi-thread workers=W tasks=T …`), then for a paced
    /// cell its phase and what else sets it apart ([`Setting::apart`]): ` (in phase, send try)`,
    /// ` (batch 256, 256-byte records by value)`; for progress, failure lists and `--dry-run`.
    pub fn label(&self) -> String {
        let workers = match self.runtime {
            RuntimeKind::MultiThread => format!(" workers={}", self.workers),
            RuntimeKind::CurrentThread => String::new(),
        };
        let (tasks, mode, capacity) = (self.workload.tasks, self.workload.mode.name(), self.workload.capacity_held());
        let phase = self.workload.pace.map(|pace| pace.phase.words().to_owned());
        let apart = Some(Setting::of_workload(&self.workload).apart()).filter(|apart| !apart.is_empty());
        let apart: Vec<String> = phase.into_iter().chain(apart).collect();
        let apart = if apart.is_empty() { String::new() } else { format!(" ({})", apart.join(", ")) };
        format!("{}{workers} tasks={tasks} {mode} at {capacity} {}{apart}", self.runtime.name(), self.name())
    }

    /// The channel's name, with the merge strategy when merged-recv uses another than the default.
    pub fn name(&self) -> String {
        match self.merge() {
            Some(merge) if merge != Merge::default() => format!("{} via {}", self.channel.name, merge.name()),
            _ => self.channel.name.to_owned(),
        }
    }

    /// How merged-recv merged the receivers; `None` in cloned-send.
    pub fn merge(&self) -> Option<Merge> {
        (self.workload.mode == Mode::MergedRecv).then_some(self.workload.merge)
    }

    /// Why the channel cannot run this cell, or `None` when it can ([`ChannelEntry::refusal`]).
    /// Such a cell is one refused row; the sweep goes on.
    pub fn refusal(&self) -> Option<String> {
        self.channel.refusal(self.workload.capacity_per_channel(), self.workload.senders_per_channel())
    }
}

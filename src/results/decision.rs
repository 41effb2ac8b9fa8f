//! The decision for one room: which channel an SFU of N participants should use, from a paced
//! run's cells at N tasks. Per runtime, worker count, mode and setting (phase aside), [`decide`]
//! keeps the channels with no failure and a pacer that kept up, and picks among those with no
//! known problem: first the fewest frames overflowed with every participant in phase (the
//! worst case a room sees), tied ones kept by the noise model's verdict; then, of those, the
//! lowest CPU per delivered message out of phase (what an ordinary call costs). When channels
//! with no known problem are within the noise of that pick on both, the tie is named and broken
//! by a rule no measurement can flip ([`TIE_RULE`]). Every comparison is a verdict of
//! `results::noise::verdict`, as every other output makes it. `output::decision` words it.

use std::collections::{BTreeMap, HashSet};

use super::band::{GroupKey, slot};
use super::careful::known_problem;
use super::load::{CellKey, CellSamples, ResultsFile};
use super::metadata::MachineId;
use super::noise::{self, FileNoise, Group, Metric, VERDICT_CONFIDENCE};
use super::paced::{self, PacedCell};
use super::setting::Setting;
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Mode, Phase};
use crate::stats::disturbed::Why;
use crate::stats::verdict::Call;

/// One channel's cells in the room: out of phase and in phase, each when measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Seat {
    /// The channel as reports name it (`results::load::channel_label`).
    pub channel: String,
    /// The crate has a known problem (`results::careful::known_problem`).
    pub known_problem: bool,
    /// Its figures with the tasks out of phase (`--phase random`).
    pub out_of_phase: Option<PacedCell>,
    /// Its figures with every task in phase (`--phase aligned`).
    pub in_phase: Option<PacedCell>,
}

/// Why a channel is one to avoid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Avoid {
    /// Its crate has a known problem (†).
    KnownProblem,
    /// Its pacer fell behind the schedule: it did not carry the room's load.
    PacerBehind,
    /// A sample failed (a timeout, a lost or reordered message).
    Failed,
    /// Every sample of one of its cells was disturbed (`stats::disturbed`): nothing to judge.
    Disturbed,
}

/// The decision for one runtime, worker count, mode and setting at `participants` tasks.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Participants: the task count of the room's cells.
    pub participants: u64,
    /// The runtime.
    pub runtime: RuntimeKind,
    /// Worker threads of the runtime (`CellKey::workload`).
    pub workers: u64,
    /// The mode.
    pub mode: Mode,
    /// The setting out of phase (`CellKey::setting`), or in phase when only that was measured.
    pub setting: Setting,
    /// The capacity the room's channels ran at.
    pub capacity: Capacity,
    /// The machine the room was measured on, when the file holds several; `None` otherwise.
    pub machine: Option<MachineId>,
    /// Messages per frame (`--burst`).
    pub burst: u64,
    /// Nanoseconds between a participant's frames (`--pace`).
    pub interval_ns: u64,
    /// The channel to use; `None` when no channel with no known problem was ranked.
    pub pick: Option<Seat>,
    /// How many other channels overflowed as few frames in phase as the pick, within the noise.
    pub fewest_drops_with: usize,
    /// Channels within the noise of the measured pick on frames overflowed in phase and on
    /// CPU out of phase (marked ones included), less the pick itself: when some have no known
    /// problem, the pick among them and the measured one is by [`TIE_RULE`].
    pub tied: Vec<Seat>,
    /// Channels to avoid, each with why, in the file's order.
    pub avoid: Vec<(String, Avoid)>,
    /// The pick at the file's fewest task count of the same group, out of phase, when fewer
    /// than `participants`: (tasks, its figures), for what latency does as load rises.
    pub quiet: Option<(u64, PacedCell)>,
    /// The `ok` samples of the room's cells, the disturbed ones included.
    pub samples: usize,
    /// The room's samples left out of every figure, counted by why, in
    /// `stats::disturbed::Why`'s order; empty when none was.
    pub left_out: Vec<(Why, usize)>,
}

impl Decision {
    /// The capacity that holds every participant's frame at once: participants × burst in all,
    /// or a burst in each participant's own channel.
    pub fn capacity_for_no_drops(&self) -> Capacity {
        match self.capacity {
            Capacity::Shared(_) => Capacity::Shared(self.participants * self.burst),
            Capacity::PerTask(_) => Capacity::PerTask(self.burst),
        }
    }
}

/// The room a file answers for by default: its largest paced task count (what
/// `channel-bench sfu --participants N` measures last); `None` without paced cells.
pub fn default_room(file: &ResultsFile) -> Option<u64> {
    file.order.iter().filter(|key| !file.cells[*key].paced.is_empty()).map(|key| key.tasks).max()
}

/// The room of `key`'s cell: its group ([`GroupKey`]) with the phase taken out of its setting,
/// so that one room holds its cells in and out of phase.
fn room_key(key: &CellKey) -> GroupKey {
    GroupKey { setting: key.setting.aligned(), ..GroupKey::of(key) }
}

/// The rooms of `file` with a paced cell at `participants` tasks, in file order.
fn room_keys(file: &ResultsFile, participants: u64) -> Vec<GroupKey> {
    let paced = file.order.iter().filter(|key| key.tasks == participants && !file.cells[*key].paced.is_empty());
    let mut seen = HashSet::new();
    paced.map(room_key).filter(|room| seen.insert(room.clone())).collect()
}

/// The decisions for `participants` tasks, one per room group in file order; empty when the
/// file has no paced cell at that task count.
pub fn decide(file: &ResultsFile, noise: &FileNoise, participants: u64) -> Vec<Decision> {
    room_keys(file, participants).iter().map(|room| decide_room(file, noise, participants, room)).collect()
}

/// A cell of a room: its key and samples, when measured.
type Cell<'a> = Option<(&'a CellKey, &'a CellSamples)>;

/// The paced figures of `cell`, when measured and paced.
fn figures(cell: Cell) -> Option<PacedCell> {
    cell.and_then(|(key, samples)| paced::cell(key.tasks, &samples.paced))
}

/// One channel's cells of a room, per phase.
#[derive(Default)]
struct Cells<'a> {
    channel: String,
    out_of_phase: Cell<'a>,
    in_phase: Cell<'a>,
}

impl<'a> Cells<'a> {
    fn seat(&self) -> Seat {
        Seat {
            channel: self.channel.clone(),
            known_problem: known_problem(self.everyday().map_or("", |(key, _)| key.channel.as_str())),
            out_of_phase: figures(self.out_of_phase),
            in_phase: figures(self.in_phase),
        }
    }

    /// The cell drops are judged in: in phase, or out of phase when only that was measured.
    fn worst(&self) -> Cell<'a> {
        self.in_phase.or(self.out_of_phase)
    }

    /// The cell CPU is judged in: out of phase, or in phase when only that was measured.
    fn everyday(&self) -> Cell<'a> {
        self.out_of_phase.or(self.in_phase)
    }

    fn both(&self) -> impl Iterator<Item = (&'a CellKey, &'a CellSamples)> {
        self.out_of_phase.into_iter().chain(self.in_phase)
    }

    fn avoid(&self) -> Option<Avoid> {
        let seat = self.seat();
        if self.both().any(|(_, samples)| samples.failed > 0) {
            Some(Avoid::Failed)
        } else if self.both().any(|(_, samples)| samples.paced.is_empty()) {
            Some(Avoid::Disturbed)
        } else if [&seat.out_of_phase, &seat.in_phase].into_iter().flatten().any(|cell| cell.pacer_behind) {
            Some(Avoid::PacerBehind)
        } else if seat.known_problem {
            Some(Avoid::KnownProblem)
        } else {
            None
        }
    }
}

/// Each channel's cells of `room` at `participants` tasks, in the file's order.
fn cells_of<'a>(file: &'a ResultsFile, participants: u64, room: &GroupKey) -> Vec<Cells<'a>> {
    let mut channels: Vec<Cells> = Vec::new();
    for key in file.order.iter().filter(|key| key.tasks == participants && room_key(key) == *room) {
        let samples = &file.cells[key];
        if samples.paced.is_empty() && samples.failed == 0 && samples.disturbed.is_empty() {
            continue;
        }
        let channel = key.channel_label();
        let new = || Cells { channel: channel.clone(), ..Cells::default() };
        let cells = slot(&mut channels, |cells| cells.channel == channel, new);
        match key.setting.phase.unwrap_or(Phase::Aligned) {
            Phase::Random => cells.out_of_phase = Some((key, samples)),
            Phase::Aligned => cells.in_phase = Some((key, samples)),
        }
    }
    channels
}

/// `pick` at the file's fewest task count of its group, out of phase, when fewer than
/// `participants`: (tasks, its figures).
fn quiet(file: &ResultsFile, participants: u64, pick: &Cells) -> Option<(u64, PacedCell)> {
    let (key, _) = pick.everyday()?;
    let fewest_tasks = file
        .order
        .iter()
        .filter(|other| other.tasks < participants && GroupKey::of(other) == GroupKey::of(key))
        .filter(|other| (other.channel.as_str(), other.merge) == (key.channel.as_str(), key.merge))
        .min_by_key(|other| other.tasks)?;
    Some((fewest_tasks.tasks, paced::cell(fewest_tasks.tasks, &file.cells[fewest_tasks].paced)?))
}

fn decide_room<'a>(file: &'a ResultsFile, noise: &FileNoise, participants: u64, room: &GroupKey) -> Decision {
    let channels = cells_of(file, participants, room);
    let (setting, capacity, burst, interval_ns) = (channels.iter().flat_map(Cells::both))
        .find_map(|(key, samples)| Some((key, samples.paced.first()?)))
        .map(|(key, sample)| (key.setting.clone(), key.workload.capacity, sample.burst, sample.pace_ns))
        .unwrap_or_default();
    let avoid: Vec<(String, Avoid)> =
        channels.iter().filter_map(|cells| Some((cells.channel.clone(), cells.avoid()?))).collect();
    let ranked: Vec<&Cells> =
        channels.iter().filter(|cells| cells.avoid().is_none_or(|why| why == Avoid::KnownProblem)).collect();
    let call = |a: &Cells<'a>, b: &Cells<'a>, metric: Metric, cell: fn(&Cells<'a>) -> Cell<'a>| {
        let ((key, a), (_, b)) = (cell(a)?, cell(b)?);
        Some(noise::verdict(&[a], &[b], metric, &Group::of(key), noise, VERDICT_CONFIDENCE)?.call)
    };
    let overflow = |cells: &&Cells| figures(cells.worst()).map_or(1.0, |cell| cell.overflow_share);
    let cpu =
        |cells: &&Cells| figures(cells.everyday()).and_then(|cell| cell.cpu_ns_per_delivered).unwrap_or(f64::INFINITY);
    let clean: Vec<&Cells> = ranked.iter().copied().filter(|cells| cells.avoid().is_none()).collect();
    let fewest = clean.iter().copied().min_by(|a, b| overflow(a).total_cmp(&overflow(b)));
    let measured = fewest.and_then(|fewest| {
        let few: Vec<&Cells> = clean
            .iter()
            .copied()
            .filter(|cells| {
                std::ptr::eq(*cells, fewest)
                    || call(fewest, cells, Metric::Overflow, Cells::worst) != Some(Call::Higher)
            })
            .collect();
        Some((few.iter().copied().min_by(|a, b| cpu(a).total_cmp(&cpu(b)))?, few.len() - 1))
    });
    // The measured pick and every channel within the noise of it on drops and CPU: a tie is
    // broken by a rule no measurement can flip ([`TIE_RULE`]), not by the noise.
    let tie: Vec<&Cells> = measured.map_or(Vec::new(), |(measured, _)| {
        let tied = |cells: &&&Cells<'a>| {
            !std::ptr::eq(**cells, measured)
                && call(measured, cells, Metric::Overflow, Cells::worst) == Some(Call::Tied)
                && call(measured, cells, Metric::Cpu, Cells::everyday) == Some(Call::Tied)
        };
        std::iter::once(measured).chain(ranked.iter().filter(tied).copied()).collect()
    });
    let pick = tie.iter().copied().filter(|cells| cells.avoid().is_none()).min_by_key(|cells| by_rule(&cells.channel));
    Decision {
        participants,
        runtime: room.runtime,
        workers: room.workers,
        mode: room.mode,
        setting,
        capacity,
        machine: file.order.iter().any(|key| key.machine != room.machine).then(|| room.machine.clone()),
        burst,
        interval_ns,
        pick: pick.map(Cells::seat),
        fewest_drops_with: measured.map_or(0, |(_, with)| with),
        tied: tie
            .iter()
            .filter(|cells| pick.is_none_or(|pick| !std::ptr::eq(**cells, pick)))
            .map(|c| c.seat())
            .collect(),
        avoid,
        quiet: pick.and_then(|pick| quiet(file, participants, pick)),
        samples: channels.iter().flat_map(Cells::both).map(|(_, s)| s.paced.len() + s.disturbed.len()).sum(),
        left_out: left_out(&channels),
    }
}

/// The cells each room's decision at `participants` tasks rests on, in both phases: the pick's,
/// its tie's ([`Decision::tied`]) and the runner-up's (the pick of the same rule with the pick
/// and its tie left out), in the file's order, every verdict judged in `noise` (`file`'s).
pub fn contenders(file: &ResultsFile, noise: &FileNoise, participants: u64) -> Vec<CellKey> {
    let mut keys = Vec::new();
    for room in room_keys(file, participants) {
        let decision = decide_room(file, noise, participants, &room);
        let in_room = |key: &&CellKey| key.tasks == participants && room_key(key) == room;
        let mut names: Vec<String> = decision.pick.iter().chain(&decision.tied).map(|s| s.channel.clone()).collect();
        let order =
            file.order.iter().filter(|key| !in_room(key) || !names.contains(&key.channel_label())).cloned().collect();
        let rest = ResultsFile { order, ..file.clone() };
        names.extend(decide_room(&rest, &FileNoise::of(&rest), participants, &room).pick.map(|seat| seat.channel));
        keys.extend(file.order.iter().filter(in_room).filter(|key| names.contains(&key.channel_label())).cloned());
    }
    keys
}

/// The samples of `channels`' cells left out of every figure, counted by why, in [`Why`]'s order.
fn left_out(channels: &[Cells]) -> Vec<(Why, usize)> {
    let mut counts: BTreeMap<Why, usize> = BTreeMap::new();
    for why in channels.iter().flat_map(Cells::both).flat_map(|(_, samples)| &samples.disturbed_why) {
        *counts.entry(*why).or_default() += 1;
    }
    counts.into_iter().collect()
}

/// How a tie on drops and CPU is broken, said beside every decision that breaks one.
pub const TIE_RULE: &str = "tokio-mpsc when it is in the tie (an SFU on tokio already depends on it, and the \
     tokio team maintains it), else the first of the tie in channel-bench's table order";

/// The rank of `channel` under [`TIE_RULE`]: tokio-mpsc first, then the registry's order, then
/// a channel of a program's own by name.
fn by_rule(channel: &str) -> (usize, String) {
    let at = crate::registry::known().position(|entry| entry.name == channel);
    let rank = if channel == "tokio-mpsc" { 0 } else { at.map_or(usize::MAX, |at| at + 1) };
    (rank, channel.to_owned())
}

#[cfg(test)]
mod tests;

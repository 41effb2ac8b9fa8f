//! The decision for one room: which channel an SFU of N participants should use, from a paced
//! run's cells at N tasks. Per runtime, worker count, mode and setting (phase aside), [`decide`]
//! keeps the channels with no failure and a pacer that kept up, and decides among those with no
//! known problem on the figures the user weighs, in order ([`Weighing`], `--weigh`); by default
//! the SFU's: first the fewest frames overflowed with every participant in phase (the worst case
//! a room sees), then the lowest CPU per delivered message out of phase (what an ordinary call
//! costs), each within the noise. The pick is the first channel by a rule no
//! measurement can flip ([`TIE_RULE`]) that no other is ahead of on those beyond the noise in
//! nearly every resample of the run's rounds (`resample`): the rule's channel stays the pick until a
//! challenger is clearly better. When each channel is behind another (a circle), the room is not
//! resolved and who is ahead of whom is named. `output::decision` words it.

mod resample;
pub use super::weigh;

use std::collections::{BTreeMap, HashSet};

use super::band::{Contender, first_seen, slot};
use super::careful::known_problem;
use super::coord::Coord;
use super::figures::{CellFigures, Table};
use super::load::{CellKey, CellSamples, ChannelId, PacedSample, ResultsFile};
use super::metadata::MachineId;
use super::noise::{FileNoise, Metric};
use super::paced::PacedCell;
use crate::run::workload::{Capacity, Merge, Phase};
use crate::stats::disturbed::Why;
use resample::{Entrant, Latencies, Tolerance};
pub use resample::{RESAMPLES, SEPARATED};
pub use weigh::{Weigh, Weighing};

/// One channel's cells in the room: out of phase and in phase, each when measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Seat {
    /// The channel.
    pub channel: ChannelId,
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
    /// The room's place: its runtime, worker threads, mode and machine, the capacity its
    /// channels ran at, and its setting out of phase, or in phase when only that was measured.
    pub coord: Coord,
    /// Whether reports name the machine: the file holds several ([`Decision::machine`]).
    pub names_machine: bool,
    /// Messages per frame (`--burst`).
    pub burst: u64,
    /// Nanoseconds between a participant's frames (`--pace`).
    pub interval_ns: u64,
    /// The channel to use: the first by [`TIE_RULE`] that no channel with no known problem is
    /// ahead of beyond the noise in [`SEPARATED`] of the resamples; `None` when each is (not
    /// resolved: [`Decision::passed_over`] names who is ahead of whom), or when no channel with
    /// no known problem was ranked (`passed_over` is empty too).
    pub pick: Option<Seat>,
    /// The figures the decision weighed, in order.
    pub weighing: Weighing,
    /// How many other channels were as good as the run's best on the first figure weighed,
    /// within the noise, in the run itself.
    pub best_with: usize,
    /// Channels that neither the pick nor they are ahead of beyond the noise in [`SEPARATED`]
    /// of the resamples, marked ones included, less those passed over (each behind another
    /// channel, [`Decision::passed_over`]): the pick among them is by [`TIE_RULE`].
    pub tied: Vec<Seat>,
    /// The channel with no known problem most often ahead of the pick beyond the noise, with
    /// the resamples it was (the first by [`TIE_RULE`] among equals): how near the pick came to
    /// being passed over; `None` without another.
    pub closest: Option<(ChannelId, usize)>,
    /// The channels with no known problem before the pick by [`TIE_RULE`] (each of them when
    /// not resolved), each with the channel ahead of it in [`SEPARATED`] of the resamples and
    /// how many.
    pub passed_over: Vec<(ChannelId, ChannelId, usize)>,
    /// How many resamples of the run's rounds were drawn ([`RESAMPLES`]).
    pub resamples: usize,
    /// Channels to avoid, each with why, in the file's order.
    pub avoid: Vec<(ChannelId, Avoid)>,
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
    /// The machine the room was measured on, when the file holds several; `None` otherwise.
    pub fn machine(&self) -> Option<&MachineId> {
        self.names_machine.then_some(&self.coord.machine)
    }

    /// The capacity that holds every participant's frame at once: participants × burst in all,
    /// or a burst in each participant's own channel.
    pub fn capacity_for_no_drops(&self) -> Capacity {
        match self.coord.capacity {
            Capacity::Shared(_) => Capacity::Shared(self.participants * self.burst),
            Capacity::PerTask(_) => Capacity::PerTask(self.burst),
        }
    }

    /// Whether more rounds could change the pick: the room is not resolved, or a channel is
    /// ahead of the pick beyond the noise in half the resamples or more.
    pub fn contested(&self) -> bool {
        self.pick.is_none() || self.closest.as_ref().is_some_and(|(_, ahead)| 2 * ahead >= self.resamples)
    }
}

/// The room a file answers for by default: its largest paced task count (what
/// `channel-bench sfu --participants N` measures last); `None` without paced cells.
pub fn default_room(file: &ResultsFile) -> Option<u64> {
    file.order.iter().filter(|key| !file.cells[*key].paced.is_empty()).map(|key| key.tasks).max()
}

/// The room of `key`'s cell: its group ([`Coord`]) with the phase taken out of its setting,
/// so that one room holds its cells in and out of phase.
fn room_key(key: &CellKey) -> Coord {
    Coord { setting: key.coord.setting.aligned(), ..key.coord.clone() }
}

/// The rooms of `file` with a paced cell at `participants` tasks, in file order.
fn room_keys(file: &ResultsFile, participants: u64) -> Vec<Coord> {
    let paced = file.order.iter().filter(|key| key.tasks == participants && !file.cells[*key].paced.is_empty());
    first_seen(paced.map(room_key))
}

/// The decisions for `participants` tasks on the figures of `weighing`, one per room group in
/// file order, each cell's figures read from `table` (`file`'s); empty when the file has no paced
/// cell at that task count.
pub fn decide(
    (file, table): (&ResultsFile, &Table),
    noise: &FileNoise,
    participants: u64,
    weighing: &Weighing,
) -> Vec<Decision> {
    let rooms = room_keys(file, participants);
    rooms.iter().map(|room| decide_room((file, table), noise, (participants, weighing), room).0).collect()
}

/// A cell of a room: its key, samples and figures, when measured.
type Cell<'a> = Option<(&'a CellKey, &'a CellSamples, &'a CellFigures)>;

/// One channel's cells of a room, per phase.
#[derive(Default)]
struct Cells<'a> {
    /// The channel and how merged-recv merged its receivers: what the cells are grouped by.
    id: Contender<'a>,
    out_of_phase: Cell<'a>,
    in_phase: Cell<'a>,
}

impl<'a> Cells<'a> {
    fn seat(&self) -> Seat {
        // The paced figures of a cell, when measured and paced.
        let figures = |cell: Cell| cell.and_then(|(.., figures)| figures.paced.clone());
        Seat {
            channel: ChannelId::of(self.id),
            known_problem: known_problem(self.id.0),
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

    /// The figures each resample reads: frames overflowed in the cell drops are judged in, CPU
    /// per delivered message in the cell CPU is judged in, and, when `weighing` weighs p99, the
    /// latencies of the cell drops are judged in, each sample with its round (its place in the
    /// cell for a file without rounds); `eligible` when it may be picked.
    fn entrant(&self, eligible: bool, weighing: &Weighing) -> Entrant {
        let paced = |cell: Cell<'a>| cell.map_or(&[][..], |(_, samples, _)| samples.paced.as_slice());
        let round = |at: usize, sample: &PacedSample| sample.round.unwrap_or(at as u64 + 1);
        let drops = paced(self.worst()).iter().enumerate();
        let cpu = paced(self.everyday()).iter().enumerate();
        Entrant {
            drops: drops.map(|(at, s)| (round(at, s), s.frames_overflowed, s.frames)).collect(),
            cpu: cpu.filter_map(|(at, s)| Some((round(at, s), s.cpu_per_delivered()?))).collect(),
            latency: if weighing.weighs(Weigh::P99) { latencies(paced(self.worst())) } else { Latencies::default() },
            eligible,
        }
    }

    fn both(&self) -> impl Iterator<Item = (&'a CellKey, &'a CellSamples)> {
        self.out_of_phase.into_iter().chain(self.in_phase).map(|(key, samples, _)| (key, samples))
    }

    /// Why the channel is one to avoid: the first that holds of a failed sample, a cell every
    /// sample of which was disturbed, a pacer behind and a known problem; `None` when none does.
    fn avoid(&self) -> Option<Avoid> {
        let seat = self.seat();
        let behind = [&seat.out_of_phase, &seat.in_phase].into_iter().flatten().any(|cell| cell.pacer_behind);
        [
            (self.both().any(|(_, samples)| samples.failed > 0), Avoid::Failed),
            (self.both().any(|(_, samples)| samples.paced.is_empty()), Avoid::Disturbed),
            (behind, Avoid::PacerBehind),
            (seat.known_problem, Avoid::KnownProblem),
        ]
        .into_iter()
        .find_map(|(holds, why)| holds.then_some(why))
    }
}

/// Each channel's cells of `room` at `participants` tasks, in the file's order, with their
/// figures in `table`.
fn cells_of<'a>((file, table): (&'a ResultsFile, &'a Table), participants: u64, room: &Coord) -> Vec<Cells<'a>> {
    let mut channels: Vec<Cells> = Vec::new();
    for key in file.order.iter().filter(|key| key.tasks == participants && room_key(key) == *room) {
        let samples = &file.cells[key];
        if samples.paced.is_empty() && samples.failed == 0 && samples.disturbed.is_empty() {
            continue;
        }
        let id = (key.channel.as_str(), key.merge);
        let new = || Cells { id, ..Cells::default() };
        let cells = slot(&mut channels, |cells| cells.id == id, new);
        let cell = Some((key, samples, table.cell(key)));
        match key.coord.setting.phase.unwrap_or(Phase::Aligned) {
            Phase::Random => cells.out_of_phase = cell,
            Phase::Aligned => cells.in_phase = cell,
        }
    }
    channels
}

/// `pick` at the file's fewest task count of its group, out of phase, when fewer than
/// `participants`: (tasks, its figures).
fn quiet((file, table): (&ResultsFile, &Table), participants: u64, pick: &Cells) -> Option<(u64, PacedCell)> {
    let (key, ..) = pick.everyday()?;
    let fewest_tasks = file
        .order
        .iter()
        .filter(|other| other.tasks < participants && other.coord == key.coord)
        .filter(|other| (other.channel.as_str(), other.merge) == (key.channel.as_str(), key.merge))
        .min_by_key(|other| other.tasks)?;
    Some((fewest_tasks.tasks, table.cell(fewest_tasks).paced.clone()?))
}

/// The decision for `room` at `participants` tasks, and the channels it rests on: the pick,
/// its closest challenger, and each channel passed over with the one ahead of it.
fn decide_room<'a>(
    (file, table): (&'a ResultsFile, &'a Table),
    noise: &FileNoise,
    (participants, weighing): (u64, &Weighing),
    room: &Coord,
) -> (Decision, HashSet<Contender<'a>>) {
    let channels = cells_of((file, table), participants, room);
    let (setting, capacity, burst, interval_ns) = (channels.iter().flat_map(Cells::both))
        .find_map(|(key, samples)| Some((key, samples.paced.first()?)))
        .map(|(key, sample)| (key.coord.setting.clone(), key.coord.capacity, sample.burst, sample.pace_ns))
        .unwrap_or_default();
    let whys: Vec<(&Cells, Option<Avoid>)> = channels.iter().map(|cells| (cells, cells.avoid())).collect();
    let avoid: Vec<(ChannelId, Avoid)> =
        whys.iter().filter_map(|(cells, why)| Some((ChannelId::of(cells.id), (*why)?))).collect();
    let mut ranked: Vec<(&Cells, Option<Avoid>)> =
        whys.into_iter().filter(|(_, why)| why.is_none_or(|why| why == Avoid::KnownProblem)).collect();
    ranked.sort_by_key(|(cells, _)| by_rule(cells.id));
    let entrants: Vec<Entrant> = ranked.iter().map(|(cells, why)| cells.entrant(why.is_none(), weighing)).collect();
    let ranked: Vec<&Cells> = ranked.into_iter().map(|(cells, _)| cells).collect();
    let tally = resample::tally(&entrants, tolerance(&ranked, noise), weighing, RESAMPLES);
    let pick = tally.pick();
    let seat = |at: usize| ranked[at].seat();
    let channel = |at: usize| ChannelId::of(ranked[at].id);
    let before = |at: &usize| pick.is_none_or(|pick| *at < pick) && tally.eligible[*at];
    let passed_over: Vec<(usize, usize, usize)> = (0..ranked.len())
        .filter(before)
        .filter_map(|at| {
            let (ahead, resamples) = tally.closest(at).filter(|(other, _)| tally.separated(*other, at))?;
            Some((at, ahead, resamples))
        })
        .collect();
    let closest = pick.and_then(|pick| tally.closest(pick));
    let passed = passed_over.iter().flat_map(|&(at, ahead, _)| [at, ahead]);
    let resting = pick.into_iter().chain(closest.map(|(at, _)| at)).chain(passed).map(|at| ranked[at].id).collect();
    let decision = Decision {
        participants,
        coord: Coord { setting, capacity, ..room.clone() },
        names_machine: file.order.iter().any(|key| key.coord.machine != room.machine),
        burst,
        interval_ns,
        pick: pick.map(seat),
        weighing: weighing.clone(),
        best_with: tally.best_with.unwrap_or(0),
        tied: pick.map_or(Vec::new(), |pick| {
            let passed = |at: &usize| passed_over.iter().any(|(over, ..)| over == at);
            tally.tie_of(pick).into_iter().filter(|at| !passed(at)).map(seat).collect()
        }),
        closest: closest.map(|(at, resamples)| (channel(at), resamples)),
        passed_over: passed_over
            .into_iter()
            .map(|(at, ahead, resamples)| (channel(at), channel(ahead), resamples))
            .collect(),
        resamples: tally.resamples,
        avoid,
        quiet: pick.and_then(|pick| quiet((file, table), participants, ranked[pick])),
        samples: channels.iter().flat_map(Cells::both).map(|(_, s)| s.paced.len() + s.disturbed.len()).sum(),
        left_out: left_out(&channels),
    };
    (decision, resting)
}

/// How far apart two of the room's channels may be with neither ahead in a resample: the
/// run's resolution (`FileNoise::resolution`: how close a tie must be before more rounds of this
/// run would narrow it by little, from the drift the run measured, never below its floor) on
/// each metric's own scale, in points of frames overflowed and the logarithm of p99 in phase,
/// and in the logarithm of CPU out of phase. Channels closer than that are a tie no run of this
/// host resolves.
fn tolerance<'a>(ranked: &[&Cells<'a>], noise: &FileNoise) -> Tolerance {
    let resolution = |cell: fn(&Cells<'a>) -> Cell<'a>, metric: Metric| {
        let group = ranked.iter().find_map(|cells| cell(cells)).map(|(key, ..)| key.coord.noise_group());
        group.map_or(0.0, |group| noise.resolution(&group, metric).ln_1p())
    };
    Tolerance {
        overflow_points: resolution(Cells::worst, Metric::Overflow),
        cpu_log: resolution(Cells::everyday, Metric::Cpu),
        p99_log: resolution(Cells::worst, Metric::P99),
    }
}

/// The cells each room's decision at `participants` tasks on the figures of `weighing` rests
/// on, in both phases, in the file's order: the pick's and the closest challenger's ([`Decision::closest`]), and each
/// channel passed over with the one ahead of it ([`Decision::passed_over`]); and whether more
/// rounds could change any room's pick ([`Decision::contested`]).
pub fn contenders(
    (file, table): (&ResultsFile, &Table),
    noise: &FileNoise,
    participants: u64,
    weighing: &Weighing,
) -> (Vec<CellKey>, bool) {
    let (mut keys, mut contested) = (Vec::new(), false);
    for room in room_keys(file, participants) {
        let (decision, resting) = decide_room((file, table), noise, (participants, weighing), &room);
        contested |= decision.contested();
        let rests = |key: &&CellKey| {
            key.tasks == participants && room_key(key) == room && resting.contains(&(key.channel.as_str(), key.merge))
        };
        keys.extend(file.order.iter().filter(rests).cloned());
    }
    (keys, contested)
}

/// The latencies of `samples`, each with its round (its place in the cell without rounds): the
/// values their histograms recorded and the count at each.
fn latencies(samples: &[PacedSample]) -> Latencies {
    let recorded = samples.iter().enumerate().filter_map(|(at, sample)| {
        let histogram = sample.lat_histogram.as_ref()?;
        let buckets = histogram.iter_recorded().map(|value| (value.value_iterated_to(), value.count_at_value()));
        Some((sample.round.unwrap_or(at as u64 + 1), buckets.collect()))
    });
    Latencies::of(recorded.collect())
}

/// The samples of `channels`' cells left out of every figure, counted by why, in [`Why`]'s order.
fn left_out(channels: &[Cells]) -> Vec<(Why, usize)> {
    let mut counts: BTreeMap<Why, usize> = BTreeMap::new();
    for why in channels.iter().flat_map(Cells::both).flat_map(|(_, samples)| &samples.disturbed_why) {
        *counts.entry(*why).or_default() += 1;
    }
    counts.into_iter().collect()
}

/// The order the pick is taken in, said beside every decision: the first channel that no other
/// is ahead of beyond the noise in [`SEPARATED`] of the resamples.
pub const TIE_RULE: &str = "tokio-mpsc first, as an SFU on tokio already depends on it and the tokio team \
     maintains it, then channel-bench's table order";

/// The rank of a channel under [`TIE_RULE`]: tokio-mpsc first, then the registry's order, then
/// a channel of a program's own by name; one channel's merges in `Merge`'s order.
fn by_rule((channel, merge): Contender<'_>) -> (usize, &str, Option<Merge>) {
    let at = crate::registry::known().position(|entry| entry.name == channel);
    let rank = if channel == "tokio-mpsc" { 0 } else { at.map_or(usize::MAX, |at| at + 1) };
    (rank, channel, merge)
}

#[cfg(test)]
mod tests;

//! Which channel should I use? `channel-bench summary FILE.csv`, and the end of every sweep.
//!
//! For each runtime and mode, and each band of task counts ([`TaskBand`]), the channels are
//! ranked by the geometric mean of their per-cell means over the band's task counts: ns per
//! message for speed, CPU ns per message, and the p99 latency when the file has it. The mean,
//! not the median: a cell whose samples fall in two clusters has a median that flips with
//! whichever cluster won the draw, while its mean moves with the clusters' shares (see
//! [`crate::stats`]); the median stays beside it ([`Entry::median`]), and a channel with such
//! a cell in the band is marked ([`Entry::mixed`]). Every other channel gets its verdict
//! against the first from the noise model ([`super::noise::verdict`]: the ratio of their
//! samples paired round by round, with its interval), and is tied with the first exactly when
//! that verdict is a tie ([`rank`]). A channel
//! with a failed sample, or without a cell at one of the band's task counts, is not ranked
//! there and is listed with the reason.
//!
//! Beside each band's speed ranking, `Recommendation::careful` (in `super::careful`) names the
//! fastest channel with no known problem.
//!
//! [`recommend`] computes; `output::summary` formats.

use std::collections::HashMap;

pub use super::band::TaskBand;
use super::band::{self, Contender};
use super::load::{CellSamples, ResultsFile};
use super::noise::{self, FileNoise, Group, Metric};
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Merge, Mode};
use crate::stats::verdict::{Call, Verdict};
use crate::stats::{self, Summary};

/// One channel's place in a [`Ranking`].
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Channel name.
    pub channel: String,
    /// How merged-recv merged the receivers; `None` in cloned-send.
    pub merge: Option<Merge>,
    /// The geometric mean, over the band's task counts, of the channel's per-cell means
    /// (the ranking's unit: ns/message, CPU ns/message or ns of latency).
    pub value: f64,
    /// The same of the per-cell medians.
    pub median: f64,
    /// Whether the samples of one of the channel's cells in the band form more than one
    /// cluster ([`stats::clusters`]).
    pub mixed: bool,
    /// The verdict on this channel against the ranking's first, on the log scale (its `mean`
    /// is the log of this channel's figure over the first's, from their paired samples where
    /// they have them: `results::noise::verdict`); `None` for the first itself, or when the
    /// two have too few samples for one.
    pub verdict: Option<Verdict>,
    /// Whether the verdict is a tie: the channel is within the noise of the first.
    pub tied_with_first: bool,
}

impl Entry {
    /// The channel as reports name it (`results::load::channel_label`).
    pub fn label(&self) -> String {
        super::load::channel_label(&self.channel, self.merge)
    }

    /// This channel's figure over the first's, as the verdict measured it (paired where it
    /// could be), with its interval: `(ratio, low, high)`. `None` for the first.
    pub fn ratio(&self) -> Option<(f64, f64, f64)> {
        self.verdict.map(|verdict| (verdict.mean.exp(), verdict.low.exp(), verdict.high.exp()))
    }

    /// For a channel tied with the first: how far apart the two may be, as a fraction (0.04 =
    /// within 4%): the end of the ratio's interval farthest from 1.
    pub fn tied_within(&self) -> Option<f64> {
        self.verdict.filter(|_| self.tied_with_first).map(|verdict| verdict.within().exp() - 1.0)
    }
}

/// Channels ordered by one metric, lowest (best) first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranking {
    /// The first, then the others by their verdicts' estimates against it.
    pub entries: Vec<Entry>,
}

impl Ranking {
    /// The channel with the lowest value.
    pub fn first(&self) -> Option<&Entry> {
        self.entries.first()
    }

    /// The first and every channel within the noise of it, in ranking order: one entry when
    /// the first stands alone.
    pub fn leaders(&self) -> Vec<&Entry> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(at, entry)| *at == 0 || entry.tied_with_first)
            .map(|(_, e)| e)
            .collect()
    }

    /// Whether any channel is within the noise of the first.
    pub fn is_tie(&self) -> bool {
        self.entries.iter().any(|entry| entry.tied_with_first)
    }

    /// The runner-up: the second entry, with its verdict against the first; `None` with one
    /// entry or none.
    pub fn runner_up(&self) -> Option<&Entry> {
        self.entries.get(1)
    }

    /// The best channel beyond the noise of the first, and its figure over the first's (the
    /// verdict's ratio); `None` when every other channel is tied with the first or there is none.
    pub fn next(&self) -> Option<(&Entry, f64)> {
        let next = self.entries.iter().skip(1).find(|entry| !entry.tied_with_first)?;
        Some((next, next.ratio().map_or(f64::NAN, |(ratio, ..)| ratio)))
    }

    /// How far from the first the channels tied with it may be, the widest of their
    /// [`Entry::tied_within`]; `None` without a tie.
    pub fn tied_within(&self) -> Option<f64> {
        self.entries.iter().filter_map(Entry::tied_within).reduce(f64::max)
    }
}

/// Why a channel is not ranked in a band.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excluded {
    /// Channel name.
    pub channel: String,
    /// How merged-recv merged the receivers; `None` in cloned-send.
    pub merge: Option<Merge>,
    /// Failed samples in the band.
    pub failed_samples: usize,
    /// Task counts with failed samples.
    pub failed_at: Vec<u64>,
    /// Task counts of the band the channel has no sample at.
    pub missing_at: Vec<u64>,
    /// Task counts whose cell the channel cannot run (`plan::Cell::refusal`): a refused row.
    pub refused_at: Vec<u64>,
}

/// The recommendation for one runtime, mode and band of task counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Recommendation {
    /// The runtime.
    pub runtime: RuntimeKind,
    /// The mode.
    pub mode: Mode,
    /// The worker threads of the group, when the file holds several worker counts for the
    /// runtime (and so names them); `None` otherwise.
    pub workers: Option<u64>,
    /// The capacity of the group, when the file holds several (and so names them); `None`
    /// otherwise.
    pub capacity: Option<Capacity>,
    /// What else set the group's cells apart from a default run ([`CellKey::setting`]).
    pub setting: String,
    /// Which band.
    pub size: TaskBand,
    /// The band's task counts found in the file, ascending.
    pub tasks: Vec<u64>,
    /// By mean ns/message.
    pub speed: Ranking,
    /// By mean CPU ns/message; empty when the file has no CPU time.
    pub cpu: Ranking,
    /// By mean p99 latency in ns, among the channels measured for it at every task count of
    /// the band; empty when none was.
    pub p99: Ranking,
    /// Channels not ranked, with the reason.
    pub excluded: Vec<Excluded>,
}

/// The recommendation for every runtime × mode × band of `file` that has data, in the
/// order the runtimes and modes first appear in the file, bands smallest first, every verdict
/// from the noise model ([`noise::verdict`]) with the spread `file` measured.
pub fn recommend(file: &ResultsFile, noise: &FileNoise) -> Vec<Recommendation> {
    band::groups(file, |_| true).iter().flat_map(|group| recommend_group(file, group, noise)).collect()
}

/// The recommendation for each band of one group of `file`'s cells.
pub fn recommend_group(file: &ResultsFile, group: &band::Grouped, noise: &FileNoise) -> Vec<Recommendation> {
    let mut bands = Vec::new();
    let cells: HashMap<(Contender, u64), &CellSamples> =
        group.cells.iter().map(|(&at, key)| (at, &file.cells[*key])).collect();
    let key = &group.key;
    for (size, tasks) in group.bands.iter().cloned() {
        let noise_group = Group { runtime: key.runtime, mode: key.mode, setting: key.setting.clone() };
        let (speed, cpu, p99, excluded) = rank_band(&cells, &group.channels, &tasks, &noise_group, noise);
        bands.push(Recommendation {
            runtime: key.runtime,
            mode: key.mode,
            workers: group.several_workers.then_some(key.workers),
            capacity: group.several_capacities.then_some(key.capacity),
            setting: key.setting.clone(),
            size,
            tasks,
            speed,
            cpu,
            p99,
            excluded,
        });
    }
    bands
}

/// A channel to rank: its name, and how merged-recv merged its receivers.
pub type Ranked = (String, Option<Merge>);

/// One band's three rankings and the channels left out of them: `cells` are one runtime and
/// mode's cells by (channel, tasks), `tasks` the band's task counts.
fn rank_band(
    cells: &HashMap<(Contender, u64), &CellSamples>,
    channels: &[Contender],
    tasks: &[u64],
    group: &Group,
    noise: &FileNoise,
) -> (Ranking, Ranking, Ranking, Vec<Excluded>) {
    let mut candidates: Vec<(Ranked, Vec<&CellSamples>)> = Vec::new();
    let mut excluded = Vec::new();
    for &channel in channels {
        let found: Vec<Option<&CellSamples>> = tasks.iter().map(|&t| cells.get(&(channel, t)).copied()).collect();
        let at = |wanted: fn(Option<&CellSamples>) -> bool| -> Vec<u64> {
            tasks.iter().zip(&found).filter(|(_, cell)| wanted(**cell)).map(|(&t, _)| t).collect()
        };
        let missing_at = at(|cell| cell.is_none());
        let failed_at = at(|cell| cell.is_some_and(|cell| cell.failed > 0 && !refused(cell)));
        let refused_at = at(|cell| cell.is_some_and(refused));
        let (name, merge) = channel;
        if missing_at.is_empty() && failed_at.is_empty() && refused_at.is_empty() {
            candidates.push(((name.to_owned(), merge), found.into_iter().flatten().collect()));
        } else {
            let failed_samples = found.iter().flatten().filter(|cell| !refused(cell)).map(|cell| cell.failed).sum();
            excluded.push(Excluded {
                channel: name.to_owned(),
                merge,
                failed_samples,
                failed_at,
                missing_at,
                refused_at,
            });
        }
    }
    let by = |metric: Metric| rank(&candidates, metric, group, noise);
    (by(Metric::Speed), by(Metric::Cpu), by(Metric::P99), excluded)
}

/// Whether the cell's one row is a refusal: its channel cannot run it (`sweep`'s refused row).
fn refused(cell: &CellSamples) -> bool {
    cell.ok.is_empty() && cell.first_failure.as_deref().is_some_and(|status| status.starts_with(REFUSED))
}

/// How the status of a refused row starts (`sweep::capacity_mismatch` writes it).
pub const REFUSED: &str = "capacity: refused:";

/// The values of one metric of a cell, and its summary as rankings show it.
fn figures(cell: &CellSamples, metric: Metric) -> (&[f64], Option<Summary>) {
    match metric {
        // Speed reads pooled runs as runs (`results::pool::speed`); the other metrics read samples.
        Metric::Speed => (&cell.ok, super::pool::speed(cell)),
        Metric::Cpu => (&cell.cpu_ns_per_message, stats::summarize(&cell.cpu_ns_per_message)),
        Metric::P99 | Metric::Overflow => (&cell.lat_p99_ns, stats::summarize(&cell.lat_p99_ns)),
    }
}

/// Ranks `channels` (each with its cells at the band's task counts, in the same order) by
/// `metric`: a channel enters when each of its cells has values of it. The first is the
/// channel with the lowest geometric mean of its cells' figures, unless the verdict against it
/// calls another lower beyond the noise (paired samples outrank figures taken apart); every other channel
/// gets its verdict against the first ([`noise::verdict`]) and is ranked by that verdict's
/// estimate. A channel is tied with the first exactly when its verdict is a tie.
pub fn rank(channels: &[(Ranked, Vec<&CellSamples>)], metric: Metric, group: &Group, noise: &FileNoise) -> Ranking {
    let mut scored: Vec<(&Ranked, &Vec<&CellSamples>, Vec<Summary>)> = channels
        .iter()
        .filter_map(|(channel, cells)| {
            let summaries: Option<Vec<Summary>> = cells.iter().map(|cell| figures(cell, metric).1).collect();
            Some((channel, cells, summaries?))
        })
        .collect();
    scored.sort_by(|a, b| geometric_mean_of_trimmed_means(&a.2).total_cmp(&geometric_mean_of_trimmed_means(&b.2)));
    if scored.is_empty() {
        return Ranking::default();
    }
    let against = |scored: &[(&Ranked, &Vec<&CellSamples>, Vec<Summary>)]| -> Vec<Option<Verdict>> {
        let first = scored[0].1;
        let judge = |cells: &Vec<&CellSamples>| noise::verdict(first, cells, metric, group, noise);
        scored.iter().enumerate().map(|(at, (_, cells, _))| (at != 0).then(|| judge(cells)).flatten()).collect()
    };
    let mut verdicts = against(&scored);
    let lower =
        verdicts.iter().enumerate().filter_map(|(at, v)| v.filter(|v| v.call == Call::Lower).map(|v| (at, v.mean)));
    if let Some((first, _)) = lower.min_by(|a, b| a.1.total_cmp(&b.1)) {
        scored.swap(0, first);
        verdicts = against(&scored);
    }
    let mut entries: Vec<Entry> = scored
        .iter()
        .zip(verdicts)
        .map(|((channel, cells, summaries), verdict)| Entry {
            channel: channel.0.clone(),
            merge: channel.1,
            value: geometric_mean_of_trimmed_means(summaries),
            median: geometric_mean(summaries.iter().map(|cell| cell.median)),
            mixed: cells.iter().any(|cell| stats::clusters(figures(cell, metric).0).len() > 1),
            tied_with_first: verdict.is_some_and(|verdict| verdict.call == Call::Tied),
            verdict,
        })
        .collect();
    // The first stays first; the others by their estimate against it (no verdict: last).
    entries[1..].sort_by(|a, b| {
        let key = |entry: &Entry| entry.verdict.map_or(f64::INFINITY, |verdict| verdict.mean);
        key(a).total_cmp(&key(b))
    });
    Ranking { entries }
}

/// The geometric mean of the cells' means: each task count weighs the same whatever its
/// scale. 0 when any mean is 0; NaN when there are none.
pub fn geometric_mean_of_trimmed_means(cells: &[Summary]) -> f64 {
    geometric_mean(cells.iter().map(|cell| cell.trimmed_mean))
}

/// The geometric mean of `values`; 0 when any is 0 or less, NaN when there are none.
fn geometric_mean(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut count) = (0.0, 0);
    for value in values {
        if value <= 0.0 {
            return 0.0;
        }
        sum += value.ln();
        count += 1;
    }
    (sum / count as f64).exp()
}

#[cfg(test)]
mod tests;

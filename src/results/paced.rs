//! The answer for paced load (`--pace`): which channel keeps latency, CPU and drops lowest at a
//! given participant count and rate. A paced cell's ns/message restates its schedule, so it is
//! not ranked by speed here: per cell, [`cell`] pools every delivered message's latency (the
//! samples' histograms merged), the share of frames that overflowed and of messages dropped, the
//! CPU per delivered message and what it costs at the offered rate; per runtime, mode, setting
//! (phase and send included) and band of task counts, [`answer`] names the lowest p99, the
//! lowest CPU and the fewest overflowed frames, each other channel with its verdict against the
//! first from the noise model (`results::noise::verdict`), tied when that is a tie. A
//! channel whose pacer fell behind in most samples of a cell of the band is named and never
//! ranked.
//!
//! [`answer`] computes; `output::paced` formats.

use std::collections::HashMap;

use super::band::{self, TaskBand};
use super::compare::{Spread, spread};
use super::load::{CellKey, CellSamples, PacedSample, ResultsFile};
use super::noise::{self, Drift, FileNoise, Group, Metric};
use crate::run::latency::{Latency, merge};
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Merge, Mode};
use crate::stats;
use crate::stats::verdict::{Call, Verdict};

/// The paced figures of one cell, over all its samples.
#[derive(Debug, Clone, PartialEq)]
pub struct PacedCell {
    /// Samples the figures come from.
    pub samples: usize,
    /// Percentiles of every delivered message of the cell together (the samples' latency
    /// histograms merged), nanoseconds; `None` without `--latency`.
    pub latency: Option<Latency>,
    /// Frames with a message dropped over frames sent, all samples together (0.05 = 5%).
    pub overflow_share: f64,
    /// Messages dropped over messages sent, all samples together.
    pub drop_share: f64,
    /// CPU nanoseconds per delivered message: the trimmed mean over the samples of
    /// `cpu_ns / delivered`; `None` without CPU time.
    pub cpu_ns_per_delivered: Option<f64>,
    /// The offered rate: tasks × burst ÷ interval, messages per second.
    pub offered_per_s: f64,
    /// The share of one core the fan-in costs at the offered rate: CPU per delivered message ×
    /// the offered rate (0.12 = 12% of a core).
    pub core_share: Option<f64>,
    /// The median over the samples of `resident_growth_bytes`.
    pub resident_growth_bytes: Option<f64>,
    /// Whether the pacer fell behind its schedule in most of the cell's samples: the cell then
    /// describes a lighter load than asked for, and is never ranked (the samples behind in a
    /// minority are left out of its figures).
    pub pacer_behind: bool,
    /// How far the figures move from one sample to the next: the least and the most over the
    /// samples of each one's p99 (ns), share of messages dropped, and share of a core.
    pub ranges: Ranges,
}

/// The least and the most of a figure over a cell's samples.
pub type Range = Option<(f64, f64)>;

/// A paced cell's figures per sample, each as its [`Range`] over the samples.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Ranges {
    /// Each sample's p99 latency, nanoseconds.
    pub p99_ns: Range,
    /// Each sample's messages dropped over messages sent.
    pub drop_share: Range,
    /// Each sample's CPU per delivered message × the offered rate: its share of a core.
    pub core_share: Range,
}

/// The least and the most of `values`; `None` when there are none.
fn range(values: impl Iterator<Item = f64>) -> Range {
    values.fold(None, |range, v| Some(range.map_or((v, v), |(low, high): (f64, f64)| (low.min(v), high.max(v)))))
}

/// The paced figures of a cell of `tasks` tasks from its samples; `None` when it has none (not
/// paced, or no `ok` sample).
pub fn cell(tasks: u64, samples: &[PacedSample]) -> Option<PacedCell> {
    // A pacer that fell behind in a minority of the samples is the host's moment, not the
    // channel's: those samples are left out; behind in most, the cell is behind.
    let behind = 2 * samples.iter().filter(|s| s.pacer_behind).count() > samples.len();
    let kept: Vec<PacedSample> = samples.iter().filter(|s| !s.pacer_behind).cloned().collect();
    let samples = if behind || kept.is_empty() { samples } else { &kept[..] };
    let first = samples.first()?;
    let sum = |of: fn(&PacedSample) -> u64| samples.iter().map(of).sum::<u64>();
    let share = |part: u64, whole: u64| if whole == 0 { 0.0 } else { part as f64 / whole as f64 };
    let histograms: Vec<&str> = samples.iter().map(|s| s.lat_histogram.as_str()).filter(|h| !h.is_empty()).collect();
    // `load` checked every histogram, so a merge cannot fail on the text.
    let latency = merge(histograms).ok().and_then(|merged| Latency::of(&merged));
    let cpu: Vec<f64> = samples
        .iter()
        .filter_map(|s| Some(s.cpu_ns? as f64 / s.sent.checked_sub(s.dropped).filter(|&d| d > 0)? as f64))
        .collect();
    let cpu_ns_per_delivered = stats::summarize(&cpu).map(|summary| summary.trimmed_mean);
    let offered_per_s = tasks as f64 * first.burst as f64 * 1e9 / first.pace_ns.max(1) as f64;
    let growth: Vec<f64> = samples.iter().filter_map(|s| s.resident_growth_bytes.map(|b| b as f64)).collect();
    Some(PacedCell {
        samples: samples.len(),
        latency,
        overflow_share: share(sum(|s| s.frames_overflowed), sum(|s| s.frames)),
        drop_share: share(sum(|s| s.dropped), sum(|s| s.sent)),
        cpu_ns_per_delivered,
        offered_per_s,
        core_share: cpu_ns_per_delivered.map(|ns| ns * offered_per_s / 1e9),
        resident_growth_bytes: stats::summarize(&growth).map(|summary| summary.median),
        pacer_behind: behind,
        ranges: Ranges {
            p99_ns: range(samples.iter().filter_map(|s| Some(s.p99_ns? as f64))),
            drop_share: range(samples.iter().map(|s| share(s.dropped, s.sent))),
            core_share: range(cpu.iter().map(|ns| ns * offered_per_s / 1e9)),
        },
    })
}

/// The paced figures of `key`'s cell in `file`, when it was paced.
pub fn of(key: &CellKey, samples: &CellSamples) -> Option<PacedCell> {
    cell(key.tasks, &samples.paced)
}

/// Whether `file` has a paced cell.
pub fn has_paced(file: &ResultsFile) -> bool {
    file.cells.values().any(|cell| !cell.paced.is_empty())
}

/// Whether every cell of `file` was paced: its throughput ranking then restates the schedule.
pub fn only_paced(file: &ResultsFile) -> bool {
    !file.cells.is_empty() && file.cells.values().all(|cell| !cell.paced.is_empty() || cell.ok.is_empty())
}

/// One channel's figures over a band: each the geometric mean over the band's task counts
/// (each task count weighs the same), but the shares, which are arithmetic means.
#[derive(Debug, Clone, PartialEq)]
pub struct PacedEntry {
    /// Channel name.
    pub channel: String,
    /// How merged-recv merged the receivers; `None` in cloned-send.
    pub merge: Option<Merge>,
    /// Pooled p99 latency, nanoseconds; `None` without `--latency`.
    pub p99_ns: Option<f64>,
    /// Pooled p99.9 latency, nanoseconds.
    pub p999_ns: Option<f64>,
    /// Trimmed mean CPU nanoseconds per delivered message.
    pub cpu_ns: Option<f64>,
    /// Share of frames overflowed (0.05 = 5%).
    pub overflow_share: f64,
    /// Share of messages dropped.
    pub drop_share: f64,
    /// At the band's largest task count: the offered rate, messages per second.
    pub offered_per_s: f64,
    /// At the band's largest task count: the share of a core the load costs.
    pub core_share: Option<f64>,
}

impl PacedEntry {
    /// The channel as reports name it (`results::load::channel_label`).
    pub fn channel_label(&self) -> String {
        super::load::channel_label(&self.channel, self.merge)
    }
}

/// Channels ordered by one figure, and how many lead: the first and every channel whose
/// verdict against it is a tie.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PacedRanking {
    /// Indexes into [`PacedBand::entries`]: the lowest figure first, then the channels tied
    /// with it, then the others, each by its verdict's estimate against the first.
    pub order: Vec<usize>,
    /// The verdict of each of `order` against the first (`results::noise::verdict`: log
    /// ratio for p99 and CPU, points for overflow); `None` for the first.
    pub verdicts: Vec<Option<Verdict>>,
    /// How many of `order` lead (1 when the first stands alone; 0 when none is ranked).
    pub leaders: usize,
}

/// The answer for one runtime, mode, setting and band of task counts.
#[derive(Debug, Clone, PartialEq)]
pub struct PacedBand {
    /// The runtime.
    pub runtime: RuntimeKind,
    /// The mode.
    pub mode: Mode,
    /// The worker threads, when the file holds several for the runtime.
    pub workers: Option<u64>,
    /// The capacity, when the file holds several.
    pub capacity: Option<Capacity>,
    /// The cells' setting: pace, burst, phase, send ([`CellKey::setting`]).
    pub setting: String,
    /// Which band.
    pub size: TaskBand,
    /// The band's task counts, ascending.
    pub tasks: Vec<u64>,
    /// The channels ranked: every cell of the band present, without failures or a pacer behind.
    pub entries: Vec<PacedEntry>,
    /// By pooled p99.
    pub p99: PacedRanking,
    /// By CPU per delivered message.
    pub cpu: PacedRanking,
    /// By share of frames overflowed.
    pub overflow: PacedRanking,
    /// Channels whose pacer fell behind in most samples of a cell of the band: never ranked.
    pub behind: Vec<String>,
    /// Channels with a failed sample or a missing cell in the band: not ranked.
    pub excluded: Vec<String>,
}

/// The answer for every paced group and band of `file`, in file order, bands smallest first,
/// every verdict from the noise model with the spread `file` measured.
pub fn answer(file: &ResultsFile, noise: &FileNoise) -> Vec<PacedBand> {
    let mut bands = Vec::new();
    for group in band::groups(file, |key| !file.cells[key].paced.is_empty()) {
        let cells: GroupCells = group
            .cells
            .iter()
            .map(|(&((channel, merge), tasks), key)| {
                let samples = &file.cells[*key];
                ((channel, merge, tasks), (samples, of(key, samples)))
            })
            .collect();
        let key = &group.key;
        for (size, tasks) in group.bands.iter().cloned() {
            let mut band = PacedBand {
                runtime: key.runtime,
                mode: key.mode,
                workers: group.several_workers.then_some(key.workers),
                capacity: group.several_capacities.then_some(key.capacity),
                setting: key.setting.clone(),
                size,
                tasks,
                entries: Vec::new(),
                p99: PacedRanking::default(),
                cpu: PacedRanking::default(),
                overflow: PacedRanking::default(),
                behind: Vec::new(),
                excluded: Vec::new(),
            };
            fill(&mut band, &cells, &group.channels, noise);
            bands.push(band);
        }
    }
    bands
}

/// A group's cells by (channel, merge, tasks): their samples and paced figures.
type GroupCells<'a> = HashMap<(&'a str, Option<Merge>, u64), (&'a CellSamples, Option<PacedCell>)>;

/// Ranks `channels` in `band` from the group's `cells`: a channel missing a cell or with a
/// failed sample is excluded, one whose pacer fell behind is named apart, the rest ranked.
fn fill(band: &mut PacedBand, cells: &GroupCells, channels: &[(&str, Option<Merge>)], noise: &FileNoise) {
    let mut samples: Vec<Vec<&CellSamples>> = Vec::new();
    for &(channel, merge) in channels {
        let found: Vec<_> = band.tasks.iter().map(|&t| cells.get(&(channel, merge, t))).collect();
        let label = super::load::channel_label(channel, merge);
        let figures: Option<Vec<&PacedCell>> = found
            .iter()
            .map(|cell| cell.filter(|(samples, _)| samples.failed == 0).and_then(|(_, f)| f.as_ref()))
            .collect();
        match figures {
            None => band.excluded.push(label),
            Some(figures) if figures.iter().any(|f| f.pacer_behind) => band.behind.push(label),
            Some(figures) => {
                band.entries.push(entry(channel, merge, &figures));
                samples.push(found.iter().flatten().map(|(cell, _)| *cell).collect());
            }
        }
    }
    let group = Group { runtime: band.runtime, mode: band.mode, setting: band.setting.clone() };
    let rank =
        |value: fn(&PacedEntry) -> Option<f64>, metric| rank(&band.entries, &samples, value, metric, &group, noise);
    (band.p99, band.cpu, band.overflow) = (
        rank(|e| e.p99_ns, Metric::P99),
        rank(|e| e.cpu_ns, Metric::Cpu),
        rank(|e| Some(e.overflow_share), Metric::Overflow),
    );
}

/// One channel's band figures from its cells, task counts ascending.
fn entry(channel: &str, merge: Option<Merge>, cells: &[&PacedCell]) -> PacedEntry {
    let geometric = |value: fn(&PacedCell) -> Option<f64>| -> Option<f64> {
        let values: Option<Vec<f64>> = cells.iter().map(|cell| value(cell)).collect();
        let values = values?;
        if values.iter().any(|&v| v <= 0.0) {
            return Some(0.0);
        }
        Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp())
    };
    let mean = |value: fn(&PacedCell) -> f64| cells.iter().map(|cell| value(cell)).sum::<f64>() / cells.len() as f64;
    let largest = cells.last().expect("a band has a task count");
    PacedEntry {
        channel: channel.to_owned(),
        merge,
        p99_ns: geometric(|cell| cell.latency.map(|l| l.p99 as f64)),
        p999_ns: geometric(|cell| cell.latency.map(|l| l.p999 as f64)),
        cpu_ns: geometric(|cell| cell.cpu_ns_per_delivered),
        overflow_share: mean(|cell| cell.overflow_share),
        drop_share: mean(|cell| cell.drop_share),
        offered_per_s: largest.offered_per_s,
        core_share: largest.core_share,
    }
}

/// The entries that have a `value` (`samples[i]`: entry i's cells, the band's task counts in
/// order): the lowest first, then each other entry with its verdict against it on `metric`
/// (`results::noise::verdict`), the tied ones first.
fn rank(
    entries: &[PacedEntry],
    samples: &[Vec<&CellSamples>],
    value: fn(&PacedEntry) -> Option<f64>,
    metric: Metric,
    group: &Group,
    noise: &FileNoise,
) -> PacedRanking {
    let mut order: Vec<(usize, f64)> =
        entries.iter().enumerate().filter_map(|(at, entry)| Some((at, value(entry)?))).collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let Some(&(first, _)) = order.first() else { return PacedRanking::default() };
    let mut judged: Vec<(usize, Option<Verdict>)> = order
        .iter()
        .map(|&(at, _)| {
            (at, (at != first).then(|| noise::verdict(&samples[first], &samples[at], metric, group, noise)).flatten())
        })
        .collect();
    let tied = |verdict: &Option<Verdict>| verdict.is_some_and(|verdict| verdict.call == Call::Tied);
    judged[1..].sort_by(|a, b| {
        let key = |(_, verdict): &(usize, Option<Verdict>)| (!tied(verdict), verdict.map_or(f64::INFINITY, |v| v.mean));
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    });
    let leaders = 1 + judged.iter().skip(1).filter(|(_, verdict)| tied(verdict)).count();
    let (order, verdicts) = judged.into_iter().unzip();
    PacedRanking { order, verdicts, leaders }
}

/// One paced cell of two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PacedPair<'a> {
    /// The cell, by its full key (phase and send included).
    pub key: &'a CellKey,
    /// Its figures in the old run.
    pub old: PacedCell,
    /// Its figures in the new run.
    pub new: PacedCell,
    /// `compare`'s verdicts on new against old (`results::noise::change`): p99, CPU per
    /// delivered message, frames overflowed; `None` where a side has too little to judge.
    pub verdicts: [Option<Verdict>; 3],
}

impl PacedPair<'_> {
    /// Whether any of the cell's verdicts says the new run is worse beyond the noise.
    pub fn slower(&self) -> bool {
        self.verdicts.iter().flatten().any(|verdict| verdict.call == Call::Higher)
    }
}

/// How far two paced runs agree: the A/A figures that calibrate the paced drift
/// (`results::noise::Metric::drift`).
#[derive(Debug, Clone, PartialEq)]
pub struct PacedAgreement<'a> {
    /// The paced cells of both runs, in the old run's order.
    pub cells: Vec<PacedPair<'a>>,
    /// Pooled p99, larger over smaller, over the cells with latency in both.
    pub p99: Option<Spread>,
    /// The difference of the shares of frames overflowed, in points: (median, worst) over the cells.
    pub overflow_points: Option<(f64, f64)>,
    /// CPU per delivered message, larger over smaller.
    pub cpu: Option<Spread>,
    /// Bands of both runs (same group and band).
    pub bands: usize,
    /// Bands where the runs' leaders share no channel, by p99, CPU and overflow.
    pub contradicted: [usize; 3],
    /// Per runtime, the smallest change a cell's verdict on p99 and on CPU tells apart
    /// (`super::ab::detectable`).
    pub detectable: [Vec<(RuntimeKind, f64)>; 2],
}

/// The A/A figures of two paced runs, cells matched by their full key.
pub fn agreement<'a>(old: &'a ResultsFile, new: &ResultsFile) -> PacedAgreement<'a> {
    let noise = (FileNoise::of(old), FileNoise::of(new));
    let drifts = [Metric::P99, Metric::Cpu, Metric::Overflow].map(|metric| Drift::between(old, new, metric));
    let cells: Vec<PacedPair> = old
        .order
        .iter()
        .filter_map(|key| {
            let (old_samples, new_samples) = (&old.cells[key], new.cells.get(key)?);
            let (old_cell, new_cell) = (of(key, old_samples)?, of(key, new_samples)?);
            let judge = |metric, drift: &Drift| {
                noise::change(
                    old_samples,
                    new_samples,
                    metric,
                    &Group::of(key),
                    (&noise.0, &noise.1),
                    drift.of(key.runtime),
                )
            };
            let verdicts =
                [judge(Metric::P99, &drifts[0]), judge(Metric::Cpu, &drifts[1]), judge(Metric::Overflow, &drifts[2])];
            Some(PacedPair { key, old: old_cell, new: new_cell, verdicts })
        })
        .collect();
    let latency = |cell: &PacedCell| cell.latency.map_or(0.0, |latency| latency.p99 as f64);
    let p99 = spread(cells.iter().map(|pair| (latency(&pair.old), latency(&pair.new))));
    let cpu_of = |cell: &PacedCell| cell.cpu_ns_per_delivered.unwrap_or(0.0);
    let cpu = spread(cells.iter().map(|pair| (cpu_of(&pair.old), cpu_of(&pair.new))));
    let points: Vec<f64> =
        cells.iter().map(|pair| (pair.old.overflow_share - pair.new.overflow_share).abs() * 100.0).collect();
    let overflow_points = stats::summarize(&points).map(|summary| (summary.median, summary.max));
    let (old_bands, new_bands) = (answer(old, &noise.0), answer(new, &noise.1));
    let (mut bands, mut contradicted) = (0, [0; 3]);
    for band in &old_bands {
        let same = |other: &&PacedBand| {
            (other.runtime, other.mode, other.workers, &other.setting, other.size)
                == (band.runtime, band.mode, band.workers, &band.setting, band.size)
        };
        let Some(other) = new_bands.iter().find(same) else { continue };
        bands += 1;
        let rankings: [fn(&PacedBand) -> &PacedRanking; 3] = [|b| &b.p99, |b| &b.cpu, |b| &b.overflow];
        for (at, ranking) in rankings.into_iter().enumerate() {
            let leaders = |band: &PacedBand| -> Vec<String> {
                let ranking = ranking(band);
                ranking.order.iter().take(ranking.leaders).map(|&i| band.entries[i].channel.clone()).collect()
            };
            let (a, b) = (leaders(band), leaders(other));
            if !a.is_empty() && !b.is_empty() && !a.iter().any(|name| b.contains(name)) {
                contradicted[at] += 1;
            }
        }
    }
    let detectable = [0, 1].map(|at| {
        let judged = cells.iter().filter_map(|pair| Some((pair.key.runtime, pair.verdicts[at].as_ref()?)));
        super::ab::detectable(judged.map(|(runtime, verdict)| (runtime, verdict.low.exp(), verdict.high.exp())))
    });
    PacedAgreement { cells, p99, overflow_points, cpu, bands, contradicted, detectable }
}

#[cfg(test)]
mod tests;

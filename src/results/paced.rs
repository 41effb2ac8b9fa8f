//! The answer for paced load (`--pace`): which channel keeps latency, CPU and drops lowest at a
//! given participant count and rate. A paced cell's ns/message restates its schedule, so it is
//! not ranked by speed here: per cell, [`cell`] pools every delivered message's latency (the
//! samples' histograms merged), the share of frames that overflowed and of messages dropped, the
//! CPU per delivered message and what it costs at the offered rate; per runtime, mode, setting
//! (phase and send included) and band of task counts, [`answer`] names the lowest p99, the
//! lowest CPU and the fewest overflowed frames, ranked by the one ranker
//! (`results::recommend::rank`, every verdict the noise model's). A channel whose pacer fell
//! behind in most samples of a cell of the band is named and never ranked. [`answer`] computes;
//! `output::paced` formats.

use super::band::{self, Band, Grouped};
use super::figures::Table;
use super::load::{CellSamples, PacedSample, ResultsFile, latency};
use super::noise::{FileNoise, Metric};
use super::recommend::{Entry, Ranking, rank};
use crate::run::latency::Latency;
use crate::run::workload::Merge;
use crate::stats;
use crate::stats::pool::geometric_mean;

/// The paced figures of one cell, over all its samples.
#[derive(Debug, Clone, PartialEq)]
pub struct PacedCell {
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
    /// How far the figures move from one sample to the next: the median, least and most over
    /// the samples of each one's p99 (ns), share of messages dropped, and share of a core.
    pub ranges: Ranges,
}

/// A figure over a cell's samples: its median, least and most, and how many samples had it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// The median over the samples.
    pub median: f64,
    /// The least.
    pub low: f64,
    /// The most.
    pub high: f64,
    /// How many samples had the figure.
    pub samples: usize,
    /// When the samples fall in two clusters (`stats::clusters`) [`MODES_APART`] or more apart
    /// (a p99 in phase is often a microsecond in some seconds and a hundred in others): each
    /// one's median and samples, the lower first; a median alone would be one or the other as
    /// the samples fell.
    pub modes: Option<[(f64, usize); 2]>,
}

/// A figure over a cell's samples; `None` when no sample had it.
pub type Range = Option<Span>;

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

/// How far apart two clusters of a figure's samples must be to be told as two behaviours
/// ([`Span::modes`]): an order of magnitude. Closer clusters, such as p99s of 1 and 2 µs in a
/// few samples, are one behaviour's noise, and the median says it.
pub const MODES_APART: f64 = 10.0;

/// The median, least and most of `values`, and their modes; `None` when there are none.
fn range(values: impl Iterator<Item = f64>) -> Range {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    let (&low, &high) = (values.first()?, values.last()?);
    let modes = match stats::clusters(&values)[..] {
        [fast, slow] if fast.count + slow.count == values.len() && slow.centre >= MODES_APART * fast.centre => {
            Some([fast, slow].map(|c| (c.centre, c.count)))
        }
        _ => None,
    };
    Some(Span { median: stats::median_of(&mut values), low, high, samples: values.len(), modes })
}

/// The paced figures of a cell of `tasks` tasks from its samples; `None` when it has none (not
/// paced, or no `ok` sample).
pub fn cell(tasks: u64, samples: &[PacedSample]) -> Option<PacedCell> {
    // `load` left out the samples behind in a minority (the host's moment, not the channel's):
    // any still here were behind in most, and the cell is behind.
    let behind = 2 * samples.iter().filter(|s| s.pacer_behind).count() > samples.len();
    let first = samples.first()?;
    let sum = |of: fn(&PacedSample) -> u64| samples.iter().map(of).sum::<u64>();
    let share = |part: u64, whole: u64| if whole == 0 { 0.0 } else { part as f64 / whole as f64 };
    let cpu: Vec<f64> = samples.iter().filter_map(PacedSample::cpu_per_delivered).collect();
    let cpu_ns_per_delivered = stats::summarize(&cpu).map(|summary| summary.trimmed_mean);
    let offered_per_s = tasks as f64 * first.burst as f64 * 1e9 / first.pace_ns.max(1) as f64;
    let growth: Vec<f64> = samples.iter().filter_map(|s| s.resident_growth_bytes.map(|b| b as f64)).collect();
    Some(PacedCell {
        latency: latency(samples),
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

/// The answer for one runtime, mode, setting and band of task counts.
#[derive(Debug, Clone, PartialEq)]
pub struct PacedBand {
    /// Which band.
    pub band: Band,
    /// The channels ranked: every cell of the band present, without failures or a pacer behind.
    pub entries: Vec<PacedEntry>,
    /// By pooled p99.
    pub p99: Ranking<PacedEntry>,
    /// By CPU per delivered message.
    pub cpu: Ranking<PacedEntry>,
    /// By share of frames overflowed.
    pub overflow: Ranking<PacedEntry>,
    /// Channels whose pacer fell behind in most samples of a cell of the band: never ranked.
    pub behind: Vec<String>,
    /// Channels with a failed sample or a missing cell in the band: not ranked.
    pub excluded: Vec<String>,
}

/// The answer for every paced group and band of `file`, in file order, bands smallest first,
/// each cell's figures read from `table` (`file`'s), every verdict from the noise model with
/// the spread `file` measured.
pub fn answer(file: &ResultsFile, table: &Table, noise: &FileNoise) -> Vec<PacedBand> {
    let groups = band::groups(file, table, |key| !file.cells[key].paced.is_empty());
    groups.iter().flat_map(|group| Band::all(group).map(move |band| answer_band(group, band, noise))).collect()
}

/// Ranks `group`'s channels in `band`: a channel missing a cell or with a failed sample is
/// excluded, one whose pacer fell behind is named apart, the rest ranked.
fn answer_band(group: &Grouped, band: Band, noise: &FileNoise) -> PacedBand {
    let (mut entries, mut samples, mut behind, mut excluded) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for &(channel, merge) in &group.channels {
        let label = super::load::channel_label(channel, merge);
        let found: Option<Vec<(&CellSamples, &PacedCell)>> = band
            .tasks
            .iter()
            .map(|&tasks| {
                let cell = group.cells.get(&((channel, merge), tasks)).filter(|cell| cell.samples.failed == 0)?;
                Some((cell.samples, cell.figures.paced.as_ref()?))
            })
            .collect();
        match found {
            None => excluded.push(label),
            Some(found) if found.iter().any(|(_, figures)| figures.pacer_behind) => behind.push(label),
            Some(found) => {
                let (cells, figures): (Vec<&CellSamples>, Vec<&PacedCell>) = found.into_iter().unzip();
                entries.push(entry(channel, merge, &figures));
                samples.push(cells);
            }
        }
    }
    let rank = |value: fn(&PacedEntry) -> Option<f64>, metric| {
        let entered = entries.iter().zip(&samples).filter_map(|(entry, cells)| {
            Some((Entry::new((&entry.channel, entry.merge), value(entry)?, entry.clone()), cells.clone()))
        });
        rank(entered.collect(), metric, &band, noise)
    };
    PacedBand {
        p99: rank(|e| e.p99_ns, Metric::P99),
        cpu: rank(|e| e.cpu_ns, Metric::Cpu),
        overflow: rank(|e| Some(e.overflow_share), Metric::Overflow),
        band,
        entries,
        behind,
        excluded,
    }
}

/// One channel's band figures from its cells, task counts ascending.
fn entry(channel: &str, merge: Option<Merge>, cells: &[&PacedCell]) -> PacedEntry {
    let geometric = |value: fn(&PacedCell) -> Option<f64>| {
        cells.iter().map(|cell| value(cell)).collect::<Option<Vec<f64>>>().map(geometric_mean)
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

#[cfg(test)]
pub(crate) mod tests;

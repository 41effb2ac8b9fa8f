//! The answer for paced load (`--pace`): which channel keeps latency, CPU and drops lowest at a
//! given participant count and rate. A paced cell's ns/message restates its schedule, so it is
//! not ranked by speed here: per cell, [`cell`](mod@cell) pools every delivered message's latency (the
//! samples' histograms merged), the share of frames that overflowed and of messages dropped, the
//! CPU per delivered message and what it costs at the offered rate; per runtime, mode, setting
//! (phase and send included) and band of task counts, [`answer`] names the lowest p99, the
//! lowest CPU and the fewest overflowed frames, ranked by the one ranker
//! (`results::recommend::rank`, every verdict the noise model's). A channel whose pacer fell
//! behind in most samples of a cell of the band is named and never ranked. [`answer`] computes;
//! `output::paced` formats.

use super::band::{Band, Grouped};
use super::load::{CellSamples, ChannelId, ResultsFile};
use super::noise::{FileNoise, Metric};
use super::recommend::{Entry, Ranking, rank};
use crate::run::workload::Merge;
use crate::stats::pool::geometric_mean;

pub mod cell;
pub use cell::{MODES_APART, PacedCell, Range, Ranges, Span, cell};

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
    pub behind: Vec<ChannelId>,
    /// Channels with a failed sample or a missing cell in the band: not ranked.
    pub excluded: Vec<ChannelId>,
}

/// The answer for every band of a file's paced `groups` (`band::Groups::paced`), in file order,
/// bands smallest first, every verdict from the noise model with the spread the file measured.
pub fn answer(groups: &[Grouped], noise: &FileNoise) -> Vec<PacedBand> {
    groups.iter().flat_map(|group| group.bands.iter().map(move |band| answer_band(group, band, noise))).collect()
}

/// Ranks `group`'s channels in `band`: a channel missing a cell or with a failed sample is
/// excluded, one whose pacer fell behind is named apart, the rest ranked.
fn answer_band(group: &Grouped, band: &Band, noise: &FileNoise) -> PacedBand {
    let (mut entries, mut samples, mut behind, mut excluded) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for &(channel, merge) in &group.channels {
        let id = ChannelId::of((channel, merge));
        let found: Option<Vec<(&CellSamples, &PacedCell)>> = band
            .tasks
            .iter()
            .map(|&tasks| {
                let cell = group.cells.get(&((channel, merge), tasks)).filter(|cell| cell.samples.failed == 0)?;
                Some((cell.samples, cell.figures.paced.as_ref()?))
            })
            .collect();
        match found {
            None => excluded.push(id),
            Some(found) if found.iter().any(|(_, figures)| figures.pacer_behind) => behind.push(id),
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
        rank(entered.collect(), metric, band, noise)
    };
    PacedBand {
        p99: rank(|e| e.p99_ns, Metric::P99),
        cpu: rank(|e| e.cpu_ns, Metric::Cpu),
        overflow: rank(|e| Some(e.overflow_share), Metric::Overflow),
        band: band.clone(),
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

/// The paced answer of `file` with its own figures and noise.
#[cfg(test)]
pub(crate) fn of_file(file: &ResultsFile) -> Vec<PacedBand> {
    let table = super::figures::Table::of(file);
    answer(&super::band::Groups::of(file, &table).paced, &FileNoise::of(file))
}

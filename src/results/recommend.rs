//! Which channel should I use? `channel-bench summary FILE.csv`, and the end of every sweep.
//!
//! For each runtime and mode, and each band of task counts ([`TaskBand`]), the channels are
//! ranked by the geometric mean of their per-cell trimmed means over the band's task counts (the
//! mean, not the median: see [`crate::stats`]): ns per message, CPU ns per message, and the p99
//! latency when the file has it. The median stays beside it ([`Shape::median`]), and a channel
//! with a cell of several clusters is marked ([`Shape::mixed`]). [`rank`] is the crate's one ranker
//! (`results::paced` ranks with it too). A channel with a failed sample, or without a cell at
//! one of the band's task counts, is listed with the reason instead; `Recommendation::careful`
//! names the fastest with no known problem. [`recommend`] computes; `output::summary` formats.

pub use super::band::TaskBand;
use super::band::{Band, Cell, Contender, Grouped};
use super::careful::{self, Careful};
use super::figures::Figures;
use super::load::{CellSamples, ChannelId};
use super::memory::BandMemory;
use super::noise::{self, FileNoise, Metric, VERDICT_CONFIDENCE};
pub use super::ranking::{Entry, Ranking, Shape};
use super::schema::SampleStatus;
use crate::run::workload::Merge;
use crate::stats::pool::geometric_mean;
use crate::stats::verdict::Call;

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
    /// Which band.
    pub band: Band,
    /// By mean ns/message.
    pub speed: Ranking,
    /// By mean CPU ns/message; empty when the file has no CPU time.
    pub cpu: Ranking,
    /// By mean p99 latency in ns, among the channels measured for it at every task count of
    /// the band; empty when none was.
    pub p99: Ranking,
    /// Channels not ranked, with the reason.
    pub excluded: Vec<Excluded>,
    /// The fastest channel with no known problem, read off `speed`.
    pub careful: Careful,
    /// What the pick keeps in memory beside the channel that keeps least, from the cells'
    /// memory figures; empty without a memory sidecar.
    pub memory: BandMemory,
}

/// The recommendation for every band of a file's `groups` (`band::Groups::all`), in the order
/// the groups first appear in the file, bands smallest first, each channel by its cells'
/// figures, every verdict from the noise model ([`noise::verdict`]) with the spread the file
/// measured.
pub fn recommend(groups: &[Grouped], noise: &FileNoise) -> Vec<Recommendation> {
    groups.iter().flat_map(|group| group.bands.iter().map(move |band| rank_band(group, band, noise))).collect()
}

/// One band of `group`: its three rankings and the channels left out of them.
fn rank_band(group: &Grouped, band: &Band, noise: &FileNoise) -> Recommendation {
    let tasks = &band.tasks;
    let mut candidates: Vec<(Contender, Vec<Cell>)> = Vec::new();
    let mut excluded = Vec::new();
    for &channel in &group.channels {
        let found: Vec<Option<Cell>> = tasks.iter().map(|&t| group.cells.get(&(channel, t)).copied()).collect();
        let at = |wanted: fn(Option<&CellSamples>) -> bool| -> Vec<u64> {
            tasks
                .iter()
                .zip(&found)
                .filter(|(_, cell)| wanted(cell.map(|cell| cell.samples)))
                .map(|(&t, _)| t)
                .collect()
        };
        let missing_at = at(|cell| cell.is_none());
        let failed_at = at(|cell| cell.is_some_and(|cell| cell.failed > 0 && !refused(cell)));
        let refused_at = at(|cell| cell.is_some_and(refused));
        if missing_at.is_empty() && failed_at.is_empty() && refused_at.is_empty() {
            candidates.push((channel, found.into_iter().flatten().collect()));
        } else {
            let samples = found.iter().flatten().map(|cell| cell.samples);
            let failed_samples = samples.filter(|cell| !refused(cell)).map(|cell| cell.failed).sum();
            let (channel, merge) = (channel.0.to_owned(), channel.1);
            excluded.push(Excluded { channel, merge, failed_samples, failed_at, missing_at, refused_at });
        }
    }
    let by = |metric: Metric| {
        let entered = candidates.iter().filter_map(|(channel, cells)| {
            let figures: Vec<&Figures> =
                cells.iter().map(|cell| cell.figures.of_metric(metric)).collect::<Option<_>>()?;
            let median = geometric_mean(figures.iter().map(|figures| figures.median));
            let mixed = figures.iter().any(|figures| !figures.clusters.is_empty());
            let bounded = cells.iter().any(|cell| cell.samples.bounded > 0);
            let value = geometric_mean(figures.iter().map(|figures| figures.trimmed_mean));
            let samples = cells.iter().map(|cell| cell.samples).collect();
            Some((Entry::new(*channel, value, Shape { median, mixed, bounded }), samples))
        });
        rank(entered.collect(), metric, band, noise)
    };
    let speed = by(Metric::Speed);
    let careful = careful::of(&speed);
    let kept = group.channels.iter().map(|&channel| {
        let cells = tasks.iter().map(|&t| group.cells.get(&(channel, t)).and_then(|cell| cell.figures.memory));
        (ChannelId::of(channel), cells.collect())
    });
    let pick = speed.first().and_then(|first| group.channels.iter().position(|&channel| channel == first.id()));
    let memory = BandMemory::of(pick, kept);
    Recommendation { speed, careful, cpu: by(Metric::Cpu), p99: by(Metric::P99), excluded, band: band.clone(), memory }
}

/// Whether the cell's one row is a refusal: its channel cannot run it (`sweep`'s refused row).
fn refused(cell: &CellSamples) -> bool {
    cell.ok.is_empty() && matches!(cell.first_failure, Some(SampleStatus::Refused(_)))
}

/// The one ranker, for every metric (speed, CPU, p99, frames overflowed), paced or not:
/// `channels` are the entries to rank, each with its cells at `band`'s task counts in the
/// same order. The first is the channel with the lowest value, unless a verdict against it
/// calls others lower beyond the noise: then the one whose estimate is lowest takes its seat
/// (paired samples outrank figures taken apart) and every verdict is made again against it.
/// Every other channel gets its verdict against the first ([`noise::verdict`]) and is tied
/// with it exactly when that verdict is a tie; the tied come first, then the others, each by
/// its verdict's estimate, those without a verdict last.
pub fn rank<E>(
    mut channels: Vec<(Entry<E>, Vec<&CellSamples>)>,
    metric: Metric,
    band: &Band,
    noise: &FileNoise,
) -> Ranking<E> {
    let group = band.noise_group();
    channels.sort_by(|a, b| a.0.value.total_cmp(&b.0.value));
    let judge = |channels: &mut [(Entry<E>, Vec<&CellSamples>)]| {
        let first = channels[0].1.clone();
        for (at, (entry, cells)) in channels.iter_mut().enumerate() {
            entry.verdict =
                (at != 0).then(|| noise::verdict(&first, cells, metric, &group, noise, VERDICT_CONFIDENCE)).flatten();
            entry.tied_with_first = entry.verdict.is_some_and(|verdict| verdict.call == Call::Tied);
        }
    };
    if channels.is_empty() {
        return Ranking { entries: Vec::new() };
    }
    judge(&mut channels);
    let lower = channels.iter().enumerate().filter_map(|(at, (entry, _))| {
        entry.verdict.filter(|verdict| verdict.call == Call::Lower).map(|verdict| (at, verdict.mean))
    });
    if let Some((first, _)) = lower.min_by(|a, b| a.1.total_cmp(&b.1)) {
        channels.swap(0, first);
        judge(&mut channels);
    }
    let mut entries: Vec<Entry<E>> = channels.into_iter().map(|(entry, _)| entry).collect();
    let key = |entry: &Entry<E>| (!entry.tied_with_first, entry.verdict.map_or(f64::INFINITY, |verdict| verdict.mean));
    entries[1..].sort_by(|a, b| key(a).0.cmp(&key(b).0).then(key(a).1.total_cmp(&key(b).1)));
    Ranking { entries }
}

#[cfg(test)]
mod tests;

/// The recommendations of `file` with its own figures and noise.
#[cfg(test)]
pub(crate) fn of_file(file: &super::load::ResultsFile) -> Vec<Recommendation> {
    let table = super::figures::Table::of(file);
    recommend(&super::band::Groups::of(file, &table).all, &FileNoise::of(file))
}

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
use super::band::{self, Band, Contender, Grouped};
use super::careful::{self, Careful};
use super::column::Column;
use super::load::{CellSamples, ResultsFile};
use super::noise::{self, FileNoise, Metric, VERDICT_CONFIDENCE};
use crate::run::workload::Merge;
use crate::stats::pool::geometric_mean;
use crate::stats::verdict::{Call, Verdict};
use crate::stats::{self, Summary};

/// One channel's place in a [`Ranking`]: what it was ranked by, its verdict against the first,
/// and `E`, the rest of its figures ([`Shape`] for speed, CPU and p99 per sample; the paced
/// figures for a paced band).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<E = Shape> {
    /// Channel name.
    pub channel: String,
    /// How merged-recv merged the receivers; `None` in cloned-send.
    pub merge: Option<Merge>,
    /// The figure ranked, over the band's task counts: the geometric mean of the per-cell
    /// figures (ns/message, CPU ns/message, ns of latency), or the mean share of frames
    /// overflowed.
    pub value: f64,
    /// The verdict on this channel against the ranking's first (`results::noise::verdict`: on
    /// the log scale, from their paired samples where they have them; in points for frames
    /// overflowed); `None` for the first itself, or when the two have too few samples for one.
    pub verdict: Option<Verdict>,
    /// Whether the verdict is a tie: the channel is within the noise of the first.
    pub tied_with_first: bool,
    /// The channel's other figures.
    pub figures: E,
}

/// The spread of a channel's samples over a band, beside its figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// The geometric mean, over the band's task counts, of the per-cell medians.
    pub median: f64,
    /// Whether the samples of one of the channel's cells in the band form more than one
    /// cluster ([`stats::clusters`]).
    pub mixed: bool,
    /// Whether one of the channel's cells in the band has a sample stopped at its bound
    /// ([`CellSamples::bounded`]): the channel was far behind, its figure over fewer messages.
    pub bounded: bool,
}

impl<E> Entry<E> {
    /// A channel to rank, by `value`, before any verdict.
    pub fn new((channel, merge): Contender, value: f64, figures: E) -> Entry<E> {
        Entry { channel: channel.to_owned(), merge, value, verdict: None, tied_with_first: false, figures }
    }

    /// The channel as reports name it (`results::load::channel_label`).
    pub fn label(&self) -> String {
        super::load::channel_label(&self.channel, self.merge)
    }

    /// This channel's figure over the first's, as the verdict measured it (paired where it
    /// could be), with its interval: `(ratio, low, high)`. `None` for the first.
    pub fn ratio(&self) -> Option<(f64, f64, f64)> {
        self.verdict.map(|verdict| (verdict.mean.exp(), verdict.low.exp(), verdict.high.exp()))
    }
}

/// Channels ordered by one metric, lowest (best) first: see [`rank`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking<E = Shape> {
    /// The first, then the channels tied with it, then the others, each by its verdict's
    /// estimate against the first.
    pub entries: Vec<Entry<E>>,
}

impl<E> Ranking<E> {
    /// The channel with the lowest value.
    pub fn first(&self) -> Option<&Entry<E>> {
        self.entries.first()
    }

    /// The first and every channel within the noise of it, in ranking order: one entry when
    /// the first stands alone, none when none is ranked.
    pub fn leaders(&self) -> &[Entry<E>] {
        let tied = self.entries.iter().skip(1).take_while(|entry| entry.tied_with_first).count();
        &self.entries[..self.entries.len().min(1 + tied)]
    }

    /// Whether any channel is within the noise of the first.
    pub fn is_tie(&self) -> bool {
        self.leaders().len() > 1
    }

    /// The runner-up: the second entry, with its verdict against the first; `None` with one
    /// entry or none.
    pub fn runner_up(&self) -> Option<&Entry<E>> {
        self.entries.get(1)
    }

    /// The best channel beyond the noise of the first; `None` when every other channel is tied
    /// with the first or there is none.
    pub fn next(&self) -> Option<&Entry<E>> {
        self.entries.get(self.leaders().len().max(1))
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
}

/// The recommendation for every runtime × mode × band of `file` that has data, in the
/// order the runtimes and modes first appear in the file, bands smallest first, every verdict
/// from the noise model ([`noise::verdict`]) with the spread `file` measured.
pub fn recommend(file: &ResultsFile, noise: &FileNoise) -> Vec<Recommendation> {
    let groups = band::groups(file, |_| true);
    groups.iter().flat_map(|group| Band::all(group).map(move |band| rank_band(group, band, noise))).collect()
}

/// One band of `group`: its three rankings and the channels left out of them.
fn rank_band(group: &Grouped, band: Band, noise: &FileNoise) -> Recommendation {
    let tasks = &band.tasks;
    let mut candidates: Vec<(Contender, Vec<&CellSamples>)> = Vec::new();
    let mut excluded = Vec::new();
    for &channel in &group.channels {
        let found: Vec<Option<&CellSamples>> = tasks.iter().map(|&t| group.cells.get(&(channel, t)).copied()).collect();
        let at = |wanted: fn(Option<&CellSamples>) -> bool| -> Vec<u64> {
            tasks.iter().zip(&found).filter(|(_, cell)| wanted(**cell)).map(|(&t, _)| t).collect()
        };
        let missing_at = at(|cell| cell.is_none());
        let failed_at = at(|cell| cell.is_some_and(|cell| cell.failed > 0 && !refused(cell)));
        let refused_at = at(|cell| cell.is_some_and(refused));
        if missing_at.is_empty() && failed_at.is_empty() && refused_at.is_empty() {
            candidates.push((channel, found.into_iter().flatten().collect()));
        } else {
            let failed_samples = found.iter().flatten().filter(|cell| !refused(cell)).map(|cell| cell.failed).sum();
            let (channel, merge) = (channel.0.to_owned(), channel.1);
            excluded.push(Excluded { channel, merge, failed_samples, failed_at, missing_at, refused_at });
        }
    }
    let by = |metric: Metric| {
        let entered = candidates.iter().filter_map(|(channel, cells)| {
            let summaries: Vec<Summary> = cells.iter().map(|cell| figures(cell, metric).1).collect::<Option<_>>()?;
            let median = geometric_mean(summaries.iter().map(|cell| cell.median));
            let mixed = cells.iter().any(|cell| stats::clusters(figures(cell, metric).0).len() > 1);
            let bounded = cells.iter().any(|cell| cell.bounded > 0);
            let value = geometric_mean(summaries.iter().map(|cell| cell.trimmed_mean));
            Some((Entry::new(*channel, value, Shape { median, mixed, bounded }), cells.clone()))
        });
        rank(entered.collect(), metric, &band, noise)
    };
    let speed = by(Metric::Speed);
    let careful = careful::of(&speed);
    Recommendation { speed, careful, cpu: by(Metric::Cpu), p99: by(Metric::P99), excluded, band }
}

/// Whether the cell's one row is a refusal: its channel cannot run it (`sweep`'s refused row).
fn refused(cell: &CellSamples) -> bool {
    cell.ok.is_empty() && cell.first_failure.as_deref().is_some_and(|status| status.starts_with(REFUSED))
}

/// How the status of a refused row starts (`sweep::capacity_mismatch` writes it).
pub const REFUSED: &str = "capacity: refused:";

/// The values of one metric of a cell, and its summary as rankings show it.
fn figures(cell: &CellSamples, metric: Metric) -> (&[f64], Option<Summary>) {
    let column = match metric {
        // Speed reads pooled runs as runs (`results::pool::speed`); the other metrics read samples.
        Metric::Speed => return (&cell.ok, super::pool::speed(cell)),
        Metric::Cpu => Column::CpuNsPerMessage,
        Metric::P99 | Metric::Overflow => Column::LatP99,
    };
    (&cell.columns[column], stats::summarize(&cell.columns[column]))
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

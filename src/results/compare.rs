//! What changed between two runs, cell by cell: a verdict per cell, beyond the noise or not,
//! on the cells' mean cost per message (the headline figure, [`crate::stats`]); and how far
//! two runs' figures are apart over many cells ([`Spread`]), which is how A/A runs (the same
//! build twice) calibrate the noise model's drift (`super::noise`).

use std::collections::HashMap;

use super::ab::detectable;
use super::load::{CellKey, ResultsFile};
use super::noise::{Drift, FileNoise, Group, Metric, change};
use super::pool::speed;
use super::recommend::{Recommendation, recommend};
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Merge, Mode};
use crate::stats::verdict::Call;
use crate::stats::{self, Summary};

/// What a comparison says about one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// NEW's mean is lower, beyond the noise of both files.
    Faster,
    /// NEW's mean is higher, beyond the noise of both files.
    Slower,
    /// The difference is within the noise, or smaller than the threshold.
    NoChange,
}

impl Verdict {
    /// The word printed in the table.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "~",
        }
    }
}

impl Verdict {
    /// The verdict of the noise model's call on new − old.
    fn of(call: Call) -> Verdict {
        match call {
            Call::Lower => Verdict::Faster,
            Call::Higher => Verdict::Slower,
            Call::Tied => Verdict::NoChange,
        }
    }
}

/// How far apart two runs' figures are over a set of cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Cells compared.
    pub cells: usize,
    /// The median over the cells of larger/smaller (1.0 = the same figure).
    pub median: f64,
    /// The largest larger/smaller.
    pub worst: f64,
}

/// The [`Spread`] of `pairs` of (old, new) figures; `None` when there is no pair with two
/// positive figures.
pub fn spread(pairs: impl IntoIterator<Item = (f64, f64)>) -> Option<Spread> {
    let ratios: Vec<f64> = pairs
        .into_iter()
        .filter(|&(old, new)| old > 0.0 && new > 0.0)
        .map(|(old, new)| (new / old).max(old / new))
        .collect();
    let summary = crate::stats::summarize(&ratios)?;
    Some(Spread { cells: summary.count, median: summary.median, worst: summary.max })
}

/// Cells counted by what their comparison said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cells faster beyond the noise.
    pub faster: usize,
    /// Cells slower beyond the noise.
    pub slower: usize,
    /// Cells without a change beyond the noise.
    pub no_change: usize,
    /// Cells without an `ok` sample in one file or both, so not compared.
    pub without_ok: usize,
}

impl Counts {
    /// Counts one cell: its verdict, or `None` when it has no `ok` sample to compare.
    fn add(&mut self, verdict: Option<Verdict>) {
        match verdict {
            Some(Verdict::Faster) => self.faster += 1,
            Some(Verdict::Slower) => self.slower += 1,
            Some(Verdict::NoChange) => self.no_change += 1,
            None => self.without_ok += 1,
        }
    }

    /// Every cell counted.
    pub fn total(&self) -> usize {
        self.faster + self.slower + self.no_change + self.without_ok
    }
}

/// A cell found in both files with `ok` samples in both.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// The summary of the cell's `ok` samples in the old file.
    pub old: Summary,
    /// The same in the new file.
    pub new: Summary,
    /// What the comparison says (`noise::change` on ns/message).
    pub verdict: Verdict,
    /// The interval of new over old that the verdict rests on (`noise::change`).
    pub interval: (f64, f64),
    /// The clusters of the old samples (`stats::clusters`): more than one for a mixed cell.
    pub old_clusters: Vec<stats::Cluster>,
    /// The clusters of the new samples.
    pub new_clusters: Vec<stats::Cluster>,
}

impl Compared {
    /// The new trimmed mean over the old.
    pub fn ratio(&self) -> f64 {
        self.new.trimmed_mean / self.old.trimmed_mean
    }
}

/// How far apart the two files' figures are over the cells of one runtime.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuntimeSpread {
    /// The runtime.
    pub runtime: RuntimeKind,
    /// Of the trimmed means (the headline).
    pub trimmed_means: Spread,
    /// Of the medians.
    pub medians: Spread,
}

/// Cells whose samples form more than one cluster.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mixed {
    /// In the old file.
    pub old: usize,
    /// In the new file.
    pub new: usize,
    /// In both.
    pub both: usize,
}

/// Two files compared cell by cell: what `compare` prints, computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison<'a> {
    /// The cells found in both files, in the old file's order; `None` for a cell without an
    /// `ok` sample in one of them.
    pub cells: Vec<(&'a CellKey, Option<Compared>)>,
    /// Cells only the old file has, in its order.
    pub only_old: Vec<&'a CellKey>,
    /// Cells only the new file has, in its order.
    pub only_new: Vec<&'a CellKey>,
    /// The cells in both, counted by verdict.
    pub counts: Counts,
    /// The same per runtime, in [`RuntimeKind::ALL`] order, runtimes without a cell left out.
    pub counts_by_runtime: Vec<(RuntimeKind, Counts)>,
    /// The spread of the trimmed means over the compared cells, and the cell furthest apart.
    pub overall: Option<(Spread, &'a CellKey)>,
    /// The spreads per runtime, in [`RuntimeKind::ALL`] order.
    pub by_runtime: Vec<RuntimeSpread>,
    /// The mixed cells among those compared.
    pub mixed: Mixed,
    /// Disturbed samples left out (`stats::disturbed`): in the old file, in the new.
    pub disturbed: (usize, usize),
    /// Whether the two files pick the same channels.
    pub agreement: Agreement,
    /// The runtimes for which the files hold several worker counts, so a cell names its own.
    pub several_workers: Vec<RuntimeKind>,
    /// The drift between the two files the verdicts were widened by.
    pub drift: Drift,
    /// Per runtime, the smallest change a cell's verdict tells apart (`results::ab::detectable`).
    pub detectable: Vec<(RuntimeKind, f64)>,
}

/// Compares `new` with `old` cell by cell, each verdict from the noise model
/// (`noise::change`, each side with the spread its own file measured).
pub fn compare<'a>(old: &'a ResultsFile, new: &'a ResultsFile) -> Comparison<'a> {
    let noise = (FileNoise::of(old), FileNoise::of(new));
    let drift = Drift::between(old, new, Metric::Speed);
    let mut cells = Vec::new();
    let (mut counts, mut mixed) = (Counts::default(), Mixed::default());
    let mut counts_by_runtime: Vec<(RuntimeKind, Counts)> = Vec::new();
    for key in old.order.iter().filter(|key| new.cells.contains_key(*key)) {
        let (old_cell, new_cell) = (&old.cells[key], &new.cells[key]);
        let judged =
            change(old_cell, new_cell, Metric::Speed, &Group::of(key), (&noise.0, &noise.1), drift.of(key.runtime));
        let compared = speed(old_cell).zip(speed(new_cell)).map(|(old_summary, new_summary)| Compared {
            old: old_summary,
            new: new_summary,
            verdict: judged.map_or(Verdict::NoChange, |judged| Verdict::of(judged.call)),
            interval: judged.map_or((0.0, f64::INFINITY), |judged| (judged.low.exp(), judged.high.exp())),
            old_clusters: stats::clusters(&old_cell.ok),
            new_clusters: stats::clusters(&new_cell.ok),
        });
        let verdict = compared.as_ref().map(|compared| compared.verdict);
        counts.add(verdict);
        let at = counts_by_runtime.iter().position(|(runtime, _)| *runtime == key.runtime).unwrap_or_else(|| {
            counts_by_runtime.push((key.runtime, Counts::default()));
            counts_by_runtime.len() - 1
        });
        counts_by_runtime[at].1.add(verdict);
        if let Some(compared) = &compared {
            let (old_mixed, new_mixed) = (compared.old_clusters.len() > 1, compared.new_clusters.len() > 1);
            mixed.old += usize::from(old_mixed);
            mixed.new += usize::from(new_mixed);
            mixed.both += usize::from(old_mixed && new_mixed);
        }
        cells.push((key, compared));
    }
    counts_by_runtime.sort_by_key(|(runtime, _)| RuntimeKind::ALL.iter().position(|known| known == runtime));
    let only = |file: &'a ResultsFile, other: &ResultsFile| -> Vec<&'a CellKey> {
        file.order.iter().filter(|key| !other.cells.contains_key(*key)).collect()
    };
    let disturbed = |file: &ResultsFile| file.cells.values().map(|cell| cell.disturbed.len()).sum::<usize>();
    let intervals = cells.iter().filter_map(|(key, c)| c.as_ref().map(|c| (key.runtime, c.interval.0, c.interval.1)));
    Comparison {
        detectable: detectable(intervals),
        overall: overall(&cells),
        by_runtime: by_runtime(&cells),
        only_old: only(old, new),
        only_new: only(new, old),
        counts,
        counts_by_runtime,
        mixed,
        disturbed: (disturbed(old), disturbed(new)),
        agreement: agreement(old, new),
        several_workers: several_workers(old, new),
        cells,
        drift,
    }
}

/// The (old, new) trimmed means of a compared cell.
fn trimmed_means(compared: &Compared) -> (f64, f64) {
    (compared.old.trimmed_mean, compared.new.trimmed_mean)
}

/// The spread of the trimmed means over the compared cells, and the cell furthest apart.
fn overall<'a>(cells: &[(&'a CellKey, Option<Compared>)]) -> Option<(Spread, &'a CellKey)> {
    let compared = || cells.iter().filter_map(|(key, compared)| Some((*key, compared.as_ref()?)));
    let apart = |(old, new): (f64, f64)| (new / old).max(old / new);
    let (worst, _) = compared().max_by(|a, b| apart(trimmed_means(a.1)).total_cmp(&apart(trimmed_means(b.1))))?;
    Some((spread(compared().map(|(_, compared)| trimmed_means(compared)))?, worst))
}

/// The spreads of the trimmed means and of the medians per runtime.
fn by_runtime(cells: &[(&CellKey, Option<Compared>)]) -> Vec<RuntimeSpread> {
    RuntimeKind::ALL
        .into_iter()
        .filter_map(|runtime| {
            let of = |figures: fn(&Compared) -> (f64, f64)| {
                spread(
                    cells.iter().filter(|(key, _)| key.runtime == runtime).filter_map(|(_, c)| c.as_ref().map(figures)),
                )
            };
            let medians = of(|compared| (compared.old.median, compared.new.median));
            Some(RuntimeSpread { runtime, trimmed_means: of(trimmed_means)?, medians: medians? })
        })
        .collect()
}

/// The runtimes for which `old` and `new` together hold more than one worker count.
fn several_workers(old: &ResultsFile, new: &ResultsFile) -> Vec<RuntimeKind> {
    let mut workers: Vec<(RuntimeKind, u64)> =
        old.order.iter().chain(&new.order).map(|key| (key.runtime, key.workload.workers)).collect();
    workers.sort_unstable();
    workers.dedup();
    let mut several: Vec<RuntimeKind> =
        workers.windows(2).filter(|pair| pair[0].0 == pair[1].0).map(|pair| pair[0].0).collect();
    several.dedup();
    several
}

/// Whether two runs pick the same channels: what a user choosing a channel would read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Agreement {
    /// (runtime, mode, tasks) groups with a channel of lowest mean in both files.
    pub groups: usize,
    /// Of those, the groups whose lowest mean is the same channel in both.
    pub same_fastest: usize,
    /// Summary bands (runtime, mode, band of task counts) ranked in both files.
    pub bands: usize,
    /// Of those, the bands whose leaders (the first and the channels tied with it) share a channel.
    pub bands_overlapping: usize,
    /// Of those, the bands where one file names a clear winner that the other does not count
    /// among its leaders.
    pub bands_contradicted: usize,
}

/// How often `old` and `new` agree on the fastest channel (by trimmed mean ns/message), per
/// group of cells and per band of the summary (as `summary` ranks).
pub fn agreement(old: &ResultsFile, new: &ResultsFile) -> Agreement {
    type Group<'a> = (RuntimeKind, Mode, Capacity, u64, &'a str);
    fn fastest(file: &ResultsFile) -> HashMap<Group<'_>, (f64, (&str, Option<Merge>))> {
        let mut best = HashMap::new();
        for (key, cell) in &file.cells {
            let Some(summary) = speed(cell) else { continue };
            let group = (key.runtime, key.mode, key.workload.capacity, key.tasks, key.setting.as_str());
            let entry = best.entry(group).or_insert((f64::INFINITY, ("", None)));
            if summary.trimmed_mean < entry.0 {
                *entry = (summary.trimmed_mean, (key.channel.as_str(), key.merge));
            }
        }
        best
    }
    let (old_fastest, new_fastest) = (fastest(old), fastest(new));
    let mut result = Agreement::default();
    for (group, (_, channel)) in &old_fastest {
        if let Some((_, other)) = new_fastest.get(group) {
            result.groups += 1;
            result.same_fastest += usize::from(channel == other);
        }
    }
    let (old_bands, new_bands) = (recommend(old, &FileNoise::of(old)), recommend(new, &FileNoise::of(new)));
    for band in &old_bands {
        let group = |b: &Recommendation| (b.runtime, b.mode, b.workers, b.capacity, b.setting.clone(), b.size);
        let Some(other) = new_bands.iter().find(|b| group(b) == group(band)) else {
            continue;
        };
        let leaders = |band: &Recommendation| -> Vec<(String, Option<Merge>)> {
            band.speed.leaders().iter().map(|entry| (entry.channel.clone(), entry.merge)).collect()
        };
        let (ours, theirs) = (leaders(band), leaders(other));
        if ours.is_empty() || theirs.is_empty() {
            continue;
        }
        result.bands += 1;
        result.bands_overlapping += usize::from(ours.iter().any(|channel| theirs.contains(channel)));
        let contradicts = |winner: &Recommendation, leaders: &[(String, Option<Merge>)]| {
            !winner.speed.is_tie()
                && winner.speed.first().is_some_and(|first| !leaders.contains(&(first.channel.clone(), first.merge)))
        };
        result.bands_contradicted += usize::from(contradicts(band, &theirs) || contradicts(other, &ours));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats;

    fn cell(values: &[f64]) -> ResultsFile {
        crate::results::load::hand_made(&[("a", 1, values, 0)])
    }

    /// The verdict of `compare` on one hand-made cell.
    fn verdict(old: &[f64], new: &[f64]) -> Verdict {
        let (old, new) = (cell(old), cell(new));
        compare(&old, &new).cells[0].1.as_ref().map_or(Verdict::NoChange, |compared| compared.verdict)
    }

    #[test]
    fn clearly_lower_is_faster_and_higher_is_slower() {
        let old = [100.0, 101.0, 99.0, 100.5, 100.2];
        let new = [60.0, 61.0, 59.5, 60.2, 60.9];
        assert_eq!(verdict(&old, &new), Verdict::Faster);
        assert_eq!(verdict(&new, &old), Verdict::Slower);
    }

    #[test]
    fn overlapping_noise_is_no_change() {
        let old = [100.0, 140.0, 90.0, 120.0, 105.0];
        let new = [115.0, 150.0, 95.0, 130.0, 118.0];
        assert_eq!(verdict(&old, &new), Verdict::NoChange);
    }

    #[test]
    fn a_steady_change_inside_the_drift_between_runs_is_no_change() {
        // 5% apart with almost no spread: runs of one build move a multi-thread cell that much.
        let old = [100.0, 100.1, 100.2, 100.0, 100.1];
        let new = [105.0, 105.1, 105.2, 105.0, 105.1];
        assert_eq!(verdict(&old, &new), Verdict::NoChange);
        let interval = compare(&cell(&old), &cell(&new)).cells[0].1.as_ref().unwrap().interval;
        assert!(interval.0 < 1.0 && interval.1 > 1.05, "{interval:?}");
    }

    #[test]
    fn a_flipped_majority_cluster_is_no_change() {
        // The same two clusters, 60/40 one run and 40/60 the next: the median jumps 3×, the
        // trimmed means 67 and 93 are far apart, but so are the samples within each run.
        let old = [40.0, 41.0, 39.0, 120.0, 121.0];
        let new = [40.0, 41.0, 119.0, 120.0, 121.0];
        assert!(stats::median_of(&mut new.clone()) / stats::median_of(&mut old.clone()) > 2.9);
        assert_eq!(verdict(&old, &new), Verdict::NoChange);
    }

    #[test]
    fn spreads_are_symmetric_ratios() {
        let spread = spread([(100.0, 110.0), (110.0, 100.0), (100.0, 300.0), (0.0, 5.0)]).unwrap();
        assert_eq!((spread.cells, spread.worst), (3, 3.0));
        assert!((spread.median - 1.1).abs() < 1e-12);
        assert_eq!(super::spread([]), None);
    }

    #[test]
    fn agreement_counts_groups_and_bands_that_pick_alike() {
        use crate::results::load::hand_made;
        let steady = |value: f64| [value, value * 1.001, value * 0.999, value * 1.002, value * 0.998];
        let (a, b, c) = (steady(100.0), steady(200.0), steady(101.0));
        // Tasks 1: a clearly first in both. Tasks 64: a in one run, b in the other, both clear.
        let old = hand_made(&[("a", 1, &a, 0), ("b", 1, &b, 0), ("a", 64, &a, 0), ("b", 64, &b, 0)]);
        let new = hand_made(&[("a", 1, &a, 0), ("b", 1, &b, 0), ("a", 64, &b, 0), ("b", 64, &a, 0)]);
        let agreement = agreement(&old, &new);
        assert_eq!((agreement.groups, agreement.same_fastest), (2, 1));
        assert_eq!((agreement.bands, agreement.bands_overlapping, agreement.bands_contradicted), (2, 1, 1));
        // A tie within the threshold contradicts nothing.
        let tied = hand_made(&[("a", 1, &c, 0), ("b", 1, &a, 0)]);
        let agreement = super::agreement(&hand_made(&[("a", 1, &a, 0), ("b", 1, &b, 0)]), &tied);
        assert_eq!((agreement.bands, agreement.bands_overlapping, agreement.bands_contradicted), (1, 1, 0));
    }

    #[test]
    fn one_sample_a_side_with_nothing_else_measured_is_never_enough() {
        assert_eq!(verdict(&[100.0], &[300.0]), Verdict::NoChange);
    }
}

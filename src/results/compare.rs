//! What changed between two runs, cell by cell: a verdict per cell, beyond the noise or not,
//! on the cells' mean cost per message (the headline figure, [`crate::stats`]); and how far
//! two runs' figures are apart over many cells ([`Spread`]), which is how A/A runs (the same
//! build twice) calibrate the [`Thresholds`].

use std::collections::HashMap;

use super::load::ResultsFile;
use super::recommend::{Recommendation, recommend};
use super::thresholds::{SIGNIFICANCE, Thresholds};
use crate::stats;
use crate::stats::welch::log_welch_p;

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

/// Faster or slower when the trimmed means of the two runs' samples of one cell differ by at
/// least `threshold` (0.10 = 10%) *and* Welch's t-test on the samples' logarithms gives a
/// p-value below [`SIGNIFICANCE`] (`stats::welch`); otherwise no change. With fewer than
/// [`stats::MIN_BOOTSTRAP_VALUES`] samples on a side the test has too little to go on, and the
/// two ranges (min–max) must not overlap instead. Both conditions: the test alone calls the
/// small, steady differences between two processes on one machine changes, the threshold
/// alone ignores a noisy cell. `old` and `new` are the cell's ok samples in each run.
pub fn verdict(old: &[f64], new: &[f64], threshold: f64) -> Verdict {
    let (Some(old_summary), Some(new_summary)) = (stats::summarize(old), stats::summarize(new)) else {
        return Verdict::NoChange;
    };
    let ratio = new_summary.trimmed_mean / old_summary.trimmed_mean;
    let apart = if old_summary.count.min(new_summary.count) < stats::MIN_BOOTSTRAP_VALUES {
        new_summary.max < old_summary.min || new_summary.min > old_summary.max
    } else {
        log_welch_p(old, new).is_some_and(|p| p < SIGNIFICANCE)
    };
    if (ratio - 1.0).abs() < threshold || !apart {
        Verdict::NoChange
    } else if ratio < 1.0 {
        Verdict::Faster
    } else {
        Verdict::Slower
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
/// group of cells and per band of the summary (with `thresholds`, as `summary` ranks).
pub fn agreement(old: &ResultsFile, new: &ResultsFile, thresholds: Thresholds) -> Agreement {
    let fastest = |file: &ResultsFile| {
        let mut best: HashMap<(String, String, u64, String), (f64, String)> = HashMap::new();
        for (key, cell) in &file.cells {
            let Some(summary) = stats::summarize(&cell.ok) else { continue };
            let group = (key.runtime.clone(), key.mode.clone(), key.tasks, key.setting.clone());
            let entry = best.entry(group).or_insert((f64::INFINITY, String::new()));
            if summary.trimmed_mean < entry.0 {
                *entry = (summary.trimmed_mean, key.channel.clone());
            }
        }
        best
    };
    let (old_fastest, new_fastest) = (fastest(old), fastest(new));
    let mut result = Agreement::default();
    for (group, (_, channel)) in &old_fastest {
        if let Some((_, other)) = new_fastest.get(group) {
            result.groups += 1;
            result.same_fastest += usize::from(channel == other);
        }
    }
    let (old_bands, new_bands) = (recommend(old, thresholds), recommend(new, thresholds));
    for band in &old_bands {
        let Some(other) =
            new_bands.iter().find(|b| (&b.runtime, &b.mode, b.size) == (&band.runtime, &band.mode, band.size))
        else {
            continue;
        };
        let leaders = |band: &Recommendation| -> Vec<String> {
            band.speed.leaders().iter().map(|entry| entry.channel.clone()).collect()
        };
        let (ours, theirs) = (leaders(band), leaders(other));
        if ours.is_empty() || theirs.is_empty() {
            continue;
        }
        result.bands += 1;
        result.bands_overlapping += usize::from(ours.iter().any(|channel| theirs.contains(channel)));
        let contradicts = |winner: &Recommendation, leaders: &[String]| {
            !winner.speed.is_tie() && winner.speed.first().is_some_and(|first| !leaders.contains(&first.channel))
        };
        result.bands_contradicted += usize::from(contradicts(band, &theirs) || contradicts(other, &ours));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats;

    #[test]
    fn clearly_lower_is_faster_and_higher_is_slower() {
        let old = [100.0, 101.0, 99.0, 100.5, 100.2];
        let new = [80.0, 81.0, 79.5, 80.2, 80.9];
        assert_eq!(verdict(&old, &new, 0.02), Verdict::Faster);
        assert_eq!(verdict(&new, &old, 0.02), Verdict::Slower);
    }

    #[test]
    fn overlapping_noise_is_no_change() {
        let old = [100.0, 140.0, 90.0, 120.0, 105.0];
        let new = [115.0, 150.0, 95.0, 130.0, 118.0];
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
    }

    #[test]
    fn a_separated_change_below_the_threshold_is_no_change() {
        let old = [100.0, 100.1, 100.2, 100.0, 100.1];
        let new = [101.0, 101.1, 101.2, 101.0, 101.1];
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
        assert_eq!(verdict(&old, &new, 0.005), Verdict::Slower);
    }

    #[test]
    fn a_flipped_majority_mode_is_no_change() {
        // The same two modes, 60/40 one run and 40/60 the next: the median jumps 3×, the
        // trimmed means 67 and 93 are far apart, but so are the samples within each run.
        let old = [40.0, 41.0, 39.0, 120.0, 121.0];
        let new = [40.0, 41.0, 119.0, 120.0, 121.0];
        assert!(stats::median_of(&mut new.clone()) / stats::median_of(&mut old.clone()) > 2.9);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
    }

    #[test]
    fn samples_apart_are_a_change_only_when_their_spread_makes_a_fluke_unlikely() {
        // 22% slower and no sample of one run within the other's range, yet a run-to-run
        // shift this large against this spread is too likely (p = 0.004) to be called.
        let old = [100.0, 104.0, 97.0, 108.0, 101.0];
        let wide = [118.0, 130.0, 112.0, 140.0, 124.0];
        assert!(old.iter().fold(0.0f64, |a, b| a.max(*b)) < wide.iter().fold(f64::MAX, |a, b| a.min(*b)));
        assert_eq!(verdict(&old, &wide, 0.10), Verdict::NoChange);
        // As far apart with half the spread: p = 0.0002.
        let steady = [120.0, 126.0, 117.0, 133.0, 122.0];
        assert_eq!(verdict(&old, &steady, 0.10), Verdict::Slower);
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
        let agreement = agreement(&old, &new, Thresholds::uniform(0.02));
        assert_eq!((agreement.groups, agreement.same_fastest), (2, 1));
        assert_eq!((agreement.bands, agreement.bands_overlapping, agreement.bands_contradicted), (2, 1, 1));
        // A tie within the threshold contradicts nothing.
        let tied = hand_made(&[("a", 1, &c, 0), ("b", 1, &a, 0)]);
        let agreement =
            super::agreement(&hand_made(&[("a", 1, &a, 0), ("b", 1, &b, 0)]), &tied, Thresholds::uniform(0.02));
        assert_eq!((agreement.bands, agreement.bands_overlapping, agreement.bands_contradicted), (1, 1, 0));
    }

    #[test]
    fn too_few_samples_fall_back_to_the_range() {
        let old = [100.0, 104.0];
        let new = [103.0, 110.0];
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
        let new = [105.0, 110.0];
        assert_eq!(verdict(&old, &new, 0.02), Verdict::Slower);
    }
}

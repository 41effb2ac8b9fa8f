//! Which channel should I use? `channel-bench summary FILE.csv`, and the end of every sweep.
//!
//! For each runtime and mode, and each band of task counts ([`TaskBand`]), the channels are
//! ranked by the geometric mean of their per-cell means over the band's task counts: ns per
//! message for speed, CPU ns per message, and the p99 latency when the file has it. The mean,
//! not the median: a cell whose samples fall in two clusters has a median that flips with
//! whichever cluster won the draw, while its mean moves with the clusters' shares (see
//! [`crate::stats`]); the median stays beside it ([`Entry::median`]), and a channel with such
//! a cell in the band is marked ([`Entry::mixed`]). The first
//! of a ranking is named alone only when the second is beyond the noise of it
//! ([`within_noise`]); otherwise the first and the channels after it that are within its noise
//! are named as tied ([`rank`]). A channel
//! with a failed sample, or without a cell at one of the band's task counts, is not ranked
//! there and is listed with the reason.
//!
//! Beside each band's speed ranking, `Recommendation::careful` (in `super::careful`) names the
//! fastest channel with no known problem.
//!
//! [`recommend`] computes; `output::summary` formats.

use std::collections::HashMap;

use super::load::{CellKey, CellSamples, ResultsFile};
use super::thresholds::Thresholds;
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Merge, Mode};
use crate::stats::{self, Summary};

/// A band of task counts summarized together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskBand {
    /// 1–8 tasks (up to 11).
    Small,
    /// 16–64 tasks (12 to 90).
    Medium,
    /// 128–512 tasks (91 to 724).
    Large,
    /// 1024 tasks and more (725 and more): a large room, a media server with thousands of tracks.
    XLarge,
}

impl TaskBand {
    /// The bands, smallest first.
    pub const ALL: [TaskBand; 4] = [TaskBand::Small, TaskBand::Medium, TaskBand::Large, TaskBand::XLarge];

    /// The band of a task count. The named ranges are 1–8, 16–64, 128–512 and 1024 on; a
    /// count between them goes to the band it is nearest on a log2 scale (the sweep's and the
    /// plot's), so the bounds are the geometric midpoints √(8·16) ≈ 11.3, √(64·128) ≈ 90.5 and
    /// √(512·1024) ≈ 724.1: small up to 11, medium 12 to 90, large 91 to 724, x-large from 725.
    pub fn of(tasks: u64) -> TaskBand {
        match tasks {
            0..=11 => TaskBand::Small,
            12..=90 => TaskBand::Medium,
            91..=724 => TaskBand::Large,
            _ => TaskBand::XLarge,
        }
    }

    /// `small`, `medium`, `large` or `x-large`.
    pub fn name(self) -> &'static str {
        match self {
            TaskBand::Small => "small",
            TaskBand::Medium => "medium",
            TaskBand::Large => "large",
            TaskBand::XLarge => "x-large",
        }
    }
}

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
    /// Whether the channel is within the noise of the ranking's first ([`within_noise`]), and
    /// so is every channel ranked between them ([`rank`]); false for the first itself.
    pub tied_with_first: bool,
}

/// Channels ordered by one metric, lowest (best) first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ranking {
    /// Lowest value first.
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

    /// The best channel beyond the noise of the first (the runner-up when there is no tie),
    /// and its value over the first's; `None` when every other channel is tied with the first
    /// or there is none.
    pub fn next(&self) -> Option<(&Entry, f64)> {
        let first = self.first()?;
        let next = self.entries.iter().skip(1).find(|entry| !entry.tied_with_first)?;
        Some((next, next.value / first.value))
    }

    /// The last of [`Ranking::leaders`] over the first: how far apart the tied channels are.
    pub fn tie_spread(&self) -> Option<f64> {
        let leaders = self.leaders();
        Some(leaders.last()?.value / leaders.first()?.value)
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
/// order the runtimes and modes first appear in the file, bands smallest first. `thresholds`
/// give, per runtime, the smallest difference that can separate two channels ([`within_noise`]).
pub fn recommend(file: &ResultsFile, thresholds: Thresholds) -> Vec<Recommendation> {
    // A group is one runtime, worker count, mode and setting: worker counts are never mixed.
    let mut groups: Vec<(RuntimeKind, u64, Mode, &str)> = Vec::new();
    for key in &file.order {
        let group = (key.runtime, key.workload.workers, key.mode, key.setting.as_str());
        if !groups.contains(&group) {
            groups.push(group);
        }
    }
    let mut bands = Vec::new();
    for &(runtime, workers, mode, setting) in &groups {
        // The worker count is named only where the file has several for this runtime.
        let several_workers = groups.iter().any(|group| group.0 == runtime && group.1 != workers);
        // The group's cells by (channel, tasks), channels in file order.
        let mut cells = HashMap::new();
        let mut channels: Vec<Contender> = Vec::new();
        let in_group = |key: &&CellKey| {
            key.runtime == runtime && key.workload.workers == workers && key.mode == mode && key.setting == setting
        };
        for key in file.order.iter().filter(in_group) {
            let channel = (key.channel.as_str(), key.merge);
            cells.insert((channel, key.tasks), &file.cells[key]);
            if !channels.contains(&channel) {
                channels.push(channel);
            }
        }
        for size in TaskBand::ALL {
            let mut tasks: Vec<u64> =
                cells.keys().map(|&(_, tasks)| tasks).filter(|&t| TaskBand::of(t) == size).collect();
            tasks.sort_unstable();
            tasks.dedup();
            if tasks.is_empty() {
                continue;
            }
            let (speed, cpu, p99, excluded) = rank_band(&cells, &channels, &tasks, thresholds.of(runtime));
            let (workers, setting) = (several_workers.then_some(workers), setting.to_owned());
            bands.push(Recommendation { runtime, mode, workers, setting, size, tasks, speed, cpu, p99, excluded });
        }
    }
    bands
}

/// A channel to rank: its name, and how merged-recv merged its receivers.
pub type Ranked = (String, Option<Merge>);

/// A channel in a group: its name, and how merged-recv merged its receivers.
type Contender<'a> = (&'a str, Option<Merge>);

/// One band's three rankings and the channels left out of them: `cells` are one runtime and
/// mode's cells by (channel, tasks), `tasks` the band's task counts.
fn rank_band(
    cells: &HashMap<(Contender, u64), &CellSamples>,
    channels: &[Contender],
    tasks: &[u64],
    threshold: f64,
) -> (Ranking, Ranking, Ranking, Vec<Excluded>) {
    let mut candidates: Vec<(Contender, Vec<&CellSamples>)> = Vec::new();
    let mut excluded = Vec::new();
    for &channel in channels {
        let found: Vec<Option<&CellSamples>> = tasks.iter().map(|&t| cells.get(&(channel, t)).copied()).collect();
        let at = |wanted: fn(Option<&CellSamples>) -> bool| -> Vec<u64> {
            tasks.iter().zip(&found).filter(|(_, cell)| wanted(**cell)).map(|(&t, _)| t).collect()
        };
        let missing_at = at(|cell| cell.is_none());
        let failed_at = at(|cell| cell.is_some_and(|cell| cell.failed > 0));
        if missing_at.is_empty() && failed_at.is_empty() {
            candidates.push((channel, found.into_iter().flatten().collect()));
        } else {
            let failed_samples = found.iter().flatten().map(|cell| cell.failed).sum();
            let (name, merge) = channel;
            excluded.push(Excluded { channel: name.to_owned(), merge, failed_samples, failed_at, missing_at });
        }
    }
    // A channel enters a metric's ranking when each of its cells has values of that metric.
    let by = |values: fn(&CellSamples) -> &[f64], summary: fn(&CellSamples) -> Option<Summary>| {
        let summaries = candidates.iter().filter_map(|(channel, cells)| {
            let per_task: Option<Vec<Summary>> = cells.iter().map(|cell| summary(cell)).collect();
            Some(((channel.0.to_owned(), channel.1), per_task?))
        });
        let mut ranking = rank(summaries.collect(), threshold);
        for entry in &mut ranking.entries {
            let cells = candidates
                .iter()
                .find(|((name, merge), _)| (*name, *merge) == (entry.channel.as_str(), entry.merge))
                .map(|(_, cells)| cells);
            entry.mixed = cells.is_some_and(|cells| cells.iter().any(|cell| stats::clusters(values(cell)).len() > 1));
        }
        ranking
    };
    // Speed reads pooled runs as runs (`results::pool::speed`); the other metrics read samples.
    (
        by(|cell| &cell.ok, super::pool::speed),
        by(|cell| &cell.cpu_ns_per_message, |cell| stats::summarize(&cell.cpu_ns_per_message)),
        by(|cell| &cell.lat_p99_ns, |cell| stats::summarize(&cell.lat_p99_ns)),
        excluded,
    )
}

/// Ranks channels by the geometric mean of their per-cell means (`summaries[i]`: one per
/// task count, the same task counts for every channel), lowest first, ties in value kept in
/// the given order. Marks as tied with the first the channels from the second on that are
/// [`within_noise`] of it, up to the first that is not: a channel clearly behind the first
/// ends the tie, even if one ranked after it is noisy enough to be within the noise, since
/// naming that one as co-fastest and not a channel with a lower figure would read backwards.
pub fn rank(channels: Vec<(Ranked, Vec<Summary>)>, threshold: f64) -> Ranking {
    let mut scored: Vec<(f64, Ranked, Vec<Summary>)> = channels
        .into_iter()
        .map(|(channel, cells)| (geometric_mean_of_trimmed_means(&cells), channel, cells))
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    let Some((_, _, best)) = scored.first() else { return Ranking::default() };
    let best = best.clone();
    let mut tie_goes_on = true;
    let entries = scored
        .into_iter()
        .enumerate()
        .map(|(at, (value, (channel, merge), cells))| {
            tie_goes_on = tie_goes_on && (at == 0 || within_noise(&best, &cells, threshold));
            let median = geometric_mean(cells.iter().map(|cell| cell.median));
            Entry { channel, merge, value, median, mixed: false, tied_with_first: at > 0 && tie_goes_on }
        })
        .collect();
    Ranking { entries }
}

/// Whether `best` is ahead of `other` beyond the noise in one cell: `other`'s mean is at
/// least `threshold` (0.02 = 2%) higher, and each mean lies outside the other's interval (the
/// [`stats::CONFIDENCE`] bootstrap interval of the mean, or the min–max below
/// [`stats::MIN_BOOTSTRAP_VALUES`] samples).
///
/// A looser test than `compare`'s (Welch's t-test at `thresholds::SIGNIFICANCE`): the band's
/// task counts are the replication that makes up for it ([`within_noise`]).
pub fn ahead_beyond_noise(best: &Summary, other: &Summary, threshold: f64) -> bool {
    let ((_, best_high), (other_low, _)) = (best.trimmed_mean_band(), other.trimmed_mean_band());
    other.trimmed_mean >= best.trimmed_mean * (1.0 + threshold)
        && best.trimmed_mean < other_low
        && other.trimmed_mean > best_high
}

/// Whether `other` is within the noise of `best` over a band (one summary per task count,
/// the same task counts in the same order). It is not — `best` is ahead beyond the noise —
/// when `other`'s geometric mean is at least `threshold` higher (0.02 = 2%) and `best` is
/// [`ahead_beyond_noise`] at more than half of the band's task counts: one task count where
/// a channel happens to fall behind does not crown the other, nor does a band where the two
/// take turns.
pub fn within_noise(best: &[Summary], other: &[Summary], threshold: f64) -> bool {
    assert_eq!(best.len(), other.len(), "the same task counts for both channels");
    let ratio = geometric_mean_of_trimmed_means(other) / geometric_mean_of_trimmed_means(best);
    let ahead = best.iter().zip(other).filter(|(b, o)| ahead_beyond_noise(b, o, threshold)).count();
    !(ratio >= 1.0 + threshold && 2 * ahead > best.len())
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
mod tests {
    use super::*;
    use crate::results::load::hand_made;

    fn summary(values: &[f64]) -> Summary {
        stats::summarize(values).unwrap()
    }

    /// Five samples spread ±`spread` around `median`.
    fn around(median: f64, spread: f64) -> Summary {
        summary(&[
            median * (1.0 - spread),
            median * (1.0 - spread / 2.0),
            median,
            median * (1.0 + spread / 2.0),
            median * (1.0 + spread),
        ])
    }

    #[test]
    fn bands_follow_the_log_scale_midpoints() {
        let sizes: Vec<TaskBand> =
            [1, 8, 11, 12, 16, 64, 90, 91, 128, 512, 724, 725, 1024, 8192].map(TaskBand::of).to_vec();
        use TaskBand::*;
        let expected =
            [Small, Small, Small, Medium, Medium, Medium, Medium, Large, Large, Large, Large, XLarge, XLarge, XLarge];
        assert_eq!(sizes, expected);
    }

    #[test]
    fn geometric_mean_weighs_each_task_count_alike() {
        let mean = geometric_mean_of_trimmed_means(&[summary(&[10.0]), summary(&[1000.0])]);
        assert!((mean - 100.0).abs() < 1e-9, "{mean}");
        assert_eq!(geometric_mean_of_trimmed_means(&[summary(&[0.0]), summary(&[5.0])]), 0.0);
    }

    #[test]
    fn separated_everywhere_is_not_within_noise() {
        let best = [around(100.0, 0.02), around(100.0, 0.02)];
        let other = [around(150.0, 0.02), around(160.0, 0.02)];
        assert!(!within_noise(&best, &other, 0.02));
    }

    #[test]
    fn overlapping_intervals_are_within_noise() {
        let best = [around(100.0, 0.3), around(100.0, 0.3)];
        let other = [around(110.0, 0.3), around(115.0, 0.3)];
        assert!(within_noise(&best, &other, 0.02));
    }

    #[test]
    fn separated_but_under_the_threshold_is_within_noise() {
        let best = [around(100.0, 0.001)];
        let other = [around(101.0, 0.001)];
        assert!(within_noise(&best, &other, 0.02));
        assert!(!within_noise(&best, &other, 0.005));
    }

    #[test]
    fn ahead_at_only_half_the_task_counts_is_within_noise() {
        // Clearly ahead at two task counts, inside the noise at the other two.
        let best = [around(100.0, 0.01), around(100.0, 0.01), around(100.0, 0.3), around(100.0, 0.3)];
        let other = [around(130.0, 0.01), around(130.0, 0.01), around(105.0, 0.3), around(105.0, 0.3)];
        assert!(within_noise(&best, &other, 0.02));
        // Ahead at three of four: beyond the noise.
        let other = [around(130.0, 0.01), around(130.0, 0.01), around(130.0, 0.01), around(105.0, 0.3)];
        let best_three = [around(100.0, 0.01), around(100.0, 0.01), around(100.0, 0.01), around(100.0, 0.3)];
        assert!(!within_noise(&best_three, &other, 0.02));
    }

    #[test]
    fn ranking_is_by_geometric_mean_and_names_every_channel_tied_with_the_first() {
        let ranking = rank(
            vec![
                (("slow".to_owned(), None), vec![around(300.0, 0.01)]),
                (("noisy".to_owned(), None), vec![around(110.0, 0.4)]),
                (("fast".to_owned(), None), vec![around(100.0, 0.01)]),
                (("second".to_owned(), None), vec![around(150.0, 0.01)]),
            ],
            0.02,
        );
        let order: Vec<&str> = ranking.entries.iter().map(|e| e.channel.as_str()).collect();
        assert_eq!(order, ["fast", "noisy", "second", "slow"]);
        assert!(ranking.is_tie());
        let leaders: Vec<&str> = ranking.leaders().iter().map(|e| e.channel.as_str()).collect();
        assert_eq!(leaders, ["fast", "noisy"]);
        let (next, ratio) = ranking.next().unwrap();
        assert_eq!(next.channel, "second");
        assert!((ratio - 1.5).abs() < 1e-9);
    }

    #[test]
    fn a_clear_winner_stands_alone() {
        let ranking = rank(
            vec![
                (("a".to_owned(), None), vec![around(200.0, 0.01)]),
                (("b".to_owned(), None), vec![around(100.0, 0.01)]),
            ],
            0.02,
        );
        assert!(!ranking.is_tie());
        assert_eq!(ranking.leaders().len(), 1);
        let (next, ratio) = ranking.next().unwrap();
        assert_eq!((ranking.first().unwrap().channel.as_str(), next.channel.as_str()), ("b", "a"));
        assert!((ratio - 2.0).abs() < 1e-9);
        assert_eq!(rank(Vec::new(), 0.02), Ranking::default());
    }

    #[test]
    fn a_failed_or_missing_channel_is_not_ranked_even_when_fastest() {
        let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
        let fast = [50.0, 50.5, 49.5, 50.2, 49.8];
        let bands = recommend(
            &hand_made(&[
                ("kanal", 1, &fast, 1),
                ("kanal", 4, &fast, 0),
                ("flume", 1, &steady, 0),
                ("flume", 4, &steady, 0),
                ("tokio", 1, &fast, 0),
                ("tokio", 64, &steady, 0),
                ("flume", 64, &steady, 0),
            ]),
            Thresholds::uniform(0.02),
        );
        assert_eq!(bands.len(), 2, "{bands:?}");
        let small = &bands[0];
        assert_eq!((small.size, small.tasks.as_slice()), (TaskBand::Small, &[1, 4][..]));
        assert_eq!(small.speed.first().unwrap().channel, "flume");
        assert_eq!(small.speed.entries.len(), 1);
        assert_eq!(
            small.excluded,
            [
                Excluded {
                    channel: "kanal".into(),
                    merge: None,
                    failed_samples: 1,
                    failed_at: vec![1],
                    missing_at: vec![]
                },
                Excluded {
                    channel: "tokio".into(),
                    merge: None,
                    failed_samples: 0,
                    failed_at: vec![],
                    missing_at: vec![4]
                },
            ]
        );
        // kanal has no cell in the medium band at all: not measured there.
        let medium = &bands[1];
        assert_eq!((medium.size, medium.speed.entries.len()), (TaskBand::Medium, 2));
        assert_eq!(medium.excluded[0].missing_at, [64]);
        // CPU is ranked the same way; no latency column, no p99 ranking.
        assert!((small.cpu.first().unwrap().value - 200.0).abs() < 1e-9);
        assert!(small.p99.entries.is_empty());
    }

    #[test]
    fn a_tie_ends_at_the_first_channel_clearly_behind() {
        let ranking = rank(
            vec![
                (("a".to_owned(), None), vec![around(100.0, 0.01)]),
                (("b".to_owned(), None), vec![around(101.0, 0.01)]),
                (("c".to_owned(), None), vec![around(150.0, 0.01)]),
                (("d".to_owned(), None), vec![around(160.0, 0.9)]),
            ],
            0.02,
        );
        // d's noise reaches down to a, but c, with a lower figure, is clearly behind a.
        assert!(within_noise(&[around(100.0, 0.01)], &[around(160.0, 0.9)], 0.02));
        let tied: Vec<bool> = ranking.entries.iter().map(|e| e.tied_with_first).collect();
        assert_eq!(tied, [false, true, false, false]);
        assert_eq!(ranking.next().unwrap().0.channel, "c");
        let three = rank(
            vec![
                (("a".to_owned(), None), vec![around(100.0, 0.01)]),
                (("b".to_owned(), None), vec![around(101.0, 0.01)]),
                (("c".to_owned(), None), vec![around(101.6, 0.01)]),
            ],
            0.02,
        );
        assert_eq!(three.next(), None);
    }

    #[test]
    fn a_mixed_cell_is_ranked_by_its_trimmed_mean_and_marked() {
        // b's median (41) beats a's (60), but 40% of b's samples take 125 ns: its trimmed mean
        // (the middle three of five) is 68.3.
        let a = [60.0, 60.5, 59.5, 60.2, 59.8];
        let b = [40.0, 41.0, 39.0, 125.0, 124.0];
        let bands = recommend(&hand_made(&[("a", 64, &a, 0), ("b", 64, &b, 0)]), Thresholds::uniform(0.02));
        let speed = &bands[0].speed;
        let order: Vec<(&str, bool)> = speed.entries.iter().map(|e| (e.channel.as_str(), e.mixed)).collect();
        assert_eq!(order, [("a", false), ("b", true)]);
        let (value, median) = (speed.entries[1].value, speed.entries[1].median);
        assert!((value - 205.0 / 3.0).abs() < 1e-9 && (median - 41.0).abs() < 1e-9, "{value} {median}");
    }
}

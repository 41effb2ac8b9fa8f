//! What would decide a band the run left open: from the spread its verdicts measured, how many
//! more paired rounds would likely separate the band's leader from a channel still tied with
//! it or tie the two within the run's resolution, and the time those rounds take; or that no
//! number of rounds would, the drift the run measured being wider than the difference.

use super::load::{CellKey, CellSamples, ResultsFile};
use super::noise::{FileNoise, Metric, verdict_z};
use super::recommend::{Entry, Recommendation};
use crate::stats::verdict::{Call, Verdict};

/// What would likely decide one pair of a band, ordered from the fewest rounds to no number of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Needed {
    /// About this many more rounds at each of the band's task counts.
    Rounds(usize),
    /// No number of rounds: the drift under the verdict alone is wider than the difference
    /// could be told from, or from a tie within the resolution.
    Beyond,
}

/// A band the run left open, and what would likely decide it.
#[derive(Debug, Clone, PartialEq)]
pub struct Open {
    /// The band.
    pub band: Recommendation,
    /// The channel still open against the leader that needs the most rounds.
    pub channel: String,
    /// What would decide it.
    pub needed: Needed,
    /// Seconds those rounds take, measuring the leader and that channel once per round at
    /// each task count; 0 when [`Needed::Beyond`].
    pub seconds: f64,
}

/// The more rounds per task count that would likely decide `verdict` (log ratio of a channel
/// to the leader), measured over `rounds` rounds so far, with `drift` under it and the band's
/// `resolution` (0.05 = a tie within 5% is decided): the rounds that shrink the interval's
/// sampling part until it excludes 0 at the current estimate or fits a tie within the
/// resolution, whichever comes first; for two channels closer than the drift, which no number of
/// rounds separates, a tie within half again the drift of their estimate. `None` when the
/// verdict is already decided.
pub fn needed(verdict: &Verdict, rounds: usize, drift: f64, resolution: f64) -> Option<Needed> {
    let (floor, gap) = (verdict_z() * drift, verdict.mean.abs());
    // Two channels closer than the drift can be told apart by no number of rounds; their tie is
    // as tight as the run gets once it is within half again the drift of their estimate.
    let limit = if gap <= floor { (1.0 + resolution).ln().max(gap + 1.5 * floor) } else { (1.0 + resolution).ln() };
    if verdict.call != Call::Tied || verdict.within() <= limit {
        return None;
    }
    let half = (verdict.high - verdict.low) / 2.0;
    let sampling = (half * half - floor * floor).max(0.0).sqrt();
    let target = gap.max(limit - gap);
    if target <= floor * 1.0001 || sampling == 0.0 {
        return Some(Needed::Beyond);
    }
    let factor = (sampling / (target * target - floor * floor).sqrt()).powi(2);
    let more = (rounds.max(1) as f64 * (factor - 1.0)).ceil().max(1.0);
    Some(Needed::Rounds(more as usize))
}

/// Every band of `file` with a speed verdict still open, and what would likely decide it.
pub fn open_bands(file: &ResultsFile, noise: &FileNoise, bands: &[Recommendation]) -> Vec<Open> {
    let open = |band: &Recommendation| {
        let group = band.band.noise_group();
        let (drift, resolution) = (noise.paired_drift(&group, Metric::Speed), noise.resolution(&group, Metric::Speed));
        let first = band.speed.first()?;
        let key = file.order.iter().find(|key| band.band.holds(&key.coord))?;
        // The leader's cells at the band's task counts, then `entry`'s, those the file has.
        let cells = |entry: &Entry| -> Vec<(CellKey, &CellSamples)> {
            let channel =
                |e: &Entry, tasks| CellKey { tasks, channel: e.channel.clone(), merge: e.merge, ..key.clone() };
            let keys = [first, entry].into_iter().flat_map(|e| band.band.tasks.iter().map(move |&t| channel(e, t)));
            keys.filter_map(|key| file.cells.get(&key).map(|cell| (key, cell))).collect()
        };
        let rounds = |entry: &Entry| cells(entry).iter().map(|(_, cell)| cell.ok.len()).min().unwrap_or(0);
        let seconds_per_round = |entry: &Entry| -> f64 {
            let mean = |cell: &CellSamples| cell.ok.iter().sum::<f64>() / cell.ok.len().max(1) as f64;
            cells(entry).iter().map(|(key, cell)| mean(cell) * key.messages as f64 * 1e-9).sum()
        };
        let (entry, needed) = (band.speed.entries.iter().skip(1))
            .filter_map(|entry| Some((entry, needed(entry.verdict.as_ref()?, rounds(entry), drift, resolution)?)))
            .max_by_key(|&(_, needed)| needed)?;
        let seconds = match needed {
            Needed::Rounds(rounds) => rounds as f64 * seconds_per_round(entry),
            Needed::Beyond => 0.0,
        };
        Some(Open { channel: entry.channel.clone(), needed, seconds, band: band.clone() })
    };
    bands.iter().filter_map(open).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tied(mean: f64, half: f64) -> Verdict {
        Verdict { mean, low: mean - half, high: mean + half, call: Call::Tied }
    }

    #[test]
    fn a_decided_verdict_needs_nothing() {
        assert_eq!(needed(&tied(0.0, 0.02), 10, 0.005, 0.05), None, "a tie within 5% is decided");
        let separated = Verdict { mean: 0.2, low: 0.1, high: 0.3, call: Call::Higher };
        assert_eq!(needed(&separated, 10, 0.005, 0.05), None);
    }

    #[test]
    fn a_wide_tie_needs_the_rounds_that_narrow_its_sampling_part() {
        // 10% apart, ± 20% over 4 rounds with no drift: half the width needs four times the
        // rounds, so 12 more.
        assert_eq!(needed(&tied(0.1, 0.2), 4, 0.0, 0.01), Some(Needed::Rounds(12)));
        // The same with more drift needs more rounds.
        let Some(Needed::Rounds(more)) = needed(&tied(0.1, 0.2), 4, 0.03, 0.01) else { panic!() };
        assert!(more > 12, "{more}");
        // A gap inside the drift: no separation, but a tie within half again the drift of the
        // gap; once there, decided.
        let Some(Needed::Rounds(tie)) = needed(&tied(0.1, 0.3), 4, 0.06, 0.01) else { panic!() };
        assert!(tie > 4, "{tie}");
        assert_eq!(needed(&tied(0.1, 1.5 * 1.96 * 0.06 - 0.01), 40, 0.06, 0.01), None);
    }
}

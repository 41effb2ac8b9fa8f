//! The room's pick as the resamples of its run agree on it: [`tally`] draws the run's rounds
//! with replacement ([`RESAMPLES`] times, from a generator seeded with [`SEED`], so one file
//! always gives one answer), recomputes each channel's figures the decision reads from the
//! rounds drawn (frames overflowed in phase, CPU per delivered message out of phase), and counts,
//! for every two channels, the resamples in which one is [`ahead`] of the other beyond the noise.
//! The pick ([`Tally::pick`]) is the first channel in the rule's order that no eligible channel
//! is ahead of in [`SEPARATED`] of the resamples: the rule's channel stays the pick until a
//! challenger is clearly better, so a channel within the noise in one run and a hair ahead in
//! the next does not change it. Resampling whole rounds keeps what pairs the channels: every
//! channel of a round met the same moment of the host. Pure functions; `results::decision`
//! reads them.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::stats::trimmed_mean;

/// Resamples of the run's rounds one decision draws.
pub const RESAMPLES: usize = 1000;

/// The seed of the resampling: the same file, the same resamples, the same answer.
pub const SEED: u64 = 0x5EED_0B00_7575_0002;

/// The share of the resamples in which a challenger must be ahead of a channel beyond the noise
/// to pass it over: the rule's channel is kept unless the run is that sure another is better.
pub const SEPARATED: f64 = 0.95;

/// One channel as the resamples read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entrant {
    /// Per sample of the cell drops are judged in: (round, frames overflowed, frames).
    pub drops: Vec<(u64, u64, u64)>,
    /// Per sample of the cell CPU is judged in: (round, CPU ns per delivered message).
    pub cpu: Vec<(u64, f64)>,
    /// Whether it may be picked: a channel with a known problem is named in a tie, never picked,
    /// and passes no channel over.
    pub eligible: bool,
}

/// How far apart two channels' figures may be and still be a tie: closer than the run can
/// resolve (resampling sees the spread between rounds; it cannot see a drift that moves every
/// round of one stretch of the run alike).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// On the share of frames overflowed, in percentage points.
    pub overflow_points: f64,
    /// On CPU per delivered message, as the difference of logarithms (0.05 ≈ 5%).
    pub cpu_log: f64,
}

/// One channel's figures in one resample: frames overflowed over frames sent, and the trimmed
/// mean CPU per delivered message (`None` without CPU time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Frames overflowed over frames sent (0.02 = 2%).
    pub overflow_share: f64,
    /// Trimmed mean CPU ns per delivered message.
    pub cpu: Option<f64>,
}

/// Whether `a` is ahead of `b` beyond the tolerance: fewer frames overflowed by more than its
/// points, or as few within them and less CPU by more than its share.
pub fn ahead(a: Figures, b: Figures, tolerance: Tolerance) -> bool {
    let points = 100.0 * (b.overflow_share - a.overflow_share);
    if points.abs() > tolerance.overflow_points {
        return points > 0.0;
    }
    a.cpu.zip(b.cpu).is_some_and(|(a, b)| b.ln() - a.ln() > tolerance.cpu_log)
}

/// The eligible channels within the tolerance of the fewest frames overflowed, less one, among
/// `figures` (`None`: not measured); `None` without an eligible one.
pub fn fewest_with(figures: &[Option<Figures>], eligible: &[bool], tolerance: Tolerance) -> Option<usize> {
    let candidates = || figures.iter().zip(eligible).filter(|(_, eligible)| **eligible).filter_map(|(f, _)| *f);
    let fewest = candidates().map(|f| f.overflow_share).min_by(f64::total_cmp)?;
    let near = |f: &Figures| 100.0 * (f.overflow_share - fewest) <= tolerance.overflow_points;
    Some(candidates().filter(near).count() - 1)
}

/// What the resamples agreed on, entrants named by their index in the rule's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    /// Resamples drawn.
    pub resamples: usize,
    /// Per entrant `a`, per entrant `b`: the resamples in which `a` was [`ahead`] of `b`.
    pub ahead: Vec<Vec<usize>>,
    /// Whether each entrant may be picked.
    pub eligible: Vec<bool>,
    /// In the run itself, every round once: [`fewest_with`].
    pub fewest_with: Option<usize>,
}

impl Tally {
    /// Whether `a` is ahead of `b` in at least [`SEPARATED`] of the resamples.
    pub fn separated(&self, a: usize, b: usize) -> bool {
        self.ahead[a][b] as f64 >= SEPARATED * self.resamples as f64
    }

    /// The eligible entrant most often ahead of `at`, the first by rule among equals, with the
    /// resamples it was; `None` when no other is eligible.
    pub fn closest(&self, at: usize) -> Option<(usize, usize)> {
        let others = (0..self.ahead.len()).filter(|&other| other != at && self.eligible[other]);
        others.map(|other| (other, self.ahead[other][at])).rev().max_by_key(|(_, resamples)| *resamples)
    }

    /// Whether an eligible entrant is ahead of `at` in [`SEPARATED`] of the resamples.
    pub fn passed_over(&self, at: usize) -> bool {
        self.closest(at).is_some_and(|(other, _)| self.separated(other, at))
    }

    /// The pick: the first eligible entrant that no eligible entrant passes over; `None` when
    /// every one is passed over (a circle, each behind another) or none is eligible.
    pub fn pick(&self) -> Option<usize> {
        (0..self.ahead.len()).find(|&at| self.eligible[at] && !self.passed_over(at))
    }

    /// The entrants, eligible or not, that neither `pick` nor they are separated ahead of.
    pub fn tie_of(&self, pick: usize) -> Vec<usize> {
        let tied = |other: usize| other != pick && !self.separated(pick, other) && !self.separated(other, pick);
        (0..self.ahead.len()).filter(|&other| tied(other)).collect()
    }
}

/// `entrant`'s figures over the rounds drawn: `counts[r]` draws of round `r` (rounds as indices
/// into the run's rounds); `None` when none of its samples was drawn.
fn figures(entrant: &Entrant, counts: &[usize], index: &dyn Fn(u64) -> usize) -> Option<Figures> {
    let (mut overflowed, mut frames) = (0, 0);
    for &(round, over, of) in &entrant.drops {
        let times = counts[index(round)] as u64;
        (overflowed, frames) = (overflowed + times * over, frames + times * of);
    }
    let mut cpu: Vec<f64> = Vec::new();
    for &(round, value) in &entrant.cpu {
        cpu.extend(std::iter::repeat_n(value, counts[index(round)]));
    }
    cpu.sort_by(f64::total_cmp);
    let drawn = entrant.drops.iter().any(|(round, _, _)| counts[index(*round)] > 0);
    drawn.then(|| Figures {
        overflow_share: if frames == 0 { 0.0 } else { overflowed as f64 / frames as f64 },
        cpu: (!cpu.is_empty()).then(|| trimmed_mean(&cpu)),
    })
}

/// The comparisons of `resamples` resamples of the rounds of `entrants` (in the rule's order),
/// and the run's own fewest frames overflowed.
pub fn tally(entrants: &[Entrant], tolerance: Tolerance, resamples: usize) -> Tally {
    let mut rounds: Vec<u64> = entrants
        .iter()
        .flat_map(|e| e.drops.iter().map(|(round, _, _)| *round).chain(e.cpu.iter().map(|(round, _)| *round)))
        .collect();
    rounds.sort_unstable();
    rounds.dedup();
    let index = |round: u64| rounds.binary_search(&round).expect("every round is listed");
    let eligible: Vec<bool> = entrants.iter().map(|e| e.eligible).collect();
    let drawn =
        |counts: &[usize]| -> Vec<Option<Figures>> { entrants.iter().map(|e| figures(e, counts, &index)).collect() };
    let n = entrants.len();
    let fewest_with = fewest_with(&drawn(&vec![1; rounds.len()]), &eligible, tolerance);
    let mut tally = Tally { resamples, ahead: vec![vec![0; n]; n], eligible, fewest_with };
    let mut generator = Pcg64Mcg::seed_from_u64(SEED);
    let mut counts = vec![0; rounds.len()];
    for _ in 0..resamples {
        counts.iter_mut().for_each(|count| *count = 0);
        (0..rounds.len()).for_each(|_| counts[generator.random_range(0..rounds.len())] += 1);
        let figures = drawn(&counts);
        for (a, b) in (0..n).flat_map(|a| (0..n).map(move |b| (a, b))) {
            if let (Some(fa), Some(fb)) = (figures[a], figures[b])
                && a != b
                && ahead(fa, fb, tolerance)
            {
                tally.ahead[a][b] += 1;
            }
        }
    }
    tally
}

#[cfg(test)]
mod tests;

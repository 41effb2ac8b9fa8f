//! The room's pick as the resamples of its run agree on it: [`tally`] draws the run's rounds
//! with replacement ([`RESAMPLES`] times, from a generator seeded with [`SEED`], so one file
//! always gives one answer), recomputes each channel's figures the decision weighs from the
//! rounds drawn (frames overflowed and the pooled p99 in phase, CPU per delivered message out of
//! phase), and counts, for every two channels, the resamples in which one is [`ahead`] of the
//! other beyond the noise on the figures weighed, in their order (`weigh`). The pick
//! ([`Tally::pick`]) is the first channel in the rule's order that no eligible channel is ahead
//! of in [`SEPARATED`] of the resamples: the rule's channel stays the pick until a challenger is
//! clearly better, so a channel within the noise in one run and a hair ahead in the next does not
//! change it. Resampling whole rounds keeps what pairs the channels: every channel of a round met
//! the same moment of the host. Pure functions; `results::decision` reads them.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::weigh::{Weigh, Weighing};
use crate::stats::trimmed_mean_of;

/// Resamples of the run's rounds one decision draws.
pub const RESAMPLES: usize = 1000;

/// The seed of the resampling: the same file, the same resamples, the same answer.
pub const SEED: u64 = 0x5EED_0B00_7575_0002;

/// The share of the resamples in which a challenger must be ahead of a channel beyond the noise
/// to pass it over: the rule's channel is kept unless the run is that sure another is better.
pub const SEPARATED: f64 = 0.95;

/// The quantile the p99 figure reads.
const P99: f64 = 0.99;

/// One channel as the resamples read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entrant {
    /// Per sample of the cell drops are judged in: (round, frames overflowed, frames).
    pub drops: Vec<(u64, u64, u64)>,
    /// Per sample of the cell CPU is judged in: (round, CPU ns per delivered message).
    pub cpu: Vec<(u64, f64)>,
    /// The latencies of the cell drops are judged in, per sample; empty without `--latency`
    /// or when p99 is not weighed.
    pub latency: Latencies,
    /// Whether it may be picked: a channel with a known problem is named in a tie, never picked,
    /// and passes no channel over.
    pub eligible: bool,
}

/// The latencies a cell's samples recorded, as counts at the values their histograms recorded,
/// so that a resample's pooled p99 is a sum of counts, not a merge of histograms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Latencies {
    /// Every value any sample recorded (the highest of its histogram bucket), ascending.
    pub values: Vec<u64>,
    /// Per sample: (round, its count at each of `values`).
    pub samples: Vec<(u64, Vec<u64>)>,
}

impl Latencies {
    /// The latencies of `samples`, each (round, its histogram's recorded buckets: (the highest
    /// value of the bucket, its count)).
    pub fn of(samples: Vec<(u64, Vec<(u64, u64)>)>) -> Latencies {
        let values = samples.iter().flat_map(|(_, buckets)| buckets.iter().map(|(v, _)| *v));
        let values: Vec<u64> = values.collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        let dense = |buckets: Vec<(u64, u64)>| {
            let mut counts = vec![0; values.len()];
            for (value, count) in buckets {
                counts[values.binary_search(&value).expect("every value is listed")] += count;
            }
            counts
        };
        let samples = samples.into_iter().map(|(round, buckets)| (round, dense(buckets))).collect();
        Latencies { values, samples }
    }

    /// The p99 of the samples drawn, `times(round)` times each, as an HDR histogram of them all
    /// gives it (the value at which the count reaches 99% of the total, rounded up); `None`
    /// when none was drawn or none recorded a latency.
    fn p99(&self, times: &dyn Fn(u64) -> usize) -> Option<f64> {
        let mut counts = vec![0u64; self.values.len()];
        for (round, sample) in &self.samples {
            let times = times(*round) as u64;
            if times > 0 {
                counts.iter_mut().zip(sample).for_each(|(sum, count)| *sum += times * count);
            }
        }
        let total: u64 = counts.iter().sum();
        let target = ((P99 * total as f64).ceil() as u64).max(1);
        let mut reached = 0;
        let at = counts.iter().position(|count| {
            reached += count;
            total > 0 && reached >= target
        })?;
        Some(self.values[at] as f64)
    }
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
    /// On the pooled p99, as the difference of logarithms.
    pub p99_log: f64,
}

impl Tolerance {
    /// The tolerance on `figure`, on [`scale`]'s scale.
    fn on(self, figure: Weigh) -> f64 {
        match figure {
            Weigh::Drops => self.overflow_points,
            Weigh::Cpu => self.cpu_log,
            Weigh::P99 => self.p99_log,
        }
    }
}

/// One channel's figures in one resample: frames overflowed over frames sent, the trimmed
/// mean CPU per delivered message (`None` without CPU time) and the pooled p99 (`None` without
/// latencies, or when p99 is not weighed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Frames overflowed over frames sent (0.02 = 2%).
    pub overflow_share: f64,
    /// Trimmed mean CPU ns per delivered message.
    pub cpu: Option<f64>,
    /// The p99 of every latency of the samples drawn, nanoseconds.
    pub p99: Option<f64>,
}

/// `figure` of `figures` on the scale its tolerance is in, lower better: percentage points of
/// frames overflowed, the logarithm of CPU or of p99; `None` when it was not measured.
fn scale(figure: Weigh, figures: Figures) -> Option<f64> {
    match figure {
        Weigh::Drops => Some(100.0 * figures.overflow_share),
        Weigh::Cpu => figures.cpu.map(f64::ln),
        Weigh::P99 => figures.p99.map(f64::ln),
    }
}

/// Whether `a` is ahead of `b` beyond the tolerance on the figures of `weighing`, in order:
/// better by more than the tolerance on the first, or within it and so on the next. A figure
/// one of the two lacks tells them apart no more than one within the tolerance.
pub fn ahead(a: Figures, b: Figures, tolerance: Tolerance, weighing: &Weighing) -> bool {
    for &figure in weighing.order() {
        let Some(gap) = scale(figure, b).zip(scale(figure, a)).map(|(b, a)| b - a) else { continue };
        if gap.abs() > tolerance.on(figure) {
            return gap > 0.0;
        }
    }
    false
}

/// The eligible channels within the tolerance of the best on `figure`, less one, among
/// `figures` (`None`: not measured); `None` without an eligible one that has the figure.
pub fn best_with(figures: &[Option<Figures>], eligible: &[bool], tolerance: Tolerance, figure: Weigh) -> Option<usize> {
    let candidates = || {
        let eligible = figures.iter().zip(eligible).filter(|(_, eligible)| **eligible);
        eligible.filter_map(|(figures, _)| scale(figure, (*figures)?))
    };
    let best = candidates().min_by(f64::total_cmp)?;
    Some(candidates().filter(|value| value - best <= tolerance.on(figure)).count() - 1)
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
    /// In the run itself, every round once: [`best_with`] on the first figure weighed.
    pub best_with: Option<usize>,
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
/// into the run's rounds), its p99 when `weighing` weighs it; `None` when none of its samples
/// was drawn.
fn figures(entrant: &Entrant, counts: &[usize], index: &dyn Fn(u64) -> usize, weighing: &Weighing) -> Option<Figures> {
    let times = |round: u64| counts[index(round)];
    let (mut overflowed, mut frames) = (0, 0);
    for &(round, over, of) in &entrant.drops {
        let times = times(round) as u64;
        (overflowed, frames) = (overflowed + times * over, frames + times * of);
    }
    let mut cpu: Vec<f64> = Vec::new();
    for &(round, value) in &entrant.cpu {
        cpu.extend(std::iter::repeat_n(value, times(round)));
    }
    let drawn = entrant.drops.iter().any(|(round, _, _)| times(*round) > 0);
    drawn.then(|| Figures {
        overflow_share: if frames == 0 { 0.0 } else { overflowed as f64 / frames as f64 },
        cpu: trimmed_mean_of(&cpu),
        p99: if weighing.weighs(Weigh::P99) { entrant.latency.p99(&times) } else { None },
    })
}

/// The comparisons of `resamples` resamples of the rounds of `entrants` (in the rule's order)
/// on the figures of `weighing`, and the run's own best on its first.
pub fn tally(entrants: &[Entrant], tolerance: Tolerance, weighing: &Weighing, resamples: usize) -> Tally {
    let mut rounds: Vec<u64> = entrants
        .iter()
        .flat_map(|e| {
            let latency = e.latency.samples.iter().map(|(round, _)| *round);
            e.drops.iter().map(|(round, _, _)| *round).chain(e.cpu.iter().map(|(round, _)| *round)).chain(latency)
        })
        .collect();
    rounds.sort_unstable();
    rounds.dedup();
    let index = |round: u64| rounds.binary_search(&round).expect("every round is listed");
    let eligible: Vec<bool> = entrants.iter().map(|e| e.eligible).collect();
    let drawn = |counts: &[usize]| -> Vec<Option<Figures>> {
        entrants.iter().map(|e| figures(e, counts, &index, weighing)).collect()
    };
    let n = entrants.len();
    let best_with = best_with(&drawn(&vec![1; rounds.len()]), &eligible, tolerance, weighing.first());
    let mut tally = Tally { resamples, ahead: vec![vec![0; n]; n], eligible, best_with };
    let mut generator = Pcg64Mcg::seed_from_u64(SEED);
    let mut counts = vec![0; rounds.len()];
    for _ in 0..resamples {
        counts.iter_mut().for_each(|count| *count = 0);
        (0..rounds.len()).for_each(|_| counts[generator.random_range(0..rounds.len())] += 1);
        let figures = drawn(&counts);
        for (a, b) in (0..n).flat_map(|a| (0..n).map(move |b| (a, b))) {
            if let (Some(fa), Some(fb)) = (figures[a], figures[b])
                && a != b
                && ahead(fa, fb, tolerance, weighing)
            {
                tally.ahead[a][b] += 1;
            }
        }
    }
    tally
}

#[cfg(test)]
mod tests;

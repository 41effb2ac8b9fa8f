//! The room's pick as the resamples of its run agree on it: [`tally`] draws the run's rounds
//! with replacement ([`RESAMPLES`] times, from a generator seeded with [`SEED`], so one file
//! always gives one answer), recomputes each channel's figures the decision reads from the
//! rounds drawn (frames overflowed in phase, CPU per delivered message out of phase), and lets
//! each resample pick by one rule ([`vote`]); the pick is the channel that wins at least
//! [`MAJORITY`] of them. Resampling whole rounds keeps what pairs the channels: every channel of
//! a round met the same moment of the host. Pure functions; `results::decision` reads them.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::stats::trimmed_mean;

/// Resamples of the run's rounds one decision draws.
pub const RESAMPLES: usize = 1000;

/// The seed of the resampling: the same file, the same resamples, the same answer.
pub const SEED: u64 = 0x5EED_0B00_7575_0002;

/// The share of the resamples a channel must win to be the pick: below it, the run has not
/// resolved the room, and the channels that split the wins are named instead. Three fifths: a
/// channel the noise hands half the resamples to is a coin toss, and the next run reverses it.
pub const MAJORITY: f64 = 0.6;

/// One channel as the resamples read it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entrant {
    /// Per sample of the cell drops are judged in: (round, frames overflowed, frames).
    pub drops: Vec<(u64, u64, u64)>,
    /// Per sample of the cell CPU is judged in: (round, CPU ns per delivered message).
    pub cpu: Vec<(u64, f64)>,
    /// Whether it may be picked: a channel with a known problem is named in a tie, never picked.
    pub eligible: bool,
}

/// How far apart two channels' figures may be and still be a tie in one resample: closer than
/// the run can resolve (resampling sees the spread between rounds; it cannot see a drift that
/// moves every round of one stretch of the run alike).
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

/// One resample's decision, entrants named by their index.
#[derive(Debug, Clone, PartialEq)]
pub struct Vote {
    /// The pick of the rule: the first eligible entrant of the tie (entrants are in the rule's
    /// order).
    pub winner: usize,
    /// The eligible entrants with the fewest frames overflowed (within the tolerance), less one.
    pub fewest_with: usize,
    /// The entrants within the tolerance of the best on both figures, the best included,
    /// ineligible ones too: the best is the eligible entrant of the lowest CPU among those with
    /// the fewest frames overflowed.
    pub tie: Vec<usize>,
}

/// The decision of one resample from each entrant's `figures` (`None`: not in the resample),
/// entrants in the rule's order: of the eligible, those within the tolerance of the fewest
/// frames overflowed; of those, the best is the lowest CPU; the tie is every entrant within the
/// tolerance of the best on both figures, and the winner is the tie's first eligible entrant.
/// So a channel the rule puts first wins whenever it is not separated behind the best, whichever
/// of the tie the noise put lowest. `None` without an eligible entrant.
pub fn vote(figures: &[Option<Figures>], eligible: &[bool], tolerance: Tolerance) -> Option<Vote> {
    let present = || figures.iter().enumerate().filter_map(|(at, figures)| Some((at, (*figures)?)));
    let candidates = || present().filter(|(at, _)| eligible[*at]);
    let fewest = candidates().map(|(_, f)| f.overflow_share).min_by(f64::total_cmp)?;
    let near = |share: f64, to: f64| (100.0 * (share - to)).abs() <= tolerance.overflow_points;
    let few: Vec<(usize, Figures)> = candidates().filter(|(_, f)| near(f.overflow_share, fewest)).collect();
    let cpu = |f: &Figures| f.cpu.unwrap_or(f64::INFINITY);
    let &(_, best) = few.iter().min_by(|a, b| cpu(&a.1).total_cmp(&cpu(&b.1)))?;
    let cpu_near = |f: Figures| match (f.cpu, best.cpu) {
        (Some(a), Some(b)) => (a.ln() - b.ln()).abs() <= tolerance.cpu_log,
        (a, b) => a.is_none() && b.is_none(),
    };
    let tie: Vec<usize> =
        present().filter(|(_, f)| near(f.overflow_share, fewest) && cpu_near(*f)).map(|(at, _)| at).collect();
    let winner = *tie.iter().find(|at| eligible[**at])?;
    Some(Vote { winner, fewest_with: few.len() - 1, tie })
}

/// What the resamples agreed on, entrants named by their index.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    /// Resamples drawn.
    pub resamples: usize,
    /// Per entrant: the resamples it won.
    pub wins: Vec<usize>,
    /// Per winner, per entrant: the resamples the winner won with the entrant in its tie.
    pub tied_with: Vec<Vec<usize>>,
    /// The decision of the run itself, every round once.
    pub run: Option<Vote>,
}

impl Tally {
    /// The entrants with a win, the most first (the rule's order among equals): (entrant, wins).
    pub fn ranked(&self) -> Vec<(usize, usize)> {
        let mut ranked: Vec<(usize, usize)> = self.wins.iter().copied().enumerate().filter(|(_, w)| *w > 0).collect();
        ranked.sort_by_key(|&(at, wins)| (std::cmp::Reverse(wins), at));
        ranked
    }

    /// The entrant that won at least [`MAJORITY`] of the resamples; `None` when none did.
    pub fn pick(&self) -> Option<usize> {
        let (at, wins) = *self.ranked().first()?;
        (wins as f64 >= MAJORITY * self.resamples as f64).then_some(at)
    }

    /// The entrants in `winner`'s tie in most of the resamples it won, `winner` aside.
    pub fn tie_of(&self, winner: usize) -> Vec<usize> {
        let won = self.wins[winner];
        let often = |(at, with): (usize, &usize)| (at != winner && 2 * with > won).then_some(at);
        self.tied_with[winner].iter().enumerate().filter_map(often).collect()
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

/// The decisions of `resamples` resamples of the rounds of `entrants` (in the rule's order),
/// and of the run itself.
pub fn tally(entrants: &[Entrant], tolerance: Tolerance, resamples: usize) -> Tally {
    let mut rounds: Vec<u64> = entrants
        .iter()
        .flat_map(|e| e.drops.iter().map(|(round, _, _)| *round).chain(e.cpu.iter().map(|(round, _)| *round)))
        .collect();
    rounds.sort_unstable();
    rounds.dedup();
    let index = |round: u64| rounds.binary_search(&round).expect("every round is listed");
    let eligible: Vec<bool> = entrants.iter().map(|e| e.eligible).collect();
    let decide = |counts: &[usize]| {
        let figures: Vec<Option<Figures>> = entrants.iter().map(|e| figures(e, counts, &index)).collect();
        vote(&figures, &eligible, tolerance)
    };
    let n = entrants.len();
    let mut tally =
        Tally { resamples, wins: vec![0; n], tied_with: vec![vec![0; n]; n], run: decide(&vec![1; rounds.len()]) };
    let mut generator = Pcg64Mcg::seed_from_u64(SEED);
    let mut counts = vec![0; rounds.len()];
    for _ in 0..resamples {
        counts.iter_mut().for_each(|count| *count = 0);
        (0..rounds.len()).for_each(|_| counts[generator.random_range(0..rounds.len())] += 1);
        if let Some(vote) = decide(&counts) {
            tally.wins[vote.winner] += 1;
            vote.tie.iter().for_each(|at| tally.tied_with[vote.winner][*at] += 1);
        }
    }
    tally
}

#[cfg(test)]
mod tests;

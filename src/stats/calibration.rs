//! A run's own A/A check of its paired estimates ([`calibrate`]): each pair of channels split
//! into its early and late halves, whose two estimates of one difference should agree within
//! their interval at the rate it states. Pure functions.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::verdict::{Estimate, Prior};

/// A pair's differences, each with its round.
pub type Differences = Vec<(u64, f64)>;

/// How far a run's paired estimates of one group disagree with themselves: each pair of
/// channels with [`CALIBRATION_ROUNDS`] rounds or more is split into its early and late halves,
/// and the two halves' estimates of the same difference are compared as an A/A pair would be
/// ([`calibrate`]). `scale` multiplies a paired estimate's standard error so that the halves'
/// differences fall outside their combined interval at the rate the confidence states.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Calibration {
    /// The factor on a paired standard error (1 = the sampling model was right).
    pub scale: f64,
    /// The A/A pairs (two halves of one pair of channels at one task count) it was measured from.
    pub pairs: usize,
    /// Of those, the share whose halves differ beyond their combined 95% interval before scaling.
    pub outside: f64,
}

/// The fewest rounds a pair of channels needs to give [`calibrate`] an A/A pair: two halves of
/// two rounds each.
pub const CALIBRATION_ROUNDS: usize = 4;

/// The fewest A/A pairs a group needs for [`calibrate`] to set its scale; a group with fewer
/// keeps the floor from A/A runs of one host (`results::noise::Metric::drift`).
pub const MIN_CALIBRATION_PAIRS: usize = 8;

/// The least scale [`calibrate`] sets: the halves of one run cannot see what moves a channel
/// between runs (a run-long state of the host), so a run widens its sampling model where its
/// halves disagree and never narrows it. docs/methodology.md has the A/A runs that set it.
pub const LEAST_SCALE: f64 = 1.0;

/// The share of A/A pairs [`calibrate`] sets inside their scaled central interval: their
/// 80th percentile, which a burst or two in the run's tail barely moves, as a 95th would.
const CALIBRATION_QUANTILE: f64 = 0.8;

/// The run's calibration of its paired verdicts from `pairs`, each one pair of channels' `b − a`
/// per round (with its round) at one task count: each split by round into its early and late
/// halves, each half estimated as a verdict estimates a pair ([`Estimate::paired`], with
/// `prior(n)` for `n` differences), and the halves' difference `z` in units of its standard
/// error. The scale is the `CALIBRATION_QUANTILE` of `|z|` over Student's quantile of that
/// share: the factor that puts that share of the halves inside their interval, and so about
/// `confidence` of them inside the interval at that confidence when their tails are normal; never below
/// [`LEAST_SCALE`]. `None` with
/// fewer than [`MIN_CALIBRATION_PAIRS`] pairs of [`CALIBRATION_ROUNDS`] rounds.
pub fn calibrate(
    pairs: &[Differences],
    prior: &dyn Fn(usize) -> Option<Prior>,
    confidence: f64,
) -> Option<Calibration> {
    let tail = 0.5 + CALIBRATION_QUANTILE / 2.0;
    let (mut units, mut outside) = (Vec::new(), 0usize);
    for pair in pairs.iter().filter(|pair| pair.len() >= CALIBRATION_ROUNDS) {
        let mut ordered = pair.clone();
        ordered.sort_by_key(|(round, _)| *round);
        let values: Vec<f64> = ordered.iter().map(|(_, d)| *d).collect();
        let (early, late) = values.split_at(values.len() / 2);
        let estimates = Estimate::paired(early, prior(early.len())).zip(Estimate::paired(late, prior(late.len())));
        let Some((a, b)) = estimates else { continue };
        let halves = Estimate::between((a.mean, a.se.powi(2), a.degrees), (b.mean, b.se.powi(2), b.degrees));
        if halves.se <= 0.0 {
            continue;
        }
        let quantile = |share: f64| {
            StudentsT::new(0.0, 1.0, halves.degrees.clamp(1.0, 1e6)).map_or(f64::INFINITY, |t| t.inverse_cdf(share))
        };
        let z = halves.mean.abs() / halves.se;
        outside += usize::from(z > quantile(0.5 + confidence / 2.0));
        units.push(z / quantile(tail));
    }
    if units.len() < MIN_CALIBRATION_PAIRS {
        return None;
    }
    units.sort_by(f64::total_cmp);
    let at = ((units.len() as f64 * CALIBRATION_QUANTILE).ceil() as usize).clamp(1, units.len()) - 1;
    Some(Calibration {
        scale: units[at].max(LEAST_SCALE),
        pairs: units.len(),
        outside: outside as f64 / units.len() as f64,
    })
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    use super::*;
    use crate::stats::tests::normal_samples;

    /// [`calibrate`] at 95% without a prior.
    fn calibrate_95(pairs: &[Differences]) -> Option<Calibration> {
        calibrate(pairs, &|_| None, 0.95)
    }

    /// `count` pairs of `rounds` differences: sd `noise` about 0, the late half moved by `step`.
    fn halves(count: usize, rounds: u64, noise: f64, step: f64, generator: &mut Pcg64Mcg) -> Vec<Vec<(u64, f64)>> {
        let pair = |generator: &mut Pcg64Mcg| -> Vec<(u64, f64)> {
            let moved = |round| if round >= rounds / 2 { step } else { 0.0 };
            let draws = normal_samples(generator, rounds as usize);
            (0..rounds).zip(draws).map(|(round, draw)| (round, moved(round) + noise * draw)).collect()
        };
        (0..count).map(|_| pair(generator)).collect()
    }

    #[test]
    fn calibration_is_near_one_when_the_sampling_model_holds_and_grows_with_a_step_it_misses() {
        let mut generator = Pcg64Mcg::seed_from_u64(6);
        let steady = calibrate_95(&halves(400, 12, 0.02, 0.0, &mut generator)).unwrap();
        assert_eq!(steady.pairs, 400);
        assert!((0.85..1.2).contains(&steady.scale), "{steady:?}");
        assert!(steady.outside < 0.09, "about 5% of the halves beyond their 95% interval: {steady:?}");
        // Every pair's late half 3 sd of a half's mean away: far beyond what sampling explains.
        let stepped = calibrate_95(&halves(400, 12, 0.02, 0.03, &mut generator)).unwrap();
        assert!(stepped.scale > 2.0 && stepped.outside > 0.3, "{stepped:?}");
        // Halves that repeat each other exactly: the run would narrow its intervals to nothing.
        let twins: Vec<Vec<(u64, f64)>> = halves(40, 6, 0.02, 0.0, &mut generator)
            .into_iter()
            .map(|pair| pair.iter().chain(&pair).enumerate().map(|(round, &(_, d))| (round as u64, d)).collect())
            .collect();
        assert_eq!(calibrate_95(&twins).unwrap().scale, LEAST_SCALE);
        assert_eq!(calibrate_95(&halves(7, 12, 0.02, 0.0, &mut generator)), None, "too few pairs");
        assert_eq!(calibrate_95(&halves(40, 3, 0.02, 0.0, &mut generator)), None, "too few rounds to split");
    }
}

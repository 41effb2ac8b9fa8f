//! Statistics over samples: pure functions, no I/O.

use std::time::Duration;

/// The confidence that [`Summary::median_interval`] reaches at least.
pub const CONFIDENCE: f64 = 0.90;

/// What a set of samples says about its median, and how spread it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// How many values.
    pub count: usize,
    /// The middle value; the mean of the two middle values for an even count.
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// A distribution-free confidence interval for the median, of at least [`CONFIDENCE`]:
    /// two order statistics chosen by the binomial distribution. `None` below 5 values,
    /// where no pair of order statistics reaches that confidence.
    pub median_interval: Option<(f64, f64)>,
}

impl Summary {
    /// Half the width of the confidence interval of the median, relative to the median
    /// (0.02 means "known to within ±2%"); the wider side when the interval is lopsided.
    pub fn median_precision(&self) -> Option<f64> {
        let (low, high) = self.median_interval?;
        Some((self.median - low).max(high - self.median) / self.median)
    }
}

/// Summarizes `values`; `None` when there are none. NaN values are ignored.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    sorted.sort_by(f64::total_cmp);
    let (&min, &max) = (sorted.first()?, sorted.last()?);
    Some(Summary {
        count: sorted.len(),
        median: median_of_sorted(&sorted),
        min,
        max,
        median_interval: median_interval_ranks(sorted.len(), CONFIDENCE).map(|(low, high)| (sorted[low], sorted[high])),
    })
}

fn median_of_sorted(sorted: &[f64]) -> f64 {
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2.0 }
}

/// Zero-based ranks `(k, n - 1 - k)` of the narrowest pair of order statistics that covers
/// the median of the population with probability at least `confidence`:
/// P(k < B ≤ n - 1 - k) for B ~ Binomial(n, 1/2), the count of values below the median.
pub fn median_interval_ranks(n: usize, confidence: f64) -> Option<(usize, usize)> {
    // P(B ≤ k) grows with k: walk it once, keeping the last k whose two tails fit in 1 - confidence.
    let mut log_term = -(n as f64) * std::f64::consts::LN_2;
    let mut below_or_at = log_term.exp();
    let mut fitting = None;
    for k in 0..n.saturating_sub(1) / 2 + 1 {
        if k > 0 {
            log_term += ((n - k + 1) as f64 / k as f64).ln();
            below_or_at += log_term.exp();
        }
        if 2.0 * below_or_at > 1.0 - confidence || k >= n - 1 - k {
            break;
        }
        fitting = Some((k, n - 1 - k));
    }
    fitting
}

/// When a cell has been sampled enough.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StopRule {
    /// Never fewer samples than this (`--samples`).
    pub min_samples: usize,
    /// Stop once the median is known to within this relative half-width (`--precision`).
    pub precision: f64,
    /// Stop once the cell has spent this long sampling, whatever the precision (`--max-time`).
    pub max_time: Duration,
}

impl StopRule {
    /// Whether a cell with `samples` samples so far, `ok_values` of them successful, that
    /// has spent `spent` sampling, needs no more. A cell with failed samples stops at the
    /// minimum: its problem is not noise.
    pub fn is_done(&self, samples: usize, ok_values: &[f64], spent: Duration) -> bool {
        if samples < self.min_samples {
            return false;
        }
        let failed = samples > ok_values.len();
        let precise = summarize(ok_values)
            .and_then(|summary| summary.median_precision())
            .is_some_and(|precision| precision <= self.precision);
        failed || precise || spent >= self.max_time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_has_no_summary() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[f64::NAN]), None);
    }

    #[test]
    fn odd_count_takes_the_middle() {
        let summary = summarize(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!((summary.median, summary.min, summary.max, summary.count), (3.0, 1.0, 5.0, 3));
    }

    #[test]
    fn even_count_averages_the_two_middles() {
        let summary = summarize(&[4.0, 1.0, 10.0, 2.0]).unwrap();
        assert_eq!((summary.median, summary.min, summary.max), (3.0, 1.0, 10.0));
    }

    #[test]
    fn one_value_is_its_own_summary() {
        let summary = summarize(&[7.5]).unwrap();
        assert_eq!((summary.median, summary.min, summary.max), (7.5, 7.5, 7.5));
        assert_eq!(summary.median_interval, None);
    }

    #[test]
    fn an_outlier_moves_the_max_not_the_median() {
        let summary = summarize(&[100.0, 101.0, 99.0, 100.0, 5000.0]).unwrap();
        assert_eq!(summary.median, 100.0);
        assert_eq!(summary.max, 5000.0);
    }

    #[test]
    fn nan_is_ignored() {
        let summary = summarize(&[2.0, f64::NAN, 4.0]).unwrap();
        assert_eq!(summary.median, 3.0);
    }

    /// The ranks by brute force: P(B ≤ k) from binomial coefficients, every k tried.
    fn ranks_by_brute_force(n: usize, confidence: f64) -> Option<(usize, usize)> {
        let coefficient = |j: usize| (0..j).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64);
        let cdf = |k: usize| (0..=k).map(coefficient).sum::<f64>() / 2f64.powi(n as i32);
        (0..n).filter(|&k| k < n - 1 - k && 2.0 * cdf(k) <= 1.0 - confidence).map(|k| (k, n - 1 - k)).next_back()
    }

    #[test]
    fn median_interval_ranks_match_brute_force() {
        for confidence in [0.80, 0.90, 0.95, 0.99] {
            for n in 0..120 {
                assert_eq!(
                    median_interval_ranks(n, confidence),
                    ranks_by_brute_force(n, confidence),
                    "n={n} {confidence}"
                );
            }
        }
        // Large n stays finite and lands near the middle: ±1.645·√n/2 ranks for 90%.
        let (low, high) = median_interval_ranks(100_000, 0.90).unwrap();
        assert!((49_700..49_760).contains(&low) && low + high == 99_999, "{low}");
    }

    #[test]
    fn median_interval_ranks_follow_the_binomial() {
        // 4 values: min..max covers 1 - 2/16 = 87.5% < 90%: no interval.
        assert_eq!(median_interval_ranks(4, 0.90), None);
        // 5 values: min..max covers 1 - 2/32 = 93.75%.
        assert_eq!(median_interval_ranks(5, 0.90), Some((0, 4)));
        // 8 values: 2nd..7th covers 1 - 2·9/256 = 93.0%; 3rd..6th only 71%.
        assert_eq!(median_interval_ranks(8, 0.90), Some((1, 6)));
        // 7 values: 2nd..6th covers 1 - 2·8/128 = 87.5%, so min..max.
        assert_eq!(median_interval_ranks(7, 0.90), Some((0, 6)));
        // At 95%, 5 values are not enough (93.75%), 6 are (96.9%).
        assert_eq!(median_interval_ranks(5, 0.95), None);
        assert_eq!(median_interval_ranks(6, 0.95), Some((0, 5)));
        // Many values: the interval narrows towards the middle.
        let (low, high) = median_interval_ranks(100, 0.90).unwrap();
        assert!(low > 35 && high < 64 && low + high == 99, "{low} {high}");
    }

    #[test]
    fn median_precision_is_the_wider_side() {
        let summary = summarize(&[98.0, 99.0, 100.0, 101.0, 110.0]).unwrap();
        assert_eq!(summary.median_interval, Some((98.0, 110.0)));
        assert!((summary.median_precision().unwrap() - 0.10).abs() < 1e-12);
    }

    fn rule() -> StopRule {
        StopRule { min_samples: 5, precision: 0.02, max_time: Duration::from_secs(2) }
    }

    #[test]
    fn stop_rule_waits_for_the_minimum() {
        let tight = [100.0, 100.1, 100.2, 99.9];
        assert!(!rule().is_done(4, &tight, Duration::from_secs(60)));
    }

    #[test]
    fn stop_rule_stops_a_precise_cell_at_the_minimum() {
        let tight = [100.0, 100.1, 100.2, 99.9, 100.0];
        assert!(rule().is_done(5, &tight, Duration::ZERO));
    }

    #[test]
    fn stop_rule_keeps_sampling_a_noisy_cell_until_its_time_is_up() {
        let noisy = [100.0, 130.0, 90.0, 120.0, 105.0];
        assert!(!rule().is_done(5, &noisy, Duration::from_millis(1900)));
        assert!(rule().is_done(5, &noisy, Duration::from_secs(2)));
    }

    #[test]
    fn stop_rule_does_not_resample_failures() {
        let ok = [100.0, 130.0, 90.0];
        assert!(rule().is_done(5, &ok, Duration::ZERO));
        assert!(rule().is_done(5, &[], Duration::ZERO));
    }
}

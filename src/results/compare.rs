//! What changed between two runs, cell by cell: a verdict per cell, beyond the noise or not.

use crate::stats::Summary;

/// The smallest relative difference (0.02 = 2%) that `compare` calls a change and `summary`
/// lets separate two channels, unless `--threshold` says otherwise.
pub const DEFAULT_THRESHOLD: f64 = 0.02;

/// What a comparison says about one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// NEW's median is lower, beyond the noise of both files.
    Faster,
    /// NEW's median is higher, beyond the noise of both files.
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

/// The interval a median is believed to lie in: its confidence interval, or the min–max
/// of the samples when there are too few for one.
pub fn noise_band(summary: &Summary) -> (f64, f64) {
    summary.median_interval.unwrap_or((summary.min, summary.max))
}

/// Faster or slower when the medians differ by at least `threshold` (0.02 = 2%) and the two
/// medians' intervals do not overlap; otherwise no change.
pub fn verdict(old: &Summary, new: &Summary, threshold: f64) -> Verdict {
    let ratio = new.median / old.median;
    let ((old_low, old_high), (new_low, new_high)) = (noise_band(old), noise_band(new));
    if (ratio - 1.0).abs() < threshold {
        Verdict::NoChange
    } else if new_high < old_low {
        Verdict::Faster
    } else if new_low > old_high {
        Verdict::Slower
    } else {
        Verdict::NoChange
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats;

    fn summary(values: &[f64]) -> Summary {
        stats::summarize(values).unwrap()
    }

    #[test]
    fn clearly_lower_is_faster_and_higher_is_slower() {
        let old = summary(&[100.0, 101.0, 99.0, 100.5, 100.2]);
        let new = summary(&[80.0, 81.0, 79.5, 80.2, 80.9]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::Faster);
        assert_eq!(verdict(&new, &old, 0.02), Verdict::Slower);
    }

    #[test]
    fn overlapping_noise_is_no_change() {
        let old = summary(&[100.0, 140.0, 90.0, 120.0, 105.0]);
        let new = summary(&[115.0, 150.0, 95.0, 130.0, 118.0]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
    }

    #[test]
    fn a_separated_change_below_the_threshold_is_no_change() {
        let old = summary(&[100.0, 100.1, 100.2, 100.0, 100.1]);
        let new = summary(&[101.0, 101.1, 101.2, 101.0, 101.1]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
        assert_eq!(verdict(&old, &new, 0.005), Verdict::Slower);
    }

    #[test]
    fn too_few_samples_fall_back_to_the_range() {
        let old = summary(&[100.0, 104.0]);
        let new = summary(&[103.0, 110.0]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
        let new = summary(&[105.0, 110.0]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::Slower);
    }
}

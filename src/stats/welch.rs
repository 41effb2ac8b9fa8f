//! Whether two sets of samples differ in level beyond what their spread makes likely: Welch's
//! t-test on the logarithms of the samples (unequal variances, Welch–Satterthwaite degrees of
//! freedom). On the log scale a difference is a ratio, the way channel-bench states every
//! change, and the test does not assume the two sets are equally noisy. A cell whose samples
//! fall in two clusters has a wide spread of logarithms, so a shift of the clusters' shares between
//! two runs is not taken for a change.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The two-sided p-value of Welch's t-test on the natural logarithms of `a` and `b`: the
/// probability that two sets drawn from one log-normal distribution differ in mean
/// logarithm at least as much as these do. `None` when either set has fewer than two
/// positive, finite values. When neither set has any spread the answer is 1.0 for equal
/// levels and 0.0 for different ones.
pub fn log_welch_p(a: &[f64], b: &[f64]) -> Option<f64> {
    let (a, b) = (LogMoments::of(a)?, LogMoments::of(b)?);
    let (a_error, b_error) = (a.variance / a.count, b.variance / b.count);
    let error = a_error + b_error;
    if error == 0.0 {
        return Some(if a.mean == b.mean { 1.0 } else { 0.0 });
    }
    let t = (a.mean - b.mean).abs() / error.sqrt();
    let degrees = error * error / (a_error * a_error / (a.count - 1.0) + b_error * b_error / (b.count - 1.0));
    let distribution = StudentsT::new(0.0, 1.0, degrees).ok()?;
    Some((2.0 * distribution.sf(t)).min(1.0))
}

/// The count, mean and sample variance of the logarithms of a set's positive values.
pub(super) struct LogMoments {
    pub(super) count: f64,
    pub(super) mean: f64,
    pub(super) variance: f64,
}

impl LogMoments {
    /// The moments of the positive, finite `values`; `None` below two such values.
    pub(super) fn of(values: &[f64]) -> Option<Self> {
        let logs: Vec<f64> = values.iter().filter(|v| **v > 0.0 && v.is_finite()).map(|v| v.ln()).collect();
        if logs.len() < 2 {
            return None;
        }
        let count = logs.len() as f64;
        let mean = logs.iter().sum::<f64>() / count;
        let variance = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (count - 1.0);
        Some(LogMoments { count, mean, variance })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exp(logs: &[f64]) -> Vec<f64> {
        logs.iter().map(|x| x.exp()).collect()
    }

    #[test]
    fn matches_the_textbook_value() {
        // Logarithms 1, 2, 3 against 4, 5, 6: t = 3 / √(2/3) = 3.674 with 4 degrees of
        // freedom, two-sided p = 0.02131 (Student's t with 4 degrees has a closed form).
        let p = log_welch_p(&exp(&[1.0, 2.0, 3.0]), &exp(&[4.0, 5.0, 6.0])).unwrap();
        let t: f64 = 3.0 / (2.0f64 / 3.0).sqrt();
        let closed_form = 1.0 - t * (6.0 + t * t) / (4.0 + t * t).powf(1.5);
        assert!((p - closed_form).abs() < 1e-9, "{p} against {closed_form}");
        assert!((p - 0.02131).abs() < 1e-4);
    }

    #[test]
    fn is_symmetric_and_falls_as_the_sets_move_apart() {
        let a = [100.0, 104.0, 97.0, 101.0, 99.0];
        let near = [102.0, 106.0, 99.0, 103.0, 101.0];
        let far = [130.0, 135.0, 126.0, 131.0, 129.0];
        let (p_near, p_far) = (log_welch_p(&a, &near).unwrap(), log_welch_p(&a, &far).unwrap());
        assert_eq!(p_near, log_welch_p(&near, &a).unwrap());
        assert!(p_near > 0.1 && p_far < 1e-6, "near {p_near}, far {p_far}");
    }

    #[test]
    fn a_scale_factor_does_not_change_it() {
        let (a, b) = ([10.0, 12.0, 11.0, 13.0], [14.0, 15.0, 13.5, 16.0]);
        let scaled = |values: &[f64]| values.iter().map(|v| v * 1000.0).collect::<Vec<_>>();
        let (p, p_scaled) = (log_welch_p(&a, &b).unwrap(), log_welch_p(&scaled(&a), &scaled(&b)).unwrap());
        assert!((p - p_scaled).abs() < 1e-12);
    }

    #[test]
    fn needs_two_values_a_side_and_handles_no_spread() {
        assert_eq!(log_welch_p(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(log_welch_p(&[1.0, 0.0, f64::NAN], &[1.0, 2.0]), None);
        assert_eq!(log_welch_p(&[5.0, 5.0], &[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(log_welch_p(&[5.0, 5.0], &[6.0, 6.0]), Some(0.0));
    }
}

//! Statistics over several runs of one sweep: the two-level design of Kalibera and Jones
//! ("Rigorous benchmarking in reasonable time", ISMM 2013). Each run gives a cell one figure
//! (the trimmed mean of its samples); the runs are the replication, so a pooled cell's figure
//! is the geometric mean of its runs' figures and its interval a Student's t interval on their
//! logarithms ([`pooled_summary`]). The spread between runs, pooled over many cells
//! ([`pooled_log_sd`]), sets the margin below which two pooled figures are not told apart
//! ([`margin`]). Pure functions, no I/O.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::Summary;
use super::welch::LogMoments;

/// The mean and the sample variance of the logarithms of `values` (each positive and finite),
/// and how many there were; `None` below two such values.
fn log_moments(values: &[f64]) -> Option<(f64, f64, usize)> {
    LogMoments::of(values).map(|moments| (moments.mean, moments.variance, moments.count as usize))
}

/// The `quantile` of Student's t with `degrees` degrees of freedom.
fn t_quantile(degrees: f64, quantile: f64) -> f64 {
    StudentsT::new(0.0, 1.0, degrees).map_or(f64::INFINITY, |t| t.inverse_cdf(quantile))
}

/// The geometric mean of `values` (each positive); NaN when there are none.
pub fn geometric_mean(values: &[f64]) -> f64 {
    (values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp()
}

/// The two-sided `confidence` interval of the geometric mean of `runs` (one figure per run,
/// each positive): Student's t with `runs − 1` degrees of freedom on their logarithms, taken
/// back to the scale of the figures. `None` below two runs.
pub fn log_t_interval(runs: &[f64], confidence: f64) -> Option<(f64, f64)> {
    let (mean, variance, count) = log_moments(runs)?;
    let half = t_quantile(count as f64 - 1.0, 0.5 + confidence / 2.0) * (variance / count as f64).sqrt();
    Some(((mean - half).exp(), (mean + half).exp()))
}

/// What the figures of a cell's runs say, as a [`Summary`] whose values are the runs: its
/// `trimmed_mean` is their geometric mean, its `trimmed_mean_interval` the [`log_t_interval`]
/// at `confidence`; the median, min and max are those of the runs; no median interval.
/// `None` below two runs, where the within-run summary is the one to use.
pub fn pooled_summary(runs: &[f64], confidence: f64) -> Option<Summary> {
    let interval = log_t_interval(runs, confidence)?;
    let mut sorted = runs.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some(Summary {
        count: runs.len(),
        median: super::median_of_sorted(&sorted),
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        median_interval: None,
        trimmed_mean: geometric_mean(runs),
        trimmed_mean_interval: Some(interval),
    })
}

/// The between-run spread pooled over several cells: the standard deviation of the
/// logarithms of each cell's run figures around that cell's own mean, the cells' variances
/// weighted by their degrees of freedom; with those degrees of freedom (the runs less one,
/// summed). Cells with fewer than two runs add nothing; `None` when none has two.
pub fn pooled_log_sd<'a>(cells: impl IntoIterator<Item = &'a [f64]>) -> Option<(f64, f64)> {
    let (mut sum, mut degrees) = (0.0, 0.0);
    for (_, variance, count) in cells.into_iter().filter_map(log_moments) {
        sum += variance * (count as f64 - 1.0);
        degrees += count as f64 - 1.0;
    }
    (degrees > 0.0).then(|| ((sum / degrees).sqrt(), degrees))
}

/// The smallest relative difference between two pooled figures, of `runs_a` and `runs_b`
/// runs, that a between-run spread of `log_sd` (known with `degrees` degrees of freedom) lets
/// through at a two-sided `significance`: `exp(t · sd · √(1/a + 1/b)) − 1` (0.10 = 10%). The
/// margin shrinks as √runs, and widens as fewer cells or runs measured the spread.
pub fn margin(log_sd: f64, degrees: f64, runs_a: usize, runs_b: usize, significance: f64) -> f64 {
    let error = log_sd * (1.0 / runs_a as f64 + 1.0 / runs_b as f64).sqrt();
    (t_quantile(degrees, 1.0 - significance / 2.0) * error).exp() - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pooled_figure_is_the_geometric_mean_with_a_t_interval_around_it() {
        let summary = pooled_summary(&[100.0, 400.0], 0.90).unwrap();
        assert!((summary.trimmed_mean - 200.0).abs() < 1e-9);
        let (low, high) = summary.trimmed_mean_interval.unwrap();
        // Symmetric on the log scale, and wide with one degree of freedom (t = 6.31).
        assert!((low * high - 200.0 * 200.0).abs() < 1e-6);
        assert!(high / 200.0 > 2.0f64.powf(6.0), "{high}");
        assert_eq!((summary.count, summary.min, summary.max, summary.median), (2, 100.0, 400.0, 250.0));
        assert_eq!(pooled_summary(&[100.0], 0.90), None);
    }

    #[test]
    fn the_interval_narrows_with_more_runs_of_the_same_spread() {
        let few = log_t_interval(&[90.0, 110.0, 100.0], 0.90).unwrap();
        let many = log_t_interval(&[90.0, 110.0, 100.0, 90.0, 110.0, 100.0, 90.0, 110.0, 100.0], 0.90).unwrap();
        assert!(many.1 / many.0 < few.1 / few.0);
        assert!(few.0 < 100.0 && few.1 > 100.0);
        let same = log_t_interval(&[7.0, 7.0], 0.90).unwrap();
        assert!((same.0 - 7.0).abs() < 1e-12 && (same.1 - 7.0).abs() < 1e-12);
    }

    #[test]
    fn the_pooled_spread_ignores_each_cells_level_and_weights_by_runs() {
        // Two cells at very different levels with the same ±10% spread pool to that spread.
        let (a, b): (&[f64], &[f64]) = (&[90.0, 110.0], &[9000.0, 11000.0]);
        let (sd, degrees) = pooled_log_sd([a, b]).unwrap();
        let (_, alone, _) = log_moments(a).unwrap();
        assert!((sd - alone.sqrt()).abs() < 1e-12 && degrees == 2.0);
        let single: &[f64] = &[5.0];
        assert_eq!(pooled_log_sd([single]), None);
        let (with_single, _) = pooled_log_sd([a, single]).unwrap();
        assert!((with_single - sd).abs() < 1e-12, "a single run adds nothing");
    }

    #[test]
    fn the_margin_shrinks_with_runs_and_widens_with_spread_and_fewer_degrees() {
        let three = margin(0.05, 100.0, 3, 3, 0.001);
        let nine = margin(0.05, 100.0, 9, 9, 0.001);
        assert!(nine < three && three > 0.0);
        assert!((three / nine - 3f64.sqrt()).abs() < 0.1, "about √3 narrower: {three} {nine}");
        assert!(margin(0.10, 100.0, 3, 3, 0.001) > three);
        assert!(margin(0.05, 4.0, 3, 3, 0.001) > three);
    }
}

//! Statistics over several runs of one sweep: the two-level design of Kalibera and Jones
//! ("Rigorous benchmarking in reasonable time", ISMM 2013). Each run gives a cell one figure
//! (the trimmed mean of its samples); the runs are the replication, so a pooled cell's figure
//! is the geometric mean of its runs' figures and its interval a Student's t interval on their
//! logarithms ([`pooled_summary`]): the figure a pooled file shows. Verdicts on pooled runs are
//! the noise model's (`results::noise`). Pure functions, no I/O.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::Summary;

/// The geometric mean of `values`, the crate's one: each weighs the same whatever its scale;
/// 0 when any is 0 or less, NaN when there are none.
pub fn geometric_mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let logs: Option<Vec<f64>> = values.into_iter().map(|v| if v <= 0.0 { None } else { Some(v.ln()) }).collect();
    logs.map_or(0.0, |logs| (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// The two-sided `confidence` interval of the geometric mean of `runs` (one figure per run,
/// each positive): Student's t with `runs − 1` degrees of freedom on their logarithms, taken
/// back to the scale of the figures. `None` below two positive, finite runs.
pub fn log_t_interval(runs: &[f64], confidence: f64) -> Option<(f64, f64)> {
    let logs: Vec<f64> = runs.iter().filter(|v| **v > 0.0 && v.is_finite()).map(|v| v.ln()).collect();
    let count = Some(logs.len() as f64).filter(|&count| count >= 2.0)?;
    let mean = logs.iter().sum::<f64>() / count;
    let variance = logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (count - 1.0);
    let t = StudentsT::new(0.0, 1.0, count - 1.0).map_or(f64::INFINITY, |t| t.inverse_cdf(0.5 + confidence / 2.0));
    let half = t * (variance / count).sqrt();
    Some(((mean - half).exp(), (mean + half).exp()))
}

/// What the figures of a cell's runs say, as a [`Summary`] whose values are the runs: its
/// `trimmed_mean` is their geometric mean, its `trimmed_mean_interval` the [`log_t_interval`]
/// at `confidence`; the median, min and max are those of the runs; no median interval.
/// `None` below two runs, where the within-run summary is the one to use.
pub fn pooled_summary(runs: &[f64], confidence: f64) -> Option<Summary> {
    let interval = log_t_interval(runs, confidence)?;
    let sorted = super::sorted(runs)?;
    Some(Summary {
        count: runs.len(),
        median: super::median_of_sorted(&sorted),
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        median_interval: None,
        trimmed_mean: geometric_mean(runs.iter().copied()),
        trimmed_mean_interval: Some(interval),
    })
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
}

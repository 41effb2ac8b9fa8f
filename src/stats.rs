//! Statistics over samples: pure functions, no I/O.

/// Median, minimum and maximum of a set of values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// The middle value; the mean of the two middle values for an even count.
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
}

/// Summarizes `values`; `None` when there are none. NaN values are ignored.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    sorted.sort_by(f64::total_cmp);
    let (&min, &max) = (sorted.first()?, sorted.last()?);
    Some(Summary { median: median_of_sorted(&sorted), min, max })
}

fn median_of_sorted(sorted: &[f64]) -> f64 {
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2.0 }
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
        assert_eq!(summary, Summary { median: 3.0, min: 1.0, max: 5.0 });
    }

    #[test]
    fn even_count_averages_the_two_middles() {
        let summary = summarize(&[4.0, 1.0, 10.0, 2.0]).unwrap();
        assert_eq!(summary, Summary { median: 3.0, min: 1.0, max: 10.0 });
    }

    #[test]
    fn one_value_is_its_own_summary() {
        assert_eq!(summarize(&[7.5]), Some(Summary { median: 7.5, min: 7.5, max: 7.5 }));
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
}

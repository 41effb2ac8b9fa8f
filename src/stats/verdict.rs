//! The one noise model: every verdict between two figures, whether two channels of one band,
//! one cell in two runs, or two channels' paced latency, comes from [`judge`]. Pure functions.
//!
//! A verdict is about a difference `d` of two figures on a scale where differences add (the
//! logarithm of a ratio, or points of a share). Its [`Estimate`] carries `d`, its standard
//! error and the degrees of freedom that error is known with; [`judge`] adds the term no
//! sampling inside one run can see (the drift between runs, which calibration measured) and
//! gives the interval of `d` and the call: **lower**, **higher**, or **tied within** the
//! interval's farthest end. Pairing is what makes the error small: samples of the two measured
//! back to back ([`Estimate::paired`]) share the host's state, so their difference cancels
//! most of the noise that two figures taken minutes apart ([`Estimate::unpaired`]) keep.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// A spread known before the data of one pair: the run's own spread, pooled over the other
/// pairs of its runtime, weighted as if it were `degrees` observations of this pair. It keeps a
/// pair with one or two observations from a spread of zero by luck, and is soon outweighed by a
/// pair's own spread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior {
    /// Standard deviation of one observation (a paired difference, or a sample's logarithm).
    pub sd: f64,
    /// How many observations' worth it weighs.
    pub degrees: f64,
}

impl Prior {
    /// The most a run's pooled spread weighs in one pair ([`Prior::degrees`]).
    pub const WEIGHT: f64 = 4.0;

    /// The prior of a spread measured over `degrees` degrees of freedom: weighs `weight`
    /// observations at most ([`Prior::WEIGHT`] for a group's spread over pairs of two channels;
    /// more where the pooled spread is closer to a pair's own).
    pub fn measured(sd: f64, degrees: f64, weight: f64) -> Prior {
        Prior { sd, degrees: degrees.min(weight) }
    }
}

/// An estimate of a difference: its value, its standard error and that error's degrees of
/// freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The difference (b − a).
    pub mean: f64,
    /// Its standard error.
    pub se: f64,
    /// Degrees of freedom of the standard error.
    pub degrees: f64,
}

/// The fewest observations a trimmed mean trims: below this many, an estimate is their plain
/// mean, which no trim protects from a tail.
pub const TRIMMED_FROM: usize = 5;

impl Estimate {
    /// From paired differences (each `b − a` of one round): their trimmed mean (without the
    /// lowest and highest [`crate::stats::TRIM`] of them, as a cell's headline figure) and its
    /// standard error by Yuen's method (the winsorized spread over the share kept), the spread
    /// shrunk towards `prior` (a pooled variance, the pair's own and the prior's each with its
    /// degrees of freedom). A round disturbed for one channel and not the other (a stretch
    /// that began between the two samples) is one of the differences the trim leaves out. Below
    /// five differences nothing is trimmed. `None` without a difference, or with one and no prior.
    pub fn paired(differences: &[f64], prior: Option<Prior>) -> Option<Estimate> {
        let mut sorted = differences.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let kept = Some(n - 2 * super::trimmed(n)).filter(|&kept| kept > 0)? as f64;
        let (own, own_degrees) = squares(&sorted, true);
        let (variance, _) = shrunk(own, own_degrees, prior)?;
        let degrees = kept - 1.0 + prior.map_or(0.0, |prior| prior.degrees);
        let se = (variance / n as f64).sqrt() / (kept / n as f64);
        Some(Estimate { mean: super::trimmed_mean(&sorted), se, degrees })
    }

    /// From two independent sets of observations (`b`'s mean less `a`'s): each set's variance
    /// shrunk towards `prior`, and Welch–Satterthwaite's degrees of freedom. `None` when a side
    /// is empty, or has one observation and there is no prior.
    pub fn unpaired(a: &[f64], b: &[f64], prior: Option<Prior>) -> Option<Estimate> {
        let side = |values: &[f64]| -> Option<(f64, f64, f64)> {
            let (own, own_degrees) = squares(values, false);
            let (variance, degrees) = shrunk(own, own_degrees, prior)?;
            let n = values.len() as f64;
            Some((values.iter().sum::<f64>() / n, variance / n, degrees))
        };
        Some(Estimate::between(side(a)?, side(b)?))
    }

    /// `b − a` of two independent means, each given as (mean, variance of the mean, degrees of
    /// freedom): the root of the sum of the variances, and Welch–Satterthwaite's degrees of freedom.
    pub fn between((mean_a, var_a, df_a): (f64, f64, f64), (mean_b, var_b, df_b): (f64, f64, f64)) -> Estimate {
        let degrees = satterthwaite(&[(var_a, df_a), (var_b, df_b)]);
        Estimate { mean: mean_b - mean_a, se: (var_a + var_b).sqrt(), degrees }
    }

    /// The mean of several estimates of one difference (a band's task counts, each weighing
    /// the same): the mean of their values, the root of the sum of their variances over their
    /// count, and Welch–Satterthwaite's degrees of freedom. `None` when there are none.
    pub fn mean_of(parts: &[Estimate]) -> Option<Estimate> {
        let k = Some(parts.len() as f64).filter(|&k| k > 0.0)?;
        let mean = parts.iter().map(|part| part.mean).sum::<f64>() / k;
        let variances: Vec<(f64, f64)> = parts.iter().map(|part| (part.se.powi(2) / (k * k), part.degrees)).collect();
        let se = variances.iter().map(|(variance, _)| variance).sum::<f64>().sqrt();
        Some(Estimate { mean, se, degrees: satterthwaite(&variances) })
    }
}

/// The variance of one observation from a sum of squares `own` with `degrees` degrees of
/// freedom, pooled with `prior`; `None` when neither has a degree of freedom.
fn shrunk(own: f64, degrees: f64, prior: Option<Prior>) -> Option<(f64, f64)> {
    let (prior_sum, prior_degrees) =
        prior.map_or((0.0, 0.0), |prior| (prior.sd.powi(2) * prior.degrees, prior.degrees));
    let total = degrees.max(0.0) + prior_degrees;
    (total > 0.0).then(|| ((own + prior_sum) / total, total))
}

/// `values` with the lowest and highest [`crate::stats::TRIM`] of them (none below five) set to
/// the nearest value kept, in their own order.
pub fn winsorized(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let cut = super::trimmed(n);
    let (low, high) = (sorted[cut], sorted[n - 1 - cut]);
    values.iter().map(|v| v.clamp(low, high)).collect()
}

/// The sum of squares of `values` about their mean, [`winsorized`] first when `trimmed` (as
/// [`Estimate::paired`] reads a pair), and its degrees of freedom (none below two values).
pub fn squares(values: &[f64], trimmed: bool) -> (f64, f64) {
    let n = values.len();
    if n < 2 {
        return (0.0, 0.0);
    }
    let values = if trimmed { winsorized(values) } else { values.to_vec() };
    let mean = values.iter().sum::<f64>() / n as f64;
    (values.iter().map(|v| (v - mean).powi(2)).sum(), n as f64 - 1.0)
}

/// Welch–Satterthwaite's degrees of freedom of a sum of variances, each with its own.
fn satterthwaite(parts: &[(f64, f64)]) -> f64 {
    let total: f64 = parts.iter().map(|(variance, _)| variance).sum();
    let denominator: f64 = parts.iter().filter(|(_, df)| *df > 0.0).map(|(variance, df)| variance.powi(2) / df).sum();
    if denominator > 0.0 { total.powi(2) / denominator } else { f64::INFINITY }
}

/// Which way a difference went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Call {
    /// The interval holds 0: the two are tied, within the interval's farthest end.
    Tied,
    /// b is below a beyond the noise (faster, for a cost).
    Lower,
    /// b is above a beyond the noise (slower, for a cost).
    Higher,
}

/// The verdict on a difference b − a.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// The estimated difference.
    pub mean: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
    /// Lower, higher, or tied.
    pub call: Call,
}

impl Verdict {
    /// How far apart the two may be as far as the interval knows: its end farthest from 0.
    /// For a tie, "tied within" this.
    pub fn within(&self) -> f64 {
        self.low.abs().max(self.high.abs())
    }
}

/// The verdict on `estimate` at two-sided `confidence`: the interval is
/// `mean ± √((t·se)² + (z·drift)²)`, t Student's quantile at the estimate's degrees of freedom,
/// z the normal one, and `drift` the standard deviation, between runs, of the difference that no
/// sampling inside one run can see (calibrated by runs of one build; it is also the floor under
/// every margin). Lower or higher when the interval excludes 0, else tied.
pub fn judge(estimate: Estimate, drift: f64, confidence: f64) -> Verdict {
    let tail = 0.5 + confidence / 2.0;
    let z = Normal::new(0.0, 1.0).map_or(f64::INFINITY, |normal| normal.inverse_cdf(tail));
    // Past a million degrees of freedom (or infinitely many: no spread at all) t is the normal.
    let t = if estimate.degrees < 1e6 {
        StudentsT::new(0.0, 1.0, estimate.degrees.max(1.0)).map_or(f64::INFINITY, |t| t.inverse_cdf(tail))
    } else {
        z
    };
    let half = ((t * estimate.se).powi(2) + (z * drift).powi(2)).sqrt();
    let (low, high) = (estimate.mean - half, estimate.mean + half);
    let call = match (low > 0.0, high < 0.0) {
        (true, _) => Call::Higher,
        (_, true) => Call::Lower,
        _ => Call::Tied,
    };
    Verdict { mean: estimate.mean, low, high, call }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_differences_give_their_trimmed_mean_and_yuens_standard_error() {
        let four = Estimate::paired(&[0.10, 0.12, 0.08, 0.11], None).unwrap();
        assert!((four.mean - 0.1025).abs() < 1e-12, "below five, the plain mean");
        assert_eq!(four.degrees, 3.0);
        // Five: one trimmed off each end, the mean of 0.09, 0.10, 0.11; winsorized to 0.09,
        // 0.09, 0.10, 0.11, 0.11 (sd 0.01), se = sd / √5 / (3/5).
        let estimate = Estimate::paired(&[0.10, 0.12, 0.08, 0.11, 0.09], None).unwrap();
        assert!((estimate.mean - 0.10).abs() < 1e-12);
        assert!((estimate.se - 0.01 / 5f64.sqrt() / 0.6).abs() < 1e-9, "{}", estimate.se);
        assert_eq!(estimate.degrees, 2.0);
        // One round far off (a stretch disturbed for one of the two) barely moves it.
        let outlier = Estimate::paired(&[0.10, 0.12, 0.08, 0.11, 0.09, 0.10, 0.11, 0.09, 0.10, 1.5], None).unwrap();
        assert!((outlier.mean - 0.10).abs() < 0.01 && outlier.se < 0.01, "{outlier:?}");
        assert_eq!(Estimate::paired(&[0.1], None), None, "one difference has no spread of its own");
        assert_eq!(Estimate::paired(&[], Some(Prior { sd: 0.05, degrees: 4.0 })), None);
        let with_prior = Estimate::paired(&[0.1], Some(Prior { sd: 0.05, degrees: 4.0 })).unwrap();
        assert_eq!((with_prior.se, with_prior.degrees), (0.05, 4.0));
    }

    #[test]
    fn a_prior_keeps_a_lucky_pair_from_a_spread_of_zero_and_is_outweighed_by_data() {
        let measured = Prior::measured(0.05, 1000.0, Prior::WEIGHT);
        assert_eq!(measured.degrees, Prior::WEIGHT);
        let prior = Some(measured);
        let lucky = Estimate::paired(&[0.1, 0.1], prior).unwrap();
        assert!(lucky.se > 0.02, "{}", lucky.se);
        let noisy: Vec<f64> = (0..40).map(|i| if i % 2 == 0 { 0.3 } else { -0.3 }).collect();
        let estimate = Estimate::paired(&noisy, prior).unwrap();
        assert!(estimate.se > 0.04, "forty noisy pairs keep their own spread: {}", estimate.se);
    }

    #[test]
    fn unpaired_sets_add_their_variances() {
        let estimate = Estimate::unpaired(&[1.0, 1.2, 0.8], &[2.0, 2.2, 1.8], None).unwrap();
        assert!((estimate.mean - 1.0).abs() < 1e-12);
        assert!((estimate.se - (2.0 * 0.04 / 3.0f64).sqrt()).abs() < 1e-12);
        assert!((estimate.degrees - 4.0).abs() < 1e-9, "equal sides: 2(n − 1)");
        assert_eq!(Estimate::unpaired(&[], &[1.0, 2.0], None), None);
    }

    #[test]
    fn a_band_averages_its_task_counts() {
        let part = Estimate { mean: 0.2, se: 0.1, degrees: 10.0 };
        let band = Estimate::mean_of(&[part, Estimate { mean: 0.0, ..part }]).unwrap();
        assert!((band.mean - 0.1).abs() < 1e-12);
        assert!((band.se - 0.1 / 2f64.sqrt()).abs() < 1e-12);
        assert!((band.degrees - 20.0).abs() < 1e-9);
        assert_eq!(Estimate::mean_of(&[]), None);
    }

    #[test]
    fn judge_calls_a_side_only_when_the_interval_excludes_zero_and_never_below_the_drift() {
        let clear = judge(Estimate { mean: 0.2, se: 0.01, degrees: 30.0 }, 0.01, 0.95);
        assert_eq!(clear.call, Call::Higher);
        assert!(clear.low > 0.15 && clear.high < 0.25, "{clear:?}");
        assert_eq!(judge(Estimate { mean: -0.2, se: 0.01, degrees: 30.0 }, 0.01, 0.95).call, Call::Lower);
        let close = judge(Estimate { mean: 0.01, se: 0.01, degrees: 30.0 }, 0.0, 0.95);
        assert_eq!(close.call, Call::Tied);
        assert!((close.within() - (0.01 + 2.042 * 0.01)).abs() < 1e-3, "{}", close.within());
        // No sampling error at all: the drift alone sets the margin.
        let floor = judge(Estimate { mean: 0.03, se: 0.0, degrees: 30.0 }, 0.02, 0.95);
        assert_eq!(floor.call, Call::Tied, "3% is inside a 1.96 × 2% floor");
        assert!((floor.high - floor.mean - 1.96 * 0.02).abs() < 1e-3);
        let exact = judge(Estimate { mean: 0.1, se: 0.0, degrees: f64::INFINITY }, 0.01, 0.95);
        assert_eq!(exact.call, Call::Higher, "no spread at all: the drift alone, and it ends");
        let stricter = judge(Estimate { mean: 0.15, se: 0.05, degrees: 30.0 }, 0.01, 0.999);
        assert_eq!(stricter.call, Call::Tied, "a stricter confidence needs more evidence: {stricter:?}");
    }
}

//! Statistics over samples: pure functions, no I/O.
//!
//! The headline figure of a cell is the **trimmed mean** cost per message ([`trimmed_mean`]:
//! the mean of the samples without the lowest and highest [`TRIM`] of them), with a seeded
//! bootstrap interval ([`trimmed_mean_interval`]). Many multi-thread cells are mixtures of two
//! behaviours, one chosen when a fresh runtime starts (see [`clusters`]); the median of a handful
//! of samples is whichever cluster won the draw, and flips between runs by up to the ratio of the
//! clusters. A mean moves smoothly with the clusters' shares, and it is what an SFU pays in the long
//! run; but one sample slowed by something outside the channel moves a plain mean of five by a
//! fifth of its excess. The trimmed mean keeps the first property and sheds most of the second
//! (docs/methodology.md has the runs that chose it). The median stays visible beside it.

pub mod calibration;
pub mod disturbed;
pub mod machine;
pub mod pool;
pub mod repeat;
pub mod verdict;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, Normal, StudentsT};

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
    /// The mean without the lowest and highest [`TRIM`] of the values ([`trimmed_mean`]): the
    /// headline figure (see the module's documentation).
    pub trimmed_mean: f64,
    /// The [`CONFIDENCE`] interval of the trimmed mean ([`trimmed_mean_interval`]); `None`
    /// below [`MIN_BOOTSTRAP_VALUES`] values.
    pub trimmed_mean_interval: Option<(f64, f64)>,
}

/// Half the width of the interval `(low, high)` around `mean`, relative to it, the wider side
/// (0.05 = ±5%).
pub fn precision(mean: f64, (low, high): (f64, f64)) -> f64 {
    (mean - low).max(high - mean) / mean
}

impl Summary {
    /// Half the width of the confidence interval of the trimmed mean, relative to it, the
    /// wider side; `None` without an interval.
    pub fn trimmed_mean_precision(&self) -> Option<f64> {
        Some(precision(self.trimmed_mean, self.trimmed_mean_interval?))
    }

    /// The interval the trimmed mean is believed to lie in: its confidence interval, or the
    /// min–max of the values when there are too few for one. What rankings compare.
    pub fn trimmed_mean_band(&self) -> (f64, f64) {
        self.trimmed_mean_interval.unwrap_or((self.min, self.max))
    }
}

/// Summarizes `values`; `None` when there are none. NaN values are ignored.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let sorted = sorted(values)?;
    Some(Summary {
        count: sorted.len(),
        median: median_of_sorted(&sorted),
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        median_interval: median_interval_ranks(sorted.len(), CONFIDENCE).map(|(low, high)| (sorted[low], sorted[high])),
        trimmed_mean: trimmed_mean(&sorted),
        trimmed_mean_interval: trimmed_mean_interval(&sorted, CONFIDENCE),
    })
}

/// `values` without NaN, ascending; `None` when none is left.
pub(crate) fn sorted(values: &[f64]) -> Option<Vec<f64>> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    sorted.sort_by(f64::total_cmp);
    (!sorted.is_empty()).then_some(sorted)
}

/// [`Summary::median`] of `values` alone, without the summary's intervals; `None` when there
/// are none. NaN values are ignored.
pub fn median(values: &[f64]) -> Option<f64> {
    sorted(values).map(|sorted| median_of_sorted(&sorted))
}

/// [`Summary::trimmed_mean`] of `values` (in any order) alone, without the summary's bootstrap
/// interval; `None` when there are none. NaN values are ignored.
pub fn trimmed_mean_of(values: &[f64]) -> Option<f64> {
    sorted(values).map(|sorted| trimmed_mean(&sorted))
}

/// The share of the values [`trimmed_mean`] leaves out at each end: one of five to nine
/// samples, two of ten to fourteen.
pub const TRIM: f64 = 0.2;

/// The mean of `sorted` (ascending, at least one value) without its lowest and highest
/// [`TRIM`] of the values, rounded down: below five values, the plain mean.
pub fn trimmed_mean(sorted: &[f64]) -> f64 {
    let cut = trimmed(sorted.len());
    let kept = &sorted[cut..sorted.len() - cut];
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// How many of `n` values [`trimmed_mean`] leaves out at each end: [`TRIM`] of them, rounded
/// down (none below five).
pub fn trimmed(n: usize) -> usize {
    (n as f64 * TRIM) as usize
}

/// Resamples drawn by [`trimmed_mean_interval`].
pub const BOOTSTRAP_RESAMPLES: usize = 2000;
/// The seed of [`trimmed_mean_interval`]'s resampling: the same values give the same interval.
pub const BOOTSTRAP_SEED: u64 = 0x5EED_0B00_7575_0001;
/// The fewest values [`trimmed_mean_interval`] makes an interval of: two values resample to only
/// three distinct means.
pub const MIN_BOOTSTRAP_VALUES: usize = 3;

/// The bootstrap interval of the trimmed mean of `values` at `confidence`: [`BOOTSTRAP_RESAMPLES`]
/// resamples with replacement, drawn from a generator seeded with [`BOOTSTRAP_SEED`]
/// (deterministic), their trimmed means sorted, and the quantiles taken of Hesterberg's *expanded*
/// percentile interval: the plain percentile interval is too narrow for few samples (it
/// covers the mean of normal samples about 77% of the time for a nominal 90% at five
/// samples), so its tails are moved out to where a normal interval would be as wide as
/// Student's t with n − 1 degrees of freedom, times √(n / (n − 1)) ([`expanded_tail`]):
/// about 87% at five samples, 90% from eight on. Each sample is one independent draw of a
/// fresh runtime (the sweep spreads them over the whole run), so resampling samples is
/// resampling what varies between runs, clusters included. `None` below
/// [`MIN_BOOTSTRAP_VALUES`] values; NaN values are ignored.
pub fn trimmed_mean_interval(values: &[f64], confidence: f64) -> Option<(f64, f64)> {
    let values: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let n = values.len();
    (n >= MIN_BOOTSTRAP_VALUES).then(|| percentile_interval(&values, expanded_tail(n, confidence)))
}

/// The `tail` and `1 - tail` quantiles of the bootstrap trimmed means of `values` (at least
/// one value).
fn percentile_interval(values: &[f64], tail: f64) -> (f64, f64) {
    let n = values.len();
    let mut generator = Pcg64Mcg::seed_from_u64(BOOTSTRAP_SEED);
    let mut resample = vec![0.0; n];
    let mut means: Vec<f64> = (0..BOOTSTRAP_RESAMPLES)
        .map(|_| {
            resample.iter_mut().for_each(|value| *value = values[generator.random_range(0..n)]);
            resample.sort_by(f64::total_cmp);
            trimmed_mean(&resample)
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let last = BOOTSTRAP_RESAMPLES - 1;
    let at = |quantile: f64| means[((quantile * last as f64).round() as usize).min(last)];
    (at(tail), at(1.0 - tail))
}

/// The tail probability of the expanded percentile interval of `n` values at `confidence`:
/// 1 − Φ(√(n / (n − 1)) · t), t the `(1 + confidence) / 2` quantile of Student's t with n − 1
/// degrees of freedom (statrs' `StudentsT` and `Normal`). Tends to `(1 - confidence) / 2` as n
/// grows; 0 (the whole range of the resampled means) below 2 values, where t has no degrees of
/// freedom.
pub fn expanded_tail(n: usize, confidence: f64) -> f64 {
    let degrees = n.saturating_sub(1) as f64;
    let Ok(student) = StudentsT::new(0.0, 1.0, degrees) else { return 0.0 };
    let t = student.inverse_cdf((1.0 + confidence) / 2.0);
    Normal::standard().sf((n as f64 / degrees).sqrt() * t)
}

/// One cluster of a cell's samples ([`clusters`]); the cells JSON writes it as it stands.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cluster {
    /// The median of the cluster's values.
    pub centre: f64,
    /// The cluster's share of the values, 0 to 1.
    pub share: f64,
    /// How many values the cluster has.
    pub count: usize,
}

/// The smallest gap between two clusters, as a ratio of their neighbouring values: 1.5 (50%).
/// Run-to-run noise of one behaviour spreads samples by tens of percent at most; the mixed
/// cells seen so far have clusters 2.7× to 4× apart.
pub const CLUSTER_GAP_RATIO: f64 = 1.5;
/// How much wider (on the log scale) the gap between two clusters must be than the widest gap
/// inside either of them.
pub const CLUSTER_GAP_OVER_INNER: f64 = 2.0;
/// The fewest values a cluster has: a single far value is an outlier, not a behaviour.
pub const MIN_CLUSTER_COUNT: usize = 2;

/// The clusters of `values` on a log scale, lowest first; one cluster when there is no
/// clear gap. The values are sorted by logarithm and cut at every gap between neighbours of
/// a ratio of at least [`CLUSTER_GAP_RATIO`]; then a cluster of fewer than [`MIN_CLUSTER_COUNT`]
/// values joins its nearer neighbour, and a cut less than [`CLUSTER_GAP_OVER_INNER`] times as
/// wide as the widest gap inside the clusters on either side of it is undone, the weakest
/// first, until every cut stands. A value between two clusters goes with the one it is nearer
/// to on the log scale. Non-positive and NaN values are ignored; empty when none is left.
pub fn clusters(values: &[f64]) -> Vec<Cluster> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| *v > 0.0 && v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let total = sorted.len() as f64;
    cluster_ranges(&sorted)
        .into_iter()
        .map(|range| {
            let cluster = &sorted[range];
            Cluster { centre: median_of_sorted(cluster), share: cluster.len() as f64 / total, count: cluster.len() }
        })
        .collect()
}

/// The index ranges of [`clusters`]' clusters in `sorted`, each of [`MIN_CLUSTER_COUNT`] or more.
fn cluster_ranges(sorted: &[f64]) -> Vec<std::ops::Range<usize>> {
    let n = sorted.len();
    if n == 0 {
        return Vec::new();
    }
    // gap(i): between sorted[i] and sorted[i + 1]; a cut after i is `i` in `cuts`.
    let gap = |i: usize| (sorted[i + 1] / sorted[i]).ln();
    let mut cuts: Vec<usize> = (0..n - 1).filter(|&i| gap(i) >= CLUSTER_GAP_RATIO.ln()).collect();
    loop {
        let bounds: Vec<usize> = std::iter::once(0).chain(cuts.iter().map(|&cut| cut + 1)).chain([n]).collect();
        let ranges: Vec<std::ops::Range<usize>> = bounds.windows(2).map(|pair| pair[0]..pair[1]).collect();
        if let Some(small) = ranges.iter().position(|range| range.len() < MIN_CLUSTER_COUNT) {
            // The narrower of the cuts on either side of it, the left one of two alike.
            let sides = small.checked_sub(1).into_iter().chain((small < cuts.len()).then_some(small));
            let Some(undo) = sides.min_by(|&a, &b| gap(cuts[a]).total_cmp(&gap(cuts[b]))) else { return ranges };
            cuts.remove(undo);
            continue;
        }
        let inner = |range: &std::ops::Range<usize>| (range.start..range.end - 1).map(gap).fold(0.0, f64::max);
        let strength = |at: usize| gap(cuts[at]) / inner(&ranges[at]).max(inner(&ranges[at + 1]));
        let weakest = (0..cuts.len())
            .filter(|&at| strength(at) < CLUSTER_GAP_OVER_INNER)
            .min_by(|&a, &b| strength(a).total_cmp(&strength(b)));
        let Some(at) = weakest else { return ranges };
        cuts.remove(at);
    }
}

/// The median of `values`, which it sorts; NaN when there are none. Unlike [`median`], it keeps
/// NaN values.
pub(crate) fn median_of(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    if values.is_empty() { f64::NAN } else { median_of_sorted(values) }
}

fn median_of_sorted(sorted: &[f64]) -> f64 {
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 { sorted[middle] } else { (sorted[middle - 1] + sorted[middle]) / 2.0 }
}

/// Zero-based ranks `(k, n - 1 - k)` of the narrowest pair of order statistics that covers
/// the median of the population with probability at least `confidence`:
/// P(k < B ≤ n - 1 - k) for B ~ Binomial(n, 1/2), the count of values below the median
/// (statrs' `Binomial`).
pub fn median_interval_ranks(n: usize, confidence: f64) -> Option<(usize, usize)> {
    let below = Binomial::new(0.5, n as u64).ok()?;
    (0..n / 2).take_while(|&k| 2.0 * below.cdf(k as u64) <= 1.0 - confidence).last().map(|k| (k, n - 1 - k))
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
    fn the_median_interval_of_five_values_is_their_range() {
        let summary = summarize(&[98.0, 99.0, 100.0, 101.0, 110.0]).unwrap();
        assert_eq!(summary.median_interval, Some((98.0, 110.0)));
    }

    fn centres(values: &[f64]) -> Vec<(f64, usize)> {
        clusters(values).iter().map(|cluster| (cluster.centre, cluster.count)).collect()
    }

    #[test]
    fn two_behaviours_come_out_as_two_clusters() {
        // 87 is nearer 111 than 46 on the log scale: it joins the upper cluster.
        assert_eq!(centres(&[46.0, 126.0, 115.0, 43.0, 43.0, 87.0, 38.0, 111.0, 123.0]), [(43.0, 4), (115.0, 5)]);
        assert_eq!(centres(&[140.0, 133.0, 33.0, 132.0, 41.0]), [(37.0, 2), (133.0, 3)]);
        assert_eq!(centres(&[118.0, 302.0, 115.0, 336.0, 113.0]), [(115.0, 3), (319.0, 2)]);
        assert_eq!(centres(&[353.0, 316.0, 338.0, 316.0, 112.0]).len(), 1, "one value alone is no cluster");
        assert_eq!(centres(&[631.0, 410.0, 114.0, 148.0, 443.0]), [(131.0, 2), (443.0, 3)]);
        assert_eq!(centres(&[138.0, 628.0, 452.0, 130.0, 132.0]), [(132.0, 3), (540.0, 2)]);
        let shares: Vec<f64> = clusters(&[118.0, 302.0, 115.0, 336.0, 113.0]).iter().map(|m| m.share).collect();
        assert_eq!(shares, [0.6, 0.4]);
    }

    #[test]
    fn noise_and_outliers_stay_one_cluster() {
        assert_eq!(centres(&[100.0, 130.0, 90.0, 120.0, 105.0]), [(105.0, 5)]);
        assert_eq!(centres(&[100.0, 101.0, 99.0, 100.0, 5000.0]), [(100.0, 5)]);
        assert_eq!(centres(&[100.0]), [(100.0, 1)]);
        assert!(clusters(&[]).is_empty() && clusters(&[0.0, f64::NAN]).is_empty());
        // A steady spread in steps of 30%: no gap stands out from the others.
        let steps: Vec<f64> = (0..8).map(|k| 100.0 * 1.3f64.powi(k)).collect();
        assert_eq!(clusters(&steps).len(), 1);
    }

    #[test]
    fn three_behaviours_come_out_as_three_clusters() {
        assert_eq!(centres(&[10.0, 11.0, 50.0, 52.0, 300.0, 310.0]), [(10.5, 2), (51.0, 2), (305.0, 2)]);
    }

    #[test]
    fn the_trimmed_mean_leaves_out_a_fifth_at_each_end() {
        assert_eq!(trimmed_mean(&[1.0, 2.0, 3.0, 4.0]), 2.5, "below five values, the plain mean");
        assert_eq!(trimmed_mean(&[1.0, 2.0, 3.0, 4.0, 100.0]), 3.0, "one of five left out at each end");
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(trimmed_mean(&ten), 5.5);
        let mut disturbed = ten.clone();
        disturbed[9] = 1000.0;
        disturbed[8] = 900.0;
        assert_eq!(trimmed_mean(&disturbed), 5.5, "two of ten left out: two disturbed samples change nothing");
        assert_eq!(summarize(&[7.0]).unwrap().trimmed_mean, 7.0);
    }

    #[test]
    fn a_figure_alone_is_the_summary_s_figure() {
        let values = [9.0, f64::NAN, 1.0, 1000.0, 3.0, 2.0, 4.0];
        assert_eq!(median(&values), Some(3.5));
        assert_eq!(trimmed_mean_of(&values), Some(4.5), "1 and 1000 left out of six values");
        let summary = summarize(&values).unwrap();
        assert_eq!((median(&values), trimmed_mean_of(&values)), (Some(summary.median), Some(summary.trimmed_mean)));
        assert_eq!((median(&[]), trimmed_mean_of(&[f64::NAN])), (None, None));
    }

    #[test]
    fn the_bootstrap_interval_is_deterministic_and_covers_the_centre() {
        let values = [100.0, 130.0, 90.0, 120.0, 105.0];
        let (low, high) = trimmed_mean_interval(&values, 0.9).unwrap();
        assert_eq!(trimmed_mean_interval(&values, 0.9), Some((low, high)));
        assert!(low < 109.0 && 109.0 < high && low >= 90.0 && high <= 130.0, "{low} {high}");
        // Wider at a higher confidence, none below three values.
        let (low99, high99) = trimmed_mean_interval(&values, 0.99).unwrap();
        assert!(low99 <= low && high99 >= high);
        assert_eq!(trimmed_mean_interval(&[1.0, 2.0], 0.9), None);
        assert_eq!(trimmed_mean_interval(&[5.0; 4], 0.9), Some((5.0, 5.0)));
    }

    #[test]
    fn the_expanded_tail_matches_its_closed_forms() {
        // 2 values: t with 1 degree is Cauchy, whose quantile is tan(π(p − ½)); √2·t then goes
        // through Φ, itself ½·erfc(−x/√2), here checked against its tabled values.
        let normal = Normal::standard();
        assert!((normal.inverse_cdf(0.95) - 1.6448536).abs() < 1e-6);
        assert!((normal.cdf(-1.959964) - 0.025).abs() < 1e-7);
        let cauchy = (std::f64::consts::PI * 0.45).tan();
        let two = expanded_tail(2, 0.9);
        assert!((two - normal.sf(2f64.sqrt() * cauchy)).abs() < 1e-9, "{two}");
        // 3 values: t with 2 degrees has the quantile (2p − 1)·√(2 / (1 − (2p − 1)²)).
        let (centre, scaled): (f64, f64) = (0.9, (3.0f64 / 2.0).sqrt());
        let t2 = centre * (2.0 / (1.0 - centre * centre)).sqrt();
        assert!((expanded_tail(3, 0.9) - normal.sf(scaled * t2)).abs() < 1e-9);
        // Far out for few values, towards 5% for many; 0 where t has no degrees of freedom.
        assert!(expanded_tail(5, 0.9) < 0.01 && expanded_tail(5, 0.9) > 0.005);
        assert!((expanded_tail(1000, 0.9) - 0.05).abs() < 0.002);
        assert!(expanded_tail(10, 0.9) < expanded_tail(20, 0.9));
        assert_eq!((expanded_tail(1, 0.9), expanded_tail(0, 0.9)), (0.0, 0.0));
    }

    /// Normal samples drawn by Box–Muller from a seeded generator.
    pub(super) fn normal_samples(generator: &mut Pcg64Mcg, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let (u, v): (f64, f64) = (generator.random_range(f64::EPSILON..1.0), generator.random_range(0.0..1.0));
                (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
            })
            .collect()
    }

    #[test]
    fn the_expanded_interval_covers_the_centre_of_five_samples_as_promised() {
        let mut generator = Pcg64Mcg::seed_from_u64(7);
        let trials = 400;
        let (mut expanded, mut plain) = (0, 0);
        for _ in 0..trials {
            let values = normal_samples(&mut generator, 5);
            let covers = |(low, high): (f64, f64)| usize::from(low <= 0.0 && 0.0 <= high);
            expanded += covers(trimmed_mean_interval(&values, 0.9).unwrap());
            plain += covers(percentile_interval(&values, 0.05));
        }
        let (expanded, plain) = (expanded as f64 / trials as f64, plain as f64 / trials as f64);
        assert!(expanded >= 0.84 && plain < expanded, "expanded {expanded}, plain percentile {plain}");
    }

    #[test]
    fn the_mean_interval_narrows_with_more_samples() {
        // The same two-cluster mixture, 5 and 40 samples: the interval shrinks roughly as 1/√n.
        let few = [40.0, 120.0, 40.0, 120.0, 40.0];
        let many: Vec<f64> = few.iter().cycle().take(40).copied().collect();
        let width = |values: &[f64]| {
            let (low, high) = trimmed_mean_interval(values, 0.9).unwrap();
            high - low
        };
        assert!(width(&many) < width(&few) / 2.0, "{} {}", width(&many), width(&few));
    }

    #[test]
    fn the_trimmed_mean_follows_the_shares_where_the_median_flips() {
        // 60% and 40% of the fast cluster: the median jumps from one cluster to the other, the
        // trimmed mean (the middle three of five) moves by a third of the gap.
        let (a, b) = ([40.0, 40.0, 40.0, 120.0, 120.0], [40.0, 40.0, 120.0, 120.0, 120.0]);
        let (a, b) = (summarize(&a).unwrap(), summarize(&b).unwrap());
        assert_eq!((a.median, b.median), (40.0, 120.0));
        assert_eq!((a.trimmed_mean, b.trimmed_mean), (200.0 / 3.0, 280.0 / 3.0));
        assert!(a.trimmed_mean_precision().is_some() && a.trimmed_mean_band() == a.trimmed_mean_interval.unwrap());
        assert_eq!(summarize(&[3.0, 5.0]).unwrap().trimmed_mean_band(), (3.0, 5.0));
    }
}

//! The one owner of the thresholds below which `compare` calls no change and `summary` ties
//! two channels, and of the significance level of `compare`'s test.

use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::run::measure::RuntimeKind;

/// The p-value (of Welch's t-test on the logarithms of one cell's samples in two runs,
/// `stats::welch`) below which `compare` may call the cell faster or slower: calibrated by A/A
/// runs (twelve pairs of default sweeps of one build on a 2-core VM, docs/methodology.md),
/// where looser levels called more than 1% of the cells changed in the noisier pairs.
pub const SIGNIFICANCE: f64 = 0.001;

/// The `ok` samples per cell of the sweeps that calibrated [`Thresholds::DEFAULT`] (the default
/// `--samples`): a run with fewer has its margins widened by √(this / its fewest), and says so.
pub const CALIBRATED_SAMPLES: usize = 5;

/// The machine [`Thresholds::DEFAULT`] was calibrated on, as outputs name it.
pub const CALIBRATED_ON: &str = "a 2-core VM";

/// The smallest relative difference that `compare` calls a change and `summary` lets separate
/// two channels, per runtime: a claim must survive a re-run. `--threshold PCT` sets both.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// On the current-thread runtime (0.10 = 10%).
    pub current_thread: f64,
    /// On the multi-thread runtime.
    pub multi_thread: f64,
}

impl Thresholds {
    /// The default, calibrated by A/A runs (three default sweeps of one build, back to back, on
    /// the reference machine; docs/methodology.md): about the 99th percentile of the ratio of one
    /// cell's trimmed means in two such runs, which on two cores is far wider on the
    /// multi-thread runtime than on the current-thread one.
    pub const DEFAULT: Thresholds = Thresholds { current_thread: 0.20, multi_thread: 0.25 };

    /// The same threshold on both runtimes.
    pub fn uniform(threshold: f64) -> Self {
        Thresholds { current_thread: threshold, multi_thread: threshold }
    }

    /// `--threshold PCT` when given, else [`Thresholds::DEFAULT`].
    pub fn from_percent(percent: Option<f64>) -> Self {
        percent.map_or(Self::DEFAULT, |percent| Self::uniform(percent / 100.0))
    }

    /// These margins for cells of only `samples` `ok` samples: below [`CALIBRATED_SAMPLES`], each
    /// widened on the log scale by the factor that keeps a t interval on a mean at [`SIGNIFICANCE`]
    /// as sure with `samples` as with [`CALIBRATED_SAMPLES`]:
    /// `t(samples − 1) · √(1/samples) / (t(CALIBRATED_SAMPLES − 1) · √(1/CALIBRATED_SAMPLES))`,
    /// t the two-sided quantile of Student's t. Fewer samples know their level far less: 20% at 5
    /// samples is about 137% at 3, and beyond any ratio at 2 or 1. Unchanged at or above it.
    pub fn for_samples(&self, samples: usize) -> Self {
        if samples >= CALIBRATED_SAMPLES {
            return *self;
        }
        let factor = thin_factor(samples) / thin_factor(CALIBRATED_SAMPLES);
        let widen = |threshold: f64| ((1.0 + threshold).ln() * factor).exp() - 1.0;
        Thresholds { current_thread: widen(self.current_thread), multi_thread: widen(self.multi_thread) }
    }

    /// The threshold on `runtime`.
    pub fn of(&self, runtime: RuntimeKind) -> f64 {
        match runtime {
            RuntimeKind::CurrentThread => self.current_thread,
            RuntimeKind::MultiThread => self.multi_thread,
        }
    }
}

/// The half-width, in standard deviations of one sample, of the t interval on the mean of
/// `samples` at [`SIGNIFICANCE`]: infinite below two samples, where there is no spread to go on.
fn thin_factor(samples: usize) -> f64 {
    if samples < 2 {
        return f64::INFINITY;
    }
    let quantile = StudentsT::new(0.0, 1.0, samples as f64 - 1.0)
        .map_or(f64::INFINITY, |t| t.inverse_cdf(1.0 - SIGNIFICANCE / 2.0));
    quantile / (samples as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_runtime_has_its_threshold_and_a_percent_sets_both() {
        let default = Thresholds::from_percent(None);
        assert_eq!(default, Thresholds::DEFAULT);
        assert!(default.of(RuntimeKind::CurrentThread) < default.of(RuntimeKind::MultiThread));
        assert_eq!(default.of(RuntimeKind::MultiThread), default.multi_thread);
        let given = Thresholds::from_percent(Some(5.0));
        assert_eq!((given.of(RuntimeKind::CurrentThread), given.of(RuntimeKind::MultiThread)), (0.05, 0.05));
    }

    #[test]
    fn fewer_samples_than_calibrated_widen_the_margins_as_the_t_interval() {
        let calibrated = Thresholds::DEFAULT;
        assert_eq!(calibrated.for_samples(CALIBRATED_SAMPLES), calibrated);
        assert_eq!(calibrated.for_samples(CALIBRATED_SAMPLES * 4), calibrated);
        let (four, three) = (calibrated.for_samples(4), calibrated.for_samples(3));
        for runtime in RuntimeKind::ALL {
            let log = |thresholds: Thresholds| (1.0 + thresholds.of(runtime)).ln();
            // Student's t at p = 0.001 two-sided: 31.60 with 2 degrees, 8.610 with 4.
            let expected = (31.5991 / 3f64.sqrt()) / (8.6103 / 5f64.sqrt());
            assert!((log(three) / log(calibrated) - expected).abs() < 1e-3, "{}", log(three) / log(calibrated));
            assert!(three.of(runtime) > four.of(runtime) && four.of(runtime) > calibrated.of(runtime));
            assert!(calibrated.for_samples(1).of(runtime).is_infinite());
        }
    }

    #[test]
    fn the_calibration_samples_are_the_default_samples() {
        assert_eq!(CALIBRATED_SAMPLES, crate::cli::DEFAULT_SAMPLES);
    }
}

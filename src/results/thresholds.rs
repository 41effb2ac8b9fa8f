//! The one owner of the thresholds below which `compare` calls no change and `summary` ties
//! two channels, and of the significance level of `compare`'s test.

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

    /// The threshold on `runtime`.
    pub fn of(&self, runtime: RuntimeKind) -> f64 {
        match runtime {
            RuntimeKind::CurrentThread => self.current_thread,
            RuntimeKind::MultiThread => self.multi_thread,
        }
    }
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
    fn the_calibration_samples_are_the_default_samples() {
        assert_eq!(CALIBRATED_SAMPLES, crate::cli::DEFAULT_SAMPLES);
    }
}

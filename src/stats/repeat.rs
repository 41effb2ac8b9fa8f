//! Where another run of the same command would put a cell's figure: its **repeat interval**.
//! A confidence interval says where a cell's mean lies given this run; a second run differs by
//! its own samples too, and by the machine's speed wandering over minutes (slow stretches of the
//! host that move every channel alike). The repeat interval counts the three:
//!
//! - the samples' spread on a log scale, pooled over the cells that share the channel and its
//!   band of task counts ([`LogSpread`]); below [`OWN_SPREAD_FROM`] degrees of freedom, never
//!   narrower than the spread of the group's cells of every channel alike: a channel sampled
//!   once or twice takes its spread from its neighbours;
//! - that this run's figure and the other's each average `n` samples (`2 / n`);
//! - the run's **wander** ([`wander`]): how far the mean of a stretch of rounds moves beyond what
//!   its samples' spread explains, counted once for each run.
//!
//! At [`REPEAT_CONFIDENCE`], with Student's t on the pooled degrees of freedom. Pure functions.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The share of repeat runs a repeat interval is meant to hold.
pub const REPEAT_CONFIDENCE: f64 = 0.95;

/// How many stretches of consecutive rounds [`wander`] compares.
pub const WANDER_STRETCHES: usize = 8;

/// The degrees of freedom from which a channel's own spread stands alone
/// ([`LogSpread::with_floor`]).
pub const OWN_SPREAD_FROM: usize = 4;

/// The spread of log sample values around their cells' means, pooled over cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogSpread {
    /// The pooled standard deviation of the logarithms.
    pub sd: f64,
    /// Its degrees of freedom: each cell's sample count less one, summed.
    pub degrees: usize,
}

impl LogSpread {
    /// The spread pooled over `cells` (each the positive values of one cell); cells of fewer
    /// than two values add nothing. `None` when no cell has two.
    pub fn pooled<'a>(cells: impl IntoIterator<Item = &'a [f64]>) -> Option<LogSpread> {
        let (mut squares, mut degrees) = (0.0, 0usize);
        for values in cells {
            let logs: Vec<f64> = values.iter().filter(|v| **v > 0.0 && v.is_finite()).map(|v| v.ln()).collect();
            if logs.len() < 2 {
                continue;
            }
            let mean = logs.iter().sum::<f64>() / logs.len() as f64;
            squares += logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>();
            degrees += logs.len() - 1;
        }
        (degrees > 0).then(|| LogSpread { sd: (squares / degrees as f64).sqrt(), degrees })
    }

    /// `self` from [`OWN_SPREAD_FROM`] degrees of freedom on; below, the wider spread of `self`
    /// and `floor`, at the degrees of freedom of the surer of the two: the group's cells tell
    /// how sure a spread of that size is where the channel's few samples cannot.
    pub fn with_floor(self, floor: Option<LogSpread>) -> LogSpread {
        match floor {
            Some(floor) if self.degrees < OWN_SPREAD_FROM => {
                LogSpread { sd: self.sd.max(floor.sd), degrees: self.degrees.max(floor.degrees) }
            }
            _ => self,
        }
    }
}

/// How far the machine's speed wanders over a run, on a log scale: `effects` are the rounds'
/// effects in the order they ran (each round's median of `ln(sample / its cell's median)`).
/// Cut into [`WANDER_STRETCHES`] stretches, the variance of the stretches' means less what the
/// rounds' own scatter gives a mean of that many; its square root, 0 when none is left or with
/// fewer than two rounds a stretch.
pub fn wander(effects: &[f64]) -> f64 {
    let size = effects.len() / WANDER_STRETCHES;
    if size < 2 {
        return 0.0;
    }
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let variance = |values: &[f64]| {
        let centre = mean(values);
        values.iter().map(|v| (v - centre).powi(2)).sum::<f64>() / (values.len() - 1) as f64
    };
    let used = &effects[..size * WANDER_STRETCHES];
    let means: Vec<f64> = used.chunks(size).map(mean).collect();
    (variance(&means) - variance(used) / size as f64).max(0.0).sqrt()
}

/// The [`REPEAT_CONFIDENCE`] repeat interval of `figure`, a cell's figure over `count` samples
/// whose spread is `spread`, on a run that wanders by `wander` (see the module).
pub fn interval(figure: f64, count: usize, spread: LogSpread, wander: f64) -> (f64, f64) {
    let tail = 0.5 + REPEAT_CONFIDENCE / 2.0;
    let t = StudentsT::new(0.0, 1.0, spread.degrees.max(1) as f64).map_or(f64::INFINITY, |t| t.inverse_cdf(tail));
    let half = t * (spread.sd.powi(2) * 2.0 / count.max(1) as f64 + 2.0 * wander.powi(2)).sqrt();
    (figure * (-half).exp(), figure * half.exp())
}

/// The repeat interval of a cell pooled over `runs` (one figure per run): Student's t on the
/// runs' logarithms for one more run, `sqrt(1 + 1/k)` wider than their mean's. `None` below two
/// positive runs.
pub fn of_runs(runs: &[f64]) -> Option<(f64, f64)> {
    let spread = LogSpread::pooled([runs])?;
    let figure = super::pool::geometric_mean(runs.iter().copied());
    let tail = 0.5 + REPEAT_CONFIDENCE / 2.0;
    let t = StudentsT::new(0.0, 1.0, spread.degrees as f64).map_or(f64::INFINITY, |t| t.inverse_cdf(tail));
    let half = t * spread.sd * (1.0 + 1.0 / runs.len() as f64).sqrt();
    Some((figure * (-half).exp(), figure * half.exp()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn the_spread_pools_each_cells_squares_about_its_own_mean() {
        let e = std::f64::consts::E;
        // ln: [0, 2] about 1 gives 2 squares of 1; [1, 1, 1] none; [5] adds nothing.
        let spread = LogSpread::pooled([&[1.0, e * e][..], &[e, e, e][..], &[7.0][..]]).unwrap();
        assert_eq!(spread.degrees, 3);
        assert!(close(spread.sd, (2.0f64 / 3.0).sqrt()));
        assert_eq!(LogSpread::pooled([&[3.0][..], &[][..]]), None);
        let (narrow, thin) = (LogSpread { sd: 0.1, degrees: 9 }, LogSpread { sd: 0.1, degrees: 3 });
        assert_eq!(narrow.with_floor(Some(spread)), narrow, "nine degrees of freedom stand alone");
        assert_eq!(thin.with_floor(Some(spread)), spread, "three do not");
        let wide = LogSpread { sd: 0.5, degrees: 1 };
        assert_eq!(wide.with_floor(Some(narrow)), LogSpread { sd: 0.5, degrees: 9 }, "its width, the group's surety");
        assert_eq!(thin.with_floor(None), thin);
    }

    #[test]
    fn a_steady_run_does_not_wander_a_run_with_a_slow_half_does() {
        // Alternating ±0.1: every stretch of two has mean 0, and the scatter explains it all.
        let steady: Vec<f64> = (0..16).map(|i| if i % 2 == 0 { 0.1 } else { -0.1 }).collect();
        assert_eq!(wander(&steady), 0.0);
        // The first half 0.5 slower in every round: stretch means 0.5 ×4 then 0 ×4.
        let halves: Vec<f64> = (0..16).map(|i| if i < 8 { 0.5 } else { 0.0 }).collect();
        let stretch_variance = 8.0 * 0.25f64.powi(2) / 7.0;
        let round_variance = 16.0 * 0.25f64.powi(2) / 15.0;
        assert!(close(wander(&halves), (stretch_variance - round_variance / 2.0).sqrt()));
        assert_eq!(wander(&halves[..15]), 0.0, "fewer than two rounds a stretch");
    }

    #[test]
    fn the_interval_widens_with_fewer_samples_and_with_wander() {
        let spread = LogSpread { sd: 0.1, degrees: 1_000_000 };
        let (low, high) = interval(100.0, 2, spread, 0.0);
        // Near the normal's 1.96 with a million degrees of freedom: half = 1.96 × 0.1 × sqrt(2/2).
        assert!((high / 100.0).ln() > 0.1959 && (high / 100.0).ln() < 0.1961);
        assert!(close(low * high, 100.0 * 100.0), "symmetric on a log scale");
        let (_, many) = interval(100.0, 8, spread, 0.0);
        let (_, wandering) = interval(100.0, 8, spread, 0.1);
        assert!(many < high && wandering > many);
        let few = LogSpread { sd: 0.1, degrees: 1 };
        assert!(interval(100.0, 2, few, 0.0).1 > high, "one degree of freedom: t of 12.7");
    }

    #[test]
    fn pooled_runs_predict_one_more_run() {
        let (low, high) = of_runs(&[100.0, 100.0, 100.0]).unwrap();
        assert!(close(low, 100.0) && close(high, 100.0));
        let (low, high) = of_runs(&[90.0, 110.0]).unwrap();
        assert!(low < 90.0 && high > 110.0 && close(low * high, 90.0 * 110.0));
        assert_eq!(of_runs(&[100.0]), None);
    }
}

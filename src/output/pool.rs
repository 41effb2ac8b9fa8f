//! The one line that says where the noise margins of a summary or a comparison came from
//! (`results::pool::noise`), and whether the runs were too thin for the calibrated ones.

use crate::results::pool::{Basis, Noise};
use crate::results::thresholds::{CALIBRATED_ON, CALIBRATED_SAMPLES};

/// `noise margins: …`, one line, without a trailing newline.
pub fn noise_line(noise: &Noise) -> String {
    // Two samples a side widen a margin past any real difference: said as such, not as a
    // number of eleven digits.
    let percent = |value: f64| {
        if value.is_finite() && value < 10.0 {
            format!("{:.1}%", value * 100.0)
        } else {
            "over 1000% (nothing is told apart)".to_owned()
        }
    };
    let margins = format!(
        "current-thread {}, multi-thread {}",
        percent(noise.thresholds.current_thread),
        percent(noise.thresholds.multi_thread)
    );
    match noise.basis {
        Basis::Given => format!("noise margins: {margins}, from --threshold"),
        Basis::Measured { runs: (one, other) } if one == other => {
            format!("noise margins: {margins}, measured from the spread between the {one} pooled runs")
        }
        Basis::Measured { runs: (one, other) } => {
            format!("noise margins: {margins}, measured from the spread between the pooled runs ({one} and {other})")
        }
        Basis::Calibrated { thin: None } => format!(
            "noise margins: {margins}, constants calibrated on default sweeps on {CALIBRATED_ON}; pool several runs \
             (A.csv,B.csv,C.csv) to measure them on this machine"
        ),
        Basis::Calibrated { thin: Some(fewest) } => format!(
            "thin run: its cells have a median of {fewest} samples where the constants were calibrated on {CALIBRATED_SAMPLES} on \
             {CALIBRATED_ON}, so the noise margins are widened to {margins}; verdicts and ties may still not survive \
             a re-run: measure the default --samples, or pool several runs"
        ),
    }
}

/// The [`noise_line`] of a thin run (`Basis::Calibrated` with too few samples), which every
/// output of one carries; `None` otherwise.
pub fn thin_line(noise: &Noise) -> Option<String> {
    matches!(noise.basis, Basis::Calibrated { thin: Some(_) }).then(|| noise_line(noise))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::thresholds::Thresholds;

    #[test]
    fn each_basis_names_where_the_margins_came_from() {
        let line = |basis| noise_line(&Noise { thresholds: Thresholds::DEFAULT, basis });
        assert!(line(Basis::Calibrated { thin: None }).contains(CALIBRATED_ON));
        assert!(
            line(Basis::Calibrated { thin: Some(3) }).starts_with("thin run: its cells have a median of 3 samples")
        );
        assert!(line(Basis::Measured { runs: (3, 3) }).contains("the 3 pooled runs"));
        assert!(line(Basis::Given).contains("--threshold") && line(Basis::Given).contains("20.0%"));
        let wide = Noise { thresholds: Thresholds::DEFAULT.for_samples(2), basis: Basis::Calibrated { thin: Some(2) } };
        assert!(
            noise_line(&wide).contains("current-thread over 1000% (nothing is told apart)"),
            "{}",
            noise_line(&wide)
        );
        let thin = |basis| thin_line(&Noise { thresholds: Thresholds::DEFAULT, basis });
        assert_eq!(thin(Basis::Calibrated { thin: Some(3) }), Some(line(Basis::Calibrated { thin: Some(3) })));
        assert_eq!(thin(Basis::Calibrated { thin: None }), None);
    }
}

//! The one line that says where the noise margins of a summary or a comparison came from
//! (`results::pool::noise`), and whether the runs were too thin for the calibrated ones.

use crate::results::pool::{Basis, Noise};
use crate::results::thresholds::{CALIBRATED_ON, CALIBRATED_SAMPLES};

/// `noise margins: …`, one line, without a trailing newline.
pub fn noise_line(noise: &Noise) -> String {
    let percent = |value: f64| format!("{:.1}%", value * 100.0);
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
            "thin run: a cell has only {fewest} samples where the margins ({margins}) were calibrated on \
             {CALIBRATED_SAMPLES} on {CALIBRATED_ON}: verdicts and ties may not survive a re-run; pool several runs"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::thresholds::Thresholds;

    #[test]
    fn each_basis_names_where_the_margins_came_from() {
        let line = |basis| noise_line(&Noise { thresholds: Thresholds::DEFAULT, basis });
        assert!(line(Basis::Calibrated { thin: None }).contains(CALIBRATED_ON));
        assert!(line(Basis::Calibrated { thin: Some(3) }).starts_with("thin run: a cell has only 3 samples"));
        assert!(line(Basis::Measured { runs: (3, 3) }).contains("the 3 pooled runs"));
        assert!(line(Basis::Given).contains("--threshold") && line(Basis::Given).contains("20.0%"));
    }
}

//! The one line that says how a summary's or a comparison's verdicts were made: the noise
//! model (`results::noise`), with the runs it read.

use crate::results::noise::{CHANGE_CONFIDENCE, Metric, VERDICT_CONFIDENCE};
use crate::run::measure::RuntimeKind;

/// `verdicts: …`, one line, without a trailing newline: what a verdict between two channels
/// (and, in a comparison, between two runs) rests on, for a file of `runs` pooled runs (1 for
/// one run).
pub fn noise_line(runs: usize) -> String {
    let percent = |runtime, paired| format!("{:.1}%", Metric::Speed.drift(runtime, paired) * 100.0);
    let (current, multi) = (RuntimeKind::CurrentThread, RuntimeKind::MultiThread);
    let pooled = if runs > 1 { format!(", over the {runs} pooled runs") } else { String::new() };
    format!(
        "verdicts: {:.0}% intervals of the ratio of two channels' samples paired round by round (this run's own \
         spread{pooled}), widened by the drift the run measured through its early, middle and late rounds, never \
         below the floor calibrated on a 2-core VM (sd {} current-thread, {} multi-thread; unpaired {} and {}); \
         compare judges cells at {:.1}%, widened by the drift measured between its two files",
        VERDICT_CONFIDENCE * 100.0,
        percent(current, true),
        percent(multi, true),
        percent(current, false),
        percent(multi, false),
        CHANGE_CONFIDENCE * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_model_and_the_pooled_runs_never_a_margin_past_100_percent() {
        let one = noise_line(1);
        assert!(one.starts_with("verdicts: 95% intervals") && !one.contains("pooled"), "{one}");
        assert!(noise_line(3).contains("over the 3 pooled runs"));
        assert!(!one.contains("1000%"));
    }
}

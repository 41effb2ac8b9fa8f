//! A paired A/B run's verdicts in words (`results::ab`): the console and the Markdown summary
//! share one text; `--json` writes the verdicts as they are.

use crate::results::ab::{Ab, Change};
use crate::stats::verdict::Call;

/// `kanal: 1.15× slower [1.11–1.19] in current-thread cloned-send large (tasks 128-512)`.
pub fn line(change: &Change) -> String {
    let (figure, low, high) = match change.call {
        Call::Lower => (1.0 / change.ratio, 1.0 / change.high, 1.0 / change.low),
        _ => (change.ratio, change.low, change.high),
    };
    let word = match change.call {
        Call::Higher => "slower",
        Call::Lower => "faster",
        Call::Tied => "unchanged",
    };
    let tasks = match change.tasks.as_slice() {
        [] | [_] => String::new(),
        [first, .., last] => format!(" (tasks {first}-{last})"),
    };
    format!("{}: {figure:.2}× {word} [{low:.2}–{high:.2}] in {}{tasks}", change.channel, change.place)
}

/// The whole answer as Markdown: what changed per band and per cell, the smallest change this
/// run could detect per runtime, every band's line, and the cells left out.
pub fn text(ab: &Ab) -> String {
    let mut out = String::from("# A/B: this build (candidate) against the baseline\n\n");
    out.push_str("Ratios are candidate / baseline of ns/message, from rounds both builds measured; ");
    out.push_str("a band's interval is at 95%, a cell's at 99.9% (many cells are judged at once).\n\n");
    if !ab.detectable.is_empty() {
        let each: Vec<String> =
            ab.detectable.iter().map(|(runtime, half)| format!("{:.0}% on {runtime}", half * 100.0)).collect();
        out.push_str(&format!("Can detect {} at this noise (a band's typical interval).\n\n", each.join(", ")));
    }
    let changed = |changes: &[Change]| -> Vec<String> {
        changes
            .iter()
            .filter(|change| change.call != Call::Tied)
            .map(|change| format!("- {}\n", line(change)))
            .collect()
    };
    for (what, changes) in [("bands", &ab.bands), ("cells", &ab.cells)] {
        let lines = changed(changes);
        out.push_str(&format!("## Changed {what}: {} of {}\n\n", lines.len(), changes.len()));
        out.push_str(&if lines.is_empty() { "none\n".to_owned() } else { lines.concat() });
        out.push('\n');
    }
    out.push_str("## Every band\n\n");
    for change in &ab.bands {
        out.push_str(&format!("- {}\n", line(change)));
    }
    if !ab.left_out.is_empty() {
        out.push_str(&format!(
            "\nNot judged (measured by one build only, or no ok sample): {}\n",
            ab.left_out.join("; ")
        ));
    }
    out
}

/// The verdicts as JSON.
pub fn json(ab: &Ab) -> String {
    serde_json::to_string_pretty(ab).expect("plain data serializes") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::measure::RuntimeKind;

    fn change(ratio: f64, low: f64, high: f64, call: Call) -> Change {
        Change {
            channel: "kanal".to_owned(),
            place: "current-thread cloned-send large".to_owned(),
            runtime: RuntimeKind::CurrentThread,
            tasks: vec![128, 512],
            ratio,
            low,
            high,
            call,
            open: false,
        }
    }

    #[test]
    fn a_change_reads_as_how_much_slower_or_faster_with_its_interval() {
        assert_eq!(
            line(&change(1.15, 1.11, 1.19, Call::Higher)),
            "kanal: 1.15× slower [1.11–1.19] in current-thread cloned-send large (tasks 128-512)"
        );
        assert_eq!(
            line(&change(0.8, 0.75, 0.85, Call::Lower)),
            "kanal: 1.25× faster [1.18–1.33] in current-thread cloned-send large (tasks 128-512)"
        );
    }
}

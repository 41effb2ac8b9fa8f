//! A paired A/B run's verdicts in words (`results::ab`): the console and the Markdown summary
//! share one text; `--json` writes the verdicts as they are.

use std::fmt::Write as _;

use super::doc::{Format, Span, Table, list};
use super::format;
use crate::results::ab::{Ab, Against, Change};
use crate::results::band::first_seen;
use crate::results::cells::FEWEST_SAMPLES;
use crate::results::channel::ChannelId;
use crate::results::noise::{CHANGE_CONFIDENCE, VERDICT_CONFIDENCE};
use crate::run::measure::RuntimeKind;
use crate::stats::verdict::Call;

/// `kanal: 1.15× slower [1.11–1.19] in current-thread cloned-send large (tasks 128-512)`.
pub fn line(change: &Change) -> String {
    let (figure, low, high) = match change.call {
        Call::Lower => (1.0 / change.ratio, 1.0 / change.high, 1.0 / change.low),
        _ => (change.ratio, change.low, change.high),
    };
    let word = word(change.call, ["faster", "slower", "unchanged"]);
    let tasks = match change.tasks.as_slice() {
        [] | [_] => String::new(),
        [first, .., last] => format!(" (tasks {first}-{last})"),
    };
    let pairs = change.pairs;
    let few = if pairs < FEWEST_SAMPLES { format!(" ({pairs} pairs: too few to call)") } else { String::new() };
    format!("{}: {figure:.2}× {word} [{low:.2}–{high:.2}] in {}{tasks}{few}", change.channel, change.place)
}

/// The word of `call`: `words` holds the words for lower, higher and tied.
pub fn word(call: Call, [lower, higher, tied]: [&'static str; 3]) -> &'static str {
    match call {
        Call::Lower => lower,
        Call::Higher => higher,
        Call::Tied => tied,
    }
}

/// `Can detect 8% on current-thread, 2.40× on multi-thread at this noise{when} ({basis})`, from
/// `results::ab::detectable`, a change of 100% or more as its ratio; `None` before anything was
/// judged.
pub fn detectable(detectable: &[(RuntimeKind, f64)], when: &str, basis: &str) -> Option<String> {
    let change = |half: f64| {
        if half < 1.0 { format!("{:.0}%", half * 100.0) } else { format!("{}×", super::format::number(1.0 + half)) }
    };
    let each: Vec<String> =
        detectable.iter().map(|(runtime, half)| format!("{} on {runtime}", change(*half))).collect();
    (!each.is_empty()).then(|| format!("Can detect {} at this noise{when} ({basis})", each.join(", ")))
}

/// What [`detectable`] rests on in `ab`.
pub const BAND_BASIS: &str = "a band's typical interval";

/// The whole answer as Markdown: what changed per band and per cell, the smallest change this
/// run could detect per runtime, every band's line, and the cells left out.
pub fn text(ab: &Ab) -> String {
    let mut out = format!(
        "# A/B: this build (candidate) against the baseline\n\nRatios are candidate / baseline of ns/message, from \
         rounds both builds measured; every interval is at {}% (many cells and bands are judged at once).\n\n",
        CHANGE_CONFIDENCE * 100.0
    );
    let [baseline, candidate] = ab.machine.each_ref().map(Option::as_ref);
    let machine = super::machine::speeds(["baseline", "candidate"], baseline, candidate);
    for line in detectable(&ab.detectable, "", BAND_BASIS).into_iter().chain(machine) {
        let _ = write!(out, "{line}.\n\n");
    }
    for (what, changes) in [("bands", &ab.bands), ("cells", &ab.cells)] {
        let changed: Vec<String> = changes.iter().filter(|change| change.call != Call::Tied).map(line).collect();
        let said = if changed.is_empty() { "none\n".to_owned() } else { list(changed.clone(), Format::Markdown) };
        let _ = write!(out, "## Changed {what}: {} of {}\n\n{said}\n", changed.len(), changes.len());
    }
    let _ =
        write!(out, "## Every band\n\n{}{}", list(ab.bands.iter().map(line), Format::Markdown), against(&ab.against));
    if !ab.left_out.is_empty() {
        let _ = writeln!(out, "\nNot judged (measured by one build only, or no ok sample): {}", ab.left_out.join("; "));
    }
    out
}

/// Per user channel, a table of its ratio to each other channel per cell, in this build's
/// rounds with its interval, and in the baseline's; empty without a channel of the user's.
fn against(table: &[Against]) -> String {
    let mut out = String::new();
    for id in first_seen(table.iter().map(Against::mine_id)) {
        let rows: Vec<&Against> = table.iter().filter(|row| row.mine_id() == id).collect();
        let (mine, others) = (&rows[0].mine, first_seen(rows.iter().map(|row| row.other_id())));
        let name =
            |other: &ChannelId| rows.iter().find(|row| row.other_id() == *other).expect("a row of each").other.as_str();
        let mut grid = Table::new(0, std::iter::once("cell").chain(others.iter().map(name)));
        for at in first_seen(rows.iter().map(|row| row.at())) {
            let place = &rows.iter().find(|row| row.at() == at).expect("a row of each").place;
            let cells = others.iter().map(|other| {
                let row = rows.iter().find(|row| row.at() == at && row.other_id() == *other);
                vec![Span::Text(row.map_or_else(String::new, |row| {
                    let before = row.baseline_ratio.map_or_else(String::new, |ratio| format!(", was {ratio:.2}×"));
                    format!("{}{before}", format::interval(row.ratio, row.low, row.high))
                }))]
            });
            grid.rows.push((None, std::iter::once(vec![Span::text(place)]).chain(cells).collect()));
        }
        let _ = write!(
            out,
            "\n## {mine} against the others\n\n{mine}'s ns/message over each channel's, in this build's rounds \
             (below 1: {mine} is faster), with its interval at {:.0}%, then in the baseline's.\n\n{}",
            VERDICT_CONFIDENCE * 100.0,
            grid.sectioned(Format::Markdown)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::load::hand_made_key;
    use crate::results::setting::Setting;
    use crate::run::measure::RuntimeKind;

    fn change(ratio: f64, low: f64, high: f64, call: Call) -> Change {
        Change {
            channel: "kanal".to_owned(),
            place: "current-thread cloned-send large".to_owned(),
            cells: Vec::new(),
            runtime: RuntimeKind::CurrentThread,
            tasks: vec![128, 512],
            ratio,
            low,
            high,
            call,
            open: false,
            pairs: 8,
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

    #[test]
    fn each_channel_of_the_users_gets_one_table_whatever_the_rows_order() {
        let row = |mine: &str, other: &str, tasks: u64| Against {
            mine: mine.to_owned(),
            other: other.to_owned(),
            place: format!("multi-thread cloned-send tasks={tasks}"),
            tasks,
            ratio: 1.0,
            low: 0.9,
            high: 1.1,
            baseline_ratio: None,
            cells: (hand_made_key(mine, tasks, Setting::default()), hand_made_key(other, tasks, Setting::default())),
        };
        let rows = [row("mine-a", "flume", 1), row("mine-b", "flume", 1), row("mine-a", "flume", 8)];
        let text = against(&rows);
        for mine in ["mine-a", "mine-b"] {
            assert_eq!(text.matches(&format!("## {mine} against the others")).count(), 1, "{text}");
        }
        assert!(text.contains("multi-thread cloned-send tasks=8"), "{text}");
        // Rows and columns are the cells' data: two places worded alike stay two rows.
        let worded = Against { place: "multi-thread cloned-send tasks=8".to_owned(), ..row("mine-a", "flume", 64) };
        let text = against(&[row("mine-a", "flume", 8), worded]);
        assert_eq!(text.matches("multi-thread cloned-send tasks=8").count(), 2, "{text}");
    }

    #[test]
    fn the_answer_says_how_fast_each_build_read_the_machine() {
        use crate::results::load::MachineSpeed;
        let speed = |handoff| Some(MachineSpeed { handoff_ns: Some(handoff), ..MachineSpeed::default() });
        let ab = Ab { machine: [speed(120.0), speed(132.0)], ..Ab::default() };
        assert!(
            text(&ab).contains(
                "\n\nmachine speed: a round trip between cores 120 ns (baseline), 132 ns (candidate, 1.10×); a machine \
                 slower by a ratio moves every figure of its runtime by about it.\n\n"
            ),
            "{}",
            text(&ab)
        );
        assert!(!text(&Ab::default()).contains("machine speed"), "no reading, no line");
    }
}

//! The bands a run left open, each with what would likely decide it (`results::decide`), and
//! what else limits the answer (an oversubscribed runtime, other than the default messages): a
//! section of the document, and the sweep's console line on `--max-time`.

use super::doc::{Block, On, Section, Span};
use crate::cli::DEFAULT_MESSAGES;
use crate::plan::Plan;
use crate::results::analysis::Analysis;
use crate::results::decide::{Needed, Open};
use crate::results::unkept::Unkept;
use crate::run::workload::{MIN_TASK_SLOTS, thousands};

/// The open bands, a line each, then the limits of the answer, a paragraph each; `None` when none
/// is said.
pub fn section(analysis: &Analysis) -> Option<Section> {
    let open: Vec<Vec<Span>> = analysis.open.iter().map(line).collect();
    // A note per multi-thread worker count above its machine's cores (`plan::oversubscribed`).
    let oversubscribed = analysis.oversubscribed.iter();
    let mut notes: Vec<String> =
        oversubscribed.map(|&(workers, cores)| crate::plan::oversubscribed(&workers.to_string(), cores)).collect();
    notes.extend(analysis.unkept.iter().map(unkept_line));
    if analysis.messages.iter().any(|&messages| messages != DEFAULT_MESSAGES) {
        notes.push(format!(
            "samples here moved other than the default {DEFAULT_MESSAGES} messages (--quick moves fewer): the answer \
             is for that workload, and a default run's may differ"
        ));
    }
    let notes = notes.into_iter().map(|note| Block::Para(vec![Span::Text(format!("note: {note}"))]));
    let blocks: Vec<Block> = (!open.is_empty()).then_some(Block::List(open)).into_iter().chain(notes).collect();
    (!blocks.is_empty()).then_some(Section { id: "open", on: On::Page, heading: None, blocks })
}

/// What a plan says before its rounds, one line each ([`Plan::notes`], then what it cannot keep
/// of what was asked, [`unkept_line`]).
pub fn notes(plan: &Plan) -> Vec<String> {
    plan.notes().into_iter().chain(plan.unkept().iter().map(unkept_line)).collect()
}

/// A request not kept, and what was measured instead: `--capacity 32 in merged-recv at 64
/// tasks: measured at 16 slots a task's channel (its least), 1,024 slots in all, not 32 …`.
pub fn unkept_line(unkept: &Unkept) -> String {
    match unkept {
        Unkept::Floor { capacity, held } => {
            let tasks: Vec<String> = held.iter().map(|&(tasks, _)| tasks.to_string()).collect();
            let all: Vec<String> = held.iter().map(|&(_, all)| thousands(&all.to_string())).collect();
            let (tasks, all, asked) = (and_list(&tasks), and_list(&all), thousands(&capacity.to_string()));
            format!(
                "--capacity {asked} in merged-recv at {tasks} tasks: measured at {MIN_TASK_SLOTS} slots a task's \
                 channel (the least it gets), {all} slots in all, not {asked}; --task-capacity N gives each task's \
                 channel N slots"
            )
        }
        Unkept::Batch { batch, capacity, mode, slots } => format!(
            "--batch {batch} at {capacity} in {}: measured with batches of at most {} messages, what its channels \
             hold at once, not {batch}",
            mode.name(),
            thousands(&slots.to_string())
        ),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [head @ .., last] => format!("{} and {last}", head.join(", ")),
    }
}

/// An open band: `open: multi-thread (2 workers) cloned-send small: kanal† against crossfire†:
/// …`, and what would likely decide it.
fn line(open: &Open) -> Vec<Span> {
    let band = &open.band;
    let leader = band.speed.first().map_or("", |first| first.channel.as_str());
    let named = band.band.names_capacity || band.band.names_machine;
    let at = if named { format!(" {}", super::format::section(&band.band)) } else { String::new() };
    let workers = super::format::threads(band.band.coord.runtime, band.band.coord.workers);
    let (runtime, mode, size) = (band.band.coord.runtime.name(), band.band.coord.mode.name(), band.band.size.name());
    let decides = match open.needed {
        Needed::Rounds(rounds) => {
            format!("about {rounds} more rounds a task count ({:.1} s) would likely decide it", open.seconds)
        }
        Needed::Beyond => "not decidable here: the drift this run measured is wider than their difference".to_owned(),
    };
    vec![
        Span::Text(format!("open: {runtime}{workers} {mode}{at} {size}: ")),
        Span::channel(leader, leader),
        Span::text(" against "),
        Span::channel(&open.channel, &open.channel),
        Span::Text(format!(": {decides}")),
    ]
}

/// The `--max-time` that would likely give a run's duels the time to decide the `open` bands
/// that rounds can decide, the run's duels having had `max_time` for each of `counted`
/// (`Plan::duel_cells`) of its `cells`; `None` when no such band is open.
pub fn max_time_line(open: &[Open], max_time: f64, counted: f64, cells: usize) -> Option<String> {
    let seconds: f64 = open.iter().map(|open| open.seconds).sum();
    let decidable = open.iter().filter(|open| open.needed != Needed::Beyond).count();
    let needed =
        (decidable > 0 && seconds > 0.0).then(|| larger_max_time(max_time, max_time + seconds / counted.max(1.0)));
    needed.flatten().map(|needed| {
        format!(
            "duels: --max-time {needed} would likely decide the {decidable} open band(s) below that rounds can decide \
             here (the duels' time is --max-time × {})",
            duel_cells(counted, cells)
        )
    })
}

/// `needed` as a `--max-time` to give, rounded up (two decimals from 0.1 s, four below), so
/// that what is written is at least what is needed; `None` unless that is more than `used`,
/// the run's own: a suggestion the user has already followed is no suggestion.
fn larger_max_time(used: f64, needed: f64) -> Option<String> {
    let decimals = if needed >= 0.1 { 2 } else { 4 };
    let scale = 10f64.powi(decimals);
    let text = format!("{:.*}", decimals as usize, (needed * scale).ceil() / scale);
    text.parse::<f64>().is_ok_and(|written| written > used).then_some(text)
}

/// What the duels' time is `--max-time` times: `cells` cells, or `counted` (`Plan::duel_cells`)
/// when a band measured at fewer task counts than the default sweep's counts more.
pub fn duel_cells(counted: f64, cells: usize) -> String {
    if (counted - cells as f64).abs() < 0.5 {
        format!("{cells} cells")
    } else {
        format!("{counted:.0} cells ({cells} measured: a band of fewer task counts than the default's counts as many)")
    }
}

#[cfg(test)]
mod tests {
    use super::larger_max_time;

    #[test]
    fn a_suggested_max_time_is_rounded_up_and_only_ever_larger_than_the_one_used() {
        // 0.12 + 0.001 was written "0.12", the value the run had used.
        assert_eq!(larger_max_time(0.12, 0.121).as_deref(), Some("0.13"));
        assert_eq!(larger_max_time(0.12, 0.5).as_deref(), Some("0.50"));
        assert_eq!(larger_max_time(0.008, 0.00801).as_deref(), Some("0.0081"));
        assert_eq!(larger_max_time(0.0, 0.00001).as_deref(), Some("0.0001"));
        assert_eq!(larger_max_time(0.12, 0.12), None, "the value used is no suggestion");
        assert_eq!(larger_max_time(0.5, 0.3), None, "nor a smaller one");
    }
}

//! The bands a run left open, each with what would likely decide it
//! (`results::decide`), as lines for the console and the summary.

use crate::results::analysis::Analysis;
use crate::results::decide::{Needed, Open};
use crate::run::measure::RuntimeKind;

/// One line per open band.
pub fn lines(open: &[Open]) -> Vec<String> {
    open.iter()
        .map(|open| {
            let band = &open.band;
            let leader = band.speed.first().map_or("", |first| first.channel.as_str());
            let at = super::format::section(&band.band).map_or(String::new(), |section| format!(" {section}"));
            let workers = match band.band.runtime {
                RuntimeKind::MultiThread => format!(" ({})", super::format::workers(open.workers)),
                RuntimeKind::CurrentThread => String::new(),
            };
            let (runtime, mode, size) = (band.band.runtime.name(), band.band.mode.name(), band.band.size.name());
            let name = format!("{runtime}{workers} {mode}{at} {size}");
            match open.needed {
                Needed::Rounds(rounds) => format!(
                    "open: {name}: {leader} against {}: about {rounds} more rounds a task count ({:.1} s) would likely decide it",
                    open.channel, open.seconds
                ),
                Needed::Beyond => format!(
                    "open: {name}: {leader} against {}: not decidable here: the drift this run measured is wider than \
                     their difference",
                    open.channel
                ),
            }
        })
        .collect()
}

/// The `--max-time` that would likely give a run's duels the time to decide the `open` bands
/// that rounds can decide, the run having had `max_time` for each of its `cells`; `None` when
/// no such band is open.
pub fn max_time_line(open: &[Open], max_time: f64, cells: usize) -> Option<String> {
    let seconds: f64 = open.iter().map(|open| open.seconds).sum();
    let decidable = open.iter().filter(|open| open.needed != Needed::Beyond).count();
    (decidable > 0 && seconds > 0.0).then(|| {
        let needed = max_time + seconds / cells.max(1) as f64;
        let needed = if needed >= 0.1 { format!("{needed:.2}") } else { format!("{needed:.4}") };
        format!(
            "duels: --max-time {needed} would likely decide the {decidable} open band(s) below that rounds can decide \
             here (the duels' time is --max-time × {cells} cells)"
        )
    })
}

/// One `note:` line per multi-thread worker count above its machine's cores: what such a
/// run's figures measure (`plan::oversubscribed`).
pub fn oversubscribed(analysis: &Analysis) -> Vec<String> {
    let lines = analysis.oversubscribed.iter();
    lines
        .map(|&(workers, cores)| format!("note: {}", crate::plan::oversubscribed(&workers.to_string(), cores)))
        .collect()
}

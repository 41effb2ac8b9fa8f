//! The bands a run left open, each with what would likely decide it
//! (`results::decide`), as lines for the console and the summary.

use crate::results::decide::{Needed, Open};

/// One line per open band, then, when the run's `--max-time` and cell count are known, the
/// `--max-time` that would likely give the duels the time to decide those that rounds can.
pub fn lines(open: &[Open], max_time: Option<(f64, usize)>) -> Vec<String> {
    let mut lines: Vec<String> = open
        .iter()
        .map(|open| {
            let band = &open.band;
            let leader = band.speed.first().map_or("", |first| first.channel.as_str());
            let name = format!("{} {} {}", band.runtime.name(), band.mode.name(), band.size.name());
            match open.needed {
                Needed::Rounds(rounds) => format!(
                    "open: {name}: {leader} against {}: about {rounds} more rounds a task count ({:.0} s) would likely decide it",
                    open.channel, open.seconds
                ),
                Needed::Beyond => format!(
                    "open: {name}: {leader} against {}: not decidable here: the drift this run measured is wider than \
                     their difference",
                    open.channel
                ),
            }
        })
        .collect();
    let seconds: f64 = open.iter().map(|open| open.seconds).sum();
    if let Some((max_time, cells)) = max_time.filter(|_| seconds > 0.0 && !open.is_empty()) {
        let decidable = open.iter().filter(|open| open.needed != Needed::Beyond).count();
        lines.push(format!(
            "--max-time {:.2} would likely decide {decidable} of these {} bands here (the duels' time is --max-time × {cells} cells)",
            max_time + seconds / cells.max(1) as f64,
            open.len()
        ));
    }
    lines
}

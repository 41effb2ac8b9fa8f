//! Where capacity matters, in words: the bands a file measured at several capacities, the
//! pick that holds at all of them, and the bands where the pick changes, each with the verdict
//! that shows it. The same lines serve the console (`  ` before each) and Markdown (`- `).

use super::doc::{Form, Format, Span, line, list};
use super::format;
use crate::results::analysis::Analysis;
use crate::results::capacity::{AcrossCapacities, across};
use crate::results::designs::Designs;
use crate::results::noise::Metric;
use crate::results::recommend::Recommendation;
use crate::run::workload::{Capacity, MIN_TASK_SLOTS, Mode};
use crate::stats::verdict::{Call, Verdict};

/// How merged-recv sized its channels in `bands`, one line; `None` without merged-recv.
pub fn merged_rule(bands: &[Recommendation]) -> Option<String> {
    let merged = bands.iter().filter(|band| band.band.mode == Mode::MergedRecv);
    let (per_task, shared): (Vec<_>, Vec<_>) =
        merged.partition(|band| matches!(band.band.capacity, Some(Capacity::PerTask(_))));
    let shared = (!shared.is_empty()).then(|| {
        format!(
            "a capacity of N slots is shared among the tasks' channels, N ÷ tasks each but at least {MIN_TASK_SLOTS} \
             (`capacity_per_channel` in the CSV)"
        )
    });
    let own = "`N slots per task` is each task's own channel of N slots (`--task-capacity`)";
    let rules: Vec<String> = shared.into_iter().chain((!per_task.is_empty()).then(|| own.to_owned())).collect();
    (!rules.is_empty()).then(|| format!("merged-recv: {}.", rules.join("; ")))
}

/// The section that follows the tables, in `format`: one line per band measured at several
/// capacities (`only_changes`: only those whose pick changes), the pick that holds, then where
/// the pick changes; then the merged-recv rule.
pub fn section(bands: &[Recommendation], format: Format, only_changes: bool) -> String {
    let kept = |band: &&AcrossCapacities| !only_changes || !band.changes.is_empty();
    let lines: Vec<String> = across(bands).iter().filter(kept).map(|band| line(&said(band), format)).collect();
    let mut out = String::new();
    if !lines.is_empty() {
        let bands = if only_changes { "the bands whose pick changes with capacity" } else { "each band" };
        out.push_str(&format!(
            "\nWhere capacity matters, {bands} (each capacity's pick; the pick with no known problem that holds at \
             every capacity; where the pick changes, the verdict at that capacity):\n\n"
        ));
        out.push_str(&list(lines, format));
    }
    if let Some(rule) = merged_rule(bands) {
        out.push_str(&format!("\n{}\n", Span::Text(rule).render(format)));
    }
    out
}

/// One band across its capacities: each capacity's pick, the pick that holds, the changes.
fn said(band: &AcrossCapacities) -> Vec<Span> {
    let notes = format::group_notes(band.band.workers, None, &band.band.setting);
    let place = format!("{} {}{notes} {}", band.band.runtime, band.band.mode, band.band.size.name());
    let mut spans = vec![Span::Text(format!("{place}: "))];
    for (at, (capacity, pick)) in band.picks.iter().enumerate() {
        let comma = if at == 0 { "" } else { ", " };
        spans.extend([Span::text(comma), Span::channel(pick, pick), Span::Text(format!(" at {capacity}"))]);
    }
    spans.push(Span::Text(match &band.holds {
        Some(holds) if holds.within_noise_everywhere => {
            format!("; {} holds at every capacity (the fastest or tied with it at each); ", holds.channel)
        }
        Some(holds) => format!(
            "; no channel with no known problem is within the noise of the fastest at every capacity; the nearest is \
             {}, {} behind the fastest at {}; ",
            holds.channel,
            holds.worst.map_or("?".to_owned(), |verdict| format::ratio(&verdict)),
            holds.worst_at
        ),
        None => "; no channel with no known problem is ranked at every capacity; ".to_owned(),
    }));
    if band.changes.is_empty() {
        spans.push(Span::text("the pick does not change beyond the noise"));
        return spans;
    }
    spans.extend([Span::Strong(vec![Span::text("the pick changes with capacity")]), Span::text(": ")]);
    for (at, change) in band.changes.iter().enumerate() {
        let semicolon = if at == 0 { "" } else { "; " };
        spans.extend([
            Span::Text(format!("{semicolon}at {}, ", change.at)),
            Span::channel(&change.other, &change.other),
            Span::Text(format!(" is {} behind ", format::ratio(&change.verdict))),
            Span::channel(&change.pick, &change.pick),
        ]);
    }
    spans
}

/// The shared design's pick in `band`: the room's (a paced file) or the band's fastest.
fn pick_of(analysis: &Analysis, band: &Designs) -> Option<String> {
    let shared = |mode, capacity| mode == Mode::ClonedSend && capacity == band.shared;
    let rooms = &analysis.decisions;
    let room = rooms.iter().find(|room| room.runtime == band.runtime && shared(room.mode, room.capacity));
    let pick = room.and_then(|room| room.pick.as_ref().map(|seat| seat.channel.clone()));
    let at = |b: &&Recommendation| {
        (b.band.runtime, b.band.size, &b.band.setting) == (band.runtime, band.size, &band.setting)
            && shared(b.band.mode, b.band.capacity.unwrap_or(band.shared))
    };
    let fastest = || analysis.bands.iter().find(at).and_then(|b| b.speed.first()).map(|first| first.channel.clone());
    pick.or_else(fastest)
}

/// Which design, band by band, as `form` shows it: merged-recv (a channel per task) against
/// cloned-send (one shared channel), each channel's verdicts, the shared design's pick
/// ([`pick_of`]) first; the short answer of a paced file names the pick alone, a flat-out
/// file's leaves the designs to the full summary. Empty when the file measured one design.
pub fn designs(analysis: &Analysis, form: Form) -> String {
    if analysis.designs.is_empty() || (form == Form::Short && !analysis.only_paced) {
        return String::new();
    }
    let out = String::from(
        "Which design: merged-recv (a channel per task) against cloned-send (one shared channel), each at its own \
         capacity, channel by channel: the ratio of merged-recv's figure to cloned-send's (points for frames \
         overflowed) with its 95% interval, from their samples paired round by round; ≈ where the interval holds \
         no difference.\n\n",
    );
    let lines = analysis.designs.iter().map(|band| {
        let notes = format::group_notes(band.workers, None, &format::phased(&band.setting));
        let place =
            format!("{}{notes} {}, {} shared against {}", band.runtime, band.size.name(), band.shared, band.own);
        let pick = pick_of(analysis, band);
        let mut channels: Vec<&(String, Vec<(Metric, Verdict)>)> = band.channels.iter().collect();
        channels.sort_by_key(|(channel, _)| Some(channel) != pick.as_ref());
        if form == Form::Short && pick.is_some() {
            channels.truncate(1);
        }
        let said: Vec<String> = channels
            .iter()
            .map(|(channel, verdicts)| {
                let figures: Vec<String> = verdicts.iter().map(|(metric, verdict)| figure(*metric, verdict)).collect();
                let picked = if Some(channel) == pick.as_ref() { " (the shared design's pick)" } else { "" };
                let said = [Span::channel(channel, channel), Span::Text(format!("{picked} {}", figures.join(", ")))];
                line(&said, form.format())
            })
            .collect();
        format!("{place}: {}", said.join("; "))
    });
    out + &list(lines, form.format()) + "\n"
}

/// `speed 1.21× [1.10–1.33]`, `drops ≈ +0.10 points [−0.2–0.4]`: one verdict of [`designs`].
fn figure(metric: Metric, verdict: &Verdict) -> String {
    let name = match metric {
        Metric::Speed => "ns/message",
        Metric::Cpu => "CPU",
        Metric::P99 => "p99",
        Metric::Overflow => "frames overflowed",
    };
    let tied = if verdict.call == Call::Tied { "≈ " } else { "" };
    match metric.is_ratio() {
        true if format::ratio(verdict) == format::NOT_RESOLVED => format!("{name} {}", format::NOT_RESOLVED),
        true => format!("{name} {tied}{}", format::ratio(verdict)),
        false => format!("{name} {tied}{:+.2} points [{:+.2}–{:+.2}]", verdict.mean, verdict.low, verdict.high),
    }
}

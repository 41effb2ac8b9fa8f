//! Where the machine, capacity, the batch and the record size matter, in words: the bands a file
//! measured at several places on an axis, the pick that holds at all of them, and the bands where
//! the pick changes, each with the verdict that shows it; then which design, band by band: two
//! sections of the document.

use std::collections::BTreeSet;

use super::doc::{Block, Form, On, Section, Span, prose};
use super::format;
use crate::results::across::{Across, At, Axis, AxisWords};
use crate::results::analysis::Analysis;
use crate::results::band::first_seen;
use crate::results::designs::Designs;
use crate::results::noise::Metric;
use crate::results::recommend::Recommendation;
use crate::run::workload::{Capacity, MIN_TASK_SLOTS, Mode};
use crate::stats::verdict::{Call, Verdict};

/// How merged-recv sized its channels in `bands`, one line; `None` without merged-recv.
fn merged_rule(bands: &[Recommendation]) -> Option<String> {
    let merged = bands.iter().filter(|band| band.band.coord.mode == Mode::MergedRecv);
    let (per_task, shared): (Vec<_>, Vec<_>) =
        merged.partition(|band| matches!(band.band.named_capacity(), Some(Capacity::PerTask(_))));
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

/// In full, on the page: where each axis matters (the machine, capacity, the batch, the record
/// size), each band ([`axis_blocks`]), then the merged-recv rule; short, the rule alone (the pick matrix says where
/// the pick changes). `None` when none is said, and for a file of paced cells only (its
/// ns/message bands restate the schedule).
pub fn section(analysis: &Analysis, form: Form) -> Option<Section> {
    if analysis.only_paced {
        return None;
    }
    let mut blocks = Vec::new();
    if form == Form::Full {
        blocks = Axis::ALL.iter().flat_map(|&axis| axis_blocks(analysis.across.on(axis), axis)).collect();
    }
    blocks.extend(merged_rule(&analysis.bands).map(|rule| Block::Para(prose(&rule))));
    let on = if form == Form::Full { On::Page } else { On::Everywhere };
    (!blocks.is_empty()).then_some(Section { id: "across", on, heading: None, blocks })
}

/// How many bands of each runtime change along `axis`: `the pick changes with the machine in 8
/// of 12 multi-thread bands and 0 of 12 current-thread bands`.
pub(super) fn tally(found: &[Across], axis: Axis) -> String {
    let runtimes: Vec<String> = first_seen(found.iter().map(|band| band.band.coord.runtime))
        .into_iter()
        .map(|runtime| {
            let of = found.iter().filter(|band| band.band.coord.runtime == runtime);
            let changed = of.clone().filter(|band| !band.changes.is_empty()).count();
            format!("{changed} of {} {runtime} bands", of.count())
        })
        .collect();
    format!("The pick changes with {} in {}.", axis.words().what, runtimes.join(" and "))
}

/// Where `axis` matters: one line per band `found` at several places on it, the pick that
/// holds, then where the pick changes; the tally first where the axis has one. Empty when no
/// band is found at several places.
fn axis_blocks(found: &[Across], axis: Axis) -> Vec<Block> {
    if found.is_empty() {
        return Vec::new();
    }
    let AxisWords { what, noun, preposition: on, .. } = axis.words();
    let heading = format!(
        "Where {what} matters, each band (each {noun}'s pick; the pick with no known problem that holds {on} every \
         {noun}; where the pick changes, the verdict {on} that {noun}):"
    );
    let mut blocks = vec![Block::Para(vec![Span::Text(heading)])];
    blocks.extend(axis.words().tally.then(|| Block::Para(vec![Span::Text(tally(found, axis))])));
    blocks.push(Block::List(found.iter().map(said).collect()));
    blocks
}

/// One band across its places: each place's pick, the pick that holds, the changes; the band
/// said with what the axis keeps of it (its workers, capacity and machine).
fn said(band: &Across) -> Vec<Span> {
    let AxisWords { what, noun, preposition: on, place_preposition, .. } = band.axis.words();
    let (b, rest) = (&band.band, band.rest());
    let capacity = rest.named_capacity().map_or(String::new(), |capacity| format!(" at {capacity}"));
    let machine = rest.machine().map_or(String::new(), |machine| format!(" on {machine}"));
    let notes = format::group_notes(rest.workers(), None, &band.setting().to_string());
    let place_of_band = format!("{} {}{notes}{capacity}{machine} {}", b.coord.runtime, b.coord.mode, b.size.name());
    let cores: BTreeSet<usize> = band.picks.iter().filter_map(|(at, _)| at.cores()).collect();
    let by_cores = cores.len() == band.picks.len();
    let place = |at: &At| format!("{place_preposition} {}", at.text(by_cores));
    let picks =
        band.picks.iter().map(|(on, pick)| vec![Span::channel(pick, pick), Span::Text(format!(" {}", place(on)))]);
    let mut spans = vec![Span::Text(format!("{place_of_band}: "))];
    spans.extend(picks.collect::<Vec<_>>().join(&Span::text(", ")));
    let every = format!("{on} every {noun}");
    spans.push(Span::Text(match &band.holds {
        Some(holds) if holds.within_noise_everywhere => {
            format!("; {} holds {every} (the fastest or tied with it {on} each); ", holds.channel)
        }
        Some(holds) => format!(
            "; no channel with no known problem is within the noise of the fastest {every}; the nearest is {}, {} \
             behind the fastest {}; ",
            holds.channel,
            holds.worst.map_or("?".to_owned(), |verdict| format::ratio(&verdict)),
            place(&holds.worst_at)
        ),
        None => format!("; no channel with no known problem is ranked {every}; "),
    }));
    if band.changes.is_empty() {
        spans.push(Span::text("the pick does not change beyond the noise"));
        return spans;
    }
    spans.extend([Span::Strong(vec![Span::Text(format!("the pick changes with {what}"))]), Span::text(": ")]);
    let changes = band.changes.iter().map(|change| {
        vec![
            Span::Text(format!("{}, ", place(&change.at))),
            Span::channel(change.other.label(), &change.other.label()),
            Span::Text(format!(" is {} behind ", format::ratio(&change.verdict))),
            Span::channel(change.pick.label(), &change.pick.label()),
        ]
    });
    spans.extend(changes.collect::<Vec<_>>().join(&Span::text("; ")));
    spans
}

/// The shared design's pick in `band`: the room's (a paced file) or the band's fastest.
fn pick_of(analysis: &Analysis, band: &Designs) -> Option<String> {
    let (band, capacity) = (&band.shared, band.shared.coord.capacity);
    let shared = |mode, at| mode == Mode::ClonedSend && at == capacity;
    let mut rooms = analysis.decisions.iter();
    let room =
        rooms.find(|room| room.coord.runtime == band.coord.runtime && shared(room.coord.mode, room.coord.capacity));
    let pick = room.and_then(|room| room.pick.as_ref().map(|seat| seat.channel.name.clone()));
    let at = |b: &&Recommendation| {
        (b.band.coord.runtime, b.band.size, &b.band.coord.setting)
            == (band.coord.runtime, band.size, &band.coord.setting)
            && shared(b.band.coord.mode, b.band.named_capacity().unwrap_or(capacity))
    };
    let fastest = || analysis.bands.iter().find(at).and_then(|b| b.speed.first()).map(|first| first.channel.clone());
    pick.or_else(fastest)
}

/// Which design, band by band, as `form` shows it: merged-recv (a channel per task) against
/// cloned-send (one shared channel), each channel's verdicts, the shared design's pick
/// ([`pick_of`]) first; the short answer of a paced file names the pick alone, a flat-out
/// file's leaves the designs to the full summary. `None` when the file measured one design.
pub fn designs(analysis: &Analysis, form: Form) -> Option<Section> {
    if analysis.designs.is_empty() || (form == Form::Short && !analysis.only_paced) {
        return None;
    }
    let intro = "Merged-recv (a channel per task) against cloned-send (one shared channel), each at its own capacity, \
                 channel by channel: the ratio of merged-recv's figure to cloned-send's (points for frames \
                 overflowed) with its 95% interval, from their samples paired round by round; ≈ where the interval \
                 holds no difference.";
    let lines = analysis.designs.iter().map(|band| {
        let shared = &band.shared;
        let notes = format::group_notes(shared.workers(), None, &shared.coord.setting.phased());
        let (runtime, size, capacity) = (shared.coord.runtime, shared.size.name(), shared.coord.capacity);
        let place = format!("{runtime}{notes} {size}, {capacity} shared against {}: ", band.own);
        let pick = pick_of(analysis, band);
        let mut channels: Vec<&(String, Vec<(Metric, Verdict)>)> = band.channels.iter().collect();
        channels.sort_by_key(|(channel, _)| Some(channel) != pick.as_ref());
        if form == Form::Short && pick.is_some() {
            channels.truncate(1);
        }
        let said = channels.iter().map(|(channel, verdicts)| {
            let figures: Vec<String> = verdicts.iter().map(|(metric, verdict)| figure(*metric, verdict)).collect();
            let picked = if Some(channel) == pick.as_ref() { " (the shared design's pick)" } else { "" };
            vec![Span::channel(channel, channel), Span::Text(format!("{picked} {}", figures.join(", ")))]
        });
        [vec![Span::Text(place)], said.collect::<Vec<_>>().join(&Span::text("; "))].concat()
    });
    let blocks = vec![Block::Para(vec![Span::text(intro)]), Block::List(lines.collect())];
    let on = if form == Form::Full { On::Page } else { On::Everywhere };
    Some(Section { id: "designs", on, heading: Some("which design".to_owned()), blocks })
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

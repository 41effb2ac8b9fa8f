//! The decision for a room as every output words it: a card of labelled lines ([`card`]) and
//! the explanation below it, for the console, the summary, the HTML report and the README, and
//! an object for `summary --json`. Formatting only (`results::decision` computes).

use serde_json::{Value, json};

use super::doc::{Block, Form, Format, Mark, On, Section, Span, fitted, line};
use super::format::{NOT_RESOLVED, duration, percent, thousands};
use crate::results::analysis::Analysis;
use crate::results::decision::{Avoid, Decision, SEPARATED, Seat, Weigh};
use crate::results::paced::{PacedCell, Range};
use crate::run::workload::Capacity;

mod why;

pub use why::{explanation, explanations};

/// The longest line of a card, in characters.
pub const CARD_WIDTH: usize = 120;

/// The width of a card line's label, `left out: ` the longest.
const LABEL: usize = 10;

/// A line of a room's card, by what it says; its label is [`CardLine::word`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardLine {
    /// The channel to use, or why none is.
    Use,
    /// The figures the decision weighed, in order, and the flag that orders them.
    Weighed,
    /// The channels passed over, each with the one ahead of it.
    Passed,
    /// The pick's pooled p99, out of phase and in phase.
    Latency,
    /// What the pick dropped, and the capacity that holds every frame.
    Drops,
    /// What the pick costs: its share of a core at the offered rate.
    Cost,
    /// The channels to avoid, each with why.
    Avoid,
    /// The channels not told apart from the pick.
    Tie,
    /// The channels the user follows against the pick.
    Yours,
    /// The room's samples left out of every figure.
    LeftOut,
}

impl CardLine {
    /// The line's label: `use`, `weighed`, `passed`, `latency`, `drops`, `cost`, `avoid`, `tie`,
    /// `yours`, `left out`.
    pub fn word(self) -> &'static str {
        match self {
            CardLine::Use => "use",
            CardLine::Weighed => "weighed",
            CardLine::Passed => "passed",
            CardLine::Latency => "latency",
            CardLine::Drops => "drops",
            CardLine::Cost => "cost",
            CardLine::Avoid => "avoid",
            CardLine::Tie => "tie",
            CardLine::Yours => "yours",
            CardLine::LeftOut => "left out",
        }
    }
}

/// `For N participants (runtime mode, 5 packets every 20ms, capacity C):`, the card's title:
/// the room the decision is for.
pub fn title(decision: &Decision) -> String {
    let interval = humantime::format_duration(std::time::Duration::from_nanos(decision.interval_ns));
    let (participants, runtime, mode, burst) =
        (decision.participants, decision.coord.runtime, decision.coord.mode, decision.burst);
    let machine = decision.machine().map_or(String::new(), |machine| format!(", on {machine}"));
    format!(
        "For {participants} participants ({runtime} {mode}, {burst} packets every {interval}, capacity {}{machine}):",
        decision.coord.capacity
    )
}

/// A cell's figure, the one every output gives (the figures table's: pooled over the cell's
/// kept samples), then how far its samples' own figures spread, each number as `show` writes
/// it: `1.02 µs (per sample 740 ns–1.10 µs, n=6)`; `1.02 µs (n=6)` when the least and most
/// agree; `1.02 µs (per sample 800 ns in 4, 118 µs in 2)` when they fall in two clusters.
/// `per`: the words before the samples' figures, `per sample ` where the line has not said them.
fn spread(figure: f64, range: Range, (show, per): (fn(f64) -> String, &str)) -> String {
    let Some(span) = range else { return show(figure) };
    if let Some([(fast, n), (slow, m)]) = span.modes {
        return format!("{} ({per}{} in {n}, {} in {m})", show(figure), show(fast), show(slow));
    }
    let (low, high) = (show(span.low), show(span.high));
    let between = if low == high { String::new() } else { format!("{per}{low}–{high}, ") };
    format!("{} ({between}n={})", show(figure), span.samples)
}

/// The words before a figure's samples where a line first gives them.
const PER_SAMPLE: &str = "per sample ";

/// `cell`'s p99 on the card, and whether it is the pooled one every output gives: its samples'
/// histograms merged ([`spread`]), or, in a file without them, the median of the samples' own
/// p99s, labelled so: `902 ns (median of the samples: 902 ns–903 ns, n=2)`; `None` without either.
fn p99(cell: Option<&PacedCell>, per: &str) -> Option<(String, bool)> {
    let cell = cell?;
    if let Some(latency) = cell.latency {
        return Some((spread(latency.p99 as f64, cell.ranges.p99_ns, (duration, per)), true));
    }
    let span = cell.ranges.p99_ns?;
    let (low, high) = (duration(span.low), duration(span.high));
    let between = if low == high { String::new() } else { format!("{low}–{high}, ") };
    Some((format!("{} (median of the samples: {between}n={})", duration(span.median), span.samples), false))
}

/// The card: labelled lines (`use`, `weighed`, `passed`, `latency`, `drops`, `cost`, `avoid`,
/// `tie`, and `left out` when samples were), each at most [`CARD_WIDTH`] characters, each figure
/// the cell's, pooled over its kept samples, with how far the samples spread ([`spread`]); the cost labelled
/// as the whole process's; the pick set apart, with how near another came to passing it over.
/// Only `use` when no channel could be ranked; `use`, `passed`, `avoid` and `left out` when the
/// room is not resolved.
pub fn card(decision: &Decision, keep: &[String]) -> Vec<(CardLine, Vec<Span>)> {
    let Some(pick) = &decision.pick else {
        if decision.passed_over.is_empty() {
            let none = "none: no channel with no known problem kept up without a failure; see below";
            return vec![(CardLine::Use, vec![Span::text(none)])];
        }
        let open = format!("{NOT_RESOLVED}, each channel is behind another {}", separated(decision));
        let mut lines = vec![(CardLine::Use, vec![Span::Text(open)]), weighed(decision)];
        lines.extend(passed(decision));
        lines.extend(avoid_line(decision));
        lines.extend(left_out(decision).map(|line| (CardLine::LeftOut, vec![Span::Text(line)])));
        return lines;
    };
    let why = match &decision.closest {
        Some((_, 0)) => format!(" (none ahead of it beyond the noise in any of {} resamples)", resamples(decision)),
        Some((channel, ahead)) => {
            format!(" (none ahead of it {}; closest: {channel}, {})", separated(decision), share(*ahead, decision))
        }
        None => " (no other channel with no known problem to weigh it against)".to_owned(),
    };
    let use_line = (CardLine::Use, vec![Span::Strong(vec![Span::Text(pick.channel.to_string())]), Span::Text(why)]);
    let mut lines = vec![use_line, weighed(decision)];
    lines.extend(passed(decision));
    let (out, inside) = (pick.out_of_phase.as_ref(), pick.in_phase.as_ref());
    let first = p99(out, PER_SAMPLE);
    let second = p99(inside, if first.is_some() { "" } else { PER_SAMPLE });
    let pooled = [&first, &second].into_iter().flatten().all(|(_, pooled)| *pooled);
    let what = if pooled { "pooled p99" } else { "p99" };
    let latency = match (first, second) {
        (Some((out, _)), Some((inside, _))) => Some(format!("{what} out of phase {out}; in phase {inside}")),
        (Some((p99, _)), None) | (None, Some((p99, _))) => Some(format!("{what} {p99}")),
        (None, None) => None,
    };
    lines.extend(latency.map(|latency| (CardLine::Latency, vec![Span::Text(latency)])));
    if let Some(worst) = inside.or(out) {
        let dropped = spread(worst.drop_share, worst.ranges.drop_share, (percent, PER_SAMPLE));
        let when = if inside.is_some() { " in phase" } else { "" };
        let (capacity, enough) = (decision.coord.capacity, decision.capacity_for_no_drops());
        let (participants, burst) = (decision.participants, decision.burst);
        let how = match capacity {
            Capacity::Shared(_) => format!("{participants} × {burst}"),
            Capacity::PerTask(_) => format!("a frame of {burst}"),
        };
        let drops = format!("{dropped} of messages{when} at {capacity}; {enough} ({how}) hold every frame at once");
        lines.push((CardLine::Drops, vec![Span::Text(drops)]));
    }
    if let Some(cell) = out.or(inside)
        && let Some(share) = cell.core_share.map(|share| spread(share, cell.ranges.core_share, (percent, PER_SAMPLE)))
    {
        let (n, rate) = (decision.participants, thousands(cell.offered_per_s));
        let cost = format!("whole process, {n} senders and the router: {share} of a core at {rate} msg/s");
        lines.push((CardLine::Cost, vec![Span::Text(cost)]));
    }
    lines.extend(avoid_line(decision));
    if !decision.tied.is_empty() {
        let marked = |seat: &Seat| {
            vec![Span::Channel(seat.channel.to_string(), Mark::of(&seat.channel.name, seat.known_problem))]
        };
        let names: Vec<Vec<Span>> = decision.tied.iter().map(marked).collect();
        let within = "not told apart from the pick (tokio-mpsc first, then table order): ";
        let mut tie = vec![Span::text(within)];
        tie.extend(fitted(&names, CARD_WIDTH - LABEL - within.chars().count()));
        lines.push((CardLine::Tie, tie));
    }
    lines.extend(yours(decision, keep).map(|line| (CardLine::Yours, vec![Span::Text(line)])));
    lines.extend(left_out(decision).map(|line| (CardLine::LeftOut, vec![Span::Text(line)])));
    lines
}

/// How a figure weighed reads: its name in full (`frames overflowed`) and short (`drops`), the
/// phase it is judged in (`in phase`), and the words for fewer and as many (`fewer`, `as few`).
fn words(weigh: Weigh) -> [&'static str; 5] {
    match weigh {
        Weigh::Drops => ["frames overflowed", "drops", "in phase", "fewer", "as few"],
        Weigh::Cpu => ["CPU per message", "CPU", "out of phase", "less", "as little"],
        Weigh::P99 => ["p99", "p99", "in phase", "a lower", "as low"],
    }
}

/// What `weigh` is, where it is judged: `frames overflowed in phase`.
fn figure(weigh: Weigh) -> String {
    let [name, _, phase, ..] = words(weigh);
    format!("{name} {phase}")
}

/// The `weighed` line: the figures in order and the flag that gave them: `frames overflowed in
/// phase, then CPU per message out of phase (--weigh drops,cpu)`.
fn weighed(decision: &Decision) -> (CardLine, Vec<Span>) {
    let order: Vec<String> = decision.weighing.order().iter().map(|weigh| figure(*weigh)).collect();
    let text = format!("{} (", order.join(", then "));
    let flag = Span::Code(format!("--weigh {}", decision.weighing));
    (CardLine::Weighed, vec![Span::Text(text), flag, Span::text(")")])
}

/// `beyond the noise in 95% of 1,000 resamples`: what passing a channel over takes.
fn separated(decision: &Decision) -> String {
    format!("beyond the noise in {} of {} resamples", percent(SEPARATED), resamples(decision))
}

/// `1,000`: the resamples drawn.
fn resamples(decision: &Decision) -> String {
    thousands(decision.resamples as f64)
}

/// The share of `decision`'s resamples that `count` is: `87.0%`.
fn share(count: usize, decision: &Decision) -> String {
    percent(count as f64 / decision.resamples.max(1) as f64)
}

/// The `passed` line: each channel passed over, with the one ahead of it and how often:
/// `tokio-mpsc (behind asyncband in 97.0%)`; `None` without any.
fn passed(decision: &Decision) -> Option<(CardLine, Vec<Span>)> {
    let names = decision.passed_over.iter().map(|(channel, ahead, count)| {
        vec![Span::Text(format!("{channel} (behind {ahead} in {})", share(*count, decision)))]
    });
    let names: Vec<Vec<Span>> = names.collect();
    (!names.is_empty()).then(|| (CardLine::Passed, fitted(&names, CARD_WIDTH - LABEL)))
}

/// The `avoid` line: each channel to avoid, a known problem marked (†), else with why; `None`
/// without any.
fn avoid_line(decision: &Decision) -> Option<(CardLine, Vec<Span>)> {
    let avoid = decision.avoid.iter().map(|(channel, why)| match why {
        Avoid::KnownProblem => vec![Span::Channel(channel.to_string(), Mark::KnownProblem)],
        _ => vec![Span::Text(format!("{channel} ({})", avoided(*why)[0]))],
    });
    let avoid: Vec<Vec<Span>> = avoid.collect();
    (!avoid.is_empty()).then(|| (CardLine::Avoid, fitted(&avoid, CARD_WIDTH - LABEL)))
}

/// Why a channel is avoided, in the card's words and in `summary --json`'s.
fn avoided(why: Avoid) -> [&'static str; 2] {
    match why {
        Avoid::KnownProblem => ["a known problem", "known problem"],
        Avoid::PacerBehind => ["pacer behind", "pacer fell behind"],
        Avoid::Failed => ["failed", "a sample failed"],
        Avoid::Disturbed => ["every sample disturbed"; 2],
    }
}

/// The channels the user follows (`--keep`) against the room's pick, on the figures weighed:
/// `tokio-mpsc is the pick`, `flume: not told apart from the pick on drops and CPU`, `kanal:
/// avoid (a known problem)`, `tokio-mpsc: passed over, behind flume in 97.0%`, `flume: behind
/// the pick on drops in phase or CPU out of phase`; `None` without any.
fn yours(decision: &Decision, keep: &[String]) -> Option<String> {
    let pick = decision.pick.as_ref()?;
    let order = decision.weighing.order();
    let names: Vec<&str> = order.iter().map(|weigh| words(*weigh)[1]).collect();
    let judged: Vec<String> = order.iter().map(|weigh| format!("{} {}", words(*weigh)[1], words(*weigh)[2])).collect();
    let said = keep.iter().map(|channel| match decision.avoid.iter().find(|(id, _)| id.is_named(channel)) {
        _ if pick.channel.is_named(channel) => format!("{channel} is the pick"),
        Some((_, why)) => format!("{channel}: avoid ({})", avoided(*why)[0]),
        None => match decision.passed_over.iter().find(|(id, ..)| id.is_named(channel)) {
            Some((_, ahead, count)) => format!("{channel}: passed over, behind {ahead} in {}", share(*count, decision)),
            None if decision.tied.iter().any(|seat| seat.channel.is_named(channel)) => {
                format!("{channel}: not told apart from the pick on {}", names.join(" and "))
            }
            None => format!("{channel}: behind the pick on {}", judged.join(" or ")),
        },
    });
    let said: Vec<String> = said.collect();
    (!said.is_empty()).then(|| said.join("; "))
}

/// The room's samples left out of every figure, and why: `2 of 52 samples (1 steal tick, 1
/// pacer late), kept in the CSV`; `None` when none was.
fn left_out(decision: &Decision) -> Option<String> {
    let count: usize = decision.left_out.iter().map(|(_, count)| count).sum();
    let why: Vec<String> = decision.left_out.iter().map(|(why, count)| format!("{count} {}", why.words())).collect();
    (count > 0).then(|| format!("{count} of {} samples ({}), kept in the CSV", decision.samples, why.join(", ")))
}

/// `card`'s lines as text, each `label: value`, the labels aligned.
pub fn lines(card: Vec<(CardLine, Vec<Span>)>) -> Vec<Vec<Span>> {
    let label = |line: CardLine| Span::Text(format!("{:<LABEL$}", format!("{}:", line.word())));
    card.into_iter().map(|(line, value)| [vec![label(line)], value].concat()).collect()
}

/// The card's lines the short answer keeps: the pick, the channels passed over, and latency.
const SHORT_CARD: [CardLine; 3] = [CardLine::Use, CardLine::Passed, CardLine::Latency];

/// The decisions for the room, `for your room`: each its title and card, with the channels the
/// user follows against each pick (short: the card's [`SHORT_CARD`] lines); `None` without any.
pub fn section(analysis: &Analysis, form: Form) -> Option<Section> {
    let blocks = analysis.decisions.iter().flat_map(|decision| {
        let mut card = card(decision, &analysis.keep);
        card.retain(|(line, _)| form == Form::Full || SHORT_CARD.contains(line));
        [Block::Para(vec![Span::Strong(vec![Span::Text(title(decision))])]), Block::List(lines(card))]
    });
    let blocks: Vec<Block> = blocks.collect();
    let heading = Some("for your room".to_owned());
    (!blocks.is_empty()).then_some(Section { id: "decision", on: On::Everywhere, heading, blocks })
}

/// The decision for `summary --json`: the figures of the paragraph, and the paragraph.
pub fn json(decision: &Decision) -> Value {
    let pick = decision.pick.as_ref();
    let phases = |figure: fn(&PacedCell) -> Option<f64>| {
        json!({
            "out_of_phase": pick.and_then(|seat| seat.out_of_phase.as_ref()).and_then(figure),
            "in_phase": pick.and_then(|seat| seat.in_phase.as_ref()).and_then(figure),
        })
    };
    let everyday = pick.and_then(|seat| seat.out_of_phase.as_ref().or(seat.in_phase.as_ref()));
    json!({
        "participants": decision.participants,
        "runtime": decision.coord.runtime,
        "workers": decision.coord.workers,
        "mode": decision.coord.mode,
        "setting": decision.coord.setting.to_string(),
        "capacity": decision.coord.capacity.slots(),
        "capacity_per_task": matches!(decision.coord.capacity, Capacity::PerTask(_)),
        "pick": pick.map(|seat| seat.channel.to_string()),
        "weigh": decision.weighing,
        "p99_ns": phases(|cell| cell.latency.map(|latency| latency.p99 as f64)),
        "drop_share": phases(|cell| Some(cell.drop_share)),
        "capacity_for_no_drops": decision.capacity_for_no_drops().slots(),
        "core_share": everyday.and_then(|cell| cell.core_share),
        "offered_per_s": everyday.map(|cell| cell.offered_per_s),
        "left_out": decision.left_out.iter().map(|(why, count)| json!({ "why": why.words(), "samples": count })).collect::<Vec<_>>(),
        "tied": decision.tied.iter().map(|seat| seat.channel.to_string()).collect::<Vec<_>>(),
        "resamples": decision.resamples,
        "separated": SEPARATED,
        "closest": decision.closest.as_ref().map(|(channel, ahead)| json!({ "channel": channel.to_string(), "resamples": ahead })),
        "passed_over": decision.passed_over.iter().map(|(channel, ahead, count)| json!({ "channel": channel.to_string(), "ahead": ahead.to_string(), "resamples": count })).collect::<Vec<_>>(),
        "avoid": decision.avoid.iter().map(|(channel, reason)| json!({ "channel": channel.to_string(), "why": avoided(*reason)[1] })).collect::<Vec<_>>(),
        "card": lines(card(decision, &[])).iter().map(|card| line(card, Format::Text)).collect::<Vec<_>>(),
        "title": title(decision),
        "text": line(&explanation(decision), Format::Text),
    })
}

//! The decision for a room as every output words it: one paragraph for the console, the
//! summary, the HTML report and the README, and an object for `summary --json`. Formatting
//! only (`results::decision` computes).

use serde_json::{Value, json};

use super::format::{duration, number, thousands};
use super::summary::MARK;
use crate::results::decision::{Avoid, Decision, Seat};
use crate::results::paced::PacedCell;

/// `kanal†` for a channel whose crate has a known problem, the label alone otherwise.
fn marked(seat: &Seat) -> String {
    if seat.known_problem { format!("{}{MARK}", seat.channel) } else { seat.channel.clone() }
}

/// `5 packets every 20ms`: a participant's frames.
fn frames(decision: &Decision) -> String {
    let interval = humantime::format_duration(std::time::Duration::from_nanos(decision.interval_ns));
    format!("{} packets every {interval}", decision.burst)
}

fn percent(share: f64) -> String {
    format!("{}%", number(share * 100.0))
}

/// The paragraph, its sentences joined; `strong` sets the pick apart (Markdown `**` or none).
pub fn paragraph(decision: &Decision, strong: fn(&str) -> String) -> String {
    let n = decision.participants;
    let mut head = format!(
        "For {n} participants ({} {}, {}, capacity {}): ",
        decision.runtime,
        decision.mode,
        frames(decision),
        thousands(decision.capacity as f64)
    );
    let Some(pick) = &decision.pick else {
        head.push_str(
            "no channel with no known problem kept up with this load without a failure; see the tables below.",
        );
        return head;
    };
    let mut sentences = vec![format!("{head}use {}.", strong(&pick.channel))];
    let (out, inside) = (pick.out_of_phase.as_ref(), pick.in_phase.as_ref());
    let worst = inside.or(out);
    let when = if inside.is_some() { "with every participant in phase" } else { "out of phase" };
    let overflowed = worst.map_or(String::new(), |cell| format!(" {} of", percent(cell.overflow_share)));
    let among = match decision.fewest_drops_with {
        0 => "the fewest".to_owned(),
        k => format!("among the fewest ({} channels within the noise)", k + 1),
    };
    let cpu = out.or(inside).and_then(|cell| cell.cpu_ns_per_delivered);
    sentences.push(format!(
        "It has no known problem; {when} it overflowed{overflowed} frames, {among}; and of those it costs the least \
         CPU per message{}.",
        cpu.map_or(String::new(), |ns| format!(" ({})", duration(ns)))
    ));
    let p99 = |cell: Option<&PacedCell>| cell.and_then(|cell| cell.latency).map(|latency| duration(latency.p99 as f64));
    match (p99(out), p99(inside)) {
        (Some(out), Some(inside)) => {
            sentences.push(format!("Expect a p99 of {out} out of phase and {inside} in phase."))
        }
        (Some(p99), None) | (None, Some(p99)) => sentences.push(format!("Expect a p99 of {p99}.")),
        (None, None) => {}
    }
    if let Some(worst) = worst {
        let capacity = thousands(decision.capacity as f64);
        let holds = format!(
            "{} slots ({n} × {}) hold every participant's frame at once",
            thousands(decision.capacity_for_no_drops() as f64),
            decision.burst
        );
        let dropped = |cell: &PacedCell| {
            if cell.drop_share == 0.0 {
                "nothing".to_owned()
            } else {
                format!("{} of messages", percent(cell.drop_share))
            }
        };
        sentences.push(match (out, inside) {
            _ if worst.drop_share == 0.0 => format!("It dropped nothing at {capacity} slots; {holds}."),
            (Some(out), Some(inside)) => format!(
                "It dropped {} out of phase and {} in phase at {capacity} slots; {holds}.",
                dropped(out),
                dropped(inside)
            ),
            _ => format!("It dropped {} at {capacity} slots; {holds}.", dropped(worst)),
        });
    }
    if let Some(cell) = out.or(inside)
        && let Some(share) = cell.core_share
    {
        sentences.push(format!(
            "It costs {} of a core at {} msg/s ({n} × {}).",
            percent(share),
            thousands(cell.offered_per_s),
            frames(decision)
        ));
    }
    if decision.tied.len() + 1 == decision.ranked && decision.ranked > 2 {
        sentences.push(format!(
            "Every other channel ranked ({}) is within the noise of it on drops and CPU: choose among them on other \
             grounds, the known problems first.",
            decision.tied.len()
        ));
    } else if !decision.tied.is_empty() {
        let names: Vec<String> = decision.tied.iter().map(marked).collect();
        sentences.push(format!("Within the noise of it on drops and CPU: {}.", names.join(", ")));
    }
    let avoid = |why: Avoid| -> Vec<String> {
        decision.avoid.iter().filter(|(_, reason)| *reason == why).map(|(channel, _)| channel.clone()).collect()
    };
    let mut avoided = Vec::new();
    for (why, words, mark) in [
        (Avoid::KnownProblem, "known problems, below", MARK),
        (Avoid::PacerBehind, "pacer fell behind", ""),
        (Avoid::Failed, "a sample failed", ""),
    ] {
        let names = avoid(why);
        if !names.is_empty() {
            let names: Vec<String> = names.iter().map(|name| format!("{name}{mark}")).collect();
            avoided.push(format!("{} ({words})", names.join(", ")));
        }
    }
    if !avoided.is_empty() {
        sentences.push(format!("Avoid {}.", avoided.join("; ")));
    }
    let quiet_p99 = decision.quiet.as_ref().and_then(|(tasks, cell)| Some((*tasks, cell.latency?.p99 as f64)));
    let busy_p99 = out.and_then(|cell| cell.latency).map(|latency| latency.p99 as f64);
    if let (Some((tasks, quiet)), Some(busy)) = (quiet_p99, busy_p99) {
        let participants = if tasks == 1 { "1 participant".to_owned() } else { format!("{tasks} participants") };
        sentences.push(if quiet > busy {
            format!(
                "Latency falls as load rises: with {participants} the router parks between frames and every frame \
                 pays its wake-up (p99 {} here), while with {n} it is mostly still awake, busy with the frames \
                 before (p99 {}).",
                duration(quiet),
                duration(busy)
            )
        } else {
            format!("With {participants} the p99 was {}, against {} with {n}.", duration(quiet), duration(busy))
        });
    }
    sentences.push(format!(
        "Another machine's cores change wake-ups most: measure there with `channel-bench sfu --participants {n}` \
         (`--workers N` for the threads tokio gets)."
    ));
    sentences.join(" ")
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
    let why = |why: Avoid| match why {
        Avoid::KnownProblem => "known problem",
        Avoid::PacerBehind => "pacer fell behind",
        Avoid::Failed => "a sample failed",
    };
    json!({
        "participants": decision.participants,
        "runtime": decision.runtime,
        "workers": decision.workers,
        "mode": decision.mode,
        "setting": decision.setting,
        "capacity": decision.capacity,
        "pick": pick.map(|seat| seat.channel.clone()),
        "p99_ns": phases(|cell| cell.latency.map(|latency| latency.p99 as f64)),
        "drop_share": phases(|cell| Some(cell.drop_share)),
        "capacity_for_no_drops": decision.capacity_for_no_drops(),
        "core_share": everyday.and_then(|cell| cell.core_share),
        "offered_per_s": everyday.map(|cell| cell.offered_per_s),
        "tied": decision.tied.iter().map(|seat| seat.channel.clone()).collect::<Vec<_>>(),
        "avoid": decision.avoid.iter().map(|(channel, reason)| json!({ "channel": channel, "why": why(*reason) })).collect::<Vec<_>>(),
        "text": paragraph(decision, str::to_owned),
    })
}

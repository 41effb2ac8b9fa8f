//! Why the room's pick, as the page says it below the card: the figure weighed first, the rule
//! the pick is taken by, and what latency does as load rises; or, when the room is not resolved,
//! who is ahead of whom. Formatting only (`results::decision` computes).

use super::{figure, resamples, share, title, words};
use crate::output::doc::{Block, On, Section, Span};
use crate::output::format::{duration, percent};
use crate::results::analysis::Analysis;
use crate::results::decision::{Decision, SEPARATED, TIE_RULE, Weigh, Weighing};
use crate::results::paced::PacedCell;

/// Why each decision, on the page: its title and its explanation; `None` without any.
pub fn explanations(analysis: &Analysis) -> Option<Section> {
    let blocks = analysis.decisions.iter().flat_map(|decision| {
        let title = format!("Why the pick {}", title(decision).replacen("For ", "for ", 1));
        [Block::Para(vec![Span::Strong(vec![Span::Text(title)])]), Block::Para(explanation(decision))]
    });
    let blocks: Vec<Block> = blocks.collect();
    (!blocks.is_empty()).then_some(Section { id: "decision-why", on: On::Page, heading: None, blocks })
}

/// The explanation below the card: why the pick, the tie's rule in full, and what latency does
/// as load rises.
pub fn explanation(decision: &Decision) -> Vec<Span> {
    let Some(pick) = &decision.pick else { return unresolved(decision) };
    let (out, inside) = (pick.out_of_phase.as_ref(), pick.in_phase.as_ref());
    let n = decision.participants;
    let mut sentences = vec![first_figure(decision, (out, inside))];
    sentences.push(format!(
        "{} A channel within the noise of the pick in one run and a hair ahead in the next does not change it.",
        rule(decision)
    ));
    if let Some((channel, ahead)) = decision.closest.as_ref().filter(|(_, ahead)| *ahead > 0) {
        sentences.push(format!("The closest, {channel}, was ahead of the pick in {}.", share(*ahead, decision)));
    }
    let quiet_p99 = decision.quiet.as_ref().and_then(|(tasks, cell)| Some((*tasks, cell.latency?.p99 as f64)));
    let busy_p99 = out.and_then(|cell| cell.latency).map(|latency| latency.p99 as f64);
    if let (Some((tasks, quiet)), Some(busy)) = (quiet_p99, busy_p99) {
        let participants = if tasks == 1 { "1 participant".to_owned() } else { format!("{tasks} participants") };
        sentences.push(if quiet > busy {
            format!(
                "Latency falls as load rises: with {participants} the router parks between frames and every frame \
                 pays its wake-up (pooled p99 {} here), while with {n} it is mostly still awake (pooled p99 {}).",
                duration(quiet),
                duration(busy)
            )
        } else {
            format!("With {participants} the pooled p99 was {}, against {} with {n}.", duration(quiet), duration(busy))
        });
    }
    sentences.push("Another machine's cores change wake-ups most: measure there with ".to_owned());
    vec![
        Span::Text(sentences.join(" ")),
        Span::Code(format!("channel-bench sfu --participants {n}")),
        Span::text(" ("),
        Span::Code("--workers N".to_owned()),
        Span::text(" for the threads tokio gets)."),
    ]
}

/// The explanation's first sentence: the pick's figure the decision weighed first, and how many
/// channels were as good on it within the noise: `The pick has no known problem; with every
/// participant in phase it overflowed 0.00% of frames, the fewest.`
fn first_figure(decision: &Decision, (out, inside): (Option<&PacedCell>, Option<&PacedCell>)) -> String {
    let (worst, everyday) = (inside.or(out), out.or(inside));
    let in_phase = if inside.is_some() { "with every participant in phase" } else { "out of phase" };
    let out_of_phase = if out.is_some() { "out of phase" } else { "with every participant in phase" };
    let among = |best: &str| match decision.best_with {
        0 => format!("the {best}"),
        k => format!("among the {best} ({} channels within the noise)", k + 1),
    };
    let said = match decision.weighing.first() {
        Weigh::Drops => {
            let share = worst.map_or("-".to_owned(), |cell| percent(cell.overflow_share));
            format!("{in_phase} it overflowed {share} of frames, {}", among("fewest"))
        }
        Weigh::Cpu => {
            let cpu = everyday.and_then(|cell| cell.cpu_ns_per_delivered).map_or("-".to_owned(), duration);
            format!("{out_of_phase} it took {cpu} of CPU per delivered message, {}", among("least"))
        }
        Weigh::P99 => {
            let p99 = worst.and_then(|cell| cell.latency).map_or("-".to_owned(), |l| duration(l.p99 as f64));
            format!("{in_phase} its pooled p99 was {p99}, {}", among("lowest"))
        }
    };
    format!("The pick has no known problem; {said}.")
}

/// What passing a channel over takes on the figures of `weighing`, in order: `fewer frames
/// overflowed in phase, or as few and less CPU per message out of phase`.
fn beyond(weighing: &Weighing) -> String {
    let better = |weigh: Weigh| format!("{} {}", words(weigh)[3], figure(weigh));
    let order = weighing.order();
    let then = order.windows(2).map(|pair| format!(", or {} and {}", words(pair[0])[4], better(pair[1])));
    better(order[0]) + &then.collect::<String>()
}

/// The rule in two sentences: the order channels are taken in, and what passes one over.
fn rule(decision: &Decision) -> String {
    let (beyond, separated, resamples) = (beyond(&decision.weighing), percent(SEPARATED), resamples(decision));
    format!(
        "Channels are taken in an order no measurement can flip: {TIE_RULE}. The pick is the first with no known \
         problem that no other is ahead of beyond the noise ({beyond}) in {separated} of {resamples} resamples of the \
         run's rounds (drawn with replacement from a fixed seed, each round's channels together, as they met the host)."
    )
}

/// The explanation of a room not resolved: who is ahead of whom, and what would resolve it.
fn unresolved(decision: &Decision) -> Vec<Span> {
    if decision.passed_over.is_empty() {
        return Vec::new();
    }
    let circle: Vec<String> = decision
        .passed_over
        .iter()
        .map(|(channel, ahead, count)| format!("{ahead} ahead of {channel} in {}", share(*count, decision)))
        .collect();
    let mut channels: Vec<&str> = decision.passed_over.iter().map(|(channel, _, _)| channel.name.as_str()).collect();
    channels.truncate(3);
    let text = format!(
        "{} Here each channel with no known problem is so behind another ({}), a circle no pick stands on. A longer \
         run (",
        rule(decision),
        circle.join(", ")
    );
    vec![
        Span::Text(text),
        Span::Code("--max-time N".to_owned()),
        Span::text(") or these channels alone ("),
        Span::Code(format!("--channels {}", channels.join(","))),
        Span::text(") narrows it."),
    ]
}

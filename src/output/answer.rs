//! The answer as JSON, for dashboards and scripts (`channel-bench summary --json`): per band the
//! leader, the runner-up and every other contender with its verdict against the leader, and the
//! careful pick; per paced band the same for each of its figures; the decision for the room
//! (`output::decision`). Formatting only: every
//! verdict is the one `results::recommend` and `results::paced` computed, as every other
//! output shows it.

use serde_json::{Value, json};

use super::summary::tasks_text;
use crate::results::analysis::Analysis;
use crate::results::careful::Careful;
use crate::results::paced::{PacedBand, PacedRanking};
use crate::results::recommend::{Entry, Ranking};
use crate::stats::verdict::{Call, Verdict};

/// `"tied"` or `"separated"`: what a verdict says of two channels.
fn word(verdict: &Verdict) -> &'static str {
    if verdict.call == Call::Tied { "tied" } else { "separated" }
}

/// A channel against the leader: its name, figure, ratio (or points) with its interval and
/// the verdict; `ratio` and `interval` are null where the two had no verdict.
fn against(channel: String, value: Option<f64>, verdict: Option<&Verdict>, is_ratio: bool) -> Value {
    let scale = |x: f64| if is_ratio { x.exp() } else { x };
    let (key, unit) = if is_ratio { ("ratio", Value::Null) } else { ("points", json!("points")) };
    let mut object = json!({
        "channel": channel,
        "value": value,
        key: verdict.map(|v| scale(v.mean)),
        "interval": verdict.map(|v| [scale(v.low), scale(v.high)]),
        "verdict": verdict.map_or("none", word),
    });
    if !unit.is_null() {
        object["unit"] = unit;
    }
    object
}

/// One ranking: its leader, runner-up and the other contenders.
fn ranking(ranking: &Ranking) -> Value {
    let entry = |entry: &Entry| against(entry.label(), Some(entry.value), entry.verdict.as_ref(), true);
    json!({
        "leader": ranking.first().map(|first| json!({ "channel": first.label(), "value": first.value })),
        "runner_up": ranking.runner_up().map(entry),
        "contenders": ranking.entries.iter().skip(2).map(entry).collect::<Vec<_>>(),
    })
}

/// One paced ranking, in the same shape.
fn paced_ranking(
    band: &PacedBand,
    ranking: &PacedRanking,
    value: fn(&crate::results::paced::PacedEntry) -> Option<f64>,
    is_ratio: bool,
) -> Value {
    let entry = |at: usize| {
        let entry = &band.entries[ranking.order[at]];
        against(entry.channel_label(), value(entry), ranking.verdicts[at].as_ref(), is_ratio)
    };
    json!({
        "leader": ranking.order.first().map(|&first| json!({
            "channel": band.entries[first].channel_label(),
            "value": value(&band.entries[first]),
        })),
        "runner_up": (ranking.order.len() > 1).then(|| entry(1)),
        "contenders": (2..ranking.order.len()).map(entry).collect::<Vec<_>>(),
    })
}

/// The whole answer of `analysis` (of the CSV named `csv_name`), pretty-printed.
pub fn json(csv_name: &str, analysis: &Analysis) -> String {
    let throughput: Vec<Value> = analysis
        .bands
        .iter()
        .map(|band| {
            let careful = match band.careful() {
                Careful::Same => json!("same"),
                Careful::Behind { entry, .. } => {
                    against(entry.label(), Some(entry.value), entry.verdict.as_ref(), true)
                }
                Careful::NoneRanked => Value::Null,
            };
            let mut object = json!({
                "runtime": band.runtime,
                "mode": band.mode,
                "workers": band.workers,
                "setting": band.setting,
                "band": band.size.name(),
                "tasks": band.tasks,
                "unit": "ns/message",
                "careful": careful,
            });
            merge(&mut object, ranking(&band.speed));
            object
        })
        .collect();
    let latency: Vec<Value> = analysis
        .paced
        .iter()
        .map(|band| {
            json!({
                "runtime": band.runtime,
                "mode": band.mode,
                "workers": band.workers,
                "setting": band.setting,
                "band": band.size.name(),
                "tasks": band.tasks,
                "tasks_text": tasks_text(&band.tasks),
                "p99": paced_ranking(band, &band.p99, |e| e.p99_ns, true),
                "cpu": paced_ranking(band, &band.cpu, |e| e.cpu_ns, true),
                "overflow": paced_ranking(band, &band.overflow, |e| Some(e.overflow_share * 100.0), false),
            })
        })
        .collect();
    let noise = super::pool::noise_line(analysis.runs);
    let mut answer = json!({ "csv": csv_name, "verdicts": noise, "bands": throughput, "paced": latency });
    let decisions = &analysis.decisions;
    // The room's decision: the file's first group's; any other group's beside it.
    answer["decision"] = decisions.first().map_or(Value::Null, super::decision::json);
    if decisions.len() > 1 {
        answer["other_decisions"] = decisions[1..].iter().map(super::decision::json).collect();
    }
    serde_json::to_string_pretty(&answer).expect("a JSON value serializes") + "\n"
}

/// `extra`'s fields added to `object`.
fn merge(object: &mut Value, extra: Value) {
    if let (Value::Object(object), Value::Object(extra)) = (object, extra) {
        object.extend(extra);
    }
}

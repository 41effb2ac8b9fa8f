//! The answer as JSON, for dashboards and scripts (`channel-bench summary --json`): per band the
//! leader, the runner-up and every other contender with its verdict against the leader (a channel
//! the user follows marked `kept`), the careful pick, and with a memory sidecar what the pick
//! keeps beside the channel that keeps least; per paced band the same for each of its figures; the decision for the room
//! (`output::decision`). Formatting only: every
//! verdict is the one `results::recommend` and `results::paced` computed, as every other
//! output shows it.

use serde_json::{Value, json};

use super::summary::tasks_text;
use crate::results::across::{Across, Axis};
use crate::results::analysis::Analysis;
use crate::results::band::Band;
use crate::results::careful::Careful;
use crate::results::memory::BandMemory;
use crate::results::recommend::{Entry, Ranking, Shape};
use crate::stats::verdict::{Call, Verdict};

/// A channel against the leader: its name, figure (`value`), ratio (or points) with its interval
/// and the verdict (`tied` or `separated`); `ratio` and `interval` are null where the two had none.
fn against<E>(entry: &Entry<E>, value: f64, is_ratio: bool) -> Value {
    let scale = |x: f64| if is_ratio { x.exp() } else { x };
    let verdict = entry.verdict.as_ref();
    let mut object = json!({
        "channel": entry.label(),
        "value": value,
        if is_ratio { "ratio" } else { "points" }: verdict.map(|v| scale(v.mean)),
        "interval": verdict.map(|v| [scale(v.low), scale(v.high)]),
        "verdict": verdict.map_or("none", |v| if v.call == Call::Tied { "tied" } else { "separated" }),
    });
    if !is_ratio {
        object["unit"] = json!("points");
    }
    object
}

/// One ranking: its leader, runner-up and the other contenders; verdicts in ratios, or in
/// points with the figures in percent (frames overflowed).
fn ranking<E>(ranking: &Ranking<E>, is_ratio: bool, marks: &[Mark<E>]) -> Value {
    let value = |entry: &Entry<E>| if is_ratio { entry.value } else { entry.value * 100.0 };
    let marked = |mut object: Value, entry: &Entry<E>| {
        marks.iter().filter(|(_, holds)| holds(entry)).for_each(|(field, _)| object[*field] = json!(true));
        object
    };
    let entry = |entry: &Entry<E>| marked(against(entry, value(entry), is_ratio), entry);
    json!({
        "leader": ranking.first().map(|first| marked(json!({ "channel": first.label(), "value": value(first) }), first)),
        "runner_up": ranking.runner_up().map(entry),
        "contenders": ranking.entries.iter().skip(2).map(entry).collect::<Vec<_>>(),
    })
}

/// A mark on a ranking's channels in the JSON: `"FIELD": true` on each entry it holds for:
/// `bounded` on a figure measured on the messages taken by its bound
/// (`results::recommend::Shape::bounded`), `kept` on a channel the user follows (`--keep`).
type Mark<'a, E> = (&'static str, &'a dyn Fn(&Entry<E>) -> bool);

/// The whole answer of `analysis` (of the CSV named `csv_name`), pretty-printed.
pub fn json(csv_name: &str, analysis: &Analysis) -> String {
    let with_memory = analysis.bands.iter().any(|band| band.memory != BandMemory::default());
    let throughput = analysis.bands.iter().map(|band| {
        let careful = match &band.careful {
            Careful::Same => json!("same"),
            Careful::Behind { entry, .. } => against(entry, entry.value, true),
            Careful::NoneRanked => Value::Null,
        };
        let marks: [Mark<Shape>; 2] =
            [("bounded", &|entry| entry.figures.bounded), ("kept", &|entry| analysis.keep.contains(&entry.channel))];
        let mut object = band_json(&band.band, ranking(&band.speed, true, &marks));
        (object["unit"], object["careful"]) = (json!("ns/message"), careful);
        if with_memory {
            object["memory"] = json!(band.memory);
        }
        object
    });
    let latency = analysis.paced.iter().map(|band| {
        let rankings = json!({
            "tasks_text": tasks_text(&band.band.tasks),
            "p99": ranking(&band.p99, true, &[]),
            "cpu": ranking(&band.cpu, true, &[]),
            "overflow": ranking(&band.overflow, false, &[]),
        });
        band_json(&band.band, rankings)
    });
    let noise = super::pool::noise_line(analysis.runs);
    let mut answer = json!({
        "csv": csv_name,
        "verdicts": noise,
        "host_noise": analysis.host,
        "bands": throughput.collect::<Vec<_>>(),
        "paced": latency.collect::<Vec<_>>(),
    });
    for axis in Axis::ALL {
        let found = across(analysis.across.on(axis));
        if axis.words().always_in_json || !found.is_empty() {
            answer[axis.words().json_key] = found.into();
        }
    }
    let decisions = &analysis.decisions;
    // The room's decision: the file's first group's; any other group's beside it.
    answer["decision"] = decisions.first().map_or(Value::Null, super::decision::json);
    if decisions.len() > 1 {
        answer["other_decisions"] = decisions[1..].iter().map(super::decision::json).collect();
    }
    super::export::json(&answer)
}

/// Each band `found` at several places on its axis (`results::across`: capacities, machines,
/// batches or kinds of message): each place's pick, the pick that holds, and where the pick
/// changes with its verdict; the band's workers and capacity where the axis keeps them.
fn across(found: &[Across]) -> Vec<Value> {
    let verdict =
        |verdict: &Verdict| json!({ "ratio": verdict.mean.exp(), "interval": [verdict.low.exp(), verdict.high.exp()] });
    let one = |band: &Across| {
        let words = band.axis.words();
        let mut object = json!({
            "runtime": band.band.coord.runtime,
            "mode": band.band.coord.mode,
            "workers": if words.keeps_workers { workers(&band.band) } else { Value::Null },
            "setting": band.setting().to_string(),
            "band": band.band.size.name(),
            "picks": band.picks.iter().map(|(at, pick)| json!({ words.place_key: at, "channel": pick })).collect::<Vec<_>>(),
            "holds": band.holds.as_ref().map(|holds| json!({
                "channel": holds.channel,
                "worst_at": holds.worst_at,
                "worst": holds.worst.as_ref().map(verdict),
                "within_noise_everywhere": holds.within_noise_everywhere,
            })),
            "changes": band.changes.iter().map(|change| json!({
                "at": change.at,
                "pick": change.pick.label(),
                "other": change.other.label(),
                "behind": verdict(&change.verdict),
            })).collect::<Vec<_>>(),
        });
        if words.keeps_capacity {
            object["capacity"] = json!(band.band.named_capacity());
        }
        object
    };
    found.iter().map(one).collect()
}

/// The threads running a band's tasks, as the JSON gives them: the count, or `"unknown"` for
/// a file without the `workers` column.
fn workers(band: &Band) -> Value {
    if band.coord.workers == 0 { json!("unknown") } else { json!(band.coord.workers) }
}

/// Which band an object is about (its runtime, mode, workers, capacity, setting, band and
/// tasks), with the fields of `about` (an object) beside.
fn band_json(band: &Band, about: Value) -> Value {
    let mut object = json!({
        "runtime": band.coord.runtime,
        "mode": band.coord.mode,
        "workers": workers(band),
        "capacity": band.coord.capacity,
        "setting": band.coord.setting.to_string(),
        "band": band.size.name(),
        "tasks": band.tasks,
    });
    if let Some(machine) = band.machine() {
        object["machine"] = json!(machine);
    }
    if let (Value::Object(object), Value::Object(about)) = (&mut object, about) {
        object.extend(about);
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::doc::Format;
    use crate::results::load::{CellKey, ResultsFile, hand_made};
    use crate::results::memory::MemoryRow;
    use crate::results::schema::SampleStatus;
    use crate::run::workload::{Capacity, Mode, RecordBytes};

    /// A sweep of kanal, flume and tokio-mpsc at 1, 8 and 64 tasks and 1,024 slots (kanal fastest
    /// in the small band, flume in the medium), with a memory row per cell when `memory`.
    fn sweep(memory: bool) -> ResultsFile {
        let steady = |value: f64| [value, value * 1.01, value * 0.99, value, value * 1.02, value * 0.98];
        let (ten, twenty, thirty) = (steady(10.0), steady(20.0), steady(30.0));
        let file = hand_made(&[
            ("kanal", 1, &ten, 0),
            ("flume", 1, &twenty, 0),
            ("tokio-mpsc", 1, &thirty, 0),
            ("kanal", 8, &ten, 0),
            ("flume", 8, &twenty, 0),
            ("tokio-mpsc", 8, &thirty, 0),
            ("kanal", 64, &twenty, 0),
            ("flume", 64, &ten, 0),
            ("tokio-mpsc", 64, &thirty, 0),
        ]);
        let at = |key: &CellKey| {
            let mut key = key.clone();
            key.coord.capacity = Capacity::Shared(1024);
            key
        };
        let row = |(channel, tasks, kept): (&str, usize, i64)| MemoryRow {
            channel: channel.to_owned(),
            version: "1.0.0".to_owned(),
            mode: Mode::ClonedSend,
            tasks,
            capacity: 1024,
            capacity_per_channel: 1024,
            channels: 1,
            record_bytes: RecordBytes::Shared,
            slot_bytes: 48,
            rest_bytes: kept,
            peak_bytes: 2 * kept,
            drained_bytes: kept,
            kept_bytes: kept,
            after_drop_bytes: 0,
            status: SampleStatus::Ok,
        };
        let kept = [
            ("kanal", 1, 49_152),
            ("kanal", 8, 49_152),
            ("kanal", 64, 49_152),
            ("flume", 1, 100),
            ("flume", 8, 200),
            ("flume", 64, 50_000),
            ("tokio-mpsc", 1, 3000),
            ("tokio-mpsc", 8, 3000),
            ("tokio-mpsc", 64, 3000),
        ];
        ResultsFile {
            order: file.order.iter().map(at).collect(),
            cells: file.cells.iter().map(|(key, cell)| (at(key), cell.clone())).collect(),
            memory: if memory { kept.into_iter().map(row).collect() } else { Vec::new() },
            ..ResultsFile::default()
        }
    }

    #[test]
    fn each_band_names_what_its_pick_keeps_beside_the_channel_that_keeps_least() {
        let analysis = Analysis::of("x.csv", &sweep(true), None);
        let answer: Value = serde_json::from_str(&json("x.csv", &analysis)).unwrap();
        let bands = answer["bands"].as_array().unwrap();
        assert_eq!(bands.len(), 2);
        let small = &bands[0]["memory"];
        assert_eq!((bands[0]["band"].as_str(), bands[0]["leader"]["channel"].as_str()), (Some("small"), Some("kanal")));
        assert_eq!(
            small["pick"],
            json!({ "channel": "kanal", "kept_bytes": [49_152, 49_152], "kept_bytes_per_slot": [48.0, 48.0] })
        );
        // flume keeps 300 bytes over 1 and 8 tasks, tokio-mpsc 6,000, kanal 98,304.
        assert_eq!(small["least"]["channel"], "flume");
        assert_eq!(small["least"]["kept_bytes"], json!([100, 200]));
        let medium = &bands[1]["memory"];
        assert_eq!(
            (medium["pick"]["channel"].as_str(), medium["pick"]["kept_bytes"].clone()),
            (Some("flume"), json!([50_000]))
        );
        assert_eq!(
            (medium["least"]["channel"].as_str(), medium["least"]["kept_bytes"].clone()),
            (Some("tokio-mpsc"), json!([3000]))
        );
        let text = super::super::memory::section("x.csv", &analysis).unwrap().render(super::super::doc::Format::Text);
        assert!(text.contains("From `x.memory.csv`"), "{text}");
        assert!(text.contains("small (1-8): the pick kanal† keeps 48.0 KiB at 1 task, 48.0 KiB at 8 tasks"), "{text}");
        assert!(text.contains("least: flume keeps 100 B at 1 task, 200 B at 8 tasks"), "{text}");
        assert!(
            text.contains("medium (64): the pick flume keeps 48.8 KiB at 64 tasks (48.8 B a slot); least: tokio-mpsc"),
            "{text}"
        );

        let without = Analysis::of("x.csv", &sweep(false), None);
        assert!(!json("x.csv", &without).contains("\"memory\""), "no memory sidecar, no memory field");
        assert!(super::super::memory::section("x.csv", &without).is_none());
    }

    /// kanal and flume at 1 and 8 tasks at two places on `axis`, kanal twice as fast at the
    /// first place and flume at the second.
    fn two_places(axis: Axis) -> ResultsFile {
        let steady = |value: f64| [value, value * 1.01, value * 0.99, value, value * 1.02, value * 0.98];
        let (fast, slow) = (steady(10.0), steady(20.0));
        let mut file = ResultsFile::default();
        for (place, (kanal, flume)) in [(&fast, &slow), (&slow, &fast)].into_iter().enumerate() {
            let one = hand_made(&[
                ("kanal", 1, kanal, 0),
                ("flume", 1, flume, 0),
                ("kanal", 8, kanal, 0),
                ("flume", 8, flume, 0),
            ]);
            for key in one.order {
                let mut moved = key.clone();
                crate::results::across::two_places(axis, &mut moved.coord, place);
                file.cells.insert(moved.clone(), one.cells[&key].clone());
                file.order.push(moved);
            }
        }
        file
    }

    #[test]
    fn every_axis_enters_the_json_the_console_and_the_page_by_its_words() {
        for axis in Axis::ALL {
            let words = axis.words();
            let analysis = Analysis::of("x.csv", &two_places(axis), None);
            let answer: Value = serde_json::from_str(&json("x.csv", &analysis)).unwrap();
            let found = answer[words.json_key].as_array().unwrap_or_else(|| panic!("{axis:?}: {answer}"));
            assert_eq!(found.len(), 1, "{axis:?}: one band at two places: {answer}");
            let picks: Vec<(&Value, &str)> = found[0]["picks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|pick| (&pick[words.place_key], pick["channel"].as_str().unwrap()))
                .collect();
            assert!(picks.iter().all(|(at, _)| !at.is_null()), "{axis:?}: {answer}");
            assert_eq!(picks.iter().map(|(_, channel)| *channel).collect::<Vec<_>>(), ["kanal", "flume"]);
            assert_eq!(found[0]["workers"].is_null(), !words.keeps_workers, "{axis:?}: {answer}");
            assert_eq!(found[0].get("capacity").is_some(), words.keeps_capacity, "{axis:?}: {answer}");
            for other in Axis::ALL.into_iter().filter(|other| *other != axis) {
                let key = other.words().json_key;
                let none = if other.words().always_in_json { json!([]) } else { Value::Null };
                assert_eq!(answer[key], none, "{axis:?}: nothing across {other:?}: {answer}");
            }
            let document = super::super::document::of("x.csv", &analysis, super::super::doc::Form::Full);
            let (console, page) = (document.render(Format::Text), document.render(Format::Markdown));
            let changes = format!("The pick changes with {}", words.what);
            assert!(console.contains(&changes), "{axis:?}: {console}");
            assert!(page.contains(&format!("Where {} matters", words.what)), "{axis:?}: {page}");
            assert!(page.contains(&format!("the pick changes with {}", words.what)), "{axis:?}: {page}");
        }
    }
}

use super::*;
use crate::results::load::{PacedSample, hand_made_key};
use crate::results::setting::{Setting, room_setting};
use crate::run::latency::{empty_histogram, encode};

/// The decisions of `file` with its own noise.
fn decide(file: &ResultsFile, participants: u64) -> Vec<Decision> {
    super::decide(file, &FileNoise::of(file), participants)
}

/// Four rounds of a cell, the host moving every channel of a round alike: `overflowed` of 100
/// frames, `cpu` ns per delivered message, every latency `latency` ns.
fn rounds(overflowed: u64, cpu: u64, latency: u64) -> Vec<PacedSample> {
    [1.0, 1.1, 0.95, 1.05]
        .iter()
        .enumerate()
        .map(|(at, host)| {
            let mut histogram = empty_histogram();
            histogram.record_n(latency, 500).unwrap();
            PacedSample {
                pace_ns: 20_000_000,
                burst: 5,
                sent: 500,
                dropped: overflowed,
                frames: 100,
                frames_overflowed: overflowed,
                cpu_ns: Some(((500 - overflowed) as f64 * cpu as f64 * host) as u64),
                lat_histogram: encode(&histogram),
                p99_ns: Some(latency),
                round: Some(at as u64 + 1),
                ..PacedSample::default()
            }
        })
        .collect()
}

/// A room of `tasks` participants: (channel, in phase (overflowed, cpu), out of phase cpu).
fn room(tasks: u64, channels: &[(&str, (u64, u64), u64)]) -> ResultsFile {
    let mut file = ResultsFile::default();
    for &(channel, (overflowed, cpu_in), cpu_out) in channels {
        for (setting, paced) in [
            (room_setting(Phase::Random), rounds(0, cpu_out, 2_000)),
            (room_setting(Phase::Aligned), rounds(overflowed, cpu_in, 90_000)),
        ] {
            let mut key = hand_made_key(channel, tasks, setting.clone());
            key.workload.capacity = crate::run::workload::Capacity::Shared(1024);
            file.order.push(key.clone());
            let ok = vec![20_000.0; paced.len()];
            file.cells.insert(key, CellSamples { ok, paced, ..CellSamples::default() });
        }
    }
    file
}

#[test]
fn the_pick_has_no_known_problem_then_the_fewest_drops_in_phase_then_the_lowest_cpu() {
    let file = room(
        300,
        &[
            // Marked: fewest drops and least CPU, never the pick.
            ("kanal", (0, 500), 500),
            // Least CPU of the clean ones, but 30 of 100 frames overflow in phase.
            ("thingbuf-less", (30, 900), 600),
            // Tied on drops; flume's CPU is lower beyond the noise.
            ("flume", (2, 1000), 1000),
            ("tokio-mpsc", (2, 1000), 2000),
        ],
    );
    let decisions = decide(&file, 300);
    assert_eq!(decisions.len(), 1, "one room: the two phases are one decision");
    let decision = &decisions[0];
    let pick = decision.pick.as_ref().unwrap();
    assert_eq!(pick.channel, "flume");
    assert_eq!(decision.fewest_drops_with, 1, "tokio-mpsc overflowed as few frames");
    assert_eq!(pick.in_phase.as_ref().unwrap().overflow_share, 0.02);
    assert_eq!(pick.out_of_phase.as_ref().unwrap().latency.unwrap().p99, decision_p99(2_000));
    assert_eq!(decision.avoid, [("kanal".to_owned(), Avoid::KnownProblem)]);
    assert!(decision.tied.is_empty(), "CPU 1 µs against 2 µs, drops 2% against 0% and 30%: {:?}", decision.tied);
    assert_eq!(decision.capacity, crate::run::workload::Capacity::Shared(1024));
    assert_eq!(decision.capacity_for_no_drops(), crate::run::workload::Capacity::Shared(1500));
    assert_eq!(decision.setting, room_setting(Phase::Random));
    assert!(decision.quiet.is_none(), "no smaller room measured");
}

/// The p99 an HDR histogram reports for a value recorded alone.
fn decision_p99(latency: u64) -> u64 {
    let mut histogram = empty_histogram();
    histogram.record(latency).unwrap();
    histogram.value_at_quantile(0.99)
}

#[test]
fn channels_within_the_noise_are_tied_and_a_pacer_behind_or_a_failure_is_avoided() {
    let mut file =
        room(64, &[("flume", (0, 1000), 1000), ("async-channel", (0, 1010), 1010), ("tokio-mpsc", (0, 900), 900)]);
    let mut quiet = room(1, &[("flume", (0, 3000), 3000)]);
    for key in quiet.order.drain(..) {
        file.cells.insert(key.clone(), quiet.cells.remove(&key).unwrap());
        file.order.push(key);
    }
    let behind = file.order.iter().find(|key| key.channel == "tokio-mpsc" && key.tasks == 64).unwrap().clone();
    // Its pacer fell behind in most of its samples (one alone would be the host's moment).
    file.cells.get_mut(&behind).unwrap().paced.iter_mut().take(3).for_each(|sample| sample.pacer_behind = true);
    let decision = &decide(&file, 64)[0];
    assert_eq!(decision.pick.as_ref().unwrap().channel, "flume");
    let tied: Vec<&str> = decision.tied.iter().map(|seat| seat.channel.as_str()).collect();
    assert_eq!(tied, ["async-channel"]);
    assert_eq!(decision.avoid, [("tokio-mpsc".to_owned(), Avoid::PacerBehind)]);
    let (tasks, cell) = decision.quiet.as_ref().unwrap();
    assert_eq!(*tasks, 1);
    // 3 µs per message in rounds the host slowed by 1.025 on average.
    assert_eq!(cell.cpu_ns_per_delivered.map(f64::round), Some(3075.0));

    let failed = file.order.iter().find(|key| key.channel == "flume" && key.tasks == 64).unwrap().clone();
    file.cells.get_mut(&failed).unwrap().failed = 1;
    let decision = &decide(&file, 64)[0];
    assert_eq!(decision.pick.as_ref().unwrap().channel, "async-channel");
    assert!(decision.avoid.contains(&("flume".to_owned(), Avoid::Failed)), "{:?}", decision.avoid);
}

#[test]
fn the_default_room_is_the_largest_paced_task_count() {
    let file = room(300, &[("flume", (0, 1000), 1000)]);
    assert_eq!(default_room(&file), Some(300));
    assert!(decide(&file, 64).is_empty());
    assert_eq!(default_room(&ResultsFile::default()), None);
}

#[test]
fn a_tie_is_broken_by_the_stated_rule_and_no_measurement() {
    // flume measured a little lower, within the noise of tokio-mpsc and async-channel: the pick
    // is tokio-mpsc, by the rule, whichever of the three the noise put first.
    for (flume, tokio) in [(1000, 1010), (1010, 1000)] {
        let file = room(
            300,
            &[("async-channel", (0, 1005), 1005), ("flume", (0, flume), flume), ("tokio-mpsc", (0, tokio), tokio)],
        );
        let decision = &decide(&file, 300)[0];
        assert_eq!(decision.pick.as_ref().unwrap().channel, "tokio-mpsc", "{flume} against {tokio}");
        let mut tied: Vec<&str> = decision.tied.iter().map(|seat| seat.channel.as_str()).collect();
        tied.sort_unstable();
        assert_eq!(tied, ["async-channel", "flume"]);
    }
    // Without tokio-mpsc in the tie, the first of the tie in the table's order.
    let file = room(300, &[("async-channel", (0, 1000), 1000), ("flume", (0, 1010), 1010)]);
    assert_eq!(decide(&file, 300)[0].pick.as_ref().unwrap().channel, "flume");
    // A channel separated from the rest still wins on its measurement.
    let file = room(300, &[("flume", (0, 500), 500), ("tokio-mpsc", (0, 1000), 1000)]);
    assert_eq!(decide(&file, 300)[0].pick.as_ref().unwrap().channel, "flume");
}

#[test]
fn a_cell_whose_every_sample_was_disturbed_is_avoided_and_every_left_out_sample_counted() {
    let mut file = room(300, &[("flume", (2, 1000), 1000), ("tokio-mpsc", (2, 1000), 2000)]);
    let cell = |file: &ResultsFile, channel: &str, setting: Setting| {
        let key = file.order.iter().find(|key| key.channel == channel && key.setting == setting).unwrap().clone();
        file.cells[&key].clone()
    };
    // flume's in-phase cell: every sample had a steal tick; tokio-mpsc's out of phase: one
    // sample's pacer was late.
    let mut flume = cell(&file, "flume", room_setting(Phase::Aligned));
    flume.disturbed_why = vec![Why::Steal; flume.paced.len()];
    flume.disturbed = std::mem::take(&mut flume.ok);
    flume.paced.clear();
    let mut tokio = cell(&file, "tokio-mpsc", room_setting(Phase::Random));
    tokio.paced.pop();
    tokio.disturbed_why.push(Why::PacerLate);
    tokio.disturbed.push(tokio.ok.pop().unwrap());
    for (channel, setting, samples) in
        [("flume", room_setting(Phase::Aligned), flume), ("tokio-mpsc", room_setting(Phase::Random), tokio)]
    {
        let key = file.order.iter().find(|key| key.channel == channel && key.setting == setting).unwrap().clone();
        file.cells.insert(key, samples);
    }
    let decision = &decide(&file, 300)[0];
    assert_eq!(decision.avoid, [("flume".to_owned(), Avoid::Disturbed)]);
    assert_eq!(decision.pick.as_ref().unwrap().channel, "tokio-mpsc");
    assert_eq!(decision.pick.as_ref().unwrap().out_of_phase.as_ref().unwrap().ranges.p99_ns.unwrap().samples, 3);
    assert_eq!(decision.left_out, [(Why::Steal, 4), (Why::PacerLate, 1)]);
    assert_eq!(decision.samples, 16);
}

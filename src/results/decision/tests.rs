use super::*;
use crate::results::load::{PacedSample, hand_made_key};
use crate::results::setting::{Setting, room_setting};
use crate::run::latency::empty_histogram;

/// The cloned-send channel `name`.
fn id(name: &str) -> ChannelId {
    ChannelId::of((name, None))
}

/// The decisions of `file` with its own noise, on the default order.
fn decide(file: &ResultsFile, participants: u64) -> Vec<Decision> {
    weighed(file, participants, &Weighing::default())
}

/// The decisions of `file` with its own noise, on the figures of `weighing`.
fn weighed(file: &ResultsFile, participants: u64, weighing: &Weighing) -> Vec<Decision> {
    super::decide((file, &crate::results::figures::Table::of(file)), &FileNoise::of(file), participants, weighing)
}

/// Four rounds of a cell, the host moving every channel of a round alike: `overflowed` of 100
/// frames, `cpu` ns per delivered message, every latency `latency` ns.
fn rounds(overflowed: u64, cpu: u64, latency: u64) -> Vec<PacedSample> {
    let cpu: Vec<f64> = [1.0, 1.1, 0.95, 1.05].iter().map(|host| cpu as f64 * host).collect();
    samples(overflowed, &cpu, latency)
}

/// A cell's samples, one a round: `overflowed` of 100 frames, `cpu[round]` ns per delivered
/// message, every latency `latency` ns.
fn samples(overflowed: u64, cpu: &[f64], latency: u64) -> Vec<PacedSample> {
    let mut histogram = empty_histogram();
    histogram.record_n(latency, 500).unwrap();
    cpu.iter()
        .enumerate()
        .map(|(at, cpu)| PacedSample {
            pace_ns: 20_000_000,
            burst: 5,
            sent: 500,
            dropped: overflowed,
            frames: 100,
            frames_overflowed: overflowed,
            cpu_ns: Some(((500 - overflowed) as f64 * cpu) as u64),
            lat_histogram: Some(histogram.clone().into()),
            p99_ns: Some(latency),
            round: Some(at as u64 + 1),
            ..PacedSample::default()
        })
        .collect()
}

/// A room of `tasks` participants: (channel, in phase (overflowed, cpu), out of phase cpu).
fn room(tasks: u64, channels: &[(&str, (u64, u64), u64)]) -> ResultsFile {
    let mut file = ResultsFile::default();
    for &(channel, (overflowed, cpu_in), cpu_out) in channels {
        add(&mut file, channel, tasks, rounds(0, cpu_out, 2_000), rounds(overflowed, cpu_in, 90_000));
    }
    file.pool_latencies();
    file
}

/// Adds `channel`'s cells of `tasks` participants to `file`: out of phase and in phase.
fn add(file: &mut ResultsFile, channel: &str, tasks: u64, out: Vec<PacedSample>, inside: Vec<PacedSample>) {
    for (setting, paced) in [(room_setting(Phase::Random), out), (room_setting(Phase::Aligned), inside)] {
        let mut key = hand_made_key(channel, tasks, setting.clone());
        key.coord.capacity = crate::run::workload::Capacity::Shared(1024);
        file.order.push(key.clone());
        let ok = vec![20_000.0; paced.len()];
        file.cells.insert(key, CellSamples { ok, paced, ..CellSamples::default() });
    }
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
    assert_eq!(pick.channel.name, "flume");
    assert_eq!(decision.best_with, 1, "tokio-mpsc overflowed as few frames");
    assert_eq!(pick.in_phase.as_ref().unwrap().overflow_share, 0.02);
    assert_eq!(pick.out_of_phase.as_ref().unwrap().latency.unwrap().p99, decision_p99(2_000));
    assert_eq!(decision.avoid, [(id("kanal"), Avoid::KnownProblem)]);
    assert!(decision.tied.is_empty(), "CPU 1 µs against 2 µs, drops 2% against 0% and 30%: {:?}", decision.tied);
    assert_eq!(decision.coord.capacity, crate::run::workload::Capacity::Shared(1024));
    assert_eq!(decision.capacity_for_no_drops(), crate::run::workload::Capacity::Shared(1500));
    assert_eq!(decision.coord.setting, room_setting(Phase::Random));
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
    assert_eq!(decision.pick.as_ref().unwrap().channel.name, "flume");
    let tied: Vec<&str> = decision.tied.iter().map(|seat| seat.channel.name.as_str()).collect();
    assert_eq!(tied, ["async-channel"]);
    assert_eq!(decision.avoid, [(id("tokio-mpsc"), Avoid::PacerBehind)]);
    let (tasks, cell) = decision.quiet.as_ref().unwrap();
    assert_eq!(*tasks, 1);
    // 3 µs per message in rounds the host slowed by 1.025 on average.
    assert_eq!(cell.cpu_ns_per_delivered.map(f64::round), Some(3075.0));

    let failed = file.order.iter().find(|key| key.channel == "flume" && key.tasks == 64).unwrap().clone();
    file.cells.get_mut(&failed).unwrap().failed = 1;
    let decision = &decide(&file, 64)[0];
    assert_eq!(decision.pick.as_ref().unwrap().channel.name, "async-channel");
    assert!(decision.avoid.contains(&(id("flume"), Avoid::Failed)), "{:?}", decision.avoid);
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
        assert_eq!(decision.pick.as_ref().unwrap().channel.name, "tokio-mpsc", "{flume} against {tokio}");
        let mut tied: Vec<&str> = decision.tied.iter().map(|seat| seat.channel.name.as_str()).collect();
        tied.sort_unstable();
        assert_eq!(tied, ["async-channel", "flume"]);
    }
    // Without tokio-mpsc in the tie, the first of the tie in the table's order.
    let file = room(300, &[("async-channel", (0, 1000), 1000), ("flume", (0, 1010), 1010)]);
    assert_eq!(decide(&file, 300)[0].pick.as_ref().unwrap().channel.name, "flume");
    // A channel separated from the rest still wins on its measurement.
    let file = room(300, &[("flume", (0, 500), 500), ("tokio-mpsc", (0, 1000), 1000)]);
    assert_eq!(decide(&file, 300)[0].pick.as_ref().unwrap().channel.name, "flume");
}

#[test]
fn a_cell_whose_every_sample_was_disturbed_is_avoided_and_every_left_out_sample_counted() {
    let mut file = room(300, &[("flume", (2, 1000), 1000), ("tokio-mpsc", (2, 1000), 2000)]);
    let cell = |file: &ResultsFile, channel: &str, setting: Setting| {
        let key = file.order.iter().find(|key| key.channel == channel && key.coord.setting == setting).unwrap().clone();
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
        let key = file.order.iter().find(|key| key.channel == channel && key.coord.setting == setting).unwrap().clone();
        file.cells.insert(key, samples);
    }
    let decision = &decide(&file, 300)[0];
    assert_eq!(decision.avoid, [(id("flume"), Avoid::Disturbed)]);
    assert_eq!(decision.pick.as_ref().unwrap().channel.name, "tokio-mpsc");
    assert_eq!(decision.pick.as_ref().unwrap().out_of_phase.as_ref().unwrap().ranges.p99_ns.unwrap().samples, 3);
    assert_eq!(decision.left_out, [(Why::Steal, 4), (Why::PacerLate, 1)]);
    assert_eq!(decision.samples, 16);
}

/// A room of two channels measured over `rounds` rounds with seeded noise: every channel of a
/// round moved alike by the host (±10%), and each by its own ±3%, around `cpu` ns per message
/// in both phases; nothing overflowed, no latency recorded.
fn noisy_room(seed: u64, rounds: usize, channels: &[(&str, f64)]) -> ResultsFile {
    use rand::{RngExt, SeedableRng};
    let mut generator = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let host: Vec<f64> = (0..rounds).map(|_| generator.random_range(0.9..1.1)).collect();
    let mut file = ResultsFile::default();
    for &(channel, cpu) in channels {
        let cpu: Vec<f64> = host.iter().map(|host| cpu * host * generator.random_range(0.97..1.03)).collect();
        let unlatched = || samples(0, &cpu, 2_000).into_iter().map(|s| PacedSample { lat_histogram: None, ..s });
        add(&mut file, channel, 300, unlatched().collect(), unlatched().collect());
    }
    file.pool_latencies();
    file
}

/// How often the channel closest to passing `decision`'s pick over was ahead of it.
fn closest(decision: &Decision) -> usize {
    decision.closest.as_ref().map_or(0, |(_, ahead)| *ahead)
}

#[test]
fn two_channels_within_the_noise_give_one_pick_whichever_the_noise_puts_ahead_by_a_hair() {
    // tokio-mpsc against flume 0.5% below it, and flume against loole 1% below it: each pair
    // within the noise, measured in either order by the seeds' draws.
    for (pair, rule) in
        [([("tokio-mpsc", 1000.0), ("flume", 995.0)], "tokio-mpsc"), ([("flume", 1000.0), ("loole", 990.0)], "flume")]
    {
        let mut ahead = Vec::new();
        for seed in 0..8 {
            let decision = &decide(&noisy_room(seed, 8, &pair), 300)[0];
            assert_eq!(
                decision.pick.as_ref().map(|seat| seat.channel.name.as_str()),
                Some(rule),
                "seed {seed}: {decision:?}"
            );
            assert!(closest(decision) < 500 && !decision.contested(), "seed {seed}: {:?}", decision.closest);
            let other = &decision.tied[0];
            let cpu = |seat: &Seat| seat.out_of_phase.as_ref().unwrap().cpu_ns_per_delivered.unwrap();
            ahead.push(cpu(other) < cpu(decision.pick.as_ref().unwrap()));
        }
        assert!(ahead.contains(&true) && ahead.contains(&false), "the seeds put either ahead: {ahead:?}");
    }
}

#[test]
fn a_clear_winner_passes_the_rules_first_over_and_a_circle_is_not_resolved() {
    let clear = noisy_room(1, 8, &[("tokio-mpsc", 1000.0), ("flume", 600.0), ("loole", 1400.0)]);
    let decision = &decide(&clear, 300)[0];
    assert_eq!(decision.pick.as_ref().unwrap().channel.name, "flume");
    assert_eq!(decision.passed_over, [(id("tokio-mpsc"), id("flume"), 1000)]);
    assert_eq!((decision.closest.clone(), decision.resamples), (Some((id("tokio-mpsc"), 0)), 1000));
    assert!(decision.tied.is_empty() && !decision.contested());

    // Drops 0, 0.4 and 0.8 points in phase, CPU 1000, 800 and 600: each is ahead of the one
    // before it on CPU, within the drops' noise, and the first is ahead of the last on drops.
    let mut circle = ResultsFile::default();
    for (channel, overflowed, cpu) in [("tokio-mpsc", 0, 1000.0), ("flume", 4, 800.0), ("loole", 8, 600.0)] {
        let thousand = |s: PacedSample| PacedSample { frames: 1000, frames_overflowed: overflowed, dropped: 0, ..s };
        let inside = samples(0, &[cpu; 6], 90_000).into_iter().map(thousand).collect();
        add(&mut circle, channel, 300, samples(0, &[cpu; 6], 2_000), inside);
    }
    let decision = &decide(&circle, 300)[0];
    assert_eq!(decision.pick, None, "{:?}", decision.passed_over);
    let ahead: Vec<(&str, &str)> =
        decision.passed_over.iter().map(|(a, b, _)| (a.name.as_str(), b.name.as_str())).collect();
    assert_eq!(ahead, [("tokio-mpsc", "flume"), ("flume", "loole"), ("loole", "tokio-mpsc")]);
    assert!(decision.contested());
}

/// The channel the decision of `file`'s room of 300 picks on the figures of `order` (`--weigh`).
fn pick_on(file: &ResultsFile, order: &str) -> String {
    let decisions = weighed(file, 300, &weigh::parse(order).unwrap());
    assert_eq!(decisions[0].weighing.to_string(), order);
    decisions[0].pick.as_ref().map_or_else(|| "none".to_owned(), |seat| seat.channel.name.clone())
}

#[test]
fn the_order_weighed_decides_and_p99_first_picks_what_the_p99_table_ranks_first() {
    // (channel, frames of 100 overflowed in phase, CPU ns per message, p99 in phase in ns).
    let channels = [
        ("tokio-mpsc", 0, 1000, 90_000),
        ("flume", 0, 2000, 20_000),
        ("async-channel", 5, 500, 50_000),
        ("loole", 0, 1100, 21_000),
    ];
    let mut file = ResultsFile::default();
    for (channel, overflowed, cpu, p99) in channels {
        let cpu: Vec<f64> = [1.0, 1.1, 0.95, 1.05].iter().map(|host| cpu as f64 * host).collect();
        add(&mut file, channel, 300, samples(0, &cpu, 2_000), samples(overflowed, &cpu, p99));
    }
    file.pool_latencies();
    // Drops first: async-channel overflowed 5 points more; CPU then puts tokio-mpsc ahead of
    // flume and loole (1,100 is within the noise of 1,000: tokio-mpsc stays by the rule).
    assert_eq!(pick_on(&file, "drops,cpu"), "tokio-mpsc");
    // p99 first: flume's and loole's 20 and 21 µs are one tie, far below 50 and 90 µs; CPU then
    // puts loole ahead of flume.
    assert_eq!(pick_on(&file, "p99,cpu"), "loole");
    assert_eq!(pick_on(&file, "p99"), "flume", "flume is first by the table's order in the tie");
    assert_eq!(pick_on(&file, "cpu,p99"), "async-channel");
    assert_eq!(pick_on(&file, "drops,p99"), "flume");

    // The paced table of the room's cells in phase ranks by pooled p99: the pick is its first,
    // or tied with it there.
    let bands = crate::results::paced::of_file(&file);
    let in_phase = bands.iter().find(|band| band.band.coord.setting == room_setting(Phase::Aligned)).unwrap();
    let ranked: Vec<(&str, bool)> =
        in_phase.p99.entries.iter().map(|entry| (entry.channel.as_str(), entry.tied_with_first)).collect();
    assert_eq!(ranked[..2], [("flume", false), ("loole", true)], "{ranked:?}");
    let decision = &weighed(&file, 300, &weigh::parse("p99,cpu").unwrap())[0];
    assert_eq!(decision.best_with, 1, "loole is within the noise of flume's p99");
    let passed: Vec<(&str, &str)> =
        decision.passed_over.iter().map(|(a, b, _)| (a.name.as_str(), b.name.as_str())).collect();
    assert_eq!(
        passed,
        [("tokio-mpsc", "flume"), ("flume", "loole"), ("async-channel", "flume")],
        "flume behind loole on CPU"
    );
}

#[test]
fn a_channel_passed_over_is_not_also_tied_with_the_pick() {
    // tokio-mpsc and flume alone are a tie: 11% apart is within this run's noise.
    let pair = decide(&noisy_room(3, 8, &[("tokio-mpsc", 1000.0), ("flume", 890.0)]), 300);
    assert_eq!(pair[0].pick.as_ref().unwrap().channel.name, "tokio-mpsc");
    assert_eq!(pair[0].tied.iter().map(|seat| seat.channel.name.as_str()).collect::<Vec<_>>(), ["flume"]);
    // loole, 21% below tokio-mpsc, passes it over; flume is the pick, within the noise of both.
    // tokio-mpsc is still within the noise of flume, but it is named passed over, not tied.
    let file = noisy_room(3, 8, &[("tokio-mpsc", 1000.0), ("flume", 890.0), ("loole", 790.0)]);
    let decision = &decide(&file, 300)[0];
    assert_eq!(decision.pick.as_ref().unwrap().channel.name, "flume");
    assert_eq!(decision.passed_over, [(id("tokio-mpsc"), id("loole"), 1000)]);
    assert_eq!(decision.tied.iter().map(|seat| seat.channel.name.as_str()).collect::<Vec<_>>(), ["loole"]);
}

use super::cell::range;
use super::*;
use crate::results::load::PacedSample;
use crate::results::load::hand_made_key;
use crate::results::setting::{Setting, room_setting};
use crate::run::latency::{Latency, empty_histogram};
use crate::run::workload::Phase;
use crate::stats::verdict::Call;

/// The paced answer of `file` with its own noise.
fn answer(file: &ResultsFile) -> Vec<PacedBand> {
    super::of_file(file)
}

/// A paced sample of `sent` messages in `frames` frames (8 every 20 ms), latencies `values`.
pub(crate) fn sample(
    values: impl IntoIterator<Item = u64>,
    frames: (u64, u64),
    dropped: u64,
    cpu_ns: u64,
) -> PacedSample {
    let mut histogram = empty_histogram();
    for value in values {
        histogram.record(value).unwrap();
    }
    let p99_ns = Latency::of(&histogram).map(|latency| latency.p99);
    PacedSample {
        pace_ns: 20_000_000,
        burst: 8,
        sent: frames.0 * 8,
        dropped,
        frames: frames.0,
        frames_overflowed: frames.1,
        cpu_ns: Some(cpu_ns),
        lat_histogram: Some(histogram.into()),
        resident_growth_bytes: Some(4096),
        pacer_behind: false,
        p99_ns,
        round: None,
    }
}

/// A file of paced cells: (channel, tasks, samples); the i-th sample of every cell was
/// measured in round i + 1.
pub(crate) fn file(cells: Vec<(&str, u64, Vec<PacedSample>)>) -> ResultsFile {
    let mut file = ResultsFile::default();
    for (channel, tasks, paced) in cells {
        let paced: Vec<PacedSample> =
            paced.into_iter().enumerate().map(|(at, s)| PacedSample { round: Some(at as u64 + 1), ..s }).collect();
        let key = hand_made_key(channel, tasks, Setting { burst: Some(8), ..room_setting(Phase::Aligned) });
        file.order.push(key.clone());
        let ok = vec![20_000.0; paced.len()];
        file.cells.insert(key, CellSamples { ok, paced, ..CellSamples::default() });
    }
    file.pool_latencies();
    file
}

#[test]
fn the_pooled_p99_is_the_percentile_of_every_message_of_the_cell() {
    // One sample fast throughout, one with a slow tail: the pooled p99 is that of all 2,000
    // values together, which neither sample's own p99 nor their median is.
    let fast = sample((1..=1000).map(|v| v * 10), (125, 0), 0, 1_000_000);
    let slow = sample((1..=970).map(|v| v * 10).chain((1..=30).map(|v| v * 1_000_000)), (125, 3), 24, 1_000_000);
    let mut all = empty_histogram();
    for value in (1..=1000).map(|v| v * 10).chain((1..=970).map(|v| v * 10)).chain((1..=30).map(|v| v * 1_000_000)) {
        all.record(value).unwrap();
    }
    let samples = [fast, slow];
    let cell = cell(1, &samples, crate::results::load::latency(&samples)).unwrap();
    let latency = cell.latency.unwrap();
    assert_eq!(Some(latency), Latency::of(&all));
    assert!(latency.p99 >= 10_000_000, "the slow tail is 1.5% of all messages: {latency:?}");
    assert_eq!(cell.overflow_share, 3.0 / 250.0);
    assert_eq!(cell.drop_share, 24.0 / 2000.0);
    assert_eq!(cell.resident_growth_bytes, Some(4096.0));
}

#[test]
fn the_core_share_is_cpu_per_delivered_message_times_the_offered_rate() {
    // 2 tasks × 8 messages every 20 ms = 800 messages/s; 1,000 delivered for 1 ms of CPU: 1 µs each.
    let cell = cell(2, &[sample([100], (125, 0), 0, 1_000_000)], None).unwrap();
    assert_eq!(cell.offered_per_s, 800.0);
    assert_eq!(cell.cpu_ns_per_delivered, Some(1000.0));
    assert!((cell.core_share.unwrap() - 0.0008).abs() < 1e-12);
    assert_eq!(super::cell(2, &[], None), None);
}

#[test]
fn each_figure_ties_or_separates_by_the_noise_model() {
    // Four rounds each, the host moving every channel of a round alike.
    let at = |p99: u64, overflowed: u64, cpu: u64| -> Vec<PacedSample> {
        [1.0, 1.2, 0.9, 1.1]
            .iter()
            .map(|host| {
                let scale = |v: u64| (v as f64 * host) as u64;
                sample(vec![scale(p99); 100], (125, overflowed), overflowed, scale(cpu))
            })
            .collect()
    };
    let file = file(vec![
        ("slow", 8, at(5000, 0, 1_000_000)),
        ("near", 8, at(1010, 20, 1_020_000)),
        ("fast", 8, at(1000, 40, 2_000_000)),
    ]);
    let bands = answer(&file);
    assert_eq!(bands.len(), 1);
    let band = &bands[0];
    let names = |ranking: &Ranking<PacedEntry>| -> Vec<String> {
        ranking.leaders().iter().map(|entry| entry.channel.clone()).collect()
    };
    // p99 1,000 and 1,010 ns in every round: inside the p99 drift; 5,000 is not.
    assert_eq!(names(&band.p99), ["fast", "near"]);
    assert_eq!(band.p99.entries[2].verdict.unwrap().call, Call::Higher);
    // CPU 1.00 and 1.02 µs per delivered message: tied; 2.00 µs separated.
    assert_eq!(names(&band.cpu), ["slow", "near"]);
    // 0, 16 and 32% of frames overflowed in every round: separated by points.
    assert_eq!(names(&band.overflow), ["slow"]);
    assert!(band.overflow.entries[1].verdict.unwrap().low > 10.0, "{:?}", band.overflow);
}

#[test]
fn a_channel_whose_pacer_fell_behind_is_named_and_never_ranked() {
    let mut behind = sample([10], (125, 0), 0, 1);
    behind.pacer_behind = true;
    let steady = || vec![sample([1000], (125, 0), 0, 1_000_000), sample([1000], (125, 0), 0, 1_000_000)];
    // Behind in both samples at one task count: the channel did not carry the load. Behind in
    // one of three: the host's moment, left out of the figures.
    let file = file(vec![
        ("lucky", 1, vec![behind.clone(), behind.clone()]),
        ("lucky", 4, vec![sample([10], (125, 0), 0, 1)]),
        ("blip", 1, vec![sample([1000], (125, 0), 0, 1_000_000), behind, sample([1000], (125, 0), 0, 1_000_000)]),
        ("blip", 4, vec![sample([1000], (125, 0), 0, 1_000_000), sample([1000], (125, 0), 0, 1_000_000)]),
        ("steady", 1, steady()),
        ("gone", 1, steady()),
        ("gone", 4, steady()),
        ("steady", 4, steady()),
    ]);
    let mut file = file;
    let gone_key = file.order.iter().find(|k| k.channel == "gone" && k.tasks == 4).unwrap().clone();
    file.cells.get_mut(&gone_key).unwrap().failed = 1;
    let band = &answer(&file)[0];
    assert_eq!(band.behind, [ChannelId::of(("lucky", None))]);
    assert_eq!(band.excluded, [ChannelId::of(("gone", None))]);
    let mut ranked: Vec<&str> = band.entries.iter().map(|e| e.channel.as_str()).collect();
    ranked.sort_unstable();
    assert_eq!(ranked, ["blip", "steady"]);
    assert_eq!(band.p99.leaders().len(), 2, "blip and steady measured alike");
}

#[test]
fn a_p99_verdict_is_centred_on_the_pooled_p99s_it_stands_beside() {
    // b's samples each have a p99 near a's, but one has a tail of 3% of its messages: pooled
    // over the cell, b's p99 is that tail. The verdict's ratio is the pooled figures' ratio.
    let a = vec![sample(vec![1000; 100], (125, 0), 0, 1_000_000), sample(vec![1000; 100], (125, 0), 0, 1_000_000)];
    let tail = (0..97).map(|_| 900).chain((0..3).map(|_| 50_000));
    let b = vec![sample(vec![1100; 100], (125, 0), 0, 1_000_000), sample(tail, (125, 0), 0, 1_000_000)];
    let band = &answer(&file(vec![("a", 8, a), ("b", 8, b)]))[0];
    let figure = |name: &str| band.entries.iter().find(|e| e.channel == name).unwrap().p99_ns.unwrap();
    let verdict = band.p99.entries.iter().find(|e| e.channel == "b").unwrap().verdict.unwrap();
    assert_eq!(band.p99.entries[0].channel, "a");
    assert!((verdict.mean.exp() - figure("b") / figure("a")).abs() < 1e-9, "{verdict:?}");
}

#[test]
fn a_figure_in_two_clusters_an_order_of_magnitude_apart_has_two_modes() {
    let two = range([1_000.0, 900.0, 1_100.0, 120_000.0, 110_000.0].into_iter()).unwrap();
    assert_eq!(two.modes, Some([(1_000.0, 3), (115_000.0, 2)]));
    assert_eq!((two.median, two.low, two.high, two.samples), (1_100.0, 900.0, 120_000.0, 5));
    // Two clusters twice apart are one behaviour's noise; one value alone is no cluster.
    assert_eq!(range([1_000.0, 1_900.0, 1_100.0, 2_000.0].into_iter()).unwrap().modes, None);
    assert_eq!(range([1_000.0, 900.0, 1_100.0, 120_000.0].into_iter()).unwrap().modes, None);
}

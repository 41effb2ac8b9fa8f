use super::*;
use crate::results::load::hand_made;
use crate::run::measure::RuntimeKind;
use crate::stats::{self, Summary};

use crate::results::load::ResultsFile;

/// The recommendations of `file` with its own figures and noise.
fn recommend(file: &ResultsFile) -> Vec<Recommendation> {
    crate::results::recommend::of_file(file)
}

fn summary(values: &[f64]) -> Summary {
    stats::summarize(values).unwrap()
}

/// Eight rounds of `level` moved by a host drift common to every channel of a round, and
/// by `own` (a fraction) of noise of its own, alternating in sign.
fn rounds(level: f64, own: f64) -> Vec<f64> {
    let host = [1.0, 1.8, 0.7, 2.2, 1.0, 1.4, 0.6, 1.9];
    host.iter().enumerate().map(|(at, h)| level * h * (1.0 + if at % 2 == 0 { own } else { -own })).collect()
}

#[test]
fn bands_follow_the_log_scale_midpoints() {
    let sizes: Vec<TaskBand> =
        [1, 8, 11, 12, 16, 64, 90, 91, 128, 512, 724, 725, 1024, 8192].map(TaskBand::of).to_vec();
    use TaskBand::*;
    let expected =
        [Small, Small, Small, Medium, Medium, Medium, Medium, Large, Large, Large, Large, XLarge, XLarge, XLarge];
    assert_eq!(sizes, expected);
}

#[test]
fn geometric_mean_weighs_each_task_count_alike() {
    let mean = geometric_mean([summary(&[10.0]), summary(&[1000.0])].map(|cell| cell.trimmed_mean));
    assert!((mean - 100.0).abs() < 1e-9, "{mean}");
    assert_eq!(geometric_mean([0.0, 5.0]), 0.0);
    assert!(geometric_mean([]).is_nan());
}

#[test]
fn paired_rounds_separate_a_gap_that_the_host_drift_hides_from_the_figures() {
    // The host moves every round by up to 2.2×; b is 1.5× behind a in every round, beyond
    // the floor the drift between runs sets under a paired ratio on multi-thread.
    let (a, b) = (rounds(100.0, 0.002), rounds(150.0, 0.002));
    let bands = recommend(&hand_made(&[("a", 64, &a, 0), ("b", 64, &b, 0)]));
    let speed = &bands[0].speed;
    assert_eq!(speed.first().unwrap().channel, "a");
    let runner_up = speed.runner_up().unwrap();
    assert_eq!(runner_up.verdict.unwrap().call, Call::Higher, "{runner_up:?}");
    let (ratio, low, high) = runner_up.ratio().unwrap();
    assert!((ratio - 1.5).abs() < 0.01 && low > 1.0 && high < 2.2, "{ratio} [{low}, {high}]");
    assert!(!speed.is_tie());
    // The same samples with the rounds shuffled apart: unpaired, the drift hides the gap.
    let mut file = hand_made(&[("a", 64, &a, 0), ("b", 64, &b, 0)]);
    for cell in file.cells.values_mut() {
        cell.rounds = vec![None; cell.ok.len()];
    }
    assert!(recommend(&file)[0].speed.is_tie());
}

#[test]
fn a_tie_says_how_close() {
    let (a, b) = (rounds(100.0, 0.01), rounds(100.5, 0.01));
    let bands = recommend(&hand_made(&[("a", 8, &a, 0), ("b", 8, &b, 0)]));
    let speed = &bands[0].speed;
    assert_eq!(speed.first().unwrap().channel, "a", "{speed:?}");
    assert!(speed.is_tie());
    assert!(speed.entries[1].tied_with_first);
    let within = speed.entries[1].verdict.unwrap().within().exp() - 1.0;
    // Within the floor the drift between runs sets (z × the multi-thread paired drift), no
    // closer, and not far beyond it: the samples' own spread is small.
    let floor = (1.96 * crate::results::noise::Metric::Speed.drift(RuntimeKind::MultiThread, true)).exp() - 1.0;
    assert!(within >= floor * 0.99 && within < floor + 0.05, "{within} against a floor of {floor}");
}

#[test]
fn the_pairs_name_the_first_when_they_call_another_lower() {
    // b is 1.7× faster than a in each of the eight rounds both took part in; three more
    // samples of b, in a slow stretch a was not measured in, raise its trimmed mean above a's.
    let a = rounds(100.0, 0.0);
    let mut b: Vec<f64> = a.iter().map(|v| v * 0.6).collect();
    b.extend([900.0, 900.0, 900.0]);
    let figures = |values: &[f64]| stats::trimmed_mean_of(values).unwrap();
    assert!(figures(&b) > figures(&a));
    let bands = recommend(&hand_made(&[("a", 8, &a, 0), ("b", 8, &b, 0)]));
    assert_eq!(bands[0].speed.first().unwrap().channel, "b", "{:?}", bands[0].speed);
}

#[test]
fn a_failed_or_missing_channel_is_not_ranked_even_when_fastest() {
    let steady = [100.0, 100.5, 99.5, 100.2, 99.8];
    let fast = [50.0, 50.5, 49.5, 50.2, 49.8];
    let bands = recommend(&hand_made(&[
        ("kanal", 1, &fast, 1),
        ("kanal", 4, &fast, 0),
        ("flume", 1, &steady, 0),
        ("flume", 4, &steady, 0),
        ("tokio", 1, &fast, 0),
        ("tokio", 64, &steady, 0),
        ("flume", 64, &steady, 0),
    ]));
    assert_eq!(bands.len(), 2, "{bands:?}");
    let small = &bands[0];
    assert_eq!((small.band.size, small.band.tasks.as_slice()), (TaskBand::Small, &[1, 4][..]));
    assert_eq!(small.speed.first().unwrap().channel, "flume");
    assert_eq!(small.speed.entries.len(), 1);
    assert_eq!(
        small.excluded,
        [
            Excluded {
                channel: "kanal".into(),
                merge: None,
                failed_samples: 1,
                failed_at: vec![1],
                missing_at: vec![],
                refused_at: vec![]
            },
            Excluded {
                channel: "tokio".into(),
                merge: None,
                failed_samples: 0,
                failed_at: vec![],
                missing_at: vec![4],
                refused_at: vec![]
            },
        ]
    );
    // kanal has no cell in the medium band at all: not measured there.
    let medium = &bands[1];
    assert_eq!((medium.band.size, medium.speed.entries.len()), (TaskBand::Medium, 2));
    assert_eq!(medium.excluded[0].missing_at, [64]);
    // CPU is ranked the same way; no latency column, no p99 ranking.
    assert!((small.cpu.first().unwrap().value - 200.0).abs() < 1e-9);
    assert!(small.p99.entries.is_empty());
}

#[test]
fn a_mixed_cell_is_ranked_by_its_trimmed_mean_and_marked() {
    // b's median (41) beats a's (60), but 40% of b's samples take 125 ns: its trimmed mean
    // (the middle three of five) is 68.3.
    let a = [60.0, 60.5, 59.5, 60.2, 59.8];
    let b = [40.0, 41.0, 39.0, 125.0, 124.0];
    let bands = recommend(&hand_made(&[("a", 64, &a, 0), ("b", 64, &b, 0)]));
    let speed = &bands[0].speed;
    let order: Vec<(&str, bool)> = speed.entries.iter().map(|e| (e.channel.as_str(), e.figures.mixed)).collect();
    assert_eq!(order, [("a", false), ("b", true)]);
    let (value, median) = (speed.entries[1].value, speed.entries[1].figures.median);
    assert!((value - 205.0 / 3.0).abs() < 1e-9 && (median - 41.0).abs() < 1e-9, "{value} {median}");
}

#[test]
fn the_channels_tied_with_the_first_come_before_one_separated_with_a_lower_estimate() {
    // b is 1.5× behind a in every round, separated; c 1.55× behind, but its rounds are not paired
    // with a's, so the host's drift hides the gap: a tie, however far its estimate is.
    let (a, b, c) = (rounds(100.0, 0.002), rounds(150.0, 0.002), rounds(155.0, 0.002));
    let mut file = hand_made(&[("a", 64, &a, 0), ("b", 64, &b, 0), ("c", 64, &c, 0)]);
    for (_, cell) in file.cells.iter_mut().filter(|(key, _)| key.channel == "c") {
        cell.rounds = vec![None; cell.ok.len()];
    }
    let bands = recommend(&file);
    let speed = &bands[0].speed;
    let order: Vec<(&str, bool)> = speed.entries.iter().map(|e| (e.channel.as_str(), e.tied_with_first)).collect();
    assert_eq!(order, [("a", false), ("c", true), ("b", false)], "{speed:?}");
    let mean = |at: usize| speed.entries[at].verdict.unwrap().mean;
    assert!(mean(1) > mean(2), "{} {}", mean(1), mean(2));
    assert_eq!((speed.leaders().len(), speed.next().unwrap().channel.as_str()), (2, "b"));
}

//! The noise model on synthetic sample streams whose truth is known: slow drift through the
//! run, single outliers, and pairs with few rounds. The intervals must cover the truth at
//! about their stated rate.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;
use crate::results::load::{hand_made, hand_made_key};

/// A normal deviate (Box–Muller).
fn normal(generator: &mut Pcg64Mcg) -> f64 {
    let (u, v): (f64, f64) = (generator.random_range(f64::EPSILON..1.0), generator.random_range(0.0..1.0));
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// How a synthetic run's samples move.
struct Stream {
    /// Rounds of every cell.
    rounds: usize,
    /// The standard deviation of a channel's level in each third of the run.
    drift: f64,
    /// The standard deviation of one sample's log about its level.
    noise: f64,
    /// The share of samples 2.7× slower than they should be (a burst no detector caught).
    outliers: f64,
}

const TASKS: [u64; 3] = [128, 256, 512];
/// Each channel's true log ns/message over the fastest's: channel `c1` is 5% behind `c0`.
const TRUTH: [f64; 4] = [0.0, 0.05, 0.10, 0.30];

/// One current-thread run of [`TRUTH`]'s channels at [`TASKS`] (one band), every cell in every
/// round.
fn run(stream: &Stream, generator: &mut Pcg64Mcg) -> ResultsFile {
    let mut cells: Vec<(String, u64, Vec<f64>)> = Vec::new();
    for (channel, truth) in TRUTH.iter().enumerate() {
        for tasks in TASKS {
            let levels: Vec<f64> = (0..BATCHES).map(|_| stream.drift * normal(generator)).collect();
            let values = (0..stream.rounds)
                .map(|round| {
                    let outlier = if generator.random_range(0.0..1.0) < stream.outliers { 1.0 } else { 0.0 };
                    let level = levels[round * BATCHES / stream.rounds];
                    (4.0 + truth + level + stream.noise * normal(generator) + outlier).exp()
                })
                .collect();
            cells.push((format!("c{channel}"), tasks, values));
        }
    }
    let hand: Vec<(&str, u64, &[f64], usize)> =
        cells.iter().map(|(channel, tasks, values)| (channel.as_str(), *tasks, values.as_slice(), 0)).collect();
    let made = hand_made(&hand);
    let mut file = ResultsFile::default();
    for key in &made.order {
        let mut current = key.clone();
        current.coord.runtime = RuntimeKind::CurrentThread;
        file.cells.insert(current.clone(), made.cells[key].clone());
        file.order.push(current);
    }
    file
}

/// The share of `runs` synthetic runs whose band verdict on each channel against `c0` holds
/// that channel's truth, and the mean measured drift.
fn coverage(stream: &Stream, runs: usize, seed: u64) -> (f64, f64) {
    let mut generator = Pcg64Mcg::seed_from_u64(seed);
    let (mut covered, mut judged, mut drift) = (0, 0, 0.0);
    for _ in 0..runs {
        let file = run(stream, &mut generator);
        let noise = FileNoise::of(&file);
        let key = |channel: &str, tasks| {
            let mut key = hand_made_key(channel, tasks, Default::default());
            key.coord.runtime = RuntimeKind::CurrentThread;
            key
        };
        let cells =
            |channel: &str| -> Vec<&CellSamples> { TASKS.iter().map(|&t| &file.cells[&key(channel, t)]).collect() };
        let group = key("c0", TASKS[0]).coord.noise_group();
        drift += noise.measured_drift(&group, Metric::Speed).unwrap_or(0.0);
        for (channel, truth) in TRUTH.iter().enumerate().skip(1) {
            let verdict = verdict(
                &cells("c0"),
                &cells(&format!("c{channel}")),
                Metric::Speed,
                &group,
                &noise,
                VERDICT_CONFIDENCE,
            )
            .unwrap();
            judged += 1;
            covered += usize::from(verdict.low <= *truth && *truth <= verdict.high);
        }
    }
    (covered as f64 / judged as f64, drift / runs as f64)
}

#[test]
fn intervals_cover_the_truth_under_a_drift_the_floor_does_not_hold() {
    // Each channel's level moves 8% from one third of the run to the next: five times the
    // current-thread floor. The run measures it, and its intervals widen to hold the truth.
    let stream = Stream { rounds: 12, drift: 0.08, noise: 0.03, outliers: 0.0 };
    let (covered, drift) = coverage(&stream, 300, 1);
    assert!(drift > 2.0 * Metric::Speed.drift(RuntimeKind::CurrentThread, true), "measured drift {drift}");
    assert!(covered >= 0.92, "95% intervals held the truth in {covered:.3} of the verdicts");
}

#[test]
fn intervals_cover_the_truth_with_outliers_and_few_rounds() {
    // Three rounds a cell, one sample in twenty 2.7× slow: the plain spread of the file's other
    // pairs stands in for the spread these few rounds cannot show.
    let stream = Stream { rounds: 3, drift: 0.0, noise: 0.05, outliers: 0.05 };
    let (covered, _) = coverage(&stream, 300, 2);
    assert!(covered >= 0.92, "95% intervals held the truth in {covered:.3} of the verdicts");
}

#[test]
fn a_calm_run_calibrates_itself_instead_of_keeping_the_floor() {
    let stream = Stream { rounds: 12, drift: 0.0, noise: 0.03, outliers: 0.0 };
    let mut generator = Pcg64Mcg::seed_from_u64(3);
    let file = run(&stream, &mut generator);
    let noise = FileNoise::of(&file);
    let group = file.order[0].coord.noise_group();
    let calibration = noise.calibration(&group, Metric::Speed).expect("18 pairs of 12 rounds");
    assert_eq!(calibration.pairs, 18);
    assert!((0.5..2.0).contains(&calibration.scale), "{calibration:?}");
    let floor = Metric::Speed.drift(RuntimeKind::CurrentThread, true);
    assert!(noise.paired_drift(&group, Metric::Speed) < floor, "no floor under a calibrated verdict");
    let (covered, _) = coverage(&stream, 100, 4);
    assert!(covered >= 0.92, "{covered}");
}

#[test]
fn a_run_too_short_to_split_keeps_the_floor() {
    let stream = Stream { rounds: 3, drift: 0.0, noise: 0.03, outliers: 0.0 };
    let file = run(&stream, &mut Pcg64Mcg::seed_from_u64(5));
    let (noise, group) = (FileNoise::of(&file), file.order[0].coord.noise_group());
    assert_eq!(noise.calibration(&group, Metric::Speed), None);
    let floor = Metric::Speed.drift(RuntimeKind::CurrentThread, true);
    assert_eq!(noise.paired_drift(&group, Metric::Speed), floor);
}

#[test]
fn batch_drift_sees_a_step_and_not_a_steady_stream() {
    let steady: Vec<(u64, f64)> = (0..30).map(|round| (round, if round % 2 == 0 { 0.01 } else { -0.01 })).collect();
    let (excess, degrees) = batch_drift(&steady).unwrap();
    assert!(excess <= 1e-6, "{excess}");
    assert_eq!(degrees, (BATCHES - 1) as f64);
    let step: Vec<(u64, f64)> =
        steady.iter().map(|&(round, d)| (round, d + if round >= 20 { 0.2 } else { 0.0 })).collect();
    let (excess, _) = batch_drift(&step).unwrap();
    assert!(excess.sqrt() > 0.05, "{}", excess.sqrt());
    // Rounds are read in their order, whatever order the differences come in.
    let mut shuffled = step.clone();
    shuffled.reverse();
    assert_eq!(batch_drift(&shuffled), batch_drift(&step));
    assert_eq!(batch_drift(&step[..5]), None, "two differences a stretch at least");
}

#[test]
fn a_busy_host_keeps_its_floor_under_every_verdict_of_its_runtime() {
    let stream = Stream { rounds: 12, drift: 0.0, noise: 0.03, outliers: 0.0 };
    let mut file = run(&stream, &mut Pcg64Mcg::seed_from_u64(5));
    let group = file.order[0].coord.noise_group();
    let calm = FileNoise::of(&file);
    let floor = Metric::Speed.busy_drift(RuntimeKind::CurrentThread).unwrap();
    assert!(calm.paired_drift(&group, Metric::Speed) < floor);
    // Its samples' threads waited for a core half the time they were ready.
    let waiting = crate::results::schema::Record {
        runtime: RuntimeKind::CurrentThread,
        run_delay_ns: Some(1_000),
        cpu_ns: Some(1_000),
        ..crate::results::schema::Record::default()
    };
    file.waited = crate::results::load::of_rows(&[waiting]).waited;
    let busy = FileNoise::of(&file);
    assert_eq!(busy.paired_drift(&group, Metric::Speed), floor, "calibrated or not, never below the floor");
    assert!(busy.resolution(&group, Metric::Speed) > calm.resolution(&group, Metric::Speed));
    // Only ns/message has a floor measured for a busy host.
    assert_eq!(busy.paired_drift(&group, Metric::Cpu), calm.paired_drift(&group, Metric::Cpu));
}

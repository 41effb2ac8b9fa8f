//! A [`Place`] that measures nothing: each job's sample is made from a seeded figure per
//! channel (and per build, for a paired A/B run's two), so that screening, the duels, the
//! settling of a paced room and the A/B and `compare` verdicts are tested on exact samples,
//! never on the host's clock.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::Parser;

use super::*;
use crate::results::load::ResultsFile;
use crate::run::latency::{self, Latency};
use crate::run::scenario::Pacing;

pub(crate) mod judged;

/// How long a sample [`Synthetic::waited`] names waited to run: far past the run-delay rule's
/// floor (`stats::disturbed::RUN_DELAY_FLOOR_NS`), so it is left out as disturbed.
const WAITED: Duration = Duration::from_millis(100);

/// The steal tick of a sample [`Synthetic::stolen`] names.
const STEAL: Duration = Duration::from_millis(10);

/// How many times its figure a sample [`Synthetic::slow`] names takes.
const SLOWER: f64 = 3.0;

/// How many times the others' p99 an [`Synthetic::outliers`] sample's p99 is.
const OUTLIER: f64 = 40.0;

/// Samples of fixed ratio per channel: `ratios[channel]` × 1 ms, times a drift of `drift` per
/// round (every channel of a round alike), with `jitter` (a share, alternating in sign) so that
/// no two samples of a cell are equal. A paced job's sample takes its schedule (with the jitter)
/// and has the figure as its CPU time in ms and its every message's latency in µs, nothing dropped.
pub(crate) struct Synthetic {
    pub ratios: HashMap<&'static str, f64>,
    pub drift: f64,
    pub jitter: f64,
    /// Rounds taken.
    pub calls: u64,
    /// The builds that measure each job, one after the other, each with its factor per channel
    /// on `ratios` (1 for a channel it does not name): the sweep's own (`""`) alone by default.
    pub builds: Vec<(&'static str, HashMap<&'static str, f64>)>,
    /// The samples, each a channel and its sample's number (from 1, every build's counted),
    /// that took [`SLOWER`] times their figure.
    pub slow: Vec<(&'static str, u64)>,
    /// The samples, named as `slow`, whose threads waited [`WAITED`] to run.
    pub waited: Vec<(&'static str, u64)>,
    /// The samples, named as `slow`, with a steal tick of the host ([`STEAL`]) and no run
    /// delay, as a build that does not record it sends them.
    pub stolen: Vec<(&'static str, u64)>,
    /// The samples, named as `slow`, whose latency is [`OUTLIER`] times the others'.
    pub outliers: Vec<(&'static str, u64)>,
    /// Samples taken per channel.
    pub taken: HashMap<String, u64>,
}

impl Synthetic {
    /// A place of `ratios`, no drift, 1% jitter, one build.
    pub fn new(ratios: &[(&'static str, f64)]) -> Self {
        Synthetic {
            ratios: ratios.iter().copied().collect(),
            drift: 0.0,
            jitter: 0.01,
            calls: 0,
            builds: vec![("", HashMap::new())],
            slow: Vec::new(),
            waited: Vec::new(),
            stolen: Vec::new(),
            outliers: Vec::new(),
            taken: HashMap::new(),
        }
    }

    /// The next sample of `job` at `figure` (the ratio with its build's factor, drift and jitter).
    fn sample(&mut self, job: &Job, figure: f64, sign: f64) -> Sample {
        let taken = self.taken.entry(job.channel.clone()).or_default();
        *taken += 1;
        let this = |(channel, number): &(&str, u64)| *channel == job.channel && *number == *taken;
        let figure = if self.slow.iter().any(this) { figure * SLOWER } else { figure };
        let waited = if self.waited.iter().any(this) { WAITED } else { Duration::ZERO };
        let (run_delay, steal) = if self.stolen.iter().any(this) { (None, Some(STEAL)) } else { (Some(waited), None) };
        let outlier = self.outliers.iter().any(this);
        let Some(pace) = job.workload.pace else {
            let elapsed = Duration::from_secs_f64(figure / 1e3);
            return Sample { run_delay, steal, ..Sample::failed(elapsed, elapsed / 2, Status::Ok) };
        };
        let schedule = job.workload.schedule().expect("a paced workload has a schedule");
        let p99 = figure * 1e3 * if outlier { OUTLIER } else { 1.0 };
        let mut histogram = latency::empty_histogram();
        histogram.record_n(p99 as u64, job.workload.messages).expect("within the histogram's bounds");
        let frames = job.workload.messages.div_ceil(u64::from(pace.burst));
        Sample {
            latency: Latency::of(&histogram),
            latency_histogram: Some(histogram.into()),
            pace_actual: Some(pace.interval),
            pacing: Some(Pacing { frames, overflowed: 0, lateness_max: Duration::ZERO, lateness_mean: Duration::ZERO }),
            run_delay,
            steal,
            ..Sample::failed(
                schedule.mul_f64(1.0 + sign * self.jitter),
                Duration::from_secs_f64(figure / 1e3),
                Status::Ok,
            )
        }
    }
}

impl Place for Synthetic {
    fn take(
        &mut self,
        _isolation: Isolation,
        jobs: &[Job],
        _watchdog: &Watchdog,
        taken: &mut dyn FnMut(usize, &str, Sample) -> anyhow::Result<()>,
    ) -> anyhow::Result<bool> {
        self.calls += 1;
        let drift = 1.0 + self.drift * self.calls as f64;
        for (at, job) in jobs.iter().enumerate() {
            for side in 0..self.builds.len() {
                let (build, factors) = &self.builds[side];
                let factor = factors.get(job.channel.as_str()).copied().unwrap_or(1.0);
                let sign = if (self.calls + (at + side) as u64).is_multiple_of(2) { 1.0 } else { -1.0 };
                let build = *build;
                let figure = self.ratios[job.channel.as_str()] * factor * drift * (1.0 + sign * self.jitter);
                let sample = self.sample(job, figure, sign);
                taken(at, build, sample)?;
            }
        }
        Ok(true)
    }
}

/// Runs a sweep of `args` (after `channel-bench`) on `place`, its CSV written to `path`.
pub(crate) fn sweep_to(path: &Path, args: &[&str], place: &mut dyn Place) -> Outcome {
    let cli = crate::cli::Cli::try_parse_from(["channel-bench"].iter().chain(args)).unwrap();
    let plan = Plan::with_extra(cli.sweep, &[]).unwrap();
    let mut csv = CsvWriter::create(path, false).unwrap();
    let watchdog = Watchdog::new(Duration::from_secs(60), Arc::new(AtomicBool::new(false))).unwrap();
    let console = Console::new(0, 1, "0s");
    run(&plan, &watchdog, &console, &mut csv, place).unwrap()
}

/// Runs a sweep of `args` on `place`: its CSV, read back.
pub(super) fn sweep(args: &[&str], place: &mut dyn Place) -> ResultsFile {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.csv");
    sweep_to(&path, args, place);
    crate::results::load::load(&path).unwrap()
}

/// How many samples each channel got, by name: `ok`, disturbed and failed.
fn counts(file: &ResultsFile) -> Vec<(String, usize)> {
    let count = |key: &CellKey| {
        let cell = &file.cells[key];
        (key.channel.clone(), cell.ok.len() + cell.disturbed.len() + cell.failed)
    };
    let mut counts: Vec<(String, usize)> = file.order.iter().map(count).collect();
    counts.sort();
    counts
}

#[test]
fn screening_leaves_out_a_channel_twice_behind_after_its_second_sample() {
    let mut place =
        Synthetic { drift: 0.01, ..Synthetic::new(&[("flume", 1.0), ("kanal", 1.1), ("async-channel", 3.0)]) };
    let args =
        ["--channels", "flume,kanal,async-channel", "--tasks", "4", "--modes", "cloned-send", "--capacity", "1024"];
    let file = sweep(
        &args
            .iter()
            .copied()
            .chain(["--runtimes", "multi-thread", "--workers", "2", "--samples", "4", "--max-time", "0"])
            .collect::<Vec<_>>(),
        &mut place,
    );
    assert_eq!(counts(&file), [("async-channel".to_owned(), 2), ("flume".to_owned(), 4), ("kanal".to_owned(), 4)]);
    assert_eq!(place.calls, 4);
}

#[test]
fn an_ab_like_place_that_does_not_screen_measures_every_channel_each_round() {
    struct Everyone(Synthetic);
    impl Place for Everyone {
        fn take(
            &mut self,
            isolation: Isolation,
            jobs: &[Job],
            watchdog: &Watchdog,
            taken: &mut dyn FnMut(usize, &str, Sample) -> anyhow::Result<()>,
        ) -> anyhow::Result<bool> {
            self.0.take(isolation, jobs, watchdog, taken)
        }
        fn screens(&self) -> bool {
            false
        }
    }
    let mut place = Everyone(Synthetic::new(&[("flume", 1.0), ("async-channel", 3.0)]));
    let args = ["--channels", "flume,async-channel", "--tasks", "4", "--modes", "cloned-send", "--capacity", "1024"];
    let file = sweep(
        &[&args[..], &["--runtimes", "multi-thread", "--workers", "2", "--samples", "3", "--max-time", "0"]].concat(),
        &mut place,
    );
    assert_eq!(counts(&file), [("async-channel".to_owned(), 3), ("flume".to_owned(), 3)]);
}

/// The samples the duels bring the two fastest channels to, flat out, as pinned below.
const DUEL_SAMPLES_SEEN: usize = 5;

#[test]
fn duels_measure_a_thin_leader_and_runner_up_again_and_stop_once_told_apart() {
    let mut place =
        Synthetic { drift: 0.001, ..Synthetic::new(&[("flume", 1.0), ("kanal", 1.5), ("async-channel", 3.0)]) };
    let args =
        ["--channels", "flume,kanal,async-channel", "--tasks", "4", "--modes", "cloned-send", "--capacity", "1024"];
    let more = ["--runtimes", "multi-thread", "--workers", "2", "--samples", "2", "--max-time", "600"];
    let file = sweep(&[&args[..], &more].concat(), &mut place);
    // Two screening rounds; three duel rounds of the two fastest, to DUEL_SAMPLES; flume, a clear
    // third faster, is told apart and nothing is open: no sixth round, whatever the budget.
    assert_eq!(DUEL_SAMPLES_SEEN, choose::DUEL_SAMPLES);
    assert_eq!(counts(&file), [("async-channel".to_owned(), 2), ("flume".to_owned(), 5), ("kanal".to_owned(), 5)]);
    assert_eq!(place.calls, 5);
}

/// The flags of a current-thread cloned-send sweep at 4 tasks of `channels`, then `more`.
fn flat_out(channels: &'static str, more: &[&'static str]) -> Vec<&'static str> {
    let plan = ["--channels", channels, "--tasks", "4", "--modes", "cloned-send", "--capacity", "1024"];
    [&plan[..], &["--runtimes", "current-thread"], more].concat()
}

#[test]
fn a_kept_channel_far_behind_is_measured_in_every_screening_round() {
    let mut place = Synthetic::new(&[("flume", 1.0), ("kanal", 10.0)]);
    let file = sweep(&flat_out("kanal,flume", &["--samples", "4", "--max-time", "0"]), &mut place);
    assert_eq!(counts(&file), [("flume".to_owned(), 4), ("kanal".to_owned(), 2)], "two slow samples, then left out");
    let mut place = Synthetic::new(&[("flume", 1.0), ("kanal", 10.0)]);
    let kept = ["--samples", "4", "--max-time", "0", "--keep", "kanal"];
    let file = sweep(&flat_out("kanal,flume", &kept), &mut place);
    assert_eq!(counts(&file), [("flume".to_owned(), 4), ("kanal".to_owned(), 4)], "--keep follows it through");
}

#[test]
fn slow_samples_the_host_disturbed_are_left_out_and_screen_nothing_out() {
    let more = ["--samples", "4", "--max-time", "0"];
    let first_two = vec![("kanal", 1), ("kanal", 2)];
    // kanal's first two samples took three times its figure: it is screened out...
    let mut slow = Synthetic { slow: first_two.clone(), ..Synthetic::new(&[("flume", 1.0), ("kanal", 1.0)]) };
    let file = sweep(&flat_out("kanal,flume", &more), &mut slow);
    assert_eq!(counts(&file), [("flume".to_owned(), 4), ("kanal".to_owned(), 2)]);
    // ...unless each had a steal tick: both are left out as disturbed, and kanal stays.
    let stolen =
        Synthetic { slow: first_two.clone(), stolen: first_two, ..Synthetic::new(&[("flume", 1.0), ("kanal", 1.0)]) };
    let file = sweep(&flat_out("kanal,flume", &more), &mut { stolen });
    let kanal = |file: &ResultsFile| file.cells[file.order.iter().find(|key| key.channel == "kanal").unwrap()].clone();
    assert_eq!((kanal(&file).ok.len(), kanal(&file).disturbed.len()), (2, 2), "{:?}", kanal(&file));
    assert_eq!(counts(&file), [("flume".to_owned(), 4), ("kanal".to_owned(), 4)]);
    // A slow sample whose threads waited to run, among calm ones, is left out too.
    let third = vec![("kanal", 3)];
    let mut waited =
        Synthetic { slow: third.clone(), waited: third, ..Synthetic::new(&[("flume", 1.0), ("kanal", 1.0)]) };
    let file = sweep(&flat_out("kanal,flume", &more), &mut waited);
    assert_eq!((kanal(&file).ok.len(), kanal(&file).disturbed.len()), (3, 1), "{:?}", kanal(&file));
}

#[test]
fn a_cell_a_disturbed_sample_left_short_is_measured_again_after_screening_to_the_screening_count() {
    let ratios = [("flume", 1.0), ("kanal", 1.5), ("tachyonix", 1.8)];
    let tachyonix =
        |file: &ResultsFile| file.cells[file.order.iter().find(|key| key.channel == "tachyonix").unwrap()].clone();
    let waited = vec![crate::stats::disturbed::Why::Waited];
    // tachyonix's first sample waited to run nearly all its time and is left out: a round after
    // screening measures it again, alone, and no more once it has two; the duels then give the
    // two fastest theirs.
    let duels = ["--samples", "2", "--max-time", "600"];
    let mut place = Synthetic { waited: vec![("tachyonix", 1)], ..Synthetic::new(&ratios) };
    let file = sweep(&flat_out("flume,kanal,tachyonix", &duels), &mut place);
    assert_eq!((tachyonix(&file).ok.len(), tachyonix(&file).disturbed_why), (2, waited.clone()));
    let expected = [("flume".to_owned(), 5), ("kanal".to_owned(), 5), ("tachyonix".to_owned(), 3)];
    assert_eq!(counts(&file), expected);
    // Left out again in that round, it is measured once more; past `--samples` such rounds, never.
    let mut place = Synthetic { waited: vec![("tachyonix", 1), ("tachyonix", 3)], ..Synthetic::new(&ratios) };
    let file = sweep(&flat_out("flume,kanal,tachyonix", &duels), &mut place);
    assert_eq!((tachyonix(&file).ok.len(), tachyonix(&file).disturbed.len()), (2, 2));
    let mut place =
        Synthetic { waited: vec![("tachyonix", 1), ("tachyonix", 3), ("tachyonix", 4)], ..Synthetic::new(&ratios) };
    let file = sweep(&flat_out("flume,kanal,tachyonix", &duels), &mut place);
    assert_eq!((tachyonix(&file).ok.len(), tachyonix(&file).disturbed.len()), (1, 3));
    // `--max-time 0` asks for the screening passes alone: it stays short.
    let no_duels = ["--samples", "2", "--max-time", "0"];
    let mut place = Synthetic { waited: vec![("tachyonix", 1)], ..Synthetic::new(&ratios) };
    let file = sweep(&flat_out("flume,kanal,tachyonix", &no_duels), &mut place);
    assert_eq!((tachyonix(&file).ok.len(), tachyonix(&file).disturbed_why), (1, waited));
    assert_eq!(counts(&file)[2], ("tachyonix".to_owned(), 2));
    // Undisturbed, it keeps its two screening samples.
    let file = sweep(&flat_out("flume,kanal,tachyonix", &duels), &mut Synthetic::new(&ratios));
    assert_eq!(counts(&file)[2], ("tachyonix".to_owned(), 2));
}

#[test]
fn a_flat_out_cell_left_short_is_measured_again_and_a_paced_one_left_to_its_own_rule() {
    // Two channels of one group, each with one sample kept and one left out, flat out and paced.
    let flat_out = [
        "--channels",
        "flume,kanal",
        "--tasks",
        "8",
        "--runtimes",
        "multi-thread",
        "--modes",
        "cloned-send",
        "--capacity",
        "1024",
    ];
    for (paced, expected) in [(&[][..], 2), (&["--pace", "20ms", "--duration", "100ms"][..], 0)] {
        let args = [&["channel-bench"][..], &flat_out, paced].concat();
        let plan = Plan::with_extra(crate::cli::Cli::try_parse_from(args).unwrap().sweep, &[]).unwrap();
        let progress = |cell: Cell| Progress { key: key_of(&cell), cell, samples: Vec::new(), finished: false };
        let cells: Vec<Progress> = plan.cells().into_iter().map(progress).collect();
        let mut file = ResultsFile::default();
        for progress in &cells {
            let samples =
                crate::results::load::CellSamples { ok: vec![1.0], disturbed: vec![3.0], ..Default::default() };
            file.cells.insert(progress.key.clone(), samples);
            file.order.push(progress.key.clone());
        }
        let refilled = refill(&groups(&cells), &cells, &file, (&[], 2), &[]);
        assert_eq!(refilled.iter().map(Vec::len).sum::<usize>(), expected, "{paced:?}");
        // A cell the same pass measures again for a slow machine is not measured twice.
        let again = refill(&groups(&cells), &cells, &file, (&[], 2), &[vec![0]]);
        assert_eq!(again.iter().map(Vec::len).sum::<usize>(), expected.saturating_sub(1), "{paced:?}");
    }
}

#[test]
fn a_flat_out_cell_with_no_sample_kept_is_measured_again_in_every_duel_pass() {
    // One group of two channels: flume with its duels' samples kept, kanal with `kanal` kept, two
    // samples of each left out.
    let args = ["channel-bench", "--channels", "flume,kanal", "--tasks", "8", "--runtimes", "multi-thread"];
    let more = ["--modes", "cloned-send", "--capacity", "1024"];
    for (paced, kanal, measured) in [
        (&[][..], vec![], vec![1]),
        (&[][..], vec![2.0; 5], vec![]),
        (&["--pace", "20ms", "--duration", "100ms"][..], vec![], vec![]),
    ] {
        let cli = crate::cli::Cli::try_parse_from([&args[..], &more, paced].concat()).unwrap();
        let plan = Plan::with_extra(cli.sweep, &[]).unwrap();
        let progress = |cell: Cell| Progress { key: key_of(&cell), cell, samples: Vec::new(), finished: false };
        let cells: Vec<Progress> = plan.cells().into_iter().map(progress).collect();
        let mut file = ResultsFile::default();
        for progress in &cells {
            let ok = if progress.key.channel == "kanal" { kanal.clone() } else { vec![1.0, 1.1, 0.9, 1.0, 1.05] };
            let samples = crate::results::load::CellSamples { ok, disturbed: vec![3.0, 3.0], ..Default::default() };
            file.cells.insert(progress.key.clone(), samples);
            file.order.push(progress.key.clone());
        }
        let rounds = duels(&groups(&cells), &cells, &file, (&[], &Default::default()), None);
        assert_eq!(rounds.concat(), measured, "{paced:?}, kanal kept {kanal:?}");
    }
}

/// A paced room of 8 participants, flume, async-channel and tachyonix (none with a known
/// problem), both phases, on `place`: each channel's samples per phase, in (channel, phase) order.
fn room(place: &mut Synthetic) -> Vec<(String, String, usize)> {
    let paced = ["--pace", "20ms", "--duration", "100ms", "--tasks", "8", "--send", "try", "--latency"];
    let cells = ["--channels", "flume,async-channel,tachyonix", "--runtimes", "multi-thread", "--modes", "cloned-send"];
    let more = ["--phase", "aligned,random", "--samples", "2", "--max-time", "600", "--capacity", "1024"];
    let file = sweep(&[&paced[..], &cells, &more].concat(), place);
    let mut counts: Vec<(String, String, usize)> = file
        .order
        .iter()
        .map(|key| {
            let cell = &file.cells[key];
            let phase = key.coord.setting.phase.map(|phase| phase.words().to_owned()).unwrap_or_default();
            (key.channel.clone(), phase, cell.ok.len() + cell.disturbed.len() + cell.failed)
        })
        .collect();
    counts.sort();
    counts
}

/// The samples a paced figure settles on, as pinned below.
const SETTLED_FROM_SEEN: usize = 4;

#[test]
fn a_paced_room_measures_its_pick_and_closest_challenger_until_their_figures_settle() {
    assert_eq!(SETTLED_FROM_SEEN, choose::SETTLED_FROM);
    let ratios = [("flume", 1.0), ("async-channel", 1.5), ("tachyonix", 3.0)];
    let row = |channel: &str, phase: &str, samples| (channel.to_owned(), phase.to_owned(), samples);
    // Two screening rounds a phase. Then the pick (flume, the first by rule, and cheapest) and
    // the closest to passing it over (async-channel, never ahead of it: the next by rule) are
    // measured until their figures settle: in phase at four samples, out of phase at five (the
    // fourth moved a half-width by more than SETTLED_CHANGE). tachyonix, third, is measured
    // again only in the one round that brings the two fastest out of phase by ns/message to
    // FEWEST_SAMPLES.
    let calm = [
        row("async-channel", "in phase", 4),
        row("async-channel", "out of phase", 5),
        row("flume", "in phase", 4),
        row("flume", "out of phase", 5),
        row("tachyonix", "in phase", 2),
        row("tachyonix", "out of phase", 3),
    ];
    assert_eq!(room(&mut Synthetic::new(&ratios)), calm);
    // flume's fifth sample (its first in the duels, in phase) has a p99 forty times its others':
    // the pick and its closest challenger are measured until their figures settle once more (the room's rounds
    // measure its contenders alone, tachyonix not); out of phase nothing changes.
    let mut outlier = Synthetic { outliers: vec![("flume", 5)], ..Synthetic::new(&ratios) };
    let disturbed = [
        row("async-channel", "in phase", 7),
        row("async-channel", "out of phase", 5),
        row("flume", "in phase", 7),
        row("flume", "out of phase", 5),
        row("tachyonix", "in phase", 2),
        row("tachyonix", "out of phase", 3),
    ];
    assert_eq!(room(&mut outlier), disturbed);
}

#[test]
fn a_kept_channel_is_measured_in_every_duel_round_of_its_group() {
    // flume, kept, is three times slower than the leaders and would be screened out. The duels
    // measure kanal and crossfire: three times to bring them to DUEL_SAMPLES when they are told
    // apart, round after round while they are close.
    for (runner_up, duel_rounds) in [(1.5, 3), (1.03, 0)] {
        let ratios = [("kanal", 1.0), ("crossfire", runner_up), ("flume", 3.0)];
        let mut place = Synthetic::new(&ratios);
        let more = ["--samples", "2", "--max-time", "600", "--keep", "flume"];
        let counts = counts(&sweep(&flat_out("kanal,crossfire,flume", &more), &mut place));
        let leader = counts.iter().find(|(channel, _)| channel == "kanal").unwrap().1;
        assert!(leader > 2 && (duel_rounds == 0 || leader == 2 + duel_rounds), "the leaders duel: {counts:?}");
        assert!(counts.iter().all(|(_, samples)| *samples == leader), "{counts:?}");
    }
}

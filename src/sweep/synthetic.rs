//! A [`Place`] that measures nothing: each job's sample is made from a seeded figure per
//! channel, so that screening and the duels are tested on exact samples, never on the host's clock.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::Parser;

use super::*;
use crate::results::load::ResultsFile;

/// Samples of fixed ratio per channel: `ratios[channel]` × 1 ms, times a drift of `drift` per
/// round (every channel of a round alike), with `jitter` (a share, alternating in sign) so that
/// no two samples of a cell are equal.
struct Synthetic {
    ratios: HashMap<&'static str, f64>,
    drift: f64,
    jitter: f64,
    calls: u64,
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
            let sign = if (self.calls + at as u64).is_multiple_of(2) { 1.0 } else { -1.0 };
            let ms = self.ratios[job.channel.as_str()] * drift * (1.0 + sign * self.jitter);
            let elapsed = Duration::from_secs_f64(ms / 1e3);
            taken(at, "", Sample::failed(elapsed, elapsed / 2, Status::Ok))?;
        }
        Ok(true)
    }
}

/// Runs a sweep of `args` (after `channel-bench --out <tmp>`) on `place`: its CSV, read back.
pub(super) fn sweep(args: &[&str], place: &mut dyn Place) -> ResultsFile {
    let cli = crate::cli::Cli::try_parse_from(["channel-bench"].iter().chain(args)).unwrap();
    let plan = Plan::with_extra(cli.sweep, &[]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.csv");
    let mut csv = CsvWriter::create(&path, false).unwrap();
    let watchdog = Watchdog::new(Duration::from_secs(60), Arc::new(AtomicBool::new(false))).unwrap();
    let console = Console::new(0, 1);
    run(&plan, &watchdog, &console, &mut csv, place).unwrap();
    crate::results::load::load(&path).unwrap()
}

/// How many samples each channel got, by name.
fn counts(file: &ResultsFile) -> Vec<(String, usize)> {
    let count = |key: &CellKey| (key.channel.clone(), file.cells[key].ok.len() + file.cells[key].failed);
    let mut counts: Vec<(String, usize)> = file.order.iter().map(count).collect();
    counts.sort();
    counts
}

#[test]
fn screening_leaves_out_a_channel_twice_behind_after_its_second_sample() {
    let ratios = HashMap::from([("flume", 1.0), ("kanal", 1.1), ("async-channel", 3.0)]);
    let mut place = Synthetic { ratios, drift: 0.01, jitter: 0.01, calls: 0 };
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
    let ratios = HashMap::from([("flume", 1.0), ("async-channel", 3.0)]);
    let mut place = Everyone(Synthetic { ratios, drift: 0.0, jitter: 0.01, calls: 0 });
    let args = ["--channels", "flume,async-channel", "--tasks", "4", "--modes", "cloned-send", "--capacity", "1024"];
    let file = sweep(
        &[&args[..], &["--runtimes", "multi-thread", "--workers", "2", "--samples", "3", "--max-time", "0"]].concat(),
        &mut place,
    );
    assert_eq!(counts(&file), [("async-channel".to_owned(), 3), ("flume".to_owned(), 3)]);
}

/// The samples the duels bring the two fastest channels to, as pinned below.
const FEWEST_SAMPLES_SEEN: usize = 3;

#[test]
fn duels_measure_a_thin_leader_and_runner_up_again_and_stop_once_told_apart() {
    let ratios = HashMap::from([("flume", 1.0), ("kanal", 1.5), ("async-channel", 3.0)]);
    let mut place = Synthetic { ratios, drift: 0.001, jitter: 0.01, calls: 0 };
    let args =
        ["--channels", "flume,kanal,async-channel", "--tasks", "4", "--modes", "cloned-send", "--capacity", "1024"];
    let more = ["--runtimes", "multi-thread", "--workers", "2", "--samples", "2", "--max-time", "600"];
    let file = sweep(&[&args[..], &more].concat(), &mut place);
    // Two screening rounds; one duel round of the two fastest, to FEWEST_SAMPLES; then flume,
    // a clear third faster, is told apart and nothing is open: no fourth round, whatever the budget.
    assert_eq!(FEWEST_SAMPLES_SEEN, crate::results::cells::FEWEST_SAMPLES);
    assert_eq!(counts(&file), [("async-channel".to_owned(), 2), ("flume".to_owned(), 3), ("kanal".to_owned(), 3)]);
    assert_eq!(place.calls, 3);
}

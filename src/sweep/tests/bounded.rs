//! The bound on a laggard's samples, on a place that takes each round as `run::rounds` does
//! (`rounds::in_order`), each job's sample made from a fixed time per channel: a channel far
//! behind is stopped at its bound once its group has a full sample, a kept one never is.

use std::collections::HashMap;

use super::synthetic::sweep;
use super::*;
use crate::results::recommend::of_file;
use crate::run::measure::Bounded;

/// Each channel's sample takes `ms[channel]` milliseconds, unless its bound stops it first:
/// then it took the bound, and the share of the messages the bound allowed.
struct Timed {
    ms: HashMap<&'static str, f64>,
    /// The time each channel's samples took, all together.
    spent: HashMap<String, Duration>,
}

impl Place for Timed {
    fn take(
        &mut self,
        _isolation: Isolation,
        jobs: &[Job],
        _watchdog: &Watchdog,
        taken: &mut dyn FnMut(usize, &str, Sample) -> anyhow::Result<()>,
    ) -> anyhow::Result<bool> {
        let mut measure = |job: &Job| {
            let full = Duration::from_secs_f64(self.ms[job.channel.as_str()] / 1e3);
            let sample = match job.bound.and_then(Bound::limit).filter(|&limit| limit < full) {
                Some(limit) => {
                    let taken = (job.workload.messages as f64 * limit.as_secs_f64() / full.as_secs_f64()) as u64;
                    let bounded = Some(Bounded { bound: limit, taken });
                    Sample { bounded, ..Sample::failed(limit, limit / 2, Status::Ok) }
                }
                None => Sample::failed(full, full / 2, Status::Ok),
            };
            *self.spent.entry(job.channel.clone()).or_default() += sample.elapsed;
            Ok(Some(sample))
        };
        rounds::in_order(jobs, &mut measure, &mut |at, sample| taken(at, "", sample))
    }
}

#[test]
fn a_laggard_is_stopped_at_its_bound_labelled_and_still_ranked_behind_and_a_kept_one_runs_in_full() {
    let ms = HashMap::from([("flume", 100.0), ("kanal", 110.0), ("async-channel", 1000.0), ("tokio-mpsc", 1200.0)]);
    let mut place = Timed { ms, spent: HashMap::new() };
    let args = ["--channels", "flume,kanal,async-channel,tokio-mpsc", "--keep", "tokio-mpsc", "--tasks", "4"];
    let more = ["--modes", "cloned-send", "--capacity", "1024", "--runtimes", "current-thread", "--samples", "3"];
    let file = sweep(&[&args[..], &more, &["--max-time", "0"]].concat(), &mut place);
    let cell = |channel: &str| &file.cells[file.order.iter().find(|key| key.channel == channel).unwrap()];
    let laggard = cell("async-channel");
    // Every sample but one that ran before any full sample of its round is stopped at 4× the
    // fastest (400 ms), and its figure is its rate over what it took: 1 s a run.
    assert_eq!(laggard.ok.len(), 2, "screening left it out after two samples");
    assert!(laggard.bounded >= 1, "{laggard:?}");
    let per_run_ms = |ns: &f64| ns * (1u64 << 20) as f64 / 1e6;
    assert!(laggard.ok.iter().all(|ns| (per_run_ms(ns) - 1000.0).abs() < 0.1), "{laggard:?}");
    let full = Duration::from_millis(1000);
    let bound = Duration::from_millis(100).mul_f64(BOUND_CUT);
    assert_eq!(place.spent["async-channel"], full * (2 - laggard.bounded as u32) + bound * laggard.bounded as u32);
    for channel in ["flume", "kanal", "tokio-mpsc"] {
        assert_eq!(cell(channel).bounded, 0, "{channel} ran every message");
    }
    assert_eq!(cell("tokio-mpsc").ok.len(), 3, "a kept channel is never screened out nor bounded");
    let band = of_file(&file).remove(0);
    let marked: Vec<(&str, bool)> =
        band.speed.entries.iter().map(|entry| (entry.channel.as_str(), entry.figures.bounded)).collect();
    assert_eq!(marked, [("flume", false), ("kanal", false), ("async-channel", true), ("tokio-mpsc", false)]);
}

#[test]
fn a_sample_shorter_than_the_floor_runs_in_full_however_far_behind() {
    let ms = HashMap::from([("flume", 5.0), ("async-channel", 90.0)]);
    let mut place = Timed { ms, spent: HashMap::new() };
    let args = ["--channels", "flume,async-channel", "--tasks", "4", "--modes", "cloned-send", "--capacity", "1024"];
    let more = ["--runtimes", "current-thread", "--samples", "2", "--max-time", "0"];
    let file = sweep(&[&args[..], &more].concat(), &mut place);
    assert!(BOUND_FLOOR > Duration::from_millis(90));
    assert!(file.cells.values().all(|cell| cell.bounded == 0), "{:?}", file.cells);
    assert_eq!(place.spent["async-channel"], Duration::from_millis(180));
}

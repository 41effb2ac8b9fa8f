//! The stress a channel passes before it joins the table: every message once and in order at
//! 512 tasks, on both runtimes, in both modes, at the default sweep's two capacities, received
//! one at a time and in batches of 64, 100 runs each, every sample under a watchdog so that a
//! hang is a failure, not a stuck test. Too long for the regular suite (which runs every channel
//! at small sizes in `tests/channels.rs`): run it by hand in release, naming the channels:
//!
//! ```sh
//! STRESS_CHANNELS=batch-channel,tokio-mpmc cargo test --release --test stress -- --ignored --nocapture
//! ```

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use channel_bench::registry;
use channel_bench::run::measure::{Job, RuntimeKind, Watchdog, guarded_sample};
use channel_bench::run::payload::PayloadSize;
use channel_bench::run::workload::{Mode, Workload};

/// Runs of each combination.
const RUNS: usize = 100;
/// Sending tasks: a room of 512 participants.
const TASKS: usize = 512;
/// 64 messages a task.
const MESSAGES: u64 = 64 * TASKS as u64;
/// The default sweep's capacities: in merged-recv 2 and 128 slots a task's channel.
const CAPACITIES: [usize; 2] = [1024, 65536];
/// One message a receive, and the batch receive.
const BATCHES: [usize; 2] = [1, 64];
/// A sample takes milliseconds; one still running after this has hung.
const TIMEOUT: Duration = Duration::from_secs(20);
/// Failed samples after which a channel is not run further: it has failed.
const ENOUGH_FAILURES: usize = 5;

/// The channels of `STRESS_CHANNELS` (comma-separated names), every channel of the table when unset.
fn channels() -> Vec<&'static registry::ChannelEntry> {
    match std::env::var("STRESS_CHANNELS") {
        Ok(names) => names
            .split(',')
            .map(|name| registry::find(name).unwrap_or_else(|| panic!("no channel named {name:?}")))
            .collect(),
        Err(_) => registry::CHANNELS.iter().collect(),
    }
}

#[test]
#[ignore = "minutes in release: run by hand before a channel joins the table"]
fn every_message_once_and_in_order_at_512_tasks_100_runs() {
    let watchdog = Watchdog::new(TIMEOUT, Arc::new(AtomicBool::new(false))).unwrap();
    let mut failures = Vec::new();
    for channel in channels() {
        let started = Instant::now();
        let (mut samples, mut failed) = (0, 0);
        for run in 0..RUNS {
            if failed >= ENOUGH_FAILURES {
                break;
            }
            for runtime in RuntimeKind::ALL {
                for mode in Mode::ALL {
                    for (capacity, batch) in CAPACITIES.into_iter().flat_map(|c| BATCHES.map(|b| (c, b))) {
                        let workload = Workload {
                            payload: PayloadSize::Fixed(16),
                            batch,
                            ..Workload::new(mode, TASKS, MESSAGES, capacity)
                        };
                        let job = Job {
                            channel: channel.name.to_owned(),
                            prepare: Some(channel.prepare),
                            runtime,
                            workers: 2,
                            workload,
                            warmups: 0,
                            bound: None,
                            slowed: 0.0,
                        };
                        let sample = guarded_sample(&job, &watchdog).unwrap().expect("not interrupted");
                        samples += 1;
                        if !sample.status.is_ok() {
                            let cell = format!("{} {} capacity {capacity} batch {batch}", runtime.name(), mode.name());
                            let failure = format!("{} run {run} {cell}: {:?}", channel.name, sample.status);
                            println!("{failure}");
                            failures.push(failure);
                            failed += 1;
                        }
                    }
                }
            }
        }
        println!("{}: {samples} samples, {failed} failed, {:.1} s", channel.name, started.elapsed().as_secs_f64());
    }
    assert!(failures.is_empty(), "{} failed samples:\n{}", failures.len(), failures.join("\n"));
}

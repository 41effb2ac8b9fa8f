//! How a run is timed: build the runtime, spawn a run, start the clock only once every
//! task waits at the gate, stop it when the receiver and all senders are done.
//! Silent: returns data, prints nothing.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use anyhow::Context;
use futures::future::Either;
use tokio::runtime::{Builder, Runtime};

use super::allocs::{self, AllocCount};
use super::latency::Latency;
use super::scenario::Prepare;
use super::verify::Status;
use super::workload::Workload;

/// Which tokio scheduler runs the tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum RuntimeKind {
    /// The work-stealing scheduler with `--workers` worker threads.
    MultiThread,
    /// Everything on one thread.
    CurrentThread,
}

impl RuntimeKind {
    /// Every runtime, in sweep order.
    pub const ALL: [RuntimeKind; 2] = [RuntimeKind::MultiThread, RuntimeKind::CurrentThread];

    /// The name used on the command line and in the CSV.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeKind::MultiThread => "multi-thread",
            RuntimeKind::CurrentThread => "current-thread",
        }
    }

    /// Threads that run tasks: `workers` for multi-thread, 1 for current-thread.
    pub fn threads(self, workers: usize) -> usize {
        match self {
            RuntimeKind::MultiThread => workers,
            RuntimeKind::CurrentThread => 1,
        }
    }

    /// A fresh runtime of this kind; with `timer`, its time driver too (paced runs need it;
    /// the others go without, as before pacing existed). Worker threads add their allocation
    /// counts to the totals as they stop ([`allocs::flush_thread`]).
    pub fn build(self, workers: usize, timer: bool) -> io::Result<Runtime> {
        let mut builder = match self {
            RuntimeKind::MultiThread => {
                let mut builder = Builder::new_multi_thread();
                builder.worker_threads(workers);
                builder
            }
            RuntimeKind::CurrentThread => Builder::new_current_thread(),
        };
        if timer {
            builder.enable_time();
        }
        builder.on_thread_stop(allocs::flush_thread).build()
    }
}

/// One timed run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// Wall time from opening the gate to the last task finishing.
    pub elapsed: Duration,
    /// Process CPU time (user + system, all threads) over the same interval.
    pub cpu: Duration,
    /// What the receiver found.
    pub status: Status,
    /// Payload bytes received.
    pub bytes: u64,
    /// Send→receive latency percentiles, with `--latency`.
    pub latency: Option<Latency>,
    /// The mean interval between a task's bursts, with `--pace`.
    pub pace_actual: Option<Duration>,
    /// Allocations inside the clock, with `--count-allocs` (filled in by [`guarded_sample`]
    /// once every thread of the sample has stopped).
    pub allocs: Option<AllocCount>,
    /// Messages the senders dropped on a full channel (`--send try`); 0 otherwise.
    pub dropped: u64,
}

impl Sample {
    /// A sample that produced nothing but a wall time and a failure.
    pub fn failed(elapsed: Duration, cpu: Duration, status: Status) -> Self {
        Self { elapsed, cpu, status, bytes: 0, latency: None, pace_actual: None, allocs: None, dropped: 0 }
    }

    /// Messages delivered of the `messages` sent: all of them, less those dropped under `--send try`.
    pub fn delivered(&self, messages: u64) -> u64 {
        messages.saturating_sub(self.dropped)
    }

    /// Wall nanoseconds per message delivered (of `messages` sent): under `--send try` the
    /// dropped ones do not count, so a channel cannot look fast by dropping. A sample that
    /// delivered nothing counts as one message.
    pub fn ns_per_message(&self, messages: u64) -> f64 {
        self.elapsed.as_nanos() as f64 / self.delivered(messages).max(1) as f64
    }

    /// Payload megabytes (10^6 bytes) received per second of wall time.
    pub fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / self.elapsed.as_secs_f64().max(f64::MIN_POSITIVE) / 1e6
    }
}

/// Runs `workload` over `channel` once on `runtime` and times it. The runtime needs its
/// timer if the workload is paced.
pub fn sample(runtime: &Runtime, prepare: Prepare, workload: &Workload) -> Sample {
    runtime.block_on(timed_run(prepare, workload, false))
}

async fn timed_run(prepare: Prepare, workload: &Workload, count_allocs: bool) -> Sample {
    let prepared = prepare(workload);
    prepared.all_ready().await;
    allocs::set_window(count_allocs);
    let cpu_start = process_cpu_time();
    let start = Instant::now();
    prepared.release();
    let delivery = prepared.finish().await;
    let elapsed = start.elapsed();
    let cpu = process_cpu_time().saturating_sub(cpu_start);
    allocs::set_window(false);
    let mut status = delivery.status;
    if let (true, Err(error)) = (status.is_ok(), workload.sink.check(delivery.bytes, workload.keep_sink)) {
        status = Status::Sink(error);
    }
    Sample {
        elapsed,
        cpu,
        status,
        bytes: delivery.bytes,
        latency: delivery.latency.and_then(|latency| latency.finish()),
        pace_actual: delivery.pace_actual,
        allocs: None,
        dropped: delivery.dropped,
    }
}

/// How long a [`guarded_sample`] may take, and the flag that interrupts it.
#[derive(Debug, Clone)]
pub struct Watchdog {
    /// The most a sample (with its warm-ups) may take.
    pub timeout: Duration,
    /// Set by the SIGINT handler.
    pub interrupted: Arc<AtomicBool>,
}

impl Watchdog {
    /// Whether the user asked the sweep to stop.
    pub fn is_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::Relaxed)
    }
}

/// How often a waiting watchdog looks at the interrupt flag.
const WATCH_INTERVAL: Duration = Duration::from_millis(50);

/// Runs `warmups` unrecorded runs of `warm_up`, then one sample of `workload` (spawned by
/// `prepare`, a channel's scenario), on a fresh
/// `kind` runtime on a thread of its own, and waits for it at most `watchdog.timeout`.
/// A sample that finishes is torn down completely (runtime, worker threads, its thread)
/// before this returns. One that overstays is abandoned: its runtime is told to stop and
/// shuts down in the background without being waited for, so a hung channel cannot hang
/// the sweep; its sample has status [`Status::Timeout`]. `None` when the user interrupted
/// it: nothing was measured.
pub fn guarded_sample(
    kind: RuntimeKind,
    workers: usize,
    prepare: Prepare,
    workload: &Workload,
    (warm_up, warmups): (&Workload, usize),
    watchdog: &Watchdog,
) -> anyhow::Result<Option<Sample>> {
    let runtime = kind
        .build(workers, workload.pace.is_some())
        .with_context(|| format!("cannot start a {} tokio runtime", kind.name()))?;
    let count_allocs = workload.count_allocs;
    if count_allocs {
        allocs::reset();
    }
    let (finished, result) = std::sync::mpsc::channel();
    let (abort, aborted) = futures::channel::oneshot::channel::<()>();
    let (workload, warm_up) = (workload.clone(), warm_up.clone());
    let thread = std::thread::Builder::new()
        .name("channel-bench sample".to_owned())
        .spawn(move || {
            let outcome = runtime.block_on(async {
                let runs = async {
                    for _ in 0..warmups {
                        timed_run(prepare, &warm_up, false).await;
                    }
                    timed_run(prepare, &workload, count_allocs).await
                };
                match futures::future::select(std::pin::pin!(runs), aborted).await {
                    Either::Left((sample, _)) => Some(sample),
                    Either::Right(_) => None,
                }
            });
            match outcome {
                // Dropping waits for the worker threads to exit, so no teardown overlaps the next sample.
                Some(_) => drop(runtime),
                // Tasks stuck in a hung channel are dropped, not waited for.
                None => runtime.shutdown_background(),
            }
            allocs::flush_thread();
            let _ = finished.send(outcome);
        })
        .context("cannot start a thread for the sample")?;

    let cpu_start = process_cpu_time();
    let start = Instant::now();
    loop {
        match result.recv_timeout(WATCH_INTERVAL) {
            Ok(Some(mut sample)) => {
                // The thread ends right after sending; joining makes sure it has.
                let _ = thread.join();
                sample.allocs = count_allocs.then(allocs::totals);
                return Ok(Some(sample));
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let status = Status::Panicked("the sample's thread ended without a result".to_owned());
                return Ok(Some(Sample::failed(start.elapsed(), Duration::ZERO, status)));
            }
            Err(RecvTimeoutError::Timeout) if watchdog.is_interrupted() => {
                drop(abort);
                return Ok(None);
            }
            Err(RecvTimeoutError::Timeout) if start.elapsed() >= watchdog.timeout => {
                drop(abort);
                let elapsed = start.elapsed();
                let cpu = process_cpu_time().saturating_sub(cpu_start);
                return Ok(Some(Sample::failed(elapsed, cpu, Status::Timeout(watchdog.timeout))));
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// User + system CPU time of the whole process so far, from `getrusage(RUSAGE_SELF)`.
pub fn process_cpu_time() -> Duration {
    // SAFETY: rusage is plain integers, so all-zero is a valid value; getrusage only writes
    // into the struct it is given, and RUSAGE_SELF is always a valid `who`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let to_duration =
        |time: libc::timeval| Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64);
    to_duration(usage.ru_utime) + to_duration(usage.ru_stime)
}

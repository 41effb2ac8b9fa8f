//! How a run is timed: build the runtime, spawn a run, start the clock only once every
//! task waits at the gate, stop it when the receiver and all senders are done.
//! Silent: returns data, prints nothing.

use std::io;
use std::time::{Duration, Instant};

use tokio::runtime::{Builder, Runtime};

use crate::channel::ChannelEntry;
use crate::scenario::Workload;
use crate::verify::Status;

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

    /// A fresh runtime of this kind.
    pub fn build(self, workers: usize) -> io::Result<Runtime> {
        match self {
            RuntimeKind::MultiThread => Builder::new_multi_thread().worker_threads(workers).build(),
            RuntimeKind::CurrentThread => Builder::new_current_thread().build(),
        }
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
}

impl Sample {
    /// Wall nanoseconds per message moved.
    pub fn ns_per_message(&self, messages: u64) -> f64 {
        self.elapsed.as_nanos() as f64 / messages as f64
    }
}

/// Runs `workload` over `channel` once on `runtime` and times it.
pub fn sample(runtime: &Runtime, channel: &ChannelEntry, workload: &Workload) -> Sample {
    runtime.block_on(async {
        let prepared = (channel.prepare)(workload);
        prepared.all_ready().await;
        let cpu_start = process_cpu_time();
        let start = Instant::now();
        prepared.release();
        let status = prepared.finish().await;
        let elapsed = start.elapsed();
        let cpu = process_cpu_time().saturating_sub(cpu_start);
        Sample { elapsed, cpu, status }
    })
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

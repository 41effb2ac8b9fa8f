//! One run's shape ([`Workload`]) and the names it is built from: [`Mode`], [`Merge`], [`Pace`].

use std::time::Duration;

use super::payload::{DEFAULT_PAYLOAD_BYTES, PayloadSize};
use super::sink::Sink;

/// How the sending tasks reach the one receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Mode {
    /// One bounded channel of `capacity` slots; its sender is cloned into every task.
    ClonedSend,
    /// One bounded channel of `capacity / tasks` slots per task; the receivers are merged
    /// into one stream, as `--merge` says.
    MergedRecv,
}

impl Mode {
    /// Every mode, in sweep order.
    pub const ALL: [Mode; 2] = [Mode::ClonedSend, Mode::MergedRecv];

    /// The name used on the command line and in the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Mode::ClonedSend => "cloned-send",
            Mode::MergedRecv => "merged-recv",
        }
    }
}

/// How the receiver of merged-recv merges the tasks' receivers into one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, clap::ValueEnum)]
pub enum Merge {
    /// `futures_buffered::MergeBounded` (formerly `Merge`): wakes only the stream that is ready.
    #[default]
    FuturesBuffered,
    /// `futures::stream::select_all`, a `FuturesUnordered` of the streams.
    SelectAll,
    /// `tokio_stream::StreamMap`, which polls the streams in turn from a random start.
    StreamMap,
}

impl Merge {
    /// The name used on the command line and in the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Merge::FuturesBuffered => "futures-buffered",
            Merge::SelectAll => "select-all",
            Merge::StreamMap => "stream-map",
        }
    }
}

/// `--pace`: each task sends bursts of `burst` messages, one burst every `interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pace {
    /// Time from one burst's start to the next's.
    pub interval: Duration,
    /// Messages per burst (the last burst of a task may be shorter).
    pub burst: u32,
}

/// One run's shape: what is sent, by how many tasks, through how much buffer, and what the
/// receiver does and records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// How the tasks reach the receiver.
    pub mode: Mode,
    /// Number of sending tasks.
    pub tasks: usize,
    /// Messages sent in total, across all tasks.
    pub messages: u64,
    /// Slots in flight in total: the one channel's in cloned-send, split evenly in merged-recv.
    pub capacity: usize,
    /// Payload size of each message.
    pub payload: PayloadSize,
    /// Seed of the payload sizes when they vary.
    pub seed: u64,
    /// How merged-recv merges its receivers (unused in cloned-send).
    pub merge: Merge,
    /// Bursts at a fixed interval, or `None` to send as fast as the channel takes them.
    pub pace: Option<Pace>,
    /// Whether every message is stamped and its latency recorded.
    pub latency: bool,
    /// What the receiver does with each payload.
    pub sink: Sink,
    /// Whether the sink's file stays after the sample (it is checked either way).
    pub keep_sink: bool,
    /// Whether allocations inside the clock are counted (see [`super::allocs`]).
    pub count_allocs: bool,
}

/// The most messages a warm-up run moves. A warm-up only has to start the runtime's threads
/// and warm the allocator; without any, the first of 1,048,576-message samples already
/// matched the rest (README, "Warm-up"), so a full-size one would only cost time.
pub const WARMUP_MESSAGES: u64 = 1 << 16;

impl Workload {
    /// A saturating run with the defaults: 1200-byte payloads, no latency, no sink, futures-buffered.
    pub fn new(mode: Mode, tasks: usize, messages: u64, capacity: usize) -> Self {
        Workload {
            mode,
            tasks,
            messages,
            capacity,
            payload: PayloadSize::Fixed(DEFAULT_PAYLOAD_BYTES),
            seed: 0,
            merge: Merge::default(),
            pace: None,
            latency: false,
            sink: Sink::None,
            keep_sink: false,
            count_allocs: false,
        }
    }

    /// The same workload cut to [`WARMUP_MESSAGES`] (but at least one message per task), and
    /// unpaced: a warm-up starts threads and warms caches, it does not need the schedule.
    pub fn warm_up(&self) -> Workload {
        let messages = self.messages.min(WARMUP_MESSAGES.max(self.tasks as u64));
        Workload { messages, pace: None, count_allocs: false, ..self.clone() }
    }

    /// Messages that task `task` sends: an even split, the first `messages % tasks` tasks one more.
    pub fn messages_for(&self, task: usize) -> u32 {
        let tasks = self.tasks as u64;
        let extra = u64::from((task as u64) < self.messages % tasks);
        u32::try_from(self.messages / tasks + extra).expect("validated: per-task count fits u32")
    }

    /// Slots of each channel: `capacity` in cloned-send, `capacity / tasks` in merged-recv.
    pub fn capacity_per_channel(&self) -> usize {
        match self.mode {
            Mode::ClonedSend => self.capacity,
            Mode::MergedRecv => self.capacity / self.tasks,
        }
    }

    /// Senders sharing each channel: all tasks in cloned-send, one in merged-recv.
    pub fn senders_per_channel(&self) -> usize {
        match self.mode {
            Mode::ClonedSend => self.tasks,
            Mode::MergedRecv => 1,
        }
    }

    /// The least time a paced run can take: the busiest task's last burst starts
    /// `bursts - 1` intervals after its first. Zero when unpaced.
    pub fn paced_duration(&self) -> Duration {
        let Some(pace) = self.pace else { return Duration::ZERO };
        let bursts = self.messages_for(0).div_ceil(pace.burst);
        pace.interval * bursts.saturating_sub(1)
    }
}

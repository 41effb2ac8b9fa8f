//! One run's shape ([`Workload`]) and the names it is built from: [`Mode`], [`Merge`],
//! [`Pace`], [`Phase`], [`SendMode`].

use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

use super::payload::{DEFAULT_PAYLOAD_BYTES, PayloadSize};
use super::sink::Sink;

named! {
    /// How the sending tasks reach the one receiver.
    pub enum Mode {
        /// One bounded channel of `capacity` slots; its sender is cloned into every task.
        #[default]
        ClonedSend => "cloned-send",
        /// One bounded channel per task ([`Workload::capacity_per_channel`] slots each); the
        /// receivers are merged into one stream, as `--merge` says.
        MergedRecv => "merged-recv",
    }
}

named! {
    /// How the receiver of merged-recv merges the tasks' receivers into one stream.
    pub enum Merge {
        /// `futures_buffered::MergeBounded` (formerly `Merge`): wakes only the stream that is ready.
        #[default]
        FuturesBuffered => "futures-buffered",
        /// `futures::stream::select_all`, a `FuturesUnordered` of the streams.
        SelectAll => "select-all",
        /// `tokio_stream::StreamMap`, which polls the streams in turn from a random start.
        StreamMap => "stream-map",
    }
}

named! {
    /// How a sending task hands a message to the channel (`--send`).
    pub enum SendMode {
        /// The crate's async send: wait while the channel is full (nothing is lost).
        #[default]
        Wait => "wait",
        /// The crate's non-blocking send: drop the message when the channel is full and count it,
        /// as an SFU drops a packet rather than stall every participant behind one slow path.
        Try => "try",
    }
}

named! {
    /// What a message is (`--record-bytes`): the default message, a 48-byte header holding a handle
    /// to a shared payload buffer, or a record of a fixed size moved by value through the channel.
    pub enum RecordBytes {
        /// The default message: `--payload` sizes the shared buffer it points to.
        #[default]
        Shared => "shared",
        /// A 48-byte record by value: the header and 32 bytes of body.
        B48 => "48",
        /// A 256-byte record by value.
        B256 => "256",
        /// A 1,200-byte record by value: an RTP packet's size, copied into the channel and out.
        B1200 => "1200",
    }
}

impl RecordBytes {
    /// The bytes a record of this size moves by value; `None` for the shared message.
    pub fn by_value(self) -> Option<u32> {
        self.name().parse().ok()
    }

    /// The bytes a channel's slot holds for one message of this kind.
    pub fn slot_bytes(self) -> usize {
        self.by_value().map_or(std::mem::size_of::<crate::channel::Message>(), |bytes| bytes as usize)
    }
}

named! {
    /// When each paced task's first burst is due (`--phase`).
    pub enum Phase {
        /// Each task starts at its own offset, drawn from `--seed` within one interval: participants
        /// whose frames do not all land at once, as in a real call.
        #[default]
        Random => "random",
        /// Every task's first burst is due the moment the gate opens: all bursts land at once,
        /// the worst case.
        Aligned => "aligned",
    }
}

impl Phase {
    /// What the phase means for a room, as every label says it: `out of phase` or `in phase`.
    pub fn words(self) -> &'static str {
        match self {
            Phase::Random => "out of phase",
            Phase::Aligned => "in phase",
        }
    }
}

/// `--pace`: each task sends bursts of `burst` messages, one burst every `interval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pace {
    /// Time from one burst's start to the next's.
    pub interval: Duration,
    /// Messages per burst (the last burst of a task may be shorter).
    pub burst: u32,
    /// When each task's first burst is due.
    pub phase: Phase,
}

/// One run's shape: what is sent, by how many tasks, through how much buffer, and what the
/// receiver does and records. A child refuses a field it does not know (`run::rounds::PROTOCOL`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// How the tasks reach the receiver.
    pub mode: Mode,
    /// Number of sending tasks.
    pub tasks: usize,
    /// Messages sent in total, across all tasks.
    pub messages: u64,
    /// `--capacity`: the one channel's slots in cloned-send; in merged-recv, shared evenly among
    /// the tasks' channels ([`Workload::capacity_per_channel`]), unless `task_capacity` is set.
    pub capacity: usize,
    /// `--task-capacity`: the slots of each task's own channel in merged-recv, whatever the task
    /// count; `None` to share `capacity` instead.
    #[serde(default)]
    pub task_capacity: Option<usize>,
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
    /// Whether senders wait for a slot or drop the message when the channel is full.
    pub send: SendMode,
    /// `--batch`: the most messages the receiver takes per wake-up ([`Channel::recv_batch`]);
    /// 1 takes one message per wake-up.
    ///
    /// [`Channel::recv_batch`]: crate::channel::Channel::recv_batch
    pub batch: usize,
    /// `--work-per-batch`: how long the receiver spins, busy, after each batch it takes (its
    /// own work on the batch); `None` for no work.
    pub work_per_batch: Option<Duration>,
    /// `--record-bytes`: the shared message, or a record of that size moved by value.
    #[serde(default)]
    pub record: RecordBytes,
}

/// A value of the capacity axis: what a user sizes their channels by. Two capacities are
/// never ranked, pooled or paired together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capacity {
    /// `--capacity N`: the one channel's N slots in cloned-send, shared among the tasks'
    /// channels in merged-recv.
    Shared(u64),
    /// `--task-capacity N`: N slots in each task's own channel (merged-recv).
    PerTask(u64),
}

impl Capacity {
    /// The slots: in all when shared, of each task's channel when per task.
    pub fn slots(self) -> u64 {
        match self {
            Capacity::Shared(slots) | Capacity::PerTask(slots) => slots,
        }
    }
}

impl Default for Capacity {
    fn default() -> Self {
        Capacity::Shared(0)
    }
}

impl std::fmt::Display for Capacity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let each = if matches!(self, Capacity::PerTask(_)) { " per task" } else { "" };
        write!(f, "{} slots{each}", thousands(&self.slots().to_string()))
    }
}

/// `25,000`: the thousands of a run of digits separated, as every report writes a count (a
/// sign or a decimal point ends the grouping at that character).
pub fn thousands(digits: &str) -> String {
    let mut out = String::new();
    for (at, digit) in digits.chars().enumerate() {
        if at > 0
            && digit.is_ascii_digit()
            && (digits.len() - at).is_multiple_of(3)
            && out.ends_with(|c: char| c.is_ascii_digit())
        {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The fewest slots a task's own channel gets in merged-recv when `--capacity` is shared among
/// the tasks: a participant's queue holds a few frames of packets, never one or two slots,
/// so at a small capacity and many tasks the channels hold more than `--capacity` in all.
pub const MIN_TASK_SLOTS: usize = 16;

/// The resolution of tokio's timer: it ticks in whole milliseconds, so no pace can be finer
/// and a burst may start up to one tick after its deadline.
pub const TIMER_TICK: Duration = Duration::from_millis(1);

/// The share of the interval by which bursts may start late on average before a paced
/// sample is marked as one whose pacer could not keep up ([`Workload::pacer_behind`]).
pub const BEHIND_FRACTION: f64 = 0.1;

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
            task_capacity: None,
            payload: PayloadSize::Fixed(DEFAULT_PAYLOAD_BYTES),
            seed: 0,
            merge: Merge::default(),
            pace: None,
            latency: false,
            sink: Sink::None,
            keep_sink: false,
            count_allocs: false,
            send: SendMode::Wait,
            batch: 1,
            work_per_batch: None,
            record: RecordBytes::Shared,
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

    /// Slots of each channel: `capacity` in cloned-send; in merged-recv `task_capacity` when set,
    /// else `capacity / tasks` but never fewer than [`MIN_TASK_SLOTS`].
    pub fn capacity_per_channel(&self) -> usize {
        match (self.mode, self.task_capacity) {
            (Mode::ClonedSend, _) => self.capacity,
            (Mode::MergedRecv, Some(slots)) => slots,
            (Mode::MergedRecv, None) => (self.capacity / self.tasks).max(MIN_TASK_SLOTS),
        }
    }

    /// The capacity as asked, then what the tasks' channels hold where that differs from it:
    /// `100 slots asked, 16 a channel (8,192 in all)`; `1,024 slots` where they hold what was asked.
    pub fn capacity_held(&self) -> String {
        let (asked, each) = (self.capacity_axis(), self.capacity_per_channel());
        let all = each.saturating_mul(self.tasks);
        match asked {
            Capacity::Shared(slots) if self.mode == Mode::MergedRecv && all as u64 != slots => {
                let (each, all) = (thousands(&each.to_string()), thousands(&all.to_string()));
                format!("{asked} asked, {each} a channel ({all} in all)")
            }
            _ => asked.to_string(),
        }
    }

    /// The value of the capacity axis this workload runs at.
    pub fn capacity_axis(&self) -> Capacity {
        match (self.mode, self.task_capacity) {
            (Mode::MergedRecv, Some(slots)) => Capacity::PerTask(slots as u64),
            _ => Capacity::Shared(self.capacity as u64),
        }
    }

    /// Senders sharing each channel: all tasks in cloned-send, one in merged-recv.
    pub fn senders_per_channel(&self) -> usize {
        match self.mode {
            Mode::ClonedSend => self.tasks,
            Mode::MergedRecv => 1,
        }
    }

    /// How long after the gate opens task `task`'s first burst is due: zero unpaced or under
    /// [`Phase::Aligned`]; under [`Phase::Random`] an offset in `[0, interval)`, drawn from a
    /// generator seeded with `seed` and the task number, the same for every channel.
    pub fn phase_offset(&self, task: u32) -> Duration {
        match self.pace {
            Some(Pace { interval, phase: Phase::Random, .. }) => {
                // Spread the task numbers over the seed space, as the payload sizes do, with a
                // different constant so the offsets are not the sizes' stream.
                let seed = self.seed ^ u64::from(task).wrapping_mul(0xD1B5_4A32_D192_ED03) ^ 0x0050_4841_5345;
                let nanos = u64::try_from(interval.as_nanos()).unwrap_or(u64::MAX).max(1);
                Duration::from_nanos(Pcg64Mcg::seed_from_u64(seed).random_range(0..nanos))
            }
            _ => Duration::ZERO,
        }
    }

    /// The interval between a task's bursts; zero when unpaced.
    pub fn pace_interval(&self) -> Duration {
        self.pace.map_or(Duration::ZERO, |pace| pace.interval)
    }

    /// The schedule's length: a task's bursts × the interval (what `--duration` asked for,
    /// rounded down to whole frames). `None` when unpaced.
    pub fn schedule(&self) -> Option<Duration> {
        let pace = self.pace?;
        Some(pace.interval * self.messages_for(0).div_ceil(pace.burst))
    }

    /// Whether the pacer could not keep up: its bursts started late on average by more than
    /// one [`TIMER_TICK`] (tokio wakes a timer on the tick after its deadline) plus
    /// [`BEHIND_FRACTION`] of the interval, or the run overran its schedule by more
    /// than one interval (its last burst is due before the schedule ends, whatever the phase).
    /// Always false unpaced.
    pub fn pacer_behind(&self, elapsed: Duration, mean_lateness: Duration) -> bool {
        let (Some(pace), Some(schedule)) = (self.pace, self.schedule()) else { return false };
        mean_lateness > TIMER_TICK + pace.interval.mul_f64(BEHIND_FRACTION) || elapsed > schedule + pace.interval
    }

    /// The least time a paced run can take: the busiest task's last burst starts
    /// `bursts - 1` intervals after its first. Zero when unpaced.
    pub fn paced_duration(&self) -> Duration {
        self.schedule().map_or(Duration::ZERO, |schedule| schedule.saturating_sub(self.pace_interval()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workload_with_a_field_this_build_does_not_know_is_refused() {
        let known = serde_json::to_value(Workload::new(Mode::ClonedSend, 1, 10, 4)).unwrap();
        assert_eq!(
            serde_json::from_value::<Workload>(known.clone()).unwrap(),
            Workload::new(Mode::ClonedSend, 1, 10, 4)
        );
        let mut newer = known;
        newer["record_layout"] = "packed".into();
        assert!(serde_json::from_value::<Workload>(newer).is_err(), "an older child would measure it wrong");
    }

    #[test]
    fn merged_recv_shares_a_capacity_with_a_floor_or_gives_each_task_its_own() {
        let merged = |tasks, capacity, task_capacity| {
            let workload = Workload { task_capacity, ..Workload::new(Mode::MergedRecv, tasks, 4096, capacity) };
            (workload.capacity_per_channel(), workload.capacity_axis())
        };
        assert_eq!(merged(4, 1024, None), (256, Capacity::Shared(1024)));
        assert_eq!(merged(512, 65536, None), (128, Capacity::Shared(65536)));
        assert_eq!(merged(512, 1024, None), (MIN_TASK_SLOTS, Capacity::Shared(1024)), "2 slots would be the seed's");
        assert_eq!(merged(300, 76800, Some(256)), (256, Capacity::PerTask(256)));
        let cloned = Workload { task_capacity: None, ..Workload::new(Mode::ClonedSend, 512, 4096, 1024) };
        assert_eq!((cloned.capacity_per_channel(), cloned.capacity_axis()), (1024, Capacity::Shared(1024)));
        assert_eq!(cloned.capacity_held(), "1,024 slots");
        let shared = Workload::new(Mode::MergedRecv, 512, 4096, 100);
        assert_eq!(shared.capacity_held(), "100 slots asked, 16 a channel (8,192 in all)");
        assert_eq!(
            [Capacity::Shared(65536).to_string(), Capacity::PerTask(256).to_string()],
            ["65,536 slots", "256 slots per task"]
        );
    }

    fn paced(phase: Phase, seed: u64) -> Workload {
        let pace = Pace { interval: Duration::from_millis(20), burst: 8, phase };
        Workload { pace: Some(pace), seed, ..Workload::new(Mode::ClonedSend, 64, 6400, 64) }
    }

    #[test]
    fn random_offsets_stay_within_one_interval_repeat_per_seed_and_differ_between_seeds() {
        let offsets = |seed| (0..64).map(|task| paced(Phase::Random, seed).phase_offset(task)).collect::<Vec<_>>();
        let (one, again, other) = (offsets(1), offsets(1), offsets(2));
        assert!(one.iter().all(|offset| *offset < Duration::from_millis(20)), "{one:?}");
        assert_eq!(one, again);
        assert_ne!(one, other);
        // Spread over the interval, not bunched: 64 draws cover both halves of it.
        assert!(one.iter().any(|offset| *offset < Duration::from_millis(10)));
        assert!(one.iter().any(|offset| *offset >= Duration::from_millis(10)));
        let distinct: std::collections::HashSet<_> = one.iter().collect();
        assert!(distinct.len() > 60, "{} distinct of 64", distinct.len());
    }

    #[test]
    fn aligned_and_unpaced_tasks_start_at_the_gate() {
        let aligned = paced(Phase::Aligned, 1);
        assert!((0..64).all(|task| aligned.phase_offset(task) == Duration::ZERO));
        let unpaced = Workload::new(Mode::ClonedSend, 64, 6400, 64);
        assert!((0..64).all(|task| unpaced.phase_offset(task) == Duration::ZERO));
    }
}

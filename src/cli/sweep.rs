//! The options of a sweep, and the parsers of the values only a sweep takes.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::{
    DEFAULT_BURST, DEFAULT_CAPACITIES, DEFAULT_DURATION, DEFAULT_MAX_TIME_SECS, DEFAULT_MESSAGES, DEFAULT_SAMPLES,
    DEFAULT_TASKS, DEFAULT_TIMEOUT_SECS, ExportArgs, MAX_TASK_RANGE, MAX_WORKERS, QUICK_MAX_TIME_SECS, QUICK_MESSAGES,
    QUICK_SAMPLES, QUICK_TASKS, list, positive,
};
use crate::run::measure::RuntimeKind;
use crate::run::payload::{DEFAULT_PAYLOAD_BYTES, PayloadSize};
use crate::run::sink::{Sink, WRITE_BUFFER_BYTES};
use crate::run::workload::{
    MIN_TASK_SLOTS, Merge, Mode, Phase, RecordBytes, SendMode, TIMER_TICK as FINEST_PACE, WARMUP_MESSAGES,
};

/// The options of a sweep.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Messages moved per run, split evenly across the tasks, when senders run flat out
    #[arg(long, value_name = "N", help = format!(
        "Messages moved per run, split evenly across the tasks, when senders run flat out (under --pace the load is --duration) [default: {DEFAULT_MESSAGES}; --quick: {QUICK_MESSAGES}]"),
        value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    pub messages: Option<u64>,

    /// Comma-separated capacities, each a cell of its own (the help says how merged-recv shares them)
    #[arg(long, value_name = "LIST", help = format!(
        "Comma-separated capacities, each a cell of its own: the one channel's slots in cloned-send; \
         in merged-recv shared among the tasks' channels, capacity ÷ tasks each but at least {MIN_TASK_SLOTS} \
         [default: {}]", list(&DEFAULT_CAPACITIES)),
        value_delimiter = ',', value_parser = positive(), allow_negative_numbers = true)]
    pub capacity: Option<Vec<usize>>,

    /// Comma-separated slots of each task's own channel in merged-recv, whatever the task count
    /// (a participant's queue), instead of sharing --capacity; --capacity then sizes cloned-send only
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = positive(), allow_negative_numbers = true)]
    pub task_capacity: Option<Vec<usize>>,

    /// Comma-separated sending-task counts, each N or a range A..B of powers of two
    #[arg(long, value_name = "LIST", help = format!(
        "Comma-separated sending-task counts, each N or a range A..B of powers of two (1..8192 is 1,2,4,…,8192) \
         [default: {}; --quick: {}]", list(&DEFAULT_TASKS), list(&QUICK_TASKS)), value_delimiter = ',', value_parser = parse_tasks, allow_negative_numbers = true)]
    pub tasks: Option<Vec<TaskCounts>>,

    /// Comma-separated channels to measure [default: all; see --list-channels]
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub channels: Option<Vec<String>>,

    /// Comma-separated channels never screened out nor stopped at a bound, and measured in every
    /// duel round of their groups: the channels you came to follow (a program built on
    /// `app::main_with` follows its own channels without it)
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub keep: Option<Vec<String>>,

    /// Comma-separated modes [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub modes: Option<Vec<Mode>>,

    /// Comma-separated runtimes [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub runtimes: Option<Vec<RuntimeKind>>,

    /// Comma-separated worker-thread counts of the multi-thread runtime, each a cell of its own
    /// (more than the cores is allowed) [default: available parallelism]
    #[arg(long, value_name = "LIST", value_delimiter = ',', allow_negative_numbers = true,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_WORKERS as u64))]
    pub workers: Option<Vec<usize>>,

    /// Payload bytes per message (the default is an RTP packet's), or MIN..MAX: a size drawn
    /// uniformly per message (both ends included) from a generator seeded with --seed
    #[arg(long, value_name = "BYTES|MIN..MAX", default_value_t = PayloadSize::Fixed(DEFAULT_PAYLOAD_BYTES), allow_negative_numbers = true)]
    pub payload: PayloadSize,

    /// Seed of the payload sizes under --payload MIN..MAX: the same seed moves the same sizes
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,

    /// Comma-separated ways merged-recv merges its receivers: futures-buffered, select-all, stream-map
    /// [default: futures-buffered]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub merge: Option<Vec<Merge>>,

    /// Each task sends a burst of --burst messages every INTERVAL (such as 20ms) for --duration,
    /// instead of as fast as the channel takes them; at least 1ms (tokio's timer ticks in milliseconds)
    #[arg(long, value_name = "INTERVAL", value_parser = duration_in(FINEST_PACE, HOUR, "20ms or 1s"))]
    pub pace: Option<Duration>,

    /// How long each task sends its bursts under --pace: a paced cell lasts this long at any task count
    #[arg(long, value_name = "TIME", value_parser = duration_in(Duration::ZERO, HOUR, "2s or 500ms"), help = format!(
        "How long each task sends its bursts under --pace (such as 2s): a paced cell lasts this long at any task count [default: {}]",
        humantime::format_duration(DEFAULT_DURATION)))]
    pub duration: Option<Duration>,

    /// Messages per burst under --pace
    #[arg(long, value_name = "N", help = format!("Messages per burst under --pace [default: {DEFAULT_BURST}, a video frame's packets]"), value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub burst: Option<u32>,

    /// Comma-separated phases, each a cell of its own: when each paced task's first burst is due,
    /// random (an offset within one interval per task, drawn from --seed) or aligned (all at once,
    /// the worst case) [default: random]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub phase: Option<Vec<Phase>>,

    /// Comma-separated ways senders send, each a cell of its own: wait (for a free slot) or try
    /// (the non-blocking send: a message that finds the channel full is dropped and counted;
    /// ns/message is then per delivered message) [default: wait]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub send: Option<Vec<SendMode>>,

    /// Comma-separated batch sizes, each a cell of its own: the most messages the receiver takes
    /// per wake-up (after each awaited message, what is already queued, with the crate's batch
    /// receive where it has one) [default: 1]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = positive(), allow_negative_numbers = true)]
    pub batch: Option<Vec<usize>>,

    /// The receiver's own work on each batch it takes (such as 20us): a busy spin on the run's
    /// clock after the batch is verified, inside the clock [default: none]
    #[arg(long, value_name = "DURATION", value_parser = duration_in(Duration::ZERO, Duration::from_secs(1), "20us or 1ms"))]
    pub work_per_batch: Option<Duration>,

    /// Comma-separated kinds of message, each a cell of its own: shared (a 48-byte header with a
    /// handle to the --payload buffer, which no channel copies) or a record of 48, 256 or 1200
    /// bytes moved by value, copied into the channel's slot and out [default: shared]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub record_bytes: Option<Vec<RecordBytes>>,

    /// Stamp every message and record its send→receive latency: p50, p99, p99.9 and max per sample
    #[arg(long)]
    pub latency: bool,

    /// Comma-separated figures the room's decision weighs, in order: drops (frames overflowed in
    /// phase), cpu (CPU per message out of phase), p99 (pooled p99 in phase; needs --latency)
    /// [default: drops,cpu]
    #[arg(long, value_name = "ORDER", value_parser = crate::results::decision::weigh::parse)]
    pub weigh: Option<crate::results::decision::Weighing>,

    /// What the receiver does with each payload besides verifying it: none, or file:PATH
    #[arg(long, value_name = "none|file:PATH", default_value = "none", help = format!(
        "What the receiver does with each payload besides verifying it: none, or file:PATH (written through a {} KiB \
         buffered writer, checked for size, removed after each sample if the sweep created it; file:/dev/null is \
         written and left alone)", WRITE_BUFFER_BYTES / 1024))]
    pub sink: Sink,

    /// Leave the --sink file in place after each sample (it then holds the last sample's payloads)
    #[arg(long)]
    pub keep_sink: bool,

    /// Count allocations and bytes allocated per message inside the clock
    #[arg(long)]
    pub count_allocs: bool,

    /// Unrecorded warm-up runs before each sample (each is its cell's first in its round's process)
    #[arg(long, value_name = "N", default_value_t = 1, help = format!(
        "Unrecorded warm-up runs before each sample (each is its cell's first in its round's process), each of at \
         most {WARMUP_MESSAGES} messages"), allow_negative_numbers = true)]
    pub warmup: usize,

    /// Screening rounds: the first with every channel, later ones without the channels clearly behind
    #[arg(long, value_name = "N", help = format!(
        "Screening rounds: rounds of every group (its channels measured back to back), the first with every channel, \
         later ones without the channels clearly behind [default: {DEFAULT_SAMPLES}; --quick: {QUICK_SAMPLES}]"), value_parser = positive(), allow_negative_numbers = true)]
    pub samples: Option<usize>,

    /// Seconds per cell, averaged over the sweep, for the duels after screening (0: screening only)
    #[arg(long, value_name = "SECS", help = format!(
        "Seconds per cell, averaged over the sweep, for the duels after screening: rounds of each group's leader and \
         the channels not yet told apart from it, until every group is decided or the duels have taken this × the \
         number of cells, a band of task counts measured at fewer task counts than the default sweep's counting as \
         many cells as the default's (0: screening only) [default: {DEFAULT_MAX_TIME_SECS}; --quick: {QUICK_MAX_TIME_SECS}]"), value_parser = parse_seconds, allow_negative_numbers = true)]
    pub max_time: Option<f64>,

    /// Seconds a sample (with its warm-ups) may run before it is recorded as a timeout and abandoned
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TIMEOUT_SECS, value_parser = parse_timeout, allow_negative_numbers = true)]
    pub timeout: f64,

    /// CSV file to write [default: results/channel-bench-YYYYMMDDTHHMMSSZ.csv, the sweep's UTC start time]
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,

    /// Overwrite the sweep's files if they exist (--out and the .json, .md, .cells.json, .html beside it,
    /// each a regular file, emptied in place), and write an existing --sink file (emptied, then kept)
    #[arg(long)]
    pub force: bool,

    /// A short sweep: fewer messages, task counts and samples, and a shorter --max-time
    #[arg(long, help = format!(
        "A short sweep: {QUICK_MESSAGES} messages, tasks {}, {QUICK_SAMPLES} samples, --max-time {QUICK_MAX_TIME_SECS} \
         (explicit flags win)", list(&QUICK_TASKS)))]
    pub quick: bool,

    /// List the channels, their crate versions and capacity, and each crate's known problems, then exit
    #[arg(long)]
    pub list_channels: bool,

    /// Validate the sweep, print its cells, samples, an estimate of its wall time and its peak
    /// memory, and exit: nothing measured, nothing written
    #[arg(long)]
    pub dry_run: bool,

    /// The per-cell exports written at the end of the sweep.
    #[command(flatten)]
    pub export: ExportArgs,
}

/// The longest `--pace` interval and `--duration`: anything longer is a typo.
const HOUR: Duration = Duration::from_secs(3600);

/// A parser of a duration written like `example` (`humantime`): at least `low` (more than 0
/// where `low` is 0), at most `high`.
fn duration_in(
    low: Duration,
    high: Duration,
    example: &'static str,
) -> impl Fn(&str) -> Result<Duration, String> + Clone + Send + Sync + 'static {
    move |text| {
        let value = humantime::parse_duration(text).map_err(|error| format!("{error}: write it like {example}"))?;
        let (least, most) = (humantime::format_duration(low), humantime::format_duration(high));
        let least = if low.is_zero() { "more than 0".to_owned() } else { format!("at least {least}") };
        (!value.is_zero() && (low..=high).contains(&value))
            .then_some(value)
            .ok_or(format!("must be {least} and at most {most}"))
    }
}

fn parse_timeout(text: &str) -> Result<f64, String> {
    let seconds = parse_seconds(text)?;
    if seconds > 0.0 { Ok(seconds) } else { Err("must be more than 0 seconds".to_owned()) }
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        // Up to a day: anything longer is a typo, and Duration::from_secs_f64 must not overflow.
        Ok(seconds) if (0.0..=86_400.0).contains(&seconds) => Ok(seconds),
        Ok(_) => Err("must be seconds from 0 to 86400".to_owned()),
        Err(error) => Err(error.to_string()),
    }
}

/// One item of `--tasks`: a count, or the powers of two of a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCounts(pub Vec<usize>);

/// `N`, or `A..B` with A ≤ B both powers of two: A, 2A, 4A, …, B.
pub(super) fn parse_tasks(text: &str) -> Result<TaskCounts, String> {
    let count = |text: &str| match text.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(count) => Ok(count),
        Err(error) => Err(format!("{text:?}: {error}")),
    };
    let Some((low, high)) = text.split_once("..") else { return Ok(TaskCounts(vec![count(text)?])) };
    let (low, high) = (count(low)?, count(high)?);
    if !low.is_power_of_two() || !high.is_power_of_two() || low > high {
        return Err(format!("{text}: write a range as A..B, powers of two with A <= B, such as 1..8192"));
    }
    if high > MAX_TASK_RANGE {
        return Err(format!("{text}: a range ends at {MAX_TASK_RANGE} at most"));
    }
    Ok(TaskCounts(std::iter::successors(Some(low), |&n| (n < high).then_some(n * 2)).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_range_is_its_powers_of_two() {
        assert_eq!(parse_tasks("1..8192").unwrap().0.len(), 14);
        assert_eq!(parse_tasks("4..32").unwrap(), TaskCounts(vec![4, 8, 16, 32]));
        assert_eq!(parse_tasks("64..64").unwrap(), TaskCounts(vec![64]));
        assert_eq!(parse_tasks("3").unwrap(), TaskCounts(vec![3]));
        for bad in ["0", "3..8", "8..4", "1..", "..4", "1..3000000", "x"] {
            assert!(parse_tasks(bad).is_err(), "{bad}");
        }
    }
}

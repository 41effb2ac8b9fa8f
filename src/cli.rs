//! The command line, and the validation of the whole sweep before anything runs.

use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;

use std::time::Duration;

use clap::builder::{PossibleValuesParser, RangedU64ValueParser};
use clap::{Args, Parser, Subcommand};

use crate::channel::{self, CHANNELS, ChannelEntry};
use crate::measure::RuntimeKind;
use crate::payload::PayloadSize;
use crate::scenario::{Merge, Mode, Pace, Workload};
use crate::sink::Sink;
use crate::stats::StopRule;

/// Messages per run unless `--messages` or `--quick` says otherwise: 2^20.
pub const DEFAULT_MESSAGES: u64 = 1 << 20;
/// Messages per run under `--quick`.
pub const QUICK_MESSAGES: u64 = 1 << 16;
/// Slots in flight unless `--capacity` says otherwise.
pub const DEFAULT_CAPACITY: usize = 1 << 16;
/// Task counts swept unless `--tasks` says otherwise.
pub const DEFAULT_TASKS: [usize; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/// Task counts swept under `--quick`.
pub const QUICK_TASKS: [usize; 4] = [1, 8, 64, 512];
/// Recorded samples per cell unless `--samples` or `--quick` says otherwise.
pub const DEFAULT_SAMPLES: usize = 5;
/// Recorded samples per cell under `--quick`.
pub const QUICK_SAMPLES: usize = 3;
/// The relative precision of a cell's median at which sampling stops, in percent.
pub const DEFAULT_PRECISION_PERCENT: f64 = 2.0;
/// The most time a cell spends sampling once it has its minimum, in seconds.
pub const DEFAULT_MAX_TIME_SECS: f64 = 0.75;
/// The same under `--quick`.
pub const QUICK_MAX_TIME_SECS: f64 = 0.1;
/// Seconds a sample may run before the watchdog abandons it.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// Messages per burst under `--pace` unless `--burst` says otherwise: a video frame's packets.
pub const DEFAULT_BURST: u32 = 8;
/// The most worker threads `--workers` accepts.
pub const MAX_WORKERS: usize = 1024;

/// An input the user must change; reported as one line, exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError(message.into()).into()
}

fn positive() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..)
}

/// Async channel fan-in benchmark, WebRTC SFU scenario: many tasks forward RTP-sized
/// packets into one receiving task. Sweeps every channel × mode × runtime × task count,
/// verifies every delivery, prints medians and writes one CSV row per sample.
#[derive(Debug, Parser)]
#[command(name = "channel-bench", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Something other than a sweep.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The sweep's options.
    #[command(flatten)]
    pub sweep: SweepArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare two channel-bench CSVs cell by cell: medians, ratio, and whether the change is beyond the noise
    Compare(CompareArgs),
    /// Which channel to use, per runtime, mode and band of task counts (1-8, 16-64, 128-512): the fastest or
    /// a tie within the noise, the lowest CPU per message and p99; also written to FILE.md beside FILE.csv
    Summary(SummaryArgs),
}

/// `channel-bench summary FILE`.
#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// A channel-bench CSV; the Markdown goes beside it, with the extension .md
    pub csv: PathBuf,
    /// Channels less than this far apart, in percent, are tied however little their samples spread
    #[arg(long, value_name = "PCT", default_value_t = 2.0, value_parser = parse_percent)]
    pub threshold: f64,
}

/// `channel-bench compare OLD NEW`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The earlier CSV
    pub old: PathBuf,
    /// The later CSV
    pub new: PathBuf,
    /// Changes smaller than this, in percent, are "no change" even when the intervals do not overlap
    #[arg(long, value_name = "PCT", default_value_t = 2.0, value_parser = parse_percent)]
    pub threshold: f64,
}

/// The options of a sweep.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Messages moved per run, split evenly across the tasks [default: 1048576; --quick: 65536]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    pub messages: Option<u64>,

    /// Slots in flight: the one channel's in cloned-send, split across the tasks' channels in merged-recv
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CAPACITY, value_parser = positive(), allow_negative_numbers = true)]
    pub capacity: usize,

    /// Comma-separated sending-task counts [default: 1,2,4,8,16,32,64,128,256,512; --quick: 1,8,64,512]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = positive(), allow_negative_numbers = true)]
    pub tasks: Option<Vec<usize>>,

    /// Comma-separated channels to measure [default: all; see --list-channels]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = PossibleValuesParser::new(channel::known().map(|c| c.name)))]
    pub channels: Option<Vec<String>>,

    /// Comma-separated modes [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub modes: Option<Vec<Mode>>,

    /// Comma-separated runtimes [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub runtimes: Option<Vec<RuntimeKind>>,

    /// Worker threads of the multi-thread runtime [default: available parallelism]
    #[arg(long, value_name = "N", value_parser = positive(), allow_negative_numbers = true)]
    pub workers: Option<usize>,

    /// Payload bytes per message (an RTP packet is about 1200), or MIN..MAX: a size drawn
    /// uniformly per message (both ends included) from a generator seeded with --seed
    #[arg(long, value_name = "BYTES|MIN..MAX", default_value = "1200", allow_negative_numbers = true)]
    pub payload: PayloadSize,

    /// Seed of the payload sizes under --payload MIN..MAX: the same seed moves the same sizes
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
    pub seed: u64,

    /// Comma-separated ways merged-recv merges its receivers: futures-buffered, select-all, stream-map
    /// [default: futures-buffered]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub merge: Option<Vec<Merge>>,

    /// Each task sends a burst of --burst messages every INTERVAL (such as 20ms), instead of as
    /// fast as the channel takes them; at least 1ms (tokio's timer ticks in milliseconds)
    #[arg(long, value_name = "INTERVAL", value_parser = parse_interval)]
    pub pace: Option<Duration>,

    /// Messages per burst under --pace [default: 8, a video frame's packets]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub burst: Option<u32>,

    /// Stamp every message and record its send→receive latency: p50, p99, p99.9 and max per sample
    #[arg(long)]
    pub latency: bool,

    /// What the receiver does with each payload besides verifying it: none, or file:PATH
    /// (written through a 64 KiB buffered writer, checked for size, removed after each sample)
    #[arg(long, value_name = "none|file:PATH", default_value = "none")]
    pub sink: Sink,

    /// Leave the --sink file in place after each sample (it then holds the last sample's payloads)
    #[arg(long)]
    pub keep_sink: bool,

    /// Count allocations and bytes allocated per message inside the clock
    #[arg(long)]
    pub count_allocs: bool,

    /// Unrecorded warm-up runs per cell before the samples, each of at most 65536 messages
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true)]
    pub warmup: usize,

    /// Recorded runs per cell at least [default: 5; --quick: 3]
    #[arg(long, value_name = "N", value_parser = positive(), allow_negative_numbers = true)]
    pub samples: Option<usize>,

    /// Keep sampling a cell until its median is known to ± this many percent (90% confidence), or --max-time runs out
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_PRECISION_PERCENT, value_parser = parse_percent)]
    pub precision: f64,

    /// Seconds a cell may spend sampling before it stops, precise or not (it always takes --samples)
    /// [default: 0.75; --quick: 0.1]
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, allow_negative_numbers = true)]
    pub max_time: Option<f64>,

    /// Seconds a sample (with its warm-ups) may run before it is recorded as a timeout and abandoned
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TIMEOUT_SECS, value_parser = parse_timeout, allow_negative_numbers = true)]
    pub timeout: f64,

    /// CSV file to write [default: results/channel-bench-<UTC timestamp>.csv]
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,

    /// Overwrite --out if it exists
    #[arg(long)]
    pub force: bool,

    /// A short sweep: 65536 messages, tasks 1,8,64,512, 3 samples, --max-time 0.1 (explicit flags win)
    #[arg(long)]
    pub quick: bool,

    /// List the channels and their crate versions, then exit
    #[arg(long)]
    pub list_channels: bool,
}

/// A validated sweep: everything the run needs, every combination known to be possible.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Messages moved per run.
    pub messages: u64,
    /// Slots in flight per run.
    pub capacity: usize,
    /// Task counts, in sweep order.
    pub tasks: Vec<usize>,
    /// Channels, in sweep order.
    pub channels: Vec<&'static ChannelEntry>,
    /// Modes, in sweep order.
    pub modes: Vec<Mode>,
    /// Runtimes, in sweep order.
    pub runtimes: Vec<RuntimeKind>,
    /// Worker threads of the multi-thread runtime.
    pub workers: usize,
    /// Payload size per message.
    pub payload: PayloadSize,
    /// Seed of varying payload sizes.
    pub seed: u64,
    /// Merge strategies of merged-recv, in sweep order.
    pub merges: Vec<Merge>,
    /// Bursts at an interval, or `None` for saturating senders.
    pub pace: Option<Pace>,
    /// Whether latency is recorded.
    pub latency: bool,
    /// What the receiver does with each payload.
    pub sink: Sink,
    /// Whether the sink's file stays after each sample.
    pub keep_sink: bool,
    /// Whether allocations are counted.
    pub count_allocs: bool,
    /// Unrecorded runs per cell.
    pub warmup: usize,
    /// Recorded runs per cell, at least.
    pub samples: usize,
    /// Relative precision of the median at which a cell stops sampling (0.02 = ±2%).
    pub precision: f64,
    /// Time a cell may spend sampling before it stops, precise or not.
    pub max_time: Duration,
    /// Time a sample may run before the watchdog abandons it.
    pub timeout: Duration,
    /// Explicit CSV path, or `None` for the timestamped default.
    pub out: Option<PathBuf>,
    /// Overwrite an existing `out`.
    pub force: bool,
}

impl Plan {
    /// The workload of one (mode, tasks, merge) combination; `merge` matters only in merged-recv.
    pub fn workload(&self, mode: Mode, tasks: usize, merge: Merge) -> Workload {
        Workload {
            payload: self.payload,
            seed: self.seed,
            merge,
            pace: self.pace,
            latency: self.latency,
            sink: self.sink.clone(),
            keep_sink: self.keep_sink,
            count_allocs: self.count_allocs,
            ..Workload::new(mode, tasks, self.messages, self.capacity)
        }
    }

    /// The merge strategies `mode` runs with: every `--merge` in merged-recv, one (unused) otherwise.
    pub fn merges_for(&self, mode: Mode) -> &[Merge] {
        match mode {
            Mode::MergedRecv => &self.merges,
            Mode::ClonedSend => &self.merges[..1],
        }
    }

    /// When a cell has been sampled enough.
    pub fn stop_rule(&self) -> StopRule {
        StopRule { min_samples: self.samples, precision: self.precision, max_time: self.max_time }
    }

    /// Number of cells (channel × mode and merge × runtime × tasks).
    pub fn cells(&self) -> usize {
        let modes: usize = self.modes.iter().map(|&mode| self.merges_for(mode).len()).sum();
        self.channels.len() * modes * self.runtimes.len() * self.tasks.len()
    }
}

impl TryFrom<SweepArgs> for Plan {
    type Error = anyhow::Error;

    fn try_from(cli: SweepArgs) -> anyhow::Result<Plan> {
        let quick = cli.quick;
        let channels = match cli.channels {
            None => CHANNELS.iter().collect(),
            Some(names) => {
                no_duplicates("--channels", &names)?;
                names.iter().map(|name| channel::find(name).expect("clap checked the name")).collect()
            }
        };
        let plan = Plan {
            messages: cli.messages.unwrap_or(if quick { QUICK_MESSAGES } else { DEFAULT_MESSAGES }),
            capacity: cli.capacity,
            tasks: cli.tasks.unwrap_or_else(|| if quick { QUICK_TASKS.to_vec() } else { DEFAULT_TASKS.to_vec() }),
            channels,
            modes: cli.modes.unwrap_or_else(|| Mode::ALL.to_vec()),
            runtimes: cli.runtimes.unwrap_or_else(|| RuntimeKind::ALL.to_vec()),
            workers: cli.workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            payload: cli.payload,
            seed: cli.seed,
            merges: cli.merge.clone().unwrap_or_else(|| vec![Merge::default()]),
            pace: cli.pace.map(|interval| Pace { interval, burst: cli.burst.unwrap_or(DEFAULT_BURST) }),
            latency: cli.latency,
            sink: cli.sink.clone(),
            keep_sink: cli.keep_sink,
            count_allocs: cli.count_allocs,
            warmup: cli.warmup,
            samples: cli.samples.unwrap_or(if quick { QUICK_SAMPLES } else { DEFAULT_SAMPLES }),
            precision: cli.precision / 100.0,
            max_time: Duration::from_secs_f64(cli.max_time.unwrap_or(if quick {
                QUICK_MAX_TIME_SECS
            } else {
                DEFAULT_MAX_TIME_SECS
            })),
            timeout: Duration::from_secs_f64(cli.timeout),
            out: cli.out,
            force: cli.force,
        };
        if cli.burst.is_some() && cli.pace.is_none() {
            return Err(usage("--burst sets the burst of --pace: give --pace INTERVAL too, or leave --burst out"));
        }
        if cli.merge.is_some() && !plan.modes.contains(&Mode::MergedRecv) {
            return Err(usage(
                "--merge applies to merged-recv, which --modes leaves out: add merged-recv or drop --merge",
            ));
        }
        if cli.keep_sink && plan.sink.path().is_none() {
            return Err(usage("--keep-sink keeps the file of --sink file:PATH: give --sink file:PATH too"));
        }
        plan.validate()?;
        Ok(plan)
    }
}

impl Plan {
    fn validate(&self) -> anyhow::Result<()> {
        no_duplicates("--tasks", &self.tasks)?;
        no_duplicates("--modes", self.modes.iter().map(|mode| mode.name()))?;
        no_duplicates("--runtimes", self.runtimes.iter().map(|runtime| runtime.name()))?;
        no_duplicates("--merge", self.merges.iter().map(|merge| merge.name()))?;
        for (flag, empty) in [
            ("--tasks", self.tasks.is_empty()),
            ("--channels", self.channels.is_empty()),
            ("--modes", self.modes.is_empty()),
            ("--runtimes", self.runtimes.is_empty()),
            ("--merge", self.merges.is_empty()),
        ] {
            if empty {
                return Err(usage(format!("{flag} is empty: give at least one value")));
            }
        }
        if self.workers > MAX_WORKERS {
            return Err(usage(format!(
                "--workers {} is more than {MAX_WORKERS} threads: lower --workers",
                self.workers
            )));
        }
        if self.payload.max() > u32::MAX as usize {
            return Err(usage(format!("--payload {} is larger than {} bytes: lower it", self.payload, u32::MAX)));
        }
        self.check_memory(available_memory())?;
        self.check_sink()?;
        for &tasks in &self.tasks {
            if tasks as u64 > self.messages {
                return Err(usage(format!(
                    "--tasks {tasks} is more than --messages {}: every task must send at least one message",
                    self.messages
                )));
            }
            if tasks >= u32::MAX as usize || self.messages.div_ceil(tasks as u64) > u64::from(u32::MAX) {
                return Err(usage(format!(
                    "--messages {} over --tasks {tasks} gives a task more than {} messages: lower --messages or raise --tasks",
                    self.messages,
                    u32::MAX
                )));
            }
            for &mode in &self.modes {
                self.check_capacity(self.workload(mode, tasks, self.merges[0]))?;
            }
            self.check_pace(tasks)?;
        }
        Ok(())
    }

    /// Bytes the largest cell needs at most: every slot full, every task's payload and state,
    /// and the drawn sizes when they vary.
    pub fn memory_needed(&self) -> u128 {
        let slots = self.capacity as u128 * (2 * std::mem::size_of::<crate::channel::Message>()) as u128;
        let tasks = self.tasks.iter().copied().max().unwrap_or(0) as u128;
        let sizes = if self.payload.varies() { self.messages as u128 * 4 } else { 0 };
        slots + tasks * (self.payload.max() as u128 + TASK_BYTES) + sizes
    }

    /// A paced sample cannot be faster than its schedule; refuse one the watchdog would abandon.
    fn check_pace(&self, tasks: usize) -> anyhow::Result<()> {
        let workload = self.workload(Mode::ClonedSend, tasks, self.merges[0]);
        let (Some(pace), least) = (self.pace, workload.paced_duration()) else { return Ok(()) };
        if least >= self.timeout {
            return Err(usage(format!(
                "--pace {} with --burst {} makes a task of --tasks {tasks} send {} bursts, at least {:.1} s, \
                 which --timeout {} s would cut short: lower --messages, raise --tasks or --burst, or raise --timeout",
                humantime::format_duration(pace.interval),
                pace.burst,
                workload.messages_for(0).div_ceil(pace.burst),
                least.as_secs_f64(),
                self.timeout.as_secs_f64()
            )));
        }
        Ok(())
    }

    /// The sink's file must be creatable and must not be someone's file.
    fn check_sink(&self) -> anyhow::Result<()> {
        let Some(path) = self.sink.path() else { return Ok(()) };
        let shown = path.display();
        if path.is_dir() {
            return Err(usage(format!(
                "--sink file:{shown} is a folder: give a file path such as file:{shown}/sink.bin"
            )));
        }
        if path.exists() && !self.force {
            return Err(usage(format!(
                "--sink file:{shown} already exists and would be overwritten: choose another path, or pass --force"
            )));
        }
        let folder = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !folder.is_dir() {
            return Err(usage(format!(
                "--sink file:{shown}: folder {} does not exist: create it first",
                folder.display()
            )));
        }
        Ok(())
    }

    fn check_memory(&self, available: Option<u64>) -> anyhow::Result<()> {
        let needed = self.memory_needed();
        match available {
            Some(available) if needed > u128::from(available) => Err(usage(format!(
                "the largest cell needs about {} (--capacity {} slots, --tasks {} × --payload {} bytes), \
                 more than the {} this machine has available: lower --capacity, --tasks or --payload",
                bytes_text(needed),
                self.capacity,
                self.tasks.iter().max().unwrap_or(&0),
                self.payload,
                bytes_text(u128::from(available))
            ))),
            _ => Ok(()),
        }
    }

    fn check_capacity(&self, workload: Workload) -> anyhow::Result<()> {
        let per_channel = workload.capacity_per_channel();
        if per_channel == 0 {
            return Err(usage(format!(
                "merged-recv with --tasks {} splits --capacity {} into less than one slot per channel: \
                 raise --capacity to at least {} or leave merged-recv out of --modes",
                workload.tasks, self.capacity, workload.tasks
            )));
        }
        let senders = workload.senders_per_channel();
        for channel in &self.channels {
            if !channel.supports(per_channel, senders) {
                // Both modes give each task's sender `capacity / tasks` slots or more.
                let needed = workload.tasks * channel.slots_per_sender;
                return Err(usage(format!(
                    "{} reserves {} slot(s) per sender, so {} with --tasks {} needs --capacity {needed} or more \
                     (it is {}): raise --capacity or leave {} out of --channels",
                    channel.name,
                    channel.slots_per_sender,
                    workload.mode.name(),
                    workload.tasks,
                    self.capacity,
                    channel.name
                )));
            }
        }
        Ok(())
    }
}

/// What a sending task and its channel cost beyond the payload, generously: the task, its
/// future, and in merged-recv its own channel.
const TASK_BYTES: u128 = 4096;

/// `MemAvailable` from /proc/meminfo, in bytes; `None` where it cannot be read.
fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|line| line.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

fn bytes_text(bytes: u128) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    format!("{:.1} GiB", bytes as f64 / GIB)
}

fn parse_percent(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(percent) if percent > 0.0 && percent < 100.0 => Ok(percent),
        Ok(_) => Err("must be a percentage above 0 and below 100".to_owned()),
        Err(error) => Err(error.to_string()),
    }
}

fn parse_interval(text: &str) -> Result<Duration, String> {
    let interval = humantime::parse_duration(text).map_err(|error| format!("{error}: write it like 20ms or 1s"))?;
    if interval < Duration::from_millis(1) {
        return Err("must be at least 1ms: tokio's timer ticks in milliseconds".to_owned());
    }
    if interval > Duration::from_secs(3600) {
        return Err("must be at most 1h".to_owned());
    }
    Ok(interval)
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

fn no_duplicates<T: ToString>(flag: &str, values: impl IntoIterator<Item = T>) -> anyhow::Result<()> {
    let mut seen = HashSet::new();
    for value in values {
        let value = value.to_string();
        if seen.contains(&value) {
            return Err(usage(format!("{flag} lists {value} twice: give each value once")));
        }
        seen.insert(value);
    }
    Ok(())
}

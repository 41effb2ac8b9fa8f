//! The command line: clap's structs, the defaults of their flags, and the parsers of their values.
//! The validation of a whole sweep is the `plan` module.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{PossibleValuesParser, RangedU64ValueParser};
use clap::{Args, Parser, Subcommand};

use crate::registry;
use crate::results::compare::DEFAULT_THRESHOLD;
use crate::run::measure::RuntimeKind;
use crate::run::payload::{DEFAULT_PAYLOAD_BYTES, PayloadSize};
use crate::run::sink::Sink;
use crate::run::workload::{Merge, Mode};

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
/// The relative precision of a cell's mean at which it wants no more samples, in percent.
pub const DEFAULT_PRECISION_PERCENT: f64 = 2.0;
/// Seconds per cell, averaged over the sweep, that samples beyond `--samples` may take.
/// Five samples of each of the default sweep's 360 cells take about 330 s on a 2-core
/// machine; 0.25 s per cell adds at most 90 s, as long as the sweep took when each cell sampled
/// on its own for up to 0.75 s (about 417 s).
pub const DEFAULT_MAX_TIME_SECS: f64 = 0.25;
/// The same under `--quick`.
pub const QUICK_MAX_TIME_SECS: f64 = 0.05;
/// Seconds a sample may run before the watchdog abandons it.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// Messages per burst under `--pace` unless `--burst` says otherwise: a video frame's packets.
pub const DEFAULT_BURST: u32 = 8;
/// The most worker threads `--workers` accepts.
pub const MAX_WORKERS: usize = 1024;

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
    /// Compare two channel-bench CSVs cell by cell: means and medians, the ratio of the means, whether the change is
    /// beyond the noise, and the modes of cells whose samples form more than one
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
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_THRESHOLD * 100.0, value_parser = parse_percent)]
    pub threshold: f64,
}

/// `channel-bench compare OLD NEW`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The earlier CSV
    pub old: PathBuf,
    /// The later CSV
    pub new: PathBuf,
    /// Changes of the mean smaller than this, in percent, are "no change" even when the intervals do not overlap
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_THRESHOLD * 100.0, value_parser = parse_percent)]
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
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = PossibleValuesParser::new(registry::known().map(|c| c.name)))]
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
    #[arg(long, value_name = "BYTES|MIN..MAX", default_value_t = PayloadSize::Fixed(DEFAULT_PAYLOAD_BYTES), allow_negative_numbers = true)]
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

    /// After --samples passes, keep sampling the cells whose mean is not yet known to ± this many percent
    /// (90% confidence), or whose samples form separate modes, until --max-time runs out
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_PRECISION_PERCENT, value_parser = parse_percent)]
    pub precision: f64,

    /// Seconds per cell, averaged over the sweep, for samples beyond --samples: the sweep's extra passes stop
    /// once they have taken this × the number of cells (every cell always takes --samples) [default: 0.25;
    /// --quick: 0.05]
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

    /// A short sweep: 65536 messages, tasks 1,8,64,512, 3 samples, --max-time 0.05 (explicit flags win)
    #[arg(long)]
    pub quick: bool,

    /// List the channels and their crate versions, then exit
    #[arg(long)]
    pub list_channels: bool,
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

//! The command line: clap's structs, the defaults of their flags, and the parsers of their values.
//! The validation of a whole sweep is the `plan` module.

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::RangedU64ValueParser;
use clap::{Args, Parser, Subcommand};

use crate::results::thresholds::Thresholds;
use crate::run::measure::RuntimeKind;
use crate::run::payload::{DEFAULT_PAYLOAD_BYTES, PayloadSize};
use crate::run::sink::{Sink, WRITE_BUFFER_BYTES};
use crate::run::workload::{Merge, Mode, Phase, SendMode, WARMUP_MESSAGES};

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
/// Seconds per cell, averaged over the sweep, that samples beyond `--samples` may take: a
/// quarter to a third of the time the first five passes take, so that the default sweep lasts
/// about as long as it did when each cell sampled on its own (docs/methodology.md has the
/// measured wall times).
pub const DEFAULT_MAX_TIME_SECS: f64 = 0.18;
/// The same under `--quick`.
pub const QUICK_MAX_TIME_SECS: f64 = 0.05;
/// Seconds a sample may run before the watchdog abandons it.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// Messages per burst under `--pace` unless `--burst` says otherwise: a video frame's packets.
pub const DEFAULT_BURST: u32 = 8;
/// The most worker threads `--workers` accepts: oversubscribing the cores is a fair
/// experiment, but past this a sample measures the OS scheduler, not the channel.
pub const MAX_WORKERS: usize = 1024;
/// The largest end of a `--tasks A..B` range.
pub const MAX_TASK_RANGE: usize = 1 << 20;

fn positive() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..)
}

/// Async channel fan-in benchmark, WebRTC SFU scenario: many tasks forward RTP-sized
/// packets into one receiving task. Sweeps every channel × mode × runtime × task count,
/// verifies every delivery, prints trimmed means and medians and writes one CSV row per sample, then the summary
/// (FILE.md) and a self-contained report (FILE.html) beside the CSV.
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
    /// Compare two channel-bench CSVs cell by cell: trimmed means and medians, the ratio of the trimmed means, whether
    /// the change is beyond the noise, and the modes of cells whose samples form more than one
    Compare(CompareArgs),
    /// Write the per-cell results of a channel-bench CSV (samples, trimmed mean and median with their 90% intervals,
    /// min, max, modes, failures) as JSON to FILE.cells.json beside FILE.csv: what plot.py draws
    Cells(CellsArgs),
    /// Which channel to use, per runtime, mode and band of task counts (1-8, 16-64, 128-512, 1024+): the fastest or
    /// a tie within the noise, the lowest CPU per message and p99; also written to FILE.md beside FILE.csv
    /// (never replacing one without --force)
    Summary(SummaryArgs),
    /// Write FILE.html beside FILE.csv: one self-contained page with the answer, its caveats, the plots,
    /// every cell's figures and the machine (from FILE.json); a sweep writes it too
    Report(ReportArgs),
}

impl Command {
    /// Whether `--dry-run` was given.
    pub fn dry_run(&self) -> bool {
        match self {
            Command::Compare(args) => args.dry_run,
            Command::Cells(args) => args.dry_run,
            Command::Summary(args) => args.dry_run,
            Command::Report(args) => args.dry_run,
        }
    }
}

/// `channel-bench report FILE`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A channel-bench CSV, or several separated by commas: runs of one machine are pooled, runs of
    /// different machines (or --workers) shown side by side; the report goes beside the first, with the extension
    /// .html, or to --out
    #[arg(value_parser = parse_csv_list)]
    pub csv: CsvList,
    /// Write the report to PATH instead of beside the first CSV
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Pool runs of different builds (commit, rustc, channel crate versions) all the same
    #[arg(long)]
    pub allow_different: bool,
    /// Replace the report if it exists
    #[arg(long)]
    pub force: bool,
    /// Channels less than this far apart, in percent, are tied however little their samples spread
    #[arg(long, value_name = "PCT", value_parser = parse_percent,
          help = with_thresholds("Channels less than this far apart, in percent, are tied however little their samples spread"))]
    pub threshold: Option<f64>,
    /// Check the command and its inputs, say what it would do, and exit: nothing measured or written
    #[arg(long)]
    pub dry_run: bool,
}

/// `channel-bench summary FILE`.
#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// A channel-bench CSV, or several runs of one machine separated by commas, pooled; the Markdown of one CSV
    /// goes beside it, with the extension .md, that of several only to --out
    #[arg(value_parser = parse_csv_list)]
    pub csv: CsvList,
    /// Pool runs of different builds (commit, rustc, channel crate versions) all the same
    #[arg(long)]
    pub allow_different: bool,
    /// Channels less than this far apart, in percent, are tied however little their samples spread
    #[arg(long, value_name = "PCT", value_parser = parse_percent,
          help = with_thresholds("Channels less than this far apart, in percent, are tied however little their samples spread"))]
    pub threshold: Option<f64>,
    /// Print only the short answer, as Markdown (the README's block), and write nothing
    #[arg(long)]
    pub short: bool,
    /// Write the Markdown to PATH instead of beside the CSV; `-` prints it on stdout instead of the text
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Replace the Markdown file if it exists (a regular file, emptied in place)
    #[arg(long)]
    pub force: bool,
    /// Check the command and its inputs, say what it would do, and exit: nothing measured or written
    #[arg(long)]
    pub dry_run: bool,
}

/// `channel-bench cells FILE`.
#[derive(Debug, Args)]
pub struct CellsArgs {
    /// A channel-bench CSV, or several runs of one machine separated by commas, pooled (then --out is needed)
    #[arg(value_parser = parse_csv_list)]
    pub csv: CsvList,
    /// Pool runs of different builds (commit, rustc, channel crate versions) all the same
    #[arg(long)]
    pub allow_different: bool,
    /// Where to write the JSON, `-` for stdout [default: FILE.cells.json beside FILE.csv]
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Replace the output and export files if they exist
    #[arg(long)]
    pub force: bool,
    /// The exports, as on a sweep.
    #[command(flatten)]
    pub export: ExportArgs,
    /// Check the command and its inputs, say what it would do, and exit: nothing measured or written
    #[arg(long)]
    pub dry_run: bool,
}

/// Per-cell results for other tools, written at the end of a sweep or by `channel-bench cells`.
#[derive(Debug, Clone, Default, Args)]
pub struct ExportArgs {
    /// Also write the per-cell results (as in FILE.cells.json) to PATH, for scripts
    #[arg(long, value_name = "PATH")]
    pub export_json: Option<PathBuf>,
    /// Also write each cell's trimmed mean ns/message and its 90% interval in Bencher Metric Format to PATH
    #[arg(long, value_name = "PATH")]
    pub export_bmf: Option<PathBuf>,
    /// Also write each cell's trimmed mean ns/message as github-action-benchmark's customSmallerIsBetter list to PATH
    #[arg(long, value_name = "PATH")]
    pub export_github_action: Option<PathBuf>,
}

/// `channel-bench compare OLD NEW`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The earlier CSV, or several runs of one machine separated by commas, pooled
    #[arg(value_parser = parse_csv_list)]
    pub old: CsvList,
    /// The later CSV, or several runs separated by commas, pooled
    #[arg(value_parser = parse_csv_list)]
    pub new: CsvList,
    /// Changes of the trimmed mean smaller than this, in percent, are "no change" even when the samples differ
    /// significantly
    #[arg(long, value_name = "PCT", value_parser = parse_percent, help = with_thresholds(
        "Changes of the trimmed mean smaller than this, in percent, are \"no change\" even when the samples differ significantly"))]
    pub threshold: Option<f64>,
    /// Pair cells even when the files ran different workloads (messages, capacity, workers), and pool runs of
    /// different builds on a side
    #[arg(long)]
    pub allow_different: bool,
    /// Exit with 1 when any cell is slower beyond the noise (after printing the table), for CI
    #[arg(long)]
    pub fail_on_slower: bool,
    /// Check the command and its inputs, say what it would do, and exit: nothing measured or written
    #[arg(long)]
    pub dry_run: bool,
}

/// The options of a sweep.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Messages moved per run, split evenly across the tasks
    #[arg(long, value_name = "N", help = format!(
        "Messages moved per run, split evenly across the tasks [default: {DEFAULT_MESSAGES}; --quick: {QUICK_MESSAGES}]"),
        value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    pub messages: Option<u64>,

    /// Slots in flight: the one channel's in cloned-send, split across the tasks' channels in merged-recv
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CAPACITY, value_parser = positive(), allow_negative_numbers = true)]
    pub capacity: usize,

    /// Comma-separated sending-task counts, each N or a range A..B of powers of two
    #[arg(long, value_name = "LIST", help = format!(
        "Comma-separated sending-task counts, each N or a range A..B of powers of two (1..8192 is 1,2,4,…,8192) \
         [default: {}; --quick: {}]", list(&DEFAULT_TASKS), list(&QUICK_TASKS)), value_delimiter = ',', value_parser = parse_tasks, allow_negative_numbers = true)]
    pub tasks: Option<Vec<TaskCounts>>,

    /// Comma-separated channels to measure [default: all; see --list-channels]
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub channels: Option<Vec<String>>,

    /// Comma-separated modes [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub modes: Option<Vec<Mode>>,

    /// Comma-separated runtimes [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub runtimes: Option<Vec<RuntimeKind>>,

    /// Comma-separated worker-thread counts of the multi-thread runtime, each a cell of its own
    /// (more than the cores is allowed) [default: available parallelism]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = positive(), allow_negative_numbers = true)]
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

    /// Each task sends a burst of --burst messages every INTERVAL (such as 20ms), instead of as
    /// fast as the channel takes them; at least 1ms (tokio's timer ticks in milliseconds)
    #[arg(long, value_name = "INTERVAL", value_parser = parse_interval)]
    pub pace: Option<Duration>,

    /// Messages per burst under --pace
    #[arg(long, value_name = "N", help = format!("Messages per burst under --pace [default: {DEFAULT_BURST}, a video frame's packets]"), value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    pub burst: Option<u32>,

    /// When each paced task's first burst is due: random (an offset within one interval per
    /// task, drawn from --seed) or aligned (all at once, the worst case) [default: random]
    #[arg(long, value_name = "random|aligned", value_enum)]
    pub phase: Option<Phase>,

    /// How senders send: wait (for a free slot) or try (the non-blocking send: a message that
    /// finds the channel full is dropped and counted; ns/message is then per delivered message)
    #[arg(long, value_name = "wait|try", value_enum, default_value = "wait")]
    pub send: SendMode,

    /// Stamp every message and record its send→receive latency: p50, p99, p99.9 and max per sample
    #[arg(long)]
    pub latency: bool,

    /// What the receiver does with each payload besides verifying it: none, or file:PATH
    /// (written through a buffered writer, checked for size, removed after each sample if the
    /// sweep created it; file:/dev/null is written and left alone)
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

    /// Unrecorded warm-up runs per cell before the samples
    #[arg(long, value_name = "N", default_value_t = 1, help = format!(
        "Unrecorded warm-up runs per cell before the samples, each of at most {WARMUP_MESSAGES} messages"), allow_negative_numbers = true)]
    pub warmup: usize,

    /// Recorded runs per cell at least
    #[arg(long, value_name = "N", help = format!(
        "Recorded runs per cell at least [default: {DEFAULT_SAMPLES}; --quick: {QUICK_SAMPLES}]"), value_parser = positive(), allow_negative_numbers = true)]
    pub samples: Option<usize>,

    /// After --samples passes, keep sampling the cells whose trimmed mean is not yet known to ± this many percent
    /// (90% confidence), or whose samples form separate modes, until --max-time runs out
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_PRECISION_PERCENT, value_parser = parse_percent)]
    pub precision: f64,

    /// Seconds per cell, averaged over the sweep, for samples beyond --samples: the sweep's extra passes stop
    /// once they have taken this × the number of cells (every cell always takes --samples, not counting disturbed ones,
    /// except with 0: then exactly --samples)
    #[arg(long, value_name = "SECS", help = format!(
        "Seconds per cell, averaged over the sweep, for samples beyond --samples: the sweep's extra passes stop once \
         they have taken this × the number of cells (every cell always takes --samples, not counting disturbed ones, \
         except with 0: then exactly --samples) [default: {DEFAULT_MAX_TIME_SECS}; --quick: {QUICK_MAX_TIME_SECS}]"), value_parser = parse_seconds, allow_negative_numbers = true)]
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

/// `help`, then the default thresholds of [`Thresholds::DEFAULT`], in percent.
fn with_thresholds(help: &str) -> String {
    let Thresholds { current_thread, multi_thread } = Thresholds::DEFAULT;
    format!(
        "{help} [default: {} on the current-thread runtime, {} on the multi-thread one]",
        percent(current_thread),
        percent(multi_thread)
    )
}

/// A fraction as a percentage, without the float's noise: 0.2 is `20`, 0.025 is `2.5`.
fn percent(fraction: f64) -> String {
    let percent = (fraction * 100.0 * 1e6).round() / 1e6;
    format!("{percent}")
}

/// `1,8,64`.
fn list(values: &[usize]) -> String {
    values.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
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

/// One item of `--tasks`: a count, or the powers of two of a range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCounts(pub Vec<usize>);

/// `N`, or `A..B` with A ≤ B both powers of two: A, 2A, 4A, …, B.
fn parse_tasks(text: &str) -> Result<TaskCounts, String> {
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
    use clap::CommandFactory;

    /// The help of `channel-bench SUBCOMMAND` (or of the sweep), as printed.
    fn help(subcommand: Option<&str>) -> String {
        let mut command = Cli::command();
        let command = match subcommand {
            Some(name) => command.find_subcommand_mut(name).unwrap(),
            None => &mut command,
        };
        command.render_help().to_string().split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn the_help_states_the_defaults_of_their_owning_constants() {
        let sweep = help(None);
        let tasks = |counts: &[usize]| counts.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(",");
        for expected in [
            format!("[default: {DEFAULT_MESSAGES}; --quick: {QUICK_MESSAGES}]"),
            format!("[default: {}; --quick: {}]", tasks(&DEFAULT_TASKS), tasks(&QUICK_TASKS)),
            format!("[default: {DEFAULT_SAMPLES}; --quick: {QUICK_SAMPLES}]"),
            format!("[default: {DEFAULT_MAX_TIME_SECS}; --quick: {QUICK_MAX_TIME_SECS}]"),
            format!("[default: {DEFAULT_PAYLOAD_BYTES}]"),
            format!("[default: {DEFAULT_CAPACITY}]"),
            format!("[default: {DEFAULT_BURST},"),
            format!("at most {WARMUP_MESSAGES} messages"),
            format!("a {} KiB buffered writer", WRITE_BUFFER_BYTES / 1024),
            format!("{QUICK_MESSAGES} messages, tasks {}, {QUICK_SAMPLES} samples", tasks(&QUICK_TASKS)),
        ] {
            assert!(sweep.contains(&expected), "the sweep's help lacks {expected:?}");
        }
        let Thresholds { current_thread, multi_thread } = Thresholds::DEFAULT;
        let thresholds = format!(
            "[default: {} on the current-thread runtime, {} on the multi-thread one]",
            current_thread * 100.0,
            multi_thread * 100.0
        );
        for subcommand in ["summary", "report", "compare"] {
            assert_eq!(help(Some(subcommand)).matches(&thresholds).count(), 1, "{subcommand}: {thresholds}");
        }
        for text in [sweep, help(Some("compare")), help(Some("cells"))] {
            let bare = text.replace("trimmed mean", "");
            assert!(!bare.contains(" mean") && !bare.contains(" means"), "an untrimmed mean in: {text}");
        }
    }

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

/// One CSV, or several runs separated by commas (`a.csv,b.csv,c.csv`), as the commands that
/// read results take them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvList(pub Vec<PathBuf>);

impl std::ops::Deref for CsvList {
    type Target = [PathBuf];
    fn deref(&self) -> &[PathBuf] {
        &self.0
    }
}

/// `a.csv,b.csv`: the paths in order; an empty one is refused.
fn parse_csv_list(text: &str) -> Result<CsvList, String> {
    let paths: Vec<PathBuf> = text.split(',').map(PathBuf::from).collect();
    if paths.iter().any(|path| path.as_os_str().is_empty()) {
        return Err(format!("{text:?} has an empty path: give CSVs separated by single commas"));
    }
    Ok(CsvList(paths))
}

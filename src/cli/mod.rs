//! The command line: clap's structs, the defaults of their flags, and the parsers of their values.
//! The validation of a whole sweep is the `plan` module; the sweep's own options are in [`sweep`].

mod ab;
mod sweep;

pub use ab::{AbArgs, TakeRoundArgs};
use sweep::parse_tasks;
pub use sweep::{SweepArgs, TaskCounts};

use std::path::PathBuf;
use std::time::Duration;

use clap::builder::RangedU64ValueParser;
use clap::{Args, Parser, Subcommand};

use crate::run::workload::{MIN_TASK_SLOTS, Mode, RecordBytes};

/// Messages per run unless `--messages` or `--quick` says otherwise: 2^20.
pub const DEFAULT_MESSAGES: u64 = 1 << 20;
/// Messages per run under `--quick`.
pub const QUICK_MESSAGES: u64 = 1 << 16;
/// The capacities swept unless `--capacity` says otherwise: one small against the senders,
/// as fan-in code bounds its channels (the `sfu` preset's), and the original benchmark's 2^16.
pub const DEFAULT_CAPACITIES: [usize; 2] = [1024, 1 << 16];
/// Task counts swept unless `--tasks` says otherwise.
pub const DEFAULT_TASKS: [usize; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
/// Task counts swept under `--quick`.
pub const QUICK_TASKS: [usize; 4] = [1, 8, 64, 512];
/// Screening rounds unless `--samples` or `--quick` says otherwise: every channel of a group in
/// the first, all but those clearly behind (`sweep::choose::behind`) in the second.
pub const DEFAULT_SAMPLES: usize = 2;
/// Screening rounds under `--quick`.
pub const QUICK_SAMPLES: usize = 2;
/// Seconds per cell, averaged over the sweep, that the duels after screening may take.
pub const DEFAULT_MAX_TIME_SECS: f64 = 0.12;

/// A paired A/B run's screening rounds unless `--samples` or `--quick` says otherwise: enough
/// samples per build for a verdict that trims its extremes.
pub const AB_SAMPLES: usize = 6;
/// A paired A/B run's `--max-time` unless given (or `--quick`): its duels measure each cell
/// twice, once per build.
pub const AB_MAX_TIME_SECS: f64 = 0.6;
/// The same under `--quick`.
pub const QUICK_MAX_TIME_SECS: f64 = 0.008;
/// Seconds a sample may run before the watchdog abandons it.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;
/// Messages per burst under `--pace` unless `--burst` says otherwise: a video frame's packets.
pub const DEFAULT_BURST: u32 = 8;
/// How long each paced task sends its bursts unless `--duration` says otherwise.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(2);
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
    /// the change is beyond the noise, and the clusters of cells whose samples form more than one
    Compare(CompareArgs),
    /// Write the per-cell results of a channel-bench CSV (samples, trimmed mean and median with their 90% intervals,
    /// min, max, clusters, failures) as JSON to FILE.cells.json beside FILE.csv: what plot.py draws
    Cells(CellsArgs),
    /// Which channel to use, per runtime, mode and band of task counts (1-8, 16-64, 128-512, 1024+): the fastest or
    /// a tie within the noise, the lowest CPU per message and p99; also written to FILE.md beside FILE.csv
    /// (never replacing one without --force)
    Summary(SummaryArgs),
    /// Write FILE.html beside FILE.csv: one self-contained page with the answer, its caveats, the plots,
    /// every cell's figures and the machine (from FILE.json); a sweep writes it too
    Report(ReportArgs),
    /// The SFU's load: a sweep whose flags are filled by a preset (paced 20 ms frames, in and out of
    /// phase, --send try, --latency, multi-thread, cloned-send), printed in full first; any sweep flag
    /// given after `sfu` overrides the preset's; `--participants N` measures your room (N tasks only)
    /// and leads the answer with the decision for it
    Sfu(SfuArgs),
    /// Takes the round of samples handed over on stdin and writes each sample to stdout: the
    /// process a sweep starts for each of its rounds (`run::rounds`), not for people
    #[command(name = crate::run::rounds::SUBCOMMAND, hide = true)]
    TakeRound(TakeRoundArgs),
    /// A paired A/B run: every cell of a round measured by this build and by the one at
    /// --baseline, back to back in a seeded random order, then per cell and band the ratio this
    /// build / baseline with its interval, and which changed (more --samples and --max-time
    /// than a sweep's, unless given)
    Ab(Box<AbArgs>),
    /// What each channel keeps in memory: the heap bytes its instances hold at rest, at the peak of a burst
    /// (every slot filled while the receiver waits, then drained) and kept after it, per channel instance
    /// and per slot, counted by the allocator; one CSV row per channel and cell, the answer printed and
    /// written beside the CSV (.md, .json)
    Memory(MemoryArgs),
}

/// Task counts `memory` measures unless `--tasks` says otherwise: one sender, a room, a large room.
pub const MEMORY_TASKS: [usize; 3] = [1, 64, 512];
/// Kinds of message `memory` measures unless `--record-bytes` says otherwise: the smallest record
/// and an RTP packet's, moved by value, so a slot's size shows.
pub const MEMORY_RECORDS: [RecordBytes; 2] = [RecordBytes::B48, RecordBytes::B1200];

/// `channel-bench memory`.
#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// Comma-separated channels to measure [default: all; see --list-channels]
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub channels: Option<Vec<String>>,
    /// Comma-separated designs: cloned-send (one channel, its sender cloned into every task) and
    /// merged-recv (one channel per task) [default: all]
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum)]
    pub modes: Option<Vec<Mode>>,
    /// Comma-separated sending-task counts, each N or a range A..B of powers of two
    #[arg(long, value_name = "LIST", help = format!(
        "Comma-separated sending-task counts, each N or a range A..B of powers of two [default: {}]", list(&MEMORY_TASKS)),
        value_delimiter = ',', value_parser = parse_tasks, allow_negative_numbers = true)]
    pub tasks: Option<Vec<TaskCounts>>,
    /// Comma-separated capacities, as a sweep's --capacity: the one channel's slots in cloned-send,
    /// shared among the tasks' channels in merged-recv
    #[arg(long, value_name = "LIST", help = format!(
        "Comma-separated capacities, as a sweep's: the one channel's slots in cloned-send; in merged-recv shared \
         among the tasks' channels, capacity ÷ tasks each but at least {MIN_TASK_SLOTS} [default: {}]",
        list(&DEFAULT_CAPACITIES)),
        value_delimiter = ',', value_parser = positive(), allow_negative_numbers = true)]
    pub capacity: Option<Vec<usize>>,
    /// Comma-separated kinds of message, as a sweep's --record-bytes
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_enum, help = format!(
        "Comma-separated kinds of message, as a sweep's: shared (a 48-byte header with a handle to a payload \
         no channel copies) or a record of 48, 256 or 1200 bytes moved by value [default: {}]",
        MEMORY_RECORDS.map(|record| record.name()).join(",")))]
    pub record_bytes: Option<Vec<RecordBytes>>,
    /// A sweep's CSV X.csv: measure its channels and cells (those the flags above keep), write the rows to its
    /// memory sidecar X.memory.csv, and name per band what the pick keeps beside the channel that keeps least,
    /// as `summary` and `report` of X.csv then do
    #[arg(long, value_name = "CSV")]
    pub sweep: Option<PathBuf>,
    /// CSV file to write [default: with --sweep X.csv, X.memory.csv; otherwise
    /// results/channel-bench-memory-YYYYMMDDTHHMMSSZ.csv, the run's UTC start time]
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Overwrite the CSV and the .md and .json beside it if they exist (each a regular file, emptied in place)
    #[arg(long)]
    pub force: bool,
    /// Check the command, print its cells and what it would write, and exit: nothing measured or written
    #[arg(long)]
    pub dry_run: bool,
}

/// `channel-bench sfu [SWEEP FLAGS]`.
#[derive(Debug, Args)]
pub struct SfuArgs {
    /// Sweep flags, each overriding the preset's value of the same flag; `--participants N` for
    /// `--tasks N`
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "SWEEP FLAGS")]
    pub flags: Vec<std::ffi::OsString>,
}

/// What `summary`, `cells` and `report` read, and where each writes its file: the options they share.
#[derive(Debug, Args)]
pub struct RewriteArgs {
    /// Channel-bench CSVs (a shell glob, or several separated by commas): runs of one machine are pooled, runs
    /// of different machines (or --workers) shown side by side; the file of one CSV goes beside it, that of
    /// several only to --out
    #[arg(value_parser = parse_csv_list, num_args = 1.., required = true, value_name = "CSV")]
    pub csvs: Vec<CsvList>,
    /// Write the file to PATH instead of beside the CSV; `-` prints it on stdout (the summary's instead of the text)
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Pool runs of different builds (commit, rustc, channel crate versions) all the same
    #[arg(long)]
    pub allow_different: bool,
    /// Replace the file (and the exports) if it exists (a regular file, emptied in place)
    #[arg(long)]
    pub force: bool,
    /// Check the command and its inputs, say what it would do, and exit: nothing measured or written
    #[arg(long)]
    pub dry_run: bool,
}

/// `channel-bench report FILE`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The CSVs, and where the report goes.
    #[command(flatten)]
    pub files: RewriteArgs,
    /// Comma-separated figures the room's decision weighs, in order: drops, cpu, p99 [default: the
    /// run's --weigh, from its JSON, else drops,cpu]
    #[arg(long, value_name = "ORDER", value_parser = crate::results::decision::weigh::parse)]
    pub weigh: Option<crate::results::decision::Weighing>,
}

/// `channel-bench summary FILE`.
#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// The CSVs, and where the Markdown goes.
    #[command(flatten)]
    pub files: RewriteArgs,
    /// Print only the short answer, as Markdown (the README's block), and write nothing
    #[arg(long)]
    pub short: bool,
    /// Print the answer as JSON (per band the leader, the runner-up and the other contenders with their
    /// verdicts, the careful pick; per paced band the same for p99, CPU and frames overflowed), and write nothing
    #[arg(long, conflicts_with = "short")]
    pub json: bool,
    /// Comma-separated channels you follow: each table gives each one's verdict against the band's
    /// pick [default: the run's --keep, from its JSON]
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub keep: Option<Vec<String>>,
    /// Comma-separated figures the room's decision weighs, in order: drops, cpu, p99 [default: the
    /// run's --weigh, from its JSON, else drops,cpu]
    #[arg(long, value_name = "ORDER", value_parser = crate::results::decision::weigh::parse)]
    pub weigh: Option<crate::results::decision::Weighing>,
}

/// `channel-bench cells FILE`.
#[derive(Debug, Args)]
pub struct CellsArgs {
    /// The CSVs, and where the JSON goes [default: FILE.cells.json beside FILE.csv].
    #[command(flatten)]
    pub files: RewriteArgs,
    /// The exports, as on a sweep.
    #[command(flatten)]
    pub export: ExportArgs,
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
    /// Compare only these comma-separated channels' cells (as a sweep's --channels)
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub channels: Option<Vec<String>>,
    /// Compare only the cells of these comma-separated task counts, each N or a range A..B (as a sweep's --tasks)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_tasks, allow_negative_numbers = true)]
    pub tasks: Option<Vec<TaskCounts>>,
    /// Compare only the cells of these comma-separated capacities (as a sweep's --capacity; a merged-recv cell of
    /// --task-capacity has none of them)
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = positive(), allow_negative_numbers = true)]
    pub capacity: Option<Vec<usize>>,
    /// Pair cells even when the files ran different workloads (messages, capacity, workers), and pool runs of
    /// different builds on a side
    #[arg(long)]
    pub allow_different: bool,
    /// Exit with 1 when any cell is slower beyond the noise, or any paced cell worse on p99, CPU or frames
    /// overflowed (after printing the table), for CI
    #[arg(long)]
    pub fail_on_slower: bool,
    /// Check the command and its inputs, say what it would do, and exit: nothing measured or written
    #[arg(long)]
    pub dry_run: bool,
}

/// `1,8,64`.
fn list(values: &[usize]) -> String {
    values.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

/// One CSV, or several runs separated by commas (`a.csv,b.csv,c.csv`), as the commands that
/// read results take them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CsvList(pub Vec<PathBuf>);

impl CsvList {
    /// The paths of `lists` in order: those given as separate arguments (a shell glob) and those
    /// separated by commas; a latency or memory sidecar whose CSV is among them (`results/*.csv`
    /// matches both) is left out: its CSV reads it.
    pub fn all(lists: &[CsvList]) -> Vec<PathBuf> {
        let paths: Vec<PathBuf> = lists.iter().flat_map(|list| list.0.iter().cloned()).collect();
        let beside = |csv: &PathBuf| [crate::results::sidecar::path(csv), crate::results::memory::sidecar(csv)];
        let sidecar = |path: &PathBuf| paths.iter().any(|csv| csv != path && beside(csv).contains(path));
        paths.iter().filter(|path| !sidecar(path)).cloned().collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::payload::DEFAULT_PAYLOAD_BYTES;
    use crate::run::sink::WRITE_BUFFER_BYTES;
    use crate::run::workload::WARMUP_MESSAGES;
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
    fn a_glob_that_matches_a_csv_and_its_sidecars_gives_the_csv_alone() {
        let given = |paths: &[&str]| vec![CsvList(paths.iter().map(PathBuf::from).collect())];
        let all = CsvList::all(&given(&["r/a.csv", "r/a.latency.csv", "r/a.memory.csv", "r/b.csv"]));
        assert_eq!(all, [PathBuf::from("r/a.csv"), PathBuf::from("r/b.csv")]);
        let alone = CsvList::all(&given(&["r/a.latency.csv"]));
        assert_eq!(alone, [PathBuf::from("r/a.latency.csv")], "a sidecar alone is read, and refused, as given");
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
            format!("[default: {}]", tasks(&DEFAULT_CAPACITIES)),
            format!("[default: {DEFAULT_BURST},"),
            format!("at most {WARMUP_MESSAGES} messages"),
            format!("a {} KiB buffered writer", WRITE_BUFFER_BYTES / 1024),
            format!("{QUICK_MESSAGES} messages, tasks {}, {QUICK_SAMPLES} samples", tasks(&QUICK_TASKS)),
        ] {
            assert!(sweep.contains(&expected), "the sweep's help lacks {expected:?}");
        }
        for text in [sweep, help(Some("compare")), help(Some("cells"))] {
            let bare = text.replace("trimmed mean", "");
            assert!(!bare.contains(" mean") && !bare.contains(" means"), "an untrimmed mean in: {text}");
        }
    }
}

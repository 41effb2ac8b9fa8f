//! Who is told: the console table, the progress bar, the CSV rows and the run's JSON.
//! Formatting only; nothing here measures or computes statistics.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::channel::ChannelEntry;
use crate::latency::Latency;
use crate::measure::{RuntimeKind, Sample};
use crate::payload::PayloadSize;
use crate::scenario::{Merge, Mode, Workload};
use crate::stats::{self, Summary};

/// One cell of the sweep: a channel under one workload on one runtime.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The channel measured.
    pub channel: &'static ChannelEntry,
    /// The runtime it ran on.
    pub runtime: RuntimeKind,
    /// Threads that run tasks: `--workers` for multi-thread, 1 for current-thread.
    pub workers: usize,
    /// What each run does.
    pub workload: Workload,
}

impl Cell {
    /// `runtime tasks=T mode channel`, for progress and failure lists.
    pub fn label(&self) -> String {
        format!("{} tasks={} {} {}", self.runtime.name(), self.workload.tasks, self.workload.mode.name(), self.name())
    }

    /// The channel's name, with the merge strategy when merged-recv uses another than the default.
    pub fn name(&self) -> String {
        match self.merge() {
            Some(merge) if merge != Merge::default() => format!("{} via {}", self.channel.name, merge.name()),
            _ => self.channel.name.to_owned(),
        }
    }

    /// How merged-recv merged the receivers; `None` in cloned-send.
    pub fn merge(&self) -> Option<Merge> {
        (self.workload.mode == Mode::MergedRecv).then_some(self.workload.merge)
    }
}

/// One CSV row: one recorded sample. The field order is the column order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// Channel name, as in `--list-channels`.
    pub channel: String,
    /// `cloned-send` or `merged-recv`.
    pub mode: String,
    /// `multi-thread` or `current-thread`.
    pub runtime: String,
    /// Threads running tasks: the multi-thread runtime's worker threads, 1 for current-thread.
    pub workers: usize,
    /// Sending tasks.
    pub tasks: usize,
    /// Messages moved in the sample, across all tasks.
    pub messages: u64,
    /// Slots in flight in total (`--capacity`).
    pub capacity: usize,
    /// Slots of each channel: `capacity` in cloned-send, `capacity / tasks` in merged-recv.
    pub capacity_per_channel: usize,
    /// Payload bytes per message: the fixed size, or the mean size moved when sizes are drawn
    /// (`bytes / messages`, rounded).
    pub payload_bytes: u64,
    /// Sample number within the cell, from 1; warm-up runs are not written.
    pub sample: usize,
    /// Wall time of the sample in nanoseconds, from opening the start gate to the last task finishing.
    pub elapsed_ns: u64,
    /// `elapsed_ns / messages`, nanoseconds, three decimals.
    pub ns_per_message: f64,
    /// Process CPU time (user + system, all threads) over the same interval, nanoseconds (microsecond resolution).
    pub cpu_ns: u64,
    /// `ok`, or what failed: `lost: …`, `reordered: …`, `duplicated: …`, `corrupted: …`, `panicked: …`,
    /// `sink: …`, `timeout: …`.
    pub status: String,
    /// How merged-recv merged the receivers: `futures-buffered`, `select-all` or `stream-map`;
    /// empty in cloned-send.
    pub merge: String,
    /// `--payload`: `1200`, or `300..2000` when each message's size was drawn from that range.
    pub payload: String,
    /// `--seed` of the drawn sizes; empty when the size is fixed.
    pub seed: Option<u64>,
    /// Payload bytes the receiver took in the sample.
    pub bytes: u64,
    /// `bytes` per second of wall time, in MB (10^6 bytes), three decimals.
    pub mb_per_s: f64,
    /// `--pace` interval between a task's bursts, nanoseconds; empty when the senders were not paced.
    pub pace_ns: Option<u64>,
    /// `--burst`: messages per burst; empty when not paced.
    pub burst: Option<u32>,
    /// The measured mean interval between a task's bursts, nanoseconds; empty when not paced.
    pub pace_actual_ns: Option<u64>,
    /// `none`, or `file` when the receiver wrote every payload to the `--sink` file.
    pub sink: String,
    /// Median send→receive latency, nanoseconds; empty without `--latency`.
    pub lat_p50_ns: Option<u64>,
    /// 99th percentile latency, nanoseconds; empty without `--latency`.
    pub lat_p99_ns: Option<u64>,
    /// 99.9th percentile latency, nanoseconds; empty without `--latency`.
    pub lat_p999_ns: Option<u64>,
    /// Largest latency, nanoseconds; empty without `--latency`.
    pub lat_max_ns: Option<u64>,
    /// Allocations (alloc, alloc_zeroed, realloc) inside the clock per message; empty without `--count-allocs`.
    pub allocs_per_message: Option<f64>,
    /// Bytes those allocations asked for, per message; empty without `--count-allocs`.
    pub alloc_bytes_per_message: Option<f64>,
}

impl Record {
    /// The row for sample number `sample` of `cell`.
    pub fn new(cell: &Cell, sample: usize, measured: &Sample) -> Self {
        let workload = &cell.workload;
        let messages = workload.messages as f64;
        let per_message = |count: u64| (count as f64 / messages * 1000.0).round() / 1000.0;
        let pace = workload.pace;
        Self {
            channel: cell.channel.name.to_owned(),
            mode: workload.mode.name().to_owned(),
            runtime: cell.runtime.name().to_owned(),
            workers: cell.workers,
            tasks: workload.tasks,
            messages: workload.messages,
            capacity: workload.capacity,
            capacity_per_channel: workload.capacity_per_channel(),
            payload_bytes: match workload.payload {
                PayloadSize::Fixed(size) => size as u64,
                PayloadSize::Uniform { .. } => (measured.bytes as f64 / messages).round() as u64,
            },
            sample,
            elapsed_ns: saturating_nanos(measured.elapsed),
            ns_per_message: (measured.ns_per_message(workload.messages) * 1000.0).round() / 1000.0,
            cpu_ns: saturating_nanos(measured.cpu),
            status: measured.status.to_string(),
            merge: cell.merge().map_or("", Merge::name).to_owned(),
            payload: workload.payload.to_string(),
            seed: workload.payload.varies().then_some(workload.seed),
            bytes: measured.bytes,
            mb_per_s: (measured.mb_per_s() * 1000.0).round() / 1000.0,
            pace_ns: pace.map(|pace| saturating_nanos(pace.interval)),
            burst: pace.map(|pace| pace.burst),
            pace_actual_ns: measured.pace_actual.map(saturating_nanos),
            sink: workload.sink.kind().to_owned(),
            lat_p50_ns: measured.latency.map(|latency| latency.p50),
            lat_p99_ns: measured.latency.map(|latency| latency.p99),
            lat_p999_ns: measured.latency.map(|latency| latency.p999),
            lat_max_ns: measured.latency.map(|latency| latency.max),
            allocs_per_message: measured.allocs.map(|allocs| per_message(allocs.allocations)),
            alloc_bytes_per_message: measured.allocs.map(|allocs| per_message(allocs.bytes)),
        }
    }
}

fn saturating_nanos(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// The CSV file, one row appended and flushed per sample.
pub struct CsvSink {
    path: PathBuf,
    writer: csv::Writer<File>,
}

impl CsvSink {
    /// Creates `path` (and its parent folders) and writes the header.
    /// Refuses to replace an existing file unless `overwrite`.
    pub fn create(path: &Path, overwrite: bool) -> anyhow::Result<Self> {
        if path.is_dir() {
            anyhow::bail!("--out {} is a folder: give a file path such as {}/run.csv", path.display(), path.display());
        }
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create the folder of --out {}", path.display()))?;
        }
        let mut options = OpenOptions::new();
        options.write(true);
        if overwrite {
            options.create(true).truncate(true);
        } else {
            options.create_new(true);
        }
        let file = options.open(path).map_err(|error| match error.kind() {
            io::ErrorKind::AlreadyExists => anyhow::anyhow!(
                "--out {} already exists: choose another path, or pass --force to overwrite it",
                path.display()
            ),
            _ => anyhow::Error::new(error).context(format!("cannot create --out {}", path.display())),
        })?;
        let writer = csv::WriterBuilder::new().has_headers(false).from_writer(file);
        let mut sink = Self { path: path.to_owned(), writer };
        // The header goes out now, so even a sweep stopped before its first sample leaves a valid file.
        sink.write_flushed(|writer| writer.write_record(csv_header()))?;
        Ok(sink)
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one row and flushes it to the file.
    pub fn append(&mut self, record: &Record) -> anyhow::Result<()> {
        self.write_flushed(|writer| writer.serialize(record))
    }

    fn write_flushed(&mut self, write: impl FnOnce(&mut csv::Writer<File>) -> csv::Result<()>) -> anyhow::Result<()> {
        write(&mut self.writer)
            .and_then(|()| Ok(self.writer.flush()?))
            .with_context(|| format!("cannot write to {}", self.path.display()))
    }
}

/// The CSV columns, in order: the fields of [`Record`].
pub const fn csv_header() -> [&'static str; 29] {
    [
        "channel",
        "mode",
        "runtime",
        "workers",
        "tasks",
        "messages",
        "capacity",
        "capacity_per_channel",
        "payload_bytes",
        "sample",
        "elapsed_ns",
        "ns_per_message",
        "cpu_ns",
        "status",
        "merge",
        "payload",
        "seed",
        "bytes",
        "mb_per_s",
        "pace_ns",
        "burst",
        "pace_actual_ns",
        "sink",
        "lat_p50_ns",
        "lat_p99_ns",
        "lat_p999_ns",
        "lat_max_ns",
        "allocs_per_message",
        "alloc_bytes_per_message",
    ]
}

/// The machine and build a run happened on, written as JSON beside the CSV.
#[derive(Debug, Clone, Serialize)]
pub struct Metadata {
    /// CPU model name from /proc/cpuinfo.
    pub cpu_model: Option<String>,
    /// Available parallelism (cores the process may use).
    pub cores: usize,
    /// Operating system and kernel.
    pub os: String,
    /// Host name.
    pub hostname: Option<String>,
    /// `rustc --version` of the compiler that built the binary.
    pub rustc: String,
    /// Version of every channel crate, from Cargo.lock at build time.
    pub crates: std::collections::BTreeMap<String, String>,
    /// Git commit the binary was built from (`-dirty` if it had uncommitted changes).
    pub git_commit: Option<String>,
    /// The command line, program name first.
    pub command_line: Vec<String>,
    /// When the sweep started, RFC 3339 UTC.
    pub started_utc: String,
}

impl Metadata {
    /// Writes the JSON to `path`.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let json = serde_json::to_string_pretty(self).expect("plain data serializes");
        fs::write(path, json + "\n").with_context(|| format!("cannot write {}", path.display()))
    }
}

/// Console output: the table on stdout, the progress bar on stderr (hidden when not a terminal).
pub struct Console {
    bar: ProgressBar,
}

impl Console {
    /// A console for a sweep of `cells` cells.
    pub fn new(cells: u64) -> Self {
        let bar = ProgressBar::new(cells);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} cells, {elapsed} elapsed, eta {eta}  {msg}")
                .expect("the template is valid"),
        );
        Self { bar }
    }

    fn print(&self, line: String) {
        self.bar.suspend(|| print_line(&line));
    }

    /// The first line of the sweep, from one of its workloads.
    pub fn header(&self, workload: &Workload) {
        let mut line = format!(
            "running WebRTC SFU benchmark with {} messages and capacity {} ({}-byte payload",
            workload.messages, workload.capacity, workload.payload
        );
        if workload.payload.varies() {
            line += &format!(", sizes drawn with seed {}", workload.seed);
        }
        line.push(')');
        if let Some(pace) = workload.pace {
            line += &format!(
                ", each task sending {} messages every {}",
                pace.burst,
                humantime::format_duration(pace.interval)
            );
        }
        if workload.latency {
            line += ", recording latency";
        }
        if let Some(path) = workload.sink.path() {
            line += &format!(", writing every payload to {}", path.display());
        }
        if workload.count_allocs {
            line += ", counting allocations";
        }
        self.print(line);
    }

    /// The heading of a (runtime, tasks) section.
    pub fn section(&self, runtime: RuntimeKind, workers: usize, workload: &Workload) {
        let threads = match runtime {
            RuntimeKind::MultiThread => format!(" ({workers} workers)"),
            RuntimeKind::CurrentThread => String::new(),
        };
        let fewest = workload.messages_for(workload.tasks - 1);
        let most = workload.messages_for(0);
        let per_task = if fewest == most { most.to_string() } else { format!("{fewest}-{most}") };
        self.print(format!(
            "\n# {}{threads}, tasks: {}, messages per task: {per_task}, capacity per task: {}",
            runtime.name(),
            workload.tasks,
            workload.capacity / workload.tasks,
        ));
    }

    /// Shows which cell and sample is running.
    pub fn running(&self, cell: &Cell, sample: usize) {
        self.bar.set_message(format!("{} #{sample}", cell.label()));
    }

    /// Counts one finished cell on the progress bar.
    pub fn cell_done(&self) {
        self.bar.inc(1);
    }

    /// The result line of a finished cell: median ms and ns/message, the precision of the
    /// median (`±` half-width of its confidence interval; `noisy` when wider than
    /// `precision`), the min–max ns/message and the sample count, and the failures if any.
    /// Then, as the run recorded them, the medians of latency, MB/s, CPU per message, the real
    /// burst interval and allocations.
    pub fn cell(&self, cell: &Cell, summary: Option<&Summary>, precision: f64, samples: &[Sample]) {
        let messages = cell.workload.messages as f64;
        let failures: Vec<&Sample> = samples.iter().filter(|sample| !sample.status.is_ok()).collect();
        let ok: Vec<&Sample> = samples.iter().filter(|sample| sample.status.is_ok()).collect();
        let label = format!("{:<12} {:<16}", cell.workload.mode.name(), cell.name());
        let timing = match summary {
            Some(s) => {
                let spread = match s.median_precision() {
                    Some(p) if p > precision => format!("±{:>4.1}% noisy", p * 100.0),
                    Some(p) => format!("±{:>4.1}%      ", p * 100.0),
                    None => " ".repeat(13),
                };
                format!(
                    "{:>9.2} ms {:>8.1} ns/msg {spread}  ({:.1}-{:.1}, n={})",
                    s.median * messages / 1e6,
                    s.median,
                    s.min,
                    s.max,
                    s.count
                )
            }
            None => "no successful sample".to_owned(),
        };
        let failed = match failures.first() {
            Some(first) => format!("  FAILED {} sample(s), first: {}", failures.len(), first.status),
            None => String::new(),
        };
        self.print(format!("{label} {timing}{}{failed}", extras(&cell.workload, &ok)));
    }

    /// The closing lines: where the CSV is, the noisiest cells (`noisy_cells` as
    /// (precision, line)), and every failed cell.
    pub fn finish(&self, csv: &Path, noisy_cells: &[(f64, String)], failed_cells: &[String]) {
        self.bar.finish_and_clear();
        print_line(&format!("\nresults: {}", csv.display()));
        if !noisy_cells.is_empty() {
            let mut noisiest: Vec<&(f64, String)> = noisy_cells.iter().collect();
            noisiest.sort_by(|a, b| b.0.total_cmp(&a.0));
            let shown = noisiest.len().min(NOISIEST_SHOWN);
            print_line(&format!(
                "{} cell(s) stayed noisier than --precision (marked `noisy` above); the {shown} noisiest:",
                noisy_cells.len()
            ));
            for (_, cell) in &noisiest[..shown] {
                print_line(&format!("  {cell}"));
            }
        }
        if !failed_cells.is_empty() {
            print_line(&format!("{} cell(s) had failed samples:", failed_cells.len()));
            for cell in failed_cells {
                print_line(&format!("  {cell}"));
            }
        }
    }
}

/// The medians of what the run recorded beyond wall time, each introduced by its name.
fn extras(workload: &Workload, ok: &[&Sample]) -> String {
    let median = |value: &dyn Fn(&Sample) -> Option<f64>| {
        let values: Vec<f64> = ok.iter().filter_map(|sample| value(sample)).collect();
        stats::summarize(&values).map(|summary| summary.median)
    };
    let messages = workload.messages as f64;
    let mut out = String::new();
    if workload.latency {
        let percentiles: Option<Vec<f64>> =
            [|l: Latency| l.p50, |l: Latency| l.p99, |l: Latency| l.p999, |l: Latency| l.max]
                .iter()
                .map(|pick| median(&|sample: &Sample| sample.latency.map(|latency| pick(latency) as f64 / 1000.0)))
                .collect();
        if let Some(us) = percentiles {
            out += &format!("  latency p50 {:.1} p99 {:.1} p99.9 {:.1} max {:.1} µs", us[0], us[1], us[2], us[3]);
        }
    }
    if (workload.payload.varies() || workload.sink.path().is_some())
        && let Some(rate) = median(&|sample: &Sample| Some(sample.mb_per_s()))
    {
        out += &format!("  {rate:.1} MB/s");
    }
    if let Some(pace) = workload.pace {
        let cpu = median(&|sample: &Sample| Some(sample.cpu.as_nanos() as f64 / messages));
        let interval = median(&|sample: &Sample| sample.pace_actual.map(|actual| actual.as_secs_f64() * 1000.0));
        if let (Some(cpu), Some(interval)) = (cpu, interval) {
            let asked = pace.interval.as_secs_f64() * 1000.0;
            out += &format!("  cpu {cpu:.1} ns/msg, bursts every {interval:.2} ms (asked {asked:.2})");
        }
    }
    if workload.count_allocs {
        let allocations = median(&|sample: &Sample| sample.allocs.map(|a| a.allocations as f64 / messages));
        let bytes = median(&|sample: &Sample| sample.allocs.map(|a| a.bytes as f64 / messages));
        if let (Some(allocations), Some(bytes)) = (allocations, bytes) {
            out += &format!("  {allocations:.3} allocs/msg {bytes:.1} B/msg");
        }
    }
    out
}

/// How many of the noisy cells the closing lines name.
const NOISIEST_SHOWN: usize = 10;

/// Prints a line on stdout. A closed stdout (`| head`) is ignored: the sweep goes on and
/// its CSV stays complete.
pub fn print_line(line: &str) {
    let _ = writeln!(io::stdout().lock(), "{line}");
}

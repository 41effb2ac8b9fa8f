//! The console: the sweep's table on stdout, the progress bar on stderr.
//! Formatting only; the figures it shows come from [`crate::stats`], and a paced cell's p99, CPU
//! and drops from the figures table every other output reads ([`paced_figures`]).

use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::format;
use crate::plan::Cell;
use crate::results::figures::CellFigures;
use crate::results::paced::PacedCell;
use crate::results::setting::Setting;
use crate::run::latency::Latency;
use crate::run::measure::{RuntimeKind, Sample};
use crate::run::workload::{Mode, RecordBytes, SendMode, Workload};
use crate::stats;

/// What a pass of the sweep measures, as its line on stdout says ([`Console::round`]).
#[derive(Debug, Clone, Copy)]
pub enum Pass {
    /// One of the `--samples` screening passes.
    Screening,
    /// After screening, the cells it left short of samples (their others left out), measured again.
    LeftShort,
    /// A duel pass, with the duels' time left of their bound.
    Duel {
        /// The time left.
        left: Duration,
        /// The duels' bound.
        bound: Duration,
    },
}

/// Console output: the table on stdout, the progress bar on stderr (hidden when not a terminal).
pub struct Console {
    bar: ProgressBar,
    /// The samples of a cell a round visits: one per build.
    builds: u64,
}

impl Console {
    /// A console for a sweep that takes at least `samples` samples (cells × `--samples` ×
    /// builds), `builds` of each cell a round visits, in about `expected` (`plan::estimate`).
    pub fn new(samples: u64, builds: u64, expected: &str) -> Self {
        let bar = ProgressBar::new(samples);
        let template =
            format!("{{bar:30}} {{pos}}/{{len}} samples, {{elapsed}} elapsed of about {expected}  {{prefix}}: {{msg}}");
        bar.set_style(ProgressStyle::with_template(&template).expect("the template is valid"));
        Self { bar, builds }
    }

    fn print(&self, line: String) {
        self.bar.suspend(|| print_line(&line));
    }

    /// The first line of the sweep, from one of its workloads and every capacity it sweeps
    /// (`capacities`, with `--task-capacity`'s slots a task): the size of a flat-out run, or
    /// the rate and duration of a paced one.
    pub fn header(
        &self,
        workload: &Workload,
        capacities: &[usize],
        task_capacities: Option<&[usize]>,
        records: &[RecordBytes],
    ) {
        let load = match workload.pace {
            Some(pace) => format!(": each task sending {}, capacity", schedule(workload, pace)),
            None => format!(" with {} messages and capacity", workload.messages),
        };
        let listed = |values: &[usize]| values.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
        let per_task = task_capacities.map(|slots| format!(" (merged-recv: {} a task)", listed(slots)));
        let capacity = listed(capacities) + &per_task.unwrap_or_default();
        let by_value: Vec<String> =
            records.iter().filter_map(|record| record.by_value()).map(|b| b.to_string()).collect();
        let seed = workload.payload.varies().then(|| format!(", sizes drawn with seed {}", workload.seed));
        let shared = records.contains(&RecordBytes::Shared);
        let shared = shared.then(|| format!("{}-byte payload{}", workload.payload, seed.unwrap_or_default()));
        let by_value = (!by_value.is_empty()).then(|| format!("records of {} bytes by value", by_value.join(", ")));
        let messages: Vec<String> = shared.into_iter().chain(by_value).collect();
        let sink = workload.sink.path().map(|path| format!(", writing every payload to {}", path.display()));
        let latency = workload.latency.then(|| ", recording latency".to_owned());
        let allocs = workload.count_allocs.then(|| ", counting allocations".to_owned());
        let after: String = [latency, sink, allocs].into_iter().flatten().collect();
        self.print(format!("running WebRTC SFU benchmark{load} {capacity} ({}){after}", messages.join("; ")));
    }

    /// The heading of a (runtime, tasks, setting) section: the tasks, what each sends (a paced
    /// run's rate: `8 tasks × 5 messages every 20ms for 1s`), what else sets its cells apart
    /// (`Setting::apart`: the send, batch, work per batch, record), and the capacity, shared
    /// in cloned-send and split among the tasks in merged-recv.
    pub fn section(&self, runtime: RuntimeKind, workers: usize, workload: &Workload) {
        let threads = format::threads(runtime, workers as u64);
        let setting = Setting::of_workload(workload);
        let load = match workload.pace {
            Some(pace) => {
                let (words, phase, send) = (pace.phase.words(), pace.phase.name(), workload.send.name());
                format!("{} tasks × {}, {words} ({phase} phase), send {send}", workload.tasks, schedule(workload, pace))
            }
            None => {
                let fewest = workload.messages_for(workload.tasks - 1);
                let most = workload.messages_for(0);
                let per_task = if fewest == most { most.to_string() } else { format!("{fewest}-{most}") };
                format!("messages per task: {per_task}")
            }
        };
        // What else sets the section's cells apart (the send, said above for a paced run).
        let send = if workload.pace.is_some() { SendMode::Wait } else { workload.send };
        let apart = Setting { send, ..setting }.apart();
        let load = if apart.is_empty() { load } else { format!("{load}, {apart}") };
        let (name, tasks, capacity) = (runtime.name(), workload.tasks, workload.capacity_axis());
        let per_channel = Workload { mode: Mode::MergedRecv, ..workload.clone() }.capacity_per_channel();
        self.print(format!(
            "\n# {name}{threads}, tasks: {tasks}, {load}, capacity: {capacity} ({per_channel} a task's channel in \
             merged-recv)"
        ));
    }

    /// Shows which cell and sample is running.
    pub fn running(&self, cell: &Cell, sample: usize) {
        self.bar.set_message(format!("{} #{sample}", cell.label()));
    }

    /// Starts the `number`th round of the groups it visits, `cells` cells in all, `again` of them
    /// in rounds the machine read slow, measured again, with a line on stdout: a screening round
    /// (up to `--samples`), a round that measures again the cells screening left short, or a duel
    /// round, given the duels' time left of their bound. The last two add their cells to the
    /// bar's length, a screening round those it measures again.
    pub fn round(&self, number: usize, (cells, again): (usize, usize), pass: Pass) {
        let mut line = match pass {
            Pass::Screening => format!("screening round {number}: {cells} cells"),
            Pass::LeftShort => format!("round {number}: {cells} cells that screening left short, measured again"),
            Pass::Duel { left, bound } => format!(
                "duel round {number}: {cells} cells of groups whose answer is still open ({:.1} s left of {:.1} s)",
                left.as_secs_f64(),
                bound.as_secs_f64()
            ),
        };
        if again > 0 {
            line.push_str(&format!(" ({again} of a round the machine read slow, measured again)"));
        }
        let added = if matches!(pass, Pass::Screening) { again } else { cells };
        self.bar.inc_length(added as u64 * self.builds);
        self.bar.set_prefix(line.clone());
        self.print(line);
    }

    /// Why the duels stopped before their `budget` was spent, `left` of it to spare: every band
    /// more rounds could decide in that time is decided, and `longer` bands stay open that
    /// would take longer than `left`, `beyond` that no number of rounds would decide (their
    /// interval is the run's drift alone).
    pub fn duels_stopped(&self, (left, budget): (Duration, Duration), (longer, beyond): (usize, usize)) {
        let longer = (longer > 0).then(|| format!("{longer} whose rounds would take longer than the time left"));
        let drift = "the drift this run measured is wider than their difference";
        let beyond = (beyond > 0).then(|| format!("{beyond} that no number of rounds would decide ({drift})"));
        let open: Vec<String> = longer.into_iter().chain(beyond).collect();
        let why = if open.is_empty() {
            "every band is decided".to_owned()
        } else {
            format!("every other band is decided; open: {} (see `open:` below)", open.join(", "))
        };
        self.print(format!(
            "duels: stopped with {:.1} s of {:.1} s left: {why}",
            left.as_secs_f64(),
            budget.as_secs_f64()
        ));
    }

    /// Counts one sample on the progress bar.
    pub fn sampled(&self) {
        self.bar.inc(1);
    }

    /// Clears the progress bar before the table of cells, and says how long the rounds took.
    pub fn finish_rounds(&self) {
        // Read before finishing: a finished bar stands at its length, which counts every cell
        // a duel round meant to visit, also those its budget ended before.
        let (samples, elapsed) = (self.bar.position(), self.bar.elapsed());
        self.bar.finish_and_clear();
        print_line(&format!("{samples} samples in {:.1} s", elapsed.as_secs_f64()));
    }

    /// The result line of a cell, from its `figures` (`results::figures`): trimmed mean ms and
    /// ns/message, the range another run would likely put it in (its repeat interval), the
    /// median, the min–max ns/message and the sample count, the samples `disturbed` and left
    /// out of them when there are some, the clusters when there are more than one
    /// (`40 ns ×60% | 125 ns ×40%`), and the failures if any. Then a paced cell's figures as
    /// every output gives them ([`paced_figures`]), and, as the run recorded them, latency
    /// (unpaced), MB/s, CPU per message (unpaced), the real burst interval and allocations.
    pub fn cell(&self, cell: &Cell, (all, disturbed): (Option<&CellFigures>, usize), samples: &[Sample]) {
        let (figures, paced) = (all.and_then(|all| all.speed.as_ref()), all.and_then(|all| all.paced.as_ref()));
        let messages = cell.workload.messages as f64;
        let (ok, failures): (Vec<&Sample>, Vec<&Sample>) = samples.iter().partition(|sample| sample.status.is_ok());
        let label = format!("{:<12} {:<16}", cell.workload.mode.name(), cell.name());
        let timing = match figures {
            Some(f) => {
                let again =
                    f.repeat_interval.map_or(String::new(), |[low, high]| format!("  again {low:.1}-{high:.1}"));
                let clusters = format::found_clusters(&f.clusters);
                let mixed = if f.clusters.len() > 1 { format!("  clusters {clusters}") } else { String::new() };
                let left_out = if disturbed > 0 { format!(" +{disturbed} disturbed, left out") } else { String::new() };
                let (mean, ms, n) = (f.trimmed_mean, f.trimmed_mean * messages / 1e6, f.samples.len());
                let (median, min, max) = (f.median, f.min, f.max);
                format!(
                    "{ms:>9.2} ms {mean:>8.1} ns/msg{again}  median {median:.1} ({min:.1}-{max:.1}, \
                     n={n}{left_out}){mixed}"
                )
            }
            // Every sample ran but was left out as disturbed: their own figure, said as such.
            None if !ok.is_empty() => {
                let mean = ok.iter().map(|sample| sample.ns_per_message(cell.workload.messages)).sum::<f64>()
                    / ok.len() as f64;
                let (ms, n) = (mean * messages / 1e6, ok.len());
                format!(
                    "{ms:>9.2} ms {mean:>8.1} ns/msg  (mean of its {n} sample(s), every one disturbed and left out of \
                     every figure)"
                )
            }
            None => "no successful sample".to_owned(),
        };
        let bounded = ok.iter().filter(|sample| sample.bounded.is_some()).count();
        let bounded = if bounded > 0 { format!("  bounded {bounded} of {}", ok.len()) } else { String::new() };
        let failed = failures
            .first()
            .map_or(String::new(), |first| format!("  FAILED {} sample(s), first: {}", failures.len(), first.status));
        let paced = paced.map_or(String::new(), |paced| format!("  {}", paced_figures(paced)));
        self.print(format!("{label} {timing}{bounded}{paced}{}{failed}", extras(&cell.workload, &ok)));
    }

    /// The closing lines: where the CSV is, every cell refused (its channel cannot run it), and
    /// every failed cell.
    pub fn finish(&self, csv: &Path, refused_cells: &[String], failed_cells: &[String]) {
        print_line(&format!("\nresults: {}", csv.display()));
        let lists =
            [(refused_cells, "refused, one row each, the others measured"), (failed_cells, "had failed samples")];
        for (cells, what) in lists.into_iter().filter(|(cells, _)| !cells.is_empty()) {
            print_line(&format!("{} cell(s) {what}:", cells.len()));
            cells.iter().for_each(|cell| print_line(&format!("  {cell}")));
        }
    }
}

/// A paced cell's p99, CPU and drops as the figures table holds them, the figures the card, the
/// tables, the report and `summary --json` give: `latency (pooled over 4 samples) p50 12.0 µs
/// p99 159 µs p99.9 208 µs max 1.02 ms  cpu 1.20 µs/msg delivered (trimmed mean)  drops 0.00%`;
/// the samples those of the cell's that were kept (the disturbed ones left out of every figure).
pub fn paced_figures(paced: &PacedCell) -> String {
    let samples = format::count(paced.ranges.drop_share.map_or(0, |span| span.samples) as u64, "sample", "samples");
    let mut out = String::new();
    if let Some(latency) = paced.latency {
        let [p50, p99, p999, max] =
            [latency.p50, latency.p99, latency.p999, latency.max].map(|ns| format::duration(ns as f64));
        out += &format!("latency (pooled over {samples}) p50 {p50} p99 {p99} p99.9 {p999} max {max}  ");
    }
    if let Some(cpu) = paced.cpu_ns_per_delivered {
        out += &format!("cpu {}/msg delivered (trimmed mean)  ", format::duration(cpu));
    }
    out + &format!("drops {}", format::percent(paced.drop_share))
}

/// The medians of what the run recorded beyond wall time, each introduced by its name; a
/// paced cell's latency and CPU are [`paced_figures`]' instead.
fn extras(workload: &Workload, ok: &[&Sample]) -> String {
    let median = |value: &dyn Fn(&Sample) -> Option<f64>| {
        let values: Vec<f64> = ok.iter().filter_map(|sample| value(sample)).collect();
        stats::median(&values)
    };
    let messages = workload.messages as f64;
    let mut out = String::new();
    if workload.latency && workload.pace.is_none() {
        // Pooled over every delivered message of the cell's samples, as every answer gives it.
        let histograms = ok.iter().filter_map(|sample| sample.latency_histogram.as_deref());
        if let Some(pooled) = Latency::of(&crate::run::latency::merge(histograms)) {
            let [p50, p99, p999, max] = [pooled.p50, pooled.p99, pooled.p999, pooled.max].map(|ns| ns as f64 / 1000.0);
            out += &format!("  latency (pooled) p50 {p50:.1} p99 {p99:.1} p99.9 {p999:.1} max {max:.1} µs");
        }
    }
    if (workload.payload.varies() || workload.sink.path().is_some())
        && let Some(rate) = median(&|sample: &Sample| Some(sample.mb_per_s()))
    {
        out += &format!("  {rate:.1} MB/s");
    }
    if let Some(pace) = workload.pace
        && let Some(interval) =
            median(&|sample: &Sample| sample.pace_actual.map(|actual| actual.as_secs_f64() * 1000.0))
    {
        let asked = pace.interval.as_secs_f64() * 1000.0;
        out += &format!("  bursts every {interval:.2} ms (asked {asked:.2})");
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

/// What each task of a paced `workload` sends: `5 messages every 20ms for 1s` (its bursts × the
/// interval).
fn schedule(workload: &Workload, pace: crate::run::workload::Pace) -> String {
    let frames = workload.messages_for(0).div_ceil(pace.burst.max(1));
    let every = humantime::format_duration(pace.interval);
    format!("{} messages every {every} for {}", pace.burst, humantime::format_duration(pace.interval * frames))
}

/// Prints a line on stdout. A closed stdout (`| head`) is ignored: the sweep goes on and
/// its CSV stays complete.
pub fn print_line(line: &str) {
    let _ = writeln!(io::stdout().lock(), "{line}");
}

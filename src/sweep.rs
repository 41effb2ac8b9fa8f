//! Drives the whole sweep. Within each (runtime, tasks, mode) group the channels take
//! their samples round-robin, so slow drift of the machine hits every channel alike; each
//! sample runs on a fresh runtime (the first after the cell's warm-up) under a watchdog; a
//! cell keeps sampling until its median is known precisely enough or its time is up
//! ([`StopRule`]). Every sample goes to the CSV as soon as it is measured, every finished
//! cell to the console.

use std::time::{Duration, Instant};

use crate::output::console::Console;
use crate::output::csv::{self, CsvWriter};
use crate::plan::{Cell, Plan};
use crate::run::measure::{self, Sample, Watchdog};
use crate::run::verify::Status;
use crate::stats::{self, StopRule};

/// A cell being sampled.
struct Progress {
    cell: Cell,
    samples: Vec<Sample>,
    spent: Duration,
    done: bool,
}

impl Progress {
    fn ok_ns_per_message(&self) -> Vec<f64> {
        let messages = self.cell.workload.messages;
        self.samples.iter().filter(|s| s.status.is_ok()).map(|s| s.ns_per_message(messages)).collect()
    }
}

/// What the sweep found beyond the samples themselves.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One line per cell that had failed samples.
    pub failed_cells: Vec<String>,
    /// Each cell whose median stayed less precise than `--precision`: that precision, and a line.
    pub noisy_cells: Vec<(f64, String)>,
    /// Cells finished.
    pub cells_done: usize,
    /// Samples written to the CSV.
    pub samples: usize,
    /// Whether a stop signal (SIGINT, SIGTERM, SIGHUP) stopped the sweep before its end.
    pub interrupted: bool,
}

/// Runs every cell of `plan`, or until `watchdog.interrupted` is set. Stops early with an
/// error only when the CSV cannot be written or a runtime cannot start.
pub fn run(plan: &Plan, watchdog: &Watchdog, console: &Console, csv: &mut CsvWriter) -> anyhow::Result<Outcome> {
    let rule = plan.stop_rule();
    let mut outcome = Outcome::default();
    let cells = plan.cells();
    let mut section = None;
    // A group is one (runtime, workers, tasks, mode): consecutive in the plan's order.
    let group_of = |cell: &Cell| (cell.runtime, cell.workers, cell.workload.tasks, cell.workload.mode);
    for group in cells.chunk_by(|a, b| group_of(a) == group_of(b)) {
        let first = &group[0];
        if section != Some((first.runtime, first.workers, first.workload.tasks)) {
            section = Some((first.runtime, first.workers, first.workload.tasks));
            console.section(first.runtime, first.workers, &first.workload);
        }
        let group = run_group(group.to_vec(), plan, &rule, watchdog, console, csv)?;
        outcome.samples += group.iter().map(|progress| progress.samples.len()).sum::<usize>();
        if watchdog.is_interrupted() {
            outcome.interrupted = true;
            return Ok(outcome);
        }
        for progress in group {
            report_cell(&progress, &rule, console, &mut outcome);
        }
    }
    Ok(outcome)
}

fn report_cell(progress: &Progress, rule: &StopRule, console: &Console, outcome: &mut Outcome) {
    let summary = stats::summarize(&progress.ok_ns_per_message());
    let failures: Vec<&Sample> = progress.samples.iter().filter(|s| !s.status.is_ok()).collect();
    console.cell(&progress.cell, summary.as_ref(), rule.precision, &progress.samples);
    outcome.cells_done += 1;
    let label = progress.cell.label();
    if let Some(first) = failures.first() {
        let (failed, all) = (failures.len(), progress.samples.len());
        outcome.failed_cells.push(format!("{label}: {failed} of {all} samples failed, first: {}", first.status));
    }
    let precision = summary.and_then(|summary| summary.median_precision());
    if let Some(precision) = precision.filter(|&precision| precision > rule.precision) {
        let samples = progress.samples.len();
        let line = format!("{label}: ±{:.1}% after {samples} samples", precision * 100.0);
        outcome.noisy_cells.push((precision, line));
    }
}

/// Samples the cells of one group round-robin, each round starting one channel later,
/// until every cell is done or the sweep is interrupted.
fn run_group(
    cells: Vec<Cell>,
    plan: &Plan,
    rule: &StopRule,
    watchdog: &Watchdog,
    console: &Console,
    csv: &mut CsvWriter,
) -> anyhow::Result<Vec<Progress>> {
    let mut group: Vec<Progress> = cells
        .into_iter()
        .map(|cell| Progress { cell, samples: Vec::new(), spent: Duration::ZERO, done: false })
        .collect();
    for round in 0.. {
        if group.iter().all(|progress| progress.done) {
            break;
        }
        for offset in 0..group.len() {
            let index = (round + offset) % group.len();
            if watchdog.is_interrupted() {
                return Ok(group);
            }
            let progress = &mut group[index];
            if progress.done {
                continue;
            }
            console.running(&progress.cell, progress.samples.len() + 1);
            let started = Instant::now();
            let cell = &progress.cell;
            if progress.samples.is_empty()
                && let Some(status) = capacity_mismatch(cell)
            {
                // A channel that does not hold what it was given would be measured on other
                // terms than the rest: one failed row says so, and the cell is not sampled.
                let sample = measure::Sample::failed(Duration::ZERO, Duration::ZERO, status);
                csv.append(&csv::record(cell, 1, &sample))?;
                progress.samples.push(sample);
                progress.done = true;
                console.cell_done();
                continue;
            }
            let warmups = if progress.samples.is_empty() { plan.warmup } else { 0 };
            let (workload, warm_up) = (&cell.workload, cell.workload.warm_up());
            let Some(sample) = measure::guarded_sample(
                cell.runtime,
                cell.workers,
                cell.channel.prepare,
                workload,
                (&warm_up, warmups),
                watchdog,
            )?
            else {
                return Ok(group);
            };
            csv.append(&csv::record(cell, progress.samples.len() + 1, &sample))?;
            // A channel that hung once would hang again: each retry would only cost the timeout.
            let hung = matches!(sample.status, Status::Timeout(_));
            progress.samples.push(sample);
            let ok = progress.ok_ns_per_message();
            progress.done = hung || rule.is_done(progress.samples.len(), &ok, progress.spent + started.elapsed());
            // Everything spent on the cell counts against its time: the run, the row, the statistics.
            progress.spent += started.elapsed();
            if progress.done {
                console.cell_done();
            }
        }
    }
    Ok(group)
}

/// [`Status::Capacity`] when the cell's channel, made as the cell makes it, does not hold
/// exactly its capacity per channel with no receiver taking any (`channel::probe_capacity`).
fn capacity_mismatch(cell: &Cell) -> Option<Status> {
    let (capacity, senders) = (cell.workload.capacity_per_channel(), cell.workload.senders_per_channel());
    let accepted = (cell.channel.probe_capacity)(capacity, senders);
    (accepted != capacity).then(|| {
        Status::Capacity(format!(
            "made for {capacity} slots with {senders} sender(s), it accepted {accepted} messages \
             with nobody receiving (see channel::probe_capacity)"
        ))
    })
}

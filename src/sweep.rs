//! Drives the whole sweep. Within each (runtime, tasks, mode) group the channels take
//! their samples round-robin, so slow drift of the machine hits every channel alike; each
//! sample runs on a fresh runtime (the first after the cell's warm-up); a cell keeps sampling until its median is known
//! precisely enough or its time is up ([`StopRule`]). Every sample goes to the CSV as soon
//! as it is measured, every finished cell to the console.

use std::time::{Duration, Instant};

use anyhow::Context;

use crate::cli::Plan;
use crate::measure::{self, Sample};
use crate::report::{Cell, Console, CsvSink, Record};
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
    /// One line per cell whose median stayed less precise than `--precision`.
    pub noisy_cells: Vec<String>,
}

/// Runs every cell of `plan`. Stops early only when the CSV cannot be written or a
/// runtime cannot start.
pub fn run(plan: &Plan, console: &Console, csv: &mut CsvSink) -> anyhow::Result<Outcome> {
    let rule = plan.stop_rule();
    let mut outcome = Outcome::default();
    for &runtime in &plan.runtimes {
        for &tasks in &plan.tasks {
            console.section(runtime, plan.workers, &plan.workload(plan.modes[0], tasks));
            for &mode in &plan.modes {
                let cells = plan.channels.iter().map(|&channel| Cell {
                    channel,
                    runtime,
                    workers: runtime.threads(plan.workers),
                    workload: plan.workload(mode, tasks),
                });
                for progress in run_group(cells.collect(), plan, &rule, console, csv)? {
                    let summary = stats::summarize(&progress.ok_ns_per_message());
                    let failures: Vec<&Sample> = progress.samples.iter().filter(|s| !s.status.is_ok()).collect();
                    console.cell(&progress.cell, summary.as_ref(), rule.precision, &failures);
                    let label = progress.cell.label();
                    if let Some(first) = failures.first() {
                        let (failed, all) = (failures.len(), progress.samples.len());
                        outcome
                            .failed_cells
                            .push(format!("{label}: {failed} of {all} samples failed, first: {}", first.status));
                    }
                    let precision = summary.and_then(|summary| summary.median_precision());
                    if let Some(precision) = precision.filter(|&precision| precision > rule.precision) {
                        let samples = progress.samples.len();
                        outcome
                            .noisy_cells
                            .push(format!("{label}: ±{:.1}% after {samples} samples", precision * 100.0));
                    }
                }
            }
        }
    }
    Ok(outcome)
}

/// Samples the cells of one group round-robin, each round starting one channel later,
/// until every cell is done.
fn run_group(
    cells: Vec<Cell>,
    plan: &Plan,
    rule: &StopRule,
    console: &Console,
    csv: &mut CsvSink,
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
            let progress = &mut group[index];
            if progress.done {
                continue;
            }
            console.running(&progress.cell, progress.samples.len() + 1);
            let started = Instant::now();
            let sample = run_sample(&progress.cell, plan, progress.samples.is_empty())?;
            csv.append(&Record::new(&progress.cell, progress.samples.len() + 1, &sample))?;
            progress.samples.push(sample);
            let ok = progress.ok_ns_per_message();
            progress.done = rule.is_done(progress.samples.len(), &ok, progress.spent + started.elapsed());
            // Everything spent on the cell counts against its time: the run, the row, the statistics.
            progress.spent += started.elapsed();
            if progress.done {
                console.cell_done();
            }
        }
    }
    Ok(group)
}

/// One recorded sample on a fresh runtime; before a cell's first, its `--warmup` short runs.
fn run_sample(cell: &Cell, plan: &Plan, first: bool) -> anyhow::Result<Sample> {
    let runtime = cell
        .runtime
        .build(plan.workers)
        .with_context(|| format!("cannot start a {} tokio runtime", cell.runtime.name()))?;
    if first {
        let warm_up = cell.workload.warm_up();
        for _ in 0..plan.warmup {
            measure::sample(&runtime, cell.channel, &warm_up);
        }
    }
    Ok(measure::sample(&runtime, cell.channel, &cell.workload))
}

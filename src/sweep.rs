//! Drives the whole sweep: every cell in order, warm-ups then samples, each sample
//! handed to the CSV as soon as it is measured and each cell's summary to the console.

use anyhow::Context;

use crate::cli::Plan;
use crate::measure::{self, Sample};
use crate::report::{Cell, Console, CsvSink, Record};
use crate::stats;

/// Runs every cell of `plan`; returns the labels of the cells that had failed samples.
/// Stops early only when the CSV cannot be written or a runtime cannot start.
pub fn run(plan: &Plan, console: &Console, csv: &mut CsvSink) -> anyhow::Result<Vec<String>> {
    let mut failed_cells = Vec::new();
    for &runtime in &plan.runtimes {
        for &tasks in &plan.tasks {
            console.section(runtime, plan.workers, &plan.workload(plan.modes[0], tasks));
            for &mode in &plan.modes {
                for &channel in &plan.channels {
                    let cell = Cell {
                        channel,
                        runtime,
                        workers: runtime.threads(plan.workers),
                        workload: plan.workload(mode, tasks),
                    };
                    let samples = run_cell(&cell, plan, console, csv)?;
                    let (ok, failed): (Vec<&Sample>, Vec<&Sample>) =
                        samples.iter().partition(|sample| sample.status.is_ok());
                    let ns_per_message: Vec<f64> =
                        ok.iter().map(|sample| sample.ns_per_message(cell.workload.messages)).collect();
                    console.cell(&cell, stats::summarize(&ns_per_message), &failed);
                    if let Some(first) = failed.first() {
                        failed_cells.push(format!(
                            "{}: {} of {} samples failed, first: {}",
                            cell.label(),
                            failed.len(),
                            samples.len(),
                            first.status
                        ));
                    }
                }
            }
        }
    }
    Ok(failed_cells)
}

/// Warm-ups, then the recorded samples of one cell, all on one fresh runtime.
fn run_cell(cell: &Cell, plan: &Plan, console: &Console, csv: &mut CsvSink) -> anyhow::Result<Vec<Sample>> {
    console.running(cell);
    let runtime = cell
        .runtime
        .build(plan.workers)
        .with_context(|| format!("cannot start a {} tokio runtime", cell.runtime.name()))?;
    let warm_up = cell.workload.warm_up();
    for _ in 0..plan.warmup {
        measure::sample(&runtime, cell.channel, &warm_up);
        console.run_done();
    }
    let mut samples = Vec::with_capacity(plan.samples);
    for number in 1..=plan.samples {
        let sample = measure::sample(&runtime, cell.channel, &cell.workload);
        csv.append(&Record::new(cell, number, &sample))?;
        console.run_done();
        samples.push(sample);
    }
    Ok(samples)
}

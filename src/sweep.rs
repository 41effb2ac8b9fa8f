//! Drives the whole sweep in passes. Each pass visits every cell that still wants samples
//! once, in an order shuffled afresh per pass from [`ORDER_SEED`], so a cell's samples are
//! drawn across the whole run rather than within one second: the machine's slow changes of
//! state (frequency, other load, the page cache) hit every cell alike and land in each
//! cell's spread instead of in its figure. The first `--samples` passes visit every cell;
//! later passes visit only the cells that want more ([`StopRule`]), until the sweep's extra
//! time, `--max-time` × cells, is spent. As long as some cell is short of `--samples` samples
//! because some were measured in a disturbed stretch of the sweep (`stats::disturbed`, judged
//! afresh before each of these passes), or may hold a second cluster it has not yet had the
//! samples to show, the passes visit only those cells, the short ones first; what the budget
//! has left then goes to the cells whose trimmed mean is still wider than `--precision`.
//! After the budget only the short cells are sampled again, each up to twice `--samples` in
//! all; with `--max-time 0` there are no extra passes at all.
//!
//! Each sample runs on a fresh runtime (the cell's first after its warm-up) under a
//! watchdog, and goes to the CSV as soon as it is measured (`sample` numbers it within its
//! cell). The console shows progress per pass and, at the end, every cell's line, grouped
//! by runtime and task count.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;

use crate::output::console::Console;
use crate::output::csv::{self, CsvWriter};
use crate::plan::{Cell, Plan};
use crate::run::measure::{self, RuntimeKind, Sample, Watchdog};
use crate::run::verify::Status;
use crate::stats::disturbed::{Timed, disturbed};
use crate::stats::{self, StopRule};

/// The seed of the passes' visiting orders: the same plan visits its cells in the same
/// orders in every run.
pub const ORDER_SEED: u64 = 0xC4A2_2E15_0DE2_0001;

/// A cell being sampled.
struct Progress {
    cell: Cell,
    samples: Vec<Sample>,
    /// For each of `samples`, whether it was measured in a disturbed stretch ([`judge`]).
    disturbed: Vec<bool>,
    /// Never to be sampled again: it hung, or its channel does not hold its capacity.
    finished: bool,
    /// How many kept samples the cell had when [`StopRule::is_done`] last judged it, and
    /// what it said ([`Progress::judge_done`]).
    judged_done: Option<(usize, bool)>,
}

impl Progress {
    /// The samples that count: all but the disturbed ones.
    fn kept(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter().zip(&self.disturbed).filter(|(_, disturbed)| !**disturbed).map(|(sample, _)| sample)
    }

    fn ok_ns_per_message(&self) -> Vec<f64> {
        let messages = self.cell.workload.messages;
        self.kept().filter(|s| s.status.is_ok()).map(|s| s.ns_per_message(messages)).collect()
    }

    /// Whether the cell wants no more samples, as [`Progress::judge_done`] last found.
    fn done(&self) -> bool {
        self.finished || self.judged_done.is_some_and(|(_, done)| done)
    }

    /// Judges afresh whether the cell wants no more samples ([`StopRule::is_done`], whose
    /// bootstrap costs time that grows with the samples), when its count of kept samples has
    /// moved since the last judgement: by one below 20 samples, by a tenth from there, so that
    /// a cell sampled hundreds of times is not bootstrapped once per sample.
    fn judge_done(&mut self, rule: &StopRule) {
        let kept = self.kept().count();
        let stale = self.judged_done.is_none_or(|(judged, _)| kept.abs_diff(judged) * 10 >= judged.max(20));
        if stale {
            self.judged_done = Some((kept, rule.is_done(kept, &self.ok_ns_per_message())));
        }
    }

    /// Owed, or not done and maybe mixed ([`StopRule::wants_clusters_seen`]): while any cell is,
    /// the extra passes visit only such cells.
    fn priority(&self, rule: &StopRule) -> bool {
        self.owed(rule) || !self.finished && rule.wants_clusters_seen(self.kept().count(), &self.ok_ns_per_message())
    }

    /// Short of `--samples` kept samples because some were disturbed, and not yet retaken as
    /// often as `--samples` again: visited in the extra passes whatever their budget says.
    fn owed(&self, rule: &StopRule) -> bool {
        !self.finished && self.kept().count() < rule.min_samples && self.samples.len() < 2 * rule.min_samples
    }
}

/// What the sweep found beyond the samples themselves.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One line per cell that had failed samples.
    pub failed_cells: Vec<String>,
    /// Each cell whose mean stayed less precise than `--precision`: that precision, and a line.
    pub noisy_cells: Vec<(f64, String)>,
    /// Cells that reached `--samples` samples (or stopped early on a hang).
    pub cells_done: usize,
    /// Samples written to the CSV.
    pub samples: usize,
    /// Samples measured in a disturbed stretch of the sweep, left out of the figures.
    pub disturbed: usize,
    /// Whether a stop signal (SIGINT, SIGTERM, SIGHUP) stopped the sweep before its end.
    pub interrupted: bool,
}

/// Runs every cell of `plan` in passes, or until `watchdog.interrupted` is set, then prints
/// every sampled cell's line. Stops early with an error only when the CSV cannot be written
/// or a runtime cannot start.
pub fn run(plan: &Plan, watchdog: &Watchdog, console: &Console, csv: &mut CsvWriter) -> anyhow::Result<Outcome> {
    let rule = plan.stop_rule();
    let mut cells: Vec<Progress> = plan
        .cells()
        .into_iter()
        .map(|cell| Progress { cell, samples: Vec::new(), disturbed: Vec::new(), finished: false, judged_done: None })
        .collect();
    let budget = plan.max_time.mul_f64(cells.len() as f64);
    let mut extra_spent = Duration::ZERO;
    let mut outcome = Outcome::default();
    // `--max-time 0` asks for exactly `--samples` passes: not even disturbed samples are retaken.
    let retakes = !budget.is_zero();
    let mut generator = Pcg64Mcg::seed_from_u64(ORDER_SEED);
    // Every sample in the order it was measured: (cell, its sample number there).
    let mut measured: Vec<(usize, usize)> = Vec::new();
    'passes: for pass in 1.. {
        let extra = pass > plan.samples;
        if extra {
            judge(&mut cells, &measured);
            cells.iter_mut().for_each(|cell| cell.judge_done(&rule));
        }
        let spent = extra && extra_spent >= budget;
        // While a cell is short of samples or may be mixed, the extra passes visit only those.
        let first_things = extra && cells.iter().any(|cell| cell.priority(&rule));
        let mut visiting: Vec<usize> = (0..cells.len())
            .filter(|&at| match (spent, first_things) {
                (true, _) => retakes && cells[at].owed(&rule),
                (false, true) => cells[at].priority(&rule),
                (false, false) => !cells[at].done(),
            })
            .collect();
        if visiting.is_empty() {
            break;
        }
        visiting.shuffle(&mut generator);
        if extra {
            // Owed cells first: the budget may run out before a pass ends.
            visiting.sort_by_cached_key(|&at| !cells[at].owed(&rule));
        }
        console.pass(pass, visiting.len(), extra.then(|| (budget.saturating_sub(extra_spent), budget)));
        for at in visiting {
            if extra && extra_spent >= budget && !(retakes && cells[at].owed(&rule)) {
                break;
            }
            let started = Instant::now();
            if !sample_cell(&mut cells[at], plan, watchdog, console, csv)? {
                outcome.interrupted = true;
                break 'passes;
            }
            measured.push((at, cells[at].samples.len() - 1));
            outcome.samples += 1;
            if extra {
                extra_spent += started.elapsed();
            }
        }
    }
    judge(&mut cells, &measured);
    report(&cells, plan, &rule, console, &mut outcome);
    Ok(outcome)
}

/// Marks the samples measured in a disturbed stretch (`stats::disturbed`), as
/// `results::load` will read them from the CSV: in the order they were measured, grouped by
/// runtime and worker count.
fn judge(cells: &mut [Progress], measured: &[(usize, usize)]) {
    let mut groups: Vec<(RuntimeKind, usize)> = Vec::new();
    let (mut timed, mut at) = (Vec::new(), Vec::new());
    for &(cell, sample) in measured {
        let progress = &cells[cell];
        let measured = &progress.samples[sample];
        if !measured.status.is_ok() {
            continue;
        }
        let key = (progress.cell.runtime, progress.cell.workers);
        let group = groups.iter().position(|known| *known == key).unwrap_or_else(|| {
            groups.push(key);
            groups.len() - 1
        });
        timed.push(Timed { group, cell, value: measured.ns_per_message(progress.cell.workload.messages) });
        at.push((cell, sample));
    }
    for progress in cells.iter_mut() {
        progress.disturbed = vec![false; progress.samples.len()];
    }
    for ((cell, sample), flag) in at.into_iter().zip(disturbed(&timed)) {
        cells[cell].disturbed[sample] = flag;
    }
}

/// Takes one sample of `progress`'s cell and writes its row; false when the user
/// interrupted it (nothing was measured).
fn sample_cell(
    progress: &mut Progress,
    plan: &Plan,
    watchdog: &Watchdog,
    console: &Console,
    csv: &mut CsvWriter,
) -> anyhow::Result<bool> {
    if watchdog.is_interrupted() {
        return Ok(false);
    }
    let cell = &progress.cell;
    console.running(cell, progress.samples.len() + 1);
    if progress.samples.is_empty()
        && let Some(status) = capacity_mismatch(cell)
    {
        // A channel that does not hold what it was given would be measured on other terms
        // than the rest: one failed row says so, and the cell is not sampled.
        let sample = Sample::failed(Duration::ZERO, Duration::ZERO, status);
        csv.append(&csv::record(cell, 1, &sample))?;
        console.sampled();
        progress.samples.push(sample);
        progress.disturbed.push(false);
        progress.finished = true;
        return Ok(true);
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
        return Ok(false);
    };
    csv.append(&csv::record(cell, progress.samples.len() + 1, &sample))?;
    console.sampled();
    // A channel that hung once would hang again: each retry would only cost the timeout.
    progress.finished |= matches!(sample.status, Status::Timeout(_));
    progress.samples.push(sample);
    progress.disturbed.push(false);
    Ok(true)
}

/// Prints every sampled cell, a section heading per (runtime, tasks), and lists the failed
/// and the noisy cells in `outcome`.
fn report(cells: &[Progress], plan: &Plan, rule: &StopRule, console: &Console, outcome: &mut Outcome) {
    console.finish_passes();
    let mut section = None;
    for progress in cells.iter().filter(|progress| !progress.samples.is_empty()) {
        let cell = &progress.cell;
        if section != Some((cell.runtime, cell.workers, cell.workload.tasks)) {
            section = Some((cell.runtime, cell.workers, cell.workload.tasks));
            console.section(cell.runtime, cell.workers, &cell.workload);
        }
        let ok = progress.ok_ns_per_message();
        let summary = stats::summarize(&ok);
        let kept: Vec<Sample> = progress.kept().cloned().collect();
        let disturbed = progress.samples.len() - kept.len();
        outcome.disturbed += disturbed;
        console.cell(cell, summary.as_ref(), &stats::clusters(&ok), rule.precision, &kept, disturbed);
        if progress.finished || kept.len() >= plan.samples || rule.is_done(kept.len(), &ok) {
            outcome.cells_done += 1;
        }
        let label = cell.label();
        let failures: Vec<&Sample> = kept.iter().filter(|s| !s.status.is_ok()).collect();
        if let Some(first) = failures.first() {
            let (failed, all) = (failures.len(), kept.len());
            outcome.failed_cells.push(format!("{label}: {failed} of {all} samples failed, first: {}", first.status));
        }
        let precision = summary.and_then(|summary| summary.trimmed_mean_precision());
        if let Some(precision) = precision.filter(|&precision| precision > rule.precision) {
            let samples = kept.len();
            let line = format!("{label}: trimmed mean ±{:.1}% after {samples} samples", precision * 100.0);
            outcome.noisy_cells.push((precision, line));
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pass_visits_every_cell_once_in_a_seeded_order() {
        let mut generator = Pcg64Mcg::seed_from_u64(ORDER_SEED);
        let mut first: Vec<usize> = (0..50).collect();
        first.shuffle(&mut generator);
        let mut second: Vec<usize> = (0..50).collect();
        second.shuffle(&mut generator);
        assert_ne!(first, second, "each pass has its own order");
        assert_ne!(first, (0..50).collect::<Vec<_>>());
        for order in [&first, &second] {
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        }
        let mut again: Vec<usize> = (0..50).collect();
        again.shuffle(&mut Pcg64Mcg::seed_from_u64(ORDER_SEED));
        assert_eq!(again, first, "the same seed, the same order");
    }
}

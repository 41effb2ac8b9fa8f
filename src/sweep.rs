//! Drives the whole sweep in rounds. A **round** measures some channels of one group (the
//! cells that differ only by channel: same runtime, workers, mode, task count and setting)
//! back to back, in an order shuffled per round from [`ORDER_SEED`], one sample each, so that
//! a verdict between two of them can pair their samples round by round: the host's drift over
//! minutes, which moves every channel measured together alike, cancels in the pair's ratio.
//!
//! - **Screening**: `--samples` passes, each a round of every group in a shuffled group order.
//!   The first round has every channel; later screening rounds leave out a channel whose first
//!   sample was more than [`SCREEN_CUT`] times the group's fastest (clearly behind on any
//!   runtime). A channel left out keeps its figure and its interval.
//! - **Duels**: passes over the groups whose answer is still open ([`open`]): the leader and
//!   every channel whose verdict against it is neither separated nor a tie within
//!   [`duel_resolution`] are measured in another round, until no group is open or the duels
//!   have taken `--max-time` × the number of cells.
//!
//! Each sample runs on a fresh runtime (the cell's first after its warm-up) under a
//! watchdog, and goes to the CSV as soon as it is measured, with its round. The console
//! shows progress per pass and, at the end, every cell's line, grouped by runtime and task count.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;

use crate::output::console::Console;
use crate::output::csv::{self, CsvWriter};
use crate::results::schema::Record;
use crate::plan::{Cell, Plan};
use crate::results::load::{CellKey, CellSamples, ResultsFile};
use crate::results::noise::{FileNoise, Metric};
use crate::results::recommend::rank;
use crate::run::measure::{self, RuntimeKind, Sample, Watchdog};
use crate::run::verify::Status;
use crate::stats;
use crate::stats::verdict::Call;

/// The seed of the rounds' orders: the same plan visits its cells in the same orders in every run.
pub const ORDER_SEED: u64 = 0xC4A2_2E15_0DE2_0001;

/// A channel whose first sample took more than this many times the group's fastest first sample
/// is clearly behind: the later screening rounds and the duels leave it out.
pub const SCREEN_CUT: f64 = 2.0;

/// How close a tie must be before a duel stops: a channel tied with the leader within this
/// (0.05 = 5%) at one task count is decided. A band averages several task counts, so its ties
/// come out closer.
pub fn duel_resolution(runtime: RuntimeKind) -> f64 {
    match runtime {
        RuntimeKind::CurrentThread => 0.05,
        RuntimeKind::MultiThread => 0.10,
    }
}

/// A cell being sampled.
struct Progress {
    cell: Cell,
    /// Its key, as the results name it.
    key: CellKey,
    samples: Vec<Sample>,
    /// The same as the results read them (rows as written, with their rounds).
    read: CellSamples,
    /// Never to be sampled again: it hung, or its channel does not hold its capacity.
    finished: bool,
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
    /// Cells sampled at least once (or stopped early on a hang).
    pub cells_done: usize,
    /// Samples written to the CSV.
    pub samples: usize,
    /// Rounds measured after screening.
    pub duel_rounds: usize,
    /// Whether a stop signal (SIGINT, SIGTERM, SIGHUP) stopped the sweep before its end.
    pub interrupted: bool,
}

/// Runs `plan`'s screening rounds and then its duels, or until `watchdog.interrupted` is set,
/// then prints every sampled cell's line. Stops early with an error only when the CSV cannot
/// be written or a runtime cannot start.
pub fn run(plan: &Plan, watchdog: &Watchdog, console: &Console, csv: &mut CsvWriter) -> anyhow::Result<Outcome> {
    let mut cells: Vec<Progress> = plan
        .cells()
        .into_iter()
        .map(|cell| {
            let key = CellKey::of(&csv::record(&cell, 0, &Sample::failed(Duration::ZERO, Duration::ZERO, Status::Ok)));
            Progress { cell, key, samples: Vec::new(), read: CellSamples::default(), finished: false }
        })
        .collect();
    let groups = groups(&cells);
    let budget = plan.max_time.mul_f64(cells.len() as f64);
    let mut outcome = Outcome::default();
    let mut generator = Pcg64Mcg::seed_from_u64(ORDER_SEED);
    let mut round = 0u64;
    let mut duels: Option<Instant> = None;
    let spent = |duels: Option<Instant>| duels.is_some_and(|started| started.elapsed() >= budget);
    'sweep: for pass in 1.. {
        let screening = pass <= plan.samples;
        if !screening && duels.is_none() {
            duels = Some(Instant::now());
        }
        let visiting: Vec<Vec<usize>> = if screening {
            groups.iter().map(|group| if pass == 1 { group.clone() } else { screened(group, &cells) }).collect()
        } else {
            let noise = FileNoise::of(&as_results(&cells));
            groups.iter().map(|group| open(group, &cells, &noise)).collect()
        };
        let mut visiting: Vec<Vec<usize>> = visiting.into_iter().filter(|members| members.len() > 1 || screening).collect();
        visiting.retain(|members| !members.is_empty());
        if visiting.is_empty() || spent(duels) {
            break;
        }
        visiting.shuffle(&mut generator);
        let count = visiting.iter().map(Vec::len).sum();
        console.pass(pass, count, duels.map(|started| (budget.saturating_sub(started.elapsed()), budget)));
        for members in visiting {
            if spent(duels) {
                break 'sweep;
            }
            let mut order: Vec<usize> = members.into_iter().filter(|&at| !cells[at].finished).collect();
            order.shuffle(&mut generator);
            round += 1;
            for at in order {
                if !sample_cell(&mut cells[at], round, plan, watchdog, console, csv)? {
                    outcome.interrupted = true;
                    break 'sweep;
                }
                outcome.samples += 1;
            }
            outcome.duel_rounds += usize::from(!screening);
        }
    }
    report(&cells, console, &mut outcome);
    Ok(outcome)
}

/// The cells of `cells` by group (all but the channel alike), in plan order.
fn groups(cells: &[Progress]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(CellKey, Vec<usize>)> = Vec::new();
    for (at, progress) in cells.iter().enumerate() {
        let group = CellKey { channel: String::new(), ..progress.key.clone() };
        match groups.iter_mut().find(|(key, _)| *key == group) {
            Some((_, members)) => members.push(at),
            None => groups.push((group, vec![at])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// The members of `group` a later screening round measures: those whose first `ok` sample is
/// within [`SCREEN_CUT`] of the group's fastest first sample.
fn screened(group: &[usize], cells: &[Progress]) -> Vec<usize> {
    let first = |at: usize| cells[at].ok_ns_per_message().first().copied();
    let fastest = group.iter().filter_map(|&at| first(at)).fold(f64::INFINITY, f64::min);
    group.iter().copied().filter(|&at| first(at).is_some_and(|value| value <= fastest * SCREEN_CUT)).collect()
}

/// The sweep's samples so far as the results read them.
fn as_results(cells: &[Progress]) -> ResultsFile {
    let mut file = ResultsFile::default();
    for progress in cells.iter().filter(|progress| !progress.samples.is_empty()) {
        file.order.push(progress.key.clone());
        file.cells.insert(progress.key.clone(), progress.read.clone());
    }
    file
}

/// The members of `group` a duel round measures: on each metric the answer ranks the group by
/// (ns/message; for paced cells p99 and CPU per delivered message, whose ns/message restates the
/// schedule), its leader by the same ranking the answer uses (`results::recommend::rank`, on
/// this task count alone) and every channel whose verdict against it is still open: no verdict
/// yet, or a tie wider than the metric's resolution ([`duel_resolution`]; 1.5× for p99). A
/// channel screened out (see [`screened`]) is not among them. Empty when nothing is open.
fn open(group: &[usize], cells: &[Progress], noise: &FileNoise) -> Vec<usize> {
    let in_play = screened(group, cells);
    let Some(&any) = in_play.first() else { return Vec::new() };
    let runtime = cells[any].cell.runtime;
    let channels: Vec<((String, Option<crate::run::workload::Merge>), Vec<&CellSamples>)> = in_play
        .iter()
        .map(|&at| (at, &cells[at].read))
        .filter(|(_, cell)| cell.failed == 0 && !cell.ok.is_empty())
        .map(|(at, cell)| ((cells[at].key.channel.clone(), cells[at].key.merge), vec![cell]))
        .collect();
    let metrics: &[(Metric, f64)] = if cells[any].cell.workload.pace.is_some() {
        &[(Metric::P99, 1.5), (Metric::Cpu, 1.0 + duel_resolution(runtime))]
    } else {
        &[(Metric::Speed, 1.0 + duel_resolution(runtime))]
    };
    let mut wanted: Vec<String> = Vec::new();
    for &(metric, resolution) in metrics {
        let ranking = rank(&channels, metric, runtime, noise);
        let undecided = |entry: &&crate::results::recommend::Entry| {
            entry.verdict.is_none_or(|verdict| verdict.call == Call::Tied && verdict.within() > resolution.ln())
        };
        let open: Vec<String> = ranking.entries.iter().skip(1).filter(undecided).map(|e| e.channel.clone()).collect();
        if !open.is_empty() {
            wanted.extend(ranking.first().map(|entry| entry.channel.clone()));
            wanted.extend(open);
        }
    }
    in_play.iter().copied().filter(|&at| wanted.contains(&cells[at].key.channel)).collect()
}

/// Takes one sample of `progress`'s cell and writes its row; false when the user
/// interrupted it (nothing was measured).
fn sample_cell(
    progress: &mut Progress,
    round: u64,
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
        let record = Record { round: Some(round), ..csv::record(cell, 1, &sample) };
        csv.append(&record)?;
        console.sampled();
        progress.samples.push(sample);
        progress.read.add(record, false);
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
    let record = Record { round: Some(round), ..csv::record(cell, progress.samples.len() + 1, &sample) };
    csv.append(&record)?;
    console.sampled();
    // A channel that hung once would hang again: each retry would only cost the timeout.
    progress.finished |= matches!(sample.status, Status::Timeout(_));
    progress.samples.push(sample);
    progress.read.add(record, false);
    Ok(true)
}

/// Prints every sampled cell, a section heading per (runtime, tasks), and lists the failed
/// cells in `outcome`.
fn report(cells: &[Progress], console: &Console, outcome: &mut Outcome) {
    console.finish_passes();
    let mut section = None;
    for progress in cells.iter().filter(|progress| !progress.samples.is_empty()) {
        let cell = &progress.cell;
        if section != Some((cell.runtime, cell.workers, cell.workload.tasks)) {
            section = Some((cell.runtime, cell.workers, cell.workload.tasks));
            console.section(cell.runtime, cell.workers, &cell.workload);
        }
        let ok = progress.ok_ns_per_message();
        console.cell(cell, stats::summarize(&ok).as_ref(), &stats::clusters(&ok), &progress.samples);
        outcome.cells_done += 1;
        let label = cell.label();
        let failures: Vec<&Sample> = progress.samples.iter().filter(|s| !s.status.is_ok()).collect();
        if let Some(first) = failures.first() {
            let (failed, all) = (failures.len(), progress.samples.len());
            outcome.failed_cells.push(format!("{label}: {failed} of {all} samples failed, first: {}", first.status));
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

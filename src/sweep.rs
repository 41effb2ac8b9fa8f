//! Drives the whole sweep in rounds. A **round** measures some channels of one group (the
//! cells that differ only by channel) back to back, in an order shuffled from [`ORDER_SEED`],
//! one sample each, so that a verdict can pair two channels' samples round by round: the host's
//! drift, which moves every channel measured together alike, cancels in the pair's ratio. Each
//! round runs in a fresh process of this binary (`run::rounds`).
//!
//! - **Screening**: `--samples` passes, each a round of every group in a shuffled order. Later
//!   passes leave out a channel clearly behind ([`behind`]), never one of `--keep`.
//! - **Measured again**: from the second pass on, a round lost to a slow machine (its samples
//!   left out: `results::load::MachineSpeed`) is measured again with the same channels, once the
//!   machine reads typical again (`again`).
//! - **Left short**: after screening, unless `--max-time` is 0, up to `--samples` passes measure
//!   again the cells it left with fewer kept samples than it gave every cell, some left out as
//!   disturbed (`refill`), so that no cell's figure stands on one sample where its neighbours'
//!   stand on two.
//! - **Duels**: passes over the bands whose answer is still open ([`duels`]), and over the cells
//!   left with no kept sample, until nothing is open or they have taken `--max-time` × the cells
//!   (`Plan::duel_cells`), and past that, on a host whose samples so far were noisy
//!   (`results::host::NOISY_SHARE` left out), over bands still open, half the sweep's time again
//!   at most (`plan::estimate::duels_bound`).
//!
//! Each sample goes to the CSV (flushed) and to the rows in memory that screening and the duels
//! read. The console shows progress per pass and, at the end, every cell's line.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;

use crate::output::console::{Console, Pass};
use crate::output::csv::{self, CsvWriter};
use crate::plan::estimate::duels_bound;
use crate::plan::{Cell, Plan};
use crate::results::band::first_seen;
use crate::results::coord::Coord;
use crate::results::figures::Table;
use crate::results::load::{CellKey, ResultsFile, of_rows};
use crate::results::schema::Record;
use crate::run::measure::{Bound, Sample, Watchdog};
use crate::run::rounds::{self, Isolation, Job};
use crate::run::slow::Stretch;
use crate::run::verify::Status;
use crate::run::workload::Mode;

mod again;
mod choose;
mod clock;
mod key;

pub use choose::{BOUND_CUT, BOUND_FLOOR, SCREEN_CUT};
use choose::{behind, duels, refill, still_open};
use clock::{Clock, spent};
use key::key_of;

/// The seed of the rounds' orders: the same plan visits its cells in the same orders in every run.
pub const ORDER_SEED: u64 = 0xC4A2_2E15_0DE2_0001;

/// Where a sweep's rounds are measured, and which cells its duels measure again: the sweep's
/// own ([`Alone`]), or a paired A/B run's (`app::ab`), whose every round two builds measure.
pub trait Place {
    /// Takes `jobs` as `rounds::take` does under `isolation`, calling `taken(at, build,
    /// sample)` with the build that measured the sample (`Record::build`): the sweep's own
    /// take each once, by this binary, its rows of no build.
    fn take(
        &mut self,
        isolation: Isolation,
        jobs: &[Job],
        watchdog: &Watchdog,
        taken: &mut dyn FnMut(usize, &str, Sample) -> anyhow::Result<()>,
    ) -> anyhow::Result<bool> {
        rounds::take(isolation, jobs, watchdog, &mut |at, sample| taken(at, "", sample))
    }

    /// The cells the next duel pass measures, from the rows written so far (`_rows`, as they
    /// are in the CSV); `None` for the sweep's own duels between each band's leaders.
    fn duels(&mut self, _rows: &[Record]) -> anyhow::Result<Option<Vec<CellKey>>> {
        Ok(None)
    }

    /// The `build` of the rows this binary writes itself (a cell refused before it is sampled,
    /// its channel not holding its capacity): the sweep's none; an A/B run's the candidate's,
    /// whose adapter this binary is.
    fn own_build(&self) -> &'static str {
        ""
    }

    /// Whether the later screening rounds leave out the channels far behind ([`SCREEN_CUT`]):
    /// the sweep's own do; an A/B run judges every channel alike.
    fn screens(&self) -> bool {
        true
    }
}

/// The sweep's own place: each round once, by this binary, its rows of no build.
pub struct Alone;

impl Place for Alone {}

/// A cell being sampled.
struct Progress {
    cell: Cell,
    /// Its key, as the results name it.
    key: CellKey,
    samples: Vec<Sample>,
    /// Never to be sampled again: it hung, or its channel does not hold its capacity.
    finished: bool,
}

/// What the sweep found beyond the samples themselves.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One line per cell that had failed samples.
    pub failed_cells: Vec<String>,
    /// One line per cell its channel cannot run (`Cell::refusal`): a refused row, not a failure.
    pub refused_cells: Vec<String>,
    /// Cells sampled at least once (or stopped early on a hang).
    pub cells_done: usize,
    /// Whether a stop signal (SIGINT, SIGTERM, SIGHUP) stopped the sweep before its end.
    pub interrupted: bool,
    /// Every row written, in the CSV's order: what the answer at the sweep's end is read from
    /// (`results::load::of_rows`), as `summary` reads the CSV.
    pub rows: Vec<Record>,
}

/// Runs `plan`'s screening rounds and then its duels, each round measured where `place` says,
/// or until `watchdog.interrupted` is set, then prints every sampled cell's line. Stops early
/// with an error only when the CSV cannot be written or a runtime cannot start.
pub fn run(
    plan: &Plan,
    watchdog: &Watchdog,
    console: &Console,
    csv: &mut CsvWriter,
    place: &mut dyn Place,
) -> anyhow::Result<Outcome> {
    let mut cells: Vec<Progress> = plan
        .cells()
        .into_iter()
        .map(|cell| Progress { key: key_of(&cell), cell, samples: Vec::new(), finished: false })
        .collect();
    let groups = groups(&cells);
    let budget = plan.max_time.mul_f64(plan.duel_cells());
    let started = Instant::now();
    let mut outcome = Outcome::default();
    let mut generator = Pcg64Mcg::seed_from_u64(ORDER_SEED);
    let mut round = 0u64;
    // The duels' clock, from their first round.
    let mut dueling: Option<Clock> = None;
    // Every row written, in the CSV's order: what screening and the duels read.
    let mut rows: Vec<Record> = Vec::new();
    // The rounds lost to a slow machine that were measured again.
    let mut replaced: BTreeSet<u64> = BTreeSet::new();
    'sweep: for pass in 1.. {
        // The rounds a slow machine cost, measured again once it reads typical.
        let again =
            if pass > 1 && place.screens() { again::measure_again(&cells, &rows, &mut replaced) } else { Vec::new() };
        let before =
            if dueling.is_none() { before_duels(pass, plan, (&groups, &cells, &rows), place, &again) } else { None };
        let (mut visiting, before) = match before {
            Some((members, kind)) => (members, Some(kind)),
            None => {
                // The duels' clock starts with their first pass.
                let noisy = Some(duels_bound(budget, started.elapsed()));
                let clock = dueling.get_or_insert_with(|| Clock { started: Instant::now(), bound: budget, noisy });
                (duel_pass(plan, (&groups, &cells, &rows), place, clock.past_budget())?, None)
            }
        };
        visiting.retain(|members| !members.is_empty());
        let measured_again: usize = again.iter().map(Vec::len).sum();
        visiting.extend(again);
        if visiting.is_empty() || spent(&mut dueling, &rows) {
            if let (true, Some(clock)) = (visiting.is_empty(), &dueling) {
                console.duels_stopped(clock.left(), still_open(&of_rows(&rows), plan, clock.left().0));
            }
            break;
        }
        visiting.shuffle(&mut generator);
        let count = visiting.iter().map(Vec::len).sum();
        // A pass before the duels says what it is; a duel pass, the duels' time left of their bound.
        let duel = |clock: &Clock| Pass::Duel { left: clock.left().0, bound: clock.left().1 };
        let kind = before.or_else(|| dueling.as_ref().map(duel)).unwrap_or(Pass::Screening);
        console.round(pass, (count, measured_again), kind);
        for members in visiting {
            if spent(&mut dueling, &rows) {
                break 'sweep;
            }
            let mut order: Vec<usize> = members.into_iter().filter(|&at| !cells[at].finished).collect();
            order.shuffle(&mut generator);
            round += 1;
            let written = Written { csv: &mut *csv, rows: &mut rows };
            if !take_round(&mut cells, &order, round, plan, (watchdog, console, written), place)? {
                outcome.interrupted = true;
                break 'sweep;
            }
        }
    }
    report(&cells, &of_rows(&rows), console, &mut outcome);
    outcome.rows = rows;
    Ok(outcome)
}

/// The groups pass `pass` visits before the duels, each its members, and what the pass is: every
/// cell in the first pass (and in each screening pass of a `place` that does not screen), those
/// not [`behind`] in the later screening passes, then, unless `--max-time` is 0, up to
/// `--samples` passes of the cells screening left short ([`refill`]) beside `again` (the rounds
/// the pass measures again for a slow machine); `None` once there is none, when the duels begin.
/// `rows` are every row so far.
fn before_duels(
    pass: usize,
    plan: &Plan,
    (groups, cells, rows): (&[Vec<usize>], &[Progress], &[Record]),
    place: &dyn Place,
    again: &[Vec<usize>],
) -> Option<(Vec<Vec<usize>>, Pass)> {
    let screening = pass <= plan.samples;
    if pass == 1 || (screening && !place.screens()) {
        return Some((groups.to_vec(), Pass::Screening));
    }
    // Read as `summary` reads the CSV written so far: disturbed samples left out.
    let file = of_rows(rows);
    if screening {
        let behind = behind(&file, &plan.keep);
        let ahead = |group: &Vec<usize>| group.iter().copied().filter(|&at| !behind(&cells[at].key)).collect();
        return Some((groups.iter().map(ahead).collect(), Pass::Screening));
    }
    // `--max-time 0` asks for the screening passes alone, and gets no other.
    let refilling = place.screens() && pass <= 2 * plan.samples && !plan.max_time.is_zero();
    let refilled = if refilling { refill(groups, cells, &file, (&plan.keep, plan.samples), again) } else { Vec::new() };
    (!refilled.is_empty()).then_some((refilled, Pass::LeftShort))
}

/// The groups the next duel pass visits, each its members: those `place` names, or the sweep's
/// own duels ([`duels`]: groups of two members at least), `past_budget` being the time the duels
/// have left past their budget. `rows` are every row so far.
fn duel_pass(
    plan: &Plan,
    (groups, cells, rows): (&[Vec<usize>], &[Progress], &[Record]),
    place: &mut dyn Place,
    past_budget: Option<Duration>,
) -> anyhow::Result<Vec<Vec<usize>>> {
    if let Some(keys) = place.duels(rows)? {
        let wanted = |group: &Vec<usize>| group.iter().copied().filter(|&at| keys.contains(&cells[at].key)).collect();
        return Ok(groups.iter().map(wanted).collect());
    }
    let weighing = plan.weigh.clone().unwrap_or_default();
    Ok(duels(groups, cells, &of_rows(rows), (&plan.keep, &weighing), past_budget))
}

/// The cells of `cells` by group (all but the channel alike), in plan order: `Plan::cells`
/// puts the channels of a group next to each other.
fn groups(cells: &[Progress]) -> Vec<Vec<usize>> {
    let all: Vec<usize> = (0..cells.len()).collect();
    all.chunk_by(|&a, &b| cells[a].key.group() == cells[b].key.group()).map(<[usize]>::to_vec).collect()
}

/// Takes one sample of each of `order`'s cells as round `round`, where `place` says, and
/// writes each row as it arrives: false when the user interrupted the round (the sample
/// running then was not measured).
fn take_round(
    cells: &mut [Progress],
    order: &[usize],
    round: u64,
    plan: &Plan,
    (watchdog, console, mut written_to): (&Watchdog, &Console, Written),
    place: &mut dyn Place,
) -> anyhow::Result<bool> {
    if watchdog.is_interrupted() {
        return Ok(false);
    }
    let mut measured = Vec::new();
    for &at in order {
        let progress = &mut cells[at];
        match progress.samples.is_empty().then(|| capacity_mismatch(&progress.cell)).flatten() {
            // A channel that does not hold what it was given would be measured on other terms
            // than the rest: one failed row says so, and the cell is not sampled.
            Some(status) => {
                console.running(&progress.cell, 1);
                let failed = Sample::failed(Duration::ZERO, Duration::ZERO, status);
                record(progress, (round, place.own_build()), failed, console, &mut written_to)?;
                progress.finished = true;
            }
            None => measured.push(at),
        }
    }
    // A round is one group's: one fastest full sample for all its jobs.
    let fastest = measured.first().and_then(|&at| fastest_full(cells, &cells[at].key));
    // The faults build's slow stretch of the machine, when one was asked for (checked at the start).
    let slowed = Stretch::requested().ok().flatten().map_or(0.0, |stretch| stretch.at(round));
    let jobs: Vec<Job> = measured
        .iter()
        .map(|&at| {
            let (progress, cell) = (&cells[at], &cells[at].cell);
            let bounded = place.screens() && cell.workload.pace.is_none() && !plan.keep.contains(&cell.channel.name);
            Job {
                channel: cell.channel.name.to_owned(),
                prepare: Some(cell.channel.prepare),
                runtime: cell.runtime,
                workers: cell.workers,
                workload: cell.workload.clone(),
                warmups: plan.isolation.warmups(progress.samples.is_empty(), plan.warmup),
                bound: bounded.then_some(Bound { cut: BOUND_CUT, floor: BOUND_FLOOR, fastest }),
                slowed,
            }
        })
        .collect();
    let running = |cells: &[Progress], at: Option<&usize>| {
        if let Some(&at) = at {
            console.running(&cells[at].cell, cells[at].samples.len() + 1);
        }
    };
    running(cells, measured.first());
    place.take(plan.isolation, &jobs, watchdog, &mut |taken, build, sample| {
        let progress = &mut cells[measured[taken]];
        // A channel that hung once would hang again: each retry would only cost the timeout.
        progress.finished |= matches!(sample.status, Status::Timeout(_));
        record(progress, (round, build), sample, console, &mut written_to)?;
        running(cells, measured.get(taken + 1));
        Ok(())
    })
}

/// The fastest sample of `key`'s group (its cells of every channel) that ran every message:
/// what a bounded sample's bound is a multiple of.
fn fastest_full(cells: &[Progress], key: &CellKey) -> Option<Duration> {
    let of_group = cells.iter().filter(|progress| progress.key.group() == key.group());
    let full = of_group.flat_map(|progress| &progress.samples).filter(|s| s.status.is_ok() && s.bounded.is_none());
    full.map(|sample| sample.elapsed).min()
}

/// Where each row goes as it is measured: the CSV, flushed, and the rows in memory.
struct Written<'a> {
    csv: &'a mut CsvWriter,
    rows: &'a mut Vec<Record>,
}

/// Writes `sample`, of `progress`'s cell in round `round` by `build`, as its next row and keeps it.
fn record(
    progress: &mut Progress,
    (round, build): (u64, &str),
    sample: Sample,
    console: &Console,
    written: &mut Written,
) -> anyhow::Result<()> {
    let sample_number = progress.samples.len() + 1;
    let record =
        Record { round: Some(round), build: build.to_owned(), ..csv::record(&progress.cell, sample_number, &sample) };
    written.csv.append(&record)?;
    written.rows.push(record);
    console.sampled();
    progress.samples.push(sample);
    Ok(())
}

/// Prints every sampled cell under a section heading per (runtime, tasks, capacity, phase),
/// each section's cells together in the plan's order, its figures as `summary` reads them from
/// the rows written (`file`: disturbed samples left out), and lists the failed cells in `outcome`.
fn report(cells: &[Progress], file: &ResultsFile, console: &Console, outcome: &mut Outcome) {
    console.finish_rounds();
    let table = Table::of(file);
    // The capacity and the setting (a paced cell's phase, the batch, the record…) are in the
    // heading: each gets a section of its own. A section is the cells' Coord with the mode
    // blanked, and their task count.
    let section_of =
        |progress: &Progress| (Coord { mode: Mode::default(), ..progress.key.coord.clone() }, progress.key.tasks);
    let mut shown: Vec<&Progress> = cells.iter().filter(|progress| !progress.samples.is_empty()).collect();
    let sections = first_seen(shown.iter().map(|progress| section_of(progress)));
    shown.sort_by_key(|progress| sections.iter().position(|section| *section == section_of(progress)));
    let mut section = None;
    for progress in shown {
        let cell = &progress.cell;
        if section != Some(section_of(progress)) {
            section = Some(section_of(progress));
            console.section(cell.runtime, cell.workers, &cell.workload);
        }
        let disturbed = file.cells.get(&progress.key).map_or(0, |c| c.disturbed.len());
        let figures = file.cells.contains_key(&progress.key).then(|| table.cell(&progress.key));
        console.cell(cell, (figures, disturbed), &progress.samples);
        outcome.cells_done += 1;
        let label = cell.label();
        if let Some(reason) = cell.refusal() {
            outcome.refused_cells.push(format!("{label}: {reason}"));
            continue;
        }
        let failures: Vec<&Sample> = progress.samples.iter().filter(|s| !s.status.is_ok()).collect();
        if let Some(first) = failures.first() {
            let (failed, all) = (failures.len(), progress.samples.len());
            outcome.failed_cells.push(format!("{label}: {failed} of {all} samples failed, first: {}", first.status));
        }
    }
}

/// [`Status::Refused`] when the cell's channel cannot run it ([`Cell::refusal`]), or
/// [`Status::Capacity`] when, made as
/// the cell makes it, does not hold exactly its capacity per channel with no receiver taking any (`channel::probe_capacity`).
fn capacity_mismatch(cell: &Cell) -> Option<Status> {
    if let Some(reason) = cell.refusal() {
        return Some(Status::Refused(reason));
    }
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
#[path = "sweep/tests/bounded.rs"]
mod bounded;
#[cfg(test)]
#[path = "sweep/tests/synthetic.rs"]
pub(crate) mod synthetic;

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

    #[test]
    fn the_rows_in_memory_read_as_the_csv_they_were_written_to() {
        use clap::Parser;
        let cli =
            crate::cli::Cli::try_parse_from(["channel-bench", "--tasks", "4,8", "--channels", "flume,kanal"]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.csv");
        let mut csv = CsvWriter::create(&path, false).unwrap();
        let mut rows = Vec::new();
        // Uneven figures, an outlier far above its cell's others and a failure: what is left out
        // as disturbed depends on every row, in memory as read back.
        let figures = [1.0, 1.1, 0.9, 1.05, 9.0, 1.02, 0.98, 1.01];
        for (at, cell) in Plan::with_extra(cli.sweep, &[]).unwrap().cells().iter().enumerate() {
            for (number, scale) in figures.iter().enumerate() {
                let elapsed = Duration::from_nanos((scale * 1e6 * (at + 1) as f64) as u64);
                let status = if number == 3 && at == 1 { Status::Timeout(Duration::from_secs(1)) } else { Status::Ok };
                let mut sample = Sample::failed(elapsed, elapsed / 2, status);
                // A steal tick on the outlier: a disturbed sample.
                sample.steal = (number == 4).then_some(Duration::from_millis(5));
                let record = Record { round: Some(number as u64 + 1), ..csv::record(cell, number + 1, &sample) };
                csv.append(&record).unwrap();
                rows.push(record);
            }
        }
        let (read, kept) = (crate::results::load::load(&path).unwrap(), of_rows(&rows));
        assert_eq!(read.order, kept.order);
        assert_eq!(read.cells, kept.cells);
        assert!(kept.cells.values().any(|cell| !cell.disturbed.is_empty()), "{:?}", kept.cells);
        assert!(kept.cells.values().any(|cell| cell.failed == 1));
    }
}

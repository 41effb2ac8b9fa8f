//! Drives the whole sweep in rounds. A **round** measures some channels of one group (the
//! cells that differ only by channel: same runtime, workers, mode, task count and setting)
//! back to back, in an order shuffled per round from [`ORDER_SEED`], one sample each, so that
//! a verdict between two of them can pair their samples round by round: the host's drift over
//! minutes, which moves every channel measured together alike, cancels in the pair's ratio.
//! Each round runs in a fresh process of this binary (`run::rounds`), so what one process
//! does to a pair (where its memory landed) varies from round to round and is measured with
//! the rest of the pair's noise, instead of moving the whole run.
//!
//! - **Screening**: `--samples` passes, each a round of every group in a shuffled group order.
//!   The first round has every channel; later screening rounds leave out a channel clearly
//!   behind ([`behind`]: more than [`SCREEN_CUT`] times the group's fastest in two samples, or
//!   in its one sample and across its band), never one of `--keep`. A channel left out keeps
//!   its figure and its interval.
//! - **Duels**: passes over the bands whose answer is still open ([`duels`]): at each task
//!   count of the band, the band's leader and every channel whose verdict against it is neither
//!   separated nor a tie within the run's resolution (`FileNoise::resolution`, which widens
//!   with the drift the run measured) are measured in another round, as are a leader and
//!   runner-up with fewer than [`FEWEST_SAMPLES`] samples in a cell, until no band is open or
//!   the duels have taken `--max-time` × the number of cells.
//!
//! Each sample runs on a fresh runtime, after the warm-ups of a cell's first sample in its
//! process, under a watchdog, and goes to the CSV as soon as it is measured, with its round.
//! The console shows progress per pass and, at the end, every cell's line, grouped by runtime
//! and task count.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;

use crate::output::console::Console;
use crate::output::csv::{self, CsvWriter};
use crate::plan::{Cell, Plan};
use crate::results::decide::{self, Needed};
use crate::results::load::{CellKey, ResultsFile, WorkloadKey, load};
use crate::results::noise::{FileNoise, Group, Metric};
use crate::results::paced;
use crate::results::recommend::{Entry, Ranking, TaskBand, recommend};
use crate::results::schema::Record;
use crate::run::measure::{RuntimeKind, Sample, Watchdog};
use crate::run::rounds::{self, Job};
use crate::run::verify::Status;
use crate::run::workload::Mode;
use crate::stats;
use crate::stats::verdict::Call;

/// The seed of the rounds' orders: the same plan visits its cells in the same orders in every run.
pub const ORDER_SEED: u64 = 0xC4A2_2E15_0DE2_0001;

/// A channel whose first sample took more than this many times the group's fastest first sample
/// is clearly behind: the later screening rounds and the duels leave it out.
pub const SCREEN_CUT: f64 = 2.0;

/// The fewest `ok` samples a band's leader and runner-up have at each task count before the
/// duels end: no answer rests on one sample.
pub const FEWEST_SAMPLES: usize = 3;

/// A cell being sampled.
struct Progress {
    cell: Cell,
    /// Its key, as the results name it.
    key: CellKey,
    samples: Vec<Sample>,
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
            Progress { cell, key, samples: Vec::new(), finished: false }
        })
        .collect();
    let groups = groups(&cells);
    let budget = plan.max_time.mul_f64(cells.len() as f64);
    let mut outcome = Outcome::default();
    let mut generator = Pcg64Mcg::seed_from_u64(ORDER_SEED);
    let mut round = 0u64;
    let mut dueling: Option<Instant> = None;
    let spent = |dueling: Option<Instant>| dueling.is_some_and(|started| started.elapsed() >= budget);
    'sweep: for pass in 1.. {
        let screening = pass <= plan.samples;
        if !screening && dueling.is_none() {
            dueling = Some(Instant::now());
        }
        let visiting: Vec<Vec<usize>> = if pass == 1 {
            groups.clone()
        } else if screening {
            // Read as `summary` reads it: from the CSV written so far, disturbed samples left out.
            let file = load(csv.path())?;
            let behind = behind(&file, &plan.keep);
            groups.iter().map(|group| group.iter().copied().filter(|&at| !behind(&cells[at].key)).collect()).collect()
        } else {
            duels(&groups, &cells, &load(csv.path())?, &plan.keep)
        };
        let mut visiting: Vec<Vec<usize>> =
            visiting.into_iter().filter(|members| members.len() > 1 || screening).collect();
        visiting.retain(|members| !members.is_empty());
        if visiting.is_empty() || spent(dueling) {
            break;
        }
        visiting.shuffle(&mut generator);
        let count = visiting.iter().map(Vec::len).sum();
        console.pass(pass, count, dueling.map(|started| (budget.saturating_sub(started.elapsed()), budget)));
        for members in visiting {
            if spent(dueling) {
                break 'sweep;
            }
            let mut order: Vec<usize> = members.into_iter().filter(|&at| !cells[at].finished).collect();
            order.shuffle(&mut generator);
            round += 1;
            let (written, completed) = take_round(&mut cells, &order, round, plan, watchdog, console, csv)?;
            outcome.samples += written;
            if !completed {
                outcome.interrupted = true;
                break 'sweep;
            }
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

/// Which cells of `file` later screening rounds leave out: a channel not in `keep` whose every
/// `ok` sample (disturbed ones are not among them) took more than [`SCREEN_CUT`] times the
/// fastest sample of its group, either in two samples or more, or in its one sample here and at
/// every other task count of its band too. One slow sample alone, which a burst on the host
/// can make, leaves nothing out; nor does a cell with no `ok` sample but a disturbed one.
fn behind<'a>(file: &'a ResultsFile, keep: &'a [&str]) -> impl Fn(&CellKey) -> bool + 'a {
    let best = |key: &CellKey| file.cells.get(key).and_then(|cell| cell.ok.iter().copied().reduce(f64::min));
    let mut fastest: HashMap<CellKey, f64> = HashMap::new();
    for key in &file.order {
        if let Some(value) = best(key) {
            let group = fastest.entry(CellKey { channel: String::new(), ..key.clone() }).or_insert(value);
            *group = group.min(value);
        }
    }
    let slow = move |key: &CellKey| {
        let fastest = fastest.get(&CellKey { channel: String::new(), ..key.clone() });
        best(key).zip(fastest).is_some_and(|(value, fastest)| value > fastest * SCREEN_CUT)
    };
    move |key: &CellKey| {
        let Some(cell) = file.cells.get(key) else { return false };
        if cell.ok.is_empty() && cell.disturbed.is_empty() && cell.failed > 0 {
            return true;
        }
        if keep.contains(&key.channel.as_str()) || !slow(key) {
            return false;
        }
        let band = |other: &&CellKey| {
            other.tasks != key.tasks
                && TaskBand::of(other.tasks) == TaskBand::of(key.tasks)
                && CellKey { tasks: 0, workload: WorkloadKey::default(), ..(*other).clone() }
                    == CellKey { tasks: 0, workload: WorkloadKey::default(), ..key.clone() }
                && other.workload.workers == key.workload.workers
        };
        let siblings: Vec<&CellKey> = file.order.iter().filter(band).collect();
        cell.ok.len() >= 2 || (!siblings.is_empty() && siblings.iter().all(|other| slow(other)))
    }
}

/// The rounds the next duel pass measures: for every band of the answer so far (`file`: the
/// CSV as `summary` reads it, `results::recommend`, or `results::paced` for paced cells on p99
/// and CPU), whose leader is not yet told apart from some channel (no verdict yet, or a tie
/// wider than `FileNoise::resolution`; 1.5× for p99), one round per task count of the band with the
/// leader, those channels and the channels of `keep`, also at a task count whose screening left
/// one of them out. And at each task count where the leader or the runner-up of a band, or one
/// of the two fastest channels of the task count itself, has fewer than [`FEWEST_SAMPLES`]
/// samples, a round of the two: no answer and no leading figure rests on one sample. A cell
/// whose every sample was disturbed is measured again beside those two.
fn duels(groups: &[Vec<usize>], cells: &[Progress], file: &ResultsFile, keep: &[&str]) -> Vec<Vec<usize>> {
    // Per band: its group's key without the task count, the task counts, and the channels wanted.
    let mut wanted: Vec<(CellKey, Vec<u64>, Vec<String>)> = Vec::new();
    let noise = FileNoise::of(file);
    let open = |ranking: &Ranking, group: &Group| -> Vec<String> {
        let (drift, resolution) = (noise.paired_drift(group, Metric::Speed), noise.resolution(group, Metric::Speed));
        // Open while more rounds could decide it: not once the drift alone is wider than the gap.
        let undecided = |entry: &&Entry| {
            entry
                .verdict
                .is_none_or(|verdict| matches!(decide::needed(&verdict, 1, drift, resolution), Some(Needed::Rounds(_))))
        };
        let open: Vec<String> = ranking.entries.iter().skip(1).filter(undecided).map(|e| e.channel.clone()).collect();
        if open.is_empty() {
            open
        } else {
            let first = ranking.first().map(|first| first.channel.clone());
            first.into_iter().chain(open).chain(keep.iter().map(|&name| name.to_owned())).collect()
        }
    };
    for band in recommend(file) {
        let Some(key) = band_key(band.runtime, band.workers, band.mode, &band.setting, file) else { continue };
        let group = Group { runtime: band.runtime, mode: band.mode, setting: band.setting.clone() };
        let channels = open(&band.speed, &group);
        let two: Vec<String> = band.speed.entries.iter().take(2).map(|entry| entry.channel.clone()).collect();
        let thin = |tasks: u64| {
            two.iter().any(|channel| {
                let cell = CellKey { tasks, channel: channel.clone(), ..key.clone() };
                file.cells.get(&cell).is_some_and(|cell| cell.ok.len() < FEWEST_SAMPLES)
            })
        };
        let thin: Vec<u64> = band.tasks.iter().copied().filter(|&tasks| thin(tasks)).collect();
        wanted.push((key.clone(), band.tasks.clone(), channels));
        wanted.push((key, thin, two));
    }
    for band in paced::answer(file) {
        let key = band_key(band.runtime, band.workers, band.mode, &band.setting, file);
        let mut channels = Vec::new();
        let group = Group { runtime: band.runtime, mode: band.mode, setting: band.setting.clone() };
        let cpu = 1.0 + noise.resolution(&group, Metric::Cpu);
        for (ranking, resolution) in [(&band.p99, 1.5), (&band.cpu, cpu)] {
            let resolution = f64::ln(resolution);
            let tied_wide = |at: usize| {
                ranking.verdicts[at].is_none_or(|verdict| verdict.call == Call::Tied && verdict.within() > resolution)
            };
            let open: Vec<String> = (1..ranking.order.len())
                .filter(|&at| tied_wide(at))
                .map(|at| band.entries[ranking.order[at]].channel.clone())
                .collect();
            if !open.is_empty() {
                channels.extend(ranking.order.first().map(|&first| band.entries[first].channel.clone()));
                channels.extend(open);
            }
        }
        wanted.extend(key.map(|key| (key, band.tasks.clone(), channels)));
    }
    groups
        .iter()
        .map(|group| {
            let first = &cells[group[0]].key;
            let of_group = |(key, tasks, _): &&(CellKey, Vec<u64>, Vec<String>)| {
                tasks.contains(&first.tasks)
                    && CellKey { tasks: first.tasks, channel: String::new(), ..key.clone() }
                        == CellKey { channel: String::new(), ..first.clone() }
            };
            let channels: Vec<&String> = wanted.iter().filter(of_group).flat_map(|(_, _, channels)| channels).collect();
            let fastest = fastest_two(group, cells, file);
            let thin =
                fastest.iter().any(|&at| file.cells.get(&cells[at].key).is_some_and(|c| c.ok.len() < FEWEST_SAMPLES));
            // Every sample disturbed: no figure yet, so measured again beside the fastest.
            let unmeasured =
                |at: usize| file.cells.get(&cells[at].key).is_some_and(|c| c.ok.is_empty() && c.failed == 0);
            let again = group.iter().any(|&at| unmeasured(at));
            group
                .iter()
                .copied()
                .filter(|&at| {
                    channels.contains(&&cells[at].key.channel)
                        || ((thin || again) && fastest.contains(&at))
                        || unmeasured(at)
                })
                .collect()
        })
        .filter(|members: &Vec<usize>| members.len() > 1)
        .collect()
}

/// The two members of `group` with the lowest trimmed mean ns/message in `file`: the cell's
/// own fastest, whose figures the plot shows.
fn fastest_two(group: &[usize], cells: &[Progress], file: &ResultsFile) -> Vec<usize> {
    let mut figures: Vec<(usize, f64)> = group
        .iter()
        .filter_map(|&at| Some((at, stats::summarize(&file.cells.get(&cells[at].key)?.ok)?.trimmed_mean)))
        .collect();
    figures.sort_by(|a, b| a.1.total_cmp(&b.1));
    figures.into_iter().take(2).map(|(at, _)| at).collect()
}

/// The key of a band's cells (any channel, any task count) in `file`: the first cell of
/// `runtime`, `workers` (or the runtime's only worker count), `mode` and `setting`.
fn band_key(
    runtime: RuntimeKind,
    workers: Option<u64>,
    mode: Mode,
    setting: &str,
    file: &ResultsFile,
) -> Option<CellKey> {
    file.order
        .iter()
        .find(|key| {
            key.runtime == runtime
                && key.mode == mode
                && key.setting == setting
                && workers.is_none_or(|workers| key.workload.workers == workers)
        })
        .cloned()
}

/// Takes one sample of each of `order`'s cells as round `round`, where the plan says
/// (`run::rounds`), and writes each row as it arrives: the rows written, and false when the
/// user interrupted the round (the sample running then was not measured).
fn take_round(
    cells: &mut [Progress],
    order: &[usize],
    round: u64,
    plan: &Plan,
    watchdog: &Watchdog,
    console: &Console,
    csv: &mut CsvWriter,
) -> anyhow::Result<(usize, bool)> {
    if watchdog.is_interrupted() {
        return Ok((0, false));
    }
    let mut written = 0;
    let mut measured = Vec::new();
    for &at in order {
        let progress = &mut cells[at];
        match progress.samples.is_empty().then(|| capacity_mismatch(&progress.cell)).flatten() {
            // A channel that does not hold what it was given would be measured on other terms
            // than the rest: one failed row says so, and the cell is not sampled.
            Some(status) => {
                console.running(&progress.cell, 1);
                record(progress, round, Sample::failed(Duration::ZERO, Duration::ZERO, status), console, csv)?;
                progress.finished = true;
                written += 1;
            }
            None => measured.push(at),
        }
    }
    let jobs: Vec<Job> = measured
        .iter()
        .map(|&at| {
            let (progress, cell) = (&cells[at], &cells[at].cell);
            Job {
                channel: cell.channel.name.to_owned(),
                prepare: Some(cell.channel.prepare),
                runtime: cell.runtime,
                workers: cell.workers,
                workload: cell.workload.clone(),
                warmups: plan.isolation.warmups(progress.samples.is_empty(), plan.warmup),
            }
        })
        .collect();
    let running = |cells: &[Progress], at: Option<&usize>| {
        if let Some(&at) = at {
            console.running(&cells[at].cell, cells[at].samples.len() + 1);
        }
    };
    running(cells, measured.first());
    let completed = rounds::take(plan.isolation, &jobs, watchdog, &mut |taken, sample| {
        let progress = &mut cells[measured[taken]];
        // A channel that hung once would hang again: each retry would only cost the timeout.
        progress.finished |= matches!(sample.status, Status::Timeout(_));
        record(progress, round, sample, console, csv)?;
        written += 1;
        running(cells, measured.get(taken + 1));
        Ok(())
    })?;
    Ok((written, completed))
}

/// Writes `sample`, of `progress`'s cell in round `round`, as its next row and keeps it.
fn record(
    progress: &mut Progress,
    round: u64,
    sample: Sample,
    console: &Console,
    csv: &mut CsvWriter,
) -> anyhow::Result<()> {
    let record = Record { round: Some(round), ..csv::record(&progress.cell, progress.samples.len() + 1, &sample) };
    csv.append(&record)?;
    console.sampled();
    progress.samples.push(sample);
    Ok(())
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
    use crate::results::load::{hand_made, hand_made_key};

    #[test]
    fn one_slow_sample_screens_out_nothing_two_or_a_whole_band_do() {
        let fast: &[f64] = &[50.0];
        let file = hand_made(&[
            ("fast", 128, fast, 0),
            ("fast", 256, fast, 0),
            ("fast", 512, fast, 0),
            // One burst: slow at one task count only.
            ("burst", 128, &[50.0], 0),
            ("burst", 256, &[50.0], 0),
            ("burst", 512, &[121.0], 0),
            // Slow at every task count of the band.
            ("slow", 128, &[150.0], 0),
            ("slow", 256, &[150.0], 0),
            ("slow", 512, &[150.0], 0),
            // Slow twice where it was measured twice.
            ("twice", 512, &[130.0, 140.0], 0),
        ]);
        let behind = behind(&file, &["kept"]);
        let key = |channel: &str, tasks| hand_made_key(channel, tasks, "");
        assert!(!behind(&key("burst", 512)), "one slow sample at one task count");
        assert!(behind(&key("slow", 512)) && behind(&key("slow", 128)), "slow across the band");
        assert!(behind(&key("twice", 512)), "slow in two samples");
        assert!(!behind(&key("fast", 512)));
        let kept = hand_made(&[("fast", 512, fast, 0), ("kept", 512, &[500.0, 500.0], 0)]);
        assert!(!super::behind(&kept, &["kept"])(&key("kept", 512)), "a kept channel stays");
        // A sample the disturbance test left out of `ok` eliminates nothing.
        let mut disturbed = hand_made(&[("fast", 512, fast, 0), ("hit", 512, &[], 0)]);
        disturbed.cells.get_mut(&key("hit", 512)).unwrap().disturbed.push(500.0);
        assert!(!super::behind(&disturbed, &[])(&key("hit", 512)));
    }

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

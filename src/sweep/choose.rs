//! What the next round of a group measures after the first: the channels a screening round
//! keeps ([`behind`] says which it leaves out) and the duels' rounds ([`duels`]), each read
//! from the CSV written so far as `summary` reads it.

use std::collections::HashMap;

use super::Progress;
use crate::results::cells::FEWEST_SAMPLES;
use crate::results::decide::{self, Needed};
use crate::results::load::{CellKey, ResultsFile, WorkloadKey};
use crate::results::noise::{FileNoise, Group, Metric};
use crate::results::paced;
use crate::results::recommend::{Entry, Ranking, TaskBand, recommend};
use crate::run::measure::RuntimeKind;
use crate::run::workload::Mode;
use crate::stats;
use crate::stats::verdict::Call;

/// A channel whose first sample took more than this many times the group's fastest first sample
/// is clearly behind: the later screening rounds and the duels leave it out.
pub const SCREEN_CUT: f64 = 2.0;

/// Which cells of `file` later screening rounds leave out: a channel not in `keep` whose every
/// `ok` sample (disturbed ones are not among them) took more than [`SCREEN_CUT`] times the
/// fastest sample of its group, either in two samples or more, or in its one sample here and at
/// every other task count of its band too. One slow sample alone, which a burst on the host
/// can make, leaves nothing out; nor does a cell with no `ok` sample but a disturbed one.
pub(super) fn behind<'a>(file: &'a ResultsFile, keep: &'a [&str]) -> impl Fn(&CellKey) -> bool + 'a {
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

/// The rounds the next duel round of the groups measures: for every band of the answer so far (`file`: the
/// CSV as `summary` reads it, `results::recommend`, or `results::paced` for paced cells on p99
/// and CPU), whose leader is not yet told apart from some channel (no verdict yet, or a tie
/// wider than `FileNoise::resolution`; 1.5× for p99), one round per task count of the band with the
/// leader, those channels and the channels of `keep`, also at a task count whose screening left
/// one of them out. And at each task count where the leader or the runner-up of a band, or one
/// of the two fastest channels of the task count itself, has fewer than [`FEWEST_SAMPLES`]
/// samples, a round of the two: no answer and no leading figure rests on one sample. A cell
/// whose every sample was disturbed is measured again beside those two.
pub(super) fn duels(groups: &[Vec<usize>], cells: &[Progress], file: &ResultsFile, keep: &[&str]) -> Vec<Vec<usize>> {
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
    wanted.extend(paced_wanted(file, &noise));
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

/// The paced bands' share of [`duels`]: per band whose p99 or CPU leader is not yet told apart
/// from some channel (a tie wider than 1.5× for p99, the run's resolution for CPU), its key,
/// task counts, and the leader with those channels.
fn paced_wanted(file: &ResultsFile, noise: &FileNoise) -> Vec<(CellKey, Vec<u64>, Vec<String>)> {
    let mut wanted = Vec::new();
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
    wanted
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
}

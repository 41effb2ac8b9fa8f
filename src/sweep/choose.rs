//! What the next round of a group measures after the first: the channels a screening round
//! leaves out ([`behind`]) and the duels' rounds ([`duels`]), each read from the rows written
//! so far (`load::of_rows`), as `summary` reads them from the CSV.

use std::collections::HashMap;
use std::time::Duration;

use super::Progress;
use crate::results::analysis::{
    Band, CellKey, CellSamples, Entry, FEWEST_SAMPLES, Metric, Needed, PacedEntry, PacedSample, Ranking, ResultsFile,
    Standing, TaskBand,
};
use crate::results::decision::Weighing;
use crate::stats;
use crate::stats::verdict::Call;

/// A channel whose first sample took more than this many times the group's fastest first sample
/// is clearly behind: the later screening rounds and the duels leave it out.
pub const SCREEN_CUT: f64 = 2.0;

/// A sample of a channel not kept, unpaced, is stopped once it has run this many times the
/// fastest sample of its group that ran every message (`run::measure::Bound`): a channel that
/// far behind keeps a figure, over the messages it took by then, labelled bounded, and does not
/// set the run's length. Above [`SCREEN_CUT`], so a bounded channel is one screening leaves out.
pub const BOUND_CUT: f64 = 4.0;

/// The shortest bound: a sample shorter than this runs in full, whatever its group's fastest.
/// Short samples cost little, and their spread on a busy host is widest (a `--quick` sample of
/// a few milliseconds can take 4× its cell's others).
pub const BOUND_FLOOR: Duration = Duration::from_millis(100);

/// The fewest `ok` samples the duels give a band's leader and runner-up and each task count's
/// two fastest channels, flat out ([`duel_samples`]). Above the plots' [`FEWEST_SAMPLES`]: a
/// multi-thread or merged-recv cell's samples often fall in two modes, and three of them can
/// all show one mode, so that a band is decided on it and the next run decides it the other way.
pub const DUEL_SAMPLES: usize = 5;

/// The fewest `ok` samples the duels give `key`'s cell when it is one of its band's leaders:
/// [`DUEL_SAMPLES`] flat out; [`FEWEST_SAMPLES`] paced, whose ns/message is its schedule and
/// whose room's figures have their own rule ([`SETTLED_FROM`]).
fn duel_samples(key: &CellKey) -> usize {
    if key.coord.setting.pace_ns.is_some() { FEWEST_SAMPLES } else { DUEL_SAMPLES }
}

/// The fewest samples a paced figure settles on: an interval without the last round's sample,
/// which needs [`FEWEST_SAMPLES`], and one with it.
pub const SETTLED_FROM: usize = FEWEST_SAMPLES + 1;

/// A paced figure has settled when the last round's sample moved the half-width of its interval
/// by less than this share of the half-width before it.
pub const SETTLED_CHANGE: f64 = 0.2;

/// Which cells of `file` later screening rounds leave out: a channel not in `keep` whose every
/// `ok` sample took more than [`SCREEN_CUT`] times its group's fastest, in two samples or more,
/// or in its one sample here and at every other task count of its band too (one slow sample
/// alone, which a burst on the host can make, leaves nothing out); and a cell that only failed.
pub(super) fn behind<'a>(file: &'a ResultsFile, keep: &'a [&str]) -> impl Fn(&CellKey) -> bool + 'a {
    let best = |key: &CellKey| file.cells.get(key).and_then(|cell| cell.ok.iter().copied().reduce(f64::min));
    let mut fastest: HashMap<CellKey, f64> = HashMap::new();
    for key in &file.order {
        if let Some(value) = best(key) {
            let group = fastest.entry(key.group()).or_insert(value);
            *group = group.min(value);
        }
    }
    let slow = move |key: &CellKey| {
        let fastest = fastest.get(&key.group());
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
                && (other.channel.as_str(), other.merge) == (key.channel.as_str(), key.merge)
                && other.coord == key.coord
        };
        let siblings: Vec<&CellKey> = file.order.iter().filter(band).collect();
        cell.ok.len() >= 2 || (!siblings.is_empty() && siblings.iter().all(|other| slow(other)))
    }
}

/// How many bands of `file`, `plan`'s rows so far, stay open once the duels have nothing left to
/// measure with `left` of their time: those whose rounds would take longer, and those no number
/// of rounds would decide (`Standing::still_open`).
pub(super) fn still_open(file: &ResultsFile, plan: &crate::plan::Plan, left: Duration) -> (usize, usize) {
    Standing::of(file, &plan.weigh.clone().unwrap_or_default()).still_open(file, left)
}

/// The rounds of the next duel pass: for every band of the answer so far ([`Standing`] of
/// `file`) whose leader is not yet told apart from some channel, one round per task count of the
/// band with the leader and those channels. And wherever the leader or runner-up of a band, or
/// the two fastest of a task count, have fewer than [`duel_samples`], a round of the two (a cell
/// screening left [`short`] was measured again before the duels: [`refill`]), and wherever a
/// cell has no kept sample ([`bare`]), a round of it. Every round measures `keep`'s channels of
/// its group too. Past the duels' budget, with `past_budget` the time they have left, a band that
/// time would likely not decide is not dueled (`Standing::out_of_reach`).
pub(super) fn duels(
    groups: &[Vec<usize>],
    cells: &[Progress],
    file: &ResultsFile,
    (keep, weighing): (&[&str], &Weighing),
    past_budget: Option<Duration>,
) -> Vec<Vec<usize>> {
    // Per band: its group's key without the task count, the task counts, and the channels wanted.
    let mut wanted: Vec<(CellKey, Vec<u64>, Vec<String>)> = Vec::new();
    let standing = Standing::of(file, weighing);
    let open = |ranking: &Ranking, band: &Band| -> Vec<String> {
        // Open while more rounds could decide it: not once the drift alone is wider than the gap.
        let undecided = |entry: &&Entry| {
            entry.verdict.is_none_or(|verdict| matches!(standing.needed(band, &verdict, 1), Some(Needed::Rounds(_))))
        };
        let open: Vec<String> = ranking.entries.iter().skip(1).filter(undecided).map(|e| e.channel.clone()).collect();
        if open.is_empty() {
            return open;
        }
        ranking.first().map(|first| first.channel.clone()).into_iter().chain(open).collect()
    };
    let out_of_reach = past_budget.map_or_else(Vec::new, |left| standing.out_of_reach(file, left));
    for band in &standing.bands {
        let Some(key) = band_key(&band.band, file) else { continue };
        let channels = if out_of_reach.contains(&band.band) { Vec::new() } else { open(&band.speed, &band.band) };
        let two: Vec<String> = band.speed.entries.iter().take(2).map(|entry| entry.channel.clone()).collect();
        let thin = |tasks: u64| {
            two.iter().any(|channel| {
                let cell = CellKey { tasks, channel: channel.clone(), ..key.clone() };
                file.cells.get(&cell).is_some_and(|samples| samples.ok.len() < duel_samples(&cell))
            })
        };
        let thin: Vec<u64> = band.band.tasks.iter().copied().filter(|&tasks| thin(tasks)).collect();
        wanted.push((key.clone(), band.band.tasks.clone(), channels));
        wanted.push((key, thin, two));
    }
    wanted.extend(paced_wanted(file, &standing));
    wanted.extend(settling(file, &standing));
    groups
        .iter()
        .map(|group| {
            let first = &cells[group[0]].key;
            let of_group = |(key, tasks, _): &&(CellKey, Vec<u64>, Vec<String>)| {
                tasks.contains(&first.tasks) && CellKey { tasks: first.tasks, ..key.group() } == first.group()
            };
            let channels: Vec<&String> = wanted.iter().filter(of_group).flat_map(|(_, _, channels)| channels).collect();
            let fastest = fastest_two(group, cells, file);
            let thin = fastest.iter().any(|&at| {
                let key = &cells[at].key;
                file.cells.get(key).is_some_and(|c| c.ok.len() < duel_samples(key))
            });
            let chosen = |at: &usize| {
                channels.contains(&&cells[*at].key.channel) || (thin && fastest.contains(at)) || bare(cells, file, *at)
            };
            let members: Vec<usize> = group.iter().copied().filter(chosen).collect();
            // A round of its group measures every kept channel too: its samples keep pace with the leader's.
            let kept = |at: &usize| keep.contains(&cells[*at].key.channel.as_str()) && !members.contains(at);
            let kept: Vec<usize> =
                if members.len() > 1 { group.iter().copied().filter(kept).collect() } else { Vec::new() };
            [members, kept].concat()
        })
        .filter(|members: &Vec<usize>| members.len() > 1 || members.iter().any(|&at| bare(cells, file, at)))
        .collect()
}

/// Whether the flat-out cell `at` is left with no kept sample in `file`, its samples all left out
/// as disturbed ([`short`] of one): the duels measure it again in every pass, since a channel
/// without a figure at one of a band's task counts is not ranked in that band. Screening can
/// leave such a cell whole where the run's end does not: whether the host was busy, which
/// decides whether a sample kept from its cores is left out, is read on the rows so far.
fn bare(cells: &[Progress], file: &ResultsFile, at: usize) -> bool {
    let key = &cells[at].key;
    key.coord.setting.pace_ns.is_none() && !cells[at].finished && short(file, key, 1)
}

/// Whether `key`'s cell in `file` is left with fewer `ok` samples than the `screened` rounds gave
/// every cell because some were left out as disturbed, none failed.
fn short(file: &ResultsFile, key: &CellKey, screened: usize) -> bool {
    file.cells.get(key).is_some_and(|c| c.ok.len() < screened && !c.disturbed.is_empty() && c.failed == 0)
}

/// The rounds of a pass after screening and before the duels that measure again the flat-out
/// cells screening left [`short`], those [`behind`] aside: one round per group, of its short
/// cells, none of `again` (the cells the same pass measures again for a slow machine). A cell's
/// figure then stands on as many samples as its neighbours': one sample kept of two is a figure
/// that the next run can read two or three times apart. A paced cell's figures have their own
/// rule ([`settling`]).
pub(super) fn refill(
    groups: &[Vec<usize>],
    cells: &[Progress],
    file: &ResultsFile,
    (keep, screened): (&[&str], usize),
    again: &[Vec<usize>],
) -> Vec<Vec<usize>> {
    let behind = behind(file, keep);
    let wanted = |at: &usize| {
        let key = &cells[*at].key;
        let flat_out = key.coord.setting.pace_ns.is_none();
        flat_out
            && !cells[*at].finished
            && short(file, key, screened)
            && !behind(key)
            && !again.iter().flatten().any(|a| a == at)
    };
    groups
        .iter()
        .map(|group| group.iter().copied().filter(wanted).collect::<Vec<usize>>())
        .filter(|m| !m.is_empty())
        .collect()
}

/// The paced bands' share of [`duels`]: per paced band of `standing` whose p99 or CPU leader is
/// not yet told apart from some channel (a tie wider than 1.5× for p99, the run's resolution for
/// CPU), its key in `file`, task counts, and the leader with those channels. The room's task
/// count aside: its rounds measure the room's contenders ([`settling`]).
fn paced_wanted(file: &ResultsFile, standing: &Standing) -> Vec<(CellKey, Vec<u64>, Vec<String>)> {
    let room = standing.room.as_ref().map(|(room, _, _)| *room);
    let mut wanted = Vec::new();
    for band in &standing.paced {
        let key = band_key(&band.band, file);
        let mut channels = Vec::new();
        let cpu = 1.0 + standing.resolution(&band.band, Metric::Cpu);
        for (ranking, resolution) in [(&band.p99, 1.5), (&band.cpu, cpu)] {
            let resolution = f64::ln(resolution);
            let tied_wide = |entry: &&Entry<PacedEntry>| {
                entry.verdict.is_none_or(|verdict| verdict.call == Call::Tied && verdict.within() > resolution)
            };
            let open: Vec<String> =
                ranking.entries.iter().skip(1).filter(tied_wide).map(|e| e.channel.clone()).collect();
            if !open.is_empty() {
                channels.extend(ranking.first().map(|first| first.channel.clone()));
                channels.extend(open);
            }
        }
        let tasks = band.band.tasks.iter().copied().filter(|tasks| Some(*tasks) != room).collect();
        wanted.extend(key.map(|key| (key, tasks, channels)));
    }
    wanted
}

/// The room's share of [`duels`]: in each phase of `standing`'s room ([`Standing::room`]), the
/// cells of the decision's contenders (the pick, its closest challenger, those passed over and
/// the channels ahead of them), while a figure of one of them in `file` has not [`settled`] or
/// while more rounds could change the pick.
fn settling(file: &ResultsFile, standing: &Standing) -> Vec<(CellKey, Vec<u64>, Vec<String>)> {
    let Some((room, keys, contested)) = &standing.room else { return Vec::new() };
    let mut wanted: Vec<(CellKey, Vec<u64>, Vec<String>)> = Vec::new();
    for key in keys.iter().filter(|key| *contested || !settled(&file.cells[*key])) {
        if wanted.iter().all(|(other, _, _)| other.group() != key.group()) {
            let channels = keys.iter().filter(|other| other.group() == key.group()).map(|other| other.channel.clone());
            wanted.push((key.clone(), vec![*room], channels.collect()));
        }
    }
    wanted
}

/// Whether a paced cell's figures have settled: each of the share of messages dropped, the p99
/// and the CPU per delivered message of its samples has [`SETTLED_FROM`] values or more, and the
/// half-width of its trimmed mean's interval (`stats::trimmed_mean_interval`) with the last
/// value is within [`SETTLED_CHANGE`] of the half-width without it. A figure not measured (p99
/// without `--latency`) has settled.
fn settled(cell: &CellSamples) -> bool {
    let delivered = |s: &PacedSample| s.sent.saturating_sub(s.dropped).max(1) as f64;
    let figures: [Vec<f64>; 3] = [
        cell.paced.iter().map(|s| s.dropped as f64 / s.sent.max(1) as f64).collect(),
        cell.paced.iter().filter_map(|s| Some(s.p99_ns? as f64)).collect(),
        cell.paced.iter().filter_map(|s| Some(s.cpu_ns? as f64 / delivered(s))).collect(),
    ];
    let half_width =
        |values: &[f64]| stats::trimmed_mean_interval(values, stats::CONFIDENCE).map(|(low, high)| (high - low) / 2.0);
    figures.iter().all(|values| {
        values.is_empty()
            || values.len() >= SETTLED_FROM
                && half_width(&values[..values.len() - 1])
                    .zip(half_width(values))
                    .is_some_and(|(before, now)| (now - before).abs() <= SETTLED_CHANGE * before)
    })
}

/// The two members of `group` fastest in `file` ([`two_fastest`]): the cell's own fastest,
/// whose figures the plot shows.
fn fastest_two(group: &[usize], cells: &[Progress], file: &ResultsFile) -> Vec<usize> {
    let samples = |at: usize| file.cells.get(&cells[at].key).map(|cell| &cell.ok[..]);
    two_fastest(group.iter().filter_map(|&at| Some((at, samples(at)?))))
}

/// Of `members` (each with its `ok` samples, ns/message), the two whose fastest sample is the
/// lowest: a channel by its fast mode. A multi-thread or merged-recv channel's samples often
/// fall in two modes, and one whose first samples mostly fell in the slow one would rank behind
/// by its mean and never get the samples that show it.
fn two_fastest<'a, T>(members: impl Iterator<Item = (T, &'a [f64])>) -> Vec<T> {
    let mut figures: Vec<(T, f64)> =
        members.filter_map(|(member, ok)| Some((member, ok.iter().copied().reduce(f64::min)?))).collect();
    figures.sort_by(|a, b| a.1.total_cmp(&b.1));
    figures.into_iter().take(2).map(|(member, _)| member).collect()
}

/// The key of a band's cells (any channel, any task count) in `file`: the first cell the band
/// ranks ([`Band::holds`]: its runtime, mode, setting, and its workers and capacity where named).
fn band_key(band: &Band, file: &ResultsFile) -> Option<CellKey> {
    file.order.iter().find(|key| band.holds(&key.coord)).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::load::{hand_made, hand_made_key};
    use crate::results::setting::{Setting, room_setting};
    use crate::run::workload::{Capacity, Phase};

    #[test]
    fn the_two_fastest_are_by_their_fastest_sample_so_a_channel_mostly_in_its_slow_mode_is_one() {
        // A multi-thread cell's first three samples, two in the slow mode, against two steady ones.
        let bimodal: &[f64] = &[125.0, 57.0, 131.0];
        let members = [("a", &[66.0, 65.0, 67.0][..]), ("b", bimodal), ("c", &[60.0, 61.0, 62.0]), ("d", &[])];
        assert_eq!(two_fastest(members.into_iter()), ["b", "c"]);
    }

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
        let key = |channel: &str, tasks| hand_made_key(channel, tasks, Setting::default());
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
    fn past_the_budget_a_band_the_time_left_would_not_decide_is_left() {
        // Two channels about 5% apart whose pairs spread ±10%: open, some rounds from a decision.
        let cells: [(&str, u64, &[f64], usize); 2] =
            [("a", 512, &[50.0, 60.0, 45.0, 58.0, 52.0], 0), ("b", 512, &[58.0, 55.0, 52.0, 64.0, 48.0], 0)];
        let made = hand_made(&cells);
        let mut file = ResultsFile::default();
        for key in made.order {
            let sized = CellKey { messages: 1_000_000, ..key.clone() };
            file.cells.insert(sized.clone(), made.cells[&key].clone());
            file.order.push(sized);
        }
        let standing = Standing::of(&file, &Weighing::default());
        let band = &standing.bands[0].band;
        assert_eq!(
            standing.out_of_reach(&file, Duration::from_millis(100)),
            std::slice::from_ref(band),
            "a round takes 0.1 s"
        );
        assert!(standing.out_of_reach(&file, Duration::from_secs(3_600)).is_empty(), "an hour would decide it");
    }

    #[test]
    fn a_band_finds_its_cells_at_its_own_capacity() {
        let cells: [(&str, u64, &[f64], usize); 2] = [("a", 512, &[50.0, 51.0], 0), ("b", 512, &[60.0, 61.0], 0)];
        let (small, large) = (hand_made(&cells), hand_made(&cells));
        let mut file = ResultsFile::default();
        for (capacity, part) in [(1024, small), (65_536, large)] {
            for key in part.order {
                let mut at = key.clone();
                at.coord.capacity = Capacity::Shared(capacity);
                file.cells.insert(at.clone(), part.cells[&key].clone());
                file.order.push(at);
            }
        }
        let bands = Standing::of(&file, &Weighing::default()).bands;
        assert_eq!(bands.len(), 2, "one band per capacity");
        for band in bands {
            let key = band_key(&band.band, &file).expect("the band's cells are in the file");
            assert_eq!(Some(key.coord.capacity), band.band.named_capacity());
        }
    }

    /// A room of 300 participants, each channel's cells with one sample per p99 of `p99s` (ns),
    /// every other figure the same in every sample: (channel, frames overflowed of 100 in
    /// phase, CPU ns per message in odd and in even rounds).
    fn room(p99s: &[u64], channels: &[(&str, u64, [u64; 2])]) -> ResultsFile {
        let mut file = ResultsFile::default();
        for &(channel, overflowed, cpu) in channels {
            for (setting, dropped) in [(room_setting(Phase::Random), 0), (room_setting(Phase::Aligned), overflowed)] {
                let key = hand_made_key(channel, 300, setting.clone());
                let sample = |(at, &p99): (usize, &u64)| PacedSample {
                    pace_ns: 20_000_000,
                    burst: 5,
                    sent: 500,
                    dropped,
                    frames: 100,
                    frames_overflowed: dropped,
                    cpu_ns: Some((500 - dropped) * cpu[at % 2]),
                    p99_ns: Some(p99),
                    round: Some(at as u64 + 1),
                    ..PacedSample::default()
                };
                let paced: Vec<PacedSample> = p99s.iter().enumerate().map(sample).collect();
                let ok = vec![20_000.0; paced.len()];
                file.order.push(key.clone());
                file.cells.insert(key, CellSamples { ok, paced, ..CellSamples::default() });
            }
        }
        file.pool_latencies();
        file
    }

    /// The channels a settling round measures, per phase: (setting, channels).
    fn settling_rounds(file: &ResultsFile) -> Vec<(Setting, Vec<String>)> {
        let round = |(key, tasks, channels): (CellKey, Vec<u64>, Vec<String>)| {
            assert_eq!(tasks, [300], "the room's task count only");
            (key.coord.setting, channels)
        };
        settling(file, &Standing::of(file, &Weighing::default())).into_iter().map(round).collect()
    }

    #[test]
    fn a_room_samples_its_pick_and_closest_challenger_until_their_figures_settle() {
        // flume is ahead of tokio-mpsc beyond the noise in some resamples (those that drew its
        // cheap rounds), not in half: the pick stands, and the two are measured until settled.
        let channels = [
            ("tokio-mpsc", 0, [300, 300]),
            ("flume", 0, [250, 300]),
            ("async-channel", 0, [900; 2]),
            ("loole", 30, [100; 2]),
        ];
        let contenders = vec!["tokio-mpsc".to_owned(), "flume".to_owned()];
        let both = vec![
            (room_setting(Phase::Random).to_owned(), contenders.clone()),
            (room_setting(Phase::Aligned).to_owned(), contenders.clone()),
        ];
        assert_eq!(settling_rounds(&room(&[2_000; 3], &channels)), both, "three samples: too few to settle");
        assert_eq!(settling_rounds(&room(&[2_000; 6], &channels)), Vec::new(), "six alike: settled");
        let moving = room(&[2_000, 2_500, 2_200, 2_400, 2_300, 90_000], &channels);
        assert_eq!(settling_rounds(&moving), both, "the last sample widened the p99's interval");
        let settling_again = room(&[2_000, 2_500, 2_000, 2_500, 2_000, 2_500, 2_000, 2_500], &channels);
        assert_eq!(settling_rounds(&settling_again), Vec::new());
        // Ahead in half the resamples or more: more rounds could pass the pick over, settled or not.
        let near = [("tokio-mpsc", 0, [300, 300]), ("flume", 0, [230, 300]), ("async-channel", 0, [900; 2])];
        assert_eq!(settling_rounds(&room(&[2_000; 8], &near)), both, "contested");
    }

    #[test]
    fn a_room_not_resolved_keeps_the_channels_of_its_circle_even_once_their_figures_settle() {
        // Drops 0, 0.4 and 0.8 points in phase, CPU 1000, 800 and 600 out of phase, over 30
        // rounds: each is ahead of another beyond the noise, and no pick stands.
        let mut file = ResultsFile::default();
        for (channel, overflowed, cpu) in [("tokio-mpsc", 0, 1000), ("flume", 4, 800), ("loole", 8, 600)] {
            for phase in [Phase::Random, Phase::Aligned] {
                let key = hand_made_key(channel, 300, room_setting(phase));
                let sample = |round: u64| PacedSample {
                    pace_ns: 20_000_000,
                    burst: 5,
                    sent: 500,
                    frames: 1000,
                    frames_overflowed: if phase == Phase::Aligned { overflowed } else { 0 },
                    cpu_ns: Some(500 * cpu),
                    p99_ns: Some(2_000),
                    round: Some(round + 1),
                    ..PacedSample::default()
                };
                let paced: Vec<PacedSample> = (0..30).map(sample).collect();
                file.order.push(key.clone());
                file.cells
                    .insert(key, CellSamples { ok: vec![20_000.0; paced.len()], paced, ..CellSamples::default() });
            }
        }
        assert!(file.cells.values().all(settled), "every figure has settled");
        let standing = Standing::of(&file, &Weighing::default());
        assert!(standing.room.as_ref().is_some_and(|(_, _, contested)| *contested), "a circle");
        let named: Vec<Vec<String>> = settling_rounds(&file).into_iter().map(|(_, channels)| channels).collect();
        assert_eq!(named, vec![vec!["tokio-mpsc", "flume", "loole"]; 2], "the circle is measured again in both phases");
    }
}

//! The verdicts of a paired A/B run (`channel-bench ab`): per channel, per cell and per band of
//! task counts, the ratio candidate / baseline of ns/message from the rounds both builds
//! measured, judged by the one noise model (`noise::verdict`) as every other verdict is,
//! cells and bands alike at [`CHANGE_CONFIDENCE`]: hundreds are judged at once, and an A/B of
//! a sweep of three task counts has a band for each.

use std::collections::HashSet;

use serde::Serialize;

use super::band::{TaskBand, slot};
use super::cells::FEWEST_SAMPLES;
use super::coord::Coord;
use super::load::{CellKey, CellSamples, ChannelId, MachineSpeed, ResultsFile};
use super::noise::{CHANGE_CONFIDENCE, FileNoise, Metric, VERDICT_CONFIDENCE, shared_rounds, verdict};
use crate::run::measure::RuntimeKind;
use crate::run::workload::{Capacity, Merge};
use crate::stats::verdict::Call;

/// The `build` of the rows the baseline (the binary at `--baseline`) measured.
pub const BASELINE: &str = "baseline";
/// The `build` of the rows the candidate (the binary running `ab`) measured.
pub const CANDIDATE: &str = "candidate";

/// One channel's ratio candidate / baseline over one cell or one band.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The channel, as reports name it (`CellKey::channel_label`).
    pub channel: String,
    /// Where: `current-thread cloned-send large` for a band, `… tasks=64` for a cell, then the
    /// workers and setting when the run has them. For display: `cells` are the data.
    pub place: String,
    /// The cells judged together, by their keys (the baseline's): what measuring the change
    /// again measures.
    #[serde(skip)]
    pub cells: Vec<CellKey>,
    /// The runtime.
    pub runtime: RuntimeKind,
    /// The task counts judged together.
    pub tasks: Vec<u64>,
    /// The ratio candidate / baseline (above 1: the candidate is slower).
    pub ratio: f64,
    /// Its interval's lower end.
    pub low: f64,
    /// Its interval's upper end.
    pub high: f64,
    /// `higher` (slower), `lower` (faster) or `tied`.
    pub call: Call,
    /// Whether more paired rounds could still tell it apart: tied, and wider than the
    /// resolution the duels stop at.
    pub open: bool,
    /// The pairs (rounds both builds measured) it was judged from; under
    /// [`FEWEST_SAMPLES`] it is a tie whatever its interval: one pair a burst of the host
    /// fell on would be a call.
    pub pairs: usize,
}

/// How far an open change's estimate must lean from no change, in half-widths of its interval
/// ([`Change::leaning`]), for the duels to measure it again.
pub const LEANING: f64 = 0.5;

impl Change {
    /// How far the estimate lies from no change, in half-widths of its interval (on the log
    /// scale): 0 when centred on 1, 1 when its interval just touches 1.
    pub fn leaning(&self) -> f64 {
        let half = (self.high / self.low).ln() / 2.0;
        if half > 0.0 { self.ratio.ln().abs() / half } else { f64::INFINITY }
    }
}

/// Everything an A/B run found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Ab {
    /// Per band of task counts, each channel's change.
    pub bands: Vec<Change>,
    /// Per cell, each channel's change.
    pub cells: Vec<Change>,
    /// Per runtime, the smallest change a band's verdict tells apart at the spread this run
    /// measured: the median half-width of its bands' intervals, as a fraction (0.06 = 6%).
    pub detectable: Vec<(RuntimeKind, f64)>,
    /// Cells only one build measured (or with no `ok` sample on a side), by label: not judged.
    pub left_out: Vec<String>,
    /// The user's own channels against the others, per task count ([`against`]).
    pub against: Vec<Against>,
    /// Each build's reading of the machine through its rounds, the baseline's first: both
    /// builds take turns in the same rounds, so two readings far apart point at the builds'
    /// probes, not the machine.
    pub machine: [Option<MachineSpeed>; 2],
}

impl Ab {
    /// The cells the next duel pass measures: each cell whose change is open and leans to a
    /// change ([`Change::leaning`] at least [`LEANING`]), and every cell of such a band. The
    /// rounds go where they can turn a tie into a call; a tie centred on no change stays a tie
    /// however long it is measured.
    pub fn open(&self, baseline: &ResultsFile) -> Vec<CellKey> {
        let open: HashSet<&CellKey> = (self.cells.iter().chain(&self.bands))
            .filter(|change| change.open && change.leaning() >= LEANING)
            .flat_map(|change| &change.cells)
            .collect();
        baseline.order.iter().filter(|key| open.contains(key)).cloned().collect()
    }
}

/// One channel's band in an A/B: its place between the two builds' runs
/// (`Coord::between_runs`), its band of task counts, the channel and its merge.
type BandOf<'a> = (Coord, TaskBand, &'a str, Option<Merge>);

/// How many observations the pooled spread weighs in one pair's verdict ([`crate::stats::verdict::Prior::measured`]):
/// an A/B's spread is pooled over pairs of one channel's two builds, the same code on both
/// sides, closer to any one pair's own than a group's spread over pairs of two channels is
/// ([`crate::stats::verdict::Prior::WEIGHT`]).
pub const PAIR_WEIGHT: f64 = 12.0;

/// Judges every cell and band both files hold, `baseline`'s rows against `candidate`'s, by the
/// noise of one channel's two builds measured back to back; a tie wider than the run's
/// resolution (`FileNoise::resolution`) is open.
pub fn judge(baseline: &ResultsFile, candidate: &ResultsFile) -> Ab {
    // The noise of one channel's cells of the two builds ([`both`]).
    let one_channel =
        |a: &CellKey, b: &CellKey| a.candidate != b.candidate && (&a.channel, a.merge) == (&b.channel, b.merge);
    let noise = FileNoise::of_pairs(&both(baseline, candidate), &one_channel, PAIR_WEIGHT);
    // The change over `members` (cells of one channel, each with its two builds' samples).
    let change = |place: String, members: &[(&CellKey, &CellSamples, &CellSamples)]| {
        let first = members[0].0;
        let (a, b): (Vec<&CellSamples>, Vec<&CellSamples>) = members.iter().map(|(_, a, b)| (*a, *b)).unzip();
        let group = first.coord.noise_group();
        let verdict = verdict(&a, &b, Metric::Speed, &group, &noise, CHANGE_CONFIDENCE)?;
        let pairs = members.iter().map(|(_, a, b)| shared_rounds(a, b, Metric::Speed)).sum();
        let resolution = (1.0 + noise.resolution(&group, Metric::Speed)).ln();
        let call = if pairs < FEWEST_SAMPLES { Call::Tied } else { verdict.call };
        Some(Change {
            channel: first.channel_label(),
            place,
            cells: members.iter().map(|(key, ..)| (*key).clone()).collect(),
            runtime: first.coord.runtime,
            tasks: members.iter().map(|(key, ..)| key.tasks).collect(),
            ratio: verdict.mean.exp(),
            low: verdict.low.exp(),
            high: verdict.high.exp(),
            call,
            open: call == Call::Tied && (verdict.within() > resolution || pairs < FEWEST_SAMPLES),
            pairs,
        })
    };
    let mut ab = Ab::default();
    // Per band (its place between the runs and its size) and channel, in the order first
    // judged: its judged cells.
    let mut bands: Vec<(BandOf, Vec<_>)> = Vec::new();
    for key in &baseline.order {
        let member = candidate.cells.get(key).map(|b| (key, &baseline.cells[key], b));
        let Some((member, cell)) = member.and_then(|member| Some((member, change(cell_place(key), &[member])?))) else {
            ab.left_out.push(key.label());
            continue;
        };
        ab.cells.push(cell);
        let band = (key.coord.between_runs(), TaskBand::of(key.tasks), key.channel.as_str(), key.merge);
        slot(&mut bands, |(known, _)| *known == band, || (band.clone(), Vec::new())).1.push(member);
    }
    ab.left_out.extend(candidate.order.iter().filter(|key| !baseline.cells.contains_key(key)).map(CellKey::label));
    ab.bands = bands.into_iter().filter_map(|(_, members)| change(band_place(members[0].0), &members)).collect();
    ab.detectable = detectable(ab.bands.iter().map(|change| (change.runtime, change.low, change.high)));
    ab.machine = [baseline.machine.clone(), candidate.machine.clone()];
    ab
}

/// Per runtime, the smallest change the verdicts tell apart at the spread they were judged
/// at: the median half-width, on the ratio's scale, of the (runtime, low, high) intervals that
/// are finite.
pub fn detectable(intervals: impl IntoIterator<Item = (RuntimeKind, f64, f64)>) -> Vec<(RuntimeKind, f64)> {
    let halves: Vec<(RuntimeKind, f64)> = intervals
        .into_iter()
        .map(|(runtime, low, high)| (runtime, (high / low).sqrt() - 1.0))
        .filter(|(_, half)| half.is_finite())
        .collect();
    RuntimeKind::ALL
        .into_iter()
        .filter_map(|runtime| {
            let mut halves: Vec<f64> = halves.iter().filter(|(of, _)| *of == runtime).map(|(_, half)| *half).collect();
            halves.sort_by(f64::total_cmp);
            Some((runtime, *halves.get(halves.len() / 2)?))
        })
        .collect()
}

/// The two builds' cells in one file for [`FileNoise::of`], the candidate's keyed as the
/// candidate's, so that each pair of a channel's two builds is measured as two cells of one round.
fn both(baseline: &ResultsFile, candidate: &ResultsFile) -> ResultsFile {
    let mut file = baseline.clone();
    for key in &candidate.order {
        let candidates = CellKey { candidate: true, ..key.clone() };
        file.cells.insert(candidates.clone(), candidate.cells[key].clone());
        file.order.push(candidates);
    }
    file
}

/// `runtime mode`, then the capacity when not the default and the setting in brackets when
/// there is one: the cell's place between the two builds' runs (`Coord::between_runs`).
fn group_place(key: &CellKey) -> String {
    let coord = key.coord.between_runs();
    let setting = if coord.setting.is_default() { String::new() } else { format!(" [{}]", coord.setting) };
    let capacity = coord.capacity;
    let capacity = if capacity == Capacity::default() { String::new() } else { format!(" at {capacity}") };
    format!("{} {}{capacity}{setting}", coord.runtime, coord.mode)
}

/// Where a cell is: its group and `tasks=N`.
fn cell_place(key: &CellKey) -> String {
    format!("{} tasks={}", group_place(key), key.tasks)
}

/// Where a cell's band is: its group and the band's name.
fn band_place(key: &CellKey) -> String {
    format!("{} {}", group_place(key), TaskBand::of(key.tasks).name())
}

/// A user's own channel against another channel the run measured, at one task count: the
/// ratio of their ns/message in this build's rounds (below 1: the user's is faster), and in the
/// baseline's.
#[derive(Debug, Clone, Serialize)]
pub struct Against {
    /// The user's channel (`app::main_with`).
    pub mine: String,
    /// The channel it is set against.
    pub other: String,
    /// The cell's group and task count, as [`Change::place`] names a cell.
    pub place: String,
    /// The task count.
    pub tasks: u64,
    /// mine / other in the candidate's rounds.
    pub ratio: f64,
    /// Its interval's lower end, at `noise::VERDICT_CONFIDENCE`.
    pub low: f64,
    /// Its interval's upper end.
    pub high: f64,
    /// mine / other in the baseline's rounds, when it measured both.
    pub baseline_ratio: Option<f64>,
    /// The two cells set against each other, mine's then the other's: what the table's rows and
    /// columns are keyed by (`mine`, `other` and `place` word them).
    #[serde(skip)]
    pub cells: (CellKey, CellKey),
}

impl Against {
    /// The user's channel, as data.
    pub fn mine_id(&self) -> ChannelId {
        ChannelId::of((&self.cells.0.channel, self.cells.0.merge))
    }

    /// The channel it is set against, as data.
    pub fn other_id(&self) -> ChannelId {
        ChannelId::of((&self.cells.1.channel, self.cells.1.merge))
    }

    /// The cell's place between the two builds' runs and its task count, as data: what
    /// [`Against::place`] words.
    pub fn at(&self) -> (Coord, u64) {
        (self.cells.0.coord.between_runs(), self.cells.0.tasks)
    }
}

/// Per task count, each of `mine` against every other channel both files hold, from the rounds
/// that measured the two: the table a channel author reads beside the change.
pub fn against(baseline: &ResultsFile, candidate: &ResultsFile, mine: &[&str]) -> Vec<Against> {
    let noises = [FileNoise::of(baseline), FileNoise::of(candidate)];
    let ratio = |(file, noise): (&ResultsFile, &FileNoise), mine: &CellKey, other: &CellKey| {
        let (a, b) = (file.cells.get(other)?, file.cells.get(mine)?);
        verdict(&[a], &[b], Metric::Speed, &mine.coord.noise_group(), noise, VERDICT_CONFIDENCE)
    };
    let mut table = Vec::new();
    for key in candidate.order.iter().filter(|key| mine.contains(&key.channel.as_str())) {
        let others =
            candidate.order.iter().filter(|other| other.channel != key.channel && other.group() == key.group());
        for other in others {
            let Some(now) = ratio((candidate, &noises[1]), key, other) else { continue };
            table.push(Against {
                mine: key.channel_label(),
                other: other.channel_label(),
                place: cell_place(key),
                tasks: key.tasks,
                ratio: now.mean.exp(),
                low: now.low.exp(),
                high: now.high.exp(),
                baseline_ratio: ratio((baseline, &noises[0]), key, other).map(|before| before.mean.exp()),
                cells: (key.clone(), other.clone()),
            });
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::schema::{Record, SampleStatus};

    /// A file of one channel's current-thread cloned-send cells at tasks 1 and 4, its value in
    /// round r being `base(r) × factor`.
    fn file(channel: &str, factor: f64) -> ResultsFile {
        rounds(channel, factor, 8)
    }

    /// [`file`] of `count` rounds.
    fn rounds(channel: &str, factor: f64, count: u64) -> ResultsFile {
        let mut file = ResultsFile::default();
        for tasks in [1, 4] {
            for round in 1..=count {
                let drift = 1.0 + 0.2 * ((round * 7 % 5) as f64 / 4.0);
                let noise = 1.0 + 0.01 * ((round * 3 % 4) as f64 - 1.5);
                let record = Record {
                    channel: channel.to_owned(),
                    runtime: RuntimeKind::CurrentThread,
                    tasks,
                    messages: 1000,
                    ns_per_message: 50.0 * drift * noise * factor,
                    status: SampleStatus::Ok,
                    round: Some(round),
                    payload: crate::run::payload::DEFAULT_PAYLOAD_BYTES.to_string(),
                    sink: crate::run::sink::Sink::None.kind().to_owned(),
                    ..Record::default()
                };
                let key = CellKey::of(&record);
                if !file.cells.contains_key(&key) {
                    file.order.push(key.clone());
                }
                file.cells.entry(key).or_default().add(record, None);
            }
        }
        file
    }

    #[test]
    fn a_slowdown_shared_by_every_round_is_called_slower_and_none_is_tied() {
        let baseline = file("kanal", 1.0);
        let slower = judge(&baseline, &file("kanal", 1.3));
        assert_eq!(slower.cells.len(), 2);
        assert_eq!(slower.bands.len(), 1, "tasks 1 and 4 are one band");
        let band = &slower.bands[0];
        assert_eq!(band.call, Call::Higher, "{band:?}");
        assert!(band.low < 1.3 && 1.3 < band.high, "{band:?}");
        assert!(slower.left_out.is_empty());
        let same = judge(&baseline, &file("kanal", 1.0));
        assert!(same.bands.iter().chain(&same.cells).all(|change| change.call == Call::Tied), "{same:?}");
        let other = judge(&baseline, &file("flume", 1.0));
        assert!(slower.cells.iter().all(|change| change.pairs == 8), "{slower:?}");
        assert_eq!((other.cells.len(), other.left_out.len()), (0, 4), "no channel of one build pairs with another's");
    }

    #[test]
    fn a_change_leans_by_its_distance_from_no_change_in_half_widths() {
        let change = |ratio: f64, low: f64, high: f64| Change {
            channel: "kanal".to_owned(),
            place: String::new(),
            cells: Vec::new(),
            runtime: RuntimeKind::CurrentThread,
            tasks: vec![1],
            ratio,
            low,
            high,
            call: Call::Tied,
            open: true,
            pairs: 3,
        };
        let e = std::f64::consts::E;
        assert!(change(1.0, 1.0 / e, e).leaning() < 1e-12, "centred on no change");
        assert!((change(e.powf(0.5), e.powf(-0.5), e.powf(1.5)).leaning() - 0.5).abs() < 1e-12);
        assert!((change(e, 1.0, e * e).leaning() - 1.0).abs() < 1e-12, "its interval touches 1");
    }

    #[test]
    fn the_cells_measured_again_are_those_of_the_open_changes_leaning_to_a_change() {
        let baseline = file("kanal", 1.0);
        let mut ab = judge(&baseline, &file("kanal", 1.0));
        assert!(ab.open(&baseline).is_empty(), "no change is open and leaning: {ab:?}");
        // The cell at 4 tasks open and leaning, with a twin the text would not tell apart: the
        // same place but another worker count.
        let at_four = ab.cells.iter_mut().find(|change| change.tasks == [4]).unwrap();
        (at_four.open, at_four.ratio, at_four.low, at_four.high) = (true, 1.1, 0.95, 1.3);
        let key = at_four.cells[0].clone();
        let twin = CellKey { coord: Coord { workers: key.coord.workers + 1, ..key.coord.clone() }, ..key.clone() };
        let mut with_twin = baseline.clone();
        with_twin.order.push(twin.clone());
        with_twin.cells.insert(twin, baseline.cells[&key].clone());
        assert_eq!(ab.open(&with_twin), std::slice::from_ref(&key));
        // An open band measures each of its cells again, in the baseline's order.
        ab.bands[0] = Change { open: true, ratio: 1.1, low: 0.95, high: 1.3, ..ab.bands[0].clone() };
        assert_eq!(ab.open(&with_twin), baseline.order);
    }

    #[test]
    fn fewer_than_three_pairs_are_a_tie_whatever_their_interval() {
        let tripled = judge(&rounds("kanal", 1.0, 2), &rounds("kanal", 3.0, 2));
        assert!(!tripled.cells.is_empty());
        for change in &tripled.cells {
            assert!(change.call == Call::Tied && change.open, "{change:?}");
        }
        // A band counts the pairs of all its cells: two cells of two pairs each are four.
        assert_eq!((tripled.bands[0].pairs, tripled.bands[0].call), (4, Call::Higher));
        assert!(crate::output::ab::line(&tripled.cells[0]).contains("2 pairs: too few to call"));
    }
}

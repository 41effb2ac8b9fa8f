//! The verdicts of a paired A/B run (`channel-bench ab`): per channel, per cell and per band of
//! task counts, the ratio candidate / baseline of ns/message from the rounds both builds
//! measured, judged by the one noise model (`noise::verdict_at`) as every other verdict is:
//! cells at [`CHANGE_CONFIDENCE`] (hundreds are judged at once), bands at
//! [`VERDICT_CONFIDENCE`].

use std::collections::HashSet;

use serde::Serialize;

use super::load::{CellKey, CellSamples, ResultsFile};
use super::noise::{CHANGE_CONFIDENCE, FileNoise, Group, Metric, VERDICT_CONFIDENCE, verdict_at};
use super::recommend::TaskBand;
use crate::run::measure::RuntimeKind;
use crate::stats::verdict::{Call, Verdict};

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
    /// workers and setting when the run has them.
    pub place: String,
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
}

impl Change {
    fn of(key: &CellKey, place: String, tasks: Vec<u64>, verdict: Verdict, noise: &FileNoise) -> Change {
        let resolution = (1.0 + noise.resolution(&Group::of(key), Metric::Speed)).ln();
        Change {
            channel: key.channel_label(),
            place,
            runtime: key.runtime,
            tasks,
            ratio: verdict.mean.exp(),
            low: verdict.low.exp(),
            high: verdict.high.exp(),
            call: verdict.call,
            open: verdict.call == Call::Tied && verdict.within() > resolution,
        }
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
}

impl Ab {
    /// The cells the next duel pass measures: each cell whose change is open, and every
    /// cell of a band whose change is open.
    pub fn open(&self, baseline: &ResultsFile) -> Vec<CellKey> {
        let open: HashSet<(&str, &str)> = self
            .cells
            .iter()
            .chain(&self.bands)
            .filter(|change| change.open)
            .map(|change| (change.channel.as_str(), change.place.as_str()))
            .collect();
        let wanted = |key: &&CellKey| {
            let channel = key.channel_label();
            open.contains(&(channel.as_str(), cell_place(key).as_str()))
                || open.contains(&(channel.as_str(), band_place(key).as_str()))
        };
        baseline.order.iter().filter(wanted).cloned().collect()
    }
}

/// Judges every cell and band both files hold, `baseline`'s rows against `candidate`'s; a tie
/// wider than the run's resolution (`FileNoise::resolution`) is open.
pub fn judge(baseline: &ResultsFile, candidate: &ResultsFile) -> Ab {
    let noise = FileNoise::of(&both(baseline, candidate));
    let mut ab = Ab::default();
    let mut paired: Vec<(&CellKey, &CellSamples, &CellSamples)> = Vec::new();
    for key in &baseline.order {
        let verdict = candidate.cells.get(key).and_then(|b| {
            let a = &baseline.cells[key];
            Some((a, b, one(a, b, key, &noise, CHANGE_CONFIDENCE)?))
        });
        match verdict {
            Some((a, b, verdict)) => {
                ab.cells.push(Change::of(key, cell_place(key), vec![key.tasks], verdict, &noise));
                paired.push((key, a, b));
            }
            None => ab.left_out.push(key.label()),
        }
    }
    ab.left_out.extend(candidate.order.iter().filter(|key| !baseline.cells.contains_key(key)).map(CellKey::label));
    let mut bands: Vec<(String, &CellKey)> = Vec::new();
    for (key, _, _) in &paired {
        let band = band_place(key);
        if !bands.iter().any(|(place, first)| *place == band && first.channel_label() == key.channel_label()) {
            bands.push((band, key));
        }
    }
    for (place, first) in bands {
        let members: Vec<_> = paired
            .iter()
            .filter(|(key, _, _)| band_place(key) == place && key.channel_label() == first.channel_label())
            .collect();
        let (a, b): (Vec<&CellSamples>, Vec<&CellSamples>) = members.iter().map(|(_, a, b)| (*a, *b)).unzip();
        let group = Group::of(first);
        if let Some(verdict) = verdict_at(&a, &b, Metric::Speed, &group, &noise, VERDICT_CONFIDENCE) {
            let tasks = members.iter().map(|(key, _, _)| key.tasks).collect();
            ab.bands.push(Change::of(first, place, tasks, verdict, &noise));
        }
    }
    ab.detectable = detectable(&ab.bands);
    ab
}

/// The verdict on one cell at `confidence`.
fn one(a: &CellSamples, b: &CellSamples, key: &CellKey, noise: &FileNoise, confidence: f64) -> Option<Verdict> {
    verdict_at(&[a], &[b], Metric::Speed, &Group::of(key), noise, confidence)
}

/// Per runtime, the median half-width of `bands`' intervals on the ratio's scale.
fn detectable(bands: &[Change]) -> Vec<(RuntimeKind, f64)> {
    RuntimeKind::ALL
        .into_iter()
        .filter_map(|runtime| {
            let mut halves: Vec<f64> = bands
                .iter()
                .filter(|change| change.runtime == runtime)
                .map(|change| (change.high / change.low).sqrt() - 1.0)
                .collect();
            halves.sort_by(f64::total_cmp);
            Some((runtime, *halves.get(halves.len() / 2)?))
        })
        .collect()
}

/// The two builds' cells in one file for [`FileNoise::of`]: the candidate's channels renamed
/// so that each pair of a channel's two builds is measured as two cells of one round.
fn both(baseline: &ResultsFile, candidate: &ResultsFile) -> ResultsFile {
    let mut file = baseline.clone();
    for key in &candidate.order {
        let renamed = CellKey { channel: format!("{} ({CANDIDATE})", key.channel), ..key.clone() };
        file.cells.insert(renamed.clone(), candidate.cells[key].clone());
        file.order.push(renamed);
    }
    file
}

/// `runtime mode`, then the setting in brackets when there is one.
fn group_place(key: &CellKey) -> String {
    let setting = if key.setting.is_empty() { String::new() } else { format!(" [{}]", key.setting) };
    format!("{} {}{setting}", key.runtime, key.mode)
}

/// Where a cell is: its group and `tasks=N`.
fn cell_place(key: &CellKey) -> String {
    format!("{} tasks={}", group_place(key), key.tasks)
}

/// Where a cell's band is: its group and the band's name.
fn band_place(key: &CellKey) -> String {
    format!("{} {}", group_place(key), TaskBand::of(key.tasks).name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::schema::Record;

    /// A file of one channel's current-thread cloned-send cells at tasks 1 and 4, its value in
    /// round r being `base(r) × factor`.
    fn file(channel: &str, factor: f64) -> ResultsFile {
        let mut file = ResultsFile::default();
        for tasks in [1, 4] {
            for round in 1..=8u64 {
                let drift = 1.0 + 0.2 * ((round * 7 % 5) as f64 / 4.0);
                let noise = 1.0 + 0.01 * ((round * 3 % 4) as f64 - 1.5);
                let record = Record {
                    channel: channel.to_owned(),
                    runtime: RuntimeKind::CurrentThread,
                    tasks,
                    messages: 1000,
                    ns_per_message: 50.0 * drift * noise * factor,
                    status: "ok".to_owned(),
                    round: Some(round),
                    payload: crate::run::payload::DEFAULT_PAYLOAD_BYTES.to_string(),
                    sink: crate::run::sink::Sink::None.kind().to_owned(),
                    ..Record::default()
                };
                let key = CellKey::of(&record);
                if !file.cells.contains_key(&key) {
                    file.order.push(key.clone());
                }
                file.cells.entry(key).or_default().add(record, false);
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
        assert_eq!((other.cells.len(), other.left_out.len()), (0, 4), "no channel of one build pairs with another's");
    }
}

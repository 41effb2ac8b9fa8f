//! The repeat interval of every cell of one file (`stats::repeat`): the spreads and the wander
//! it reads, gathered once per file for its figures table (`figures::Table`).

use std::collections::HashMap;

use crate::results::coord::{Coord, TaskBand};
use crate::results::load::{CellKey, CellSamples, ResultsFile};
use crate::run::workload::Merge;
use crate::stats::repeat::{self, LogSpread};
use crate::stats::{self as statistics};

/// The cells a channel's spread is pooled over: its group's, at its band of task counts.
type BandKey = (Coord, String, Option<Merge>, TaskBand);

/// The band `key` is in.
fn band_key(key: &CellKey) -> BandKey {
    (key.coord.clone(), key.channel.clone(), key.merge, TaskBand::of(key.tasks))
}

/// What the repeat intervals of one file read.
pub struct Spreads {
    /// Each channel's spread at each band of each group.
    bands: HashMap<BandKey, LogSpread>,
    /// The spread of every channel of a group alike: the floor of a channel's spread of few
    /// samples (`LogSpread::with_floor`).
    groups: HashMap<Coord, LogSpread>,
    /// The wander of each noise group's rounds (`Coord::noise_group`); none in a file of
    /// several runs pooled, whose rounds are numbered per run.
    wander: HashMap<Coord, f64>,
}

impl Spreads {
    /// The spreads and wander of `file`.
    pub fn of(file: &ResultsFile) -> Spreads {
        let mut by_band: HashMap<BandKey, Vec<&[f64]>> = HashMap::new();
        let mut by_group: HashMap<Coord, Vec<&[f64]>> = HashMap::new();
        for key in &file.order {
            let ok = file.cells[key].ok.as_slice();
            by_band.entry(band_key(key)).or_default().push(ok);
            by_group.entry(key.coord.clone()).or_default().push(ok);
        }
        Spreads {
            bands: by_band.into_iter().filter_map(|(key, cells)| Some((key, LogSpread::pooled(cells)?))).collect(),
            groups: by_group.into_iter().filter_map(|(key, cells)| Some((key, LogSpread::pooled(cells)?))).collect(),
            wander: wander(file),
        }
    }

    /// The repeat interval of `key`'s cell, `cell`, whose figure is `figure`: from its runs'
    /// figures when several runs were pooled, else from its spread, its sample count and the
    /// run's wander; `None` when neither its band nor its group has a cell of two samples.
    pub fn interval(&self, key: &CellKey, cell: &CellSamples, figure: f64) -> Option<(f64, f64)> {
        if cell.runs.len() >= 2 {
            return repeat::of_runs(&cell.runs);
        }
        let group = self.groups.get(&key.coord).copied();
        let spread = self.bands.get(&band_key(key)).map_or(group, |spread| Some(spread.with_floor(group)))?;
        let wander = self.wander.get(&key.coord.noise_group()).copied().unwrap_or(0.0);
        Some(repeat::interval(figure, cell.ok.len(), spread, wander))
    }
}

/// The wander of each noise group of `file` (`stats::repeat::wander`), from its rounds'
/// effects: each round's median, over its cells of two samples or more, of the log of a
/// sample over its cell's median; rounds of one such sample say nothing of the round.
fn wander(file: &ResultsFile) -> HashMap<Coord, f64> {
    if file.cells.values().any(|cell| !cell.runs.is_empty()) {
        return HashMap::new();
    }
    let mut residuals: HashMap<Coord, HashMap<u64, Vec<f64>>> = HashMap::new();
    for key in &file.order {
        let cell = &file.cells[key];
        if cell.ok.len() < 2 {
            continue;
        }
        let centre = statistics::median(&cell.ok).map_or(f64::NAN, f64::ln);
        let rounds = residuals.entry(key.coord.noise_group()).or_default();
        for (value, round) in cell.ok.iter().zip(&cell.rounds) {
            if let (Some(round), true) = (round, *value > 0.0) {
                rounds.entry(*round).or_default().push(value.ln() - centre);
            }
        }
    }
    let effects = |rounds: HashMap<u64, Vec<f64>>| {
        let mut ordered: Vec<(u64, Vec<f64>)> = rounds.into_iter().filter(|(_, r)| r.len() >= 2).collect();
        ordered.sort_by_key(|(round, _)| *round);
        ordered.iter().filter_map(|(_, residuals)| statistics::median(residuals)).collect::<Vec<f64>>()
    };
    residuals.into_iter().map(|(group, rounds)| (group, repeat::wander(&effects(rounds)))).collect()
}

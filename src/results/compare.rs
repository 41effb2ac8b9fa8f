//! Two runs compared, every metric the same way: per cell, new against old by the noise model
//! (`Runs::judge`), on ns/message ([`compare`]) and on a paced cell's p99, CPU and frames
//! overflowed ([`PacedAgreement`]); per band, whether the runs' leaders share a channel; and how
//! far the runs' figures are apart ([`Spread`]), which A/A runs calibrate the drift with.

use std::collections::HashMap;

use super::ab::detectable;
use super::band::{Band, Groups};
use super::coord::Coord;
use super::figures::{Figures, Table};
use super::load::{CellKey, ResultsFile};
use super::noise::{Drift, FileNoise, Metric, change};
use super::paced::{self, PacedBand, PacedCell, PacedEntry};
use super::recommend::{Ranking, recommend};
use crate::run::measure::RuntimeKind;
use crate::run::workload::Merge;
use crate::stats;
use crate::stats::verdict::{Call, Verdict};

/// How far apart two runs' figures are over a set of cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// Cells compared.
    pub cells: usize,
    /// The median over the cells of larger/smaller (1.0 = the same figure).
    pub median: f64,
    /// The largest larger/smaller.
    pub worst: f64,
}

/// The [`Spread`] of `pairs` of (old, new) figures; `None` when there is no pair with two
/// positive figures.
pub fn spread(pairs: impl IntoIterator<Item = (f64, f64)>) -> Option<Spread> {
    let ratios: Vec<f64> = pairs
        .into_iter()
        .filter(|&(old, new)| old > 0.0 && new > 0.0)
        .map(|(old, new)| (new / old).max(old / new))
        .collect();
    let worst = ratios.iter().copied().reduce(f64::max)?;
    Some(Spread { cells: ratios.len(), median: crate::stats::median(&ratios)?, worst })
}

/// Two runs, the noise each measured (what every verdict of a comparison is judged with) and
/// the figures of each one's cells, computed once.
struct Runs<'a> {
    old: &'a ResultsFile,
    new: &'a ResultsFile,
    noise: (FileNoise, FileNoise),
    tables: (Table, Table),
}

/// One metric's verdicts on cells both runs hold, new against old (`noise::change`: a log ratio,
/// points for overflow; `None` where a side has too little to judge), and the drift between the
/// two runs they were widened by.
struct Judged<'a> {
    cells: Vec<(&'a CellKey, Option<Verdict>)>,
    drift: Drift,
}

impl Judged<'_> {
    /// Per runtime, the smallest change a cell's verdict tells apart (`results::ab::detectable`).
    fn detectable(&self) -> Vec<(RuntimeKind, f64)> {
        let judged = self.cells.iter().filter_map(|(key, verdict)| Some((key.coord.runtime, verdict.as_ref()?)));
        detectable(judged.map(|(runtime, verdict)| (runtime, verdict.low.exp(), verdict.high.exp())))
    }
}

impl<'a> Runs<'a> {
    /// Judges `keys` (cells of both runs) on `metric`, each verdict widened by the drift
    /// between the runs on that metric.
    fn judge(&self, keys: &[&'a CellKey], metric: Metric) -> Judged<'a> {
        let drift = Drift::between(self.old, self.new, metric);
        let noise = (&self.noise.0, &self.noise.1);
        let cells = keys
            .iter()
            .map(|key| {
                let (old, new) = (&self.old.cells[*key], &self.new.cells[*key]);
                (*key, change(old, new, metric, &key.coord.noise_group(), noise, drift.of(key.coord.runtime)))
            })
            .collect();
        Judged { cells, drift }
    }
}

/// Whether one channel leads (first or tied with it) in every one of `leaders` that names a
/// leader: true when fewer than two do.
pub fn leaders_overlap<T: PartialEq>(leaders: &[Vec<T>]) -> bool {
    let mut named = leaders.iter().filter(|leaders| !leaders.is_empty());
    let Some(first) = named.next() else { return true };
    let rest: Vec<&Vec<T>> = named.collect();
    first.iter().any(|channel| rest.iter().all(|other| other.contains(channel)))
}

/// The bands of `old` with the band of `new` at the same place (`Band::same_but_tasks`), in
/// `old`'s order.
fn matched<'b, B>(old: &'b [B], new: &'b [B], band: fn(&B) -> &Band) -> Vec<(&'b B, &'b B)> {
    let found = |at: &B| new.iter().find(|other| band(other).same_but_tasks(band(at)));
    old.iter().filter_map(|at| Some((at, found(at)?))).collect()
}

/// Cells counted by what their comparison said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cells faster beyond the noise.
    pub faster: usize,
    /// Cells slower beyond the noise.
    pub slower: usize,
    /// Cells without a change beyond the noise.
    pub no_change: usize,
    /// Cells without an `ok` sample in one file or both, so not compared.
    pub without_ok: usize,
}

impl Counts {
    /// The cells of `cells` that `keep` keeps, counted.
    fn of(cells: &[(&CellKey, Option<Compared>)], keep: impl Fn(&CellKey) -> bool) -> Counts {
        let mut counts = Counts::default();
        for (_, compared) in cells.iter().filter(|(key, _)| keep(key)) {
            match compared.as_ref().map(|compared| compared.call) {
                Some(Call::Lower) => counts.faster += 1,
                Some(Call::Higher) => counts.slower += 1,
                Some(Call::Tied) => counts.no_change += 1,
                None => counts.without_ok += 1,
            }
        }
        counts
    }
}

/// A cell found in both files with `ok` samples in both.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// The cell's ns/message in the old file (`figures::Figures::speed`): its clusters, more
    /// than one for a mixed cell, beside its figures.
    pub old: Figures,
    /// The same in the new file.
    pub new: Figures,
    /// What the comparison says of new against old (`noise::change` on ns/message): lower is
    /// faster; tied when there is too little to judge.
    pub call: Call,
    /// The interval of new over old that the call rests on (`noise::change`).
    pub interval: (f64, f64),
}

/// How far apart the two files' figures are over the cells of one runtime.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuntimeSpread {
    /// The runtime.
    pub runtime: RuntimeKind,
    /// Of the trimmed means (the headline).
    pub trimmed_means: Spread,
    /// Of the medians.
    pub medians: Spread,
    /// The runtime's cells counted by verdict.
    pub counts: Counts,
}

/// Two files compared cell by cell: what `compare` prints, computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison<'a> {
    /// The cells found in both files, in the old file's order; `None` for a cell without an
    /// `ok` sample in one of them.
    pub cells: Vec<(&'a CellKey, Option<Compared>)>,
    /// Cells only the old file has, in its order.
    pub only_old: Vec<&'a CellKey>,
    /// Cells only the new file has, in its order.
    pub only_new: Vec<&'a CellKey>,
    /// The cells in both, counted by verdict.
    pub counts: Counts,
    /// The spread of the trimmed means over the compared cells, and the cell furthest apart.
    pub overall: Option<(Spread, &'a CellKey)>,
    /// The spreads per runtime, in [`RuntimeKind::ALL`] order.
    pub by_runtime: Vec<RuntimeSpread>,
    /// The mixed cells among those compared (more than one cluster): in the old file, the new, both.
    pub mixed: (usize, usize, usize),
    /// Disturbed samples left out (`stats::disturbed`): in the old file, in the new.
    pub disturbed: (usize, usize),
    /// Whether the two files pick the same channels.
    pub agreement: Agreement,
    /// The drift between the two files the verdicts were widened by.
    pub drift: Drift,
    /// Per runtime, the smallest change a cell's verdict tells apart (`results::ab::detectable`).
    pub detectable: Vec<(RuntimeKind, f64)>,
    /// The paced cells of both files, judged on p99, CPU and frames overflowed.
    pub paced: PacedAgreement<'a>,
    /// Every cell of both files is paced: ns/message restates the schedule.
    pub only_paced: bool,
}

/// Compares `new` with `old` cell by cell on every metric, each verdict from the noise model
/// (`Runs::judge`).
pub fn compare<'a>(old: &'a ResultsFile, new: &'a ResultsFile) -> Comparison<'a> {
    let (noise, tables) = ((FileNoise::of(old), FileNoise::of(new)), (Table::of(old), Table::of(new)));
    let runs = Runs { old, new, noise, tables };
    let keys: Vec<&CellKey> = old.order.iter().filter(|key| new.cells.contains_key(*key)).collect();
    let judged = runs.judge(&keys, Metric::Speed);
    let cells: Vec<(&CellKey, Option<Compared>)> = judged
        .cells
        .iter()
        .map(|&(key, verdict)| {
            let speed = |table: &Table| table.cell(key).speed.clone();
            let compared = speed(&runs.tables.0).zip(speed(&runs.tables.1)).map(|(old, new)| Compared {
                old,
                new,
                call: verdict.map_or(Call::Tied, |verdict| verdict.call),
                interval: verdict.map_or((0.0, f64::INFINITY), |verdict| (verdict.low.exp(), verdict.high.exp())),
            });
            (key, compared)
        })
        .collect();
    let clusters =
        cells.iter().filter_map(|(_, c)| c.as_ref()).map(|c| (!c.old.clusters.is_empty(), !c.new.clusters.is_empty()));
    let mixed = clusters.fold((0, 0, 0), |(in_old, in_new, in_both), (old, new)| {
        (in_old + usize::from(old), in_new + usize::from(new), in_both + usize::from(old && new))
    });
    let only = |file: &'a ResultsFile, other: &ResultsFile| -> Vec<&'a CellKey> {
        file.order.iter().filter(|key| !other.cells.contains_key(*key)).collect()
    };
    let disturbed = |file: &ResultsFile| file.cells.values().map(|cell| cell.disturbed.len()).sum::<usize>();
    Comparison {
        detectable: judged.detectable(),
        overall: overall(&cells),
        by_runtime: by_runtime(&cells),
        only_old: only(old, new),
        only_new: only(new, old),
        counts: Counts::of(&cells, |_| true),
        mixed,
        disturbed: (disturbed(old), disturbed(new)),
        agreement: agreement(&runs),
        cells,
        drift: judged.drift,
        paced: paced_agreement(&runs),
        only_paced: paced::only_paced(old) && paced::only_paced(new),
    }
}
/// The (old, new) trimmed means of a compared cell.
fn trimmed_means(compared: &Compared) -> (f64, f64) {
    (compared.old.trimmed_mean, compared.new.trimmed_mean)
}

/// The spread of the trimmed means over the compared cells, and the cell furthest apart.
fn overall<'a>(cells: &[(&'a CellKey, Option<Compared>)]) -> Option<(Spread, &'a CellKey)> {
    let compared = || cells.iter().filter_map(|(key, compared)| Some((*key, compared.as_ref()?)));
    let apart = |(old, new): (f64, f64)| (new / old).max(old / new);
    let (worst, _) = compared().max_by(|a, b| apart(trimmed_means(a.1)).total_cmp(&apart(trimmed_means(b.1))))?;
    Some((spread(compared().map(|(_, compared)| trimmed_means(compared)))?, worst))
}

/// The spreads of the trimmed means and of the medians per runtime.
fn by_runtime(cells: &[(&CellKey, Option<Compared>)]) -> Vec<RuntimeSpread> {
    RuntimeKind::ALL
        .into_iter()
        .filter_map(|runtime| {
            let mine = |key: &CellKey| key.coord.runtime == runtime;
            let of = |figures: fn(&Compared) -> (f64, f64)| {
                spread(cells.iter().filter(|(key, _)| mine(key)).filter_map(|(_, c)| c.as_ref().map(figures)))
            };
            let (trimmed_means, medians) = (of(trimmed_means)?, of(|c| (c.old.median, c.new.median))?);
            Some(RuntimeSpread { runtime, trimmed_means, medians, counts: Counts::of(cells, mine) })
        })
        .collect()
}

/// Whether two runs pick the same channels: what a user choosing a channel would read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Agreement {
    /// (runtime, mode, tasks) groups with a channel of lowest mean in both files.
    pub groups: usize,
    /// Of those, the groups whose lowest mean is the same channel in both.
    pub same_fastest: usize,
    /// Summary bands (runtime, mode, band of task counts) ranked in both files.
    pub bands: usize,
    /// Of those, the bands whose leaders (the first and the channels tied with it) share a channel.
    pub bands_overlapping: usize,
    /// Of those, the bands where one file names a clear winner that the other does not count
    /// among its leaders.
    pub bands_contradicted: usize,
}

/// How often the two runs agree on the fastest channel (by trimmed mean ns/message), per
/// group of cells and per band of the summary (as `summary` ranks).
fn agreement(runs: &Runs) -> Agreement {
    // A group of cells: its place between runs (`Coord::between_runs`) and task count.
    type Group = (Coord, u64);
    fn fastest<'a>(file: &'a ResultsFile, table: &Table) -> HashMap<Group, (f64, (&'a str, Option<Merge>))> {
        let mut best = HashMap::new();
        for key in file.cells.keys() {
            let Some(summary) = &table.cell(key).speed else { continue };
            let group = (key.coord.between_runs(), key.tasks);
            let entry = best.entry(group).or_insert((f64::INFINITY, ("", None)));
            if summary.trimmed_mean < entry.0 {
                *entry = (summary.trimmed_mean, (key.channel.as_str(), key.merge));
            }
        }
        best
    }
    let (old_fastest, new_fastest) = (fastest(runs.old, &runs.tables.0), fastest(runs.new, &runs.tables.1));
    let same: Vec<bool> =
        old_fastest.iter().filter_map(|(group, (_, channel))| Some(new_fastest.get(group)?.1 == *channel)).collect();
    let same_fastest = same.iter().filter(|same| **same).count();
    let mut result = Agreement { groups: same.len(), same_fastest, ..Agreement::default() };
    let groups = (Groups::of(runs.old, &runs.tables.0), Groups::of(runs.new, &runs.tables.1));
    let (old_bands, new_bands) = (recommend(&groups.0.all, &runs.noise.0), recommend(&groups.1.all, &runs.noise.1));
    for (band, other) in matched(&old_bands, &new_bands, |b| &b.band) {
        let (ours, theirs) = (leaders(&band.speed), leaders(&other.speed));
        if ours.is_empty() || theirs.is_empty() {
            continue;
        }
        result.bands += 1;
        result.bands_overlapping += usize::from(leaders_overlap(&[ours.clone(), theirs.clone()]));
        // A clear winner (its leaders one channel) that the other run does not count among its leaders.
        let contradicts = |winner: &[_], leaders: &[_]| winner.len() == 1 && !leaders.contains(&winner[0]);
        result.bands_contradicted += usize::from(contradicts(&ours, &theirs) || contradicts(&theirs, &ours));
    }
    result
}

/// A ranking's leaders (`Ranking::leaders`), by channel and merge.
pub fn leaders<E>(ranking: &Ranking<E>) -> Vec<(&str, Option<Merge>)> {
    ranking.leaders().iter().map(|entry| (entry.channel.as_str(), entry.merge)).collect()
}

/// One paced cell of two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PacedPair<'a> {
    /// The cell, by its full key (phase and send included).
    pub key: &'a CellKey,
    /// Its figures in the old run.
    pub old: PacedCell,
    /// Its figures in the new run.
    pub new: PacedCell,
    /// The verdicts on new against old (`Runs::judge`): p99, CPU per delivered message,
    /// frames overflowed; `None` where a side has too little to judge.
    pub verdicts: [Option<Verdict>; 3],
}

impl PacedPair<'_> {
    /// Whether any of the cell's verdicts says the new run is worse beyond the noise.
    pub fn slower(&self) -> bool {
        self.verdicts.iter().flatten().any(|verdict| verdict.call == Call::Higher)
    }
}

/// How far two paced runs agree: the A/A figures that calibrate the paced drift
/// (`results::noise::Metric::drift`).
#[derive(Debug, Clone, PartialEq)]
pub struct PacedAgreement<'a> {
    /// The paced cells of both runs, in the old run's order.
    pub cells: Vec<PacedPair<'a>>,
    /// Pooled p99, larger over smaller, over the cells with latency in both.
    pub p99: Option<Spread>,
    /// The difference of the shares of frames overflowed, in points: (median, worst) over the cells.
    pub overflow_points: Option<(f64, f64)>,
    /// CPU per delivered message, larger over smaller.
    pub cpu: Option<Spread>,
    /// Bands of both runs (same group and band).
    pub bands: usize,
    /// Bands where the runs' leaders share no channel, by p99, CPU and overflow.
    pub contradicted: [usize; 3],
    /// Per runtime, the smallest change a cell's verdict on p99 and on CPU tells apart
    /// (`super::ab::detectable`).
    pub detectable: [Vec<(RuntimeKind, f64)>; 2],
}

/// The A/A figures of two paced runs, cells matched by their full key.
fn paced_agreement<'a>(runs: &Runs<'a>) -> PacedAgreement<'a> {
    let (old, new) = (runs.old, runs.new);
    let figures = |file: &ResultsFile, table: &Table, key: &CellKey| {
        file.cells.contains_key(key).then(|| table.cell(key).paced.clone()).flatten()
    };
    let (tables, noise) = (&runs.tables, &runs.noise);
    let pairs: Vec<(&CellKey, PacedCell, PacedCell)> = (old.order.iter())
        .filter_map(|key| Some((key, figures(old, &tables.0, key)?, figures(new, &tables.1, key)?)))
        .collect();
    let keys: Vec<&CellKey> = pairs.iter().map(|(key, ..)| *key).collect();
    let judged = [Metric::P99, Metric::Cpu, Metric::Overflow].map(|metric| runs.judge(&keys, metric));
    let cells: Vec<PacedPair> = (pairs.into_iter().enumerate())
        .map(|(at, (key, old, new))| PacedPair { key, old, new, verdicts: judged.each_ref().map(|j| j.cells[at].1) })
        .collect();
    let spread_of = |figure: fn(&PacedCell) -> f64| spread(cells.iter().map(|p| (figure(&p.old), figure(&p.new))));
    let p99 = spread_of(|cell| cell.latency.map_or(0.0, |latency| latency.p99 as f64));
    let cpu = spread_of(|cell| cell.cpu_ns_per_delivered.unwrap_or(0.0));
    let points: Vec<f64> =
        cells.iter().map(|pair| (pair.old.overflow_share - pair.new.overflow_share).abs() * 100.0).collect();
    let overflow_points = stats::median(&points).zip(points.iter().copied().reduce(f64::max));
    let groups = (Groups::of(old, &tables.0), Groups::of(new, &tables.1));
    let (old_bands, new_bands) = (paced::answer(&groups.0.paced, &noise.0), paced::answer(&groups.1.paced, &noise.1));
    let bands = matched(&old_bands, &new_bands, |b| &b.band);
    let rankings: [fn(&PacedBand) -> &Ranking<PacedEntry>; 3] = [|b| &b.p99, |b| &b.cpu, |b| &b.overflow];
    let contradicted = rankings.map(|ranking| {
        bands
            .iter()
            .filter(|(band, other)| !leaders_overlap(&[leaders(ranking(band)), leaders(ranking(other))]))
            .count()
    });
    let detectable = [judged[0].detectable(), judged[1].detectable()];
    PacedAgreement { cells, p99, overflow_points, cpu, bands: bands.len(), contradicted, detectable }
}

#[cfg(test)]
mod tests;

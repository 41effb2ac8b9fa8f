//! The one owner of the noise model's numbers, and the one place verdicts on results are made
//! ([`verdict`], through `stats::verdict::judge`): a band's leader against each channel,
//! `compare`'s old against new, the paced figures. Everything is measured by the run itself
//! ([`FileNoise::of`]): the spread of its samples and of its pairs, and how far its pairs drift
//! from its early to its late rounds ([`batch_drift`]); the drift calibrated on a calm host
//! ([`Metric::drift`]) stays only as the floor under it.

use std::collections::{BTreeMap, HashMap};

use super::column::Column;
use super::coord::Coord;
use super::load::{CellKey, CellSamples, PacedSample, ResultsFile};
use crate::run::measure::RuntimeKind;
use statrs::distribution::{ContinuousCDF, Normal};

use crate::stats::calibration::calibrate;
pub use crate::stats::calibration::{CALIBRATION_ROUNDS, Calibration, Differences};
use crate::stats::verdict::{Estimate, Prior, TRIMMED_FROM, Verdict, judge, squares, winsorized};

/// The two-sided confidence of a verdict between two channels of one run (a band's answer,
/// the sweep's duels): a few dozen such verdicts make an answer.
pub const VERDICT_CONFIDENCE: f64 = 0.95;

/// The standard normal quantile a two-sided interval at [`VERDICT_CONFIDENCE`] reaches (1.96).
pub fn verdict_z() -> f64 {
    Normal::new(0.0, 1.0).map_or(2.0, |normal| normal.inverse_cdf(0.5 + VERDICT_CONFIDENCE / 2.0))
}

/// [`Metric::busy_drift`] of ns/message on the current-thread runtime: the median over four
/// pairs of runs (one on the free host, one beside `noisy-neighbour --duty 0.9 --threads 2`) of
/// the root mean square of the change of each channel's log ratio to the free run's leader.
const BUSY_DRIFT_CURRENT: f64 = 0.34;
/// [`Metric::busy_drift`] of ns/message on the multi-thread runtime, measured as
/// [`BUSY_DRIFT_CURRENT`]: a busy host moved channels' ratios by 2.4–3.4× (root mean square).
const BUSY_DRIFT_MULTI: f64 = 1.06;

/// The two-sided confidence of `compare`'s verdict on one cell in two runs: hundreds of cells
/// are judged at once, and an A/A comparison should call about none of them changed.
pub const CHANGE_CONFIDENCE: f64 = 0.999;

/// A figure whose verdicts are made here: which values of a cell's samples, on which scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Metric {
    /// ns/message (log scale: differences are ratios).
    Speed,
    /// CPU ns per delivered message (log scale).
    Cpu,
    /// A sample's p99 latency (log scale).
    P99,
    /// A paced sample's share of frames overflowed, in percentage points (linear).
    Overflow,
}

impl Metric {
    /// Whether differences are of logarithms (ratios) rather than of points.
    pub fn is_ratio(self) -> bool {
        self != Metric::Overflow
    }

    /// The floor under the drift of this metric's difference that sampling inside one run
    /// cannot see, on `runtime`: paired (two channels measured in the same rounds; the run's own
    /// measure, [`FileNoise::paired_drift`], is never below it) or not (figures measured minutes
    /// or runs apart). Calibrated by A/A runs (docs/methodology.md has the runs and the script):
    /// unpaired, a cell's log ratio between two sweeps; paired, a band leader's ratio to its
    /// runner-up across runs of one sitting (the host's state between runs).
    pub fn drift(self, runtime: RuntimeKind, paired: bool) -> f64 {
        match (self, runtime, paired) {
            (Metric::Speed | Metric::Cpu, RuntimeKind::CurrentThread, true) => 0.015,
            (Metric::Speed | Metric::Cpu, RuntimeKind::MultiThread, true) => 0.04,
            (Metric::Speed | Metric::Cpu, RuntimeKind::CurrentThread, false) => 0.05,
            (Metric::Speed | Metric::Cpu, RuntimeKind::MultiThread, false) => 0.09,
            (Metric::P99, _, true) => 0.10,
            (Metric::P99, _, false) => 0.30,
            (Metric::Overflow, _, true) => 0.2,
            (Metric::Overflow, _, false) => 0.6,
        }
    }

    /// The floor under a paired verdict's drift on `runtime` when the host was busy through the
    /// run (`load::Waited::busy`): how far two channels' log ratio moved between runs of one
    /// command beside other work that kept every core busy and on the free host
    /// (docs/methodology.md has the runs). A busy host ranks channels by how they share a core,
    /// a free one by how they hand off; a verdict that claims more than this would not hold on
    /// the other. `None` for the figures such runs did not calibrate.
    pub fn busy_drift(self, runtime: RuntimeKind) -> Option<f64> {
        match (self, runtime) {
            (Metric::Speed, RuntimeKind::CurrentThread) => Some(BUSY_DRIFT_CURRENT),
            (Metric::Speed, RuntimeKind::MultiThread) => Some(BUSY_DRIFT_MULTI),
            _ => None,
        }
    }

    /// The values of `cell`'s samples on this metric's scale, each with its round (when the
    /// file recorded rounds): the samples that count (`ok`, not disturbed; for paced figures
    /// every `ok` sample).
    fn values(self, cell: &CellSamples) -> Vec<(f64, Option<u64>)> {
        let with_rounds = |values: &[f64]| -> Vec<(f64, Option<u64>)> {
            let rounds = (values.len() == cell.rounds.len()).then_some(&cell.rounds);
            values
                .iter()
                .enumerate()
                .filter(|(_, value)| **value > 0.0 && value.is_finite())
                .map(|(at, value)| (value.ln(), rounds.and_then(|rounds| rounds[at])))
                .collect()
        };
        let paced = |value: fn(&PacedSample) -> Option<f64>| -> Values {
            cell.paced.iter().filter_map(|sample| Some((value(sample)?, sample.round))).collect()
        };
        match self {
            Metric::Speed => with_rounds(&cell.ok),
            Metric::Cpu if cell.paced.is_empty() => with_rounds(&cell.columns[Column::CpuNsPerMessage]),
            Metric::Cpu => paced(|s| Some(s.cpu_per_delivered()?.max(f64::MIN_POSITIVE).ln())),
            Metric::P99 if cell.paced.is_empty() => with_rounds(&cell.columns[Column::LatP99]),
            Metric::P99 => paced(|s| Some((s.p99_ns?.max(1) as f64).ln())),
            Metric::Overflow => paced(|s| Some(100.0 * s.frames_overflowed as f64 / s.frames.max(1) as f64)),
        }
    }
}

/// The noise one file measured: per noise group ([`Coord::noise_group`]) and metric, the spread of its
/// paired differences and of its samples, pooled over the group's cells ([`Prior`]s for pairs
/// and cells with few observations of their own).
#[derive(Debug, Clone, Default)]
pub struct FileNoise {
    /// Per group, metric, paired or not, and whether winsorized (for estimates that trim) or
    /// plain (for those of fewer than [`TRIMMED_FROM`] observations, which no trim protects).
    priors: HashMap<(Coord, Metric, bool, bool), Prior>,
    /// Per group and metric: the standard deviation of a pair's difference that moves slowly
    /// through the run, measured from its early, middle and late rounds ([`batch_drift`]).
    drifts: HashMap<(Coord, Metric), f64>,
    /// Per group and metric: the factor the run's own A/A pairs measured ([`Calibration`]).
    calibrations: HashMap<(Coord, Metric), Calibration>,
    /// Runs pooled in the file (at least 1): the drift between runs averages over them.
    runs: usize,
    /// The runtimes whose host was busy through the run (`load::Waited::busy`): their verdicts
    /// keep [`Metric::busy_drift`] under them.
    busy: Vec<RuntimeKind>,
}

/// How many stretches of rounds (early, middle, late) a pair's differences are split into to
/// see how far the pair moves through the run ([`batch_drift`]).
pub const BATCHES: usize = 3;

/// A cell's values on a metric's scale, each with its round.
type Values = Vec<(f64, Option<u64>)>;

impl FileNoise {
    /// Measures `file`'s spread per group and metric: the variance of each cell's values
    /// about its mean (unpaired), and of each two channels' differences over the rounds they
    /// share about their mean (paired), each pooled over the group by degrees of freedom.
    /// Where the host was busy, its runtime's verdicts between channels keep
    /// [`Metric::busy_drift`] under them.
    pub fn of(file: &ResultsFile) -> FileNoise {
        let busy = RuntimeKind::ALL.into_iter().filter(|&runtime| file.waited.busy(runtime).is_some_and(|(_, b)| b));
        FileNoise { busy: busy.collect(), ..FileNoise::of_pairs(file, &|_, _| true, Prior::WEIGHT) }
    }

    /// [`FileNoise::of`] from the pairs of cells that `pairs` accepts only (a paired A/B run
    /// measures its noise from each channel's two builds, not from two channels), its priors
    /// weighing up to `weight` observations ([`Prior::measured`]). No busy host's floor: it was
    /// measured on two channels' ratio, not on one channel's two builds.
    pub fn of_pairs(file: &ResultsFile, pairs: &dyn Fn(&CellKey, &CellKey) -> bool, weight: f64) -> FileNoise {
        let mut sums: HashMap<(Coord, Metric, bool, bool), (f64, f64)> = HashMap::new();
        let mut add = |key: (Coord, Metric, bool), values: &[f64]| {
            for trimmed in [true, false] {
                let (sum, degrees) = squares(values, trimmed);
                let entry = sums.entry((key.0.clone(), key.1, key.2, trimmed)).or_default();
                entry.0 += sum;
                entry.1 += degrees;
            }
        };
        let mut drift_sums: HashMap<(Coord, Metric), (f64, f64)> = HashMap::new();
        let mut halves: HashMap<(Coord, Metric), Vec<Differences>> = HashMap::new();
        for metric in [Metric::Speed, Metric::Cpu, Metric::P99, Metric::Overflow] {
            let mut groups: BTreeMap<_, Vec<(&CellKey, Values)>> = BTreeMap::new();
            for key in &file.order {
                let values = metric.values(&file.cells[key]);
                if values.is_empty() {
                    continue;
                }
                add((key.coord.noise_group(), metric, false), &values.iter().map(|(v, _)| *v).collect::<Vec<_>>());
                // The cells paired round by round: one Coord, task count and workload; within a
                // noise group they are taken by workload, then task count.
                groups.entry((key.workload(), &key.coord, key.tasks)).or_default().push((key, values));
            }
            for ((_, coord, _), cells) in groups {
                let group = coord.noise_group();
                for (at, (a_key, a)) in cells.iter().enumerate() {
                    for (_, b) in cells[at + 1..].iter().filter(|(b_key, _)| pairs(a_key, b_key)) {
                        let shared = differences_by_round(a, b);
                        add((group.clone(), metric, true), &shared.iter().map(|(_, d)| *d).collect::<Vec<_>>());
                        if shared.len() >= CALIBRATION_ROUNDS {
                            halves.entry((group.clone(), metric)).or_default().push(shared.clone());
                        }
                        if let Some((excess, degrees)) = batch_drift(&shared) {
                            let entry = drift_sums.entry((group.clone(), metric)).or_default();
                            entry.0 += excess * degrees;
                            entry.1 += degrees;
                        }
                    }
                }
            }
        }
        let priors = sums
            .into_iter()
            .filter(|(_, (_, degrees))| *degrees > 0.0)
            .map(|(key, (sum, degrees))| (key, Prior::measured((sum / degrees).sqrt(), degrees, weight)))
            .collect();
        let drifts = drift_sums
            .into_iter()
            .filter(|(_, (_, degrees))| *degrees > 0.0)
            .map(|(key, (sum, degrees))| (key, (sum / degrees).max(0.0).sqrt()))
            .collect();
        let mut noise = FileNoise { priors, drifts, runs: file.runs.max(1), ..FileNoise::default() };
        noise.calibrations = halves
            .into_iter()
            .filter_map(|((group, metric), pairs)| {
                let prior = |n| noise.prior(&group, metric, true, n);
                Some(((group.clone(), metric), calibrate(&pairs, &prior, VERDICT_CONFIDENCE)?))
            })
            .collect();
        noise
    }

    /// The calibration of `group`'s paired verdicts on `metric`, when the run had A/A pairs
    /// enough to measure it (`stats::calibration::MIN_CALIBRATION_PAIRS`).
    pub fn calibration(&self, group: &Coord, metric: Metric) -> Option<Calibration> {
        self.calibrations.get(&(group.clone(), metric)).copied()
    }

    /// The prior of an estimate from `observations` observations: the winsorized spread for
    /// one that trims, the plain one below [`TRIMMED_FROM`].
    fn prior(&self, group: &Coord, metric: Metric, paired: bool, observations: usize) -> Option<Prior> {
        let trimmed = observations >= TRIMMED_FROM;
        self.priors.get(&(group.clone(), metric, paired, trimmed)).copied()
    }

    /// The drift added under a paired verdict of `group` on `metric`: where the run calibrated
    /// its own paired verdicts ([`FileNoise::calibration`]), the drift it measured through the
    /// run ([`FileNoise::measured_drift`], which more rounds do not average away), with no floor
    /// under it; else `FileNoise::slow_drift`, the floor from A/A runs of one host under it.
    /// On a busy host, never below its floor (`FileNoise::busy_floor`).
    pub fn paired_drift(&self, group: &Coord, metric: Metric) -> f64 {
        let drift = match self.calibration(group, metric) {
            Some(_) => self.measured_drift(group, metric).unwrap_or(0.0) / (self.runs as f64).sqrt(),
            None => self.slow_drift(group, metric),
        };
        drift.max(self.busy_floor(group, metric))
    }

    /// [`Metric::busy_drift`] where `group`'s runtime ran on a busy host; 0 elsewhere.
    fn busy_floor(&self, group: &Coord, metric: Metric) -> f64 {
        let busy = self.busy.contains(&group.runtime);
        busy.then(|| metric.busy_drift(group.runtime)).flatten().unwrap_or(0.0)
    }

    /// What the run's drift adds to a pair's mean ([`FileNoise::measured_drift`]), never below
    /// the floor from A/A runs of one host ([`Metric::drift`]), averaged over the runs the file
    /// pools: the drift under a verdict the run could not calibrate, and what sets the run's
    /// resolution.
    fn slow_drift(&self, group: &Coord, metric: Metric) -> f64 {
        let measured = self.measured_drift(group, metric).unwrap_or(0.0);
        let drift = measured.max(metric.drift(group.runtime, true)) / (self.runs as f64).sqrt();
        drift.max(self.busy_floor(group, metric))
    }

    /// How close a tie of `group` on `metric` must be before more rounds of this run would
    /// narrow it by little (0.05 = within 5%): half again the drift under its verdicts
    /// (`FileNoise::slow_drift`) at [`VERDICT_CONFIDENCE`]. The duels stop there; on a noisy
    /// host it widens with the drift the run measured.
    pub fn resolution(&self, group: &Coord, metric: Metric) -> f64 {
        ((1.5 * verdict_z() * self.slow_drift(group, metric)).exp() - 1.0).max(0.0)
    }

    /// The standard deviation that the drift this file measured inside the run adds to a
    /// pair's mean over the run: the stretches' drift ([`batch_drift`], pooled over the group's
    /// pairs) over √[`BATCHES`], as a mean of that many stretches. `None` when no pair had
    /// rounds enough to measure it.
    pub fn measured_drift(&self, group: &Coord, metric: Metric) -> Option<f64> {
        let per_stretch = self.drifts.get(&(group.clone(), metric)).copied()?;
        Some(per_stretch / (BATCHES as f64).sqrt())
    }
}

/// How far a pair's difference moves slowly through the run: its differences (each with its
/// round) in round order, split into [`BATCHES`] stretches of nearly equal size, each value
/// winsorized as [`Estimate::paired`] reads a pair. The variance of the stretches' means beyond
/// what the spread inside them explains (a one-way analysis of variance: the mean square
/// between less the mean square within, over the stretch size) is the variance of the part of
/// the difference that drifts. Returns that variance (negative when the stretches agree better
/// than chance, so that pooling stays unbiased) and its degrees of freedom (`BATCHES − 1`);
/// `None` with fewer than two differences a stretch.
pub fn batch_drift(differences: &[(u64, f64)]) -> Option<(f64, f64)> {
    let n = differences.len();
    if n < 2 * BATCHES {
        return None;
    }
    let mut ordered = differences.to_vec();
    ordered.sort_by_key(|(round, _)| *round);
    let winsorized = winsorized(&ordered.iter().map(|(_, d)| *d).collect::<Vec<f64>>());
    let batches: Vec<&[f64]> = (0..BATCHES).map(|at| &winsorized[at * n / BATCHES..(at + 1) * n / BATCHES]).collect();
    let mean = winsorized.iter().sum::<f64>() / n as f64;
    let means: Vec<f64> = batches.iter().map(|batch| batch.iter().sum::<f64>() / batch.len() as f64).collect();
    let between: f64 = batches.iter().zip(&means).map(|(batch, m)| batch.len() as f64 * (m - mean).powi(2)).sum();
    let within: f64 = batches.iter().map(|batch| squares(batch, false).0).sum();
    let between_square = between / (BATCHES - 1) as f64;
    let within_square = within / (n - BATCHES) as f64;
    Some(((between_square - within_square) / (n as f64 / BATCHES as f64), (BATCHES - 1) as f64))
}

/// How many rounds `a` and `b` both have a value in on `metric`: the pairs a paired
/// [`estimate`] reads.
pub fn shared_rounds(a: &CellSamples, b: &CellSamples, metric: Metric) -> usize {
    differences_by_round(&metric.values(a), &metric.values(b)).len()
}

/// `b − a` in every round both have a value in, with that round.
fn differences_by_round(a: &[(f64, Option<u64>)], b: &[(f64, Option<u64>)]) -> Vec<(u64, f64)> {
    let rounds: HashMap<u64, f64> = a.iter().filter_map(|(value, round)| Some(((*round)?, *value))).collect();
    b.iter().filter_map(|(value, round)| Some(((*round)?, value - rounds.get(&(*round)?)?))).collect()
}

/// The estimate of `b − a` on `metric` at one task count: paired when the two share rounds
/// (measured back to back), else from their samples as two independent sets. Also says which.
pub fn estimate(
    a: &CellSamples,
    b: &CellSamples,
    metric: Metric,
    group: &Coord,
    noise: &FileNoise,
) -> Option<(Estimate, bool)> {
    let centre = centre(metric, a, b);
    let (a, b) = (metric.values(a), metric.values(b));
    let shared: Vec<f64> = differences_by_round(&a, &b).into_iter().map(|(_, d)| d).collect();
    let plain = |values: &[(f64, Option<u64>)]| values.iter().map(|(v, _)| *v).collect::<Vec<f64>>();
    let (estimate, paired) = if shared.is_empty() {
        let prior = noise.prior(group, metric, false, a.len().min(b.len()));
        (Estimate::unpaired(&plain(&a), &plain(&b), prior)?, false)
    } else {
        (Estimate::paired(&shared, noise.prior(group, metric, true, shared.len()))?, true)
    };
    Some((Estimate { mean: centre.unwrap_or(estimate.mean), ..estimate }, paired))
}

/// Where a verdict on `b − a` is centred when it is not at the mean of the samples' values: a
/// paced p99 is shown pooled over the cell's messages, so its verdict sits at the log ratio of
/// the two pooled p99s, the samples' own p99s giving only its spread. `None` for every other
/// figure.
fn centre(metric: Metric, a: &CellSamples, b: &CellSamples) -> Option<f64> {
    if metric != Metric::P99 || a.paced.is_empty() || b.paced.is_empty() {
        return None;
    }
    let pooled_p99 = |cell: &CellSamples| Some(cell.latency?.p99.max(1) as f64);
    Some((pooled_p99(b)? / pooled_p99(a)?).ln())
}

/// The verdict on channel `b` against channel `a` on `metric` over a band: `a_cells[i]` and
/// `b_cells[i]` are the two channels' cells at the band's i-th task count. Each task count's
/// [`estimate`], their mean ([`Estimate::mean_of`]), judged at two-sided `confidence`
/// ([`VERDICT_CONFIDENCE`]; [`CHANGE_CONFIDENCE`] where many cells are judged at once) with the
/// metric's drift (paired when every task count was), which averages over the runs a pooled
/// file holds. `None` when a task count has no estimate.
pub fn verdict(
    a_cells: &[&CellSamples],
    b_cells: &[&CellSamples],
    metric: Metric,
    group: &Coord,
    noise: &FileNoise,
    confidence: f64,
) -> Option<Verdict> {
    let parts = a_cells.iter().zip(b_cells).map(|(a, b)| estimate(a, b, metric, group, noise));
    let (estimates, paired): (Vec<Estimate>, Vec<bool>) = parts.collect::<Option<Vec<_>>>()?.into_iter().unzip();
    let estimate = Estimate::mean_of(&estimates)?;
    if !paired.iter().all(|&paired| paired) {
        return Some(judge(estimate, metric.drift(group.runtime, false) / (noise.runs as f64).sqrt(), confidence));
    }
    let scale = noise.calibration(group, metric).map_or(1.0, |calibration| calibration.scale);
    Some(judge(Estimate { se: estimate.se * scale, ..estimate }, noise.paired_drift(group, metric), confidence))
}

/// The fewest cells of a runtime that both files of a comparison hold for [`Drift::between`]
/// to measure the drift from them.
pub const DRIFT_CELLS: usize = 20;

/// The samples a cell needs on each side to measure the drift by itself ([`Drift::between`]).
const WELL_SAMPLED: usize = 5;

/// The drift between two files, per runtime, that [`change`] widens its verdicts by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drift {
    /// Per runtime: the standard deviation of a cell's log ratio new/old that the runs' drift
    /// explains, and whether it was measured from the two files (else the calibrated one).
    pub by_runtime: Vec<(RuntimeKind, f64, bool)>,
}

impl Drift {
    /// The drift between `old` and `new` on `metric`: per runtime with at least [`DRIFT_CELLS`]
    /// cells in both, measured from the two files themselves, as the robust root mean square
    /// of the cells' log ratios (the median ratio, for a shift of the whole run, and 1.4826 ×
    /// the median absolute deviation about it, for the spread) over the cells with five samples
    /// or more on each side when there are enough: most cells of a comparison did not change,
    /// and those that did barely move a median. With fewer cells, the calibrated
    /// unpaired drift of each side ([`Metric::drift`], over √runs).
    pub fn between(old: &ResultsFile, new: &ResultsFile, metric: Metric) -> Drift {
        let mean_log = |cell: &CellSamples, fewest: usize| {
            let values: Vec<f64> = metric.values(cell).into_iter().map(|(v, _)| v).collect();
            (values.len() >= fewest).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let of_runtime = |runtime: RuntimeKind| {
            let ratios_of = |fewest: usize| -> Vec<f64> {
                old.order
                    .iter()
                    .filter(|key| key.coord.runtime == runtime)
                    .filter_map(|key| Some(mean_log(new.cells.get(key)?, fewest)? - mean_log(&old.cells[key], fewest)?))
                    .collect()
            };
            // The cells sampled at least WELL_SAMPLED times on both sides, whose own sampling
            // error adds little, when there are enough of them; else every cell.
            let well_sampled = ratios_of(WELL_SAMPLED);
            let mut ratios = if well_sampled.len() >= DRIFT_CELLS { well_sampled } else { ratios_of(1) };
            let calibrated =
                metric.drift(runtime, false) * (1.0 / old.runs.max(1) as f64 + 1.0 / new.runs.max(1) as f64).sqrt();
            if ratios.len() < DRIFT_CELLS {
                return (runtime, calibrated, false);
            }
            let median = crate::stats::median_of(&mut ratios);
            let mut deviations: Vec<f64> = ratios.iter().map(|r| (r - median).abs()).collect();
            let spread = 1.4826 * crate::stats::median_of(&mut deviations);
            (runtime, (median.powi(2) + spread.powi(2)).sqrt(), true)
        };
        Drift { by_runtime: RuntimeKind::ALL.into_iter().map(of_runtime).collect() }
    }

    /// The drift on `runtime`.
    pub fn of(&self, runtime: RuntimeKind) -> f64 {
        self.by_runtime.iter().find(|(known, ..)| *known == runtime).map_or(0.0, |(_, drift, _)| *drift)
    }
}

/// `compare`'s verdict on one cell in two runs (`old`, `new`): the two as independent sets
/// (the runs were minutes apart, so nothing pairs), each with its own run's spread as prior,
/// judged at [`CHANGE_CONFIDENCE`] with the `drift` between the two files ([`Drift`]).
pub fn change(
    old: &CellSamples,
    new: &CellSamples,
    metric: Metric,
    group: &Coord,
    noise: (&FileNoise, &FileNoise),
    drift: f64,
) -> Option<Verdict> {
    // Each run's values read as [`Estimate::paired`] reads differences, with its own run's prior.
    let side = |cell: &CellSamples, noise: &FileNoise| {
        let values: Vec<f64> = metric.values(cell).into_iter().map(|(v, _)| v).collect();
        let part = Estimate::paired(&values, noise.prior(group, metric, false, values.len()))?;
        Some((part.mean, part.se.powi(2), part.degrees))
    };
    let estimate = Estimate::between(side(old, noise.0)?, side(new, noise.1)?);
    let estimate = Estimate { mean: centre(metric, old, new).unwrap_or(estimate.mean), ..estimate };
    Some(judge(estimate, drift, CHANGE_CONFIDENCE))
}

#[cfg(test)]
mod tests;

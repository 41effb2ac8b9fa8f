//! How noisy the host was, as the run itself measured it: the samples left out and why, how
//! far the run's paired estimates disagreed with themselves (`noise::Calibration`), and the
//! closest two channels the run could tell apart. Read from a file, its noise and its bands;
//! every output words it from here.

use std::collections::BTreeMap;

use serde::Serialize;

use super::band::first_seen;
use super::coord::Coord;
use super::load::{MachineSpeed, ResultsFile};
use super::noise::{FileNoise, Metric};
use super::recommend::Recommendation;
use crate::run::measure::RuntimeKind;
use crate::stats::disturbed::Why;

/// The host's noise in one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HostNoise {
    /// Samples measured, `ok` ones and those left out.
    pub samples: usize,
    /// Samples left out of every figure, by why (`stats::disturbed::Why`'s words).
    pub left_out: BTreeMap<&'static str, usize>,
    /// Per runtime measured, in [`RuntimeKind::ALL`]'s order.
    pub runtimes: Vec<RuntimeNoise>,
    /// How fast the machine was, and its slow stretches (`load::MachineSpeed`); absent from a
    /// file without readings of the machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineSpeed>,
}

/// The noise of one runtime's verdicts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuntimeNoise {
    /// The runtime.
    pub runtime: RuntimeKind,
    /// The median over its groups of the factor the run's own A/A halves set on a paired
    /// standard error (`noise::Calibration::scale`); `None` when no group had pairs enough.
    pub scale: Option<f64>,
    /// The A/A pairs (two halves of one pair of channels at one task count) measured.
    pub pairs: usize,
    /// Of those, the share whose halves differed beyond their 95% interval before scaling.
    pub outside: Option<f64>,
    /// The median over its bands of the half-width of the runner-up's 95% interval, as a ratio
    /// less one (0.05: two channels closer than 5% stay tied); `None` without a runner-up.
    pub told_apart: Option<f64>,
    /// The median share of the time its samples' threads were ready to run that they waited for
    /// a core (`load::Waited`); `None` without run delays and CPU times.
    pub waited: Option<f64>,
    /// Whether that share is `stats::machine::BUSY_SHARE` or more: the host was busy through the
    /// run, and its figures and verdicts are of a busy host.
    pub busy: bool,
}

/// The share of a run's samples left out as disturbed at and above which the host counts as
/// noisy: calm 2-core VMs left out 2.0–2.8% of a default sweep's samples, the same VMs beside a
/// noisy neighbour or another tenant 8.7–15.5% (docs/methodology.md).
pub const NOISY_SHARE: f64 = 0.05;

/// The share of `file`'s samples (`ok` or left out) left out of every figure as disturbed; 0
/// without samples.
pub fn left_out_share(file: &ResultsFile) -> f64 {
    let (left, all) = (file.cells.values())
        .fold((0, 0), |(left, all), cell| (left + cell.disturbed.len(), all + cell.disturbed.len() + cell.ok.len()));
    if all == 0 { 0.0 } else { left as f64 / all as f64 }
}

impl HostNoise {
    /// The noise of `file`, with the `noise` it measured and the `bands` ranked in it.
    pub fn of(file: &ResultsFile, noise: &FileNoise, bands: &[Recommendation]) -> HostNoise {
        let mut host = HostNoise { machine: file.machine.clone(), ..HostNoise::default() };
        for cell in file.cells.values() {
            host.samples += cell.ok.len() + cell.disturbed.len();
            for why in &cell.disturbed_why {
                *host.left_out.entry(Why::words(*why)).or_default() += 1;
            }
        }
        for runtime in RuntimeKind::ALL {
            let runtime_bands = bands.iter().filter(|band| band.band.coord.runtime == runtime);
            let groups: Vec<Coord> = first_seen(runtime_bands.map(|band| band.band.noise_group()));
            if groups.is_empty() {
                continue;
            }
            let calibrations: Vec<_> =
                groups.iter().filter_map(|group| noise.calibration(group, Metric::Speed)).collect();
            let scales: Vec<f64> = calibrations.iter().map(|calibration| calibration.scale).collect();
            let pairs = calibrations.iter().map(|calibration| calibration.pairs).sum();
            let outside_pairs: f64 = calibrations.iter().map(|c| c.outside * c.pairs as f64).sum();
            let halves: Vec<f64> = (bands.iter().filter(|band| band.band.coord.runtime == runtime))
                .filter_map(|band| band.speed.entries.get(1)?.verdict)
                .map(|verdict| ((verdict.high - verdict.low) / 2.0).exp() - 1.0)
                .collect();
            let waited = file.waited.busy(runtime);
            host.runtimes.push(RuntimeNoise {
                runtime,
                waited: waited.map(|(share, _)| share),
                busy: waited.is_some_and(|(_, busy)| busy),
                scale: crate::stats::median(&scales),
                pairs,
                outside: (pairs > 0).then(|| outside_pairs / pairs as f64),
                told_apart: crate::stats::median(&halves),
            });
        }
        host
    }

    /// Samples left out of every figure.
    pub fn left_out_count(&self) -> usize {
        self.left_out.values().sum()
    }
}

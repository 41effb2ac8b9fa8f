//! Which design: one shared channel (cloned-send) against a channel per task (merged-recv),
//! each at its own capacity, band by band and channel by channel. Every verdict is the noise
//! model's, on the two designs' cells of one channel paired round by round: speed for flat-out
//! cells; frames overflowed, p99 and CPU per delivered message for paced ones.

use super::band::{self, Band, Grouped};
use super::load::{CellSamples, ResultsFile};
use super::noise::{self, FileNoise, Metric, VERDICT_CONFIDENCE};
use crate::run::workload::{Capacity, Merge, Mode};
use crate::stats::verdict::Verdict;

/// The two designs in one band.
#[derive(Debug, Clone, PartialEq)]
pub struct Designs {
    /// cloned-send's band: its place (the runtime, workers and setting both designs share, at
    /// the shared channel's capacity), size and task counts.
    pub shared: Band,
    /// merged-recv's capacity: each task's channel's.
    pub own: Capacity,
    /// Per channel measured in both, each metric's verdict on merged-recv against cloned-send
    /// (above 1, or above 0 points: merged-recv costs more).
    pub channels: Vec<(String, Vec<(Metric, Verdict)>)>,
}

/// The bands of `file` where both designs were measured: cloned-send at each of its capacities
/// against merged-recv at each per-task capacity, or at the same shared capacity.
pub fn designs(file: &ResultsFile, noise: &FileNoise) -> Vec<Designs> {
    let groups = band::groups(file, |_| true);
    let mut out = Vec::new();
    for shared in groups.iter().filter(|group| group.key.mode == Mode::ClonedSend) {
        let pairs = |own: &&Grouped| {
            let (a, b) = (&shared.key, &own.key);
            own.key.mode == Mode::MergedRecv
                && (a.runtime, a.workers, &a.setting) == (b.runtime, b.workers, &b.setting)
                && (b.capacity == a.capacity || matches!(b.capacity, Capacity::PerTask(_)))
        };
        for own in groups.iter().filter(pairs) {
            for band in Band::all(shared).filter(|band| own.bands.contains(&(band.size, band.tasks.clone()))) {
                let channels = compare_channels(noise, (shared, own), &band);
                if channels.is_empty() {
                    continue;
                }
                out.push(Designs { shared: band, own: own.key.capacity, channels });
            }
        }
    }
    out
}

/// Each channel of `shared` also in `own` with every cell of the band: its verdicts.
fn compare_channels<'a>(
    noise: &FileNoise,
    (shared, own): (&Grouped<'a>, &Grouped<'a>),
    band: &Band,
) -> Vec<(String, Vec<(Metric, Verdict)>)> {
    let (group, tasks) = (band.noise_group(), &band.tasks);
    let cells = |grouped: &Grouped<'a>, channel| -> Option<Vec<&'a CellSamples>> {
        tasks.iter().map(|&t| grouped.cells.get(&(channel, t)).copied()).collect()
    };
    let mut out = Vec::new();
    for &channel in &shared.channels {
        // merged-recv's default merge: the design as the sweep measures it by default.
        let merged = (channel.0, Some(Merge::default()));
        let (Some(a), Some(b)) = (cells(shared, channel), cells(own, merged)) else { continue };
        let paced = a.iter().all(|cell| !cell.paced.is_empty());
        let metrics: &[Metric] = if paced { &[Metric::Overflow, Metric::P99, Metric::Cpu] } else { &[Metric::Speed] };
        let verdicts: Vec<(Metric, Verdict)> = metrics
            .iter()
            .filter_map(|&metric| Some((metric, noise::verdict(&a, &b, metric, &group, noise, VERDICT_CONFIDENCE)?)))
            .collect();
        if !verdicts.is_empty() {
            out.push((channel.0.to_owned(), verdicts));
        }
    }
    out
}

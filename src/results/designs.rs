//! Which design: one shared channel (cloned-send) against a channel per task (merged-recv),
//! each at its own capacity, band by band and channel by channel. Every verdict is the noise
//! model's, on the two designs' cells of one channel paired round by round: speed for flat-out
//! cells; frames overflowed, p99 and CPU per delivered message for paced ones.

use super::band::{Band, Grouped};
use super::load::CellSamples;
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

/// The bands of a file's `groups` (`band::Groups::all`) where both designs were measured:
/// cloned-send at each of its capacities against merged-recv at each per-task capacity, or at the
/// same shared capacity.
pub fn designs(groups: &[Grouped], noise: &FileNoise) -> Vec<Designs> {
    let mut out = Vec::new();
    for shared in groups.iter().filter(|group| group.key.mode == Mode::ClonedSend) {
        let pairs = |own: &&Grouped| {
            let (a, b) = (&shared.key, &own.key);
            b.mode == Mode::MergedRecv
                && a.design_pair() == b.design_pair()
                && (b.capacity == a.capacity || matches!(b.capacity, Capacity::PerTask(_)))
        };
        for own in groups.iter().filter(pairs) {
            let both =
                |band: &&Band| own.bands.iter().any(|other| (other.size, &other.tasks) == (band.size, &band.tasks));
            for band in shared.bands.iter().filter(both) {
                let channels = compare_channels(noise, (shared, own), band);
                if channels.is_empty() {
                    continue;
                }
                out.push(Designs { shared: band.clone(), own: own.key.capacity, channels });
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
        tasks.iter().map(|&t| grouped.cells.get(&(channel, t)).map(|cell| cell.samples)).collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::band::Groups;
    use crate::results::coord::Coord;
    use crate::results::figures::Table;
    use crate::results::load::{CellKey, ResultsFile, hand_made};
    use crate::results::metadata::MachineId;
    use crate::results::pool;

    /// One run of kanal at 4 tasks in each design of `modes`: cloned-send near 100 ns/message,
    /// merged-recv near 150, five samples each in rounds 1 to 5.
    fn run(modes: &[Mode]) -> ResultsFile {
        let mut file = ResultsFile::default();
        for &mode in modes {
            let value = if mode == Mode::ClonedSend { 100.0 } else { 150.0 };
            let one = hand_made(&[("kanal", 4, &[value, value * 1.01, value * 0.99, value * 1.02, value * 0.98], 0)]);
            let key = one.order[0].clone();
            let cell = one.cells[&key].clone();
            let merge = (mode == Mode::MergedRecv).then(Merge::default);
            let key = CellKey { coord: Coord { mode, ..key.coord }, merge, ..key };
            file.order.push(key.clone());
            file.cells.insert(key, cell);
        }
        file
    }

    /// A 2-core machine (each run on 2 workers): two of them differ by their CPU alone.
    fn machine(cpu: &str) -> MachineId {
        MachineId { cores: 2, cpu: cpu.to_owned() }
    }

    /// The design pairs of runs of two machines pooled, each run with its designs.
    fn pairs(a: &[Mode], b: &[Mode]) -> Vec<Designs> {
        let parts = vec![(machine("a"), "a.csv".to_owned(), run(a)), (machine("b"), "b.csv".to_owned(), run(b))];
        let file = pool::union(parts).unwrap();
        let table = Table::of(&file);
        designs(&Groups::of(&file, &table).all, &FileNoise::of(&file))
    }

    #[test]
    fn design_pairs_never_cross_machines() {
        let both = [Mode::ClonedSend, Mode::MergedRecv];
        // Machine a measured both designs, machine b merged-recv alone: one pair, on a.
        let one = pairs(&both, &[Mode::MergedRecv]);
        assert_eq!(one.len(), 1, "{one:?}");
        assert_eq!(one[0].shared.coord.machine, machine("a"));
        let verdict = &one[0].channels[0];
        assert_eq!((verdict.0.as_str(), verdict.1[0].0), ("kanal", Metric::Speed));
        // Each machine measured one design: no pair.
        assert_eq!(pairs(&[Mode::ClonedSend], &[Mode::MergedRecv]), []);
        // Both measured both: a pair on each, each on its own machine.
        let each: Vec<MachineId> = pairs(&both, &both).into_iter().map(|pair| pair.shared.coord.machine).collect();
        assert_eq!(each, [machine("a"), machine("b")]);
    }
}

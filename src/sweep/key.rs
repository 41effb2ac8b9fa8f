//! A cell's key as the results name its rows ([`CellKey`]), built from the plan's cell: its
//! [`Coord`] and its own fields, as `CellKey::of` reads them back from the CSV.

use crate::plan::Cell;
use crate::results::coord::Coord;
use crate::results::load::CellKey;
use crate::results::metadata::MachineId;
use crate::results::setting::Setting;

/// The key the results give `cell`'s rows, as `CellKey::of` reads them back.
pub(super) fn key_of(cell: &Cell) -> CellKey {
    let workload = &cell.workload;
    let coord = Coord {
        runtime: cell.runtime,
        workers: cell.workers as u64,
        capacity: workload.capacity_axis(),
        mode: workload.mode,
        setting: Setting::of_workload(workload),
        machine: MachineId::default(),
    };
    let (tasks, channel) = (workload.tasks as u64, cell.channel.name.to_owned());
    CellKey { coord, tasks, channel, merge: cell.merge(), messages: workload.messages, candidate: false }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::output::csv;
    use crate::plan::Plan;
    use crate::run::allocs::AllocCount;
    use crate::run::latency::Latency;
    use crate::run::measure::Sample;
    use crate::run::verify::Status;

    #[test]
    fn a_cell_has_the_key_its_rows_load_with_latency_and_allocations_counted() {
        use clap::Parser;
        let sweeps: [&[&str]; 3] = [
            &["--tasks", "8", "--channels", "flume", "--pace", "20ms", "--latency", "--count-allocs"],
            &["--tasks", "4", "--modes", "cloned-send,merged-recv", "--task-capacity", "16", "--payload", "300..2000"],
            &["--tasks", "2", "--runtimes", "current-thread,multi-thread", "--workers", "2", "--capacity", "64"],
        ];
        let extra: [&[&str]; 3] = [&[], &["--seed", "7", "--send", "try", "--batch", "4"], &["--payload", "64"]];
        for (sweep, extra) in sweeps.into_iter().zip(extra) {
            let args = ["channel-bench"].iter().chain(sweep).chain(extra);
            let cli = crate::cli::Cli::try_parse_from(args).unwrap();
            for cell in Plan::with_extra(cli.sweep, &[]).unwrap().cells() {
                let key = key_of(&cell);
                let mut sample = Sample::failed(Duration::from_millis(20), Duration::from_millis(1), Status::Ok);
                let latency = Latency { p50: 900, p99: 4_000, p999: 9_000, max: 20_000 };
                sample.latency = cell.workload.latency.then_some(latency);
                sample.allocs = cell.workload.count_allocs.then_some(AllocCount { allocations: 3, bytes: 64 });
                assert_eq!(key, CellKey::of(&csv::record(&cell, 1, &sample)), "{}", cell.label());
            }
        }
        let cli = crate::cli::Cli::try_parse_from(["channel-bench"].iter().chain(sweeps[0])).unwrap();
        let key = key_of(&Plan::with_extra(cli.sweep, &[]).unwrap().cells().remove(0));
        assert!(key.coord.setting.latency && key.coord.setting.allocs, "{:?}", key.coord.setting);
    }
}

//! A cell's key as the results name its rows ([`CellKey`]), built from the plan's cell: its
//! [`Coord`] and its own fields, as `CellKey::of` reads them back from the CSV.

use std::time::Duration;

use crate::plan::Cell;
use crate::results::coord::Coord;
use crate::results::load::CellKey;
use crate::results::metadata::MachineId;
use crate::results::setting::Setting;
use crate::run::payload::DEFAULT_PAYLOAD_BYTES;
use crate::run::sink::Sink;
use crate::run::workload::Workload;

/// The key the results give `cell`'s rows, as `CellKey::of` reads them back.
pub(super) fn key_of(cell: &Cell) -> CellKey {
    let workload = &cell.workload;
    let coord = Coord {
        runtime: cell.runtime,
        workers: cell.workers as u64,
        capacity: workload.capacity_axis(),
        mode: workload.mode,
        setting: setting_of(workload),
        machine: MachineId::default(),
    };
    let (tasks, channel) = (workload.tasks as u64, cell.channel.name.to_owned());
    CellKey { coord, tasks, channel, merge: cell.merge(), messages: workload.messages }
}

/// The setting `Setting::of` reads from the rows of `workload`'s cells.
fn setting_of(workload: &Workload) -> Setting {
    let nanos = |duration: Duration| u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
    let payload = Some(workload.payload.to_string()).filter(|payload| *payload != DEFAULT_PAYLOAD_BYTES.to_string());
    Setting {
        seed: payload.as_ref().and(workload.payload.varies().then_some(workload.seed)),
        payload,
        pace_ns: workload.pace.map(|pace| nanos(pace.interval)),
        burst: workload.pace.map(|pace| pace.burst),
        phase: workload.pace.map(|pace| pace.phase),
        send: workload.send,
        sink: Some(workload.sink.kind()).filter(|kind| *kind != Sink::None.kind()).map(str::to_owned),
        latency: workload.latency,
        allocs: workload.count_allocs,
        batch: Some(workload.batch).filter(|&batch| batch > 1),
        work_per_batch_ns: workload.work_per_batch.map(nanos),
        record_bytes: workload.record.by_value(),
    }
}

#[cfg(test)]
mod tests {
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

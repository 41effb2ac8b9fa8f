//! The CSV writer: one [`Record`] per sample, appended and flushed as it is measured.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::error::usage;
use crate::output::files;
use crate::paths::{self, Existing};
use crate::plan::Cell;
use crate::results::schema::{Record, header};
use crate::results::sidecar;
use crate::run::measure::Sample;
use crate::run::payload::PayloadSize;
use crate::run::workload::Capacity;

/// The row for sample number `sample` of `cell`.
pub fn record(cell: &Cell, sample: usize, measured: &Sample) -> Record {
    let workload = &cell.workload;
    let messages = workload.messages as f64;
    let per_message = |count: u64| (count as f64 / messages * 1000.0).round() / 1000.0;
    let pace = workload.pace;
    Record {
        channel: cell.channel.name.to_owned(),
        mode: workload.mode,
        runtime: cell.runtime,
        workers: cell.workers,
        tasks: workload.tasks,
        messages: workload.messages,
        capacity: workload.capacity,
        capacity_per_channel: workload.capacity_per_channel(),
        task_capacity: match workload.capacity_axis() {
            Capacity::PerTask(slots) => Some(slots as usize),
            Capacity::Shared(_) => None,
        },
        payload_bytes: match workload.payload {
            PayloadSize::Fixed(size) => size as u64,
            PayloadSize::Uniform { .. } => (measured.bytes as f64 / messages).round() as u64,
        },
        sample,
        elapsed_ns: saturating_nanos(measured.elapsed),
        ns_per_message: (measured.ns_per_message(workload.messages) * 1000.0).round() / 1000.0,
        cpu_ns: Some(saturating_nanos(measured.cpu)),
        status: (&measured.status).into(),
        merge: cell.merge(),
        payload: workload.payload.to_string(),
        seed: workload.payload.varies().then_some(workload.seed),
        bytes: measured.bytes,
        mb_per_s: (measured.mb_per_s() * 1000.0).round() / 1000.0,
        pace_ns: pace.map(|pace| saturating_nanos(pace.interval)),
        burst: pace.map(|pace| pace.burst),
        pace_actual_ns: measured.pace_actual.map(saturating_nanos),
        sink: workload.sink.kind().to_owned(),
        lat_p50_ns: measured.latency.map(|latency| latency.p50),
        lat_p99_ns: measured.latency.map(|latency| latency.p99),
        lat_p999_ns: measured.latency.map(|latency| latency.p999),
        lat_max_ns: measured.latency.map(|latency| latency.max),
        allocs_per_message: measured.allocs.map(|allocs| per_message(allocs.allocations)),
        alloc_bytes_per_message: measured.allocs.map(|allocs| per_message(allocs.bytes)),
        send: workload.send,
        batch: workload.batch,
        work_per_batch_ns: workload.work_per_batch.map(saturating_nanos),
        record_bytes: workload.record.by_value(),
        dropped: measured.dropped,
        delivered_fraction: ((messages - measured.dropped as f64) / messages * 10_000.0).round() / 10_000.0,
        phase: pace.map(|pace| pace.phase),
        involuntary_switches: measured.involuntary_switches,
        steal_ns: measured.steal.map(saturating_nanos),
        run_delay_ns: measured.run_delay.map(saturating_nanos),
        bound_ns: measured.bounded.map(|bounded| saturating_nanos(bounded.bound)),
        duration_ns: workload.schedule().map(saturating_nanos),
        delivered: Some(measured.delivered(workload.messages)),
        frames: measured.pacing.map(|pacing| pacing.frames),
        frames_overflowed: measured.pacing.map(|pacing| pacing.overflowed),
        lateness_max_ns: measured.pacing.map(|pacing| saturating_nanos(pacing.lateness_max)),
        lateness_mean_ns: measured.pacing.map(|pacing| saturating_nanos(pacing.lateness_mean)),
        pacer_behind: measured.pacing.map(|pacing| workload.pacer_behind(measured.elapsed, pacing.lateness_mean)),
        resident_start_bytes: measured.resident.map(|(start, _)| start),
        resident_growth_bytes: measured.resident.map(|(start, end)| end as i64 - start as i64),
        lat_histogram: measured.latency_histogram.clone(),
        machine_handoff_ns: measured
            .reading
            .and_then(|reading| reading.handoff_ns)
            .map(|ns| (ns * 10.0).round() / 10.0),
        machine_loop_ns: measured.reading.map(|reading| (reading.loop_ns * 1000.0).round() / 1000.0),
        ..Record::default()
    }
}

fn saturating_nanos(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

/// One CSV file written a row at a time, each row flushed as it is written.
pub struct Appended {
    path: PathBuf,
    writer: csv::Writer<File>,
}

impl Appended {
    /// Creates `path` (and its parent folders) and writes `header` at once, so that a run
    /// stopped before its first row leaves a valid file. Refuses to replace an existing file
    /// unless `overwrite`, and then truncates it in place; refuses anything but a regular file.
    /// A path the user must change is a usage error; a failing disk is not.
    pub fn create<I: IntoIterator<Item: AsRef<[u8]>>>(path: &Path, overwrite: bool, header: I) -> anyhow::Result<Self> {
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|error| {
                let problem = paths::is_path_problem(&error);
                let error =
                    anyhow::Error::new(error).context(format!("cannot create the folder of --out {}", path.display()));
                if problem { usage(format!("{error:#}")) } else { error }
            })?;
        }
        let file = files::open(path, if overwrite { Existing::Truncate } else { Existing::Refuse }, "--out")?;
        let writer = csv::WriterBuilder::new().has_headers(false).from_writer(file);
        let mut csv = Self { path: path.to_owned(), writer };
        csv.flushed(|writer| writer.write_record(header))?;
        Ok(csv)
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `row` and flushes it to the file.
    pub fn append(&mut self, row: &impl serde::Serialize) -> anyhow::Result<()> {
        self.flushed(|writer| writer.serialize(row))
    }

    /// Runs `write` on the writer and flushes it.
    fn flushed(&mut self, write: impl FnOnce(&mut csv::Writer<File>) -> csv::Result<()>) -> anyhow::Result<()> {
        let writer = &mut self.writer;
        write(writer)
            .and_then(|()| Ok(writer.flush()?))
            .with_context(|| format!("cannot write to {}", self.path.display()))
    }
}

/// The CSV file and its latency sidecar (`crate::results::sidecar`), one row appended and
/// flushed per sample, its histogram (with `--latency`) to the sidecar right after.
pub struct CsvWriter {
    csv: Appended,
    sidecar: Appended,
    rows: usize,
}

impl CsvWriter {
    /// Creates `path` and its sidecar as [`Appended::create`] does, with their headers.
    pub fn create(path: &Path, overwrite: bool) -> anyhow::Result<Self> {
        let csv = Appended::create(path, overwrite, header())?;
        let sidecar = Appended::create(&sidecar::path(path), overwrite, sidecar::HEADER)?;
        Ok(Self { csv, sidecar, rows: 0 })
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        self.csv.path()
    }

    /// Appends one row and flushes it to the file, then its histogram to the sidecar.
    pub fn append(&mut self, record: &Record) -> anyhow::Result<()> {
        self.csv.append(record)?;
        self.rows += 1;
        let Some(histogram) = &record.lat_histogram else { return Ok(()) };
        self.sidecar.append(&sidecar::Line { row: self.rows, lat_histogram: crate::run::latency::encode(histogram) })
    }
}

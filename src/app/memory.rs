//! `channel-bench memory`: each channel's heap at rest, at a burst's peak and kept after it
//! (`run::memory`), one cell at a time in this process, every row written as it is measured;
//! then the answer (`results::memory`) in the console and beside the CSV.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Instant, SystemTime};

use super::print_error;
use super::sweep::results_csv;
use crate::cli::{DEFAULT_CAPACITIES, MEMORY_RECORDS, MEMORY_TASKS, MemoryArgs};
use crate::error::usage;
use crate::output::console::print_line;
use crate::output::doc::Format;
use crate::output::format::thousands;
use crate::output::{files, memory as output};
use crate::plan::estimate::{available_memory, bytes_text};
use crate::plan::{named, no_duplicates};
use crate::registry::{self, ChannelEntry};
use crate::results::analysis::Analysis;
use crate::results::band::first_seen;
use crate::results::load::{CellKey, ResultsFile};
use crate::results::memory::{self, MemoryAnswer, MemoryRow};
use crate::results::schema::SampleStatus;
use crate::run::memory::{Footprint, MemoryCell};
use crate::run::verify::Status;
use crate::run::workload::{Capacity, Mode, RecordBytes};

/// What the largest cell may need, as a multiple of its slots' bytes: a queue that doubles as it
/// grows (flume's `VecDeque`) holds up to twice its messages, and the drain moves none.
const PEAK_FACTOR: u128 = 3;

/// Runs `memory` with `args` over the built-in channels and `extra`; `command_line` goes into
/// the Markdown and JSON. With `--sweep X.csv`, the sweep's channels and cells by default, the
/// rows to its memory sidecar `X.memory.csv` unless `--out`, and its answer per band: what each
/// pick keeps beside the channel that keeps least. Exit code 0, or 1 when a cell failed (a
/// refused cell is not a failure).
pub fn run(extra: &'static [ChannelEntry], args: &MemoryArgs, command_line: &[String]) -> anyhow::Result<ExitCode> {
    // A sweep's file is read, and refused, before anything is measured.
    let sweep = args.sweep.as_ref().map(|csv| super::read(csv).map(|file| (csv, file))).transpose()?;
    let channels = channels(args, extra, sweep.as_ref().map(|(_, file)| file))?;
    let cells = cells(args, sweep.as_ref().map(|(_, file)| file))?;
    let csv = match (&args.out, &sweep) {
        (Some(out), _) => out.clone(),
        (None, Some((sweep, _))) => memory::sidecar(sweep),
        (None, None) => results_csv("channel-bench-memory", SystemTime::now()),
    };
    let same = |a: &Path, b: &Path| a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
    if let Some((sweep, _)) = &sweep
        && output::files(&csv).members().iter().any(|member| same(member, sweep))
    {
        return Err(usage(format!("--out {} would write over the sweep's CSV: give another path", csv.display())));
    }
    // Refused before anything is measured.
    output::files(&csv).check(args.force)?;
    if args.dry_run {
        print_line("dry run: nothing measured, nothing written");
        print_line(&format!("cells: {} × {} channels, one at a time:", cells.len(), channels.len()));
        for cell in &cells {
            let slots = thousands(cell.slots() as f64);
            let (mode, tasks, record) = (cell.mode, cell.tasks, cell.record);
            print_line(&format!(
                "  {mode} tasks={tasks} capacity={} record-bytes={record} ({slots} slots)",
                cell.capacity
            ));
        }
        print_line(&format!("would write: {} and its .md and .json", csv.display()));
        return Ok(ExitCode::SUCCESS);
    }
    let started = Instant::now();
    print_error(&format!(
        "memory: {} cells × {} channels, one at a time; rows to {}",
        cells.len(),
        channels.len(),
        csv.display()
    ));
    let mut writer = output::create_csv(&csv, args.force)?;
    let mut rows = Vec::new();
    for cell in &cells {
        for channel in &channels {
            let footprint = measure(channel, cell);
            let row = MemoryRow::new(channel.name, channel.version(), cell, &footprint);
            writer.append(&row)?;
            rows.push(row);
        }
    }
    let answer = MemoryAnswer::of(&rows);
    print_line(&output::console(&answer));
    let command = command_line.join(" ");
    let (markdown, json) = (csv.with_extension("md"), csv.with_extension("json"));
    files::write(&markdown, output::markdown(&command, &rows, &answer).as_bytes(), args.force, "--out")?;
    files::write(&json, output::json(&command, &rows, &answer).as_bytes(), args.force, "--out")?;
    if let Some((sweep, file)) = sweep {
        beside_the_sweep(sweep, ResultsFile { memory: rows.clone(), ..file }, &csv);
    }
    print_line(&format!(
        "memory: {} ({} rows in {:.1} s), {}, {}",
        csv.display(),
        rows.len(),
        started.elapsed().as_secs_f64(),
        markdown.display(),
        json.display()
    ));
    let failed = rows.iter().filter(|row| matches!(row.status, SampleStatus::Failed(_))).count();
    if failed > 0 {
        print_error(&format!("memory: {failed} rows failed (their status says why); their figures are left out"));
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The sweep `csv`'s answer per band with the memory `file` now holds (written to `written`):
/// what each pick keeps beside the channel that keeps least, as `summary` will show it when
/// `written` is the sweep's memory sidecar.
fn beside_the_sweep(csv: &Path, file: ResultsFile, written: &Path) {
    let metadata = super::commands::metadata(csv);
    let analysis = Analysis::of(&csv.display().to_string(), &file, metadata.as_ref());
    match output::section_from(&super::file_name(written), &analysis) {
        Some(section) => print_line(section.render(Format::Text).trim_end()),
        None => print_line(&format!("no band of {} has a memory figure: no cell of it was measured ok", csv.display())),
    }
    if written != memory::sidecar(csv) {
        print_line(&format!(
            "note: `summary` and `report` of {} read its memory from {}, not from --out {}",
            csv.display(),
            memory::sidecar(csv).display(),
            written.display()
        ));
    }
}

/// The memory of a room of `participants` (`sfu --participants N`): each channel of `channels` in
/// both designs at each capacity and record, one row each, measured as `memory` measures them.
pub fn room(
    channels: &[&'static ChannelEntry],
    participants: usize,
    capacities: &[usize],
    records: &[crate::run::workload::RecordBytes],
) -> Vec<MemoryRow> {
    let mut rows = Vec::new();
    for &capacity in capacities {
        for &record in records {
            for channel in channels {
                for mode in Mode::ALL {
                    let cell = MemoryCell { mode, tasks: participants, capacity, record };
                    rows.push(MemoryRow::new(channel.name, channel.version(), &cell, &measure(channel, &cell)));
                }
            }
        }
    }
    rows
}

/// `cell` over `channel`, or a refused row when the channel cannot hold the cell's capacity
/// ([`ChannelEntry::refusal`], as a sweep refuses it).
fn measure(channel: &ChannelEntry, cell: &MemoryCell) -> Footprint {
    let workload = cell.workload();
    let refused = |reason| Footprint { status: Status::Refused(reason), ..Footprint::default() };
    let refusal = channel.refusal(workload.capacity_per_channel(), workload.senders_per_channel());
    refusal.map_or_else(|| (channel.memory)(cell), refused)
}

/// The channels of `--channels`, every one of them known; without it, those the sweep measured
/// that this binary knows (`sweep`), or all of them.
fn channels(
    args: &MemoryArgs,
    extra: &'static [ChannelEntry],
    sweep: Option<&ResultsFile>,
) -> anyhow::Result<Vec<&'static ChannelEntry>> {
    let known = || registry::known().chain(extra);
    let names = match (&args.channels, sweep) {
        (Some(names), _) => names.clone(),
        (None, Some(file)) => {
            let measured = first_seen(file.order.iter().map(|key| key.channel.as_str()));
            let (ours, unknown): (Vec<&str>, Vec<&str>) =
                measured.into_iter().partition(|name| known().any(|entry| entry.name == *name));
            if !unknown.is_empty() {
                print_error(&format!(
                    "memory: the sweep's {} not a channel of this binary: left out",
                    unknown.join(", ")
                ));
            }
            ours.into_iter().map(str::to_owned).collect()
        }
        (None, None) => return Ok(registry::CHANNELS.iter().chain(extra).collect()),
    };
    named(&names, extra)
}

/// Every cell of `args`, design by design, then tasks, capacity and record: with a sweep, its
/// cells' shapes that the flags given keep ([`shape`]); without, every combination of the flags
/// (their defaults where not given). A usage error when the largest would not fit in the memory
/// available.
fn cells(args: &MemoryArgs, sweep: Option<&ResultsFile>) -> anyhow::Result<Vec<MemoryCell>> {
    let modes = args.modes.clone();
    let tasks: Option<Vec<usize>> = args.tasks.clone().map(|items| items.into_iter().flat_map(|item| item.0).collect());
    let (capacities, records) = (args.capacity.clone(), args.record_bytes.clone());
    no_duplicates("--modes", modes.as_deref().unwrap_or_default())?;
    no_duplicates("--tasks", tasks.as_deref().unwrap_or_default())?;
    no_duplicates("--capacity", capacities.as_deref().unwrap_or_default())?;
    no_duplicates("--record-bytes", records.as_deref().unwrap_or_default())?;
    if let Some(&tasks) = tasks.iter().flatten().find(|&&tasks| tasks >= u32::MAX as usize) {
        return Err(usage(format!("--tasks {tasks} is more than a sender number holds: lower --tasks")));
    }
    fn kept<T: PartialEq>(values: &Option<Vec<T>>, value: T) -> bool {
        values.as_ref().is_none_or(|values| values.contains(&value))
    }
    let mut cells = Vec::new();
    if let Some(file) = sweep {
        let keeps = |cell: &MemoryCell| kept(&modes, cell.mode) && kept(&tasks, cell.tasks);
        let keeps = |cell: &MemoryCell| keeps(cell) && kept(&capacities, cell.capacity) && kept(&records, cell.record);
        cells = file.order.iter().filter_map(shape).filter(keeps).collect();
        cells.sort();
        cells.dedup();
        if cells.is_empty() {
            return Err(usage(
                "--sweep: none of the sweep's cells has the --modes, --tasks, --capacity and --record-bytes given: \
                 give values it measured, or leave those flags out",
            ));
        }
    } else {
        for mode in modes.unwrap_or_else(|| Mode::ALL.to_vec()) {
            for &tasks in tasks.as_deref().unwrap_or(&MEMORY_TASKS) {
                for &capacity in capacities.as_deref().unwrap_or(&DEFAULT_CAPACITIES) {
                    let records = records.as_deref().unwrap_or(&MEMORY_RECORDS).iter();
                    cells.extend(records.map(|&record| MemoryCell { mode, tasks, capacity, record }));
                }
            }
        }
    }
    let need = |cell: &MemoryCell| cell.slots() as u128 * cell.record.slot_bytes() as u128 * PEAK_FACTOR;
    if let (Some(largest), Some((available, source))) = (cells.iter().max_by_key(|cell| need(cell)), available_memory())
        && need(largest) > u128::from(available)
    {
        return Err(usage(format!(
            "the cell of --tasks {} --capacity {} --record-bytes {} ({}) may need {} of memory, more than the {} \
             available ({source}): lower --capacity, --tasks or --record-bytes",
            largest.tasks,
            largest.capacity,
            largest.record,
            largest.mode,
            bytes_text(need(largest)),
            bytes_text(u128::from(available))
        )));
    }
    Ok(cells)
}

/// The memory cell of the sweep cell `key`: its design, tasks, slots and kind of message
/// (`--task-capacity`'s slots per task as a shared capacity of as many per task); `None` for
/// a cell of a file without its capacity.
fn shape(key: &CellKey) -> Option<MemoryCell> {
    let tasks = usize::try_from(key.tasks).ok()?;
    let capacity = match key.coord.capacity {
        Capacity::Shared(0) => return None,
        Capacity::Shared(slots) => usize::try_from(slots).ok()?,
        Capacity::PerTask(slots) => usize::try_from(slots).ok()?.checked_mul(tasks)?,
    };
    let record = RecordBytes::ALL.into_iter().find(|record| record.by_value() == key.coord.setting.record_bytes)?;
    Some(MemoryCell { mode: key.coord.mode, tasks, capacity, record })
}

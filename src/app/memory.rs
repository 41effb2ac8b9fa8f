//! `channel-bench memory`: each channel's heap at rest, at a burst's peak and kept after it
//! (`run::memory`), one cell at a time in this process, every row written as it is measured;
//! then the answer (`results::memory`) in the console and beside the CSV.

use std::process::ExitCode;
use std::time::{Instant, SystemTime};

use super::print_error;
use super::sweep::results_csv;
use crate::cli::{DEFAULT_CAPACITIES, MEMORY_RECORDS, MEMORY_TASKS, MemoryArgs};
use crate::error::usage;
use crate::output::console::print_line;
use crate::output::format::thousands;
use crate::output::{files, memory as output};
use crate::plan::estimate::{available_memory, bytes_text};
use crate::registry::{self, ChannelEntry};
use crate::results::analysis::Analysis;
use crate::results::memory::{MemoryAnswer, MemoryRow, fastest};
use crate::run::memory::{Footprint, MemoryCell};
use crate::run::verify::Status;
use crate::run::workload::Mode;

/// What the largest cell may need, as a multiple of its slots' bytes: a queue that doubles as it
/// grows (flume's `VecDeque`) holds up to twice its messages, and the drain moves none.
const PEAK_FACTOR: u128 = 3;

/// Runs `memory` with `args` over the built-in channels and `extra`; `command_line` goes into
/// the Markdown and JSON. Exit code 0, or 1 when a cell failed (a refused cell is not a failure).
pub fn run(extra: &'static [ChannelEntry], args: &MemoryArgs, command_line: &[String]) -> anyhow::Result<ExitCode> {
    let channels = channels(args, extra)?;
    let cells = cells(args)?;
    // A sweep's file is read, and refused, before anything is measured.
    let fastest = match &args.sweep {
        Some(csv) => {
            let file = super::read(csv)?;
            let metadata = super::commands::metadata(csv);
            fastest(&Analysis::of(&csv.display().to_string(), &file, metadata.as_ref()).bands)
        }
        None => Vec::new(),
    };
    let csv = args.out.clone().unwrap_or_else(|| results_csv("channel-bench-memory", SystemTime::now()));
    // Refused before anything is measured.
    output::check(&csv, args.force)?;
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
    let mut writer = output::MemoryCsv::create(&csv, args.force)?;
    let mut rows = Vec::new();
    for cell in &cells {
        for channel in &channels {
            let footprint = measure(channel, cell);
            let row = MemoryRow::new(channel.name, channel.version(), cell, &footprint);
            writer.append(&row)?;
            rows.push(row);
        }
    }
    let answer = MemoryAnswer::of(&rows, &fastest);
    print_line(&output::console(&answer));
    let command = command_line.join(" ");
    let (markdown, json) = (csv.with_extension("md"), csv.with_extension("json"));
    files::write(&markdown, output::markdown(&command, &rows, &answer).as_bytes(), args.force, "--out")?;
    files::write(&json, output::json(&command, &rows, &answer).as_bytes(), args.force, "--out")?;
    print_line(&format!(
        "memory: {} ({} rows in {:.1} s), {}, {}",
        csv.display(),
        rows.len(),
        started.elapsed().as_secs_f64(),
        markdown.display(),
        json.display()
    ));
    let failed = rows.iter().filter(|row| !row.is_ok() && !Status::is_refusal(&row.status)).count();
    if failed > 0 {
        print_error(&format!("memory: {failed} rows failed (their status says why); their figures are left out"));
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
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

/// `cell` over `channel`, or a refused row when the channel cannot hold the cell's capacity.
fn measure(channel: &ChannelEntry, cell: &MemoryCell) -> Footprint {
    let workload = cell.workload();
    let (slots, senders) = (workload.capacity_per_channel(), workload.senders_per_channel());
    if !channel.supports(slots, senders) {
        let reason = format!(
            "{} needs {} slots for {senders} senders, more than {slots}",
            channel.name,
            senders * channel.slots_per_sender
        );
        let status = Status::Refused(reason);
        return Footprint { rest: 0, peak: 0, drained: 0, kept: 0, after_drop: 0, burst: 0, status };
    }
    (channel.memory)(cell)
}

/// The channels of `--channels`, every one of them known; all of them without it.
fn channels(args: &MemoryArgs, extra: &'static [ChannelEntry]) -> anyhow::Result<Vec<&'static ChannelEntry>> {
    let known = || registry::known().chain(extra);
    let Some(names) = &args.channels else { return Ok(registry::CHANNELS.iter().chain(extra).collect()) };
    once("--channels", names)?;
    (names.iter())
        .map(|name| {
            known().find(|entry| entry.name == name).ok_or_else(|| {
                let names: Vec<&str> = known().map(|entry| entry.name).collect();
                usage(format!("--channels: no channel named {name:?}; the channels are {}", names.join(", ")))
            })
        })
        .collect()
}

/// Every cell of `args`, design by design, then tasks, capacity and record; a usage error when
/// the largest would not fit in the memory available.
fn cells(args: &MemoryArgs) -> anyhow::Result<Vec<MemoryCell>> {
    let modes = args.modes.clone().unwrap_or_else(|| Mode::ALL.to_vec());
    let tasks: Vec<usize> = (args.tasks.clone())
        .map_or_else(|| MEMORY_TASKS.to_vec(), |items| items.into_iter().flat_map(|item| item.0).collect());
    let capacities = args.capacity.clone().unwrap_or_else(|| DEFAULT_CAPACITIES.to_vec());
    let records = args.record_bytes.clone().unwrap_or_else(|| MEMORY_RECORDS.to_vec());
    once("--modes", &modes)?;
    once("--tasks", &tasks)?;
    once("--capacity", &capacities)?;
    once("--record-bytes", &records)?;
    if let Some(&tasks) = tasks.iter().find(|&&tasks| tasks >= u32::MAX as usize) {
        return Err(usage(format!("--tasks {tasks} is more than a sender number holds: lower --tasks")));
    }
    let mut cells = Vec::new();
    for &mode in &modes {
        for &tasks in &tasks {
            for &capacity in &capacities {
                cells.extend(records.iter().map(|&record| MemoryCell { mode, tasks, capacity, record }));
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

/// A usage error when `flag` lists a value twice.
fn once<T: PartialEq + std::fmt::Display>(flag: &str, values: &[T]) -> anyhow::Result<()> {
    match values.iter().enumerate().find(|(at, value)| values[..*at].contains(value)) {
        Some((_, value)) => Err(usage(format!("{flag} lists {value} twice: give each value once"))),
        None => Ok(()),
    }
}

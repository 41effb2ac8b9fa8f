//! `channel-bench memory`'s files and text: the CSV ([`MemoryCsv`], one row appended and
//! flushed per channel and cell), the answer in the console and as Markdown, every row and the
//! answer as JSON; and the section of a sweep's answer that says, per band, what the pick keeps
//! beside the channel that keeps least ([`section`]). Formatting and writing only: the figures
//! are `results::memory`'s.

use std::path::Path;

use serde::Serialize;

use super::csv::Appended;
use super::doc::{Block, On, Section, Span, prose};
use super::export;
use super::files::OutputSet;
use super::format::{count, number, thousands};
use crate::results::analysis::Analysis;
use crate::results::memory::{self as memory, DesignMemory, Kept, MemoryAnswer, MemoryRow, Range};
use crate::results::order::first_seen;
use crate::results::recommend::Recommendation;
use crate::results::schema::columns;
use crate::run::workload::Mode;

/// The extensions of the files `memory` writes beside its CSV: the answer as Markdown and,
/// with every row, as JSON.
pub const MEMBERS: [&str; 3] = ["csv", "md", "json"];

/// The files of one `memory` run, named after its CSV.
pub fn files(csv: &Path) -> OutputSet {
    OutputSet::of(csv, &MEMBERS, "memory")
}

/// The memory CSV at `path` (a new file, or with `force` a regular file emptied in place) and
/// its folder, its header ([`MemoryRow`]'s fields) written at once.
pub fn create_csv(path: &Path, force: bool) -> anyhow::Result<Appended> {
    Appended::create(path, force, columns::<MemoryRow>())
}

/// `812 B`, `49.2 KiB`, `75.0 MiB`: bytes in the binary unit that keeps three figures readable.
pub fn bytes(value: f64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut scaled = value;
    let mut unit = 0;
    while scaled.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        scaled /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{} B", number(value.round())) } else { format!("{} {}", number(scaled), UNITS[unit]) }
}

/// A range of bytes: one figure when its ends agree, `low–high` otherwise.
fn range(range: Option<Range>, per: fn(f64) -> String) -> String {
    match range {
        None => "-".to_owned(),
        Some(Range { min, max }) if per(min) == per(max) => per(min),
        Some(Range { min, max }) => format!("{}–{}", per(min), per(max)),
    }
}

/// Bytes per slot, to one decimal below 100.
fn per_slot(value: f64) -> String {
    format!("{} B", number(value))
}

/// What each design is, in one phrase.
fn design_words(mode: Mode) -> &'static str {
    match mode {
        Mode::ClonedSend => "one channel, its sender cloned into every task",
        Mode::MergedRecv => "one channel per task",
    }
}

/// The answer's table of one design: a header row, then one row per channel.
fn table(design: &DesignMemory) -> Vec<Vec<String>> {
    let head = ["channel", "at rest", "peak", "kept", "at rest/slot", "peak/slot", "kept/slot", "cells ok"];
    let mut rows = vec![head.map(str::to_owned).to_vec()];
    for channel in &design.channels {
        let moments = [channel.rest, channel.peak, channel.kept];
        let held = moments.map(|moment| range(moment.map(|m| m.per_channel), bytes));
        let per_slot = moments.map(|moment| range(moment.map(|m| m.per_slot), per_slot));
        let ok = format!("{}/{}", channel.ok_cells, channel.cells);
        rows.push([channel.channel.clone()].into_iter().chain(held).chain(per_slot).chain([ok]).collect());
    }
    rows
}

/// The line that names the channel keeping least, and what it keeps.
fn least_line(design: &DesignMemory) -> String {
    let Some(least) = &design.least else {
        return "keeps least: none (no cell that every channel measured ok)".to_owned();
    };
    let kept = (design.channels.iter()).find(|channel| &channel.channel == least).and_then(|c| c.kept_in_common);
    format!(
        "keeps least: {least} ({} kept in all, over the cells every channel measured ok: {})",
        bytes(kept.unwrap_or_default() as f64),
        design.common_cells
    )
}

/// The answer as the console shows it: per design, each channel's bytes per channel instance
/// and per slot (the lowest–highest over its cells), then the channel that keeps least.
pub fn console(answer: &MemoryAnswer) -> String {
    let mut text = String::new();
    for design in &answer.designs {
        text +=
            &format!("\n{} ({}), bytes per channel instance and per slot:\n", design.mode, design_words(design.mode));
        text += &aligned(&table(design));
        text += &format!("{}\n", least_line(design));
    }
    text
}

/// The memory of a room (`sfu --participants N`): per capacity and record, each channel's heap
/// bytes in all at rest and kept after the burst, one design per column.
pub fn room(rows: &[MemoryRow]) -> String {
    let mut text = String::new();
    let group = |row: &MemoryRow| (row.tasks, row.capacity, row.record_bytes);
    for (participants, capacity, record) in first_seen(rows.iter().map(group)) {
        let rows: Vec<&MemoryRow> = rows.iter().filter(|row| group(row) == (participants, capacity, record)).collect();
        let slots = thousands(capacity as f64);
        let kind = record.by_value().map_or("shared".to_owned(), |bytes| format!("{bytes}-byte"));
        text += &format!(
            "\nMemory for {participants} participants ({slots} slots, {kind} messages; `channel-bench memory` for \
             more), heap bytes in all, at rest / kept after a burst:\n"
        );
        let header = Mode::ALL.map(|mode| {
            let channels = rows.iter().find(|row| row.mode == mode).map_or(0, |row| row.channels);
            format!("{mode} ({})", count(channels as u64, "channel", "channels"))
        });
        let mut table = vec![["channel".to_owned()].into_iter().chain(header).collect::<Vec<_>>()];
        for name in first_seen(rows.iter().map(|row| row.channel.as_str())) {
            let cell = |mode| match rows.iter().find(|row| row.channel == name && row.mode == mode) {
                Some(row) if row.is_ok() => {
                    format!("{} / {}", bytes(row.rest_bytes as f64), bytes(row.kept_bytes as f64))
                }
                Some(row) => row.status.text().to_owned(),
                None => "-".to_owned(),
            };
            table.push([name.to_owned()].into_iter().chain(Mode::ALL.map(cell)).collect());
        }
        text += &aligned(&table);
    }
    text
}

/// Per band of `analysis` (read from the CSV named `csv_name`), the heap its speed pick keeps
/// after a burst beside the channel that keeps least, from the memory sidecar beside the CSV:
/// on the console and the page. `None` without a memory figure in any band (no sidecar).
pub fn section(csv_name: &str, analysis: &Analysis) -> Option<Section> {
    let sidecar = memory::sidecar(Path::new(csv_name));
    let name = sidecar.file_name().map_or_else(|| sidecar.display().to_string(), |name| name.to_string_lossy().into());
    section_from(&name, analysis)
}

/// [`section`], its memory figures read from the memory CSV named `source`.
pub fn section_from(source: &str, analysis: &Analysis) -> Option<Section> {
    let line = |band: &Recommendation| {
        let b = &band.band;
        let notes = super::format::group_notes(b.workers(), b.named_capacity(), &b.coord.setting.to_string());
        let place = format!("{} {}{notes} {}: ", b.coord.runtime, b.coord.mode, super::summary::band_size(b));
        let mut line = vec![Span::Text(place)];
        match (&band.memory.pick, band.speed.first()) {
            (Some(pick), _) => line.extend(kept(pick, "the pick ", &b.tasks)),
            (None, Some(first)) => line.extend([
                Span::text("the pick "),
                super::summary::named(first),
                Span::text(" has no memory row measured ok at each task count"),
            ]),
            (None, None) => line.push(Span::text("no pick")),
        }
        match (&band.memory.least, &band.memory.pick) {
            (Some(least), Some(pick)) if least.channel == pick.channel => line.push(Span::text("; it keeps least")),
            (Some(least), _) => {
                line.push(Span::text("; least: "));
                line.extend(kept(least, "", &b.tasks));
            }
            (None, _) => {}
        }
        line
    };
    let bands = analysis.bands.iter().filter(|band| band.memory.pick.is_some() || band.memory.least.is_some());
    let lines: Vec<Vec<Span>> = bands.map(line).collect();
    let intro = format!(
        "From `{source}`: the heap bytes each band's pick keeps once idle after a burst (all the channels of a cell together: \
         one in cloned-send, one per task in merged-recv), and the channel of the band that keeps least over its task \
         counts (docs/methodology.md#the-memory-a-channel-keeps).",
    );
    (!lines.is_empty()).then(|| Section {
        id: "memory",
        on: On::Everywhere,
        heading: Some("memory kept after a burst".to_owned()),
        blocks: vec![Block::Para(prose(&intro)), Block::List(lines)],
    })
}

/// `PREFIX kanal keeps 6.25 KiB at 1 task, 50.0 KiB at 8 tasks (100 B a slot)`: what one channel
/// of a band keeps at each of its task counts `tasks`.
fn kept(kept: &Kept, prefix: &str, tasks: &[u64]) -> Vec<Span> {
    let at = kept.kept_bytes.iter().zip(tasks);
    let at: Vec<String> =
        at.map(|(kept, &tasks)| format!("{} at {}", bytes(*kept as f64), count(tasks, "task", "tasks"))).collect();
    let per_slot = range(Range::of(kept.kept_bytes_per_slot.iter().copied()), self::per_slot);
    vec![
        Span::text(prefix),
        Span::channel(kept.channel.to_string(), &kept.channel.name),
        Span::Text(format!(" keeps {} ({per_slot} a slot)", at.join(", "))),
    ]
}

/// `rows` as plain text, each column as wide as its widest cell, indented by two spaces.
fn aligned(rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|column| rows.iter().map(|row| row[column].chars().count()).max().unwrap_or(0))
        .collect();
    let line = |row: &Vec<String>| {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, &width)| format!("{cell:<width$}")).collect();
        format!("  {}\n", cells.join("  ").trim_end())
    };
    rows.iter().map(line).collect()
}

/// `rows` as a Markdown table, the first its header.
fn markdown_table(rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    let rule = line(&vec!["---".to_owned(); rows[0].len()]);
    line(&rows[0]) + &rule + &rows[1..].iter().map(|row| line(row)).collect::<String>()
}

/// The Markdown beside the CSV: the answer, then every row's figures per design and cell.
pub fn markdown(command: &str, rows: &[MemoryRow], answer: &MemoryAnswer) -> String {
    let mut text = format!(
        "# What each channel keeps in memory\n\n`{command}`\n\nHeap bytes allocated and not yet freed, counted by \
         the allocator; a range is the lowest and highest over the cells measured ok.\n"
    );
    for design in &answer.designs {
        text += &format!("\n## {} ({})\n\n", design.mode, design_words(design.mode));
        text += &markdown_table(&table(design));
        text += &format!("\n{}\n", least_line(design));
    }
    text += "\n## Every cell\n\nBytes of all the cell's channel instances together.\n\n";
    let head = "channel|mode|tasks|capacity|record|at rest|peak|drained|kept|after drop|status".split('|');
    let cells = rows.iter().map(|row| {
        let bytes = [row.rest_bytes, row.peak_bytes, row.drained_bytes, row.kept_bytes, row.after_drop_bytes];
        let (capacity, status) = (thousands(row.capacity as f64), row.status.text().to_owned());
        let place =
            [row.channel.clone(), row.mode.to_string(), row.tasks.to_string(), capacity, row.record_bytes.to_string()];
        place.into_iter().chain(bytes.map(|b| self::bytes(b as f64))).chain([status]).collect()
    });
    text += &markdown_table(&[vec![head.map(str::to_owned).collect()], cells.collect()].concat());
    text
}

/// The JSON beside the CSV: the command, every row and the answer.
pub fn json(command: &str, rows: &[MemoryRow], answer: &MemoryAnswer) -> String {
    #[derive(Serialize)]
    struct Document<'a> {
        command: &'a str,
        rows: &'a [MemoryRow],
        answer: &'a MemoryAnswer,
    }
    export::json(&Document { command, rows, answer })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_in_the_unit_that_keeps_three_figures() {
        assert_eq!(bytes(812.0), "812 B");
        assert_eq!(bytes(50_381.0), "49.2 KiB");
        assert_eq!(bytes(78_643_200.0), "75.0 MiB");
        assert_eq!(bytes(-2048.0), "-2.00 KiB");
    }

    #[test]
    fn a_room_states_each_designs_memory_at_rest_and_kept() {
        use crate::run::memory::{Footprint, MemoryCell};
        use crate::run::verify::Status;
        let row = |mode, rest, kept, status| {
            let cell = MemoryCell { mode, tasks: 300, capacity: 1024, record: Default::default() };
            let footprint = Footprint { rest, peak: rest, drained: kept, kept, after_drop: 0, burst: 1024, status };
            MemoryRow::new("kanal", "0.1.1".to_owned(), &cell, &footprint)
        };
        let text = room(&[
            row(Mode::ClonedSend, 49_152, 49_152, Status::Ok),
            row(Mode::MergedRecv, 0, 0, Status::Lost("1 of 4800 messages missing".to_owned())),
        ]);
        assert!(text.contains("Memory for 300 participants (1,024 slots, shared messages"), "{text}");
        assert!(text.contains("cloned-send (1 channel)") && text.contains("merged-recv (300 channels)"), "{text}");
        assert!(text.contains("kanal    48.0 KiB / 48.0 KiB") && text.contains("lost: 1 of 4800"), "{text}");
    }

    #[test]
    fn the_header_is_the_rows_fields() {
        let header = columns::<MemoryRow>();
        assert_eq!(header.first().map(String::as_str), Some("channel"));
        assert!(header.contains(&"kept_bytes".to_owned()) && header.last().map(String::as_str) == Some("status"));
    }

    #[test]
    fn the_members_are_named_after_the_csv_and_an_existing_one_refuses_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("m.csv");
        assert_eq!(files(&csv).members(), [csv.clone(), dir.path().join("m.md"), dir.path().join("m.json")]);
        files(&csv).check(false).unwrap();
        std::fs::write(dir.path().join("m.json"), "{}").unwrap();
        assert!(files(&csv).check(false).unwrap_err().to_string().contains("already exists"));
        files(&csv).check(true).unwrap();
        let md = files(&dir.path().join("m.md")).check(true).unwrap_err().to_string();
        assert!(md.contains("a name memory gives another of its files"), "--out named as the Markdown: {md}");
    }
}

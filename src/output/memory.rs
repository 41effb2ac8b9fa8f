//! `channel-bench memory`'s files and text: the CSV ([`MemoryCsv`], one row appended and
//! flushed per channel and cell), the answer in the console and as Markdown, every row and the
//! answer as JSON; and the section of a sweep's answer that says, per band, what the pick keeps
//! beside the channel that keeps least ([`section`]). Formatting and writing only: the figures
//! are `results::memory`'s.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;

use super::doc::{Block, On, Section, Span, prose};
use super::export;
use super::files;
use super::format::{number, thousands};
use crate::paths::Existing;
use crate::results::analysis::Analysis;
use crate::results::memory::{self as memory, DesignMemory, Kept, MemoryAnswer, MemoryRow, Range};
use crate::results::schema::SampleStatus;
use crate::run::workload::Mode;

/// The extensions of the files `memory` writes beside its CSV: the answer as Markdown and,
/// with every row, as JSON.
pub const MEMBERS: [&str; 3] = ["csv", "md", "json"];

/// The files of one `memory` run, the CSV first.
pub fn members(csv: &Path) -> Vec<PathBuf> {
    MEMBERS
        .iter()
        .map(|extension| if *extension == MEMBERS[0] { csv.to_owned() } else { csv.with_extension(extension) })
        .collect()
}

/// A usage error unless every member of `csv` may be written: `--out` not named as another
/// member, each new, or a regular file and `force`. Checked before anything is measured.
pub fn check(csv: &Path, force: bool) -> anyhow::Result<()> {
    let all = members(csv);
    if all[1..].contains(&csv.to_owned()) {
        return Err(crate::error::usage(format!(
            "--out {} ends in a name memory gives another of its files: give the CSV a .csv name",
            csv.display()
        )));
    }
    all.iter().try_for_each(|member| files::check_target(member, force, "--out"))
}

/// The CSV, its header written at once, each row appended and flushed as it is measured.
pub struct MemoryCsv {
    path: PathBuf,
    writer: csv::Writer<File>,
}

impl MemoryCsv {
    /// Creates `path` (a new file, or with `force` a regular file emptied in place) and its
    /// folder, and writes the header.
    pub fn create(path: &Path, force: bool) -> anyhow::Result<Self> {
        if let Some(parent) = path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create the folder of --out {}", path.display()))?;
        }
        let file = files::open(path, if force { Existing::Truncate } else { Existing::Refuse }, "--out")?;
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(file);
        writer.write_record(header()).and_then(|()| Ok(writer.flush()?)).with_context(|| write_error(path))?;
        Ok(Self { path: path.to_owned(), writer })
    }

    /// Appends `row` and flushes it to the file.
    pub fn append(&mut self, row: &MemoryRow) -> anyhow::Result<()> {
        let writer = &mut self.writer;
        writer.serialize(row).and_then(|()| Ok(writer.flush()?)).with_context(|| write_error(&self.path))
    }
}

fn write_error(path: &Path) -> String {
    format!("cannot write to {}", path.display())
}

/// The CSV's columns: [`MemoryRow`]'s fields, in order, as serde names them.
pub fn header() -> Vec<String> {
    let mut writer = csv::WriterBuilder::new().has_headers(true).from_writer(Vec::new());
    let row = MemoryRow {
        channel: String::new(),
        version: String::new(),
        mode: Mode::default(),
        tasks: 0,
        capacity: 0,
        capacity_per_channel: 0,
        channels: 0,
        record_bytes: Default::default(),
        slot_bytes: 0,
        rest_bytes: 0,
        peak_bytes: 0,
        drained_bytes: 0,
        kept_bytes: 0,
        after_drop_bytes: 0,
        status: SampleStatus::Ok,
    };
    writer.serialize(&row).expect("a plain row serializes");
    let text = String::from_utf8(writer.into_inner().expect("a Vec takes every byte")).expect("UTF-8");
    text.lines().next().unwrap_or_default().split(',').map(str::to_owned).collect()
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
    let mut rows = vec![head.iter().map(|&text| text.to_owned()).collect::<Vec<_>>()];
    for channel in &design.channels {
        let per_channel = |moment: Option<crate::results::memory::Moment>| range(moment.map(|m| m.per_channel), bytes);
        let slot = |moment: Option<crate::results::memory::Moment>| range(moment.map(|m| m.per_slot), per_slot);
        rows.push(vec![
            channel.channel.clone(),
            per_channel(channel.rest),
            per_channel(channel.peak),
            per_channel(channel.kept),
            slot(channel.rest),
            slot(channel.peak),
            slot(channel.kept),
            format!("{}/{}", channel.ok_cells, channel.cells),
        ]);
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
    let mut groups: Vec<(usize, usize, crate::run::workload::RecordBytes)> = Vec::new();
    for row in rows {
        let group = (row.tasks, row.capacity, row.record_bytes);
        if !groups.contains(&group) {
            groups.push(group);
        }
    }
    for (participants, capacity, record) in groups {
        let of_group =
            |row: &&MemoryRow| (row.tasks, row.capacity, row.record_bytes) == (participants, capacity, record);
        let rows: Vec<&MemoryRow> = rows.iter().filter(of_group).collect();
        text += &format!(
            "\nMemory for {participants} participants ({} slots, {} messages; `channel-bench memory` for more), \
             heap bytes in all, at rest / kept after a burst:\n",
            thousands(capacity as f64),
            match record.by_value() {
                Some(bytes) => format!("{bytes}-byte"),
                None => "shared".to_owned(),
            }
        );
        let mut table = vec![vec!["channel".to_owned()]];
        for mode in Mode::ALL {
            let channels = rows.iter().find(|row| row.mode == mode).map_or(0, |row| row.channels);
            table[0].push(format!("{mode} ({channels} channel{})", if channels == 1 { "" } else { "s" }));
        }
        let mut names: Vec<&str> = Vec::new();
        for row in &rows {
            if !names.contains(&row.channel.as_str()) {
                names.push(&row.channel);
            }
        }
        for name in names {
            let mut line = vec![name.to_owned()];
            for mode in Mode::ALL {
                line.push(match rows.iter().find(|row| row.channel == name && row.mode == mode) {
                    Some(row) if row.is_ok() => {
                        format!("{} / {}", bytes(row.rest_bytes as f64), bytes(row.kept_bytes as f64))
                    }
                    Some(row) => row.status.text().to_owned(),
                    None => "-".to_owned(),
                });
            }
            table.push(line);
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
    let lines: Vec<Vec<Span>> = (analysis.bands.iter())
        .filter(|band| band.memory.pick.is_some() || band.memory.least.is_some())
        .map(|band| {
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
        })
        .collect();
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
    let plural = |tasks: &u64| if *tasks == 1 { "" } else { "s" };
    let at = kept.kept_bytes.iter().zip(tasks);
    let at: Vec<String> =
        at.map(|(kept, tasks)| format!("{} at {tasks} task{}", bytes(*kept as f64), plural(tasks))).collect();
    let slots = kept.kept_bytes_per_slot.iter().copied();
    let per_slot = range(
        Some(Range { min: slots.clone().fold(f64::MAX, f64::min), max: slots.fold(0.0, f64::max) }),
        self::per_slot,
    );
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
    let mut text = String::new();
    for row in rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(cell, &width)| format!("{cell:<width$}")).collect();
        text += &format!("  {}\n", cells.join("  ").trim_end());
    }
    text
}

/// The Markdown beside the CSV: the answer, then every row's figures per design and cell.
pub fn markdown(command: &str, rows: &[MemoryRow], answer: &MemoryAnswer) -> String {
    let mut text = format!(
        "# What each channel keeps in memory\n\n`{command}`\n\nHeap bytes allocated and not yet freed, counted by \
         the allocator; a range is the lowest and highest over the cells measured ok.\n"
    );
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    for design in &answer.designs {
        text += &format!("\n## {} ({})\n\n", design.mode, design_words(design.mode));
        let table = table(design);
        text += &line(&table[0]);
        text += &line(&vec!["---".to_owned(); table[0].len()]);
        table[1..].iter().for_each(|row| text += &line(row));
        text += &format!("\n{}\n", least_line(design));
    }
    text += "\n## Every cell\n\nBytes of all the cell's channel instances together.\n\n";
    let head = [
        "channel",
        "mode",
        "tasks",
        "capacity",
        "record",
        "at rest",
        "peak",
        "drained",
        "kept",
        "after drop",
        "status",
    ];
    text += &line(&head.map(str::to_owned));
    text += &line(&vec!["---".to_owned(); head.len()]);
    for row in rows {
        text += &line(&[
            row.channel.clone(),
            row.mode.to_string(),
            row.tasks.to_string(),
            thousands(row.capacity as f64),
            row.record_bytes.to_string(),
            bytes(row.rest_bytes as f64),
            bytes(row.peak_bytes as f64),
            bytes(row.drained_bytes as f64),
            bytes(row.kept_bytes as f64),
            bytes(row.after_drop_bytes as f64),
            row.status.text().to_owned(),
        ]);
    }
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
        let header = header();
        assert_eq!(header.first().map(String::as_str), Some("channel"));
        assert!(header.contains(&"kept_bytes".to_owned()) && header.last().map(String::as_str) == Some("status"));
    }

    #[test]
    fn the_members_are_named_after_the_csv_and_an_existing_one_refuses_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("m.csv");
        assert_eq!(members(&csv), [csv.clone(), dir.path().join("m.md"), dir.path().join("m.json")]);
        check(&csv, false).unwrap();
        std::fs::write(dir.path().join("m.json"), "{}").unwrap();
        assert!(check(&csv, false).unwrap_err().to_string().contains("already exists"));
        check(&csv, true).unwrap();
        assert!(check(&dir.path().join("m.md"), true).is_err(), "--out named as the Markdown");
    }
}

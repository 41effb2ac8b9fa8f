//! The report: one self-contained HTML page per CSV (`X.html` beside `X.csv`) with the answer
//! (the document the summary prints), then the plots as inline SVG, every cell's figures, and
//! the machine and build. No script, stylesheet, font or image is fetched: it opens from disk anywhere.

use std::fmt::Write as _;

use super::doc::{Form, Format, HtmlColumn, Mark, Span, html_table, line};
use super::format::{self, escape, number};
use super::summary::{caveat_items, caveated_of};
use super::svg;
use crate::results::analysis::Analysis;
use crate::results::cells::{CellResult, CellsFile};
use crate::results::column::Column;
use crate::results::figures::Figures;
use crate::results::metadata::{MachineId, Metadata};

pub(crate) const STYLE: &str = "body{font-family:sans-serif;max-width:1320px;margin:1em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:.5em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;\
text-align:left;vertical-align:top}th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}\
tr.failed td{background:#fde8e8}.mark{color:#b00;font-weight:bold}.plots{display:flex;flex-wrap:wrap;gap:8px}\
.note{color:#555;font-size:13px}";

/// The whole page of the CSV named `csv_name` (or of several, pooled): its analysis, and the
/// machines it was measured on from the JSON beside each run (`machines`, one per machine).
pub fn page(csv_name: &str, analysis: &Analysis, machines: &[Metadata]) -> String {
    let name = escape(csv_name);
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>channel-bench: {name}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<h1>Which async channel for fan-in? <small>{name}</small></h1>\n"
    );
    if let [metadata] = machines {
        let cpu = escape(metadata.cpu_model.as_deref().unwrap_or("unknown CPU"));
        let (cores, os, started) = (metadata.cores, escape(&metadata.os), escape(&metadata.started_utc));
        let _ = writeln!(
            out,
            "<p class=\"note\">Measured on {cpu} ({cores} cores, {os}), started {started}. Figures from this machine \
             only: yours may differ with its cores and runtime.</p>"
        );
    } else if machines.len() > 1 {
        let each: Vec<String> = machines.iter().map(|m| escape(&MachineId::of(Some(m)).to_string())).collect();
        let (count, each) = (machines.len(), each.join("; "));
        let _ = writeln!(
            out,
            "<p class=\"note\">Measured on {count} machines: {each}. Each table and plot names its machine; where the \
             pick changes with the machine follows the tables.</p>"
        );
    }
    out.push_str(&super::document::of(csv_name, analysis, Form::Full).render(Format::Html));
    if !analysis.only_paced {
        plots(&mut out, &analysis.cells);
    }
    out.push_str(&super::paced::html_section(&analysis.cells, &analysis.paced));
    if !analysis.only_paced {
        cell_table(&mut out, &analysis.cells);
    }
    machine(&mut out, machines);
    out.push_str("</body>\n</html>\n");
    out
}

fn plots(out: &mut String, cells: &CellsFile) {
    let bounded = if cells.cells.iter().any(|cell| cell.bounded > 0) {
        " A × marks a bounded cell: its channel was so far behind its group's fastest that samples were stopped at a \
         bound, and its figure is over the messages taken by then."
    } else {
        ""
    };
    out.push_str(&format!(
        "<section id=\"plots\">\n<h2>ns/message against tasks</h2>\n<p class=\"note\">Lower is faster. A line joins \
         a channel's trimmed means; each dot is a sample, so a cell whose samples fall in two clusters shows both. Failed \
         samples are left out (see the table).{bounded}</p>\n<div class=\"plots\">\n",
    ));
    let several_capacities = cells.cells.iter().any(|cell| cell.capacity_label != cells.cells[0].capacity_label);
    let panels = svg::panels(&cells.cells, |cell| {
        let figures = cell.ns_per_message.as_ref()?;
        let band = figures.trimmed_mean_interval.map(|[low, high]| (low, high));
        Some(((cell.tasks, figures.trimmed_mean, figures.samples.as_slice()), band))
    });
    for (first, series) in panels {
        let several_workers = cells.cells.iter().any(|cell| {
            cell.machine == first.machine && cell.runtime == first.runtime && cell.workers != first.workers
        });
        let notes = format::group_notes(several_workers.then_some(first.workers), None, &first.setting);
        let capacity = if several_capacities { format!(" at {}", first.capacity_label) } else { String::new() };
        let machine = if first.machine.is_empty() { String::new() } else { format!(" on {}", first.machine) };
        let group = format!("{} {}{capacity}", first.runtime, first.mode);
        let title = if notes.is_empty() {
            svg::Title { group: group + &machine, notes: String::new() }
        } else {
            svg::Title { group, notes: format!("{}{machine}", notes.trim_start()) }
        };
        out.push_str(&svg::panel(&title, None, &series));
    }
    out.push_str("</div>\n</section>\n");
}

/// `low–high`.
fn range([low, high]: [f64; 2]) -> String {
    format!("{}–{}", number(low), number(high))
}

fn cell_table(out: &mut String, cells: &CellsFile) {
    out.push_str(
        "<section id=\"cells\">\n<h2>Every cell</h2>\n<p class=\"note\">ns/message of the <code>ok</code> samples \
         (every message accounted for and in order; under <code>--send try</code>, per delivered message, and a paced \
         cell's figure restates its schedule: its latency, drops and CPU are under latency under load): the trimmed mean (the mean without the highest and lowest fifth of the samples: \
         the headline figure, what the summary ranks), the range another run of the same command would likely put it \
         in (its 95% repeat interval: the samples' spread, both runs' sample counts and the machine's wander over the run), the median, the min–max, and the clusters when the samples form more than one; CPU \
         ns/message is the trimmed mean of <code>cpu_ns / messages</code>. A disturbed sample (a steal tick, a pacer \
         late, CPU or switches far above the cell's others, or measured while other cells around it were slow \
         too) is counted apart and left out of every figure.</p>\n",
    );
    let speed = |cell: &CellResult, figure: fn(&Figures) -> String| {
        cell.ns_per_message.as_ref().map_or_else(String::new, figure)
    };
    let mean: fn(&Figures) -> String = |figures| number(figures.trimmed_mean);
    let columns: [HtmlColumn<&CellResult>; 15] = [
        ("runtime", false, &|cell| cell.runtime.to_string()),
        ("workers", true, &|cell| cell.workers.to_string()),
        ("capacity", true, &|cell| escape(&cell.capacity_label)),
        ("mode", false, &|cell| cell.mode.to_string()),
        ("setting", false, &|cell| escape(&cell.setting)),
        ("tasks", true, &|cell| cell.tasks.to_string()),
        ("channel", false, &|cell| Span::channel(cell.label.as_str(), &cell.channel).render(Format::Html)),
        ("samples", true, &|cell| match (cell.disturbed.len(), cell.bounded) {
            (0, 0) => cell.ok.to_string(),
            (0, bounded) => format!("{} ({bounded} bounded)", cell.ok),
            (left_out, 0) => format!("{} (+{left_out} disturbed, left out)", cell.ok),
            (left_out, bounded) => format!("{} ({bounded} bounded; +{left_out} disturbed, left out)", cell.ok),
        }),
        ("trimmed mean", true, &|cell| speed(cell, mean)),
        ("another run", true, &|cell| speed(cell, |f| f.repeat_interval.map_or_else(String::new, range))),
        ("median", true, &|cell| speed(cell, |f| number(f.median))),
        ("min–max", true, &|cell| speed(cell, |f| range([f.min, f.max]))),
        ("clusters", false, &|cell| speed(cell, |f| format::found_clusters(&f.clusters))),
        ("CPU", true, &|cell| cell.figures[Column::CpuNsPerMessage].as_ref().map_or_else(String::new, mean)),
        ("failed", false, &|cell| {
            cell.first_failure.as_ref().map_or(String::new(), |first| format!("{}: {}", cell.failed, escape(first)))
        }),
    ];
    let failed = |cell: &&CellResult| if cell.failed > 0 { " class=\"failed\"" } else { "" };
    out.push_str(&html_table("", &columns, &cells.cells, failed));
    caveat_list(out, cells);
    out.push_str("</section>\n");
}

/// The known problems of every channel the cell table marks, under it: a channel marked in the
/// table but not ranked near the top of any band is in no list of the answer above it.
fn caveat_list(out: &mut String, cells: &CellsFile) {
    let names = caveated_of(cells.cells.iter().map(|cell| cell.channel.as_str()));
    let items: Vec<String> =
        caveat_items(names, Form::Full).iter().map(|item| format!("<li>{}</li>", line(item, Format::Html))).collect();
    if !items.is_empty() {
        let mark = Span::Channel(String::new(), Mark::KnownProblem).render(Format::Html);
        let _ = writeln!(out, "<p class=\"note\">{mark} Known problems of the crates marked in this table:</p>");
        let _ = writeln!(out, "<ul>\n{}\n</ul>", items.join("\n"));
    }
}

fn machine(out: &mut String, machines: &[Metadata]) {
    out.push_str("<section id=\"machine\">\n<h2>Machine and build</h2>\n");
    if machines.is_empty() {
        out.push_str("<p>No JSON beside the CSV: the machine and build are unknown.</p>\n");
    }
    for metadata in machines {
        if machines.len() > 1 {
            let _ = writeln!(out, "<h3>{}</h3>", escape(&MachineId::of(Some(metadata)).to_string()));
        }
        let crates: Vec<String> = metadata.crates.iter().map(|(name, version)| format!("{name} {version}")).collect();
        let rows = [
            ("CPU", metadata.cpu_model.clone().unwrap_or_default()),
            ("cores", metadata.cores.to_string()),
            ("OS", metadata.os.clone()),
            ("host", metadata.hostname.clone().unwrap_or_default()),
            ("compiler", metadata.rustc.clone()),
            ("channel crates", crates.join(", ")),
            ("git commit", metadata.git_commit.clone().unwrap_or_default()),
            ("command line", metadata.command_line.join(" ")),
            ("started (UTC)", metadata.started_utc.clone()),
        ];
        let rows: String =
            rows.map(|(name, value)| format!("<tr><th>{name}</th><td>{}</td></tr>\n", escape(&value))).concat();
        let _ = write!(out, "<table>\n{rows}</table>\n");
    }
    out.push_str("</section>\n");
}

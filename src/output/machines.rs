//! Several machines, one report (`results::machines`): the pick of every band side by side,
//! one column per machine and worker count, lettered A, B, …; the bands whose answer changes
//! between the columns; and each machine's description and full summary. As text for the
//! console and as one self-contained HTML page.

use std::fmt::Write as _;

use super::doc::{self, Format, Span};
use super::format::{self, escape};
use super::html::STYLE;
use super::pool::noise_line;
use super::summary;
use crate::results::machines::{Column, Machine, Row, SideBySide};
use crate::results::recommend::Recommendation;

/// A column's name: `A`, `B`, …, `Z`, then `27`, `28`, ….
fn letter(at: usize) -> String {
    u8::try_from(at)
        .ok()
        .filter(|at| *at < 26)
        .map_or_else(|| (at + 1).to_string(), |at| char::from(b'A' + at).to_string())
}

/// `vm: Intel(R) Xeon(R) Processor, 2 cores`, or `no machine description` without a JSON.
fn description(machine: &Machine) -> String {
    match &machine.metadata {
        Some(m) => format!(
            "{}: {}, {} cores",
            m.hostname.as_deref().unwrap_or("unknown host"),
            m.cpu_model.as_deref().unwrap_or("unknown CPU"),
            m.cores
        ),
        None => "no machine description (no JSON beside the CSV)".to_owned(),
    }
}

/// A column's label: `pool2-w1.csv — vm: Intel(R) Xeon(R) Processor, 2 cores; 1 worker`.
fn label(machines: &[Machine], column: Column) -> String {
    let machine = &machines[column.machine];
    let workers = match column.workers {
        Some(workers) => format::workers(workers),
        None => {
            let words: Vec<String> = machine.multi_thread_workers().into_iter().map(format::workers).collect();
            if words.is_empty() { "current-thread only".to_owned() } else { words.join(", ") }
        }
    };
    format!("{} — {}; multi-thread {workers}", machine.names.join(", "), description(machine))
}

/// Whether every column is one machine (the same description), so the columns differ only in
/// their worker counts.
fn one_machine(machines: &[Machine]) -> bool {
    machines.windows(2).all(|pair| pair[0].metadata.is_some() && description(&pair[0]) == description(&pair[1]))
}

/// `multi-thread cloned-send, small (1-8)`: the row's band, with its setting when it has one,
/// and the task counts of its first column that measured it.
fn row_name(row: &Row) -> String {
    let band = &row.first().band;
    let setting = format::group_notes(None, None, &band.setting);
    format!("{} {}{setting}, {}", band.runtime, band.mode, summary::band_size(band))
}

/// A column's pick in a row, in `format`: `kanal† 83.0 ≈ flume 90.1 (tied, 1.09×)`, or `not measured`.
fn pick(row: &Row, at: usize, format: Format) -> String {
    row.bands[at].map_or("not measured".to_owned(), |band| doc::line(&summary::pick_and_next(band).0, format))
}

/// The introduction shared by the text and the page.
fn about(machines: &[Machine]) -> String {
    let study = if one_machine(machines) {
        " These are runs of one machine that differ in --workers: the same code, a small scaling study."
    } else {
        ""
    };
    format!(
        "The pick per band on each machine: the fastest channel by trimmed mean ns/message (geometric mean over the \
         band's task counts), or the channels tied with it within that machine's noise (≈).{study}"
    )
}

/// The side-by-side answer as console text.
pub fn text(machines: &[Machine], side: &SideBySide) -> String {
    let mut out = format!("several machines side by side\n{}\n", about(machines));
    for (at, column) in side.columns.iter().enumerate() {
        let _ = writeln!(out, "  {}  {}", letter(at), label(machines, *column));
    }
    for row in &side.rows {
        let _ = writeln!(out, "\n{}{}", row_name(row), if row.changes() { "  (the answer changes)" } else { "" });
        for at in 0..side.columns.len() {
            let _ = writeln!(out, "  {}  {}", letter(at), pick(row, at, Format::Text));
        }
    }
    let _ = writeln!(out, "\n{}", changes_line(side));
    out + &changed(side, Format::Text)
}

/// `the answer changes between the columns in 2 of 6 bands:`, or that it changes in none.
fn changes_line(side: &SideBySide) -> String {
    let changed = side.rows.iter().filter(|row| row.changes()).count();
    match changed {
        0 => format!("the answer is the same in every column in all {} bands", side.rows.len()),
        _ => format!("the answer changes between the columns in {changed} of {} bands:", side.rows.len()),
    }
}

/// The bands whose answer changes as a list in `format`, each with every column's leaders by
/// name: `multi-thread cloned-send, small (1-8): A kanal†; B kanal† ≈ flume; C -`.
fn changed(side: &SideBySide, format: Format) -> String {
    let column = |band: Option<&Recommendation>| {
        let names: Vec<String> = band.map_or(Vec::new(), |band| {
            let leaders = band.speed.leaders().iter();
            leaders.map(|entry| Span::channel(entry.channel.clone(), &entry.channel).render(format)).collect()
        });
        if names.is_empty() { "-".to_owned() } else { names.join(" ≈ ") }
    };
    let item = |row: &Row| {
        let each: Vec<String> =
            (0..side.columns.len()).map(|at| format!("{} {}", letter(at), column(row.bands[at]))).collect();
        format!("{}: {}", Span::Text(row_name(row)).render(format), each.join("; "))
    };
    doc::list(side.rows.iter().filter(|row| row.changes()).map(item), format)
}

/// The whole page: the side-by-side table, the bands that change, and each machine.
pub fn page(machines: &[Machine], side: &SideBySide) -> String {
    let names: Vec<String> = machines.iter().map(|machine| machine.names.join(", ")).collect();
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>channel-bench: {}</title>\n\
         <style>{STYLE}tr.changes td{{background:#fff4d6}}</style>\n</head>\n<body>\n<h1>Which async channel for fan-in? \
         <small>several machines</small></h1>\n<section id=\"machines\">\n<h2>Side by side</h2>\n<p>{}</p>\n<table>\n\
         <tr><th>band</th>",
        escape(&names.join(" | ")),
        escape(&about(machines))
    );
    for (at, column) in side.columns.iter().enumerate() {
        let _ =
            write!(out, "<th>{} <span class=\"note\">{}</span></th>", letter(at), escape(&label(machines, *column)));
    }
    out.push_str("</tr>\n");
    for row in &side.rows {
        let class = if row.changes() { " class=\"changes\"" } else { "" };
        let _ = write!(out, "<tr{class}><td>{}</td>", escape(&row_name(row)));
        for at in 0..side.columns.len() {
            let _ = write!(out, "<td>{}</td>", pick(row, at, Format::Pre));
        }
        out.push_str("</tr>\n");
    }
    let _ = writeln!(out, "</table>\n<p>{}</p>\n<ul>", escape(&changes_line(side)));
    out.push_str(&changed(side, Format::Html));
    out.push_str("</ul>\n</section>\n");
    each_machine(&mut out, machines);
    out.push_str("</body>\n</html>\n");
    out
}

/// Each machine's description, runs, noise margins and full summary.
fn each_machine(out: &mut String, machines: &[Machine]) {
    out.push_str("<section id=\"each\">\n<h2>Each machine</h2>\n");
    for machine in machines {
        let analysis = &machine.analysis;
        let os = machine.metadata.as_ref().map_or(String::new(), |m| format!(", {}, started {}", m.os, m.started_utc));
        let _ = writeln!(
            out,
            "<h3>{}</h3>\n<p class=\"note\">{}{}. {}</p>\n<pre>{}</pre>",
            escape(&machine.names.join(", ")),
            escape(&description(machine)),
            escape(&os),
            escape(&noise_line(analysis.runs)),
            summary::console(&analysis.bands, &analysis.versions, Format::Pre).trim_end()
        );
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_lettered_then_numbered() {
        assert_eq!((letter(0), letter(25), letter(26)), ("A".to_owned(), "Z".to_owned(), "27".to_owned()));
    }
}

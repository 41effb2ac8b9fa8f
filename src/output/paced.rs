//! The answer for paced load as the console, the summary (.md and `--short`) and `compare`
//! show it: formatting only (`results::paced` computes). Every figure says its statistic: the
//! p99s are pooled over all delivered messages of a cell, the CPU is a trimmed mean over samples,
//! the memory a median.

use std::fmt::Write as _;

use super::format::{self, duration, escape, number};
use super::summary::tasks_text;
use super::svg::{self, Series};
use crate::results::cells::{CellResult, CellsFile, PacedResult};
use crate::results::paced::{PacedAgreement, PacedBand, PacedEntry, PacedRanking};

/// The heading of the answer, in every output.
pub const HEADING: &str = "latency under load";

/// What the answer ranks by and how channels tie, in one paragraph.
pub fn how_to_read() -> String {
    format!(
        "per runtime, mode, setting (pace, phase, send) and band of task counts, the lowest p99 latency pooled over \
         every delivered message of the cell's samples (p99.9 beside it), the lowest CPU per delivered message \
         (trimmed mean over samples) with the share of one core the load costs at the offered rate (tasks × burst ÷ \
         interval) at the band's largest task count, and the fewest frames overflowed (a frame with a message \
         dropped; the share of messages dropped beside it); each the geometric mean over the band's task counts, \
         shares their mean. Each other channel is compared with the first by the noise model: the \
         ratio (points, for frames overflowed) of their samples paired round by round, with its {}% interval; \
         channels whose interval holds no difference are tied with the first (≈ N others within X%). A channel \
         whose pacer fell behind its schedule in a sample is never ranked.",
        crate::results::noise::VERDICT_CONFIDENCE * 100.0
    )
}

/// `multi-thread cloned-send [paced 5 every 20ms, random phase, send try, latency]`.
pub fn group(band: &PacedBand) -> String {
    format!("{} {}{}", band.runtime, band.mode, format::group_notes(band.workers, &band.setting))
}

/// `small (1-8)`.
fn size(band: &PacedBand) -> String {
    format!("{} ({})", band.size.name(), tasks_text(&band.tasks))
}

/// `2.10 µs (p99.9 5.00 µs)`.
fn p99(entry: &PacedEntry) -> String {
    let p999 = entry.p999_ns.map_or(String::new(), |ns| format!(" (p99.9 {})", duration(ns)));
    entry.p99_ns.map_or(String::new(), |ns| format!("{}{p999}", duration(ns)))
}

/// `950 ns, 12.0% of a core at 25,000 msg/s`.
fn cpu(entry: &PacedEntry) -> String {
    let Some(ns) = entry.cpu_ns else { return String::new() };
    let share = entry.core_share.map_or(String::new(), |share| {
        format!(", {}% of a core at {} msg/s", number(share * 100.0), thousands(entry.offered_per_s))
    });
    format!("{}{share}", duration(ns))
}

/// `0.0% (drops 0.00%)`.
fn overflow(entry: &PacedEntry) -> String {
    format!("{}% (drops {}%)", number(entry.overflow_share * 100.0), number(entry.drop_share * 100.0))
}

/// `25,000`: a rate with thousands separated.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// The first of `ranking`, the channels tied with it collapsed (`≈ flume, within 12%`, `≈ 4
/// others within 40%`), then the next channel with its verdict: `kanal 2.10 µs ≈ 4 others
/// within 40%; next thingbuf 9.00 µs, 4.29× [2.10–8.70]`; `none ranked` when none is.
fn leaders(band: &PacedBand, ranking: &PacedRanking, show: fn(&PacedEntry) -> String, is_ratio: bool) -> String {
    if ranking.leaders == 0 {
        return "none ranked".to_owned();
    }
    let named = |at: usize| format!("{} {}", band.entries[at].channel_label(), show(&band.entries[at]));
    let mut text = named(ranking.order[0]);
    let tied: Vec<&crate::stats::verdict::Verdict> = ranking.verdicts[1..ranking.leaders].iter().flatten().collect();
    if let Some(widest) = tied.iter().max_by(|a, b| a.within().total_cmp(&b.within())) {
        let within = format::within(widest, is_ratio);
        match tied.len() {
            1 => {
                let _ = write!(text, " ≈ {}, {within}", band.entries[ranking.order[1]].channel_label());
            }
            n => {
                let _ = write!(text, " ≈ {n} others {within}");
            }
        }
    }
    match ranking.order.get(ranking.leaders) {
        Some(&next) => {
            let verdict = ranking.verdicts[ranking.leaders].as_ref();
            let how = verdict.map_or(String::new(), |v| {
                format!(", {}", if is_ratio { format::ratio(v) } else { format::points(v) })
            });
            let _ = write!(text, "; next {}{how}", named(next));
        }
        None if ranking.order.len() == 1 => text.push_str(" (the only one ranked)"),
        None => {}
    }
    text
}

/// The channels not ranked in `band`, with why: `pacer behind: x; failed or missing: y`.
fn not_ranked(band: &PacedBand) -> String {
    let mut parts = Vec::new();
    if !band.behind.is_empty() {
        parts.push(format!("pacer behind: {}", band.behind.join(", ")));
    }
    if !band.excluded.is_empty() {
        parts.push(format!("failed or missing: {}", band.excluded.join(", ")));
    }
    parts.join("; ")
}

/// The answer for the console: one block per group, one line per figure of each band.
pub fn text(bands: &[PacedBand]) -> String {
    let mut out = format!("{HEADING}: {}\n", how_to_read());
    let mut current = None;
    for band in bands {
        let heading = group(band);
        if current.as_ref() != Some(&heading) {
            let _ = write!(out, "\n{heading}\n");
            current = Some(heading);
        }
        let indent = " ".repeat(19);
        let _ = writeln!(out, "  {:<16} lowest p99 (pooled): {}", size(band), leaders(band, &band.p99, p99, true));
        let _ =
            writeln!(out, "{indent}lowest CPU/delivered msg (trimmed mean): {}", leaders(band, &band.cpu, cpu, true));
        let _ = writeln!(out, "{indent}fewest frames overflowed: {}", leaders(band, &band.overflow, overflow, false));
        let not_ranked = not_ranked(band);
        if !not_ranked.is_empty() {
            let _ = writeln!(out, "{indent}not ranked: {not_ranked}");
        }
    }
    out
}

/// The answer as a Markdown table, headed `### latency under load`, then how to read it.
pub fn markdown(bands: &[PacedBand]) -> String {
    let with_not_ranked = bands.iter().any(|band| !not_ranked(band).is_empty());
    let mut header = vec![
        "runtime, mode, setting",
        "tasks",
        "lowest p99, pooled (p99.9)",
        "lowest CPU per delivered msg, trimmed mean (core share)",
        "fewest frames overflowed (drops)",
    ];
    if with_not_ranked {
        header.push("not ranked");
    }
    let mut out = format!("### {HEADING}\n\n| {} |\n|{}\n", header.join(" | "), "---|".repeat(header.len()));
    for band in bands {
        let mut row = vec![
            group(band),
            size(band),
            leaders(band, &band.p99, p99, true),
            leaders(band, &band.cpu, cpu, true),
            leaders(band, &band.overflow, overflow, false),
        ];
        if with_not_ranked {
            row.push(not_ranked(band));
        }
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    let _ = writeln!(out, "\n{}", capitalized(&how_to_read()));
    out
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}

/// `(slower)`, `(faster)` or `(~)`: a paced verdict of `compare`, new against old.
fn verdict_word(verdict: Option<&crate::stats::verdict::Verdict>) -> &'static str {
    use crate::stats::verdict::Call;
    match verdict.map(|verdict| verdict.call) {
        Some(Call::Higher) => "(worse)",
        Some(Call::Lower) => "(better)",
        _ => "(~)",
    }
}

/// `compare`'s paced section: one line per paced cell in both runs, with the verdict on each
/// figure (`noise::change`), how many cells are worse, then how far the two runs agree (their
/// median and worst over the cells), which two runs of one build calibrate the paced drift with.
pub fn agreement(agreement: &PacedAgreement) -> String {
    if agreement.cells.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n{HEADING}, per paced cell (old → new): pooled p99, frames overflowed, CPU per delivered message (trimmed mean)\n"
    );
    for pair in &agreement.cells {
        let p99 =
            |cell: &crate::results::paced::PacedCell| cell.latency.map_or("-".to_owned(), |l| duration(l.p99 as f64));
        let cpu = |cell: &crate::results::paced::PacedCell| {
            cell.cpu_ns_per_delivered.map_or("-".to_owned(), |ns| format!("{} ns", number(ns)))
        };
        let [p99_verdict, cpu_verdict, overflow_verdict] = pair.verdicts.map(|verdict| verdict_word(verdict.as_ref()));
        let _ = writeln!(
            out,
            "  {}: p99 {} → {} {p99_verdict}, overflowed {}% → {}% {overflow_verdict}, CPU {} → {} {cpu_verdict}",
            pair.key.label(),
            p99(&pair.old),
            p99(&pair.new),
            number(pair.old.overflow_share * 100.0),
            number(pair.new.overflow_share * 100.0),
            cpu(&pair.old),
            cpu(&pair.new)
        );
    }
    let slower = agreement.cells.iter().filter(|pair| pair.slower()).count();
    let _ = writeln!(
        out,
        "paced cells worse beyond the noise (p99, CPU or frames overflowed): {slower} of {}",
        agreement.cells.len()
    );
    let cells = agreement.cells.len();
    let ratio = |spread: Option<crate::results::compare::Spread>| {
        spread.map_or("no cell with it in both".to_owned(), |s| {
            format!("median {:.2}×, worst {:.2}× ({} cells)", s.median, s.worst, s.cells)
        })
    };
    let _ = writeln!(out, "two runs' pooled p99, larger over smaller: {}", ratio(agreement.p99));
    let points = agreement.overflow_points.map_or(String::new(), |(median, worst)| {
        format!("median {} points, worst {} points ({cells} cells)", number(median), number(worst))
    });
    let _ = writeln!(out, "two runs' frames overflowed, difference: {points}");
    let _ = writeln!(out, "two runs' CPU per delivered message, larger over smaller: {}", ratio(agreement.cpu));
    let [p99, cpu, overflow] = agreement.contradicted;
    let _ = writeln!(
        out,
        "bands whose leaders share no channel, of {}: {p99} on p99, {cpu} on CPU, {overflow} on frames overflowed",
        agreement.bands
    );
    out
}

/// Which output the answer joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The console's text.
    Text,
    /// Markdown (the summary's file and `--short`).
    Markdown,
}

/// The throughput answer and the latency answer together: the latency answer after it, or,
/// for a file with only paced cells (whose ns/message restates the schedule), first, with the
/// throughput answer after it under a line saying so. The throughput answer alone when `bands`
/// is empty.
pub fn beside(throughput: &str, bands: &[PacedBand], only_paced: bool, form: Form) -> String {
    if bands.is_empty() {
        return throughput.to_owned();
    }
    let latency = match form {
        Form::Text => text(bands),
        Form::Markdown => markdown(bands),
    };
    if !only_paced {
        return format!("{}\n\n{latency}", throughput.trim_end());
    }
    let heading = match form {
        Form::Text => "throughput",
        Form::Markdown => "### throughput",
    };
    format!(
        "{latency}\n{heading}: every cell is paced, so ns/message restates the schedule; read the latency answer \
         above first\n\n{throughput}"
    )
}

/// The report's "latency under load" section, when `cells` has paced cells: the answer, the
/// pooled p99 against the task count per channel (an SVG panel per group), and a table of every
/// paced cell's drops, CPU, core share and memory growth. Empty otherwise.
pub fn html_section(cells: &CellsFile, bands: &[PacedBand]) -> String {
    let paced: Vec<(&CellResult, &PacedResult)> =
        cells.cells.iter().filter_map(|cell| Some((cell, cell.paced.as_ref()?))).collect();
    if paced.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<section id=\"latency\">\n<h2>{HEADING}</h2>\n<p class=\"note\">{}</p>\n<pre>{}</pre>\n<div class=\"plots\">\n",
        escape(&capitalized(&how_to_read())),
        escape(text(bands).split_once('\n').map_or("", |(_, rest)| rest).trim())
    );
    let mut groups: Vec<(&CellResult, Vec<Series>)> = Vec::new();
    for &(cell, figures) in &paced {
        let Some(p99) = figures.pooled_p99_ns else { continue };
        let same = |other: &CellResult| {
            (other.runtime, other.workers, other.mode, &other.setting)
                == (cell.runtime, cell.workers, cell.mode, &cell.setting)
        };
        let at = match groups.iter().position(|(first, _)| same(first)) {
            Some(at) => at,
            None => {
                groups.push((cell, Vec::new()));
                groups.len() - 1
            }
        };
        let series = &mut groups[at].1;
        Series::add(series, cell, (cell.tasks, p99 as f64, &[][..]));
    }
    for (first, mut series) in groups {
        series.iter_mut().for_each(|line| line.points.sort_by_key(|point| point.0));
        let title = format!("{} {}{}", first.runtime, first.mode, format::group_notes(None, &first.setting));
        out.push_str(&svg::panel_of(&title, "pooled p99 latency, ns", "pooled p99", &series));
    }
    out.push_str(
        "</div>\n<table>\n<tr><th>runtime</th><th>mode</th><th>setting</th><th>tasks</th><th>channel</th>\
         <th>p99, pooled</th><th>p99.9, pooled</th><th>max</th><th>frames overflowed</th><th>dropped</th>\
         <th>CPU per delivered msg (trimmed mean)</th><th>share of a core</th><th>resident growth (median)</th>\
         <th>pacer</th></tr>\n",
    );
    let latency = |ns: Option<u64>| ns.map_or(String::new(), |ns| duration(ns as f64));
    for (cell, figures) in paced {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}%</td><td class=\"n\">{}%</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            cell.runtime,
            cell.mode,
            escape(&cell.setting),
            cell.tasks,
            escape(&cell.label),
            latency(figures.pooled_p99_ns),
            latency(figures.pooled_p999_ns),
            latency(figures.pooled_max_ns),
            number(figures.overflow_share * 100.0),
            number(figures.drop_share * 100.0),
            figures.cpu_ns_per_delivered.map_or(String::new(), duration),
            figures.core_share.map_or(String::new(), |share| format!("{}%", number(share * 100.0))),
            figures.resident_growth_bytes.map_or(String::new(), |bytes| format!("{} KiB", number(bytes / 1024.0))),
            if figures.pacer_behind { "behind: not ranked" } else { "kept up" },
        );
    }
    out.push_str("</table>\n</section>\n");
    out
}

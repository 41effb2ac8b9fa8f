//! The answer for paced load as the console, the summary (.md and `--short`) and `compare`
//! show it: formatting only (`results::paced` computes). Every figure says its statistic: the
//! p99s are pooled over all delivered messages of a cell, the CPU is a trimmed mean over samples,
//! the memory a median.

use std::fmt::Write as _;

use super::doc::{Block, Format, HtmlColumn, On, Section, Span, Table, capitalized, html_table};
use super::format::{self, duration, escape, number, percent, thousands};
use super::summary::{band_size, named};
use super::svg;
use crate::results::analysis::Analysis;
use crate::results::band::Contender;
use crate::results::cells::{CellResult, CellsFile};
use crate::results::load::CellKey;
use crate::results::paced::{PacedBand, PacedCell, PacedEntry};
use crate::results::recommend::{Entry, Ranking};

/// The heading of the answer, in every output.
pub const HEADING: &str = "latency under load";

/// `multi-thread cloned-send [paced 5 every 20ms, out of phase, send try, latency]`: the group,
/// its phase named either way ([`phased`]).
pub fn group(band: &PacedBand) -> String {
    let notes = format::group_notes(band.band.workers(), band.band.named_capacity(), &band.band.coord.setting.phased());
    format!("{} {}{notes}", band.band.coord.runtime, band.band.coord.mode)
}

/// `multi-thread cloned-send tasks=512 kanal [paced 5 every 20ms, out of phase, send try]`: a
/// cell's label with its phase named either way ([`phased`]).
pub fn cell_label(key: &CellKey) -> String {
    key.label_with(&key.coord.setting.phased())
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
        format!(", {} of a core at {} msg/s", percent(share), thousands(entry.offered_per_s))
    });
    format!("{}{share}", duration(ns))
}

/// `0.0% (drops 0.00%)`.
fn overflow(entry: &PacedEntry) -> String {
    format!("{} (drops {})", percent(entry.overflow_share), percent(entry.drop_share))
}

/// How a figure of a band's entries reads: in full for the first (`p99`, `cpu`, `overflow`),
/// brief for the next one beyond the noise.
type Show = fn(&PacedEntry) -> String;

/// The first of a ranking, the channels tied with it collapsed (`≈ flume, within 12%`, `≈ 4
/// others within 40%`), then the next channel with its verdict (`is_ratio`, else in points):
/// `kanal† 2.10 µs ≈ 4 others within 40%; next thingbuf† 9.00 µs, 4.29× [2.10–8.70]`; `none
/// ranked` when none is.
fn leaders(ranking: &Ranking<PacedEntry>, (full, brief): (Show, Show), is_ratio: bool) -> Vec<Span> {
    let Some(first) = ranking.first() else { return vec![Span::text("none ranked")] };
    let mut spans = vec![named(first), Span::Text(format!(" {}", full(&first.figures)))];
    spans.extend(super::summary::tied(ranking, is_ratio));
    match ranking.next() {
        Some(next) => {
            let how = next.verdict.map_or(String::new(), |v| {
                format!(", {}", if is_ratio { format::ratio(&v) } else { format::points(&v) })
            });
            spans.extend([Span::text("; next "), named(next), Span::Text(format!(" {}{how}", brief(&next.figures)))]);
        }
        None if ranking.entries.len() == 1 => spans.push(Span::text(" (the only one ranked)")),
        None => {}
    }
    spans
}

/// The channels not ranked in `band`, with why: `pacer behind: x; failed or missing: y`.
fn not_ranked(band: &PacedBand) -> String {
    let parts = [("pacer behind", &band.behind), ("failed or missing", &band.excluded)].into_iter();
    let said: Vec<String> = parts
        .filter(|(_, names)| !names.is_empty())
        .map(|(why, names)| format!("{why}: {}", names.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")))
        .collect();
    said.join("; ")
}

/// The answer's table: per band its lowest p99, lowest CPU and fewest frames overflowed, and
/// the channels not ranked when some band has them.
fn table(bands: &[PacedBand]) -> Table {
    let with_not_ranked = bands.iter().any(|band| !not_ranked(band).is_empty());
    let headers = [
        "runtime, mode, setting",
        "tasks",
        "lowest p99, pooled (p99.9)",
        "lowest CPU per delivered msg, trimmed mean (core share)",
        "fewest frames overflowed (drops)",
    ];
    let mut table = Table::new(1, headers.into_iter().chain(with_not_ranked.then_some("not ranked")));
    for band in bands {
        let mut cells = vec![vec![Span::Text(group(band))], vec![Span::Text(band_size(&band.band))]];
        cells.extend([
            leaders(&band.p99, (p99, |entry| entry.p99_ns.map_or(String::new(), duration)), true),
            leaders(&band.cpu, (cpu, |entry| entry.cpu_ns.map_or(String::new(), duration)), true),
            leaders(&band.overflow, (overflow, |entry| percent(entry.overflow_share)), false),
        ]);
        cells.extend(with_not_ranked.then(|| vec![Span::Text(not_ranked(band))]));
        table.rows.push((Some(format::section(&band.band)), cells));
    }
    table
}

/// The latency answer, `latency under load`: how to read it, then per band its lowest p99,
/// lowest CPU and fewest frames overflowed; `None` without paced bands.
pub fn section(analysis: &Analysis) -> Option<Section> {
    let bands = &analysis.paced;
    let how_to_read = format!(
        "Per runtime, mode, setting (pace, phase, send) and band of task counts, the lowest p99 latency pooled over \
         every delivered message of the cell's samples (p99.9 beside it), the lowest CPU per delivered message \
         (trimmed mean over samples) with the share of one core the load costs at the offered rate (tasks × burst ÷ \
         interval) at the band's largest task count, and the fewest frames overflowed (a frame with a message \
         dropped; the share of messages dropped beside it); each the geometric mean over the band's task counts, \
         shares their mean. Each other channel is compared with the first by the noise model: the \
         ratio (points, for frames overflowed) of their samples paired round by round, with its {}% interval; \
         channels whose interval holds no difference are tied with the first (≈ N others within X%). A channel \
         whose pacer fell behind its schedule in most samples of a cell is never ranked (a minority that fell behind is left out).",
        crate::results::noise::VERDICT_CONFIDENCE * 100.0
    );
    (!bands.is_empty()).then(|| Section {
        id: "latency",
        on: On::Page,
        heading: Some(HEADING.to_owned()),
        blocks: vec![Block::Para(vec![Span::Text(how_to_read)]), Block::Table(table(bands))],
    })
}

/// A channel's place in one of a band's rankings: `lowest` for the first, else its verdict
/// against the first (`≈ 1.05× [0.90–1.22]` when tied, `2.10× [1.60–2.70]` when not; points for
/// frames overflowed), `no verdict` without one, empty when it is not in the ranking.
fn standing(ranking: &Ranking<PacedEntry>, channel: Contender, is_ratio: bool) -> String {
    let Some(place) = ranking.entries.iter().position(|entry| entry.id() == channel) else { return String::new() };
    if place == 0 {
        return "lowest".to_owned();
    }
    let Some(verdict) = &ranking.entries[place].verdict else { return "no verdict".to_owned() };
    let figure = if is_ratio { format::ratio(verdict) } else { format::points(verdict) };
    if place < ranking.leaders().len() { format!("≈ {figure}") } else { figure }
}

/// One band as a table: a row per ranked channel (by p99, or CPU without latency), each figure
/// with its standing against the first ([`standing`]), † on a crate with a known problem; then
/// the channels not ranked.
fn band_table(band: &PacedBand) -> String {
    let mut out = format!("<h3>{} · {}</h3>\n", escape(&group(band)), escape(&band_size(&band.band)));
    let columns: [HtmlColumn<&Entry<PacedEntry>>; 8] = [
        ("channel", false, &|ranked| Span::channel(ranked.label(), &ranked.figures.channel).render(Format::Html)),
        ("p99, pooled", true, &|ranked| ranked.figures.p99_ns.map_or(String::new(), duration)),
        ("against the lowest", false, &|ranked| standing(&band.p99, ranked.id(), true)),
        ("CPU per delivered msg", true, &|ranked| ranked.figures.cpu_ns.map_or(String::new(), duration)),
        ("against the lowest", false, &|ranked| standing(&band.cpu, ranked.id(), true)),
        ("share of a core", true, &|ranked| ranked.figures.core_share.map_or(String::new(), percent)),
        ("frames overflowed (drops)", true, &|ranked| escape(&overflow(&ranked.figures))),
        ("against the fewest", false, &|ranked| standing(&band.overflow, ranked.id(), false)),
    ];
    let by = if band.p99.entries.is_empty() { &band.cpu } else { &band.p99 };
    out += &html_table(" class=\"band\"", &columns, &by.entries, |_| "");
    let not_ranked = not_ranked(band);
    if !not_ranked.is_empty() {
        let _ = writeln!(out, "<p class=\"note\">Not ranked: {}</p>", escape(&not_ranked));
    }
    out
}

/// The report's latency figures channel by channel, when `cells` has paced cells (the document
/// says how to read them): a table per band with every ranked channel ([`band_table`]), the pooled p99 against the task
/// count per channel (an SVG panel per group, µs on a log axis), and a table of every paced
/// cell's figures. Empty otherwise.
pub fn html_section(cells: &CellsFile, bands: &[PacedBand]) -> String {
    let paced: Vec<(&CellResult, &PacedCell)> =
        cells.cells.iter().filter_map(|cell| Some((cell, cell.paced.as_ref()?))).collect();
    if paced.is_empty() {
        return String::new();
    }
    let mut out = format!("<section id=\"latency-cells\">\n<h2>{}, channel by channel</h2>\n", capitalized(HEADING),);
    out.extend(bands.iter().map(band_table));
    out.push_str("<div class=\"plots\">\n");
    let p99 = |cell: &CellResult| Some(((cell.tasks, cell.paced.as_ref()?.latency?.p99 as f64 / 1e3, &[][..]), None));
    for (first, series) in svg::panels(paced.iter().map(|(cell, _)| *cell).filter(|cell| p99(cell).is_some()), p99) {
        let notes = format::group_notes(None, None, &first.phased_setting);
        let group = format!("{} {} at {}", first.runtime, first.mode, first.capacity_label);
        let title = svg::Title { group, notes: notes.trim_start().to_owned() };
        out.push_str(&svg::panel(&title, Some("pooled p99"), &series));
    }
    out.push_str("</div>\n");
    let latency = |ns: Option<u64>| ns.map_or(String::new(), |ns| duration(ns as f64));
    let columns: [HtmlColumn<(&CellResult, &PacedCell)>; 14] = [
        ("runtime", false, &|(cell, _)| cell.runtime.to_string()),
        ("mode", false, &|(cell, _)| cell.mode.to_string()),
        ("setting", false, &|(cell, _)| escape(&cell.phased_setting)),
        ("tasks", true, &|(cell, _)| cell.tasks.to_string()),
        ("channel", false, &|(cell, _)| Span::channel(cell.label.as_str(), &cell.channel).render(Format::Html)),
        ("p99, pooled", true, &|(_, f)| latency(f.latency.map(|l| l.p99))),
        ("p99.9, pooled", true, &|(_, f)| latency(f.latency.map(|l| l.p999))),
        ("max", true, &|(_, f)| latency(f.latency.map(|l| l.max))),
        ("frames overflowed", true, &|(_, f)| percent(f.overflow_share)),
        ("dropped", true, &|(_, f)| percent(f.drop_share)),
        ("CPU per delivered msg (trimmed mean)", true, &|(_, f)| {
            f.cpu_ns_per_delivered.map_or(String::new(), duration)
        }),
        ("share of a core", true, &|(_, f)| f.core_share.map_or(String::new(), percent)),
        ("resident growth (median)", true, &|(_, f)| {
            f.resident_growth_bytes.map_or(String::new(), |bytes| format!("{} KiB", number(bytes / 1024.0)))
        }),
        ("pacer", false, &|(_, f)| if f.pacer_behind { "behind: not ranked" } else { "kept up" }.to_owned()),
    ];
    out += &html_table("", &columns, paced, |_| "");
    out.push_str("</section>\n");
    out
}

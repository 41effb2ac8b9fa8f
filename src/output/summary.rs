//! The throughput answer's section of the document ([`section`]): which channel, per band, as
//! the full summary and the README's short answer table it, each table built once as spans
//! ([`super::doc`]). A ranked channel whose crate has caveats in the registry is marked with
//! [`MARK`]; the document lists the caveats after the answer.

use super::doc::{Block, Form, MARK, Mark, On, Section, Span, Table, prose};
use super::format::{self, duration, number};
use crate::registry::{self, Caveat};
use crate::results::analysis::Analysis;
use crate::results::band::Band;
use crate::results::band::first_seen;
use crate::results::careful::Careful;
use crate::results::load::channel_label;
use crate::results::recommend::{Entry, Excluded, Ranking, Recommendation};
use crate::results::versions::{Source, Versions};
use crate::stats::verdict::Call;

/// A ranked channel, marked when its crate has caveats.
pub(super) fn named<E>(entry: &Entry<E>) -> Span {
    Span::channel(entry.label(), &entry.channel)
}

/// The channels the summary of `bands` names (leaders and next of every ranking), without
/// ` via MERGE`, in order, repeats included.
pub fn ranked_names(bands: &[Recommendation]) -> impl Iterator<Item = &str> {
    let rankings = bands.iter().flat_map(|band| [&band.speed, &band.cpu, &band.p99]);
    rankings.flat_map(|ranking| ranking.leaders().iter().chain(ranking.next())).map(|e| e.channel.as_str())
}

/// The channels among `channels` marked [`Mark::Unread`] (no caveat, their crate's issue
/// tracker not read), each once, in the order first named.
pub fn unread_of<'a>(channels: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let unread = channels.into_iter().filter_map(registry::find);
    first_seen(unread.filter(|known| Mark::of(known.name, !known.caveats.is_empty()) == Mark::Unread).map(|k| k.name))
}

/// The list item that says what [`Mark::Unread`] means, naming `names` with it: `fibre‡, loole‡:
/// …`; `None` without any.
pub fn unread_item(names: &[&str]) -> Option<Vec<Span>> {
    let marked: Vec<Vec<Span>> = names.iter().map(|&name| vec![Span::Channel(name.to_owned(), Mark::Unread)]).collect();
    (!marked.is_empty()).then(|| {
        let mut item = vec![Span::Strong(marked.join(&Span::text(", ")))];
        item.push(Span::text(
            ": no known problem recorded, but none looked for: their crates' issue trackers have not been read",
        ));
        item
    })
}

/// The channels with caveats among `channels`, each once, in the order first named.
pub fn caveated_of<'a>(channels: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let caveated = channels.into_iter().filter_map(registry::find).filter(|known| !known.caveats.is_empty());
    first_seen(caveated.map(|known| known.name))
}

/// Every caveat of each channel of `names`, in their order, a list item each ([`caveat_item`]).
pub fn caveat_items(names: Vec<&'static str>, form: Form) -> Vec<Vec<Span>> {
    let items = |name| super::doc::caveats_of(name).iter().map(move |caveat| caveat_item(name, caveat, form));
    names.into_iter().flat_map(items).collect()
}

/// One caveat of channel `name` as a list item, the channel set apart: in full `kanal† (=0.1.1):
/// text <link>; evidence`; short, the text up to its first `;` and the link.
fn caveat_item(name: &str, caveat: &Caveat, form: Form) -> Vec<Span> {
    let mut item = vec![Span::Strong(vec![Span::Channel(name.to_owned(), Mark::KnownProblem)])];
    let text = match form {
        Form::Full => caveat.text,
        Form::Short => caveat.text.split(';').next().unwrap_or(caveat.text),
    };
    item.extend(prose(&format!(" ({}): {text} ", caveat.versions)));
    item.push(Span::Link(caveat.link_label(), caveat.link));
    item.extend((form == Form::Full).then(|| Span::Text(format!("; {}", caveat.evidence.label()))));
    item
}

/// `1-8`, or `64` for a single task count.
pub fn tasks_text(tasks: &[u64]) -> String {
    match (tasks.first(), tasks.last()) {
        (Some(first), Some(last)) if first != last => format!("{first}-{last}"),
        (Some(first), _) => first.to_string(),
        _ => String::new(),
    }
}

/// `small (1-8)`: a band and its task counts.
pub fn band_size(band: &Band) -> String {
    format!("{} ({})", band.size.name(), tasks_text(&band.tasks))
}

/// The cells that say which band a row is: runtime with its workers (`multi-thread (2 workers)`),
/// mode (with what sets its group apart: `cloned-send [latency]`) and tasks (`small (1-8)`).
fn band_cells(band: &Recommendation) -> Vec<Vec<Span>> {
    let b = &band.band;
    let notes = format::group_notes(None, None, &b.coord.setting.to_string());
    let runtime = format!("{} ({})", b.coord.runtime, format::workers(b.coord.workers));
    [runtime, format!("{}{notes}", b.coord.mode), band_size(b)].map(|cell| vec![Span::Text(cell)]).into()
}

/// How a ranking's leaders read, every figure with its verdict against the first:
/// `crossfire† 63.1, 1.21× faster than kanal† 76.4 [1.15–1.27]` when the runner-up is behind
/// beyond the noise; `kanal 65.2 ≈ flume 66.0, within 4%; next tokio-mpsc 130, 2.00× [1.90–2.10]`
/// when tied, the tied channels collapsed to `≈ 3 others within 9%` when more than one.
/// `strong` sets the first apart, `show` formats a value, `ahead` says what "lower" means.
/// A figure is marked as [`marked`] marks it.
fn leaders(ranking: &Ranking, show: fn(f64) -> String, ahead: &str, strong: bool) -> Vec<Span> {
    let figure = |entry: &Entry| marked(entry, show);
    let Some(first) = ranking.first() else { return Vec::new() };
    let name = if strong { Span::Strong(vec![named(first)]) } else { named(first) };
    let mut spans = vec![name, Span::Text(format!(" {}", figure(first)))];
    spans.extend(tied(ranking, true));
    match ranking.next() {
        Some(next) if ranking.is_tie() || next.verdict.is_none() => {
            spans.extend([Span::text("; next "), named(next)]);
            spans.push(Span::Text(format!(" {}, {}", figure(next), verdict_ratio(next))));
        }
        Some(next) => {
            let (ratio, low, high) = next.ratio().expect("the arm above takes a runner-up without a verdict");
            spans.extend([Span::Text(format!(", {ratio:.2}× {ahead} ")), named(next)]);
            spans.push(Span::Text(format!(" {} [{low:.2}–{high:.2}]", figure(next))));
        }
        None if ranking.entries.len() == 1 => spans.push(Span::text(" (the only one ranked)")),
        None => {}
    }
    spans
}

/// The channels tied with a ranking's first, as they follow its name: ` ≈ kanal†, within 4%`,
/// ` ≈ 3 others within 9%`; empty without a tie.
pub(super) fn tied<E>(ranking: &Ranking<E>, is_ratio: bool) -> Vec<Span> {
    let tied = ranking.leaders().get(1..).unwrap_or_default();
    let widest = tied.iter().filter_map(|entry| entry.verdict).max_by(|a, b| a.within().total_cmp(&b.within()));
    match (tied, widest) {
        ([one], Some(widest)) => {
            vec![Span::text(" ≈ "), named(one), Span::Text(format!(", {}", format::within(&widest, is_ratio)))]
        }
        (_, Some(widest)) => {
            vec![Span::Text(format!(" ≈ {} others {}", tied.len(), format::within(&widest, is_ratio)))]
        }
        _ => Vec::new(),
    }
}

/// An entry's verdict against the first as a ratio with its interval: `1.27× [1.20–1.35]`.
fn verdict_ratio(entry: &Entry) -> String {
    entry.verdict.as_ref().map_or_else(|| "no verdict (too few samples)".to_owned(), format::ratio)
}

/// An entry and how far behind the first it is: `flume 63.5, 1.27× [1.20–1.35] behind`, or
/// that the run did not resolve it; `kanal† 83.0 (tied, within 6%)` when tied with the first.
fn behind(entry: &Entry) -> Vec<Span> {
    let how = match verdict_ratio(entry) {
        _ if entry.tied_with_first => {
            let within = entry.verdict.map_or(String::new(), |verdict| format!(", {}", format::within(&verdict, true)));
            format!(" (tied{within})")
        }
        ratio if ratio == format::NOT_RESOLVED => format!(", how far behind {ratio}"),
        ratio => format!(", {ratio} behind"),
    };
    vec![named(entry), Span::Text(format!(" {}{how}", marked(entry, number)))]
}

/// An entry's figure, formatted by `show`, then `(mixed)` when a cell of the channel in the
/// band has samples in more than one cluster, `(bounded)` when one has a sample stopped at its
/// bound.
fn marked(entry: &Entry, show: fn(f64) -> String) -> String {
    let mixed = if entry.figures.mixed { MIXED } else { "" };
    let bounded = if entry.figures.bounded { BOUNDED } else { "" };
    format!("{}{mixed}{bounded}", show(entry.value))
}

fn excluded_text(excluded: &Excluded) -> String {
    let list = |tasks: &[u64]| tasks.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let mut reasons = Vec::new();
    if excluded.failed_samples > 0 {
        reasons.push(format!("{} failed sample(s) at tasks {}", excluded.failed_samples, list(&excluded.failed_at)));
    }
    if !excluded.refused_at.is_empty() {
        reasons.push(format!("refused at tasks {} (its capacity: see the CSV's status)", list(&excluded.refused_at)));
    }
    if !excluded.missing_at.is_empty() {
        reasons.push(format!("not measured at tasks {}", list(&excluded.missing_at)));
    }
    format!("{} ({})", channel_label(&excluded.channel, excluded.merge), reasons.join("; "))
}

/// What follows a figure whose channel has a mixed cell in the band.
const MIXED: &str = " (mixed)";

/// What follows a figure whose channel has a cell in the band with a sample stopped at its bound.
const BOUNDED: &str = " (bounded)";

/// The channels whose figure the table of `bands` shows bounded (each ranking's first and
/// next, the careful pick, the `keep` channels'), and what such a figure is, in one line; `None`
/// when none is shown.
fn bounded_note(bands: &[Recommendation], keep: &[String]) -> Option<String> {
    let mut channels = Vec::new();
    for band in bands {
        let rankings = [&band.speed, &band.cpu, &band.p99].into_iter();
        let careful = if let Careful::Behind { entry, .. } = &band.careful { Some(entry) } else { None };
        let kept = band.speed.entries.iter().filter(|entry| keep.contains(&entry.channel));
        let shown = rankings.flat_map(|r| r.first().into_iter().chain(r.next())).chain(careful).chain(kept);
        channels.extend(shown.filter(|entry| entry.figures.bounded).map(Entry::label));
    }
    channels.sort();
    channels.dedup();
    let (who, whose) = match channels.as_slice() {
        [one] => (format!("{one} was"), "its"),
        _ => (format!("{} were each", channels.join(", ")), "their"),
    };
    (!channels.is_empty()).then(|| {
        format!(
            "(bounded): {who} so far behind the fastest of {whose} group that samples were stopped at a bound; a \
             figure marked so is over the messages taken by then (docs/methodology.md, \"Bounded figures\")"
        )
    })
}

/// A column of the summary's table shown only where some band has something in it: whether it
/// is shown, its header, and its cell of a band.
type Optional<'a> = (bool, &'a str, &'a dyn Fn(&Recommendation) -> Vec<Span>);

/// The summary's table: per band its fastest (the pick), careful pick and lowest CPU, a column
/// for p99 only when some band has latency, the kept channels' verdicts, and the channels not
/// ranked with why when some band has them.
fn table(bands: &[Recommendation], keep: &[String]) -> Table {
    let with_p99 = bands.iter().any(|band| band.p99.first().is_some());
    let with_excluded = bands.iter().any(|band| !band.excluded.is_empty());
    let excluded = |band: &Recommendation| band.excluded.iter().map(excluded_text).collect::<Vec<_>>().join(", ");
    let optional: [Optional; 3] = [
        (!keep.is_empty(), YOURS, &|band| yours(band, keep)),
        (with_p99, "lowest p99 latency", &|band| leaders(&band.p99, duration, "lower than", false)),
        (with_excluded, "not ranked", &|band| vec![Span::Text(excluded(band))]),
    ];
    let optional: Vec<_> = optional.into_iter().filter(|(with, ..)| *with).collect();
    let careful_header = format!("{CAREFUL} (ns/message)");
    let headers = ["runtime", "mode", "tasks", PICK, &careful_header, "lowest CPU (ns/message)"];
    let mut table = Table::new(2, headers.into_iter().chain(optional.iter().map(|(_, header, _)| *header)));
    for band in bands {
        let mut cells = band_cells(band);
        cells.push(match band.speed.first() {
            Some(_) => leaders(&band.speed, number, "faster than", true),
            None => vec![Span::text("no channel without failures")],
        });
        cells.extend([careful(band), leaders(&band.cpu, number, "lower than", false)]);
        cells.extend(optional.iter().map(|(_, _, cell)| cell(band)));
        table.rows.push((Some(format::section(&band.band)), cells));
    }
    table
}

/// The throughput answer in full, on the page: what the table shows (from the CSV named
/// `csv_name`), the notes on its marks, the table (the pick, the careful pick, the lowest CPU,
/// p99 and the channels not ranked); for a file of paced cells
/// only, why ns/message is not ranked. `None` without a band.
pub fn section(csv_name: &str, analysis: &Analysis) -> Option<Section> {
    let (bands, keep) = (&analysis.bands, &analysis.keep);
    if analysis.only_paced {
        let blocks = vec![Block::Para(vec![Span::text(NOT_RANKED_BY_SPEED)])];
        return Some(Section { id: "speed", on: On::Page, heading: None, blocks });
    }
    if bands.is_empty() {
        return None;
    }
    let intro = format!(
        "From `{csv_name}`: per runtime, mode and band of task counts, the pick (the channel with the lowest trimmed mean \
         ns/message, the geometric mean over the band's task counts) and how far ahead of the next it is, the \
         fastest with no known problem ({MARK} marks a crate with one), and the one with the lowest CPU time per \
         message{}; channels within the noise of the first are tied (≈).",
        if bands.iter().any(|band| band.p99.first().is_some()) { " and the lowest p99 latency" } else { "" }
    );
    let mut blocks = vec![Block::Para(prose(&intro))];
    let entries = bands.iter().flat_map(|band| [&band.speed, &band.cpu, &band.p99]).flat_map(|r| &r.entries);
    if entries.clone().any(|entry| entry.figures.mixed) {
        blocks.push(Block::Note(vec![Span::text(
            "(mixed): some of the channel's cells have samples in separate clusters, shown in the sweep's cell lines",
        )]));
    }
    blocks.extend(bounded_note(bands, keep).map(|note| Block::Note(vec![Span::Text(note)])));
    blocks.push(Block::Table(table(bands, keep)));
    Some(Section { id: "answer", on: On::Page, heading: Some("in full".to_owned()), blocks })
}

/// Why a file of paced cells has no ns/message answer.
pub const NOT_RANKED_BY_SPEED: &str =
    "ns/message is not ranked: every cell is paced, so it restates the schedule (the cells are in the report)";

/// What the careful pick's column or line is headed.
pub const CAREFUL: &str = "fastest with no known problem";

/// What the pick's column is headed, in every table of the answer.
pub const PICK: &str = "pick (ns/message)";

/// The careful pick of `band` ([`Careful`]): `same` when the fastest has no known problem,
/// `flume 63.5, 1.57× behind`, `tokio-recv-many 70.0 (tied, 1.02×)` when it is tied with the
/// fastest, `none ranked` when every channel ranked has one; empty when none is ranked.
pub fn careful(band: &Recommendation) -> Vec<Span> {
    match &band.careful {
        _ if band.speed.first().is_none() => Vec::new(),
        Careful::Same => vec![Span::text("same")],
        Careful::Behind { entry, .. } => behind(entry),
        Careful::NoneRanked => vec![Span::text("none ranked")],
    }
}

/// One line: `crate versions, as the run's JSON records them: tokio 1.54.1, kanal 0.1.1`, with
/// a second part for those read from this build's Cargo.lock instead.
pub fn versions_line(versions: &Versions) -> String {
    let list = |source: Source| -> String {
        let found = versions.crates.iter().filter(|found| found.source == source);
        found.map(|found| format!("{} {}", found.crate_name, found.version)).collect::<Vec<_>>().join(", ")
    };
    let (run, build) = (list(Source::Run), list(Source::Build));
    let why = if versions.has_json { ", which the run's JSON lacks" } else { " (no JSON from the run beside the CSV)" };
    let run = (!run.is_empty()).then(|| format!("as the run's JSON records them: {run}"));
    let build = (!build.is_empty()).then(|| format!("from this build's Cargo.lock{why}: {build}"));
    format!("crate versions, {}", run.into_iter().chain(build).collect::<Vec<_>>().join("; "))
}

/// What the column of the channels the user follows (`--keep`) is headed.
pub const YOURS: &str = "yours (--keep)";

/// Each kept channel against `band`'s pick: `tokio-mpsc 784, 8.37× [7.03–9.97] behind`, `kanal†
/// 83.0 (tied, within 6%)`, `kanal† is the pick`, or `tokio-mpsc not ranked`.
pub fn yours(band: &Recommendation, keep: &[String]) -> Vec<Span> {
    let entries = &band.speed.entries;
    let against = |channel: &String| match entries.iter().position(|entry| entry.channel == *channel) {
        Some(0) => vec![Span::channel(channel, channel), Span::text(" is the pick")],
        Some(at) => behind(&entries[at]),
        None => vec![Span::channel(channel, channel), Span::text(" not ranked")],
    };
    keep.iter().map(against).collect::<Vec<_>>().join(&Span::text("; "))
}

/// The line a tokio user who follows `tokio-mpsc` should read where `tokio-recv-many`, the same
/// channel received with `recv_many`, leads its band (or is tied with the lead) and `tokio-mpsc`
/// is behind beyond the noise; `None` elsewhere.
pub fn recv_many(bands: &[Recommendation], keep: &[String]) -> Option<String> {
    if !keep.iter().any(|channel| channel == "tokio-mpsc") {
        return None;
    }
    let ahead = bands.iter().filter_map(|band| {
        let many = band.speed.leaders().iter().find(|entry| entry.channel == "tokio-recv-many")?;
        let mpsc = band.speed.entries.iter().find(|entry| entry.channel == "tokio-mpsc")?;
        let behind = mpsc.verdict.is_some_and(|verdict| verdict.call == Call::Higher);
        behind.then(|| mpsc.value / many.value)
    });
    let ahead: Vec<f64> = ahead.collect();
    let (most, leads, all) = (ahead.iter().copied().fold(0.0, f64::max), ahead.len(), bands.len());
    (!ahead.is_empty()).then(|| {
        format!(
            "tokio-recv-many is tokio's mpsc received with `recv_many` (a batch per wake-up): the same channel. \
             Where it leads (or ties the lead), tokio-mpsc is behind it beyond the noise, up to {most:.2}× ({leads} of \
             {all} bands here). Receiving with `recv_many` is the cheapest change a tokio user can make."
        )
    })
}

#[cfg(test)]
mod tests;

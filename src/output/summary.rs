//! The summary as text for the console, as Markdown for `X.md`, and the short answer for the
//! README: formatting only. A ranked channel whose crate has caveats in the registry is marked
//! with [`MARK`], and the caveats follow the rankings.

use std::fmt::Write as _;

use super::capacity::Lines;
use super::format::{self, duration, number};
use crate::registry::{self, CAVEATS_CHECKED, Caveat};
use crate::results::careful::Careful;
use crate::results::load::channel_label;
use crate::results::recommend::{Entry, Excluded, Ranking, Recommendation, TaskBand};
use crate::results::versions::{Source, Versions};
use crate::run::workload::{Capacity, Merge};

/// Follows the name of a ranked channel whose crate has caveats.
pub const MARK: &str = "†";

/// The caveats of the channel named `channel` (as in `--list-channels`): its registry
/// entry's, none for a channel the binary does not know.
pub fn caveats_of(channel: &str) -> &'static [Caveat] {
    registry::find(channel).map_or(&[], |entry| entry.caveats)
}

/// `kanal†` or `kanal via select-all†` for a channel with caveats, the label alone otherwise.
pub fn marked(channel: &str, merge: Option<Merge>) -> String {
    let label = channel_label(channel, merge);
    if caveats_of(channel).is_empty() { label } else { format!("{label}{MARK}") }
}

/// [`marked`] for a ranked channel.
pub(super) fn marked_entry<E>(entry: &Entry<E>) -> String {
    marked(&entry.channel, entry.merge)
}

/// `multi-thread` and `cloned-send [2 workers, latency]`: a band's runtime and its mode with
/// what sets its group apart.
pub fn group_text(band: &Recommendation) -> (String, String) {
    (
        band.band.runtime.to_string(),
        format!("{}{}", band.band.mode, format::group_notes(band.band.workers, None, &band.band.setting)),
    )
}

/// The channels with caveats that the summary of `bands` names (leaders and next of every
/// ranking), without ` via MERGE`, in the order they are first named.
pub fn caveated(bands: &[Recommendation]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for band in bands {
        for ranking in [&band.speed, &band.cpu, &band.p99] {
            let next = ranking.next();
            for entry in ranking.leaders().iter().chain(next) {
                let known = registry::find(&entry.channel).filter(|known| !known.caveats.is_empty());
                if let Some(known) = known.filter(|known| !names.contains(&known.name)) {
                    names.push(known.name);
                }
            }
        }
    }
    names
}

/// The caveats of the channels `names` (from [`caveated`]), one line each: for the console.
pub fn caveats_text(names: &[&str]) -> String {
    let mut out = String::new();
    for &name in names {
        for caveat in caveats_of(name) {
            let (versions, text, link, evidence) = (caveat.versions, caveat.text, caveat.link, caveat.evidence.label());
            let _ = writeln!(out, "  {name}{MARK} ({versions}): {text} <{link}>; {evidence}");
        }
    }
    if out.is_empty() {
        return out;
    }
    format!("\n{MARK} known problems (issue trackers searched {CAVEATS_CHECKED}):\n{out}")
}

/// The caveats of the channels `names` (from [`caveated`]), as a Markdown list.
pub fn caveats_markdown(names: &[&str]) -> String {
    let mut out = String::new();
    for &name in names {
        for caveat in caveats_of(name) {
            let (text, versions, label) = (caveat.text, caveat.versions, caveat.link_label());
            let (link, evidence) = (caveat.link, caveat.evidence.label());
            let _ = writeln!(out, "- {MARK} **{name}** ({versions}): {text} ([{label}]({link})); {evidence}");
        }
    }
    if out.is_empty() {
        return out;
    }
    format!("\n{MARK} Known problems of the marked crates (issue trackers searched {CAVEATS_CHECKED}):\n\n{out}")
}

/// `1-8`, or `64` for a single task count.
pub fn tasks_text(tasks: &[u64]) -> String {
    match (tasks.first(), tasks.last()) {
        (Some(first), Some(last)) if first != last => format!("{first}-{last}"),
        (Some(first), _) => first.to_string(),
        _ => String::new(),
    }
}

/// How a ranking's leaders read, every figure with its verdict against the first:
/// `crossfire† 63.1, 1.21× faster than kanal† 76.4 [1.15–1.27]` when the runner-up is behind
/// beyond the noise; `kanal 65.2 ≈ flume 66.0, within 4%; next tokio-mpsc 130, 2.00× [1.90–2.10]`
/// when tied, the tied channels collapsed to `≈ 3 others within 9%` when more than one.
/// `strong` marks the first (Markdown bold), `show` formats a value, `ahead` says what "lower" means.
/// A channel marked `(mixed)` has a cell in the band whose samples form more than one cluster.
fn leaders_text(ranking: &Ranking, show: fn(f64) -> String, ahead: &str, strong: bool) -> String {
    let figure = |entry: &Entry| format!("{}{}", show(entry.value), if entry.figures.mixed { MIXED } else { "" });
    let Some(first) = ranking.first() else { return String::new() };
    let name = marked_entry(first);
    let mut line = format!("{} {}", if strong { format!("**{name}**") } else { name }, figure(first));
    line.push_str(&tied_text(ranking, true));
    match ranking.next() {
        Some(next) if ranking.is_tie() || next.verdict.is_none() => {
            let _ = write!(line, "; next {} {}, {}", marked_entry(next), figure(next), verdict_ratio(next));
        }
        Some(next) => {
            let (ratio, low, high) = next.ratio().expect("the arm above takes a runner-up without a verdict");
            let _ = write!(line, ", {ratio:.2}× {ahead} {} {} [{low:.2}–{high:.2}]", marked_entry(next), figure(next));
        }
        None if ranking.entries.len() == 1 => line.push_str(" (the only one ranked)"),
        None => {}
    }
    line
}

/// The channels tied with a ranking's first, as they follow its name: ` ≈ kanal†, within 4%`,
/// ` ≈ 3 others within 9%`; empty without a tie.
pub(super) fn tied_text<E>(ranking: &Ranking<E>, is_ratio: bool) -> String {
    let tied = ranking.leaders().get(1..).unwrap_or_default();
    let widest = tied.iter().filter_map(|entry| entry.verdict).max_by(|a, b| a.within().total_cmp(&b.within()));
    match (tied, widest) {
        ([one], Some(widest)) => format!(" ≈ {}, {}", marked_entry(one), format::within(&widest, is_ratio)),
        (_, Some(widest)) => format!(" ≈ {} others {}", tied.len(), format::within(&widest, is_ratio)),
        _ => String::new(),
    }
}

/// An entry's verdict against the first as a ratio with its interval: `1.27× [1.20–1.35]`.
fn verdict_ratio(entry: &Entry) -> String {
    entry.verdict.as_ref().map_or_else(|| "no verdict (too few samples)".to_owned(), format::ratio)
}

/// How far behind the first an entry is: `1.27× [1.20–1.35] behind`, or that the run did not
/// resolve it.
fn behind(entry: &Entry) -> String {
    match verdict_ratio(entry) {
        ratio if ratio == format::NOT_RESOLVED => format!("how far behind {ratio}"),
        ratio => format!("{ratio} behind"),
    }
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

/// The p99 ranking's text, when the band has latency.
fn p99_text(band: &Recommendation) -> Option<String> {
    band.p99.first()?;
    Some(leaders_text(&band.p99, duration, "lower than", false))
}

/// What follows a figure whose channel has a mixed cell in the band.
const MIXED: &str = " (mixed)";

/// The summary for the console: per runtime and mode, one block per band, then the
/// `versions` it was measured with and the caveats.
pub fn text(bands: &[Recommendation], versions: &Versions) -> String {
    let mut out = String::from(
        "which channel: per runtime, mode and band of task counts, the lowest trimmed mean ns/message\n\
         (geometric mean over the band's task counts); channels within the noise of the first are tied\n",
    );
    if bands
        .iter()
        .any(|band| [&band.speed, &band.cpu, &band.p99].iter().any(|r| r.entries.iter().any(|e| e.figures.mixed)))
    {
        out.push_str(
            "(mixed): some of the channel's cells have samples in separate clusters, shown in the sweep's cell lines\n",
        );
    }
    let mut group = None;
    for band in bands {
        let (runtime, mode) = group_text(band);
        let mode = format!("{mode}{}", band.band.capacity.map_or(String::new(), |capacity| format!(" at {capacity}")));
        if group.as_ref() != Some(&(runtime.clone(), mode.clone())) {
            let _ = write!(out, "\n{runtime} {mode}\n");
            group = Some((runtime, mode));
        }
        let label = format!("{} ({})", band.band.size.name(), tasks_text(&band.band.tasks));
        let fastest = match band.speed.first() {
            Some(_) => leaders_text(&band.speed, number, "faster than", false),
            None => "no channel without failures to rank".to_owned(),
        };
        let _ = writeln!(out, "  {label:<16} {fastest}");
        let indent = " ".repeat(19);
        if band.speed.first().is_some() {
            let _ = writeln!(out, "{indent}{CAREFUL}: {}", careful_text(band));
        }
        if band.cpu.first().is_some() {
            let cpu = leaders_text(&band.cpu, number, "lower than", false);
            let _ = writeln!(out, "{indent}lowest CPU ns/msg: {cpu}");
        }
        if let Some(p99) = p99_text(band) {
            let _ = writeln!(out, "{indent}lowest p99: {p99}");
        }
        if !band.excluded.is_empty() {
            let excluded: Vec<String> = band.excluded.iter().map(excluded_text).collect();
            let _ = writeln!(out, "{indent}not ranked: {}", excluded.join(", "));
        }
    }
    out.push_str(&super::capacity::section(bands, "  ", Lines::Text));
    let _ = write!(out, "\n{}\n", versions_line(versions));
    out.push_str(&caveats_text(&caveated(bands)));
    out
}

/// The summary as Markdown, for `<name>.md` beside `<name>.csv` (`csv_name`, as the text
/// names it): one table, a column for p99 only when some band has latency, one for the
/// channels not ranked only when some band has them, then how to read it (`runs`: how many
/// runs the file pooled, 1 for one).
pub fn markdown(csv_name: &str, bands: &[Recommendation], runs: usize, versions: &Versions) -> String {
    let with_p99 = bands.iter().any(|band| band.p99.first().is_some());
    let with_excluded = bands.iter().any(|band| !band.excluded.is_empty());
    let x_large =
        if bands.iter().any(|band| band.band.size == TaskBand::XLarge) { ", x-large 1024 and more" } else { "" };
    let mut out = format!(
        "Which channel, from `{csv_name}` (written by `channel-bench summary`): for each runtime, mode and \
         band of task counts, the channel with the lowest trimmed mean ns/message and how far ahead of the next \
         it is, the fastest with no known problem ({MARK} marks a crate with one), and the one with the lowest CPU \
         time per message{}.\n\n",
        if with_p99 { " and the lowest p99 latency" } else { "" }
    );
    let careful_header = format!("{CAREFUL} (ns/message)");
    let mut header =
        vec!["runtime", "mode", "tasks", "fastest (ns/message)", &careful_header, "lowest CPU (ns/message)"];
    if with_p99 {
        header.push("lowest p99 latency");
    }
    if with_excluded {
        header.push("not ranked");
    }
    for (capacity, bands) in by_capacity(bands) {
        table_head(&mut out, capacity, &header);
        for band in bands {
            let (runtime, mode) = group_text(band);
            let mut row = vec![
                runtime,
                mode,
                format!("{} ({})", band.band.size.name(), tasks_text(&band.band.tasks)),
                match band.speed.first() {
                    Some(_) => leaders_text(&band.speed, number, "faster than", true),
                    None => "no channel without failures".to_owned(),
                },
                careful_text(band),
                leaders_text(&band.cpu, number, "lower than", false),
            ];
            if with_p99 {
                row.push(p99_text(band).unwrap_or_default());
            }
            if with_excluded {
                row.push(band.excluded.iter().map(excluded_text).collect::<Vec<_>>().join(", "));
            }
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
    }
    out.push_str(&super::capacity::section(bands, "- ", Lines::Markdown));
    let _ = writeln!(
        out,
        "\nEach figure is the geometric mean, over the band's task counts, of a channel's trimmed mean per task \
         count (the mean of its samples without the highest and lowest fifth); *(mixed)* marks a channel with a cell \
         in the band whose samples form separate clusters. Bands: small is 1–8 tasks, medium 16–64, large \
         128–512{x_large} (a count between them goes to the nearer on a log scale). Every other channel is compared \
         with the first by the ratio of their samples measured back to back, round by round, averaged over the \
         band's task counts: `1.21× [1.15–1.27]` is that ratio and its interval, and a channel whose interval holds \
         1 is *tied* with the first (`≈ flume, within 4%`: the interval's far end). A channel with a failed sample, \
         or missing at one of the band's task counts, is not ranked in that band. The fastest with no known problem \
         is the first channel of the ranking whose crate has no caveat covering its version; *same* when that is \
         the fastest itself.\n\n{}\n\n{}",
        super::pool::noise_line(runs),
        versions_line(versions)
    );
    out.push_str(&caveats_markdown(&caveated(bands)));
    out
}

/// What the careful pick's column or line is headed.
pub const CAREFUL: &str = "fastest with no known problem";

/// The careful pick of `band` ([`Careful`]): `same` when the fastest has no known problem,
/// `flume 63.5, 1.57× behind`, `tokio-recv-many 70.0 (tied, 1.02×)` when it is tied with the
/// fastest, `none ranked` when every channel ranked has one; empty when none is ranked.
pub fn careful_text(band: &Recommendation) -> String {
    match &band.careful() {
        _ if band.speed.first().is_none() => String::new(),
        Careful::Same => "same".to_owned(),
        Careful::Behind { entry, .. } if entry.tied_with_first => {
            let within = entry.verdict.map_or(String::new(), |verdict| format!(", {}", format::within(&verdict, true)));
            format!("{} {} (tied{within})", marked_entry(entry), number(entry.value))
        }
        Careful::Behind { entry, .. } => {
            format!("{} {}, {}", marked_entry(entry), number(entry.value), behind(entry))
        }
        Careful::NoneRanked => "none ranked".to_owned(),
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
    let mut parts = Vec::new();
    if !run.is_empty() {
        parts.push(format!("as the run's JSON records them: {run}"));
    }
    if !build.is_empty() {
        let why =
            if versions.has_json { ", which the run's JSON lacks" } else { " (no JSON from the run beside the CSV)" };
        parts.push(format!("from this build's Cargo.lock{why}: {build}"));
    }
    format!("crate versions, {}", parts.join("; "))
}

/// The pick of a band and what comes next, as the short answer words them: `kanal† 83.0`, or
/// `kanal† 83.0 ≈ crossfire†, within 6%`, or `kanal† 83.0 ≈ 3 others within 12%`; then
/// `thingbuf 163, 1.97× behind [1.80–2.10]`, or `none` when every other channel is tied or
/// there is no other.
pub fn pick_and_next(band: &Recommendation) -> (String, String) {
    let ranking = &band.speed;
    let Some(first) = ranking.first() else { return ("no channel without failures".to_owned(), String::new()) };
    let pick = format!("{} {}{}", marked_entry(first), number(first.value), tied_text(ranking, true));
    let next = match ranking.next() {
        Some(next) => format!("{} {}, {}", marked_entry(next), number(next.value), behind(next)),
        None if ranking.entries.len() == 1 => {
            format!("none: {} is the only one ranked", channel_label(&first.channel, first.merge))
        }
        None => "none".to_owned(),
    };
    (pick, next)
}

/// The channels not ranked in `band`, by label, comma-separated.
pub fn excluded_names(band: &Recommendation) -> String {
    let names: Vec<String> =
        band.excluded.iter().map(|excluded| channel_label(&excluded.channel, excluded.merge)).collect();
    names.join(", ")
}

/// The short answer, as Markdown for the README: per runtime, mode and band, the fastest channel
/// (or the channels tied with it), the next one beyond the noise and how far behind, the
/// channels left out for failures, then the caveats of every channel named.
pub fn short_markdown(csv_name: &str, bands: &[Recommendation], versions: &Versions) -> String {
    let mut out = format!(
        "From `{csv_name}`: per runtime, mode and band of task counts, the fastest channel by trimmed mean ns/message \
         (geometric mean over the band's task counts) and the channels tied with it (≈, within the far end of \
         their ratio's 95% interval), the next one beyond the noise with how far behind it is (the ratio of their \
         samples paired round by round, with its interval), and beside them the fastest channel with no known \
         problem (*same* when it is the fastest). {MARK} marks a crate with a known problem, listed below the \
         table.\n\n"
    );
    let with_excluded = bands.iter().any(|band| !band.excluded.is_empty());
    let mut header = vec!["runtime", "mode", "tasks", "pick (ns/message)", CAREFUL, "next, how far behind"];
    if with_excluded {
        header.push("not ranked (failures)");
    }
    for (capacity, bands) in by_capacity(bands) {
        table_head(&mut out, capacity, &header);
        for band in bands {
            let (pick, next) = pick_and_next(band);
            let tasks = format!("{} ({})", band.band.size.name(), tasks_text(&band.band.tasks));
            let (runtime, mode) = group_text(band);
            let mut row = vec![runtime, mode, tasks, pick, careful_text(band), next];
            if with_excluded {
                row.push(excluded_names(band));
            }
            let _ = writeln!(out, "| {} |", row.join(" | "));
        }
    }
    out.push_str(&super::capacity::section(bands, "- ", Lines::Changes));
    let _ = writeln!(out, "\n{}", versions_line(versions));
    out.push_str(&caveats_markdown(&caveated(bands)));
    out
}

/// `bands` split by capacity, in the order the capacities first appear.
fn by_capacity(bands: &[Recommendation]) -> Vec<(Option<Capacity>, Vec<&Recommendation>)> {
    let capacities = super::capacity::of(bands);
    capacities.into_iter().map(|at| (at, bands.iter().filter(|band| band.band.capacity == at).collect())).collect()
}

/// A table's header row, after a line naming its capacity when the file holds several.
fn table_head(out: &mut String, capacity: Option<Capacity>, header: &[&str]) {
    if let Some(capacity) = capacity {
        let _ = writeln!(out, "\n**At {capacity}:**\n");
    }
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
}

#[cfg(test)]
mod tests;

//! The report: one self-contained HTML page per CSV (`X.html` beside `X.csv`) with the short
//! answer and its caveats, the plots as inline SVG, every cell's figures, and the machine and
//! build. No script, stylesheet, font or image is fetched: it opens from disk anywhere.

use std::fmt::Write as _;

use super::summary::{self, MARK};
use super::svg::{self, Series};
use crate::registry::CAVEATS_CHECKED;
use crate::results::load::{CellKey, ResultsFile};
use crate::results::metadata::Metadata;
use crate::results::recommend::Recommendation;
use crate::stats;

/// `text` with `&`, `<`, `>` and `"` escaped, for element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1320px;margin:1em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:.5em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;\
text-align:left;vertical-align:top}th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}\
tr.failed td{background:#fde8e8}.mark{color:#b00;font-weight:bold}.plots{display:flex;flex-wrap:wrap;gap:8px}\
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;font-size:12px}.note{color:#555;font-size:13px}";

/// What the report is made of: the file, its summary, and the machine it was measured on.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// The CSV's file name, as the page names it.
    pub csv_name: &'a str,
    /// The CSV, read by [`crate::results::load`].
    pub file: &'a ResultsFile,
    /// Its summary, from [`crate::results::recommend::recommend`].
    pub bands: &'a [Recommendation],
    /// The JSON beside the CSV, when there is one.
    pub metadata: Option<&'a Metadata>,
}

/// The [`MARK`], in red.
fn mark() -> String {
    format!("<span class=\"mark\">{MARK}</span>")
}

/// A channel's name in the page, with a red [`MARK`] when its crate has caveats.
fn channel_cell(channel: &str) -> String {
    let mark = if summary::caveats_of(channel).is_empty() { String::new() } else { mark() };
    format!("{}{mark}", escape(channel))
}

/// Plain text from the summary with each [`MARK`] coloured.
fn marked_text(text: &str) -> String {
    escape(text).replace(MARK, &mark())
}

/// The whole page.
pub fn page(report: &Report) -> String {
    let title = format!("channel-bench: {}", report.csv_name);
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<h1>Which async channel for fan-in? <small>{}</small></h1>\n",
        escape(&title),
        escape(report.csv_name)
    );
    if let Some(metadata) = report.metadata {
        let cpu = metadata.cpu_model.as_deref().unwrap_or("unknown CPU");
        let _ = writeln!(
            out,
            "<p class=\"note\">Measured on {} ({} cores, {}), started {}. Figures from this machine only: yours may \
             differ with its cores and runtime.</p>",
            escape(cpu),
            metadata.cores,
            escape(&metadata.os),
            escape(&metadata.started_utc)
        );
    }
    answer(&mut out, report.bands);
    caveats(&mut out, report.bands);
    plots(&mut out, report.file);
    cells(&mut out, report.file);
    let _ = writeln!(
        out,
        "<section id=\"summary\">\n<h2>The full summary</h2>\n<p class=\"note\">As <code>channel-bench summary</code> \
         prints it: CPU per message and p99 latency too, and the channels not ranked.</p>\n<pre>{}</pre>\n</section>",
        marked_text(summary::text(report.bands).trim_end())
    );
    machine(&mut out, report.metadata);
    out.push_str("</body>\n</html>\n");
    out
}

fn answer(out: &mut String, bands: &[Recommendation]) {
    let _ = writeln!(
        out,
        "<section id=\"answer\">\n<h2>The short answer</h2>\n<p>Per runtime, mode and band of task counts: the fastest \
         channel by median ns/message (geometric mean over the band's task counts), or the channels tied with it \
         within the noise (≈), and the next one beyond the noise with how far behind it is. {} marks a crate with a \
         known problem, listed below.</p>\n<table>\n<tr><th>runtime</th><th>mode</th><th>tasks</th>\
         <th>pick (ns/message)</th><th>next, how far behind</th><th>not ranked (failures)</th></tr>",
        mark()
    );
    for band in bands {
        let (pick, next) = summary::pick_and_next(band);
        let excluded: Vec<&str> = band.excluded.iter().map(|excluded| excluded.channel.as_str()).collect();
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{} ({})</td><td><b>{}</b></td><td>{}</td><td>{}</td></tr>",
            escape(&band.runtime),
            escape(&band.mode),
            band.size.name(),
            summary::tasks_text(&band.tasks),
            marked_text(&pick),
            marked_text(&next),
            escape(&excluded.join(", "))
        );
    }
    out.push_str("</table>\n</section>\n");
}

fn caveats(out: &mut String, bands: &[Recommendation]) {
    let _ = writeln!(
        out,
        "<section id=\"caveats\">\n<h2>{} Known problems of the crates named above</h2>\n\
         <p class=\"note\">From the crates' issue trackers, searched {CAVEATS_CHECKED}.</p>\n<ul>",
        mark()
    );
    let names = summary::caveated(bands);
    for name in &names {
        for caveat in summary::caveats_of(name) {
            let _ = writeln!(
                out,
                "<li data-channel=\"{name}\"><b>{name}</b> ({}): {} (<a href=\"{}\">{}</a>)</li>",
                escape(caveat.versions),
                escape(caveat.text),
                escape(caveat.link),
                escape(&caveat.link_label())
            );
        }
    }
    if names.is_empty() {
        out.push_str("<li>None of the channels ranked has one.</li>\n");
    }
    out.push_str("</ul>\n</section>\n");
}

/// The panels' groups, in file order: (runtime, mode, setting).
fn groups(file: &ResultsFile) -> Vec<(&str, &str, &str)> {
    let mut groups: Vec<(&str, &str, &str)> = Vec::new();
    for key in &file.order {
        let group = (key.runtime.as_str(), key.mode.as_str(), key.setting.as_str());
        if !groups.contains(&group) {
            groups.push(group);
        }
    }
    groups
}

fn plots(out: &mut String, file: &ResultsFile) {
    out.push_str(
        "<section id=\"plots\">\n<h2>ns/message against tasks</h2>\n<p class=\"note\">Lower is faster. A line joins \
         a channel's medians; each dot is a sample. Failed samples are left out (see the table).</p>\n\
         <div class=\"plots\">\n",
    );
    for (runtime, mode, setting) in groups(file) {
        let in_group: Vec<&CellKey> =
            file.order.iter().filter(|k| k.runtime == runtime && k.mode == mode && k.setting == setting).collect();
        let mut series: Vec<Series> = Vec::new();
        for key in &in_group {
            let cell = &file.cells[*key];
            let Some(summary) = stats::summarize(&cell.ok) else { continue };
            let point = (key.tasks, summary.median, cell.ok.as_slice());
            match series.iter_mut().find(|s| s.channel == key.channel) {
                Some(line) => line.points.push(point),
                None => series.push(Series { channel: &key.channel, points: vec![point] }),
            }
        }
        for line in &mut series {
            line.points.sort_by_key(|point| point.0);
        }
        let setting = if setting.is_empty() { String::new() } else { format!(" [{setting}]") };
        out.push_str(&svg::panel(&format!("{runtime} {mode}{setting}"), &series));
    }
    out.push_str("</div>\n</section>\n");
}

fn cells(out: &mut String, file: &ResultsFile) {
    out.push_str(
        "<section id=\"cells\">\n<h2>Every cell</h2>\n<p class=\"note\">ns/message of the samples that delivered \
         every message in order: the median, its 90% confidence interval (from 5 samples on), the min–max; CPU \
         ns/message is the median of <code>cpu_ns / messages</code>.</p>\n<table>\n<tr><th>runtime</th><th>mode</th>\
         <th>setting</th><th>tasks</th><th>channel</th><th>samples</th><th>median</th><th>90% interval</th>\
         <th>min–max</th><th>CPU</th><th>failed</th></tr>\n",
    );
    let number = |value: f64| format!("{value:.1}");
    for key in &file.order {
        let cell = &file.cells[key];
        let summary = stats::summarize(&cell.ok);
        let cpu = stats::summarize(&cell.cpu_ns_per_message);
        let (median, interval, range) = match summary {
            Some(s) => (
                number(s.median),
                s.median_interval.map_or_else(String::new, |(low, high)| format!("{}–{}", number(low), number(high))),
                format!("{}–{}", number(s.min), number(s.max)),
            ),
            None => Default::default(),
        };
        let failed = match &cell.first_failure {
            Some(first) => format!("{}: {}", cell.failed, escape(first)),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{median}</td><td class=\"n\">{interval}</td><td class=\"n\">{range}</td>\
             <td class=\"n\">{}</td><td>{failed}</td></tr>",
            if cell.failed > 0 { " class=\"failed\"" } else { "" },
            escape(&key.runtime),
            escape(&key.mode),
            escape(&key.setting),
            key.tasks,
            channel_cell(&key.channel),
            cell.ok.len(),
            cpu.map_or_else(String::new, |cpu| number(cpu.median)),
        );
    }
    out.push_str("</table>\n</section>\n");
}

fn machine(out: &mut String, metadata: Option<&Metadata>) {
    out.push_str("<section id=\"machine\">\n<h2>Machine and build</h2>\n");
    let Some(metadata) = metadata else {
        out.push_str("<p>No JSON beside the CSV: the machine and build are unknown.</p>\n</section>\n");
        return;
    };
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
    out.push_str("<table>\n");
    for (name, value) in rows {
        let _ = writeln!(out, "<tr><th>{name}</th><td>{}</td></tr>", escape(&value));
    }
    out.push_str("</table>\n</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }
}

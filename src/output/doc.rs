//! The document model of the outputs: spans (text, strong, code, a link, a channel with its
//! caveat mark) and tables of them, built once and rendered as console text, Markdown or HTML,
//! so that no renderer reads another's text.

use std::fmt::Write as _;

use super::format::escape;
use crate::registry::{self, Caveat};
use crate::results::band::first_seen;

/// Follows the name of a ranked channel whose crate has caveats.
pub const MARK: &str = "†";

/// Follows the name of a channel whose crate's issue tracker has not been read for known
/// problems (`registry::ChannelEntry::caveats_checked`): no caveat means none looked for.
pub const UNREAD: &str = "‡";

/// What follows a channel's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// Nothing: no known problem, its crate's tracker read (or a channel the binary does not know).
    None,
    /// [`MARK`]: its crate has a known problem.
    KnownProblem,
    /// [`UNREAD`]: no known problem recorded, its crate's tracker not read.
    Unread,
}

impl Mark {
    /// The mark of the channel named `channel` (as in `--list-channels`): [`Mark::KnownProblem`]
    /// when `known_problem`, else [`Mark::Unread`] when its crate's tracker has not been read.
    pub fn of(channel: &str, known_problem: bool) -> Mark {
        match registry::find(channel) {
            _ if known_problem => Mark::KnownProblem,
            Some(entry) if !entry.caveats_checked => Mark::Unread,
            _ => Mark::None,
        }
    }
}

/// The caveats of the channel named `channel` (as in `--list-channels`): its registry
/// entry's, none for a channel the binary does not know.
pub fn caveats_of(channel: &str) -> &'static [Caveat] {
    registry::find(channel).map_or(&[], |entry| entry.caveats)
}

/// How a document is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The console: plain text, code in backticks.
    Text,
    /// Markdown.
    Markdown,
    /// HTML, escaped, the mark in red.
    Html,
}

/// How much of the answer a document holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// All of it: the console, the summary's Markdown, the report.
    Full,
    /// The short answer for the README (`--short`): the pick's table and each decision's card,
    /// without the explanations.
    Short,
}

/// A piece of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    /// Plain text.
    Text(String),
    /// Set apart: bold in Markdown and HTML, plain on the console.
    Strong(Vec<Span>),
    /// A command or flag.
    Code(String),
    /// A link (label, address): `<address>` on the console, `(label)` linked in Markdown and HTML.
    Link(String, &'static str),
    /// A channel, followed by its [`Mark`].
    Channel(String, Mark),
}

impl Span {
    /// Plain text.
    pub fn text(text: impl Into<String>) -> Span {
        Span::Text(text.into())
    }

    /// Channel `channel` as `label` names it, marked when its crate has a known problem or its
    /// crate's tracker has not been read ([`Mark::of`]).
    pub fn channel(label: impl Into<String>, channel: &str) -> Span {
        Span::Channel(label.into(), Mark::of(channel, !caveats_of(channel).is_empty()))
    }

    /// The span as `format` writes it.
    pub fn render(&self, format: Format) -> String {
        let escaped = format == Format::Html;
        let text = |text: &str| if escaped { escape(text) } else { text.to_owned() };
        match (self, format) {
            (Span::Text(plain), _) => text(plain),
            (Span::Strong(strong), Format::Markdown) => format!("**{}**", line(strong, format)),
            (Span::Strong(strong), Format::Html) => format!("<b>{}</b>", line(strong, format)),
            (Span::Strong(strong), _) => line(strong, format),
            (Span::Code(code), Format::Html) => format!("<code>{}</code>", escape(code)),
            (Span::Code(code), _) => format!("`{}`", text(code)),
            (Span::Link(label, link), Format::Markdown) => format!("([{label}]({link}))"),
            (Span::Link(label, link), Format::Html) => format!("(<a href=\"{}\">{}</a>)", escape(link), escape(label)),
            (Span::Link(_, link), _) => text(&format!("<{link}>")),
            (Span::Channel(name, mark), _) => {
                let mark = match mark {
                    Mark::None => return text(name),
                    Mark::KnownProblem => MARK,
                    Mark::Unread => UNREAD,
                };
                if escaped {
                    format!("{}<span class=\"mark\">{mark}</span>", escape(name))
                } else {
                    format!("{name}{mark}")
                }
            }
        }
    }
}

/// Prose as spans: each part between backticks a [`Span::Code`], the rest text.
pub fn prose(text: &str) -> Vec<Span> {
    let parts = text.split('`').enumerate();
    parts
        .filter(|(_, part)| !part.is_empty())
        .map(|(at, part)| if at % 2 == 1 { Span::Code(part.to_owned()) } else { Span::text(part) })
        .collect()
}

/// `text` with its first letter in upper case.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| first.to_uppercase().chain(chars).collect())
}

/// `spans` as one line in `format`.
pub fn line(spans: &[Span], format: Format) -> String {
    spans.iter().map(|span| span.render(format)).collect()
}

/// `items` as a list in `format`: a line each after `  ` on the console, `- ` in Markdown, in
/// `<li>` in HTML.
pub fn list(items: impl IntoIterator<Item = String>, format: Format) -> String {
    let (open, close) = match format {
        Format::Markdown => ("- ", ""),
        Format::Html => ("<li>", "</li>"),
        Format::Text => ("  ", ""),
    };
    items.into_iter().map(|item| format!("{open}{item}{close}\n")).collect()
}

/// `items` joined by commas, as many as fit in `width` characters of text, then `+K more`.
pub fn fitted(items: &[Vec<Span>], width: usize) -> Vec<Span> {
    let chars = |spans: &[Span]| line(spans, Format::Text).chars().count();
    let joined = |count: usize| items[..count].join(&Span::text(", "));
    let more = |shown: usize| Span::Text(format!(" +{} more", items.len() - shown));
    // Cut before the first item (not the last) after which the count of the rest no longer fits.
    let last = items.len().saturating_sub(1);
    match (0..last).find(|&at| chars(&joined(at + 1)) + chars(&[more(at)]) > width) {
        Some(at) => [joined(at), vec![more(at)]].concat(),
        None => joined(items.len()),
    }
}

/// A table, built once: its columns, and rows of cells, each cell a line of spans.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// How many leading columns head a group of rows on the console.
    pub group: usize,
    /// Each column's header.
    pub columns: Vec<String>,
    /// The rows: where each one's band stands when the file holds several machines or
    /// capacities (`format::section`), and its cells.
    pub rows: Vec<(Option<String>, Vec<Vec<Span>>)>,
}

impl Table {
    /// A table without rows: its first `group` columns head a group of rows, its columns headed
    /// by `headers`.
    pub fn new(group: usize, headers: impl IntoIterator<Item: Into<String>>) -> Table {
        Table { group, columns: headers.into_iter().map(Into::into).collect(), rows: Vec::new() }
    }

    /// As Markdown or HTML: a table per machine and capacity, in the order they first appear,
    /// each after its name (`**At C:**`) when the rows name one.
    pub fn sectioned(&self, format: Format) -> String {
        let mut out = String::new();
        let html = format == Format::Html;
        for section in first_seen(self.rows.iter().map(|(section, _)| section)) {
            if let Some(section) = section {
                let name = Span::Strong(vec![Span::Text(format!("{}:", capitalized(section)))]).render(format);
                let _ = writeln!(out, "{}", if html { format!("<p>{name}</p>") } else { format!("\n{name}\n") });
            }
            let header = self.columns.iter().map(|header| vec![Span::Text(header.clone())]);
            let rows = self.rows.iter().filter(|(at, _)| at == section).map(|(_, cells)| cells.iter().cloned());
            if html {
                let row = |cells: Vec<Vec<Span>>, tag: &str| -> String {
                    cells.iter().map(|cell| format!("<{tag}>{}</{tag}>", line(cell, format))).collect()
                };
                let _ = writeln!(out, "<table>\n<tr>{}</tr>", row(header.collect(), "th"));
                out.extend(rows.map(|cells| format!("<tr>{}</tr>\n", row(cells.collect(), "td"))));
                out.push_str("</table>\n");
            } else {
                let row = |cells: Vec<Vec<Span>>| -> String {
                    cells.iter().map(|cell| line(cell, format)).collect::<Vec<_>>().join(" | ")
                };
                let _ = writeln!(out, "| {} |\n|{}", row(header.collect()), "---|".repeat(self.columns.len()));
                out.extend(rows.map(|cells| format!("| {} |\n", row(cells.collect()))));
            }
        }
        out
    }

    /// As the console lays it out: where the group (and section) changes, a blank line, then the
    /// group's name and the further columns' headers; then a row a line, each cell after the
    /// group's padded to its column's widest.
    pub fn console(&self) -> String {
        let text = |cell: &[Span]| line(cell, Format::Text);
        let heading = |(section, cells): &(Option<String>, Vec<Vec<Span>>)| {
            let mut heading: Vec<String> = cells[..self.group].iter().map(|cell| text(cell)).collect();
            heading.extend(section.clone());
            heading.join(" ")
        };
        let chars = |text: &str| text.chars().count();
        let headers: Vec<&str> = self.columns.iter().skip(self.group).map(String::as_str).collect();
        let mut widths: Vec<usize> = headers.iter().map(|header| chars(header)).collect();
        for (_, cells) in &self.rows {
            for (width, cell) in widths.iter_mut().zip(&cells[self.group..]) {
                *width = (*width).max(chars(&text(cell)));
            }
        }
        if let Some(first) = widths.first_mut() {
            *first = (*first + 2).max(self.rows.iter().map(|row| chars(&heading(row))).max().unwrap_or(0)) - 2;
        }
        let pad = |cells: Vec<String>| -> String {
            let padded = cells.iter().zip(&widths).map(|(cell, &width)| format!("{cell:<width$}", width = width));
            padded.collect::<Vec<_>>().join("  ").trim_end().to_owned()
        };
        let mut out = String::new();
        let mut current = None;
        for row in &self.rows {
            let heading = heading(row);
            if current.as_ref() != Some(&heading) {
                let mut header: Vec<String> = headers.iter().map(|header| (*header).to_owned()).collect();
                header[0] = format!("{heading:<width$}", width = widths[0] + 2);
                let _ = write!(out, "\n{}\n", pad(header));
                current = Some(heading);
            }
            let _ = writeln!(out, "  {}", pad(row.1[self.group..].iter().map(|cell| text(cell)).collect()));
        }
        out
    }
}

/// A column of an HTML table of rows `R`: its header, whether its cells are figures (set right,
/// `class="n"`), and its cell of a row, as HTML.
pub type HtmlColumn<'a, R> = (&'a str, bool, &'a dyn Fn(&R) -> String);

/// `rows` as an HTML table of `columns`, `<table{attributes}>`, each row's `<tr>` with the
/// attributes `row_attributes` gives it.
pub fn html_table<R>(
    attributes: &str,
    columns: &[HtmlColumn<R>],
    rows: impl IntoIterator<Item = R>,
    row_attributes: impl Fn(&R) -> &'static str,
) -> String {
    let headers: String = columns.iter().map(|(header, ..)| format!("<th>{header}</th>")).collect();
    let mut out = format!("<table{attributes}>\n<tr>{headers}</tr>\n");
    for row in rows {
        let cell = |(_, figure, cell): &HtmlColumn<R>| {
            format!("<td{}>{}</td>", if *figure { " class=\"n\"" } else { "" }, cell(&row))
        };
        let _ = writeln!(out, "<tr{}>{}</tr>", row_attributes(&row), columns.iter().map(cell).collect::<String>());
    }
    out + "</table>\n"
}

/// A block of a [`Section`].
#[derive(Debug, Clone)]
pub enum Block {
    /// A paragraph: one line on the console.
    Para(Vec<Span>),
    /// A paragraph set apart as a note: in grey on the report's page.
    Note(Vec<Span>),
    /// A list, an item a line.
    List(Vec<Vec<Span>>),
    /// A table.
    Table(Table),
}

impl Block {
    /// The block in `format`, without a trailing newline.
    fn render(&self, format: Format) -> String {
        let html = format == Format::Html;
        let out = match self {
            Block::Para(spans) if html => format!("<p>{}</p>", line(spans, format)),
            Block::Note(spans) if html => format!("<p class=\"note\">{}</p>", line(spans, format)),
            Block::Para(spans) | Block::Note(spans) => line(spans, format),
            Block::List(items) => {
                let items = list(items.iter().map(|item| line(item, format)), format);
                if html { format!("<ul>\n{items}</ul>") } else { items }
            }
            Block::Table(table) if format == Format::Text => table.console(),
            Block::Table(table) => table.sectioned(format),
        };
        out.trim_matches('\n').to_owned()
    }
}

/// Where a [`Section`] is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// On the console and on the page (the Markdown and the report).
    Everywhere,
    /// On the page only: the full tables, the method, the versions, the caveats' evidence.
    Page,
    /// On the console only: where the page is.
    Console,
}

/// A part of the answer: its blocks under its heading.
#[derive(Debug, Clone)]
pub struct Section {
    /// Its id on the report's page.
    pub id: &'static str,
    /// Where it is shown.
    pub on: On,
    /// Its heading, if it has one: `heading:` on the line above its first block on the console,
    /// `###` in Markdown, `<h2>` on the page.
    pub heading: Option<String>,
    /// What it says, in order.
    pub blocks: Vec<Block>,
}

impl Section {
    /// The section in `format`, blank lines between its blocks (on the console, none: it is read
    /// at a glance after a run).
    pub fn render(&self, format: Format) -> String {
        let between = if format == Format::Text { "\n" } else { "\n\n" };
        let body = self.blocks.iter().map(|block| block.render(format)).collect::<Vec<_>>().join(between);
        let capital = |heading: &str| Span::Text(capitalized(heading)).render(format);
        // On the console the heading stands on the line just above what it heads.
        let body = match (&self.heading, format) {
            (None, _) => body,
            (Some(heading), Format::Text) => format!("{heading}:\n{body}"),
            (Some(heading), Format::Markdown) => format!("### {}\n\n{body}", capital(heading)),
            (Some(heading), Format::Html) => format!("<h2>{}</h2>\n\n{body}", capital(heading)),
        };
        match format {
            Format::Html => format!("<section id=\"{}\">\n{body}\n</section>\n", self.id),
            _ => format!("{body}\n"),
        }
    }
}

/// The answer, built once: its sections in order.
#[derive(Debug, Clone, Default)]
pub struct Document(pub Vec<Section>);

impl Document {
    /// The document in `format`, a blank line between sections (none on the console): on the
    /// console the sections shown there, on the page the others ([`On`]).
    pub fn render(&self, format: Format) -> String {
        let hidden = if format == Format::Text { On::Page } else { On::Console };
        let shown = self.0.iter().filter(|section| section.on != hidden);
        let sections: Vec<String> = shown.map(|section| section.render(format)).collect();
        sections.join(if format == Format::Markdown { "\n" } else { "" })
    }
}

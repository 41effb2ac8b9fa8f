//! The document model of the outputs: spans (text, strong, code, a link, a channel with its
//! caveat mark) and tables of them, built once and rendered as console text, Markdown or HTML,
//! so that no renderer reads another's text.

use std::fmt::Write as _;

use super::format::escape;
use crate::registry::{self, Caveat};

/// Follows the name of a ranked channel whose crate has caveats.
pub const MARK: &str = "†";

/// The caveats of the channel named `channel` (as in `--list-channels`): its registry
/// entry's, none for a channel the binary does not know.
pub fn caveats_of(channel: &str) -> &'static [Caveat] {
    registry::find(channel).map_or(&[], |entry| entry.caveats)
}

/// How a line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The console: plain text, code in backticks.
    Text,
    /// Markdown.
    Markdown,
    /// HTML, escaped, the mark in red.
    Html,
    /// The console's text in the report's `<pre>`: escaped, the mark in red.
    Pre,
}

/// Which output the answer joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The console's text.
    Text,
    /// Markdown (the summary's file).
    Markdown,
    /// Markdown for the README (`--short`): each decision's card without its explanation.
    Short,
}

impl Form {
    /// How its lines are written.
    pub fn format(self) -> Format {
        if self == Form::Text { Format::Text } else { Format::Markdown }
    }
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
    /// A channel, followed by [`MARK`] when its crate has a known problem.
    Channel(String, bool),
}

impl Span {
    /// Plain text.
    pub fn text(text: impl Into<String>) -> Span {
        Span::Text(text.into())
    }

    /// Channel `channel` as `label` names it, marked when its crate has a known problem.
    pub fn channel(label: impl Into<String>, channel: &str) -> Span {
        Span::Channel(label.into(), !caveats_of(channel).is_empty())
    }

    /// [`MARK`] alone.
    pub fn mark() -> Span {
        Span::Channel(String::new(), true)
    }

    /// The span as `format` writes it.
    pub fn render(&self, format: Format) -> String {
        let escaped = matches!(format, Format::Html | Format::Pre);
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
            (Span::Channel(name, marked), _) if !marked => text(name),
            (Span::Channel(name, _), _) if escaped => format!("{}<span class=\"mark\">{MARK}</span>", escape(name)),
            (Span::Channel(name, _), _) => format!("{name}{MARK}"),
        }
    }
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
        Format::Text | Format::Pre => ("  ", ""),
    };
    items.into_iter().map(|item| format!("{open}{item}{close}\n")).collect()
}

/// `items` each once, in the order first seen.
pub fn first_seen<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

/// `items` joined by commas, as many as fit in `width` characters of text, then `+K more`.
pub fn fitted(items: &[Vec<Span>], width: usize) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for (at, item) in items.iter().enumerate() {
        let more = Span::Text(format!(" +{} more", items.len() - at));
        let mut next = out.clone();
        if !next.is_empty() {
            next.push(Span::text(", "));
        }
        next.extend(item.iter().cloned());
        let chars = |spans: &[Span]| line(spans, Format::Text).chars().count();
        if chars(&next) + chars(std::slice::from_ref(&more)) > width && at + 1 < items.len() {
            out.push(more);
            return out;
        }
        out = next;
    }
    out
}

/// A table, built once: its columns, and rows of cells, each cell a line of spans.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// How many leading columns head a group of rows on the console.
    pub group: usize,
    /// Each column's header, and its label on the console (`None`: the cell alone).
    pub columns: Vec<(String, Option<&'static str>)>,
    /// The rows: where each one's band stands when the file holds several machines or
    /// capacities (`format::section`), and its cells.
    pub rows: Vec<(Option<String>, Vec<Vec<Span>>)>,
}

impl Table {
    /// Adds a column.
    pub fn column(&mut self, header: impl Into<String>, label: Option<&'static str>) {
        self.columns.push((header.into(), label));
    }

    /// As Markdown: a table per capacity, in the order they first appear, after `**At C:**`.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for section in first_seen(self.rows.iter().map(|(section, _)| section)) {
            if let Some(section) = section {
                let _ = writeln!(out, "\n**{}:**\n", capitalized(section));
            }
            let header: Vec<&str> = self.columns.iter().map(|(header, _)| header.as_str()).collect();
            let _ = writeln!(out, "| {} |\n|{}", header.join(" | "), "---|".repeat(header.len()));
            for (_, cells) in self.rows.iter().filter(|(at, _)| at == section) {
                let cells: Vec<String> = cells.iter().map(|cell| line(cell, Format::Markdown)).collect();
                let _ = writeln!(out, "| {} |", cells.join(" | "));
            }
        }
        out
    }

    /// As the console lays it out, in `format` ([`Format::Text`] or [`Format::Pre`]): a heading
    /// where the group (and capacity) changes, then per row its next cell, padded, before each
    /// further cell that is not empty, one a line, after its label.
    pub fn console(&self, format: Format) -> String {
        let mut out = String::new();
        let mut current = None;
        for (section, cells) in &self.rows {
            let mut heading: Vec<String> = cells[..self.group].iter().map(|cell| line(cell, format)).collect();
            heading.extend(section.clone());
            let heading = heading.join(" ");
            if current.as_ref() != Some(&heading) {
                let _ = write!(out, "\n{heading}\n");
                current = Some(heading);
            }
            let figures = cells.iter().zip(&self.columns).skip(self.group + 1);
            let said = figures.filter(|(cell, _)| !line(cell, Format::Text).is_empty()).map(|(cell, (_, label))| {
                label.map_or(String::new(), |label| format!("{label}: ")) + &line(cell, format)
            });
            for (at, said) in said.enumerate() {
                let lead = if at == 0 { format!("  {:<16}", line(&cells[self.group], format)) } else { " ".repeat(18) };
                let _ = writeln!(out, "{lead} {said}");
            }
        }
        out
    }
}

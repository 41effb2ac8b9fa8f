//! The document model of the outputs: a line is built once as spans (text, strong, code, a
//! channel with its caveat mark) and rendered as console text, Markdown or HTML, so that no
//! renderer reads another's text.

use super::format::escape;
use super::summary::MARK;

/// How a line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The console: plain text, code in backticks.
    Text,
    /// Markdown.
    Markdown,
    /// HTML, escaped, the mark in red.
    Html,
}

/// A piece of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    /// Plain text.
    Text(String),
    /// Set apart: bold in Markdown and HTML, plain on the console.
    Strong(String),
    /// A command or flag.
    Code(String),
    /// A channel, followed by [`MARK`] when its crate has a known problem.
    Channel(String, bool),
}

impl Span {
    /// Plain text.
    pub fn text(text: impl Into<String>) -> Span {
        Span::Text(text.into())
    }

    /// The span as `format` writes it.
    pub fn render(&self, format: Format) -> String {
        let text = |text: &str| if format == Format::Html { escape(text) } else { text.to_owned() };
        match (self, format) {
            (Span::Text(plain), _) => text(plain),
            (Span::Strong(strong), Format::Text) => strong.clone(),
            (Span::Strong(strong), Format::Markdown) => format!("**{strong}**"),
            (Span::Strong(strong), Format::Html) => format!("<b>{}</b>", escape(strong)),
            (Span::Code(code), Format::Html) => format!("<code>{}</code>", escape(code)),
            (Span::Code(code), _) => format!("`{code}`"),
            (Span::Channel(name, false), _) => text(name),
            (Span::Channel(name, true), Format::Html) => format!("{}{}", escape(name), red_mark()),
            (Span::Channel(name, true), _) => format!("{name}{MARK}"),
        }
    }
}

/// [`MARK`] as the report shows it, in red.
pub fn red_mark() -> String {
    format!("<span class=\"mark\">{MARK}</span>")
}

/// `label` in the report, escaped, with a red [`MARK`] when `channel`'s crate has a known problem.
pub fn channel_html(label: &str, channel: &str) -> String {
    Span::Channel(label.to_owned(), !super::summary::caveats_of(channel).is_empty()).render(Format::Html)
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

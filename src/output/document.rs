//! The answer as one document, built once from the analysis: its sections in one order (a busy
//! host, the decision for a room, which channel, what its pick keeps in memory, where the machine
//! and capacity matter, which design, latency under load, the bands left open, how to read the
//! figures and verdicts, the crate versions, the known problems), rendered by
//! [`Document::render`] as the console's text, the summary's Markdown, the README's short answer
//! and the report's page.

use super::doc::{Block, Document, Form, Mark, On, Section, Span, UNREAD, prose};
use super::summary::{caveat_items, caveated_of, ranked_names, unread_item, unread_of, versions_line};
use crate::registry::CAVEATS_CHECKED;
use crate::results::analysis::Analysis;
use crate::results::recommend::TaskBand;

/// The answer of `analysis`, read from the CSV named `csv_name`, as `form` holds it: a busy host
/// said first, then the decision for a room and the pick matrix; in full, the page's tables, what
/// each pick keeps in memory (on the console too), method, versions and caveats' evidence, with
/// one line on the console that points to them ([`pointer`]); short, each caveat in brief. The short answer of a room leaves latency under load to the full one:
/// the decision already gives the room's p99, drops and cost.
pub fn of(csv_name: &str, analysis: &Analysis, form: Form) -> Document {
    let full = form == Form::Full;
    let decision = super::decision::section(analysis, form);
    let latency = super::paced::section(analysis)
        .filter(|_| full || decision.is_none())
        .map(|latency| Section { on: if full { On::Page } else { On::Everywhere }, ..latency });
    let page = |section: Option<Section>| section.filter(|_| full);
    let sections = [
        // Before the answer: what a busy host means for every figure and verdict below.
        super::pool::busy_line(&analysis.host).map(|line| note("busy", On::Everywhere, line)),
        decision,
        super::matrix::section(analysis),
        page(super::decision::explanations(analysis)),
        page(super::summary::section(csv_name, analysis)),
        page(super::memory::section(csv_name, analysis)),
        super::across::section(analysis, form),
        super::across::designs(analysis, form),
        latency,
        page(super::open::section(analysis)),
        page(Some(method(analysis))),
        page(Some(note("versions", On::Page, versions_line(&analysis.versions)))),
        caveats(analysis, form).filter(|_| full || !analysis.only_paced),
        // How noisy the host was, as the run measured it: on the console and the page.
        page(Some(note("host", On::Everywhere, super::pool::host_line(&analysis.host)))),
        page(Some(pointer(csv_name, analysis))),
    ];
    Document(sections.into_iter().flatten().collect())
}

/// The console's one line after the answer: where the method, the verdicts and the caveats are
/// (the `.md` and `.html` beside a CSV), the channels with caveats named with their mark.
fn pointer(csv_name: &str, analysis: &Analysis) -> Section {
    let caveated = caveated_of(named(analysis)).into_iter().map(|name| format!("{name}{}", super::doc::MARK));
    let marked: Vec<String> =
        caveated.chain(unread_of(named(analysis)).into_iter().map(|name| format!("{name}{UNREAD}"))).collect();
    let caveats = if marked.is_empty() { String::new() } else { format!(" ({})", marked.join(", ")) };
    let pages = match csv_name.strip_suffix(".csv") {
        Some(stem) => format!("{stem}.md and {stem}.html"),
        None => "the summary's Markdown (--out) and the report (`channel-bench report`)".to_owned(),
    };
    let spans = vec![Span::Text(format!(
        "tables in full, method, verdicts and caveats{caveats}: {pages}; the words: docs/methodology.md#glossary"
    ))];
    Section { id: "pointer", on: On::Console, heading: None, blocks: vec![Block::Para(spans)] }
}

/// A section of one line, `text`, set apart as a note, without a heading.
fn note(id: &'static str, on: On, text: String) -> Section {
    Section { id, on, heading: None, blocks: vec![Block::Note(vec![Span::Text(text)])] }
}

/// How to read the figures and the verdicts: what a figure is, the bands, how a channel is
/// compared with the first, and the noise model the verdicts rest on (`pool::noise_line`).
fn method(analysis: &Analysis) -> Section {
    let x_large = if analysis.bands.iter().any(|band| band.band.size == TaskBand::XLarge) {
        ", x-large 1024 and more"
    } else {
        ""
    };
    let mut blocks = Vec::new();
    if !analysis.only_paced {
        blocks.push(Block::Para(prose(&format!(
            "Each figure is the geometric mean, over the band's task counts, of a channel's trimmed mean per task \
             count (the mean of its samples without the highest and lowest fifth). Bands: small is 1–8 tasks, medium \
             16–64, large 128–512{x_large} (a count between them goes to the nearer on a log scale). Every other \
             channel is compared with the first by the ratio of their samples measured back to back, round by round, \
             averaged over the band's task counts: `1.21× [1.15–1.27]` is that ratio and its interval, and a channel \
             whose interval holds 1 is tied with the first (`≈ flume, within 4%`: the interval's far end). A channel \
             with a failed sample, or missing at one of the band's task counts, is not ranked in that band. The \
             fastest with no known problem is the first channel of the ranking whose crate has no caveat covering \
             its version; same when that is the fastest itself."
        ))));
    }
    blocks.push(Block::Note(vec![Span::Text(super::pool::noise_line(analysis.runs))]));
    Section { id: "method", on: On::Page, heading: None, blocks }
}

/// The channels the document names: the bands' leaders and next, then the paced bands'
/// entries, repeats included.
fn named(analysis: &Analysis) -> impl Iterator<Item = &str> {
    let paced = analysis.paced.iter().flat_map(|band| &band.entries).map(|entry| entry.channel.as_str());
    ranked_names(&analysis.bands).chain(paced)
}

/// The known problems of every channel the document names, a line each with its link: in full,
/// on the page, with how it is known; short, its first clause; then the channels named whose
/// crate's tracker has not been read, with what their mark means. `None` when none is named.
fn caveats(analysis: &Analysis, form: Form) -> Option<Section> {
    let mut items = caveat_items(caveated_of(named(analysis)), form);
    let mark = if items.is_empty() { Mark::Unread } else { Mark::KnownProblem };
    items.extend(unread_item(&unread_of(named(analysis))));
    let on = if form == Form::Full { On::Page } else { On::Everywhere };
    (!items.is_empty()).then(|| Section {
        id: "caveats",
        on,
        heading: None,
        blocks: vec![
            Block::Para(vec![
                Span::Channel(String::new(), mark), // the mark alone
                Span::Text(format!(
                    " Known problems of the marked crates (issue trackers searched {CAVEATS_CHECKED}):"
                )),
            ]),
            Block::List(items),
        ],
    })
}

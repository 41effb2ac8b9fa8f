//! The answer as one document, built once from the analysis: its sections in one order (the
//! decision for a room, which channel, where the machine and capacity matter, which design,
//! latency under load, the bands left open, how to read the figures and verdicts, the crate
//! versions, the known problems), rendered by [`Document::render`] as the console's text, the
//! summary's Markdown, the README's short answer and the report's page.

use super::doc::{Block, Document, Form, Section, Span, first_seen, prose};
use super::summary::{caveat_item, caveated, caveated_of, versions_line};
use crate::registry::CAVEATS_CHECKED;
use crate::results::analysis::Analysis;
use crate::results::recommend::TaskBand;

/// The answer of `analysis`, read from the CSV named `csv_name`, as `form` holds it.
/// The short answer of a room leaves latency under load to the full one: the decision already
/// gives the room's p99, drops and cost.
pub fn of(csv_name: &str, analysis: &Analysis, form: Form) -> Document {
    let decision = super::decision::section(analysis, form);
    let latency = super::paced::section(analysis).filter(|_| form == Form::Full || decision.is_none());
    let sections = [
        decision,
        super::summary::section(csv_name, analysis, form),
        super::across::section(analysis, form),
        super::across::designs(analysis, form),
        latency,
        (form == Form::Full).then(|| super::open::section(analysis)).flatten(),
        (form == Form::Full).then(|| method(analysis)),
        Some(Section {
            id: "versions",
            heading: None,
            blocks: vec![Block::Note(vec![Span::Text(versions_line(&analysis.versions))])],
        }),
        caveats(analysis),
    ];
    Document(sections.into_iter().flatten().collect())
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
    blocks.push(Block::Note(vec![Span::Text(super::pool::host_line(&analysis.host))]));
    Section { id: "method", heading: None, blocks }
}

/// The known problems of every channel the document ranks, a line each with its link and how
/// it is known; `None` when none has one.
fn caveats(analysis: &Analysis) -> Option<Section> {
    let paced = analysis.paced.iter().flat_map(|band| &band.entries).map(|entry| entry.channel.as_str());
    let names = first_seen(caveated(&analysis.bands).into_iter().chain(caveated_of(paced)));
    let items: Vec<Vec<Span>> = names
        .iter()
        .flat_map(|&name| super::doc::caveats_of(name).iter().map(move |caveat| caveat_item(name, caveat)))
        .collect();
    (!items.is_empty()).then(|| Section {
        id: "caveats",
        heading: None,
        blocks: vec![
            Block::Para(vec![
                Span::Channel(String::new(), true), // the mark alone
                Span::Text(format!(
                    " Known problems of the marked crates (issue trackers searched {CAVEATS_CHECKED}):"
                )),
            ]),
            Block::List(items),
        ],
    })
}

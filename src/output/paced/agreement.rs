//! `compare`'s paced section: each paced cell of two runs with the verdict on each figure, and
//! how far the two runs agree.

use std::fmt::Write as _;

use super::{HEADING, cell_label};
use crate::output::format::{duration, number};
use crate::results::paced::PacedAgreement;

/// `(slower)`, `(faster)` or `(~)`: a paced verdict of `compare`, new against old.
fn verdict_word(verdict: Option<&crate::stats::verdict::Verdict>) -> &'static str {
    use crate::stats::verdict::Call;
    match verdict.map(|verdict| verdict.call) {
        Some(Call::Higher) => "(worse)",
        Some(Call::Lower) => "(better)",
        _ => "(~)",
    }
}

/// `compare`'s paced cells: one line per paced cell in both runs, with the verdict on each
/// figure (`noise::change`); empty when there is none.
pub fn cells(agreement: &PacedAgreement) -> String {
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
            cell_label(pair.key),
            p99(&pair.old),
            p99(&pair.new),
            number(pair.old.overflow_share * 100.0),
            number(pair.new.overflow_share * 100.0),
            cpu(&pair.old),
            cpu(&pair.new)
        );
    }
    out
}

/// `compare`'s paced headline: how many paced cells are worse, the smallest change a cell's
/// verdict on p99 and on CPU tells apart, then how far the two runs agree (their median and
/// worst over the cells), which two runs of one build calibrate the paced drift with; empty
/// when there is no paced cell.
pub fn summary(agreement: &PacedAgreement) -> String {
    if agreement.cells.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let slower = agreement.cells.iter().filter(|pair| pair.slower()).count();
    let _ = writeln!(
        out,
        "paced cells worse beyond the noise (p99, CPU or frames overflowed): {slower} of {}",
        agreement.cells.len()
    );
    for (on, detectable) in
        [(" on pooled p99", &agreement.detectable[0]), (" on CPU per delivered message", &agreement.detectable[1])]
    {
        if let Some(line) = crate::output::ab::detectable(detectable, on, "a cell's typical 99.9% interval") {
            let _ = writeln!(out, "{line}");
        }
    }
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

//! What `channel-bench compare` prints: how the two runs' workloads and machines differ, and
//! the table of cells.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::ab::word;
use super::doc::{Format, list};
use super::format::{self, duration, number, percent};
use super::paced::{self, HEADING};
use crate::results::band::first_seen;
use crate::results::compare::{Compared, Comparison, Counts, PacedAgreement, RuntimeSpread, Spread};
use crate::results::figures::Figures;
use crate::results::load::{CellKey, WorkloadKey};
use crate::results::metadata::Metadata;
use crate::results::paced::PacedCell;
use crate::run::workload::Capacity;
use crate::stats::disturbed::Why;
use crate::stats::verdict::Call;

/// The first workload setting (messages, capacity, workers) in which the files' cells differ, in
/// words naming the flag and both files' values (`old.csv has --messages 65536, new.csv 1048576`);
/// `None` when every setting is the same in both, or unknown in one of them.
pub fn workload_difference(old_name: &str, old: &[WorkloadKey], new_name: &str, new: &[WorkloadKey]) -> Option<String> {
    type Setting = fn(&WorkloadKey) -> Option<String>;
    let settings: [(&str, Setting); 3] = [
        ("--messages", |workload| (workload.messages > 0).then(|| workload.messages.to_string())),
        ("--capacity", |workload| (workload.capacity != Capacity::default()).then(|| workload.capacity.to_string())),
        ("--workers", |workload| (workload.workers > 0).then(|| workload.workers.to_string())),
    ];
    settings.into_iter().find_map(|(flag, value)| {
        let values = |workloads: &[WorkloadKey]| workloads.iter().filter_map(value).collect::<BTreeSet<String>>();
        let (old_values, new_values) = (values(old), values(new));
        let known_in_both = !old_values.is_empty() && !new_values.is_empty();
        let text = |values: BTreeSet<String>| values.into_iter().collect::<Vec<_>>().join("/");
        (known_in_both && old_values != new_values)
            .then(|| format!("{old_name} has {flag} {}, {new_name} {}", text(old_values), text(new_values)))
    })
}

/// One line per difference between the machines and builds of the two runs (host, CPU,
/// cores, rustc, channel crate versions), or a line saying what is unknown.
pub fn machine_differences(
    old_name: &str,
    old: Option<&Metadata>,
    new_name: &str,
    new: Option<&Metadata>,
) -> Vec<String> {
    let (Some(old_meta), Some(new_meta)) = (old, new) else {
        let missing = [(old, old_name), (new, new_name)].into_iter().filter(|(m, _)| m.is_none()).map(|(_, n)| n);
        let missing = first_seen(missing);
        return vec![format!("machine and build not compared: no JSON beside {}", missing.join(" and "))];
    };
    let shown = |value: &Option<String>| value.as_deref().unwrap_or("unknown").to_owned();
    let fields = [
        ("host", shown(&old_meta.hostname), shown(&new_meta.hostname)),
        ("CPU", shown(&old_meta.cpu_model), shown(&new_meta.cpu_model)),
        ("cores", old_meta.cores.to_string(), new_meta.cores.to_string()),
        ("rustc", old_meta.rustc.clone(), new_meta.rustc.clone()),
    ];
    let names: BTreeSet<&String> = old_meta.crates.keys().chain(new_meta.crates.keys()).collect();
    let version = |meta: &Metadata, name: &str| meta.crates.get(name).map_or("absent".to_owned(), String::clone);
    let crates = names.into_iter().map(|name| (name.as_str(), version(old_meta, name), version(new_meta, name)));
    let fields = fields.into_iter().chain(crates).filter(|(_, before, after)| before != after);
    fields.map(|(what, before, after)| format!("different {what}: {before} (old), {after} (new)")).collect()
}

/// What leads the ns/message headline of two runs whose every cell is paced.
const RESTATES_THE_SCHEDULE: &str =
    "ns/message restates the schedule: every cell is paced, so its verdicts follow the pace, not the channel";

/// What the smallest detectable change of `compare` rests on.
const CELL_BASIS: &str = "a cell's typical 99.9% interval";

/// The comparison of two files as four sections in the order printed (empty ones to be left
/// out): the table of cells with those in one file only, the headline, the paced cells and the
/// paced headline; where every cell of both runs is paced, the paced sections lead. Beside them,
/// how many cells are slower beyond the noise and paced cells worse on p99, CPU or overflow.
pub fn report(old_name: &str, new_name: &str, comparison: &Comparison) -> ([String; 4], usize) {
    let mut out = table(comparison);
    let only = [(old_name, &comparison.only_old), (new_name, &comparison.only_new)];
    for (name, only) in only.into_iter().filter(|(_, only)| !only.is_empty()) {
        let keys = only.iter().map(|key| format!("{}{}", paced::cell_label(key), notes(comparison, key, "")));
        let _ = write!(out, "\nonly in {name} ({} cells):\n{}", only.len(), list(keys, Format::Text));
    }
    let mut headline = format!("\n{}", counts_text(&comparison.counts));
    if let Some(line) = super::ab::detectable(&comparison.detectable, "", CELL_BASIS) {
        let _ = write!(headline, "\n{line}");
    }
    closing_lines(&mut headline, comparison);
    let agreement = &comparison.paced;
    let [paced_cells, paced_summary] = if agreement.cells.is_empty() {
        Default::default()
    } else {
        [paced_cells(agreement), paced_summary(agreement)]
    };
    let worse = comparison.counts.slower + agreement.cells.iter().filter(|pair| pair.slower()).count();
    let sections = if comparison.only_paced {
        [out, paced_cells, paced_summary, format!("\n{RESTATES_THE_SCHEDULE}{headline}")]
    } else {
        [out, headline, paced_cells, paced_summary]
    };
    (sections, worse)
}

/// The header and one row per cell in both files: its figures, verdict and clusters.
fn table(comparison: &Comparison) -> String {
    let header = "runtime|mode|tasks|channel|old trimmed mean|new trimmed mean|old median|new median|new/old";
    let mut out = format!("{} [99.9% interval]  verdict\n", padded(header.split('|').map(str::to_owned)));
    for (key, compared) in &comparison.cells {
        let channel = format!("{}{}", key.channel_label(), notes(comparison, key, &key.coord.setting.phased()));
        let label =
            [key.coord.runtime.name().to_owned(), key.coord.mode.name().to_owned(), key.tasks.to_string(), channel];
        let (figures, verdict) = match compared {
            Some(compared) => figures(compared),
            None => (vec![String::new(); 5], "  no ok samples to compare".to_owned()),
        };
        let _ = writeln!(out, "{}{verdict}", padded(label.into_iter().chain(figures)));
    }
    out
}

/// `cells` in the table's columns, each padded to its width, left-aligned where it is negative.
fn padded(cells: impl IntoIterator<Item = String>) -> String {
    let widths: [isize; 9] = [-15, -12, 5, -16, 17, 17, 10, 10, 8];
    let cells = cells.into_iter().zip(widths).map(|(cell, width)| match width.unsigned_abs() {
        pad if width < 0 => format!("{cell:<pad$}"),
        pad => format!("{cell:>pad$}"),
    });
    cells.collect::<Vec<_>>().join(" ")
}

/// A compared cell's figures in the table's columns, then its interval, verdict and clusters.
fn figures(compared: &Compared) -> (Vec<String>, String) {
    let (old, new, (low, high)) = (&compared.old, &compared.new, compared.interval);
    let medians = [old.median, new.median].map(|median| format!("{median:.1}"));
    let ratio = format!("{:.3}", new.trimmed_mean / old.trimmed_mean);
    let figures = [mean_text(old), mean_text(new)].into_iter().chain(medians).chain([ratio]);
    let clusters = (!compared.old.clusters.is_empty() || !compared.new.clusters.is_empty()).then(|| {
        let [old, new] = [&compared.old.clusters, &compared.new.clusters].map(|found| format::found_clusters(found));
        format!("  clusters old {old}; new {new}")
    });
    let verdict = word(compared.call, ["faster", "slower", "~"]);
    (figures.collect(), format!(" [{low:.2}–{high:.2}]  {verdict}{}", clusters.unwrap_or_default()))
}

/// `5 cells in both: 1 faster, 1 slower, 2 no change beyond the noise, 1 without ok samples`.
fn counts_text(counts: &Counts) -> String {
    let Counts { faster, slower, no_change, without_ok } = *counts;
    let total = faster + slower + no_change + without_ok;
    let without_ok = if without_ok > 0 { format!(", {without_ok} without ok samples") } else { String::new() };
    format!(
        "{total} cells in both: {faster} faster, {slower} slower, {no_change} no change beyond the noise{without_ok}"
    )
}

/// The spreads, mixed and disturbed cells and the agreement, when any cell was compared.
fn closing_lines(out: &mut String, comparison: &Comparison) {
    let Some((Spread { median, worst, .. }, cell)) = comparison.overall else { return };
    let cell = paced::cell_label(cell);
    let _ = write!(out, "\nmedian ratio of trimmed means (larger/smaller) {median:.3}, worst {worst:.3} ({cell})");
    let by_runtime = comparison.by_runtime.iter().map(|&RuntimeSpread { runtime, trimmed_means, medians, counts }| {
        let (cells, trimmed_means, medians) = (trimmed_means.cells, text(trimmed_means), text(medians));
        let Counts { faster, slower, .. } = counts;
        format!(
            " {runtime} ({cells} cells) trimmed means {trimmed_means}, medians {medians}, {faster} faster, {slower} \
             slower"
        )
    });
    let by_runtime: Vec<String> = by_runtime.collect();
    let _ = write!(out, "\nratios by runtime, median/worst over cells:{}", by_runtime.join(";"));
    let drift: Vec<String> = comparison
        .drift
        .by_runtime
        .iter()
        .filter(|(runtime, ..)| comparison.cells.iter().any(|(key, _)| key.coord.runtime == *runtime))
        .map(|(runtime, drift, measured)| {
            let basis = if *measured {
                "measured from the two files' cells"
            } else {
                "calibrated, too few cells to measure it"
            };
            format!(" {runtime} {} ({basis})", percent(*drift))
        })
        .collect();
    let _ = write!(out, "\ndrift between the two runs, each verdict's floor:{}", drift.join(";"));
    let ((mixed_old, mixed_new, mixed_both), (disturbed_old, disturbed_new)) = (comparison.mixed, comparison.disturbed);
    let agree = comparison.agreement;
    let reasons = Why::ALL.map(Why::words).join(", ");
    let _ = write!(
        out,
        "\nmixed cells (more than one cluster): {mixed_old} in old, {mixed_new} in new, {mixed_both} in both\n\
         disturbed samples left out ({reasons}): {disturbed_old} in old, {disturbed_new} in new\nsame fastest channel (lowest trimmed mean) in {} of \
         {} (runtime, mode, tasks) groups; summary bands: leaders overlap in {} of {}, a clear winner contradicted in {}",
        agree.same_fastest, agree.groups, agree.bands_overlapping, agree.bands, agree.bands_contradicted
    );
}

/// What tells `key`'s cell apart after its name: its worker count when the files hold several
/// for its runtime, its capacity when they hold several, and `setting`.
fn notes(comparison: &Comparison, key: &CellKey, setting: &str) -> String {
    let apart = |differs: &dyn Fn(&CellKey) -> bool| {
        let mut keys =
            comparison.cells.iter().map(|(key, _)| key).chain(&comparison.only_old).chain(&comparison.only_new);
        keys.any(|other| differs(other))
    };
    let workers = apart(&|other| other.coord.runtime == key.coord.runtime && other.coord.workers != key.coord.workers);
    let capacity = apart(&|other| other.coord.capacity != key.coord.capacity);
    format::group_notes(workers.then_some(key.coord.workers), capacity.then_some(key.coord.capacity), setting)
}

fn text(spread: Spread) -> String {
    format!("{:.3}/{:.3}", spread.median, spread.worst)
}

fn mean_text(figures: &Figures) -> String {
    match figures.trimmed_mean_precision() {
        Some(precision) => format!("{:.1} ±{:.1}%", figures.trimmed_mean, precision * 100.0),
        None => format!("{:.1} (n={})", figures.trimmed_mean, figures.samples.len()),
    }
}

/// `compare`'s paced cells: one line per paced cell in both runs, with the verdict on each
/// figure (`noise::change`).
fn paced_cells(agreement: &PacedAgreement) -> String {
    let lines = agreement.cells.iter().map(|pair| {
        let both = |figure: &dyn Fn(&PacedCell) -> String| format!("{} → {}", figure(&pair.old), figure(&pair.new));
        let p99 = both(&|cell| cell.latency.map_or("-".to_owned(), |l| duration(l.p99 as f64)));
        let cpu = both(&|cell| cell.cpu_ns_per_delivered.map_or("-".to_owned(), |ns| format!("{} ns", number(ns))));
        let overflowed = both(&|cell| percent(cell.overflow_share));
        let [p99_verdict, cpu_verdict, overflow_verdict] =
            pair.verdicts.map(|verdict| word(verdict.map_or(Call::Tied, |v| v.call), ["(better)", "(worse)", "(~)"]));
        let cell = paced::cell_label(pair.key);
        format!("{cell}: p99 {p99} {p99_verdict}, overflowed {overflowed} {overflow_verdict}, CPU {cpu} {cpu_verdict}")
    });
    let figures = "pooled p99, frames overflowed, CPU per delivered message (trimmed mean)";
    format!("\n{HEADING}, per paced cell (old → new): {figures}\n{}", list(lines, Format::Text))
}

/// `compare`'s paced headline: how many paced cells are worse, the smallest change a cell's
/// verdict on p99 and on CPU tells apart, then how far the two runs agree (their median and
/// worst over the cells), which two runs of one build calibrate the paced drift with.
fn paced_summary(agreement: &PacedAgreement) -> String {
    let (slower, cells) = (agreement.cells.iter().filter(|pair| pair.slower()).count(), agreement.cells.len());
    let mut out = format!("paced cells worse beyond the noise (p99, CPU or frames overflowed): {slower} of {cells}\n");
    let on = [" on pooled p99", " on CPU per delivered message"].into_iter().zip(&agreement.detectable);
    out.extend(on.filter_map(|(on, detectable)| Some(super::ab::detectable(detectable, on, CELL_BASIS)? + "\n")));
    let ratio = |spread: Option<Spread>| {
        spread.map_or("no cell with it in both".to_owned(), |s| {
            format!("median {:.2}×, worst {:.2}× ({} cells)", s.median, s.worst, s.cells)
        })
    };
    let points = agreement.overflow_points.map_or(String::new(), |(median, worst)| {
        format!("median {} points, worst {} points ({cells} cells)", number(median), number(worst))
    });
    let ([p99, cpu, overflow], bands) = (agreement.contradicted, agreement.bands);
    let _ = writeln!(
        out,
        "two runs' pooled p99, larger over smaller: {}\ntwo runs' frames overflowed, difference: {points}\ntwo runs' \
         CPU per delivered message, larger over smaller: {}\nbands whose leaders share no channel, of {bands}: {p99} \
         on p99, {cpu} on CPU, {overflow} on frames overflowed",
        ratio(agreement.p99),
        ratio(agreement.cpu)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::compare::compare;
    use crate::results::paced::tests::{file, sample};

    /// Two paced runs of channels `a` and `b`, six samples a cell: `a`'s p99 ten times the old
    /// run's in the new (past the 4.04× a cell's verdict can detect at this noise), `b` unchanged.
    fn report_of_a_slower_p99() -> [String; 4] {
        let run = |p99: u64| {
            let samples = |p99: u64| (0..6).map(|_| sample(vec![p99; 100], (100, 0), 0, 1_000_000)).collect();
            file(vec![("a", 8, samples(p99)), ("b", 8, samples(1000))])
        };
        let (old, new) = (run(1000), run(10_000));
        report("old.csv", "new.csv", &compare(&old, &new)).0
    }

    #[test]
    fn two_paced_runs_say_each_cell_old_to_new_and_count_the_worse() {
        // Every cell paced: the paced sections lead, ns/message's headline last.
        let [cells, paced_cells, paced_summary, headline] = report_of_a_slower_p99();
        assert!(!cells.is_empty() && headline.starts_with(&format!("\n{RESTATES_THE_SCHEDULE}")), "{headline}");
        let lines: Vec<&str> = paced_cells.lines().filter(|line| line.contains(": p99 ")).collect();
        assert_eq!(lines.len(), 2, "{paced_cells}");
        assert!(lines[0].contains("a [") && lines[0].contains("p99 1.00 µs → 10.0 µs (worse)"), "{paced_cells}");
        assert!(lines[1].contains("b [") && lines[1].contains("p99 1.00 µs → 1.00 µs (~)"), "{paced_cells}");
        assert!(
            paced_summary.starts_with("paced cells worse beyond the noise (p99, CPU or frames overflowed): 1 of 2\n"),
            "{paced_summary}"
        );
        // The latency histograms keep three significant digits: 10,000 ns reads back a little higher.
        let p99 = "two runs' pooled p99, larger over smaller: median 5.50×, worst 10.01× (2 cells)";
        assert!(paced_summary.contains(p99), "{paced_summary}");
    }
}

//! What `channel-bench compare` prints: how the two runs' workloads and machines differ, and
//! the table of cells.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use crate::results::compare::{Spread, Verdict, agreement, spread, verdict};
use crate::results::load::{CellKey, ResultsFile, WorkloadKey};
use crate::results::metadata::Metadata;
use crate::results::thresholds::Thresholds;
use crate::run::measure::workers_text;
use crate::stats::{self, Summary};

/// The first workload setting (messages, capacity, workers) in which the files' cells
/// differ, in words naming the flag and both files' values (`old.csv has --messages 65536,
/// new.csv 1048576`); `None` when every setting is
/// the same in both, or unknown in one of them (a file older than the column).
pub fn workload_difference(old_name: &str, old: &[WorkloadKey], new_name: &str, new: &[WorkloadKey]) -> Option<String> {
    type Setting = fn(&WorkloadKey) -> u64;
    let settings: [(&str, Setting); 3] = [
        ("--messages", |workload| workload.messages),
        ("--capacity", |workload| workload.capacity),
        ("--workers", |workload| workload.workers),
    ];
    settings.into_iter().find_map(|(flag, value)| {
        let values = |workloads: &[WorkloadKey]| {
            let mut known: Vec<u64> = workloads.iter().map(value).filter(|&v| v > 0).collect();
            known.sort_unstable();
            known.dedup();
            known
        };
        let (old_values, new_values) = (values(old), values(new));
        let known_in_both = !old_values.is_empty() && !new_values.is_empty();
        let text = |values: Vec<u64>| values.iter().map(u64::to_string).collect::<Vec<_>>().join("/");
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
    let (old, new) = match (old, new) {
        (Some(old), Some(new)) => (old, new),
        (old, new) => {
            let mut missing: Vec<&str> =
                [(old, old_name), (new, new_name)].into_iter().filter(|(m, _)| m.is_none()).map(|(_, n)| n).collect();
            missing.dedup();
            return vec![format!("machine and build not compared: no JSON beside {}", missing.join(" and "))];
        }
    };
    let shown = |value: &Option<String>| value.as_deref().unwrap_or("unknown").to_owned();
    let mut lines = Vec::new();
    let fields = [
        ("host", shown(&old.hostname), shown(&new.hostname)),
        ("CPU", shown(&old.cpu_model), shown(&new.cpu_model)),
        ("cores", old.cores.to_string(), new.cores.to_string()),
        ("rustc", old.rustc.clone(), new.rustc.clone()),
    ];
    for (what, before, after) in fields {
        if before != after {
            lines.push(format!("different {what}: {before} (old), {after} (new)"));
        }
    }
    let crates: BTreeMap<&String, (Option<&String>, Option<&String>)> = old
        .crates
        .keys()
        .chain(new.crates.keys())
        .map(|name| (name, (old.crates.get(name), new.crates.get(name))))
        .collect();
    for (name, (before, after)) in crates {
        if before != after {
            let version = |v: Option<&String>| v.map_or("absent".to_owned(), String::clone);
            lines.push(format!("different {name}: {} (old), {} (new)", version(before), version(after)));
        }
    }
    lines
}

/// The comparison table and what it found.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The table, the cells found in only one file, and a closing line of counts.
    pub text: String,
    /// Cells slower beyond the noise.
    pub slower: usize,
}

/// The comparison table of two files: per cell the means with their precision, the medians,
/// the ratio of the means, the verdict, and the modes of a cell whose samples form more than
/// one in either file. Then the cells found in only one file, a line of counts, the spread of
/// the ratios (of means, the headline; of medians too, and per runtime, to judge A/A runs),
/// how many cells are mixed in each file, and how often the two files pick the same fastest
/// channel ([`agreement`]).
pub fn report(old_name: &str, old: &ResultsFile, new_name: &str, new: &ResultsFile, thresholds: Thresholds) -> Report {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<15} {:<12} {:>5} {:<16} {:>17} {:>17} {:>10} {:>10} {:>8}  verdict",
        "runtime",
        "mode",
        "tasks",
        "channel",
        "old trimmed mean",
        "new trimmed mean",
        "old median",
        "new median",
        "new/old"
    );
    // Worker counts are named only when the files hold several for one runtime.
    let mut workers: Vec<(&str, u64)> =
        old.order.iter().chain(&new.order).map(|key| (key.runtime.as_str(), key.workload.workers)).collect();
    workers.sort_unstable();
    workers.dedup();
    let several: Vec<&str> = workers.windows(2).filter(|pair| pair[0].0 == pair[1].0).map(|pair| pair[0].0).collect();
    let several_workers = |key: &CellKey| several.contains(&key.runtime.as_str());
    let mut counts = HashMap::new();
    let mut pairs: Vec<Pair> = Vec::new();
    let mut mixed = (0, 0, 0);
    for key in old.order.iter().filter(|key| new.cells.contains_key(*key)) {
        let (old_cell, new_cell) = (&old.cells[key], &new.cells[key]);
        let channel = channel_text(key, several_workers(key));
        let label = format!("{:<15} {:<12} {:>5} {channel:<16}", key.runtime, key.mode, key.tasks);
        let (Some(old_summary), Some(new_summary)) = (stats::summarize(&old_cell.ok), stats::summarize(&new_cell.ok))
        else {
            let _ = writeln!(
                out,
                "{label} {:>17} {:>17} {:>10} {:>10} {:>8}  no ok samples to compare",
                "", "", "", "", ""
            );
            *counts.entry("failed").or_insert(0) += 1;
            continue;
        };
        let ratio = new_summary.trimmed_mean / old_summary.trimmed_mean;
        let decision = verdict(&old_cell.ok, &new_cell.ok, thresholds.of(&key.runtime));
        let (old_modes, new_modes) = (stats::modes(&old_cell.ok), stats::modes(&new_cell.ok));
        let modes = match (old_modes.len() > 1, new_modes.len() > 1) {
            (false, false) => String::new(),
            (old_mixed, new_mixed) => {
                mixed.0 += usize::from(old_mixed);
                mixed.1 += usize::from(new_mixed);
                mixed.2 += usize::from(old_mixed && new_mixed);
                format!("  modes old {}; new {}", stats::modes_text(&old_modes), stats::modes_text(&new_modes))
            }
        };
        let _ = writeln!(
            out,
            "{label} {:>17} {:>17} {:>10.1} {:>10.1} {ratio:>8.3}  {}{modes}",
            mean_text(&old_summary),
            mean_text(&new_summary),
            old_summary.median,
            new_summary.median,
            decision.word()
        );
        *counts.entry(decision.word()).or_insert(0) += 1;
        pairs.push((key, old_summary, new_summary));
    }
    for (name, only, other) in [(old_name, old, new), (new_name, new, old)] {
        let missing: Vec<&CellKey> = only.order.iter().filter(|key| !other.cells.contains_key(*key)).collect();
        if !missing.is_empty() {
            let _ = writeln!(out, "\nonly in {name} ({} cells):", missing.len());
            for key in missing {
                let workers = if several_workers(key) {
                    format!(" [{}]", workers_text(key.workload.workers))
                } else {
                    String::new()
                };
                let _ = writeln!(out, "  {}{workers}", key.label());
            }
        }
    }
    let count = |word: &str| counts.get(word).copied().unwrap_or(0);
    let _ = write!(
        out,
        "\n{} cells in both: {} faster, {} slower, {} no change beyond the noise",
        pairs.len() + count("failed"),
        count("faster"),
        count(Verdict::Slower.word()),
        count("~")
    );
    if count("failed") > 0 {
        let _ = write!(out, ", {} without ok samples", count("failed"));
    }
    let worst = pairs.iter().max_by(|a, b| {
        let ratio = |(old, new): (f64, f64)| (new / old).max(old / new);
        ratio(means(a)).total_cmp(&ratio(means(b)))
    });
    if let (Some(overall), Some((key, _, _))) = (spread(pairs.iter().map(means)), worst) {
        let _ = write!(
            out,
            "\nmedian ratio of trimmed means (larger/smaller) {:.3}, worst {:.3} ({})",
            overall.median,
            overall.worst,
            key.label()
        );
        let _ = write!(out, "\nratios by runtime, median/worst over cells:");
        for runtime in ["current-thread", "multi-thread"] {
            let of = |figure: fn(&Pair) -> (f64, f64)| {
                spread(pairs.iter().filter(|pair| pair.0.runtime == runtime).map(figure))
            };
            if let (Some(mean), Some(median)) = (of(means), of(medians)) {
                let _ = write!(
                    out,
                    " {runtime} ({} cells) trimmed means {}, medians {};",
                    mean.cells,
                    text(mean),
                    text(median)
                );
            }
        }
        out.pop();
        let _ = write!(
            out,
            "\nmixed cells (more than one mode): {} in old, {} in new, {} in both",
            mixed.0, mixed.1, mixed.2
        );
        let disturbed = |file: &ResultsFile| file.cells.values().map(|cell| cell.disturbed.len()).sum::<usize>();
        let _ = write!(
            out,
            "\ndisturbed samples left out (other cells measured around them were slow too): {} in old, {} in new",
            disturbed(old),
            disturbed(new)
        );
        let agree = agreement(old, new, thresholds);
        let _ = write!(
            out,
            "\nsame fastest channel (lowest trimmed mean) in {} of {} (runtime, mode, tasks) groups; summary bands: leaders \
             overlap in {} of {}, a clear winner contradicted in {}",
            agree.same_fastest, agree.groups, agree.bands_overlapping, agree.bands, agree.bands_contradicted
        );
    }
    out.push('\n');
    Report { text: out, slower: count(Verdict::Slower.word()) }
}

/// A cell in both files, with its summaries in the old and the new.
type Pair<'a> = (&'a CellKey, Summary, Summary);

fn means((_, old, new): &Pair) -> (f64, f64) {
    (old.trimmed_mean, new.trimmed_mean)
}

fn medians((_, old, new): &Pair) -> (f64, f64) {
    (old.median, new.median)
}

fn text(spread: Spread) -> String {
    format!("{:.3}/{:.3}", spread.median, spread.worst)
}

fn mean_text(summary: &Summary) -> String {
    match summary.trimmed_mean_precision() {
        Some(precision) => format!("{:.1} ±{:.1}%", summary.trimmed_mean, precision * 100.0),
        None => format!("{:.1} (n={})", summary.trimmed_mean, summary.count),
    }
}

/// The channel column: the channel, then the worker count (when the files hold several for
/// its runtime: `several_workers`) and the setting in brackets.
fn channel_text(key: &CellKey, several_workers: bool) -> String {
    let workers = several_workers.then(|| workers_text(key.workload.workers));
    let notes: Vec<&str> = workers
        .as_deref()
        .into_iter()
        .chain(Some(key.setting.as_str()).filter(|setting| !setting.is_empty()))
        .collect();
    if notes.is_empty() { key.channel.clone() } else { format!("{} [{}]", key.channel, notes.join(", ")) }
}

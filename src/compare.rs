//! `channel-bench compare OLD.csv NEW.csv`: every cell present in both files, its two
//! medians, their ratio, and whether the change is beyond the noise of the two files.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, bail};

use crate::stats::{self, Summary};

/// A cell: runtime, mode, task count, channel, and the setting it ran under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CellKey {
    /// `multi-thread` or `current-thread`.
    pub runtime: String,
    /// `cloned-send` or `merged-recv`.
    pub mode: String,
    /// Sending tasks.
    pub tasks: u64,
    /// Channel name, with ` via MERGE` when merged-recv merged its receivers another way
    /// than the default futures-buffered (as the sweep's console names it).
    pub channel: String,
    /// What else set the cell apart from a default run, such as `payload 300..2000 seed 1,
    /// paced 8 every 20ms, latency`; empty for a default run and for files older than those columns.
    pub setting: String,
}

impl CellKey {
    /// `runtime mode tasks=T channel`, then the setting in brackets when there is one.
    pub fn label(&self) -> String {
        let setting = if self.setting.is_empty() { String::new() } else { format!(" [{}]", self.setting) };
        format!("{} {} tasks={} {}{setting}", self.runtime, self.mode, self.tasks, self.channel)
    }
}

/// The optional columns that set a cell apart, where a file has them.
struct SettingColumns {
    merge: Option<usize>,
    payload: Option<usize>,
    seed: Option<usize>,
    pace_ns: Option<usize>,
    burst: Option<usize>,
    sink: Option<usize>,
    latency: Option<usize>,
    allocs: Option<usize>,
}

impl SettingColumns {
    fn find(column: impl Fn(&str) -> Option<usize>) -> Self {
        Self {
            merge: column("merge"),
            payload: column("payload"),
            seed: column("seed"),
            pace_ns: column("pace_ns"),
            burst: column("burst"),
            sink: column("sink"),
            latency: column("lat_p50_ns"),
            allocs: column("allocs_per_message"),
        }
    }

    /// The channel's name with its merge strategy, and the setting, of one row.
    fn read(&self, record: &csv::StringRecord, channel: &str) -> (String, String) {
        let field = |at: Option<usize>| at.map_or("", |at| &record[at]);
        let channel = match field(self.merge) {
            "" | "futures-buffered" => channel.to_owned(),
            merge => format!("{channel} via {merge}"),
        };
        let mut parts = Vec::new();
        if !matches!(field(self.payload), "" | "1200") {
            let seed = field(self.seed);
            let seed = if seed.is_empty() { String::new() } else { format!(" seed {seed}") };
            parts.push(format!("payload {}{seed}", field(self.payload)));
        }
        if let Ok(pace_ns) = field(self.pace_ns).parse::<u64>() {
            let interval = humantime::format_duration(std::time::Duration::from_nanos(pace_ns));
            parts.push(format!("paced {} every {interval}", field(self.burst)));
        }
        if !matches!(field(self.sink), "" | "none") {
            parts.push(format!("sink {}", field(self.sink)));
        }
        if !field(self.latency).is_empty() {
            parts.push("latency".to_owned());
        }
        if !field(self.allocs).is_empty() {
            parts.push("allocs counted".to_owned());
        }
        (channel, parts.join(", "))
    }
}

/// The samples of one cell in one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellSamples {
    /// ns/message of the `ok` samples.
    pub ok: Vec<f64>,
    /// How many samples failed.
    pub failed: usize,
    /// CPU nanoseconds per message (`cpu_ns / messages`) of the `ok` samples; empty when the
    /// file has no `cpu_ns` or `messages` column.
    pub cpu_ns_per_message: Vec<f64>,
    /// `lat_p99_ns` of the `ok` samples that have one (the column is optional, its value empty
    /// where latency was not measured).
    pub lat_p99_ns: Vec<f64>,
}

/// One file's cells, in the order they first appear.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Cells in file order.
    pub order: Vec<CellKey>,
    /// Each cell's samples.
    pub cells: HashMap<CellKey, CellSamples>,
    /// Set when the file ended in a partial line (a run killed mid-write), which was skipped.
    pub skipped_partial_line: bool,
}

const REQUIRED: [&str; 6] = ["channel", "mode", "runtime", "tasks", "ns_per_message", "status"];

/// Reads a channel-bench CSV. A last line without its newline is a row cut off mid-write:
/// it is skipped and reported; any other malformed line is an error naming the file and line.
pub fn load(path: &Path) -> anyhow::Result<Samples> {
    let name = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
    let skipped_partial_line = !text.is_empty() && !text.ends_with('\n');
    let complete = if skipped_partial_line { &text[..text.rfind('\n').map_or(0, |at| at + 1)] } else { &text[..] };
    if complete.trim().is_empty() {
        bail!("{name} is empty: not a channel-bench CSV");
    }
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(complete.as_bytes());
    let header = reader.headers().with_context(|| format!("{name} is not a CSV"))?.clone();
    let column = |wanted: &str| header.iter().position(|name| name == wanted);
    let missing: Vec<&str> = REQUIRED.into_iter().filter(|wanted| column(wanted).is_none()).collect();
    if !missing.is_empty() {
        bail!("{name} is not a channel-bench CSV: no column {}", missing.join(", "));
    }
    let [channel, mode, runtime, tasks, ns_per_message, status] =
        REQUIRED.map(|wanted| column(wanted).expect("checked"));
    // Optional: older files and hand-made ones may lack them.
    let cpu = column("cpu_ns").zip(column("messages"));
    let lat_p99 = column("lat_p99_ns");
    let setting_columns = SettingColumns::find(column);

    let mut samples = Samples { skipped_partial_line, ..Samples::default() };
    for record in reader.records() {
        let record = record.with_context(|| format!("{name} is not a CSV"))?;
        let line = record.position().map_or(0, |position| position.line());
        if record.len() != header.len() {
            bail!("{name} line {line}: {} fields where the header has {}", record.len(), header.len());
        }
        let tasks = record[tasks]
            .parse::<u64>()
            .ok()
            .filter(|&tasks| tasks > 0)
            .with_context(|| format!("{name} line {line}: tasks {:?} is not a positive integer", &record[tasks]))?;
        let value = record[ns_per_message]
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value >= 0.0)
            .with_context(|| {
                format!("{name} line {line}: ns_per_message {:?} is not a number", &record[ns_per_message])
            })?;
        let (channel, setting) = setting_columns.read(&record, &record[channel]);
        let key =
            CellKey { runtime: record[runtime].to_owned(), mode: record[mode].to_owned(), tasks, channel, setting };
        let cell = samples.cells.entry(key.clone()).or_insert_with(|| {
            samples.order.push(key);
            CellSamples::default()
        });
        if &record[status] == "ok" {
            cell.ok.push(value);
            let number = |at: usize| {
                let text = &record[at];
                let value = text.parse::<f64>().ok().filter(|value| value.is_finite() && *value >= 0.0);
                value.with_context(|| format!("{name} line {line}: {} {text:?} is not a number", &header[at]))
            };
            if let Some((cpu_ns, messages)) = cpu {
                cell.cpu_ns_per_message.push(number(cpu_ns)? / number(messages)?.max(1.0));
            }
            if let Some(lat_p99) = lat_p99.filter(|&at| !record[at].is_empty()) {
                cell.lat_p99_ns.push(number(lat_p99)?);
            }
        } else {
            cell.failed += 1;
        }
    }
    if samples.cells.is_empty() {
        bail!("{name} has a header but no samples");
    }
    Ok(samples)
}

/// What a comparison says about one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// NEW's median is lower, beyond the noise of both files.
    Faster,
    /// NEW's median is higher, beyond the noise of both files.
    Slower,
    /// The difference is within the noise, or smaller than the threshold.
    NoChange,
}

impl Verdict {
    /// The word printed in the table.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "~",
        }
    }
}

/// The interval a median is believed to lie in: its confidence interval, or the min–max
/// of the samples when there are too few for one.
pub fn noise_band(summary: &Summary) -> (f64, f64) {
    summary.median_interval.unwrap_or((summary.min, summary.max))
}

/// Faster or slower when the medians differ by at least `threshold` (0.02 = 2%) and the two
/// medians' intervals do not overlap; otherwise no change.
pub fn verdict(old: &Summary, new: &Summary, threshold: f64) -> Verdict {
    let ratio = new.median / old.median;
    let ((old_low, old_high), (new_low, new_high)) = (noise_band(old), noise_band(new));
    if (ratio - 1.0).abs() < threshold {
        Verdict::NoChange
    } else if new_high < old_low {
        Verdict::Faster
    } else if new_low > old_high {
        Verdict::Slower
    } else {
        Verdict::NoChange
    }
}

/// The comparison table of two files, with the cells found in only one of them and a
/// closing line of counts and the spread of the ratios.
pub fn report(old_name: &str, old: &Samples, new_name: &str, new: &Samples, threshold: f64) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<15} {:<12} {:>5} {:<16} {:>17} {:>17} {:>8}  verdict",
        "runtime", "mode", "tasks", "channel", "old ns/msg", "new ns/msg", "new/old"
    );
    let mut counts = HashMap::new();
    let mut spreads = Vec::new();
    let mut worst: Option<(f64, &CellKey)> = None;
    for key in old.order.iter().filter(|key| new.cells.contains_key(*key)) {
        let (old_cell, new_cell) = (&old.cells[key], &new.cells[key]);
        let channel =
            if key.setting.is_empty() { key.channel.clone() } else { format!("{} [{}]", key.channel, key.setting) };
        let label = format!("{:<15} {:<12} {:>5} {channel:<16}", key.runtime, key.mode, key.tasks);
        let (Some(old_summary), Some(new_summary)) = (stats::summarize(&old_cell.ok), stats::summarize(&new_cell.ok))
        else {
            let _ = writeln!(out, "{label} {:>17} {:>17} {:>8}  no ok samples to compare", "", "", "");
            *counts.entry("failed").or_insert(0) += 1;
            continue;
        };
        let ratio = new_summary.median / old_summary.median;
        let decision = verdict(&old_summary, &new_summary, threshold);
        let _ = writeln!(
            out,
            "{label} {:>17} {:>17} {ratio:>8.3}  {}",
            median_text(&old_summary),
            median_text(&new_summary),
            decision.word()
        );
        *counts.entry(decision.word()).or_insert(0) += 1;
        let spread = ratio.max(1.0 / ratio);
        spreads.push(spread);
        if worst.is_none_or(|(largest, _)| spread > largest) {
            worst = Some((spread, key));
        }
    }
    for (name, only, other) in [(old_name, old, new), (new_name, new, old)] {
        let missing: Vec<&CellKey> = only.order.iter().filter(|key| !other.cells.contains_key(*key)).collect();
        if !missing.is_empty() {
            let _ = writeln!(out, "\nonly in {name} ({} cells):", missing.len());
            for key in missing {
                let _ = writeln!(out, "  {}", key.label());
            }
        }
    }
    let count = |word: &str| counts.get(word).copied().unwrap_or(0);
    let _ = write!(
        out,
        "\n{} cells in both: {} faster, {} slower, {} no change beyond the noise",
        spreads.len() + count("failed"),
        count("faster"),
        count("slower"),
        count("~")
    );
    if count("failed") > 0 {
        let _ = write!(out, ", {} without ok samples", count("failed"));
    }
    if let (Some(summary), Some((largest, key))) = (stats::summarize(&spreads), worst) {
        let _ =
            write!(out, "\nmedian ratio (larger/smaller) {:.3}, worst {largest:.3} ({})", summary.median, key.label());
    }
    out.push('\n');
    out
}

fn median_text(summary: &Summary) -> String {
    match summary.median_precision() {
        Some(precision) => format!("{:.1} ±{:.1}%", summary.median, precision * 100.0),
        None => format!("{:.1} (n={})", summary.median, summary.count),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(values: &[f64]) -> Summary {
        stats::summarize(values).unwrap()
    }

    #[test]
    fn clearly_lower_is_faster_and_higher_is_slower() {
        let old = summary(&[100.0, 101.0, 99.0, 100.5, 100.2]);
        let new = summary(&[80.0, 81.0, 79.5, 80.2, 80.9]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::Faster);
        assert_eq!(verdict(&new, &old, 0.02), Verdict::Slower);
    }

    #[test]
    fn overlapping_noise_is_no_change() {
        let old = summary(&[100.0, 140.0, 90.0, 120.0, 105.0]);
        let new = summary(&[115.0, 150.0, 95.0, 130.0, 118.0]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
    }

    #[test]
    fn a_separated_change_below_the_threshold_is_no_change() {
        let old = summary(&[100.0, 100.1, 100.2, 100.0, 100.1]);
        let new = summary(&[101.0, 101.1, 101.2, 101.0, 101.1]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
        assert_eq!(verdict(&old, &new, 0.005), Verdict::Slower);
    }

    #[test]
    fn too_few_samples_fall_back_to_the_range() {
        let old = summary(&[100.0, 104.0]);
        let new = summary(&[103.0, 110.0]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::NoChange);
        let new = summary(&[105.0, 110.0]);
        assert_eq!(verdict(&old, &new, 0.02), Verdict::Slower);
    }
}

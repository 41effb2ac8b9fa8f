//! The one owner of how numbers and labels read in every report: figures to three
//! significant figures, latencies in their unit, text escaped for HTML, a cell's sample clusters, and the worker
//! count and setting that tell a group of cells apart.

use crate::results::band::Band;
use crate::run::measure::RuntimeKind;
use crate::run::workload::Capacity;
use crate::stats;
use crate::stats::verdict::Verdict;

/// `text` with `&`, `<`, `>` and `"` escaped, for element content and attribute values.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Three significant figures, no more decimals than that: `1234`, `65.2`, `7.89`.
pub fn number(value: f64) -> String {
    match value.abs() {
        v if v >= 100.0 => format!("{value:.0}"),
        v if v >= 10.0 => format!("{value:.1}"),
        _ => format!("{value:.2}"),
    }
}

/// A share from 0 to 1 in percent, three significant figures: `12.0%`.
pub fn percent(share: f64) -> String {
    format!("{}%", number(share * 100.0))
}

/// A latency in ns, in the unit that keeps it readable: `850 ns`, `12.3 µs`, `4.56 ms`.
pub fn duration(ns: f64) -> String {
    match ns {
        ns if ns >= 1e6 => format!("{} ms", number(ns / 1e6)),
        ns if ns >= 1e3 => format!("{} µs", number(ns / 1e3)),
        ns => format!("{} ns", number(ns)),
    }
}

/// `25,000`: a whole number with its thousands separated.
pub fn thousands(value: f64) -> String {
    crate::run::workload::thousands(&format!("{value:.0}"))
}

/// The widest interval said with its figure: a tie wider than this, or a ratio whose 95%
/// interval's high end is more than this many times its low end, resolves nothing worth a
/// number, and every report says so instead.
pub const UNRESOLVED: f64 = 10.0;

/// A verdict's ratio and interval on a log scale, as every report writes it: `1.21× [1.15–1.27]`;
/// [`NOT_RESOLVED`] when the interval spans more than [`UNRESOLVED`] (high over low).
pub fn ratio(verdict: &Verdict) -> String {
    interval(verdict.mean.exp(), verdict.low.exp(), verdict.high.exp())
}

/// What a ratio whose interval spans more than [`UNRESOLVED`] prints as.
pub const NOT_RESOLVED: &str = "not resolved";

/// A ratio with its interval, `1.21× [1.15–1.27]`, or [`NOT_RESOLVED`] when the high end is more
/// than [`UNRESOLVED`] times the low end (or either is not a positive number).
pub fn interval(ratio: f64, low: f64, high: f64) -> String {
    if !(low > 0.0 && high / low <= UNRESOLVED) {
        return NOT_RESOLVED.to_owned();
    }
    format!("{ratio:.2}× [{low:.2}–{high:.2}]")
}

/// How close a tie is, as every report writes it: `within 4%` (a ratio, `is_ratio`) or
/// `within 1.2 points` (a share); a tie wider than 2× says what the run could resolve instead
/// (`not told apart below 3.1×`), and one wider than 10× that it resolves nothing under 10×;
/// never a margin over 100%.
pub fn within(verdict: &Verdict, is_ratio: bool) -> String {
    if is_ratio {
        let within = verdict.within().exp() - 1.0;
        if within + 1.0 > UNRESOLVED {
            return format!("not told apart: this run resolves nothing under {UNRESOLVED}×");
        }
        if within > 1.0 {
            return format!("not told apart below {}×", number(within + 1.0));
        }
        format!("within {}%", number(within * 100.0))
    } else {
        format!("within {} points", number(verdict.within()))
    }
}

/// A verdict on points of a share: `+2.1 points [0.5–3.7]`.
pub fn points(verdict: &Verdict) -> String {
    format!("{:+.1} points [{:.1}–{:.1}]", verdict.mean, verdict.low, verdict.high)
}

/// `40.0 ns ×60% | 125 ns ×40%`: the clusters `stats::clusters` found in a cell's samples, each
/// as its centre in ns and its share, lowest first.
pub fn found_clusters(found: &[stats::Cluster]) -> String {
    let one = |cluster: &stats::Cluster| format!("{} ns ×{:.0}%", number(cluster.centre), cluster.share * 100.0);
    found.iter().map(one).collect::<Vec<_>>().join(" | ")
}

/// `1 worker`, `2 workers`: a multi-thread runtime's worker threads, in words.
pub fn workers(workers: u64) -> String {
    count(workers, "worker", "workers")
}

/// `1 sample`, `4 samples`: `n` of a thing, `one` or `many` as `n` says.
pub fn count(n: u64, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// ` (2 workers)` after a multi-thread runtime's name; nothing after the current-thread one's.
pub fn threads(runtime: RuntimeKind, workers: u64) -> String {
    if runtime == RuntimeKind::MultiThread { format!(" ({})", self::workers(workers)) } else { String::new() }
}

/// ` [2 workers, paced 8 every 20ms]`: what sets a group of cells apart, to follow its mode or
/// channel; the worker count only when `workers` is given (the file holds several for the
/// runtime), the setting only when there is one; empty when neither.
pub fn group_notes(workers: Option<u64>, capacity: Option<Capacity>, setting: &str) -> String {
    let setting = Some(setting.to_owned()).filter(|setting| !setting.is_empty());
    let notes: Vec<String> =
        workers.map(self::workers).into_iter().chain(capacity.map(|c| c.to_string())).chain(setting).collect();
    if notes.is_empty() { String::new() } else { format!(" [{}]", notes.join(", ")) }
}

/// Where a band's table stands, lower case: `at 1,024 slots`, `on 16 cores (Intel(R) Xeon(R)
/// Processor), at 1,024 slots`, the machine named when the file holds several.
pub fn section(band: &Band) -> String {
    let machine = band.machine().map(|machine| format!("on {machine}"));
    let parts: Vec<String> = machine.into_iter().chain([format!("at {}", band.coord.capacity)]).collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
    }

    #[test]
    fn numbers_keep_three_significant_figures() {
        assert_eq!([number(1234.4), number(65.23), number(7.891)], ["1234", "65.2", "7.89"]);
        assert_eq!([duration(850.0), duration(12_345.0), duration(4_560_000.0)], ["850 ns", "12.3 µs", "4.56 ms"]);
        assert_eq!([thousands(999.0), thousands(75_000.0), thousands(1_048_576.4)], ["999", "75,000", "1,048,576"]);
    }

    #[test]
    fn clusters_read_as_centres_and_shares() {
        let found = stats::clusters(&[40.0, 41.0, 39.0, 124.0, 126.0]);
        assert_eq!(found_clusters(&found), "40.0 ns ×60% | 125 ns ×40%");
    }

    #[test]
    fn a_tie_says_how_close_then_what_the_run_could_not_resolve() {
        use crate::stats::verdict::{Call, Verdict};
        let tie = |far: f64| Verdict { mean: 0.0, low: -far.ln(), high: far.ln(), call: Call::Tied };
        assert_eq!(within(&tie(1.04), true), "within 4.00%");
        assert_eq!(within(&tie(3.1), true), "not told apart below 3.10×");
        assert_eq!(within(&tie(62_370.0), true), "not told apart: this run resolves nothing under 10×");
        assert_eq!(within(&Verdict { mean: 0.0, low: -1.2, high: 0.5, call: Call::Tied }, false), "within 1.20 points");
    }

    #[test]
    fn a_ratio_whose_interval_spans_more_than_the_limit_is_not_resolved() {
        use crate::stats::verdict::{Call, Verdict};
        let verdict = |mean: f64, low: f64, high: f64| Verdict {
            mean: f64::ln(mean),
            low: f64::ln(low),
            high: f64::ln(high),
            call: Call::Higher,
        };
        assert_eq!(ratio(&verdict(1.21, 1.15, 1.27)), "1.21× [1.15–1.27]");
        assert_eq!(ratio(&verdict(147.22, 2.31, 9381.65)), NOT_RESOLVED);
        assert_eq!(ratio(&verdict(3.0, 1.0, 9.9)), "3.00× [1.00–9.90]", "a span within the limit is resolved");
        assert_eq!(interval(2.0, 0.0, 4.0), NOT_RESOLVED);
    }

    #[test]
    fn notes_name_workers_and_setting_only_when_there_are_some() {
        assert_eq!(group_notes(None, None, ""), "");
        assert_eq!(group_notes(Some(1), None, ""), " [1 worker]");
        assert_eq!(group_notes(Some(2), Some(Capacity::Shared(1024)), "latency"), " [2 workers, 1,024 slots, latency]");
        assert_eq!(group_notes(None, None, "latency"), " [latency]");
    }
}

//! A paced cell's figures over its samples: latency pooled over every delivered message, the
//! shares of frames overflowed and messages dropped, CPU per delivered message and what it costs
//! at the offered rate, and how far each moves from one sample to the next. Below the answer
//! (`results::paced`) and the figures table (`results::figures`), which both read it.

use serde::{Serialize, Serializer};

use crate::results::load::PacedSample;
use crate::run::latency::Latency;
use crate::stats;

/// The paced figures of one cell, over all its samples; the cells JSON's `paced`, each field
/// under its name but `latency`, written as `pooled_p99_ns`, `pooled_p999_ns` and `pooled_max_ns`
/// (absent without `--latency`), and `ranges`, left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PacedCell {
    /// Percentiles of every delivered message of the cell together (the samples' latency
    /// histograms merged), nanoseconds; `None` without `--latency`.
    #[serde(flatten, serialize_with = "pooled")]
    pub latency: Option<Latency>,
    /// Frames with a message dropped over frames sent, all samples together (0.05 = 5%).
    pub overflow_share: f64,
    /// Messages dropped over messages sent, all samples together.
    pub drop_share: f64,
    /// CPU nanoseconds per delivered message: the trimmed mean over the samples of
    /// `cpu_ns / delivered`; `None` without CPU time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ns_per_delivered: Option<f64>,
    /// The offered rate: tasks × burst ÷ interval, messages per second.
    pub offered_per_s: f64,
    /// The share of one core the fan-in costs at the offered rate: CPU per delivered message ×
    /// the offered rate (0.12 = 12% of a core).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core_share: Option<f64>,
    /// The median over the samples of `resident_growth_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resident_growth_bytes: Option<f64>,
    /// Whether the pacer fell behind its schedule in most of the cell's samples: the cell then
    /// describes a lighter load than asked for, and is never ranked (the samples behind in a
    /// minority are left out of its figures).
    pub pacer_behind: bool,
    /// How far the figures move from one sample to the next: the median, least and most over
    /// the samples of each one's p99 (ns), share of messages dropped, and share of a core.
    #[serde(skip)]
    pub ranges: Ranges,
}

/// A cell's pooled latency as the cells JSON names it: `pooled_p99_ns`, `pooled_p999_ns`,
/// `pooled_max_ns`; nothing without latency.
fn pooled<S: Serializer>(latency: &Option<Latency>, serializer: S) -> Result<S::Ok, S::Error> {
    let keys = latency.map(|l| [("pooled_p99_ns", l.p99), ("pooled_p999_ns", l.p999), ("pooled_max_ns", l.max)]);
    serializer.collect_map(keys.into_iter().flatten())
}

/// A figure over a cell's samples: its median, least and most, and how many samples had it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// The median over the samples.
    pub median: f64,
    /// The least.
    pub low: f64,
    /// The most.
    pub high: f64,
    /// How many samples had the figure.
    pub samples: usize,
    /// When the samples fall in two clusters (`stats::clusters`) [`MODES_APART`] or more apart
    /// (a p99 in phase is often a microsecond in some seconds and a hundred in others): each
    /// one's median and samples, the lower first; a median alone would be one or the other as
    /// the samples fell.
    pub modes: Option<[(f64, usize); 2]>,
}

/// A figure over a cell's samples; `None` when no sample had it.
pub type Range = Option<Span>;

/// A paced cell's figures per sample, each as its [`Range`] over the samples.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Ranges {
    /// Each sample's p99 latency, nanoseconds.
    pub p99_ns: Range,
    /// Each sample's messages dropped over messages sent.
    pub drop_share: Range,
    /// Each sample's CPU per delivered message × the offered rate: its share of a core.
    pub core_share: Range,
}

/// How far apart two clusters of a figure's samples must be to be told as two behaviours
/// ([`Span::modes`]): an order of magnitude. Closer clusters, such as p99s of 1 and 2 µs in a
/// few samples, are one behaviour's noise, and the median says it.
pub const MODES_APART: f64 = 10.0;

/// The median, least and most of `values`, and their modes; `None` when there are none.
pub(crate) fn range(values: impl Iterator<Item = f64>) -> Range {
    let mut values: Vec<f64> = values.collect();
    values.sort_by(f64::total_cmp);
    let (&low, &high) = (values.first()?, values.last()?);
    let modes = match stats::clusters(&values)[..] {
        [fast, slow] if fast.count + slow.count == values.len() && slow.centre >= MODES_APART * fast.centre => {
            Some([fast, slow].map(|c| (c.centre, c.count)))
        }
        _ => None,
    };
    Some(Span { median: stats::median_of(&mut values), low, high, samples: values.len(), modes })
}

/// The paced figures of a cell of `tasks` tasks from its samples and their pooled `latency`
/// (`load::CellSamples::latency`); `None` when it has none (not paced, or no `ok` sample).
pub fn cell(tasks: u64, samples: &[PacedSample], latency: Option<Latency>) -> Option<PacedCell> {
    // `load` left out the samples behind in a minority (the host's moment, not the channel's):
    // any still here were behind in most, and the cell is behind.
    let behind = 2 * samples.iter().filter(|s| s.pacer_behind).count() > samples.len();
    let first = samples.first()?;
    let sum = |of: fn(&PacedSample) -> u64| samples.iter().map(of).sum::<u64>();
    let share = |part: u64, whole: u64| if whole == 0 { 0.0 } else { part as f64 / whole as f64 };
    let cpu: Vec<f64> = samples.iter().filter_map(PacedSample::cpu_per_delivered).collect();
    let cpu_ns_per_delivered = stats::trimmed_mean_of(&cpu);
    let offered_per_s = tasks as f64 * first.burst as f64 * 1e9 / first.pace_ns.max(1) as f64;
    let growth: Vec<f64> = samples.iter().filter_map(|s| s.resident_growth_bytes.map(|b| b as f64)).collect();
    Some(PacedCell {
        latency,
        overflow_share: share(sum(|s| s.frames_overflowed), sum(|s| s.frames)),
        drop_share: share(sum(|s| s.dropped), sum(|s| s.sent)),
        cpu_ns_per_delivered,
        offered_per_s,
        core_share: cpu_ns_per_delivered.map(|ns| ns * offered_per_s / 1e9),
        resident_growth_bytes: stats::median(&growth),
        pacer_behind: behind,
        ranges: Ranges {
            p99_ns: range(samples.iter().filter_map(|s| Some(s.p99_ns? as f64))),
            drop_share: range(samples.iter().map(|s| share(s.dropped, s.sent))),
            core_share: range(cpu.iter().map(|ns| ns * offered_per_s / 1e9)),
        },
    })
}

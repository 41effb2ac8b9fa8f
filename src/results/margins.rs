//! The one owner of the margins within which the answer for paced load ties two channels
//! (`results::paced`). They are not the throughput thresholds (`thresholds`): a pooled p99, a
//! share of overflowed frames and CPU per delivered message each have their own noise, measured
//! by `compare` on two paced runs of one build (its "A/A" lines).

/// How far apart two channels' paced figures may be and still be tied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacedMargins {
    /// Largest ratio of two pooled p99 latencies (higher over lower) that ties them.
    pub p99_ratio: f64,
    /// Largest difference of two shares of frames overflowed that ties them, in points (5.0 =
    /// 5 percentage points).
    pub overflow_points: f64,
    /// Largest ratio of two CPU times per delivered message that ties them.
    pub cpu_ratio: f64,
}

impl PacedMargins {
    /// Calibrated by an A/A pair: two `channel-bench sfu` runs of one build back to back on a
    /// 2-core VM (docs/results/2core-xeon-vm-2026-11-23.md), each margin the 95th percentile over
    /// the 104 paced cells of the two runs' per-cell disagreement: pooled p99 4.16× (median
    /// 1.38×), CPU per delivered message 1.33× (median 1.09×), frames overflowed 1.5 points
    /// (worst 4.9, kept at 5). A channel is ahead only beyond what a re-run moves a cell by.
    pub const DEFAULT: PacedMargins = PacedMargins { p99_ratio: 4.2, overflow_points: 5.0, cpu_ratio: 1.33 };
}

/// Where [`PacedMargins::DEFAULT`] was calibrated, as the outputs say it.
pub const CALIBRATED_ON: &str = "one A/A pair of sfu runs on a 2-core VM";

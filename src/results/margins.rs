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
    /// Provisional, pending an A/A calibration: the goals of the SFU answer (pooled p99 within
    /// 1.25×, overflowed frames within 5 points, CPU per delivered message within 1.10× between
    /// two back-to-back runs). To calibrate: run `channel-bench sfu` twice back to back on the
    /// reference machine, `channel-bench compare` the two CSVs, and set each margin to the worst
    /// of its A/A line (pooled p99 ratio, overflowed-frame points, CPU ratio) over the cells.
    pub const DEFAULT: PacedMargins = PacedMargins { p99_ratio: 1.25, overflow_points: 5.0, cpu_ratio: 1.10 };
}

/// Whether [`PacedMargins::DEFAULT`] still awaits its A/A calibration; outputs say so.
pub const PROVISIONAL: bool = true;

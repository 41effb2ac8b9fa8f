//! `--latency`: every message carries the time it was handed to `send`; the receiver
//! records send→receive latency into an HdrHistogram.
//!
//! The clock is `quanta::Clock`'s raw reading: the time-stamp counter where quanta finds it
//! reliable (invariant, calibrated against the OS clock once), else the OS's monotonic clock;
//! every message takes two reads (their cost: `cargo run --release --example clock_cost`).

use std::sync::Arc;

use hdrhistogram::Histogram;

/// The largest latency the histogram tells apart (100 s); longer ones count as this.
const HIGHEST_NANOS: u64 = 100_000_000_000;
/// Significant decimal digits kept: values are exact to 0.1%.
const SIGNIFICANT_DIGITS: u8 = 3;

/// A run's clock, shared by every task: raw readings, turned into nanoseconds only as a
/// difference, by the receiver.
#[derive(Debug, Clone)]
pub struct RunClock(quanta::Clock);

impl RunClock {
    /// A clock (calibrated on first use in the process, before any run's clock starts).
    pub fn start() -> Self {
        Self(quanta::Clock::new())
    }

    /// Spins, busy, until `nanos` have passed on this clock: the receiver's own work.
    pub fn spin(&self, nanos: u64) {
        let start = self.now();
        while self.0.delta_as_nanos(start, self.now()) < nanos {
            std::hint::spin_loop();
        }
    }

    /// The current raw reading.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        self.0.raw()
    }
}

/// Bytes of the counts of one [`LatencyRecorder`]'s histogram, for the plan's memory estimate.
pub fn histogram_bytes() -> usize {
    empty_histogram().distinct_values() * std::mem::size_of::<u64>()
}

/// The receiver's half: one histogram, written only by the receiving task.
#[derive(Debug)]
pub struct LatencyRecorder {
    clock: RunClock,
    histogram: Histogram<u64>,
}

impl LatencyRecorder {
    /// An empty recorder reading `clock`; the histogram is allocated here, before the clock starts.
    pub fn new(clock: RunClock) -> Self {
        Self { clock, histogram: empty_histogram() }
    }

    /// Records the latency of a message stamped `sent_at` ([`RunClock::now`]) by the same clock;
    /// 0 if now reads earlier (it cannot on an invariant counter, but a fallback clock read on
    /// another core might).
    #[inline(always)]
    pub fn record(&mut self, sent_at: u64) {
        let now = self.clock.now();
        let nanos = if now > sent_at { self.clock.0.delta_as_nanos(sent_at, now) } else { 0 };
        self.histogram.saturating_record(nanos);
    }

    /// The percentiles, or `None` if nothing was recorded.
    pub fn finish(&self) -> Option<Latency> {
        Latency::of(&self.histogram)
    }

    /// The histogram, or `None` if nothing was recorded.
    pub fn into_histogram(self) -> Option<Shared> {
        (!self.histogram.is_empty()).then(|| Arc::new(self.histogram))
    }
}

/// A sample's histogram, decoded once and shared by the sample, its row and its cell's figures.
pub type Shared = Arc<Histogram<u64>>;

/// An empty histogram with the recorder's bounds and precision.
pub fn empty_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_NANOS, SIGNIFICANT_DIGITS).expect("constant bounds are valid")
}

/// A latency histogram as text for one CSV field: `VALUE:COUNT` pairs in lowercase
/// hexadecimal, joined by `;`, one per non-empty bucket in increasing order; each VALUE is
/// the highest nanosecond count its bucket stands for. [`decode`] reads it back into the same
/// buckets, so the histograms of many samples merge exactly.
pub fn encode(histogram: &Histogram<u64>) -> String {
    let pairs: Vec<String> = histogram
        .iter_recorded()
        .map(|bucket| format!("{:x}:{:x}", bucket.value_iterated_to(), bucket.count_at_value()))
        .collect();
    pairs.join(";")
}

/// The histogram that [`encode`] wrote as `text`; `None` for an empty text (a sample without
/// `--latency`).
pub fn decode(text: &str) -> Result<Option<Shared>, String> {
    let mut histogram = empty_histogram();
    for pair in text.split(';').filter(|pair| !pair.is_empty()) {
        let parse = |part: Option<&str>| {
            part.and_then(|part| u64::from_str_radix(part, 16).ok())
                .ok_or_else(|| format!("latency histogram: {pair:?} is not VALUE:COUNT in hexadecimal"))
        };
        let mut parts = pair.split(':');
        let (value, count) = (parse(parts.next())?, parse(parts.next())?);
        histogram.saturating_record_n(value, count);
    }
    Ok((!text.is_empty()).then(|| Arc::new(histogram)))
}

/// A sample's [`Shared`] histogram in serde as the text [`encode`] writes (`null` without
/// one), as a sample crosses from the process that measured it, of this build or another:
/// `#[serde(default, with = "text")]`.
pub mod text {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `histogram` as [`super::encode`]'s text.
    pub fn serialize<S: Serializer>(histogram: &Option<super::Shared>, to: S) -> Result<S::Ok, S::Error> {
        histogram.as_deref().map(super::encode).serialize(to)
    }

    /// Reads the text back with [`super::decode`].
    pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Option<super::Shared>, D::Error> {
        let text = Option::<String>::deserialize(from)?;
        text.as_deref().map_or(Ok(None), super::decode).map_err(serde::de::Error::custom)
    }
}

/// One histogram of every message of `histograms`, such as all the samples of one cell: its
/// percentiles are those of all their messages together. Each must have [`empty_histogram`]'s
/// bounds, as the recorder's and [`decode`]'s do.
pub fn merge<'a>(histograms: impl IntoIterator<Item = &'a Histogram<u64>>) -> Histogram<u64> {
    let mut merged = empty_histogram();
    for histogram in histograms {
        merged.add(histogram).expect("histograms of equal bounds add up");
    }
    merged
}

/// Send→receive latency percentiles of one sample, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Latency {
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// The largest latency recorded.
    pub max: u64,
}

impl Latency {
    /// The percentiles of `histogram`, or `None` when it is empty.
    pub fn of(histogram: &Histogram<u64>) -> Option<Self> {
        (!histogram.is_empty()).then(|| Self {
            p50: histogram.value_at_quantile(0.50),
            p99: histogram.value_at_quantile(0.99),
            p999: histogram.value_at_quantile(0.999),
            max: histogram.max(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_ordered_and_near_the_recorded_values() {
        let mut histogram = Histogram::new_with_bounds(1, HIGHEST_NANOS, SIGNIFICANT_DIGITS).unwrap();
        for value in 1..=10_000u64 {
            histogram.record(value * 100).unwrap();
        }
        let latency = Latency::of(&histogram).unwrap();
        let near = |got: u64, want: u64| (got as f64 / want as f64 - 1.0).abs() < 0.002;
        assert!(near(latency.p50, 500_000), "{latency:?}");
        assert!(near(latency.p99, 990_000), "{latency:?}");
        assert!(near(latency.p999, 999_000), "{latency:?}");
        assert!(near(latency.max, 1_000_000), "{latency:?}");
        assert!(latency.p50 <= latency.p99 && latency.p99 <= latency.p999 && latency.p999 <= latency.max);
    }

    #[test]
    fn encoded_histograms_merge_into_the_percentiles_of_all_their_values() {
        let (mut fast, mut slow, mut all) = (empty_histogram(), empty_histogram(), empty_histogram());
        for value in 1..=990u64 {
            fast.record(value * 10).unwrap();
            all.record(value * 10).unwrap();
        }
        for value in 1..=10u64 {
            slow.record(value * 1_000_000).unwrap();
            all.record(value * 1_000_000).unwrap();
        }
        let decoded = [encode(&fast), encode(&slow)].map(|text| decode(&text).unwrap().unwrap());
        let merged = merge(decoded.iter().map(|histogram| &**histogram));
        assert_eq!(merged.len(), 1000);
        assert_eq!(Latency::of(&merged), Latency::of(&all));
        // The pooled p99.9 lies among the slow sample's values, which neither per-sample p99 shows.
        assert!(Latency::of(&merged).unwrap().p999 >= 1_000_000);
        assert!(Latency::of(&fast).unwrap().p99 < 10_000);
        assert_eq!(*decode(&encode(&fast)).unwrap().unwrap(), fast);
        assert!(decode("12").is_err());
        assert_eq!(decode(""), Ok(None));
        assert_eq!(decode("12:zz").unwrap_err(), "latency histogram: \"12:zz\" is not VALUE:COUNT in hexadecimal");
    }

    #[test]
    fn a_histogram_crosses_processes_as_its_text() {
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        struct Wire {
            #[serde(default, with = "text")]
            histogram: Option<Shared>,
        }
        let mut histogram = empty_histogram();
        histogram.record_n(1_500, 7).unwrap();
        let wire = Wire { histogram: Some(histogram.into()) };
        let json = serde_json::to_string(&wire).unwrap();
        assert_eq!(json, r#"{"histogram":"5dc:7"}"#);
        assert_eq!(serde_json::from_str::<Wire>(&json).unwrap(), wire);
        assert_eq!(serde_json::from_str::<Wire>(r#"{"histogram":null}"#).unwrap(), Wire { histogram: None });
        assert_eq!(serde_json::from_str::<Wire>("{}").unwrap(), Wire { histogram: None });
        let bad = serde_json::from_str::<Wire>(r#"{"histogram":"5dd"}"#).unwrap_err().to_string();
        assert!(bad.starts_with(r#"latency histogram: "5dd" is not VALUE:COUNT"#), "{bad}");
    }

    #[test]
    fn an_empty_histogram_has_no_percentiles() {
        let recorder = LatencyRecorder::new(RunClock::start());
        assert_eq!(recorder.finish(), None);
    }
}

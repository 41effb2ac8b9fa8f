//! A cell's setting: what set its rows apart from a default run (payload, pacing, phase, send
//! mode, sink, latency, allocations), as data read from the row's own columns. Its one
//! [`Display`](std::fmt::Display) words it; nothing reads the words back.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::schema::Record;
use crate::run::payload::DEFAULT_PAYLOAD_BYTES;
use crate::run::sink::Sink;
use crate::run::workload::{Phase, SendMode, Workload};

/// What set a cell apart from a default run; [`Setting::default`] is a default run's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Setting {
    /// `--payload` when not the default (`300..2000`); `None` for the default size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
    /// `--seed` of the drawn sizes; `None` when the payload is the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The pacing: nanoseconds between a task's bursts; `None` when not paced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pace_ns: Option<u64>,
    /// `--burst`: messages per burst of a paced run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst: Option<u32>,
    /// The phase of a paced run; `None` when not paced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// `--send`: `wait` or `try`.
    pub send: SendMode,
    /// `--sink`'s kind when not `none` (`file`); `None` without a sink.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sink: Option<String>,
    /// Whether latency was measured (`--latency`).
    pub latency: bool,
    /// Whether allocations were counted (`--count-allocs`).
    pub allocs: bool,
    /// `--batch`, the most messages the receiver took per wake-up, when more than 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<usize>,
    /// `--work-per-batch`: the receiver's busy spin after each batch, nanoseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_per_batch_ns: Option<u64>,
    /// `--record-bytes`: the bytes of a record moved by value; `None` for the shared message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_bytes: Option<u32>,
}

impl Setting {
    /// The setting of one row.
    pub fn of(record: &Record) -> Self {
        let payload = (record.payload != DEFAULT_PAYLOAD_BYTES.to_string()).then(|| record.payload.clone());
        let paced = record.pace_ns.is_some();
        Setting {
            seed: payload.as_ref().and(record.seed),
            payload,
            pace_ns: record.pace_ns,
            burst: record.burst.filter(|_| paced),
            phase: record.phase.filter(|_| paced),
            send: record.send,
            sink: (record.sink != Sink::None.kind()).then(|| record.sink.clone()),
            latency: record.lat_p50_ns.is_some(),
            allocs: record.allocs_per_message.is_some(),
            batch: Some(record.batch).filter(|&batch| batch > 1),
            work_per_batch_ns: record.work_per_batch_ns,
            record_bytes: record.record_bytes,
        }
    }

    /// The setting [`Setting::of`] reads from the rows of `workload`'s cells, before they run.
    pub fn of_workload(workload: &Workload) -> Self {
        let nanos = |duration: Duration| u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX);
        let payload =
            Some(workload.payload.to_string()).filter(|payload| *payload != DEFAULT_PAYLOAD_BYTES.to_string());
        Setting {
            seed: payload.as_ref().and(workload.payload.varies().then_some(workload.seed)),
            payload,
            pace_ns: workload.pace.map(|pace| nanos(pace.interval)),
            burst: workload.pace.map(|pace| pace.burst),
            phase: workload.pace.map(|pace| pace.phase),
            send: workload.send,
            sink: Some(workload.sink.kind()).filter(|kind| *kind != Sink::None.kind()).map(str::to_owned),
            latency: workload.latency,
            allocs: workload.count_allocs,
            batch: Some(workload.batch).filter(|&batch| batch > 1),
            work_per_batch_ns: workload.work_per_batch.map(nanos),
            record_bytes: workload.record.by_value(),
        }
    }

    /// Whether this is a default run's setting (nothing to say).
    pub fn is_default(&self) -> bool {
        *self == Setting::default()
    }

    /// The same setting with its phase aligned: what a room's cells in and out of phase share.
    pub fn aligned(&self) -> Setting {
        Setting { phase: self.phase.map(|_| Phase::Aligned), ..self.clone() }
    }

    /// The words with the phase said either way (`paced 5 every 20ms, out of phase, send try`,
    /// `paced 5 every 20ms, in phase`), where [`Display`](fmt::Display) names only a random one.
    pub fn phased(&self) -> String {
        self.words(true).join(", ")
    }

    /// What sets a cell apart beside its payload, pace and phase, in words: `send try, batch
    /// 256, work 2us a batch, 256-byte records by value` (the axes a run sweeps beside those, and
    /// the receiver's work); empty when none is set. The cells' labels and the console's
    /// headings name it.
    pub fn apart(&self) -> String {
        let Setting { send, batch, work_per_batch_ns, record_bytes, .. } = *self;
        Setting { send, batch, work_per_batch_ns, record_bytes, ..Setting::default() }.to_string()
    }

    /// Each set field in words, in the fields' order; the phase of a paced setting said either
    /// way when `phase_either_way`, else only when random.
    fn words(&self, phase_either_way: bool) -> Vec<String> {
        let duration = |ns: u64| humantime::format_duration(Duration::from_nanos(ns));
        let payload = self.payload.as_ref().map(|payload| {
            let seed = self.seed.map_or(String::new(), |seed| format!(" seed {seed}"));
            format!("payload {payload}{seed}")
        });
        let burst = self.burst.map_or(String::new(), |burst| burst.to_string());
        let phase = self.pace_ns.map(|_| self.phase.unwrap_or(Phase::Aligned));
        let phase = phase.and_then(|phase| match phase {
            _ if phase_either_way => Some(phase.words().to_owned()),
            Phase::Random => Some("random phase".to_owned()),
            Phase::Aligned => None,
        });
        [
            payload,
            self.pace_ns.map(|pace_ns| format!("paced {burst} every {}", duration(pace_ns))),
            phase,
            (self.send != SendMode::Wait).then(|| format!("send {}", self.send)),
            self.sink.as_ref().map(|sink| format!("sink {sink}")),
            self.latency.then(|| "latency".to_owned()),
            self.allocs.then(|| "allocs counted".to_owned()),
            self.batch.map(|batch| format!("batch {batch}")),
            self.work_per_batch_ns.map(|work| format!("work {} a batch", duration(work))),
            self.record_bytes.map(|bytes| format!("{bytes}-byte records by value")),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// In the order of their words, so that tables list settings as they read.
impl Ord for Setting {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let key = |s: &Setting| {
            let (payload, sink) = (s.payload.clone(), s.sink.clone());
            (
                s.to_string(),
                (payload, s.seed, s.pace_ns, s.burst, s.phase, s.send),
                (sink, s.latency, s.allocs, s.batch, s.work_per_batch_ns, s.record_bytes),
            )
        };
        key(self).cmp(&key(other))
    }
}

impl PartialOrd for Setting {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// `payload 300..2000 seed 1, paced 8 every 20ms, random phase, send try, latency`; empty for a
/// default run.
impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words(false).join(", "))
    }
}

/// The setting of a paced room's cells in `phase`: `paced 5 every 20ms, send try, latency`. For
/// unit tests.
#[cfg(test)]
pub(crate) fn room_setting(phase: Phase) -> Setting {
    let (pace_ns, burst, phase) = (Some(20_000_000), Some(5), Some(phase));
    Setting { pace_ns, burst, phase, send: SendMode::Try, latency: true, ..Setting::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn send_try_and_random_phase_are_settings_of_their_own() {
        let default =
            Record { payload: DEFAULT_PAYLOAD_BYTES.to_string(), sink: Sink::None.kind().into(), ..Record::default() };
        assert!(Setting::of(&default).is_default());
        assert_eq!(Setting::of(&default).to_string(), "");
        let aligned = Record { pace_ns: Some(20_000_000), burst: Some(8), phase: Some(Phase::Aligned), ..default };
        let random = Record { phase: Some(Phase::Random), ..aligned.clone() };
        let dropping = Record { send: SendMode::Try, ..aligned.clone() };
        assert_eq!(Setting::of(&aligned).to_string(), "paced 8 every 20ms");
        assert_eq!(Setting::of(&random).to_string(), "paced 8 every 20ms, random phase");
        assert_eq!(Setting::of(&dropping).to_string(), "paced 8 every 20ms, send try");
        assert_eq!(Setting::of(&random).aligned(), Setting::of(&aligned));
    }

    #[test]
    fn a_paced_setting_names_its_phase_either_way() {
        let paced =
            Setting { pace_ns: Some(20_000_000), burst: Some(5), phase: Some(Phase::Random), ..Setting::default() };
        let dropping = Setting { send: SendMode::Try, ..paced.clone() };
        assert_eq!(dropping.phased(), "paced 5 every 20ms, out of phase, send try");
        let measured = Setting { latency: true, ..dropping.aligned() };
        assert_eq!(measured.phased(), "paced 5 every 20ms, in phase, send try, latency");
        assert_eq!(paced.aligned().phased(), "paced 5 every 20ms, in phase");
        assert_eq!(Setting { latency: true, ..Setting::default() }.phased(), "latency");
    }

    #[test]
    fn a_batch_is_said_only_when_more_than_one_message() {
        let default =
            Record { payload: DEFAULT_PAYLOAD_BYTES.to_string(), sink: Sink::None.kind().into(), ..Record::default() };
        assert!(Setting::of(&Record { batch: 1, ..default.clone() }).is_default());
        let batched = Setting::of(&Record { batch: 64, send: SendMode::Try, ..default });
        assert_eq!(batched.batch, Some(64));
        assert_eq!(batched.to_string(), "send try, batch 64");
        let working = Setting { work_per_batch_ns: Some(20_000), ..batched };
        assert_eq!(working.to_string(), "send try, batch 64, work 20us a batch");
        let paced = Setting { pace_ns: Some(20_000_000), latency: true, record_bytes: Some(256), ..working };
        assert_eq!(paced.apart(), "send try, batch 64, work 20us a batch, 256-byte records by value");
        assert_eq!(Setting { latency: true, ..Setting::default() }.apart(), "");
    }
}

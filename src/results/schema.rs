//! The results format: [`Record`], one CSV row per sample. The column names and their order
//! are the fields of [`Record`]; [`header`] derives them, and [`crate::results::load`] reads rows
//! back into the same struct.

use serde::{Deserialize, Serialize};

use crate::run::measure::RuntimeKind;
use crate::run::payload::DEFAULT_PAYLOAD_BYTES;
use crate::run::sink::Sink;
use crate::run::verify::Status;
use crate::run::workload::{Merge, Mode, Phase, SendMode};

/// One CSV row: one recorded sample. The field order is the column order, a contract
/// (docs/reference.md): a new column goes after the last, so a reader that takes columns by
/// position keeps reading the ones it knew. A column a file lacks reads as its field's default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Record {
    /// Channel name, as in `--list-channels`.
    pub channel: String,
    /// `cloned-send` or `merged-recv`.
    pub mode: Mode,
    /// `multi-thread` or `current-thread`.
    pub runtime: RuntimeKind,
    /// Threads running tasks: the multi-thread runtime's worker threads, 1 for current-thread.
    pub workers: usize,
    /// Sending tasks.
    pub tasks: usize,
    /// Messages moved in the sample, across all tasks.
    pub messages: u64,
    /// `--capacity`: the one channel's slots in cloned-send, shared among the tasks' channels in
    /// merged-recv; under `--task-capacity`, the slots of all the tasks' channels together.
    pub capacity: usize,
    /// Slots of each channel: `capacity` in cloned-send; in merged-recv `capacity / tasks` but at
    /// least `run::workload::MIN_TASK_SLOTS`, or `task_capacity`.
    pub capacity_per_channel: usize,
    /// Payload bytes per message: the fixed size, or the mean size moved when sizes are drawn
    /// (`bytes / messages`, rounded).
    pub payload_bytes: u64,
    /// Sample number within the cell, from 1; warm-up runs are not written.
    pub sample: usize,
    /// Wall time of the sample in nanoseconds, from opening the start gate to the last task
    /// finishing, or to the receiver's stop at the sample's bound (`bound_ns`).
    pub elapsed_ns: u64,
    /// `elapsed_ns / messages`, nanoseconds, three decimals.
    pub ns_per_message: f64,
    /// Process CPU time (user + system, all threads) over the same interval, nanoseconds (microsecond resolution).
    pub cpu_ns: Option<u64>,
    /// `ok`, or what failed: `lost: …`, `reordered: …`, `duplicated: …`, `corrupted: …`, `panicked: …`,
    /// `sink: …`, `timeout: …`; a refusal (`capacity: refused: …`) when the channel cannot run the
    /// cell. Read once into a [`SampleStatus`].
    pub status: SampleStatus,
    /// How merged-recv merged the receivers: `futures-buffered`, `select-all` or `stream-map`;
    /// empty in cloned-send.
    pub merge: Option<Merge>,
    /// `--payload`: `1200`, or `300..2000` when each message's size was drawn from that range.
    #[serde(default = "default_payload")]
    pub payload: String,
    /// `--seed` of the drawn sizes; empty when the size is fixed.
    pub seed: Option<u64>,
    /// Payload bytes the receiver took in the sample.
    pub bytes: u64,
    /// `bytes` per second of wall time, in MB (10^6 bytes), three decimals.
    pub mb_per_s: f64,
    /// `--pace` interval between a task's bursts, nanoseconds; empty when the senders were not paced.
    pub pace_ns: Option<u64>,
    /// `--burst`: messages per burst; empty when not paced.
    pub burst: Option<u32>,
    /// The measured mean interval between a task's bursts, nanoseconds; empty when not paced.
    pub pace_actual_ns: Option<u64>,
    /// `none`, or `file` when the receiver wrote every payload to the `--sink` file.
    #[serde(default = "default_sink")]
    pub sink: String,
    /// Median send→receive latency, nanoseconds; empty without `--latency`.
    pub lat_p50_ns: Option<u64>,
    /// 99th percentile latency, nanoseconds; empty without `--latency`.
    pub lat_p99_ns: Option<u64>,
    /// 99.9th percentile latency, nanoseconds; empty without `--latency`.
    pub lat_p999_ns: Option<u64>,
    /// Largest latency, nanoseconds; empty without `--latency`.
    pub lat_max_ns: Option<u64>,
    /// Allocations (alloc, alloc_zeroed, realloc) inside the clock per message; empty without `--count-allocs`.
    pub allocs_per_message: Option<f64>,
    /// Bytes those allocations asked for, per message; empty without `--count-allocs`.
    pub alloc_bytes_per_message: Option<f64>,
    /// `--send`: `wait` (senders wait for a slot) or `try` (they drop the message when the
    /// channel is full). Under `try`, `ns_per_message` and CPU per message are per *delivered*
    /// message. `wait` in files without the column.
    pub send: SendMode,
    /// Messages the senders dropped because the channel was full; 0 under `wait`.
    pub dropped: u64,
    /// Messages delivered over messages sent, from 0 to 1, four decimals; 1 under `wait`.
    pub delivered_fraction: f64,
    /// `--phase` of a paced run: `random` (each task's first burst at its own offset within
    /// one interval, drawn from `--seed`) or `aligned` (all at the gate); empty when not paced.
    pub phase: Option<Phase>,
    /// Involuntary context switches of the whole process over the clock (`ru_nivcsw` from
    /// `getrusage`): how often a thread was preempted while runnable. A sample with many more
    /// than its cell's others was disturbed. Empty where it cannot be read.
    pub involuntary_switches: Option<u64>,
    /// Steal time over the clock, nanoseconds: how long the hypervisor ran something else
    /// while this virtual machine's CPUs wanted to run (/proc/stat, all CPUs, in 10 ms ticks,
    /// so 0 for most short samples). Empty where /proc/stat has no steal field (not Linux).
    pub steal_ns: Option<u64>,
    /// How long each paced task sent, nanoseconds: its bursts × `pace_ns` (`--duration`,
    /// rounded down to whole frames); empty when not paced.
    pub duration_ns: Option<u64>,
    /// Messages the receiver took: `messages` − `dropped`, or those taken before the bound
    /// (`bound_ns`); empty in files without the column.
    pub delivered: Option<u64>,
    /// Bursts (frames) the paced tasks sent, all tasks together; empty when not paced.
    pub frames: Option<u64>,
    /// Bursts with at least one message dropped on a full channel (`--send try`), all tasks
    /// together; empty when not paced.
    pub frames_overflowed: Option<u64>,
    /// The latest a burst started after its scheduled time, nanoseconds; empty when not paced.
    pub lateness_max_ns: Option<u64>,
    /// How late bursts started after their scheduled time on average, nanoseconds; empty when
    /// not paced.
    pub lateness_mean_ns: Option<u64>,
    /// `true` when the pacer could not keep up: bursts started late on average by more than
    /// one millisecond (tokio's timer tick) plus a tenth of `pace_ns`, or the sample overran `duration_ns` by more than one interval
    /// (the figures then describe a lighter load than asked for); empty when not paced.
    pub pacer_behind: Option<bool>,
    /// The process's resident set before the sample's runtime was built, bytes
    /// (/proc/self/statm); empty where it cannot be read.
    pub resident_start_bytes: Option<u64>,
    /// The resident set after the sample's runtime was torn down less `resident_start_bytes`,
    /// bytes, negative when the process gave memory back: what the sample left held.
    pub resident_growth_bytes: Option<i64>,
    /// The sample's send→receive latency histogram, nanoseconds; `None` without `--latency`.
    /// Written to the sidecar (`crate::results::sidecar`) as `crate::run::latency::encode`'s
    /// text (`VALUE:COUNT` pairs in hexadecimal joined by `;`), not to the CSV; decoded once
    /// where the file is read, from the sidecar or from the CSV's `lat_histogram` column in
    /// files that have it (`crate::results::load`).
    #[serde(skip)]
    pub lat_histogram: Option<crate::run::latency::Shared>,
    /// The round the sample was measured in, numbered from 1 within the run: the samples of one
    /// round are one cell's channels (same runtime, mode, task count and setting) measured back
    /// to back, so a verdict between two of them pairs their samples round by round. Empty in
    /// files without the column (files that have it in the middle of the row, after `sample`,
    /// read the same: readers find columns by name).
    pub round: Option<u64>,
    /// Which build measured the row in a paired A/B run (`ab`): `baseline` or `candidate`;
    /// empty in every other run and in files without the column.
    pub build: String,
    /// `--task-capacity`: the slots of each task's own channel in merged-recv, the capacity the
    /// cell is ranked at; empty when the tasks shared `capacity`, and in files without the column.
    pub task_capacity: Option<usize>,
    /// How long the process's threads waited to run over the clock, all threads together,
    /// nanoseconds: each thread's run delay (`/proc/self/task/*/schedstat`, its second field)
    /// at the end less at the start. What took the sample's own CPUs: another process, another
    /// tenant, or its own threads outnumbering the cores. Empty where schedstat cannot be read.
    pub run_delay_ns: Option<u64>,
    /// The bound the sample was stopped at, nanoseconds (`sweep::BOUND_CUT` times the fastest
    /// sample of its group that ran every message): its channel was that far behind, and
    /// `ns_per_message` is over the `delivered` messages it took by then, not all `messages`.
    /// Empty when the sample ran every message: a figure from a cell with such a sample is
    /// labelled bounded (docs/methodology.md, "Bounded figures").
    pub bound_ns: Option<u64>,
    /// `--batch`: the most messages the receiver took per wake-up; 1 (one message per wake-up)
    /// in files without the column.
    #[serde(default = "default_batch")]
    pub batch: usize,
    /// `--work-per-batch`: how long the receiver spun, busy, after each batch it took (inside
    /// the clock), nanoseconds; empty without it.
    pub work_per_batch_ns: Option<u64>,
    /// `--record-bytes`: the bytes of each record moved by value through the channel (its
    /// `bytes` are the records' bodies); empty for the shared message, and in files without
    /// the column.
    pub record_bytes: Option<u32>,
    /// The machine's speed read right before the sample, whatever the channel
    /// (`crate::run::reading`): nanoseconds per round trip of a counter between two threads on
    /// two CPUs, the median of five bursts of 400, one decimal. What a multi-thread channel pays
    /// for each wake-up it hands another worker; a stretch of the run where it reads far above
    /// its typical value is a slow stretch of the machine (`crate::stats::machine`). Empty on a
    /// machine with one CPU and in files without the column.
    pub machine_handoff_ns: Option<f64>,
    /// The machine's speed read beside `machine_handoff_ns`: nanoseconds per step of a fixed
    /// loop on one thread (a chain of integer operations), the median of five bursts of 16,384,
    /// three decimals. What a current-thread channel's every step runs on. Empty in files
    /// without the column.
    pub machine_loop_ns: Option<f64>,
}

/// What a file without a `batch` column received per wake-up: one message.
fn default_batch() -> usize {
    1
}

/// What a file without a `payload` column moved: the default fixed size.
fn default_payload() -> String {
    DEFAULT_PAYLOAD_BYTES.to_string()
}

/// A sample's `status` column as data, read once where the row is: the sample counts, the
/// channel refused the cell, or something failed. Each keeps the CSV's text, which it writes
/// back as it was read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SampleStatus {
    /// `ok`: every message arrived; the sample counts.
    #[default]
    Ok,
    /// The cell's channel cannot run it (`run::verify::Status::Refused`): a refused row, no
    /// failure of the channel's. The CSV's text.
    Refused(String),
    /// Any other status: what failed, as the CSV says it.
    Failed(String),
}

impl SampleStatus {
    /// The status a CSV's `status` text says.
    pub fn of(text: &str) -> SampleStatus {
        match text {
            "ok" => SampleStatus::Ok,
            _ if Status::is_refusal(text) => SampleStatus::Refused(text.to_owned()),
            _ => SampleStatus::Failed(text.to_owned()),
        }
    }

    /// Whether the sample counts.
    pub fn is_ok(&self) -> bool {
        *self == SampleStatus::Ok
    }

    /// The CSV's text: `ok`, or what failed.
    pub fn text(&self) -> &str {
        match self {
            SampleStatus::Ok => "ok",
            SampleStatus::Refused(text) | SampleStatus::Failed(text) => text,
        }
    }
}

impl From<&Status> for SampleStatus {
    /// The status a measured sample's outcome writes.
    fn from(status: &Status) -> SampleStatus {
        SampleStatus::of(&status.to_string())
    }
}

impl Serialize for SampleStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.text())
    }
}

impl<'de> Deserialize<'de> for SampleStatus {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<SampleStatus, D::Error> {
        String::deserialize(deserializer).map(|text| SampleStatus::of(&text))
    }
}

/// What a file without a `sink` column did with payloads: nothing.
fn default_sink() -> String {
    Sink::None.kind().to_owned()
}

/// The CSV columns, in order: the field names of [`Record`], as the csv crate writes them.
pub fn header() -> Vec<String> {
    columns::<Record>()
}

/// The columns of a CSV of `T` rows: its fields, in order, as serde names them.
pub fn columns<T: Serialize + Default>() -> Vec<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.serialize(T::default()).expect("a plain row serializes");
    let bytes = writer.into_inner().expect("writing to memory cannot fail");
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    reader.headers().expect("the header was just written").iter().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column order is a contract: a column is added at the end, never moved. Readers also
    /// read `lat_histogram`, after `resident_growth_bytes` in files that have it.
    const COLUMNS: &[&str] = &[
        "channel",
        "mode",
        "runtime",
        "workers",
        "tasks",
        "messages",
        "capacity",
        "capacity_per_channel",
        "payload_bytes",
        "sample",
        "elapsed_ns",
        "ns_per_message",
        "cpu_ns",
        "status",
        "merge",
        "payload",
        "seed",
        "bytes",
        "mb_per_s",
        "pace_ns",
        "burst",
        "pace_actual_ns",
        "sink",
        "lat_p50_ns",
        "lat_p99_ns",
        "lat_p999_ns",
        "lat_max_ns",
        "allocs_per_message",
        "alloc_bytes_per_message",
        "send",
        "dropped",
        "delivered_fraction",
        "phase",
        "involuntary_switches",
        "steal_ns",
        "duration_ns",
        "delivered",
        "frames",
        "frames_overflowed",
        "lateness_max_ns",
        "lateness_mean_ns",
        "pacer_behind",
        "resident_start_bytes",
        "resident_growth_bytes",
        "round",
        "build",
        "task_capacity",
        "run_delay_ns",
        "bound_ns",
        "batch",
        "work_per_batch_ns",
        "record_bytes",
        "machine_handoff_ns",
        "machine_loop_ns",
    ];

    #[test]
    fn the_header_is_the_fields_in_their_contracted_order() {
        let header = header();
        assert_eq!(header, COLUMNS, "columns are added at the end, never moved (docs/reference.md)");
        assert_eq!(header.first().map(String::as_str), Some("channel"));
        assert_eq!(header.last().map(String::as_str), Some("machine_loop_ns"));
        assert!(header.iter().any(|column| column == "lat_p99_ns"));
        let record = Record { channel: "kanal".to_owned(), ..Record::default() };
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        writer.serialize(&record).unwrap();
        let row = String::from_utf8(writer.into_inner().unwrap()).unwrap();
        assert_eq!(row.trim_end().split(',').count(), header.len());
    }

    /// The CSV text of each typed column is the name the command line and the console use.
    #[test]
    fn typed_columns_read_and_write_their_names() {
        fn text(value: impl Serialize) -> String {
            serde_json::to_value(value).unwrap().as_str().unwrap().to_owned()
        }
        for mode in Mode::ALL {
            assert_eq!(text(mode), mode.name());
        }
        for runtime in RuntimeKind::ALL {
            assert_eq!(text(runtime), runtime.name());
        }
        for merge in Merge::ALL {
            assert_eq!(text(merge), merge.name());
        }
        for send in [SendMode::Wait, SendMode::Try] {
            assert_eq!(text(send), send.name());
        }
        for phase in [Phase::Random, Phase::Aligned] {
            assert_eq!(text(phase), phase.name());
        }
        let record = Record { mode: Mode::MergedRecv, merge: Some(Merge::SelectAll), ..Record::default() };
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.serialize(&record).unwrap();
        let bytes = writer.into_inner().unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.contains(",merged-recv,multi-thread,") && text.contains(",select-all,"), "{text}");
        let read: Record = csv::Reader::from_reader(bytes.as_slice()).deserialize().next().unwrap().unwrap();
        assert_eq!(read, record);
    }

    #[test]
    fn a_status_is_read_once_as_data_and_written_back_as_read() {
        let refused = format!("{}", Status::Refused("64 slots".to_owned()));
        for (text, status) in [
            ("ok", SampleStatus::Ok),
            (refused.as_str(), SampleStatus::Refused(refused.clone())),
            ("lost: 1 of 1000 messages missing", SampleStatus::Failed("lost: 1 of 1000 messages missing".to_owned())),
        ] {
            let csv = format!("channel,status\nkanal,{text}\n");
            let read: Record = csv::Reader::from_reader(csv.as_bytes()).deserialize().next().unwrap().unwrap();
            assert_eq!(read.status, status);
            assert_eq!(read.status.text(), text);
            assert_eq!(read.status.is_ok(), text == "ok");
        }
        assert_eq!(SampleStatus::from(&Status::Ok), SampleStatus::Ok);
        assert_eq!(
            SampleStatus::from(&Status::Refused("x".to_owned())),
            SampleStatus::of(&refused.replace("64 slots", "x"))
        );
    }

    #[test]
    fn the_batch_round_trips_and_a_file_without_its_column_took_one_message_a_wake_up() {
        let record = Record { channel: "flume".to_owned(), batch: 64, ..Record::default() };
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.serialize(&record).unwrap();
        let bytes = writer.into_inner().unwrap();
        let read: Record = csv::Reader::from_reader(bytes.as_slice()).deserialize().next().unwrap().unwrap();
        assert_eq!(read.batch, 64);
        let older = "channel,mode,tasks\nflume,cloned-send,4\n";
        let read: Record = csv::Reader::from_reader(older.as_bytes()).deserialize().next().unwrap().unwrap();
        assert_eq!((read.channel.as_str(), read.tasks, read.batch), ("flume", 4, 1));
    }
}

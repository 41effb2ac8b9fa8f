//! The SFU as it really runs, on tiny inputs: `--send try`, `--phase`, `--workers` lists,
//! thousands of tasks, and a channel of the user's own through `app::main_with`.

use std::path::Path;
use std::process::ExitCode;

use assert_cmd::Command;
use channel_bench::app;

mod common;
use common::bench;

// The example's channel itself, so the test measures exactly what the example ships.
#[allow(dead_code)]
#[path = "../examples/custom_channel.rs"]
mod custom_channel;

/// `--max-time 0 --warmup 0 --samples 1`: one sample per cell.
const ONE_SAMPLE: &[&str] = &["--samples", "1", "--max-time", "0", "--warmup", "0"];

/// The CSV as (column name → index, rows).
fn read_csv(path: &Path) -> (impl Fn(&str) -> usize, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = reader.records().map(|row| row.unwrap().iter().map(str::to_owned).collect()).collect();
    (move |name: &str| header.iter().position(|column| column == name).unwrap(), rows)
}

/// Each row's latency histogram in the sidecar beside the CSV at `path`, empty for a row it does
/// not name.
fn histograms(path: &Path, rows: usize) -> Vec<String> {
    let sidecar = path.with_extension("latency.csv");
    let (column, lines) = read_csv(&sidecar);
    let mut histograms = vec![String::new(); rows];
    for line in lines {
        histograms[line[column("row")].parse::<usize>().unwrap() - 1] = line[column("lat_histogram")].clone();
    }
    histograms
}

fn run_ok(command: &mut Command) -> String {
    let output = command.output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    stdout
}

#[test]
fn send_try_drops_on_a_full_channel_counts_the_drops_and_divides_by_what_arrived() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("try.csv");
    // Two slots and 8 unpaced senders on one thread: most messages find the channel full.
    run_ok(
        bench()
            .args(["--send", "try", "--capacity", "8", "--tasks", "8", "--messages", "4000"])
            .args(["--runtimes", "current-thread", "--modes", "cloned-send", "--out"])
            .arg(&out)
            .args(ONE_SAMPLE),
    );
    let (column, rows) = read_csv(&out);
    assert_eq!(rows.len(), channel_bench::registry::CHANNELS.len());
    for row in &rows {
        assert_eq!(row[column("status")], "ok", "{row:?}");
        assert_eq!(row[column("send")], "try");
        let dropped: u64 = row[column("dropped")].parse().unwrap();
        assert!(dropped > 0 && dropped < 4000, "{row:?}");
        let fraction: f64 = row[column("delivered_fraction")].parse().unwrap();
        assert!((fraction - (4000 - dropped) as f64 / 4000.0).abs() < 1e-4, "{row:?}");
        let elapsed: f64 = row[column("elapsed_ns")].parse().unwrap();
        let ns: f64 = row[column("ns_per_message")].parse().unwrap();
        assert!((ns - elapsed / (4000 - dropped) as f64).abs() < 0.01, "per delivered message: {row:?}");
        assert_eq!(row[column("phase")], "", "unpaced");
    }
}

#[test]
fn send_wait_is_the_default_and_drops_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("wait.csv");
    run_ok(
        bench()
            .args(["--channels", "kanal", "--capacity", "8", "--tasks", "8", "--messages", "800", "--out"])
            .arg(&out)
            .args(ONE_SAMPLE),
    );
    let (column, rows) = read_csv(&out);
    for row in &rows {
        assert_eq!((row[column("send")].as_str(), row[column("dropped")].as_str()), ("wait", "0"));
        assert_eq!(row[column("delivered_fraction")], "1.0");
    }
}

#[test]
fn phase_is_random_under_pace_by_default_aligned_when_asked_and_kept_apart_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    for (phase, expected) in [(None, "random"), (Some("aligned"), "aligned")] {
        let out = dir.path().join(format!("{expected}.csv"));
        let mut command = bench();
        command.args([
            "--channels",
            "tokio-mpsc",
            "--tasks",
            "4",
            "--duration",
            "16ms",
            "--pace",
            "1ms",
            "--burst",
            "8",
        ]);
        if let Some(phase) = phase {
            command.args(["--phase", phase]);
        }
        let stdout = run_ok(command.arg("--out").arg(&out).args(ONE_SAMPLE));
        let (column, rows) = read_csv(&out);
        assert!(rows.iter().all(|row| row[column("phase")] == expected && row[column("status")] == "ok"), "{rows:?}");
        // Only the random phase is named: an aligned run's cells read as plain paced ones.
        assert_eq!(stdout.contains("random phase"), expected == "random", "{stdout}");
    }
}

#[test]
fn a_workers_list_gives_rows_per_worker_count_kept_apart_by_summary_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("workers.csv");
    // 4 workers on this machine's cores is oversubscription, and allowed.
    let stdout = run_ok(
        bench()
            .args(["--channels", "flume,kanal", "--workers", "1,2,4", "--tasks", "4", "--messages", "400"])
            .args([
                "--runtimes",
                "multi-thread,current-thread",
                "--modes",
                "cloned-send",
                "--capacity",
                "1024",
                "--out",
            ])
            .arg(&out)
            .args(ONE_SAMPLE),
    );
    let (column, rows) = read_csv(&out);
    let count = |runtime: &str, workers: &str| {
        rows.iter().filter(|row| row[column("runtime")] == runtime && row[column("workers")] == workers).count()
    };
    // 2 channels, one sample each, per worker count (a second screening round could leave out a
    // channel that 400 messages made look slow); current-thread once, with its one thread.
    assert_eq!([count("multi-thread", "1"), count("multi-thread", "2"), count("multi-thread", "4")], [2, 2, 2]);
    assert_eq!(count("current-thread", "1"), 2);
    // A column per worker count on the console.
    let heading = stdout.lines().find(|line| line.starts_with("multi-thread cloned-send  ")).unwrap_or_default();
    for workers in ["1 worker", "2 workers", "4 workers"] {
        assert!(heading.contains(&format!("  {workers}, ")), "{stdout}");
    }
    assert!(stdout.contains("\ncurrent-thread cloned-send  "), "{stdout}");

    let compared = run_ok(bench().arg("compare").arg(&out).arg(&out));
    for workers in ["1 worker", "2 workers", "4 workers"] {
        assert_eq!(compared.matches(&format!("[{workers}]")).count(), 2, "{compared}");
    }
    assert!(compared.contains("no change"), "{compared}");
}

#[test]
fn thousands_of_tasks_run_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("many.csv");
    run_ok(
        bench()
            .args(["--channels", "tokio-mpsc,futures-channel,kanal", "--tasks", "4096..8192", "--messages", "16384"])
            .args(["--capacity", "65536"])
            .arg("--out")
            .arg(&out)
            .args(ONE_SAMPLE),
    );
    let (column, rows) = read_csv(&out);
    // 3 channels × 2 modes × 2 runtimes × 2 task counts.
    assert_eq!(rows.len(), 24);
    assert!(rows.iter().all(|row| row[column("status")] == "ok"), "{rows:?}");
    for tasks in ["4096", "8192"] {
        for mode in ["cloned-send", "merged-recv"] {
            assert!(rows.iter().any(|row| row[column("tasks")] == tasks && row[column("mode")] == mode));
        }
    }
}

#[test]
fn merged_recv_with_fewer_slots_than_tasks_gives_each_task_the_floor() {
    let args = ["--tasks", "8192", "--capacity", "4096", "--modes", "merged-recv", "--channels", "kanal", "--dry-run"];
    let output = bench().args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("tasks=8192 merged-recv at 4,096 slots asked, 16 a channel (131,072 in all) kanal"),
        "{stdout}"
    );
}

#[test]
fn new_flags_refuse_bad_input_with_one_line_and_exit_2() {
    for (args, needle) in [
        (&["--phase", "aligned"][..], "--phase"),
        (&["--pace", "20ms", "--phase", "sideways"], "--phase"),
        (&["--send", "maybe"], "--send"),
        (&["--workers", "1,0"], "--workers"),
        (&["--workers", "2,2"], "--workers"),
        (&["--workers", "4096"], "--workers"),
        (&["--tasks", "3..8"], "--tasks"),
        (&["--tasks", "8..4"], "--tasks"),
        (&["--channels", "mutex-queue"], "mutex-queue"),
        (&["--pace", "20ms", "--duration", "10ms"], "--duration"),
        (&["--pace", "20ms", "--messages", "1000"], "--duration"),
        (&["--duration", "1s"], "--pace"),
        (&["--pace", "500us"], "1ms"),
        (&["--pace", "20ms", "--phase", "aligned,aligned"], "--phase"),
        (&["--send", "try,try"], "--send"),
        (&["sfu", "--messages", "1000"], "--duration"),
        (&["sfu", "--pace", "20ms", "--duration", "5ms"], "--duration"),
    ] {
        let output = bench().args(args).output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

/// Runs channel-bench with the example's channels, in this process.
fn main_with(extra: &'static [channel_bench::registry::ChannelEntry], args: &[&str], out: &Path) -> ExitCode {
    let out = out.to_str().unwrap();
    let tail = ["--out", out];
    let args = ["custom_channel"].iter().chain(args).chain(&tail).chain(ONE_SAMPLE);
    app::main_with_args(extra, args.map(|arg| arg.to_string()))
}

#[test]
fn the_custom_channel_runs_the_standard_sweep_with_the_same_checks() {
    let entry = &custom_channel::EXTRA[0];
    for (capacity, senders) in [(1, 1), (5, 1), (16, 4), (64, 64), (1024, 512)] {
        assert_eq!((entry.probe_capacity)(capacity, senders), capacity, "{capacity} slots, {senders} senders");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("custom.csv");
    let args = ["--channels", "mutex-queue,kanal", "--tasks", "1,3,64", "--messages", "3001", "--capacity", "128"];
    assert_eq!(main_with(custom_channel::EXTRA, &args, &out), ExitCode::SUCCESS);
    let (column, rows) = read_csv(&out);
    let ours: Vec<_> = rows.iter().filter(|row| row[column("channel")] == "mutex-queue").collect();
    // 2 modes × 2 runtimes × 3 task counts, every one verified.
    assert_eq!(ours.len(), 12);
    assert!(ours.iter().all(|row| row[column("status")] == "ok"), "{ours:?}");

    let paced = dir.path().join("paced.csv");
    let args = ["--channels", "mutex-queue", "--tasks", "4", "--duration", "16ms", "--capacity", "4"];
    let args = [&args[..], &["--pace", "1ms", "--send", "try"]].concat();
    assert_eq!(main_with(custom_channel::EXTRA, &args, &paced), ExitCode::SUCCESS);
    let (column, rows) = read_csv(&paced);
    assert!(rows.iter().all(|row| row[column("status")] == "ok" && row[column("send")] == "try"), "{rows:?}");
}

#[test]
fn two_channels_of_one_name_are_refused() {
    use channel_bench::registry::ChannelEntry;
    static TWICE: &[ChannelEntry] =
        &[ChannelEntry::of::<custom_channel::MutexQueue>(), ChannelEntry::of::<custom_channel::MutexQueue>()];
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(main_with(TWICE, &[], &dir.path().join("never.csv")), ExitCode::from(2));
    assert!(!dir.path().join("never.csv").exists());
}

/// The example's queue made one slot larger than asked: the same checks catch it.
#[cfg(feature = "faults")]
struct OneTooMany;

#[cfg(feature = "faults")]
impl channel_bench::channel::Channel for OneTooMany {
    const NAME: &'static str = "fault-one-too-many";
    const CRATE: &'static str = "example";
    type Sender<T: channel_bench::channel::Item> = custom_channel::QueueSender<T>;
    type Receiver<T: channel_bench::channel::Item> = custom_channel::QueueReceiver<T>;

    fn bounded<T: channel_bench::channel::Item>(
        capacity: usize,
        _senders: usize,
    ) -> (Self::Sender<T>, Self::Receiver<T>) {
        custom_channel::queue(capacity + 1)
    }
    async fn send<T: channel_bench::channel::Item>(
        sender: &mut Self::Sender<T>,
        message: T,
    ) -> Result<(), channel_bench::channel::Closed> {
        <custom_channel::MutexQueue as channel_bench::channel::Channel>::send(sender, message).await
    }
    fn try_send<T: channel_bench::channel::Item>(
        sender: &mut Self::Sender<T>,
        message: T,
    ) -> Result<(), channel_bench::channel::TrySendError> {
        <custom_channel::MutexQueue as channel_bench::channel::Channel>::try_send(sender, message)
    }
    async fn recv<T: channel_bench::channel::Item>(receiver: &mut Self::Receiver<T>) -> Option<T> {
        <custom_channel::MutexQueue as channel_bench::channel::Channel>::recv(receiver).await
    }
    fn stream<T: channel_bench::channel::Item>(
        receiver: &mut Self::Receiver<T>,
    ) -> impl futures::Stream<Item = T> + Send + '_ {
        <custom_channel::MutexQueue as channel_bench::channel::Channel>::stream(receiver)
    }
}

#[cfg(feature = "faults")]
#[test]
fn a_broken_custom_channel_fails_its_cells_on_the_capacity_probe() {
    use channel_bench::registry::ChannelEntry;
    static BROKEN: &[ChannelEntry] = &[ChannelEntry::of::<OneTooMany>()];
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("broken.csv");
    let args = ["--channels", "fault-one-too-many,kanal", "--tasks", "3", "--messages", "300", "--capacity", "64"];
    assert_eq!(main_with(BROKEN, &args, &out), ExitCode::FAILURE);
    let (column, rows) = read_csv(&out);
    let broken: Vec<_> = rows.iter().filter(|row| row[column("channel")] == "fault-one-too-many").collect();
    // One failed row per cell (2 modes × 2 runtimes), no samples taken.
    assert_eq!(broken.len(), 4);
    for row in broken {
        let expected = if row[column("mode")] == "cloned-send" {
            "capacity: made for 64 slots with 3 sender(s), it accepted 65 messages"
        } else {
            "capacity: made for 21 slots with 1 sender(s), it accepted 22 messages"
        };
        assert!(row[column("status")].starts_with(expected), "{row:?}");
    }
    assert!(rows.iter().filter(|row| row[column("channel")] == "kanal").all(|row| row[column("status")] == "ok"));
}

#[cfg(feature = "faults")]
#[test]
fn under_send_try_a_reordering_or_losing_channel_still_fails() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("faults.csv");
    let output = bench()
        .args(["--channels", "fault-reorder,fault-lossy", "--send", "try", "--tasks", "1", "--messages", "400"])
        .args(["--capacity", "1024", "--runtimes", "current-thread", "--out"])
        .arg(&out)
        .args(ONE_SAMPLE)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let (column, rows) = read_csv(&out);
    for row in &rows {
        let status = &row[column("status")];
        match row[column("channel")].as_str() {
            "fault-reorder" => assert!(*status == "reordered: sender 0: seq 0 arrived after seq 1", "{row:?}"),
            _ => assert!(
                status.starts_with("lost: 4 of 400 messages neither arrived nor were counted as dropped"),
                "{row:?}"
            ),
        }
    }
}

/// The paced load as `--pace 10ms --duration 60ms`: 6 frames per task, whatever the task count.
const PACED: &[&str] =
    &["--pace", "10ms", "--duration", "60ms", "--runtimes", "multi-thread", "--modes", "cloned-send"];

fn number(row: &[String], column: &dyn Fn(&str) -> usize, name: &str) -> f64 {
    row[column(name)].parse().unwrap_or_else(|_| panic!("{name}: {row:?}"))
}

#[test]
fn a_paced_cell_lasts_its_duration_at_one_task_as_at_many() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("paced.csv");
    let one_capacity = ["--capacity", "1024"];
    run_ok(
        bench()
            .args(PACED)
            .args(one_capacity)
            .args(["--channels", "kanal", "--tasks", "1,64", "--out"])
            .arg(&out)
            .args(ONE_SAMPLE),
    );
    let (column, rows) = read_csv(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let tasks = number(row, &column, "tasks");
        assert_eq!(number(row, &column, "duration_ns"), 60e6, "{row:?}");
        assert_eq!(number(row, &column, "frames"), 6.0 * tasks, "{row:?}");
        assert_eq!(number(row, &column, "messages"), 6.0 * 8.0 * tasks, "{row:?}");
        assert_eq!(number(row, &column, "delivered"), number(row, &column, "messages"), "{row:?}");
        assert_eq!(number(row, &column, "frames_overflowed"), 0.0, "send wait drops nothing: {row:?}");
        assert!(number(row, &column, "lateness_max_ns") >= number(row, &column, "lateness_mean_ns"), "{row:?}");
        assert!(["true", "false"].contains(&row[column("pacer_behind")].as_str()), "{row:?}");
        // The last frame is due 50 ms after the first: the sample cannot be shorter, and at one
        // task it is not 64 times longer than at 64 (a load split across the tasks would be).
        let elapsed = number(row, &column, "elapsed_ns");
        assert!(elapsed >= 50e6, "{row:?}");
        assert!(elapsed < 60e6 * 8.0, "{row:?}");
    }
    let elapsed: Vec<f64> = rows.iter().map(|row| number(row, &column, "elapsed_ns")).collect();
    assert!(elapsed[0] < 4.0 * elapsed[1] && elapsed[1] < 4.0 * elapsed[0], "{elapsed:?}");
}

#[test]
fn phase_and_send_lists_are_cells_of_one_sweep_with_pooled_latency() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lists.csv");
    let output = bench()
        .args(PACED)
        .args(["--channels", "flume", "--tasks", "8", "--phase", "aligned,random", "--send", "wait,try"])
        .args(["--latency", "--capacity", "16", "--out"])
        .arg(&out)
        .args(ONE_SAMPLE)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // Each phase's and send's cells print under a heading that names both.
    let stdout = String::from_utf8(output.stdout).unwrap();
    let headings: Vec<&str> = stdout.lines().filter(|line| line.starts_with("# ")).collect();
    assert_eq!(headings.len(), 4, "{stdout}");
    assert!(headings[0].contains(", in phase (aligned phase), send wait,"), "{stdout}");
    assert!(headings[1].contains(", in phase (aligned phase), send try,"), "{stdout}");
    assert!(headings[2].contains(", out of phase (random phase), send wait,"), "{stdout}");
    assert!(headings[3].contains(", out of phase (random phase), send try,"), "{stdout}");
    let (column, rows) = read_csv(&out);
    // The sweep visits its cells in a shuffled order: the set of cells is what the lists make.
    let mut cells: Vec<(String, String)> =
        rows.iter().map(|row| (row[column("phase")].clone(), row[column("send")].clone())).collect();
    cells.sort();
    let expected = [("aligned", "try"), ("aligned", "wait"), ("random", "try"), ("random", "wait")];
    assert_eq!(cells, expected.map(|(phase, send)| (phase.to_owned(), send.to_owned())));
    // Each sample's histogram holds every delivered message; merged, they are the cell's.
    let histograms = histograms(&out, rows.len());
    let decoded: Vec<_> =
        histograms.iter().map(|text| channel_bench::run::latency::decode(text).unwrap().unwrap()).collect();
    let merged = channel_bench::run::latency::merge(decoded.iter().map(|histogram| &**histogram));
    let delivered: f64 = rows.iter().map(|row| number(row, &column, "delivered")).sum();
    assert_eq!(merged.len() as f64, delivered);
    for (row, single) in rows.iter().zip(&decoded) {
        assert_eq!(single.len() as f64, number(row, &column, "delivered"), "{row:?}");
        assert_eq!(single.value_at_quantile(0.99) as f64, number(row, &column, "lat_p99_ns"), "{row:?}");
    }
}

#[test]
fn send_try_without_pace_runs_with_a_one_line_note() {
    let dir = tempfile::tempdir().unwrap();
    let output = bench()
        .args(["--send", "try", "--channels", "kanal", "--tasks", "2", "--messages", "200", "--out"])
        .arg(dir.path().join("try.csv"))
        .args(ONE_SAMPLE)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stderr.lines().filter(|line| line.starts_with("note: --send try without --pace")).count(), 1);
}

#[test]
fn the_sfu_preset_prints_its_command_line_which_reruns_the_same_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sfu.csv");
    let stdout = run_ok(
        bench()
            .args(["sfu", "--channels", "kanal", "--tasks", "1,4", "--pace", "10ms", "--duration", "30ms"])
            .args(["--samples", "1", "--warmup", "0", "--out"])
            .arg(&out),
    );
    let line = stdout.lines().find_map(|line| line.strip_prefix("sfu: ")).expect("the command line is printed");
    assert!(line.contains("--send try") && line.contains("--latency") && line.contains("--phase random,aligned"));
    assert!(line.contains("--tasks 1,4") && !line.contains("512"), "the flags given replace the preset's: {line}");
    assert!(stdout.contains("4 cells × 1 screening rounds, then duels, wall time: about"), "{stdout}");
    let (column, rows) = read_csv(&out);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|row| row[column("send")] == "try"));
    assert!(histograms(&out, rows.len()).iter().all(|histogram| !histogram.is_empty()));
    // The printed line, run as it stands (with --force, as its --out now exists), sweeps the same cells.
    let args: Vec<&str> = line.split(' ').skip(1).collect();
    run_ok(bench().args(&args).arg("--force"));
    assert_eq!(read_csv(&out).1.len(), 4);
}

#[test]
fn participants_n_measures_the_room_alone_and_dry_run_names_each_cells_phase() {
    let stdout = run_ok(bench().args(["sfu", "--participants", "300", "--channels", "kanal", "--dry-run"]));
    let line = stdout.lines().find_map(|line| line.strip_prefix("sfu: ")).expect("the command line is printed");
    assert!(line.contains("--tasks 300") && !line.contains("1,300"), "{line}");
    let cells: Vec<&str> = stdout.lines().filter_map(|line| line.strip_prefix("  multi-thread")).collect();
    assert_eq!(cells.len(), 2, "one cell per phase at 300 tasks: {stdout}");
    assert!(cells.iter().all(|cell| cell.contains(" tasks=300 ")), "{stdout}");
    assert_eq!(cells.iter().filter(|cell| cell.ends_with(" kanal (out of phase, send try)")).count(), 1, "{stdout}");
    assert_eq!(cells.iter().filter(|cell| cell.ends_with(" kanal (in phase, send try)")).count(), 1, "{stdout}");
}
